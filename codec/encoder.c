/*
 * encoder.c -- image to .wcx: plan, the backend's whole chain (colour,
 * transform, quantize, code blocks; with a bpp target its forward, then
 * rate control's probes on the host), container. Nothing here depends on
 * the backend or thread count, so the bytes written never do either.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "context.h"
#include "crc32_fast.h"
#include "dwt.h"
#include "entropy_stage.h"
#include "file_head.h"
#include "layout.h"
#include "lossless_choice.h"
#include "lot8.h"
#include "meta.h"
#include "parallel.h"
#include "plan.h"
#include "quant.h"
#include "palette.h"
#include "ratectl.h"

/* The encoder's working state. */
typedef struct enc_state {
    wc_ctx *ctx;
    const wc_params *p;
    wcx_header h;
    wc_layout lay;
    wc_stage_plan plan;
    int32_t *q[4];   /* quantized planes, band layout for DCT/LOT */
    int32_t *raw[4]; /* rate control: unquantized int (5/3) planes */
    float *f[4];     /* rate control: unquantized float planes */
    const wc_image *img;
    int probes;    /* rate control's probes so far (device path) */
    int no_colour; /* automatic lossless layout: leave out the RCT */
    /* The palette layout (colour 3): h describes the plane of indices
     * coded; the file's header, the image's shape with colour 3. */
    const wcx_palette *pal;
    uint8_t pal_components, pal_bit_depth;
    uint8_t *wpal; /* its WPAL payload (enc_palette_payload) */
    size_t wpal_size;
    double t_planned, t_coded; /* WC_TRACE_ENCODE's timeline: planned, coded */
} enc_state;

/* The header the file carries: h itself, or for a palette file the
 * image's components and bit depth with colour 3, every component given
 * the index plane's wavelet and steps (FORMAT.md, "WPAL"). */
static void enc_file_header(const enc_state *st, wcx_header *fh)
{
    *fh = st->h;
    if (!st->pal) return;
    fh->components = st->pal_components;
    fh->bit_depth = st->pal_bit_depth;
    fh->colour = WCX_COLOUR_PALETTE;
    for (unsigned c = 1; c < fh->components; c++) {
        fh->wavelet[c] = fh->wavelet[0];
        memcpy(fh->steps[c], fh->steps[0], sizeof fh->steps[0]);
    }
    wcx_header_stamp_version(fh);
}

/* A palette candidate's WPAL payload, once its coding (entropy 4 packs
 * the entries when that is smaller) is known. */
static wc_status enc_palette_payload(enc_state *st)
{
    if (!st->pal) return WC_OK;
    return palette_payload(st->pal, st->pal_components, st->pal_bit_depth,
                           st->h.entropy == WC_ENTROPY_FILTERED, &st->wpal, &st->wpal_size,
                           &st->ctx->err);
}

static void free_planes(enc_state *st)
{
    for (int c = 0; c < 4; c++) {
        pool_free(&st->ctx->pool, st->q[c]);
        pool_free(&st->ctx->pool, st->raw[c]);
        pool_free(&st->ctx->pool, st->f[c]);
        st->q[c] = st->raw[c] = NULL;
        st->f[c] = NULL;
    }
    layout_free(&st->lay);
    wc_free(st->wpal);
    st->wpal = NULL;
}

/* The automatic layout's candidates: a kept one takes the place of the
 * best so far (whose planes and payload are freed), a dropped one is freed. */
static void settle_candidate(int keep, enc_state *best, es_output *best_out, enc_state *cand,
                             es_output *cand_out)
{
    if (keep) {
        es_output_free(best_out);
        free_planes(best);
        *best = *cand;
        *best_out = *cand_out;
    } else {
        es_output_free(cand_out);
        free_planes(cand);
    }
}

/* DCT/LOT planes are coded as 64 frequency bands: regroup (into a new
 * plane that takes the old one's place). */
static wc_status to_band_layout(enc_state *st)
{
    int32_t **planes = st->q;
    for (uint32_t c = 0; c < st->h.components; c++) {
        if (st->plan.transform[c] == WC_TRANSFORM_DWT) continue;
        size_t n = (size_t)st->lay.plane_w[c] * st->lay.plane_h[c];
        int32_t *tmp = pool_alloc_array(&st->ctx->pool, n, sizeof(int32_t));
        WC_RETURN_IF(!tmp, &st->ctx->err, WC_ERR_NOMEM, "out of memory (band plane)");
        layout_blocks_to_bands(planes[c], tmp, st->lay.plane_w[c], st->lay.plane_h[c]);
        pool_free(&st->ctx->pool, planes[c]);
        planes[c] = tmp;
    }
    return WC_OK;
}

static void code_times(enc_state *st, double t0) { st->ctx->times.entropy += ctx_now() - t0; }

/* Quantizes the unquantized planes with the header's current steps into
 * q (host-side, exactly as a backend would) and codes them. */
static wc_status enc_code_step(enc_state *st, es_output *out)
{
    for (uint32_t c = 0; c < st->h.components; c++) {
        quant_layout lay = {st->lay.plane_w[c], st->lay.plane_h[c],
                            st->plan.transform[c] != WC_TRANSFORM_DWT, st->h.levels};
        if (wc_plan_is_float(&st->plan, c)) {
            quant_float_plane(st->f[c], st->q[c], &lay, st->h.steps[c], st->plan.threshold[c]);
        } else {
            memcpy(st->q[c], st->raw[c], (size_t)lay.width * lay.height * sizeof(int32_t));
            quant_int_plane(st->q[c], &lay, st->h.steps[c], st->plan.threshold[c]);
        }
    }
    WC_FORWARD_IF_ERROR(to_band_layout(st));
    double t0 = ctx_now();
    wc_status s = es_encode(&st->h, &st->lay, st->q, st->p->threads, st->p->deflate_level,
                            &st->ctx->pool, out, &st->ctx->err);
    code_times(st, t0);
    return s;
}

