/*
 * backend_cpu.c -- the reference backend: colour, transform and
 * quantization on the host, stage by stage. The CUDA backend must produce
 * exactly these coefficients and pixels.
 */
#include <string.h>

#include "backend.h"
#include "chain_host.h"
#include "colour.h"
#include "pool.h"
#include "dct8.h"
#include "dct_strips.h"
#include "dwt.h"
#include "lot8.h"
#include "parallel.h"
#include "quant.h"

static wc_status cpu_create(void **self, wc_err *err)
{
    (void)err;
    *self = NULL;
    return WC_OK;
}

static void cpu_destroy(void *self) { (void)self; }

static quant_layout layout_of(const wc_stage_plan *p, uint32_t c, uint32_t w, uint32_t h)
{
    quant_layout lay = {w, h, p->transform[c] != WC_TRANSFORM_DWT, p->levels};
    return lay;
}

/* Spatial transform of one float plane: the DWT in place (dst == src);
 * block transforms in dst, a padded copy (pw x ph), or src itself when
 * its sides are already multiples of 8. */
static wc_status transform_float(const wc_stage_plan *p, uint32_t c, float *src, float *dst,
                                 uint32_t pw, uint32_t ph, wc_err *err)
{
    if (p->transform[c] == WC_TRANSFORM_DWT) {
        float *scratch = pool_alloc_array(p->pool, dwt_scratch_elems(pw, ph), sizeof(float));
        WC_RETURN_IF(!scratch, err, WC_ERR_NOMEM, "out of memory (DWT scratch)");
        dwt_float_forward(p->wavelet[c], src, pw, ph, p->levels, scratch);
        pool_free(p->pool, scratch);
        return WC_OK;
    }
    if (dst != src) blk8_pad(src, p->width, p->height, dst, pw, ph);
    if (p->transform[c] == WC_TRANSFORM_DCT) {
        dct8_forward(dst, pw, ph);
        return WC_OK;
    }
    float *scratch = pool_alloc_array(p->pool, lot8_scratch_elems(pw, ph), sizeof(float));
    WC_RETURN_IF(!scratch, err, WC_ERR_NOMEM, "out of memory (LOT scratch)");
    lot8_forward(dst, pw, ph, scratch);
    pool_free(p->pool, scratch);
    return WC_OK;
}

static wc_status forward_float_comp(const wc_stage_plan *p, uint32_t c, float *plane,
                                    wc_coeffs *out, wc_err *err)
{
    const uint32_t pw = out->width[c], ph = out->height[c];
    float *coef = plane;
    float *padded = NULL;
    if (p->transform[c] != WC_TRANSFORM_DWT && (pw != p->width || ph != p->height)) {
        /* Sides not multiples of 8: a padded copy (else in place). */
        padded = pool_alloc_array(p->pool, (size_t)pw * ph, sizeof(float));
        WC_RETURN_IF(!padded, err, WC_ERR_NOMEM, "out of memory (block plane)");
        coef = padded;
    }
    wc_status s = transform_float(p, c, plane, coef, pw, ph, err);
    if (s == WC_OK) {
        quant_layout lay = layout_of(p, c, pw, ph);
        if (p->quantize)
            quant_float_plane(coef, out->q[c], &lay, p->steps[c], p->threshold[c]);
        else
            memcpy(out->f[c], coef, (size_t)pw * ph * sizeof(float));
    }
    pool_free(p->pool, padded);
    return s;
}

/* The components' transforms are independent: one worker each. */
typedef struct comp_job {
    const wc_stage_plan *p;
    const wc_coeffs *cin; /* inverse */
    wc_coeffs *cout;      /* forward */
    int32_t **pl;         /* inverse: sample planes */
    float **fl;           /* float planes */
    wc_status status[4];
    wc_err errs[4];
} comp_job;

