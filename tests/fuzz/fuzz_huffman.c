/*
 * fuzz_huffman.c -- the entropy decoders on arbitrary bits, each checked
 * against its encoder. The first byte picks the decoder:
 *
 *  0: a Huffman length table (huf_lengths_read, nsym from the next byte)
 *     and, when it builds (huf_dec_build), symbols decoded from the rest.
 *  1: a block coder class (bc_tables_read: BC_NTAB tables), byte-aligned,
 *     then one code block's payload (bc_decode) of the size, predictor and
 *     orientation the next three bytes give.
 *  2: zero-run RLE tokens (rle_decode) for a value count from two bytes.
 *
 * Beyond "no crash, no overrun, no UB, an error has a message", each mode
 * checks that the format has one spelling per content: whatever decodes
 * without error re-encodes to the very bits it was decoded from (up to the
 * zero padding of the last byte). So no damaged stream decodes silently to
 * a different content than its bits say, and encoder and decoder agree on
 * every corner (zero-bit single-symbol tables, 32-bit magnitudes, runs to
 * the end of a block, MED residuals that wrap).
 */
#include <stdint.h>
#include <string.h>

#include "block_coder.h"
#include "fuzz_check.h"
#include "huffman.h"
#include "rle.h"

#define FUZZ_MAX_SYMBOLS 4096

/* Bits consumed from a reader started at base. */
static size_t bits_used(const bitr *r, const uint8_t *base)
{
    return (size_t)(r->p - base) * 8 + r->fake - r->n;
}

/* Compares n bits of a (from bit a0) with the start of b. */
static int same_bits(const uint8_t *a, size_t a_size, size_t a0, const uint8_t *b, size_t b_size,
                     size_t n)
{
    bitr ra, rb;
    bitr_init(&ra, a, a_size);
    bitr_init(&rb, b, b_size);
    for (size_t skip = a0; skip > 0;) {
        unsigned k = skip > 16 ? 16 : (unsigned)skip;
        bitr_get(&ra, k);
        skip -= k;
    }
    while (n > 0) {
        unsigned k = n > 16 ? 16 : (unsigned)n;
        if (bitr_get(&ra, k) != bitr_get(&rb, k)) return 0;
        n -= k;
    }
    return 1;
}

static void fuzz_table(const uint8_t *data, size_t size)
{
    if (size < 1) return;
    const unsigned nsym = 1u + data[0] % HUF_MAX_SYMS;
    const uint8_t *bits = data + 1;
    const size_t nbytes = size - 1;
    bitr r;
    bitr_init(&r, bits, nbytes);
    uint8_t len[HUF_MAX_SYMS];
    wc_err err = {{0}};
    wc_status s = huf_lengths_read(&r, len, nsym, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0], "lengths: status %d without a message", (int)s);
        return;
    }
    const size_t table_bits = bits_used(&r, bits);
    /* One spelling per table: writing the lengths back gives the same bits. */
    uint8_t again[HUF_MAX_SYMS * 2];
    bitw w;
    bitw_init(&w, again, sizeof again);
    huf_lengths_write(&w, len, nsym);
    FUZZ_CHECK((size_t)w.pos * 8 + w.n == table_bits, "table rewritten in %zu bits, read %zu",
               (size_t)w.pos * 8 + w.n, table_bits);
    size_t asize = bitw_flush(&w);
    FUZZ_CHECK(!w.overflow && same_bits(bits, nbytes, 0, again, asize, table_bits),
               "table rewritten differently");

    huf_dec dec;
    s = huf_dec_build(&dec, len, nsym, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0], "build: status %d without a message", (int)s);
        return;
    }
    huf_enc enc;
    huf_enc_build(&enc, len, nsym);
    static uint8_t syms[FUZZ_MAX_SYMBOLS];
    static uint8_t out[FUZZ_MAX_SYMBOLS * 2 + 8];
    size_t n = 0, end_bits = table_bits;
    while (n < FUZZ_MAX_SYMBOLS) {
        unsigned sym = huf_get(&r, &dec);
        if (bitr_overrun(&r)) break; /* that symbol was read from padding */
        FUZZ_CHECK(sym < nsym && len[sym] != 0, "decoded unused symbol %u", sym);
        syms[n++] = (uint8_t)sym;
        end_bits = bits_used(&r, bits);
        if (end_bits == nbytes * 8) break;
    }
    bitw_init(&w, out, sizeof out);
    for (size_t i = 0; i < n; i++) huf_put(&w, &enc, syms[i]);
    const size_t sym_bits = (size_t)w.pos * 8 + w.n;
    FUZZ_CHECK(sym_bits == end_bits - table_bits, "%zu symbols re-encode in %zu bits, read %zu", n,
               sym_bits, end_bits - table_bits);
    size_t osize = bitw_flush(&w);
    FUZZ_CHECK(!w.overflow && same_bits(bits, nbytes, table_bits, out, osize, sym_bits),
               "symbols re-encode to different bits");
}

