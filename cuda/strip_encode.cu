/*
 * strip_encode.cu -- the whole encode chain of an image that does not fit
 * the device (or its cap, wc_stage_plan.max_device_memory): the image in
 * strips of rows, each strip's samples up with a halo of rows above and
 * below, the device's colour + DWT + quantizer over the strip as if it
 * were an image, then the code blocks whose rows the strip holds exactly
 * counted (pass 1: symbol histograms of the whole image, then the tables)
 * or coded (pass 2), their bytes down and put in the file's order on the
 * host. The bytes are the CPU backend's (tests/gpu/test_cuda_strips.c).
 *
 * Why the strip's coefficients are the whole image's. A strip's interior
 * is image rows [a, b), a a multiple of S = m * block * 2^L (L levels);
 * the device transforms rows [lo, hi) = [a - H, b + H) clipped to the
 * image, H = 4 * 2^L, with the DWT's symmetric extension at lo and hi.
 * lo is a multiple of 2^L, so at every level the strip's rows keep the
 * image's parity (even rows low, odd high) and band row r of level j is
 * the strip's band row r - lo / 2^j. Each lifting step sets a value from
 * its own row and the rows +-1 of the level's previous step (the 5/3's
 * two steps, the 9/7's four; Barina's Monolithic steps too: their merged
 * vertical+horizontal step reads rows +-1): by induction, a value whose
 * rows of dependence all lie inside [lo, hi) is computed from the
 * image's own values by the same float or integer operations, and
 * never touches the extension. A level-j coefficient of band row r
 * depends on LL(j-1) rows [2r - 4, 2r + 4] (9/7; 5/3: [2r - 2, 2r + 2]),
 * so on image rows within R_j = 2^(j+1) + R_(j-1) = 4 (2^j - 1) < H of
 * 2^j r. The band rows a strip keeps, [a / 2^j, b / 2^j), thus depend on
 * image rows inside (a - H, b + H): exact. Where lo or hi is the image's
 * own edge the extension is the whole image's. Colour and quantization
 * are per sample. And S is a whole number of code-block rows at every
 * level (a band of level j has S / 2^j = m * block * 2^(L-j) rows of the
 * strip), so every code block lies in one strip.
 *
 * Device memory (all counted against the cap, as requested bytes): two
 * strips of samples (one uploading while the other is worked on, from a
 * second stream), one component's coefficient plane and the DWT's two
 * work planes for the strip's height, and the coder's buffers for a group
 * of code blocks (slots and payload of at most G bytes each, G from the
 * cap, descriptors, sizes, offsets), the histograms and tables. The
 * context's whole-image buffers are given back first. Pinned host
 * memory: the two strips' staging and a group's payload.
 */
#include "colour_transform.h"
#include "dwt_cuda.h"
#include "entropy_cuda.h"
#include "strip_encode.h"
#include "tables_cuda.h"

