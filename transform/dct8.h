/*
 * dct8.h -- CPU reference blocked 8x8 DCT-II (orthonormal, the JPEG / IEEE
 * 1180 definition) and the mirror padding that brings a plane to whole
 * 8x8 blocks.
 *
 * Definition. For one 8-sample signal x[0..7] the coefficients are
 *     X[u] = sqrt(2/8) * C(u) * sum_t x[t] * cos((2t+1) u pi / 16),
 *     C(0) = 1/sqrt(2), C(u>0) = 1,
 * an orthonormal matrix: the inverse is its transpose and energy is kept
 * (Parseval). The 8x8 block transform applies it to every row, then to every
 * column, so a constant block of value a gives X[0][0] = 8a (DC = sum / 8)
 * and nothing else. Coefficients are stored row-major: out[v*8 + u], where u
 * (the column index) is the horizontal frequency and v the vertical one.
 *
 * Numeric contract (the CUDA backend must give the same bits):
 *  - Forward 8x8: dct8_fwd8 on each of the 8 rows (row r = in[8r..8r+7]),
 *    then dct8_fwd8 on each of the 8 columns of that result.
 *  - Inverse 8x8: dct8_inv8 on each of the 8 columns, then on each row (the
 *    forward steps undone in reverse order).
 *  - The 1-D kernels are below, written out in full: every float
 *    expression is evaluated exactly as written, left to right, in float
 *    (no FMA: the build uses -ffp-contract=off; CUDA must use --fmad=false
 *    or __fadd_rn / __fmul_rn). Constants are the float literals given,
 *    each the float nearest to the exact value in the comment. a*b and b*a
 *    are the same bits, and so are a - b*c and a + (-b)*c, but (a+b)+c and
 *    a+(b+c) are not: keep the grouping.
 *  - The plane functions give the same bits as the block functions: a plane
 *    is just many blocks, each transformed independently.
 *
 * The 1-D kernels are the Arai-Agui-Nakajima (AAN) factorisation in the
 * form of the IJG's jfdctflt.c / jidctflt.c: 5 multiplies and 29 adds, with
 * AAN's output scaling kept as a separate, explicit multiply by one
 * constant per coefficient (DCT8_S* forward, after the butterflies;
 * DCT8_T* inverse, before them) so the result is orthonormal. Chosen over
 * Loeffler or Feig-Linzer because it is the cheapest in multiplies and its
 * data flow is a plain sequence of two-operand float operations that a
 * CUDA kernel can copy line for line.
 */
#ifndef WC_DCT8_H
#define WC_DCT8_H

#include "hostdev.h"

#include <stddef.h>
#include <stdint.h>

/* ---- 1-D kernel constants ------------------------------------------------
 * c_k = cos(k*pi/16). Hex values are the exact floats the literals round to. */
