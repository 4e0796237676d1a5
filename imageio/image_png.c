/*
 * image_png.c -- PNG reading and writing through libpng 1.6.
 *
 * Two choices the rest of wcodec relies on (also stated in image_io.h):
 *
 *  - tRNS on gray and RGB images (one transparent colour key) is ignored.
 *    Expanding it to alpha would turn 1/2/4-bit gray into 8-bit and change
 *    the component count; the reader's promise is the file's exact samples.
 *    Palette tRNS is honoured: the palette expands to RGBA.
 *
 *  - Depths PNG cannot store (gray 3, 5..7, 9..15; colour 1..7, 9..15) are
 *    written at the next larger PNG depth with the values unchanged -- not
 *    shifted up as the PNG spec suggests -- and an sBIT chunk naming the
 *    true depth. The reader takes sBIT as the image depth when every sample
 *    fits in it and the storage class (8 or 16 bit) does not change, so such
 *    files read back exactly; a file whose samples were shifted up the usual
 *    way keeps its container depth (still exact, only the label differs).
 *
 * libpng reports errors with longjmp. Each setjmp sits in a small function
 * whose only state is a struct owned by its caller, so nothing the error
 * path frees is a non-volatile local modified after setjmp (C11 7.13.2.1).
 */
#include <errno.h>
#include <inttypes.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io.h"

/* Ancillary chunks (text, ICC profiles) may not make libpng allocate more
 * than this; the image itself is capped by the pixel limit instead. */
#define PNG_CHUNK_BYTES_MAX ((png_alloc_size_t)8 << 20)
#define PNG_CHUNKS_MAX 1000u
#define PNG_SIG_BYTES 8

/* The byte source or sink and the error report shared with libpng. */
typedef struct png_io {
    const uint8_t *data; /* read first: the bytes after the signature that */
    size_t size;         /* were read to check the IHDR */
    size_t pos;
    const img_source *src; /* then the source, from src_pos on */
    size_t src_pos;
    FILE *fp; /* the sink for writing */
    const char *path;
    size_t total;       /* bytes read after the signature, for messages */
    wc_status status;   /* set by the I/O callbacks before they jump */
    wc_status fallback; /* status of any other libpng error */
    int nomem;          /* an allocation failed; libpng's error follows */
    size_t alloc_max;   /* largest allocation libpng may make; 0: any */
    int refused;        /* one was refused as larger than alloc_max */
    char msg[200];
} png_io;

typedef struct png_reader {
    png_io io;
    png_structp png;
    png_infop info;
    const img_limits *lim;
    wc_image *img;
    wc_err *err;
    uint8_t *pixels; /* owned until handed to *img */
    png_bytep *rows; /* interlaced images only */
    size_t pixels_cap;
} png_reader;

typedef struct png_writer {
    png_io io;
    png_structp png;
    png_infop info;
    const wc_image *img;
    size_t stride;
} png_writer;

static int png_host_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* ---- libpng callbacks: memory, messages, I/O ------------------------------ */

/* libpng 1.6.37+ allocates an ancillary chunk's whole declared length
 * before reading it (png_read_buffer), whatever png_set_chunk_malloc_max
 * says: a 150-byte file whose zTXt claims 2^31 - 1 bytes cost 1.9 GB. So
 * every libpng allocation is capped (alloc_max, from the IHDR's width);
 * a refused chunk buffer is a benign error, after which libpng skips the
 * chunk and runs into the end of the data. */
static png_voidp png_cb_malloc(png_structp png, png_alloc_size_t n)
{
    png_io *io = png_get_mem_ptr(png);
    if (io != NULL && io->alloc_max != 0 && n > io->alloc_max) {
        io->refused = 1;
        return NULL;
    }
    void *p = n <= SIZE_MAX ? wc_malloc((size_t)n) : NULL;
    if (p == NULL && io != NULL) io->nomem = 1;
    return p;
}

static void png_cb_free(png_structp png, png_voidp p)
{
    (void)png;
    wc_free(p);
}

