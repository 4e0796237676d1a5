/*
 * strip_decode.cu -- the whole decode chain of an image that does not fit
 * the device (or its cap, wc_stage_plan.max_device_memory): the output in
 * strips of rows [y0, y1), y0 a multiple of S = m * 2^L (L levels); for
 * each, the window [lo, hi) = [y0 - H, y1 + H) clipped to the image, H =
 * halo_rows_per_level * 2^L (strip_encode.h); the code blocks of every
 * band whose rows the window needs are decoded on the device (a block
 * that two windows need is decoded twice) into a scratch plane, the rows
 * the window needs copied into a coefficient plane of the window's
 * height in Mallat layout, the existing inverse kernels (and colour) run
 * on it as on an image, and rows [y0, y1) alone come down.
 *
 * Why those rows are the whole image's: strip_encode.cu's argument
 * backwards. lo and hi are multiples of 2^L or the image's edges, so at
 * every level the window's rows keep the image's parity and its band
 * rows are the image's band rows from lo / 2^j on, exactly (the file's
 * values). Within the window the inverse differs from the whole image's
 * only through the symmetric extension at an edge that is not the
 * image's. Let E_j be the rows of LL(j) next to such an edge that may
 * differ: E_L = 0 (LL(L) comes from the file); the inverse of level j
 * runs its lifting steps on LL(j-1)'s rows, each reading rows +-1 of the
 * step before, so E_(j-1) <= 2 E_j + 4 (the 9/7's four steps; the 5/3's
 * two; the Explosive scheme's six, which halo_rows_per_level covers
 * with 8) and E_0 <= 4 (2^L - 1) < H. Rows [y0, y1) lie H rows inside
 * any edge of the window that is not the image's: exact. Colour and
 * dequantization are per sample.
 *
 * Device memory (all counted against the cap, as requested bytes): the
 * window's samples, one component's coefficient plane, the DWT's two work
 * planes and (colour) three full-size planes of the window's height, the
 * scratch plane of the decoded blocks, two payload and descriptor
 * buffers (the next strip's go up on a second stream while this one is
 * decoded and inverted), the blocks' status, the tables (or the
 * arithmetic decoder's scratch). The context's whole-image buffers are
 * given back first. Errors are wc_decode's: the blocks' offsets, the
 * tables and the data's CRCs are checked on the host before any strip,
 * and a block that fails is named as the whole-image path names it (the
 * first in the file's order, every block being decoded by some strip).
 */
#include "colour_transform.h"
#include "dwt_cuda.h"
#include "entropy_cuda.h"
#include "strip_decode.h"
#include "strip_encode.h"

