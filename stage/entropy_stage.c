/*
 * entropy_stage.c -- code blocks to payloads and back, on all workers.
 *
 * Huffman mode runs two passes over the blocks: counting symbols per
 * (component, class, context table), which fixes the tables, then coding.
 * Deflate mode codes each block as zero-run RLE tokens through zlib,
 * prefixed by the token stream's length as a varint. Arithmetic mode
 * (entropy 3, ac_block.h) codes each block alone in one pass: no tables.
 */
#include <stdio.h>
#include <string.h>

#include "ac_block.h"
#include "block_coder.h"
#include "block_tiles.h"
#include "entropy_stage.h"
#include "parallel.h"
#include "pool.h"
#include "rle.h"
#include "row_filter.h"
#include "zcodec.h"

#define TABLE_CAP ((size_t)WC_NCLASS * BC_NTAB * (BC_NSYM + 8) + 64)

/* A worker's growing buffer. Its memory comes from the context's pool
 * (pool_alloc: plain allocation for small sizes or no pool), so a large
 * one, kept between calls, is not faulted in again. */
typedef struct arena {
    uint8_t *buf;
    size_t size, cap;
    wc_pool *pool;
    int failed;
} arena;

/* Makes room for at least cap bytes (copying what is there). */
static int arena_grow(arena *a, size_t cap)
{
    uint8_t *p = pool_alloc(a->pool, cap);
    if (!p) return 0;
    if (a->size) memcpy(p, a->buf, a->size);
    pool_free(a->pool, a->buf);
    a->buf = p;
    a->cap = pool_size(p);
    return 1;
}

static uint8_t *arena_reserve(arena *a, size_t n)
{
    if (a->failed) return NULL;
    if (a->size + n > a->cap) {
        size_t cap = a->cap ? a->cap : 1 << 16;
        while (cap < a->size + n) cap *= 2;
        if (!arena_grow(a, cap)) {
            a->failed = 1;
            return NULL;
        }
    }
    return a->buf + a->size;
}

typedef struct worker_state {
    uint32_t *scratch;  /* block coder scratch */
    uint32_t *scratch2; /* the second block of a decoded pair */
    void *ac;           /* arithmetic mode: ac_block.h's scratch */
    int32_t *values;    /* deflate mode: a block's values */
    uint8_t *tokens;    /* deflate mode: a block's RLE tokens */
    bc_freq *freq;      /* [components * WC_NCLASS] */
    arena syms;         /* Huffman mode: symbols of the blocks it counted */
    arena out;
} worker_state;

typedef struct enc_job {
    const wcx_header *h;
    const wc_layout *lay;
    int32_t *const *planes;
    worker_state *ws;
    huf_enc (*enc)[WC_NCLASS][BC_NTAB];
    uint8_t *block_worker;
    size_t *block_offset;
    uint32_t *block_size;
    uint8_t *sym_worker; /* per block: whose arena holds its symbols */
    size_t *sym_offset;  /* ... at which byte */
    size_t *sym_count;
    wc_err *errs;      /* per worker */
    wc_status *status; /* per worker */
    int deflate_level;
} enc_job;

/* Run mode starts where the context sum is at most this: lossy planes are
 * mostly zero, and runs there beat coding zeros one by one (measured on
 * Kodak: +0.15 dB at 0.25 and 1 bpp for 3 against 0); lossless planes do
 * best at 1. */
static uint32_t run_max_of(const wcx_header *h) { return (h->flags & 1) ? 1 : 3; }

/* Entropy 0 (one stream a block) and 2 (tiles, block_tiles.h) share the
 * model and the WTAB tables; entropy 1 is deflate, 3 arithmetic coding,
 * 4 filtered deflate (row_filter.h: a 0-level file's planes, each one block). */
static int huffman_of(const wcx_header *h) { return wcx_entropy_has_tables(h->entropy); }
static int arith_of(const wcx_header *h) { return h->entropy == 3; }
static int filtered_of(const wcx_header *h) { return h->entropy == WCX_ENTROPY_FILTERED; }
static int tiled_of(const wcx_header *h) { return h->entropy == 2; }

/* Block k with its top-left coefficient at data, rows stride apart. */
static bc_block block_view_at(const wcx_header *h, const wc_layout *lay, const wc_cblk *k,
                              int32_t *data, size_t stride)
{
    const uint32_t run_max = run_max_of(h);
    const wc_band_info *bi = &lay->band[k->comp][k->band];
    int orient = bi->orient == 1 ? BC_VERT : bi->orient == 2 ? BC_HORZ : BC_ISO;
    bc_block b = {data, k->w, k->h, stride, bi->predict, orient, run_max};
    return b;
}

static bc_block block_view(const wcx_header *h, const wc_layout *lay, int32_t *const *planes,
                           const wc_cblk *k)
{
    return block_view_at(h, lay, k, planes[k->comp] + (size_t)k->y0 * lay->plane_w[k->comp] + k->x0,
                         lay->plane_w[k->comp]);
}

