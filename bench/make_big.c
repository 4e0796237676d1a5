/*
 * make_big.c -- the large images of bench/stream_memory.sh: a width x
 * height photograph made by tiling 512x512 corners of the Kodak images
 * (mirrored at every other tile, as bench_photo.c does), RGB or gray
 * (Rec. 601 luma), written row by row as PPM/PGM so that a 46340 x 46340
 * image costs a few rows of memory, not 2 GiB. With --need it prints what
 * an encode of that shape needs (wc_encode_memory), lossless and lossy.
 *
 *   make_big KODAK_DIR WIDTH HEIGHT 1|3 OUT.pnm
 *   make_big --need WIDTH HEIGHT 1|3
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"

static int need(uint32_t w, uint32_t h, uint32_t comps)
{
    wc_image shape = {w, h, comps, 8, 0, NULL};
    wc_params p;
    wc_params_init(&p);
    printf("encode of %ux%u x%u 8-bit: lossless %.2f GiB", w, h, comps,
           wc_encode_memory(&shape, &p) / 1073741824.0);
    p.lossless = 0;
    p.step = 8;
    printf(", lossy 9/7 %.2f GiB\n", wc_encode_memory(&shape, &p) / 1073741824.0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--need"))
        return need((uint32_t)atol(argv[2]), (uint32_t)atol(argv[3]), (uint32_t)atol(argv[4]));
    if (argc != 6) {
        fprintf(stderr, "usage: make_big KODAK_DIR WIDTH HEIGHT 1|3 OUT.pnm\n"
                        "       make_big --need WIDTH HEIGHT 1|3\n");
        return 2;
    }
    const uint32_t w = (uint32_t)atol(argv[2]), h = (uint32_t)atol(argv[3]),
                   comps = (uint32_t)atol(argv[4]);
    if (!w || !h || (comps != 1 && comps != 3)) {
        fprintf(stderr, "make_big: bad size or components\n");
        return 2;
    }
    wc_image tiles[24];
    int n = 0;
    for (int i = 1; i <= 24; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/kodim%02d.png", argv[1], i);
        if (image_read(path, 0, &tiles[n], NULL) == WC_OK && tiles[n].components == 3 &&
            tiles[n].bit_depth == 8)
            n++;
    }
    if (n == 0) {
        fprintf(stderr, "make_big: no Kodak images in %s\n", argv[1]);
        return 1;
    }
    FILE *fp = fopen(argv[5], "wb");
    uint8_t *row = malloc((size_t)w * comps);
    if (!fp || !row) {
        fprintf(stderr, "make_big: cannot write %s\n", argv[5]);
        return 1;
    }
    fprintf(fp, "P%c\n%u %u\n255\n", comps == 1 ? '5' : '6', w, h);
    const uint32_t tw = 512, th = 512;
    int bad = 0;
    for (uint32_t y = 0; y < h && !bad; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint32_t tx = x / tw, ty = y / th, t = (ty * (w / tw + 1) + tx) % (uint32_t)n;
            uint32_t u = x % tw, v = y % th;
            if (tx & 1) u = tw - 1 - u;
            if (ty & 1) v = th - 1 - v;
            const uint8_t *s =
                (const uint8_t *)tiles[t].pixels + (size_t)v * tiles[t].stride + u * 3;
            if (comps == 3)
                memcpy(row + (size_t)x * 3, s, 3);
            else
                row[x] = (uint8_t)((299 * s[0] + 587 * s[1] + 114 * s[2] + 500) / 1000);
        }
        bad = fwrite(row, 1, (size_t)w * comps, fp) != (size_t)w * comps;
    }
    bad |= fclose(fp) != 0;
    free(row);
    for (int i = 0; i < n; i++) wc_image_free(&tiles[i]);
    if (bad) fprintf(stderr, "make_big: write failed\n");
    return bad;
}
