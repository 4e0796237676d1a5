/*
 * test_ratectl.c -- rate control's counts (codec/ratectl.c): rc_count_block
 * gives, at every step of the window, exactly the counts of bc_count over
 * the block quantized with quant_value, the plain reading of ratectl.h's
 * rule. Its shortcuts (the block's largest magnitude deciding an all-zero
 * block, magnitudes quantized straight into the block coder's plane) must
 * change no count, so the rule's step stays the same function of the
 * image and target.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "block_coder.h"
#include "layout.h"
#include "plan.h"
#include "quantizer.h"
#include "ratectl.h"
#include "test_support.h"
#include "wcodec.h"

/* A value of one of several sizes: zeros, the quantizer's dead zone,
 * everyday magnitudes, and some far above the block coder's magnitude cap
 * at fine steps (the shortcut must hand those to bc_count). */
static float rand_value(test_rng *r, int kind)
{
    const double u = test_rng_unit(r);
    const double sign = test_rng_unit(r) < 0.5 ? -1.0 : 1.0;
    switch (kind) {
    case 0: return 0.0f;
    case 1: return (float)(sign * u * 3.0);
    case 2: return (float)(sign * exp2(u * 12.0));
    default: return (float)(sign * exp2(u * 28.0));
    }
}

static void fill_block(test_rng *r, float *f, int32_t *iv, uint32_t n, int mix)
{
    for (uint32_t i = 0; i < n; i++) {
        /* mix 0: all zeros; 1: small; 2: sparse everyday; 3: with huge ones */
        int kind = 0;
        const double u = test_rng_unit(r);
        if (mix == 1) kind = 1;
        if (mix == 2) kind = u < 0.6 ? 0 : u < 0.8 ? 1 : 2;
        if (mix == 3) kind = u < 0.5 ? 0 : u < 0.97 ? 2 : 3;
        f[i] = rand_value(r, kind);
        iv[i] = (int32_t)f[i];
    }
}

static void check_counts(uint32_t iw, uint32_t ih, uint32_t nc, int wavelet, float threshold,
                         float bpp, test_rng *r)
{
    wc_params p;
    wc_params_init(&p);
    p.lossless = 0;
    p.wavelet = wavelet;
    p.threshold = threshold;
    wc_image shape = {iw, ih, nc, 8, 0, NULL};
    wcx_header h;
    plan_header(&p, &shape, 1.0f, &h);
    wc_layout lay;
    layout_bands(&h, &lay);
    wc_stage_plan plan;
    plan_from_header(&h, threshold, &plan);
    assert_true(ratectl_rule_applies(&h));
    rc_rule rc;
    wc_err err;
    assert_int_equal(rc_init(&rc, &h, &lay, plan.threshold, bpp, 0, &err), WC_OK);

    /* a block of each band, side by side in a plane of stride `stride` */
    const uint32_t side = 1u << h.block_log2, stride = side + 3;
    float *f = malloc((size_t)stride * side * sizeof *f);
    int32_t *iv = malloc((size_t)stride * side * sizeof *iv);
    int32_t *q = malloc((size_t)side * side * sizeof *q);
    uint32_t *scratch = malloc(bc_scratch_elems() * sizeof *scratch);
    const size_t nf = (size_t)nc * WC_NCLASS;
    bc_freq *ref = calloc(RC_WINDOW * nf, sizeof *ref);
    assert_true(f && iv && q && scratch && ref);
    /* histograms of random values place the window somewhere new each case */
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t b = 0; b < lay.nbands[c]; b++) {
            fill_block(r, f, iv, stride * side, 2);
            rc_hist(&rc, c, b, f, NULL, (size_t)stride * side);
        }
    rc_first_window(&rc);

    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t b = 0; b < lay.nbands[c]; b++) {
            const wc_band_info *bi = &lay.band[c][b];
            if (bi->w == 0 || bi->h == 0) continue;
            const uint32_t bw = bi->w < side ? bi->w : side, bh = bi->h < side ? bi->h : side;
            const int orient = bi->orient == 1 ? BC_VERT : bi->orient == 2 ? BC_HORZ : BC_ISO;
            for (int mix = 0; mix < 4; mix++)
                for (int as_int = 0; as_int < 2; as_int++) {
                    fill_block(r, f, iv, stride * side, mix);
                    rc_count_block(&rc, c, b, as_int ? NULL : f, as_int ? iv : NULL, stride, bw, bh,
                                   q, scratch);
                    for (int k = 0; k < RC_WINDOW; k++) {
                        const float st = rc.step[k][c][b], th = plan.threshold[c];
                        for (uint32_t y = 0; y < bh; y++)
                            for (uint32_t x = 0; x < bw; x++) {
                                const size_t i = (size_t)y * stride + x;
                                /* rc_count_block's int identity: kept as it is */
                                q[(size_t)y * bw + x] =
                                    as_int ? (quant_int_is_identity(st, th)
                                                  ? iv[i]
                                                  : quant_value((float)iv[i], st, th))
                                           : quant_value(f[i], st, th);
                            }
                        const bc_block blk = {
                            q, bw, bh, bw, bi->predict, orient, (h.flags & 1) ? 1u : 3u};
                        bc_count(&blk, ref[(size_t)k * nf + c * WC_NCLASS + bi->cls], scratch);
                    }
                }
        }
    for (int k = 0; k < RC_WINDOW; k++)
        if (memcmp(rc.freq + (size_t)k * nf, ref + (size_t)k * nf, nf * sizeof *ref))
            fail_msg("%ux%u x%u wavelet %d threshold %g bpp %g: counts of step %d (m %d) differ",
                     iw, ih, nc, wavelet, (double)threshold, (double)bpp, k, rc.m_lo + k);
    rc_free(&rc);
    free(f);
    free(iv);
    free(q);
    free(scratch);
    free(ref);
}