/* Counting pass: contexts and symbols, kept for the coding pass. */
static void count_block(void *arg, size_t i, int w)
{
    enc_job *j = arg;
    worker_state *ws = &j->ws[w];
    const wc_cblk *k = &j->lay->blocks[i];
    bc_block b = block_view(j->h, j->lay, j->planes, k);
    unsigned cls = j->lay->band[k->comp][k->band].cls;
    const int tiled = tiled_of(j->h);
    const size_t bound = tiled ? bct_token_bound(k->w, k->h) : bc_token_bound(k->w, k->h);
    uint16_t *tok = (uint16_t *)(void *)arena_reserve(&ws->syms, bound * 2);
    if (!tok) {
        if (j->status[w] == WC_OK)
            j->status[w] = wc_fail(&j->errs[w], WC_ERR_NOMEM, "out of memory (block symbols)");
        return;
    }
    j->sym_worker[i] = (uint8_t)w;
    j->sym_offset[i] = ws->syms.size;
    bc_freq *f = &ws->freq[k->comp * WC_NCLASS + cls];
    j->sym_count[i] =
        tiled ? bct_symbolize(&b, *f, tok, ws->scratch) : bc_symbolize(&b, *f, tok, ws->scratch);
    ws->syms.size += j->sym_count[i] * 2;
}

static void put_varint(uint8_t **p, uint32_t v) { *p += wc_leb128_put(*p, v); }

size_t es_deflate_tokens(const bc_block *b, int32_t *values, uint8_t *tokens)
{
    const size_t n = (size_t)b->w * b->h;
    if (b->predict) {
        bc_residuals(b, values);
    } else {
        for (uint32_t y = 0; y < b->h; y++)
            memcpy(values + (size_t)y * b->w, b->data + y * b->stride, b->w * sizeof(int32_t));
    }
    return rle_encode(values, n, tokens);
}

size_t es_deflate_bound(size_t ntok) { return 5 + zc_bound(ntok); }

wc_status es_deflate_pack(const uint8_t *tokens, size_t ntok, int level, uint8_t *dst, size_t cap,
                          size_t *size, wc_err *err)
{
    uint8_t *p = dst;
    put_varint(&p, (uint32_t)ntok);
    size_t zsize;
    WC_FORWARD_IF_ERROR(zc_compress(tokens, ntok, level, p, cap - (size_t)(p - dst), &zsize, err));
    *size = (size_t)(p - dst) + zsize;
    return WC_OK;
}

static wc_status deflate_block(enc_job *j, const bc_block *b, worker_state *ws, size_t *size,
                               wc_err *err)
{
    const size_t ntok = es_deflate_tokens(b, ws->values, ws->tokens);
    const size_t bound = es_deflate_bound(ntok);
    uint8_t *dst = arena_reserve(&ws->out, bound);
    WC_RETURN_IF(!dst, err, WC_ERR_NOMEM, "out of memory (block output)");
    return es_deflate_pack(ws->tokens, ntok, j->deflate_level, dst, bound, size, err);
}

/* Entropy 4: the values as they are (the row filters are the prediction). */
static wc_status filtered_block(const bc_block *b, worker_state *ws, size_t *size, wc_err *err)
{
    uint8_t *coded = NULL;
    WC_FORWARD_IF_ERROR(rf_encode(b->data, b->stride, b->w, b->h, &coded, size, err));
    uint8_t *dst = arena_reserve(&ws->out, *size);
    if (dst) memcpy(dst, coded, *size);
    wc_free(coded);
    WC_RETURN_IF(!dst, err, WC_ERR_NOMEM, "out of memory (block output)");
    return WC_OK;
}

static void encode_block(void *arg, size_t i, int w)
{
    enc_job *j = arg;
    worker_state *ws = &j->ws[w];
    if (j->status[w] != WC_OK) return;
    const wc_cblk *k = &j->lay->blocks[i];
    bc_block b = block_view(j->h, j->lay, j->planes, k);
    size_t size = 0;
    wc_status s = WC_OK;
    j->block_worker[i] = (uint8_t)w;
    j->block_offset[i] = ws->out.size;
    if (huffman_of(j->h)) {
        unsigned cls = j->lay->band[k->comp][k->band].cls;
        const int tiled = tiled_of(j->h);
        const size_t cap = tiled ? bct_bound(k->w, k->h) : bc_bound(k->w, k->h);
        uint8_t *dst = arena_reserve(&ws->out, cap);
        const uint16_t *tok =
            (const uint16_t *)(const void *)(j->ws[j->sym_worker[i]].syms.buf + j->sym_offset[i]);
        if (!dst)
            s = wc_fail(&j->errs[w], WC_ERR_NOMEM, "out of memory (block output)");
        else if (tiled)
            size = bct_emit(&b, tok, j->sym_count[i], j->enc[k->comp][cls], dst, cap, ws->scratch);
        else
            size = bc_emit(&b, tok, j->sym_count[i], j->enc[k->comp][cls], dst, cap, ws->scratch);
    } else if (filtered_of(j->h)) {
        s = filtered_block(&b, ws, &size, &j->errs[w]);
    } else if (arith_of(j->h)) {
        const size_t cap = ac_bound(k->w, k->h);
        uint8_t *dst = arena_reserve(&ws->out, cap);
        if (!dst)
            s = wc_fail(&j->errs[w], WC_ERR_NOMEM, "out of memory (block output)");
        else
            size = ac_encode(&b, dst, cap, ws->ac);
        if (size == SIZE_MAX) {
            s = wc_fail(&j->errs[w], WC_ERR_BUFFER, "arithmetic coder overflow");
            size = 0;
        }
    } else {
        s = deflate_block(j, &b, ws, &size, &j->errs[w]);
    }
    if (s == WC_OK && size > 0x7FFFFFFFu)
        s = wc_fail(&j->errs[w], WC_ERR_LIMIT, "code block too large");
    j->status[w] = s;
    ws->out.size += size;
    j->block_size[i] = (uint32_t)size;
}

