/*
 * image_rows.c -- input a row at a time and a temporary byte store, for
 * encoding in bounded memory (wc_encode_rows): a PGM/PPM file's raster is
 * one seek from its header, so a row is one read and a second pass one
 * seek; a PNG's rows come from libpng (image_png.c's png_in_rows), a second
 * pass starts it again; the store is an unnamed temporary file.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io.h"

struct img_rows {
    FILE *fp;
    png_in_rows *png;   /* a PNG; */
    tiff_in_rows *tiff; /* a TIFF; else a PGM/PPM */
    uint64_t file_size;
    char name[256];
    wc_image shape;
    uint64_t data_at;
    uint32_t maxval, y;
    size_t file_row; /* raster bytes a row */
    uint8_t *buf;
    wc_err err;
};

wc_status img_rows_open(const char *path, wc_image *shape, img_rows **out, wc_err *err)
{
    *out = NULL;
    WC_RETURN_IF(!path || !strcmp(path, "-"), err, WC_ERR_UNSUPPORTED,
                 "standard input cannot be read twice");
    FILE *fp = fopen(path, "rb");
    WC_RETURN_IF(!fp, err, WC_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(fp);
        return wc_fail(err, WC_ERR_UNSUPPORTED, "%s: not a regular file", path);
    }
    uint8_t magic[8] = {0};
    const size_t nmagic = fread(magic, 1, 8, fp);
    const int png = nmagic == 8 && !memcmp(magic, "\x89PNG\r\n\x1a\n", 8);
    const int tiff = nmagic >= 4 && (!memcmp(magic, "II*\0", 4) || !memcmp(magic, "MM\0*", 4) ||
                                     !memcmp(magic, "II+\0", 4) || !memcmp(magic, "MM\0+", 4));
    if (!png && !tiff && (nmagic < 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6'))) {
        fclose(fp);
        return wc_fail(err, WC_ERR_UNSUPPORTED, "%s: not a PNG, TIFF, PGM or PPM file", path);
    }
    rewind(fp);
    /* One reader whatever the format: the file, its name for messages. */
    img_rows *r = wc_calloc(1, sizeof *r);
    if (!r) {
        fclose(fp);
        return wc_fail(err, WC_ERR_NOMEM, "out of memory");
    }
    r->fp = fp;
    r->file_size = (uint64_t)st.st_size;
    snprintf(r->name, sizeof r->name, "%s", path);
    wc_err e = {{0}};
    wc_status s;
    if (tiff)
        s = tiff_in_rows_open(fp, r->name, r->file_size, &r->shape, &r->tiff, &e);
    else if (png)
        s = png_in_rows_open(fp, r->name, r->file_size, &r->shape, &r->png, &e);
    else {
        img_source src = {NULL, 0, fp, path, r->file_size};
        s = pnm_read_shape(&src, &r->shape, &r->data_at, &r->maxval, &e);
    }
    if (s != WC_OK) {
        img_rows_close(r);
        return wc_fail(err, s, "%s: %s", path, e.msg);
    }
    if (tiff || png) {
        *shape = r->shape;
        *out = r;
        return WC_OK;
    }
    r->file_row = (size_t)r->shape.width * r->shape.components * (r->maxval > 255 ? 2 : 1);
    const uint64_t total = (uint64_t)r->file_row * r->shape.height;
    if ((uint64_t)st.st_size < r->data_at || (uint64_t)st.st_size - r->data_at < total) {
        const uint64_t have = (uint64_t)st.st_size > r->data_at ? st.st_size - r->data_at : 0;
        img_rows_close(r);
        return wc_fail(err, WC_ERR_TRUNCATED, "%s: truncated: %llu of %llu raster bytes", path,
                       (unsigned long long)have, (unsigned long long)total);
    }
    r->buf = wc_malloc(r->file_row);
    if (!r->buf || fseeko(fp, (off_t)r->data_at, SEEK_SET) != 0) {
        img_rows_close(r);
        return wc_fail(err, WC_ERR_NOMEM, "%s: out of memory or cannot seek", path);
    }
    *shape = r->shape;
    *out = r;
    return WC_OK;
}

wc_status img_rows_read(void *rows, void *row)
{
    img_rows *r = rows;
    const wc_image *sh = &r->shape;
    if (r->tiff) {
        wc_err e = {{0}};
        const wc_status s = tiff_in_rows_read(r->tiff, row, &e);
        WC_RETURN_IF(s != WC_OK, &r->err, s, "%s: row %u: %s", r->name, r->y, e.msg);
        r->y++;
        return WC_OK;
    }
    if (r->png) {
        wc_err e = {{0}};
        const wc_status s = png_in_rows_read(r->png, row, &e);
        WC_RETURN_IF(s != WC_OK, &r->err, s, "%s: row %u: %s", r->name, r->y, e.msg);
        r->y++;
        return WC_OK;
    }
    WC_RETURN_IF(r->y >= sh->height, &r->err, WC_ERR_ARG, "%s: read past the last row", r->name);
    if (fread(r->buf, 1, r->file_row, r->fp) != r->file_row)
        return wc_fail(&r->err, ferror(r->fp) ? WC_ERR_IO : WC_ERR_TRUNCATED,
                       "%s: truncated: row %u of %u cannot be read", r->name, r->y, sh->height);
    const size_t n = (size_t)sh->width * sh->components;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = r->buf[i];
        if (sh->bit_depth > 8) {
            v = (uint32_t)r->buf[2 * i] << 8 | r->buf[2 * i + 1];
            ((uint16_t *)row)[i] = (uint16_t)v;
        } else {
            ((uint8_t *)row)[i] = (uint8_t)v;
        }
        WC_RETURN_IF(v > r->maxval, &r->err, WC_ERR_CORRUPT,
                     "%s: sample %u at x=%zu, y=%u exceeds maxval %u", r->name, v,
                     i / sh->components, r->y, r->maxval);
    }
    r->y++;
    return WC_OK;
}

