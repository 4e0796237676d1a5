/* parallel.h -- a parallel for-loop over indices on POSIX threads. */
#ifndef WC_PARALLEL_H
#define WC_PARALLEL_H

#include <stddef.h>

/* Calls fn(arg, i, worker) for every i in [0, n), on up to `threads`
 * workers (0 = one per online CPU). Items are handed out in order through
 * an atomic counter; worker is 0..threads-1 so callers can give each
 * worker its own scratch. Returns the number of workers used. Results
 * must not depend on which worker ran an item. */
int wc_parallel_for(int threads, size_t n, void (*fn)(void *arg, size_t i, int worker), void *arg);

/* Workers wc_parallel_for would use for `threads` (resolves 0). */
int wc_thread_count(int threads);

#endif