extern "C" {
#include "parallel.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace wcgb
{

/* H / 2^L (the comment at the top): a level's reach in its LL rows is its
 * lifting steps' count, each reading rows +-1: 4 for the separable and
 * Monolithic 9/7 (2 for 5/3), so 4 covers them; Barina's Explosive
 * scheme lifts a pair in three steps, 6 for 9/7 (3 for 5/3), so R_j =
 * 6 (2^j - 1) < 8 * 2^L. */
uint32_t halo_rows_per_level(const wc_stage_plan *p)
{
    for (uint32_t c = 0; c < p->components; c++)
        if (p->transform[c] == WC_TRANSFORM_DWT && (p->wavelet[c] == 203 || p->wavelet[c] == 207))
            return 8;
    return 4;
}

/* chain_cuda.cu's: run mode's threshold, and the WTAB payloads. */
uint32_t run_max_of(const wcx_header *h);
wc_status write_tables(const wcx_header *h, const uint8_t *lens, es_output *out, wc_err *err);

namespace
{

size_t slot_of(const wc_cblk *k) { return (bc_bound(k->w, k->h) + 3) & ~(size_t)3; }

/* The strip geometry: interior S rows a strip (the last fewer), the
 * halo, and G, the most slot bytes a group of blocks coded at once. */
struct geometry {
    uint32_t S, halo, nstrips;
    uint32_t rows_max; /* S + 2 halo, at most the image's height */
    size_t group;      /* slot bytes per group (at least one block's) */
};

/* A group: blocks [first, first + count) of the strip order, all of one
 * strip and one component, their slots summing to at most G (or one
 * block). */
struct group {
    uint32_t strip, comp;
    size_t first, count, slots;
};

/* What the plan's blocks need in strips of this geometry, and the groups:
 * blocks in strip order (strip, component, layout order), each with the
 * layout index it came from. */
struct plan_of_strips {
    geometry g;
    size_t *order = nullptr; /* layout index of each block in strip order */
    group *groups = nullptr;
    size_t ngroups = 0, most_blocks = 0, most_slots = 0;
    ~plan_of_strips()
    {
        wc_free(order);
        wc_free(groups);
    }
};

int is_ll(const wc_band_info *b) { return b->x0 == 0 && b->y0 == 0; }

/* The level whose rows band b's rows are: L for LL, else the band's. */
int band_level(const wc_band_info *b, int levels) { return is_ll(b) ? levels : b->level; }

/* The strip a block's rows are in. */
uint32_t strip_of(const wc_layout *lay, const wc_cblk *k, int levels, uint32_t S)
{
    const wc_band_info *b = &lay->band[k->comp][k->band];
    const uint64_t row = (uint64_t)(k->y0 - b->y0) << band_level(b, levels);
    return (uint32_t)(row / S);
}

/* Rows [lo, hi) of strip s. */
void strip_rows(const wc_stage_plan *p, const geometry &g, uint32_t s, uint32_t *lo, uint32_t *hi)
{
    const uint64_t a = (uint64_t)s * g.S, b = a + g.S;
    *lo = a > g.halo ? (uint32_t)(a - g.halo) : 0;
    *hi = b + g.halo < p->height ? (uint32_t)(b + g.halo) : p->height;
}

/* Orders the blocks and cuts the groups for geometry g. */
wc_status plan_strips(const wc_stage_plan *p, const wc_layout *lay, const geometry &g,
                      plan_of_strips *ps, wc_err *err)
{
    const size_t nb = lay->nblocks;
    ps->g = g;
    wc_free(ps->order);
    wc_free(ps->groups);
    ps->order = (size_t *)wc_malloc_array(nb ? nb : 1, sizeof(size_t));
    ps->groups = (group *)wc_malloc_array(nb ? nb : 1, sizeof(group));
    size_t *count = (size_t *)wc_calloc((size_t)g.nstrips * p->components + 1, sizeof(size_t));
    if (!ps->order || !ps->groups || !count) {
        wc_free(count);
        return wc_fail(err, WC_ERR_NOMEM, "out of memory (strip plan)");
    }
    /* A counting sort by (strip, component), stable in layout order. */
    for (size_t i = 0; i < nb; i++) {
        const wc_cblk *k = &lay->blocks[i];
        count[(size_t)strip_of(lay, k, p->levels, g.S) * p->components + k->comp + 1]++;
    }
    for (size_t u = 1; u <= (size_t)g.nstrips * p->components; u++) count[u] += count[u - 1];
    for (size_t i = 0; i < nb; i++) {
        const wc_cblk *k = &lay->blocks[i];
        ps->order[count[(size_t)strip_of(lay, k, p->levels, g.S) * p->components + k->comp]++] = i;
    }
    wc_free(count);
    ps->ngroups = ps->most_blocks = ps->most_slots = 0;
    for (size_t i = 0; i < nb;) {
        const wc_cblk *k0 = &lay->blocks[ps->order[i]];
        group gr = {strip_of(lay, k0, p->levels, g.S), k0->comp, i, 0, 0};
        for (; i < nb; i++) {
            const wc_cblk *k = &lay->blocks[ps->order[i]];
            if (k->comp != gr.comp || strip_of(lay, k, p->levels, g.S) != gr.strip) break;
            const size_t s = slot_of(k);
            if (gr.count && gr.slots + s > g.group) break;
            gr.slots += s;
            gr.count++;
        }
        ps->groups[ps->ngroups++] = gr;
        if (gr.count > ps->most_blocks) ps->most_blocks = gr.count;
        if (gr.slots > ps->most_slots) ps->most_slots = gr.slots;
    }
    return WC_OK;
}

/* Device bytes of the strip path's buffers. */
struct device_need {
    size_t px, coef, work, desc, slots, sizes, offsets, hist, tabs, lens, ac;
    size_t total() const
    {
        return 2 * px + coef + work + desc + 2 * slots + sizes + offsets + hist + tabs + lens + ac;
    }
};

device_need need_of(const wc_stage_plan *p, const wc_chain *ch, const plan_of_strips &ps)
{
    device_need n = {};
    const uint32_t rows = ps.g.rows_max;
    n.px = device_row_bytes(p) * rows;
    n.coef = (size_t)p->width * rows * 4;
    n.work = 2 * wcg_work_elems(p->width, rows) * 4;
    const size_t nb = ps.most_blocks ? ps.most_blocks : 1;
    n.desc = nb * sizeof(wcg_cblk);
    n.slots = ps.most_slots + 4;
    n.sizes = (nb + 1) * 4;
    n.offsets = (nb + 1) * 8;
    const int arith = ch->header->entropy == 3;
    if (!arith) {
        n.hist = (size_t)p->components * WCG_HIST * sizeof(unsigned long long);
        n.tabs = (size_t)p->components * WC_NCLASS * BC_NTAB * sizeof(wcg_huf);
        n.lens = (size_t)p->components * WC_NCLASS * BC_NTAB * BC_NSYM;
    } else {
        n.ac = wcg_ac_work_bytes((uint32_t)nb);
    }
    return n;
}

/* What the whole-image path (chain_cuda.cu's encode_on_device) allocates. */
size_t whole_need(const wc_stage_plan *p, const wc_chain *ch)
{
    const wc_layout *lay = ch->layout;
    size_t slots = 0;
    for (size_t i = 0; i < lay->nblocks; i++) slots += slot_of(&lay->blocks[i]);
    const size_t nb = lay->nblocks ? lay->nblocks : 1;
    const size_t n = (size_t)p->width * p->height;
    size_t need = device_row_bytes(p) * p->height + n * p->components * 4 +
                  work_planes(p, 0) * wcg_work_elems(p->width, p->height) * 4 +
                  nb * sizeof(wcg_cblk) + 2 * (slots + 4) + (nb + 1) * 12;
    if (ch->header->entropy == 3)
        need += wcg_ac_work_bytes((uint32_t)nb);
    else
        need += (size_t)p->components * WC_NCLASS * BC_NTAB *
                (WCG_NSYM * sizeof(unsigned long long) + sizeof(wcg_huf) + BC_NSYM);
    return need;
}

/* The largest strip (a multiple of the block rows of every level) and
 * group whose buffers fit the cap; WC_ERR_LIMIT naming the least it
 * needs otherwise. */
wc_status choose_geometry(const wc_stage_plan *p, const wc_chain *ch, uint64_t cap,
                          plan_of_strips *ps, wc_err *err)
{
    const wc_layout *lay = ch->layout;
    const uint32_t side = layout_block_side(ch->header);
    const uint64_t unit = (uint64_t)side << p->levels;
    const uint64_t units = (p->height + unit - 1) / unit;
    size_t one = 0; /* the largest block's slot: a group holds at least one */
    for (size_t i = 0; i < lay->nblocks; i++)
        if (slot_of(&lay->blocks[i]) > one) one = slot_of(&lay->blocks[i]);
    /* Groups of 1/16 of the cap, at most 256 MiB: a few dozen syncs for
     * a large image, slots that leave the strip most of the room. */
    size_t gmax = (size_t)(cap / 16);
    if (gmax > ((size_t)256 << 20)) gmax = (size_t)256 << 20;
    const size_t gtry[2] = {gmax > one ? gmax : one, one};
    /* Halving the strip count each try: m in units per strip. */
    size_t least = 0;
    for (uint64_t m = units; m >= 1; m = m > 1 ? (m + 1) / 2 : 0) {
        for (int t = 0; t < 2; t++) {
            geometry g = {};
            g.S = (uint32_t)(m * unit < p->height ? m * unit : unit * units);
            g.halo = p->levels ? halo_rows_per_level(p) << p->levels : 0;
            g.nstrips = (uint32_t)((p->height + (uint64_t)g.S - 1) / g.S);
            const uint64_t rows = (uint64_t)g.S + 2 * (uint64_t)g.halo;
            g.rows_max = (uint32_t)(rows < p->height ? rows : p->height);
            g.group = gtry[t];
            WC_FORWARD_IF_ERROR(plan_strips(p, lay, g, ps, err));
            const size_t need = need_of(p, ch, *ps).total();
            least = need;
            if (need <= cap) return WC_OK;
        }
        if (m == 1) break;
    }
    /* Over the caller's cap: a limit it set. Over what the device has
     * free: the device is out of memory, WC_ERR_BACKEND as the whole-image
     * path's failed allocations are. */
    if (p->max_device_memory)
        return wc_fail(err, WC_ERR_LIMIT,
                       "CUDA backend: the smallest strip of %ux%u (%u rows of %ux%u blocks) "
                       "needs %zu bytes of device memory, over the %llu allowed",
                       p->width, p->height, (unsigned)unit, side, side, least,
                       (unsigned long long)cap);
    return wc_fail(err, WC_ERR_BACKEND,
                   "CUDA backend: out of device memory: the smallest strip of %ux%u (%u rows of "
                   "%ux%u blocks) needs %zu bytes, %llu are free",
                   p->width, p->height, (unsigned)unit, side, side, least, (unsigned long long)cap);
}

/* ---- the device pass ---------------------------------------------------- */

struct strip_state {
    cuda_ctx *c;
    const wc_stage_plan *p;
    const wc_image *in;
    wc_chain *ch;
    plan_of_strips ps;
    device_need need;
    cudaStream_t up = nullptr;                   /* uploads */
    cudaEvent_t uploaded[2] = {}, freed[2] = {}; /* per strip buffer */
    void *px[2] = {}, *coef = nullptr, *work = nullptr, *desc = nullptr, *slots = nullptr,
         *payload = nullptr, *sizes = nullptr, *offsets = nullptr, *hist = nullptr, *tabs = nullptr,
         *lens = nullptr, *ac = nullptr;
    void *stage[2] = {};          /* pinned strip staging */
    wcg_cblk *h_desc = nullptr;   /* pinned: every block's descriptor, strip order */
    uint32_t *h_sizes = nullptr;  /* pinned: a group's sizes */
    uint8_t *h_payload = nullptr; /* pinned: a group's payload */
    uint8_t *h_lens = nullptr;    /* pinned: the code lengths */
    uint8_t **chunks = nullptr;   /* each group's payload on the host */
    size_t *where = nullptr;      /* per layout block: its offset in its group's chunk */
    size_t *chunk_of = nullptr;   /* per layout block: its group */
    bool staged = false;
    ~strip_state()
    {
        for (void *d :
             {px[0], px[1], coef, work, desc, slots, payload, sizes, offsets, hist, tabs, lens, ac})
            if (d) cudaFree(d);
        for (void *h : {stage[0], stage[1], (void *)h_desc, (void *)h_sizes, (void *)h_payload,
                        (void *)h_lens})
            if (h) cudaFreeHost(h);
        for (int i = 0; i < 2; i++) {
            if (uploaded[i]) cudaEventDestroy(uploaded[i]);
            if (freed[i]) cudaEventDestroy(freed[i]);
        }
        if (up) cudaStreamDestroy(up);
        if (chunks)
            for (size_t g = 0; g < ps.ngroups; g++) wc_free(chunks[g]);
        wc_free(chunks);
        wc_free(where);
        wc_free(chunk_of);
    }
};

wc_status allocate(strip_state *st, wc_err *err)
{
    const device_need &n = st->need;
    const plan_of_strips &ps = st->ps;
    const size_t nb = st->ch->layout->nblocks;
    for (int i = 0; i < 2; i++) {
        WC_FORWARD_IF_ERROR(dev_alloc(&st->px[i], n.px, err, "allocating a strip's samples"));
        CUDA_TRY(err, cudaEventCreateWithFlags(&st->uploaded[i], cudaEventDisableTiming),
                 "creating events");
        CUDA_TRY(err, cudaEventCreateWithFlags(&st->freed[i], cudaEventDisableTiming),
                 "creating events");
        if (st->staged)
            WC_FORWARD_IF_ERROR(host_pinned(&st->stage[i], host_row_bytes(st->p) * ps.g.rows_max,
                                            err, "allocating the pinned strip stage"));
    }
    CUDA_TRY(err, cudaStreamCreateWithFlags(&st->up, cudaStreamNonBlocking), "creating a stream");
    /* The uploads read the samples too: after the caller's work (the
     * event begin_call recorded on its stream). */
    if (st->p->stream)
        CUDA_TRY(err, cudaStreamWaitEvent(st->up, st->c->user, 0),
                 "waiting for the caller's stream");
    WC_FORWARD_IF_ERROR(dev_alloc(&st->coef, n.coef, err, "allocating a strip's coefficients"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->work, n.work, err, "allocating the DWT work planes"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->desc, n.desc, err, "allocating block descriptors"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->slots, n.slots, err, "allocating block slots"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->payload, n.slots, err, "allocating the payload"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->sizes, n.sizes, err, "allocating block sizes"));
    WC_FORWARD_IF_ERROR(dev_alloc(&st->offsets, n.offsets, err, "allocating block offsets"));
    if (n.hist) {
        WC_FORWARD_IF_ERROR(dev_alloc(&st->hist, n.hist, err, "allocating histograms"));
        WC_FORWARD_IF_ERROR(dev_alloc(&st->tabs, n.tabs, err, "allocating tables"));
        WC_FORWARD_IF_ERROR(dev_alloc(&st->lens, n.lens, err, "allocating code lengths"));
        WC_FORWARD_IF_ERROR(
            host_pinned((void **)&st->h_lens, n.lens, err, "allocating pinned code lengths"));
    }
    if (n.ac) WC_FORWARD_IF_ERROR(dev_alloc(&st->ac, n.ac, err, "allocating the coder's scratch"));
    WC_FORWARD_IF_ERROR(host_pinned((void **)&st->h_desc, (nb ? nb : 1) * sizeof(wcg_cblk), err,
                                    "allocating pinned block descriptors"));
    WC_FORWARD_IF_ERROR(
        host_pinned((void **)&st->h_sizes, n.sizes, err, "allocating pinned block sizes"));
    WC_FORWARD_IF_ERROR(
        host_pinned((void **)&st->h_payload, n.slots, err, "allocating the pinned payload"));
    st->chunks = (uint8_t **)wc_calloc(ps.ngroups ? ps.ngroups : 1, sizeof(uint8_t *));
    st->where = (size_t *)wc_malloc_array(nb ? nb : 1, sizeof(size_t));
    st->chunk_of = (size_t *)wc_malloc_array(nb ? nb : 1, sizeof(size_t));
    WC_RETURN_IF(!st->chunks || !st->where || !st->chunk_of, err, WC_ERR_NOMEM,
                 "out of memory (strip payloads)");
    return WC_OK;
}

/* Every block's descriptor as the kernels read it in its strip's plane
 * (a component's coefficients of rows [lo, hi), pitch = width), its slot
 * relative to its group's. */
void describe(strip_state *st)
{
    const wc_layout *lay = st->ch->layout;
    const wc_stage_plan *p = st->p;
    for (size_t g = 0; g < st->ps.ngroups; g++) {
        const group &gr = st->ps.groups[g];
        uint32_t lo, hi;
        strip_rows(p, st->ps.g, gr.strip, &lo, &hi);
        size_t slot = 0;
        for (size_t i = gr.first; i < gr.first + gr.count; i++) {
            const wc_cblk *k = &lay->blocks[st->ps.order[i]];
            const wc_band_info *b = &lay->band[k->comp][k->band];
            const int j = band_level(b, p->levels);
            /* The band's origin in the strip's plane: high-pass rows
             * (LH, HH) below the strip's low half of level j. */
            const uint32_t y0 = b->y0 ? level_size(hi - lo, j) : 0;
            const uint32_t row = y0 + (k->y0 - b->y0) - (lo >> j);
            wcg_cblk &d = st->h_desc[i];
            d.base = (unsigned long long)row * p->width + k->x0;
            d.slot = slot;
            d.stride = p->width;
            d.cap = (uint32_t)slot_of(k);
            d.w = (uint16_t)k->w;
            d.h = (uint16_t)k->h;
            d.predict = b->predict;
            d.orient = b->orient == 1 ? 1 : b->orient == 2 ? 2 : 0;
            d.cls = b->cls;
            d.comp = (uint8_t)k->comp;
            slot += d.cap;
        }
    }
}

/* Strip s's rows into px[s & 1] on the upload stream, after the compute
 * stream has finished with that buffer (and, pinned staging, after the
 * stage's last transfer). */
wc_status upload_strip(strip_state *st, uint32_t s, wc_err *err)
{
    const wc_stage_plan *p = st->p;
    const int b = s & 1;
    uint32_t lo, hi;
    strip_rows(p, st->ps.g, s, &lo, &hi);
    const size_t row = host_row_bytes(p), stride = st->in->stride ? st->in->stride : row;
    const uint8_t *src = (const uint8_t *)st->in->pixels + (size_t)lo * stride;
    CUDA_TRY(err, cudaStreamWaitEvent(st->up, st->freed[b], 0), "uploading a strip");
    if (st->staged) {
        CUDA_TRY(err, cudaEventSynchronize(st->uploaded[b]), "uploading a strip");
        row_copy j = {src, (uint8_t *)st->stage[b], stride, row, row, 0};
        wc_parallel_for(p->threads, hi - lo, stage_row, &j);
        src = (const uint8_t *)st->stage[b];
    }
    CUDA_TRY(err,
             cudaMemcpy2DAsync(st->px[b], device_row_bytes(p), src, st->staged ? row : stride, row,
                               hi - lo, cudaMemcpyDefault, st->up),
             "uploading a strip");
    CUDA_TRY(err, cudaEventRecord(st->uploaded[b], st->up), "uploading a strip");
    return WC_OK;
}

/* Component k of strip s: colour, every level and the quantizer into the
 * strip's coefficient plane. */
cudaError_t forward_strip(strip_state *st, uint32_t s, uint32_t k)
{
    const wc_stage_plan *p = st->p;
    uint32_t lo, hi;
    strip_rows(p, st->ps.g, s, &lo, &hi);
    wcg_component_job j = {};
    j.width = p->width;
    j.height = hi - lo;
    j.levels = p->levels;
    j.wavelet = p->wavelet[k];
    j.samples = samples_at(st->px[s & 1], p);
    j.samples.comp = k;
    j.coef = st->coef;
    const size_t ll = wcg_work_elems(p->width, hi - lo);
    j.work[0] = st->work;
    j.work[1] = (char *)st->work + ll * 4;
    j.quantize = 1;
    j.steps = p->steps[k];
    j.threshold = p->threshold[k];
    j.recon = p->recon;
    return wcg_forward_component(&j, st->c->stream);
}

/* The coder's job over group g's blocks (their descriptors already in
 * st->desc). */
wcg_bc_job group_job(const strip_state *st, const group &gr)
{
    wcg_bc_job job = {};
    job.blocks = (const wcg_cblk *)st->desc;
    job.nblocks = (uint32_t)gr.count;
    job.components = st->p->components;
    job.first[gr.comp] = 0;
    job.count[gr.comp] = (uint32_t)gr.count;
    for (uint32_t k = 0; k < st->p->components; k++) job.plane[k] = (const int32_t *)st->coef;
    job.run_max = run_max_of(st->ch->header);
    job.tiled = st->ch->header->entropy == 2;
    return job;
}

/* A large host copy on the host's threads, in pieces of 4 MiB: the
 * payload of a big image is gigabytes, and one thread's copy into fresh
 * pages (faulting them in) cost seconds (PERF_NOTES, h5). */
struct big_copy {
    uint8_t *dst;
    const uint8_t *src;
    size_t bytes;
};
constexpr size_t kCopyPiece = (size_t)4 << 20;

void copy_piece(void *arg, size_t i, int worker)
{
    (void)worker;
    const big_copy *j = (const big_copy *)arg;
    const size_t a = i * kCopyPiece, n = j->bytes - a < kCopyPiece ? j->bytes - a : kCopyPiece;
    memcpy(j->dst + a, j->src + a, n);
}

void parallel_copy(int threads, uint8_t *dst, const uint8_t *src, size_t bytes)
{
    big_copy j = {dst, src, bytes};
    wc_parallel_for(threads, (bytes + kCopyPiece - 1) / kCopyPiece, copy_piece, &j);
}

/* Pass 2's work on one group: code, pack, sizes and bytes down, kept. */
wc_status code_group(strip_state *st, size_t g, es_output *out, wc_err *err)
{
    cuda_ctx *c = st->c;
    const group &gr = st->ps.groups[g];
    const wcg_bc_job job = group_job(st, gr);
    const int arith = st->ch->header->entropy == 3;
    const size_t n = gr.count;
    CUDA_TRY(err, cudaMemsetAsync((uint32_t *)st->sizes + n, 0, 4, c->stream), "clearing a flag");
    CUDA_TRY(err,
             arith
                 ? wcg_ac_emit(&job, (uint8_t *)st->slots, (uint32_t *)st->sizes, st->ac, c->stream)
                 : wcg_bc_emit(&job, (const wcg_huf *)st->tabs, (uint8_t *)st->slots,
                               (uint32_t *)st->sizes, c->stream),
             "coding blocks");
    CUDA_TRY(err,
             wcg_bc_pack(&job, (const uint8_t *)st->slots, (const uint32_t *)st->sizes,
                         (unsigned long long *)st->offsets, (uint8_t *)st->payload, c->stream),
             "packing the payload");
    CUDA_TRY(
        err,
        cudaMemcpyAsync(st->h_sizes, st->sizes, (n + 1) * 4, cudaMemcpyDeviceToHost, c->stream),
        "downloading block sizes");
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "coding blocks");
    WC_RETURN_IF(st->h_sizes[n] != 0, err, arith ? WC_ERR_LIMIT : WC_ERR_BACKEND,
                 "CUDA backend: a code block overflowed its slot (coding in strips)");
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t li = st->ps.order[gr.first + i];
        out->block_size[li] = st->h_sizes[i];
        st->where[li] = total;
        st->chunk_of[li] = g;
        total += st->h_sizes[i];
    }
    st->chunks[g] = (uint8_t *)wc_malloc(total ? total : 1);
    WC_RETURN_IF(!st->chunks[g], err, WC_ERR_NOMEM, "out of memory (strip payload)");
    if (total) {
        CUDA_TRY(
            err,
            cudaMemcpyAsync(st->h_payload, st->payload, total, cudaMemcpyDeviceToHost, c->stream),
            "downloading the payload");
        CUDA_TRY(err, cudaStreamSynchronize(c->stream), "downloading the payload");
        parallel_copy(st->p->threads, st->chunks[g], st->h_payload, total);
    }
    return WC_OK;
}

/* One pass over the strips: 0 counts symbols into the histograms, 1
 * codes the blocks. The next strip uploads (st->up) while this one is
 * transformed and coded (the context's stream). */
wc_status run_pass(strip_state *st, int pass, es_output *out, wc_err *err)
{
    cuda_ctx *c = st->c;
    const plan_of_strips &ps = st->ps;
    size_t g = 0;
    WC_FORWARD_IF_ERROR(upload_strip(st, 0, err));
    for (uint32_t s = 0; s < ps.g.nstrips; s++) {
        CUDA_TRY(err, cudaStreamWaitEvent(c->stream, st->uploaded[s & 1], 0), "waiting a strip");
        if (s + 1 < ps.g.nstrips) WC_FORWARD_IF_ERROR(upload_strip(st, s + 1, err));
        for (uint32_t k = 0; k < st->p->components; k++) {
            if (g >= ps.ngroups || ps.groups[g].strip != s || ps.groups[g].comp != k)
                continue; /* no blocks here (thin bands) */
            CUDA_TRY(err, forward_strip(st, s, k), "forward transform");
            for (; g < ps.ngroups && ps.groups[g].strip == s && ps.groups[g].comp == k; g++) {
                const group &gr = ps.groups[g];
                CUDA_TRY(err,
                         cudaMemcpyAsync(st->desc, st->h_desc + gr.first,
                                         gr.count * sizeof(wcg_cblk), cudaMemcpyHostToDevice,
                                         c->stream),
                         "uploading block descriptors");
                if (pass == 0) {
                    const wcg_bc_job job = group_job(st, gr);
                    CUDA_TRY(err, wcg_bc_count(&job, (unsigned long long *)st->hist, c->stream),
                             "counting symbols");
                } else {
                    WC_FORWARD_IF_ERROR(code_group(st, g, out, err));
                }
            }
        }
        CUDA_TRY(err, cudaEventRecord(st->freed[s & 1], c->stream), "recording a strip's end");
    }
    return WC_OK;
}

/* Blocks [i * kAssembleRun, ...) of the layout to their place in their
 * component's payload (dst: each block's destination). */
struct assembly {
    const strip_state *st;
    uint8_t **dst;
    const uint32_t *size;
    size_t nblocks;
};
constexpr size_t kAssembleRun = 1024;

void assemble_run(void *arg, size_t r, int worker)
{
    (void)worker;
    const assembly *a = (const assembly *)arg;
    const size_t end = (r + 1) * kAssembleRun < a->nblocks ? (r + 1) * kAssembleRun : a->nblocks;
    for (size_t i = r * kAssembleRun; i < end; i++)
        memcpy(a->dst[i], a->st->chunks[a->st->chunk_of[i]] + a->st->where[i], a->size[i]);
}

/* The groups' bytes into each component's payload, in layout order, on
 * the host's threads. */
wc_status assemble(strip_state *st, es_output *out, wc_err *err)
{
    const wc_layout *lay = st->ch->layout;
    const size_t nb = lay->nblocks;
    uint8_t **dst = (uint8_t **)wc_malloc_array(nb ? nb : 1, sizeof(uint8_t *));
    WC_RETURN_IF(!dst, err, WC_ERR_NOMEM, "out of memory (payload)");
    for (uint32_t k = 0; k < lay->components; k++) {
        const size_t end = k + 1 < lay->components ? lay->first_block[k + 1] : lay->nblocks;
        size_t size = 0;
        for (size_t i = lay->first_block[k]; i < end; i++) size += out->block_size[i];
        if (size <= WCX_MAX_CHUNK_SIZE) out->data[k] = (uint8_t *)wc_malloc(size ? size : 1);
        if (!out->data[k]) {
            wc_free(dst);
            WC_RETURN_IF(size > WCX_MAX_CHUNK_SIZE, err, WC_ERR_LIMIT,
                         "component %u: %zu bytes of data exceed one chunk's limit", k, size);
            return wc_fail(err, WC_ERR_NOMEM, "out of memory (payload)");
        }
        out->data_size[k] = size;
        uint8_t *at = out->data[k];
        for (size_t i = lay->first_block[k]; i < end; i++) {
            dst[i] = at;
            at += out->block_size[i];
        }
    }
    assembly a = {st, dst, out->block_size, nb};
    wc_parallel_for(st->p->threads, (nb + kAssembleRun - 1) / kAssembleRun, assemble_run, &a);
    wc_free(dst);
    return WC_OK;
}

thread_local char t_where[160];

} /* namespace */