static void forward_comp(void *arg, size_t c, int worker)
{
    (void)worker;
    comp_job *j = arg;
    const wc_stage_plan *p = j->p;
    wc_coeffs *out = j->cout;
    if (j->fl[c]) {
        const size_t n = (size_t)p->width * p->height;
        if (p->colour != WC_COLOUR_ICT || c > 2)
            for (size_t i = 0; i < n; i++) j->fl[c][i] = (float)out->q[c][i];
        j->status[c] = forward_float_comp(p, (uint32_t)c, j->fl[c], out, &j->errs[c]);
        return;
    }
    int32_t *scratch =
        pool_alloc_array(p->pool, dwt_scratch_elems(p->width, p->height), sizeof(int32_t));
    if (!scratch) {
        j->status[c] = wc_fail(&j->errs[c], WC_ERR_NOMEM, "out of memory (DWT scratch)");
        return;
    }
    dwt_int_forward(p->wavelet[c], out->q[c], p->width, p->height, p->levels, scratch);
    pool_free(p->pool, scratch);
    quant_layout lay = layout_of(p, (uint32_t)c, p->width, p->height);
    if (p->quantize) quant_int_plane(out->q[c], &lay, p->steps[c], p->threshold[c]);
}

/* The first failing component's status and message, in component order. */
static wc_status job_status(const comp_job *j, uint32_t n, wc_err *err)
{
    for (uint32_t c = 0; c < n; c++)
        if (j->status[c] != WC_OK) return wc_fail(err, j->status[c], "%s", j->errs[c].msg);
    return WC_OK;
}

static wc_status cpu_forward(void *self, const wc_stage_plan *p, const wc_image *in, wc_coeffs *out,
                             wc_err *err)
{
    (void)self;
    WC_RETURN_IF(p->device_memory, err, WC_ERR_UNSUPPORTED,
                 "samples in device memory need the CUDA backend");
    if (dct_strips_apply(p)) return dct_strips_forward(p, in, out, err);
    const size_t n = (size_t)p->width * p->height;
    float *fl[4] = {NULL, NULL, NULL, NULL};
    wc_status s = WC_OK;
    for (uint32_t c = 0; c < p->components && s == WC_OK; c++) {
        if (!wc_plan_is_float(p, c)) continue;
        fl[c] = pool_alloc_array(p->pool, n, sizeof(float));
        if (!fl[c]) s = wc_fail(err, WC_ERR_NOMEM, "out of memory (float plane)");
    }
    if (s == WC_OK) {
        /* ICT components go straight to their float planes. */
        uint32_t first = 0;
        if (p->colour == WC_COLOUR_RCT) {
            colour_extract_rct(in, out->q[0], out->q[1], out->q[2]);
            first = 3;
        } else if (p->colour == WC_COLOUR_ICT) {
            colour_extract_ict(in, fl[0], fl[1], fl[2]);
            first = 3;
        }
        for (uint32_t c = first; c < p->components; c++) colour_extract(in, c, out->q[c]);
    }
    if (s == WC_OK) {
        comp_job j;
        memset(&j, 0, sizeof j);
        j.p = p;
        j.cout = out;
        j.fl = fl;
        wc_parallel_for(p->threads, p->components, forward_comp, &j);
        s = job_status(&j, p->components, err);
    }
    for (int c = 0; c < 4; c++) pool_free(p->pool, fl[c]);
    return s;
}

/* Inverse of one float component: dequantize, inverse transform and crop
 * the block padding, leaving w x h float samples in *samples (caller frees). */
static wc_status inverse_float_comp(const wc_stage_plan *p, uint32_t c, const wc_coeffs *in,
                                    float **samples, wc_err *err)
{
    const uint32_t pw = in->width[c], ph = in->height[c];
    float *coef = pool_alloc_array(p->pool, (size_t)pw * ph, sizeof(float));
    WC_RETURN_IF(!coef, err, WC_ERR_NOMEM, "out of memory (float plane)");
    quant_layout lay = layout_of(p, c, pw, ph);
    dequant_float_plane(in->q[c], coef, &lay, p->steps[c], p->recon);
    float *scratch = NULL;
    if (p->transform[c] != WC_TRANSFORM_DCT) {
        size_t sn = p->transform[c] == WC_TRANSFORM_LOT ? lot8_scratch_elems(pw, ph)
                                                        : dwt_scratch_elems(pw, ph);
        scratch = pool_alloc_array(p->pool, sn, sizeof(float));
        if (!scratch) {
            pool_free(p->pool, coef);
            return wc_fail(err, WC_ERR_NOMEM, "out of memory (transform scratch)");
        }
    }
    if (p->transform[c] == WC_TRANSFORM_DWT)
        dwt_float_inverse(p->wavelet[c], coef, pw, ph, p->levels, scratch);
    else if (p->transform[c] == WC_TRANSFORM_DCT)
        dct8_inverse(coef, pw, ph);
    else
        lot8_inverse(coef, pw, ph, scratch);
    pool_free(p->pool, scratch);
    for (uint32_t y = 1; y < p->height && pw != p->width; y++)
        memmove(coef + (size_t)y * p->width, coef + (size_t)y * pw, p->width * sizeof(float));
    *samples = coef;
    return WC_OK;
}

