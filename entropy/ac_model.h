/*
 * ac_model.h -- entropy 3's coefficient model: one code block's values
 * (MED residuals for predicted bands) coded in raster order through
 * range_coder.h, every context reset at the block's start to the
 * probabilities of ac_init.h (what Kodak's blocks have in common, so a
 * block does not spend bits learning it), so a block decodes alone
 * (regions, parallel decode). FORMAT.md's
 * "Arithmetic-coded payloads" (under "Code-block data") is the normative
 * text.
 *
 * Per value v, from its coded neighbours inside the block (zero outside):
 *   s  = wW|W| + wN|N| + |NW| + |NE| + |WW| + |NN|, magnitudes capped at
 *        2^20, (wW, wN) = (2, 2), (1, 3) for HL, (3, 1) for LH bands;
 *   k  = ac_bucket(s): s below 2, then two buckets per octave (0..AC_NB-1);
 *   zero flag (v != 0) in context zero[k];
 *   then, for v != 0: its sign in context sign[3 sgn(W) + sgn(N) + 4];
 *   m = |v| - 1: (m >= 1) in ge1[k]; (m >= 2) in ge2[k]; then r = m - 1
 *   (>= 1) as n = bit length of r, in unary: (n > j) in len[k][min(j, 15) - 1]
 *   for j = 1, 2, ..., and the n - 1 bits below r's leading one: the first
 *   in mant[n - 1], the others equiprobable, most significant first.
 *
 * Static inline and allocation free (the caller's scratch holds the
 * contexts and the neighbourhood), AC_HOSTDEV throughout, so the device
 * can run the same code a thread per block.
 */
#ifndef WC_AC_MODEL_H
#define WC_AC_MODEL_H

#include "ac_init.h"
#include "range_coder.h"

#define AC_NB 48        /* context buckets of s (s < 2^24) */
#define AC_NLEN 15      /* unary length contexts per bucket */
#define AC_MAX_SIDE 128 /* largest code-block side */
#define AC_PAD 2        /* zero rows above, zero columns either side */
#define AC_MAG_CAP (1u << 20)

/* Every context of one block. */
typedef struct ac_ctx {
    ac_prob zero[AC_NB];
    ac_prob zero0[3]; /* s = 0: by the farther neighbours */
    ac_prob sign[9];
    ac_prob ge1[AC_NB];
    ac_prob ge2[AC_NB];
    ac_prob len[AC_NB][AC_NLEN];
    ac_prob mant[32];
} ac_ctx;

/* The neighbourhood: capped magnitudes and signs of coded values, in a
 * (w + 2 AC_PAD)-wide array with AC_PAD zero rows above. */
#define AC_NSTRIDE (AC_MAX_SIDE + 2 * AC_PAD)
#define AC_NELEMS ((AC_MAX_SIDE + AC_PAD) * AC_NSTRIDE)
/* ac_init.h lists every context of ac_ctx. */
typedef char ac_init_covers_ctx[sizeof(ac_ctx) == AC_INIT_COUNT * sizeof(ac_prob) ? 1 : -1];

typedef struct ac_scratch {
    ac_ctx ctx;
    uint32_t mag[AC_NELEMS];
    int8_t sgn[AC_NELEMS];
} ac_scratch;

AC_HOSTDEV unsigned ac_bitlen(uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return v ? 32u - (unsigned)__clz((int)v) : 0u;
#else
    return v ? 32u - (unsigned)__builtin_clz(v) : 0u;
#endif
}

AC_HOSTDEV unsigned ac_bucket(uint32_t s)
{
    if (s < 2) return s;
    const unsigned L = ac_bitlen(s); /* >= 2 */
    const unsigned k = 2 * (L - 1) + ((s >> (L - 2)) & 1u);
    return k < AC_NB ? k : AC_NB - 1;
}

/* The starting probabilities (ac_init.h), one copy for the host and one
 * for the device. */
static const uint8_t ac_init_host[AC_INIT_COUNT] = AC_INIT_VALUES;
#if defined(__CUDACC__)
__device__ static const uint8_t ac_init_dev[AC_INIT_COUNT] = AC_INIT_VALUES;
#endif
/* Each context starts as if it had seen this many bits: its adaptation
 * starts at rate 1 + floor(log2(AC_START_SEEN + 1)). */
#ifndef AC_START_SEEN
#define AC_START_SEEN 3
#endif

