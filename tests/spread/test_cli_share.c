/*
 * test_cli_share.c -- how a batch's files are shared among MPI ranks
 * (programs/cli_share.c): pixel counts from the headers of PNG, PPM, TIFF
 * (both byte orders' writer: little-endian) and .wcx files, nothing for
 * anything else, and the deal (largest first to the least-loaded rank),
 * exactly as documented and within 4/3 of the best split on random sizes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_batch.h"
#include "image_io.h"
#include "test_support.h"

static char g_dir[] = "/tmp/wc_share_XXXXXX";

static const char *tmp_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A w x h RGB image with some texture. */
static void make_image(wc_image *img, uint32_t w, uint32_t h)
{
    *img = (wc_image){w, h, 3, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(img), WC_OK);
    uint8_t *p = img->pixels;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) p[i] = (uint8_t)(i * 7 + i / 13);
}

static void test_pixels_of_each_format(void **state)
{
    (void)state;
    assert_int_equal(cli_image_pixels(test_kodak_path(1)),
                     test_kodak_full() ? 768u * 512u : 256u * 192u);
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    wc_image img;
    make_image(&img, 37, 23);
    assert_int_equal(image_write(tmp_path("a.ppm"), &img, NULL), WC_OK);
    assert_int_equal(cli_image_pixels(tmp_path("a.ppm")), 37 * 23);
    assert_int_equal(image_write(tmp_path("a.png"), &img, NULL), WC_OK);
    assert_int_equal(cli_image_pixels(tmp_path("a.png")), 37 * 23);

    wc_params p;
    wc_params_init(&p);
    void *buf = NULL;
    size_t size = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &buf, &size), WC_OK);
    write_bytes(tmp_path("a.wcx"), buf, size);
    free(buf);
    assert_int_equal(cli_image_pixels(tmp_path("a.wcx")), 37 * 23);

    uint8_t *tif = NULL;
    assert_int_equal(tiff_write_mem(&img, NULL, &tif, &size, NULL, NULL), WC_OK);
    write_bytes(tmp_path("a.tif"), tif, size);
    wc_free(tif);
    assert_int_equal(cli_image_pixels(tmp_path("a.tif")), 37 * 23);

    /* A PGM with a comment in its header. */
    static const char pgm[] = "P5\n# made here\n300 2\n255\n";
    uint8_t raw[sizeof pgm - 1 + 600];
    memcpy(raw, pgm, sizeof pgm - 1);
    memset(raw + sizeof pgm - 1, 9, 600);
    write_bytes(tmp_path("b.pgm"), raw, sizeof raw);
    assert_int_equal(cli_image_pixels(tmp_path("b.pgm")), 600);

    write_bytes(tmp_path("junk.png"), "not an image at all", 19);
    assert_int_equal(cli_image_pixels(tmp_path("junk.png")), 0);
    assert_int_equal(cli_image_pixels(tmp_path("missing.png")), 0);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

static void test_deal_as_documented(void **state)
{
    (void)state;
    /* Sorted: 50 (file 1), 30 (2), 30 (3), 10 (0), 0 -> 1 (4). */
    const uint64_t px[5] = {10, 50, 30, 30, 0};
    size_t order[5];
    int owner[5];
    uint64_t load[2];
    assert_int_equal(cli_deal(px, 5, 2, order, owner, load), 0);
    const size_t want_order[5] = {1, 2, 3, 0, 4};
    for (int k = 0; k < 5; k++) assert_int_equal(order[k], want_order[k]);
    /* 1 -> 0 (50); 2 -> 1 (30); 3 -> 1 (60); 0 -> 0 (60); 4: a tie -> 0. */
    const int want_owner[5] = {0, 0, 1, 1, 0};
    for (int i = 0; i < 5; i++) assert_int_equal(owner[i], want_owner[i]);
    assert_int_equal(load[0], 61);
    assert_int_equal(load[1], 60);

    /* One rank takes everything; more ranks than files leave some idle. */
    uint64_t l1[1], l8[8];
    assert_int_equal(cli_deal(px, 5, 1, order, owner, l1), 0);
    for (int i = 0; i < 5; i++) assert_int_equal(owner[i], 0);
    assert_int_equal(l1[0], 121);
    assert_int_equal(cli_deal(px, 5, 8, order, owner, l8), 0);
    for (int q = 5; q < 8; q++) assert_int_equal(l8[q], 0);
}

/* Greedy largest-first is within 4/3 - 1/(3m) of the best makespan
 * (Graham); the best is at least max(total/m, the largest file). */
static void test_deal_balances_random_sizes(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 18);
    enum { N = 500 };
    uint64_t px[N];
    size_t order[N];
    int owner[N];
    for (int ranks = 2; ranks <= 7; ranks++) {
        uint64_t total = 0, largest = 0, load[7], worst = 0;
        for (int i = 0; i < N; i++) {
            px[i] = 1 + test_rng_u32(&rng) % 5000000u;
            total += px[i];
            if (px[i] > largest) largest = px[i];
        }
        assert_int_equal(cli_deal(px, N, ranks, order, owner, load), 0);
        uint64_t sum = 0;
        for (int q = 0; q < ranks; q++) {
            sum += load[q];
            if (load[q] > worst) worst = load[q];
        }
        assert_int_equal(sum, total);
        const double best = (double)total / ranks > largest ? (double)total / ranks : largest;
        assert_true(worst <= best * (4.0 / 3.0));
    }
}

int main(void)
{
    if (!mkdtemp(g_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pixels_of_each_format),
        cmocka_unit_test(test_deal_as_documented),
        cmocka_unit_test(test_deal_balances_random_sizes),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    static const char *const names[] = {"a.ppm", "a.png", "a.wcx", "a.tif", "b.pgm", "junk.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tmp_path(names[i]));
    rmdir(g_dir);
    return r;
}
