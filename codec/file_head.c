/*
 * file_head.c -- the chunks ahead of a file's data (file_head.h), so that
 * the two encoders cannot write them differently.
 */
#include "file_head.h"

#include "meta.h"

/* Entropy 4 (filtered deflate) has no index: each WDAT is its block. */
static int has_index(const file_head *f) { return f->h->entropy != WC_ENTROPY_FILTERED; }

size_t file_head_bytes(const file_head *f)
{
    size_t n = WCX_MAGIC_SIZE + WCX_CHUNK_OVERHEAD + wcx_header_size(f->h) +
               (f->wpal ? WCX_CHUNK_OVERHEAD + f->wpal_size : 0) + meta_file_bytes(f->meta);
    if (wcx_entropy_has_tables(f->h->entropy))
        for (unsigned c = 0; c < f->planes; c++) n += WCX_CHUNK_OVERHEAD + f->table_size[c];
    if (has_index(f))
        n += f->block_size ? wcx_index_size(f->block_size, f->nblocks) : f->index_size;
    return n;
}

void file_head_put(wcx_writer *w, const file_head *f)
{
    const size_t hs = wcx_header_size(f->h);
    wcx_chunk_begin(w, WCX_WHDR);
    uint8_t *hp = wcx_chunk_space(w, hs);
    if (hp) {
        wcx_header_write(f->h, hp);
        wcx_chunk_commit(w, hs);
    }
    wcx_chunk_end(w);
    if (f->wpal) wcx_put_chunk(w, WCX_WPAL, f->wpal, f->wpal_size);
    meta_put_chunks(w, f->meta);
    if (wcx_entropy_has_tables(f->h->entropy))
        for (unsigned c = 0; c < f->planes; c++)
            wcx_put_chunk(w, WCX_WTAB, f->tables[c], f->table_size[c]);
    if (has_index(f)) wcx_put_index(w, f->block_size, f->nblocks);
}
