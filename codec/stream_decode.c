/*
 * stream_decode.c -- wc_decode_stream: a file decoded in full-width strips
 * in memory that grows with the image's width, not its area (README,
 * "Decoding in bounded memory").
 *
 * The file is walked once by ranges, chunk by chunk, by wcx_read_chunks'
 * own walk (wcx_walk_chunks, so the same checks in the same order with the
 * same messages): the small chunks (header, palette, tables, index,
 * metadata) are kept, the data chunks (WDAT) only have their CRC computed
 * in pieces.
 * decoder.c's checks of the list follow. Then strip by strip, each
 * component's samples are the window of the inverse over the strip's rows
 * (region.c's machinery: transform/dwt_window.h for the DWT, the 8x8
 * blocks touched, one more around for the LOT); the coefficients a window
 * reads come from a cache per band holding a few rows of it: whole rows
 * of code blocks, read from the file (one read a row of blocks, which lie
 * side by side in the data) and decoded when a strip first needs them,
 * dequantized, and dropped once the strips have gone past them. A block
 * is decoded once; what repeats is the inverse transform over the
 * windows' margins. A block that fails is reported as wc_decode reports
 * it: the lowest failing index of the file (name_lowest_failure), though
 * the strips meet the blocks in another order.
 */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "colour.h"
#include "crc32_fast.h"
#include "dct8.h"
#include "decode_parse.h"
#include "dwt_threads.h"
#include "dwt_window.h"
#include "lot8.h"
#include "meta.h"
#include "palette.h"
#include "parallel.h"
#include "plan.h"
#include "quantizer.h"
#include "region.h"

/* Bytes read at once for a data chunk's CRC. */
#define PIECE_BYTES ((size_t)1 << 20)
/* What the program, the thread and libc hold beside the buffers counted
 * (measured: /usr/bin/time on bench/stream_memory.sh's images). */
#define STREAM_FIXED_BYTES ((uint64_t)3 << 20)
/* Most workers a streaming decode uses (wc_params.threads beyond is
 * this many). */
#define WC_STREAM_MAX_WORKERS 64
/* Strip heights tried, the first whose need fits the memory limit. */
static const uint32_t strip_choices[] = {32, 16, 8};

static wc_status src_read(const wc_stream_source *src, uint64_t off, void *dst, size_t n,
                          wc_err *err)
{
    WC_RETURN_IF(n && src->read(src->user, off, dst, n) != 0, err, WC_ERR_IO,
                 "reading %zu bytes at byte %llu of the file failed", n, (unsigned long long)off);
    return WC_OK;
}

/* ---- the chunk walk ------------------------------------------------------------ */

typedef struct walk {
    wcx_chunk *chunks; /* cap entries, calloc'ed: a kept payload's data is owned */
    size_t n, cap;
    uint64_t held; /* bytes of the chunks kept */
    const wc_stream_source *src;
    uint64_t max_mem;
    uint8_t *piece; /* PIECE_BYTES */
} walk;

static void walk_free(walk *w)
{
    /* every entry, as a failed walk may leave payloads past n */
    for (size_t i = 0; w->chunks && i < w->cap; i++) wc_free((void *)w->chunks[i].data);
    wc_free(w->chunks);
    wc_free(w->piece);
    memset(w, 0, sizeof *w);
}

/* Chunk types whose payload the decode reads: kept in memory. */
static int kept(uint32_t type)
{
    return type == WCX_WHDR || type == WCX_WTAB || type == WCX_WIDX || type == WCX_WPAL ||
           type == WCX_WMET;
}

static wc_status walk_read(void *user, uint64_t off, void *dst, size_t n, wc_err *err)
{
    return src_read(((const walk *)user)->src, off, dst, n, err);
}

/* A kept chunk's payload is read into memory (counted against max_mem), a
 * data chunk's CRC is computed piece by piece. */
static wc_status walk_payload(void *user, wcx_chunk *c, uint32_t *crc_out, wc_err *err)
{
    walk *w = user;
    const uint64_t off = c->offset, len = c->size;
    uint8_t type[4];
    wc_wr32le(type, c->type);
    uLong crc = crc32(0L, type, 4);
    if (kept(c->type)) {
        /* The header's few bytes are always read; past them, the chunks
         * kept count against the limit before they are allocated, with
         * what the decode needs at the least beside them. */
        const uint64_t least = STREAM_FIXED_BYTES + w->held + len;
        if (c->index > 0 && w->max_mem && least > w->max_mem) {
            wcx_header h;
            wc_err e = {{0}};
            memset(&h, 0, sizeof h);
            wcx_header_parse(w->chunks[0].data, w->chunks[0].size, &h, &e);
            return dec_check_memory(&h, least, &(wc_params){.max_memory = w->max_mem}, err);
        }
        uint8_t *data = wc_malloc(len ? len : 1);
        WC_RETURN_IF(!data, err, WC_ERR_NOMEM, "out of memory (chunk %u)", c->index);
        c->data = data; /* walk_free's from here on */
        WC_FORWARD_IF_ERROR(src_read(w->src, off + 8, data, len, err));
        w->held += len;
        crc = wc_crc32((uint32_t)crc, data, len);
    } else {
        for (uint64_t a = 0; a < len; a += PIECE_BYTES) {
            const size_t n = len - a < PIECE_BYTES ? (size_t)(len - a) : PIECE_BYTES;
            WC_FORWARD_IF_ERROR(src_read(w->src, off + 8 + a, w->piece, n, err));
            crc = wc_crc32((uint32_t)crc, w->piece, n);
        }
    }
    *crc_out = (uint32_t)crc;
    return WC_OK;
}

