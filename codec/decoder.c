/*
 * decoder.c -- .wcx to image: container checks, limits, then the
 * backend's whole chain back (code blocks, inverse transform, samples). Every count read from the file is checked before it
 * sizes anything, and sizes are capped by the caller's limits: pixels and
 * memory (wc_params), code blocks (WC_MAX_BLOCKS, and the index's size).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "dwt.h"
#include "entropy_stage.h"
#include "lot8.h"
#include "palette.h"
#include "plan.h"
#include "region.h"
#include "decode_parse.h"

void parsed_free(parsed *ps)
{
    wc_free(ps->chunks);
    wc_free(ps->block_size);
    layout_free(&ps->lay);
}

static wc_status read_index(const wcx_chunk *k, parsed *ps, wc_err *err)
{
    const uint8_t *p = k->data, *end = k->data + k->size;
    for (size_t i = 0; i < ps->lay.nblocks; i++) {
        uint32_t v = 0;
        unsigned shift = 0;
        for (;;) {
            WC_RETURN_IF(p >= end, err, WC_ERR_CORRUPT,
                         "chunk %u (WIDX) at byte %zu: index ends after %zu of %zu blocks",
                         k->index, k->offset, i, ps->lay.nblocks);
            uint8_t b = *p++;
            WC_RETURN_IF(shift == 28 && b > 0x07, err, WC_ERR_CORRUPT,
                         "chunk %u (WIDX) at byte %zu: size of block %zu out of range", k->index,
                         k->offset, i);
            v |= (uint32_t)(b & 0x7F) << shift;
            if (!(b & 0x80)) break;
            shift += 7;
        }
        ps->block_size[i] = v;
    }
    WC_RETURN_IF(p != end, err, WC_ERR_CORRUPT,
                 "chunk %u (WIDX) at byte %zu: %zu stray bytes after the index", k->index,
                 k->offset, (size_t)(end - p));
    /* Each component's blocks must fill its WDAT exactly: checked here so
     * that wc_inspect, which reports bytes per band from the index, refuses
     * an index that does not describe the data. */
    for (uint32_t c = 0; c < ps->lay.components; c++) {
        size_t last = c + 1 < ps->lay.components ? ps->lay.first_block[c + 1] : ps->lay.nblocks;
        uint64_t sum = 0;
        for (size_t i = ps->lay.first_block[c]; i < last; i++) sum += ps->block_size[i];
        WC_RETURN_IF(sum != ps->in.data_size[c], err, WC_ERR_CORRUPT,
                     "chunk %u (WIDX) at byte %zu: the blocks of component %u add up to %llu "
                     "bytes, its data chunk (WDAT) has %zu",
                     k->index, k->offset, c, (unsigned long long)sum, ps->in.data_size[c]);
    }
    return WC_OK;
}

/* Finds the payload chunks in the order FORMAT.md gives for a 1.0 file:
 * the tables (WTAB), one index (WIDX), then the data (WDAT); a chunk out of
 * that order is corrupt (a WTAB after the WIDX is one too many, as the
 * WIDX needs them all before it). Unknown chunks are skipped wherever. */
