/* quant_rows.c -- quant.c's passes split into bands of rows (quant_rows.h). */
#include "quant_rows.h"
#include "dwt.h"
#include "parallel.h"

enum { ROWS = 32 }; /* rows an item takes */
enum { Q_INT, Q_FLOAT, DQ_INT, DQ_FLOAT };

typedef struct rows_job {
    int op;
    const quant_layout *lay;
    const float *steps;
    float param; /* threshold (quantize) or recon (dequantize) */
    const float *fsrc;
    int32_t *iplane; /* Q_INT, DQ_INT in place; Q_FLOAT's dst; DQ_FLOAT's src */
    float *fdst;
    dwt_band bands[3 * WC_MAX_LEVELS + 1];
    unsigned nbands;
} rows_job;

/* Columns [x0, x1) of row y with step st(x) = steps[x & 7] (blocked) or
 * step (a DWT band): the operation of quant.c on each sample. */
static void do_row(const rows_job *j, uint32_t y, uint32_t x0, uint32_t x1, const float *st8,
                   float step)
{
    const size_t base = (size_t)y * j->lay->width;
    const int blocked = j->lay->blocked;
    switch (j->op) {
    case Q_INT:
        if (!blocked && quant_int_is_identity(step, j->param)) return;
        for (uint32_t x = x0; x < x1; x++)
            j->iplane[base + x] =
                quant_value((float)j->iplane[base + x], blocked ? st8[x & 7] : step, j->param);
        return;
    case Q_FLOAT:
        for (uint32_t x = x0; x < x1; x++)
            j->iplane[base + x] =
                quant_value(j->fsrc[base + x], blocked ? st8[x & 7] : step, j->param);
        return;
    case DQ_INT:
        if (!blocked && dequant_int_is_identity(step)) return;
        for (uint32_t x = x0; x < x1; x++)
            j->iplane[base + x] =
                dequant_int_value(j->iplane[base + x], blocked ? st8[x & 7] : step, j->param);
        return;
    default:
        for (uint32_t x = x0; x < x1; x++)
            j->fdst[base + x] =
                dequant_value(j->iplane[base + x], blocked ? st8[x & 7] : step, j->param);
        return;
    }
}

static void rows_item(void *arg, size_t i, int worker)
{
    (void)worker;
    const rows_job *j = arg;
    const uint32_t y0 = (uint32_t)i * ROWS;
    const uint32_t y1 = y0 + ROWS < j->lay->height ? y0 + ROWS : j->lay->height;
    if (j->lay->blocked) {
        for (uint32_t y = y0; y < y1; y++)
            do_row(j, y, 0, j->lay->width, j->steps + (y & 7) * 8, 0);
        return;
    }
    for (unsigned b = 0; b < j->nbands; b++) {
        const dwt_band *d = &j->bands[b];
        const uint32_t a = d->y0 > y0 ? d->y0 : y0, e = d->y0 + d->h < y1 ? d->y0 + d->h : y1;
        for (uint32_t y = a; d->w && y < e; y++)
            do_row(j, y, d->x0, d->x0 + d->w, NULL, j->steps[b]);
    }
}

/* 1 when every band of an int plane is left as it is (a lossless file's
 * steps of 1): no loop to start, whose threads would only look. */
static int all_identity(const rows_job *j)
{
    if (j->lay->blocked || (j->op != Q_INT && j->op != DQ_INT)) return 0;
    for (unsigned b = 0; b < j->nbands; b++)
        if (j->op == Q_INT ? !quant_int_is_identity(j->steps[b], j->param)
                           : !dequant_int_is_identity(j->steps[b]))
            return 0;
    return 1;
}

static void run(rows_job *j, int threads)
{
    if (!j->lay->blocked)
        j->nbands = dwt_bands(j->lay->width, j->lay->height, j->lay->levels, j->bands);
    if (all_identity(j)) return;
    wc_parallel_for(threads, (j->lay->height + ROWS - 1) / ROWS, rows_item, j);
}

void quant_int_plane_mt(int32_t *plane, const quant_layout *lay, const float *steps,
                        float threshold, int threads)
{
    if (threads == 1) {
        quant_int_plane(plane, lay, steps, threshold);
        return;
    }
    rows_job j = {.op = Q_INT, .lay = lay, .steps = steps, .param = threshold, .iplane = plane};
    run(&j, threads);
}

void quant_float_plane_mt(const float *src, int32_t *dst, const quant_layout *lay,
                          const float *steps, float threshold, int threads)
{
    if (threads == 1) {
        quant_float_plane(src, dst, lay, steps, threshold);
        return;
    }
    rows_job j = {
        .op = Q_FLOAT, .lay = lay, .steps = steps, .param = threshold, .fsrc = src, .iplane = dst};
    run(&j, threads);
}

void dequant_int_plane_mt(int32_t *plane, const quant_layout *lay, const float *steps, float recon,
                          int threads)
{
    if (threads == 1) {
        dequant_int_plane(plane, lay, steps, recon);
        return;
    }
    rows_job j = {.op = DQ_INT, .lay = lay, .steps = steps, .param = recon, .iplane = plane};
    run(&j, threads);
}

void dequant_float_plane_mt(const int32_t *src, float *dst, const quant_layout *lay,
                            const float *steps, float recon, int threads)
{
    if (threads == 1) {
        dequant_float_plane(src, dst, lay, steps, recon);
        return;
    }
    rows_job j = {.op = DQ_FLOAT,
                  .lay = lay,
                  .steps = steps,
                  .param = recon,
                  .iplane = (int32_t *)src,
                  .fdst = dst};
    run(&j, threads);
}
