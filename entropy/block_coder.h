/*
 * block_coder.h -- context-modelled Huffman coding of one code block: a
 * w x h rectangle of int32 coefficients, coded independently of every
 * other block into a byte-aligned payload.
 *
 * Model (the same in coder and decoder, see block_coder.c):
 *  - the context of a coefficient is s = wW|W| + wN|N| + |NW| + |NE| + |WW|
 *    + |NN| over its six already-coded neighbours inside the block (WW and
 *    NN two away; magnitudes capped at 2^20), with (wW, wN) = (2, 2), or
 *    (1, 3) for BC_VERT, (3, 1) for BC_HORZ (FORMAT.md, WDAT);
 *  - s <= run_max (0 .. 3; the file's mode decides) switches to run mode: the number of zeros that follow in raster
 *    order (across rows, up to the block's end) is coded with table
 *    BC_RUN, then, unless the block ended, the non-zero coefficient that
 *    stops the run as |v| - 1 with table BC_TERM and a sign bit;
 *  - otherwise |v| is coded with the table of context bucket(s), 1..23, as
 *    a magnitude class (0..3 exact, then two classes per octave) plus raw
 *    low bits, and a raw sign bit for v != 0;
 *  - with predict set (LL band and DCT DC band), v is first replaced by its
 *    residual from the MED predictor of JPEG-LS over W, N, NW (wrapping
 *    32-bit arithmetic, exact for any int32).
 */
#ifndef WC_BLOCK_CODER_H
#define WC_BLOCK_CODER_H

#include <stddef.h>
#include <stdint.h>

#include "huffman.h"

#define BC_NCTX 24            /* contexts 1..23 are magnitude contexts */
#define BC_RUN 0              /* table of zero-run lengths */
#define BC_TERM BC_NCTX       /* table of |v|-1 after a run */
#define BC_NTAB (BC_NCTX + 1) /* tables per coding class */
#define BC_NSYM 67            /* magnitude classes for any uint32 magnitude */
#define BC_MAX_SIDE 128       /* largest code-block side */

typedef uint32_t bc_freq[BC_NTAB][BC_NSYM];

/* A block of coefficients inside a plane. */
typedef struct bc_block {
    int32_t *data;    /* top-left coefficient */
    uint32_t w, h;    /* 1..BC_MAX_SIDE each */
    size_t stride;    /* elements between rows */
    int predict;      /* code MED residuals */
    int orient;       /* BC_ISO, BC_VERT (HL bands) or BC_HORZ (LH bands) */
    uint32_t run_max; /* run mode where the context sum s <= run_max */
} bc_block;

/* Which neighbour the context trusts more: HL subbands hold vertical
 * structure, so the coefficient above predicts best; LH the one to the left. */
enum { BC_ISO = 0, BC_VERT = 1, BC_HORZ = 2 };

/* Scratch (uint32 elements) one call needs; reuse it across blocks. */
size_t bc_scratch_elems(void);
/* Upper bound of an encoded block's size in bytes. */
size_t bc_bound(uint32_t w, uint32_t h);

/* Adds the block's symbol counts to freq. */
void bc_count(const bc_block *b, bc_freq freq, uint32_t *scratch);

/* bc_count of a block given by its magnitudes, for a caller that makes
 * them itself (rate control quantizes a block at several steps): bc_mags_
 * plane clears scratch's magnitude plane of a w x h block (its zero
 * border included) and returns its top-left element, rows w + 4 apart;
 * the caller writes |v| of every coefficient there, each below
 * bc_mags_cap() (else it calls bc_count), and bc_count_mags adds the
 * counts bc_count would of a block of those values (no prediction; signs
 * do not change counts). The border is never written, so one clear
 * serves a block's every step. */
uint32_t bc_mags_cap(void);
uint32_t *bc_mags_plane(uint32_t *scratch, uint32_t w, uint32_t h);
void bc_count_mags(uint32_t w, uint32_t h, int orient, uint32_t run_max, bc_freq freq,
                   uint32_t *scratch);

/* bc_count that also records the block's symbols (table << 8 | class, a
 * run's followed by its length) in tokens (room for bc_token_bound
 * entries) for bc_emit; returns their number. Counting and coding then
 * walk the contexts once. */
size_t bc_symbolize(const bc_block *b, bc_freq freq, uint16_t *tokens, uint32_t *scratch);
/* At worst every value ends a run of none: a run token, its length and
 * the value's token each (plus a final run). */
static inline size_t bc_token_bound(uint32_t w, uint32_t h) { return 3 * (size_t)w * h + 2; }

