/*
 * cli_bench.c -- `wcodec bench`: encode and decode a set of images in
 * memory and report size, quality and speed per image and overall.
 *
 * Images run in parallel, one per worker, and each encode uses one thread:
 * the per-image numbers then measure a single core, they add up across
 * workers, and sizes and quality never depend on --threads (the encoder's
 * output is a function of the image and the parameters alone). Rows are
 * printed in file order whatever order the workers finish in.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"

/* One line of the report: an image, or the overall summary. */
typedef struct bench_row {
    const char *label;
    cli_run r;
    double pixels;
    int summary; /* the overall row: means and totals, no geometry */
} bench_row;

typedef struct bench {
    char **paths;
    size_t n;
    wc_params p;
    bench_row *rows;
} bench;

static void bench_job(void *arg, size_t j, wc_ctx *ctx, cli_progress *prog)
{
    bench *b = arg;
    bench_row *row = &b->rows[j];
    wc_image img = {0};
    if (cli_run_read(b->paths[j], b->p.max_pixels, &img, &row->r) == WC_OK)
        cli_run_image(ctx, &b->p, &img, &row->r);
    row->label = b->paths[j];
    row->pixels = (double)img.width * img.height;
    wc_image_free(&img);
    cli_progress_step(prog, 1);
}

static void add_times(wc_times *sum, const wc_times *t)
{
    sum->transform += t->transform;
    sum->entropy += t->entropy;
    sum->container += t->container;
    sum->rate += t->rate;
}

/* Means over images of bpp and quality; totals of bytes, pixels and time,
 * so the throughputs are total pixels over total seconds. */
static bench_row bench_overall(const bench_row *rows, size_t n)
{
    bench_row o = {.label = "(overall)", .summary = 1};
    double psnr_n[4] = {0};
    for (size_t i = 0; i < n; i++) {
        const cli_run *r = &rows[i].r;
        o.pixels += rows[i].pixels;
        o.r.raw_bytes += r->raw_bytes;
        o.r.bytes += r->bytes;
        o.r.bpp += r->bpp / n;
        o.r.m.psnr_rgb += r->m.psnr_rgb / n;
        o.r.m.psnr_y += r->m.psnr_y / n;
        o.r.m.ssim += r->m.ssim / n;
        for (uint32_t c = 0; c < r->components; c++) {
            o.r.m.psnr[c] += r->m.psnr[c];
            psnr_n[c]++;
        }
        if (r->m.max_abs_error > o.r.m.max_abs_error) o.r.m.max_abs_error = r->m.max_abs_error;
        o.r.enc_s += r->enc_s;
        o.r.dec_s += r->dec_s;
        add_times(&o.r.enc, &r->enc);
        add_times(&o.r.dec, &r->dec);
        if (i == 0)
            snprintf(o.r.backend, sizeof o.r.backend, "%s", r->backend);
        else if (strcmp(o.r.backend, r->backend))
            snprintf(o.r.backend, sizeof o.r.backend, "mixed");
    }
    for (int c = 0; c < 4; c++) o.r.m.psnr[c] = psnr_n[c] ? o.r.m.psnr[c] / psnr_n[c] : NAN;
    o.r.ratio = o.r.bytes ? (double)o.r.raw_bytes / (double)o.r.bytes : 0;
    return o;
}

/* ---- the columns of the CSV and JSON outputs, in one place ------------------ */

typedef struct field {
    const char *name;
    double v;
    const char *s; /* a text field when non-NULL */
    int is_int;
    int absent; /* empty in CSV, null in JSON */
} field;

#define BENCH_FIELDS 29

static size_t bench_fields(const bench_row *row, field *f)
{
    const cli_run *r = &row->r;
    const double px = row->pixels;
    size_t k = 0;
#define NUM(n, val) f[k++] = (field){(n), (val), NULL, 0, 0}
#define INT(n, val) \
    f[k++] = (field) { (n), (double)(val), NULL, 1, row->summary }
    f[k++] = (field){"file", 0, row->label, 0, 0};
    INT("width", r->width);
    INT("height", r->height);
    INT("components", r->components);
    INT("bit_depth", r->bit_depth);
    f[k++] = (field){"raw_bytes", (double)r->raw_bytes, NULL, 1, 0};
    f[k++] = (field){"bytes", (double)r->bytes, NULL, 1, 0};
    NUM("ratio", r->ratio);
    NUM("bpp", r->bpp);
    static const char *const pn[4] = {"psnr_c0", "psnr_c1", "psnr_c2", "psnr_c3"};
    for (uint32_t c = 0; c < 4; c++)
        f[k++] = (field){pn[c], r->m.psnr[c], NULL, 0,
                         row->summary ? isnan(r->m.psnr[c]) : c >= r->components};
    NUM("psnr_rgb", r->m.psnr_rgb);
    NUM("psnr_y", r->m.psnr_y);
    f[k++] = (field){"max_abs_error", r->m.max_abs_error, NULL, 1, 0};
    NUM("ssim", r->m.ssim);
    NUM("enc_s", r->enc_s);
    NUM("dec_s", r->dec_s);
    NUM("enc_mps", cli_mps(px, r->enc_s));
    NUM("dec_mps", cli_mps(px, r->dec_s));
    NUM("enc_transform_mps", cli_mps(px, r->enc.transform));
    NUM("enc_entropy_mps", cli_mps(px, r->enc.entropy));
    NUM("enc_container_mps", cli_mps(px, r->enc.container));
    NUM("enc_rate_mps", cli_mps(px, r->enc.rate));
    NUM("dec_transform_mps", cli_mps(px, r->dec.transform));
    NUM("dec_entropy_mps", cli_mps(px, r->dec.entropy));
    NUM("dec_container_mps", cli_mps(px, r->dec.container));
    f[k++] = (field){"backend", 0, r->backend, 0, 0};
#undef NUM
#undef INT
    return k;
}

