/*
 * test_dwt53.c -- the CDF 5/3 integer wavelet against a naive reading of
 * JPEG 2000 Part 1 Annex F: extend the signal symmetrically, apply the two
 * lifting formulas with an explicit floor division, split even and odd.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dwt.h"
#include "test_support.h"

static const uint32_t sizes[] = {1, 2, 3, 5, 7, 13, 31, 64, 97, 128, 257};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* ---- the naive reference ---------------------------------------------------- */

static int32_t floor_div(int32_t a, int32_t b)
{
    int32_t q = a / b;
    if (a % b != 0 && (a < 0) != (b < 0)) q--;
    return q;
}

/* Whole-sample symmetric extension of any index (period 2(n-1)), n >= 2. */
static uint32_t reflect(int64_t i, uint32_t n)
{
    const int64_t period = 2 * ((int64_t)n - 1);
    i %= period;
    if (i < 0) i += period;
    return (uint32_t)(i < (int64_t)n ? i : period - i);
}

/* Annex F 1D_FILTR_5-3R on the extended signal, then the even/odd split. */
static void ref53_forward_1d(int32_t *x, uint32_t n)
{
    if (n < 2) return;
    const uint32_t nl = (n + 1) / 2;
    int32_t *y = calloc(n + 4, sizeof *y); /* y[k + 2] holds sample k, k in -2..n+1 */
    int32_t *out = calloc(n, sizeof *out);
    for (int64_t k = -2; k < (int64_t)n + 2; k++) y[k + 2] = x[reflect(k, n)];
    for (int64_t k = -1; k <= (int64_t)n; k += 2) /* odd k: -1, 1, ..., up to n */
        y[k + 2] = y[k + 2] - floor_div(y[k + 1] + y[k + 3], 2);
    for (int64_t k = 0; k < (int64_t)n; k += 2)
        y[k + 2] = y[k + 2] + floor_div(y[k + 1] + y[k + 3] + 2, 4);
    for (uint32_t k = 0; k < n; k++) out[(k & 1) ? nl + k / 2 : k / 2] = y[k + 2];
    memcpy(x, out, n * sizeof *x);
    free(y);
    free(out);
}

/* Annex F inverse: interleave, extend, undo the update, undo the predict. */
static void ref53_inverse_1d(int32_t *x, uint32_t n)
{
    if (n < 2) return;
    const uint32_t nl = (n + 1) / 2;
    int32_t *inter = calloc(n, sizeof *inter);
    int32_t *y = calloc(n + 4, sizeof *y);
    for (uint32_t k = 0; k < n; k++) inter[k] = x[(k & 1) ? nl + k / 2 : k / 2];
    for (int64_t k = -2; k < (int64_t)n + 2; k++) y[k + 2] = inter[reflect(k, n)];
    /* Even places 0..n (n itself when even: the odd place n-1 needs it). */
    for (int64_t k = 0; k <= (int64_t)n; k += 2)
        y[k + 2] = y[k + 2] - floor_div(y[k + 1] + y[k + 3] + 2, 4);
    for (int64_t k = 1; k < (int64_t)n; k += 2)
        y[k + 2] = y[k + 2] + floor_div(y[k + 1] + y[k + 3], 2);
    for (uint32_t k = 0; k < n; k++) x[k] = y[k + 2];
    free(inter);
    free(y);
}

/* The 2-D reference: per level, every column then every row of the LL region. */
static void ref53_2d(int32_t *p, uint32_t w, uint32_t h, int levels, int inverse)
{
    int32_t *col = calloc(h, sizeof *col);
    for (int i = 0; i < levels; i++) {
        const int l = inverse ? levels - 1 - i : i;
        uint32_t lw = w, lh = h;
        for (int k = 0; k < l; k++) lw = (lw + 1) / 2, lh = (lh + 1) / 2;
        if (inverse)
            for (uint32_t y = 0; y < lh; y++) ref53_inverse_1d(p + (size_t)y * w, lw);
        for (uint32_t x = 0; x < lw; x++) {
            for (uint32_t y = 0; y < lh; y++) col[y] = p[(size_t)y * w + x];
            if (inverse)
                ref53_inverse_1d(col, lh);
            else
                ref53_forward_1d(col, lh);
            for (uint32_t y = 0; y < lh; y++) p[(size_t)y * w + x] = col[y];
        }
        if (!inverse)
            for (uint32_t y = 0; y < lh; y++) ref53_forward_1d(p + (size_t)y * w, lw);
    }
    free(col);
}

/* ---- helpers ---------------------------------------------------------------- */

static int32_t *random_plane(test_rng *rng, size_t n, int32_t lo, int32_t hi)
{
    int32_t *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = test_rng_range(rng, lo, hi);
    return p;
}

static int32_t *scratch_for(uint32_t w, uint32_t h)
{
    return malloc(dwt_scratch_elems(w, h) * sizeof(int32_t));
}

/* ---- known answers ------------------------------------------------------------ */

