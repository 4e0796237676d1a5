/*
 * dwt_bands.c -- subband geometry of the Mallat decomposition and the
 * synthesis gains that weight each band's quantizer step.
 */
#include "dwt.h"
#include "dwt_internal.h"

enum { DWT_MAX_LEVELS = 15 };

int dwt_max_levels(uint32_t w, uint32_t h)
{
    int levels = 0;
    if (w == 0 || h == 0) return 0;
    while ((w > 1 || h > 1) && levels < DWT_MAX_LEVELS) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        levels++;
    }
    return levels;
}

static dwt_band dwt_band_make(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, int level,
                              int orient)
{
    dwt_band b = {x0, y0, w, h, (uint8_t)level, (uint8_t)orient};
    return b;
}

unsigned dwt_bands(uint32_t w, uint32_t h, int levels, dwt_band *bands)
{
    if (levels < 0) levels = 0;
    unsigned k = 0;
    bands[k++] =
        dwt_band_make(0, 0, dwt_level_size(w, levels), dwt_level_size(h, levels), levels, DWT_LL);
    for (int l = levels; l >= 1; l--) {
        /* Level l splits the region left by level l - 1 into low and high. */
        const uint32_t pw = dwt_level_size(w, l - 1), ph = dwt_level_size(h, l - 1);
        const uint32_t lw = (pw + 1) / 2, lh = (ph + 1) / 2;
        bands[k++] = dwt_band_make(lw, 0, pw - lw, lh, l, DWT_HL);
        bands[k++] = dwt_band_make(0, lh, lw, ph - lh, l, DWT_LH);
        bands[k++] = dwt_band_make(lw, lh, pw - lw, ph - lh, l, DWT_HH);
    }
    return k;
}

size_t dwt_scratch_elems(uint32_t w, uint32_t h)
{
    const size_t strip = (size_t)DWT_STRIP * h;
    return strip > w ? strip : w;
}

/* 1-D synthesis energy gains, [wavelet][0 low, 1 high][level - 1]: the
 * squared L2 norm of the multi-level 1-D inverse of a unit coefficient at
 * the centre of that band, computed in double with the lifting steps of
 * dwt.h (5/3 without rounding) on a signal of 32 * 2^level samples, far
 * longer than the filters' reach. tests/transform/test_dwt97.c recomputes
 * them with the library's own inverse transforms. The 5/3 values match
 * OpenJPEG's opj_dwt_norms table (which lists square roots of 2-D gains). */
static const double dwt_gain_1d[2][2][DWT_MAX_LEVELS] = {
    {/* 5/3 */
     {1.5, 2.75, 5.375, 10.6875, 21.34375, 42.671875, 85.3359375, 170.66796875, 341.333984375,
      682.6669921875, 1365.33349609375, 2730.666748046875, 5461.3333740234375, 10922.666687011719,
      21845.333343505859},
     {0.71875, 0.921875, 1.5859375, 3.04296875, 6.021484375, 12.0107421875, 24.00537109375,
      48.002685546875, 96.0013427734375, 192.00067138671875, 384.00033569335938, 768.00016784667969,
      1536.0000839233398, 3072.0000419616699, 6144.000020980835}},
    {/* 9/7 */
     {1.9659073145753025, 4.1224098739690573, 8.4167441779528485, 16.935572073022087,
      33.924926802208432, 67.877165259519671, 135.76804711721542, 271.54296099899426,
      543.0893565301393, 1086.1804304797579, 2172.3617196894802, 4344.7238687465424,
      8689.4479521772719, 17378.896011696281, 34757.792077063859},
     {0.52021798189746105, 0.96721580603298019, 2.0792555749516386, 4.3004822781968262,
      8.6867239278357538, 17.418848971688437, 34.860785975141773, 69.733172055416745,
      139.47215198302925, 278.94720896489724, 557.89587057105712, 1115.7924674814069,
      2231.5852981349353, 4463.1707778561668, 8926.341646505889}},
};

double dwt_band_gain(int wavelet, int level, int orient)
{
    wavelet = dwt_family(wavelet);
    if (wavelet == 0 || level < 0 || level > DWT_MAX_LEVELS) return 0;
    if (orient < DWT_LL || orient > DWT_HH) return 0;
    if (level == 0) return orient == DWT_LL ? 1.0 : 0.0;
    const double *low = dwt_gain_1d[wavelet == 97][0], *high = dwt_gain_1d[wavelet == 97][1];
    /* Bit 0 of orient: high-pass along rows (HL, HH); bit 1: along columns. */
    const double row = (orient & 1) ? high[level - 1] : low[level - 1];
    const double col = (orient & 2) ? high[level - 1] : low[level - 1];
    return row * col;
}
