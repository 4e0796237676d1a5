/*
 * backend_cuda.cu -- the CUDA backend behind codec/backend.h: a plain C
 * table of functions over an opaque context that owns a stream, the device
 * buffers and pinned staging buffers, so a second image pays no set-up
 * (buffers grow only when an image needs more).
 *
 * encode (the whole chain): the interleaved 8/16-bit samples go up once
 * (pageable ones staged through pinned memory, upload_samples); level
 * shift, colour, every DWT level and quantization run in the kernels of
 * dwt_cuda.h, DCT and LOT components in those of blk8_cuda.h (then
 * regrouped into bands); the block coder of entropy_cuda.h counts symbols,
 * the host builds the tables (es_build_tables), the coder emits and packs
 * the blocks, and only the coded bytes and their sizes come back. decode
 * is the reverse: coded bytes up once, blocks decoded on the device,
 * inverse kernels, samples down once. Deflate mode codes on the host from
 * (to) the device's coefficients (chain_host.c).
 *
 * forward / inverse (the stages alone, for rate control): samples up and
 * coefficient planes down, or planes up and samples down.
 *
 * Every CUDA failure (device out of memory included) becomes
 * WC_ERR_BACKEND with CUDA's message.
 */
extern "C" {
#include "backend.h"
#include "entropy_stage.h"
#include "parallel.h"
}

#include "blk8_cuda.h"
#include "dwt_cuda.h"
#include "entropy_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    /* The block coder's (encode): */
    void *bands;  /* DCT/LOT planes regrouped into frequency bands */
    size_t bands_cap;
    void *blocks; /* wcg_cblk per code block */
    size_t blocks_cap;
    void *slots;  /* each block's coded bytes, bc_bound apart */
    size_t slots_cap;
    void *payload;/* the blocks' bytes end to end */
    size_t payload_cap;
    void *sizes;  /* uint32 per block + the overflow flag */
    size_t sizes_cap;
    void *offsets;/* uint64 per block + the total */
    size_t offsets_cap;
    void *hist;   /* uint64 symbol counts */
    size_t hist_cap;
    void *tabs;   /* encoder tables */
    size_t tabs_cap;
    /* Pinned host staging of the same, kept between calls. */
    void *h_blocks, *h_hist, *h_tabs, *h_sizes, *h_payload;
    size_t h_blocks_cap, h_hist_cap, h_tabs_cap, h_sizes_cap, h_payload_cap;
    cudaEvent_t ev[8];  /* stage boundaries of the device encode */
    cudaEvent_t user;   /* recorded on the caller's stream (plan->stream) */
    /* Pageable samples pass through here in pieces (see stage_upload). */
    void *stage;
    size_t stage_cap;
    cudaEvent_t piece[8];
    int pieces;
    int events;
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

double now_s()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The same for pinned host memory. */
wc_status grow_pinned(void **p, size_t *cap, size_t need, wc_err *err, const char *what)
{
    if (need <= *cap) return WC_OK;
    if (*p) cudaFreeHost(*p);
    *p = NULL;
    *cap = 0;
    CUDA_TRY(err, cudaHostAlloc(p, need, cudaHostAllocDefault), what);
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
    if (s == cudaSuccess) s = cudaEventCreateWithFlags(&c->user, cudaEventDisableTiming);
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
    void *dev[] = {c->bands, c->blocks, c->slots, c->payload, c->sizes, c->offsets, c->hist, c->tabs};
    for (void *p : dev) cudaFree(p);
    void *host[] = {c->h_blocks, c->h_hist, c->h_tabs, c->h_sizes, c->h_payload, c->stage};
    for (int i = 0; i < c->pieces; i++) cudaEventDestroy(c->piece[i]);
    for (void *p : host) cudaFreeHost(p);
    for (int i = 0; i < c->events; i++) cudaEventDestroy(c->ev[i]);
    cudaEventDestroy(c->user);
    cudaStreamDestroy(c->stream);
    wc_free(c);
}

/* Selects the device and orders the backend's stream after the work the
 * caller queued on its own stream (the samples a kernel of theirs made). */
wc_status begin_call(cuda_ctx *c, const wc_stage_plan *p, wc_err *err)
{
    CUDA_TRY(err, cudaSetDevice(c->device), "selecting the device");
    if (p->stream) {
        CUDA_TRY(err, cudaEventRecord(c->user, (cudaStream_t)p->stream), "waiting for the caller's stream");
        CUDA_TRY(err, cudaStreamWaitEvent(c->stream, c->user, 0), "waiting for the caller's stream");
    }
    return WC_OK;
}

/* ---- plans ------------------------------------------------------------------ */

int colour_active(const wc_stage_plan *p)
{
    return p->components >= 3 && p->colour != WC_COLOUR_NONE;
}

int is_block(const wc_stage_plan *p, uint32_t c) { return p->transform[c] != WC_TRANSFORM_DWT; }

