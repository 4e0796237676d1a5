/* lossless_choice.c -- see lossless_choice.h. */
#include "lossless_choice.h"
#include "wc_common.h"

#include <string.h>

/* Images up to this many pixels always try every layout: the extra
 * encodes cost microseconds, and their fixed overheads differ most. */
#define LC_SMALL_PIXELS 4096u

static uint32_t sample_at(const wc_image *img, const uint8_t *row, uint32_t i)
{
    if (img->bit_depth > 8) return ((const uint16_t *)(const void *)row)[i];
    return row[i];
}

/* Counts the distinct pixels of the rows visited, up to LC_FEW_COLOURS + 1,
 * in an open-addressing set of LC_SET slots (four times the most kept).
 * An image of one component of at most 8 bits has at most 256 values
 * whatever it shows, so there "few" is LC_FEW_GREYS. */
#define LC_FEW_COLOURS 256u
#define LC_FEW_GREYS 32u
#define LC_SET 1024u

typedef struct colour_set {
    uint64_t key[LC_SET];
    uint8_t used[LC_SET];
    uint32_t count;
} colour_set;

static void colour_add(colour_set *cs, uint64_t key)
{
    uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 54) & (LC_SET - 1);
    while (cs->used[i]) {
        if (cs->key[i] == key) return;
        i = (i + 1) & (LC_SET - 1);
    }
    cs->used[i] = 1;
    cs->key[i] = key;
    cs->count++;
}

int lc_looks_synthetic(const wc_image *img)
{
    const uint64_t pixels = (uint64_t)img->width * img->height;
    if (pixels <= LC_SMALL_PIXELS) return 1;
    const size_t stride = wc_row_stride(img);
    const uint32_t n = img->width * img->components, comps = img->components;
    /* Rows spread over the image, about 2^20 samples in all. */
    uint32_t step = (uint32_t)((uint64_t)n * img->height / (1u << 20));
    if (step < 1) step = 1;
    uint64_t same = 0, total = 0;
    const uint32_t few = comps == 1 && img->bit_depth <= 8 ? LC_FEW_GREYS : LC_FEW_COLOURS;
    colour_set cs;
    memset(&cs, 0, sizeof cs);
    for (uint32_t y = 0; y < img->height; y += step) {
        const uint8_t *row = (const uint8_t *)img->pixels + (size_t)y * stride;
        for (uint32_t i = comps; i < n; i++)
            same += sample_at(img, row, i) == sample_at(img, row, i - comps);
        total += n - comps;
        for (uint32_t x = 0; x < n && cs.count <= few; x += comps) {
            uint64_t key = 0;
            for (uint32_t c = 0; c < comps; c++) key = key << 16 | sample_at(img, row, x + c);
            colour_add(&cs, key);
        }
    }
    /* Flat areas (a quarter of the samples repeat their left neighbour;
     * photographs: under a tenth), or a palette's few colours (few grey
     * levels). */
    return (total > 0 && same * 4 >= total) || cs.count <= few;
}

int lc_candidates(const wc_params *p, const wc_image *img, lc_candidate *out)
{
    memset(out, 0, sizeof *out * LC_MAX_CANDIDATES);
    out[0].p = *p;
    out[0].p.levels = LC_DEFAULT_LEVELS;
    if (!p->lossless || p->memory == WC_MEMORY_DEVICE || !lc_looks_synthetic(img)) return 1;
    /* No transform: the samples (after the RCT) as one LL band, predicted
     * by MED; with the context Huffman coder, and with deflate at its
     * strongest, whose matches find repeated patterns (glyphs, tiles).
     * Colour images also without the RCT: a palette's colours or a few
     * levels per channel keep their edges in one component instead of
     * three (on the graphics set up to 30% smaller, or twice the size:
     * so both are tried). */
    int n = 1;
    for (int nc = 0; nc < (img->components >= 3 ? 2 : 1); nc++) {
        out[n].p = *p;
        out[n].p.levels = 0;
        out[n].p.entropy = WC_ENTROPY_HUFFMAN;
        out[n].no_colour = nc;
        n++;
        out[n].p = *p;
        out[n].p.levels = 0;
        out[n].p.entropy = WC_ENTROPY_DEFLATE;
        out[n].p.deflate_level = 9;
        out[n].no_colour = nc;
        n++;
    }
    return n;
}
