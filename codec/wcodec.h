/*
 * wcodec.h -- the public API of wcodec, a wavelet image codec.
 *
 * Everything a program needs is declared here or in wcodec_types.h, which
 * this header includes (the types the library's lower layers share); those
 * two headers are all that is installed.
 * All functions return a wc_status (WC_OK == 0) unless they say otherwise.
 * The library keeps no global mutable state: separate wc_ctx objects may be
 * used from separate threads at the same time.
 *
 * Typical use (see samples/embed.c):
 *
 *     wc_params p;
 *     wc_params_init(&p);             // lossless by default
 *     wc_ctx *ctx = wc_ctx_create();
 *     size_t cap = wc_encode_bound(&img, &p);
 *     uint8_t *buf = malloc(cap);
 *     size_t len;
 *     if (wc_encode(ctx, &p, &img, buf, cap, &len) != WC_OK)
 *         fprintf(stderr, "%s\n", wc_ctx_error(ctx));
 *     wc_ctx_free(ctx);
 */
#ifndef WCODEC_H
#define WCODEC_H

#include <stddef.h>
#include <stdint.h>

#include "wcodec_types.h" /* WC_API, wc_status, wc_image, wc_transform */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version ------------------------------------------------------------ */

#define WC_VERSION_MAJOR 0
#define WC_VERSION_MINOR 1
#define WC_VERSION_PATCH 0
#define WC_VERSION_NUMBER (WC_VERSION_MAJOR * 10000 + WC_VERSION_MINOR * 100 + WC_VERSION_PATCH)

/* Returns WC_VERSION_NUMBER of the library actually linked. */
WC_API unsigned wc_version_number(void);
/* Returns "MAJOR.MINOR.PATCH" of the linked library; static storage. */
WC_API const char *wc_version_string(void);

/* ---- images (the type is in wcodec_types.h) ------------------------------ */

/* Bytes per row of a tightly packed image (0 on overflow). */
WC_API size_t wc_image_row_bytes(const wc_image *img);
/* Allocates img->pixels for the size and layout already set in img (tightly
 * packed; stride is set). Free with wc_image_free. */
WC_API wc_status wc_image_alloc(wc_image *img);
/* Frees pixels allocated by the library and clears the pointer; NULL ok. */
WC_API void wc_image_free(wc_image *img);

/* ---- parameters ----------------------------------------------------------- */

/* HUFFMAN codes each code block as one serial stream (format 1.0);
 * HUFFMAN_TILES (format 2.0) the same model on 32x16 tiles of each block,
 * each tile its own stream, so a GPU decodes a block's tiles in parallel.
 * ARITH (format 2.0) codes each block with context-adaptive binary
 * arithmetic coding: smaller files, no tables; the CUDA backend codes it
 * on the host. */
typedef enum wc_entropy {
    WC_ENTROPY_HUFFMAN = 0,
    WC_ENTROPY_DEFLATE = 1,
    WC_ENTROPY_HUFFMAN_TILES = 2,
    WC_ENTROPY_ARITH = 3,
    /* Format 2.0: PNG's row filters over bit-packed samples, then deflate;
     * lossless with levels 0 only (the automatic lossless layout tries it
     * on graphics). */
    WC_ENTROPY_FILTERED = 4
} wc_entropy;
typedef enum wc_backend_kind {
    WC_BACKEND_AUTO = 0,
    WC_BACKEND_CPU = 1,
    WC_BACKEND_CUDA = 2
} wc_backend_kind;
/* Where image samples live: host memory, or CUDA device memory (a pointer
 * from cudaMalloc, on the device the CUDA backend uses). */
typedef enum wc_memory { WC_MEMORY_HOST = 0, WC_MEMORY_DEVICE = 1 } wc_memory;
/* How the DWT's lifting steps are arranged (format 2.0 for monolithic and
 * explosive): separable (JPEG 2000's order, 1.0 files) or one of Barina's
 * non-separable schemes, the same filters with each lifting pair's four
 * 1-D steps regrouped into spatial steps (other rounding, other bits):
 * Monolithic (two steps a pair), Explosive (three). */
typedef enum wc_dwt_scheme {
    WC_DWT_SEPARABLE = 0,
    WC_DWT_MONOLITHIC = 1,
    WC_DWT_EXPLOSIVE = 2
} wc_dwt_scheme;

