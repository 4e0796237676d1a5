/* test_zcodec.c -- whole-buffer deflate held to exact sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_support.h"
#include "zcodec.h"

#define N 100000

typedef struct zc_fixture {
    uint8_t *src, *packed, *back;
    size_t packed_size;
} zc_fixture;

/* Coefficient-like bytes: mostly zeros with small values. */
static void fill(uint8_t *p, size_t n, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++)
        p[i] = test_rng_range(&rng, 0, 3) ? 0 : (uint8_t)test_rng_range(&rng, 1, 20);
}

static int setup(void **state)
{
    zc_fixture *f = calloc(1, sizeof *f);
    f->src = malloc(N);
    f->packed = malloc(zc_bound(N));
    f->back = malloc(N + 1);
    fill(f->src, N, 21);
    wc_err err = {{0}};
    if (zc_compress(f->src, N, 6, f->packed, zc_bound(N), &f->packed_size, &err) != WC_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    zc_fixture *f = *state;
    free(f->src);
    free(f->packed);
    free(f->back);
    free(f);
    return 0;
}

static void test_roundtrip_levels(void **state)
{
    zc_fixture *f = *state;
    size_t sizes[10] = {0};
    uint8_t *packed = malloc(zc_bound(N)); /* f->packed stays the level-6 stream */
    for (int level = 1; level <= 9; level++) {
        wc_err err = {{0}};
        size_t size;
        assert_int_equal(zc_compress(f->src, N, level, packed, zc_bound(N), &size, &err), WC_OK);
        assert_true(size < N / 2);
        memset(f->back, 0xEE, N + 1);
        assert_int_equal(zc_decompress(packed, size, f->back, N, &err), WC_OK);
        assert_memory_equal(f->back, f->src, N);
        assert_int_equal(f->back[N], 0xEE);
        sizes[level] = size;
    }
    assert_true(sizes[9] <= sizes[1]);
    free(packed);
}

/* Incompressible input still fits zc_bound. */
static void test_random_bytes(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 22);
    for (size_t n = 0; n < 5000; n += 499) {
        uint8_t *src = malloc(n + 1), *dst = malloc(zc_bound(n)), *back = malloc(n + 1);
        for (size_t i = 0; i < n; i++) src[i] = (uint8_t)test_rng_u32(&rng);
        wc_err err = {{0}};
        size_t size;
        assert_int_equal(zc_compress(src, n, 1, dst, zc_bound(n), &size, &err), WC_OK);
        assert_true(size <= zc_bound(n));
        /* back is where zc_decompress writes, not something it reads. */
        /* cppcheck-suppress uninitdata */
        assert_int_equal(zc_decompress(dst, size, n ? back : NULL, n, &err), WC_OK);
        if (n) assert_memory_equal(back, src, n);
        free(src);
        free(dst);
        free(back);
    }
}

static void test_bad_arguments(void **state)
{
    zc_fixture *f = *state;
    wc_err err = {{0}};
    size_t size;
    assert_int_equal(zc_compress(f->src, N, 0, f->packed, zc_bound(N), &size, &err), WC_ERR_ARG);
    assert_int_equal(zc_compress(f->src, N, 10, f->packed, zc_bound(N), &size, &err), WC_ERR_ARG);
    /* Too small an output: an error, and nothing written past cap. */
    uint8_t small[64 + 16];
    memset(small, 0xEE, sizeof small);
    memset(&err, 0, sizeof err);
    assert_int_equal(zc_compress(f->src, N, 6, small, 64, &size, &err), WC_ERR_BUFFER);
    assert_true(err.msg[0] != '\0');
    for (size_t i = 64; i < sizeof small; i++) assert_int_equal(small[i], 0xEE);
    assert_int_equal(zc_compress(f->src, N, 6, NULL, 0, &size, &err), WC_ERR_BUFFER);
    /* Exactly the compressed size is enough. */
    uint8_t *exact = malloc(f->packed_size);
    assert_int_equal(zc_compress(f->src, N, 6, exact, f->packed_size, &size, &err), WC_OK);
    assert_int_equal(size, f->packed_size);
    free(exact);
}

static void test_wrong_expected_size(void **state)
{
    zc_fixture *f = *state;
    wc_err err = {{0}};
    assert_int_equal(zc_decompress(f->packed, f->packed_size, f->back, N - 1, &err),
                     WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "more"));
    memset(&err, 0, sizeof err);
    assert_int_equal(zc_decompress(f->packed, f->packed_size, f->back, N + 1, &err),
                     WC_ERR_CORRUPT);
    assert_true(err.msg[0] != '\0');
    assert_int_equal(zc_decompress(f->packed, f->packed_size, NULL, 0, &err), WC_ERR_CORRUPT);
}

static void test_trailing_and_truncated(void **state)
{
    zc_fixture *f = *state;
    uint8_t *longer = malloc(f->packed_size + 1);
    memcpy(longer, f->packed, f->packed_size);
    longer[f->packed_size] = 0;
    wc_err err = {{0}};
    assert_int_equal(zc_decompress(longer, f->packed_size + 1, f->back, N, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "trailing"));
    free(longer);
    for (size_t k = 0; k < f->packed_size; k += (k < 64 || k + 64 > f->packed_size) ? 1 : 97) {
        memset(&err, 0, sizeof err);
        assert_int_equal(zc_decompress(f->packed, k, f->back, N, &err), WC_ERR_TRUNCATED);
        assert_true(err.msg[0] != '\0');
    }
    assert_int_equal(zc_decompress(NULL, 0, f->back, N, &err), WC_ERR_TRUNCATED);
}

/* Every damaged byte is caught: by the deflate decoder or the Adler-32. */
static void test_damaged(void **state)
{
    zc_fixture *f = *state;
    uint8_t *bad = malloc(f->packed_size);
    for (size_t i = 0; i < f->packed_size; i += i < 64 || i + 64 > f->packed_size ? 1 : 13) {
        memcpy(bad, f->packed, f->packed_size);
        bad[i] ^= 0xFF;
        wc_err err = {{0}};
        assert_int_not_equal(zc_decompress(bad, f->packed_size, f->back, N, &err), WC_OK);
        assert_true(err.msg[0] != '\0');
    }
    free(bad);
}

static void test_empty_and_nomem(void **state)
{
    (void)state;
    uint8_t packed[64];
    size_t size;
    wc_err err = {{0}};
    assert_int_equal(zc_compress(NULL, 0, 9, packed, sizeof packed, &size, &err), WC_OK);
    assert_int_equal(zc_decompress(packed, size, NULL, 0, &err), WC_OK);
    wc_alloc_fail_after(0);
    assert_int_equal(zc_compress(NULL, 0, 9, packed, sizeof packed, &size, &err), WC_ERR_NOMEM);
    wc_alloc_fail_after(0);
    assert_int_equal(zc_decompress(packed, size, NULL, 0, &err), WC_ERR_NOMEM);
    wc_alloc_fail_after(-1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_levels),       cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_bad_arguments),          cmocka_unit_test(test_wrong_expected_size),
        cmocka_unit_test(test_trailing_and_truncated), cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_empty_and_nomem),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
