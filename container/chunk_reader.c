/*
 * chunk_reader.c -- walks a .wcx file and lists its chunks: one walk
 * (wcx_walk_chunks), over a file in memory (wcx_read_chunks) or one read
 * by ranges through a wcx_walk_io (codec/stream_decode.c), so both say the
 * same of the same damage.
 *
 * The file is untrusted: every length is compared with the bytes that
 * remain before anything it covers is read, so a damaged or hostile file
 * yields a status and a message naming the chunk (index, type, byte
 * offset), never a read outside the file. Chunk payloads are not
 * interpreted here; the codec does that and skips types it does not know.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "container.h"
#include "crc32_fast.h"
#include "parallel.h"

void wcx_type_name(uint32_t type, char out[9])
{
    uint8_t b[4] = {(uint8_t)type, (uint8_t)(type >> 8), (uint8_t)(type >> 16),
                    (uint8_t)(type >> 24)};
    int printable = 1;
    for (int i = 0; i < 4; i++)
        if (b[i] < 0x20 || b[i] > 0x7E) printable = 0;
    if (printable) {
        memcpy(out, b, 4);
        out[4] = '\0';
    } else {
        /* Bytes in file order, so the name matches a hex dump. */
        snprintf(out, 9, "%02X%02X%02X%02X", b[0], b[1], b[2], b[3]);
    }
}

/* The 8-byte signature: an empty or foreign file is "not ours"; a prefix
 * of the signature is a file cut short. */
static wc_status wcx_check_magic(const wcx_walk_io *io, wc_err *err)
{
    WC_RETURN_IF(io->size == 0, err, WC_ERR_FORMAT, "not a wcodec file (empty input)");
    uint8_t magic[WCX_MAGIC_SIZE];
    const size_t n = io->size < WCX_MAGIC_SIZE ? (size_t)io->size : WCX_MAGIC_SIZE;
    WC_FORWARD_IF_ERROR(io->read(io->user, 0, magic, n, err));
    WC_RETURN_IF(memcmp(magic, WCX_MAGIC, n) != 0, err, WC_ERR_FORMAT,
                 "not a wcodec file (bad signature)");
    WC_RETURN_IF(io->size < WCX_MAGIC_SIZE, err, WC_ERR_TRUNCATED,
                 "file is %zu bytes, shorter than the %d-byte signature", (size_t)io->size,
                 WCX_MAGIC_SIZE);
    return WC_OK;
}

/* A large chunk's CRC in pieces on several threads, joined with
 * crc32_combine: the same value as one crc32 over it, in a fraction of
 * the time a whole file's data takes on one core. */
enum { CRC_PIECE = 1 << 20 };

typedef struct crc_job {
    const uint8_t *p;
    size_t n;
    uLong *piece;
} crc_job;

static void crc_item(void *arg, size_t i, int worker)
{
    (void)worker;
    const crc_job *j = arg;
    const size_t a = i * CRC_PIECE, len = j->n - a < CRC_PIECE ? j->n - a : CRC_PIECE;
    j->piece[i] = wc_crc32(0, j->p + a, len);
}

static uint32_t chunk_crc(const uint8_t *p, size_t n, int threads)
{
    const size_t pieces = (n + CRC_PIECE - 1) / CRC_PIECE;
    uLong *piece = threads != 1 && pieces >= 4 ? wc_malloc_array(pieces, sizeof(uLong)) : NULL;
    if (!piece) return wc_crc32(0, p, n);
    crc_job j = {p, n, piece};
    wc_parallel_for(threads, pieces, crc_item, &j);
    uLong crc = piece[0];
    for (size_t i = 1; i < pieces; i++) {
        const size_t len = n - i * CRC_PIECE < CRC_PIECE ? n - i * CRC_PIECE : CRC_PIECE;
        crc = crc32_combine(crc, piece[i], (z_off_t)len);
    }
    wc_free(piece);
    return (uint32_t)crc;
}

/* Reads the chunk at off into *c after checking that its length, data and
 * CRC lie inside the file and that the CRC matches (io->payload gives the
 * CRC it computed, or the stored one for a chunk it leaves unchecked). */