#define WC_DEFAULT_MAX_PIXELS ((uint64_t)1 << 31)
/* Decoding needs about 6 bytes a sample at its peak lossless and 10 lossy
 * (coefficients, float planes, the output, the file); encoding 7 lossless
 * and 9-10 lossy (13-14 with a bpp target). The default cap of 8 GiB admits
 * a 16384 x 16384 RGB image both ways except a bpp-targeted lossy encode. */
#define WC_DEFAULT_MAX_MEMORY ((uint64_t)8 << 30)

/*
 * Encoder and decoder parameters. Fill with wc_params_init, then change what
 * you need. Of quality, step and bpp the encoder uses the first that is set
 * in the order bpp, step, quality; lossless ignores all three.
 */
/* wc_params.levels: let the encoder choose (the default). */
#define WC_LEVELS_AUTO (-1)

typedef struct wc_params {
    uint32_t abi;               /* set by wc_params_init; do not touch */
    int lossless;               /* 1 (default): DWT 5/3, step 1, exact */
    wc_transform transform;     /* lossy only: DWT (default), DCT, LOT */
    int wavelet;                /* 53 or 97; lossy default 97 */
    int levels;                 /* DWT levels 0..15 (capped by size), or
                              WC_LEVELS_AUTO (default): 5, and for a
                              lossless image that looks synthetic also no
                              transform, with Huffman and with deflate 9
                              (colour: with and without the RCT), keeping
                              the smallest file */
    float quality;              /* 1..100; 0 = not set (lossy default 75) */
    float step;                 /* base quantizer step > 0; 0 = not set */
    float bpp;                  /* target bits per pixel > 0; 0 = not set */
    float threshold;            /* zero coefficients with |c| < threshold */
    wc_entropy entropy;         /* Huffman (default), Huffman on tiles or deflate */
    int deflate_level;          /* 1..9, default 6 */
    int block_size;             /* code-block side: 16, 32, 64 or 128; 0 (default):
                                   64 for lossy Huffman, 128 otherwise */
    int threads;                /* 0 = all cores, else that many */
    wc_backend_kind backend;    /* AUTO (default), CPU or CUDA */
    uint64_t max_pixels;        /* encode and decode refuse images larger than
                              this (default WC_DEFAULT_MAX_PIXELS; 0 = that) */
    uint64_t max_memory;        /* encode and decode refuse to need more bytes,
                              counting all the call holds: the input (image
                              or file) too (default WC_DEFAULT_MAX_MEMORY;
                              0 = no limit). Checked before allocating. */
    const struct wc_meta *meta; /* encode: metadata to store in the file
                              (see "metadata"); NULL (default) for none.
                              Not owned; read during the call only. A bpp
                              target counts its bytes too. */
    int device;                 /* the CUDA device (0..wc_device_count()-1) the
                              context's GPU backend lives on: its streams,
                              buffers and kernels, and the calling thread's
                              current device from then on; -1 (default):
                              the thread's current device. A context asked
                              for another device than its last call's
                              moves there. CUDA asked by name fails on a
                              device out of range; AUTO falls back to the
                              CPU (wc_ctx_note says why). */
    wc_memory memory;           /* where img->pixels (encode) and out->pixels
                              (wc_decode_into) live; WC_MEMORY_DEVICE needs
                              the CUDA backend (else WC_ERR_UNSUPPORTED) */
    void *stream;               /* a cudaStream_t (as void *) whose earlier work
                              the CUDA backend waits for before reading the
                              samples, and on which it leaves the decoded
                              ones; NULL: none. The call returns when its
                              output is complete either way. */
    wc_dwt_scheme dwt_scheme;   /* DWT lifting arrangement (default separable) */
    uint64_t max_device_memory; /* encode on CUDA: device bytes the call may
                              allocate (0, the default: what the device
                              has free). An image whose whole-image
                              buffers need more is coded in strips of
                              rows (DWT, Huffman or arithmetic coding;
                              the same bytes); WC_ERR_LIMIT when even
                              one strip does not fit. Decode on CUDA
                              too: a file whose whole-image buffers
                              need more is decoded in strips (DWT,
                              Huffman or arithmetic coding; the same
                              pixels; other modes WC_ERR_LIMIT). */
} wc_params;

/* 2: wc_params gained meta, device, memory and stream.
 * 3: wc_params gained dwt_scheme.
 * 4: wc_params gained max_device_memory. */