AC_HOSTDEV void ac_scratch_reset(ac_scratch *S, uint32_t w, uint32_t h)
{
    ac_prob *c = &S->ctx.zero[0];
    for (unsigned i = 0; i < AC_INIT_COUNT; i++) {
#if defined(__CUDA_ARCH__)
        c[i].p = (uint16_t)(ac_init_dev[i] << 8);
#else
        c[i].p = (uint16_t)(ac_init_host[i] << 8);
#endif
        c[i].n = AC_START_SEEN;
    }
    /* Only the padding: every value's own cell is written as it is coded. */
    const size_t ms = w + 2 * AC_PAD;
    for (size_t i = 0; i < AC_PAD * ms; i++) {
        S->mag[i] = 0;
        S->sgn[i] = 0;
    }
    for (size_t y = AC_PAD; y < h + AC_PAD; y++)
        for (size_t i = 0; i < AC_PAD; i++) {
            S->mag[y * ms + i] = S->mag[y * ms + w + AC_PAD + i] = 0;
            S->sgn[y * ms + i] = S->sgn[y * ms + w + AC_PAD + i] = 0;
        }
}

/* Context sum and sign context at (x, y): row points at the neighbourhood
 * row of y (already offset by AC_PAD columns). */
AC_HOSTDEV uint32_t ac_sum(const uint32_t *row, ptrdiff_t ms, ptrdiff_t x, uint32_t wa, uint32_t wb)
{
    const uint32_t *up = row - ms;
    return wa * row[x - 1] + wb * up[x] + up[x - 1] + up[x + 1] + row[x - 2] + up[x - ms];
}

/* Where s = 0: the zero flag's context from four farther coded
 * neighbours (NWW, NEE, NNW, NNE): none, little or more is around. */
AC_HOSTDEV unsigned ac_far_ctx(const uint32_t *row, ptrdiff_t ms, ptrdiff_t x)
{
    const uint32_t *up = row - ms;
    const uint32_t t = up[x - 2] + up[x + 2] + up[x - ms - 1] + up[x - ms + 1];
    return t == 0 ? 0u : t <= 2 ? 1u : 2u;
}

AC_HOSTDEV unsigned ac_sign_ctx(const int8_t *row, ptrdiff_t ms, ptrdiff_t x)
{
    return (unsigned)(3 * row[x - 1] + row[x - ms] + 4);
}

AC_HOSTDEV uint32_t ac_weight_w(int orient) { return orient == 1 ? 1u : orient == 2 ? 3u : 2u; }
AC_HOSTDEV uint32_t ac_weight_n(int orient) { return orient == 1 ? 3u : orient == 2 ? 1u : 2u; }

AC_HOSTDEV void ac_note(uint32_t *mrow, int8_t *srow, uint32_t x, int32_t v)
{
    const uint32_t m = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    mrow[x] = m < AC_MAG_CAP ? m : AC_MAG_CAP;
    srow[x] = (int8_t)((v > 0) - (v < 0));
}

/* Codes the w x h values at src (rows ss apart) into out (cap bytes);
 * returns the payload size, SIZE_MAX if cap was too small. */
AC_HOSTDEV size_t ac_encode_values(const int32_t *src, size_t ss, uint32_t w, uint32_t h,
                                   int orient, ac_scratch *S, uint8_t *out, size_t cap)
{
    ac_enc e;
    ac_enc_init(&e, out, cap);
    ac_scratch_reset(S, w, h);
    ac_ctx *C = &S->ctx;
    const ptrdiff_t ms = (ptrdiff_t)w + 2 * AC_PAD;
    const uint32_t wa = ac_weight_w(orient), wb = ac_weight_n(orient);
    for (uint32_t y = 0; y < h; y++) {
        uint32_t *mrow = S->mag + (y + AC_PAD) * ms + AC_PAD;
        int8_t *srow = S->sgn + (y + AC_PAD) * ms + AC_PAD;
        const int32_t *row = src + y * ss;
        for (uint32_t x = 0; x < w; x++) {
            const int32_t v = row[x];
            const unsigned k = ac_bucket(ac_sum(mrow, ms, x, wa, wb));
            ac_prob *z = k ? &C->zero[k] : &C->zero0[ac_far_ctx(mrow, ms, x)];
            ac_encode_bit(&e, z, v != 0);
            if (v == 0) {
                mrow[x] = 0;
                srow[x] = 0;
                continue;
            }
            ac_encode_bit(&e, &C->sign[ac_sign_ctx(srow, ms, x)], v < 0);
            const uint32_t m = (v < 0 ? 0u - (uint32_t)v : (uint32_t)v) - 1u;
            ac_note(mrow, srow, x, v);
            ac_encode_bit(&e, &C->ge1[k], m >= 1);
            if (m < 1) continue;
            ac_encode_bit(&e, &C->ge2[k], m >= 2);
            if (m < 2) continue;
            const uint32_t r = m - 1; /* >= 1 */
            const unsigned n = ac_bitlen(r);
            /* Bit (n > i + 1) in len[k][min(i, AC_NLEN - 1)], i = 0, 1, ... */
            for (unsigned i = 0; i < 31; i++) {
                ac_encode_bit(&e, &C->len[k][i < AC_NLEN ? i : AC_NLEN - 1], n > i + 1);
                if (n <= i + 1) break;
            }
            if (n >= 2) {
                ac_encode_bit(&e, &C->mant[n - 1], (r >> (n - 2)) & 1u);
                if (n >= 3) ac_encode_direct(&e, r & ((1u << (n - 2)) - 1u), n - 2);
            }
        }
    }
    return ac_enc_finish(&e);
}