/* Float arithmetic (9/7 and the block transforms), as backend_cpu.c. */
int is_float(const wc_stage_plan *p, uint32_t c) { return is_block(p, c) || p->wavelet[c] == 97; }

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
    /* co NULL: the whole-chain encode, which owns its planes. */
    WC_RETURN_IF(co && co->components != p->components, err, WC_ERR_ARG,
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
        WC_RETURN_IF(co && (co->width[c] != w || co->height[c] != h || !co->q[c]), err, WC_ERR_ARG,
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
    s.shift = (int32_t)1 << (p->bit_depth - 1);
    s.maxval = (int32_t)((1u << p->bit_depth) - 1);
    return s;
}

/* ---- samples across PCIe --------------------------------------------------- */

/* Pageable memory crosses PCIe at about a fifth of pinned memory's rate
 * (the driver stages it one thread at a time): measured 8.6 GB/s against
 * 50 on the H100's host. Large pageable images therefore go through the
 * context's pinned buffer in up to 8 pieces, every host thread copying
 * one piece while the DMA engine moves the one before. Pinned, registered
 * and device memory go directly. */
constexpr size_t kStageMin = (size_t)4 << 20; /* smaller images: directly */

bool pageable(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* older runtimes: unknown pointers fail */
        return true;
    }
    return a.type == cudaMemoryTypeUnregistered;
}

struct row_copy {
    const uint8_t *src;
    uint8_t *dst;
    size_t sstride, dstride, row;
    size_t y0;
};

void copy_row(void *arg, size_t i, int worker)
{
    (void)worker;
    const row_copy *j = (const row_copy *)arg;
    memcpy(j->dst + (j->y0 + i) * j->dstride, j->src + (j->y0 + i) * j->sstride, j->row);
}

wc_status ensure_stage(cuda_ctx *c, size_t bytes, wc_err *err)
{
    /* Nothing may still be copying out of the buffer it replaces. */
    if (bytes > c->stage_cap) CUDA_TRY(err, cudaStreamSynchronize(c->stream), "staging");
    WC_FORWARD_IF_ERROR(grow_pinned(&c->stage, &c->stage_cap, bytes, err, "allocating the pinned stage"));
    for (; c->pieces < 8; c->pieces++)
        CUDA_TRY(err, cudaEventCreateWithFlags(&c->piece[c->pieces], cudaEventDisableTiming), "creating events");
    return WC_OK;
}

/* The samples of `in` into c->px (rows device_row_bytes apart). */
wc_status upload_samples(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_err *err)
{
    const size_t row = host_row_bytes(p), stride = in->stride ? in->stride : row;
    const size_t dpitch = device_row_bytes(p);
    if (p->device_memory || row * p->height < kStageMin || !pageable(in->pixels)) {
        CUDA_TRY(err, cudaMemcpy2DAsync(c->px, dpitch, in->pixels, stride, row, p->height,
                                        cudaMemcpyDefault, c->stream),
                 "uploading the samples");
        return WC_OK;
    }
    WC_FORWARD_IF_ERROR(ensure_stage(c, row * p->height, err));
    row_copy j = {(const uint8_t *)in->pixels, (uint8_t *)c->stage, stride, row, row, 0};
    const size_t per = (p->height + 7) / 8;
    for (size_t y = 0; y < p->height; y += per) {
        const size_t n = p->height - y < per ? p->height - y : per;
        j.y0 = y;
        wc_parallel_for(p->threads, n, copy_row, &j);
        CUDA_TRY(err, cudaMemcpy2DAsync((uint8_t *)c->px + y * dpitch, dpitch, (uint8_t *)c->stage + y * row, row,
                                        row, n, cudaMemcpyHostToDevice, c->stream),
                 "uploading the samples");
    }
    return WC_OK;
}

/* Bytes gathered from up to four host pieces (the components' payloads in
 * the file) into dst on the device, staged like the samples. */
struct gather {
    const uint8_t *src[4];
    size_t size[4], base[4];
    int n;
    uint8_t *stage;
    size_t lo, per, hi;
};

void gather_piece(void *arg, size_t i, int worker)
{
    (void)worker;
    const gather *g = (const gather *)arg;
    const size_t a = g->lo + i * g->per, b = a + g->per < g->hi ? a + g->per : g->hi;
    for (int k = 0; k < g->n; k++) { /* the parts of [a, b) in piece k */
        const size_t s = g->base[k] > a ? g->base[k] : a;
        const size_t e = g->base[k] + g->size[k] < b ? g->base[k] + g->size[k] : b;
        if (s < e) memcpy(g->stage + s, g->src[k] + (s - g->base[k]), e - s);
    }
}

