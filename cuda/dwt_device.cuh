/*
 * dwt_device.cuh -- device helpers every kernel of the backend shares:
 * symmetric extension, the quantizer and dequantizer of backend.h, sample
 * reading (level shift + forward colour) and writing (rounding, shift,
 * clamp), and the warp neighbour exchange of the register-based DWT.
 *
 * The arithmetic is not written here: quantizer.h and colour_transform.h
 * (transform/) hold it once for the CPU and these kernels, and the files
 * are compiled with --fmad=false, so every a*b+c rounds twice exactly as
 * the CPU's -ffp-contract=off code does.
 */
#ifndef WC_DWT_DEVICE_CUH
#define WC_DWT_DEVICE_CUH

#include <stdint.h>

#include "dwt_cuda.h"

extern "C" {
#include "backend.h"
}
#include "colour_transform.h"
#include "quantizer.h"

namespace wcg
{

constexpr unsigned FULL_MASK = 0xffffffffu;

/* Whole-sample symmetric extension of index i into [0, n): x[-1] = x[1],
 * x[n] = x[n-2], repeated for indices further out (tiny signals). */
__device__ __forceinline__ int mirror(int i, int n)
{
    if ((unsigned)i < (unsigned)n) return i;
    if (n == 1) return 0;
    const int p = 2 * (n - 1);
    i %= p;
    if (i < 0) i += p;
    return i < n ? i : p - i;
}

/* q = sign(c) * (int)(|c| / D), 0 under the threshold (quantizer.h; the
 * division is IEEE: nvcc's default -prec-div=true). */
__device__ __forceinline__ int32_t quantize_value(float c, float step, float threshold)
{
    return quant_value(c, step, threshold);
}

/* An int plane with D == 1 and T == 0 keeps its coefficients (lossless). */
__device__ __forceinline__ int32_t quantize_value(int32_t c, float step, float threshold)
{
    return quant_int_is_identity(step, threshold) ? c : quant_value((float)c, step, threshold);
}

/* Reconstruction sign(q) * (|q| + r) * D; int planes round the magnitude
 * half up and keep q as it is when D == 1, whatever r. */
template <class T>
__device__ __forceinline__ T dequantize_value(int32_t q, float step, float recon);

template <>
__device__ __forceinline__ float dequantize_value<float>(int32_t q, float step, float recon)
{
    return dequant_value(q, step, recon);
}

template <>
__device__ __forceinline__ int32_t dequantize_value<int32_t>(int32_t q, float step, float recon)
{
    return dequant_int_is_identity(step) ? q : dequant_int_value(q, step, recon);
}

/* A finished forward coefficient: quantized (int32) or raw. */
template <class OutT, bool QUANT, class T>
__device__ __forceinline__ OutT make_coeff(T v, float step, float thr)
{
    if constexpr (QUANT)
        return quantize_value(v, step, thr);
    else
        return (OutT)v;
}

/* ---- samples ------------------------------------------------------------ */

__device__ __forceinline__ int32_t sample_at(const wcg_samples &s, uint32_t x, uint32_t y,
                                             uint32_t c)
{
    const size_t i = (size_t)y * s.pitch + (size_t)x * s.comps + c;
    const int32_t v =
        s.bytes == 1 ? (int32_t)((const uint8_t *)s.px)[i] : (int32_t)((const uint16_t *)s.px)[i];
    return v - s.shift;
}

/* Component `comp` (0..2) of a level-shifted pixel after the forward
 * colour transform of backend.h, as an int (5/3 planes) or a float (9/7
 * planes: made from the int RCT result, or by the float ICT). */
template <class T>
__device__ __forceinline__ T colour_forward(int colour, uint32_t comp, int32_t r, int32_t g,
                                            int32_t b);

template <>
__device__ __forceinline__ int32_t colour_forward<int32_t>(int, uint32_t comp, int32_t r, int32_t g,
                                                           int32_t b)
{
    if (comp == 0) return rct_y(r, g, b);
    return comp == 1 ? rct_u(g, b) : rct_v(r, g);
}

template <>
__device__ __forceinline__ float colour_forward<float>(int colour, uint32_t comp, int32_t ri,
                                                       int32_t gi, int32_t bi)
{
    if (colour == WC_COLOUR_RCT) return (float)colour_forward<int32_t>(colour, comp, ri, gi, bi);
    const float r = (float)ri, g = (float)gi, b = (float)bi;
    if (comp == 0) return ict_y(r, g, b);
    return comp == 1 ? ict_cb(r, g, b) : ict_cr(r, g, b);
}

/* Component s.comp at (x, y) after level shift and forward colour. */
template <class T>
__device__ __forceinline__ T load_component(const wcg_samples &s, uint32_t x, uint32_t y)
{
    if (s.colour == WC_COLOUR_NONE || s.comp >= 3) return (T)sample_at(s, x, y, s.comp);
    return colour_forward<T>(s.colour, s.comp, sample_at(s, x, y, 0), sample_at(s, x, y, 1),
                             sample_at(s, x, y, 2));
}

/* Register bits of a value, and back: loads kept raw until used. */
__device__ __forceinline__ uint32_t as_bits(int32_t v) { return (uint32_t)v; }
__device__ __forceinline__ uint32_t as_bits(float v) { return __float_as_uint(v); }
template <class T> __device__ __forceinline__ T from_bits(uint32_t b);
template <> __device__ __forceinline__ int32_t from_bits<int32_t>(uint32_t b) { return (int32_t)b; }
template <> __device__ __forceinline__ float from_bits<float>(uint32_t b)
{
    return __uint_as_float(b);
}

/* A reconstructed value to a sample (colour_transform.h, as the CPU):
 * floats are rounded half up and clamped to the level-shifted range (NaN
 * to its low end); then the shift is added back, wrapping, and the result
 * clamped to [0, maxval]. */
__device__ __forceinline__ int32_t round_level_shifted(const wcg_samples &s, float v)
{
    return round_sample(v, -(float)s.shift, (float)(s.shift - 1));
}
__device__ __forceinline__ int32_t to_sample(const wcg_samples &s, int32_t v)
{
    return unshift_sample(v, s.shift, s.maxval);
}
__device__ __forceinline__ int32_t to_sample(const wcg_samples &s, float v)
{
    return to_sample(s, round_level_shifted(s, v));
}

__device__ __forceinline__ void store_sample(const wcg_samples &s, uint32_t x, uint32_t y,
                                             uint32_t c, int32_t v)
{
    const size_t i = (size_t)y * s.pitch + (size_t)x * s.comps + c;
    if (s.bytes == 1)
        ((uint8_t *)s.px)[i] = (uint8_t)v;
    else
        ((uint16_t *)s.px)[i] = (uint16_t)v;
}

/* ---- warp neighbours ----------------------------------------------------- */

/* A warp holds K*32 consecutive sample pairs: pair p = 32*k + lane. These
 * return, for every pair, the value its right (p+1) or left (p-1) neighbour
 * holds; the warp's last (first) pair gets garbage, which the halo absorbs. */
template <int K, class T>
__device__ __forceinline__ void from_next(const T (&v)[K], T (&out)[K], int lane)
{
    T r[K];
#pragma unroll
    for (int k = 0; k < K; ++k) r[k] = __shfl_sync(FULL_MASK, v[k], (lane + 1) & 31);
#pragma unroll
    for (int k = 0; k < K; ++k) out[k] = (lane == 31 && k + 1 < K) ? r[k + 1] : r[k];
}

template <int K, class T>
__device__ __forceinline__ void from_prev(const T (&v)[K], T (&out)[K], int lane)
{
    T l[K];
#pragma unroll
    for (int k = 0; k < K; ++k) l[k] = __shfl_sync(FULL_MASK, v[k], (lane + 31) & 31);
#pragma unroll
    for (int k = 0; k < K; ++k) out[k] = (lane == 0 && k > 0) ? l[k - 1] : l[k];
}

} /* namespace wcg */

#endif /* WC_DWT_DEVICE_CUH */
