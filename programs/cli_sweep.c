/*
 * cli_sweep.c -- `wcodec sweep`: a rate-distortion grid (transform x wavelet
 * x entropy coder x threshold, each at several target rates) over a set of
 * images, written as sweep.csv, psnr.svg, ssim.svg and report.md; and
 * `wcodec plot`, which draws any CSV's columns the same way (the peer
 * comparison script uses it, so every plot comes from one writer).
 *
 * Images run in parallel, one per worker, each worker running the whole
 * grid on its image with one encoder thread, as in bench: the numbers do
 * not depend on --threads.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "svg_plot.h"

#define SWEEP_MAX_LIST 32

/* One point of the grid less its rate: a curve of the plots. */
typedef struct sweep_config {
    wc_transform transform;
    int wavelet; /* 53 or 97 for DWT, 0 otherwise (the wavelet does not apply) */
    wc_entropy entropy;
    float threshold;
    char label[64];
} sweep_config;

typedef struct sweep {
    wc_params base; /* the options shared by every configuration */
    sweep_config *conf;
    size_t nconf;
    float bpp[SWEEP_MAX_LIST];
    size_t nbpp;
    char **paths;
    size_t nimg;
    cli_run *runs;  /* [image][config][rate] */
    double *pixels; /* per image */
} sweep;

static cli_run *run_at(const sweep *s, size_t img, size_t c, size_t r)
{
    return &s->runs[(img * s->nconf + c) * s->nbpp + r];
}

static void sweep_params(const sweep *s, size_t c, size_t r, wc_params *p)
{
    *p = s->base;
    p->lossless = 0;
    p->transform = s->conf[c].transform;
    if (s->conf[c].wavelet) p->wavelet = s->conf[c].wavelet;
    p->entropy = s->conf[c].entropy;
    p->threshold = s->conf[c].threshold;
    p->bpp = s->bpp[r];
    p->threads = 1; /* parallel over images instead */
}

static void sweep_job(void *arg, size_t j, wc_ctx *ctx, cli_progress *prog)
{
    sweep *s = arg;
    wc_image img = {0};
    cli_run failed = {0};
    wc_status st = cli_run_read(s->paths[j], s->base.max_pixels, &img, &failed);
    s->pixels[j] = (double)img.width * img.height;
    for (size_t c = 0; c < s->nconf; c++)
        for (size_t r = 0; r < s->nbpp; r++) {
            cli_run *run = run_at(s, j, c, r);
            if (st == WC_OK) {
                wc_params p;
                sweep_params(s, c, r, &p);
                cli_run_image(ctx, &p, &img, run);
            } else {
                *run = failed;
            }
            cli_progress_step(prog, 1);
        }
    wc_image_free(&img);
}

/* ---- options -------------------------------------------------------------------- */

/* Parses a comma list through the encoder's own option parser, so each item
 * is checked (and named in errors) exactly as `encode` would check it. */
static int parse_list(const char *opt, const char *list, wc_params *items, size_t *n)
{
    *n = 0;
    const char *s = list;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char item[64];
        if (*n == SWEEP_MAX_LIST || len == 0 || len >= sizeof item) {
            fprintf(stderr,
                    "wcodec: %s: expected a comma list of at most %d non-empty values, got '%s'\n",
                    opt, SWEEP_MAX_LIST, list);
            return 1;
        }
        memcpy(item, s, len);
        item[len] = '\0';
        char *av[2] = {(char *)opt, item};
        int i = 0, lossy = 0, lossless = 0;
        wc_params_init(&items[*n]);
        if (cli_encoder_option(2, av, &i, &items[*n], &lossy, &lossless) != 1) return 1;
        ++*n;
        if (!comma) return 0;
        s = comma + 1;
    }
}

typedef struct sweep_lists {
    wc_params t[SWEEP_MAX_LIST], w[SWEEP_MAX_LIST], e[SWEEP_MAX_LIST], th[SWEEP_MAX_LIST],
        r[SWEEP_MAX_LIST];
    size_t nt, nw, ne, nth, nr;
} sweep_lists;

