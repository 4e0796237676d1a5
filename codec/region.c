/*
 * region.c -- a rectangle of an image, or of a reduced image, decoded from
 * the code blocks it depends on (README, "Regions and thumbnails").
 *
 * DWT components: transform/dwt_window.h plans, level by level, the
 * coefficients the window reads (its rectangle widened by the synthesis
 * filters' reach); the code blocks that meet those rectangles are
 * entropy-decoded (es_decode with a block mask), only those rectangles are
 * dequantized, and the inverse runs on the window. DCT/LOT components: the
 * 8x8 blocks the rectangle touches (one more all round for the LOT, whose
 * basis reaches half a block into each neighbour) are gathered from the 64
 * frequency bands, dequantized and inverted as a small plane of their own.
 * Both give the whole decode's bits: the same operations on the same
 * values. The coefficient planes are allocated at the file's size but only
 * the parts decoded are ever written, so only those pages are resident.
 */
#include <string.h>

#include "colour.h"
#include "dct8.h"
#include "dwt_threads.h"
#include "dwt_window.h"
#include "lot8.h"
#include "parallel.h"
#include "plan.h"
#include "quantizer.h"
#include "region.h"

int region_needs_whole(const wcx_header *h)
{
    for (uint32_t c = 0; c < h->components; c++)
        if (dwt_is_mono(h->wavelet[c]) || dwt_is_expl(h->wavelet[c])) return 1;
    return 0;
}

wc_status region_resolve(const wcx_header *h, const wc_region *r, wc_region *out, wc_err *err)
{
    wc_region all = {0, 0, 0, 0, 0};
    if (!r) r = &all;
    WC_RETURN_IF(r->reduce < 0 || r->reduce > (int)h->levels, err, WC_ERR_ARG,
                 "reduce %d is out of range: the file has %u DWT levels (0..%u)", r->reduce,
                 (unsigned)h->levels, (unsigned)h->levels);
    if (r->reduce > 0)
        for (uint32_t c = 0; c < h->components; c++)
            WC_RETURN_IF(layout_comp_transform(h, c) != WC_TRANSFORM_DWT, err, WC_ERR_UNSUPPORTED,
                         "reduce %d needs a wavelet file; this one uses the %s (decode it "
                         "whole, or a region of it)",
                         r->reduce, h->transform == WC_TRANSFORM_DCT ? "DCT" : "LOT");
    WC_RETURN_IF(r->reduce > 0 && region_needs_whole(h), err, WC_ERR_UNSUPPORTED,
                 "reduce %d needs the separable DWT; this file uses the Monolithic scheme "
                 "(decode it whole, or a region of it)",
                 r->reduce);
    const uint32_t rw = dwt_window_size(h->width, r->reduce);
    const uint32_t rh = dwt_window_size(h->height, r->reduce);
    *out = *r;
    if (r->width == 0 && r->height == 0) {
        WC_RETURN_IF(r->x || r->y, err, WC_ERR_ARG, "a region at %u,%u needs a width and height",
                     r->x, r->y);
        out->width = rw;
        out->height = rh;
        return WC_OK;
    }
    WC_RETURN_IF(r->width == 0 || r->height == 0, err, WC_ERR_ARG,
                 "region %ux%u: a side of 0 pixels", r->width, r->height);
    WC_RETURN_IF(r->x >= rw || r->y >= rh || r->width > rw - r->x || r->height > rh - r->y, err,
                 WC_ERR_ARG, "region %u,%u %ux%u is not inside the %simage (%ux%u)", r->x, r->y,
                 r->width, r->height, r->reduce ? "reduced " : "", rw, rh);
    return WC_OK;
}

/* What the region needs of one component. */
typedef struct comp_window {
    int dwt;                     /* else a block transform (DCT, LOT) */
    dwt_window win;              /* DWT */
    uint32_t bx0, by0, bx1, by1; /* block transforms: 8x8 blocks [bx0, bx1) x [by0, by1) */
} comp_window;

