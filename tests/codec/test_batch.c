/*
 * test_batch.c -- the batch calls and the memory flag through the public
 * API, on whatever backend AUTO picks (the CPU without a device): a batch
 * gives each image's single-call bytes and pixels, a failure names its
 * index and keeps the outputs before it, and device memory on the CPU
 * backend is WC_ERR_UNSUPPORTED. (Device memory on the CUDA backend:
 * cuda/test_device_memory.cu.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_support.h"
#include "wcodec.h"

#define N 5

static void make_images(wc_image *imgs)
{
    test_rng r;
    test_rng_seed(&r, 5);
    for (int i = 0; i < N; i++) {
        wc_image *im = &imgs[i];
        memset(im, 0, sizeof *im);
        im->width = 17 + 13 * (uint32_t)i;
        im->height = 9 + 7 * (uint32_t)i;
        im->components = 1 + (uint32_t)i % 4;
        im->bit_depth = i == 2 ? 12 : 8;
        assert_int_equal(wc_image_alloc(im), WC_OK);
        const size_t n = (size_t)im->width * im->height * im->components;
        for (size_t k = 0; k < n; k++) {
            const uint32_t v = (uint32_t)((k * 7) % 251 + (uint32_t)test_rng_range(&r, 0, 4));
            if (im->bit_depth > 8)
                ((uint16_t *)im->pixels)[k] = (uint16_t)(v * 16);
            else
                ((uint8_t *)im->pixels)[k] = (uint8_t)v;
        }
    }
}

static void test_batch_matches_single_calls(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image imgs[N];
    make_images(imgs);
    wc_params p;
    wc_params_init(&p);
    p.lossless = 0;
    void *outs[N];
    size_t sizes[N], failed = 99;
    assert_int_equal(wc_encode_batch(ctx, &p, imgs, N, outs, sizes, &failed), WC_OK);
    assert_int_equal(failed, 99);
    const void *srcs[N];
    wc_image dec[N];
    for (int i = 0; i < N; i++) {
        void *one = NULL;
        size_t n = 0;
        assert_int_equal(wc_encode_alloc(ctx, &p, &imgs[i], &one, &n), WC_OK);
        assert_int_equal(n, sizes[i]);
        assert_memory_equal(one, outs[i], n);
        wc_free(one);
        srcs[i] = outs[i];
    }
    assert_int_equal(wc_decode_batch(ctx, NULL, srcs, sizes, N, dec, &failed), WC_OK);
    for (int i = 0; i < N; i++) {
        wc_image one;
        assert_int_equal(wc_decode(ctx, NULL, outs[i], sizes[i], &one), WC_OK);
        assert_memory_equal(one.pixels, dec[i].pixels, wc_image_row_bytes(&one) * one.height);
        wc_image_free(&one);
        wc_image_free(&dec[i]);
        wc_free(outs[i]);
    }
    /* A bad image in the middle: the ones before it are coded and kept. */
    wc_image keep = imgs[3];
    imgs[3].components = 7;
    assert_int_equal(wc_encode_batch(ctx, &p, imgs, N, outs + 0, sizes, &failed) != WC_OK, 1);
    assert_int_equal(failed, 3);
    for (int i = 0; i < N; i++) {
        if (i < 3)
            assert_non_null(outs[i]);
        else
            assert_null(outs[i]);
        wc_free(outs[i]);
    }
    imgs[3] = keep;
    /* wc_decode_into: the caller's buffer, with padding between rows. */
    void *f = NULL;
    size_t fn = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &imgs[1], &f, &fn), WC_OK);
    wc_image ref, into = imgs[1];
    assert_int_equal(wc_decode(ctx, NULL, f, fn, &ref), WC_OK);
    const size_t row = wc_image_row_bytes(&ref);
    into.stride = row + 5;
    into.pixels = calloc(into.stride, into.height);
    assert_int_equal(wc_decode_into(ctx, NULL, f, fn, &into), WC_OK);
    for (uint32_t y = 0; y < ref.height; y++)
        assert_memory_equal((uint8_t *)into.pixels + y * into.stride,
                            (uint8_t *)ref.pixels + y * row, row);
    into.width++;
    assert_int_equal(wc_decode_into(ctx, NULL, f, fn, &into), WC_ERR_ARG);
    free(into.pixels);
    wc_image_free(&ref);
    wc_free(f);
    for (int i = 0; i < N; i++) wc_image_free(&imgs[i]);
    wc_ctx_free(ctx);
}

/* Workers code images side by side: the bytes are the single calls'
 * whatever their number, lossless or not, and a batch of one or none. */
