/*
 * dwt_threads.c -- the 2-D DWTs on several threads (dwt_threads.h). The
 * column pass lifts a staging strip of DWT_MT_STRIP columns, interleaved,
 * row by row: sample r's neighbours are rows r - 1 and r + 1, mirrored at
 * the ends (-1 -> 1, n -> n - 2), exactly as dwt53/97_*_1d treat a column;
 * each lifting step runs over the whole strip before the next.
 */
#include <stdlib.h>
#include <string.h>

#include "dwt.h"
#include "dwt_threads.h"
#include "parallel.h"

enum { S = DWT_MT_STRIP, ROWS_PER_ITEM = 8 };

/* Samples a pass gives each worker at least: the deep levels' passes are
 * a few tens of microseconds of work, less than starting 15 threads. */
enum { MIN_SAMPLES = 1 << 14 };

static int pass_workers(int nw, uint32_t w, uint32_t h, int nplanes)
{
    const size_t most = (size_t)w * h * (size_t)nplanes / MIN_SAMPLES;
    return most < 1 ? 1 : most < (size_t)nw ? (int)most : nw;
}

static uint32_t level_size(uint32_t n, int l)
{
    for (int i = 0; i < l; i++) n = (n + 1) / 2;
    return n;
}

static uint32_t mirror(int64_t r, uint32_t n)
{
    if (r < 0) return (uint32_t)-r;
    if (r >= (int64_t)n) return (uint32_t)(2 * (int64_t)n - 2 - r);
    return (uint32_t)r;
}

/* Plane row of interleaved sample r: low rows first, then high rows. */
static uint32_t split_row(uint32_t r, uint32_t n) { return (r & 1) ? (n + 1) / 2 + r / 2 : r / 2; }

static int32_t w_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static int32_t w_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static int32_t w_half(int32_t a, int32_t b) { return w_add(a, b) >> 1; }
static int32_t w_quarter(int32_t a, int32_t b) { return w_add(w_add(a, b), 2) >> 2; }

/* ---- one lifting step over the staging rows of one parity --------------- */

/* 5/3: x = x -/+ ((a + b) >> 1) on odd rows; x = x -/+ ((a + b + 2) >> 2)
 * on even rows. */
static void lift53(int32_t *t, uint32_t n, int odd, int sub)
{
    for (uint32_t r = (uint32_t)odd; r < n; r += 2) {
        int32_t *x = t + (size_t)r * S;
        const int32_t *a = t + (size_t)mirror((int64_t)r - 1, n) * S;
        const int32_t *b = t + (size_t)mirror((int64_t)r + 1, n) * S;
        if (odd && sub)
            for (int k = 0; k < S; k++) x[k] = w_sub(x[k], w_half(a[k], b[k]));
        else if (odd)
            for (int k = 0; k < S; k++) x[k] = w_add(x[k], w_half(a[k], b[k]));
        else if (sub)
            for (int k = 0; k < S; k++) x[k] = w_sub(x[k], w_quarter(a[k], b[k]));
        else
            for (int k = 0; k < S; k++) x[k] = w_add(x[k], w_quarter(a[k], b[k]));
    }
}

/* 9/7: x = x + (c * (a + b)), or x - (c * (a + b)) undoing it. */
static void lift97(float *t, uint32_t n, int odd, float c, int sub)
{
    for (uint32_t r = (uint32_t)odd; r < n; r += 2) {
        float *x = t + (size_t)r * S;
        const float *a = t + (size_t)mirror((int64_t)r - 1, n) * S;
        const float *b = t + (size_t)mirror((int64_t)r + 1, n) * S;
        if (sub)
            for (int k = 0; k < S; k++) x[k] = x[k] - (c * (a[k] + b[k]));
        else
            for (int k = 0; k < S; k++) x[k] = x[k] + (c * (a[k] + b[k]));
    }
}

static void scale97(float *t, uint32_t n, float even, float odd)
{
    for (uint32_t r = 0; r < n; r++) {
        const float c = (r & 1) ? odd : even;
        float *x = t + (size_t)r * S;
        for (int k = 0; k < S; k++) x[k] = x[k] * c;
    }
}

/* ---- the parallel passes ------------------------------------------------- */

typedef struct pass {
    void *const *planes; /* nplanes planes of one size, transformed together */
    size_t stride;
    uint32_t w, h; /* the level's region */
    int wavelet, inverse;
    size_t per_plane; /* items a plane has in this pass */
    void **scratch;   /* per worker */
} pass;

/* Item `item` of a pass over all the planes: plane item / per_plane, and
 * that plane's item (rows or a strip) within it. */
static void *item_plane(const pass *p, size_t *item)
{
    void *plane = p->planes[*item / p->per_plane];
    *item %= p->per_plane;
    return plane;
}

static void rows_item(void *arg, size_t item, int worker)
{
    pass *p = arg;
    void *plane = item_plane(p, &item);
    const uint32_t y0 = (uint32_t)item * ROWS_PER_ITEM;
    const uint32_t y1 = y0 + ROWS_PER_ITEM < p->h ? y0 + ROWS_PER_ITEM : p->h;
    for (uint32_t y = y0; y < y1; y++) {
        if (p->wavelet == 53) {
            int32_t *row = (int32_t *)plane + (size_t)y * p->stride;
            if (p->inverse)
                dwt53_inverse_1d(row, p->w, p->scratch[worker]);
            else
                dwt53_forward_1d(row, p->w, p->scratch[worker]);
        } else {
            float *row = (float *)plane + (size_t)y * p->stride;
            if (p->inverse)
                dwt97_inverse_1d(row, p->w, p->scratch[worker]);
            else
                dwt97_forward_1d(row, p->w, p->scratch[worker]);
        }
    }
}

