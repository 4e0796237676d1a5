/*
 * test_palette.c -- the palette layout (format 2.0, colour 3, WPAL):
 * exact round trips of palette files (1x1, 1xN, odd and prime sizes; 1 to
 * 4 components; 8, 10 and 16 bits; 1, 2, 3, 255 and 256 colours; each
 * layout of the index plane) through wc_decode, wc_decode_into and
 * regions; errors naming the problem for every kind of WPAL damage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "container.h"
#include "lossless_choice.h"
#include "palette.h"
#include "test_support.h"
#include "wcodec.h"

/* An image of exactly `colours` distinct pixels (when it has as many
 * pixels), in runs and blocks like a graphic, with noise in the choice. */
static wc_image make_palette_image(test_rng *r, uint32_t w, uint32_t h, uint32_t comps,
                                   uint32_t depth, uint32_t colours)
{
    wc_image img = {w, h, comps, depth, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    const uint32_t maxv = (1u << depth) - 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t n = y * w + x;
            /* every colour once first, then blocks with some noise */
            uint32_t k = n < colours ? n : ((x / 3) * 7 + (y / 2) * 13) % colours;
            if (n >= colours && test_rng_range(r, 0, 9) == 0) k = test_rng_u32(r) % colours;
            for (uint32_t c = 0; c < comps; c++) {
                /* component 0 tells the colours apart; the others vary */
                uint32_t v = c == 0 ? k * (maxv / 255) : (k * 2654435761u >> (8 + 5 * c)) & maxv;
                size_t i = ((size_t)y * w + x) * comps + c;
                test_put_sample(img.pixels, i, depth, v);
            }
        }
    return img;
}

/* The palette file of candidate k % 4 (0: 5 levels, 1: none with
 * Huffman, 2: none with deflate, 3: filtered deflate) of the index
 * plane, entries ordered by luminance (k < 4), as first seen (k < 8) or
 * most frequent first. */
static void *palette_file(wc_ctx *ctx, const wc_image *img, int k, size_t *n)
{
    wc_params p;
    wc_params_init(&p);
    lc_candidate c[LC_MAX_CANDIDATES];
    const wc_image plane = {img->width, img->height, 1, 8, 0, NULL};
    int nc = lc_candidates(&p, &plane, 1, c);
    assert_true(k % 4 < nc);
    c[k % 4].palette = 1 + k / 4;
    void *file = NULL;
    if (lc_encode_candidate(ctx, &c[k % 4], img, &file, n) != WC_OK)
        fail_msg("palette encode %ux%u x%u %u-bit: %s", img->width, img->height, img->components,
                 img->bit_depth, wc_ctx_error(ctx));
    return file;
}

static void assert_same_pixels(const wc_image *a, const wc_image *b)
{
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_int_equal(a->components, b->components);
    assert_int_equal(a->bit_depth, b->bit_depth);
    const size_t row = wc_image_row_bytes(a);
    for (uint32_t y = 0; y < a->height; y++)
        assert_memory_equal((const uint8_t *)a->pixels + (size_t)y * (a->stride ? a->stride : row),
                            (const uint8_t *)b->pixels + (size_t)y * (b->stride ? b->stride : row),
                            row);
}

static void roundtrip(wc_ctx *ctx, const wc_image *img, int k)
{
    size_t n = 0;
    void *file = palette_file(ctx, img, k, &n);
    wc_info info;
    assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
    assert_int_equal(info.colour, 3);
    assert_int_equal(info.format_major, 2);
    assert_int_equal(info.components, img->components);
    assert_int_equal(info.bit_depth, img->bit_depth);
    wc_image back;
    if (wc_decode(ctx, NULL, file, n, &back) != WC_OK) fail_msg("%s", wc_ctx_error(ctx));
    assert_same_pixels(img, &back);
    /* Into the caller's buffer, rows apart by more than their width. */
    wc_image into = {img->width, img->height, img->components, img->bit_depth, 0, NULL};
    into.stride = wc_image_row_bytes(img) + 6;
    into.pixels = calloc(into.stride, img->height);
    assert_non_null(into.pixels);
    if (wc_decode_into(ctx, NULL, file, n, &into) != WC_OK) fail_msg("%s", wc_ctx_error(ctx));
    assert_same_pixels(img, &into);
    free(into.pixels);
    wc_image_free(&back);
    wc_free(file);
}

