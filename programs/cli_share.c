/*
 * cli_share.c -- sharing a batch's files among MPI ranks by work (cli_mpi.c
 * sends the messages): an image's pixel count from its header alone, and
 * the deal, largest first to the least-loaded rank.
 *
 * Headers: PNG (IHDR), PGM/PPM (P5/P6), TIFF (the first IFD's ImageWidth
 * and ImageLength, either byte order) and .wcx (WHDR or WONE); at most 4 KiB of a
 * file is read (a TIFF's IFD may lie elsewhere: one more seek).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_batch.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* P5/P6: magic, then width and height as text, comments allowed. */
static uint64_t pnm_pixels(const uint8_t *b, size_t n)
{
    uint64_t v[2] = {0, 0};
    size_t i = 2;
    for (int k = 0; k < 2; k++) {
        for (;;) {
            while (i < n && isspace(b[i])) i++;
            if (i < n && b[i] == '#') {
                while (i < n && b[i] != '\n') i++;
                continue;
            }
            break;
        }
        if (i >= n || !isdigit(b[i])) return 0;
        while (i < n && isdigit(b[i]) && v[k] < (1u << 30)) v[k] = v[k] * 10 + (b[i++] - '0');
    }
    return v[0] * v[1];
}

/* Classic TIFF: IFD entries of 12 bytes; width (256) and length (257) as
 * SHORT (3) or LONG (4). */
static uint64_t tiff_pixels(FILE *f, const uint8_t *b)
{
    const int le = b[0] == 'I';
    uint32_t (*r32)(const uint8_t *) = le ? le32 : be32;
    uint8_t ifd[2 + 64 * 12];
    if (fseek(f, (long)r32(b + 4), SEEK_SET) != 0) return 0;
    size_t got = fread(ifd, 1, sizeof ifd, f);
    if (got < 2) return 0;
    unsigned count = le ? (unsigned)(ifd[0] | ifd[1] << 8) : (unsigned)(ifd[0] << 8 | ifd[1]);
    uint64_t w = 0, h = 0;
    for (unsigned e = 0; e < count && 2 + (e + 1) * 12 <= got; e++) {
        const uint8_t *p = ifd + 2 + e * 12;
        unsigned tag = le ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
        unsigned type = le ? (unsigned)(p[2] | p[3] << 8) : (unsigned)(p[2] << 8 | p[3]);
        uint64_t val = type == 3
                           ? (le ? (uint64_t)(p[8] | p[9] << 8) : (uint64_t)(p[8] << 8 | p[9]))
                           : r32(p + 8);
        if (tag == 256) w = val;
        if (tag == 257) h = val;
    }
    return w * h;
}

uint64_t cli_image_pixels(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t b[4096];
    size_t n = fread(b, 1, sizeof b, f);
    uint64_t px = 0;
    if (n >= 24 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8) && !memcmp(b + 12, "IHDR", 4))
        px = (uint64_t)be32(b + 16) * be32(b + 20);
    else if (n >= 28 && !memcmp(b, "\x89WCX\r\n\x1a\n", 8) && !memcmp(b + 12, "WHDR", 4))
        px = (uint64_t)le32(b + 20) * le32(b + 24);
    else if (n >= 29 && !memcmp(b, "\x89WCX\r\n\x1a\n", 8) && !memcmp(b + 12, "WONE", 4) &&
             b[16] < 0x80) /* a single-chunk file: the record behind its 1-byte length */
        px = (uint64_t)le32(b + 21) * le32(b + 25);
    else if (n >= 3 && b[0] == 'P' && (b[1] == '5' || b[1] == '6'))
        px = pnm_pixels(b, n);
    else if (n >= 8 && (!memcmp(b, "II*\0", 4) || !memcmp(b, "MM\0*", 4)))
        px = tiff_pixels(f, b);
    fclose(f);
    return px;
}

typedef struct weight {
    uint64_t pixels;
    size_t file;
} weight;

static int heavier_first(const void *a, const void *b)
{
    const weight *x = a, *y = b;
    if (x->pixels != y->pixels) return x->pixels > y->pixels ? -1 : 1;
    return x->file < y->file ? -1 : x->file > y->file;
}

int cli_deal(const uint64_t *pixels, size_t n, int ranks, size_t *order, int *owner, uint64_t *load)
{
    weight *w = malloc((n ? n : 1) * sizeof *w);
    if (!w) return 1;
    for (size_t i = 0; i < n; i++) w[i] = (weight){pixels[i] ? pixels[i] : 1, i};
    qsort(w, n, sizeof *w, heavier_first);
    memset(load, 0, (size_t)ranks * sizeof *load);
    for (size_t k = 0; k < n; k++) {
        int best = 0;
        for (int q = 1; q < ranks; q++)
            if (load[q] < load[best]) best = q;
        load[best] += w[k].pixels;
        owner[w[k].file] = best;
        order[k] = w[k].file;
    }
    free(w);
    return 0;
}
