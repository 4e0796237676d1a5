/* test_huffman.c -- code lengths, canonical codes, decoding, length tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "huffman.h"
#include "test_support.h"

#define NSYM_TEST 4000
#define SENTINEL 0xC0DEF00Du
/* Width of the length table's "end" field (huffman.c's format): pinned
 * here on purpose, so a format change shows up as a test change. */
#define END_BITS 8
/* Largest serialised length table: the end field, then a 6-bit raw length
 * for every symbol. */
#define TABLE_MAX_BYTES ((END_BITS + 6 * HUF_MAX_SYMS + 7) / 8)

/* Kraft sum in units of 2^-HUF_MAX_LEN. */
static uint32_t kraft(const uint8_t *len, unsigned nsym)
{
    uint32_t k = 0;
    for (unsigned s = 0; s < nsym; s++)
        if (len[s]) k += 1u << (HUF_MAX_LEN - len[s]);
    return k;
}

static uint64_t cost(const uint32_t *freq, const uint8_t *len, unsigned nsym)
{
    uint64_t c = 0;
    for (unsigned s = 0; s < nsym; s++) c += (uint64_t)freq[s] * len[s];
    return c;
}

/* The optimum by dynamic programming, independent of package-merge: with
 * the used counts sorted descending, lengths are non-decreasing, so walk
 * the levels top-down deciding how many of the a nodes at depth d become
 * leaves; the others split into 2 nodes each at depth d+1. */
static uint64_t optimal_cost(const uint32_t *freq, unsigned nsym, unsigned max_len)
{
    static uint64_t dp[HUF_MAX_LEN + 2][HUF_MAX_SYMS + 1][HUF_MAX_SYMS + 1];
    uint32_t f[HUF_MAX_SYMS];
    unsigned n = 0;
    for (unsigned s = 0; s < nsym; s++)
        if (freq[s]) f[n++] = freq[s];
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && f[j - 1] < f[j]; j--) {
            uint32_t t = f[j];
            f[j] = f[j - 1];
            f[j - 1] = t;
        }
    if (n < 2) return n == 1 ? f[0] : 0; /* length 1 by convention */
    const uint64_t inf = UINT64_MAX / 4;
    for (unsigned d = max_len + 1; d >= 1; d--) {
        for (unsigned i = 0; i <= n; i++) {
            for (unsigned a = 0; a <= n - i; a++) {
                if (i == n) {
                    dp[d][i][a] = 0;
                    continue;
                }
                if (d > max_len) {
                    dp[d][i][a] = inf;
                    continue;
                }
                uint64_t best = inf, sum = 0;
                for (unsigned k = 0; k <= a && i + k <= n; k++) {
                    if (k) sum += f[i + k - 1];
                    unsigned next = 2 * (a - k);
                    if (next > n - i - k) next = n - i - k;
                    uint64_t c = sum * d + dp[d + 1][i + k][next];
                    if (c < best) best = c;
                }
                dp[d][i][a] = best;
            }
        }
    }
    return dp[1][0][2];
}

/* Exhaustive search over all length vectors for tiny alphabets. */
static uint64_t brute_cost(const uint32_t *freq, unsigned n, unsigned max_len)
{
    uint8_t len[8];
    uint64_t best = UINT64_MAX;
    memset(len, 1, sizeof len);
    for (;;) {
        if (kraft(len, n) <= (1u << HUF_MAX_LEN)) {
            uint64_t c = cost(freq, len, n);
            if (c < best) best = c;
        }
        unsigned i = 0;
        while (i < n && len[i] == max_len) len[i++] = 1;
        if (i == n) return best;
        len[i]++;
    }
}

/* ceil(log2(n)): the shortest limit under which n symbols fit. */
static unsigned min_len(unsigned n)
{
    unsigned l = 0;
    while ((1u << l) < n) l++;
    return l;
}

/* The limit huf_build_lengths must meet (huffman.h): max_len, capped at
 * HUF_MAX_LEN and raised to ceil(log2(used)) when too small for the used
 * symbols (128 symbols need 7 bits whatever the caller asks). For every
 * alphabet that fits under max_len this is max_len itself. */
static unsigned effective_limit(unsigned max_len, unsigned used)
{
    if (max_len > HUF_MAX_LEN) max_len = HUF_MAX_LEN;
    return max_len > min_len(used) ? max_len : min_len(used);
}

