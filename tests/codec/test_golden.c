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
            if (wc_decode(ctx, &p, file, n, &got) != WC_OK) fail_msg("%s: %s", g->name, wc_ctx_error(ctx));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_decode),
        cmocka_unit_test(test_golden_encode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