static void test_known_vectors(void **state)
{
    (void)state;
    int32_t s[8];
    /* Worked by hand from the two formulas of dwt.h. */
    int32_t a[6] = {10, 20, 15, 5, 0, 8};
    const int32_t a_out[6] = {14, 17, 2, 8, -2, 8};
    dwt53_forward_1d(a, 6, s);
    assert_memory_equal(a, a_out, sizeof a);

    /* Odd length, negative values: the shifts must floor, not truncate. */
    int32_t b[5] = {0, -3, 0, 0, 1};
    const int32_t b_out[5] = {-1, -1, 1, -3, 0};
    dwt53_forward_1d(b, 5, s);
    assert_memory_equal(b, b_out, sizeof b);

    int32_t c[2] = {7, 3};
    const int32_t c_out[2] = {5, -4};
    dwt53_forward_1d(c, 2, s);
    assert_memory_equal(c, c_out, sizeof c);

    int32_t d[1] = {-9}; /* a length-1 signal is left alone */
    dwt53_forward_1d(d, 1, s);
    assert_int_equal(d[0], -9);
}

/* A constant plane has no detail: every high band is zero, LL keeps the value. */
static void test_constant_plane(void **state)
{
    (void)state;
    const uint32_t w = 97, h = 31;
    int32_t *p = malloc(w * h * sizeof *p), *s = scratch_for(w, h);
    const int levels = dwt_max_levels(w, h);
    for (size_t i = 0; i < (size_t)w * h; i++) p[i] = -1234;
    dwt53_forward(p, w, h, levels, s);
    dwt_band bands[3 * 15 + 1];
    const unsigned nb = dwt_bands(w, h, levels, bands);
    for (unsigned b = 0; b < nb; b++)
        for (uint32_t y = bands[b].y0; y < bands[b].y0 + bands[b].h; y++)
            for (uint32_t x = bands[b].x0; x < bands[b].x0 + bands[b].w; x++)
                assert_int_equal(p[(size_t)y * w + x], b == 0 ? -1234 : 0);
    free(p);
    free(s);
}

/* ---- against the reference ------------------------------------------------------ */

static void test_1d_matches_reference(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 53);
    int32_t x[300], ref[300], s[300];
    for (uint32_t n = 1; n <= 300; n++) {
        for (uint32_t i = 0; i < n; i++) x[i] = ref[i] = test_rng_range(&rng, -65536, 65536);
        dwt53_forward_1d(x, n, s);
        ref53_forward_1d(ref, n);
        assert_memory_equal(x, ref, n * sizeof *x);
        ref53_inverse_1d(ref, n);
        dwt53_inverse_1d(x, n, s);
        assert_memory_equal(x, ref, n * sizeof *x);
    }
}

/* The 2-D transform equals the naive one bit for bit, and inverts exactly,
 * for every size pair and every level count, at 8-bit and 17-bit ranges. */
static void check_2d(test_rng *rng, uint32_t w, uint32_t h, int32_t lo, int32_t hi)
{
    const size_t n = (size_t)w * h;
    int32_t *orig = random_plane(rng, n, lo, hi);
    int32_t *p = malloc(n * sizeof *p), *ref = malloc(n * sizeof *ref), *s = scratch_for(w, h);
    for (int levels = 0; levels <= dwt_max_levels(w, h); levels++) {
        memcpy(p, orig, n * sizeof *p);
        memcpy(ref, orig, n * sizeof *p);
        dwt53_forward(p, w, h, levels, s);
        ref53_2d(ref, w, h, levels, 0);
        if (memcmp(p, ref, n * sizeof *p) != 0) fail_msg("forward %ux%u, %d levels", w, h, levels);
        dwt53_inverse(p, w, h, levels, s);
        if (memcmp(p, orig, n * sizeof *p) != 0)
            fail_msg("round trip %ux%u, %d levels", w, h, levels);
    }
    free(orig);
    free(p);
    free(ref);
    free(s);
}

static void test_2d_all_sizes(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 0x53);
    for (int i = 0; i < NSIZES; i++)
        for (int j = 0; j < NSIZES; j++) {
            check_2d(&rng, sizes[i], sizes[j], -65536, 65536);
            check_2d(&rng, sizes[i], sizes[j], 0, 255);
        }
}

/* The reference inverse agrees with the library inverse on arbitrary
 * coefficients too (not only on ones made by the forward transform). */
static void test_2d_inverse_matches_reference(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 0x35);
    const uint32_t dims[][2] = {{1, 64}, {64, 1}, {33, 17}, {128, 97}, {257, 3}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        const uint32_t w = dims[d][0], h = dims[d][1];
        const size_t n = (size_t)w * h;
        int32_t *p = random_plane(&rng, n, -4096, 4096), *ref = malloc(n * sizeof *ref),
                *s = scratch_for(w, h);
        memcpy(ref, p, n * sizeof *p);
        const int levels = dwt_max_levels(w, h);
        dwt53_inverse(p, w, h, levels, s);
        ref53_2d(ref, w, h, levels, 1);
        assert_memory_equal(p, ref, n * sizeof *p);
        free(p);
        free(ref);
        free(s);
    }
}

/* A plane as wide as several strips plus a ragged tail, at full 16-bit range. */
static void test_2d_large(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 0x5353);
    check_2d(&rng, 517, 263, -65536, 65536);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_vectors),
        cmocka_unit_test(test_constant_plane),
        cmocka_unit_test(test_1d_matches_reference),
        cmocka_unit_test(test_2d_all_sizes),
        cmocka_unit_test(test_2d_inverse_matches_reference),
        cmocka_unit_test(test_2d_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
