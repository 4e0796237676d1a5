/*
 * bench_photo.h -- the large photograph the benchmarks code: side x side
 * RGB made by tiling 512x512 corners of the Kodak photographs in dir
 * (mirrored at every other tile so edges stay continuous).
 */
#ifndef WC_BENCH_PHOTO_H
#define WC_BENCH_PHOTO_H

#include <stdint.h>

#include "wcodec.h"

/* Fills *out (free with wc_image_free); 1 with a message naming `who` when
 * no Kodak image is there or memory runs out. */
int bench_photo(const char *who, const char *dir, uint32_t side, wc_image *out);

#endif
