/*
 * ac_kernels.cu -- entropy 3 (arithmetic coding, entropy/ac_block.h) on
 * the device: a thread codes one code block with the very functions the
 * host runs (entropy/ac_model.h and range_coder.h are AC_HOSTDEV), so the
 * bytes are ac_encode's and a decoded block is ac_decode's. The model
 * adapts bit by bit along the block's raster order, which leaves no
 * parallelism inside a block; the device's gain is the thousands of
 * blocks of a large image at once.
 *
 * Each thread keeps its state (contexts, the padded neighbourhood of
 * magnitudes and signs, a block of MED residuals: ac_block.c's scratch)
 * in a slice of one global buffer; a fixed number of threads walk the
 * blocks, so the buffer does not grow with the image.
 */
#include "entropy_cuda.h"

extern "C" {
#include "ac_model.h"
}

namespace
{

/* ac_block.c's scratch, one per thread. */
struct ac_work {
    ac_scratch s;
    int32_t res[AC_MAX_SIDE * AC_MAX_SIDE];
};

constexpr uint32_t kThreads = 64;

__device__ __forceinline__ int32_t med(int32_t a, int32_t b, int32_t c)
{
    const int32_t mx = a > b ? a : b, mn = a > b ? b : a;
    if (c >= mx) return mn;
    if (c <= mn) return mx;
    return (int32_t)((uint32_t)a + (uint32_t)b - (uint32_t)c);
}

/* block_coder.c's predict_at: the MED predictor inside the block. */
__device__ __forceinline__ int32_t predict_at(const int32_t *v, size_t stride, uint32_t x,
                                              uint32_t y)
{
    if (y == 0) return x ? v[x - 1] : 0;
    const int32_t *row = v + y * stride;
    if (x == 0) return row[-(ptrdiff_t)stride];
    return med(row[x - 1], row[x - (ptrdiff_t)stride], row[x - 1 - (ptrdiff_t)stride]);
}

__global__ void ac_emit_kernel(wcg_bc_job j, uint8_t *slots, uint32_t *sizes, ac_work *work,
                               uint32_t nthreads)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    ac_work *W = work + t;
    for (uint32_t i = t; i < j.nblocks; i += nthreads) {
        const wcg_cblk b = j.blocks[i];
        const int32_t *d = j.plane[b.comp] + b.base;
        const int32_t *src = d;
        size_t ss = b.stride;
        if (b.predict) { /* bc_residuals */
            for (uint32_t y = 0; y < b.h; y++)
                for (uint32_t x = 0; x < b.w; x++)
                    W->res[(size_t)y * b.w + x] =
                        (int32_t)((uint32_t)d[y * (size_t)b.stride + x] -
                                  (uint32_t)predict_at(d, b.stride, x, y));
            src = W->res;
            ss = b.w;
        }
        const size_t n =
            ac_encode_values(src, ss, b.w, b.h, b.orient, &W->s, slots + b.slot, b.cap);
        if (n == SIZE_MAX) {
            sizes[i] = 0;
            atomicOr(sizes + j.nblocks, 1u);
        } else {
            sizes[i] = (uint32_t)n;
        }
    }
}

__global__ void ac_decode_kernel(wcg_dec_job j, ac_work *work, uint32_t nthreads)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    ac_work *W = work + t;
    for (uint32_t i = t; i < j.nblocks; i += nthreads) {
        const wcg_cblk b = j.blocks[i];
        int32_t *d = j.plane[b.comp] + b.base;
        if (ac_decode_values(j.data + b.slot, b.cap, d, b.stride, b.w, b.h, b.orient, &W->s)) {
            j.status[4 * (size_t)i] = WCG_DEC_ARITH;
            continue;
        }
        if (b.predict) /* bc_unpredict, in raster order */
            for (uint32_t y = 0; y < b.h; y++)
                for (uint32_t x = 0; x < b.w; x++) {
                    int32_t *v = d + y * (size_t)b.stride + x;
                    *v = (int32_t)((uint32_t)*v + (uint32_t)predict_at(d, b.stride, x, y));
                }
    }
}

} /* namespace */

size_t wcg_ac_work_bytes(uint32_t nblocks)
{
    const uint32_t n = nblocks < WCG_AC_THREADS ? nblocks : WCG_AC_THREADS;
    return (size_t)(n ? n : 1) * sizeof(ac_work);
}

static uint32_t threads_of(uint32_t nblocks)
{
    return nblocks < WCG_AC_THREADS ? nblocks : WCG_AC_THREADS;
}

cudaError_t wcg_ac_emit(const wcg_bc_job *job, uint8_t *slots, uint32_t *sizes, void *work,
                        cudaStream_t st)
{
    const uint32_t n = threads_of(job->nblocks);
    if (n == 0) return cudaSuccess;
    ac_emit_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, st>>>(*job, slots, sizes,
                                                                       (ac_work *)work, n);
    return cudaGetLastError();
}

cudaError_t wcg_ac_decode(const wcg_dec_job *job, void *work, cudaStream_t st)
{
    const uint32_t n = threads_of(job->nblocks);
    if (n == 0) return cudaSuccess;
    ac_decode_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, st>>>(*job, (ac_work *)work, n);
    return cudaGetLastError();
}