static void worker_free(worker_state *w)
{
    wc_free(w->scratch);
    wc_free(w->scratch2);
    wc_free(w->ac);
    wc_free(w->values);
    wc_free(w->tokens);
    wc_free(w->freq);
    pool_free(w->syms.pool, w->syms.buf);
    pool_free(w->out.pool, w->out.buf);
}

static void workers_free(worker_state *ws, int n)
{
    for (int i = 0; ws && i < n; i++) worker_free(&ws[i]);
    wc_free(ws);
}

static void worker_free_item(void *arg, size_t i, int worker)
{
    (void)worker;
    worker_free((worker_state *)arg + i);
}

/* The encoder's workers hold the symbols and the coded blocks (about the
 * size of the coefficient planes): giving their pages back is left to
 * each on a thread of its own, not queued on the caller's. */
static void workers_free_mt(worker_state *ws, int n)
{
    if (ws) wc_parallel_for(n, (size_t)n, worker_free_item, ws);
    wc_free(ws);
}

/* Scratch for n workers; symbol counts (freq) only for the encoder. */
static wc_status workers_alloc(const wcx_header *h, int n, int counts, worker_state **out,
                               wc_err *err)
{
    worker_state *ws = wc_calloc((size_t)n, sizeof *ws);
    WC_RETURN_IF(!ws, err, WC_ERR_NOMEM, "out of memory (workers)");
    const size_t side = (size_t)1 << h->block_log2, vals = side * side;
    for (int i = 0; i < n; i++) {
        ws[i].scratch = wc_malloc_array(bc_scratch_elems(), sizeof(uint32_t));
        ws[i].scratch2 = wc_malloc_array(bc_scratch_elems(), sizeof(uint32_t));
        ws[i].values = wc_malloc_array(vals, sizeof(int32_t));
        ws[i].tokens = wc_malloc(rle_bound(vals));
        if (counts) ws[i].freq = wc_calloc((size_t)h->components * WC_NCLASS, sizeof(bc_freq));
        if (arith_of(h)) ws[i].ac = wc_malloc(ac_scratch_bytes());
        if (!ws[i].scratch || !ws[i].scratch2 || !ws[i].values || !ws[i].tokens ||
            (counts && !ws[i].freq) || (arith_of(h) && !ws[i].ac)) {
            workers_free(ws, n);
            return wc_fail(err, WC_ERR_NOMEM, "out of memory (worker scratch)");
        }
    }
    *out = ws;
    return WC_OK;
}

typedef struct table_job {
    const uint64_t *counts;
    huf_enc (*enc)[WC_NCLASS][BC_NTAB];
    uint8_t (*len)[BC_NSYM]; /* [(c * WC_NCLASS + class) * BC_NTAB + table] */
} table_job;

/* One table's code lengths and codes; each depends on its counts alone. */
static void build_table(void *arg, size_t i, int worker)
{
    (void)worker;
    const table_job *j = arg;
    const uint64_t *n = j->counts + i * BC_NSYM;
    const size_t c = i / (WC_NCLASS * BC_NTAB), cls = i / BC_NTAB % WC_NCLASS, t = i % BC_NTAB;
    uint32_t f[BC_NSYM];
    uint64_t any = 0;
    for (unsigned s = 0; s < BC_NSYM; s++) {
        f[s] = n[s] > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)n[s];
        any |= n[s];
    }
    if (!any) {
        /* Unused (most tables of a small image): what the builders give
         * for no symbols, without their work. */
        memset(j->len[i], 0, BC_NSYM);
        memset(&j->enc[c][cls][t], 0, sizeof j->enc[c][cls][t]);
        return;
    }
    huf_build_lengths(f, BC_NSYM, HUF_MAX_LEN, j->len[i]);
    huf_enc_build(&j->enc[c][cls][t], j->len[i], BC_NSYM);
}

wc_status es_build_tables(const wcx_header *h, const uint64_t *counts, int threads,
                          huf_enc (*enc)[WC_NCLASS][BC_NTAB], es_output *out, wc_err *err)
{
    /* 225 tables a component, ~3 us each: built on all threads. */
    const size_t ntab = (size_t)h->components * WC_NCLASS * BC_NTAB;
    table_job j = {counts, enc, wc_malloc_array(ntab, BC_NSYM)};
    WC_RETURN_IF(!j.len, err, WC_ERR_NOMEM, "out of memory (code lengths)");
    wc_parallel_for(threads, ntab, build_table, &j);
    wc_status s = WC_OK;
    for (uint32_t c = 0; c < h->components && s == WC_OK; c++) {
        out->tables[c] = wc_malloc(TABLE_CAP);
        if (!out->tables[c]) {
            s = wc_fail(err, WC_ERR_NOMEM, "out of memory (tables)");
            break;
        }
        bitw w;
        bitw_init(&w, out->tables[c], TABLE_CAP);
        for (unsigned cls = 0; cls < WC_NCLASS; cls++)
            bc_tables_write(&w, (const uint8_t(*)[BC_NSYM])j.len[(c * WC_NCLASS + cls) * BC_NTAB]);
        out->table_size[c] = bitw_flush(&w);
        if (w.overflow) s = wc_fail(err, WC_ERR_BUFFER, "entropy tables overflow");
    }
    wc_free(j.len);
    return s;
}

/* Sums the workers' counts (in worker order: sums do not depend on it)
 * and builds the tables from them. */