/* wcx_read_chunks_mt's walk (its checks and messages) over the source. */
static wc_status walk_file(const wc_stream_source *src, uint64_t max_mem, walk *w, wc_err *err)
{
    memset(w, 0, sizeof *w);
    w->src = src;
    w->max_mem = max_mem;
    const uint64_t size = src->size;
    /* As decoder.c's parse sizes its list: one entry more than fits. */
    uint64_t max = (size > WCX_MAGIC_SIZE ? (size - WCX_MAGIC_SIZE) / WCX_CHUNK_OVERHEAD : 0) + 1;
    if (max > WCX_MAX_CHUNKS) max = WCX_MAX_CHUNKS;
    w->chunks = wc_calloc((size_t)max, sizeof(wcx_chunk));
    w->piece = wc_malloc(PIECE_BYTES);
    WC_RETURN_IF(!w->chunks || !w->piece, err, WC_ERR_NOMEM, "out of memory (chunk list)");
    w->cap = (size_t)max;
    const wcx_walk_io io = {size, w, walk_read, walk_payload};
    WC_FORWARD_IF_ERROR(wcx_walk_chunks(&io, w->chunks, w->cap, &w->n, err));
    wc_free(w->piece);
    w->piece = NULL;
    return WC_OK;
}

/* ---- the strips ------------------------------------------------------------------ */

/* Rows [r0, r1) of a band (band-local), dequantized: int32 for an
 * integer component, float for a float one (4 bytes either way). */
typedef struct band_cache {
    uint32_t r0, r1, cap;
    uint8_t *rows; /* cap x the band's width elements */
    size_t next;   /* first block of the next row of blocks not yet read */
    size_t end;    /* one past the band's last block */
} band_cache;

typedef struct comp_state {
    int tf, is_float;
    band_cache band[WC_MAX_BANDS];
    int32_t *ipl; /* the strip's samples */
    float *fpl;
} comp_state;

typedef struct streamer {
    const wcx_header *h;
    const wc_layout *lay;
    wc_stage_plan plan;
    const wc_stream_source *src;
    const uint32_t *block_size;
    uint64_t data_off[4]; /* file offset of each component's data */
    size_t *offset;       /* each block's offset within its component's data */
    es_block_decoder *bd;
    int32_t *blk;    /* a row of blocks before dequantization */
    uint8_t *bytes;  /* a row of blocks' coded bytes */
    size_t bytes_at; /* its size */
    comp_state comp[4];
    void *scratch; /* the window inverse's (DWT) or the block plane (DCT/LOT) */
    float *lot_scratch;
    uint8_t *strip_px, *idx_px; /* the strip's samples (and a palette file's indices) */
    uint32_t strip;
    int workers;         /* host threads for the blocks and the window inverse */
    uint8_t band_of[64]; /* DCT/LOT: the band of frequency v * 8 + u */
    size_t fail_block;   /* the block a failed decode_row names, SIZE_MAX if none */
} streamer;

/* The rows of band b of component c a window over image rows [y0, y1)
 * reads, band-local, [*a, *b) (empty when a >= b). */
static void band_rows(const streamer *st, uint32_t c, uint32_t b, uint32_t y0, uint32_t y1,
                      uint32_t *ra, uint32_t *rb)
{
    const wcx_header *h = st->h;
    const wc_band_info *bi = &st->lay->band[c][b];
    if (st->comp[c].tf == WC_TRANSFORM_DWT) {
        dwt_window win;
        dwt_window_plan(h->width, h->height, h->levels, 0, (dwt_rect){0, y0, h->width, y1}, &win);
        const dwt_band band = {bi->x0, bi->y0, bi->w, bi->h, bi->level, bi->orient};
        const dwt_rect r = dwt_window_band_rect(&win, &band);
        *ra = r.y0 < r.y1 && r.x0 < r.x1 ? r.y0 - bi->y0 : 0;
        *rb = r.y0 < r.y1 && r.x0 < r.x1 ? r.y1 - bi->y0 : 0;
        return;
    }
    const uint32_t grow = st->comp[c].tf == WC_TRANSFORM_LOT, nbh = st->lay->plane_h[c] / 8;
    *ra = y0 / 8 > grow ? y0 / 8 - grow : 0;
    *rb = (y1 + 7) / 8 + grow < nbh ? (y1 + 7) / 8 + grow : nbh;
}

/* A row of blocks [first, last] of one band, side by side in st->blk
 * (rows w apart), in pairs decoded in turns, the pairs on the workers. */
typedef struct row_job {
    streamer *st;
    size_t first, last, first_off;
    uint32_t x0, w;
    wc_err *errs;       /* per worker */
    size_t *fail_block; /* per worker: its lowest failing block, SIZE_MAX if none */
    wc_status *status;
} row_job;

