/* test_rle.c -- zero-run RLE: round trips, limits and every refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rle.h"
#include "test_support.h"

/* Encodes v, checks the bound and the decoded values; returns the size. */
static size_t roundtrip(const int32_t *v, size_t n)
{
    size_t bound = rle_bound(n);
    uint8_t *buf = malloc(bound + 1);
    int32_t *back = malloc((n + 1) * sizeof *back);
    assert_non_null(buf);
    assert_non_null(back);
    buf[bound] = 0xEE;
    size_t size = rle_encode(v, n, buf);
    assert_true(size <= bound);
    assert_int_equal(buf[bound], 0xEE);
    wc_err err = {{0}};
    assert_int_equal(rle_decode(buf, size, back, n, &err), WC_OK);
    if (n) assert_memory_equal(back, v, n * sizeof *v);
    free(buf);
    free(back);
    return size;
}

static wc_status decode(const uint8_t *src, size_t size, size_t n)
{
    int32_t v[64];
    wc_err err = {{0}};
    assert_true(n <= 64);
    wc_status st = rle_decode(src, size, v, n, &err);
    if (st != WC_OK) assert_true(err.msg[0] != '\0');
    return st;
}

static void test_empty(void **state)
{
    (void)state;
    assert_int_equal(rle_encode(NULL, 0, NULL), 0);
    wc_err err = {{0}};
    assert_int_equal(rle_decode(NULL, 0, NULL, 0, &err), WC_OK);
    const uint8_t one[1] = {0};
    assert_int_equal(decode(one, 1, 0), WC_ERR_CORRUPT); /* trailing */
}

static void test_all_zeros(void **state)
{
    (void)state;
    int32_t v[1000] = {0};
    assert_int_equal(roundtrip(v, 1), 1);
    assert_int_equal(roundtrip(v, 64), 1); /* token 127 */
    assert_int_equal(roundtrip(v, 65), 2);
    assert_int_equal(roundtrip(v, 1000), 2); /* token 1999 */
}

static void test_no_zeros(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 11);
    int32_t v[5000];
    for (int i = 0; i < 5000; i++) {
        v[i] = test_rng_range(&rng, -100000, 100000);
        if (v[i] == 0) v[i] = 1;
    }
    roundtrip(v, 5000);
    /* One byte covers -32..32. */
    const int32_t small[4] = {-32, 32, 1, -1};
    assert_int_equal(roundtrip(small, 4), 4);
    const int32_t big[2] = {-33, 33};
    assert_int_equal(roundtrip(big, 2), 4);
}

static void test_alternating(void **state)
{
    (void)state;
    int32_t v[4001];
    for (int i = 0; i < 4001; i++) v[i] = i % 2 ? (i % 4 == 1 ? 5 : -7) : 0;
    assert_int_equal(roundtrip(v, 4001), 4001);
}

static void test_long_runs(void **state)
{
    (void)state;
    size_t n = (1u << 21) * 3 + 17;
    int32_t *v = calloc(n, sizeof *v);
    assert_non_null(v);
    assert_int_equal(roundtrip(v, n), 4); /* one run of > 2^21 */
    v[(1u << 21) + 5] = -3;
    v[n - 1] = 9;
    assert_int_equal(roundtrip(v, n), 4 + 1 + 4 + 1);
    free(v);
}

static void test_extremes(void **state)
{
    (void)state;
    const int32_t v[6] = {INT32_MIN, INT32_MAX, 0, INT32_MIN + 1, INT32_MAX - 1, INT32_MIN};
    assert_int_equal(roundtrip(v, 6), 5 * 5 + 1);
    /* The largest token value: zigzag(INT32_MIN) - 1 = 2^32 - 2, << 1. */
    const uint8_t max_val[5] = {0xFC, 0xFF, 0xFF, 0xFF, 0x1F};
    int32_t out[1];
    wc_err err = {{0}};
    assert_int_equal(rle_decode(max_val, 5, out, 1, &err), WC_OK);
    assert_int_equal(out[0], INT32_MIN);
}

static void test_every_truncation(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 12);
    int32_t v[300];
    for (int i = 0; i < 300; i++) {
        int kind = test_rng_range(&rng, 0, 3);
        v[i] = kind == 0   ? 0
               : kind == 1 ? test_rng_range(&rng, -40, 40)
                           : (int32_t)(test_rng_u32(&rng) >> (i % 8));
    }
    uint8_t buf[1500];
    size_t size = rle_encode(v, 300, buf);
    int32_t back[300];
    for (size_t k = 0; k < size; k++) {
        wc_err err = {{0}};
        assert_int_equal(rle_decode(buf, k, back, 300, &err), WC_ERR_TRUNCATED);
        assert_true(err.msg[0] != '\0');
    }
    wc_err err = {{0}};
    assert_int_equal(rle_decode(buf, size, back, 300, &err), WC_OK);
    assert_memory_equal(back, v, sizeof v);
}

