/* zcodec.h -- deflate (zlib format) for whole byte buffers. */
#ifndef WC_ZCODEC_H
#define WC_ZCODEC_H

#include <stddef.h>
#include <stdint.h>

#include "wc_common.h"

/* Upper bound of zc_compress's output for n input bytes. */
size_t zc_bound(size_t n);

/* Compresses src into dst[0..cap) at level 1..9; *out_size on success. */
wc_status zc_compress(const uint8_t *src, size_t n, int level, uint8_t *dst, size_t cap,
                      size_t *out_size, wc_err *err);

/* Decompresses into exactly expect bytes; anything else (shorter, longer,
 * damaged stream, trailing bytes) is an error naming what happened. */
wc_status zc_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t expect, wc_err *err);

/* Raw deflate (RFC 1951: no zlib header or checksum, the container's CRC
 * guards the bytes) at level 1..9 with zlib's largest state (memLevel 9,
 * a 32 KiB window) and strategy (Z_DEFAULT_STRATEGY, Z_FILTERED, Z_RLE,
 * Z_HUFFMAN_ONLY): what row_filter.c tries, as optipng does. */
wc_status zc_compress_raw(const uint8_t *src, size_t n, int level, int strategy, uint8_t *dst,
                          size_t cap, size_t *out_size, wc_err *err);

/* The raw stream back into exactly expect bytes, as zc_decompress. */
wc_status zc_decompress_raw(const uint8_t *src, size_t n, uint8_t *dst, size_t expect, wc_err *err);

#endif /* WC_ZCODEC_H */
