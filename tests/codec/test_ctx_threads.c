/*
 * test_ctx_threads.c -- a context's kept worker threads (common/parallel.c's
 * pool, made current by the API's encode and decode calls): the same bytes
 * and pixels as a context-free one-thread run, call after call on one
 * context, from two contexts on two threads at once, with the calling
 * thread's pool put back after every call. The other entry points with
 * loops (wc_encode_rows, wc_inspect, wc_meta_read) run them on the
 * context's threads too, never on the caller's pool. The large buffers
 * the context keeps between calls (codec/context.h's pool) change no
 * byte either.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parallel.h"
#include "test_support.h"
#include "wcodec.h"

static wc_image make_image(uint32_t w, uint32_t h, int seed)
{
    wc_image im = {w, h, 3, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&im), WC_OK);
    test_rng r;
    test_rng_seed(&r, (uint32_t)seed);
    uint8_t *px = im.pixels;
    for (size_t k = 0; k < (size_t)w * h * 3; k++)
        px[k] = (uint8_t)((k / 3 % w) * 3 + (k / 3 / w) * 2 + (uint32_t)test_rng_range(&r, 0, 9));
    return im;
}

/* Encodes img on ctx with `threads`, decodes it, checks the pixels come
 * back exact; returns the file. */
static void *round_trip(wc_ctx *ctx, const wc_image *img, int threads, size_t *size)
{
    wc_params p;
    wc_params_init(&p);
    p.threads = threads;
    p.backend = WC_BACKEND_CPU;
    void *out = NULL;
    assert_int_equal(wc_encode_alloc(ctx, &p, img, &out, size), WC_OK);
    wc_image back;
    assert_int_equal(wc_decode(ctx, &p, out, *size, &back), WC_OK);
    assert_memory_equal(back.pixels, img->pixels, (size_t)img->width * img->height * 3);
    wc_image_free(&back);
    return out;
}

/* The file a fresh context makes on one thread: what every call on a
 * reused context, at any thread count, must equal. */
static void *fresh_reference(const wc_image *img, size_t *size)
{
    wc_ctx *one = wc_ctx_create();
    void *ref = round_trip(one, img, 1, size);
    wc_ctx_free(one);
    return ref;
}

static void test_same_bytes_call_after_call(void **state)
{
    (void)state;
    wc_image img = make_image(211, 97, 1);
    size_t ref_size;
    void *ref = fresh_reference(&img, &ref_size);
    wc_ctx *ctx = wc_ctx_create();
    for (int r = 0; r < 6; r++) {
        size_t size;
        void *out = round_trip(ctx, &img, 2 + r % 3 * 3, &size);
        assert_int_equal(size, ref_size);
        assert_memory_equal(out, ref, size);
        wc_free(out);
        /* The call put back the thread's pool (none here). */
        assert_null(wc_thread_pool_use(NULL));
    }
    wc_ctx_free(ctx);
    wc_free(ref);
    wc_image_free(&img);
}

/* An image of noisy texture: its payloads (and the entropy workers'
 * symbols and coded blocks) exceed the 1 MiB from which the context's
 * pool keeps buffers between calls. */
static wc_image make_noisy(uint32_t w, uint32_t h, int seed)
{
    wc_image im = {w, h, 3, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&im), WC_OK);
    test_rng r;
    test_rng_seed(&r, (uint32_t)seed);
    uint8_t *px = im.pixels;
    for (size_t k = 0; k < (size_t)w * h * 3; k++)
        px[k] = (uint8_t)((k / 3 % w) + (uint32_t)test_rng_range(&r, 0, 200));
    return im;
}

/* Encodes img on ctx, checks the bytes against ref (when not NULL) and
 * the decoded pixels against want (the image itself lossless); returns
 * the file. */
