/*
 * image_io.h -- the image I/O library (wcodec_imageio) that the command,
 * the samples, the benchmarks and the tests link; libwcodec does not. It
 * reads and writes PNG (libpng), TIFF (libtiff) and PGM/PPM images into
 * wc_image, with their metadata (wc_meta) where the format has it, and
 * whole files: file_write, image_write and the others below never leave a
 * partial output nor replace a device or a link (files.c); png_write_file
 * and pnm_write_file write to the path they are given. Readers check a
 * header's size against the pixel and memory limits before allocating.
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
#include <stdio.h>

#include "wc_common.h"
#include "wcodec.h"

/* What a reader may spend. The shape (size, components, depth) is known
 * from the header; the reader checks it here before allocating anything
 * image-sized. need, when given, says how many bytes the caller will hold
 * for an image of that shape, the image itself included (the encoder's
 * estimate); without it the pixels alone count. */
typedef struct img_limits {
    uint64_t max_pixels; /* 0: WC_DEFAULT_MAX_PIXELS */
    uint64_t max_memory; /* 0: no limit */
    uint64_t (*need)(const wc_image *shape, const void *arg);
    const void *arg;
} img_limits;

/* Where a reader's bytes come from: first head[0..head_size) (already
 * read, e.g. to recognise the format), then fp when not NULL. file_size is
 * the whole input's size when it is a regular file (or memory), else 0:
 * a reader compares it with what the header claims before allocating. */
typedef struct img_source {
    const uint8_t *head;
    size_t head_size;
    FILE *fp;
    const char *name; /* for messages */
    uint64_t file_size;
} img_source;

/* Refuses a shape over the limits (WC_ERR_LIMIT, naming the need and the
 * limit); reader_bytes is what the reader holds beside the pixels. */
wc_status img_check_shape(const img_limits *lim, const wc_image *shape, uint64_t reader_bytes,
                          wc_err *err);
/* Reads n bytes from src at *pos (head, then fp); returns how many arrived
 * (fewer only at the end of the input), or sets WC_ERR_IO in err and
 * returns SIZE_MAX. */
size_t img_source_read(const img_source *src, size_t *pos, void *out, size_t n, wc_err *err);

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
/* Reads from src (which starts at the signature). Before anything
 * image-sized is allocated, the header's shape is checked against lim and,
 * for a regular file, the file's size against the least compressed data
 * such an image needs (deflate packs at most 1032 bytes into one).
 * Non-interlaced rows are stored as they arrive, in a buffer that grows,
 * so a stream that ends early costs what it delivered. */
/* Opens path, reads it with read (png_read_src, pnm_read_src) under
 * max_pixels, closes it; a regular file's size is passed on so the reader
 * can check the header's claim against it. what names the format. */
typedef wc_status (*img_src_reader)(const img_source *, const img_limits *, wc_image *, wc_err *);
wc_status img_read_path(const char *path, uint64_t max_pixels, const char *what,
                        img_src_reader read, wc_image *img, wc_err *err);
wc_status png_read_src(const img_source *src, const img_limits *lim, wc_image *img, wc_err *err);
/* A PNG read a row at a time from fp (seekable; name for messages,
 * file_size 0 if unknown), for image_rows.c: the shape as png_read_src
 * gives it (pixels NULL); an interlaced file or one with sBIT is
 * WC_ERR_UNSUPPORTED (read those whole). Rows come as png_read_src stores
 * them; the last one also reads to IEND. rewind starts again at row 0. */
typedef struct png_in_rows png_in_rows;
wc_status png_in_rows_open(FILE *fp, const char *name, uint64_t file_size, wc_image *shape,
                           png_in_rows **out, wc_err *err);
wc_status png_in_rows_read(png_in_rows *r, void *row, wc_err *err);
wc_status png_in_rows_rewind(png_in_rows *r, wc_err *err);
void png_in_rows_close(png_in_rows *r);
/* TIFF a row at a time (image_tiff.c): a strip or a row of tiles decoded
 * at once, as tiff_read_lim decodes them; WC_ERR_UNSUPPORTED where a strip
 * or tile row is too large to be the unit (the whole reader serves). The
 * metadata: tiff_in_rows_meta (WC_ERR_UNSUPPORTED with an EXIF directory). */
typedef struct tiff_in_rows tiff_in_rows;
wc_status tiff_in_rows_open(FILE *fp, const char *name, uint64_t file_size, wc_image *shape,
                            tiff_in_rows **out, wc_err *err);
