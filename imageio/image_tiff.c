/*
 * image_tiff.c -- TIFF through libtiff, from and to memory (image_io.h).
 *
 * Reading checks the claimed geometry against the pixel limit and against
 * what the file's bytes can hold under its compression before allocating,
 * then decodes a strip or a row of tiles at a time into a pixel buffer that
 * grows as the rows arrive, so a lying header costs at most what its data
 * really decodes to. libtiff's messages are caught per file (its *ExtR
 * handlers), so threads reading different files do not mix them.
 */
#define _FILE_OFFSET_BITS 64
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>

#include "image_io.h"

/* ---- memory streams for TIFFClientOpen -------------------------------------- */

typedef struct tiff_mem {
    const uint8_t *src; /* reading */
    uint8_t *buf;       /* writing (grows) */
    size_t size, cap, pos;
    int failed; /* a write could not grow the buffer */
    FILE *fp;   /* by rows: the file itself, through stdio */
    wc_err err; /* libtiff's first error */
} tiff_mem;

static tmsize_t mem_read(thandle_t h, void *dst, tmsize_t n)
{
    tiff_mem *m = h;
    if (m->fp) return n < 0 ? -1 : (tmsize_t)fread(dst, 1, (size_t)n, m->fp);
    const uint8_t *from = m->src ? m->src : m->buf;
    if (n < 0 || m->pos >= m->size) return 0;
    size_t k = (size_t)n < m->size - m->pos ? (size_t)n : m->size - m->pos;
    memcpy(dst, from + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *src, tmsize_t n)
{
    tiff_mem *m = h;
    if (m->fp) return n < 0 || fwrite(src, 1, (size_t)n, m->fp) != (size_t)n ? -1 : n;
    if (m->src || n < 0 || m->failed) return -1;
    size_t need = m->pos + (size_t)n;
    if (need > (size_t)1 << 40) return -1;
    if (need > m->cap) {
        size_t ncap = m->cap ? m->cap : 1 << 16;
        while (ncap < need) ncap *= 2;
        uint8_t *nb = wc_realloc(m->buf, ncap);
        if (!nb) {
            m->failed = 1;
            return -1;
        }
        m->buf = nb;
        m->cap = ncap;
    }
    if (m->pos > m->size) memset(m->buf + m->size, 0, m->pos - m->size);
    memcpy(m->buf + m->pos, src, (size_t)n);
    m->pos = need;
    if (need > m->size) m->size = need;
    return n;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    tiff_mem *m = h;
    if (m->fp) {
        if (off > (toff_t)INT64_MAX || fseeko(m->fp, (off_t)off, whence) != 0) return (toff_t)-1;
        const off_t at = ftello(m->fp);
        return at < 0 ? (toff_t)-1 : (toff_t)at;
    }
    uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    uint64_t to = base + off;
    if (to > (uint64_t)1 << 40) return (toff_t)-1;
    m->pos = (size_t)to;
    return to;
}

static int mem_close(thandle_t h)
{
    (void)h;
    return 0;
}
static toff_t mem_size(thandle_t h)
{
    const tiff_mem *m = h;
    struct stat st;
    if (m->fp) return fstat(fileno(m->fp), &st) == 0 ? (toff_t)st.st_size : 0;
    return m->size;
}
static int mem_map(thandle_t h, void **base, toff_t *size)
{
    (void)h;
    (void)base;
    (void)size;
    return 0;
}
static void mem_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    tiff_mem *m = user;
    if (!m->err.msg[0]) {
        char text[200];
        vsnprintf(text, sizeof text, fmt, ap);
        wc_fail(&m->err, WC_ERR_CORRUPT, "TIFF: %s%s%s", module ? module : "", module ? ": " : "",
                text);
    }
    return 1; /* handled: libtiff's global handler stays quiet */
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    (void)user;
    (void)module;
    (void)fmt;
    (void)ap;
    return 1;
}

static TIFF *mem_open(tiff_mem *m, const char *mode)
{
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, m);
    /* No single libtiff allocation above 256 MiB: a strip or tile that big
     * is refused rather than trusted. */
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, (tmsize_t)256 << 20);
    TIFF *t = TIFFClientOpenExt("memory", mode, m, mem_read, mem_write, mem_seek, mem_close,
                                mem_size, mem_map, mem_unmap, o);
    TIFFOpenOptionsFree(o);
    return t;
}

/* ---- samples ---------------------------------------------------------------- */

/* Unpacks n samples of bps bits from a row (MSB first; 8 and 16 bits as
 * bytes and host-order words, as libtiff hands them over) into dst at
 * positions 0, step, 2*step ... */
static void unpack(const uint8_t *src, unsigned bps, size_t n, int wide, void *dst, size_t step)
{
    uint8_t *d8 = dst;
    uint16_t *d16 = dst;
    if (bps == 8) {
        for (size_t i = 0; i < n; i++) d8[i * step] = src[i];
    } else if (bps == 16) {
        const uint16_t *s = (const void *)src;
        for (size_t i = 0; i < n; i++) {
            uint16_t v;
            memcpy(&v, s + i, 2);
            d16[i * step] = v;
        }
    } else {
        uint64_t acc = 0;
        unsigned have = 0;
        for (size_t i = 0; i < n; i++) {
            while (have < bps) {
                acc = acc << 8 | *src++;
                have += 8;
            }
            uint32_t v = (uint32_t)(acc >> (have - bps)) & ((1u << bps) - 1);
            have -= bps;
            if (wide)
                d16[i * step] = (uint16_t)v;
            else
                d8[i * step] = (uint8_t)v;
        }
    }
}

