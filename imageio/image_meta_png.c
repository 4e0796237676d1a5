/*
 * image_meta_png.c -- a PNG file's metadata chunks, read into a wc_meta and
 * written back by inserting chunks after IHDR of a file the pixel writer
 * made (image_io.h). Plain chunk walking and zlib: libpng has already
 * checked the image itself.
 */
#include <string.h>
#include <zlib.h>

#include "image_buf.h"
#include "image_io.h"

#define XMP_KEY "XML:com.adobe.xmp"

static uint32_t rd32be(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wr32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Inflates a zlib stream of at most WC_META_MAX_VALUE bytes (new buffer). */
static wc_status inflate_value(const uint8_t *src, size_t n, uint8_t **out, size_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return WC_ERR_NOMEM;
    size_t cap = n * 4 + 256, len = 0;
    if (cap > WC_META_MAX_VALUE) cap = WC_META_MAX_VALUE;
    uint8_t *buf = wc_malloc(cap);
    wc_status s = buf ? WC_OK : WC_ERR_NOMEM;
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)n;
    while (s == WC_OK) {
        if (len == cap) {
            if (cap >= WC_META_MAX_VALUE) {
                s = WC_ERR_LIMIT;
                break;
            }
            size_t ncap = cap * 2 > WC_META_MAX_VALUE ? WC_META_MAX_VALUE : cap * 2;
            uint8_t *nb = wc_realloc(buf, ncap);
            if (!nb) {
                s = WC_ERR_NOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        z.next_out = buf + len;
        z.avail_out = (uInt)(cap - len);
        int r = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
        if (r == Z_STREAM_END) break;
        if (r != Z_OK && !(r == Z_BUF_ERROR && z.avail_out == 0)) s = WC_ERR_CORRUPT;
    }
    inflateEnd(&z);
    if (s != WC_OK) {
        wc_free(buf);
        return s;
    }
    *out = buf;
    *out_n = len;
    return WC_OK;
}

/* A keyword: 1..79 bytes ended by NUL within the chunk; returns its length
 * or 0. */
static size_t keyword(const uint8_t *d, size_t n)
{
    const uint8_t *z = memchr(d, 0, n < 80 ? n : 80);
    return z && z > d ? (size_t)(z - d) : 0;
}

/* One chunk's item(s); a chunk that is not metadata adds nothing. */
static wc_status read_chunk(uint32_t type, const uint8_t *d, size_t n, wc_meta *meta,
                            const char **why)
{
    char key[80];
    size_t k;
    uint8_t v[32];
#define T(a, b, c, e) \
    ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(e))
    switch (type) {
    case T('g', 'A', 'M', 'A'):
        if (n != 4) return *why = "not 4 bytes", WC_ERR_CORRUPT;
        wc_wr32le(v, rd32be(d));
        return wc_meta_add(meta, WC_META_GAMMA, 0, "", v, 4);
    case T('c', 'H', 'R', 'M'):
        if (n != 32) return *why = "not 32 bytes", WC_ERR_CORRUPT;
        for (int i = 0; i < 8; i++) wc_wr32le(v + 4 * i, rd32be(d + 4 * i));
        return wc_meta_add(meta, WC_META_CHROMATICITY, 0, "", v, 32);
    case T('s', 'R', 'G', 'B'):
        if (n != 1) return *why = "not 1 byte", WC_ERR_CORRUPT;
        return wc_meta_add(meta, WC_META_SRGB, 0, "", d, 1);
    case T('t', 'I', 'M', 'E'):
        if (n != 7) return *why = "not 7 bytes", WC_ERR_CORRUPT;
        v[0] = d[1];
        v[1] = d[0];
        memcpy(v + 2, d + 2, 5);
        return wc_meta_add(meta, WC_META_TIME, 0, "", v, 7);
    case T('p', 'H', 'Y', 's'): {
        if (n != 9) return *why = "not 9 bytes", WC_ERR_CORRUPT;
        double x = rd32be(d), y = rd32be(d + 4);
        memcpy(v, &x, 8);
        memcpy(v + 8, &y, 8);
        v[16] = d[8] == 1 ? 1 : 0;
        return wc_meta_add(meta, WC_META_RESOLUTION, 0, "", v, 17);
    }
    case T('e', 'X', 'I', 'f'): return wc_meta_add(meta, WC_META_EXIF, 0, "", d, n);
    case T('t', 'E', 'X', 't'):
        if (!(k = keyword(d, n))) return *why = "no keyword", WC_ERR_CORRUPT;
        memcpy(key, d, k);
        key[k] = '\0';
        return wc_meta_add(meta, WC_META_TEXT, 0, key, d + k + 1, n - k - 1);
    case T('z', 'T', 'X', 't'):
    case T('i', 'C', 'C', 'P'):
    case T('i', 'T', 'X', 't'): {
        if (!(k = keyword(d, n))) return *why = "no keyword", WC_ERR_CORRUPT;
        memcpy(key, d, k);
        key[k] = '\0';
        size_t at = k + 1;
        int compressed = type != T('i', 'T', 'X', 't');
        uint32_t flags = 0;
        if (type == T('i', 'T', 'X', 't')) {
            if (n - at < 2) return *why = "cut short", WC_ERR_CORRUPT;
            compressed = d[at] != 0;
            at += 2;
            for (int field = 0; field < 2; field++) { /* language, translated keyword */
                const uint8_t *z = memchr(d + at, 0, n - at);
                if (!z) return *why = "cut short", WC_ERR_CORRUPT;
                at = (size_t)(z - d) + 1;
            }
            flags = WC_META_TEXT_UTF8;
        } else {
            if (n - at < 1 || d[at] != 0)
                return *why = "unknown compression method", WC_ERR_CORRUPT;
            at += 1;
        }
        const uint8_t *val = d + at;
        size_t vn = n - at;
        uint8_t *plain = NULL;
        if (compressed) {
            wc_status s = inflate_value(val, vn, &plain, &vn);
            if (s != WC_OK) return *why = "its compressed data is damaged or too large", s;
            val = plain;
            flags |= WC_META_TEXT_COMPRESSED;
        }
        wc_status s;
        if (type == T('i', 'C', 'C', 'P'))
            s = wc_meta_add(meta, WC_META_ICC, 0, key, val, vn);
        else if (type == T('i', 'T', 'X', 't') && !strcmp(key, XMP_KEY))
            s = wc_meta_add(meta, WC_META_XMP, 0, "", val, vn);
        else
            s = wc_meta_add(meta, WC_META_TEXT, flags, key, val, vn);
        wc_free(plain);
        return s;
    }
    default: return WC_OK;
    }
}

/* 1 if type is a chunk PNG allows once and meta already has its item. */
static int once(uint32_t type, const wc_meta *meta)
{
    static const struct {
        uint32_t type;
        wc_meta_kind kind;
    } single[] = {
        {T('i', 'C', 'C', 'P'), WC_META_ICC},   {T('e', 'X', 'I', 'f'), WC_META_EXIF},
        {T('g', 'A', 'M', 'A'), WC_META_GAMMA}, {T('c', 'H', 'R', 'M'), WC_META_CHROMATICITY},
        {T('s', 'R', 'G', 'B'), WC_META_SRGB},  {T('p', 'H', 'Y', 's'), WC_META_RESOLUTION},
        {T('t', 'I', 'M', 'E'), WC_META_TIME}};
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
        if (single[i].type == type) return wc_meta_find(meta, single[i].kind, NULL) != NULL;
    return 0;
}

wc_status png_meta_read(const uint8_t *png, size_t size, wc_meta *meta, wc_err *err)
{
    WC_RETURN_IF(!png || size < 8 || memcmp(png, "\x89PNG\r\n\x1a\n", 8), err, WC_ERR_FORMAT,
                 "PNG: not a PNG file");
    size_t off = 8;
    while (off + 12 <= size) {
        uint32_t n = rd32be(png + off), type = rd32be(png + off + 4);
        WC_RETURN_IF(n > size - off - 12, err, WC_ERR_TRUNCATED,
                     "PNG: the chunk at byte %zu runs past the end of the file", off);
        const uint8_t *d = png + off + 8;
        char name[5] = {(char)png[off + 4], (char)png[off + 5], (char)png[off + 6],
                        (char)png[off + 7], 0};
        if (type == T('I', 'E', 'N', 'D')) break;
        const char *why = NULL;
        wc_status s = WC_OK;
        if (once(type, meta)) {
            /* A second copy of a chunk PNG allows once (libpng 1.6 writes
             * eXIf both before and after IDAT): the first one counts. */
        } else if (rd32be(d + n) != (uint32_t)crc32(0, png + off + 4, n + 4u)) {
            s = WC_ERR_CHECKSUM;
            why = "CRC mismatch";
        } else {
            s = read_chunk(type, d, n, meta, &why);
        }
        WC_RETURN_IF(s != WC_OK, err, s, "PNG: %s chunk at byte %zu: %s (--strip skips metadata)",
                     name, off, why ? why : wc_strerror(s));
        off += 12 + (size_t)n;
    }
    return WC_OK;
}

/* ---- writing ----------------------------------------------------------------- */

static void out_bytes(imgio_buf *b, const void *d, size_t n) { imgio_buf_put(b, d, n); }

/* Appends a chunk whose data is the concatenation of up to three parts. */
static void put_chunk(imgio_buf *b, const char *type, const void *a, size_t an, const void *c,
                      size_t cn, const void *e, size_t en)
{
    uint8_t head[8];
    wr32be(head, (uint32_t)(an + cn + en));
    memcpy(head + 4, type, 4);
    size_t start = b->n;
    out_bytes(b, head, 8);
    out_bytes(b, a, an);
    out_bytes(b, c, cn);
    out_bytes(b, e, en);
    if (b->failed) return;
    uint8_t crc[4];
    wr32be(crc, (uint32_t)crc32(0, b->p + start + 4, (uInt)(an + cn + en + 4)));
    out_bytes(b, crc, 4);
}

static wc_status deflate_value(const uint8_t *src, size_t n, uint8_t **out, size_t *out_n)
{
    uLongf cap = compressBound((uLong)n);
    uint8_t *buf = wc_malloc(cap);
    if (!buf) return WC_ERR_NOMEM;
    if (compress2(buf, &cap, src, (uLong)n, 9) != Z_OK) {
        wc_free(buf);
        return WC_ERR_NOMEM;
    }
    *out = buf;
    *out_n = cap;
    return WC_OK;
}

/* One item as a chunk. */
static wc_status put_item(imgio_buf *b, const wc_meta_item *it)
{
    const uint8_t *v = it->data;
    uint8_t f[32];
    const size_t kn = strlen(it->key) + 1; /* with its NUL */
    switch (it->kind) {
    case WC_META_GAMMA:
        wr32be(f, wc_rd32le(v));
        put_chunk(b, "gAMA", f, 4, NULL, 0, NULL, 0);
        return WC_OK;
    case WC_META_CHROMATICITY:
        for (int i = 0; i < 8; i++) wr32be(f + 4 * i, wc_rd32le(v + 4 * i));
        put_chunk(b, "cHRM", f, 32, NULL, 0, NULL, 0);
        return WC_OK;
    case WC_META_SRGB: put_chunk(b, "sRGB", v, 1, NULL, 0, NULL, 0); return WC_OK;
    case WC_META_TIME:
        f[0] = v[1];
        f[1] = v[0];
        memcpy(f + 2, v + 2, 5);
        put_chunk(b, "tIME", f, 7, NULL, 0, NULL, 0);
        return WC_OK;
    case WC_META_RESOLUTION: {
        double x, y, scale = v[16] == 2 ? 1 / 0.0254 : v[16] == 3 ? 100 : 1;
        memcpy(&x, v, 8);
        memcpy(&y, v + 8, 8);
        x = x * scale + 0.5;
        y = y * scale + 0.5;
        if (!(x >= 1 && x < 2147483648.0 && y >= 1 && y < 2147483648.0)) return WC_ERR_UNSUPPORTED;
        wr32be(f, (uint32_t)x);
        wr32be(f + 4, (uint32_t)y);
        f[8] = v[16] == 0 ? 0 : 1;
        put_chunk(b, "pHYs", f, 9, NULL, 0, NULL, 0);
        return WC_OK;
    }
    case WC_META_EXIF: put_chunk(b, "eXIf", v, it->size, NULL, 0, NULL, 0); return WC_OK;
    case WC_META_XMP:
        put_chunk(b, "iTXt", XMP_KEY "\0\0\0\0", sizeof XMP_KEY + 4, v, it->size, NULL, 0);
        return WC_OK;
    case WC_META_ICC:
    case WC_META_TEXT: {
        const int icc = it->kind == WC_META_ICC;
        const int compress = icc || (it->flags & WC_META_TEXT_COMPRESSED);
        const char *key = icc && !it->key[0] ? "ICC profile" : it->key;
        uint8_t *z = NULL;
        size_t zn = it->size;
        if (compress) WC_FORWARD_IF_ERROR(deflate_value(v, it->size, &z, &zn));
        const void *val = z ? z : v;
        if (icc)
            put_chunk(b, "iCCP", key, strlen(key) + 1, "\0", 1, val, zn);
        else if (it->flags & WC_META_TEXT_UTF8)
            put_chunk(b, "iTXt", key, kn, compress ? "\1\0\0\0" : "\0\0\0\0", 4, val, zn);
        else if (compress)
            put_chunk(b, "zTXt", key, kn, "\0", 1, val, zn);
        else
            put_chunk(b, "tEXt", key, kn - 1, "\0", 1, val, zn);
        wc_free(z);
        return WC_OK;
    }
    }
    return WC_ERR_UNSUPPORTED;
}

wc_status png_meta_insert(const uint8_t *png, size_t size, const wc_meta *meta, uint8_t **out,
                          size_t *out_size, wc_err *err)
{
    WC_RETURN_IF(!png || size < 33 || memcmp(png, "\x89PNG\r\n\x1a\n", 8) ||
                     rd32be(png + 8) != 13 || rd32be(png + 12) != T('I', 'H', 'D', 'R'),
                 err, WC_ERR_FORMAT, "PNG: no IHDR chunk to insert metadata after");
    imgio_buf b = {0};
    out_bytes(&b, png, 33);
    wc_status s = WC_OK;
    for (size_t i = 0; i < wc_meta_count(meta) && s == WC_OK; i++) {
        const wc_meta_item *it = wc_meta_get(meta, i);
        s = put_item(&b, it);
        if (s != WC_OK)
            wc_fail(err, s, "PNG: cannot write the %s item %zu", wc_meta_kind_name(it->kind), i);
    }
    out_bytes(&b, png + 33, size - 33);
    if (s == WC_OK && b.failed) s = wc_fail(err, WC_ERR_NOMEM, "PNG: out of memory (metadata)");
    if (s != WC_OK) {
        wc_free(b.p);
        return s;
    }
    *out = b.p;
    *out_size = b.n;
    return WC_OK;
}
