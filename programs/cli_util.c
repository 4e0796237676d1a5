/* cli_util.c -- helpers shared by the wcodec subcommands. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"

int cli_int(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "wcodec: %s: expected an integer in %ld..%ld, got '%s'\n", opt, lo, hi,
                s ? s : "");
        return 1;
    }
    *out = v;
    return 0;
}

int cli_float(const char *opt, const char *s, double lo, double hi, float *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !(v >= lo && v <= hi)) {
        fprintf(stderr, "wcodec: %s: expected a number in %g..%g, got '%s'\n", opt, lo, hi,
                s ? s : "");
        return 1;
    }
    *out = (float)v;
    return 0;
}

int cli_u64(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = s ? strtoull(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v == 0 || s[0] == '-') {
        fprintf(stderr, "wcodec: %s: expected a positive integer, got '%s'\n", opt, s ? s : "");
        return 1;
    }
    *out = v;
    return 0;
}

int cli_bytes(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = s ? strtoull(s, &end, 10) : 0;
    unsigned shift = 0;
    if (s && *s && !errno && end != s && end[0] && !end[1]) {
        const char *units = "KMGT", *u = strchr(units, end[0] & ~0x20);
        shift = u ? 10u * (unsigned)(u - units + 1) : 0;
        if (shift) end++;
    }
    if (!s || !*s || *end || errno || v == 0 || s[0] == '-' || (v >> (63 - shift)) != 0) {
        fprintf(stderr,
                "wcodec: %s: expected a positive byte count (K, M, G, T allowed), got '%s'\n", opt,
                s ? s : "");
        return 1;
    }
    *out = (uint64_t)v << shift;
    return 0;
}

int cli_exit_code(wc_status s) { return s == WC_OK ? CLI_OK : s == WC_ERR_IO ? CLI_IO : CLI_BAD; }

void cli_error(wc_ctx *ctx, wc_status s, const char *what)
{
    cli_error_msg(ctx ? wc_ctx_error(ctx) : "", s, what);
}

void cli_error_msg(const char *msg, wc_status s, const char *what)
{
    size_t n = strlen(what);
    /* File errors already start with the file's name ("standard input"
     * or "standard output" for '-'): say it once. */
    if ((!strncmp(msg, what, n) && msg[n] == ':') ||
        (!strcmp(what, "-") && !strncmp(msg, "standard ", 9)))
        fprintf(stderr, "wcodec: %s\n", msg);
    else
        fprintf(stderr, "wcodec: %s: %s\n", what, *msg ? msg : wc_strerror(s));
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int stat_path(const char *path, int fd, struct stat *st)
{
    return !strcmp(path, "-") ? fstat(fd, st) : stat(path, st);
}

int cli_same_file(const char *cmd, const char *in, const char *out)
{
    struct stat a, b;
    if (stat_path(in, STDIN_FILENO, &a) != 0 || stat_path(out, STDOUT_FILENO, &b) != 0) return 0;
    if (a.st_dev != b.st_dev || a.st_ino != b.st_ino || S_ISCHR(a.st_mode)) return 0;
    fprintf(stderr, "wcodec: %s: %s is the input file %s: refusing to overwrite it\n", cmd, out,
            in);
    return 1;
}

FILE *cli_report_stream(const char *out) { return !strcmp(out, "-") ? stderr : stdout; }

/* Whether path starts with the .wcx signature (reads 8 bytes of it). */
static int has_wcx_magic(const char *path)
{
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == 8 && memcmp(head, "\x89WCX\r\n\x1a\n", 8) == 0;
}

wc_status cli_load_any(wc_ctx *ctx, const char *path, const wc_params *p, wc_image *img,
                       wc_err *err)
{
    if (has_wcx_magic(path)) return decode_file(ctx, p, path, img, err);
    return image_read(path, p ? p->max_pixels : 0, img, err);
}

