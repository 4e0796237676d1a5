/* palette.c -- see palette.h. */
#include "palette.h"
#include "row_filter.h"
#include "wc_common.h"

#include <stdlib.h>
#include <string.h>

/* An open-addressing map from a pixel (its samples packed 16 bits each)
 * to its palette index, four times as many slots as entries kept. */
#define PAL_SLOTS 1024u

typedef struct pal_map {
    uint64_t key[PAL_SLOTS];
    uint16_t value[PAL_SLOTS];
    uint8_t used[PAL_SLOTS];
    uint64_t seen[PAL_SLOTS]; /* pixels of that colour (palette_build) */
    unsigned count;
} pal_map;

static uint32_t pal_slot(uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 54) & (PAL_SLOTS - 1);
}

/* The slot of key: where it is, or the free one where it would go. */
static uint32_t pal_find(const pal_map *m, uint64_t key)
{
    uint32_t i = pal_slot(key);
    while (m->used[i] && m->key[i] != key) i = (i + 1) & (PAL_SLOTS - 1);
    return i;
}

static uint64_t pixel_key(const wc_image *img, const uint8_t *row, uint32_t x)
{
    uint64_t key = 0;
    const size_t i = (size_t)x * img->components;
    for (uint32_t c = 0; c < img->components; c++) {
        uint32_t v = img->bit_depth > 8 ? ((const uint16_t *)(const void *)row)[i + c] : row[i + c];
        key = key << 16 | v;
    }
    return key;
}

static uint16_t key_sample(uint64_t key, unsigned comps, unsigned c)
{
    return (uint16_t)(key >> 16 * (comps - 1 - c));
}

/* The sort key (luma): luminance for three or more components (Rec. 601
 * weights, integers), the first sample for one or two; or for
 * PALETTE_BY_COUNT the complement of the pixel count. Ties by the packed
 * value. */
typedef struct pal_sort {
    uint64_t luma, key;
} pal_sort;

static int pal_cmp(const void *a, const void *b)
{
    const pal_sort *x = a, *y = b;
    if (x->luma != y->luma) return x->luma < y->luma ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

int palette_build(const wc_image *img, palette_order order, wcx_palette *pal)
{
    pal_map *m = calloc(1, sizeof *m);
    if (!m) return 0;
    const unsigned comps = img->components;
    pal_sort entries[WCX_PALETTE_MAX];
    int ok = 1;
    for (uint32_t y = 0; y < img->height && ok; y++) {
        const uint8_t *row = (const uint8_t *)img->pixels + (size_t)y * wc_row_stride(img);
        for (uint32_t x = 0; x < img->width; x++) {
            const uint64_t key = pixel_key(img, row, x);
            const uint32_t i = pal_find(m, key);
            m->seen[i]++;
            if (m->used[i]) continue;
            if (m->count == WCX_PALETTE_MAX) {
                ok = 0;
                break;
            }
            m->used[i] = 1;
            m->key[i] = key;
            uint64_t luma = key_sample(key, comps, 0);
            if (comps >= 3)
                luma = 299u * key_sample(key, comps, 0) + 587u * key_sample(key, comps, 1) +
                       114u * key_sample(key, comps, 2);
            entries[m->count].luma = luma;
            entries[m->count++].key = key;
        }
    }
    if (ok) {
        if (order == PALETTE_BY_COUNT) /* the most frequent first: sort on ~count */
            for (unsigned i = 0; i < m->count; i++)
                entries[i].luma = ~m->seen[pal_find(m, entries[i].key)];
        if (order != PALETTE_BY_FIRST) qsort(entries, m->count, sizeof entries[0], pal_cmp);
        memset(pal, 0, sizeof *pal);
        pal->count = m->count;
        for (unsigned i = 0; i < m->count; i++)
            for (unsigned c = 0; c < comps; c++)
                pal->entry[i][c] = key_sample(entries[i].key, comps, c);
    }
    free(m);
    return ok;
}

wc_status palette_indices(const wc_image *img, const wcx_palette *pal, wc_image *idx, wc_err *err)
{
    const unsigned comps = img->components;
    pal_map *m = calloc(1, sizeof *m);
    WC_RETURN_IF(!m, err, WC_ERR_NOMEM, "out of memory (palette map)");
    for (unsigned i = 0; i < pal->count; i++) {
        uint64_t key = 0;
        for (unsigned c = 0; c < comps; c++) key = key << 16 | pal->entry[i][c];
        const uint32_t s = pal_find(m, key);
        m->used[s] = 1;
        m->key[s] = key;
        m->value[s] = (uint16_t)i;
    }
    wc_image out = {img->width, img->height, 1, wcx_palette_index_depth(pal->count), 0, NULL};
    wc_status st = wc_image_alloc(&out);
    if (st != WC_OK) {
        free(m);
        return wc_fail(err, WC_ERR_NOMEM, "out of memory (palette indices)");
    }
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *row = (const uint8_t *)img->pixels + (size_t)y * wc_row_stride(img);
        uint8_t *dst = (uint8_t *)out.pixels + (size_t)y * wc_row_stride(&out);
        for (uint32_t x = 0; x < img->width; x++)
            dst[x] = (uint8_t)m->value[pal_find(m, pixel_key(img, row, x))];
    }
    free(m);
    *idx = out;
    return WC_OK;
}

