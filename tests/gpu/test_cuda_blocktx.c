/*
 * test_cuda_blocktx.c -- the CUDA backend's 8x8 DCT and LOT kernels against
 * the CPU reference backend, bit for bit: forward coefficients (quantized
 * int32, and raw float compared as bits) and inverse pixels, on random
 * images of sizes that are and are not multiples of 8 (1x1, thin lines,
 * odd and prime sizes, one tile, a tile plus one block, several tiles),
 * 8, 10, 12 and 16 bits, 1 to 4 components (alpha stays on the DWT 5/3),
 * ICT and RCT, components with different transforms in one plan, step
 * tables of ones, random steps and JPEG-like ones, thresholds, and inverse
 * transforms of random and hostile coefficients. One CUDA context serves
 * every case, so buffer reuse and growth are exercised as well.
 *
 * The CUDA backend has no CPU fallback for these plans, so every case runs
 * the kernels. Where no CUDA device is present it says so and returns 77
 * (ctest SKIP). WC_TEST_FILTER / WC_TEST_SKIP (cmocka patterns such as
 * "test_large") run a subset, for slow runs under compute-sanitizer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "gpu_pair.h"
#include "dwt.h"
#include "test_support.h"

enum { STEPS_ONE, STEPS_RANDOM, STEPS_JPEG, NSTEPS };
static const char *steps_name[] = {"ones", "random", "jpeg"};

/* JPEG's Annex K luminance table in raster order, scaled per case: steps
 * that grow with frequency, as the codec's are. */
static const unsigned char jpeg_luma[64] = {
    16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
    14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
    18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};

typedef struct tcase {
    uint32_t w, h, comps, depth;
    int tx[4];  /* per component; alpha is forced to the DWT 5/3 */
    int colour; /* for comps >= 3 */
    int steps;  /* STEPS_* */
    int quantize;
    uint64_t seed;
    size_t pad; /* extra bytes per image row (stride > packed) */
} tcase;

static int is_alpha(uint32_t comps, uint32_t c)
{
    return (comps == 2 && c == 1) || (comps == 4 && c == 3);
}

static int comp_tx(const tcase *t, uint32_t c)
{
    return is_alpha(t->comps, c) ? WC_TRANSFORM_DWT : t->tx[c];
}

static int is_block(const tcase *t, uint32_t c) { return comp_tx(t, c) != WC_TRANSFORM_DWT; }

static uint32_t ceil8(uint32_t n) { return (n + 7u) & ~7u; }

static uint32_t plane_w(const tcase *t, uint32_t c) { return is_block(t, c) ? ceil8(t->w) : t->w; }
static uint32_t plane_h(const tcase *t, uint32_t c) { return is_block(t, c) ? ceil8(t->h) : t->h; }

/* A case whose components 0..2 all use transform tx. */
static tcase block_case(uint32_t w, uint32_t h, uint32_t comps, uint32_t depth, int tx, int steps,
                        int quantize, uint64_t seed)
{
    tcase t = {w,
               h,
               comps,
               depth,
               {tx, tx, tx, tx},
               WC_COLOUR_ICT,
               steps,
               quantize,
               seed,
               (size_t)(seed % 3) * 3};
    return t;
}

static void describe(const tcase *t, char *buf, size_t n)
{
    static const char *tx[] = {"dwt", "dct", "lot"};
    snprintf(buf, n,
             "%ux%u comps=%u depth=%u tx=%s/%s/%s/%s colour=%s steps=%s quantize=%d seed=%llu "
             "pad=%zu",
             t->w, t->h, t->comps, t->depth, tx[comp_tx(t, 0)], tx[comp_tx(t, 1 % t->comps)],
             tx[comp_tx(t, 2 % t->comps)], tx[comp_tx(t, 3 % t->comps)],
             t->colour == WC_COLOUR_RCT ? "rct" : "ict", steps_name[t->steps], t->quantize,
             (unsigned long long)t->seed, t->pad);
}