static wc_status inverse_int_comp(const wc_stage_plan *p, uint32_t c, const wc_coeffs *in,
                                  int32_t *dst, wc_err *err)
{
    int32_t *scratch =
        pool_alloc_array(p->pool, dwt_scratch_elems(p->width, p->height), sizeof(int32_t));
    WC_RETURN_IF(!scratch, err, WC_ERR_NOMEM, "out of memory (DWT scratch)");
    if (dst != in->q[c]) memcpy(dst, in->q[c], (size_t)p->width * p->height * sizeof(int32_t));
    quant_layout lay = layout_of(p, c, p->width, p->height);
    dequant_int_plane(dst, &lay, p->steps[c], p->recon);
    dwt_int_inverse(p->wavelet[c], dst, p->width, p->height, p->levels, scratch);
    pool_free(p->pool, scratch);
    return WC_OK;
}

static void inverse_comp(void *arg, size_t c, int worker)
{
    (void)worker;
    comp_job *j = arg;
    const size_t n = (size_t)j->p->width * j->p->height;
    /* A consumable plane (width x height or larger) is read before the
     * samples are written into it, by either path. */
    j->pl[c] = j->cin->consumable ? j->cin->q[c] : pool_alloc_array(j->p->pool, n, sizeof(int32_t));
    if (!j->pl[c])
        j->status[c] = wc_fail(&j->errs[c], WC_ERR_NOMEM, "out of memory (sample plane)");
    else if (wc_plan_is_float(j->p, (uint32_t)c))
        j->status[c] = inverse_float_comp(j->p, (uint32_t)c, j->cin, &j->fl[c], &j->errs[c]);
    else
        j->status[c] = inverse_int_comp(j->p, (uint32_t)c, j->cin, j->pl[c], &j->errs[c]);
}

static wc_status cpu_inverse(void *self, const wc_stage_plan *p, const wc_coeffs *in, wc_image *out,
                             wc_err *err)
{
    (void)self;
    WC_RETURN_IF(p->device_memory, err, WC_ERR_UNSUPPORTED,
                 "samples in device memory need the CUDA backend");
    const size_t n = (size_t)p->width * p->height;
    int32_t *pl[4] = {NULL, NULL, NULL, NULL};
    float *fl[4] = {NULL, NULL, NULL, NULL};
    comp_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.cin = in;
    j.pl = pl;
    j.fl = fl;
    wc_parallel_for(p->threads, p->components, inverse_comp, &j);
    wc_status s = job_status(&j, p->components, err);
    uint32_t first = 0;
    if (s == WC_OK && p->colour == WC_COLOUR_RCT) {
        colour_insert_rct(pl[0], pl[1], pl[2], out);
        first = 3;
    } else if (s == WC_OK && p->colour == WC_COLOUR_ICT) {
        colour_insert_ict(fl[0], fl[1], fl[2], out);
        first = 3;
    }
    for (uint32_t c = first; c < p->components && s == WC_OK; c++) {
        if (fl[c]) colour_round_plane(fl[c], pl[c], n, p->bit_depth);
        colour_insert(pl[c], c, out);
    }
    for (int c = 0; c < 4; c++) {
        if (!in->consumable) pool_free(p->pool, pl[c]);
        pool_free(p->pool, fl[c]);
    }
    return s;
}

static wc_status cpu_encode(void *self, const wc_stage_plan *p, const wc_image *in, wc_chain *chain,
                            struct es_output *out, wc_err *err)
{
    return wc_chain_encode_host(wc_backend_cpu(), self, p, in, chain, out, err);
}

static wc_status cpu_decode(void *self, const wc_stage_plan *p, wc_chain *chain,
                            const struct es_input *in, wc_image *out, wc_err *err)
{
    return wc_chain_decode_host(wc_backend_cpu(), self, p, chain, in, out, err);
}

static const wc_backend_ops cpu_ops = {"cpu",       cpu_create, cpu_destroy, cpu_forward,
                                       cpu_inverse, cpu_encode, cpu_decode};

const wc_backend_ops *wc_backend_cpu(void) { return &cpu_ops; }
