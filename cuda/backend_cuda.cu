/*
 * backend_cuda.cu -- the CUDA backend behind common/backend.h: a plain C
 * table of functions over an opaque context that owns a stream, the device
 * buffers and pinned staging buffers, so a second image pays no set-up
 * (buffers grow only when an image needs more).
 *
 * encode (the whole chain, chain_cuda.cu): the interleaved 8/16-bit
 * samples go up once (pageable ones staged through pinned memory,
 * upload_samples, here); level
 * shift, colour, every DWT level and quantization run in the kernels of
 * dwt_cuda.h, DCT and LOT components in those of blk8_cuda.h (then
 * regrouped into bands); the block coder of entropy_cuda.h counts symbols,
 * tables_cuda.h builds the tables (es_build_tables' algorithm, on the
 * device), the coder emits and packs
 * the blocks, and only the coded bytes and their sizes come back. decode
 * is the reverse: coded bytes up once, blocks decoded on the device,
 * inverse kernels, samples down once (a large image's in row strips
 * that overlap the copies with level 1 of the DWT: "strips across PCIe"
 * below). Deflate mode codes on the host from
 * (to) the device's coefficients (chain_host.c).
 *
 * forward / inverse (the stages alone, for rate control): samples up and
 * coefficient planes down, or planes up and samples down.
 *
 * Every CUDA failure (device out of memory included) becomes
 * WC_ERR_BACKEND with CUDA's message.
 */
extern "C" {
#include "parallel.h"
#include "stream_copy.h"
}

#include "blk8_cuda.h"
#include "colour_transform.h"
#include "cuda_ctx.h"
#include "dwt_cuda.h"
#include "encode_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

namespace wcgb
{

wc_status cuda_fail(wc_err *err, cudaError_t e, const char *what)
{
    /* Reported now: a failed allocation (out of memory) must not stay the
     * runtime's last error, which the next call's first kernel launch
     * would report as its own. (Errors of a broken context stay anyway.) */
    (void)cudaGetLastError();
    return wc_fail(err, WC_ERR_BACKEND, "CUDA %s: %s", what, cudaGetErrorString(e));
}

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
    if (c->clocks && c->clk_n) {
        const double n = (double)c->clk_n;
        fprintf(stderr,
                "cuda encode clocks (WC_CUDA_CLOCKS), %llu encodes, us each: start to the first "
                "wait %.1f | first wait %.1f | payload, tables, second wait %.1f | whole %.1f; "
                "graphs made %d%s\n",
                c->clk_n, 1e6 * c->clk_sum[0] / n, 1e6 * c->clk_sum[1] / n, 1e6 * c->clk_sum[2] / n,
                1e6 * c->clk_sum[3] / n, c->graphs_made,
                c->graphs_off ? " (then off: a capture failed)" : "");
    }
    graph_cache_free(c);
    cudaFree(c->px);
    cudaFree(c->coef);
    cudaFree(c->work);
    cudaFree(c->planes);
    void *dev[] = {c->bands, c->blocks, c->slots, c->payload, c->sizes,     c->offsets,
                   c->hist,  c->tabs,   c->lens,  c->ac_work, c->block_hist};
    for (void *p : dev) cudaFree(p);
    void *host[] = {c->h_blocks,  c->h_lens, c->h_tabs,    c->h_sizes,
                    c->h_payload, c->stage,  c->h_dec_work};
    for (int i = 0; i < c->pieces; i++) cudaEventDestroy(c->piece[i]);
    for (int i = 0; i < c->payload_events; i++) cudaEventDestroy(c->payload_ev[i]);
    for (void *p : host) cudaFreeHost(p);
    for (int i = 0; i < c->events; i++) cudaEventDestroy(c->ev[i]);
    for (int i = 0; i < c->strip_evs; i++) cudaEventDestroy(c->strip_ev[i]);
    if (c->side) cudaStreamDestroy(c->side);
    if (c->tail) cudaStreamDestroy(c->tail);
    cudaFree(c->done);
    cudaEventDestroy(c->user);
    cudaStreamDestroy(c->stream);
    wc_free(c);
}

/* The context's device current, and c->stream behind the work the
 * caller queued on its own stream so far (the samples a kernel of theirs
 * made). */
