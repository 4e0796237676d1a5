/*
 * test_cuda_strips.c -- the CUDA backend's encode in strips (an image over
 * wc_params.max_device_memory, cuda/strip_encode.cu) against the CPU
 * backend's file, byte for byte: heights that need several strips (1xN,
 * odd, prime), 5/3 and 9/7 (and the Monolithic scheme), 1 to 4
 * components, 8 to 16 bits, 0 to 3 levels, Huffman, tiled Huffman and
 * arithmetic coding. Each case is encoded under a cap of 1 byte (refused
 * with WC_ERR_LIMIT naming the least a strip needs, N), then under N
 * (strips of one block row, groups of one block) and 3N: the file is the
 * CPU's each time, and the device memory the call reports is within the
 * cap. A DCT image over the cap is refused, not coded past it.
 *
 * Where no CUDA device is present it says so and returns 77 (ctest SKIP).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_pair.h"
#include "strip_cases.h"
#include "test_support.h"
#include "wc_common.h"
#include "wcodec.h"

/* The CUDA file under `cap`: the CPU's bytes, in strips within the cap
 * (must_strip: several of them; else the whole-image path may fit). */
static int encode_capped(const scase *t, const wc_image *img, const void *ref, size_t nref,
                         uint64_t cap, int must_strip, const char *what)
{
    wc_params p;
    strip_case_params(t, &p, WC_BACKEND_CUDA, cap);
    void *f = NULL;
    size_t n = 0;
    const wc_status s = wc_encode_alloc(g_ctx_gpu, &p, img, &f, &n);
    int ok = 1;
    if (s != WC_OK || n != nref || memcmp(f, ref, n) != 0) {
        size_t at = 0;
        while (s == WC_OK && at < n && at < nref && ((uint8_t *)f)[at] == ((uint8_t *)ref)[at])
            at++;
        print_error("%s, cap %llu: status %d (%s), %zu bytes against the CPU's %zu, first "
                    "difference at %zu\n",
                    what, (unsigned long long)cap, s, wc_ctx_error(g_ctx_gpu), n, nref, at);
        ok = 0;
    }
    const char *note = wc_ctx_note(g_ctx_gpu);
    const unsigned long long used = number_before(note, "bytes of device memory");
    const unsigned long long strips = number_before(note, "strips of");
    const int in_strips = strstr(note, "strips") != NULL;
    if (s == WC_OK && (in_strips || must_strip) &&
        (!in_strips || used == 0 || used > cap || (must_strip && strips < 2))) {
        print_error("%s, cap %llu: not coded in strips within the cap (%s)\n", what,
                    (unsigned long long)cap, note);
        ok = 0;
    }
    wc_free(f);
    return ok;
}

static int case_ok(const scase *t, uint64_t seed)
{
    char what[128];
    snprintf(what, sizeof what, "%ux%u x%u %u-bit %s %d levels block %d entropy %d%s", t->w, t->h,
             t->comps, t->depth,
             t->lossless        ? "lossless"
             : t->wavelet == 53 ? "lossy 5/3"
                                : "9/7",
             t->levels, t->block, (int)t->entropy,
             t->scheme == WC_DWT_MONOLITHIC  ? " monolithic"
             : t->scheme == WC_DWT_EXPLOSIVE ? " explosive"
                                             : "");
    wc_image img;
    strip_case_image(t, seed, &img);
    wc_params pc;
    strip_case_params(t, &pc, WC_BACKEND_CPU, 0);
    void *fc = NULL;
    size_t nc = 0;
    int ok = 1;
    assert_int_equal(wc_encode_alloc(g_ctx_cpu, &pc, &img, &fc, &nc), WC_OK);
    /* A cap of one byte: refused, naming the least a strip needs. */
    wc_params pg;
    strip_case_params(t, &pg, WC_BACKEND_CUDA, 1);
    void *f = NULL;
    size_t n = 0;
    const wc_status s = wc_encode_alloc(g_ctx_gpu, &pg, &img, &f, &n);
    const unsigned long long least = number_before(wc_ctx_error(g_ctx_gpu), "bytes of device");
    if (s != WC_ERR_LIMIT || least == 0) {
        print_error("%s, cap 1: status %d (%s)\n", what, s, wc_ctx_error(g_ctx_gpu));
        ok = 0;
    }
    wc_free(f);
    if (ok) ok = encode_capped(t, &img, fc, nc, least, 1, what);
    if (ok) ok = encode_capped(t, &img, fc, nc, 3 * least, 0, what);
    wc_free(fc);
    wc_image_free(&img);
    return ok;
}

static void test_strips_match_cpu(void **state)
{
    (void)state;
    static const scase cases[] = {
        {1, 301, 1, 8, 1, 53, 1, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
        {37, 401, 3, 16, 1, 53, 2, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
        {53, 257, 4, 8, 0, 97, 3, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
        {29, 521, 2, 12, 0, 53, 2, 32, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
        {64, 211, 3, 8, 0, 97, 1, 16, WC_ENTROPY_HUFFMAN_TILES, WC_DWT_SEPARABLE},
        {31, 300, 3, 10, 1, 53, 2, 16, WC_ENTROPY_ARITH, WC_DWT_SEPARABLE},
        {17, 97, 1, 16, 1, 53, 0, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
        {40, 409, 3, 8, 1, 53, 2, 16, WC_ENTROPY_HUFFMAN, WC_DWT_MONOLITHIC},
        {23, 333, 1, 16, 0, 97, 2, 16, WC_ENTROPY_HUFFMAN, WC_DWT_MONOLITHIC},
        /* Explosive: three lifting steps a pair reach further than the
         * separable halo (strip_encode.cu, halo_rows_per_level) */
        {40, 409, 3, 8, 1, 53, 3, 16, WC_ENTROPY_HUFFMAN, WC_DWT_EXPLOSIVE},
        {23, 533, 1, 16, 0, 97, 3, 16, WC_ENTROPY_HUFFMAN, WC_DWT_EXPLOSIVE},
        {131, 1031, 3, 16, 1, 53, 3, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) bad += !case_ok(&cases[i], 100 + i);
    assert_int_equal(bad, 0);
}

/* DCT/LOT images are not coded in strips: over the cap they are refused
 * with a message, never coded past it. */
static void test_dct_over_cap_refused(void **state)
{
    (void)state;
    const scase t = {64, 64, 3, 8, 0, 97, 0, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE};
    wc_image img;
    strip_case_image(&t, 7, &img);
    wc_params p;
    strip_case_params(&t, &p, WC_BACKEND_CUDA, 4096);
    p.transform = WC_TRANSFORM_DCT;
    p.levels = WC_LEVELS_AUTO;
    void *f = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(g_ctx_gpu, &p, &img, &f, &n), WC_ERR_LIMIT);
    assert_non_null(strstr(wc_ctx_error(g_ctx_gpu), "strips"));
    p.max_device_memory = 0; /* uncapped: the whole-image path */
    assert_int_equal(wc_encode_alloc(g_ctx_gpu, &p, &img, &f, &n), WC_OK);
    wc_free(f);
    wc_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_strips_match_cpu, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_dct_over_cap_refused, gpu_ctx_setup, gpu_ctx_teardown),
    };
    return gpu_pair_main("cuda_strips", tests, sizeof tests / sizeof tests[0]);
}
