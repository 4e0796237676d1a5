/*
 * dct8_kernels.cu -- the blocked 8x8 DCT of one component, forward and
 * inverse, one thread block per tile of 8x4 DCT blocks (64 x 32 samples).
 *
 * Forward: the tile's padded samples are read once, row by row (coalesced),
 * level-shifted and colour-transformed into shared memory; each thread then
 * transforms one 8-sample row of one block in place, and after a barrier one
 * 8-sample column, whose 8 results it quantizes and writes straight out: a
 * warp's 32 columns are 32 consecutive coefficients of a row, so the stores
 * are coalesced without a second trip through shared memory. The inverse is
 * the mirror image: columns read straight from the coefficient plane and
 * dequantized, rows in shared memory, then the cropped tile written out row
 * by row. Rows then columns forward, columns then rows back, as dct8.c.
 *
 * Shared memory rows are 65 floats apart: the row pass has each lane of a
 * warp on its own row (rows are the fastest-varying item index), and an odd
 * pitch puts those 32 rows on 32 different banks; the column pass and the
 * load/store phases have lanes on consecutive columns, conflict-free for
 * any pitch.
 */
#include "blk8_device.cuh"

namespace wcg
{
namespace
{

constexpr int TW = 64, TH = 32; /* tile: 8 x 4 blocks */
constexpr int PITCH = TW + 1;   /* odd: conflict-free row pass */
constexpr int THREADS = 256;    /* = row items = column items */
constexpr int ROW_ITEMS = TH * (TW / 8);
constexpr int COL_ITEMS = TW * (TH / 8);

/* The tile of block index t: origin and size (multiples of 8, since the
 * padded plane is), from a 1-D grid. */
struct tile {
    uint32_t x0, y0;
    int w, h;
};

__device__ __forceinline__ tile tile_of(const wcg_blk8_job &j)
{
    const uint32_t nx = tiles_of(j.pw, TW);
    tile t;
    t.x0 = (blockIdx.x % nx) * TW;
    t.y0 = (blockIdx.x / nx) * TH;
    t.w = (int)min((uint32_t)TW, j.pw - t.x0);
    t.h = (int)min((uint32_t)TH, j.ph - t.y0);
    return t;
}

/* The pass over the tile's rows, in place in shared memory: each thread
 * transforms one 8-sample row of one block (forward, or inverse). */
template <bool INVERSE> __device__ __forceinline__ void row_pass(float *s, const tile &t)
{
    for (int i = threadIdx.x; i < ROW_ITEMS; i += THREADS) {
        const int y = i % TH, b = i / TH;
        if (y < t.h && 8 * b < t.w) {
            float *r = s + y * PITCH + 8 * b;
            float v[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) v[k] = r[k];
            if (INVERSE)
                dct8_inv8(v, v);
            else
                dct8_fwd8(v, v);
#pragma unroll
            for (int k = 0; k < 8; ++k) r[k] = v[k];
        }
    }
}

template <bool QUANT>
__global__ void __launch_bounds__(THREADS) dct8_fwd_kernel(const wcg_blk8_job j)
{
    __shared__ float s[TH * PITCH];
    __shared__ float steps[64];
    const tile t = tile_of(j);
    if (QUANT) load_steps(j, steps);
    for (int i = threadIdx.x; i < TW * TH; i += THREADS) {
        const int x = i % TW, y = i / TW;
        if (x < t.w && y < t.h) s[y * PITCH + x] = padded_sample(j, t.x0 + x, t.y0 + y);
    }
    __syncthreads();
    row_pass<false>(s, t);
    __syncthreads();
    for (int i = threadIdx.x; i < COL_ITEMS; i += THREADS) {
        const int x = i % TW, b = i / TW;
        if (x < t.w && 8 * b < t.h) {
            float v[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) v[k] = s[(8 * b + k) * PITCH + x];
            dct8_fwd8(v, v);
#pragma unroll
            for (int k = 0; k < 8; ++k)
                put_coeff<QUANT>(j, steps, t.x0 + x, t.y0 + 8 * b + k, v[k]);
        }
    }
}

__global__ void __launch_bounds__(THREADS) dct8_inv_kernel(const wcg_blk8_job j)
{
    __shared__ float s[TH * PITCH];
    __shared__ float steps[64];
    const tile t = tile_of(j);
    load_steps(j, steps);
    __syncthreads();
    for (int i = threadIdx.x; i < COL_ITEMS; i += THREADS) {
        const int x = i % TW, b = i / TW;
        if (x < t.w && 8 * b < t.h) {
            float v[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) v[k] = get_coeff(j, steps, t.x0 + x, t.y0 + 8 * b + k);
            dct8_inv8(v, v);
#pragma unroll
            for (int k = 0; k < 8; ++k) s[(8 * b + k) * PITCH + x] = v[k];
        }
    }
    __syncthreads();
    row_pass<true>(s, t);
    __syncthreads();
    /* Crop: the padding beyond width x height is dropped. */
    for (int i = threadIdx.x; i < TW * TH; i += THREADS) {
        const int x = i % TW, y = i / TW;
        const uint32_t gx = t.x0 + x, gy = t.y0 + y;
        if (x < t.w && y < t.h && gx < j.width && gy < j.height)
            put_result(j, gx, gy, s[y * PITCH + x]);
    }
}

unsigned grid_of(const wcg_blk8_job *j) { return tiles_of(j->pw, TW) * tiles_of(j->ph, TH); }

} /* namespace */
} /* namespace wcg */

cudaError_t wcg_dct8_forward(const wcg_blk8_job *j, cudaStream_t st)
{
    using namespace wcg;
    if (j->pw == 0 || j->ph == 0) return cudaSuccess;
    if (j->quantize)
        dct8_fwd_kernel<true><<<grid_of(j), THREADS, 0, st>>>(*j);
    else
        dct8_fwd_kernel<false><<<grid_of(j), THREADS, 0, st>>>(*j);
    return cudaGetLastError();
}

cudaError_t wcg_dct8_inverse(const wcg_blk8_job *j, cudaStream_t st)
{
    using namespace wcg;
    if (j->pw == 0 || j->ph == 0) return cudaSuccess;
    dct8_inv_kernel<<<grid_of(j), THREADS, 0, st>>>(*j);
    return cudaGetLastError();
}
