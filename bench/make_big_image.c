/*
 * make_big_image.c -- a photograph-like PGM/PPM of any size, written a row
 * at a time (the encode memory benchmark's input, bench/encode_memory.sh):
 * a 4096x4096 tiling of the Kodak photographs (bench_photo.c), mirrored
 * at its edges to cover W x H, gray as the luminance. Only the 4096^2 base
 * is held, whatever the output's size.
 *
 *   make_big_image KODAK_DIR W H 1|3 OUT.pgm|OUT.ppm
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_photo.h"

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: make_big_image KODAK_DIR W H 1|3 OUT\n");
        return 2;
    }
    const unsigned long w = strtoul(argv[2], NULL, 10), h = strtoul(argv[3], NULL, 10);
    const int nc = atoi(argv[4]);
    if (w == 0 || h == 0 || w > (1ul << 24) || h > (1ul << 24) || (nc != 1 && nc != 3)) {
        fprintf(stderr, "make_big_image: bad size or component count\n");
        return 2;
    }
    const uint32_t side = 4096;
    wc_image base;
    if (bench_photo("make_big_image", argv[1], side, &base)) return 1;
    FILE *fp = fopen(argv[5], "wb");
    unsigned char *row = malloc(w * (size_t)nc);
    if (!fp || !row) {
        fprintf(stderr, "make_big_image: cannot write %s\n", argv[5]);
        return 1;
    }
    fprintf(fp, "P%c\n%lu %lu\n255\n", nc == 1 ? '5' : '6', w, h);
    const unsigned char *px = base.pixels;
    for (unsigned long y = 0; y < h; y++) {
        const unsigned long ty = (y / side) & 1 ? side - 1 - y % side : y % side;
        for (unsigned long x = 0; x < w; x++) {
            const unsigned long tx = (x / side) & 1 ? side - 1 - x % side : x % side;
            const unsigned char *p = px + ((size_t)ty * side + tx) * 3;
            if (nc == 3) {
                row[3 * x] = p[0];
                row[3 * x + 1] = p[1];
                row[3 * x + 2] = p[2];
            } else {
                row[x] = (unsigned char)((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
            }
        }
        if (fwrite(row, (size_t)nc, w, fp) != w) {
            fprintf(stderr, "make_big_image: write failed\n");
            return 1;
        }
    }
    free(row);
    wc_image_free(&base);
    return fclose(fp) != 0;
}
