/*
 * dct8.c -- blocked 8x8 DCT on planes. The arithmetic lives in dct8.h's
 * 1-D kernels; this file only decides which 8 samples each kernel call
 * sees. Work goes one strip of 8 rows at a time: the row kernels over the
 * strip, then the column kernels across the whole strip width, so the
 * column pass is one long loop over contiguous memory that the compiler
 * vectorises (each lane is one column; lanes never mix, so the bits are
 * those of the scalar kernel).
 */
#include "dct8.h"

#include <string.h>

/* Row passes over one strip: its 8 rows are contiguous (row stride = w),
 * so this is one run of 8w samples cut into 8-sample pieces. */
static void dct8_rows_fwd(float *strip, size_t n)
{
    for (size_t x = 0; x < n; x += 8) dct8_fwd8(strip + x, strip + x);
}

static void dct8_rows_inv(float *strip, size_t n)
{
    for (size_t x = 0; x < n; x += 8) dct8_inv8(strip + x, strip + x);
}

/* Column passes over one strip. The 8 rows come as distinct restrict
 * pointers (they never overlap: stride >= w) so the loop over columns is
 * vectorised without run-time alias checks; one column per lane. */
#define DCT8_ROWS_DECL                                                              \
    float *restrict r0, float *restrict r1, float *restrict r2, float *restrict r3, \
        float *restrict r4, float *restrict r5, float *restrict r6, float *restrict r7
#define DCT8_COLS_BODY(kernel)                                                 \
    for (uint32_t x = 0; x < w; x++) {                                         \
        float v[8] = {r0[x], r1[x], r2[x], r3[x], r4[x], r5[x], r6[x], r7[x]}; \
        kernel(v, v);                                                          \
        r0[x] = v[0];                                                          \
        r1[x] = v[1];                                                          \
        r2[x] = v[2];                                                          \
        r3[x] = v[3];                                                          \
        r4[x] = v[4];                                                          \
        r5[x] = v[5];                                                          \
        r6[x] = v[6];                                                          \
        r7[x] = v[7];                                                          \
    }

static void dct8_cols_fwd(DCT8_ROWS_DECL, uint32_t w) { DCT8_COLS_BODY(dct8_fwd8) }

static void dct8_cols_inv(DCT8_ROWS_DECL, uint32_t w) { DCT8_COLS_BODY(dct8_inv8) }

/* One strip of 8 rows of width w: rows then columns forward, columns then
 * rows back. */
static void dct8_strip(float *s, uint32_t w, int inverse)
{
    size_t n = (size_t)w * 8;
    if (inverse) {
        dct8_cols_inv(s, s + w, s + 2 * w, s + 3 * w, s + 4 * w, s + 5 * w, s + 6 * w, s + 7 * w,
                      w);
        dct8_rows_inv(s, n);
    } else {
        dct8_rows_fwd(s, n);
        dct8_cols_fwd(s, s + w, s + 2 * w, s + 3 * w, s + 4 * w, s + 5 * w, s + 6 * w, s + 7 * w,
                      w);
    }
}

static void dct8_plane(float *plane, uint32_t w, uint32_t h, int inverse)
{
    for (uint32_t y = 0; y < h; y += 8) dct8_strip(plane + (size_t)y * w, w, inverse);
}

void dct8_forward(float *plane, uint32_t w, uint32_t h) { dct8_plane(plane, w, h, 0); }

void dct8_inverse(float *plane, uint32_t w, uint32_t h) { dct8_plane(plane, w, h, 1); }

/* A block is an 8x8 plane: same code path, hence the same bits. */
void dct8_forward_block(const float *in, float *out)
{
    if (out != in) memcpy(out, in, 64 * sizeof *out);
    dct8_strip(out, 8, 0);
}

void dct8_inverse_block(const float *in, float *out)
{
    if (out != in) memcpy(out, in, 64 * sizeof *out);
    dct8_strip(out, 8, 1);
}
