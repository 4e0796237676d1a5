/*
 * image_io.h -- reading and writing PNG (libpng) and PGM/PPM images into
 * wc_image. Readers cap the pixel count before allocating. Writers write to
 * the path they are given; atomic replacement is the caller's business.
 */
#ifndef WC_IMAGE_IO_H
#define WC_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "wc_common.h"

/* PNG: bit depths 1, 2, 4, 8, 16; gray, gray+alpha, RGB, RGBA; palette
 * expanded to RGB, or RGBA when it has transparency; interlaced input. The
 * image keeps the file's bit depth (1/2/4-bit gray stay 1/2/4-bit, one
 * sample per byte) and channel count. */
wc_status png_read_mem(const uint8_t *data, size_t size, uint64_t max_pixels, wc_image *img,
                       wc_err *err);
wc_status png_read_file(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err);
/* Writes gray (1/2/4/8/16-bit), GA, RGB, RGBA at 8 or 16 bits. Depths
 * other than 1,2,4,8,16 are written at the next larger PNG depth with
 * an sBIT chunk recording the true depth. */
wc_status png_write_file(const char *path, const wc_image *img, wc_err *err);

/* PNM: P5 (gray) and P6 (RGB), maxval 1..65535, comments in the header.
 * bit_depth = bits needed for maxval. */
wc_status pnm_read_mem(const uint8_t *data, size_t size, uint64_t max_pixels, wc_image *img,
                       wc_err *err);
wc_status pnm_read_file(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err);
/* Writes P5 for 1 component, P6 for 3, with maxval 2^bit_depth - 1;
 * other component counts are WC_ERR_UNSUPPORTED. */
wc_status pnm_write_file(const char *path, const wc_image *img, wc_err *err);

#endif /* WC_IMAGE_IO_H */
