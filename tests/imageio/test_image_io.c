/*
 * test_image_io.c -- PNG and PGM/PPM reading and writing (imageio/image_io.h).
 *
 * Round trips through files and memory for every layout and depth, PNGs
 * made directly with libpng for what our writer never produces (palette,
 * tRNS, interlace, a huge IHDR), every truncation of small files, damaged
 * headers, and failed allocations on libpng's longjmp paths.
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

#include "image_io.h"
#include "test_support.h"

/* ---- fixtures: one temporary directory for the whole run ------------------ */

typedef struct io_fixture {
    char dir[64];
    char path[128];
} io_fixture;

static int io_setup(void **state)
{
    io_fixture *f = calloc(1, sizeof *f);
    if (f == NULL) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/wc_image_io_XXXXXX");
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int io_teardown(void **state)
{
    io_fixture *f = *state;
    int rc = rmdir(f->dir); /* fails if a test left a file behind */
    free(f);
    return rc;
}

static const char *tmp_path(void **state, const char *name)
{
    io_fixture *f = *state;
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    return f->path;
}

/* ---- helpers ---------------------------------------------------------------- */

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    long n = ftell(fp);
    assert_true(n > 0);
    rewind(fp);
    uint8_t *buf = malloc((size_t)n);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *size = (size_t)n;
    return buf;
}

static void write_all(const char *path, const void *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, size, fp), size);
    assert_int_equal(fclose(fp), 0);
}

static int contains(const uint8_t *hay, size_t n, const char *needle, size_t k)
{
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0) return 1;
    return 0;
}

static size_t bytes_per_sample(const wc_image *im) { return im->bit_depth > 8 ? 2 : 1; }

static uint32_t sample_at(const wc_image *im, size_t row_stride, uint32_t y, size_t i)
{
    const uint8_t *row = (const uint8_t *)im->pixels + (size_t)y * row_stride;
    if (im->bit_depth <= 8) return row[i];
    uint16_t v;
    memcpy(&v, row + 2 * i, 2);
    return v;
}

static size_t stride_of(const wc_image *im)
{
    return im->stride ? im->stride : (size_t)im->width * im->components * bytes_per_sample(im);
}

/* A random image; the last sample is the maximum so the full range is used. */
static wc_image random_image(uint32_t w, uint32_t h, uint32_t c, uint32_t d, size_t pad,
                             test_rng *rng)
{
    wc_image im = {w, h, c, d, 0, NULL};
    size_t bps = d > 8 ? 2 : 1, row = (size_t)w * c * bps;
    im.stride = row + pad;
    im.pixels = calloc(im.stride, h);
    assert_non_null(im.pixels);
    int32_t maxv = (int32_t)((1u << d) - 1);
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *p = (uint8_t *)im.pixels + (size_t)y * im.stride;
        for (size_t i = 0; i < (size_t)w * c; i++) {
            int32_t v = test_rng_range(rng, 0, maxv);
            if (y == h - 1 && i == (size_t)w * c - 1) v = maxv;
            if (bps == 1)
                p[i] = (uint8_t)v;
            else
                memcpy(p + 2 * i, &(uint16_t){(uint16_t)v}, 2);
        }
    }
    return im;
}

static void assert_same_image(const wc_image *want, const wc_image *got)
{
    assert_int_equal(got->width, want->width);
    assert_int_equal(got->height, want->height);
    assert_int_equal(got->components, want->components);
    assert_int_equal(got->bit_depth, want->bit_depth);
    assert_non_null(got->pixels);
    assert_int_equal(got->stride, (size_t)got->width * got->components * bytes_per_sample(got));
    size_t n = (size_t)want->width * want->components;
    for (uint32_t y = 0; y < want->height; y++)
        for (size_t i = 0; i < n; i++)
            if (sample_at(want, stride_of(want), y, i) != sample_at(got, got->stride, y, i))
                fail_msg("%ux%u c%u d%u: sample %zu of row %u: want %u got %u", want->width,
                         want->height, want->components, want->bit_depth, i, y,
                         sample_at(want, stride_of(want), y, i), sample_at(got, got->stride, y, i));
}

