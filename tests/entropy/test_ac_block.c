/*
 * test_ac_block.c -- entropy 3 (ac_block.h, ac_model.h, range_coder.h):
 * the range coder against a direct reference of its probabilities, exact
 * round trips over every block shape the layout makes (1x1 .. 128x128,
 * 1xN, Nx1, odd and prime sides), every value an int32 holds, predicted
 * and plain bands, all orientations; blocks of zeros cost no bytes; a
 * buffer one byte short is refused, never overrun; and every truncation
 * and every single bit flip of a payload gives WC_ERR_CORRUPT or values
 * inside the block's rectangle, with reads bounded by the payload (each
 * damaged payload lies in a buffer of exactly its size, for ASan).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ac_block.h"
#include "ac_model.h"
#include "test_support.h"

/* Values of a kind: 0 dense small, 1 sparse, 2 large, 3 smooth ramp, 4
 * extremes of int32, 5 all zero. */
static int32_t *make_block(test_rng *r, uint32_t w, uint32_t h, size_t stride, int kind)
{
    int32_t *v = calloc(stride * h + 1, sizeof *v);
    static const int32_t extremes[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, -1, 1, 0, 2, -2};
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int32_t a = 0;
            switch (kind) {
            case 0: a = test_rng_range(r, -3, 3); break;
            case 1: a = test_rng_u32(r) % 17 == 0 ? test_rng_range(r, -40, 40) : 0; break;
            case 2: a = test_rng_range(r, -70000, 70000); break;
            case 3: a = (int32_t)(x * 3 + y * 5) + 1000; break;
            case 4: a = extremes[test_rng_u32(r) % 8]; break;
            default: break;
            }
            v[y * stride + x] = a;
        }
    return v;
}

static size_t encode(const bc_block *b, uint8_t **out)
{
    void *scratch = malloc(ac_scratch_bytes());
    const size_t cap = ac_bound(b->w, b->h);
    *out = malloc(cap);
    const size_t n = ac_encode(b, *out, cap, scratch);
    assert_true(n != SIZE_MAX && n <= cap);
    if (n > 0) {
        /* One byte short: refused, and nothing written past the buffer. */
        uint8_t *small = malloc(n - 1 + 1);
        assert_int_equal(ac_encode(b, small, n - 1, scratch), SIZE_MAX);
        free(small);
        /* The encoder drops trailing zero bytes. */
        assert_int_not_equal((*out)[n - 1], 0);
    }
    free(scratch);
    return n;
}

/* Decodes from a copy of exactly size bytes into a plane whose cells
 * outside the block hold a guard value; checks the guards. */
static wc_status decode_copy(const uint8_t *buf, size_t size, const bc_block *ob, size_t cells,
                             wc_err *e)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (size) memcpy(copy, buf, size);
    void *scratch = malloc(ac_scratch_bytes());
    e->msg[0] = 0;
    const wc_status s = ac_decode(copy, size, ob, scratch, e);
    free(scratch);
    free(copy);
    for (size_t i = 0; i < cells; i++) {
        const size_t y = i / ob->stride, x = i % ob->stride;
        if (y >= ob->h || x >= ob->w) assert_int_equal(ob->data[i], 0x5A5A5A5A);
    }
    return s;
}

static void check_block(uint32_t w, uint32_t h, int kind, int predict, int orient, test_rng *r,
                        int damage)
{
    const size_t stride = w + 3, cells = stride * h + 1;
    int32_t *v = make_block(r, w, h, stride, kind);
    bc_block b = {v, w, h, stride, predict, orient, 0};
    uint8_t *buf;
    const size_t n = encode(&b, &buf);
    if (kind == 5) assert_int_equal(n, 0);
    int32_t *out = malloc(cells * sizeof *out);
    memset(out, 0x5A, cells * sizeof *out);
    bc_block ob = {out, w, h, stride, predict, orient, 0};
    wc_err e = {{0}};
    if (decode_copy(buf, n, &ob, cells, &e) != WC_OK)
        fail_msg("%ux%u kind %d predict %d orient %d: %s", w, h, kind, predict, orient, e.msg);
    for (uint32_t y = 0; y < h; y++) assert_memory_equal(out + y * stride, v + y * stride, w * 4);

    if (damage) {
        /* Every truncation, every bit flip: an error with a message, or
         * some values in the rectangle (decode_copy checks the guards). */
        uint8_t *bad = malloc(n ? n : 1);
        for (size_t cut = 0; cut < n; cut++) {
            wc_status s = decode_copy(buf, cut, &ob, cells, &e);
            assert_true(s == WC_OK || (s == WC_ERR_CORRUPT && e.msg[0]));
        }
        for (size_t bit = 0; bit < n * 8; bit++) {
            memcpy(bad, buf, n);
            bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            wc_status s = decode_copy(bad, n, &ob, cells, &e);
            assert_true(s == WC_OK || (s == WC_ERR_CORRUPT && e.msg[0]));
        }
        free(bad);
        /* A payload ending in a zero byte is no encoder's. */
        uint8_t *longer = calloc(n + 1, 1);
        if (n) memcpy(longer, buf, n);
        assert_int_equal(decode_copy(longer, n + 1, &ob, cells, &e), WC_ERR_CORRUPT);
        free(longer);
    }
    free(out);
    free(buf);
    free(v);
}