#define WC_ABI_VERSION 4u
WC_API wc_status wc_params_init_abi(wc_params *p, unsigned abi, size_t size);
/* Sets every field of *p to its default (lossless, Huffman, levels auto) and
 * returns WC_OK. A program built against a wc_params of another layout
 * (another wcodec.h than the library's) gets WC_ERR_ABI and *p is left
 * alone but for p->abi, zeroed when it fits, which makes every later call
 * with p refuse it; WC_ERR_ARG when p is NULL. Nothing is printed. */
#define wc_params_init(p) wc_params_init_abi((p), WC_ABI_VERSION, sizeof(wc_params))

/* ---- context ------------------------------------------------------------- */

/* The number of CUDA devices the GPU backend can use (CUDA_VISIBLE_DEVICES
 * applies), for wc_params.device; 0 in a build without CUDA or on a machine
 * without a driver or a device. Creates no GPU context. */
WC_API int wc_device_count(void);

/* Holds scratch memory, worker threads' buffers, the GPU backend if used,
 * and the message of the last error. One context per thread at a time. */
typedef struct wc_ctx wc_ctx;

/* Returns a new context, or NULL when out of memory. */
WC_API wc_ctx *wc_ctx_create(void);
/* Frees a context and everything it holds; NULL is accepted. */
WC_API void wc_ctx_free(wc_ctx *ctx);
/* A context keeps the large work buffers of its last call (coefficient
 * planes: about 4 bytes a sample per component, a few times over; the
 * encoder's coded symbols, blocks and payloads), within what the call's
 * memory estimate counts (wc_encode_memory for an encode), so the
 * next call on an image of that size or smaller skips allocating and
 * faulting them in. wc_ctx_trim gives them back to the system now. */
WC_API void wc_ctx_trim(wc_ctx *ctx);
/* The message of the last failed call on ctx, naming what and where (e.g.
 * "chunk 4 (WDAT) at byte 812: CRC mismatch (stored ..., computed ...)");
 * "" when none. Owned by ctx. */
WC_API const char *wc_ctx_error(const wc_ctx *ctx);
/* Name of the backend the last encode/decode ran on ("cpu" or "cuda"). */
WC_API const char *wc_ctx_backend(const wc_ctx *ctx);
/* Why that backend: e.g. "backend: cpu (CUDA unavailable: no CUDA
 * device)" or "backend: cpu (WC_BACKEND=cpu)"; "" when it was asked for
 * by name. Owned by ctx. */
WC_API const char *wc_ctx_note(const wc_ctx *ctx);

/* Seconds the last encode or decode on ctx spent in each stage. Fields are
 * only ever added at the end: the library fills as much of the struct as
 * the program's wcodec.h declares (the size wc_ctx_times passes). */
typedef struct wc_times {
    double transform; /* colour + transform + (de)quantize on the backend, transfers included */
    double entropy;   /* code-block modelling and coding (all probes of rate control) */
    double container; /* chunks, index and CRCs */
    double rate;      /* rate control's search, beyond its entropy coding */
} wc_times;
WC_API void wc_ctx_times_sized(const wc_ctx *ctx, wc_times *t, size_t t_size);
/* Fills *t (all zero when ctx is NULL); t may be NULL. */
#define wc_ctx_times(ctx, t) wc_ctx_times_sized((ctx), (t), sizeof *(t))

/* Starts the backend p asks for ahead of a call: on CUDA the driver's
 * context, the kernels of p's mode and a stream; with a shape (its width,
 * height, components and bit_depth; pixels are not read) also the device
 * and pinned buffers an encode of such an image grows. A program may call
 * it on one thread while another reads the image, so that wc_encode then
 * spends its time coding. Nothing to do on the CPU backend. Not
 * thread-safe with other calls on ctx. */
WC_API wc_status wc_ctx_prepare(wc_ctx *ctx, const wc_params *p, const wc_image *shape);

/* ---- encode / decode between memory buffers ----------------------------- */

/* The bytes an encode of an image of img's size, components and depth with
 * p holds at its peak, img's pixels included (img->pixels is not read):
 * what wc_encode compares with p->max_memory. 0 on bad args. */
WC_API uint64_t wc_encode_memory(const wc_image *img, const wc_params *p);

