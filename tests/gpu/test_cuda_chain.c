/*
 * test_cuda_chain.c -- whole files from the CUDA backend's device chain
 * (colour, transform, quantize and the block coder on the device) against
 * the CPU backend's, byte for byte, through the public API: every mode
 * (lossless 5/3, lossy 5/3 and 9/7, DCT, LOT, deflate), bit depths 1 to
 * 16, 1 to 4 components, sizes 1x1, 1xN, Nx1, odd and prime, every
 * code-block size, fine and coarse steps; and the CUDA file decodes to the
 * CPU file's pixels. Images are smooth with noise and sparse spikes, so
 * runs, large magnitudes and predicted bands all occur.
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
#include "test_support.h"
#include "wcodec.h"

enum { M_LOSSLESS, M_LOSSY97, M_LOSSY53, M_DCT, M_LOT, M_DEFLATE, NMODES };
static const char *mode_name[NMODES] = {"lossless", "9/7", "lossy 5/3", "DCT", "LOT", "deflate"};

typedef struct tcase {
    uint32_t w, h, comps, depth;
    int mode, block;
    float quality;
    uint64_t seed;
} tcase;

static void make_image(const tcase *t, wc_image *img)
{
    test_rng r;
    test_rng_seed(&r, t->seed);
    img->width = t->w;
    img->height = t->h;
    img->components = t->comps;
    img->bit_depth = t->depth;
    img->stride = 0;
    assert_int_equal(wc_image_alloc(img), WC_OK);
    const uint32_t maxv = (1u << t->depth) - 1;
    const int noise = (int)(test_rng_u32(&r) % 9);
    for (uint32_t y = 0; y < t->h; y++)
        for (uint32_t x = 0; x < t->w; x++)
            for (uint32_t c = 0; c < t->comps; c++) {
                double v = 0.5 + 0.3 * (double)((x * (c + 1) + 2 * y) % 97) / 97.0 +
                           0.1 * (double)((x / 7 + y / 5) & 1);
                int64_t s = (int64_t)(v * maxv) + (noise ? test_rng_range(&r, -noise, noise) : 0);
                if ((test_rng_u32(&r) & 511) == 0) s = test_rng_u32(&r) & maxv; /* spikes */
                s = s < 0 ? 0 : s > (int64_t)maxv ? (int64_t)maxv : s;
                size_t i = ((size_t)y * t->w + x) * t->comps + c;
                if (t->depth <= 8)
                    ((uint8_t *)img->pixels)[i] = (uint8_t)s;
                else
                    ((uint16_t *)img->pixels)[i] = (uint16_t)s;
            }
}

static void set_params(const tcase *t, wc_params *p, wc_backend_kind be)
{
    wc_params_init(p);
    p->backend = be;
    p->block_size = t->block;
    p->lossless = t->mode == M_LOSSLESS || t->mode == M_DEFLATE;
    p->quality = t->quality;
    if (t->mode == M_LOSSY53) p->wavelet = 53;
    if (t->mode == M_DCT) p->transform = WC_TRANSFORM_DCT;
    if (t->mode == M_LOT) p->transform = WC_TRANSFORM_LOT;
    if (t->mode == M_DEFLATE) p->entropy = WC_ENTROPY_DEFLATE;
}

static wc_ctx *g_ctx_cpu, *g_ctx_gpu;

static void check_case(const tcase *t)
{
    wc_image img;
    make_image(t, &img);
    wc_params pc, pg;
    set_params(t, &pc, WC_BACKEND_CPU);
    set_params(t, &pg, WC_BACKEND_CUDA);
    void *fc = NULL, *fg = NULL;
    size_t nc = 0, ng = 0;
    wc_status sc = wc_encode_alloc(g_ctx_cpu, &pc, &img, &fc, &nc);
    wc_status sg = wc_encode_alloc(g_ctx_gpu, &pg, &img, &fg, &ng);
    if (sc != WC_OK || sg != WC_OK || nc != ng || memcmp(fc, fg, nc) != 0) {
        size_t at = 0;
        while (sc == WC_OK && sg == WC_OK && at < nc && at < ng && ((uint8_t *)fc)[at] == ((uint8_t *)fg)[at]) at++;
        print_error("%ux%u x%u %u-bit %s q%.0f block %d: cpu %d (%zu bytes), cuda %d (%zu bytes: %s), "
                    "first difference at %zu\n",
                    t->w, t->h, t->comps, t->depth, mode_name[t->mode], (double)t->quality, t->block,
                    sc, nc, sg, ng, wc_ctx_error(g_ctx_gpu), at);
        fail();
    }
    if (t->mode != M_DEFLATE)
        assert_non_null(strstr(wc_ctx_note(g_ctx_gpu), "entropy coding: device"));
    wc_image out;
    memset(&out, 0, sizeof out);
    assert_int_equal(wc_decode(g_ctx_cpu, &pc, fg, ng, &out), WC_OK);
    if (t->mode == M_LOSSLESS || t->mode == M_DEFLATE)
        assert_memory_equal(out.pixels, img.pixels, wc_image_row_bytes(&img) * img.height);
    wc_image_free(&out);
    free(fc);
    free(fg);
    wc_image_free(&img);
}

static const uint32_t sizes[][2] = {{1, 1}, {1, 37}, {53, 1}, {2, 2}, {17, 13}, {131, 67},
                                    {64, 64}, {129, 257}};

/* Every mode x size, components and depth turning over. */
static void test_modes_sizes(void **state)
{
    (void)state;
    static const uint32_t depths[] = {8, 12, 16, 1, 10};
    static const int blocks[] = {16, 32, 64, 128};
    int n = 0;
    for (int m = 0; m < NMODES; m++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++, n++) {
            tcase t = {sizes[s][0], sizes[s][1], (uint32_t)(n % 4) + 1, depths[n % 5], m,
                       blocks[(n / 3) % 4], 75.0f, 1000u + (uint64_t)n};
            check_case(&t);
        }
}

/* Random shapes and settings. */
static void test_random(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 77);
    static const int blocks[] = {16, 32, 64, 128};
    static const float q[] = {5, 30, 75, 95, 100};
    for (int i = 0; i < 60; i++) {
        tcase t = {(uint32_t)test_rng_range(&r, 1, 300), (uint32_t)test_rng_range(&r, 1, 200),
                   (uint32_t)test_rng_range(&r, 1, 4), (uint32_t)test_rng_range(&r, 1, 16),
                   test_rng_range(&r, 0, NMODES - 1), blocks[test_rng_range(&r, 0, 3)],
                   q[test_rng_range(&r, 0, 4)], 5000u + (uint64_t)i};
        check_case(&t);
    }
}

/* A large image: many blocks per band, every class busy. */
static void test_large(void **state)
{
    (void)state;
    for (int m = 0; m < M_DEFLATE; m++) {
        tcase t = {1031, 779, 3, m == M_LOSSLESS ? 16u : 8u, m, 128, 75.0f, 9000u + (uint64_t)m};
        check_case(&t);
    }
}

static int setup(void **state)
{
    (void)state;
    g_ctx_cpu = wc_ctx_create();
    g_ctx_gpu = wc_ctx_create();
    return g_ctx_cpu && g_ctx_gpu ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    wc_ctx_free(g_ctx_cpu);
    wc_ctx_free(g_ctx_gpu);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_modes_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large, setup, teardown),
    };
    return gpu_pair_main("cuda_chain", tests, sizeof tests / sizeof tests[0]);
}
