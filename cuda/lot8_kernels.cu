/*
 * lot8_kernels.cu -- the 8x8 LOT of one component, forward and inverse, one
 * thread block per tile of 8x8 LOT blocks (64 x 64 coefficients), each
 * direction a single kernel.
 *
 * The LOT is not block-local: a block's basis functions reach half a block
 * into each neighbour, and the 2-D transform is the 1-D one along every row
 * and then along every column of the row-transformed plane (inverse:
 * columns, then rows). A tile therefore works on its area plus a halo, and
 * redoes its neighbours' work in the halo instead of waiting for it:
 *
 * Forward. LOT block b of a line is made from shifted blocks b-1 and b,
 * i.e. samples [8b-4, 8b+12). The tile loads its 64x64 samples plus 4 on
 * every side (72x72, mirrored at the plane's edges exactly as lot8.c
 * mirrors its first and last shifted blocks, and as blk8_pad pads), runs the
 * row transform over all 72 rows (the column pass needs the 4 rows above
 * and below, row-transformed), then the column transform, and writes the
 * 64x64 result. Rows of the halo are mirrored rows of the plane, and the
 * row transform works on each row alone, so they hold exactly the values
 * the CPU's column pass reads.
 *
 * Inverse. Output samples [8s+4, 8s+12) come from shifted block s, which
 * takes half of LOT block s and half of LOT block s+1. The tile loads its
 * 64x64 coefficients plus one block (8) on every side (80x80, dequantized),
 * inverts the columns over all 80 columns (the row pass needs the halo
 * columns), then the rows, and writes the cropped 64x64 samples. At the
 * plane's edges the missing half of the first and last shifted blocks is
 * its mirror, as in lot8.c (ph := qh at the top/left, qh := ph at the
 * bottom/right); halo blocks outside the plane are loaded as 0 and never
 * reach an output.
 *
 * Both stages of each 1-D pass work in place in shared memory, with no
 * copies: stage 1 of shifted block i (local) reads and writes the 8 values
 * at 8i..8i+7 of the line, and stage 2 of LOT block i those at
 * 8i+4..8i+11 (forward; the inverse has the two the other way round), so
 * the items of one stage never share a value and one barrier between
 * stages is enough -- the same slot layout lot8.c's line buffer uses.
 *
 * Bank conflicts: rows are an odd number of floats apart and the row
 * stages take rows as the fastest-varying item index, so the 32 lanes of a
 * warp read 32 different banks; the column stages and the load/store
 * phases have lanes on consecutive columns.
 */
#include "blk8_device.cuh"