static void check_lengths(const uint32_t *freq, unsigned nsym, unsigned max_len, uint8_t *len)
{
    huf_build_lengths(freq, nsym, max_len, len);
    unsigned used = 0;
    for (unsigned s = 0; s < nsym; s++) used += freq[s] != 0;
    unsigned limit = effective_limit(max_len, used);
    for (unsigned s = 0; s < nsym; s++) {
        assert_true((len[s] != 0) == (freq[s] != 0));
        assert_true(len[s] <= limit);
    }
    if (used >= 2) assert_int_equal(kraft(len, nsym), 1u << HUF_MAX_LEN);
    if (used >= 2) assert_int_equal(cost(freq, len, nsym), optimal_cost(freq, nsym, limit));
}

/* Encodes syms[0..n) plus a 32-bit sentinel, decodes them back exactly. */
static void roundtrip_syms(const uint8_t *len, unsigned nsym, const uint8_t *syms, unsigned n)
{
    static uint8_t buf[NSYM_TEST * 2 + 16];
    huf_enc enc;
    huf_dec dec;
    wc_err err = {{0}};
    huf_enc_build(&enc, len, nsym);
    assert_int_equal(huf_dec_build(&dec, len, nsym, &err), WC_OK);
    bitw w;
    bitw_init(&w, buf, sizeof buf);
    for (unsigned i = 0; i < n; i++) huf_put(&w, &enc, syms[i]);
    bitw_put(&w, SENTINEL, 32);
    size_t size = bitw_flush(&w);
    assert_false(w.overflow);
    bitr r;
    bitr_init(&r, buf, size);
    for (unsigned i = 0; i < n; i++) assert_int_equal(huf_get(&r, &dec), syms[i]);
    assert_int_equal(bitr_get(&r, 32), SENTINEL);
    assert_false(bitr_overrun(&r));
}

/* Draws n symbols among the used ones, each used symbol at least once so
 * the longest codes (slow path) are exercised too. */
static unsigned draw_syms(test_rng *rng, const uint8_t *len, unsigned nsym, uint8_t *syms)
{
    unsigned n = 0;
    for (unsigned s = 0; s < nsym; s++)
        if (len[s]) syms[n++] = (uint8_t)s;
    if (n == 0) return 0;
    unsigned used = n;
    while (n < NSYM_TEST) syms[n++] = syms[test_rng_range(rng, 0, (int32_t)used - 1)];
    for (unsigned i = n - 1; i > 0; i--) {
        unsigned j = (unsigned)test_rng_range(rng, 0, (int32_t)i);
        uint8_t t = syms[i];
        syms[i] = syms[j];
        syms[j] = t;
    }
    return n;
}

static void test_zero_symbols(void **state)
{
    (void)state;
    uint32_t freq[10] = {0};
    uint8_t len[10];
    memset(len, 7, sizeof len);
    huf_build_lengths(freq, 10, 15, len);
    for (int s = 0; s < 10; s++) assert_int_equal(len[s], 0);
    huf_dec dec;
    wc_err err = {{0}};
    assert_int_equal(huf_dec_build(&dec, len, 10, &err), WC_ERR_CORRUPT);
    assert_true(err.msg[0] != '\0');
}

static void test_one_symbol(void **state)
{
    (void)state;
    uint32_t freq[48] = {0};
    freq[37] = 1000;
    uint8_t len[48];
    huf_build_lengths(freq, 48, 15, len);
    assert_int_equal(len[37], 1);
    assert_int_equal(kraft(len, 48), 1u << (HUF_MAX_LEN - 1));
    huf_enc enc;
    huf_enc_build(&enc, len, 48);
    assert_int_equal(enc.bits[37], 0);
    uint8_t buf[8];
    bitw w;
    bitw_init(&w, buf, sizeof buf);
    for (int i = 0; i < 100; i++) huf_put(&w, &enc, 37);
    assert_int_equal(bitw_flush(&w), 0);
    huf_dec dec;
    wc_err err = {{0}};
    assert_int_equal(huf_dec_build(&dec, len, 48, &err), WC_OK);
    const uint8_t data[2] = {0xA5, 0x5A};
    bitr r;
    bitr_init(&r, data, sizeof data);
    for (int i = 0; i < 100; i++) assert_int_equal(huf_get(&r, &dec), 37);
    assert_int_equal(bitr_get(&r, 16), 0x5AA5); /* nothing consumed */
    /* Any length marks the lone symbol: the encoder gives it zero bits. */
    len[37] = 9;
    assert_int_equal(huf_dec_build(&dec, len, 48, &err), WC_OK);
    huf_enc_build(&enc, len, 48);
    assert_int_equal(enc.bits[37], 0);
}