static wc_status build_tables(const wcx_header *h, worker_state *ws, int nw,
                              huf_enc (*enc)[WC_NCLASS][BC_NTAB], es_output *out, wc_err *err)
{
    const size_t n = (size_t)h->components * WC_NCLASS * BC_NTAB * BC_NSYM;
    uint64_t *counts = wc_calloc(n, sizeof(uint64_t));
    WC_RETURN_IF(!counts, err, WC_ERR_NOMEM, "out of memory (symbol counts)");
    for (int i = 0; i < nw; i++) {
        /* The worker's counts are one allocation of n uint32 (bc_freq
         * arrays end to end): read as such, not through freq[0]'s bounds. */
        const uint32_t *f = (const uint32_t *)ws[i].freq;
        for (size_t k = 0; k < n; k++) counts[k] += f[k];
    }
    wc_status s = es_build_tables(h, counts, nw, enc, out, err);
    wc_free(counts);
    return s;
}

/* Concatenating the blocks: each item copies ASSEMBLE_BLOCKS blocks to
 * where the prefix sums put them, so the copy of the whole payload (and
 * the first touch of its pages) runs on all the workers: on one it was a
 * tenth of a 16-thread entropy stage. */
enum { ASSEMBLE_BLOCKS = 256 };

typedef struct assemble_job {
    const wc_layout *lay;
    const worker_state *ws;
    const enc_job *j;
    const size_t *dst; /* per block: its offset in its component's data */
    es_output *out;
} assemble_job;

static void assemble_item(void *arg, size_t item, int worker)
{
    (void)worker;
    const assemble_job *a = arg;
    const size_t i0 = item * ASSEMBLE_BLOCKS;
    const size_t i1 =
        i0 + ASSEMBLE_BLOCKS < a->lay->nblocks ? i0 + ASSEMBLE_BLOCKS : a->lay->nblocks;
    for (size_t i = i0; i < i1; i++)
        memcpy(a->out->data[a->lay->blocks[i].comp] + a->dst[i],
               a->ws[a->j->block_worker[i]].out.buf + a->j->block_offset[i], a->j->block_size[i]);
}

/* Concatenates each component's blocks, in layout order, into its WDAT. */
static wc_status assemble(const wc_layout *lay, const worker_state *ws, const enc_job *j,
                          int threads, wc_pool *pool, es_output *out, wc_err *err)
{
    out->data_pool = pool;
    size_t *dst = wc_malloc_array(lay->nblocks ? lay->nblocks : 1, sizeof(size_t));
    WC_RETURN_IF(!dst, err, WC_ERR_NOMEM, "out of memory (block offsets)");
    wc_status s = WC_OK;
    for (uint32_t c = 0; c < lay->components && s == WC_OK; c++) {
        size_t end = c + 1 < lay->components ? lay->first_block[c + 1] : lay->nblocks, total = 0;
        for (size_t i = lay->first_block[c]; i < end; i++) {
            dst[i] = total;
            total += j->block_size[i];
        }
        if (total > WCX_MAX_CHUNK_SIZE) {
            s = wc_fail(err, WC_ERR_LIMIT,
                        "component %u: %zu bytes of data exceed one chunk's limit", c, total);
            break;
        }
        out->data[c] = pool ? pool_alloc(pool, total ? total : 1) : wc_malloc(total ? total : 1);
        if (!out->data[c]) s = wc_fail(err, WC_ERR_NOMEM, "out of memory (component data)");
        out->data_size[c] = total;
    }
    assemble_job a = {lay, ws, j, dst, out};
    if (s == WC_OK)
        wc_parallel_for(threads, (lay->nblocks + ASSEMBLE_BLOCKS - 1) / ASSEMBLE_BLOCKS,
                        assemble_item, &a);
    wc_free(dst);
    return s;
}

/* The symbols' arenas start at a worker's share of two bytes a
 * coefficient and a quarter more (a symbol is two bytes, and most blocks
 * make at most one a coefficient), so that they rarely grow: growing
 * copies, and a kept buffer of the same size from the last call is only
 * found again if the sizes asked are the same. Small images grow from
 * nothing, as before. */
static void presize_symbols(const wc_layout *lay, worker_state *ws, int nw)
{
    size_t coefs = 0;
    for (uint32_t c = 0; c < lay->components; c++)
        coefs += (size_t)lay->plane_w[c] * lay->plane_h[c];
    const size_t share = coefs / (size_t)nw * 5 / 2;
    if (share < ((size_t)1 << 20)) return;
    for (int i = 0; i < nw; i++) (void)arena_grow(&ws[i].syms, share);
}

/* The coded blocks' arenas, once the symbols are counted: lossless
 * blocks code to about a fifth of their symbols' bytes, lossy ones to
 * less; a third, so they rarely grow. */
static void presize_output(worker_state *ws, int nw)
{
    for (int i = 0; i < nw; i++) {
        const size_t cap = ws[i].syms.size / 3;
        if (cap >= ((size_t)1 << 20)) (void)arena_grow(&ws[i].out, cap);
    }
}