static wc_status collect(parsed *ps, wc_err *err)
{
    unsigned ntab = 0, ndat = 0, nidx = 0;
    const wcx_chunk *idx = NULL;
    /* Filtered deflate (entropy 4): a component is one block, its WDAT. */
    const int no_index = ps->h.entropy == WCX_ENTROPY_FILTERED;
    for (size_t i = 1; i < ps->nchunks; i++) {
        const wcx_chunk *k = &ps->chunks[i];
        if (k->type == WCX_WTAB) {
            WC_RETURN_IF(!wcx_entropy_has_tables(ps->h.entropy) || ntab >= ps->h.components, err,
                         WC_ERR_CORRUPT, "chunk %u (WTAB) at byte %zu: unexpected table chunk",
                         k->index, k->offset);
            ps->in.tables[ntab] = k->data;
            ps->in.table_size[ntab++] = k->size;
        } else if (k->type == WCX_WDAT) {
            WC_RETURN_IF(ndat >= ps->h.components, err, WC_ERR_CORRUPT,
                         "chunk %u (WDAT) at byte %zu: more data chunks than components", k->index,
                         k->offset);
            WC_RETURN_IF(!nidx && !no_index, err, WC_ERR_CORRUPT,
                         "chunk %u (WDAT) at byte %zu: misplaced: data before the block index "
                         "(WIDX)",
                         k->index, k->offset);
            ps->in.data[ndat] = k->data;
            ps->in.data_size[ndat++] = k->size;
        } else if (k->type == WCX_WIDX) {
            WC_RETURN_IF(no_index, err, WC_ERR_CORRUPT,
                         "chunk %u (WIDX) at byte %zu: a block index in a file of entropy 4 "
                         "(its data chunks are its blocks)",
                         k->index, k->offset);
            WC_RETURN_IF(nidx++, err, WC_ERR_CORRUPT,
                         "chunk %u (WIDX) at byte %zu: a second block index", k->index, k->offset);
            unsigned want_tab = wcx_entropy_has_tables(ps->h.entropy) ? ps->h.components : 0;
            WC_RETURN_IF(ntab != want_tab, err, WC_ERR_CORRUPT,
                         "chunk %u (WIDX) at byte %zu: misplaced: after %u of the %u table chunks "
                         "(WTAB)",
                         k->index, k->offset, ntab, want_tab);
            idx = k;
        }
    }
    unsigned want_tab = wcx_entropy_has_tables(ps->h.entropy) ? ps->h.components : 0;
    WC_RETURN_IF(ntab != want_tab, err, WC_ERR_CORRUPT, "%u table chunks (WTAB), expected %u", ntab,
                 want_tab);
    WC_RETURN_IF(ndat != ps->h.components, err, WC_ERR_CORRUPT,
                 "%u data chunks (WDAT), expected %u", ndat, ps->h.components);
    WC_RETURN_IF(!idx && !no_index, err, WC_ERR_CORRUPT, "no block index chunk (WIDX)");
    ps->block_size = wc_malloc_array(ps->lay.nblocks ? ps->lay.nblocks : 1, sizeof(uint32_t));
    WC_RETURN_IF(!ps->block_size, err, WC_ERR_NOMEM, "out of memory (block index)");
    ps->in.block_size = ps->block_size;
    if (no_index) {
        WC_RETURN_IF(ps->lay.nblocks != ps->h.components, err, WC_ERR_CORRUPT,
                     "entropy 4 with %zu code blocks for %u components", ps->lay.nblocks,
                     (unsigned)ps->h.components);
        for (uint32_t c = 0; c < ps->h.components; c++) {
            WC_RETURN_IF(ps->in.data_size[c] > 0x7FFFFFFFu, err, WC_ERR_CORRUPT,
                         "component %u: %zu data bytes exceed one block's limit", c,
                         ps->in.data_size[c]);
            ps->block_size[c] = (uint32_t)ps->in.data_size[c];
        }
        return WC_OK;
    }
    return read_index(idx, ps, err);
}

/* A palette file (colour 3) has exactly one WPAL, the chunk right after
 * WHDR; other files have none. The palette checked, the header becomes
 * the index plane's: one component of the index depth, no colour. */
static wc_status read_palette(parsed *ps, wc_err *err)
{
    const int want = ps->h.colour == WCX_COLOUR_PALETTE;
    for (size_t i = 1; i < ps->nchunks; i++) {
        const wcx_chunk *k = &ps->chunks[i];
        if (k->type != WCX_WPAL) continue;
        WC_RETURN_IF(!want, err, WC_ERR_CORRUPT,
                     "chunk %u (WPAL) at byte %zu: a palette in a file whose colour is %u, not "
                     "3 (palette)",
                     k->index, k->offset, (unsigned)ps->h.colour);
        WC_RETURN_IF(i != 1, err, WC_ERR_CORRUPT,
                     "chunk %u (WPAL) at byte %zu: %s palette chunk (it must directly follow "
                     "WHDR)",
                     k->index, k->offset,
                     ps->chunks[1].type == WCX_WPAL ? "a second" : "misplaced:");
    }
    if (!want) return WC_OK;
    WC_RETURN_IF(ps->nchunks < 2 || ps->chunks[1].type != WCX_WPAL, err, WC_ERR_CORRUPT,
                 "a palette file (colour 3) without its palette chunk (WPAL) after WHDR");
    WC_RETURN_IF(!(ps->h.flags & 1), err, WC_ERR_CORRUPT,
                 "header: a palette file (colour 3) must be lossless (flags bit 0)");
    WC_FORWARD_IF_ERROR(palette_parse(&ps->chunks[1], ps->h.components, ps->h.bit_depth,
                                      ps->h.entropy, &ps->pal, err));
    ps->has_palette = 1;
    ps->h.components = 1;
    ps->h.bit_depth = (uint8_t)wcx_palette_index_depth(ps->pal.count);
    ps->h.colour = WC_COLOUR_NONE;
    return WC_OK;
}

static wc_status parse_header(parsed *ps, wc_err *err);

/* The CRCs of data chunks of a MiB or more, left unchecked by the chunk
 * walk of a decode and checked by the backend beside its device work
 * (es_input.verify; PERF_NOTES "Decode latency", k3), or by
 * decode_planes before a backend that does not take them. The file's
 * verdict does not change: where one fails, or any step fails before
 * they were checked, the whole walk runs again and its error is the
 * one reported, as if every CRC had been checked first. */
enum { LAZY_CRC_MIN = 1 << 20 };

typedef struct lazy_crc {
    const uint8_t *src;
    size_t size, max;
    const wcx_chunk *chunks;
    size_t n;
    int threads;
    int state; /* 0: none left, 1: left unchecked, 2: checked and good, 3: one is bad */
} lazy_crc;