/* Worst-case payload of w x h values: each takes at most 4 + 31 + 1
 * modelled bits and 30 direct ones, a modelled bit at most 2 bytes. */
AC_HOSTDEV size_t ac_values_bound(uint32_t w, uint32_t h) { return (size_t)w * h * 102 + 8; }

/* Decodes w x h values into dst (rows ds apart) from size bytes at src.
 * Returns 0 on success, 1 for a payload no encoder writes (a magnitude
 * beyond an int32, or a stream left inconsistent). */
AC_HOSTDEV int ac_decode_values(const uint8_t *src, size_t size, int32_t *dst, size_t ds,
                                uint32_t w, uint32_t h, int orient, ac_scratch *S)
{
    ac_dec d;
    ac_dec_init(&d, src, size);
    ac_scratch_reset(S, w, h);
    ac_ctx *C = &S->ctx;
    const ptrdiff_t ms = (ptrdiff_t)w + 2 * AC_PAD;
    const uint32_t wa = ac_weight_w(orient), wb = ac_weight_n(orient);
    for (uint32_t y = 0; y < h; y++) {
        uint32_t *mrow = S->mag + (y + AC_PAD) * ms + AC_PAD;
        int8_t *srow = S->sgn + (y + AC_PAD) * ms + AC_PAD;
        int32_t *row = dst + y * ds;
        for (uint32_t x = 0; x < w; x++) {
            const unsigned k = ac_bucket(ac_sum(mrow, ms, x, wa, wb));
            ac_prob *z = k ? &C->zero[k] : &C->zero0[ac_far_ctx(mrow, ms, x)];
            if (!ac_decode_bit(&d, z)) {
                row[x] = 0;
                mrow[x] = 0;
                srow[x] = 0;
                continue;
            }
            const unsigned neg = ac_decode_bit(&d, &C->sign[ac_sign_ctx(srow, ms, x)]);
            uint32_t m = 0;
            if (ac_decode_bit(&d, &C->ge1[k])) {
                m = 1;
                if (ac_decode_bit(&d, &C->ge2[k])) {
                    unsigned n = 1;
                    while (n < 32 &&
                           ac_decode_bit(&d, &C->len[k][n - 1 < AC_NLEN ? n - 1 : AC_NLEN - 1]))
                        n++;
                    uint32_t r = 1;
                    if (n >= 2) {
                        r = 2u | ac_decode_bit(&d, &C->mant[n - 1]);
                        if (n >= 3) r = r << (n - 2) | ac_decode_direct(&d, n - 2);
                    }
                    if (r > 0x7FFFFFFEu) return 1; /* m = r + 1 past 2^31 - 1 */
                    m = r + 1;
                }
            }
            /* |v| = m + 1: up to 2^31 - 1 either sign, 2^31 only negative. */
            if (m == 0x7FFFFFFFu && !neg) return 1;
            const int32_t v = (int32_t)(neg ? 0u - (m + 1u) : m + 1u);
            row[x] = v;
            ac_note(mrow, srow, x, v);
        }
    }
    return ac_dec_consistent(&d) ? 0 : 1;
}

#endif /* WC_AC_MODEL_H */
