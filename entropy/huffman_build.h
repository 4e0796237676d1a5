/*
 * huffman_build.h -- code lengths from counts (package-merge) and
 * canonical codes from lengths: the steps huffman.c's huf_build_lengths
 * and huf_enc_build take, written once for the host and the device
 * (WC_HOSTDEV), so the CUDA backend's table kernel (cuda/tables_kernels.cu,
 * a thread a table) makes the CPU's codes and therefore the CPU's files.
 * Lengths come from package-merge (Larmore & Hirschberg, "coin
 * collector"): optimal under the length limit and, for two or more
 * symbols, a Kraft sum of exactly 1. All orders are total orders on
 * (count, symbol), so the lengths depend on the counts alone.
 */
#ifndef WC_HUFFMAN_BUILD_H
#define WC_HUFFMAN_BUILD_H

#include <string.h>

#include "hostdev.h"
#include "huffman.h"

#define HUF_LIST_MAX (2 * HUF_MAX_SYMS)

/* Orders the used symbols by ascending count; on equal counts the higher
 * symbol comes first, so it is the one that gets the longer code and low
 * symbols (usually the frequent small magnitudes) stay short. Insertion
 * sort: at most HUF_MAX_SYMS (128) entries, and stable by construction. */
WC_HOSTDEV unsigned huf_sort_used(const uint32_t *freq, unsigned nsym, uint8_t *order)
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

/* Smallest L with 2^L >= n: below it no prefix code exists. */
WC_HOSTDEV unsigned huf_min_len(unsigned n)
{
    unsigned l = 0;
    while ((1u << l) < n) l++;
    return l;
}

/* Package-merge. Level d (0 = depth 1 .. levels-1 = deepest) holds a list
 * of items sorted by weight: the leaves merged with the pairs ("packages")
 * of level d+1's list, a leaf before a package of equal weight. Only the
 * first 2n-2 items of any list can ever be chosen, so lists stop there.
 * The solution takes the first 2n-2 items of level 0; each package chosen
 * at level d stands for two items chosen at level d+1. A symbol's code
 * length is the number of levels at which its leaf is chosen, and since
 * leaves keep their order inside every list, the chosen leaves of a level
 * are always a prefix of order[]. */
/* memcmp of two weight lists (memcmp has no device version). */
WC_HOSTDEV int huf_same_weights(const uint64_t *a, const uint64_t *b, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        if (a[k] != b[k]) return 0;
    return 1;
}

WC_HOSTDEV void huf_package_merge(const uint32_t *freq, const uint8_t *order, unsigned n,
                                  unsigned levels, uint8_t *len)
{
    /* +1 leaf and +2 items: the sentinels that let the merge run without
     * checking which list ran out (the whole encoder's tables, one image
     * after another, on one host thread in a batch). */
    uint8_t is_pkg[HUF_MAX_LEN][HUF_LIST_MAX];
    uint64_t weight[2][HUF_LIST_MAX + 2], leaf_w[HUF_MAX_SYMS + 1];
    unsigned cnt[HUF_MAX_LEN];
    unsigned keep = 2 * n - 2;

    for (unsigned i = 0; i < n; i++) leaf_w[i] = freq[order[i]];
    leaf_w[n] = UINT64_MAX; /* never taken while a package is left */
    unsigned cur = 0;
    memcpy(weight[cur], leaf_w, n * sizeof leaf_w[0]);
    memset(is_pkg[levels - 1], 0, n);
    cnt[levels - 1] = n < keep ? n : keep;
    for (unsigned d = levels - 1; d-- > 0;) {
        uint64_t *below = weight[cur];
        uint64_t *w = weight[cur ^ 1];
        unsigned npkg = cnt[d + 1] / 2, i = 0, j = 0;
        /* The package after the last weighs UINT64_MAX: a leaf (<=) wins.
         * below[2 * npkg] is at most the unpaired last item, unused. */
        const uint64_t saved[2] = {below[2 * npkg], below[2 * npkg + 1]};
        below[2 * npkg] = UINT64_MAX;
        below[2 * npkg + 1] = 0;
        unsigned total = n + npkg, end = keep < total ? keep : total;
        uint8_t *pk = is_pkg[d];
        for (unsigned k = 0; k < end; k++) {
            uint64_t pw = below[2 * j] + below[2 * j + 1], lw = leaf_w[i];
            unsigned leaf = lw <= pw;
            w[k] = leaf ? lw : pw;
            pk[k] = (uint8_t)!leaf;
            i += leaf;
            j += !leaf;
        }
        below[2 * npkg] = saved[0];
        below[2 * npkg + 1] = saved[1];
        cnt[d] = end;
        cur ^= 1;
        /* A level's list is a function of the list below it alone: once
         * two neighbours are equal, every level above repeats this one.
         * Tables whose codes are much shorter than the limit (most) get
         * there levels early. */
        if (d > 0 && end == cnt[d + 1] && huf_same_weights(w, below, end)) {
            for (unsigned e = d; e-- > 0;) {
                memcpy(is_pkg[e], is_pkg[d], end);
                cnt[e] = end;
            }
            break;
        }
    }

    unsigned need = keep;
    for (unsigned d = 0; d < levels && need > 0; d++) {
        unsigned leaves = 0;
        for (unsigned k = 0; k < need; k++) leaves += !is_pkg[d][k];
        for (unsigned k = 0; k < leaves; k++) len[order[k]]++;
        need = 2 * (need - leaves);
    }
}

WC_HOSTDEV void huf_lengths_build(const uint32_t *freq, unsigned nsym, unsigned max_len,
                                  uint8_t *len)
{
    uint8_t order[HUF_MAX_SYMS];
    memset(len, 0, nsym);
    if (nsym > HUF_MAX_SYMS) nsym = HUF_MAX_SYMS;
    unsigned n = huf_sort_used(freq, nsym, order);
    if (n == 0) return;
    if (n == 1) {
        len[order[0]] = 1;
        return;
    }
    unsigned levels = max_len > HUF_MAX_LEN ? HUF_MAX_LEN : max_len;
    if (levels < huf_min_len(n)) levels = huf_min_len(n);
    huf_package_merge(freq, order, n, levels, len);
}

WC_HOSTDEV unsigned huf_reverse(unsigned code, unsigned n)
{
    unsigned r = 0;
    for (unsigned i = 0; i < n; i++) {
        r = (r << 1) | (code & 1);
        code >>= 1;
    }
    return r;
}

WC_HOSTDEV void huf_codes_build(huf_enc *enc, const uint8_t *len, unsigned nsym)
{
    unsigned count[HUF_MAX_LEN + 1] = {0}, next[HUF_MAX_LEN + 1], used = 0;
    memset(enc, 0, sizeof *enc);
    if (nsym > HUF_MAX_SYMS) nsym = HUF_MAX_SYMS;
    for (unsigned s = 0; s < nsym; s++) {
        if (len[s] >= 1 && len[s] <= HUF_MAX_LEN) {
            count[len[s]]++;
            used++;
        }
    }
    if (used < 2) return; /* one symbol: zero bits; none: nothing to code */
    unsigned code = 0;
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        code = (code + count[l - 1]) << 1;
        next[l] = code;
    }
    for (unsigned s = 0; s < nsym; s++) {
        unsigned l = len[s];
        if (l < 1 || l > HUF_MAX_LEN) continue;
        enc->code[s] = (uint16_t)huf_reverse(next[l]++, l);
        enc->bits[s] = (uint8_t)l;
    }
}

#endif
