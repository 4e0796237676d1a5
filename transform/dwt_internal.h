/*
 * dwt_internal.h -- what dwt53.c, dwt97.c, dwt_bands.c and the non-separable
 * schemes (dwt_nonsep.c) share and nothing outside transform/ needs.
 */
#ifndef WC_DWT_INTERNAL_H
#define WC_DWT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The vertical pass copies DWT_STRIP columns at a time into a staging buffer
 * of DWT_STRIP x h elements and lifts whole staging rows. A fixed width lets
 * gcc vectorise the row loops even at -O2 (its cheap cost model refuses
 * loops of unknown length), and 64 columns (256 bytes a row) keep a
 * 4096-row strip at 1 MiB, inside L2 across the lifting steps, while each
 * plane row access still moves four whole cache lines. Measured on 4096^2:
 * 32 and 128 columns were 10-30% slower. */
enum { DWT_STRIP = 64 };

/* Plane rows are a whole stride apart, too far for the hardware prefetcher,
 * so loading and storing a strip ask for the row this many rows ahead in
 * advance (16 measured best among 8, 16, 32). */
enum { DWT_PREFETCH = 16 };

/* Size of one dimension after `levels` ceil-halvings: the extent of the LL
 * region that level `levels` + 1 transforms. */
static inline uint32_t dwt_level_size(uint32_t n, int levels)
{
    for (int l = 0; l < levels; l++) n = (n + 1) / 2;
    return n;
}

/* Whole-sample symmetric extension of a row index r in [-1, n] (n >= 2):
 * -1 -> 1 and n -> n - 2, which is all that a two-tap lifting step reads. */
static inline uint32_t dwt_mirror(int64_t r, uint32_t n)
{
    if (r < 0) return (uint32_t)-r;
    if (r >= (int64_t)n) return (uint32_t)(2 * (int64_t)n - 2 - r);
    return (uint32_t)r;
}

/* Where sample r of an interleaved n-sample signal lands once split into the
 * low half (even r, first ceil(n/2) places) and the high half (odd r). */
static inline uint32_t dwt_split_index(uint32_t r, uint32_t n)
{
    return (r & 1) ? (n + 1) / 2 + r / 2 : r / 2;
}

/* Copies cw columns of n plane rows (stride in elements, elements of esize
 * bytes) into staging rows of DWT_STRIP elements, zeroing the unused tail so
 * that the fixed-width lifting never reads indeterminate values. With split,
 * staging row r comes from plane row dwt_split_index(r, n) (inverse: the
 * plane holds low rows then high rows); otherwise from plane row r. */
static inline void dwt_strip_load(void *stage, const void *plane, size_t stride, uint32_t n,
                                  uint32_t cw, size_t esize, int split)
{
    unsigned char *t = stage;
    const unsigned char *p = plane;
    for (uint32_t r = 0; r < n; r++) {
        const uint32_t src = split ? dwt_split_index(r, n) : r;
        unsigned char *row = t + (size_t)r * DWT_STRIP * esize;
        const unsigned char *in = p + (size_t)src * stride * esize;
#if defined(__GNUC__)
        if (r + DWT_PREFETCH < n) {
            const uint32_t ahead = split ? dwt_split_index(r + DWT_PREFETCH, n) : r + DWT_PREFETCH;
            const unsigned char *q = p + (size_t)ahead * stride * esize;
            for (size_t b = 0; b < cw * esize; b += 64) __builtin_prefetch(q + b);
        }
#endif
        if (cw == DWT_STRIP) {
            memcpy(row, in, DWT_STRIP * esize);
        } else {
            memcpy(row, in, cw * esize);
            memset(row + cw * esize, 0, (DWT_STRIP - cw) * esize);
        }
    }
}

/* The reverse copy: staging row r goes to plane row dwt_split_index(r, n)
 * with split (forward: low rows first), to plane row r without. */
