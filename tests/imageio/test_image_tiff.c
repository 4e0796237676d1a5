/*
 * test_image_tiff.c -- TIFF reading and writing (codec/image_tiff.c).
 *
 * Files are made here with libtiff itself, in every layout the reader
 * promises (depths 1..16, gray/GA/RGB/RGBA, strips and tiles, contiguous
 * and planar, none/LZW/deflate/PackBits, both byte orders, min-is-white,
 * several pages), and read back sample for sample. Then our writer's files
 * with metadata, lying headers, every truncation, and what is refused.
 * The readers and writer by rows (image_rows.c, image_tiff.c's
 * tiff_in_rows and tiff_rows): the whole reader's rows, outcome and
 * message on every layout and every damage, the whole writer's bytes.
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
#include <tiffio.h>

#include "image_io.h"
#include "test_support.h"

/* ---- a TIFF in memory, made with libtiff through a temporary file ---------- */

typedef struct tiff_spec {
    uint32_t w, h;
    uint16_t spp, bps, compression, planar;
    uint32_t tile; /* 0: strips of 3 rows */
    int big_endian;
    int min_is_white;
    int pages;            /* 0 = 1 */
    uint16_t fmt;         /* 0 = unsigned */
    uint16_t photometric; /* 0 = from spp */
} tiff_spec;

/* The sample of pixel i, component c, page g for a spec (deterministic). */
static uint32_t sample_of(const tiff_spec *t, size_t i, unsigned c, int g)
{
    uint32_t v = (uint32_t)(i * 2654435761u + c * 40503u + (unsigned)g * 977u);
    return (v >> 7) & ((1u << t->bps) - 1);
}

static uint8_t *make_tiff(const tiff_spec *t, size_t *size)
{
    char path[] = "/tmp/wc_tiff_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    TIFF *tif = TIFFOpen(path, t->big_endian ? "wb" : "wl");
    assert_non_null(tif);
    int pages = t->pages ? t->pages : 1;
    for (int g = 0; g < pages; g++) {
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, t->w);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, t->h);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, t->spp);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, t->bps);
        uint16_t ph = t->photometric    ? t->photometric
                      : t->spp >= 3     ? PHOTOMETRIC_RGB
                      : t->min_is_white ? PHOTOMETRIC_MINISWHITE
                                        : PHOTOMETRIC_MINISBLACK;
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, ph);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, t->planar ? t->planar : PLANARCONFIG_CONTIG);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, t->compression ? t->compression : COMPRESSION_NONE);
        if (t->fmt) TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, t->fmt);
        if (ph == PHOTOMETRIC_PALETTE) {
            static uint16_t map[3][256];
            TIFFSetField(tif, TIFFTAG_COLORMAP, map[0], map[1], map[2]);
        }
        if (t->spp == 2 || t->spp == 4) {
            uint16_t a = EXTRASAMPLE_UNASSALPHA;
            TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &a);
        }
        if (t->tile) {
            TIFFSetField(tif, TIFFTAG_TILEWIDTH, t->tile);
            TIFFSetField(tif, TIFFTAG_TILELENGTH, t->tile);
        } else {
            TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 3);
        }
        const int sep = t->planar == PLANARCONFIG_SEPARATE;
        const unsigned planes = sep ? t->spp : 1, per = sep ? 1 : t->spp;
        if (!t->tile) {
            size_t row = ((size_t)t->w * per * t->bps + 7) / 8;
            uint8_t *buf = calloc(row, 1);
            for (unsigned p = 0; p < planes; p++)
                for (uint32_t y = 0; y < t->h; y++) {
                    memset(buf, 0, row);
                    uint64_t acc = 0;
                    unsigned have = 0;
                    size_t o = 0;
                    for (uint32_t x = 0; x < t->w; x++)
                        for (unsigned c = 0; c < per; c++) {
                            uint32_t v = sample_of(t, (size_t)y * t->w + x, sep ? p : c, g);
                            if (t->bps == 16) {
                                uint16_t s16 = (uint16_t)v;
                                memcpy(buf + o, &s16, 2);
                                o += 2;
                                continue;
                            }
                            acc = acc << t->bps | v;
                            have += t->bps;
                            while (have >= 8) {
                                buf[o++] = (uint8_t)(acc >> (have - 8));
                                have -= 8;
                            }
                        }
                    if (have) buf[o] = (uint8_t)(acc << (8 - have));
                    assert_int_equal(TIFFWriteScanline(tif, buf, y, (uint16_t)p), 1);
                }
            free(buf);
        } else {
            size_t row = ((size_t)t->tile * per * t->bps + 7) / 8;
            uint8_t *buf = calloc(row * t->tile, 1);
            for (unsigned p = 0; p < planes; p++)
                for (uint32_t ty = 0; ty < t->h; ty += t->tile)
                    for (uint32_t tx = 0; tx < t->w; tx += t->tile) {
                        memset(buf, 0, row * t->tile);
                        for (uint32_t r = 0; r < t->tile; r++) {
                            uint64_t acc = 0;
                            unsigned have = 0;
                            uint8_t *d = buf + r * row;
                            for (uint32_t x = 0; x < t->tile; x++)
                                for (unsigned c = 0; c < per; c++) {
                                    uint32_t v = 0;
                                    if (ty + r < t->h && tx + x < t->w)
                                        v = sample_of(t, (size_t)(ty + r) * t->w + tx + x,
                                                      sep ? p : c, g);
                                    if (t->bps == 16) {
                                        uint16_t s16 = (uint16_t)v;
                                        memcpy(d, &s16, 2);
                                        d += 2;
                                        continue;
                                    }
                                    acc = acc << t->bps | v;
                                    have += t->bps;
                                    while (have >= 8) {
                                        *d++ = (uint8_t)(acc >> (have - 8));
                                        have -= 8;
                                    }
                                }
                            if (have) *d = (uint8_t)(acc << (8 - have));
                        }
                        assert_true(TIFFWriteTile(tif, buf, tx, ty, 0, (uint16_t)p) > 0);
                    }
            free(buf);
        }
        assert_int_equal(TIFFWriteDirectory(tif), 1);
    }
    TIFFClose(tif);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(*size);
    assert_int_equal(fread(data, 1, *size, f), *size);
    fclose(f);
    unlink(path);
    return data;
}

