/*
 * container.h -- the .wcx file format: chunk writer, bounds-checked chunk
 * reader, and the header record. The spec is container/FORMAT.md; the
 * constants below mirror it.
 *
 * A file is the 8-byte magic followed by chunks:
 *   u32 length (LE) | 4-byte type | length bytes of data | u32 CRC-32 (LE)
 * The CRC (zlib's crc32) covers the type and the data. Known types:
 *   WHDR header (first), WTAB entropy tables, WIDX code-block index,
 *   WDAT code-block data, WMET metadata (optional), WEND (last, empty).
 *   Unknown types are skipped. Or (2.0, a small file of entropy 4) the
 *   magic and one WONE chunk that holds the parts of all of them.
 */
#ifndef WC_CONTAINER_H
#define WC_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "wc_common.h"

#define WCX_MAGIC "\x89WCX\r\n\x1a\n"
#define WCX_MAGIC_SIZE 8
/* Majors this library reads: WCX_VERSION_MAJOR_MIN .. WCX_VERSION_MAJOR. A
 * writer stamps the lowest major whose field values describe the file
 * (wcx_header_stamp_version), so a file that uses nothing added in 2.0 is a
 * 1.0 file that every 1.x reader decodes. */
#define WCX_VERSION_MAJOR 2
#define WCX_VERSION_MAJOR_MIN 1
#define WCX_VERSION_MINOR 0
#define WCX_CHUNK_OVERHEAD 12u
#define WCX_MAX_CHUNK_SIZE 0x7FFFFFFFu
#define WCX_MAX_CHUNKS 4096u
#define WCX_MAX_STEPS 64

#define WCX_FOURCC(a, b, c, d) \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define WCX_WHDR WCX_FOURCC('W', 'H', 'D', 'R')
#define WCX_WTAB WCX_FOURCC('W', 'T', 'A', 'B')
#define WCX_WIDX WCX_FOURCC('W', 'I', 'D', 'X')
#define WCX_WDAT WCX_FOURCC('W', 'D', 'A', 'T')
#define WCX_WEND WCX_FOURCC('W', 'E', 'N', 'D')
#define WCX_WMET WCX_FOURCC('W', 'M', 'E', 'T')
#define WCX_WPAL WCX_FOURCC('W', 'P', 'A', 'L')
/* Format 2.0: a small file of entropy 4 as one chunk (one_chunk.c). */
#define WCX_WONE WCX_FOURCC('W', 'O', 'N', 'E')

/* ---- writer ------------------------------------------------------------------ */

/* Writes into a caller's buffer; overflow is sticky and reported at the end,
 * so callers can write everything and check once. */
typedef struct wcx_writer {
    uint8_t *buf;
    size_t cap;
    size_t pos;
    size_t chunk_start; /* offset of the open chunk's length field */
    int open;
    int overflow;
} wcx_writer;

/* Starts a file (writes the magic). */
void wcx_writer_init(wcx_writer *w, uint8_t *buf, size_t cap);
/* Opens a chunk of the given type; its data is written with wcx_write or
 * directly at wcx_chunk_space and committed with wcx_chunk_commit. */
void wcx_chunk_begin(wcx_writer *w, uint32_t type);
void wcx_write(wcx_writer *w, const void *data, size_t n);
/* Pointer to n writable bytes at the current position, or NULL if the
 * buffer is too small (then the writer is marked as overflowed). */
uint8_t *wcx_chunk_space(wcx_writer *w, size_t n);
void wcx_chunk_commit(wcx_writer *w, size_t n);
/* Closes the open chunk: fills in its length and CRC. */
void wcx_chunk_end(wcx_writer *w);
/* The same, given the CRC-32 of the chunk's data (crc32(0, data, len)) as
 * the caller computed it (on several threads, say): the chunk's CRC, which
 * also covers its type, is made from it without reading the data again. */
void wcx_chunk_end_crc(wcx_writer *w, uint32_t data_crc);
/* Writes a whole chunk at once. */
void wcx_put_chunk(wcx_writer *w, uint32_t type, const void *data, size_t n);
/* The WIDX chunk of n code-block sizes (one LEB128 varint each, FORMAT.md
 * "Code-block index"), and its size with the chunk's framing. */
void wcx_put_index(wcx_writer *w, const uint32_t *block_size, size_t n);
size_t wcx_index_size(const uint32_t *block_size, size_t n);
/* Bytes written so far; WC_ERR_BUFFER if the buffer overflowed. */
wc_status wcx_writer_finish(wcx_writer *w, size_t *size);

/* ---- reader ------------------------------------------------------------------ */

typedef struct wcx_chunk {
    uint32_t type;
    uint32_t size;
    const uint8_t *data;
    size_t offset;  /* of the chunk's length field in the file */
    unsigned index; /* position in the file, 0-based */
} wcx_chunk;