static void test_refusals(void **state)
{
    (void)state;
    const uint8_t trailing[3] = {0x02, 0x04, 0x00};
    assert_int_equal(decode(trailing, 3, 2), WC_ERR_CORRUPT);
    const uint8_t run10[1] = {(10 - 1) << 1 | 1};
    assert_int_equal(decode(run10, 1, 10), WC_OK);
    assert_int_equal(decode(run10, 1, 9), WC_ERR_CORRUPT); /* run past end */
    const uint8_t six[6] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    assert_int_equal(decode(six, 6, 1), WC_ERR_CORRUPT); /* varint > 5 bytes */
    const uint8_t five_more[5] = {0x80, 0x80, 0x80, 0x80, 0x81};
    assert_int_equal(decode(five_more, 5, 1), WC_ERR_CORRUPT);
    /* z = 2^32: token (2^32 - 1) << 1 = 0x1FFFFFFFE */
    const uint8_t over[5] = {0xFE, 0xFF, 0xFF, 0xFF, 0x1F};
    assert_int_equal(decode(over, 5, 1), WC_ERR_CORRUPT);
    const uint8_t over_max[5] = {0xFE, 0xFF, 0xFF, 0xFF, 0x7F};
    assert_int_equal(decode(over_max, 5, 1), WC_ERR_CORRUPT);
    const uint8_t overlong[2] = {0x82, 0x00};
    assert_int_equal(decode(overlong, 2, 1), WC_ERR_CORRUPT);
    const uint8_t two_runs[2] = {0x01, 0x01};
    assert_int_equal(decode(two_runs, 2, 2), WC_ERR_CORRUPT);
    /* a huge run (2^34 zeros) past a small end */
    const uint8_t huge_run[5] = {0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    assert_int_equal(decode(huge_run, 5, 64), WC_ERR_CORRUPT);
    assert_int_equal(decode(NULL, 0, 1), WC_ERR_TRUNCATED);
    wc_err err = {{0}};
    assert_int_equal(rle_decode(run10, 1, NULL, 0, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "byte"));
}

static void test_bound(void **state)
{
    (void)state;
    assert_int_equal(rle_bound(0), 0);
    assert_int_equal(rle_bound(1), 5);
    assert_int_equal(rle_bound(SIZE_MAX / 2), SIZE_MAX);
}

/* Random bytes: no crash, and whatever decodes re-encodes to the same
 * bytes (one encoding per sequence). */
static void test_fuzz_canonical(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 13);
    unsigned ok = 0;
    for (int trial = 0; trial < 5000; trial++) {
        uint8_t src[24], again[64 * 5];
        int32_t v[64];
        size_t size = (size_t)test_rng_range(&rng, 0, 24);
        for (size_t i = 0; i < size; i++) {
            uint32_t r = test_rng_u32(&rng);
            src[i] = (uint8_t)(r & 0x100 ? r & 0x7F : r); /* short tokens often */
        }
        /* At most one count fits the tokens exactly: try them all. */
        for (size_t n = 0; n <= 64; n++) {
            wc_err err = {{0}};
            if (rle_decode(src, size, v, n, &err) != WC_OK) {
                assert_true(err.msg[0] != '\0');
                continue;
            }
            ok++;
            assert_int_equal(rle_encode(v, n, again), size);
            assert_memory_equal(again, src, size);
        }
    }
    assert_true(ok > 100);
}

static void test_random_roundtrips(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 14);
    static int32_t v[20000];
    for (int trial = 0; trial < 50; trial++) {
        size_t n = (size_t)test_rng_range(&rng, 0, 20000);
        int zero_pct = test_rng_range(&rng, 0, 100);
        for (size_t i = 0; i < n; i++)
            v[i] = test_rng_range(&rng, 0, 99) < zero_pct
                       ? 0
                       : test_rng_range(&rng, -(1 << (trial % 31)), 1 << (trial % 31));
        roundtrip(v, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_all_zeros),
        cmocka_unit_test(test_no_zeros),
        cmocka_unit_test(test_alternating),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_fuzz_canonical),
        cmocka_unit_test(test_random_roundtrips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
