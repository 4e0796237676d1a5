/*
 * range_coder.h -- a binary range coder with adaptive bit probabilities,
 * the arithmetic coder of entropy 3 (FORMAT.md, "Code-block data",
 * "Arithmetic-coded payloads"). It is the carry-propagating range coder of LZMA (a 32-bit
 * range, a 33-bit low with one cached byte for carries; public since
 * 1999), with 16-bit probabilities whose adaptation speed falls with the
 * number of bits a context has seen, so a context learns in a few bits
 * (what a per-block reset needs) and then follows slowly.
 *
 * Everything is static inline and allocation free, with AC_HOSTDEV on
 * every function, so CUDA code can include this header and run the same
 * coder one thread a block.
 *
 * The decoder reads only inside its payload: past the end it takes zero
 * bytes and counts them, so a truncated or damaged payload gives some
 * values or an error, never a read outside it. The encoder ends a stream
 * with the shortest byte string that keeps the decoder inside the final
 * interval when zeros follow, and drops its trailing zero bytes (a block
 * of zeros costs no bytes at all).
 */
#ifndef WC_RANGE_CODER_H
#define WC_RANGE_CODER_H

#include <stddef.h>
#include <stdint.h>

#include "hostdev.h"

#define AC_HOSTDEV WC_HOSTDEV

#define AC_PROB_BITS 16
#define AC_PROB_HALF (1u << (AC_PROB_BITS - 1))
#define AC_TOP (1u << 24) /* the range is renormalised to at least this */
/* Slowest adaptation: p moves by 1/2^AC_RATE_MAX of its distance. */
#ifndef AC_RATE_MAX
#define AC_RATE_MAX 7
#endif
#define AC_COUNT_MAX 255

/* One context: p = probability of a 0 bit in 1/65536 (1..65535), n = bits
 * seen (capped), which sets the adaptation rate. */
typedef struct ac_prob {
    uint16_t p;
    uint16_t n;
} ac_prob;

AC_HOSTDEV void ac_prob_init(ac_prob *c, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        c[i].p = (uint16_t)AC_PROB_HALF;
        c[i].n = 0;
    }
}

/* Rate after n bits: 1 + floor(log2(n + 1)), at most AC_RATE_MAX; close to
 * the 1/(n + 2) of a counting estimator while n is small. */
AC_HOSTDEV unsigned ac_rate(unsigned n)
{
#if defined(__CUDA_ARCH__)
    const unsigned len = 32u - (unsigned)__clz((int)(n + 1)); /* floor(log2(n + 1)) + 1 */
#else
    const unsigned len = 32u - (unsigned)__builtin_clz(n + 1);
#endif
    return len < AC_RATE_MAX ? len : AC_RATE_MAX;
}

/* After coding `bit` in context c. p stays within 1..65535 (the shift
 * never moves it onto 0 or 65536). */
AC_HOSTDEV void ac_update(ac_prob *c, unsigned bit)
{
    const unsigned r = ac_rate(c->n);
    if (bit)
        c->p = (uint16_t)(c->p - (c->p >> r));
    else
        c->p = (uint16_t)(c->p + ((65536u - c->p) >> r));
    if (c->n < AC_COUNT_MAX) c->n++;
}

/* ---- encoder ---------------------------------------------------------------- */

typedef struct ac_enc {
    uint64_t low; /* bit 32 is a carry into the cached byte */
    uint32_t range;
    uint8_t cache;     /* the last byte not yet final (a carry may reach it) */
    size_t cache_size; /* that byte plus the 0xFF bytes after it */
    uint8_t *out;
    size_t cap, pos;
    int started;  /* the first byte (always 0) is not written */
    int overflow; /* cap was too small: the output is invalid */
} ac_enc;

AC_HOSTDEV void ac_enc_init(ac_enc *e, uint8_t *out, size_t cap)
{
    e->low = 0;
    e->range = 0xFFFFFFFFu;
    e->cache = 0;
    e->cache_size = 1;
    e->out = out;
    e->cap = cap;
    e->pos = 0;
    e->started = 0;
    e->overflow = 0;
}

AC_HOSTDEV void ac_put_byte(ac_enc *e, uint8_t b)
{
    if (!e->started) { /* the stream's first byte: always 0, implied */
        e->started = 1;
        return;
    }
    if (e->pos < e->cap)
        e->out[e->pos++] = b;
    else
        e->overflow = 1;
}

