/*
 * cli_batch.c -- encode and decode of one file or many: 'wcodec encode IN
 * OUT' and 'wcodec encode A B DIR... --out-dir D' share this driver.
 *
 * Many files run in parallel, one per worker (each coded on one thread, so
 * every file is byte for byte what a call of its own gives), with one
 * progress line on a terminal and a summary at the end. A file that fails
 * is reported and the rest go on; the exit status is the worst file's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_batch.h"
#include "cli_image.h"
#include "image_io.h"

typedef struct file_result {
    wc_status status;
    char out[1024];
    char line[2400]; /* what a success prints */
    char note[1400]; /* notes (pages, metadata left out, lossless) */
    char error[1400]; /* what a failure prints */
    uint64_t in_bytes, out_bytes, pixels;
} file_result;

typedef struct batch {
    const cli_batch_opts *o;
    int decode;
    char **in;
    size_t n;
    const char *single_out; /* one file, OUT given */
    file_result *r;
    int threads_each;
} batch;

/* msg: the imageio or library message of the failure, which usually
 * starts with the file's name already ("standard input"/"standard output"
 * for '-'): said once. */
static void set_error(file_result *r, const char *msg, wc_status s, const char *path)
{
    size_t n = strlen(path);
    r->status = s;
    if ((!strncmp(msg, path, n) && msg[n] == ':') ||
        (!strcmp(path, "-") && !strncmp(msg, "standard ", 9)))
        snprintf(r->error, sizeof r->error, "%s", msg);
    else
        snprintf(r->error, sizeof r->error, "%s: %s", path, *msg ? msg : wc_strerror(s));
}

static void add_note(file_result *r, const char *text)
{
    size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "%s%s", used ? "; " : "", text);
}

/* Encodes with the options; --bpp at or above the lossless rate gives the
 * lossless file (the smaller, and exact). */
static wc_status encode_image(wc_ctx *ctx, const wc_params *p, const wc_image *img, void **buf,
                              size_t *size, int *lossless, file_result *r)
{
    *lossless = p->lossless;
    if (p->lossless || p->bpp <= 0) return wc_encode_alloc(ctx, p, img, buf, size);
    wc_params exact = *p;
    exact.lossless = 1;
    exact.bpp = 0;
    exact.transform = WC_TRANSFORM_DWT;
    exact.wavelet = 0;
    wc_status s = wc_encode_alloc(ctx, &exact, img, buf, size);
    if (s != WC_OK) return s;
    double bpp = *size * 8.0 / ((double)img->width * img->height);
    if (bpp <= p->bpp) {
        char text[160];
        snprintf(text, sizeof text,
                 "--bpp %g is at or above the lossless rate (%.4f bpp): the file is lossless",
                 p->bpp, bpp);
        add_note(r, text);
        *lossless = 1;
        return WC_OK;
    }
    free(*buf);
    *buf = NULL;
    return wc_encode_alloc(ctx, p, img, buf, size);
}

static const char *backend_note(wc_ctx *ctx)
{
    return wc_ctx_note(ctx)[0] ? wc_ctx_note(ctx) : wc_ctx_backend(ctx);
}

/* One file each: p is the options with this file's threads; meta is NULL
 * with --strip. */
static void encode_job(const cli_batch_opts *o, file_result *r, const char *in, wc_params p,
                       wc_meta *meta, wc_ctx *ctx)
{
    p.meta = meta;
    wc_image img = {0};
    void *buf = NULL;
    size_t size = 0;
    unsigned pages = 1;
    int lossless = 0;
    wc_err e = {{0}};
    /* i11's limits (pixels, and the encode's memory with the image) are
     * checked on the header before the pixels are allocated. */
    wc_status s = image_read_meta(in, &p, o->page, &img, meta, &pages, &e);
    if (s != WC_OK) {
        set_error(r, e.msg, s, in);
    } else {
        if (pages > 1) {
            char text[1200];
            snprintf(text, sizeof text, "%s has %u pages; this is page %u (--page N for another)",
                     in, pages, o->page ? o->page : 1);
            add_note(r, text);
        }
        double t0 = cli_now();
        s = encode_image(ctx, &p, &img, &buf, &size, &lossless, r);
        double t1 = cli_now();
        if (s != WC_OK) set_error(r, wc_ctx_error(ctx), s, in);
        /* Never partial, never over a device, a link or the input (files.c). */
        if (s == WC_OK && (s = file_write(r->out, buf, size, &e)) != WC_OK)
            set_error(r, e.msg, s, r->out);
        if (s == WC_OK) {
            double raw = (double)img.width * img.height * img.components * (img.bit_depth > 8 ? 2 : 1);
            r->in_bytes = (uint64_t)raw;
            r->out_bytes = size;
            r->pixels = (uint64_t)img.width * img.height;
            snprintf(r->line, sizeof r->line,
                     "%s -> %s: %ux%u, %u x %u-bit -> %zu bytes, ratio %.2f:1, %.4f bpp, %.1f ms%s",
                     in, r->out, img.width, img.height, img.components, img.bit_depth, size,
                     raw / (double)size, size * 8.0 / ((double)img.width * img.height),
                     (t1 - t0) * 1e3, lossless ? " (lossless)" : "");
            if (o->verbose) add_note(r, backend_note(ctx));
        }
    }
    r->status = s;
    free(buf);
    wc_image_free(&img);
}

