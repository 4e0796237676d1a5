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

/* Rounds a float plane to int samples: (int32)floorf(x + 0.5f), clamped to
 * the level-shifted range of bit_depth (NaN goes to the low end). */
void colour_round_plane(const float *src, int32_t *dst, size_t n, uint32_t bit_depth);

/* Writes an int plane (level-shifted) as component c of img, undoing the
 * shift and clamping to [0, 2^bit_depth - 1]. */
void colour_insert(const int32_t *plane, uint32_t c, wc_image *img);

/* The first three components of an RGB(A) image in one pass over the
 * pixels: extract + level shift + RCT (in place: R,G,B -> Y,U,V integer
 * planes) or ICT (into float planes), and the way back: RCT or ICT
 * inverse + rounding (as colour_round_plane) + insert. */
void colour_extract_rct(const wc_image *img, int32_t *y, int32_t *u, int32_t *v);
void colour_extract_ict(const wc_image *img, float *y, float *cb, float *cr);
/* One row r of the image: ICT of its first three components, or component
 * c level-shifted to float (the values colour_extract + a float
 * conversion give). For strip-wise encoders. */
void colour_row_ict(const wc_image *img, uint32_t r, float *y, float *cb, float *cr);
void colour_row_float(const wc_image *img, uint32_t r, uint32_t c, float *out);
void colour_insert_rct(const int32_t *y, const int32_t *u, const int32_t *v, wc_image *img);
void colour_insert_ict(const float *y, const float *cb, const float *cr, wc_image *img);
#endif
