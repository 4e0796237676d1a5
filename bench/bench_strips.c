/*
 * bench_strips.c -- the CUDA backend's encode of an image over its
 * device-memory cap (in strips, cuda/strip_encode.cu) beside the same
 * encode uncapped, on the photograph of big_image.h made in memory
 * (make_big_image's pixels, without the file): median seconds of each
 * (the wc_encode call only), their files' sizes, whether the capped
 * file is the uncapped one's byte for byte and, with --cpu, the CPU
 * backend's (one run; slow for a big image). The strip path's note says
 * how many strips and how much device memory it used. Then the file is
 * decoded the same way (cuda/strip_decode.cu): uncapped, then under the
 * cap, into one buffer (wc_decode_into), each compared with the image
 * (the file is lossless) and, with --cpu, the CPU backend's decode timed
 * beside them (one run).
 *
 *   bench_strips KODAK_DIR W H 1|3 8|16 CAP_BYTES [RUNS] [--cpu]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_photo.h"
#include "big_image.h"

/* Encodes img `runs` times; the median seconds, the last file kept. */
static int timed(wc_ctx *ctx, const wc_params *p, const wc_image *img, int runs, const char *what,
                 void **file, size_t *size, double *median)
{
    double t[32] = {0};
    for (int r = 0; r < runs; r++) {
        wc_free(*file);
        *file = NULL;
        const double t0 = bench_now();
        const wc_status s = wc_encode_alloc(ctx, p, img, file, size);
        t[r] = bench_now() - t0;
        if (s != WC_OK) {
            fprintf(stderr, "bench_strips: %s: %s\n", what, wc_ctx_error(ctx));
            return 1;
        }
    }
    qsort(t, (size_t)runs, sizeof *t, bench_cmp_double);
    *median = t[runs / 2];
    printf("%-22s median %8.3f s  (min %.3f, max %.3f, %d runs)  %zu bytes\n  %s\n", what, *median,
           t[0], t[runs - 1], runs, *size, wc_ctx_note(ctx));
    return 0;
}

/* Decodes the file `runs` times into out; the median seconds; 1 when a
 * decode fails or its pixels are not the image's. */
static int timed_decode(wc_ctx *ctx, const wc_params *p, const void *file, size_t size,
                        const wc_image *img, wc_image *out, int runs, const char *what,
                        double *median)
{
    double t[32] = {0};
    for (int r = 0; r < runs; r++) {
        memset(out->pixels, 0, wc_image_row_bytes(out) * out->height);
        const double t0 = bench_now();
        const wc_status s = wc_decode_into(ctx, p, file, size, out);
        t[r] = bench_now() - t0;
        if (s != WC_OK) {
            fprintf(stderr, "bench_strips: %s: %s\n", what, wc_ctx_error(ctx));
            return 1;
        }
    }
    qsort(t, (size_t)runs, sizeof *t, bench_cmp_double);
    *median = t[runs / 2];
    const int same = !memcmp(out->pixels, img->pixels, wc_image_row_bytes(img) * img->height);
    printf("%-22s median %8.3f s  (min %.3f, max %.3f, %d runs)  pixels %s\n  %s\n", what, *median,
           t[0], t[runs - 1], runs, same ? "= the image" : "DIFFER", wc_ctx_note(ctx));
    return !same;
}

/* Rows y = t, t + n, ... of the image (a thread each t: a 6 GiB image is
 * made in seconds, not the minute one thread takes). */
typedef struct maker {
    const wc_image *img, *base;
    unsigned long t, n;
} maker;

