/* row_filter.c -- see row_filter.h. */
#define ZLIB_CONST
#include "row_filter.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "zcodec.h"

#define RF_FILTERS 5     /* none, sub, up, average, Paeth */
#define RF_MAX_PACKING 5 /* 1 << 5 = 32 bits a value */
#define RF_CONSTANT 6    /* packing 6: every value is the base, no stream */
#define RF_SCALED 0x80u  /* packing byte: a scale follows the base */
#define RF_RESERVED 0x78u
#define RF_RANK_LEVEL 6
#define RF_HEAD_MAX 11 /* packing byte, two 5-byte varints */

/* Bytes of one packed row of w values at `bits` each. */
static size_t rf_row_bytes(uint32_t w, unsigned bits) { return ((size_t)w * bits + 7) / 8; }

/* Distance in bytes to the left neighbour the filters use (PNG's bpp). */
static size_t rf_left(unsigned bits) { return bits < 8 ? 1 : bits / 8; }

static uint8_t rf_paeth(uint8_t a, uint8_t b, uint8_t c)
{
    const int p = (int)a + b - c;
    const int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/* The prediction filter f makes for byte i of a row (prev: the row above,
 * NULL on the first row). */
static uint8_t rf_predict(unsigned f, const uint8_t *cur, const uint8_t *prev, size_t i,
                          size_t left)
{
    const uint8_t a = i >= left ? cur[i - left] : 0, b = prev ? prev[i] : 0,
                  c = prev && i >= left ? prev[i - left] : 0;
    switch (f) {
    case 1: return a;
    case 2: return b;
    case 3: return (uint8_t)(((unsigned)a + b) >> 1);
    case 4: return rf_paeth(a, b, c);
    default: return 0;
    }
}

static void rf_filter_row(unsigned f, const uint8_t *cur, const uint8_t *prev, size_t rb,
                          size_t left, uint8_t *dst)
{
    for (size_t i = 0; i < rb; i++) dst[i] = (uint8_t)(cur[i] - rf_predict(f, cur, prev, i, left));
}

/* How the values are written: u = (value - base) / scale at 2^packing
 * bits (FORMAT.md, "Filtered deflate payloads"). */
typedef struct rf_form {
    unsigned packing;
    int32_t base;
    uint32_t scale;
} rf_form;

/* The values as u, packed as FORMAT.md says: below 8 bits the first
 * value in the high bits of a byte, wider values big-endian. */
static void rf_pack(const int32_t *data, size_t stride, uint32_t w, uint32_t h, const rf_form *f,
                    uint8_t *raw)
{
    const unsigned bits = 1u << f->packing;
    const size_t rb = rf_row_bytes(w, bits);
    memset(raw, 0, rb * h);
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *row = raw + (size_t)y * rb;
        const int32_t *src = data + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t u = (uint32_t)((uint64_t)((int64_t)src[x] - f->base) / f->scale);
            if (bits < 8) {
                const size_t bit = (size_t)x * bits;
                row[bit / 8] |= (uint8_t)(u << (8 - bits - bit % 8));
            } else {
                for (unsigned k = 0; k < bits / 8; k++)
                    row[(size_t)x * (bits / 8) + k] = (uint8_t)(u >> (bits - 8 - 8 * k));
            }
        }
    }
}

/* The filtered rows (a filter byte, then the row) for one choice: a filter
 * for every row (0..4), or (RF_FILTERS) per row the filter whose bytes,
 * read as signed, have the smallest sum of magnitudes (PNG's heuristic;
 * ties to the lower filter). */
static void rf_filter_all(const uint8_t *raw, uint32_t h, size_t rb, size_t left, unsigned choice,
                          uint8_t *out, uint8_t *trial)
{
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *cur = raw + (size_t)y * rb, *prev = y ? cur - rb : NULL;
        uint8_t *dst = out + (size_t)y * (rb + 1);
        unsigned f = choice;
        if (choice == RF_FILTERS) {
            uint64_t best = UINT64_MAX;
            for (unsigned t = 0; t < RF_FILTERS; t++) {
                rf_filter_row(t, cur, prev, rb, left, trial);
                uint64_t sum = 0;
                for (size_t i = 0; i < rb; i++) sum += (uint64_t)abs((int)(int8_t)trial[i]);
                if (sum < best) {
                    best = sum;
                    f = t;
                }
            }
        }
        dst[0] = (uint8_t)f;
        rf_filter_row(f, cur, prev, rb, left, dst + 1);
    }
}

