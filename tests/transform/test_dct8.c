/*
 * test_dct8.c -- the blocked 8x8 DCT against the textbook O(n^2) definition
 * in double precision, its known answers (constant block, single cosine),
 * Parseval, round trips on planes, the bit-exact contract of dct8.h (plane
 * == block-by-block == the documented kernel order, plus a frozen checksum
 * the CUDA port can check against), and blk8_pad's mirror.
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

#include "dct8.h"
#include "test_support.h"

#define TEST_PI 3.14159265358979323846

/* ---- the reference: Definition 1 of the seed paper, in double ------------- */

static double ref_basis(int f, int t) /* sqrt(2/8) C(f) cos((2t+1) f pi / 16) */
{
    double c = f == 0 ? sqrt(0.125) : 0.5;
    return c * cos((2 * t + 1) * f * TEST_PI / 16.0);
}

/* out[v][u] = sum_{y,x} basis(v,y) basis(u,x) in[y][x] */
static void ref_forward(const float *in, double *out)
{
    for (int v = 0; v < 8; v++)
        for (int u = 0; u < 8; u++) {
            double s = 0;
            for (int y = 0; y < 8; y++)
                for (int x = 0; x < 8; x++) s += ref_basis(v, y) * ref_basis(u, x) * in[y * 8 + x];
            out[v * 8 + u] = s;
        }
}

static void ref_inverse(const float *in, double *out)
{
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            double s = 0;
            for (int v = 0; v < 8; v++)
                for (int u = 0; u < 8; u++) s += ref_basis(v, y) * ref_basis(u, x) * in[v * 8 + u];
            out[y * 8 + x] = s;
        }
}

static double block_norm(const float *b, size_t n)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) e += (double)b[i] * b[i];
    return sqrt(e);
}

static void fill_random(test_rng *r, float *p, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++) p[i] = (float)(lo + (hi - lo) * test_rng_unit(r));
}

static float *alloc_floats(size_t n)
{
    float *p = malloc(n * sizeof *p);
    assert_non_null(p);
    return p;
}

/* ---- accuracy ------------------------------------------------------------------ */

static void test_matches_definition(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 1);
    double worst_f = 0, worst_i = 0;
    for (int trial = 0; trial < 500; trial++) {
        float in[64], out[64];
        double ref[64];
        double scale = trial % 3 == 0 ? 1.0 : trial % 3 == 1 ? 255.0 : 1e4;
        fill_random(&r, in, 64, -scale, scale);
        double norm = block_norm(in, 64);
        dct8_forward_block(in, out);
        ref_forward(in, ref);
        for (int i = 0; i < 64; i++) worst_f = fmax(worst_f, fabs(out[i] - ref[i]) / norm);
        /* The inverse against the definition too, on arbitrary coefficients. */
        dct8_inverse_block(in, out);
        ref_inverse(in, ref);
        for (int i = 0; i < 64; i++) worst_i = fmax(worst_i, fabs(out[i] - ref[i]) / norm);
    }
    print_message("dct8 vs definition: worst |err|/||x|| fwd %.3g inv %.3g\n", worst_f, worst_i);
    assert_true(worst_f < 1e-4);
    assert_true(worst_i < 1e-4);
    /* Float round-off is ~1e-7 relative: fail loudly if the kernel drifts. */
    assert_true(worst_f < 2e-6 && worst_i < 2e-6);
}

static void test_constant_block(void **state)
{
    (void)state;
    const float values[] = {0.0f, 1.0f, -3.5f, 128.0f, 255.0f};
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        float b[64];
        for (int i = 0; i < 64; i++) b[i] = values[k];
        dct8_forward_block(b, b);
        assert_float_equal(b[0], 8.0f * values[k], 1e-5 * (1 + fabsf(values[k])));
        for (int i = 1; i < 64; i++) assert_float_equal(b[i], 0.0f, 1e-5 * (1 + fabsf(values[k])));
    }
}

/* A single cosine basis image of amplitude A transforms to A at (v0, u0). */
static void test_cosine_basis(void **state)
{
    (void)state;
    const double amp = 100.0;
    for (int v0 = 0; v0 < 8; v0++)
        for (int u0 = 0; u0 < 8; u0++) {
            float b[64];
            for (int y = 0; y < 8; y++)
                for (int x = 0; x < 8; x++)
                    b[y * 8 + x] = (float)(amp * ref_basis(v0, y) * ref_basis(u0, x));
            dct8_forward_block(b, b);
            for (int i = 0; i < 64; i++)
                assert_float_equal(b[i], i == v0 * 8 + u0 ? amp : 0.0, 1e-4);
        }
}

