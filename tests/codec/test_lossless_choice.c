/*
 * test_lossless_choice.c -- the automatic lossless layout (levels
 * WC_LEVELS_AUTO, codec/lossless_choice.c): synthetic images are told from
 * photographs, the file kept is the smallest of the candidates coded one
 * by one, photographs keep the 5-level file byte for byte, and every
 * choice decodes exactly (1x1, 1xN, odd and prime sizes, 8 and 16 bits,
 * 1 to 4 components).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lossless_choice.h"
#include "test_support.h"
#include "wcodec.h"

/* kind 0: noise (photograph-like statistics for the detector: neighbours
 * rarely equal); 1: flat areas with sharp edges and few levels. */
static wc_image make_image(test_rng *r, uint32_t w, uint32_t h, uint32_t comps, uint32_t depth,
                           int kind)
{
    wc_image img = {w, h, comps, depth, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    const uint32_t maxv = (1u << depth) - 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < comps; c++) {
                uint32_t v =
                    kind ? (((x / 7) ^ (y / 5)) + c) % 4 * (maxv / 3) : test_rng_u32(r) & maxv;
                size_t i = ((size_t)y * w + x) * comps + c;
                test_put_sample(img.pixels, i, depth, v);
            }
    return img;
}

static size_t encode_size(wc_ctx *ctx, const wc_params *p, const wc_image *img, void **buf)
{
    size_t n = 0;
    if (wc_encode_alloc(ctx, p, img, buf, &n) != WC_OK)
        fail_msg("encode %ux%u x%u: %s", img->width, img->height, img->components,
                 wc_ctx_error(ctx));
    return n;
}

static void test_detector(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 5);
    wc_image noise = make_image(&r, 200, 100, 3, 8, 0);
    wc_image flat = make_image(&r, 200, 100, 3, 8, 1);
    wc_image tiny = make_image(&r, 40, 40, 1, 16, 0);
    assert_false(lc_looks_synthetic(&noise));
    assert_true(lc_looks_synthetic(&flat));
    assert_true(lc_looks_synthetic(&tiny)); /* small: always worth trying */
    /* An 8-bit grey photograph has at most 256 levels too: not a palette. */
    wc_image grey = make_image(&r, 200, 100, 1, 8, 0);
    assert_false(lc_looks_synthetic(&grey));
    uint8_t *g = grey.pixels;
    for (size_t i = 0; i < (size_t)200 * 100; i++) g[i] = (uint8_t)(g[i] % 32 * 8); /* 32 levels */
    assert_true(lc_looks_synthetic(&grey));
    g[0] = 1; /* 33 */
    assert_false(lc_looks_synthetic(&grey));
    wc_image_free(&grey);
    /* Noise drawn from 200 colours: few neighbours repeat, but a palette. */
    wc_image pal = make_image(&r, 200, 100, 3, 8, 0);
    uint8_t *px = pal.pixels;
    for (size_t i = 0; i < (size_t)200 * 100; i++) {
        uint32_t k = test_rng_u32(&r) % 200;
        px[3 * i] = (uint8_t)k;
        px[3 * i + 1] = (uint8_t)(k * 7);
        px[3 * i + 2] = (uint8_t)(k * 13);
    }
    assert_true(lc_looks_synthetic(&pal));
    px[0] = 255; /* 201 colours: still a palette */
    assert_true(lc_looks_synthetic(&pal));
    for (size_t i = 0; i < 300; i++) px[3 * i] = (uint8_t)(i * 3 + 1); /* hundreds more */
    assert_false(lc_looks_synthetic(&pal));
    wc_image_free(&pal);
    wc_params p;
    wc_params_init(&p);
    lc_candidate c[LC_MAX_CANDIDATES];
    assert_int_equal(lc_candidates(&p, &noise, 0, c), 1);
    assert_int_equal(c[0].p.levels, LC_DEFAULT_LEVELS);
    assert_int_equal(lc_candidates(&p, &flat, 1, c),
                     LC_MAX_CANDIDATES); /* RGB: with and without RCT */
    /* one component: no colour to leave out (5 levels; 0 levels with
     * Huffman, deflate and filtered deflate) */
    assert_int_equal(lc_candidates(&p, &tiny, 1, c), 4);
    /* filtered deflate only where its scratch fits under max_memory */
    p.max_memory = wc_encode_memory(&tiny, &p) + lc_filtered_memory(&tiny);
    assert_int_equal(lc_candidates(&p, &tiny, 1, c), 4);
    p.max_memory--;
    assert_int_equal(lc_candidates(&p, &tiny, 1, c), 3);
    for (int k = 0; k < 3; k++) assert_int_not_equal(c[k].p.entropy, WC_ENTROPY_FILTERED);
    p.max_memory = 0;
    p.lossless = 0; /* lossy: one layout */
    assert_int_equal(lc_candidates(&p, &flat, 1, c), 1);
    wc_image_free(&noise);
    wc_image_free(&flat);
    wc_image_free(&tiny);
}