static void test_roundtrips(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 11);
    static const uint32_t sizes[][2] = {{1, 1}, {1, 37}, {41, 1}, {17, 13}, {97, 61}, {256, 3}};
    static const uint32_t colours[] = {1, 2, 3, 255, 256};
    static const uint32_t depths[] = {8, 10, 16};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (uint32_t comps = 1; comps <= 4; comps++)
            for (size_t di = 0; di < 3; di++)
                for (size_t ci = 0; ci < 5; ci++) {
                    wc_image img = make_palette_image(&r, sizes[si][0], sizes[si][1], comps,
                                                      depths[di], colours[ci]);
                    for (int k = 0; k < 12; k++) roundtrip(ctx, &img, k);
                    wc_image_free(&img);
                }
    wc_ctx_free(ctx);
}

/* The automatic choice takes the palette for a graphic of few colours,
 * and the file decodes exactly. */
static void test_auto_takes_palette(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 3);
    wc_image img = make_palette_image(&r, 120, 90, 3, 8, 20);
    wc_params p;
    wc_params_init(&p);
    void *file = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &file, &n), WC_OK);
    wc_info info;
    assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
    assert_int_equal(info.colour, 3);
    wc_image back;
    assert_int_equal(wc_decode(ctx, NULL, file, n, &back), WC_OK);
    assert_same_pixels(&img, &back);
    wc_image_free(&back);
    wc_free(file);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* A region of a palette file is the crop of the whole image; a reduced
 * image of one is refused. */
static void test_region(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 5);
    wc_image img = make_palette_image(&r, 131, 77, 3, 8, 40);
    for (int k = 0; k < 12; k++) {
        size_t n = 0;
        void *file = palette_file(ctx, &img, k, &n);
        const wc_region rects[] = {
            {0, 0, 0, 0, 0}, {5, 7, 33, 19, 0}, {130, 76, 1, 1, 0}, {64, 0, 67, 77, 0}};
        for (size_t i = 0; i < sizeof rects / sizeof rects[0]; i++) {
            wc_image out;
            if (wc_decode_region(ctx, NULL, file, n, &rects[i], &out) != WC_OK)
                fail_msg("%s", wc_ctx_error(ctx));
            const uint32_t w = rects[i].width ? rects[i].width : img.width;
            const uint32_t h = rects[i].height ? rects[i].height : img.height;
            assert_int_equal(out.width, w);
            assert_int_equal(out.height, h);
            for (uint32_t y = 0; y < h; y++)
                assert_memory_equal((uint8_t *)out.pixels + (size_t)y * w * 3,
                                    (uint8_t *)img.pixels +
                                        ((size_t)(y + rects[i].y) * img.width + rects[i].x) * 3,
                                    (size_t)w * 3);
            wc_image_free(&out);
        }
        wc_info info;
        assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
        if (info.levels > 0) {
            const wc_region half = {0, 0, 0, 0, 1};
            wc_image out;
            assert_int_equal(wc_decode_region(ctx, NULL, file, n, &half, &out), WC_ERR_UNSUPPORTED);
            assert_non_null(strstr(wc_ctx_error(ctx), "palette"));
        }
        wc_free(file);
    }
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* ---- damage ------------------------------------------------------------- */

/* A file rebuilt from pieces: each a chunk type and its data. */
typedef struct piece {
    uint32_t type;
    const uint8_t *data;
    size_t size;
} piece;

static size_t rebuild(const piece *pc, size_t n, uint8_t *out, size_t cap)
{
    wcx_writer w;
    wcx_writer_init(&w, out, cap);
    for (size_t i = 0; i < n; i++) wcx_put_chunk(&w, pc[i].type, pc[i].data, pc[i].size);
    size_t size = 0;
    assert_int_equal(wcx_writer_finish(&w, &size), WC_OK);
    return size;
}

static size_t split(const void *file, size_t n, piece *pc)
{
    wcx_chunk k[32];
    size_t count = 0;
    wc_err err = {{0}};
    assert_int_equal(wcx_read_chunks(file, n, k, 32, &count, &err), WC_OK);
    for (size_t i = 0; i < count; i++) pc[i] = (piece){k[i].type, k[i].data, k[i].size};
    return count;
}

