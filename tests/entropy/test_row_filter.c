/* test_row_filter.c -- filtered deflate (entropy 4): exact round trips,
 * the packing it picks, a hand-made payload decoded by the format's
 * rules, and every kind of damage refused without a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "row_filter.h"
#include "test_support.h"
#include "zcodec.h"

/* Values in [lo, lo + span] (span < 2^32), flat runs and repeats mixed
 * in as graphics have them; rows `stride` apart, the gap filled with a
 * value the coder must not read. */
static int32_t *make_values(uint32_t w, uint32_t h, size_t stride, int64_t lo, uint64_t span,
                            uint64_t seed)
{
    int32_t *v = malloc(sizeof(int32_t) * stride * h);
    test_rng r;
    test_rng_seed(&r, seed);
    for (uint32_t y = 0; y < h; y++)
        for (size_t x = 0; x < stride; x++) {
            int64_t val;
            if (x >= w)
                val = INT32_MIN;
            else if (x > 0 && test_rng_range(&r, 0, 2) == 0)
                val = v[(size_t)y * stride + x - 1];
            else
                val = lo +
                      (int64_t)(((uint64_t)test_rng_u32(&r) << 16 ^ test_rng_u32(&r)) % (span + 1));
            v[(size_t)y * stride + x] = (int32_t)val;
        }
    /* the extremes, so that the packing must cover the whole span */
    v[0] = (int32_t)lo;
    v[(size_t)(h - 1) * stride + w - 1] = (int32_t)(lo + (int64_t)span);
    return v;
}

static void roundtrip(uint32_t w, uint32_t h, size_t stride, int64_t lo, uint64_t span,
                      unsigned want_packing)
{
    int32_t *v = make_values(w, h, stride, lo, span, w * 131u + h * 7u + (uint64_t)span);
    uint8_t *coded = NULL;
    size_t n = 0;
    wc_err err = {{0}};
    assert_int_equal(rf_encode(v, stride, w, h, &coded, &n, &err), WC_OK);
    assert_true(n >= 2);
    /* the fewest bits that hold the span (the values are random: no
     * common step to scale by); one value, or none but the base: a
     * constant plane (packing 6, nothing after the base) */
    const int constant = (uint64_t)w * h == 1 || span == 0;
    assert_int_equal(coded[0], constant ? 6 : want_packing);
    int32_t *back = malloc(sizeof(int32_t) * w * h);
    assert_int_equal(rf_decode(coded, n, back, w, w, h, &err), WC_OK);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            assert_int_equal(back[(size_t)y * w + x], v[(size_t)y * stride + x]);
    free(back);
    wc_free(coded);
    free(v);
}

static void test_roundtrip_shapes_and_depths(void **state)
{
    (void)state;
    static const uint32_t shapes[][2] = {{1, 1},   {1, 37},  {41, 1},  {17, 13},
                                         {31, 29}, {128, 3}, {3, 130}, {7, 7}};
    /* spans of 1, 2, 4, 8, 16 and 32 bits, at negative and positive bases */
    static const struct {
        int64_t lo;
        uint64_t span;
        unsigned packing;
    } ranges[] = {{0, 0, 6},
                  {-1, 1, 0},
                  {5, 3, 1},
                  {-128, 15, 2},
                  {-128, 255, 3},
                  {-2048, 4095, 4},
                  {-32768, 65535, 4},
                  {-65536, 65536, 5},
                  {INT32_MIN, 0xFFFFFFFFull, 5},
                  {INT32_MAX - 2, 2, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
            roundtrip(shapes[s][0], shapes[s][1], shapes[s][0], ranges[r].lo, ranges[r].span,
                      ranges[r].packing);
            roundtrip(shapes[s][0], shapes[s][1], shapes[s][0] + 3, ranges[r].lo, ranges[r].span,
                      ranges[r].packing);
        }
}

/* Values on a lattice base + k * g pack as k at a scale g: two grey
 * levels -128 and 127 at one bit, four 16-bit levels at two. */
static void test_scaled(void **state)
{
    (void)state;
    static const struct {
        int32_t base, step;
        unsigned levels, packing;
    } cases[] = {{-128, 255, 2, 0}, {-32768, 20000, 4, 1}, {-7, 3, 16, 2}};
    /* Values on a lattice pack as k at a scale g; whether the encoder
     * keeps that is its choice of the smaller payload. */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t w = 61, h = 37;
        int32_t v[61 * 37], back[61 * 37];
        for (uint32_t i = 0; i < w * h; i++) {
            const uint32_t k = (i / 7 + i / w) % cases[c].levels;
            v[i] = cases[c].base + (int32_t)k * cases[c].step;
        }
        uint8_t *coded = NULL;
        size_t n = 0;
        wc_err err = {{0}};
        assert_int_equal(rf_encode(v, w, w, h, &coded, &n, &err), WC_OK);
        /* the first two scaled for sure (a bit or two against 8 or 16);
         * the third as the smaller stream says */
        if (c < 2) assert_int_equal(coded[0], 0x80 | cases[c].packing);
        assert_int_equal(rf_decode(coded, n, back, w, w, h, &err), WC_OK);
        assert_memory_equal(back, v, sizeof v);
        wc_free(coded);
    }
}