static void csv_value(cli_buf *b, const field *f)
{
    if (f->absent) return;
    if (f->s)
        cli_buf_csv(b, f->s);
    else if (f->is_int)
        cli_buf_printf(b, "%.0f", f->v);
    else
        cli_buf_printf(b, "%.6g", f->v); /* infinite PSNR (lossless) prints as inf */
}

static void bench_csv(cli_buf *b, const bench_row *rows, size_t n, const bench_row *overall)
{
    field f[BENCH_FIELDS];
    size_t k = bench_fields(overall, f);
    for (size_t i = 0; i < k; i++) cli_buf_printf(b, "%s%s", i ? "," : "", f[i].name);
    cli_buf_printf(b, "\n");
    for (size_t j = 0; j <= n; j++) {
        bench_fields(j < n ? &rows[j] : overall, f);
        for (size_t i = 0; i < k; i++) {
            if (i) cli_buf_printf(b, ",");
            csv_value(b, &f[i]);
        }
        cli_buf_printf(b, "\n");
    }
}

static void json_object(cli_buf *b, const bench_row *row, const char *indent)
{
    field f[BENCH_FIELDS];
    size_t k = bench_fields(row, f);
    cli_buf_printf(b, "{");
    for (size_t i = 0; i < k; i++) {
        cli_buf_printf(b, "%s\n%s  \"%s\": ", i ? "," : "", indent, f[i].name);
        if (f[i].absent)
            cli_buf_printf(b, "null");
        else if (f[i].s)
            cli_buf_json_str(b, f[i].s);
        else
            cli_buf_json_num(b, f[i].v);
    }
    cli_buf_printf(b, "\n%s}", indent);
}

static void bench_json(cli_buf *b, const bench *bn, const bench_row *overall, int threads,
                       double wall)
{
    cli_buf_printf(b, "{\n  \"wcodec\": ");
    cli_buf_json_str(b, wc_version_string());
    cli_buf_printf(b, ",\n  \"threads\": %d,\n  \"wall_s\": ", threads);
    cli_buf_json_num(b, wall);
    cli_buf_printf(b, ",\n  \"images\": [");
    for (size_t j = 0; j < bn->n; j++) {
        cli_buf_printf(b, "%s\n    ", j ? "," : "");
        json_object(b, &bn->rows[j], "    ");
    }
    cli_buf_printf(b, "\n  ],\n  \"overall\": ");
    json_object(b, overall, "  ");
    cli_buf_printf(b, "\n}\n");
}

/* ---- the report on stdout ------------------------------------------------------ */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void print_row(const bench_row *row)
{
    const cli_run *r = &row->r;
    char geom[40] = "";
    if (!row->summary) snprintf(geom, sizeof geom, "%ux%ux%u", r->width, r->height, r->components);
    printf("%-20.20s %-14s %10zu %8.2f %8.4f %8.3f %8.3f %7.4f %8.2f %8.2f  %s\n",
           row->summary ? row->label : base_name(row->label), geom, r->bytes, r->ratio, r->bpp,
           r->m.psnr_rgb, r->m.psnr_y, r->m.ssim, cli_mps(row->pixels, r->enc_s),
           cli_mps(row->pixels, r->dec_s), r->backend);
}

static void print_stages(const bench_row *row)
{
    const cli_run *r = &row->r;
    const double px = row->pixels;
    printf("%-20.20s %9.2f %9.2f %9.2f %9.2f | %9.2f %9.2f %9.2f\n",
           row->summary ? row->label : base_name(row->label), cli_mps(px, r->enc.transform),
           cli_mps(px, r->enc.entropy), cli_mps(px, r->enc.container), cli_mps(px, r->enc.rate),
           cli_mps(px, r->dec.transform), cli_mps(px, r->dec.entropy),
           cli_mps(px, r->dec.container));
}