/* The parts of a single-chunk file (WONE, format 2.0): its record, WPAL
 * payload and planes, when the file is one of entropy 4 without metadata
 * that comes out under WCX_ONE_MAX_FILE bytes; else 0. Small files save
 * the framing of the chunks the parts would have had (24 to 60 bytes). */
static unsigned enc_one_parts(const enc_state *st, const es_output *out, const wcx_header *fh,
                              uint8_t *rec, const uint8_t **part, size_t *part_size)
{
    if (st->h.entropy != WC_ENTROPY_FILTERED || meta_file_bytes(st->p->meta) != 0) return 0;
    unsigned n = 0;
    part_size[n] = wcx_header_size(fh); /* the short record: 21 to 24 bytes */
    wcx_header_write(fh, rec);
    part[n++] = rec;
    if (st->pal) {
        part_size[n] = st->wpal_size;
        part[n++] = st->wpal;
    }
    for (uint32_t c = 0; c < st->h.components; c++) {
        part_size[n] = out->data_size[c];
        part[n++] = out->data[c];
    }
    return wcx_one_size(part_size, n) < WCX_ONE_MAX_FILE ? n : 0;
}

/* The chunks ahead of the data: the record fh, the palette's WPAL, the
 * metadata, the coded planes' tables and index. */
static file_head enc_file_head(const enc_state *st, const wcx_header *fh, const es_output *out)
{
    return (file_head){.h = fh,
                       .wpal = st->pal ? st->wpal : NULL,
                       .wpal_size = st->wpal_size,
                       .meta = st->p->meta,
                       .planes = st->h.components,
                       .tables = out->tables,
                       .table_size = out->table_size,
                       .block_size = out->block_size,
                       .nblocks = st->lay.nblocks,
                       .index_size = out->index_size};
}

/* Exact size of the file the header, layout and payloads make. */
static size_t enc_file_size(const enc_state *st, const es_output *out)
{
    wcx_header fh;
    enc_file_header(st, &fh);
    uint8_t rec[64];
    const uint8_t *part[WCX_ONE_MAX_PARTS];
    size_t part_size[WCX_ONE_MAX_PARTS];
    const unsigned nparts = enc_one_parts(st, out, &fh, rec, part, part_size);
    if (nparts) return wcx_one_size(part_size, nparts);
    const file_head head = enc_file_head(st, &fh, out);
    size_t n = file_head_bytes(&head);
    for (uint32_t c = 0; c < st->h.components; c++) n += WCX_CHUNK_OVERHEAD + out->data_size[c];
    return n + WCX_CHUNK_OVERHEAD; /* WEND */
}

/* A rate-control probe (ratectl.h): the image coded at base step `step`. */
static wc_status code_at_step(void *arg, float step, es_output *out, size_t *file_bytes)
{
    enc_state *st = arg;
    plan_set_step(&st->h, step);
    WC_FORWARD_IF_ERROR(enc_code_step(st, out));
    *file_bytes = enc_file_size(st, out);
    return WC_OK;
}

/* The stage plan from the header's current steps. */
static void enc_stage_plan(enc_state *st)
{
    const wc_params *p = st->p;
    plan_from_header(&st->h, p->lossless ? 0.0f : p->threshold, &st->plan);
    st->plan.threads = p->threads;
    st->plan.pool = &st->ctx->pool;
    st->plan.band_output = 1; /* to_band_layout is skipped when it happened */
    st->plan.device_memory = p->memory == WC_MEMORY_DEVICE;
    st->plan.stream = p->stream;
    st->plan.max_device_memory = p->max_device_memory;
}

/* A payload that points into the backend's staging buffer, copied out:
 * the automatic layout keeps a candidate while the next one is coded. */
static wc_status own_payload(es_output *out, wc_err *err)
{
    if (!out->data_borrowed) return WC_OK;
    WC_FORWARD_IF_ERROR(es_output_wait(out, err));
    uint8_t *copy[4] = {NULL, NULL, NULL, NULL};
    for (int c = 0; c < 4; c++) {
        if (!out->data[c]) continue;
        copy[c] = wc_malloc(out->data_size[c] ? out->data_size[c] : 1);
        if (!copy[c]) {
            for (int k = 0; k < c; k++) wc_free(copy[k]);
            return wc_fail(err, WC_ERR_NOMEM, "out of memory (%zu-byte payload)",
                           out->data_size[c]);
        }
        memcpy(copy[c], out->data[c], out->data_size[c]);
    }
    for (int c = 0; c < 4; c++) out->data[c] = copy[c];
    out->data_borrowed = 0;
    return WC_OK;
}

/* Rate control keeps its best probe while the next one runs
 * (ratectl_keep_fn). */
static wc_status keep_probe(void *arg, es_output *out)
{
    return own_payload(out, &((enc_state *)arg)->ctx->err);
}

/* A rate-control probe on a device backend: the whole chain at the probe's
 * steps, the samples kept on the device after the first probe. Moving the
 * unquantized planes to the host once and coding every probe there costs
 * far more than the device's transform, quantization and coder per probe.
 * The bytes are the host probe's (backend.h's quantization). size_only
 * and emit_last: wc_chain's; the first probe's path, and where `note`
 * asks this one's too, go to wc_ctx_note. */
static wc_status device_probe(enc_state *st, float step, int size_only, int emit_last,
                              es_output *out, int note)
{
    plan_set_step(&st->h, step);
    enc_stage_plan(st);
    wc_chain chain = {&st->h,    &st->lay, st->p->deflate_level, 0.0,
                      0.0,       NULL,     st->probes++ > 0,     size_only,
                      emit_last, 0};
    memset(out, 0, sizeof *out);
    wc_status s = st->ctx->backend->encode(st->ctx->backend_self, &st->plan, st->img, &chain, out,
                                           &st->ctx->err);
    st->ctx->times.transform += chain.t_transform;
    st->ctx->times.entropy += chain.t_entropy;
    ctx_note_chain(st->ctx, st->probes == 1 || note ? chain.where : NULL);
    if (s != WC_OK) es_output_free(out);
    return s;
}

