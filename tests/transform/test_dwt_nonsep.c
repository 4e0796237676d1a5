/*
 * test_dwt_nonsep.c -- Barina's non-separable lifting schemes, Monolithic
 * (dwt_mono.h) and Explosive (dwt_expl.h), each through the same checks:
 * 5/3 is exactly reversible on every size and level count; both filters
 * compute the separable transform up to their rounding, checked against a
 * double-precision separable lifting (no rounding) written here; levels of
 * one row or one column are the separable ones bit for bit.
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

static const uint32_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 31, 64, 97};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* A scheme: its name, wavelet identifiers (also the tests' seeds) and its
 * reference functions, called directly (test_dispatch checks the
 * identifiers reach them). */
typedef struct scheme {
    const char *name;
    int w53, w97;
    void (*f53)(int32_t *, uint32_t, uint32_t, int, int32_t *);
    void (*i53)(int32_t *, uint32_t, uint32_t, int, int32_t *);
    void (*f97)(float *, uint32_t, uint32_t, int, float *);
} scheme;

static const scheme schemes[] = {
    {"monolithic", DWT_53_MONO, DWT_97_MONO, dwt53m_forward, dwt53m_inverse, dwt97m_forward},
    {"explosive", DWT_53_EXPL, DWT_97_EXPL, dwt53e_forward, dwt53e_inverse, dwt97e_forward},
};
enum { NSCHEMES = sizeof schemes / sizeof schemes[0] };

/* ---- double-precision separable reference --------------------------------- */

static double at(const double *x, int64_t i, uint32_t n)
{
    if (i < 0) i = -i;
    if (i >= (int64_t)n) i = 2 * (int64_t)n - 2 - i;
    return x[i];
}

/* One 1-D lifting level of n samples (stride apart) in double: 5/3 or 9/7
 * without rounding, low half first. */
static void ref_1d(double *p, size_t stride, uint32_t n, int wavelet)
{
    if (n < 2) return;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (uint32_t i = 0; i < n; i++) x[i] = p[i * stride];
    static const double c97[4] = {-1.586134342059924, -0.052980118572961, 0.882911075530934,
                                  0.443506852043971};
    const double c53[2] = {-0.5, 0.25};
    const int steps = wavelet == 97 ? 4 : 2;
    for (int s = 0; s < steps; s++) {
        const double c = wavelet == 97 ? c97[s] : c53[s];
        memcpy(y, x, n * sizeof *x);
        for (uint32_t i = (s & 1) ? 0 : 1; i < n; i += 2)
            x[i] = y[i] + c * (at(y, (int64_t)i - 1, n) + at(y, (int64_t)i + 1, n));
    }
    if (wavelet == 97)
        for (uint32_t i = 0; i < n; i++)
            x[i] *= (i & 1) ? 1.230174104914001 : 1 / 1.230174104914001;
    const uint32_t nl = (n + 1) / 2;
    for (uint32_t i = 0; i < n; i++) p[(size_t)((i & 1) ? nl + i / 2 : i / 2) * stride] = x[i];
    free(x);
    free(y);
}

static void ref_2d(double *p, uint32_t w, uint32_t h, int levels, int wavelet)
{
    for (int l = 0; l < levels; l++) {
        uint32_t lw = w, lh = h;
        for (int k = 0; k < l; k++) lw = (lw + 1) / 2, lh = (lh + 1) / 2;
        for (uint32_t c = 0; c < lw; c++) ref_1d(p + c, w, lh, wavelet);
        for (uint32_t r = 0; r < lh; r++) ref_1d(p + (size_t)r * w, 1, lw, wavelet);
    }
}

/* ---- 5/3 ---------------------------------------------------------------------- */

