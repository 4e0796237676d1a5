/*
 * test_dectab.c -- bc_dectab_build against the builder it replaced: the
 * old one cleared the whole class and derived every one of a table's
 * BC_FAST_SIZE entries from huf_dec's larger table, itself written a
 * code index at a time (the old huf_dec_build); the new ones grow both
 * tables by doubling and clear only unused tables. On random
 * histograms (dense, sparse, one symbol, skewed enough for 15-bit codes,
 * huge magnitude classes) and random used masks, built over memory full
 * of garbage, every byte a decoder reads must equal the old builder's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "block_coder.h"
#include "test_support.h"

/* The magnitude classes (block_coder.c, FORMAT.md): smallest magnitude
 * and raw bits; each class ends where the next begins. */
static uint32_t class_base[BC_NSYM];
static uint8_t class_bits[BC_NSYM];

static void classes_init(void)
{
    static const uint8_t bits[BC_NSYM] = {
        0,  0,  0,  0,  0,  0,  0,  0,  1,  1,  1,  1,  2,  2,  2,  2,  3,  3,  3,  3,  4, 4,  4,
        4,  5,  5,  5,  5,  6,  6,  6,  6,  7,  7,  7,  7,  8,  8,  8,  8,  9,  9,  9,  9, 10, 10,
        10, 10, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    uint64_t base = 0;
    for (unsigned s = 0; s < BC_NSYM; s++) {
        class_bits[s] = bits[s];
        class_base[s] = (uint32_t)base;
        base += (uint64_t)1 << bits[s];
    }
    assert_true(base == ((uint64_t)1 << 32)); /* the classes tile uint32 */
}

static unsigned old_reverse(unsigned code, unsigned n)
{
    unsigned r = 0;
    for (unsigned i = 0; i < n; i++) {
        r = (r << 1) | (code & 1);
        code >>= 1;
    }
    return r;
}

/* The old huf_dec_build on valid lengths (its checks left out): every
 * index of every code written one by one. */
static void old_huf_dec(huf_dec *dec, const uint8_t *len, unsigned nsym)
{
    unsigned count[HUF_MAX_LEN + 1] = {0}, used = 0, last = 0;
    for (unsigned s = 0; s < nsym; s++) {
        count[len[s]]++;
        if (len[s]) used++, last = s;
    }
    memset(dec, 0, sizeof *dec);
    if (used == 1) {
        dec->single = 1;
        dec->single_sym = (uint8_t)last;
        return;
    }
    unsigned offs[HUF_MAX_LEN + 1];
    offs[1] = 0;
    for (unsigned l = 1; l < HUF_MAX_LEN; l++) offs[l + 1] = offs[l] + count[l];
    for (unsigned s = 0; s < nsym; s++)
        if (len[s] != 0) dec->sorted[offs[len[s]]++] = (uint8_t)s;
    unsigned code = 0, idx = 0;
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        dec->count[l] = (uint16_t)count[l];
        for (unsigned k = 0; k < count[l]; k++, idx++, code++) {
            if (l > HUF_FAST_BITS) continue;
            uint16_t e = (uint16_t)(dec->sorted[idx] | l << 8);
            for (unsigned i = old_reverse(code, l); i < (1u << HUF_FAST_BITS); i += 1u << l)
                dec->fast[i] = e;
        }
        code <<= 1;
    }
}

/* The old bc_dectab_build, verbatim but for the class tables above and
 * the old huf_dec_build. */
static void old_build(bc_dectab *T, const uint8_t (*len)[BC_NSYM], const uint8_t *used)
{
    memset(T, 0, sizeof *T);
    for (unsigned t = 0; t < BC_NTAB; t++) {
        T->used[t] = used[t] != 0;
        if (!used[t]) continue;
        old_huf_dec(&T->t[t], len[t], BC_NSYM);
        const huf_dec *d = &T->t[t];
        for (unsigned i = 0; i < BC_FAST_SIZE; i++) {
            unsigned sym = d->single ? d->single_sym : d->fast[i] & 0xFF;
            unsigned clen = d->single ? 0 : d->fast[i] >> 8;
            if ((!d->single && (clen == 0 || clen > BC_FAST_BITS)) || sym >= BC_NSYM ||
                class_base[sym] >= (1u << 22))
                continue;
            T->fast[t][i] =
                clen | (uint32_t)class_bits[sym] << 4 | BC_FAST_OK | class_base[sym] << 10;
        }
    }
}

/* A random histogram of one of several shapes. */
static void random_hist(test_rng *r, uint32_t *f)
{
    memset(f, 0, BC_NSYM * sizeof *f);
    unsigned kind = test_rng_u32(r) % 5;
    unsigned n = 1 + test_rng_u32(r) % BC_NSYM;
    for (unsigned k = 0; k < n; k++) {
        unsigned s = kind == 3 ? BC_NSYM - 1 - test_rng_u32(r) % 20 : test_rng_u32(r) % BC_NSYM;
        switch (kind) {
        case 0: f[s] += 1 + test_rng_u32(r) % 1000; break;           /* dense */
        case 1: f[s] += 1 + test_rng_u32(r) % 3; break;              /* flat */
        case 2: f[s] += 1u << (test_rng_u32(r) % 30); break;         /* skewed: long codes */
        case 3: f[s] += 1 + test_rng_u32(r) % 100; break;            /* huge classes */
        default: f[s] += k == 0 ? 1 : 1 + test_rng_u32(r) % 1000000; /* anything */
        }
    }
    if (kind == 4 && test_rng_u32(r) % 4 == 0) { /* one symbol */
        unsigned keep = test_rng_u32(r) % BC_NSYM;
        memset(f, 0, BC_NSYM * sizeof *f);
        f[keep] = 7;
    }
}

static void test_same_as_old_builder(void **state)
{
    (void)state;
    classes_init();
    test_rng r;
    test_rng_seed(&r, 13);
    bc_dectab *want = malloc(sizeof *want), *got = malloc(sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    unsigned long_codes = 0, singles = 0;
    for (int round = 0; round < 400; round++) {
        uint8_t len[BC_NTAB][BC_NSYM], used[BC_NTAB];
        for (unsigned t = 0; t < BC_NTAB; t++) {
            uint32_t f[BC_NSYM];
            random_hist(&r, f);
            huf_build_lengths(f, BC_NSYM, HUF_MAX_LEN, len[t]);
            used[t] = test_rng_u32(&r) % 3 != 0;
            unsigned n = 0;
            for (unsigned s = 0; s < BC_NSYM; s++) {
                n += len[t][s] != 0;
                long_codes += used[t] && len[t][s] > BC_FAST_BITS;
            }
            singles += used[t] && n == 1;
        }
        memset(got, round & 0xFF, sizeof *got); /* garbage the builder must not rely on */
        old_build(want, len, used);
        assert_int_equal(bc_dectab_build(got, len, used, NULL), WC_OK);
        assert_memory_equal(got->used, want->used, sizeof want->used);
        assert_memory_equal(got->fast, want->fast, sizeof want->fast);
        for (unsigned t = 0; t < BC_NTAB; t++) {
            /* Unused: the lookups read before `used` fail; used: all of it. */
            if (!used[t])
                assert_memory_equal(got->t[t].fast, want->t[t].fast, sizeof want->t[t].fast);
            else
                assert_memory_equal(&got->t[t], &want->t[t], sizeof want->t[t]);
        }
    }
    assert_true(long_codes > 0); /* the shapes reached the long way */
    assert_true(singles > 0);
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_old_builder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
