/*
 * bc_kernels.cu -- entropy/block_coder.c's coder on the device (see
 * entropy_cuda.h): one thread walks one code block exactly as `walk`
 * does, statement for statement, so the symbols, and with the same
 * tables the bytes, are the CPU's.
 *
 * The CPU walk reads magnitudes from a padded scratch copy of the block;
 * here the same values come from the plane itself (zero outside the
 * block, capped at 2^20, MED residuals computed where they are read), so a
 * thread needs no scratch. Histograms gather in shared memory per thread
 * block (one component's 9 x 25 x 67 counters) and go to global memory
 * once per thread block.
 */
#include "entropy_cuda.h"

namespace {

constexpr uint32_t kMagCap = 1u << 20;
constexpr unsigned kFineOctaves = 12;
constexpr unsigned kCoarseBase = 4 * (kFineOctaves - 1) + 4;
constexpr unsigned kRun = 0, kTerm = 24;
constexpr int kCountThreads = 32;
constexpr int kEmitThreads = 32;

__device__ __forceinline__ uint32_t mag_of(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

__device__ __forceinline__ int32_t med(int32_t a, int32_t b, int32_t c)
{
    const int32_t mx = a > b ? a : b, mn = a > b ? b : a;
    if (c >= mx) return mn;
    if (c <= mn) return mx;
    return (int32_t)((uint32_t)a + (uint32_t)b - (uint32_t)c);
}

/* bc_ctx_lut's bucket of a context sum: s below 2, then two buckets per
 * octave, 23 from 3072 up (ctx_lut.h's generator). */
__device__ __forceinline__ unsigned ctx_of(uint32_t s)
{
    if (s < 2) return s;
    const unsigned k = 31u - (unsigned)__clz(s);
    const unsigned b = 2 * k + ((s >> (k - 1)) & 1u);
    return b < 23 ? b : 23;
}

__device__ __forceinline__ unsigned class_of(uint32_t m, uint32_t *extra, unsigned *nbits)
{
    if (m < 4) {
        *extra = 0;
        *nbits = 0;
        return m;
    }
    const unsigned k = 31u - (unsigned)__clz(m);
    if (k <= kFineOctaves) {
        *nbits = k - 2;
        *extra = m & ((1u << (k - 2)) - 1);
        return 4 * (k - 1) + ((m >> (k - 2)) & 3);
    }
    *nbits = k;
    *extra = m & ((1u << k) - 1);
    return kCoarseBase + (k - kFineOctaves - 1);
}

/* A code block read from its plane. */
struct View {
    const int32_t *d;
    uint32_t ss;
    int W, H;
    int predict;

    __device__ __forceinline__ int32_t raw(int x, int y) const { return __ldg(d + (size_t)y * ss + x); }
    /* The coded value: the coefficient, or its MED residual. */
    __device__ __forceinline__ int32_t val(int x, int y) const
    {
        const int32_t v = raw(x, y);
        if (!predict) return v;
        int32_t p;
        if (y == 0)
            p = x ? raw(x - 1, 0) : 0;
        else if (x == 0)
            p = raw(0, y - 1);
        else
            p = med(raw(x - 1, y), raw(x, y - 1), raw(x - 1, y - 1));
        return (int32_t)((uint32_t)v - (uint32_t)p);
    }
    /* The context's magnitude at (x, y): zero outside the block. */
    __device__ __forceinline__ uint32_t cm(int x, int y) const
    {
        if (x < 0 || x >= W || y < 0) return 0;
        const uint32_t m = mag_of(val(x, y));
        return m < kMagCap ? m : kMagCap;
    }
    __device__ __forceinline__ uint32_t context(int x, int y, uint32_t wa, uint32_t wb) const
    {
        return wa * cm(x - 1, y) + wb * cm(x, y - 1) + cm(x - 1, y - 1) + cm(x + 1, y - 1) +
               cm(x - 2, y) + cm(x, y - 2);
    }
};

/* Counting: symbols into this thread block's shared histogram. */
struct Counter {
    uint32_t *hist; /* [class][table][symbol] of one component */
    unsigned cls;
    __device__ __forceinline__ void put(unsigned tab, uint32_t m, int, int)
    {
        uint32_t extra;
        unsigned nb;
        const unsigned sym = class_of(m, &extra, &nb);
        atomicAdd(&hist[(cls * WCG_NTAB + tab) * WCG_NSYM + sym], 1u);
    }
};

/* Coding: bitio.h's LSB-first writer, whole 32-bit words into the slot. */
struct Coder {
    const wcg_huf *tabs; /* the block's class: WCG_NTAB tables */
    uint32_t *out;
    uint32_t capw, words;
    unsigned long long acc;
    unsigned n;
    int overflow;
    __device__ __forceinline__ void bits(uint32_t v, unsigned k)
    {
        acc |= (unsigned long long)v << n;
        n += k;
        if (n >= 32) {
            if (words < capw)
                out[words] = (uint32_t)acc;
            else
                overflow = 1;
            words++;
            acc >>= 32;
            n -= 32;
        }
    }
    __device__ __forceinline__ void put(unsigned tab, uint32_t m, int sign_bit, int with_sign)
    {
        uint32_t extra;
        unsigned nb;
        const unsigned sym = class_of(m, &extra, &nb);
        const wcg_huf *t = &tabs[tab];
        const unsigned len = t->bits[sym];
        if (nb <= 16) {
            bits(t->code[sym] | extra << len | (uint32_t)sign_bit << (len + nb),
                 len + nb + (unsigned)with_sign);
            return;
        }
        bits(t->code[sym], len);
        bits(extra, nb);
        if (with_sign) bits((uint32_t)sign_bit, 1);
    }
    /* bitw_flush: the pending bits as whole bytes; the size in bytes. */
    __device__ uint32_t flush(uint32_t cap)
    {
        uint32_t pos = words * 4;
        uint8_t *b = (uint8_t *)out;
        while (n > 0) {
            if (pos < cap)
                b[pos] = (uint8_t)acc;
            else
                overflow = 1;
            pos++;
            acc >>= 8;
            n = n > 8 ? n - 8 : 0;
        }
        return overflow ? 0xFFFFFFFFu : pos;
    }
};

/* block_coder.c's walk. */
template <class Sink>
__device__ void walk(const View &v, uint32_t orient, uint32_t run_max, Sink &k)
{
    const uint32_t wa = orient == 1 ? 1u : orient == 2 ? 3u : 2u;
    const uint32_t wb = orient == 1 ? 3u : orient == 2 ? 1u : 2u;
    const int W = v.W, H = v.H;
    int x = 0, y = 0;
    while (y < H) {
        while (x < W) {
            const uint32_t s = v.context(x, y, wa, wb);
            if (s <= run_max) break;
            const int32_t q = v.val(x, y);
            const uint32_t m = mag_of(q);
            k.put(ctx_of(s), m, q < 0, m != 0);
            x++;
        }
        if (x == W) {
            x = 0;
            y++;
            continue;
        }
        /* Run mode: zeros in raster order until a non-zero or the end. */
        uint32_t r = 0;
        while (y < H) {
            while (x < W && v.val(x, y) == 0) {
                x++;
                r++;
            }
            if (x < W) break;
            x = 0;
            y++;
        }
        k.put(kRun, r, 0, 0);
        if (y == H) break;
        const int32_t q = v.val(x, y);
        const uint32_t m = mag_of(q);
        k.put(kTerm, m - 1, q < 0, 1);
        if (++x == W) {
            x = 0;
            y++;
        }
    }
}

__device__ __forceinline__ View view_of(const wcg_bc_job &j, const wcg_cblk &b)
{
    View v;
    v.d = j.plane[b.comp] + b.base;
    v.ss = b.stride;
    v.W = b.w;
    v.H = b.h;
    v.predict = b.predict;
    return v;
}

__global__ void count_kernel(wcg_bc_job j, unsigned long long *hist)
{
    extern __shared__ uint32_t sh[];
    const uint32_t c = blockIdx.y;
    for (uint32_t i = threadIdx.x; i < WCG_HIST; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < j.count[c]) {
        const wcg_cblk b = j.blocks[j.first[c] + i];
        Counter k{sh, b.cls};
        walk(view_of(j, b), b.orient, j.run_max, k);
    }
    __syncthreads();
    unsigned long long *g = hist + (size_t)c * WCG_HIST;
    for (uint32_t t = threadIdx.x; t < WCG_HIST; t += blockDim.x)
        if (sh[t]) atomicAdd(g + t, (unsigned long long)sh[t]);
}

__global__ void emit_kernel(wcg_bc_job j, const wcg_huf *tabs, uint8_t *slots, uint32_t *sizes)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= j.nblocks) return;
    const wcg_cblk b = j.blocks[i];
    Coder k;
    k.tabs = tabs + ((size_t)b.comp * WCG_NCLASS + b.cls) * WCG_NTAB;
    k.out = (uint32_t *)(slots + b.slot);
    k.capw = b.cap / 4;
    k.words = 0;
    k.acc = 0;
    k.n = 0;
    k.overflow = 0;
    walk(view_of(j, b), b.orient, j.run_max, k);
    const uint32_t n = k.flush(b.cap);
    /* A slot too small (bc_bound says it cannot be): size 0, and the flag
     * after the last size tells the host. */
    if (n == 0xFFFFFFFFu) atomicOr(&sizes[j.nblocks], 1u);
    sizes[i] = n == 0xFFFFFFFFu ? 0 : n;
}

