/*
 * chain_cuda.cu -- the CUDA backend's whole chain (backend.h's encode and
 * decode): samples up once, colour/transform/quantize, the block coder of
 * entropy_cuda.h (histograms and tables on the device, tables_cuda.h; emit,
 * pack), coded bytes down once; and back: coded bytes up once, blocks
 * decoded on the device, the inverse kernels, samples down once.
 * Arithmetic coding (entropy 3) takes the same path with ac_kernels.cu's
 * thread-a-block coder in place of the tables and emit. Deflate modes go
 * through the host's entropy coder (chain_host.c).
 */
extern "C" {
#include "block_tiles.h" /* bct_count */
#include "parallel.h"
}

#include "blk8_cuda.h"
#include "cuda_ctx.h"
#include "dwt_cuda.h"
#include "encode_graph.h"
#include "entropy_cuda.h"
#include "crc32_cuda.h"
#include "strip_decode.h"
#include "strip_encode.h"
#include "tables_cuda.h"

extern "C" {
#include "parallel.h"
}

#include <cuda.h> /* CUresult, cuStreamWaitValue32's types */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace wcgb
{

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
    for (; c->events < 8; c->events++)
        CUDA_TRY(err, cudaEventCreate(&c->ev[c->events]), "creating events");
    return WC_OK;
}

/* Count's token planes (entropy_cuda.h: a byte a coefficient) live
 * behind the block slots, at this offset. */
static size_t tokens_at(size_t slots) { return (slots + 4 + 255) & ~(size_t)255; }

/* WC_CUDA_EMIT=walk: emit walks the contexts again instead of reading
 * count's tokens (the version before e4, for comparison in one binary). */
static bool emit_walks()
{
    const char *e = getenv("WC_CUDA_EMIT");
    return e && strcmp(e, "walk") == 0;
}

/* Where a size-only probe's totals (wcg_bc_sizes: six 64-bit words)
 * lie in c->sizes and c->h_sizes, behind the sizes, the overflow flag and
 * the CRC words. */
static size_t totals_at(size_t nb) { return ((nb + 5) * 4 + 7) & ~(size_t)7; }

/* Every buffer the device coder needs for this layout; described: the
 * pinned descriptors already describe it (*slots their total), as the
 * device's do. */
wc_status ensure_coder(cuda_ctx *c, const wc_stage_plan *p, const wc_layout *lay, size_t *slots,
                       bool described, wc_err *err)
{
    const size_t nb = lay->nblocks ? lay->nblocks : 1;
    int blocked = 0;
    for (uint32_t k = 0; k < p->components; k++) blocked |= is_block(p, k);
    if (blocked)
        WC_FORWARD_IF_ERROR(grow(&c->bands, &c->bands_cap, coef_elems(p) * p->components * 4, err,
                                 "allocating the band planes"));
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_blocks, &c->h_blocks_cap, nb * sizeof(wcg_cblk), err,
                                    "allocating pinned block descriptors"));
    if (described)
        *slots = c->desc_slots;
    else
        *slots = describe_blocks(lay, (wcg_cblk *)c->h_blocks);
    const size_t hist = (size_t)p->components * WCG_HIST * sizeof(unsigned long long);
    const size_t tabs = (size_t)p->components * WC_NCLASS * BC_NTAB * sizeof(wcg_huf);
    const size_t lens = (size_t)p->components * WC_NCLASS * BC_NTAB * BC_NSYM;
    WC_FORWARD_IF_ERROR(grow(&c->blocks, &c->blocks_cap, nb * sizeof(wcg_cblk), err,
                             "allocating block descriptors"));
    const size_t tokens = coef_elems(p) * p->components;
    WC_FORWARD_IF_ERROR(grow(&c->slots, &c->slots_cap, tokens_at(*slots) + tokens, err,
                             "allocating block slots and tokens"));
    WC_FORWARD_IF_ERROR(
        grow(&c->payload, &c->payload_cap, *slots + 4, err, "allocating the payload"));
    /* The sizes, the overflow flag, then the payload parts' CRC words. */
    WC_FORWARD_IF_ERROR(
        grow(&c->sizes, &c->sizes_cap, totals_at(nb) + 48, err, "allocating block sizes"));
    WC_FORWARD_IF_ERROR(
        grow(&c->offsets, &c->offsets_cap, (nb + 1) * 8, err, "allocating block offsets"));
    WC_FORWARD_IF_ERROR(grow(&c->hist, &c->hist_cap, hist, err, "allocating histograms"));
    WC_FORWARD_IF_ERROR(grow(&c->tabs, &c->tabs_cap, tabs, err, "allocating tables"));
    WC_FORWARD_IF_ERROR(grow(&c->lens, &c->lens_cap, lens, err, "allocating code lengths"));
    WC_FORWARD_IF_ERROR(
        grow_pinned(&c->h_lens, &c->h_lens_cap, lens, err, "allocating pinned code lengths"));
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_sizes, &c->h_sizes_cap, totals_at(nb) + 48, err,
                                    "allocating pinned sizes"));
    WC_FORWARD_IF_ERROR(ensure_events(c, err));
    return WC_OK;
}

/* A stage boundary for WC_CUDA_TIMES only: in a batch of small images
 * every call through the context's lock counts (PERF_NOTES b1). */
cudaError_t mark(cuda_ctx *c, int i)
{
    return c->trace && !c->capturing ? cudaEventRecord(c->ev[i], c->stream) : cudaSuccess;
}

double elapsed_s(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms * 1e-3 : 0.0;
}

/* The planes the coder reads: the transform's, or for DCT/LOT their
 * regrouping into bands. */
static void coder_planes(cuda_ctx *c, const wc_stage_plan *p, wcg_bc_job *job)
{
    const size_t n = coef_elems(p);
    for (uint32_t k = 0; k < p->components; k++)
        job->plane[k] = (int32_t *)((char *)(is_block(p, k) ? c->bands : c->coef) + k * n * 4);
}

/* Forward transform and quantization of every component into the planes
 * the coder reads (band layout). */
wc_status device_forward(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wcg_bc_job *job,
                         bool keep_samples, wc_err *err)
{
    const size_t n = coef_elems(p);
    coder_planes(c, p, job);
    /* New samples go up with the transforms (in strips that overlap them
     * where the plan allows: upload_forward). */
    if (!keep_samples) WC_FORWARD_IF_ERROR(upload_forward(c, p, in, err));
    for (uint32_t k = 0; k < p->components; k++) {
        if (keep_samples) CUDA_TRY(err, forward_component(c, p, k), "forward transform");
        if (is_block(p, k))
            CUDA_TRY(err,
                     wcg_blocks_to_bands((const int32_t *)((char *)c->coef + k * n * 4),
                                         (int32_t *)job->plane[k], ceil8(p->width),
                                         ceil8(p->height), c->stream),
                     "regrouping into bands");
    }
    return WC_OK;
}

/* Counts and tables on the device (tables_cuda.h: the host's algorithm,
 * without a round trip between counting and emitting); the code lengths
 * come down behind them for the file's tables (write_tables). */
wc_status device_tables(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job, wc_err *err)
{
    const wcx_header *h = ch->header;
    const size_t hist = (size_t)h->components * WCG_HIST * sizeof(unsigned long long);
    const uint32_t ntab = h->components * WC_NCLASS * BC_NTAB;
    CUDA_TRY(err, cudaMemsetAsync(c->hist, 0, hist, c->stream), "clearing histograms");
    CUDA_TRY(err, mark(c, 2), "timing");
    CUDA_TRY(err, wcg_bc_count(job, (unsigned long long *)c->hist, c->stream), "counting symbols");
    CUDA_TRY(err, mark(c, 3), "timing");
    CUDA_TRY(err,
             wcg_build_tables((const unsigned long long *)c->hist, ntab, (wcg_huf *)c->tabs,
                              (uint8_t *)c->lens, c->stream),
             "building tables");
    CUDA_TRY(err,
             cudaMemcpyAsync(c->h_lens, c->lens, (size_t)ntab * BC_NSYM, cudaMemcpyDeviceToHost,
                             c->stream),
             "downloading code lengths");
    return WC_OK;
}

/* The WTAB payloads from the code lengths: es_build_tables' second half
 * (the same capacity and calls). */
wc_status write_tables(const wcx_header *h, const uint8_t *lens, es_output *out, wc_err *err)
{
    const size_t cap = (size_t)WC_NCLASS * BC_NTAB * (BC_NSYM + 8) + 64;
    for (uint32_t k = 0; k < h->components; k++) {
        out->tables[k] = (uint8_t *)wc_malloc(cap);
        WC_RETURN_IF(!out->tables[k], err, WC_ERR_NOMEM, "out of memory (tables)");
        bitw w;
        bitw_init(&w, out->tables[k], cap);
        for (unsigned cls = 0; cls < WC_NCLASS; cls++)
            bc_tables_write(&w, (const uint8_t(*)[BC_NSYM])(lens + (size_t)(k * WC_NCLASS + cls) *
                                                                       BC_NTAB * BC_NSYM));
        out->table_size[k] = bitw_flush(&w);
        WC_RETURN_IF(w.overflow, err, WC_ERR_BUFFER, "entropy tables overflow");
    }
    return WC_OK;
}

/* WC_CUDA_HOST_CRC=1: the host reads the payload again for the WDAT
 * chunks' CRCs (the version before c1, for comparison in one binary). */
static bool host_crc()
{
    const char *e = getenv("WC_CUDA_HOST_CRC");
    return e && strcmp(e, "1") == 0;
}

/* Each component's CRC-32 on the device behind the pack (crc32_cuda.h),
 * into the words after the overflow flag; *parts for device_code to read
 * them. */
wc_status device_crc(cuda_ctx *c, size_t nb, const size_t *size, uint32_t components,
                     wcg_crc_parts *parts, wc_err *err)
{
    uint32_t *acc = (uint32_t *)c->sizes + nb + 1;
    parts->n = components;
    unsigned long long at = 0;
    for (uint32_t k = 0; k < components; k++) {
        parts->start[k] = at;
        parts->end[k] = at += size[k];
    }
    CUDA_TRY(err, cudaMemsetAsync(acc, 0, 16, c->stream), "clearing the CRCs");
    CUDA_TRY(err, wcg_crc32_parts((const uint8_t *)c->payload, parts, acc, c->stream),
             "checksumming the payload");
    CUDA_TRY(err,
             cudaMemcpyAsync((uint32_t *)c->h_sizes + nb + 1, acc, 16, cudaMemcpyDeviceToHost,
                             c->stream),
             "downloading the CRCs");
    return WC_OK;
}