wc_status upload_gather(cuda_ctx *c, uint8_t *dst, const uint8_t *const *src, const size_t *size, int n,
                        int threads, wc_err *err)
{
    gather g = {};
    size_t total = 0;
    bool stage = false;
    for (int k = 0; k < n; k++) {
        g.src[k] = src[k];
        g.size[k] = size[k];
        g.base[k] = total;
        total += size[k];
        stage = stage || (size[k] && pageable(src[k]));
    }
    g.n = n;
    if (!stage || total < kStageMin) {
        for (int k = 0; k < n; k++)
            if (size[k])
                CUDA_TRY(err, cudaMemcpyAsync(dst + g.base[k], src[k], size[k], cudaMemcpyDefault, c->stream),
                         "uploading the payload");
        return WC_OK;
    }
    WC_FORWARD_IF_ERROR(ensure_stage(c, total, err));
    g.stage = (uint8_t *)c->stage;
    const size_t piece = (total + 7) / 8, chunk = 1 << 16;
    for (size_t lo = 0; lo < total; lo += piece) { /* 8 pieces, each copied by every thread */
        g.lo = lo;
        g.hi = lo + piece < total ? lo + piece : total;
        g.per = chunk;
        wc_parallel_for(threads, (g.hi - lo + chunk - 1) / chunk, gather_piece, &g);
        CUDA_TRY(err, cudaMemcpyAsync(dst + lo, g.stage + lo, g.hi - lo, cudaMemcpyHostToDevice, c->stream),
                 "uploading the payload");
    }
    return WC_OK;
}

/* c->px's samples into out (and, for pageable memory, synchronizes). */
wc_status download_samples(cuda_ctx *c, const wc_stage_plan *p, wc_image *out, wc_err *err)
{
    const size_t row = host_row_bytes(p), stride = out->stride ? out->stride : row;
    const size_t dpitch = device_row_bytes(p);
    if (p->device_memory || row * p->height < kStageMin || !pageable(out->pixels)) {
        CUDA_TRY(err, cudaMemcpy2DAsync(out->pixels, stride, c->px, dpitch, row, p->height,
                                        cudaMemcpyDefault, c->stream),
                 "downloading the samples");
        return WC_OK;
    }
    WC_FORWARD_IF_ERROR(ensure_stage(c, row * p->height, err));
    const size_t per = (p->height + 7) / 8;
    int k = 0;
    for (size_t y = 0; y < p->height; y += per, k++) {
        const size_t n = p->height - y < per ? p->height - y : per;
        CUDA_TRY(err, cudaMemcpy2DAsync((uint8_t *)c->stage + y * row, row, (uint8_t *)c->px + y * dpitch, dpitch,
                                        row, n, cudaMemcpyDeviceToHost, c->stream),
                 "downloading the samples");
        CUDA_TRY(err, cudaEventRecord(c->piece[k], c->stream), "downloading the samples");
    }
    row_copy j = {(const uint8_t *)c->stage, (uint8_t *)out->pixels, row, stride, row, 0};
    k = 0;
    for (size_t y = 0; y < p->height; y += per, k++) {
        CUDA_TRY(err, cudaEventSynchronize(c->piece[k]), "downloading the samples");
        j.y0 = y;
        wc_parallel_for(p->threads, p->height - y < per ? p->height - y : per, copy_row, &j);
    }
    return WC_OK;
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
    WC_FORWARD_IF_ERROR(begin_call(c, p, err));
    WC_FORWARD_IF_ERROR(ensure_buffers(c, p, 0, err));

    const size_t n = coef_elems(p);
    WC_FORWARD_IF_ERROR(upload_samples(c, p, in, err));
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

/* From the coefficient planes on the device (block layout) to the samples
 * in out->pixels: dequantize, inverse transforms, colour, download. */
wc_status device_inverse(cuda_ctx *c, const wc_stage_plan *p, wc_image *out, wc_err *err)
{
    const size_t n = (size_t)p->width * p->height;
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
    WC_FORWARD_IF_ERROR(download_samples(c, p, out, err));
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
    WC_FORWARD_IF_ERROR(begin_call(c, p, err));
    WC_FORWARD_IF_ERROR(ensure_buffers(c, p, 1, err));

    const size_t slot = coef_elems(p);
    for (uint32_t k = 0; k < p->components; k++)
        CUDA_TRY(err, cudaMemcpyAsync((char *)c->coef + k * slot * 4, in->q[k],
                                      (size_t)in->width[k] * in->height[k] * 4,
                                      cudaMemcpyHostToDevice, c->stream),
                 "uploading the coefficients");
    WC_FORWARD_IF_ERROR(device_inverse(c, p, out, err));
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "inverse transform");
    return WC_OK;
}

/* ---- the whole chain on the device ----------------------------------------- */

static_assert(sizeof(wcg_huf) == sizeof(huf_enc), "wcg_huf mirrors huf_enc");
static_assert(WCG_NCLASS == WC_NCLASS && WCG_NTAB == BC_NTAB && WCG_NSYM == BC_NSYM,
              "the device coder's table shape is block_coder.h's");

