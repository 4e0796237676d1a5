/*
 * test_stream_encode.c -- wc_encode_rows (codec/stream_encoder.c) writes
 * wc_encode's bytes: lossless and lossy, 5/3 and 9/7, Huffman, tiled
 * Huffman and deflate, every level count of small images, sizes 1x1, 1xN,
 * Nx1, odd and prime, 8 and 16 bits, 1 to 4 components on 1 to 3 workers,
 * the payload in memory and in a caller's store, metadata; a failing
 * reader, store, sink or allocation gives an error naming the problem
 * (and, but for the sink, nothing written); unsupported modes are refused.
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
#include "wc_common.h" /* wc_alloc_fail_after */
#include "wcodec.h"

/* Rows from an image in memory; fails at row fail_at (when >= 0). */
typedef struct rows {
    const wc_image *img;
    uint32_t y;
    int64_t fail_at;
    int rewinds;
} rows;

static wc_status read_row(void *user, void *row)
{
    rows *r = user;
    if (r->fail_at >= 0 && r->y == (uint64_t)r->fail_at) return WC_ERR_TRUNCATED;
    const size_t n = wc_image_row_bytes(r->img);
    memcpy(row, (const uint8_t *)r->img->pixels + (size_t)r->y * n, n);
    r->y++;
    return WC_OK;
}

static wc_status rewind_rows(void *user)
{
    rows *r = user;
    r->y = 0;
    r->rewinds++;
    return WC_OK;
}

typedef struct buf {
    uint8_t *data;
    size_t size, cap;
    int fail;
} buf;

static wc_status buf_append(void *user, const void *data, size_t n)
{
    buf *b = user;
    if (b->fail) return WC_ERR_IO;
    if (b->size + n > b->cap) {
        b->cap = (b->size + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->size, data, n);
    b->size += n;
    return WC_OK;
}

static wc_status buf_read(void *user, uint64_t off, void *data, size_t n)
{
    buf *b = user;
    if (off + n > b->size) return WC_ERR_IO;
    memcpy(data, b->data + off, n);
    return WC_OK;
}

static wc_image make_image(test_rng *r, uint32_t w, uint32_t h, uint32_t nc, uint32_t depth)
{
    wc_image img = {w, h, nc, depth, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    const uint32_t maxv = (1u << depth) - 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < nc; c++) {
                /* smooth with noise: every band gets something to code */
                uint32_t v = (uint32_t)((x * 7 + y * 3 + c * 50) % (maxv + 1));
                v = (v + (uint32_t)test_rng_range(r, 0, (int32_t)(maxv / 16 + 1))) % (maxv + 1);
                test_put_sample(img.pixels, ((size_t)y * w + x) * nc + c, depth, v);
            }
    return img;
}

/* Encodes img both ways and asserts the same bytes. */
static void check_same(wc_ctx *ctx, const wc_params *p, const wc_image *img, int use_store)
{
    void *ref = NULL;
    size_t ref_size = 0;
    if (wc_encode_alloc(ctx, p, img, &ref, &ref_size) != WC_OK)
        fail_msg("%ux%u x%u: %s", img->width, img->height, img->components, wc_ctx_error(ctx));
    assert_true(wc_encode_rows_supported(img, p));
    rows r = {img, 0, -1, 0};
    wc_row_source src = {read_row, rewind_rows, &r};
    buf out = {0}, spill = {0};
    wc_byte_store store = {buf_append, buf_read, &spill};
    wc_status s = wc_encode_rows(ctx, p, img, &src, use_store ? &store : NULL, buf_append, &out);
    if (s != WC_OK) fail_msg("%s", wc_ctx_error(ctx));
    if (p->bpp > 0 && !p->lossless) /* histograms, a window of counts or more, then coding */
        assert_true(r.rewinds >= 2);
    else
        assert_int_equal(r.rewinds, p->entropy == WC_ENTROPY_DEFLATE ? 0 : 1);
    if (out.size != ref_size || memcmp(out.data, ref, ref_size))
        fail_msg("%ux%u x%u %u-bit lossless %d levels %d entropy %d: %zu bytes by rows, %zu whole",
                 img->width, img->height, img->components, img->bit_depth, p->lossless, p->levels,
                 (int)p->entropy, out.size, ref_size);
    /* (a bpp target may leave a tiny image's every block empty) */
    if (use_store && !(p->bpp > 0)) assert_true(spill.size > 0);
    wc_free(ref);
    free(out.data);
    free(spill.data);
}

static const uint32_t sizes[][2] = {{1, 1},   {1, 17},  {17, 1},   {2, 2},   {7, 5},
                                    {33, 65}, {64, 31}, {131, 37}, {97, 101}};

static void test_rows_equal_whole(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 5);
    wc_ctx *ctx = wc_ctx_create();
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (uint32_t nc = 1; nc <= 4; nc++) {
            const uint32_t depth = (k + nc) % 3 == 0 ? 16 : (k + nc) % 3 == 1 ? 8 : 10;
            wc_image img = make_image(&r, sizes[k][0], sizes[k][1], nc, depth);
            wc_params p;
            wc_params_init(&p);
            p.threads = 1 + (int)(k % 3); /* components on 1 to 3 workers */
            /* lossless, 5 levels (capped to the image), and auto */
            p.levels = 5;
            check_same(ctx, &p, &img, (int)(k & 1));
            /* lossy 9/7 at a step, lossy 5/3 at a quality */
            wc_params q = p;
            q.lossless = 0;
            q.step = 3.5f;
            q.wavelet = 97;
            check_same(ctx, &q, &img, (int)(nc & 1));
            q.step = 0;
            q.quality = 60;
            q.wavelet = 53;
            q.threshold = 1.0f;
            check_same(ctx, &q, &img, 0);
            /* the other coders */
            p.entropy = WC_ENTROPY_DEFLATE;
            check_same(ctx, &p, &img, 1);
            p.entropy = WC_ENTROPY_HUFFMAN_TILES;
            p.block_size = 32;
            check_same(ctx, &p, &img, 0);
            wc_image_free(&img);
        }
    }
    wc_ctx_free(ctx);
}