static uint32_t img_sample(const wc_image *img, size_t k)
{
    return img->bit_depth > 8 ? ((const uint16_t *)img->pixels)[k]
                              : ((const uint8_t *)img->pixels)[k];
}

static void check_pixels(const tiff_spec *t, const wc_image *img, int g)
{
    assert_int_equal(img->width, t->w);
    assert_int_equal(img->height, t->h);
    assert_int_equal(img->components, t->spp);
    assert_int_equal(img->bit_depth, t->bps);
    const uint32_t max = (1u << t->bps) - 1;
    for (size_t i = 0; i < (size_t)t->w * t->h; i++)
        for (unsigned c = 0; c < t->spp; c++) {
            uint32_t want = sample_of(t, i, c, g);
            if (t->min_is_white && c == 0) want = max - want;
            if (img_sample(img, i * t->spp + c) != want)
                fail_msg("pixel %zu component %u: %u, expected %u (%u-bit, spp %u)", i, c,
                         img_sample(img, i * t->spp + c), want, t->bps, t->spp);
        }
}

static void read_and_check(const tiff_spec *t)
{
    size_t size;
    uint8_t *data = make_tiff(t, &size);
    wc_image img;
    wc_err err = {{0}};
    unsigned pages = 0;
    wc_status s = tiff_read_mem(data, size, 1, 0, &img, NULL, &pages, &err);
    if (s != WC_OK) fail_msg("%s", err.msg);
    assert_int_equal(pages, t->pages ? t->pages : 1);
    check_pixels(t, &img, 0);
    wc_image_free(&img);
    free(data);
}

/* ---- layouts ------------------------------------------------------------------ */

static void test_depths_and_channels(void **state)
{
    (void)state;
    static const uint16_t depths[] = {1, 2, 4, 8, 10, 12, 16};
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
        for (uint16_t spp = 1; spp <= 4; spp++) {
            tiff_spec t = {13, 7, spp, depths[d], COMPRESSION_NONE, 0, 0, 0, 0, 0, 0, 0};
            read_and_check(&t);
        }
}