const char cli_encoder_help[] =
    "  --lossless            exact coding with the 5/3 wavelet (the default)\n"
    "  --transform T         dwt (default), dct or lot (lossy only)\n"
    "  --wavelet W           53 or 97 (lossy default 97)\n"
    "  --levels N|auto       wavelet levels 0..15; auto (default): 5, and lossless\n"
    "                        images that look synthetic also try 0 levels with\n"
    "                        Huffman and deflate 9 (colour: with and without the\n"
    "                        RCT), keeping the smallest file\n"
    "  --dwt-scheme S        separable (default), monolithic or explosive (Barina's\n"
    "                        non-separable liftings; a format 2.0 file)\n"
    "  --quality Q           1..100, lossy (default 75); 100 is lossless\n"
    "  --step S              base quantizer step, lossy\n"
    "  --bpp R               target bits per pixel, lossy (searches the step)\n"
    "  --threshold T         zero coefficients smaller than T\n"
    "  --entropy E           huffman (default; format 1.0), huffman-tiles (format 2.0:\n"
    "                        32x16 tiles a GPU decodes in parallel), deflate, or arith\n"
    "                        (format 2.0: adaptive arithmetic coding, smaller files;\n"
    "                        coded on the host by the CUDA backend)\n"
    "  --deflate-level L     zlib level 1..9 (default 6)\n"
    "  --block N             code-block side 16, 32, 64 or 128 (default: 64 lossy\n"
    "                        with Huffman, else 128)\n"
    "  --threads N           worker threads (default: all cores)\n"
    "  --backend B           auto (default), cpu or cuda\n";

