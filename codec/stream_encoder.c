/*
 * stream_encoder.c -- wc_encode_rows: an image coded in memory that grows
 * with its width, not its area (wcodec.h, issue 15).
 *
 * Rows arrive from the top, 16 at a time. They go through the level shift
 * and colour transform (codec/colour.c on an image of those rows: the
 * whole-image call's arithmetic) and into one line-based DWT a component
 * (transform/dwt_lines.c: the whole-plane forward's coefficients), the
 * components side by side on a worker each. The
 * finished pieces of the Mallat plane are quantized as they come
 * (transform/quantizer.h, as codec/quant.c) into a buffer of one row of
 * code blocks a band; a full row of blocks is coded at once (the block
 * coder sees exactly the block es_encode would give it) and its bytes go
 * to the store, the block sizes to the index.
 *
 * The container wants the Huffman tables (from the whole image's symbol
 * counts) before the index and the index before the payload, so Huffman
 * files take two passes over the rows: one counts, one codes; deflate
 * needs one. The file is then written in order: the head (WHDR, WMET,
 * WTAB, WIDX) from memory, each component's WDAT from the store, band
 * after band, checksummed on the way, WEND.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "block_coder.h"
#include "block_tiles.h"
#include "colour.h"
#include "context.h"
#include "crc32_fast.h"
#include "dwt.h"
#include "dwt_lines.h"
#include "entropy_stage.h"
#include "file_head.h"
#include "layout.h"
#include "meta.h"
#include "parallel.h"
#include "plan.h"
#include "quantizer.h"
#include "ratectl.h"
#include "rle.h"
#include "stream_dct.h"
#include "stream_mono.h"
#include "zcodec.h"

/* One band's buffer: a row of code blocks, quantized. */
typedef struct sband {
    int32_t *rows;      /* side rows of the band's width (rate control's counts:
                           unquantized, float or int) */
    uint32_t filled;    /* rows in the buffer */
    uint32_t block_row; /* rows of blocks done */
    size_t first_block; /* the band's first block in the layout */
    size_t first_piece; /* its first row of blocks in the piece list */
} sband;

struct senc;

/* A component: its transform, bands and coder scratch. Components run
 * side by side (one worker each), so each has its own; only the store is
 * shared (under the lock). */
typedef struct scomp {
    struct senc *e;
    uint32_t c;
    int family; /* 53 or 97; 97 (float samples) for the DCT and LOT too */
    dwl *t;
    sdct *blk;   /* the DCT or LOT in place of t (stream_dct.h) */
    smono *mono; /* the Monolithic scheme in place of t (stream_mono.h) */
    sband band[WC_MAX_BANDS];
    uint16_t *tok;
    uint32_t *scratch;
    int32_t *values;
    uint8_t *tokens, *out; /* a block's tokens (deflate) and bytes */
    uint8_t *piece;        /* a row of blocks' bytes */
    size_t piece_size, piece_cap;
    wc_status status;
    wc_err err;
} scomp;

typedef struct senc {
    wc_ctx *ctx;
    const wc_params *p;
    wcx_header h;
    wc_layout lay; /* bands only: blocks are found by arithmetic */
    wc_stage_plan plan;
    uint32_t side;
    int pass; /* 0: rate control's histograms; 3: its counts; 1: count symbols; 2: code */
    rc_rule *rc;
    scomp comp[4];
    bc_freq *freq;      /* [component * WC_NCLASS + class] */
    bc_freq *junk_freq; /* the second pass's counts, not used */
    huf_enc (*enc)[WC_NCLASS][BC_NTAB];
    es_output tabs; /* WTAB payloads */
    uint32_t *block_size;
    uint64_t *piece_off; /* per row of blocks: its bytes in the store */
    size_t npieces;
    size_t out_cap;
    pthread_mutex_t lock; /* the store and `stored` */
    /* the store: the caller's, or memory */
    const wc_byte_store *store;
    uint8_t *mem;
    size_t mem_size, mem_cap;
    uint64_t stored;
    wc_status status;
} senc;

static wc_status store_append(senc *e, const void *data, size_t n, wc_err *err)
{
    if (e->store) {
        const wc_status s = e->store->append(e->store->user, data, n);
        WC_RETURN_IF(s != WC_OK, err, s, "the payload store refused %zu bytes: %s", n,
                     wc_strerror(s));
    } else {
        if (e->mem_size + n > e->mem_cap) {
            size_t cap = e->mem_cap ? e->mem_cap : (size_t)1 << 20;
            while (cap < e->mem_size + n) cap *= 2;
            uint8_t *m = wc_realloc(e->mem, cap);
            WC_RETURN_IF(!m, err, WC_ERR_NOMEM, "out of memory (%zu payload bytes)", cap);
            e->mem = m;
            e->mem_cap = cap;
        }
        memcpy(e->mem + e->mem_size, data, n);
        e->mem_size += n;
    }
    e->stored += n;
    return WC_OK;
}