/* Entropy 3: no tables, and each coding thread's scratch. */
static int arith_of(const wc_chain *ch) { return ch->header->entropy == 3; }

wc_status ensure_ac_work(cuda_ctx *c, size_t nblocks, wc_err *err)
{
    return grow(&c->ac_work, &c->ac_work_cap, wcg_ac_work_bytes((uint32_t)nblocks), err,
                "allocating the arithmetic coder's scratch");
}

/* WC_CUDA_SIZE_PROBES=0: every rate-control probe emits, packs and
 * downloads its payload (the version before s1, for comparison in one
 * binary). */
static bool size_probes()
{
    const char *e = getenv("WC_CUDA_SIZE_PROBES");
    return !e || strcmp(e, "0") != 0;
}

/* WC_CUDA_CHECK_SIZES=1: a size-only probe also emits its blocks, and
 * fails unless each block's size is emit's (tests/gpu/test_cuda_chain). */
static bool check_sizes()
{
    const char *e = getenv("WC_CUDA_CHECK_SIZES");
    return e && strcmp(e, "1") == 0;
}

/* A size-only probe's parts, each switchable for comparison in one
 * binary (PERF_NOTES "Probes that bring back six words"; 0: the version
 * before): WC_CUDA_PROBE_TOTALS, the device adds the payloads' and the
 * index's bytes and only those come down, not a size a block;
 * WC_CUDA_PROBE_HIST, count keeps each block's histogram packed;
 * WC_CUDA_PROBE_DESC, a probe of the samples and layout of the call
 * before neither describes nor uploads the blocks again. */
static bool probe_totals() { return dec_switch("WC_CUDA_PROBE_TOTALS", 1, 0, 1) == 1; }
static bool probe_packed() { return dec_switch("WC_CUDA_PROBE_HIST", 1, 0, 1) == 1; }
static bool probe_desc() { return dec_switch("WC_CUDA_PROBE_DESC", 1, 0, 1) == 1; }

/* The downloaded block sizes hs into out->block_size. */
static wc_status copy_block_sizes(const uint32_t *hs, size_t nb, es_output *out, wc_err *err)
{
    out->block_size = (uint32_t *)wc_malloc_array(nb ? nb : 1, sizeof(uint32_t));
    WC_RETURN_IF(!out->block_size, err, WC_ERR_NOMEM, "out of memory (block sizes)");
    memcpy(out->block_size, hs, nb * 4);
    return WC_OK;
}

/* Component k's payload bytes, blocks [first, end) of hs, into *size. */
static wc_status component_bytes(const uint32_t *hs, size_t first, size_t end, uint32_t k,
                                 size_t *size, wc_err *err)
{
    size_t n = 0;
    for (size_t i = first; i < end; i++) n += hs[i];
    WC_RETURN_IF(n > WCX_MAX_CHUNK_SIZE, err, WC_ERR_LIMIT,
                 "component %u: %zu bytes of data exceed one chunk's limit", k, n);
    *size = n;
    return WC_OK;
}

/* The downloaded block sizes hs into out->block_size, each component's
 * payload bytes into size[]. */
static wc_status take_sizes(const wc_layout *lay, const uint32_t *hs, es_output *out, size_t *size,
                            wc_err *err)
{
    const size_t nb = lay->nblocks;
    WC_FORWARD_IF_ERROR(copy_block_sizes(hs, nb, out, err));
    for (uint32_t k = 0; k < lay->components; k++) {
        const size_t end = k + 1 < lay->components ? lay->first_block[k + 1] : nb;
        WC_FORWARD_IF_ERROR(component_bytes(hs, lay->first_block[k], end, k, &size[k], err));
    }
    return WC_OK;
}

/* A size-only probe (wc_chain.size_only): every block's size from count's
 * block histograms and the tables (wcg_bc_sizes, the sizes emit would
 * give), down with the overflow flag, and the file's tables: all of
 * es_output but the payload, data[] NULL. Emit, pack and the payload's
 * download wait for the probe the search keeps (emit_last). emit: the
 * sizes from emit itself (entropy 2, whose tiles' widths need each tile's
 * bits, or a count without block histograms): no pack, no CRC, no
 * payload down (PERF_NOTES s2). */
static wc_status device_sizes(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job, bool totals,
                              bool emit, es_output *out, wc_err *err)
{
    const wc_layout *lay = ch->layout;
    const size_t nb = lay->nblocks;
    uint32_t *hs = (uint32_t *)c->h_sizes;
    unsigned long long *dt = (unsigned long long *)((char *)c->sizes + totals_at(nb));
    const unsigned long long *ht = (const unsigned long long *)((char *)hs + totals_at(nb));
    CUDA_TRY(err, cudaMemsetAsync((uint32_t *)c->sizes + nb, 0, 4, c->stream), "clearing a flag");
    if (totals) CUDA_TRY(err, cudaMemsetAsync(dt, 0, 48, c->stream), "clearing the totals");
    CUDA_TRY(err, mark(c, 4), "timing");
    CUDA_TRY(err,
             emit ? wcg_bc_emit(job, (const wcg_huf *)c->tabs, (uint8_t *)c->slots,
                                (uint32_t *)c->sizes, c->stream)
                  : wcg_bc_sizes(job, (const wcg_huf *)c->tabs, (uint32_t *)c->sizes,
                                 totals ? dt : nullptr, c->stream),
             "sizing blocks");
    CUDA_TRY(err, mark(c, 5), "timing");
    CUDA_TRY(err, mark(c, 6), "timing");
    if (totals)
        CUDA_TRY(err, cudaMemcpyAsync((void *)ht, dt, 48, cudaMemcpyDeviceToHost, c->stream),
                 "downloading the sizes' totals");
    /* Every block's size too where the totals are off, or checked. */
    if (!totals || check_sizes())
        CUDA_TRY(err,
                 cudaMemcpyAsync(hs, c->sizes, (nb + 1) * 4, cudaMemcpyDeviceToHost, c->stream),
                 "downloading block sizes");
    CUDA_TRY(err, mark(c, 7), "timing");
    /* The code lengths (device_tables' download) are read only after the
     * wait: before it they may still be the last probe's. */
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "sizing blocks");
    c->host_t[1] = now_s();
    WC_FORWARD_IF_ERROR(write_tables(ch->header, (const uint8_t *)c->h_lens, out, err));
    c->host_t[2] = now_s();
    if (totals) {
        /* The index's bytes and each component's, six words: nothing on
         * the host walks the blocks (PERF_NOTES "Probes that bring back
         * six words"). */
        WC_RETURN_IF(ht[5] != 0, err, WC_ERR_BACKEND,
                     "CUDA backend: a code block overflowed its slot");
        for (uint32_t k = 0; k < lay->components; k++) {
            WC_RETURN_IF(ht[k] > WCX_MAX_CHUNK_SIZE, err, WC_ERR_LIMIT,
                         "component %u: %llu bytes of data exceed one chunk's limit", k, ht[k]);
            out->data_size[k] = (size_t)ht[k];
        }
        out->index_size = WCX_CHUNK_OVERHEAD + (size_t)ht[4];
        if (!check_sizes()) return WC_OK;
    }
    WC_RETURN_IF(hs[nb] != 0, err, WC_ERR_BACKEND,
                 "CUDA backend: a code block overflowed its slot");
    size_t size[4] = {0, 0, 0, 0};
    WC_FORWARD_IF_ERROR(take_sizes(lay, hs, out, size, err));
    WC_RETURN_IF(totals && wcx_index_size(hs, nb) != out->index_size, err, WC_ERR_BACKEND,
                 "CUDA backend: the sized index differs from its blocks'");
    for (uint32_t k = 0; k < lay->components; k++) {
        WC_RETURN_IF(totals && size[k] != out->data_size[k], err, WC_ERR_BACKEND,
                     "CUDA backend: component %u's sized total differs from its blocks'", k);
        out->data_size[k] = size[k];
    }
    return WC_OK;
}

/* The payload's download in pieces of at least 1 MiB, up to 16: the
 * container copies a piece while the next comes down (a lossless 8K
 * photo's 41 MB take ~0.9 ms each way). */
