/*
 * huffman.c -- length-limited canonical Huffman codes.
 *
 * Lengths come from package-merge (Larmore & Hirschberg, "coin collector"):
 * it is optimal under the length limit and, for two or more symbols, gives
 * a Kraft sum of exactly 1, so the decoder's completeness check never
 * rejects what the encoder made. All orders are total orders on
 * (count, symbol), so the lengths depend on the counts alone.
 *
 * The decoder validates a table completely before writing anything that
 * depends on it (the CVE-2023-4863 lesson: a table built from unchecked
 * counts writes out of bounds).
 *
 * Length-table format (huf_lengths_write/read), LSB-first bits:
 *   8 bits  end = last used symbol + 1 (0..128; must be <= nsym, and
 *           symbol end-1 must be used); symbols >= end have length 0
 *   then for each symbol s < end, with prev = 0 before symbol 0:
 *     0          len = prev
 *     1 0 d      len = prev + 1 (d = 0) or prev - 1 (d = 1)
 *     1 1 llll   len = llll (only when |llll - prev| > 1: one spelling
 *                per table, so tables serialise canonically)
 * Neighbouring symbols (magnitude classes) have similar lengths, so most
 * symbols cost 1 to 3 bits.
 */
#include "huffman.h"
#include "huffman_build.h"

#include <string.h>

#define HUF_END_BITS 8

/* Symbols live in uint8_t (order[], huf_dec.sorted, the low byte of a fast
 * entry), huf_decode_long masks indices with HUF_MAX_SYMS - 1, and the end
 * field must hold 0..HUF_MAX_SYMS. */
_Static_assert(HUF_MAX_SYMS <= 256, "symbols are stored in uint8_t");
_Static_assert((HUF_MAX_SYMS & (HUF_MAX_SYMS - 1)) == 0, "HUF_MAX_SYMS - 1 is used as a mask");
_Static_assert(HUF_MAX_SYMS < (1 << HUF_END_BITS), "end field too narrow for HUF_MAX_SYMS");

void huf_build_lengths(const uint32_t *freq, unsigned nsym, unsigned max_len, uint8_t *len)
{
    huf_lengths_build(freq, nsym, max_len, len);
}

void huf_enc_build(huf_enc *enc, const uint8_t *len, unsigned nsym)
{
    huf_codes_build(enc, len, nsym);
}

/* Checks everything huf_dec_build relies on; fills count[] and reports
 * the number of used symbols and the last one. Writes nothing else. */
static wc_status huf_validate(const uint8_t *len, unsigned nsym, unsigned *count, unsigned *used,
                              unsigned *last, wc_err *err)
{
    WC_RETURN_IF(nsym == 0 || nsym > HUF_MAX_SYMS, err, WC_ERR_CORRUPT,
                 "huffman: table of %u symbols (1..%d allowed)", nsym, HUF_MAX_SYMS);
    *used = 0;
    for (unsigned s = 0; s < nsym; s++) {
        WC_RETURN_IF(len[s] > HUF_MAX_LEN, err, WC_ERR_CORRUPT,
                     "huffman: symbol %u has length %u (max %d)", s, len[s], HUF_MAX_LEN);
        count[len[s]]++;
        if (len[s] != 0) {
            (*used)++;
            *last = s;
        }
    }
    WC_RETURN_IF(*used == 0, err, WC_ERR_CORRUPT, "huffman: table of %u symbols has none used",
                 nsym);
    if (*used == 1) return WC_OK;
    int left = 1; /* code space left, in units of the current length */
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        left = 2 * left - (int)count[l];
        WC_RETURN_IF(left < 0, err, WC_ERR_CORRUPT, "huffman: over-subscribed at length %u", l);
    }
    WC_RETURN_IF(left != 0, err, WC_ERR_CORRUPT,
                 "huffman: incomplete code (%d of %d codes of length %d unused)", left,
                 1 << HUF_MAX_LEN, HUF_MAX_LEN);
    return WC_OK;
}

