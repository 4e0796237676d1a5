/*
 * huffman.h -- canonical, length-limited Huffman codes: building code
 * lengths from counts, making codes, writing/reading code-length tables and
 * table-driven decoding.
 *
 * Conventions: symbols are 0..nsym-1 (nsym <= HUF_MAX_SYMS); a length of 0
 * means "unused". A table with exactly one used symbol codes it with zero
 * bits. Every other table must be a complete prefix code (Kraft sum exactly
 * 1); huf_dec_build refuses over-subscribed and incomplete tables, lengths
 * above HUF_MAX_LEN and counts out of range, before touching memory.
 */
#ifndef WC_HUFFMAN_H
#define WC_HUFFMAN_H

#include <stdint.h>

#include "bitio.h"
#include "wc_common.h"

#define HUF_MAX_LEN 15
#define HUF_MAX_SYMS 128
#define HUF_FAST_BITS 10

/* Code lengths (<= max_len <= HUF_MAX_LEN) minimising sum freq*len; unused
 * symbols (freq 0) get 0. A single used symbol gets length 1 (coded with
 * zero bits, see above). All-zero counts give all-zero lengths. Two or more
 * used symbols always get a complete code (Kraft sum 1). max_len is taken
 * as HUF_MAX_LEN when larger and raised to ceil(log2(used)) when too small
 * for the alphabet. The result depends on the counts alone: on equal
 * counts the lower symbol gets the shorter (or equal) code. nsym <=
 * HUF_MAX_SYMS; len has nsym entries. */
void huf_build_lengths(const uint32_t *freq, unsigned nsym, unsigned max_len, uint8_t *len);

/* Encoder table: per symbol the code (bit-reversed, ready for bitw_put) and
 * its bit count (0 for the single-symbol case and for unused symbols). */
typedef struct huf_enc {
    uint16_t code[HUF_MAX_SYMS];
    uint8_t bits[HUF_MAX_SYMS];
} huf_enc;

/* The bit reversal of code + 1 in l bits, given rev, the reversal of code
 * (code + 1 < 2^l): the carry of the increment runs from the top bit
 * down. Canonical codes are consecutive, so table builders step through
 * their reversed forms with this instead of reversing each code. */
static inline unsigned huf_reverse_next(unsigned rev, unsigned l)
{
    unsigned bit = 1u << (l - 1);
    while (rev & bit) {
        rev ^= bit;
        bit >>= 1;
    }
    return rev | bit;
}

/* Makes canonical codes from valid lengths (as huf_dec_build accepts). */
void huf_enc_build(huf_enc *enc, const uint8_t *len, unsigned nsym);

static inline void huf_put(bitw *w, const huf_enc *enc, unsigned sym)
{
    bitw_put(w, enc->code[sym], enc->bits[sym]);
}

/* Decoder: one lookup of HUF_FAST_BITS bits resolves codes up to that
 * length; longer codes (rare by construction) finish in huf_decode_long from
 * the canonical counts. */
typedef struct huf_dec {
    uint16_t fast[1u << HUF_FAST_BITS]; /* sym | len << 8; len 0 = go slow */
    uint16_t count[HUF_MAX_LEN + 1];    /* number of codes of each length */
    uint8_t sorted[HUF_MAX_SYMS];       /* symbols in canonical order */
    uint8_t single;                     /* 1: one symbol, zero bits */
    uint8_t single_sym;
} huf_dec;

/* Validates lengths and builds the decoder. WC_ERR_CORRUPT (with a message
 * in err) on any invalid table; nothing is read outside len[0..nsym). */
wc_status huf_dec_build(huf_dec *dec, const uint8_t *len, unsigned nsym, wc_err *err);

/* The long-code path of huf_get: the symbol whose code starts the next
 * HUF_MAX_LEN bits, and its length in *len (0 for a single-symbol table).
 * Takes the bits by value so the reader's state can stay in registers. */
unsigned huf_decode_long(const huf_dec *dec, uint32_t bits, unsigned *len);

/* Decodes one symbol. Never fails on a built table: every bit pattern maps
 * to a symbol because codes are complete; running past the end of the
 * input shows as bitr_overrun(). */
static inline unsigned huf_get(bitr *r, const huf_dec *dec)
{
    uint32_t bits = bitr_peek(r, HUF_MAX_LEN);
    uint16_t e = dec->fast[bits & ((1u << HUF_FAST_BITS) - 1)];
    if (e >> 8) {
        bitr_skip(r, e >> 8);
        return e & 0xFF;
    }
    unsigned len;
    unsigned sym = huf_decode_long(dec, bits, &len);
    bitr_skip(r, len);
    return sym;
}

/* Serialises the lengths of a table of nsym symbols compactly; the reader
 * gets nsym from its caller. Format (huffman.c has the details): 8 bits of
 * "last used symbol + 1" (0..HUF_MAX_SYMS), then per listed symbol 1 bit
 * "same length as the previous", 3 bits "one more / one less", or 6 bits
 * "any length". Not byte aligned; callers flush or continue as they like.
 * huf_lengths_read validates ranges (nsym <= HUF_MAX_SYMS, lengths <=
 * HUF_MAX_LEN, listed symbols <= nsym), not completeness, which
 * huf_dec_build checks; it writes only len[0..nsym) and returns
 * WC_ERR_TRUNCATED when the bits run out. */
void huf_lengths_write(bitw *w, const uint8_t *len, unsigned nsym);
wc_status huf_lengths_read(bitr *r, uint8_t *len, unsigned nsym, wc_err *err);

#endif /* WC_HUFFMAN_H */
