/*
 * backend_cuda.cu -- the CUDA backend behind common/backend.h: a plain C
 * table of functions over an opaque context that owns a stream and the
 * device buffers, so a second image pays no set-up (buffers grow only when
 * an image needs more).
 *
 * Each direction crosses PCIe once: forward uploads the interleaved 8/16-bit
 * samples as they are and downloads the coefficient planes; inverse uploads
 * the int32 planes and downloads the samples. Level shift, colour, every
 * DWT level and (de)quantization run in the kernels of dwt_cuda.h; DCT and
 * LOT components (padded to whole 8x8 blocks, the planes ceil8(w) x
 * ceil8(h)) in those of blk8_cuda.h, one kernel per component and direction.
 *
 * Every CUDA failure becomes WC_ERR_BACKEND with CUDA's message.
 */
extern "C" {
#include "backend.h"
}

#include "blk8_cuda.h"
#include "colour_transform.h"
#include "dwt_cuda.h"

namespace {

struct cuda_ctx {
    int device;
    cudaStream_t stream;
    void *px;     /* interleaved samples */
    size_t px_cap;
    void *coef;   /* components x width x height coefficients (4 bytes) */
    size_t coef_cap;
    void *work;   /* two LL-of-level-1 planes */
    size_t work_cap;
    void *planes; /* inverse: components 0..2 before the colour transform */
    size_t planes_cap;
};

wc_status cuda_fail(wc_err *err, cudaError_t e, const char *what)
{
    return wc_fail(err, WC_ERR_BACKEND, "CUDA %s: %s", what, cudaGetErrorString(e));
}

#define CUDA_TRY(err, call, what)                                                            \
    do {                                                                                     \
        const cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) return cuda_fail((err), e_, (what));                          \
    } while (0)

/* Makes *p hold at least `need` bytes, reallocating only to grow. */
wc_status grow(void **p, size_t *cap, size_t need, wc_err *err, const char *what)
{
    if (need <= *cap) return WC_OK;
    if (*p) cudaFree(*p);
    *p = NULL;
    *cap = 0;
    CUDA_TRY(err, cudaMalloc(p, need), what);
    *cap = need;
    return WC_OK;
}

wc_status cuda_create(void **self, wc_err *err)
{
    *self = NULL;
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    WC_RETURN_IF(e != cudaSuccess || n == 0, err, WC_ERR_BACKEND, "no CUDA device%s%s",
                 e != cudaSuccess ? ": " : "", e != cudaSuccess ? cudaGetErrorString(e) : "");
    cuda_ctx *c = (cuda_ctx *)wc_calloc(1, sizeof *c);
    WC_RETURN_IF(!c, err, WC_ERR_NOMEM, "out of memory (CUDA context)");
    cudaError_t s = cudaGetDevice(&c->device);
    if (s == cudaSuccess) s = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (s != cudaSuccess) {
        wc_free(c);
        return cuda_fail(err, s, "start-up");
    }
    *self = c;
    return WC_OK;
}

void cuda_destroy(void *self)
{
    cuda_ctx *c = (cuda_ctx *)self;
    if (!c) return;
    cudaSetDevice(c->device);
    cudaStreamSynchronize(c->stream);
    cudaFree(c->px);
    cudaFree(c->coef);
    cudaFree(c->work);
    cudaFree(c->planes);
    cudaStreamDestroy(c->stream);
    wc_free(c);
}

/* ---- plans ------------------------------------------------------------------ */

int colour_active(const wc_stage_plan *p)
{
    return p->components >= 3 && p->colour != WC_COLOUR_NONE;
}

int is_block(const wc_stage_plan *p, uint32_t c) { return p->transform[c] != WC_TRANSFORM_DWT; }

/* Float arithmetic (9/7 and the block transforms): the seam's rule. */
int is_float(const wc_stage_plan *p, uint32_t c) { return wc_plan_is_float(p, c); }

uint32_t ceil8(uint32_t n) { return (n + 7u) & ~7u; }

/* Elements of every component's slot in the coefficient buffer: block
 * transform planes are padded to whole blocks. */