static void make_plan(const tcase *t, test_rng *rng, wc_stage_plan *p)
{
    memset(p, 0, sizeof *p);
    p->width = t->w;
    p->height = t->h;
    p->components = t->comps;
    p->bit_depth = t->depth;
    int levels = dwt_max_levels(t->w, t->h);
    p->levels = levels < 3 ? levels : 3; /* for alpha and DWT components */
    p->quantize = t->quantize;
    p->recon = 0.375f;
    if (t->comps >= 3) p->colour = t->colour;
    const float jpeg_scale = (float)(0.05 + 0.5 * test_rng_unit(rng));
    for (uint32_t c = 0; c < t->comps; c++) {
        p->transform[c] = comp_tx(t, c);
        if (is_alpha(t->comps, c)) {
            /* As plan.c: 5/3, exact. */
            p->wavelet[c] = 53;
            for (int b = 0; b < WC_MAX_STEPS; b++) p->steps[c][b] = 1.0f;
            continue;
        }
        /* A block component's wavelet means nothing; the plan may hold either.
         * An RCT plan has 5/3 DWT colour components. */
        if (is_block(t, c))
            p->wavelet[c] = (test_rng_u32(rng) & 3) == 0 ? 53 : 97;
        else
            p->wavelet[c] = t->colour == WC_COLOUR_RCT && c < 3 && t->comps >= 3 ? 53 : 97;
        for (int b = 0; b < WC_MAX_STEPS; b++) {
            if (t->steps == STEPS_ONE)
                p->steps[c][b] = 1.0f;
            else if (t->steps == STEPS_JPEG && is_block(t, c))
                p->steps[c][b] = jpeg_scale * (float)jpeg_luma[b];
            else
                p->steps[c][b] = (float)(0.25 + 12.0 * test_rng_unit(rng));
        }
        if (t->steps == STEPS_RANDOM) p->steps[c][test_rng_u32(rng) & 63] = 1.0f;
        p->threshold[c] = t->steps == STEPS_ONE ? 0.0f : (float)(2.0 * test_rng_unit(rng));
    }
}

static size_t row_bytes(const tcase *t)
{
    return (size_t)t->w * t->comps * (t->depth <= 8 ? 1 : 2);
}

/* Mostly smooth values with full-range outliers, so that both small and
 * extreme coefficients appear; the seed picks the gradient. */
static void random_image(const tcase *t, test_rng *rng, wc_image *img)
{
    img->width = t->w;
    img->height = t->h;
    img->components = t->comps;
    img->bit_depth = t->depth;
    img->stride = row_bytes(t) + t->pad;
    img->pixels = calloc(img->stride * t->h, 1);
    assert_non_null(img->pixels);
    const int32_t maxv = (int32_t)((1u << t->depth) - 1);
    const uint32_t gx = 1 + test_rng_u32(rng) % 9, gy = 1 + test_rng_u32(rng) % 9;
    for (uint32_t y = 0; y < t->h; y++) {
        uint8_t *row = (uint8_t *)img->pixels + y * img->stride;
        for (size_t i = 0; i < (size_t)t->w * t->comps; i++) {
            int32_t v = (test_rng_u32(rng) & 7) == 0 ? test_rng_range(rng, 0, maxv)
                                                     : (int32_t)((y * gy + i * gx) % (maxv + 1));
            if (t->depth <= 8)
                row[i] = (uint8_t)v;
            else
                ((uint16_t *)row)[i] = (uint16_t)v;
        }
    }
}

static void alloc_coeffs(const tcase *t, wc_coeffs *co)
{
    memset(co, 0, sizeof *co);
    co->components = t->comps;
    for (uint32_t c = 0; c < t->comps; c++) {
        co->width[c] = plane_w(t, c);
        co->height[c] = plane_h(t, c);
        const size_t n = (size_t)co->width[c] * co->height[c];
        co->q[c] = malloc(n * sizeof(int32_t));
        co->f[c] = malloc(n * sizeof(float));
        assert_non_null(co->q[c]);
        assert_non_null(co->f[c]);
        /* Poison: every element must be written by the backend. */
        memset(co->q[c], 0xA5, n * sizeof(int32_t));
        memset(co->f[c], 0xA5, n * sizeof(float));
    }
}

static void free_coeffs(wc_coeffs *co)
{
    for (int c = 0; c < 4; c++) {
        free(co->q[c]);
        free(co->f[c]);
    }
}

