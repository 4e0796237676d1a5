/*
 * layout.h -- where every coefficient of a file lives: the bands of each
 * component's plane (DWT subbands, or the 64 frequency bands of the DCT/LOT
 * gathered into a Mallat-like band plane), their coding classes, and the
 * code blocks that tile each band. Encoder and decoder derive it from the
 * header alone, so it is never stored.
 */
#ifndef WC_LAYOUT_H
#define WC_LAYOUT_H

#include "container.h"
#include "wc_common.h"
#include "wcodec_types.h"

#define WC_NCLASS 9 /* coding classes per component */
#define WC_MAX_BANDS 64
/* Most code blocks a file may have (layout_build's cap on encode and decode
 * alike): 2^26, which a 2^31-pixel image in 16x16 blocks stays under. */
#define WC_MAX_BLOCKS ((size_t)1 << 26)

typedef struct wc_band_info {
    uint32_t x0, y0, w, h;
    uint8_t cls;        /* coding class 0..WC_NCLASS-1 */
    uint8_t predict;    /* MED prediction (LL / DC) */
    uint8_t level;      /* DWT level (0 for LL/block bands) */
    uint8_t orient;     /* DWT orientation, or 0 */
    uint8_t step_index; /* index into the header's steps for this band */
} wc_band_info;

typedef struct wc_cblk {
    uint32_t x0, y0, w, h;
    uint16_t comp, band;
} wc_cblk;

typedef struct wc_layout {
    uint32_t components;
    uint32_t plane_w[4], plane_h[4]; /* coefficient planes (DCT/LOT: padded) */
    uint32_t nbands[4];
    wc_band_info band[4][WC_MAX_BANDS];
    size_t nblocks;
    wc_cblk *blocks;       /* comp, then band order, then raster */
    size_t first_block[4]; /* index of each component's first block */
} wc_layout;

/* Transform of component c as the header implies (alpha is always DWT). */
int layout_comp_transform(const wcx_header *h, uint32_t c);
/* Is component c an alpha channel? (2nd of GA, 4th of RGBA) */
int layout_is_alpha(uint32_t components, uint32_t c);

/* A code block's side: 2^block_log2, or for filtered deflate (entropy 4)
 * 2^24, the largest width or height, so each band is one block. */
uint32_t layout_block_side(const wcx_header *h);

/* The bands of every component and the number of code blocks (nblocks),
 * allocating nothing (blocks stays NULL): a decoder checks the count
 * against its limits and against the file before it allocates. */
void layout_bands(const wcx_header *h, wc_layout *lay);
/* Builds the layout; refuses more than max_blocks code blocks. */
wc_status layout_build(const wcx_header *h, size_t max_blocks, wc_layout *lay, wc_err *err);
void layout_free(wc_layout *lay);

/* Between a DCT/LOT coefficient plane (each 8x8 block in place) and the
 * band plane (frequency (u,v) gathered into rectangle u*bw, v*bh). */
void layout_blocks_to_bands(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph);
/* The same for strip `by` alone (its 8 rows of pw values at strip). */
void layout_strip_to_bands(const int32_t *strip, int32_t *dst, uint32_t pw, uint32_t ph,
                           uint32_t by);
void layout_bands_to_blocks(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph);

/* Zigzag order of the 8x8 frequencies: zigzag[i] = v*8 + u. */
extern const uint8_t wc_zigzag[64];

#endif
