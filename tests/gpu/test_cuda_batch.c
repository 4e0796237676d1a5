/*
 * test_cuda_batch.c -- wc_encode_batch on the CUDA backend, whose workers
 * run each shape's device chain as a CUDA graph kept between images
 * (cuda/encode_graph.cu): every file is the CPU's and the single call's,
 * byte for byte, when shapes repeat with new pixels (a graph relaunched),
 * when one worker sees more shapes than it keeps graphs for (graphs
 * replaced, then made again), when the parameters change between batches
 * on the same context (same shapes, other steps: new graphs), for images
 * staged through the pinned buffer and images copied up directly, for
 * both Huffman modes (entropy 0 and the tiled entropy 2), and with the
 * payload copied down or written by the device into pinned memory.
 *
 * Where no CUDA device is present it says so and returns 77 (ctest SKIP).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_pair.h"
#include "test_support.h"
#include "wc_common.h"
#include "wcodec.h"

/* Smooth gradients with noise: runs and busy blocks both occur. */
static void make_image(uint32_t w, uint32_t h, uint32_t comps, uint32_t depth, uint64_t seed,
                       wc_image *img)
{
    test_rng r;
    test_rng_seed(&r, seed);
    img->width = w;
    img->height = h;
    img->components = comps;
    img->bit_depth = depth;
    img->stride = 0;
    assert_int_equal(wc_image_alloc(img), WC_OK);
    const int32_t maxv = (int32_t)((1u << depth) - 1);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < comps; c++) {
                int32_t v =
                    (int32_t)(((x * (3 + c) + y * (5 - c)) * (uint32_t)maxv) / (8 * (w + h)));
                v += test_rng_range(&r, -maxv / 16 - 1, maxv / 16 + 1);
                v = v < 0 ? 0 : v > maxv ? maxv : v;
                const size_t at = ((size_t)y * w + x) * comps + c;
                if (depth > 8)
                    ((uint16_t *)img->pixels)[at] = (uint16_t)v;
                else
                    ((uint8_t *)img->pixels)[at] = (uint8_t)v;
            }
}

/* Six shapes (more than the four graphs a worker keeps): small ones
 * copied up directly, 256x128x3 (96 KB) and 300x200x3 through the pinned
 * stage; 1x1, odd, prime, one and four components, 12 bits. */
static const uint32_t kShapes[][4] = {{64, 48, 3, 8},  {48, 64, 3, 8}, {256, 128, 3, 8},
                                      {37, 11, 1, 12}, {1, 1, 3, 8},   {300, 200, 3, 8},
                                      {97, 131, 4, 8}};

/* The order of the shapes in a batch: with one worker each shape is
 * first coded on the plain stream, then captured, then relaunched; after
 * the seventh shape the first three's graphs have been replaced, and they
 * are made again when those shapes come back. */
static const int kOrder[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4,
                             4, 5, 5, 5, 6, 6, 6, 0, 0, 1, 1, 2, 2, 6};
#define NIMAGES (sizeof kOrder / sizeof kOrder[0])

static void make_batch(wc_image *imgs)
{
    for (size_t i = 0; i < NIMAGES; i++) {
        const uint32_t *s = kShapes[kOrder[i]];
        make_image(s[0], s[1], s[2], s[3], 1000 + 31 * (uint64_t)i, &imgs[i]);
    }
}

/* One batch on the CUDA context against the CPU's single calls and the
 * CUDA context's single calls (which take the plain stream path). */