static void test_compressions_orders_tiles(void **state)
{
    (void)state;
    static const uint16_t comp[] = {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE,
                                    COMPRESSION_PACKBITS};
    static const uint16_t depths[] = {1, 8, 12, 16};
    for (size_t k = 0; k < 4; k++)
        for (size_t d = 0; d < 4; d++)
            for (int be = 0; be < 2; be++)
                for (uint32_t tile = 0; tile <= 16; tile += 16)
                    for (uint16_t planar = 1; planar <= 2; planar++) {
                        tiff_spec t = {37, 21, 3, depths[d], comp[k], planar, tile, be, 0, 0, 0, 0};
                        read_and_check(&t);
                    }
}

static void test_min_is_white_and_alpha(void **state)
{
    (void)state;
    tiff_spec t = {9, 5, 2, 8, COMPRESSION_LZW, 0, 0, 1, 1, 0, 0, 0};
    read_and_check(&t);
    t.spp = 1;
    t.bps = 1;
    read_and_check(&t);
}

static void test_pages(void **state)
{
    (void)state;
    tiff_spec t = {8, 6, 1, 8, COMPRESSION_NONE, 0, 0, 0, 0, 3, 0, 0};
    size_t size;
    uint8_t *data = make_tiff(&t, &size);
    wc_image img;
    wc_err err = {{0}};
    unsigned pages = 0;
    assert_int_equal(tiff_read_mem(data, size, 2, 0, &img, NULL, &pages, &err), WC_OK);
    assert_int_equal(pages, 3);
    check_pixels(&t, &img, 1);
    wc_image_free(&img);
    assert_int_equal(tiff_read_mem(data, size, 4, 0, &img, NULL, &pages, &err), WC_ERR_ARG);
    assert_non_null(strstr(err.msg, "no page 4"));
    assert_null(img.pixels);
    free(data);
}

/* ---- refused ------------------------------------------------------------------ */

static void expect_refused(const tiff_spec *t, wc_status want, const char *words)
{
    size_t size;
    uint8_t *data = make_tiff(t, &size);
    wc_image img;
    wc_err err = {{0}};
    wc_status s = tiff_read_mem(data, size, 1, 0, &img, NULL, NULL, &err);
    if (s != want) fail_msg("status %d, expected %d: %s", (int)s, (int)want, err.msg);
    if (!strstr(err.msg, words)) fail_msg("message '%s' lacks '%s'", err.msg, words);
    assert_null(img.pixels);
    free(data);
}

static void test_refused(void **state)
{
    (void)state;
    tiff_spec t = {8, 8, 1, 8, COMPRESSION_NONE, 0, 0, 0, 0, 0, SAMPLEFORMAT_INT, 0};
    expect_refused(&t, WC_ERR_UNSUPPORTED, "sample format");
    t.fmt = 0;
    t.photometric = PHOTOMETRIC_PALETTE;
    expect_refused(&t, WC_ERR_UNSUPPORTED, "palette");
    t.photometric = PHOTOMETRIC_SEPARATED;
    expect_refused(&t, WC_ERR_UNSUPPORTED, "photometric");
}

/* A header that claims far more pixels than its bytes can hold is refused
 * before the pixels are allocated; one over the pixel limit too. */
static void test_lying_header(void **state)
{
    (void)state;
    tiff_spec t = {64, 64, 3, 16, COMPRESSION_NONE, 0, 0, 0, 0, 0, 0, 0};
    size_t size;
    uint8_t *data = make_tiff(&t, &size);
    /* ImageLength is the second entry of the little-endian first IFD. */
    uint32_t ifd = data[4] | data[5] << 8 | (uint32_t)data[6] << 16 | (uint32_t)data[7] << 24;
    uint8_t *e = data + ifd + 2 + 12;
    assert_int_equal(e[0] | e[1] << 8, TIFFTAG_IMAGELENGTH);
    e[8] = 0x00;
    e[9] = 0x00;
    e[10] = 0x01;
    e[11] = 0x00; /* 65536 rows */
    wc_image img;
    wc_err err = {{0}};
    wc_status s = tiff_read_mem(data, size, 1, 0, &img, NULL, NULL, &err);
    assert_int_not_equal(s, WC_OK);
    assert_null(img.pixels);
    free(data);
    t.h = 64;
    data = make_tiff(&t, &size);
    memset(&err, 0, sizeof err);
    assert_int_equal(tiff_read_mem(data, size, 1, 1000, &img, NULL, NULL, &err), WC_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "limit"));
    free(data);
}

