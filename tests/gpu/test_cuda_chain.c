/*
 * test_cuda_chain.c -- whole files from the CUDA backend's device chain
 * (colour, transform, quantize and the block coder on the device) against
 * the CPU backend's, byte for byte, through the public API: every mode
 * (lossless 5/3, lossy 5/3 and 9/7, DCT, LOT, deflate), bit depths 1 to
 * 16, 1 to 4 components, sizes 1x1, 1xN, Nx1, odd and prime, every
 * code-block size, fine and coarse steps; and the CUDA file decodes to the
 * CPU file's pixels, decoded on the device as on the CPU; damaged payloads
 * behind valid CRCs are refused on the device exactly as on the CPU, with
 * the same message; --bpp files from size-only probes are the CPU's.
 * Images are smooth with noise and sparse spikes, so
 * runs, large magnitudes and predicted bands all occur.
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
#include <zlib.h>

#include "gpu_pair.h"
#include "chunk_edit.h"
#include "test_support.h"
#include "wc_common.h"
#include "wcodec.h"

/* M_TILES*: entropy 2 (block_tiles.h): a warp codes a block tile by tile,
 * and decodes it a lane a tile. M_ARITH*: entropy 3 (ac_block.h): a
 * thread codes or decodes a block (cuda/ac_kernels.cu). */
enum {
    M_LOSSLESS,
    M_LOSSY97,
    M_LOSSY53,
    M_DCT,
    M_LOT,
    M_TILES,
    M_TILES97,
    M_ARITH,
    M_ARITH97,
    M_DEFLATE,
    NMODES
};
static const char *mode_name[NMODES] = {
    "lossless",       "9/7",       "lossy 5/3",      "DCT",       "LOT",
    "tiles lossless", "tiles 9/7", "arith lossless", "arith 9/7", "deflate"};

static int lossless_mode(int m)
{
    return m == M_LOSSLESS || m == M_DEFLATE || m == M_TILES || m == M_ARITH;
}

typedef struct tcase {
    uint32_t w, h, comps, depth;
    int mode, block;
    float quality;
    uint64_t seed;
    int flat; /* 1: no transform (0 DWT levels: the samples as one predicted LL band) */
} tcase;

static void make_image(const tcase *t, wc_image *img)
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
    const int noise = (int)(test_rng_u32(&r) % 9);
    for (uint32_t y = 0; y < t->h; y++)
        for (uint32_t x = 0; x < t->w; x++)
            for (uint32_t c = 0; c < t->comps; c++) {
                double v = 0.5 + 0.3 * (double)((x * (c + 1) + 2 * y) % 97) / 97.0 +
                           0.1 * (double)((x / 7 + y / 5) & 1);
                int64_t s = (int64_t)(v * maxv) + (noise ? test_rng_range(&r, -noise, noise) : 0);
                if ((test_rng_u32(&r) & 511) == 0) s = test_rng_u32(&r) & maxv; /* spikes */
                s = s < 0 ? 0 : s > (int64_t)maxv ? (int64_t)maxv : s;
                size_t i = ((size_t)y * t->w + x) * t->comps + c;
                if (t->depth <= 8)
                    ((uint8_t *)img->pixels)[i] = (uint8_t)s;
                else
                    ((uint16_t *)img->pixels)[i] = (uint16_t)s;
            }
}

static void set_params(const tcase *t, wc_params *p, wc_backend_kind be)
{
    wc_params_init(p);
    p->backend = be;
    p->block_size = t->block;
    p->lossless = lossless_mode(t->mode);
    p->quality = t->quality;
    if (t->mode == M_LOSSY53) p->wavelet = 53;
    if (t->mode == M_DCT) p->transform = WC_TRANSFORM_DCT;
    if (t->mode == M_LOT) p->transform = WC_TRANSFORM_LOT;
    if (t->mode == M_DEFLATE) p->entropy = WC_ENTROPY_DEFLATE;
    if (t->mode == M_TILES || t->mode == M_TILES97) p->entropy = WC_ENTROPY_HUFFMAN_TILES;
    if (t->mode == M_ARITH || t->mode == M_ARITH97) p->entropy = WC_ENTROPY_ARITH;
    if (t->flat) p->levels = 0;
}

/* Whether the CUDA backend's file of t is the CPU's, byte for byte, and
 * decodes (on the host and on the device) to the CPU's pixels; says what
 * differs where it is not. */