static int sweep_list_option(int argc, char **argv, int *i, sweep_lists *l)
{
    static const char *const names[5] = {"--transform", "--wavelet", "--entropy", "--threshold",
                                         "--bpp"};
    wc_params *dst[5] = {l->t, l->w, l->e, l->th, l->r};
    size_t *cnt[5] = {&l->nt, &l->nw, &l->ne, &l->nth, &l->nr};
    for (int k = 0; k < 5; k++) {
        if (strcmp(argv[*i], names[k])) continue;
        if (*i + 1 >= argc) {
            fprintf(stderr, "wcodec: %s needs a value\n", names[k]);
            return -1;
        }
        return parse_list(names[k], argv[++*i], dst[k], cnt[k]) ? -1 : 1;
    }
    return 0;
}

/* Fills the defaults: DWT 9/7, Huffman, no threshold, 0.25 to 2 bpp. */
static void sweep_defaults(sweep_lists *l)
{
    const char *def[5][2] = {{"--transform", "dwt"},
                             {"--wavelet", "97"},
                             {"--entropy", "huffman"},
                             {"--threshold", "0"},
                             {"--bpp", "0.25,0.5,1,2"}};
    size_t *cnt[5] = {&l->nt, &l->nw, &l->ne, &l->nth, &l->nr};
    wc_params *dst[5] = {l->t, l->w, l->e, l->th, l->r};
    for (int k = 0; k < 5; k++)
        if (*cnt[k] == 0) parse_list(def[k][0], def[k][1], dst[k], cnt[k]);
}

static void config_label(sweep_config *c, int show_threshold)
{
    static const char *const tn[3] = {"dwt", "dct", "lot"};
    char wav[16] = "";
    if (c->wavelet) snprintf(wav, sizeof wav, " %s", c->wavelet == 53 ? "5/3" : "9/7");
    int n = snprintf(c->label, sizeof c->label, "%s%s %s", tn[c->transform], wav,
                     c->entropy == WC_ENTROPY_HUFFMAN ? "huffman" : "deflate");
    if (show_threshold && n > 0 && (size_t)n < sizeof c->label)
        snprintf(c->label + n, sizeof c->label - (size_t)n, " t=%g", c->threshold);
}

/* The grid, less the rates. The wavelet list applies to DWT only, so DCT
 * and LOT get one configuration per entropy coder and threshold. */
static int sweep_build(sweep *s, const sweep_lists *l)
{
    size_t max = l->nt * l->nw * l->ne * l->nth;
    s->conf = calloc(max, sizeof *s->conf);
    if (!s->conf) return CLI_BAD;
    int show_th = l->nth > 1 || l->th[0].threshold != 0;
    for (size_t t = 0; t < l->nt; t++)
        for (size_t w = 0; w < (l->t[t].transform == WC_TRANSFORM_DWT ? l->nw : 1); w++)
            for (size_t e = 0; e < l->ne; e++)
                for (size_t h = 0; h < l->nth; h++) {
                    sweep_config *c = &s->conf[s->nconf++];
                    c->transform = l->t[t].transform;
                    c->wavelet = c->transform == WC_TRANSFORM_DWT ? l->w[w].wavelet : 0;
                    c->entropy = l->e[e].entropy;
                    c->threshold = l->th[h].threshold;
                    config_label(c, show_th);
                }
    for (size_t r = 0; r < l->nr; r++) s->bpp[r] = l->r[r].bpp;
    s->nbpp = l->nr;
    return CLI_OK;
}

/* Codes a small synthetic image with each configuration before the grid
 * starts, so a transform this build lacks is reported at once, by name,
 * rather than as a failure per image after minutes of work. */