/* ratectl_code_fn on a device backend: a probe needs only the file's
 * size, so it asks for no payload (wc_chain.size_only; the CUDA backend
 * honours it for entropy 0, its emit, pack and payload download left to
 * finish_probe). */
static wc_status code_at_step_device(void *arg, float step, es_output *out, size_t *file_bytes)
{
    enc_state *st = arg;
    WC_FORWARD_IF_ERROR(device_probe(st, step, 1, 0, out, 0));
    *file_bytes = enc_file_size(st, out);
    return WC_OK;
}

/* ratectl_finish_fn: the kept probe's payload where it was sized only
 * (data[] NULL): emitted from what the device still holds when it was the
 * last probe, else that probe again in full. Its blocks must have the
 * sizes the probe measured (where it brought them: block_size; else its
 * payloads' and index's bytes), or the file would not be the one chosen. */
static wc_status finish_probe(void *arg, float step, int was_last, es_output *out)
{
    enc_state *st = arg;
    if (out->data[0]) return WC_OK;
    es_output full;
    WC_FORWARD_IF_ERROR(device_probe(st, step, 0, was_last, &full, 1)); /* noted: which way */
    int same = 1;
    if (out->block_size)
        for (size_t i = 0; i < st->lay.nblocks; i++)
            same &= full.block_size[i] == out->block_size[i];
    else
        same &= wcx_index_size(full.block_size, st->lay.nblocks) == out->index_size;
    for (uint32_t c = 0; c < st->h.components; c++)
        same &= full.data_size[c] == out->data_size[c] && full.table_size[c] == out->table_size[c];
    if (!same) {
        es_output_free(&full);
        return wc_fail(&st->ctx->err, WC_ERR_BACKEND,
                       "rate control: the kept probe's payload differs from the size it measured");
    }
    es_output_free(out);
    *out = full;
    return WC_OK;
}

/* A large payload chunk: copied and checksummed in pieces on all threads
 * (a lossless 8K photograph's 41 MB take ~20 ms on one), the pieces' CRCs
 * joined with crc32_combine. The bytes are wcx_put_chunk's. */
#define BIG_CHUNK ((size_t)1 << 20)
#define BIG_PIECES 64

typedef struct big_copy {
    const uint8_t *src;
    uint8_t *dst;
    size_t n, per;
    uint32_t crc[BIG_PIECES];
} big_copy;

static void big_piece(void *arg, size_t i, int worker)
{
    (void)worker;
    big_copy *b = arg;
    const size_t off = i * b->per, n = b->n - off < b->per ? b->n - off : b->per;
    memcpy(b->dst + off, b->src + off, n);
    b->crc[i] = wc_crc32(0, b->dst + off, n);
}

static void put_big_chunk(wcx_writer *w, uint32_t type, const uint8_t *data, size_t n, int threads)
{
    uint8_t *dst = n >= BIG_CHUNK ? (wcx_chunk_begin(w, type), wcx_chunk_space(w, n)) : NULL;
    if (!dst) {
        if (n >= BIG_CHUNK) { /* too small a buffer: let the writer say so */
            wcx_write(w, data, n);
            wcx_chunk_end(w);
        } else {
            wcx_put_chunk(w, type, data, n);
        }
        return;
    }
    big_copy b;
    b.src = data;
    b.dst = dst;
    b.n = n;
    b.per = (n + BIG_PIECES - 1) / BIG_PIECES;
    const size_t pieces = (n + b.per - 1) / b.per;
    wc_parallel_for(threads, pieces, big_piece, &b);
    uLong crc = b.crc[0];
    for (size_t i = 1; i < pieces; i++) {
        const size_t len = n - i * b.per < b.per ? n - i * b.per : b.per;
        crc = crc32_combine(crc, b.crc[i], (z_off_t)len);
    }
    wcx_chunk_commit(w, n);
    wcx_chunk_end_crc(w, (uint32_t)crc);
}

/* The WDAT chunks when every CRC is known (the device computed them):
 * each chunk is closed first, its CRC needing none of its bytes, and all
 * the components' payloads are copied in one loop on all threads, one
 * wake-up of the workers instead of one a component (a lossy 8K photo's
 * three chunks are ~2 MB each, where the wake-ups cost as much as the
 * copies). The bytes are put_big_chunk's. */
typedef struct payload_copy {
    const es_output *out;
    uint8_t *dst[4];
    size_t n[4], first[5]; /* first[k]: component k's first piece */
    size_t per;
    const char *_Atomic failed; /* a piece that did not arrive (data_wait) */
} payload_copy;

static void payload_piece(void *arg, size_t i, int worker)
{
    (void)worker;
    payload_copy *pc = arg;
    unsigned k = 0;
    while (i >= pc->first[k + 1]) k++;
    const size_t off = (i - pc->first[k]) * pc->per;
    const size_t n = pc->n[k] - off < pc->per ? pc->n[k] - off : pc->per;
    const es_output *out = pc->out;
    /* A piece waits for its bytes only: the copy of what has landed runs
     * beside the download of the rest. */
    const char *failed = out->data_wait ? out->data_wait(out->data_wait_arg, k, off + n) : NULL;
    if (failed)
        atomic_store(&pc->failed, failed);
    else
        memcpy(pc->dst[k] + off, out->data[k] + off, n);
}