static void plan_window(const wcx_header *h, const wc_layout *lay, uint32_t c, const wc_region *r,
                        comp_window *cw)
{
    memset(cw, 0, sizeof *cw);
    const dwt_rect want = {r->x, r->y, r->x + r->width, r->y + r->height};
    const int tf = layout_comp_transform(h, c);
    cw->dwt = tf == WC_TRANSFORM_DWT;
    if (cw->dwt) {
        dwt_window_plan(h->width, h->height, h->levels, r->reduce, want, &cw->win);
        return;
    }
    const uint32_t grow = tf == WC_TRANSFORM_LOT, nbw = lay->plane_w[c] / 8,
                   nbh = lay->plane_h[c] / 8;
    cw->bx0 = want.x0 / 8 > grow ? want.x0 / 8 - grow : 0;
    cw->by0 = want.y0 / 8 > grow ? want.y0 / 8 - grow : 0;
    cw->bx1 = (want.x1 + 7) / 8 + grow < nbw ? (want.x1 + 7) / 8 + grow : nbw;
    cw->by1 = (want.y1 + 7) / 8 + grow < nbh ? (want.y1 + 7) / 8 + grow : nbh;
}

/* The rectangle of band b of component c the window reads (plane
 * coordinates; DCT/LOT: of the band plane the coder fills). */
static dwt_rect band_rect(const wc_layout *lay, uint32_t c, uint32_t b, const comp_window *cw)
{
    const wc_band_info *bi = &lay->band[c][b];
    if (cw->dwt) {
        const dwt_band band = {bi->x0, bi->y0, bi->w, bi->h, bi->level, bi->orient};
        return dwt_window_band_rect(&cw->win, &band);
    }
    return (dwt_rect){bi->x0 + cw->bx0, bi->y0 + cw->by0, bi->x0 + cw->bx1, bi->y0 + cw->by1};
}

/* Bytes of the pages a rectangle of a plane (rows `pitch` bytes apart,
 * esize-byte elements) touches: a row's segment of L bytes meets L/4096 + 1
 * pages on average, but the bands a window reads lie side by side in the
 * same rows and share their end pages, so half a page each end is
 * counted; rows closer than a page share theirs. */
static double rect_pages(dwt_rect r, uint64_t pitch, uint64_t esize)
{
    if (r.x0 >= r.x1 || r.y0 >= r.y1) return 0;
    const double page = 4096, rows = r.y1 - r.y0, len = (double)(r.x1 - r.x0) * esize;
    if ((double)pitch >= page) return rows * (len / page + 0.5) * page;
    return (rows * (double)pitch / page + 1) * page;
}

/* Marks the code blocks that meet a rectangle the window reads. */
static size_t mark_blocks(const wc_layout *lay, const comp_window *cw, uint8_t *mask)
{
    size_t n = 0;
    for (size_t i = 0; i < lay->nblocks; i++) {
        const wc_cblk *k = &lay->blocks[i];
        const dwt_rect r = band_rect(lay, k->comp, k->band, &cw[k->comp]);
        mask[i] = r.x0 < r.x1 && r.y0 < r.y1 && k->x0 < r.x1 && r.x0 < k->x0 + k->w &&
                  k->y0 < r.y1 && r.y0 < k->y0 + k->h;
        n += mask[i];
    }
    return n;
}

typedef struct region_job {
    const wcx_header *h;
    const wc_layout *lay;
    const wc_stage_plan *plan;
    const comp_window *cw;
    const wc_region *r;
    int32_t **q;   /* coefficient planes (decoded blocks only) */
    int32_t **ipl; /* the window's int samples, per component */
    float **fpl;   /* the window's float samples (float components) */
    wc_pool *pool;
    int inner; /* threads of each component's window transform */
    wc_status status[4];
    wc_err errs[4];
} region_job;