static int payload_pieces(size_t total)
{
    const size_t n = total >> 20;
    return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

static wc_status ensure_payload_events(cuda_ctx *c, int pieces, wc_err *err)
{
    for (; c->payload_events < 1 + pieces; c->payload_events++)
        CUDA_TRY(
            err,
            cudaEventCreateWithFlags(&c->payload_ev[c->payload_events], cudaEventDisableTiming),
            "creating events");
    return WC_OK;
}

/* es_output.data_wait: returns once component comp's first `end` bytes
 * are in the pinned payload (called from the container's workers: a new
 * thread's current device is device 0). */
static const char *payload_wait(void *arg, uint32_t comp, size_t end)
{
    cuda_ctx *c = (cuda_ctx *)arg;
    if (end == 0) return NULL;
    const size_t last = c->payload_base[comp] + end - 1;
    const int piece = c->payload_by_comp
                          ? c->comp_first[comp] + (int)((end - 1) / c->comp_piece[comp])
                          : (int)(last / c->payload_piece);
    cudaError_t e = cudaSetDevice(c->device);
    if (e == cudaSuccess) e = cudaEventSynchronize(c->payload_ev[1 + piece]);
    return e == cudaSuccess ? NULL : cudaGetErrorString(e);
}

/* Queues the coding of every block, the pack into pack_to (c->payload,
 * or pinned host memory that the device writes across PCIe) and the
 * sizes' download (no wait: device_finish waits). Entropy 3's slots are bc_bound bytes
 * too (ac_bound is a far looser bound): a block past it fails with
 * WC_ERR_BUFFER, and cuda_encode codes the image on the host instead. */
wc_status device_emit(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job, uint8_t *pack_to,
                      bool emitted, wc_err *err)
{
    const size_t nb = ch->layout->nblocks;
    const int arith = arith_of(ch);
    CUDA_TRY(err, mark(c, 4), "timing");
    if (!emitted) { /* else the slots, sizes and flag hold the last probe's */
        CUDA_TRY(err, cudaMemsetAsync((uint32_t *)c->sizes + nb, 0, 4, c->stream),
                 "clearing a flag");
        CUDA_TRY(err,
                 arith ? wcg_ac_emit(job, (uint8_t *)c->slots, (uint32_t *)c->sizes, c->ac_work,
                                     c->stream)
                       : wcg_bc_emit(job, (const wcg_huf *)c->tabs, (uint8_t *)c->slots,
                                     (uint32_t *)c->sizes, c->stream),
                 "coding blocks");
    }
    CUDA_TRY(err, mark(c, 5), "timing");
    CUDA_TRY(err,
             wcg_bc_pack(job, (const uint8_t *)c->slots, (const uint32_t *)c->sizes,
                         (unsigned long long *)c->offsets, pack_to, c->stream),
             "packing the payload");
    CUDA_TRY(err, mark(c, 6), "timing");
    CUDA_TRY(err,
             cudaMemcpyAsync(c->h_sizes, c->sizes, (nb + 1) * 4, cudaMemcpyDeviceToHost, c->stream),
             "downloading block sizes");
    return WC_OK;
}

/* c->payload's bytes [from, from + n) down into h_payload + to, in pieces
 * of `piece` bytes, piece q followed by payload_ev[ev + q] on st, so that
 * the container copies each as it lands (payload_wait). */
static wc_status download_pieces(cuda_ctx *c, size_t to, size_t from, size_t n, size_t piece,
                                 int ev, cudaStream_t st, wc_err *err)
{
    for (size_t a = 0; a < n; a += piece, ev++) {
        const size_t len = n - a < piece ? n - a : piece;
        CUDA_TRY(err,
                 cudaMemcpyAsync((uint8_t *)c->h_payload + to + a,
                                 (const uint8_t *)c->payload + from + a, len,
                                 cudaMemcpyDeviceToHost, st),
                 "downloading the payload");
        CUDA_TRY(err, cudaEventRecord(c->payload_ev[ev], st), "downloading the payload");
    }
    return WC_OK;
}

/* Waits for device_emit's sizes, brings the payload back (with each
 * component's CRC-32 from the device, unless the payload is under
 * `host_crcs_below` bytes: the container then computes them) and writes
 * the tables while it comes. packed_on_host: the pack wrote the payload
 * into c->h_payload itself; nothing more to wait for. */
wc_status device_finish(cuda_ctx *c, const wc_chain *ch, es_output *out, size_t host_crcs_below,
                        bool packed_on_host, wc_err *err)
{
    const wc_layout *lay = ch->layout;
    const size_t nb = lay->nblocks;
    const int arith = arith_of(ch);
    uint32_t *hs = (uint32_t *)c->h_sizes;
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "coding blocks");
    c->clk_t[2] = now_s();
    WC_RETURN_IF(hs[nb] != 0, err, arith ? WC_ERR_BUFFER : WC_ERR_BACKEND,
                 "CUDA backend: a code block overflowed its slot");
    size_t size[4] = {0, 0, 0, 0};
    WC_FORWARD_IF_ERROR(take_sizes(lay, hs, out, size, err));
    const size_t total = size[0] + size[1] + size[2] + size[3];
    if (!packed_on_host)
        WC_FORWARD_IF_ERROR(grow_pinned(&c->h_payload, &c->h_payload_cap, total ? total : 1, err,
                                        "allocating the pinned payload"));
    /* The CRCs first (a few tens of µs on the device that spare the host
     * a pass over the payload), then the payload in pieces. */
    wcg_crc_parts parts = {};
    const bool crc = !packed_on_host && total >= host_crcs_below && !host_crc();
    if (crc) WC_FORWARD_IF_ERROR(device_crc(c, nb, size, lay->components, &parts, err));
    c->payload_by_comp = 0;
    const int pieces = crc ? payload_pieces(total) : 1;
    WC_FORWARD_IF_ERROR(ensure_payload_events(c, pieces, err));
    CUDA_TRY(err, cudaEventRecord(c->payload_ev[0], c->stream), "downloading the CRCs");
    c->payload_piece = total ? (total + pieces - 1) / pieces : 1;
    if (!packed_on_host)
        WC_FORWARD_IF_ERROR(download_pieces(c, 0, 0, total, c->payload_piece, 1, c->stream, err));
    CUDA_TRY(err, mark(c, 7), "timing");
    /* The code lengths came down before the sizes: the tables are written
     * while the payload comes down. */
    c->host_t[1] = now_s();
    const wc_status tables =
        arith ? WC_OK : write_tables(ch->header, (const uint8_t *)c->h_lens, out, err);
    if (tables != WC_OK) {
        cudaStreamSynchronize(c->stream); /* nothing may land in h_payload later */
        return tables;
    }
    c->host_t[2] = now_s();
    /* With the CRCs known the container copies each piece as it lands
     * (payload_wait); without them it reads the whole payload. A payload
     * packed into host memory is there since the sizes' wait. */
    if (crc)
        CUDA_TRY(err, cudaEventSynchronize(c->payload_ev[0]), "downloading the payload");
    else if (!packed_on_host)
        CUDA_TRY(err, cudaStreamSynchronize(c->stream), "downloading the payload");
    /* The container is written from the pinned buffer itself: one copy of
     * the payload less. */
    uint8_t *src = (uint8_t *)c->h_payload;
    out->data_borrowed = 1;
    for (uint32_t k = 0; k < lay->components; k++) {
        out->data[k] = src;
        out->data_size[k] = size[k];
        c->payload_base[k] = (size_t)(src - (uint8_t *)c->h_payload);
        src += size[k];
        /* ~acc (crc32_cuda.h); an empty part's CRC is 0. */
        out->data_crc[k] = crc && size[k] ? ~hs[nb + 1 + k] : 0;
    }
    if (crc && total) {
        out->data_wait = payload_wait;
        out->data_wait_arg = c;
    }
    out->have_data_crc = crc;
    return WC_OK;
}

/* device_code with the payload going down while the blocks are coded
 * (PERF_NOTES s1), for lossless images of at least kSplitCodeMin bytes of
 * samples. One emit launch counts each component's finished blocks
 * (wcg_bc_job.done); c->tail waits on each count in turn
 * (cuStreamWaitValue32), packs that component at its first slot's offset
 * in c->payload and brings its sizes down behind strip_ev[k]; the host,
 * once it has them, sends its CRC-32 and payload down on c->side while
 * the launch codes the next components, and the container copies each
 * component as it lands (payload_wait). One launch, not one a component:
 * t4's three emits cost their launches' tails three times (1.52 ms
 * against 0.95). The pinned payload is sized from component 0's bytes
 * (times the components, twice over); a later component that does not
 * fit waits for the copies in flight, and the components before it come
 * down again into the larger buffer (WC_CUDA_ENC_SPLIT_TIGHT=1, for
 * tests: each time). */
constexpr size_t kSplitCodeMin = (size_t)16 << 20;
/* WC_CUDA_ENC_SPLIT_MIN (bytes, for tests and comparisons) sets it, and
 * *forced: lossy files too. */
static size_t split_code_min(bool *forced)
{
    const char *e = getenv("WC_CUDA_ENC_SPLIT_MIN");
    *forced = e && *e;
    return *forced ? (size_t)strtoull(e, NULL, 10) : kSplitCodeMin;
}

/* The driver's cuStreamWaitValue32 (stream memory operations, on by
 * default since the v2 entry points of CUDA 11.7), through the runtime
 * so that nothing links libcuda itself; NULL where the driver lacks it,
 * and device_code runs instead. */
