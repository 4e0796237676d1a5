/*
 * block_tiles.c -- entropy 2's tiled block payload (block_tiles.h): the
 * tiles are block_coder.c's blocks, so this file only cuts, frames and
 * checks.
 */
#include <string.h>

#include "block_tiles.h"

bc_block bct_tile(const bc_block *b, uint32_t t)
{
    const uint32_t across = bct_across(b->w);
    const uint32_t x0 = t % across * BCT_W, y0 = t / across * BCT_H;
    bc_block k = *b;
    k.data = b->data + (size_t)y0 * b->stride + x0;
    k.w = b->w - x0 < BCT_W ? b->w - x0 : BCT_W;
    k.h = b->h - y0 < BCT_H ? b->h - y0 : BCT_H;
    return k;
}

size_t bct_bound(uint32_t w, uint32_t h)
{
    /* Each tile's bc_bound (8 bytes a coefficient and 16) and its length. */
    return (size_t)w * h * 8 + 18 * (size_t)bct_count(w, h) + 1;
}

size_t bct_token_bound(uint32_t w, uint32_t h)
{
    return 3 * (size_t)w * h + 3 * (size_t)bct_count(w, h);
}

static int tile_is_zero(const bc_block *k)
{
    for (uint32_t y = 0; y < k->h; y++)
        for (uint32_t x = 0; x < k->w; x++)
            if (k->data[y * k->stride + x]) return 0;
    return 1;
}

size_t bct_symbolize(const bc_block *b, bc_freq freq, uint16_t *tokens, uint32_t *scratch)
{
    const uint32_t n = bct_count(b->w, b->h);
    size_t ntok = 0;
    for (uint32_t t = 0; t < n; t++) {
        const bc_block k = bct_tile(b, t);
        /* At most 3 x 512 + 2 tokens: the count fits its uint16. An
         * all-zero tile has none (an empty sub-stream). */
        const size_t m = tile_is_zero(&k) ? 0 : bc_symbolize(&k, freq, tokens + ntok + 1, scratch);
        tokens[ntok] = (uint16_t)m;
        ntok += 1 + m;
    }
    return ntok;
}

static unsigned width_of(uint32_t v)
{
    unsigned w = 0;
    while (v >> w) w++;
    return w;
}

size_t bct_emit(const bc_block *b, const uint16_t *tokens, size_t ntok, const huf_enc *tabs,
                uint8_t *out, size_t cap, uint32_t *scratch)
{
    const uint32_t n = bct_count(b->w, b->h);
    /* The sub-streams first, after room for the longest header; then the
     * header, and the sub-streams' bits copied after it. */
    const size_t room = (BCT_WIDTH_BITS + (size_t)n * BCT_MAX_WIDTH + 7) / 8;
    if (cap < room) return SIZE_MAX;
    bitw w;
    bitw_init(&w, out + room, cap - room);
    uint32_t len[BCT_MAX], longest = 0;
    size_t i = 0, at = 0;
    for (uint32_t t = 0; t < n; t++) {
        const bc_block k = bct_tile(b, t);
        const size_t m = i < ntok ? tokens[i] : 0;
        if (i + 1 + m > ntok) return SIZE_MAX; /* not bct_symbolize's tokens */
        if (m) bc_emit_to(&w, &k, tokens + i + 1, m, tabs, scratch);
        const size_t now = w.pos * 8 + w.n;
        len[t] = (uint32_t)(now - at);
        if (now - at >= (size_t)1 << BCT_MAX_WIDTH) return SIZE_MAX; /* cannot happen */
        longest = len[t] > longest ? len[t] : longest;
        at = now;
        i += 1 + m;
    }
    const size_t data = bitw_flush(&w);
    if (w.overflow) return SIZE_MAX;
    /* The header, then the data bits shifted behind it (reading ahead of
     * where they are written: the header is at most `room` bytes). */
    const unsigned width = width_of(longest);
    bitw h;
    bitw_init(&h, out, cap);
    bitw_put(&h, width, BCT_WIDTH_BITS);
    for (uint32_t t = 0; t < n; t++) bitw_put(&h, len[t], width);
    bitr r;
    bitr_init(&r, out + room, data);
    for (size_t left = at; left > 0;) {
        const unsigned k = left < 32 ? (unsigned)left : 32;
        bitw_put(&h, bitr_get(&r, k), k);
        left -= k;
    }
    const size_t size = bitw_flush(&h);
    return h.overflow ? SIZE_MAX : size;
}

wc_status bct_streams(const uint8_t *src, size_t size, uint32_t n, uint32_t *start, uint32_t *len,
                      wc_err *err)
{
    bitr r;
    bitr_init(&r, src, size);
    const unsigned width = bitr_get(&r, BCT_WIDTH_BITS);
    WC_RETURN_IF(width > BCT_MAX_WIDTH, err, WC_ERR_CORRUPT, "tile lengths of %u bits (at most %u)",
                 width, BCT_MAX_WIDTH);
    const size_t head = BCT_WIDTH_BITS + (size_t)n * width;
    WC_RETURN_IF(head > size * 8, err, WC_ERR_CORRUPT,
                 "the tile lengths (%zu bits) run past the block's %zu bytes", head, size);
    uint32_t longest = 0;
    for (uint32_t t = 0; t < n; t++) {
        len[t] = width ? bitr_get(&r, width) : 0;
        longest = len[t] > longest ? len[t] : longest;
    }
    WC_RETURN_IF(width_of(longest) != width, err, WC_ERR_CORRUPT,
                 "tile lengths of %u bits where %u would do", width, width_of(longest));
    size_t at = head;
    for (uint32_t t = 0; t < n; t++) {
        start[t] = (uint32_t)at;
        WC_RETURN_IF(len[t] > size * 8 - at, err, WC_ERR_CORRUPT,
                     "tile %u: its %u bits run past the block's %zu bytes", t, len[t], size);
        at += len[t];
    }
    WC_RETURN_IF((at + 7) / 8 != size, err, WC_ERR_CORRUPT,
                 "%zu unused bytes at the end of the block", size - (at + 7) / 8);
    return WC_OK;
}

wc_status bct_decode(const uint8_t *src, size_t size, const bc_block *b, const bc_dectab *T,
                     uint32_t *scratch, wc_err *err)
{
    const uint32_t n = bct_count(b->w, b->h);
    uint32_t start[BCT_MAX], len[BCT_MAX];
    WC_FORWARD_IF_ERROR(bct_streams(src, size, n, start, len, err));
    for (uint32_t t = 0; t < n; t++) {
        const bc_block k = bct_tile(b, t);
        if (len[t] == 0) { /* an all-zero tile */
            for (uint32_t y = 0; y < k.h; y++) memset(k.data + y * k.stride, 0, k.w * 4);
            continue;
        }
        wc_err e = {{0}};
        const wc_status s = bc_decode_bits(src, size, start[t], len[t], &k, T, scratch, &e);
        if (s != WC_OK) return wc_fail(err, s, "tile %u: %s", t, e.msg);
    }
    return WC_OK;
}