/* ---- PNGs made with libpng directly ------------------------------------------ */

typedef struct membuf {
    uint8_t *p;
    size_t n, cap;
} membuf;

static void mem_write(png_structp png, png_bytep data, size_t n)
{
    membuf *m = png_get_io_ptr(png);
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2;
        m->p = realloc(m->p, m->cap);
        if (m->p == NULL) png_error(png, "test: out of memory");
    }
    memcpy(m->p + m->n, data, n);
    m->n += n;
}

static void mem_flush(png_structp png) { (void)png; }

typedef struct enc_spec {
    uint32_t w, h;
    int depth, ctype, interlace;
    const png_color *pal;
    int npal;
    const uint8_t *trns; /* palette alpha */
    int ntrns;
    const png_color_16 *key; /* gray/RGB colour key */
    uint8_t **rows;          /* one sample per byte, 16-bit big-endian; NULL: header only */
} enc_spec;

static void enc_run(png_structp png, png_infop info, const enc_spec *s, membuf *m)
{
    png_set_write_fn(png, m, mem_write, mem_flush);
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_IHDR(png, info, s->w, s->h, s->depth, s->ctype, s->interlace,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (s->pal != NULL) png_set_PLTE(png, info, s->pal, s->npal);
    if (s->trns != NULL || s->key != NULL) png_set_tRNS(png, info, s->trns, s->ntrns, s->key);
    png_write_info(png, info);
    if (s->rows == NULL) return;
    if (s->depth < 8) png_set_packing(png);
    png_write_image(png, s->rows); /* handles the Adam7 passes itself */
    png_write_end(png, info);
}

static membuf enc_png(const enc_spec *s)
{
    membuf m = {NULL, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    assert_non_null(png);
    png_infop info = png_create_info_struct(png);
    assert_non_null(info);
    if (setjmp(png_jmpbuf(png))) fail_msg("libpng could not write the test image");
    enc_run(png, info, s, &m);
    png_destroy_write_struct(&png, &info);
    return m;
}

/* ---- PNG round trips -------------------------------------------------------- */

static const uint32_t sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {33, 17}, {31, 29}};

static void roundtrip_png(void **state, const wc_image *im)
{
    const char *path = tmp_path(state, "rt.png");
    wc_err err = {{0}};
    assert_int_equal(png_write_file(path, im, &err), WC_OK);
    wc_image got;
    assert_int_equal(png_read_file(path, 0, &got, &err), WC_OK);
    assert_same_image(im, &got);
    wc_free(got.pixels);
    size_t size;
    uint8_t *data = read_all(path, &size);
    assert_int_equal(png_read_mem(data, size, 0, &got, &err), WC_OK);
    assert_same_image(im, &got);
    wc_free(got.pixels);
    free(data);
    assert_int_equal(remove(path), 0);
}

static void test_png_roundtrip_layouts(void **state)
{
    /* Native PNG layouts, then depths written with sBIT. */
    static const uint32_t layouts[][2] = {{1, 1},  {1, 2},  {1, 4},  {1, 8}, {1, 16}, {2, 8},
                                          {2, 16}, {3, 8},  {3, 16}, {4, 8}, {4, 16}, {1, 10},
                                          {1, 3},  {1, 5},  {1, 12}, {2, 4}, {3, 5},  {3, 10},
                                          {4, 1},  {4, 15}, {1, 9},  {2, 13}};
    test_rng rng;
    test_rng_seed(&rng, 1);
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            wc_image im =
                random_image(sizes[s][0], sizes[s][1], layouts[l][0], layouts[l][1], 0, &rng);
            roundtrip_png(state, &im);
            free(im.pixels);
        }
}

static void test_png_roundtrip_stride(void **state)
{
    test_rng rng;
    test_rng_seed(&rng, 2);
    wc_image a = random_image(13, 7, 3, 16, 3, &rng); /* odd padding: unaligned rows */
    wc_image b = random_image(13, 7, 1, 2, 5, &rng);
    roundtrip_png(state, &a);
    roundtrip_png(state, &b);
    free(a.pixels);
    free(b.pixels);
}