static wc_status wcx_read_one(const wcx_walk_io *io, uint64_t off, unsigned index, wcx_chunk *c,
                              wc_err *err)
{
    const uint64_t left = io->size - off;
    uint8_t head[8];
    char name[9] = "?";
    if (left >= 8) {
        WC_FORWARD_IF_ERROR(io->read(io->user, off, head, 8, err));
        wcx_type_name(wc_rd32le(head + 4), name);
    }
    WC_RETURN_IF(left < 8, err, WC_ERR_TRUNCATED,
                 "chunk %u at byte %zu: %zu bytes left, the chunk header needs 8", index,
                 (size_t)off, (size_t)left);
    const uint32_t len = wc_rd32le(head), type = wc_rd32le(head + 4);
    WC_RETURN_IF(len > WCX_MAX_CHUNK_SIZE, err, WC_ERR_CORRUPT,
                 "chunk %u (%s) at byte %zu: length %lu exceeds the %lu-byte maximum", index, name,
                 (size_t)off, (unsigned long)len, (unsigned long)WCX_MAX_CHUNK_SIZE);
    /* left >= 8 and len <= 2^31 - 1, so neither side can wrap. */
    WC_RETURN_IF((uint64_t)len + 4 > left - 8, err, WC_ERR_TRUNCATED,
                 "chunk %u (%s) at byte %zu: length %lu needs %zu bytes, only %zu left", index,
                 name, (size_t)off, (unsigned long)len, (size_t)len + WCX_CHUNK_OVERHEAD,
                 (size_t)left);
    *c = (wcx_chunk){type, len, NULL, (size_t)off, index};
    uint32_t actual;
    WC_FORWARD_IF_ERROR(io->payload(io->user, c, &actual, err));
    uint8_t tail[4];
    WC_FORWARD_IF_ERROR(io->read(io->user, off + 8 + len, tail, 4, err));
    const uint32_t stored = wc_rd32le(tail);
    WC_RETURN_IF(stored != actual, err, WC_ERR_CHECKSUM,
                 "chunk %u (%s) at byte %zu: CRC mismatch (stored %08lX, computed %08lX)", index,
                 name, (size_t)off, (unsigned long)stored, (unsigned long)actual);
    return WC_OK;
}

/* The rules on where chunks may sit: WHDR first and only there, WEND empty.
 * (WEND being last is checked by the walk: nothing may follow it.) */
static wc_status wcx_check_order(const wcx_chunk *c, wc_err *err)
{
    char name[9];
    wcx_type_name(c->type, name);
    WC_RETURN_IF(c->index == 0 && c->type != WCX_WHDR && c->type != WCX_WONE, err, WC_ERR_CORRUPT,
                 "chunk 0 (%s) at byte %zu: the first chunk must be WHDR (or WONE)", name,
                 c->offset);
    WC_RETURN_IF(c->index > 0 && c->type == WCX_WONE, err, WC_ERR_CORRUPT,
                 "chunk %u (WONE) at byte %zu: a single-chunk file's chunk after others", c->index,
                 c->offset);
    WC_RETURN_IF(c->index > 0 && c->type == WCX_WHDR, err, WC_ERR_CORRUPT,
                 "chunk %u (WHDR) at byte %zu: a second WHDR", c->index, c->offset);
    WC_RETURN_IF(c->type == WCX_WEND && c->size != 0, err, WC_ERR_CORRUPT,
                 "chunk %u (WEND) at byte %zu: WEND must be empty, has %lu bytes", c->index,
                 c->offset, (unsigned long)c->size);
    return WC_OK;
}