/* The DCT and LOT by strips of 8 rows (codec/stream_dct.c): heights
 * that are and are not multiples of 8 (the mirrored rows below the image
 * come from up to 7 rows above, across strips), under 8 rows (the mirror
 * folds), one block row and several (the LOT's halo), 1 to 4 components
 * (the alpha of 2 and 4 stays on the DWT), quality and step, every coder. */
static void test_rows_dct_lot_equal_whole(void **state)
{
    (void)state;
    static const uint32_t shapes[][2] = {{1, 1},   {1, 19},   {19, 1},   {3, 3},  {8, 8},
                                         {9, 9},   {13, 12},  {16, 24},  {7, 41}, {40, 7},
                                         {33, 65}, {131, 37}, {97, 101}, {5, 203}};
    test_rng r;
    test_rng_seed(&r, 23);
    wc_ctx *ctx = wc_ctx_create();
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        for (uint32_t nc = 1; nc <= 4; nc++) {
            const uint32_t depth = (k + nc) % 3 == 0 ? 16 : (k + nc) % 3 == 1 ? 8 : 12;
            wc_image img = make_image(&r, shapes[k][0], shapes[k][1], nc, depth);
            for (int tf = WC_TRANSFORM_DCT; tf <= WC_TRANSFORM_LOT; tf++) {
                wc_params p;
                wc_params_init(&p);
                p.lossless = 0;
                p.transform = (wc_transform)tf;
                p.threads = 1 + (int)((k + nc) % 3);
                p.levels = 3; /* the alpha's DWT */
                p.quality = 90;
                check_same(ctx, &p, &img, (int)(k & 1));
                p.quality = 35;
                p.threshold = 0.5f;
                p.entropy = WC_ENTROPY_DEFLATE;
                check_same(ctx, &p, &img, (int)(nc & 1));
                p.quality = 0;
                p.step = 0.75f;
                p.threshold = 0;
                p.entropy = WC_ENTROPY_HUFFMAN_TILES;
                p.block_size = 16;
                check_same(ctx, &p, &img, 0);
                p.step = 12.0f;
                p.entropy = WC_ENTROPY_HUFFMAN;
                p.block_size = 64;
                check_same(ctx, &p, &img, 1);
            }
            wc_image_free(&img);
        }
    }
    wc_ctx_free(ctx);
}

