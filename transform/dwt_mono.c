/*
 * dwt_mono.c -- CPU reference of the Monolithic lifting scheme (dwt_mono.h
 * gives the operations and why). A level lifts the interleaved region in
 * place, one sweep per spatial step and parity group, in the order that
 * keeps every read on pre-step values (d before b and c in a predict, a
 * before b and c in an update), then splits it into the Mallat layout: each
 * row into its low and high columns, then each strip of columns into low
 * and high rows (dwt_nonsep.c: the split and the levels, shared with the
 * Explosive scheme). The inverse interleaves first and undoes the sweeps
 * in reverse order.
 *
 * Written for clarity more than speed: each row takes the three (mirrored)
 * rows around it, and only the columns beside a place are mirrored (the
 * GPU kernels are the fast implementation; this one fixes the bits).
 */
#include "dwt.h"
#include "dwt_internal.h"
#include "dwt_mono.h"

/* Row r of the w x h region at p (rows mirrored: -1 -> 1, h -> h - 2). */
#define ROW(r) (p + (size_t)dwt_mirror(r, h) * stride)

/* The rows above, at and below r, and the mirrored columns beside c (the
 * region is at least 2 x 2, so c - 1 and c + 1 mirror to 1 and w - 2). */
#define ROWS(T) \
    T *const rn = ROW((int64_t)r - 1), *const r0 = ROW(r), *const rs = ROW((int64_t)r + 1)
#define COLS() const uint32_t cw = c ? c - 1 : 1, ce = c + 1 < w ? c + 1 : w - 2

/* The eight neighbours of (r, c) the spatial steps read: west/east,
 * north/south and the four diagonals. */
#define NEIGHBOURS(T)                                         \
    COLS();                                                   \
    const T we = r0[cw], ea = r0[ce], no = rn[c], so = rs[c]; \
    const T nw = rn[cw], ne = rn[ce], sw = rs[cw], se = rs[ce]

/* Which spatial step a sweep performs. */
typedef enum { PREDICT, UPDATE } mono_step;

/* ---- 5/3 -------------------------------------------------------------------- */

/* d (predict) or a (update): the places of parity (q, q). */
static void mono53_quad(int32_t *p, size_t stride, uint32_t w, uint32_t h, mono_step s, int inv)
{
    const uint32_t q = s == PREDICT ? 1 : 0;
    for (uint32_t r = q; r < h; r += 2) {
        ROWS(int32_t);
        for (uint32_t c = q; c < w; c += 2) {
            NEIGHBOURS(int32_t);
            /* d: b north/south, c west/east; a: b west/east, c north/south.
             * The integer sums do not depend on the order. */
            const int32_t t = s == PREDICT ? mono53_pd(no, so, we, ea, nw, ne, sw, se)
                                           : mono53_ua(we, ea, no, so, nw, ne, sw, se);
            r0[c] = (s == PREDICT) != inv ? mono53_sub(r0[c], t) : mono53_add(r0[c], t);
        }
    }
}

/* b and c: predicted from the two a beside (b) or above and below (c),
 * updated from the two d above and below (b) or beside (c). */
static void mono53_edges(int32_t *p, size_t stride, uint32_t w, uint32_t h, mono_step s, int inv)
{
    for (uint32_t r = 0; r < h; r++) {
        ROWS(int32_t);
        const int horiz = (s == PREDICT) == !(r & 1); /* b predict, c update */
        for (uint32_t c = (r & 1) ? 0 : 1; c < w; c += 2) {
            COLS();
            const int32_t e0 = horiz ? r0[cw] : rn[c], e1 = horiz ? r0[ce] : rs[c];
            const int32_t t = s == PREDICT ? mono53_pe(e0, e1) : mono53_ue(e0, e1);
            r0[c] = (s == PREDICT) != inv ? mono53_sub(r0[c], t) : mono53_add(r0[c], t);
        }
    }
}

/* ---- 9/7 -------------------------------------------------------------------- */

static void mono97_quad(float *p, size_t stride, uint32_t w, uint32_t h, mono_step s, float k,
                        int inv)
{
    const float k2 = k * k;
    const uint32_t q = s == PREDICT ? 1 : 0;
    for (uint32_t r = q; r < h; r += 2) {
        ROWS(float);
        for (uint32_t c = q; c < w; c += 2) {
            NEIGHBOURS(float);
            r0[c] = inv ? mono97_q_inv(r0[c], k, k2, no, so, we, ea, nw, ne, sw, se)
                        : mono97_q(r0[c], k, k2, no, so, we, ea, nw, ne, sw, se);
        }
    }
}