static void png_cb_error(png_structp png, png_const_charp msg)
{
    png_io *io = png_get_error_ptr(png);
    if (io->msg[0] == '\0') snprintf(io->msg, sizeof io->msg, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

/* Warnings are about things libpng recovered from (a bad ancillary chunk's
 * CRC, an sRGB profile quirk); printing them from a library would be rude. */
static void png_cb_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Stops decoding with a message of our own and a precise status. */
static void png_io_jump(png_structp png, png_io *io, wc_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(io->msg, sizeof io->msg, fmt, ap);
    va_end(ap);
    io->status = s;
    png_longjmp(png, 1);
}

static void png_cb_read(png_structp png, png_bytep out, size_t n)
{
    png_io *io = png_get_io_ptr(png);
    size_t got = io->size - io->pos < n ? io->size - io->pos : n;
    if (got > 0) memcpy(out, io->data + io->pos, got);
    io->pos += got;
    if (got < n && io->src != NULL) {
        wc_err e = {{0}};
        size_t more = img_source_read(io->src, &io->src_pos, out + got, n - got, &e);
        if (more == SIZE_MAX) png_io_jump(png, io, WC_ERR_IO, "%s", e.msg);
        got += more;
    }
    if (got < n)
        png_io_jump(png, io, WC_ERR_TRUNCATED, "truncated: %s ends at byte %zu",
                    io->path ? io->path : "data", io->total + got + PNG_SIG_BYTES);
    io->total += n;
}

static void png_cb_write(png_structp png, png_bytep data, size_t n)
{
    png_io *io = png_get_io_ptr(png);
    if (fwrite(data, 1, n, io->fp) != n)
        png_io_jump(png, io, WC_ERR_IO, "cannot write %s: %s", io->path, strerror(errno));
}

/* Given because libpng would otherwise treat our io pointer as a FILE *. */
static void png_cb_flush(png_structp png)
{
    png_io *io = png_get_io_ptr(png);
    if (fflush(io->fp) != 0)
        png_io_jump(png, io, WC_ERR_IO, "cannot write %s: %s", io->path, strerror(errno));
}

/* The status and message after a longjmp. libpng's text is kept as it is,
 * e.g. "PNG: IHDR: CRC error". */
static wc_status png_io_fail(const png_io *io, wc_err *err)
{
    wc_status s = io->fallback;
    if (io->status != WC_OK)
        s = io->status;
    else if (io->refused)
        return wc_fail(err, WC_ERR_LIMIT, "PNG: %s (a chunk larger than %zu bytes)",
                       io->msg[0] ? io->msg : "libpng error", io->alloc_max);
    else if (io->nomem)
        s = WC_ERR_NOMEM;
    else if (strstr(io->msg, "CRC error") != NULL)
        s = WC_ERR_CHECKSUM;
    return wc_fail(err, s, "PNG: %s", io->msg[0] ? io->msg : "libpng error");
}

/* ---- reading ------------------------------------------------------------- */

static wc_status png_check_limit(uint32_t w, uint32_t h, uint64_t max_pixels, wc_err *err)
{
    uint64_t limit = max_pixels ? max_pixels : WC_DEFAULT_MAX_PIXELS;
    WC_RETURN_IF((uint64_t)w * h > limit, err, WC_ERR_LIMIT,
                 "image %" PRIu32 "x%" PRIu32 " exceeds the pixel limit %" PRIu64, w, h, limit);
    return WC_OK;
}

/* Reads the size from the IHDR (always the first chunk) before libpng
 * does, so the limit holds even when the rest of the file is missing or
 * damaged. The CRC is not checked yet: a damaged IHDR that claims too many
 * pixels is refused as too large rather than as damaged. */
static wc_status png_precheck_size(const uint8_t *p, size_t n, uint64_t max_pixels, wc_err *err)
{
    if (n < 16 || memcmp(p + 4, "IHDR", 4) != 0) return WC_OK; /* libpng will say why */
    return png_check_limit(png_get_uint_32(p + 8), png_get_uint_32(p + 12), max_pixels, err);
}

/* The largest allocation libpng needs for the image whose IHDR starts at p:
 * an ancillary chunk up to PNG_CHUNK_BYTES_MAX, or a row buffer (at most 8
 * bytes a pixel plus padding; 16 leaves room to spare). */
static size_t png_alloc_cap(const uint8_t *p, size_t n)
{
    size_t width = n >= 16 && memcmp(p + 4, "IHDR", 4) == 0 ? png_get_uint_32(p + 8) : 0;
    size_t rows = width <= (SIZE_MAX - ((size_t)1 << 16)) / 16 ? 16 * width : SIZE_MAX / 2;
    return (size_t)PNG_CHUNK_BYTES_MAX + ((size_t)1 << 16) + rows;
}

/* Asks libpng for one sample per byte (or per host-order uint16) at the
 * file's own values: no scaling, no gamma, no tRNS on gray/RGB. */
static void png_setup_transforms(png_structp png, png_infop info, int depth, int ctype)
{
    if (ctype == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(png);
        if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    } else if (depth < 8) {
        png_set_packing(png);
    }
    if (depth == 16 && png_host_little_endian()) png_set_swap(png);
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
}

/* Checks the row layout libpng will deliver; an interlaced image (whose
 * passes revisit every row) gets all its memory now, a plain one as its
 * rows arrive (png_read_grow). */
static wc_status png_alloc_image(png_reader *r, wc_image *out, int interlace)
{
    size_t bps = out->bit_depth > 8 ? 2 : 1, row, total;
    WC_RETURN_IF(wc_mul_overflow(out->width, out->components * bps, &row) ||
                     wc_mul_overflow(row, out->height, &total),
                 r->err, WC_ERR_LIMIT, "image %" PRIu32 "x%" PRIu32 " does not fit in memory",
                 out->width, out->height);
    WC_RETURN_IF(png_get_rowbytes(r->png, r->info) != row, r->err, WC_ERR_UNSUPPORTED,
                 "PNG: unexpected row layout (%zu bytes, expected %zu)",
                 (size_t)png_get_rowbytes(r->png, r->info), row);
    out->stride = row;
    if (interlace == PNG_INTERLACE_NONE) return WC_OK;
    r->pixels = wc_malloc(total);
    r->rows = wc_malloc_array(out->height, sizeof *r->rows);
    WC_RETURN_IF(r->pixels == NULL || r->rows == NULL, r->err, WC_ERR_NOMEM,
                 "PNG: cannot allocate %zu bytes for a %" PRIu32 "x%" PRIu32 " image", total,
                 out->width, out->height);
    for (uint32_t y = 0; y < out->height; y++) r->rows[y] = r->pixels + (size_t)y * row;
    return WC_OK;
}

/* Reads a non-interlaced image row by row into a buffer that doubles as
 * rows arrive (from 1 MiB), so data that ends early costs what it brought. */
static void png_read_grow(png_reader *r, const wc_image *out)
{
    const size_t row = out->stride, total = row * out->height;
    for (uint32_t y = 0; y < out->height; y++) {
        size_t end = (size_t)(y + 1) * row;
        if (end > r->pixels_cap) {
            size_t cap = r->pixels_cap ? r->pixels_cap : (size_t)1 << 20;
            while (cap < end) cap = cap <= total / 2 ? cap * 2 : total;
            cap = cap < total ? cap : total;
            uint8_t *p = wc_realloc(r->pixels, cap);
            if (p == NULL)
                png_io_jump(r->png, &r->io, WC_ERR_NOMEM,
                            "PNG: cannot allocate %zu bytes for a %" PRIu32 "x%" PRIu32 " image",
                            cap, out->width, out->height);
            r->pixels = p;
            r->pixels_cap = cap;
        }
        png_read_row(r->png, r->pixels + (size_t)y * row, NULL);
    }
}

/* The shape libpng will deliver (palette expanded), the memory the reader
 * itself holds beside the pixels (libpng's two row buffers, row pointers,
 * zlib's window), and for a regular file whether its size can hold the
 * compressed rows: deflate packs at most 1032 bytes into one. */
static wc_status png_check_header(png_reader *r, int depth, int interlace, const wc_image *shape)
{
    const uint64_t w = shape->width, h = shape->height;
    const uint64_t file_row =
        (w * (uint64_t)png_get_channels(r->png, r->info) * (uint64_t)depth + 7) / 8;
    const uint64_t out_row = w * shape->components * (shape->bit_depth > 8 ? 2 : 1);
    const uint64_t file_size = r->io.src ? r->io.src->file_size : 0;
    const uint64_t least = h * (file_row + 1) / 1032;
    WC_RETURN_IF(file_size && file_size < least, r->err, WC_ERR_TRUNCATED,
                 "PNG: truncated: %llu bytes cannot hold a %" PRIu32 "x%" PRIu32
                 " image (its rows need at least %llu bytes compressed)",
                 (unsigned long long)file_size, shape->width, shape->height,
                 (unsigned long long)least);
    const uint64_t reader = 2 * (out_row + file_row + 128) +
                            (interlace ? h * sizeof(png_bytep) : 0) + ((uint64_t)1 << 18);
    return img_check_shape(r->lim, shape, reader, r->err);
}

static uint32_t png_max_sample(const wc_image *img)
{
    size_t n = (size_t)img->width * img->height * img->components;
    uint32_t m = 0;
    if (img->bit_depth > 8) {
        const uint16_t *s = img->pixels;
        for (size_t i = 0; i < n; i++) m = s[i] > m ? s[i] : m;
    } else {
        const uint8_t *s = img->pixels;
        for (size_t i = 0; i < n; i++) m = s[i] > m ? s[i] : m;
    }
    return m;
}

/* The depth sBIT names when the samples are our unshifted kind (see top). */
static uint32_t png_sbit_depth(png_structp png, png_infop info, int ctype, const wc_image *img)
{
    png_color_8p sig = NULL;
    if (ctype == PNG_COLOR_TYPE_PALETTE || !png_get_sBIT(png, info, &sig) || sig == NULL)
        return img->bit_depth;
    uint32_t bits = sig->gray;
    if (ctype & PNG_COLOR_MASK_COLOR) {
        bits = sig->red > sig->green ? sig->red : sig->green;
        bits = sig->blue > bits ? sig->blue : bits;
    }
    if ((ctype & PNG_COLOR_MASK_ALPHA) && sig->alpha > bits) bits = sig->alpha;
    if (bits == 0 || bits >= img->bit_depth || (bits > 8) != (img->bit_depth > 8))
        return img->bit_depth;
    return png_max_sample(img) >> bits ? img->bit_depth : bits;
}

/* The reading set-up up to the header: what a whole read and a read by
 * rows share. Per-dimension limits at the PNG maximum: the real cap is the
 * pixel product (png_precheck_size, and the callers on the header libpng
 * parsed), applied before anything image-sized is allocated. */
static void png_read_head(png_structp png, png_infop info, void *io)
{
    png_set_sig_bytes(png, PNG_SIG_BYTES);
    png_set_read_fn(png, io, png_cb_read);
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_chunk_cache_max(png, PNG_CHUNKS_MAX);
    png_set_chunk_malloc_max(png, PNG_CHUNK_BYTES_MAX);
    png_read_info(png, info);
}

static wc_status png_read_body(png_reader *r)
{
    png_structp png = r->png;
    png_infop info = r->info;
    png_read_head(png, info, &r->io);

    png_uint_32 w, h;
    int depth, ctype, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    uint32_t comps = png_get_channels(png, info);
    if (ctype == PNG_COLOR_TYPE_PALETTE) comps = png_get_valid(png, info, PNG_INFO_tRNS) ? 4 : 3;
    wc_image out = {w, h, comps, ctype == PNG_COLOR_TYPE_PALETTE ? 8u : (uint32_t)depth, 0, NULL};
    /* Before png_read_update_info, which allocates libpng's row buffers. */
    WC_FORWARD_IF_ERROR(png_check_header(r, depth, interlace, &out));
    png_setup_transforms(png, info, depth, ctype);
    WC_RETURN_IF(png_get_channels(png, info) != comps, r->err, WC_ERR_UNSUPPORTED,
                 "PNG: unexpected channel count %u (expected %" PRIu32 ")",
                 (unsigned)png_get_channels(png, info), comps);
    WC_FORWARD_IF_ERROR(png_alloc_image(r, &out, interlace));
    if (interlace == PNG_INTERLACE_NONE)
        png_read_grow(r, &out);
    else
        png_read_image(png, r->rows);
    png_read_end(png, info); /* reads to IEND: a cut-off file is an error */

    out.pixels = r->pixels;
    out.bit_depth = png_sbit_depth(png, info, ctype, &out);
    r->pixels = NULL;
    *r->img = out;
    return WC_OK;
}

static wc_status png_read_guarded(png_reader *r)
{
    if (setjmp(png_jmpbuf(r->png))) return png_io_fail(&r->io, r->err);
    return png_read_body(r);
}

/* Runs the decoder on r's source and frees everything but the result. */
static wc_status png_decode(png_reader *r)
{
    wc_status s = WC_ERR_NOMEM;
    r->io.fallback = WC_ERR_CORRUPT;
    r->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &r->io, png_cb_error, png_cb_warning,
                                      &r->io, png_cb_malloc, png_cb_free);
    if (r->png != NULL) r->info = png_create_info_struct(r->png);
    if (r->info != NULL)
        s = png_read_guarded(r);
    else
        wc_fail(r->err, s, "PNG: cannot create the libpng reader");
    png_destroy_read_struct(&r->png, &r->info, NULL);
    wc_free(r->rows);
    wc_free(r->pixels);
    return s;
}

static wc_status png_verify_sig(const uint8_t *sig, size_t n, const char *where, wc_err *err)
{
    size_t k = n < PNG_SIG_BYTES ? n : PNG_SIG_BYTES;
    WC_RETURN_IF(k == 0 || png_sig_cmp(sig, 0, k) != 0, err, WC_ERR_FORMAT,
                 "PNG: not a PNG file%s%s", where ? ": " : "", where ? where : "");
    WC_RETURN_IF(k < PNG_SIG_BYTES, err, WC_ERR_TRUNCATED,
                 "PNG: truncated: data ends inside the signature (%zu bytes)", k);
    return WC_OK;
}

wc_status png_read_src(const img_source *src, const img_limits *lim, wc_image *img, wc_err *err)
{
    WC_RETURN_IF(img == NULL || src == NULL, err, WC_ERR_ARG, "PNG: no input or no output image");
    memset(img, 0, sizeof *img);
    uint8_t head[PNG_SIG_BYTES + 16]; /* signature, IHDR length, type, width, height */
    size_t pos = 0;
    size_t got = img_source_read(src, &pos, head, sizeof head, err);
    if (got == SIZE_MAX) return WC_ERR_IO;
    WC_FORWARD_IF_ERROR(png_verify_sig(head, got, src->fp ? src->name : NULL, err));
    WC_FORWARD_IF_ERROR(png_precheck_size(head + PNG_SIG_BYTES, got - PNG_SIG_BYTES,
                                          lim ? lim->max_pixels : 0, err));
    png_reader r = {.lim = lim, .img = img, .err = err};
    r.io.data = head + PNG_SIG_BYTES;
    r.io.size = got - PNG_SIG_BYTES;
    r.io.alloc_max = png_alloc_cap(r.io.data, r.io.size);
    r.io.src = src;
    r.io.src_pos = pos;
    r.io.path = src->fp ? src->name : NULL;
    return png_decode(&r);
}

wc_status png_read_mem(const uint8_t *data, size_t size, uint64_t max_pixels, wc_image *img,
                       wc_err *err)
{
    WC_RETURN_IF(img == NULL || (data == NULL && size > 0), err, WC_ERR_ARG,
                 "PNG: no input or no output image");
    img_source src = {data, size, NULL, NULL, size};
    img_limits lim = {max_pixels, 0, NULL, NULL};
    return png_read_src(&src, &lim, img, err);
}

wc_status png_read_file(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err)
{
    return img_read_path(path, max_pixels, "PNG", png_read_src, img, err);
}

/* ---- reading by rows (image_rows.c) ------------------------------------- */

struct png_in_rows {
    png_io io;
    png_structp png;
    png_infop info;
    img_source src;
    uint8_t head[PNG_SIG_BYTES + 16];
    wc_image shape;
    uint32_t y;
    wc_err *err;
};

/* The header, checked as png_read_body checks it; an interlaced image and
 * one whose sBIT may name a smaller depth (known only once every sample
 * was seen) are WC_ERR_UNSUPPORTED: those are read whole. */
static wc_status png_in_rows_body(png_in_rows *r)
{
    png_structp png = r->png;
    png_infop info = r->info;
    png_read_head(png, info, &r->io);
    png_uint_32 w, h;
    int depth, ctype, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    WC_RETURN_IF(interlace != PNG_INTERLACE_NONE, r->err, WC_ERR_UNSUPPORTED,
                 "PNG: interlaced rows come in passes");
    /* Sides the encoder takes (plan_check): libpng's row buffers, which
     * png_read_update_info allocates below, stay under 256 MiB. Others go
     * to the whole reader, whose limits say why. */
    WC_RETURN_IF(w > (1u << 24) || h > (1u << 24), r->err, WC_ERR_UNSUPPORTED,
                 "PNG: %" PRIu32 "x%" PRIu32 " is beyond the encoder's sides", (uint32_t)w,
                 (uint32_t)h);
    png_color_8p sig = NULL;
    WC_RETURN_IF(ctype != PNG_COLOR_TYPE_PALETTE && png_get_sBIT(png, info, &sig) && sig, r->err,
                 WC_ERR_UNSUPPORTED, "PNG: sBIT may name a smaller depth");
    uint32_t comps = png_get_channels(png, info);
    if (ctype == PNG_COLOR_TYPE_PALETTE) comps = png_get_valid(png, info, PNG_INFO_tRNS) ? 4 : 3;
    wc_image out = {w, h, comps, ctype == PNG_COLOR_TYPE_PALETTE ? 8u : (uint32_t)depth, 0, NULL};
    /* png_check_header's test: a file too small for its rows fails now. */
    const uint64_t file_row =
        ((uint64_t)w * (uint64_t)png_get_channels(png, info) * (uint64_t)depth + 7) / 8;
    const uint64_t least = (uint64_t)h * (file_row + 1) / 1032;
    WC_RETURN_IF(r->src.file_size && r->src.file_size < least, r->err, WC_ERR_TRUNCATED,
                 "PNG: truncated: %llu bytes cannot hold a %" PRIu32 "x%" PRIu32
                 " image (its rows need at least %llu bytes compressed)",
                 (unsigned long long)r->src.file_size, out.width, out.height,
                 (unsigned long long)least);
    png_setup_transforms(png, info, depth, ctype);
    WC_RETURN_IF(png_get_channels(png, info) != comps, r->err, WC_ERR_UNSUPPORTED,
                 "PNG: unexpected channel count %u (expected %" PRIu32 ")",
                 (unsigned)png_get_channels(png, info), comps);
    WC_RETURN_IF(png_get_rowbytes(png, info) != wc_packed_row_bytes(&out), r->err,
                 WC_ERR_UNSUPPORTED, "PNG: unexpected row layout");
    r->shape = out;
    return WC_OK;
}

static wc_status png_in_rows_guarded(png_in_rows *r)
{
    if (setjmp(png_jmpbuf(r->png))) return png_io_fail(&r->io, r->err);
    return png_in_rows_body(r);
}

static void png_in_rows_end(png_in_rows *r)
{
    if (r->png) png_destroy_read_struct(&r->png, &r->info, NULL);
    r->png = NULL;
    r->info = NULL;
}

/* (Re)starts libpng on the file from its first byte. */
static wc_status png_in_rows_start(png_in_rows *r)
{
    png_in_rows_end(r);
    WC_RETURN_IF(fseek(r->src.fp, 0, SEEK_SET) != 0, r->err, WC_ERR_IO, "%s: cannot seek: %s",
                 r->src.name, strerror(errno));
    size_t pos = 0;
    size_t got = img_source_read(&r->src, &pos, r->head, sizeof r->head, r->err);
    if (got == SIZE_MAX) return WC_ERR_IO;
    WC_FORWARD_IF_ERROR(png_verify_sig(r->head, got, r->src.name, r->err));
    WC_FORWARD_IF_ERROR(png_precheck_size(r->head + PNG_SIG_BYTES, got - PNG_SIG_BYTES, 0, r->err));
    const png_io io = {.data = r->head + PNG_SIG_BYTES,
                       .size = got - PNG_SIG_BYTES,
                       .src = &r->src,
                       .src_pos = pos,
                       .path = r->src.name,
                       .fallback = WC_ERR_CORRUPT,
                       .alloc_max = png_alloc_cap(r->head + PNG_SIG_BYTES, got - PNG_SIG_BYTES)};
    r->io = io;
    r->y = 0;
    r->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &r->io, png_cb_error, png_cb_warning,
                                      &r->io, png_cb_malloc, png_cb_free);
    if (r->png) r->info = png_create_info_struct(r->png);
    WC_RETURN_IF(!r->info, r->err, WC_ERR_NOMEM, "PNG: cannot create the libpng reader");
    return png_in_rows_guarded(r);
}

