/*
 * rle.c -- zero-run RLE of int32 coefficients into varint tokens.
 *
 * Grammar: the stream is a sequence of tokens, each an unsigned LEB128
 * varint (7 bits per byte, low group first, 0x80 = more bytes follow; at
 * most 5 bytes, no overlong spelling: a final byte of 0 after others is
 * refused). The token's low bit says what it is:
 *   t = (n - 1) << 1 | 1   a run of n >= 1 zeros (n <= RLE_MAX_RUN)
 *   t = (z - 1) << 1       one nonzero value v, z = zigzag(v) in 1..2^32-1
 *                          (zigzag: 0,-1,1,-2,2.. -> 0,1,2,3,4..)
 * Both kinds are bijective on their ranges, so no token value is wasted:
 * runs up to 64 and values in -32..32 take one byte. A run never follows a
 * run unless the first is RLE_MAX_RUN long (the encoder only splits runs at
 * that length), so every sequence has exactly one encoding. The decoder
 * needs the value count from its caller and requires the tokens to cover
 * exactly that many values and every byte.
 */
#include "rle.h"

#include <string.h>

#define RLE_MAX_BYTES 5                 /* 35 bits of token */
#define RLE_MAX_RUN ((uint64_t)1 << 34) /* (n - 1) << 1 | 1 < 2^35 */

size_t rle_bound(size_t n)
{
    /* A lone value costs at most 5 bytes; any zero costs at most 1. */
    return n > SIZE_MAX / RLE_MAX_BYTES ? SIZE_MAX : n * RLE_MAX_BYTES;
}

static uint8_t *rle_put_varint(uint8_t *p, uint64_t t) { return p + wc_leb128_put(p, t); }

size_t rle_encode(const int32_t *v, size_t n, uint8_t *out)
{
    uint8_t *p = out;
    size_t i = 0;
    while (i < n) {
        if (v[i] == 0) {
            size_t j = i + 1;
            while (j < n && v[j] == 0 && (uint64_t)(j - i) < RLE_MAX_RUN) j++;
            p = rle_put_varint(p, ((uint64_t)(j - i - 1) << 1) | 1);
            i = j;
        } else {
            uint32_t u = (uint32_t)v[i];
            uint32_t z = (u << 1) ^ (0u - (u >> 31));
            p = rle_put_varint(p, (uint64_t)(z - 1) << 1);
            i++;
        }
    }
    return (size_t)(p - out);
}

/* Reads the varint at src[*pos]; idx names the value being decoded. */
static wc_status rle_get_varint(const uint8_t *src, size_t size, size_t *pos, uint64_t *t,
                                size_t idx, size_t n, wc_err *err)
{
    size_t p = *pos;
    uint64_t v = 0;
    for (unsigned k = 0;; k++) {
        WC_RETURN_IF(k == RLE_MAX_BYTES, err, WC_ERR_CORRUPT,
                     "rle: token at byte %zu (value %zu) is longer than %d bytes", *pos, idx,
                     RLE_MAX_BYTES);
        WC_RETURN_IF(p >= size, err, WC_ERR_TRUNCATED,
                     "rle: data ends at byte %zu with %zu of %zu values decoded", p, idx, n);
        uint8_t b = src[p++];
        v |= (uint64_t)(b & 0x7F) << (7 * k);
        if (b < 0x80) {
            WC_RETURN_IF(b == 0 && k > 0, err, WC_ERR_CORRUPT,
                         "rle: overlong token at byte %zu (value %zu)", *pos, idx);
            break;
        }
    }
    *pos = p;
    *t = v;
    return WC_OK;
}

wc_status rle_decode(const uint8_t *src, size_t size, int32_t *v, size_t n, wc_err *err)
{
    size_t pos = 0, i = 0;
    uint64_t prev_run = RLE_MAX_RUN; /* length of the previous token's run; MAX: none */
    while (i < n) {
        size_t at = pos;
        uint64_t t = 0;
        if (pos < size && src[pos] < 0x80) {
            t = src[pos++]; /* one-byte tokens are the common case */
        } else {
            WC_FORWARD_IF_ERROR(rle_get_varint(src, size, &pos, &t, i, n, err));
        }
        if (t & 1) {
            uint64_t run = (t >> 1) + 1;
            WC_RETURN_IF(prev_run < RLE_MAX_RUN, err, WC_ERR_CORRUPT,
                         "rle: zero run follows a zero run at byte %zu (value %zu)", at, i);
            WC_RETURN_IF(run > n - i, err, WC_ERR_CORRUPT,
                         "rle: run of %llu zeros at byte %zu passes the end (value %zu of %zu)",
                         (unsigned long long)run, at, i, n);
            memset(v + i, 0, (size_t)run * sizeof *v);
            i += (size_t)run;
            prev_run = run;
        } else {
            uint64_t z = (t >> 1) + 1;
            WC_RETURN_IF(z > UINT32_MAX, err, WC_ERR_CORRUPT,
                         "rle: value %zu at byte %zu overflows int32", i, at);
            uint32_t m = (uint32_t)(z >> 1);
            v[i++] = (z & 1) ? -(int32_t)m - 1 : (int32_t)m;
            prev_run = RLE_MAX_RUN;
        }
    }
    WC_RETURN_IF(pos != size, err, WC_ERR_CORRUPT,
                 "rle: %zu trailing bytes at byte %zu after %zu values", size - pos, pos, n);
    return WC_OK;
}
