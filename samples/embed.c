/*
 * embed.c -- wcodec as a library: make an image in memory, compress it
 * losslessly and at a target rate, decompress, and check what came back.
 *
 *   cc embed.c $(pkg-config --cflags --libs wcodec) -o embed
 *   ./embed [OUT.wcx]
 *
 * Exits 0 when the lossless round trip is exact and the lossy one is
 * within its rate; the test suite builds and runs it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wcodec.h"

/* PSNR of b against a, two 8-bit images of the same size and layout. */
static double psnr8(const wc_image *a, const wc_image *b)
{
    size_t n = (size_t)a->width * a->height * a->components;
    const uint8_t *x = a->pixels, *y = b->pixels;
    double se = 0;
    for (size_t i = 0; i < n; i++) se += (double)(x[i] - y[i]) * (x[i] - y[i]);
    return se > 0 ? 10.0 * log10(255.0 * 255.0 * (double)n / se) : INFINITY;
}

/* Writes size bytes to path; 0 on success. */
static int save(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int bad = fwrite(data, 1, size, f) != size;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    /* A 256x192 RGB gradient with a ripple, 8 bits per sample. */
    wc_image img = {256, 192, 3, 8, 0, NULL};
    if (wc_image_alloc(&img) != WC_OK) return 1;
    uint8_t *px = img.pixels;
    for (uint32_t y = 0; y < img.height; y++)
        for (uint32_t x = 0; x < img.width; x++) {
            uint8_t *p = px + ((size_t)y * img.width + x) * 3;
            p[0] = (uint8_t)x;
            p[1] = (uint8_t)(128 + 100 * sin(x * 0.05) * cos(y * 0.07));
            p[2] = (uint8_t)y;
        }

    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return 1;
    printf("wcodec %s\n", wc_version_string());

    /* Lossless (the default): into a caller-sized buffer. */
    wc_params p;
    wc_params_init(&p);
    size_t cap = wc_encode_bound(&img, &p), size = 0;
    void *buf = malloc(cap);
    wc_status s = buf ? wc_encode(ctx, &p, &img, buf, cap, &size) : WC_ERR_NOMEM;
    if (s != WC_OK) {
        fprintf(stderr, "encode: %s\n", wc_ctx_error(ctx));
        return 1;
    }
    wc_image back;
    if ((s = wc_decode(ctx, NULL, buf, size, &back)) != WC_OK) {
        fprintf(stderr, "decode: %s\n", wc_ctx_error(ctx));
        return 1;
    }
    int exact = memcmp(back.pixels, img.pixels, (size_t)img.width * img.height * 3) == 0;
    printf("lossless: %zu bytes (%.3f bpp), exact: %s, backend %s\n", size,
           size * 8.0 / (img.width * img.height), exact ? "yes" : "NO", wc_ctx_backend(ctx));
    if (argc > 1 && save(argv[1], buf, size) != 0) {
        perror(argv[1]);
        return 2;
    }
    wc_image_free(&back);
    free(buf);

    /* Lossy at 0.5 bits per pixel: the library allocates the output. */
    wc_params_init(&p);
    p.lossless = 0;
    p.bpp = 0.5f;
    void *lossy = NULL;
    if (wc_encode_alloc(ctx, &p, &img, &lossy, &size) != WC_OK ||
        wc_decode(ctx, NULL, lossy, size, &back) != WC_OK) {
        fprintf(stderr, "lossy: %s\n", wc_ctx_error(ctx));
        return 1;
    }
    double psnr = psnr8(&img, &back);
    double bpp = size * 8.0 / (img.width * img.height);
    printf("lossy: %zu bytes (%.3f bpp), PSNR %.2f dB\n", size, bpp, psnr);

    /* Damage is reported, never decoded silently. */
    ((uint8_t *)lossy)[size / 2] ^= 0x10;
    wc_image bad;
    s = wc_decode(ctx, NULL, lossy, size, &bad);
    printf("damaged file: %s (%s)\n", wc_strerror(s), wc_ctx_error(ctx));

    int ok = exact && bpp <= 0.5 && psnr > 30.0 && s != WC_OK;
    wc_free(lossy);
    wc_image_free(&back);
    wc_image_free(&img);
    wc_ctx_free(ctx);
    return ok ? 0 : 1;
}
