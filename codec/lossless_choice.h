/*
 * lossless_choice.h -- the encoder's automatic layout for lossless files
 * (wc_params.levels = WC_LEVELS_AUTO): which levels and entropy coder to
 * try for an image. A photograph takes the 5-level wavelet; an image of
 * flat areas and sharp edges (text, charts, screenshots, few grey levels,
 * palettes) is also coded without a transform, where the LL band's MED
 * prediction with deflate or the run-mode Huffman coder is far smaller,
 * and the encoder keeps the smallest file. All candidates are 1.0 values
 * but filtered deflate (entropy 4) and the palette (colour 3), of 2.0.
 */
#ifndef WC_LOSSLESS_CHOICE_H
#define WC_LOSSLESS_CHOICE_H

#include "wcodec.h"

/* The levels an automatic encode uses when it tries only one layout. */
#define LC_DEFAULT_LEVELS 5

/* Images up to this many pixels always try every layout: the extra
 * encodes cost microseconds, and their fixed overheads differ most. */
#define LC_SMALL_PIXELS 4096u

/* The most layouts lc_candidates gives. */
#define LC_MAX_CANDIDATES 7

/* One layout to try: the parameters, and for 3 or more components whether
 * to leave out the RCT (which wc_params cannot say; the file's colour
 * field says it, a 1.0 value); or (palette, a palette_order of
 * codec/palette.h) the image as one plane of indices into its palette
 * ordered so, coded with p (format 2.0, colour 3; the encoder adds these
 * for an image of at most 256 distinct pixels: lc_candidates of the index
 * plane, for each order). */
typedef struct lc_candidate {
    wc_params p;
    int no_colour;
    int palette;
} lc_candidate;

/* 1 when img (host memory) looks synthetic: a quarter or more of its
 * samples equal their left neighbour (photographs: under a tenth), or it
 * has at most 256 distinct pixels (32 grey levels for one component of
 * up to 8 bits), or it is so small that trying is cheap. Reads at most about 2^20 samples. */
int lc_looks_synthetic(const wc_image *img);

/* The rows lc_looks_synthetic reads: every lc_row_step(img)-th from 0. */
uint32_t lc_row_step(const wc_image *img);

/* The same answer (for an image over LC_SMALL_PIXELS) from an image of
 * just those rows, for pixels in device memory: the encoder has the
 * backend bring them to the host (backend.h's fetch). */
int lc_rows_look_synthetic(const wc_image *rows);

/* The scratch filtered deflate (entropy 4) needs beside an encode's
 * (wc_encode_memory): per component, coded at once, its packed rows,
 * their filtered copy, a trial's output and the kept payload, each at
 * most 2 bytes a value and a filter byte a row (4 above 8 bits: the
 * RCT's 17-bit chroma). */
uint64_t lc_filtered_memory(const wc_image *img);

/* The parameter sets to try for p (levels WC_LEVELS_AUTO) and img, the
 * default layout first; synthetic is what lc_looks_synthetic (or
 * lc_rows_look_synthetic) said of img. Filtered deflate only where
 * its scratch fits under p->max_memory (when set). Returns how many (1 ..
 * LC_MAX_CANDIDATES). */
int lc_candidates(const wc_params *p, const wc_image *img, int synthetic, lc_candidate *out);

/* Whether img looks synthetic, read from its pixels, or (on_device:
 * pixels in device memory) from the rows it reads, which the backend
 * brings to the host; the same answer either way (codec/encoder.c). With
 * on_device and host_copy, a synthetic image's samples are also left
 * there as a host image (free with wc_image_free; else it stays empty),
 * for the palette layout. */
wc_status lc_detect(wc_ctx *ctx, const wc_params *p, const wc_image *img, int on_device,
                    int *synthetic, wc_image *host_copy);

/* The size of the file candidate c gives for img, as the encoder would
 * write it (codec/encoder.c); for the tests of the choice. A palette
 * candidate for an image of more than 256 distinct pixels is WC_ERR_ARG. */
wc_status lc_encoded_size(wc_ctx *ctx, const lc_candidate *c, const wc_image *img, size_t *size);

/* The same, with the file itself in *file (free with wc_free) unless file
 * is NULL: for tests that need a given layout's file. */
wc_status lc_encode_candidate(wc_ctx *ctx, const lc_candidate *c, const wc_image *img, void **file,
                              size_t *size);

#endif
