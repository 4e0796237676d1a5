/*
 * lot8.c -- the 8x8 LOT on planes. The arithmetic is lot8.h's stage
 * kernels (and dct8.h's under them); this file walks the shifted-block grid
 * and the image edges. Rows go one line at a time through a line buffer;
 * columns go through "lane" loops that run one column per lane across the
 * whole plane width. Both shapes vectorise, lanes never mix and every lane
 * runs the same kernels, so both give the bits of the scalar definition.
 */
#include "lot8.h"

#include <string.h>

/* ---- rows: one line at a time ---------------------------------------------
 * Shifted block s is kept in slot s+1 of a line buffer of m+1 slots of 8
 * floats, so LOT block b's inputs (q of slot b, p of slot b+1) are the 8
 * contiguous floats at 8b+4, and every loop below is a plain strided run
 * the compiler can vectorise. */

/* The first and last shifted blocks: half-sample mirror of the 4 edge samples. */
static void lot8_mirror_left(const float *x, float *seg)
{
    for (int i = 0; i < 4; i++) seg[i] = x[3 - i], seg[4 + i] = x[i];
}

static void lot8_mirror_right(const float *xend4, float *seg)
{
    for (int i = 0; i < 4; i++) seg[i] = xend4[i], seg[4 + i] = xend4[3 - i];
}

/* Slot i holds [p | q] of shifted block i-1. The whole line goes through
 * stage 1 before stage 2 writes, so in place is safe. */
static void lot8_fwd_line(float *restrict x, uint32_t n, float *restrict pq)
{
    uint32_t m = n / 8;
    float seg[8];
    lot8_mirror_left(x, seg);
    lot8_stage1_fwd(seg, pq);
    for (uint32_t i = 1; i < m; i++) lot8_stage1_fwd(x + 8 * i - 4, pq + 8 * i);
    lot8_mirror_right(x + n - 4, seg);
    lot8_stage1_fwd(seg, pq + 8 * m);
    for (uint32_t b = 0; b < m; b++) lot8_stage2_fwd(pq + 8 * b + 4, pq + 8 * b + 8, x + 8 * b);
}

/* Slot i holds [ph | qh] of shifted block i-1; LOT block b fills qh of slot
 * b and ph of slot b+1. The edge slots get their missing half by mirror. */
static void lot8_inv_line(float *restrict x, uint32_t n, float *restrict hq)
{
    uint32_t m = n / 8;
    float seg[8];
    for (uint32_t b = 0; b < m; b++) lot8_stage2_inv(x + 8 * b, hq + 8 * b + 4, hq + 8 * b + 8);
    memcpy(hq, hq + 4, 4 * sizeof *hq);                 /* left edge: ph := qh */
    memcpy(hq + 8 * m + 4, hq + 8 * m, 4 * sizeof *hq); /* right edge: qh := ph */
    lot8_stage1_inv(hq, hq + 4, seg);
    memcpy(x, seg + 4, 4 * sizeof *x);
    for (uint32_t i = 1; i < m; i++) lot8_stage1_inv(hq + 8 * i, hq + 8 * i + 4, x + 8 * i - 4);
    lot8_stage1_inv(hq + 8 * m, hq + 8 * m + 4, seg);
    memcpy(x + n - 4, seg, 4 * sizeof *x);
}

/* ---- columns: every column at once, one lane each ----------------------------
 * The lane loops take their rows as separate restrict pointers (rows never
 * overlap; read-only rows may repeat, as the mirrored edge blocks do) so the
 * compiler vectorises them without run-time alias checks. */
#define LOT8_R8(T, r)                                                                         \
    T *restrict r##0, T *restrict r##1, T *restrict r##2, T *restrict r##3, T *restrict r##4, \
        T *restrict r##5, T *restrict r##6, T *restrict r##7
#define LOT8_R4(T, r) T *restrict r##0, T *restrict r##1, T *restrict r##2, T *restrict r##3
#define LOT8_ROWS8(a) (a)[0], (a)[1], (a)[2], (a)[3], (a)[4], (a)[5], (a)[6], (a)[7]
#define LOT8_ROWS4(a) (a)[0], (a)[1], (a)[2], (a)[3]

