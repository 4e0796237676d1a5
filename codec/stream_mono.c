/* stream_mono.c -- the Monolithic DWT by windows of rows (see stream_mono.h). */
#include <string.h>

#include "dwt.h"
#include "stream_mono.h"
#include "wc_common.h"

/* Rows kept a window (S) and the margin each side (M). A sweep reads one
 * row each way, so after k sweeps a false edge has spoiled at most the k
 * rows beside it: M is the most sweeps a level has (8 for 9/7; the test
 * fails with 2). Both even, so windows start on even rows (the parity the
 * quads go by). */
enum { SMONO_S = 32, SMONO_M = 8, SMONO_CAP = SMONO_S + 2 * SMONO_M };

typedef struct slevel {
    uint32_t lw, lh;  /* the level's input region */
    int thin;         /* lw or lh under 2: this level and those below, whole */
    uint32_t base;    /* level row of raw's first row */
    uint32_t count;   /* rows in raw */
    uint32_t o;       /* next row to keep */
    int32_t *raw;     /* input rows (SMONO_CAP, or the whole region if thin) */
    int32_t *work;    /* the window, lifted and split */
    int32_t *scratch; /* the reference's */
} slevel;

struct smono {
    int wavelet, levels;
    uint32_t w, h, pushed;
    smono_emit_fn emit;
    void *arg;
    slevel lev[WC_MAX_LEVELS];
};

static uint32_t half_up(uint32_t n) { return (n + 1) / 2; }

size_t smono_bytes(uint32_t w, int levels)
{
    /* each level at most 2 windows and a scratch of its width (halving) */
    const size_t per = (size_t)2 * SMONO_CAP * w + dwt_scratch_elems(w, SMONO_CAP);
    return sizeof(smono) + (levels ? 2 : 0) * per * sizeof(int32_t);
}

smono *smono_create(int wavelet, uint32_t w, uint32_t h, int levels, smono_emit_fn emit, void *arg)
{
    if (!dwt_is_mono(wavelet) || w == 0 || h == 0 || levels < 0 || levels > WC_MAX_LEVELS ||
        levels > dwt_max_levels(w, h) || !emit)
        return NULL;
    smono *t = wc_calloc(1, sizeof *t);
    if (!t) return NULL;
    t->wavelet = wavelet;
    t->levels = levels;
    t->w = w;
    t->h = h;
    t->emit = emit;
    t->arg = arg;
    uint32_t lw = w, lh = h;
    for (int l = 0; l < levels; l++) {
        slevel *v = &t->lev[l];
        v->lw = lw;
        v->lh = lh;
        v->thin = lw < 2 || lh < 2;
        const size_t rows = v->thin ? lh : SMONO_CAP;
        v->raw = wc_malloc_array(rows * lw, sizeof(int32_t));
        v->work = v->thin ? NULL : wc_malloc_array((size_t)SMONO_CAP * lw, sizeof(int32_t));
        v->scratch = wc_malloc_array(dwt_scratch_elems(lw, (uint32_t)rows), sizeof(int32_t));
        if (!v->raw || (!v->thin && !v->work) || !v->scratch) {
            smono_free(t);
            return NULL;
        }
        if (v->thin) break; /* the reference does the rest */
        lw = half_up(lw);
        lh = half_up(lh);
    }
    return t;
}

void smono_free(smono *t)
{
    if (!t) return;
    for (int l = 0; l < WC_MAX_LEVELS; l++) {
        wc_free(t->lev[l].raw);
        wc_free(t->lev[l].work);
        wc_free(t->lev[l].scratch);
    }
    wc_free(t);
}

/* The reference's levels on a plane (int32 for 153, float for 197). */
static void mono_forward(const smono *t, int32_t *p, uint32_t w, uint32_t h, int levels,
                         int32_t *scratch)
{
    if (dwt_family(t->wavelet) == DWT_53)
        dwt53m_forward(p, w, h, levels, scratch);
    else
        dwt97m_forward((float *)(void *)p, w, h, levels, (float *)(void *)scratch);
}