static void decode_pair_item(void *arg, size_t p, int worker)
{
    row_job *j = arg;
    if (j->fail_block[worker] != SIZE_MAX) return; /* its first failure is the one to tell */
    const streamer *st = j->st;
    size_t ij[2] = {j->first + 2 * p, j->first + 2 * p + 1};
    const uint8_t *src[2];
    size_t size[2];
    int32_t *dst[2];
    for (int q = 0; q < 2; q++) {
        const size_t i = ij[q] <= j->last ? ij[q] : ij[0];
        src[q] = st->bytes + (st->offset[i] - j->first_off);
        size[q] = st->block_size[i];
        dst[q] = st->blk + (st->lay->blocks[i].x0 - j->x0);
    }
    wc_status s = ij[1] <= j->last ? es_block_decode_pair(st->bd, worker, ij, src, size, dst, j->w,
                                                          &j->errs[worker])
                                   : es_block_decode(st->bd, worker, ij[0], src[0], size[0], dst[0],
                                                     j->w, &j->errs[worker]);
    if (s != WC_OK) {
        j->fail_block[worker] = ij[0];
        j->status[worker] = s;
    }
}

static wc_status decode_row(streamer *st, size_t first, size_t last, size_t first_off, uint32_t x0,
                            uint32_t w, wc_err *err)
{
    wc_err errs[WC_STREAM_MAX_WORKERS];
    size_t fail[WC_STREAM_MAX_WORKERS];
    wc_status status[WC_STREAM_MAX_WORKERS];
    for (int k = 0; k < st->workers; k++) {
        fail[k] = SIZE_MAX;
        errs[k].msg[0] = '\0';
    }
    row_job j = {st, first, last, first_off, x0, w, errs, fail, status};
    const size_t pairs = (last - first) / 2 + 1;
    wc_parallel_for(pairs > 1 ? st->workers : 1, pairs, decode_pair_item, &j);
    int worst = -1;
    for (int k = 0; k < st->workers; k++)
        if (fail[k] != SIZE_MAX && (worst < 0 || fail[k] < fail[worst])) worst = k;
    if (worst < 0) return WC_OK;
    st->fail_block = fail[worst];
    return wc_fail(err, status[worst], "%s", errs[worst].msg);
}

/* The last block of the row of blocks that starts at block first. */
static size_t row_last(const streamer *st, size_t first, size_t end)
{
    size_t last = first;
    while (last + 1 < end && st->lay->blocks[last + 1].y0 == st->lay->blocks[first].y0) last++;
    return last;
}

/* After block st->fail_block failed: the failing block wc_decode names.
 * es_decode names the lowest failing index of the whole file; the strips
 * meet the blocks in another order (a strip's every band before the next
 * strip), so the blocks below the failed one not yet decoded are decoded
 * now, bands in layout order, rows in order: the first failure found is
 * the lowest, and its message replaces err's. Only an error costs this
 * (at most the entropy decode of the blocks below). A read failing here
 * leaves err as it is: the damage found stands. Returns the status to
 * report (failed's, the failed block's, or the lower block's). */
static wc_status name_lowest_failure(streamer *st, wc_status failed, wc_err *err)
{
    const size_t f = st->fail_block;
    for (uint32_t c = 0; c < st->h->components; c++)
        for (uint32_t b = 0; b < st->lay->nbands[c]; b++) {
            const band_cache *bc = &st->comp[c].band[b];
            for (size_t i = bc->next; i < bc->end && i < f;) {
                const size_t last = row_last(st, i, bc->end);
                const size_t first_off = st->offset[i];
                const size_t nbytes = st->offset[last] + st->block_size[last] - first_off;
                const wc_band_info *bi = &st->lay->band[c][b];
                wc_err e = {{0}};
                if (src_read(st->src, st->data_off[c] + first_off, st->bytes, nbytes, &e) != WC_OK)
                    return failed;
                const wc_status s = decode_row(st, i, last, first_off, bi->x0, bi->w, &e);
                if (s == WC_OK) {
                    i = last + 1;
                    continue;
                }
                if (st->fail_block >= f) return failed; /* the same block again */
                *err = e;
                return s;
            }
        }
    return failed;
}

/* Rows [a, b) of a band present in its cache: rows before a dropped, rows
 * of blocks read, decoded and dequantized until b. */