static void mono97_edges(float *p, size_t stride, uint32_t w, uint32_t h, mono_step s, float k,
                         int inv)
{
    for (uint32_t r = 0; r < h; r++) {
        ROWS(float);
        const int horiz = (s == PREDICT) == !(r & 1);
        for (uint32_t c = (r & 1) ? 0 : 1; c < w; c += 2) {
            COLS();
            const float e0 = horiz ? r0[cw] : rn[c], e1 = horiz ? r0[ce] : rs[c];
            r0[c] = inv ? mono97_e_inv(r0[c], k, e0, e1) : mono97_e(r0[c], k, e0, e1);
        }
    }
}

/* ---- one level, and the levels (dwt_nonsep.c) ------------------------------------ */

/* Predict (d, then b and c), update (a, then b and c); the inverse undoes
 * them in reverse order. */
static void mono53_level(void *plane, size_t stride, uint32_t w, uint32_t h, int inv)
{
    int32_t *p = plane;
    if (!inv) {
        mono53_quad(p, stride, w, h, PREDICT, 0);
        mono53_edges(p, stride, w, h, PREDICT, 0);
        mono53_quad(p, stride, w, h, UPDATE, 0);
        mono53_edges(p, stride, w, h, UPDATE, 0);
    } else {
        mono53_edges(p, stride, w, h, UPDATE, 1);
        mono53_quad(p, stride, w, h, UPDATE, 1);
        mono53_edges(p, stride, w, h, PREDICT, 1);
        mono53_quad(p, stride, w, h, PREDICT, 1);
    }
}

/* The two lifting pairs, then the scaling; the inverse scales back first. */
static void mono97_level(void *plane, size_t stride, uint32_t w, uint32_t h, int inv)
{
    float *p = plane;
    if (!inv) {
        for (int k = 0; k < 2; k++) {
            mono97_quad(p, stride, w, h, PREDICT, dwt_ns_pairs97[k][0], 0);
            mono97_edges(p, stride, w, h, PREDICT, dwt_ns_pairs97[k][0], 0);
            mono97_quad(p, stride, w, h, UPDATE, dwt_ns_pairs97[k][1], 0);
            mono97_edges(p, stride, w, h, UPDATE, dwt_ns_pairs97[k][1], 0);
        }
        dwt_ns_scale97(p, stride, w, h, 0);
    } else {
        dwt_ns_scale97(p, stride, w, h, 1);
        for (int k = 1; k >= 0; k--) {
            mono97_edges(p, stride, w, h, UPDATE, dwt_ns_pairs97[k][1], 1);
            mono97_quad(p, stride, w, h, UPDATE, dwt_ns_pairs97[k][1], 1);
            mono97_edges(p, stride, w, h, PREDICT, dwt_ns_pairs97[k][0], 1);
            mono97_quad(p, stride, w, h, PREDICT, dwt_ns_pairs97[k][0], 1);
        }
    }
}

void dwt53m_forward(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch)
{
    dwt_ns_levels(plane, w, h, levels, scratch, 0, mono53_level, 0);
}

void dwt53m_inverse(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch)
{
    dwt_ns_levels(plane, w, h, levels, scratch, 0, mono53_level, 1);
}

void dwt97m_forward(float *plane, uint32_t w, uint32_t h, int levels, float *scratch)
{
    dwt_ns_levels(plane, w, h, levels, scratch, 1, mono97_level, 0);
}

void dwt97m_inverse(float *plane, uint32_t w, uint32_t h, int levels, float *scratch)
{
    dwt_ns_levels(plane, w, h, levels, scratch, 1, mono97_level, 1);
}

/* ---- dispatch by wavelet identifier ------------------------------------------------ */

void dwt_int_forward(int wavelet, int32_t *plane, uint32_t w, uint32_t h, int levels,
                     int32_t *scratch)
{
    (wavelet == DWT_53_MONO   ? dwt53m_forward
     : wavelet == DWT_53_EXPL ? dwt53e_forward
                              : dwt53_forward)(plane, w, h, levels, scratch);
}

void dwt_int_inverse(int wavelet, int32_t *plane, uint32_t w, uint32_t h, int levels,
                     int32_t *scratch)
{
    (wavelet == DWT_53_MONO   ? dwt53m_inverse
     : wavelet == DWT_53_EXPL ? dwt53e_inverse
                              : dwt53_inverse)(plane, w, h, levels, scratch);
}

void dwt_float_forward(int wavelet, float *plane, uint32_t w, uint32_t h, int levels,
                       float *scratch)
{
    (wavelet == DWT_97_MONO   ? dwt97m_forward
     : wavelet == DWT_97_EXPL ? dwt97e_forward
                              : dwt97_forward)(plane, w, h, levels, scratch);
}

void dwt_float_inverse(int wavelet, float *plane, uint32_t w, uint32_t h, int levels,
                       float *scratch)
{
    (wavelet == DWT_97_MONO   ? dwt97m_inverse
     : wavelet == DWT_97_EXPL ? dwt97e_inverse
                              : dwt97_inverse)(plane, w, h, levels, scratch);
}
