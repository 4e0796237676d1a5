/*
 * image_io.h -- reading and writing PNG (libpng) and PGM/PPM images into
 * wc_image. Readers cap the pixel count before allocating. Writers write to
 * the path they are given; atomic replacement is the caller's business.
 *
 * For every function: err may be NULL; on failure it names the problem
 * ("PNG: IHDR: CRC error", "PGM: maxval 70000 out of range 1..65535").
 * Readers clear *img first and fill it only on WC_OK; the pixels are
 * tightly packed (stride set), allocated with wc_malloc, and belong to the
 * caller (wc_image_free). max_pixels caps width*height (0 means
 * WC_DEFAULT_MAX_PIXELS); larger images are WC_ERR_LIMIT. Writers refuse
 * samples above 2^bit_depth - 1 and remove a partly written file.
 */
#ifndef WC_IMAGE_IO_H
#define WC_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "wc_common.h"

/* PNG: bit depths 1, 2, 4, 8, 16; gray, gray+alpha, RGB, RGBA; palette
 * expanded to RGB, or RGBA when it has transparency; interlaced input. The
 * image keeps the file's bit depth (1/2/4-bit gray stay 1/2/4-bit, one
 * sample per byte) and channel count. tRNS on a gray or RGB image (a colour
 * key) is ignored: the samples are returned as stored, with no alpha added.
 * An sBIT chunk smaller than the file depth becomes the image's bit depth
 * when every sample fits in it (what png_write_file produces), so such
 * files read back at their true depth. Truncated data is WC_ERR_TRUNCATED,
 * a CRC error WC_ERR_CHECKSUM, other damage WC_ERR_CORRUPT. */
wc_status png_read_mem(const uint8_t *data, size_t size, uint64_t max_pixels, wc_image *img,
                       wc_err *err);
wc_status png_read_file(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err);
/* Writes gray (1/2/4/8/16-bit), GA, RGB, RGBA at 8 or 16 bits. Depths
 * other than 1,2,4,8,16 are written at the next larger PNG depth with
 * an sBIT chunk recording the true depth. The values are written unchanged
 * (not shifted up to fill the larger depth), so the file keeps them exactly;
 * other PNG viewers show such an image darker than it is. Non-interlaced,
 * zlib level 6. */
wc_status png_write_file(const char *path, const wc_image *img, wc_err *err);

/* PNM: P5 (gray) and P6 (RGB), maxval 1..65535, comments in the header.
 * bit_depth = bits needed for maxval (255 -> 8, 1023 -> 10, 1 -> 1); the
 * values are not rescaled. A sample above maxval is WC_ERR_CORRUPT; P1-P4
 * and P7 are WC_ERR_UNSUPPORTED. Bytes after the raster are ignored.
 * pnm_read_file reads at most what the pixel limit allows plus 1 MiB of
 * header. */
wc_status pnm_read_mem(const uint8_t *data, size_t size, uint64_t max_pixels, wc_image *img,
                       wc_err *err);
wc_status pnm_read_file(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err);
/* Writes P5 for 1 component, P6 for 3, with maxval 2^bit_depth - 1;
 * other component counts are WC_ERR_UNSUPPORTED. */
wc_status pnm_write_file(const char *path, const wc_image *img, wc_err *err);

#endif /* WC_IMAGE_IO_H */