wc_status es_encode(const wcx_header *h, const wc_layout *lay, int32_t *const *planes, int threads,
                    int deflate_level, wc_pool *pool, es_output *out, wc_err *err)
{
    memset(out, 0, sizeof *out);
    const int nw = wc_thread_count(threads);
    worker_state *ws = NULL;
    WC_FORWARD_IF_ERROR(workers_alloc(h, nw, 1, &ws, err));
    for (int i = 0; i < nw; i++) ws[i].syms.pool = ws[i].out.pool = pool;
    if (pool && huffman_of(h)) presize_symbols(lay, ws, nw);
    enc_job j = {.h = h, .lay = lay, .planes = planes, .ws = ws, .deflate_level = deflate_level};
    const size_t nb = lay->nblocks ? lay->nblocks : 1;
    j.enc = wc_malloc_array(h->components, sizeof *j.enc);
    j.block_worker = wc_malloc(nb);
    j.block_offset = wc_malloc_array(nb, sizeof(size_t));
    j.block_size = out->block_size = wc_malloc_array(nb, sizeof(uint32_t));
    j.sym_worker = wc_malloc(nb);
    j.sym_offset = wc_malloc_array(nb, sizeof(size_t));
    j.sym_count = wc_malloc_array(nb, sizeof(size_t));
    j.errs = wc_calloc((size_t)nw, sizeof(wc_err));
    j.status = wc_calloc((size_t)nw, sizeof(wc_status));
    wc_status s = WC_OK;
    if (!j.enc || !j.block_worker || !j.block_offset || !j.block_size || !j.errs || !j.status ||
        !j.sym_worker || !j.sym_offset || !j.sym_count)
        s = wc_fail(err, WC_ERR_NOMEM, "out of memory (block bookkeeping)");
    if (s == WC_OK && huffman_of(h)) {
        wc_parallel_for(nw, lay->nblocks, count_block, &j);
        for (int i = 0; i < nw && s == WC_OK; i++)
            if (j.status[i] != WC_OK) s = wc_fail(err, j.status[i], "%s", j.errs[i].msg);
        if (s == WC_OK) s = build_tables(h, ws, nw, j.enc, out, err);
        if (s == WC_OK && pool) presize_output(ws, nw);
    }
    if (s == WC_OK) {
        wc_parallel_for(nw, lay->nblocks, encode_block, &j);
        for (int i = 0; i < nw && s == WC_OK; i++)
            if (j.status[i] != WC_OK) s = wc_fail(err, j.status[i], "%s", j.errs[i].msg);
    }
    if (s == WC_OK) s = assemble(lay, ws, &j, nw, pool, out, err);
    wc_free(j.enc);
    wc_free(j.block_worker);
    wc_free(j.block_offset);
    wc_free(j.sym_worker);
    wc_free(j.sym_offset);
    wc_free(j.sym_count);
    wc_free(j.errs);
    wc_free(j.status);
    workers_free_mt(ws, nw);
    if (s != WC_OK) es_output_free(out);
    return s;
}

wc_status es_output_wait(es_output *out, wc_err *err)
{
    const char *failed = NULL;
    for (uint32_t c = 0; c < 4 && out->data_wait && !failed; c++)
        if (out->data[c]) failed = out->data_wait(out->data_wait_arg, c, out->data_size[c]);
    out->data_wait = NULL;
    WC_RETURN_IF(failed, err, WC_ERR_BACKEND, "the payload did not arrive: %s", failed);
    return WC_OK;
}

void es_output_free(es_output *out)
{
    /* Nothing may still be arriving in a buffer the next call reuses. */
    wc_err ignored;
    (void)es_output_wait(out, &ignored);
    for (int c = 0; c < 4; c++) {
        wc_free(out->tables[c]);
        if (!out->data_borrowed && out->data_pool) pool_free(out->data_pool, out->data[c]);
        if (!out->data_borrowed && !out->data_pool) wc_free(out->data[c]);
        out->tables[c] = out->data[c] = NULL;
    }
    wc_free(out->block_size);
    out->block_size = NULL;
}

void es_band_name(const wcx_header *h, const wc_layout *lay, uint32_t c, uint32_t b, char out[16])
{
    const wc_band_info *bi = &lay->band[c][b];
    if (layout_comp_transform(h, c) != WC_TRANSFORM_DWT) {
        snprintf(out, 16, "F(%u,%u)", bi->step_index & 7u, (unsigned)bi->step_index >> 3);
        return;
    }
    static const char *const names[4] = {"LL", "HL", "LH", "HH"};
    snprintf(out, 16, "%s%u", names[bi->orient & 3],
             (unsigned)(bi->orient ? bi->level : h->levels));
}

/* ---- decoding ----------------------------------------------------------------- */

typedef struct dec_job {
    const wcx_header *h;
    const wc_layout *lay;
    const es_input *in;
    int32_t *const *planes;
    const bc_dectab *tabs; /* [component * WC_NCLASS + class] */
    size_t *offset;        /* per block, within its component's data */
    worker_state *ws;
    wc_err *errs;       /* per worker: its lowest failing block */
    size_t *fail_block; /* per worker, SIZE_MAX when none */
    wc_status *status;
} dec_job;

static wc_status get_varint(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    uint32_t r = 0;
    for (unsigned shift = 0; shift < 35; shift += 7) {
        if (*p >= end) return WC_ERR_TRUNCATED;
        uint8_t b = *(*p)++;
        if (shift == 28 && b > 0x0F) return WC_ERR_CORRUPT;
        r |= (uint32_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return WC_OK;
        }
    }
    return WC_ERR_CORRUPT;
}