static int sweep_probe(const sweep *s)
{
    uint8_t px[32 * 32];
    for (int i = 0; i < 32 * 32; i++) px[i] = (uint8_t)((i % 32) * 5 + (i / 32) * 3);
    wc_image img = {32, 32, 1, 8, 32, px};
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return CLI_BAD;
    int rc = CLI_OK;
    for (size_t c = 0; c < s->nconf && rc == CLI_OK; c++) {
        wc_params p;
        sweep_params(s, c, 0, &p);
        p.bpp = 0;
        p.step = 4;
        void *out = NULL;
        size_t size = 0;
        wc_status st = wc_encode_alloc(ctx, &p, &img, &out, &size);
        wc_free(out);
        if (st != WC_OK) {
            const char *msg = wc_ctx_error(ctx);
            fprintf(stderr,
                    "wcodec: sweep: configuration '%s' is not available in this build: %s\n",
                    s->conf[c].label, *msg ? msg : wc_strerror(st));
            rc = CLI_BAD;
        }
    }
    wc_ctx_free(ctx);
    return rc;
}

/* ---- results ---------------------------------------------------------------------- */

/* Means over images of one configuration at one rate; seconds are totals so
 * that throughput is total pixels over total time. */
typedef struct sweep_mean {
    double bpp, psnr, psnr_y, ssim;
    double pixels, enc_s, dec_s;
} sweep_mean;

static sweep_mean mean_at(const sweep *s, size_t c, size_t r)
{
    sweep_mean m = {0};
    for (size_t i = 0; i < s->nimg; i++) {
        const cli_run *run = run_at(s, i, c, r);
        m.bpp += run->bpp / s->nimg;
        m.psnr += run->m.psnr_rgb / s->nimg;
        m.psnr_y += run->m.psnr_y / s->nimg;
        m.ssim += run->m.ssim / s->nimg;
        m.pixels += s->pixels[i];
        m.enc_s += run->enc_s;
        m.dec_s += run->dec_s;
    }
    return m;
}

static void csv_config(cli_buf *b, const sweep *s, size_t c, size_t r)
{
    static const char *const tn[3] = {"dwt", "dct", "lot"};
    const sweep_config *k = &s->conf[c];
    cli_buf_printf(b, ",");
    cli_buf_csv(b, k->label);
    cli_buf_printf(b, ",%s,", tn[k->transform]);
    if (k->wavelet) cli_buf_printf(b, "%d", k->wavelet);
    cli_buf_printf(b, ",%s,%g,%g", k->entropy == WC_ENTROPY_HUFFMAN ? "huffman" : "deflate",
                   k->threshold, s->bpp[r]);
}

static void sweep_csv(cli_buf *b, const sweep *s)
{
    cli_buf_printf(b, "image,config,transform,wavelet,entropy,threshold,target_bpp,width,height,"
                      "components,bytes,bpp,psnr_rgb,psnr_y,ssim,enc_s,dec_s\n");
    for (size_t i = 0; i < s->nimg; i++)
        for (size_t c = 0; c < s->nconf; c++)
            for (size_t r = 0; r < s->nbpp; r++) {
                const cli_run *run = run_at(s, i, c, r);
                cli_buf_csv(b, s->paths[i]);
                csv_config(b, s, c, r);
                cli_buf_printf(b, ",%u,%u,%u,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", run->width,
                               run->height, run->components, run->bytes, run->bpp, run->m.psnr_rgb,
                               run->m.psnr_y, run->m.ssim, run->enc_s, run->dec_s);
            }
    for (size_t c = 0; c < s->nconf; c++)
        for (size_t r = 0; r < s->nbpp; r++) {
            sweep_mean m = mean_at(s, c, r);
            cli_buf_printf(b, "(mean)");
            csv_config(b, s, c, r);
            cli_buf_printf(b, ",,,,,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", m.bpp, m.psnr, m.psnr_y,
                           m.ssim, m.enc_s / s->nimg, m.dec_s / s->nimg);
        }
}