static void bench_print(const bench *b, const bench_row *overall, int threads, double wall)
{
    printf("%-20s %-14s %10s %8s %8s %8s %8s %7s %8s %8s  %s\n", "image", "size", "bytes", "ratio",
           "bpp", "PSNR", "PSNR-Y", "SSIM", "enc MP/s", "dec MP/s", "backend");
    for (size_t j = 0; j < b->n; j++) print_row(&b->rows[j]);
    print_row(overall);
    printf("\nper stage, MPixel/s    (encode: transform = colour + transform + quantize)\n");
    printf("%-20s %9s %9s %9s %9s | %9s %9s %9s\n", "image", "transform", "entropy", "container",
           "rate", "transform", "entropy", "container");
    for (size_t j = 0; j < b->n; j++) print_stages(&b->rows[j]);
    print_stages(overall);
    printf("\n%zu image(s), %.2f MPixel, %d thread(s), wall %.2f s: "
           "%.2f MPixel/s encode + decode\n",
           b->n, overall->pixels * 1e-6, threads, wall, cli_mps(overall->pixels, wall));
    printf("PSNR is over the colour channels; per-channel values are in --csv/--json.\n");
}

/* ---- the batch calls --------------------------------------------------------------------- */

/* All the images again through wc_encode_batch and wc_decode_batch (one
 * call each, workers side by side; on CUDA each with its own stream), a
 * pass for set-up first: images a second, and whether every file is the
 * per-image run's size (the bytes are the single calls', tested). */
static int bench_batch(const bench *b, int threads)
{
    wc_image *imgs = calloc(b->n, sizeof *imgs);
    void **files = calloc(b->n, sizeof *files);
    size_t *sizes = calloc(b->n, sizeof *sizes);
    wc_image *dec = calloc(b->n, sizeof *dec);
    wc_ctx *ctx = wc_ctx_create();
    int rc = imgs && files && sizes && dec && ctx ? CLI_OK : CLI_BAD;
    cli_run r;
    for (size_t j = 0; j < b->n && rc == CLI_OK; j++)
        if (cli_run_read(b->paths[j], b->p.max_pixels, &imgs[j], &r) != WC_OK) rc = CLI_BAD;
    wc_params p = b->p;
    p.threads = threads; /* 0: all cores */
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = threads > 0 ? threads : cores > 0 ? (int)cores : 1;
    if ((size_t)workers > b->n) workers = (int)b->n;
    double enc = 0, decs = 0;
    size_t failed = 0;
    for (int pass = 0; pass < 2 && rc == CLI_OK; pass++) {
        double t0 = cli_now();
        wc_status s = wc_encode_batch(ctx, &p, imgs, b->n, files, sizes, &failed);
        enc = cli_now() - t0;
        t0 = cli_now();
        if (s == WC_OK)
            s = wc_decode_batch(ctx, &p, (const void *const *)files, sizes, b->n, dec, &failed);
        decs = cli_now() - t0;
        if (s != WC_OK) {
            fprintf(stderr, "wcodec: bench: batch: %s\n", wc_ctx_error(ctx));
            rc = cli_exit_code(s);
        }
        for (size_t j = 0; j < b->n; j++) {
            if (pass == 1 && sizes[j] != b->rows[j].r.bytes && rc == CLI_OK) rc = -1;
            wc_free(files[j]);
            files[j] = NULL;
            wc_image_free(&dec[j]);
        }
    }
    if (rc == CLI_OK || rc == -1)
        printf("batch (wc_encode_batch, wc_decode_batch; %s, %d worker(s)): encode %.1f "
               "images/s, decode %.1f images/s; sizes as per image: %s\n",
               wc_ctx_backend(ctx), workers, b->n / enc, b->n / decs, rc == CLI_OK ? "yes" : "NO");
    if (rc == -1) rc = CLI_BAD;
    for (size_t j = 0; imgs && j < b->n; j++) wc_image_free(&imgs[j]);
    wc_ctx_free(ctx);
    free(imgs);
    free(files);
    free(sizes);
    free(dec);
    return rc;
}

/* ---- the command ---------------------------------------------------------------------- */

static const char bench_help[] =
    "usage: wcodec bench [options] FILES|DIRS...\n\n"
    "Encodes and decodes each image (PNG, PGM, PPM; folders are scanned, not\n"
    "recursively, in name order) in memory and reports per image and overall:\n"
    "size, ratio, bits per pixel, PSNR (colour channels and luma), SSIM and\n"
    "MPixel/s of encode, decode and each stage. Images run in parallel, one per\n"
    "thread, each encoded on one thread: sizes and quality do not depend on\n"
    "--threads. Overall quality is the mean over images; throughput is total\n"
    "pixels over total seconds. Lossless unless a lossy option is given.\n\n"
    "options:\n%s"
    "  --csv FILE            also write the table as CSV (one row per image + overall)\n"
    "  --json FILE           also write it as JSON\n"
    "  --threads N           images coded at once (default: all cores); each image\n"
    "                        is coded on one thread\n"
    "  --batch               then all images again through wc_encode_batch and\n"
    "                        wc_decode_batch (images/s); default with --backend cuda\n";