size_t coef_elems(const wc_stage_plan *p)
{
    for (uint32_t c = 0; c < p->components; c++)
        if (is_block(p, c)) return (size_t)ceil8(p->width) * ceil8(p->height);
    return (size_t)p->width * p->height;
}

wc_status check_plan(const wc_stage_plan *p, const wc_coeffs *co, wc_err *err)
{
    WC_RETURN_IF(p->width == 0 || p->height == 0 || p->components < 1 || p->components > 4, err,
                 WC_ERR_ARG, "CUDA backend: bad image shape %ux%ux%u", p->width, p->height,
                 p->components);
    WC_RETURN_IF(p->bit_depth < 1 || p->bit_depth > 16, err, WC_ERR_ARG,
                 "CUDA backend: bit depth %u", p->bit_depth);
    WC_RETURN_IF(p->levels < 0 || p->levels > 15, err, WC_ERR_ARG, "CUDA backend: %d levels",
                 p->levels);
    WC_RETURN_IF((size_t)p->width * p->height > ((size_t)1 << 31), err, WC_ERR_LIMIT,
                 "CUDA backend: %ux%u is over 2^31 pixels", p->width, p->height);
    WC_RETURN_IF(co->components != p->components, err, WC_ERR_ARG,
                 "CUDA backend: %u coefficient planes for %u components", co->components,
                 p->components);
    for (uint32_t c = 0; c < p->components; c++) {
        WC_RETURN_IF(p->transform[c] != WC_TRANSFORM_DWT && p->transform[c] != WC_TRANSFORM_DCT &&
                         p->transform[c] != WC_TRANSFORM_LOT,
                     err, WC_ERR_ARG, "CUDA backend: transform %d", p->transform[c]);
        WC_RETURN_IF(!is_block(p, c) && p->wavelet[c] != 53 && p->wavelet[c] != 97, err, WC_ERR_ARG,
                     "CUDA backend: wavelet %d", p->wavelet[c]);
        WC_RETURN_IF(p->colour == WC_COLOUR_ICT && colour_active(p) && c < 3 && !is_float(p, c),
                     err, WC_ERR_ARG, "CUDA backend: ICT on an integer (5/3) plane");
        const uint32_t w = is_block(p, c) ? ceil8(p->width) : p->width;
        const uint32_t h = is_block(p, c) ? ceil8(p->height) : p->height;
        WC_RETURN_IF(co->width[c] != w || co->height[c] != h || !co->q[c], err, WC_ERR_ARG,
                     "CUDA backend: coefficient plane %u does not fit the plan", c);
    }
    return WC_OK;
}

size_t sample_bytes(const wc_stage_plan *p) { return p->bit_depth <= 8 ? 1 : 2; }

/* Bytes per image row on the host, and on the device, where rows start
 * 128-byte aligned so the kernels' row accesses line up with cache lines
 * and sample pairs load as one vector. */
size_t host_row_bytes(const wc_stage_plan *p)
{
    return (size_t)p->width * p->components * sample_bytes(p);
}
size_t device_row_bytes(const wc_stage_plan *p) { return (host_row_bytes(p) + 127) & ~(size_t)127; }

wcg_samples device_samples(const cuda_ctx *c, const wc_stage_plan *p)
{
    wcg_samples s = {};
    s.px = c->px;
    s.pitch = device_row_bytes(p) / sample_bytes(p);
    s.comps = p->components;
    s.bytes = (uint32_t)sample_bytes(p);
    s.colour = colour_active(p) ? p->colour : WC_COLOUR_NONE;
    s.shift = level_shift(p->bit_depth);
    s.maxval = (int32_t)((1u << p->bit_depth) - 1);
    return s;
}

