/*
 * zcodec.c -- whole-buffer deflate (zlib format) on top of zlib's stream
 * API, so that buffers larger than zlib's 32-bit counters work and so that
 * decompression can hold a stream to an exact output size.
 *
 * zlib allocates through wc_malloc (its fixed-size state and window only:
 * nothing is sized from the stream), which lets tests inject failures.
 */
#define ZLIB_CONST
#include "zcodec.h"

#include <limits.h>
#include <zlib.h>

static voidpf zc_zalloc(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return wc_malloc_array(items, size);
}

static void zc_zfree(voidpf opaque, voidpf p)
{
    (void)opaque;
    wc_free(p);
}

static void zc_stream_init(z_stream *s)
{
    s->next_in = Z_NULL;
    s->avail_in = 0;
    s->next_out = Z_NULL;
    s->avail_out = 0;
    s->zalloc = zc_zalloc;
    s->zfree = zc_zfree;
    s->opaque = Z_NULL;
}

/* zlib's counters are 32-bit: hand over at most UINT_MAX bytes at a time. */
static void zc_refill_in(z_stream *s, const uint8_t **p, size_t *left)
{
    if (s->avail_in != 0 || *left == 0) return;
    uInt k = *left > UINT_MAX ? UINT_MAX : (uInt)*left;
    s->next_in = *p;
    s->avail_in = k;
    *p += k;
    *left -= k;
}

static void zc_refill_out(z_stream *s, uint8_t **p, size_t *left)
{
    if (s->avail_out != 0 || *left == 0) return;
    uInt k = *left > UINT_MAX ? UINT_MAX : (uInt)*left;
    s->next_out = *p;
    s->avail_out = k;
    *p += k;
    *left -= k;
}

size_t zc_bound(size_t n)
{
    uLong b = compressBound((uLong)n);
    /* Beyond what uLong holds, or wrapped: no honest bound exists. */
    return (uLong)n != n || b < n ? SIZE_MAX : (size_t)b;
}

static wc_status zc_deflate_all(z_stream *s, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                size_t *out_size, wc_err *err)
{
    uint8_t *out = dst;
    size_t in_left = n, out_left = cap;
    for (;;) {
        zc_refill_in(s, &src, &in_left);
        zc_refill_out(s, &out, &out_left);
        int rc = deflate(s, in_left == 0 ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_END) break;
        WC_RETURN_IF(s->avail_out == 0 && out_left == 0, err, WC_ERR_BUFFER,
                     "deflate: output buffer of %zu bytes too small for %zu input bytes", cap, n);
        WC_RETURN_IF(rc != Z_OK, err, WC_ERR_ARG, "deflate failed (%d)", rc);
    }
    *out_size = (size_t)(out - dst) - s->avail_out;
    return WC_OK;
}

wc_status zc_compress(const uint8_t *src, size_t n, int level, uint8_t *dst, size_t cap,
                      size_t *out_size, wc_err *err)
{
    WC_RETURN_IF(level < 1 || level > 9, err, WC_ERR_ARG, "deflate: level %d (1..9 allowed)",
                 level);
    z_stream s;
    zc_stream_init(&s);
    int rc = deflateInit(&s, level);
    WC_RETURN_IF(rc == Z_MEM_ERROR, err, WC_ERR_NOMEM, "deflate: out of memory");
    WC_RETURN_IF(rc != Z_OK, err, WC_ERR_ARG, "deflate: init failed (%d)", rc);
    wc_status st = zc_deflate_all(&s, src, n, dst, cap, out_size, err);
    deflateEnd(&s);
    return st;
}