/* The detector's count of samples equal to their left neighbour, exact
 * at its threshold (a quarter of them: synthetic) for rows whose lengths
 * leave every tail of its counting loops (16 bytes a step in runs of
 * 4,080; 8 words a step in runs of 32,760): an image of many colours
 * (8, 12 and 16 bits) whose neighbours all differ,
 * then made to repeat exactly total / 4 samples, or one fewer. */
static void test_repeat_threshold(void **state)
{
    (void)state;
    static const uint32_t shapes[][4] = {{4097, 3, 3, 8},  {1361, 5, 3, 8}, {4096, 4, 1, 8},
                                         {5000, 2, 4, 8},  {1366, 7, 2, 8}, {11001, 2, 3, 16},
                                         {4099, 3, 1, 12}, {2731, 4, 3, 16}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int fewer = 0; fewer < 2; fewer++) {
            const uint32_t w = shapes[s][0], h = shapes[s][1], comps = shapes[s][2];
            const uint32_t depth = shapes[s][3];
            wc_image img = {w, h, comps, depth, 0, NULL};
            assert_int_equal(wc_image_alloc(&img), WC_OK);
            /* steps 37, 39, ...: odd, so neighbours differ and so do the
             * samples two apart; rows shift the colours (more than 256) */
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++)
                    for (uint32_t c = 0; c < comps; c++)
                        test_put_sample(img.pixels, ((size_t)y * w + x) * comps + c, depth,
                                        (x * (37 + 2 * c) + y * 11 + c * 64) & ((1u << depth) - 1));
            const uint64_t total = (uint64_t)h * (w - 1) * comps;
            uint64_t want = (total + 3) / 4 - (uint64_t)fewer, made = 0;
            /* a repeat at odd x copies x - 1: never two in a row */
            for (uint32_t y = 0; y < h && made < want; y++)
                for (uint32_t x = 1; x < w && made < want; x += 2)
                    for (uint32_t c = 0; c < comps && made < want; c++, made++) {
                        const size_t i = ((size_t)y * w + x) * comps + c;
                        if (depth > 8)
                            ((uint16_t *)img.pixels)[i] = ((uint16_t *)img.pixels)[i - comps];
                        else
                            ((uint8_t *)img.pixels)[i] = ((uint8_t *)img.pixels)[i - comps];
                    }
            assert_true(made == want);
            if (fewer)
                assert_false(lc_looks_synthetic(&img));
            else
                assert_true(lc_looks_synthetic(&img));
            wc_image_free(&img);
        }
    /* Rows of one colour each, 300 colours: every sample repeats, runs of
     * equal bytes longer than a counter's 255 steps. */
    for (uint32_t depth = 8; depth <= 16; depth += 8) {
        wc_image img = {1400, 300, 3, depth, 0, NULL};
        assert_int_equal(wc_image_alloc(&img), WC_OK);
        for (uint32_t y = 0; y < img.height; y++)
            for (uint32_t x = 0; x < img.width; x++)
                for (uint32_t c = 0; c < 3; c++)
                    test_put_sample(img.pixels, ((size_t)y * img.width + x) * 3 + c, depth,
                                    c == 0   ? y & 255
                                    : c == 1 ? y >> 8
                                             : 7);
        assert_true(lc_looks_synthetic(&img));
        wc_image_free(&img);
    }
}

