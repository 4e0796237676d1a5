/* bench_parallel.c -- what one wc_parallel_for call costs the host beyond
 * its items: loops of empty items, threads started per call (no pool, as
 * code without a context runs) against a context's parked pool.
 *   usage: bench_parallel [calls] [reps]
 * Prints, per thread count, the median over reps of the mean microseconds
 * per call. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_clock.h"
#include "parallel.h"

static void empty_item(void *arg, size_t i, int worker)
{
    (void)arg;
    (void)i;
    (void)worker;
}

/* Median over reps of the mean time of `calls` loops of `threads` items. */
static double per_call_us(wc_thread_pool *pool, int threads, int calls, int reps)
{
    double t[64] = {0}; /* reps >= 1 is checked by main; the zeroes keep cppcheck sure */
    wc_thread_pool *was = wc_thread_pool_use(pool);
    wc_parallel_for(threads, (size_t)threads, empty_item, NULL); /* the pool's threads start */
    for (int r = 0; r < reps; r++) {
        const double t0 = bench_now();
        for (int c = 0; c < calls; c++) wc_parallel_for(threads, (size_t)threads, empty_item, NULL);
        t[r] = (bench_now() - t0) / calls * 1e6;
    }
    wc_thread_pool_use(was);
    qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
    return t[reps / 2];
}

int main(int argc, char **argv)
{
    const int calls = argc > 1 ? atoi(argv[1]) : 2000;
    int reps = argc > 2 ? atoi(argv[2]) : 9;
    if (calls < 1 || reps < 1) {
        fprintf(stderr, "usage: bench_parallel [calls >= 1] [reps 1..64]\n");
        return 2;
    }
    if (reps > 64) reps = 64;
    printf("wc_parallel_for, empty items (one per thread), %d calls x %d reps, %d CPUs online\n",
           calls, reps, wc_thread_count(0));
    printf("threads  spawn_us_per_call  pool_us_per_call\n");
    const int widths[] = {2, 4, 8, 16};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        wc_thread_pool *pool = wc_thread_pool_create();
        if (!pool) return 1;
        const double spawn = per_call_us(NULL, widths[k], calls, reps);
        const double pooled = per_call_us(pool, widths[k], calls, reps);
        wc_thread_pool_free(pool);
        printf("%7d  %17.2f  %16.2f\n", widths[k], spawn, pooled);
    }
    return 0;
}
