/*
 * tables_kernels.cu -- tables_cuda.h: the twin of stage/entropy_stage.c's
 * build_table on the device, a thread a table (675 for an RGB image: the
 * host took 1.3-2.5 ms with its threads' start-up, a round trip and two
 * waits; PERF_NOTES t1). Every step is entropy/huffman.c's, in the same
 * order and integer types, so the codes and therefore the files are the
 * CPU's (tests/gpu/test_cuda_chain.c compares the bytes).
 */
extern "C" {
#include "huffman.h"
}

#include "tables_cuda.h"

namespace
{

static_assert(WCG_NSYM <= HUF_MAX_SYMS, "the coder's alphabet fits huffman.c's");
static_assert(sizeof(wcg_huf) == sizeof(huf_enc), "wcg_huf mirrors huf_enc");

/* Lists of package-merge hold at most 2n - 2 items, n <= WCG_NSYM. */
constexpr unsigned kList = 2 * WCG_NSYM;

/* huf_sort_used: used symbols by ascending count, the higher symbol first
 * on equal counts (insertion sort). */
__device__ unsigned sort_used(const uint32_t *freq, unsigned nsym, uint8_t *order)
{
    unsigned n = 0;
    for (unsigned s = 0; s < nsym; s++) {
        if (freq[s] == 0) continue;
        unsigned i = n++;
        while (i > 0 && freq[order[i - 1]] >= freq[s]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = (uint8_t)s;
    }
    return n;
}

__device__ unsigned min_len(unsigned n)
{
    unsigned l = 0;
    while ((1u << l) < n) l++;
    return l;
}

/* huf_package_merge, line for line. */
__device__ void package_merge(const uint32_t *freq, const uint8_t *order, unsigned n,
                              unsigned levels, uint8_t *len)
{
    uint8_t is_pkg[HUF_MAX_LEN][kList];
    uint64_t weight[2][kList];
    unsigned cnt[HUF_MAX_LEN];
    const unsigned keep = 2 * n - 2;
    unsigned cur = 0;
    for (unsigned i = 0; i < n; i++) {
        weight[cur][i] = freq[order[i]];
        is_pkg[levels - 1][i] = 0;
    }
    cnt[levels - 1] = n < keep ? n : keep;
    for (unsigned d = levels - 1; d-- > 0;) {
        const uint64_t *below = weight[cur];
        uint64_t *w = weight[cur ^ 1];
        unsigned npkg = cnt[d + 1] / 2, i = 0, j = 0, k = 0;
        while (k < keep && (i < n || j < npkg)) {
            uint64_t pw = j < npkg ? below[2 * j] + below[2 * j + 1] : 0;
            int leaf = j == npkg || (i < n && freq[order[i]] <= pw);
            w[k] = leaf ? freq[order[i]] : pw;
            is_pkg[d][k++] = (uint8_t)!leaf;
            if (leaf)
                i++;
            else
                j++;
        }
        cnt[d] = k;
        cur ^= 1;
    }
    unsigned need = keep;
    for (unsigned d = 0; d < levels && need > 0; d++) {
        unsigned leaves = 0;
        for (unsigned k = 0; k < need; k++) leaves += !is_pkg[d][k];
        for (unsigned k = 0; k < leaves; k++) len[order[k]]++;
        need = 2 * (need - leaves);
    }
}

/* huf_build_lengths with nsym = WCG_NSYM, max_len = HUF_MAX_LEN. */
__device__ void build_lengths(const uint32_t *freq, uint8_t *len)
{
    uint8_t order[WCG_NSYM];
    for (unsigned s = 0; s < WCG_NSYM; s++) len[s] = 0;
    const unsigned n = sort_used(freq, WCG_NSYM, order);
    if (n == 0) return;
    if (n == 1) {
        len[order[0]] = 1;
        return;
    }
    unsigned levels = HUF_MAX_LEN;
    if (levels < min_len(n)) levels = min_len(n);
    package_merge(freq, order, n, levels, len);
}

__device__ unsigned reverse_bits(unsigned code, unsigned n)
{
    unsigned r = 0;
    for (unsigned i = 0; i < n; i++) {
        r = (r << 1) | (code & 1);
        code >>= 1;
    }
    return r;
}

/* huf_enc_build into a zeroed table. */
__device__ void enc_build(wcg_huf *enc, const uint8_t *len)
{
    unsigned count[HUF_MAX_LEN + 1] = {0}, next[HUF_MAX_LEN + 1], used = 0;
    for (unsigned s = 0; s < WCG_NSYM; s++)
        if (len[s] >= 1 && len[s] <= HUF_MAX_LEN) {
            count[len[s]]++;
            used++;
        }
    if (used < 2) return; /* one symbol: zero bits; none: nothing to code */
    unsigned code = 0;
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        code = (code + count[l - 1]) << 1;
        next[l] = code;
    }
    for (unsigned s = 0; s < WCG_NSYM; s++) {
        const unsigned l = len[s];
        if (l < 1 || l > HUF_MAX_LEN) continue;
        enc->code[s] = (uint16_t)reverse_bits(next[l]++, l);
        enc->bits[s] = (uint8_t)l;
    }
}

/* build_table: table i from its counts (clamped to 32 bits as there). */
__global__ void tables_kernel(const unsigned long long *hist, uint32_t ntab, wcg_huf *tabs,
                              uint8_t *lens)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ntab) return;
    const unsigned long long *n = hist + (size_t)i * WCG_NSYM;
    uint32_t f[WCG_NSYM];
    unsigned long long any = 0;
    for (unsigned s = 0; s < WCG_NSYM; s++) {
        f[s] = n[s] > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)n[s];
        any |= n[s];
    }
    uint8_t len[WCG_NSYM];
    wcg_huf enc;
    for (unsigned s = 0; s < 128; s++) enc.code[s] = 0, enc.bits[s] = 0;
    if (any) {
        build_lengths(f, len);
        enc_build(&enc, len);
    } else {
        for (unsigned s = 0; s < WCG_NSYM; s++) len[s] = 0;
    }
    for (unsigned s = 0; s < WCG_NSYM; s++) lens[(size_t)i * WCG_NSYM + s] = len[s];
    tabs[i] = enc;
}

} /* namespace */

cudaError_t wcg_build_tables(const unsigned long long *hist, uint32_t ntab, wcg_huf *tabs,
                             uint8_t *lens, cudaStream_t st)
{
    if (ntab == 0) return cudaSuccess;
    const unsigned threads = 8; /* 85 blocks for 675 tables: every SM a few */
    tables_kernel<<<(ntab + threads - 1) / threads, threads, 0, st>>>(hist, ntab, tabs, lens);
    return cudaGetLastError();
}
