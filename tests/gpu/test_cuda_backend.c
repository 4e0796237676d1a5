/*
 * test_cuda_backend.c -- the CUDA backend against the CPU reference backend,
 * bit for bit: forward coefficients (quantized, and raw int/float) and
 * inverse pixels, on random images of many shapes (1x1, thin, odd, prime,
 * not multiples of 64), 8 to 16 bits, 1 to 4 components, RCT and ICT, 5/3
 * and 9/7, every level count, steps other than 1; each case through the
 * per-level kernels and through the two-level ones. One CUDA context serves
 * every case, so buffer reuse and growth are exercised too.
 *
 * WC_TEST_DWT_SCHEME=monolithic runs every case with the Monolithic
 * wavelets (153, 197) instead (ctest test_cuda_backend_mono), =explosive
 * with the Explosive ones (203, 207; ctest test_cuda_backend_expl).
 *
 * Where no CUDA device is present it says so and returns 77 (ctest SKIP).
 * WC_TEST_FILTER / WC_TEST_SKIP (cmocka patterns such as "test_large") run
 * a subset, for slow runs under compute-sanitizer.
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

/* Kinds of plan: lossless 5/3 + RCT, lossy 5/3 + RCT, lossy 9/7 + ICT
 * (alpha stays 5/3 and exact, as plan.c makes it). */
enum { MODE_LOSSLESS, MODE_LOSSY53, MODE_LOSSY97, NMODES };
static const char *mode_name[] = {"lossless53", "lossy53", "lossy97"};

typedef struct tcase {
    uint32_t w, h, comps, depth;
    int mode, levels, quantize;
    uint64_t seed;
    size_t pad; /* extra bytes per image row (stride > packed) */
} tcase;

/* What the plans add to 53 and 97: 100 for the Monolithic scheme's
 * wavelet identifiers, 150 and 110 for the Explosive one's (203, 207). */
static int g_scheme53, g_scheme97;

static int is_alpha(uint32_t comps, uint32_t c)
{
    return (comps == 2 && c == 1) || (comps == 4 && c == 3);
}

static void make_plan(const tcase *t, test_rng *rng, wc_stage_plan *p)
{
    memset(p, 0, sizeof *p);
    p->width = t->w;
    p->height = t->h;
    p->components = t->comps;
    p->bit_depth = t->depth;
    p->levels = t->levels;
    p->quantize = t->quantize;
    p->recon = t->mode == MODE_LOSSLESS ? 0.0f : 0.375f;
    if (t->comps >= 3) p->colour = t->mode == MODE_LOSSY97 ? WC_COLOUR_ICT : WC_COLOUR_RCT;
    for (uint32_t c = 0; c < t->comps; c++) {
        const int exact = t->mode == MODE_LOSSLESS || is_alpha(t->comps, c);
        p->transform[c] = WC_TRANSFORM_DWT;
        p->wavelet[c] = t->mode == MODE_LOSSY97 && !is_alpha(t->comps, c) ? 97 : 53;
        p->wavelet[c] += p->wavelet[c] == 53 ? g_scheme53 : g_scheme97;
        for (int b = 0; b < WC_MAX_STEPS; b++)
            p->steps[c][b] = exact ? 1.0f : (float)(0.25 + 12.0 * test_rng_unit(rng));
        if (!exact && (test_rng_u32(rng) & 3) == 0) p->steps[c][1] = 1.0f; /* a step of 1 */
        p->threshold[c] = exact ? 0.0f : (float)(2.0 * test_rng_unit(rng));
    }
}

