/*
 * image_pnm.c -- binary PGM (P5) and PPM (P6) reading and writing.
 *
 * The header is "P5|P6, width, height, maxval", fields separated by
 * whitespace and '#' comments (a comment runs to the end of its line), then
 * exactly one whitespace character -- or a comment, whose newline counts as
 * that character, as netpbm reads it -- and the raster. Samples are one byte
 * when maxval < 256, else two bytes big-endian. Values are kept exactly:
 * the image's bit depth is the number of bits maxval needs, and a sample
 * above maxval is an error rather than something to clamp.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io.h"

/* The header may take this much (comments included). */
#define PNM_HEADER_MAX ((size_t)1 << 20)
#define PNM_READ_CHUNK ((size_t)1 << 16)

typedef struct pnm_header {
    const char *name; /* "PGM" or "PPM", for messages */
    uint32_t components;
    uint32_t width;
    uint32_t height;
    uint32_t maxval;
    size_t data_at; /* offset of the first sample */
} pnm_header;

/* The header cursor. */
typedef struct pnm_cursor {
    const uint8_t *p;
    size_t size;
    size_t pos;
    const char *name;
    wc_err *err;
} pnm_cursor;

static int pnm_is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips a '#' comment up to and including its end of line. */
static wc_status pnm_skip_comment(pnm_cursor *c, const char *before)
{
    while (c->pos < c->size && c->p[c->pos] != '\n' && c->p[c->pos] != '\r') c->pos++;
    WC_RETURN_IF(c->pos == c->size, c->err, WC_ERR_TRUNCATED,
                 "%s: truncated: header ends in a comment before the %s", c->name, before);
    c->pos++;
    return WC_OK;
}

/* Reads one decimal field preceded by whitespace or comments; leaves the
 * character after it (which must be whitespace or '#') unread. */
static wc_status pnm_field(pnm_cursor *c, const char *what, uint32_t *out)
{
    size_t start = c->pos;
    for (;;) {
        WC_RETURN_IF(c->pos == c->size, c->err, WC_ERR_TRUNCATED,
                     "%s: truncated: header ends before the %s", c->name, what);
        if (c->p[c->pos] == '#')
            WC_FORWARD_IF_ERROR(pnm_skip_comment(c, what));
        else if (pnm_is_space(c->p[c->pos]))
            c->pos++;
        else
            break;
    }
    uint8_t ch = c->p[c->pos];
    WC_RETURN_IF(c->pos == start || ch < '0' || ch > '9', c->err, WC_ERR_FORMAT,
                 "%s: bad header: expected the %s at byte %zu", c->name, what, c->pos);
    uint64_t v = 0;
    while (c->pos < c->size && c->p[c->pos] >= '0' && c->p[c->pos] <= '9') {
        v = v * 10 + (uint64_t)(c->p[c->pos++] - '0');
        WC_RETURN_IF(v > UINT32_MAX, c->err, WC_ERR_FORMAT, "%s: %s is too large", c->name, what);
    }
    WC_RETURN_IF(c->pos == c->size, c->err, WC_ERR_TRUNCATED,
                 "%s: truncated: header ends after the %s", c->name, what);
    ch = c->p[c->pos];
    WC_RETURN_IF(!pnm_is_space(ch) && ch != '#', c->err, WC_ERR_FORMAT,
                 "%s: bad header: %s followed by byte 0x%02x at byte %zu", c->name, what,
                 (unsigned)ch, c->pos);
    *out = (uint32_t)v;
    return WC_OK;
}

static wc_status pnm_magic(const uint8_t *p, size_t size, pnm_header *h, wc_err *err)
{
    static const char *const others[8] = {NULL,         "plain PBM", "plain PGM", "plain PPM",
                                          "binary PBM", NULL,        NULL,        "PAM"};
    WC_RETURN_IF(size >= 1 && p[0] != 'P', err, WC_ERR_FORMAT, "PNM: not a PGM/PPM file");
    WC_RETURN_IF(size < 2, err, WC_ERR_TRUNCATED, "PNM: truncated: data ends in the magic number");
    if (p[1] == '5' || p[1] == '6') {
        h->name = p[1] == '5' ? "PGM" : "PPM";
        h->components = p[1] == '5' ? 1 : 3;
        return WC_OK;
    }
    int k = p[1] - '0';
    WC_RETURN_IF(k >= 1 && k <= 7 && others[k] != NULL, err, WC_ERR_UNSUPPORTED,
                 "PNM: P%d (%s) is not supported; only binary P5 and P6", k, others[k]);
    return wc_fail(err, WC_ERR_FORMAT, "PNM: not a PGM/PPM file");
}