static wc_status lazy_verify(void *arg, wc_err *err)
{
    lazy_crc *l = arg;
    if (l->state == 1) {
        l->state = 2;
        for (size_t i = 0; i < l->n && l->state == 2; i++) {
            const wcx_chunk *k = &l->chunks[i];
            if (k->type == WCX_WDAT && k->size >= LAZY_CRC_MIN && !wcx_chunk_crc_ok(k, l->threads))
                l->state = 3;
        }
    }
    if (l->state != 3) return WC_OK;
    /* The whole walk again, for its error (the first bad chunk's), in
     * place of any a later step left (wc_fail keeps the first). */
    if (err) err->msg[0] = '\0';
    wcx_chunk *list = wc_malloc_array(l->max, sizeof(wcx_chunk));
    WC_RETURN_IF(!list, err, WC_ERR_NOMEM, "out of memory (chunk list)");
    size_t count = 0;
    wc_status s = wcx_read_chunks_mt(l->src, l->size, list, l->max, &count, l->threads, err);
    wc_free(list);
    return s != WC_OK ? s : wc_fail(err, WC_ERR_CHECKSUM, "a data chunk's CRC does not match");
}

/* threads: for the CRCs of large chunks (wcx_read_chunks_mt); lazy: NULL,
 * or the data chunks' CRCs left for lazy_verify. */
static wc_status parse(const void *src, size_t size, parsed *ps, int threads, lazy_crc *lazy,
                       wc_err *err)
{
    memset(ps, 0, sizeof *ps);
    WC_RETURN_IF(!src, err, WC_ERR_ARG, "no input");
    /* A chunk takes at least 12 bytes, so a small file needs a short list;
     * one entry more than fits lets a cut-off last chunk read as truncated
     * rather than as one chunk too many. */
    size_t max = (size > WCX_MAGIC_SIZE ? (size - WCX_MAGIC_SIZE) / WCX_CHUNK_OVERHEAD : 0) + 1;
    if (max > WCX_MAX_CHUNKS) max = WCX_MAX_CHUNKS;
    if (max < WCX_ONE_MAX_PARTS) max = WCX_ONE_MAX_PARTS; /* a WONE file's parts */
    ps->chunks = wc_malloc_array(max, sizeof(wcx_chunk));
    WC_RETURN_IF(!ps->chunks, err, WC_ERR_NOMEM, "out of memory (chunk list)");
    if (lazy) {
        *lazy = (lazy_crc){src, size, max, ps->chunks, 0, threads, 0};
        wc_status s = wcx_read_chunks_lazy(src, size, ps->chunks, max, &ps->nchunks, threads,
                                           WCX_WDAT, LAZY_CRC_MIN, err);
        if (s != WC_OK) { /* the whole walk's error, which may come from an earlier CRC */
            if (err) err->msg[0] = '\0';
            s = wcx_read_chunks_mt(src, size, ps->chunks, max, &ps->nchunks, threads, err);
        }
        WC_FORWARD_IF_ERROR(s);
        lazy->n = ps->nchunks;
        for (size_t i = 0; i < ps->nchunks; i++)
            if (ps->chunks[i].type == WCX_WDAT && ps->chunks[i].size >= LAZY_CRC_MIN)
                lazy->state = 1;
        if (lazy->state) {
            ps->in.verify = lazy_verify;
            ps->in.verify_arg = lazy;
        }
    } else {
        WC_FORWARD_IF_ERROR(
            wcx_read_chunks_mt(src, size, ps->chunks, max, &ps->nchunks, threads, err));
    }
    return parse_header(ps, err);
}

/* The header and what it implies, from a checked chunk list. */
static wc_status parse_header(parsed *ps, wc_err *err)
{
    const wcx_chunk *k = &ps->chunks[0];
    wc_err e = {{0}};
    wc_status s = wcx_header_parse(k->data, k->size, &ps->h, &e);
    WC_RETURN_IF(s != WC_OK, err, s, "chunk 0 (WHDR) at byte %zu: %s", k->offset, e.msg);
    ps->fh = ps->h;
    WC_FORWARD_IF_ERROR(read_palette(ps, err));
    int levels = plan_levels(ps->h.width, ps->h.height, ps->h.bit_depth, ps->h.levels);
    WC_RETURN_IF(levels != ps->h.levels, err, WC_ERR_CORRUPT,
                 "chunk 0 (WHDR) at byte %zu: %u levels is more than a %ux%u %u-bit image "
                 "allows (%d)",
                 k->offset, ps->h.levels, ps->h.width, ps->h.height, ps->h.bit_depth, levels);
    /* The reversible colour transform is integer: it follows the 5/3 DWT
     * only. No encoder pairs it with the DCT/LOT, whose planes are float. */
    WC_RETURN_IF(ps->h.colour == WC_COLOUR_RCT && ps->h.transform != WC_TRANSFORM_DWT, err,
                 WC_ERR_CORRUPT, "header: the reversible colour transform with the %s",
                 ps->h.transform == WC_TRANSFORM_DCT ? "DCT" : "LOT");
    unsigned want_steps = ps->h.transform != WC_TRANSFORM_DWT ? 64u : 3u * ps->h.levels + 1;
    WC_RETURN_IF(ps->h.nsteps < want_steps, err, WC_ERR_CORRUPT,
                 "chunk 0 (WHDR) at byte %zu: %u quantizer steps, expected at least %u", k->offset,
                 ps->h.nsteps, want_steps);
    return WC_OK;
}

