/*
 * dwt_expl.h -- the arithmetic of Barina, Kula and Zemcik's Explosive
 * non-separable lifting scheme (seeds/barina-parallel-wavelet-schemes.txt,
 * eqs. 24-27) for the CDF 5/3 and 9/7 filters, compiled from this one
 * source by the CPU reference (dwt_expl.c) and the CUDA kernels
 * (cuda/dwt_mono_level.cuh), so the two give the same bits.
 *
 * Quads as in dwt_mono.h: a = (even row, even column), b = (even, odd),
 * c = (odd, even), d = (odd, odd), becoming LL, HL, LH, HH. Each lifting
 * pair (predict P, update U) is three spatial steps instead of the
 * separable scheme's four; in each step the values written are not read,
 * so each is an ordinary lifting step (reversible in integers step by
 * step, in any order inside the step):
 *   explode a  b from the a beside it, c from the a above and below, d
 *              from the four diagonal a (-P P*: the a-part of d's two
 *              predicts, with the opposite sign);
 *   middle     a from the b beside and the c above and below (U b + U* c),
 *              d from the b above and below and the c beside (P* b + P c);
 *   explode d  b from the d above and below, c from the d beside, a from
 *              the four diagonal d (U U*).
 * The paper's eq. 27 as printed lost the U U* entry of the last step; the
 * product of the three steps equals the separable pair only with it
 * (tests/transform/test_dwt_nonsep.c checks against a double-precision
 * separable lifting).
 *
 * 5/3, int32 with sums wrapping modulo 2^32, >> is floor:
 *   b -= (a_w + a_e) >> 1;   c -= (a_n + a_s) >> 1
 *   d -= ((a_nw + a_ne) + (a_sw + a_se) + 2) >> 2
 *   a += ((b_w + b_e) + (c_n + c_s) + 2) >> 2
 *   d -= ((b_n + b_s) + (c_w + c_e)) >> 1
 *   b += (d_n + d_s + 2) >> 2;   c += (d_w + d_e + 2) >> 2
 *   a += ((d_nw + d_ne) + (d_sw + d_se) + 8) >> 4
 * 9/7, float32, no FMA, one rounding per written operator, (kP, kU) =
 * (alpha, beta) then (gamma, delta), kP2 = kP * kP and kU2 = kU * kU
 * rounded to float:
 *   b = b + (kP * (a_w + a_e));   c = c + (kP * (a_n + a_s))
 *   d = d - (kP2 * ((a_nw + a_ne) + (a_sw + a_se)))
 *   a = a + (kU * ((b_w + b_e) + (c_n + c_s)))
 *   d = d + (kP * ((b_n + b_s) + (c_w + c_e)))
 *   b = b + (kU * (d_n + d_s));   c = c + (kU * (d_w + d_e))
 *   a = a + (kU2 * ((d_nw + d_ne) + (d_sw + d_se)))
 * then the Monolithic scheme's scaling. Inverses undo the steps in reverse
 * order with the same expressions and the opposite operation. Every sum is
 * symmetric in each direction (float addition commutes), so mirrored
 * neighbours give exactly the reflected values, as in dwt_mono.h.
 */
#ifndef WC_DWT_EXPL_H
#define WC_DWT_EXPL_H

#include <stdint.h>

#include "hostdev.h"

/* ---- 5/3 (wrapping int32): the amounts each step adds or subtracts -------- */

/* (x0 + x1) >> 1: b or c from two a (subtracted). */
WC_HOSTDEV int32_t expl53_p2(int32_t x0, int32_t x1)
{
    return (int32_t)((uint32_t)x0 + (uint32_t)x1) >> 1;
}
/* ((x0 + x1) + (x2 + x3) + 2) >> 2: d from four diagonal a (subtracted),
 * a from two b and two c (added). */
WC_HOSTDEV int32_t expl53_q4(int32_t x0, int32_t x1, int32_t x2, int32_t x3)
{
    return (int32_t)(((uint32_t)x0 + (uint32_t)x1) + ((uint32_t)x2 + (uint32_t)x3) + 2u) >> 2;
}
/* ((x0 + x1) + (x2 + x3)) >> 1: d from two b and two c (subtracted). */
WC_HOSTDEV int32_t expl53_h4(int32_t x0, int32_t x1, int32_t x2, int32_t x3)
{
    return (int32_t)(((uint32_t)x0 + (uint32_t)x1) + ((uint32_t)x2 + (uint32_t)x3)) >> 1;
}
/* (x0 + x1 + 2) >> 2: b or c from two d (added). */
WC_HOSTDEV int32_t expl53_u2(int32_t x0, int32_t x1)
{
    return (int32_t)((uint32_t)x0 + (uint32_t)x1 + 2u) >> 2;
}
/* ((x0 + x1) + (x2 + x3) + 8) >> 4: a from four diagonal d (added). */
WC_HOSTDEV int32_t expl53_s4(int32_t x0, int32_t x1, int32_t x2, int32_t x3)
{
    return (int32_t)(((uint32_t)x0 + (uint32_t)x1) + ((uint32_t)x2 + (uint32_t)x3) + 8u) >> 4;
}
WC_HOSTDEV int32_t expl53_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
WC_HOSTDEV int32_t expl53_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* ---- 9/7 (float32) ------------------------------------------------------------- */

/* k * (x0 + x1) and k * ((x0 + x1) + (x2 + x3)): the amounts, added by the
 * forward, subtracted by the inverse (the diagonal a step the other way
 * round: its constant is -kP2, written as a subtraction of kP2). */
WC_HOSTDEV float expl97_t2(float k, float x0, float x1) { return k * (x0 + x1); }
WC_HOSTDEV float expl97_t4(float k, float x0, float x1, float x2, float x3)
{
    return k * ((x0 + x1) + (x2 + x3));
}

#endif /* WC_DWT_EXPL_H */
