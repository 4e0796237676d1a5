/*
 * test_dwt_bands.c -- subband geometry (the bands tile the plane and sit
 * where the transforms put them) and the synthesis gains (the table in
 * dwt_bands.c recomputed with the library's own inverse transforms).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dwt.h"

static const uint32_t sizes[] = {1, 2, 3, 5, 7, 13, 31, 64, 97, 128, 257, 1000};
enum { NSIZES = sizeof sizes / sizeof sizes[0], MAXB = 3 * 15 + 1 };

static void test_max_levels(void **state)
{
    (void)state;
    assert_int_equal(dwt_max_levels(1, 1), 0);
    assert_int_equal(dwt_max_levels(0, 5), 0);
    assert_int_equal(dwt_max_levels(2, 1), 1);
    assert_int_equal(dwt_max_levels(1, 3), 2);
    assert_int_equal(dwt_max_levels(64, 64), 6);
    assert_int_equal(dwt_max_levels(65, 2), 7);
    assert_int_equal(dwt_max_levels(4096, 3000), 12);
    assert_int_equal(dwt_max_levels(1u << 20, 1), 15); /* capped */
}

static uint32_t halve_up(uint32_t n, int times)
{
    while (times-- > 0) n = (n + 1) / 2;
    return n;
}

/* Every sample belongs to exactly one band; sizes follow ceil/floor halving. */
static void check_tiling(uint32_t w, uint32_t h, int levels)
{
    dwt_band b[MAXB];
    const unsigned nb = dwt_bands(w, h, levels, b);
    assert_int_equal(nb, 3u * (unsigned)levels + 1);
    unsigned char *hit = calloc((size_t)w * h, 1);
    for (unsigned k = 0; k < nb; k++) {
        assert_true(b[k].x0 + b[k].w <= w && b[k].y0 + b[k].h <= h);
        for (uint32_t y = b[k].y0; y < b[k].y0 + b[k].h; y++)
            for (uint32_t x = b[k].x0; x < b[k].x0 + b[k].w; x++) hit[(size_t)y * w + x]++;
    }
    for (size_t i = 0; i < (size_t)w * h; i++)
        if (hit[i] != 1)
            fail_msg("%ux%u, %d levels: sample %zu covered %d times", w, h, levels, i, hit[i]);
    free(hit);

    assert_int_equal(b[0].orient, DWT_LL);
    assert_int_equal(b[0].level, levels);
    assert_int_equal(b[0].w, halve_up(w, levels));
    assert_int_equal(b[0].h, halve_up(h, levels));
    for (int l = levels, k = 1; l >= 1; l--, k += 3) {
        const uint32_t pw = halve_up(w, l - 1), ph = halve_up(h, l - 1);
        const dwt_band *hl = &b[k], *lh = &b[k + 1], *hh = &b[k + 2];
        assert_int_equal(hl->orient, DWT_HL);
        assert_int_equal(lh->orient, DWT_LH);
        assert_int_equal(hh->orient, DWT_HH);
        assert_int_equal(hl->level, l);
        assert_int_equal(hh->level, l);
        assert_int_equal(hl->w, pw / 2);
        assert_int_equal(hl->h, (ph + 1) / 2);
        assert_int_equal(lh->w, (pw + 1) / 2);
        assert_int_equal(lh->h, ph / 2);
        assert_int_equal(hh->w, pw / 2);
        assert_int_equal(hh->h, ph / 2);
        assert_int_equal(hl->x0, (pw + 1) / 2);
        assert_int_equal(lh->y0, (ph + 1) / 2);
    }
}

static void test_bands_tile(void **state)
{
    (void)state;
    for (int i = 0; i < NSIZES; i++)
        for (int j = 0; j < NSIZES; j++)
            for (int l = 0; l <= dwt_max_levels(sizes[i], sizes[j]); l++)
                check_tiling(sizes[i], sizes[j], l);
}

/* A 1-pixel-wide plane has no horizontal detail: HL and HH are empty. */
static void test_thin_planes(void **state)
{
    (void)state;
    dwt_band b[MAXB];
    const int levels = dwt_max_levels(1, 50);
    const unsigned nb = dwt_bands(1, 50, levels, b);
    for (unsigned k = 1; k < nb; k++) {
        if (b[k].orient == DWT_LH)
            assert_true(b[k].w == 1 && b[k].h > 0);
        else
            assert_true(b[k].w == 0);
    }
    assert_true(b[0].w == 1 && b[0].h == 1);
}

/* The bands sit where the transform puts its coefficients: detail-free
 * input leaves exactly the bands that should be zero at zero. */
static void test_bands_match_transform(void **state)
{
    (void)state;
    const uint32_t w = 45, h = 23;
    const int levels = dwt_max_levels(w, h);
    dwt_band b[MAXB];
    dwt_bands(w, h, levels, b);
    int32_t *p = calloc((size_t)w * h, sizeof *p), *s = malloc(dwt_scratch_elems(w, h) * sizeof *s);
    for (int32_t v = 1; v <= 100; v *= 10) {
        /* A constant plane after the forward transform lives in LL alone. */
        for (size_t i = 0; i < (size_t)w * h; i++) p[i] = v;
        dwt53_forward(p, w, h, levels, s);
        assert_int_equal(p[(size_t)b[0].y0 * w + b[0].x0], v);
        for (size_t i = 1; i < (size_t)w * h; i++) assert_int_equal(p[i], 0);
    }
    /* A horizontal ramp at one level: LH and HH (vertical detail) are zero. */
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) p[(size_t)y * w + x] = (int32_t)(x * x);
    dwt53_forward(p, w, h, 1, s);
    dwt_bands(w, h, 1, b);
    for (unsigned k = 2; k < 4; k++)
        for (uint32_t y = b[k].y0; y < b[k].y0 + b[k].h; y++)
            for (uint32_t x = b[k].x0; x < b[k].x0 + b[k].w; x++)
                assert_int_equal(p[(size_t)y * w + x], 0);
    free(p);
    free(s);
}