/* A 10-bit image is stored as 16-bit PNG with sBIT 10 and unshifted values. */
static void test_png_sbit_in_file(void **state)
{
    const char *path = tmp_path(state, "sbit.png");
    uint16_t px[2] = {1023, 5};
    wc_image im = {2, 1, 1, 10, 0, px};
    assert_int_equal(png_write_file(path, &im, NULL), WC_OK);
    size_t size;
    uint8_t *data = read_all(path, &size);
    assert_true(size > 33);
    assert_int_equal(data[24], 16); /* IHDR bit depth */
    assert_true(contains(data, size, "sBIT\x0a", 5));
    free(data);

    wc_image got;
    assert_int_equal(png_read_file(path, 0, &got, NULL), WC_OK);
    assert_int_equal(got.bit_depth, 10);
    assert_int_equal(((uint16_t *)got.pixels)[0], 1023);
    assert_int_equal(((uint16_t *)got.pixels)[1], 5);
    wc_free(got.pixels);
    assert_int_equal(remove(path), 0);
}

/* ---- PNGs from elsewhere: palette, tRNS, interlace ------------------------- */

static void check_palette(int depth, int ntrns)
{
    static const png_color pal[7] = {{255, 0, 0},     {0, 255, 0},  {0, 0, 255}, {1, 2, 3},
                                     {250, 251, 252}, {9, 99, 199}, {0, 0, 0}};
    static const uint8_t trns[4] = {0, 64, 128, 200};
    enum { W = 11, H = 6 };
    uint8_t idx[H][W], *rows[H];
    test_rng rng;
    test_rng_seed(&rng, 3);
    int npal = depth == 1 ? 2 : 7;
    for (int y = 0; y < H; y++) {
        rows[y] = idx[y];
        for (int x = 0; x < W; x++) idx[y][x] = (uint8_t)test_rng_range(&rng, 0, npal - 1);
    }
    enc_spec s = {W,
                  H,
                  depth,
                  PNG_COLOR_TYPE_PALETTE,
                  PNG_INTERLACE_NONE,
                  pal,
                  npal,
                  ntrns ? trns : NULL,
                  ntrns,
                  NULL,
                  rows};
    membuf m = enc_png(&s);
    wc_image got;
    wc_err err = {{0}};
    assert_int_equal(png_read_mem(m.p, m.n, 0, &got, &err), WC_OK);
    uint32_t c = ntrns ? 4 : 3;
    assert_int_equal(got.components, c);
    assert_int_equal(got.bit_depth, 8);
    assert_int_equal(got.width, W);
    assert_int_equal(got.height, H);
    const uint8_t *p = got.pixels;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++, p += c) {
            const png_color *e = &pal[idx[y][x]];
            assert_int_equal(p[0], e->red);
            assert_int_equal(p[1], e->green);
            assert_int_equal(p[2], e->blue);
            if (c == 4) assert_int_equal(p[3], idx[y][x] < ntrns ? trns[idx[y][x]] : 255);
        }
    wc_free(got.pixels);
    free(m.p);
}

static void test_png_palette(void **state)
{
    (void)state;
    check_palette(8, 0);
    check_palette(8, 4);
    check_palette(4, 0);
    check_palette(4, 4);
    check_palette(1, 1);
}

/* tRNS on RGB is ignored: three components, samples as stored. */
static void test_png_rgb_trns_ignored(void **state)
{
    (void)state;
    uint8_t row0[6] = {10, 20, 30, 40, 50, 60}, *rows[1] = {row0};
    png_color_16 key = {0, 10, 20, 30, 0};
    enc_spec s = {2, 1, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, NULL, 0, NULL, 0, &key, rows};
    membuf m = enc_png(&s);
    wc_image got;
    assert_int_equal(png_read_mem(m.p, m.n, 0, &got, NULL), WC_OK);
    assert_int_equal(got.components, 3);
    assert_memory_equal(got.pixels, row0, 6);
    wc_free(got.pixels);
    free(m.p);
}