static void check53(const scheme *sc, test_rng *rng, uint32_t w, uint32_t h, int32_t amp)
{
    const size_t n = (size_t)w * h;
    int32_t *orig = malloc(n * sizeof *orig), *p = malloc(n * sizeof *p),
            *sep = malloc(n * sizeof *sep);
    int32_t *s = malloc(dwt_scratch_elems(w, h) * sizeof *s);
    double *ref = malloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++) orig[i] = test_rng_range(rng, -amp, amp);
    for (int levels = 0; levels <= dwt_max_levels(w, h); levels++) {
        memcpy(p, orig, n * sizeof *p);
        sc->f53(p, w, h, levels, s);
        if (levels == 1) {
            /* One level: within the combined steps' rounding of the exact
             * linear transform (predict <= 1, update <= 1 + 1/4 of it). */
            for (size_t i = 0; i < n; i++) ref[i] = orig[i];
            ref_2d(ref, w, h, 1, 53);
            for (size_t i = 0; i < n; i++)
                if (fabs(p[i] - ref[i]) > 2.0)
                    fail_msg("5/3 %s %ux%u coefficient %zu: %d, exact %.3f", sc->name, w, h, i,
                             p[i], ref[i]);
        }
        if (w == 1 || h == 1) { /* one direction: the separable bits */
            memcpy(sep, orig, n * sizeof *sep);
            dwt53_forward(sep, w, h, levels, s);
            assert_memory_equal(p, sep, n * sizeof *p);
        }
        dwt_int_inverse(sc->w53, p, w, h, levels, s);
        if (memcmp(p, orig, n * sizeof *p) != 0)
            fail_msg("5/3 %s %ux%u, %d levels: not reversible", sc->name, w, h, levels);
    }
    free(orig);
    free(p);
    free(sep);
    free(s);
    free(ref);
}

static void test_53_reversible_all_sizes(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEMES; k++) {
        test_rng rng;
        test_rng_seed(&rng, (uint32_t)schemes[k].w53);
        for (int i = 0; i < NSIZES; i++)
            for (int j = 0; j < NSIZES; j++) check53(&schemes[k], &rng, sizes[i], sizes[j], 255);
    }
}

/* Full-range damaged-file values: sums wrap, the inverse still undoes it. */
static void test_53_reversible_wrapping(void **state)
{
    (void)state;
    const uint32_t w = 37, h = 29;
    const size_t n = (size_t)w * h;
    int32_t *orig = malloc(n * sizeof *orig), *p = malloc(n * sizeof *p);
    int32_t *s = malloc(dwt_scratch_elems(w, h) * sizeof *s);
    for (int k = 0; k < NSCHEMES; k++) {
        test_rng rng;
        test_rng_seed(&rng, 1000u + (uint32_t)schemes[k].w53);
        for (size_t i = 0; i < n; i++) orig[i] = (int32_t)test_rng_u32(&rng);
        memcpy(p, orig, n * sizeof *p);
        schemes[k].f53(p, w, h, 4, s);
        schemes[k].i53(p, w, h, 4, s);
        assert_memory_equal(p, orig, n * sizeof *p);
    }
    free(orig);
    free(p);
    free(s);
}

/* A constant plane: everything but the coarsest LL is 0, the LL keeps it. */
static void test_53_constant(void **state)
{
    (void)state;
    const uint32_t w = 45, h = 22;
    int32_t p[45 * 22], s[64 * 22];
    for (int k = 0; k < NSCHEMES; k++) {
        for (size_t i = 0; i < (size_t)w * h; i++) p[i] = 77;
        schemes[k].f53(p, w, h, 3, s);
        for (uint32_t r = 0; r < h; r++)
            for (uint32_t c = 0; c < w; c++)
                assert_int_equal(p[r * w + c], r < 3 && c < 6 ? 77 : 0);
    }
}

/* ---- 9/7 ------------------------------------------------------------------------ */