wc_status palette_map(const wc_image *idx, const wcx_palette *pal, wc_image *out, wc_err *err)
{
    const unsigned comps = out->components;
    for (uint32_t y = 0; y < idx->height; y++) {
        const uint8_t *src = (const uint8_t *)idx->pixels + (size_t)y * wc_row_stride(idx);
        uint8_t *row = (uint8_t *)out->pixels + (size_t)y * wc_row_stride(out);
        for (uint32_t x = 0; x < idx->width; x++) {
            const unsigned i = src[x];
            WC_RETURN_IF(i >= pal->count, err, WC_ERR_CORRUPT,
                         "pixel (%u, %u) has palette index %u, the palette (WPAL) has %u entries",
                         x, y, i, pal->count);
            for (unsigned c = 0; c < comps; c++) {
                if (out->bit_depth > 8) /* memcpy: any stride the caller gave */
                    memcpy(row + ((size_t)x * comps + c) * 2, &pal->entry[i][c], 2);
                else
                    row[(size_t)x * comps + c] = (uint8_t)pal->entry[i][c];
            }
        }
    }
    return WC_OK;
}

wc_status palette_payload(const wcx_palette *pal, unsigned components, unsigned bit_depth,
                          int packed, uint8_t **out, size_t *size, wc_err *err)
{
    *out = NULL;
    *size = wcx_palette_size(pal, components, bit_depth);
    uint8_t *raw = wc_malloc(*size);
    WC_RETURN_IF(!raw, err, WC_ERR_NOMEM, "out of memory (palette chunk)");
    wcx_palette_write(pal, components, bit_depth, raw);
    if (packed) {
        /* The entries as a plane, a row an entry: the same coder finds
         * the columns that repeat (an icon's alpha, a constant channel). */
        int32_t vals[WCX_PALETTE_MAX * 4];
        for (unsigned i = 0; i < pal->count; i++)
            for (unsigned c = 0; c < components; c++) vals[i * components + c] = pal->entry[i][c];
        uint8_t *coded = NULL;
        size_t n = 0;
        wc_status s = rf_encode(vals, components, components, pal->count, &coded, &n, err);
        if (s != WC_OK) {
            wc_free(raw);
            return s;
        }
        if (2 + n < *size) { /* the first smaller: raw on a tie */
            uint8_t *p = wc_malloc(2 + n);
            if (!p) {
                wc_free(coded);
                wc_free(raw);
                return wc_fail(err, WC_ERR_NOMEM, "out of memory (palette chunk)");
            }
            wc_wr16le(p, (uint16_t)(WCX_PALETTE_PACKED | pal->count));
            memcpy(p + 2, coded, n);
            wc_free(raw);
            raw = p;
            *size = 2 + n;
        }
        wc_free(coded);
    }
    *out = raw;
    return WC_OK;
}

wc_status palette_parse(const wcx_chunk *k, unsigned components, unsigned bit_depth,
                        unsigned entropy, wcx_palette *pal, wc_err *err)
{
    if (k->size < 2 || !(wc_rd16le(k->data) & WCX_PALETTE_PACKED))
        return wcx_palette_parse(k, components, bit_depth, pal, err);
    memset(pal, 0, sizeof *pal);
    const unsigned count = wc_rd16le(k->data) & ~WCX_PALETTE_PACKED;
    WC_RETURN_IF(entropy != WCX_ENTROPY_FILTERED, err, WC_ERR_CORRUPT,
                 "chunk %u (WPAL) at byte %zu: packed entries in a file of entropy %u (only 4 "
                 "packs them)",
                 k->index, k->offset, entropy);
    WC_RETURN_IF(count < 1 || count > WCX_PALETTE_MAX, err, WC_ERR_CORRUPT,
                 "chunk %u (WPAL) at byte %zu: %u palette entries, out of range (1..%u)", k->index,
                 k->offset, count, (unsigned)WCX_PALETTE_MAX);
    int32_t vals[WCX_PALETTE_MAX * 4];
    wc_err e = {{0}};
    wc_status s = rf_decode(k->data + 2, k->size - 2, vals, components, components, count, &e);
    WC_RETURN_IF(s != WC_OK, err, s, "chunk %u (WPAL) at byte %zu: packed entries: %s", k->index,
                 k->offset, e.msg);
    const int32_t max = (int32_t)((1u << bit_depth) - 1);
    for (unsigned i = 0; i < count; i++)
        for (unsigned c = 0; c < components; c++) {
            const int32_t v = vals[i * components + c];
            WC_RETURN_IF(v < 0 || v > max, err, WC_ERR_CORRUPT,
                         "chunk %u (WPAL) at byte %zu: entry %u component %u is %ld, outside the "
                         "%u-bit range",
                         k->index, k->offset, i, c, (long)v, bit_depth);
            pal->entry[i][c] = (uint16_t)v;
        }
    pal->count = count;
    return WC_OK;
}
