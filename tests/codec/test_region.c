/*
 * test_region.c -- wc_decode_region: a region is exactly the crop of the
 * whole decode (5/3, 9/7, DCT, LOT; 1-4 components; odd and prime sizes;
 * every level count; random rectangles, 1x1, edges, the whole image); a
 * reduced 5/3 image is the forward transform's LL band (a direct
 * reference); a reduced region is the crop of the reduced image; a small
 * region decodes few code blocks; bad arguments are errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "context.h"
#include "wc_common.h"
#include "dwt.h"
#include "test_support.h"
#include "wcodec.h"

/* A smooth picture with noise, so every band has coefficients. */
static void make_image(wc_image *im, uint32_t w, uint32_t h, uint32_t comps, uint32_t depth,
                       uint64_t seed)
{
    memset(im, 0, sizeof *im);
    im->width = w;
    im->height = h;
    im->components = comps;
    im->bit_depth = depth;
    assert_int_equal(wc_image_alloc(im), WC_OK);
    test_rng r;
    test_rng_seed(&r, seed);
    const int32_t maxv = (1 << depth) - 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < comps; c++) {
                int32_t v = (int32_t)((x * (3 + c) + y * 5 + (x * y) / 7) % 200) +
                            test_rng_range(&r, -20, 20);
                v = v * (maxv + 1) / 256;
                v = v < 0 ? 0 : v > maxv ? maxv : v;
                const size_t k = ((size_t)y * w + x) * comps + c;
                if (depth > 8)
                    ((uint16_t *)im->pixels)[k] = (uint16_t)v;
                else
                    ((uint8_t *)im->pixels)[k] = (uint8_t)v;
            }
}

static size_t sample_bytes(const wc_image *im) { return im->bit_depth > 8 ? 2 : 1; }

/* region equals the rectangle (x, y) of whole, byte for byte. */
static void assert_crop(const wc_image *whole, const wc_image *region, uint32_t x, uint32_t y)
{
    const size_t px = whole->components * sample_bytes(whole);
    for (uint32_t j = 0; j < region->height; j++) {
        const uint8_t *a =
            (const uint8_t *)whole->pixels + (size_t)(y + j) * whole->stride + x * px;
        const uint8_t *b = (const uint8_t *)region->pixels + (size_t)j * region->stride;
        if (memcmp(a, b, region->width * px) != 0)
            fail_msg("region %u,%u %ux%u of %ux%u differs from the crop at its row %u", x, y,
                     region->width, region->height, whole->width, whole->height, j);
    }
}

static uint8_t *encode(wc_ctx *ctx, const wc_params *p, const wc_image *im, size_t *n)
{
    void *out = NULL;
    wc_status s = wc_encode_alloc(ctx, p, im, &out, n);
    if (s != WC_OK) fail_msg("encode: %s", wc_ctx_error(ctx));
    return out;
}

/* Random rectangles of the (reduced) image, and the fixed ones: 1x1 at
 * each corner, each whole edge row and column, the whole image. */
static void check_regions(wc_ctx *ctx, const uint8_t *file, size_t n, int reduce, int threads,
                          test_rng *r, int count)
{
    wc_params p;
    wc_params_init(&p);
    p.threads = threads;
    wc_region all = {0, 0, 0, 0, reduce};
    wc_image whole;
    if (wc_decode_region(ctx, &p, file, n, &all, &whole) != WC_OK)
        fail_msg("reduce %d: %s", reduce, wc_ctx_error(ctx));
    if (reduce == 0) { /* the whole image through wc_decode too */
        wc_image ref;
        assert_int_equal(wc_decode(ctx, &p, file, n, &ref), WC_OK);
        assert_crop(&ref, &whole, 0, 0);
        wc_image_free(&ref);
    }
    const uint32_t W = whole.width, H = whole.height;
    for (int k = 0; k < count + 7; k++) {
        wc_region g = {0, 0, 1, 1, reduce};
        switch (k) {
        case 0: break;
        case 1:
            g.x = W - 1;
            g.y = H - 1;
            break;
        case 2: g.x = W - 1; break;
        case 3: g.y = H - 1; break;
        case 4:
            g.width = W;
            g.y = H - 1;
            break;
        case 5:
            g.height = H;
            g.x = W - 1;
            break;
        case 6:
            g.width = W;
            g.height = H;
            break;
        default:
            g.x = (uint32_t)test_rng_range(r, 0, (int32_t)W - 1);
            g.y = (uint32_t)test_rng_range(r, 0, (int32_t)H - 1);
            g.width = (uint32_t)test_rng_range(r, 1, (int32_t)(W - g.x));
            g.height = (uint32_t)test_rng_range(r, 1, (int32_t)(H - g.y));
            if (k % 3 == 0) { /* small ones are the point */
                g.width = g.width > 5 ? 5 : g.width;
                g.height = g.height > 3 ? 3 : g.height;
            }
        }
        wc_image part;
        if (wc_decode_region(ctx, &p, file, n, &g, &part) != WC_OK)
            fail_msg("region %u,%u %ux%u reduce %d: %s", g.x, g.y, g.width, g.height, reduce,
                     wc_ctx_error(ctx));
        assert_int_equal(part.width, g.width);
        assert_int_equal(part.height, g.height);
        assert_crop(&whole, &part, g.x, g.y);
        wc_image_free(&part);
    }
    wc_image_free(&whole);
}

