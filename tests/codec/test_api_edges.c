/*
 * test_api_edges.c -- the public API's edges, through wcodec.h alone: a
 * wc_params of another layout is a status (no print, no abort) and makes
 * later calls refuse; the info structs are filled only as far as the
 * program's struct goes; wc_free takes what wc_encode_alloc made;
 * wc_decode_check_head judges a file by its first bytes as wc_decode would;
 * the default code-block side is resolved per mode and written in the file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wcodec.h"

static wc_image gray_ramp(void)
{
    wc_image img = {40, 24, 1, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    uint8_t *px = img.pixels;
    for (uint32_t i = 0; i < img.width * img.height; i++) px[i] = (uint8_t)(i * 7);
    return img;
}

static void test_params_abi_mismatch_is_a_status(void **state)
{
    (void)state;
    wc_params p;
    memset(&p, 0xA5, sizeof p);
    assert_int_equal(wc_params_init_abi(&p, WC_ABI_VERSION + 1, sizeof p), WC_ERR_ABI);
    assert_int_equal(p.abi, 0);
    assert_int_equal(p.lossless, (int)0xA5A5A5A5); /* nothing else written */
    assert_int_equal(wc_params_init_abi(&p, WC_ABI_VERSION, sizeof p - 8), WC_ERR_ABI);
    assert_int_equal(wc_params_init_abi(NULL, WC_ABI_VERSION, sizeof p), WC_ERR_ARG);
    assert_string_equal(wc_strerror(WC_ERR_ABI), "program built for another library version");

    /* Params left so are refused by every call that takes them. */
    wc_image img = gray_ramp();
    wc_ctx *ctx = wc_ctx_create();
    void *out = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &out, &n), WC_ERR_ARG);
    assert_null(out);
    assert_int_equal(wc_params_init(&p), WC_OK);
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &out, &n), WC_OK);
    wc_free(out);
    wc_free(NULL);
    wc_ctx_free(ctx);
    wc_image_free(&img);
}

/* A program built when wc_info ended at `bands` (or wc_times at
 * `container`) passes that smaller size: nothing past it is written. */
static void test_info_structs_filled_to_the_callers_size(void **state)
{
    (void)state;
    wc_image img = gray_ramp();
    wc_params p;
    wc_params_init(&p);
    wc_ctx *ctx = wc_ctx_create();
    void *file = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_OK);

    wc_info whole;
    assert_int_equal(wc_inspect(ctx, file, n, &whole), WC_OK);
    assert_int_equal(whole.width, 40);
    assert_int_equal(whole.file_bytes, n);

    const size_t old_size = offsetof(wc_info, file_bytes);
    unsigned char buf[sizeof(wc_info) + 16];
    memset(buf, 0xEE, sizeof buf);
    assert_int_equal(wc_inspect_sized(ctx, file, n, (wc_info *)(void *)buf, old_size), WC_OK);
    assert_memory_equal(buf, &whole, old_size);
    for (size_t i = old_size; i < sizeof buf; i++) assert_int_equal(buf[i], 0xEE);

    wc_times t;
    wc_ctx_times(ctx, &t);
    assert_true(t.transform >= 0.0 && t.entropy >= 0.0);
    const size_t old_times = offsetof(wc_times, rate);
    unsigned char tb[sizeof(wc_times) + 8];
    memset(tb, 0xEE, sizeof tb);
    wc_ctx_times_sized(ctx, (wc_times *)(void *)tb, old_times);
    for (size_t i = old_times; i < sizeof tb; i++) assert_int_equal(tb[i], 0xEE);

    wc_free(file);
    wc_ctx_free(ctx);
    wc_image_free(&img);
}

/* block_size 0 (wc_params_init's) is 64 for lossy Huffman and 128 for
 * lossless, tiles and arith; a side the caller sets is kept. The file
 * says which (wc_inspect), so decoders never guess. */