static wc_status put_known_payloads(wcx_writer *w, es_output *out, uint32_t components, int threads,
                                    wc_err *err)
{
    payload_copy pc = {out, {0}, {0}, {0}, 0, NULL};
    size_t total = 0;
    for (uint32_t c = 0; c < components; c++) total += out->data_size[c];
    pc.per = (total + BIG_PIECES - 1) / BIG_PIECES;
    if (pc.per < BIG_CHUNK / 16) pc.per = BIG_CHUNK / 16; /* a piece worth a thread */
    for (uint32_t c = 0; c < components; c++) {
        const size_t n = out->data_size[c];
        wcx_chunk_begin(w, WCX_WDAT);
        uint8_t *dst = wcx_chunk_space(w, n);
        wcx_chunk_commit(w, n);
        wcx_chunk_end_crc(w, out->data_crc[c]);
        pc.dst[c] = dst;
        pc.n[c] = dst ? n : 0; /* no room: the writer has failed, copy nothing */
        pc.first[c + 1] = pc.first[c] + (pc.n[c] + pc.per - 1) / pc.per;
    }
    for (uint32_t c = components; c < 4; c++) pc.first[c + 1] = pc.first[c];
    if (pc.first[components] == 1 || total < BIG_CHUNK)
        for (size_t i = 0; i < pc.first[components]; i++) payload_piece(&pc, i, 0);
    else
        wc_parallel_for(threads, pc.first[components], payload_piece, &pc);
    const char *failed = atomic_load(&pc.failed);
    WC_RETURN_IF(failed, err, WC_ERR_BACKEND, "the payload did not arrive: %s", failed);
    /* All of it, also where the writer had no room and copied nothing. */
    return es_output_wait(out, err);
}

static wc_status write_file(const enc_state *st, es_output *out, uint8_t *dst, size_t cap,
                            size_t *written, double *t_head)
{
    wcx_writer w;
    wcx_writer_init(&w, dst, cap);
    wcx_header fh;
    enc_file_header(st, &fh);
    uint8_t rec[64];
    const uint8_t *part[WCX_ONE_MAX_PARTS];
    size_t part_size[WCX_ONE_MAX_PARTS];
    const unsigned nparts = enc_one_parts(st, out, &fh, rec, part, part_size);
    if (nparts) {
        WC_FORWARD_IF_ERROR(es_output_wait(out, &st->ctx->err));
        wcx_one_put(&w, part, part_size, nparts);
        wcx_writer_finish(&w, written);
        return WC_OK;
    }
    const file_head head = enc_file_head(st, &fh, out);
    file_head_put(&w, &head);
    if (t_head) *t_head = ctx_now();
    if (out->have_data_crc) {
        WC_FORWARD_IF_ERROR(
            put_known_payloads(&w, out, st->h.components, st->p->threads, &st->ctx->err));
    } else {
        WC_FORWARD_IF_ERROR(es_output_wait(out, &st->ctx->err));
        for (uint32_t c = 0; c < st->h.components; c++)
            put_big_chunk(&w, WCX_WDAT, out->data[c], out->data_size[c], st->p->threads);
    }
    wcx_put_chunk(&w, WCX_WEND, NULL, 0);
    wcx_writer_finish(&w, written);
    return WC_OK;
}

/* Rate control's planes: the quantized one each probe codes, and the
 * unquantized one (float or int) the probes start from. */
static wc_status alloc_planes(enc_state *st)
{
    for (uint32_t c = 0; c < st->h.components; c++) {
        size_t n = (size_t)st->lay.plane_w[c] * st->lay.plane_h[c];
        st->q[c] = pool_alloc_array(&st->ctx->pool, n, sizeof(int32_t));
        WC_RETURN_IF(!st->q[c], &st->ctx->err, WC_ERR_NOMEM, "out of memory (%zu coefficients)", n);
        if (wc_plan_is_float(&st->plan, c))
            st->f[c] = pool_alloc_array(&st->ctx->pool, n, sizeof(float));
        else
            st->raw[c] = pool_alloc_array(&st->ctx->pool, n, sizeof(int32_t));
        WC_RETURN_IF(!st->f[c] && !st->raw[c], &st->ctx->err, WC_ERR_NOMEM,
                     "out of memory (%zu coefficients)", n);
    }
    return WC_OK;
}

/* The header, layout and stage plan of an image of img's shape. */
static wc_status enc_plan(enc_state *st, const wc_image *img)
{
    const wc_params *p = st->p;
    plan_header(p, img, plan_base_step(p), &st->h);
    if (st->no_colour && st->h.colour != WC_COLOUR_NONE) {
        st->h.colour = WC_COLOUR_NONE;
        wcx_header_stamp_version(&st->h); /* a coding field changed */
    }
    WC_FORWARD_IF_ERROR(layout_build(&st->h, WC_MAX_BLOCKS, &st->lay, &st->ctx->err));
    enc_stage_plan(st);
    return WC_OK;
}