/* The smallest file of the plain candidates (*first: the 5-level one) and
 * of the palette candidates (SIZE_MAX for an image of more than 256
 * colours), each coded on its own. */
static void candidate_sizes(wc_ctx *ctx, const wc_params *p, const wc_image *img, size_t *first,
                            size_t *best_plain, size_t *best_palette)
{
    lc_candidate c[LC_MAX_CANDIDATES];
    int n = lc_candidates(p, img, lc_looks_synthetic(img), c);
    *best_plain = *best_palette = SIZE_MAX;
    for (int k = 0; k < n; k++) {
        size_t s = 0;
        if (lc_encoded_size(ctx, &c[k], img, &s) != WC_OK) fail_msg("%s", wc_ctx_error(ctx));
        if (k == 0) *first = s;
        if (s < *best_plain) *best_plain = s;
    }
    /* The index plane is one component: its candidates as the encoder
     * makes them, from lc_candidates of that shape, for each order. */
    const wc_image plane = {img->width, img->height, 1, 8, 0, NULL};
    n = lc_candidates(p, &plane, 1, c);
    for (int order = 1; order <= 3; order++)
        for (int k = 0; k < n; k++) {
            size_t s = 0;
            c[k].palette = order;
            wc_status st = lc_encoded_size(ctx, &c[k], img, &s);
            if (st == WC_ERR_ARG) return; /* more than 256 colours */
            if (st != WC_OK) fail_msg("%s", wc_ctx_error(ctx));
            if (s < *best_palette) *best_palette = s;
        }
}

/* The automatic file is exactly as small as the smallest candidate coded
 * on its own, and it is a palette file exactly when a palette candidate
 * is strictly smaller than every plain one: a choice that kept the first or
 * a wrong candidate, or took the palette when it did not pay, fails. */
static void check_choice(wc_ctx *ctx, const wc_image *img, int want_palette)
{
    wc_params p;
    wc_params_init(&p);
    assert_int_equal(p.levels, WC_LEVELS_AUTO);
    void *a = NULL;
    size_t auto_size = encode_size(ctx, &p, img, &a);
    size_t first = 0, plain = 0, pal = 0;
    candidate_sizes(ctx, &p, img, &first, &plain, &pal);
    const size_t smallest = pal < plain ? pal : plain;
    assert_int_equal(auto_size, smallest);
    assert_true(auto_size < first);
    wc_info info;
    assert_int_equal(wc_inspect(ctx, a, auto_size, &info), WC_OK);
    assert_int_equal(info.colour == 3, pal < plain);
    /* 2.0 for a palette or filtered deflate (entropy 4), else 1.0 */
    assert_int_equal(info.format_major, pal < plain || info.entropy == WC_ENTROPY_FILTERED ? 2 : 1);
    assert_int_equal(pal < plain, want_palette); /* the images below cover both ways */
    wc_image back;
    assert_int_equal(wc_decode(ctx, NULL, a, auto_size, &back), WC_OK);
    assert_memory_equal(back.pixels, img->pixels, wc_image_row_bytes(img) * img->height);
    wc_image_free(&back);
    wc_free(a);
}

static void test_picks_smallest(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 7);
    /* Few colours in flat areas: the palette wins. */
    wc_image img = make_image(&r, 301, 211, 3, 8, 1);
    check_choice(ctx, &img, 1);
    wc_image_free(&img);
    /* A grey ramp of 100 levels, each two pixels wide (synthetic): its
     * indices are its samples, so the palette only adds its chunk. */
    wc_image ramp = {200, 37, 1, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&ramp), WC_OK);
    for (uint32_t y = 0; y < ramp.height; y++)
        for (uint32_t x = 0; x < ramp.width; x++)
            ((uint8_t *)ramp.pixels)[(size_t)y * ramp.width + x] = (uint8_t)(x / 2);
    check_choice(ctx, &ramp, 0);
    wc_image_free(&ramp);
    wc_ctx_free(ctx);
}

