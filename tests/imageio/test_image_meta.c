/*
 * test_image_meta.c -- images with their metadata from file to .wcx and back
 * (codec/image_file.c, image_meta_png.c, image_tiff.c): the issue's
 * targets. An 8-bit PNG with an ICC profile, resolution, text (all three
 * kinds), gamma, chromaticities, time, EXIF and XMP, made with libpng, and
 * a 16-bit RGB LZW TIFF with an ICC profile, resolution and text, made
 * with libtiff, each round-trip exactly: pixels, and metadata read back by
 * libpng/libtiff from the format's own fields.
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
#include <png.h>
#include <tiffio.h>

#include "image_io.h"
#include "meta_check.h"

/* The last imageio call's message: ERR clears it and passes it. */
static wc_err test_err;
#define ERR (memset(&test_err, 0, sizeof test_err), &test_err)

static char dir[64];

static const char *path_of(const char *name)
{
    static char p[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static uint8_t icc[2000];
static const char xmp[] =
    "<?xpacket begin=''?><x:xmpmeta xmlns:x='adobe:ns:meta/'/><?xpacket end='w'?>";
/* One entry: ExifVersion, UNDEFINED, 4 bytes "0231". */
static const uint8_t exif[] = {'I', 'I', 42, 0, 8, 0,   0,   0,   1,   0, 0x00, 0x90, 7,
                               0,   4,   0,  0, 0, '0', '2', '3', '1', 0, 0,    0,    0};

static void make_png(const char *path)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, f);
    png_set_IHDR(png, info, 33, 17, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_iCCP(png, info, "test profile", 0, icc, sizeof icc);
    png_set_pHYs(png, info, 3780, 3780, PNG_RESOLUTION_METER);
    png_set_gAMA_fixed(png, info, 45455);
    png_set_cHRM_fixed(png, info, 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000);
    png_time t = {2026, 11, 24, 1, 2, 3};
    png_set_tIME(png, info, &t);
    png_set_eXIf_1(png, info, sizeof exif, (png_bytep)exif);
    png_text text[4];
    memset(text, 0, sizeof text);
    text[0].compression = PNG_TEXT_COMPRESSION_NONE;
    text[0].key = "Title";
    text[0].text = "a test image";
    text[1].compression = PNG_TEXT_COMPRESSION_zTXt;
    text[1].key = "Comment";
    text[1].text = "compressed comment, compressed comment, compressed comment";
    text[2].compression = PNG_ITXT_COMPRESSION_NONE;
    text[2].key = "Author";
    text[2].text = "Ren\xc3\xa9";
    text[3].compression = PNG_ITXT_COMPRESSION_NONE;
    text[3].key = "XML:com.adobe.xmp";
    text[3].text = (char *)xmp;
    png_set_text(png, info, text, 4);
    png_write_info(png, info);
    uint8_t row[33 * 3];
    for (int y = 0; y < 17; y++) {
        for (int i = 0; i < 33 * 3; i++) row[i] = (uint8_t)(i * 7 + y * 13);
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    fclose(f);
}

static void make_tiff16(const char *path)
{
    TIFF *t = TIFFOpen(path, "wb"); /* big-endian, to be sure */
    assert_non_null(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 29);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 19);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4);
    TIFFSetField(t, TIFFTAG_ICCPROFILE, (uint32_t)sizeof icc, icc);
    TIFFSetField(t, TIFFTAG_XRESOLUTION, 600.0f);
    TIFFSetField(t, TIFFTAG_YRESOLUTION, 600.0f);
    TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
    TIFFSetField(t, TIFFTAG_IMAGEDESCRIPTION, "a 16-bit scan");
    TIFFSetField(t, TIFFTAG_SOFTWARE, "test_image_meta");
    uint16_t row[29 * 3];
    for (uint32_t y = 0; y < 19; y++) {
        for (int i = 0; i < 29 * 3; i++) row[i] = (uint16_t)(i * 2311u + y * 40009u);
        assert_int_equal(TIFFWriteScanline(t, row, y, 0), 1);
    }
    TIFFClose(t);
}

/* in -> .wcx (lossless, with metadata) -> out; pixels and metadata of out
 * equal in's. */
