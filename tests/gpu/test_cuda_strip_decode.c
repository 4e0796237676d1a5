/*
 * test_cuda_strip_decode.c -- the CUDA backend's decode in strips (a file
 * whose whole-image device buffers exceed wc_params.max_device_memory,
 * cuda/strip_decode.cu) against the CPU backend's decode, pixel for
 * pixel: heights that need many strips (1xN, odd, prime), 5/3 and 9/7
 * (the Monolithic and Explosive schemes too), 1 to 4 components, 8 to 16
 * bits, 0 to 3 levels, Huffman, tiled Huffman and arithmetic coding. Each
 * file is decoded under a cap of 1 byte (refused with WC_ERR_LIMIT naming
 * the least a strip needs, N), then under N (the smallest strips: 2^L
 * rows each) and 3N: the CPU's pixels each time, and the device memory the
 * call reports within the cap. Damaged files (a data byte behind a good
 * CRC, a bad CRC, block boundaries moved in the index) decoded in strips
 * give the CPU decoder's status and message. A DCT file over the cap is
 * refused, not decoded past it.
 *
 * Where no CUDA device is present it says so and returns 77 (ctest SKIP).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "gpu_pair.h"
#include "strip_cases.h"
#include "chunk_edit.h"
#include "test_support.h"
#include "wc_common.h"
#include "wcodec.h"

/* The file decoded on the CPU (one thread: it names the first failing
 * block) and on the device under `cap`: the same status and message, the
 * same pixels; in strips within the cap where must_strip. Returns 1 when
 * they agree. */
static int same_decode(const void *f, size_t n, uint64_t cap, int must_strip, const char *what)
{
    wc_params pc, pg;
    wc_params_init(&pc);
    wc_params_init(&pg);
    pc.backend = WC_BACKEND_CPU;
    pc.threads = 1;
    pg.backend = WC_BACKEND_CUDA;
    pg.max_device_memory = cap;
    wc_image a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    const wc_status sa = wc_decode(g_ctx_cpu, &pc, f, n, &a);
    const wc_status sb = wc_decode(g_ctx_gpu, &pg, f, n, &b);
    int ok = sa == sb;
    if (ok && sa != WC_OK) ok = strcmp(wc_ctx_error(g_ctx_cpu), wc_ctx_error(g_ctx_gpu)) == 0;
    if (ok && sa == WC_OK) ok = memcmp(a.pixels, b.pixels, wc_image_row_bytes(&a) * a.height) == 0;
    if (!ok)
        print_error("%s, cap %llu: cpu %d '%s', cuda %d '%s'%s\n", what, (unsigned long long)cap,
                    sa, wc_ctx_error(g_ctx_cpu), sb, wc_ctx_error(g_ctx_gpu),
                    sa == sb && sa == WC_OK ? " (pixels differ)" : "");
    if (ok && sb == WC_OK && must_strip) {
        const char *note = wc_ctx_note(g_ctx_gpu);
        const unsigned long long used = number_before(note, "bytes of device memory");
        const unsigned long long strips = number_before(note, "strips of");
        if (used == 0 || used > cap || strips < 2) {
            print_error("%s, cap %llu: not decoded in strips within the cap (%s)\n", what,
                        (unsigned long long)cap, note);
            ok = 0;
        }
    }
    wc_image_free(&a);
    wc_image_free(&b);
    return ok;
}

/* The least device memory a strip decode of f needs: the number the
 * refusal under a 1-byte cap names (0 when not refused so). */
static unsigned long long least_of(const void *f, size_t n, const char *what)
{
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CUDA;
    p.max_device_memory = 1;
    wc_image b;
    memset(&b, 0, sizeof b);
    const wc_status s = wc_decode(g_ctx_gpu, &p, f, n, &b);
    wc_image_free(&b);
    const unsigned long long least = number_before(wc_ctx_error(g_ctx_gpu), "bytes of device");
    if (s != WC_ERR_LIMIT || least == 0) {
        print_error("%s, cap 1: status %d (%s)\n", what, s, wc_ctx_error(g_ctx_gpu));
        return 0;
    }
    return least;
}

