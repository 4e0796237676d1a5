/*
 * test_pool.c -- the context's buffer pool (common/pool.c): large buffers
 * come back for the next request that fits, small ones never stay,
 * alignment (near 2 MiB for planes from 8 MiB), sizes that overflow, trimming, a NULL pool, and many threads
 * taking and returning buffers at once.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pool.h"
#include "wc_common.h"

#define MB ((size_t)1 << 20)

static void test_large_buffers_come_back(void **state)
{
    (void)state;
    wc_pool pool;
    pool_init(&pool);
    char *a = pool_alloc(&pool, 4 * MB);
    assert_non_null(a);
    memset(a, 0x5A, 4 * MB); /* all of it is usable */
    pool_free(&pool, a);
    /* The same size and a smaller one get the kept buffer back... */
    char *b = pool_alloc(&pool, 4 * MB);
    assert_ptr_equal(a, b);
    pool_free(&pool, b);
    char *c = pool_alloc(&pool, 2 * MB);
    assert_ptr_equal(a, c);
    /* ...a larger one, while it is out, a new one. */
    char *d = pool_alloc(&pool, 8 * MB);
    assert_non_null(d);
    assert_ptr_not_equal(d, a);
    pool_free(&pool, c);
    pool_free(&pool, d);
    /* The best fit: a 3 MB request takes the 4 MB buffer, not the 8 MB. */
    char *e = pool_alloc(&pool, 3 * MB);
    assert_ptr_equal(e, a);
    pool_free(&pool, e);
    pool_destroy(&pool);
}

static void test_small_buffers_do_not_stay(void **state)
{
    (void)state;
    wc_pool pool;
    pool_init(&pool);
    void *a = pool_alloc(&pool, 1000);
    assert_non_null(a);
    pool_free(&pool, a);
    for (int i = 0; i < WC_POOL_SLOTS; i++) assert_null(pool.slot[i]);
    pool_destroy(&pool);
}

static void test_alignment_and_bad_sizes(void **state)
{
    (void)state;
    wc_pool pool;
    pool_init(&pool);
    const size_t sizes[] = {1, 63, 64, 4097, MB, 3 * MB + 5};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        void *p = pool_alloc(&pool, sizes[i]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 64, 0);
        pool_free(&pool, p);
    }
    assert_null(pool_alloc(&pool, 0));
    assert_null(pool_alloc(&pool, SIZE_MAX));
    assert_null(pool_alloc(&pool, SIZE_MAX - 10));
    assert_null(pool_alloc_array(&pool, SIZE_MAX / 2, 4));
    pool_free(&pool, NULL);
    pool_destroy(&pool);
}

/* Planes from 8 MiB start just past a 2 MiB boundary (for huge pages)
 * and every byte of them is theirs; the advice itself takes any range. */
static void test_huge_planes(void **state)
{
    (void)state;
    wc_pool pool;
    pool_init(&pool);
    const size_t sizes[] = {8 * MB - 1, 8 * MB, 8 * MB + 3, 33 * MB + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t *p = pool_alloc(&pool, sizes[i]);
        assert_non_null(p);
        /* 64-byte aligned; a huge one a page and a line times 0..7 past 2 MiB */
        assert_int_equal((uintptr_t)p % 64, 0);
        if (sizes[i] >= 8 * MB) assert_int_equal((uintptr_t)p % (2 * MB) % 4160, 0);
        memset(p, (int)i + 1, sizes[i]);
        assert_int_equal(p[0], i + 1);
        assert_int_equal(p[sizes[i] - 1], i + 1);
        pool_free(&pool, p);
        pool_trim(&pool);
    }
    pool_destroy(&pool);
    wc_advise_huge(NULL, 100 * MB);
    uint8_t *b = malloc(9 * MB);
    assert_non_null(b);
    wc_advise_huge(b + 1, 9 * MB - 1);
    wc_advise_huge(b, 3);
    memset(b, 7, 9 * MB);
    assert_int_equal(b[9 * MB - 1], 7);
    free(b);
}