#define DCT8_A1 0.70710678118654752f /* c_4             0x1.6a09e6p-1 */
#define DCT8_A2 0.54119610014619698f /* c_2 - c_6       0x1.1517a8p-1 */
#define DCT8_A4 1.30656296487637652f /* c_2 + c_6       0x1.4e7aeap+0 */
#define DCT8_A5 0.38268343236508977f /* c_6             0x1.87de2ap-2 */
#define DCT8_B1 1.41421356237309505f /* sqrt(2)         0x1.6a09e6p+0 */
#define DCT8_B2 1.84775906502257351f /* 2 c_2           0x1.d906bcp+0 */
#define DCT8_B3 1.08239220029239396f /* 2 (c_2 - c_6)   0x1.1517a8p+0 */
#define DCT8_B4 2.61312592975275306f /* 2 (c_2 + c_6)   0x1.4e7aeap+1 */
/* Forward output scale S_k: 1/sqrt(8) for k = 0, 1/(4 c_k) otherwise. */
#define DCT8_S0 0.35355339059327376f /* 0x1.6a09e6p-2 */
#define DCT8_S1 0.25489778955207958f /* 0x1.0503eep-2 */
#define DCT8_S2 0.27059805007309849f /* 0x1.1517a8p-2 */
#define DCT8_S3 0.30067244346752264f /* 0x1.33e37ap-2 */
#define DCT8_S4 0.35355339059327376f /* 0x1.6a09e6p-2 */
#define DCT8_S5 0.44998811156820784f /* 0x1.ccc9aep-2 */
#define DCT8_S6 0.65328148243818826f /* 0x1.4e7aeap-1 */
#define DCT8_S7 1.28145772387075310f /* 0x1.480d9ep+0 */
/* Inverse input scale T_k: 1/sqrt(8) for k = 0, c_k / 2 otherwise. */
#define DCT8_T0 0.35355339059327376f /* 0x1.6a09e6p-2 */
#define DCT8_T1 0.49039264020161522f /* 0x1.f6297cp-2 */
#define DCT8_T2 0.46193976625564337f /* 0x1.d906bcp-2 */
#define DCT8_T3 0.41573480615127262f /* 0x1.a9b662p-2 */
#define DCT8_T4 0.35355339059327376f /* 0x1.6a09e6p-2 */
#define DCT8_T5 0.27778511650980111f /* 0x1.1c73b4p-2 */
#define DCT8_T6 0.19134171618254489f /* 0x1.87de2ap-3 */
#define DCT8_T7 0.09754516100806413f /* 0x1.8f8b84p-4 */

/* Forward orthonormal 8-point DCT-II: y = DCT(x). x and y may be the same
 * array (all inputs are read before any output is written). This body IS
 * the contract: mirror it statement for statement. */
WC_HOSTDEV void dct8_fwd8(const float *x, float *y)
{
    float t0 = x[0] + x[7], t7 = x[0] - x[7];
    float t1 = x[1] + x[6], t6 = x[1] - x[6];
    float t2 = x[2] + x[5], t5 = x[2] - x[5];
    float t3 = x[3] + x[4], t4 = x[3] - x[4];
    /* Even half: a 4-point DCT of the sums. */
    float t10 = t0 + t3, t13 = t0 - t3;
    float t11 = t1 + t2, t12 = t1 - t2;
    float r0 = t10 + t11, r4 = t10 - t11;
    float z1 = (t12 + t13) * DCT8_A1;
    float r2 = t13 + z1, r6 = t13 - z1;
    /* Odd half: AAN's rotation done with 3 multiplies via z5. */
    float u10 = t4 + t5, u11 = t5 + t6, u12 = t6 + t7;
    float z5 = (u10 - u12) * DCT8_A5;
    float z2 = DCT8_A2 * u10 + z5;
    float z4 = DCT8_A4 * u12 + z5;
    float z3 = u11 * DCT8_A1;
    float z11 = t7 + z3, z13 = t7 - z3;
    float r5 = z13 + z2, r3 = z13 - z2;
    float r1 = z11 + z4, r7 = z11 - z4;
    /* AAN leaves X[k] scaled by sqrt(8) (k = 0) or 4 c_k: undo it here. */
    y[0] = r0 * DCT8_S0;
    y[1] = r1 * DCT8_S1;
    y[2] = r2 * DCT8_S2;
    y[3] = r3 * DCT8_S3;
    y[4] = r4 * DCT8_S4;
    y[5] = r5 * DCT8_S5;
    y[6] = r6 * DCT8_S6;
    y[7] = r7 * DCT8_S7;
}

/* Inverse of dct8_fwd8 (the orthonormal DCT-III): x = IDCT(y). y and x may
 * be the same array. This body IS the contract. */