/* Plan, transform and code; leaves the payloads in *out. */
static wc_status encode_payloads(enc_state *st, const wc_image *img, es_output *out)
{
    const wc_params *p = st->p;
    wc_err *err = &st->ctx->err;
    WC_FORWARD_IF_ERROR(enc_plan(st, img));
    const int rate = !p->lossless && p->bpp > 0;
    WC_FORWARD_IF_ERROR(ctx_backend(st->ctx, p->backend));
    st->t_planned = ctx_now();
    if (!rate) {
        /* The whole chain on the backend: samples in, coded blocks out. */
        st->plan.quantize = 1;
        wc_chain chain = {&st->h, &st->lay, p->deflate_level, 0.0, 0.0, NULL, 0,
                          0,      0,        st->ctx->in_batch};
        wc_status s =
            st->ctx->backend->encode(st->ctx->backend_self, &st->plan, img, &chain, out, err);
        st->ctx->times.transform = chain.t_transform;
        st->ctx->times.entropy = chain.t_entropy;
        ctx_note_chain(st->ctx, chain.where);
        return s;
    }
    /* A bpp target searches the step (ratectl_search) to within 0.5% under
     * it, probing coded sizes; ratectl.h's counted rule (0-6% under) is the
     * encoder by rows' way, where the image is not held (stream_encoder.c). */
    if (st->ctx->backend == wc_backend_cuda()) { /* each probe on the device */
        st->img = img;
        double t0 = ctx_now();
        float step_found = 0.0f;
        wc_status s =
            ratectl_search(p->bpp, (uint64_t)st->h.width * st->h.height, code_at_step_device,
                           keep_probe, finish_probe, st, out, &step_found, err);
        if (s == WC_OK) plan_set_step(&st->h, step_found);
        st->ctx->times.rate = ctx_now() - t0 - st->ctx->times.entropy - st->ctx->times.transform;
        return s;
    }
    /* A bpp target: the unquantized planes from the backend, then each
     * probe of the search quantized and coded on the host. */
    WC_FORWARD_IF_ERROR(alloc_planes(st));

    wc_coeffs co = {{0}, {0}, st->h.components, {NULL}, {NULL}, 0, 0};
    for (uint32_t c = 0; c < st->h.components; c++) {
        co.width[c] = st->lay.plane_w[c];
        co.height[c] = st->lay.plane_h[c];
        co.q[c] = st->raw[c] ? st->raw[c] : st->q[c];
        co.f[c] = st->f[c];
    }
    st->plan.quantize = 0;
    double t0 = ctx_now();
    wc_status s = st->ctx->backend->forward(st->ctx->backend_self, &st->plan, img, &co, err);
    st->ctx->times.transform = ctx_now() - t0;
    if (s != WC_OK) return s;
    t0 = ctx_now();
    float step_found = 0.0f;
    s = ratectl_search(p->bpp, (uint64_t)st->h.width * st->h.height, code_at_step, NULL, NULL, st,
                       out, &step_found, err);
    if (s == WC_ERR_ARG && wc_meta_count(p->meta)) { /* ratectl cannot say why */
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, " with its metadata");
    }
    /* The header must carry the steps the payloads were coded with. */
    if (s == WC_OK) plan_set_step(&st->h, step_found);
    st->ctx->times.rate = ctx_now() - t0 - st->ctx->times.entropy;
    return s;
}

/* Peak memory of an encode, the image included: per component its
 * quantized plane (4 bytes a coefficient; DCT/LOT planes padded to
 * multiples of 8), for a float component (9/7, DCT, LOT) a float plane and,
 * when padding is needed, a padded copy (neither for a DCT image without
 * alpha, which dct_strips codes in strips); with a bpp target the unquantized
 * plane too; the transform's scratch; then the coded payloads and the file
 * made from them, taken as the raw samples' size lossless (a little more
 * for noise) and half of it lossy; and a fixed part for the program,
 * threads and zlib. */
#define ENCODE_FIXED_BYTES ((uint64_t)8 << 20)

uint64_t wc_encode_memory(const wc_image *img, const wc_params *p)
{
    if (!img || !p || img->components < 1 || img->components > 4) return 0;
    const uint64_t w = img->width, h = img->height;
    const uint64_t raw = w * h * img->components * (img->bit_depth > 8 ? 2 : 1);
    const int rate = !p->lossless && p->bpp > 0;
    /* A DCT image without alpha goes through dct_strips: no float planes. */
    const int strips =
        !p->lossless && !rate && p->transform == WC_TRANSFORM_DCT && img->components % 2 == 1;
    uint64_t need = ENCODE_FIXED_BYTES + raw + (p->lossless ? raw + raw / 8 : raw / 2) * 2;
    /* The automatic lossless layout's palette: the plane of indices (a
     * byte a pixel) and, for pixels in device memory, their host copy. */
    if (p->lossless && p->levels == WC_LEVELS_AUTO)
        need += w * h + (p->memory == WC_MEMORY_DEVICE ? raw : 0);
    /* Filtered deflate asked for; the automatic layout tries it only
     * where it fits under max_memory (lc_candidates). */
    if (p->lossless && p->entropy == WC_ENTROPY_FILTERED) need += lc_filtered_memory(img);
    for (uint32_t c = 0; c < img->components; c++) {
        const int alpha = layout_is_alpha(img->components, c);
        const int tf = p->lossless || alpha ? WC_TRANSFORM_DWT : (int)p->transform;
        const int wavelet = p->lossless || alpha ? 53 : p->wavelet ? p->wavelet : 97;
        const uint64_t pw = tf == WC_TRANSFORM_DWT ? w : (w + 7) & ~7ull;
        const uint64_t ph = tf == WC_TRANSFORM_DWT ? h : (h + 7) & ~7ull;
        const int is_float = tf != WC_TRANSFORM_DWT || dwt_family(wavelet) == 97;
        need += pw * ph * 4 * (1 + (uint64_t)rate);
        if (is_float && !strips) need += w * h * 4 + (pw != w || ph != h ? pw * ph * 4 : 0);
        if (tf == WC_TRANSFORM_LOT)
            need += (uint64_t)lot8_scratch_elems((uint32_t)pw, (uint32_t)ph) * 4;
        else if (tf == WC_TRANSFORM_DWT)
            need += (uint64_t)dwt_scratch_elems((uint32_t)pw, (uint32_t)ph) * 4;
    }
    return need;
}

static wc_status check_limits(const wc_params *p, const wc_image *img, wc_err *err)
{
    const uint64_t pixels = (uint64_t)img->width * img->height;
    const uint64_t max_px = p->max_pixels ? p->max_pixels : WC_DEFAULT_MAX_PIXELS;
    WC_RETURN_IF(pixels > max_px, err, WC_ERR_LIMIT,
                 "image %ux%u (%llu pixels) exceeds the limit of %llu pixels", img->width,
                 img->height, (unsigned long long)pixels, (unsigned long long)max_px);
    const uint64_t need = wc_encode_memory(img, p);
    WC_RETURN_IF(p->max_memory && need > p->max_memory, err, WC_ERR_LIMIT,
                 "image %ux%u x%u needs about %llu bytes to encode, over the memory limit of %llu",
                 img->width, img->height, img->components, (unsigned long long)need,
                 (unsigned long long)p->max_memory);
    return WC_OK;
}

/* WC_TRACE_ENCODE=1: the host's timeline of each encode of one layout on
 * stderr, in ms: the part of a device encode's wall time that no stage of
 * wc_times counts (checks, plan, the file's size, the output buffer,
 * freeing) shows here. */
