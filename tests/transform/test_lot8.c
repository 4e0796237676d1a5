/*
 * test_lot8.c -- the 8x8 LOT: perfect reconstruction on several plane
 * sizes (one block included), orthonormality of its basis (an interior
 * block's, and the whole transform's with the mirrored edges), energy,
 * known answers, compaction on a smooth image, and the bit-exact contract
 * of lot8.h (a literal reading of the documented algorithm, plus a frozen
 * checksum the CUDA port can check against).
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

#include "lot8.h"
#include "test_support.h"

#define TEST_PI 3.14159265358979323846

static float *alloc_floats(size_t n)
{
    float *p = calloc(n ? n : 1, sizeof *p);
    assert_non_null(p);
    return p;
}

static void lot_fwd(float *p, uint32_t w, uint32_t h)
{
    float *s = alloc_floats(lot8_scratch_elems(w, h));
    lot8_forward(p, w, h, s);
    free(s);
}

static void lot_inv(float *p, uint32_t w, uint32_t h)
{
    float *s = alloc_floats(lot8_scratch_elems(w, h));
    lot8_inverse(p, w, h, s);
    free(s);
}

static double energy(const float *p, size_t n)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) e += (double)p[i] * p[i];
    return e;
}

static double dot(const float *a, const float *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

/* ---- reconstruction and energy ------------------------------------------------ */

static void test_round_trip(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{8, 8},   {8, 16},    {16, 8},   {24, 40},
                                       {40, 24}, {256, 256}, {8, 1024}, {1024, 8}};
    test_rng r;
    test_rng_seed(&r, 10);
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        uint32_t w = dims[d][0], h = dims[d][1];
        size_t n = (size_t)w * h;
        float *x = alloc_floats(n), *y = alloc_floats(n);
        for (size_t i = 0; i < n; i++) x[i] = (float)test_rng_range(&r, 0, 255);
        memcpy(y, x, n * sizeof *y);
        lot_fwd(y, w, h);
        double ex = energy(x, n), ey = energy(y, n);
        lot_inv(y, w, h);
        double worst = 0;
        for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(y[i] - x[i]));
        print_message("lot8 %ux%u: round trip max |err| %.3g, energy ratio %.8f\n", w, h, worst,
                      ey / ex);
        assert_true(worst < 1e-3);
        /* Orthonormal everywhere (edges too), so energy is kept. */
        assert_true(fabs(ey - ex) <= 1e-5 * ex);
        free(x);
        free(y);
    }
}

/* Zero-sized planes are a no-op, not a crash. */
static void test_empty(void **state)
{
    (void)state;
    float one = 1.0f;
    lot8_forward(&one, 0, 8, NULL);
    lot8_inverse(&one, 8, 0, NULL);
    assert_true(one == 1.0f);
}

/* A constant plane gives DC = 8c in every block, edge blocks included (the
 * mirror keeps the extension constant), and nothing else. */