static wc_status pnm_parse_header(const uint8_t *p, size_t size, pnm_header *h, wc_err *err)
{
    WC_FORWARD_IF_ERROR(pnm_magic(p, size, h, err));
    pnm_cursor c = {p, size, 2, h->name, err};
    WC_FORWARD_IF_ERROR(pnm_field(&c, "width", &h->width));
    WC_FORWARD_IF_ERROR(pnm_field(&c, "height", &h->height));
    WC_FORWARD_IF_ERROR(pnm_field(&c, "maxval", &h->maxval));
    WC_RETURN_IF(h->width == 0 || h->height == 0, err, WC_ERR_FORMAT,
                 "%s: size %" PRIu32 "x%" PRIu32 " has a zero side", h->name, h->width, h->height);
    WC_RETURN_IF(h->maxval < 1 || h->maxval > 65535, err, WC_ERR_FORMAT,
                 "%s: maxval %" PRIu32 " out of range 1..65535", h->name, h->maxval);
    /* The single separator after maxval; pnm_field saw it is one. */
    if (p[c.pos] == '#')
        WC_FORWARD_IF_ERROR(pnm_skip_comment(&c, "raster"));
    else
        c.pos++;
    h->data_at = c.pos;
    return WC_OK;
}

static uint32_t pnm_bits_for(uint32_t maxval)
{
    uint32_t bits = 1;
    while ((maxval >> bits) != 0) bits++;
    return bits;
}

/* Copies the raster into host-order samples, refusing any above maxval. */
/* The raster's samples as the image holds them, in place (each sample is
 * read before its place is written: a 16-bit sample's two bytes become one
 * word where they lay), and the first sample above maxval named. An 8-bit
 * raster is already the image's; with maxval 255 nothing can exceed it, so
 * the common PPM costs no pass at all (a pass a sample with its check took
 * most of an 8K PPM's read). */
static wc_status pnm_copy_samples(const pnm_header *h, const uint8_t *src, wc_image *img,
                                  wc_err *err)
{
    const size_t n = (size_t)h->width * h->height * h->components;
    size_t bad = n;
    uint32_t v = 0;
    if (img->bit_depth > 8) {
        uint16_t *out = (uint16_t *)img->pixels;
        uint32_t top = 0;
        for (size_t i = 0; i < n; i++) {
            const uint32_t x = (uint32_t)src[2 * i] << 8 | src[2 * i + 1];
            out[i] = (uint16_t)x;
            top = x > top ? x : top;
        }
        if (top > h->maxval)
            for (bad = 0; out[bad] <= h->maxval; bad++) continue;
        if (bad < n) v = out[bad];
    } else if (h->maxval < 255) {
        uint32_t top = 0;
        for (size_t i = 0; i < n; i++) top = src[i] > top ? src[i] : top;
        if (top > h->maxval)
            for (bad = 0; src[bad] <= h->maxval; bad++) continue;
        if (bad < n) v = src[bad];
    }
    if (bad < n) {
        const size_t px = bad / h->components;
        return wc_fail(err, WC_ERR_CORRUPT,
                       "%s: sample %" PRIu32
                       " at x=%zu, y=%zu, component %zu exceeds maxval %" PRIu32,
                       h->name, v, px % h->width, px / h->width, bad % h->components, h->maxval);
    }
    return WC_OK;
}

/* Reads the header into *buf, which grows (to PNM_HEADER_MAX) only while
 * the header is cut short; bytes read past it are the raster's first. */
