/*
 * lot8.h -- CPU reference lapped orthogonal transform (LOT) with 8x8
 * blocks: Malvar's fast type-I LOT (DCT, a butterfly between each block's
 * even and odd halves, a butterfly between neighbouring blocks, a cascade
 * of plane rotations on the odd half), separable, with symmetric extension
 * at the image edges so a w x h plane gives exactly w x h coefficients.
 *
 * Grid and layout. Along one dimension of n = 8M samples, LOT block b
 * (b = 0..M-1) owns samples [8b, 8b+8) and its 8 coefficients are stored
 * there, in frequency order (index 0 the DC-like function). Its 8 basis
 * functions are 16 samples long, [8b-4, 8b+12): half a block into each
 * neighbour. In 2-D each block's 64 coefficients sit in the block's own
 * 8x8 area exactly as for the DCT: coefficient (v, u) of block (bx, by) at
 * plane[(8*by + v) * w + 8*bx + u], u the horizontal frequency.
 *
 * 1-D forward transform (the numeric contract; CUDA must give the same
 * bits, so evaluate exactly as written, no FMA):
 *  1. Shifted blocks s = -1..M-1 cover samples [8s+4, 8s+12), i.e. the DCT
 *     runs on the grid offset by half a block. Samples outside [0, n) come
 *     from half-sample symmetric extension, x[-1-i] = x[i] and
 *     x[n+i] = x[n-1-i], so the first and last shifted blocks are
 *     [x3 x2 x1 x0 x0 x1 x2 x3] and [x(n-4) .. x(n-1) x(n-1) .. x(n-4)].
 *  2. Stage 1, per shifted block (lot8_stage1_fwd): c = dct8_fwd8(block),
 *     p[k] = c[2k] + c[2k+1], q[k] = c[2k] - c[2k+1]  (k = 0..3).
 *  3. Stage 2, per LOT block b (lot8_stage2_fwd), from q of shifted block
 *     b-1 and p of shifted block b: e[k] = (q[k] + p[k]) * 0.5f,
 *     d[k] = (q[k] - p[k]) * 0.5f, then three plane rotations of d with
 *     theta = 0.13 pi, 0.16 pi, 0.13 pi on the pairs (0,1), (1,2), (2,3) in
 *     that order; output [e0 d0 e1 d1 e2 d2 e3 d3] (rotated d).
 * 1-D inverse: per LOT block b, lot8_stage2_inv gives qh = q/2 of shifted
 * block b-1 and ph = p/2 of shifted block b; shifted block s is rebuilt by
 * lot8_stage1_inv from its ph (from LOT block s) and qh (from LOT block
 * s+1). The edge blocks lack one half, which is its mirror: ph := qh for
 * s = -1, qh := ph for s = M-1; of those two only the in-image half
 * (samples 4..7, resp. 0..3) is kept.
 * 2-D: forward = 1-D forward along every row, then along every column;
 * inverse = 1-D inverse along every column, then along every row.
 *
 * Why the edges need no special basis: a mirrored shifted block is
 * symmetric, so its odd DCT coefficients are exactly 0 (every x[k]-x[7-k]
 * in dct8_fwd8 is 0) and p = q = its even half, which carries a gain of
 * sqrt(2) -- the same gain the first butterfly gives interior blocks. The
 * whole transform, edges included, is therefore orthonormal (energy is
 * kept, the inverse is the transpose), with no extra coefficients and no
 * extra blocks; a single 8-sample signal works too (both shifted blocks
 * are mirrored). In the interior it is exactly Malvar's LOT: coding gain
 * 9.20 dB on an AR(1) rho = 0.95 source, against 8.83 dB for the DCT.
 */
#ifndef WC_LOT8_H
#define WC_LOT8_H

#include "hostdev.h"

#include <stddef.h>
#include <stdint.h>

#include "dct8.h"

/* cos and sin of the rotation angles; hex values are the exact floats. */
#define LOT8_C1 0.91775462568398114f /* cos(0.13 pi)  0x1.d5e3f0p-1 */
#define LOT8_S1 0.39714789063478060f /* sin(0.13 pi)  0x1.96adf0p-2 */
#define LOT8_C2 0.87630668004386359f /* cos(0.16 pi)  0x1.c0ab44p-1 */
#define LOT8_S2 0.48175367410171527f /* sin(0.16 pi)  0x1.ed50d6p-2 */
#define LOT8_C3 LOT8_C1              /* theta3 = theta1 */
#define LOT8_S3 LOT8_S1

/* Stage 1 forward: pq[0..3] = p, pq[4..7] = q of the 8 samples x. */
WC_HOSTDEV void lot8_stage1_fwd(const float *x, float *pq)
{
    float c[8];
    dct8_fwd8(x, c);
    pq[0] = c[0] + c[1];
    pq[1] = c[2] + c[3];
    pq[2] = c[4] + c[5];
    pq[3] = c[6] + c[7];
    pq[4] = c[0] - c[1];
    pq[5] = c[2] - c[3];
    pq[6] = c[4] - c[5];
    pq[7] = c[6] - c[7];
}

