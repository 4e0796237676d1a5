/*
 * colour_transform.h -- the per-pixel maths of backend.h's sample
 * preparation and output, written once for the CPU (codec/colour.c) and
 * the CUDA kernels (cuda/dwt_device.cuh, colour_quant_kernels.cu): level
 * shift, the reversible RCT and the irreversible ICT (in this operation
 * order, no FMA contraction on either side), and rounding a reconstructed
 * value back to a sample.
 */
#ifndef WC_COLOUR_TRANSFORM_H
#define WC_COLOUR_TRANSFORM_H

#include <stdint.h>

#include "hostdev.h"

/* Samples of bit depth d are centred on zero: s = sample - 2^(d-1). */
WC_HOSTDEV int32_t level_shift(uint32_t bit_depth) { return (int32_t)1 << (bit_depth - 1); }

/* Wrapping int32 arithmetic (through uint32): damaged files, whose
 * coefficients can be anything, never cause signed overflow; valid data
 * never comes near the limits, so the results equal plain int math. */
WC_HOSTDEV int32_t add_wrap(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
WC_HOSTDEV int32_t sub_wrap(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* ---- RCT (int): Y = (R + 2G + B) >> 2, U = B - G, V = R - G ----------------- */

WC_HOSTDEV int32_t rct_y(int32_t r, int32_t g, int32_t b) { return (r + 2 * g + b) >> 2; }
WC_HOSTDEV int32_t rct_u(int32_t g, int32_t b) { return b - g; }
WC_HOSTDEV int32_t rct_v(int32_t r, int32_t g) { return r - g; }

/* The inverse: G first, then R and B from it. */
WC_HOSTDEV int32_t rct_g(int32_t y, int32_t u, int32_t v)
{
    return sub_wrap(y, add_wrap(u, v) >> 2);
}
WC_HOSTDEV int32_t rct_r(int32_t v, int32_t g) { return add_wrap(v, g); }
WC_HOSTDEV int32_t rct_b(int32_t u, int32_t g) { return add_wrap(u, g); }

/* ---- ICT (float, YCbCr), each sum in this order ---------------------------- */

WC_HOSTDEV float ict_y(float r, float g, float b) { return (0.299f * r + 0.587f * g) + 0.114f * b; }
WC_HOSTDEV float ict_cb(float r, float g, float b)
{
    return (-0.168736f * r + -0.331264f * g) + 0.5f * b;
}
WC_HOSTDEV float ict_cr(float r, float g, float b)
{
    return (0.5f * r + -0.418688f * g) + -0.081312f * b;
}

WC_HOSTDEV float ict_r(float y, float cr) { return y + 1.402f * cr; }
WC_HOSTDEV float ict_g(float y, float cb, float cr)
{
    return (y + -0.344136f * cb) + -0.714136f * cr;
}
WC_HOSTDEV float ict_b(float y, float cb) { return y + 1.772f * cb; }

/* ---- back to samples ---------------------------------------------------- */

/* (int32)floorf(x + 0.5f) clamped to [lo, hi] (the level-shifted range, so
 * integers of at most 2^16); NaN goes to lo. floorf is a library call on
 * CPUs without SSE4.1, three a pixel; inside [lo, hi + 1) truncation and
 * a correction of the negatives give the same floor exactly, and the
 * tests outside it the same clamps. */
WC_HOSTDEV int32_t round_sample(float x, float lo, float hi)
{
    const float t = x + 0.5f;
    if (t >= hi + 1.0f) return (int32_t)hi;
    if (!(t >= lo)) return (int32_t)lo;
    const int32_t i = (int32_t)t;
    return i - ((float)i > t);
}

/* A level-shifted int value to a sample in [0, maxval]: the shift added
 * back with wrapping (hostile coefficients may put v anywhere), then
 * clamped. */
WC_HOSTDEV int32_t unshift_sample(int32_t v, int32_t shift, int32_t maxval)
{
    const int32_t x = add_wrap(v, shift);
    return x < 0 ? 0 : (x > maxval ? maxval : x);
}

#endif /* WC_COLOUR_TRANSFORM_H */