static void test_constant_plane(void **state)
{
    (void)state;
    const uint32_t w = 24, h = 16;
    float *p = alloc_floats(w * h);
    for (uint32_t i = 0; i < w * h; i++) p[i] = 37.0f;
    lot_fwd(p, w, h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            assert_float_equal(p[y * w + x], (y % 8 == 0 && x % 8 == 0) ? 8 * 37.0f : 0.0f, 1e-4);
    free(p);
}

/* ---- basis functions -------------------------------------------------------------- */

/* Basis image of coefficient (v, u) of block (bx, by): inverse of a unit. */
static void basis_image(float *img, uint32_t w, uint32_t h, uint32_t bx, uint32_t by, int v, int u)
{
    memset(img, 0, (size_t)w * h * sizeof *img);
    img[(8 * by + v) * w + 8 * bx + u] = 1.0f;
    lot_inv(img, w, h);
}

/* An interior block's 64 basis images: orthonormal, 16x16 support centred
 * on the block, orthogonal to the overlapping neighbours' basis, and the
 * same functions one block over (translation invariance). */
static void test_interior_basis(void **state)
{
    (void)state;
    enum { W = 48, H = 48, N = W * H };
    float *b = alloc_floats(64 * (size_t)N), *nb = alloc_floats(N);
    for (int k = 0; k < 64; k++) basis_image(b + (size_t)k * N, W, H, 2, 2, k / 8, k % 8);
    double worst = 0;
    for (int i = 0; i < 64; i++) {
        const float *bi = b + (size_t)i * N;
        for (int j = 0; j <= i; j++)
            worst = fmax(worst, fabs(dot(bi, b + (size_t)j * N, N) - (i == j)));
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (y < 12 || y >= 28 || x < 12 || x >= 28) assert_true(bi[y * W + x] == 0.0f);
    }
    print_message("lot8 interior basis: worst |<bi,bj> - delta| %.3g\n", worst);
    assert_true(worst < 1e-5);
    static const int nbr[][2] = {{3, 2}, {2, 3}, {3, 3}, {1, 2}, {1, 1}};
    for (size_t n = 0; n < sizeof nbr / sizeof nbr[0]; n++)
        for (int k = 0; k < 64; k++) {
            basis_image(nb, W, H, nbr[n][0], nbr[n][1], k / 8, k % 8);
            for (int i = 0; i < 64; i++) assert_true(fabs(dot(nb, b + (size_t)i * N, N)) < 1e-5);
            if (nbr[n][0] == 3 && nbr[n][1] == 2) /* block (3,2) is block (2,2) moved 8 right */
                for (int y = 0; y < H; y++)
                    for (int x = 8; x < W; x++)
                        assert_float_equal(nb[y * W + x], b[(size_t)k * N + y * W + x - 8], 1e-6);
        }
    free(b);
    free(nb);
}

/* Every basis image of a small plane, edge blocks included: the whole
 * transform is orthonormal (the symmetric extension costs no accuracy). */
static void test_whole_transform_orthonormal(void **state)
{
    (void)state;
    enum { W = 24, H = 16, N = W * H };
    float *b = alloc_floats((size_t)N * N);
    for (int k = 0; k < N; k++) {
        float *img = b + (size_t)k * N;
        img[k] = 1.0f;
        lot_inv(img, W, H);
    }
    double worst = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            worst = fmax(worst, fabs(dot(b + (size_t)i * N, b + (size_t)j * N, N) - (i == j)));
    print_message("lot8 %dx%d full basis: worst |<bi,bj> - delta| %.3g\n", W, H, worst);
    assert_true(worst < 1e-5);
    free(b);
}

/* ---- compaction ---------------------------------------------------------------------- */

/* A smooth image keeps > 99% of its energy in each block's coefficients
 * with u + v <= 2 (DC and the first five AC), and with the DC taken out
 * the low AC still hold most of the rest. */
static void test_smooth_compaction(void **state)
{
    (void)state;
    enum { W = 64, H = 64 };
    float *p = alloc_floats(W * H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            p[y * W + x] =
                (float)(128 + 0.8 * x - 0.5 * y +
                        40 * sin(2 * TEST_PI * x / 90.0 + 0.4) * cos(2 * TEST_PI * y / 70.0));
    lot_fwd(p, W, H);
    double total = 0, low = 0, ac = 0, lowac = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double e = (double)p[y * W + x] * p[y * W + x];
            int v = y % 8, u = x % 8;
            total += e;
            if (u + v <= 2) low += e;
            if (u + v > 0) ac += e;
            if (u + v > 0 && u + v <= 2) lowac += e;
        }
    print_message("lot8 smooth image: %.5f%% of energy in u+v<=2, %.3f%% of AC energy there\n",
                  100 * low / total, 100 * lowac / ac);
    assert_true(low > 0.99 * total);
    assert_true(lowac > 0.9 * ac);
    free(p);
}

/* ---- the numeric contract ----------------------------------------------------- */

/* lot8.h's 1-D algorithm read literally: extend by 4 mirrored samples on
 * each side, stage 1 on every shifted block, stage 2 on every pair. */
static void contract_fwd_1d(float *x, uint32_t n, size_t stride)
{
    uint32_t m = n / 8;
    float *ext = alloc_floats(n + 8), *pq = alloc_floats(8 * ((size_t)m + 1));
    for (int64_t i = -4; i < (int64_t)n + 4; i++) {
        int64_t j = i < 0 ? -1 - i : i >= (int64_t)n ? 2 * (int64_t)n - 1 - i : i;
        ext[i + 4] = x[(size_t)j * stride];
    }
    for (uint32_t s = 0; s <= m; s++)
        lot8_stage1_fwd(ext + 8 * s, pq + 8 * s); /* s-1 in the header */
    for (uint32_t b = 0; b < m; b++) {
        float y[8];
        lot8_stage2_fwd(pq + 8 * b + 4, pq + 8 * (b + 1), y);
        for (int k = 0; k < 8; k++) x[(8 * b + k) * stride] = y[k];
    }
    free(ext);
    free(pq);
}

static void contract_inv_1d(float *x, uint32_t n, size_t stride)
{
    uint32_t m = n / 8;
    float *qh = alloc_floats(4 * ((size_t)m + 1)), *ph = alloc_floats(4 * ((size_t)m + 1));
    float *ext = alloc_floats(n + 8);
    for (uint32_t b = 0; b < m; b++) {
        float y[8];
        for (int k = 0; k < 8; k++) y[k] = x[(8 * b + k) * stride];
        lot8_stage2_inv(y, qh + 4 * b, ph + 4 * (b + 1)); /* shifted blocks b-1 and b */
    }
    memcpy(ph, qh, 4 * sizeof *ph);                 /* left edge: mirror */
    memcpy(qh + 4 * m, ph + 4 * m, 4 * sizeof *qh); /* right edge: mirror */
    for (uint32_t s = 0; s <= m; s++) lot8_stage1_inv(ph + 4 * s, qh + 4 * s, ext + 8 * s);
    for (uint32_t i = 0; i < n; i++) x[i * stride] = ext[i + 4];
    free(qh);
    free(ph);
    free(ext);
}

static void contract_2d(float *p, uint32_t w, uint32_t h, int inverse)
{
    for (int pass = 0; pass < 2; pass++) {
        int rows = (pass == 0) != (inverse != 0);
        void (*f)(float *, uint32_t, size_t) = inverse ? contract_inv_1d : contract_fwd_1d;
        if (rows)
            for (uint32_t y = 0; y < h; y++) f(p + (size_t)y * w, w, 1);
        else
            for (uint32_t x = 0; x < w; x++) f(p + x, h, w);
    }
}

static void test_contract_bitwise(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{8, 8}, {16, 8}, {8, 24}, {40, 24}};
    test_rng r;
    test_rng_seed(&r, 11);
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int inverse = 0; inverse < 2; inverse++) {
            uint32_t w = dims[d][0], h = dims[d][1];
            size_t n = (size_t)w * h;
            float *a = alloc_floats(n), *b = alloc_floats(n);
            for (size_t i = 0; i < n; i++) a[i] = (float)(600 * test_rng_unit(&r) - 300);
            memcpy(b, a, n * sizeof *b);
            if (inverse)
                lot_inv(a, w, h);
            else
                lot_fwd(a, w, h);
            contract_2d(b, w, h, inverse);
            assert_memory_equal(a, b, n * sizeof *a);
            free(a);
            free(b);
        }
}