static int case_ok(const tcase *t)
{
    wc_image img;
    make_image(t, &img);
    wc_params pc, pg;
    set_params(t, &pc, WC_BACKEND_CPU);
    set_params(t, &pg, WC_BACKEND_CUDA);
    void *fc = NULL, *fg = NULL;
    size_t nc = 0, ng = 0;
    int ok = 1;
    char what[64];
    snprintf(what, sizeof what, "%ux%u x%u %u-bit %s%s q%.0f block %d", t->w, t->h, t->comps,
             t->depth, mode_name[t->mode], t->flat ? " 0 levels" : "", (double)t->quality,
             t->block);
    wc_status sc = wc_encode_alloc(g_ctx_cpu, &pc, &img, &fc, &nc);
    wc_status sg = wc_encode_alloc(g_ctx_gpu, &pg, &img, &fg, &ng);
    if (sc != WC_OK || sg != WC_OK || nc != ng || memcmp(fc, fg, nc) != 0) {
        size_t at = 0;
        while (sc == WC_OK && sg == WC_OK && at < nc && at < ng &&
               ((uint8_t *)fc)[at] == ((uint8_t *)fg)[at])
            at++;
        print_error("%s: cpu %d (%zu bytes), cuda %d (%zu bytes: %s), first difference at %zu\n",
                    what, sc, nc, sg, ng, wc_ctx_error(g_ctx_gpu), at);
        ok = 0;
    }
    /* Huffman files (entropy 0 and 2) and arithmetic-coded ones (3) are
     * coded on the device; deflate and filtered deflate on the host (which
     * the automatic lossless layout may keep for a small or flat image):
     * ask the file. */
    wc_info info;
    const int on_device =
        sg == WC_OK && wc_inspect(g_ctx_cpu, fg, ng, &info) == WC_OK &&
        (info.entropy == WC_ENTROPY_HUFFMAN || info.entropy == WC_ENTROPY_HUFFMAN_TILES ||
         info.entropy == WC_ENTROPY_ARITH); /* keeps the GPU's note */
    if (on_device && !strstr(wc_ctx_note(g_ctx_gpu), "entropy coding: device")) {
        print_error("%s: coded on the host (%s)\n", what, wc_ctx_note(g_ctx_gpu));
        ok = 0;
    }
    wc_image out, outg;
    memset(&out, 0, sizeof out);
    memset(&outg, 0, sizeof outg);
    const size_t bytes = wc_image_row_bytes(&img) * img.height;
    const int lossless = lossless_mode(t->mode);
    if (sg == WC_OK && wc_decode(g_ctx_cpu, &pc, fg, ng, &out) != WC_OK) {
        print_error("%s: the CUDA file on the host: %s\n", what, wc_ctx_error(g_ctx_cpu));
        ok = 0;
    } else if (sg == WC_OK && lossless && memcmp(out.pixels, img.pixels, bytes) != 0) {
        print_error("%s: the CUDA file is not lossless\n", what);
        ok = 0;
    }
    /* Decoded on the device (the CPU's file, so a device decoder fault
     * shows apart from an encoder one): the CPU's pixels. */
    if (sc == WC_OK && wc_decode(g_ctx_gpu, &pg, fc, nc, &outg) != WC_OK) {
        print_error("%s: decode on the device: %s\n", what, wc_ctx_error(g_ctx_gpu));
        ok = 0;
    } else if (sc == WC_OK) {
        if (on_device && !strstr(wc_ctx_note(g_ctx_gpu), "entropy coding: device")) {
            print_error("%s: decoded on the host (%s)\n", what, wc_ctx_note(g_ctx_gpu));
            ok = 0;
        }
        if (out.pixels && memcmp(out.pixels, outg.pixels, bytes) != 0) {
            print_error("%s: the device decodes other pixels than the CPU\n", what);
            ok = 0;
        }
    }
    wc_image_free(&out);
    wc_image_free(&outg);
    wc_free(fc);
    wc_free(fg);
    wc_image_free(&img);
    return ok;
}

static void check_case(const tcase *t) { assert_true(case_ok(t)); }

static const uint32_t sizes[][2] = {{1, 1},   {1, 37},   {53, 1},  {2, 2},
                                    {17, 13}, {131, 67}, {64, 64}, {129, 257}};