/* Staging row r <-> plane row split_row(r) (inverse loads split rows and
 * stores in order; forward the other way round). 4-byte elements. */
static void strip_copy(uint32_t *t, uint32_t *plane, size_t stride, uint32_t n, uint32_t cw,
                       int to_stage, int split)
{
    for (uint32_t r = 0; r < n; r++) {
        uint32_t *prow = plane + (size_t)(split ? split_row(r, n) : r) * stride;
        uint32_t *srow = t + (size_t)r * S;
        if (to_stage) {
            memcpy(srow, prow, cw * sizeof *srow);
            memset(srow + cw, 0, (S - cw) * sizeof *srow);
        } else {
            memcpy(prow, srow, cw * sizeof *srow);
        }
    }
}

static void cols_item(void *arg, size_t item, int worker)
{
    pass *p = arg;
    void *whole = item_plane(p, &item);
    const uint32_t c = (uint32_t)item * S, cw = p->w - c < S ? p->w - c : S, n = p->h;
    uint32_t *t = p->scratch[worker];
    uint32_t *plane = (uint32_t *)whole + c;
    strip_copy(t, plane, p->stride, n, cw, 1, p->inverse);
    if (p->wavelet == 53) {
        int32_t *x = (int32_t *)t;
        if (p->inverse) {
            lift53(x, n, 0, 1);
            lift53(x, n, 1, 0);
        } else {
            lift53(x, n, 1, 1);
            lift53(x, n, 0, 0);
        }
    } else {
        void *tv = t; /* the strip holds floats for 9/7 */
        float *x = tv;
        if (p->inverse) {
            scale97(x, n, DWT97_K, DWT97_INV_K);
            lift97(x, n, 0, DWT97_DELTA, 1);
            lift97(x, n, 1, DWT97_GAMMA, 1);
            lift97(x, n, 0, DWT97_BETA, 1);
            lift97(x, n, 1, DWT97_ALPHA, 1);
        } else {
            lift97(x, n, 1, DWT97_ALPHA, 0);
            lift97(x, n, 0, DWT97_BETA, 0);
            lift97(x, n, 1, DWT97_GAMMA, 0);
            lift97(x, n, 0, DWT97_DELTA, 0);
            scale97(x, n, DWT97_INV_K, DWT97_K);
        }
    }
    strip_copy(t, plane, p->stride, n, cw, 0, !p->inverse);
}

/* Each level's passes over all nplanes planes at once: one parallel loop
 * a pass, so every worker has work while a plane's level finishes. */
static int transform(void *const *planes, int nplanes, uint32_t w, uint32_t h, int levels,
                     int threads, int wavelet, int inverse)
{
    const int nw = wc_thread_count(threads);
    void *scratch[256] = {NULL};
    const size_t elems = (size_t)S * h > w ? (size_t)S * h : w;
    int ok = 1;
    for (int i = 0; i < nw && ok; i++) ok = (scratch[i] = malloc(elems * 4 + 64)) != NULL;
    for (int k = 0; ok && k < levels; k++) {
        const int l = inverse ? levels - 1 - k : k;
        pass p = {planes, w, level_size(w, l), level_size(h, l), wavelet, inverse, 0, scratch};
        const size_t row_items = (p.h + ROWS_PER_ITEM - 1) / ROWS_PER_ITEM;
        const size_t col_items = p.h >= 2 ? (p.w + S - 1) / S : 0;
        const int pw = pass_workers(nw, p.w, p.h, nplanes);
        p.per_plane = row_items;
        if (inverse) wc_parallel_for(pw, row_items * (size_t)nplanes, rows_item, &p);
        p.per_plane = col_items;
        if (col_items) wc_parallel_for(pw, col_items * (size_t)nplanes, cols_item, &p);
        p.per_plane = row_items;
        if (!inverse) wc_parallel_for(pw, row_items * (size_t)nplanes, rows_item, &p);
    }
    for (int i = 0; i < nw; i++) free(scratch[i]);
    return ok ? 0 : -1;
}

int dwt53_forward_mt(int32_t *plane, uint32_t w, uint32_t h, int levels, int threads)
{
    return dwt53_forward_mt_planes(&plane, 1, w, h, levels, threads);
}

int dwt53_inverse_mt(int32_t *plane, uint32_t w, uint32_t h, int levels, int threads)
{
    return dwt53_inverse_mt_planes(&plane, 1, w, h, levels, threads);
}

int dwt97_forward_mt(float *plane, uint32_t w, uint32_t h, int levels, int threads)
{
    return dwt97_forward_mt_planes(&plane, 1, w, h, levels, threads);
}

int dwt97_inverse_mt(float *plane, uint32_t w, uint32_t h, int levels, int threads)
{
    return dwt97_inverse_mt_planes(&plane, 1, w, h, levels, threads);
}

int dwt53_forward_mt_planes(int32_t *const *planes, int n, uint32_t w, uint32_t h, int levels,
                            int threads)
{
    return transform((void *const *)planes, n, w, h, levels, threads, 53, 0);
}

int dwt53_inverse_mt_planes(int32_t *const *planes, int n, uint32_t w, uint32_t h, int levels,
                            int threads)
{
    return transform((void *const *)planes, n, w, h, levels, threads, 53, 1);
}

int dwt97_forward_mt_planes(float *const *planes, int n, uint32_t w, uint32_t h, int levels,
                            int threads)
{
    return transform((void *const *)planes, n, w, h, levels, threads, 97, 0);
}

int dwt97_inverse_mt_planes(float *const *planes, int n, uint32_t w, uint32_t h, int levels,
                            int threads)
{
    return transform((void *const *)planes, n, w, h, levels, threads, 97, 1);
}