static wc_status store_read(senc *e, uint64_t off, void *data, size_t n)
{
    if (!e->store) {
        memcpy(data, e->mem + off, n);
        return WC_OK;
    }
    const wc_status s = e->store->read(e->store->user, off, data, n);
    WC_RETURN_IF(s != WC_OK, &e->ctx->err, s, "the payload store could not give back %zu bytes: %s",
                 n, wc_strerror(s));
    return WC_OK;
}

/* Rows read and converted at a time; each component then takes them
 * through its transform on a worker of its own. */
enum { SENC_BATCH = 16 };

/* One block as entropy_stage.c codes it: its bytes into sc->out. */
static wc_status code_block(senc *e, scomp *sc, const bc_block *b, unsigned cls, size_t *size)
{
    const unsigned c = sc->c;
    const int tiled = e->h.entropy == WC_ENTROPY_HUFFMAN_TILES;
    if (e->h.entropy != WC_ENTROPY_DEFLATE) {
        bc_freq *f = &(e->pass == 1 ? e->freq : e->junk_freq)[c * WC_NCLASS + cls];
        const size_t ntok = tiled ? bct_symbolize(b, *f, sc->tok, sc->scratch)
                                  : bc_symbolize(b, *f, sc->tok, sc->scratch);
        if (e->pass == 1) return WC_OK;
        *size = tiled ? bct_emit(b, sc->tok, ntok, e->enc[c][cls], sc->out, e->out_cap, sc->scratch)
                      : bc_emit(b, sc->tok, ntok, e->enc[c][cls], sc->out, e->out_cap, sc->scratch);
        return WC_OK;
    }
    const size_t ntok = es_deflate_tokens(b, sc->values, sc->tokens);
    return es_deflate_pack(sc->tokens, ntok, e->p->deflate_level, sc->out, e->out_cap, size,
                           &sc->err);
}

/* The buffered row of blocks of band b: coded into sc->piece, then (the
 * second pass) stored in one piece under the lock. */
static wc_status code_block_row(senc *e, scomp *sc, uint32_t b)
{
    const uint32_t c = sc->c;
    const wc_band_info *bi = &e->lay.band[c][b];
    sband *sb = &sc->band[b];
    const uint32_t nbx = wc_ceil_div(bi->w, e->side);
    const int orient = bi->orient == 1 ? BC_VERT : bi->orient == 2 ? BC_HORZ : BC_ISO;
    const uint32_t run_max = (e->h.flags & 1) ? 1 : 3;
    sc->piece_size = 0;
    for (uint32_t bx = 0; bx < nbx; bx++) {
        const uint32_t x = bx * e->side;
        bc_block blk = {sb->rows + x, bi->w - x < e->side ? bi->w - x : e->side,
                        sb->filled,   bi->w,
                        bi->predict,  orient,
                        run_max};
        size_t size = 0;
        WC_FORWARD_IF_ERROR(code_block(e, sc, &blk, bi->cls, &size));
        if (e->pass == 1) continue;
        WC_RETURN_IF(size > 0x7FFFFFFFu, &sc->err, WC_ERR_LIMIT, "code block too large");
        e->block_size[sb->first_block + (size_t)sb->block_row * nbx + bx] = (uint32_t)size;
        if (sc->piece_size + size > sc->piece_cap) {
            size_t cap = sc->piece_cap ? sc->piece_cap : (size_t)1 << 16;
            while (cap < sc->piece_size + size) cap *= 2;
            uint8_t *q = wc_realloc(sc->piece, cap);
            WC_RETURN_IF(!q, &sc->err, WC_ERR_NOMEM, "out of memory (%zu-byte row of blocks)", cap);
            sc->piece = q;
            sc->piece_cap = cap;
        }
        memcpy(sc->piece + sc->piece_size, sc->out, size);
        sc->piece_size += size;
    }
    wc_status s = WC_OK;
    if (e->pass == 2) {
        pthread_mutex_lock(&e->lock);
        e->piece_off[sb->first_piece + sb->block_row] = e->stored;
        s = store_append(e, sc->piece, sc->piece_size, &sc->err);
        pthread_mutex_unlock(&e->lock);
    }
    sb->block_row++;
    sb->filled = 0;
    return s;
}

/* Rate control's window: the buffered row of blocks of band b counted at
 * each of its steps (ratectl.h). */
