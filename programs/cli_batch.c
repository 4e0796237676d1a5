/*
 * cli_batch.c -- encode and decode of one file or many: 'wcodec encode IN
 * OUT' and 'wcodec encode A B DIR... --out-dir D' share this driver.
 *
 * Many files run in parallel, one per worker (each coded on one thread, so
 * every file is byte for byte what a call of its own gives), with one
 * progress line on a terminal and a summary at the end. A file that fails
 * is reported and the rest go on; the exit status is the worst file's.
 * Workers take the CUDA devices of the batch in turn, each with a context
 * (streams, buffers) of its own on its device, and pull files from one
 * queue: the files do not depend on which device coded them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_batch.h"
#include "cli_image.h"
#include "image_io.h"

typedef cli_file_result file_result;

typedef struct batch {
    const cli_batch_opts *o;
    int decode;
    char **in;
    const size_t *jobs; /* file of each job; NULL: job j is file j */
    file_result *r;
    int threads_each;
    int single; /* one file on one worker */
    int devices[CLI_MAX_DEVICES], ndevices;
    pthread_mutex_t lock; /* guards the worker table */
    wc_ctx *worker_ctx[256];
    size_t nworkers;
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

typedef struct warm_up {
    wc_ctx *ctx;
    const wc_params *p;
    double seconds;
    int unused;
} warm_up;

static void *warm_thread(void *arg)
{
    warm_up *w = arg;
    const double t = cli_now();
    wc_ctx_prepare(w->ctx, w->p, NULL);
    w->seconds = cli_now() - t;
    return NULL;
}

/* Encoding by rows: the file goes out through file_write_with. */
typedef struct rows_job {
    wc_ctx *ctx;
    const wc_params *p;
    const wc_image *shape;
    img_rows *rows;
    tmp_store *store;
    uint64_t written;
    int reader_failed;
} rows_job;

typedef struct rows_out {
    FILE *fp;
    uint64_t bytes; /* counted here: standard output cannot say */
} rows_out;

static wc_status rows_sink(void *user, const void *data, size_t n)
{
    rows_out *o = user;
    o->bytes += n;
    return fwrite(data, 1, n, o->fp) == n ? WC_OK : WC_ERR_IO;
}

static wc_status rows_write(FILE *fp, const char *name, void *arg, wc_err *err)
{
    rows_job *j = arg;
    wc_row_source src = {img_rows_read, img_rows_rewind, j->rows};
    wc_byte_store store = {tmp_store_append, tmp_store_read, j->store};
    rows_out out = {fp, 0};
    wc_status s = wc_encode_rows(j->ctx, j->p, j->shape, &src, &store, rows_sink, &out);
    if (s == WC_OK) {
        j->written = out.bytes;
        return WC_OK;
    }
    /* The reader's own message names the file and the row. */
    const char *why = img_rows_error(j->rows)[0] ? img_rows_error(j->rows) : wc_ctx_error(j->ctx);
    j->reader_failed = img_rows_error(j->rows)[0] != 0;
    return wc_fail(err, s, "%s", why[0] ? why : name);
}

/* Encodes a PGM/PPM or PNG input by rows (wc_encode_rows) when o asks or the
 * whole image would need too much memory; 1 when it did (r filled), 0
 * when the input is for the whole-image path. */
