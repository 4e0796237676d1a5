/*
 * test_crc32_fast.c -- wc_crc32 against zlib's crc32 (the reference: the
 * CRC every .wcx chunk stores), for each way this CPU has (zlib, PCLMULQDQ,
 * VPCLMULQDQ): every length 0..1024 at a few alignments, every alignment
 * 0..63 at lengths that take each fold path, large buffers, continuation,
 * and the fold constants recomputed from the polynomial.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "crc32_fast.h"

/* A fixed pseudo-random buffer: xorshift, so a failure reproduces. */
static uint8_t *random_bytes(size_t n, uint32_t seed)
{
    uint8_t *p = malloc(n ? n : 1);
    assert_non_null(p);
    uint32_t x = seed | 1u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        p[i] = (uint8_t)(x >> 24);
    }
    return p;
}

static uint32_t zlib_crc(uint32_t crc, const uint8_t *p, size_t n)
{
    uLong c = crc;
    while (n) { /* zlib's uInt is 32 bits */
        const uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, k);
        p += k, n -= k;
    }
    return (uint32_t)c;
}

/* The ways to test: each this CPU has, so none is skipped silently. */
static int impls(wc_crc32_impl out[3])
{
    int n = 0;
    for (int i = WC_CRC32_ZLIB; i <= WC_CRC32_VPCLMUL; i++)
        if (wc_crc32_use((wc_crc32_impl)i) == (wc_crc32_impl)i) out[n++] = (wc_crc32_impl)i;
    wc_crc32_use(WC_CRC32_AUTO);
    return n;
}

static void test_every_length(void **state)
{
    (void)state;
    uint8_t *buf = random_bytes(1024 + 64, 1);
    wc_crc32_impl way[3];
    const int n = impls(way);
    for (int w = 0; w < n; w++) {
        wc_crc32_use(way[w]);
        for (size_t len = 0; len <= 1024; len++)
            for (size_t a = 0; a < 64; a += 7) {
                const uint32_t seed = (uint32_t)(len * 2654435761u);
                assert_int_equal(wc_crc32(0, buf + a, len), zlib_crc(0, buf + a, len));
                assert_int_equal(wc_crc32(seed, buf + a, len), zlib_crc(seed, buf + a, len));
            }
    }
    wc_crc32_use(WC_CRC32_AUTO);
    free(buf);
}

static void test_every_alignment(void **state)
{
    (void)state;
    /* Lengths around each path's edges: 64 (four lanes), 256 (four 512-bit
     * registers), the 64- and 16-byte steps after them, and some tails. */
    static const size_t lens[] = {63,  64,  65,  79,  80,  127, 128, 255, 256,
                                  257, 271, 319, 320, 511, 512, 513, 767, 4099};
    uint8_t *buf = random_bytes(4099 + 64, 2);
    wc_crc32_impl way[3];
    const int n = impls(way);
    for (int w = 0; w < n; w++) {
        wc_crc32_use(way[w]);
        for (size_t a = 0; a < 64; a++)
            for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
                assert_int_equal(wc_crc32(0xDEADBEEFu, buf + a, lens[i]),
                                 zlib_crc(0xDEADBEEFu, buf + a, lens[i]));
    }
    wc_crc32_use(WC_CRC32_AUTO);
    free(buf);
}

static void test_large_and_patterns(void **state)
{
    (void)state;
    const size_t big = (size_t)9 << 20;
    uint8_t *buf = random_bytes(big + 3, 3);
    uint8_t *same = malloc(70000);
    assert_non_null(same);
    wc_crc32_impl way[3];
    const int n = impls(way);
    for (int w = 0; w < n; w++) {
        wc_crc32_use(way[w]);
        assert_int_equal(wc_crc32(0, buf, big), zlib_crc(0, buf, big));
        assert_int_equal(wc_crc32(0, buf + 3, big), zlib_crc(0, buf + 3, big));
        assert_int_equal(wc_crc32(0, buf + 1, (1u << 20) + 13),
                         zlib_crc(0, buf + 1, (1u << 20) + 13));
        /* all zeros and all ones: the register's starting value matters */
        for (int v = 0; v < 256; v += 255) {
            memset(same, v, 70000);
            for (uint32_t crc = 0; crc < 3; crc++)
                assert_int_equal(wc_crc32(~crc, same, 70000), zlib_crc(~crc, same, 70000));
        }
    }
    wc_crc32_use(WC_CRC32_AUTO);
    free(same);
    free(buf);
}