/* Where wcx_walk_chunks reads a file: in memory (wcx_read_chunks does
 * that) or by ranges, for a file never held whole (codec/stream_decode.c). */
typedef struct wcx_walk_io {
    uint64_t size; /* the file's bytes */
    void *user;
    /* Reads n bytes at off, inside the file (the walk checked), into dst. */
    wc_status (*read)(void *user, uint64_t off, void *dst, size_t n, wc_err *err);
    /* Chunk c's payload (its type, size, offset and index set, its length
     * checked against the file): sets c->data to the payload if it keeps
     * it (NULL if not), and *crc to the CRC-32 of the chunk's type and
     * payload (or to the stored CRC, to leave the chunk unchecked). */
    wc_status (*payload)(void *user, wcx_chunk *c, uint32_t *crc, wc_err *err);
} wcx_walk_io;

/* The walk of wcx_read_chunks (its checks and messages, below) over io:
 * lists the chunks as they lie, a WONE one too (not split into its parts).
 * On an error, chunks[] may hold entries past *count (0) whose data the
 * payload callback kept, for the caller to free. */
wc_status wcx_walk_chunks(const wcx_walk_io *io, wcx_chunk *chunks, size_t max, size_t *count,
                          wc_err *err);

/* Checks the magic, walks every chunk checking lengths against the buffer
 * and each CRC, requires WHDR first and WEND last with nothing after it,
 * and lists the chunks (at most max, else WC_ERR_LIMIT). Errors name the
 * chunk, its index and byte offset. */
wc_status wcx_read_chunks(const uint8_t *src, size_t size, wcx_chunk *chunks, size_t max,
                          size_t *count, wc_err *err);
/* The same, checking the CRCs of large chunks on `threads` threads (0: all
 * cores; 1: the caller's alone). */
wc_status wcx_read_chunks_mt(const uint8_t *src, size_t size, wcx_chunk *chunks, size_t max,
                             size_t *count, int threads, wc_err *err);
/* The same, but the CRCs of chunks of type `lazy` and lazy_min bytes or
 * more are left unchecked (framing, order and the rest still are), for a
 * caller that checks them with wcx_chunk_crc_ok before it uses their
 * data and, where one fails, reads the file again with
 * wcx_read_chunks_mt for its error. lazy 0: every CRC checked. */
wc_status wcx_read_chunks_lazy(const uint8_t *src, size_t size, wcx_chunk *chunks, size_t max,
                               size_t *count, int threads, uint32_t lazy, size_t lazy_min,
                               wc_err *err);
/* Whether a listed chunk's stored CRC matches its type and data (on
 * `threads` threads, as wcx_read_chunks_mt). */
int wcx_chunk_crc_ok(const wcx_chunk *c, int threads);

/* ---- single-chunk files (WONE; one_chunk.c) --------------------------------- */

/* Format 2.0: a file of entropy 4 may be the magic and one WONE chunk that
 * holds the header record, the palette (colour 3) and the planes, each part
 * but the last behind its LEB128 length; no WEND (FORMAT.md, "Single-chunk
 * files"). Such a file is smaller than WCX_ONE_MAX_FILE bytes. The reader
 * lists the chunks the parts stand for (WHDR, WPAL, WDAT..., WEND), so a
 * list for it needs WCX_ONE_MAX_PARTS entries. */
#define WCX_ONE_MAX_FILE 4096u
#define WCX_ONE_MAX_PARTS 7u
/* Bytes of the file that the parts make (magic included). */
size_t wcx_one_size(const size_t *part_size, unsigned nparts);
/* Writes the WONE chunk of the parts (the record, the WPAL payload if any,
 * the WDAT payloads) after the writer's magic. */
void wcx_one_put(wcx_writer *w, const uint8_t *const *part, const size_t *part_size,
                 unsigned nparts);
/* The parts of a checked WONE chunk as the chunks they stand for: offsets
 * are the parts' own in the file; *count entries (at most max, else
 * WC_ERR_LIMIT). */
wc_status wcx_one_split(const wcx_chunk *one, wcx_chunk *out, size_t max, size_t *count,
                        wc_err *err);

/* Printable name of a chunk type ("WDAT", or hex for unprintable). */
void wcx_type_name(uint32_t type, char out[9]);

/* ---- header record (payload of WHDR) ---------------------------------------- */

typedef struct wcx_header {
    uint16_t version_major, version_minor;
    uint32_t width, height;
    uint8_t components; /* 1..4 */
    uint8_t bit_depth;  /* 1..16 */
    uint8_t colour;     /* 0 none, 1 RCT, 2 ICT, 3 palette (2.0) */
    uint8_t transform;  /* 0 DWT, 1 DCT, 2 LOT */
    uint8_t levels;     /* 0..15 (DWT) */
    uint8_t entropy;    /* 0 Huffman, 1 deflate, 2 Huffman tiles, 3 arithmetic */
    uint8_t block_log2; /* code-block side 2^block_log2, 4..7 */
    uint8_t flags;      /* bit 0: lossless */
    uint8_t wavelet[4]; /* per component: 53 or 97 */
    float base_step;    /* the step the user chose (informative) */
    float recon;        /* dequantization offset, [0, 1) */
    uint8_t nsteps;     /* steps per component */
    float steps[4][WCX_MAX_STEPS];
} wcx_header;