/* The number of code blocks comes from the header's geometry alone, so a
 * tiny file could ask for millions; the block list and index are sized by
 * it. Each block has at least one byte in the index (WIDX), which caps the
 * count by the file's real size before anything is allocated. */
static wc_status check_blocks(const parsed *ps, wc_err *err)
{
    const size_t n = ps->lay.nblocks; /* from layout_bands */
    WC_RETURN_IF(n > WC_MAX_BLOCKS, err, WC_ERR_LIMIT,
                 "the header implies %zu code blocks, over the limit of %zu", n, WC_MAX_BLOCKS);
    if (ps->h.entropy == WCX_ENTROPY_FILTERED) return WC_OK; /* a block a component, no WIDX */
    const wcx_chunk *idx = NULL;
    for (size_t i = 1; i < ps->nchunks && !idx; i++)
        if (ps->chunks[i].type == WCX_WIDX) idx = &ps->chunks[i];
    WC_RETURN_IF(!idx, err, WC_ERR_CORRUPT, "no block index chunk (WIDX)");
    WC_RETURN_IF(n > idx->size, err, WC_ERR_CORRUPT,
                 "chunk %u (WIDX) at byte %zu: %lu bytes cannot list the %zu code blocks the "
                 "header implies",
                 idx->index, idx->offset, (unsigned long)idx->size, n);
    return WC_OK;
}

/* Peak memory of a decode (decode_parsed and the CPU backend), the file
 * itself included: per component its coefficient plane (4 bytes a
 * coefficient; DCT/LOT planes are padded to multiples of 8), a float plane
 * as large for a float (9/7, DCT, LOT) component, the transform's scratch
 * (a strip of DWT_STRIP columns, large for tall narrow images; the LOT's
 * rows); the output (1 or 2 bytes a sample); the block lists; and a fixed
 * part for the program, threads and zlib. Checked against peaks measured
 * with /usr/bin/time (README, "Memory"). */
#define DECODE_FIXED_BYTES ((uint64_t)6 << 20)

static uint64_t decode_memory(const wcx_header *h, const wc_layout *lay, uint64_t file_bytes)
{
    const uint64_t pixels = (uint64_t)h->width * h->height;
    const uint64_t sample = h->bit_depth > 8 ? 2 : 1;
    const uint64_t per_block = sizeof(wc_cblk) + sizeof(uint32_t) + sizeof(size_t);
    uint64_t need = DECODE_FIXED_BYTES + file_bytes + pixels * h->components * sample +
                    lay->nblocks * per_block;
    for (uint32_t c = 0; c < h->components; c++) {
        const uint64_t plane = (uint64_t)lay->plane_w[c] * lay->plane_h[c];
        const int tf = layout_comp_transform(h, c);
        const int is_float = tf != WC_TRANSFORM_DWT || dwt_family(h->wavelet[c]) == 97;
        need += plane * (is_float ? 8 : 4);
        if (tf == WC_TRANSFORM_DWT)
            need += (uint64_t)dwt_scratch_elems(lay->plane_w[c], lay->plane_h[c]) * 4;
        else if (tf == WC_TRANSFORM_LOT)
            need += (uint64_t)lot8_scratch_elems(lay->plane_w[c], lay->plane_h[c]) * 4;
        /* Filtered deflate inflates a plane's rows (at most 4 bytes a
         * value and a filter byte a row) beside it. */
        if (h->entropy == WCX_ENTROPY_FILTERED) need += plane * 4 + lay->plane_h[c];
    }
    return need;
}

/* The memory limit against what a call needs. */
static wc_status check_memory(const wcx_header *h, uint64_t need, const wc_params *p, wc_err *err)
{
    const uint64_t max_mem = p ? p->max_memory : WC_DEFAULT_MAX_MEMORY;
    WC_RETURN_IF(max_mem && need > max_mem, err, WC_ERR_LIMIT,
                 "image %ux%u x%u needs about %llu bytes to decode, over the memory limit of %llu",
                 h->width, h->height, (unsigned)h->components, (unsigned long long)need,
                 (unsigned long long)max_mem);
    return WC_OK;
}

/* need_out NULL: the pixel limit only (a region's memory is checked once
 * its blocks are known). */
static wc_status check_limits(const wcx_header *h, const wc_layout *lay, uint64_t file_bytes,
                              const wc_params *p, uint64_t *need_out, wc_err *err)
{
    uint64_t pixels = (uint64_t)h->width * h->height;
    uint64_t max_px = p ? p->max_pixels : WC_DEFAULT_MAX_PIXELS;
    if (max_px == 0) max_px = WC_DEFAULT_MAX_PIXELS;
    WC_RETURN_IF(pixels > max_px, err, WC_ERR_LIMIT,
                 "image %ux%u (%llu pixels) exceeds the limit of %llu pixels", h->width, h->height,
                 (unsigned long long)pixels, (unsigned long long)max_px);
    if (!need_out) return WC_OK;
    *need_out = decode_memory(h, lay, file_bytes);
    return check_memory(h, *need_out, p, err);
}

