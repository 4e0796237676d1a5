/*
 * test_cli_experiments.c -- `wcodec bench`, `sweep` and `plot` run as the
 * user runs them (the built command on small generated images), and the
 * SVG writer (programs/svg_plot.c) directly.
 *
 * The outputs are checked for shape, not numbers that drift with the
 * encoder: rows and fields of the CSVs, the files a sweep writes, SVGs that
 * a strict minimal XML checker accepts, and results that do not change with
 * the number of threads.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_util.h"
#include "svg_plot.h"
#include "test_support.h"

/* ---- a minimal XML well-formedness checker ---------------------------------- */

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == ':' || c == '.';
}

/* Text and attribute values: no '<', and every '&' starts a known entity. */
static const char *xml_chars(const char *p, char stop)
{
    static const char *const ent[5] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    while (*p && *p != stop) {
        if (*p == '<' && stop != '<') return NULL;
        if (*p == '&') {
            int k = 0;
            while (k < 5 && strncmp(p, ent[k], strlen(ent[k]))) k++;
            if (k == 5) return NULL;
            p += strlen(ent[k]);
        } else {
            p++;
        }
    }
    return p;
}

static const char *xml_name(const char *p, char *name, size_t n)
{
    size_t k = 0;
    while (is_name_char(*p) && k + 1 < n) name[k++] = *p++;
    name[k] = '\0';
    return k ? p : NULL;
}

/* A start tag after '<': name, attributes name="value", then '>' or '/>'. */
static const char *xml_start_tag(const char *p, char *name, size_t n, int *empty)
{
    if (!(p = xml_name(p, name, n))) return NULL;
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\t') p++;
        if (*p == '>' || (p[0] == '/' && p[1] == '>')) break;
        char attr[64];
        if (!(p = xml_name(p, attr, sizeof attr)) || *p++ != '=' || *p++ != '"') return NULL;
        if (!(p = xml_chars(p, '"')) || *p++ != '"') return NULL;
    }
    *empty = *p == '/';
    return p + (*empty ? 2 : 1);
}

/* 1 when doc is one XML declaration and one balanced root element. */
static int xml_well_formed(const char *doc)
{
    const char *decl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
    if (strncmp(doc, decl, strlen(decl))) return 0;
    const char *p = doc + strlen(decl);
    char stack[32][64];
    int depth = 0, roots = 0;
    while (*p) {
        if (*p != '<') {
            const char *q = xml_chars(p, '<');
            if (!q) return 0;
            for (; p < q; p++)
                if (depth == 0 && *p != ' ' && *p != '\n') return 0; /* text outside the root */
            continue;
        }
        if (p[1] == '/') {
            char name[64];
            if (depth == 0 || !(p = xml_name(p + 2, name, sizeof name)) || *p++ != '>') return 0;
            if (strcmp(name, stack[--depth])) return 0;
            continue;
        }
        int empty = 0;
        if (depth == 0 && roots++) return 0;
        if (depth == 32 || !(p = xml_start_tag(p + 1, stack[depth], sizeof stack[0], &empty)))
            return 0;
        if (!empty) depth++;
    }
    return depth == 0 && roots == 1;
}

static size_t count_of(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
    return n;
}

static void test_xml_checker_rejects(void **state)
{
    (void)state;
    const char *d = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    char buf[256];
    snprintf(buf, sizeof buf, "%s<svg a=\"1\"><g><line/></g><text>a &amp; b</text></svg>\n", d);
    assert_true(xml_well_formed(buf));
    const char *bad[] = {"<svg><g></svg></g>", "<svg>a & b</svg>", "<svg>a < b</svg>",
                         "<svg a=\"x<y\"/>",   "<svg a=1/>",       "<svg>",
                         "<svg/><svg/>",       "<svg/>text"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(buf, sizeof buf, "%s%s", d, bad[i]);
        assert_false(xml_well_formed(buf));
    }
    assert_false(xml_well_formed("<svg/>"));
}

/* ---- svg_plot ---------------------------------------------------------------------- */

