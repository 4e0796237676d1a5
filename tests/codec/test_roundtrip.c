/*
 * test_roundtrip.c -- end to end through the public API: lossless round
 * trips are exact for every layout, depth and size; lossy coding reaches
 * its PSNR floors and rate targets; output does not depend on threads.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "image_io.h"
#include "metrics.h"
#include "test_support.h"
#include "wcodec.h"

static wc_image make_image(test_rng *r, uint32_t w, uint32_t h, uint32_t comps, uint32_t depth,
                           int smooth)
{
    wc_image img = {w, h, comps, depth, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    const uint32_t maxv = (1u << depth) - 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < comps; c++) {
                uint32_t v;
                if (smooth) {
                    double t = 0.5 + 0.35 * sin(x * 0.07 + c) * cos(y * 0.05 - c) +
                               0.1 * (test_rng_unit(r) - 0.5);
                    v = (uint32_t)(t * maxv + 0.5);
                    if (v > maxv) v = maxv;
                } else {
                    v = test_rng_u32(r) & maxv;
                }
                size_t i = ((size_t)y * w + x) * comps + c;
                test_put_sample(img.pixels, i, depth, v);
            }
    return img;
}

static size_t image_bytes(const wc_image *img) { return wc_image_row_bytes(img) * img->height; }

/* Encodes with p, decodes, and returns the decoded image; asserts success. */
static wc_image roundtrip(wc_ctx *ctx, const wc_params *p, const wc_image *img, size_t *size)
{
    void *buf = NULL;
    size_t n = 0;
    wc_status s = wc_encode_alloc(ctx, p, img, &buf, &n);
    if (s != WC_OK)
        fail_msg("encode %ux%u x%u %u-bit: %s", img->width, img->height, img->components,
                 img->bit_depth, wc_ctx_error(ctx));
    assert_true(n <= wc_encode_bound(img, p));
    wc_image out;
    s = wc_decode(ctx, p, buf, n, &out);
    if (s != WC_OK) fail_msg("decode: %s", wc_ctx_error(ctx));
    assert_int_equal(out.width, img->width);
    assert_int_equal(out.height, img->height);
    assert_int_equal(out.components, img->components);
    assert_int_equal(out.bit_depth, img->bit_depth);
    free(buf);
    if (size) *size = n;
    return out;
}

static void test_lossless_all_layouts(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1},   {1, 17},  {23, 1},  {2, 2},   {7, 5},
                                        {31, 13}, {64, 64}, {97, 61}, {130, 67}};
    static const uint32_t depths[] = {1, 2, 4, 8, 10, 12, 16};
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 1);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uint32_t comps = 1; comps <= 4; comps++)
            for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
                wc_image img = make_image(&r, sizes[s][0], sizes[s][1], comps, depths[d], s & 1);
                wc_params p;
                wc_params_init(&p);
                /* Every coder: deflate, Huffman (1.0) and Huffman on tiles (2.0). */
                p.entropy = (s + d) % 3 == 0   ? WC_ENTROPY_DEFLATE
                            : (s + d) % 3 == 1 ? WC_ENTROPY_HUFFMAN
                                               : WC_ENTROPY_HUFFMAN_TILES;
                p.block_size = 16 << (s % 4);
                wc_image out = roundtrip(ctx, &p, &img, NULL);
                assert_memory_equal(out.pixels, img.pixels, image_bytes(&img));
                wc_image_free(&out);
                wc_image_free(&img);
            }
    wc_ctx_free(ctx);
}

static void test_lossless_every_level(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 2);
    wc_image img = make_image(&r, 53, 37, 3, 8, 1);
    for (int levels = 0; levels <= 15; levels++) {
        wc_params p;
        wc_params_init(&p);
        p.levels = levels;
        wc_image out = roundtrip(ctx, &p, &img, NULL);
        assert_memory_equal(out.pixels, img.pixels, image_bytes(&img));
        wc_image_free(&out);
    }
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static double psnr_of(const wc_image *a, const wc_image *b)
{
    image_metrics m;
    assert_int_equal(image_compare(a, b, &m), WC_OK);
    return m.psnr_rgb;
}