static void count_block_row(senc *e, scomp *sc, uint32_t b)
{
    const wc_band_info *bi = &e->lay.band[sc->c][b];
    sband *sb = &sc->band[b];
    const int fl = sc->family == 97;
    for (uint32_t x = 0; x < bi->w; x += e->side)
        rc_count_block(e->rc, sc->c, b, fl ? (const float *)(const void *)sb->rows + x : NULL,
                       fl ? NULL : sb->rows + x, bi->w, bi->w - x < e->side ? bi->w - x : e->side,
                       sb->filled, sc->values, sc->scratch);
    sb->block_row++;
    sb->filled = 0;
}

/* A finished piece of component c's plane (dwt_lines.h): quantized into
 * the bands it covers, each full row of blocks coded. */
static void put_piece(void *arg, uint32_t y, uint32_t x0, uint32_t n, const void *vals)
{
    scomp *sc = arg;
    senc *e = sc->e;
    if (sc->status != WC_OK) return;
    const uint32_t c = sc->c;
    for (uint32_t b = 0; b < e->lay.nbands[c]; b++) {
        const wc_band_info *bi = &e->lay.band[c][b];
        if (bi->w == 0 || y < bi->y0 || y >= bi->y0 + bi->h || bi->x0 < x0 ||
            bi->x0 + bi->w > x0 + n)
            continue;
        sband *sb = &sc->band[b];
        if (e->pass == 0) {
            rc_hist(e->rc, c, b, sc->family == 97 ? (const float *)vals + (bi->x0 - x0) : NULL,
                    sc->family == 97 ? NULL : (const int32_t *)vals + (bi->x0 - x0), bi->w);
            continue;
        }
        if (e->pass == 3) {
            memcpy(sb->rows + (size_t)sb->filled * bi->w, (const int32_t *)vals + (bi->x0 - x0),
                   bi->w * sizeof(int32_t));
            if (++sb->filled == e->side || y + 1 == bi->y0 + bi->h) count_block_row(e, sc, b);
            continue;
        }
        int32_t *dst = sb->rows + (size_t)sb->filled * bi->w;
        const float step = e->h.steps[c][bi->step_index], th = e->plan.threshold[c];
        if (sc->family == 97) {
            const float *src = (const float *)vals + (bi->x0 - x0);
            for (uint32_t i = 0; i < bi->w; i++) dst[i] = quant_value(src[i], step, th);
        } else {
            const int32_t *src = (const int32_t *)vals + (bi->x0 - x0);
            if (quant_int_is_identity(step, th))
                memcpy(dst, src, bi->w * sizeof *dst);
            else
                for (uint32_t i = 0; i < bi->w; i++) dst[i] = quant_value((float)src[i], step, th);
        }
        sb->filled++;
        if (sb->filled == e->side || y + 1 == bi->y0 + bi->h) {
            sc->status = code_block_row(e, sc, b);
            if (sc->status != WC_OK) return;
        }
    }
}

static void senc_free(senc *e)
{
    for (uint32_t c = 0; c < 4; c++) {
        dwl_free(e->comp[c].t);
        e->comp[c].t = NULL;
        sdct_free(e->comp[c].blk);
        e->comp[c].blk = NULL;
        smono_free(e->comp[c].mono);
        e->comp[c].mono = NULL;
        scomp *sc = &e->comp[c];
        for (uint32_t b = 0; b < WC_MAX_BANDS; b++) wc_free(sc->band[b].rows);
        wc_free(sc->tok);
        wc_free(sc->scratch);
        wc_free(sc->values);
        wc_free(sc->tokens);
        wc_free(sc->out);
        wc_free(sc->piece);
    }
    wc_free(e->freq);
    wc_free(e->junk_freq);
    wc_free(e->enc);
    es_output_free(&e->tabs);
    wc_free(e->block_size);
    wc_free(e->piece_off);
    wc_free(e->mem);
}

/* The block coder's bound for the largest block (tiled or not) and the
 * deflate path's, whichever is larger. */
static size_t block_out_cap(uint32_t side)
{
    const size_t a = bc_bound(side, side), b = bct_bound(side, side);
    const size_t d = 5 + zc_bound(rle_bound((size_t)side * side));
    const size_t m = a > b ? a : b;
    return m > d ? m : d;
}

static size_t block_tok_cap(uint32_t side)
{
    const size_t a = bc_token_bound(side, side), b = bct_token_bound(side, side);
    return a > b ? a : b;
}

static void senc_plan(senc *e, const wc_image *shape);

