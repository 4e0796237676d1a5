/*
 * test_block_tiles.c -- entropy 2's tiled payload (block_tiles.h): round
 * trips over every block shape the layout makes (1x1 .. 128x128, odd and
 * prime sides, edge tiles), each tile decoding to the bytes block_coder.c
 * would give it alone, all-zero tiles as empty sub-streams, and refusal
 * of every kind of damage to the lengths and the sub-streams.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "block_tiles.h"
#include "test_support.h"

typedef struct coded {
    uint8_t *buf;
    size_t size;
    bc_dectab dec;
    huf_enc enc[BC_NTAB];
} coded;

/* Values of a kind: 0 dense small, 1 sparse, 2 large, 3 smooth, 4 mostly
 * zero with a few non-zero tiles. */
static int32_t *make_block(test_rng *r, uint32_t w, uint32_t h, size_t stride, int kind)
{
    int32_t *v = calloc(stride * h + 1, sizeof *v);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int32_t a = 0;
            switch (kind) {
            case 0: a = test_rng_range(r, -3, 3); break;
            case 1: a = test_rng_u32(r) % 17 == 0 ? test_rng_range(r, -40, 40) : 0; break;
            case 2: a = test_rng_range(r, -70000, 70000); break;
            case 3: a = (int32_t)(x * 3 + y * 5) + 1000; break;
            default: a = ((x / BCT_W + y / BCT_H) % 3 == 0 && x % 7 == 0) ? 5 : 0; break;
            }
            v[y * stride + x] = a;
        }
    return v;
}

static coded code_block(const bc_block *b)
{
    coded c;
    static bc_freq freq;
    memset(freq, 0, sizeof freq);
    uint32_t *scratch = malloc(bc_scratch_elems() * sizeof(uint32_t));
    uint16_t *tok = malloc(bct_token_bound(b->w, b->h) * sizeof *tok);
    const size_t ntok = bct_symbolize(b, freq, tok, scratch);
    assert_true(ntok <= bct_token_bound(b->w, b->h));
    uint8_t len[BC_NTAB][BC_NSYM], used[BC_NTAB];
    for (unsigned t = 0; t < BC_NTAB; t++) {
        huf_build_lengths(freq[t], BC_NSYM, HUF_MAX_LEN, len[t]);
        huf_enc_build(&c.enc[t], len[t], BC_NSYM);
        used[t] = 0;
        for (unsigned s = 0; s < BC_NSYM; s++) used[t] |= len[t][s] != 0;
    }
    assert_int_equal(bc_dectab_build(&c.dec, len, used, NULL), WC_OK);
    const size_t cap = bct_bound(b->w, b->h);
    c.buf = malloc(cap);
    c.size = bct_emit(b, tok, ntok, c.enc, c.buf, cap, scratch);
    assert_true(c.size != SIZE_MAX && c.size <= cap);
    /* Too small a buffer is refused, never overrun. */
    if (c.size > 0) {
        uint8_t *small = malloc(c.size - 1 + 1);
        assert_int_equal(bct_emit(b, tok, ntok, c.enc, small, c.size - 1, scratch), SIZE_MAX);
        free(small);
    }
    free(tok);
    free(scratch);
    return c;
}

static wc_status decode(const coded *c, const uint8_t *buf, size_t size, const bc_block *ob,
                        wc_err *e)
{
    e->msg[0] = 0; /* wc_fail keeps a first message */
    uint32_t *scratch = malloc(bc_scratch_elems() * sizeof(uint32_t));
    const wc_status s = bct_decode(buf, size, ob, &c->dec, scratch, e);
    free(scratch);
    return s;
}

static void check_roundtrip(uint32_t w, uint32_t h, int kind, int predict, int orient,
                            uint32_t run_max, test_rng *r)
{
    const size_t stride = w + 3;
    int32_t *v = make_block(r, w, h, stride, kind);
    bc_block b = {v, w, h, stride, predict, orient, run_max};
    coded c = code_block(&b);
    int32_t *out = malloc((stride * h + 1) * sizeof *out);
    memset(out, 0x5A, (stride * h + 1) * sizeof *out); /* all of it must be written */
    bc_block ob = {out, w, h, stride, predict, orient, run_max};
    wc_err e = {{0}};
    if (decode(&c, c.buf, c.size, &ob, &e) != WC_OK)
        fail_msg("%ux%u kind %d: %s", w, h, kind, e.msg);
    for (uint32_t y = 0; y < h; y++) assert_memory_equal(out + y * stride, v + y * stride, w * 4);

    /* Each non-empty tile's sub-stream is block_coder.c's coding of it. */
    const uint32_t n = bct_count(w, h);
    uint32_t start[BCT_MAX], len[BCT_MAX];
    assert_int_equal(bct_streams(c.buf, c.size, n, start, len, NULL), WC_OK);
    for (uint32_t t = 0; t < n; t++) {
        const bc_block k = bct_tile(&b, t);
        int zero = 1;
        for (uint32_t y = 0; y < k.h; y++)
            for (uint32_t x = 0; x < k.w; x++) zero &= k.data[y * k.stride + x] == 0;
        assert_int_equal(len[t] == 0, zero);
        if (zero) continue;
        uint8_t *alone = malloc(bc_bound(k.w, k.h));
        uint32_t *scratch = malloc(bc_scratch_elems() * sizeof(uint32_t));
        const size_t m = bc_encode(&k, c.enc, alone, bc_bound(k.w, k.h), scratch);
        assert_int_equal(m, (len[t] + 7) / 8);
        bitr rd;
        bitr_init(&rd, c.buf, c.size);
        for (uint32_t s = start[t]; s > 0;) { /* skip to the sub-stream */
            const unsigned q = s < 32 ? s : 32;
            bitr_get(&rd, q);
            s -= q;
        }
        for (uint32_t i = 0; i < len[t]; i++)
            assert_int_equal(bitr_get(&rd, 1), (alone[i / 8] >> (i % 8)) & 1u);
        free(alone);
        free(scratch);
    }

    /* Shorter or longer payloads fail, with a message. */
    for (size_t cut = 0; cut < c.size; cut += 1 + c.size / 7) {
        e.msg[0] = 0;
        assert_int_not_equal(decode(&c, c.buf, cut, &ob, &e), WC_OK);
        assert_true(e.msg[0] != 0);
    }
    uint8_t *longer = calloc(c.size + 1, 1);
    memcpy(longer, c.buf, c.size);
    assert_int_equal(decode(&c, longer, c.size + 1, &ob, &e), WC_ERR_CORRUPT);
    /* Flipped bits anywhere: an error or other values, never a crash. */
    for (size_t bit = 0; bit < c.size * 8; bit += 1 + c.size / 3) {
        memcpy(longer, c.buf, c.size);
        longer[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        (void)decode(&c, longer, c.size, &ob, &e);
    }
    free(longer);
    free(out);
    free(v);
    free(c.buf);
}

static void test_shapes(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 12345);
    static const uint32_t sides[] = {1, 2, 3, 7, 16, 17, 31, 32, 33, 47, 64, 97, 127, 128};
    const size_t ns = sizeof sides / sizeof sides[0];
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < ns; j++) {
            const int kind = (int)((i + j) % 5);
            check_roundtrip(sides[i], sides[j], kind, kind == 3, (int)(i % 3), (i + j) % 2 ? 1 : 3,
                            &r);
        }
    for (int kind = 0; kind < 5; kind++)
        for (int predict = 0; predict < 2; predict++)
            check_roundtrip(128, 128, kind, predict, kind % 3, 3, &r);
}