static wc_status check_head(const uint8_t *head, size_t n, uint64_t file_size, const wc_params *p,
                            size_t *max_file, wc_err *err)
{
    *max_file = n;
    WC_RETURN_IF(n == 0, err, WC_ERR_FORMAT, "not a wcodec file (empty input)");
    WC_RETURN_IF(memcmp(head, WCX_MAGIC, n < WCX_MAGIC_SIZE ? n : WCX_MAGIC_SIZE) != 0, err,
                 WC_ERR_FORMAT, "not a wcodec file (bad signature)");
    if (n < WC_DECODE_HEAD_BYTES) return WC_OK; /* all of it is here: wc_decode says the rest */
    /* More follows: the header chunk must be whole in these bytes. */
    wcx_chunk k;
    size_t count = 0;
    const size_t off = WCX_MAGIC_SIZE;
    const uint32_t len = wc_rd32le(head + off);
    WC_RETURN_IF(wc_rd32le(head + off + 4) == WCX_WONE, err, WC_ERR_CORRUPT,
                 "chunk 0 (WONE) at byte %zu: a single-chunk file of %zu bytes or more (it must "
                 "be under %u)",
                 off, n, WCX_ONE_MAX_FILE);
    WC_RETURN_IF(wc_rd32le(head + off + 4) != WCX_WHDR, err, WC_ERR_CORRUPT,
                 "chunk 0 at byte %zu: the first chunk must be WHDR", off);
    WC_RETURN_IF(len > n - off - WCX_CHUNK_OVERHEAD, err, WC_ERR_CORRUPT,
                 "chunk 0 (WHDR) at byte %zu: length %lu is more than a header can be", off,
                 (unsigned long)len);
    /* The magic, the header chunk and an empty WEND make a file the chunk
     * reader can check (framing, CRC); only the header is used. */
    uint8_t probe[WCX_MAGIC_SIZE + 2 * WCX_CHUNK_OVERHEAD + 4096];
    const size_t hlen = WCX_MAGIC_SIZE + WCX_CHUNK_OVERHEAD + len;
    WC_RETURN_IF(hlen + WCX_CHUNK_OVERHEAD > sizeof probe, err, WC_ERR_CORRUPT,
                 "chunk 0 (WHDR) at byte %zu: length %lu is more than a header can be", off,
                 (unsigned long)len);
    memcpy(probe, head, hlen);
    memcpy(probe + hlen, "\0\0\0\0WEND\x2e\x40\x84\x1e", WCX_CHUNK_OVERHEAD);
    wcx_chunk list[2];
    WC_FORWARD_IF_ERROR(wcx_read_chunks(probe, hlen + WCX_CHUNK_OVERHEAD, list, 2, &count, err));
    k = list[0];
    wcx_header h;
    wc_err e = {{0}};
    wc_status s = wcx_header_parse(k.data, k.size, &h, &e);
    WC_RETURN_IF(s != WC_OK, err, s, "chunk 0 (WHDR) at byte %zu: %s", k.offset, e.msg);
    wc_layout lay;
    memset(&lay, 0, sizeof lay);
    layout_bands(&h, &lay);
    uint64_t need = 0;
    WC_FORWARD_IF_ERROR(check_limits(&h, &lay, file_size, p, &need, err));
    /* The file may take what the memory limit leaves beside the rest. */
    const uint64_t max_mem = p ? p->max_memory : WC_DEFAULT_MAX_MEMORY;
    uint64_t room = max_mem ? max_mem - (need - file_size) : SIZE_MAX;
    *max_file = room > SIZE_MAX ? SIZE_MAX : (size_t)room;
    return WC_OK;
}

wc_status wc_decode_check_head(wc_ctx *ctx, const wc_params *p, const void *head, size_t n,
                               uint64_t file_size, size_t *max_file)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    WC_RETURN_IF(!max_file || (n && !head), &ctx->err, WC_ERR_ARG, "missing argument");
    if (n > WC_DECODE_HEAD_BYTES) n = WC_DECODE_HEAD_BYTES; /* the header is within these */
    return check_head(head, n, file_size, p, max_file, &ctx->err);
}