/* The payload's head: packing byte (with RF_SCALED), base, scale. */
static size_t rf_put_head(const rf_form *f, uint8_t *p)
{
    p[0] = (uint8_t)(f->packing | (f->scale > 1 ? RF_SCALED : 0));
    const uint32_t zig = ((uint32_t)f->base << 1) ^ (f->base < 0 ? 0xFFFFFFFFu : 0u);
    size_t n = 1 + wc_leb128_put(p + 1, zig);
    if (f->scale > 1) n += wc_leb128_put(p + n, f->scale);
    return n;
}

static uint64_t rf_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* What optipng -o2 searches, per form: no filter and the per-row
 * heuristic (-f0,5), each through zlib's four strategies (-zs0-3). On
 * the graphics set the fixed filters 1-4 for all rows and memLevel 8
 * saved 0.6% of the bytes (gray16_levels 3828 -> 3544, the rest within
 * 4 bytes) for four times the encode time (the 14 images encoded one by
 * one on the 2-core machine: 37 s against 8 s). */
static const unsigned rf_filter_choices[] = {RF_FILTERS, 0};
static const int rf_strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_RLE, Z_HUFFMAN_ONLY};

typedef struct rf_best {
    uint8_t *buf; /* head + stream of the smallest so far */
    size_t size;  /* SIZE_MAX: none yet */
} rf_best;

/* Codes the values in form f, every trial; keeps what beats best. */
static wc_status rf_try_form(const int32_t *data, size_t stride, uint32_t w, uint32_t h,
                             const rf_form *f, rf_best *best, wc_err *err)
{
    const unsigned bits = 1u << f->packing;
    const size_t rb = rf_row_bytes(w, bits), left = rf_left(bits);
    const size_t nraw = rb * h, nfilt = (rb + 1) * h, bound = zc_bound(nfilt);
    WC_RETURN_IF(bound == SIZE_MAX, err, WC_ERR_LIMIT, "filtered deflate: block too large");
    uint8_t *raw = wc_malloc(nraw), *filt = wc_malloc(nfilt), *trial = wc_malloc(rb);
    uint8_t *cand = wc_malloc(RF_HEAD_MAX + bound);
    wc_status s = WC_OK;
    if (!raw || !filt || !trial || !cand)
        s = wc_fail(err, WC_ERR_NOMEM, "out of memory (filtered deflate, %zu bytes)", nfilt);
    size_t head = 0;
    if (s == WC_OK) {
        rf_pack(data, stride, w, h, f, raw);
        head = rf_put_head(f, cand);
    }
    /* Each filter choice and strategy ranked at level 6, then the first
     * smallest coded at level 9: on the graphics set 2 bytes more in all
     * than level 9 for every trial (50105 against 50103) in half the
     * encode time (3.2 s against 6.7 s for the 14 images; ranking at
     * level 3 costs 4% more bytes). The bytes depend on the values alone. */
    const int rank_level = RF_RANK_LEVEL;
    size_t rank_best = SIZE_MAX, best_fc = 0, best_k = 0;
    for (size_t fc = 0; fc < sizeof rf_filter_choices / sizeof rf_filter_choices[0] && s == WC_OK;
         fc++) {
        rf_filter_all(raw, h, rb, left, rf_filter_choices[fc], filt, trial);
        for (size_t k = 0; k < sizeof rf_strategies / sizeof rf_strategies[0] && s == WC_OK; k++) {
            size_t zs = 0;
            s = zc_compress_raw(filt, nfilt, rank_level, rf_strategies[k], cand + head, bound, &zs,
                                err);
            if (s == WC_OK && zs < rank_best) {
                rank_best = zs;
                best_fc = fc;
                best_k = k;
            }
        }
    }
    size_t zs = 0;
    if (s == WC_OK) {
        rf_filter_all(raw, h, rb, left, rf_filter_choices[best_fc], filt, trial);
        s = zc_compress_raw(filt, nfilt, 9, rf_strategies[best_k], cand + head, bound, &zs, err);
    }
    if (s == WC_OK && head + zs < best->size) {
        uint8_t *keep = wc_malloc(head + zs);
        if (!keep) {
            s = wc_fail(err, WC_ERR_NOMEM, "out of memory (filtered deflate)");
        } else {
            memcpy(keep, cand, head + zs);
            wc_free(best->buf);
            best->buf = keep;
            best->size = head + zs;
        }
    }
    wc_free(raw);
    wc_free(filt);
    wc_free(trial);
    wc_free(cand);
    return s;
}