/* Every mode x size, components and depth turning over. */
static void test_modes_sizes(void **state)
{
    (void)state;
    static const uint32_t depths[] = {8, 12, 16, 1, 10};
    static const int blocks[] = {16, 32, 64, 128};
    int n = 0;
    for (int m = 0; m < NMODES; m++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++, n++) {
            tcase t = {sizes[s][0],
                       sizes[s][1],
                       (uint32_t)(n % 4) + 1,
                       depths[n % 5],
                       m,
                       blocks[(n / 3) % 4],
                       75.0f,
                       1000u + (uint64_t)n,
                       0};
            check_case(&t);
        }
}

/* Random shapes and settings. */
static void test_random(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 77);
    static const int blocks[] = {16, 32, 64, 128};
    static const float q[] = {5, 30, 75, 95, 100};
    for (int i = 0; i < 60; i++) {
        tcase t = {(uint32_t)test_rng_range(&r, 1, 300),
                   (uint32_t)test_rng_range(&r, 1, 200),
                   (uint32_t)test_rng_range(&r, 1, 4),
                   (uint32_t)test_rng_range(&r, 1, 16),
                   test_rng_range(&r, 0, NMODES - 1),
                   blocks[test_rng_range(&r, 0, 3)],
                   q[test_rng_range(&r, 0, 4)],
                   5000u + (uint64_t)i,
                   0};
        check_case(&t);
    }
}

/* The coder's other emit (WC_CUDA_EMIT=walk: emit walks the contexts
 * again instead of reading count's tokens, cuda/PERF_NOTES.md e4) writes
 * the same files: random cases of the Huffman modes through it. */
static void test_emit_walk(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 13);
    static const int modes[] = {M_LOSSLESS, M_LOSSY97, M_DCT, M_TILES, M_TILES97};
    setenv("WC_CUDA_EMIT", "walk", 1);
    for (int i = 0; i < 15; i++) {
        tcase t = {(uint32_t)test_rng_range(&r, 1, 300),
                   (uint32_t)test_rng_range(&r, 1, 200),
                   (uint32_t)test_rng_range(&r, 1, 4),
                   (uint32_t)test_rng_range(&r, 1, 16),
                   modes[test_rng_range(&r, 0, 4)],
                   32 << test_rng_range(&r, 0, 2),
                   30.0f,
                   7000u + (uint64_t)i,
                   0};
        check_case(&t);
    }
    unsetenv("WC_CUDA_EMIT");
}

/* The count kernel's other versions (WC_CUDA_COUNT, cuda/bc_kernels.cu,
 * PERF_NOTES e6-e7: the run loop or its carry-chain scan, the thread
 * block's shared histogram or a warp's own at 6 or 8 thread blocks an
 * SM) count the same symbols, and the emit kernel's register limits
 * (WC_CUDA_EMIT_BLOCKS, e8) code them alike, and so do 64- and 32-wide
 * blocks walked two or four rows a step or a row a step
 * (WC_CUDA_WIDE_ROWS), so all give the same files:
 * random cases of the Huffman modes through each, quality low enough for
 * long runs across rows and high enough for few. */
static void test_count_switches(void **state)
{
    (void)state;
    static const char *const kinds[] = {"loop", "shared", "warp6", "warp8"};
    static const char *const emit_blocks[] = {"0", "6", "8"};
    static const int modes[] = {M_LOSSLESS, M_LOSSY97, M_DCT, M_TILES, M_TILES97};
    static const float q[] = {5, 30, 75, 95};
    test_rng r;
    test_rng_seed(&r, 41);
    for (int i = 0; i < 20; i++) {
        setenv("WC_CUDA_COUNT", kinds[i % 4], 1);
        setenv("WC_CUDA_EMIT_BLOCKS", emit_blocks[i % 3], 1);
        setenv("WC_CUDA_WIDE_ROWS", i / 2 % 2 ? "0" : "1", 1);
        tcase t = {(uint32_t)test_rng_range(&r, 1, 300),
                   (uint32_t)test_rng_range(&r, 1, 260),
                   (uint32_t)test_rng_range(&r, 1, 4),
                   (uint32_t)test_rng_range(&r, 1, 16),
                   modes[test_rng_range(&r, 0, 4)],
                   16 << test_rng_range(&r, 0, 3),
                   q[i / 5],
                   11000u + (uint64_t)i,
                   0};
        check_case(&t);
    }
    unsetenv("WC_CUDA_COUNT");
    unsetenv("WC_CUDA_EMIT_BLOCKS");
    unsetenv("WC_CUDA_WIDE_ROWS");
}

