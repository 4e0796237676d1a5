/*
 * test_meta.c -- metadata through the public API (codec/meta.c) and the
 * WMET chunk (container/meta_chunk.c): the list's checks and limits, items
 * through an encode and wc_meta_read unchanged, pixels the same with and
 * without them, damage named, older files without any.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "meta_check.h"
#include "metrics.h" /* programs/: the metrics moved out of the library */
#include "wcodec.h"

static void test_list_checks(void **state)
{
    (void)state;
    wc_meta *m = wc_meta_create();
    assert_non_null(m);
    assert_int_equal(wc_meta_count(m), 0);
    assert_int_equal(wc_meta_add(m, (wc_meta_kind)0, 0, "", "x", 1), WC_ERR_ARG);
    assert_int_equal(wc_meta_add(m, WC_META_TEXT, 0, "", "x", 1), WC_ERR_ARG);    /* no key */
    assert_int_equal(wc_meta_add(m, WC_META_GAMMA, 0, "", "abc", 3), WC_ERR_ARG); /* 4 bytes */
    assert_int_equal(wc_meta_add(m, WC_META_ICC, WC_META_TEXT_UTF8, "", "x", 1), WC_ERR_ARG);
    char key[81];
    memset(key, 'k', 80);
    key[80] = '\0';
    assert_int_equal(wc_meta_add(m, WC_META_TEXT, 0, key, "x", 1), WC_ERR_ARG);
    key[79] = '\0';
    assert_int_equal(wc_meta_add(m, WC_META_TEXT, 0, key, "x", 1), WC_OK);
    uint8_t *big = calloc(WC_META_MAX_VALUE + 1, 1);
    assert_int_equal(wc_meta_add(m, WC_META_EXIF, 0, NULL, big, WC_META_MAX_VALUE + 1),
                     WC_ERR_LIMIT);
    wc_meta_clear(m);
    for (int i = 0; i < 4; i++)
        assert_int_equal(wc_meta_add(m, WC_META_XMP, 0, NULL, big, WC_META_MAX_VALUE), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_XMP, 0, NULL, big, 1),
                     WC_ERR_LIMIT); /* 64 MiB in all */
    free(big);
    /* Items keep their keys while the list grows. */
    wc_meta_clear(m);
    char k[8];
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof k, "k%d", i);
        assert_int_equal(wc_meta_add(m, WC_META_TEXT, 0, k, k, strlen(k)), WC_OK);
    }
    assert_int_equal(wc_meta_count(m), 100);
    assert_string_equal(wc_meta_get(m, 57)->key, "k57");
    assert_memory_equal(wc_meta_find(m, WC_META_TEXT, "k99")->data, "k99", 3);
    assert_null(wc_meta_get(m, 100));
    assert_null(wc_meta_find(m, WC_META_ICC, NULL));
    wc_meta_free(m);
    wc_meta_free(NULL);
}

static wc_image test_image(void)
{
    wc_image img = {160, 120, 3, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    for (size_t i = 0; i < img.stride * img.height; i++)
        ((uint8_t *)img.pixels)[i] = (uint8_t)(i * 37 >> 3);
    return img;
}

static wc_meta *test_meta(void)
{
    wc_meta *m = wc_meta_create();
    uint8_t icc[1000], res[17] = {0};
    for (size_t i = 0; i < sizeof icc; i++) icc[i] = (uint8_t)(i ^ (i >> 3));
    double x = 2835, y = 2835;
    memcpy(res, &x, 8);
    memcpy(res + 8, &y, 8);
    res[16] = 1;
    assert_int_equal(wc_meta_add(m, WC_META_ICC, 0, "sRGB IEC61966-2.1", icc, sizeof icc), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_RESOLUTION, 0, NULL, res, 17), WC_OK);
    assert_int_equal(
        wc_meta_add(m, WC_META_TEXT, WC_META_TEXT_COMPRESSED, "Comment", "made here", 9), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_SRGB, 0, NULL, "\0", 1), WC_OK);
    return m;
}

