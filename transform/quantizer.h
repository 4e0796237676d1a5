/*
 * quantizer.h -- the deadzone scalar quantizer and its inverse for one
 * coefficient: the quantization contract of backend.h written once, for
 * the CPU (codec/quant.c, whole planes) and the CUDA kernels
 * (cuda/dwt_device.cuh) alike. Compiled with no FMA contraction on both
 * sides (-ffp-contract=off, --fmad=false), so both give the same bits.
 */
#ifndef WC_QUANTIZER_H
#define WC_QUANTIZER_H

#include <math.h>
#include <stdint.h>

#include "hostdev.h"

/* Quantized magnitudes are capped here (2^30 - 1) so every later stage
 * stays inside int32 (the entropy coder codes magnitudes below 2^31). */
#define WC_QMAX 1073741823.0f

/* Written with selects instead of early returns so whole rows vectorize;
 * the results are those of the plain reading: 0 below the threshold,
 * else trunc(|c| / step) capped at WC_QMAX (NaN too), with c's sign. */
WC_HOSTDEV int32_t quant_value(float c, float step, float threshold)
{
    float a = fabsf(c);
    float t = a / step;
    t = t < WC_QMAX ? t : WC_QMAX; /* also catches NaN */
    int32_t q = (int32_t)t;
    q = a < threshold ? 0 : q;
    return c < 0.0f ? -q : q;
}

/* An int (5/3) band with step 1 and no threshold is kept as it is: the
 * lossless case. Dequantizing with step 1 keeps it whatever the offset. */
WC_HOSTDEV int quant_int_is_identity(float step, float threshold)
{
    return step == 1.0f && threshold == 0.0f;
}
WC_HOSTDEV int dequant_int_is_identity(float step) { return step == 1.0f; }

/* |q| as uint32 converts to the same float as through int64 (2^31 for
 * INT32_MIN included), and vectorizes. */
WC_HOSTDEV uint32_t quant_mag(int32_t q) { return q < 0 ? 0u - (uint32_t)q : (uint32_t)q; }

WC_HOSTDEV float dequant_value(int32_t q, float step, float recon)
{
    float m = ((float)quant_mag(q) + recon) * step;
    m = q < 0 ? -m : m;
    return q == 0 ? 0.0f : m;
}

/* Integer planes round the dequantized magnitude to the nearest integer:
 * floor(m + 0.5) capped at WC_QMAX; m >= 0, so truncation is the floor
 * (floorf is a library call without SSE4.1). */
WC_HOSTDEV int32_t dequant_int_value(int32_t q, float step, float recon)
{
    float t = fabsf(dequant_value(q, step, recon)) + 0.5f;
    t = t < WC_QMAX ? t : WC_QMAX;
    int32_t v = (int32_t)t;
    return q < 0 ? -v : v;
}

#endif /* WC_QUANTIZER_H */
