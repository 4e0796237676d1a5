/*
 * big_image.h -- a row of the photograph-like image of any size that
 * make_big_image writes and bench_strips codes: the 4096^2 tiling of the
 * Kodak photographs (bench_photo), mirrored at its edges to cover W x H,
 * gray as the luminance; 16-bit samples are each 8-bit value times 257
 * plus a smooth ripple of the low byte (a 16-bit scan's fine gradations,
 * not noise), so a lossless coder has real low-order bits to code.
 */
#ifndef WC_BENCH_BIG_IMAGE_H
#define WC_BENCH_BIG_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define BIG_BASE 4096u

/* Row y of a w-wide image of nc (1 or 3) components from the side x side
 * RGB base: 8-bit into row8 (w * nc bytes), and when row16 is not NULL
 * 16-bit into row16 (w * nc values). */
static inline void big_image_row(const uint8_t *base, uint32_t side, unsigned long w,
                                 unsigned long y, int nc, uint8_t *row8, uint16_t *row16)
{
    const unsigned long ty = (y / side) & 1 ? side - 1 - y % side : y % side;
    for (unsigned long x = 0; x < w; x++) {
        const unsigned long tx = (x / side) & 1 ? side - 1 - x % side : x % side;
        const uint8_t *p = base + ((size_t)ty * side + tx) * 3;
        if (nc == 3) {
            row8[3 * x] = p[0];
            row8[3 * x + 1] = p[1];
            row8[3 * x + 2] = p[2];
        } else {
            row8[x] = (uint8_t)((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
        }
    }
    if (!row16) return;
    for (unsigned long i = 0; i < w * (unsigned long)nc; i++) {
        const unsigned long x = i / (unsigned long)nc;
        const unsigned r = (unsigned)((x * 3 + y * 5 + i % (unsigned long)nc * 40) & 255);
        const unsigned v = row8[i] * 257u + (r < 128 ? r : 255 - r) - 64u; /* may wrap */
        row16[i] = (uint16_t)(v > 65535u ? (row8[i] ? 65535u : 0u) : v);
    }
}

#endif