static void test_two_symbols(void **state)
{
    (void)state;
    uint32_t freq[5] = {0, 1, 0, 1000000, 0};
    uint8_t len[5];
    check_lengths(freq, 5, 15, len);
    assert_int_equal(len[1], 1);
    assert_int_equal(len[3], 1);
    const uint8_t syms[6] = {1, 3, 3, 1, 1, 3};
    roundtrip_syms(len, 5, syms, 6);
}

static void test_uniform(void **state)
{
    (void)state;
    uint32_t freq[HUF_MAX_SYMS];
    uint8_t len[HUF_MAX_SYMS];
    for (int s = 0; s < HUF_MAX_SYMS; s++) freq[s] = 77;
    check_lengths(freq, 64, 15, len);
    for (int s = 0; s < 64; s++) assert_int_equal(len[s], 6);
    /* 48 equal counts: 16 codes of 5 bits, 32 of 6; ties favour low
     * symbols with the shorter codes. */
    check_lengths(freq, 48, 15, len);
    for (int s = 0; s < 48; s++) assert_int_equal(len[s], s < 16 ? 5 : 6);
    /* The full alphabet: 128 codes of 7 bits, also when asked for 6 (the
     * limit is raised to ceil(log2(128)) = 7, see huffman.h). */
    check_lengths(freq, HUF_MAX_SYMS, 15, len);
    for (int s = 0; s < HUF_MAX_SYMS; s++) assert_int_equal(len[s], 7);
    check_lengths(freq, HUF_MAX_SYMS, 6, len);
    for (int s = 0; s < HUF_MAX_SYMS; s++) assert_int_equal(len[s], 7);
    /* 100 equal counts: 28 codes of 6 bits, 72 of 7 (28 * 2 + 72 = 128). */
    check_lengths(freq, 100, 15, len);
    for (int s = 0; s < 100; s++) assert_int_equal(len[s], s < 28 ? 6 : 7);
}

/* Fixed counts give fixed lengths and codes: the format depends on it. */
static void test_golden_codes(void **state)
{
    (void)state;
    const uint32_t freq[5] = {10, 10, 10, 10, 10};
    uint8_t len[5];
    huf_build_lengths(freq, 5, 15, len);
    const uint8_t want_len[5] = {2, 2, 2, 3, 3};
    assert_memory_equal(len, want_len, 5);
    huf_enc enc;
    huf_enc_build(&enc, len, 5);
    /* canonical 00, 01, 10, 110, 111, stored bit-reversed */
    const uint16_t want_code[5] = {0, 2, 1, 3, 7};
    for (int s = 0; s < 5; s++) {
        assert_int_equal(enc.code[s], want_code[s]);
        assert_int_equal(enc.bits[s], len[s]);
    }
    /* Two optimal answers (cost 20); a leaf before an equal package picks
     * the flatter one, not {1, 3, 3, 3, 4, 4}. */
    const uint32_t tie[6] = {3, 1, 1, 1, 1, 1};
    const uint8_t want_tie[6] = {2, 2, 3, 3, 3, 3};
    uint8_t len6[6];
    huf_build_lengths(tie, 6, 15, len6);
    assert_memory_equal(len6, want_tie, 6);
}

/* Fibonacci counts: unlimited Huffman would need 39-bit codes. */
static void test_fibonacci_limited(void **state)
{
    (void)state;
    uint32_t freq[40];
    uint8_t len[40], syms[NSYM_TEST];
    freq[0] = 1;
    freq[1] = 1;
    for (int s = 2; s < 40; s++) freq[s] = freq[s - 1] + freq[s - 2];
    for (unsigned max_len = 6; max_len <= 15; max_len++) {
        check_lengths(freq, 40, max_len, len);
        unsigned longest = 0;
        for (int s = 0; s < 40; s++) longest = len[s] > longest ? len[s] : longest;
        assert_int_equal(longest, max_len);
    }
    test_rng rng;
    test_rng_seed(&rng, 2);
    unsigned n = draw_syms(&rng, len, 40, syms);
    roundtrip_syms(len, 40, syms, n);
}

/* Tiny alphabets, tight limits: package-merge, the DP and an exhaustive
 * search agree on the optimum. */