/* Sizes every buffer a plan needs (inverse: with the colour planes). */
wc_status ensure_buffers(cuda_ctx *c, const wc_stage_plan *p, int inverse, wc_err *err)
{
    const size_t n = (size_t)p->width * p->height;
    const size_t ll = wcg_work_elems(p->width, p->height);
    WC_FORWARD_IF_ERROR(grow(&c->px, &c->px_cap, device_row_bytes(p) * p->height, err,
                             "allocating the sample buffer"));
    WC_FORWARD_IF_ERROR(grow(&c->coef, &c->coef_cap, coef_elems(p) * p->components * 4, err,
                             "allocating the coefficient planes"));
    WC_FORWARD_IF_ERROR(grow(&c->work, &c->work_cap, 2 * ll * 4, err,
                             "allocating the DWT work planes"));
    if (inverse && colour_active(p))
        WC_FORWARD_IF_ERROR(grow(&c->planes, &c->planes_cap, 3 * n * 4, err,
                                 "allocating the colour planes"));
    return WC_OK;
}

wcg_component_job component_job(cuda_ctx *c, const wc_stage_plan *p, uint32_t comp)
{
    const size_t ll = wcg_work_elems(p->width, p->height);
    wcg_component_job j = {};
    j.width = p->width;
    j.height = p->height;
    j.levels = p->levels;
    j.wavelet = p->wavelet[comp];
    j.samples = device_samples(c, p);
    j.samples.comp = comp;
    j.coef = (char *)c->coef + comp * coef_elems(p) * 4;
    j.work[0] = c->work;
    j.work[1] = (char *)c->work + ll * 4;
    j.quantize = p->quantize;
    j.steps = p->steps[comp];
    j.threshold = p->threshold[comp];
    j.recon = p->recon;
    return j;
}

wcg_blk8_job block_job(cuda_ctx *c, const wc_stage_plan *p, uint32_t comp)
{
    wcg_blk8_job j = {};
    j.width = p->width;
    j.height = p->height;
    j.pw = ceil8(p->width);
    j.ph = ceil8(p->height);
    j.samples = device_samples(c, p);
    j.samples.comp = comp;
    j.coef = (char *)c->coef + comp * coef_elems(p) * 4;
    j.quantize = p->quantize;
    for (int i = 0; i < 64; i++) j.steps[i] = p->steps[comp][i];
    j.threshold = p->threshold[comp];
    j.recon = p->recon;
    return j;
}

/* One component's forward transform, by its kind. */
cudaError_t forward_component(cuda_ctx *c, const wc_stage_plan *p, uint32_t k)
{
    if (!is_block(p, k)) {
        const wcg_component_job j = component_job(c, p, k);
        return wcg_forward_component(&j, c->stream);
    }
    const wcg_blk8_job j = block_job(c, p, k);
    return p->transform[k] == WC_TRANSFORM_DCT ? wcg_dct8_forward(&j, c->stream)
                                               : wcg_lot8_forward(&j, c->stream);
}

/* One component's inverse, to the samples or (plane != NULL) to a full-size
 * plane that the inverse colour transform reads. */
cudaError_t inverse_component(cuda_ctx *c, const wc_stage_plan *p, uint32_t k, void *plane)
{
    if (!is_block(p, k)) {
        wcg_component_job j = component_job(c, p, k);
        j.plane = plane;
        return wcg_inverse_component(&j, c->stream);
    }
    wcg_blk8_job j = block_job(c, p, k);
    j.plane = (float *)plane;
    return p->transform[k] == WC_TRANSFORM_DCT ? wcg_dct8_inverse(&j, c->stream)
                                               : wcg_lot8_inverse(&j, c->stream);
}

/* ---- the two directions --------------------------------------------------- */

