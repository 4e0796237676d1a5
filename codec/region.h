/*
 * region.h -- decoding a rectangle of an image, or of a reduced image
 * (wc_decode_region): which code blocks it needs, and its inverse
 * (dequantize, transform, colour) on that window only, on the host.
 */
#ifndef WC_REGION_H
#define WC_REGION_H

#include "entropy_stage.h"
#include "pool.h"
#include "wcodec.h"

/* Whether a region of this file is its whole decode, cropped: the window
 * inverse (transform/dwt_window.h) is the separable DWT's, and Barina's
 * non-separable schemes (wavelets 153, 197, 203, 207) have none yet. */
int region_needs_whole(const wcx_header *h);

/* Checks r (NULL: the whole image) against the file's header and fills
 * *out with it resolved: the rectangle in the reduced image, never empty.
 * WC_ERR_ARG names a rectangle outside the image, an empty side or a
 * reduce out of 0..levels; WC_ERR_UNSUPPORTED a reduce of a DCT/LOT file
 * or of a Monolithic one. */
wc_status region_resolve(const wcx_header *h, const wc_region *r, wc_region *out, wc_err *err);

/* Decodes the resolved region r into img (allocated by the caller: r's
 * width x height, the file's components and depth) from the file's coded
 * blocks `in` (whose block_mask this sets and clears), on `threads` host
 * threads with planes from pool. *blocks: how many code blocks were
 * entropy-decoded. */
wc_status region_decode(const wcx_header *h, const wc_layout *lay, const es_input *in,
                        const wc_region *r, int threads, wc_pool *pool, wc_image *img,
                        size_t *blocks, wc_err *err);

/* The bytes region_decode holds at its peak on `threads` threads, beside
 * the file and the program's fixed part (the decoder adds both): the
 * output and the window's planes, and of the coefficient planes, which are
 * allocated at the file's size, only the pages the decoded blocks and
 * dequantized rectangles touch (README, "Regions and thumbnails"). Needs
 * the layout's blocks (layout_build). */
uint64_t region_memory(const wcx_header *h, const wc_layout *lay, const wc_region *r, int threads);

/* A window's planes (img's size: ipl per component, fpl too for a float
 * one) into img's samples, as the CPU backend's inverse does: colour,
 * rounding, clamping (the streaming decoder's strips too). */
void region_window_samples(const wc_stage_plan *plan, int32_t **ipl, float **fpl, wc_image *img);

#endif