/* A non-separable DWT scheme (Monolithic: wavelets 153, 197; Explosive:
 * 203, 207): lossless stays exact on every shape and level count, a lossy
 * encode stays within 0.5 dB of the separable one at the same step (the
 * same filters, other rounding), and the files are 2.0 ones whose wavelet
 * says the scheme. */
static void check_scheme(wc_dwt_scheme scheme_of_test, int wavelet97)
{
    static const uint32_t sizes[][2] = {{1, 1}, {1, 17},  {23, 1}, {2, 2},
                                        {7, 5}, {31, 13}, {97, 61}};
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, (uint64_t)wavelet97);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uint32_t comps = 1; comps <= 4; comps += 1)
            for (int levels = 0; levels <= 6; levels += 3) {
                wc_image img = make_image(&r, sizes[s][0], sizes[s][1], comps, s & 1 ? 8 : 12, 1);
                wc_params p;
                wc_params_init(&p);
                p.dwt_scheme = scheme_of_test;
                p.levels = levels;
                wc_image out = roundtrip(ctx, &p, &img, NULL);
                assert_memory_equal(out.pixels, img.pixels, image_bytes(&img));
                wc_image_free(&out);
                wc_image_free(&img);
            }
    wc_image img = make_image(&r, 181, 97, 3, 8, 1);
    double psnr[2];
    for (int scheme = 0; scheme < 2; scheme++) {
        wc_params p;
        wc_params_init(&p);
        p.lossless = 0;
        p.step = 6.0f;
        p.dwt_scheme = scheme ? scheme_of_test : WC_DWT_SEPARABLE;
        void *buf = NULL;
        size_t n = 0;
        assert_int_equal(wc_encode_alloc(ctx, &p, &img, &buf, &n), WC_OK);
        wc_info info;
        assert_int_equal(wc_inspect(ctx, buf, n, &info), WC_OK);
        assert_int_equal(info.wavelet, scheme ? wavelet97 : 97);
        assert_int_equal(info.format_major, scheme ? 2 : 1);
        wc_image out;
        assert_int_equal(wc_decode(ctx, &p, buf, n, &out), WC_OK);
        psnr[scheme] = psnr_of(&img, &out);
        wc_image_free(&out);
        free(buf);
    }
    assert_true(psnr[0] > 30.0);
    if (fabs(psnr[1] - psnr[0]) > 0.5)
        fail_msg("PSNR separable %.2f, wavelet %d %.2f", psnr[0], wavelet97, psnr[1]);
    wc_params p;
    wc_params_init(&p);
    p.dwt_scheme = (wc_dwt_scheme)7;
    void *buf = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &buf, &n), WC_ERR_ARG);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_monolithic_scheme(void **state)
{
    (void)state;
    check_scheme(WC_DWT_MONOLITHIC, 197);
}

static void test_explosive_scheme(void **state)
{
    (void)state;
    check_scheme(WC_DWT_EXPLOSIVE, 207);
}