/* Writes an Adam7 PNG with libpng and compares what we read to the source. */
static void check_interlaced(int depth, int ctype, uint32_t comps, uint32_t w, uint32_t h)
{
    test_rng rng;
    test_rng_seed(&rng, 4);
    wc_image want = random_image(w, h, comps, (uint32_t)depth, 0, &rng);
    size_t row = stride_of(&want);
    uint8_t *file = malloc(row * h), **rows = malloc(h * sizeof *rows);
    assert_non_null(file);
    assert_non_null(rows);
    for (uint32_t y = 0; y < h; y++) {
        rows[y] = file + y * row;
        for (size_t i = 0; i < (size_t)w * comps; i++) {
            uint32_t v = sample_at(&want, row, y, i);
            if (depth == 16)
                rows[y][2 * i] = (uint8_t)(v >> 8), rows[y][2 * i + 1] = (uint8_t)v;
            else
                rows[y][i] = (uint8_t)v;
        }
    }
    enc_spec s = {w, h, depth, ctype, PNG_INTERLACE_ADAM7, NULL, 0, NULL, 0, NULL, rows};
    membuf m = enc_png(&s);
    assert_int_equal(m.p[28], 1); /* IHDR interlace method */
    wc_image got;
    assert_int_equal(png_read_mem(m.p, m.n, 0, &got, NULL), WC_OK);
    assert_same_image(&want, &got);
    wc_free(got.pixels);
    free(m.p);
    free(rows);
    free(file);
    free(want.pixels);
}

static void test_png_interlaced(void **state)
{
    (void)state;
    check_interlaced(8, PNG_COLOR_TYPE_RGB, 3, 13, 11);
    check_interlaced(16, PNG_COLOR_TYPE_GRAY, 1, 17, 9);
    check_interlaced(2, PNG_COLOR_TYPE_GRAY, 1, 9, 9);
    check_interlaced(16, PNG_COLOR_TYPE_RGB_ALPHA, 4, 3, 2);
}

/* ---- PNG errors ------------------------------------------------------------- */

static uint8_t *small_png(void **state, uint32_t c, uint32_t d, size_t *size)
{
    const char *path = tmp_path(state, "small.png");
    test_rng rng;
    test_rng_seed(&rng, 5);
    wc_image im = random_image(7, 5, c, d, 0, &rng);
    assert_int_equal(png_write_file(path, &im, NULL), WC_OK);
    free(im.pixels);
    uint8_t *data = read_all(path, size);
    assert_int_equal(remove(path), 0);
    return data;
}

static void check_png_prefixes(void **state, uint32_t c, uint32_t d)
{
    size_t size;
    uint8_t *data = small_png(state, c, d, &size);
    const char *path = tmp_path(state, "cut.png");
    for (size_t n = 0; n < size; n++) {
        wc_image got;
        wc_err err = {{0}};
        wc_status s = png_read_mem(data, n, 0, &got, &err);
        if (s != WC_ERR_TRUNCATED && !(n == 0 && s == WC_ERR_FORMAT))
            fail_msg("prefix %zu of %zu: status %d (%s)", n, size, (int)s, err.msg);
        assert_null(got.pixels);
        write_all(path, data, n);
        memset(&err, 0, sizeof err);
        s = png_read_file(path, 0, &got, &err);
        if (s != WC_ERR_TRUNCATED && !(n == 0 && s == WC_ERR_FORMAT))
            fail_msg("file prefix %zu of %zu: status %d (%s)", n, size, (int)s, err.msg);
        assert_int_equal(remove(path), 0);
    }
    free(data);
}

static void test_png_truncation(void **state)
{
    check_png_prefixes(state, 1, 10);
    check_png_prefixes(state, 4, 8);
}

