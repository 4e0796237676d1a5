/*
 * pool.h -- the large work buffers a context keeps between calls.
 *
 * A 4096 x 4096 RGB image needs hundreds of MB of coefficient planes per
 * call. Fresh from the system they cost a page fault per 4 KiB (a fifth
 * of a lossless encode plus decode); a program that codes many images
 * with one context gets them back from the pool instead, already mapped,
 * as zstd's contexts keep their workspace. wc_ctx_trim and wc_ctx_free
 * give them back to the system. Buffers from 8 MiB are 2 MiB-aligned and
 * advised for transparent huge pages (wc_advise_huge), so even a fresh
 * context's first touch costs a fault per 2 MiB.
 *
 * Every buffer from pool_alloc goes back through pool_free (it carries its
 * size in a header). Both are safe from several threads at once. A NULL
 * pool makes them plain allocation.
 */
#ifndef WC_POOL_H
#define WC_POOL_H

#include <pthread.h>
#include <stddef.h>

#define WC_POOL_SLOTS 16

typedef struct wc_pool {
    pthread_mutex_t lock;
    void *slot[WC_POOL_SLOTS];  /* free buffers, NULL when empty */
    size_t size[WC_POOL_SLOTS]; /* their usable sizes */
} wc_pool;

void pool_init(wc_pool *pool);
/* Frees every kept buffer; the pool stays usable. */
void pool_trim(wc_pool *pool);
void pool_destroy(wc_pool *pool);

/* Frees kept buffers, the smallest first, until those left add up to
 * at most max_bytes: what a call's memory estimate allows it to keep. */
void pool_keep(wc_pool *pool, size_t max_bytes);

/* n bytes (64-byte aligned, contents undefined), or NULL when n is 0 or
 * memory is short. */
void *pool_alloc(wc_pool *pool, size_t n);
/* n * size bytes, NULL on overflow. */
void *pool_alloc_array(wc_pool *pool, size_t count, size_t size);
/* The usable size of p (from pool_alloc; at least what was asked: a
 * kept buffer may be larger), so a growing buffer can use all of it. */
size_t pool_size(const void *p);
/* Returns p (from pool_alloc on this pool; NULL is accepted) for reuse. */
void pool_free(wc_pool *pool, void *p);

#endif /* WC_POOL_H */