uint32_t level_size(uint32_t n, int l)
{
    for (int i = 0; i < l; i++) n = (n + 1) / 2;
    return n;
}

wc_status dev_alloc(void **p, size_t bytes, wc_err *err, const char *what)
{
    CUDA_TRY(err, cudaMalloc(p, bytes ? bytes : 1), what);
    return WC_OK;
}

wc_status host_pinned(void **p, size_t bytes, wc_err *err, const char *what)
{
    CUDA_TRY(err, cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocDefault), what);
    return WC_OK;
}

/* Device memory the context holds now (its whole-image buffers). */
size_t held(const cuda_ctx *c)
{
    return c->px_cap + c->coef_cap + c->work_cap + c->planes_cap + c->bands_cap + c->blocks_cap +
           c->slots_cap + c->payload_cap + c->sizes_cap + c->offsets_cap + c->hist_cap +
           c->tabs_cap + c->lens_cap + c->ac_work_cap;
}

/* Room left on the device beside other users: what is free plus what the
 * context holds, less a margin for the runtime's own allocations. */
static constexpr size_t kMargin = (size_t)256 << 20;

uint64_t effective_cap(const cuda_ctx *c, const wc_stage_plan *p)
{
    if (p->max_device_memory) return p->max_device_memory;
    size_t free_b = 0, total_b = 0;
    /* The call asks before begin_call selects the context's device, and
     * cudaMemGetInfo reads the calling thread's current one: on a host
     * of several GPUs, another device's free memory. */
    if (cudaSetDevice(c->device) != cudaSuccess ||
        cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0; /* unknown: the whole-image path, which reports its own failure */
    }
    const size_t room = free_b + held(c);
    return room > kMargin ? room - kMargin : 1;
}