/* The Monolithic scheme by windows of rows (codec/stream_mono.c): heights
 * under, at and over one window (32 rows and 12 of margin each side) and
 * many windows, levels down to a thin level (done whole), lossless 5/3
 * and lossy 9/7, 1 to 4 components, every coder. */
static void test_rows_mono_equal_whole(void **state)
{
    (void)state;
    static const uint32_t shapes[][2] = {{1, 1},   {1, 23},  {23, 1},  {2, 2},   {3, 2},
                                         {5, 7},   {2, 90},  {40, 33}, {33, 56}, {17, 57},
                                         {64, 64}, {9, 203}, {131, 97}};
    test_rng r;
    test_rng_seed(&r, 29);
    wc_ctx *ctx = wc_ctx_create();
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        for (uint32_t nc = 1; nc <= 4; nc++) {
            const uint32_t depth = (k + nc) % 3 == 0 ? 16 : (k + nc) % 3 == 1 ? 8 : 12;
            wc_image img = make_image(&r, shapes[k][0], shapes[k][1], nc, depth);
            wc_params p;
            wc_params_init(&p);
            p.dwt_scheme = WC_DWT_MONOLITHIC;
            p.threads = 1 + (int)((k + nc) % 3);
            p.levels = 1 + (int)((k + nc) % 6);
            check_same(ctx, &p, &img, (int)(k & 1));
            p.entropy = WC_ENTROPY_DEFLATE;
            check_same(ctx, &p, &img, 0);
            wc_params q;
            wc_params_init(&q);
            q.dwt_scheme = WC_DWT_MONOLITHIC;
            q.threads = p.threads;
            q.levels = 6;
            q.lossless = 0;
            q.wavelet = 97;
            q.step = 2.5f;
            check_same(ctx, &q, &img, (int)(nc & 1));
            q.wavelet = 53;
            q.step = 0;
            q.quality = 50;
            q.entropy = WC_ENTROPY_HUFFMAN_TILES;
            q.block_size = 16;
            check_same(ctx, &q, &img, 1);
            wc_image_free(&img);
        }
    }
    wc_ctx_free(ctx);
}

/* A bpp target by rows (ratectl.h's counted rule; the whole-image
 * encode bisects instead): the file is at or under the target, the same
 * on 1 to 3 threads, and exactly the whole encode's at the step the rule
 * chose, on every shape, 5/3 and 9/7, 1 to 4 components; a target no
 * step reaches is refused with the whole encode's words, nothing
 * written. */
static wc_status encode_rows_buf(wc_ctx *ctx, const wc_params *p, const wc_image *img, buf *out,
                                 int *rewinds)
{
    rows rr = {img, 0, -1, 0};
    wc_row_source src = {read_row, rewind_rows, &rr};
    wc_status s = wc_encode_rows(ctx, p, img, &src, NULL, buf_append, out);
    *rewinds = rr.rewinds;
    return s;
}