static wc_status cache_fill(streamer *st, uint32_t c, uint32_t bnd, uint32_t a, uint32_t b,
                            wc_err *err)
{
    band_cache *bc = &st->comp[c].band[bnd];
    if (a >= b) return WC_OK;
    const wc_band_info *bi = &st->lay->band[c][bnd];
    const size_t w = bi->w;
    if (a > bc->r0) { /* drop the rows the strips have passed */
        if (a < bc->r1)
            memmove(bc->rows, bc->rows + (size_t)(a - bc->r0) * w * 4,
                    (size_t)(bc->r1 - a) * w * 4);
        bc->r0 = a < bc->r1 ? a : bc->r1;
    }
    const float step = st->plan.steps[c][bi->step_index];
    const int is_float = st->comp[c].is_float,
              identity = !is_float && dequant_int_is_identity(step);
    while (bc->r1 < b && bc->next < bc->end) {
        const wc_cblk *k0 = &st->lay->blocks[bc->next];
        const size_t last = row_last(st, bc->next, bc->end);
        const uint32_t rs = k0->y0 - bi->y0, re = rs + k0->h;
        if (re <= a) { /* wholly before the window: never read */
            bc->next = last + 1;
            bc->r0 = bc->r1 = re;
            continue;
        }
        if (bc->r1 <= bc->r0) bc->r0 = bc->r1 = rs > a ? rs : a;
        const size_t first_off = st->offset[bc->next];
        const size_t nbytes = st->offset[last] + st->block_size[last] - first_off;
        WC_FORWARD_IF_ERROR(src_read(st->src, st->data_off[c] + first_off, st->bytes, nbytes, err));
        WC_FORWARD_IF_ERROR(decode_row(st, bc->next, last, first_off, bi->x0, w, err));
        for (uint32_t y = bc->r1; y < re; y++) {
            const int32_t *q = st->blk + (size_t)(y - rs) * w;
            uint8_t *row = bc->rows + (size_t)(y - bc->r0) * w * 4;
            if (is_float) {
                float *f = (float *)(void *)row;
                for (size_t x = 0; x < w; x++) f[x] = dequant_value(q[x], step, st->plan.recon);
            } else if (identity) {
                memcpy(row, q, w * 4);
            } else {
                int32_t *v = (int32_t *)(void *)row;
                for (size_t x = 0; x < w; x++) v[x] = dequant_int_value(q[x], step, st->plan.recon);
            }
        }
        bc->r1 = re;
        bc->next = last + 1;
    }
    return WC_OK;
}

typedef struct fetch_ctx {
    const streamer *st;
    uint32_t c;
} fetch_ctx;

/* dwt_window_src's at(): plane coefficient (py, px) in its band's cache. */
static const void *fetch_at(const void *user, uint32_t py, uint32_t px)
{
    static const uint32_t nothing[1] = {0}; /* an empty band's run: never read */
    const fetch_ctx *f = user;
    const wc_layout *lay = f->st->lay;
    for (uint32_t b = 0; b < lay->nbands[f->c]; b++) {
        const wc_band_info *bi = &lay->band[f->c][b];
        if (px < bi->x0 || px >= bi->x0 + bi->w || py < bi->y0 || py >= bi->y0 + bi->h) continue;
        const band_cache *bc = &f->st->comp[f->c].band[b];
        return bc->rows + ((size_t)(py - bi->y0 - bc->r0) * bi->w + (px - bi->x0)) * 4;
    }
    return nothing;
}

/* Component c's samples of image rows [y0, y1) into its ipl/fpl. */
static wc_status strip_comp(streamer *st, uint32_t c, uint32_t y0, uint32_t y1, wc_err *err)
{
    const wcx_header *h = st->h;
    const wc_layout *lay = st->lay;
    comp_state *cs = &st->comp[c];
    for (uint32_t b = 0; b < lay->nbands[c]; b++) {
        uint32_t ra, rb;
        band_rows(st, c, b, y0, y1, &ra, &rb);
        WC_FORWARD_IF_ERROR(cache_fill(st, c, b, ra, rb, err));
    }
    const uint32_t W = h->width, rows = y1 - y0;
    if (cs->tf == WC_TRANSFORM_DWT) {
        dwt_window win;
        dwt_window_plan(W, h->height, h->levels, 0, (dwt_rect){0, y0, W, y1}, &win);
        fetch_ctx f = {st, c};
        const dwt_window_src src = {fetch_at, &f};
        const int bad =
            cs->is_float ? dwt97_inverse_window_src(&src, &win, cs->fpl, st->scratch, st->workers)
                         : dwt53_inverse_window_src(&src, &win, cs->ipl, st->scratch, st->workers);
        WC_RETURN_IF(bad, err, WC_ERR_NOMEM, "out of memory (window scratch)");
        return WC_OK;
    }
    /* DCT/LOT: the strip's 8x8 blocks (and one more row of them above and
     * below for the LOT) as a plane of their own, as region.c does. */
    uint32_t by0, by1;
    band_rows(st, c, 0, y0, y1, &by0, &by1);
    const uint32_t pw = lay->plane_w[c], lw = pw, lh = (by1 - by0) * 8, bw = pw / 8;
    float *loc = st->scratch;
    for (uint32_t y = 0; y < lh; y++) {
        const uint32_t v = y & 7, by = by0 + y / 8;
        for (uint32_t u = 0; u < 8; u++) {
            const uint32_t b = st->band_of[v * 8 + u];
            const band_cache *bc = &cs->band[b];
            const float *src = (const float *)(const void *)bc->rows + (size_t)(by - bc->r0) * bw;
            float *dst = loc + (size_t)y * lw + u;
            for (uint32_t bx = 0; bx < bw; bx++) dst[(size_t)bx * 8] = src[bx];
        }
    }
    if (cs->tf == WC_TRANSFORM_LOT)
        lot8_inverse(loc, lw, lh, st->lot_scratch);
    else
        dct8_inverse(loc, lw, lh);
    const uint32_t oy = y0 - by0 * 8;
    for (uint32_t y = 0; y < rows; y++)
        memcpy(cs->fpl + (size_t)y * W, loc + (size_t)(oy + y) * lw, W * sizeof(float));
    return WC_OK;
}

