/*
 * image_limits.c -- what the image readers share: the limit check made on
 * a header's shape before anything image-sized is allocated, and reading
 * from a source that starts with bytes already in memory.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <string.h>

#include "image_io.h"

wc_status img_check_shape(const img_limits *lim, const wc_image *shape, uint64_t reader_bytes,
                          wc_err *err)
{
    const uint64_t pixels = (uint64_t)shape->width * shape->height;
    const uint64_t max_px = lim && lim->max_pixels ? lim->max_pixels : WC_DEFAULT_MAX_PIXELS;
    WC_RETURN_IF(pixels > max_px, err, WC_ERR_LIMIT,
                 "image %" PRIu32 "x%" PRIu32 " exceeds the pixel limit %" PRIu64, shape->width,
                 shape->height, max_px);
    if (!lim || !lim->max_memory) return WC_OK;
    const uint64_t bps = shape->bit_depth > 8 ? 2 : 1;
    if (pixels > UINT64_MAX / 16 || reader_bytes > UINT64_MAX / 2)
        return wc_fail(err, WC_ERR_LIMIT, "image %" PRIu32 "x%" PRIu32 " does not fit in memory",
                       shape->width, shape->height);
    const uint64_t pixel_bytes = pixels * shape->components * bps;
    uint64_t need = lim->need ? lim->need(shape, lim->arg) : pixel_bytes;
    need = need > UINT64_MAX - reader_bytes ? UINT64_MAX : need + reader_bytes;
    WC_RETURN_IF(need > lim->max_memory, err, WC_ERR_LIMIT,
                 "image %" PRIu32 "x%" PRIu32 " x%" PRIu32 " %" PRIu32 "-bit needs about %" PRIu64
                 " bytes, over the memory limit of %" PRIu64,
                 shape->width, shape->height, shape->components, shape->bit_depth, need,
                 lim->max_memory);
    return WC_OK;
}

size_t img_source_read(const img_source *src, size_t *pos, void *out, size_t n, wc_err *err)
{
    size_t got = 0;
    if (*pos < src->head_size) {
        got = src->head_size - *pos < n ? src->head_size - *pos : n;
        memcpy(out, src->head + *pos, got);
    }
    if (got < n && src->fp) {
        got += fread((uint8_t *)out + got, 1, n - got, src->fp);
        if (got < n && ferror(src->fp)) {
            wc_fail(err, WC_ERR_IO, "cannot read %s: %s", src->name ? src->name : "input",
                    strerror(errno));
            return SIZE_MAX;
        }
    }
    *pos += got;
    return got;
}

wc_status img_read_path(const char *path, uint64_t max_pixels, const char *what,
                        img_src_reader read, wc_image *img, wc_err *err)
{
    WC_RETURN_IF(img == NULL || path == NULL, err, WC_ERR_ARG, "%s: no path or no output image",
                 what);
    memset(img, 0, sizeof *img);
    FILE *fp = fopen(path, "rb");
    WC_RETURN_IF(fp == NULL, err, WC_ERR_IO, "%s: cannot open %s: %s", what, path, strerror(errno));
    struct stat st;
    uint64_t size = fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    img_source src = {NULL, 0, fp, path, size};
    img_limits lim = {max_pixels, 0, NULL, NULL};
    wc_status s = read(&src, &lim, img, err);
    fclose(fp); /* read-only: a close error loses nothing */
    return s;
}