static wc_status inflate_block(const uint8_t *src, size_t size, const bc_block *b, worker_state *ws,
                               wc_err *err)
{
    const uint8_t *p = src, *end = src + size;
    uint32_t ntok;
    wc_status s = get_varint(&p, end, &ntok);
    WC_RETURN_IF(s != WC_OK, err, s, "bad token count");
    const size_t n = (size_t)b->w * b->h;
    WC_RETURN_IF(ntok > rle_bound(n), err, WC_ERR_CORRUPT, "token count %u too large", ntok);
    WC_FORWARD_IF_ERROR(zc_decompress(p, (size_t)(end - p), ws->tokens, ntok, err));
    WC_FORWARD_IF_ERROR(rle_decode(ws->tokens, ntok, ws->values, n, err));
    for (uint32_t y = 0; y < b->h; y++)
        memcpy(b->data + y * b->stride, ws->values + (size_t)y * b->w, b->w * sizeof(int32_t));
    if (b->predict) bc_unpredict(b);
    return WC_OK;
}

/* Block i of the layout from its coded bytes into b; an error names the
 * component, band and block (es_decode and es_block_decode alike). */
static wc_status decode_view(const wcx_header *h, const wc_layout *lay, const bc_dectab *tabs,
                             size_t i, const uint8_t *src, size_t size, bc_block *b,
                             worker_state *ws, wc_err *err)
{
    const wc_cblk *k = &lay->blocks[i];
    wc_err e = {{0}};
    wc_status s;
    if (huffman_of(h)) {
        unsigned cls = lay->band[k->comp][k->band].cls;
        const bc_dectab *T = &tabs[k->comp * WC_NCLASS + cls];
        if (tiled_of(h))
            s = bct_decode(src, size, b, T, ws->scratch, &e);
        else
            s = bc_decode(src, size, b, T, ws->scratch, &e);
    } else if (filtered_of(h)) {
        s = rf_decode(src, size, b->data, b->stride, b->w, b->h, &e);
    } else if (arith_of(h)) {
        s = ac_decode(src, size, b, ws->ac, &e);
    } else {
        s = inflate_block(src, size, b, ws, &e);
    }
    if (s != WC_OK) {
        char name[16];
        es_band_name(h, lay, k->comp, k->band, name);
        size_t first = lay->first_block[k->comp];
        size_t nth = 0; /* block number within its band, for the message */
        for (size_t q = i; q > first && lay->blocks[q - 1].band == k->band; q--) nth++;
        wc_fail(err, s, "component %u, subband %s, block %zu: %s", k->comp, name, nth, e.msg);
    }
    return s;
}

static void decode_block(dec_job *j, size_t i, int w)
{
    bc_block b = block_view(j->h, j->lay, j->planes, &j->lay->blocks[i]);
    wc_status s =
        decode_view(j->h, j->lay, j->tabs, i, j->in->data[j->lay->blocks[i].comp] + j->offset[i],
                    j->in->block_size[i], &b, &j->ws[w], &j->errs[w]);
    if (s != WC_OK) {
        j->status[w] = s;
        j->fail_block[w] = i;
    }
}

/* Item p of the parallel loop: blocks 2p and 2p + 1, decoded in turns
 * (bc_decode_pair) when both are Huffman-coded. After an error the two
 * are decoded again one at a time, which names the failing block. */
static void decode_pair(void *arg, size_t p, int w)
{
    dec_job *j = arg;
    if (j->fail_block[w] != SIZE_MAX) return; /* this worker already failed */
    const size_t i = 2 * p;
    if (j->h->entropy == 0 && i + 1 < j->lay->nblocks) {
        bc_block b[2];
        const uint8_t *src[2];
        size_t size[2];
        const bc_dectab *T[2];
        for (int q = 0; q < 2; q++) {
            const wc_cblk *k = &j->lay->blocks[i + q];
            b[q] = block_view(j->h, j->lay, j->planes, k);
            src[q] = j->in->data[k->comp] + j->offset[i + q];
            size[q] = j->in->block_size[i + q];
            T[q] = &j->tabs[k->comp * WC_NCLASS + j->lay->band[k->comp][k->band].cls];
        }
        const bc_block *bp[2] = {&b[0], &b[1]};
        uint32_t *const scratch[2] = {j->ws[w].scratch, j->ws[w].scratch2};
        wc_err e = {{0}};
        if (bc_decode_pair(src, size, bp, T, scratch, &e) == WC_OK) return;
    }
    decode_block(j, i, w);
    if (j->fail_block[w] == SIZE_MAX && i + 1 < j->lay->nblocks) decode_block(j, i + 1, w);
}

/* Component c's WTAB payload read to its end: nothing may follow the
 * last class's tables. */
static wc_status tables_end(const bitr *r, const es_input *in, uint32_t c, wc_err *err)
{
    size_t used_bits = (size_t)(r->p - in->tables[c]) * 8 + r->fake - r->n;
    size_t used_bytes = (used_bits + 7) / 8;
    WC_RETURN_IF(used_bytes != in->table_size[c], err, WC_ERR_CORRUPT,
                 "component %u: %zu stray bytes after the entropy tables", c,
                 in->table_size[c] - used_bytes);
    return WC_OK;
}

wc_status es_read_tables(const wcx_header *h, const es_input *in, bc_dectab *tabs, wc_err *err)
{
    for (uint32_t c = 0; c < h->components; c++) {
        bitr r;
        bitr_init(&r, in->tables[c], in->table_size[c]);
        for (unsigned cls = 0; cls < WC_NCLASS; cls++) {
            bc_dectab *T = &tabs[c * WC_NCLASS + cls];
            uint8_t len[BC_NTAB][BC_NSYM], used[BC_NTAB];
            wc_err e = {{0}};
            wc_status s = bc_tables_read(&r, len, used, &e);
            WC_RETURN_IF(s != WC_OK, err, s, "component %u, tables of class %u: %s", c, cls, e.msg);
            s = bc_dectab_build(T, len, used, &e);
            WC_RETURN_IF(s != WC_OK, err, s, "component %u, class %u, %s", c, cls, e.msg);
        }
        WC_FORWARD_IF_ERROR(tables_end(&r, in, c, err));
    }
    return WC_OK;
}

