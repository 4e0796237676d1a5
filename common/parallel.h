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

/* ---- the scaling probe (bench_codec's BENCH_PROBE) ----------------------
 * A 2-core machine cannot show how a 16-core one scales. With a probe on,
 * every loop on the calling thread runs its items one after another there
 * (same items, same order, so the same results), timing each, and works
 * out (in CPU time) the time its workers would have taken: the items handed out in
 * order to whichever worker is free first, as the atomic counter does.
 * The time outside the loops is the serial part; Amdahl's law with the
 * loops' simulated times gives the speedup the host would reach, less
 * memory bandwidth and the loops' wake-ups (counted, not modelled). A
 * loop nested in an item counts as part of that item. */
#define WC_PROBE_SITES 48

typedef struct wc_probe_site {
    void (*fn)(void *, size_t, int); /* the loop's item function: names the site */
    unsigned long calls, items;
    int width;     /* the most workers a call of it would have used */
    double run_s;  /* its items' time, one after another */
    double span_s; /* the time its workers would have taken */
    double gap_s;  /* serial time between the loop before it and it */
} wc_probe_site;

typedef struct wc_probe {
    double run_s, span_s; /* over all loops (outermost ones) */
    double overhead_s;    /* the probe's own time in the loops, outside the items */
    unsigned long loops, nested;
    double last_end; /* wc_probe_now() when the last loop ended (or the probe began) */
    int nsites;
    wc_probe_site site[WC_PROBE_SITES];
} wc_probe;

/* The clock the probe times items with: the calling thread's CPU time
 * (time-slicing on a shared machine does not stretch it); time the whole
 * call with it too. */
double wc_probe_now(void);

/* Turns the probe on for the calling thread's loops (NULL: off), cleared. */
void wc_probe_use(wc_probe *probe);

#endif
