/*
 * test_dwt_lines.c -- the line-based forward DWT (dwt_lines.c) gives the
 * whole-plane forward's bits, 5/3 and 9/7, every level count 0..max,
 * sizes 1x1, 1xN, Nx1, even, odd and prime; every coefficient emitted
 * exactly once; a push past the last row is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dwt.h"
#include "dwt_lines.h"
#include "test_support.h"

static const uint32_t sizes[][2] = {{1, 1},    {1, 9},    {9, 1},     {2, 2},   {3, 2},
                                    {2, 3},    {7, 5},    {33, 65},   {64, 31}, {131, 127},
                                    {300, 17}, {17, 300}, {257, 263}, {4, 1000}};

typedef struct sink {
    uint32_t w, h;
    uint32_t *plane; /* int32 or float bits */
    uint8_t *seen;
    int twice;
} sink;

static void put(void *arg, uint32_t y, uint32_t x0, uint32_t n, const void *vals)
{
    sink *s = arg;
    assert_true(y < s->h && x0 + n <= s->w);
    memcpy(s->plane + (size_t)y * s->w + x0, vals, (size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) s->twice |= s->seen[(size_t)y * s->w + x0 + i]++;
}

static void check_one(int family, uint32_t w, uint32_t h, int levels, const uint32_t *src)
{
    const size_t n = (size_t)w * h;
    uint32_t *ref = malloc(n * 4);
    void *scratch = malloc(dwt_scratch_elems(w, h) * 4);
    memcpy(ref, src, n * 4);
    if (family == 53)
        dwt53_forward((int32_t *)ref, w, h, levels, scratch);
    else
        dwt97_forward((float *)(void *)ref, w, h, levels, scratch);
    sink s = {w, h, calloc(n, 4), calloc(n, 1), 0};
    dwl *t = dwl_create(family, w, h, levels, put, &s);
    assert_non_null(t);
    for (uint32_t y = 0; y < h; y++) assert_int_equal(dwl_push(t, src + (size_t)y * w), 0);
    assert_int_equal(dwl_push(t, src), -1);
    dwl_free(t);
    assert_false(s.twice);
    for (size_t i = 0; i < n; i++) {
        if (!s.seen[i] || s.plane[i] != ref[i])
            fail_msg("%d %ux%u levels %d: coefficient %zu (%u,%u) %s", family, w, h, levels, i,
                     (unsigned)(i % w), (unsigned)(i / w), s.seen[i] ? "differs" : "never emitted");
    }
    free(s.plane);
    free(s.seen);
    free(ref);
    free(scratch);
}

static void test_lines_match(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 29);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const uint32_t w = sizes[k][0], h = sizes[k][1];
        const size_t n = (size_t)w * h;
        uint32_t *ints = malloc(n * 4), *floats = malloc(n * 4);
        for (size_t i = 0; i < n; i++) {
            int32_t v = test_rng_range(&r, -32768, 32767);
            float f = (float)v * 0.75f;
            memcpy(&ints[i], &v, 4);
            memcpy(&floats[i], &f, 4);
        }
        for (int l = 0; l <= dwt_max_levels(w, h); l++) {
            check_one(53, w, h, l, ints);
            check_one(97, w, h, l, floats);
        }
        free(ints);
        free(floats);
    }
}

static void test_lines_bad_args(void **state)
{
    (void)state;
    sink s = {0};
    assert_null(dwl_create(54, 8, 8, 1, put, &s));
    assert_null(dwl_create(53, 0, 8, 1, put, &s));
    assert_null(dwl_create(53, 8, 8, dwt_max_levels(8, 8) + 1, put, &s));
    assert_null(dwl_create(97, 8, 8, 1, NULL, &s));
    assert_true(dwl_bytes(1000, 5) > dwl_bytes(1000, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_match),
        cmocka_unit_test(test_lines_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
