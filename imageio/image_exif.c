/*
 * image_exif.c -- EXIF between a TIFF file's EXIF directory and the
 * standalone TIFF-structured block PNG's eXIf chunk holds (image_io.h).
 *
 * Both ways one IFD is copied entry by entry: values of 4 bytes or less
 * travel inside the entry, longer ones are copied to the end and their
 * offsets rewritten, numbers are swapped when the byte orders differ.
 * Entries that point at further directories (the interoperability IFD,
 * type IFD) cannot follow and are left out; so is an entry whose value
 * lies outside its file.
 */
#include <string.h>

#include "image_buf.h"
#include "image_io.h"

#define EXIF_MAX_ENTRIES 1000u

typedef imgio_buf exif_buf;

static uint8_t *room(exif_buf *b, size_t n) { return imgio_buf_room(b, n); }

/* Values and IFDs start on even offsets, as TIFF asks. */
static void pad(exif_buf *b)
{
    uint8_t *z = b->n & 1 ? room(b, 1) : NULL;
    if (z) *z = 0;
}

static uint32_t rd(const uint8_t *p, int n, int be)
{
    uint32_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint32_t)p[be ? i : n - 1 - i] << (8 * (n - 1 - i));
    return v;
}

static void wr(uint8_t *p, int n, int be, uint32_t v)
{
    for (int i = 0; i < n; i++) p[be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Bytes of one value of a TIFF type, and the size of the numbers in it
 * that a byte order swaps (0: bytes, never swapped). */
static int type_size(uint16_t type, int *unit)
{
    static const int size[14] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
    static const int swap[14] = {0, 0, 0, 2, 4, 4, 0, 0, 2, 4, 4, 4, 8, 4};
    if (type == 0 || type > 13) return 0;
    *unit = swap[type];
    return size[type];
}

/* Copies n bytes of values in units of `unit` bytes, swapping each when
 * the orders differ. */
static void copy_values(uint8_t *dst, const uint8_t *src, size_t n, int unit, int swap)
{
    if (!swap || unit <= 1) {
        memcpy(dst, src, n);
        return;
    }
    for (size_t i = 0; i + (size_t)unit <= n; i += (size_t)unit)
        for (int k = 0; k < unit; k++) dst[i + (size_t)k] = src[i + (size_t)(unit - 1 - k)];
}

/* Appends the IFD at src[off] (byte order src_be) to b in byte order
 * dst_be, offsets counted from b's start; returns its offset in b, or 0
 * when there is none to copy. */
static size_t copy_ifd(const uint8_t *src, size_t size, int src_be, uint64_t off, int dst_be,
                       exif_buf *b)
{
    if (off < 8 || off > size || size - off < 2) return 0;
    uint32_t count = rd(src + off, 2, src_be);
    if (count > EXIF_MAX_ENTRIES || (size - off - 2) / 12 < count) return 0;
    const uint8_t *e = src + off + 2;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < count; i++) { /* which entries can travel */
        uint16_t tag = (uint16_t)rd(e + 12 * i, 2, src_be),
                 type = (uint16_t)rd(e + 12 * i + 2, 2, src_be);
        int unit, ts = type_size(type, &unit);
        uint64_t bytes = (uint64_t)ts * rd(e + 12 * i + 4, 4, src_be);
        uint32_t at = rd(e + 12 * i + 8, 4, src_be);
        int ok = ts && tag != 0xA005 && type != 13 && bytes <= WC_META_MAX_VALUE &&
                 (bytes <= 4 || (at <= size && bytes <= size - at));
        keep += ok;
    }
    if (keep == 0) return 0;
    pad(b);
    size_t ifd = b->n;
    uint8_t *head = room(b, 2 + 12 * (size_t)keep + 4);
    if (!head) return 0;
    wr(head, 2, dst_be, keep);
    wr(head + 2 + 12 * keep, 4, dst_be, 0); /* no next IFD */
    uint32_t k = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *s = e + 12 * i;
        uint16_t tag = (uint16_t)rd(s, 2, src_be), type = (uint16_t)rd(s + 2, 2, src_be);
        uint32_t n = rd(s + 4, 4, src_be), at = rd(s + 8, 4, src_be);
        int unit, ts = type_size(type, &unit);
        uint64_t bytes = (uint64_t)ts * n;
        if (!(ts && tag != 0xA005 && type != 13 && bytes <= WC_META_MAX_VALUE &&
              (bytes <= 4 || (at <= size && bytes <= size - at))))
            continue;
        uint8_t d[12] = {0};
        wr(d, 2, dst_be, tag);
        wr(d + 2, 2, dst_be, type);
        wr(d + 4, 4, dst_be, n);
        if (bytes <= 4) {
            copy_values(d + 8, s + 8, (size_t)bytes, unit, src_be != dst_be);
        } else {
            pad(b);
            size_t val = b->n;
            uint8_t *v = room(b, (size_t)bytes);
            if (!v) return 0;
            copy_values(v, src + at, (size_t)bytes, unit, src_be != dst_be);
            wr(d + 8, 4, dst_be, (uint32_t)val);
        }
        memcpy(b->p + ifd + 2 + 12 * (size_t)k++, d, 12); /* b->p may have moved */
    }
    return b->failed ? 0 : ifd;
}

