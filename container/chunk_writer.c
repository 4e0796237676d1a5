/*
 * chunk_writer.c -- writes the .wcx magic and chunks into a caller's buffer.
 *
 * Failures are sticky: once the buffer is too small (or the writer is
 * misused) nothing more is written, but the position keeps counting, so
 * wcx_writer_finish can report both the failure and the size the file
 * needs. A caller can therefore write a whole file without checking each
 * call, and can size a buffer with a dry run on (NULL, 0).
 */
#include <string.h>
#include <zlib.h>

#include "container.h"
#include "crc32_fast.h"

/* Values of wcx_writer.overflow. The public struct has one sticky field;
 * it records which failure came first so finish can name it. */
enum {
    WCX_W_FINE = 0,
    WCX_W_OVERFLOW = 1, /* the buffer is too small -> WC_ERR_BUFFER */
    WCX_W_TOO_BIG = 2,  /* a chunk exceeds WCX_MAX_CHUNK_SIZE -> WC_ERR_LIMIT */
    WCX_W_MISUSE = 3    /* calls out of order -> WC_ERR_ARG */
};

static void wcx_writer_fail(wcx_writer *w, int why)
{
    if (w->overflow == WCX_W_FINE) w->overflow = why;
}

/* Reserves n bytes at pos: returns where to write them, or NULL when they
 * do not fit (or an earlier failure stopped writing). pos advances either
 * way, saturating so that a dry run cannot wrap around. */
static uint8_t *wcx_writer_take(wcx_writer *w, size_t n)
{
    uint8_t *p = NULL;
    if (w->overflow == WCX_W_FINE && w->pos <= w->cap && n <= w->cap - w->pos)
        p = w->buf + w->pos;
    else
        wcx_writer_fail(w, WCX_W_OVERFLOW);
    w->pos = n > SIZE_MAX - w->pos ? SIZE_MAX : w->pos + n;
    return p;
}

void wcx_writer_init(wcx_writer *w, uint8_t *buf, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->cap = buf != NULL ? cap : 0; /* a NULL buffer is a dry run */
    uint8_t *p = wcx_writer_take(w, WCX_MAGIC_SIZE);
    if (p != NULL) memcpy(p, WCX_MAGIC, WCX_MAGIC_SIZE);
}

void wcx_chunk_begin(wcx_writer *w, uint32_t type)
{
    if (w->open) wcx_writer_fail(w, WCX_W_MISUSE);
    w->open = 1;
    w->chunk_start = w->pos;
    /* The length is written as zero until wcx_chunk_end knows it. */
    uint8_t *p = wcx_writer_take(w, 8);
    if (p == NULL) return;
    wc_wr32le(p, 0);
    wc_wr32le(p + 4, type);
}

void wcx_write(wcx_writer *w, const void *data, size_t n)
{
    if (!w->open) wcx_writer_fail(w, WCX_W_MISUSE);
    uint8_t *p = wcx_writer_take(w, n);
    if (p != NULL && n > 0) memcpy(p, data, n);
}

uint8_t *wcx_chunk_space(wcx_writer *w, size_t n)
{
    if (!w->open) wcx_writer_fail(w, WCX_W_MISUSE);
    if (w->overflow == WCX_W_FINE && w->pos <= w->cap && n <= w->cap - w->pos)
        return w->buf + w->pos;
    wcx_writer_fail(w, WCX_W_OVERFLOW);
    return NULL;
}

void wcx_chunk_commit(wcx_writer *w, size_t n)
{
    if (!w->open) wcx_writer_fail(w, WCX_W_MISUSE);
    /* The bytes are already in place (written at wcx_chunk_space); this
     * only checks they fit and moves past them. */
    (void)wcx_writer_take(w, n);
}

/* Closes the chunk; data_crc is its data's CRC when known (have_crc). */
static void chunk_close(wcx_writer *w, int have_crc, uint32_t data_crc)
{
    if (!w->open) {
        wcx_writer_fail(w, WCX_W_MISUSE);
        return;
    }
    w->open = 0;
    size_t len = w->pos - w->chunk_start - 8;
    if (w->pos - w->chunk_start < 8 || len > WCX_MAX_CHUNK_SIZE) wcx_writer_fail(w, WCX_W_TOO_BIG);
    uint8_t *crc_at = wcx_writer_take(w, 4);
    if (crc_at == NULL) return; /* also covers any earlier failure */
    uint8_t *start = w->buf + w->chunk_start;
    wc_wr32le(start, (uint32_t)len);
    /* len + 4 <= 2^31 + 3 fits zlib's uInt. */
    uLong crc = have_crc ? crc32_combine(crc32(0L, start + 4, 4), data_crc, (z_off_t)len)
                         : wc_crc32(0, start + 4, len + 4);
    wc_wr32le(crc_at, (uint32_t)crc);
}

void wcx_chunk_end(wcx_writer *w) { chunk_close(w, 0, 0); }

void wcx_chunk_end_crc(wcx_writer *w, uint32_t data_crc) { chunk_close(w, 1, data_crc); }

void wcx_put_chunk(wcx_writer *w, uint32_t type, const void *data, size_t n)
{
    wcx_chunk_begin(w, type);
    wcx_write(w, data, n);
    wcx_chunk_end(w);
}

/* The entries straight into the chunk's space, its size counted first: a
 * write call an entry cost ~0.2 ms for the 24 K blocks of an 8K photo's
 * 64x64 code blocks. */
void wcx_put_index(wcx_writer *w, const uint32_t *block_size, size_t n)
{
    wcx_chunk_begin(w, WCX_WIDX);
    const size_t bytes = wcx_index_size(block_size, n) - WCX_CHUNK_OVERHEAD;
    uint8_t *p = wcx_chunk_space(w, bytes);
    if (p) {
        for (size_t i = 0; i < n; i++) p += wc_leb128_put(p, block_size[i]);
        wcx_chunk_commit(w, bytes);
    }
    wcx_chunk_end(w);
}

size_t wcx_index_size(const uint32_t *block_size, size_t n)
{
    size_t bytes = WCX_CHUNK_OVERHEAD;
    for (size_t i = 0; i < n; i++) bytes += wc_leb128_size(block_size[i]);
    return bytes;
}

wc_status wcx_writer_finish(wcx_writer *w, size_t *size)
{
    if (size != NULL) *size = w->pos;
    if (w->open) wcx_writer_fail(w, WCX_W_MISUSE); /* a chunk without length or CRC */
    switch (w->overflow) {
    case WCX_W_FINE: return WC_OK;
    case WCX_W_OVERFLOW: return WC_ERR_BUFFER;
    case WCX_W_TOO_BIG: return WC_ERR_LIMIT;
    default: return WC_ERR_ARG;
    }
}