static void test_png_bad_data(void **state)
{
    size_t size;
    uint8_t *data = small_png(state, 3, 8, &size);
    wc_image got;
    wc_err err = {{0}};
    static const uint8_t gif[] = "GIF89a-and-more-bytes";
    assert_int_equal(png_read_mem(gif, sizeof gif, 0, &got, &err), WC_ERR_FORMAT);
    assert_string_equal(err.msg, "PNG: not a PNG file");

    data[17] ^= 0x40; /* width: the IHDR CRC no longer matches */
    memset(&err, 0, sizeof err);
    assert_int_equal(png_read_mem(data, size, 0, &got, &err), WC_ERR_CHECKSUM);
    assert_string_equal(err.msg, "PNG: IHDR: CRC error");
    data[17] ^= 0x40;

    data[size - 20] ^= 0x01; /* inside IDAT */
    memset(&err, 0, sizeof err);
    assert_int_not_equal(png_read_mem(data, size, 0, &got, &err), WC_OK);
    assert_true(strncmp(err.msg, "PNG: ", 5) == 0);
    assert_null(got.pixels);
    free(data);
}

/* The pixel limit refuses a 100000x100000 IHDR before anything image-sized
 * is allocated; the file has no IDAT at all. */
static void test_png_pixel_limit(void **state)
{
    enc_spec s = {100000, 100000, 8,   PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, NULL, 0, NULL,
                  0,      NULL,   NULL};
    membuf m = enc_png(&s);
    wc_image got;
    wc_err err = {{0}};
    assert_int_equal(png_read_mem(m.p, m.n, 0, &got, &err), WC_ERR_LIMIT);
    assert_string_equal(err.msg, "image 100000x100000 exceeds the pixel limit 2147483648");
    const char *path = tmp_path(state, "huge.png");
    write_all(path, m.p, m.n);
    memset(&err, 0, sizeof err);
    assert_int_equal(png_read_file(path, 0, &got, &err), WC_ERR_LIMIT);
    assert_string_equal(err.msg, "image 100000x100000 exceeds the pixel limit 2147483648");
    assert_int_equal(remove(path), 0);
    free(m.p);

    size_t size;
    uint8_t *data = small_png(state, 1, 8, &size); /* 7x5 = 35 pixels */
    assert_int_equal(png_read_mem(data, size, 34, &got, NULL), WC_ERR_LIMIT);
    assert_int_equal(png_read_mem(data, size, 35, &got, NULL), WC_OK);
    wc_free(got.pixels);
    free(data);
}

/* Every allocation, libpng's included, fails in turn: an error, no leak. */
static void test_png_alloc_failures(void **state)
{
    size_t size;
    uint8_t *data = small_png(state, 2, 16, &size);
    const char *path = tmp_path(state, "nomem.png");
    int read_ok = 0, write_ok = 0;
    for (long n = 0; n < 1000 && !(read_ok && write_ok); n++) {
        wc_image got;
        wc_alloc_fail_after(n);
        wc_status s = png_read_mem(data, size, 0, &got, NULL);
        wc_alloc_fail_after(-1);
        assert_true(s == WC_OK || s == WC_ERR_NOMEM);
        if (s == WC_OK) {
            read_ok = 1;
            wc_alloc_fail_after(n);
            s = png_write_file(path, &got, NULL);
            wc_alloc_fail_after(-1);
            assert_true(s == WC_OK || s == WC_ERR_NOMEM);
            assert_int_equal(access(path, F_OK) == 0, s == WC_OK);
            if (s == WC_OK) write_ok = 1, remove(path);
            wc_free(got.pixels);
        }
    }
    assert_true(read_ok && write_ok);
    free(data);
}

static void test_png_write_errors(void **state)
{
    uint8_t px[4] = {1, 2, 3, 16};
    wc_image im = {2, 2, 1, 4, 0, px};
    wc_err err = {{0}};
    const char *path = tmp_path(state, "bad.png");
    assert_int_equal(png_write_file(path, &im, &err), WC_ERR_ARG); /* 16 > 4 bits */
    assert_string_equal(err.msg, "PNG: sample 16 at x=1, y=1 does not fit in 4 bits");
    assert_int_equal(access(path, F_OK), -1);
    px[3] = 15;
    im.components = 5;
    im.width = 1;
    assert_int_equal(png_write_file(path, &im, NULL), WC_ERR_ARG);
    im.components = 1;
    im.bit_depth = 17;
    assert_int_equal(png_write_file(path, &im, NULL), WC_ERR_ARG);
    im.bit_depth = 4;
    assert_int_equal(png_write_file("/nonexistent-dir/x.png", &im, NULL), WC_ERR_IO);
    assert_int_equal(png_read_file("/nonexistent-dir/x.png", 0, &im, NULL), WC_ERR_IO);
}

