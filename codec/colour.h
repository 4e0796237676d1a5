/*
 * colour.h -- sample preparation on the CPU: deinterleave + level shift,
 * the reversible (RCT) and irreversible (ICT) colour transforms, and the
 * way back. The exact arithmetic is the contract in backend.h.
 */
#ifndef WC_COLOUR_H
#define WC_COLOUR_H

#include "backend.h"

/* Copies component c of img into an int32 plane with the level shift. */
void colour_extract(const wc_image *img, uint32_t c, int32_t *plane);

/* Forward RCT on three int planes of n samples (in place: R,G,B -> Y,U,V). */
void colour_rct_forward(int32_t *r, int32_t *g, int32_t *b, size_t n);
void colour_rct_inverse(int32_t *y, int32_t *u, int32_t *v, size_t n);

/* Forward ICT from three int planes into three float planes. */
void colour_ict_forward(const int32_t *r, const int32_t *g, const int32_t *b, float *y,
                        float *cb, float *cr, size_t n);
/* Inverse ICT in place on float planes. */
void colour_ict_inverse(float *y, float *cb, float *cr, size_t n);

/* Rounds a float plane to int samples: (int32)floorf(x + 0.5f), clamped to
 * the level-shifted range of bit_depth (NaN goes to the low end). */
void colour_round_plane(const float *src, int32_t *dst, size_t n, uint32_t bit_depth);

/* Writes an int plane (level-shifted) as component c of img, undoing the
 * shift and clamping to [0, 2^bit_depth - 1]. */
void colour_insert(const int32_t *plane, uint32_t c, wc_image *img);

#endif