static void test_through_a_file(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img = test_image();
    wc_meta *m = test_meta();
    wc_params p;
    wc_params_init(&p);
    void *plain = NULL, *with = NULL;
    size_t plain_n, with_n;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &plain, &plain_n), WC_OK);
    p.meta = m;
    assert_true(wc_encode_bound(&img, &p) > 1000);
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &with, &with_n), WC_OK);
    assert_true(with_n > plain_n + 1000);
    /* wc_encode into a buffer gives the same bytes. */
    size_t cap = wc_encode_bound(&img, &p), n;
    void *buf = malloc(cap);
    assert_int_equal(wc_encode(ctx, &p, &img, buf, cap, &n), WC_OK);
    assert_int_equal(n, with_n);
    assert_memory_equal(buf, with, n);
    free(buf);

    wc_meta *back = wc_meta_create();
    assert_int_equal(wc_meta_read(ctx, with, with_n, back), WC_OK);
    assert_same_meta(m, back);
    wc_meta_clear(back);
    assert_int_equal(wc_meta_read(ctx, plain, plain_n, back), WC_OK); /* none: fine */
    assert_int_equal(wc_meta_count(back), 0);

    /* The pixels do not depend on the metadata; info reads the same too. */
    wc_image a, b;
    assert_int_equal(wc_decode(ctx, NULL, plain, plain_n, &a), WC_OK);
    assert_int_equal(wc_decode(ctx, NULL, with, with_n, &b), WC_OK);
    assert_memory_equal(a.pixels, img.pixels, img.stride * img.height);
    assert_memory_equal(b.pixels, img.pixels, img.stride * img.height);
    wc_info ia, ib;
    assert_int_equal(wc_inspect(ctx, plain, plain_n, &ia), WC_OK);
    assert_int_equal(wc_inspect(ctx, with, with_n, &ib), WC_OK);
    assert_memory_equal(ia.band_bytes, ib.band_bytes, sizeof ia.band_bytes);

    /* The first WMET follows WHDR; a bad key length behind a good CRC is
     * named by wc_meta_read, and wc_decode does not care. */
    uint8_t *d = with;
    size_t off = 8 + 12 + (d[8] | d[9] << 8 | (size_t)d[10] << 16);
    assert_memory_equal(d + off + 4, "WMET", 4);
    uint32_t len = d[off] | d[off + 1] << 8 | (uint32_t)d[off + 2] << 16;
    d[off + 10] = 200; /* key_len */
    uint32_t crc = (uint32_t)crc32(0, d + off + 4, len + 4);
    for (int i = 0; i < 4; i++) d[off + 8 + len + i] = (uint8_t)(crc >> (8 * i));
    wc_meta_clear(back);
    assert_int_equal(wc_meta_read(ctx, with, with_n, back), WC_ERR_CORRUPT);
    assert_non_null(strstr(wc_ctx_error(ctx), "WMET"));
    wc_image c;
    assert_int_equal(wc_decode(ctx, NULL, with, with_n, &c), WC_OK);
    wc_image_free(&c);
    /* An unknown kind is skipped. */
    d[off + 10] = 17;
    d[off + 8] = 200; /* kind */
    crc = (uint32_t)crc32(0, d + off + 4, len + 4);
    for (int i = 0; i < 4; i++) d[off + 8 + len + i] = (uint8_t)(crc >> (8 * i));
    wc_meta_clear(back);
    assert_int_equal(wc_meta_read(ctx, with, with_n, back), WC_OK);
    assert_int_equal(wc_meta_count(back), wc_meta_count(m) - 1);

    wc_image_free(&a);
    wc_image_free(&b);
    wc_image_free(&img);
    free(plain);
    free(with);
    wc_meta_free(back);
    wc_meta_free(m);
    wc_ctx_free(ctx);
}

/* A bpp target is met by the whole file, metadata included, as --bpp
 * promises: the image gets what the metadata leaves. */
static void test_rate_counts_meta(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img = test_image();
    wc_meta *m = test_meta();
    wc_params p;
    wc_params_init(&p);
    p.lossless = 0;
    p.bpp = 4.0f;
    void *a = NULL, *b = NULL;
    size_t an, bn;
    wc_status s = wc_encode_alloc(ctx, &p, &img, &a, &an);
    if (s != WC_OK) fail_msg("%s", wc_ctx_error(ctx));
    p.meta = m;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &b, &bn), WC_OK);
    const double target = 4.0 * img.width * img.height / 8;
    assert_true(an <= target && an >= target * 0.995);
    assert_true(bn <= target && bn >= target * 0.995);
    wc_image x, y;
    assert_int_equal(wc_decode(ctx, NULL, a, an, &x), WC_OK);
    assert_int_equal(wc_decode(ctx, NULL, b, bn, &y), WC_OK);
    image_metrics mx, my;
    assert_int_equal(image_compare(&img, &x, &mx), WC_OK);
    assert_int_equal(image_compare(&img, &y, &my), WC_OK);
    assert_true(my.psnr_rgb < mx.psnr_rgb); /* fewer bytes left for the pixels */
    wc_image_free(&x);
    wc_image_free(&y);
    wc_image_free(&img);
    free(a);
    free(b);
    wc_meta_free(m);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_checks),
        cmocka_unit_test(test_through_a_file),
        cmocka_unit_test(test_rate_counts_meta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