/* Packs n samples (contiguous) into a row of bps-bit samples, MSB first. */
static void pack(const void *src, unsigned bps, size_t n, int wide, uint8_t *dst, size_t row_bytes)
{
    const uint8_t *s8 = src;
    const uint16_t *s16 = src;
    if (bps == 8 || bps == 16) {
        memcpy(dst, src, n * (bps / 8));
        return;
    }
    memset(dst, 0, row_bytes);
    uint64_t acc = 0;
    unsigned have = 0;
    for (size_t i = 0; i < n; i++) {
        acc = acc << bps | (wide ? s16[i] : s8[i]);
        have += bps;
        while (have >= 8) {
            *dst++ = (uint8_t)(acc >> (have - 8));
            have -= 8;
        }
    }
    if (have) *dst = (uint8_t)(acc << (8 - have));
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct tiff_layout {
    uint32_t w, h;
    uint16_t spp, bps, photometric, planar, compression;
    int tiled;
    uint32_t tw, th, rps;
} tiff_layout;

/* The most bytes one byte of each compression can decode to. */
static uint64_t max_ratio(uint16_t compression)
{
    switch (compression) {
    case COMPRESSION_NONE: return 1;
    case COMPRESSION_PACKBITS: return 64; /* 2 bytes give at most 128 */
    case COMPRESSION_LZW: return 4096;    /* a 9+-bit code gives at most 4096 bytes */
    default: return 1100;                 /* deflate: at most 1032 */
    }
}

static const char *compression_name(uint16_t c)
{
    switch (c) {
    case COMPRESSION_CCITTRLE:
    case COMPRESSION_CCITTFAX3:
    case COMPRESSION_CCITTFAX4: return "CCITT";
    case COMPRESSION_OJPEG:
    case COMPRESSION_JPEG: return "JPEG";
    case COMPRESSION_LZMA: return "LZMA";
    case COMPRESSION_ZSTD: return "ZSTD";
    case COMPRESSION_WEBP: return "WebP";
    default: return "unknown";
    }
}

static wc_status read_layout(TIFF *t, tiff_layout *L, const img_limits *lim, size_t file_size,
                             wc_err *err)
{
    uint16_t fmt = SAMPLEFORMAT_UINT, extra_n = 0, *extra = NULL;
    memset(L, 0, sizeof *L);
    WC_RETURN_IF(!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &L->w) ||
                     !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &L->h),
                 err, WC_ERR_CORRUPT, "TIFF: no image width or height");
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &L->spp);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &L->bps);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &L->planar);
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &L->compression);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &fmt);
    TIFFGetFieldDefaulted(t, TIFFTAG_EXTRASAMPLES, &extra_n, &extra);
    WC_RETURN_IF(!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &L->photometric), err, WC_ERR_CORRUPT,
                 "TIFF: no PhotometricInterpretation tag");
    WC_RETURN_IF(L->w == 0 || L->h == 0, err, WC_ERR_CORRUPT, "TIFF: a %ux%u image", L->w, L->h);
    const uint64_t max_pixels = lim->max_pixels ? lim->max_pixels : WC_DEFAULT_MAX_PIXELS;
    WC_RETURN_IF((uint64_t)L->w * L->h > max_pixels, err, WC_ERR_LIMIT,
                 "TIFF: %ux%u is more than the limit of %llu pixels", L->w, L->h,
                 (unsigned long long)max_pixels);
    WC_RETURN_IF(fmt != SAMPLEFORMAT_UINT, err, WC_ERR_UNSUPPORTED,
                 "TIFF: sample format %u (only unsigned integers are supported)", fmt);
    WC_RETURN_IF(L->bps < 1 || L->bps > 16, err, WC_ERR_UNSUPPORTED,
                 "TIFF: %u bits per sample (1..16 are supported)", L->bps);
    int gray = L->photometric == PHOTOMETRIC_MINISBLACK || L->photometric == PHOTOMETRIC_MINISWHITE;
    int rgb = L->photometric == PHOTOMETRIC_RGB;
    WC_RETURN_IF(L->photometric == PHOTOMETRIC_PALETTE, err, WC_ERR_UNSUPPORTED,
                 "TIFF: palette images are not supported (convert to RGB first)");
    WC_RETURN_IF(!gray && !rgb, err, WC_ERR_UNSUPPORTED,
                 "TIFF: photometric interpretation %u (gray and RGB are supported)",
                 L->photometric);
    WC_RETURN_IF(gray ? (L->spp != 1 && L->spp != 2) : (L->spp != 3 && L->spp != 4), err,
                 WC_ERR_UNSUPPORTED,
                 "TIFF: %u samples per pixel for %s (gray: 1 or 2, RGB: 3 or 4)", L->spp,
                 gray ? "gray" : "RGB");
    WC_RETURN_IF(L->planar != PLANARCONFIG_CONTIG && L->planar != PLANARCONFIG_SEPARATE, err,
                 WC_ERR_CORRUPT, "TIFF: planar configuration %u", L->planar);
    uint16_t c = L->compression;
    WC_RETURN_IF(c != COMPRESSION_NONE && c != COMPRESSION_LZW && c != COMPRESSION_PACKBITS &&
                     c != COMPRESSION_ADOBE_DEFLATE && c != COMPRESSION_DEFLATE,
                 err, WC_ERR_UNSUPPORTED,
                 "TIFF: compression %u (%s) is not supported (none, LZW, deflate, PackBits are)", c,
                 compression_name(c));
    L->tiled = TIFFIsTiled(t);
    if (L->tiled) {
        WC_RETURN_IF(!TIFFGetField(t, TIFFTAG_TILEWIDTH, &L->tw) ||
                         !TIFFGetField(t, TIFFTAG_TILELENGTH, &L->th) || L->tw == 0 || L->th == 0,
                     err, WC_ERR_CORRUPT, "TIFF: tiles without a tile size");
    } else {
        TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &L->rps);
        if (L->rps == 0 || L->rps > L->h) L->rps = L->h;
    }
    /* What the header claims must fit in what the file holds. */
    uint64_t bits = (uint64_t)L->w * L->spp * L->bps;
    uint64_t claimed = (bits + 7) / 8 * L->h;
    uint64_t most = (uint64_t)file_size * max_ratio(c);
    WC_RETURN_IF(claimed > most, err, WC_ERR_TRUNCATED,
                 "TIFF: %ux%u x %u x %u-bit needs %llu bytes of samples; a %zu-byte file "
                 "holds at most %llu under its compression",
                 L->w, L->h, L->spp, L->bps, (unsigned long long)claimed, file_size,
                 (unsigned long long)most);
    /* The memory limits (the caller's encode estimate too), the file's
     * bytes counting as the reader's, before the pixels are allocated. */
    const wc_image shape = {L->w, L->h, L->spp, L->bps, 0, NULL};
    wc_err e = {{0}};
    wc_status s = img_check_shape(lim, &shape, file_size, &e);
    WC_RETURN_IF(s != WC_OK, err, s, "TIFF: %s", e.msg);
    return WC_OK;
}