static void test_kodak_lossless_and_lossy(void **state)
{
    (void)state;
    static const int images[] = {3, 15, 23};
    wc_ctx *ctx = wc_ctx_create();
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
        wc_image img;
        assert_int_equal(image_read(test_kodak_path(images[i]), 0, &img, NULL), WC_OK);
        wc_params p;
        wc_params_init(&p);
        size_t size;
        wc_image out = roundtrip(ctx, &p, &img, &size);
        assert_memory_equal(out.pixels, img.pixels, image_bytes(&img));
        double bpp = size * 8.0 / ((double)img.width * img.height);
        /* These three are among Kodak's easier images; the crops that stand
         * in for them without the corpus (tests/data/kodak) are their busy
         * middles. */
        assert_true(bpp < (test_kodak_full() ? 10.0 : 11.0));
        wc_image_free(&out);

        /* Lossy floors: a bit under what the codec reaches on these images. */
        static const float rates[] = {0.25f, 1.0f};
        static const double full[][2] = {{30.0, 37.0}, {29.5, 36.0}, {30.0, 37.5}};
        static const double crop[][2] = {{26.5, 34.0}, {25.3, 32.2}, {26.5, 37.0}};
        const double(*floors)[2] = test_kodak_full() ? full : crop;
        for (int k = 0; k < 2; k++) {
            wc_params_init(&p);
            p.lossless = 0;
            p.bpp = rates[k];
            out = roundtrip(ctx, &p, &img, &size);
            bpp = size * 8.0 / ((double)img.width * img.height);
            assert_true(bpp <= rates[k]);
            assert_true(bpp >= rates[k] * 0.97);
            double db = psnr_of(&img, &out);
            if (db < floors[i][k])
                fail_msg("kodim%02d at %.2f bpp: %.2f dB", images[i], rates[k], db);
            wc_image_free(&out);
        }
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* Entropy 3 codes the same quantized coefficients as entropy 0 with
 * another coder: lossy or lossless, any transform, size (1x1, 1xN, Nx1,
 * odd, prime), depth 1..16, 1..4 components and block size, the decoded
 * pixels are the same; the file says format 2.0 and entropy 3; the bytes
 * do not depend on threads; a region decodes to the full image's crop. */
static void test_arith_decodes_as_serial(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 19);
    static const uint32_t sizes[][2] = {{1, 1}, {1, 41}, {37, 1}, {61, 53}, {131, 97}, {200, 136}};
    static const uint32_t depths[] = {16, 8, 12, 1, 10, 2};
    static const wc_transform tx[3] = {WC_TRANSFORM_DWT, WC_TRANSFORM_DCT, WC_TRANSFORM_LOT};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int mode = 0; mode < 6; mode++) {
            const uint32_t w = sizes[s][0], h = sizes[s][1], depth = depths[mode];
            wc_image img = make_image(&r, w, h, 1 + (uint32_t)(s + mode) % 4, depth, s & 1);
            wc_params p;
            wc_params_init(&p);
            p.lossless = mode == 0 || mode == 3 || mode == 5;
            p.levels = 3; /* not the automatic lossless layout: its coder may differ */
            p.transform = p.lossless || depth < 8 ? WC_TRANSFORM_DWT : tx[s % 3];
            p.quality = 50 + 10 * (float)mode;
            p.block_size = 16 << ((s + (size_t)mode) % 4);
            size_t n0, n3;
            wc_image a = roundtrip(ctx, &p, &img, &n0);
            p.entropy = WC_ENTROPY_ARITH;
            wc_image b = roundtrip(ctx, &p, &img, &n3);
            assert_memory_equal(a.pixels, b.pixels, image_bytes(&img));
            if (p.lossless) assert_memory_equal(b.pixels, img.pixels, image_bytes(&img));
            void *one = NULL, *many = NULL;
            size_t n1, n2;
            p.threads = 1;
            assert_int_equal(wc_encode_alloc(ctx, &p, &img, &one, &n1), WC_OK);
            p.threads = 3;
            assert_int_equal(wc_encode_alloc(ctx, &p, &img, &many, &n2), WC_OK);
            assert_int_equal(n1, n2);
            assert_memory_equal(one, many, n1);
            wc_info info;
            assert_int_equal(wc_inspect(ctx, one, n1, &info), WC_OK);
            assert_int_equal(info.entropy, WC_ENTROPY_ARITH);
            assert_int_equal(info.format_major, 2);
            /* A region: the crop of the whole image. */
            const wc_region reg = {w / 3, h / 4, w - w / 3 > 5 ? 5 : w - w / 3, (h + 1) / 2, 0};
            wc_image part;
            assert_int_equal(wc_decode_region(ctx, &p, one, n1, &reg, &part), WC_OK);
            const size_t px = wc_image_row_bytes(&img) / w;
            for (uint32_t y = 0; y < reg.height; y++)
                assert_memory_equal((uint8_t *)part.pixels + y * wc_image_row_bytes(&part),
                                    (uint8_t *)b.pixels + (y + reg.y) * wc_image_row_bytes(&img) +
                                        reg.x * px,
                                    reg.width * px);
            wc_image_free(&part);
            free(one);
            free(many);
            wc_image_free(&a);
            wc_image_free(&b);
            wc_image_free(&img);
        }
    wc_ctx_free(ctx);
}

