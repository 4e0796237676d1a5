/*
 * test_block_coder.c -- the context-modelled block coder on its own:
 * round trips of random blocks of every shape and statistics, the token
 * path (bc_symbolize + bc_emit) giving exactly bc_encode's bytes, and
 * refusal of truncated or padded payloads; two blocks decoded in turns
 * (bc_decode_pair) as one at a time; the context table against its
 * definition.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "block_coder.h"
#include "ctx_lut.h"
#include "test_support.h"

typedef struct coded {
    uint8_t *buf;
    size_t size;
    bc_dectab *dec;
} coded;

/* Fills a w x h block (stride w + 3) with values of the given kind. */
static int32_t *make_block(test_rng *r, uint32_t w, uint32_t h, int kind)
{
    size_t stride = w + 3;
    int32_t *v = calloc(stride * h, sizeof *v);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int32_t a;
            switch (kind) {
            case 0: a = test_rng_range(r, -3, 3); break; /* dense, small */
            case 1:
                a = (test_rng_u32(r) % 17 == 0) ? test_rng_range(r, -40, 40) : 0;
                break;                                           /* sparse */
            case 2: a = test_rng_range(r, -70000, 70000); break; /* large */
            case 3: a = (int32_t)(x * 3 + y * 5) + 1000; break;  /* smooth (LL) */
            default: a = (x + y) % 7 == 0 ? INT32_MIN : (x % 5 == 0 ? INT32_MAX : 0); break;
            }
            v[y * stride + x] = a;
        }
    return v;
}

/* Counts, builds tables, codes with bc_encode and with the token path,
 * checks both give the same bytes, and returns the payload and decoder. */
static coded code_block(const bc_block *b)
{
    static bc_freq freq;
    memset(freq, 0, sizeof freq);
    uint32_t *scratch = malloc(bc_scratch_elems() * sizeof(uint32_t));
    uint16_t *tok = malloc(bc_token_bound(b->w, b->h) * sizeof *tok);
    size_t ntok = bc_symbolize(b, freq, tok, scratch);
    assert_true(ntok <= bc_token_bound(b->w, b->h));
    bc_freq again;
    memset(again, 0, sizeof again);
    bc_count(b, again, scratch);
    assert_memory_equal(freq, again, sizeof freq);

    huf_enc enc[BC_NTAB];
    coded c = {malloc(bc_bound(b->w, b->h)), 0, calloc(1, sizeof(bc_dectab))};
    uint8_t len[BC_NTAB][BC_NSYM], used[BC_NTAB];
    for (unsigned t = 0; t < BC_NTAB; t++) {
        huf_build_lengths(freq[t], BC_NSYM, HUF_MAX_LEN, len[t]);
        huf_enc_build(&enc[t], len[t], BC_NSYM);
        used[t] = 0;
        for (unsigned s = 0; s < BC_NSYM; s++) used[t] |= len[t][s] != 0;
    }
    assert_int_equal(bc_dectab_build(c.dec, len, used, NULL), WC_OK);
    c.size = bc_encode(b, enc, c.buf, bc_bound(b->w, b->h), scratch);
    assert_true(c.size != SIZE_MAX);
    uint8_t *other = malloc(bc_bound(b->w, b->h));
    size_t n = bc_emit(b, tok, ntok, enc, other, bc_bound(b->w, b->h), scratch);
    assert_int_equal(n, c.size);
    assert_memory_equal(other, c.buf, n);
    free(other);
    free(tok);
    free(scratch);
    return c;
}