static void test_rows_bpp_equal_whole(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 23);
    wc_ctx *ctx = wc_ctx_create();
    static const float rates[] = {0.3f, 1.0f, 3.0f};
    int refused = 0, cases = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (uint32_t nc = 1; nc <= 4; nc++) {
            const uint32_t depth = (k + nc) % 2 ? 8 : 12;
            wc_image img = make_image(&r, sizes[k][0], sizes[k][1], nc, depth);
            const double px = (double)img.width * img.height;
            for (size_t j = 0; j < 3; j++, cases++) {
                wc_params p;
                wc_params_init(&p);
                p.lossless = 0;
                p.threads = 1 + (int)((k + j) % 3);
                p.wavelet = (k + j) % 2 ? 53 : 97;
                /* the container's own bytes need room on small images */
                p.bpp = rates[j] > (float)(8 * 2000 / px) ? rates[j] : (float)(8 * 2000 / px);
                p.bpp = p.bpp < 9999.0f ? p.bpp : 9999.0f;
                assert_true(wc_encode_rows_supported(&img, &p));
                buf out = {0};
                int rewinds = 0;
                const wc_status s = encode_rows_buf(ctx, &p, &img, &out, &rewinds);
                if (s == WC_ERR_ARG) {
                    /* no step fits (a tiny image under its tables, a lossless
                     * alpha over the target): refused, nothing written */
                    assert_non_null(strstr(wc_ctx_error(ctx), "below what this image can reach"));
                    assert_int_equal(out.size, 0);
                    free(out.data);
                    refused++;
                    continue;
                }
                if (s != WC_OK) fail_msg("%s", wc_ctx_error(ctx));
                assert_true(rewinds >= 2); /* histograms, a window of counts or more, coding */
                assert_true((double)out.size * 8 <= (double)p.bpp * px);
                /* the whole encode at the chosen step: the same bytes */
                wc_info info;
                assert_int_equal(wc_inspect(ctx, out.data, out.size, &info), WC_OK);
                wc_params q = p;
                q.bpp = 0;
                q.step = info.base_step;
                void *f = NULL;
                size_t n = 0;
                assert_int_equal(wc_encode_alloc(ctx, &q, &img, &f, &n), WC_OK);
                if (n != out.size || memcmp(f, out.data, n))
                    fail_msg("%ux%u x%u bpp %g: %zu bytes by rows, %zu whole at step %g", img.width,
                             img.height, nc, (double)p.bpp, out.size, n, (double)info.base_step);
                wc_free(f);
                /* the thread count changes nothing */
                q = p;
                q.threads = 2;
                buf again = {0};
                assert_int_equal(encode_rows_buf(ctx, &q, &img, &again, &rewinds), WC_OK);
                assert_int_equal(again.size, out.size);
                assert_memory_equal(again.data, out.data, out.size);
                free(again.data);
                free(out.data);
            }
            wc_image_free(&img);
        }
    }
    assert_true(refused < cases / 4);
    /* unreachable: a few bytes for a whole image, refused both ways */
    wc_image img = make_image(&r, 97, 101, 3, 8);
    wc_params p;
    wc_params_init(&p);
    p.lossless = 0;
    p.bpp = 0.001f;
    void *f = NULL;
    size_t n = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &f, &n), WC_ERR_ARG);
    assert_non_null(strstr(wc_ctx_error(ctx), "below what this image can reach"));
    buf out = {0};
    int rewinds = 0;
    assert_int_equal(encode_rows_buf(ctx, &p, &img, &out, &rewinds), WC_ERR_ARG);
    assert_non_null(strstr(wc_ctx_error(ctx), "below what this image can reach"));
    assert_int_equal(out.size, 0);
    free(out.data);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_rows_every_level(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 9);
    wc_ctx *ctx = wc_ctx_create();
    wc_image img = make_image(&r, 45, 29, 3, 8);
    for (int l = 0; l <= 6; l++) {
        wc_params p;
        wc_params_init(&p);
        p.levels = l;
        p.block_size = 16;
        check_same(ctx, &p, &img, 1);
        p.lossless = 0;
        p.step = 2.0f;
        check_same(ctx, &p, &img, 0);
    }
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_rows_auto_is_photograph_layout(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 11);
    wc_ctx *ctx = wc_ctx_create();
    /* large enough and noisy enough not to look synthetic */
    wc_image img = make_image(&r, 300, 200, 3, 8);
    wc_params p;
    wc_params_init(&p);
    p.levels = WC_LEVELS_AUTO;
    check_same(ctx, &p, &img, 1);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_rows_metadata(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 13);
    wc_ctx *ctx = wc_ctx_create();
    wc_image img = make_image(&r, 40, 30, 3, 8);
    wc_meta *m = wc_meta_create();
    assert_int_equal(wc_meta_add(m, WC_META_TEXT, 0, "Title", "rows", 4), WC_OK);
    wc_params p;
    wc_params_init(&p);
    p.levels = 3;
    p.meta = m;
    check_same(ctx, &p, &img, 0);
    wc_meta_free(m);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_rows_failures(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 17);
    wc_ctx *ctx = wc_ctx_create();
    wc_image img = make_image(&r, 50, 40, 1, 8);
    wc_params p;
    wc_params_init(&p);
    p.levels = 3;
    buf out = {0};
    /* a reader that stops: nothing written, the row named */
    rows rr = {&img, 0, 23, 0};
    wc_row_source src = {read_row, rewind_rows, &rr};
    assert_int_equal(wc_encode_rows(ctx, &p, &img, &src, NULL, buf_append, &out), WC_ERR_TRUNCATED);
    assert_non_null(strstr(wc_ctx_error(ctx), "row 23"));
    assert_int_equal(out.size, 0);
    /* no rewind for a two-pass coder */
    rows r2 = {&img, 0, -1, 0};
    wc_row_source norew = {read_row, NULL, &r2};
    assert_int_equal(wc_encode_rows(ctx, &p, &img, &norew, NULL, buf_append, &out), WC_ERR_ARG);
    assert_int_equal(out.size, 0);
    /* a store that refuses */
    rows r3 = {&img, 0, -1, 0};
    wc_row_source src3 = {read_row, rewind_rows, &r3};
    buf bad = {0};
    bad.fail = 1;
    wc_byte_store store = {buf_append, buf_read, &bad};
    assert_int_equal(wc_encode_rows(ctx, &p, &img, &src3, &store, buf_append, &out), WC_ERR_IO);
    assert_non_null(strstr(wc_ctx_error(ctx), "store"));
    /* a sink that refuses */
    rows r4 = {&img, 0, -1, 0};
    wc_row_source src4 = {read_row, rewind_rows, &r4};
    assert_int_equal(wc_encode_rows(ctx, &p, &img, &src4, NULL, buf_append, &bad), WC_ERR_IO);
    /* unsupported: a bpp target with tiled Huffman (the bisection's),
     * device memory, the Explosive scheme; a memory limit too small */
    wc_params q = p;
    q.lossless = 0;
    q.bpp = 1.0f;
    q.entropy = WC_ENTROPY_HUFFMAN_TILES;
    assert_false(wc_encode_rows_supported(&img, &q));
    rows r5 = {&img, 0, -1, 0};
    wc_row_source src5 = {read_row, rewind_rows, &r5};
    assert_int_equal(wc_encode_rows(ctx, &q, &img, &src5, NULL, buf_append, &out),
                     WC_ERR_UNSUPPORTED);
    q.bpp = 0;
    q.memory = WC_MEMORY_DEVICE;
    assert_false(wc_encode_rows_supported(&img, &q));
    /* the Explosive scheme has no form by rows (the separable line DWT
     * would give other bytes): refused, and the whole encode takes it */
    q = p;
    q.dwt_scheme = WC_DWT_EXPLOSIVE;
    assert_false(wc_encode_rows_supported(&img, &q));
    q.dwt_scheme = WC_DWT_MONOLITHIC;
    assert_true(wc_encode_rows_supported(&img, &q));
    q = p;
    q.max_memory = 1000;
    assert_int_equal(wc_encode_rows(ctx, &q, &img, &src5, NULL, buf_append, &out), WC_ERR_LIMIT);
    assert_int_equal(out.size, 0);
    free(out.data);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* Every allocation failing in turn: WC_ERR_NOMEM and nothing written,
 * until there are enough and the file is the whole encode's. */