wc_status png_in_rows_open(FILE *fp, const char *name, uint64_t file_size, wc_image *shape,
                           png_in_rows **out, wc_err *err)
{
    *out = NULL;
    png_in_rows *r = wc_calloc(1, sizeof *r);
    WC_RETURN_IF(!r, err, WC_ERR_NOMEM, "out of memory");
    r->src = (img_source){NULL, 0, fp, name, file_size};
    r->err = err;
    wc_status s = png_in_rows_start(r);
    if (s != WC_OK) {
        png_in_rows_close(r);
        return s;
    }
    *shape = r->shape;
    *out = r;
    return WC_OK;
}

static wc_status png_in_rows_next(png_in_rows *r, void *row)
{
    if (setjmp(png_jmpbuf(r->png))) return png_io_fail(&r->io, r->err);
    png_read_row(r->png, row, NULL);
    if (++r->y == r->shape.height) png_read_end(r->png, r->info); /* a cut-off file fails */
    return WC_OK;
}

wc_status png_in_rows_read(png_in_rows *r, void *row, wc_err *err)
{
    r->err = err;
    WC_RETURN_IF(!r->png || r->y >= r->shape.height, err, WC_ERR_ARG,
                 "PNG: read past the last row");
    wc_status s = png_in_rows_next(r, row);
    if (s != WC_OK) png_in_rows_end(r); /* libpng's state after a longjmp is not to be reused */
    return s;
}