typedef CUresult (*wait_value_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
static wait_value_fn load_wait_value()
{
#if CUDART_VERSION >= 12050
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &fn, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        return NULL;
    return (wait_value_fn)fn;
#else
    return NULL;
#endif
}

static wait_value_fn wait_value()
{
    static const wait_value_fn fn = load_wait_value(); /* once, thread-safe (C++11) */
    return fn;
}

/* Lossless files only: their payload is ~40% of the samples' bytes (the
 * 8K photo's 41 MB: 0.94 ms down), and the gain is that download beside
 * the emit; a lossy payload's few MB gain less than the container loses
 * waiting for the last CRC behind the other components' copies (s1: 9/7
 * at 1.59 bpp 4.98-5.10 ms against 4.83-4.87). */
static bool split_code(const wc_stage_plan *p, const wc_chain *ch)
{
    const uint32_t nc = ch->layout->components;
    bool forced = false;
    const size_t least = split_code_min(&forced);
    const bool lossless = ch->header->flags & 1;
    return nc > 1 && nc <= 4 && !arith_of(ch) && !host_crc() && (lossless || forced) &&
           host_row_bytes(p) * p->height >= least && wait_value();
}

/* c->tail and the emit's counts, made on first use (with c->side and
 * strip_ev: ensure_strips). */
static wc_status ensure_tail(cuda_ctx *c, wc_err *err)
{
    WC_FORWARD_IF_ERROR(ensure_strips(c, err));
    if (!c->tail)
        CUDA_TRY(err, cudaStreamCreateWithFlags(&c->tail, cudaStreamNonBlocking),
                 "creating the pack stream");
    if (!c->done) CUDA_TRY(err, cudaMalloc(&c->done, 16), "allocating block counts");
    return WC_OK;
}

/* Component k's payload down on c->side into h_payload + at, behind its
 * sizes (strip_ev[k]) and its CRC-32 (crc: computed and brought down;
 * else its payload again). */
static wc_status component_down(cuda_ctx *c, size_t nb, uint32_t k, size_t region, size_t size,
                                size_t at, bool crc, wc_err *err)
{
    uint32_t *acc = (uint32_t *)c->sizes + nb + 1 + k;
    wcg_crc_parts part = {};
    part.n = 1;
    part.start[0] = region;
    part.end[0] = region + size;
    CUDA_TRY(err, cudaStreamWaitEvent(c->side, c->strip_ev[k], 0), "packing the payload");
    if (crc) {
        CUDA_TRY(err, wcg_crc32_parts((const uint8_t *)c->payload, &part, acc, c->side),
                 "checksumming the payload");
        CUDA_TRY(err,
                 cudaMemcpyAsync((uint32_t *)c->h_sizes + nb + 1 + k, acc, 4,
                                 cudaMemcpyDeviceToHost, c->side),
                 "downloading the CRCs");
        CUDA_TRY(err, cudaEventRecord(c->strip_ev[8 + k], c->side), "downloading the CRCs");
    }
    /* In pieces (payload_pieces' share of the component); an empty
     * component has none, and payload_wait never waits for it. */
    return download_pieces(c, at, region, size, c->comp_piece[k], 1 + c->comp_first[k], c->side,
                           err);
}

/* Component k's pieces: payload_pieces' count over the components, at
 * least one each (payload_ev holds 16 after the CRCs' one). */
static void split_pieces(cuda_ctx *c, uint32_t k, uint32_t nc, size_t size)
{
    const int most = 16 / (int)nc;
    int n = payload_pieces(size);
    n = n > most ? most : n;
    c->comp_first[k] = (int)k * most;
    c->comp_piece[k] = size ? (size + n - 1) / n : 1;
}

/* The host's part: each component's sizes as strip_ev[k] brings them,
 * its payload sent down, the tables written after the first; the block
 * sizes and each component's bytes into out. */
static wc_status code_split_host(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job,
                                 es_output *out, const size_t *region, wc_err *err)
{
    const wc_layout *lay = ch->layout;
    const size_t nb = lay->nblocks;
    const uint32_t nc = lay->components;
    const uint32_t *hs = (const uint32_t *)c->h_sizes;
    const char *e = getenv("WC_CUDA_ENC_SPLIT_TIGHT");
    const bool tight = e && strcmp(e, "1") == 0;
    size_t size[4] = {0, 0, 0, 0}, at = 0;
    for (uint32_t k = 0; k < nc; k++) {
        CUDA_TRY(err, cudaEventSynchronize(c->strip_ev[k]), "coding blocks");
        if (k == 0) c->clk_t[2] = now_s();
        WC_FORWARD_IF_ERROR(
            component_bytes(hs, job->first[k], job->first[k] + job->count[k], k, &size[k], err));
        if (k == 0 && tight) { /* tests: every later component grows the buffer */
            CUDA_TRY(err, cudaStreamSynchronize(c->side), "downloading the payload");
            cudaFreeHost(c->h_payload);
            c->h_payload = NULL;
            c->h_payload_cap = 0;
        }
        if (at + size[k] > c->h_payload_cap) {
            /* a larger pinned payload: what is in flight lands first, and
             * the components before k come down again into the new one */
            CUDA_TRY(err, cudaStreamSynchronize(c->side), "downloading the payload");
            const size_t want = tight    ? at + size[k] + 1
                                : k == 0 ? 2 * nc * (size[0] ? size[0] : 1)
                                         : 2 * (at + size[k]);
            WC_FORWARD_IF_ERROR(grow_pinned(&c->h_payload, &c->h_payload_cap, want, err,
                                            "allocating the pinned payload"));
            for (uint32_t q = 0; q < k; q++)
                WC_FORWARD_IF_ERROR(
                    component_down(c, nb, q, region[q], size[q], c->payload_base[q], false, err));
        }
        c->payload_base[k] = at;
        split_pieces(c, k, nc, size[k]);
        WC_FORWARD_IF_ERROR(component_down(c, nb, k, region[k], size[k], at, true, err));
        at += size[k];
        if (k == 0) { /* the code lengths came down before the sizes */
            c->host_t[1] = now_s();
            if (!arith_of(ch))
                WC_FORWARD_IF_ERROR(write_tables(ch->header, (const uint8_t *)c->h_lens, out, err));
            c->host_t[2] = now_s();
        }
    }
    if (c->trace) CUDA_TRY(err, cudaEventRecord(c->ev[7], c->side), "timing");
    CUDA_TRY(err, cudaEventSynchronize(c->strip_ev[12]), "coding blocks");
    WC_RETURN_IF(hs[nb] != 0, err, WC_ERR_BACKEND,
                 "CUDA backend: a code block overflowed its slot");
    WC_FORWARD_IF_ERROR(copy_block_sizes(hs, nb, out, err));
    for (uint32_t k = 0; k < nc; k++) out->data_size[k] = size[k];
    /* The CRCs, which the container's chunk heads need first (the last
     * one's copy follows the other components' payloads on c->side). */
    CUDA_TRY(err, cudaEventSynchronize(c->strip_ev[8 + nc - 1]), "downloading the CRCs");
    return WC_OK;
}

/* On c->tail, component by component: the wait for its last block, its
 * pack and its sizes down, then strip_ev[k]; the overflow flag down
 * behind the launch on c->stream, then strip_ev[12]. */
static wc_status queue_packs(cuda_ctx *c, const wcg_bc_job *job, uint32_t nc, const size_t *region,
                             wc_err *err)
{
    const size_t nb = job->nblocks;
    uint32_t *ds = (uint32_t *)c->sizes, *done = (uint32_t *)c->done;
    CUDA_TRY(err, mark(c, 5), "timing");
    /* Where the driver refuses a wait (no stream memory operations on
     * this device), or under WC_CUDA_ENC_NO_WAIT (tests), c->tail waits
     * for the whole launch from then on. */
    bool waits = !getenv("WC_CUDA_ENC_NO_WAIT"), behind = false;
    for (uint32_t k = 0; k < nc; k++) {
        const size_t first = job->first[k], count = job->count[k];
        wcg_bc_job sub = *job;
        sub.blocks = job->blocks + first;
        sub.nblocks = (uint32_t)count;
        if (waits)
            waits = wait_value()((CUstream)c->tail, (CUdeviceptr)(done + k), (cuuint32_t)count,
                                 CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS;
        if (!waits && !behind) {
            CUDA_TRY(err, cudaEventRecord(c->strip_ev[11], c->stream), "coding blocks");
            CUDA_TRY(err, cudaStreamWaitEvent(c->tail, c->strip_ev[11], 0), "coding blocks");
            behind = true;
        }
        CUDA_TRY(err,
                 wcg_bc_pack(&sub, (const uint8_t *)c->slots, ds + first,
                             (unsigned long long *)c->offsets + first,
                             (uint8_t *)c->payload + region[k], c->tail),
                 "packing the payload");
        CUDA_TRY(err,
                 cudaMemcpyAsync((uint32_t *)c->h_sizes + first, ds + first, count * 4,
                                 cudaMemcpyDeviceToHost, c->tail),
                 "downloading block sizes");
        CUDA_TRY(err, cudaEventRecord(c->strip_ev[k], c->tail), "coding blocks");
    }
    CUDA_TRY(err, mark(c, 6), "timing");
    CUDA_TRY(
        err,
        cudaMemcpyAsync((uint32_t *)c->h_sizes + nb, ds + nb, 4, cudaMemcpyDeviceToHost, c->stream),
        "downloading block sizes");
    CUDA_TRY(err, cudaEventRecord(c->strip_ev[12], c->stream), "coding blocks");
    return WC_OK;
}

static wc_status device_code_split(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job,
                                   es_output *out, wc_err *err)
{
    const wc_layout *lay = ch->layout;
    const size_t nb = lay->nblocks;
    const uint32_t nc = lay->components;
    uint32_t *ds = (uint32_t *)c->sizes;
    const wcg_cblk *hb = (const wcg_cblk *)c->h_blocks;
    WC_FORWARD_IF_ERROR(ensure_tail(c, err));
    uint32_t *done = (uint32_t *)c->done;
    WC_FORWARD_IF_ERROR(ensure_payload_events(c, 16, err));
    c->payload_by_comp = 1;
    size_t region[4]; /* each component's first slot */
    for (uint32_t k = 0; k < nc; k++) region[k] = job->count[k] ? hb[job->first[k]].slot : 0;
    /* The flag, the CRC words and the counts cleared before c->tail
     * waits on any count (a count left from the last call would pass). */
    CUDA_TRY(err, cudaMemsetAsync(ds + nb, 0, 20, c->stream), "clearing a flag");
    CUDA_TRY(err, cudaMemsetAsync(done, 0, 16, c->stream), "clearing block counts");
    CUDA_TRY(err, cudaEventRecord(c->strip_ev[13], c->stream), "clearing block counts");
    CUDA_TRY(err, cudaStreamWaitEvent(c->tail, c->strip_ev[13], 0), "clearing block counts");
    CUDA_TRY(err, mark(c, 4), "timing");
    wcg_bc_job counted = *job;
    counted.done = done;
    /* The launch first: a wait queued on a count that no launch will
     * reach would hang c->tail. */
    CUDA_TRY(err,
             wcg_bc_emit(&counted, (const wcg_huf *)c->tabs, (uint8_t *)c->slots, ds, c->stream),
             "coding blocks");
    wc_status s = queue_packs(c, job, nc, region, err);
    if (s == WC_OK) {
        c->clk_t[1] = now_s();
        s = code_split_host(c, ch, job, out, region, err);
    }
    /* The next call's work on c->stream after this one's packs and copies
     * (they read the slots and payload it will overwrite). */
    cudaEventRecord(c->strip_ev[14], c->tail);
    cudaStreamWaitEvent(c->stream, c->strip_ev[14], 0);
    cudaEventRecord(c->strip_ev[15], c->side);
    cudaStreamWaitEvent(c->stream, c->strip_ev[15], 0);
    if (s != WC_OK) {
        cudaStreamSynchronize(c->tail);
        cudaStreamSynchronize(c->side); /* nothing may land in h_payload later */
        return s;
    }
    uint8_t *h = (uint8_t *)c->h_payload;
    out->data_borrowed = 1;
    for (uint32_t k = 0; k < nc; k++) { /* data_size: code_split_host's */
        out->data[k] = h + c->payload_base[k];
        out->data_crc[k] = out->data_size[k] ? ~((const uint32_t *)c->h_sizes)[nb + 1 + k] : 0;
    }
    out->data_wait = payload_wait;
    out->data_wait_arg = c;
    out->have_data_crc = 1;
    return WC_OK;
}

/* Codes every block (emitted: the last probe did), packs the payload and
 * brings it and the sizes back. */
wc_status device_code(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job, es_output *out,
                      bool emitted, wc_err *err)
{
    WC_FORWARD_IF_ERROR(device_emit(c, ch, job, (uint8_t *)c->payload, emitted, err));
    c->clk_t[1] = now_s();
    return device_finish(c, ch, out, 0, false, err);
}

static wc_status check_against_emit(cuda_ctx *c, const wc_chain *ch, const wcg_bc_job *job,
                                    const es_output *sized, wc_err *err)
{
    es_output full;
    memset(&full, 0, sizeof full);
    wc_status s = device_code(c, ch, job, &full, false, err);
    for (size_t i = 0; s == WC_OK && i < ch->layout->nblocks; i++)
        if (full.block_size[i] != sized->block_size[i])
            s = wc_fail(err, WC_ERR_BACKEND,
                        "CUDA backend: block %zu sized at %u bytes, emitted in %u", i,
                        sized->block_size[i], full.block_size[i]);
    es_output_free(&full);
    return s;
}

/* WC_CUDA_GRAPH picks a batch's encode: "0" the chain's calls one by
 * one (the version before g1, for comparison in one binary); "copy" a
 * graph a shape, the payload copied down after the sizes' wait (g1);
 * "mapped" the same graph, whose pack writes the payload straight into
 * the pinned host buffer (g2). Unset: g2 where the slots' bound (the
 * pinned buffer it needs, a worker each) is at most kMappedSlotsMax, g1
 * above. g2 coded the Kodak batch at 7,307 images/s against g1's 5,750
 * (16 workers, one run: cuda/PERF_NOTES.md, "g2 timed"). */
enum { GRAPH_OFF, GRAPH_COPY, GRAPH_MAPPED };
const size_t kMappedSlotsMax = (size_t)32 << 20;

static int graph_mode(size_t slots)
{
    const char *e = getenv("WC_CUDA_GRAPH");
    if (!e) return slots <= kMappedSlotsMax ? GRAPH_MAPPED : GRAPH_COPY;
    if (strcmp(e, "0") == 0) return GRAPH_OFF;
    return strcmp(e, "mapped") == 0 ? GRAPH_MAPPED : GRAPH_COPY;
}

/* What a batch worker's graph holds: the chain from the samples (in the
 * pinned stage, or already on the device) to the sizes on the host. */
struct chain_calls {
    cuda_ctx *c;
    const wc_stage_plan *p;
    const wc_image *in;
    const wc_chain *ch;
    wcg_bc_job *job;
    bool staged;
    uint8_t *pack_to;
};

static wc_status queue_chain(void *arg, wc_err *err)
{
    chain_calls *q = (chain_calls *)arg;
    cuda_ctx *c = q->c;
    const wc_stage_plan *p = q->p;
    if (q->staged) {
        const size_t row = host_row_bytes(p);
        CUDA_TRY(err,
                 cudaMemcpy2DAsync(c->px, device_row_bytes(p), c->stage, row, row, p->height,
                                   cudaMemcpyHostToDevice, c->stream),
                 "uploading the samples");
    }
    WC_FORWARD_IF_ERROR(device_forward(c, p, q->in, q->job, true, err));
    CUDA_TRY(err,
             cudaMemcpyAsync(c->blocks, c->h_blocks, q->ch->layout->nblocks * sizeof(wcg_cblk),
                             cudaMemcpyHostToDevice, c->stream),
             "uploading block descriptors");
    WC_FORWARD_IF_ERROR(device_tables(c, q->ch, q->job, err));
    return device_emit(c, q->ch, q->job, q->pack_to, false, err);
}

/* Payloads under this size get their CRCs from the container on the host
 * in a batch's graph path: ~10 us for a Kodak image's ~100 KB, against
 * three more calls on the stream (a clear, the kernel, a copy). */
const size_t kGraphHostCrcBelow = (size_t)1 << 20;

/* A batch worker's encode (wc_chain.repeats): the samples copied into the
 * pinned stage on the host (or, from pinned or device memory, up before
 * the graph), the chain as one launch of the shape's graph
 * (encode_graph.h), then device_finish: the sizes' wait, the payload. */
static wc_status encode_graph(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in,
                              const wc_chain *ch, wcg_bc_job *job, size_t slots, bool mapped,
                              es_output *out, wc_err *err)
{
    /* Mapped: the pinned payload holds the slots' bound, as c->payload
     * does (a pinned allocation is the device's memory too, under CUDA's
     * unified addressing). */
    if (mapped)
        WC_FORWARD_IF_ERROR(grow_pinned(&c->h_payload, &c->h_payload_cap, slots + 4, err,
                                        "allocating the pinned payload"));
    uint8_t *pack_to = (uint8_t *)(mapped ? c->h_payload : c->payload);
    const bool staged = staged_upload(p, in->pixels);
    if (staged) {
        const size_t row = host_row_bytes(p), stride = in->stride ? in->stride : row;
        WC_FORWARD_IF_ERROR(ensure_stage(c, row * p->height, err));
        row_copy j = {(const uint8_t *)in->pixels, (uint8_t *)c->stage, stride, row, row, 0};
        wc_parallel_for(p->threads, p->height, stage_row, &j);
    } else {
        WC_FORWARD_IF_ERROR(upload_samples(c, p, in, err));
    }
    coder_planes(c, p, job);
    graph_key k;
    graph_key_make(c, p, job, ch->layout->nblocks, slots, ch->header->entropy, ch->header->flags,
                   staged, pack_to, &k);
    chain_calls q = {c, p, in, ch, job, staged, pack_to};
    WC_FORWARD_IF_ERROR(graph_launch(c, &k, queue_chain, &q, err));
    c->clk_t[1] = now_s();
    return device_finish(c, ch, out, kGraphHostCrcBelow, mapped, err);
}

/* The blocks c->blocks and h_blocks describe now (ensure_coder's
 * `described`). */
static void described_as(cuda_ctx *c, const wc_layout *lay, size_t slots)
{
    c->desc_lay = lay;
    c->desc_n = lay->nblocks;
    c->desc_slots = slots;
}

/* WC_CUDA_CLOCKS: one full encode's host clocks into the sums. */
static void add_clocks(cuda_ctx *c)
{
    if (!c->clocks) return;
    const double end = now_s();
    c->clk_sum[0] += c->clk_t[1] - c->clk_t[0];
    c->clk_sum[1] += c->clk_t[2] - c->clk_t[1];
    c->clk_sum[2] += end - c->clk_t[2];
    c->clk_sum[3] += end - c->clk_t[0];
    c->clk_n++;
}

wc_status encode_on_device(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_chain *ch,
                           es_output *out, wc_err *err)
{
    const wc_layout *lay = ch->layout;
    WC_RETURN_IF(lay->nblocks > 0xFFFFFFFFu, err, WC_ERR_LIMIT,
                 "CUDA backend: too many code blocks");
    /* A rate-control probe of the image the last encode uploaded. */
    const size_t stride = in->stride ? in->stride : host_row_bytes(p);
    const uint32_t shape[4] = {p->width, p->height, p->components, p->bit_depth};
    const bool keep = ch->same_samples && c->px_src == in->pixels && c->px_stride == stride &&
                      memcmp(c->px_shape, shape, sizeof shape) == 0;
    /* The payload of the size-only probe just made (still on the device),
     * or a size-only probe: entropy 0 with count's block histograms. */
    const bool reuse = ch->emit_last && c->sized && keep;
    /* and its blocks are in the slots already (an emitting probe's) */
    const bool reuse_emitted = reuse && c->emitted;
    const bool sized = !reuse && ch->size_only && ch->header->entropy == 0 &&
                       wcg_bc_count_keeps_blocks() && size_probes();
    /* Other Huffman probes emit, but only their sizes come back. */
    const bool emitted = !reuse && !sized && ch->size_only && !arith_of(ch) && size_probes();
    const bool probe = sized || emitted;
    /* The blocks the last encode described and uploaded are these. */
    const bool described = keep && c->desc_lay == lay && c->desc_n == lay->nblocks && probe_desc();
    const double since_last = now_s() - c->last_end;
    WC_FORWARD_IF_ERROR(begin_call(c, p, err)); /* clears c->sized and c->desc_lay */
    c->clk_t[0] = now_s();
    WC_FORWARD_IF_ERROR(ensure_buffers(c, p, 0, err));
    size_t slots = 0;
    WC_FORWARD_IF_ERROR(ensure_coder(c, p, lay, &slots, described, err));
    if (sized)
        WC_FORWARD_IF_ERROR(grow(&c->block_hist, &c->block_hist_cap,
                                 (lay->nblocks ? lay->nblocks : 1) * WCG_BLOCK_HIST_WORDS * 4, err,
                                 "allocating block histograms"));
    if (arith_of(ch)) WC_FORWARD_IF_ERROR(ensure_ac_work(c, lay->nblocks, err));
    wcg_bc_job job = {};
    job.blocks = (const wcg_cblk *)c->blocks;
    job.nblocks = (uint32_t)lay->nblocks;
    job.components = p->components;
    job.run_max = run_max_of(ch->header);
    job.tiled = ch->header->entropy == 2;
    job.block_hist = sized ? (uint32_t *)c->block_hist : nullptr;
    job.hist_packed = probe_packed();
    job.one_row = dec_switch("WC_CUDA_WIDE_ROWS", 1, 0, 1) == 0;
    if (!arith_of(ch) && !emit_walks())
        for (uint32_t k = 0; k < p->components; k++)
            job.tok[k] = (uint8_t *)c->slots + tokens_at(slots) + k * coef_elems(p);
    for (uint32_t k = 0; k < p->components; k++) {
        const size_t end = k + 1 < lay->components ? lay->first_block[k + 1] : lay->nblocks;
        job.first[k] = (uint32_t)lay->first_block[k];
        job.count[k] = (uint32_t)(end - lay->first_block[k]);
    }
    const double t_start = now_s();
    c->host_t[0] = t_start;
    const int graph =
        ch->repeats && !probe && !reuse && !arith_of(ch) ? graph_mode(slots) : GRAPH_OFF;
    if (graph != GRAPH_OFF) {
        WC_FORWARD_IF_ERROR(
            encode_graph(c, p, in, ch, &job, slots, graph == GRAPH_MAPPED, out, err));
        c->px_src = in->pixels;
        c->px_stride = stride;
        memcpy(c->px_shape, shape, sizeof shape);
        described_as(c, lay, slots);
        add_clocks(c);
        /* One launch: the transform's share is not told apart. */
        ch->t_transform = 0;
        ch->t_entropy = now_s() - t_start;
        ch->where = "device (a graph a shape)";
        return WC_OK;
    }
    CUDA_TRY(err, cudaEventRecord(c->ev[0], c->stream), "timing");
    if (reuse)
        coder_planes(c, p, &job);
    else
        WC_FORWARD_IF_ERROR(device_forward(c, p, in, &job, keep, err));
    c->px_src = in->pixels;
    c->px_stride = stride;
    memcpy(c->px_shape, shape, sizeof shape);
    CUDA_TRY(err, cudaEventRecord(c->ev[1], c->stream), "timing");
    /* No wait here: the coder's work queues behind the transform's. */
    if (!reuse) {
        if (!described)
            CUDA_TRY(err,
                     cudaMemcpyAsync(c->blocks, c->h_blocks, lay->nblocks * sizeof(wcg_cblk),
                                     cudaMemcpyHostToDevice, c->stream),
                     "uploading block descriptors");
        if (!arith_of(ch)) WC_FORWARD_IF_ERROR(device_tables(c, ch, &job, err));
    }
    if (probe) {
        WC_FORWARD_IF_ERROR(device_sizes(c, ch, &job, sized && probe_totals(), emitted, out, err));
        if (sized && check_sizes()) WC_FORWARD_IF_ERROR(check_against_emit(c, ch, &job, out, err));
    } else {
        WC_FORWARD_IF_ERROR(split_code(p, ch) ? device_code_split(c, ch, &job, out, err)
                                              : device_code(c, ch, &job, out, reuse_emitted, err));
    }
    c->sized = probe;
    c->emitted = emitted;
    described_as(c, lay, slots);
    if (!probe) add_clocks(c);
    ch->t_transform = elapsed_s(c->ev[0], c->ev[1]);
    ch->t_entropy = now_s() - t_start - ch->t_transform;
    if (ch->t_entropy < 0) ch->t_entropy = 0;
    if (c->trace) cudaEventSynchronize(c->ev[7]); /* the payload's last piece */
    if (c->trace)
        fprintf(stderr,
                "cuda encode ms: upload+transform %.3f | count %.3f | tables (device) %.3f | "
                "emit %.3f | pack %.3f | sizes+payload down %.3f | entropy wall %.3f | host: "
                "start to sizes %.3f, write_tables %.3f, to the end %.3f, since the last "
                "call %.3f%s\n",
                1e3 * elapsed_s(c->ev[0], c->ev[1]), 1e3 * elapsed_s(c->ev[2], c->ev[3]),
                1e3 * elapsed_s(c->ev[3], c->ev[4]), 1e3 * elapsed_s(c->ev[4], c->ev[5]),
                1e3 * elapsed_s(c->ev[5], c->ev[6]), 1e3 * elapsed_s(c->ev[6], c->ev[7]),
                1e3 * ch->t_entropy, 1e3 * (c->host_t[1] - c->host_t[0]),
                1e3 * (c->host_t[2] - c->host_t[1]), 1e3 * (now_s() - c->host_t[2]),
                1e3 * since_last,
                probe   ? " (sizes only)"
                : reuse ? " (the last probe's)"
                        : "");
    c->last_end = now_s();
    ch->where = reuse   ? "device (the last probe's payload)"
                : probe ? "device (sizes only)"
                        : "device";
    return WC_OK;
}

/* Whether the code blocks are coded on the host: deflate's and filtered
 * deflate's (entropy 4, a plane a block: row_filter.c). */
static int codes_on_host(const wc_chain *ch)
{
    return ch->header->entropy == 1 || ch->header->entropy == 4;
}

wc_status cuda_encode(void *self, const wc_stage_plan *p, const wc_image *in, wc_chain *ch,
                      es_output *out, wc_err *err)
{
    cuda_ctx *c = (cuda_ctx *)self;
    WC_RETURN_IF(!c || !p || !in || !ch || !out || !in->pixels, err, WC_ERR_ARG,
                 "CUDA backend: NULL argument");
    /* Deflate codes on the host, from the device's coefficients. */
    if (codes_on_host(ch))
        return wc_chain_encode_host(wc_backend_cuda(), self, p, in, ch, out, err);
    WC_RETURN_IF(in->width != p->width || in->height != p->height ||
                     in->components != p->components || in->bit_depth != p->bit_depth ||
                     !p->quantize,
                 err, WC_ERR_ARG, "CUDA backend: image and plan disagree");
    WC_FORWARD_IF_ERROR(check_plan(p, NULL, err));
    memset(out, 0, sizeof *out);
    /* Over the device-memory cap (or the device): in strips (h5's hook). */
    const wc_status s = strip_encode_wanted(c, p, ch) ? strip_encode(c, p, in, ch, out, err)
                                                      : encode_on_device(c, p, in, ch, out, err);
    if (s != WC_OK) {
        es_output_free(out);
        /* Leave the stream usable for the next call. */
        cudaStreamSynchronize(c->stream);
        /* An arithmetic-coded block past its slot: the host's coder has
         * room for any block (and writes the same bytes). */
        if (s == WC_ERR_BUFFER && arith_of(ch))
            return wc_chain_encode_host(wc_backend_cuda(), self, p, in, ch, out, err);
    }
    return s;
}

/* Every buffer encode_on_device grows for this plan, sized now: the
 * device's planes, the coder's buffers and their pinned twins, the pinned
 * stage of pageable samples, and a pinned payload of a guess at the coded
 * size (raw bytes / 2 lossless, / 8 lossy; a larger one grows then). */
wc_status cuda_prepare(void *self, const wc_stage_plan *p, const wc_chain *ch, wc_err *err)
{
    cuda_ctx *c = (cuda_ctx *)self;
    WC_RETURN_IF(!c || !p || !ch, err, WC_ERR_ARG, "CUDA backend: NULL argument");
    WC_FORWARD_IF_ERROR(check_plan(p, NULL, err));
    /* An encode in strips allocates its own, under the cap (h5's hook). */
    if (!codes_on_host(ch) && strip_encode_wanted(c, p, ch)) return WC_OK;
    WC_FORWARD_IF_ERROR(begin_call(c, p, err));
    WC_FORWARD_IF_ERROR(ensure_buffers(c, p, 0, err));
    const size_t raw = host_row_bytes(p) * p->height;
    if (staged_upload(p, NULL)) WC_FORWARD_IF_ERROR(ensure_stage(c, raw, err));
    if (ch->header->entropy != 0 || codes_on_host(ch)) return WC_OK; /* coded on the host */
    size_t slots = 0;
    WC_FORWARD_IF_ERROR(ensure_coder(c, p, ch->layout, &slots, false, err));
    const size_t guess = (ch->header->flags & 1) ? raw / 2 : raw / 8;
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_payload, &c->h_payload_cap, guess ? guess : 1, err,
                                    "allocating the pinned payload"));
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "preparing");
    return WC_OK;
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
    for (size_t q = i; q > lay->first_block[k->comp] && lay->blocks[q - 1].band == k->band; q--)
        nth++;
    char what[128];
    const wc_status s = wcg_dec_message(st, what, sizeof what);
    return wc_fail(err, s, "component %u, subband %s, block %zu: %s", k->comp, name, nth, what);
}