/* ---- the plan: strip height, buffer sizes, the need ----------------------------- */

/* What a strip height takes: each band cache's rows, the largest window
 * scratch, and the bytes of the largest row of blocks. */
typedef struct stream_plan {
    uint32_t strip;
    uint32_t cap[4][WC_MAX_BANDS];
    size_t scratch_elems, lot_elems, bytes, blk_elems;
    uint64_t need;
} stream_plan;

/* Walks the strips as the decode does, keeping the most rows each cache
 * holds at once (from the first row a strip reads to the end of the row
 * of blocks its last row lies in) and the largest window. */
static void plan_strips(const streamer *st, uint32_t strip, stream_plan *sp)
{
    const wcx_header *h = st->h;
    const wc_layout *lay = st->lay;
    const uint32_t side = 1u << h->block_log2;
    memset(sp, 0, sizeof *sp);
    sp->strip = strip;
    for (uint32_t y0 = 0; y0 < h->height; y0 += strip) {
        const uint32_t y1 = h->height - y0 < strip ? h->height : y0 + strip;
        for (uint32_t c = 0; c < h->components; c++) {
            for (uint32_t b = 0; b < lay->nbands[c]; b++) {
                uint32_t ra, rb;
                band_rows(st, c, b, y0, y1, &ra, &rb);
                if (ra >= rb) continue;
                uint32_t end = (rb + side - 1) / side * side;
                if (end > lay->band[c][b].h) end = lay->band[c][b].h;
                /* rows of the row of blocks before ra are never stored */
                const uint32_t first = ra / side * side > ra ? ra / side * side : ra;
                if (end - first > sp->cap[c][b]) sp->cap[c][b] = end - first;
            }
            size_t elems;
            if (st->comp[c].tf == WC_TRANSFORM_DWT) {
                dwt_window win;
                dwt_window_plan(h->width, h->height, h->levels, 0, (dwt_rect){0, y0, h->width, y1},
                                &win);
                elems = dwt_window_scratch_elems(&win);
            } else {
                uint32_t by0, by1;
                band_rows(st, c, 0, y0, y1, &by0, &by1);
                elems = (size_t)lay->plane_w[c] * (by1 - by0) * 8;
                if (st->comp[c].tf == WC_TRANSFORM_LOT) {
                    const size_t le = lot8_scratch_elems(lay->plane_w[c], (by1 - by0) * 8);
                    if (le > sp->lot_elems) sp->lot_elems = le;
                }
            }
            if (elems > sp->scratch_elems) sp->scratch_elems = elems;
        }
    }
    /* A row of blocks: its widest band's width x the block side, and the
     * most coded bytes of any one row (from the index). */
    for (size_t i = 0; i < lay->nblocks;) {
        const wc_cblk *k = &lay->blocks[i];
        size_t j = i, bytes = 0;
        while (j < lay->nblocks && lay->blocks[j].comp == k->comp &&
               lay->blocks[j].band == k->band && lay->blocks[j].y0 == k->y0)
            bytes += st->block_size[j++];
        const size_t elems = (size_t)lay->band[k->comp][k->band].w * side;
        if (elems > sp->blk_elems) sp->blk_elems = elems;
        if (bytes > sp->bytes) sp->bytes = bytes;
        i = j;
    }
}

/* The bytes the decode holds with plan sp, beside what the walk kept
 * (held) and the parse's lists. */
static uint64_t plan_need(const streamer *st, const stream_plan *sp, uint64_t held,
                          const parsed *ps)
{
    const wcx_header *h = st->h;
    const wc_layout *lay = st->lay;
    const uint64_t W = h->width, sh = sp->strip;
    uint64_t need = STREAM_FIXED_BYTES + held + (uint64_t)ps->nchunks * sizeof(wcx_chunk);
    /* the layout's blocks, their sizes and offsets */
    need += (uint64_t)lay->nblocks * (sizeof(wc_cblk) + sizeof(uint32_t) + sizeof(size_t));
    need += es_block_decoder_bytes(h, st->workers) + sp->blk_elems * 4 + sp->bytes;
    need += (uint64_t)sp->scratch_elems * 4 + (uint64_t)sp->lot_elems * 4;
    /* the scratch of the window inverse's levels (dwt_threads, one worker) */
    const uint64_t mt = (uint64_t)DWT_MT_STRIP * (sh + 64);
    need += (mt > W ? mt : W) * 4 * (uint64_t)st->workers;
    for (uint32_t c = 0; c < h->components; c++) {
        for (uint32_t b = 0; b < lay->nbands[c]; b++)
            need += (uint64_t)sp->cap[c][b] * lay->band[c][b].w * 4;
        need += W * sh * (st->comp[c].is_float ? 8 : 4);
    }
    const wcx_header *fh = &ps->fh;
    need += W * sh * fh->components * (fh->bit_depth > 8 ? 2 : 1);
    if (ps->has_palette) need += W * sh * (h->bit_depth > 8 ? 2 : 1);
    return need;
}

