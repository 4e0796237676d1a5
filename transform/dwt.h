/*
 * dwt.h -- CPU reference discrete wavelet transforms (CDF 5/3 and 9/7) and
 * the subband geometry of a multi-level Mallat decomposition.
 *
 * Numeric contract (the CUDA backend must give the same bits):
 *  - A level transforms the current LL region (w_l x h_l, top-left of the
 *    plane, row stride = plane width): first every column (vertical
 *    lifting), then every row (horizontal lifting), as JPEG 2000 Part 1
 *    Annex F (2D_SD = VER_SD then HOR_SD). The low half (ceil(n/2) samples)
 *    goes first, the high half (floor(n/2)) after it. A length-1 signal is
 *    left as it is (it is a low sample). Extension is whole-sample symmetric
 *    (x[-1] = x[1], x[n] = x[n-2]).
 *  - 5/3: d[i] = x[2i+1] - ((x[2i] + x[2i+2]) >> 1);
 *         s[i] = x[2i] + ((d[i-1] + d[i] + 2) >> 2)   (int32, >> is floor).
 *  - 9/7: four float lifting steps with the JPEG 2000 constants, each
 *         x[odd or even] = x + (C * (left + right)) evaluated exactly in that
 *         order (sum, product, sum; no FMA), then low *= 1/K and
 *         high *= K/2... see dwt97.c for the exact constants and order.
 *  Inverse transforms undo each step in reverse order with the same
 *  expressions and subtraction.
 */
#ifndef WC_DWT_H
#define WC_DWT_H

#include <stddef.h>
#include <stdint.h>

enum { DWT_LL = 0, DWT_HL = 1, DWT_LH = 2, DWT_HH = 3 };

/* One subband: its rectangle inside the plane, its level (1 = finest; the
 * LL band has the coarsest level) and orientation (DWT_LL..DWT_HH). */
typedef struct dwt_band {
    uint32_t x0, y0, w, h;
    uint8_t level;
    uint8_t orient;
} dwt_band;

/* The largest level count for a w x h plane: levels until the LL band is
 * 1x1 (each level halves, rounding up), capped at 15. 0 for a 1x1 plane. */
int dwt_max_levels(uint32_t w, uint32_t h);

/* Fills bands[0 .. 3*levels] in coding order: LL, then for level = levels
 * down to 1: HL, LH, HH. Bands may be empty (w or h 0) for thin planes.
 * Returns the number of bands written (3*levels + 1). */
unsigned dwt_bands(uint32_t w, uint32_t h, int levels, dwt_band *bands);

/* Scratch elements (int32 or float) the 2-D transforms below need. */
size_t dwt_scratch_elems(uint32_t w, uint32_t h);

/* In-place 2-D multi-level transforms of a w x h plane (row stride w).
 * levels must be <= dwt_max_levels(w, h); scratch holds
 * dwt_scratch_elems(w, h) elements. */
void dwt53_forward(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch);
void dwt53_inverse(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch);
void dwt97_forward(float *plane, uint32_t w, uint32_t h, int levels, float *scratch);
void dwt97_inverse(float *plane, uint32_t w, uint32_t h, int levels, float *scratch);

/* One-dimensional transforms of n samples at x[0], x[stride], ...:
 * the building blocks above, exposed for tests. */
void dwt53_forward_1d(int32_t *x, uint32_t n, int32_t *scratch);
void dwt53_inverse_1d(int32_t *x, uint32_t n, int32_t *scratch);
void dwt97_forward_1d(float *x, uint32_t n, float *scratch);
void dwt97_inverse_1d(float *x, uint32_t n, float *scratch);

/* Synthesis energy gain of a band: the squared L2 norm of the image made by
 * inverse-transforming a unit coefficient in it (wavelet 53 or 97). Used to
 * weight quantizer steps so one number controls quality. */
double dwt_band_gain(int wavelet, int level, int orient);

#endif /* WC_DWT_H */
