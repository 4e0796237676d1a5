/*
 * test_stream_decode.c -- wc_decode_stream: the rows it hands out are
 * wc_decode's, byte for byte (5/3, 9/7, DCT, LOT, palette, Monolithic;
 * 1-4 components; 8 and 16 bits; 1x1, 1xN, Nx1, odd and prime sizes;
 * every level count; strip heights that divide nothing, chosen through the
 * memory limit); every kind of damage gives wc_decode's status and message
 * before the sink sees the image; the memory limit is honoured.
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

#include "test_support.h"
#include "wc_common.h"
#include "wcodec.h"

typedef struct mem_src {
    const uint8_t *data;
    size_t size;
    size_t reads;
} mem_src;

static int mem_read(void *user, uint64_t off, void *dst, size_t n)
{
    mem_src *m = user;
    if (off > m->size || n > m->size - off) return -1;
    memcpy(dst, m->data + off, n);
    m->reads++;
    return 0;
}

/* Collects the rows into an image and checks their order. */
typedef struct collect {
    wc_image img;
    uint32_t next_row;
    int began;
} collect;

static wc_status on_begin(void *user, const wc_image *shape)
{
    collect *c = user;
    assert_null(shape->pixels);
    c->img = *shape;
    c->img.pixels = NULL;
    c->img.stride = 0;
    c->began = 1;
    return wc_image_alloc(&c->img);
}

static wc_status on_rows(void *user, const wc_image *rows, uint32_t y)
{
    collect *c = user;
    assert_true(c->began);
    assert_int_equal(y, c->next_row);
    assert_int_equal(rows->width, c->img.width);
    assert_true(rows->height >= 1 && y + rows->height <= c->img.height);
    const size_t rb = wc_image_row_bytes(rows);
    for (uint32_t j = 0; j < rows->height; j++)
        memcpy((uint8_t *)c->img.pixels + (size_t)(y + j) * c->img.stride,
               (const uint8_t *)rows->pixels + (size_t)j * rb, rb);
    c->next_row = y + rows->height;
    return WC_OK;
}

static void make_image(wc_image *im, uint32_t w, uint32_t h, uint32_t comps, uint32_t depth,
                       uint64_t seed)
{
    memset(im, 0, sizeof *im);
    *im = (wc_image){w, h, comps, depth, 0, NULL};
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
                test_put_sample(im->pixels, ((size_t)y * w + x) * comps + c, depth, (uint32_t)v);
            }
}

/* The streamed decode of file under p (strips as p's limit allows) equals
 * wc_decode's image. */
static void check_stream(wc_ctx *ctx, const wc_params *p, const uint8_t *file, size_t n,
                         const char *what)
{
    wc_image ref;
    if (wc_decode(ctx, NULL, file, n, &ref) != WC_OK)
        fail_msg("%s: wc_decode: %s", what, wc_ctx_error(ctx));
    mem_src m = {file, n, 0};
    wc_stream_source src = {mem_read, &m, n};
    collect c;
    memset(&c, 0, sizeof c);
    wc_stream_sink sink = {on_begin, on_rows, &c};
    if (wc_decode_stream(ctx, p, &src, &sink, NULL) != WC_OK)
        fail_msg("%s: wc_decode_stream: %s", what, wc_ctx_error(ctx));
    assert_int_equal(c.next_row, ref.height);
    assert_int_equal(c.img.width, ref.width);
    assert_int_equal(c.img.components, ref.components);
    assert_int_equal(c.img.bit_depth, ref.bit_depth);
    const size_t rb = wc_image_row_bytes(&ref);
    for (uint32_t y = 0; y < ref.height; y++)
        if (memcmp((uint8_t *)ref.pixels + (size_t)y * ref.stride,
                   (uint8_t *)c.img.pixels + (size_t)y * c.img.stride, rb) != 0)
            fail_msg("%s: %ux%u x%u: row %u differs (%s)", what, ref.width, ref.height,
                     ref.components, y, wc_ctx_note(ctx));
    wc_image_free(&ref);
    wc_image_free(&c.img);
}

/* Every strip height the limit can pick (32, 16, 8), by limits just
 * at each one's need. */