static void test_parseval(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 2);
    for (int trial = 0; trial < 200; trial++) {
        float in[64], out[64];
        fill_random(&r, in, 64, -128, 127);
        dct8_forward_block(in, out);
        double ex = block_norm(in, 64), ey = block_norm(out, 64);
        assert_true(fabs(ex * ex - ey * ey) <= 1e-5 * ex * ex);
    }
}

/* Round trips on planes of 8-bit data, level-shifted as JPEG does (the
 * brief's 1e-4) and raw 0..255: float keeps ~24 bits, and a DC of 8 * 255
 * passed through four 1-D stages leaves ~1.4e-4 there, so the raw bound is
 * relative to the data range (1e-6 * 255). */
static void test_plane_round_trip(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{8, 8}, {16, 8}, {8, 16}, {64, 64}, {8, 1024}, {1024, 8}};
    test_rng r;
    test_rng_seed(&r, 3);
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int shift = 0; shift <= 128; shift += 128) {
            uint32_t w = dims[d][0], h = dims[d][1];
            size_t n = (size_t)w * h;
            float *x = alloc_floats(n), *y = alloc_floats(n);
            for (size_t i = 0; i < n; i++) x[i] = (float)(test_rng_range(&r, 0, 255) - shift);
            memcpy(y, x, n * sizeof *y);
            dct8_forward(y, w, h);
            dct8_inverse(y, w, h);
            double worst = 0;
            for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(y[i] - x[i]));
            print_message("dct8 %ux%u round trip (%s): max |err| %.3g\n", w, h,
                          shift ? "-128..127" : "0..255", worst);
            assert_true(worst < (shift ? 1e-4 : 1e-6 * 255));
            free(x);
            free(y);
        }
}

/* ---- the numeric contract ----------------------------------------------------- */

/* The documented order, written directly: 1-D kernel on each row, then
 * each column (inverse: columns, then rows). */
static void contract_block(const float *in, float *out, int inverse)
{
    float t[64], col[8];
    memcpy(t, in, sizeof t);
    for (int pass = 0; pass < 2; pass++) {
        int rows = (pass == 0) != (inverse != 0);
        for (int i = 0; i < 8; i++) {
            for (int k = 0; k < 8; k++) col[k] = rows ? t[i * 8 + k] : t[k * 8 + i];
            if (inverse)
                dct8_inv8(col, col);
            else
                dct8_fwd8(col, col);
            for (int k = 0; k < 8; k++) *(rows ? &t[i * 8 + k] : &t[k * 8 + i]) = col[k];
        }
    }
    memcpy(out, t, sizeof t);
}

/* Plane, block and documented order agree to the bit, both directions. */
static void test_plane_equals_blocks_bitwise(void **state)
{
    (void)state;
    const uint32_t w = 40, h = 24;
    float *p = alloc_floats(w * h), *q = alloc_floats(w * h);
    test_rng r;
    test_rng_seed(&r, 4);
    fill_random(&r, p, (size_t)w * h, -300, 300);
    for (int inverse = 0; inverse < 2; inverse++) {
        memcpy(q, p, (size_t)w * h * sizeof *q);
        if (inverse)
            dct8_inverse(q, w, h);
        else
            dct8_forward(q, w, h);
        for (uint32_t by = 0; by < h; by += 8)
            for (uint32_t bx = 0; bx < w; bx += 8) {
                float blk[64], viaapi[64], viadoc[64];
                for (int y = 0; y < 8; y++)
                    memcpy(blk + 8 * y, p + (by + y) * w + bx, 8 * sizeof *blk);
                if (inverse)
                    dct8_inverse_block(blk, viaapi);
                else
                    dct8_forward_block(blk, viaapi);
                contract_block(blk, viadoc, inverse);
                assert_memory_equal(viaapi, viadoc, sizeof viaapi);
                for (int y = 0; y < 8; y++)
                    assert_memory_equal(q + (by + y) * w + bx, viaapi + 8 * y, 8 * sizeof *blk);
            }
    }
    free(p);
    free(q);
}

/* FNV-1a over the output bits of a fixed input: freezes the float operation
 * order. If this fails the contract changed: dct8.h, the CUDA kernels and
 * these values must change together. */
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

static void test_golden_bits(void **state)
{
    (void)state;
    float p[16 * 16];
    test_rng r;
    test_rng_seed(&r, 1180);
    for (int i = 0; i < 16 * 16; i++) p[i] = (float)test_rng_range(&r, -128, 127) + 0.25f;
    dct8_forward(p, 16, 16);
    uint32_t hf = fnv_bits(p, 16 * 16);
    dct8_inverse(p, 16, 16);
    uint32_t hi = fnv_bits(p, 16 * 16);
    print_message("dct8 golden: forward %08x inverse %08x\n", hf, hi);
    assert_int_equal(hf, 0x3f92c413u);
    assert_int_equal(hi, 0x9f5a92efu);
}