/* Compares n 32-bit words bit for bit; reports the first difference. */
static int same_words(const void *a, const void *b, size_t n, uint32_t w, const char *what,
                      uint32_t c, const tcase *t)
{
    if (memcmp(a, b, n * 4) == 0) return 1;
    const uint32_t *x = a, *y = b;
    size_t i = 0;
    while (x[i] == y[i]) i++;
    char d[256];
    describe(t, d, sizeof d);
    print_error("%s: %s differ in component %u at (%zu, %zu): cpu 0x%08x gpu 0x%08x\n", d, what, c,
                i % w, i / w, x[i], y[i]);
    return 0;
}

/* Both backends' inverse of co; the pixel buffers (row padding included,
 * which neither may touch) must be the same bytes. */
static void check_inverse(const tcase *t, const wc_stage_plan *plan, const wc_coeffs *co,
                          const char *what)
{
    wc_image pa = {t->w, t->h, t->comps, t->depth, row_bytes(t) + t->pad, NULL};
    wc_image pb = pa;
    const size_t bytes = pa.stride * t->h;
    pa.pixels = malloc(bytes);
    pb.pixels = malloc(bytes);
    assert_non_null(pa.pixels);
    assert_non_null(pb.pixels);
    memset(pa.pixels, 0x5A, bytes);
    memset(pb.pixels, 0x5A, bytes);
    wc_err err = {{0}};
    assert_int_equal(g_cpu->inverse(g_cpu_self, plan, co, &pa, &err), WC_OK);
    const wc_status s = g_gpu->inverse(g_gpu_self, plan, co, &pb, &err);
    if (s != WC_OK) print_error("CUDA inverse: %s\n", err.msg);
    assert_int_equal(s, WC_OK);
    if (memcmp(pa.pixels, pb.pixels, bytes) != 0) {
        const uint8_t *x = pa.pixels, *y = pb.pixels;
        size_t i = 0;
        while (x[i] == y[i]) i++;
        char d[256];
        describe(t, d, sizeof d);
        print_error("%s: %s: pixels differ at byte %zu (row %zu): cpu %u gpu %u\n", d, what, i,
                    i / pa.stride, x[i], y[i]);
        fail();
    }
    free(pa.pixels);
    free(pb.pixels);
}

/* Forward on both backends and compare; when quantized, also the inverse
 * of those coefficients (except RCT plans, below). */
static void run_case(const tcase *t)
{
    test_rng rng;
    test_rng_seed(&rng, t->seed);
    wc_stage_plan plan;
    make_plan(t, &rng, &plan);
    wc_image img;
    random_image(t, &rng, &img);

    wc_coeffs a, b;
    alloc_coeffs(t, &a);
    alloc_coeffs(t, &b);
    wc_err err = {{0}};
    assert_int_equal(g_cpu->forward(g_cpu_self, &plan, &img, &a, &err), WC_OK);
    const wc_status s = g_gpu->forward(g_gpu_self, &plan, &img, &b, &err);
    if (s != WC_OK) print_error("CUDA forward: %s\n", err.msg);
    assert_int_equal(s, WC_OK);
    int ok = 1;
    for (uint32_t c = 0; c < t->comps; c++) {
        const size_t n = (size_t)a.width[c] * a.height[c];
        const int float_out = !t->quantize && (is_block(t, c) || plan.wavelet[c] == 97);
        if (float_out)
            ok &= same_words(a.f[c], b.f[c], n, a.width[c], "float coefficients", c, t);
        else
            ok &= same_words(a.q[c], b.q[c], n, a.width[c], "coefficients", c, t);
    }
    assert_true(ok);
    /* The CPU backend's inverse RCT reads its float components' integer
     * planes before it fills them (backend_cpu.c), so RCT over block
     * transforms is checked forward only; the codec pairs them with ICT. */
    if (t->quantize && !(t->comps >= 3 && t->colour == WC_COLOUR_RCT))
        check_inverse(t, &plan, &a, "inverse of the forward");
    free_coeffs(&a);
    free_coeffs(&b);
    free(img.pixels);
}

/* Every component count, both transforms, quantized and raw, 8 and 16
 * bits, each step kind, over one size. */
