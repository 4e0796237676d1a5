/*
 * wc_common.h -- the one internal header every layer shares: error
 * reporting, the allocation wrapper, small integer helpers and the plane
 * types the backend seam passes around. The public types it needs come
 * from wcodec_types.h; the pipeline's API (wcodec.h) is above this layer.
 */
#ifndef WC_COMMON_H
#define WC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "hostdev.h"
#include "wcodec_types.h"

/* ---- errors with a place ------------------------------------------------ */

/* Where a failure is described: the first failure's message is kept. */
typedef struct wc_err {
    char msg[256];
} wc_err;

/* Formats msg into err (when err is non-NULL and still empty) and returns s. */
wc_status wc_fail(wc_err *err, wc_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#define WC_RETURN_IF(cond, err, status, ...)                    \
    do {                                                        \
        if (cond) return wc_fail((err), (status), __VA_ARGS__); \
    } while (0)

#define WC_FORWARD_IF_ERROR(expr)         \
    do {                                  \
        wc_status wc_s_ = (expr);         \
        if (wc_s_ != WC_OK) return wc_s_; \
    } while (0)

/* ---- allocation ------------------------------------------------------------ */

/* Every allocation goes through these so tests can inject failures. They
 * return NULL on a zero or overflowing size too. */
void *wc_malloc(size_t n);
void *wc_calloc(size_t count, size_t size);
void *wc_malloc_array(size_t count, size_t size); /* overflow-checked */
/* Asks for transparent huge pages on the 2 MiB-aligned pages inside
 * [p, p + n) when n is large (8 MiB on): a big plane or image then costs a
 * fault per 2 MiB on first touch, not per 4 KiB, and fewer TLB misses.
 * Advice only; nothing changes where the kernel does not take it. */
void wc_advise_huge(void *p, size_t n);
void *wc_realloc(void *p, size_t n);
WC_API void wc_free(void *p); /* public too (wcodec.h) */

/* Test hook: the n-th allocation from now on (this thread) fails; -1 never. */
void wc_alloc_fail_after(long n);

/* ---- small helpers ------------------------------------------------------- */

static inline uint32_t wc_ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
static inline int32_t wc_floor_div2(int32_t a) { return a >> 1; } /* arithmetic shift */
static inline uint32_t wc_rd32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void wc_wr32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline uint16_t wc_rd16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline void wc_wr16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* LEB128, as every varint of the format is written (FORMAT.md): 7 bits a
 * byte, the low group first, 0x80 set on every byte but the last; at most
 * 10 bytes. Readers stay with their fields: each has its own limit and
 * message. */
static inline size_t wc_leb128_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}
/* (also on the device: the CUDA probes' index bytes, bc_kernels.cu) */
WC_HOSTDEV size_t wc_leb128_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Multiplies with overflow detection: returns 0 and sets *out on success. */
static inline int wc_mul_overflow(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return 1;
    *out = a * b;
    return 0;
}

/* ---- images ---------------------------------------------------------------- */

/* Bytes per tightly packed row of img, 0 on overflow: what the public
 * wc_image_row_bytes returns, here for the layers below the API. */
static inline size_t wc_packed_row_bytes(const wc_image *img)
{
    size_t n, bytes_per_sample = img->bit_depth > 8 ? 2 : 1;
    return wc_mul_overflow((size_t)img->width, (size_t)img->components * bytes_per_sample, &n) ? 0
                                                                                               : n;
}

/* Bytes from one row of img to the next. */
static inline size_t wc_row_stride(const wc_image *img)
{
    return img->stride ? img->stride : wc_packed_row_bytes(img);
}

#endif /* WC_COMMON_H */
