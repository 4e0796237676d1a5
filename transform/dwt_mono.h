/*
 * dwt_mono.h -- the arithmetic of Barina, Kula and Zemcik's Monolithic
 * non-separable lifting scheme (seeds/barina-parallel-wavelet-schemes.txt,
 * eqs. 29-30) for the CDF 5/3 and 9/7 filters, compiled from this one
 * source by the CPU reference (dwt_mono.c) and the CUDA kernels
 * (cuda/dwt_mono_level.cuh), so the two give the same bits.
 *
 * A level splits the w x h region into 2x2 quads of the interleaved plane:
 * a = (even row, even column), b = (even, odd), c = (odd, even), d = (odd,
 * odd); they become LL, HL, LH and HH. Each lifting pair (predict P,
 * update U; one pair for 5/3, alpha/beta and gamma/delta for 9/7) is two
 * spatial steps instead of the separable scheme's four:
 *   predict  every d from the b, c, a around it (eq. 29's last row), and
 *            every b and c from the a beside / above and below it;
 *   update   every a from the b, c, d around it (eq. 30's first row), and
 *            every b and c from the d above and below / beside it.
 * Each step reads only values from before the step (b and c are predicted
 * from a, d from the unpredicted b and c), so in-place code predicts d
 * before b and c and updates a before b and c. Neighbours outside the
 * region are mirrored (whole-sample symmetric extension, index -1 -> 1,
 * n -> n - 2) in each direction, exactly as dwt.h's separable transforms.
 * A level with w < 2 or h < 2 has only one direction to lift and is the
 * separable level.
 *
 * As linear maps the two schemes are the same transform (Barina's point);
 * the rounding differs: 5/3 rounds each combined step once, 9/7 sums in a
 * different order. Hence new wavelet identifiers (DWT_53_MONO,
 * DWT_97_MONO), same band gains.
 *
 * 5/3, int32 with sums wrapping modulo 2^32 (as dwt53.c), >> is floor:
 *   d += -((2*((b_n + b_s) + (c_w + c_e)) - ((a_nw + a_ne) + (a_sw + a_se)) + 2) >> 2)
 *   b -= (a_w + a_e) >> 1;   c -= (a_n + a_s) >> 1
 *   a += (4*((b_w + b_e) + (c_n + c_s)) + ((d_nw + d_ne) + (d_sw + d_se)) + 8) >> 4
 *   b += (d_n + d_s + 2) >> 2;   c += (d_w + d_e + 2) >> 2
 * 9/7, float32, no FMA, one rounding per written operator, k the pair's
 * predict (alpha, gamma) or update (beta, delta) constant and k2 = k * k
 * rounded to float:
 *   d = d + ((k * ((b_n + b_s) + (c_w + c_e))) + (k2 * ((a_nw + a_ne) + (a_sw + a_se))))
 *   b = b + (k * (a_w + a_e));   c = c + (k * (a_n + a_s))
 *   a = a + ((k * ((b_w + b_e) + (c_n + c_s))) + (k2 * ((d_nw + d_ne) + (d_sw + d_se))))
 *   b = b + (k * (d_n + d_s));   c = c + (k * (d_w + d_e))
 * then a = (a * 1/K) * 1/K, b = (b * 1/K) * K, c = (c * K) * 1/K,
 * d = (d * K) * K (the separable order: vertical scale, then horizontal).
 * Inverses undo the steps in reverse order with subtraction: the update
 * (b and c first, then a from the restored b and c), the predict (b and c
 * first, then d), the scaling first of all for 9/7. Every sum is symmetric
 * in each direction, so mirroring at the borders is the exact reflection.
 */
#ifndef WC_DWT_MONO_H
#define WC_DWT_MONO_H

#include <stdint.h>

#include "hostdev.h"

/* ---- 5/3 (wrapping int32) ------------------------------------------------ */

WC_HOSTDEV int32_t mono53_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
WC_HOSTDEV int32_t mono53_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* The predict of d: ((2*(nb) - na + 2) >> 2) with nb the b and c sum, na
 * the a sum. */
WC_HOSTDEV int32_t mono53_pd(int32_t bn, int32_t bs, int32_t cw, int32_t ce, int32_t anw,
                             int32_t ane, int32_t asw, int32_t ase)
{
    const uint32_t nb = (uint32_t)bn + (uint32_t)bs + ((uint32_t)cw + (uint32_t)ce);
    const uint32_t na = (uint32_t)anw + (uint32_t)ane + ((uint32_t)asw + (uint32_t)ase);
    return (int32_t)(2u * nb - na + 2u) >> 2;
}
/* The predict of b or c from its two a neighbours. */
WC_HOSTDEV int32_t mono53_pe(int32_t a0, int32_t a1) { return mono53_add(a0, a1) >> 1; }
/* The update of a. */
WC_HOSTDEV int32_t mono53_ua(int32_t bw, int32_t be, int32_t cn, int32_t cs, int32_t dnw,
                             int32_t dne, int32_t dsw, int32_t dse)
{
    const uint32_t nb = (uint32_t)bw + (uint32_t)be + ((uint32_t)cn + (uint32_t)cs);
    const uint32_t nd = (uint32_t)dnw + (uint32_t)dne + ((uint32_t)dsw + (uint32_t)dse);
    return (int32_t)(4u * nb + nd + 8u) >> 4;
}
/* The update of b or c from its two d neighbours. */
WC_HOSTDEV int32_t mono53_ue(int32_t d0, int32_t d1)
{
    return mono53_add(mono53_add(d0, d1), 2) >> 2;
}

/* ---- 9/7 (float32) --------------------------------------------------------- */

/* x + ((k * s1) + (k2 * s2)) with s1, s2 the sums of dwt_mono.h's order. */
WC_HOSTDEV float mono97_q(float x, float k, float k2, float p0, float p1, float q0, float q1,
                          float r0, float r1, float r2, float r3)
{
    return x + ((k * ((p0 + p1) + (q0 + q1))) + (k2 * ((r0 + r1) + (r2 + r3))));
}
WC_HOSTDEV float mono97_q_inv(float x, float k, float k2, float p0, float p1, float q0, float q1,
                              float r0, float r1, float r2, float r3)
{
    return x - ((k * ((p0 + p1) + (q0 + q1))) + (k2 * ((r0 + r1) + (r2 + r3))));
}
/* x + (k * (e0 + e1)) and its undoing. */
WC_HOSTDEV float mono97_e(float x, float k, float e0, float e1) { return x + (k * (e0 + e1)); }
WC_HOSTDEV float mono97_e_inv(float x, float k, float e0, float e1) { return x - (k * (e0 + e1)); }

#endif /* WC_DWT_MONO_H */