static uint32_t fnv_bits(const float *p, size_t n)
{
    uint32_t hsh = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &p[i], sizeof b);
        for (int k = 0; k < 4; k++) hsh = (hsh ^ ((b >> (8 * k)) & 0xffu)) * 16777619u;
    }
    return hsh;
}

/* Frozen output bits of a fixed input: if this fails the contract changed,
 * and lot8.h, the CUDA kernels and these values must change together. */
static void test_golden_bits(void **state)
{
    (void)state;
    enum { W = 24, H = 16 };
    float p[W * H];
    test_rng r;
    test_rng_seed(&r, 1989);
    for (int i = 0; i < W * H; i++) p[i] = (float)test_rng_range(&r, -128, 127) + 0.25f;
    lot_fwd(p, W, H);
    uint32_t hf = fnv_bits(p, W * H);
    lot_inv(p, W, H);
    uint32_t hi = fnv_bits(p, W * H);
    print_message("lot8 golden: forward %08x inverse %08x\n", hf, hi);
    assert_int_equal(hf, 0x20326ad9u);
    assert_int_equal(hi, 0x9f7474b3u);
}

static void test_constants_documented(void **state)
{
    (void)state;
    static const float lit[] = {LOT8_C1, LOT8_S1, LOT8_C2, LOT8_S2, LOT8_C3, LOT8_S3};
    static const float hex[] = {0x1.d5e3f0p-1f, 0x1.96adf0p-2f, 0x1.c0ab44p-1f,
                                0x1.ed50d6p-2f, 0x1.d5e3f0p-1f, 0x1.96adf0p-2f};
    assert_memory_equal(lit, hex, sizeof lit);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_constant_plane),
        cmocka_unit_test(test_interior_basis),
        cmocka_unit_test(test_whole_transform_orthonormal),
        cmocka_unit_test(test_smooth_compaction),
        cmocka_unit_test(test_contract_bitwise),
        cmocka_unit_test(test_golden_bits),
        cmocka_unit_test(test_constants_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