/* The hex values the header documents are the values the literals give. */
static void test_constants_documented(void **state)
{
    (void)state;
    static const float lit[] = {DCT8_A1, DCT8_A2, DCT8_A4, DCT8_A5, DCT8_B1, DCT8_B2,
                                DCT8_B3, DCT8_B4, DCT8_S0, DCT8_S1, DCT8_S2, DCT8_S3,
                                DCT8_S4, DCT8_S5, DCT8_S6, DCT8_S7, DCT8_T0, DCT8_T1,
                                DCT8_T2, DCT8_T3, DCT8_T4, DCT8_T5, DCT8_T6, DCT8_T7};
    static const float hex[] = {0x1.6a09e6p-1f, 0x1.1517a8p-1f, 0x1.4e7aeap+0f, 0x1.87de2ap-2f,
                                0x1.6a09e6p+0f, 0x1.d906bcp+0f, 0x1.1517a8p+0f, 0x1.4e7aeap+1f,
                                0x1.6a09e6p-2f, 0x1.0503eep-2f, 0x1.1517a8p-2f, 0x1.33e37ap-2f,
                                0x1.6a09e6p-2f, 0x1.ccc9aep-2f, 0x1.4e7aeap-1f, 0x1.480d9ep+0f,
                                0x1.6a09e6p-2f, 0x1.f6297cp-2f, 0x1.d906bcp-2f, 0x1.a9b662p-2f,
                                0x1.6a09e6p-2f, 0x1.1c73b4p-2f, 0x1.87de2ap-3f, 0x1.8f8b84p-4f};
    assert_memory_equal(lit, hex, sizeof lit);
}

/* ---- blk8_pad ------------------------------------------------------------------ */

/* Independent reading of half-sample symmetry: reflect until in range. */
static uint32_t ref_reflect(int64_t i, uint32_t n)
{
    while (i < 0 || i >= (int64_t)n) i = i < 0 ? -1 - i : 2 * (int64_t)n - 1 - i;
    return (uint32_t)i;
}

static void test_pad_mirror(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{1, 1},   {1, 13}, {13, 1}, {1, 8}, {7, 9},
                                       {13, 17}, {3, 2},  {16, 8}, {2, 31}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        uint32_t w = dims[d][0], h = dims[d][1], pw = blk8_ceil8(w), ph = blk8_ceil8(h);
        assert_int_equal(pw % 8, 0);
        assert_true(pw >= w && pw - w < 8 && ph >= h && ph - h < 8);
        float *src = alloc_floats((size_t)w * h), *dst = alloc_floats((size_t)pw * ph);
        for (uint32_t i = 0; i < w * h; i++) src[i] = (float)i * 0.5f + 1.0f;
        blk8_pad(src, w, h, dst, pw, ph);
        for (uint32_t y = 0; y < ph; y++)
            for (uint32_t x = 0; x < pw; x++)
                assert_true(dst[y * pw + x] == src[ref_reflect(y, h) * w + ref_reflect(x, w)]);
        free(src);
        free(dst);
    }
}

/* Spelled-out answer: a 3-wide row pads to [a b c c b a a b]. */
static void test_pad_known_row(void **state)
{
    (void)state;
    const float src[3] = {1, 2, 3};
    float dst[8 * 8];
    const float want[8] = {1, 2, 3, 3, 2, 1, 1, 2};
    blk8_pad(src, 3, 1, dst, 8, 8);
    for (int y = 0; y < 8; y++) assert_memory_equal(dst + 8 * y, want, sizeof want);
    assert_int_equal(blk8_ceil8(0), 0);
    assert_int_equal(blk8_ceil8(1), 8);
    assert_int_equal(blk8_ceil8(8), 8);
    assert_int_equal(blk8_ceil8(4097), 4104);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_definition),
        cmocka_unit_test(test_constant_block),
        cmocka_unit_test(test_cosine_basis),
        cmocka_unit_test(test_parseval),
        cmocka_unit_test(test_plane_round_trip),
        cmocka_unit_test(test_plane_equals_blocks_bitwise),
        cmocka_unit_test(test_golden_bits),
        cmocka_unit_test(test_constants_documented),
        cmocka_unit_test(test_pad_mirror),
        cmocka_unit_test(test_pad_known_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