/* DWT, 5/3: dequantize the rectangles read (in place), then the window. */
static wc_status window_int(region_job *j, uint32_t c)
{
    const comp_window *cw = &j->cw[c];
    const wc_layout *lay = j->lay;
    for (uint32_t b = 0; b < lay->nbands[c]; b++) {
        const float step = j->plan->steps[c][lay->band[c][b].step_index];
        if (dequant_int_is_identity(step)) continue;
        const dwt_rect r = band_rect(lay, c, b, cw);
        for (uint32_t y = r.y0; y < r.y1; y++) {
            int32_t *row = j->q[c] + (size_t)y * lay->plane_w[c];
            for (uint32_t x = r.x0; x < r.x1; x++)
                row[x] = dequant_int_value(row[x], step, j->plan->recon);
        }
    }
    int32_t *scratch = pool_alloc_array(j->pool, dwt_window_scratch_elems(&cw->win), 4);
    WC_RETURN_IF(!scratch, &j->errs[c], WC_ERR_NOMEM, "out of memory (window scratch)");
    const int bad = dwt53_inverse_window(j->q[c], &cw->win, j->ipl[c], scratch, j->inner);
    pool_free(j->pool, scratch);
    WC_RETURN_IF(bad, &j->errs[c], WC_ERR_NOMEM, "out of memory (window scratch)");
    return WC_OK;
}

/* DWT, 9/7: the rectangles read into a float plane, then the window. */
static wc_status window_float(region_job *j, uint32_t c)
{
    const comp_window *cw = &j->cw[c];
    const wc_layout *lay = j->lay;
    const uint32_t pw = lay->plane_w[c];
    float *f = pool_alloc_array(j->pool, (size_t)pw * lay->plane_h[c], sizeof(float));
    float *scratch = pool_alloc_array(j->pool, dwt_window_scratch_elems(&cw->win), sizeof(float));
    wc_status s = WC_OK;
    if (!f || !scratch) s = wc_fail(&j->errs[c], WC_ERR_NOMEM, "out of memory (window planes)");
    for (uint32_t b = 0; s == WC_OK && b < lay->nbands[c]; b++) {
        const float step = j->plan->steps[c][lay->band[c][b].step_index];
        const dwt_rect r = band_rect(lay, c, b, cw);
        for (uint32_t y = r.y0; y < r.y1; y++)
            for (uint32_t x = r.x0; x < r.x1; x++)
                f[(size_t)y * pw + x] =
                    dequant_value(j->q[c][(size_t)y * pw + x], step, j->plan->recon);
    }
    if (s == WC_OK && dwt97_inverse_window(f, &cw->win, j->fpl[c], scratch, j->inner))
        s = wc_fail(&j->errs[c], WC_ERR_NOMEM, "out of memory (window scratch)");
    pool_free(j->pool, scratch);
    pool_free(j->pool, f);
    return s;
}

/* DCT/LOT: the window's 8x8 blocks from the band plane (coefficient (u, v)
 * of block (bx, by) at (u * pw/8 + bx, v * ph/8 + by)), dequantized with
 * step (v, u), inverted as a plane of their own, then cropped. */
static wc_status window_blocked(region_job *j, uint32_t c)
{
    const comp_window *cw = &j->cw[c];
    const uint32_t pw = j->lay->plane_w[c], bw = pw / 8, bh = j->lay->plane_h[c] / 8;
    const uint32_t lw = (cw->bx1 - cw->bx0) * 8, lh = (cw->by1 - cw->by0) * 8;
    const int lot = layout_comp_transform(j->h, c) == WC_TRANSFORM_LOT;
    float *loc = pool_alloc_array(j->pool, (size_t)lw * lh, sizeof(float));
    float *scratch =
        lot ? pool_alloc_array(j->pool, lot8_scratch_elems(lw, lh), sizeof(float)) : NULL;
    wc_status s = WC_OK;
    if (!loc || (lot && !scratch))
        s = wc_fail(&j->errs[c], WC_ERR_NOMEM, "out of memory (window planes)");
    for (uint32_t y = 0; s == WC_OK && y < lh; y++) {
        const uint32_t v = y & 7, by = cw->by0 + y / 8;
        for (uint32_t x = 0; x < lw; x++) {
            const uint32_t u = x & 7, bx = cw->bx0 + x / 8;
            const int32_t q = j->q[c][(size_t)(v * bh + by) * pw + u * bw + bx];
            loc[(size_t)y * lw + x] =
                dequant_value(q, j->plan->steps[c][v * 8 + u], j->plan->recon);
        }
    }
    if (s == WC_OK) {
        if (lot)
            lot8_inverse(loc, lw, lh, scratch);
        else
            dct8_inverse(loc, lw, lh);
        const uint32_t ox = j->r->x - cw->bx0 * 8, oy = j->r->y - cw->by0 * 8;
        for (uint32_t y = 0; y < j->r->height; y++)
            memcpy(j->fpl[c] + (size_t)y * j->r->width, loc + (size_t)(oy + y) * lw + ox,
                   j->r->width * sizeof(float));
    }
    pool_free(j->pool, scratch);
    pool_free(j->pool, loc);
    return s;
}

