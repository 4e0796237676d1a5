/*
 * blk8_pad.c -- mirror padding of a plane up to whole 8x8 blocks, so the
 * block transforms (DCT, LOT) only ever see full blocks and the decoder
 * crops the padding away.
 */
#include "dct8.h"

#include <string.h>

/* Source row (pw samples): the w real samples then the mirrored tail. */
void blk8_pad_tail(float *row, uint32_t w, uint32_t pw)
{
    for (uint32_t x = w; x < pw; x++) row[x] = row[blk8_mirror(x, w)];
}

static void blk8_pad_row(const float *src, uint32_t w, float *dst, uint32_t pw)
{
    memcpy(dst, src, (size_t)w * sizeof *dst);
    blk8_pad_tail(dst, w, pw);
}

void blk8_pad(const float *src, uint32_t w, uint32_t h, float *dst, uint32_t pw, uint32_t ph)
{
    if (w == 0 || h == 0) return; /* nothing to mirror from (documented) */
    for (uint32_t y = 0; y < ph; y++)
        blk8_pad_row(src + (size_t)blk8_mirror(y, h) * w, w, dst + (size_t)y * pw, pw);
}