static int encode_rows_job(const cli_batch_opts *o, file_result *r, const char *in,
                           const wc_params *p, wc_meta *meta, wc_ctx *ctx)
{
    if (o->stream < 0 || (o->page && o->page > 1)) return 0;
    wc_image shape;
    img_rows *rows = NULL;
    wc_err e = {{0}};
    wc_status s = img_rows_open(in, &shape, &rows, &e);
    if (s == WC_ERR_UNSUPPORTED) return 0;
    if (s == WC_OK) {
        const uint64_t whole = wc_encode_memory(&shape, p);
        const int want =
            o->stream > 0 || whole > CLI_STREAM_ABOVE || (p->max_memory && whole > p->max_memory);
        if (!want || !wc_encode_rows_supported(&shape, p)) {
            img_rows_close(rows);
            return 0;
        }
    }
    if (s == WC_OK) s = img_rows_meta(rows, meta, &e);
    tmp_store *store = NULL;
    if (s == WC_OK) s = tmp_store_open(&store, &e);
    rows_job j = {ctx, p, &shape, rows, store, 0, 0};
    const double t0 = cli_now();
    if (s == WC_OK) s = file_write_with(r->out, rows_write, &j, &e);
    const double t1 = cli_now();
    tmp_store_close(store);
    img_rows_close(rows);
    if (s != WC_OK) {
        set_error(r, e.msg, s, in);
    } else {
        const double raw =
            (double)shape.width * shape.height * shape.components * (shape.bit_depth > 8 ? 2 : 1);
        r->in_bytes = (uint64_t)raw;
        r->out_bytes = j.written;
        r->pixels = (uint64_t)shape.width * shape.height;
        snprintf(r->line, sizeof r->line,
                 "%s -> %s: %ux%u, %u x %u-bit -> %llu bytes, ratio %.2f:1, %.4f bpp, %.1f ms%s",
                 in, r->out, shape.width, shape.height, shape.components, shape.bit_depth,
                 (unsigned long long)j.written, raw / (double)j.written,
                 j.written * 8.0 / ((double)shape.width * shape.height), (t1 - t0) * 1e3,
                 p->lossless ? " (lossless)" : "");
        if (o->verbose) add_note(r, wc_ctx_note(ctx));
    }
    r->status = s;
    return 1;
}

/* One file each: p is the options on this worker's threads and device;
 * meta is NULL with --strip; single: the only file of the command. */
static void encode_job(const cli_batch_opts *o, file_result *r, const char *in, wc_params p,
                       wc_meta *meta, wc_ctx *ctx, int single)
{
    p.meta = meta;
    if (encode_rows_job(o, r, in, &p, meta, ctx)) return;
    wc_image img = {0};
    void *buf = NULL;
    size_t size = 0;
    unsigned pages = 1;
    int lossless = 0;
    wc_err e = {{0}};
    /* i11's limits (pixels, and the encode's memory with the image) are
     * checked on the header before the pixels are allocated. */
    /* One file: the backend starts (on CUDA: context, kernels) on a thread
     * while the file is read, then sizes its buffers for the image, so the
     * time reported is the coding's. */
    warm_up w = {ctx, &p, 0.0, 0};
    pthread_t tid;
    const int warming = single && pthread_create(&tid, NULL, warm_thread, &w) == 0;
    wc_status s = image_read_meta(in, &p, o->page, &img, meta, &pages, &e);
    if (warming) {
        pthread_join(tid, NULL);
        if (s == WC_OK) {
            const double t = cli_now();
            wc_ctx_prepare(ctx, &p, &img); /* a failure shows again in the encode */
            w.seconds += cli_now() - t;
        }
    }
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
            double raw =
                (double)img.width * img.height * img.components * (img.bit_depth > 8 ? 2 : 1);
            r->in_bytes = (uint64_t)raw;
            r->out_bytes = size;
            r->pixels = (uint64_t)img.width * img.height;
            snprintf(r->line, sizeof r->line,
                     "%s -> %s: %ux%u, %u x %u-bit -> %zu bytes, ratio %.2f:1, %.4f bpp, %.1f ms%s",
                     in, r->out, img.width, img.height, img.components, img.bit_depth, size,
                     raw / (double)size, size * 8.0 / ((double)img.width * img.height),
                     (t1 - t0) * 1e3, lossless ? " (lossless)" : "");
            if (o->verbose) add_note(r, backend_note(ctx));
            if (o->verbose && warming) {
                char text[96];
                snprintf(text, sizeof text, "backend set-up %.1f ms, beside reading the input",
                         w.seconds * 1e3);
                add_note(r, text);
            }
        }
    }
    r->status = s;
    free(buf);
    wc_image_free(&img);
}

/* Whether a decode goes through wc_decode_stream (strips, in memory that
 * grows with the width): a whole image from a regular file decoded on the
 * host, i.e. unless a CUDA device would run it (--backend cuda, or auto
 * with a device), which decodes the whole image at once. */
