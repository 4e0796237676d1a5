/* bench_parallel.c -- what one wc_parallel_for call costs the host beyond
 * its items: loops of empty items, threads started per call (no pool, as
 * code without a context runs) against a context's parked pool, the pool
 * called back to back and called after a pause (its workers asleep, as
 * between the stages of a GPU encode that waits on the device).
 *   usage: bench_parallel [calls] [reps] [pause_us]
 * Prints, per thread count, the median over reps of the mean microseconds
 * per call (after a pause: the call alone, not the pause). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
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

/* Median over reps of the mean time of `calls` loops of `threads` items,
 * each after a pause of pause_us (0: none). */
static double per_call_us(wc_thread_pool *pool, int threads, int calls, int reps, int pause_us)
{
    double t[64] = {0}; /* reps >= 1 is checked by main; the zeroes keep cppcheck sure */
    wc_thread_pool *was = wc_thread_pool_use(pool);
    wc_parallel_for(threads, (size_t)threads, empty_item, NULL); /* the pool's threads start */
    for (int r = 0; r < reps; r++) {
        double sum = 0;
        for (int c = 0; c < calls; c++) {
            if (pause_us) {
                const struct timespec d = {pause_us / 1000000, (long)(pause_us % 1000000) * 1000};
                nanosleep(&d, NULL);
            }
            const double t0 = bench_now();
            wc_parallel_for(threads, (size_t)threads, empty_item, NULL);
            sum += bench_now() - t0;
        }
        t[r] = sum / calls * 1e6;
    }
    wc_thread_pool_use(was);
    qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
    return t[reps / 2];
}

int main(int argc, char **argv)
{
    const int calls = argc > 1 ? atoi(argv[1]) : 2000;
    int reps = argc > 2 ? atoi(argv[2]) : 9;
    const int pause_us = argc > 3 ? atoi(argv[3]) : 1000;
    if (calls < 1 || reps < 1 || pause_us < 0) {
        fprintf(stderr, "usage: bench_parallel [calls >= 1] [reps 1..64] [pause_us >= 0]\n");
        return 2;
    }
    if (reps > 64) reps = 64;
    printf("wc_parallel_for, empty items (one per thread), %d calls x %d reps, %d CPUs online\n",
           calls, reps, wc_thread_count(0));
    printf("threads  spawn_us_per_call  pool_us_per_call  pool_us_after_%dus_pause\n", pause_us);
    const int widths[] = {2, 4, 8, 16};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        wc_thread_pool *pool = wc_thread_pool_create();
        if (!pool) return 1;
        const double spawn = per_call_us(NULL, widths[k], calls, reps, 0);
        const double pooled = per_call_us(pool, widths[k], calls, reps, 0);
        const int cold_calls = calls / 10 > 0 ? calls / 10 : 1; /* the pauses dominate */
        const double cold = pause_us ? per_call_us(pool, widths[k], cold_calls, reps, pause_us) : 0;
        wc_thread_pool_free(pool);
        printf("%7d  %17.2f  %16.2f  %23.2f\n", widths[k], spawn, pooled, cold);
    }
    return 0;
}
