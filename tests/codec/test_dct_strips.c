/*
 * test_dct_strips.c -- the CPU backend's one-pass DCT encode
 * (codec/dct_strips.c) gives exactly the general path's coefficients:
 * colour, padding, DCT and quantization plane by plane, then the band
 * regrouping, over odd, prime, 1-pixel and multiple-of-8 sizes, gray to
 * RGBA, 8 and 16 bits, thresholds and one or two threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "dct_strips.h"
#include "layout.h"
#include "test_support.h"
#include "wcodec.h"

static void check_case(uint32_t w, uint32_t h, uint32_t comps, uint32_t depth, float threshold,
                       int threads, test_rng *r)
{
    wc_image img = {w, h, comps, depth, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    const uint32_t maxv = (1u << depth) - 1;
    for (size_t i = 0; i < (size_t)w * h * comps; i++) {
        /* Smooth with noise, so every frequency gets values of all sizes. */
        uint32_t v =
            (uint32_t)((i / comps) % w * 3 + (i / comps) / w * 5 + test_rng_range(r, 0, 40)) & maxv;
        if (depth > 8)
            ((uint16_t *)img.pixels)[i] = (uint16_t)v;
        else
            ((uint8_t *)img.pixels)[i] = (uint8_t)v;
    }
    wc_stage_plan p;
    memset(&p, 0, sizeof p);
    p.width = w;
    p.height = h;
    p.components = comps;
    p.bit_depth = depth;
    p.colour = comps >= 3 ? WC_COLOUR_ICT : WC_COLOUR_NONE;
    for (uint32_t c = 0; c < comps; c++) {
        p.transform[c] = WC_TRANSFORM_DCT;
        p.threshold[c] = threshold;
        for (int k = 0; k < 64; k++) p.steps[c][k] = 0.75f + 0.25f * (float)((k * 7 + (int)c) % 13);
    }
    p.recon = 0.4f;
    p.quantize = 1;
    p.threads = threads;

    const uint32_t pw = (w + 7) & ~7u, ph = (h + 7) & ~7u;
    const size_t n = (size_t)pw * ph;
    wc_coeffs a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.components = b.components = comps;
    for (uint32_t c = 0; c < comps; c++) {
        a.width[c] = b.width[c] = pw;
        a.height[c] = b.height[c] = ph;
        a.q[c] = malloc(n * sizeof(int32_t));
        b.q[c] = malloc(n * sizeof(int32_t));
    }
    const wc_backend_ops *cpu = wc_backend_cpu();
    void *self = NULL;
    wc_err err = {{0}};
    assert_int_equal(cpu->create(&self, &err), WC_OK);
    assert_int_equal(cpu->forward(self, &p, &img, &a, &err), WC_OK); /* general path */
    assert_int_equal(a.banded, 0);
    p.band_output = 1;
    assert_int_equal(cpu->forward(self, &p, &img, &b, &err), WC_OK); /* strips */
    assert_int_equal(b.banded, 1);
    int32_t *banded = malloc(n * sizeof(int32_t));
    for (uint32_t c = 0; c < comps; c++) {
        layout_blocks_to_bands(a.q[c], banded, pw, ph);
        if (memcmp(banded, b.q[c], n * sizeof(int32_t)) != 0)
            fail_msg(
                "%ux%u, %u components, %u bits, threshold %g, %d threads: component %u differs", w,
                h, comps, depth, (double)threshold, threads, c);
        free(a.q[c]);
        free(b.q[c]);
    }
    free(banded);
    cpu->destroy(self);
    wc_image_free(&img);
}

static void test_same_as_general_path(void **state)
{
    (void)state;
    static const uint32_t sides[][2] = {{1, 1}, {1, 13},  {13, 1},  {8, 8},
                                        {7, 9}, {31, 17}, {64, 40}, {97, 53}};
    test_rng r;
    test_rng_seed(&r, 5);
    for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++)
        for (uint32_t comps = 1; comps <= 4; comps++)
            for (uint32_t depth = 8; depth <= 16; depth += 4) {
                check_case(sides[s][0], sides[s][1], comps, depth, 0.0f, 1, &r);
                check_case(sides[s][0], sides[s][1], comps, depth, 3.5f, 2, &r);
            }
}

/* A LOT or DWT component, RCT, or a plan that stops before quantizing
 * keeps the general path. */
static void test_only_where_it_applies(void **state)
{
    (void)state;
    wc_stage_plan p;
    memset(&p, 0, sizeof p);
    p.components = 3;
    p.colour = WC_COLOUR_ICT;
    for (int c = 0; c < 3; c++) p.transform[c] = WC_TRANSFORM_DCT;
    p.quantize = 1;
    assert_false(dct_strips_apply(&p)); /* band output not allowed */
    p.band_output = 1;
    assert_true(dct_strips_apply(&p));
    p.quantize = 0;
    assert_false(dct_strips_apply(&p));
    p.quantize = 1;
    p.transform[2] = WC_TRANSFORM_LOT;
    assert_false(dct_strips_apply(&p));
    p.transform[2] = WC_TRANSFORM_DCT;
    p.colour = WC_COLOUR_RCT;
    assert_false(dct_strips_apply(&p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_general_path),
        cmocka_unit_test(test_only_where_it_applies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