static void decode_job(const cli_batch_opts *o, file_result *r, const char *in, wc_params p,
                       wc_meta *meta, wc_ctx *ctx)
{
    wc_image img = {0};
    unsigned dropped = 0;
    wc_err e = {{0}};
    /* The header first, under the limits, then the rest (decode_file). */
    double t0 = cli_now();
    wc_status s = decode_file_meta(ctx, &p, in, &img, meta, &e);
    double t1 = cli_now();
    if (s != WC_OK) {
        set_error(r, e.msg, s, in);
        if (meta && (strstr(e.msg, "WMET") || strstr(e.msg, "metadata"))) {
            size_t used = strlen(r->error);
            snprintf(r->error + used, sizeof r->error - used,
                     " (--strip decodes the image without it)");
        }
    }
    if (s == WC_OK &&
        (s = image_write_meta(r->out, &img, meta, o->out_format, &dropped, &e)) != WC_OK)
        set_error(r, e.msg, s, r->out);
    struct stat st;
    uint64_t size = strcmp(in, "-") && stat(in, &st) == 0 ? (uint64_t)st.st_size : 0;
    if (s == WC_OK) {
        r->in_bytes = size;
        r->pixels = (uint64_t)img.width * img.height;
        r->out_bytes = r->pixels * img.components * (img.bit_depth > 8 ? 2 : 1);
        snprintf(r->line, sizeof r->line, "%s -> %s: %ux%u, %u x %u-bit, %.1f ms", in, r->out,
                 img.width, img.height, img.components, img.bit_depth, (t1 - t0) * 1e3);
        if (dropped) {
            char text[200] = "the format has no place for:";
            for (unsigned k = 1; k < 32; k++)
                if (dropped & (1u << k)) {
                    size_t used = strlen(text);
                    snprintf(text + used, sizeof text - used, " %s,",
                             wc_meta_kind_name((wc_meta_kind)k));
                }
            text[strlen(text) - 1] = '\0';
            add_note(r, text);
        }
        if (o->verbose) add_note(r, backend_note(ctx));
    }
    r->status = s;
    wc_image_free(&img);
}

static void job(void *arg, size_t j, wc_ctx *ctx, cli_progress *prog)
{
    batch *b = arg;
    wc_params p = b->o->p;
    p.threads = b->threads_each;
    wc_meta *meta = b->o->strip ? NULL : wc_meta_create();
    if (!b->o->strip && !meta) {
        b->r[j].status = WC_ERR_NOMEM;
        snprintf(b->r[j].error, sizeof b->r[j].error, "%s: out of memory", b->in[j]);
    } else if (b->decode) {
        decode_job(b->o, &b->r[j], b->in[j], p, meta, ctx);
    } else {
        encode_job(b->o, &b->r[j], b->in[j], p, meta, ctx);
    }
    wc_meta_free(meta);
    cli_progress_step(prog, 1);
}

/* OUT_DIR/NAME with the input's extension replaced by ext. */
static int out_name(const char *dir, const char *in, const char *ext, char *out, size_t cap)
{
    const char *base = strrchr(in, '/');
    base = base ? base + 1 : in;
    const char *dot = strrchr(base, '.');
    int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    int n = snprintf(out, cap, "%s%s%.*s.%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", stem,
                     base, ext);
    return n < 0 || (size_t)n >= cap;
}