/* The decoder's other choices (cuda/chain_cuda.cu, PERF_NOTES "Decode
 * latency, continued"): planes written or cleared first, the entropy-0
 * blocks in layout order, longest first, longest with shortest, or dealt
 * a (component, class) an SM, or in thread blocks of one class longest
 * first; 1 to 32 threads a thread block; the fast look-ups from the
 * 32-bit tables, the 16-bit ones, or those in shared memory; the step of
 * decode_stream or of decode_lean (both kernels, tiles too); the rows
 * above capped where loaded or where used. Each
 * setting must give the CPU's pixels: random cases of the Huffman modes
 * through each. */
static void test_decode_switches(void **state)
{
    (void)state;
    static const char *const zeroed[] = {"0", "1"};
    static const char *const order[] = {"0", "1", "2", "3", "4"};
    static const char *const lanes[] = {"1", "2", "4", "32"};
    static const char *const tab[] = {"0", "1", "2"};
    static const int modes[] = {M_LOSSLESS, M_LOSSY97, M_DCT, M_TILES, M_TILES97};
    test_rng r;
    test_rng_seed(&r, 29);
    for (int i = 0; i < 30; i++) {
        setenv("WC_CUDA_DEC_ZEROED", zeroed[i % 2], 1);
        setenv("WC_CUDA_DEC_ORDER", order[i / 2 % 5], 1);
        setenv("WC_CUDA_DEC_LANES", lanes[(i + i / 10) % 4], 1);
        setenv("WC_CUDA_DEC_TAB", tab[i % 3], 1);
        setenv("WC_CUDA_DEC_LEAN", i / 3 % 2 ? "1" : "0", 1);
        setenv("WC_CUDA_DEC_LAZY", i / 7 % 2 ? "1" : "0", 1);
        tcase t = {(uint32_t)test_rng_range(&r, 1, 300),
                   (uint32_t)test_rng_range(&r, 1, 200),
                   (uint32_t)test_rng_range(&r, 1, 4),
                   (uint32_t)test_rng_range(&r, 1, 16),
                   modes[test_rng_range(&r, 0, 4)],
                   16 << test_rng_range(&r, 0, 2),
                   30.0f,
                   9000u + (uint64_t)i,
                   0};
        check_case(&t);
    }
    unsetenv("WC_CUDA_DEC_ZEROED");
    unsetenv("WC_CUDA_DEC_ORDER");
    unsetenv("WC_CUDA_DEC_LANES");
    unsetenv("WC_CUDA_DEC_TAB");
    unsetenv("WC_CUDA_DEC_LEAN");
    unsetenv("WC_CUDA_DEC_LAZY");
}

/* A --bpp encode on the device (wc_params.bpp): each probe of the step
 * search measures only the file's size where the file is Huffman coded
 * (entropy 0: every block's size from count's per-block histograms and
 * the tables, cuda/chain_cuda.cu device_sizes; entropy 2: the sizes of
 * an emit, its payload left on the device), and the probe kept gets
 * its payload afterwards: emitted from what the device still holds when
 * it was the last probe, coded again otherwise. The file must be the
 * CPU's search's byte for byte (the same status where the target is
 * out of reach). *how: 1 sized, emitted from the last probe; 2 sized,
 * coded again; 0 full probes (arithmetic coding); -1 failed. */
static int bpp_case(const tcase *t, float bpp, int *how)
{
    wc_image img;
    make_image(t, &img);
    wc_params pc, pg;
    set_params(t, &pc, WC_BACKEND_CPU);
    set_params(t, &pg, WC_BACKEND_CUDA);
    pc.bpp = pg.bpp = bpp;
    void *fc = NULL, *fg = NULL;
    size_t nc = 0, ng = 0;
    const wc_status sc = wc_encode_alloc(g_ctx_cpu, &pc, &img, &fc, &nc);
    const wc_status sg = wc_encode_alloc(g_ctx_gpu, &pg, &img, &fg, &ng);
    const int ok = sc == sg && (sc != WC_OK || (nc == ng && memcmp(fc, fg, nc) == 0));
    const char *note = wc_ctx_note(g_ctx_gpu);
    *how = sg != WC_OK                                  ? -1
           : strstr(note, "(the last probe's payload)") ? 1
           : strstr(note, "(sizes only)")               ? 2
                                                        : 0;
    if (!ok)
        print_error("%ux%u x%u %u-bit %s at %g bpp: cpu %d (%zu bytes), cuda %d (%zu bytes: %s)\n",
                    t->w, t->h, t->comps, t->depth, mode_name[t->mode], (double)bpp, sc, nc, sg, ng,
                    sg == WC_OK ? note : wc_ctx_error(g_ctx_gpu));
    wc_free(fc);
    wc_free(fg);
    wc_image_free(&img);
    return ok;
}

