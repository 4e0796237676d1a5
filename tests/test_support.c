/* test_support.c -- helpers shared by the tests. */
#include <unistd.h>

#include "test_support.h"

#include <stdio.h>

void test_rng_seed(test_rng *r, uint64_t seed) { r->s = seed * 0x9E3779B97F4A7C15ull + 1; }

uint32_t test_rng_u32(test_rng *r)
{
    uint64_t x = r->s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    r->s = x;
    return (uint32_t)(x >> 16);
}

int32_t test_rng_range(test_rng *r, int32_t lo, int32_t hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;
    return (int32_t)(lo + (int64_t)(test_rng_u32(r) % span));
}

double test_rng_unit(test_rng *r) { return test_rng_u32(r) / 4294967296.0; }

int test_kodak_full(void)
{
    static int found = -1;
    if (found < 0) {
        char probe[1024];
        snprintf(probe, sizeof probe, "%s/kodim01.png", WC_CORPUS_DIR);
        found = access(probe, R_OK) == 0;
        if (found)
            fprintf(stderr, "corpus: the Kodak images in %s\n", WC_CORPUS_DIR);
        else
            fprintf(stderr, "corpus: %s not found; using the 256x192 crops in %s/data/kodak\n",
                    WC_CORPUS_DIR, WC_TESTS_DIR);
    }
    return found;
}

const char *test_kodak_path(int n)
{
    static _Thread_local char buf[1024];
    if (test_kodak_full())
        snprintf(buf, sizeof buf, "%s/kodim%02d.png", WC_CORPUS_DIR, n);
    else
        snprintf(buf, sizeof buf, "%s/data/kodak/kodim%02d.png", WC_TESTS_DIR, n);
    return buf;
}

void test_put_sample(void *pixels, size_t i, uint32_t depth, uint32_t v)
{
    if (depth <= 8)
        ((uint8_t *)pixels)[i] = (uint8_t)v;
    else
        ((uint16_t *)pixels)[i] = (uint16_t)v;
}
