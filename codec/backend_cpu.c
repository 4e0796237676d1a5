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
#include "dwt_threads.h"
#include "lot8.h"
#include "parallel.h"
#include "quant.h"
#include "quant_rows.h"

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

/* Threads each component's transform may use: the components already run
 * side by side, one worker each, so each takes its share of the rest.
 * With more than one, the DWT runs split by rows and column strips
 * (transform/dwt_threads.h: the same bits). */
static int comp_threads(const wc_stage_plan *p)
{
    const int t = wc_thread_count(p->threads) / (int)(p->components ? p->components : 1);
    return t > 1 ? t : 1;
}

/* Spatial transform of one float plane: the DWT in place (dst == src);
 * block transforms in dst, a padded copy (pw x ph), or src itself when
 * its sides are already multiples of 8. */
static wc_status transform_float(const wc_stage_plan *p, uint32_t c, float *src, float *dst,
                                 uint32_t pw, uint32_t ph, wc_err *err)
{
    /* The threaded DWT is the separable one's; Barina's Monolithic scheme
     * (153, 197) runs on one thread a component. */
    if (p->transform[c] == WC_TRANSFORM_DWT && p->wavelet[c] == 97 && comp_threads(p) > 1) {
        WC_RETURN_IF(dwt97_forward_mt(src, pw, ph, p->levels, comp_threads(p)), err, WC_ERR_NOMEM,
                     "out of memory (DWT scratch)");
        return WC_OK;
    }
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
            quant_float_plane_mt(coef, out->q[c], &lay, p->steps[c], p->threshold[c],
                                 comp_threads(p));
        else
            memcpy(out->f[c], coef, (size_t)pw * ph * sizeof(float));
    }
    pool_free(p->pool, padded);
    return s;
}

/* int samples to float, in slices on `threads` workers. */
typedef struct float_job {
    const int32_t *src;
    float *dst;
    size_t n;
} float_job;

enum { FLOAT_SLICE = 1 << 16 };

static void to_float_item(void *arg, size_t i, int worker)
{
    (void)worker;
    const float_job *j = arg;
    const size_t a = i * FLOAT_SLICE, e = a + FLOAT_SLICE < j->n ? a + FLOAT_SLICE : j->n;
    for (size_t k = a; k < e; k++) j->dst[k] = (float)j->src[k];
}

static void to_float(const int32_t *src, float *dst, size_t n, int threads)
{
    float_job j = {src, dst, n};
    wc_parallel_for(threads, (n + FLOAT_SLICE - 1) / FLOAT_SLICE, to_float_item, &j);
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
        if (p->colour != WC_COLOUR_ICT || c > 2) to_float(out->q[c], j->fl[c], n, comp_threads(p));
        j->status[c] = forward_float_comp(p, (uint32_t)c, j->fl[c], out, &j->errs[c]);
        return;
    }
    if (comp_threads(p) > 1 && p->wavelet[c] == 53) {
        if (dwt53_forward_mt(out->q[c], p->width, p->height, p->levels, comp_threads(p))) {
            j->status[c] = wc_fail(&j->errs[c], WC_ERR_NOMEM, "out of memory (DWT scratch)");
            return;
        }
    } else {
        int32_t *scratch =
            pool_alloc_array(p->pool, dwt_scratch_elems(p->width, p->height), sizeof(int32_t));
        if (!scratch) {
            j->status[c] = wc_fail(&j->errs[c], WC_ERR_NOMEM, "out of memory (DWT scratch)");
            return;
        }
        dwt_int_forward(p->wavelet[c], out->q[c], p->width, p->height, p->levels, scratch);
        pool_free(p->pool, scratch);
    }
    quant_layout lay = layout_of(p, (uint32_t)c, p->width, p->height);
    if (p->quantize)
        quant_int_plane_mt(out->q[c], &lay, p->steps[c], p->threshold[c], comp_threads(p));
}