static void check_strips(wc_ctx *ctx, const uint8_t *file, size_t n, const char *what, int threads)
{
    mem_src m = {file, n, 0};
    wc_stream_source src = {mem_read, &m, n};
    wc_params p;
    wc_params_init(&p);
    p.threads = threads;
    uint32_t rows = 0;
    uint64_t need = wc_decode_stream_memory(ctx, &p, &src, &rows);
    if (!need) { /* a Monolithic file: decoded whole */
        check_stream(ctx, &p, file, n, what);
        return;
    }
    for (int k = 0; k < 4 && need; k++) {
        p.max_memory = need;
        check_stream(ctx, &p, file, n, what);
        p.max_memory = need - 1;
        uint32_t smaller = 0;
        need = wc_decode_stream_memory(ctx, &p, &src, &smaller);
        if (need) assert_true(smaller < rows);
        rows = smaller;
    }
}

/* On one worker, and on several (the blocks of a row, the window). */
static void check_all_strips(wc_ctx *ctx, const uint8_t *file, size_t n, const char *what)
{
    check_strips(ctx, file, n, what, 1);
    check_strips(ctx, file, n, what, 3);
}

static uint8_t *encode(wc_ctx *ctx, const wc_params *p, const wc_image *im, size_t *n)
{
    void *out = NULL;
    if (wc_encode_alloc(ctx, p, im, &out, n) != WC_OK) fail_msg("encode: %s", wc_ctx_error(ctx));
    return out;
}

static void test_stream_equals_decode(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    static const uint32_t sizes[][2] = {{1, 1},    {1, 77},   {77, 1},  {31, 29},
                                        {97, 131}, {200, 67}, {64, 64}, {113, 300}};
    static const struct {
        int lossless, transform, wavelet;
    } modes[] = {{1, WC_TRANSFORM_DWT, 53},
                 {0, WC_TRANSFORM_DWT, 97},
                 {0, WC_TRANSFORM_DWT, 53},
                 {0, WC_TRANSFORM_DCT, 97},
                 {0, WC_TRANSFORM_LOT, 97}};
    int k = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++, k++) {
            const uint32_t comps = 1 + (uint32_t)(k % 4), depth = k % 3 == 2 ? 12 : 8;
            wc_image im;
            make_image(&im, sizes[si][0], sizes[si][1], comps, depth, (uint64_t)k + 1);
            wc_params p;
            wc_params_init(&p);
            p.lossless = modes[mi].lossless;
            p.transform = modes[mi].transform;
            p.wavelet = modes[mi].wavelet;
            if (!p.lossless) p.quality = 70;
            p.block_size = k % 2 ? 16 : 32;
            size_t n;
            uint8_t *file = encode(ctx, &p, &im, &n);
            char what[96];
            snprintf(what, sizeof what, "%ux%u x%u %u-bit, mode %zu", im.width, im.height, comps,
                     depth, mi);
            check_all_strips(ctx, file, n, what);
            wc_free(file);
            wc_image_free(&im);
        }
    wc_ctx_free(ctx);
}

/* Every level count of the 5/3 and 9/7 on a tall and a wide image. */
static void test_every_level_count(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    for (int levels = 0; levels <= 8; levels++)
        for (int wv = 0; wv < 2; wv++) {
            wc_image im;
            make_image(&im, levels % 2 ? 53 : 301, levels % 2 ? 301 : 53, 3, 8,
                       (uint64_t)(levels * 2 + wv));
            wc_params p;
            wc_params_init(&p);
            p.levels = levels;
            p.wavelet = wv ? 97 : 53;
            p.lossless = !wv;
            if (wv) p.quality = 80;
            size_t n;
            uint8_t *file = encode(ctx, &p, &im, &n);
            if (p.levels > 0 || levels == 0) {
                char what[64];
                snprintf(what, sizeof what, "%d levels, wavelet %d", levels, p.wavelet);
                check_all_strips(ctx, file, n, what);
            }
            wc_free(file);
            wc_image_free(&im);
        }
    wc_ctx_free(ctx);
}