static void test_every_truncation(void **state)
{
    (void)state;
    tiff_spec t = {11, 9, 4, 16, COMPRESSION_LZW, 0, 0, 1, 0, 0, 0, 0};
    size_t size;
    uint8_t *data = make_tiff(&t, &size);
    for (size_t n = 0; n < size; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, data, n);
        wc_image img;
        wc_err err = {{0}};
        wc_status s = tiff_read_mem(cut, n, 1, 0, &img, NULL, NULL, &err);
        if (s == WC_OK)
            wc_image_free(&img); /* a cut in unused bytes */
        else
            assert_true(err.msg[0] != '\0');
        free(cut);
    }
    free(data);
}

/* ---- our writer, with metadata ------------------------------------------------- */

static void test_write_roundtrip(void **state)
{
    (void)state;
    static const uint32_t depths[] = {1, 3, 8, 12, 16};
    for (size_t d = 0; d < 5; d++)
        for (uint32_t comps = 1; comps <= 4; comps++) {
            wc_image img = {17, 10, comps, depths[d], 0, NULL};
            assert_int_equal(wc_image_alloc(&img), WC_OK);
            for (size_t i = 0; i < (size_t)17 * 10 * comps; i++) {
                uint32_t v = (uint32_t)(i * 7919u) & ((1u << depths[d]) - 1);
                if (depths[d] > 8)
                    ((uint16_t *)img.pixels)[i] = (uint16_t)v;
                else
                    ((uint8_t *)img.pixels)[i] = (uint8_t)v;
            }
            uint8_t *buf;
            size_t size;
            wc_err err = {{0}};
            assert_int_equal(tiff_write_mem(&img, NULL, &buf, &size, NULL, &err), WC_OK);
            wc_image back;
            assert_int_equal(tiff_read_mem(buf, size, 1, 0, &back, NULL, NULL, &err), WC_OK);
            assert_int_equal(back.bit_depth, img.bit_depth);
            assert_int_equal(back.components, comps);
            assert_memory_equal(back.pixels, img.pixels, img.stride * img.height);
            wc_image_free(&back);
            wc_free(buf);
            wc_image_free(&img);
        }
}

static void test_write_metadata(void **state)
{
    (void)state;
    wc_image img = {5, 4, 3, 16, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    memset(img.pixels, 0x12, img.stride * img.height);
    wc_meta *m = wc_meta_create();
    uint8_t icc[300];
    for (size_t i = 0; i < sizeof icc; i++) icc[i] = (uint8_t)(i * 31);
    static const char xmp[] = "<x:xmpmeta xmlns:x='adobe:ns:meta/'/>";
    uint8_t res[17], chrm[32], when[7] = {0xE9, 0x07, 11, 24, 1, 2, 3};
    double x = 300, y = 150;
    memcpy(res, &x, 8);
    memcpy(res + 8, &y, 8);
    res[16] = 2;
    static const uint32_t c[8] = {31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000};
    for (int i = 0; i < 8; i++) wc_wr32le(chrm + 4 * i, c[i]);
    assert_int_equal(wc_meta_add(m, WC_META_ICC, 0, "", icc, sizeof icc), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_XMP, 0, "", xmp, strlen(xmp)), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_RESOLUTION, 0, "", res, 17), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_CHROMATICITY, 0, "", chrm, 32), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_TIME, 0, "", when, 7), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_TEXT, WC_META_TEXT_UTF8, "Description", "a test", 6),
                     WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_TEXT, 0, "Comment", "no tag", 6), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_GAMMA, 0, "", "\xa0\x86\x01\x00", 4), WC_OK);
    uint8_t *buf;
    size_t size;
    unsigned dropped = 0;
    wc_err err = {{0}};
    assert_int_equal(tiff_write_mem(&img, m, &buf, &size, &dropped, &err), WC_OK);
    assert_int_equal(dropped, 1u << WC_META_TEXT | 1u << WC_META_GAMMA);
    wc_meta *back = wc_meta_create();
    wc_image out;
    assert_int_equal(tiff_read_mem(buf, size, 1, 0, &out, back, NULL, &err), WC_OK);
    const wc_meta_item *it = wc_meta_find(back, WC_META_ICC, NULL);
    assert_non_null(it);
    assert_int_equal(it->size, sizeof icc);
    assert_memory_equal(it->data, icc, sizeof icc);
    it = wc_meta_find(back, WC_META_XMP, NULL);
    assert_non_null(it);
    assert_memory_equal(it->data, xmp, strlen(xmp));
    it = wc_meta_find(back, WC_META_RESOLUTION, NULL);
    assert_non_null(it);
    assert_memory_equal(it->data, res, 17);
    it = wc_meta_find(back, WC_META_CHROMATICITY, NULL);
    assert_non_null(it);
    assert_memory_equal(it->data, chrm, 32);
    it = wc_meta_find(back, WC_META_TIME, NULL);
    assert_non_null(it);
    assert_memory_equal(it->data, when, 7);
    it = wc_meta_find(back, WC_META_TEXT, "Description");
    assert_non_null(it);
    assert_memory_equal(it->data, "a test", 6);
    assert_null(wc_meta_find(back, WC_META_TEXT, "Comment"));
    wc_image_free(&out);
    wc_meta_free(back);
    wc_meta_free(m);
    wc_free(buf);
    wc_image_free(&img);
}