wc_status img_rows_rewind(void *rows)
{
    img_rows *r = rows;
    if (r->png || r->tiff) {
        wc_err e = {{0}};
        const wc_status s =
            r->png ? png_in_rows_rewind(r->png, &e) : tiff_in_rows_rewind(r->tiff, &e);
        WC_RETURN_IF(s != WC_OK, &r->err, s, "%s: %s", r->name, e.msg);
        r->y = 0;
        return WC_OK;
    }
    WC_RETURN_IF(fseeko(r->fp, (off_t)r->data_at, SEEK_SET) != 0, &r->err, WC_ERR_IO,
                 "%s: cannot seek back: %s", r->name, strerror(errno));
    r->y = 0;
    return WC_OK;
}

const char *img_rows_error(const img_rows *r) { return r ? r->err.msg : ""; }

void img_rows_close(img_rows *r)
{
    if (!r) return;
    png_in_rows_close(r->png);
    tiff_in_rows_close(r->tiff);
    if (r->fp) fclose(r->fp);
    wc_free(r->buf);
    wc_free(r);
}

/* A PNG's chunks but its IDAT (the metadata, png_meta_read's input), read
 * by seeking past the image data: at most this many bytes. */
#define ROWS_META_MAX ((size_t)64 << 20)

wc_status img_rows_meta(img_rows *r, wc_meta *meta, wc_err *err)
{
    if (r->tiff && meta) {
        wc_err e = {{0}};
        const wc_status s = tiff_in_rows_meta(r->tiff, meta, &e);
        WC_RETURN_IF(s != WC_OK, err, s, "%s: %s", r->name, e.msg);
        return WC_OK;
    }
    if (!r->png || !meta) return WC_OK;
    uint8_t *skel = wc_malloc(ROWS_META_MAX);
    WC_RETURN_IF(!skel, err, WC_ERR_NOMEM, "out of memory (PNG metadata)");
    memcpy(skel, "\x89PNG\r\n\x1a\n", 8);
    /* libpng reads the same stream: its place is put back at the end. */
    const off_t resume = ftello(r->fp);
    size_t n = 8;
    uint64_t off = 8;
    wc_status s = WC_OK;
    while (s == WC_OK && off + 12 <= r->file_size) {
        uint8_t hd[8];
        if (fseeko(r->fp, (off_t)off, SEEK_SET) != 0 || fread(hd, 1, 8, r->fp) != 8) {
            s = wc_fail(err, WC_ERR_IO, "%s: cannot read the chunk at byte %llu", r->name,
                        (unsigned long long)off);
            break;
        }
        const uint32_t len =
            (uint32_t)hd[0] << 24 | (uint32_t)hd[1] << 16 | (uint32_t)hd[2] << 8 | hd[3];
        const int idat = !memcmp(hd + 4, "IDAT", 4), iend = !memcmp(hd + 4, "IEND", 4);
        if (!idat) {
            if ((uint64_t)len + 12 > ROWS_META_MAX - n) {
                s = wc_fail(err, WC_ERR_LIMIT,
                            "%s: more than %zu bytes of chunks besides the "
                            "image data (--strip leaves them out)",
                            r->name, ROWS_META_MAX);
                break;
            }
            memcpy(skel + n, hd, 8);
            if (fread(skel + n + 8, 1, (size_t)len + 4, r->fp) != (size_t)len + 4) {
                s = wc_fail(err, WC_ERR_TRUNCATED, "%s: truncated in a chunk at byte %llu", r->name,
                            (unsigned long long)off);
                break;
            }
            n += (size_t)len + 12;
        }
        off += (uint64_t)len + 12;
        if (iend) break;
    }
    if (s == WC_OK) {
        wc_err e = {{0}};
        s = png_meta_read(skel, n, meta, &e);
        if (s != WC_OK) s = wc_fail(err, s, "%s: %s", r->name, e.msg);
    }
    wc_free(skel);
    if (fseeko(r->fp, resume, SEEK_SET) != 0 && s == WC_OK)
        s = wc_fail(err, WC_ERR_IO, "%s: cannot seek back: %s", r->name, strerror(errno));
    return s;
}

struct tmp_store {
    FILE *fp;
    int reading;
};

wc_status tmp_store_open(tmp_store **out, wc_err *err)
{
    *out = wc_calloc(1, sizeof **out);
    WC_RETURN_IF(!*out, err, WC_ERR_NOMEM, "out of memory");
    (*out)->fp = tmpfile();
    if (!(*out)->fp) {
        const int e = errno;
        wc_free(*out);
        *out = NULL;
        return wc_fail(err, WC_ERR_IO, "cannot create a temporary file: %s", strerror(e));
    }
    return WC_OK;
}

wc_status tmp_store_append(void *store, const void *data, size_t n)
{
    tmp_store *s = store;
    if (s->reading) {
        if (fseeko(s->fp, 0, SEEK_END) != 0) return WC_ERR_IO;
        s->reading = 0;
    }
    return fwrite(data, 1, n, s->fp) == n ? WC_OK : WC_ERR_IO;
}

wc_status tmp_store_read(void *store, uint64_t offset, void *data, size_t n)
{
    tmp_store *s = store;
    s->reading = 1;
    if (fseeko(s->fp, (off_t)offset, SEEK_SET) != 0) return WC_ERR_IO;
    return fread(data, 1, n, s->fp) == n ? WC_OK : WC_ERR_IO;
}

void tmp_store_close(tmp_store *s)
{
    if (!s) return;
    fclose(s->fp);
    wc_free(s);
}