/* Every lossy entropy-0 mode at low to high targets, shapes from tiny to
 * a few blocks a band, half the cases with WC_CUDA_CHECK_SIZES=1 (each
 * size-only probe also emitted, its block sizes required to be emit's);
 * the entropy-0 files come from size-only probes, and both ways of
 * finishing the kept probe occur (tiny images' sizes come in steps, so
 * their search often keeps an earlier probe); a third of the cases (with
 * and without the check) probe as before PERF_NOTES' "Probes that bring
 * back six words" (a size a block down, histograms unpacked, descriptors
 * each probe); the other device modes keep full probes and the same
 * bytes; tiled files (entropy 2) from probes that emit but bring back
 * only their sizes. */
static void test_bpp_sizes_only(void **state)
{
    (void)state;
    static const int modes[] = {M_LOSSY97, M_LOSSY53, M_DCT, M_LOT};
    static const uint32_t shapes[][3] = {{64, 64, 3}, {131, 67, 1}, {300, 200, 3}, {129, 257, 4},
                                         {17, 13, 1}, {23, 11, 3},  {31, 29, 2}};
    static const float bpps[] = {0.5f, 1.5f, 4.0f, 9.0f, 17.0f};
    int n = 0, done = 0, by[3] = {0, 0, 0};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (size_t b = 0; b < sizeof bpps / sizeof bpps[0]; b++, n++) {
                static const char *const before[] = {"WC_CUDA_PROBE_TOTALS", "WC_CUDA_PROBE_HIST",
                                                     "WC_CUDA_PROBE_DESC"};
                if (n % 2) setenv("WC_CUDA_CHECK_SIZES", "1", 1);
                for (int v = 0; v < 3; v++)
                    if (n / 2 % 3 == 1) setenv(before[v], "0", 1);
                tcase t = {shapes[s][0],
                           shapes[s][1],
                           shapes[s][2],
                           n % 3 ? 8u : 12u,
                           modes[m],
                           32 << (n % 3),
                           75.0f,
                           20000u + (uint64_t)n,
                           0};
                int how = -1;
                const int ok = bpp_case(&t, bpps[b], &how);
                unsetenv("WC_CUDA_CHECK_SIZES");
                for (int v = 0; v < 3; v++) unsetenv(before[v]);
                assert_true(ok);
                if (how < 0) continue; /* out of reach on both */
                if (how == 0) print_error("case %d: full probes (%s)\n", n, wc_ctx_note(g_ctx_gpu));
                assert_true(how > 0);
                by[how]++;
                done++;
            }
    print_message("bpp: %d files, %d emitted from the last probe, %d coded again\n", done, by[1],
                  by[2]);
    assert_true(done >= n / 2);
    assert_true(by[1] >= 1 && by[2] >= 1);
    /* Tiled files: probes that emit but bring back only the sizes
     * (device_sizes' emit), finished like the others; arithmetic coding
     * keeps full probes. */
    int tiled[3] = {0, 0, 0};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int i = 0; i < 3; i++) {
            static const float tiled_bpp[] = {0.5f, 1.5f, 4.0f};
            tcase t = {shapes[s][0],
                       shapes[s][1],
                       shapes[s][2],
                       8,
                       M_TILES97,
                       32 << i,
                       75.0f,
                       21000u + (uint64_t)(3 * s + (size_t)i),
                       0};
            int how = -1;
            assert_true(bpp_case(&t, tiled_bpp[i], &how));
            if (how < 0) continue; /* out of reach on both */
            assert_true(how > 0);
            tiled[how]++;
        }
    print_message("bpp, tiled: %d emitted from the last probe, %d coded again\n", tiled[1],
                  tiled[2]);
    assert_true(tiled[1] + tiled[2] >= 7); /* the rest are out of reach on both */
    for (int i = 0; i < 2; i++) {
        tcase t = {131, 67, 3, 8, M_ARITH97, 64, 75.0f, 21100u + (uint64_t)i, 0};
        int how = -1;
        assert_true(bpp_case(&t, i == 0 ? 1.0f : 3.0f, &how));
        assert_int_equal(how, 0);
    }
}