WC_HOSTDEV void dct8_inv8(const float *y, float *x)
{
    /* The scale AAN's butterflies expect, applied first. */
    float c0 = y[0] * DCT8_T0, c1 = y[1] * DCT8_T1;
    float c2 = y[2] * DCT8_T2, c3 = y[3] * DCT8_T3;
    float c4 = y[4] * DCT8_T4, c5 = y[5] * DCT8_T5;
    float c6 = y[6] * DCT8_T6, c7 = y[7] * DCT8_T7;
    /* Even half. */
    float t10 = c0 + c4, t11 = c0 - c4;
    float t13 = c2 + c6;
    float t12 = (c2 - c6) * DCT8_B1 - t13;
    float e0 = t10 + t13, e3 = t10 - t13;
    float e1 = t11 + t12, e2 = t11 - t12;
    /* Odd half. */
    float z13 = c5 + c3, z10 = c5 - c3;
    float z11 = c1 + c7, z12 = c1 - c7;
    float o7 = z11 + z13;
    float u11 = (z11 - z13) * DCT8_B1;
    float z5 = (z10 + z12) * DCT8_B2;
    float u10 = DCT8_B3 * z12 - z5;
    float u12 = z5 - DCT8_B4 * z10;
    float o6 = u12 - o7;
    float o5 = u11 - o6;
    float o4 = u10 + o5;
    x[0] = e0 + o7;
    x[7] = e0 - o7;
    x[1] = e1 + o6;
    x[6] = e1 - o6;
    x[2] = e2 + o5;
    x[5] = e2 - o5;
    x[4] = e3 + o4;
    x[3] = e3 - o4;
}

/* ---- blocks and planes ---------------------------------------------------- */

/* Forward 8x8 DCT of one block: in and out are 64 floats, row-major,
 * either the same pointer (in place) or not overlapping; neither NULL. */
void dct8_forward_block(const float *in, float *out);

/* Inverse 8x8 DCT of one block (out = inverse of dct8_forward_block); in
 * and out as for dct8_forward_block. */
void dct8_inverse_block(const float *in, float *out);

/* In-place forward DCT of every 8x8 block of a w x h plane (row stride w).
 * w and h must be multiples of 8 (pad with blk8_pad first); 0 is allowed
 * and does nothing. Block (bx, by)'s coefficients replace its pixels:
 * coefficient (v, u) lands at plane[(8*by + v) * w + 8*bx + u]. No
 * allocation; the caller owns plane. */
void dct8_forward(float *plane, uint32_t w, uint32_t h);

/* In-place inverse of dct8_forward, same layout and conditions. */
void dct8_inverse(float *plane, uint32_t w, uint32_t h);

/* ---- padding to whole blocks ---------------------------------------------- */

/* n rounded up to a multiple of 8 (n <= UINT32_MAX - 7). */
static inline uint32_t blk8_ceil8(uint32_t n) { return (n + 7u) & ~7u; }

/* Copies the w x h plane src (row stride w) into the top-left of the
 * pw x ph plane dst (row stride pw) and fills the rest by half-sample
 * symmetric extension: column w+i repeats column w-1-i (the edge sample is
 * repeated once, then the image mirrors), folding again for planes narrower
 * than the padding (period 2w), likewise for rows. This is the extension
 * the LOT's own edge handling assumes, so padded planes stay smooth across
 * the border and the decoder just crops. Normally pw = blk8_ceil8(w) and
 * ph = blk8_ceil8(h), but any pw >= w, ph >= h works. Requires w, h >= 1
 * (a 0-sized src with a 0-sized dst does nothing); src and dst must not
 * overlap. Pure copy: the output bits are exactly input bits. */
void blk8_pad(const float *src, uint32_t w, uint32_t h, float *dst, uint32_t pw, uint32_t ph);
/* One row's part of it: row[w..pw) from the row's own w samples. */
void blk8_pad_tail(float *row, uint32_t w, uint32_t pw);

/* Source index for padded index i of a dimension of n samples: half-sample
 * symmetric extension, periodic with period 2n so that even a 1- or
 * 3-sample dimension padded by 7 stays in range. */
static inline uint32_t blk8_mirror(uint32_t i, uint32_t n)
{
    uint64_t m = (uint64_t)i % (2u * (uint64_t)n);
    return (uint32_t)(m < n ? m : 2u * (uint64_t)n - 1u - m);
}

#endif /* WC_DCT8_H */