static const char *value_of(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "wcodec: %s needs a value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int cli_encoder_option(int argc, char **argv, int *i, wc_params *p, int *lossy, int *lossless)
{
    const char *o = argv[*i], *v;
    long n;
    if (!strcmp(o, "--lossless")) {
        *lossless = 1;
        return 1;
    }
#define VALUE() \
    if (!(v = value_of(argc, argv, i))) return -1
    if (!strcmp(o, "--transform")) {
        VALUE();
        if (!strcmp(v, "dwt"))
            p->transform = WC_TRANSFORM_DWT;
        else if (!strcmp(v, "dct"))
            p->transform = WC_TRANSFORM_DCT;
        else if (!strcmp(v, "lot"))
            p->transform = WC_TRANSFORM_LOT;
        else {
            fprintf(stderr, "wcodec: --transform: expected dwt, dct or lot, got '%s'\n", v);
            return -1;
        }
        if (p->transform != WC_TRANSFORM_DWT) *lossy = 1;
        return 1;
    }
    if (!strcmp(o, "--wavelet")) {
        VALUE();
        if (strcmp(v, "53") && strcmp(v, "97")) {
            fprintf(stderr, "wcodec: --wavelet: expected 53 or 97, got '%s'\n", v);
            return -1;
        }
        p->wavelet = atoi(v);
        if (p->wavelet == 97) *lossy = 1;
        return 1;
    }
    if (!strcmp(o, "--dwt-scheme")) {
        VALUE();
        if (!strcmp(v, "separable"))
            p->dwt_scheme = WC_DWT_SEPARABLE;
        else if (!strcmp(v, "monolithic"))
            p->dwt_scheme = WC_DWT_MONOLITHIC;
        else if (!strcmp(v, "explosive"))
            p->dwt_scheme = WC_DWT_EXPLOSIVE;
        else {
            fprintf(stderr,
                    "wcodec: --dwt-scheme: expected separable, monolithic or explosive, got '%s'\n",
                    v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(o, "--levels")) {
        VALUE();
        if (!strcmp(v, "auto")) {
            p->levels = WC_LEVELS_AUTO;
            return 1;
        }
        if (cli_int(o, v, 0, 15, &n)) return -1;
        p->levels = (int)n;
        return 1;
    }
    if (!strcmp(o, "--quality")) {
        VALUE();
        *lossy = 1;
        return cli_float(o, v, 1, 100, &p->quality) ? -1 : 1;
    }
    if (!strcmp(o, "--step")) {
        VALUE();
        *lossy = 1;
        return cli_float(o, v, 1e-6, 1e8, &p->step) ? -1 : 1;
    }
    if (!strcmp(o, "--bpp")) {
        VALUE();
        *lossy = 1;
        return cli_float(o, v, 1e-4, 1000, &p->bpp) ? -1 : 1;
    }
    if (!strcmp(o, "--threshold")) {
        VALUE();
        *lossy = 1;
        return cli_float(o, v, 0, 1e8, &p->threshold) ? -1 : 1;
    }
    if (!strcmp(o, "--entropy")) {
        VALUE();
        if (!strcmp(v, "huffman"))
            p->entropy = WC_ENTROPY_HUFFMAN;
        else if (!strcmp(v, "huffman-tiles"))
            p->entropy = WC_ENTROPY_HUFFMAN_TILES;
        else if (!strcmp(v, "deflate"))
            p->entropy = WC_ENTROPY_DEFLATE;
        else if (!strcmp(v, "arith"))
            p->entropy = WC_ENTROPY_ARITH;
        else {
            fprintf(stderr,
                    "wcodec: --entropy: expected huffman, huffman-tiles, deflate or arith, got "
                    "'%s'\n",
                    v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(o, "--deflate-level")) {
        VALUE();
        if (cli_int(o, v, 1, 9, &n)) return -1;
        p->deflate_level = (int)n;
        return 1;
    }
    if (!strcmp(o, "--block")) {
        VALUE();
        if (cli_int(o, v, 16, 128, &n)) return -1;
        if (n != 16 && n != 32 && n != 64 && n != 128) {
            fprintf(stderr, "wcodec: --block: expected 16, 32, 64 or 128, got '%s'\n", v);
            return -1;
        }
        p->block_size = (int)n;
        return 1;
    }
    if (!strcmp(o, "--threads")) {
        VALUE();
        if (cli_int(o, v, 1, 256, &n)) return -1;
        p->threads = (int)n;
        return 1;
    }
    if (!strcmp(o, "--backend")) {
        VALUE();
        if (!strcmp(v, "auto"))
            p->backend = WC_BACKEND_AUTO;
        else if (!strcmp(v, "cpu"))
            p->backend = WC_BACKEND_CPU;
        else if (!strcmp(v, "cuda"))
            p->backend = WC_BACKEND_CUDA;
        else {
            fprintf(stderr, "wcodec: --backend: expected auto, cpu or cuda, got '%s'\n", v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(o, "--max-pixels")) {
        VALUE();
        return cli_u64(o, v, &p->max_pixels) ? -1 : 1;
    }
    if (!strcmp(o, "--max-memory")) {
        VALUE();
        return cli_u64(o, v, &p->max_memory) ? -1 : 1;
    }
    if (!strcmp(o, "--max-device-memory")) {
        VALUE();
        return cli_bytes(o, v, &p->max_device_memory) ? -1 : 1;
    }
#undef VALUE
    return 0;
}

int cli_encoder_finish(wc_params *p, int lossy, int lossless)
{
    if (lossless && lossy) {
        fprintf(stderr,
                "wcodec: --lossless cannot be combined with lossy options "
                "(--quality, --step, --bpp, --threshold, --wavelet 97, --transform dct|lot)\n");
        return 1;
    }
    p->lossless = !lossy;
    int set = (p->quality > 0) + (p->step > 0) + (p->bpp > 0);
    if (set > 1) {
        fprintf(stderr, "wcodec: give only one of --quality, --step and --bpp\n");
        return 1;
    }
    if (p->quality >= 100) { /* the top of the scale is exact, as cjxl's is */
        if (p->transform != WC_TRANSFORM_DWT || p->wavelet == 97 || p->threshold > 0) {
            fprintf(stderr, "wcodec: --quality 100 is lossless (DWT 5/3): it cannot be combined "
                            "with --transform dct|lot, --wavelet 97 or --threshold\n");
            return 1;
        }
        p->lossless = 1;
        p->quality = 0;
    }
    return 0;
}

/* ---- text buffers ------------------------------------------------------------ */

static int buf_reserve(cli_buf *b, size_t more)
{
    if (b->failed) return 0;
    if (b->len + more < b->cap) return 1;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap <= b->len + more) cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
        b->failed = 1;
        return 0;
    }
    b->data = d;
    b->cap = cap;
    return 1;
}

void cli_buf_printf(cli_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, (size_t)n + 1)) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void cli_buf_csv(cli_buf *b, const char *field)
{
    if (!strpbrk(field, ",\"\r\n")) {
        cli_buf_printf(b, "%s", field);
        return;
    }
    cli_buf_printf(b, "\"");
    for (const char *c = field; *c; c++) {
        if (*c == '"')
            cli_buf_printf(b, "\"\"");
        else
            cli_buf_printf(b, "%c", *c);
    }
    cli_buf_printf(b, "\"");
}

void cli_buf_json_str(cli_buf *b, const char *s)
{
    cli_buf_printf(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            cli_buf_printf(b, "\\%c", *c);
        else if (*c < 0x20)
            cli_buf_printf(b, "\\u%04x", *c);
        else
            cli_buf_printf(b, "%c", *c);
    }
    cli_buf_printf(b, "\"");
}

void cli_buf_json_num(cli_buf *b, double v)
{
    if (isfinite(v))
        cli_buf_printf(b, "%.10g", v);
    else
        cli_buf_printf(b, "null");
}

int cli_buf_save(const cli_buf *b, const char *path)
{
    if (b->failed) {
        fprintf(stderr, "wcodec: %s: out of memory building the text\n", path);
        return CLI_BAD;
    }
    wc_err err = {{0}};
    wc_status s = file_write(path, b->data ? b->data : "", b->len, &err);
    if (s != WC_OK) cli_error_msg(err.msg, s, "write"); /* the message names the path */
    return cli_exit_code(s);
}

void cli_buf_free(cli_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* ---- image sets ------------------------------------------------------------------ */

static int is_image_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && name[0] != '.' &&
           (!strcasecmp(dot, ".png") || !strcasecmp(dot, ".pgm") || !strcasecmp(dot, ".ppm") ||
            image_format_of(name) == IMAGE_TIFF || !strcasecmp(dot, ".pnm"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct str_list {
    char **v;
    size_t n, cap;
} str_list;

static int list_push(str_list *l, const char *dir, const char *name)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) return 1;
        l->v = v;
        l->cap = cap;
    }
    size_t n = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    if (!(l->v[l->n] = malloc(n))) return 1;
    if (dir)
        snprintf(l->v[l->n], n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    else
        snprintf(l->v[l->n], n, "%s", name);
    l->n++;
    return 0;
}

/* Adds a directory's files that keep() takes, sorted by name (readdir's
 * order is the file system's, which would make runs differ between
 * machines). */
static int list_dir(str_list *l, const char *dir, int (*keep)(const char *))
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "wcodec: %s: %s\n", dir, strerror(errno));
        return CLI_IO;
    }
    size_t first = l->n;
    struct dirent *e;
    int bad = 0;
    while (!bad && (e = readdir(d)) != NULL) {
        if (!keep(e->d_name) || e->d_name[0] == '.') continue;
        bad = list_push(l, dir, e->d_name);
        struct stat st;
        if (!bad && (stat(l->v[l->n - 1], &st) != 0 || !S_ISREG(st.st_mode))) free(l->v[--l->n]);
    }
    closedir(d);
    if (bad) {
        fprintf(stderr, "wcodec: out of memory listing %s\n", dir);
        return CLI_BAD;
    }
    qsort(l->v + first, l->n - first, sizeof *l->v, cmp_str);
    return CLI_OK;
}

int cli_list_images(char *const *args, int nargs, char ***list, size_t *count)
{
    return cli_list_files(args, nargs, NULL, list, count);
}

int cli_list_files(char *const *args, int nargs, int (*keep)(const char *name), char ***list,
                   size_t *count)
{
    str_list l = {0};
    int rc = CLI_OK;
    for (int i = 0; i < nargs && rc == CLI_OK; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0) {
            fprintf(stderr, "wcodec: %s: %s\n", args[i], strerror(errno));
            rc = CLI_IO;
        } else if (S_ISDIR(st.st_mode)) {
            rc = list_dir(&l, args[i], keep ? keep : is_image_name);
        } else if (list_push(&l, NULL, args[i])) {
            fprintf(stderr, "wcodec: out of memory\n");
            rc = CLI_BAD;
        }
    }
    if (rc == CLI_OK && l.n == 0) {
        fprintf(stderr, "wcodec: no %s found\n",
                keep ? "files" : "images (PNG, TIFF, PGM or PPM files, or folders of them)");
        rc = CLI_BAD;
    }
    if (rc != CLI_OK) {
        cli_list_free(l.v, l.n);
        return rc;
    }
    *list = l.v;
    *count = l.n;
    return CLI_OK;
}

void cli_list_free(char **list, size_t count)
{
    for (size_t i = 0; i < count; i++) free(list[i]);
    free(list);
}

/* ---- worker pool and progress bar ------------------------------------------ */

#define CLI_MAX_THREADS 256

struct cli_progress {
    pthread_mutex_t lock;
    size_t done, total;
    int draw;  /* stderr is a terminal */
    int shown; /* characters of the last bar, to erase at the end */
    double start;
};

void cli_progress_step(cli_progress *pr, size_t units)
{
    if (!pr) return;
    pthread_mutex_lock(&pr->lock);
    pr->done += units;
    if (pr->draw && pr->total) {
        enum { W = 30 };
        size_t fill = pr->done * W / pr->total;
        char bar[W + 1];
        for (size_t i = 0; i < W; i++) bar[i] = i < fill ? '#' : '.';
        bar[W] = '\0';
        pr->shown = fprintf(stderr, "\r[%s] %zu/%zu  %.1f s", bar, pr->done, pr->total,
                            cli_now() - pr->start);
        fflush(stderr);
    }
    pthread_mutex_unlock(&pr->lock);
}

typedef struct pool {
    cli_job_fn fn;
    void *arg;
    size_t jobs;
    atomic_size_t next;
    atomic_int failed; /* workers that could not get a context */
    cli_progress *prog;
} pool;

static void *pool_worker(void *p)
{
    pool *pl = p;
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) {
        atomic_fetch_add(&pl->failed, 1);
        return NULL;
    }
    for (;;) {
        size_t j = atomic_fetch_add(&pl->next, 1);
        if (j >= pl->jobs) break;
        pl->fn(pl->arg, j, ctx, pl->prog);
    }
    wc_ctx_free(ctx);
    return NULL;
}