/* Run mode's threshold, entropy_stage.c's run_max_of. */
uint32_t run_max_of(const wcx_header *h) { return (h->flags & 1) ? 1 : 3; }

/* The code blocks as the kernels read them, their slots bc_bound apart;
 * returns the slots' total size. */
size_t describe_blocks(const wc_layout *lay, wcg_cblk *d)
{
    size_t slot = 0;
    for (size_t i = 0; i < lay->nblocks; i++) {
        const wc_cblk *k = &lay->blocks[i];
        const wc_band_info *bi = &lay->band[k->comp][k->band];
        const size_t cap = (bc_bound(k->w, k->h) + 3) & ~(size_t)3;
        d[i].base = (unsigned long long)k->y0 * lay->plane_w[k->comp] + k->x0;
        d[i].slot = slot;
        d[i].stride = lay->plane_w[k->comp];
        d[i].cap = (uint32_t)cap;
        d[i].w = (uint16_t)k->w;
        d[i].h = (uint16_t)k->h;
        d[i].predict = bi->predict;
        d[i].orient = bi->orient == 1 ? 1 : bi->orient == 2 ? 2 : 0;
        d[i].cls = bi->cls;
        d[i].comp = (uint8_t)k->comp;
        slot += cap;
    }
    return slot;
}

wc_status ensure_events(cuda_ctx *c, wc_err *err)
{
    for (; c->events < 8; c->events++) CUDA_TRY(err, cudaEventCreate(&c->ev[c->events]), "creating events");
    return WC_OK;
}

/* Every buffer the device coder needs for this layout. */
wc_status ensure_coder(cuda_ctx *c, const wc_stage_plan *p, const wc_layout *lay, size_t *slots,
                       wc_err *err)
{
    const size_t nb = lay->nblocks ? lay->nblocks : 1;
    int blocked = 0;
    for (uint32_t k = 0; k < p->components; k++) blocked |= is_block(p, k);
    if (blocked)
        WC_FORWARD_IF_ERROR(grow(&c->bands, &c->bands_cap, coef_elems(p) * p->components * 4, err,
                                 "allocating the band planes"));
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_blocks, &c->h_blocks_cap, nb * sizeof(wcg_cblk), err,
                                    "allocating pinned block descriptors"));
    *slots = describe_blocks(lay, (wcg_cblk *)c->h_blocks);
    const size_t hist = (size_t)p->components * WCG_HIST * sizeof(unsigned long long);
    const size_t tabs = (size_t)p->components * WC_NCLASS * BC_NTAB * sizeof(wcg_huf);
    WC_FORWARD_IF_ERROR(grow(&c->blocks, &c->blocks_cap, nb * sizeof(wcg_cblk), err, "allocating block descriptors"));
    WC_FORWARD_IF_ERROR(grow(&c->slots, &c->slots_cap, *slots + 4, err, "allocating block slots"));
    WC_FORWARD_IF_ERROR(grow(&c->payload, &c->payload_cap, *slots + 4, err, "allocating the payload"));
    WC_FORWARD_IF_ERROR(grow(&c->sizes, &c->sizes_cap, (nb + 1) * 4, err, "allocating block sizes"));
    WC_FORWARD_IF_ERROR(grow(&c->offsets, &c->offsets_cap, (nb + 1) * 8, err, "allocating block offsets"));
    WC_FORWARD_IF_ERROR(grow(&c->hist, &c->hist_cap, hist, err, "allocating histograms"));
    WC_FORWARD_IF_ERROR(grow(&c->tabs, &c->tabs_cap, tabs, err, "allocating tables"));
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_hist, &c->h_hist_cap, hist, err, "allocating pinned histograms"));
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_tabs, &c->h_tabs_cap, tabs, err, "allocating pinned tables"));
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_sizes, &c->h_sizes_cap, (nb + 1) * 4 + 8, err,
                                    "allocating pinned sizes"));
    WC_FORWARD_IF_ERROR(ensure_events(c, err));
    return WC_OK;
}

double elapsed_s(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms * 1e-3 : 0.0;
}

/* Forward transform and quantization of every component into the planes
 * the coder reads (band layout). */
wc_status device_forward(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in,
                         wcg_bc_job *job, wc_err *err)
{
    const size_t n = coef_elems(p);
    WC_FORWARD_IF_ERROR(upload_samples(c, p, in, err));
    for (uint32_t k = 0; k < p->components; k++) {
        CUDA_TRY(err, forward_component(c, p, k), "forward transform");
        int32_t *plane = (int32_t *)((char *)c->coef + k * n * 4);
        if (is_block(p, k)) {
            int32_t *bands = (int32_t *)((char *)c->bands + k * n * 4);
            CUDA_TRY(err, wcg_blocks_to_bands(plane, bands, ceil8(p->width), ceil8(p->height), c->stream),
                     "regrouping into bands");
            plane = bands;
        }
        job->plane[k] = plane;
    }
    return WC_OK;
}