/* A TIFF with an EXIF directory, written the way libtiff documents. */
static uint8_t *make_exif_tiff(const char *mode, size_t *size)
{
    char path[] = "/tmp/wc_exif_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    TIFF *t = TIFFOpen(path, mode);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 8);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 4);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_EXIFIFD, (uint64_t)0);
    uint8_t row[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (uint32_t y = 0; y < 4; y++) assert_int_equal(TIFFWriteScanline(t, row, y, 0), 1);
    assert_true(TIFFWriteDirectory(t));
    assert_int_equal(TIFFCreateEXIFDirectory(t), 0);
    uint16_t iso[1] = {400};
    TIFFSetField(t, EXIFTAG_DATETIMEORIGINAL, "2026:11:24 01:02:03");
    TIFFSetField(t, EXIFTAG_ISOSPEEDRATINGS, 1, iso);
    TIFFSetField(t, EXIFTAG_EXPOSURETIME, 0.004);
    uint64_t off = 0;
    assert_true(TIFFWriteCustomDirectory(t, &off));
    assert_true(TIFFSetDirectory(t, 0));
    TIFFSetField(t, TIFFTAG_EXIFIFD, off);
    assert_true(TIFFRewriteDirectory(t));
    TIFFClose(t);
    FILE *f = fopen(path, "rb");
    static uint8_t buf[4096];
    *size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    unlink(path);
    uint8_t *copy = malloc(*size);
    memcpy(copy, buf, *size);
    return copy;
}

/* libtiff's view of a file's EXIF: DateTimeOriginal, ISO, exposure. */
static void check_exif_fields(const uint8_t *file, size_t size)
{
    char path[] = "/tmp/wc_exif_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0 && write(fd, file, size) == (ssize_t)size);
    close(fd);
    TIFF *t = TIFFOpen(path, "r");
    assert_non_null(t);
    uint64_t off = 0;
    assert_true(TIFFGetField(t, TIFFTAG_EXIFIFD, &off));
    assert_true(TIFFReadEXIFDirectory(t, off));
    char *when;
    uint16_t n, *iso;
    /* libtiff hands EXIF rationals back as float (4.5) or double: ask. */
    union {
        float f;
        double d;
    } exposure_v = {0};
    assert_true(TIFFGetField(t, EXIFTAG_DATETIMEORIGINAL, &when));
    assert_string_equal(when, "2026:11:24 01:02:03");
    assert_true(TIFFGetField(t, EXIFTAG_ISOSPEEDRATINGS, &n, &iso));
    assert_int_equal(n, 1);
    assert_int_equal(iso[0], 400);
    assert_true(TIFFGetField(t, EXIFTAG_EXPOSURETIME, &exposure_v));
    double exposure = TIFFFieldSetGetSize(TIFFFieldWithTag(t, EXIFTAG_EXPOSURETIME)) == 8
                          ? exposure_v.d
                          : (double)exposure_v.f;
    assert_true(exposure > 0.00399 && exposure < 0.00401);
    TIFFClose(t);
    unlink(path);
}

/* EXIF from a TIFF of either byte order becomes a block (as PNG's eXIf
 * holds it) and goes into our little-endian TIFF, where libtiff finds the
 * same fields; the block survives a PNG too. */
static void test_exif(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        size_t size;
        uint8_t *data = make_exif_tiff(be ? "wb" : "wl", &size);
        check_exif_fields(data, size);
        wc_image img;
        wc_meta *m = wc_meta_create();
        wc_err err = {{0}};
        assert_int_equal(tiff_read_mem(data, size, 1, 0, &img, m, NULL, &err), WC_OK);
        const wc_meta_item *x = wc_meta_find(m, WC_META_EXIF, NULL);
        assert_non_null(x);
        assert_memory_equal(x->data, be ? "MM\0*" : "II*\0", 4);
        uint8_t *out;
        size_t n;
        unsigned dropped = 99;
        assert_int_equal(tiff_write_mem(&img, m, &out, &n, &dropped, &err), WC_OK);
        assert_int_equal(dropped, 0);
        check_exif_fields(out, n);
        wc_meta *back = wc_meta_create();
        wc_image again;
        assert_int_equal(tiff_read_mem(out, n, 1, 0, &again, back, NULL, &err), WC_OK);
        assert_memory_equal(again.pixels, img.pixels, 32);
        const wc_meta_item *y = wc_meta_find(back, WC_META_EXIF, NULL);
        assert_non_null(y);
        if (!be) { /* same byte order: the same block */
            assert_int_equal(y->size, x->size);
            assert_memory_equal(y->data, x->data, x->size);
        }
        wc_free(out);
        wc_image_free(&again);
        wc_image_free(&img);
        wc_meta_free(back);
        wc_meta_free(m);
        free(data);
    }
    /* A file larger than twice an item's limit still takes its EXIF (the
     * directory's bound is counted from the file's end). */
    {
        size_t size;
        uint8_t *data = make_exif_tiff("wl", &size);
        wc_meta *m = wc_meta_create();
        wc_image small;
        wc_err err = {{0}};
        assert_int_equal(tiff_read_mem(data, size, 1, 0, &small, m, NULL, &err), WC_OK);
        wc_image big = {3500, 3500, 3, 8, 0, NULL};
        assert_int_equal(wc_image_alloc(&big), WC_OK);
        test_rng r;
        test_rng_seed(&r, 5);
        for (size_t i = 0; i < big.stride * big.height; i++)
            ((uint8_t *)big.pixels)[i] = (uint8_t)test_rng_u32(&r);
        uint8_t *out;
        size_t n;
        unsigned dropped = 99;
        assert_int_equal(tiff_write_mem(&big, m, &out, &n, &dropped, &err), WC_OK);
        assert_true(n > (size_t)2 * WC_META_MAX_VALUE);
        assert_int_equal(dropped, 0);
        check_exif_fields(out, n);
        wc_free(out);
        wc_image_free(&big);
        wc_image_free(&small);
        wc_meta_free(m);
        free(data);
    }
    /* A block with nothing usable is left out, and said so. */
    wc_image img = {2, 2, 1, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    memset(img.pixels, 0, 4);
    wc_meta *m = wc_meta_create();
    assert_int_equal(wc_meta_add(m, WC_META_EXIF, 0, "", "II*\0\x08\0\0\0\0\0", 10), WC_OK);
    uint8_t *out;
    size_t n;
    unsigned dropped = 0;
    wc_err err = {{0}};
    assert_int_equal(tiff_write_mem(&img, m, &out, &n, &dropped, &err), WC_OK);
    assert_int_equal(dropped, 1u << WC_META_EXIF);
    wc_free(out);
    wc_meta_free(m);
    wc_image_free(&img);
}

/* ---- by rows (encoding and decoding in bounded memory) -------------------------- */

/* data in a temporary file (path filled in). */
static void to_file(const uint8_t *data, size_t size, char *path)
{
    strcpy(path, "/tmp/wc_tiff_rows_XXXXXX");
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "wb");
    assert_non_null(fp);
    if (size) assert_int_equal(fwrite(data, 1, size, fp), size);
    fclose(fp);
}