static void test_nice_ticks(void **state)
{
    (void)state;
    double first, last, step;
    assert_int_equal(svg_nice_ticks(0, 1, 5, &first, &last, &step), 6);
    assert_float_equal(step, 0.2, 1e-12);
    assert_float_equal(first, 0, 1e-12);
    assert_float_equal(last, 1, 1e-12);
    /* The range widens to whole steps around the data. */
    int n = svg_nice_ticks(29.62, 33.25, 6, &first, &last, &step);
    assert_float_equal(step, 0.5, 1e-12);
    assert_float_equal(first, 29.5, 1e-9);
    assert_float_equal(last, 33.5, 1e-9);
    assert_int_equal(n, 9);
    svg_nice_ticks(0.23, 1.97, 8, &first, &last, &step);
    assert_float_equal(step, 0.2, 1e-12);
    assert_true(first <= 0.23 && last >= 1.97);
    /* One value still gets an axis of nonzero width around it. */
    n = svg_nice_ticks(5, 5, 6, &first, &last, &step);
    assert_true(first < 5 && last > 5 && step > 0 && n >= 2);
    n = svg_nice_ticks(0, 0, 6, &first, &last, &step);
    assert_true(first < 0 && last > 0 && n >= 2);
}

static void test_svg_plot_escapes_and_breaks(void **state)
{
    (void)state;
    const double x1[4] = {0.25, 0.5, 1, 2}, y1[4] = {28.1, NAN, 33.4, 37.9};
    const double x2[3] = {0.3, 0.6, 1.1}, y2[3] = {27, 30, INFINITY};
    svg_series s[2] = {{"a<b & \"c\" 'd'", x1, y1, 4}, {"plain", x2, y2, 3}};
    svg_plot p = {"T <1>", "bits & pixels", "PSNR", s, 2, 0, 0};
    cli_buf b = {0};
    assert_int_equal(svg_plot_write(&b, &p), 0);
    assert_false(b.failed);
    assert_true(xml_well_formed(b.data));
    assert_non_null(strstr(b.data, "a&lt;b &amp; &quot;c&quot; &apos;d&apos;"));
    assert_non_null(strstr(b.data, "T &lt;1&gt;"));
    assert_non_null(strstr(b.data, "bits &amp; pixels"));
    /* The NaN splits series 0 in two lines; the infinity drops a point. */
    assert_int_equal(count_of(b.data, "<polyline"), 3);
    assert_int_equal(count_of(b.data, "<circle"), 3 + 2 + 2); /* points + legend marks */
    assert_null(strstr(b.data, "nan"));
    assert_null(strstr(b.data, "inf"));
    cli_buf_free(&b);

    const double bad[2] = {NAN, INFINITY};
    svg_series none = {"none", bad, bad, 2};
    svg_plot q = {NULL, NULL, NULL, &none, 1, 0, 0};
    assert_int_not_equal(svg_plot_write(&b, &q), 0);
    cli_buf_free(&b);
}

/* ---- running the command -------------------------------------------------------- */

typedef struct fixture {
    char dir[64];
    char imgs[96];
} fixture;

static char *path_in(const fixture *f, const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", f->dir, name);
    return buf[k];
}

/* Writes a w x h RGB image with smooth gradients and some noise, so that
 * coding at a rate is neither trivial nor pure noise. */
static void write_image(const char *path, uint32_t w, uint32_t h, uint64_t seed)
{
    wc_image img = {w, h, 3, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    test_rng r;
    test_rng_seed(&r, seed);
    uint8_t *px = img.pixels;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < 3; c++) {
                int v = (int)(x * (3 + c) + y * (5 - c)) + test_rng_range(&r, -12, 12);
                px[(y * w + x) * 3 + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    assert_int_equal(image_write(path, &img, NULL), WC_OK);
    wc_image_free(&img);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/wc_cli_exp_XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->imgs, sizeof f->imgs, "%s/imgs", f->dir);
    if (mkdir(f->imgs, 0777)) {
        free(f);
        return -1;
    }
    /* Written out of name order; the listing must sort them. */
    /* Big enough that 1 bpp covers the container's own bytes with room to
     * spare; small enough that the whole file runs in about a second. */
    write_image(path_in(f, "imgs/c.png"), 128, 96, 3);
    write_image(path_in(f, "imgs/a.png"), 128, 96, 1);
    write_image(path_in(f, "imgs/b.ppm"), 96, 128, 2);
    FILE *note = fopen(path_in(f, "imgs/notes.txt"), "w"); /* not an image: skipped */
    if (!note) return -1;
    fputs("not an image\n", note);
    fclose(note);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc;
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, fp) != (size_t)n) n = 0;
    if (s) s[n] = '\0';
    fclose(fp);
    return s;
}

/* Runs the wcodec command with the given arguments, its stdout and stderr
 * into files of the fixture; returns its exit status. The arguments end
 * with (char *)NULL: a bare NULL may be a plain 0, which va_arg cannot
 * read as a pointer. */