static void sweep(uint32_t w, uint32_t h, uint64_t seed)
{
    uint64_t k = 0;
    for (int tx = WC_TRANSFORM_DCT; tx <= WC_TRANSFORM_LOT; tx++)
        for (int quantize = 1; quantize >= 0; quantize--)
            for (uint32_t comps = 1; comps <= 4; comps++, k++) {
                const uint32_t depth = ((uint32_t)tx + comps + (uint32_t)quantize) & 1 ? 16 : 8;
                const tcase t = block_case(w, h, comps, depth, tx, (int)((k + seed) % NSTEPS),
                                           quantize, seed * 1000 + k);
                run_case(&t);
            }
}

/* The sizes asked for, and their neighbours: under one block, thin lines,
 * odd and prime sizes, exactly one tile, one tile plus a block (the LOT's
 * halo reaches across a tile edge), several tiles. */
static void test_shapes(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{1, 1},    {1, 37},   {37, 1},  {7, 9},
                                       {13, 17},  {8, 8},    {9, 16},  {64, 64},
                                       {100, 75}, {72, 136}, {65, 33}, {257, 131}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) sweep(dims[i][0], dims[i][1], i + 1);
}

/* Thin planes: one block across, many tiles along. */
static void test_thin(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{1, 300}, {300, 1}, {3, 200}, {200, 5}, {8, 129}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        sweep(dims[i][0], dims[i][1], 100 + i);
}

/* 10- and 12-bit samples, and every pairing of transforms among the colour
 * components (DCT, LOT and DWT 9/7 side by side under ICT), with alpha. */
static void test_mixed(void **state)
{
    (void)state;
    static const int perms[][3] = {
        {WC_TRANSFORM_DCT, WC_TRANSFORM_LOT, WC_TRANSFORM_DWT},
        {WC_TRANSFORM_LOT, WC_TRANSFORM_DWT, WC_TRANSFORM_DCT},
        {WC_TRANSFORM_DWT, WC_TRANSFORM_DCT, WC_TRANSFORM_LOT},
    };
    static const uint32_t dims[][2] = {{13, 17}, {100, 75}, {9, 70}};
    uint64_t k = 0;
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (size_t p = 0; p < sizeof perms / sizeof perms[0]; p++)
            for (uint32_t comps = 3; comps <= 4; comps++)
                for (int quantize = 0; quantize <= 1; quantize++, k++) {
                    tcase t = block_case(dims[d][0], dims[d][1], comps, k % 2 ? 12 : 10,
                                         WC_TRANSFORM_DCT, (int)(k % NSTEPS), quantize, 300 + k);
                    for (int c = 0; c < 3; c++) t.tx[c] = perms[p][c];
                    run_case(&t);
                }
    /* Gray + alpha and RGBA with one block transform and a 5/3 alpha. */
    for (int tx = WC_TRANSFORM_DCT; tx <= WC_TRANSFORM_LOT; tx++) {
        tcase t = block_case(33, 21, 2, 12, tx, STEPS_RANDOM, 1, 350 + (uint64_t)tx);
        run_case(&t);
        t = block_case(40, 48, 4, 10, tx, STEPS_JPEG, 1, 360 + (uint64_t)tx);
        run_case(&t);
    }
}

/* RCT over block transforms: a valid plan for the backend seam (the forward
 * makes the float components from the integer RCT), though the codec pairs
 * block transforms with ICT. */
static void test_rct(void **state)
{
    (void)state;
    uint64_t k = 0;
    for (int tx = WC_TRANSFORM_DCT; tx <= WC_TRANSFORM_LOT; tx++)
        for (uint32_t comps = 3; comps <= 4; comps++)
            for (int quantize = 0; quantize <= 1; quantize++, k++) {
                tcase t = block_case(k % 2 ? 61 : 100, k % 2 ? 67 : 75, comps, k % 3 ? 8 : 16, tx,
                                     (int)(k % NSTEPS), quantize, 400 + k);
                t.colour = WC_COLOUR_RCT;
                run_case(&t);
            }
}

/* Many tiles in both directions and partial tiles on two sides; then a
 * small image after a large one and a larger one again, so the device
 * buffers are reused, then regrown. */
