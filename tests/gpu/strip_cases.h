/*
 * strip_cases.h -- what the tests of the CUDA strips (test_cuda_strips.c,
 * encode; test_cuda_strip_decode.c, decode) share: a case's shape and
 * coding, its synthetic image, its parameters under a device-memory cap,
 * and the numbers read back from the backend's note and messages.
 */
#ifndef WC_STRIP_CASES_H
#define WC_STRIP_CASES_H

#include <stdint.h>

#include "wcodec.h"

typedef struct scase {
    uint32_t w, h, comps, depth;
    int lossless, wavelet, levels, block;
    wc_entropy entropy;
    wc_dwt_scheme scheme;
} scase;

/* A photograph-like image of the case's shape (gradients, a checker,
 * noise and rare outliers), the same for the same seed. */
void strip_case_image(const scase *t, uint64_t seed, wc_image *img);
/* The case's parameters on backend be under a cap of `cap` bytes (0: none). */
void strip_case_params(const scase *t, wc_params *p, wc_backend_kind be, uint64_t cap);
/* The number before `key` in s ("3 strips of"), or 0. */
unsigned long long number_before(const char *s, const char *key);

#endif
