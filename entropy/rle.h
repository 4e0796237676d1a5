/*
 * rle.h -- zero-run RLE of integer coefficients into a byte stream, the
 * front end of the deflate entropy mode.
 *
 * Tokens are unsigned LEB128 varints (7 bits a byte, low group first, at
 * most 5 bytes, no overlong spelling). A run of n >= 1 zeros is the token
 * ((n - 1) << 1) | 1 (n <= 2^34); a nonzero value v is (zigzag(v) - 1) << 1
 * with zigzag 0,-1,1,-2.. -> 0,1,2,3... A run follows a run only when the
 * first is 2^34 long, so each sequence has one encoding. The grammar is
 * part of the file format; rle.c has the details.
 */
#ifndef WC_RLE_H
#define WC_RLE_H

#include <stddef.h>
#include <stdint.h>

#include "wc_common.h"

/* Upper bound of rle_encode's output for n values. */
size_t rle_bound(size_t n);

/* Encodes v[0..n) into out (cap >= rle_bound(n)); returns bytes written. */
size_t rle_encode(const int32_t *v, size_t n, uint8_t *out);

/* Decodes exactly n values from src[0..size). Fails with WC_ERR_CORRUPT
 * when a run passes the end, a varint is too long, a value overflows int32,
 * or bytes remain; WC_ERR_TRUNCATED when the data stops early. */
wc_status rle_decode(const uint8_t *src, size_t size, int32_t *v, size_t n, wc_err *err);

#endif /* WC_RLE_H */