typedef struct mode {
    int lossless;
    wc_transform tf;
    int wavelet;
} mode;

static const mode modes[] = {{1, WC_TRANSFORM_DWT, 53},
                             {0, WC_TRANSFORM_DWT, 97},
                             {0, WC_TRANSFORM_DWT, 53},
                             {0, WC_TRANSFORM_DCT, 0},
                             {0, WC_TRANSFORM_LOT, 0},
                             /* Barina's Monolithic DWT (153, 197): its
                              * regions are the whole decode cropped, and
                              * it has no reduce. */
                             {1, WC_TRANSFORM_DWT, 153},
                             {0, WC_TRANSFORM_DWT, 197},
                             /* And the Explosive DWT (203, 207). */
                             {1, WC_TRANSFORM_DWT, 203},
                             {0, WC_TRANSFORM_DWT, 207}};

static void set_mode(wc_params *p, const mode *m)
{
    p->lossless = m->lossless;
    if (!m->lossless) {
        p->transform = m->tf;
        if (m->wavelet) p->wavelet = m->wavelet % 10 == 3 ? 53 : 97;
        p->quality = 80;
    }
    if (m->wavelet > 100) p->dwt_scheme = m->wavelet > 200 ? WC_DWT_EXPLOSIVE : WC_DWT_MONOLITHIC;
    p->block_size = 16;
    /* Five levels (fewer where the image is smaller), never the automatic
     * lossless layout's 0 for small or flat images: reduce needs levels. */
    p->levels = 5;
}

static void test_region_is_crop(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1},   {1, 9},    {13, 1},   {37, 29},
                                        {64, 64}, {101, 67}, {131, 127}};
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 15);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (uint32_t comps = 1; comps <= 4; comps++) {
                wc_image im;
                const uint32_t depth = comps == 2 ? 12 : 8;
                make_image(&im, sizes[s][0], sizes[s][1], comps, depth, s * 8 + comps);
                wc_params p;
                wc_params_init(&p);
                set_mode(&p, &modes[m]);
                /* Half the sizes in format 2.0's tiled blocks: a region
                 * reads only its blocks from either layout. */
                if (s & 1) p.entropy = WC_ENTROPY_HUFFMAN_TILES;
                const int maxl = dwt_max_levels(im.width, im.height);
                const int dwt = modes[m].tf == WC_TRANSFORM_DWT;
                for (int levels = 0; levels <= (dwt ? (maxl < 6 ? maxl : 6) : 0); levels++) {
                    p.levels = levels;
                    size_t n = 0;
                    uint8_t *file = encode(ctx, &p, &im, &n);
                    wc_info info;
                    assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
                    check_regions(ctx, file, n, 0, 1 + (int)(s % 3), &r, 6);
                    if (modes[m].wavelet > 100 && info.levels > 0) {
                        wc_region red1 = {0, 0, 0, 0, 1};
                        wc_image no;
                        assert_int_equal(wc_decode_region(ctx, NULL, file, n, &red1, &no),
                                         WC_ERR_UNSUPPORTED);
                        assert_non_null(strstr(wc_ctx_error(ctx), "Monolithic"));
                    }
                    for (int red = 1; dwt && modes[m].wavelet < 100 && red <= info.levels; red++)
                        check_regions(ctx, file, n, red, 2, &r, 2);
                    wc_free(file);
                }
                wc_image_free(&im);
            }
    wc_ctx_free(ctx);
}

/* A reduced lossless 5/3 gray image is the LL band of `reduce` forward
 * levels of the level-shifted samples, shifted back (and clamped). */
