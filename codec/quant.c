/* quant.c -- deadzone quantization of whole planes on the CPU. */
#include <string.h>

#include "quant.h"
#include "dwt.h"
#include "wcodec.h"

/* Calls fn on every band rectangle of the layout with its steps: st[x & 7]
 * is the step of column x. A DWT band has one step (eight copies); a block
 * layout is one rectangle whose rows take the steps of row y & 7 of the
 * 8x8 frequency table. Either way the plane is walked once, row by row. */
typedef void (*band_fn)(void *arg, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                        const float *steps, int blocked);

static void for_each_band(const quant_layout *lay, const float *steps, band_fn fn, void *arg)
{
    if (lay->blocked) {
        fn(arg, 0, 0, lay->width, lay->height, steps, 1);
        return;
    }
    dwt_band bands[3 * WC_MAX_LEVELS + 1];
    unsigned nb = dwt_bands(lay->width, lay->height, lay->levels, bands);
    for (unsigned b = 0; b < nb; b++) {
        const float st[8] = {steps[b], steps[b], steps[b], steps[b],
                             steps[b], steps[b], steps[b], steps[b]};
        if (bands[b].w && bands[b].h)
            fn(arg, bands[b].x0, bands[b].y0, bands[b].w, bands[b].h, st, 0);
    }
}

/* The eight steps of row y (blocked layouts start at column 0, so column
 * x takes st[x & 7]). */
static const float *row_steps(const float *steps, int blocked, uint32_t y)
{
    return blocked ? steps + (y & 7) * 8 : steps;
}

typedef struct qargs {
    const float *fsrc;
    int32_t *idst;
    float *fdst;
    uint32_t stride;
    float threshold, recon;
} qargs;

/* Each row below walks its columns in groups of eight that take
 * st[0..7]: a DWT band's eight equal steps, or a block layout's row of
 * the frequency table (its rows start at column 0, a multiple of 8).
 * Groups of eight let the compiler vectorize both. */
static void q_int(void *arg, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const float *steps,
                  int blocked)
{
    qargs *a = arg;
    if (!blocked && quant_int_is_identity(steps[0], a->threshold)) return;
    for (uint32_t y = y0; y < y0 + h; y++) {
        int32_t *row = a->idst + (size_t)y * a->stride;
        const float *st = row_steps(steps, blocked, y);
        const size_t end = (size_t)x0 + w;
        size_t x = x0, k = 0;
        float s8[8]; /* a local copy: the compiler then knows no store changes it */
        memcpy(s8, st, sizeof s8);
        for (; x + 8 <= end; x += 8)
            for (k = 0; k < 8; k++)
                row[x + k] = quant_value((float)row[x + k], s8[k], a->threshold);
        for (k = 0; x < end; x++, k++) row[x] = quant_value((float)row[x], s8[k], a->threshold);
    }
}

static void q_float(void *arg, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const float *steps,
                    int blocked)
{
    qargs *a = arg;
    for (uint32_t y = y0; y < y0 + h; y++) {
        const float *src = a->fsrc + (size_t)y * a->stride;
        int32_t *dst = a->idst + (size_t)y * a->stride;
        const float *st = row_steps(steps, blocked, y);
        const size_t end = (size_t)x0 + w;
        size_t x = x0, k = 0;
        float s8[8]; /* a local copy: the compiler then knows no store changes it */
        memcpy(s8, st, sizeof s8);
        for (; x + 8 <= end; x += 8)
            for (k = 0; k < 8; k++) dst[x + k] = quant_value(src[x + k], s8[k], a->threshold);
        for (k = 0; x < end; x++, k++) dst[x] = quant_value(src[x], s8[k], a->threshold);
    }
}

static void dq_int(void *arg, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const float *steps,
                   int blocked)
{
    qargs *a = arg;
    if (!blocked && dequant_int_is_identity(steps[0])) return;
    for (uint32_t y = y0; y < y0 + h; y++) {
        int32_t *row = a->idst + (size_t)y * a->stride;
        const float *st = row_steps(steps, blocked, y);
        const size_t end = (size_t)x0 + w;
        size_t x = x0, k = 0;
        float s8[8]; /* a local copy: the compiler then knows no store changes it */
        memcpy(s8, st, sizeof s8);
        for (; x + 8 <= end; x += 8)
            for (k = 0; k < 8; k++) row[x + k] = dequant_int_value(row[x + k], s8[k], a->recon);
        for (k = 0; x < end; x++, k++) row[x] = dequant_int_value(row[x], s8[k], a->recon);
    }
}

static void dq_float(void *arg, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                     const float *steps, int blocked)
{
    qargs *a = arg;
    for (uint32_t y = y0; y < y0 + h; y++) {
        const int32_t *src = a->idst + (size_t)y * a->stride;
        float *dst = a->fdst + (size_t)y * a->stride;
        const float *st = row_steps(steps, blocked, y);
        const size_t end = (size_t)x0 + w;
        size_t x = x0, k = 0;
        float s8[8]; /* a local copy: the compiler then knows no store changes it */
        memcpy(s8, st, sizeof s8);
        for (; x + 8 <= end; x += 8)
            for (k = 0; k < 8; k++) dst[x + k] = dequant_value(src[x + k], s8[k], a->recon);
        for (k = 0; x < end; x++, k++) dst[x] = dequant_value(src[x], s8[k], a->recon);
    }
}

void quant_int_plane(int32_t *plane, const quant_layout *lay, const float *steps, float threshold)
{
    qargs a = {.idst = plane, .stride = lay->width, .threshold = threshold};
    for_each_band(lay, steps, q_int, &a);
}

void quant_float_plane(const float *src, int32_t *dst, const quant_layout *lay, const float *steps,
                       float threshold)
{
    qargs a = {.fsrc = src, .idst = dst, .stride = lay->width, .threshold = threshold};
    for_each_band(lay, steps, q_float, &a);
}

void dequant_int_plane(int32_t *plane, const quant_layout *lay, const float *steps, float recon)
{
    qargs a = {.idst = plane, .stride = lay->width, .recon = recon};
    for_each_band(lay, steps, dq_int, &a);
}

void dequant_float_plane(const int32_t *src, float *dst, const quant_layout *lay,
                         const float *steps, float recon)
{
    qargs a = {.idst = (int32_t *)src, .fdst = dst, .stride = lay->width, .recon = recon};
    for_each_band(lay, steps, dq_float, &a);
}