/* The output grows by rows as they decode: room for rows [0, rows). */
typedef struct grow_image {
    wc_image *img;
    size_t cap;
} grow_image;

static wc_status grow_rows(grow_image *g, uint32_t rows, wc_err *err)
{
    size_t need = g->img->stride * rows;
    if (need <= g->cap) return WC_OK;
    size_t full = g->img->stride * g->img->height;
    size_t ncap = g->cap ? g->cap * 2 : (size_t)1 << 20;
    if (ncap < need) ncap = need;
    if (ncap > full) ncap = full;
    void *np = wc_realloc(g->img->pixels, ncap);
    WC_RETURN_IF(!np, err, WC_ERR_NOMEM, "TIFF: out of memory (%zu bytes of pixels)", ncap);
    g->img->pixels = np;
    g->cap = ncap;
    return WC_OK;
}

/* Copies one decoded segment: `rows` rows of `cols` pixels starting at
 * (x, y) from a buffer of rows src_row bytes apart. Planar data carries one
 * sample (plane) per segment. */
static void place(const tiff_layout *L, wc_image *img, const uint8_t *src, size_t src_row,
                  uint32_t x, uint32_t y, uint32_t cols, uint32_t rows, int plane)
{
    const int wide = img->bit_depth > 8;
    const size_t bytes = wide ? 2 : 1;
    const size_t step = L->planar == PLANARCONFIG_SEPARATE ? L->spp : 1;
    const size_t n = L->planar == PLANARCONFIG_SEPARATE ? cols : (size_t)cols * L->spp;
    for (uint32_t r = 0; r < rows; r++) {
        uint8_t *d = (uint8_t *)img->pixels + (size_t)(y + r) * img->stride +
                     ((size_t)x * L->spp + (plane > 0 ? plane : 0)) * bytes;
        unpack(src + r * src_row, L->bps, n, wide, d, step);
    }
}

static wc_status read_strips(TIFF *t, const tiff_layout *L, grow_image *g, tiff_mem *m, wc_err *err)
{
    const int planes = L->planar == PLANARCONFIG_SEPARATE ? L->spp : 1;
    const size_t spr = L->planar == PLANARCONFIG_SEPARATE ? 1 : L->spp;
    const size_t row = ((size_t)L->w * spr * L->bps + 7) / 8;
    const uint32_t per_plane = (L->h + L->rps - 1) / L->rps;
    uint8_t *buf = wc_malloc_array(row, L->rps);
    WC_RETURN_IF(!buf, err, WC_ERR_NOMEM, "TIFF: out of memory (a %u-row strip)", L->rps);
    wc_status s = WC_OK;
    for (uint32_t i = 0; i < per_plane && s == WC_OK; i++) {
        uint32_t y = i * L->rps, rows = L->h - y < L->rps ? L->h - y : L->rps;
        s = grow_rows(g, y + rows, err);
        for (int p = 0; p < planes && s == WC_OK; p++) {
            tmsize_t want = (tmsize_t)(row * rows);
            tmsize_t got = TIFFReadEncodedStrip(t, i + (uint32_t)p * per_plane, buf, want);
            if (got != want)
                s = wc_fail(err, got < 0 && m->err.msg[0] ? WC_ERR_CORRUPT : WC_ERR_TRUNCATED,
                            "TIFF: strip %u: %s", i + (uint32_t)p * per_plane,
                            m->err.msg[0] ? m->err.msg : "the data ends early");
            else
                place(L, g->img, buf, row, 0, y, L->w, rows, planes > 1 ? p : -1);
        }
    }
    wc_free(buf);
    return s;
}