/* Codes the block from the tokens bc_symbolize recorded: the same bytes
 * as bc_encode, without recomputing contexts. */
size_t bc_emit(const bc_block *b, const uint16_t *tokens, size_t ntok, const huf_enc *tabs,
               uint8_t *out, size_t cap, uint32_t *scratch);

/* bc_emit into a writer the caller owns (bits follow what it holds; no
 * flush): how entropy 2 puts tiles end to end. */
void bc_emit_to(bitw *w, const bc_block *b, const uint16_t *tokens, size_t ntok,
                const huf_enc *tabs, uint32_t *scratch);

/* bc_count of a w x h block of zeros: one run to its end, whatever the
 * prediction and orientation. */
void bc_count_zero(uint32_t w, uint32_t h, bc_freq freq);

/* Bits the blocks whose symbols `freq` counts take when coded with the
 * class's tables: each symbol's code and raw bits, a sign after every
 * non-zero value; before each block's padding to a byte. Rate control
 * (codec/ratectl.c) bounds a file's size with it without coding. */
uint64_t bc_payload_bits(const bc_freq freq, const huf_enc *tabs);

/* Codes the block with the class's tables (BC_NTAB of them) into out
 * (cap >= bc_bound). Returns the payload size (0 is valid: a block the
 * tables predict completely), or SIZE_MAX if cap was too small. */
size_t bc_encode(const bc_block *b, const huf_enc *tabs, uint8_t *out, size_t cap,
                 uint32_t *scratch);

/* The decoder tables of one coding class, side by side so a context's
 * table is one address computation away. Unused tables are all zero and
 * marked in `used`: a payload that reaches one is corrupt.
 *
 * `fast` answers a whole value from the next HUF_FAST_BITS bits: entry =
 * code length (bits 0-3) | raw bits nb (4-8) | BC_FAST_OK (9) | smallest
 * magnitude of the class (10-31). The decoder then reads the nb raw bits
 * from the same 64-bit window without a further table or branch. Entries
 * without BC_FAST_OK (codes longer than HUF_FAST_BITS, classes from 2^22
 * up, unused tables) go the long way through `t`. */
#define BC_FAST_OK (1u << 9)
#ifndef BC_FAST_BITS
#define BC_FAST_BITS 8
#endif
#define BC_FAST_SIZE (1u << BC_FAST_BITS)
#define BC_FAST_MASK (BC_FAST_SIZE - 1)
typedef struct bc_dectab {
    uint32_t fast[BC_NTAB][BC_FAST_SIZE];
    huf_dec t[BC_NTAB];
    uint8_t used[BC_NTAB];
} bc_dectab;

/* Builds a class's decoder from the code lengths bc_tables_read gave.
 * Validates every used table (huf_dec_build); on error T is unusable. */
wc_status bc_dectab_build(bc_dectab *T, const uint8_t (*len)[BC_NSYM], const uint8_t *used,
                          wc_err *err);

/* Decodes a payload of exactly size bytes into the block's rectangle. */
wc_status bc_decode(const uint8_t *src, size_t size, const bc_block *b, const bc_dectab *tabs,
                    uint32_t *scratch, wc_err *err);

/* bc_decode of a sub-stream: the nbits bits from bit bit0 of src (size
 * bytes, which bound every read: bits past a sub-stream's end are the
 * next one's, or zeros past size). Every bit must be used. */
wc_status bc_decode_bits(const uint8_t *src, size_t size, size_t bit0, size_t nbits,
                         const bc_block *b, const bc_dectab *T, uint32_t *scratch, wc_err *err);

/* bc_decode of two blocks at once, in turns, for speed (one block's
 * serial decoding chain leaves the processor idle most of the time). The
 * scratch areas must differ. On error the message may come from either
 * block; decode them one at a time to learn which. */
wc_status bc_decode_pair(const uint8_t *const src[2], const size_t size[2],
                         const bc_block *const b[2], const bc_dectab *const T[2],
                         uint32_t *const scratch[2], wc_err *err);

/* Code-length tables of a class: which tables are used, and their lengths. */
void bc_tables_write(bitw *w, const uint8_t (*len)[BC_NSYM]);
wc_status bc_tables_read(bitr *r, uint8_t (*len)[BC_NSYM], uint8_t *used, wc_err *err);

/* MED residuals of a predicted block into res (w x h, stride w), and the
 * way back in place; shared with the deflate path. */
void bc_residuals(const bc_block *b, int32_t *res);
void bc_unpredict(const bc_block *b);
#endif /* WC_BLOCK_CODER_H */
