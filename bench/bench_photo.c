/* bench_photo.c -- the benchmarks' large photograph (bench_photo.h). */
#include <stdio.h>
#include <string.h>

#include "bench_photo.h"
#include "image_io.h"

int bench_photo_rect(const char *who, const char *dir, uint32_t width, uint32_t height,
                     wc_image *out)
{
    wc_image tiles[24];
    int n = 0;
    for (int i = 1; i <= 24; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/kodim%02d.png", dir, i);
        if (image_read(path, 0, &tiles[n], NULL) == WC_OK && tiles[n].components == 3 &&
            tiles[n].bit_depth == 8)
            n++;
    }
    if (n == 0) {
        fprintf(stderr, "%s: no Kodak images in %s\n", who, dir);
        return 1;
    }
    *out = (wc_image){width, height, 3, 8, 0, NULL};
    if (wc_image_alloc(out) != WC_OK) return 1;
    uint8_t *px = out->pixels;
    const uint32_t tw = 512, th = 512; /* every Kodak image has a 512x512 corner */
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            uint32_t tx = x / tw, ty = y / th, t = (ty * (width / tw + 1) + tx) % (uint32_t)n;
            uint32_t u = x % tw, v = y % th;
            if (tx & 1) u = tw - 1 - u;
            if (ty & 1) v = th - 1 - v;
            const uint8_t *src =
                (const uint8_t *)tiles[t].pixels + (size_t)v * tiles[t].stride + u * 3;
            memcpy(px + ((size_t)y * width + x) * 3, src, 3);
        }
    for (int i = 0; i < n; i++) wc_image_free(&tiles[i]);
    return 0;
}

int bench_photo(const char *who, const char *dir, uint32_t side, wc_image *out)
{
    return bench_photo_rect(who, dir, side, side, out);
}
