/*
 * strip_cases.c -- the strip tests' shared cases (strip_cases.h).
 */
#include "strip_cases.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_support.h"

void strip_case_image(const scase *t, uint64_t seed, wc_image *img)
{
    test_rng r;
    test_rng_seed(&r, seed);
    img->width = t->w;
    img->height = t->h;
    img->components = t->comps;
    img->bit_depth = t->depth;
    img->stride = 0;
    assert_int_equal(wc_image_alloc(img), WC_OK);
    const uint32_t maxv = (1u << t->depth) - 1;
    for (uint32_t y = 0; y < t->h; y++)
        for (uint32_t x = 0; x < t->w; x++)
            for (uint32_t c = 0; c < t->comps; c++) {
                double v = 0.5 + 0.3 * (double)((x * (c + 1) + 3 * y) % 89) / 89.0 +
                           0.1 * (double)((x / 5 + y / 7) & 1);
                int64_t s = (int64_t)(v * maxv) + test_rng_range(&r, -3, 3);
                if ((test_rng_u32(&r) & 255) == 0) s = test_rng_u32(&r) & maxv;
                s = s < 0 ? 0 : s > (int64_t)maxv ? (int64_t)maxv : s;
                test_put_sample(img->pixels, ((size_t)y * t->w + x) * t->comps + c, t->depth,
                                (uint32_t)s);
            }
}

void strip_case_params(const scase *t, wc_params *p, wc_backend_kind be, uint64_t cap)
{
    wc_params_init(p);
    p->backend = be;
    p->lossless = t->lossless;
    p->wavelet = t->wavelet;
    p->levels = t->levels;
    p->block_size = t->block;
    p->entropy = t->entropy;
    p->dwt_scheme = t->scheme;
    p->quality = 70.0f;
    p->max_device_memory = cap;
}

unsigned long long number_before(const char *s, const char *key)
{
    const char *k = strstr(s, key);
    if (!k) return 0;
    while (k > s && k[-1] == ' ') k--;
    while (k > s && k[-1] >= '0' && k[-1] <= '9') k--;
    return strtoull(k, NULL, 10);
}