static wc_status pnm_read_header(const img_source *src, size_t *pos, uint8_t **buf, size_t *len,
                                 pnm_header *h, wc_err *err)
{
    size_t cap = 0;
    int ended = 0;
    for (;;) {
        wc_err e = {{0}};
        wc_status s = *len ? pnm_parse_header(*buf, *len, h, &e) : WC_ERR_TRUNCATED;
        if (s != WC_ERR_TRUNCATED || ended || cap >= PNM_HEADER_MAX) {
            if (s == WC_ERR_TRUNCATED && *len == 0)
                return wc_fail(err, s, "PNM: truncated: no data");
            return s == WC_OK ? s : wc_fail(err, s, "%s", e.msg);
        }
        size_t ncap = cap ? 2 * cap : PNM_READ_CHUNK / 16;
        uint8_t *nb = wc_realloc(*buf, ncap);
        WC_RETURN_IF(nb == NULL, err, WC_ERR_NOMEM, "PNM: cannot allocate %zu bytes", ncap);
        *buf = nb;
        cap = ncap;
        size_t got = img_source_read(src, pos, *buf + *len, cap - *len, err);
        if (got == SIZE_MAX) return WC_ERR_IO;
        ended = got < cap - *len;
        *len += got;
    }
}

/* Reads the raster into out->pixels, growing the buffer as bytes arrive:
 * first what the header buffer already holds, then the source. */
static wc_status pnm_read_raster(const img_source *src, size_t *pos, const uint8_t *first,
                                 size_t nfirst, size_t total, const char *name, uint8_t **pixels,
                                 wc_err *err)
{
    size_t n = nfirst < total ? nfirst : total;
    size_t cap = n > PNM_READ_CHUNK * 16 ? n : PNM_READ_CHUNK * 16;
    cap = cap < total ? cap : total;
    uint8_t *b = wc_malloc(cap);
    WC_RETURN_IF(b == NULL, err, WC_ERR_NOMEM, "%s: cannot allocate %zu bytes", name, cap);
    memcpy(b, first, n);
    while (n < total) {
        if (n == cap) {
            size_t bigger = cap <= total / 2 ? cap * 2 : total;
            uint8_t *nb = wc_realloc(b, bigger);
            if (nb == NULL) {
                wc_free(b);
                return wc_fail(err, WC_ERR_NOMEM, "%s: cannot allocate %zu bytes", name, bigger);
            }
            b = nb;
            cap = bigger;
        }
        size_t got = img_source_read(src, pos, b + n, cap - n, err);
        if (got == SIZE_MAX || got < cap - n) {
            wc_free(b);
            if (got == SIZE_MAX) return WC_ERR_IO;
            return wc_fail(err, WC_ERR_TRUNCATED, "%s: truncated: %zu of %zu raster bytes", name,
                           n + got, total);
        }
        n += got;
    }
    *pixels = b;
    return WC_OK;
}

wc_status pnm_read_src(const img_source *src, const img_limits *lim, wc_image *img, wc_err *err)
{
    WC_RETURN_IF(img == NULL || src == NULL, err, WC_ERR_ARG, "PNM: no input or no output image");
    memset(img, 0, sizeof *img);
    uint8_t *head = NULL;
    size_t len = 0, pos = 0;
    pnm_header h = {0};
    wc_status s = pnm_read_header(src, &pos, &head, &len, &h, err);
    size_t bps = h.maxval > 255 ? 2 : 1, row = 0, total = 0;
    wc_image out = {h.width, h.height, h.components, 0, 0, NULL};
    if (s == WC_OK) {
        out.bit_depth = pnm_bits_for(h.maxval); /* maxval in 1..65535 once parsed */
        s = img_check_shape(lim, &out, len, err);
    }
    if (s == WC_OK && (wc_mul_overflow(h.width, h.components * bps, &row) ||
                       wc_mul_overflow(row, h.height, &total)))
        s = wc_fail(err, WC_ERR_LIMIT, "image %" PRIu32 "x%" PRIu32 " does not fit in memory",
                    h.width, h.height);
    /* A regular file too short for the raster its header claims fails
     * before the raster's memory is taken. */
    if (s == WC_OK && src->file_size && src->file_size - h.data_at < total)
        s = wc_fail(err, WC_ERR_TRUNCATED, "%s: truncated: %llu of %zu raster bytes", h.name,
                    (unsigned long long)(src->file_size - h.data_at), total);
    uint8_t *pixels = NULL;
    if (s == WC_OK)
        s = pnm_read_raster(src, &pos, head + h.data_at, len - h.data_at, total, h.name, &pixels,
                            err);
    wc_free(head);
    if (s != WC_OK) return s;
    out.stride = row;
    out.pixels = pixels;
    s = pnm_copy_samples(&h, pixels, &out, err); /* in place: each sample is read first */
    if (s != WC_OK) {
        wc_free(pixels);
        return s;
    }
    *img = out;
    return WC_OK;
}