static void test_png_kodak(void **state)
{
    (void)state;
    const char *path = test_kodak_path(1);
    wc_image got;
    wc_err err = {{0}};
    assert_int_equal(png_read_file(path, 0, &got, &err), WC_OK);
    if (test_kodak_full())
        assert_true((got.width == 768 && got.height == 512) ||
                    (got.width == 512 && got.height == 768));
    else
        assert_true(got.width == 256 && got.height == 192);
    assert_int_equal(got.components, 3);
    assert_int_equal(got.bit_depth, 8);
    wc_free(got.pixels);
}

/* ---- PNM ---------------------------------------------------------------------- */

static void test_pnm_roundtrip(void **state)
{
    static const uint32_t layouts[][2] = {{1, 8}, {3, 8},  {1, 16}, {3, 16},
                                          {1, 1}, {3, 10}, {1, 12}, {3, 5}};
    const char *path = tmp_path(state, "rt.pnm");
    test_rng rng;
    test_rng_seed(&rng, 6);
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            wc_image im = random_image(sizes[s][0], sizes[s][1], layouts[l][0], layouts[l][1],
                                       s == 3 ? 3 : 0, &rng);
            wc_image got;
            assert_int_equal(pnm_write_file(path, &im, NULL), WC_OK);
            assert_int_equal(pnm_read_file(path, 0, &got, NULL), WC_OK);
            assert_same_image(&im, &got);
            wc_free(got.pixels);
            size_t size;
            uint8_t *data = read_all(path, &size);
            assert_int_equal(pnm_read_mem(data, size, 0, &got, NULL), WC_OK);
            assert_same_image(&im, &got);
            wc_free(got.pixels);
            free(data);
            free(im.pixels);
        }
    assert_int_equal(remove(path), 0);
}

static wc_status pnm_try(const char *text, size_t size, wc_image *got, wc_err *err)
{
    memset(err, 0, sizeof *err);
    return pnm_read_mem((const uint8_t *)text, size, 0, got, err);
}

#define PNM_TRY(lit, got, err) pnm_try((lit), sizeof(lit) - 1, (got), (err))

static void test_pnm_header_forms(void **state)
{
    (void)state;
    wc_image got;
    wc_err err;
    /* maxval 1023: 10 bits, big-endian samples. */
    assert_int_equal(PNM_TRY("P5 2 1 1023\n\x03\xff\x01\x02", &got, &err), WC_OK);
    assert_int_equal(got.bit_depth, 10);
    assert_int_equal(((uint16_t *)got.pixels)[0], 1023);
    assert_int_equal(((uint16_t *)got.pixels)[1], 258);
    wc_free(got.pixels);
    /* Comments between every field, CRLF, and a comment after maxval. */
    assert_int_equal(PNM_TRY("P6#a\r\n# b\n1\t#c\n 1\n#d\n255#e\n#\x01\x02", &got, &err), WC_OK);
    assert_int_equal(got.components, 3);
    assert_int_equal(got.bit_depth, 8);
    assert_memory_equal(got.pixels, "#\x01\x02", 3);
    wc_free(got.pixels);
    /* The one separator after maxval; a raster starting with whitespace. */
    assert_int_equal(PNM_TRY("P5\n1 2\n255\n\n\x01", &got, &err), WC_OK);
    assert_memory_equal(got.pixels, "\n\x01", 2);
    wc_free(got.pixels);
    /* maxval 1: a 1-bit image, values kept as 0 and 1. */
    assert_int_equal(PNM_TRY("P5\n3 1\n1\n\x01\x00\x01", &got, &err), WC_OK);
    assert_int_equal(got.bit_depth, 1);
    assert_memory_equal(got.pixels, "\x01\x00\x01", 3);
    wc_free(got.pixels);
    /* Bytes after the raster are not ours. */
    assert_int_equal(PNM_TRY("P5 1 1 255 \x07P5 1 1 255 \x08", &got, &err), WC_OK);
    assert_int_equal(((uint8_t *)got.pixels)[0], 7);
    wc_free(got.pixels);
}