static size_t row_bytes(const tcase *t)
{
    return (size_t)t->w * t->comps * (t->depth <= 8 ? 1 : 2);
}

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
    for (uint32_t y = 0; y < t->h; y++) {
        uint8_t *row = (uint8_t *)img->pixels + y * img->stride;
        for (size_t i = 0; i < (size_t)t->w * t->comps; i++) {
            /* Mostly smooth-ish values with full-range outliers, so that
             * both small and extreme coefficients appear. */
            int32_t v = (test_rng_u32(rng) & 7) == 0 ? test_rng_range(rng, 0, maxv)
                                                     : (int32_t)((y * 7 + i * 3) % (maxv + 1));
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
    const size_t n = (size_t)t->w * t->h;
    for (uint32_t c = 0; c < t->comps; c++) {
        co->width[c] = t->w;
        co->height[c] = t->h;
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

static void describe(const tcase *t, char *buf, size_t n)
{
    snprintf(buf, n, "%ux%u comps=%u depth=%u %s levels=%d quantize=%d seed=%llu pad=%zu", t->w,
             t->h, t->comps, t->depth, mode_name[t->mode], t->levels, t->quantize,
             (unsigned long long)t->seed, t->pad);
}

/* Compares n 32-bit words bit for bit; reports the first difference. */
static int same_words(const void *a, const void *b, size_t n, uint32_t w, const char *what,
                      uint32_t c, const tcase *t)
{
    if (memcmp(a, b, n * 4) == 0) return 1;
    const uint32_t *x = a, *y = b;
    size_t i = 0;
    while (x[i] == y[i]) i++;
    char d[192];
    describe(t, d, sizeof d);
    print_error("%s: %s differ in component %u at (%zu, %zu): cpu 0x%08x gpu 0x%08x\n", d, what, c,
                i % w, i / w, x[i], y[i]);
    return 0;
}

static void run_gpu(const tcase *t, const wc_stage_plan *plan, const wc_image *img,
                    const wc_coeffs *a);

static void run_case(const tcase *t)
{
    test_rng rng;
    test_rng_seed(&rng, t->seed);
    wc_stage_plan plan;
    make_plan(t, &rng, &plan);
    wc_image img;
    random_image(t, &rng, &img);

    wc_coeffs a;
    alloc_coeffs(t, &a);
    wc_err err = {{0}};
    assert_int_equal(g_cpu->forward(g_cpu_self, &plan, &img, &a, &err), WC_OK);
    run_gpu(t, &plan, &img, &a);
    free_coeffs(&a);
    free(img.pixels);
}

/* The CUDA backend on one case against the CPU's coefficients a: forward,
 * then (quantized plans) the inverse of a on both backends. */
static void run_gpu(const tcase *t, const wc_stage_plan *plan, const wc_image *img,
                    const wc_coeffs *a)
{
    wc_coeffs b;
    alloc_coeffs(t, &b);
    wc_err err = {{0}};
    wc_status s = g_gpu->forward(g_gpu_self, plan, img, &b, &err);
    if (s != WC_OK) print_error("CUDA forward: %s\n", err.msg);
    assert_int_equal(s, WC_OK);
    const size_t n = (size_t)t->w * t->h;
    int ok = 1;
    for (uint32_t c = 0; c < t->comps; c++) {
        if (!t->quantize && dwt_family(plan->wavelet[c]) == 97)
            ok &= same_words(a->f[c], b.f[c], n, t->w, "float coefficients", c, t);
        else
            ok &= same_words(a->q[c], b.q[c], n, t->w, "coefficients", c, t);
    }
    assert_true(ok);

    if (t->quantize) {
        /* Inverse from the same coefficients on both sides. */
        wc_image pa = *img, pb = *img;
        pa.pixels = malloc(img->stride * t->h);
        pb.pixels = malloc(img->stride * t->h);
        assert_non_null(pa.pixels);
        assert_non_null(pb.pixels);
        memset(pa.pixels, 0x5A, img->stride * t->h);
        memset(pb.pixels, 0x5A, img->stride * t->h);
        assert_int_equal(g_cpu->inverse(g_cpu_self, plan, a, &pa, &err), WC_OK);
        s = g_gpu->inverse(g_gpu_self, plan, a, &pb, &err);
        if (s != WC_OK) print_error("CUDA inverse: %s\n", err.msg);
        assert_int_equal(s, WC_OK);
        if (memcmp(pa.pixels, pb.pixels, img->stride * t->h) != 0) {
            const uint8_t *x = pa.pixels, *y = pb.pixels;
            size_t i = 0;
            while (x[i] == y[i]) i++;
            char d[192];
            describe(t, d, sizeof d);
            print_error("%s: pixels differ at byte %zu (row %zu): cpu %u gpu %u\n", d, i,
                        i / img->stride, x[i], y[i]);
            fail();
        }
        int exact = 1;
        for (uint32_t y = 0; y < t->h; y++)
            exact &= memcmp((uint8_t *)pb.pixels + y * img->stride,
                            (uint8_t *)img->pixels + y * img->stride, row_bytes(t)) == 0;
        if (t->mode == MODE_LOSSLESS && !exact) {
            char d[192];
            describe(t, d, sizeof d);
            print_error("%s: lossless round trip is not exact\n", d);
            fail();
        }
        free(pa.pixels);
        free(pb.pixels);
    }
    free_coeffs(&b);
}

/* Every mode, a few component counts and depths, every level count up to
 * the size's maximum (capped), quantized and raw. */
static void sweep(uint32_t w, uint32_t h, int max_levels_cap, uint64_t seed)
{
    static const uint32_t depths[] = {8, 16, 12, 1, 10};
    int maxl = dwt_max_levels(w, h);
    if (maxl > max_levels_cap) maxl = max_levels_cap;
    uint64_t k = 0;
    for (int mode = 0; mode < NMODES; mode++)
        for (uint32_t comps = 1; comps <= 4; comps++)
            for (int levels = 0; levels <= maxl; levels++) {
                tcase t = {w,
                           h,
                           comps,
                           depths[(k + (uint64_t)levels) % 5],
                           mode,
                           levels,
                           (int)((k + (uint64_t)comps) & 1) || mode == MODE_LOSSLESS,
                           seed * 1000 + k,
                           (size_t)((k % 3) * 3)};
                if (t.depth == 1 && mode != MODE_LOSSLESS) t.depth = 8;
                run_case(&t);
                k++;
            }
}

static void test_tiny(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 17}, {17, 1},
                                       {3, 3}, {2, 5}, {5, 2}, {3, 7}, {7, 3},  {4, 4}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        sweep(dims[i][0], dims[i][1], 15, i + 1);
}

static void test_thin(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{1, 300}, {300, 1}, {2, 259}, {259, 2}, {3, 130}, {130, 3}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        sweep(dims[i][0], dims[i][1], 15, 100 + i);
}

static void test_odd_prime(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{13, 17},   {31, 29}, {61, 67},
                                       {127, 131}, {251, 7}, {7, 251}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        sweep(dims[i][0], dims[i][1], 15, 200 + i);
}

static void test_blocks(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{64, 64},   {65, 63},  {128, 128},
                                       {129, 127}, {256, 64}, {120, 124}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        sweep(dims[i][0], dims[i][1], 7, 300 + i);
}

static void test_large(void **state)
{
    (void)state;
    for (int mode = 0; mode < NMODES; mode++)
        for (uint32_t comps = 1; comps <= 4; comps += 3) {
            tcase t = {1000,
                       777,
                       comps,
                       comps == 1 ? 16 : 8,
                       mode,
                       mode == MODE_LOSSY97 ? 5 : 6,
                       1,
                       400 + (uint64_t)mode * 8 + comps,
                       comps == 4 ? 5 : 0};
            run_case(&t);
            t.quantize = 0;
            t.levels = 3;
            run_case(&t);
        }
    /* One component of 8 and of 16 bits, 1288 columns wide: several whole
     * strips of the level kernels (dwt_level.cuh) and a partial last one. */
    for (int mode = 0; mode < NMODES; mode++)
        for (uint32_t depth = 8; depth <= 16; depth += 8) {
            tcase t = {1288, 520, 1, depth, mode, 5, 1, 450 + (uint64_t)mode * 2 + depth / 8, 0};
            run_case(&t);
        }
    /* Shrinking then growing again: buffers are reused, then regrown. */
    tcase s = {33, 35, 3, 8, MODE_LOSSY97, 2, 1, 500, 0};
    run_case(&s);
    tcase g = {1500, 1201, 3, 16, MODE_LOSSLESS, 5, 1, 501, 2};
    run_case(&g);
}

/* The 5/3 forward on one-byte samples, whose LL planes between levels are
 * int16 where dwt_driver.cu's bound allows (wcg_ll16: up to 7 levels gray,
 * 6 with the RCT) and int32 beyond: every level count on small, thin, odd
 * and prime sizes, gray and RCT, depths 8, 5 and 1, lossless and
 * quantized. WCG_LL32=1 runs the same cases on int32 planes. */
static void test_ll16(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{1, 1},   {1, 37},    {37, 1},  {2, 2},   {13, 17},
                                       {61, 67}, {127, 131}, {251, 7}, {7, 251}, {200, 130}};
    static const uint32_t depths[] = {8, 5, 1};
    uint64_t k = 0;
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        const int maxl = dwt_max_levels(dims[i][0], dims[i][1]);
        for (uint32_t comps = 1; comps <= 3; comps += 2)
            for (int levels = 1; levels <= maxl; levels++, k++) {
                tcase t = {dims[i][0],
                           dims[i][1],
                           comps,
                           depths[k % 3],
                           k % 2 ? MODE_LOSSY53 : MODE_LOSSLESS,
                           levels,
                           (int)(k % 4 != 1),
                           900 + k,
                           0};
                if (t.mode != MODE_LOSSLESS) t.depth = 8;
                run_case(&t);
            }
    }
}