/* Counts on the device, tables on the host (the one algorithm), tables up. */
wc_status device_tables(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job, int threads, es_output *out,
                        wc_err *err)
{
    const wcx_header *h = ch->header;
    const size_t hist = (size_t)h->components * WCG_HIST * sizeof(unsigned long long);
    CUDA_TRY(err, cudaMemsetAsync(c->hist, 0, hist, c->stream), "clearing histograms");
    CUDA_TRY(err, cudaEventRecord(c->ev[2], c->stream), "timing");
    CUDA_TRY(err, wcg_bc_count(job, (unsigned long long *)c->hist, c->stream), "counting symbols");
    CUDA_TRY(err, cudaEventRecord(c->ev[3], c->stream), "timing");
    CUDA_TRY(err, cudaMemcpyAsync(c->h_hist, c->hist, hist, cudaMemcpyDeviceToHost, c->stream),
             "downloading histograms");
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "counting symbols");
    huf_enc(*enc)[WC_NCLASS][BC_NTAB] = (huf_enc(*)[WC_NCLASS][BC_NTAB])c->h_tabs;
    WC_FORWARD_IF_ERROR(es_build_tables(h, (const uint64_t *)c->h_hist, threads, enc, out, err));
    CUDA_TRY(err, cudaMemcpyAsync(c->tabs, c->h_tabs, (size_t)h->components * WC_NCLASS * BC_NTAB * sizeof(wcg_huf),
                                  cudaMemcpyHostToDevice, c->stream),
             "uploading tables");
    return WC_OK;
}

/* Codes every block, packs the payload and brings it and the sizes back. */
wc_status device_code(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job, es_output *out,
                      wc_err *err)
{
    const wc_layout *lay = ch->layout;
    const size_t nb = lay->nblocks;
    CUDA_TRY(err, cudaMemsetAsync((uint32_t *)c->sizes + nb, 0, 4, c->stream), "clearing a flag");
    CUDA_TRY(err, cudaEventRecord(c->ev[4], c->stream), "timing");
    CUDA_TRY(err, wcg_bc_emit(job, (const wcg_huf *)c->tabs, (uint8_t *)c->slots, (uint32_t *)c->sizes,
                              c->stream),
             "coding blocks");
    CUDA_TRY(err, cudaEventRecord(c->ev[5], c->stream), "timing");
    CUDA_TRY(err, wcg_bc_pack(job, (const uint8_t *)c->slots, (const uint32_t *)c->sizes,
                              (unsigned long long *)c->offsets, (uint8_t *)c->payload, c->stream),
             "packing the payload");
    uint32_t *hs = (uint32_t *)c->h_sizes;
    CUDA_TRY(err, cudaEventRecord(c->ev[6], c->stream), "timing");
    CUDA_TRY(err, cudaMemcpyAsync(hs, c->sizes, (nb + 1) * 4, cudaMemcpyDeviceToHost, c->stream),
             "downloading block sizes");
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "coding blocks");
    WC_RETURN_IF(hs[nb] != 0, err, WC_ERR_BACKEND, "CUDA backend: a code block overflowed its slot");
    out->block_size = (uint32_t *)wc_malloc_array(nb ? nb : 1, sizeof(uint32_t));
    WC_RETURN_IF(!out->block_size, err, WC_ERR_NOMEM, "out of memory (block sizes)");
    memcpy(out->block_size, hs, nb * 4);
    size_t total = 0, size[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < lay->components; k++) {
        const size_t end = k + 1 < lay->components ? lay->first_block[k + 1] : nb;
        for (size_t i = lay->first_block[k]; i < end; i++) size[k] += hs[i];
        WC_RETURN_IF(size[k] > WCX_MAX_CHUNK_SIZE, err, WC_ERR_LIMIT,
                     "component %u: %zu bytes of data exceed one chunk's limit", k, size[k]);
        total += size[k];
    }
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_payload, &c->h_payload_cap, total ? total : 1, err,
                                    "allocating the pinned payload"));
    if (total)
        CUDA_TRY(err, cudaMemcpyAsync(c->h_payload, c->payload, total, cudaMemcpyDeviceToHost, c->stream),
                 "downloading the payload");
    CUDA_TRY(err, cudaEventRecord(c->ev[7], c->stream), "timing");
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "downloading the payload");
    /* The container is written from the pinned buffer itself: one copy of
     * the payload less. */
    uint8_t *src = (uint8_t *)c->h_payload;
    out->data_borrowed = 1;
    for (uint32_t k = 0; k < lay->components; k++) {
        out->data[k] = src;
        out->data_size[k] = size[k];
        src += size[k];
    }
    return WC_OK;
}

