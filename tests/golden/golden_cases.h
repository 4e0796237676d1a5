/*
 * golden_cases.h -- the golden files of formats 1.0 and 2.0 (the cases
 * with entropy 2 or 3, the Monolithic wavelets 153/197, the Explosive
 * wavelets 203/207, and the palette files:
 * colour 3): each source image is
 * made here from a formula, encoded with the parameters below into
 * tests/golden/<name>.wcx, and decoded into tests/golden/<name>.png.
 * make_golden writes them; test_golden checks that every file still
 * decodes to its PNG and that encoding still gives the same bytes.
 */
#ifndef WC_GOLDEN_CASES_H
#define WC_GOLDEN_CASES_H

#include <math.h>
#include <string.h>

#include "wcodec.h"

typedef struct golden_case {
    const char *name;
    uint32_t w, h, comps, depth;
    int lossless, transform, wavelet, entropy, block, levels;
    float quality;
    int palette; /* > 0: a source of that many colours, levels automatic */
} golden_case;

static const golden_case golden_cases[] = {
    {"rgb8_lossless", 48, 40, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_HUFFMAN, 64, 5, 0, 0},
    {"ga16_lossless", 33, 17, 2, 16, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_HUFFMAN, 16, 3, 0, 0},
    {"gray4_deflate", 29, 31, 1, 4, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_DEFLATE, 32, 5, 0, 0},
    {"rgb8_97_q60", 48, 40, 3, 8, 0, WC_TRANSFORM_DWT, 97, WC_ENTROPY_HUFFMAN, 32, 4, 60, 0},
    {"rgba8_dct_q80", 37, 21, 4, 8, 0, WC_TRANSFORM_DCT, 97, WC_ENTROPY_HUFFMAN, 16, 5, 80, 0},
    {"rgb10_lot_q70", 40, 24, 3, 10, 0, WC_TRANSFORM_LOT, 97, WC_ENTROPY_DEFLATE, 16, 5, 70, 0},
    /* Format 2.0: entropy 2, code blocks of several tiles (edge tiles too). */
    {"rgb8_lossless_tiles", 83, 45, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_HUFFMAN_TILES, 64, 3,
     0, 0},
    {"gray12_97_q70_tiles", 150, 71, 1, 12, 0, WC_TRANSFORM_DWT, 97, WC_ENTROPY_HUFFMAN_TILES, 128,
     2, 70, 0},
    /* format 2.0: the Monolithic lifting scheme (wavelet 153 and 197) */
    {"rgba8_53m_lossless", 37, 29, 4, 8, 1, WC_TRANSFORM_DWT, 153, WC_ENTROPY_HUFFMAN, 16, 4, 0, 0},
    {"rgb8_97m_q60", 48, 40, 3, 8, 0, WC_TRANSFORM_DWT, 197, WC_ENTROPY_HUFFMAN, 32, 4, 60, 0},
    /* format 2.0: the Explosive lifting scheme (wavelet 203 and 207) */
    {"rgba8_53e_lossless", 37, 29, 4, 8, 1, WC_TRANSFORM_DWT, 203, WC_ENTROPY_HUFFMAN, 16, 4, 0, 0},
    {"rgb8_97e_q60", 48, 40, 3, 8, 0, WC_TRANSFORM_DWT, 207, WC_ENTROPY_HUFFMAN, 32, 4, 60, 0},
    /* Format 2.0: arithmetic coding (entropy 3), lossless and lossy. */
    {"rgb8_lossless_arith", 83, 45, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_ARITH, 64, 3, 0, 0},
    {"gray12_97_q70_arith", 150, 71, 1, 12, 0, WC_TRANSFORM_DWT, 97, WC_ENTROPY_ARITH, 128, 2, 70,
     0},
    /* Format 2.0: palette files (colour 3, WPAL), the layout the automatic
     * lossless choice takes for these few-colour sources; 8 and 16 bits. */
    {"rgb8_palette", 45, 29, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_HUFFMAN, 64, WC_LEVELS_AUTO,
     0, 5},
    {"ga16_palette", 31, 23, 2, 16, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_HUFFMAN, 64, WC_LEVELS_AUTO,
     0, 3},
    /* Format 2.0: filtered deflate (entropy 4, 0 levels): gray, and RGB
     * through the RCT (9-bit chroma: 16-bit packing), odd sizes. */
    {"gray8_filtered", 37, 23, 1, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_FILTERED, 64, 0, 0, 0},
    {"rgb8_filtered", 29, 19, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_FILTERED, 64, 0, 0, 5},
};
#define GOLDEN_COUNT (sizeof golden_cases / sizeof golden_cases[0])

