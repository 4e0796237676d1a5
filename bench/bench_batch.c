/*
 * bench_batch.c -- the host cost per image of a batch of small images
 * (issue 13: 960 Kodak images decoded host to host): wc_encode_batch and
 * wc_decode_batch over the Kodak photographs repeated, lossless by
 * default, on the backend asked (CPU by default, so it runs anywhere).
 * Prints images per second, the median of several runs. Not a test: speed
 * is measured, never asserted; exit 1 when a call fails or a decoded
 * image differs from its input.
 *
 * usage: bench_batch KODAK_DIR [--repeat N] [--threads N] [--runs N]
 *                    [--quality Q] [--cuda] [--only enc|dec]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "image_io.h"
#include "wcodec.h"

static int fail(wc_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_batch: %s: %s\n", what, wc_ctx_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_batch KODAK_DIR [--repeat N] [--threads N] [--runs N] "
                        "[--quality Q] [--cuda] [--only enc|dec]\n");
        return 2;
    }
    const char *dir = argv[1];
    int repeat = 10, threads = 1, runs = 5, cuda = 0;
    float quality = 0;
    const char *only = "";
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quality") && i + 1 < argc)
            quality = (float)atof(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--cuda"))
            cuda = 1;
        else {
            fprintf(stderr, "bench_batch: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (repeat < 1 || runs < 1 || runs > 99 || threads < 0) return 2;
    enum { KODAK = 24 };
    size_t n = (size_t)KODAK * (size_t)repeat;
    wc_image *img = calloc(n, sizeof *img);
    void **files = calloc(n, sizeof *files);
    size_t *sizes = calloc(n, sizeof *sizes);
    wc_image *dec = calloc(n, sizeof *dec);
    if (!img || !files || !sizes || !dec) return 1;
    for (int k = 0; k < KODAK; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/kodim%02d.png", dir, k + 1);
        wc_err err;
        if (png_read_file(path, 0, &img[k], &err) != WC_OK) {
            fprintf(stderr, "bench_batch: %s: cannot read\n", path);
            return 1;
        }
    }
    for (size_t i = KODAK; i < n; i++) img[i] = img[i % KODAK];
    wc_params p;
    wc_params_init(&p);
    p.threads = threads;
    p.backend = cuda ? WC_BACKEND_CUDA : WC_BACKEND_CPU;
    if (quality > 0) {
        p.lossless = 0;
        p.quality = quality;
    }
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return 1;
    double enc[99] = {0}, decs[99] = {0};
    size_t bytes = 0;
    for (int r = 0; r < runs; r++) {
        for (size_t i = 0; i < n; i++) wc_free(files[i]);
        double t0 = bench_now();
        if (wc_encode_batch(ctx, &p, img, n, files, sizes, NULL) != WC_OK)
            return fail(ctx, "encode");
        enc[r] = (double)n / (bench_now() - t0);
        if (!strcmp(only, "enc")) continue;
        for (size_t i = 0; i < n; i++) wc_image_free(&dec[i]);
        t0 = bench_now();
        if (wc_decode_batch(ctx, &p, (const void *const *)files, sizes, n, dec, NULL) != WC_OK)
            return fail(ctx, "decode");
        decs[r] = (double)n / (bench_now() - t0);
        if (r == 0 && quality == 0) {
            for (size_t i = 0; i < n; i++) {
                size_t row = wc_image_row_bytes(&img[i]);
                for (uint32_t y = 0; y < img[i].height; y++)
                    if (memcmp((const uint8_t *)img[i].pixels + (size_t)y * img[i].stride,
                               (const uint8_t *)dec[i].pixels + (size_t)y * dec[i].stride, row)) {
                        fprintf(stderr, "bench_batch: image %zu differs\n", i);
                        return 1;
                    }
            }
        }
    }
    for (size_t i = 0; i < n; i++) bytes += sizes[i];
    qsort(enc, (size_t)runs, sizeof *enc, bench_cmp_double);
    qsort(decs, (size_t)runs, sizeof *decs, bench_cmp_double);
    printf("%zu images (%s, %d thread%s, %zu bytes): encode %.1f img/s", n,
           quality > 0 ? "lossy" : "lossless", threads, threads == 1 ? "" : "s", bytes,
           enc[runs / 2]);
    if (strcmp(only, "enc")) printf(", decode %.1f img/s", decs[runs / 2]);
    printf(" (median of %d)\n", runs);
    return 0;
}