static void test_pnm_errors(void **state)
{
    (void)state;
    wc_image got;
    wc_err err;
    static const char *const others[] = {"P1", "P2", "P3", "P4", "P7"};
    for (size_t i = 0; i < 5; i++) {
        char text[32];
        int n = snprintf(text, sizeof text, "%s 1 1 255\n\x01\x01\x01", others[i]);
        assert_int_equal(pnm_try(text, (size_t)n, &got, &err), WC_ERR_UNSUPPORTED);
        assert_non_null(strstr(err.msg, others[i]));
    }
    assert_int_equal(PNM_TRY("GIF89a", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P9 1 1 255\n\x01", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P5\n0 4\n255\n", &got, &err), WC_ERR_FORMAT);
    assert_string_equal(err.msg, "PGM: size 0x4 has a zero side");
    assert_int_equal(PNM_TRY("P6\n3 0\n255\n", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P5\n1 1\n70000\n\x01\x01", &got, &err), WC_ERR_FORMAT);
    assert_string_equal(err.msg, "PGM: maxval 70000 out of range 1..65535");
    assert_int_equal(PNM_TRY("P5\n1 1\n0\n\x00", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P53 1 255\n\x01", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P5\n3x 2\n255\n", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P5\nabc\n", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P5\n1 -1\n255\n", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P5 99999999999 1 255\n", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P5\n1 1\n255x\x01", &got, &err), WC_ERR_FORMAT);
    assert_int_equal(PNM_TRY("P5\n100000 100000\n255\n", &got, &err), WC_ERR_LIMIT);
    assert_string_equal(err.msg, "image 100000x100000 exceeds the pixel limit 2147483648");
    assert_int_equal(PNM_TRY("P6 4294967295 4294967295 65535\n", &got, &err), WC_ERR_LIMIT);
    assert_null(got.pixels);
}

static void test_pnm_sample_above_maxval(void **state)
{
    (void)state;
    wc_image got;
    wc_err err;
    assert_int_equal(PNM_TRY("P5\n2 2\n100\n\x00\x64\x10\x65", &got, &err), WC_ERR_CORRUPT);
    assert_string_equal(err.msg, "PGM: sample 101 at x=1, y=1, component 0 exceeds maxval 100");
    assert_null(got.pixels);
    assert_int_equal(PNM_TRY("P6\n1 1\n1000\n\x00\x01\x03\xe9\x00\x00", &got, &err),
                     WC_ERR_CORRUPT);
    assert_string_equal(err.msg, "PPM: sample 1001 at x=0, y=0, component 1 exceeds maxval 1000");
    /* Several above maxval: the first in the raster's order is named. */
    assert_int_equal(PNM_TRY("P5\n3 2\n9\n\x01\x02\x03\x04\x0b\x0a", &got, &err), WC_ERR_CORRUPT);
    assert_string_equal(err.msg, "PGM: sample 11 at x=1, y=1, component 0 exceeds maxval 9");
    assert_int_equal(
        PNM_TRY("P6\n2 1\n300\n\x00\x01\x00\x02\x01\x2e\x01\x2d\x00\x00\x00\x00", &got, &err),
        WC_ERR_CORRUPT);
    assert_string_equal(err.msg, "PPM: sample 302 at x=0, y=0, component 2 exceeds maxval 300");
    /* The full 8- and 16-bit ranges pass, every sample kept. */
    assert_int_equal(PNM_TRY("P5 2 1 65535\n\xff\xff\x00\x01", &got, &err), WC_OK);
    assert_int_equal(((uint16_t *)got.pixels)[0], 65535);
    assert_int_equal(((uint16_t *)got.pixels)[1], 1);
    wc_free(got.pixels);
    assert_int_equal(PNM_TRY("P5 2 1 255\n\xff\x00", &got, &err), WC_OK);
    assert_memory_equal(got.pixels, "\xff\x00", 2);
    wc_free(got.pixels);
}

static void test_pnm_truncation(void **state)
{
    static const char file[] = "P6\n# small\n2 1\n65535\n\x01\x02\x03\x04\x05\x06\x07\x08\x09"
                               "\x0a\x0b\x0c";
    size_t size = sizeof file - 1;
    const char *path = tmp_path(state, "cut.ppm");
    wc_image got;
    wc_err err;
    assert_int_equal(pnm_try(file, size, &got, &err), WC_OK);
    assert_int_equal(got.bit_depth, 16);
    assert_int_equal(((uint16_t *)got.pixels)[5], 0x0b0c);
    wc_free(got.pixels);
    for (size_t n = 0; n < size; n++) {
        if (pnm_try(file, n, &got, &err) != WC_ERR_TRUNCATED)
            fail_msg("prefix %zu: %s", n, err.msg);
        assert_null(got.pixels);
        write_all(path, file, n);
        assert_int_equal(pnm_read_file(path, 0, &got, NULL), WC_ERR_TRUNCATED);
        assert_int_equal(remove(path), 0);
    }
}

static void test_pnm_file_limits_and_writes(void **state)
{
    const char *path = tmp_path(state, "w.pgm");
    test_rng rng;
    test_rng_seed(&rng, 7);
    wc_image im = random_image(10, 10, 1, 8, 0, &rng);
    wc_image got;
    wc_err err = {{0}};
    assert_int_equal(pnm_write_file(path, &im, NULL), WC_OK);
    assert_int_equal(pnm_read_file(path, 99, &got, &err), WC_ERR_LIMIT);
    assert_string_equal(err.msg, "image 10x10 exceeds the pixel limit 99");
    assert_int_equal(pnm_read_file(path, 100, &got, NULL), WC_OK);
    wc_free(got.pixels);
    /* Allocation failures in read and write: an error, never a leak. */
    int ok = 0;
    for (long n = 0; n < 50 && !ok; n++) {
        wc_alloc_fail_after(n);
        wc_status s = pnm_read_file(path, 0, &got, NULL);
        wc_alloc_fail_after(-1);
        assert_true(s == WC_OK || s == WC_ERR_NOMEM);
        if (s == WC_OK) ok = 1, wc_free(got.pixels);
    }
    assert_true(ok);
    assert_int_equal(remove(path), 0);

    im.components = 2;
    assert_int_equal(pnm_write_file(path, &im, NULL), WC_ERR_UNSUPPORTED);
    im.components = 1;
    im.bit_depth = 3;
    memset(&err, 0, sizeof err);
    assert_int_equal(pnm_write_file(path, &im, &err), WC_ERR_ARG); /* samples above 7 */
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(pnm_write_file("/nonexistent-dir/x.pgm", &im, NULL), WC_ERR_IO);
    assert_int_equal(pnm_read_file("/nonexistent-dir/x.pgm", 0, &got, NULL), WC_ERR_IO);
    free(im.pixels);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_roundtrip_layouts),
        cmocka_unit_test(test_png_roundtrip_stride),
        cmocka_unit_test(test_png_sbit_in_file),
        cmocka_unit_test(test_png_palette),
        cmocka_unit_test(test_png_rgb_trns_ignored),
        cmocka_unit_test(test_png_interlaced),
        cmocka_unit_test(test_png_truncation),
        cmocka_unit_test(test_png_bad_data),
        cmocka_unit_test(test_png_pixel_limit),
        cmocka_unit_test(test_png_alloc_failures),
        cmocka_unit_test(test_png_write_errors),
        cmocka_unit_test(test_png_kodak),
        cmocka_unit_test(test_pnm_roundtrip),
        cmocka_unit_test(test_pnm_header_forms),
        cmocka_unit_test(test_pnm_errors),
        cmocka_unit_test(test_pnm_sample_above_maxval),
        cmocka_unit_test(test_pnm_truncation),
        cmocka_unit_test(test_pnm_file_limits_and_writes),
    };
    return cmocka_run_group_tests(tests, io_setup, io_teardown);
}