static void roundtrip(const char *in, const char *wcx, const char *out, size_t want_items)
{
    wc_ctx *ctx = wc_ctx_create();
    wc_meta *m = wc_meta_create(), *fm = wc_meta_create(), *back = wc_meta_create();
    wc_image img, dec, again;
    wc_status s = image_read_meta(in, NULL, 0, &img, m, NULL, ERR);
    if (s != WC_OK) fail_msg("%s", test_err.msg);
    if (wc_meta_count(m) != want_items) {
        for (size_t i = 0; i < wc_meta_count(m); i++)
            print_message("item %zu: %s '%s'\n", i, wc_meta_kind_name(wc_meta_get(m, i)->kind),
                          wc_meta_get(m, i)->key);
        fail_msg("%zu items, expected %zu", wc_meta_count(m), want_items);
    }
    wc_params p;
    wc_params_init(&p);
    p.meta = m;
    void *buf;
    size_t n;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &buf, &n), WC_OK);
    assert_int_equal(file_write(wcx, buf, n, ERR), WC_OK);
    assert_int_equal(wc_decode(ctx, NULL, buf, n, &dec), WC_OK);
    assert_int_equal(wc_meta_read(ctx, buf, n, fm), WC_OK);
    assert_same_meta(m, fm);
    unsigned dropped = 99;
    s = image_write_meta(out, &dec, fm, IMAGE_BY_NAME, &dropped, ERR);
    if (s != WC_OK) fail_msg("%s", test_err.msg);
    assert_int_equal(dropped, 0);
    assert_int_equal(image_read_meta(out, NULL, 0, &again, back, NULL, ERR), WC_OK);
    assert_int_equal(again.bit_depth, img.bit_depth);
    assert_int_equal(again.components, img.components);
    assert_memory_equal(again.pixels, img.pixels, img.stride * img.height);
    assert_same_meta(m, back);
    free(buf);
    wc_image_free(&img);
    wc_image_free(&dec);
    wc_image_free(&again);
    wc_meta_free(m);
    wc_meta_free(fm);
    wc_meta_free(back);
    wc_ctx_free(ctx);
}

static void test_png_roundtrip(void **state)
{
    (void)state;
    const char *in = path_of("in.png"), *wcx = path_of("png.wcx"), *out = path_of("out.png");
    make_png(in);
    /* iCCP, pHYs, gAMA, cHRM, tIME, eXIf, tEXt, zTXt, iTXt, XMP */
    roundtrip(in, wcx, out, 10);
    /* libpng finds them in their own chunks. */
    FILE *f = fopen(out, "rb");
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, f);
    png_read_info(png, info);
    png_charp name;
    int method;
    png_bytep prof;
    png_uint_32 plen, rx, ry;
    int unit;
    assert_true(png_get_iCCP(png, info, &name, &method, &prof, &plen));
    assert_string_equal(name, "test profile");
    assert_int_equal(plen, sizeof icc);
    assert_memory_equal(prof, icc, sizeof icc);
    assert_true(png_get_pHYs(png, info, &rx, &ry, &unit));
    assert_int_equal(rx, 3780);
    assert_int_equal(unit, PNG_RESOLUTION_METER);
    png_textp text;
    int nt = 0;
    png_get_text(png, info, &text, &nt);
    assert_int_equal(nt, 4);
    assert_string_equal(text[1].key, "Comment");
    assert_int_equal(text[1].compression, PNG_TEXT_COMPRESSION_zTXt);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    unlink(in);
    unlink(wcx);
    unlink(out);
}

static void test_tiff16_roundtrip(void **state)
{
    (void)state;
    const char *in = path_of("in.tif"), *wcx = path_of("tif.wcx"), *out = path_of("out.tif");
    make_tiff16(in);
    roundtrip(in, wcx, out, 4); /* ICC, resolution, Description, Software */
    TIFF *t = TIFFOpen(out, "r");
    assert_non_null(t);
    uint32_t n;
    void *p;
    uint16_t bps, unit;
    float xr;
    char *desc;
    assert_true(TIFFGetField(t, TIFFTAG_BITSPERSAMPLE, &bps));
    assert_int_equal(bps, 16);
    assert_true(TIFFGetField(t, TIFFTAG_ICCPROFILE, &n, &p));
    assert_int_equal(n, sizeof icc);
    assert_memory_equal(p, icc, sizeof icc);
    assert_true(TIFFGetField(t, TIFFTAG_XRESOLUTION, &xr));
    assert_true(xr == 600.0f);
    assert_true(TIFFGetField(t, TIFFTAG_RESOLUTIONUNIT, &unit));
    assert_int_equal(unit, RESUNIT_INCH);
    assert_true(TIFFGetField(t, TIFFTAG_IMAGEDESCRIPTION, &desc));
    assert_string_equal(desc, "a 16-bit scan");
    TIFFClose(t);
    unlink(in);
    unlink(wcx);
    unlink(out);
}

/* PNG metadata into a TIFF: what TIFF has no tag for is named, not lost
 * in silence; the rest lands in TIFF's tags and EXIF directory. Into
 * PGM/PPM: all of it. */
