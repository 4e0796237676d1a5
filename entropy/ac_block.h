/*
 * ac_block.h -- entropy 3 (format 2.0): each code block coded alone by
 * ac_model.h's context model through the adaptive range coder of
 * range_coder.h. No tables: every probability starts at 1/2 in each block
 * and adapts as it codes, so a file has no WTAB chunks.
 *
 * Predicted bands (LL, DCT DC) code their MED residuals (block_coder.h's
 * bc_residuals), as entropy 0 does.
 */
#ifndef WC_AC_BLOCK_H
#define WC_AC_BLOCK_H

#include "block_coder.h"

/* Scratch bytes one call needs (contexts, neighbourhood, residuals). */
size_t ac_scratch_bytes(void);
/* Upper bound of an encoded block's size in bytes. */
size_t ac_bound(uint32_t w, uint32_t h);

/* Codes the block into out (cap >= ac_bound). Returns the payload size (0
 * is valid: a block of zeros), or SIZE_MAX if cap was too small. */
size_t ac_encode(const bc_block *b, uint8_t *out, size_t cap, void *scratch);

/* Decodes a payload of exactly size bytes into the block's rectangle;
 * WC_ERR_CORRUPT for a payload no encoder writes. Reads only src[0..size). */
wc_status ac_decode(const uint8_t *src, size_t size, const bc_block *b, void *scratch, wc_err *err);

#endif /* WC_AC_BLOCK_H */