wc_status cuda_forward(void *self, const wc_stage_plan *p, const wc_image *in, wc_coeffs *out,
                       wc_err *err)
{
    cuda_ctx *c = (cuda_ctx *)self;
    WC_RETURN_IF(!c || !p || !in || !out || !in->pixels, err, WC_ERR_ARG,
                 "CUDA backend: NULL argument");
    WC_RETURN_IF(in->width != p->width || in->height != p->height ||
                     in->components != p->components || in->bit_depth != p->bit_depth,
                 err, WC_ERR_ARG, "CUDA backend: image and plan disagree");
    WC_FORWARD_IF_ERROR(check_plan(p, out, err));
    for (uint32_t k = 0; k < p->components; k++)
        WC_RETURN_IF(!p->quantize && is_float(p, k) && !out->f[k], err, WC_ERR_ARG,
                     "CUDA backend: no float plane for component %u", k);
    CUDA_TRY(err, cudaSetDevice(c->device), "selecting the device");
    WC_FORWARD_IF_ERROR(ensure_buffers(c, p, 0, err));

    const size_t n = coef_elems(p);
    const size_t row = host_row_bytes(p);
    CUDA_TRY(err, cudaMemcpy2DAsync(c->px, device_row_bytes(p), in->pixels,
                                    in->stride ? in->stride : row, row, p->height,
                                    cudaMemcpyHostToDevice, c->stream),
             "uploading the samples");
    for (uint32_t k = 0; k < p->components; k++)
        CUDA_TRY(err, forward_component(c, p, k), "forward transform");
    for (uint32_t k = 0; k < p->components; k++) {
        void *dst = !p->quantize && is_float(p, k) ? (void *)out->f[k] : (void *)out->q[k];
        const size_t bytes = (size_t)out->width[k] * out->height[k] * 4;
        CUDA_TRY(err, cudaMemcpyAsync(dst, (char *)c->coef + k * n * 4, bytes,
                                      cudaMemcpyDeviceToHost, c->stream),
                 "downloading the coefficients");
    }
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "forward transform");
    return WC_OK;
}

wc_status cuda_inverse(void *self, const wc_stage_plan *p, const wc_coeffs *in, wc_image *out,
                       wc_err *err)
{
    cuda_ctx *c = (cuda_ctx *)self;
    WC_RETURN_IF(!c || !p || !in || !out || !out->pixels, err, WC_ERR_ARG,
                 "CUDA backend: NULL argument");
    WC_RETURN_IF(out->width != p->width || out->height != p->height ||
                     out->components != p->components || out->bit_depth != p->bit_depth,
                 err, WC_ERR_ARG, "CUDA backend: image and plan disagree");
    WC_FORWARD_IF_ERROR(check_plan(p, in, err));
    CUDA_TRY(err, cudaSetDevice(c->device), "selecting the device");
    WC_FORWARD_IF_ERROR(ensure_buffers(c, p, 1, err));

    const size_t n = (size_t)p->width * p->height, slot = coef_elems(p);
    for (uint32_t k = 0; k < p->components; k++)
        CUDA_TRY(err, cudaMemcpyAsync((char *)c->coef + k * slot * 4, in->q[k],
                                      (size_t)in->width[k] * in->height[k] * 4,
                                      cudaMemcpyHostToDevice, c->stream),
                 "uploading the coefficients");
    const int colour = colour_active(p);
    for (uint32_t k = 0; k < p->components; k++)
        CUDA_TRY(err, inverse_component(c, p, k, colour && k < 3 ? (char *)c->planes + k * n * 4 : NULL),
                 "inverse transform");
    if (colour) {
        const wcg_samples s = device_samples(c, p);
        const void *planes[3] = {c->planes, (char *)c->planes + n * 4, (char *)c->planes + 2 * n * 4};
        const int fl[3] = {is_float(p, 0), is_float(p, 1), is_float(p, 2)};
        CUDA_TRY(err, wcg_colour_inverse(&s, p->width, p->height, planes, fl, p->width, c->stream),
                 "inverse colour transform");
    }
    const size_t row = host_row_bytes(p);
    CUDA_TRY(err, cudaMemcpy2DAsync(out->pixels, out->stride ? out->stride : row, c->px,
                                    device_row_bytes(p), row, p->height, cudaMemcpyDeviceToHost,
                                    c->stream),
             "downloading the samples");
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "inverse transform");
    return WC_OK;
}

const wc_backend_ops cuda_ops = {"cuda", cuda_create, cuda_destroy, cuda_forward, cuda_inverse};

} /* namespace */

const wc_backend_ops *wc_backend_cuda(void) { return &cuda_ops; }
