/*
 * blk8_device.cuh -- device code the DCT and LOT kernels share: the 1-D
 * kernels of transform/dct8.h and the stage kernels of transform/lot8.h,
 * copied statement for statement (those headers call themselves the
 * numeric contract and their bodies are host-only static inline functions,
 * so the device needs its own copies; the constants are taken from the
 * headers, so they cannot drift), blk8_pad's mirror, and the sample and
 * coefficient ends of the fused kernels.
 *
 * Exactness: every float expression keeps the CPU's operands, order and
 * grouping, and cuda/ is compiled with --fmad=false, so a*b + c rounds
 * twice exactly as the CPU's -ffp-contract=off code does; IEEE division
 * (nvcc's default) for the quantizer. The kernels take the same 8 inputs
 * for every 1-D call as the CPU does, so the bits are the CPU's.
 */
#ifndef WC_BLK8_DEVICE_CUH
#define WC_BLK8_DEVICE_CUH

#include "blk8_cuda.h"
#include "dwt_device.cuh"

extern "C" {
#include "dct8.h"
#include "lot8.h"
}

namespace wcg {

/* ---- transform/dct8.h ----------------------------------------------------- */

__device__ __forceinline__ void dct8_fwd8_d(const float *x, float *y)
{
    float t0 = x[0] + x[7], t7 = x[0] - x[7];
    float t1 = x[1] + x[6], t6 = x[1] - x[6];
    float t2 = x[2] + x[5], t5 = x[2] - x[5];
    float t3 = x[3] + x[4], t4 = x[3] - x[4];
    float t10 = t0 + t3, t13 = t0 - t3;
    float t11 = t1 + t2, t12 = t1 - t2;
    float r0 = t10 + t11, r4 = t10 - t11;
    float z1 = (t12 + t13) * DCT8_A1;
    float r2 = t13 + z1, r6 = t13 - z1;
    float u10 = t4 + t5, u11 = t5 + t6, u12 = t6 + t7;
    float z5 = (u10 - u12) * DCT8_A5;
    float z2 = DCT8_A2 * u10 + z5;
    float z4 = DCT8_A4 * u12 + z5;
    float z3 = u11 * DCT8_A1;
    float z11 = t7 + z3, z13 = t7 - z3;
    float r5 = z13 + z2, r3 = z13 - z2;
    float r1 = z11 + z4, r7 = z11 - z4;
    y[0] = r0 * DCT8_S0;
    y[1] = r1 * DCT8_S1;
    y[2] = r2 * DCT8_S2;
    y[3] = r3 * DCT8_S3;
    y[4] = r4 * DCT8_S4;
    y[5] = r5 * DCT8_S5;
    y[6] = r6 * DCT8_S6;
    y[7] = r7 * DCT8_S7;
}

__device__ __forceinline__ void dct8_inv8_d(const float *y, float *x)
{
    float c0 = y[0] * DCT8_T0, c1 = y[1] * DCT8_T1;
    float c2 = y[2] * DCT8_T2, c3 = y[3] * DCT8_T3;
    float c4 = y[4] * DCT8_T4, c5 = y[5] * DCT8_T5;
    float c6 = y[6] * DCT8_T6, c7 = y[7] * DCT8_T7;
    float t10 = c0 + c4, t11 = c0 - c4;
    float t13 = c2 + c6;
    float t12 = (c2 - c6) * DCT8_B1 - t13;
    float e0 = t10 + t13, e3 = t10 - t13;
    float e1 = t11 + t12, e2 = t11 - t12;
    float z13 = c5 + c3, z10 = c5 - c3;
    float z11 = c1 + c7, z12 = c1 - c7;
    float o7 = z11 + z13;
    float u11 = (z11 - z13) * DCT8_B1;
    float z5 = (z10 + z12) * DCT8_B2;
    float u10 = DCT8_B3 * z12 - z5;
    float u12 = z5 - DCT8_B4 * z10;
    float o6 = u12 - o7;
    float o5 = u11 - o6;
    float o4 = u10 + o5;
    x[0] = e0 + o7;
    x[7] = e0 - o7;
    x[1] = e1 + o6;
    x[6] = e1 - o6;
    x[2] = e2 + o5;
    x[5] = e2 - o5;
    x[4] = e3 + o4;
    x[3] = e3 - o4;
}

/* ---- transform/lot8.h ----------------------------------------------------- */

/* 8 samples -> [p | q]; x and pq may be the same array. */
__device__ __forceinline__ void lot8_stage1_fwd_d(const float *x, float *pq)
{
    float c[8];
    dct8_fwd8_d(x, c);
    pq[0] = c[0] + c[1];
    pq[1] = c[2] + c[3];
    pq[2] = c[4] + c[5];
    pq[3] = c[6] + c[7];
    pq[4] = c[0] - c[1];
    pq[5] = c[2] - c[3];
    pq[6] = c[4] - c[5];
    pq[7] = c[6] - c[7];
}

/* q (left shifted block), p (right one) -> 8 coefficients; y may alias. */
__device__ __forceinline__ void lot8_stage2_fwd_d(const float *q, const float *p, float *y)
{
    float e0 = (q[0] + p[0]) * 0.5f, d0 = (q[0] - p[0]) * 0.5f;
    float e1 = (q[1] + p[1]) * 0.5f, d1 = (q[1] - p[1]) * 0.5f;
    float e2 = (q[2] + p[2]) * 0.5f, d2 = (q[2] - p[2]) * 0.5f;
    float e3 = (q[3] + p[3]) * 0.5f, d3 = (q[3] - p[3]) * 0.5f;
    float a0 = LOT8_C1 * d0 - LOT8_S1 * d1;
    float a1 = LOT8_C1 * d1 + LOT8_S1 * d0;
    float b1 = LOT8_C2 * a1 - LOT8_S2 * d2;
    float b2 = LOT8_C2 * d2 + LOT8_S2 * a1;
    float g2 = LOT8_C3 * b2 - LOT8_S3 * d3;
    float g3 = LOT8_C3 * d3 + LOT8_S3 * b2;
    y[0] = e0;
    y[1] = a0;
    y[2] = e1;
    y[3] = b1;
    y[4] = e2;
    y[5] = g2;
    y[6] = e3;
    y[7] = g3;
}

/* 8 coefficients -> qh of the left shifted block, ph of the right one;
 * every input is read before the first output is written. */
__device__ __forceinline__ void lot8_stage2_inv_d(const float *y, float *qh, float *ph)
{
    float b2 = LOT8_C3 * y[5] + LOT8_S3 * y[7];
    float d3 = LOT8_C3 * y[7] - LOT8_S3 * y[5];
    float a1 = LOT8_C2 * y[3] + LOT8_S2 * b2;
    float d2 = LOT8_C2 * b2 - LOT8_S2 * y[3];
    float d0 = LOT8_C1 * y[1] + LOT8_S1 * a1;
    float d1 = LOT8_C1 * a1 - LOT8_S1 * y[1];
    float e0 = y[0], e1 = y[2], e2 = y[4], e3 = y[6];
    qh[0] = (e0 + d0) * 0.5f;
    qh[1] = (e1 + d1) * 0.5f;
    qh[2] = (e2 + d2) * 0.5f;
    qh[3] = (e3 + d3) * 0.5f;
    ph[0] = (e0 - d0) * 0.5f;
    ph[1] = (e1 - d1) * 0.5f;
    ph[2] = (e2 - d2) * 0.5f;
    ph[3] = (e3 - d3) * 0.5f;
}

__device__ __forceinline__ void lot8_stage1_inv_d(const float *ph, const float *qh, float *x)
{
    float c[8];
    c[0] = ph[0] + qh[0];
    c[1] = ph[0] - qh[0];
    c[2] = ph[1] + qh[1];
    c[3] = ph[1] - qh[1];
    c[4] = ph[2] + qh[2];
    c[5] = ph[2] - qh[2];
    c[6] = ph[3] + qh[3];
    c[7] = ph[3] - qh[3];
    dct8_inv8_d(c, x);
}

/* ---- padding, samples, coefficients ------------------------------------------ */

/* blk8_pad's source index for padded index i of a dimension of n samples:
 * half-sample symmetric extension with period 2n (transform/blk8_pad.c).
 * Only the padding (i >= n) does any work, and only tiny n need the 64-bit
 * modulo, so the common path is two compares. */
__device__ __forceinline__ uint32_t blk8_mirror_d(uint32_t i, uint32_t n)
{
    if (i < n) return i;
    const uint64_t p = 2u * (uint64_t)n;
    const uint64_t m = (uint64_t)i < p ? (uint64_t)i : (uint64_t)i % p;
    return (uint32_t)(m < n ? m : p - 1u - m);
}

/* The LOT's own half-sample mirror of an index within one half block of
 * the padded plane (n >= 8, so one fold is enough): x[-1-i] = x[i],
 * x[n+i] = x[n-1-i]. */
__device__ __forceinline__ uint32_t lot_mirror_d(int64_t i, uint32_t n)
{
    if (i < 0) return (uint32_t)(-1 - i);
    if (i >= (int64_t)n) return (uint32_t)(2 * (int64_t)n - 1 - i);
    return (uint32_t)i;
}

/* The float the CPU's blk8_pad puts at padded (px, py): the level-shifted,
 * colour-transformed sample it mirrors (padding is a pure copy, so doing
 * the colour at the mirrored position gives the same bits). */
__device__ __forceinline__ float padded_sample(const wcg_blk8_job &j, uint32_t px, uint32_t py)
{
    return load_component<float>(j.samples, blk8_mirror_d(px, j.width),
                                 blk8_mirror_d(py, j.height));
}

/* A finished forward coefficient at plane position (x, y). */
template <bool QUANT>
__device__ __forceinline__ void put_coeff(const wcg_blk8_job &j, const float *steps, uint32_t x,
                                          uint32_t y, float v)
{
    const size_t i = (size_t)y * j.pw + x;
    if constexpr (QUANT)
        ((int32_t *)j.coef)[i] = quantize_value(v, steps[(y & 7) * 8 + (x & 7)], j.threshold);
    else
        ((float *)j.coef)[i] = v;
}

/* The dequantized coefficient at plane position (x, y). */
__device__ __forceinline__ float get_coeff(const wcg_blk8_job &j, const float *steps, uint32_t x,
                                           uint32_t y)
{
    return dequantize_value<float>(((const int32_t *)j.coef)[(size_t)y * j.pw + x],
                                   steps[(y & 7) * 8 + (x & 7)], j.recon);
}

/* A reconstructed value at image position (x, y): to the colour plane, or
 * rounded and clamped to the samples (codec/colour.c). */
__device__ __forceinline__ void put_result(const wcg_blk8_job &j, uint32_t x, uint32_t y, float v)
{
    if (j.plane)
        j.plane[(size_t)y * j.width + x] = v;
    else
        store_sample(j.samples, x, y, j.samples.comp, to_sample(j.samples, v));
}

/* Copies the job's 64 steps to shared memory: indexed by position, they
 * differ across a warp, which param (constant) space would serialize. */
__device__ __forceinline__ void load_steps(const wcg_blk8_job &j, float *steps)
{
    for (int i = threadIdx.x; i < 64; i += blockDim.x) steps[i] = j.steps[i];
}

/* Tiles of a grid in one dimension (a 1-D grid of tiles has no 65535 limit). */
__host__ __device__ __forceinline__ uint32_t tiles_of(uint32_t n, uint32_t tile)
{
    return (n + tile - 1) / tile;
}

} /* namespace wcg */

#endif /* WC_BLK8_DEVICE_CUH */
