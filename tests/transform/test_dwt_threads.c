/*
 * test_dwt_threads.c -- the threaded 2-D DWTs (dwt_threads.c) give the
 * single-thread transforms' bits, forward and inverse, 5/3 and 9/7, for
 * 1, 2, 3 and 7 threads, every level count, sizes 1x1, 1xN, Nx1, odd,
 * prime and large enough for several workers a pass; several planes at
 * once (dwt*_mt_planes) give each plane's single-thread transform; and
 * the windowed inverse (dwt_window.c) equals the whole inverse on every
 * window of small planes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dwt.h"
#include "dwt_threads.h"
#include "dwt_window.h"
#include "test_support.h"

/* The last is big enough (dwt_threads.c's MIN_SAMPLES) for several
 * workers a pass at its first levels. */
static const uint32_t sizes[][2] = {{1, 1},   {1, 9},     {9, 1},    {2, 2},    {7, 5},    {33, 65},
                                    {64, 31}, {131, 127}, {300, 17}, {17, 300}, {523, 131}};
static const int threads[] = {1, 2, 3, 7};

static void test_threads_match(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 17);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const uint32_t w = sizes[s][0], h = sizes[s][1];
        const size_t n = (size_t)w * h;
        int32_t *src = malloc(n * 4), *ref = malloc(n * 4), *got = malloc(n * 4);
        float *fsrc = malloc(n * 4), *fref = malloc(n * 4), *fgot = malloc(n * 4);
        void *scratch_mem = malloc(dwt_scratch_elems(w, h) * 4);
        int32_t *scratch = scratch_mem; /* and float scratch for 9/7 */
        float *fscratch = scratch_mem;
        for (size_t i = 0; i < n; i++) {
            src[i] = test_rng_range(&r, -2000, 2000);
            fsrc[i] = (float)test_rng_range(&r, -128, 127) + (float)test_rng_unit(&r);
        }
        for (int levels = 0; levels <= dwt_max_levels(w, h); levels++)
            for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
                memcpy(ref, src, n * 4);
                memcpy(got, src, n * 4);
                dwt53_forward(ref, w, h, levels, scratch);
                assert_int_equal(dwt53_forward_mt(got, w, h, levels, threads[t]), 0);
                assert_memory_equal(ref, got, n * 4);
                dwt53_inverse(ref, w, h, levels, scratch);
                assert_int_equal(dwt53_inverse_mt(got, w, h, levels, threads[t]), 0);
                assert_memory_equal(ref, got, n * 4);
                assert_memory_equal(ref, src, n * 4); /* 5/3 is exact */
                memcpy(fref, fsrc, n * 4);
                memcpy(fgot, fsrc, n * 4);
                dwt97_forward(fref, w, h, levels, fscratch);
                assert_int_equal(dwt97_forward_mt(fgot, w, h, levels, threads[t]), 0);
                assert_memory_equal(fref, fgot, n * 4);
                dwt97_inverse(fref, w, h, levels, fscratch);
                assert_int_equal(dwt97_inverse_mt(fgot, w, h, levels, threads[t]), 0);
                assert_memory_equal(fref, fgot, n * 4);
            }
        free(src), free(ref), free(got), free(fsrc), free(fref), free(fgot), free(scratch_mem);
    }
}

/* Three planes through the *_mt_planes forms (one loop a pass over all
 * of them) give, plane by plane, the single-thread transform of each,
 * forward and back: every size above, every level count, 1, 2, 3 and 7
 * threads. */