/* Random coefficients, not made by a forward transform: the inverse must
 * agree on anything a file can hold, clamping included, and on the wrapping
 * integer lifting of damaged files whose coefficients come near 2^30. */
static void test_inverse_random(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{97, 45}, {1, 64}, {300, 257}};
    for (int hostile = 0; hostile < 2; hostile++)
        for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
            for (int mode = 0; mode < NMODES; mode++) {
                tcase t = {dims[i][0], dims[i][1],
                           4,          mode == MODE_LOSSLESS ? 12 : 8,
                           mode,       4,
                           1,          600 + i * 3 + (uint64_t)mode + 50 * (uint64_t)hostile,
                           0};
                if (t.levels > dwt_max_levels(t.w, t.h)) t.levels = dwt_max_levels(t.w, t.h);
                test_rng rng;
                test_rng_seed(&rng, t.seed);
                wc_stage_plan plan;
                make_plan(&t, &rng, &plan);
                wc_coeffs co;
                alloc_coeffs(&t, &co);
                const size_t n = (size_t)t.w * t.h;
                for (uint32_t c = 0; c < t.comps; c++)
                    for (size_t k = 0; k < n; k++)
                        co.q[c][k] = hostile ? test_rng_range(&rng, -(1 << 30), 1 << 30)
                                             : test_rng_range(&rng, -3000, 3000);
                wc_image pa = {t.w, t.h, t.comps, t.depth, row_bytes(&t), NULL};
                wc_image pb = pa;
                pa.pixels = malloc(pa.stride * t.h);
                pb.pixels = malloc(pb.stride * t.h);
                assert_non_null(pa.pixels);
                assert_non_null(pb.pixels);
                wc_err err = {{0}};
                assert_int_equal(g_cpu->inverse(g_cpu_self, &plan, &co, &pa, &err), WC_OK);
                memset(pb.pixels, 0x5A, pb.stride * t.h);
                wc_status s = g_gpu->inverse(g_gpu_self, &plan, &co, &pb, &err);
                if (s != WC_OK) print_error("CUDA inverse: %s\n", err.msg);
                assert_int_equal(s, WC_OK);
                if (memcmp(pa.pixels, pb.pixels, pa.stride * t.h) != 0) {
                    char d[192];
                    describe(&t, d, sizeof d);
                    print_error("%s: inverse of random coefficients differs\n", d);
                    fail();
                }
                free(pa.pixels);
                free(pb.pixels);
                free_coeffs(&co);
            }
}