/* The first failing component's status and message, in component order. */
static wc_status job_status(const comp_job *j, uint32_t n, wc_err *err)
{
    for (uint32_t c = 0; c < n; c++)
        if (j->status[c] != WC_OK) return wc_fail(err, j->status[c], "%s", j->errs[c].msg);
    return WC_OK;
}

/* ---- colour and samples on all threads: row bands of the image ---------- */

/* Rows an item converts: an 8K frame in 270 items, so that 16 workers end
 * within a small item of each other (64 rows: 68 items, up to a sixth idle). */
enum { COLOUR_ROWS = 16 };

typedef struct colour_job {
    const wc_stage_plan *p;
    const wc_image *img; /* forward: the samples in; inverse: out */
    int32_t **pl;        /* int planes (width x height) */
    float **fl;          /* float planes, or NULL entries */
    int inverse;
} colour_job;

/* Rows [i * COLOUR_ROWS, ...) as an image of their own, and the planes
 * from the same row: every sample gets the whole-image call's arithmetic. */
static void colour_rows(void *arg, size_t i, int worker)
{
    (void)worker;
    const colour_job *j = arg;
    const wc_stage_plan *p = j->p;
    const uint32_t y0 = (uint32_t)i * COLOUR_ROWS;
    wc_image view = *j->img;
    view.height = p->height - y0 < COLOUR_ROWS ? p->height - y0 : COLOUR_ROWS;
    view.stride = wc_row_stride(j->img);
    view.pixels = (uint8_t *)j->img->pixels + (size_t)y0 * view.stride;
    const size_t off = (size_t)y0 * p->width, n = (size_t)view.height * p->width;
    int32_t *pl[4] = {NULL, NULL, NULL, NULL};
    float *fl[4] = {NULL, NULL, NULL, NULL};
    for (uint32_t c = 0; c < p->components; c++) {
        pl[c] = j->pl[c] ? j->pl[c] + off : NULL;
        fl[c] = j->fl[c] ? j->fl[c] + off : NULL;
    }
    uint32_t first = 0;
    if (!j->inverse) {
        if (p->colour == WC_COLOUR_RCT) {
            colour_extract_rct(&view, pl[0], pl[1], pl[2]);
            first = 3;
        } else if (p->colour == WC_COLOUR_ICT) {
            colour_extract_ict(&view, fl[0], fl[1], fl[2]);
            first = 3;
        }
        for (uint32_t c = first; c < p->components; c++) colour_extract(&view, c, pl[c]);
        return;
    }
    if (p->colour == WC_COLOUR_RCT) {
        colour_insert_rct(pl[0], pl[1], pl[2], &view);
        first = 3;
    } else if (p->colour == WC_COLOUR_ICT) {
        colour_insert_ict(fl[0], fl[1], fl[2], &view);
        first = 3;
    }
    for (uint32_t c = first; c < p->components; c++) {
        if (fl[c]) colour_round_plane(fl[c], pl[c], n, p->bit_depth);
        colour_insert(pl[c], c, &view);
    }
}

static void colour_all(const wc_stage_plan *p, const wc_image *img, int32_t **pl, float **fl,
                       int inverse)
{
    colour_job j = {p, img, pl, fl, inverse};
    wc_parallel_for(p->threads, wc_ceil_div(p->height, COLOUR_ROWS), colour_rows, &j);
}

/* ---- every component one DWT: each stage over all of them at once ------- */

/* 1 when every component is a separable DWT of one wavelet (5/3 on ints,
 * 9/7 on floats) on planes of the image's size and there are threads to
 * share: then each stage runs over all the components with all the
 * threads (the DWT's passes over every plane in one loop:
 * dwt_threads.h), where components side by side on a share of the
 * threads each left some idle (3 on 4 or 8 threads: 1 or 2 each) and
 * each level waited on the slowest. The bits are the same either way. */