static void *make_rows(void *arg)
{
    const maker *m = arg;
    const wc_image *img = m->img;
    const int nc = (int)img->components;
    uint8_t *row8 = malloc((size_t)img->width * img->components);
    if (!row8) return (void *)1;
    for (unsigned long y = m->t; y < img->height; y += m->n) {
        uint8_t *dst = (uint8_t *)img->pixels + y * wc_image_row_bytes(img);
        big_image_row(m->base->pixels, BIG_BASE, img->width, y, nc,
                      img->bit_depth == 8 ? dst : row8,
                      img->bit_depth == 16 ? (uint16_t *)dst : NULL);
    }
    free(row8);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: bench_strips KODAK_DIR W H 1|3 8|16 CAP_BYTES [RUNS] [--cpu]\n");
        return 2;
    }
    const unsigned long w = strtoul(argv[2], NULL, 10), h = strtoul(argv[3], NULL, 10);
    const int nc = atoi(argv[4]), depth = atoi(argv[5]);
    const uint64_t cap = strtoull(argv[6], NULL, 10);
    int runs = argc > 7 && argv[7][0] != '-' ? atoi(argv[7]) : 3;
    const int cpu = !strcmp(argv[argc - 1], "--cpu");
    if (runs < 1 || runs > 32) runs = 3;
    if (!w || !h || (nc != 1 && nc != 3) || (depth != 8 && depth != 16) || !cap) {
        fprintf(stderr, "bench_strips: bad arguments\n");
        return 2;
    }
    wc_image base, img = {(uint32_t)w, (uint32_t)h, (uint32_t)nc, (uint32_t)depth, 0, NULL};
    if (bench_photo("bench_strips", argv[1], BIG_BASE, &base)) return 1;
    if (wc_image_alloc(&img) != WC_OK) {
        fprintf(stderr, "bench_strips: out of memory for the image\n");
        return 1;
    }
    const double t0 = bench_now();
    enum { NT = 16 };
    pthread_t th[NT];
    maker mk[NT];
    int made = 0;
    for (int t = 0; t < NT; t++, made++) {
        mk[t] = (maker){&img, &base, (unsigned long)t, NT};
        if (pthread_create(&th[t], NULL, make_rows, &mk[t]) != 0) break;
    }
    int failed = made != NT;
    for (int t = 0; t < made; t++) {
        void *r = NULL;
        pthread_join(th[t], &r);
        failed |= r != NULL;
    }
    if (failed) {
        fprintf(stderr, "bench_strips: could not make the image\n");
        return 1;
    }
    wc_image_free(&base);
    printf("bench_strips: %lux%lu, %d components, %d-bit lossless 5/3 (%.2f GiB of samples, made "
           "in %.1f s); device-memory cap %llu bytes\n",
           w, h, nc, depth, (double)wc_image_row_bytes(&img) * h / (1u << 30), bench_now() - t0,
           (unsigned long long)cap);
    wc_ctx *ctx = wc_ctx_create();
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CUDA;
    p.levels = 5;
    p.max_memory = 0;
    void *fu = NULL, *fc = NULL, *fcpu = NULL;
    size_t nu = 0, ncap = 0, ncpu = 0;
    double mu = 0, mc = 0, mcpu = 0;
    int bad = timed(ctx, &p, &img, runs, "cuda, uncapped", &fu, &nu, &mu);
    p.max_device_memory = cap;
    if (!bad) bad = timed(ctx, &p, &img, runs, "cuda, capped", &fc, &ncap, &mc);
    if (!bad)
        printf("capped / uncapped: %.2fx the time; files %s\n", mc / mu,
               nu == ncap && !memcmp(fu, fc, nu) ? "identical" : "DIFFER");
    bad = bad || nu != ncap || memcmp(fu, fc, nu);
    if (!bad && cpu) {
        p.backend = WC_BACKEND_CPU;
        p.max_device_memory = 0;
        bad = timed(ctx, &p, &img, 1, "cpu", &fcpu, &ncpu, &mcpu);
        if (!bad)
            printf("cpu file: %s\n",
                   ncpu == ncap && !memcmp(fcpu, fc, ncpu) ? "identical" : "DIFFERS");
        bad = bad || ncpu != ncap || memcmp(fcpu, fc, ncpu);
    }
    /* The decode: the uncapped file, uncapped and capped (and on the CPU). */
    wc_image dec = {img.width, img.height, img.components, img.bit_depth, 0, NULL};
    if (!bad && wc_image_alloc(&dec) != WC_OK) {
        fprintf(stderr, "bench_strips: out of memory for the decoded image\n");
        bad = 1;
    }
    if (!bad) {
        double du = 0, dc = 0, dcpu = 0;
        p.backend = WC_BACKEND_CUDA;
        p.max_device_memory = 0;
        bad = timed_decode(ctx, &p, fu, nu, &img, &dec, runs, "decode cuda, uncapped", &du);
        p.max_device_memory = cap;
        if (!bad) bad = timed_decode(ctx, &p, fu, nu, &img, &dec, runs, "decode cuda, capped", &dc);
        if (!bad) printf("decode capped / uncapped: %.2fx the time\n", dc / du);
        if (!bad && cpu) {
            p.backend = WC_BACKEND_CPU;
            p.max_device_memory = 0;
            bad = timed_decode(ctx, &p, fu, nu, &img, &dec, 1, "decode cpu", &dcpu);
        }
    }
    wc_image_free(&dec);
    wc_free(fu);
    wc_free(fc);
    wc_free(fcpu);
    wc_ctx_free(ctx);
    wc_image_free(&img);
    return bad;
}
