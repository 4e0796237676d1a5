/*
 * montage.c -- the same region cut from several images, enlarged and set
 * side by side, to look at coding artefacts (the README's crops).
 *
 *   montage OUT.png X Y W H SCALE IN1 IN2 ...
 *
 * Inputs must be 8-bit images of one layout (PNG/PGM/PPM or .wcx files,
 * which are decoded); a 4-pixel white gap separates them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"
#include "wcodec.h"

static int load(wc_ctx *ctx, const char *path, wc_image *img)
{
    void *data = NULL;
    size_t size = 0;
    wc_err err = {{0}};
    wc_status s = file_read(path, 0, &data, &size, &err);
    if (s == WC_OK && size >= 8 && memcmp(data, "\x89WCX", 4) == 0) {
        s = wc_decode(ctx, NULL, data, size, img);
        if (s != WC_OK) wc_fail(&err, s, "%s: %s", path, wc_ctx_error(ctx));
    } else if (s == WC_OK) {
        s = image_read(path, 0, img, &err);
    }
    free(data);
    if (s != WC_OK) fprintf(stderr, "montage: %s\n", err.msg);
    return s != WC_OK;
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: montage OUT.png X Y W H SCALE IN1 [IN2 ...]\n");
        return 1;
    }
    const uint32_t x0 = (uint32_t)atoi(argv[2]), y0 = (uint32_t)atoi(argv[3]);
    const uint32_t w = (uint32_t)atoi(argv[4]), h = (uint32_t)atoi(argv[5]);
    const uint32_t k = (uint32_t)atoi(argv[6]), n = (uint32_t)(argc - 7), gap = 4;
    if (w == 0 || h == 0 || k == 0 || k > 16) {
        fprintf(stderr, "montage: bad region or scale\n");
        return 1;
    }
    wc_ctx *ctx = wc_ctx_create();
    wc_image out = {0};
    for (uint32_t i = 0; i < n; i++) {
        wc_image in;
        if (load(ctx, argv[7 + i], &in)) return 1;
        if (in.bit_depth != 8 || x0 + w > in.width || y0 + h > in.height) {
            fprintf(stderr, "montage: %s: not 8-bit, or the region is outside it\n", argv[7 + i]);
            return 1;
        }
        if (!out.pixels) {
            out = (wc_image){n * w * k + (n - 1) * gap, h * k, in.components, 8, 0, NULL};
            if (wc_image_alloc(&out) != WC_OK) return 1;
            memset(out.pixels, 255, out.stride * out.height);
        }
        if (in.components != out.components) {
            fprintf(stderr, "montage: %s: a different channel count\n", argv[7 + i]);
            return 1;
        }
        const uint32_t nc = in.components;
        for (uint32_t y = 0; y < h * k; y++)
            for (uint32_t x = 0; x < w * k; x++) {
                const uint8_t *src = (const uint8_t *)in.pixels + (size_t)(y0 + y / k) * in.stride +
                                     (size_t)(x0 + x / k) * nc;
                uint8_t *dst = (uint8_t *)out.pixels + (size_t)y * out.stride +
                               (size_t)(i * (w * k + gap) + x) * nc;
                memcpy(dst, src, nc);
            }
        wc_image_free(&in);
    }
    wc_err err = {{0}};
    int rc = image_write(argv[1], &out, &err) != WC_OK;
    if (rc) fprintf(stderr, "montage: %s\n", err.msg);
    wc_image_free(&out);
    wc_ctx_free(ctx);
    return rc;
}