/* One plot of a mean quality (PSNR or SSIM) against the mean achieved bpp. */
static int sweep_svg(const sweep *s, int ssim, const char *path)
{
    double *x = calloc(s->nconf * s->nbpp, sizeof *x), *y = calloc(s->nconf * s->nbpp, sizeof *y);
    svg_series *sr = calloc(s->nconf, sizeof *sr);
    int rc = CLI_BAD;
    if (x && y && sr) {
        for (size_t c = 0; c < s->nconf; c++) {
            for (size_t r = 0; r < s->nbpp; r++) {
                sweep_mean m = mean_at(s, c, r);
                x[c * s->nbpp + r] = m.bpp;
                y[c * s->nbpp + r] = ssim ? m.ssim : m.psnr;
            }
            sr[c] = (svg_series){s->conf[c].label, x + c * s->nbpp, y + c * s->nbpp, s->nbpp};
        }
        svg_plot p = {ssim ? "SSIM (luma) vs rate, mean over images"
                           : "PSNR (colour channels) vs rate, mean over images",
                      "bits per pixel",
                      ssim ? "SSIM" : "PSNR (dB)",
                      sr,
                      s->nconf,
                      0,
                      0};
        cli_buf b = {0};
        if (svg_plot_write(&b, &p))
            fprintf(stderr, "wcodec: %s: no finite values to plot\n", path);
        else
            rc = cli_buf_save(&b, path);
        cli_buf_free(&b);
    }
    free(x);
    free(y);
    free(sr);
    return rc;
}

