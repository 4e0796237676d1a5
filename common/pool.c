/* pool.c -- kept work buffers (see pool.h). */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "pool.h"
#include "wc_common.h"

/* Buffers below this come and go through malloc (cheap, and glibc keeps
 * them mapped anyway); the pool is for the large ones. */
#define POOL_MIN ((size_t)1 << 20)
#define ALIGN 64 /* the caller's pointer: a cache line, and room for the header */
/* Planes from this size start on a 2 MiB boundary and ask for transparent
 * huge pages (wc_advise_huge; THP "madvise" is the usual default): an 8K
 * frame's planes then cost a fault per 2 MiB instead of per 4 KiB on their
 * first touch, and the DWT's column passes, a row stride apart, miss the
 * TLB far less. The bytes are the same either way. */
#define HUGE_MIN ((size_t)8 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/* Before each buffer: its usable size and the address malloc gave. */
typedef struct header {
    size_t size;
    void *raw;
} header;

static header *header_of(void *p) { return (header *)(void *)((char *)p - sizeof(header)); }

static void release(void *p)
{
    if (p) wc_free(header_of(p)->raw);
}

void pool_init(wc_pool *pool)
{
    memset(pool, 0, sizeof *pool);
    pthread_mutex_init(&pool->lock, NULL);
}

void pool_trim(wc_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    for (int i = 0; i < WC_POOL_SLOTS; i++) {
        release(pool->slot[i]);
        pool->slot[i] = NULL;
        pool->size[i] = 0;
    }
    pthread_mutex_unlock(&pool->lock);
}

void pool_keep(wc_pool *pool, size_t max_bytes)
{
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        size_t total = 0;
        int smallest = -1;
        for (int i = 0; i < WC_POOL_SLOTS; i++) {
            if (!pool->slot[i]) continue;
            total += pool->size[i];
            if (smallest < 0 || pool->size[i] < pool->size[smallest]) smallest = i;
        }
        if (total <= max_bytes || smallest < 0) break;
        release(pool->slot[smallest]);
        pool->slot[smallest] = NULL;
        pool->size[smallest] = 0;
    }
    pthread_mutex_unlock(&pool->lock);
}

void pool_destroy(wc_pool *pool)
{
    pool_trim(pool);
    pthread_mutex_destroy(&pool->lock);
}

/* Huge planes start this far past their 2 MiB boundary, k = 0..7 in
 * turn: planes walked side by side (a coefficient plane and its scratch)
 * would otherwise share every address bit below 21 and, on physically
 * contiguous huge pages, the same cache sets (a 9/7 decode on one thread
 * lost a fifth to it). A page and a line, so that both the page offset
 * and the lines' sets differ. */
#define STAGGER ((size_t)4096 + 64)
#define STAGGERS 8

static void *fresh(size_t n)
{
    const int huge = n >= HUGE_MIN;
    const size_t align = huge ? HUGE_PAGE : ALIGN, extra = huge ? STAGGER * (STAGGERS - 1) : 0;
    if (n > SIZE_MAX - 2 * align - extra) return NULL;
    char *raw = wc_malloc(n + ALIGN + align + extra);
    if (!raw) return NULL;
    char *base = raw + ALIGN + (align - (uintptr_t)(raw + ALIGN) % align) % align;
    static atomic_uint turn;
    const size_t skew = huge ? STAGGER * (atomic_fetch_add(&turn, 1) % STAGGERS) : 0;
    char *p = base + skew;
    *header_of(p) = (header){n, raw};
    if (huge) wc_advise_huge(base, skew + n);
    return p;
}

void *pool_alloc(wc_pool *pool, size_t n)
{
    if (n == 0) return NULL;
    if (!pool || n < POOL_MIN) return fresh(n);
    /* The smallest kept buffer that fits; none: a fresh one. */
    pthread_mutex_lock(&pool->lock);
    int best = -1;
    for (int i = 0; i < WC_POOL_SLOTS; i++)
        if (pool->slot[i] && pool->size[i] >= n && (best < 0 || pool->size[i] < pool->size[best]))
            best = i;
    void *p = NULL;
    if (best >= 0) {
        p = pool->slot[best];
        pool->slot[best] = NULL;
        pool->size[best] = 0;
    }
    pthread_mutex_unlock(&pool->lock);
    return p ? p : fresh(n);
}

void *pool_alloc_array(wc_pool *pool, size_t count, size_t size)
{
    size_t n;
    if (wc_mul_overflow(count, size, &n)) return NULL;
    return pool_alloc(pool, n);
}

size_t pool_size(const void *p) { return p ? header_of((void *)(uintptr_t)p)->size : 0; }

void pool_free(wc_pool *pool, void *p)
{
    if (!p) return;
    const size_t n = header_of(p)->size;
    if (!pool || n < POOL_MIN) {
        release(p);
        return;
    }
    /* Keep it in an empty slot, or in place of a smaller kept one. */
    pthread_mutex_lock(&pool->lock);
    int pick = -1;
    for (int i = 0; i < WC_POOL_SLOTS; i++) {
        if (!pool->slot[i]) {
            pick = i;
            break;
        }
        if (pool->size[i] < n && (pick < 0 || pool->size[i] < pool->size[pick])) pick = i;
    }
    void *drop = p;
    if (pick >= 0) {
        drop = pool->slot[pick];
        pool->slot[pick] = p;
        pool->size[pick] = n;
    }
    pthread_mutex_unlock(&pool->lock);
    release(drop);
}