static void test_planes_match(void **state)
{
    (void)state;
    enum { NP = 3 };
    test_rng r;
    test_rng_seed(&r, 23);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const uint32_t w = sizes[s][0], h = sizes[s][1];
        const size_t n = (size_t)w * h;
        int32_t *ref[NP], *got[NP];
        float *fref[NP], *fgot[NP];
        void *scratch_mem = malloc(dwt_scratch_elems(w, h) * 4);
        for (int k = 0; k < NP; k++) {
            ref[k] = malloc(n * 4), got[k] = malloc(n * 4);
            fref[k] = malloc(n * 4), fgot[k] = malloc(n * 4);
        }
        for (int levels = 0; levels <= dwt_max_levels(w, h); levels++)
            for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
                for (int k = 0; k < NP; k++)
                    for (size_t i = 0; i < n; i++) {
                        got[k][i] = ref[k][i] = test_rng_range(&r, -2000, 2000);
                        fgot[k][i] = fref[k][i] = (float)ref[k][i] * 0.061f;
                    }
                assert_int_equal(dwt53_forward_mt_planes(got, NP, w, h, levels, threads[t]), 0);
                assert_int_equal(dwt97_forward_mt_planes(fgot, NP, w, h, levels, threads[t]), 0);
                for (int k = 0; k < NP; k++) {
                    dwt53_forward(ref[k], w, h, levels, scratch_mem);
                    dwt97_forward(fref[k], w, h, levels, scratch_mem);
                    assert_memory_equal(ref[k], got[k], n * 4);
                    assert_memory_equal(fref[k], fgot[k], n * 4);
                }
                assert_int_equal(dwt53_inverse_mt_planes(got, NP, w, h, levels, threads[t]), 0);
                assert_int_equal(dwt97_inverse_mt_planes(fgot, NP, w, h, levels, threads[t]), 0);
                for (int k = 0; k < NP; k++) {
                    dwt53_inverse(ref[k], w, h, levels, scratch_mem);
                    dwt97_inverse(fref[k], w, h, levels, scratch_mem);
                    assert_memory_equal(ref[k], got[k], n * 4);
                    assert_memory_equal(fref[k], fgot[k], n * 4);
                }
            }
        for (int k = 0; k < NP; k++) free(ref[k]), free(got[k]), free(fref[k]), free(fgot[k]);
        free(scratch_mem);
    }
}

/* Every window (x0, y0, x1, y1) of planes up to 19x13, every level count
 * and every reduction: the window's samples are the whole inverse's. */
static void test_window_every_rect(void **state)
{
    (void)state;
    static const uint32_t small[][2] = {{1, 1}, {1, 6}, {5, 1}, {3, 3}, {19, 13}, {16, 9}};
    test_rng r;
    test_rng_seed(&r, 19);
    for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
        const uint32_t w = small[s][0], h = small[s][1];
        const size_t n = (size_t)w * h;
        int32_t *coef = malloc(n * 4), *out = malloc(n * 4);
        float *fcoef = malloc(n * 4), *fout = malloc(n * 4);
        void *scratch_mem = malloc(dwt_scratch_elems(w, h) * 4);
        int32_t *scratch = scratch_mem; /* and float scratch for 9/7 */
        float *fscratch = scratch_mem;
        for (size_t i = 0; i < n; i++) {
            coef[i] = test_rng_range(&r, -500, 500);
            fcoef[i] = (float)coef[i] * 0.37f;
        }
        for (int levels = 0; levels <= dwt_max_levels(w, h); levels++)
            for (int stop = 0; stop <= levels; stop++) {
                /* The whole inverse down to level `stop`: levels above it
                 * only touch the top-left sw x sh region (the LL band of
                 * level stop), so a copy of it inverted on its own. */
                const uint32_t sw = dwt_window_size(w, stop), sh = dwt_window_size(h, stop);
                int32_t *sub = malloc((size_t)sw * sh * 4);
                float *fsub = malloc((size_t)sw * sh * 4);
                for (uint32_t y = 0; y < sh; y++) {
                    memcpy(sub + (size_t)y * sw, coef + (size_t)y * w, sw * 4);
                    memcpy(fsub + (size_t)y * sw, fcoef + (size_t)y * w, sw * 4);
                }
                dwt53_inverse(sub, sw, sh, levels - stop, scratch);
                dwt97_inverse(fsub, sw, sh, levels - stop, fscratch);
                for (uint32_t y0 = 0; y0 < sh; y0++)
                    for (uint32_t x0 = 0; x0 < sw; x0++)
                        for (uint32_t y1 = y0 + 1; y1 <= sh; y1 += 1 + (sh > 8))
                            for (uint32_t x1 = x0 + 1; x1 <= sw; x1 += 1 + (sw > 8)) {
                                dwt_window win;
                                dwt_window_plan(w, h, levels, stop, (dwt_rect){x0, y0, x1, y1},
                                                &win);
                                const size_t se = dwt_window_scratch_elems(&win);
                                void *ws_mem = malloc(se * 4);
                                int32_t *ws = ws_mem;
                                float *fws = ws_mem;
                                const int t = 1 + (int)((x0 + y0) % 3);
                                assert_int_equal(dwt53_inverse_window(coef, &win, out, ws, t), 0);
                                assert_int_equal(dwt97_inverse_window(fcoef, &win, fout, fws, t),
                                                 0);
                                for (uint32_t y = y0; y < y1; y++) {
                                    assert_memory_equal(out + (size_t)(y - y0) * (x1 - x0),
                                                        sub + (size_t)y * sw + x0, (x1 - x0) * 4);
                                    assert_memory_equal(fout + (size_t)(y - y0) * (x1 - x0),
                                                        fsub + (size_t)y * sw + x0, (x1 - x0) * 4);
                                }
                                free(ws_mem);
                            }
                free(sub), free(fsub);
            }
        free(coef), free(out), free(fcoef), free(fout), free(scratch_mem);
    }
}

