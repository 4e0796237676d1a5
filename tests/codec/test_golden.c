/*
 * test_golden.c -- the golden files of format 1.0 (tests/golden): each
 * still decodes to its recorded pixels, and encoding its source with its
 * parameters still gives the same bytes, on every machine and backend.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../golden/golden_cases.h"
#include "image_io.h"

static void *load(const char *name, const char *ext, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/golden/%s.%s", WC_TESTS_DIR, name, ext);
    void *data = NULL;
    wc_err err = {{0}};
    if (file_read(path, 0, &data, n, &err) != WC_OK) fail_msg("%s", err.msg);
    return data;
}

static void test_golden_decode(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const golden_case *g = &golden_cases[i];
        size_t n;
        void *file = load(g->name, "wcx", &n);
        char path[4096];
        snprintf(path, sizeof path, "%s/golden/%s.png", WC_TESTS_DIR, g->name);
        wc_image want, got;
        assert_int_equal(image_read(path, 0, &want, NULL), WC_OK);
        wc_params p;
        wc_params_init(&p);
        for (int backend = WC_BACKEND_AUTO; backend <= WC_BACKEND_CPU; backend++) {
            p.backend = (wc_backend_kind)backend;
            if (wc_decode(ctx, &p, file, n, &got) != WC_OK)
                fail_msg("%s: %s", g->name, wc_ctx_error(ctx));
            assert_int_equal(got.bit_depth, want.bit_depth);
            assert_int_equal(got.components, want.components);
            assert_memory_equal(got.pixels, want.pixels, wc_image_row_bytes(&want) * want.height);
            wc_image_free(&got);
        }
        if (g->lossless) { /* lossless goldens decode to their source */
            wc_image src;
            assert_int_equal(golden_source(g, &src), WC_OK);
            assert_memory_equal(src.pixels, want.pixels, wc_image_row_bytes(&src) * src.height);
            wc_image_free(&src);
        }
        wc_image_free(&want);
        free(file);
    }
    wc_ctx_free(ctx);
}

/* Archived goldens: they decode, with either backend, to their PNG. */
static void test_golden_archived_decode(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    for (size_t i = 0; i < GOLDEN_ARCHIVED_COUNT; i++) {
        size_t n;
        void *file = load(golden_archived[i], "wcx", &n);
        char path[4096];
        snprintf(path, sizeof path, "%s/golden/%s.png", WC_TESTS_DIR, golden_archived[i]);
        wc_image want, got;
        assert_int_equal(image_read(path, 0, &want, NULL), WC_OK);
        wc_params p;
        wc_params_init(&p);
        for (int backend = WC_BACKEND_AUTO; backend <= WC_BACKEND_CPU; backend++) {
            p.backend = (wc_backend_kind)backend;
            if (wc_decode(ctx, &p, file, n, &got) != WC_OK)
                fail_msg("%s: %s", golden_archived[i], wc_ctx_error(ctx));
            assert_int_equal(got.bit_depth, want.bit_depth);
            assert_int_equal(got.components, want.components);
            assert_memory_equal(got.pixels, want.pixels, wc_image_row_bytes(&want) * want.height);
            wc_image_free(&got);
        }
        wc_image_free(&want);
        free(file);
    }
    wc_ctx_free(ctx);
}

static void test_golden_encode(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const golden_case *g = &golden_cases[i];
        size_t n, m;
        void *want = load(g->name, "wcx", &n);
        wc_image img;
        wc_params p;
        golden_params(g, &p);
        assert_int_equal(golden_source(g, &img), WC_OK);
        void *got;
        assert_int_equal(wc_encode_alloc(ctx, &p, &img, &got, &m), WC_OK);
        if (m != n) fail_msg("%s: %zu bytes, golden file has %zu", g->name, m, n);
        assert_memory_equal(got, want, n);
        free(got);
        free(want);
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* golden_meta.wcx: its items read back as made, the encoder still writes
 * it, and without its WMET chunks it is its case's file byte for byte. */
static void test_golden_meta(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    const golden_case *g = &golden_cases[GOLDEN_META_CASE];
    size_t n, plain_n, m;
    uint8_t *file = load("golden_meta", "wcx", &n);
    uint8_t *plain = load(g->name, "wcx", &plain_n);
    wc_meta *want = wc_meta_create(), *got = wc_meta_create();
    assert_int_equal(golden_meta(want), WC_OK);
    assert_int_equal(wc_meta_read(ctx, file, n, got), WC_OK);
    assert_int_equal(wc_meta_count(got), wc_meta_count(want));
    for (size_t i = 0; i < wc_meta_count(want); i++) {
        const wc_meta_item *a = wc_meta_get(want, i), *b = wc_meta_get(got, i);
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->flags, b->flags);
        assert_string_equal(a->key, b->key);
        assert_int_equal(a->size, b->size);
        assert_memory_equal(a->data, b->data, a->size);
    }
    wc_params p;
    golden_params(g, &p);
    p.meta = want;
    wc_image img;
    void *enc;
    assert_int_equal(golden_source(g, &img), WC_OK);
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &enc, &m), WC_OK);
    assert_int_equal(m, n);
    assert_memory_equal(enc, file, n);
    /* Drop the WMET chunks: the plain file is left. */
    size_t at = 8, out = 8;
    while (at + 12 <= n) {
        size_t len =
            file[at] | file[at + 1] << 8 | (size_t)file[at + 2] << 16 | (size_t)file[at + 3] << 24;
        if (memcmp(file + at + 4, "WMET", 4) != 0) {
            memmove(file + out, file + at, len + 12);
            out += len + 12;
        }
        at += len + 12;
    }
    assert_int_equal(out, plain_n);
    assert_memory_equal(file, plain, plain_n);
    free(enc);
    wc_image_free(&img);
    wc_meta_free(want);
    wc_meta_free(got);
    free(file);
    free(plain);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_decode),
        cmocka_unit_test(test_golden_archived_decode),
        cmocka_unit_test(test_golden_encode),
        cmocka_unit_test(test_golden_meta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
