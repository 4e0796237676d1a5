/*
 * dct_strips.h -- the CPU backend's DCT encode in one pass over the image.
 *
 * The general forward path makes a float plane per component (colour),
 * transforms it, quantizes it into an int plane, and the encoder regroups
 * that plane into frequency bands: four passes over planes of 4 bytes a
 * sample. When every component is DCT-coded and quantized in the same
 * call, all of it can instead run on one strip of 8 rows at a time, in
 * cache: the image is read once and each band plane written once. The
 * values are those of the general path (the same functions on the same
 * numbers, only in a different order of strips).
 */
#ifndef WC_DCT_STRIPS_H
#define WC_DCT_STRIPS_H

#include "backend.h"

/* Whether the plan can take dct_strips_forward (and allows band output). */
int dct_strips_apply(const wc_stage_plan *p);

/* Colour, DCT, quantization and band regrouping of img into out->q (band
 * layout, pw x ph per component); sets out->banded. */
wc_status dct_strips_forward(const wc_stage_plan *p, const wc_image *img, wc_coeffs *out,
                             wc_err *err);

#endif /* WC_DCT_STRIPS_H */