int wc_encode_rows_supported(const wc_image *shape, const wc_params *p)
{
    if (!shape || !p || p->abi != WC_ABI_VERSION) return 0;
    if (shape->components < 1 || shape->components > 4 || shape->width < 1 || shape->height < 1)
        return 0;
    if (p->memory == WC_MEMORY_DEVICE) return 0;
    /* The Explosive scheme's sweeps have no windowed form here (stream_mono.c
     * windows the Monolithic reference only): its files are coded whole. */
    if (p->dwt_scheme == WC_DWT_EXPLOSIVE) return 0;
    if (!p->lossless && p->bpp > 0) { /* ratectl.h's counted rule (wc_encode bisects) */
        if (p->transform != WC_TRANSFORM_DWT || p->dwt_scheme != WC_DWT_SEPARABLE) return 0;
        senc e;
        memset(&e, 0, sizeof e);
        e.p = p;
        senc_plan(&e, shape);
        return ratectl_rule_applies(&e.h);
    }
    return p->entropy == WC_ENTROPY_HUFFMAN || p->entropy == WC_ENTROPY_DEFLATE ||
           p->entropy == WC_ENTROPY_HUFFMAN_TILES;
}

/* The header, layout and plan wc_encode makes (encoder.c's enc_plan). */
static void senc_plan(senc *e, const wc_image *shape)
{
    const wc_params *p = e->p;
    plan_header(p, shape, plan_base_step(p), &e->h);
    layout_bands(&e->h, &e->lay);
    plan_from_header(&e->h, p->lossless ? 0.0f : p->threshold, &e->plan);
    e->side = 1u << e->h.block_log2;
}

uint64_t wc_encode_rows_memory(const wc_image *shape, const wc_params *p, int store)
{
    if (!wc_encode_rows_supported(shape, p)) return 0;
    senc e;
    memset(&e, 0, sizeof e);
    e.p = p;
    senc_plan(&e, shape);
    const uint64_t w = shape->width, side = e.side;
    uint64_t n = (uint64_t)1 << 20; /* the context, tables, small buffers */
    n += (uint64_t)shape->components * WC_NCLASS * BC_NTAB * BC_NSYM * 8 * 2; /* counts */
    n += (uint64_t)shape->components * sizeof(huf_enc) * WC_NCLASS * BC_NTAB;
    const uint64_t bps = shape->bit_depth > 8 ? 2 : 1;
    n += SENC_BATCH * w * shape->components * bps; /* the rows read at a time */
    for (uint32_t c = 0; c < shape->components; c++) {
        n += e.plan.transform[c] != WC_TRANSFORM_DWT ? sdct_bytes(shape->width)
             : dwt_is_mono(e.h.wavelet[c])           ? smono_bytes(shape->width, e.h.levels)
                                                     : dwl_bytes(shape->width, e.h.levels);
        n += SENC_BATCH * w * 4 * 2; /* their planes (int and float) */
        /* the block coder's scratch, and a row of blocks coded (about the
         * samples' size lossless) */
        n += block_out_cap(e.side) + block_tok_cap(e.side) * 2 + side * side * 4 * 2;
        n += w * side * bps;
        for (uint32_t b = 0; b < e.lay.nbands[c]; b++) n += (uint64_t)e.lay.band[c][b].w * side * 4;
    }
    n += (uint64_t)e.lay.nblocks * 4 + e.lay.nblocks * 8 / side; /* index, pieces */
    n += (uint64_t)e.lay.nblocks * 5;                            /* the head: WIDX */
    if (!p->lossless && p->bpp > 0) n += rc_rule_bytes(&e.h);    /* rate control's counts */
    if (!store) /* the payload: at worst about the samples' size */
        n += w * shape->height * shape->components * (shape->bit_depth > 8 ? 2 : 1);
    return n;
}