static void test_block_transforms(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img;
    assert_int_equal(image_read(test_kodak_path(23), 0, &img, NULL), WC_OK);
    double db[3];
    for (int t = 0; t < 3; t++) {
        wc_params p;
        wc_params_init(&p);
        p.lossless = 0;
        p.transform = (wc_transform)t;
        p.bpp = 0.5f;
        wc_image out = roundtrip(ctx, &p, &img, NULL);
        db[t] = psnr_of(&img, &out);
        wc_image_free(&out);
    }
    assert_true(db[WC_TRANSFORM_DCT] > (test_kodak_full() ? 30.0 : 28.0));
    assert_true(db[WC_TRANSFORM_LOT] > db[WC_TRANSFORM_DCT]);
    assert_true(db[WC_TRANSFORM_DWT] > db[WC_TRANSFORM_DCT]);

    /* Odd sizes and alpha through the block transforms. */
    test_rng r;
    test_rng_seed(&r, 3);
    wc_image small = make_image(&r, 29, 19, 4, 8, 1);
    wc_params p;
    wc_params_init(&p);
    p.lossless = 0;
    p.transform = WC_TRANSFORM_LOT;
    p.quality = 90;
    wc_image out = roundtrip(ctx, &p, &small, NULL);
    assert_true(psnr_of(&small, &out) > 30.0);
    for (size_t i = 3; i < image_bytes(&small); i += 4) /* alpha stays exact */
        assert_int_equal(((uint8_t *)out.pixels)[i], ((uint8_t *)small.pixels)[i]);
    wc_image_free(&out);
    wc_image_free(&small);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* Files and decoded pixels are the same for 1, 2, 3, 7 and 16 threads:
 * 1 to 4 components (gray has all the threads for its DWT; 2 to 4
 * components run each stage over all of them at once, the DWT's passes
 * over every plane in one loop: transform/dwt_threads.c, and the
 * row-band quantizer of codec/quant_rows.c), lossless, 9/7, DCT and LOT, in both block layouts
 * (entropy 0 and 2) and both DWT schemes (separable, Monolithic). */
static void test_threads_do_not_change_bytes(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 4);
    static const int threads[] = {1, 2, 3, 7, 16};
    for (uint32_t comps = 1; comps <= 4; comps++) {
        wc_image img = make_image(&r, 300, 200, comps, 8, 1);
        static const int tfs[] = {WC_TRANSFORM_DWT, WC_TRANSFORM_DWT, WC_TRANSFORM_DCT,
                                  WC_TRANSFORM_LOT};
        for (int mode = 0; mode < 12; mode++) {
            const int lossy = mode & 3;
            if (mode >= 8 && lossy > 1) continue; /* the Monolithic DWT: no DCT/LOT */
            void *one = NULL;
            size_t n1;
            wc_params p;
            wc_params_init(&p);
            p.lossless = !lossy;
            p.transform = (wc_transform)tfs[lossy];
            p.block_size = 32;
            if (mode & 4) p.entropy = WC_ENTROPY_HUFFMAN_TILES;
            if (mode & 8) p.dwt_scheme = WC_DWT_MONOLITHIC;
            p.threads = 1;
            assert_int_equal(wc_encode_alloc(ctx, &p, &img, &one, &n1), WC_OK);
            wc_image ref;
            assert_int_equal(wc_decode(ctx, &p, one, n1, &ref), WC_OK);
            for (size_t t = 1; t < sizeof threads / sizeof threads[0]; t++) {
                void *many = NULL;
                size_t n2;
                p.threads = threads[t];
                assert_int_equal(wc_encode_alloc(ctx, &p, &img, &many, &n2), WC_OK);
                assert_int_equal(n1, n2);
                assert_memory_equal(one, many, n1);
                wc_image out;
                assert_int_equal(wc_decode(ctx, &p, one, n1, &out), WC_OK);
                assert_memory_equal(ref.pixels, out.pixels, (size_t)300 * 200 * comps);
                wc_image_free(&out);
                free(many);
            }
            wc_image_free(&ref);
            free(one);
        }
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* Enough code blocks (16x16 on 403x251 RGB: over a thousand) that the
 * encoder's copy of the coded blocks into their components' data runs as
 * several items on several workers (stage/entropy_stage.c, 256 blocks an
 * item): the same file and pixels for 1, 2, 3, 7 and 16 threads, lossless,
 * 9/7, lossy 5/3 and 9/7 at a bit rate (rate control). */
static void test_threads_many_blocks(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 5);
    wc_image img = make_image(&r, 403, 251, 3, 8, 1);
    static const int threads[] = {1, 2, 3, 7, 16};
    for (int mode = 0; mode < 4; mode++) {
        wc_params p;
        wc_params_init(&p);
        p.lossless = mode == 0;
        if (mode == 2) p.wavelet = 53; /* quantized integer planes */
        if (mode == 3) p.bpp = 1.0f;   /* rate control: forward once, unquantized */
        p.block_size = 16;
        void *one = NULL;
        size_t n1;
        wc_image ref;
        p.threads = 1;
        assert_int_equal(wc_encode_alloc(ctx, &p, &img, &one, &n1), WC_OK);
        assert_int_equal(wc_decode(ctx, &p, one, n1, &ref), WC_OK);
        for (size_t t = 1; t < sizeof threads / sizeof threads[0]; t++) {
            void *many = NULL;
            size_t n2;
            wc_image out;
            p.threads = threads[t];
            assert_int_equal(wc_encode_alloc(ctx, &p, &img, &many, &n2), WC_OK);
            assert_int_equal(n1, n2);
            assert_memory_equal(one, many, n1);
            assert_int_equal(wc_decode(ctx, &p, one, n1, &out), WC_OK);
            assert_memory_equal(ref.pixels, out.pixels, (size_t)403 * 251 * 3);
            wc_image_free(&out);
            free(many);
        }
        wc_image_free(&ref);
        free(one);
    }
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* Entropy 2 codes the same quantized coefficients as entropy 0 in
 * another layout: lossy or lossless, any transform, size, depth and block
 * size, the decoded pixels are the same; and the file says format 2.0. */
static void test_tiles_decode_as_serial(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 9);
    static const uint32_t sizes[][2] = {{1, 1}, {1, 41}, {37, 1}, {61, 53}, {131, 97}, {200, 136}};
    static const wc_transform tx[3] = {WC_TRANSFORM_DWT, WC_TRANSFORM_DCT, WC_TRANSFORM_LOT};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int mode = 0; mode < 4; mode++) {
            const uint32_t depth = mode == 0 ? 16 : mode == 1 ? 8 : mode == 2 ? 12 : 1;
            wc_image img = make_image(&r, sizes[s][0], sizes[s][1], 1 + (uint32_t)(s + mode) % 4,
                                      depth, s & 1);
            wc_params p;
            wc_params_init(&p);
            p.lossless = mode == 0 || mode == 3;
            p.transform = p.lossless ? WC_TRANSFORM_DWT : tx[s % 3];
            p.quality = 60 + 10 * (float)mode;
            p.block_size = 16 << ((s + (size_t)mode) % 4);
            size_t n0, n2;
            wc_image a = roundtrip(ctx, &p, &img, &n0);
            p.entropy = WC_ENTROPY_HUFFMAN_TILES;
            wc_image b = roundtrip(ctx, &p, &img, &n2);
            assert_memory_equal(a.pixels, b.pixels, image_bytes(&img));
            if (p.lossless) assert_memory_equal(b.pixels, img.pixels, image_bytes(&img));
            void *buf = NULL;
            size_t n;
            assert_int_equal(wc_encode_alloc(ctx, &p, &img, &buf, &n), WC_OK);
            wc_info info;
            assert_int_equal(wc_inspect(ctx, buf, n, &info), WC_OK);
            assert_int_equal(info.entropy, WC_ENTROPY_HUFFMAN_TILES);
            free(buf);
            wc_image_free(&a);
            wc_image_free(&b);
            wc_image_free(&img);
        }
    wc_ctx_free(ctx);
}

