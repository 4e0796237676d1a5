/*
 * block_tiles.h -- entropy 2 (format 2.0): a code block cut into tiles of
 * BCT_W x BCT_H coefficients (clipped at the block's right and bottom
 * edges), each tile coded by block_coder.h's model as a block of its own
 * (contexts, zero runs and MED prediction see only the tile) into its own
 * sub-stream. The payload is one LSB-first bit string (bitio.h):
 *
 *   w, 5 bits (0..16): the width of the lengths;
 *   n lengths of w bits each: every tile's sub-stream in bits;
 *   the n sub-streams end to end, bit after bit (no alignment);
 *   zero bits to the byte's end.
 *
 * w is the smallest that holds the longest length (0 when all are 0). A
 * tile whose values are all zero is coded as an empty sub-stream and its
 * symbols are not counted; any other tile is block_coder.c's coding of it
 * (which spends at least a sign bit on a non-zero value, so it is never
 * empty). Tiles are numbered in raster order over the block.
 *
 * A decoder finds sub-stream t's start as the header's size plus a prefix
 * sum of the lengths before t, so the tiles of one block decode in
 * parallel: on the GPU a warp a block, a lane a tile (32 for 128x128).
 * The symbols are the 1.0 coder's on each tile: the class tables (WTAB)
 * are unchanged.
 */
#ifndef WC_BLOCK_TILES_H
#define WC_BLOCK_TILES_H

#include "block_coder.h"

#define BCT_W 32u                                               /* tile width */
#define BCT_H 16u                                               /* tile height */
#define BCT_MAX ((BC_MAX_SIDE / BCT_W) * (BC_MAX_SIDE / BCT_H)) /* tiles a block */

static inline uint32_t bct_across(uint32_t w) { return (w + BCT_W - 1) / BCT_W; }
static inline uint32_t bct_count(uint32_t w, uint32_t h)
{
    return bct_across(w) * ((h + BCT_H - 1) / BCT_H);
}

/* Tile t of block b as a block of its own (same plane, stride and model). */
bc_block bct_tile(const bc_block *b, uint32_t t);

/* Upper bound of a tiled payload's size in bytes. */
size_t bct_bound(uint32_t w, uint32_t h);
/* Token room bct_symbolize needs (a count before each tile's tokens). */
size_t bct_token_bound(uint32_t w, uint32_t h);

/* bc_symbolize tile by tile: each tile's token count, then its tokens.
 * Adds the symbols to freq; returns the tokens written. */
size_t bct_symbolize(const bc_block *b, bc_freq freq, uint16_t *tokens, uint32_t *scratch);

/* Codes the block from bct_symbolize's tokens into out (cap >=
 * bct_bound). Returns the payload size, or SIZE_MAX if cap was too small. */
size_t bct_emit(const bc_block *b, const uint16_t *tokens, size_t ntok, const huf_enc *tabs,
                uint8_t *out, size_t cap, uint32_t *scratch);

#define BCT_WIDTH_BITS 5 /* the header's width field */
#define BCT_MAX_WIDTH 16 /* a tile's bits stay below 2^16 (bct_bound) */

/* Where each tile's sub-stream lies in a payload of `size` bytes (bit
 * offsets start[t], lengths len[t], n entries): reads and checks the
 * header and that the sub-streams end in the payload's last byte. Errors
 * are WC_ERR_CORRUPT. */
wc_status bct_streams(const uint8_t *src, size_t size, uint32_t n, uint32_t *start, uint32_t *len,
                      wc_err *err);

/* Decodes a tiled payload of exactly size bytes into the block; the
 * first failing tile (in tile order) names the error. */
wc_status bct_decode(const uint8_t *src, size_t size, const bc_block *b, const bc_dectab *T,
                     uint32_t *scratch, wc_err *err);

#endif /* WC_BLOCK_TILES_H */