/* Golden files that the encoder no longer writes (its automatic choice
 * has moved on) but that must still decode to their PNG: the palette
 * cases as the automatic layout coded them before filtered deflate
 * (deflate, 0 levels), which now picks filtered deflate; and the small
 * files of entropy 4 as chunks (WHDR, WPAL, WDAT, WEND: the _chunked
 * ones), which the encoder now writes as one WONE chunk. */
static const char *const golden_archived[] = {"ga16_palette_deflate",   "rgb8_palette_deflate",
                                              "gray8_filtered_chunked", "rgb8_filtered_chunked",
                                              "rgb8_palette_chunked",   "ga16_palette_chunked"};
#define GOLDEN_ARCHIVED_COUNT (sizeof golden_archived / sizeof golden_archived[0])

/* A smooth picture with some texture, the same on every machine (integer
 * arithmetic after a rounded double with a wide margin). */
static inline wc_status golden_source(const golden_case *g, wc_image *img)
{
    *img = (wc_image){g->w, g->h, g->comps, g->depth, 0, NULL};
    wc_status s = wc_image_alloc(img);
    if (s != WC_OK) return s;
    const uint32_t maxv = (1u << g->depth) - 1;
    for (uint32_t y = 0; y < g->h; y++)
        for (uint32_t x = 0; x < g->w; x++)
            for (uint32_t c = 0; c < g->comps; c++) {
                uint32_t v = (x * (7 + c) + y * (5 + 2 * c) + ((x * y) % (11 + c)) * 3) % 256;
                if (g->palette) /* blocks of a few colours */
                    v = (((x / 4) ^ (y / 3)) % (uint32_t)g->palette) * (37 + 50 * c) % 256;
                v = (uint32_t)(((uint64_t)v * maxv) / 255);
                size_t i = ((size_t)y * g->w + x) * g->comps + c;
                if (g->depth <= 8)
                    ((uint8_t *)img->pixels)[i] = (uint8_t)v;
                else
                    ((uint16_t *)img->pixels)[i] = (uint16_t)v;
            }
    return WC_OK;
}

static inline void golden_params(const golden_case *g, wc_params *p)
{
    wc_params_init(p);
    p->lossless = g->lossless;
    p->transform = (wc_transform)g->transform;
    /* 153 and 197: the 5/3 and 9/7 in the Monolithic scheme, 203 and 207
     * in the Explosive one */
    p->wavelet = g->wavelet % 10 == 3 ? 53 : 97;
    p->dwt_scheme = g->wavelet > 200   ? WC_DWT_EXPLOSIVE
                    : g->wavelet > 100 ? WC_DWT_MONOLITHIC
                                       : WC_DWT_SEPARABLE;
    p->entropy = (wc_entropy)g->entropy;
    p->block_size = g->block;
    p->levels = g->levels;
    p->quality = g->quality;
    p->backend = WC_BACKEND_CPU;
}

/* The metadata golden file, golden_meta.wcx: the first case
 * (rgb8_lossless) with these items as WMET chunks. Without its WMET
 * chunks it is that case's file byte for byte. */
#define GOLDEN_META_CASE 0
static inline wc_status golden_meta(wc_meta *m)
{
    uint8_t icc[64], res[17] = {0};
    for (int i = 0; i < 64; i++) icc[i] = (uint8_t)(i * 37 + 5);
    const double ppm = 2835;
    memcpy(res, &ppm, 8); /* IEEE-754, little-endian on the machines this runs on */
    memcpy(res + 8, &ppm, 8);
    res[16] = 1;
    wc_status s = wc_meta_add(m, WC_META_ICC, 0, "golden profile", icc, sizeof icc);
    if (s == WC_OK) s = wc_meta_add(m, WC_META_SRGB, 0, NULL, "\x00", 1);
    if (s == WC_OK) s = wc_meta_add(m, WC_META_RESOLUTION, 0, NULL, res, sizeof res);
    if (s == WC_OK) s = wc_meta_add(m, WC_META_TIME, 0, NULL, "\xea\x07\x0b\x18\x01\x02\x03", 7);
    if (s == WC_OK)
        s = wc_meta_add(m, WC_META_TEXT, WC_META_TEXT_UTF8 | WC_META_TEXT_COMPRESSED, "Title",
                        "golden \xc3\xa9", 9);
    return s;
}

#endif