static void window_comp(void *arg, size_t c, int worker)
{
    (void)worker;
    region_job *j = arg;
    if (!j->cw[c].dwt)
        j->status[c] = window_blocked(j, (uint32_t)c);
    else if (wc_plan_is_float(j->plan, (uint32_t)c))
        j->status[c] = window_float(j, (uint32_t)c);
    else
        j->status[c] = window_int(j, (uint32_t)c);
}

void region_window_samples(const wc_stage_plan *plan, int32_t **ipl, float **fpl, wc_image *img)
{
    const size_t n = (size_t)img->width * img->height;
    uint32_t first = 0;
    if (plan->colour == WC_COLOUR_RCT) {
        colour_insert_rct(ipl[0], ipl[1], ipl[2], img);
        first = 3;
    } else if (plan->colour == WC_COLOUR_ICT) {
        colour_insert_ict(fpl[0], fpl[1], fpl[2], img);
        first = 3;
    }
    for (uint32_t c = first; c < plan->components; c++) {
        if (fpl[c]) colour_round_plane(fpl[c], ipl[c], n, plan->bit_depth);
        colour_insert(ipl[c], c, img);
    }
}

uint64_t region_memory(const wcx_header *h, const wc_layout *lay, const wc_region *r, int threads)
{
    comp_window cw[4];
    for (uint32_t c = 0; c < h->components; c++) plan_window(h, lay, c, r, &cw[c]);
    const uint64_t out = (uint64_t)r->width * r->height;
    double need = (double)out * h->components * (h->bit_depth > 8 ? 2 : 1);
    need += (double)lay->nblocks * (1 + sizeof(size_t)); /* the mask, es_decode's offsets */
    /* The coefficient planes: the pages of each band's decoded blocks
     * (whose union is a rectangle of whole blocks). */
    dwt_rect uni[4][WC_MAX_BANDS];
    for (uint32_t c = 0; c < h->components; c++)
        for (uint32_t b = 0; b < lay->nbands[c]; b++)
            uni[c][b] = (dwt_rect){UINT32_MAX, UINT32_MAX, 0, 0};
    for (size_t i = 0; i < lay->nblocks; i++) {
        const wc_cblk *k = &lay->blocks[i];
        const dwt_rect br = band_rect(lay, k->comp, k->band, &cw[k->comp]);
        if (!(br.x0 < br.x1 && br.y0 < br.y1 && k->x0 < br.x1 && br.x0 < k->x0 + k->w &&
              k->y0 < br.y1 && br.y0 < k->y0 + k->h))
            continue;
        dwt_rect *u = &uni[k->comp][k->band];
        u->x0 = k->x0 < u->x0 ? k->x0 : u->x0;
        u->y0 = k->y0 < u->y0 ? k->y0 : u->y0;
        u->x1 = k->x0 + k->w > u->x1 ? k->x0 + k->w : u->x1;
        u->y1 = k->y0 + k->h > u->y1 ? k->y0 + k->h : u->y1;
    }
    wc_stage_plan plan;
    plan_from_header(h, 0.0f, &plan);
    /* Each component's window buffers live while its worker runs: at
     * most min(workers, components) of them at once, the largest. */
    const int workers = wc_thread_count(threads);
    double transient[4] = {0, 0, 0, 0};
    for (uint32_t c = 0; c < h->components; c++) {
        const uint64_t pitch = (uint64_t)lay->plane_w[c] * 4;
        const int is_float = wc_plan_is_float(&plan, c);
        need += (double)out * (is_float ? 8 : 4); /* the window's samples */
        for (uint32_t b = 0; b < lay->nbands[c]; b++) {
            need += rect_pages(uni[c][b], pitch, 4);
            if (cw[c].dwt && is_float)
                transient[c] += rect_pages(band_rect(lay, c, b, &cw[c]), pitch, 4);
        }
        if (cw[c].dwt) {
            /* The window's levels: the largest level's buffer is written
             * whole, the coarser result beside it a quarter of that (the
             * rest of the scratch is never touched); and each inner
             * worker's strip. */
            transient[c] += (double)dwt_window_scratch_elems(&cw[c].win) / 2 * 4 * 1.25;
            uint32_t side = 0;
            for (int l = r->reduce + 1; l <= (int)h->levels; l++) {
                const dwt_rect e = cw[c].win.ext[l];
                side = e.x1 - e.x0 > side ? e.x1 - e.x0 : side;
                side = e.y1 - e.y0 > side ? e.y1 - e.y0 : side;
            }
            const int inner = workers / (int)h->components;
            transient[c] += (double)(inner > 1 ? inner : 1) * DWT_MT_STRIP * side * 4;
        } else {
            const uint32_t lw = (cw[c].bx1 - cw[c].bx0) * 8, lh = (cw[c].by1 - cw[c].by0) * 8;
            transient[c] += (double)lw * lh * 4 + (double)lot8_scratch_elems(lw, lh) * 4;
        }
    }
    for (int k = 0; k < workers && k < (int)h->components; k++) {
        int big = 0;
        for (uint32_t c = 1; c < h->components; c++)
            if (transient[c] > transient[big]) big = (int)c;
        need += transient[big];
        transient[big] = -1;
    }
    return (uint64_t)need;
}