wc_status es_read_class_tables(const es_input *in, uint32_t c, unsigned cls, bc_dectab *T,
                               wc_err *err)
{
    bitr r;
    bitr_init(&r, in->tables[c], in->table_size[c]);
    uint8_t len[BC_NTAB][BC_NSYM], used[BC_NTAB];
    for (unsigned k = 0; k <= cls; k++) { /* the classes before: their lengths only */
        wc_err e = {{0}};
        wc_status s = bc_tables_read(&r, len, used, &e);
        WC_RETURN_IF(s != WC_OK, err, s, "component %u, tables of class %u: %s", c, k, e.msg);
    }
    wc_err e = {{0}};
    wc_status s = bc_dectab_build(T, len, used, &e);
    WC_RETURN_IF(s != WC_OK, err, s, "component %u, class %u, %s", c, cls, e.msg);
    return cls + 1 == WC_NCLASS ? tables_end(&r, in, c, err) : WC_OK;
}

void es_table_item(void *arg, size_t i, int worker)
{
    (void)worker;
    es_table_items *t = arg;
    wc_err e = {{0}};
    if (es_read_class_tables(t->in, (uint32_t)(i / WC_NCLASS), (unsigned)(i % WC_NCLASS),
                             t->tabs + i, &e) != WC_OK)
        __atomic_store_n(&t->failed, 1, __ATOMIC_RELAXED);
}

wc_status es_table_items_end(const wcx_header *h, const es_table_items *t, wc_err *err)
{
    if (!t->failed) return WC_OK;
    /* Again in order, for the message a one-thread read gives. */
    const wc_status s = es_read_tables(h, t->in, t->tabs, err);
    return s != WC_OK ? s : wc_fail(err, WC_ERR_CORRUPT, "bad entropy tables");
}

wc_status es_read_tables_threads(const wcx_header *h, const es_input *in, bc_dectab *tabs,
                                 int threads, wc_err *err)
{
    if (wc_thread_count(threads) < 2) return es_read_tables(h, in, tabs, err);
    es_table_items t = {in, tabs, 0};
    wc_parallel_for(threads, (size_t)h->components * WC_NCLASS, es_table_item, &t);
    return es_table_items_end(h, &t, err);
}

wc_status es_block_offsets(const wc_layout *lay, const es_input *in, size_t *offset, wc_err *err)
{
    for (uint32_t c = 0; c < lay->components; c++) {
        size_t end = c + 1 < lay->components ? lay->first_block[c + 1] : lay->nblocks, pos = 0;
        for (size_t i = lay->first_block[c]; i < end; i++) {
            offset[i] = pos;
            pos += in->block_size[i];
            WC_RETURN_IF(pos > in->data_size[c], err, WC_ERR_CORRUPT,
                         "component %u: the block index runs past the %zu data bytes", c,
                         in->data_size[c]);
        }
        WC_RETURN_IF(pos != in->data_size[c], err, WC_ERR_CORRUPT,
                     "component %u: the block index covers %zu of %zu data bytes", c, pos,
                     in->data_size[c]);
    }
    return WC_OK;
}

/* Item i of the parallel loop over a block mask's blocks (es_input). */
typedef struct dec_list {
    dec_job *j;
    const size_t *blocks;
} dec_list;

static void decode_listed(void *arg, size_t i, int w)
{
    dec_list *d = arg;
    if (d->j->fail_block[w] == SIZE_MAX) decode_block(d->j, d->blocks[i], w);
}

/* Only the masked blocks: listed in layout order, so that the first
 * failing one (the lowest index) is reported as without a mask. */
static wc_status decode_masked(dec_job *j, int nw, wc_err *err)
{
    size_t n = 0;
    for (size_t i = 0; i < j->lay->nblocks; i++) n += j->in->block_mask[i] != 0;
    size_t *blocks = wc_malloc_array(n ? n : 1, sizeof(size_t));
    WC_RETURN_IF(!blocks, err, WC_ERR_NOMEM, "out of memory (block list)");
    n = 0;
    for (size_t i = 0; i < j->lay->nblocks; i++)
        if (j->in->block_mask[i]) blocks[n++] = i;
    dec_list d = {j, blocks};
    wc_parallel_for(nw, n, decode_listed, &d);
    wc_free(blocks);
    return WC_OK;
}