wc_status png_in_rows_rewind(png_in_rows *r, wc_err *err)
{
    r->err = err;
    return png_in_rows_start(r);
}

void png_in_rows_close(png_in_rows *r)
{
    if (!r) return;
    png_in_rows_end(r);
    wc_free(r);
}

/* ---- writing ------------------------------------------------------------- */

/* Checks the layout and that every sample lies in [0, 2^bit_depth - 1]
 * (a larger one would silently corrupt its neighbours in a packed row). */
static wc_status png_check_image(const wc_image *img, size_t *stride, wc_err *err)
{
    WC_RETURN_IF(img == NULL || img->pixels == NULL, err, WC_ERR_ARG, "PNG: no image to write");
    WC_RETURN_IF(img->width == 0 || img->height == 0 || img->width > PNG_UINT_31_MAX ||
                     img->height > PNG_UINT_31_MAX,
                 err, WC_ERR_ARG, "PNG: cannot write a %" PRIu32 "x%" PRIu32 " image", img->width,
                 img->height);
    WC_RETURN_IF(img->components < 1 || img->components > 4 || img->bit_depth < 1 ||
                     img->bit_depth > 16,
                 err, WC_ERR_ARG, "PNG: cannot write %" PRIu32 " components at %" PRIu32 " bits",
                 img->components, img->bit_depth);
    size_t bps = img->bit_depth > 8 ? 2 : 1, row;
    WC_RETURN_IF(wc_mul_overflow(img->width, img->components * bps, &row), err, WC_ERR_ARG,
                 "PNG: image row too large");
    WC_RETURN_IF(img->stride != 0 && img->stride < row, err, WC_ERR_ARG,
                 "PNG: stride %zu is less than the row size %zu", img->stride, row);
    *stride = img->stride ? img->stride : row;
    uint32_t maxv = (1u << img->bit_depth) - 1;
    size_t n = (size_t)img->width * img->components;
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *p = (const uint8_t *)img->pixels + (size_t)y * *stride;
        for (size_t i = 0; i < n; i++) {
            uint16_t v = p[i];
            if (bps == 2) memcpy(&v, p + 2 * i, 2); /* a stride may leave rows unaligned */
            WC_RETURN_IF(v > maxv, err, WC_ERR_ARG,
                         "PNG: sample %u at x=%zu, y=%" PRIu32 " does not fit in %" PRIu32 " bits",
                         (unsigned)v, i / img->components, y, img->bit_depth);
        }
    }
    return WC_OK;
}