static wc_status behind_caller(cuda_ctx *c, const wc_stage_plan *p, wc_err *err)
{
    CUDA_TRY(err, cudaSetDevice(c->device), "selecting the device");
    if (p->stream) {
        CUDA_TRY(err, cudaEventRecord(c->user, (cudaStream_t)p->stream),
                 "waiting for the caller's stream");
        CUDA_TRY(err, cudaStreamWaitEvent(c->stream, c->user, 0),
                 "waiting for the caller's stream");
    }
    return WC_OK;
}

/* A call's start: what the last call left is forgotten, then
 * behind_caller. */
wc_status begin_call(cuda_ctx *c, const wc_stage_plan *p, wc_err *err)
{
    c->px_src = NULL; /* a call may change px: an encode says again what it holds */
    c->sized = 0;     /* and the coder's buffers */
    c->emitted = 0;
    c->desc_lay = NULL;
    c->trace = getenv("WC_CUDA_TIMES") != NULL;
    c->clocks = getenv("WC_CUDA_CLOCKS") != NULL;
    return behind_caller(c, p, err);
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
    /* co NULL: the whole-chain encode, which owns its planes. */
    WC_RETURN_IF(co && co->components != p->components, err, WC_ERR_ARG,
                 "CUDA backend: %u coefficient planes for %u components", co->components,
                 p->components);
    for (uint32_t c = 0; c < p->components; c++) {
        WC_RETURN_IF(p->transform[c] != WC_TRANSFORM_DWT && p->transform[c] != WC_TRANSFORM_DCT &&
                         p->transform[c] != WC_TRANSFORM_LOT,
                     err, WC_ERR_ARG, "CUDA backend: transform %d", p->transform[c]);
        WC_RETURN_IF(!is_block(p, c) && p->wavelet[c] != 53 && p->wavelet[c] != 97 &&
                         p->wavelet[c] != 153 && p->wavelet[c] != 197 && p->wavelet[c] != 203 &&
                         p->wavelet[c] != 207,
                     err, WC_ERR_ARG, "CUDA backend: wavelet %d", p->wavelet[c]);
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

wcg_samples samples_at(void *px, const wc_stage_plan *p)
{
    wcg_samples s = {};
    s.px = px;
    s.pitch = device_row_bytes(p) / sample_bytes(p);
    s.comps = p->components;
    s.bytes = (uint32_t)sample_bytes(p);
    s.colour = colour_active(p) ? p->colour : WC_COLOUR_NONE;
    s.shift = level_shift(p->bit_depth);
    s.maxval = (int32_t)((1u << p->bit_depth) - 1);
    return s;
}

wcg_samples device_samples(const cuda_ctx *c, const wc_stage_plan *p)
{
    return samples_at(c->px, p);
}

/* ---- samples across PCIe --------------------------------------------------- */

/* Pageable memory crosses PCIe at about a fifth of pinned memory's rate
 * (the driver stages it one thread at a time): measured 8.6 GB/s against
 * 50 on the H100's host. Pageable images therefore go through the
 * context's pinned buffer in pieces of a MiB (up to 8), every host thread
 * copying one piece while the DMA engine moves the one before. Pinned,
 * registered and device memory go directly. Small images are staged too:
 * in a batch many threads move them at once, and the driver's own staging
 * of pageable copies held a Kodak batch's decode to 327 images/s against
 * 610 staged here (PERF_NOTES b3); below 64 KB the copy call dominates. */
constexpr size_t kStageMin = (size_t)64 << 10;

/* kStageMin, or WC_CUDA_STAGE_MIN (bytes) for experiments. */
size_t stage_min()
{
    static const size_t v = [] {
        const char *e = getenv("WC_CUDA_STAGE_MIN");
        return e && *e ? (size_t)strtoull(e, NULL, 10) : kStageMin;
    }();
    return v;
}

/* Pieces of a staged copy: one a MiB, 1 to 8 (each piece is a copy call
 * and, down, an event: a small image in one). */
size_t stage_pieces(size_t bytes)
{
    const size_t n = bytes >> 20;
    return n < 1 ? 1 : n > 8 ? 8 : n;
}

bool pageable(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* older runtimes: unknown pointers fail */
        return true;
    }
    return a.type == cudaMemoryTypeUnregistered;
}

void copy_row(void *arg, size_t i, int worker)
{
    (void)worker;
    const row_copy *j = (const row_copy *)arg;
    memcpy(j->dst + (j->y0 + i) * j->dstride, j->src + (j->y0 + i) * j->sstride, j->row);
}

void stage_row(void *arg, size_t i, int worker)
{
    (void)worker;
    const row_copy *j = (const row_copy *)arg;
    wc_stream_copy(j->dst + (j->y0 + i) * j->dstride, j->src + (j->y0 + i) * j->sstride, j->row);
}

wc_status ensure_stage(cuda_ctx *c, size_t bytes, wc_err *err)
{
    /* Nothing may still be copying out of the buffer it replaces. */
    if (bytes > c->stage_cap) CUDA_TRY(err, cudaStreamSynchronize(c->stream), "staging");
    WC_FORWARD_IF_ERROR(
        grow_pinned(&c->stage, &c->stage_cap, bytes, err, "allocating the pinned stage"));
    for (; c->pieces < 8; c->pieces++)
        CUDA_TRY(err, cudaEventCreateWithFlags(&c->piece[c->pieces], cudaEventDisableTiming),
                 "creating events");
    return WC_OK;
}

bool staged_upload(const wc_stage_plan *p, const void *pixels)
{
    return !p->device_memory && host_row_bytes(p) * p->height >= stage_min() &&
           (!pixels || pageable(pixels));
}

/* The samples of `in` into c->px (rows device_row_bytes apart). */
wc_status upload_samples(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_err *err)
{
    const size_t row = host_row_bytes(p), stride = in->stride ? in->stride : row;
    const size_t dpitch = device_row_bytes(p);
    if (!staged_upload(p, in->pixels)) {
        CUDA_TRY(err,
                 cudaMemcpy2DAsync(c->px, dpitch, in->pixels, stride, row, p->height,
                                   cudaMemcpyDefault, c->stream),
                 "uploading the samples");
        return WC_OK;
    }
    WC_FORWARD_IF_ERROR(ensure_stage(c, row * p->height, err));
    row_copy j = {(const uint8_t *)in->pixels, (uint8_t *)c->stage, stride, row, row, 0};
    const size_t np = stage_pieces(row * p->height);
    const size_t per = (p->height + np - 1) / np;
    for (size_t y = 0; y < p->height; y += per) {
        const size_t n = p->height - y < per ? p->height - y : per;
        j.y0 = y;
        wc_parallel_for(p->threads, n, stage_row, &j);
        CUDA_TRY(err,
                 cudaMemcpy2DAsync((uint8_t *)c->px + y * dpitch, dpitch,
                                   (uint8_t *)c->stage + y * row, row, row, n,
                                   cudaMemcpyHostToDevice, c->stream),
                 "uploading the samples");
    }
    return WC_OK;
}

/* Bytes gathered from up to four host pieces (the components' payloads in
 * the file) into dst on the device; pageable ones staged through the
 * pinned buffer in a parallel loop a piece, whose workers each copy a
 * chunk and start its transfer (a loop a piece lets the decode of one
 * piece overlap the staging of the next: PERF_NOTES t2). The first loop's
 * first items are the caller's host work (`side`), beside the copies. */
struct gather {
    cuda_ctx *c;
    const uint8_t *src[4];
    size_t size[4], base[4];
    int n;
    uint8_t *stage, *dst;
    size_t total, chunk;
    const gather_side *side;
    size_t first;       /* chunk index of the first item's chunk */
    cudaError_t failed; /* a worker's failed transfer (any one) */
};

/* A worker's piece of a staged payload: 2 MiB (PERF_NOTES t3: the 41 MB
 * lossless payload decoded 0.1-0.4 ms sooner than in 512 KiB pieces, its
 * copy calls fewer); WC_CUDA_GATHER_CHUNK (bytes) for experiments. */
const size_t kGatherChunk = 2 << 20;

void gather_item(void *arg, size_t i, int worker)
{
    gather *g = (gather *)arg;
    if (g->side && i < g->side->n) {
        g->side->fn(g->side->arg, i, worker);
        return;
    }
    i -= g->side ? g->side->n : 0;
    i += g->first;
    const size_t a = i * g->chunk, b = a + g->chunk < g->total ? a + g->chunk : g->total;
    for (int k = 0; k < g->n; k++) { /* the parts of [a, b) in piece k */
        const size_t s = g->base[k] > a ? g->base[k] : a;
        const size_t e = g->base[k] + g->size[k] < b ? g->base[k] + g->size[k] : b;
        if (s < e) wc_stream_copy(g->stage + s, g->src[k] + (s - g->base[k]), e - s);
    }
    /* A new thread's current device is device 0. */
    cudaError_t e = cudaSetDevice(g->c->device);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(g->dst + a, g->stage + a, b - a, cudaMemcpyHostToDevice, g->c->side);
    if (e != cudaSuccess) __atomic_store_n(&g->failed, e, __ATOMIC_RELAXED);
}

/* Piece k's chunks (the chunks that hold its bytes; a chunk shared with
 * piece k + 1 goes up with k) staged on all threads and sent on c->side,
 * or one copy where no staging is wanted; then an event on c->side that
 * c->stream waits for, then ready's fn. Where ready is not by_piece, the
 * staged chunks of every piece go up in one loop instead. */
wc_status upload_gather(cuda_ctx *c, uint8_t *dst, const uint8_t *const *src, const size_t *size,
                        int n, int threads, const gather_side *side, const gather_ready *ready,
                        wc_err *err)
{
    gather g = {};
    g.c = c;
    g.dst = dst;
    g.failed = cudaSuccess;
    bool stage = false;
    for (int k = 0; k < n; k++) {
        g.src[k] = src[k];
        g.size[k] = size[k];
        g.base[k] = g.total;
        g.total += size[k];
        stage = stage || (size[k] && pageable(src[k]));
    }
    g.n = n;
    stage = stage && g.total >= stage_min();
    if (stage) {
        WC_FORWARD_IF_ERROR(ensure_stage(c, g.total, err));
        g.stage = (uint8_t *)c->stage;
        const char *e = getenv("WC_CUDA_GATHER_CHUNK"); /* experiments: bytes */
        g.chunk =
            e && *e && strtoull(e, NULL, 10) >= 4096 ? (size_t)strtoull(e, NULL, 10) : kGatherChunk;
    }
    WC_FORWARD_IF_ERROR(ensure_strips(c, err));
    /* the stage is c->stream's until now (an earlier call's copies) */
    CUDA_TRY(err, cudaEventRecord(c->strip_ev[16], c->stream), "uploading the payload");
    CUDA_TRY(err, cudaStreamWaitEvent(c->side, c->strip_ev[16], 0), "uploading the payload");
    size_t next = 0; /* the first chunk not yet sent */
    wc_status s = WC_OK;
    if (stage && !ready->by_piece) { /* every piece in one loop */
        g.side = side && side->n ? side : NULL;
        g.first = 0;
        wc_parallel_for(threads, (g.side ? g.side->n : 0) + (g.total + g.chunk - 1) / g.chunk,
                        gather_item, &g);
        if (g.failed != cudaSuccess) s = cuda_fail(err, g.failed, "uploading the payload");
        for (int k = 0; k < g.n && s == WC_OK; k++) {
            if (k + 1 == g.n) {
                cudaError_t e = cudaEventRecord(c->strip_ev[k], c->side);
                if (e == cudaSuccess) e = cudaStreamWaitEvent(c->stream, c->strip_ev[k], 0);
                if (e != cudaSuccess) s = cuda_fail(err, e, "uploading the payload");
            }
            if (s == WC_OK) s = ready->fn(ready->arg, k, err);
        }
        if (s != WC_OK) cudaStreamSynchronize(c->side); /* nothing left reading the stage */
        return s;
    }
    for (int k = 0; k < g.n && s == WC_OK; k++) {
        const gather_side *first_side = k == 0 && side && side->n ? side : NULL;
        if (!stage) {
            if (first_side)
                wc_parallel_for(threads, first_side->n, first_side->fn, first_side->arg);
            if (g.size[k]) {
                const cudaError_t e = cudaMemcpyAsync(g.dst + g.base[k], g.src[k], g.size[k],
                                                      cudaMemcpyDefault, c->side);
                if (e != cudaSuccess) s = cuda_fail(err, e, "uploading the payload");
            }
        } else {
            const size_t end = k + 1 == g.n ? g.total : g.base[k] + g.size[k];
            const size_t last = (end + g.chunk - 1) / g.chunk;
            gather part = g;
            part.side = first_side;
            part.first = next;
            wc_parallel_for(threads,
                            (first_side ? first_side->n : 0) + (last > next ? last - next : 0),
                            gather_item, &part);
            next = last > next ? last : next;
            if (part.failed != cudaSuccess)
                s = cuda_fail(err, part.failed, "uploading the payload");
        }
        if (s != WC_OK) break;
        cudaError_t e = cudaEventRecord(c->strip_ev[k], c->side);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(c->stream, c->strip_ev[k], 0);
        s = e != cudaSuccess ? cuda_fail(err, e, "uploading the payload")
                             : ready->fn(ready->arg, k, err);
    }
    if (s != WC_OK) cudaStreamSynchronize(c->side); /* nothing left reading the stage */
    return s;
}

/* Whether samples of this plan come down straight into `pixels` (device,
 * pinned or small), not through the pinned stage. */
bool direct_download(const wc_stage_plan *p, const void *pixels)
{
    return p->device_memory || host_row_bytes(p) * p->height < stage_min() || !pageable(pixels);
}

/* c->px's samples into out (and, for pageable memory, synchronizes). */
wc_status download_samples(cuda_ctx *c, const wc_stage_plan *p, wc_image *out, wc_err *err)
{
    const size_t row = host_row_bytes(p), stride = out->stride ? out->stride : row;
    const size_t dpitch = device_row_bytes(p);
    if (direct_download(p, out->pixels)) {
        CUDA_TRY(err,
                 cudaMemcpy2DAsync(out->pixels, stride, c->px, dpitch, row, p->height,
                                   cudaMemcpyDefault, c->stream),
                 "downloading the samples");
        return WC_OK;
    }
    WC_FORWARD_IF_ERROR(ensure_stage(c, row * p->height, err));
    const size_t np = stage_pieces(row * p->height);
    const size_t per = (p->height + np - 1) / np;
    int k = 0;
    for (size_t y = 0; y < p->height; y += per, k++) {
        const size_t n = p->height - y < per ? p->height - y : per;
        CUDA_TRY(err,
                 cudaMemcpy2DAsync((uint8_t *)c->stage + y * row, row,
                                   (uint8_t *)c->px + y * dpitch, dpitch, row, n,
                                   cudaMemcpyDeviceToHost, c->stream),
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

/* ---- strips across PCIe ------------------------------------------------------
 *
 * The Ikuzawa seed's pipeline: a large image's samples go up in strips of
 * rows on a second stream (c->side), and level 1 of every component (level
 * shift, colour and, at one level, quantization fused into it) runs on
 * c->stream over the pair rows whose samples, halo included, have arrived,
 * while later strips still cross; levels 2.. follow the last strip. The
 * decode mirrors it: levels down to 2 first, then level 1 (and the inverse
 * colour transform) a strip at a time, each strip's rows going down on
 * c->side while the next one computes. The coefficients and samples are
 * the single copy's bit for bit (a level's segments never depended on
 * where they start: each warms up from its own halo rows). Each component
 * keeps its level-1 LL in its own work plane meanwhile (components + 1
 * planes instead of 2). */
constexpr size_t kStripsMin = (size_t)16 << 20; /* bytes of samples */
constexpr int kStrips = 8;

/* WC_CUDA_STRIPS_UP, WC_CUDA_STRIPS_DOWN: "0" never (the single copy),
 * "1" whenever the plan allows, any size (the tests); unset: from
 * kStripsMin bytes. Read each call, so one process can compare both. */
int strips_switch(const char *name)
{
    const char *e = getenv(name);
    return e && *e ? atoi(e) : -1;
}

/* Strips an image goes in: kStrips, or WC_CUDA_STRIPS (1 to 16). */
int strip_count()
{
    const char *e = getenv("WC_CUDA_STRIPS");
    const int n = e && *e ? atoi(e) : kStrips;
    return n < 1 ? 1 : n > 16 ? 16 : n;
}

/* Whether this plan may go in strips (by its size and the switch `name`):
 * host samples, and every component a DWT whose level kernels take a
 * strip of rows. */
bool pcie_strips_wanted(const wc_stage_plan *p, const char *name)
{
    if (p->levels < 1 || p->device_memory) return false;
    for (uint32_t k = 0; k < p->components; k++)
        if (is_block(p, k) || !wcg_strips_fit(p->wavelet[k])) return false;
    const int sw = strips_switch(name);
    return sw > 0 || (sw < 0 && host_row_bytes(p) * p->height >= kStripsMin);
}

/* Strips for these samples: not those staged through pinned memory
 * (pageable ones of 64 KB and more), whose pieces the host copies. */
bool strips_up(const wc_stage_plan *p, const void *pixels)
{
    return pcie_strips_wanted(p, "WC_CUDA_STRIPS_UP") && !staged_upload(p, pixels);
}
bool strips_down(const wc_stage_plan *p, const void *pixels)
{
    return pcie_strips_wanted(p, "WC_CUDA_STRIPS_DOWN") && direct_download(p, pixels);
}

wc_status ensure_strips(cuda_ctx *c, wc_err *err)
{
    if (!c->side)
        CUDA_TRY(err, cudaStreamCreateWithFlags(&c->side, cudaStreamNonBlocking),
                 "creating the copy stream");
    for (; c->strip_evs < 17; c->strip_evs++)
        CUDA_TRY(err, cudaEventCreateWithFlags(&c->strip_ev[c->strip_evs], cudaEventDisableTiming),
                 "creating events");
    return WC_OK;
}

/* Work planes (LL of level 1 each) a plan needs: two, or in strips one a
 * component and one shared. */
size_t work_planes(const wc_stage_plan *p, int inverse)
{
    return pcie_strips_wanted(p, inverse ? "WC_CUDA_STRIPS_DOWN" : "WC_CUDA_STRIPS_UP")
               ? p->components + 1
               : 2;
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
    WC_FORWARD_IF_ERROR(grow(&c->work, &c->work_cap, work_planes(p, inverse) * ll * 4, err,
                             "allocating the DWT work planes"));
    if (inverse && colour_active(p))
        WC_FORWARD_IF_ERROR(
            grow(&c->planes, &c->planes_cap, 3 * n * 4, err, "allocating the colour planes"));
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

/* Component k's job in strips: its own work plane for the LL of level 1
 * (work[0]), the last plane shared (work[1]). */
wcg_component_job strip_job(cuda_ctx *c, const wc_stage_plan *p, uint32_t k)
{
    const size_t ll = wcg_work_elems(p->width, p->height);
    wcg_component_job j = component_job(c, p, k);
    j.work[0] = (char *)c->work + k * ll * 4;
    j.work[1] = (char *)c->work + p->components * ll * 4;
    return j;
}

/* Rows a strip holds: even (whole pair rows), about height / strips. */
uint32_t strip_height(const wc_stage_plan *p)
{
    const int n = strip_count();
    const uint32_t per = (p->height + n - 1) / n;
    return per + (per & 1);
}

/* The samples up a strip at a time on c->side, level 1 of every component
 * on c->stream over the pair rows each arrival completes; then levels 2.. */
wc_status forward_strips(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_err *err)
{
    WC_FORWARD_IF_ERROR(ensure_strips(c, err));
    WC_FORWARD_IF_ERROR(grow(&c->work, &c->work_cap,
                             (p->components + 1) * wcg_work_elems(p->width, p->height) * 4, err,
                             "allocating the DWT work planes"));
    const size_t row = host_row_bytes(p), stride = in->stride ? in->stride : row;
    const size_t dpitch = device_row_bytes(p);
    const uint32_t h = p->height, hl = (h + 1) / 2, per = strip_height(p);
    wcg_component_job jobs[4];
    for (uint32_t k = 0; k < p->components; k++) jobs[k] = strip_job(c, p, k);
    /* The copies wait for what the stream queued before (kernels of the
     * last call still reading px). */
    CUDA_TRY(err, cudaEventRecord(c->strip_ev[16], c->stream), "uploading the samples");
    CUDA_TRY(err, cudaStreamWaitEvent(c->side, c->strip_ev[16], 0), "uploading the samples");
    uint32_t done = 0; /* pair rows of level 1 queued */
    int s = 0;
    for (uint32_t y = 0; y < h; y += per, s++) {
        const uint32_t end = h - y < per ? h : y + per;
        CUDA_TRY(err,
                 cudaMemcpy2DAsync((uint8_t *)c->px + y * dpitch, dpitch,
                                   (const uint8_t *)in->pixels + y * stride, stride, row, end - y,
                                   cudaMemcpyDefault, c->side),
                 "uploading the samples");
        CUDA_TRY(err, cudaEventRecord(c->strip_ev[s], c->side), "uploading the samples");
        /* Pair rows whose lifting reads only rows below `end` (the last
         * strip: all; the bottom's mirrored rows are then there). */
        const uint32_t ready = end == h ? hl : end >= WCG_FWD_REACH ? (end - WCG_FWD_REACH) / 2 : 0;
        if (ready <= done) continue;
        CUDA_TRY(err, cudaStreamWaitEvent(c->stream, c->strip_ev[s], 0), "uploading the samples");
        for (uint32_t k = 0; k < p->components; k++)
            CUDA_TRY(err, wcg_forward_rows(&jobs[k], done, ready, c->stream), "forward transform");
        done = ready;
    }
    for (uint32_t k = 0; k < p->components; k++)
        CUDA_TRY(err, wcg_forward_rest(&jobs[k], c->stream), "forward transform");
    return WC_OK;
}

wc_status upload_forward(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_err *err)
{
    if (strips_up(p, in->pixels)) return forward_strips(c, p, in, err);
    WC_FORWARD_IF_ERROR(upload_samples(c, p, in, err));
    for (uint32_t k = 0; k < p->components; k++)
        CUDA_TRY(err, forward_component(c, p, k), "forward transform");
    return WC_OK;
}

/* Levels down to 2 of every component, then level 1 and the inverse
 * colour transform a strip at a time on c->stream, each strip's samples
 * down on c->side behind it; c->stream waits for the last copy. */
wc_status inverse_strips(cuda_ctx *c, const wc_stage_plan *p, wc_image *out, wc_err *err)
{
    WC_FORWARD_IF_ERROR(ensure_strips(c, err));
    WC_FORWARD_IF_ERROR(grow(&c->work, &c->work_cap,
                             (p->components + 1) * wcg_work_elems(p->width, p->height) * 4, err,
                             "allocating the DWT work planes"));
    const size_t n = (size_t)p->width * p->height;
    const size_t row = host_row_bytes(p), stride = out->stride ? out->stride : row;
    const size_t dpitch = device_row_bytes(p);
    const uint32_t h = p->height, per = strip_height(p);
    const int colour = colour_active(p);
    wcg_component_job jobs[4];
    for (uint32_t k = 0; k < p->components; k++) {
        jobs[k] = strip_job(c, p, k);
        if (colour && k < 3) jobs[k].plane = (char *)c->planes + k * n * 4;
        CUDA_TRY(err, wcg_inverse_rest(&jobs[k], c->stream), "inverse transform");
    }
    const int fl[3] = {is_float(p, 0), colour ? is_float(p, 1) : 0, colour ? is_float(p, 2) : 0};
    int s = 0;
    for (uint32_t y = 0; y < h; y += per, s++) {
        const uint32_t rows = h - y < per ? h - y : per;
        for (uint32_t k = 0; k < p->components; k++)
            CUDA_TRY(err, wcg_inverse_rows(&jobs[k], y / 2, (y + rows + 1) / 2, c->stream),
                     "inverse transform");
        if (colour) {
            const wcg_samples sm = samples_at((uint8_t *)c->px + y * dpitch, p);
            const void *planes[3];
            for (int k = 0; k < 3; k++) planes[k] = (char *)c->planes + (k * n + y * p->width) * 4;
            CUDA_TRY(err, wcg_colour_inverse(&sm, p->width, rows, planes, fl, p->width, c->stream),
                     "inverse colour transform");
        }
        CUDA_TRY(err, cudaEventRecord(c->strip_ev[s], c->stream), "downloading the samples");
        CUDA_TRY(err, cudaStreamWaitEvent(c->side, c->strip_ev[s], 0), "downloading the samples");
        CUDA_TRY(err,
                 cudaMemcpy2DAsync((uint8_t *)out->pixels + y * stride, stride,
                                   (const uint8_t *)c->px + y * dpitch, dpitch, row, rows,
                                   cudaMemcpyDefault, c->side),
                 "downloading the samples");
    }
    CUDA_TRY(err, cudaEventRecord(c->strip_ev[16], c->side), "downloading the samples");
    CUDA_TRY(err, cudaStreamWaitEvent(c->stream, c->strip_ev[16], 0), "downloading the samples");
    return WC_OK;
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
    WC_FORWARD_IF_ERROR(upload_forward(c, p, in, err));
    for (uint32_t k = 0; k < p->components; k++) {
        void *dst = !p->quantize && is_float(p, k) ? (void *)out->f[k] : (void *)out->q[k];
        const size_t bytes = (size_t)out->width[k] * out->height[k] * 4;
        CUDA_TRY(err,
                 cudaMemcpyAsync(dst, (char *)c->coef + k * n * 4, bytes, cudaMemcpyDeviceToHost,
                                 c->stream),
                 "downloading the coefficients");
    }
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "forward transform");
    return WC_OK;
}

/* From the coefficient planes on the device (block layout) to the samples
 * in out->pixels: dequantize, inverse transforms, colour, download. */
wc_status device_inverse(cuda_ctx *c, const wc_stage_plan *p, wc_image *out, wc_err *err)
{
    if (strips_down(p, out->pixels)) return inverse_strips(c, p, out, err);
    const size_t n = (size_t)p->width * p->height;
    const int colour = colour_active(p);
    for (uint32_t k = 0; k < p->components; k++)
        CUDA_TRY(err,
                 inverse_component(c, p, k, colour && k < 3 ? (char *)c->planes + k * n * 4 : NULL),
                 "inverse transform");
    if (colour) {
        const wcg_samples s = device_samples(c, p);
        const void *planes[3] = {c->planes, (char *)c->planes + n * 4,
                                 (char *)c->planes + 2 * n * 4};
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
        CUDA_TRY(err,
                 cudaMemcpyAsync((char *)c->coef + k * slot * 4, in->q[k],
                                 (size_t)in->width[k] * in->height[k] * 4, cudaMemcpyHostToDevice,
                                 c->stream),
                 "uploading the coefficients");
    WC_FORWARD_IF_ERROR(device_inverse(c, p, out, err));
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "inverse transform");
    return WC_OK;
}

/* backend.h's fetch: one strided copy behind the caller's stream. */
wc_status cuda_fetch(void *self, const wc_stage_plan *p, const wc_image *in, wc_image *out,
                     wc_err *err)
{
    cuda_ctx *c = (cuda_ctx *)self;
    WC_RETURN_IF(!c || !p || !in || !out || !in->pixels || !out->pixels, err, WC_ERR_ARG,
                 "CUDA backend: NULL argument");
    WC_RETURN_IF(out->width != in->width || out->height != in->height ||
                     out->components != in->components || out->bit_depth != in->bit_depth,
                 err, WC_ERR_ARG, "CUDA backend: the images' shapes differ");
    const size_t row = wc_packed_row_bytes(in);
    WC_FORWARD_IF_ERROR(behind_caller(c, p, err));
    CUDA_TRY(err,
             cudaMemcpy2DAsync(out->pixels, wc_row_stride(out), in->pixels, wc_row_stride(in), row,
                               in->height, cudaMemcpyDefault, c->stream),
             "reading the samples");
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "reading the samples");
    return WC_OK;
}

} /* namespace wcgb */

namespace
{

using namespace wcgb;

const wc_backend_ops cuda_ops = {"cuda",      cuda_create, cuda_destroy, cuda_forward, cuda_inverse,
                                 cuda_encode, cuda_decode, cuda_prepare, cuda_fetch};

} /* namespace */

const wc_backend_ops *wc_backend_cuda(void) { return &cuda_ops; }
