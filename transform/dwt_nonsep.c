/*
 * dwt_nonsep.c -- what Barina's non-separable schemes (the Monolithic one,
 * dwt_mono.c, and the Explosive one, dwt_expl.c) share around their
 * lifting: the levels (sizes, the order of lifting and splitting, the
 * levels too thin to lift in two directions), the Mallat split of a lifted
 * level, the 1-D level, and the 9/7 constants and scaling. A scheme gives
 * only its lifting of one level (dwt_ns_lift), so the two cannot drift
 * apart in anything else.
 */
#include <string.h>

#include "dwt.h"
#include "dwt_internal.h"

/* ---- the Mallat split and its undoing ---------------------------------------- */

/* Each row's even columns to its front, odd to its back (or back again),
 * then each strip of columns' even rows to the top, odd to the bottom. */
void dwt_ns_split(void *plane, size_t stride, uint32_t w, uint32_t h, size_t esize, void *scratch,
                  int inverse)
{
    unsigned char *p = plane, *t = scratch;
    if (inverse)
        for (uint32_t c = 0; c < w; c += DWT_STRIP) {
            const uint32_t cw = w - c < DWT_STRIP ? w - c : DWT_STRIP;
            dwt_strip_load(t, p + c * esize, stride, h, cw, esize, 1);
            dwt_strip_store(p + c * esize, t, stride, h, cw, esize, 0);
        }
    for (uint32_t r = 0; r < h; r++) {
        unsigned char *row = p + (size_t)r * stride * esize;
        memcpy(t, row, w * esize);
        for (uint32_t c = 0; c < w; c++) {
            const uint32_t s = dwt_split_index(c, w);
            if (inverse)
                memcpy(row + c * esize, t + s * esize, esize);
            else
                memcpy(row + s * esize, t + c * esize, esize);
        }
    }
    if (!inverse)
        for (uint32_t c = 0; c < w; c += DWT_STRIP) {
            const uint32_t cw = w - c < DWT_STRIP ? w - c : DWT_STRIP;
            dwt_strip_load(t, p + c * esize, stride, h, cw, esize, 0);
            dwt_strip_store(p + c * esize, t, stride, h, cw, esize, 1);
        }
}

/* A level with one row or one column: the separable 1-D lifting, which is
 * what dwt53.c / dwt97.c do on such a level. A column is gathered into
 * scratch first (dwt_scratch_elems gives 64 elements a row, room for the
 * column and the 1-D scratch). */
void dwt_ns_level_1d(void *p, size_t stride, uint32_t w, uint32_t h, void *scratch, int is_float,
                     int inverse)
{
    const size_t es = is_float ? sizeof(float) : sizeof(int32_t);
    const uint32_t n = w > h ? w : h;
    if (n < 2) return;
    unsigned char *x = p, *s = scratch;
    if (h > 1) {
        x = scratch;
        s = x + (size_t)n * es;
        for (uint32_t i = 0; i < n; i++)
            memcpy(x + i * es, (unsigned char *)p + (size_t)i * stride * es, es);
    }
    void *xv = x, *sv = s; /* the samples' own type, float or int32 */
    if (is_float)
        (inverse ? dwt97_inverse_1d : dwt97_forward_1d)(xv, n, sv);
    else
        (inverse ? dwt53_inverse_1d : dwt53_forward_1d)(xv, n, sv);
    if (h > 1)
        for (uint32_t i = 0; i < n; i++)
            memcpy((unsigned char *)p + (size_t)i * stride * es, x + i * es, es);
}

/* ---- 9/7: the lifting pairs' constants and the scaling ---------------------------- */

const float dwt_ns_pairs97[2][2] = {{DWT97_ALPHA, DWT97_BETA}, {DWT97_GAMMA, DWT97_DELTA}};

/* Vertical scale by row parity, then horizontal by column parity (the
 * separable transform's order). */
void dwt_ns_scale97(float *p, size_t stride, uint32_t w, uint32_t h, int inv)
{
    const float lo = inv ? DWT97_K : DWT97_INV_K, hi = inv ? DWT97_INV_K : DWT97_K;
    for (uint32_t r = 0; r < h; r++) {
        float *row = p + (size_t)r * stride;
        const float v = (r & 1) ? hi : lo;
        for (uint32_t c = 0; c < w; c++) row[c] = (row[c] * v) * ((c & 1) ? hi : lo);
    }
}

/* ---- the levels ---------------------------------------------------------------- */

/* The forward lifts each level's interleaved region, then splits it into
 * the Mallat layout, from the whole plane down; the inverse goes back up,
 * interleaving each level before undoing its lifting. */
void dwt_ns_levels(void *plane, uint32_t w, uint32_t h, int levels, void *scratch, int is_float,
                   dwt_ns_lift lift, int inverse)
{
    const size_t es = is_float ? sizeof(float) : sizeof(int32_t);
    for (int i = 0; i < levels; i++) {
        const int l = inverse ? levels - 1 - i : i;
        const uint32_t lw = dwt_level_size(w, l), lh = dwt_level_size(h, l);
        if (lw < 2 || lh < 2) {
            dwt_ns_level_1d(plane, w, lw, lh, scratch, is_float, inverse);
            continue;
        }
        if (inverse) dwt_ns_split(plane, w, lw, lh, es, scratch, 1);
        lift(plane, w, lw, lh, inverse);
        if (!inverse) dwt_ns_split(plane, w, lw, lh, es, scratch, 0);
    }
}