static void test_reduce_is_forward_ll(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    make_image(&im, 83, 61, 1, 8, 3);
    wc_params p;
    wc_params_init(&p);
    p.block_size = 16;
    size_t n = 0;
    uint8_t *file = encode(ctx, &p, &im, &n);
    wc_info info;
    assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
    assert_true(info.levels >= 3);
    for (int red = 0; red <= info.levels; red++) {
        int32_t *plane = malloc(sizeof(int32_t) * im.width * im.height);
        int32_t *scratch = malloc(sizeof(int32_t) * dwt_scratch_elems(im.width, im.height));
        for (size_t i = 0; i < (size_t)im.width * im.height; i++)
            plane[i] = ((uint8_t *)im.pixels)[i] - 128;
        dwt53_forward(plane, im.width, im.height, red, scratch);
        wc_region g = {0, 0, 0, 0, red};
        wc_image out;
        assert_int_equal(wc_decode_region(ctx, NULL, file, n, &g, &out), WC_OK);
        uint32_t rw = im.width, rh = im.height;
        for (int l = 0; l < red; l++) rw = (rw + 1) / 2, rh = (rh + 1) / 2;
        assert_int_equal(out.width, rw);
        assert_int_equal(out.height, rh);
        for (uint32_t y = 0; y < rh; y++)
            for (uint32_t x = 0; x < rw; x++) {
                int32_t v = plane[(size_t)y * im.width + x] + 128;
                v = v < 0 ? 0 : v > 255 ? 255 : v;
                assert_int_equal(((uint8_t *)out.pixels)[(size_t)y * out.stride + x], v);
            }
        wc_image_free(&out);
        free(plane);
        free(scratch);
    }
    wc_free(file);
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

/* A 9/7 thumbnail keeps the image's brightness: with fine steps it is the
 * forward 9/7 LL band (gain 1) within one level. */
static void test_reduce_97_brightness(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    make_image(&im, 96, 72, 1, 8, 4);
    wc_params p;
    wc_params_init(&p);
    p.lossless = 0;
    p.wavelet = 97;
    p.step = 1.0f / 64;
    size_t n = 0;
    uint8_t *file = encode(ctx, &p, &im, &n);
    const int red = 3;
    float *plane = malloc(sizeof(float) * im.width * im.height);
    float *scratch = malloc(sizeof(float) * dwt_scratch_elems(im.width, im.height));
    for (size_t i = 0; i < (size_t)im.width * im.height; i++)
        plane[i] = (float)(((uint8_t *)im.pixels)[i] - 128);
    dwt97_forward(plane, im.width, im.height, red, scratch);
    wc_region g = {0, 0, 0, 0, red};
    wc_image out;
    assert_int_equal(wc_decode_region(ctx, NULL, file, n, &g, &out), WC_OK);
    assert_int_equal(out.width, 12);
    assert_int_equal(out.height, 9);
    for (uint32_t y = 0; y < out.height; y++)
        for (uint32_t x = 0; x < out.width; x++) {
            float v = plane[(size_t)y * im.width + x] + 128.0f;
            v = v < 0 ? 0 : v > 255 ? 255 : v;
            const int got = ((uint8_t *)out.pixels)[(size_t)y * out.stride + x];
            assert_true(got - v <= 1.0f && v - got <= 1.0f);
        }
    wc_image_free(&out);
    free(plane);
    free(scratch);
    wc_free(file);
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

/* A small region reads a few code blocks of each band, not the image. */
static void test_small_region_few_blocks(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    for (int m = 0; m < 5; m++) {
        wc_image im;
        make_image(&im, 512, 384, 3, 8, 7);
        wc_params p;
        wc_params_init(&p);
        set_mode(&p, &modes[m]);
        p.block_size = 32;
        size_t n = 0;
        uint8_t *file = encode(ctx, &p, &im, &n);
        wc_info info;
        assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
        wc_region all = {0, 0, 0, 0, 0}, one = {300, 200, 1, 1, 0}, big = {100, 90, 64, 64, 0};
        wc_image out;
        assert_int_equal(wc_decode_region(ctx, NULL, file, n, &all, &out), WC_OK);
        wc_image_free(&out);
        const size_t total = ctx_region_blocks(ctx);
        assert_int_equal(wc_decode_region(ctx, NULL, file, n, &one, &out), WC_OK);
        wc_image_free(&out);
        const size_t few = ctx_region_blocks(ctx);
        /* At most 2x2 blocks of each band meet a rectangle small enough;
         * the block transforms' 8x8 block (LOT: 3x3) at 300,200 lies in
         * one 32x32 code block of each of its 64 bands. */
        if (info.transform == WC_TRANSFORM_DWT) {
            assert_true(few >= 3 && few <= 3 * 4 * (size_t)info.bands);
            assert_true(few * 4 < total);
        } else {
            assert_int_equal(few, 3 * 64);
        }
        assert_int_equal(wc_decode_region(ctx, NULL, file, n, &big, &out), WC_OK);
        wc_image_free(&out);
        assert_true(ctx_region_blocks(ctx) * 2 < total);
        if (info.transform == WC_TRANSFORM_DWT) {
            wc_region thumb = {0, 0, 0, 0, info.levels};
            assert_int_equal(wc_decode_region(ctx, NULL, file, n, &thumb, &out), WC_OK);
            wc_image_free(&out);
            /* The coarsest LL band alone: 512/32 x 384/32 -> its blocks. */
            assert_true(ctx_region_blocks(ctx) <= 3 * 4);
        }
        wc_free(file);
        wc_image_free(&im);
    }
    wc_ctx_free(ctx);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    make_image(&im, 40, 30, 1, 8, 9);
    wc_params p;
    wc_params_init(&p);
    p.levels = 2;
    size_t n = 0;
    uint8_t *file = encode(ctx, &p, &im, &n);
    wc_image out;
    static const wc_region bad[] = {{40, 0, 1, 1, 0},  {0, 30, 1, 1, 0}, {39, 0, 2, 1, 0},
                                    {0, 0, 41, 30, 0}, {0, 0, 0, 5, 0},  {0, 0, 5, 0, 0},
                                    {3, 3, 0, 0, 0},   {0, 0, 0, 0, 3},  {0, 0, 0, 0, -1},
                                    {10, 0, 1, 1, 2},  {0, 0, 11, 1, 2}, {0xFFFFFFFFu, 0, 2, 1, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(wc_decode_region(ctx, NULL, file, n, &bad[i], &out), WC_ERR_ARG);
        assert_true(strlen(wc_ctx_error(ctx)) > 0);
        assert_null(out.pixels);
    }
    wc_region ok = {9, 7, 1, 1, 2}; /* the last pixel of the 10x8 reduced image */
    assert_int_equal(wc_decode_region(ctx, NULL, file, n, &ok, &out), WC_OK);
    wc_image_free(&out);
    assert_int_not_equal(wc_decode_region(ctx, NULL, file, n / 2, &ok, &out), WC_OK);
    assert_null(out.pixels);
    assert_int_equal(wc_decode_region(ctx, NULL, NULL, n, &ok, &out), WC_ERR_ARG);
    assert_int_equal(wc_decode_region(NULL, NULL, file, n, &ok, &out), WC_ERR_ARG);
    assert_int_equal(wc_decode_region(ctx, NULL, file, n, &ok, NULL), WC_ERR_ARG);
    wc_free(file);
    /* DCT: regions yes, reduce no. */
    p.lossless = 0;
    p.transform = WC_TRANSFORM_DCT;
    file = encode(ctx, &p, &im, &n);
    wc_region red = {0, 0, 0, 0, 1};
    assert_int_equal(wc_decode_region(ctx, NULL, file, n, &red, &out), WC_ERR_UNSUPPORTED);
    assert_non_null(strstr(wc_ctx_error(ctx), "DCT"));
    wc_free(file);
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

/* Every allocation of a region decode failing in turn (on the calling
 * thread: one thread) gives WC_ERR_NOMEM with a message, never a crash,
 * until the decode goes through; 5/3, 9/7, DCT and LOT. */
static void test_allocation_failures(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    make_image(&im, 70, 45, 3, 8, 11);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        wc_params p;
        wc_params_init(&p);
        set_mode(&p, &modes[m]);
        size_t n = 0;
        uint8_t *file = encode(ctx, &p, &im, &n);
        wc_params_init(&p);
        p.threads = 1;
        const wc_region g = {5, 3, 20, 9,
                             modes[m].tf == WC_TRANSFORM_DWT && modes[m].wavelet < 100 ? 1 : 0};
        for (long k = 0;; k++) {
            assert_true(k < 10000);
            wc_image out;
            wc_alloc_fail_after(k);
            wc_status s = wc_decode_region(ctx, &p, file, n, &g, &out);
            wc_alloc_fail_after(-1);
            if (s == WC_OK) {
                wc_image_free(&out);
                break;
            }
            if (s != WC_ERR_NOMEM || !wc_ctx_error(ctx)[0])
                fail_msg("allocation %ld failing: status %d ('%s')", k, (int)s, wc_ctx_error(ctx));
            assert_null(out.pixels);
        }
        wc_free(file);
    }
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_region_is_crop),       cmocka_unit_test(test_reduce_is_forward_ll),
        cmocka_unit_test(test_reduce_97_brightness), cmocka_unit_test(test_small_region_few_blocks),
        cmocka_unit_test(test_bad_arguments),        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
