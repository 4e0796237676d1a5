/*
 * image_ext.h -- the image I/O that the command links and the library does
 * not: TIFF through libtiff (image_tiff.c), PNG metadata (image_meta_png.c),
 * and reading and writing any supported file with its metadata
 * (image_file.c).
 *
 * As in image_io.h: err may be NULL, messages name the problem ("TIFF:
 * compression 7 (JPEG) is not supported"), readers clear *img first and fill
 * it only on WC_OK (free with wc_image_free), max_pixels caps width*height
 * (0 = WC_DEFAULT_MAX_PIXELS). A NULL meta means "not wanted": metadata is
 * neither read nor written.
 */
#ifndef WC_IMAGE_EXT_H
#define WC_IMAGE_EXT_H

#include <stddef.h>
#include <stdint.h>

#include "wc_common.h"

/* ---- TIFF (image_tiff.c) ---------------------------------------------------- */

/* 1..16-bit unsigned samples, gray (min-is-black or min-is-white, the
 * latter inverted), gray+alpha, RGB, RGBA; contiguous or planar; strips or
 * tiles; no compression, LZW, deflate or PackBits; either byte order. page
 * is 1-based (0 means 1); *pages (may be NULL) gets the file's page count.
 * The claimed size is checked against max_pixels and against what the
 * file's bytes can hold under its compression before anything is
 * allocated, and the pixel buffer grows as strips and tiles decode. meta
 * gets the ICC profile, XMP, resolution, chromaticities, DateTime, the
 * EXIF directory (as a block, image_exif.c) and the text tags
 * (ImageDescription -> "Description", DocumentName -> "Title",
 * Artist -> "Author", Copyright, Software, Make, Model, HostComputer,
 * PageName). Damage is WC_ERR_CORRUPT, an unsupported layout
 * WC_ERR_UNSUPPORTED. */
wc_status tiff_read_mem(const uint8_t *data, size_t size, unsigned page, uint64_t max_pixels,
                        wc_image *img, wc_meta *meta, unsigned *pages, wc_err *err);

/* Writes img as a one-page little-endian TIFF at its own bit depth (LZW,
 * with the horizontal predictor at 8 and 16 bits) into a new buffer
 * (*out, free with wc_free). meta's items that TIFF has a tag for are
 * written (see tiff_read_mem; the first EXIF item as the EXIF directory);
 * *dropped (may be NULL) gets a bit (1 << kind) for each kind that had to
 * be left out (gamma, sRGB, text without a tag, a second item of a kind
 * TIFF holds once). */
wc_status tiff_write_mem(const wc_image *img, const wc_meta *meta, uint8_t **out, size_t *size,
                         unsigned *dropped, wc_err *err);

/* ---- EXIF between TIFF and a standalone block (image_exif.c) ------------------ */

/* The EXIF directory at ifd_off of a classic TIFF file in memory, as the
 * TIFF-structured block PNG's eXIf holds (same byte order; new buffer,
 * wc_free). Entries pointing at further directories are left out. */
wc_status exif_from_tiff(const uint8_t *file, size_t size, uint64_t ifd_off, uint8_t **out,
                         size_t *out_size);
/* 1 when an EXIF block has a directory with at least one entry that can
 * be copied into a TIFF. */
int exif_usable(const uint8_t *exif, size_t size);
/* Appends an EXIF block's directory to a TIFF file in a growable buffer
 * (*file of *size bytes, *cap allocated, wc_realloc'd) and points the
 * main directory's EXIFIFD entry (written as 0 beforehand) at it. */
wc_status exif_into_tiff(uint8_t **file, size_t *size, size_t *cap, const uint8_t *exif,
                         size_t exif_size);

/* ---- PNG metadata (image_meta_png.c) ------------------------------------------ */

/* Appends the metadata chunks of a PNG file in memory to meta: iCCP, gAMA,
 * cHRM, sRGB, pHYs, tIME, tEXt, zTXt, iTXt (the one keyed
 * "XML:com.adobe.xmp" as XMP) and eXIf. Chunks with a bad CRC or damaged
 * contents are WC_ERR_CORRUPT; compressed values are inflated up to
 * WC_META_MAX_VALUE bytes. */
wc_status png_meta_read(const uint8_t *png, size_t size, wc_meta *meta, wc_err *err);

/* Returns a copy of a PNG file with meta's items inserted as chunks after
 * IHDR (*out, free with wc_free). Every kind has a PNG chunk; resolution in
 * inches or centimetres is converted to pixels per metre. */
wc_status png_meta_insert(const uint8_t *png, size_t size, const wc_meta *meta, uint8_t **out,
                          size_t *out_size, wc_err *err);

/* ---- any file (image_file.c) ---------------------------------------------------- */

/* Reads PNG, PGM/PPM or TIFF (by content) with its metadata into meta
 * (when not NULL). page applies to TIFF; *pages (may be NULL) gets the
 * page count (1 for other formats). Errors go to ctx and start with the
 * path. */
wc_status imgio_read(wc_ctx *ctx, const char *path, unsigned page, uint64_t max_pixels,
                     wc_image *img, wc_meta *meta, unsigned *pages);

/* Writes img by the path's extension: .tif/.tiff TIFF, .pgm/.ppm/.pnm PNM,
 * otherwise PNG, with meta (may be NULL) in the format's own fields,
 * atomically (a failure leaves no file). *dropped (may be NULL) gets a bit
 * (1 << kind) per metadata kind the format has no place for. */
wc_status imgio_write(wc_ctx *ctx, const char *path, const wc_image *img, const wc_meta *meta,
                      unsigned *dropped);

/* The message of the last failed imgio_read/imgio_write on this thread
 * when the failure was in this layer (TIFF, PNG metadata, pages); "" when
 * it was the library's, whose message is then wc_ctx_error(ctx). */
const char *imgio_error(void);

/* "libpng 1.6.39, libtiff 4.5.0, zlib 1.2.13": the versions linked. */
void imgio_versions(char *buf, size_t cap);

/* 1 if the path ends in .tif or .tiff (any case). */
int imgio_is_tiff_name(const char *path);

#endif /* WC_IMAGE_EXT_H */