/* Stage 2 forward: the 8 coefficients y of one LOT block from q (left
 * shifted block) and p (right shifted block). */
WC_HOSTDEV void lot8_stage2_fwd(const float *q, const float *p, float *y)
{
    float e0 = (q[0] + p[0]) * 0.5f, d0 = (q[0] - p[0]) * 0.5f;
    float e1 = (q[1] + p[1]) * 0.5f, d1 = (q[1] - p[1]) * 0.5f;
    float e2 = (q[2] + p[2]) * 0.5f, d2 = (q[2] - p[2]) * 0.5f;
    float e3 = (q[3] + p[3]) * 0.5f, d3 = (q[3] - p[3]) * 0.5f;
    /* Malvar's Z~: rotate (d0,d1), then (d1',d2), then (d2',d3). */
    float a0 = LOT8_C1 * d0 - LOT8_S1 * d1;
    float a1 = LOT8_C1 * d1 + LOT8_S1 * d0;
    float b1 = LOT8_C2 * a1 - LOT8_S2 * d2;
    float b2 = LOT8_C2 * d2 + LOT8_S2 * a1;
    float g2 = LOT8_C3 * b2 - LOT8_S3 * d3;
    float g3 = LOT8_C3 * d3 + LOT8_S3 * b2;
    y[0] = e0;
    y[1] = a0;
    y[2] = e1;
    y[3] = b1;
    y[4] = e2;
    y[5] = g2;
    y[6] = e3;
    y[7] = g3;
}

/* Stage 2 inverse: from the 8 coefficients y of a LOT block, qh = q/2 of
 * its left shifted block and ph = p/2 of its right one. Rotations undone in
 * reverse order, each transposed; the 1/2 sits here (the transpose of the
 * forward flow graph), so stage 1 inverse has none. */
WC_HOSTDEV void lot8_stage2_inv(const float *y, float *qh, float *ph)
{
    float b2 = LOT8_C3 * y[5] + LOT8_S3 * y[7];
    float d3 = LOT8_C3 * y[7] - LOT8_S3 * y[5];
    float a1 = LOT8_C2 * y[3] + LOT8_S2 * b2;
    float d2 = LOT8_C2 * b2 - LOT8_S2 * y[3];
    float d0 = LOT8_C1 * y[1] + LOT8_S1 * a1;
    float d1 = LOT8_C1 * a1 - LOT8_S1 * y[1];
    float e0 = y[0], e1 = y[2], e2 = y[4], e3 = y[6];
    qh[0] = (e0 + d0) * 0.5f;
    qh[1] = (e1 + d1) * 0.5f;
    qh[2] = (e2 + d2) * 0.5f;
    qh[3] = (e3 + d3) * 0.5f;
    ph[0] = (e0 - d0) * 0.5f;
    ph[1] = (e1 - d1) * 0.5f;
    ph[2] = (e2 - d2) * 0.5f;
    ph[3] = (e3 - d3) * 0.5f;
}

/* Stage 1 inverse: the 8 samples x of a shifted block from its ph and qh
 * (which may be the same array: the mirrored edge blocks). */
WC_HOSTDEV void lot8_stage1_inv(const float *ph, const float *qh, float *x)
{
    float c[8];
    c[0] = ph[0] + qh[0];
    c[1] = ph[0] - qh[0];
    c[2] = ph[1] + qh[1];
    c[3] = ph[1] - qh[1];
    c[4] = ph[2] + qh[2];
    c[5] = ph[2] - qh[2];
    c[6] = ph[3] + qh[3];
    c[7] = ph[3] - qh[3];
    dct8_inv8(c, x);
}

/* Scratch elements lot8_forward / lot8_inverse need for a w x h plane
 * (a few rows of w floats today; always size it with this call). */
size_t lot8_scratch_elems(uint32_t w, uint32_t h);

/* In-place forward 2-D LOT of a w x h plane (row stride w). w and h must
 * be multiples of 8 (pad with blk8_pad first); 0 does nothing. scratch
 * holds lot8_scratch_elems(w, h) floats owned by the caller (contents
 * ignored and clobbered; not NULL unless that count is 0) and must not
 * overlap plane. No allocation. */
/* The forward's column passes over w columns at once, a lane a column:
 * stage 1 of 8 rows in into 8 rows out (p then q halves), stage 2 of the
 * q half of one block row and the p half of the next into the 8 rows of
 * a block row. Rows never overlap (read-only rows may repeat). The
 * encoder by rows (codec/stream_dct.c) runs the same lanes as
 * lot8_forward, so its bits are the whole plane's. */
void lot8_lanes_stage1_fwd(const float *const in[8], float *const out[8], uint32_t w);
void lot8_lanes_stage2_fwd(const float *const q[4], const float *const p[4], float *const out[8],
                           uint32_t w);
void lot8_forward(float *plane, uint32_t w, uint32_t h, float *scratch);

/* In-place inverse of lot8_forward, same conditions. */
void lot8_inverse(float *plane, uint32_t w, uint32_t h, float *scratch);

#endif /* WC_LOT8_H */