static void check_out_of_memory(wc_ctx *ctx, const wc_params *pp, const wc_image *im)
{
    const wc_params p = *pp;
    const wc_image img = *im;
    void *ref = NULL;
    size_t ref_size = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &ref, &ref_size), WC_OK);
    wc_status s = WC_ERR_NOMEM;
    for (long n = 0; s == WC_ERR_NOMEM && n < 100000; n++) {
        rows rr = {&img, 0, -1, 0};
        wc_row_source src = {read_row, rewind_rows, &rr};
        buf out = {0};
        wc_alloc_fail_after(n);
        s = wc_encode_rows(ctx, &p, &img, &src, NULL, buf_append, &out);
        wc_alloc_fail_after(-1);
        if (s == WC_ERR_NOMEM) {
            assert_int_equal(out.size, 0);
            assert_non_null(strstr(wc_ctx_error(ctx), "memory"));
        } else {
            assert_int_equal(s, WC_OK);
            assert_int_equal(out.size, ref_size);
            assert_memory_equal(out.data, ref, ref_size);
        }
        free(out.data);
    }
    assert_int_equal(s, WC_OK);
    wc_free(ref);
}

static void test_rows_out_of_memory(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 19);
    wc_ctx *ctx = wc_ctx_create();
    wc_image img = make_image(&r, 37, 23, 3, 8);
    wc_params p;
    wc_params_init(&p);
    p.levels = 2;
    p.threads = 1; /* the injector counts this thread's allocations */
    check_out_of_memory(ctx, &p, &img);
    wc_params q = p; /* the DCT and LOT (stream_dct.c) */
    q.lossless = 0;
    q.transform = WC_TRANSFORM_LOT;
    check_out_of_memory(ctx, &q, &img);
    q = p; /* the Monolithic scheme (stream_mono.c) */
    q.dwt_scheme = WC_DWT_MONOLITHIC;
    check_out_of_memory(ctx, &q, &img);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_rows_memory_grows_with_width(void **state)
{
    (void)state;
    wc_params p;
    wc_params_init(&p);
    wc_image a = {4096, 4096, 3, 8, 0, NULL}, b = {4096, 65536, 3, 8, 0, NULL};
    /* with a store, 16x the height costs little more than the index */
    const uint64_t ma = wc_encode_rows_memory(&a, &p, 1), mb = wc_encode_rows_memory(&b, &p, 1);
    assert_true(ma > 0 && mb > ma);
    assert_true(mb - ma < (uint64_t)4096 * 65536 * 3 / 16);
    assert_true(wc_encode_rows_memory(&a, &p, 0) > ma);
    assert_true(ma < wc_encode_memory(&a, &p) / 4);
    /* the same for the DCT (strips) and the Monolithic scheme (windows) */
    wc_params q = p;
    q.lossless = 0;
    q.transform = WC_TRANSFORM_DCT;
    for (int k = 0; k < 2; k++) {
        const uint64_t qa = wc_encode_rows_memory(&a, &q, 1), qb = wc_encode_rows_memory(&b, &q, 1);
        assert_true(qa > 0 && qb > qa);
        assert_true(qb - qa < (uint64_t)4096 * 65536 * 3 / 16);
        assert_true(qa < wc_encode_memory(&a, &q) / 4);
        q = p;
        q.dwt_scheme = WC_DWT_MONOLITHIC;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_equal_whole),
        cmocka_unit_test(test_rows_dct_lot_equal_whole),
        cmocka_unit_test(test_rows_mono_equal_whole),
        cmocka_unit_test(test_rows_bpp_equal_whole),
        cmocka_unit_test(test_rows_every_level),
        cmocka_unit_test(test_rows_auto_is_photograph_layout),
        cmocka_unit_test(test_rows_metadata),
        cmocka_unit_test(test_rows_failures),
        cmocka_unit_test(test_rows_out_of_memory),
        cmocka_unit_test(test_rows_memory_grows_with_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
