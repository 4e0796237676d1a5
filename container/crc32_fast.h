/*
 * crc32_fast.h -- CRC-32 of the zlib/PNG polynomial, the value zlib's
 * crc32() gives for every input, computed by carry-less multiplication
 * (PCLMULQDQ, or VPCLMULQDQ on AVX-512) where the CPU has it, chosen at run
 * time; zlib's crc32 elsewhere. Every .wcx chunk's CRC goes through it.
 */
#ifndef WC_CRC32_FAST_H
#define WC_CRC32_FAST_H

#include <stddef.h>
#include <stdint.h>

/* zlib's crc32_z(crc, data, n): crc is the CRC of what came before (0 to
 * start), so wc_crc32(wc_crc32(0, a, na), b, nb) is the CRC of a then b.
 * data NULL gives 0, as zlib does. */
uint32_t wc_crc32(uint32_t crc, const void *data, size_t n);

/* The ways it can be computed, slowest first. */
typedef enum wc_crc32_impl {
    WC_CRC32_ZLIB = 0, /* zlib's crc32_z: any CPU */
    WC_CRC32_PCLMUL,   /* x86-64 with PCLMULQDQ */
    WC_CRC32_VPCLMUL,  /* x86-64 with VPCLMULQDQ and AVX-512F */
    WC_CRC32_AUTO      /* the best this CPU has */
} wc_crc32_impl;

/* Makes wc_crc32 use `want` if this CPU has it, else the best it has below
 * `want`; returns the one now in use. For tests and benchmarks; the default
 * is WC_CRC32_AUTO, or WC_CRC32_ZLIB when the environment has
 * WCODEC_CRC32=zlib at the first call. Not to be called while another
 * thread computes a CRC it compares across the change (every way gives the
 * same value, so a race changes only the speed). */
wc_crc32_impl wc_crc32_use(wc_crc32_impl want);

/* The way wc_crc32 uses now (deciding it, as the first call does, if no
 * call has yet). */
wc_crc32_impl wc_crc32_in_use(void);

/* "zlib", "pclmul" or "vpclmul". */
const char *wc_crc32_impl_name(wc_crc32_impl impl);

#endif