static void fuzz_block(const uint8_t *data, size_t size)
{
    if (size < 3) return;
    bc_block b;
    b.w = 1u + data[0] % BC_MAX_SIDE;
    b.h = 1u + data[1] % BC_MAX_SIDE;
    b.predict = data[2] & 1;
    b.orient = (data[2] >> 1) % 3;
    b.stride = b.w + (data[2] >> 3 & 3); /* a block inside a wider plane */
    b.run_max = data[2] >> 5 & 3;        /* every run threshold a file can use */
    data += 3;
    size -= 3;

    bitr r;
    bitr_init(&r, data, size);
    uint8_t len[BC_NTAB][BC_NSYM], used[BC_NTAB];
    wc_err err = {{0}};
    wc_status s = bc_tables_read(&r, len, used, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0], "tables: status %d without a message", (int)s);
        return;
    }
    static bc_dectab tabs;
    static huf_enc enc[BC_NTAB];
    s = bc_dectab_build(&tabs, len, used, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0], "build: status %d without a message", (int)s);
        return;
    }
    const size_t table_bytes = (bits_used(&r, data) + 7) / 8;
    const uint8_t *payload = data + table_bytes;
    const size_t psize = size - table_bytes;

    static int32_t plane[BC_MAX_SIDE * (BC_MAX_SIDE + 3)];
    static uint32_t scratch[(BC_MAX_SIDE + 4) * (BC_MAX_SIDE + 4) * 2];
    FUZZ_CHECK(bc_scratch_elems() <= sizeof scratch / sizeof scratch[0], "scratch too small");
    /* A known value in the gap columns shows a write outside the block. */
    for (size_t i = 0; i < sizeof plane / sizeof plane[0]; i++) plane[i] = 0x5A5A5A5A;
    b.data = plane;
    s = bc_decode(psize ? payload : NULL, psize, &b, &tabs, scratch, &err);
    for (uint32_t y = 0; y < b.h; y++)
        for (size_t x = b.w; x < b.stride; x++)
            FUZZ_CHECK(plane[y * b.stride + x] == 0x5A5A5A5A, "write outside the block");
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0], "block: status %d without a message", (int)s);
        return;
    }
    for (unsigned t = 0; t < BC_NTAB; t++)
        if (used[t]) huf_enc_build(&enc[t], len[t], BC_NSYM);
    static uint8_t out[BC_MAX_SIDE * BC_MAX_SIDE * 8 + 16];
    FUZZ_CHECK(bc_bound(b.w, b.h) <= sizeof out, "output too small");
    size_t osize = bc_encode(&b, enc, out, sizeof out, scratch);
    FUZZ_CHECK(osize == psize, "block of %zu bytes re-encodes in %zu", psize, osize);
    if (psize == 0) return;
    FUZZ_CHECK(memcmp(out, payload, psize - 1) == 0, "block re-encodes to different bytes");
    /* The last byte: the encoder pads with zeros, the file may not. */
    uint8_t last = out[psize - 1], mask = 0;
    while (mask < last) mask = (uint8_t)(mask << 1 | 1);
    FUZZ_CHECK((payload[psize - 1] & mask) == last, "last byte %02X re-encodes as %02X",
               payload[psize - 1], last);
}

static void fuzz_rle(const uint8_t *data, size_t size)
{
    if (size < 2) return;
    const size_t n = 1u + (data[0] | (size_t)data[1] << 8) % 8192;
    data += 2;
    size -= 2;
    static int32_t v[8192];
    static uint8_t out[8192 * 5];
    wc_err err = {{0}};
    wc_status s = rle_decode(data, size, v, n, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0], "rle: status %d without a message", (int)s);
        return;
    }
    FUZZ_CHECK(rle_bound(n) <= sizeof out, "output too small");
    size_t osize = rle_encode(v, n, out);
    FUZZ_CHECK(osize == size && memcmp(out, data, size) == 0,
               "%zu token bytes re-encode as %zu different ones", size, osize);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    switch (data[0] % 3) {
    case 0: fuzz_table(data + 1, size - 1); break;
    case 1: fuzz_block(data + 1, size - 1); break;
    default: fuzz_rle(data + 1, size - 1); break;
    }
    return 0;
}
