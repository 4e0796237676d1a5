/* colour.c -- level shift and colour transforms on the CPU (see backend.h). */
#include <math.h>

#include "colour.h"

static size_t row_stride(const wc_image *img)
{
    return img->stride ? img->stride : wc_image_row_bytes(img);
}

/* Each loop is written once per sample size so the compiler sees a
 * constant stride and element type (the depth test is out of the loop). */
void colour_extract(const wc_image *img, uint32_t c, int32_t *plane)
{
    const int32_t shift = 1 << (img->bit_depth - 1);
    const uint32_t nc = img->components, w = img->width;
    const size_t stride = row_stride(img);
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *row = (const uint8_t *)img->pixels + y * stride;
        int32_t *out = plane + (size_t)y * w;
        if (img->bit_depth <= 8) {
            const uint8_t *in = row + c;
            for (uint32_t x = 0; x < w; x++) out[x] = (int32_t)in[(size_t)x * nc] - shift;
        } else {
            const uint16_t *in = (const uint16_t *)(const void *)row + c;
            for (uint32_t x = 0; x < w; x++) out[x] = (int32_t)in[(size_t)x * nc] - shift;
        }
    }
}

void colour_insert(const int32_t *plane, uint32_t c, wc_image *img)
{
    const int32_t shift = 1 << (img->bit_depth - 1);
    const int32_t maxv = (int32_t)((1u << img->bit_depth) - 1);
    const uint32_t nc = img->components, w = img->width;
    const size_t stride = row_stride(img);
    for (uint32_t y = 0; y < img->height; y++) {
        uint8_t *row = (uint8_t *)img->pixels + y * stride;
        const int32_t *in = plane + (size_t)y * w;
        if (img->bit_depth <= 8) {
            uint8_t *out = row + c;
            for (uint32_t x = 0; x < w; x++) {
                /* Wrapping add: hostile coefficients may push values anywhere. */
                int32_t v = (int32_t)((uint32_t)in[x] + (uint32_t)shift);
                out[(size_t)x * nc] = (uint8_t)(v < 0 ? 0 : (v > maxv ? maxv : v));
            }
        } else {
            uint16_t *out = (uint16_t *)(void *)row + c;
            for (uint32_t x = 0; x < w; x++) {
                int32_t v = (int32_t)((uint32_t)in[x] + (uint32_t)shift);
                out[(size_t)x * nc] = (uint16_t)(v < 0 ? 0 : (v > maxv ? maxv : v));
            }
        }
    }
}

/* RCT arithmetic wraps through uint32 so that damaged files, whose
 * coefficients can be anything, never cause signed overflow. Valid data
 * never comes near the limits, so the results equal plain int math. */
static inline int32_t add_w(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t sub_w(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

void colour_rct_forward(int32_t *r, int32_t *g, int32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t R = r[i], G = g[i], B = b[i];
        r[i] = (R + 2 * G + B) >> 2;
        g[i] = B - G;
        b[i] = R - G;
    }
}

void colour_rct_inverse(int32_t *y, int32_t *u, int32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t Y = y[i], U = u[i], V = v[i];
        int32_t G = sub_w(Y, add_w(U, V) >> 2);
        y[i] = add_w(V, G); /* R */
        u[i] = G;
        v[i] = add_w(U, G); /* B */
    }
}

void colour_ict_forward(const int32_t *r, const int32_t *g, const int32_t *b, float *y,
                        float *cb, float *cr, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float R = (float)r[i], G = (float)g[i], B = (float)b[i];
        y[i] = (0.299f * R + 0.587f * G) + 0.114f * B;
        cb[i] = (-0.168736f * R + -0.331264f * G) + 0.5f * B;
        cr[i] = (0.5f * R + -0.418688f * G) + -0.081312f * B;
    }
}

void colour_ict_inverse(float *y, float *cb, float *cr, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float Y = y[i], Cb = cb[i], Cr = cr[i];
        y[i] = Y + 1.402f * Cr;
        cb[i] = (Y + -0.344136f * Cb) + -0.714136f * Cr;
        cr[i] = Y + 1.772f * Cb;
    }
}

void colour_round_plane(const float *src, int32_t *dst, size_t n, uint32_t bit_depth)
{
    const float lo = -(float)(1 << (bit_depth - 1));
    const float hi = (float)((1 << (bit_depth - 1)) - 1);
    for (size_t i = 0; i < n; i++) {
        float v = floorf(src[i] + 0.5f);
        v = v > hi ? hi : (v >= lo ? v : lo); /* NaN fails both tests: lo */
        dst[i] = (int32_t)v;
    }
}