static void test_optimal_small(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 3);
    for (int trial = 0; trial < 400; trial++) {
        unsigned n = (unsigned)test_rng_range(&rng, 2, 6);
        unsigned max_len = (unsigned)test_rng_range(&rng, n <= 4 ? 2 : 3, 5);
        uint32_t freq[8];
        uint8_t len[8];
        for (unsigned s = 0; s < n; s++) {
            int shape = trial % 3;
            freq[s] = shape == 0   ? (uint32_t)test_rng_range(&rng, 1, 10)
                      : shape == 1 ? 1u << test_rng_range(&rng, 0, 20)
                                   : (uint32_t)test_rng_range(&rng, 1, 1000000);
        }
        check_lengths(freq, n, max_len, len);
        assert_int_equal(cost(freq, len, n), brute_cost(freq, n, max_len));
    }
}

/* A hand-made code using every length up to 15: 1,2,...,14,15,15. */
static void test_max_length_codes(void **state)
{
    (void)state;
    uint8_t len[16], syms[NSYM_TEST];
    for (int s = 0; s < 15; s++) len[s] = (uint8_t)(s + 1);
    len[15] = 15;
    assert_int_equal(kraft(len, 16), 1u << HUF_MAX_LEN);
    test_rng rng;
    test_rng_seed(&rng, 4);
    unsigned n = draw_syms(&rng, len, 16, syms);
    roundtrip_syms(len, 16, syms, n);
    /* Reversed order of lengths too: long codes on the low symbols. */
    for (int s = 0; s < 16; s++) len[s] = (uint8_t)(s == 0 ? 15 : 16 - s);
    n = draw_syms(&rng, len, 16, syms);
    roundtrip_syms(len, 16, syms, n);
}

/* Random counts of many shapes on alphabets up to HUF_MAX_SYMS, limits 6
 * to 15; where more than 2^max_len symbols are used, check_lengths holds
 * the result to the raised limit ceil(log2(used)). */
static void test_random_roundtrips(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 5);
    uint8_t syms[NSYM_TEST];
    for (int trial = 0; trial < 600; trial++) {
        unsigned nsym =
            trial < 100 ? HUF_MAX_SYMS : (unsigned)test_rng_range(&rng, 2, HUF_MAX_SYMS);
        uint32_t freq[HUF_MAX_SYMS];
        uint8_t len[HUF_MAX_SYMS];
        double decay = 0.3 + 0.7 * test_rng_unit(&rng);
        double p = 1e9;
        for (unsigned s = 0; s < nsym; s++) {
            int zero = trial % 4 == 1 && test_rng_range(&rng, 0, 2) == 0;
            freq[s] = zero ? 0 : (uint32_t)(p * (0.5 + test_rng_unit(&rng))) + 1;
            p *= decay;
        }
        if (trial % 5 == 0) freq[nsym - 1] = 0xFFFFFFFFu; /* extreme count */
        unsigned max_len = (unsigned)test_rng_range(&rng, 6, 15);
        check_lengths(freq, nsym, max_len, len);
        unsigned n = draw_syms(&rng, len, nsym, syms);
        if (n) roundtrip_syms(len, nsym, syms, n);
    }
}

/* The lengths are a function of the counts only, and equal counts in a
 * different buffer, at a different time, give the same bytes. */
static void test_determinism(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 6);
    for (int trial = 0; trial < 100; trial++) {
        /* The full alphabet, or a smaller one: then only len[0..nsym) may
         * be written, and the encoder tables still come out whole. */
        unsigned nsym = trial % 2 ? HUF_MAX_SYMS : (unsigned)test_rng_range(&rng, 1, HUF_MAX_SYMS);
        uint32_t a[HUF_MAX_SYMS], b[HUF_MAX_SYMS + 1];
        uint8_t la[HUF_MAX_SYMS], lb[HUF_MAX_SYMS];
        for (int s = 0; s < HUF_MAX_SYMS; s++) a[s] = (uint32_t)test_rng_range(&rng, 0, 5);
        memcpy(b + 1, a, sizeof a);
        memset(la, 0xA5, sizeof la);
        memset(lb, 0x5A, sizeof lb);
        huf_build_lengths(a, nsym, 15, la);
        huf_build_lengths(b + 1, nsym, 15, lb);
        assert_memory_equal(la, lb, nsym);
        for (unsigned s = nsym; s < HUF_MAX_SYMS; s++) {
            assert_int_equal(la[s], 0xA5);
            assert_int_equal(lb[s], 0x5A);
        }
        huf_enc ea, eb;
        memset(&eb, 0x5C, sizeof eb);
        huf_enc_build(&ea, la, nsym);
        huf_enc_build(&eb, lb, nsym);
        assert_memory_equal(&ea, &eb, sizeof ea);
    }
}