wc_status encode_on_device(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_chain *ch,
                           es_output *out, wc_err *err)
{
    const wc_layout *lay = ch->layout;
    WC_RETURN_IF(lay->nblocks > 0xFFFFFFFFu, err, WC_ERR_LIMIT, "CUDA backend: too many code blocks");
    WC_FORWARD_IF_ERROR(begin_call(c, p, err));
    WC_FORWARD_IF_ERROR(ensure_buffers(c, p, 0, err));
    size_t slots = 0;
    WC_FORWARD_IF_ERROR(ensure_coder(c, p, lay, &slots, err));
    wcg_bc_job job = {};
    job.blocks = (const wcg_cblk *)c->blocks;
    job.nblocks = (uint32_t)lay->nblocks;
    job.components = p->components;
    job.run_max = run_max_of(ch->header);
    for (uint32_t k = 0; k < p->components; k++) {
        const size_t end = k + 1 < lay->components ? lay->first_block[k + 1] : lay->nblocks;
        job.first[k] = (uint32_t)lay->first_block[k];
        job.count[k] = (uint32_t)(end - lay->first_block[k]);
    }
    CUDA_TRY(err, cudaEventRecord(c->ev[0], c->stream), "timing");
    WC_FORWARD_IF_ERROR(device_forward(c, p, in, &job, err));
    CUDA_TRY(err, cudaEventRecord(c->ev[1], c->stream), "timing");
    CUDA_TRY(err, cudaEventSynchronize(c->ev[1]), "forward transform");
    const double t_entropy = now_s();
    CUDA_TRY(err, cudaMemcpyAsync(c->blocks, c->h_blocks, lay->nblocks * sizeof(wcg_cblk),
                                  cudaMemcpyHostToDevice, c->stream),
             "uploading block descriptors");
    WC_FORWARD_IF_ERROR(device_tables(c, ch, &job, p->threads, out, err));
    WC_FORWARD_IF_ERROR(device_code(c, ch, &job, out, err));
    ch->t_transform = elapsed_s(c->ev[0], c->ev[1]);
    ch->t_entropy = now_s() - t_entropy;
    if (getenv("WC_CUDA_TIMES"))
        fprintf(stderr,
                "cuda encode ms: upload+transform %.3f | count %.3f | tables (host, sync to sync) %.3f | "
                "emit %.3f | pack %.3f | sizes+payload down %.3f | entropy wall %.3f\n",
                1e3 * elapsed_s(c->ev[0], c->ev[1]), 1e3 * elapsed_s(c->ev[2], c->ev[3]),
                1e3 * elapsed_s(c->ev[3], c->ev[4]), 1e3 * elapsed_s(c->ev[4], c->ev[5]),
                1e3 * elapsed_s(c->ev[5], c->ev[6]), 1e3 * elapsed_s(c->ev[6], c->ev[7]),
                1e3 * ch->t_entropy);
    ch->where = "device";
    return WC_OK;
}

wc_status cuda_encode(void *self, const wc_stage_plan *p, const wc_image *in, wc_chain *ch,
                      es_output *out, wc_err *err)
{
    cuda_ctx *c = (cuda_ctx *)self;
    WC_RETURN_IF(!c || !p || !in || !ch || !out || !in->pixels, err, WC_ERR_ARG,
                 "CUDA backend: NULL argument");
    /* Deflate mode codes on the host, from the device's coefficients. */
    if (ch->header->entropy != 0) return wc_chain_encode_host(wc_backend_cuda(), self, p, in, ch, out, err);
    WC_RETURN_IF(in->width != p->width || in->height != p->height ||
                     in->components != p->components || in->bit_depth != p->bit_depth || !p->quantize,
                 err, WC_ERR_ARG, "CUDA backend: image and plan disagree");
    WC_FORWARD_IF_ERROR(check_plan(p, NULL, err));
    memset(out, 0, sizeof *out);
    const wc_status s = encode_on_device(c, p, in, ch, out, err);
    if (s != WC_OK) {
        es_output_free(out);
        /* Leave the stream usable for the next call. */
        cudaStreamSynchronize(c->stream);
    }
    return s;
}

/* ---- decoding on the device ------------------------------------------------- */

