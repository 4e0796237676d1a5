/*
 * palette.h -- the palette (indexed colour) lossless layout (format 2.0,
 * colour 3): an image of at most 256 distinct pixels, of any component
 * count and bit depth, coded as one plane of indices into its palette
 * (FORMAT.md, "WPAL"). The encoder tries it beside the other lossless
 * layouts and keeps it when the file is smaller; the decoder maps the
 * decoded indices back to pixels on the host, whatever the backend.
 */
#ifndef WC_PALETTE_H
#define WC_PALETTE_H

#include "container.h"
#include "wcodec.h"

/* How the entries are ordered: by luminance (then by value), so that
 * neighbouring indices are similar colours, which the index plane's
 * prediction likes on charts and text; in the order the pixels first
 * appear (row by row), which keeps the colours of one area together and
 * wins on screenshots and 16-colour palettes; or the most frequent first,
 * small indices for the common colours, which wins on a busy 256-colour
 * image (bench/compression.sh: each wins on some graphics, so the encoder
 * tries all three). */
typedef enum palette_order {
    PALETTE_BY_LUMA = 1,
    PALETTE_BY_FIRST = 2,
    PALETTE_BY_COUNT = 3
} palette_order;
#define PALETTE_ORDERS 3

/* img's distinct pixels (host memory) in that order. Returns 0 when img
 * has more than WCX_PALETTE_MAX of them (the scan stops there). */
int palette_build(const wc_image *img, palette_order order, wcx_palette *pal);

/* The plane of indices of img into pal (every pixel of img is in pal):
 * allocates idx as one component of wcx_palette_index_depth(pal->count)
 * bits, free with wc_image_free. */
wc_status palette_indices(const wc_image *img, const wcx_palette *pal, wc_image *idx, wc_err *err);

/* Maps the index plane idx to out's pixels (the same size; out's
 * components and bit depth are the palette's); an index at or past
 * pal->count is damage (WC_ERR_CORRUPT). */
wc_status palette_map(const wc_image *idx, const wcx_palette *pal, wc_image *out, wc_err *err);

/* The WPAL payload of pal for a file of those components and bit depth
 * (*out: free with wc_free): the entries as FORMAT.md's "WPAL" lists
 * them, or, for a filtered deflate file (packed), as a filtered deflate
 * payload of the entries (a row an entry) when that is smaller. */
wc_status palette_payload(const wcx_palette *pal, unsigned components, unsigned bit_depth,
                          int packed, uint8_t **out, size_t *size, wc_err *err);

/* Reads a WPAL chunk in either form into *pal, checked (count, size,
 * every sample within the bit depth; packed entries only with entropy
 * 4): WC_ERR_CORRUPT naming the chunk otherwise. */
wc_status palette_parse(const wcx_chunk *k, unsigned components, unsigned bit_depth,
                        unsigned entropy, wcx_palette *pal, wc_err *err);

#endif
