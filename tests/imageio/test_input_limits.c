/*
 * test_input_limits.c -- small inputs that claim large images are refused
 * before they cost memory (issue 11): the 68-byte PNG whose IHDR claims
 * 2147483647 x 1 RGB, /dev/zero given to the decoder, a PNM whose header
 * claims more raster than the file has, and a real 30000 x 30000 gray PNG
 * under a 1 GB memory limit. Each is checked by status, by message and by
 * this process's peak resident size (getrusage), which must stay under
 * 64 MB: the tests run in one process, smallest first, and none of them
 * may allocate an image.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "image_io.h"
#include "wcodec.h"

#define PEAK_MAX_BYTES ((long)64 << 20)

static long peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss * 1024L; /* Linux: kilobytes */
}

static char work_dir[64];

static const char *work_path(const char *name)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", work_dir, name);
    return path;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Appends a PNG chunk (length, type, data, CRC) to f. */
static void put_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t n)
{
    uint8_t head[8];
    put_be32(head, n);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(crc32(0L, Z_NULL, 0), head + 4, 4);
    if (n) crc = crc32(crc, data, n);
    uint8_t tail[4];
    put_be32(tail, (uint32_t)crc);
    assert_int_equal(fwrite(head, 1, 8, f), 8);
    if (n) assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fwrite(tail, 1, 4, f), 4);
}

static void put_ihdr(FILE *f, uint32_t w, uint32_t h, uint8_t depth, uint8_t ctype)
{
    uint8_t ihdr[13] = {0};
    put_be32(ihdr, w);
    put_be32(ihdr + 4, h);
    ihdr[8] = depth;
    ihdr[9] = ctype;
    assert_int_equal(fwrite("\x89PNG\r\n\x1a\n", 1, 8, f), 8);
    put_chunk(f, "IHDR", ihdr, 13);
}

/* The 68-byte PNG of issue 11: IHDR 2147483647 x 1 RGB8, an 11-byte IDAT. */
static const char *write_png68(void)
{
    const char *path = work_path("big68.png");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    put_ihdr(f, 2147483647u, 1, 8, 2);
    static const uint8_t idat[11] = {0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0};
    put_chunk(f, "IDAT", idat, sizeof idat);
    put_chunk(f, "IEND", NULL, 0);
    assert_int_equal(ftell(f), 68);
    fclose(f);
    return path;
}

static void test_png68(void **state)
{
    (void)state;
    const char *path = write_png68();
    wc_image img;
    wc_err err = {{0}};
    /* As a regular file: its size cannot hold the rows its header claims. */
    assert_int_equal(image_read(path, 0, &img, &err), WC_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, "68 bytes cannot hold a 2147483647x1 image"));
    assert_null(img.pixels);
    /* The same bytes from a pipe (no size known): the memory limit. */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    img_source src = {NULL, 0, f, "pipe", 0};
    img_limits lim = {0, WC_DEFAULT_MAX_MEMORY, NULL, NULL};
    err = (wc_err){{0}}; /* a message is kept until cleared: the first failure's */
    assert_int_equal(png_read_src(&src, &lim, &img, &err), WC_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "over the memory limit of 8589934592"));
    fclose(f);
    /* And for an encode: the encoder's own estimate counts too. */
    wc_params p;
    wc_params_init(&p);
    err = (wc_err){{0}};
    assert_int_not_equal(image_read_for_encode(path, &p, &img, &err), WC_OK);
    assert_true(peak_rss_bytes() < PEAK_MAX_BYTES);
}

static void test_dev_zero(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img;
    wc_err err = {{0}};
    assert_int_equal(decode_file(ctx, NULL, "/dev/zero", &img, &err), WC_ERR_FORMAT);
    assert_string_equal(err.msg, "not a wcodec file (bad signature)");
    assert_string_equal(wc_ctx_error(ctx), "not a wcodec file (bad signature)");
    assert_null(img.pixels);
    /* As an image to encode, too. */
    err = (wc_err){{0}};
    assert_int_equal(image_read_for_encode("/dev/zero", NULL, &img, &err), WC_ERR_FORMAT);
    assert_true(peak_rss_bytes() < PEAK_MAX_BYTES);
    wc_ctx_free(ctx);
}

/* A PGM header claiming 40000 x 40000 over 10 bytes of raster: refused
 * from the file's size as a file, and as a pipe after what arrived. */
static void test_pnm_claims(void **state)
{
    (void)state;
    static const char pgm[] = "P5\n40000 40000\n255\n0123456789";
    wc_err err = {{0}};
    wc_image img;
    assert_int_equal(pnm_read_mem((const uint8_t *)pgm, sizeof pgm - 1, 0, &img, &err),
                     WC_ERR_TRUNCATED);
    assert_string_equal(err.msg, "PGM: truncated: 10 of 1600000000 raster bytes");
    img_source pipe = {(const uint8_t *)pgm, sizeof pgm - 1, NULL, "pipe", 0};
    img_limits lim = {0, 0, NULL, NULL};
    memset(&err, 0, sizeof err);
    assert_int_equal(pnm_read_src(&pipe, &lim, &img, &err), WC_ERR_TRUNCATED);
    assert_string_equal(err.msg, "PGM: truncated: 10 of 1600000000 raster bytes");
    assert_null(img.pixels);
    assert_true(peak_rss_bytes() < PEAK_MAX_BYTES);
}

