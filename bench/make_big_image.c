/*
 * make_big_image.c -- a photograph-like PGM/PPM of any size, written a row
 * at a time (the encode memory benchmark's input, bench/encode_memory.sh):
 * a 4096x4096 tiling of the Kodak photographs (bench_photo.c), mirrored
 * at its edges to cover W x H, gray as the luminance. Only the 4096^2 base
 * is held, whatever the output's size. With 16 after OUT the samples are
 * 16-bit (maxval 65535), as big_image.h says.
 *
 *   make_big_image KODAK_DIR W H 1|3 OUT.pgm|OUT.ppm [16]
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_photo.h"
#include "big_image.h"

int main(int argc, char **argv)
{
    if (argc != 6 && !(argc == 7 && atoi(argv[6]) == 16)) {
        fprintf(stderr, "usage: make_big_image KODAK_DIR W H 1|3 OUT [16]\n");
        return 2;
    }
    const int wide = argc == 7; /* 16-bit samples */
    const unsigned long w = strtoul(argv[2], NULL, 10), h = strtoul(argv[3], NULL, 10);
    const int nc = atoi(argv[4]);
    if (w == 0 || h == 0 || w > (1ul << 24) || h > (1ul << 24) || (nc != 1 && nc != 3)) {
        fprintf(stderr, "make_big_image: bad size or component count\n");
        return 2;
    }
    const uint32_t side = BIG_BASE;
    wc_image base;
    if (bench_photo("make_big_image", argv[1], side, &base)) return 1;
    FILE *fp = fopen(argv[5], "wb");
    unsigned char *row = malloc(w * (size_t)nc);
    unsigned char *row16 = wide ? malloc(2 * w * (size_t)nc) : NULL;
    uint16_t *v16 = wide ? malloc(2 * w * (size_t)nc) : NULL;
    if (!fp || !row || (wide && (!row16 || !v16))) {
        fprintf(stderr, "make_big_image: cannot write %s\n", argv[5]);
        return 1;
    }
    fprintf(fp, "P%c\n%lu %lu\n%d\n", nc == 1 ? '5' : '6', w, h, wide ? 65535 : 255);
    const uint8_t *px = base.pixels;
    for (unsigned long y = 0; y < h; y++) {
        big_image_row(px, side, w, y, nc, row, v16);
        if (wide) /* big-endian, as PNM's 16-bit samples are */
            for (unsigned long i = 0; i < w * (unsigned long)nc; i++) {
                row16[2 * i] = (unsigned char)(v16[i] >> 8);
                row16[2 * i + 1] = (unsigned char)(v16[i] & 255);
            }
        if (fwrite(wide ? row16 : row, (size_t)nc * (wide ? 2 : 1), w, fp) != w) {
            fprintf(stderr, "make_big_image: write failed\n");
            return 1;
        }
    }
    free(v16);
    free(row);
    free(row16);
    wc_image_free(&base);
    return fclose(fp) != 0;
}