/* wc_crc32(wc_crc32(0, a), b) is the CRC of a then b, at every cut. */
static void test_continuation(void **state)
{
    (void)state;
    const size_t n = 3000;
    uint8_t *buf = random_bytes(n, 4);
    const uint32_t whole = zlib_crc(0, buf, n);
    wc_crc32_impl way[3];
    const int k = impls(way);
    for (int w = 0; w < k; w++) {
        wc_crc32_use(way[w]);
        for (size_t cut = 0; cut <= n; cut += (cut < 600 ? 1 : 97))
            assert_int_equal(wc_crc32(wc_crc32(0, buf, cut), buf + cut, n - cut), whole);
        /* and a chain of uneven pieces */
        uint32_t c = 0;
        for (size_t a = 0, step = 1; a < n; a += step, step = step * 3 % 301 + 1)
            c = wc_crc32(c, buf + a, step < n - a ? step : n - a);
        assert_int_equal(c, whole);
    }
    wc_crc32_use(WC_CRC32_AUTO);
    free(buf);
}

/* NULL is zlib's "initial value": 0 whatever the crc. */
static void test_null_and_empty(void **state)
{
    (void)state;
    const uint8_t one = 0x5A;
    assert_int_equal(wc_crc32(1234, NULL, 0), (uint32_t)crc32(1234, Z_NULL, 0));
    assert_int_equal(wc_crc32(1234, &one, 0), 1234u);
    assert_int_equal(wc_crc32(0, "123456789", 9), 0xCBF43926u); /* the check value */
}

/* The way chosen at the first call: zlib's where the environment has
 * WCODEC_CRC32=zlib (ctest runs this program a second time so), else the
 * best this CPU has. Runs first, before any other call decides it. */
static void test_environment_choice(void **state)
{
    (void)state;
    const char *env = getenv("WCODEC_CRC32");
    const wc_crc32_impl first = wc_crc32_in_use();
    if (env && !strcmp(env, "zlib")) {
        assert_int_equal(first, WC_CRC32_ZLIB);
    } else {
        assert_int_equal(first, wc_crc32_use(WC_CRC32_AUTO));
    }
    /* and the way in use gives zlib's values */
    uint8_t *buf = random_bytes(5000, 5);
    assert_int_equal(wc_crc32(0, buf, 5000), zlib_crc(0, buf, 5000));
    free(buf);
    wc_crc32_use(WC_CRC32_AUTO);
}

/* The forced fallback is zlib's, and asking for more than the CPU has gives
 * the best it has below it. */
static void test_selection(void **state)
{
    (void)state;
    assert_int_equal(wc_crc32_use(WC_CRC32_ZLIB), WC_CRC32_ZLIB);
    assert_int_equal(wc_crc32_in_use(), WC_CRC32_ZLIB);
    const wc_crc32_impl best = wc_crc32_use(WC_CRC32_AUTO);
    assert_true(best <= WC_CRC32_VPCLMUL);
    assert_int_equal(wc_crc32_in_use(), best);
    assert_int_equal(wc_crc32_use(WC_CRC32_VPCLMUL), best);
    assert_string_equal(wc_crc32_impl_name(WC_CRC32_ZLIB), "zlib");
    assert_string_equal(wc_crc32_impl_name(WC_CRC32_PCLMUL), "pclmul");
    wc_crc32_use(WC_CRC32_AUTO);
}

/* The constants crc32_fast.c's comment derives: k(e) = reflect32(x^e mod P)
 * << 1, recomputed here bit by bit from the polynomial. */
static uint64_t fold_constant(unsigned e)
{
    uint64_t r = 1;
    for (unsigned i = 0; i < e; i++) {
        r <<= 1;
        if (r >> 32) r ^= 0x104C11DB7ull;
    }
    uint64_t refl = 0;
    for (int b = 0; b < 32; b++)
        if (r >> b & 1) refl |= 1ull << (31 - b);
    return refl << 1;
}

static void test_fold_constants(void **state)
{
    (void)state;
    static const struct {
        unsigned e;
        uint64_t k;
    } table[] = {{160, 0x1751997d0ull}, {96, 0x0ccaa009eull},  {288, 0x0f1da05aaull},
                 {224, 0x15a546366ull}, {416, 0x03db1ecdcull}, {352, 0x174359406ull},
                 {544, 0x154442bd4ull}, {480, 0x1c6e41596ull}, {2080, 0x11542778aull},
                 {2016, 0x1322d1430ull}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        assert_int_equal(fold_constant(table[i].e), table[i].k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environment_choice), cmocka_unit_test(test_every_length),
        cmocka_unit_test(test_every_alignment),    cmocka_unit_test(test_large_and_patterns),
        cmocka_unit_test(test_continuation),       cmocka_unit_test(test_null_and_empty),
        cmocka_unit_test(test_selection),          cmocka_unit_test(test_fold_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