static void *code_checked(wc_ctx *ctx, const wc_params *p, const wc_image *img, const void *ref,
                          size_t ref_size, const wc_image *want, size_t *size)
{
    void *out = NULL;
    assert_int_equal(wc_encode_alloc(ctx, p, img, &out, size), WC_OK);
    if (ref) {
        assert_int_equal(*size, ref_size);
        assert_memory_equal(out, ref, ref_size);
    }
    if (want) {
        wc_image back;
        assert_int_equal(wc_decode(ctx, p, out, *size, &back), WC_OK);
        assert_memory_equal(back.pixels, want->pixels, (size_t)img->width * img->height * 3);
        wc_image_free(&back);
    }
    return out;
}

/* The context keeps the entropy stage's large buffers (its workers'
 * symbols and coded blocks, the data payloads) in its pool, and the next
 * call takes them back whatever their old contents and sizes: a large
 * and a small image in turn, at 1, 2, 3 and 7 threads (shares of the
 * symbols presized or grown), lossless, 9/7 and deflate, give the bytes
 * of a fresh one-thread context every time. */
static void test_kept_buffers_same_bytes(void **state)
{
    (void)state;
    wc_image img[2] = {make_noisy(1024, 720, 3), make_noisy(211, 97, 4)};
    static const struct {
        int lossless;
        float quality;
        wc_entropy entropy;
    } modes[] = {
        {1, 0, WC_ENTROPY_HUFFMAN},
        {0, 75, WC_ENTROPY_HUFFMAN},
        {1, 0, WC_ENTROPY_DEFLATE},
    };
    static const int threads[] = {1, 2, 3, 7};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        wc_params p;
        wc_params_init(&p);
        p.backend = WC_BACKEND_CPU;
        p.lossless = modes[m].lossless;
        p.quality = modes[m].quality;
        p.entropy = modes[m].entropy;
        p.levels = 5;
        p.threads = 1;
        void *ref[2];
        size_t ref_size[2];
        wc_image want[2];
        for (int i = 0; i < 2; i++) {
            wc_ctx *one = wc_ctx_create();
            ref[i] =
                code_checked(one, &p, &img[i], NULL, 0, p.lossless ? &img[i] : NULL, &ref_size[i]);
            if (p.lossless)
                want[i] = img[i];
            else
                assert_int_equal(wc_decode(one, &p, ref[i], ref_size[i], &want[i]), WC_OK);
            wc_ctx_free(one);
        }
        wc_ctx *ctx = wc_ctx_create();
        for (int r = 0; r < 10; r++) {
            const int i = r % 3 == 2; /* large, large, small, ... */
            p.threads = threads[r % 4];
            size_t size;
            wc_free(code_checked(ctx, &p, &img[i], ref[i], ref_size[i], &want[i], &size));
        }
        wc_ctx_free(ctx);
        for (int i = 0; i < 2; i++) {
            wc_free(ref[i]);
            if (!p.lossless) wc_image_free(&want[i]);
        }
    }
    wc_image_free(&img[0]);
    wc_image_free(&img[1]);
}

static void test_callers_pool_put_back(void **state)
{
    (void)state;
    wc_thread_pool *mine = wc_thread_pool_create();
    assert_non_null(mine);
    assert_null(wc_thread_pool_use(mine));
    wc_image img = make_image(40, 30, 2);
    wc_ctx *ctx = wc_ctx_create();
    size_t size;
    wc_free(round_trip(ctx, &img, 3, &size));
    assert_ptr_equal(wc_thread_pool_use(NULL), mine);
    wc_ctx_free(ctx);
    wc_thread_pool_free(mine);
    wc_image_free(&img);
}

/* wc_encode_rows's source and sink over memory. */
typedef struct rows {
    const wc_image *img;
    uint32_t y;
} rows;

static wc_status read_row(void *user, void *row)
{
    rows *r = user;
    const size_t n = wc_image_row_bytes(r->img);
    memcpy(row, (const uint8_t *)r->img->pixels + (size_t)r->y++ * n, n);
    return WC_OK;
}

static wc_status rewind_rows(void *user)
{
    ((rows *)user)->y = 0;
    return WC_OK;
}