/* ---- encode in bounded memory: rows in, bytes out (issue 15) -------------
 *
 * wc_encode_rows codes an image it never holds whole: rows come from a
 * source, one at a time from the top, and the file goes out through a sink
 * in one sequential pass. It holds a few rows per transform level and a row
 * of code blocks per band (memory that grows with the width, not the
 * area), the code-block index and, where no store is given, the coded
 * payload (about the file's size). With Huffman coding (entropy 0 and 2)
 * the source is read twice (a rewind between): the first pass counts the
 * symbols the tables are built from, the second codes. The components go
 * side by side on up to p->threads workers (calls of src, store and write
 * come from the calling thread, or under a lock). The file's bytes
 * are wc_encode's for the same parameters (levels WC_LEVELS_AUTO takes the
 * photograph layout, 5 levels, as wc_encode does for any image that does
 * not look synthetic). On the host, the DWT of the separable or the
 * Monolithic scheme, the DCT or the LOT: lossless, or lossy at a step or
 * quality; or at a bpp target with the separable DWT and plain Huffman
 * blocks (WC_ENTROPY_HUFFMAN: a pass of statistics and one or more of
 * symbol counts come first, codec/ratectl.h; the step is the one wc_encode
 * chooses); wc_encode_rows_supported says. */
typedef struct wc_row_source {
    /* The next row's samples, packed as wc_image_row_bytes gives, into
     * row. A status other than WC_OK stops the encode (its message, when
     * the source has one, is the caller's to show). */
    wc_status (*read)(void *user, void *row);
    /* Back to the first row (the second pass). */
    wc_status (*rewind)(void *user);
    void *user;
} wc_row_source;

/* Where the coded payload waits while the file is not yet complete: NULL
 * keeps it in memory. append stores bytes after those stored before; read
 * gives back n bytes from offset (a temporary file, say). */
typedef struct wc_byte_store {
    wc_status (*append)(void *user, const void *data, size_t n);
    wc_status (*read)(void *user, uint64_t offset, void *data, size_t n);
    void *user;
} wc_byte_store;

/* Receives the file, in order. */
typedef wc_status (*wc_write_fn)(void *user, const void *data, size_t n);

/* 1 when wc_encode_rows codes an image of shape's size with p, else 0. */
WC_API int wc_encode_rows_supported(const wc_image *shape, const wc_params *p);
/* The bytes wc_encode_rows holds at its peak for an image of shape's size
 * (shape->pixels is not read), with the payload in a store (store != 0)
 * or in memory: what it compares with p->max_memory. 0 on bad args. */
WC_API uint64_t wc_encode_rows_memory(const wc_image *shape, const wc_params *p, int store);
/* Encodes the shape->height rows src gives (shape: width, height,
 * components, bit_depth; pixels not read) and writes the file to write. */
WC_API wc_status wc_encode_rows(wc_ctx *ctx, const wc_params *p, const wc_image *shape,
                                const wc_row_source *src, const wc_byte_store *store,
                                wc_write_fn write, void *write_user);

/* An upper bound on the encoded size of img with params p; 0 on bad args. */
WC_API size_t wc_encode_bound(const wc_image *img, const wc_params *p);

/*
 * Encodes img into dst[0..cap). On WC_OK *written holds the file's size.
 * The output depends only on img and p: not on threads, backend or machine.
 */
WC_API wc_status wc_encode(wc_ctx *ctx, const wc_params *p, const wc_image *img, void *dst,
                           size_t cap, size_t *written);

/* Like wc_encode but allocates the output; free *out with wc_free. */
WC_API wc_status wc_encode_alloc(wc_ctx *ctx, const wc_params *p, const wc_image *img, void **out,
                                 size_t *out_size);

/* What a file's header says, read without decoding. Fields are only ever
 * added at the end: the library fills as much of the struct as the
 * program's wcodec.h declares (the size wc_inspect passes). */
typedef struct wc_info {
    uint32_t width, height, components, bit_depth;
    uint32_t format_major, format_minor;
    int lossless;
    wc_transform transform;
    int wavelet; /* 53 or 97; 153, 197: the same in the Monolithic scheme; 203, 207: Explosive */
    int levels;
    int colour; /* 0 none, 1 RCT, 2 ICT, 3 palette (format 2.0) */
    wc_entropy entropy;
    int block_size;
    float base_step;
    uint32_t bands; /* bands of component 0 */
    uint64_t file_bytes;
    uint64_t component_bytes[4];
    /* Coded bytes per band in coding order: DWT: LL, then HL, LH, HH from
     * the coarsest level down; DCT/LOT: the 64 frequencies in zigzag order. */
    uint64_t band_bytes[4][64];
} wc_info;