/* A plan the kernels do not cover (DCT) still gives the CPU's bits. */
static void test_dct_plan(void **state)
{
    (void)state;
    tcase t = {40, 24, 1, 8, MODE_LOSSY97, 0, 1, 700, 0};
    test_rng rng;
    test_rng_seed(&rng, t.seed);
    wc_stage_plan plan;
    make_plan(&t, &rng, &plan);
    plan.transform[0] = WC_TRANSFORM_DCT;
    wc_image img;
    random_image(&t, &rng, &img);
    wc_coeffs a, b;
    alloc_coeffs(&t, &a);
    alloc_coeffs(&t, &b);
    wc_err err = {{0}};
    assert_int_equal(g_cpu->forward(g_cpu_self, &plan, &img, &a, &err), WC_OK);
    assert_int_equal(g_gpu->forward(g_gpu_self, &plan, &img, &b, &err), WC_OK);
    assert_true(same_words(a.q[0], b.q[0], (size_t)t.w * t.h, t.w, "DCT coefficients", 0, &t));
    free_coeffs(&a);
    free_coeffs(&b);
    free(img.pixels);
}

/* Bad plans fail cleanly, with a message, and leave the backend usable. */
static void test_errors(void **state)
{
    (void)state;
    tcase t = {16, 16, 1, 8, MODE_LOSSLESS, 2, 1, 800, 0};
    test_rng rng;
    test_rng_seed(&rng, t.seed);
    wc_stage_plan plan;
    make_plan(&t, &rng, &plan);
    wc_image img;
    random_image(&t, &rng, &img);
    wc_coeffs co;
    alloc_coeffs(&t, &co);
    wc_err err = {{0}};
    plan.wavelet[0] = 42;
    assert_int_equal(g_gpu->forward(g_gpu_self, &plan, &img, &co, &err), WC_ERR_ARG);
    assert_true(err.msg[0] != '\0');
    plan.wavelet[0] = 53;
    plan.levels = 16;
    memset(&err, 0, sizeof err);
    assert_int_equal(g_gpu->forward(g_gpu_self, &plan, &img, &co, &err), WC_ERR_ARG);
    plan.levels = 2;
    memset(&err, 0, sizeof err);
    assert_int_equal(g_gpu->forward(g_gpu_self, &plan, &img, &co, &err), WC_OK);
    free_coeffs(&co);
    free(img.pixels);
}

int main(void)
{
    const char *scheme = getenv("WC_TEST_DWT_SCHEME");
    if (scheme && !strcmp(scheme, "monolithic")) g_scheme53 = g_scheme97 = 100;
    if (scheme && !strcmp(scheme, "explosive")) g_scheme53 = 150, g_scheme97 = 110;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny),      cmocka_unit_test(test_thin),
        cmocka_unit_test(test_odd_prime), cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_large),     cmocka_unit_test(test_inverse_random),
        cmocka_unit_test(test_dct_plan),  cmocka_unit_test(test_errors),
        cmocka_unit_test(test_ll16),
    };
    return gpu_pair_main("test_cuda_backend", tests, sizeof tests / sizeof tests[0]);
}
