/*
 * bench_photo.h -- the large photograph the benchmarks code: side x side
 * RGB (or width x height) made by tiling 512x512 corners of the Kodak photographs in dir
 * (mirrored at every other tile so edges stay continuous).
 */
#ifndef WC_BENCH_PHOTO_H
#define WC_BENCH_PHOTO_H

#include <stdint.h>

#include "wcodec.h"

/* Fills *out (free with wc_image_free); 1 with a message naming `who` when
 * no Kodak image is there or memory runs out. */
int bench_photo(const char *who, const char *dir, uint32_t side, wc_image *out);
/* The same tiling on width x height (an 8K frame: 7680 x 4320); a square
 * one has bench_photo's pixels. */
int bench_photo_rect(const char *who, const char *dir, uint32_t width, uint32_t height,
                     wc_image *out);

#endif