wc_status tiff_in_rows_read(tiff_in_rows *r, void *row, wc_err *err);
wc_status tiff_in_rows_rewind(tiff_in_rows *r, wc_err *err);
wc_status tiff_in_rows_meta(tiff_in_rows *r, wc_meta *meta, wc_err *err);
void tiff_in_rows_close(tiff_in_rows *r);
/* Writes gray (1/2/4/8/16-bit), GA, RGB, RGBA at 8 or 16 bits. Depths
 * other than 1,2,4,8,16 are written at the next larger PNG depth with
 * an sBIT chunk recording the true depth. The values are written unchanged
 * (not shifted up to fill the larger depth), so the file keeps them exactly;
 * other PNG viewers show such an image darker than it is. Non-interlaced,
 * zlib level 6. */
wc_status png_write_file(const char *path, const wc_image *img, wc_err *err);
/* Writes to an open stream (not closed; flushed); name is for messages. */
wc_status png_write_fp(FILE *fp, const char *name, const wc_image *img, wc_err *err);

/* PNM: P5 (gray) and P6 (RGB), maxval 1..65535, comments in the header.
 * bit_depth = bits needed for maxval (255 -> 8, 1023 -> 10, 1 -> 1); the
 * values are not rescaled. A sample above maxval is WC_ERR_CORRUPT; P1-P4
 * and P7 are WC_ERR_UNSUPPORTED. Bytes after the raster are ignored.
 * pnm_read_file reads at most what the pixel limit allows plus 1 MiB of
 * header. */
wc_status pnm_read_mem(const uint8_t *data, size_t size, uint64_t max_pixels, wc_image *img,
                       wc_err *err);
wc_status pnm_read_file(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err);
/* Reads from src: the header (at most 1 MiB with comments), the shape
 * checked against lim and a regular file's size against the raster it
 * claims, then the raster into a buffer that grows as bytes arrive. */
wc_status pnm_read_src(const img_source *src, const img_limits *lim, wc_image *img, wc_err *err);
/* The header alone: the shape (pixels NULL), the raster's offset from the
 * start of src and the maxval, for a reader of rows (image_rows.c). */
wc_status pnm_read_shape(const img_source *src, wc_image *shape, uint64_t *data_at,
                         uint32_t *maxval, wc_err *err);
/* Writes P5 for 1 component, P6 for 3, with maxval 2^bit_depth - 1;
 * other component counts are WC_ERR_UNSUPPORTED. */
wc_status pnm_write_file(const char *path, const wc_image *img, wc_err *err);
/* Writes to an open stream (not closed; flushed); name is for messages. */
wc_status pnm_write_fp(FILE *fp, const char *name, const wc_image *img, wc_err *err);

/* Row by row, for a streaming decode (image_stream.c): the header of an
 * image of shape's size (its pixels are not read), then rows->height rows
 * at image row y, each checked as pnm_write_fp checks them. */
wc_status pnm_rows_head(FILE *fp, const char *name, const wc_image *shape, wc_err *err);
wc_status pnm_rows_put(FILE *fp, const char *name, const wc_image *rows, uint32_t y, wc_err *err);
/* PNG row by row: png_rows_open writes the signature, IHDR, meta's chunks
 * (as png_meta_insert puts them: the same file as png_write_fp and
 * png_meta_insert give) and sBIT; png_rows_put compresses rows in order;
 * png_rows_close frees the writer (WC_ERR_ARG when rows are missing). */
typedef struct png_row_writer png_row_writer;
wc_status png_rows_open(FILE *fp, const char *name, const wc_image *shape, const wc_meta *meta,
                        png_row_writer **out, wc_err *err);
wc_status png_rows_put(png_row_writer *w, const wc_image *rows, wc_err *err);
wc_status png_rows_close(png_row_writer *w, wc_err *err);
/* TIFF row by row into fp (seekable), tiff_write_mem's bytes: open sets
 * the fields and the metadata (WC_ERR_UNSUPPORTED when meta has an EXIF
 * block: tiff_write_mem appends it to the bytes); close with finish
 * writes the directory, else abandons. */
typedef struct tiff_row_writer tiff_row_writer;
wc_status tiff_rows_open(FILE *fp, const char *name, const wc_image *shape, const wc_meta *meta,
                         tiff_row_writer **out, wc_err *err);
wc_status tiff_rows_put(tiff_row_writer *w, const wc_image *rows, wc_err *err);
wc_status tiff_rows_close(tiff_row_writer *w, int finish, unsigned *dropped, wc_err *err);
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
/* As tiff_read_mem, with the shape checked against lim (img_check_shape,
 * the file's bytes counting as the reader's) before anything is allocated;
 * tiff_read_mem is this with max_pixels and WC_DEFAULT_MAX_MEMORY. */