/* Random windows of a 300x211 plane, 5 levels, stops 0..3: cut ends well
 * inside the plane at every level (the margins' real test). */
static void test_window_random_rects(void **state)
{
    (void)state;
    const uint32_t w = 300, h = 211;
    const size_t n = (size_t)w * h;
    test_rng r;
    test_rng_seed(&r, 23);
    int32_t *coef = malloc(n * 4), *out = malloc(n * 4), *sub = malloc(n * 4);
    float *fcoef = malloc(n * 4), *fout = malloc(n * 4), *fsub = malloc(n * 4);
    void *scratch_mem = malloc(dwt_scratch_elems(w, h) * 4);
    int32_t *scratch = scratch_mem; /* and float scratch for 9/7 */
    float *fscratch = scratch_mem;
    for (size_t i = 0; i < n; i++) {
        coef[i] = test_rng_range(&r, -3000, 3000);
        fcoef[i] = (float)coef[i] * 0.61f;
    }
    for (int stop = 0; stop <= 3; stop++) {
        const uint32_t sw = dwt_window_size(w, stop), sh = dwt_window_size(h, stop);
        for (uint32_t y = 0; y < sh; y++) {
            memcpy(sub + (size_t)y * sw, coef + (size_t)y * w, sw * 4);
            memcpy(fsub + (size_t)y * sw, fcoef + (size_t)y * w, sw * 4);
        }
        dwt53_inverse(sub, sw, sh, 5 - stop, scratch);
        dwt97_inverse(fsub, sw, sh, 5 - stop, fscratch);
        for (int k = 0; k < 300; k++) {
            const uint32_t x0 = (uint32_t)test_rng_range(&r, 0, (int32_t)sw - 1);
            const uint32_t y0 = (uint32_t)test_rng_range(&r, 0, (int32_t)sh - 1);
            const uint32_t x1 = x0 + 1 + (uint32_t)test_rng_range(&r, 0, (int32_t)(sw - x0 - 1));
            const uint32_t y1 = y0 + 1 + (uint32_t)test_rng_range(&r, 0, (int32_t)(sh - y0 - 1));
            dwt_window win;
            dwt_window_plan(w, h, 5, stop, (dwt_rect){x0, y0, x1, y1}, &win);
            void *ws_mem = malloc(dwt_window_scratch_elems(&win) * 4);
            int32_t *ws = ws_mem;
            float *fws = ws_mem;
            assert_int_equal(dwt53_inverse_window(coef, &win, out, ws, 1 + k % 3), 0);
            assert_int_equal(dwt97_inverse_window(fcoef, &win, fout, fws, 1 + k % 3), 0);
            for (uint32_t y = y0; y < y1; y++) {
                assert_memory_equal(out + (size_t)(y - y0) * (x1 - x0), sub + (size_t)y * sw + x0,
                                    (x1 - x0) * 4);
                assert_memory_equal(fout + (size_t)(y - y0) * (x1 - x0), fsub + (size_t)y * sw + x0,
                                    (x1 - x0) * 4);
            }
            free(ws_mem);
        }
    }
    free(coef), free(out), free(sub), free(fcoef), free(fout), free(fsub), free(scratch_mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_match),
        cmocka_unit_test(test_planes_match),
        cmocka_unit_test(test_window_every_rect),
        cmocka_unit_test(test_window_random_rects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