static void test_batch_any_workers(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image imgs[N];
    make_images(imgs);
    for (int lossless = 0; lossless < 2; lossless++) {
        wc_params p;
        wc_params_init(&p);
        p.lossless = lossless;
        p.threads = 1;
        void *ref[N], *outs[N];
        size_t ref_n[N], sizes[N], failed = 99;
        assert_int_equal(wc_encode_batch(ctx, &p, imgs, N, ref, ref_n, &failed), WC_OK);
        for (int threads = 2; threads <= 8; threads *= 2) {
            p.threads = threads;
            assert_int_equal(wc_encode_batch(ctx, &p, imgs, N, outs, sizes, &failed), WC_OK);
            for (int i = 0; i < N; i++) {
                assert_int_equal(sizes[i], ref_n[i]);
                assert_memory_equal(outs[i], ref[i], sizes[i]);
                wc_free(outs[i]);
            }
        }
        assert_int_equal(wc_encode_batch(ctx, &p, imgs, 0, outs, sizes, &failed), WC_OK);
        assert_int_equal(wc_encode_batch(ctx, &p, imgs + 4, 1, outs, sizes, &failed), WC_OK);
        assert_int_equal(sizes[0], ref_n[4]);
        assert_memory_equal(outs[0], ref[4], sizes[0]);
        wc_free(outs[0]);
        for (int i = 0; i < N; i++) wc_free(ref[i]);
    }
    for (int i = 0; i < N; i++) wc_image_free(&imgs[i]);
    wc_ctx_free(ctx);
}

/* A damaged file in a decode batch: its index and the decoder's message
 * come back, the images before it are decoded as wc_decode decodes them,
 * the rest have no pixels. */
static void test_decode_batch_damaged_member(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image imgs[N];
    make_images(imgs);
    wc_params p;
    wc_params_init(&p);
    p.threads = 3;
    void *outs[N];
    size_t sizes[N], failed = 99;
    assert_int_equal(wc_encode_batch(ctx, &p, imgs, N, outs, sizes, &failed), WC_OK);
    const void *srcs[N];
    for (int i = 0; i < N; i++) srcs[i] = outs[i];
    for (int bad = 0; bad < N; bad++) {
        uint8_t *f = outs[bad];
        f[sizes[bad] - 20] ^= 0x40; /* inside the index or the data: a CRC mismatch */
        wc_image dec[N];
        memset(dec, 0x11, sizeof dec);
        assert_int_not_equal(wc_decode_batch(ctx, &p, srcs, sizes, N, dec, &failed), WC_OK);
        assert_int_equal(failed, (size_t)bad);
        char head[32];
        snprintf(head, sizeof head, "image %d: ", bad);
        assert_memory_equal(wc_ctx_error(ctx), head, strlen(head));
        for (int i = 0; i < N; i++) {
            if (i >= bad) {
                assert_null(dec[i].pixels);
                continue;
            }
            wc_image one;
            assert_int_equal(wc_decode(ctx, NULL, outs[i], sizes[i], &one), WC_OK);
            assert_memory_equal(one.pixels, dec[i].pixels, wc_image_row_bytes(&one) * one.height);
            wc_image_free(&one);
            wc_image_free(&dec[i]);
        }
        f[sizes[bad] - 20] ^= 0x40;
    }
    for (int i = 0; i < N; i++) {
        wc_free(outs[i]);
        wc_image_free(&imgs[i]);
    }
    wc_ctx_free(ctx);
}

static void test_device_memory_needs_cuda(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image imgs[N];
    make_images(imgs);
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CPU;
    void *f = NULL;
    size_t fn = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &imgs[0], &f, &fn), WC_OK);
    p.memory = WC_MEMORY_DEVICE;
    void *g = NULL;
    size_t gn = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &imgs[0], &g, &gn), WC_ERR_UNSUPPORTED);
    wc_image out = imgs[0];
    assert_int_equal(wc_decode_into(ctx, &p, f, fn, &out), WC_ERR_UNSUPPORTED);
    /* wc_decode allocates host memory: the flag is refused there. */
    assert_int_equal(wc_decode(ctx, &p, f, fn, &out), WC_ERR_ARG);
    wc_free(f);
    for (int i = 0; i < N; i++) wc_image_free(&imgs[i]);
    wc_ctx_free(ctx);
}

/* Data chunks over 1 MiB are copied and checksummed in pieces on all
 * threads (encoder.c): the file must still read back, CRCs and all. */
static void test_large_chunk_roundtrip(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img = {900, 700, 3, 16, 0, NULL}; /* 16-bit noise: > 1 MiB a component */
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    test_rng r;
    test_rng_seed(&r, 11);
    for (size_t k = 0; k < (size_t)img.width * img.height * 3; k++)
        ((uint16_t *)img.pixels)[k] = (uint16_t)test_rng_range(&r, 0, 65535);
    wc_params p;
    wc_params_init(&p);
    void *f = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &f, &n), WC_OK);
    wc_info info;
    assert_int_equal(wc_inspect(ctx, f, n, &info), WC_OK);
    assert_true(info.component_bytes[0] > (1u << 20));
    wc_image out;
    assert_int_equal(wc_decode(ctx, NULL, f, n, &out), WC_OK);
    assert_memory_equal(out.pixels, img.pixels, (size_t)img.width * img.height * 6);
    wc_image_free(&out);
    wc_free(f);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_chunk_roundtrip),
        cmocka_unit_test(test_batch_matches_single_calls),
        cmocka_unit_test(test_batch_any_workers),
        cmocka_unit_test(test_decode_batch_damaged_member),
        cmocka_unit_test(test_device_memory_needs_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