static wc_status read_tiles(TIFF *t, const tiff_layout *L, grow_image *g, tiff_mem *m, wc_err *err)
{
    const int planes = L->planar == PLANARCONFIG_SEPARATE ? L->spp : 1;
    const size_t spr = L->planar == PLANARCONFIG_SEPARATE ? 1 : L->spp;
    const size_t row = ((size_t)L->tw * spr * L->bps + 7) / 8;
    size_t tile;
    WC_RETURN_IF(wc_mul_overflow(row, L->th, &tile) || tile > ((size_t)256 << 20), err,
                 WC_ERR_LIMIT, "TIFF: %ux%u tiles are too large", L->tw, L->th);
    uint8_t *buf = wc_malloc(tile);
    WC_RETURN_IF(!buf, err, WC_ERR_NOMEM, "TIFF: out of memory (a %ux%u tile)", L->tw, L->th);
    wc_status s = WC_OK;
    for (uint32_t y = 0; y < L->h && s == WC_OK; y += L->th) {
        uint32_t rows = L->h - y < L->th ? L->h - y : L->th;
        s = grow_rows(g, y + rows, err);
        for (uint32_t x = 0; x < L->w && s == WC_OK; x += L->tw) {
            uint32_t cols = L->w - x < L->tw ? L->w - x : L->tw;
            for (int p = 0; p < planes && s == WC_OK; p++) {
                uint32_t k = TIFFComputeTile(t, x, y, 0, (uint16_t)p);
                tmsize_t got = TIFFReadEncodedTile(t, k, buf, (tmsize_t)tile);
                if (got != (tmsize_t)tile)
                    s = wc_fail(err, got < 0 && m->err.msg[0] ? WC_ERR_CORRUPT : WC_ERR_TRUNCATED,
                                "TIFF: tile %u: %s", k,
                                m->err.msg[0] ? m->err.msg : "the data ends early");
                else
                    place(L, g->img, buf, row, x, y, cols, rows, planes > 1 ? p : -1);
            }
        }
        if (y > UINT32_MAX - L->th) break;
    }
    wc_free(buf);
    return s;
}

/* Min-is-white gray becomes min-is-black (alpha is left alone). */
static void invert_gray(wc_image *img)
{
    const uint32_t max = (1u << img->bit_depth) - 1;
    const size_t n = (size_t)img->width * img->height;
    for (size_t i = 0; i < n; i++) {
        size_t k = i * img->components;
        if (img->bit_depth > 8)
            ((uint16_t *)img->pixels)[k] = (uint16_t)(max - ((uint16_t *)img->pixels)[k]);
        else
            ((uint8_t *)img->pixels)[k] = (uint8_t)(max - ((uint8_t *)img->pixels)[k]);
    }
}

/* TIFF's text tags and the keywords they travel under (PNG's where it has
 * one). */
static const struct {
    uint32_t tag;
    const char *key;
} text_tags[] = {
    {TIFFTAG_IMAGEDESCRIPTION, "Description"},
    {TIFFTAG_DOCUMENTNAME, "Title"},
    {TIFFTAG_ARTIST, "Author"},
    {TIFFTAG_COPYRIGHT, "Copyright"},
    {TIFFTAG_SOFTWARE, "Software"},
    {TIFFTAG_MAKE, "Make"},
    {TIFFTAG_MODEL, "Model"},
    {TIFFTAG_HOSTCOMPUTER, "HostComputer"},
    {TIFFTAG_PAGENAME, "PageName"},
};

static wc_status read_meta(TIFF *t, const uint8_t *data, size_t size, wc_meta *meta, wc_err *err)
{
    uint32_t n = 0;
    void *p = NULL;
    char *str = NULL;
    wc_status s = WC_OK;
#define ADD(...) \
    if (s == WC_OK) s = wc_meta_add(meta, __VA_ARGS__)
    if (TIFFGetField(t, TIFFTAG_ICCPROFILE, &n, &p) && n) ADD(WC_META_ICC, 0, "", p, n);
    if (TIFFGetField(t, TIFFTAG_XMLPACKET, &n, &p) && n) ADD(WC_META_XMP, 0, "", p, n);
    float xr, yr;
    uint16_t unit = RESUNIT_INCH;
    if (TIFFGetField(t, TIFFTAG_XRESOLUTION, &xr) && TIFFGetField(t, TIFFTAG_YRESOLUTION, &yr)) {
        TIFFGetFieldDefaulted(t, TIFFTAG_RESOLUTIONUNIT, &unit);
        uint8_t v[17];
        double x = xr, y = yr;
        memcpy(v, &x, 8);
        memcpy(v + 8, &y, 8);
        v[16] = unit == RESUNIT_INCH ? 2 : unit == RESUNIT_CENTIMETER ? 3 : 0;
        ADD(WC_META_RESOLUTION, 0, "", v, sizeof v);
    }
    float *wp = NULL, *pc = NULL;
    if (TIFFGetField(t, TIFFTAG_WHITEPOINT, &wp) &&
        TIFFGetField(t, TIFFTAG_PRIMARYCHROMATICITIES, &pc)) {
        uint8_t v[32];
        const float xy[8] = {wp[0], wp[1], pc[0], pc[1], pc[2], pc[3], pc[4], pc[5]};
        for (int i = 0; i < 8; i++) {
            float f = xy[i] * 100000.0f + 0.5f;
            wc_wr32le(v + 4 * i, f > 0 && f < 4e9f ? (uint32_t)f : 0);
        }
        ADD(WC_META_CHROMATICITY, 0, "", v, sizeof v);
    }
    unsigned yy, mo, dd, hh, mi, ss;
    if (TIFFGetField(t, TIFFTAG_DATETIME, &str) &&
        sscanf(str, "%4u:%2u:%2u %2u:%2u:%2u", &yy, &mo, &dd, &hh, &mi, &ss) == 6 && mo >= 1 &&
        mo <= 12 && dd >= 1 && dd <= 31 && hh < 24 && mi < 60 && ss < 61) {
        uint8_t v[7] = {(uint8_t)yy, (uint8_t)(yy >> 8), (uint8_t)mo, (uint8_t)dd,
                        (uint8_t)hh, (uint8_t)mi,        (uint8_t)ss};
        ADD(WC_META_TIME, 0, "", v, sizeof v);
    }
    for (size_t i = 0; i < sizeof text_tags / sizeof text_tags[0]; i++)
        if (TIFFGetField(t, text_tags[i].tag, &str) && str && *str)
            ADD(WC_META_TEXT, WC_META_TEXT_UTF8, text_tags[i].key, str, strlen(str));
    uint64_t exif_off = 0;
    uint8_t *exif = NULL;
    size_t exif_n = 0;
    /* A damaged EXIF directory is left behind, as libtiff leaves it. */
    if (!TIFFIsBigTIFF(t) && TIFFGetField(t, TIFFTAG_EXIFIFD, &exif_off) && exif_off &&
        exif_from_tiff(data, size, exif_off, &exif, &exif_n) == WC_OK)
        ADD(WC_META_EXIF, 0, "", exif, exif_n);
    wc_free(exif);
#undef ADD
    WC_RETURN_IF(s != WC_OK, err, s, "TIFF: metadata: %s", wc_strerror(s));
    return WC_OK;
}