static int decode_streams(const cli_batch_opts *o, const char *in, const wc_params *p)
{
    struct stat st;
    if (o->has_region || !strcmp(in, "-") || stat(in, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    const char *env = getenv("WC_BACKEND");
    if (p->backend == WC_BACKEND_CPU || (env && !strcmp(env, "cpu"))) return 1;
    return p->backend == WC_BACKEND_AUTO && wc_device_count() == 0;
}

static void decode_job(const cli_batch_opts *o, file_result *r, const char *in, wc_params p,
                       wc_meta *meta, wc_ctx *ctx)
{
    wc_image img = {0};
    unsigned dropped = 0;
    wc_err e = {{0}};
    double t0 = cli_now(), t1;
    wc_status s;
    if (decode_streams(o, in, &p)) {
        /* Read by ranges, written row by row as the strips come. */
        s = decode_file_stream(ctx, &p, in, r->out, o->out_format, meta, &img, &dropped, &e);
        t1 = cli_now();
        if (s != WC_OK) set_error(r, e.msg, s, in);
    } else {
        /* The header first, under the limits, then the rest (decode_file). */
        s = decode_file_region(ctx, &p, in, o->has_region ? &o->region : NULL, &img, meta, &e);
        t1 = cli_now();
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
    }
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
        if (o->verbose)
            add_note(r, o->has_region && p.backend == WC_BACKEND_CUDA
                            ? "cpu (--region and --reduce are decoded on the host)"
                            : backend_note(ctx));
    }
    r->status = s;
    if (img.pixels) wc_image_free(&img);
}

/* The device of the worker that owns ctx: workers take the batch's
 * devices in turn as they start (each worker keeps one context). */
static int worker_device(batch *b, wc_ctx *ctx)
{
    if (b->ndevices == 0) return b->o->p.device;
    pthread_mutex_lock(&b->lock);
    size_t k = 0;
    while (k < b->nworkers && b->worker_ctx[k] != ctx) k++;
    if (k == b->nworkers && k < sizeof b->worker_ctx / sizeof b->worker_ctx[0])
        b->worker_ctx[b->nworkers++] = ctx;
    pthread_mutex_unlock(&b->lock);
    return b->devices[k % (size_t)b->ndevices];
}

static void job(void *arg, size_t j, wc_ctx *ctx, cli_progress *prog)
{
    batch *b = arg;
    const size_t file = b->jobs ? b->jobs[j] : j;
    wc_params p = b->o->p; /* the options, on this worker's threads and device */
    p.threads = b->threads_each;
    p.device = worker_device(b, ctx);
    wc_meta *meta = b->o->strip ? NULL : wc_meta_create();
    if (!b->o->strip && !meta) {
        b->r[file].status = WC_ERR_NOMEM;
        snprintf(b->r[file].error, sizeof b->r[file].error, "%s: out of memory", b->in[file]);
    } else if (b->decode) {
        decode_job(b->o, &b->r[file], b->in[file], p, meta, ctx);
    } else {
        encode_job(b->o, &b->r[file], b->in[file], p, meta, ctx, b->single);
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

int cli_batch_outputs(const cli_batch_opts *o, int decode, char **in, size_t n, file_result *r)
{
    const char *ext = decode ? (o->format ? o->format : "png") : "wcx";
    for (size_t i = 0; i < n; i++) {
        if (out_name(o->out_dir, in[i], ext, r[i].out, sizeof r[i].out)) {
            fprintf(stderr, "wcodec: %s: the output name is too long\n", in[i]);
            return CLI_BAD;
        }
        for (size_t k = 0; k < i; k++)
            if (!strcmp(r[k].out, r[i].out)) {
                fprintf(stderr, "wcodec: %s and %s would both write %s\n", in[k], in[i], r[i].out);
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

int cli_batch_inputs(const cli_batch_opts *o, int decode, char **args, int nargs, char ***in,
                     size_t *n)
{
    struct stat st;
    if (stat(o->out_dir, &st) != 0 && mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "wcodec: --out-dir %s: %s\n", o->out_dir, strerror(errno));
        return CLI_IO;
    }
    if (stat(o->out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "wcodec: --out-dir %s: not a folder\n", o->out_dir);
        return CLI_IO;
    }
    return cli_list_files(args, nargs, decode ? keep_wcx : NULL, in, n);
}

int cli_batch_code(const cli_batch_opts *o, int decode, char **in, const size_t *jobs, size_t njobs,
                   file_result *r, int workers, int progress)
{
    batch b = {.o = o, .decode = decode, .in = in, .jobs = jobs, .r = r};
    /* One file alone: its own threads (all cores by default); many: one each. */
    b.threads_each = njobs == 1 && workers == 1 ? o->p.threads : 1;
    b.single = njobs == 1 && workers == 1;
    b.ndevices = cli_batch_devices(o, b.devices);
    pthread_mutex_init(&b.lock, NULL);
    int rc =
        njobs ? cli_pool_run(workers, njobs, job, &b, progress && njobs > 1 ? njobs : 0) : CLI_OK;
    pthread_mutex_destroy(&b.lock);
    return rc;
}

int cli_batch_report(const cli_batch_opts *o, int decode, const file_result *r, size_t n,
                     double wall, const char *who)
{
    size_t failed = 0;
    uint64_t in_bytes = 0, out_bytes = 0, pixels = 0;
    const int tty = isatty(STDERR_FILENO);
    int rc = CLI_OK;
    for (size_t i = 0; i < n; i++) {
        if (r[i].status != WC_OK) {
            fprintf(stderr, "wcodec: %s\n", r[i].error);
            failed++;
            int code = cli_exit_code(r[i].status);
            if (code > rc) rc = code;
            continue;
        }
        in_bytes += r[i].in_bytes;
        out_bytes += r[i].out_bytes;
        pixels += r[i].pixels;
        /* With OUT '-' the image is standard output: the line goes to stderr. */
        if (!o->quiet && (n == 1 || !tty)) fprintf(cli_report_stream(r[i].out), "%s\n", r[i].line);
        if (!o->quiet && r[i].note[0])
            fprintf(stderr, "wcodec: note: %s: %s\n", r[i].out, r[i].note);
    }
    if (who && !o->quiet) {
        printf("%s %zu of %zu file(s), %zu failed, %.2f s with %s: %.2f MB -> %.2f MB",
               decode ? "decoded" : "encoded", n - failed, n, failed, wall, who, in_bytes * 1e-6,
               out_bytes * 1e-6);
        if (!decode && pixels) printf(", %.4f bpp", out_bytes * 8.0 / pixels);
        printf("\n");
    }
    return rc;
}

int cli_batch_run(const cli_batch_opts *o, int decode, char **args, int nargs, const char *out)
{
    int ranks = 1, rank = 0;
    if (cli_mpi_launched(&ranks, &rank)) {
        if (!out) return cli_mpi_batch(o, decode, args, nargs);
        if (rank > 0) return CLI_OK; /* one file: rank 0 codes it, once */
        fprintf(stderr, "wcodec: note: under mpirun one IN OUT file is coded by rank 0 alone; "
                        "--out-dir DIR shares many files among the ranks\n");
    }
    char **in = args;
    size_t n = 1;
    int rc = CLI_OK;
    if (out) { /* one file, as named */
        struct stat st;
        if (stat(args[0], &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "wcodec: %s is a folder: give --out-dir DIR to %s the files in it\n",
                    args[0], decode ? "decode" : "encode");
            return CLI_BAD;
        }
    } else if ((rc = cli_batch_inputs(o, decode, args, nargs, &in, &n)) != CLI_OK) {
        return rc;
    }
    file_result *r = calloc(n, sizeof *r);
    if (!r)
        rc = CLI_BAD;
    else if (out)
        snprintf(r[0].out, sizeof r[0].out, "%s", out);
    else
        rc = cli_batch_outputs(o, decode, in, n, r);
    const int workers = n == 1 ? 1 : cli_pool_threads(o->p.threads, n);
    double t0 = cli_now();
    if (rc == CLI_OK) rc = cli_batch_code(o, decode, in, NULL, n, r, workers, 1);
    double wall = cli_now() - t0;
    if (rc == CLI_OK) {
        char who[96];
        int devices[CLI_MAX_DEVICES];
        const int nd = cli_batch_devices(o, devices);
        if (nd > 0)
            snprintf(who, sizeof who, "%d worker(s) on %d GPU(s)", workers, nd);
        else
            snprintf(who, sizeof who, "%d worker(s)", workers);
        rc = cli_batch_report(o, decode, r, n, wall, n > 1 ? who : NULL);
    }
    free(r);
    if (!out) cli_list_free(in, n);
    return rc;
}