typedef struct bench_opts {
    const char *csv, *json;
    int threads;
    int batch;
    char **inputs;
    int ninputs;
} bench_opts;

static int bench_parse(int argc, char **argv, wc_params *p, bench_opts *o)
{
    int lossy = 0, lossless = 0;
    long n;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "--csv") || !strcmp(a, "--json") || !strcmp(a, "--threads")) {
            if (!has_value) {
                fprintf(stderr, "wcodec: %s needs a value\n", a);
                return CLI_BAD;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--csv"))
                o->csv = v;
            else if (!strcmp(a, "--json"))
                o->json = v;
            else if (cli_int(a, v, 1, 256, &n))
                return CLI_BAD;
            else
                o->threads = (int)n;
            continue;
        }
        if (!strcmp(a, "--batch")) {
            o->batch = 1;
            continue;
        }
        int r = cli_encoder_option(argc, argv, &i, p, &lossy, &lossless);
        if (r < 0) return CLI_BAD;
        if (r > 0) continue;
        if (a[0] == '-' && a[1]) {
            fprintf(stderr, "wcodec: bench: unknown option '%s' (see --help)\n", a);
            return CLI_BAD;
        }
        o->inputs[o->ninputs++] = argv[i];
    }
    if (o->ninputs == 0) {
        fprintf(stderr, "wcodec: bench needs images or folders (see --help)\n");
        return CLI_BAD;
    }
    if (cli_encoder_finish(p, lossy, lossless)) return CLI_BAD;
    p->threads = 1; /* parallel over images instead */
    return CLI_OK;
}

static int bench_report(const bench *b, int threads, double wall, const bench_opts *o)
{
    int rc = CLI_OK;
    for (size_t j = 0; j < b->n; j++)
        if (b->rows[j].r.status != WC_OK) {
            fprintf(stderr, "wcodec: bench: %s: %s\n", b->paths[j], b->rows[j].r.error);
            if (rc == CLI_OK) rc = cli_exit_code(b->rows[j].r.status);
        }
    if (rc != CLI_OK) return rc; /* means over a partial set would mislead */
    bench_row overall = bench_overall(b->rows, b->n);
    bench_print(b, &overall, threads, wall);
    if (o->csv) {
        cli_buf t = {0};
        bench_csv(&t, b->rows, b->n, &overall);
        rc = cli_buf_save(&t, o->csv);
        cli_buf_free(&t);
    }
    if (o->json && rc == CLI_OK) {
        cli_buf t = {0};
        bench_json(&t, b, &overall, threads, wall);
        rc = cli_buf_save(&t, o->json);
        cli_buf_free(&t);
    }
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            /* The encoder's options less its --threads, which means
             * something else here (listed below). */
            char opts[2048];
            const char *t = strstr(cli_encoder_help, "  --threads");
            const char *e = t ? strchr(t, '\n') : NULL;
            int keep = t && e ? (int)(t - cli_encoder_help) : (int)strlen(cli_encoder_help);
            snprintf(opts, sizeof opts, "%.*s%s", keep, cli_encoder_help, t && e ? e + 1 : "");
            printf(bench_help, opts);
            return CLI_OK;
        }
    wc_params p;
    wc_params_init(&p);
    bench_opts o = {.inputs = calloc((size_t)argc, sizeof(char *))};
    if (!o.inputs) return CLI_BAD;
    bench b = {.p = p};
    int rc = bench_parse(argc, argv, &b.p, &o);
    if (rc == CLI_OK) rc = cli_list_images(o.inputs, o.ninputs, &b.paths, &b.n);
    free(o.inputs);
    if (rc != CLI_OK) return rc;
    b.rows = calloc(b.n, sizeof *b.rows);
    if (!b.rows) {
        cli_list_free(b.paths, b.n);
        return CLI_BAD;
    }
    int threads = cli_pool_threads(o.threads, b.n);
    double t0 = cli_now();
    rc = cli_pool_run(threads, b.n, bench_job, &b, b.n);
    double wall = cli_now() - t0;
    if (rc == CLI_OK) rc = bench_report(&b, threads, wall, &o);
    if (rc == CLI_OK && (o.batch || b.p.backend == WC_BACKEND_CUDA))
        rc = bench_batch(&b, o.threads);
    free(b.rows);
    cli_list_free(b.paths, b.n);
    return rc;
}