/* 16-bit, the Monolithic scheme (decoded whole) and a palette image. */
static void test_other_layouts(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    make_image(&im, 129, 70, 3, 16, 9);
    wc_params p;
    wc_params_init(&p);
    size_t n;
    uint8_t *file = encode(ctx, &p, &im, &n);
    check_all_strips(ctx, file, n, "16-bit lossless");
    wc_free(file);
    p.dwt_scheme = WC_DWT_MONOLITHIC;
    file = encode(ctx, &p, &im, &n);
    check_all_strips(ctx, file, n, "Monolithic 5/3");
    wc_free(file);
    p.dwt_scheme = WC_DWT_EXPLOSIVE;
    file = encode(ctx, &p, &im, &n);
    check_all_strips(ctx, file, n, "Explosive 5/3");
    wc_free(file);
    /* Format 2.0 coders: arithmetic coding (entropy 3), lossless and 9/7;
     * filtered deflate (entropy 4, 0 levels: decoded whole). */
    wc_params_init(&p);
    p.entropy = WC_ENTROPY_ARITH;
    p.levels = 5;
    file = encode(ctx, &p, &im, &n);
    check_all_strips(ctx, file, n, "arithmetic lossless");
    wc_free(file);
    p.lossless = 0;
    p.wavelet = 97;
    p.quality = 70;
    file = encode(ctx, &p, &im, &n);
    check_all_strips(ctx, file, n, "arithmetic 9/7");
    wc_free(file);
    wc_params_init(&p);
    p.entropy = WC_ENTROPY_FILTERED;
    p.levels = 0;
    file = encode(ctx, &p, &im, &n);
    check_all_strips(ctx, file, n, "filtered deflate");
    wc_free(file);
    wc_image_free(&im);
    /* A 1x1 image: the automatic layout writes a single-chunk file (WONE). */
    make_image(&im, 1, 1, 3, 8, 5);
    wc_params_init(&p);
    file = encode(ctx, &p, &im, &n);
    assert_true(n < 100 && memcmp(file + 12, "WONE", 4) == 0);
    check_all_strips(ctx, file, n, "single-chunk 1x1");
    wc_free(file);
    wc_image_free(&im);
    /* 16 unrelated colours at random: a plane of indices into a palette
     * is the smallest layout (format 2.0, colour 3); large enough to be
     * chunked (not one WONE chunk), so that it is decoded in strips. */
    make_image(&im, 200, 120, 3, 8, 3);
    uint8_t *px = im.pixels;
    uint32_t r = 12345;
    for (size_t i = 0; i < (size_t)200 * 120; i++) {
        r = r * 1103515245u + 12345u;
        const uint32_t k = (r >> 16) % 16;
        for (int c = 0; c < 3; c++) px[i * 3 + c] = (uint8_t)(k * 97 * (c + 1) + 31 * c);
    }
    wc_params_init(&p);
    file = encode(ctx, &p, &im, &n);
    wc_info info;
    assert_int_equal(wc_inspect(ctx, file, n, &info), WC_OK);
    assert_int_equal(info.colour, 3); /* the palette layout */
    assert_true(memcmp(file + 12, "WHDR", 4) == 0);
    check_all_strips(ctx, file, n, "few colours");
    wc_free(file);
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

/* Damage: the streamed decode says what wc_decode says, and the sink
 * never hears of the image. */
static void check_damaged(wc_ctx *ctx, const uint8_t *file, size_t n, const char *what)
{
    wc_image ref;
    wc_status want = wc_decode(ctx, NULL, file, n, &ref);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", wc_ctx_error(ctx));
    if (want == WC_OK) {
        wc_image_free(&ref);
        return; /* damage the file does not notice (an unknown chunk's bytes, say) */
    }
    mem_src m = {file, n, 0};
    wc_stream_source src = {mem_read, &m, n};
    collect c;
    memset(&c, 0, sizeof c);
    wc_stream_sink sink = {on_begin, on_rows, &c};
    wc_status got = wc_decode_stream(ctx, NULL, &src, &sink, NULL);
    if (got != want || strcmp(msg, wc_ctx_error(ctx)) != 0)
        fail_msg("%s: wc_decode says %d \"%s\", the stream %d \"%s\"", what, want, msg, got,
                 wc_ctx_error(ctx));
    assert_false(c.began);
    wc_image_free(&c.img);
}

/* Gives the index-th chunk of the file the type name, with its CRC made
 * again. */
static void retype_chunk(uint8_t *file, size_t n, unsigned index, const char *name)
{
    size_t off = 8;
    for (unsigned i = 0; i < index; i++) off += 12 + (size_t)wc_rd32le(file + off);
    assert_true(off + 12 <= n);
    const uint32_t len = wc_rd32le(file + off);
    memcpy(file + off + 4, name, 4);
    wc_wr32le(file + off + 8 + len, (uint32_t)crc32(0L, file + off + 4, len + 4));
}

static void test_damage(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    make_image(&im, 67, 41, 3, 8, 5);
    wc_params p;
    wc_params_init(&p);
    size_t n;
    uint8_t *file = encode(ctx, &p, &im, &n);
    uint8_t *bad = malloc(n);
    char what[64];
    /* every length of a truncated file, and a few beyond the magic */
    for (size_t cut = 0; cut < n; cut += cut < 64 ? 1 : 7) {
        snprintf(what, sizeof what, "cut at %zu of %zu", cut, n);
        check_damaged(ctx, file, cut, what);
    }
    /* a bit flipped in every byte (header, tables, index, data, CRCs) */
    for (size_t i = 0; i < n; i++) {
        memcpy(bad, file, n);
        bad[i] ^= (uint8_t)(1u << (i % 8));
        snprintf(what, sizeof what, "bit %zu of byte %zu flipped", i % 8, i);
        check_damaged(ctx, bad, n, what);
    }
    /* chunks out of place, their CRCs made again so that only the order
     * is wrong: a WONE (a single-chunk file's chunk) after the header, and
     * a file of 4096 bytes or more that starts with one */
    for (unsigned k = 0; k < 2; k++) {
        memcpy(bad, file, n);
        retype_chunk(bad, n, k, "WONE");
        snprintf(what, sizeof what, "chunk %u made a WONE", k);
        check_damaged(ctx, bad, n, what);
    }
    /* bytes after WEND */
    uint8_t *longer = malloc(n + 5);
    memcpy(longer, file, n);
    memset(longer + n, 0, 5);
    check_damaged(ctx, longer, n + 5, "5 bytes after WEND");
    free(longer);
    free(bad);
    wc_free(file);
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

/* The three WDAT chunks of a 3-component file: their offsets. */
static void find_data_chunks(const uint8_t *file, size_t n, size_t dat[3])
{
    size_t nd = 0;
    for (size_t off = 8; off + 12 <= n;) {
        const uint32_t len = wc_rd32le(file + off);
        if (!memcmp(file + off + 4, "WDAT", 4) && nd < 3) dat[nd++] = off;
        off += 12 + (size_t)len;
    }
    assert_int_equal(nd, 3);
}

/* One byte of the data chunk at off changed, its CRC made again. */
static void damage_byte(uint8_t *file, size_t off, size_t at, uint8_t x)
{
    const uint32_t len = wc_rd32le(file + off);
    file[off + 8 + at] ^= x;
    wc_wr32le(file + off + 8 + len, (uint32_t)crc32(0L, file + off + 4, len + 4));
}

/* A lossy 150x200 RGB file of many 16x16 code blocks, for damage. */
static uint8_t *encode_rgb_blocks(wc_ctx *ctx, uint64_t seed, wc_image *im, size_t *n)
{
    make_image(im, 150, 200, 3, 8, seed);
    wc_params p;
    wc_params_init(&p);
    p.quality = 85;
    p.block_size = 16;
    return encode(ctx, &p, im, n);
}

/* Damage the CRCs do not see (bytes of a code block changed, the chunk's
 * CRC made again): the stream finds it when a strip decodes the block,
 * after some rows went out; whatever wc_decode says of such a file, the
 * stream says the same (the same status and message, or the same rows). */
static void test_block_damage(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    size_t n;
    uint8_t *file = encode_rgb_blocks(ctx, 21, &im, &n);
    uint8_t *bad = malloc(n);
    size_t dat[3];
    find_data_chunks(file, n, dat);
    test_rng r;
    test_rng_seed(&r, 77);
    int errors = 0;
    for (int k = 0; k < 60; k++) {
        memcpy(bad, file, n);
        const size_t off = dat[k % 3];
        const uint32_t len = wc_rd32le(bad + off);
        const size_t at = (size_t)test_rng_range(&r, 0, (int32_t)len - 1);
        damage_byte(bad, off, at, (uint8_t)test_rng_range(&r, 1, 255));
        wc_image ref;
        wc_status want = wc_decode(ctx, NULL, bad, n, &ref);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", wc_ctx_error(ctx));
        mem_src m = {bad, n, 0};
        wc_stream_source src = {mem_read, &m, n};
        collect c;
        memset(&c, 0, sizeof c);
        wc_stream_sink sink = {on_begin, on_rows, &c};
        wc_status got = wc_decode_stream(ctx, NULL, &src, &sink, NULL);
        if (got != want || (want != WC_OK && strcmp(msg, wc_ctx_error(ctx)) != 0))
            fail_msg("byte %zu of chunk data: wc_decode %d \"%s\", the stream %d \"%s\"", at, want,
                     msg, got, wc_ctx_error(ctx));
        if (want == WC_OK) {
            assert_int_equal(c.next_row, ref.height);
            assert_memory_equal(ref.pixels, c.img.pixels, wc_image_row_bytes(&ref) * ref.height);
            wc_image_free(&ref);
        } else {
            errors++;
        }
        wc_image_free(&c.img);
    }
    assert_true(errors > 0); /* some of the damage was found */
    free(bad);
    wc_free(file);
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

/* What a decode said: its status and message. */
typedef struct verdict {
    wc_status s;
    char msg[512];
} verdict;

static verdict whole_verdict(wc_ctx *ctx, const uint8_t *file, size_t n, int threads)
{
    wc_params p;
    wc_params_init(&p);
    p.threads = threads;
    wc_image img;
    verdict v = {wc_decode(ctx, &p, file, n, &img), {0}};
    snprintf(v.msg, sizeof v.msg, "%s", v.s == WC_OK ? "" : wc_ctx_error(ctx));
    if (v.s == WC_OK) wc_image_free(&img);
    return v;
}

static verdict stream_verdict(wc_ctx *ctx, const uint8_t *file, size_t n, int threads)
{
    wc_params p;
    wc_params_init(&p);
    p.threads = threads;
    mem_src m = {file, n, 0};
    wc_stream_source src = {mem_read, &m, n};
    collect c;
    memset(&c, 0, sizeof c);
    wc_stream_sink sink = {on_begin, on_rows, &c};
    verdict v = {wc_decode_stream(ctx, &p, &src, &sink, NULL), {0}};
    snprintf(v.msg, sizeof v.msg, "%s", v.s == WC_OK ? "" : wc_ctx_error(ctx));
    wc_image_free(&c.img);
    return v;
}

/* Several damaged blocks behind good CRCs: the bottom of component 0's
 * data (met by the last strip), the middle of component 1's, the top of
 * component 2's (met by the first strip). wc_decode names the failing
 * block of the lowest index, which is the first of the three that fails
 * alone, on 1, 2 and 4 threads; the stream names the same block with the
 * same status and message, though it meets component 2's first. */
static void test_several_damaged_blocks(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    size_t n;
    uint8_t *file = encode_rgb_blocks(ctx, 31, &im, &n);
    size_t dat[3];
    find_data_chunks(file, n, dat);
    uint8_t *one = malloc(n), *all = malloc(n);
    test_rng r;
    test_rng_seed(&r, 5);
    static const int threads[3] = {1, 2, 4};
    int lower_named = 0; /* files where the strips meet a higher failing block first */
    for (int k = 0; k < 40; k++) {
        memcpy(all, file, n);
        verdict alone[3];
        int first = -1; /* the first damage that fails alone */
        for (int c = 0; c < 3; c++) {
            const uint32_t len = wc_rd32le(file + dat[c]);
            const int32_t q = (int32_t)len / 4;
            const int32_t lo = c == 0 ? 3 * q : c == 1 ? q : 0, hi = lo + q;
            const size_t at = (size_t)test_rng_range(&r, lo, hi - 1);
            const uint8_t x = (uint8_t)test_rng_range(&r, 1, 255);
            memcpy(one, file, n);
            damage_byte(one, dat[c], at, x);
            damage_byte(all, dat[c], at, x);
            alone[c] = whole_verdict(ctx, one, n, 1);
            if (first < 0 && alone[c].s != WC_OK) first = c;
        }
        const verdict want = whole_verdict(ctx, all, n, 1);
        if (first < 0) {
            assert_int_equal(want.s, WC_OK);
            continue;
        }
        assert_int_equal(want.s, alone[first].s);
        assert_string_equal(want.msg, alone[first].msg);
        if (first < 2 && alone[2].s != WC_OK) lower_named++;
        for (int t = 0; t < 3; t++) {
            const verdict w = whole_verdict(ctx, all, n, threads[t]);
            const verdict s = stream_verdict(ctx, all, n, threads[t]);
            if (w.s != want.s || strcmp(w.msg, want.msg) || s.s != want.s ||
                strcmp(s.msg, want.msg))
                fail_msg("damage %d, %d threads: wc_decode %d \"%s\" (on 1 thread %d \"%s\"), "
                         "the stream %d \"%s\"",
                         k, threads[t], w.s, w.msg, want.s, want.msg, s.s, s.msg);
        }
    }
    assert_true(lower_named > 0); /* the case the strips meet out of order */
    free(one);
    free(all);
    wc_free(file);
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

/* A source that fails, and a sink that refuses, stop the decode with
 * their status; no source or sink is an argument error. */
static int failing_read(void *user, uint64_t off, void *dst, size_t n)
{
    mem_src *m = user;
    if (off > 100) return -1;
    return mem_read(m, off, dst, n);
}

static wc_status refusing_rows(void *user, const wc_image *rows, uint32_t y)
{
    (void)user;
    (void)rows;
    return y > 0 ? WC_ERR_IO : WC_OK;
}

static void test_io_errors(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    make_image(&im, 50, 300, 1, 8, 7);
    wc_params p;
    wc_params_init(&p);
    size_t n;
    uint8_t *file = encode(ctx, &p, &im, &n);
    mem_src m = {file, n, 0};
    wc_stream_source src = {failing_read, &m, n};
    wc_stream_sink sink = {NULL, refusing_rows, NULL};
    assert_int_equal(wc_decode_stream(ctx, NULL, &src, &sink, NULL), WC_ERR_IO);
    assert_non_null(strstr(wc_ctx_error(ctx), "failed"));
    src.read = mem_read;
    assert_int_equal(wc_decode_stream(ctx, NULL, &src, &sink, NULL), WC_ERR_IO);
    assert_non_null(strstr(wc_ctx_error(ctx), "sink"));
    assert_int_equal(wc_decode_stream(ctx, NULL, NULL, &sink, NULL), WC_ERR_ARG);
    assert_int_equal(wc_decode_stream(ctx, NULL, &src, NULL, NULL), WC_ERR_ARG);
    wc_free(file);
    wc_image_free(&im);
    wc_ctx_free(ctx);
}

/* The limit: under the smallest strips' need the decode is refused before
 * it allocates its strips (and says the need); at it, it runs. A strip's
 * buffers grow with the width: a 16x taller image needs about as much. */
static void test_memory_limit(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image im;
    make_image(&im, 300, 64, 3, 8, 11);
    wc_image tall;
    make_image(&tall, 300, 1024, 3, 8, 11);
    wc_params p;
    wc_params_init(&p);
    p.quality = 80;
    p.block_size = 16;
    size_t n, tn;
    uint8_t *file = encode(ctx, &p, &im, &n);
    uint8_t *tfile = encode(ctx, &p, &tall, &tn);
    mem_src m = {file, n, 0}, tm = {tfile, tn, 0};
    wc_stream_source src = {mem_read, &m, n}, tsrc = {mem_read, &tm, tn};
    wc_params q;
    wc_params_init(&q);
    uint32_t rows = 0;
    q.max_memory = 1;
    assert_int_equal(wc_decode_stream_memory(ctx, &q, &src, &rows), 0);
    assert_non_null(strstr(wc_ctx_error(ctx), "memory limit"));
    for (q.max_memory = (uint64_t)64 << 20; wc_decode_stream_memory(ctx, &q, &src, &rows);)
        q.max_memory = wc_decode_stream_memory(ctx, &q, &src, &rows) - 1;
    const uint64_t least = q.max_memory + 1;
    collect c;
    memset(&c, 0, sizeof c);
    wc_stream_sink sink = {on_begin, on_rows, &c};
    assert_int_equal(wc_decode_stream(ctx, &q, &src, &sink, NULL), WC_ERR_LIMIT);
    assert_false(c.began);
    q.max_memory = least;
    assert_int_equal(wc_decode_stream(ctx, &q, &src, &sink, NULL), WC_OK);
    assert_int_equal(c.next_row, 64);
    wc_image_free(&c.img);
    wc_params_init(&q);
    const uint64_t small = wc_decode_stream_memory(ctx, &q, &src, &rows);
    const uint64_t big = wc_decode_stream_memory(ctx, &q, &tsrc, &rows);
    assert_true(small > 0 && big > 0);
    assert_true(big < small * 2);
    wc_free(file);
    wc_free(tfile);
    wc_image_free(&im);
    wc_image_free(&tall);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_equals_decode), cmocka_unit_test(test_every_level_count),
        cmocka_unit_test(test_other_layouts),        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_block_damage),         cmocka_unit_test(test_io_errors),
        cmocka_unit_test(test_memory_limit),         cmocka_unit_test(test_several_damaged_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