static void test_all_zero_block(void **state)
{
    (void)state;
    int32_t v[128 * 128] = {0};
    bc_block b = {v, 128, 128, 128, 0, BC_ISO, 3};
    coded c = code_block(&b);
    assert_int_equal(c.size, 1); /* width 0 and no sub-stream */
    assert_int_equal(c.buf[0], 0);
    free(c.buf);
}

/* A payload built by hand: width, n lengths, then bits. */
static size_t forge(uint8_t *buf, size_t cap, unsigned width, uint32_t n, const uint32_t *len,
                    size_t extra_bits)
{
    bitw w;
    bitw_init(&w, buf, cap);
    bitw_put(&w, width, BCT_WIDTH_BITS);
    for (uint32_t t = 0; t < n; t++) bitw_put(&w, len[t] & ((1u << width) - 1), width);
    for (; extra_bits > 0; extra_bits--) bitw_put(&w, 1, 1);
    return bitw_flush(&w);
}

static void test_damaged_lengths(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 7);
    int32_t *v = make_block(&r, 64, 32, 64, 0);
    bc_block b = {v, 64, 32, 64, 0, BC_ISO, 3}; /* 4 tiles */
    coded c = code_block(&b);
    int32_t out[64 * 32];
    bc_block ob = {out, 64, 32, 64, 0, BC_ISO, 3};
    uint8_t buf[64];
    wc_err e = {{0}};
    const uint32_t len[4] = {3, 1, 2, 9};
    size_t n = forge(buf, sizeof buf, 17, 0, len, 0);
    assert_int_equal(decode(&c, buf, n, &ob, &e), WC_ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "tile lengths of 17 bits"));
    n = forge(buf, sizeof buf, 16, 0, len, 0); /* 5 + 64 header bits, 1 byte */
    assert_int_equal(decode(&c, buf, n, &ob, &e), WC_ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "run past the block"));
    n = forge(buf, sizeof buf, 5, 4, len, 15); /* 9 needs 4 bits, not 5 */
    assert_int_equal(decode(&c, buf, n, &ob, &e), WC_ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "where 4 would do"));
    n = forge(buf, sizeof buf, 4, 4, len, 10); /* 15 bits of data for 3+1+2+9 */
    assert_int_equal(decode(&c, buf, n, &ob, &e), WC_ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "tile 3: its 9 bits run past"));
    n = forge(buf, sizeof buf, 4, 4, len, 15 + 8); /* a spare byte */
    assert_int_equal(decode(&c, buf, n, &ob, &e), WC_ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "unused bytes at the end of the block"));
    /* Lengths that add up but cut the sub-streams elsewhere: a tile's
     * error, named by the first tile that fails. */
    uint32_t start[4], real[4];
    assert_int_equal(bct_streams(c.buf, c.size, 4, start, real, NULL), WC_OK);
    uint8_t *moved = malloc(c.size);
    memcpy(moved, c.buf, c.size);
    const unsigned width = moved[0] & 31;
    /* Tile 0 one bit shorter, tile 1 one longer: same total. */
    bitw w;
    bitw_init(&w, moved, c.size);
    bitw_put(&w, width, BCT_WIDTH_BITS);
    bitw_put(&w, real[0] - 1, width);
    bitw_put(&w, real[1] + 1, width);
    bitw_put(&w, real[2], width);
    bitw_put(&w, real[3], width);
    const size_t head = (BCT_WIDTH_BITS + 4 * width) / 8;
    uint8_t keep = moved[head];
    bitw_flush(&w);
    const unsigned hb = (BCT_WIDTH_BITS + 4 * width) % 8;
    moved[head] = (uint8_t)((moved[head] & ((1u << hb) - 1)) | (keep & ~((1u << hb) - 1)));
    assert_int_equal(decode(&c, moved, c.size, &ob, &e), WC_ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "tile 0: "));
    free(moved);
    free(c.buf);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_all_zero_block),
        cmocka_unit_test(test_damaged_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