/* into: decode into out's buffer (the caller's), else allocate one. */
static wc_status decode_planes(wc_ctx *ctx, const wc_params *p, parsed *ps, wc_image *out, int into)
{
    wc_err *err = &ctx->err;
    wc_image img = {ps->h.width, ps->h.height, ps->h.components, ps->h.bit_depth, 0, NULL};
    wc_status s = ctx_backend(ctx, p ? p->backend : WC_BACKEND_AUTO);
    /* Only the CUDA backend checks the data's CRCs itself (beside its
     * device work); for any other they are checked before it starts. */
    if (s == WC_OK && ps->in.verify && ctx->backend != wc_backend_cuda()) {
        s = ps->in.verify(ps->in.verify_arg, err);
        ps->in.verify = NULL;
    }
    if (into) {
        img.pixels = out->pixels;
        img.stride = out->stride;
    } else if (s == WC_OK && wc_image_alloc(&img) != WC_OK) {
        s = wc_fail(err, WC_ERR_NOMEM, "out of memory (output image)");
    }
    if (s == WC_OK) {
        /* The whole chain on the backend: coded blocks in, samples out. */
        wc_stage_plan plan;
        plan_from_header(&ps->h, 0.0f, &plan);
        plan.threads = p ? p->threads : 0;
        plan.pool = &ctx->pool;
        plan.device_memory = into && p && p->memory == WC_MEMORY_DEVICE;
        plan.stream = p ? p->stream : NULL;
        plan.max_device_memory = p ? p->max_device_memory : 0;
        wc_chain chain = {&ps->h, &ps->lay, 0, 0.0, 0.0, NULL, 0, 0, 0, 0};
        s = ctx->backend->decode(ctx->backend_self, &plan, &chain, &ps->in, &img, err);
        ctx->times.entropy = chain.t_entropy;
        ctx->times.transform = chain.t_transform;
        if (s == WC_OK) ctx_note_chain(ctx, chain.where);
    }
    if (into) return s;
    if (s == WC_OK)
        *out = img;
    else
        wc_image_free(&img);
    return s;
}

/* A palette file: the plane of indices decoded (on the backend, into host
 * memory), then mapped through the palette on the host. */
static wc_status decode_palette(wc_ctx *ctx, const wc_params *p, parsed *ps, wc_image *out)
{
    WC_RETURN_IF(p && p->memory == WC_MEMORY_DEVICE, &ctx->err, WC_ERR_UNSUPPORTED,
                 "a palette file (colour 3) is decoded into host memory only");
    wc_image idx;
    WC_FORWARD_IF_ERROR(decode_planes(ctx, p, ps, &idx, 0));
    wc_status s = palette_map(&idx, &ps->pal, out, &ctx->err);
    wc_image_free(&idx);
    return s;
}

static wc_status decode_parsed(wc_ctx *ctx, const wc_params *p, parsed *ps, wc_image *out, int into)
{
    wc_err *err = &ctx->err;
    const wcx_header *fh = &ps->fh;
    wc_image img = {fh->width, fh->height, fh->components, fh->bit_depth, 0, NULL};
    if (into) {
        WC_RETURN_IF(out->width != img.width || out->height != img.height ||
                         out->components != img.components || out->bit_depth != img.bit_depth,
                     err, WC_ERR_ARG,
                     "the output image is %ux%u x%u %u-bit, the file %ux%u x%u %u-bit", out->width,
                     out->height, out->components, out->bit_depth, img.width, img.height,
                     img.components, img.bit_depth);
        WC_RETURN_IF(!out->pixels || (out->stride && out->stride < wc_image_row_bytes(&img)), err,
                     WC_ERR_ARG, "no output buffer, or rows closer than the image's width");
    }
    if (!ps->has_palette) return decode_planes(ctx, p, ps, out, into);
    if (into) return decode_palette(ctx, p, ps, out);
    WC_RETURN_IF(wc_image_alloc(&img) != WC_OK, err, WC_ERR_NOMEM, "out of memory (output image)");
    wc_status s = decode_palette(ctx, p, ps, &img);
    if (s == WC_OK)
        *out = img;
    else
        wc_image_free(&img);
    return s;
}

/* Parses and checks a whole file under p's limits into *ps (freed by the
 * caller whatever the status); the memory limit against a whole decode's
 * need when `whole`, else the caller checks it. */
static wc_status parse_file(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                            parsed *ps, int whole, lazy_crc *lazy)
{
    double t0 = ctx_now();
    uint64_t need = 0;
    wc_status s = parse(src, size, ps, p ? p->threads : 0, lazy, &ctx->err);
    if (s == WC_OK) layout_bands(&ps->h, &ps->lay);
    if (s == WC_OK) s = check_limits(&ps->h, &ps->lay, size, p, whole ? &need : NULL, &ctx->err);
    if (s == WC_OK && whole && ps->has_palette) /* the pixels beside the indices */
        s = check_memory(&ps->fh,
                         need + (uint64_t)ps->fh.width * ps->fh.height * ps->fh.components *
                                    (ps->fh.bit_depth > 8 ? 2 : 1),
                         p, &ctx->err);
    if (s == WC_OK) s = check_blocks(ps, &ctx->err);
    if (s == WC_OK) s = layout_build(&ps->h, WC_MAX_BLOCKS, &ps->lay, &ctx->err);
    if (s == WC_OK) s = collect(ps, &ctx->err);
    ctx->times.container = ctx_now() - t0;
    return s;
}

