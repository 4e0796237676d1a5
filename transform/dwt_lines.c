/*
 * dwt_lines.c -- the line-based forward DWT (dwt_lines.h).
 *
 * A level lifts its rows vertically as they arrive. Row j's next step k
 * (5/3: 1 predict on odd rows, 2 update on even ones; 9/7: the four
 * lifting steps, odd rows taking 1 and 3, even rows 2 and 4) may run once
 * both its mirrored neighbours have arrived and had step k - 1: exactly
 * the values the whole-plane pass reads (it runs each step over all rows
 * before the next; a neighbour, of the other parity, cannot have moved
 * on past k - 1 before row j has had step k). A row whose steps are all
 * done is final; final rows leave in order, each through the horizontal
 * pass (dwt53_forward_1d, dwt97_forward_1d: the whole-plane row pass).
 *
 * A row is needed until its neighbours are final, a few rows later, so a
 * ring of DWL_RING rows a level is enough: the rows in flight span at
 * most 2 * steps + 2.
 */
#include <stdlib.h>
#include <string.h>

#include "dwt.h"
#include "dwt_internal.h"
#include "dwt_lines.h"
#include "wc_common.h"

enum { DWL_RING = 16 };

static const float dwl_lift97[4] = {DWT97_ALPHA, DWT97_BETA, DWT97_GAMMA, DWT97_DELTA};

typedef struct dwl_level {
    uint32_t w, h;
    uint32_t received, emitted; /* rows given, rows handed on */
    uint8_t stage[DWL_RING];    /* lifting steps done by the row in a slot */
    uint32_t *rows;             /* DWL_RING rows of w elements (int32 or float bits) */
} dwl_level;

struct dwl {
    int family, levels;
    uint32_t w, h, pushed;
    dwl_level lv[WC_MAX_LEVELS];
    uint32_t *tmp;     /* a row through the horizontal pass */
    uint32_t *scratch; /* the horizontal pass's scratch */
    dwl_emit_fn emit;
    void *arg;
};

static inline int32_t w_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t w_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

static uint32_t *slot(const dwl *t, const dwl_level *L, uint32_t j)
{
    (void)t;
    return L->rows + (size_t)(j % DWL_RING) * L->w;
}

/* Steps a row has when it is final: odd rows stop one step short. */
static unsigned final_stage(const dwl *t, const dwl_level *L, uint32_t j)
{
    if (L->h < 2) return 0;
    const unsigned s = t->family == 53 ? 2 : 4;
    return (j & 1) ? s - 1 : s;
}

/* Lifting step k on row j from rows a and b (its mirrored neighbours). */
static void lift(const dwl *t, int k, uint32_t *x, const uint32_t *a, const uint32_t *b, uint32_t w)
{
    if (t->family == 53) {
        int32_t *y = (int32_t *)x;
        const int32_t *p = (const int32_t *)a, *q = (const int32_t *)b;
        if (k == 1)
            for (uint32_t i = 0; i < w; i++) y[i] = w_sub(y[i], w_add(p[i], q[i]) >> 1);
        else
            for (uint32_t i = 0; i < w; i++) y[i] = w_add(y[i], w_add(w_add(p[i], q[i]), 2) >> 2);
        return;
    }
    float *y = (float *)(void *)x;
    const float *p = (const float *)(const void *)a, *q = (const float *)(const void *)b;
    const float c = dwl_lift97[k - 1];
    for (uint32_t i = 0; i < w; i++) y[i] = y[i] + (c * (p[i] + q[i]));
}

static void level_push(dwl *t, int l, const uint32_t *row);

/* Row j of level l is final: scaled, lifted along, handed on. */
static void level_emit(dwl *t, int l, uint32_t j)
{
    dwl_level *L = &t->lv[l];
    const uint32_t w = L->w;
    memcpy(t->tmp, slot(t, L, j), (size_t)w * sizeof *t->tmp);
    if (t->family == 97) {
        float *x = (float *)(void *)t->tmp;
        if (L->h >= 2) {
            const float c = (j & 1) ? DWT97_K : DWT97_INV_K;
            for (uint32_t i = 0; i < w; i++) x[i] = x[i] * c;
        }
        dwt97_forward_1d(x, w, (float *)(void *)t->scratch);
    } else {
        dwt53_forward_1d((int32_t *)t->tmp, w, (int32_t *)t->scratch);
    }
    const uint32_t lo_h = (L->h + 1) / 2, lo_w = (w + 1) / 2;
    if (j & 1) { /* a high row: LH and HH of this level */
        t->emit(t->arg, lo_h + j / 2, 0, w, t->tmp);
        return;
    }
    if (l + 1 == t->levels) { /* the coarsest: LL and HL */
        t->emit(t->arg, j / 2, 0, w, t->tmp);
        return;
    }
    if (w > lo_w) t->emit(t->arg, j / 2, lo_w, w - lo_w, t->tmp + lo_w);
    level_push(t, l + 1, t->tmp); /* the next level copies it first */
}

