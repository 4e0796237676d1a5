/*
 * crc32_kernels.cu -- the CRC-32 of each part of the packed payload
 * (crc32_cuda.h). A thread a window of kWindow bytes; the windows' terms
 * of a part are XORed across the warp, then the thread block, then into
 * the part's word with one atomic a thread block.
 */
#include "crc32_cuda.h"

namespace
{

constexpr uint32_t kPoly = 0xedb88320u; /* CRC-32, reflected (zlib's) */
constexpr unsigned kWindow = 512;       /* bytes a thread: a multiple of 4 */
constexpr unsigned kThreads = 256;

/* a * b mod P, bit-reversed polynomials (zlib's multmodp), without
 * branches: the 32 steps whatever a holds. */
__device__ uint32_t mult_mod_p(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
#pragma unroll
    for (int i = 0; i < 32; i++) {
        p ^= b & (0u - ((a >> (31 - i)) & 1u));
        b = (b >> 1) ^ (kPoly & (0u - (b & 1u)));
    }
    return p;
}

/* x^(2^k) mod P for k = 0..31 (zlib's x2n_table), at compile time. */
struct X2n {
    uint32_t v[32];
};
constexpr uint32_t host_mult_mod_p(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
    for (int i = 0; i < 32; i++) {
        p ^= b & (0u - ((a >> (31 - i)) & 1u));
        b = (b >> 1) ^ (kPoly & (0u - (b & 1u)));
    }
    return p;
}
constexpr X2n make_x2n()
{
    X2n t{};
    uint32_t p = 1u << 30; /* x^1 */
    for (int k = 0; k < 32; k++, p = host_mult_mod_p(p, p)) t.v[k] = p;
    return t;
}
constexpr X2n kX2n = make_x2n();

/* x^(8 n) mod P (zlib's x2nmodp(n, 3)); x2n[k] = x^(2^k) mod P. */
__device__ uint32_t x8n_mod_p(unsigned long long n, const uint32_t *x2n)
{
    uint32_t p = 1u << 31; /* x^0 */
    for (unsigned k = 3; n; n >>= 1, k++)
        if (n & 1) p = mult_mod_p(x2n[k & 31], p);
    return p;
}

__global__ void __launch_bounds__(kThreads)
    crc_kernel(const uint8_t *data, unsigned long long total, wcg_crc_parts parts, X2n x2n_table,
               uint32_t *acc)
{
    __shared__ uint32_t table[256], x2n[32], part_xor[kThreads / 32][4];
    for (unsigned i = threadIdx.x; i < 256; i += kThreads) {
        uint32_t c = i;
        for (int j = 0; j < 8; j++) c = (c >> 1) ^ (kPoly & (0u - (c & 1u)));
        table[i] = c;
    }
    if (threadIdx.x < 32) x2n[threadIdx.x] = x2n_table.v[threadIdx.x];
    __syncthreads();
    const unsigned long long lo =
        ((unsigned long long)blockIdx.x * kThreads + threadIdx.x) * kWindow;
    const unsigned long long hi = lo + kWindow < total ? lo + kWindow : total;
    const uint32_t *words = (const uint32_t *)data;
    for (uint32_t k = 0; k < parts.n; k++) {
        const unsigned long long a = lo > parts.start[k] ? lo : parts.start[k];
        const unsigned long long b = hi < parts.end[k] ? hi : parts.end[k];
        uint32_t term = 0;
        if (a < b) {
            uint32_t r = 0;
            for (unsigned long long w = a & ~3ull; w < b; w += 4) {
                const uint32_t v = words[w / 4];
                for (unsigned j = 0; j < 4; j++) {
                    const unsigned long long at = w + j;
                    if (at >= a && at < b) r = table[(r ^ (v >> (8 * j))) & 0xff] ^ (r >> 8);
                }
            }
            term = mult_mod_p(x8n_mod_p(parts.end[k] - b, x2n), r);
            if (a == parts.start[k]) /* the initial ~0, moved past the part */
                term ^= mult_mod_p(x8n_mod_p(parts.end[k] - parts.start[k], x2n), 0xffffffffu);
        }
        term = __reduce_xor_sync(0xffffffffu, term);
        if ((threadIdx.x & 31) == 0) part_xor[threadIdx.x / 32][k] = term;
    }
    __syncthreads();
    if (threadIdx.x < parts.n) {
        uint32_t t = 0;
        for (unsigned w = 0; w < kThreads / 32; w++) t ^= part_xor[w][threadIdx.x];
        if (t) atomicXor(&acc[threadIdx.x], t);
    }
}

} // namespace

cudaError_t wcg_crc32_parts(const uint8_t *data, const wcg_crc_parts *parts, uint32_t *acc,
                            cudaStream_t st)
{
    if (parts->n == 0 || parts->n > 4) return cudaErrorInvalidValue;
    const unsigned long long total = parts->end[parts->n - 1];
    if (total == 0) return cudaSuccess;
    const unsigned long long per_block = (unsigned long long)kThreads * kWindow;
    const unsigned long long blocks = (total + per_block - 1) / per_block;
    if (blocks > 0x7fffffffull) return cudaErrorInvalidValue;
    crc_kernel<<<(unsigned)blocks, kThreads, 0, st>>>(data, total, *parts, kX2n, acc);
    return cudaGetLastError();
}