static void test_every_shape(void **state)
{
    (void)state;
    static const uint32_t sides[][2] = {{1, 1},   {1, 17},  {17, 1},   {2, 2},    {7, 5},
                                        {31, 13}, {37, 61}, {64, 64},  {127, 3},  {3, 127},
                                        {128, 1}, {1, 128}, {97, 128}, {128, 128}};
    test_rng r;
    test_rng_seed(&r, 31);
    for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++)
        for (int kind = 0; kind < 6; kind++)
            for (int predict = 0; predict < 2; predict++)
                check_block(sides[s][0], sides[s][1], kind, predict, (int)(s + kind) % 3, &r, 0);
}

static void test_damage(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 32);
    static const uint32_t sides[][2] = {{1, 1}, {5, 3}, {16, 16}, {13, 7}};
    for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++)
        for (int kind = 0; kind < 5; kind++)
            check_block(sides[s][0], sides[s][1], kind, kind == 3, kind % 3, &r, 1);
}

/* The range coder alone: bits of known probabilities through a few
 * contexts and direct bits come back; the size is within a few bytes of
 * the information the reference model (the same adaptation, done here
 * directly in doubles) says they carry. */
static void test_range_coder(void **state)
{
    (void)state;
    enum { N = 20000 };
    static uint8_t buf[4 * N];
    static unsigned bits[N], ctxs[N];
    static uint32_t raw[N];
    test_rng r;
    test_rng_seed(&r, 33);
    ac_prob enc_ctx[4], dec_ctx[4];
    ac_prob_init(enc_ctx, 4);
    ac_prob_init(dec_ctx, 4);
    static const double p1[4] = {0.01, 0.2, 0.5, 0.97};
    double info = 0, pz[4] = {0.5, 0.5, 0.5, 0.5};
    unsigned cnt[4] = {0, 0, 0, 0};
    ac_enc e;
    ac_enc_init(&e, buf, sizeof buf);
    for (int i = 0; i < N; i++) {
        ctxs[i] = test_rng_u32(&r) % 4;
        bits[i] = test_rng_unit(&r) < p1[ctxs[i]];
        raw[i] = test_rng_u32(&r) & 0x1FF;
        /* The reference: p(0) in doubles, moved by 2^-rate toward the bit. */
        const unsigned c = ctxs[i];
        info -= log2(bits[i] ? 1 - pz[c] : pz[c]);
        unsigned rate = 1;
        for (unsigned v = cnt[c] + 1; v > 1 && rate < AC_RATE_MAX; v >>= 1) rate++;
        pz[c] += ((bits[i] ? 0.0 : 1.0) - pz[c]) / (double)(1u << rate);
        cnt[c]++;
        ac_encode_bit(&e, &enc_ctx[c], bits[i]);
        if (i % 16 == 0) ac_encode_direct(&e, raw[i], 9);
    }
    const size_t n = ac_enc_finish(&e);
    info += 9.0 * ((N + 15) / 16);
    assert_true(n != SIZE_MAX);
    assert_true((double)n * 8 < info * 1.002 + 64);
    assert_true((double)n * 8 > info * 0.998 - 64);
    ac_dec d;
    ac_dec_init(&d, buf, n);
    for (int i = 0; i < N; i++) {
        assert_int_equal(ac_decode_bit(&d, &dec_ctx[ctxs[i]]), bits[i]);
        if (i % 16 == 0) assert_int_equal(ac_decode_direct(&d, 9), raw[i]);
    }
    assert_true(ac_dec_consistent(&d));
    assert_true(d.pos >= n);
}

/* The context buckets from their definition: s itself below 2, then
 * 2 (L - 1) + the bit below the leading one (L = s's bit length). */
static void test_buckets(void **state)
{
    (void)state;
    for (uint32_t s = 0; s < (1u << 25); s += 1 + s / 64) {
        unsigned want = s;
        if (s >= 2) {
            unsigned L = 0;
            while ((s >> L) != 0) L++;
            want = 2 * (L - 1) + ((s >> (L - 2)) & 1u);
        }
        if (want > AC_NB - 1) want = AC_NB - 1;
        assert_int_equal(ac_bucket(s), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_coder),
        cmocka_unit_test(test_buckets),
        cmocka_unit_test(test_every_shape),
        cmocka_unit_test(test_damage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
