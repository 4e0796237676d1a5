/* plan.c -- parameters to header and stage plan. */
#include <math.h>
#include <string.h>

#include "dwt.h"
#include "layout.h"
#include "plan.h"

wc_status plan_check(const wc_params *p, const wc_image *img, wc_err *err)
{
    WC_RETURN_IF(!p || !img || !img->pixels, err, WC_ERR_ARG, "missing image or parameters");
    WC_RETURN_IF(p->abi != WC_ABI_VERSION, err, WC_ERR_ARG,
                 "parameters were not set up with wc_params_init");
    WC_RETURN_IF(
        img->width < 1 || img->height < 1 || img->width > (1u << 24) || img->height > (1u << 24),
        err, WC_ERR_ARG, "image size %ux%u out of range 1..16777216", img->width, img->height);
    WC_RETURN_IF(img->components < 1 || img->components > 4, err, WC_ERR_ARG,
                 "%u components (1..4 supported)", img->components);
    WC_RETURN_IF(img->bit_depth < 1 || img->bit_depth > 16, err, WC_ERR_ARG,
                 "bit depth %u out of range 1..16", img->bit_depth);
    WC_RETURN_IF(img->stride && img->stride < wc_packed_row_bytes(img), err, WC_ERR_ARG,
                 "stride %zu shorter than a row", img->stride);
    WC_RETURN_IF((p->levels < 0 && p->levels != WC_LEVELS_AUTO) || p->levels > WC_MAX_LEVELS, err,
                 WC_ERR_ARG, "levels %d out of range 0..15", p->levels);
    WC_RETURN_IF(p->block_size != 0 && p->block_size != 16 && p->block_size != 32 &&
                     p->block_size != 64 && p->block_size != 128,
                 err, WC_ERR_ARG, "block size %d (16, 32, 64 or 128)", p->block_size);
    WC_RETURN_IF(p->entropy != WC_ENTROPY_HUFFMAN && p->entropy != WC_ENTROPY_DEFLATE &&
                     p->entropy != WC_ENTROPY_HUFFMAN_TILES && p->entropy != WC_ENTROPY_ARITH &&
                     p->entropy != WC_ENTROPY_FILTERED,
                 err, WC_ERR_ARG, "unknown entropy coder %d", (int)p->entropy);
    WC_RETURN_IF(p->entropy == WC_ENTROPY_FILTERED && (!p->lossless || p->levels != 0), err,
                 WC_ERR_ARG, "filtered deflate (entropy 4) needs lossless coding with levels 0");
    WC_RETURN_IF(p->deflate_level < 1 || p->deflate_level > 9, err, WC_ERR_ARG,
                 "deflate level %d out of range 1..9", p->deflate_level);
    WC_RETURN_IF(p->transform < WC_TRANSFORM_DWT || p->transform > WC_TRANSFORM_LOT, err,
                 WC_ERR_ARG, "unknown transform %d", (int)p->transform);
    WC_RETURN_IF(p->wavelet != 0 && p->wavelet != 53 && p->wavelet != 97, err, WC_ERR_ARG,
                 "wavelet %d (53 or 97)", p->wavelet);
    WC_RETURN_IF(p->dwt_scheme != WC_DWT_SEPARABLE && p->dwt_scheme != WC_DWT_MONOLITHIC &&
                     p->dwt_scheme != WC_DWT_EXPLOSIVE,
                 err, WC_ERR_ARG, "unknown DWT scheme %d", (int)p->dwt_scheme);
    WC_RETURN_IF(p->threads < 0, err, WC_ERR_ARG, "threads %d < 0", p->threads);
    if (p->lossless) {
        WC_RETURN_IF(p->transform != WC_TRANSFORM_DWT, err, WC_ERR_ARG,
                     "lossless coding needs the DWT 5/3 (not %s)",
                     p->transform == WC_TRANSFORM_DCT ? "the DCT" : "the LOT");
        WC_RETURN_IF(p->wavelet == 97, err, WC_ERR_ARG,
                     "lossless coding needs the 5/3 wavelet (9/7 is not reversible)");
        return WC_OK;
    }
    WC_RETURN_IF(!(p->quality >= 0 && p->quality <= 100), err, WC_ERR_ARG,
                 "quality %g out of range 1..100", p->quality);
    WC_RETURN_IF(!(p->step >= 0 && p->step < 1e9f), err, WC_ERR_ARG, "step %g out of range",
                 p->step);
    WC_RETURN_IF(!(p->bpp >= 0 && p->bpp < 1e4f), err, WC_ERR_ARG, "bpp %g out of range", p->bpp);
    WC_RETURN_IF(!(p->threshold >= 0 && p->threshold < 1e9f), err, WC_ERR_ARG,
                 "threshold %g out of range", p->threshold);
    return WC_OK;
}