/* The decode's choices (PERF_NOTES "Decode latency", k4-k9, p1-p3), with
 * switches for the bench's comparisons in one process. The planes are
 * cleared before the payload goes up, so that the decoder's runs of
 * zeros write nothing (WC_CUDA_DEC_ZEROED=0: not). One launch decodes
 * every block once the whole payload is up (a launch a component as its
 * payload arrived measured slower: PERF_NOTES p2, removed since).
 * Entropy 0's fast look-ups come from 16-bit entries, the thread block's
 * (component, class) copied into its shared memory (WC_CUDA_DEC_TAB=2;
 * =1: the 16-bit entries from global memory, =0: bc_dectab's 32-bit
 * ones), with decode_lean's step (WC_CUDA_DEC_LEAN=0: decode_stream's),
 * its rows above capped where used (WC_CUDA_DEC_LAZY=0: where loaded).
 * Lossy entropy-0 files, whose few dense blocks' chains set the
 * kernel's length: 2 threads a thread block; with 128x128 blocks paired
 * longest with shortest (thread 2i the i-th longest, 2i + 1 the i-th
 * shortest: the pair diverges only until the short one ends;
 * WC_CUDA_DEC_ORDER=2), with smaller ones (four times the blocks: the
 * SMs full) longest first (=1: 9/7 at 1.59 bpp, 64x64, 5.81 ms to
 * pinned memory against 6.24-6.28 paired, PERF_NOTES "Code blocks of 64").
 * Lossless ones, every block dense and the kernel bound by issue: 4
 * threads a thread block, thread blocks of one class each, longest
 * first (=4, by_class_longest_first: the class's table in shared
 * memory serves all four). Otherwise =0: layout order, =1: longest
 * first, =3: each SM the blocks of few (component, class) pairs
 * (by_class_per_sm); WC_CUDA_DEC_LANES: threads a thread block. */