static void check_roundtrip(uint32_t w, uint32_t h, int kind, int predict, int orient,
                            uint32_t run_max, test_rng *r)
{
    int32_t *v = make_block(r, w, h, kind);
    bc_block b = {v, w, h, w + 3, predict, orient, run_max};
    coded c = code_block(&b);
    int32_t *out = calloc((size_t)(w + 3) * h, sizeof *out);
    bc_block ob = {out, w, h, w + 3, predict, orient, run_max};
    uint32_t *scratch = malloc(bc_scratch_elems() * sizeof(uint32_t));
    wc_err e = {{0}};
    wc_status s = bc_decode(c.buf, c.size, &ob, c.dec, scratch, &e);
    if (s != WC_OK) fail_msg("%ux%u kind %d: %s", w, h, kind, e.msg);
    for (uint32_t y = 0; y < h; y++) assert_memory_equal(out + y * (w + 3), v + y * (w + 3), w * 4);
    /* Any shorter payload fails; so does one with a byte too many. */
    if (c.size > 0) {
        e.msg[0] = 0;
        assert_int_not_equal(bc_decode(c.buf, c.size - 1, &ob, c.dec, scratch, &e), WC_OK);
    }
    uint8_t *longer = malloc(c.size + 1);
    memcpy(longer, c.buf, c.size);
    longer[c.size] = 0;
    assert_int_equal(bc_decode(longer, c.size + 1, &ob, c.dec, scratch, &e), WC_ERR_CORRUPT);

    /* In a pair, beside itself and beside a block of another shape and
     * length (a dense 5x3 one), in either order. */
    int32_t *v2 = make_block(r, 5, 3, 0);
    bc_block b2 = {v2, 5, 3, 8, 0, BC_ISO, 1};
    coded c2 = code_block(&b2);
    int32_t *out2 = calloc((size_t)8 * 3, sizeof *out2);
    bc_block ob2 = {out2, 5, 3, 8, 0, BC_ISO, 1};
    int32_t *out3 = calloc((size_t)(w + 3) * h, sizeof *out3);
    bc_block ob3 = {out3, w, h, w + 3, predict, orient, run_max};
    uint32_t *scratch2 = calloc(bc_scratch_elems(), sizeof(uint32_t));
    for (int order = 0; order < 3; order++) {
        const bc_block *other = order == 0 ? &ob3 : &ob2;
        const coded *oc = order == 0 ? &c : &c2;
        const uint8_t *src[2] = {c.buf, oc->buf};
        size_t size[2] = {c.size, oc->size};
        const bc_block *bp[2] = {&ob, other};
        const bc_dectab *T[2] = {c.dec, oc->dec};
        if (order == 2) { /* swapped */
            src[0] = c2.buf, src[1] = c.buf, size[0] = c2.size, size[1] = c.size;
            bp[0] = &ob2, bp[1] = &ob, T[0] = c2.dec, T[1] = c.dec;
        }
        uint32_t *const sc[2] = {scratch, scratch2};
        memset(out, 0, (size_t)(w + 3) * h * sizeof *out);
        s = bc_decode_pair(src, size, bp, T, sc, &e);
        if (s != WC_OK) fail_msg("pair %d, %ux%u kind %d: %s", order, w, h, kind, e.msg);
        for (uint32_t y = 0; y < h; y++)
            assert_memory_equal(out + y * (w + 3), v + y * (w + 3), w * 4);
        const int32_t *o2 = order == 0 ? out3 : out2, *ref2 = order == 0 ? v : v2;
        const uint32_t w2 = order == 0 ? w : 5, h2 = order == 0 ? h : 3,
                       st2 = order == 0 ? w + 3 : 8;
        for (uint32_t y = 0; y < h2; y++) assert_memory_equal(o2 + y * st2, ref2 + y * st2, w2 * 4);
        /* Damage to either block fails the pair. */
        if (c.size > 0) {
            size[order == 2 ? 1 : 0]--;
            assert_int_not_equal(bc_decode_pair(src, size, bp, T, sc, &e), WC_OK);
            size[order == 2 ? 1 : 0]++;
        }
        const int other_slot = order == 2 ? 0 : 1;
        const uint8_t *keep = src[other_slot];
        uint8_t *pad = malloc(size[other_slot] + 1);
        memcpy(pad, keep, size[other_slot]);
        pad[size[other_slot]] = 0;
        src[other_slot] = pad;
        size[other_slot]++;
        assert_int_equal(bc_decode_pair(src, size, bp, T, sc, &e), WC_ERR_CORRUPT);
        free(pad);
    }
    free(scratch2);
    free(out3);
    free(out2);
    free(c2.buf);
    free(c2.dec);
    free(v2);
    free(longer);
    free(scratch);
    free(out);
    free(c.buf);
    free(c.dec);
    free(v);
}

static void test_shapes_and_statistics(void **state)
{
    (void)state;
    static const uint32_t sides[][2] = {{1, 1},  {1, 37},  {41, 1},    {2, 3},
                                        {13, 7}, {64, 64}, {128, 128}, {127, 31}};
    test_rng r;
    test_rng_seed(&r, 11);
    for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++)
        for (int kind = 0; kind < 5; kind++)
            for (int orient = BC_ISO; orient <= BC_HORZ; orient++)
                for (uint32_t run_max = 0; run_max <= 3; run_max += 1 + (kind & 1))
                    check_roundtrip(sides[s][0], sides[s][1], kind, kind == 3, orient, run_max, &r);
}

static void test_all_zero_block_is_tiny(void **state)
{
    (void)state;
    int32_t *v = calloc(64 * 64, sizeof *v);
    bc_block b = {v, 64, 64, 64, 0, BC_ISO, 3};
    coded c = code_block(&b);
    /* One run of 4096 covers the block; its class is the only symbol (a
     * zero-bit code), leaving the class's 10 raw bits: 2 bytes. */
    assert_int_equal(c.size, 2);
    free(c.buf);
    free(c.dec);
    free(v);
}

static void test_unused_table_is_corrupt(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 12);
    int32_t *v = make_block(&r, 16, 16, 0);
    bc_block b = {v, 16, 16, 19, 0, BC_ISO, 0};
    coded c = code_block(&b);
    bc_dectab *empty = calloc(1, sizeof *empty); /* no table is used */
    uint32_t *scratch = malloc(bc_scratch_elems() * sizeof(uint32_t));
    wc_err e = {{0}};
    assert_int_equal(bc_decode(c.buf, c.size, &b, empty, scratch, &e), WC_ERR_CORRUPT);
    assert_true(strstr(e.msg, "table") != NULL);
    free(scratch);
    free(empty);
    free(c.buf);
    free(c.dec);
    free(v);
}

/* ctx_lut.h against the definition of the context buckets: s below 2 is
 * its own bucket, then 2k + the bit below the leading one, at most 23 (so
 * every s from 3072 up, which the table folds to 4095, is in bucket 23). */
static void test_context_table(void **state)
{
    (void)state;
    for (uint32_t s = 0; s < (1u << 26); s += s < BC_CTX_LUT_SIZE ? 1 : 997) {
        unsigned want = s;
        if (s >= 2) {
            unsigned k = 31u - (unsigned)__builtin_clz(s);
            want = 2 * k + ((s >> (k - 1)) & 1);
            if (want > BC_NCTX - 1) want = BC_NCTX - 1;
        }
        unsigned got = bc_ctx_lut[s < BC_CTX_LUT_SIZE ? s : BC_CTX_LUT_SIZE - 1];
        if (got != want) fail_msg("s = %u: table %u, definition %u", s, got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_and_statistics),
        cmocka_unit_test(test_all_zero_block_is_tiny),
        cmocka_unit_test(test_unused_table_is_corrupt),
        cmocka_unit_test(test_context_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
