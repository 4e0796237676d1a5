/*
 * crc32_fast.c -- zlib's CRC-32 by carry-less multiplication folding.
 *
 * The CRC is reflected: byte 0's bit 0 is the message polynomial's highest
 * coefficient, P = x^32 + 0x04C11DB7 (bits of x^31..x^0). zlib's register
 * after a message M, started from s, is (s x^|M| + M x^32) mod P (reflected),
 * and zlib's crc32(crc, ...) starts from s = ~crc and returns ~register. So
 * XORing ~crc into M's first 4 bytes and starting from 0 gives the same
 * register, and any message congruent to M mod P, of whatever length, that
 * ends with the same bytes, has the same CRC from a register of 0.
 *
 * Folding makes such a shorter message. Load 16 bytes as a 128-bit lane V,
 * its low qword a (the first 8 bytes) and high qword b. As a polynomial, V =
 * A x^64 + B (A, B of degree < 64, reflected in a, b). The data D bits later
 * is XORed with V x^D = A x^(D+64) + B x^D, which is congruent mod P to
 * A (x^(D+64) mod P) + B (x^D mod P): two products that fit in 128 bits.
 * PCLMULQDQ multiplies two reflected qwords: bit k of the 128-bit result is
 * the sum of a_i c_j for i + j = k, so as a reflected 128-bit lane it is
 * A C x (the product's 127 bits sit one place from the lane's end). A
 * constant stored as reflect32(x^e mod P) << 1 is, as a reflected qword,
 * (x^e mod P) x^31. So clmul(a, k(e)) = A (x^e mod P) x^32, and the fold
 * constants are k(D + 32) for the low qword and k(D - 32) for the high:
 *
 *   k(e) = reflect32(x^e mod P) << 1          (33 bits)
 *   D =  128: k(160) = 0x1751997d0, k(96)   = 0x0ccaa009e
 *   D =  256: k(288) = 0x0f1da05aa, k(224)  = 0x15a546366
 *   D =  384: k(416) = 0x03db1ecdc, k(352)  = 0x174359406
 *   D =  512: k(544) = 0x154442bd4, k(480)  = 0x1c6e41596
 *   D = 2048: k(2080) = 0x11542778a, k(2016) = 0x1322d1430
 *
 * (x^e mod P by e shifts of 1 with P XORed back in whenever bit 32 is set;
 * the Linux kernel's crc32-pclmul and Intel's "Fast CRC Computation Using
 * PCLMULQDQ" paper have the same D = 512 and 128 values.) The loop folds
 * four lanes 64 bytes at a time (AVX-512: four 512-bit registers, 256 bytes
 * at a time), the lanes fold into one, then 16 bytes at a time; the last
 * lane and the fewer than 16 bytes after it are a message of at most 31
 * bytes with the same CRC from a register of 0, which zlib finishes. So no
 * Barrett reduction is needed, and zlib's own code gives the last steps.
 */
#include "crc32_fast.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* WC_CRC32_NO_SIMD: build zlib's way only (checks the portable build). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(WC_CRC32_NO_SIMD)
#define WC_CRC32_X86 1
#include <immintrin.h>
#endif

/* zlib's crc32 over any size_t length (its uInt is 32 bits). */
static uint32_t crc_zlib(uint32_t crc, const uint8_t *p, size_t n)
{
    if (p == NULL) return (uint32_t)crc32(crc, Z_NULL, 0);
    uLong c = crc;
    while (n > 0) {
        const uInt k = n > (size_t)(UINT_MAX / 2) ? (uInt)(UINT_MAX / 2) : (uInt)n;
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
}

#ifdef WC_CRC32_X86

/* The CRC of 16 bytes `lane` (already folded, register 0) then n < 16 more. */
static uint32_t finish(const uint8_t lane[16], const uint8_t *p, size_t n)
{
    /* crc32(0xFFFFFFFF, ...) starts from a register of 0 (zlib inverts). */
    uLong c = crc32(0xFFFFFFFFUL, lane, 16);
    return (uint32_t)crc32(c, p, (uInt)n);
}

#define TARGET_PCLMUL __attribute__((target("sse2,pclmul")))
#define TARGET_VPCLMUL __attribute__((target("sse2,pclmul,avx512f,vpclmulqdq")))

/* The fold constants of distance D, as _mm_set_epi64x takes them (high qword
 * first): high k(D - 32), low k(D + 32) (see the top of the file). */
#define FOLD_128 0x0ccaa009eLL, 0x1751997d0LL
#define FOLD_256 0x15a546366LL, 0x0f1da05aaLL
#define FOLD_384 0x174359406LL, 0x03db1ecdcLL
#define FOLD_512 0x1c6e41596LL, 0x154442bd4LL
#define FOLD_2048 0x1322d1430LL, 0x11542778aLL

/* v moved D bits on (k its constants), XORed with x. */
TARGET_PCLMUL static inline __m128i fold128(__m128i v, __m128i k, __m128i x)
{
    __m128i lo = _mm_clmulepi64_si128(v, k, 0x00), hi = _mm_clmulepi64_si128(v, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), x);
}

/* Four lanes (16 bytes each, in order) into one. */
TARGET_PCLMUL static inline __m128i fold4to1(__m128i x0, __m128i x1, __m128i x2, __m128i x3)
{
    __m128i r = fold128(x0, _mm_set_epi64x(FOLD_384), x3);
    r = fold128(x1, _mm_set_epi64x(FOLD_256), r);
    return fold128(x2, _mm_set_epi64x(FOLD_128), r);
}

