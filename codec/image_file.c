/*
 * image_file.c -- any supported image file with its metadata: PNG and
 * PGM/PPM through the library's readers and writers, TIFF through
 * image_tiff.c, PNG metadata through image_meta_png.c (image_ext.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <png.h>
#include <tiffio.h>
#include <zlib.h>

#include "image_ext.h"
#include "image_io.h"

/* The library keeps its messages in the context, which this layer cannot
 * write to: failures found here are kept per thread (imgio_error). */
static _Thread_local char last_error[320];

const char *imgio_error(void) { return last_error; }

static wc_status fail(const char *path, const wc_err *e, wc_status s)
{
    snprintf(last_error, sizeof last_error, "%s: %s", path, e->msg);
    return s;
}

int imgio_is_tiff_name(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    return dot && (!strcasecmp(dot, ".tif") || !strcasecmp(dot, ".tiff"));
}

static int is_tiff(const uint8_t *d, size_t n)
{
    return n >= 4 && ((d[0] == 'I' && d[1] == 'I' && d[2] == 42 && d[3] == 0) ||
                      (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && d[3] == 42) ||
                      (d[0] == 'I' && d[1] == 'I' && d[2] == 43 && d[3] == 0) ||
                      (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && d[3] == 43));
}

wc_status imgio_read(wc_ctx *ctx, const char *path, unsigned page, uint64_t max_pixels,
                     wc_image *img, wc_meta *meta, unsigned *pages)
{
    last_error[0] = '\0';
    if (pages) *pages = 1;
    void *data = NULL;
    size_t size = 0;
    wc_status s = wc_file_read(ctx, path, 0, &data, &size);
    if (s != WC_OK) return s;
    wc_err e = {{0}};
    if (is_tiff(data, size)) {
        s = tiff_read_mem(data, size, page, max_pixels, img, meta, pages, &e);
        if (s != WC_OK) fail(path, &e, s);
        free(data);
        return s;
    }
    if (page > 1) {
        free(data);
        snprintf(last_error, sizeof last_error, "%s: --page %u: only TIFF files have pages", path,
                 page);
        return WC_ERR_ARG;
    }
    /* The bytes are here already: the readers take them from memory. */
    const uint8_t *d = data;
    const int png = size >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8);
    if (!max_pixels) max_pixels = WC_DEFAULT_MAX_PIXELS;
    if (png) s = png_read_mem(d, size, max_pixels, img, &e);
    else if (size >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7')
        s = pnm_read_mem(d, size, max_pixels, img, &e);
    else
        s = wc_fail(&e, WC_ERR_FORMAT, "not a PNG, TIFF, PGM or PPM image");
    if (s == WC_OK && meta && png && (s = png_meta_read(d, size, meta, &e)) != WC_OK)
        wc_image_free(img);
    if (s != WC_OK) fail(path, &e, s);
    free(data);
    return s;
}

static int has_ext(const char *path, const char *const *exts)
{
    const char *dot = strrchr(path, '.');
    for (; dot && *exts; exts++)
        if (!strcasecmp(dot, *exts)) return 1;
    return 0;
}

/* A PNG with metadata: the library writes the pixels to a temporary file
 * beside the target, the chunks go in, and the whole is written atomically
 * to the target; the temporary file is removed either way. */
static wc_status write_png_meta(wc_ctx *ctx, const char *path, const wc_image *img,
                                const wc_meta *meta)
{
    size_t cap = strlen(path) + 48;
    char *tmp = malloc(cap);
    if (!tmp) return WC_ERR_NOMEM;
    snprintf(tmp, cap, "%s.meta.%ld.png", path, (long)getpid());
    wc_status s = wc_image_write(ctx, tmp, img);
    void *data = NULL;
    size_t size = 0;
    if (s == WC_OK) s = wc_file_read(ctx, tmp, 0, &data, &size);
    unlink(tmp);
    free(tmp);
    if (s != WC_OK) {
        free(data);
        return s;
    }
    uint8_t *png = NULL;
    size_t png_size = 0;
    wc_err e = {{0}};
    s = png_meta_insert(data, size, meta, &png, &png_size, &e);
    free(data);
    if (s != WC_OK) return fail(path, &e, s);
    s = wc_file_write(ctx, path, png, png_size);
    wc_free(png);
    return s;
}

wc_status imgio_write(wc_ctx *ctx, const char *path, const wc_image *img, const wc_meta *meta,
                      unsigned *dropped)
{
    static const char *const pnm[] = {".pgm", ".ppm", ".pnm", NULL};
    last_error[0] = '\0';
    if (dropped) *dropped = 0;
    if (imgio_is_tiff_name(path)) {
        uint8_t *buf = NULL;
        size_t size = 0;
        wc_err e = {{0}};
        wc_status s = tiff_write_mem(img, meta, &buf, &size, dropped, &e);
        if (s != WC_OK) return fail(path, &e, s);
        s = wc_file_write(ctx, path, buf, size);
        wc_free(buf);
        return s;
    }
    if (has_ext(path, pnm)) {
        if (dropped)
            for (size_t i = 0; i < wc_meta_count(meta); i++)
                *dropped |= 1u << wc_meta_get(meta, i)->kind;
        return wc_image_write(ctx, path, img);
    }
    if (wc_meta_count(meta) == 0) return wc_image_write(ctx, path, img);
    return write_png_meta(ctx, path, img, meta);
}

void imgio_versions(char *buf, size_t cap)
{
    /* TIFFGetVersion() is "LIBTIFF, Version 4.5.0\nCopyright ...". */
    const char *t = strstr(TIFFGetVersion(), "Version ");
    int tn = t ? (int)strcspn(t + 8, "\n") : 1;
    snprintf(buf, cap, "libpng %s, libtiff %.*s, zlib %s", png_get_libpng_ver(NULL), tn,
             t ? t + 8 : "?", zlibVersion());
}
