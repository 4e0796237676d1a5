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

/* Path of a Kodak image (1..24) in a static buffer. */
const char *test_kodak_path(int n);

#endif