/* Runs every step that can run, then hands on the final rows in order. */
static void level_advance(dwl *t, int l)
{
    dwl_level *L = &t->lv[l];
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t j = L->emitted; j < L->received; j++) {
            const unsigned st = L->stage[j % DWL_RING];
            if (st == final_stage(t, L, j)) continue;
            const unsigned k = st ? st + 2 : ((j & 1) ? 1 : 2);
            const uint32_t a = dwt_mirror((int64_t)j - 1, L->h),
                           b = dwt_mirror((int64_t)j + 1, L->h);
            if (a >= L->received || b >= L->received) continue;
            if (L->stage[a % DWL_RING] < k - 1 || L->stage[b % DWL_RING] < k - 1) continue;
            lift(t, (int)k, slot(t, L, j), slot(t, L, a), slot(t, L, b), L->w);
            L->stage[j % DWL_RING] = (uint8_t)k;
            changed = 1;
        }
    }
    while (L->emitted < L->received &&
           L->stage[L->emitted % DWL_RING] == final_stage(t, L, L->emitted)) {
        const uint32_t j = L->emitted++;
        level_emit(t, l, j);
    }
}

static void level_push(dwl *t, int l, const uint32_t *row)
{
    dwl_level *L = &t->lv[l];
    const uint32_t j = L->received++;
    /* The slot's old row (j - DWL_RING) left long ago: the rows in flight
     * span at most 2 * steps + 2 < DWL_RING. */
    memcpy(slot(t, L, j), row, (size_t)L->w * sizeof *row);
    L->stage[j % DWL_RING] = 0;
    level_advance(t, l);
}

int dwl_push(dwl *t, const void *row)
{
    if (t->pushed >= t->h) return -1;
    const uint32_t y = t->pushed++;
    if (t->levels == 0)
        t->emit(t->arg, y, 0, t->w, row);
    else
        level_push(t, 0, row);
    return 0;
}

dwl *dwl_create(int family, uint32_t w, uint32_t h, int levels, dwl_emit_fn emit, void *arg)
{
    if ((family != 53 && family != 97) || w == 0 || h == 0 || levels < 0 ||
        levels > dwt_max_levels(w, h) || !emit)
        return NULL;
    dwl *t = wc_calloc(1, sizeof *t);
    if (!t) return NULL;
    t->family = family;
    t->levels = levels;
    t->w = w;
    t->h = h;
    t->emit = emit;
    t->arg = arg;
    int ok = 1;
    for (int l = 0; l < levels; l++) {
        dwl_level *L = &t->lv[l];
        L->w = dwt_level_size(w, l);
        L->h = dwt_level_size(h, l);
        L->rows = wc_malloc_array((size_t)DWL_RING * L->w, sizeof *L->rows);
        ok &= L->rows != NULL;
    }
    t->tmp = wc_malloc_array(w, sizeof *t->tmp);
    t->scratch = wc_malloc_array(w, sizeof *t->scratch);
    if (!ok || !t->tmp || !t->scratch) {
        dwl_free(t);
        return NULL;
    }
    return t;
}

void dwl_free(dwl *t)
{
    if (!t) return;
    for (int l = 0; l < WC_MAX_LEVELS; l++) wc_free(t->lv[l].rows);
    wc_free(t->tmp);
    wc_free(t->scratch);
    wc_free(t);
}

size_t dwl_bytes(uint32_t w, int levels)
{
    size_t n = sizeof(dwl) + 2 * (size_t)w * 4;
    for (int l = 0; l < levels; l++) n += (size_t)DWL_RING * dwt_level_size(w, l) * 4;
    return n;
}