int dec_switch(const char *name, int otherwise, int lo, int hi)
{
    const char *e = getenv(name);
    const int v = e ? atoi(e) : otherwise;
    return v >= lo && v <= hi ? v : otherwise;
}

void tile_geometry(const wcx_header *h, wcg_dec_job *job)
{
    const uint32_t side = 1u << h->block_log2;
    job->tiles_max = bct_count(side, side);
    /* Dense lossless tiles decode fastest 8 a warp, lossy ones (many
     * empty, the rest sparse) 32 (PERF_NOTES t1) */
    job->tile_lanes = (uint32_t)dec_switch("WC_CUDA_TILE_LANES", (h->flags & 1) ? 8 : 32, 1, 32);
}

/* Indices 0..n-1 into out in the order of key(i) < nkeys, stable: a
 * counting sort, O(n + nkeys). */
constexpr size_t kMaxKeys = 4 * WC_NCLASS; /* (component, class) pairs */
static_assert(kMaxKeys >= 34, "the bit lengths of a 32-bit size fit the keys");

template <typename Key> void counting_sort(size_t n, size_t nkeys, Key key, uint32_t *out)
{
    size_t start[kMaxKeys] = {0};
    for (size_t i = 0; i < n; i++) start[key(i)]++;
    size_t at = 0;
    for (size_t b = 0; b < nkeys; b++) {
        const size_t k = start[b];
        start[b] = at;
        at += k;
    }
    for (size_t i = 0; i < n; i++) out[start[key(i)]++] = (uint32_t)i;
}

/* The blocks by payload size, longest first (by the size's bit length,
 * stable within a length); fold: longest and shortest in turn (sorted
 * first into scratch, n entries). */