/* The PNG depth that holds bit_depth exactly (PNG allows 1/2/4 only for
 * gray and palette). */
static int png_file_depth(uint32_t components, uint32_t depth)
{
    if (depth > 8) return 16;
    if (components > 1 || depth > 4) return 8;
    return depth > 2 ? 4 : (int)depth;
}

/* IHDR (and sBIT where the file's depth is wider than the image's) and
 * the transformations the rows need: what a whole write and a write by
 * rows share, after the caller has set the write function. */
static void png_write_head(png_writer *w)
{
    static const int ctypes[4] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                  PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    const wc_image *img = w->img;
    int fdepth = png_file_depth(img->components, img->bit_depth);
    png_set_user_limits(w->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX); /* default is 10^6 */
    png_set_compression_level(w->png, 6);
    png_set_IHDR(w->png, w->info, img->width, img->height, fdepth, ctypes[img->components - 1],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if ((uint32_t)fdepth != img->bit_depth) {
        png_color_8 sig = {0};
        png_byte d = (png_byte)img->bit_depth;
        if (img->components >= 3)
            sig.red = sig.green = sig.blue = d;
        else
            sig.gray = d;
        if (img->components % 2 == 0) sig.alpha = d;
        png_set_sBIT(w->png, w->info, &sig);
    }
    png_write_info(w->png, w->info);
    if (fdepth < 8) png_set_packing(w->png);
    if (fdepth == 16 && png_host_little_endian()) png_set_swap(w->png);
}

static wc_status png_write_body(png_writer *w)
{
    const wc_image *img = w->img;
    png_set_write_fn(w->png, &w->io, png_cb_write, png_cb_flush);
    png_write_head(w);
    for (uint32_t y = 0; y < img->height; y++)
        png_write_row(w->png, (const uint8_t *)img->pixels + (size_t)y * w->stride);
    png_write_end(w->png, w->info);
    return WC_OK;
}

static wc_status png_write_guarded(png_writer *w, wc_err *err)
{
    if (setjmp(png_jmpbuf(w->png))) return png_io_fail(&w->io, err);
    return png_write_body(w);
}

wc_status png_write_fp(FILE *fp, const char *name, const wc_image *img, wc_err *err)
{
    png_writer w = {.img = img};
    WC_RETURN_IF(fp == NULL, err, WC_ERR_ARG, "PNG: no output stream");
    WC_FORWARD_IF_ERROR(png_check_image(img, &w.stride, err));
    w.io.fp = fp;
    w.io.path = name;
    w.io.fallback = WC_ERR_ARG; /* the layout was checked; libpng refusing it is ours */
    wc_status s = WC_ERR_NOMEM;
    w.png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, &w.io, png_cb_error, png_cb_warning,
                                      &w.io, png_cb_malloc, png_cb_free);
    if (w.png != NULL) w.info = png_create_info_struct(w.png);
    if (w.info != NULL)
        s = png_write_guarded(&w, err);
    else
        wc_fail(err, s, "PNG: cannot create the libpng writer");
    png_destroy_write_struct(&w.png, &w.info);
    if (fflush(fp) != 0 && s == WC_OK)
        s = wc_fail(err, WC_ERR_IO, "PNG: cannot write %s: %s", name, strerror(errno));
    return s;
}