static void test_full_pool_keeps_the_largest(void **state)
{
    (void)state;
    wc_pool pool;
    pool_init(&pool);
    void *p[WC_POOL_SLOTS + 1];
    for (int i = 0; i <= WC_POOL_SLOTS; i++) p[i] = pool_alloc(&pool, (size_t)(i + 1) * MB);
    for (int i = 0; i <= WC_POOL_SLOTS; i++) pool_free(&pool, p[i]);
    /* The 1 MB buffer was the one let go. */
    size_t smallest = SIZE_MAX;
    for (int i = 0; i < WC_POOL_SLOTS; i++) {
        assert_non_null(pool.slot[i]);
        if (pool.size[i] < smallest) smallest = pool.size[i];
    }
    assert_int_equal(smallest, 2 * MB);
    pool_trim(&pool);
    for (int i = 0; i < WC_POOL_SLOTS; i++) assert_null(pool.slot[i]);
    /* Still usable after a trim. */
    void *q = pool_alloc(&pool, 2 * MB);
    assert_non_null(q);
    pool_free(&pool, q);
    pool_destroy(&pool);
}

/* pool_keep lets the smallest kept buffers go until the rest fit the
 * bound; pool_size says what a buffer holds (at least what was asked). */
static void test_keep_within_a_bound(void **state)
{
    (void)state;
    wc_pool pool;
    pool_init(&pool);
    static const size_t mb[] = {3, 1, 4, 2, 5};
    void *p[5];
    for (int i = 0; i < 5; i++) {
        p[i] = pool_alloc(&pool, mb[i] * MB);
        assert_non_null(p[i]);
        assert_int_equal(pool_size(p[i]), mb[i] * MB);
    }
    for (int i = 0; i < 5; i++) pool_free(&pool, p[i]);
    pool_keep(&pool, 10 * MB); /* 15 MB kept: 1, 2 and 3 go, 4 + 5 stay */
    size_t total = 0, smallest = SIZE_MAX;
    int kept = 0;
    for (int i = 0; i < WC_POOL_SLOTS; i++) {
        if (!pool.slot[i]) continue;
        kept++;
        total += pool.size[i];
        if (pool.size[i] < smallest) smallest = pool.size[i];
    }
    assert_int_equal(kept, 2);
    assert_int_equal(total, 9 * MB);
    assert_int_equal(smallest, 4 * MB);
    /* A larger kept buffer serves a smaller request, all of it usable. */
    void *q = pool_alloc(&pool, 2 * MB);
    assert_int_equal(pool_size(q), 4 * MB);
    pool_free(&pool, q);
    pool_keep(&pool, 9 * MB); /* already within */
    pool_keep(&pool, 0);
    for (int i = 0; i < WC_POOL_SLOTS; i++) assert_null(pool.slot[i]);
    assert_int_equal(pool_size(NULL), 0);
    pool_destroy(&pool);
}

static void test_null_pool_is_malloc(void **state)
{
    (void)state;
    void *p = pool_alloc(NULL, 2 * MB);
    assert_non_null(p);
    pool_free(NULL, p);
    p = pool_alloc_array(NULL, 10, 10);
    assert_non_null(p);
    pool_free(NULL, p);
}

static void test_allocation_failure(void **state)
{
    (void)state;
    wc_pool pool;
    pool_init(&pool);
    wc_alloc_fail_after(0);
    assert_null(pool_alloc(&pool, 2 * MB));
    wc_alloc_fail_after(-1);
    pool_destroy(&pool);
}

static void *churn(void *arg)
{
    wc_pool *pool = arg;
    for (int i = 0; i < 200; i++) {
        size_t n = (size_t)(1 + i % 5) * MB;
        unsigned char *p = pool_alloc(pool, n);
        if (!p) return (void *)1;
        /* A buffer in two hands at once would show here. */
        memset(p, i & 0xFF, n);
        for (size_t k = 0; k < n; k += 4093)
            if (p[k] != (unsigned char)(i & 0xFF)) return (void *)1;
        pool_free(pool, p);
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    wc_pool pool;
    pool_init(&pool);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, churn, &pool), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_null(r);
    }
    pool_destroy(&pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_buffers_come_back),
        cmocka_unit_test(test_small_buffers_do_not_stay),
        cmocka_unit_test(test_alignment_and_bad_sizes),
        cmocka_unit_test(test_huge_planes),
        cmocka_unit_test(test_full_pool_keeps_the_largest),
        cmocka_unit_test(test_keep_within_a_bound),
        cmocka_unit_test(test_null_pool_is_malloc),
        cmocka_unit_test(test_allocation_failure),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