wc_status exif_from_tiff(const uint8_t *file, size_t size, uint64_t ifd_off, uint8_t **out,
                         size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    if (size < 8) return WC_ERR_CORRUPT;
    const int be = file[0] == 'M';
    exif_buf b = {.limit = WC_META_MAX_VALUE};
    uint8_t *h = room(&b, 8);
    if (!h) return WC_ERR_NOMEM;
    memcpy(h, be ? "MM\0*" : "II*\0", 4);
    wr(h + 4, 4, be, 8);
    size_t ifd = copy_ifd(file, size, be, ifd_off, be, &b);
    if (!ifd || b.failed || b.n > WC_META_MAX_VALUE) {
        wc_free(b.p);
        return b.failed ? WC_ERR_NOMEM : WC_ERR_CORRUPT;
    }
    *out = b.p;
    *out_size = b.n;
    return WC_OK;
}

wc_status exif_into_tiff(uint8_t **file, size_t *size, size_t *cap, const uint8_t *exif,
                         size_t exif_size)
{
    uint8_t *f = *file;
    if (*size < 8 || exif_size < 8) return WC_ERR_CORRUPT;
    const int be = f[0] == 'M', xbe = exif[0] == 'M';
    if (memcmp(exif, xbe ? "MM\0*" : "II*\0", 4)) return WC_ERR_CORRUPT;
    /* The main IFD's EXIFIFD entry, which the writer set to 0. */
    uint32_t ifd0 = rd(f + 4, 4, be);
    if (ifd0 > *size || *size - ifd0 < 2) return WC_ERR_CORRUPT;
    uint32_t count = rd(f + ifd0, 2, be);
    if ((*size - ifd0 - 2) / 12 < count) return WC_ERR_CORRUPT;
    size_t entry = 0;
    for (uint32_t i = 0; i < count && !entry; i++)
        if (rd(f + ifd0 + 2 + 12 * i, 2, be) == 0x8769) entry = ifd0 + 2 + 12 * (size_t)i;
    if (!entry) return WC_ERR_CORRUPT;
    /* The file, and a directory no larger than a block may be. */
    exif_buf b = {f, *size, *cap, 0, *size + (size_t)WC_META_MAX_VALUE * 2};
    size_t ifd = copy_ifd(exif, exif_size, xbe, rd(exif + 4, 4, xbe), be, &b);
    *file = b.p;
    *size = b.n;
    *cap = b.cap;
    if (b.failed) return WC_ERR_NOMEM;
    if (!ifd || ifd > UINT32_MAX) return WC_ERR_CORRUPT;
    wr(*file + entry + 8, 4, be, (uint32_t)ifd);
    return WC_OK;
}

int exif_usable(const uint8_t *exif, size_t size)
{
    if (size < 8 || memcmp(exif, exif[0] == 'M' ? "MM\0*" : "II*\0", 4)) return 0;
    const int be = exif[0] == 'M';
    exif_buf b = {.limit = (size_t)WC_META_MAX_VALUE * 2};
    uint8_t *h = room(&b, 8); /* as in a file: the IFD cannot start at 0 */
    size_t ifd = h ? copy_ifd(exif, size, be, rd(exif + 4, 4, be), 0, &b) : 0;
    wc_free(b.p);
    return ifd != 0 && !b.failed;
}