wc_status pnm_read_shape(const img_source *src, wc_image *shape, uint64_t *data_at,
                         uint32_t *maxval, wc_err *err)
{
    WC_RETURN_IF(shape == NULL || src == NULL, err, WC_ERR_ARG, "PNM: no input or no shape");
    memset(shape, 0, sizeof *shape);
    uint8_t *head = NULL;
    size_t len = 0, pos = 0;
    pnm_header h = {0};
    wc_status s = pnm_read_header(src, &pos, &head, &len, &h, err);
    wc_free(head);
    if (s != WC_OK) return s;
    *shape = (wc_image){h.width, h.height, h.components, pnm_bits_for(h.maxval), 0, NULL};
    *data_at = h.data_at;
    *maxval = h.maxval;
    return WC_OK;
}

wc_status pnm_read_mem(const uint8_t *data, size_t size, uint64_t max_pixels, wc_image *img,
                       wc_err *err)
{
    WC_RETURN_IF(img == NULL || (data == NULL && size > 0), err, WC_ERR_ARG,
                 "PNM: no input or no output image");
    img_source src = {data, size, NULL, "data", size};
    img_limits lim = {max_pixels, 0, NULL, NULL};
    return pnm_read_src(&src, &lim, img, err);
}

wc_status pnm_read_file(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err)
{
    return img_read_path(path, max_pixels, "PNM", pnm_read_src, img, err);
}

/* ---- writing ------------------------------------------------------------- */

static wc_status pnm_check_image(const wc_image *img, size_t *row, wc_err *err)
{
    WC_RETURN_IF(img == NULL || img->pixels == NULL, err, WC_ERR_ARG, "PNM: no image to write");
    WC_RETURN_IF(img->components != 1 && img->components != 3, err, WC_ERR_UNSUPPORTED,
                 "PNM: %" PRIu32 " components cannot be written as PGM/PPM (1 or 3 only)",
                 img->components);
    WC_RETURN_IF(img->width == 0 || img->height == 0 || img->bit_depth < 1 || img->bit_depth > 16,
                 err, WC_ERR_ARG,
                 "PNM: cannot write a %" PRIu32 "x%" PRIu32 " image at %" PRIu32 " bits",
                 img->width, img->height, img->bit_depth);
    size_t bps = img->bit_depth > 8 ? 2 : 1;
    WC_RETURN_IF(wc_mul_overflow(img->width, img->components * bps, row), err, WC_ERR_ARG,
                 "PNM: image row too large");
    WC_RETURN_IF(img->stride != 0 && img->stride < *row, err, WC_ERR_ARG,
                 "PNM: stride %zu is less than the row size %zu", img->stride, *row);
    return WC_OK;
}

/* Converts row y to file order (big-endian when 16-bit) into out. */
static wc_status pnm_pack_row(const wc_image *img, uint32_t y, const uint8_t *src, uint8_t *out,
                              wc_err *err)
{
    uint32_t maxval = (1u << img->bit_depth) - 1;
    size_t n = (size_t)img->width * img->components;
    for (size_t i = 0; i < n; i++) {
        uint16_t v = src[i];
        if (img->bit_depth > 8) {
            memcpy(&v, src + 2 * i, 2); /* a stride may leave rows unaligned */
            out[2 * i] = (uint8_t)(v >> 8);
            out[2 * i + 1] = (uint8_t)v;
        } else {
            out[i] = (uint8_t)v;
        }
        WC_RETURN_IF(v > maxval, err, WC_ERR_ARG,
                     "PNM: sample %u at x=%zu, y=%" PRIu32 " exceeds maxval %" PRIu32, (unsigned)v,
                     i / img->components, y, maxval);
    }
    return WC_OK;
}