wc_status dec_parse_list(wc_ctx *ctx, const wc_params *p, wcx_chunk *chunks, size_t n, parsed *ps)
{
    double t0 = ctx_now();
    memset(ps, 0, sizeof *ps);
    ps->chunks = chunks;
    ps->nchunks = n;
    wc_status s = parse_header(ps, &ctx->err);
    if (s == WC_OK) layout_bands(&ps->h, &ps->lay);
    if (s == WC_OK) s = check_limits(&ps->h, &ps->lay, 0, p, NULL, &ctx->err);
    if (s == WC_OK) s = check_blocks(ps, &ctx->err);
    if (s == WC_OK) s = layout_build(&ps->h, WC_MAX_BLOCKS, &ps->lay, &ctx->err);
    if (s == WC_OK) s = collect(ps, &ctx->err);
    ctx->times.container += ctx_now() - t0;
    return s;
}

wc_status dec_check_memory(const wcx_header *h, uint64_t need, const wc_params *p, wc_err *err)
{
    return check_memory(h, need, p, err);
}

static wc_status decode(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                        wc_image *out, int into)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    ctx_use_device(ctx, p);
    WC_RETURN_IF(!out, &ctx->err, WC_ERR_ARG, "no output image");
    if (!into) memset(out, 0, sizeof *out);
    WC_RETURN_IF(!into && p && p->memory == WC_MEMORY_DEVICE, &ctx->err, WC_ERR_ARG,
                 "wc_decode allocates host memory: decode into device memory with wc_decode_into");
    parsed ps;
    lazy_crc lazy = {0};
    /* WC_DECODE_EAGER_CRC: every CRC first, as before k3 (for the bench's
     * comparison in one process). */
    wc_status s =
        parse_file(ctx, p, src, size, &ps, 1, getenv("WC_DECODE_EAGER_CRC") ? NULL : &lazy);
    if (s == WC_OK) s = decode_parsed(ctx, p, &ps, out, into);
    /* A failure before the data's CRCs were checked: a bad CRC comes first,
     * as it would have from the chunk walk. (A success leaves none
     * unchecked: the backend checked them, or decode_planes did.) */
    if (lazy.state == 1) {
        const wc_status v = lazy_verify(&lazy, &ctx->err);
        if (v != WC_OK) s = v;
    }
    parsed_free(&ps);
    return s;
}

static uint64_t region_decode_memory(const parsed *ps, const wc_region *r, uint64_t file_bytes,
                                     int threads)
{
    const uint64_t per_block = sizeof(wc_cblk) + sizeof(uint32_t);
    return DECODE_FIXED_BYTES + file_bytes + ps->lay.nblocks * per_block +
           region_memory(&ps->h, &ps->lay, r, threads);
}

uint64_t dec_region_memory(wc_ctx *ctx, const void *src, size_t size, const wc_region *r,
                           int threads)
{
    parsed ps;
    wc_region rr;
    uint64_t need = 0;
    if (parse_file(ctx, NULL, src, size, &ps, 0, NULL) == WC_OK &&
        region_resolve(&ps.h, r, &rr, &ctx->err) == WC_OK)
        need = region_decode_memory(&ps, &rr, size, threads);
    parsed_free(&ps);
    return need;
}

/* A region of a file the window inverse cannot take (region_needs_whole):
 * the whole decode, cropped; the same pixels, at a whole decode's cost. */
static wc_status region_by_crop(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                                const wc_region *rr, wc_image *out)
{
    wc_image whole;
    WC_FORWARD_IF_ERROR(decode(ctx, p, src, size, &whole, 0));
    wc_image img = {rr->width, rr->height, whole.components, whole.bit_depth, 0, NULL};
    if (wc_image_alloc(&img) != WC_OK) {
        wc_image_free(&whole);
        return wc_fail(&ctx->err, WC_ERR_NOMEM, "out of memory (output image)");
    }
    const size_t px = (size_t)whole.components * (whole.bit_depth > 8 ? 2 : 1);
    const size_t ws = whole.stride ? whole.stride : whole.width * px;
    const size_t is = img.stride ? img.stride : img.width * px;
    for (uint32_t y = 0; y < img.height; y++)
        memcpy((uint8_t *)img.pixels + (size_t)y * is,
               (const uint8_t *)whole.pixels + (size_t)(rr->y + y) * ws + rr->x * px,
               img.width * px);
    wc_image_free(&whole);
    snprintf(ctx->note, sizeof ctx->note,
             "region: the whole image decoded, then cropped (the Monolithic DWT has no "
             "window inverse)");
    *out = img;
    return WC_OK;
}

/* The region's plane of indices (img, one component) becomes its pixels. */
static wc_status region_map_palette(const parsed *ps, wc_image *img, wc_err *err)
{
    wc_image px = {img->width, img->height, ps->fh.components, ps->fh.bit_depth, 0, NULL};
    WC_RETURN_IF(wc_image_alloc(&px) != WC_OK, err, WC_ERR_NOMEM, "out of memory (output image)");
    wc_status s = palette_map(img, &ps->pal, &px, err);
    wc_image_free(img);
    if (s == WC_OK)
        *img = px;
    else
        wc_image_free(&px);
    return s;
}