wc_status tiff_read_lim(const uint8_t *data, size_t size, unsigned page, const img_limits *lim,
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

/* ---- images by rows, for encoding in bounded memory (image_rows.c) ------ */

/* A seekable PGM/PPM or PNG file read a row at a time (wc_row_source's
 * read and rewind take an img_rows as their user pointer). img_rows_open
 * fills shape (pixels NULL) and, for a PGM/PPM, checks that the file holds
 * the whole raster it claims; WC_ERR_UNSUPPORTED for any other input (a
 * TIFF, a pipe, an interlaced PNG or one with sBIT), which the caller reads
 * whole. A sample above maxval, a short read or damage is an error whose
 * message img_rows_error gives. img_rows_meta appends a PNG's metadata
 * (png_meta_read of its chunks but IDAT; nothing for a PGM/PPM). */
typedef struct img_rows img_rows;
wc_status img_rows_open(const char *path, wc_image *shape, img_rows **out, wc_err *err);
wc_status img_rows_read(void *rows, void *row);
wc_status img_rows_rewind(void *rows);
const char *img_rows_error(const img_rows *r);
wc_status img_rows_meta(img_rows *r, wc_meta *meta, wc_err *err);
void img_rows_close(img_rows *r);

/* A byte store in an unnamed temporary file (tmpfile: nothing is left
 * behind, whatever happens), as wc_byte_store's user pointer. */
typedef struct tmp_store tmp_store;
wc_status tmp_store_open(tmp_store **out, wc_err *err);
wc_status tmp_store_append(void *store, const void *data, size_t n);
wc_status tmp_store_read(void *store, uint64_t offset, void *data, size_t n);
void tmp_store_close(tmp_store *s);

/* Writes path as file_write does (never partial, a temporary file renamed
 * at the end, "-" for standard output), the bytes coming from fn, which
 * writes them to fp (name is for messages). A failure of fn leaves no
 * file. */
typedef wc_status (*file_writer_fn)(FILE *fp, const char *name, void *arg, wc_err *err);
wc_status file_write_with(const char *path, file_writer_fn fn, void *arg, wc_err *err);

/* ---- whole files (files.c) ----------------------------------------------- */

/* The file helpers take a path; "-" means standard input (reading) or
 * standard output (writing). Outputs are never partial and never replace
 * anything but a regular file: a new path or an existing regular file is
 * written to a temporary file beside it, "NAME.wcodec-tmp.PID.N" (NAME
 * shortened if the name would be too long), renamed over it at the end
 * with the existing file's mode; a regular file the caller may not write
 * is refused (WC_ERR_IO). A device, FIFO or socket is written straight
 * into; a symbolic link is followed (its target is written, the link
 * stays). A failure leaves no file behind. Messages name the path
 * ("standard input" / "standard output" for "-"). */

/* Reads a whole file (at most max_bytes; 0 = 4 GiB) into *data, which the
 * caller frees with free(). */
wc_status file_read(const char *path, size_t max_bytes, void **data, size_t *size, wc_err *err);
/* Writes size bytes to path. */
wc_status file_write(const char *path, const void *data, size_t size, wc_err *err);

/* Reads a PNG (any bit depth, gray/GA/RGB/RGBA/palette, interlaced) or a
 * PGM/PPM (P5/P6, maxval up to 65535), told apart by its first bytes, into
 * *img (free with wc_image_free). max_pixels caps the size (0 =
 * WC_DEFAULT_MAX_PIXELS), and reading may hold at most
 * WC_DEFAULT_MAX_MEMORY bytes. The header is checked before the image is
 * allocated; a regular file too small for what its header claims is
 * refused first (WC_ERR_TRUNCATED), and rows from a pipe are stored as they
 * arrive. The message starts with the path. */
wc_status image_read(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err);
/* As image_read, and refuses (WC_ERR_LIMIT, before allocating) an image
 * whose encode with p would pass p->max_pixels or need more than
 * p->max_memory bytes (wc_encode_memory). p may be NULL for defaults. */
wc_status image_read_for_encode(const char *path, const wc_params *p, wc_image *img, wc_err *err);

typedef enum image_format {
    IMAGE_BY_NAME = 0, /* PGM/PPM when the path ends in .pgm/.ppm/.pnm, else PNG */
    IMAGE_PNG = 1,
    IMAGE_PNM = 2, /* PGM (1 component) or PPM (3) */
    IMAGE_TIFF = 3 /* by name: .tif, .tiff */
} image_format;

/* Writes img as PNG, or PGM/PPM when path ends in .pgm/.ppm/.pnm, or TIFF
 * when it ends in .tif/.tiff (any case). */
wc_status image_write(const char *path, const wc_image *img, wc_err *err);
/* Writes img in the given format (e.g. to "-", which has no extension). */
wc_status image_write_format(const char *path, const wc_image *img, image_format format,
                             wc_err *err);

/* The format image_write picks for path (never IMAGE_BY_NAME). */
image_format image_format_of(const char *path);

/* Writes img in format (IMAGE_BY_NAME: by path) with meta (may be NULL)
 * in the format's own fields: PNG chunks (png_meta_insert), TIFF tags
 * (tiff_write_mem), none in PGM/PPM. *dropped (may be NULL) gets a bit
 * (1 << kind) per metadata kind the format has no place for. The file is
 * written as image_write writes it: never partial, never over a device,
 * a link's target rather than the link, "-" for standard output. */
wc_status image_write_meta(const char *path, const wc_image *img, const wc_meta *meta,
                           image_format format, unsigned *dropped, wc_err *err);

/* As image_read_for_encode (p may be NULL for defaults), also reading TIFF
 * page `page` (1-based; 0 = 1; another page of a PNG or PNM is WC_ERR_ARG;
 * *pages, may be NULL, gets the file's page count) and, when meta is not
 * NULL, appending the file's metadata to it. A TIFF, or a PNG whose
 * metadata is wanted, is read whole first, at most p->max_memory bytes
 * (or WC_DEFAULT_MAX_MEMORY when that is 0), and the shape is checked
 * against the limits before the pixels are allocated. */
wc_status image_read_meta(const char *path, const wc_params *p, unsigned page, wc_image *img,
                          wc_meta *meta, unsigned *pages, wc_err *err);

/* Decodes the .wcx file at path with wc_decode, reading its header chunk
 * first: the signature, the header and p's limits are checked
 * (wc_decode_check_head; a regular file's size counting as memory) before
 * the rest is read, and the rest is read into a buffer that grows no
 * further than the limits allow. A failure is described in *err (the
 * library's message copied from ctx). */
wc_status decode_file(wc_ctx *ctx, const wc_params *p, const char *path, wc_image *out,
                      wc_err *err);
/* decode_file, and when meta is not NULL the file's metadata appended to
 * it (wc_meta_read). */
wc_status decode_file_meta(wc_ctx *ctx, const wc_params *p, const char *path, wc_image *out,
                           wc_meta *meta, wc_err *err);
/* decode_file_meta of the part `region` of the image (wc_decode_region;
 * NULL: the whole image, wc_decode). */
wc_status decode_file_region(wc_ctx *ctx, const wc_params *p, const char *path,
                             const wc_region *region, wc_image *out, wc_meta *meta, wc_err *err);
/* wc_inspect of the .wcx file at path, read as decode_file reads it (under
 * the default limits). */
wc_status inspect_file(wc_ctx *ctx, const char *path, wc_info *info, wc_err *err);

/* inspect_file, and when meta is not NULL the file's metadata appended. */
wc_status inspect_file_meta(wc_ctx *ctx, const char *path, wc_info *info, wc_meta *meta,
                            wc_err *err);

/* An output file as image_write writes one: "-" for standard output; else
 * a temporary file beside path, renamed over it by file_out_close when s
 * is WC_OK, removed otherwise (a device is written straight into). */
typedef struct file_out file_out;
wc_status file_out_open(const char *path, file_out **o, FILE **fp, wc_err *err);
wc_status file_out_close(const char *path, file_out *o, wc_status s, wc_err *err);
/* Decodes the .wcx file at path (a regular file: read by ranges) with
 * wc_decode_stream into out as format (IMAGE_BY_NAME: by out's name) with
 * meta's items (meta NULL: none; else the file's are appended to it and
 * written as image_write_meta writes them), row by row for PNG and PGM/PPM
 * (TIFF: the rows gathered, then written whole). *shape gets the image's
 * size (pixels NULL); *dropped as image_write_meta's. Nothing is left at
 * out on failure. */
wc_status decode_file_stream(wc_ctx *ctx, const wc_params *p, const char *path, const char *out,
                             image_format format, wc_meta *meta, wc_image *shape, unsigned *dropped,
                             wc_err *err);
/* "libpng 1.6.39, libtiff 4.5.0, zlib 1.2.13": the versions linked. */
void image_io_versions(char *buf, size_t cap);

/* Removes the temporary files of the writes above that are in progress in
 * this process. Async-signal-safe: call it from a SIGINT/SIGTERM handler
 * before exiting. (This table of names is the only process-wide state of
 * wcodec_imageio; libwcodec keeps none.) */
void file_cleanup(void);

#endif /* WC_IMAGE_IO_H */