static void test_large(void **state)
{
    (void)state;
    for (int tx = WC_TRANSFORM_DCT; tx <= WC_TRANSFORM_LOT; tx++) {
        tcase t = block_case(1000, 777, 3, 8, tx, STEPS_JPEG, 1, 500 + (uint64_t)tx);
        run_case(&t);
        t = block_case(777, 1000, 1, 16, tx, STEPS_RANDOM, 0, 510 + (uint64_t)tx);
        run_case(&t);
        t = block_case(33, 35, 4, 8, tx, STEPS_RANDOM, 1, 520 + (uint64_t)tx);
        run_case(&t);
        t = block_case(1500, 1201, 4, 16, tx, STEPS_JPEG, 1, 530 + (uint64_t)tx);
        run_case(&t);
    }
}

/* Random coefficients, not made by a forward transform: the inverse must
 * agree on anything a file can hold, overflow to inf and NaN, clamping and
 * the wrapping 5/3 alpha included. */
static void test_inverse_random(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{97, 45}, {1, 64}, {64, 64}, {300, 257}};
    uint64_t k = 0;
    for (int hostile = 0; hostile < 2; hostile++)
        for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
            for (int tx = WC_TRANSFORM_DCT; tx <= WC_TRANSFORM_LOT; tx++)
                for (uint32_t comps = 1; comps <= 4; comps += 3, k++) {
                    const tcase t = block_case(dims[i][0], dims[i][1], comps, k % 2 ? 16 : 8, tx,
                                               STEPS_RANDOM, 1, 600 + k);
                    test_rng rng;
                    test_rng_seed(&rng, t.seed);
                    wc_stage_plan plan;
                    make_plan(&t, &rng, &plan);
                    wc_coeffs co;
                    alloc_coeffs(&t, &co);
                    for (uint32_t c = 0; c < t.comps; c++) {
                        const size_t n = (size_t)co.width[c] * co.height[c];
                        for (size_t e = 0; e < n; e++)
                            co.q[c][e] = hostile ? test_rng_range(&rng, -(1 << 30), 1 << 30)
                                                 : test_rng_range(&rng, -3000, 3000);
                    }
                    check_inverse(&t, &plan, &co,
                                  hostile ? "hostile coefficients" : "random coefficients");
                    free_coeffs(&co);
                }
}

/* Plans the kernels cannot take fail cleanly, with a message, and leave
 * the backend usable. */
static void test_errors(void **state)
{
    (void)state;
    const tcase t = block_case(13, 17, 1, 8, WC_TRANSFORM_LOT, STEPS_RANDOM, 1, 800);
    test_rng rng;
    test_rng_seed(&rng, t.seed);
    wc_stage_plan plan;
    make_plan(&t, &rng, &plan);
    wc_image img;
    random_image(&t, &rng, &img);
    wc_coeffs co;
    alloc_coeffs(&t, &co);
    wc_err err = {{0}};
    /* A block plane must be padded to whole blocks. */
    co.width[0] = t.w;
    assert_int_equal(g_gpu->forward(g_gpu_self, &plan, &img, &co, &err), WC_ERR_ARG);
    assert_true(err.msg[0] != '\0');
    co.width[0] = plane_w(&t, 0);
    plan.transform[0] = 3;
    memset(&err, 0, sizeof err);
    assert_int_equal(g_gpu->forward(g_gpu_self, &plan, &img, &co, &err), WC_ERR_ARG);
    assert_true(err.msg[0] != '\0');
    plan.transform[0] = WC_TRANSFORM_LOT;
    memset(&err, 0, sizeof err);
    assert_int_equal(g_gpu->forward(g_gpu_self, &plan, &img, &co, &err), WC_OK);
    free_coeffs(&co);
    free(img.pixels);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes), cmocka_unit_test(test_thin),
        cmocka_unit_test(test_mixed),  cmocka_unit_test(test_rct),
        cmocka_unit_test(test_large),  cmocka_unit_test(test_inverse_random),
        cmocka_unit_test(test_errors),
    };
    return gpu_pair_main("test_cuda_blocktx", tests, sizeof tests / sizeof tests[0]);
}