static void streamer_free(streamer *st)
{
    for (uint32_t c = 0; c < 4; c++) {
        for (uint32_t b = 0; b < WC_MAX_BANDS; b++) wc_free(st->comp[c].band[b].rows);
        wc_free(st->comp[c].ipl);
        wc_free(st->comp[c].fpl);
    }
    es_block_decoder_free(st->bd);
    wc_free(st->offset);
    wc_free(st->blk);
    wc_free(st->bytes);
    wc_free(st->scratch);
    wc_free(st->lot_scratch);
    wc_free(st->strip_px);
    wc_free(st->idx_px);
}

/* The streamer of a parsed file (no buffers yet): components, offsets. */
static wc_status streamer_init(streamer *st, const parsed *ps, const walk *w,
                               const wc_stream_source *src, int threads, wc_err *err)
{
    memset(st, 0, sizeof *st);
    st->workers = wc_thread_count(threads);
    st->fail_block = SIZE_MAX;
    if (st->workers > WC_STREAM_MAX_WORKERS) st->workers = WC_STREAM_MAX_WORKERS;
    st->h = &ps->h;
    st->lay = &ps->lay;
    st->src = src;
    st->block_size = ps->block_size;
    plan_from_header(&ps->h, 0.0f, &st->plan);
    unsigned ndat = 0;
    for (size_t i = 0; i < w->n && ndat < ps->h.components; i++)
        if (w->chunks[i].type == WCX_WDAT) st->data_off[ndat++] = w->chunks[i].offset + 8;
    for (uint32_t c = 0; c < ps->h.components; c++) {
        st->comp[c].tf = layout_comp_transform(&ps->h, c);
        st->comp[c].is_float = wc_plan_is_float(&st->plan, c);
        const size_t first = ps->lay.first_block[c];
        for (uint32_t b = 0; b < ps->lay.nbands[c]; b++) {
            band_cache *bc = &st->comp[c].band[b];
            size_t i = first;
            while (i < ps->lay.nblocks && ps->lay.blocks[i].comp == c && ps->lay.blocks[i].band < b)
                i++;
            bc->next = i;
            while (i < ps->lay.nblocks && ps->lay.blocks[i].comp == c &&
                   ps->lay.blocks[i].band == b)
                i++;
            bc->end = i;
        }
    }
    for (unsigned z = 0; z < 64; z++) st->band_of[wc_zigzag[z]] = (uint8_t)z;
    st->offset = wc_malloc_array(ps->lay.nblocks ? ps->lay.nblocks : 1, sizeof(size_t));
    WC_RETURN_IF(!st->offset, err, WC_ERR_NOMEM, "out of memory (block offsets)");
    return es_block_offsets(&ps->lay, &ps->in, st->offset, err);
}

/* The largest strip whose need is within the limit; WC_ERR_LIMIT else. */
static wc_status choose_plan(const streamer *st, const parsed *ps, uint64_t held,
                             const wc_params *p, stream_plan *sp, wc_err *err)
{
    const int blocked = ps->h.transform != WC_TRANSFORM_DWT;
    const size_t nchoice = sizeof strip_choices / sizeof strip_choices[0];
    for (size_t i = 0; i < nchoice; i++) {
        uint32_t strip = strip_choices[i];
        if (strip > ps->h.height && !blocked) strip = ps->h.height;
        plan_strips(st, strip, sp);
        sp->need = plan_need(st, sp, held, ps);
        const uint64_t max_mem = p ? p->max_memory : WC_DEFAULT_MAX_MEMORY;
        if (!max_mem || sp->need <= max_mem) return WC_OK;
        if (i + 1 == nchoice || strip_choices[i + 1] < 8)
            return dec_check_memory(&ps->h, sp->need, p, err);
    }
    return WC_OK;
}

static wc_status streamer_alloc(streamer *st, const parsed *ps, const stream_plan *sp, wc_err *err)
{
    const wcx_header *h = &ps->h;
    const size_t W = h->width, sh = sp->strip;
    wc_status s = es_block_decoder_create(h, &ps->lay, &ps->in, st->workers, &st->bd, err);
    if (s != WC_OK) return s;
    int bad = 0;
    for (uint32_t c = 0; c < h->components; c++) {
        for (uint32_t b = 0; b < ps->lay.nbands[c]; b++) {
            st->comp[c].band[b].cap = sp->cap[c][b];
            if (sp->cap[c][b])
                bad |= !(st->comp[c].band[b].rows =
                             wc_malloc_array((size_t)sp->cap[c][b] * ps->lay.band[c][b].w, 4));
        }
        bad |= !(st->comp[c].ipl = wc_malloc_array(W * sh, sizeof(int32_t)));
        if (st->comp[c].is_float) bad |= !(st->comp[c].fpl = wc_malloc_array(W * sh, 4));
    }
    bad |= !(st->blk = wc_malloc_array(sp->blk_elems ? sp->blk_elems : 1, sizeof(int32_t)));
    bad |= !(st->bytes = wc_malloc(sp->bytes ? sp->bytes : 1));
    bad |= !(st->scratch = wc_malloc_array(sp->scratch_elems ? sp->scratch_elems : 1, 4));
    if (sp->lot_elems) bad |= !(st->lot_scratch = wc_malloc_array(sp->lot_elems, 4));
    const wcx_header *fh = &ps->fh;
    bad |= !(st->strip_px = wc_malloc(W * sh * fh->components * (fh->bit_depth > 8 ? 2 : 1)));
    if (ps->has_palette) bad |= !(st->idx_px = wc_malloc(W * sh * (h->bit_depth > 8 ? 2 : 1)));
    WC_RETURN_IF(bad, err, WC_ERR_NOMEM, "out of memory (strip buffers)");
    st->strip = sp->strip;
    return WC_OK;
}