wc_status wcx_walk_chunks(const wcx_walk_io *io, wcx_chunk *chunks, size_t max, size_t *count,
                          wc_err *err)
{
    WC_RETURN_IF(io == NULL || count == NULL || (chunks == NULL && max > 0), err, WC_ERR_ARG,
                 "wcx_walk_chunks: NULL argument");
    *count = 0;
    WC_FORWARD_IF_ERROR(wcx_check_magic(io, err));
    const uint64_t size = io->size;
    const size_t limit = max < WCX_MAX_CHUNKS ? max : WCX_MAX_CHUNKS;
    uint64_t off = WCX_MAGIC_SIZE;
    unsigned index = 0;
    int ended = 0;
    while (off < size) {
        WC_RETURN_IF(ended, err, WC_ERR_CORRUPT, "chunk %u at byte %zu: %zu bytes after %s", index,
                     (size_t)off, (size_t)(size - off),
                     chunks[index - 1].type == WCX_WONE ? "a single-chunk file's WONE" : "WEND");
        WC_RETURN_IF(index >= limit, err, WC_ERR_LIMIT,
                     "chunk %u at byte %zu: more than %zu chunks", index, (size_t)off, limit);
        wcx_chunk *c = &chunks[index];
        WC_FORWARD_IF_ERROR(wcx_read_one(io, off, index, c, err));
        WC_FORWARD_IF_ERROR(wcx_check_order(c, err));
        ended = c->type == WCX_WEND || c->type == WCX_WONE; /* WONE: the whole file */
        off += WCX_CHUNK_OVERHEAD + (uint64_t)c->size;
        index++;
        WC_RETURN_IF(c->type == WCX_WONE && off >= WCX_ONE_MAX_FILE, err, WC_ERR_CORRUPT,
                     "chunk 0 (WONE) at byte %zu: a single-chunk file of %zu bytes (it must be "
                     "under %u)",
                     c->offset, (size_t)off, WCX_ONE_MAX_FILE);
    }
    WC_RETURN_IF(!ended, err, WC_ERR_TRUNCATED,
                 "file ends at byte %zu after %u chunks, without a WEND chunk", (size_t)size,
                 index);
    *count = index;
    return WC_OK;
}

/* ---- a file in memory ------------------------------------------------------------ */

typedef struct mem_file {
    const uint8_t *src;
    int threads;
    uint32_t lazy;
    size_t lazy_min;
} mem_file;

static wc_status mem_read(void *user, uint64_t off, void *dst, size_t n, wc_err *err)
{
    (void)err;
    memcpy(dst, ((const mem_file *)user)->src + off, n);
    return WC_OK;
}

/* The payload stays where it lies; its CRC is computed unless the chunk is
 * of type lazy and lazy_min bytes or more (then the stored one stands). */
static wc_status mem_payload(void *user, wcx_chunk *c, uint32_t *crc, wc_err *err)
{
    (void)err;
    const mem_file *m = user;
    c->data = m->src + c->offset + 8;
    *crc = c->type == m->lazy && c->size >= m->lazy_min
               ? wc_rd32le(c->data + c->size)
               : chunk_crc(c->data - 4, (size_t)c->size + 4u, m->threads);
    return WC_OK;
}

wc_status wcx_read_chunks(const uint8_t *src, size_t size, wcx_chunk *chunks, size_t max,
                          size_t *count, wc_err *err)
{
    return wcx_read_chunks_mt(src, size, chunks, max, count, 1, err);
}

wc_status wcx_read_chunks_mt(const uint8_t *src, size_t size, wcx_chunk *chunks, size_t max,
                             size_t *count, int threads, wc_err *err)
{
    return wcx_read_chunks_lazy(src, size, chunks, max, count, threads, 0, 0, err);
}

int wcx_chunk_crc_ok(const wcx_chunk *c, int threads)
{
    return chunk_crc(c->data - 4, (size_t)c->size + 4u, threads) == wc_rd32le(c->data + c->size);
}

wc_status wcx_read_chunks_lazy(const uint8_t *src, size_t size, wcx_chunk *chunks, size_t max,
                               size_t *count, int threads, uint32_t lazy, size_t lazy_min,
                               wc_err *err)
{
    if (!lazy) lazy_min = SIZE_MAX; /* type 0 is no chunk's: every CRC checked */
    WC_RETURN_IF(count == NULL || (src == NULL && size > 0) || (chunks == NULL && max > 0), err,
                 WC_ERR_ARG, "wcx_read_chunks: NULL argument");
    *count = 0;
    mem_file m = {src, threads, lazy, lazy_min};
    const wcx_walk_io io = {size, &m, mem_read, mem_payload};
    size_t n;
    WC_FORWARD_IF_ERROR(wcx_walk_chunks(&io, chunks, max, &n, err));
    if (chunks[0].type == WCX_WONE) {
        wcx_chunk one = chunks[0];
        return wcx_one_split(&one, chunks, max < WCX_MAX_CHUNKS ? max : WCX_MAX_CHUNKS, count, err);
    }
    /* Only a fully verified file hands out its list, so no caller can act
     * on the chunks of a file that turned out to be damaged further on. */
    *count = n;
    return WC_OK;
}