static unsigned rf_packing_for(uint64_t range)
{
    unsigned packing = 0;
    while (packing < RF_MAX_PACKING && range >> (1u << packing)) packing++;
    return packing;
}

wc_status rf_encode(const int32_t *data, size_t stride, uint32_t w, uint32_t h, uint8_t **out,
                    size_t *size, wc_err *err)
{
    *out = NULL;
    *size = 0;
    WC_RETURN_IF(w == 0 || h == 0, err, WC_ERR_ARG, "filtered deflate: empty block");
    int32_t lo = data[0], hi = data[0];
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const int32_t v = data[(size_t)y * stride + x];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    const uint64_t range = (uint64_t)((int64_t)hi - lo);
    if (range == 0) { /* a constant plane: its value, no stream */
        uint8_t *p = wc_malloc(RF_HEAD_MAX);
        WC_RETURN_IF(!p, err, WC_ERR_NOMEM, "out of memory (filtered deflate)");
        const rf_form f = {RF_CONSTANT, lo, 1};
        *size = rf_put_head(&f, p);
        *out = p;
        return WC_OK;
    }
    /* Values on a lattice (a few grey levels 0, 85, 170, 255; 16-bit
     * samples of few levels) pack at fewer bits as steps of their gcd. */
    uint64_t g = 0;
    for (uint32_t y = 0; y < h && g != 1; y++)
        for (uint32_t x = 0; x < w && g != 1; x++)
            g = rf_gcd((uint64_t)((int64_t)data[(size_t)y * stride + x] - lo), g);
    /* Unscaled, and scaled where that is possible; where scaling packs
     * at 1 or 2 bits (2 to 4 levels) from 4 or more, the unscaled form is
     * not worth its encode time (at 4 bits it can still win: 16 grey
     * levels of a smooth field, 3828 against 4137 bytes). */
    rf_best best = {NULL, SIZE_MAX};
    const rf_form plain = {rf_packing_for(range), lo, 1};
    const rf_form scaled = {rf_packing_for(g > 1 ? range / g : range), lo, (uint32_t)g};
    wc_status s = WC_OK;
    if (g < 2 || !(scaled.packing <= 1 && plain.packing >= 2))
        s = rf_try_form(data, stride, w, h, &plain, &best, err);
    if (s == WC_OK && g > 1) s = rf_try_form(data, stride, w, h, &scaled, &best, err);
    if (s != WC_OK) {
        wc_free(best.buf);
        return s;
    }
    *out = best.buf;
    *size = best.size;
    return WC_OK;
}

/* Reverses one filtered row in place over cur (prev: the row above,
 * already unfiltered, or NULL). */
static void rf_unfilter_row(unsigned f, uint8_t *cur, const uint8_t *prev, size_t rb, size_t left)
{
    for (size_t i = 0; i < rb; i++) cur[i] = (uint8_t)(cur[i] + rf_predict(f, cur, prev, i, left));
}

static wc_status rf_unpack_row(const uint8_t *row, uint32_t w, const rf_form *f, size_t rb,
                               int32_t *dst, uint32_t y, wc_err *err)
{
    const unsigned bits = 1u << f->packing;
    for (uint32_t x = 0; x < w; x++) {
        uint32_t u = 0;
        if (bits < 8) {
            const size_t bit = (size_t)x * bits;
            u = (uint32_t)(row[bit / 8] >> (8 - bits - bit % 8)) & ((1u << bits) - 1);
        } else {
            for (unsigned k = 0; k < bits / 8; k++) u = u << 8 | row[(size_t)x * (bits / 8) + k];
        }
        const int64_t v = (int64_t)f->base + (int64_t)u * f->scale;
        WC_RETURN_IF(v > INT32_MAX, err, WC_ERR_CORRUPT,
                     "filtered deflate: row %u col %u: value %lld outside int32", y, x,
                     (long long)v);
        dst[x] = (int32_t)v;
    }
    /* The bits after the last value: zero, so a payload has one spelling. */
    const size_t used = (size_t)w * bits;
    if (used % 8) {
        const uint8_t pad = (uint8_t)(row[rb - 1] & ((1u << (8 - used % 8)) - 1));
        WC_RETURN_IF(pad != 0, err, WC_ERR_CORRUPT,
                     "filtered deflate: row %u: padding bits 0x%02X are not zero", y,
                     (unsigned)pad);
    }
    return WC_OK;
}

