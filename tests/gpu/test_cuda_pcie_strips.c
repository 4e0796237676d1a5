/*
 * test_cuda_pcie_strips.c -- the CUDA backend's samples up and down in
 * row strips (cuda/backend_cuda.cu: level 1 of the forward transform runs
 * on the rows that have arrived while later strips upload; the inverse's
 * level 1 and colour a strip at a time while earlier strips download)
 * give the single copy's results: forced on small images
 * (WC_CUDA_STRIPS_UP=1, WC_CUDA_STRIPS_DOWN=1, WC_CUDA_STRIPS=1..16
 * strips), the CUDA file is the CPU's byte for byte and the device decodes
 * the CPU's file to the CPU's pixels, over odd and prime sizes, strips of
 * a few rows up to a whole image, 1 to 6 levels, 1 to 4 components, 8 to
 * 16 bits, lossless and lossy 5/3, 9/7, and deflate (whose encode and
 * decode use the backend's forward and inverse alone).
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

enum { M_LOSSLESS, M_LOSSY97, M_LOSSY53, M_DEFLATE, NMODES };
static const char *mode_name[NMODES] = {"lossless", "9/7", "lossy 5/3", "deflate"};

typedef struct scase {
    uint32_t w, h, comps, depth;
    int mode, levels, strips;
    uint64_t seed;
} scase;

/* Smooth ramps with noise and sparse spikes, so that every band holds
 * values (a strip boundary that shifts a lifting step shows). */
static void make_image(const scase *t, wc_image *img)
{
    test_rng r;
    test_rng_seed(&r, t->seed);
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
                double v = 0.5 + 0.3 * (double)((x * (c + 1) + 3 * y) % 89) / 89.0;
                int64_t s = (int64_t)(v * maxv) + test_rng_range(&r, -5, 5);
                if ((test_rng_u32(&r) & 255) == 0) s = test_rng_u32(&r) & maxv;
                s = s < 0 ? 0 : s > (int64_t)maxv ? (int64_t)maxv : s;
                const size_t i = ((size_t)y * t->w + x) * t->comps + c;
                if (t->depth <= 8)
                    ((uint8_t *)img->pixels)[i] = (uint8_t)s;
                else
                    ((uint16_t *)img->pixels)[i] = (uint16_t)s;
            }
}

static void set_params(const scase *t, wc_params *p, wc_backend_kind be)
{
    wc_params_init(p);
    p->backend = be;
    p->block_size = 32;
    p->levels = t->levels;
    p->lossless = t->mode == M_LOSSLESS || t->mode == M_DEFLATE;
    p->quality = 60.0f;
    if (t->mode == M_LOSSY53) p->wavelet = 53;
    if (t->mode == M_DEFLATE) p->entropy = WC_ENTROPY_DEFLATE;
}

/* Whether the CUDA file of t (in strips) is the CPU's and the device
 * decodes the CPU's file (in strips) to the CPU's pixels. */
