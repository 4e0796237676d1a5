/*
 * test_huf_lengths.c -- huf_build_lengths against the package-merge it
 * replaced (the merge now runs on sentinels instead of checking which list
 * ran out): the same code lengths, so the same files, on random
 * histograms of every size and shape and every length limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "huffman.h"
#include "test_support.h"

#define LIST_MAX (2 * HUF_MAX_SYMS)

/* The old huffman.c, verbatim: sort, then package-merge. */
static unsigned old_sort_used(const uint32_t *freq, unsigned nsym, uint8_t *order)
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

static void old_package_merge(const uint32_t *freq, const uint8_t *order, unsigned n,
                              unsigned levels, uint8_t *len)
{
    uint8_t is_pkg[HUF_MAX_LEN][LIST_MAX];
    uint64_t weight[2][LIST_MAX];
    unsigned cnt[HUF_MAX_LEN];
    unsigned keep = 2 * n - 2;
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

static void old_build_lengths(const uint32_t *freq, unsigned nsym, unsigned max_len, uint8_t *len)
{
    uint8_t order[HUF_MAX_SYMS];
    memset(len, 0, nsym);
    if (nsym > HUF_MAX_SYMS) nsym = HUF_MAX_SYMS;
    unsigned n = old_sort_used(freq, nsym, order);
    if (n == 0) return;
    if (n == 1) {
        len[order[0]] = 1;
        return;
    }
    unsigned levels = max_len > HUF_MAX_LEN ? HUF_MAX_LEN : max_len, min = 0;
    while ((1u << min) < n) min++;
    if (levels < min) levels = min;
    old_package_merge(freq, order, n, levels, len);
}

static void test_same_lengths_as_old(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 16);
    unsigned limited = 0;
    for (int round = 0; round < 200000; round++) {
        uint32_t f[HUF_MAX_SYMS] = {0};
        unsigned nsym = 1 + test_rng_u32(&r) % HUF_MAX_SYMS;
        unsigned used = 1 + test_rng_u32(&r) % nsym, kind = test_rng_u32(&r) % 5;
        for (unsigned k = 0; k < used; k++) {
            unsigned s = test_rng_u32(&r) % nsym;
            switch (kind) {
            case 0: f[s] += 1 + test_rng_u32(&r) % 1000; break;              /* dense */
            case 1: f[s] += 1 + test_rng_u32(&r) % 2; break;                 /* ties */
            case 2: f[s] += 1u << (test_rng_u32(&r) % 31); break;            /* skewed */
            case 3: f[s] = 0xFFFFFFFFu - test_rng_u32(&r) % 3; break;        /* huge */
            default: f[s] += (uint32_t)(1000000.0 / (1 + k * k)) + 1; break; /* geometric */
            }
        }
        unsigned max_len = 1 + test_rng_u32(&r) % (HUF_MAX_LEN + 2);
        uint8_t want[HUF_MAX_SYMS], got[HUF_MAX_SYMS];
        old_build_lengths(f, nsym, max_len, want);
        huf_build_lengths(f, nsym, max_len, got);
        if (memcmp(want, got, nsym) != 0)
            fail_msg("round %d: %u symbols, limit %u: lengths differ", round, nsym, max_len);
        unsigned longest = 0;
        for (unsigned s = 0; s < nsym; s++) longest = got[s] > longest ? got[s] : longest;
        limited += longest == max_len && max_len > 2;
    }
    assert_true(limited > 1000); /* the length limit was reached often */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_lengths_as_old),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