static wc_status decode_region(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                               const wc_region *r, wc_image *out)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    ctx->region_blocks = 0;
    WC_RETURN_IF(!out, &ctx->err, WC_ERR_ARG, "no output image");
    memset(out, 0, sizeof *out);
    WC_RETURN_IF(p && p->memory == WC_MEMORY_DEVICE, &ctx->err, WC_ERR_UNSUPPORTED,
                 "a region is decoded into host memory");
    parsed ps;
    wc_region rr = {0, 0, 0, 0, 0};
    wc_status s = parse_file(ctx, p, src, size, &ps, 0, NULL);
    if (s == WC_OK) s = region_resolve(&ps.h, r, &rr, &ctx->err);
    if (s == WC_OK && ps.has_palette && rr.reduce > 0)
        s = wc_fail(&ctx->err, WC_ERR_UNSUPPORTED,
                    "reduce %d of a palette file (colour 3): a reduced plane of indices is no "
                    "image; decode a region at full size",
                    rr.reduce);
    if (s == WC_OK && region_needs_whole(&ps.h)) {
        parsed_free(&ps);
        return region_by_crop(ctx, p, src, size, &rr, out);
    }
    if (s == WC_OK)
        s = check_memory(&ps.h, region_decode_memory(&ps, &rr, size, p ? p->threads : 0), p,
                         &ctx->err);
    /* The host does the work, whichever backend was asked for. */
    if (s == WC_OK) s = ctx_backend(ctx, WC_BACKEND_CPU);
    if (s == WC_OK && p && p->backend == WC_BACKEND_CUDA)
        snprintf(ctx->note, sizeof ctx->note,
                 "backend: cpu (a region or reduced image is decoded on the host)");
    wc_image img = {rr.width, rr.height, ps.h.components, ps.h.bit_depth, 0, NULL};
    if (s == WC_OK && wc_image_alloc(&img) != WC_OK)
        s = wc_fail(&ctx->err, WC_ERR_NOMEM, "out of memory (output image)");
    if (s == WC_OK) {
        double t0 = ctx_now();
        s = region_decode(&ps.h, &ps.lay, &ps.in, &rr, p ? p->threads : 0, &ctx->pool, &img,
                          &ctx->region_blocks, &ctx->err);
        ctx->times.transform = ctx_now() - t0;
        if (s == WC_OK && ps.has_palette) s = region_map_palette(&ps, &img, &ctx->err);
        ctx_note_chain(ctx, "host");
    }
    if (s == WC_OK)
        *out = img;
    else
        wc_image_free(&img);
    parsed_free(&ps);
    return s;
}

wc_status wc_decode_region(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                           const wc_region *r, wc_image *out)
{
    wc_thread_pool *was = ctx_enter(ctx);
    wc_status s = decode_region(ctx, p, src, size, r, out);
    ctx_leave(was);
    return s;
}

size_t ctx_region_blocks(const wc_ctx *ctx) { return ctx->region_blocks; }

wc_status wc_decode(wc_ctx *ctx, const wc_params *p, const void *src, size_t size, wc_image *out)
{
    wc_thread_pool *was = ctx_enter(ctx);
    wc_status s = decode(ctx, p, src, size, out, 0);
    ctx_leave(was);
    return s;
}

wc_status wc_decode_into(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                         wc_image *out)
{
    wc_thread_pool *was = ctx_enter(ctx);
    wc_status s = decode(ctx, p, src, size, out, 1);
    ctx_leave(was);
    return s;
}

wc_status dec_inspect(wc_ctx *ctx, const void *src, size_t size, wc_info *info)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    WC_RETURN_IF(!info, &ctx->err, WC_ERR_ARG, "no info struct");
    memset(info, 0, sizeof *info);
    parsed ps;
    wc_status s = parse(src, size, &ps, 1, NULL, &ctx->err);
    if (s == WC_OK) layout_bands(&ps.h, &ps.lay);
    if (s == WC_OK) s = check_blocks(&ps, &ctx->err);
    if (s == WC_OK) s = layout_build(&ps.h, WC_MAX_BLOCKS, &ps.lay, &ctx->err);
    if (s == WC_OK) s = collect(&ps, &ctx->err);
    if (s == WC_OK) {
        const wcx_header *h = &ps.h;
        info->width = h->width;
        info->height = h->height;
        info->components = ps.fh.components;
        info->bit_depth = ps.fh.bit_depth;
        info->format_major = h->version_major;
        info->format_minor = h->version_minor;
        info->lossless = h->flags & 1;
        info->transform = (wc_transform)h->transform;
        info->wavelet = h->wavelet[0];
        info->levels = h->levels;
        info->colour = ps.fh.colour;
        info->entropy = (wc_entropy)h->entropy;
        info->block_size = 1 << h->block_log2;
        info->base_step = h->base_step;
        info->bands = ps.lay.nbands[0];
        info->file_bytes = size;
        for (size_t i = 0; i < ps.lay.nblocks; i++) {
            const wc_cblk *k = &ps.lay.blocks[i];
            info->component_bytes[k->comp] += ps.block_size[i];
            info->band_bytes[k->comp][k->band] += ps.block_size[i];
        }
        for (uint32_t c = 0; c < h->components; c++)
            info->component_bytes[c] += ps.in.table_size[c];
    }
    parsed_free(&ps);
    return s;
}