/* A large image: many blocks per band, every class busy. */
static void test_large(void **state)
{
    (void)state;
    for (int m = 0; m < M_DEFLATE; m++) {
        tcase t = {1031, 779, 3, m == M_LOSSLESS ? 16u : 8u, m, 128, 75.0f, 9000u + (uint64_t)m, 0};
        check_case(&t);
    }
}

/* Files of 0 DWT levels (the samples, after the colour transform, as one
 * MED-predicted LL band cut into code blocks; the automatic lossless
 * layout tries them for graphics and gives them to tiny images), through
 * the device coder both ways: lossless and lossy, entropy 0 and 2, sizes
 * from 1x1 through odd and prime to several blocks a side, every block
 * size. Every case runs; each failure is named. */
static void test_zero_levels(void **state)
{
    (void)state;
    static const uint32_t zsizes[][2] = {{1, 1},  {1, 2},   {2, 1},     {3, 5},     {1, 131},
                                         {97, 1}, {31, 17}, {127, 129}, {128, 128}, {257, 131}};
    static const int modes[] = {M_LOSSLESS, M_TILES, M_LOSSY53, M_TILES97,
                                M_LOSSY97,  M_ARITH, M_ARITH97};
    static const uint32_t depths[] = {8, 16, 1, 12, 10};
    static const int blocks[] = {16, 32, 64, 128};
    int n = 0, bad = 0;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (size_t s = 0; s < sizeof zsizes / sizeof zsizes[0]; s++, n++) {
            const tcase t = {zsizes[s][0],
                             zsizes[s][1],
                             (uint32_t)(n % 4) + 1,
                             depths[n % 5],
                             modes[m],
                             blocks[(n / 2) % 4],
                             n % 3 ? 75.0f : 30.0f,
                             3000u + (uint64_t)n,
                             1};
            bad += !case_ok(&t);
        }
    /* The automatic lossless layout codes every candidate of a small image
     * (0 levels among them) and keeps the smallest. */
    for (int k = 0; k < 4; k++) {
        const tcase t = {20u + 37u * (uint32_t)k, 50, (uint32_t)k + 1, 8, M_LOSSLESS, 64, 75.0f,
                         3500u + (uint64_t)k,     0};
        bad += !case_ok(&t);
    }
    if (bad) print_error("%d of %d 0-level cases failed\n", bad, n + 4);
    assert_int_equal(bad, 0);
}

/* Decodes buf on both backends (the CPU with one thread, so it names the
 * first failing block): the same status, message and pixels. */
static int same_verdict(uint8_t *buf, size_t size, const char *what, size_t at)
{
    wc_params pc, pg;
    wc_params_init(&pc);
    wc_params_init(&pg);
    pc.backend = WC_BACKEND_CPU;
    pc.threads = 1;
    pg.backend = WC_BACKEND_CUDA;
    wc_image a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    wc_status sa = wc_decode(g_ctx_cpu, &pc, buf, size, &a);
    wc_status sb = wc_decode(g_ctx_gpu, &pg, buf, size, &b);
    int ok = sa == sb;
    if (ok && sa != WC_OK) ok = strcmp(wc_ctx_error(g_ctx_cpu), wc_ctx_error(g_ctx_gpu)) == 0;
    if (ok && sa == WC_OK) ok = memcmp(a.pixels, b.pixels, wc_image_row_bytes(&a) * a.height) == 0;
    if (!ok)
        print_error("%s at %zu: cpu %d '%s', cuda %d '%s'\n", what, at, sa, wc_ctx_error(g_ctx_cpu),
                    sb, wc_ctx_error(g_ctx_gpu));
    wc_image_free(&a);
    wc_image_free(&b);
    return sa != WC_OK;
}

/* Damaged payloads behind valid CRCs: every byte of every component's
 * data replaced in turn, and block boundaries moved in the index. The
 * device decoder must refuse exactly what the CPU refuses, with the same
 * message (and never write outside a block: compute-sanitizer runs this). */