/* One context coding images of different sizes and transforms in turn
 * (its kept buffers then come back larger, smaller, or trimmed away)
 * gives the bytes and pixels of a fresh context every time. */
static void test_context_reuse(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 8);
    static const uint32_t sides[][2] = {{700, 600}, {64, 48}, {1024, 700}, {333, 777}};
    static const int transforms[] = {WC_TRANSFORM_DWT, WC_TRANSFORM_DCT, WC_TRANSFORM_LOT};
    wc_ctx *kept = wc_ctx_create();
    for (int round = 0; round < 2; round++)
        for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++)
            for (int t = -1; t < 3; t++) {
                wc_image img = make_image(&r, sides[s][0], sides[s][1], 3, 8, 1);
                wc_params p;
                wc_params_init(&p);
                if (t >= 0) {
                    p.lossless = 0;
                    p.transform = (wc_transform)transforms[t];
                }
                wc_ctx *fresh = wc_ctx_create();
                void *a = NULL, *b = NULL;
                size_t na, nb;
                assert_int_equal(wc_encode_alloc(fresh, &p, &img, &a, &na), WC_OK);
                assert_int_equal(wc_encode_alloc(kept, &p, &img, &b, &nb), WC_OK);
                assert_int_equal(na, nb);
                assert_memory_equal(a, b, na);
                wc_image da, db;
                assert_int_equal(wc_decode(fresh, &p, a, na, &da), WC_OK);
                assert_int_equal(wc_decode(kept, &p, b, nb, &db), WC_OK);
                assert_memory_equal(da.pixels, db.pixels, (size_t)img.width * img.height * 3);
                if (t < 0)
                    assert_memory_equal(db.pixels, img.pixels, (size_t)img.width * img.height * 3);
                wc_image_free(&da);
                wc_image_free(&db);
                free(a);
                free(b);
                wc_ctx_free(fresh);
                wc_image_free(&img);
                if (round == 1 && s == 1) wc_ctx_trim(kept);
            }
    wc_ctx_trim(kept);
    wc_ctx_trim(NULL);
    wc_ctx_free(kept);
}

