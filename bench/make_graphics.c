/*
 * make_graphics.c -- writes the graphics set of bench/compression.sh: small
 * synthetic images of the kinds photographs are not (text, a chart, a
 * screenshot-like layout, line art, 2- to 16-level gray, palette images,
 * 8 and 16 bit, 1 to 4 components, a 1x1 and a 1xN image), on which a
 * codec should be no worse than PNG. Deterministic: the same files on
 * every machine, so they need not be committed.
 *
 * usage: make_graphics OUT_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"

static uint32_t rng_state = 12345u;

static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

typedef struct canvas {
    wc_image img;
    uint8_t *p8;
    uint16_t *p16;
} canvas;

static canvas canvas_new(uint32_t w, uint32_t h, uint32_t comps, uint32_t depth)
{
    canvas c;
    memset(&c, 0, sizeof c);
    c.img.width = w;
    c.img.height = h;
    c.img.components = comps;
    c.img.bit_depth = depth;
    size_t n = (size_t)w * h * comps;
    if (depth > 8)
        c.img.pixels = c.p16 = calloc(n, 2);
    else
        c.img.pixels = c.p8 = calloc(n, 1);
    if (!c.img.pixels) {
        fprintf(stderr, "make_graphics: out of memory\n");
        exit(1);
    }
    return c;
}

static void put(canvas *c, uint32_t x, uint32_t y, const unsigned *v)
{
    if (x >= c->img.width || y >= c->img.height) return;
    size_t i = ((size_t)y * c->img.width + x) * c->img.components;
    for (uint32_t k = 0; k < c->img.components; k++) {
        if (c->p16)
            c->p16[i + k] = (uint16_t)v[k];
        else
            c->p8[i + k] = (uint8_t)v[k];
    }
}

static void fill(canvas *c, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const unsigned *v)
{
    for (uint32_t y = y0; y < y0 + h; y++)
        for (uint32_t x = x0; x < x0 + w; x++) put(c, x, y, v);
}

/* Pseudo-glyphs: a 5x7 cell of pixels chosen by the character's hash, so
 * lines of them have the statistics of text (strokes, repeats). */
static void text(canvas *c, uint32_t x0, uint32_t y0, uint32_t cols, uint32_t rows,
                 const unsigned *ink)
{
    static uint64_t glyph[26];
    if (!glyph[0])
        for (int g = 0; g < 26; g++) glyph[g] = ((uint64_t)rng() << 24) ^ rng();
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t k = 0; k < cols; k++) {
            uint32_t ch = rng() % 32;
            if (ch >= 26) continue; /* a space */
            for (int b = 0; b < 35; b++)
                if ((glyph[ch] >> b) & 1)
                    put(c, x0 + k * 6 + (uint32_t)(b % 5), y0 + r * 10 + (uint32_t)(b / 5), ink);
        }
}

static void line(canvas *c, int x0, int y0, int x1, int y1, const unsigned *v)
{
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int e = dx + dy;
    for (;;) {
        put(c, (uint32_t)x0, (uint32_t)y0, v);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * e;
        if (e2 >= dy) e += dy, x0 += sx;
        if (e2 <= dx) e += dx, y0 += sy;
    }
}