wc_status png_write_file(const char *path, const wc_image *img, wc_err *err)
{
    WC_RETURN_IF(path == NULL, err, WC_ERR_ARG, "PNG: no output path");
    size_t stride;
    WC_FORWARD_IF_ERROR(png_check_image(img, &stride, err));
    FILE *fp = fopen(path, "wb");
    WC_RETURN_IF(fp == NULL, err, WC_ERR_IO, "PNG: cannot create %s: %s", path, strerror(errno));
    wc_status s = png_write_fp(fp, path, img, err);
    if (fclose(fp) != 0 && s == WC_OK)
        s = wc_fail(err, WC_ERR_IO, "PNG: cannot write %s: %s", path, strerror(errno));
    if (s != WC_OK) remove(path); /* leave no half-written file behind */
    return s;
}

/* ---- writing row by row (a streaming decode's output) -------------------------- */

struct png_row_writer {
    png_writer w;
    const wc_meta *meta;
    uint8_t head[33]; /* the signature and IHDR, held until the metadata goes after them */
    size_t held;
    int packed; /* png_set_packing was asked for */
    uint32_t rows_left;
};

/* Writes as png_cb_write does, but holds the first 33 bytes (signature
 * and IHDR, which libpng writes first) to put the metadata chunks after
 * them, as png_meta_insert does to a whole file: the same bytes. */