int cli_pool_threads(int threads, size_t jobs)
{
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    if (threads > CLI_MAX_THREADS) threads = CLI_MAX_THREADS;
    if (jobs > 0 && (size_t)threads > jobs) threads = (int)jobs;
    return threads;
}

int cli_pool_run(int threads, size_t jobs, cli_job_fn fn, void *arg, size_t units)
{
    int t = cli_pool_threads(threads, jobs);
    cli_progress pr = {.total = units, .draw = isatty(STDERR_FILENO), .start = cli_now()};
    pthread_mutex_init(&pr.lock, NULL);
    pool pl = {.fn = fn, .arg = arg, .jobs = jobs, .prog = &pr};
    atomic_init(&pl.next, 0);
    atomic_init(&pl.failed, 0);
    pthread_t tid[CLI_MAX_THREADS];
    int started = 0;
    for (int i = 1; i < t; i++) {
        if (pthread_create(&tid[started], NULL, pool_worker, &pl) != 0) break;
        started++;
    }
    pool_worker(&pl); /* the calling thread works too; fewer spawned threads only slow it */
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    if (pr.draw && pr.shown > 0) fprintf(stderr, "\r%*s\r", pr.shown, "");
    pthread_mutex_destroy(&pr.lock);
    if (atomic_load(&pl.next) < jobs) {
        fprintf(stderr, "wcodec: out of memory: no worker could create a context\n");
        return CLI_BAD;
    }
    return CLI_OK;
}