wc_status tiff_read_mem(const uint8_t *data, size_t size, unsigned page, uint64_t max_pixels,
                        wc_image *img, wc_meta *meta, unsigned *pages, wc_err *err)
{
    const img_limits lim = {max_pixels, WC_DEFAULT_MAX_MEMORY, NULL, NULL};
    return tiff_read_lim(data, size, page, &lim, img, meta, pages, err);
}

wc_status tiff_read_lim(const uint8_t *data, size_t size, unsigned page, const img_limits *lim,
                        wc_image *img, wc_meta *meta, unsigned *pages, wc_err *err)
{
    WC_RETURN_IF(!img, err, WC_ERR_ARG, "TIFF: no image");
    memset(img, 0, sizeof *img);
    WC_RETURN_IF(!data, err, WC_ERR_ARG, "TIFF: no data");
    WC_RETURN_IF(!lim, err, WC_ERR_ARG, "TIFF: no limits");
    if (!page) page = 1;
    tiff_mem m = {.src = data, .size = size};
    TIFF *t = mem_open(&m, "rm");
    WC_RETURN_IF(!t, err, size < 8 ? WC_ERR_TRUNCATED : WC_ERR_CORRUPT, "%s",
                 m.err.msg[0] ? m.err.msg : "TIFF: cannot open");
    unsigned count = TIFFNumberOfDirectories(t);
    if (pages) *pages = count;
    wc_status s = WC_OK;
    if (page > count || (page > 1 && !TIFFSetDirectory(t, (tdir_t)(page - 1))))
        s = wc_fail(err, WC_ERR_ARG, "TIFF: no page %u (the file has %u)", page, count);
    tiff_layout L = {0};
    if (s == WC_OK) s = read_layout(t, &L, lim, size, err);
    if (s == WC_OK) {
        *img = (wc_image){L.w, L.h, L.spp, L.bps, 0, NULL};
        img->stride = wc_image_row_bytes(img);
        grow_image g = {img, 0};
        s = L.tiled ? read_tiles(t, &L, &g, &m, err) : read_strips(t, &L, &g, &m, err);
    }
    if (s == WC_OK && L.photometric == PHOTOMETRIC_MINISWHITE) invert_gray(img);
    if (s == WC_OK && meta) s = read_meta(t, data, size, meta, err);
    TIFFClose(t);
    if (s != WC_OK) wc_image_free(img);
    return s;
}

/* ---- writing ---------------------------------------------------------------- */