static void test_cross_format(void **state)
{
    (void)state;
    const char *in = path_of("x.png"), *tif = path_of("x.tif"), *ppm = path_of("x.ppm");
    make_png(in);
    wc_ctx *ctx = wc_ctx_create();
    wc_meta *m = wc_meta_create(), *back = wc_meta_create();
    wc_image img, again;
    assert_int_equal(image_read_meta(in, NULL, 0, &img, m, NULL, ERR), WC_OK);
    unsigned dropped = 0;
    assert_int_equal(image_write_meta(tif, &img, m, IMAGE_BY_NAME, &dropped, ERR), WC_OK);
    assert_int_equal(dropped, 1u << WC_META_GAMMA | 1u << WC_META_TEXT);
    assert_int_equal(image_read_meta(tif, NULL, 0, &again, back, NULL, ERR), WC_OK);
    assert_memory_equal(again.pixels, img.pixels, img.stride * img.height);
    assert_memory_equal(wc_meta_find(back, WC_META_ICC, NULL)->data, icc, sizeof icc);
    assert_memory_equal(wc_meta_find(back, WC_META_TEXT, "Title")->data, "a test image", 12);
    assert_non_null(wc_meta_find(back, WC_META_XMP, NULL));
    const wc_meta_item *ex = wc_meta_find(back, WC_META_EXIF, NULL); /* eXIf -> EXIF IFD */
    assert_non_null(ex);
    assert_int_equal(ex->size, sizeof exif);
    assert_memory_equal(ex->data, exif, sizeof exif);
    const wc_meta_item *r = wc_meta_find(back, WC_META_RESOLUTION, NULL);
    double x;
    memcpy(&x, r->data, 8);
    assert_true(x > 37.79 && x < 37.81); /* 3780 per metre = 37.8 per cm */
    assert_int_equal(r->data[16], 3);
    assert_int_equal(image_write_meta(ppm, &img, m, IMAGE_BY_NAME, &dropped, ERR), WC_OK);
    assert_true(dropped & (1u << WC_META_ICC));
    /* --page on a PNG is an error that says so. */
    wc_image none;
    assert_int_equal(image_read_meta(in, NULL, 2, &none, NULL, NULL, ERR), WC_ERR_ARG);
    assert_non_null(strstr(test_err.msg, "only TIFF"));
    wc_image_free(&img);
    wc_image_free(&again);
    wc_meta_free(m);
    wc_meta_free(back);
    wc_ctx_free(ctx);
    unlink(in);
    unlink(tif);
    unlink(ppm);
}

/* Damaged metadata in a PNG is named (with the way around it). */
static void test_png_damage(void **state)
{
    (void)state;
    const char *in = path_of("d.png");
    make_png(in);
    FILE *f = fopen(in, "rb");
    uint8_t buf[16384];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    wc_meta *m = wc_meta_create();
    wc_err err = {{0}};
    assert_int_equal(png_meta_read(buf, n, m, &err), WC_OK);
    uint8_t *at = memmem(buf, n, "pHYs", 4);
    assert_non_null(at);
    at[5] ^= 1; /* CRC now wrong */
    wc_meta_clear(m);
    assert_int_equal(png_meta_read(buf, n, m, &err), WC_ERR_CHECKSUM);
    assert_non_null(strstr(err.msg, "pHYs"));
    assert_non_null(strstr(err.msg, "--strip"));
    for (size_t cut = 0; cut < n; cut++) { /* every truncation: an error or fewer items */
        wc_meta_clear(m);
        wc_err e = {{0}};
        (void)png_meta_read(buf, cut, m, &e);
    }
    wc_meta_free(m);
    unlink(in);
}

int main(void)
{
    /* A profile libpng accepts: the header of an RGB display profile
     * (size, class, colour space, PCS, 'acsp', D50), no tags, then bytes
     * that vary so a mix-up would show. */
    for (size_t i = 132; i < sizeof icc; i++) icc[i] = (uint8_t)(i * 131 >> 2);
    static const uint8_t head[] = {0,   0,   0x07, 0xD0, 0,   0,   0,   0,   2,   0x10, 0,   0,
                                   'm', 'n', 't',  'r',  'R', 'G', 'B', ' ', 'X', 'Y',  'Z', ' '};
    memcpy(icc, head, sizeof head);
    memcpy(icc + 36, "acsp", 4);
    static const uint8_t d50[] = {0, 0, 0xF6, 0xD6, 0, 1, 0, 0, 0, 0, 0xD3, 0x2D};
    memcpy(icc + 68, d50, sizeof d50);
    snprintf(dir, sizeof dir, "/tmp/wc_image_meta_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    TIFFSetWarningHandler(NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_roundtrip),
        cmocka_unit_test(test_tiff16_roundtrip),
        cmocka_unit_test(test_cross_format),
        cmocka_unit_test(test_png_damage),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (rmdir(dir) != 0) rc |= 1; /* a test left a file behind */
    return rc;
}
