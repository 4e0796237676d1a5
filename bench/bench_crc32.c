/*
 * bench_crc32.c -- GB/s of zlib's crc32 against wc_crc32's ways on this CPU
 * (container/crc32_fast.c), over a buffer of SIZE MiB (64 by default, past
 * the caches, like a file's WDAT) and of 4 KiB (in cache): median of RUNS
 * passes each, the ways interleaved pass by pass. Prints numbers; asserts
 * only that every way gives zlib's value.
 *
 * usage: bench_crc32 [SIZE_MIB] [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

#include "bench_clock.h"
#include "crc32_fast.h"

enum { MAX_RUNS = 99, WAYS = 4 }; /* zlib's crc32 itself, then wc_crc32's three */

/* One pass of way w over n bytes, `reps` times; its CRC. */
static uint32_t pass(int w, const uint8_t *p, size_t n, int reps)
{
    uint32_t c = 0;
    for (int r = 0; r < reps; r++) {
        if (w == 0) {
            uLong z = 0;
            for (size_t a = 0; a < n; a += 1u << 30)
                z = crc32(z, p + a, (uInt)(n - a < (1u << 30) ? n - a : (1u << 30)));
            c ^= (uint32_t)z;
        } else {
            c ^= wc_crc32(0, p, n);
        }
    }
    return c;
}

static int measure(const uint8_t *buf, size_t n, int reps, int runs)
{
    double t[WAYS][MAX_RUNS];
    uint32_t want = 0;
    int have[WAYS] = {1, 0, 0, 0};
    for (int w = 1; w < WAYS; w++)
        have[w] = wc_crc32_use((wc_crc32_impl)(w - 1)) == (wc_crc32_impl)(w - 1);
    for (int r = 0; r < runs; r++)
        for (int w = 0; w < WAYS; w++) {
            t[w][r] = 0;
            if (!have[w]) continue;
            if (w) wc_crc32_use((wc_crc32_impl)(w - 1));
            double t0 = bench_now();
            uint32_t c = pass(w, buf, n, reps);
            t[w][r] = bench_now() - t0;
            if (w == 0) want = c;
            if (c != want) {
                fprintf(stderr, "bench_crc32: %s differs from zlib\n",
                        wc_crc32_impl_name((wc_crc32_impl)(w - 1)));
                return 1;
            }
        }
    printf("%10zu bytes x %d:", n, reps);
    double base = 0;
    for (int w = 0; w < WAYS; w++) {
        if (!have[w]) continue;
        qsort(t[w], (size_t)runs, sizeof(double), bench_cmp_double);
        const double gbs = (double)n * reps / t[w][runs / 2] / 1e9;
        if (w == 0) base = gbs;
        printf("  %s %.2f GB/s", w ? wc_crc32_impl_name((wc_crc32_impl)(w - 1)) : "zlib crc32",
               gbs);
        if (w) printf(" (x%.1f)", gbs / base);
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (mib < 1 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_crc32 [SIZE_MIB >= 1] [RUNS 1..%d]\n", MAX_RUNS);
        return 1;
    }
    const size_t n = mib << 20;
    uint8_t *buf = malloc(n);
    if (!buf) return 1;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(i * 2654435761u >> 13);
    printf("bench_crc32: median of %d, ways interleaved; wc_crc32 by default uses %s\n", runs,
           wc_crc32_impl_name(wc_crc32_use(WC_CRC32_AUTO)));
    int bad = measure(buf, n, 1, runs) || measure(buf, 4096, (int)(n / 4096), runs);
    free(buf);
    return bad;
}
