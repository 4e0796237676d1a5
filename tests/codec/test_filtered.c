/*
 * test_filtered.c -- filtered deflate files (format 2.0, entropy 4)
 * through the public API: exact lossless round trips over 1x1, 1xN, Nx1,
 * odd and prime sizes, 1 to 16 bits and 1 to 4 components; regions of
 * them; the parameters it needs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "test_support.h"
#include "wcodec.h"

/* Flat runs, a few levels and noise: each packing width gets used. */
static wc_image make_image(test_rng *r, uint32_t w, uint32_t h, uint32_t comps, uint32_t depth)
{
    wc_image img = {w, h, comps, depth, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    const uint32_t maxv = (1u << depth) - 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < comps; c++) {
                uint32_t v = ((x / 5 + y / 3 + c) % 4) * (maxv / 3);
                if (test_rng_range(r, 0, 7) == 0) v = test_rng_u32(r) & maxv;
                test_put_sample(img.pixels, ((size_t)y * w + x) * comps + c, depth, v);
            }
    return img;
}

static void params(wc_params *p)
{
    wc_params_init(p);
    p->lossless = 1;
    p->levels = 0;
    p->entropy = WC_ENTROPY_FILTERED;
    p->backend = WC_BACKEND_CPU;
}

static void test_roundtrips(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 3);
    static const uint32_t sizes[][2] = {{1, 1}, {1, 37}, {41, 1}, {17, 13}, {31, 29}, {130, 3}};
    wc_params p;
    params(&p);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (uint32_t comps = 1; comps <= 4; comps++)
            for (uint32_t depth = 1; depth <= 16; depth++) {
                wc_image img = make_image(&r, sizes[si][0], sizes[si][1], comps, depth);
                void *file = NULL;
                size_t n = 0;
                if (wc_encode_alloc(ctx, &p, &img, &file, &n) != WC_OK)
                    fail_msg("%s", wc_ctx_error(ctx));
                wc_info info;
                assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
                assert_int_equal(info.entropy, WC_ENTROPY_FILTERED);
                assert_int_equal(info.format_major, 2);
                wc_image back;
                if (wc_decode(ctx, NULL, file, n, &back) != WC_OK)
                    fail_msg("%ux%u x%u %u-bit: %s", img.width, img.height, comps, depth,
                             wc_ctx_error(ctx));
                assert_int_equal(back.bit_depth, depth);
                assert_memory_equal(back.pixels, img.pixels, wc_image_row_bytes(&img) * img.height);
                wc_image_free(&back);
                wc_free(file);
                wc_image_free(&img);
            }
    wc_ctx_free(ctx);
}

/* A region is the crop of the whole image (the plane is one block). */
static void test_region(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 9);
    wc_image img = make_image(&r, 67, 41, 3, 8);
    wc_params p;
    params(&p);
    void *file = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_OK);
    const wc_region rect = {5, 7, 33, 19, 0};
    wc_image out;
    if (wc_decode_region(ctx, NULL, file, n, &rect, &out) != WC_OK)
        fail_msg("%s", wc_ctx_error(ctx));
    for (uint32_t y = 0; y < rect.height; y++)
        assert_memory_equal((uint8_t *)out.pixels + (size_t)y * rect.width * 3,
                            (uint8_t *)img.pixels + ((size_t)(y + rect.y) * img.width + rect.x) * 3,
                            (size_t)rect.width * 3);
    wc_image_free(&out);
    wc_free(file);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* The file holds no block index: each WDAT is its component's block. A
 * WIDX (with a good CRC) in one is damage; so is a WHDR carrying the
 * long record's scalars. */
static void test_no_index(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 4);
    wc_image img = make_image(&r, 320, 240, 1, 8); /* over 4 KiB coded: chunks, not WONE */
    wc_params p;
    params(&p);
    uint8_t *file = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, (void **)&file, &n), WC_OK);
    assert_true(n >= 4096);              /* smaller files of entropy 4 are one WONE chunk */
    for (size_t at = 8; at + 12 <= n;) { /* the chunks: no WIDX among them */
        const size_t len = file[at] | file[at + 1] << 8 | (size_t)file[at + 2] << 16;
        assert_true(memcmp(file + at + 4, "WIDX", 4) != 0);
        at += len + 12;
    }
    /* magic, WHDR (12 + 21), then WDAT: a WIDX of one size put before it */
    const size_t at = 8 + 12 + 21;
    assert_memory_equal(file + at + 4, "WDAT", 4);
    uint8_t *bad = malloc(n + 13);
    memcpy(bad, file, at);
    uint8_t chunk[13] = {1, 0, 0, 0, 'W', 'I', 'D', 'X', file[at]};
    const uint32_t crc = (uint32_t)crc32(0, chunk + 4, 5);
    for (int i = 0; i < 4; i++) chunk[9 + i] = (uint8_t)(crc >> (8 * i));
    memcpy(bad + at, chunk, 13);
    memcpy(bad + at + 13, file + at, n - at);
    wc_image out;
    assert_int_equal(wc_decode(ctx, NULL, bad, n + 13, &out), WC_ERR_CORRUPT);
    assert_non_null(strstr(wc_ctx_error(ctx), "block index in a file of entropy 4"));
    free(bad);
    wc_free(file);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* Entropy 4 is lossless with levels 0 only: anything else is refused. */
static void test_needs_lossless_levels0(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 1);
    wc_image img = make_image(&r, 8, 8, 1, 8);
    wc_params p;
    void *file = NULL;
    size_t n = 0;
    params(&p);
    p.levels = 2;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_ERR_ARG);
    assert_non_null(strstr(wc_ctx_error(ctx), "levels 0"));
    params(&p);
    p.lossless = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_ERR_ARG);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrips),
        cmocka_unit_test(test_region),
        cmocka_unit_test(test_no_index),
        cmocka_unit_test(test_needs_lossless_levels0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
