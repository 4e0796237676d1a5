/*
 * wcodec_types.h -- the public types that the library's layers share with
 * its API: the export macro, the status codes, the image in memory and the
 * transform kinds and the most DWT levels. Part of the public API, which programs reach through
 * wcodec.h (it includes this header); it lives in common/ so that the
 * lower layers (common/, transform/, entropy/, container/, stage/, cuda/) can use
 * these types without including the pipeline's header.
 */
#ifndef WCODEC_TYPES_H
#define WCODEC_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(WC_BUILDING_LIBRARY) && defined(__GNUC__)
#define WC_API __attribute__((visibility("default")))
#else
#define WC_API
#endif

/* ---- status ------------------------------------------------------------- */

typedef enum wc_status {
    WC_OK = 0,
    WC_ERR_ARG,         /* a parameter is out of range or NULL */
    WC_ERR_NOMEM,       /* an allocation failed */
    WC_ERR_IO,          /* a file could not be read or written */
    WC_ERR_FORMAT,      /* not a wcodec file, or an unreadable image file */
    WC_ERR_VERSION,     /* a format version this library does not read */
    WC_ERR_CORRUPT,     /* a field or a coded payload is inconsistent */
    WC_ERR_CHECKSUM,    /* a chunk's CRC-32 does not match */
    WC_ERR_TRUNCATED,   /* the data ends before the file does */
    WC_ERR_LIMIT,       /* the file asks for more than the set limits */
    WC_ERR_UNSUPPORTED, /* valid, but a feature this build does not have */
    WC_ERR_BACKEND,     /* the compute backend (GPU) failed or is missing */
    WC_ERR_BUFFER,      /* the output buffer is too small */
    WC_ERR_ABI          /* the program was built with another wcodec.h */
} wc_status;

/* Names a status in a short English phrase; never NULL, static storage. */
WC_API const char *wc_strerror(wc_status s);

/* ---- images --------------------------------------------------------------- */

/*
 * An image in memory: interleaved samples, row after row.
 * components: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
 * bit_depth 1..8: one uint8_t per sample; 9..16: one uint16_t per sample in
 * host byte order. Sample values lie in [0, 2^bit_depth - 1].
 * stride: bytes from one row to the next (0 means tightly packed).
 */
typedef struct wc_image {
    uint32_t width;
    uint32_t height;
    uint32_t components;
    uint32_t bit_depth;
    size_t stride;
    void *pixels;
} wc_image;

/* How a component's samples are transformed (lossy coding; lossless is
 * always the 5/3 DWT). */
typedef enum wc_transform {
    WC_TRANSFORM_DWT = 0,
    WC_TRANSFORM_DCT = 1,
    WC_TRANSFORM_LOT = 2
} wc_transform;

/* The limits of metadata (wcodec.h, "metadata"), here because the
 * container's WMET reader checks them too: key bytes (no NUL), value bytes,
 * items, and bytes in all. */
#define WC_META_MAX_KEY 79
#define WC_META_MAX_VALUE (16u << 20)
#define WC_META_MAX_ITEMS 1024
#define WC_META_MAX_TOTAL (64u << 20)

/* Most DWT levels a file may have (wc_params.levels, the header's field,
 * the code-block layout). */
#define WC_MAX_LEVELS 15

#ifdef __cplusplus
}
#endif
#endif /* WCODEC_TYPES_H */