static void check97(const scheme *sc, test_rng *rng, uint32_t w, uint32_t h)
{
    const size_t n = (size_t)w * h;
    float *orig = malloc(n * sizeof *orig), *p = malloc(n * sizeof *p),
          *sep = malloc(n * sizeof *sep);
    float *s = malloc(dwt_scratch_elems(w, h) * sizeof *s);
    double *ref = malloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++) orig[i] = (float)(256.0 * test_rng_unit(rng) - 128.0);
    for (int levels = 0; levels <= dwt_max_levels(w, h); levels++) {
        memcpy(p, orig, n * sizeof *p);
        sc->f97(p, w, h, levels, s);
        for (size_t i = 0; i < n; i++) ref[i] = orig[i];
        ref_2d(ref, w, h, levels, 97);
        /* Float rounding of samples of magnitude 128 through up to 8
         * levels: the bound the separable float transform also meets. */
        for (size_t i = 0; i < n; i++)
            if (fabs(p[i] - ref[i]) > 2e-3)
                fail_msg("9/7 %s %ux%u, %d levels, coefficient %zu: %.7g, double %.7g", sc->name, w,
                         h, levels, i, p[i], ref[i]);
        if (w == 1 || h == 1) {
            memcpy(sep, orig, n * sizeof *sep);
            dwt97_forward(sep, w, h, levels, s);
            assert_memory_equal(p, sep, n * sizeof *p);
        }
        dwt_float_inverse(sc->w97, p, w, h, levels, s);
        for (size_t i = 0; i < n; i++)
            if (fabsf(p[i] - orig[i]) >= 1e-3f)
                fail_msg("9/7 %s %ux%u, %d levels: sample %zu off by %g", sc->name, w, h, levels, i,
                         p[i] - orig[i]);
    }
    free(orig);
    free(p);
    free(sep);
    free(s);
    free(ref);
}

static void test_97_against_double_all_sizes(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEMES; k++) {
        test_rng rng;
        test_rng_seed(&rng, (uint32_t)schemes[k].w97);
        for (int i = 0; i < NSIZES; i++)
            for (int j = 0; j < NSIZES; j++) check97(&schemes[k], &rng, sizes[i], sizes[j]);
        check97(&schemes[k], &rng, 263, 131);
    }
}

/* The dispatch: each identifier reaches its own transform. */
static void test_dispatch(void **state)
{
    (void)state;
    const uint32_t w = 16, h = 16;
    int32_t a[256], b[256], s[64 * 16];
    for (int k = 0; k < NSCHEMES; k++) {
        for (int i = 0; i < 256; i++) a[i] = b[i] = (i * 37) % 101 - 50;
        dwt_int_forward(schemes[k].w53, a, w, h, 2, s);
        schemes[k].f53(b, w, h, 2, s);
        assert_memory_equal(a, b, sizeof a);
        assert_int_equal(dwt_family(schemes[k].w53), 53);
        assert_int_equal(dwt_family(schemes[k].w97), 97);
        assert_true(dwt_band_gain(schemes[k].w97, 2, DWT_HL) == dwt_band_gain(DWT_97, 2, DWT_HL));
    }
    for (int i = 0; i < 256; i++) a[i] = b[i] = (i * 37) % 101 - 50;
    dwt_int_forward(DWT_53, a, w, h, 2, s);
    dwt53_forward(b, w, h, 2, s);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(dwt_family(54), 0);
    assert_true(dwt_is_mono(DWT_97_MONO) && !dwt_is_expl(DWT_97_MONO));
    assert_true(dwt_is_expl(DWT_97_EXPL) && !dwt_is_mono(DWT_97_EXPL));
    /* The two schemes round differently: other bits. */
    for (int i = 0; i < 256; i++) a[i] = b[i] = (i * 37) % 101 - 50;
    dwt_int_forward(DWT_53_EXPL, a, w, h, 2, s);
    dwt_int_forward(DWT_53_MONO, b, w, h, 2, s);
    assert_memory_not_equal(a, b, sizeof a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_53_reversible_all_sizes),
        cmocka_unit_test(test_53_reversible_wrapping),
        cmocka_unit_test(test_53_constant),
        cmocka_unit_test(test_97_against_double_all_sizes),
        cmocka_unit_test(test_dispatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