WC_API wc_status wc_inspect_sized(wc_ctx *ctx, const void *src, size_t size, wc_info *info,
                                  size_t info_size);
/* Reads the header and index of a file in memory into *info. */
#define wc_inspect(ctx, src, size, info) \
    wc_inspect_sized((ctx), (src), (size), (info), sizeof *(info))

/* Frees memory the library allocated for the program (wc_encode_alloc's
 * output); NULL is accepted. Images have wc_image_free. */
WC_API void wc_free(void *p);

/*
 * Decodes src[0..size) into *out, allocating out->pixels (free with
 * wc_image_free). p may be NULL for defaults; its max_pixels, max_memory,
 * threads and backend apply. Any damage yields an error, never a crash.
 */
WC_API wc_status wc_decode(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                           wc_image *out);

/*
 * Decodes src[0..size) into the caller's buffer: out->pixels (host or, with
 * p->memory == WC_MEMORY_DEVICE, CUDA device memory) with out->stride
 * bytes between rows (0: packed); out->width, height, components and
 * bit_depth must be the file's (wc_inspect tells them), else WC_ERR_ARG.
 */
WC_API wc_status wc_decode_into(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                                wc_image *out);

/*
 * Part of an image, at full or reduced resolution, without decoding the
 * rest: only the code blocks the part depends on are read and decoded, and
 * the inverse transform runs on that window only. The samples are exactly
 * those of the same rectangle of a whole decode (of the reduced image when
 * reduce > 0).
 *   reduce: 0 (full size) .. the file's DWT levels (wc_info.levels): the
 *     image made of the bands coarser than level `reduce`, each side
 *     divided by 2^reduce and rounded up (as JPEG 2000 does): the LL band
 *     of that level, whose filters have a DC gain of 1 (5/3 and 9/7), so
 *     its samples are taken as they are, rounded and clamped as a whole
 *     decode rounds its samples. DCT and LOT files refuse reduce > 0
 *     (WC_ERR_UNSUPPORTED).
 *   x, y, width, height: the rectangle, in the reduced image's pixels;
 *     width == height == 0 means all of it. A rectangle not inside the
 *     (reduced) image, or with one side 0, is WC_ERR_ARG.
 */
typedef struct wc_region {
    uint32_t x, y, width, height;
    int reduce;
} wc_region;

/* Decodes the part r of src[0..size) into *out (allocated as wc_decode
 * does: width x height pixels, the file's components and depth). r NULL
 * is the whole image. p as for wc_decode, but p->max_memory is checked
 * against what the part needs (the file, the output, and only the pages
 * of the coefficient planes its code blocks fill), not a whole decode's;
 * the CPU does the work whatever p->backend asks (wc_ctx_note says so
 * when another was asked), and p->memory must be WC_MEMORY_HOST. */
WC_API wc_status wc_decode_region(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                                  const wc_region *r, wc_image *out);

/*
 * Many images in one call, with one set of parameters: outs[i] and
 * sizes[i] as wc_encode_alloc gives them (free each with wc_free), the
 * same bytes. Images are coded side by side on p->threads host threads
 * (0: all cores), each with a context of its own kept in ctx (on CUDA its
 * own stream and buffers, and a CUDA graph of the device chain for each
 * of the last few image shapes it coded), so a second batch pays no
 * set-up. On failure
 * *failed (if not NULL) holds the lowest failing index and wc_ctx_error
 * says "image I: " and that image's message; the images before it are
 * coded (their outputs kept) and the rest are NULL.
 */
WC_API wc_status wc_encode_batch(wc_ctx *ctx, const wc_params *p, const wc_image *imgs, size_t n,
                                 void **outs, size_t *sizes, size_t *failed);
/* Decodes srcs[i][0..sizes[i]) into outs[i] as wc_decode does (or, with
 * p->memory == WC_MEMORY_DEVICE, into the caller's buffers as
 * wc_decode_into does), side by side as wc_encode_batch codes. Failure as
 * in wc_encode_batch: the images before the failing one are decoded, the
 * rest have pixels NULL (wc_decode) or undefined contents (into). */
WC_API wc_status wc_decode_batch(wc_ctx *ctx, const wc_params *p, const void *const *srcs,
                                 const size_t *sizes, size_t n, wc_image *outs, size_t *failed);

/* How many bytes wc_decode_check_head wants first: the signature and the
 * header chunk of a file fit in them. */
