/*
 * one_chunk.c -- the single-chunk layout of a small filtered deflate file
 * (format 2.0; FORMAT.md, "Single-chunk files (WONE)").
 *
 * A file of entropy 4 under 4 KiB pays more for its framing than for its
 * pixels: 12 bytes for each of WHDR, WPAL, every WDAT and WEND. WONE puts
 * the record, the palette and the planes in one chunk, each part but the
 * last behind its LEB128 length; the one CRC covers all of it, the chunk's
 * length delimits the file, so no WEND. The reader hands the codec the
 * chunks the parts stand for, so nothing above the container sees the
 * difference.
 */
#include <string.h>

#include "container.h"

size_t wcx_one_size(const size_t *part_size, unsigned nparts)
{
    size_t n = WCX_MAGIC_SIZE + WCX_CHUNK_OVERHEAD;
    for (unsigned i = 0; i < nparts; i++)
        n += part_size[i] + (i + 1 < nparts ? wc_leb128_size(part_size[i]) : 0);
    return n;
}

void wcx_one_put(wcx_writer *w, const uint8_t *const *part, const size_t *part_size,
                 unsigned nparts)
{
    wcx_chunk_begin(w, WCX_WONE);
    for (unsigned i = 0; i < nparts; i++) {
        if (i + 1 < nparts) {
            uint8_t v[10];
            wcx_write(w, v, wc_leb128_put(v, part_size[i]));
        }
        wcx_write(w, part[i], part_size[i]);
    }
    wcx_chunk_end(w);
}

/* The length of the next part: a LEB128 varint of at most 5 bytes at
 * *pos, no more than the bytes after it. */
static wc_status one_length(const wcx_chunk *one, size_t *pos, const char *what, size_t *len,
                            wc_err *err)
{
    uint32_t v = 0;
    for (unsigned i = 0;; i++) {
        WC_RETURN_IF(*pos >= one->size, err, WC_ERR_CORRUPT,
                     "chunk 0 (WONE) at byte %zu: the chunk ends inside the length of its %s",
                     one->offset, what);
        WC_RETURN_IF(i == 4 && one->data[*pos] > 0x07, err, WC_ERR_CORRUPT,
                     "chunk 0 (WONE) at byte %zu: the length of its %s is over 2^31 - 1",
                     one->offset, what);
        const uint8_t b = one->data[(*pos)++];
        v |= (uint32_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) break;
    }
    WC_RETURN_IF(v > one->size - *pos, err, WC_ERR_CORRUPT,
                 "chunk 0 (WONE) at byte %zu: its %s of %lu bytes runs past the chunk's end "
                 "(%zu bytes left)",
                 one->offset, what, (unsigned long)v, one->size - *pos);
    *len = v;
    return WC_OK;
}

static void one_part(const wcx_chunk *one, uint32_t type, size_t at, size_t len, unsigned index,
                     wcx_chunk *out)
{
    out->type = type;
    out->size = (uint32_t)len;
    out->data = one->data + at;
    out->offset = one->offset + 8 + at; /* where the part's bytes lie in the file */
    out->index = index;
}

wc_status wcx_one_split(const wcx_chunk *one, wcx_chunk *out, size_t max, size_t *count,
                        wc_err *err)
{
    size_t pos = 0, len;
    WC_FORWARD_IF_ERROR(one_length(one, &pos, "header record", &len, err));
    const uint8_t *r = one->data + pos;
    WC_RETURN_IF(len < 21, err, WC_ERR_CORRUPT,
                 "chunk 0 (WONE) at byte %zu: a header record of %zu bytes (at least 21)",
                 one->offset, len);
    const unsigned major = wc_rd16le(r), comps = r[12], colour = r[14], entropy = r[17];
    WC_RETURN_IF(major > WCX_VERSION_MAJOR, err, WC_ERR_VERSION,
                 "format version %u.%u is not supported (this library reads %u.x to %u.x)", major,
                 (unsigned)wc_rd16le(r + 2), WCX_VERSION_MAJOR_MIN, WCX_VERSION_MAJOR);
    WC_RETURN_IF(major < 2 || entropy != WCX_ENTROPY_FILTERED || comps < 1 || comps > 4, err,
                 WC_ERR_CORRUPT,
                 "chunk 0 (WONE) at byte %zu: a single-chunk file holds a format 2.0 record of "
                 "entropy 4 and 1 to 4 components (this one: %u.x, entropy %u, %u components)",
                 one->offset, major, entropy, comps);
    const unsigned planes = colour == WCX_COLOUR_PALETTE ? 1u : comps;
    const unsigned nparts = 1 + (colour == WCX_COLOUR_PALETTE) + planes;
    WC_RETURN_IF(max < nparts + 1, err, WC_ERR_LIMIT,
                 "chunk 0 (WONE) at byte %zu: %u parts, the list holds %zu", one->offset,
                 nparts + 1, max);
    unsigned n = 0;
    one_part(one, WCX_WHDR, pos, len, n, &out[n]);
    n++;
    pos += len;
    if (colour == WCX_COLOUR_PALETTE) {
        WC_FORWARD_IF_ERROR(one_length(one, &pos, "palette", &len, err));
        one_part(one, WCX_WPAL, pos, len, n, &out[n]);
        n++;
        pos += len;
    }
    for (unsigned c = 0; c < planes; c++) {
        if (c + 1 < planes)
            WC_FORWARD_IF_ERROR(one_length(one, &pos, "plane", &len, err));
        else
            len = one->size - pos; /* the last plane runs to the chunk's end */
        one_part(one, WCX_WDAT, pos, len, n, &out[n]);
        n++;
        pos += len;
    }
    one_part(one, WCX_WEND, pos, 0, n, &out[n]);
    *count = n + 1;
    return WC_OK;
}
