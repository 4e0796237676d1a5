/*
 * bench_devices.c -- a batch of images encoded in memory on one CUDA
 * device, then on several: images per second, the ratio, and whether every
 * file came out the same (issue 18: 960 Kodak images, 24 x 40, on two
 * H200s at >= 1.9x one). Not a test: speed is measured, never asserted;
 * the exit status is 1 when files differ or an encode fails.
 *
 * Workers (one wc_ctx each, so their own streams and buffers) take the
 * devices of a run in turn and pull images from one queue, as the
 * command's batches do; both runs use the same worker count, so the host
 * is the same and only the GPUs differ. Each run starts after every
 * worker has coded one image untimed (context creation and first-call
 * costs stay out). Files are compared by a 64-bit FNV-1a hash per image:
 * every repeat, on every device, must give the CPU backend's. Each run
 * also says where a worker's time went per image (wc_ctx_times): the
 * backend's (the GPU's transform and the PCIe copies) or the host's
 * entropy coding; only the first grows with the devices.
 *
 * usage: bench_devices KODAK_DIR [--repeat N] [--threads N] [--devices all|I,J,..]
 *                      [--runs N] [--quality Q] [--transform dwt|dct]
 * Defaults: 40 repeats, a worker per core, all devices, 3 runs (the
 * median is printed), lossless. With no CUDA device it codes on the CPU
 * (one "device") and says so.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "image_io.h"
#include "wcodec.h"

#define MAX_WORKERS 256
#define MAX_DEVICES 64
#define WORKER_STAGES 3 /* wc_times: transform (backend, PCIe included), entropy, container */

typedef struct run {
    const wc_image *img;
    size_t nimg, jobs;
    const wc_params *p;
    const int *devices;
    int ndevices, workers;
    atomic_size_t next;
    atomic_int failed;
    pthread_barrier_t start;
    uint64_t *hash; /* per job */
    double t0;
    double stage[WORKER_STAGES][MAX_WORKERS]; /* seconds per stage, per worker */
} run;

typedef struct worker {
    run *r;
    int index;
} worker;

/* FNV-1a over 64-bit words (then the tail bytes): a byte at a time it
 * took ~0.6 ms of a worker's time per lossless Kodak file, a tenth of the
 * host's work per image in a batch; the files are only compared with each
 * other, so any fixed hash does. */
