/*
 * tables_kernels.cu -- tables_cuda.h: the twin of stage/entropy_stage.c's
 * build_table on the device (675 tables for an RGB image: the host took
 * 1.3-2.5 ms with its threads' start-up, a round trip and two waits;
 * PERF_NOTES t1).
 *
 * A warp a table (the default): the same package-merge lists as
 * entropy/huffman_build.h, built in parallel. The sort is a rank per
 * symbol (its place in huf_sort_used's total order), and each level's
 * merge places every leaf and package at its index plus the number of
 * items of the other list that precede it, found by binary search (both
 * lists are sorted; a leaf precedes a package of equal weight). These
 * are the serial merge's lists item for item, so the lengths, codes and
 * files are the CPU's: cuda/test_tables.cu compares every table with
 * huffman.c's on hostile counts, and tests/gpu/test_cuda_chain.c the
 * files. A thread a table (WC_CUDA_TABLES=thread) runs huffman_build.h
 * itself: 0.21-0.27 ms on the 8K photo, a thread's serial package-merge
 * in local memory.
 */
#include <cstdlib>
#include <cstring>

extern "C" {
#include "huffman.h"
}
#include "huffman_build.h"

#include "tables_cuda.h"

namespace
{

static_assert(WCG_NSYM <= HUF_MAX_SYMS, "the coder's alphabet fits huffman.c's");
static_assert(sizeof(wcg_huf) == sizeof(huf_enc), "wcg_huf mirrors huf_enc");

/* Counts clamped to 32 bits, as build_table does. */
__device__ __forceinline__ uint32_t clamp32(unsigned long long n)
{
    return n > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)n;
}

/* build_table: table i from its counts, a thread a table. */
__global__ void tables_thread_kernel(const unsigned long long *hist, uint32_t ntab, wcg_huf *tabs,
                                     uint8_t *lens)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ntab) return;
    const unsigned long long *n = hist + (size_t)i * WCG_NSYM;
    uint32_t f[WCG_NSYM];
    unsigned long long any = 0;
    for (unsigned s = 0; s < WCG_NSYM; s++) {
        f[s] = clamp32(n[s]);
        any |= n[s];
    }
    uint8_t len[WCG_NSYM];
    huf_enc enc;
    if (any) {
        huf_lengths_build(f, WCG_NSYM, HUF_MAX_LEN, len);
        huf_codes_build(&enc, len, WCG_NSYM);
    } else {
        memset(len, 0, sizeof len);
        memset(&enc, 0, sizeof enc);
    }
    for (unsigned s = 0; s < WCG_NSYM; s++) lens[(size_t)i * WCG_NSYM + s] = len[s];
    memcpy(&tabs[i], &enc, sizeof enc);
}

constexpr int kTableWarps = 4;             /* warps (tables) a thread block */
constexpr int kGroups = HUF_MAX_SYMS / 32; /* symbols a lane: s = 32 g + lane */
constexpr unsigned kFull = 0xFFFFFFFFu;
static_assert(HUF_MAX_SYMS % 32 == 0, "whole groups of lanes");

/* One warp's working set (~8.4 KB): huffman_build.h's arrays. */
struct table_scratch {
    unsigned long long weight[2][HUF_LIST_MAX + 2];
    unsigned long long leaf_w[HUF_MAX_SYMS + 1];
    uint32_t f[HUF_MAX_SYMS];
    uint8_t is_pkg[HUF_MAX_LEN][HUF_LIST_MAX];
    uint8_t order[HUF_MAX_SYMS];
    uint8_t len[HUF_MAX_SYMS];
    unsigned cnt[HUF_MAX_LEN];
};

/* How many of items 0..n-1 come before, where before(i) holds for a
 * prefix of them (both merged lists are sorted): a binary search. */