static wc_status pnm_write_rows(FILE *fp, const char *path, const wc_image *img, size_t row,
                                wc_err *err)
{
    size_t stride = img->stride ? img->stride : row;
    uint8_t *buf = wc_malloc(row);
    WC_RETURN_IF(buf == NULL, err, WC_ERR_NOMEM, "PNM: cannot allocate %zu bytes", row);
    wc_status s = WC_OK;
    if (fprintf(fp, "P%c\n%" PRIu32 " %" PRIu32 "\n%" PRIu32 "\n", img->components == 1 ? '5' : '6',
                img->width, img->height, (1u << img->bit_depth) - 1) < 0)
        s = wc_fail(err, WC_ERR_IO, "PNM: cannot write %s: %s", path, strerror(errno));
    for (uint32_t y = 0; s == WC_OK && y < img->height; y++) {
        s = pnm_pack_row(img, y, (const uint8_t *)img->pixels + (size_t)y * stride, buf, err);
        if (s == WC_OK && fwrite(buf, 1, row, fp) != row)
            s = wc_fail(err, WC_ERR_IO, "PNM: cannot write %s: %s", path, strerror(errno));
    }
    wc_free(buf);
    return s;
}

wc_status pnm_write_fp(FILE *fp, const char *name, const wc_image *img, wc_err *err)
{
    size_t row = 0;
    WC_FORWARD_IF_ERROR(pnm_check_image(img, &row, err));
    wc_status s = pnm_write_rows(fp, name, img, row, err);
    if (fflush(fp) != 0 && s == WC_OK)
        s = wc_fail(err, WC_ERR_IO, "PNM: cannot write %s: %s", name, strerror(errno));
    return s;
}

wc_status pnm_write_file(const char *path, const wc_image *img, wc_err *err)
{
    size_t row = 0;
    WC_RETURN_IF(path == NULL, err, WC_ERR_ARG, "PNM: no output path");
    WC_FORWARD_IF_ERROR(pnm_check_image(img, &row, err));
    FILE *fp = fopen(path, "wb");
    WC_RETURN_IF(fp == NULL, err, WC_ERR_IO, "PNM: cannot create %s: %s", path, strerror(errno));
    wc_status s = pnm_write_rows(fp, path, img, row, err);
    if (fclose(fp) != 0 && s == WC_OK)
        s = wc_fail(err, WC_ERR_IO, "PNM: cannot write %s: %s", path, strerror(errno));
    if (s != WC_OK) remove(path); /* leave no half-written file behind */
    return s;
}

/* ---- writing row by row (a streaming decode's output) -------------------------- */

wc_status pnm_rows_head(FILE *fp, const char *name, const wc_image *shape, wc_err *err)
{
    wc_image one = *shape; /* checked as an image: the pixels are not read */
    uint8_t dummy = 0;
    one.pixels = &dummy;
    one.stride = 0;
    size_t row = 0;
    WC_FORWARD_IF_ERROR(pnm_check_image(&one, &row, err));
    WC_RETURN_IF(fprintf(fp, "P%c\n%" PRIu32 " %" PRIu32 "\n%" PRIu32 "\n",
                         shape->components == 1 ? '5' : '6', shape->width, shape->height,
                         (1u << shape->bit_depth) - 1) < 0,
                 err, WC_ERR_IO, "PNM: cannot write %s: %s", name, strerror(errno));
    return WC_OK;
}

wc_status pnm_rows_put(FILE *fp, const char *name, const wc_image *rows, uint32_t y, wc_err *err)
{
    size_t row = 0;
    WC_FORWARD_IF_ERROR(pnm_check_image(rows, &row, err));
    const size_t stride = rows->stride ? rows->stride : row;
    uint8_t *buf = wc_malloc(row);
    WC_RETURN_IF(buf == NULL, err, WC_ERR_NOMEM, "PNM: cannot allocate %zu bytes", row);
    wc_status s = WC_OK;
    for (uint32_t j = 0; s == WC_OK && j < rows->height; j++) {
        s = pnm_pack_row(rows, y + j, (const uint8_t *)rows->pixels + (size_t)j * stride, buf, err);
        if (s == WC_OK && fwrite(buf, 1, row, fp) != row)
            s = wc_fail(err, WC_ERR_IO, "PNM: cannot write %s: %s", name, strerror(errno));
    }
    wc_free(buf);
    return s;
}