#define WC_DECODE_HEAD_BYTES ((size_t)4096)

/*
 * For a program that reads a .wcx file from a file or a pipe: checks its
 * first n bytes before the rest is read, so that a small file claiming a
 * huge image costs nothing. The signature is checked; then, when n is
 * WC_DECODE_HEAD_BYTES (more may follow), the header chunk (framing, CRC,
 * fields) and p's pixel and memory limits (p may be NULL for defaults),
 * with file_size (a regular file's size, else 0) counted as memory, as
 * wc_decode counts its input. When n is smaller the file is all there and
 * wc_decode will say the rest (more than WC_DECODE_HEAD_BYTES is taken as
 * that many). Sets *max_file to the most bytes the whole
 * file may have under the limits: read no further. Allocates nothing;
 * the message of a failure is wc_ctx_error's.
 */
WC_API wc_status wc_decode_check_head(wc_ctx *ctx, const wc_params *p, const void *head, size_t n,
                                      uint64_t file_size, size_t *max_file);

/* ---- decoding in bounded memory (streaming) ---------------------------------- */

/* Where a streaming decode reads the file: read(user, offset, dst, n) puts
 * the n bytes at offset into dst and returns 0, else non-zero (an I/O
 * error); size is the file's size in bytes. */
typedef struct wc_stream_source {
    int (*read)(void *user, uint64_t offset, void *dst, size_t n);
    void *user;
    uint64_t size;
} wc_stream_source;

/* Where its rows go. begin (may be NULL) gets the image's shape (pixels
 * NULL) once the whole file has been checked, before any row; rows gets
 * each strip in order, top to bottom: a width x height image (packed,
 * owned by the library, valid during the call) of the image's rows y ..
 * y + height - 1. A status other than WC_OK from either stops the decode
 * with that status. */
typedef struct wc_stream_sink {
    wc_status (*begin)(void *user, const wc_image *shape);
    wc_status (*rows)(void *user, const wc_image *rows, uint32_t y);
    void *user;
} wc_stream_sink;

/*
 * Decodes a file in working memory that grows with the image's width, not
 * its area: the file is read by ranges (first every chunk once, its CRC
 * checked, keeping only the small ones: header, tables, index, metadata;
 * then each code block when a strip first needs it), and the image is
 * made as full-width strips, each the exact window of the inverse
 * transform (so the rows are wc_decode's, byte for byte), handed to
 * sink->rows. Any damage wc_decode reports in a file's chunks (framing,
 * CRC, header, index) is reported so, with the same status and message,
 * before begin is called; damage inside a code block, found only when a
 * strip decodes it, comes after some rows were delivered (a program
 * writing a file discards it). The strip height is the largest of 32
 * rows, 16 and 8 whose need (wc_ctx_note names both) is within
 * p->max_memory, else WC_ERR_LIMIT. Runs on the host, on p->threads
 * threads (the blocks of a row, the window's transform; the rows do not
 * depend on them), whatever p->backend asks; p->memory must be WC_MEMORY_HOST. A file of
 * the Monolithic or Explosive DWT (wavelets 153, 197, 203, 207) has no window inverse: it is read
 * whole and decoded by wc_decode (under p's limits), then handed out in
 * strips. meta, when not NULL, gets the file's metadata (wc_meta_read's).
 */
WC_API wc_status wc_decode_stream(wc_ctx *ctx, const wc_params *p, const wc_stream_source *src,
                                  const wc_stream_sink *sink, struct wc_meta *meta);

/* The bytes a wc_decode_stream of the file would hold at its peak with
 * p's limit (its estimate), and the strip height it would take; the file
 * is read (every chunk, CRCs checked) but nothing decoded. 0 on any error
 * (wc_ctx_error says it), e.g. when even the smallest strips pass the
 * limit. */
WC_API uint64_t wc_decode_stream_memory(wc_ctx *ctx, const wc_params *p,
                                        const wc_stream_source *src, uint32_t *strip_rows);

/* ---- metadata ---------------------------------------------------------------- */

