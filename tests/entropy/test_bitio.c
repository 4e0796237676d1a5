/* test_bitio.c -- the LSB-first bit writer and reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bitio.h"
#include "test_support.h"

#define NVALS 20000

static uint32_t mask_bits(uint32_t v, unsigned n) { return n == 32 ? v : v & ((1u << n) - 1); }

/* Random widths 0..32, written then read back, with exact sizes. */
static void test_random_roundtrip(void **state)
{
    (void)state;
    static uint32_t val[NVALS];
    static uint8_t wid[NVALS];
    static uint8_t buf[NVALS * 4 + 8];
    test_rng rng;
    test_rng_seed(&rng, 1);
    bitw w;
    bitw_init(&w, buf, sizeof buf);
    uint64_t total = 0;
    for (int i = 0; i < NVALS; i++) {
        wid[i] = (uint8_t)test_rng_range(&rng, 0, 32);
        val[i] = mask_bits(test_rng_u32(&rng) ^ test_rng_u32(&rng) << 16, wid[i]);
        bitw_put(&w, val[i], wid[i]);
        total += wid[i];
    }
    size_t size = bitw_flush(&w);
    assert_false(w.overflow);
    assert_int_equal(size, (total + 7) / 8);

    bitr r;
    bitr_init(&r, buf, size);
    for (int i = 0; i < NVALS; i++) assert_int_equal(bitr_get(&r, wid[i]), val[i]);
    assert_false(bitr_overrun(&r));
    /* The padding bits of the last byte are zero and still inside. */
    assert_int_equal(bitr_get(&r, (unsigned)(size * 8 - total)), 0);
    assert_false(bitr_overrun(&r));
    assert_int_equal(bitr_get(&r, 1), 0);
    assert_true(bitr_overrun(&r));
}

/* Past the end: zeros, and overrun only once a fake bit is consumed. Sizes
 * around 8 cover the switch from the 8-byte load to the byte loop. */
static void test_read_past_end(void **state)
{
    (void)state;
    for (size_t size = 0; size <= 20; size++) {
        uint8_t buf[20];
        memset(buf, 0xFF, sizeof buf);
        bitr r;
        bitr_init(&r, buf, size);
        for (size_t i = 0; i < size * 8; i++) {
            assert_int_equal(bitr_get(&r, 1), 1);
            assert_false(bitr_overrun(&r));
        }
        assert_int_equal(bitr_peek(&r, 32), 0);
        assert_false(bitr_overrun(&r));
        assert_int_equal(bitr_get(&r, 3), 0);
        assert_true(bitr_overrun(&r));
        for (int k = 0; k < 10; k++) assert_int_equal(bitr_get(&r, 32), 0);
        assert_true(bitr_overrun(&r));
    }
}

/* A wide read straddling the end returns the real bits then zeros. */
static void test_read_straddling_end(void **state)
{
    (void)state;
    const uint8_t buf[3] = {0x12, 0x34, 0x56};
    bitr r;
    bitr_init(&r, buf, sizeof buf);
    assert_int_equal(bitr_get(&r, 4), 0x2);
    assert_int_equal(bitr_get(&r, 32), 0x56341);
    assert_true(bitr_overrun(&r));
}

static void test_flush_byte_counts(void **state)
{
    (void)state;
    for (unsigned bits = 0; bits <= 200; bits++) {
        uint8_t buf[32];
        memset(buf, 0xAA, sizeof buf);
        bitw w;
        bitw_init(&w, buf, sizeof buf);
        for (unsigned i = 0; i < bits; i++) bitw_put(&w, 1, 1);
        size_t size = bitw_flush(&w);
        assert_int_equal(size, (bits + 7) / 8);
        assert_false(w.overflow);
        for (unsigned i = 0; i < bits / 8; i++) assert_int_equal(buf[i], 0xFF);
        if (bits % 8) assert_int_equal(buf[bits / 8], (1u << (bits % 8)) - 1);
        if (size < sizeof buf) assert_int_equal(buf[size], 0xAA);
    }
}

/* Too small a buffer sets the flag and never writes past cap. */
static void test_writer_overflow(void **state)
{
    (void)state;
    for (size_t cap = 0; cap < 12; cap++) {
        uint8_t buf[32];
        memset(buf, 0xAA, sizeof buf);
        bitw w;
        bitw_init(&w, buf, cap);
        for (int i = 0; i < 3; i++) bitw_put(&w, 0x12345678, 32);
        bitw_put(&w, 0x5, 3);
        size_t size = bitw_flush(&w);
        assert_int_equal(size, 13);
        assert_true(w.overflow);
        for (size_t i = cap; i < sizeof buf; i++) assert_int_equal(buf[i], 0xAA);
    }
    uint8_t buf[13];
    bitw w;
    bitw_init(&w, buf, sizeof buf);
    for (int i = 0; i < 3; i++) bitw_put(&w, 0x12345678, 32);
    bitw_put(&w, 0x5, 3);
    assert_int_equal(bitw_flush(&w), 13);
    assert_false(w.overflow);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_roundtrip),    cmocka_unit_test(test_read_past_end),
        cmocka_unit_test(test_read_straddling_end), cmocka_unit_test(test_flush_byte_counts),
        cmocka_unit_test(test_writer_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