/* Gives back the context's whole-image device buffers (they regrow on
 * the next whole-image call). */
void release_whole(cuda_ctx *c)
{
    void **p[] = {&c->px,     &c->coef,  &c->work,    &c->planes,  &c->bands,
                  &c->blocks, &c->slots, &c->payload, &c->sizes,   &c->offsets,
                  &c->hist,   &c->tabs,  &c->lens,    &c->ac_work, &c->block_hist};
    size_t *cap[] = {&c->px_cap,    &c->coef_cap,    &c->work_cap,      &c->planes_cap,
                     &c->bands_cap, &c->blocks_cap,  &c->slots_cap,     &c->payload_cap,
                     &c->sizes_cap, &c->offsets_cap, &c->hist_cap,      &c->tabs_cap,
                     &c->lens_cap,  &c->ac_work_cap, &c->block_hist_cap};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        if (*p[i]) cudaFree(*p[i]);
        *p[i] = NULL;
        *cap[i] = 0;
    }
    c->px_src = NULL;
}

bool strip_encode_wanted(cuda_ctx *c, const wc_stage_plan *p, const wc_chain *ch)
{
    return strips_wanted(c, p, whole_need(p, ch));
}

bool strips_wanted(cuda_ctx *c, const wc_stage_plan *p, size_t need)
{
    /* No cap and buffers that fit already: no query of the device (a
     * batch of small images pays nothing). */
    if (!p->max_device_memory && need <= held(c)) return false;
    const uint64_t cap = effective_cap(c, p);
    if (cap && need > cap) return true;
    /* Under a cap, buffers an earlier larger image left would count too:
     * given back, the whole-image path grows them to this image's need. */
    if (p->max_device_memory && held(c) > p->max_device_memory) {
        cudaStreamSynchronize(c->stream);
        release_whole(c);
    }
    return false;
}