/* Exclusive scan of the sizes by one thread block: each thread sums a
 * run of consecutive blocks, the runs' sums are scanned in shared memory,
 * then each thread writes its run's offsets. */
constexpr int kScanThreads = 1024;
__global__ void scan_kernel(const uint32_t *sizes, uint32_t n, unsigned long long *offsets)
{
    __shared__ unsigned long long part[kScanThreads];
    const uint32_t per = (n + kScanThreads - 1) / kScanThreads;
    const uint32_t lo = threadIdx.x * per, hi = min(n, lo + per);
    unsigned long long sum = 0;
    for (uint32_t i = lo; i < hi; i++) sum += sizes[i];
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int d = 1; d < kScanThreads; d *= 2) {
        const unsigned long long add = threadIdx.x >= (unsigned)d ? part[threadIdx.x - d] : 0;
        __syncthreads();
        part[threadIdx.x] += add;
        __syncthreads();
    }
    unsigned long long off = part[threadIdx.x] - sum;
    for (uint32_t i = lo; i < hi; i++) {
        offsets[i] = off;
        off += sizes[i];
    }
    if (threadIdx.x == kScanThreads - 1) offsets[n] = part[threadIdx.x];
}

__global__ void move_kernel(const wcg_cblk *blocks, const uint8_t *slots, const uint32_t *sizes,
                            const unsigned long long *offsets, uint8_t *payload)
{
    const uint32_t i = blockIdx.x;
    const uint8_t *src = slots + blocks[i].slot;
    uint8_t *dst = payload + offsets[i];
    const uint32_t n = sizes[i];
    for (uint32_t t = threadIdx.x; t < n; t += blockDim.x) dst[t] = src[t];
}

