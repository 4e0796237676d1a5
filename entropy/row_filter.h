/*
 * row_filter.h -- filtered deflate (entropy 4, format 2.0): a code
 * block's values coded as PNG codes an image. The values less their
 * minimum (divided by their common step when they share one: a few grey
 * levels) are packed at 1, 2, 4, 8, 16 or 32 bits (the fewest that hold
 * them; below 8 bits several to a byte), each row is predicted by one of
 * PNG's five filters (none, sub, up, average, Paeth) over those bytes,
 * and the rows with their filter bytes go through raw deflate at level
 * 9; a plane of one value is its value alone. The encoder tries what
 * optipng -o2 tries (each filter for every row, and the per-row choice
 * of the smallest sum of absolute differences; zlib's strategies) and
 * keeps the smallest payload. On graphics of few levels (palette
 * indices, text, charts) this beats the run-mode coders: the bit packing
 * and deflate's long matches find the repeated glyphs and tiles that a
 * pixel-by-pixel model pays for again each time.
 * FORMAT.md, "Filtered deflate payloads", is the layout.
 */
#ifndef WC_ROW_FILTER_H
#define WC_ROW_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "wc_common.h"

/* Codes the w x h values at data (rows stride values apart) into a new
 * buffer *out (free with wc_free) of *size bytes. */
wc_status rf_encode(const int32_t *data, size_t stride, uint32_t w, uint32_t h, uint8_t **out,
                    size_t *size, wc_err *err);

/* Decodes a payload of n bytes into the w x h values at data. Any damage
 * (a bad packing byte, base or scale, a bad filter byte, a stream that is
 * short, long or broken, bytes after it, non-zero padding bits, a value
 * outside int32) is
 * WC_ERR_CORRUPT with a message; nothing is read outside src[0..n). */
wc_status rf_decode(const uint8_t *src, size_t n, int32_t *data, size_t stride, uint32_t w,
                    uint32_t h, wc_err *err);

#endif /* WC_ROW_FILTER_H */