extern "C" {
#include "parallel.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace wcgb
{

/* chain_cuda.cu's: run mode's threshold, and a failed block's message;
 * backend_cuda.cu's: whether host memory is pageable. */
uint32_t run_max_of(const wcx_header *h);
bool pageable(const void *p);
wc_status decode_failure(const wc_chain *ch, size_t i, const uint32_t *st, wc_err *err);

namespace
{

/* The strips: S output rows each (the last fewer), windows of at most
 * rows_max rows. */
struct geometry {
    uint32_t S, halo, nstrips, rows_max;
};

/* Output rows [y0, y1) of strip s and its window [lo, hi). */
void strip_rows(const wc_stage_plan *p, const geometry &g, uint32_t s, uint32_t *y0, uint32_t *y1,
                uint32_t *lo, uint32_t *hi)
{
    const uint64_t a = (uint64_t)s * g.S, b = a + g.S < p->height ? a + g.S : p->height;
    *y0 = (uint32_t)a;
    *y1 = (uint32_t)b;
    *lo = a > g.halo ? (uint32_t)(a - g.halo) : 0;
    *hi = b + g.halo < p->height ? (uint32_t)(b + g.halo) : p->height;
}

/* What a window needs of one band: its rows [ra, rb), the block rows
 * that hold them (layout blocks [first, first + count), decoded rows
 * from r0 on into the scratch plane at element `scratch`, pitch the
 * band's width), their bytes [pay_lo, pay_hi) of the component's data
 * (at `pay_at` in the strip's payload buffer), and the row of the
 * window's Mallat plane where the band starts. */
struct band_part {
    uint32_t comp, band, ra, rb, r0, plane_row;
    size_t first, count, scratch, pay_lo, pay_hi, pay_at;
};

struct strip_plan {
    band_part part[4 * WC_MAX_BANDS];
    size_t nparts = 0, nblocks = 0, scratch = 0, payload = 0;
};

/* The host's view of the file and layout, shared by every strip. */
struct file_view {
    const wc_stage_plan *p;
    const wc_layout *lay;
    const es_input *in;
    uint32_t side;
    size_t *off = nullptr;                   /* each block's offset in its component's data */
    size_t band_first[4][WC_MAX_BANDS] = {}; /* each band's first layout block */
    ~file_view() { wc_free(off); }
};

/* The parts of strip s. */
void plan_strip(const file_view &f, const geometry &g, uint32_t s, strip_plan *sp)
{
    const wc_stage_plan *p = f.p;
    const wc_layout *lay = f.lay;
    uint32_t y0, y1, lo, hi;
    strip_rows(p, g, s, &y0, &y1, &lo, &hi);
    const uint32_t n = hi - lo;
    sp->nparts = sp->nblocks = sp->scratch = sp->payload = 0;
    for (uint32_t k = 0; k < p->components; k++)
        for (uint32_t bi = 0; bi < lay->nbands[k]; bi++) {
            const wc_band_info *b = &lay->band[k][bi];
            if (b->w == 0 || b->h == 0) continue;
            const int ll = b->x0 == 0 && b->y0 == 0;
            const int j = ll ? p->levels : b->level;
            const int high = b->y0 != 0; /* LH, HH: the odd rows of LL(j-1) */
            const uint32_t low_rows = level_size(n, j);
            const uint32_t rows = high ? level_size(n, j - 1) - low_rows : low_rows;
            const uint32_t ra = lo >> j;
            const uint32_t rb = ra + rows < b->h ? ra + rows : b->h;
            if (ra >= rb) continue;
            band_part &q = sp->part[sp->nparts++];
            q.comp = k;
            q.band = bi;
            q.ra = ra;
            q.rb = rb;
            q.plane_row = high ? low_rows : 0;
            const uint32_t br0 = ra / f.side, br1 = (rb - 1) / f.side + 1;
            const size_t per_row = (b->w + f.side - 1) / f.side;
            q.r0 = br0 * f.side;
            q.first = f.band_first[k][bi] + br0 * per_row;
            q.count = (br1 - br0) * per_row;
            q.scratch = sp->scratch;
            const uint32_t r1 = br1 * f.side < b->h ? br1 * f.side : b->h;
            sp->scratch += (size_t)b->w * (r1 - q.r0);
            const size_t last = q.first + q.count - 1;
            q.pay_lo = f.off[q.first];
            q.pay_hi = f.off[last] + f.in->block_size[last];
            q.pay_at = sp->payload;
            sp->payload += q.pay_hi - q.pay_lo;
            sp->nblocks += q.count;
        }
}

/* Device bytes of the strip path's buffers. */
struct device_need {
    size_t px, coef, work, planes, scratch, payload, desc, status, tabs, ac;
    size_t most_blocks, most_payload;
    size_t total() const
    {
        return px + coef + work + planes + scratch + 2 * payload + 2 * desc + status + tabs + ac;
    }
};

int arith_of(const wc_chain *ch) { return ch->header->entropy == 3; }

size_t tables_bytes(const wc_stage_plan *p)
{
    return (size_t)p->components * WC_NCLASS * sizeof(bc_dectab);
}

device_need need_of(const file_view &f, const wc_chain *ch, const geometry &g, strip_plan *sp)
{
    const wc_stage_plan *p = f.p;
    device_need n = {};
    size_t scratch = 0;
    for (uint32_t s = 0; s < g.nstrips; s++) {
        plan_strip(f, g, s, sp);
        if (sp->nblocks > n.most_blocks) n.most_blocks = sp->nblocks;
        if (sp->payload > n.most_payload) n.most_payload = sp->payload;
        if (sp->scratch > scratch) scratch = sp->scratch;
    }
    const uint32_t rows = g.rows_max;
    n.px = device_row_bytes(p) * rows;
    n.coef = (size_t)p->width * rows * 4;
    n.work = 2 * wcg_work_elems(p->width, rows) * 4;
    n.planes = colour_active(p) ? 3 * (size_t)p->width * rows * 4 : 0;
    n.scratch = scratch * 4;
    n.payload = n.most_payload + 8; /* the reader's slack (bc_decode_kernels.cu) */
    const size_t nb = n.most_blocks ? n.most_blocks : 1;
    n.desc = nb * sizeof(wcg_cblk);
    n.status = nb * 16;
    if (arith_of(ch))
        n.ac = wcg_ac_work_bytes((uint32_t)nb);
    else
        n.tabs = tables_bytes(p);
    return n;
}

/* The largest strip whose buffers fit the cap; WC_ERR_LIMIT (over the
 * caller's cap) or WC_ERR_BACKEND (over the device's free memory)
 * naming the least it needs otherwise. */
wc_status choose_geometry(const file_view &f, const wc_chain *ch, uint64_t cap, geometry *out,
                          device_need *need, wc_err *err)
{
    const wc_stage_plan *p = f.p;
    const uint64_t unit = (uint64_t)1 << p->levels;
    const uint64_t units = (p->height + unit - 1) / unit;
    strip_plan sp;
    size_t least = 0;
    for (uint64_t m = units; m >= 1; m = (m + 1) / 2) {
        geometry g = {};
        g.S = (uint32_t)(m * unit < p->height ? m * unit : p->height);
        g.halo = p->levels ? halo_rows_per_level(p) << p->levels : 0;
        g.nstrips = (uint32_t)((p->height + (uint64_t)g.S - 1) / g.S);
        const uint64_t rows = (uint64_t)g.S + 2 * (uint64_t)g.halo;
        g.rows_max = (uint32_t)(rows < p->height ? rows : p->height);
        const device_need n = need_of(f, ch, g, &sp);
        least = n.total();
        if (least <= cap) {
            *out = g;
            *need = n;
            return WC_OK;
        }
        if (m == 1) break;
    }
    if (p->max_device_memory)
        return wc_fail(err, WC_ERR_LIMIT,
                       "CUDA backend: decoding %ux%u in strips of %u rows needs at least %zu "
                       "bytes of device memory, over the %llu allowed",
                       p->width, p->height, (unsigned)unit, least, (unsigned long long)cap);
    return wc_fail(err, WC_ERR_BACKEND,
                   "CUDA backend: out of device memory: decoding %ux%u in strips of %u rows "
                   "needs at least %zu bytes, %llu are free",
                   p->width, p->height, (unsigned)unit, least, (unsigned long long)cap);
}

/* ---- the device pass ---------------------------------------------------- */

struct strip_state {
    cuda_ctx *c;
    const wc_stage_plan *p;
    wc_chain *ch;
    const es_input *in;
    wc_image *out;
    file_view f;
    geometry g;
    device_need need;
    strip_plan sp[2];                            /* the strips in buffers 0 and 1 */
    size_t *index[2] = {};                       /* their blocks' layout indices */
    cudaStream_t up = nullptr;                   /* uploads */
    cudaEvent_t uploaded[2] = {}, freed[2] = {}; /* per payload buffer */
    void *px = nullptr, *coef = nullptr, *work = nullptr, *planes = nullptr, *scratch = nullptr,
         *payload[2] = {}, *desc[2] = {}, *status = nullptr, *tabs = nullptr, *ac = nullptr;
    uint8_t *h_payload[2] = {}; /* pinned */
    wcg_cblk *h_desc[2] = {};   /* pinned */
    uint32_t *h_status = nullptr;
    bc_dectab *h_tabs = nullptr;
    bool staged = false;      /* pageable output: downloaded through c->stage */
    size_t failed = SIZE_MAX; /* the first failing block (layout order) */
    uint32_t failed_status[4] = {};
    ~strip_state()
    {
        for (void *d : {px, coef, work, planes, scratch, payload[0], payload[1], desc[0], desc[1],
                        status, tabs, ac})
            if (d) cudaFree(d);
        for (void *h : {(void *)h_payload[0], (void *)h_payload[1], (void *)h_desc[0],
                        (void *)h_desc[1], (void *)h_status, (void *)h_tabs})
            if (h) cudaFreeHost(h);
        for (int i = 0; i < 2; i++) {
            if (uploaded[i]) cudaEventDestroy(uploaded[i]);
            if (freed[i]) cudaEventDestroy(freed[i]);
            wc_free(index[i]);
        }
        if (up) cudaStreamDestroy(up);
    }
};

wc_status allocate(strip_state *st, wc_err *err)
{
    const device_need &n = st->need;
    const size_t nb = n.most_blocks ? n.most_blocks : 1;
    for (int i = 0; i < 2; i++) {
        WC_FORWARD_IF_ERROR(dev_alloc(&st->payload[i], n.payload, err, "allocating the payload"));
        WC_FORWARD_IF_ERROR(dev_alloc(&st->desc[i], n.desc, err, "allocating block descriptors"));
        WC_FORWARD_IF_ERROR(
            host_pinned((void **)&st->h_payload[i], n.payload, err, "allocating pinned payload"));
        WC_FORWARD_IF_ERROR(host_pinned((void **)&st->h_desc[i], n.desc, err,
                                        "allocating pinned block descriptors"));
        CUDA_TRY(err, cudaEventCreateWithFlags(&st->uploaded[i], cudaEventDisableTiming),
                 "creating events");
        CUDA_TRY(err, cudaEventCreateWithFlags(&st->freed[i], cudaEventDisableTiming),
                 "creating events");
        st->index[i] = (size_t *)wc_malloc_array(nb, sizeof(size_t));
        WC_RETURN_IF(!st->index[i], err, WC_ERR_NOMEM, "out of memory (strip blocks)");
    }
    CUDA_TRY(err, cudaStreamCreateWithFlags(&st->up, cudaStreamNonBlocking), "creating a stream");
    WC_FORWARD_IF_ERROR(dev_alloc(&st->px, n.px, err, "allocating a strip's samples"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->coef, n.coef, err, "allocating a strip's coefficients"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->work, n.work, err, "allocating the DWT work planes"));
    if (n.planes)
        WC_FORWARD_IF_ERROR(dev_alloc(&st->planes, n.planes, err, "allocating the colour planes"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->scratch, n.scratch, err, "allocating decoded blocks"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->status, n.status, err, "allocating block status"));
    WC_FORWARD_IF_ERROR(
        host_pinned((void **)&st->h_status, n.status, err, "allocating pinned block status"));
    if (n.tabs) WC_FORWARD_IF_ERROR(dev_alloc(&st->tabs, n.tabs, err, "allocating tables"));
    if (n.ac)
        WC_FORWARD_IF_ERROR(dev_alloc(&st->ac, n.ac, err, "allocating the decoder's scratch"));
    return WC_OK;
}

/* The payload pieces of a strip into its pinned buffer, in 4 MiB
 * pieces on the host's threads. */
struct payload_gather {
    const strip_state *st;
    const strip_plan *sp;
    uint8_t *dst;
};
constexpr size_t kPiece = (size_t)4 << 20;

void gather_piece(void *arg, size_t i, int worker)
{
    (void)worker;
    const payload_gather *g = (const payload_gather *)arg;
    const size_t a = i * kPiece, b = a + kPiece < g->sp->payload ? a + kPiece : g->sp->payload;
    for (size_t t = 0; t < g->sp->nparts; t++) {
        const band_part &q = g->sp->part[t];
        const size_t s = q.pay_at > a ? q.pay_at : a;
        const size_t e0 = q.pay_at + (q.pay_hi - q.pay_lo);
        const size_t e = e0 < b ? e0 : b;
        if (s < e) memcpy(g->dst + s, g->st->in->data[q.comp] + q.pay_lo + (s - q.pay_at), e - s);
    }
}

/* Strip s's descriptors and payload into buffer s & 1 on the upload
 * stream, once the device has finished with that buffer. */
wc_status stage_strip(strip_state *st, uint32_t s, wc_err *err)
{
    const int b = s & 1;
    const file_view &f = st->f;
    const wc_layout *lay = f.lay;
    /* The pinned buffers' last upload has left them. */
    CUDA_TRY(err, cudaEventSynchronize(st->uploaded[b]), "staging a strip");
    strip_plan &sp = st->sp[b];
    plan_strip(f, st->g, s, &sp);
    size_t i = 0;
    for (size_t t = 0; t < sp.nparts; t++) {
        const band_part &q = sp.part[t];
        const wc_band_info *bi = &lay->band[q.comp][q.band];
        for (size_t l = q.first; l < q.first + q.count; l++, i++) {
            const wc_cblk *k = &lay->blocks[l];
            wcg_cblk &d = st->h_desc[b][i];
            d.base = q.scratch + (size_t)(k->y0 - bi->y0 - q.r0) * bi->w + (k->x0 - bi->x0);
            d.slot = q.pay_at + (f.off[l] - q.pay_lo);
            d.stride = bi->w;
            d.cap = f.in->block_size[l];
            d.w = (uint16_t)k->w;
            d.h = (uint16_t)k->h;
            d.predict = bi->predict;
            d.orient = bi->orient == 1 ? 1 : bi->orient == 2 ? 2 : 0;
            d.cls = bi->cls;
            d.comp = (uint8_t)k->comp;
            st->index[b][i] = l;
        }
    }
    payload_gather g = {st, &sp, st->h_payload[b]};
    wc_parallel_for(st->p->threads, (sp.payload + kPiece - 1) / kPiece, gather_piece, &g);
    CUDA_TRY(err, cudaStreamWaitEvent(st->up, st->freed[b], 0), "staging a strip");
    if (sp.payload)
        CUDA_TRY(err,
                 cudaMemcpyAsync(st->payload[b], st->h_payload[b], sp.payload,
                                 cudaMemcpyHostToDevice, st->up),
                 "uploading the payload");
    if (sp.nblocks)
        CUDA_TRY(err,
                 cudaMemcpyAsync(st->desc[b], st->h_desc[b], sp.nblocks * sizeof(wcg_cblk),
                                 cudaMemcpyHostToDevice, st->up),
                 "uploading block descriptors");
    CUDA_TRY(err, cudaEventRecord(st->uploaded[b], st->up), "staging a strip");
    return WC_OK;
}

/* Strip s's blocks decoded into the scratch plane (buffer s & 1). */
wc_status decode_blocks(strip_state *st, uint32_t s, wc_err *err)
{
    cuda_ctx *c = st->c;
    const int b = s & 1;
    const strip_plan &sp = st->sp[b];
    CUDA_TRY(err, cudaStreamWaitEvent(c->stream, st->uploaded[b], 0), "waiting a strip");
    if (sp.nblocks) {
        CUDA_TRY(err, cudaMemsetAsync(st->status, 0, sp.nblocks * 16, c->stream),
                 "clearing block status");
        wcg_dec_job job = {};
        job.blocks = (const wcg_cblk *)st->desc[b];
        job.nblocks = (uint32_t)sp.nblocks;
        job.data = (const uint8_t *)st->payload[b];
        job.tabs = st->tabs;
        job.run_max = run_max_of(st->ch->header);
        job.status = (uint32_t *)st->status;
        job.tiled = st->ch->header->entropy == 2;
        tile_geometry(st->ch->header, &job);
        job.lanes = (unsigned)dec_switch("WC_CUDA_DEC_LANES", 2, 1, 32);
        job.stream_step = dec_switch("WC_CUDA_DEC_LEAN", 1, 0, 1) == 0;
        job.lazy_above = dec_switch("WC_CUDA_DEC_LAZY", 1, 0, 1) == 1;
        for (uint32_t k = 0; k < st->p->components; k++) job.plane[k] = (int32_t *)st->scratch;
        CUDA_TRY(err,
                 arith_of(st->ch) ? wcg_ac_decode(&job, st->ac, c->stream)
                                  : wcg_bc_decode(&job, c->stream),
                 "decoding blocks");
        CUDA_TRY(err,
                 cudaMemcpyAsync(st->h_status, st->status, sp.nblocks * 16, cudaMemcpyDeviceToHost,
                                 c->stream),
                 "downloading block status");
    }
    CUDA_TRY(err, cudaEventRecord(st->freed[b], c->stream), "recording a strip's end");
    return WC_OK;
}

/* Strip s's window inverted into st->px: each component's band rows into
 * the window's Mallat plane, the inverse kernels, then colour. */
wc_status invert_window(strip_state *st, uint32_t s, wc_err *err)
{
    cuda_ctx *c = st->c;
    const wc_stage_plan *p = st->p;
    const strip_plan &sp = st->sp[s & 1];
    const wc_layout *lay = st->f.lay;
    uint32_t y0, y1, lo, hi;
    strip_rows(p, st->g, s, &y0, &y1, &lo, &hi);
    const uint32_t n = hi - lo;
    const int colour = colour_active(p);
    const size_t plane_elems = (size_t)p->width * st->g.rows_max;
    wcg_samples smp = samples_at(st->px, p);
    for (uint32_t k = 0; k < p->components; k++) {
        for (size_t t = 0; t < sp.nparts; t++) {
            const band_part &q = sp.part[t];
            if (q.comp != k) continue;
            const wc_band_info *bi = &lay->band[k][q.band];
            const int32_t *src =
                (const int32_t *)st->scratch + q.scratch + (size_t)(q.ra - q.r0) * bi->w;
            int32_t *dst = (int32_t *)st->coef + (size_t)q.plane_row * p->width + bi->x0;
            CUDA_TRY(err,
                     cudaMemcpy2DAsync(dst, (size_t)p->width * 4, src, (size_t)bi->w * 4,
                                       (size_t)bi->w * 4, q.rb - q.ra, cudaMemcpyDeviceToDevice,
                                       c->stream),
                     "laying out a strip's bands");
        }
        wcg_component_job j = {};
        j.width = p->width;
        j.height = n;
        j.levels = p->levels;
        j.wavelet = p->wavelet[k];
        j.samples = smp;
        j.samples.comp = k;
        j.coef = st->coef;
        j.work[0] = st->work;
        j.work[1] = (char *)st->work + wcg_work_elems(p->width, n) * 4;
        j.plane = colour && k < 3 ? (char *)st->planes + k * plane_elems * 4 : NULL;
        j.quantize = 1;
        j.steps = p->steps[k];
        j.threshold = p->threshold[k];
        j.recon = p->recon;
        CUDA_TRY(err, wcg_inverse_component(&j, c->stream), "inverse transform");
    }
    if (colour) {
        const void *planes[3] = {st->planes, (char *)st->planes + plane_elems * 4,
                                 (char *)st->planes + 2 * plane_elems * 4};
        const int fl[3] = {wc_plan_is_float(p, 0), wc_plan_is_float(p, 1), wc_plan_is_float(p, 2)};
        CUDA_TRY(err, wcg_colour_inverse(&smp, p->width, n, planes, fl, p->width, c->stream),
                 "inverse colour transform");
    }
    return WC_OK;
}

/* Rows [y0, y1) of the window to the caller's image: into pageable host
 * memory through the context's pinned stage in up to 8 pieces, each
 * copied out by the host's threads as it arrives (the driver's own
 * staging of a pageable copy ran at ~8.6 GB/s, PERF_NOTES b3), else
 * directly. */
wc_status download_rows(strip_state *st, uint32_t s, wc_err *err)
{
    cuda_ctx *c = st->c;
    const wc_stage_plan *p = st->p;
    uint32_t y0, y1, lo, hi;
    strip_rows(p, st->g, s, &y0, &y1, &lo, &hi);
    const size_t row = host_row_bytes(p), stride = st->out->stride ? st->out->stride : row;
    const size_t pitch = device_row_bytes(p), rows = y1 - y0;
    uint8_t *dst = (uint8_t *)st->out->pixels + (size_t)y0 * stride;
    const uint8_t *src = (const uint8_t *)st->px + (size_t)(y0 - lo) * pitch;
    if (!st->staged) {
        CUDA_TRY(
            err,
            cudaMemcpy2DAsync(dst, stride, src, pitch, row, rows, cudaMemcpyDefault, c->stream),
            "downloading the samples");
        return WC_OK;
    }
    WC_FORWARD_IF_ERROR(ensure_stage(c, row * rows, err));
    const size_t np0 = (row * rows) >> 20, np = np0 < 1 ? 1 : np0 > 8 ? 8 : np0;
    const size_t per = (rows + np - 1) / np;
    uint8_t *stage = (uint8_t *)c->stage;
    int k = 0;
    for (size_t y = 0; y < rows; y += per, k++) {
        const size_t n = rows - y < per ? rows - y : per;
        CUDA_TRY(err,
                 cudaMemcpy2DAsync(stage + y * row, row, src + y * pitch, pitch, row, n,
                                   cudaMemcpyDeviceToHost, c->stream),
                 "downloading the samples");
        CUDA_TRY(err, cudaEventRecord(c->piece[k], c->stream), "downloading the samples");
    }
    k = 0;
    for (size_t y = 0; y < rows; y += per, k++) {
        CUDA_TRY(err, cudaEventSynchronize(c->piece[k]), "downloading the samples");
        row_copy j = {stage + y * row, dst + y * stride, row, stride, row, 0};
        wc_parallel_for(p->threads, rows - y < per ? rows - y : per, copy_row, &j);
    }
    return WC_OK;
}

/* The first failing block of strip s (its status on the host), kept when
 * it comes before the one known. */
void note_failures(strip_state *st, uint32_t s)
{
    const int b = s & 1;
    for (size_t i = 0; i < st->sp[b].nblocks; i++)
        if (st->h_status[4 * i] && st->index[b][i] < st->failed) {
            st->failed = st->index[b][i];
            memcpy(st->failed_status, st->h_status + 4 * i, sizeof st->failed_status);
        }
}

wc_status run_strips(strip_state *st, wc_err *err)
{
    cuda_ctx *c = st->c;
    WC_FORWARD_IF_ERROR(stage_strip(st, 0, err));
    for (uint32_t s = 0; s < st->g.nstrips; s++) {
        WC_FORWARD_IF_ERROR(decode_blocks(st, s, err));
        WC_FORWARD_IF_ERROR(invert_window(st, s, err));
        /* The host gathers the next strip while the device works. */
        if (s + 1 < st->g.nstrips) WC_FORWARD_IF_ERROR(stage_strip(st, s + 1, err));
        WC_FORWARD_IF_ERROR(download_rows(st, s, err));
        CUDA_TRY(err, cudaStreamSynchronize(c->stream), "decoding a strip");
        note_failures(st, s);
    }
    CUDA_TRY(err, cudaStreamSynchronize(st->up), "uploading strips");
    return WC_OK;
}

/* What the whole-image path (chain_cuda.cu's cuda_decode) allocates. */
size_t whole_need(const wc_stage_plan *p, const wc_chain *ch, const es_input *in)
{
    const size_t nb = ch->layout->nblocks ? ch->layout->nblocks : 1;
    const size_t n = (size_t)p->width * p->height;
    size_t data = 0;
    for (uint32_t k = 0; k < p->components; k++) data += in->data_size[k];
    size_t need = device_row_bytes(p) * p->height + coef_elems(p) * p->components * 4 +
                  work_planes(p, 1) * wcg_work_elems(p->width, p->height) * 4 + data + 8 +
                  nb * (sizeof(wcg_cblk) + 16);
    if (colour_active(p)) need += 3 * n * 4;
    for (uint32_t k = 0; k < p->components; k++)
        if (is_block(p, k)) {
            need += coef_elems(p) * p->components * 4; /* the band planes */
            break;
        }
    need += arith_of(ch) ? wcg_ac_work_bytes((uint32_t)nb) : tables_bytes(p);
    return need;
}

thread_local char t_where[160];

} /* namespace */

bool strip_decode_wanted(cuda_ctx *c, const wc_stage_plan *p, const wc_chain *ch,
                         const es_input *in)
{
    return strips_wanted(c, p, whole_need(p, ch, in));
}

wc_status strip_decode(cuda_ctx *c, const wc_stage_plan *p, wc_chain *ch, const es_input *in,
                       wc_image *out, wc_err *err)
{
    const double t0 = now_s();
    const wcx_header *h = ch->header;
    WC_RETURN_IF(h->entropy != 0 && h->entropy != 2 && h->entropy != 3, err, WC_ERR_LIMIT,
                 "CUDA backend: a deflate-coded image over the device-memory cap (%llu bytes) is "
                 "not decoded in strips",
                 (unsigned long long)effective_cap(c, p));
    for (uint32_t k = 0; k < p->components; k++)
        WC_RETURN_IF(is_block(p, k), err, WC_ERR_LIMIT,
                     "CUDA backend: a DCT/LOT image over the device-memory cap (%llu bytes) is "
                     "not decoded in strips",
                     (unsigned long long)effective_cap(c, p));
    WC_RETURN_IF(out->width != p->width || out->height != p->height ||
                     out->components != p->components || out->bit_depth != p->bit_depth,
                 err, WC_ERR_ARG, "CUDA backend: image and plan disagree");
    WC_FORWARD_IF_ERROR(check_plan(p, NULL, err));
    const wc_layout *lay = ch->layout;
    WC_RETURN_IF(lay->nblocks > 0xFFFFFFFFu, err, WC_ERR_LIMIT,
                 "CUDA backend: too many code blocks");
    WC_FORWARD_IF_ERROR(begin_call(c, p, err));
    strip_state st;
    st.c = c;
    st.p = p;
    st.ch = ch;
    st.in = in;
    st.out = out;
    st.staged = !p->device_memory && pageable(out->pixels);
    st.f.p = p;
    st.f.lay = lay;
    st.f.in = in;
    st.f.side = layout_block_side(h);
    /* The host's checks first, in the whole-image path's order (so a
     * damaged file reports what wc_decode reports): the blocks' offsets,
     * the tables, the data's CRCs. */
    const size_t nb = lay->nblocks ? lay->nblocks : 1;
    st.f.off = (size_t *)wc_malloc_array(nb, sizeof(size_t));
    WC_RETURN_IF(!st.f.off, err, WC_ERR_NOMEM, "out of memory (block offsets)");
    WC_FORWARD_IF_ERROR(es_block_offsets(lay, in, st.f.off, err));
    for (size_t i = lay->nblocks; i-- > 0;)
        st.f.band_first[lay->blocks[i].comp][lay->blocks[i].band] = i;
    if (!arith_of(ch)) {
        WC_FORWARD_IF_ERROR(
            host_pinned((void **)&st.h_tabs, tables_bytes(p), err, "allocating pinned tables"));
        memset(st.h_tabs, 0, tables_bytes(p));
        WC_FORWARD_IF_ERROR(es_read_tables(h, in, st.h_tabs, err));
    }
    if (in->verify) WC_FORWARD_IF_ERROR(in->verify(in->verify_arg, err));
    const uint64_t cap = effective_cap(c, p);
    WC_FORWARD_IF_ERROR(choose_geometry(st.f, ch, cap, &st.g, &st.need, err));
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "starting the strips");
    release_whole(c);
    WC_FORWARD_IF_ERROR(allocate(&st, err));
    if (st.tabs)
        CUDA_TRY(
            err,
            cudaMemcpyAsync(st.tabs, st.h_tabs, tables_bytes(p), cudaMemcpyHostToDevice, c->stream),
            "uploading tables");
    const double t1 = now_s();
    const wc_status s = run_strips(&st, err);
    if (s != WC_OK) {
        cudaStreamSynchronize(c->stream);
        cudaStreamSynchronize(st.up);
        return s;
    }
    if (st.failed != SIZE_MAX) return decode_failure(ch, st.failed, st.failed_status, err);
    ch->t_entropy = t1 - t0; /* the host's checks, the geometry, the buffers */
    ch->t_transform = now_s() - t1;
    snprintf(t_where, sizeof t_where, "device, %u strips of %u rows, %zu bytes of device memory",
             st.g.nstrips, st.g.S, st.need.total());
    ch->where = t_where;
    if (c->trace)
        fprintf(stderr, "cuda strip decode: %s; set-up %.3f s, strips %.3f s\n", t_where,
                ch->t_entropy, ch->t_transform);
    return WC_OK;
}

} /* namespace wcgb */