__global__ void bands_kernel(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph)
{
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= pw) return;
    const uint32_t bw = pw / 8, bh = ph / 8;
    const uint32_t u = x & 7, bx = x >> 3, v = y & 7, by = y >> 3;
    dst[(size_t)(v * bh + by) * pw + u * bw + bx] = src[(size_t)y * pw + x];
}

} /* namespace */

cudaError_t wcg_bc_count(const wcg_bc_job *job, unsigned long long *hist, cudaStream_t st)
{
    uint32_t most = 0;
    for (uint32_t c = 0; c < job->components; c++) most = job->count[c] > most ? job->count[c] : most;
    if (most == 0) return cudaSuccess;
    const size_t shmem = WCG_HIST * sizeof(uint32_t);
    cudaError_t e = cudaFuncSetAttribute(count_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)shmem);
    if (e != cudaSuccess) return e;
    const dim3 grid((most + kCountThreads - 1) / kCountThreads, job->components);
    count_kernel<<<grid, kCountThreads, shmem, st>>>(*job, hist);
    return cudaGetLastError();
}

cudaError_t wcg_bc_emit(const wcg_bc_job *job, const wcg_huf *tabs, uint8_t *slots,
                        uint32_t *sizes, cudaStream_t st)
{
    if (job->nblocks == 0) return cudaSuccess;
    emit_kernel<<<(job->nblocks + kEmitThreads - 1) / kEmitThreads, kEmitThreads, 0, st>>>(
        *job, tabs, slots, sizes);
    return cudaGetLastError();
}

cudaError_t wcg_bc_pack(const wcg_bc_job *job, const uint8_t *slots, const uint32_t *sizes,
                        unsigned long long *offsets, uint8_t *payload, cudaStream_t st)
{
    scan_kernel<<<1, kScanThreads, 0, st>>>(sizes, job->nblocks, offsets);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || job->nblocks == 0) return e;
    move_kernel<<<job->nblocks, 128, 0, st>>>(job->blocks, slots, sizes, offsets, payload);
    return cudaGetLastError();
}

cudaError_t wcg_blocks_to_bands(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph,
                                cudaStream_t st)
{
    if (pw == 0 || ph == 0) return cudaSuccess;
    bands_kernel<<<dim3((pw + 255) / 256, ph), 256, 0, st>>>(src, dst, pw, ph);
    return cudaGetLastError();
}