/* The table of means: Markdown rows for report.md, aligned text on stdout. */
static void sweep_table(cli_buf *b, const sweep *s, int markdown)
{
    const char *fmt_md = "| %s | %g | %.4f | %.3f | %.3f | %.4f | %.2f | %.2f |\n";
    const char *fmt_txt = "%-30s %8g %8.4f %8.3f %8.3f %7.4f %9.2f %9.2f\n";
    if (markdown)
        cli_buf_printf(b, "| configuration | target bpp | bpp | PSNR (dB) | PSNR-Y (dB) | SSIM "
                          "| encode MP/s | decode MP/s |\n"
                          "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    else
        cli_buf_printf(b, "%-30s %8s %8s %8s %8s %7s %9s %9s\n", "configuration", "target", "bpp",
                       "PSNR", "PSNR-Y", "SSIM", "enc MP/s", "dec MP/s");
    for (size_t c = 0; c < s->nconf; c++)
        for (size_t r = 0; r < s->nbpp; r++) {
            sweep_mean m = mean_at(s, c, r);
            cli_buf_printf(b, markdown ? fmt_md : fmt_txt, s->conf[c].label, s->bpp[r], m.bpp,
                           m.psnr, m.psnr_y, m.ssim, cli_mps(m.pixels, m.enc_s),
                           cli_mps(m.pixels, m.dec_s));
        }
}

static void sweep_markdown(cli_buf *b, const sweep *s, int argc, char **argv, int threads,
                           double wall)
{
    double px = 0;
    for (size_t i = 0; i < s->nimg; i++) px += s->pixels[i];
    cli_buf_printf(b, "# wcodec rate-distortion sweep\n\n`wcodec");
    for (int i = 1; i < argc; i++) cli_buf_printf(b, " %s", argv[i]);
    cli_buf_printf(b,
                   "`\n\n%zu images (%.2f MPixel), %zu configurations x %zu rates; wcodec %s, "
                   "%d worker thread(s), wall time %.1f s.\n\n",
                   s->nimg, px * 1e-6, s->nconf, s->nbpp, wc_version_string(), threads, wall);
    cli_buf_printf(b, "Each rate is a target for the encoder's rate control (`--bpp`); "
                      "*bpp* is the "
                      "size reached, *PSNR* is over the colour channels, *PSNR-Y* of BT.601 luma "
                      "and *SSIM* of luma, all means over the images. Throughput is per thread: "
                      "total pixels over total seconds, one image per thread.\n\n");
    sweep_table(b, s, 1);
    cli_buf_printf(b, "\n![PSNR vs bpp](psnr.svg)\n\n![SSIM vs bpp](ssim.svg)\n\n"
                      "Per-image values: [sweep.csv](sweep.csv).\n");
}

/* ---- the sweep command ----------------------------------------------------------- */

static const char sweep_help[] =
    "usage: wcodec sweep FILES|DIRS... [grid options] [options] --out DIR\n\n"
    "Codes every image with every configuration of the grid at every rate\n"
    "(lossy, in memory) and writes DIR/sweep.csv (one row per image, configuration\n"
    "and rate, then the means), DIR/psnr.svg and DIR/ssim.svg (quality vs bits per\n"
    "pixel, one curve per configuration, means over the images) and DIR/report.md.\n\n"
    "grid (comma lists):\n"
    "  --transform T,...     dwt, dct, lot (default dwt)\n"
    "  --wavelet W,...       53, 97 (DWT only; default 97)\n"
    "  --bpp R,...           target bits per pixel (default 0.25,0.5,1,2)\n"
    "  --entropy E,...       huffman, deflate (default huffman)\n"
    "  --threshold T,...     zero coefficients below T (default 0)\n"
    "options:\n"
    "  --out DIR             where the results go (created if missing)\n"
    "  --threads N           images coded at once (default: all cores)\n"
    "  --levels N, --block N, --deflate-level L, --backend B, --max-pixels N\n"
    "                        as for encode, for every configuration\n";

typedef struct sweep_opts {
    const char *out;
    int threads;
    char **inputs;
    int ninputs;
} sweep_opts;

static int sweep_parse(int argc, char **argv, sweep *s, sweep_lists *l, sweep_opts *o)
{
    int lossy = 0, lossless = 0;
    long n;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int r = sweep_list_option(argc, argv, &i, l);
        if (r < 0) return CLI_BAD;
        if (r > 0) continue;
        if (!strcmp(a, "--out") || !strcmp(a, "--threads")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "wcodec: %s needs a value\n", a);
                return CLI_BAD;
            }
            if (!strcmp(a, "--out"))
                o->out = argv[++i];
            else if (cli_int(a, argv[++i], 1, 256, &n))
                return CLI_BAD;
            else
                o->threads = (int)n;
            continue;
        }
        r = cli_encoder_option(argc, argv, &i, &s->base, &lossy, &lossless);
        if (r < 0) return CLI_BAD;
        if (r > 0) continue;
        if (a[0] == '-' && a[1]) {
            fprintf(stderr, "wcodec: sweep: unknown option '%s' (see --help)\n", a);
            return CLI_BAD;
        }
        o->inputs[o->ninputs++] = argv[i];
    }
    if (lossless || s->base.quality > 0 || s->base.step > 0) {
        fprintf(stderr, "wcodec: sweep: the grid is lossy and its rates come from --bpp; "
                        "--lossless, --quality and --step do not apply\n");
        return CLI_BAD;
    }
    if (!o->out || o->ninputs == 0) {
        fprintf(stderr, "wcodec: sweep needs images or folders and --out DIR (see --help)\n");
        return CLI_BAD;
    }
    return CLI_OK;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Reports every failed run; the means of a partial grid would mislead. */
static int sweep_errors(const sweep *s)
{
    int rc = CLI_OK;
    for (size_t i = 0; i < s->nimg; i++)
        for (size_t c = 0; c < s->nconf; c++)
            for (size_t r = 0; r < s->nbpp; r++) {
                const cli_run *run = run_at(s, i, c, r);
                if (run->status == WC_OK) continue;
                fprintf(stderr, "wcodec: sweep: %s, %s, %g bpp: %s\n", s->paths[i],
                        s->conf[c].label, s->bpp[r], run->error);
                if (rc == CLI_OK) rc = cli_exit_code(run->status);
            }
    return rc;
}

