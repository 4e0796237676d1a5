/* parallel.h -- a parallel for-loop over indices on POSIX threads. */
#ifndef WC_PARALLEL_H
#define WC_PARALLEL_H

#include <stddef.h>

/* Calls fn(arg, i, worker) for every i in [0, n), on up to `threads`
 * workers (0 = one per online CPU). Items are handed out in order through
 * an atomic counter; worker is 0..threads-1 so callers can give each
 * worker its own scratch. Returns the number of workers used. Results
 * must not depend on which worker ran an item.
 *
 * The calling thread always works too. The other workers come from the
 * thread pool made current on the calling thread (wc_thread_pool_use),
 * or, with none current or that pool busy with another loop (a loop
 * nested in one of its items), are started for this call and joined
 * before it returns. A thread that cannot be started means fewer
 * workers, never an error. */
int wc_parallel_for(int threads, size_t n, void (*fn)(void *arg, size_t i, int worker), void *arg);

/* Workers wc_parallel_for would use for `threads` (resolves 0). */
int wc_thread_count(int threads);

/* Parked worker threads kept between loops, so that a loop costs a wake-up
 * instead of a pthread_create and join per worker (tenths of a ms each on
 * a 16-core host, several loops per image). A wc_ctx owns one; threads are
 * started lazily, up to the most a loop has asked for. Not fork-safe: a
 * child process of a fork has none of the parent's workers, so it must
 * not use a pool made before the fork. */
typedef struct wc_thread_pool wc_thread_pool;

/* An empty pool (no threads yet), or NULL when memory is short. */
wc_thread_pool *wc_thread_pool_create(void);
/* Stops and joins the pool's threads. No loop may be running on it. */
void wc_thread_pool_free(wc_thread_pool *pool);
/* Makes pool (NULL: none, start threads per loop) the calling thread's
 * for wc_parallel_for and returns the one it replaces, to be put back
 * with another call when the caller is done. */
wc_thread_pool *wc_thread_pool_use(wc_thread_pool *pool);
/* Threads the pool has started (tests). */
int wc_thread_pool_size(wc_thread_pool *pool);

#endif
