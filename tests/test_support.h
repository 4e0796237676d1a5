/* test_support.h -- small helpers shared by the cmocka tests. */
#ifndef WC_TEST_SUPPORT_H
#define WC_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* Deterministic xorshift generator so failures reproduce. */
typedef struct test_rng {
    uint64_t s;
} test_rng;

void test_rng_seed(test_rng *r, uint64_t seed);
uint32_t test_rng_u32(test_rng *r);
/* Uniform in [lo, hi] (inclusive). */
int32_t test_rng_range(test_rng *r, int32_t lo, int32_t hi);
/* Uniform in [0, 1). */
double test_rng_unit(test_rng *r);

/* Stores v as sample i of an interleaved image's pixels: a byte each up
 * to 8 bits, a uint16_t each above (wc_image's layout). */
void test_put_sample(void *pixels, size_t i, uint32_t depth, uint32_t v);

/* Path of a Kodak image in a static buffer: from the corpus
 * (WC_CORPUS_DIR, ../shared/corpus/kodak by default) when it is there,
 * else one of the 256x192 crops kept in tests/data/kodak (images 1, 3, 7,
 * 15 and 23), so the suite runs from a clone alone. The first call says on
 * stderr which it found. */
const char *test_kodak_path(int n);
/* 1 when the full corpus was found, 0 when the crops stand in. */
int test_kodak_full(void);

#endif