static unsigned write_meta(TIFF *t, const wc_meta *meta)
{
    unsigned dropped = 0;
    int res = 0, chrm = 0, exif = 0, desc[sizeof text_tags / sizeof text_tags[0]] = {0};
    for (size_t i = 0; i < wc_meta_count(meta); i++) {
        const wc_meta_item *it = wc_meta_get(meta, i);
        const uint8_t *v = it->data;
        switch (it->kind) {
        case WC_META_ICC: TIFFSetField(t, TIFFTAG_ICCPROFILE, (uint32_t)it->size, v); break;
        case WC_META_XMP: TIFFSetField(t, TIFFTAG_XMLPACKET, (uint32_t)it->size, v); break;
        case WC_META_RESOLUTION: {
            if (res++) break;
            double x, y;
            memcpy(&x, v, 8);
            memcpy(&y, v + 8, 8);
            uint16_t unit = v[16] == 2   ? RESUNIT_INCH
                            : v[16] == 0 ? RESUNIT_NONE
                                         : RESUNIT_CENTIMETER;
            if (v[16] == 1) { /* per metre: TIFF counts per centimetre */
                x /= 100;
                y /= 100;
            }
            TIFFSetField(t, TIFFTAG_XRESOLUTION, (float)x);
            TIFFSetField(t, TIFFTAG_YRESOLUTION, (float)y);
            TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, unit);
            break;
        }
        case WC_META_CHROMATICITY: {
            if (chrm++) break;
            float wp[2], pc[6];
            for (int k = 0; k < 8; k++) {
                float f = (float)wc_rd32le(v + 4 * k) / 100000.0f;
                if (k < 2)
                    wp[k] = f;
                else
                    pc[k - 2] = f;
            }
            TIFFSetField(t, TIFFTAG_WHITEPOINT, wp);
            TIFFSetField(t, TIFFTAG_PRIMARYCHROMATICITIES, pc);
            break;
        }
        case WC_META_TIME: {
            char s[24];
            snprintf(s, sizeof s, "%04u:%02u:%02u %02u:%02u:%02u", wc_rd16le(v) % 10000u,
                     v[2] % 100u, v[3] % 100u, v[4] % 100u, v[5] % 100u, v[6] % 100u);
            TIFFSetField(t, TIFFTAG_DATETIME, s);
            break;
        }
        case WC_META_TEXT: {
            size_t k = 0, nt = sizeof text_tags / sizeof text_tags[0];
            while (k < nt && strcmp(text_tags[k].key, it->key)) k++;
            if (k == nt || desc[k]++ || memchr(v, 0, it->size)) {
                dropped |= 1u << it->kind;
                break;
            }
            char *s = wc_malloc(it->size + 1);
            if (!s) {
                dropped |= 1u << it->kind;
                break;
            }
            memcpy(s, v, it->size);
            s[it->size] = '\0';
            TIFFSetField(t, text_tags[k].tag, s);
            wc_free(s);
            break;
        }
        case WC_META_EXIF: /* appended after the file is written */
            /* The first EXIF item only (tiff_write_mem appends it). */
            if (!exif++ && exif_usable(v, it->size))
                TIFFSetField(t, TIFFTAG_EXIFIFD, (uint64_t)0);
            else
                dropped |= 1u << it->kind;
            break;
        default: /* gamma, sRGB: no TIFF field */ dropped |= 1u << it->kind;
        }
    }
    return dropped;
}

/* The fields of a written file (whole or by rows: the same bytes). */
static unsigned set_fields(TIFF *t, const wc_image *img, const wc_meta *meta)
{
    const uint16_t spp = (uint16_t)img->components, bps = (uint16_t)img->bit_depth;
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, img->width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, img->height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spp);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bps);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
    if (bps == 8 || bps == 16) TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    if (spp == 2 || spp == 4) {
        uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &alpha);
    }
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
    return meta ? write_meta(t, meta) : 0;
}

wc_status tiff_write_mem(const wc_image *img, const wc_meta *meta, uint8_t **out, size_t *size,
                         unsigned *dropped, wc_err *err)
{
    WC_RETURN_IF(!img || !img->pixels || !out || !size, err, WC_ERR_ARG, "TIFF: missing argument");
    WC_RETURN_IF(img->width == 0 || img->height == 0 || img->components < 1 ||
                     img->components > 4 || img->bit_depth < 1 || img->bit_depth > 16,
                 err, WC_ERR_ARG, "TIFF: cannot write a %ux%u x %u %u-bit image", img->width,
                 img->height, img->components, img->bit_depth);
    *out = NULL;
    *size = 0;
    tiff_mem m = {0};
    TIFF *t = mem_open(&m, "wl");
    WC_RETURN_IF(!t, err, WC_ERR_NOMEM, "%s",
                 m.err.msg[0] ? m.err.msg : "TIFF: cannot start a file");
    const uint16_t spp = (uint16_t)img->components, bps = (uint16_t)img->bit_depth;
    unsigned drop = set_fields(t, img, meta);
    const size_t n = (size_t)img->width * spp;
    const size_t row = (n * bps + 7) / 8;
    const size_t stride = img->stride ? img->stride : wc_image_row_bytes(img);
    uint8_t *buf = wc_malloc(row);
    wc_status s = buf ? WC_OK : wc_fail(err, WC_ERR_NOMEM, "TIFF: out of memory");
    for (uint32_t y = 0; y < img->height && s == WC_OK; y++) {
        pack((const uint8_t *)img->pixels + y * stride, bps, n, bps > 8, buf, row);
        if (TIFFWriteScanline(t, buf, y, 0) != 1)
            s = wc_fail(err, m.failed ? WC_ERR_NOMEM : WC_ERR_IO, "TIFF: row %u: %s", y,
                        m.err.msg[0] ? m.err.msg : "cannot write");
    }
    wc_free(buf);
    if (s == WC_OK && !TIFFWriteDirectory(t))
        s = wc_fail(err, m.failed ? WC_ERR_NOMEM : WC_ERR_IO, "%s",
                    m.err.msg[0] ? m.err.msg : "TIFF: cannot write the directory");
    TIFFClose(t);
    if (s == WC_OK && m.failed) s = wc_fail(err, WC_ERR_NOMEM, "TIFF: out of memory");
    const wc_meta_item *exif = wc_meta_find(meta, WC_META_EXIF, NULL);
    if (s == WC_OK && exif && exif_usable(exif->data, exif->size)) {
        wc_status e = exif_into_tiff(&m.buf, &m.size, &m.cap, exif->data, exif->size);
        if (e != WC_OK) s = wc_fail(err, e, "TIFF: cannot append the EXIF directory");
    }
    if (s != WC_OK) {
        wc_free(m.buf);
        return s;
    }
    *out = m.buf;
    *size = m.size;
    if (dropped) *dropped = drop;
    return WC_OK;
}

/* ---- by rows ------------------------------------------------------------------ */

