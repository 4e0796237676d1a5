/*
 * image_stream.c -- a .wcx file decoded into an image file in bounded
 * memory: the file read by ranges (pread), wc_decode_stream's strips
 * written as they come (PNG through libpng's row writer, PGM/PPM), into a
 * temporary file renamed into place only when every row was decoded and
 * written (files.c), so a file found damaged half way leaves nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_io.h"

static int fd_read(void *user, uint64_t off, void *dst, size_t n)
{
    const int fd = *(const int *)user;
    uint8_t *p = dst;
    while (n) {
        const ssize_t got = pread(fd, p, n, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        p += got;
        off += (uint64_t)got;
        n -= (size_t)got;
    }
    return 0;
}

typedef struct out_sink {
    const char *out, *name;
    image_format format;
    const wc_meta *meta;
    file_out *fo;
    FILE *fp;
    png_row_writer *png;
    tiff_row_writer *tiff;
    wc_image shape;
    wc_image whole; /* TIFF: the rows gathered */
    wc_err err;     /* the sink's own failure, named */
} out_sink;

static wc_status sink_begin(void *user, const wc_image *shape)
{
    out_sink *k = user;
    k->shape = *shape;
    wc_status s = file_out_open(k->out, &k->fo, &k->fp, &k->err);
    if (s != WC_OK) return s;
    switch (k->format) {
    case IMAGE_PNM: s = pnm_rows_head(k->fp, k->name, shape, &k->err); break;
    case IMAGE_TIFF:
        /* by rows into a file; standard output (no seeking) and EXIF
         * (appended to the bytes) gather the image for tiff_write_mem */
        if (strcmp(k->out, "-") != 0) {
            wc_err e = {{0}};
            s = tiff_rows_open(k->fp, k->name, shape, k->meta, &k->tiff, &e);
            if (s != WC_ERR_UNSUPPORTED) {
                if (s != WC_OK) wc_fail(&k->err, s, "%s: %s", k->name, e.msg);
                break;
            }
            s = WC_OK;
        }
        k->whole = *shape;
        k->whole.pixels = NULL;
        if (wc_image_alloc(&k->whole) != WC_OK)
            s = wc_fail(&k->err, WC_ERR_NOMEM, "%s: out of memory (the image for TIFF)", k->name);
        break;
    default: s = png_rows_open(k->fp, k->name, shape, k->meta, &k->png, &k->err); break;
    }
    return s;
}

static wc_status sink_rows(void *user, const wc_image *rows, uint32_t y)
{
    out_sink *k = user;
    switch (k->format) {
    case IMAGE_PNM: return pnm_rows_put(k->fp, k->name, rows, y, &k->err);
    case IMAGE_TIFF: {
        if (k->tiff) return tiff_rows_put(k->tiff, rows, &k->err);
        const size_t rb = wc_image_row_bytes(rows);
        for (uint32_t j = 0; j < rows->height; j++)
            memcpy((uint8_t *)k->whole.pixels + (size_t)(y + j) * k->whole.stride,
                   (const uint8_t *)rows->pixels + (size_t)j * rb, rb);
        return WC_OK;
    }
    default: return png_rows_put(k->png, rows, &k->err);
    }
}

/* Finishes (s == WC_OK) or abandons the output. */
static wc_status sink_end(out_sink *k, wc_status s, unsigned *dropped, wc_err *err)
{
    if (k->png) {
        wc_status c = png_rows_close(k->png, &k->err);
        if (s == WC_OK && c != WC_OK) s = wc_fail(err, c, "%s: %s", k->name, k->err.msg);
    }
    if (k->tiff) {
        wc_err e = {{0}};
        wc_status c = tiff_rows_close(k->tiff, s == WC_OK, dropped, &e);
        if (s == WC_OK && c != WC_OK) s = wc_fail(err, c, "%s: %s", k->name, e.msg);
    } else if (s == WC_OK && k->format == IMAGE_TIFF) {
        uint8_t *buf = NULL;
        size_t size = 0;
        wc_err e = {{0}};
        s = tiff_write_mem(&k->whole, k->meta, &buf, &size, dropped, &e);
        if (s != WC_OK)
            wc_fail(err, s, "%s: %s", k->name, e.msg);
        else if (size && fwrite(buf, 1, size, k->fp) != size)
            s = wc_fail(err, WC_ERR_IO, "%s: write failed: %s", k->name, strerror(errno));
        wc_free(buf);
    }
    if (s == WC_OK && k->format == IMAGE_PNM && dropped)
        for (size_t i = 0; i < wc_meta_count(k->meta); i++)
            *dropped |= 1u << wc_meta_get(k->meta, i)->kind;
    wc_image_free(&k->whole);
    if (k->fo) s = file_out_close(k->out, k->fo, s, err);
    return s;
}

wc_status decode_file_stream(wc_ctx *ctx, const wc_params *p, const char *path, const char *out,
                             image_format format, wc_meta *meta, wc_image *shape, unsigned *dropped,
                             wc_err *err)
{
    if (dropped) *dropped = 0;
    memset(shape, 0, sizeof *shape);
    WC_RETURN_IF(!path || !out, err, WC_ERR_ARG, "missing argument");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    WC_RETURN_IF(fd < 0, err, WC_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return wc_fail(err, WC_ERR_IO, "%s: not a regular file (read it with decode_file)", path);
    }
    out_sink k;
    memset(&k, 0, sizeof k);
    k.out = out;
    k.name = !strcmp(out, "-") ? "standard output" : out;
    k.format = format == IMAGE_BY_NAME ? image_format_of(out) : format;
    k.meta = meta;
    wc_stream_source src = {fd_read, &fd, (uint64_t)st.st_size};
    wc_stream_sink sink = {sink_begin, sink_rows, &k};
    wc_status s = wc_decode_stream(ctx, p, &src, &sink, meta);
    if (s != WC_OK) {
        if (k.err.msg[0])
            wc_fail(err, s, "%s", k.err.msg);
        else
            wc_fail(err, s, "%s", wc_ctx_error(ctx));
    }
    s = sink_end(&k, s, dropped, err);
    close(fd);
    if (s == WC_OK) *shape = k.shape;
    return s;
}