static inline void dwt_strip_store(void *plane, const void *stage, size_t stride, uint32_t n,
                                   uint32_t cw, size_t esize, int split)
{
    unsigned char *p = plane;
    const unsigned char *t = stage;
    for (uint32_t r = 0; r < n; r++) {
        const uint32_t dst = split ? dwt_split_index(r, n) : r;
        unsigned char *out = p + (size_t)dst * stride * esize;
#if defined(__GNUC__)
        if (r + DWT_PREFETCH < n) {
            const uint32_t ahead = split ? dwt_split_index(r + DWT_PREFETCH, n) : r + DWT_PREFETCH;
            unsigned char *q = p + (size_t)ahead * stride * esize;
            for (size_t b = 0; b < cw * esize; b += 64) __builtin_prefetch(q + b, 1);
        }
#endif
        const unsigned char *row = t + (size_t)r * DWT_STRIP * esize;
        if (cw == DWT_STRIP)
            memcpy(out, row, DWT_STRIP * esize);
        else
            memcpy(out, row, cw * esize);
    }
}

/* One level's column pass on columns [c0, c1) of an h-row region (c0 a
 * multiple of DWT_STRIP; scratch DWT_STRIP * h elements): dwt53.c's and
 * dwt97.c's strips, which dwt_threads.c shares between its workers. */
void dwt53_cols_forward(int32_t *p, size_t stride, uint32_t c0, uint32_t c1, uint32_t h,
                        int32_t *scratch);
void dwt53_cols_inverse(int32_t *p, size_t stride, uint32_t c0, uint32_t c1, uint32_t h,
                        int32_t *scratch);
void dwt97_cols_forward(float *p, size_t stride, uint32_t c0, uint32_t c1, uint32_t h,
                        float *scratch);
void dwt97_cols_inverse(float *p, size_t stride, uint32_t c0, uint32_t c1, uint32_t h,
                        float *scratch);
/* Shared by the non-separable schemes (dwt_mono.c, dwt_expl.c), in
 * dwt_nonsep.c. One level's lifting of a scheme: the interleaved w x h
 * region at plane (rows stride elements apart, w and h at least 2) lifted
 * in place, or (inverse) its lifting undone. */
typedef void (*dwt_ns_lift)(void *plane, size_t stride, uint32_t w, uint32_t h, int inverse);
/* The multi-level transform of a w x h plane (int32, or float when
 * is_float) by a scheme's lifting: each level lifted then split into the
 * Mallat layout, or (inverse) interleaved then unlifted, the levels of one
 * row or column by the separable 1-D lifting; scratch holds
 * dwt_scratch_elems(w, h) elements. */
void dwt_ns_levels(void *plane, uint32_t w, uint32_t h, int levels, void *scratch, int is_float,
                   dwt_ns_lift lift, int inverse);
/* The 9/7 lifting pairs' constants, {predict, update}: (alpha, beta), then
 * (gamma, delta); and the scaling after them of a lifted w x h region at
 * p (rows stride apart), or (inv) its undoing. */
extern const float dwt_ns_pairs97[2][2];
void dwt_ns_scale97(float *p, size_t stride, uint32_t w, uint32_t h, int inv);
/* The Mallat split of a lifted interleaved w x h region (each row's even
 * columns to its front, then each strip of columns' even rows to the top),
 * or its undoing (inverse); scratch holds dwt_scratch_elems(w, h) elements
 * of esize. */
void dwt_ns_split(void *plane, size_t stride, uint32_t w, uint32_t h, size_t esize, void *scratch,
                  int inverse);
/* A level of one row or one column: the separable 1-D lifting (5/3 in int32,
 * or 9/7 in float when is_float), as the separable 2-D transform does it. */
void dwt_ns_level_1d(void *p, size_t stride, uint32_t w, uint32_t h, void *scratch, int is_float,
                     int inverse);

#endif /* WC_DWT_INTERNAL_H */