wc_status es_decode(const wcx_header *h, const wc_layout *lay, const es_input *in,
                    int32_t *const *planes, int threads, wc_err *err)
{
    const int nw = wc_thread_count(threads);
    dec_job j = {h, lay, in, planes, NULL, NULL, NULL, NULL, NULL, NULL};
    bc_dectab *tabs = NULL;
    wc_status s = WC_OK;
    j.offset = wc_malloc_array(lay->nblocks ? lay->nblocks : 1, sizeof(size_t));
    j.errs = wc_calloc((size_t)nw, sizeof(wc_err));
    j.fail_block = wc_malloc_array((size_t)nw, sizeof(size_t));
    j.status = wc_calloc((size_t)nw, sizeof(wc_status));
    if (!j.offset || !j.errs || !j.fail_block || !j.status)
        s = wc_fail(err, WC_ERR_NOMEM, "out of memory (decoder bookkeeping)");
    if (s == WC_OK) s = es_block_offsets(lay, in, j.offset, err);
    if (s == WC_OK && huffman_of(h)) {
        /* Not zeroed (2 MB a colour image): es_read_tables writes every
         * table of every class, unused ones as lookups that fail. */
        tabs = wc_malloc_array((size_t)h->components * WC_NCLASS, sizeof *tabs);
        if (!tabs)
            s = wc_fail(err, WC_ERR_NOMEM, "out of memory (Huffman tables)");
        else
            s = es_read_tables_threads(h, in, tabs, nw, err);
        j.tabs = tabs;
    }
    if (s == WC_OK) s = workers_alloc(h, nw, 0, &j.ws, err);
    if (s == WC_OK) {
        for (int i = 0; i < nw; i++) j.fail_block[i] = SIZE_MAX;
        if (in->block_mask)
            s = decode_masked(&j, nw, err);
        else
            wc_parallel_for(nw, (lay->nblocks + 1) / 2, decode_pair, &j);
        /* The lowest failing block of the file, whatever the thread count:
         * the loop hands out items in increasing order (parallel.c's one
         * counter), and a worker skips only items after its own failure,
         * so no block below the lowest failing one is ever skipped. */
        int worst = -1;
        for (int i = 0; i < nw; i++)
            if (j.fail_block[i] != SIZE_MAX && (worst < 0 || j.fail_block[i] < j.fail_block[worst]))
                worst = i;
        if (worst >= 0) s = wc_fail(err, j.status[worst], "%s", j.errs[worst].msg);
    }
    workers_free(j.ws, nw);
    wc_free(tabs);
    wc_free(j.offset);
    wc_free(j.errs);
    wc_free(j.fail_block);
    wc_free(j.status);
    return s;
}

/* ---- one block at a time (a streaming decoder) --------------------------------- */

struct es_block_decoder {
    const wcx_header *h;
    const wc_layout *lay;
    bc_dectab *tabs; /* shared by the workers: read only */
    worker_state *ws;
    int workers;
};

wc_status es_block_decoder_create(const wcx_header *h, const wc_layout *lay, const es_input *in,
                                  int workers, es_block_decoder **out, wc_err *err)
{
    *out = NULL;
    es_block_decoder *d = wc_calloc(1, sizeof *d);
    WC_RETURN_IF(!d, err, WC_ERR_NOMEM, "out of memory (block decoder)");
    d->h = h;
    d->lay = lay;
    d->workers = workers > 0 ? workers : 1;
    wc_status s = WC_OK;
    if (huffman_of(h)) {
        d->tabs = wc_calloc((size_t)h->components * WC_NCLASS, sizeof *d->tabs);
        s = d->tabs ? es_read_tables_threads(h, in, d->tabs, d->workers, err)
                    : wc_fail(err, WC_ERR_NOMEM, "out of memory (Huffman tables)");
    }
    if (s == WC_OK) s = workers_alloc(h, d->workers, 0, &d->ws, err);
    if (s != WC_OK) {
        es_block_decoder_free(d);
        return s;
    }
    *out = d;
    return WC_OK;
}

wc_status es_block_decode(es_block_decoder *d, int worker, size_t i, const uint8_t *src,
                          size_t size, int32_t *dst, size_t stride, wc_err *err)
{
    bc_block b = block_view_at(d->h, d->lay, &d->lay->blocks[i], dst, stride);
    return decode_view(d->h, d->lay, d->tabs, i, src, size, &b, &d->ws[worker], err);
}

wc_status es_block_decode_pair(es_block_decoder *d, int worker, const size_t i[2],
                               const uint8_t *const src[2], const size_t size[2],
                               int32_t *const dst[2], size_t stride, wc_err *err)
{
    if (d->h->entropy == 0) {
        bc_block b[2];
        const bc_dectab *T[2];
        for (int q = 0; q < 2; q++) {
            const wc_cblk *k = &d->lay->blocks[i[q]];
            b[q] = block_view_at(d->h, d->lay, k, dst[q], stride);
            T[q] = &d->tabs[k->comp * WC_NCLASS + d->lay->band[k->comp][k->band].cls];
        }
        const bc_block *bp[2] = {&b[0], &b[1]};
        uint32_t *const scratch[2] = {d->ws[worker].scratch, d->ws[worker].scratch2};
        wc_err e = {{0}};
        if (bc_decode_pair(src, size, bp, T, scratch, &e) == WC_OK) return WC_OK;
    }
    /* one at a time: the failing block named as es_decode names it */
    WC_FORWARD_IF_ERROR(es_block_decode(d, worker, i[0], src[0], size[0], dst[0], stride, err));
    return es_block_decode(d, worker, i[1], src[1], size[1], dst[1], stride, err);
}

size_t es_block_decoder_bytes(const wcx_header *h, int workers)
{
    const size_t side = (size_t)1 << h->block_log2, vals = side * side;
    size_t n = sizeof(es_block_decoder) +
               (size_t)(workers > 0 ? workers : 1) *
                   (sizeof(worker_state) + 2 * bc_scratch_elems() * sizeof(uint32_t) +
                    vals * sizeof(int32_t) + rle_bound(vals));
    if (huffman_of(h)) n += (size_t)h->components * WC_NCLASS * sizeof(bc_dectab);
    return n;
}

void es_block_decoder_free(es_block_decoder *d)
{
    if (!d) return;
    workers_free(d->ws, d->workers);
    wc_free(d->tabs);
    wc_free(d);
}