template <class Before> __device__ __forceinline__ unsigned count_before(unsigned n, Before before)
{
    unsigned lo = 0, hi = n;
    while (lo < hi) {
        const unsigned mid = (lo + hi) >> 1;
        const bool b = before(mid);
        lo = b ? mid + 1 : lo;
        hi = b ? hi : mid;
    }
    return lo;
}

/* huf_package_merge over n >= 2 symbols, the lists in parallel. */
__device__ void package_merge_warp(table_scratch &t, unsigned n, unsigned levels, unsigned lane)
{
    const unsigned keep = 2 * n - 2;
    for (unsigned i = lane; i < n; i += 32) {
        t.leaf_w[i] = t.f[t.order[i]];
        t.weight[0][i] = t.leaf_w[i];
        t.is_pkg[levels - 1][i] = 0;
    }
    if (lane == 0) t.cnt[levels - 1] = n < keep ? n : keep;
    __syncwarp();
    unsigned cur = 0;
    for (unsigned d = levels - 1; d-- > 0;) {
        const unsigned long long *below = t.weight[cur];
        unsigned long long *w = t.weight[cur ^ 1];
        const unsigned npkg = t.cnt[d + 1] / 2, total = n + npkg;
        const unsigned end = keep < total ? keep : total;
        uint8_t *pk = t.is_pkg[d];
        for (unsigned i = lane; i < n; i += 32) { /* leaves: after lighter packages */
            const unsigned long long lw = t.leaf_w[i];
            const unsigned at = i + count_before(npkg, [&](unsigned j) {
                                    return below[2 * j] + below[2 * j + 1] < lw;
                                });
            if (at < end) {
                w[at] = lw;
                pk[at] = 0;
            }
        }
        for (unsigned j = lane; j < npkg; j += 32) { /* packages: after leaves <= them */
            const unsigned long long pw = below[2 * j] + below[2 * j + 1];
            const unsigned at = j + count_before(n, [&](unsigned i) { return t.leaf_w[i] <= pw; });
            if (at < end) {
                w[at] = pw;
                pk[at] = 1;
            }
        }
        if (lane == 0) t.cnt[d] = end;
        __syncwarp();
        cur ^= 1;
        /* huf_package_merge's early end: once two neighbouring lists are
         * equal, every level above repeats them. */
        bool same = end == t.cnt[d + 1];
        for (unsigned k = lane; same && k < end; k += 32) same = w[k] == below[k];
        if (d > 0 && __all_sync(kFull, same)) {
            for (unsigned e = d; e-- > 0;) {
                for (unsigned k = lane; k < end; k += 32) t.is_pkg[e][k] = pk[k];
                if (lane == 0) t.cnt[e] = end;
            }
            __syncwarp();
            break;
        }
        /* The next level writes into `below`, which this check read (a
         * vote orders no memory: racecheck saw the hazard). */
        __syncwarp();
    }
    /* Lengths: a leaf chosen at a level adds one bit; the chosen leaves of
     * a level are a prefix of order[]. */
    unsigned need = keep;
    for (unsigned d = 0; d < levels && need > 0; d++) {
        unsigned leaves = 0;
        for (unsigned k0 = 0; k0 < need; k0 += 32) {
            const unsigned k = k0 + lane;
            leaves += __popc(__ballot_sync(kFull, k < need && !t.is_pkg[d][k]));
        }
        for (unsigned k = lane; k < leaves; k += 32) t.len[t.order[k]]++;
        __syncwarp();
        need = 2 * (need - leaves);
    }
}