typedef struct sink {
    uint8_t *data;
    size_t size;
} sink;

static wc_status sink_write(void *user, const void *data, size_t n)
{
    sink *s = user;
    uint8_t *grown = realloc(s->data, s->size + n);
    if (!grown) return WC_ERR_NOMEM;
    memcpy(grown + s->size, data, n);
    s->data = grown;
    s->size += n;
    return WC_OK;
}

static void test_other_entry_points_use_ctx_threads(void **state)
{
    (void)state;
    wc_image img = make_image(173, 131, 3);
    size_t ref_size;
    void *ref = fresh_reference(&img, &ref_size);
    /* A pool of the caller's current: the calls must leave it unused
     * (their loops on ctx's threads) and current afterwards. */
    wc_thread_pool *mine = wc_thread_pool_create();
    assert_non_null(mine);
    assert_null(wc_thread_pool_use(mine));
    wc_ctx *ctx = wc_ctx_create();
    for (int threads = 2; threads <= 4; threads++) {
        wc_params p;
        wc_params_init(&p);
        p.threads = threads;
        p.backend = WC_BACKEND_CPU;
        rows r = {&img, 0};
        wc_row_source src = {read_row, rewind_rows, &r};
        sink out = {NULL, 0};
        assert_int_equal(wc_encode_rows(ctx, &p, &img, &src, NULL, sink_write, &out), WC_OK);
        assert_int_equal(out.size, ref_size); /* the whole-image encode's bytes */
        assert_memory_equal(out.data, ref, ref_size);
        wc_info info;
        assert_int_equal(wc_inspect(ctx, out.data, out.size, &info), WC_OK);
        assert_int_equal(info.width, img.width);
        wc_meta *m = wc_meta_create();
        assert_non_null(m);
        assert_int_equal(wc_meta_read(ctx, out.data, out.size, m), WC_OK);
        wc_meta_free(m);
        free(out.data);
        assert_int_equal(wc_thread_pool_size(mine), 0);
        assert_ptr_equal(wc_thread_pool_use(mine), mine);
    }
    assert_ptr_equal(wc_thread_pool_use(NULL), mine);
    wc_ctx_free(ctx);
    wc_thread_pool_free(mine);
    wc_free(ref);
    wc_image_free(&img);
}

typedef struct side {
    const wc_image *img;
    const void *ref;
    size_t ref_size;
    int mismatches;
} side;

static void *side_main(void *arg)
{
    side *s = arg;
    wc_ctx *ctx = wc_ctx_create();
    for (int r = 0; r < 4; r++) {
        wc_params p;
        wc_params_init(&p);
        p.threads = 3;
        p.backend = WC_BACKEND_CPU;
        void *out = NULL;
        size_t size = 0;
        if (wc_encode_alloc(ctx, &p, s->img, &out, &size) != WC_OK || size != s->ref_size ||
            memcmp(out, s->ref, size) != 0)
            s->mismatches++;
        wc_free(out);
    }
    wc_ctx_free(ctx);
    return NULL;
}

static void test_two_contexts_two_threads(void **state)
{
    (void)state;
    wc_image img = make_image(150, 77, 3);
    size_t ref_size;
    void *ref = fresh_reference(&img, &ref_size);
    side s[2] = {{&img, ref, ref_size, 0}, {&img, ref, ref_size, 0}};
    pthread_t tid[2];
    for (int k = 0; k < 2; k++)
        assert_int_equal(pthread_create(&tid[k], NULL, side_main, &s[k]), 0);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(pthread_join(tid[k], NULL), 0);
        assert_int_equal(s[k].mismatches, 0);
    }
    wc_free(ref);
    wc_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes_call_after_call),
        cmocka_unit_test(test_kept_buffers_same_bytes),
        cmocka_unit_test(test_callers_pool_put_back),
        cmocka_unit_test(test_other_entry_points_use_ctx_threads),
        cmocka_unit_test(test_two_contexts_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