static int trace_encode(void)
{
    const char *e = getenv("WC_TRACE_ENCODE");
    return e && e[0] == '1';
}

static void trace_timeline(double enter, double checked, const enc_state *st, double settled,
                           double file, double head, double written, double end)
{
    fprintf(stderr,
            "encode host ms: checks %.3f | plan %.3f | backend %.3f | file size %.3f | "
            "to the file %.3f | container: head %.3f, payloads %.3f | free %.3f | total %.3f\n",
            1e3 * (checked - enter), 1e3 * (st->t_planned - checked),
            1e3 * (st->t_coded - st->t_planned), 1e3 * (settled - st->t_coded),
            1e3 * (file - settled), 1e3 * (head > file ? head - file : 0.0),
            1e3 * (written - (head > file ? head : file)), 1e3 * (end - written),
            1e3 * (end - enter));
}

static wc_status encode(wc_ctx *ctx, const wc_params *p, const wc_image *img, void *dst, size_t cap,
                        void **alloc_out, size_t *written)
{
    if (!ctx) return WC_ERR_ARG;
    const double t_enter = ctx_now();
    ctx_begin(ctx);
    ctx_use_device(ctx, p);
    WC_FORWARD_IF_ERROR(plan_check(p, img, &ctx->err));
    WC_FORWARD_IF_ERROR(check_limits(p, img, &ctx->err));
    /* Levels WC_LEVELS_AUTO: one layout, or for a lossless image that
     * looks synthetic several, each coded in full; the smallest file is
     * kept (the first of equal sizes, so the choice is deterministic). */
    lc_candidate cand[LC_MAX_CANDIDATES];
    int synthetic = 0;
    /* Pixels in device memory: a synthetic-looking image comes back to
     * the host too, for the palette (the same file as from host memory). */
    wc_image host = {0, 0, 0, 0, 0, NULL};
    if (p->levels == WC_LEVELS_AUTO && p->lossless)
        WC_FORWARD_IF_ERROR(lc_detect(ctx, p, img, p->memory == WC_MEMORY_DEVICE, &synthetic,
                                      p->memory == WC_MEMORY_DEVICE ? &host : NULL));
    const wc_image *pal_src = p->memory == WC_MEMORY_DEVICE ? &host : img;
    const int ncand = p->levels == WC_LEVELS_AUTO ? lc_candidates(p, img, synthetic, cand) : 1;
    if (p->levels != WC_LEVELS_AUTO) {
        cand[0].p = *p;
        cand[0].no_colour = 0;
    }
    enc_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx; /* free_planes of the empty state before the first kept */
    es_output out;
    memset(&out, 0, sizeof out);
    size_t size = 0;
    wc_status s = WC_OK;
    const double t_checked = ctx_now();
    wc_params kept_p; /* a palette candidate's parameters, once kept */
    /* Each candidate adds to the --verbose note; the kept one's stays. */
    char note0[sizeof ctx->note], note_kept[sizeof ctx->note];
    memcpy(note0, ctx->note, sizeof note0);
    memcpy(note_kept, ctx->note, sizeof note_kept);
    for (int k = 0; k < ncand && s == WC_OK; k++) {
        memcpy(ctx->note, note0, sizeof note0);
        enc_state st_k;
        memset(&st_k, 0, sizeof st_k);
        st_k.ctx = ctx;
        st_k.p = &cand[k].p;
        st_k.no_colour = cand[k].no_colour;
        es_output out_k;
        memset(&out_k, 0, sizeof out_k);
        s = encode_payloads(&st_k, img, &out_k);
        st_k.t_coded = ctx_now();
        size_t size_k = s == WC_OK ? enc_file_size(&st_k, &out_k) : 0;
        const int keep = s == WC_OK && (k == 0 || size_k < size);
        /* A payload the backend lent (CUDA's pinned staging) is overwritten
         * by the next candidate's encode (these, or the palette's below,
         * which run only when these are several): the kept one needs its
         * own copy. */
        if (keep && ncand > 1) s = own_payload(&out_k, &ctx->err);
        settle_candidate(keep && s == WC_OK, &st, &out, &st_k, &out_k);
        if (keep && s == WC_OK) {
            size = size_k;
            memcpy(note_kept, ctx->note, sizeof note_kept);
        }
    }
    const double t_settled = ctx_now();
    /* An image of at most 256 distinct pixels also as a plane of indices
     * into its palette, in each order, with each layout that suits one
     * component (format 2.0, colour 3), kept only when smaller. The index
     * plane is on the host, wherever the pixels were. */
    wcx_palette pal[PALETTE_ORDERS];
    int npal = 0;
    for (int o = 0; o < PALETTE_ORDERS && s == WC_OK && ncand > 1 && pal_src->pixels; o++) {
        const palette_order order = (palette_order)(PALETTE_BY_LUMA + o);
        if (!palette_build(pal_src, order, &pal[o])) break;
        wc_image idx = {0, 0, 0, 0, 0, NULL};
        s = palette_indices(pal_src, &pal[o], &idx, &ctx->err);
        lc_candidate pcand[LC_MAX_CANDIDATES];
        const int nk = s == WC_OK ? lc_candidates(p, &idx, 1, pcand) : 0;
        for (int k = 0; k < nk && s == WC_OK; k++, npal++) {
            pcand[k].p.memory = WC_MEMORY_HOST;
            pcand[k].p.stream = NULL;
            memcpy(ctx->note, note0, sizeof note0);
            enc_state st_k;
            memset(&st_k, 0, sizeof st_k);
            st_k.ctx = ctx;
            st_k.p = &pcand[k].p;
            st_k.pal = &pal[o];
            st_k.pal_components = (uint8_t)img->components;
            st_k.pal_bit_depth = (uint8_t)img->bit_depth;
            es_output out_k;
            memset(&out_k, 0, sizeof out_k);
            s = encode_payloads(&st_k, &idx, &out_k);
            if (s == WC_OK) s = enc_palette_payload(&st_k);
            size_t size_k = s == WC_OK ? enc_file_size(&st_k, &out_k) : 0;
            const int keep = s == WC_OK && size_k < size;
            if (keep) s = own_payload(&out_k, &ctx->err); /* as above */
            settle_candidate(keep && s == WC_OK, &st, &out, &st_k, &out_k);
            if (keep && s == WC_OK) {
                /* pcand goes out of scope: the kept parameters live on */
                kept_p = pcand[k].p;
                st.p = &kept_p;
                size = size_k;
                memcpy(note_kept, ctx->note, sizeof note_kept);
            }
        }
        wc_image_free(&idx);
    }
    wc_image_free(&host);
    if (ncand > 1 && s == WC_OK) {
        memcpy(ctx->note, note_kept, sizeof note_kept);
        size_t n = strlen(ctx->note);
        char what[80] = "";
        if (st.pal)
            snprintf(what, sizeof what, "palette of %u colours (%s order), ", st.pal->count,
                     st.pal == &pal[0]   ? "luminance"
                     : st.pal == &pal[1] ? "first-seen"
                                         : "most-frequent-first");
        snprintf(ctx->note + n, sizeof ctx->note - n,
                 "%slossless layout: %s%d level(s), %s%s (the smallest of %d tried)", n ? "; " : "",
                 what, st.h.levels,
                 st.h.entropy == WC_ENTROPY_DEFLATE    ? "deflate"
                 : st.h.entropy == WC_ENTROPY_FILTERED ? "filtered deflate"
                                                       : "Huffman",
                 st.no_colour ? ", no colour transform" : "", ncand + npal);
    }
    double t_file = 0.0, t_head = 0.0, t_written = 0.0;
    if (s == WC_OK) {
        double t0 = t_file = ctx_now();
        if (alloc_out) {
            dst = *alloc_out = wc_malloc(size);
            cap = size;
            if (!dst) s = wc_fail(&ctx->err, WC_ERR_NOMEM, "out of memory (%zu-byte output)", size);
        } else if (cap < size) {
            s = wc_fail(&ctx->err, WC_ERR_BUFFER, "output needs %zu bytes, buffer has %zu", size,
                        cap);
        }
        if (s == WC_OK) s = write_file(&st, &out, dst, cap, written, &t_head);
        t_written = ctx_now();
        ctx->times.container = t_written - t0;
    }
    es_output_free(&out);
    free_planes(&st);
    /* The context keeps its large buffers for the next call (planes, the
     * entropy stage's symbols, blocks and payloads), within what this
     * call's estimate counts for them: all of it but the caller's image. */
    const uint64_t need = wc_encode_memory(img, p);
    const uint64_t image =
        (uint64_t)img->width * img->height * img->components * (img->bit_depth > 8 ? 2 : 1);
    pool_keep(&ctx->pool, need > image ? (size_t)(need - image) : 0);
    if (s == WC_OK && ncand == 1 && trace_encode())
        trace_timeline(t_enter, t_checked, &st, t_settled, t_file, t_head, t_written, ctx_now());
    return s;
}

