/* layout.c -- bands, coding classes and code blocks of a file. */
#include <string.h>

#include "dwt.h"
#include "layout.h"

const uint8_t wc_zigzag[64] = {0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
                               12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
                               35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
                               58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

int layout_is_alpha(uint32_t components, uint32_t c)
{
    return (components == 2 && c == 1) || (components == 4 && c == 3);
}

int layout_comp_transform(const wcx_header *h, uint32_t c)
{
    return layout_is_alpha(h->components, c) ? WC_TRANSFORM_DWT : h->transform;
}

/* DWT classes: LL; then HL/LH and HH of levels 1, 2, 3 and 4+. */
static uint8_t dwt_class(const dwt_band *b)
{
    if (b->orient == DWT_LL) return 0;
    unsigned l = b->level < 4 ? b->level : 4;
    return (uint8_t)(1 + 2 * (l - 1) + (b->orient == DWT_HH));
}

/* Block-transform classes by zigzag position: DC, then widening groups. */
static uint8_t zigzag_class(unsigned z)
{
    static const uint8_t first[WC_NCLASS] = {0, 1, 3, 6, 10, 15, 21, 28, 36};
    uint8_t c = 0;
    while (c + 1 < WC_NCLASS && z >= first[c + 1]) c++;
    return c;
}

static void bands_dwt(const wcx_header *h, uint32_t c, wc_layout *lay)
{
    dwt_band b[3 * WC_MAX_LEVELS + 1];
    unsigned nb = dwt_bands(h->width, h->height, h->levels, b);
    lay->plane_w[c] = h->width;
    lay->plane_h[c] = h->height;
    lay->nbands[c] = nb;
    for (unsigned i = 0; i < nb; i++) {
        wc_band_info *bi = &lay->band[c][i];
        *bi = (wc_band_info){b[i].x0,    b[i].y0,          b[i].w,
                             b[i].h,     dwt_class(&b[i]), b[i].orient == DWT_LL,
                             b[i].level, b[i].orient,      (uint8_t)i};
    }
}

static void bands_blocked(const wcx_header *h, uint32_t c, wc_layout *lay)
{
    uint32_t pw = (h->width + 7) & ~7u, ph = (h->height + 7) & ~7u;
    uint32_t bw = pw / 8, bh = ph / 8;
    lay->plane_w[c] = pw;
    lay->plane_h[c] = ph;
    lay->nbands[c] = 64;
    for (unsigned z = 0; z < 64; z++) {
        unsigned f = wc_zigzag[z], u = f & 7, v = f >> 3;
        lay->band[c][z] =
            (wc_band_info){u * bw, v * bh, bw, bh, zigzag_class(z), z == 0, 0, 0, (uint8_t)f};
    }
}

uint32_t layout_block_side(const wcx_header *h)
{
    /* Filtered deflate codes a plane as PNG codes an image: one stream. */
    return h->entropy == WCX_ENTROPY_FILTERED ? 1u << 24 : 1u << h->block_log2;
}

void layout_bands(const wcx_header *h, wc_layout *lay)
{
    memset(lay, 0, sizeof *lay);
    lay->components = h->components;
    const uint32_t side = layout_block_side(h);
    size_t total = 0;
    for (uint32_t c = 0; c < h->components; c++) {
        if (layout_comp_transform(h, c) == WC_TRANSFORM_DWT)
            bands_dwt(h, c, lay);
        else
            bands_blocked(h, c, lay);
        for (uint32_t b = 0; b < lay->nbands[c]; b++) {
            const wc_band_info *bi = &lay->band[c][b];
            total += (size_t)wc_ceil_div(bi->w, side) * wc_ceil_div(bi->h, side);
        }
    }
    lay->nblocks = total;
}

wc_status layout_build(const wcx_header *h, size_t max_blocks, wc_layout *lay, wc_err *err)
{
    layout_bands(h, lay);
    const uint32_t side = layout_block_side(h);
    const size_t total = lay->nblocks;
    if (total > max_blocks) {
        lay->nblocks = 0; /* no block list to go with it */
        return wc_fail(err, WC_ERR_LIMIT, "%zu code blocks exceed the limit of %zu", total,
                       max_blocks);
    }
    lay->blocks = wc_malloc_array(total ? total : 1, sizeof(wc_cblk));
    WC_RETURN_IF(!lay->blocks, err, WC_ERR_NOMEM, "out of memory (%zu code blocks)", total);
    size_t i = 0;
    for (uint32_t c = 0; c < h->components; c++) {
        lay->first_block[c] = i;
        for (uint32_t b = 0; b < lay->nbands[c]; b++) {
            const wc_band_info *bi = &lay->band[c][b];
            for (uint32_t y = 0; y < bi->h; y += side)
                for (uint32_t x = 0; x < bi->w; x += side) {
                    wc_cblk *k = &lay->blocks[i++];
                    k->x0 = bi->x0 + x;
                    k->y0 = bi->y0 + y;
                    k->w = bi->w - x < side ? bi->w - x : side;
                    k->h = bi->h - y < side ? bi->h - y : side;
                    k->comp = (uint16_t)c;
                    k->band = (uint16_t)b;
                }
        }
    }
    return WC_OK;
}

void layout_free(wc_layout *lay)
{
    wc_free(lay->blocks);
    lay->blocks = NULL;
}

void layout_strip_to_bands(const int32_t *strip, int32_t *dst, uint32_t pw, uint32_t ph,
                           uint32_t by)
{
    const uint32_t bw = pw / 8, bh = ph / 8;
    for (uint32_t v = 0; v < 8; v++) {
        int32_t *drow = dst + (size_t)(v * bh + by) * pw;
        const int32_t *srow = strip + (size_t)v * pw;
        /* One frequency at a time: sequential writes, reads within one
         * row (in L1), twice as fast as scattering to eight streams. */
        for (uint32_t u = 0; u < 8; u++) {
            int32_t *d = drow + (size_t)u * bw;
            const int32_t *sv = srow + u;
            for (uint32_t bx = 0; bx < bw; bx++) d[bx] = sv[(size_t)bx * 8];
        }
    }
}

void layout_blocks_to_bands(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph)
{
    for (uint32_t by = 0; by < ph / 8; by++)
        layout_strip_to_bands(src + (size_t)by * 8 * pw, dst, pw, ph, by);
}

void layout_bands_to_blocks(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph)
{
    const uint32_t bw = pw / 8, bh = ph / 8;
    for (uint32_t y = 0; y < ph; y++) {
        uint32_t v = y & 7, by = y >> 3;
        const int32_t *srow = src + (size_t)(v * bh + by) * pw;
        int32_t *drow = dst + (size_t)y * pw;
        for (uint32_t u = 0; u < 8; u++) {
            const int32_t *s = srow + (size_t)u * bw;
            int32_t *dv = drow + u;
            for (uint32_t bx = 0; bx < bw; bx++) dv[(size_t)bx * 8] = s[bx];
        }
    }
}