static int run_wcodec(const fixture *f, ...)
{
    char *argv[40];
    int n = 0;
    argv[n++] = WCODEC_EXE;
    va_list ap;
    va_start(ap, f);
    for (char *a; n < 39 && (a = va_arg(ap, char *)) != NULL;) argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(path_in(f, "stdout.txt"), "w", stdout) ||
            !freopen(path_in(f, "stderr.txt"), "w", stderr))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    assert_true(pid > 0 && waitpid(pid, &status, 0) == pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0) { /* expected or not, say why: it explains a failure */
        char *err = slurp(path_in(f, "stderr.txt"));
        print_message("(%s %s exited %d: %s)\n", WCODEC_EXE, argv[1], WEXITSTATUS(status),
                      err ? err : "");
        free(err);
    }
    return WEXITSTATUS(status);
}

/* ---- CSV reading: lines, and fields with RFC 4180 quotes ------------------------ */

/* Splits text into lines in place; returns how many (a final empty one is
 * not counted). */
static size_t csv_lines(char *text, char **lines, size_t max)
{
    size_t n = 0;
    for (char *p = text; *p && n < max;) {
        lines[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    return n;
}

/* Field k of a CSV line into out; returns the line's number of fields. */
static int csv_field(const char *line, int k, char *out, size_t n)
{
    int field = 0;
    size_t len = 0;
    int quoted = 0;
    out[0] = '\0';
    for (const char *p = line;; p++) {
        if (quoted && *p == '"' && p[1] == '"') {
            p++;
        } else if (*p == '"') {
            quoted = !quoted;
            continue;
        } else if (!quoted && (*p == ',' || *p == '\0')) {
            field++;
            if (*p == '\0') return field;
            continue;
        }
        if (field == k && len + 1 < n) {
            out[len++] = *p;
            out[len] = '\0';
        }
    }
}

static double csv_num(const char *line, int k)
{
    char buf[64], *end;
    csv_field(line, k, buf, sizeof buf);
    double v = strtod(buf, &end);
    return *buf && !*end ? v : NAN;
}

static int csv_col(const char *header, const char *name)
{
    char buf[64];
    int n = csv_field(header, 0, buf, sizeof buf);
    for (int k = 0; k < n; k++) {
        csv_field(header, k, buf, sizeof buf);
        if (!strcmp(buf, name)) return k;
    }
    fail_msg("no column %s", name);
    return -1;
}

/* ---- bench -------------------------------------------------------------------------- */

static void test_bench_csv_json(void **state)
{
    fixture *f = *state;
    char csv_path[256], json_path[256];
    snprintf(csv_path, sizeof csv_path, "%s", path_in(f, "bench.csv"));
    snprintf(json_path, sizeof json_path, "%s", path_in(f, "bench.json"));
    assert_int_equal(run_wcodec(f, "bench", "--bpp", "1", "--threads", "2", f->imgs, "--csv",
                                csv_path, "--json", json_path, (char *)NULL),
                     0);
    char *csv = slurp(csv_path), *out = slurp(path_in(f, "stdout.txt"));
    assert_non_null(csv);
    char *lines[16];
    assert_int_equal(csv_lines(csv, lines, 16), 1 + 3 + 1); /* header, images, overall */
    char buf[256];
    int fields = csv_field(lines[0], 0, buf, sizeof buf);
    assert_int_equal(fields, 29);
    for (int i = 1; i < 5; i++) assert_int_equal(csv_field(lines[i], 0, buf, sizeof buf), fields);
    const char *order[3] = {"imgs/a.png", "imgs/b.ppm", "imgs/c.png"};
    int cb = csv_col(lines[0], "bytes"), cbpp = csv_col(lines[0], "bpp");
    int cp = csv_col(lines[0], "psnr_rgb"), cs = csv_col(lines[0], "ssim");
    double bpp_sum = 0;
    for (int i = 0; i < 3; i++) {
        csv_field(lines[1 + i], 0, buf, sizeof buf);
        assert_non_null(strstr(buf, order[i]));
        assert_true(csv_num(lines[1 + i], cb) > 0);
        double bpp = csv_num(lines[1 + i], cbpp);
        assert_true(bpp > 0.5 && bpp <= 1.0001); /* rate control lands at or just under */
        assert_true(csv_num(lines[1 + i], cp) > 20);
        assert_true(csv_num(lines[1 + i], cs) > 0 && csv_num(lines[1 + i], cs) <= 1);
        bpp_sum += bpp;
        assert_non_null(strstr(out, order[i] + 5)); /* the table names each image */
    }
    csv_field(lines[4], 0, buf, sizeof buf);
    assert_string_equal(buf, "(overall)");
    assert_float_equal(csv_num(lines[4], cbpp), bpp_sum / 3, 1e-4);
    char *json = slurp(json_path);
    assert_non_null(json);
    assert_int_equal(count_of(json, "\"file\":"), 4);
    assert_int_equal(count_of(json, "{"), count_of(json, "}"));
    assert_non_null(strstr(json, "\"overall\": {"));
    assert_null(strstr(json, "inf"));
    free(json);
    free(csv);
    free(out);
}

/* Sizes and quality must not change with the worker count (only timings do):
 * compare every column up to ssim. */
static void test_bench_threads_do_not_matter(void **state)
{
    fixture *f = *state;
    char *csv[2];
    const char *threads[2] = {"1", "3"};
    for (int t = 0; t < 2; t++) {
        char p[256];
        snprintf(p, sizeof p, "%s", path_in(f, t ? "t3.csv" : "t1.csv"));
        assert_int_equal(run_wcodec(f, "bench", "--step", "6", "--threads", threads[t], f->imgs,
                                    "--csv", p, (char *)NULL),
                         0);
        csv[t] = slurp(p);
        assert_non_null(csv[t]);
    }
    char *l0[8], *l1[8];
    size_t n = csv_lines(csv[0], l0, 8);
    assert_int_equal(csv_lines(csv[1], l1, 8), n);
    int last = csv_col(l0[0], "ssim");
    for (size_t i = 1; i < n; i++)
        for (int k = 0; k <= last; k++) {
            char a[128], b[128];
            csv_field(l0[i], k, a, sizeof a);
            csv_field(l1[i], k, b, sizeof b);
            assert_string_equal(a, b);
        }
    free(csv[0]);
    free(csv[1]);
}

/* --batch: the images again through the batch calls, sizes as per image. */
static void test_bench_batch(void **state)
{
    fixture *f = *state;
    assert_int_equal(
        run_wcodec(f, "bench", "--step", "6", "--threads", "3", "--batch", f->imgs, (char *)NULL),
        0);
    char *out = slurp(path_in(f, "stdout.txt"));
    assert_non_null(out);
    assert_non_null(strstr(out, "batch (wc_encode_batch, wc_decode_batch; "));
    assert_non_null(strstr(out, "sizes as per image: yes"));
    free(out);
}

static void test_bench_lossless_and_errors(void **state)
{
    fixture *f = *state;
    char p[256];
    snprintf(p, sizeof p, "%s", path_in(f, "lossless.csv"));
    assert_int_equal(run_wcodec(f, "bench", path_in(f, "imgs/a.png"), "--csv", p, (char *)NULL), 0);
    char *csv = slurp(p), *lines[4];
    assert_int_equal(csv_lines(csv, lines, 4), 3);
    assert_true(isinf(csv_num(lines[1], csv_col(lines[0], "psnr_rgb"))));
    assert_float_equal(csv_num(lines[1], csv_col(lines[0], "ssim")), 1.0, 1e-12);
    assert_float_equal(csv_num(lines[1], csv_col(lines[0], "max_abs_error")), 0, 0);
    free(csv);
    assert_int_equal(run_wcodec(f, "bench", path_in(f, "missing"), (char *)NULL), 2);
    assert_int_equal(run_wcodec(f, "bench", "--bogus", f->imgs, (char *)NULL), 1);
    assert_int_equal(run_wcodec(f, "bench", "--lossless", "--bpp", "1", f->imgs, (char *)NULL), 1);
    assert_int_equal(run_wcodec(f, "bench", path_in(f, "imgs/notes.txt"), (char *)NULL), 1);
    char *err = slurp(path_in(f, "stderr.txt"));
    assert_non_null(strstr(err, "notes.txt"));
    free(err);
}

/* ---- sweep and plot ------------------------------------------------------------------ */

static void check_svg(const char *path, const char *const *labels, int n)
{
    char *svg = slurp(path);
    assert_non_null(svg);
    assert_true(xml_well_formed(svg));
    for (int i = 0; i < n; i++) assert_non_null(strstr(svg, labels[i]));
    assert_int_equal(count_of(svg, "<polyline"), n);
    free(svg);
}

static void test_sweep_outputs(void **state)
{
    fixture *f = *state;
    char out[256];
    snprintf(out, sizeof out, "%s", path_in(f, "sweep"));
    assert_int_equal(run_wcodec(f, "sweep", f->imgs, "--transform", "dwt,dct", "--wavelet", "53,97",
                                "--bpp", "2,1", "--out", out, (char *)NULL),
                     0);
    char p[300];
    snprintf(p, sizeof p, "%s/sweep.csv", out);
    char *csv = slurp(p), *lines[64], buf[128];
    assert_non_null(csv);
    /* 3 configurations (the wavelet list applies to DWT only) x 2 rates:
     * 3 images' rows, then one mean row each. */
    assert_int_equal(csv_lines(csv, lines, 64), 1 + 3 * 3 * 2 + 3 * 2);
    for (int i = 0; i < 25; i++) assert_int_equal(csv_field(lines[i], 0, buf, sizeof buf), 17);
    int cc = csv_col(lines[0], "config"), ct = csv_col(lines[0], "target_bpp");
    csv_field(lines[19], 0, buf, sizeof buf);
    assert_string_equal(buf, "(mean)");
    csv_field(lines[19], cc, buf, sizeof buf);
    assert_string_equal(buf, "dwt 5/3 huffman");
    assert_float_equal(csv_num(lines[19], ct), 1, 0); /* rates sorted ascending */
    csv_field(lines[24], cc, buf, sizeof buf);
    assert_string_equal(buf, "dct huffman");
    free(csv);
    const char *labels[3] = {"dwt 5/3 huffman", "dwt 9/7 huffman", "dct huffman"};
    snprintf(p, sizeof p, "%s/psnr.svg", out);
    check_svg(p, labels, 3);
    snprintf(p, sizeof p, "%s/ssim.svg", out);
    check_svg(p, labels, 3);
    snprintf(p, sizeof p, "%s/report.md", out);
    char *md = slurp(p);
    assert_non_null(md);
    assert_int_equal(count_of(md, "\n| dwt 9/7 huffman | "), 2);
    assert_int_equal(count_of(md, "\n| "), 1 + 6); /* header + one row per configuration x rate */
    assert_non_null(strstr(md, "![PSNR vs bpp](psnr.svg)"));
    assert_non_null(strstr(md, "![SSIM vs bpp](ssim.svg)"));
    free(md);
}

static void test_sweep_errors(void **state)
{
    fixture *f = *state;
    char out[256];
    snprintf(out, sizeof out, "%s", path_in(f, "sweep-bad"));
    assert_int_equal(run_wcodec(f, "sweep", f->imgs, (char *)NULL), 1); /* no --out */
    assert_int_equal(run_wcodec(f, "sweep", f->imgs, "--quality", "50", "--out", out, (char *)NULL),
                     1);
    assert_int_equal(run_wcodec(f, "sweep", f->imgs, "--bpp", "1,,2", "--out", out, (char *)NULL),
                     1);
    assert_int_equal(
        run_wcodec(f, "sweep", f->imgs, "--transform", "dwt,wht", "--out", out, (char *)NULL), 1);
    char *err = slurp(path_in(f, "stderr.txt"));
    assert_non_null(strstr(err, "wht"));
    free(err);
}

static void test_plot_from_csv(void **state)
{
    fixture *f = *state;
    char in[256], svg[256];
    snprintf(in, sizeof in, "%s", path_in(f, "peers.csv"));
    snprintf(svg, sizeof svg, "%s", path_in(f, "peers.svg"));
    FILE *fp = fopen(in, "w");
    assert_non_null(fp);
    fputs("codec,bpp,psnr\r\n\"jpeg, q\",0.5,30\r\n\"jpeg, q\",1,33\r\nwebp <m6>,0.5,31\r\n"
          "webp <m6>,1,34.5\r\n(mean),,\r\n",
          fp);
    fclose(fp);
    assert_int_equal(run_wcodec(f, "plot", in, svg, "--x", "bpp", "--y", "psnr", "--series",
                                "codec", "--title", "peers & us", (char *)NULL),
                     0);
    const char *labels[2] = {"jpeg, q", "webp &lt;m6&gt;"};
    check_svg(svg, labels, 2);
    assert_int_equal(run_wcodec(f, "plot", in, svg, "--x", "bpp", "--y", "nope", (char *)NULL), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml_checker_rejects),
        cmocka_unit_test(test_nice_ticks),
        cmocka_unit_test(test_svg_plot_escapes_and_breaks),
        cmocka_unit_test(test_bench_csv_json),
        cmocka_unit_test(test_bench_threads_do_not_matter),
        cmocka_unit_test(test_bench_batch),
        cmocka_unit_test(test_bench_lossless_and_errors),
        cmocka_unit_test(test_sweep_outputs),
        cmocka_unit_test(test_sweep_errors),
        cmocka_unit_test(test_plot_from_csv),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