/* TIFF (i14's reader) under i11's limits: a small file claiming
 * 40000 x 40000 is refused without the image being allocated, and a real
 * one is refused from its header by the pixel limit and by the encode's
 * memory estimate (image_read_meta, as 'wcodec encode' reads). */
static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    put_le16(p, (uint16_t)v);
    put_le16(p + 2, (uint16_t)(v >> 16));
}

static void test_tiff_claims(void **state)
{
    (void)state;
    static const uint16_t tags[9][2] = {{256, 4}, {257, 4}, {258, 3}, {259, 3}, {262, 3},
                                        {273, 4}, {277, 3}, {278, 4}, {279, 4}};
    static const uint32_t vals[9] = {40000, 40000, 8, 1, 1, 200, 1, 40000, 1600000000u};
    uint8_t tif[256] = {'I', 'I', 42, 0};
    put_le32(tif + 4, 8);
    put_le16(tif + 8, 9);
    for (int i = 0; i < 9; i++) {
        uint8_t *e = tif + 10 + 12 * i;
        put_le16(e, tags[i][0]);
        put_le16(e + 2, tags[i][1]);
        put_le32(e + 4, 1);
        if (tags[i][1] == 3)
            put_le16(e + 8, (uint16_t)vals[i]);
        else
            put_le32(e + 8, vals[i]);
    }
    FILE *f = fopen(work_path("claims.tif"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(tif, 1, sizeof tif, f), sizeof tif);
    assert_int_equal(fclose(f), 0);
    wc_err err = {{0}};
    wc_image img;
    assert_int_not_equal(image_read_meta(work_path("claims.tif"), NULL, 0, &img, NULL, NULL, &err),
                         WC_OK);
    assert_true(err.msg[0] != '\0');
    assert_null(img.pixels);
    assert_true(peak_rss_bytes() < PEAK_MAX_BYTES);

    char seed[4096];
    snprintf(seed, sizeof seed, "%s/fuzz/corpus/fuzz_tiff/seed_rgb16.tif", WC_TESTS_DIR);
    memset(&err, 0, sizeof err);
    assert_int_equal(image_read_meta(seed, NULL, 0, &img, NULL, NULL, &err), WC_OK);
    const uint64_t pixels = (uint64_t)img.width * img.height;
    wc_image_free(&img);
    wc_params p;
    assert_int_equal(wc_params_init(&p), WC_OK);
    p.max_pixels = pixels - 1;
    memset(&err, 0, sizeof err);
    assert_int_equal(image_read_meta(seed, &p, 0, &img, NULL, NULL, &err), WC_ERR_LIMIT);
    assert_null(img.pixels);
    wc_params_init(&p);
    p.max_memory = pixels; /* less than the pixels alone at 16 bits */
    memset(&err, 0, sizeof err);
    assert_int_equal(image_read_meta(seed, &p, 0, &img, NULL, NULL, &err), WC_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "memory limit"));
    assert_null(img.pixels);
}

/* A real 30000 x 30000 gray PNG (all zero rows, about 900 KB) under a
 * 1 GB limit: refused from its header, before the 900 MB image exists. */
static void test_png_30000(void **state)
{
    (void)state;
    const char *path = work_path("gray30000.png");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    const uint32_t side = 30000;
    put_ihdr(f, side, side, 8, 0);
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 1, Z_DEFLATED, 15, 8, Z_RLE), Z_OK);
    uint8_t *row = calloc(side + 1, 1), *out = malloc(1 << 16);
    assert_true(row && out);
    for (uint32_t y = 0; y < side; y++) {
        z.next_in = row;
        z.avail_in = side + 1;
        const int flush = y + 1 == side ? Z_FINISH : Z_NO_FLUSH;
        int r;
        do {
            z.next_out = out;
            z.avail_out = 1 << 16;
            r = deflate(&z, flush);
            assert_true(r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR);
            uint32_t n = (uint32_t)((1 << 16) - z.avail_out);
            if (n) put_chunk(f, "IDAT", out, n);
        } while (flush == Z_FINISH ? r != Z_STREAM_END : z.avail_out == 0);
    }
    deflateEnd(&z);
    put_chunk(f, "IEND", NULL, 0);
    fclose(f);
    free(row);
    free(out);

    wc_params p;
    wc_params_init(&p);
    p.max_memory = (uint64_t)1 << 30;
    wc_image img;
    wc_err err = {{0}};
    assert_int_equal(image_read_for_encode(path, &p, &img, &err), WC_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "image 30000x30000 x1 8-bit needs about"));
    assert_non_null(strstr(err.msg, "over the memory limit of 1073741824"));
    assert_true(peak_rss_bytes() < PEAK_MAX_BYTES);
    /* The header is read as it is: with no memory limit, a pixel limit one
     * below its size is what refuses it. */
    p.max_memory = 0;
    p.max_pixels = side * side - 1;
    err = (wc_err){{0}};
    assert_int_equal(image_read_for_encode(path, &p, &img, &err), WC_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "exceeds the pixel limit 899999999"));
}

static int setup(void **state)
{
    (void)state;
    snprintf(work_dir, sizeof work_dir, "/tmp/wc_input_limits.XXXXXX");
    return mkdtemp(work_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    unlink(work_path("big68.png"));
    unlink(work_path("gray30000.png"));
    unlink(work_path("claims.tif"));
    return rmdir(work_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dev_zero),    cmocka_unit_test(test_png68),
        cmocka_unit_test(test_pnm_claims),  cmocka_unit_test(test_png_30000),
        cmocka_unit_test(test_tiff_claims),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