static wc_status senc_alloc(senc *e, const wc_image *shape)
{
    wc_err *err = &e->ctx->err;
    const uint32_t side = e->side;
    const size_t nf = (size_t)e->h.components * WC_NCLASS;
    e->freq = wc_calloc(nf, sizeof(bc_freq));
    e->junk_freq = wc_calloc(nf, sizeof(bc_freq));
    e->enc = wc_calloc(e->h.components, sizeof *e->enc);
    e->block_size = wc_malloc_array(e->lay.nblocks ? e->lay.nblocks : 1, sizeof(uint32_t));
    e->out_cap = block_out_cap(side);
    WC_RETURN_IF(!e->freq || !e->junk_freq || !e->enc || !e->block_size, err, WC_ERR_NOMEM,
                 "out of memory (streaming encoder)");
    size_t block = 0, piece = 0;
    for (uint32_t c = 0; c < e->h.components; c++) {
        scomp *sc = &e->comp[c];
        sc->e = e;
        sc->c = c;
        sc->family = e->plan.transform[c] == WC_TRANSFORM_DWT ? dwt_family(e->h.wavelet[c]) : 97;
        sc->tok = wc_malloc_array(block_tok_cap(side), sizeof(uint16_t));
        sc->scratch = wc_malloc_array(bc_scratch_elems(), sizeof(uint32_t));
        sc->values = wc_malloc_array((size_t)side * side, sizeof(int32_t));
        sc->tokens = wc_malloc(rle_bound((size_t)side * side));
        sc->out = wc_malloc(e->out_cap);
        WC_RETURN_IF(!sc->tok || !sc->scratch || !sc->values || !sc->tokens || !sc->out, err,
                     WC_ERR_NOMEM, "out of memory (block coder scratch)");
        for (uint32_t b = 0; b < e->lay.nbands[c]; b++) {
            const wc_band_info *bi = &e->lay.band[c][b];
            sband *sb = &sc->band[b];
            sb->first_block = block;
            sb->first_piece = piece;
            block += (size_t)wc_ceil_div(bi->w, side) * wc_ceil_div(bi->h, side);
            piece += wc_ceil_div(bi->h, side);
            if (bi->w && bi->h) {
                sb->rows = wc_malloc_array((size_t)bi->w * side, sizeof(int32_t));
                WC_RETURN_IF(!sb->rows, err, WC_ERR_NOMEM, "out of memory (band rows)");
            }
        }
    }
    (void)shape;
    e->npieces = piece;
    e->piece_off = wc_malloc_array(piece ? piece : 1, sizeof(uint64_t));
    WC_RETURN_IF(!e->piece_off, err, WC_ERR_NOMEM, "out of memory (piece list)");
    return WC_OK;
}

typedef struct batch_job {
    senc *e;
    uint32_t rows, w;
    int32_t **ip;
    float **fp;
} batch_job;

static void push_rows(void *arg, size_t c, int worker)
{
    (void)worker;
    const batch_job *j = arg;
    scomp *sc = &j->e->comp[c];
    for (uint32_t k = 0; k < j->rows && sc->status == WC_OK; k++) {
        const size_t off = (size_t)k * j->w;
        if (sc->blk) {
            sdct_push(sc->blk, j->fp[c] + off);
            continue;
        }
        if (sc->mono) {
            smono_push(sc->mono, sc->family == 97 ? (const void *)(j->fp[c] + off)
                                                  : (const void *)(j->ip[c] + off));
            continue;
        }
        dwl_push(sc->t, sc->family == 97 ? (const void *)(j->fp[c] + off)
                                         : (const void *)(j->ip[c] + off));
    }
}

/* One pass over the rows: colour, DWT, quantization, blocks. */
static wc_status senc_pass(senc *e, const wc_image *shape, const wc_row_source *src)
{
    wc_err *err = &e->ctx->err;
    const uint32_t w = shape->width, nc = shape->components;
    for (uint32_t c = 0; c < nc; c++) {
        scomp *sc = &e->comp[c];
        dwl_free(sc->t);
        sdct_free(sc->blk);
        smono_free(sc->mono);
        sc->t = NULL;
        sc->blk = NULL;
        sc->mono = NULL;
        if (e->plan.transform[c] != WC_TRANSFORM_DWT)
            sc->blk = sdct_create(e->plan.transform[c], w, shape->height, put_piece, sc);
        else if (dwt_is_mono(e->h.wavelet[c]))
            sc->mono = smono_create(e->h.wavelet[c], w, shape->height, e->h.levels, put_piece, sc);
        else
            sc->t = dwl_create(sc->family, w, shape->height, e->h.levels, put_piece, sc);
        WC_RETURN_IF(!sc->t && !sc->blk && !sc->mono, err, WC_ERR_NOMEM,
                     "out of memory (line transform)");
        for (uint32_t b = 0; b < WC_MAX_BANDS; b++) sc->band[b].filled = sc->band[b].block_row = 0;
        sc->status = WC_OK;
    }
    wc_image rows = *shape;
    rows.height = SENC_BATCH;
    rows.stride = 0;
    const size_t rb = wc_packed_row_bytes(&rows);
    rows.pixels = wc_malloc_array(SENC_BATCH, rb);
    int32_t *ip[4] = {NULL, NULL, NULL, NULL};
    float *fp[4] = {NULL, NULL, NULL, NULL};
    wc_status s = rows.pixels ? WC_OK : wc_fail(err, WC_ERR_NOMEM, "out of memory (rows)");
    for (uint32_t c = 0; c < nc && s == WC_OK; c++) {
        ip[c] = wc_malloc_array((size_t)SENC_BATCH * w, sizeof(int32_t));
        fp[c] = wc_malloc_array((size_t)SENC_BATCH * w, sizeof(float));
        if (!ip[c] || !fp[c]) s = wc_fail(err, WC_ERR_NOMEM, "out of memory (row planes)");
    }
    const int ict = e->h.colour == WC_COLOUR_ICT, rct = e->h.colour == WC_COLOUR_RCT;
    const int workers =
        wc_thread_count(e->p->threads) < (int)nc ? wc_thread_count(e->p->threads) : (int)nc;
    for (uint32_t y0 = 0; y0 < shape->height && s == WC_OK; y0 += SENC_BATCH) {
        const uint32_t n = shape->height - y0 < SENC_BATCH ? shape->height - y0 : SENC_BATCH;
        for (uint32_t k = 0; k < n && s == WC_OK; k++) {
            wc_status r = src->read(src->user, (uint8_t *)rows.pixels + k * rb);
            if (r != WC_OK)
                s = wc_fail(err, r, "reading row %u of %u: %s", y0 + k, shape->height,
                            wc_strerror(r));
        }
        if (s != WC_OK) break;
        /* The batch as an image of n rows: every sample gets the
         * whole-image call's arithmetic. */
        rows.height = n;
        uint32_t first = 0;
        if (rct) {
            colour_extract_rct(&rows, ip[0], ip[1], ip[2]);
            first = 3;
        } else if (ict) {
            colour_extract_ict(&rows, fp[0], fp[1], fp[2]);
            first = 3;
        }
        for (uint32_t c = first; c < nc; c++) {
            colour_extract(&rows, c, ip[c]);
            if (e->comp[c].family == 97)
                for (size_t x = 0; x < (size_t)n * w; x++) fp[c][x] = (float)ip[c][x];
        }
        batch_job j = {e, n, w, ip, fp};
        wc_parallel_for(workers, nc, push_rows, &j);
        for (uint32_t c = 0; c < nc && s == WC_OK; c++)
            if (e->comp[c].status != WC_OK)
                s = wc_fail(err, e->comp[c].status, "%s", e->comp[c].err.msg);
    }
    wc_free(rows.pixels);
    for (uint32_t c = 0; c < 4; c++) {
        wc_free(ip[c]);
        wc_free(fp[c]);
    }
    return s;
}