wc_status zc_compress_raw(const uint8_t *src, size_t n, int level, int strategy, uint8_t *dst,
                          size_t cap, size_t *out_size, wc_err *err)
{
    WC_RETURN_IF(level < 1 || level > 9, err, WC_ERR_ARG, "deflate: level %d (1..9 allowed)",
                 level);
    z_stream s;
    zc_stream_init(&s);
    int rc = deflateInit2(&s, level, Z_DEFLATED, -15, 9, strategy);
    WC_RETURN_IF(rc == Z_MEM_ERROR, err, WC_ERR_NOMEM, "deflate: out of memory");
    WC_RETURN_IF(rc != Z_OK, err, WC_ERR_ARG, "deflate: init failed (%d)", rc);
    wc_status st = zc_deflate_all(&s, src, n, dst, cap, out_size, err);
    deflateEnd(&s);
    return st;
}

/* Inflates into dst[0..expect) and then into one spare byte: a stream that
 * writes the spare byte holds more than expected. */
static wc_status zc_inflate_all(z_stream *s, const uint8_t *src, size_t n, uint8_t *dst,
                                size_t expect, wc_err *err)
{
    uint8_t spare;
    int on_spare = 0;
    size_t in_left = n, out_left = expect;
    int rc;
    do {
        zc_refill_in(s, &src, &in_left);
        zc_refill_out(s, &dst, &out_left);
        if (s->avail_out == 0 && !on_spare) {
            /* s belongs to zc_decompress, which ends the stream as soon as
             * this returns: the pointer to spare is never used after it. */
            /* cppcheck-suppress autoVariables */
            s->next_out = &spare;
            s->avail_out = 1;
            on_spare = 1;
        }
        rc = inflate(s, Z_NO_FLUSH);
        WC_RETURN_IF(on_spare && s->avail_out == 0, err, WC_ERR_CORRUPT,
                     "inflate: stream holds more than the expected %zu bytes", expect);
        WC_RETURN_IF(rc == Z_MEM_ERROR, err, WC_ERR_NOMEM, "inflate: out of memory");
        WC_RETURN_IF(rc == Z_BUF_ERROR, err, WC_ERR_TRUNCATED,
                     "inflate: stream of %zu bytes ends early after %lu of %zu bytes", n,
                     (unsigned long)s->total_out, expect);
        WC_RETURN_IF(rc != Z_OK && rc != Z_STREAM_END, err, WC_ERR_CORRUPT,
                     "inflate: damaged stream at input byte %lu: %s", (unsigned long)s->total_in,
                     s->msg ? s->msg : "error");
    } while (rc != Z_STREAM_END);
    WC_RETURN_IF(s->total_out != expect, err, WC_ERR_CORRUPT,
                 "inflate: stream holds %lu bytes, expected %zu", (unsigned long)s->total_out,
                 expect);
    WC_RETURN_IF(s->avail_in != 0 || in_left != 0, err, WC_ERR_CORRUPT,
                 "inflate: %zu trailing bytes after the stream", (size_t)s->avail_in + in_left);
    return WC_OK;
}

wc_status zc_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t expect, wc_err *err)
{
    z_stream s;
    zc_stream_init(&s);
    int rc = inflateInit(&s);
    WC_RETURN_IF(rc == Z_MEM_ERROR, err, WC_ERR_NOMEM, "inflate: out of memory");
    WC_RETURN_IF(rc != Z_OK, err, WC_ERR_ARG, "inflate: init failed (%d)", rc);
    wc_status st = zc_inflate_all(&s, src, n, dst, expect, err);
    inflateEnd(&s);
    return st;
}

wc_status zc_decompress_raw(const uint8_t *src, size_t n, uint8_t *dst, size_t expect, wc_err *err)
{
    z_stream s;
    zc_stream_init(&s);
    int rc = inflateInit2(&s, -15);
    WC_RETURN_IF(rc == Z_MEM_ERROR, err, WC_ERR_NOMEM, "inflate: out of memory");
    WC_RETURN_IF(rc != Z_OK, err, WC_ERR_ARG, "inflate: init failed (%d)", rc);
    wc_status st = zc_inflate_all(&s, src, n, dst, expect, err);
    inflateEnd(&s);
    return st;
}