/* img's samples in device memory copied into host image out (the same
 * shape, allocated here) by the backend (backend.h's fetch). */
static wc_status fetch_samples(wc_ctx *ctx, const wc_params *p, const wc_image *img, wc_image *out)
{
    *out = (wc_image){img->width, img->height, img->components, img->bit_depth, 0, NULL};
    WC_FORWARD_IF_ERROR(ctx_backend(ctx, p->backend));
    WC_RETURN_IF(!ctx->backend->fetch, &ctx->err, WC_ERR_UNSUPPORTED,
                 "the %s backend reads no device memory", ctx->backend->name);
    WC_RETURN_IF(wc_image_alloc(out) != WC_OK, &ctx->err, WC_ERR_NOMEM,
                 "out of memory (%u x %u samples from the device)", img->width, img->height);
    wc_stage_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.stream = p->stream;
    const wc_status s = ctx->backend->fetch(ctx->backend_self, &plan, img, out, &ctx->err);
    if (s != WC_OK) wc_image_free(out);
    return s;
}

wc_status lc_detect(wc_ctx *ctx, const wc_params *p, const wc_image *img, int on_device,
                    int *synthetic, wc_image *host_copy)
{
    const uint64_t pixels = (uint64_t)img->width * img->height;
    if (host_copy) memset(host_copy, 0, sizeof *host_copy);
    if (!on_device || (pixels <= LC_SMALL_PIXELS && !host_copy)) {
        *synthetic = pixels <= LC_SMALL_PIXELS || lc_looks_synthetic(img);
        return WC_OK;
    }
    /* The pixels are where the host cannot read them. Only the rows the
     * check reads come up (a view of every step-th row: the same pixels,
     * the stride times the step), as they are: a photograph in device
     * memory costs ~2^20 samples across the bus, not all of them (and no
     * pass of the backend: a 0-level forward of those rows cost ~1.1 ms
     * on the 8K photo, PERF_NOTES t6). The whole image comes up only for
     * a synthetic one's host copy. */
    const uint32_t step = lc_row_step(img);
    wc_image rows = *img;
    rows.height = (img->height + step - 1) / step;
    rows.stride = wc_row_stride(img) * step;
    wc_image got;
    WC_FORWARD_IF_ERROR(fetch_samples(ctx, p, &rows, &got));
    *synthetic = pixels <= LC_SMALL_PIXELS || lc_rows_look_synthetic(&got);
    if (!*synthetic || !host_copy) {
        wc_image_free(&got);
        return WC_OK;
    }
    if (step == 1) {
        *host_copy = got;
        return WC_OK;
    }
    wc_image_free(&got);
    return fetch_samples(ctx, p, img, host_copy);
}