/* Builds the tables from the first pass's counts (es_build_tables: the
 * algorithm es_encode uses). */
static wc_status senc_tables(senc *e)
{
    const size_t n = (size_t)e->h.components * WC_NCLASS * BC_NTAB * BC_NSYM;
    uint64_t *counts = wc_calloc(n, sizeof(uint64_t));
    WC_RETURN_IF(!counts, &e->ctx->err, WC_ERR_NOMEM, "out of memory (symbol counts)");
    const uint32_t *f = (const uint32_t *)e->freq;
    for (size_t k = 0; k < n; k++) counts[k] = f[k];
    wc_status s = es_build_tables(&e->h, counts, e->p->threads, e->enc, &e->tabs, &e->ctx->err);
    wc_free(counts);
    return s;
}

/* The input again from its first row, for the next pass. */
static wc_status senc_rewind(senc *e, const wc_row_source *src)
{
    WC_RETURN_IF(!src->rewind, &e->ctx->err, WC_ERR_ARG,
                 "Huffman coding by rows reads the input more than once: the row source needs a "
                 "rewind");
    const wc_status r = src->rewind(src->user);
    WC_RETURN_IF(r != WC_OK, &e->ctx->err, r, "rewinding the input: %s", wc_strerror(r));
    return WC_OK;
}

/* A bpp target (ratectl.h's rule): a pass for the histograms, a pass a
 * window for its counts; then the header's steps are the rule's and the
 * symbol counts those of that step, so the tables are built without a
 * counting pass of their own. Each pass ends with the input rewound. */
static wc_status senc_rate(senc *e, const wc_image *shape, const wc_row_source *src)
{
    e->pass = 0;
    WC_FORWARD_IF_ERROR(senc_pass(e, shape, src));
    WC_FORWARD_IF_ERROR(senc_rewind(e, src));
    rc_first_window(e->rc);
    float step = 0.0f;
    for (int again = 1; again;) {
        e->pass = 3;
        WC_FORWARD_IF_ERROR(senc_pass(e, shape, src));
        WC_FORWARD_IF_ERROR(senc_rewind(e, src));
        WC_FORWARD_IF_ERROR(rc_window_done(e->rc, e->p->threads, &again, &step, &e->ctx->err));
    }
    plan_set_step(&e->h, step);
    plan_from_header(&e->h, e->p->threshold, &e->plan);
    memcpy(e->freq, e->rc->best_freq, (size_t)e->h.components * WC_NCLASS * sizeof(bc_freq));
    return WC_OK;
}

static wc_status put_bytes(wc_write_fn write, void *user, const void *data, size_t n, wc_err *err)
{
    if (!n) return WC_OK;
    wc_status s = write(user, data, n);
    WC_RETURN_IF(s != WC_OK, err, s, "writing the file: %s", wc_strerror(s));
    return WC_OK;
}