static void test_count_block_exact(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 41);
    static const uint32_t shapes[][2] = {{1, 1}, {1, 17}, {17, 1}, {7, 5}, {97, 101}, {300, 131}};
    static const float bpps[] = {0.02f, 0.5f, 3.0f, 12.0f};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t j = 0; j < sizeof bpps / sizeof bpps[0]; j++)
            check_counts(shapes[s][0], shapes[s][1], 1 + (uint32_t)((s + j) % 3),
                         (s + j) % 2 ? 53 : 97, j == 2 ? 1.5f : 0.0f, bpps[j], &r);
}

/* bc_count_mags over a plane of magnitudes counts as bc_count over the
 * signed values, on every size, orientation and run mode. */
static void test_count_mags_equals_count(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 43);
    static const uint32_t sides[] = {1, 2, 3, 16, 31, 97, 128};
    uint32_t *scratch = malloc(bc_scratch_elems() * sizeof *scratch);
    int32_t *v = malloc((size_t)BC_MAX_SIDE * BC_MAX_SIDE * sizeof *v);
    assert_true(scratch && v);
    for (size_t a = 0; a < sizeof sides / sizeof sides[0]; a++)
        for (size_t b = 0; b < sizeof sides / sizeof sides[0]; b++)
            for (int orient = 0; orient < 3; orient++)
                for (uint32_t run_max = 1; run_max <= 3; run_max += 2) {
                    const uint32_t w = sides[a], h = sides[b];
                    const double density = test_rng_unit(&r);
                    for (size_t i = 0; i < (size_t)w * h; i++) {
                        const int32_t m =
                            test_rng_unit(&r) < density
                                ? (int32_t)test_rng_range(&r, 0, (int32_t)bc_mags_cap() - 1) >>
                                      test_rng_range(&r, 0, 19)
                                : 0;
                        v[i] = test_rng_unit(&r) < 0.5 ? -m : m;
                    }
                    bc_freq want, got;
                    memset(want, 0, sizeof want);
                    memset(got, 0, sizeof got);
                    const bc_block blk = {v, w, h, w, 0, orient, run_max};
                    bc_count(&blk, want, scratch);
                    uint32_t *plane = bc_mags_plane(scratch, w, h);
                    for (uint32_t y = 0; y < h; y++)
                        for (uint32_t x = 0; x < w; x++)
                            plane[(size_t)y * (w + 4) + x] = quant_mag(v[(size_t)y * w + x]);
                    bc_count_mags(w, h, orient, run_max, got, scratch);
                    if (memcmp(want, got, sizeof want))
                        fail_msg("%ux%u orient %d run_max %u: counts differ", w, h, orient,
                                 run_max);
                }
    free(scratch);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_block_exact),
        cmocka_unit_test(test_count_mags_equals_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