/* The file read by rows against tiff_read_mem: the same outcome; every
 * row the whole image's, the first again after a rewind; when the whole
 * read fails, the row reader fails with its message inside its own. */
static void rows_against_whole(const uint8_t *data, size_t size)
{
    char path[64];
    to_file(data, size, path);
    wc_image whole;
    wc_err werr = {{0}};
    const wc_status ws = tiff_read_mem(data, size, 1, 0, &whole, NULL, NULL, &werr);
    wc_image shape;
    img_rows *r = NULL;
    wc_err rerr = {{0}};
    wc_status rs = img_rows_open(path, &shape, &r, &rerr);
    if (rs == WC_ERR_UNSUPPORTED && strstr(rerr.msg, "not a PNG, TIFF")) {
        /* no TIFF signature left: the command reads it whole, with the
         * whole reader's message */
        if (ws == WC_OK) wc_image_free(&whole);
        assert_int_not_equal(ws, WC_OK);
        unlink(path);
        return;
    }
    if (rs == WC_OK) {
        const size_t rb = wc_image_row_bytes(&shape);
        uint8_t *row = malloc(rb), *first = malloc(rb);
        for (uint32_t y = 0; y < shape.height && rs == WC_OK; y++) {
            rs = img_rows_read(r, row);
            if (rs != WC_OK) {
                snprintf(rerr.msg, sizeof rerr.msg, "%s", img_rows_error(r));
                break;
            }
            if (y == 0) memcpy(first, row, rb);
            if (ws == WC_OK && memcmp(row, (uint8_t *)whole.pixels + (size_t)y * whole.stride, rb))
                fail_msg("row %u differs from the whole read's", y);
        }
        if (rs == WC_OK) {
            assert_int_equal(img_rows_rewind(r), WC_OK);
            assert_int_equal(img_rows_read(r, row), WC_OK);
            assert_memory_equal(row, first, rb);
        }
        free(row);
        free(first);
        img_rows_close(r);
    }
    if (ws != rs) fail_msg("whole: %d (%s), by rows: %d (%s)", ws, werr.msg, rs, rerr.msg);
    if (ws != WC_OK && !strstr(rerr.msg, werr.msg))
        fail_msg("by rows '%s' does not carry the whole read's '%s'", rerr.msg, werr.msg);
    if (ws == WC_OK) wc_image_free(&whole);
    unlink(path);
}