static int sweep_write(const sweep *s, const char *dir, int argc, char **argv, int threads,
                       double wall)
{
    size_t n = strlen(dir) + 16;
    char *path = malloc(n);
    if (!path) return CLI_BAD;
    cli_buf csv = {0}, md = {0};
    sweep_csv(&csv, s);
    sweep_markdown(&md, s, argc, argv, threads, wall);
    snprintf(path, n, "%s/sweep.csv", dir);
    int rc = cli_buf_save(&csv, path);
    snprintf(path, n, "%s/psnr.svg", dir);
    if (rc == CLI_OK) rc = sweep_svg(s, 0, path);
    snprintf(path, n, "%s/ssim.svg", dir);
    if (rc == CLI_OK) rc = sweep_svg(s, 1, path);
    snprintf(path, n, "%s/report.md", dir);
    if (rc == CLI_OK) rc = cli_buf_save(&md, path);
    cli_buf_free(&csv);
    cli_buf_free(&md);
    free(path);
    return rc;
}

static int sweep_run(sweep *s, const sweep_opts *o, int argc, char **argv)
{
    if (mkdir(o->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "wcodec: sweep: %s: %s\n", o->out, strerror(errno));
        return CLI_IO;
    }
    int rc = sweep_probe(s);
    if (rc != CLI_OK) return rc;
    s->runs = calloc(s->nimg * s->nconf * s->nbpp, sizeof *s->runs);
    s->pixels = calloc(s->nimg, sizeof *s->pixels);
    if (!s->runs || !s->pixels) return CLI_BAD;
    int threads = cli_pool_threads(o->threads, s->nimg);
    double t0 = cli_now();
    rc = cli_pool_run(threads, s->nimg, sweep_job, s, s->nimg * s->nconf * s->nbpp);
    double wall = cli_now() - t0;
    if (rc == CLI_OK) rc = sweep_errors(s);
    if (rc != CLI_OK) return rc;
    cli_buf t = {0};
    sweep_table(&t, s, 0);
    if (!t.failed) fputs(t.data, stdout);
    cli_buf_free(&t);
    printf("\n%zu images x %zu configurations x %zu rates in %.1f s on %d thread(s); "
           "results in %s/\n",
           s->nimg, s->nconf, s->nbpp, wall, threads, o->out);
    return sweep_write(s, o->out, argc, argv, threads, wall);
}

int cmd_sweep(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(sweep_help, stdout);
            return CLI_OK;
        }
    sweep s = {0};
    sweep_lists l = {0};
    sweep_opts o = {.inputs = calloc((size_t)argc, sizeof(char *))};
    if (!o.inputs) return CLI_BAD;
    wc_params_init(&s.base);
    int rc = sweep_parse(argc, argv, &s, &l, &o);
    if (rc == CLI_OK) {
        sweep_defaults(&l);
        rc = sweep_build(&s, &l);
    }
    if (rc == CLI_OK) {
        qsort(s.bpp, s.nbpp, sizeof *s.bpp, cmp_float); /* curves run left to right */
        rc = cli_list_images(o.inputs, o.ninputs, &s.paths, &s.nimg);
    }
    if (rc == CLI_OK) {
        rc = sweep_run(&s, &o, argc, argv);
        cli_list_free(s.paths, s.nimg);
    }
    free(o.inputs);
    free(s.conf);
    free(s.runs);
    free(s.pixels);
    return rc;
}

/* ---- wcodec plot: curves from any CSV ---------------------------------------------- */

/* A CSV file's cells, decoded in place in one buffer (RFC 4180 quoting). */
typedef struct csv_table {
    char *text;
    char **cell;
    size_t ncell, cap;
    size_t *row; /* index of each row's first cell; row[nrow] == ncell */
    size_t nrow, rcap;
} csv_table;

