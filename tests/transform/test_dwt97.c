/*
 * test_dwt97.c -- the CDF 9/7 float wavelet: the lifting against a direct
 * convolution with the JPEG 2000 analysis filters, the 2-D transform
 * against the 1-D one bit for bit (the contract the CUDA kernels copy), and
 * reconstruction to float rounding.
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
#include "test_support.h"

static const uint32_t sizes[] = {1, 2, 3, 5, 7, 13, 31, 64, 97, 128, 257};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* JPEG 2000 Part 1, Table F.4: the 9/7 analysis filters, low-pass with DC
 * gain 1 (taps 0..4 of a symmetric 9-tap filter), high-pass with Nyquist
 * gain 2 (taps 0..3 of a symmetric 7-tap filter centred on an odd sample). */
static const double h_low[5] = {0.602949018236360, 0.266864118442875, -0.078223266528990,
                                -0.016864118442875, 0.026748757410810};
static const double h_high[4] = {1.115087052456994, -0.591271763114250, -0.057543526228500,
                                 0.091271763114250};

static uint32_t reflect(int64_t i, uint32_t n)
{
    const int64_t period = 2 * ((int64_t)n - 1);
    i %= period;
    if (i < 0) i += period;
    return (uint32_t)(i < (int64_t)n ? i : period - i);
}

/* Direct convolution with symmetric extension, low half then high half. */
static void conv97_forward(const float *x, uint32_t n, double *out)
{
    const uint32_t nl = (n + 1) / 2;
    for (uint32_t k = 0; k < n; k++) {
        const int odd = k & 1;
        const double *h = odd ? h_high : h_low;
        const int taps = odd ? 4 : 5;
        double acc = h[0] * x[k];
        for (int t = 1; t < taps; t++)
            acc += h[t] * ((double)x[reflect((int64_t)k - t, n)] + x[reflect((int64_t)k + t, n)]);
        out[odd ? nl + k / 2 : k / 2] = acc;
    }
}

static float *random_floats(test_rng *rng, size_t n, double lo, double hi)
{
    float *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = (float)(lo + (hi - lo) * test_rng_unit(rng));
    return p;
}

static float *scratch_for(uint32_t w, uint32_t h)
{
    return malloc(dwt_scratch_elems(w, h) * sizeof(float));
}

/* ---- 1-D ------------------------------------------------------------------- */

static void test_1d_matches_convolution(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 97);
    const uint32_t lens[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 33, 64, 101, 256};
    float s[256], x[256];
    double ref[256];
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        const uint32_t n = lens[l];
        float *in = random_floats(&rng, n, -128.0, 127.0);
        memcpy(x, in, n * sizeof *x);
        dwt97_forward_1d(x, n, s);
        conv97_forward(in, n, ref);
        /* Relative to the signal's scale: float lifting rounds each step
         * near the magnitude of the samples, not of the coefficient. */
        for (uint32_t i = 0; i < n; i++)
            if (fabs(x[i] - ref[i]) > 1e-4 * fmax(fabs(ref[i]), 128.0))
                fail_msg("n=%u coefficient %u: lifting %.9g, convolution %.9g", n, i, x[i], ref[i]);
        free(in);
    }
}

static void test_1d_known(void **state)
{
    (void)state;
    float s[64], x[64];
    /* A constant: low-pass DC gain 1, no high-pass. */
    for (int i = 0; i < 64; i++) x[i] = 100.0f;
    dwt97_forward_1d(x, 63, s);
    for (int i = 0; i < 32; i++) assert_true(fabsf(x[i] - 100.0f) < 1e-3f);
    for (int i = 32; i < 63; i++) assert_true(fabsf(x[i]) < 1e-3f);
    /* Alternating +-1 (away from the edges): high-pass Nyquist gain 2. */
    for (int i = 0; i < 64; i++) x[i] = (i & 1) ? -1.0f : 1.0f;
    dwt97_forward_1d(x, 64, s);
    for (int i = 4; i < 28; i++) assert_true(fabsf(x[i]) < 1e-5f);
    for (int i = 32 + 4; i < 64 - 4; i++) assert_true(fabsf(x[i] - -2.0f) < 1e-5f);
    /* Length 1 is left alone, unscaled. */
    x[0] = 3.5f;
    dwt97_forward_1d(x, 1, s);
    assert_true(x[0] == 3.5f);
}

