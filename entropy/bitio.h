/*
 * bitio.h -- LSB-first bit writer and reader over byte buffers.
 *
 * Bits fill each byte from its least significant bit up (as in deflate), so
 * Huffman codes are written bit-reversed and the decoder can index a table
 * with the next bits directly. The reader never reads past its buffer: past
 * the end it supplies zero bits and counts them, and bitr_overrun() tells
 * whether any were consumed, which callers turn into a "truncated" error.
 */
#ifndef WC_BITIO_H
#define WC_BITIO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct bitw {
    uint8_t *buf;
    size_t cap;
    size_t pos;   /* bytes written to buf */
    uint64_t acc; /* pending bits, LSB first */
    unsigned n;   /* number of pending bits (< 64) */
    int overflow; /* set when cap was too small; output is then invalid */
} bitw;

static inline void bitw_init(bitw *w, uint8_t *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->pos = 0;
    w->acc = 0;
    w->n = 0;
    w->overflow = 0;
}

/* Appends the n low bits of v (n <= 32; bits above n must be zero). */
static inline void bitw_put(bitw *w, uint32_t v, unsigned n)
{
    w->acc |= (uint64_t)v << w->n;
    w->n += n;
    if (w->n >= 32) {
        if (w->pos + 4 <= w->cap) {
            uint8_t *p = w->buf + w->pos;
            p[0] = (uint8_t)w->acc;
            p[1] = (uint8_t)(w->acc >> 8);
            p[2] = (uint8_t)(w->acc >> 16);
            p[3] = (uint8_t)(w->acc >> 24);
        } else {
            w->overflow = 1;
        }
        w->pos += 4;
        w->acc >>= 32;
        w->n -= 32;
    }
}

/* Writes the pending bits, padding the last byte with zeros. Returns the
 * total bytes of output (valid only when !w->overflow). */
static inline size_t bitw_flush(bitw *w)
{
    while (w->n > 0) {
        if (w->pos < w->cap)
            w->buf[w->pos] = (uint8_t)w->acc;
        else
            w->overflow = 1;
        w->pos++;
        w->acc >>= 8;
        w->n = w->n > 8 ? w->n - 8 : 0;
    }
    w->acc = 0;
    return w->pos;
}

typedef struct bitr {
    const uint8_t *p; /* next byte to load */
    const uint8_t *end;
    uint64_t acc; /* loaded bits, LSB first */
    unsigned n;   /* valid bits in acc */
    size_t fake;  /* zero bits supplied past the end */
} bitr;

/* buf may be NULL when size is 0 (NULL + 0 is undefined in C, hence the
 * test). */
static inline void bitr_init(bitr *r, const uint8_t *buf, size_t size)
{
    r->p = buf;
    r->end = size ? buf + size : buf;
    r->acc = 0;
    r->n = 0;
    r->fake = 0;
}

static inline void bitr_refill(bitr *r)
{
    if (r->end - r->p >= 8) {
        uint64_t v;
        memcpy(&v, r->p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
#endif
        r->acc |= v << r->n;
        unsigned take = (63 - r->n) >> 3;
        r->p += take;
        r->n += take * 8;
    } else {
        while (r->n <= 56) {
            if (r->p < r->end) {
                r->acc |= (uint64_t)*r->p++ << r->n;
            } else {
                r->fake += 8;
            }
            r->n += 8;
        }
    }
}

/* Returns the next n bits without consuming them (n <= 32). */
static inline uint32_t bitr_peek(bitr *r, unsigned n)
{
    if (r->n < n) bitr_refill(r);
    return (uint32_t)(r->acc & ((((uint64_t)1) << n) - 1));
}

/* Consumes n bits; n must not exceed what the last bitr_peek made
 * available (a peek of at least n bits since the last skip or get). */
static inline void bitr_skip(bitr *r, unsigned n)
{
    r->acc >>= n;
    r->n -= n;
}

/* Reads n bits (n <= 32). */
static inline uint32_t bitr_get(bitr *r, unsigned n)
{
    uint32_t v = bitr_peek(r, n);
    bitr_skip(r, n);
    return v;
}

/* Nonzero when more bits were consumed than the buffer holds. */
static inline int bitr_overrun(const bitr *r) { return r->fake > r->n; }

#endif /* WC_BITIO_H */