static void level_push(smono *t, int l, const int32_t *row);

/* A thin level: all its rows in, the reference's remaining levels on them
 * (the region is the plane's top-left, with the same layout), every row
 * out whole (no band of a finer level reaches into those rows). */
static void thin_done(smono *t, int l)
{
    slevel *v = &t->lev[l];
    mono_forward(t, v->raw, v->lw, v->lh, t->levels - l, v->scratch);
    for (uint32_t y = 0; y < v->lh; y++) t->emit(t->arg, y, 0, v->lw, v->raw + (size_t)y * v->lw);
}

/* Row r of the level, lifted and split along the row: even rows give the
 * HL band (and the next level's row), odd rows LH and HH. */
static void level_row_out(smono *t, int l, uint32_t r, const int32_t *row)
{
    const slevel *v = &t->lev[l];
    const uint32_t lwl = half_up(v->lw);
    if (r & 1) {
        t->emit(t->arg, half_up(v->lh) + r / 2, 0, v->lw, row);
    } else if (l + 1 == t->levels) {
        t->emit(t->arg, r / 2, 0, v->lw, row);
    } else {
        t->emit(t->arg, r / 2, lwl, v->lw - lwl, row + lwl);
        level_push(t, l + 1, row);
    }
}

/* Rows [o, o + S) from the window [o - M, o + S + M) clipped to the level. */
static void level_window(smono *t, int l)
{
    slevel *v = &t->lev[l];
    const uint32_t ws = v->o >= SMONO_M ? v->o - SMONO_M : 0;
    const uint32_t we = v->lh - v->o > SMONO_S + SMONO_M ? v->o + SMONO_S + SMONO_M : v->lh;
    const uint32_t wh = we - ws, lw = v->lw;
    memcpy(v->work, v->raw + (size_t)(ws - v->base) * lw, (size_t)wh * lw * sizeof(int32_t));
    mono_forward(t, v->work, lw, wh, 1, v->scratch);
    const uint32_t end = v->lh - v->o > SMONO_S ? v->o + SMONO_S : v->lh;
    const uint32_t o = v->o;
    v->o = end;
    /* Rows below the next window's start are not needed again. */
    const uint32_t keep = v->o >= SMONO_M ? v->o - SMONO_M : 0;
    for (uint32_t r = o; r < end; r++) {
        const uint32_t j = r - ws, wr = (j & 1) ? half_up(wh) + j / 2 : j / 2;
        level_row_out(t, l, r, v->work + (size_t)wr * lw);
    }
    if (keep > v->base) {
        const uint32_t drop = keep - v->base;
        memmove(v->raw, v->raw + (size_t)drop * lw,
                (size_t)(v->count - drop) * lw * sizeof(int32_t));
        v->count -= drop;
        v->base = keep;
    }
}

static void level_push(smono *t, int l, const int32_t *row)
{
    slevel *v = &t->lev[l];
    memcpy(v->raw + (size_t)(v->thin ? v->base + v->count : v->count) * v->lw, row,
           (size_t)v->lw * sizeof(int32_t));
    v->count++;
    if (v->thin) {
        if (v->count == v->lh) thin_done(t, l);
        return;
    }
    /* At the bottom one row may complete several windows. */
    while (v->o < v->lh &&
           v->base + v->count >=
               (v->lh - v->o > SMONO_S + SMONO_M ? v->o + SMONO_S + SMONO_M : v->lh))
        level_window(t, l);
}

int smono_push(smono *t, const void *row)
{
    if (t->pushed >= t->h) return -1;
    const uint32_t y = t->pushed++;
    if (t->levels == 0)
        t->emit(t->arg, y, 0, t->w, row);
    else
        level_push(t, 0, row);
    return 0;
}
