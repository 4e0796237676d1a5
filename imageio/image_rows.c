/*
 * image_rows.c -- input a row at a time and a temporary byte store, for
 * encoding in bounded memory (wc_encode_rows): a PGM/PPM file's raster is
 * one seek from its header, so a row is one read and a second pass one
 * seek; the store is an unnamed temporary file.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io.h"

struct img_rows {
    FILE *fp;
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
    uint8_t magic[2] = {0, 0};
    if (fread(magic, 1, 2, fp) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6')) {
        fclose(fp);
        return wc_fail(err, WC_ERR_UNSUPPORTED, "%s: not a PGM/PPM file", path);
    }
    rewind(fp);
    img_source src = {NULL, 0, fp, path, (uint64_t)st.st_size};
    img_rows *r = wc_calloc(1, sizeof *r);
    if (!r) {
        fclose(fp);
        return wc_fail(err, WC_ERR_NOMEM, "out of memory");
    }
    r->fp = fp;
    snprintf(r->name, sizeof r->name, "%s", path);
    wc_err e = {{0}};
    wc_status s = pnm_read_shape(&src, &r->shape, &r->data_at, &r->maxval, &e);
    if (s != WC_OK) {
        img_rows_close(r);
        return wc_fail(err, s, "%s: %s", path, e.msg);
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
    WC_RETURN_IF(fseeko(r->fp, (off_t)r->data_at, SEEK_SET) != 0, &r->err, WC_ERR_IO,
                 "%s: cannot seek back: %s", r->name, strerror(errno));
    r->y = 0;
    return WC_OK;
}

const char *img_rows_error(const img_rows *r) { return r ? r->err.msg : ""; }

void img_rows_close(img_rows *r)
{
    if (!r) return;
    if (r->fp) fclose(r->fp);
    wc_free(r->buf);
    wc_free(r);
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
