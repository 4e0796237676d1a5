/*
 * bench_clock.h -- what every benchmark program times with: a monotonic
 * clock in seconds, and the comparison qsort needs to take a median.
 */
#ifndef WC_BENCH_CLOCK_H
#define WC_BENCH_CLOCK_H

#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* For qsort over doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
