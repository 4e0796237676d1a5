/*
 * image_io.h -- the image I/O library (wcodec_imageio) that the command,
 * the samples, the benchmarks and the tests link; libwcodec does not. It
 * reads and writes PNG (libpng) and PGM/PPM images into wc_image, and
 * whole files: file_write, image_write and the others below go through a
 * temporary file renamed at the end (files.c); png_write_file and
 * pnm_write_file write to the path they are given. Readers cap the pixel
 * count before allocating.
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
#include "wcodec.h"

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

/* ---- whole files (files.c) ----------------------------------------------- */

/* Reads a whole file (at most max_bytes; 0 = 4 GiB) into *data, which the
 * caller frees with free(). */
wc_status file_read(const char *path, size_t max_bytes, void **data, size_t *size, wc_err *err);
/* Writes size bytes to path through a temporary file renamed at the end: a
 * failure leaves no file behind. */
wc_status file_write(const char *path, const void *data, size_t size, wc_err *err);
/* Reads a PNG or a PGM/PPM, told apart by its first bytes; the message
 * starts with the path. Free the pixels with wc_image_free. */
wc_status image_read(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err);
/* Writes img as PNG, or PGM/PPM when path ends in .pgm/.ppm/.pnm, through a
 * temporary file renamed at the end. */
wc_status image_write(const char *path, const wc_image *img, wc_err *err);

#endif /* WC_IMAGE_IO_H */