static void png_cb_write_meta(png_structp png, png_bytep data, size_t n)
{
    png_row_writer *rw = (png_row_writer *)png_get_io_ptr(png);
    png_io *io = &rw->w.io;
    if (rw->held < sizeof rw->head) {
        const size_t take = n < sizeof rw->head - rw->held ? n : sizeof rw->head - rw->held;
        memcpy(rw->head + rw->held, data, take);
        rw->held += take;
        data += take;
        n -= take;
        if (rw->held == sizeof rw->head) {
            uint8_t *out = NULL;
            size_t size = 0;
            wc_err e = {{0}};
            if (png_meta_insert(rw->head, sizeof rw->head, rw->meta, &out, &size, &e) != WC_OK)
                png_io_jump(png, io, WC_ERR_NOMEM, "%s", e.msg);
            const int bad = fwrite(out, 1, size, io->fp) != size;
            wc_free(out);
            if (bad)
                png_io_jump(png, io, WC_ERR_IO, "cannot write %s: %s", io->path, strerror(errno));
        }
    }
    if (n && fwrite(data, 1, n, io->fp) != n)
        png_io_jump(png, io, WC_ERR_IO, "cannot write %s: %s", io->path, strerror(errno));
}

static void png_cb_flush_meta(png_structp png)
{
    png_row_writer *rw = (png_row_writer *)png_get_io_ptr(png);
    if (fflush(rw->w.io.fp) != 0)
        png_io_jump(png, &rw->w.io, WC_ERR_IO, "cannot write %s: %s", rw->w.io.path,
                    strerror(errno));
}

