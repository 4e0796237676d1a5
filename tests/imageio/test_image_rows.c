/*
 * test_image_rows.c -- input by rows (imageio/image_rows.c, png_in_rows in
 * image_png.c): PNG (gray 8 and 16 bits, GA, RGB, RGBA) and
 * PGM/PPM (8 and 16 bits) give image_read's rows, the same again after a
 * rewind; a truncated file fails with its name; unsupported inputs say so;
 * the temporary store gives back what it was given.
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

#include "image_io.h"
#include "test_support.h"

static wc_image make(uint32_t w, uint32_t h, uint32_t nc, uint32_t depth, uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    wc_image img = {w, h, nc, depth, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    for (size_t i = 0; i < (size_t)w * h * nc; i++)
        test_put_sample(img.pixels, i, depth, test_rng_u32(&r) & ((1u << depth) - 1));
    return img;
}

/* Reads path by rows twice (a rewind between) and compares with img. */
static void check_rows(const char *path, const wc_image *img)
{
    wc_image shape;
    img_rows *r = NULL;
    wc_err e = {{0}};
    wc_status s = img_rows_open(path, &shape, &r, &e);
    if (s != WC_OK) fail_msg("%s: %s", path, e.msg);
    assert_int_equal(shape.width, img->width);
    assert_int_equal(shape.height, img->height);
    assert_int_equal(shape.components, img->components);
    assert_int_equal(shape.bit_depth, img->bit_depth);
    const size_t rb = wc_image_row_bytes(img);
    uint8_t *row = malloc(rb);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t y = 0; y < img->height; y++) {
            s = img_rows_read(r, row);
            if (s != WC_OK) fail_msg("%s row %u: %s", path, y, img_rows_error(r));
            assert_memory_equal(row, (const uint8_t *)img->pixels + (size_t)y * rb, rb);
        }
        assert_int_not_equal(img_rows_read(r, row), WC_OK); /* past the end */
        assert_int_equal(img_rows_rewind(r), WC_OK);
    }
    free(row);
    img_rows_close(r);
}

static void test_rows_png_pnm(void **state)
{
    (void)state;
    static const uint32_t shapes[][4] = {{1, 1, 1, 8},  {17, 5, 3, 8},  {5, 17, 1, 16},
                                         {33, 7, 2, 8}, {31, 9, 4, 16}, {64, 3, 3, 16},
                                         {1, 13, 4, 8}};
    char png[] = "/tmp/wc_rows_XXXXXX";
    int fd = mkstemp(png);
    assert_true(fd >= 0);
    close(fd);
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        wc_image img = make(shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3], k + 1);
        assert_int_equal(png_write_file(png, &img, NULL), WC_OK);
        check_rows(png, &img);
        if (img.components == 1 || img.components == 3) {
            assert_int_equal(pnm_write_file(png, &img, NULL), WC_OK);
            check_rows(png, &img);
        }
        wc_image_free(&img);
    }
    unlink(png);
}

static void test_rows_damage(void **state)
{
    (void)state;
    char path[] = "/tmp/wc_rows_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    wc_image img = make(40, 30, 3, 8, 7);
    /* a PPM cut short: refused at open, naming the file */
    assert_int_equal(pnm_write_file(path, &img, NULL), WC_OK);
    assert_int_equal(truncate(path, 200), 0);
    wc_image shape;
    img_rows *r = NULL;
    wc_err e = {{0}};
    assert_int_equal(img_rows_open(path, &shape, &r, &e), WC_ERR_TRUNCATED);
    assert_non_null(strstr(e.msg, path));
    assert_null(r);
    /* a PNG cut short: a row fails, naming the file */
    assert_int_equal(png_write_file(path, &img, NULL), WC_OK);
    FILE *fp = fopen(path, "rb");
    fseek(fp, 0, SEEK_END);
    const long size = ftell(fp);
    fclose(fp);
    assert_int_equal(truncate(path, size / 2), 0);
    assert_int_equal(img_rows_open(path, &shape, &r, &e), WC_OK);
    uint8_t row[40 * 3];
    wc_status s = WC_OK;
    for (uint32_t y = 0; y < 30 && s == WC_OK; y++) s = img_rows_read(r, row);
    assert_int_not_equal(s, WC_OK);
    assert_non_null(strstr(img_rows_error(r), path));
    img_rows_close(r);
    /* a TIFF header with no directory: refused as the whole reader
     * refuses it, naming the file (test_image_tiff.c compares them on
     * every damage) */
    fp = fopen(path, "wb");
    fwrite("II*\0\0\0\0\0", 1, 8, fp);
    fclose(fp);
    const wc_status ts = img_rows_open(path, &shape, &r, &e);
    assert_true(ts == WC_ERR_CORRUPT || ts == WC_ERR_TRUNCATED);
    assert_non_null(strstr(e.msg, path));
    assert_null(r);
    /* not an image we read by rows: a GIF, standard input */
    fp = fopen(path, "wb");
    fwrite("GIF89a\1\0\1\0", 1, 10, fp);
    fclose(fp);
    assert_int_equal(img_rows_open(path, &shape, &r, &e), WC_ERR_UNSUPPORTED);
    assert_int_equal(img_rows_open("-", &shape, &r, &e), WC_ERR_UNSUPPORTED);
    unlink(path);
    wc_image_free(&img);
}

static void test_tmp_store(void **state)
{
    (void)state;
    tmp_store *st = NULL;
    assert_int_equal(tmp_store_open(&st, NULL), WC_OK);
    uint8_t a[1000], b[1000];
    for (int i = 0; i < 1000; i++) a[i] = (uint8_t)(i * 7);
    assert_int_equal(tmp_store_append(st, a, 600), WC_OK);
    assert_int_equal(tmp_store_read(st, 100, b, 400), WC_OK);
    assert_memory_equal(a + 100, b, 400);
    assert_int_equal(tmp_store_append(st, a + 600, 400), WC_OK); /* after a read */
    assert_int_equal(tmp_store_read(st, 0, b, 1000), WC_OK);
    assert_memory_equal(a, b, 1000);
    assert_int_not_equal(tmp_store_read(st, 900, b, 200), WC_OK); /* past the end */
    tmp_store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_png_pnm),
        cmocka_unit_test(test_rows_damage),
        cmocka_unit_test(test_tmp_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