wc_status lc_encode_candidate(wc_ctx *ctx, const lc_candidate *c, const wc_image *img, void **file,
                              size_t *size)
{
    enc_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx;
    st.p = &c->p;
    st.no_colour = c->no_colour;
    es_output out;
    memset(&out, 0, sizeof out);
    ctx_begin(ctx);
    wcx_palette pal;
    wc_image idx = {0, 0, 0, 0, 0, NULL};
    wc_status s = WC_OK;
    if (c->palette) {
        WC_RETURN_IF(!palette_build(img, (palette_order)c->palette, &pal), &ctx->err, WC_ERR_ARG,
                     "a palette candidate for an image of more than %u colours", WCX_PALETTE_MAX);
        s = palette_indices(img, &pal, &idx, &ctx->err);
        st.pal = &pal;
        st.pal_components = (uint8_t)img->components;
        st.pal_bit_depth = (uint8_t)img->bit_depth;
    }
    if (s == WC_OK) s = encode_payloads(&st, c->palette ? &idx : img, &out);
    if (s == WC_OK) s = enc_palette_payload(&st);
    if (s == WC_OK) *size = enc_file_size(&st, &out);
    if (s == WC_OK && file) {
        *file = wc_malloc(*size);
        if (!*file) s = wc_fail(&ctx->err, WC_ERR_NOMEM, "out of memory (%zu-byte output)", *size);
        if (s == WC_OK) write_file(&st, &out, *file, *size, size, NULL);
    }
    es_output_free(&out);
    free_planes(&st);
    wc_image_free(&idx);
    return s;
}

wc_status lc_encoded_size(wc_ctx *ctx, const lc_candidate *c, const wc_image *img, size_t *size)
{
    return lc_encode_candidate(ctx, c, img, NULL, size);
}

wc_status wc_encode(wc_ctx *ctx, const wc_params *p, const wc_image *img, void *dst, size_t cap,
                    size_t *written)
{
    if (!dst || !written)
        return ctx ? wc_fail(&ctx->err, WC_ERR_ARG, "no output buffer") : WC_ERR_ARG;
    wc_thread_pool *was = ctx_enter(ctx);
    wc_status s = encode(ctx, p, img, dst, cap, NULL, written);
    ctx_leave(was);
    return s;
}

wc_status wc_encode_alloc(wc_ctx *ctx, const wc_params *p, const wc_image *img, void **out,
                          size_t *out_size)
{
    if (!out || !out_size)
        return ctx ? wc_fail(&ctx->err, WC_ERR_ARG, "no output pointer") : WC_ERR_ARG;
    *out = NULL;
    wc_thread_pool *was = ctx_enter(ctx);
    wc_status s = encode(ctx, p, img, NULL, 0, out, out_size);
    ctx_leave(was);
    if (s != WC_OK) {
        wc_free(*out);
        *out = NULL;
    }
    return s;
}

size_t wc_encode_bound(const wc_image *img, const wc_params *p)
{
    if (!img || !p || img->width == 0 || img->height == 0 || img->components == 0 ||
        img->components > 4)
        return 0;
    /* Padded planes, 8 bytes per coefficient at worst (block_coder.c),
     * a 5-byte index entry and slack per smallest code block, tables. */
    uint64_t pw = ((uint64_t)img->width + 7) & ~7ull, ph = ((uint64_t)img->height + 7) & ~7ull;
    uint64_t coefs = pw * ph * img->components;
    uint64_t blocks = (pw / 16 + 46) * (ph / 16 + 46) * img->components;
    uint64_t n =
        coefs * 8 + blocks * 80 + img->components * 20000ull + 4096 + meta_file_bytes(p->meta);
    return n > SIZE_MAX ? 0 : (size_t)n;
}

/* Start-up without the image: the backend made, a small image of the same
 * kind coded once (CUDA loads each kernel's module at its first launch),
 * then, with a shape, the backend's buffers sized for it. */
wc_status wc_ctx_prepare(wc_ctx *ctx, const wc_params *p, const wc_image *shape)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    WC_RETURN_IF(!p, &ctx->err, WC_ERR_ARG, "no parameters");
    ctx_use_device(ctx, p);
    WC_FORWARD_IF_ERROR(ctx_backend(ctx, p->backend));
    if (!ctx->backend->prepare) return WC_OK; /* nothing a host backend can do ahead */
    wc_image tiny = {64, 64, shape ? shape->components : 3, shape ? shape->bit_depth : 8, 0, NULL};
    WC_RETURN_IF(tiny.components < 1 || tiny.components > 4 || tiny.bit_depth < 1 ||
                     tiny.bit_depth > 16,
                 &ctx->err, WC_ERR_ARG, "bad image shape");
    WC_RETURN_IF(wc_image_alloc(&tiny) != WC_OK, &ctx->err, WC_ERR_NOMEM, "out of memory");
    memset(tiny.pixels, 0x5A, wc_image_row_bytes(&tiny) * tiny.height);
    wc_params q = *p;
    q.meta = NULL;
    q.memory = WC_MEMORY_HOST;
    q.stream = NULL;
    q.bpp = 0; /* a step: a rate target may not fit a small image */
    void *buf = NULL;
    size_t n = 0;
    wc_status s = wc_encode_alloc(ctx, &q, &tiny, &buf, &n);
    wc_free(buf);
    wc_image_free(&tiny);
    if (s != WC_OK || !shape) return s;
    WC_RETURN_IF(shape->width == 0 || shape->height == 0, &ctx->err, WC_ERR_ARG, "bad image shape");
    WC_FORWARD_IF_ERROR(check_limits(p, shape, &ctx->err));
    enc_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx;
    st.p = p;
    s = enc_plan(&st, shape);
    if (s == WC_OK) {
        st.plan.quantize = 1;
        wc_chain chain = {&st.h, &st.lay, p->deflate_level, 0.0, 0.0, NULL, 0, 0, 0, 0};
        s = ctx->backend->prepare(ctx->backend_self, &st.plan, &chain, &ctx->err);
    }
    free_planes(&st);
    return s;
}