void longest_first(const uint32_t *size, size_t n, uint32_t *order, bool fold, uint32_t *scratch)
{
    uint32_t *sorted = fold ? scratch : order;
    counting_sort(
        n, 34, [size](size_t i) { return 33 - (size[i] ? 32 - __builtin_clz(size[i]) : 0); },
        sorted);
    for (size_t i = 0; fold && i < n; i++) order[i] = sorted[i & 1 ? n - 1 - i / 2 : i / 2];
}

/* The blocks by (component, class), dealt so that the thread blocks
 * c, c + nsm, c + 2 nsm ... (one SM's where a wave is handed out round
 * robin) hold consecutive ones: entries for nsm * R thread blocks of
 * `lanes`, UINT32_MAX where there is no block; returns their number. */
size_t by_class_per_sm(const wcg_cblk *d, size_t n, unsigned lanes, unsigned nsm, uint32_t *order,
                       uint32_t *sorted)
{
    counting_sort(
        n, 4 * WC_NCLASS, [d](size_t i) { return d[i].comp * WC_NCLASS + d[i].cls; }, sorted);
    const size_t ctas = (n + lanes - 1) / lanes, rounds = (ctas + nsm - 1) / nsm;
    const size_t per = rounds * lanes, total = per * nsm;
    for (size_t q = 0; q < total; q++) {
        const size_t g = q / per, r = q % per / lanes, l = q % lanes;
        order[(r * nsm + g) * lanes + l] = q < n ? sorted[q] : 0xFFFFFFFFu;
    }
    return total;
}

/* The blocks by (component, class), each class's longest first, in
 * thread blocks of `lanes` that hold one class each (the last of a class
 * padded with UINT32_MAX), the thread blocks longest first by their first
 * block (PERF_NOTES k8: a thread block's one class's fast table fits its
 * shared memory, and the densest chains start at once, spread over the
 * SMs). scratch: 2n + ceil(n / lanes) + 4 * WC_NCLASS entries. Returns the
 * entries written to order: at most n + 4 * WC_NCLASS * lanes. */
size_t by_class_longest_first(const wcg_cblk *d, const uint32_t *size, size_t n, unsigned lanes,
                              uint32_t *order, uint32_t *scratch)
{
    uint32_t *bysize = scratch, *grouped = scratch + n, *lead = scratch + 2 * n;
    auto bits = [size](uint32_t i) { return 33 - (size[i] ? 32 - __builtin_clz(size[i]) : 0); };
    auto key = [d](uint32_t i) { return (uint32_t)(d[i].comp * WC_NCLASS + d[i].cls); };
    counting_sort(
        n, 34, [&](size_t i) { return bits((uint32_t)i); }, bysize);
    counting_sort(
        n, 4 * WC_NCLASS, [&](size_t q) { return key(bysize[q]); }, grouped);
    for (size_t q = 0; q < n; q++) grouped[q] = bysize[grouped[q]];
    /* The thread blocks: where each starts in grouped, and how many lanes it fills. */
    size_t nct = 0;
    for (size_t q = 0; q < n;) {
        const uint32_t k0 = key(grouped[q]);
        lead[nct++] = (uint32_t)q;
        size_t k = 0;
        while (q < n && k < lanes && key(grouped[q]) == k0) {
            q++;
            k++;
        }
    }
    uint32_t *ctas = bysize; /* free again */
    counting_sort(
        nct, 34, [&](size_t c) { return bits(grouped[lead[c]]); }, ctas);
    size_t at = 0;
    for (size_t c = 0; c < nct; c++) {
        const size_t q0 = lead[ctas[c]], q1 = ctas[c] + 1 < nct ? lead[ctas[c] + 1] : n;
        for (size_t l = 0; l < lanes; l++) order[at++] = q0 + l < q1 ? grouped[q0 + l] : UINT32_MAX;
    }
    return at;
}

/* The decode's host work beside the payload's staging (upload_gather's
 * side items): item 0 the blocks' offsets, descriptors and order (~0.4
 * ms for 24 K blocks), then the tables a (component, class) an item
 * (es_table_item): 27 items of a colour image over the workers instead
 * of three, one a component. The pinned tables are not cleared first
 * (2.2 MB a colour image, PERF_NOTES k2): a read that succeeds writes
 * every table of its class, unused ones as look-ups that fail; one that
 * fails is not uploaded. */
struct dec_host_work {
    const wc_layout *lay;
    const es_input *in;
    wcg_cblk *d;       /* descriptors, the order behind them */
    size_t *off;       /* block offsets */
    uint32_t *scratch; /* the sorts' */
    int ordered;
    unsigned lanes, nsm;
    size_t used;       /* entries of the order that the kernel reads */
    wc_status blocks;  /* es_block_offsets' verdict */
    wc_err blocks_err; /* and its message */
    es_table_items tables;
};

static void describe_and_order(dec_host_work *w)
{
    const wc_layout *lay = w->lay;
    const es_input *in = w->in;
    w->blocks = es_block_offsets(lay, in, w->off, &w->blocks_err);
    if (w->blocks != WC_OK) return;
    size_t base[4] = {0, 0, 0, 0};
    for (uint32_t k = 1; k < lay->components; k++) base[k] = base[k - 1] + in->data_size[k - 1];
    wcg_cblk *d = w->d;
    describe_blocks(lay, d);
    for (size_t i = 0; i < lay->nblocks; i++) {
        d[i].slot = base[lay->blocks[i].comp] + w->off[i];
        d[i].cap = in->block_size[i];
    }
    uint32_t *o = (uint32_t *)(d + (lay->nblocks ? lay->nblocks : 1));
    if (w->ordered == 3)
        w->used = by_class_per_sm(d, lay->nblocks, w->lanes, w->nsm, o, w->scratch);
    else if (w->ordered == 4)
        w->used = by_class_longest_first(d, in->block_size, lay->nblocks, w->lanes, o, w->scratch);
    else if (w->ordered)
        longest_first(in->block_size, lay->nblocks, o, w->ordered == 2, w->scratch);
}

void dec_host_item(void *arg, size_t i, int worker)
{
    dec_host_work *w = (dec_host_work *)arg;
    if (i == 0)
        describe_and_order(w);
    else
        es_table_item(&w->tables, i - 1, worker);
}

/* decode_on_device's work as each component's payload goes up
 * (upload_gather's ready; PERF_NOTES "t2"): with the first, the host
 * work's verdicts in the CPU decoder's order (es_decode: the index, then
 * the tables, with its messages), the tables and descriptors up, and for
 * a large tiled payload (pipe_min) component k's blocks decoded as soon
 * as its bytes are there, while k + 1's cross; otherwise every block once
 * the last is up. Entropy 0 keeps one launch: its longest chains of every
 * component first beat an earlier start (PERF_NOTES p2); the tiles'
 * chains are short. */
struct dec_pipe {
    cuda_ctx *c;
    wc_chain *ch;
    const wcx_header *h;
    dec_host_work *w;
    wcg_dec_job *job;
    size_t ntab;
    unsigned tab;
    uint16_t *fast16;
    size_t desc;
    size_t total; /* the payload's bytes */
    int split;    /* a launch a component */
};

/* Payloads of fewer bytes decode in one launch: their upload is shorter
 * than the tail a launch a component adds (PERF_NOTES t2: 9/7 at 1.59 bpp,
 * 6.6 MB, decoded 0.6 ms slower in three launches; lossless, 41 MB, 1 ms
 * faster). WC_CUDA_DEC_PIPE_MIN (bytes) sets it, for tests and
 * comparisons. */
constexpr size_t kPipeMin = (size_t)16 << 20;
static size_t pipe_min()
{
    const char *e = getenv("WC_CUDA_DEC_PIPE_MIN");
    return e && *e ? (size_t)strtoull(e, NULL, 10) : kPipeMin;
}

static wc_status dec_piece_ready(void *arg, int k, wc_err *err)
{
    dec_pipe *pipe = (dec_pipe *)arg;
    cuda_ctx *c = pipe->c;
    wcg_dec_job *job = pipe->job;
    dec_host_work &w = *pipe->w;
    const bool arith = arith_of(pipe->ch);
    const int last = (int)pipe->h->components - 1;
    if (k == 0) {
        c->host_t[2] = now_s();
        if (w.blocks != WC_OK) return wc_fail(err, w.blocks, "%s", w.blocks_err.msg);
        job->norder = w.ordered >= 3 ? (uint32_t)w.used : 0;
        WC_FORWARD_IF_ERROR(es_table_items_end(pipe->h, &w.tables, err));
        if (!arith)
            CUDA_TRY(err,
                     cudaMemcpyAsync(c->tabs, c->h_tabs, pipe->ntab * sizeof(bc_dectab),
                                     cudaMemcpyHostToDevice, c->stream),
                     "uploading tables");
        if (pipe->tab)
            CUDA_TRY(err, wcg_dec_fast16(c->tabs, (uint32_t)pipe->ntab, pipe->fast16, c->stream),
                     "16-bit tables");
        CUDA_TRY(
            err,
            cudaMemcpyAsync(c->blocks, c->h_blocks, pipe->desc, cudaMemcpyHostToDevice, c->stream),
            "uploading block descriptors");
        CUDA_TRY(err, cudaMemsetAsync(c->sizes, 0, job->nblocks * 16, c->stream),
                 "clearing block status");
        c->host_t[3] = now_s();
        CUDA_TRY(err, mark(c, 1), "timing");
    }
    if (!pipe->split && k < last) return WC_OK;
    wcg_dec_job sub = *job;
    if (pipe->split) { /* component k's blocks (layout.c: components in turn) */
        const wc_layout *lay = pipe->ch->layout;
        const size_t a = lay->first_block[k];
        const size_t b = k < last ? lay->first_block[k + 1] : lay->nblocks;
        if (a == b) return WC_OK;
        sub.blocks = job->blocks + a;
        sub.nblocks = (uint32_t)(b - a);
        sub.status = job->status + 4 * a;
    }
    CUDA_TRY(err,
             arith ? wcg_ac_decode(&sub, c->ac_work, c->stream) : wcg_bc_decode(&sub, c->stream),
             "decoding blocks");
    if (k == last) CUDA_TRY(err, mark(c, 2), "timing");
    return WC_OK;
}

/* Entropy decoding on the device into the coefficient planes (block
 * layout for DCT/LOT, as the inverse kernels read them). */