/* build_table: table blockIdx.x * kTableWarps + warp, a warp a table. */
__global__ void __launch_bounds__(32 * kTableWarps)
    tables_warp_kernel(const unsigned long long *hist, uint32_t ntab, wcg_huf *tabs, uint8_t *lens)
{
    __shared__ table_scratch scratch[kTableWarps];
    const unsigned lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const uint32_t i = blockIdx.x * kTableWarps + wid;
    if (i >= ntab) return; /* whole warps: only __syncwarp below */
    table_scratch &t = scratch[wid];
    const unsigned long long *h = hist + (size_t)i * WCG_NSYM;
    unsigned used[kGroups];
    unsigned n = 0;
    for (int g = 0; g < kGroups; g++) {
        const unsigned s = 32 * g + lane;
        const uint32_t f = s < WCG_NSYM ? clamp32(h[s]) : 0;
        t.f[s] = f;
        t.len[s] = 0;
        used[g] = __ballot_sync(kFull, f != 0);
        n += __popc(used[g]);
    }
    __syncwarp();
    /* huf_sort_used's order: ascending count, the higher symbol first on
     * equal counts; each used symbol's rank is its index. */
    for (int g = 0; g < kGroups; g++) {
        const unsigned s = 32 * g + lane;
        const uint32_t f = t.f[s];
        if (f == 0) continue;
        unsigned rank = 0;
        for (unsigned u = 0; u < WCG_NSYM; u++) {
            const uint32_t fu = t.f[u];
            rank += fu != 0 && (fu < f || (fu == f && u > s));
        }
        t.order[rank] = (uint8_t)s;
    }
    __syncwarp();
    if (n == 1) {
        if (lane == 0) t.len[t.order[0]] = 1;
        __syncwarp();
    } else if (n > 1) {
        unsigned levels = HUF_MAX_LEN;
        if (levels < huf_min_len(n)) levels = huf_min_len(n);
        package_merge_warp(t, n, levels, lane);
    }
    /* huf_codes_build: canonical codes, the counts per length by ballot,
     * a symbol's code its length's first code plus the lower symbols of
     * its length. */
    uint8_t *out_len = lens + (size_t)i * WCG_NSYM;
    for (int g = 0; g < kGroups; g++) {
        const unsigned s = 32 * g + lane;
        if (s < WCG_NSYM) out_len[s] = t.len[s];
    }
    unsigned count[HUF_MAX_LEN + 1], codes = 0;
    count[0] = 0;
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        count[l] = 0;
        for (int g = 0; g < kGroups; g++)
            count[l] += __popc(__ballot_sync(kFull, t.len[32 * g + lane] == l));
        codes += count[l];
    }
    unsigned next[HUF_MAX_LEN + 1], code = 0;
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        code = (code + count[l - 1]) << 1;
        next[l] = code;
    }
    wcg_huf &e = tabs[i];
    for (int g = 0; g < kGroups; g++) {
        const unsigned s = 32 * g + lane, l = t.len[s];
        uint16_t c = 0;
        uint8_t b = 0;
        if (codes >= 2 && l >= 1 && l <= HUF_MAX_LEN) {
            unsigned before = 0;
            for (unsigned u = 0; u < s; u++) before += t.len[u] == l;
            c = (uint16_t)huf_reverse(next[l] + before, l);
            b = (uint8_t)l;
        }
        e.code[s] = c;
        e.bits[s] = b;
    }
}

/* WC_CUDA_TABLES=thread: a thread a table (the version before w1); read
 * at every call, so the bench's variants switch it in one process. */
bool tables_by_thread()
{
    const char *e = getenv("WC_CUDA_TABLES");
    return e && strcmp(e, "thread") == 0;
}

} /* namespace */

cudaError_t wcg_build_tables(const unsigned long long *hist, uint32_t ntab, wcg_huf *tabs,
                             uint8_t *lens, cudaStream_t st)
{
    if (ntab == 0) return cudaSuccess;
    if (tables_by_thread()) {
        const unsigned threads = 8; /* 85 blocks for 675 tables: every SM a few */
        tables_thread_kernel<<<(ntab + threads - 1) / threads, threads, 0, st>>>(hist, ntab, tabs,
                                                                                 lens);
    } else {
        tables_warp_kernel<<<(ntab + kTableWarps - 1) / kTableWarps, 32 * kTableWarps, 0, st>>>(
            hist, ntab, tabs, lens);
    }
    return cudaGetLastError();
}
