/*
 * test_stream_copy.c -- wc_stream_copy against memcpy: every alignment of
 * source and destination, lengths around the line, the vector and the
 * streaming threshold, and nothing written outside the destination; by
 * the streaming path, by memcpy's and by the codec's entry point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stream_copy.h"

static const size_t lengths[] = {0,  1,    15,   16,   17,        63,        64,
                                 65, 4095, 4096, 4097, 4096 + 77, 65536 + 5, (1u << 20) + 13};

static void check_all(int streaming)
{
    const size_t most = (1u << 20) + 13, pad = 64;
    uint8_t *src = malloc(most + 2 * pad), *dst = malloc(most + 2 * pad);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < most + 2 * pad; i++) src[i] = (uint8_t)(i * 131u + (i >> 9));
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        const size_t n = lengths[li];
        const size_t offsets = n > 70000 ? 4 : 32; /* the large one at a few */
        for (size_t so = 0; so < offsets; so++)
            for (size_t d0 = 0; d0 < offsets; d0++) {
                memset(dst, 0xA5, n + 2 * pad);
                uint8_t *const d = dst + pad + d0;
                if (streaming < 0)
                    wc_stream_copy(d, src + so, n);
                else
                    wc_stream_copy_as(d, src + so, n, streaming);
                if (n) assert_int_equal(memcmp(d, src + so, n), 0);
                for (size_t i = 0; i < pad + d0; i++) assert_int_equal(dst[i], 0xA5);
                for (size_t i = 0; i < pad - d0; i++) assert_int_equal(d[n + i], 0xA5);
            }
    }
    free(src);
    free(dst);
}

static void test_streamed(void **state)
{
    (void)state;
    check_all(1);
}

static void test_plain(void **state)
{
    (void)state;
    check_all(0);
}

/* The entry point the codec calls: its own choice of the two. */
static void test_default(void **state)
{
    (void)state;
    check_all(-1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streamed),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