/*
 * Metadata travels beside the pixels: ICC profile, colour hints, resolution,
 * text, EXIF, XMP. A wc_meta is a growable list of items; attach one to an
 * encode through wc_params.meta (each item becomes a WMET chunk of the file,
 * container/FORMAT.md) and get it back from a file with wc_meta_read. The
 * codec never interprets it: pixels decode the same with or without it.
 *
 * Item values (multi-byte numbers little-endian):
 *   WC_META_ICC          ICC profile bytes; key: the profile's name ("" if none)
 *   WC_META_EXIF         EXIF as TIFF-structured bytes ("II*\0" or "MM\0*"
 *                        first), as in PNG's eXIf chunk; key ""
 *   WC_META_XMP          an XMP packet (UTF-8 XML); key ""
 *   WC_META_TEXT         key: keyword, 1..79 bytes; value: the text (UTF-8
 *                        with WC_META_TEXT_UTF8, else Latin-1)
 *   WC_META_GAMMA        4 bytes: u32, image gamma x 100000 (PNG gAMA)
 *   WC_META_CHROMATICITY 32 bytes: 8 x u32, x 100000: white x, y; red x, y;
 *                        green x, y; blue x, y (PNG cHRM)
 *   WC_META_SRGB         1 byte: rendering intent 0..3 (PNG sRGB)
 *   WC_META_RESOLUTION   17 bytes: f64 x, f64 y pixels per unit, u8 unit:
 *                        0 none (aspect ratio only), 1 metre, 2 inch,
 *                        3 centimetre
 *   WC_META_TIME         7 bytes: u16 year, u8 month, day, hour, minute,
 *                        second (PNG tIME; TIFF DateTime)
 * Limits: WC_META_MAX_KEY bytes of key (no NUL), WC_META_MAX_VALUE bytes of
 * value, WC_META_MAX_ITEMS items and WC_META_MAX_TOTAL bytes in all.
 */
typedef enum wc_meta_kind {
    WC_META_ICC = 1,
    WC_META_EXIF = 2,
    WC_META_XMP = 3,
    WC_META_TEXT = 4,
    WC_META_GAMMA = 5,
    WC_META_CHROMATICITY = 6,
    WC_META_SRGB = 7,
    WC_META_RESOLUTION = 8,
    WC_META_TIME = 9
} wc_meta_kind;

#define WC_META_TEXT_COMPRESSED 1u /* came compressed (zTXt, compressed iTXt): write it so */
#define WC_META_TEXT_UTF8 2u       /* UTF-8 text (PNG iTXt); without it, Latin-1 */
/* WC_META_MAX_KEY, _VALUE, _ITEMS, _TOTAL: wcodec_types.h (container/ checks them too). */

/* One item; the pointers belong to the wc_meta and stay valid until the
 * next wc_meta_add, wc_meta_clear or wc_meta_free on it. */
typedef struct wc_meta_item {
    wc_meta_kind kind;
    uint32_t flags;  /* WC_META_TEXT_* for text, else 0 */
    const char *key; /* NUL-terminated; "" when the kind has none */
    const uint8_t *data;
    size_t size;
} wc_meta_item;

typedef struct wc_meta wc_meta;

/* Returns a new, empty list, or NULL when out of memory. */
WC_API wc_meta *wc_meta_create(void);
/* Frees the list and its items; NULL is accepted. */
WC_API void wc_meta_free(wc_meta *m);
/* Removes every item. */
WC_API void wc_meta_clear(wc_meta *m);
/* Appends a copy of an item (key may be NULL for ""). WC_ERR_ARG names a
 * bad kind, key, flag or fixed-size value of the wrong size; WC_ERR_LIMIT
 * a value, count or total over the limits above. */
WC_API wc_status wc_meta_add(wc_meta *m, wc_meta_kind kind, uint32_t flags, const char *key,
                             const void *data, size_t size);
/* Number of items; 0 for NULL. */
WC_API size_t wc_meta_count(const wc_meta *m);
/* The i-th item in the order added, or NULL past the end. */
WC_API const wc_meta_item *wc_meta_get(const wc_meta *m, size_t i);
/* The first item of that kind (and key, unless key is NULL), or NULL. */
WC_API const wc_meta_item *wc_meta_find(const wc_meta *m, wc_meta_kind kind, const char *key);
/* A short English name of a kind ("ICC profile", "text" ...); never NULL. */
WC_API const char *wc_meta_kind_name(wc_meta_kind kind);
/* Appends the metadata of a .wcx file in memory to m, checking each WMET
 * chunk (and every CRC of the file). Items of kinds this library does not
 * know are skipped. A file without metadata gives none and WC_OK. */
WC_API wc_status wc_meta_read(wc_ctx *ctx, const void *src, size_t size, wc_meta *m);

#ifdef __cplusplus
}
#endif
#endif /* WCODEC_H */