wc_status huf_dec_build(huf_dec *dec, const uint8_t *len, unsigned nsym, wc_err *err)
{
    unsigned count[HUF_MAX_LEN + 1] = {0}, used = 0, last = 0;
    WC_FORWARD_IF_ERROR(huf_validate(len, nsym, count, &used, &last, err));

    memset(dec, 0, sizeof *dec);
    if (used == 1) {
        dec->single = 1;
        dec->single_sym = (uint8_t)last;
        return WC_OK;
    }
    unsigned offs[HUF_MAX_LEN + 1];
    offs[1] = 0;
    for (unsigned l = 1; l < HUF_MAX_LEN; l++) offs[l + 1] = offs[l] + count[l];
    for (unsigned s = 0; s < nsym; s++)
        if (len[s] != 0) dec->sorted[offs[len[s]]++] = (uint8_t)s;

    /* Canonical codes in sorted order; a code of l <= HUF_FAST_BITS bits
     * owns every table index whose low l bits are its reversed code. The
     * table is grown by doubling: once the first 2^(l-1) entries are right
     * for every code up to l-1 bits (0 where only longer codes fit), a copy
     * makes the first 2^l so, and each code of l bits then writes its one
     * new entry. Writing every index of every code one store at a time
     * was most of the decoder's set-up on a small file (hundreds of tables
     * per image). Reversed codes step by huf_reverse_next. */
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) dec->count[l] = (uint16_t)count[l];
    unsigned rev = 0, idx = 0;
    dec->fast[0] = 0; /* a table of one entry: no code yet */
    for (unsigned l = 1; l <= HUF_FAST_BITS; l++) {
        const unsigned half = 1u << (l - 1);
        memcpy(dec->fast + half, dec->fast, half * sizeof dec->fast[0]);
        for (unsigned k = 0; k < count[l]; k++, idx++) {
            dec->fast[rev] = (uint16_t)(dec->sorted[idx] | l << 8);
            rev = huf_reverse_next(rev, l);
        }
        /* code <<= 1 appends a 0 bit: the reversed code keeps its value. */
    }
    return WC_OK;
}

/* Canonical decoding one bit at a time (as in zlib's puff): at each length,
 * codes [first, first + count) are the ones of that length. */
unsigned huf_decode_long(const huf_dec *dec, uint32_t bits, unsigned *len)
{
    if (dec->single) {
        *len = 0;
        return dec->single_sym;
    }
    unsigned code = 0, first = 0, index = 0;
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        code |= bits & 1;
        bits >>= 1;
        unsigned c = dec->count[l];
        if (code - first < c) {
            *len = l;
            return dec->sorted[(index + code - first) & (HUF_MAX_SYMS - 1)];
        }
        index += c;
        first = (first + c) << 1;
        code <<= 1;
    }
    /* Unreachable with a table from huf_dec_build (complete codes); a
     * zeroed decoder still consumes bits so loops make progress. */
    *len = HUF_MAX_LEN;
    return dec->sorted[0];
}

void huf_lengths_write(bitw *w, const uint8_t *len, unsigned nsym)
{
    unsigned end = 0;
    if (nsym > HUF_MAX_SYMS) nsym = HUF_MAX_SYMS;
    for (unsigned s = 0; s < nsym; s++)
        if (len[s] != 0) end = s + 1;
    bitw_put(w, end, HUF_END_BITS);
    unsigned prev = 0;
    for (unsigned s = 0; s < end; s++) {
        unsigned l = len[s] & 15u;
        if (l == prev) {
            bitw_put(w, 0, 1);
        } else if (l == prev + 1 || l + 1 == prev) {
            bitw_put(w, 1 | 0u << 1 | (unsigned)(l + 1 == prev) << 2, 3);
        } else {
            bitw_put(w, 1 | 1u << 1 | l << 2, 6);
        }
        prev = l;
    }
}

wc_status huf_lengths_read(bitr *r, uint8_t *len, unsigned nsym, wc_err *err)
{
    WC_RETURN_IF(nsym > HUF_MAX_SYMS, err, WC_ERR_CORRUPT, "huffman: table of %u symbols (max %d)",
                 nsym, HUF_MAX_SYMS);
    unsigned end = bitr_get(r, HUF_END_BITS);
    WC_RETURN_IF(end > nsym, err, WC_ERR_CORRUPT,
                 "huffman: length table lists %u symbols, alphabet has %u", end, nsym);
    int prev = 0;
    for (unsigned s = 0; s < end; s++) {
        int l = prev;
        if (bitr_get(r, 1)) {
            if (bitr_get(r, 1) == 0) {
                l = bitr_get(r, 1) ? prev - 1 : prev + 1;
                WC_RETURN_IF(l < 0 || l > HUF_MAX_LEN, err, WC_ERR_CORRUPT,
                             "huffman: length of symbol %u steps out of 0..%d", s, HUF_MAX_LEN);
            } else {
                l = (int)bitr_get(r, 4);
                WC_RETURN_IF(l - prev <= 1 && prev - l <= 1, err, WC_ERR_CORRUPT,
                             "huffman: non-canonical length %d of symbol %u", l, s);
            }
        }
        len[s] = (uint8_t)l;
        prev = l;
    }
    WC_RETURN_IF(end > 0 && len[end - 1] == 0, err, WC_ERR_CORRUPT,
                 "huffman: length table ends with an unused symbol %u", end - 1);
    WC_RETURN_IF(bitr_overrun(r), err, WC_ERR_TRUNCATED, "huffman: length table truncated");
    memset(len + end, 0, nsym - end);
    return WC_OK;
}