/* A photograph-like image tries one layout: the same bytes as levels 5. */
static void test_photo_unchanged(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 9);
    wc_image img = make_image(&r, 160, 120, 3, 8, 0);
    wc_params p;
    wc_params_init(&p);
    void *a = NULL, *b = NULL;
    size_t na = encode_size(ctx, &p, &img, &a);
    p.levels = 5;
    size_t nb = encode_size(ctx, &p, &img, &b);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    wc_free(a);
    wc_free(b);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* Exact round trips of the automatic choice over sizes, depths, layouts. */
static void test_roundtrips(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {7, 5}, {37, 29}, {131, 67}};
    static const uint32_t depths[] = {1, 8, 12, 16};
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 11);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
            for (uint32_t comps = 1; comps <= 4; comps++)
                for (int kind = 0; kind < 2; kind++) {
                    wc_image img = make_image(&r, sizes[s][0], sizes[s][1], comps, depths[d], kind);
                    wc_params p;
                    wc_params_init(&p);
                    void *buf = NULL;
                    size_t n = encode_size(ctx, &p, &img, &buf);
                    wc_image out;
                    memset(&out, 0, sizeof out);
                    if (wc_decode(ctx, &p, buf, n, &out) != WC_OK)
                        fail_msg("decode: %s", wc_ctx_error(ctx));
                    assert_int_equal(out.width, img.width);
                    assert_int_equal(out.height, img.height);
                    assert_int_equal(out.components, img.components);
                    const size_t bytes = wc_image_row_bytes(&img) * img.height;
                    if (memcmp(out.pixels, img.pixels, bytes))
                        fail_msg("%ux%u x%u %u-bit kind %d: not exact", img.width, img.height,
                                 comps, img.bit_depth, kind);
                    wc_image_free(&out);
                    wc_free(buf);
                    wc_image_free(&img);
                }
    wc_ctx_free(ctx);
}

/* The device route (pixels in device memory: the backend brings the rows
 * the check reads to the host) answers as the pixels do: here on the CPU
 * backend from host memory, the same rows a device's fetch brings up. */
static void test_detect_on_device(void **state)
{
    (void)state;
    /* The last two are large enough that the check reads every 3rd and
     * every 2nd row: the fetch then brings up those rows alone. */
    static const uint32_t shapes[][4] = {{200, 100, 3, 8},   {130, 90, 1, 8},    {97, 61, 4, 16},
                                         {64, 129, 2, 12},   {3000, 2, 1, 16},   {50, 50, 3, 8},
                                         {1100, 1000, 3, 8}, {1500, 1500, 1, 16}};
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 17);
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CPU;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (int kind = 0; kind < 2; kind++) {
            wc_image img =
                make_image(&r, shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3], kind);
            int direct = -1, forward = -1;
            assert_int_equal(lc_detect(ctx, &p, &img, 0, &direct, NULL), WC_OK);
            assert_int_equal(lc_detect(ctx, &p, &img, 1, &forward, NULL), WC_OK);
            assert_int_equal(direct, forward);
            if (shapes[k][0] * shapes[k][1] > LC_SMALL_PIXELS) assert_int_equal(direct, kind);
            /* The host copy the palette reads: the image itself, when
             * synthetic; nothing otherwise. */
            wc_image copy;
            assert_int_equal(lc_detect(ctx, &p, &img, 1, &forward, &copy), WC_OK);
            assert_int_equal(copy.pixels != NULL, direct);
            if (copy.pixels)
                assert_memory_equal(copy.pixels, img.pixels, wc_image_row_bytes(&img) * img.height);
            wc_image_free(&copy);
            wc_image_free(&img);
        }
    wc_ctx_free(ctx);
}

/* Levels below -1 stay refused; -1 is WC_LEVELS_AUTO. */
static void test_levels_range(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 13);
    wc_image img = make_image(&r, 8, 8, 1, 8, 1);
    wc_params p;
    wc_params_init(&p);
    p.levels = -2;
    void *buf = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &buf, &n), WC_ERR_ARG);
    assert_non_null(strstr(wc_ctx_error(ctx), "levels"));
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detector),         cmocka_unit_test(test_repeat_threshold),
        cmocka_unit_test(test_picks_smallest),   cmocka_unit_test(test_photo_unchanged),
        cmocka_unit_test(test_roundtrips),       cmocka_unit_test(test_levels_range),
        cmocka_unit_test(test_detect_on_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