wc_status region_decode(const wcx_header *h, const wc_layout *lay, const es_input *in,
                        const wc_region *r, int threads, wc_pool *pool, wc_image *img,
                        size_t *blocks, wc_err *err)
{
    wc_stage_plan plan;
    plan_from_header(h, 0.0f, &plan);
    comp_window cw[4];
    for (uint32_t c = 0; c < h->components; c++) plan_window(h, lay, c, r, &cw[c]);
    region_job j;
    memset(&j, 0, sizeof j);
    int32_t *q[4] = {NULL, NULL, NULL, NULL}, *ipl[4] = {NULL, NULL, NULL, NULL};
    float *fpl[4] = {NULL, NULL, NULL, NULL};
    uint8_t *mask = wc_malloc(lay->nblocks ? lay->nblocks : 1);
    wc_status s = mask ? WC_OK : wc_fail(err, WC_ERR_NOMEM, "out of memory (block mask)");
    const size_t n = (size_t)r->width * r->height;
    for (uint32_t c = 0; c < h->components && s == WC_OK; c++) {
        q[c] = pool_alloc_array(pool, (size_t)lay->plane_w[c] * lay->plane_h[c], sizeof(int32_t));
        ipl[c] = pool_alloc_array(pool, n, sizeof(int32_t));
        if (wc_plan_is_float(&plan, c)) fpl[c] = pool_alloc_array(pool, n, sizeof(float));
        if (!q[c] || !ipl[c] || (wc_plan_is_float(&plan, c) && !fpl[c]))
            s = wc_fail(err, WC_ERR_NOMEM, "out of memory (region planes)");
    }
    if (s == WC_OK) {
        *blocks = mark_blocks(lay, cw, mask);
        es_input masked = *in;
        masked.block_mask = mask;
        s = es_decode(h, lay, &masked, q, threads, err);
    }
    if (s == WC_OK) {
        const int inner = wc_thread_count(threads) / (int)h->components;
        j = (region_job){h,       lay,    &plan, cw, r, q, ipl, fpl, pool, inner > 1 ? inner : 1,
                         {WC_OK}, {{{0}}}};
        wc_parallel_for(threads, h->components, window_comp, &j);
        for (uint32_t c = 0; c < h->components && s == WC_OK; c++)
            if (j.status[c] != WC_OK) s = wc_fail(err, j.status[c], "%s", j.errs[c].msg);
    }
    if (s == WC_OK) region_window_samples(&plan, ipl, fpl, img);
    for (int c = 0; c < 4; c++) {
        pool_free(pool, q[c]);
        pool_free(pool, ipl[c]);
        pool_free(pool, fpl[c]);
    }
    wc_free(mask);
    return s;
}