static int one_dwt(const wc_stage_plan *p)
{
    if (wc_thread_count(p->threads) < 2 || p->components < 2) return 0;
    for (uint32_t c = 0; c < p->components; c++)
        if (p->transform[c] != WC_TRANSFORM_DWT || p->wavelet[c] != p->wavelet[0] ||
            (p->wavelet[c] != 53 && p->wavelet[c] != 97))
            return 0;
    return 1;
}

/* one_dwt's forward after colour: ints to floats where needed, the DWT,
 * then each component quantized on all the threads. */
static wc_status forward_one_dwt(const wc_stage_plan *p, float **fl, wc_coeffs *out, wc_err *err)
{
    const size_t n = (size_t)p->width * p->height;
    const int f = p->wavelet[0] == 97;
    for (uint32_t c = 0; c < p->components && f; c++)
        if (p->colour != WC_COLOUR_ICT || c > 2) to_float(out->q[c], fl[c], n, p->threads);
    const int bad = f ? dwt97_forward_mt_planes(fl, (int)p->components, p->width, p->height,
                                                p->levels, p->threads)
                      : dwt53_forward_mt_planes(out->q, (int)p->components, p->width, p->height,
                                                p->levels, p->threads);
    WC_RETURN_IF(bad, err, WC_ERR_NOMEM, "out of memory (DWT scratch)");
    for (uint32_t c = 0; c < p->components; c++) {
        quant_layout lay = layout_of(p, c, p->width, p->height);
        if (!p->quantize && f)
            memcpy(out->f[c], fl[c], n * sizeof(float));
        else if (p->quantize && f)
            quant_float_plane_mt(fl[c], out->q[c], &lay, p->steps[c], p->threshold[c], p->threads);
        else if (p->quantize)
            quant_int_plane_mt(out->q[c], &lay, p->steps[c], p->threshold[c], p->threads);
    }
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
    /* ICT components go straight to their float planes. */
    if (s == WC_OK) colour_all(p, in, out->q, fl, 0);
    if (s == WC_OK && one_dwt(p)) {
        s = forward_one_dwt(p, fl, out, err);
    } else if (s == WC_OK) {
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
    dequant_float_plane_mt(in->q[c], coef, &lay, p->steps[c], p->recon, comp_threads(p));
    float *scratch = NULL;
    const int mt =
        p->transform[c] == WC_TRANSFORM_DWT && p->wavelet[c] == 97 && comp_threads(p) > 1;
    if (p->transform[c] != WC_TRANSFORM_DCT && !mt) {
        size_t sn = p->transform[c] == WC_TRANSFORM_LOT ? lot8_scratch_elems(pw, ph)
                                                        : dwt_scratch_elems(pw, ph);
        scratch = pool_alloc_array(p->pool, sn, sizeof(float));
        if (!scratch) {
            pool_free(p->pool, coef);
            return wc_fail(err, WC_ERR_NOMEM, "out of memory (transform scratch)");
        }
    }
    if (mt) {
        if (dwt97_inverse_mt(coef, pw, ph, p->levels, comp_threads(p))) {
            pool_free(p->pool, coef);
            return wc_fail(err, WC_ERR_NOMEM, "out of memory (transform scratch)");
        }
    } else if (p->transform[c] == WC_TRANSFORM_DWT)
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
    if (dst != in->q[c]) memcpy(dst, in->q[c], (size_t)p->width * p->height * sizeof(int32_t));
    quant_layout lay = layout_of(p, c, p->width, p->height);
    dequant_int_plane_mt(dst, &lay, p->steps[c], p->recon, comp_threads(p));
    if (comp_threads(p) > 1 && p->wavelet[c] == 53) {
        WC_RETURN_IF(dwt53_inverse_mt(dst, p->width, p->height, p->levels, comp_threads(p)), err,
                     WC_ERR_NOMEM, "out of memory (DWT scratch)");
        return WC_OK;
    }
    int32_t *scratch =
        pool_alloc_array(p->pool, dwt_scratch_elems(p->width, p->height), sizeof(int32_t));
    WC_RETURN_IF(!scratch, err, WC_ERR_NOMEM, "out of memory (DWT scratch)");
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

/* one_dwt's inverse before colour: sample planes as inverse_comp takes
 * them, each component dequantized on all the threads, then the DWT. */
static wc_status inverse_one_dwt(const wc_stage_plan *p, const wc_coeffs *in, int32_t **pl,
                                 float **fl, wc_err *err)
{
    const size_t n = (size_t)p->width * p->height;
    const int f = p->wavelet[0] == 97;
    for (uint32_t c = 0; c < p->components; c++) {
        pl[c] = in->consumable ? in->q[c] : pool_alloc_array(p->pool, n, sizeof(int32_t));
        WC_RETURN_IF(!pl[c], err, WC_ERR_NOMEM, "out of memory (sample plane)");
        if (f) {
            fl[c] = pool_alloc_array(p->pool, n, sizeof(float));
            WC_RETURN_IF(!fl[c], err, WC_ERR_NOMEM, "out of memory (float plane)");
        }
    }
    for (uint32_t c = 0; c < p->components; c++) {
        quant_layout lay = layout_of(p, c, p->width, p->height);
        if (f) {
            dequant_float_plane_mt(in->q[c], fl[c], &lay, p->steps[c], p->recon, p->threads);
            continue;
        }
        if (pl[c] != in->q[c]) memcpy(pl[c], in->q[c], n * sizeof(int32_t));
        dequant_int_plane_mt(pl[c], &lay, p->steps[c], p->recon, p->threads);
    }
    const int bad = f ? dwt97_inverse_mt_planes(fl, (int)p->components, p->width, p->height,
                                                p->levels, p->threads)
                      : dwt53_inverse_mt_planes(pl, (int)p->components, p->width, p->height,
                                                p->levels, p->threads);
    WC_RETURN_IF(bad, err, WC_ERR_NOMEM, "out of memory (DWT scratch)");
    return WC_OK;
}

static wc_status cpu_inverse(void *self, const wc_stage_plan *p, const wc_coeffs *in, wc_image *out,
                             wc_err *err)
{
    (void)self;
    WC_RETURN_IF(p->device_memory, err, WC_ERR_UNSUPPORTED,
                 "samples in device memory need the CUDA backend");
    int32_t *pl[4] = {NULL, NULL, NULL, NULL};
    float *fl[4] = {NULL, NULL, NULL, NULL};
    comp_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.cin = in;
    j.pl = pl;
    j.fl = fl;
    wc_status s;
    if (one_dwt(p)) {
        s = inverse_one_dwt(p, in, pl, fl, err);
    } else {
        wc_parallel_for(p->threads, p->components, inverse_comp, &j);
        s = job_status(&j, p->components, err);
    }
    if (s == WC_OK) colour_all(p, out, pl, fl, 1);
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

/* backend.h's fetch from host memory: the same route as a device's, so
 * that it runs (and is tested) without one. */
static wc_status cpu_fetch(void *self, const wc_stage_plan *plan, const wc_image *in, wc_image *out,
                           wc_err *err)
{
    (void)self;
    (void)plan;
    WC_RETURN_IF(!in || !out || !in->pixels || !out->pixels || out->width != in->width ||
                     out->height != in->height || out->components != in->components ||
                     out->bit_depth != in->bit_depth,
                 err, WC_ERR_ARG, "CPU backend: the images' shapes differ");
    const size_t row = wc_packed_row_bytes(in);
    for (uint32_t y = 0; y < in->height; y++)
        memcpy((uint8_t *)out->pixels + (size_t)y * wc_row_stride(out),
               (const uint8_t *)in->pixels + (size_t)y * wc_row_stride(in), row);
    return WC_OK;
}

/* No prepare: nothing to size ahead. */
static const wc_backend_ops cpu_ops = {"cpu",       cpu_create,  cpu_destroy,
                                       cpu_forward, cpu_inverse, cpu_encode,
                                       cpu_decode,  NULL,        cpu_fetch};

const wc_backend_ops *wc_backend_cpu(void) { return &cpu_ops; }