static int case_ok(const scase *t)
{
    char n[8];
    snprintf(n, sizeof n, "%d", t->strips);
    setenv("WC_CUDA_STRIPS", n, 1);
    wc_image img;
    make_image(t, &img);
    wc_params pc, pg;
    set_params(t, &pc, WC_BACKEND_CPU);
    set_params(t, &pg, WC_BACKEND_CUDA);
    char what[96];
    snprintf(what, sizeof what, "%ux%u x%u %u-bit %s, %d levels, %d strips", t->w, t->h, t->comps,
             t->depth, mode_name[t->mode], t->levels, t->strips);
    void *fc = NULL, *fg = NULL;
    size_t nc = 0, ng = 0;
    int ok = 1;
    const wc_status sc = wc_encode_alloc(g_ctx_cpu, &pc, &img, &fc, &nc);
    const wc_status sg = wc_encode_alloc(g_ctx_gpu, &pg, &img, &fg, &ng);
    if (sc != WC_OK || sg != WC_OK || nc != ng || memcmp(fc, fg, nc) != 0) {
        print_error("%s: cpu %d (%zu bytes), cuda %d (%zu bytes: %s): files differ\n", what, sc, nc,
                    sg, ng, wc_ctx_error(g_ctx_gpu));
        ok = 0;
    }
    wc_image out, outg;
    memset(&out, 0, sizeof out);
    memset(&outg, 0, sizeof outg);
    const size_t bytes = wc_image_row_bytes(&img) * img.height;
    if (sc == WC_OK && (wc_decode(g_ctx_cpu, &pc, fc, nc, &out) != WC_OK ||
                        wc_decode(g_ctx_gpu, &pg, fc, nc, &outg) != WC_OK)) {
        print_error("%s: decode: cpu %s, cuda %s\n", what, wc_ctx_error(g_ctx_cpu),
                    wc_ctx_error(g_ctx_gpu));
        ok = 0;
    } else if (sc == WC_OK && memcmp(out.pixels, outg.pixels, bytes) != 0) {
        print_error("%s: the device decodes other pixels than the CPU\n", what);
        ok = 0;
    } else if (sc == WC_OK && pc.lossless && memcmp(out.pixels, img.pixels, bytes) != 0) {
        print_error("%s: not lossless\n", what);
        ok = 0;
    }
    wc_image_free(&out);
    wc_image_free(&outg);
    wc_free(fc);
    wc_free(fg);
    wc_image_free(&img);
    return ok;
}

static const uint32_t sizes[][2] = {{2, 2},    {1, 37},   {53, 1},   {17, 13}, {131, 67},
                                    {67, 131}, {97, 211}, {257, 31}, {13, 601}};
static const int strip_counts[] = {1, 2, 3, 5, 7, 16};

/* Every size x levels 1..6, mode, components, depth and strip count
 * turning over. */
static void test_strips_sizes_levels(void **state)
{
    (void)state;
    static const uint32_t depths[] = {8, 12, 16, 10};
    setenv("WC_CUDA_STRIPS_UP", "1", 1);
    setenv("WC_CUDA_STRIPS_DOWN", "1", 1);
    int n = 0, bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int levels = 1; levels <= 6; levels++, n++) {
            const scase t = {
                sizes[s][0], sizes[s][1], (uint32_t)(n % 4) + 1,     depths[n % 4],
                n % NMODES,  levels,      strip_counts[(n / 2) % 6], 300u + (uint64_t)n};
            bad += !case_ok(&t);
        }
    unsetenv("WC_CUDA_STRIPS_UP");
    unsetenv("WC_CUDA_STRIPS_DOWN");
    unsetenv("WC_CUDA_STRIPS");
    assert_int_equal(bad, 0);
}

/* Strips up only, down only and neither, on random shapes: each
 * direction alone gives the same files and pixels. */
static void test_strips_one_way(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 61);
    static const char *const up[] = {"1", "0", "0"}, *const down[] = {"0", "1", "0"};
    int bad = 0;
    for (int i = 0; i < 18; i++) {
        setenv("WC_CUDA_STRIPS_UP", up[i % 3], 1);
        setenv("WC_CUDA_STRIPS_DOWN", down[i % 3], 1);
        const scase t = {(uint32_t)test_rng_range(&r, 1, 200),
                         (uint32_t)test_rng_range(&r, 1, 300),
                         (uint32_t)test_rng_range(&r, 1, 4),
                         (uint32_t)test_rng_range(&r, 8, 16),
                         test_rng_range(&r, 0, NMODES - 1),
                         test_rng_range(&r, 1, 6),
                         test_rng_range(&r, 1, 16),
                         800u + (uint64_t)i};
        bad += !case_ok(&t);
    }
    unsetenv("WC_CUDA_STRIPS_UP");
    unsetenv("WC_CUDA_STRIPS_DOWN");
    unsetenv("WC_CUDA_STRIPS");
    assert_int_equal(bad, 0);
}

int main(void)
{
    /* Samples of every size straight across (never through the pinned
     * stage, which keeps the single copy): the strips of small images. */
    setenv("WC_CUDA_STAGE_MIN", "1000000000", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_strips_sizes_levels, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_strips_one_way, gpu_ctx_setup, gpu_ctx_teardown),
    };
    return gpu_pair_main("cuda pcie strips", tests, sizeof tests / sizeof tests[0]);
}