/* The file, in order: head from memory, payloads from the store. */
static wc_status senc_write(senc *e, wc_write_fn write, void *user)
{
    wc_err *err = &e->ctx->err;
    const wcx_header *h = &e->h;
    const file_head fh = {.h = h,
                          .meta = e->p->meta,
                          .planes = h->components,
                          .tables = e->tabs.tables,
                          .table_size = e->tabs.table_size,
                          .block_size = e->block_size,
                          .nblocks = e->lay.nblocks};
    const size_t cap = file_head_bytes(&fh);
    uint8_t *head = wc_malloc(cap);
    WC_RETURN_IF(!head, err, WC_ERR_NOMEM, "out of memory (%zu-byte file head)", cap);
    wcx_writer w;
    wcx_writer_init(&w, head, cap);
    file_head_put(&w, &fh);
    size_t head_size = 0;
    wc_status s = wcx_writer_finish(&w, &head_size);
    if (s != WC_OK) s = wc_fail(err, s, "file head overflow");
    /* Everything allocated before the first byte goes out. */
    enum { PIECE = 1 << 20 };
    uint8_t *buf = s == WC_OK ? wc_malloc(PIECE) : NULL;
    if (s == WC_OK && !buf) s = wc_fail(err, WC_ERR_NOMEM, "out of memory (copy buffer)");
    if (s == WC_OK) s = put_bytes(write, user, head, head_size, err);
    wc_free(head);
    for (uint32_t c = 0; c < h->components && s == WC_OK; c++) {
        uint64_t total = 0;
        const size_t end =
            c + 1 < h->components ? e->comp[c + 1].band[0].first_block : e->lay.nblocks;
        for (size_t i = e->comp[c].band[0].first_block; i < end; i++) total += e->block_size[i];
        if (total > WCX_MAX_CHUNK_SIZE) {
            s = wc_fail(err, WC_ERR_LIMIT,
                        "component %u: %llu bytes of data exceed one chunk's limit", c,
                        (unsigned long long)total);
            break;
        }
        uint8_t hdr[8];
        wc_wr32le(hdr, (uint32_t)total);
        wc_wr32le(hdr + 4, WCX_WDAT);
        uLong crc = crc32(0L, hdr + 4, 4);
        s = put_bytes(write, user, hdr, 8, err);
        for (uint32_t b = 0; b < e->lay.nbands[c] && s == WC_OK; b++) {
            const wc_band_info *bi = &e->lay.band[c][b];
            const sband *sb = &e->comp[c].band[b];
            const uint32_t nbx = wc_ceil_div(bi->w, e->side), nby = wc_ceil_div(bi->h, e->side);
            for (uint32_t r = 0; r < nby && s == WC_OK && nbx; r++) {
                uint64_t len = 0, off = e->piece_off[sb->first_piece + r];
                for (uint32_t x = 0; x < nbx; x++)
                    len += e->block_size[sb->first_block + (size_t)r * nbx + x];
                while (len && s == WC_OK) {
                    const size_t k = len < PIECE ? (size_t)len : PIECE;
                    s = store_read(e, off, buf, k);
                    if (s != WC_OK) break;
                    crc = wc_crc32((uint32_t)crc, buf, k);
                    s = put_bytes(write, user, buf, k, err);
                    off += k;
                    len -= k;
                }
            }
        }
        uint8_t tail[4];
        wc_wr32le(tail, (uint32_t)crc);
        if (s == WC_OK) s = put_bytes(write, user, tail, 4, err);
    }
    wc_free(buf);
    if (s == WC_OK) {
        uint8_t end[WCX_CHUNK_OVERHEAD];
        wc_wr32le(end, 0);
        wc_wr32le(end + 4, WCX_WEND);
        wc_wr32le(end + 8, (uint32_t)crc32(0L, end + 4, 4));
        s = put_bytes(write, user, end, sizeof end, err);
    }
    return s;
}

