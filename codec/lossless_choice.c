/* lossless_choice.c -- see lossless_choice.h. */
#include "lossless_choice.h"
#include "wc_common.h"

#include <string.h>

/* Where the samples are read from: the image's interleaved rows, every
 * lc_row_step-th of them, or (sampled) an image of just those rows, which
 * the encoder brings to the host for pixels in device memory. Both give
 * the same answer for the same image. */
typedef struct lc_source {
    const wc_image *img;
    int sampled;
} lc_source;

static int64_t sample_at(const lc_source *src, uint32_t x, uint32_t y, uint32_t c)
{
    const wc_image *img = src->img;
    const uint8_t *row = (const uint8_t *)img->pixels + (size_t)y * wc_row_stride(img);
    const size_t i = (size_t)x * img->components + c;
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

uint32_t lc_row_step(const wc_image *img)
{
    /* Rows spread over the image, about 2^20 samples in all. */
    const uint32_t step =
        (uint32_t)((uint64_t)img->width * img->components * img->height / (1u << 20));
    return step < 1 ? 1 : step;
}

/* Equal samples of a[0..n) and b[0..n) of type T: a step compares 16
 * bytes' worth into counters of T's width (LANES of them), each over at
 * most RUN / LANES steps (255 for bytes), then added up. The loop
 * vectorizes at -O2 too, where `count += a[i] == b[i]` does not: the 8K
 * photo's check took 0.43 ms at -O2 against 0.035 (0.06 at -O3). */
#define LC_EQUAL_COUNT(name, T, LANES, RUN)                                               \
    static uint64_t name(const T *a, const T *b, size_t n)                                \
    {                                                                                     \
        uint64_t same = 0;                                                                \
        size_t i = 0;                                                                     \
        while (n - i >= (LANES)) {                                                        \
            const size_t end = i + (n - i < (RUN) ? (n - i) / (LANES) * (LANES) : (RUN)); \
            T lane[LANES] = {0};                                                          \
            for (; i < end; i += (LANES))                                                 \
                for (int l = 0; l < (LANES); l++) lane[l] += (T)(a[i + l] == b[i + l]);   \
            for (int l = 0; l < (LANES); l++) same += lane[l];                            \
        }                                                                                 \
        for (; i < n; i++) same += a[i] == b[i];                                          \
        return same;                                                                      \
    }
LC_EQUAL_COUNT(equal_bytes, uint8_t, 16, 4080)
LC_EQUAL_COUNT(equal_words, uint16_t, 8, 32760)

/* Samples of row y equal to their left neighbour (same component):
 * interleaved rows compared with themselves one pixel on, loops the
 * compiler vectorizes (a call per sample cost ~4 ms on a Kodak image, a
 * large part of a lossless encode's host time in a batch). */
static uint64_t same_in_row(const lc_source *src, uint32_t y)
{
    const wc_image *img = src->img;
    const uint32_t w = img->width, comps = img->components;
    uint64_t same = 0;
    const size_t n = (size_t)w * comps;
    const uint8_t *row = (const uint8_t *)img->pixels + (size_t)y * wc_row_stride(img);
    if (n <= comps) return 0;
    if (img->bit_depth > 8) {
        const uint16_t *r = (const uint16_t *)(const void *)row;
        same = equal_words(r + comps, r, n - comps);
    } else {
        same = equal_bytes(row + comps, row, n - comps);
    }
    return same;
}

/* Reads every lc_row_step-th row of an image, or every row of a sampled
 * one (those rows alone). Stops
 * as soon as the answer cannot change: once the set holds more than
 * `few` pixels, the repeats so far (or those still possible) settle it. */
static int looks_synthetic(const lc_source *src)
{
    const wc_image *img = src->img;
    const uint64_t pixels = (uint64_t)img->width * img->height;
    if (!src->sampled && pixels <= LC_SMALL_PIXELS) return 1;
    const uint32_t w = img->width, comps = img->components;
    const uint32_t step = src->sampled ? 1 : lc_row_step(img);
    const uint64_t per_row = (uint64_t)(w - 1) * comps;
    const uint64_t rows = (img->height + (uint64_t)step - 1) / step;
    const uint64_t total = rows * per_row; /* what the loop below would sum */
    uint64_t same = 0, seen = 0;
    const uint32_t few = comps == 1 && img->bit_depth <= 8 ? LC_FEW_GREYS : LC_FEW_COLOURS;
    colour_set cs;
    memset(&cs, 0, sizeof cs);
    for (uint32_t y = 0; y < img->height; y += step) {
        same += same_in_row(src, y);
        seen += per_row;
        for (uint32_t x = 0; x < w && cs.count <= few; x++) {
            uint64_t key = 0;
            for (uint32_t c = 0; c < comps; c++)
                key = key << 16 | (uint16_t)(sample_at(src, x, y, c) & 0xFFFF);
            colour_add(&cs, key);
        }
        if (cs.count > few) {
            if (total > 0 && same * 4 >= total) return 1;
            if ((same + (total - seen)) * 4 < total) return 0;
        }
    }
    /* Flat areas (a quarter of the samples repeat their left neighbour;
     * photographs: under a tenth), or a palette's few colours (few grey
     * levels). */
    return (total > 0 && same * 4 >= total) || cs.count <= few;
}

int lc_looks_synthetic(const wc_image *img)
{
    const lc_source src = {img, 0};
    return looks_synthetic(&src);
}

int lc_rows_look_synthetic(const wc_image *rows)
{
    const lc_source src = {rows, 1};
    return looks_synthetic(&src);
}

uint64_t lc_filtered_memory(const wc_image *img)
{
    const uint64_t w = img->width, h = img->height;
    return 4 * (w * h * (img->bit_depth > 8 ? 4 : 2) + h) * img->components;
}

int lc_candidates(const wc_params *p, const wc_image *img, int synthetic, lc_candidate *out)
{
    memset(out, 0, sizeof *out * LC_MAX_CANDIDATES);
    out[0].p = *p;
    out[0].p.levels = LC_DEFAULT_LEVELS;
    if (!p->lossless || !synthetic) return 1;
    /* No transform: the samples (after the RCT) as one LL band, predicted
     * by MED; with the context Huffman coder, and with deflate at its
     * strongest, whose matches find repeated patterns (glyphs, tiles).
     * Colour images also without the RCT: a palette's colours or a few
     * levels per channel keep their edges in one component instead of
     * three (on the graphics set up to 30% smaller, or twice the size:
     * so both are tried). A caller who asked for the tiled Huffman blocks
     * (entropy 2: a warp decodes a block) keeps them: no deflate, whose
     * blocks decode on the host only. One who asked for arithmetic coding
     * (entropy 3) gets it in place of the Huffman coder. */
    const int tiles = p->entropy == WC_ENTROPY_HUFFMAN_TILES;
    const wc_entropy coder = p->entropy == WC_ENTROPY_ARITH ? WC_ENTROPY_ARITH : WC_ENTROPY_HUFFMAN;
    int n = 1;
    for (int nc = 0; nc < (img->components >= 3 ? 2 : 1); nc++) {
        out[n].p = *p;
        out[n].p.levels = 0;
        out[n].p.entropy = tiles ? WC_ENTROPY_HUFFMAN_TILES : coder;
        out[n].no_colour = nc;
        n++;
        if (tiles) continue;
        out[n].p = *p;
        out[n].p.levels = 0;
        out[n].p.entropy = WC_ENTROPY_DEFLATE;
        out[n].p.deflate_level = 9;
        out[n].no_colour = nc;
        n++;
        /* And as PNG codes them (format 2.0, entropy 4): row filters over
         * the samples packed at the fewest bits, one deflate stream a
         * plane; smaller than both on most graphics, whose repeats a
         * whole-plane window finds (bench/compression.sh --graphics). */
        if (p->max_memory && wc_encode_memory(img, p) + lc_filtered_memory(img) > p->max_memory)
            continue;
        out[n].p = *p;
        out[n].p.levels = 0;
        out[n].p.entropy = WC_ENTROPY_FILTERED;
        out[n].no_colour = nc;
        n++;
    }
    return n;
}