/* A payload of the given head and filtered rows, deflated raw. */
static size_t build_payload(const uint8_t *head, size_t nhead, const uint8_t *rows, size_t nrows,
                            uint8_t *out)
{
    memcpy(out, head, nhead);
    size_t zs = 0;
    wc_err err = {{0}};
    assert_int_equal(
        zc_compress_raw(rows, nrows, 9, Z_DEFAULT_STRATEGY, out + nhead, 256, &zs, &err), WC_OK);
    return nhead + zs;
}

/* FORMAT.md's rules by hand: 2 bits a value, base -3 (zigzag 5), five
 * values 3 0 1 2 3 packed high bits first (11 00 01 10 | 11 + padding),
 * the first row unfiltered, the second with filter 2 (up) and zero
 * differences, the third with filter 1 (sub, one byte to the left). */
static void test_known_payload(void **state)
{
    (void)state;
    const uint8_t head[2] = {1, 5};
    const uint8_t rows[9] = {0, 0xC6, 0xC0, 2, 0, 0, 1, 0xC6, (uint8_t)(0xC0 - 0xC6)};
    uint8_t payload[300];
    size_t n = build_payload(head, 2, rows, sizeof rows, payload);
    int32_t v[15];
    wc_err err = {{0}};
    assert_int_equal(rf_decode(payload, n, v, 5, 5, 3, &err), WC_OK);
    const int32_t want[5] = {0, -3, -2, -1, 0};
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) assert_int_equal(v[y * 5 + x], want[x]);
}

static void expect_corrupt(const uint8_t *p, size_t n, uint32_t w, uint32_t h, const char *what)
{
    int32_t v[64];
    wc_err err = {{0}};
    assert_int_equal(rf_decode(p, n, v, w, w, h, &err), WC_ERR_CORRUPT);
    if (!strstr(err.msg, what)) fail_msg("expected \"%s\" in \"%s\"", what, err.msg);
}