float plan_step_for_quality(float q)
{
    if (q < 1) q = 1;
    if (q > 100) q = 100;
    /* Geometric: every 10 points of quality halve the step; 100 is nearly
     * lossless (step 0.5 in sample units). */
    return 0.5f * powf(2.0f, (100.0f - q) / 10.0f);
}

float plan_base_step(const wc_params *p)
{
    if (p->lossless) return 1.0f;
    return p->step > 0 ? p->step : plan_step_for_quality(p->quality > 0 ? p->quality : 75.0f);
}

int plan_levels(uint32_t w, uint32_t h, uint32_t bit_depth, int levels)
{
    int cap = dwt_max_levels(w, h);
    /* Integer 5/3 coefficients grow by at most 2.25x a level in the worst
     * case; keep (bit_depth + 1 + 1.17 * levels) under 31 bits. */
    int headroom = (int)((30.0 - (bit_depth + 1)) / 1.17);
    if (cap > headroom) cap = headroom;
    return levels < cap ? levels : cap;
}

/* JPEG's Annex K luminance table (K.1), raster order: the visual weighting
 * of the 8x8 frequencies. wcodec takes it to a small power: a flat matrix
 * minimises mean squared error, the full table favours the eye; a mild
 * tilt measured best in PSNR on Kodak (README). */
