/* dct_strips.c -- one-pass DCT encode on the CPU (see dct_strips.h). */
#include <string.h>

#include "colour.h"
#include "dct8.h"
#include "dct_strips.h"
#include "layout.h"
#include "parallel.h"
#include "pool.h"
#include "quant.h"

int dct_strips_apply(const wc_stage_plan *p)
{
    if (!p->band_output || !p->quantize || p->colour == WC_COLOUR_RCT) return 0;
    for (uint32_t c = 0; c < p->components; c++)
        if (p->transform[c] != WC_TRANSFORM_DCT) return 0;
    return 1;
}

typedef struct strip_job {
    const wc_stage_plan *p;
    const wc_image *img;
    wc_coeffs *out;
    uint32_t pw, ph;
    float *fbuf;   /* per worker: components x 8 rows x pw floats */
    int32_t *qbuf; /* per worker: 8 rows x pw quantized values */
} strip_job;

/* Strip `by`: rows 8 by .. 8 by + 7 of the padded plane, each the mirror
 * of an image row (blk8_pad's extension), then blk8_pad's column tail. */
static void do_strip(void *arg, size_t by, int worker)
{
    strip_job *j = arg;
    const wc_stage_plan *p = j->p;
    const uint32_t pw = j->pw, w = p->width, nc = p->components;
    float *f = j->fbuf + (size_t)worker * nc * 8 * pw;
    int32_t *q = j->qbuf + (size_t)worker * 8 * pw;
    for (uint32_t r = 0; r < 8; r++) {
        const uint32_t src = blk8_mirror((uint32_t)by * 8 + r, p->height);
        float *row[4] = {NULL, NULL, NULL, NULL};
        for (uint32_t c = 0; c < nc; c++) row[c] = f + ((size_t)c * 8 + r) * pw;
        uint32_t first = 0;
        if (p->colour == WC_COLOUR_ICT) {
            colour_row_ict(j->img, src, row[0], row[1], row[2]);
            first = 3;
        }
        for (uint32_t c = first; c < nc; c++) colour_row_float(j->img, src, c, row[c]);
        for (uint32_t c = 0; c < nc; c++) blk8_pad_tail(row[c], w, pw);
    }
    const quant_layout lay = {pw, 8, 1, 0};
    for (uint32_t c = 0; c < nc; c++) {
        float *s = f + (size_t)c * 8 * pw;
        dct8_forward(s, pw, 8);
        quant_float_plane(s, q, &lay, p->steps[c], p->threshold[c]);
        layout_strip_to_bands(q, j->out->q[c], pw, j->ph, (uint32_t)by);
    }
}

wc_status dct_strips_forward(const wc_stage_plan *p, const wc_image *img, wc_coeffs *out,
                             wc_err *err)
{
    strip_job j = {p, img, out, (p->width + 7) & ~7u, (p->height + 7) & ~7u, NULL, NULL};
    const int nw = wc_thread_count(p->threads);
    j.fbuf =
        pool_alloc_array(p->pool, (size_t)nw * p->components * 8, (size_t)j.pw * sizeof(float));
    j.qbuf = pool_alloc_array(p->pool, (size_t)nw * 8, (size_t)j.pw * sizeof(int32_t));
    wc_status s = WC_OK;
    if (!j.fbuf || !j.qbuf) {
        s = wc_fail(err, WC_ERR_NOMEM, "out of memory (DCT strips)");
    } else {
        wc_parallel_for(nw, j.ph / 8, do_strip, &j);
        out->banded = 1;
    }
    pool_free(p->pool, j.fbuf);
    pool_free(p->pool, j.qbuf);
    return s;
}
