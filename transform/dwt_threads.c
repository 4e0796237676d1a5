/*
 * dwt_threads.c -- the 2-D DWTs on several threads (dwt_threads.h). Each
 * level's row pass is handed out a few rows an item (dwt53/97_*_1d), its
 * column pass a strip of DWT_MT_STRIP columns an item, lifted by the very
 * code the one-thread transform runs on that strip (dwt53/97_cols_*:
 * staging with prefetch, vectorised spans), so a worker is as fast as one
 * thread alone; a copy of that lifting here ran at half its speed.
 */
#include <stdlib.h>

#include "dwt.h"
#include "dwt_internal.h"
#include "dwt_threads.h"
#include "parallel.h"

enum { S = DWT_MT_STRIP, ROWS_PER_ITEM = 8 };
_Static_assert(DWT_MT_STRIP == DWT_STRIP, "a worker's strip is the one-thread transform's");

/* Samples a pass gives each worker at least: the deep levels' passes are
 * a few tens of microseconds of work, less than starting 15 threads. */
enum { MIN_SAMPLES = 1 << 14 };

static int pass_workers(int nw, uint32_t w, uint32_t h, int nplanes)
{
    const size_t most = (size_t)w * h * (size_t)nplanes / MIN_SAMPLES;
    return most < 1 ? 1 : most < (size_t)nw ? (int)most : nw;
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

static void cols_item(void *arg, size_t item, int worker)
{
    pass *p = arg;
    void *plane = item_plane(p, &item);
    const uint32_t c0 = (uint32_t)item * S, c1 = p->w - c0 < S ? p->w : c0 + S;
    if (p->wavelet == 53 && p->inverse)
        dwt53_cols_inverse(plane, p->stride, c0, c1, p->h, p->scratch[worker]);
    else if (p->wavelet == 53)
        dwt53_cols_forward(plane, p->stride, c0, c1, p->h, p->scratch[worker]);
    else if (p->inverse)
        dwt97_cols_inverse(plane, p->stride, c0, c1, p->h, p->scratch[worker]);
    else
        dwt97_cols_forward(plane, p->stride, c0, c1, p->h, p->scratch[worker]);
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
        pass p = {planes, w,      dwt_level_size(w, l), dwt_level_size(h, l), wavelet, inverse,
                  0,      scratch};
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