static void test_default_block_side(void **state)
{
    (void)state;
    wc_image img = gray_ramp();
    wc_ctx *ctx = wc_ctx_create();
    static const struct {
        int lossless;
        wc_entropy entropy;
        int asked, side;
    } cases[] = {
        {0, WC_ENTROPY_HUFFMAN, 0, 64},        {1, WC_ENTROPY_HUFFMAN, 0, 128},
        {0, WC_ENTROPY_HUFFMAN_TILES, 0, 128}, {0, WC_ENTROPY_ARITH, 0, 128},
        {0, WC_ENTROPY_HUFFMAN, 128, 128},     {1, WC_ENTROPY_HUFFMAN, 32, 32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_params p;
        wc_params_init(&p);
        assert_int_equal(p.block_size, 0);
        p.lossless = cases[i].lossless;
        p.entropy = cases[i].entropy;
        p.block_size = cases[i].asked;
        void *file = NULL;
        size_t n = 0;
        assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_OK);
        wc_info info;
        assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
        assert_int_equal(info.block_size, cases[i].side);
        wc_free(file);
    }
    wc_params p;
    wc_params_init(&p);
    p.block_size = 48;
    void *file = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_ERR_ARG);
    assert_null(file);
    wc_ctx_free(ctx);
    wc_image_free(&img);
}

/* A file's first WC_DECODE_HEAD_BYTES: the header's limits are checked
 * and the whole file's bound given; fewer bytes are a whole file, of which
 * only the signature is checked here. */
static void test_decode_check_head(void **state)
{
    (void)state;
    wc_image img = {128, 96, 1, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    uint8_t *px = img.pixels;
    uint32_t x = 12345;
    for (uint32_t i = 0; i < img.width * img.height; i++) { /* noise: > 4 KiB coded */
        x = x * 1103515245u + 12345u;
        px[i] = (uint8_t)(x >> 24);
    }
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    wc_params p;
    wc_params_init(&p);
    void *file = NULL;
    size_t size = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &size), WC_OK);
    assert_true(size > WC_DECODE_HEAD_BYTES);

    size_t max_file = 0;
    assert_int_equal(wc_decode_check_head(NULL, &p, file, size, size, &max_file), WC_ERR_ARG);
    assert_int_equal(wc_decode_check_head(ctx, &p, file, size, size, NULL), WC_ERR_ARG);
    /* The defaults leave room for the file, whether its size is known or not. */
    assert_int_equal(wc_decode_check_head(ctx, NULL, file, WC_DECODE_HEAD_BYTES, size, &max_file),
                     WC_OK);
    assert_true(max_file >= size);
    assert_int_equal(wc_decode_check_head(ctx, &p, file, size, 0, &max_file), WC_OK);
    assert_true(max_file >= size);
    /* Limits as wc_decode applies them, before the rest is read. */
    p.max_pixels = (uint64_t)img.width * img.height - 1;
    assert_int_equal(wc_decode_check_head(ctx, &p, file, WC_DECODE_HEAD_BYTES, size, &max_file),
                     WC_ERR_LIMIT);
    assert_int_equal(wc_decode(ctx, &p, file, size, &(wc_image){0}), WC_ERR_LIMIT);
    wc_params_init(&p);
    p.max_memory = 1 << 20;
    assert_int_equal(wc_decode_check_head(ctx, &p, file, WC_DECODE_HEAD_BYTES, size, &max_file),
                     WC_ERR_LIMIT);
    assert_non_null(strstr(wc_ctx_error(ctx), "memory limit"));
    /* A bad signature, however few bytes. */
    ((uint8_t *)file)[1] ^= 1;
    assert_int_equal(wc_decode_check_head(ctx, NULL, file, 3, 3, &max_file), WC_ERR_FORMAT);
    assert_int_equal(wc_decode_check_head(ctx, NULL, file, 0, 0, &max_file), WC_ERR_FORMAT);

    wc_free(file);
    wc_ctx_free(ctx);
    wc_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_abi_mismatch_is_a_status),
        cmocka_unit_test(test_info_structs_filled_to_the_callers_size),
        cmocka_unit_test(test_decode_check_head),
        cmocka_unit_test(test_default_block_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