static void expect(wc_ctx *ctx, const uint8_t *file, size_t n, wc_status want, const char *words)
{
    wc_image out;
    wc_status s = wc_decode(ctx, NULL, file, n, &out);
    if (s == WC_OK) wc_image_free(&out);
    if (s != want || !strstr(wc_ctx_error(ctx), words))
        fail_msg("want %s (\"%s\"), got %s: %s", wc_strerror(want), words, wc_strerror(s),
                 wc_ctx_error(ctx));
}

static void test_damage(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    test_rng r;
    test_rng_seed(&r, 9);
    /* 4 colours of 10 bits: index depth 2, samples stored in 2 bytes. */
    wc_image img = make_palette_image(&r, 23, 19, 3, 10, 4);
    size_t n = 0;
    uint8_t *file = palette_file(ctx, &img, 1, &n);
    piece pc[32], mod[34];
    memset(pc, 0, sizeof pc);
    size_t np = split(file, n, pc);
    if (np < 4 || np > 30) {
        fail_msg("%zu chunks", np);
        return;
    }
    assert_int_equal(pc[1].type, WCX_WPAL);
    static uint8_t buf[1 << 16];
    uint8_t pal[2 + 4 * 3 * 2 + 1];
    assert_int_equal(pc[1].size, 2 + 4 * 3 * 2);

    /* No WPAL. */
    memcpy(mod, pc, sizeof pc[0]);
    memcpy(mod + 1, pc + 2, (np - 2) * sizeof pc[0]);
    expect(ctx, buf, rebuild(mod, np - 1, buf, sizeof buf), WC_ERR_CORRUPT, "without its palette");
    /* Two. */
    memcpy(mod, pc, 2 * sizeof pc[0]);
    memcpy(mod + 2, pc + 1, (np - 1) * sizeof pc[0]);
    expect(ctx, buf, rebuild(mod, np + 1, buf, sizeof buf), WC_ERR_CORRUPT, "a second");
    /* After the payload's first chunk. */
    memcpy(mod, pc, sizeof pc[0]);
    mod[1] = pc[2];
    mod[2] = pc[1];
    memcpy(mod + 3, pc + 3, (np - 3) * sizeof pc[0]);
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "misplaced");
    /* A byte more, a byte less. */
    memcpy(mod, pc, np * sizeof pc[0]);
    memcpy(pal, pc[1].data, pc[1].size);
    pal[pc[1].size] = 0;
    mod[1] = (piece){WCX_WPAL, pal, pc[1].size + 1};
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "WPAL");
    mod[1].size = pc[1].size - 1;
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "WPAL");
    mod[1].size = 1;
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "entry count");
    /* Counts 0 and 257 (size to match). */
    mod[1].size = 2;
    pal[0] = 0, pal[1] = 0;
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "out of range");
    static uint8_t big[2 + 257 * 3 * 2];
    memset(big, 0, sizeof big);
    big[0] = 1, big[1] = 1;
    mod[1] = (piece){WCX_WPAL, big, sizeof big};
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "out of range");
    /* A sample over the bit depth. */
    memcpy(pal, pc[1].data, pc[1].size);
    pal[2 + 5 * 2 + 1] = 0x04; /* entry 1, component 2: 1024 + low byte */
    mod[1] = (piece){WCX_WPAL, pal, pc[1].size};
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "over the 10-bit");
    /* 3 entries for indices up to 3 (the index depth stays 2 bits). */
    memcpy(pal, pc[1].data, pc[1].size);
    pal[0] = 3;
    mod[1] = (piece){WCX_WPAL, pal, 2 + 3 * 3 * 2};
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "palette index 3");
    /* The header not lossless. */
    uint8_t hdr[512];
    memcpy(hdr, pc[0].data, pc[0].size);
    hdr[19] &= (uint8_t)~1u;
    memcpy(mod, pc, np * sizeof pc[0]);
    mod[0] = (piece){WCX_WHDR, hdr, pc[0].size};
    expect(ctx, buf, rebuild(mod, np, buf, sizeof buf), WC_ERR_CORRUPT, "lossless");
    /* A palette in a file that is not a palette file. */
    wc_params p;
    wc_params_init(&p);
    p.levels = 0;
    void *plain = NULL;
    size_t pn = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &plain, &pn), WC_OK);
    piece qc[32];
    memset(qc, 0, sizeof qc);
    size_t nq = split(plain, pn, qc);
    if (nq < 2 || nq > 30) {
        fail_msg("%zu chunks", nq);
        return;
    }
    mod[0] = qc[0];
    mod[1] = pc[1];
    memcpy(mod + 2, qc + 1, (nq - 1) * sizeof qc[0]);
    expect(ctx, buf, rebuild(mod, nq + 1, buf, sizeof buf), WC_ERR_CORRUPT,
           "a palette in a file whose colour is 1");
    wc_free(plain);
    /* Untouched, it decodes. */
    expect(ctx, file, n, WC_OK, "");
    wc_free(file);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* The packed WPAL of a filtered deflate file (entries as a filtered
 * deflate payload): written only when smaller, read back exactly, and
 * refused in another file, out of the bit depth, or damaged. */