static void expect_refused(const uint8_t *len, unsigned nsym)
{
    huf_dec dec, before;
    memset(&dec, 0xCD, sizeof dec);
    before = dec;
    wc_err err = {{0}};
    assert_int_equal(huf_dec_build(&dec, len, nsym, &err), WC_ERR_CORRUPT);
    assert_true(err.msg[0] != '\0');
    assert_memory_equal(&dec, &before, sizeof dec); /* validated before writing */
}

static void test_dec_refuses(void **state)
{
    (void)state;
    const uint8_t over[3] = {1, 1, 1};
    const uint8_t over_deep[4] = {1, 2, 2, 15};
    const uint8_t incomplete[2] = {1, 2};
    const uint8_t incomplete_deep[3] = {1, 2, 15};
    const uint8_t too_long[3] = {1, 2, 16};
    const uint8_t huge[2] = {1, 255};
    const uint8_t zeros[HUF_MAX_SYMS] = {0};
    /* HUF_MAX_SYMS + 1 symbols in a complete code (127 of 7 bits, 2 of 8):
     * refused for the symbol count alone; one fewer 8-bit code... */
    uint8_t many[HUF_MAX_SYMS + 1];
    memset(many, 7, sizeof many);
    many[HUF_MAX_SYMS - 1] = many[HUF_MAX_SYMS] = 8;
    assert_int_equal(kraft(many, HUF_MAX_SYMS + 1), 1u << HUF_MAX_LEN);
    expect_refused(over, 3);
    expect_refused(over_deep, 4);
    expect_refused(incomplete, 2);
    expect_refused(incomplete_deep, 3);
    expect_refused(too_long, 3);
    expect_refused(huge, 2);
    expect_refused(zeros, HUF_MAX_SYMS);
    expect_refused(zeros, 0);
    expect_refused(many, HUF_MAX_SYMS + 1);
    /* ...while the full alphabet of 7-bit codes is accepted. */
    huf_dec dec;
    wc_err err = {{0}};
    memset(many, 7, sizeof many);
    assert_int_equal(huf_dec_build(&dec, many, HUF_MAX_SYMS, &err), WC_OK);
    /* One 7-bit code short of complete. */
    uint8_t near[HUF_MAX_SYMS];
    for (int s = 0; s < 64; s++) near[s] = 6;
    near[63] = 7;
    expect_refused(near, 64);
    /* One 8-bit code short of complete, on the full alphabet. */
    for (int s = 0; s < HUF_MAX_SYMS; s++) near[s] = 7;
    near[HUF_MAX_SYMS - 1] = 8;
    expect_refused(near, HUF_MAX_SYMS);
}

/* Random length vectors: huf_dec_build accepts exactly the valid ones. */
static void test_dec_random_tables(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 7);
    for (int trial = 0; trial < 20000; trial++) {
        unsigned nsym = (unsigned)test_rng_range(&rng, 0, HUF_MAX_SYMS + 2);
        uint8_t len[HUF_MAX_SYMS + 2] = {0};
        if (trial % 2 && nsym >= 1 && nsym <= HUF_MAX_SYMS) {
            /* A valid table with one length nudged: near misses. */
            uint32_t freq[HUF_MAX_SYMS];
            for (unsigned s = 0; s < nsym; s++) freq[s] = test_rng_u32(&rng) >> (s % 24);
            huf_build_lengths(freq, nsym, 15, len);
            unsigned s = (unsigned)test_rng_range(&rng, 0, (int32_t)nsym - 1);
            len[s] = (uint8_t)(len[s] + test_rng_range(&rng, -1, 1));
        } else {
            int hi = trial % 4 ? 7 : 17;
            for (unsigned s = 0; s < nsym; s++)
                len[s] = (uint8_t)(test_rng_range(&rng, 0, 2) ? test_rng_range(&rng, 0, hi) : 0);
        }
        unsigned used = 0, bad = 0;
        uint64_t k = 0;
        for (unsigned s = 0; s < nsym; s++) {
            bad |= len[s] > HUF_MAX_LEN;
            used += len[s] != 0;
            if (len[s] && len[s] <= HUF_MAX_LEN) k += 1u << (HUF_MAX_LEN - len[s]);
        }
        int valid =
            nsym >= 1 && nsym <= HUF_MAX_SYMS && !bad && (used == 1 || k == 1u << HUF_MAX_LEN);
        huf_dec dec;
        wc_err err = {{0}};
        wc_status st = huf_dec_build(&dec, len, nsym, &err);
        assert_int_equal(st == WC_OK, valid);
        if (valid) {
            uint8_t data[16];
            for (int i = 0; i < 16; i++) data[i] = (uint8_t)test_rng_u32(&rng);
            bitr r;
            bitr_init(&r, data, sizeof data);
            for (int i = 0; i < 8; i++) {
                unsigned sym = huf_get(&r, &dec);
                assert_true(sym < nsym && len[sym] != 0);
            }
        }
    }
}