/* The CPU decoder's message for a block's failure. */
wc_status decode_failure(const wc_chain *ch, size_t i, const uint32_t *st, wc_err *err)
{
    const wc_layout *lay = ch->layout;
    const wc_cblk *k = &lay->blocks[i];
    char name[16];
    es_band_name(ch->header, lay, k->comp, k->band, name);
    size_t nth = 0; /* block number within its band */
    for (size_t q = i; q > lay->first_block[k->comp] && lay->blocks[q - 1].band == k->band; q--) nth++;
    char what[96];
    wc_status s = WC_ERR_CORRUPT;
    switch (st[0]) {
    case WCG_DEC_NO_TABLE: snprintf(what, sizeof what, "row %u col %u: context %u has no table", st[1], st[2], st[3]); break;
    case WCG_DEC_RANGE: snprintf(what, sizeof what, "row %u col %u: magnitude %u out of the int32 range", st[1], st[2], st[3]); break;
    case WCG_DEC_TERM_RANGE: snprintf(what, sizeof what, "row %u col %u: magnitude %llu out of the int32 range", st[1], st[2], (unsigned long long)st[3] + 1); break;
    case WCG_DEC_NO_RUN_TABLE: snprintf(what, sizeof what, "row %u col %u: no run table", st[1], st[2]); break;
    case WCG_DEC_LONG_RUN: snprintf(what, sizeof what, "row %u col %u: run of %u past end of block", st[1], st[2], st[3]); break;
    case WCG_DEC_NO_TERM_TABLE: snprintf(what, sizeof what, "row %u col %u: no run-end table", st[1], st[2]); break;
    case WCG_DEC_TRUNCATED: snprintf(what, sizeof what, "block data ends early"); s = WC_ERR_TRUNCATED; break;
    default: snprintf(what, sizeof what, "%u unused bytes at the end of the block", st[3]); break;
    }
    return wc_fail(err, s, "component %u, subband %s, block %zu: %s", k->comp, name, nth, what);
}

/* Entropy decoding on the device into the coefficient planes (block
 * layout for DCT/LOT, as the inverse kernels read them). */
wc_status decode_on_device(cuda_ctx *c, const wc_stage_plan *p, wc_chain *ch, const es_input *in,
                           wc_err *err)
{
    const wcx_header *h = ch->header;
    const wc_layout *lay = ch->layout;
    const size_t nb = lay->nblocks ? lay->nblocks : 1;
    WC_RETURN_IF(lay->nblocks > 0xFFFFFFFFu, err, WC_ERR_LIMIT, "CUDA backend: too many code blocks");
    /* Tables and offsets on the host: they are small, and validating them
     * here gives the CPU decoder's messages. */
    const size_t ntab = (size_t)h->components * WC_NCLASS;
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_tabs, &c->h_tabs_cap, ntab * sizeof(bc_dectab), err,
                                    "allocating pinned tables"));
    memset(c->h_tabs, 0, ntab * sizeof(bc_dectab));
    WC_FORWARD_IF_ERROR(es_read_tables(h, in, (bc_dectab *)c->h_tabs, err));
    size_t *off = (size_t *)wc_malloc_array(nb, sizeof(size_t));
    WC_RETURN_IF(!off, err, WC_ERR_NOMEM, "out of memory (block offsets)");
    wc_status s = es_block_offsets(lay, in, off, err);
    size_t total = 0, base[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < h->components; k++) {
        base[k] = total;
        total += in->data_size[k];
    }
    if (s == WC_OK)
        s = grow_pinned(&c->h_blocks, &c->h_blocks_cap, nb * sizeof(wcg_cblk), err,
                        "allocating pinned block descriptors");
    if (s == WC_OK) {
        wcg_cblk *d = (wcg_cblk *)c->h_blocks;
        describe_blocks(lay, d);
        for (size_t i = 0; i < lay->nblocks; i++) {
            d[i].slot = base[lay->blocks[i].comp] + off[i];
            d[i].cap = in->block_size[i];
        }
    }
    wc_free(off);
    WC_FORWARD_IF_ERROR(s);
    int blocked = 0;
    for (uint32_t k = 0; k < p->components; k++) blocked |= is_block(p, k);
    if (blocked)
        WC_FORWARD_IF_ERROR(grow(&c->bands, &c->bands_cap, coef_elems(p) * p->components * 4, err,
                                 "allocating the band planes"));
    WC_FORWARD_IF_ERROR(grow(&c->payload, &c->payload_cap, total + 8, err, "allocating the payload"));
    WC_FORWARD_IF_ERROR(grow(&c->tabs, &c->tabs_cap, ntab * sizeof(bc_dectab), err, "allocating tables"));
    WC_FORWARD_IF_ERROR(grow(&c->blocks, &c->blocks_cap, nb * sizeof(wcg_cblk), err, "allocating block descriptors"));
    WC_FORWARD_IF_ERROR(grow(&c->sizes, &c->sizes_cap, nb * 16, err, "allocating block status"));
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_sizes, &c->h_sizes_cap, nb * 16, err, "allocating pinned status"));
    WC_FORWARD_IF_ERROR(ensure_events(c, err));
    CUDA_TRY(err, cudaEventRecord(c->ev[0], c->stream), "timing");
    WC_FORWARD_IF_ERROR(upload_gather(c, (uint8_t *)c->payload, in->data, in->data_size, (int)h->components,
                                      p->threads, err));
    CUDA_TRY(err, cudaMemcpyAsync(c->tabs, c->h_tabs, ntab * sizeof(bc_dectab), cudaMemcpyHostToDevice, c->stream),
             "uploading tables");
    CUDA_TRY(err, cudaMemcpyAsync(c->blocks, c->h_blocks, lay->nblocks * sizeof(wcg_cblk),
                                  cudaMemcpyHostToDevice, c->stream),
             "uploading block descriptors");
    CUDA_TRY(err, cudaMemsetAsync(c->sizes, 0, lay->nblocks * 16, c->stream), "clearing block status");
    wcg_dec_job job = {};
    job.blocks = (const wcg_cblk *)c->blocks;
    job.nblocks = (uint32_t)lay->nblocks;
    job.data = (const uint8_t *)c->payload;
    job.tabs = c->tabs;
    job.run_max = run_max_of(h);
    job.status = (uint32_t *)c->sizes;
    const size_t n = coef_elems(p);
    for (uint32_t k = 0; k < p->components; k++)
        job.plane[k] = (int32_t *)((char *)(is_block(p, k) ? c->bands : c->coef) + k * n * 4);
    CUDA_TRY(err, cudaEventRecord(c->ev[1], c->stream), "timing");
    CUDA_TRY(err, wcg_bc_decode(&job, c->stream), "decoding blocks");
    CUDA_TRY(err, cudaEventRecord(c->ev[2], c->stream), "timing");
    CUDA_TRY(err, cudaMemcpyAsync(c->h_sizes, c->sizes, lay->nblocks * 16, cudaMemcpyDeviceToHost, c->stream),
             "downloading block status");
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "decoding blocks");
    const uint32_t *st = (const uint32_t *)c->h_sizes;
    for (size_t i = 0; i < lay->nblocks; i++) /* the first failing block, as the CPU names it */
        if (st[4 * i]) return decode_failure(ch, i, st + 4 * i, err);
    for (uint32_t k = 0; k < p->components; k++)
        if (is_block(p, k))
            CUDA_TRY(err, wcg_bands_to_blocks(job.plane[k], (int32_t *)((char *)c->coef + k * n * 4),
                                              ceil8(p->width), ceil8(p->height), c->stream),
                     "regrouping into blocks");
    return WC_OK;
}