/* ---- gains ---------------------------------------------------------------------- */

/* 1-D gain of a band at `level`, by the library's inverse transforms: a
 * coefficient of amplitude amp at the centre of the band, `level` inverse
 * steps, energy / amp^2. The 5/3 path is integer, so amp is large enough
 * that its rounding is far below the tolerance. */
static double gain_1d(int wavelet, int level, int high)
{
    const uint32_t n = 32u << level, nlev = n >> level;
    const uint32_t pos = high ? nlev + nlev / 2 : nlev / 2;
    const double amp = wavelet == 53 ? 16777216.0 : 1.0;
    double energy = 0;
    if (wavelet == 53) {
        int32_t *x = calloc(n, sizeof *x), *s = malloc(n * sizeof *s);
        x[pos] = (int32_t)amp;
        for (int l = level; l >= 1; l--) dwt53_inverse_1d(x, n >> (l - 1), s);
        for (uint32_t i = 0; i < n; i++) energy += (double)x[i] * x[i];
        free(x);
        free(s);
    } else {
        float *x = calloc(n, sizeof *x), *s = malloc(n * sizeof *s);
        x[pos] = 1.0f;
        for (int l = level; l >= 1; l--) dwt97_inverse_1d(x, n >> (l - 1), s);
        for (uint32_t i = 0; i < n; i++) energy += (double)x[i] * x[i];
        free(x);
        free(s);
    }
    return energy / (amp * amp);
}

static void test_gain_table(void **state)
{
    (void)state;
    for (int wavelet = 53; wavelet <= 97; wavelet += 44)
        for (int level = 1; level <= 15; level++) {
            const double lo = gain_1d(wavelet, level, 0), hi = gain_1d(wavelet, level, 1);
            const double want[4] = {lo * lo, hi * lo, lo * hi, hi * hi};
            for (int o = DWT_LL; o <= DWT_HH; o++) {
                const double got = dwt_band_gain(wavelet, level, o);
                if (fabs(got - want[o]) > 1e-4 * want[o])
                    fail_msg("%d level %d orient %d: table %.9g, computed %.9g", wavelet, level, o,
                             got, want[o]);
            }
        }
}

static void test_gain_properties(void **state)
{
    (void)state;
    /* Known 5/3 values: synthesis filters (1/2, 1, 1/2) and (-1/8, -1/4, 3/4, ...). */
    assert_true(fabs(dwt_band_gain(53, 1, DWT_LL) - 2.25) < 1e-12);
    assert_true(fabs(dwt_band_gain(53, 1, DWT_HH) - 0.71875 * 0.71875) < 1e-12);
    for (int wavelet = 53; wavelet <= 97; wavelet += 44) {
        assert_true(dwt_band_gain(wavelet, 0, DWT_LL) == 1.0);
        double prev = 1.0;
        for (int level = 1; level <= 15; level++) {
            const double ll = dwt_band_gain(wavelet, level, DWT_LL);
            assert_true(ll > prev);
            prev = ll;
            for (int o = DWT_HL; o <= DWT_HH; o++)
                assert_true(dwt_band_gain(wavelet, level, o) > 0);
            assert_true(dwt_band_gain(wavelet, level, DWT_HL) ==
                        dwt_band_gain(wavelet, level, DWT_LH));
        }
    }
    assert_true(dwt_band_gain(44, 1, DWT_LL) == 0);
    assert_true(dwt_band_gain(97, 16, DWT_LL) == 0);
    assert_true(dwt_band_gain(97, 0, DWT_HH) == 0);
}

/* The 2-D gain is the product of the 1-D ones: check one band in 2-D. */
static void test_gain_2d(void **state)
{
    (void)state;
    const uint32_t w = 128, h = 128;
    const int levels = 2;
    dwt_band b[MAXB];
    dwt_bands(w, h, levels, b);
    float *p = malloc(w * h * sizeof *p), *s = malloc(dwt_scratch_elems(w, h) * sizeof *s);
    for (unsigned k = 0; k < 4; k++) { /* LL(2), HL(2), LH(2), HH(2) */
        memset(p, 0, w * h * sizeof *p);
        p[(size_t)(b[k].y0 + b[k].h / 2) * w + b[k].x0 + b[k].w / 2] = 1.0f;
        dwt97_inverse(p, w, h, levels, s);
        double e = 0;
        for (size_t i = 0; i < (size_t)w * h; i++) e += (double)p[i] * p[i];
        const double want = dwt_band_gain(97, b[k].level, b[k].orient);
        if (fabs(e - want) > 1e-4 * want)
            fail_msg("band %u: 2-D energy %.9g, gain %.9g", k, e, want);
    }
    free(p);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_levels),  cmocka_unit_test(test_bands_tile),
        cmocka_unit_test(test_thin_planes), cmocka_unit_test(test_bands_match_transform),
        cmocka_unit_test(test_gain_table),  cmocka_unit_test(test_gain_properties),
        cmocka_unit_test(test_gain_2d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