struct tiff_row_writer {
    tiff_mem m;
    TIFF *t;
    wc_image shape;
    uint8_t *buf;
    size_t n, row;
    uint32_t y;
    unsigned dropped;
};

wc_status tiff_rows_open(FILE *fp, const char *name, const wc_image *shape, const wc_meta *meta,
                         tiff_row_writer **out, wc_err *err)
{
    *out = NULL;
    const wc_meta_item *exif = wc_meta_find(meta, WC_META_EXIF, NULL);
    /* the EXIF directory is appended to a file's bytes once written */
    WC_RETURN_IF(exif && exif_usable(exif->data, exif->size), err, WC_ERR_UNSUPPORTED,
                 "%s: TIFF with EXIF is written whole", name);
    WC_RETURN_IF(shape->width == 0 || shape->height == 0 || shape->components < 1 ||
                     shape->components > 4 || shape->bit_depth < 1 || shape->bit_depth > 16,
                 err, WC_ERR_ARG, "%s: TIFF cannot hold a %ux%u x %u %u-bit image", name,
                 shape->width, shape->height, shape->components, shape->bit_depth);
    tiff_row_writer *w = wc_calloc(1, sizeof *w);
    WC_RETURN_IF(!w, err, WC_ERR_NOMEM, "%s: out of memory", name);
    w->m.fp = fp;
    w->shape = *shape;
    w->n = (size_t)shape->width * shape->components;
    w->row = (w->n * shape->bit_depth + 7) / 8;
    w->buf = wc_malloc(w->row);
    w->t = w->buf ? mem_open(&w->m, "wl") : NULL;
    if (!w->t) {
        wc_status s = wc_fail(err, w->buf ? WC_ERR_IO : WC_ERR_NOMEM, "%s: %s", name,
                              w->m.err.msg[0] ? w->m.err.msg : "TIFF: cannot start a file");
        wc_free(w->buf);
        wc_free(w);
        return s;
    }
    w->dropped = set_fields(w->t, shape, meta);
    *out = w;
    return WC_OK;
}

wc_status tiff_rows_put(tiff_row_writer *w, const wc_image *rows, wc_err *err)
{
    const size_t stride = rows->stride ? rows->stride : wc_image_row_bytes(rows);
    for (uint32_t j = 0; j < rows->height; j++, w->y++) {
        pack((const uint8_t *)rows->pixels + j * stride, w->shape.bit_depth, w->n,
             w->shape.bit_depth > 8, w->buf, w->row);
        WC_RETURN_IF(TIFFWriteScanline(w->t, w->buf, w->y, 0) != 1, err, WC_ERR_IO,
                     "TIFF: row %u: %s", w->y, w->m.err.msg[0] ? w->m.err.msg : "cannot write");
    }
    return WC_OK;
}

wc_status tiff_rows_close(tiff_row_writer *w, int finish, unsigned *dropped, wc_err *err)
{
    if (!w) return WC_OK;
    wc_status s = WC_OK;
    if (finish) {
        if (w->y != w->shape.height)
            s = wc_fail(err, WC_ERR_ARG, "TIFF: %u of %u rows written", w->y, w->shape.height);
        else if (!TIFFWriteDirectory(w->t))
            s = wc_fail(err, WC_ERR_IO, "%s",
                        w->m.err.msg[0] ? w->m.err.msg : "TIFF: cannot write the directory");
    }
    TIFFClose(w->t);
    if (dropped) *dropped = w->dropped;
    wc_free(w->buf);
    wc_free(w);
    return s;
}

/* A TIFF read a band of rows at a time: a strip, or a row of tiles (every
 * plane's), decoded as the whole reader decodes them (read_strips and
 * read_tiles' calls, place, the min-is-white inversion), into a band
 * image of those rows that hands them out. */
struct tiff_in_rows {
    tiff_mem m;
    TIFF *t;
    tiff_layout L;
    wc_image band; /* rows [band_y, band_y + band.height) */
    uint32_t band_y, y, band_rows;
    uint8_t *buf; /* one strip or tile */
    size_t buf_size, src_row;
};

/* Most bytes a band may hold (rows per strip or tile height times the
 * width): above it the whole reader serves. */
#define TIFF_ROWS_BAND_MAX ((size_t)64 << 20)

