/*
 * make_golden.c -- writes the golden files of golden_cases.h into the
 * directory given (tests/golden). Run it only when the format version
 * changes; test_golden guards the files of the current version.
 */
#include <stdio.h>
#include <stdlib.h>

#include "golden_cases.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_golden DIR\n");
        return 1;
    }
    wc_ctx *ctx = wc_ctx_create();
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const golden_case *g = &golden_cases[i];
        wc_image img, out;
        wc_params p;
        golden_params(g, &p);
        void *file;
        size_t n;
        char path[4096];
        if (golden_source(g, &img) != WC_OK || wc_encode_alloc(ctx, &p, &img, &file, &n) != WC_OK ||
            wc_decode(ctx, &p, file, n, &out) != WC_OK) {
            fprintf(stderr, "make_golden: %s: %s\n", g->name, wc_ctx_error(ctx));
            return 1;
        }
        snprintf(path, sizeof path, "%s/%s.wcx", argv[1], g->name);
        if (wc_file_write(ctx, path, file, n) != WC_OK) return 1;
        snprintf(path, sizeof path, "%s/%s.png", argv[1], g->name);
        if (wc_image_write(ctx, path, &out) != WC_OK) return 1;
        printf("%s: %zu bytes\n", g->name, n);
        free(file);
        wc_image_free(&img);
        wc_image_free(&out);
    }
    /* The metadata golden file. */
    const golden_case *g = &golden_cases[GOLDEN_META_CASE];
    wc_image img;
    wc_params p;
    golden_params(g, &p);
    wc_meta *m = wc_meta_create();
    void *file;
    size_t n;
    char path[4096];
    p.meta = m;
    if (!m || golden_meta(m) != WC_OK || golden_source(g, &img) != WC_OK ||
        wc_encode_alloc(ctx, &p, &img, &file, &n) != WC_OK) {
        fprintf(stderr, "make_golden: golden_meta: %s\n", wc_ctx_error(ctx));
        return 1;
    }
    snprintf(path, sizeof path, "%s/golden_meta.wcx", argv[1]);
    if (wc_file_write(ctx, path, file, n) != WC_OK) return 1;
    printf("golden_meta: %zu bytes\n", n);
    free(file);
    wc_image_free(&img);
    wc_meta_free(m);
    wc_ctx_free(ctx);
    return 0;
}