static void test_rows_every_layout(void **state)
{
    (void)state;
    static const uint16_t comp[] = {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE,
                                    COMPRESSION_PACKBITS};
    static const uint16_t depths[] = {1, 4, 8, 12, 16};
    static const uint32_t shapes[][2] = {{1, 1}, {1, 17}, {17, 1}, {37, 21}, {131, 5}};
    for (size_t k = 0; k < 4; k++)
        for (size_t d = 0; d < 5; d++)
            for (uint32_t tile = 0; tile <= 16; tile += 16)
                for (uint16_t planar = 1; planar <= 2; planar++) {
                    const size_t sh = (k + d + tile / 16) % 5;
                    tiff_spec t = {shapes[sh][0],
                                   shapes[sh][1],
                                   (uint16_t)(1 + (k + d) % 4),
                                   depths[d],
                                   comp[k],
                                   planar,
                                   tile,
                                   (int)(d & 1),
                                   0,
                                   0,
                                   0,
                                   0};
                    size_t size;
                    uint8_t *data = make_tiff(&t, &size);
                    rows_against_whole(data, size);
                    free(data);
                }
    tiff_spec w = {9, 5, 2, 8, COMPRESSION_LZW, 0, 0, 1, 1, 0, 0, 0}; /* min-is-white */
    size_t size;
    uint8_t *data = make_tiff(&w, &size);
    rows_against_whole(data, size);
    free(data);
}

/* Every truncation and a flipped byte at every place: the same outcome
 * and message by rows as whole. */
static void test_rows_damage(void **state)
{
    (void)state;
    tiff_spec t = {11, 9, 3, 8, COMPRESSION_LZW, 0, 0, 0, 0, 0, 0, 0};
    size_t size;
    uint8_t *data = make_tiff(&t, &size);
    for (size_t n = 0; n < size; n++) rows_against_whole(data, n);
    uint8_t *bad = malloc(size);
    for (size_t i = 0; i < size; i++) {
        memcpy(bad, data, size);
        bad[i] ^= 0x5A;
        rows_against_whole(bad, size);
    }
    free(bad);
    free(data);
}

/* tiff_rows_* write tiff_write_mem's bytes, metadata included; EXIF is
 * left to the whole writer. */