static void test_parameters_and_buffers(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 5);
    wc_image img = make_image(&r, 40, 30, 3, 8, 0);
    wc_params p;
    wc_params_init(&p);
    uint8_t small[64];
    size_t n;
    assert_int_equal(wc_encode(ctx, &p, &img, small, sizeof small, &n), WC_ERR_BUFFER);
    assert_true(strstr(wc_ctx_error(ctx), "bytes") != NULL);
    size_t cap = wc_encode_bound(&img, &p);
    uint8_t *buf = malloc(cap);
    assert_int_equal(wc_encode(ctx, &p, &img, buf, cap, &n), WC_OK); /* noise: the worst case */
    assert_true(n <= cap);
    free(buf);

    p.transform = WC_TRANSFORM_DCT; /* lossless needs the 5/3 DWT */
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, (void **)&buf, &n), WC_ERR_ARG);
    assert_true(strstr(wc_ctx_error(ctx), "lossless") != NULL);
    wc_params_init(&p);
    p.levels = 16;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, (void **)&buf, &n), WC_ERR_ARG);
    wc_params_init(&p);
    p.block_size = 48;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, (void **)&buf, &n), WC_ERR_ARG);
    wc_params_init(&p);
    p.lossless = 0;
    p.quality = 150;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, (void **)&buf, &n), WC_ERR_ARG);
    img.bit_depth = 17;
    wc_params_init(&p);
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, (void **)&buf, &n), WC_ERR_ARG);
    img.bit_depth = 8;

    /* Decoding limits: a file is refused when it is over the pixel cap. */
    void *file;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_OK);
    p.max_pixels = 40 * 30 - 1;
    wc_image out;
    assert_int_equal(wc_decode(ctx, &p, file, n, &out), WC_ERR_LIMIT);
    assert_true(strstr(wc_ctx_error(ctx), "limit") != NULL);
    p.max_pixels = 40 * 30;
    assert_int_equal(wc_decode(ctx, &p, file, n, &out), WC_OK);
    wc_image_free(&out);
    free(file);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_threshold_and_step(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img;
    assert_int_equal(image_read(test_kodak_path(7), 0, &img, NULL), WC_OK);
    size_t sizes[3];
    double db[3];
    for (int i = 0; i < 3; i++) {
        wc_params p;
        wc_params_init(&p);
        p.lossless = 0;
        p.step = 8.0f;
        p.threshold = (float)(i * 10);
        wc_image out = roundtrip(ctx, &p, &img, &sizes[i]);
        db[i] = psnr_of(&img, &out);
        wc_image_free(&out);
    }
    /* A higher threshold zeroes more: smaller file, lower quality. */
    assert_true(sizes[1] < sizes[0] && sizes[2] < sizes[1]);
    assert_true(db[1] < db[0] && db[2] < db[1]);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_info(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 6);
    wc_image img = make_image(&r, 70, 50, 2, 12, 1);
    wc_params p;
    wc_params_init(&p);
    p.levels = 3;
    void *file;
    size_t n;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_OK);
    wc_info in;
    assert_int_equal(wc_inspect(ctx, file, n, &in), WC_OK);
    assert_int_equal(in.width, 70);
    assert_int_equal(in.height, 50);
    assert_int_equal(in.components, 2);
    assert_int_equal(in.bit_depth, 12);
    assert_int_equal(in.levels, 3);
    assert_int_equal(in.bands, 10);
    assert_int_equal(in.lossless, 1);
    assert_int_equal(in.file_bytes, n);
    uint64_t sum = 0;
    for (uint32_t c = 0; c < 2; c++) {
        uint64_t bands = 0;
        for (uint32_t b = 0; b < in.bands; b++) bands += in.band_bytes[c][b];
        assert_true(bands > 0 && bands < in.component_bytes[c]); /* tables counted too */
        sum += in.component_bytes[c];
    }
    assert_true(sum < n);
    free(file);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* A header that pairs the reversible (integer) colour transform with the
 * DCT is refused, even with every CRC intact: its planes are float. */