static void save(const char *dir, const char *name, canvas *c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    wc_err err;
    if (png_write_file(path, &c->img, &err) != WC_OK) {
        fprintf(stderr, "make_graphics: %s: %s\n", path, err.msg);
        exit(1);
    }
    free(c->img.pixels);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_graphics OUT_DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    const unsigned white[4] = {255, 255, 255, 255}, black[4] = {0, 0, 0, 255},
                   blue[4] = {40, 80, 200, 255}, red[4] = {220, 50, 40, 255},
                   green[4] = {40, 160, 70, 255}, grey[4] = {200, 200, 200, 255};

    canvas c = canvas_new(320, 200, 1, 8); /* text, gray */
    fill(&c, 0, 0, 320, 200, white);
    text(&c, 4, 4, 52, 19, black);
    save(dir, "text_gray", &c);

    c = canvas_new(320, 240, 3, 8); /* a bar chart */
    fill(&c, 0, 0, 320, 240, white);
    for (uint32_t y = 20; y < 220; y += 20) line(&c, 30, (int)y, 310, (int)y, grey);
    line(&c, 30, 10, 30, 220, black);
    line(&c, 30, 220, 310, 220, black);
    for (uint32_t b = 0; b < 9; b++) {
        uint32_t hgt = 20 + rng() % 180;
        fill(&c, 40 + b * 30, 220 - hgt, 20, hgt, b % 3 == 0 ? blue : b % 3 == 1 ? red : green);
    }
    text(&c, 40, 226, 40, 1, black);
    save(dir, "chart_rgb", &c);

    c = canvas_new(400, 300, 3, 8); /* a screenshot-like layout */
    fill(&c, 0, 0, 400, 300, grey);
    for (uint32_t w = 0; w < 3; w++) {
        uint32_t x0 = 10 + w * 60, y0 = 10 + w * 50;
        fill(&c, x0, y0, 220, 160, white);
        for (uint32_t x = 0; x < 220; x++) { /* a title bar with a gradient */
            unsigned t[3] = {30 + x * 100 / 220, 60 + x * 80 / 220, 150};
            fill(&c, x0 + x, y0, 1, 16, t);
        }
        text(&c, x0 + 6, y0 + 22, 34, 13, black);
    }
    save(dir, "screen_rgb", &c);

    c = canvas_new(256, 256, 1, 8); /* line art */
    fill(&c, 0, 0, 256, 256, white);
    for (int k = 0; k < 40; k++)
        line(&c, (int)(rng() % 256), (int)(rng() % 256), (int)(rng() % 256), (int)(rng() % 256),
             black);
    for (int r = 20; r < 120; r += 25)
        for (int a = 0; a < 720; a++)
            put(&c, (uint32_t)(128 + r * cos(a * 3.14159265358979 / 360)),
                (uint32_t)(128 + r * sin(a * 3.14159265358979 / 360)), black);
    save(dir, "lineart_gray", &c);

    const unsigned levels[3] = {2, 4, 16};
    for (int k = 0; k < 3; k++) { /* n-level gray: a smooth field quantized */
        c = canvas_new(256, 192, 1, 8);
        for (uint32_t y = 0; y < 192; y++)
            for (uint32_t x = 0; x < 256; x++) {
                double f = 0.5 + 0.25 * sin(x / 23.0) + 0.25 * cos(y / 17.0 + x / 51.0);
                unsigned q = (unsigned)(f * levels[k]);
                if (q >= levels[k]) q = levels[k] - 1;
                unsigned v[1] = {q * 255 / (levels[k] - 1)};
                put(&c, x, y, v);
            }
        char name[32];
        snprintf(name, sizeof name, "gray%u_levels", levels[k]);
        save(dir, name, &c);
    }

    unsigned pal[256][3]; /* a palette image: 16, then 256 colours */
    for (int k = 0; k < 256; k++)
        for (int j = 0; j < 3; j++) pal[k][j] = rng() % 256;
    const unsigned ncol[2] = {16, 256};
    for (int k = 0; k < 2; k++) {
        c = canvas_new(240, 180, 3, 8);
        for (uint32_t y = 0; y < 180; y++)
            for (uint32_t x = 0; x < 240; x++) {
                double f = sin(x / 13.0) * cos(y / 19.0) + sin((x + y) / 31.0);
                unsigned q = (unsigned)((f + 2.0) / 4.0 * ncol[k]) % ncol[k];
                put(&c, x, y, pal[q]);
            }
        char name[32];
        snprintf(name, sizeof name, "palette%u_rgb", ncol[k]);
        save(dir, name, &c);
    }

    c = canvas_new(256, 256, 1, 16); /* a 16-bit chessboard */
    for (uint32_t y = 0; y < 256; y++)
        for (uint32_t x = 0; x < 256; x++) {
            unsigned v[1] = {((x / 32) ^ (y / 32)) & 1 ? 60000u : 1000u};
            put(&c, x, y, v);
        }
    save(dir, "chess_gray16", &c);

    c = canvas_new(200, 150, 3, 16); /* 16-bit RGB, few levels */
    for (uint32_t y = 0; y < 150; y++)
        for (uint32_t x = 0; x < 200; x++) {
            unsigned v[3] = {(x / 25) * 8000u, (y / 25) * 9000u, ((x + y) / 50) * 6000u};
            put(&c, x, y, v);
        }
    save(dir, "steps_rgb16", &c);

    c = canvas_new(64, 64, 4, 8); /* an RGBA icon */
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            int dx = (int)x - 32, dy = (int)y - 32;
            int in = dx * dx + dy * dy < 26 * 26;
            unsigned v[4] = {in ? 230u : 0u, in ? 120u + (unsigned)y : 0u, in ? 20u : 0u,
                             in ? 255u : 0u};
            put(&c, x, y, v);
        }
    save(dir, "icon_rgba", &c);

    c = canvas_new(1, 1, 3, 8); /* the smallest image */
    put(&c, 0, 0, red);
    save(dir, "pixel_1x1", &c);

    c = canvas_new(37, 1, 1, 8); /* a 1xN row */
    for (uint32_t x = 0; x < 37; x++) {
        unsigned v[1] = {x * 7};
        put(&c, x, 0, v);
    }
    save(dir, "row_37x1", &c);
    return 0;
}