wc_status tiff_in_rows_open(FILE *fp, const char *name, uint64_t file_size, wc_image *shape,
                            tiff_in_rows **out, wc_err *err)
{
    *out = NULL;
    tiff_in_rows *r = wc_calloc(1, sizeof *r);
    WC_RETURN_IF(!r, err, WC_ERR_NOMEM, "out of memory");
    r->m.fp = fp;
    r->t = mem_open(&r->m, "rm");
    wc_status s = r->t ? WC_OK
                       : wc_fail(err, file_size < 8 ? WC_ERR_TRUNCATED : WC_ERR_CORRUPT, "%s",
                                 r->m.err.msg[0] ? r->m.err.msg : "TIFF: cannot open");
    const img_limits lim = {0, 0, NULL, NULL};
    if (s == WC_OK) s = read_layout(r->t, &r->L, &lim, (size_t)file_size, err);
    uint64_t exif_off = 0; /* read_meta finds EXIF in the file's bytes, held whole */
    if (s == WC_OK && !TIFFIsBigTIFF(r->t) && TIFFGetField(r->t, TIFFTAG_EXIFIFD, &exif_off) &&
        exif_off)
        s = wc_fail(err, WC_ERR_UNSUPPORTED, "TIFF: a file with EXIF is read whole");
    const tiff_layout *L = &r->L;
    if (s == WC_OK) {
        r->band_rows = L->tiled ? L->th : L->rps;
        r->band = (wc_image){L->w, r->band_rows, L->spp, L->bps, 0, NULL};
        r->band.stride = wc_image_row_bytes(&r->band);
        const size_t spr = L->planar == PLANARCONFIG_SEPARATE ? 1 : L->spp;
        r->src_row = ((size_t)(L->tiled ? L->tw : L->w) * spr * L->bps + 7) / 8;
        size_t band = 0;
        if (wc_mul_overflow(r->band.stride, r->band_rows, &band) || band > TIFF_ROWS_BAND_MAX ||
            wc_mul_overflow(r->src_row, r->band_rows, &r->buf_size) ||
            r->buf_size > TIFF_ROWS_BAND_MAX)
            s = wc_fail(err, WC_ERR_UNSUPPORTED, "TIFF: %u-row strips or tiles are read whole",
                        r->band_rows);
    }
    if (s == WC_OK) {
        r->band.pixels = wc_malloc(r->band.stride * r->band_rows);
        r->buf = wc_malloc(r->buf_size);
        if (!r->band.pixels || !r->buf) s = wc_fail(err, WC_ERR_NOMEM, "out of memory");
    }
    r->band_y = UINT32_MAX; /* none decoded */
    if (s != WC_OK) {
        r->m.fp = NULL;
        tiff_in_rows_close(r);
        return s;
    }
    (void)name;
    *shape = (wc_image){L->w, L->h, L->spp, L->bps, 0, NULL};
    *out = r;
    return WC_OK;
}

/* Decodes the band that starts at row y. */
static wc_status band_decode(tiff_in_rows *r, uint32_t y, wc_err *err)
{
    const tiff_layout *L = &r->L;
    const int planes = L->planar == PLANARCONFIG_SEPARATE ? L->spp : 1;
    const uint32_t rows = L->h - y < r->band_rows ? L->h - y : r->band_rows;
    wc_image *b = &r->band;
    r->band_y = UINT32_MAX;
    if (!L->tiled) {
        const uint32_t per_plane = (L->h + L->rps - 1) / L->rps, i = y / L->rps;
        for (int p = 0; p < planes; p++) {
            const tmsize_t want = (tmsize_t)(r->src_row * rows);
            const tmsize_t got =
                TIFFReadEncodedStrip(r->t, i + (uint32_t)p * per_plane, r->buf, want);
            WC_RETURN_IF(got != want, err,
                         got < 0 && r->m.err.msg[0] ? WC_ERR_CORRUPT : WC_ERR_TRUNCATED,
                         "TIFF: strip %u: %s", i + (uint32_t)p * per_plane,
                         r->m.err.msg[0] ? r->m.err.msg : "the data ends early");
            place(L, b, r->buf, r->src_row, 0, 0, L->w, rows, planes > 1 ? p : -1);
        }
    } else {
        for (uint32_t x = 0; x < L->w; x += L->tw) {
            const uint32_t cols = L->w - x < L->tw ? L->w - x : L->tw;
            for (int p = 0; p < planes; p++) {
                const uint32_t k = TIFFComputeTile(r->t, x, y, 0, (uint16_t)p);
                const tmsize_t got = TIFFReadEncodedTile(r->t, k, r->buf, (tmsize_t)r->buf_size);
                WC_RETURN_IF(got != (tmsize_t)r->buf_size, err,
                             got < 0 && r->m.err.msg[0] ? WC_ERR_CORRUPT : WC_ERR_TRUNCATED,
                             "TIFF: tile %u: %s", k,
                             r->m.err.msg[0] ? r->m.err.msg : "the data ends early");
                place(L, b, r->buf, r->src_row, x, 0, cols, rows, planes > 1 ? p : -1);
            }
            if (x > UINT32_MAX - L->tw) break;
        }
    }
    if (L->photometric == PHOTOMETRIC_MINISWHITE) {
        const uint32_t h = b->height;
        b->height = rows;
        invert_gray(b);
        b->height = h;
    }
    r->band_y = y;
    return WC_OK;
}

wc_status tiff_in_rows_read(tiff_in_rows *r, void *row, wc_err *err)
{
    WC_RETURN_IF(r->y >= r->L.h, err, WC_ERR_ARG, "read past the last row");
    if (r->band_y == UINT32_MAX || r->y < r->band_y || r->y - r->band_y >= r->band_rows)
        WC_FORWARD_IF_ERROR(band_decode(r, r->y - r->y % r->band_rows, err));
    memcpy(row, (const uint8_t *)r->band.pixels + (size_t)(r->y - r->band_y) * r->band.stride,
           r->band.stride);
    r->y++;
    return WC_OK;
}

wc_status tiff_in_rows_rewind(tiff_in_rows *r, wc_err *err)
{
    (void)err;
    r->y = 0; /* strips and tiles are read by their index: no stream to restart */
    return WC_OK;
}

wc_status tiff_in_rows_meta(tiff_in_rows *r, wc_meta *meta, wc_err *err)
{
    return read_meta(r->t, NULL, 0, meta, err); /* no EXIF: tiff_in_rows_open made sure */
}

void tiff_in_rows_close(tiff_in_rows *r)
{
    if (!r) return;
    if (r->t) TIFFClose(r->t);
    wc_free(r->band.pixels);
    wc_free(r->buf);
    wc_free(r);
}