static void test_rct_with_block_transform_refused(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 7);
    wc_image img = make_image(&r, 24, 16, 3, 8, 1);
    wc_params p;
    wc_params_init(&p);
    p.lossless = 0;
    p.transform = WC_TRANSFORM_DCT;
    uint8_t *file;
    size_t n;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, (void **)&file, &n), WC_OK);
    /* WHDR data starts at 8 (magic) + 8 (length, type); colour at +14,
     * wavelets at +20. */
    uint8_t *h = file + 16;
    uint32_t hlen = file[8] | file[9] << 8 | file[10] << 16 | (uint32_t)file[11] << 24;
    h[14] = 1;
    h[20] = h[21] = h[22] = 53;
    uint32_t crc = (uint32_t)crc32(0L, file + 12, hlen + 4);
    for (int i = 0; i < 4; i++) h[hlen + i] = (uint8_t)(crc >> (8 * i));
    wc_image out;
    assert_int_equal(wc_decode(ctx, NULL, file, n, &out), WC_ERR_CORRUPT);
    assert_true(strstr(wc_ctx_error(ctx), "reversible colour") != NULL);
    free(file);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lossless_all_layouts),
        cmocka_unit_test(test_lossless_every_level),
        cmocka_unit_test(test_monolithic_scheme),
        cmocka_unit_test(test_explosive_scheme),
        cmocka_unit_test(test_kodak_lossless_and_lossy),
        cmocka_unit_test(test_tiles_decode_as_serial),
        cmocka_unit_test(test_arith_decodes_as_serial),
        cmocka_unit_test(test_block_transforms),
        cmocka_unit_test(test_threads_do_not_change_bytes),
        cmocka_unit_test(test_threads_many_blocks),
        cmocka_unit_test(test_context_reuse),
        cmocka_unit_test(test_parameters_and_buffers),
        cmocka_unit_test(test_threshold_and_step),
        cmocka_unit_test(test_info),
        cmocka_unit_test(test_rct_with_block_transform_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