/* A LEB128 varint of at most 32 bits at src[*pos..n). */
static wc_status rf_get_varint(const uint8_t *src, size_t n, size_t *pos, uint32_t *v,
                               const char *what, wc_err *err)
{
    uint32_t r = 0;
    for (unsigned shift = 0;; shift += 7) {
        WC_RETURN_IF(*pos >= n, err, WC_ERR_CORRUPT,
                     "filtered deflate: the %s runs past the payload", what);
        const uint8_t b = src[(*pos)++];
        WC_RETURN_IF(shift == 28 && b > 0x0F, err, WC_ERR_CORRUPT,
                     "filtered deflate: the %s is longer than 32 bits", what);
        r |= (uint32_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) break;
    }
    *v = r;
    return WC_OK;
}

/* The head: packing byte, base, scale (FORMAT.md). */
static wc_status rf_read_head(const uint8_t *src, size_t n, rf_form *f, size_t *pos, wc_err *err)
{
    WC_RETURN_IF(n < 1, err, WC_ERR_CORRUPT, "filtered deflate: empty payload");
    const unsigned b0 = src[0];
    WC_RETURN_IF(b0 & RF_RESERVED, err, WC_ERR_CORRUPT,
                 "filtered deflate: packing byte 0x%02X has reserved bits set", b0);
    f->packing = b0 & 7u;
    const int scaled = (b0 & RF_SCALED) != 0;
    WC_RETURN_IF(f->packing > RF_CONSTANT || (scaled && f->packing == RF_CONSTANT), err,
                 WC_ERR_CORRUPT, "filtered deflate: packing %u%s out of range (0..%d)", f->packing,
                 scaled ? " with a scale" : "", RF_CONSTANT);
    *pos = 1;
    uint32_t zig = 0;
    WC_FORWARD_IF_ERROR(rf_get_varint(src, n, pos, &zig, "base", err));
    f->base = (int32_t)((zig >> 1) ^ (0u - (zig & 1)));
    f->scale = 1;
    if (scaled) {
        WC_FORWARD_IF_ERROR(rf_get_varint(src, n, pos, &f->scale, "scale", err));
        WC_RETURN_IF(f->scale < 2, err, WC_ERR_CORRUPT,
                     "filtered deflate: scale %u (a scaled payload needs 2 or more)",
                     (unsigned)f->scale);
    }
    return WC_OK;
}

wc_status rf_decode(const uint8_t *src, size_t n, int32_t *data, size_t stride, uint32_t w,
                    uint32_t h, wc_err *err)
{
    WC_RETURN_IF(w == 0 || h == 0, err, WC_ERR_ARG, "filtered deflate: empty block");
    rf_form f = {0, 0, 1};
    size_t pos = 0;
    WC_FORWARD_IF_ERROR(rf_read_head(src, n, &f, &pos, err));
    if (f.packing == RF_CONSTANT) {
        WC_RETURN_IF(pos != n, err, WC_ERR_CORRUPT,
                     "filtered deflate: %zu bytes after a constant plane's base", n - pos);
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) data[(size_t)y * stride + x] = f.base;
        return WC_OK;
    }
    const unsigned bits = 1u << f.packing;
    const size_t rb = rf_row_bytes(w, bits), left = rf_left(bits), nfilt = (rb + 1) * h;
    uint8_t *filt = wc_malloc(nfilt);
    WC_RETURN_IF(!filt, err, WC_ERR_NOMEM, "out of memory (filtered deflate, %zu bytes)", nfilt);
    wc_status s = zc_decompress_raw(src + pos, n - pos, filt, nfilt, err);
    if (s == WC_ERR_TRUNCATED) s = WC_ERR_CORRUPT; /* the chunk was whole: damage */
    for (uint32_t y = 0; y < h && s == WC_OK; y++) {
        uint8_t *row = filt + (size_t)y * (rb + 1);
        const unsigned filter = row[0];
        if (filter >= RF_FILTERS) {
            s = wc_fail(err, WC_ERR_CORRUPT, "filtered deflate: row %u: filter %u (0..4)", y,
                        filter);
            break;
        }
        rf_unfilter_row(filter, row + 1, y ? row + 1 - (rb + 1) : NULL, rb, left);
        s = rf_unpack_row(row + 1, w, &f, rb, data + (size_t)y * stride, y, err);
    }
    wc_free(filt);
    return s;
}