static void check_batch(const wc_params *base, const wc_image *imgs, size_t n, int threads)
{
    wc_params p = *base;
    p.backend = WC_BACKEND_CUDA;
    p.threads = threads;
    void **outs = wc_calloc(n, sizeof *outs);
    size_t *sizes = wc_calloc(n, sizeof *sizes);
    assert_non_null(outs);
    assert_non_null(sizes);
    size_t failed = 99;
    if (wc_encode_batch(g_ctx_gpu, &p, imgs, n, outs, sizes, &failed) != WC_OK)
        fail_msg("batch (%d threads): %s", threads, wc_ctx_error(g_ctx_gpu));
    /* One worker: the caller's context coded the last image, in a graph
     * (unless WC_CUDA_GRAPH=0 asks for the plain stream). */
    const char *g = getenv("WC_CUDA_GRAPH");
    if (threads == 1 && !(g && strcmp(g, "0") == 0) && !strstr(wc_ctx_note(g_ctx_gpu), "graph"))
        fail_msg("no graph in the batch's note: %s", wc_ctx_note(g_ctx_gpu));
    for (size_t i = 0; i < n; i++) {
        wc_params q = *base;
        q.backend = WC_BACKEND_CPU;
        void *ref = NULL, *one = NULL;
        size_t ref_n = 0, one_n = 0;
        assert_int_equal(wc_encode_alloc(g_ctx_cpu, &q, &imgs[i], &ref, &ref_n), WC_OK);
        q.backend = WC_BACKEND_CUDA;
        assert_int_equal(wc_encode_alloc(g_ctx_gpu, &q, &imgs[i], &one, &one_n), WC_OK);
        if (sizes[i] != ref_n || memcmp(outs[i], ref, ref_n) != 0)
            fail_msg("image %zu (%ux%ux%u, %d threads): batch file differs from the CPU's", i,
                     imgs[i].width, imgs[i].height, imgs[i].components, threads);
        if (one_n != ref_n || memcmp(one, ref, ref_n) != 0)
            fail_msg("image %zu: the single CUDA call differs from the CPU's", i);
        wc_free(ref);
        wc_free(one);
        wc_free(outs[i]);
    }
    wc_free(outs);
    wc_free(sizes);
}

/* One worker (kOrder), then three workers; two steps and two transforms
 * on the same contexts (same shapes, new graphs); lossless, and the tiled
 * Huffman mode. */
static void batch_cases(const wc_image *imgs, size_t n, int quick)
{
    static const float quality[] = {75, 30};
    static const int transform[] = {WC_TRANSFORM_DWT, WC_TRANSFORM_DCT};
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 2; k++) {
            if (quick && t && k) continue;
            wc_params p;
            wc_params_init(&p);
            p.lossless = 0;
            p.transform = (wc_transform)transform[t];
            p.quality = quality[k];
            check_batch(&p, imgs, n, 1);
            if (!quick) check_batch(&p, imgs, n, 3);
        }
    /* Lossless 5/3 and the tiled Huffman mode (entropy 2, format 2.0). */
    wc_params p;
    wc_params_init(&p);
    check_batch(&p, imgs, n, 1);
    p.entropy = WC_ENTROPY_HUFFMAN_TILES;
    check_batch(&p, imgs, n, quick ? 1 : 0);
    p.lossless = 0;
    check_batch(&p, imgs, n, 1);
}

/* The cases with the payload copied down after the graph (g1) and
 * written by the pack into pinned host memory (WC_CUDA_GRAPH=mapped, g2),
 * on the same contexts; WC_CUDA_GRAPH=0 in the environment: the plain
 * stream only. */
static void test_batch_graph_shapes(void **state)
{
    (void)state;
    const size_t n = NIMAGES;
    wc_image *imgs = wc_calloc(n, sizeof *imgs);
    assert_non_null(imgs);
    make_batch(imgs);
    const int quick = getenv("WC_TEST_STRIDE") != NULL; /* sanitizers: fewer passes */
    const char *was = getenv("WC_CUDA_GRAPH");
    if (was && strcmp(was, "0") == 0) {
        batch_cases(imgs, n, quick);
    } else {
        static const char *const modes[] = {"copy", "mapped"};
        for (int m = 0; m < 2; m++) {
            setenv("WC_CUDA_GRAPH", modes[m], 1);
            batch_cases(imgs, n, quick);
        }
        unsetenv("WC_CUDA_GRAPH");
    }
    for (size_t i = 0; i < n; i++) wc_image_free(&imgs[i]);
    wc_free(imgs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_batch_graph_shapes, gpu_ctx_setup, gpu_ctx_teardown),
    };
    return gpu_pair_main("cuda_batch", tests, sizeof tests / sizeof tests[0]);
}