static const uint8_t annex_k_luma[64] = {
    16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
    14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
    18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
#ifndef WC_QMATRIX_POWER
#define WC_QMATRIX_POWER 0.125
#endif

/* Squared norms of the inverse ICT's columns over 3: how much noise in
 * each of Y, Cb, Cr costs in RGB mean squared error. */
static const double ict_weight[3] = {1.0, 3.2584 / 3.0, 2.4756 / 3.0};

void plan_set_step(wcx_header *h, float step)
{
    h->base_step = step;
    for (uint32_t c = 0; c < h->components; c++) {
        int lossless_comp = dwt_family(h->wavelet[c]) == 53 &&
                            ((h->flags & 1) || layout_is_alpha(h->components, c));
        double cw = h->colour == WC_COLOUR_ICT && c < 3 ? ict_weight[c] : 1.0;
        if (layout_comp_transform(h, c) != WC_TRANSFORM_DWT) {
            for (unsigned f = 0; f < 64; f++)
                h->steps[c][f] =
                    (float)(step / sqrt(cw) * pow(annex_k_luma[f] / 16.0, WC_QMATRIX_POWER));
            continue;
        }
        dwt_band b[3 * WC_MAX_LEVELS + 1];
        unsigned nb = dwt_bands(h->width, h->height, h->levels, b);
        for (unsigned i = 0; i < nb; i++) {
            double g =
                dwt_band_gain(h->wavelet[c], b[i].level ? b[i].level : h->levels, b[i].orient);
            h->steps[c][i] = lossless_comp ? 1.0f : (float)(step / sqrt(g * cw));
        }
        for (unsigned i = nb; i < WCX_MAX_STEPS; i++) h->steps[c][i] = 1.0f;
    }
}

int plan_wavelet(const wc_params *p, int family)
{
    if (p->dwt_scheme == WC_DWT_MONOLITHIC) return family == 53 ? DWT_53_MONO : DWT_97_MONO;
    if (p->dwt_scheme == WC_DWT_EXPLOSIVE) return family == 53 ? DWT_53_EXPL : DWT_97_EXPL;
    return family;
}

/* Block side 0 (the default) is 64 for lossy Huffman (entropy 0): a
 * quarter of the serial chain a block, so the CUDA decoder, one thread a
 * block, decodes the 8K photo's blocks in 2.6 ms instead of 5.3 and a
 * Kodak batch 1.5x faster, for files 0.2-0.4% larger on Kodak (0.07 dB at
 * the same rate; cuda/PERF_NOTES.md, "Code blocks of 64"). Lossless files
 * keep 128: their decode gains less and their device encode loses more
 * (count and emit walk a block a row at a time); tiles (entropy 2) have
 * their parallelism inside the block, arith and deflate are host-coded. */
int plan_block_side(const wc_params *p)
{
    if (p->block_size) return p->block_size;
    return !p->lossless && p->entropy == WC_ENTROPY_HUFFMAN ? 64 : 128;
}

void plan_header(const wc_params *p, const wc_image *img, float step, wcx_header *h)
{
    memset(h, 0, sizeof *h);
    h->width = img->width;
    h->height = img->height;
    h->components = (uint8_t)img->components;
    h->bit_depth = (uint8_t)img->bit_depth;
    h->transform = (uint8_t)(p->lossless ? WC_TRANSFORM_DWT : p->transform);
    h->entropy = (uint8_t)p->entropy;
    h->block_log2 = (uint8_t)(31 - __builtin_clz((unsigned)plan_block_side(p)));
    h->flags = p->lossless ? 1 : 0;
    /* The encoder resolves WC_LEVELS_AUTO before it plans; 5 if not. */
    const int levels = p->levels == WC_LEVELS_AUTO ? 5 : p->levels;
    h->levels = (uint8_t)plan_levels(img->width, img->height, img->bit_depth, levels);
    int wav = p->lossless ? 53 : (p->wavelet ? p->wavelet : 97);
    int colour_comps = img->components >= 3;
    h->colour = colour_comps ? (wav == 53 ? WC_COLOUR_RCT : WC_COLOUR_ICT) : WC_COLOUR_NONE;
    if (colour_comps && !p->lossless && h->transform != WC_TRANSFORM_DWT) h->colour = WC_COLOUR_ICT;
    for (uint32_t c = 0; c < img->components; c++)
        h->wavelet[c] = (uint8_t)plan_wavelet(
            p, layout_is_alpha(img->components, c) ? 53
                                                   : (h->transform != WC_TRANSFORM_DWT ? 97 : wav));
    h->recon = p->lossless ? 0.0f : 0.4f;
    h->nsteps = h->transform != WC_TRANSFORM_DWT ? 64 : (uint8_t)(3 * h->levels + 1);
    if (h->transform != WC_TRANSFORM_DWT && (img->components == 2 || img->components == 4)) {
        /* Alpha stays on the DWT 5/3 and needs its band steps too. */
        uint8_t alpha_bands = (uint8_t)(3 * h->levels + 1);
        if (alpha_bands > h->nsteps) h->nsteps = alpha_bands;
    }
    plan_set_step(h, p->lossless ? 1.0f : step);
    /* The lowest version that describes these choices: a file using nothing
     * newer stays a 1.0 file. Code that changes a coding field after this
     * stamps again. */
    wcx_header_stamp_version(h);
}

void plan_from_header(const wcx_header *h, float threshold, wc_stage_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->width = h->width;
    plan->height = h->height;
    plan->components = h->components;
    plan->bit_depth = h->bit_depth;
    plan->colour = h->colour;
    plan->levels = h->levels;
    plan->recon = h->recon;
    plan->quantize = 1;
    for (uint32_t c = 0; c < h->components; c++) {
        plan->transform[c] = layout_comp_transform(h, c);
        plan->wavelet[c] = h->wavelet[c];
        memcpy(plan->steps[c], h->steps[c], sizeof plan->steps[c]);
        int exact = dwt_family(plan->wavelet[c]) == 53 && plan->transform[c] == WC_TRANSFORM_DWT &&
                    ((h->flags & 1) || layout_is_alpha(h->components, c));
        plan->threshold[c] = exact ? 0.0f : threshold;
    }
}