wc_status strip_encode(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_chain *ch,
                       es_output *out, wc_err *err)
{
    const double t0 = now_s();
    for (uint32_t k = 0; k < p->components; k++)
        WC_RETURN_IF(is_block(p, k), err, WC_ERR_LIMIT,
                     "CUDA backend: a DCT/LOT image over the device-memory cap (%llu bytes) is "
                     "not coded in strips",
                     (unsigned long long)effective_cap(c, p));
    WC_RETURN_IF(ch->layout->nblocks > 0xFFFFFFFFu, err, WC_ERR_LIMIT,
                 "CUDA backend: too many code blocks");
    WC_FORWARD_IF_ERROR(begin_call(c, p, err));
    const uint64_t cap = effective_cap(c, p);
    strip_state st;
    st.c = c;
    st.p = p;
    st.in = in;
    st.ch = ch;
    st.staged = staged_upload(p, in->pixels);
    WC_FORWARD_IF_ERROR(choose_geometry(p, ch, cap, &st.ps, err));
    st.need = need_of(p, ch, st.ps);
    CUDA_TRY(err, cudaStreamSynchronize(c->stream), "starting the strips");
    release_whole(c);
    WC_FORWARD_IF_ERROR(allocate(&st, err));
    describe(&st);
    const size_t nb = ch->layout->nblocks;
    out->block_size = (uint32_t *)wc_malloc_array(nb ? nb : 1, sizeof(uint32_t));
    WC_RETURN_IF(!out->block_size, err, WC_ERR_NOMEM, "out of memory (block sizes)");
    const int arith = ch->header->entropy == 3;
    if (!arith) {
        CUDA_TRY(err, cudaMemsetAsync(st.hist, 0, st.need.hist, c->stream), "clearing histograms");
        WC_FORWARD_IF_ERROR(run_pass(&st, 0, out, err));
        const uint32_t ntab = p->components * WC_NCLASS * BC_NTAB;
        CUDA_TRY(err,
                 wcg_build_tables((const unsigned long long *)st.hist, ntab, (wcg_huf *)st.tabs,
                                  (uint8_t *)st.lens, c->stream),
                 "building tables");
        CUDA_TRY(
            err,
            cudaMemcpyAsync(st.h_lens, st.lens, st.need.lens, cudaMemcpyDeviceToHost, c->stream),
            "downloading code lengths");
        CUDA_TRY(err, cudaStreamSynchronize(c->stream), "building tables");
        WC_FORWARD_IF_ERROR(write_tables(ch->header, st.h_lens, out, err));
    }
    const double t1 = now_s();
    WC_FORWARD_IF_ERROR(run_pass(&st, 1, out, err));
    CUDA_TRY(err, cudaStreamSynchronize(st.up), "uploading strips");
    WC_FORWARD_IF_ERROR(assemble(&st, out, err));
    ch->t_transform = t1 - t0; /* pass 1: uploads, transforms, counts */
    ch->t_entropy = now_s() - t1;
    snprintf(t_where, sizeof t_where,
             "device, %u strips of %u rows (%zu groups), %zu bytes of device memory",
             st.ps.g.nstrips, st.ps.g.S, st.ps.ngroups, st.need.total());
    ch->where = t_where;
    if (c->trace)
        fprintf(stderr, "cuda strip encode: %s; pass 1 %.3f s, pass 2 %.3f s\n", t_where,
                ch->t_transform, ch->t_entropy);
    return WC_OK;
}

} /* namespace wcgb */