static void test_damage_by_construction(void **state)
{
    (void)state;
    uint8_t payload[300];
    const uint8_t rows[3] = {0, 0xC6, 0xC0};
    const uint8_t good[2] = {1, 5}, bad_packing[2] = {7, 5},
                  long_base[7] = {1, 0x80, 0x80, 0x80, 0x80, 0x80, 0};
    size_t n = build_payload(good, 2, rows, 3, payload);
    int32_t v[5];
    wc_err err = {{0}};
    assert_int_equal(rf_decode(payload, n, v, 5, 5, 1, &err), WC_OK);
    expect_corrupt(payload, 0, 5, 1, "empty");
    n = build_payload(bad_packing, 2, rows, 3, payload);
    expect_corrupt(payload, n, 5, 1, "packing 7");
    const uint8_t reserved[2] = {0x09, 5}, const_scaled[3] = {0x86, 5, 3};
    expect_corrupt(reserved, 2, 5, 1, "reserved bits");
    expect_corrupt(const_scaled, 3, 5, 1, "packing 6 with a scale");
    /* a constant plane: its base and nothing more */
    const uint8_t constant[3] = {6, 5, 0};
    int32_t c5[5];
    assert_int_equal(rf_decode(constant, 2, c5, 5, 5, 1, &err), WC_OK);
    for (int i = 0; i < 5; i++) assert_int_equal(c5[i], -3);
    expect_corrupt(constant, 3, 5, 1, "after a constant plane");
    /* a scale of 0 or 1, a missing one, one that takes a value past int32 */
    const uint8_t scale1[3] = {0x81, 5, 1}, scale_missing[2] = {0x81, 5};
    expect_corrupt(scale1, 3, 5, 1, "scale 1");
    expect_corrupt(scale_missing, 2, 5, 1, "scale runs past");
    const uint8_t big_scale[7] = {0x80, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x02};
    const uint8_t bit1[2] = {0, 0x80};
    n = build_payload(big_scale, 7, bit1, 2, payload);
    expect_corrupt(payload, n, 1, 1, "outside int32");
    expect_corrupt(long_base, 7, 5, 1, "longer than 32 bits");
    expect_corrupt(good, 1, 5, 1, "base runs past");
    /* padding bits after the last value */
    const uint8_t padded[3] = {0, 0xC6, 0xC1};
    n = build_payload(good, 2, padded, 3, payload);
    expect_corrupt(payload, n, 5, 1, "padding");
    /* a filter past Paeth */
    const uint8_t filter5[3] = {5, 0xC6, 0xC0};
    n = build_payload(good, 2, filter5, 3, payload);
    expect_corrupt(payload, n, 5, 1, "filter 5");
    /* the stream holding one row too many, or too few */
    n = build_payload(good, 2, rows, 3, payload);
    expect_corrupt(payload, n, 5, 2, "inflate");
    const uint8_t two_rows[6] = {0, 0xC6, 0xC0, 0, 0xC6, 0xC0};
    n = build_payload(good, 2, two_rows, 6, payload);
    expect_corrupt(payload, n, 5, 1, "inflate");
    /* a byte after the stream */
    n = build_payload(good, 2, rows, 3, payload);
    payload[n++] = 0;
    expect_corrupt(payload, n, 5, 1, "trailing");
    /* 32 bits from base 2^31 - 1: the value 2^31 is no int32 */
    const uint8_t top[6] = {5, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F};
    const uint8_t one[5] = {0, 0, 0, 0, 1};
    n = build_payload(top, 6, one, 5, payload);
    expect_corrupt(payload, n, 1, 1, "outside int32");
}

/* Truncations and single-bit flips of a real payload: an error or (a
 * flip deflate cannot see) some values; never a crash or a read outside
 * the payload (ASan in CI). Truncation is always an error. */
static void test_damage_truncation_and_flips(void **state)
{
    (void)state;
    const uint32_t w = 19, h = 11;
    int32_t *v = make_values(w, h, w, -8, 15, 99);
    uint8_t *coded = NULL;
    size_t n = 0;
    wc_err err = {{0}};
    assert_int_equal(rf_encode(v, w, w, h, &coded, &n, &err), WC_OK);
    int32_t back[19 * 11];
    for (size_t k = 0; k < n; k++) {
        uint8_t *cut = malloc(k ? k : 1);
        memcpy(cut, coded, k);
        wc_err e = {{0}};
        assert_int_equal(rf_decode(cut, k, back, w, w, h, &e), WC_ERR_CORRUPT);
        assert_true(e.msg[0] != 0);
        free(cut);
    }
    for (size_t bit = 0; bit < n * 8; bit++) {
        coded[bit / 8] ^= (uint8_t)(1u << bit % 8);
        wc_err e = {{0}};
        wc_status s = rf_decode(coded, n, back, w, w, h, &e);
        assert_true(s == WC_OK || (s == WC_ERR_CORRUPT && e.msg[0] != 0));
        coded[bit / 8] ^= (uint8_t)(1u << bit % 8);
    }
    wc_free(coded);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_shapes_and_depths),
        cmocka_unit_test(test_scaled),
        cmocka_unit_test(test_known_payload),
        cmocka_unit_test(test_damage_by_construction),
        cmocka_unit_test(test_damage_truncation_and_flips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