/* ---- one measured round trip ------------------------------------------------------ */

double cli_mps(double pixels, double seconds) { return seconds > 0 ? pixels / seconds * 1e-6 : 0; }

static void run_fail(cli_run *r, wc_ctx *ctx, wc_status s, const char *what)
{
    const char *msg = wc_ctx_error(ctx);
    r->status = s;
    snprintf(r->error, sizeof r->error, "%s: %s", what, *msg ? msg : wc_strerror(s));
}

wc_status cli_run_read(const char *path, uint64_t max_pixels, wc_image *img, cli_run *r)
{
    wc_err err = {{0}};
    wc_status s = image_read(path, max_pixels, img, &err);
    if (s == WC_OK) return s;
    const char *msg = err.msg;
    size_t n = strlen(path);
    if (!strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2)) msg += n + 2;
    r->status = s;
    snprintf(r->error, sizeof r->error, "%s", *msg ? msg : wc_strerror(s));
    return s;
}

void cli_run_image(wc_ctx *ctx, const wc_params *p, const wc_image *img, cli_run *r)
{
    memset(r, 0, sizeof *r);
    r->width = img->width;
    r->height = img->height;
    r->components = img->components;
    r->bit_depth = img->bit_depth;
    r->raw_bytes = (size_t)img->height * wc_image_row_bytes(img);
    void *file = NULL;
    wc_image out = {0};
    double t0 = cli_now();
    wc_status s = wc_encode_alloc(ctx, p, img, &file, &r->bytes);
    r->enc_s = cli_now() - t0;
    if (s != WC_OK) {
        run_fail(r, ctx, s, "encode");
        return;
    }
    wc_ctx_times(ctx, &r->enc);
    snprintf(r->backend, sizeof r->backend, "%s", wc_ctx_backend(ctx));
    t0 = cli_now();
    s = wc_decode(ctx, p, file, r->bytes, &out);
    r->dec_s = cli_now() - t0;
    wc_free(file);
    if (s != WC_OK) {
        run_fail(r, ctx, s, "decode");
        return;
    }
    wc_ctx_times(ctx, &r->dec);
    s = image_compare(img, &out, &r->m);
    wc_image_free(&out);
    if (s != WC_OK) {
        run_fail(r, ctx, s, "compare");
        return;
    }
    double pixels = (double)img->width * img->height;
    r->bpp = r->bytes * 8.0 / pixels;
    r->ratio = r->bytes ? (double)r->raw_bytes / (double)r->bytes : 0;
}
