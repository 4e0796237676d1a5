/*
 * lossless_choice.h -- the encoder's automatic layout for lossless files
 * (wc_params.levels = WC_LEVELS_AUTO): which levels and entropy coder to
 * try for an image. A photograph takes the 5-level wavelet; an image of
 * flat areas and sharp edges (text, charts, screenshots, few grey levels,
 * palettes) is also coded without a transform, where the LL band's MED
 * prediction with deflate or the run-mode Huffman coder is far smaller,
 * and the encoder keeps the smallest file. All candidates are 1.0 values.
 */
#ifndef WC_LOSSLESS_CHOICE_H
#define WC_LOSSLESS_CHOICE_H

#include "wcodec.h"

/* The levels an automatic encode uses when it tries only one layout. */
#define LC_DEFAULT_LEVELS 5

/* The most layouts lc_candidates gives. */
#define LC_MAX_CANDIDATES 5

/* One layout to try: the parameters, and for 3 or more components whether
 * to leave out the RCT (which wc_params cannot say; the file's colour
 * field says it, a 1.0 value). */
typedef struct lc_candidate {
    wc_params p;
    int no_colour;
} lc_candidate;

/* 1 when img (host memory) looks synthetic: a quarter or more of its
 * samples equal their left neighbour (photographs: under a tenth), or it
 * has at most 256 distinct pixels (32 grey levels for one component of
 * up to 8 bits), or it is so small that trying is cheap. Reads at most about 2^20 samples. */
int lc_looks_synthetic(const wc_image *img);

/* The parameter sets to try for p (levels WC_LEVELS_AUTO) and img, the
 * default layout first; returns how many (1 .. LC_MAX_CANDIDATES). */
int lc_candidates(const wc_params *p, const wc_image *img, lc_candidate *out);

/* The size of the file candidate c gives for img, as the encoder would
 * write it (codec/encoder.c); for the tests of the choice. */
wc_status lc_encoded_size(wc_ctx *ctx, const lc_candidate *c, const wc_image *img, size_t *size);

#endif
