/*
 * blk8_device.cuh -- device code the DCT and LOT kernels share: the 1-D
 * kernels of transform/dct8.h and transform/lot8.h (compiled from those
 * headers, which mark them __host__ __device__ under nvcc), blk8_pad's
 * mirror, and the sample and coefficient ends of the fused kernels.
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

namespace wcg
{

/* ---- the 1-D kernels ----------------------------------------------------------
 * dct8_fwd8/dct8_inv8 (transform/dct8.h) and the lot8_stage* functions
 * (transform/lot8.h) are compiled here from the CPU's own source: those
 * headers mark them WC_HOSTDEV (__host__ __device__ under nvcc), so there
 * is one body of each and the bits cannot drift. */

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
 * rounded and clamped to the samples (colour_transform.h). */
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