static int csv_push(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return 0;
    size_t c = *cap ? 2 * *cap : 256;
    void *p = realloc(*v, c * size);
    if (!p) return 1;
    *v = p;
    *cap = c;
    return 0;
}

/* Decodes one field starting at *p, writes it NUL-terminated at its own
 * start, and returns the delimiter that ended it ('\0' at the end). */
static char csv_field(char **p, char **field)
{
    char *r = *p, *w = r;
    *field = w;
    if (*r == '"') {
        for (r++; *r; r++) {
            if (*r == '"' && r[1] == '"')
                *w++ = *r++;
            else if (*r == '"')
                break;
            else
                *w++ = *r;
        }
        if (*r == '"') r++;
    }
    while (*r && *r != ',' && *r != '\n' && *r != '\r') *w++ = *r++;
    char delim = *r;
    if (delim == '\r' && r[1] == '\n') r++;
    *w = '\0';
    *p = delim ? r + 1 : r;
    return delim;
}

static int csv_parse(csv_table *t)
{
    char *p = t->text;
    while (*p) {
        if (csv_push((void **)&t->row, &t->rcap, t->nrow + 1, sizeof *t->row)) return 1;
        t->row[t->nrow++] = t->ncell;
        char delim;
        do {
            if (csv_push((void **)&t->cell, &t->cap, t->ncell, sizeof *t->cell)) return 1;
            delim = csv_field(&p, &t->cell[t->ncell++]);
        } while (delim == ',');
    }
    if (csv_push((void **)&t->row, &t->rcap, t->nrow, sizeof *t->row)) return 1;
    t->row[t->nrow] = t->ncell;
    return 0;
}

static const char *csv_get(const csv_table *t, size_t row, long col)
{
    size_t n = t->row[row + 1] - t->row[row];
    return col >= 0 && (size_t)col < n ? t->cell[t->row[row] + col] : NULL;
}

static long csv_column(const csv_table *t, const char *name)
{
    for (size_t c = 0; t->nrow && c < t->row[1]; c++)
        if (!strcmp(t->cell[c], name)) return (long)c;
    fprintf(stderr, "wcodec: plot: no column '%s' in the CSV header\n", name);
    return -1;
}

static double csv_number(const char *s)
{
    char *end;
    double v = s && *s ? strtod(s, &end) : NAN;
    return s && *s && !*end ? v : NAN;
}

typedef struct plot_opts {
    const char *in, *out, *x, *y, *series, *title, *xlabel, *ylabel;
} plot_opts;

/* Groups the rows by the series column (in order of first appearance) and
 * plots y against x in row order; rows whose x or y is not a number are
 * left out, so summary rows with empty cells do no harm. */
static int plot_table(const csv_table *t, const plot_opts *o, cli_buf *b)
{
    long cx = csv_column(t, o->x), cy = csv_column(t, o->y);
    long cs = o->series ? csv_column(t, o->series) : -2; /* -2: one unnamed series */
    if (cx < 0 || cy < 0 || cs == -1) return CLI_BAD;
    size_t rows = t->nrow ? t->nrow - 1 : 0, ns = 0;
    svg_series *sr = calloc(rows + 1, sizeof *sr);
    double *x = calloc(rows + 1, sizeof *x), *y = calloc(rows + 1, sizeof *y);
    int rc = CLI_BAD;
    if (sr && x && y) {
        /* Points of a series are packed together: one pass per new name. */
        size_t used = 0;
        for (size_t r = 1; r <= rows; r++) {
            const char *name = cs >= 0 ? csv_get(t, r, cs) : "";
            if (!name) continue;
            size_t k = 0;
            while (k < ns && strcmp(sr[k].label, name)) k++;
            if (k < ns) continue;
            sr[ns] = (svg_series){name, x + used, y + used, 0};
            for (size_t q = r; q <= rows; q++) {
                const char *nq = cs >= 0 ? csv_get(t, q, cs) : "";
                if (!nq || strcmp(nq, name)) continue;
                x[used] = csv_number(csv_get(t, q, cx));
                y[used] = csv_number(csv_get(t, q, cy));
                if (isfinite(x[used]) && isfinite(y[used])) {
                    used++;
                    sr[ns].n++;
                }
            }
            if (sr[ns].n) ns++; /* a name with no numeric row (a summary) gets no curve */
        }
        svg_plot p = {
            o->title, o->xlabel ? o->xlabel : o->x, o->ylabel ? o->ylabel : o->y, sr, ns, 0, 0};
        if (svg_plot_write(b, &p))
            fprintf(stderr, "wcodec: plot: %s: no numeric points\n", o->in);
        else
            rc = CLI_OK;
    }
    free(sr);
    free(x);
    free(y);
    return rc;
}