static void lot8_cols_stage1_fwd(LOT8_R8(const float, i), LOT8_R8(float, o), uint32_t w)
{
    for (uint32_t x = 0; x < w; x++) {
        float v[8] = {i0[x], i1[x], i2[x], i3[x], i4[x], i5[x], i6[x], i7[x]}, pq[8];
        lot8_stage1_fwd(v, pq);
        o0[x] = pq[0];
        o1[x] = pq[1];
        o2[x] = pq[2];
        o3[x] = pq[3];
        o4[x] = pq[4];
        o5[x] = pq[5];
        o6[x] = pq[6];
        o7[x] = pq[7];
    }
}

static void lot8_cols_stage2_fwd(LOT8_R4(const float, q), LOT8_R4(const float, p),
                                 LOT8_R8(float, o), uint32_t w)
{
    for (uint32_t x = 0; x < w; x++) {
        float qv[4] = {q0[x], q1[x], q2[x], q3[x]}, pv[4] = {p0[x], p1[x], p2[x], p3[x]}, y[8];
        lot8_stage2_fwd(qv, pv, y);
        o0[x] = y[0];
        o1[x] = y[1];
        o2[x] = y[2];
        o3[x] = y[3];
        o4[x] = y[4];
        o5[x] = y[5];
        o6[x] = y[6];
        o7[x] = y[7];
    }
}

void lot8_lanes_stage1_fwd(const float *const in[8], float *const out[8], uint32_t w)
{
    lot8_cols_stage1_fwd(LOT8_ROWS8(in), LOT8_ROWS8(out), w);
}

void lot8_lanes_stage2_fwd(const float *const q[4], const float *const p[4], float *const out[8],
                           uint32_t w)
{
    lot8_cols_stage2_fwd(LOT8_ROWS4(q), LOT8_ROWS4(p), LOT8_ROWS8(out), w);
}

static void lot8_cols_stage2_inv(LOT8_R8(const float, i), LOT8_R4(float, q), LOT8_R4(float, p),
                                 uint32_t w)
{
    for (uint32_t x = 0; x < w; x++) {
        float y[8] = {i0[x], i1[x], i2[x], i3[x], i4[x], i5[x], i6[x], i7[x]}, qh[4], ph[4];
        lot8_stage2_inv(y, qh, ph);
        q0[x] = qh[0];
        q1[x] = qh[1];
        q2[x] = qh[2];
        q3[x] = qh[3];
        p0[x] = ph[0];
        p1[x] = ph[1];
        p2[x] = ph[2];
        p3[x] = ph[3];
    }
}

static void lot8_cols_stage1_inv(LOT8_R4(const float, p), LOT8_R4(const float, q),
                                 LOT8_R8(float, o), uint32_t w)
{
    for (uint32_t x = 0; x < w; x++) {
        float ph[4] = {p0[x], p1[x], p2[x], p3[x]}, qh[4] = {q0[x], q1[x], q2[x], q3[x]}, v[8];
        lot8_stage1_inv(ph, qh, v);
        o0[x] = v[0];
        o1[x] = v[1];
        o2[x] = v[2];
        o3[x] = v[3];
        o4[x] = v[4];
        o5[x] = v[5];
        o6[x] = v[6];
        o7[x] = v[7];
    }
}

/* Scratch layout for the columns, in rows of w floats: two sets of 8
 * (stage-1 results of the previous and current shifted block, swapped each
 * step) and 4 rows that absorb the mirrored half of the edge blocks on the
 * way back. The row pass reuses it as its line buffer (w + 8 floats). */
enum { LOT8_SCRATCH_ROWS = 20 };

size_t lot8_scratch_elems(uint32_t w, uint32_t h)
{
    (void)h; /* columns are done all at once, rows one at a time */
    return (size_t)LOT8_SCRATCH_ROWS * w;
}

/* Row pointers of 8 consecutive rows starting at row r0 (of row stride w). */
static void lot8_rows_at(float *base, size_t w, size_t r0, float *rows[8])
{
    for (int k = 0; k < 8; k++) rows[k] = base + (r0 + (size_t)k) * w;
}

/* The previous step's rows become the next step's free rows. */
static void lot8_swap_rows(float *a[8], float *b[8])
{
    float *t[8];
    memcpy(t, a, sizeof t);
    memcpy(a, b, sizeof t);
    memcpy(b, t, sizeof t);
}