/* ---- 2-D --------------------------------------------------------------------- */

/* The 2-D transform built from the public 1-D one: per level, each column of
 * the LL region through dwt97_forward_1d, then each row. */
static void naive97_2d(float *p, uint32_t w, uint32_t h, int levels, int inverse)
{
    float *col = malloc(h * sizeof *col), *s = malloc((w > h ? w : h) * sizeof *s);
    for (int i = 0; i < levels; i++) {
        const int l = inverse ? levels - 1 - i : i;
        uint32_t lw = w, lh = h;
        for (int k = 0; k < l; k++) lw = (lw + 1) / 2, lh = (lh + 1) / 2;
        if (inverse)
            for (uint32_t y = 0; y < lh; y++) dwt97_inverse_1d(p + (size_t)y * w, lw, s);
        for (uint32_t x = 0; x < lw; x++) {
            for (uint32_t y = 0; y < lh; y++) col[y] = p[(size_t)y * w + x];
            if (inverse)
                dwt97_inverse_1d(col, lh, s);
            else
                dwt97_forward_1d(col, lh, s);
            for (uint32_t y = 0; y < lh; y++) p[(size_t)y * w + x] = col[y];
        }
        if (!inverse)
            for (uint32_t y = 0; y < lh; y++) dwt97_forward_1d(p + (size_t)y * w, lw, s);
    }
    free(col);
    free(s);
}

static void check_2d(test_rng *rng, uint32_t w, uint32_t h)
{
    const size_t n = (size_t)w * h;
    float *orig = random_floats(rng, n, -128.0, 127.0);
    float *p = malloc(n * sizeof *p), *ref = malloc(n * sizeof *ref), *s = scratch_for(w, h);
    for (int levels = 0; levels <= dwt_max_levels(w, h); levels++) {
        memcpy(p, orig, n * sizeof *p);
        memcpy(ref, orig, n * sizeof *p);
        dwt97_forward(p, w, h, levels, s);
        naive97_2d(ref, w, h, levels, 0);
        if (memcmp(p, ref, n * sizeof *p) != 0)
            fail_msg("forward %ux%u, %d levels: not bit-exact", w, h, levels);
        dwt97_inverse(p, w, h, levels, s);
        naive97_2d(ref, w, h, levels, 1);
        if (memcmp(p, ref, n * sizeof *p) != 0)
            fail_msg("inverse %ux%u, %d levels: not bit-exact", w, h, levels);
        for (size_t i = 0; i < n; i++)
            if (fabsf(p[i] - orig[i]) >= 1e-3f)
                fail_msg("round trip %ux%u, %d levels: sample %zu off by %g", w, h, levels, i,
                         p[i] - orig[i]);
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
    test_rng_seed(&rng, 0x97);
    for (int i = 0; i < NSIZES; i++)
        for (int j = 0; j < NSIZES; j++) check_2d(&rng, sizes[i], sizes[j]);
}

/* 5 levels of 8-bit data on a plane of several strips with a ragged tail. */
static void test_2d_large(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 0x9797);
    const uint32_t w = 517, h = 263;
    const size_t n = (size_t)w * h;
    float *orig = random_floats(&rng, n, 0.0, 255.0), *p = malloc(n * sizeof *p),
          *s = scratch_for(w, h);
    memcpy(p, orig, n * sizeof *p);
    dwt97_forward(p, w, h, 5, s);
    dwt97_inverse(p, w, h, 5, s);
    float err = 0;
    for (size_t i = 0; i < n; i++) err = fmaxf(err, fabsf(p[i] - orig[i]));
    assert_true(err < 1e-3f);
    free(orig);
    free(p);
    free(s);
    check_2d(&rng, w, h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1d_matches_convolution),
        cmocka_unit_test(test_1d_known),
        cmocka_unit_test(test_2d_all_sizes),
        cmocka_unit_test(test_2d_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