namespace wcg
{
namespace
{

constexpr int T = 64;     /* tile side: 8 LOT blocks */
constexpr int NB = T / 8; /* LOT blocks per tile side */
constexpr int THREADS = 256;

/* Forward: tile + 4 each side. */
constexpr int FS = T + 8;  /* 72 */
constexpr int FP = FS + 1; /* odd pitch */
/* Inverse: tile + 8 each side. */
constexpr int IS = T + 16; /* 80 */
constexpr int IP = IS + 1;

struct tile {
    uint32_t x0, y0;
    int w, h; /* multiples of 8 */
};

__device__ __forceinline__ tile tile_of(const wcg_blk8_job &j)
{
    const uint32_t nx = tiles_of(j.pw, T);
    tile t;
    t.x0 = (blockIdx.x % nx) * T;
    t.y0 = (blockIdx.x / nx) * T;
    t.w = (int)min((uint32_t)T, j.pw - t.x0);
    t.h = (int)min((uint32_t)T, j.ph - t.y0);
    return t;
}

/* 8 values of a line in shared memory, `step` floats apart, to registers
 * and back (step 1: a row; the pitch: a column). */
template <int STEP> __device__ __forceinline__ void get8(const float *p, float (&v)[8])
{
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = p[k * STEP];
}
template <int STEP> __device__ __forceinline__ void put8(float *p, const float (&v)[8])
{
#pragma unroll
    for (int k = 0; k < 8; ++k) p[k * STEP] = v[k];
}

/* ---- forward ---------------------------------------------------------------- */

/* Stage 1 of every shifted block on `lines` lines of the tile (line l
 * starts at base + l * LSTEP, its values STEP apart), then stage 2 of every
 * LOT block. nblk LOT blocks need nblk + 1 shifted blocks. */
template <int LINES, int LSTEP, int STEP>
__device__ __forceinline__ void fwd_stage1(float *base, int lines, int nblk)
{
    for (int i = threadIdx.x; i < LINES * (NB + 1); i += THREADS) {
        const int l = i % LINES, b = i / LINES;
        if (l < lines && b <= nblk) {
            float *p = base + l * LSTEP + 8 * b * STEP;
            float v[8];
            get8<STEP>(p, v);
            lot8_stage1_fwd(v, v);
            put8<STEP>(p, v);
        }
    }
}

template <int LINES, int LSTEP, int STEP>
__device__ __forceinline__ void fwd_stage2_rows(float *base, int lines, int nblk)
{
    for (int i = threadIdx.x; i < LINES * NB; i += THREADS) {
        const int l = i % LINES, b = i / LINES;
        if (l < lines && b < nblk) {
            float *p = base + l * LSTEP + (8 * b + 4) * STEP;
            float v[8];
            get8<STEP>(p, v);
            lot8_stage2_fwd(v, v + 4, v); /* q of shifted b-1, p of shifted b */
            put8<STEP>(p, v);
        }
    }
}

template <bool QUANT>
__global__ void __launch_bounds__(THREADS) lot8_fwd_kernel(const wcg_blk8_job j)
{
    __shared__ float s[FS * FP];
    __shared__ float steps[64];
    const tile t = tile_of(j);
    if (QUANT) load_steps(j, steps);
    const int rw = t.w + 8, rh = t.h + 8;
    for (int i = threadIdx.x; i < FS * FS; i += THREADS) {
        const int x = i % FS, y = i / FS;
        if (x < rw && y < rh)
            s[y * FP + x] = padded_sample(j, lot_mirror_d((int64_t)t.x0 - 4 + x, j.pw),
                                          lot_mirror_d((int64_t)t.y0 - 4 + y, j.ph));
    }
    __syncthreads();
    /* Rows: every loaded row, the tile's columns plus the 4-sample halo. */
    fwd_stage1<FS, FP, 1>(s, rh, t.w / 8);
    __syncthreads();
    fwd_stage2_rows<FS, FP, 1>(s, rh, t.w / 8);
    __syncthreads();
    /* Columns: only the tile's own (local 4 .. 4 + w), whose row results
     * sit where stage 2 wrote them. */
    float *cols = s + 4;
    for (int i = threadIdx.x; i < T * (NB + 1); i += THREADS) {
        const int x = i % T, b = i / T;
        if (x < t.w && b <= t.h / 8) {
            float *p = cols + x + 8 * b * FP;
            float v[8];
            get8<FP>(p, v);
            lot8_stage1_fwd(v, v);
            put8<FP>(p, v);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < T * NB; i += THREADS) {
        const int x = i % T, b = i / T;
        if (x < t.w && b < t.h / 8) {
            float v[8];
            get8<FP>(cols + x + (8 * b + 4) * FP, v);
            lot8_stage2_fwd(v, v + 4, v);
#pragma unroll
            for (int k = 0; k < 8; ++k)
                put_coeff<QUANT>(j, steps, t.x0 + x, t.y0 + 8 * b + k, v[k]);
        }
    }
}

/* ---- inverse ---------------------------------------------------------------- */

/* Stage 2 inverse in place: LOT block b's 8 values become [qh | ph], qh
 * finishing shifted block b-1 and ph starting shifted block b. */
template <int LINES, int LSTEP, int STEP>
__device__ __forceinline__ void inv_stage2(float *base, int lines, int nblk)
{
    for (int i = threadIdx.x; i < LINES * (NB + 2); i += THREADS) {
        const int l = i % LINES, b = i / LINES;
        if (l < lines && b < nblk) {
            float *p = base + l * LSTEP + 8 * b * STEP;
            float v[8], o[8];
            get8<STEP>(p, v);
            lot8_stage2_inv(v, o, o + 4);
            put8<STEP>(p, o);
        }
    }
}

/* Stage 1 inverse in place: shifted block b (local) is [ph | qh] at
 * 8b+4 .. 8b+11. first_s is the plane index of local shifted block 0 and
 * m the plane's LOT blocks along this direction: shifted block -1 lacks
 * its ph and M-1 its qh, each replaced by the half it has. */
template <int LINES, int LSTEP, int STEP>
__device__ __forceinline__ void inv_stage1(float *base, int lines, int nblk, int64_t first_s,
                                           int64_t m)
{
    for (int i = threadIdx.x; i < LINES * (NB + 1); i += THREADS) {
        const int l = i % LINES, b = i / LINES;
        if (l < lines && b <= nblk) {
            float *p = base + l * LSTEP + (8 * b + 4) * STEP;
            float v[8], x[8];
            get8<STEP>(p, v);
            const int64_t sb = first_s + b;
            if (sb < 0) v[0] = v[4], v[1] = v[5], v[2] = v[6], v[3] = v[7];
            if (sb + 1 >= m) v[4] = v[0], v[5] = v[1], v[6] = v[2], v[7] = v[3];
            lot8_stage1_inv(v, v + 4, x);
            put8<STEP>(p, x);
        }
    }
}

__global__ void __launch_bounds__(THREADS) lot8_inv_kernel(const wcg_blk8_job j)
{
    __shared__ float s[IS * IP];
    __shared__ float steps[64];
    const tile t = tile_of(j);
    load_steps(j, steps);
    __syncthreads();
    const int rw = t.w + 16, rh = t.h + 16;
    /* Columns, straight from the coefficient plane: stage 2 of LOT block
     * rows -1 .. h/8 (local 0 .. h/8 + 1) over the tile's columns and one
     * block of halo on each side. */
    for (int i = threadIdx.x; i < IS * (NB + 2); i += THREADS) {
        const int x = i % IS, b = i / IS;
        if (x < rw && b < rh / 8) {
            const int64_t gx = (int64_t)t.x0 - 8 + x, gy0 = (int64_t)t.y0 - 8 + 8 * b;
            const bool in = gx >= 0 && gx < (int64_t)j.pw && gy0 >= 0 && gy0 < (int64_t)j.ph;
            float v[8], o[8];
#pragma unroll
            for (int k = 0; k < 8; ++k)
                v[k] = in ? get_coeff(j, steps, (uint32_t)gx, (uint32_t)gy0 + k) : 0.0f;
            lot8_stage2_inv(v, o, o + 4);
            put8<IP>(s + x + 8 * b * IP, o);
        }
    }
    __syncthreads();
    inv_stage1<IS, 1, IP>(s, rw, t.h / 8, (int64_t)(t.y0 / 8) - 1, j.ph / 8);
    __syncthreads();
    /* Rows: only the tile's own (local 8 .. 8 + h), all 80 columns. */
    float *rows = s + 8 * IP;
    inv_stage2<T, IP, 1>(rows, t.h, rw / 8);
    __syncthreads();
    inv_stage1<T, IP, 1>(rows, t.h, t.w / 8, (int64_t)(t.x0 / 8) - 1, j.pw / 8);
    __syncthreads();
    for (int i = threadIdx.x; i < T * T; i += THREADS) {
        const int x = i % T, y = i / T;
        const uint32_t gx = t.x0 + x, gy = t.y0 + y;
        if (x < t.w && y < t.h && gx < j.width && gy < j.height)
            put_result(j, gx, gy, rows[y * IP + 8 + x]);
    }
}

unsigned grid_of(const wcg_blk8_job *j) { return tiles_of(j->pw, T) * tiles_of(j->ph, T); }

} /* namespace */
} /* namespace wcg */

cudaError_t wcg_lot8_forward(const wcg_blk8_job *j, cudaStream_t st)
{
    using namespace wcg;
    if (j->pw == 0 || j->ph == 0) return cudaSuccess;
    if (j->quantize)
        lot8_fwd_kernel<true><<<grid_of(j), THREADS, 0, st>>>(*j);
    else
        lot8_fwd_kernel<false><<<grid_of(j), THREADS, 0, st>>>(*j);
    return cudaGetLastError();
}

cudaError_t wcg_lot8_inverse(const wcg_blk8_job *j, cudaStream_t st)
{
    using namespace wcg;
    if (j->pw == 0 || j->ph == 0) return cudaSuccess;
    lot8_inv_kernel<<<grid_of(j), THREADS, 0, st>>>(*j);
    return cudaGetLastError();
}