/* Every strip, top to bottom, to the sink. */
static wc_status run_strips(streamer *st, const parsed *ps, const wc_stream_sink *sink, wc_err *err)
{
    const wcx_header *h = &ps->h, *fh = &ps->fh;
    for (uint32_t y0 = 0; y0 < h->height; y0 += st->strip) {
        const uint32_t y1 = h->height - y0 < st->strip ? h->height : y0 + st->strip;
        for (uint32_t c = 0; c < h->components; c++) {
            const wc_status s = strip_comp(st, c, y0, y1, err);
            if (s == WC_OK) continue;
            return st->fail_block != SIZE_MAX ? name_lowest_failure(st, s, err) : s;
        }
        int32_t *ipl[4] = {NULL, NULL, NULL, NULL};
        float *fpl[4] = {NULL, NULL, NULL, NULL};
        for (uint32_t c = 0; c < h->components; c++) {
            ipl[c] = st->comp[c].ipl;
            fpl[c] = st->comp[c].fpl;
        }
        wc_image px = {h->width, y1 - y0, fh->components, fh->bit_depth, 0, st->strip_px};
        if (ps->has_palette) {
            wc_image idx = {h->width, y1 - y0, 1, h->bit_depth, 0, st->idx_px};
            region_window_samples(&st->plan, ipl, fpl, &idx);
            WC_FORWARD_IF_ERROR(palette_map(&idx, &ps->pal, &px, err));
        } else {
            region_window_samples(&st->plan, ipl, fpl, &px);
        }
        if (sink->rows) {
            wc_status s = sink->rows(sink->user, &px, y0);
            WC_RETURN_IF(s != WC_OK, err, s, "the row sink refused rows %u..%u (status %d)", y0,
                         y1 - 1, (int)s);
        }
    }
    return WC_OK;
}

/* Files decoded whole, then handed out in rows: the Monolithic DWT (no
 * window inverse) and filtered deflate (entropy 4: each plane is one code
 * block, the graphics the automatic lossless layout keeps, small). */
static int stream_needs_whole(const wcx_header *h)
{
    return region_needs_whole(h) || h->entropy == WCX_ENTROPY_FILTERED;
}

/* A file stream_needs_whole names: read whole, wc_decode, rows handed out. */
static wc_status stream_by_whole(wc_ctx *ctx, const wc_params *p, const wc_stream_source *src,
                                 const wc_stream_sink *sink)
{
    wc_err *err = &ctx->err;
    WC_RETURN_IF(src->size > SIZE_MAX, err, WC_ERR_LIMIT, "the file is too large");
    uint8_t *file = wc_malloc(src->size ? (size_t)src->size : 1);
    WC_RETURN_IF(!file, err, WC_ERR_NOMEM, "out of memory (the file)");
    wc_status s = src_read(src, 0, file, (size_t)src->size, err);
    wc_image img;
    memset(&img, 0, sizeof img);
    wc_params q;
    if (p)
        q = *p;
    else
        wc_params_init(&q);
    q.backend = WC_BACKEND_CPU;
    if (s == WC_OK) s = wc_decode(ctx, &q, file, (size_t)src->size, &img);
    wc_free(file);
    if (s == WC_OK && sink->begin) {
        wc_image shape = img;
        shape.pixels = NULL;
        s = sink->begin(sink->user, &shape);
        if (s != WC_OK) wc_fail(err, s, "the row sink refused the image (status %d)", (int)s);
    }
    const size_t row = wc_image_row_bytes(&img);
    for (uint32_t y0 = 0; s == WC_OK && y0 < img.height; y0 += 64) {
        const uint32_t n = img.height - y0 < 64 ? img.height - y0 : 64;
        wc_image part = {img.width,     n, img.components,
                         img.bit_depth, 0, (uint8_t *)img.pixels + (size_t)y0 * row};
        if (sink->rows) s = sink->rows(sink->user, &part, y0);
        if (s != WC_OK)
            wc_fail(err, s, "the row sink refused rows from %u (status %d)", y0, (int)s);
    }
    wc_image_free(&img);
    snprintf(ctx->note, sizeof ctx->note,
             "stream: the whole image decoded, then handed out (a Monolithic DWT or "
             "filtered-deflate file)");
    return s;
}

/* What both calls hold of a file opened for streaming: the walk's
 * chunks, the parse, the streamer and its plan (none when whole). */
typedef struct stream_file {
    walk w;
    parsed ps;
    streamer st;
    stream_plan sp;
    int whole; /* decoded whole (stream_by_whole): no streamer, no plan */
} stream_file;

static void stream_close(stream_file *f)
{
    streamer_free(&f->st);
    parsed_free(&f->ps);
    walk_free(&f->w);
}

