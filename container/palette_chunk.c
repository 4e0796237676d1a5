/*
 * palette_chunk.c -- the WPAL chunk of a palette file (colour 3, format
 * 2.0; FORMAT.md, "WPAL"): the entry count, then each entry's samples,
 * component by component, one byte each at bit depths up to 8, else two
 * (little-endian). Framing and ranges only; the codec maps the indices.
 */
#include <string.h>

#include "container.h"

static unsigned wcx_pal_sample_bytes(unsigned bit_depth) { return bit_depth > 8 ? 2u : 1u; }

size_t wcx_palette_size(const wcx_palette *pal, unsigned components, unsigned bit_depth)
{
    return 2u + (size_t)pal->count * components * wcx_pal_sample_bytes(bit_depth);
}

unsigned wcx_palette_index_depth(unsigned count)
{
    unsigned bits = 1;
    while ((1u << bits) < count) bits++;
    return bits;
}

void wcx_palette_write(const wcx_palette *pal, unsigned components, unsigned bit_depth, uint8_t *p)
{
    wc_wr16le(p, (uint16_t)pal->count);
    uint8_t *q = p + 2;
    for (unsigned i = 0; i < pal->count; i++)
        for (unsigned c = 0; c < components; c++) {
            if (bit_depth > 8) {
                wc_wr16le(q, pal->entry[i][c]);
                q += 2;
            } else {
                *q++ = (uint8_t)pal->entry[i][c];
            }
        }
}

void wcx_palette_put(wcx_writer *w, const wcx_palette *pal, unsigned components, unsigned bit_depth)
{
    const size_t n = wcx_palette_size(pal, components, bit_depth);
    wcx_chunk_begin(w, WCX_WPAL);
    uint8_t *p = wcx_chunk_space(w, n);
    if (p) {
        wcx_palette_write(pal, components, bit_depth, p);
        wcx_chunk_commit(w, n);
    }
    wcx_chunk_end(w);
}

wc_status wcx_palette_parse(const wcx_chunk *k, unsigned components, unsigned bit_depth,
                            wcx_palette *pal, wc_err *err)
{
    memset(pal, 0, sizeof *pal);
    WC_RETURN_IF(k->size < 2, err, WC_ERR_CORRUPT,
                 "chunk %u (WPAL) at byte %zu: %u bytes, too short for the entry count", k->index,
                 k->offset, (unsigned)k->size);
    const unsigned count = wc_rd16le(k->data);
    WC_RETURN_IF(count < 1 || count > WCX_PALETTE_MAX, err, WC_ERR_CORRUPT,
                 "chunk %u (WPAL) at byte %zu: %u palette entries, out of range (1..%u)", k->index,
                 k->offset, count, (unsigned)WCX_PALETTE_MAX);
    pal->count = count;
    const size_t want = wcx_palette_size(pal, components, bit_depth);
    WC_RETURN_IF(k->size != want, err, WC_ERR_CORRUPT,
                 "chunk %u (WPAL) at byte %zu: %u bytes, %u entries of %u %u-bit samples need %zu",
                 k->index, k->offset, (unsigned)k->size, count, components, bit_depth, want);
    const uint8_t *q = k->data + 2;
    const uint32_t max = (1u << bit_depth) - 1;
    for (unsigned i = 0; i < count; i++)
        for (unsigned c = 0; c < components; c++) {
            uint32_t v = bit_depth > 8 ? wc_rd16le(q) : *q;
            q += wcx_pal_sample_bytes(bit_depth);
            WC_RETURN_IF(v > max, err, WC_ERR_CORRUPT,
                         "chunk %u (WPAL) at byte %zu: entry %u component %u is %lu, over the "
                         "%u-bit maximum %lu",
                         k->index, k->offset, i, c, (unsigned long)v, bit_depth,
                         (unsigned long)max);
            pal->entry[i][c] = (uint16_t)v;
        }
    return WC_OK;
}