wc_status cuda_decode(void *self, const wc_stage_plan *p, wc_chain *ch, const es_input *in,
                      wc_image *out, wc_err *err)
{
    cuda_ctx *c = (cuda_ctx *)self;
    WC_RETURN_IF(!c || !p || !ch || !in || !out || !out->pixels, err, WC_ERR_ARG,
                 "CUDA backend: NULL argument");
    /* Deflate mode decodes on the host, then inverts on the device. */
    if (ch->header->entropy != 0) return wc_chain_decode_host(wc_backend_cuda(), self, p, ch, in, out, err);
    WC_RETURN_IF(out->width != p->width || out->height != p->height ||
                     out->components != p->components || out->bit_depth != p->bit_depth,
                 err, WC_ERR_ARG, "CUDA backend: image and plan disagree");
    WC_FORWARD_IF_ERROR(check_plan(p, NULL, err));
    WC_FORWARD_IF_ERROR(begin_call(c, p, err));
    WC_FORWARD_IF_ERROR(ensure_buffers(c, p, 1, err));
    const double t0 = now_s();
    wc_status s = decode_on_device(c, p, ch, in, err);
    ch->t_entropy = now_s() - t0;
    ch->where = "device";
    const double t1 = now_s();
    if (s == WC_OK) s = device_inverse(c, p, out, err);
    if (s == WC_OK) CUDA_TRY(err, cudaEventRecord(c->ev[3], c->stream), "timing");
    if (s == WC_OK) CUDA_TRY(err, cudaStreamSynchronize(c->stream), "inverse transform");
    ch->t_transform = now_s() - t1;
    if (s == WC_OK && getenv("WC_CUDA_TIMES"))
        fprintf(stderr, "cuda decode ms: upload payload+tables %.3f | decode blocks %.3f | "
                        "inverse+download %.3f | entropy wall %.3f | transform wall %.3f\n",
                1e3 * elapsed_s(c->ev[0], c->ev[1]), 1e3 * elapsed_s(c->ev[1], c->ev[2]),
                1e3 * elapsed_s(c->ev[2], c->ev[3]), 1e3 * ch->t_entropy, 1e3 * ch->t_transform);
    if (s != WC_OK) cudaStreamSynchronize(c->stream);
    return s;
}

const wc_backend_ops cuda_ops = {"cuda", cuda_create, cuda_destroy, cuda_forward, cuda_inverse,
                                 cuda_encode, cuda_decode};

} /* namespace */

const wc_backend_ops *wc_backend_cuda(void) { return &cuda_ops; }