AC_HOSTDEV void ac_shift_low(ac_enc *e)
{
    if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
        const uint8_t carry = (uint8_t)(e->low >> 32);
        uint8_t b = e->cache;
        do {
            ac_put_byte(e, (uint8_t)(b + carry));
            b = 0xFF;
        } while (--e->cache_size != 0);
        e->cache = (uint8_t)(e->low >> 24);
    }
    e->cache_size++;
    e->low = (e->low & 0x00FFFFFFu) << 8;
}

AC_HOSTDEV void ac_encode_bit(ac_enc *e, ac_prob *c, unsigned bit)
{
    const uint32_t bound = (e->range >> AC_PROB_BITS) * c->p;
    if (bit) {
        e->low += bound;
        e->range -= bound;
    } else {
        e->range = bound;
    }
    ac_update(c, bit);
    while (e->range < AC_TOP) {
        e->range <<= 8;
        ac_shift_low(e);
    }
}

/* n equiprobable bits of v (n <= 32), most significant first. */
AC_HOSTDEV void ac_encode_direct(ac_enc *e, uint32_t v, unsigned n)
{
    while (n--) {
        e->range >>= 1;
        if ((v >> n) & 1u) e->low += e->range;
        while (e->range < AC_TOP) {
            e->range <<= 8;
            ac_shift_low(e);
        }
    }
}

/* Ends the stream; returns its size in bytes (trailing zeros dropped), or
 * SIZE_MAX on overflow. The value left is low rounded up to a multiple of
 * 2^24: inside [low, low + range) as range >= 2^24, and zeros follow it. */
AC_HOSTDEV size_t ac_enc_finish(ac_enc *e)
{
    e->low = (e->low + 0xFFFFFFu) & ~(uint64_t)0xFFFFFFu;
    for (int i = 0; i < 5; i++) ac_shift_low(e);
    if (e->overflow) return SIZE_MAX;
    while (e->pos > 0 && e->out[e->pos - 1] == 0) e->pos--;
    return e->pos;
}

/* ---- decoder ---------------------------------------------------------------- */

typedef struct ac_dec {
    const uint8_t *src;
    size_t size, pos; /* pos counts the zero bytes read past the end too */
    uint32_t range, code;
} ac_dec;

AC_HOSTDEV uint32_t ac_next_byte(ac_dec *d)
{
    const uint32_t b = d->pos < d->size ? d->src[d->pos] : 0u;
    d->pos++;
    return b;
}

AC_HOSTDEV void ac_dec_init(ac_dec *d, const uint8_t *src, size_t size)
{
    d->src = src;
    d->size = size;
    d->pos = 0;
    d->range = 0xFFFFFFFFu;
    d->code = 0;
    for (int i = 0; i < 4; i++) d->code = d->code << 8 | ac_next_byte(d);
}

AC_HOSTDEV unsigned ac_decode_bit(ac_dec *d, ac_prob *c)
{
    const uint32_t bound = (d->range >> AC_PROB_BITS) * c->p;
    unsigned bit;
    if (d->code < bound) {
        d->range = bound;
        bit = 0;
    } else {
        d->code -= bound;
        d->range -= bound;
        bit = 1;
    }
    ac_update(c, bit);
    while (d->range < AC_TOP) {
        d->range <<= 8;
        d->code = d->code << 8 | ac_next_byte(d);
    }
    return bit;
}

AC_HOSTDEV uint32_t ac_decode_direct(ac_dec *d, unsigned n)
{
    uint32_t v = 0;
    while (n--) {
        d->range >>= 1;
        const uint32_t bit = d->code >= d->range;
        d->code -= d->range & (0u - bit);
        v = v << 1 | bit;
        while (d->range < AC_TOP) {
            d->range <<= 8;
            d->code = d->code << 8 | ac_next_byte(d);
        }
    }
    return v;
}

/* A stream the encoder wrote keeps code < range throughout, ends in a
 * non-zero byte (ac_enc_finish drops zeros), and the decoder has read
 * every byte of it (the last 3 of its 4-byte window are always past the
 * written ones). Damage may break any of these. */
AC_HOSTDEV int ac_dec_consistent(const ac_dec *d)
{
    return d->code < d->range && d->pos >= d->size + 3 &&
           (d->size == 0 || d->src[d->size - 1] != 0);
}

#endif /* WC_RANGE_CODER_H */