static const char plot_help[] =
    "usage: wcodec plot CSV OUT.svg --x COL --y COL [options]\n\n"
    "Draws column y against column x of a CSV file (with a header row) as an SVG\n"
    "line plot, one curve per value of the --series column, points in row order.\n"
    "Rows whose x or y is not a number are skipped.\n\n"
    "options:\n"
    "  --series COL          one curve per distinct value of COL (default: one curve)\n"
    "  --title T, --xlabel T, --ylabel T   texts (labels default to the column names)\n";

static int plot_parse(int argc, char **argv, plot_opts *o)
{
    static const char *const names[6] = {"--x",     "--y",      "--series",
                                         "--title", "--xlabel", "--ylabel"};
    const char **dst[6] = {&o->x, &o->y, &o->series, &o->title, &o->xlabel, &o->ylabel};
    for (int i = 2; i < argc; i++) {
        int k = 0;
        while (k < 6 && strcmp(argv[i], names[k])) k++;
        if (k < 6) {
            if (i + 1 >= argc) {
                fprintf(stderr, "wcodec: %s needs a value\n", argv[i]);
                return CLI_BAD;
            }
            *dst[k] = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "wcodec: plot: unknown option '%s' (see --help)\n", argv[i]);
            return CLI_BAD;
        } else if (!o->in)
            o->in = argv[i];
        else if (!o->out)
            o->out = argv[i];
        else {
            fprintf(stderr, "wcodec: plot: unexpected argument '%s'\n", argv[i]);
            return CLI_BAD;
        }
    }
    if (!o->in || !o->out || !o->x || !o->y) {
        fprintf(stderr, "wcodec: plot needs CSV, OUT.svg, --x and --y (see --help)\n");
        return CLI_BAD;
    }
    return CLI_OK;
}

int cmd_plot(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(plot_help, stdout);
            return CLI_OK;
        }
    plot_opts o = {0};
    int rc = plot_parse(argc, argv, &o);
    if (rc != CLI_OK) return rc;
    void *data = NULL;
    size_t size = 0;
    csv_table t = {0};
    wc_err err = {{0}};
    wc_status st = file_read(o.in, 0, &data, &size, &err);
    if (st != WC_OK) cli_error_msg(err.msg, st, o.in);
    rc = cli_exit_code(st);
    if (rc == CLI_OK && (t.text = malloc(size + 1)) != NULL) {
        memcpy(t.text, data, size);
        t.text[size] = '\0';
        if (csv_parse(&t) || t.nrow == 0) {
            fprintf(stderr, "wcodec: plot: %s: %s\n", o.in,
                    t.nrow ? "out of memory" : "empty file");
            rc = CLI_BAD;
        }
    } else if (rc == CLI_OK) {
        rc = CLI_BAD;
    }
    if (rc == CLI_OK) {
        cli_buf b = {0};
        rc = plot_table(&t, &o, &b);
        if (rc == CLI_OK) rc = cli_buf_save(&b, o.out);
        cli_buf_free(&b);
    }
    free(data);
    free(t.text);
    free(t.cell);
    free(t.row);
    return rc;
}
