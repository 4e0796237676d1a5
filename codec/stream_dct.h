/*
 * stream_dct.h -- the forward 8x8 DCT or LOT of a plane fed one image row
 * at a time, for encoding by rows (codec/stream_encoder.c): memory grows
 * with the width, not the area.
 *
 * The whole-image encoder mirror-pads a component to pw x ph (blk8_pad),
 * transforms it (dct8_forward or lot8_forward) and regroups each 8x8
 * block's 64 coefficients into 64 frequency bands (layout.h). Here the
 * rows of the padded plane are made as image rows arrive and each strip of
 * 8 rows is transformed as soon as its inputs are in: for the DCT the strip
 * itself; for the LOT, whose basis reaches half a block into each
 * neighbour, also the 4 rows below it (the bottom strip's halo comes from
 * the mirror, as in lot8.c). Its rows then go out in band order. Every
 * coefficient is exactly the whole-image transform's: each goes through
 * the same kernels (dct8.h, lot8.h) on the same operands.
 */
#ifndef WC_STREAM_DCT_H
#define WC_STREAM_DCT_H

#include <stddef.h>
#include <stdint.h>

/* A finished row of the band plane (pw floats: for each horizontal
 * frequency u, the bw = pw/8 blocks' coefficients): row y = v * ph/8 + by
 * holds vertical frequency v of strip by. Valid during the call only; the
 * signature is dwt_lines.h's, so both feed the same sink. */
typedef void (*sdct_emit_fn)(void *arg, uint32_t y, uint32_t x0, uint32_t n, const void *vals);

typedef struct sdct sdct;

/* A transform (WC_TRANSFORM_DCT or WC_TRANSFORM_LOT) of a w x h image
 * component. NULL when out of memory or the arguments are bad. */
sdct *sdct_create(int transform, uint32_t w, uint32_t h, sdct_emit_fn emit, void *arg);
/* Feeds the next image row (w floats, level-shifted or colour-transformed
 * as for the whole-image path). Returns 0, or -1 after all h rows were
 * given. By the last row every coefficient has been emitted. */
int sdct_push(sdct *t, const float *row);
void sdct_free(sdct *t);
/* Bytes a transform of width w holds (for memory estimates). */
size_t sdct_bytes(uint32_t w);

#endif /* WC_STREAM_DCT_H */