static wc_status encode_rows(wc_ctx *ctx, const wc_params *p, const wc_image *shape,
                             const wc_row_source *src, const wc_byte_store *store,
                             wc_write_fn write, void *write_user)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    wc_err *err = &ctx->err;
    WC_RETURN_IF(!p || !shape || !src || !src->read || !write, err, WC_ERR_ARG,
                 "missing parameters, shape, row source or sink");
    WC_RETURN_IF(store && (!store->append || !store->read), err, WC_ERR_ARG,
                 "a payload store needs append and read");
    wc_image probe = *shape;
    probe.pixels = (void *)shape; /* plan_check wants pixels; they are not read */
    probe.stride = 0;
    WC_FORWARD_IF_ERROR(plan_check(p, &probe, err));
    WC_RETURN_IF(!wc_encode_rows_supported(shape, p), err, WC_ERR_UNSUPPORTED,
                 "encoding by rows needs the host, lossless, at a fixed step, or at a bpp "
                 "target with the separable DWT and plain Huffman blocks (no Explosive scheme)");
    const uint64_t pixels = (uint64_t)shape->width * shape->height;
    const uint64_t max_px = p->max_pixels ? p->max_pixels : WC_DEFAULT_MAX_PIXELS;
    WC_RETURN_IF(pixels > max_px, err, WC_ERR_LIMIT,
                 "image %ux%u (%llu pixels) exceeds the limit of %llu pixels", shape->width,
                 shape->height, (unsigned long long)pixels, (unsigned long long)max_px);
    const uint64_t need = wc_encode_rows_memory(shape, p, store != NULL);
    WC_RETURN_IF(p->max_memory && need > p->max_memory, err, WC_ERR_LIMIT,
                 "image %ux%u x%u needs about %llu bytes to encode by rows, over the memory "
                 "limit of %llu",
                 shape->width, shape->height, shape->components, (unsigned long long)need,
                 (unsigned long long)p->max_memory);
    senc e;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    e.p = p;
    e.store = store;
    senc_plan(&e, shape);
    WC_RETURN_IF(e.lay.nblocks > WC_MAX_BLOCKS, err, WC_ERR_LIMIT,
                 "%zu code blocks exceed the limit of %zu", e.lay.nblocks, WC_MAX_BLOCKS);
    pthread_mutex_init(&e.lock, NULL);
    rc_rule rc;
    wc_status s = WC_OK;
    if (!p->lossless && p->bpp > 0) {
        s = rc_init(&rc, &e.h, &e.lay, e.plan.threshold, p->bpp, meta_file_bytes(p->meta), err);
        if (s == WC_OK) e.rc = &rc;
    }
    if (s == WC_OK) s = senc_alloc(&e, shape);
    const double t0 = ctx_now();
    if (s == WC_OK && e.rc) s = senc_rate(&e, shape, src);
    if (s == WC_OK && e.h.entropy != WC_ENTROPY_DEFLATE) {
        if (!e.rc) {
            e.pass = 1;
            s = senc_pass(&e, shape, src);
            if (s == WC_OK) s = senc_rewind(&e, src);
        }
        if (s == WC_OK) s = senc_tables(&e);
    }
    if (s == WC_OK) {
        e.pass = 2;
        s = senc_pass(&e, shape, src);
    }
    ctx->times.transform = ctx_now() - t0;
    if (s == WC_OK) {
        const double t1 = ctx_now();
        s = senc_write(&e, write, write_user);
        ctx->times.container = ctx_now() - t1;
    }
    if (s == WC_OK) {
        size_t n = strlen(ctx->note);
        char how[48];
        if (e.h.transform == WC_TRANSFORM_DWT)
            snprintf(how, sizeof how, "%d level(s)", e.h.levels);
        else /* DCT / LOT: stream_dct.c */
            snprintf(how, sizeof how, "the %s in strips of 8 rows",
                     e.h.transform == WC_TRANSFORM_DCT ? "DCT" : "LOT");
        snprintf(ctx->note + n, sizeof ctx->note - n,
                 "%sencoded by rows (%s%s, %d pass(es), about %.1f MiB held)", n ? "; " : "", how,
                 p->lossless && p->levels == WC_LEVELS_AUTO ? ", the photograph layout" : "",
                 e.rc                                ? 2 + e.rc->windows
                 : e.h.entropy == WC_ENTROPY_DEFLATE ? 1
                                                     : 2,
                 (double)need / (1 << 20));
        n = strlen(ctx->note);
        if (e.rc)
            snprintf(ctx->note + n, sizeof ctx->note - n,
                     "; rate control: step 2^(%d/%d) = %g, %d window(s) of counts", e.rc->best_m,
                     RC_GRID, (double)e.h.base_step, e.rc->windows);
    }
    if (e.rc) rc_free(e.rc);
    senc_free(&e);
    pthread_mutex_destroy(&e.lock);
    return s;
}

wc_status wc_encode_rows(wc_ctx *ctx, const wc_params *p, const wc_image *shape,
                         const wc_row_source *src, const wc_byte_store *store, wc_write_fn write,
                         void *write_user)
{
    /* The strips' loops on ctx's parked threads, not threads started per loop. */
    wc_thread_pool *was = ctx_enter(ctx);
    const wc_status s = encode_rows(ctx, p, shape, src, store, write, write_user);
    ctx_leave(was);
    return s;
}