/* 16 bytes at a time from one lane x over the rest of p; then finish. */
TARGET_PCLMUL static uint32_t fold_tail(__m128i x, const uint8_t *p, size_t n)
{
    const __m128i k128 = _mm_set_epi64x(FOLD_128);
    for (; n >= 16; p += 16, n -= 16) x = fold128(x, k128, _mm_loadu_si128((const __m128i *)p));
    uint8_t lane[16];
    _mm_storeu_si128((__m128i *)lane, x);
    return finish(lane, p, n);
}

/* n >= 64. */
TARGET_PCLMUL static uint32_t crc_pclmul(uint32_t crc, const uint8_t *p, size_t n)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)p);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)~crc));
    p += 64, n -= 64;
    const __m128i k512 = _mm_set_epi64x(FOLD_512);
    for (; n >= 64; p += 64, n -= 64) {
        x0 = fold128(x0, k512, _mm_loadu_si128((const __m128i *)p));
        x1 = fold128(x1, k512, _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = fold128(x2, k512, _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = fold128(x3, k512, _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    return fold_tail(fold4to1(x0, x1, x2, x3), p, n);
}

TARGET_VPCLMUL static inline __m512i fold512(__m512i v, __m512i k, __m512i x)
{
    __m512i lo = _mm512_clmulepi64_epi128(v, k, 0x00), hi = _mm512_clmulepi64_epi128(v, k, 0x11);
    return _mm512_ternarylogic_epi64(lo, hi, x, 0x96); /* lo ^ hi ^ x */
}

/* A lane's constants (as FOLD_ gives them) in all four lanes. */
TARGET_VPCLMUL static inline __m512i lanes4(long long hi, long long lo)
{
    return _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo);
}

/* n >= 256: four 64-byte registers of four lanes each. */
TARGET_VPCLMUL static uint32_t crc_vpclmul(uint32_t crc, const uint8_t *p, size_t n)
{
    __m512i z0 = _mm512_loadu_si512((const void *)p);
    __m512i z1 = _mm512_loadu_si512((const void *)(p + 64));
    __m512i z2 = _mm512_loadu_si512((const void *)(p + 128));
    __m512i z3 = _mm512_loadu_si512((const void *)(p + 192));
    z0 = _mm512_xor_si512(z0,
                          _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (int)~crc));
    p += 256, n -= 256;
    const __m512i k2048 = lanes4(FOLD_2048);
    for (; n >= 256; p += 256, n -= 256) {
        z0 = fold512(z0, k2048, _mm512_loadu_si512((const void *)p));
        z1 = fold512(z1, k2048, _mm512_loadu_si512((const void *)(p + 64)));
        z2 = fold512(z2, k2048, _mm512_loadu_si512((const void *)(p + 128)));
        z3 = fold512(z3, k2048, _mm512_loadu_si512((const void *)(p + 192)));
    }
    /* The four registers into one (each 512 bits from the next), then 64
     * bytes at a time. */
    const __m512i k512 = lanes4(FOLD_512);
    z1 = fold512(z0, k512, z1);
    z2 = fold512(z1, k512, z2);
    z3 = fold512(z2, k512, z3);
    for (; n >= 64; p += 64, n -= 64) z3 = fold512(z3, k512, _mm512_loadu_si512((const void *)p));
    __m128i x = fold4to1(_mm512_extracti32x4_epi32(z3, 0), _mm512_extracti32x4_epi32(z3, 1),
                         _mm512_extracti32x4_epi32(z3, 2), _mm512_extracti32x4_epi32(z3, 3));
    return fold_tail(x, p, n);
}

static wc_crc32_impl best_impl(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq"))
        return WC_CRC32_VPCLMUL;
    if (__builtin_cpu_supports("pclmul")) return WC_CRC32_PCLMUL;
    return WC_CRC32_ZLIB;
}

#else

static wc_crc32_impl best_impl(void) { return WC_CRC32_ZLIB; }

#endif

/* The way in use, WC_CRC32_AUTO until the first call decides. */
static _Atomic int in_use = WC_CRC32_AUTO;

wc_crc32_impl wc_crc32_use(wc_crc32_impl want)
{
    wc_crc32_impl best = best_impl(), got = want < best ? want : best;
    atomic_store_explicit(&in_use, (int)got, memory_order_relaxed);
    return got;
}

wc_crc32_impl wc_crc32_in_use(void)
{
    int impl = atomic_load_explicit(&in_use, memory_order_relaxed);
    if (impl != WC_CRC32_AUTO) return (wc_crc32_impl)impl;
    const char *env = getenv("WCODEC_CRC32");
    return wc_crc32_use(env && !strcmp(env, "zlib") ? WC_CRC32_ZLIB : WC_CRC32_AUTO);
}

const char *wc_crc32_impl_name(wc_crc32_impl impl)
{
    switch (impl) {
    case WC_CRC32_ZLIB: return "zlib";
    case WC_CRC32_PCLMUL: return "pclmul";
    case WC_CRC32_VPCLMUL: return "vpclmul";
    default: return "auto";
    }
}

uint32_t wc_crc32(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    if (p == NULL || n < 64) return crc_zlib(crc, p, n);
    const wc_crc32_impl impl = wc_crc32_in_use();
#ifdef WC_CRC32_X86
    if (impl == WC_CRC32_VPCLMUL && n >= 256) return crc_vpclmul(crc, p, n);
    if (impl >= WC_CRC32_PCLMUL) return crc_pclmul(crc, p, n);
#else
    (void)impl;
#endif
    return crc_zlib(crc, p, n);
}