static void test_damage(void **state)
{
    (void)state;
    static const tcase cases[] = {
        {37, 29, 3, 8, M_LOSSY97, 16, 60.0f, 71, 0}, {23, 31, 2, 12, M_LOSSLESS, 16, 75.0f, 72, 0},
        {40, 24, 1, 8, M_DCT, 16, 90.0f, 73, 0},     {100, 70, 1, 8, M_TILES97, 128, 60.0f, 74, 0},
        {70, 40, 2, 10, M_TILES, 64, 75.0f, 75, 0},  {45, 33, 3, 8, M_ARITH97, 16, 60.0f, 76, 0},
        {29, 37, 2, 16, M_ARITH, 32, 75.0f, 77, 0}};
    /* WC_TEST_STRIDE=k tries every k-th byte (for slow runs under
     * compute-sanitizer). */
    const char *env = getenv("WC_TEST_STRIDE");
    const uint32_t stride = env && atoi(env) > 0 ? (uint32_t)atoi(env) : 1;
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        const tcase *t = &cases[n];
        wc_image img;
        make_image(t, &img);
        wc_params p;
        set_params(t, &p, WC_BACKEND_CUDA);
        /* Fixed levels: the automatic lossless layout may keep a layout of
         * another coder (filtered deflate, no WIDX) for a small image. */
        p.levels = 5;
        uint8_t *buf = NULL;
        size_t size = 0;
        assert_int_equal(wc_encode_alloc(g_ctx_gpu, &p, &img, (void **)&buf, &size), WC_OK);
        unsigned refused = 0, tried = 0;
        for (uint32_t c = 0; c < t->comps; c++) {
            const size_t dat = chunk_find(buf, size, "WDAT", (int)c);
            assert_true(dat > 0);
            const uint32_t len = wc_rd32le(buf + dat);
            for (uint32_t i = 0; i < len; i += stride, tried++) {
                const uint8_t keep = buf[dat + 8 + i];
                buf[dat + 8 + i] = (uint8_t)(i & 1 ? ~keep : keep ^ 0x10);
                chunk_fix_crc(buf, dat);
                refused += (unsigned)same_verdict(buf, size, "WDAT byte", i);
                buf[dat + 8 + i] = keep;
            }
            chunk_fix_crc(buf, dat);
        }
        /* Index entries: a byte moved from one block to the next. */
        const size_t idx = chunk_find(buf, size, "WIDX", 0);
        assert_true(idx > 0);
        const uint32_t ilen = wc_rd32le(buf + idx);
        for (uint32_t i = 0; i + 1 < ilen; i++) {
            uint8_t *e = buf + idx + 8 + i;
            if (e[0] == 0 || e[0] >= 0x7F || e[1] >= 0x7F || (i && e[-1] >= 0x80)) continue;
            e[0]--, e[1]++;
            chunk_fix_crc(buf, idx);
            refused += (unsigned)same_verdict(buf, size, "index entry", i);
            tried++;
            e[0]++, e[1]--;
        }
        chunk_fix_crc(buf, idx);
        /* Some damage decodes to other values; with a stride (the
         * sanitizer runs) a small file's few tries may all be refused. */
        assert_true(refused > 0);
        if (stride == 1) assert_true(refused < tried);
        assert_int_equal(same_verdict(buf, size, "the file itself", 0), 0);
        wc_free(buf);
        wc_image_free(&img);
    }
}

/* Decodes buf with `be` (eagerly: WC_DECODE_EAGER_CRC, every CRC checked
 * before the backend starts; else the large data chunks' CRCs beside the
 * device's work) into out, which keeps its bytes on a failure; the status
 * and, on failure, the message in msg. */
static wc_status decode_into_with(wc_ctx *ctx, wc_backend_kind be, int eager, const uint8_t *buf,
                                  size_t size, wc_image *out, char *msg, size_t cap)
{
    wc_params p;
    wc_params_init(&p);
    p.backend = be;
    if (eager) setenv("WC_DECODE_EAGER_CRC", "1", 1);
    const wc_status s = wc_decode_into(ctx, &p, buf, size, out);
    unsetenv("WC_DECODE_EAGER_CRC");
    snprintf(msg, cap, "%s", s == WC_OK ? "" : wc_ctx_error(ctx));
    return s;
}

/* The data chunks' CRCs of a file of over a MiB a component are checked
 * beside the device's decode (codec/decoder.c, es_input.verify): the
 * verdict is the CPU's and the eager one's, status and message, for a
 * bad CRC alone, with a bad index or a cut file after it, and for data
 * damaged behind a good CRC; a refused file leaves the output untouched. */