static void test_packed_entries(void **state)
{
    (void)state;
    wcx_palette pal;
    memset(&pal, 0, sizeof pal);
    pal.count = 60; /* an icon's: a constant channel, full alpha, a ramp */
    for (unsigned i = 0; i < pal.count; i++) {
        pal.entry[i][0] = 230;
        pal.entry[i][1] = (uint16_t)(100 + i);
        pal.entry[i][2] = 20;
        pal.entry[i][3] = i == 0 ? 0 : 255;
    }
    wc_err err = {{0}};
    uint8_t *raw = NULL, *packed = NULL;
    size_t nraw = 0, npacked = 0;
    assert_int_equal(palette_payload(&pal, 4, 8, 0, &raw, &nraw, &err), WC_OK);
    assert_int_equal(nraw, 2 + 60 * 4);
    assert_int_equal(palette_payload(&pal, 4, 8, 1, &packed, &npacked, &err), WC_OK);
    assert_true(npacked < nraw / 2);
    assert_int_equal(packed[1] & 0x80, 0x80);
    wcx_chunk k = {WCX_WPAL, (uint32_t)npacked, packed, 8, 1};
    wcx_palette back;
    err.msg[0] = '\0';
    assert_int_equal(palette_parse(&k, 4, 8, WCX_ENTROPY_FILTERED, &back, &err), WC_OK);
    assert_int_equal(back.count, pal.count);
    assert_memory_equal(back.entry, pal.entry, sizeof pal.entry);
    /* the raw form reads in any file; the packed one only with entropy 4 */
    wcx_chunk kr = {WCX_WPAL, (uint32_t)nraw, raw, 8, 1};
    err.msg[0] = '\0';
    assert_int_equal(palette_parse(&kr, 4, 8, 0, &back, &err), WC_OK);
    err.msg[0] = '\0';
    assert_int_equal(palette_parse(&k, 4, 8, 0, &back, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "packed entries in a file of entropy 0"));
    /* entries past a 7-bit depth (230, 255) */
    err.msg[0] = '\0';
    assert_int_equal(palette_parse(&k, 4, 7, WCX_ENTROPY_FILTERED, &back, &err), WC_ERR_CORRUPT);
    if (!strstr(err.msg, "outside the 7-bit range")) fail_msg("%s", err.msg);
    /* three components read as four: the stream holds another size */
    err.msg[0] = '\0';
    assert_int_equal(palette_parse(&k, 3, 8, WCX_ENTROPY_FILTERED, &back, &err), WC_ERR_CORRUPT);
    /* every truncation, and a count of 0 */
    for (size_t n = 2; n < npacked; n++) {
        wcx_chunk kt = {WCX_WPAL, (uint32_t)n, packed, 8, 1};
        err.msg[0] = '\0';
        assert_int_equal(palette_parse(&kt, 4, 8, WCX_ENTROPY_FILTERED, &back, &err),
                         WC_ERR_CORRUPT);
        assert_non_null(strstr(err.msg, "WPAL"));
    }
    packed[0] = 0;
    packed[1] = 0x80;
    err.msg[0] = '\0';
    assert_int_equal(palette_parse(&k, 4, 8, WCX_ENTROPY_FILTERED, &back, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "0 palette entries"));
    /* one entry: packing cannot beat its 3 bytes, the raw form is kept */
    pal.count = 1;
    wc_free(packed);
    assert_int_equal(palette_payload(&pal, 3, 8, 1, &packed, &npacked, &err), WC_OK);
    assert_int_equal(npacked, 2 + 3);
    assert_int_equal(packed[1], 0);
    wc_free(raw);
    wc_free(packed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrips),     cmocka_unit_test(test_auto_takes_palette),
        cmocka_unit_test(test_region),         cmocka_unit_test(test_damage),
        cmocka_unit_test(test_packed_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