/* Walks and parses the file, plans the strips: what both calls share.
 * f is stream_close's to free whatever this returns. */
static wc_status stream_open(wc_ctx *ctx, const wc_params *p, const wc_stream_source *src,
                             stream_file *f)
{
    wc_err *err = &ctx->err;
    memset(f, 0, sizeof *f);
    walk *w = &f->w;
    parsed *ps = &f->ps;
    WC_RETURN_IF(!src || !src->read, err, WC_ERR_ARG, "no source to read the file from");
    WC_RETURN_IF(p && p->memory == WC_MEMORY_DEVICE, err, WC_ERR_UNSUPPORTED,
                 "a streaming decode writes host memory");
    const uint64_t max_mem = p ? p->max_memory : WC_DEFAULT_MAX_MEMORY;
    /* A single-chunk file (WONE: entropy 4, under WCX_ONE_MAX_FILE bytes)
     * is decoded whole; wc_decode checks it. */
    if (src->size >= WCX_MAGIC_SIZE + WCX_CHUNK_OVERHEAD && src->size < WCX_ONE_MAX_FILE) {
        uint8_t head[WCX_MAGIC_SIZE + 8];
        WC_FORWARD_IF_ERROR(src_read(src, 0, head, sizeof head, err));
        if (wc_rd32le(head + WCX_MAGIC_SIZE + 4) == WCX_WONE) {
            f->whole = 1;
            return WC_OK;
        }
    }
    double t0 = ctx_now();
    wc_status s = walk_file(src, max_mem, w, err);
    ctx->times.container = ctx_now() - t0;
    if (s != WC_OK) return s;
    /* The list now belongs to ps (freed by parsed_free); the kept
     * payloads stay the walk's. */
    wcx_chunk *list = wc_malloc_array(w->n ? w->n : 1, sizeof *list);
    WC_RETURN_IF(!list, err, WC_ERR_NOMEM, "out of memory (chunk list)");
    memcpy(list, w->chunks, w->n * sizeof *list);
    WC_FORWARD_IF_ERROR(dec_parse_list(ctx, p, list, w->n, ps));
    if (stream_needs_whole(&ps->h)) {
        f->whole = 1;
        return WC_OK;
    }
    WC_FORWARD_IF_ERROR(streamer_init(&f->st, ps, w, src, p ? p->threads : 0, err));
    return choose_plan(&f->st, ps, w->held, p, &f->sp, err);
}

static wc_status decode_stream(wc_ctx *ctx, const wc_params *p, const wc_stream_source *src,
                               const wc_stream_sink *sink, struct wc_meta *meta)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    WC_RETURN_IF(!sink, &ctx->err, WC_ERR_ARG, "no sink for the rows");
    stream_file f;
    wc_status s = stream_open(ctx, p, src, &f);
    if (s == WC_OK && meta) s = meta_from_chunks(f.w.chunks, f.w.n, meta, &ctx->err);
    if (s == WC_OK && f.whole) {
        stream_close(&f);
        return stream_by_whole(ctx, p, src, sink);
    }
    const parsed *ps = &f.ps;
    if (s == WC_OK) s = ctx_backend(ctx, WC_BACKEND_CPU);
    if (s == WC_OK) s = streamer_alloc(&f.st, ps, &f.sp, &ctx->err);
    if (s == WC_OK && sink->begin) {
        wc_image shape = {ps->fh.width, ps->fh.height, ps->fh.components, ps->fh.bit_depth, 0,
                          NULL};
        s = sink->begin(sink->user, &shape);
        if (s != WC_OK) wc_fail(&ctx->err, s, "the row sink refused the image (status %d)", (int)s);
    }
    if (s == WC_OK) {
        double t0 = ctx_now();
        s = run_strips(&f.st, ps, sink, &ctx->err);
        ctx->times.transform = ctx_now() - t0;
        snprintf(ctx->note, sizeof ctx->note,
                 "stream: strips of %u rows on the host, about %llu bytes at the peak", f.sp.strip,
                 (unsigned long long)f.sp.need);
    }
    stream_close(&f);
    return s;
}

wc_status wc_decode_stream(wc_ctx *ctx, const wc_params *p, const wc_stream_source *src,
                           const wc_stream_sink *sink, struct wc_meta *meta)
{
    wc_thread_pool *was = ctx_enter(ctx); /* the strips' loops on ctx's threads */
    wc_status s = decode_stream(ctx, p, src, sink, meta);
    ctx_leave(was);
    return s;
}

uint64_t wc_decode_stream_memory(wc_ctx *ctx, const wc_params *p, const wc_stream_source *src,
                                 uint32_t *strip_rows)
{
    if (!ctx) return 0;
    ctx_begin(ctx);
    stream_file f;
    wc_status s = stream_open(ctx, p, src, &f);
    uint64_t need = s == WC_OK && !f.whole ? f.sp.need : 0;
    if (s == WC_OK && f.whole)
        wc_fail(&ctx->err, WC_ERR_UNSUPPORTED,
                "a Monolithic DWT or filtered-deflate file is decoded whole (wc_decode's need)");
    if (strip_rows) *strip_rows = need ? f.sp.strip : 0;
    stream_close(&f);
    return need;
}