static void lengths_roundtrip(const uint8_t *len, unsigned nsym, size_t *bits_out)
{
    uint8_t buf[TABLE_MAX_BYTES];
    bitw w;
    bitw_init(&w, buf, sizeof buf);
    huf_lengths_write(&w, len, nsym);
    uint64_t bits = (uint64_t)w.pos * 8 + w.n;
    size_t size = bitw_flush(&w);
    assert_false(w.overflow);
    uint8_t got[HUF_MAX_SYMS + 4];
    memset(got, 0xEE, sizeof got);
    bitr r;
    bitr_init(&r, buf, size);
    wc_err err = {{0}};
    assert_int_equal(huf_lengths_read(&r, got, nsym, &err), WC_OK);
    assert_memory_equal(got, len, nsym);
    assert_int_equal(got[nsym], 0xEE);
    if (bits_out) *bits_out = (size_t)bits;
}

static void test_lengths_roundtrip(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 8);
    uint8_t len[HUF_MAX_SYMS] = {0};
    size_t bits;
    lengths_roundtrip(len, 0, &bits);
    lengths_roundtrip(len, 48, &bits);
    assert_int_equal(bits, END_BITS);
    /* Sparse: the first 5 of 48 symbols used; four "+1" steps (3 bits)
     * and one "same" (1 bit). */
    const uint8_t sparse[5] = {1, 2, 3, 4, 4};
    memcpy(len, sparse, 5);
    lengths_roundtrip(len, 48, &bits);
    assert_int_equal(bits, END_BITS + 4 * 3 + 1);
    /* Every length value, every kind of step, up to the last symbol. */
    for (int s = 0; s < HUF_MAX_SYMS; s++) len[s] = (uint8_t)((s * 7) % 16);
    assert_true(len[HUF_MAX_SYMS - 1] != 0);
    lengths_roundtrip(len, HUF_MAX_SYMS, NULL);
    /* The worst case fits TABLE_MAX_BYTES exactly: every step raw. */
    for (int s = 0; s < HUF_MAX_SYMS; s++) len[s] = (uint8_t)(s % 2 ? 15 : 2);
    lengths_roundtrip(len, HUF_MAX_SYMS, &bits);
    assert_int_equal(bits, END_BITS + 6 * HUF_MAX_SYMS);
    memset(len, 0, sizeof len);
    for (int trial = 0; trial < 2000; trial++) {
        unsigned nsym = (unsigned)test_rng_range(&rng, 1, HUF_MAX_SYMS);
        uint32_t freq[HUF_MAX_SYMS];
        for (unsigned s = 0; s < nsym; s++)
            freq[s] = test_rng_range(&rng, 0, 3) ? (uint32_t)(test_rng_u32(&rng) >> (s % 32)) : 0;
        huf_build_lengths(freq, nsym, (unsigned)test_rng_range(&rng, 6, 15), len);
        lengths_roundtrip(len, nsym, NULL);
    }
}

/* Writes a table, compares the bits with hand-derived ones, reads it back. */
static void expect_table_bits(const uint8_t *len, unsigned nsym, const uint8_t *want, size_t nbits)
{
    uint8_t buf[TABLE_MAX_BYTES];
    memset(buf, 0xEE, sizeof buf);
    bitw w;
    bitw_init(&w, buf, sizeof buf);
    huf_lengths_write(&w, len, nsym);
    assert_int_equal((uint64_t)w.pos * 8 + w.n, nbits);
    size_t size = bitw_flush(&w);
    assert_int_equal(size, (nbits + 7) / 8);
    assert_memory_equal(buf, want, size);
    lengths_roundtrip(len, nsym, NULL);
}