wc_status decode_on_device(cuda_ctx *c, const wc_stage_plan *p, wc_chain *ch, const es_input *in,
                           wc_err *err)
{
    const wcx_header *h = ch->header;
    const wc_layout *lay = ch->layout;
    const size_t nb = lay->nblocks ? lay->nblocks : 1;
    WC_RETURN_IF(lay->nblocks > 0xFFFFFFFFu, err, WC_ERR_LIMIT,
                 "CUDA backend: too many code blocks");
    /* Offsets, order and tables on the host while the payload is staged
     * (dec_host_work), their verdicts in the CPU decoder's order. */
    const size_t ntab = (size_t)h->components * WC_NCLASS;
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_tabs, &c->h_tabs_cap, ntab * sizeof(bc_dectab), err,
                                    "allocating pinned tables"));
    c->host_t[0] = now_s();
    /* the offsets, then the sorts' scratch (by_class_longest_first's, the largest) */
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_dec_work, &c->h_dec_work_cap,
                                    nb * sizeof(size_t) + (3 * nb + 4 * WC_NCLASS) * 4, err,
                                    "allocating pinned block offsets"));
    size_t total = 0;
    for (uint32_t k = 0; k < h->components; k++) total += in->data_size[k];
    /* The descriptors, then (entropy 0) the order of the blocks. */
    const bool reversible = (h->flags & 1) != 0;
    const int ordered = !arith_of(ch) && h->entropy == 0 ? dec_switch("WC_CUDA_DEC_ORDER",
                                                                      reversible           ? 4
                                                                      : h->block_log2 >= 7 ? 2
                                                                                           : 1,
                                                                      0, 4)
                                                         : 0;
    int nsm = 1;
    if (ordered == 3 &&
        cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, c->device) != cudaSuccess)
        nsm = 1;
    const unsigned lanes = (unsigned)dec_switch("WC_CUDA_DEC_LANES", reversible ? 4 : 2, 1, 32);
    const size_t extra = ordered == 3   ? (size_t)nsm * lanes
                         : ordered == 4 ? (size_t)4 * WC_NCLASS * lanes
                                        : 0;
    const size_t norder = ordered ? lay->nblocks + extra : 0;
    const unsigned tab =
        !arith_of(ch) && h->entropy == 0 ? (unsigned)dec_switch("WC_CUDA_DEC_TAB", 2, 0, 2) : 0;
    /* (16-bit fast entries behind the tables, 16-byte aligned) */
    const size_t at16 = (ntab * sizeof(bc_dectab) + 15) / 16 * 16;
    const size_t tabs_bytes = tab ? at16 + ntab * WCG_FAST16 * 2 : ntab * sizeof(bc_dectab);
    const size_t desc = nb * sizeof(wcg_cblk) + norder * 4;
    WC_FORWARD_IF_ERROR(grow_pinned(&c->h_blocks, &c->h_blocks_cap, desc, err,
                                    "allocating pinned block descriptors"));
    if (arith_of(ch)) WC_FORWARD_IF_ERROR(ensure_ac_work(c, lay->nblocks, err));
    int blocked = 0;
    for (uint32_t k = 0; k < p->components; k++) blocked |= is_block(p, k);
    if (blocked)
        WC_FORWARD_IF_ERROR(grow(&c->bands, &c->bands_cap, coef_elems(p) * p->components * 4, err,
                                 "allocating the band planes"));
    WC_FORWARD_IF_ERROR(
        grow(&c->payload, &c->payload_cap, total + 8, err, "allocating the payload"));
    WC_FORWARD_IF_ERROR(grow(&c->tabs, &c->tabs_cap, tabs_bytes, err, "allocating tables"));
    WC_FORWARD_IF_ERROR(
        grow(&c->blocks, &c->blocks_cap, desc, err, "allocating block descriptors"));
    WC_FORWARD_IF_ERROR(grow(&c->sizes, &c->sizes_cap, nb * 16, err, "allocating block status"));
    WC_FORWARD_IF_ERROR(
        grow_pinned(&c->h_sizes, &c->h_sizes_cap, nb * 16, err, "allocating pinned status"));
    WC_FORWARD_IF_ERROR(ensure_events(c, err));
    c->host_t[1] = now_s();
    CUDA_TRY(err, mark(c, 0), "timing");
    const size_t n = coef_elems(p);
    int32_t *plane[4] = {};
    for (uint32_t k = 0; k < p->components; k++)
        plane[k] = (int32_t *)((char *)(is_block(p, k) ? c->bands : c->coef) + k * n * 4);
    /* Cleared ahead of the payload, while the host stages its first part. */
    const bool zeroed = !arith_of(ch) && dec_switch("WC_CUDA_DEC_ZEROED", 1, 0, 1) == 1;
    if (zeroed)
        for (uint32_t k = 0; k < p->components; k++)
            CUDA_TRY(err, cudaMemsetAsync(plane[k], 0, n * 4, c->stream), "clearing the planes");
    uint16_t *fast16 = tab ? (uint16_t *)((char *)c->tabs + at16) : NULL;
    const uint32_t *order = (const uint32_t *)((const wcg_cblk *)c->blocks + nb);
    wcg_dec_job job = {};
    job.blocks = (const wcg_cblk *)c->blocks;
    job.nblocks = (uint32_t)lay->nblocks;
    job.data = (const uint8_t *)c->payload;
    job.tabs = c->tabs;
    job.run_max = run_max_of(h);
    job.status = (uint32_t *)c->sizes;
    job.tiled = h->entropy == 2;
    tile_geometry(h, &job);
    job.order = ordered ? order : NULL;
    /* job.norder: below, once the order is made */
    job.lanes = lanes;
    job.zeroed = zeroed;
    job.tab_mode = tab;
    job.fast16 = fast16;
    job.stream_step = dec_switch("WC_CUDA_DEC_LEAN", 1, 0, 1) == 0;
    job.lazy_above = dec_switch("WC_CUDA_DEC_LAZY", 1, 0, 1) == 1;
    for (uint32_t q = 0; q < p->components; q++) job.plane[q] = plane[q];
    /* Offsets, descriptors and order, and the tables, on the workers
     * beside the payload's staging; then their verdicts in the CPU
     * decoder's order (es_decode: the index, then the tables) and with
     * its messages. */
    dec_host_work w = {};
    w.lay = lay;
    w.in = in;
    w.d = (wcg_cblk *)c->h_blocks;
    w.off = (size_t *)c->h_dec_work;
    w.scratch = (uint32_t *)(w.off + nb);
    w.ordered = ordered;
    w.lanes = lanes;
    w.nsm = (unsigned)nsm;
    w.tables = {in, (bc_dectab *)c->h_tabs, 0};
    const size_t ntables = arith_of(ch) ? 0u : (size_t)h->components * WC_NCLASS;
    const gather_side side = {dec_host_item, &w, 1 + ntables};
    dec_pipe pipe = {c, ch, h, &w, &job, ntab, tab, fast16, desc, total, 0};
    pipe.split = job.tiled && !job.order && h->components > 1 && total >= pipe_min();
    /* WC_CUDA_GATHER_LOOPS=1: a loop a piece even so (comparisons). */
    const bool by_piece = pipe.split || dec_switch("WC_CUDA_GATHER_LOOPS", 0, 0, 1) == 1;
    const gather_ready ready = {dec_piece_ready, &pipe, by_piece};
    WC_FORWARD_IF_ERROR(upload_gather(c, (uint8_t *)c->payload, in->data, in->data_size,
                                      (int)h->components, p->threads, &side, &ready, err));
    CUDA_TRY(
        err,
        cudaMemcpyAsync(c->h_sizes, c->sizes, lay->nblocks * 16, cudaMemcpyDeviceToHost, c->stream),
        "downloading block status");
    /* The data's CRCs (es_input.verify), on the host while the device
     * decodes; nothing is written to the output before they pass. */
    c->host_t[5] = now_s();
    if (in->verify) WC_FORWARD_IF_ERROR(in->verify(in->verify_arg, err));
    c->host_t[6] = now_s();
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "decoding blocks");
    c->host_t[4] = now_s();
    const uint32_t *st = (const uint32_t *)c->h_sizes;
    for (size_t i = 0; i < lay->nblocks; i++) /* the first failing block, as the CPU names it */
        if (st[4 * i]) return decode_failure(ch, i, st + 4 * i, err);
    for (uint32_t k = 0; k < p->components; k++)
        if (is_block(p, k))
            CUDA_TRY(err,
                     wcg_bands_to_blocks(plane[k], (int32_t *)((char *)c->coef + k * n * 4),
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
    /* Over the device-memory cap (or the device): in strips (strip_decode.cu). */
    if (strip_decode_wanted(c, p, ch, in)) return strip_decode(c, p, ch, in, out, err);
    /* Deflate decodes on the host, then inverts on the device: the data's
     * CRCs first. */
    if (codes_on_host(ch)) {
        if (in->verify) WC_FORWARD_IF_ERROR(in->verify(in->verify_arg, err));
        return wc_chain_decode_host(wc_backend_cuda(), self, p, ch, in, out, err);
    }
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
    if (s == WC_OK) CUDA_TRY(err, mark(c, 3), "timing");
    if (s == WC_OK) CUDA_TRY(err, cudaStreamSynchronize(c->stream), "inverse transform");
    ch->t_transform = now_s() - t1;
    if (s == WC_OK && c->trace)
        fprintf(stderr,
                "cuda decode ms: upload payload+tables %.3f | decode blocks %.3f | "
                "inverse+download %.3f | entropy wall %.3f | transform wall %.3f | host: "
                "buffers %.3f, payload staging with offsets, order and tables %.3f, to the decode "
                "%.3f, to "
                "the status %.3f (of it the data's CRCs %.3f)\n",
                1e3 * elapsed_s(c->ev[0], c->ev[1]), 1e3 * elapsed_s(c->ev[1], c->ev[2]),
                1e3 * elapsed_s(c->ev[2], c->ev[3]), 1e3 * ch->t_entropy, 1e3 * ch->t_transform,
                1e3 * (c->host_t[1] - c->host_t[0]), 1e3 * (c->host_t[2] - c->host_t[1]),
                1e3 * (c->host_t[3] - c->host_t[2]), 1e3 * (c->host_t[4] - c->host_t[3]),
                1e3 * (c->host_t[6] - c->host_t[5]));
    if (s != WC_OK) cudaStreamSynchronize(c->stream);
    return s;
}

} /* namespace wcgb */