static uint64_t fnv1a(const void *data, size_t n)
{
    const unsigned char *b = data;
    uint64_t h = 1469598103934665603ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    for (; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int encode(wc_ctx *ctx, const wc_params *p, const wc_image *img, uint64_t *hash)
{
    void *buf = NULL;
    size_t n = 0;
    wc_status s = wc_encode_alloc(ctx, p, img, &buf, &n);
    if (s != WC_OK) {
        fprintf(stderr, "bench_devices: encode: %s\n", wc_ctx_error(ctx));
        return 1;
    }
    *hash = fnv1a(buf, n);
    free(buf);
    return 0;
}

static void *work(void *arg)
{
    worker *w = arg;
    run *r = w->r;
    wc_ctx *ctx = wc_ctx_create();
    wc_params p = *r->p;
    p.threads = 1;
    p.device = r->ndevices ? r->devices[w->index % r->ndevices] : -1;
    uint64_t warm = 0;
    if (!ctx || encode(ctx, &p, &r->img[w->index % r->nimg], &warm))
        atomic_fetch_add(&r->failed, 1);
    pthread_barrier_wait(&r->start);
    if (w->index == 0) r->t0 = bench_now();
    pthread_barrier_wait(&r->start);
    for (;;) {
        size_t j = atomic_fetch_add(&r->next, 1);
        if (j >= r->jobs) break;
        if (ctx && encode(ctx, &p, &r->img[j % r->nimg], &r->hash[j]))
            atomic_fetch_add(&r->failed, 1);
        wc_times t;
        wc_ctx_times(ctx, &t);
        r->stage[0][w->index] += t.transform;
        r->stage[1][w->index] += t.entropy;
        r->stage[2][w->index] += t.container;
    }
    wc_ctx_free(ctx);
    return NULL;
}

/* One timed pass over every job; returns images per second (0 on failure). */
static double one_run(run *r)
{
    pthread_t tid[MAX_WORKERS];
    worker w[MAX_WORKERS];
    atomic_init(&r->next, 0);
    atomic_init(&r->failed, 0);
    memset(r->stage, 0, sizeof r->stage);
    pthread_barrier_init(&r->start, NULL, (unsigned)r->workers);
    int started = 0;
    for (int i = 0; i < r->workers; i++) {
        w[i] = (worker){r, i};
        if (pthread_create(&tid[i], NULL, work, &w[i]) != 0) break;
        started++;
    }
    if (started < r->workers) {
        fprintf(stderr, "bench_devices: could not start %d threads\n", r->workers);
        exit(1);
    }
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    double t = bench_now() - r->t0;
    pthread_barrier_destroy(&r->start);
    return atomic_load(&r->failed) ? 0 : (double)r->jobs / t;
}

/* The median of `runs` passes; checks every job's hash against ref[image]
 * (filled from the first job of each image when *have_ref is 0). */
static double measure(run *r, int runs, uint64_t *ref, int *have_ref, int *same)
{
    double rate[16] = {0};
    for (int k = 0; k < runs; k++) {
        rate[k] = one_run(r);
        if (rate[k] == 0) return 0;
        for (size_t j = 0; j < r->jobs; j++) {
            const size_t i = j % r->nimg;
            if (!*have_ref && j < r->nimg) ref[i] = r->hash[j];
            if (r->hash[j] != ref[i]) *same = 0;
        }
        *have_ref = 1;
    }
    qsort(rate, (size_t)runs, sizeof rate[0], bench_cmp_double);
    return rate[runs / 2];
}

/* Where a worker's time went in the last run, per image: which side (the
 * GPU's transform and PCIe, or the host's entropy coding) limits it. */
static void print_stages(const run *r)
{
    double sum[WORKER_STAGES] = {0};
    for (int k = 0; k < WORKER_STAGES; k++)
        for (int i = 0; i < r->workers; i++) sum[k] += r->stage[k][i];
    printf("    per image: backend (transform, PCIe) %.2f ms, entropy %.2f ms, container %.2f ms\n",
           sum[0] / r->jobs * 1e3, sum[1] / r->jobs * 1e3, sum[2] / r->jobs * 1e3);
}

static int parse_devices(const char *v, int count, int *dev)
{
    int n = 0;
    if (!strcmp(v, "all")) {
        for (int d = 0; d < count && d < MAX_DEVICES; d++) dev[n++] = d;
        return n;
    }
    for (const char *s = v; *s && n < MAX_DEVICES;) {
        char *end;
        long d = strtol(s, &end, 10);
        if (end == s || d < 0 || d >= count) return -1;
        dev[n++] = (int)d;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_devices KODAK_DIR [--repeat N] [--threads N] "
                        "[--devices all|I,J,..] [--runs N] [--quality Q] [--transform dwt|dct]\n");
        return 2;
    }
    int repeat = 40, threads = 0, runs = 3;
    const char *devices = "all";
    wc_params p;
    wc_params_init(&p);
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--repeat"))
            repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--devices"))
            devices = argv[i + 1];
        else if (!strcmp(argv[i], "--runs"))
            runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--quality")) {
            p.lossless = 0;
            p.quality = (float)atof(argv[i + 1]);
        } else if (!strcmp(argv[i], "--transform")) {
            p.lossless = 0;
            p.transform = !strcmp(argv[i + 1], "dct") ? WC_TRANSFORM_DCT : WC_TRANSFORM_DWT;
        } else {
            fprintf(stderr, "bench_devices: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (runs < 1 || runs > 16 || repeat < 1) {
        fprintf(stderr, "bench_devices: --runs 1..16, --repeat >= 1\n");
        return 2;
    }
    if (threads <= 0) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads > MAX_WORKERS) threads = MAX_WORKERS;

    wc_image img[24];
    size_t nimg = 0;
    wc_ctx *ctx = wc_ctx_create();
    for (int i = 1; i <= 24; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/kodim%02d.png", argv[1], i);
        if (image_read(path, 0, &img[nimg], NULL) == WC_OK) nimg++;
    }
    wc_ctx_free(ctx);
    if (nimg == 0) {
        fprintf(stderr, "bench_devices: no kodimNN.png in %s\n", argv[1]);
        return 2;
    }
    const int count = wc_device_count();
    int all[MAX_DEVICES];
    int nall = count ? parse_devices(devices, count, all) : 0;
    if (nall < 0) {
        fprintf(stderr, "bench_devices: --devices %s: the devices here are 0..%d\n", devices,
                count - 1);
        return 2;
    }
    p.backend = count ? WC_BACKEND_CUDA : WC_BACKEND_CPU;
    const size_t jobs = nimg * (size_t)repeat;
    uint64_t *hash = calloc(jobs, sizeof *hash), ref[24];
    if (!hash) return 1;
    printf("%zu images (%zu x %d), %d workers, %s, %s; median of %d runs\n", jobs, nimg, repeat,
           threads, p.lossless ? "lossless" : "lossy",
           count ? "CUDA backend" : "CPU backend (no CUDA device)", runs);

    /* The reference: the CPU backend's files (the GPU must give the same). */
    int have_ref = 0, same = 1;
    if (count) {
        wc_params cpu = p;
        cpu.backend = WC_BACKEND_CPU;
        wc_ctx *c = wc_ctx_create();
        for (size_t i = 0; c && i < nimg; i++)
            if (encode(c, &cpu, &img[i], &ref[i])) return 1;
        wc_ctx_free(c);
        have_ref = c != NULL;
    }
    run r1 = {.img = img,
              .nimg = nimg,
              .jobs = jobs,
              .p = &p,
              .devices = all,
              .ndevices = nall ? 1 : 0,
              .workers = threads,
              .hash = hash};
    const double one = measure(&r1, runs, ref, &have_ref, &same);
    printf("1 device  (%d):   %8.1f images/s\n", nall ? all[0] : -1, one);
    print_stages(&r1);
    double many = one;
    if (nall > 1) {
        run rn = r1;
        rn.ndevices = nall;
        many = measure(&rn, runs, ref, &have_ref, &same);
        printf("%d devices (", nall);
        for (int d = 0; d < nall; d++) printf("%s%d", d ? "," : "", all[d]);
        printf("): %8.1f images/s\n", many);
        print_stages(&rn);
    }
    if (one == 0 || many == 0) {
        printf("FAILED: an encode failed\n");
        return 1;
    }
    printf("ratio %.2fx over %d device(s); files identical across runs and devices%s: %s\n",
           many / one, nall ? nall : 1, count ? " and to the CPU backend's" : "",
           same ? "yes" : "NO");
    for (size_t i = 0; i < nimg; i++) wc_image_free(&img[i]);
    free(hash);
    return same ? 0 : 1;
}