/* Pinned serialisations (LSB first) where "end" takes its largest value,
 * HUF_MAX_SYMS = 128, which needs all 8 bits of the field. */
static void test_lengths_golden(void **state)
{
    (void)state;
    uint8_t len[HUF_MAX_SYMS];
    uint8_t want[18];
    assert_int_equal(HUF_MAX_SYMS, 128);
    /* All 128 symbols at 7 bits: end = 128 -> byte 0x80; symbol 0 raw
     * "1 1 0111" (bits 1,1,1,1,1,0) -> 0x1F; then 127 "same" bits = 0.
     * 8 + 6 + 127 = 141 bits, 18 bytes. */
    memset(len, 7, sizeof len);
    memset(want, 0, sizeof want);
    want[0] = 0x80;
    want[1] = 0x1F;
    expect_table_bits(len, HUF_MAX_SYMS, want, 141);
    /* Only symbol 127 used (length 1): end = 128 -> 0x80; 127 "same" zero
     * bits (bits 8..134), then "+1" = "1 0 0" at bits 135..137: bit 135 is
     * bit 7 of byte 16. 8 + 127 + 3 = 138 bits, 18 bytes. */
    memset(len, 0, sizeof len);
    len[HUF_MAX_SYMS - 1] = 1;
    memset(want, 0, sizeof want);
    want[0] = 0x80;
    want[16] = 0x80;
    expect_table_bits(len, HUF_MAX_SYMS, want, 138);
    huf_dec dec;
    wc_err err = {{0}};
    assert_int_equal(huf_dec_build(&dec, len, HUF_MAX_SYMS, &err), WC_OK);
    /* The block coder's 67 symbols, lengths {1, 0 x 65, 1}: end = 67 ->
     * 0x43; symbol 0 "+1" = 1,0,0 (bits 8..10); symbol 1 "-1" = 1,0,1
     * (bits 11..13) -> byte 1 = 0x29; 64 "same" zeros (bits 14..77);
     * symbol 66 "+1" = 1,0,0 (bits 78..80): bit 78 is bit 6 of byte 9.
     * 8 + 3 + 3 + 64 + 3 = 81 bits, 11 bytes. */
    memset(len, 0, sizeof len);
    len[0] = len[66] = 1;
    memset(want, 0, sizeof want);
    want[0] = 0x43;
    want[1] = 0x29;
    want[9] = 0x40;
    expect_table_bits(len, 67, want, 81);
    assert_int_equal(huf_dec_build(&dec, len, 67, &err), WC_OK);
}

static wc_status read_bits(const uint8_t *data, size_t size, unsigned nsym, uint8_t *len)
{
    bitr r;
    bitr_init(&r, data, size);
    wc_err err = {{0}};
    wc_status st = huf_lengths_read(&r, len, nsym, &err);
    if (st != WC_OK) assert_true(err.msg[0] != '\0');
    return st;
}