static void test_large_crc_beside(void **state)
{
    (void)state;
    wc_image img = {1200, 1000, 2, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    test_rng r;
    test_rng_seed(&r, 91);
    for (size_t i = 0; i < (size_t)img.width * img.height * 2; i++)
        ((uint8_t *)img.pixels)[i] = (uint8_t)test_rng_u32(&r);
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CPU;
    p.lossless = 1;
    p.levels = 5;
    uint8_t *buf = NULL;
    size_t size = 0;
    assert_int_equal(wc_encode_alloc(g_ctx_cpu, &p, &img, (void **)&buf, &size), WC_OK);
    const size_t dat = chunk_find(buf, size, "WDAT", 1), idx = chunk_find(buf, size, "WIDX", 0);
    assert_true(dat > 0 && idx > 0);
    const uint32_t len = wc_rd32le(buf + dat);
    assert_true(len >= (1u << 20));
    wc_image out = img, want = img;
    out.pixels = NULL;
    want.pixels = NULL;
    assert_int_equal(wc_image_alloc(&out), WC_OK);
    assert_int_equal(wc_image_alloc(&want), WC_OK);
    const size_t bytes = wc_image_row_bytes(&img) * img.height;
    for (int k = 0; k < 5; k++) {
        size_t n = size;
        wc_status expect = WC_ERR_CHECKSUM;
        uint8_t *at = buf + dat + 8 + len / 3, keep = *at;
        *at ^= 0x20;  /* k 0-2: the data's CRC fails */
        if (k == 1) { /* and the index, behind its good CRC, disagrees */
            buf[idx + 8] ^= 0x01;
            chunk_fix_crc(buf, idx);
        }
        if (k == 2) n = size - 5; /* and the file is cut */
        if (k == 3) {             /* damaged data behind a good CRC */
            chunk_fix_crc(buf, dat);
            expect = WC_ERR_CORRUPT;
        }
        if (k == 4) { /* intact */
            *at = keep;
            chunk_fix_crc(buf, dat);
            expect = WC_OK;
        }
        char m_cpu[256], m_gpu[256], m_eager[256];
        memset(out.pixels, 0x5A, bytes);
        const wc_status s_cpu =
            decode_into_with(g_ctx_cpu, WC_BACKEND_CPU, 0, buf, n, &want, m_cpu, sizeof m_cpu);
        const wc_status s_eager =
            decode_into_with(g_ctx_gpu, WC_BACKEND_CUDA, 1, buf, n, &out, m_eager, sizeof m_eager);
        memset(out.pixels, 0x5A, bytes);
        const wc_status s_gpu =
            decode_into_with(g_ctx_gpu, WC_BACKEND_CUDA, 0, buf, n, &out, m_gpu, sizeof m_gpu);
        if (s_cpu != s_gpu || s_gpu != s_eager || strcmp(m_cpu, m_gpu) || strcmp(m_gpu, m_eager))
            print_error("case %d: cpu %d '%s', cuda %d '%s', cuda eager %d '%s'\n", k, s_cpu, m_cpu,
                        s_gpu, m_gpu, s_eager, m_eager);
        assert_int_equal(s_gpu, s_cpu);
        assert_int_equal(s_gpu, s_eager);
        assert_string_equal(m_gpu, m_cpu);
        assert_string_equal(m_gpu, m_eager);
        if (expect != WC_ERR_CORRUPT) assert_int_equal(s_gpu, expect);
        if (s_gpu == WC_OK) { /* damage behind a good CRC may decode, to the CPU's pixels */
            assert_memory_equal(out.pixels, want.pixels, bytes);
            if (expect == WC_OK) assert_memory_equal(out.pixels, img.pixels, bytes);
        } else {
            for (size_t i = 0; i < bytes; i++)
                if (((uint8_t *)out.pixels)[i] != 0x5A) fail_msg("case %d: output written", k);
        }
        if (k == 1) {
            buf[idx + 8] ^= 0x01;
            chunk_fix_crc(buf, idx);
        }
        *at = keep;
        chunk_fix_crc(buf, dat);
    }
    wc_free(buf);
    wc_image_free(&img);
    wc_image_free(&out);
    wc_image_free(&want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_modes_sizes, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_random, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_emit_walk, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_count_switches, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_decode_switches, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_bpp_sizes_only, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_large, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_zero_levels, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_damage, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_large_crc_beside, gpu_ctx_setup, gpu_ctx_teardown),
    };
    return gpu_pair_main("cuda_chain", tests, sizeof tests / sizeof tests[0]);
}