static wc_status png_rows_head(png_row_writer *rw, wc_err *err)
{
    png_writer *w = &rw->w;
    if (setjmp(png_jmpbuf(w->png))) return png_io_fail(&w->io, err);
    png_set_write_fn(w->png, rw, png_cb_write_meta, png_cb_flush_meta);
    png_write_head(w);
    return WC_OK;
}

wc_status png_rows_open(FILE *fp, const char *name, const wc_image *shape, const wc_meta *meta,
                        png_row_writer **out, wc_err *err)
{
    *out = NULL;
    WC_RETURN_IF(!fp || !shape, err, WC_ERR_ARG, "PNG: no output stream or image");
    WC_RETURN_IF(shape->width == 0 || shape->height == 0 || shape->width > PNG_UINT_31_MAX ||
                     shape->height > PNG_UINT_31_MAX,
                 err, WC_ERR_ARG, "PNG: cannot write a %" PRIu32 "x%" PRIu32 " image", shape->width,
                 shape->height);
    WC_RETURN_IF(shape->components < 1 || shape->components > 4 || shape->bit_depth < 1 ||
                     shape->bit_depth > 16,
                 err, WC_ERR_ARG, "PNG: cannot write %" PRIu32 " components at %" PRIu32 " bits",
                 shape->components, shape->bit_depth);
    png_row_writer *rw = wc_calloc(1, sizeof *rw);
    WC_RETURN_IF(!rw, err, WC_ERR_NOMEM, "PNG: out of memory");
    rw->meta = meta;
    rw->rows_left = shape->height;
    png_writer *w = &rw->w;
    w->img = shape;
    w->io.fp = fp;
    w->io.path = name;
    w->io.fallback = WC_ERR_ARG;
    wc_status s = WC_ERR_NOMEM;
    w->png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, &w->io, png_cb_error, png_cb_warning,
                                       &w->io, png_cb_malloc, png_cb_free);
    if (w->png != NULL) w->info = png_create_info_struct(w->png);
    if (w->info != NULL)
        s = png_rows_head(rw, err);
    else
        wc_fail(err, s, "PNG: cannot create the libpng writer");
    w->img = NULL; /* the caller's shape is not kept */
    if (s != WC_OK) {
        png_destroy_write_struct(&w->png, &w->info);
        wc_free(rw);
        return s;
    }
    *out = rw;
    return WC_OK;
}

static wc_status png_rows_body(png_row_writer *rw, const wc_image *rows, size_t stride, wc_err *err)
{
    png_writer *w = &rw->w;
    if (setjmp(png_jmpbuf(w->png))) return png_io_fail(&w->io, err);
    for (uint32_t y = 0; y < rows->height; y++)
        png_write_row(w->png, (const uint8_t *)rows->pixels + (size_t)y * stride);
    rw->rows_left -= rows->height;
    if (rw->rows_left == 0) png_write_end(w->png, w->info);
    return WC_OK;
}

wc_status png_rows_put(png_row_writer *rw, const wc_image *rows, wc_err *err)
{
    size_t stride = 0;
    WC_FORWARD_IF_ERROR(png_check_image(rows, &stride, err));
    WC_RETURN_IF(rows->height > rw->rows_left, err, WC_ERR_ARG,
                 "PNG: %" PRIu32 " rows more than the image has left (%" PRIu32 ")", rows->height,
                 rw->rows_left);
    return png_rows_body(rw, rows, stride, err);
}

wc_status png_rows_close(png_row_writer *rw, wc_err *err)
{
    if (!rw) return WC_OK;
    wc_status s = WC_OK;
    if (rw->rows_left)
        s = wc_fail(err, WC_ERR_ARG, "PNG: %" PRIu32 " rows were never written", rw->rows_left);
    if (fflush(rw->w.io.fp) != 0 && s == WC_OK)
        s = wc_fail(err, WC_ERR_IO, "PNG: cannot write %s: %s", rw->w.io.path, strerror(errno));
    png_destroy_write_struct(&rw->w.png, &rw->w.info);
    wc_free(rw);
    return s;
}