static void test_lengths_refuses(void **state)
{
    (void)state;
    /* Hand-assembled tables, LSB first: byte 0 is the 8-bit end field, the
     * per-symbol codes start at bit 0 of byte 1. Each refusal has an
     * accepted twin differing only in the bad part, so the refusal cannot
     * come from misplaced fields. */
    uint8_t len[HUF_MAX_SYMS + 1];
    const uint8_t end5[1] = {5};                                  /* end 5, then zero bits */
    assert_int_equal(read_bits(end5, 1, 4, len), WC_ERR_CORRUPT); /* end > nsym */
    /* end 1, "1 0 1": 0 - 1 */
    const uint8_t neg[2] = {0x01, 0x05};
    assert_int_equal(read_bits(neg, 2, 4, len), WC_ERR_CORRUPT);
    /* end 1, "1 1 0001": raw 1 where a step would do */
    const uint8_t noncanon[2] = {0x01, 0x07};
    assert_int_equal(read_bits(noncanon, 2, 4, len), WC_ERR_CORRUPT);
    /* end 1, "1 1 0010": raw 2 is canonical (|2 - 0| > 1) */
    const uint8_t raw2[2] = {0x01, 0x0B};
    assert_int_equal(read_bits(raw2, 2, 4, len), WC_OK);
    assert_int_equal(len[0], 2);
    for (int s = 1; s < 4; s++) assert_int_equal(len[s], 0);
    /* end 1, "0": the last listed symbol is unused */
    const uint8_t last0[2] = {0x01, 0x00};
    assert_int_equal(read_bits(last0, 2, 4, len), WC_ERR_CORRUPT);
    /* end 1, "1 0 0": 0 + 1 */
    const uint8_t last1[2] = {0x01, 0x01};
    assert_int_equal(read_bits(last1, 2, 4, len), WC_OK);
    assert_int_equal(len[0], 1);
    /* end 4, lengths 1,2,3,3 = "100 100 100 0" (bits 8..17): byte 1 =
     * 1,0,0,1,0,0,1,0 = 0x49, byte 2 holds bits 16..17 (zero). Without
     * byte 2 the table ends mid-table (the missing bits read as zeros and
     * would give the same lengths). */
    const uint8_t table[3] = {0x04, 0x49, 0x00};
    const uint8_t want[4] = {1, 2, 3, 3};
    assert_int_equal(read_bits(table, 3, 4, len), WC_OK);
    assert_memory_equal(len, want, 4);
    assert_int_equal(read_bits(table, 2, 4, len), WC_ERR_TRUNCATED);
    assert_int_equal(read_bits(NULL, 0, 4, len), WC_ERR_TRUNCATED);
    /* the alphabet limit: the same table is refused for nsym beyond it */
    assert_int_equal(read_bits(table, 3, HUF_MAX_SYMS, len), WC_OK);
    assert_int_equal(read_bits(table, 3, HUF_MAX_SYMS + 1, len), WC_ERR_CORRUPT);
    /* the longest step chain: +1 fifteen times stays in range, once more fails */
    for (unsigned steps = 15; steps <= 16; steps++) {
        uint8_t buf[16];
        bitw w;
        bitw_init(&w, buf, sizeof buf);
        bitw_put(&w, steps, END_BITS);
        for (unsigned i = 0; i < steps; i++) bitw_put(&w, 1, 3);
        size_t size = bitw_flush(&w);
        assert_false(w.overflow);
        if (steps == 15) {
            assert_int_equal(read_bits(buf, size, 16, len), WC_OK);
            for (unsigned s = 0; s < 15; s++) assert_int_equal(len[s], s + 1);
        } else {
            assert_int_equal(read_bits(buf, size, 16, len), WC_ERR_CORRUPT);
        }
    }
}

/* Random bytes never crash the reader nor write outside len[0..nsym). */
static void test_lengths_fuzz(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 9);
    unsigned ok = 0;
    for (int trial = 0; trial < 5000; trial++) {
        uint8_t data[TABLE_MAX_BYTES], len[HUF_MAX_SYMS + 8];
        size_t size = (size_t)test_rng_range(&rng, 0, TABLE_MAX_BYTES);
        for (size_t i = 0; i < size; i++) data[i] = (uint8_t)test_rng_u32(&rng);
        if (trial % 2 && size) data[0] &= 0x7F; /* plausible end values more often */
        unsigned nsym = (unsigned)test_rng_range(&rng, 0, HUF_MAX_SYMS + 2);
        memset(len, 0xEE, sizeof len);
        wc_status st = read_bits(size ? data : NULL, size, nsym, len);
        for (unsigned s = nsym; s < sizeof len; s++) assert_int_equal(len[s], 0xEE);
        if (st != WC_OK) continue;
        ok++;
        for (unsigned s = 0; s < nsym; s++) assert_true(len[s] <= HUF_MAX_LEN);
        huf_dec dec;
        wc_err err = {{0}};
        if (huf_dec_build(&dec, len, nsym, &err) == WC_OK) {
            bitr r;
            bitr_init(&r, data, size);
            for (int i = 0; i < 16; i++) assert_true(len[huf_get(&r, &dec)] != 0);
        }
    }
    assert_true(ok > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_symbols),      cmocka_unit_test(test_one_symbol),
        cmocka_unit_test(test_two_symbols),       cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_golden_codes),      cmocka_unit_test(test_fibonacci_limited),
        cmocka_unit_test(test_optimal_small),     cmocka_unit_test(test_max_length_codes),
        cmocka_unit_test(test_random_roundtrips), cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_dec_refuses),       cmocka_unit_test(test_dec_random_tables),
        cmocka_unit_test(test_lengths_roundtrip), cmocka_unit_test(test_lengths_golden),
        cmocka_unit_test(test_lengths_refuses),   cmocka_unit_test(test_lengths_fuzz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
