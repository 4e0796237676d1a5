/*
 * dwt_expl.c -- CPU reference of the Explosive lifting scheme (dwt_expl.h
 * gives the operations and why). A level lifts the interleaved region in
 * place, one sweep a spatial step (no step reads what it writes, so the
 * order inside a sweep is free), then splits it into the Mallat layout as
 * the Monolithic scheme does (dwt_nonsep.c: the split and the levels). The
 * inverse interleaves first and undoes the steps in reverse order.
 *
 * Written for clarity more than speed, like dwt_mono.c: each row takes the
 * (mirrored) rows above and below, each place its mirrored columns; the
 * GPU kernels are the fast implementation, this one fixes the bits.
 */
#include "dwt.h"
#include "dwt_expl.h"
#include "dwt_internal.h"

/* Row r of the w x h region at p (rows mirrored: -1 -> 1, h -> h - 2). */
#define ROW(r) (p + (size_t)dwt_mirror(r, h) * stride)

/* The three spatial steps of a lifting pair. */
typedef enum { EXPLODE_A, MIDDLE, EXPLODE_D } expl_step;

/* The neighbours of (r, c): rn/rs the rows above/below, cw/ce the columns
 * beside (the region is at least 2 x 2, so they mirror inside it). */
#define PLACE(T)                                                                        \
    const uint32_t cw = c ? c - 1 : 1, ce = c + 1 < w ? c + 1 : w - 2;                  \
    T *const x = r0 + c;                                                                \
    const T we = r0[cw], ea = r0[ce], no = rn[c], so = rs[c], nw = rn[cw], ne = rn[ce], \
            sw = rs[cw], se = rs[ce];                                                   \
    (void)we, (void)ea, (void)no, (void)so, (void)nw, (void)ne, (void)sw, (void)se

/* ---- 5/3 -------------------------------------------------------------------- */

static void expl53_step(int32_t *p, size_t stride, uint32_t w, uint32_t h, expl_step s, int inv)
{
    for (uint32_t r = 0; r < h; r++) {
        int32_t *const rn = ROW((int64_t)r - 1), *const r0 = ROW(r),
                       *const rs = ROW((int64_t)r + 1);
        for (uint32_t c = 0; c < w; c++) {
            PLACE(int32_t);
            const int kind = (int)((r & 1) << 1 | (c & 1)); /* 0 a, 1 b, 2 c, 3 d */
            int32_t t;
            int add; /* what the forward does with t */
            if (s == EXPLODE_A) {
                if (kind == 0) continue;
                t = kind == 1   ? expl53_p2(we, ea)
                    : kind == 2 ? expl53_p2(no, so)
                                : expl53_q4(nw, ne, sw, se);
                add = 0;
            } else if (s == MIDDLE) {
                if (kind == 1 || kind == 2) continue;
                t = kind == 0 ? expl53_q4(we, ea, no, so) : expl53_h4(no, so, we, ea);
                add = kind == 0;
            } else {
                if (kind == 3) continue;
                t = kind == 1   ? expl53_u2(no, so)
                    : kind == 2 ? expl53_u2(we, ea)
                                : expl53_s4(nw, ne, sw, se);
                add = 1;
            }
            *x = add != inv ? expl53_add(*x, t) : expl53_sub(*x, t);
        }
    }
}

/* ---- 9/7 -------------------------------------------------------------------- */

static void expl97_step(float *p, size_t stride, uint32_t w, uint32_t h, expl_step s, float kp,
                        float ku, int inv)
{
    const float kp2 = kp * kp, ku2 = ku * ku;
    for (uint32_t r = 0; r < h; r++) {
        float *const rn = ROW((int64_t)r - 1), *const r0 = ROW(r), *const rs = ROW((int64_t)r + 1);
        for (uint32_t c = 0; c < w; c++) {
            PLACE(float);
            const int kind = (int)((r & 1) << 1 | (c & 1));
            float t;
            int add = 1;
            if (s == EXPLODE_A) {
                if (kind == 0) continue;
                t = kind == 1   ? expl97_t2(kp, we, ea)
                    : kind == 2 ? expl97_t2(kp, no, so)
                                : expl97_t4(kp2, nw, ne, sw, se);
                add = kind != 3;
            } else if (s == MIDDLE) {
                if (kind == 1 || kind == 2) continue;
                t = kind == 0 ? expl97_t4(ku, we, ea, no, so) : expl97_t4(kp, no, so, we, ea);
            } else {
                if (kind == 3) continue;
                t = kind == 1   ? expl97_t2(ku, no, so)
                    : kind == 2 ? expl97_t2(ku, we, ea)
                                : expl97_t4(ku2, nw, ne, sw, se);
            }
            *x = add != inv ? *x + t : *x - t;
        }
    }
}

/* ---- one level, and the levels (dwt_nonsep.c) ------------------------------------ */

/* The three steps in order; the inverse undoes them in reverse order. */
static void expl53_level(void *plane, size_t stride, uint32_t w, uint32_t h, int inv)
{
    int32_t *p = plane;
    if (!inv)
        for (int s = EXPLODE_A; s <= EXPLODE_D; s++) expl53_step(p, stride, w, h, s, 0);
    else
        for (int s = EXPLODE_D; s >= EXPLODE_A; s--) expl53_step(p, stride, w, h, s, 1);
}

/* The two lifting pairs' steps, then the scaling; the inverse scales back
 * first. */
static void expl97_level(void *plane, size_t stride, uint32_t w, uint32_t h, int inv)
{
    float *p = plane;
    if (!inv) {
        for (int k = 0; k < 2; k++)
            for (int s = EXPLODE_A; s <= EXPLODE_D; s++)
                expl97_step(p, stride, w, h, s, dwt_ns_pairs97[k][0], dwt_ns_pairs97[k][1], 0);
        dwt_ns_scale97(p, stride, w, h, 0);
    } else {
        dwt_ns_scale97(p, stride, w, h, 1);
        for (int k = 1; k >= 0; k--)
            for (int s = EXPLODE_D; s >= EXPLODE_A; s--)
                expl97_step(p, stride, w, h, s, dwt_ns_pairs97[k][0], dwt_ns_pairs97[k][1], 1);
    }
}

void dwt53e_forward(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch)
{
    dwt_ns_levels(plane, w, h, levels, scratch, 0, expl53_level, 0);
}

void dwt53e_inverse(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch)
{
    dwt_ns_levels(plane, w, h, levels, scratch, 0, expl53_level, 1);
}

void dwt97e_forward(float *plane, uint32_t w, uint32_t h, int levels, float *scratch)
{
    dwt_ns_levels(plane, w, h, levels, scratch, 1, expl97_level, 0);
}

void dwt97e_inverse(float *plane, uint32_t w, uint32_t h, int levels, float *scratch)
{
    dwt_ns_levels(plane, w, h, levels, scratch, 1, expl97_level, 1);
}
