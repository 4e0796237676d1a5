/*
 * quant.h -- deadzone scalar quantization and its inverse, per band (DWT) or
 * per frequency of the 8x8 block (DCT/LOT), on the CPU. The arithmetic is
 * the contract in backend.h; the CUDA backend mirrors quant_value and
 * dequant_value exactly.
 */
#ifndef WC_QUANT_H
#define WC_QUANT_H

#include <math.h>

#include "backend.h"

/* Quantized magnitudes are capped here so every later stage stays inside
 * int32 (the entropy coder codes magnitudes below 2^31). */
#define WC_QMAX 1073741823.0f

/* Written with selects instead of early returns so whole rows vectorize;
 * the results are those of the plain reading: 0 below the threshold,
 * else trunc(|c| / step) capped at WC_QMAX (NaN too), with c's sign. */
static inline int32_t quant_value(float c, float step, float threshold)
{
    float a = fabsf(c);
    float t = a / step;
    t = t < WC_QMAX ? t : WC_QMAX; /* also catches NaN */
    int32_t q = (int32_t)t;
    q = a < threshold ? 0 : q;
    return c < 0.0f ? -q : q;
}

/* |q| as uint32 converts to the same float as through int64 (2^31 for
 * INT32_MIN included), and vectorizes. */
static inline uint32_t quant_mag(int32_t q) { return q < 0 ? 0u - (uint32_t)q : (uint32_t)q; }

static inline float dequant_value(int32_t q, float step, float recon)
{
    float m = ((float)quant_mag(q) + recon) * step;
    m = q < 0 ? -m : m;
    return q == 0 ? 0.0f : m;
}

/* Integer planes round the dequantized magnitude to the nearest integer:
 * floor(m + 0.5) capped at WC_QMAX; m >= 0, so truncation is the floor
 * (floorf is a library call without SSE4.1). */
static inline int32_t dequant_int_value(int32_t q, float step, float recon)
{
    float t = fabsf(dequant_value(q, step, recon)) + 0.5f;
    t = t < WC_QMAX ? t : WC_QMAX;
    int32_t v = (int32_t)t;
    return q < 0 ? -v : v;
}

/* Per-sample step lookup for a plane: DWT planes step by band rectangle,
 * block planes by (y & 7) * 8 + (x & 7). */
typedef struct quant_layout {
    uint32_t width, height;
    int blocked;       /* 1: DCT/LOT frequency steps */
    int levels;        /* DWT levels (when !blocked) */
} quant_layout;

/* In place on an int plane (5/3 coefficients). D == 1 and T == 0 leaves
 * the band untouched (lossless). */
void quant_int_plane(int32_t *plane, const quant_layout *lay, const float *steps, float threshold);
/* From a float plane into an int plane. */
void quant_float_plane(const float *src, int32_t *dst, const quant_layout *lay, const float *steps,
                       float threshold);
/* In place on an int plane; D == 1 is the identity. */
void dequant_int_plane(int32_t *plane, const quant_layout *lay, const float *steps, float recon);
/* From an int plane into a float plane. */
void dequant_float_plane(const int32_t *src, float *dst, const quant_layout *lay, const float *steps,
                         float recon);

#endif