/* Entropy 4 (format 2.0): filtered deflate, PNG's row filters over packed
 * values (FORMAT.md, "Filtered deflate payloads"); only in a 0-level DWT
 * file, where each component's plane is one code block. */
#define WCX_ENTROPY_FILTERED 4

/* Bytes of a serialised header. */
size_t wcx_header_size(const wcx_header *h);
/* Serialises h into out (at least wcx_header_size bytes). */
void wcx_header_write(const wcx_header *h, uint8_t *out);
/* The lowest format major that can describe h: 1 unless a field holds a
 * value that format 2.0 added (FORMAT.md, "Versions"). */
unsigned wcx_header_needed_major(const wcx_header *h);
/* Whether a file of this entropy coder has WTAB chunks, one a component:
 * the Huffman coders (0, 2) do; deflate (1), arithmetic coding (3) and
 * filtered deflate (4), whose models carry no tables, do not. */
int wcx_entropy_has_tables(unsigned entropy);
/* Sets h's version to wcx_header_needed_major(h).0; writers call it last. */
void wcx_header_stamp_version(wcx_header *h);
/* Parses and validates a WHDR payload: version (refuses other majors),
 * every field's range, steps finite and > 0, size consistent. */
wc_status wcx_header_parse(const uint8_t *p, size_t size, wcx_header *h, wc_err *err);

/* ---- palette (payload of WPAL; palette_chunk.c) --------------------------- */

/* colour 3 (format 2.0): the samples are one plane of indices into a
 * palette of at most WCX_PALETTE_MAX entries, each a pixel of the header's
 * components at its bit depth. The WPAL chunk comes right after WHDR. */
#define WCX_COLOUR_PALETTE 3u
#define WCX_PALETTE_MAX 256u
/* WPAL's count word with this bit (only in a file of entropy 4): the
 * entries follow as a filtered deflate payload (codec/palette.c). */
#define WCX_PALETTE_PACKED 0x8000u

typedef struct wcx_palette {
    unsigned count; /* 1..WCX_PALETTE_MAX */
    uint16_t entry[WCX_PALETTE_MAX][4];
} wcx_palette;

/* The bit depth of the index plane: ceil(log2(count)), at least 1. */
unsigned wcx_palette_index_depth(unsigned count);
/* Bytes of a WPAL payload for a file of those components and bit depth. */
size_t wcx_palette_size(const wcx_palette *pal, unsigned components, unsigned bit_depth);
/* The WPAL payload of pal (wcx_palette_size bytes) at p. */
void wcx_palette_write(const wcx_palette *pal, unsigned components, unsigned bit_depth, uint8_t *p);
/* Writes one WPAL chunk. */
void wcx_palette_put(wcx_writer *w, const wcx_palette *pal, unsigned components,
                     unsigned bit_depth);
/* Checks a WPAL chunk against the header's components and bit depth (count
 * 1..256, exact size, every sample within the bit depth) into *pal. */
wc_status wcx_palette_parse(const wcx_chunk *k, unsigned components, unsigned bit_depth,
                            wcx_palette *pal, wc_err *err);

/* ---- metadata items (payload of WMET; meta_chunk.c) ------------------------ */

/* kind u8 | flags u8 | key_len u8 | key | value (the rest of the chunk) */
#define WCX_META_FIXED 3u
#define WCX_META_MAX_KEY WC_META_MAX_KEY
#define WCX_META_MAX_VALUE WC_META_MAX_VALUE
#define WCX_META_MAX_ITEMS WC_META_MAX_ITEMS
#define WCX_META_MAX_TOTAL WC_META_MAX_TOTAL

typedef struct wcx_meta_item {
    uint8_t kind, flags, key_len;
    const uint8_t *key;   /* key_len bytes, no NUL */
    const uint8_t *value; /* size bytes */
    uint32_t size;
} wcx_meta_item;

/* Bytes a WMET chunk of that key and value takes in the file. */
size_t wcx_meta_chunk_size(size_t key_len, size_t value_size);
/* Writes one WMET chunk. */
void wcx_meta_put(wcx_writer *w, const wcx_meta_item *it);
/* Checks a WMET chunk's framing (key length and bytes, value size) and
 * points *it into it; errors name the chunk and its byte offset. */
wc_status wcx_meta_parse(const wcx_chunk *k, wcx_meta_item *it, wc_err *err);

#endif /* WC_CONTAINER_H */