static void describe(const scase *t, char *what, size_t cap)
{
    snprintf(what, cap, "%ux%u x%u %u-bit %s %d levels block %d entropy %d%s", t->w, t->h, t->comps,
             t->depth,
             t->lossless        ? "lossless"
             : t->wavelet == 53 ? "lossy 5/3"
                                : "9/7",
             t->levels, t->block, (int)t->entropy,
             t->scheme == WC_DWT_MONOLITHIC  ? " monolithic"
             : t->scheme == WC_DWT_EXPLOSIVE ? " explosive"
                                             : "");
}

/* t's file, coded on the CPU. */
static void encode_case(const scase *t, uint64_t seed, uint8_t **f, size_t *n)
{
    wc_image img;
    strip_case_image(t, seed, &img);
    wc_params pc;
    strip_case_params(t, &pc, WC_BACKEND_CPU, 0);
    assert_int_equal(wc_encode_alloc(g_ctx_cpu, &pc, &img, (void **)f, n), WC_OK);
    wc_image_free(&img);
}

static const scase k_cases[] = {
    {1, 301, 1, 8, 1, 53, 1, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
    {37, 401, 3, 16, 1, 53, 2, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
    {53, 257, 4, 8, 0, 97, 3, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
    {29, 521, 2, 12, 0, 53, 2, 32, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
    {64, 211, 3, 8, 0, 97, 1, 16, WC_ENTROPY_HUFFMAN_TILES, WC_DWT_SEPARABLE},
    {31, 300, 3, 10, 1, 53, 2, 16, WC_ENTROPY_ARITH, WC_DWT_SEPARABLE},
    {17, 97, 1, 16, 1, 53, 0, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
    {40, 409, 3, 8, 1, 53, 2, 16, WC_ENTROPY_HUFFMAN, WC_DWT_MONOLITHIC},
    {23, 333, 1, 16, 0, 97, 2, 16, WC_ENTROPY_HUFFMAN, WC_DWT_MONOLITHIC},
    {40, 409, 3, 8, 1, 53, 3, 16, WC_ENTROPY_HUFFMAN, WC_DWT_EXPLOSIVE},
    {23, 533, 1, 16, 0, 97, 3, 16, WC_ENTROPY_HUFFMAN, WC_DWT_EXPLOSIVE},
    {131, 1031, 3, 16, 1, 53, 3, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE},
    {96, 389, 3, 8, 0, 97, 3, 32, WC_ENTROPY_ARITH, WC_DWT_SEPARABLE},
};

static void test_strips_match_cpu(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        const scase *t = &k_cases[i];
        char what[160];
        describe(t, what, sizeof what);
        uint8_t *f = NULL;
        size_t n = 0;
        encode_case(t, 100 + i, &f, &n);
        const unsigned long long least = least_of(f, n, what);
        if (!least || !same_decode(f, n, least, 1, what) || !same_decode(f, n, 3 * least, 0, what))
            bad++;
        wc_free(f);
    }
    assert_int_equal(bad, 0);
}

/* Whether the CPU decoder refuses buf. */
static int cpu_refuses(const uint8_t *buf, size_t size)
{
    wc_params pc;
    wc_params_init(&pc);
    pc.backend = WC_BACKEND_CPU;
    wc_image a;
    memset(&a, 0, sizeof a);
    const wc_status s = wc_decode(g_ctx_cpu, &pc, buf, size, &a);
    wc_image_free(&a);
    return s != WC_OK;
}

/* Damaged files decoded in the smallest strips: the CPU's verdict. Data
 * bytes behind a good CRC (some decode to other values, some are
 * refused: each block is decoded by several strips, the first failing
 * one in the file's order must be named), a bad CRC, block boundaries
 * moved in the index. */
static void test_damage_in_strips(void **state)
{
    (void)state;
    static const size_t pick[] = {1, 4, 5, 10};
    /* WC_TEST_DAMAGE_TRIES: fewer damaged bytes a component (for the slow
     * runs under compute-sanitizer). */
    const char *env = getenv("WC_TEST_DAMAGE_TRIES");
    const uint32_t tries = env && atoi(env) > 0 ? (uint32_t)atoi(env) : 12;
    int bad = 0;
    for (size_t c = 0; c < sizeof pick / sizeof pick[0]; c++) {
        const scase *t = &k_cases[pick[c]];
        char what[160];
        describe(t, what, sizeof what);
        uint8_t *buf = NULL;
        size_t size = 0;
        encode_case(t, 200 + c, &buf, &size);
        const unsigned long long least = least_of(buf, size, what);
        assert_true(least > 0);
        unsigned refused = 0, tried = 0;
        char at[320];
        for (uint32_t k = 0; k < t->comps; k++) {
            const size_t dat = chunk_find(buf, size, "WDAT", (int)k);
            assert_true(dat > 0);
            const uint32_t len = wc_rd32le(buf + dat);
            const uint32_t step = len / tries ? len / tries : 1;
            for (uint32_t i = step / 2; i < len; i += step, tried++) {
                const uint8_t keep = buf[dat + 8 + i];
                buf[dat + 8 + i] = (uint8_t)(i & 1 ? ~keep : keep ^ 0x10);
                chunk_fix_crc(buf, dat);
                snprintf(at, sizeof at, "%s: component %u data byte %u", what, k, i);
                refused += cpu_refuses(buf, size);
                bad += !same_decode(buf, size, least + 1024, 0, at);
                /* The same byte behind a stale CRC. */
                buf[dat + 8 + i] = keep;
                if (i == step / 2) {
                    buf[dat + 8 + i] ^= 0x01;
                    snprintf(at, sizeof at, "%s: component %u bad CRC", what, k);
                    bad += !same_decode(buf, size, least + 1024, 0, at);
                    buf[dat + 8 + i] = keep;
                }
            }
            chunk_fix_crc(buf, dat);
        }
        const size_t idx = chunk_find(buf, size, "WIDX", 0);
        assert_true(idx > 0);
        const uint32_t ilen = wc_rd32le(buf + idx);
        for (uint32_t i = 0, moved = 0; i + 1 < ilen && moved < tries; i++) {
            uint8_t *e = buf + idx + 8 + i;
            if (e[0] == 0 || e[0] >= 0x7F || e[1] >= 0x7F || (i && e[-1] >= 0x80)) continue;
            e[0]--, e[1]++;
            chunk_fix_crc(buf, idx);
            snprintf(at, sizeof at, "%s: index entry %u", what, i);
            refused += cpu_refuses(buf, size);
            bad += !same_decode(buf, size, least + 1024, 0, at);
            e[0]++, e[1]--;
            moved++;
        }
        chunk_fix_crc(buf, idx);
        /* The damage must have been refused at least once (else nothing
         * here compared an error). */
        if (!refused) print_error("%s: none of %u damaged files refused\n", what, tried);
        bad += !refused;
        bad += !same_decode(buf, size, least, 1, what);
        wc_free(buf);
    }
    assert_int_equal(bad, 0);
}

/* DCT/LOT and deflate files over the cap are refused with a message that
 * says so, never decoded past it; uncapped, the whole-image path. */
static void test_other_modes_refused(void **state)
{
    (void)state;
    const scase t = {64, 64, 3, 8, 0, 97, 0, 16, WC_ENTROPY_HUFFMAN, WC_DWT_SEPARABLE};
    wc_image img;
    strip_case_image(&t, 7, &img);
    for (int m = 0; m < 2; m++) {
        wc_params p;
        strip_case_params(&t, &p, WC_BACKEND_CPU, 0);
        if (m == 0) {
            p.transform = WC_TRANSFORM_DCT;
            p.levels = WC_LEVELS_AUTO;
        } else {
            p.entropy = WC_ENTROPY_DEFLATE;
            p.levels = 2;
        }
        void *f = NULL;
        size_t n = 0;
        assert_int_equal(wc_encode_alloc(g_ctx_cpu, &p, &img, &f, &n), WC_OK);
        wc_params pg;
        wc_params_init(&pg);
        pg.backend = WC_BACKEND_CUDA;
        pg.max_device_memory = 4096;
        wc_image out;
        memset(&out, 0, sizeof out);
        assert_int_equal(wc_decode(g_ctx_gpu, &pg, f, n, &out), WC_ERR_LIMIT);
        assert_non_null(strstr(wc_ctx_error(g_ctx_gpu), "strips"));
        pg.max_device_memory = 0;
        assert_int_equal(wc_decode(g_ctx_gpu, &pg, f, n, &out), WC_OK);
        wc_image_free(&out);
        wc_free(f);
    }
    wc_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_strips_match_cpu, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_damage_in_strips, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_other_modes_refused, gpu_ctx_setup, gpu_ctx_teardown),
    };
    return gpu_pair_main("cuda_strip_decode", tests, sizeof tests / sizeof tests[0]);
}
