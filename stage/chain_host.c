/*
 * chain_host.c -- the whole chain of backend.h's `encode` through a
 * backend's forward and the host's entropy coder: the CPU backend's
 * encode, and what another backend falls back to for the modes it does
 * not code itself (deflate). Plane memory comes from the plan's pool.
 */
#include "chain_host.h"
#include "pool.h"

#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void free_planes(wc_pool *pool, int32_t **q)
{
    for (int c = 0; c < 4; c++) {
        pool_free(pool, q[c]);
        q[c] = NULL;
    }
}

/* DCT/LOT planes between block and band layout (into new pool planes). */
static wc_status regroup(const wc_stage_plan *plan, const wc_layout *lay, int32_t **q,
                         void (*move)(const int32_t *, int32_t *, uint32_t, uint32_t), wc_err *err)
{
    for (uint32_t c = 0; c < plan->components; c++) {
        if (plan->transform[c] == WC_TRANSFORM_DWT) continue;
        const size_t n = (size_t)lay->plane_w[c] * lay->plane_h[c];
        int32_t *tmp = pool_alloc_array(plan->pool, n, sizeof(int32_t));
        WC_RETURN_IF(!tmp, err, WC_ERR_NOMEM, "out of memory (band plane)");
        move(q[c], tmp, lay->plane_w[c], lay->plane_h[c]);
        pool_free(plan->pool, q[c]);
        q[c] = tmp;
    }
    return WC_OK;
}

/* Where the entropy coding ran, for the note (--verbose). */
static const char *where_of(const wcx_header *h)
{
    return h->entropy == 1 ? "host (deflate)" : h->entropy == 3 ? "host (arithmetic)" : "host";
}

wc_status wc_chain_encode_host(const wc_backend_ops *ops, void *self, const wc_stage_plan *plan,
                               const wc_image *in, wc_chain *chain, es_output *out, wc_err *err)
{
    const wc_layout *lay = chain->layout;
    WC_RETURN_IF(!plan->quantize, err, WC_ERR_ARG, "whole-chain encode without quantization");
    int32_t *q[4] = {NULL, NULL, NULL, NULL};
    wc_coeffs co = {{0}, {0}, plan->components, {NULL}, {NULL}, 0, 0};
    for (uint32_t c = 0; c < plan->components; c++) {
        const size_t n = (size_t)lay->plane_w[c] * lay->plane_h[c];
        q[c] = pool_alloc_array(plan->pool, n, sizeof(int32_t));
        if (!q[c]) {
            free_planes(plan->pool, q);
            return wc_fail(err, WC_ERR_NOMEM, "out of memory (%zu coefficients)", n);
        }
        co.width[c] = lay->plane_w[c];
        co.height[c] = lay->plane_h[c];
        co.q[c] = q[c];
    }
    double t0 = now_s();
    wc_status s = ops->forward(self, plan, in, &co, err);
    chain->t_transform = now_s() - t0;
    /* DCT/LOT planes are coded as 64 frequency bands. */
    if (s == WC_OK && !co.banded) s = regroup(plan, lay, q, layout_blocks_to_bands, err);
    t0 = now_s();
    if (s == WC_OK)
        s = es_encode(chain->header, lay, q, plan->threads, chain->deflate_level, plan->pool, out,
                      err);
    chain->t_entropy = now_s() - t0;
    chain->where = where_of(chain->header);
    free_planes(plan->pool, q);
    return s;
}

wc_status wc_chain_decode_host(const wc_backend_ops *ops, void *self, const wc_stage_plan *plan,
                               wc_chain *chain, const es_input *in, wc_image *out, wc_err *err)
{
    const wc_layout *lay = chain->layout;
    int32_t *q[4] = {NULL, NULL, NULL, NULL};
    wc_status s = WC_OK;
    for (uint32_t c = 0; c < plan->components && s == WC_OK; c++) {
        q[c] = pool_alloc_array(plan->pool, (size_t)lay->plane_w[c] * lay->plane_h[c],
                                sizeof(int32_t));
        if (!q[c]) s = wc_fail(err, WC_ERR_NOMEM, "out of memory (coefficient planes)");
    }
    double t0 = now_s();
    if (s == WC_OK) s = es_decode(chain->header, lay, in, q, plan->threads, err);
    chain->t_entropy = now_s() - t0;
    chain->where = where_of(chain->header);
    /* DCT/LOT planes come out of the coder as 64 frequency bands. */
    if (s == WC_OK) s = regroup(plan, lay, q, layout_bands_to_blocks, err);
    if (s == WC_OK) {
        wc_coeffs co = {{0}, {0}, plan->components, {NULL}, {NULL}, 1, 0}; /* ours: consumable */
        for (uint32_t c = 0; c < plan->components; c++) {
            co.width[c] = lay->plane_w[c];
            co.height[c] = lay->plane_h[c];
            co.q[c] = q[c];
        }
        t0 = now_s();
        s = ops->inverse(self, plan, &co, out, err);
        chain->t_transform = now_s() - t0;
    }
    free_planes(plan->pool, q);
    return s;
}