static void test_rows_writer(void **state)
{
    (void)state;
    static const uint32_t depths[] = {1, 8, 12, 16};
    wc_meta *m = wc_meta_create();
    static const char xmp[] = "<x:xmpmeta xmlns:x='adobe:ns:meta/'/>";
    assert_int_equal(wc_meta_add(m, WC_META_XMP, 0, "", xmp, strlen(xmp)), WC_OK);
    assert_int_equal(wc_meta_add(m, WC_META_TEXT, WC_META_TEXT_UTF8, "Description", "rows", 4),
                     WC_OK);
    for (size_t d = 0; d < 4; d++)
        for (uint32_t comps = 1; comps <= 4; comps++) {
            wc_image img = {comps == 2 ? 1 : 23, comps == 3 ? 1 : 13, comps, depths[d], 0, NULL};
            assert_int_equal(wc_image_alloc(&img), WC_OK);
            for (size_t i = 0; i < (size_t)img.width * img.height * comps; i++) {
                uint32_t v = (uint32_t)(i * 7919u) & ((1u << depths[d]) - 1);
                if (depths[d] > 8)
                    ((uint16_t *)img.pixels)[i] = (uint16_t)v;
                else
                    ((uint8_t *)img.pixels)[i] = (uint8_t)v;
            }
            uint8_t *ref;
            size_t ref_size;
            unsigned ref_drop = 0, drop = 0;
            wc_err err = {{0}};
            assert_int_equal(tiff_write_mem(&img, m, &ref, &ref_size, &ref_drop, &err), WC_OK);
            FILE *fp = tmpfile();
            assert_non_null(fp);
            tiff_row_writer *w = NULL;
            assert_int_equal(tiff_rows_open(fp, "t.tif", &img, m, &w, &err), WC_OK);
            for (uint32_t y = 0; y < img.height; y += 5) { /* rows 5 at a time */
                wc_image rows = img;
                rows.height = img.height - y < 5 ? img.height - y : 5;
                rows.pixels = (uint8_t *)img.pixels + (size_t)y * img.stride;
                assert_int_equal(tiff_rows_put(w, &rows, &err), WC_OK);
            }
            assert_int_equal(tiff_rows_close(w, 1, &drop, &err), WC_OK);
            assert_int_equal(drop, ref_drop);
            assert_int_equal(fseek(fp, 0, SEEK_END), 0);
            assert_int_equal((size_t)ftell(fp), ref_size);
            uint8_t *got = malloc(ref_size);
            rewind(fp);
            assert_int_equal(fread(got, 1, ref_size, fp), ref_size);
            assert_memory_equal(got, ref, ref_size);
            /* a row short: refused at the close */
            rewind(fp);
            assert_int_equal(tiff_rows_open(fp, "t.tif", &img, m, &w, &err), WC_OK);
            assert_int_equal(tiff_rows_close(w, 1, NULL, &err), WC_ERR_ARG);
            fclose(fp);
            free(got);
            wc_free(ref);
            wc_image_free(&img);
        }
    /* EXIF: the whole writer's */
    wc_meta *e = wc_meta_create();
    size_t n;
    uint8_t *ex = make_exif_tiff("wl", &n);
    wc_image exif_img;
    wc_err err = {{0}};
    assert_int_equal(tiff_read_mem(ex, n, 1, 0, &exif_img, e, NULL, &err), WC_OK);
    if (wc_meta_find(e, WC_META_EXIF, NULL)) {
        tiff_row_writer *w = NULL;
        FILE *fp = tmpfile();
        assert_int_equal(tiff_rows_open(fp, "t.tif", &exif_img, e, &w, &err), WC_ERR_UNSUPPORTED);
        fclose(fp);
        /* and a file with EXIF is read whole */
        char path[64];
        to_file(ex, n, path);
        wc_image shape;
        img_rows *r = NULL;
        assert_int_equal(img_rows_open(path, &shape, &r, &err), WC_ERR_UNSUPPORTED);
        unlink(path);
    }
    wc_image_free(&exif_img);
    free(ex);
    wc_meta_free(e);
    wc_meta_free(m);
}

int main(void)
{
    TIFFSetWarningHandler(NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depths_and_channels),
        cmocka_unit_test(test_compressions_orders_tiles),
        cmocka_unit_test(test_min_is_white_and_alpha),
        cmocka_unit_test(test_pages),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_lying_header),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_write_roundtrip),
        cmocka_unit_test(test_write_metadata),
        cmocka_unit_test(test_exif),
        cmocka_unit_test(test_rows_every_layout),
        cmocka_unit_test(test_rows_damage),
        cmocka_unit_test(test_rows_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