/* Outputs for every input; two inputs with one output name are refused
 * before anything runs. */
static int plan_outputs(batch *b)
{
    const char *ext = b->decode ? (b->o->format ? b->o->format : "png") : "wcx";
    for (size_t i = 0; i < b->n; i++) {
        if (b->single_out) {
            snprintf(b->r[i].out, sizeof b->r[i].out, "%s", b->single_out);
        } else if (out_name(b->o->out_dir, b->in[i], ext, b->r[i].out, sizeof b->r[i].out)) {
            fprintf(stderr, "wcodec: %s: the output name is too long\n", b->in[i]);
            return CLI_BAD;
        }
        for (size_t k = 0; k < i; k++)
            if (!strcmp(b->r[k].out, b->r[i].out)) {
                fprintf(stderr, "wcodec: %s and %s would both write %s\n", b->in[k], b->in[i],
                        b->r[i].out);
                return CLI_BAD;
            }
    }
    return CLI_OK;
}

static int keep_wcx(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && !strcasecmp(dot, ".wcx");
}

int cli_batch_run(const cli_batch_opts *o, int decode, char **args, int nargs, const char *out)
{
    batch b = {.o = o, .decode = decode, .single_out = out};
    int rc;
    if (out) { /* one file, as named */
        struct stat st;
        if (stat(args[0], &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "wcodec: %s is a folder: give --out-dir DIR to %s the files in it\n",
                    args[0], decode ? "decode" : "encode");
            return CLI_BAD;
        }
        b.in = args;
        b.n = 1;
        rc = CLI_OK;
    } else {
        struct stat st;
        if (stat(o->out_dir, &st) != 0 && mkdir(o->out_dir, 0777) != 0) {
            fprintf(stderr, "wcodec: --out-dir %s: %s\n", o->out_dir, strerror(errno));
            return CLI_IO;
        }
        if (stat(o->out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "wcodec: --out-dir %s: not a folder\n", o->out_dir);
            return CLI_IO;
        }
        rc = cli_list_files(args, nargs, decode ? keep_wcx : NULL, &b.in, &b.n);
        if (rc != CLI_OK) return rc;
    }
    b.r = calloc(b.n, sizeof *b.r);
    if (!b.r) rc = CLI_BAD;
    if (rc == CLI_OK) rc = plan_outputs(&b);
    int workers = b.n == 1 ? 1 : cli_pool_threads(o->p.threads, b.n);
    /* One file: its own threads (all cores by default); many: one each. */
    b.threads_each = b.n == 1 ? o->p.threads : 1;
    double t0 = cli_now();
    if (rc == CLI_OK) rc = cli_pool_run(workers, b.n, job, &b, b.n > 1 ? b.n : 0);
    double wall = cli_now() - t0;
    size_t failed = 0;
    uint64_t in_bytes = 0, out_bytes = 0, pixels = 0;
    const int tty = isatty(STDERR_FILENO);
    for (size_t i = 0; rc == CLI_OK && i < b.n; i++) {
        const file_result *r = &b.r[i];
        if (r->status != WC_OK) {
            fprintf(stderr, "wcodec: %s\n", r->error);
            failed++;
            int code = cli_exit_code(r->status);
            if (code > rc) rc = code;
            continue;
        }
        in_bytes += r->in_bytes;
        out_bytes += r->out_bytes;
        pixels += r->pixels;
        /* With OUT '-' the image is standard output: the line goes to stderr. */
        if (!o->quiet && (b.n == 1 || !tty)) fprintf(out ? cli_report_stream(out) : stdout, "%s\n", r->line);
        if (!o->quiet && r->note[0]) fprintf(stderr, "wcodec: note: %s: %s\n", r->out, r->note);
    }
    if (b.r && b.n > 1 && !o->quiet) {
        printf("%s %zu of %zu file(s), %zu failed, %.2f s with %d worker(s): %.2f MB -> %.2f MB",
               decode ? "decoded" : "encoded", b.n - failed, b.n, failed, wall, workers,
               in_bytes * 1e-6, out_bytes * 1e-6);
        if (!decode && pixels) printf(", %.4f bpp", out_bytes * 8.0 / pixels);
        printf("\n");
    }
    free(b.r);
    if (!out) cli_list_free(b.in, b.n);
    return rc;
}