/* Rows of shifted block s of an h-row plane, mirrored at the edges. */
static void lot8_shifted_rows(const float *plane, size_t w, uint32_t h, int64_t s,
                              const float *r[8])
{
    for (int k = 0; k < 8; k++) {
        int64_t y = 8 * s + 4 + k;
        if (y < 0) y = -1 - y;
        if (y >= (int64_t)h) y = 2 * (int64_t)h - 1 - y;
        r[k] = plane + (size_t)y * w;
    }
}

/* Forward along every column: shifted block b is read (stage 1 into cur)
 * before LOT block b's rows are written (stage 2), as in lot8_fwd_line. */
static void lot8_fwd_cols(float *plane, uint32_t w, uint32_t h, float *scratch)
{
    float *prev[8], *cur[8];
    const float *in[8];
    lot8_rows_at(scratch, w, 0, prev);
    lot8_rows_at(scratch, w, 8, cur);
    lot8_shifted_rows(plane, w, h, -1, in);
    lot8_cols_stage1_fwd(LOT8_ROWS8(in), LOT8_ROWS8(prev), w);
    for (uint32_t b = 0; b < h / 8; b++) {
        float *out[8];
        lot8_shifted_rows(plane, w, h, b, in);
        lot8_cols_stage1_fwd(LOT8_ROWS8(in), LOT8_ROWS8(cur), w);
        lot8_rows_at(plane, w, 8 * (size_t)b, out);
        lot8_cols_stage2_fwd(LOT8_ROWS4(prev + 4), LOT8_ROWS4(cur), LOT8_ROWS8(out), w);
        lot8_swap_rows(prev, cur);
    }
}

/* Inverse along every column: LOT block b (stage 2 into cur: ph in rows
 * 0..3, qh in rows 4..7) completes shifted block b-1, written to plane rows
 * [8b-4, 8b+4); the mirrored halves of the edge blocks, outside the plane,
 * go to the dump rows. */
static void lot8_inv_cols(float *plane, uint32_t w, uint32_t h, float *scratch)
{
    float *prev[8], *cur[8], *in[8], *out[8], *d[4];
    lot8_rows_at(scratch, w, 0, prev);
    lot8_rows_at(scratch, w, 8, cur);
    for (int k = 0; k < 4; k++) d[k] = scratch + (size_t)(16 + k) * w;
    for (uint32_t b = 0; b < h / 8; b++) {
        lot8_rows_at(plane, w, 8 * (size_t)b, in);
        lot8_cols_stage2_inv(LOT8_ROWS8(in), LOT8_ROWS4(cur + 4), LOT8_ROWS4(cur), w);
        if (b == 0) {
            float *o[8] = {d[0], d[1], d[2], d[3], in[0], in[1], in[2], in[3]};
            lot8_cols_stage1_inv(LOT8_ROWS4(cur + 4), LOT8_ROWS4(cur + 4), LOT8_ROWS8(o), w);
        } else {
            lot8_rows_at(plane, w, 8 * (size_t)b - 4, out);
            lot8_cols_stage1_inv(LOT8_ROWS4(prev), LOT8_ROWS4(cur + 4), LOT8_ROWS8(out), w);
        }
        lot8_swap_rows(prev, cur);
    }
    for (int k = 0; k < 4; k++) out[k] = plane + ((size_t)h - 4 + (size_t)k) * w;
    float *o[8] = {out[0], out[1], out[2], out[3], d[0], d[1], d[2], d[3]};
    lot8_cols_stage1_inv(LOT8_ROWS4(prev), LOT8_ROWS4(prev), LOT8_ROWS8(o), w);
}

void lot8_forward(float *plane, uint32_t w, uint32_t h, float *scratch)
{
    if (w == 0 || h == 0) return;
    for (uint32_t y = 0; y < h; y++) lot8_fwd_line(plane + (size_t)y * w, w, scratch);
    lot8_fwd_cols(plane, w, h, scratch);
}

void lot8_inverse(float *plane, uint32_t w, uint32_t h, float *scratch)
{
    if (w == 0 || h == 0) return;
    lot8_inv_cols(plane, w, h, scratch);
    for (uint32_t y = 0; y < h; y++) lot8_inv_line(plane + (size_t)y * w, w, scratch);
}
