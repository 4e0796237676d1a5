/* colour.c -- level shift and colour transforms on the CPU (see backend.h). */
#include <math.h>

#include "colour.h"
#include "colour_transform.h"

#if defined(__GNUC__)
#define COLOUR_INLINE static inline __attribute__((always_inline))
#else
#define COLOUR_INLINE static inline
#endif

/* Sample x of component c in a row of nc-component pixels, 8 or 16 bit. */
COLOUR_INLINE int32_t get_px(const uint8_t *row, int wide, size_t i)
{
    return wide ? (int32_t)((const uint16_t *)(const void *)row)[i] : (int32_t)row[i];
}

COLOUR_INLINE void put_px(uint8_t *row, int wide, size_t i, int32_t v)
{
    if (wide)
        ((uint16_t *)(void *)row)[i] = (uint16_t)v;
    else
        row[i] = (uint8_t)v;
}

/* Each loop is written once per sample size so the compiler sees a
 * constant stride and element type (the depth test is out of the loop). */
void colour_extract(const wc_image *img, uint32_t c, int32_t *plane)
{
    const int32_t shift = level_shift(img->bit_depth);
    const uint32_t nc = img->components, w = img->width;
    const size_t stride = wc_row_stride(img);
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
    const int32_t shift = level_shift(img->bit_depth);
    const int32_t maxv = (int32_t)((1u << img->bit_depth) - 1);
    const uint32_t nc = img->components, w = img->width;
    const size_t stride = wc_row_stride(img);
    for (uint32_t y = 0; y < img->height; y++) {
        uint8_t *row = (uint8_t *)img->pixels + y * stride;
        const int32_t *in = plane + (size_t)y * w;
        if (img->bit_depth <= 8) {
            uint8_t *out = row + c;
            for (uint32_t x = 0; x < w; x++)
                out[(size_t)x * nc] = (uint8_t)unshift_sample(in[x], shift, maxv);
        } else {
            uint16_t *out = (uint16_t *)(void *)row + c;
            for (uint32_t x = 0; x < w; x++)
                out[(size_t)x * nc] = (uint16_t)unshift_sample(in[x], shift, maxv);
        }
    }
}

void colour_round_plane(const float *src, int32_t *dst, size_t n, uint32_t bit_depth)
{
    const float lo = -(float)level_shift(bit_depth);
    const float hi = (float)(level_shift(bit_depth) - 1);
    for (size_t i = 0; i < n; i++) dst[i] = round_sample(src[i], lo, hi);
}

/* ---- fused passes for three colour components --------------------------- */
/* One pass over the interleaved pixels instead of three strided passes
 * and a planar colour pass: the same arithmetic, in the same order, as
 * colour_extract + colour_rct/ict_forward and colour_rct/ict_inverse +
 * colour_round_plane + colour_insert, so the results are identical. */

COLOUR_INLINE void extract_rct_rows(const wc_image *img, int wide, int32_t *y, int32_t *u,
                                    int32_t *v)
{
    const int32_t shift = level_shift(img->bit_depth);
    const size_t nc = img->components, w = img->width, stride = wc_row_stride(img);
    for (uint32_t r = 0; r < img->height; r++) {
        const uint8_t *row = (const uint8_t *)img->pixels + r * stride;
        const size_t o = (size_t)r * w;
        for (size_t x = 0; x < w; x++) {
            const int32_t R = get_px(row, wide, x * nc) - shift,
                          G = get_px(row, wide, x * nc + 1) - shift,
                          B = get_px(row, wide, x * nc + 2) - shift;
            y[o + x] = rct_y(R, G, B);
            u[o + x] = rct_u(G, B);
            v[o + x] = rct_v(R, G);
        }
    }
}

void colour_extract_rct(const wc_image *img, int32_t *y, int32_t *u, int32_t *v)
{
    if (img->bit_depth > 8)
        extract_rct_rows(img, 1, y, u, v);
    else
        extract_rct_rows(img, 0, y, u, v);
}

COLOUR_INLINE void ict_row(const uint8_t *row, int wide, size_t nc, size_t w, int32_t shift,
                           float *y, float *cb, float *cr)
{
    for (size_t x = 0; x < w; x++) {
        const float R = (float)(get_px(row, wide, x * nc) - shift),
                    G = (float)(get_px(row, wide, x * nc + 1) - shift),
                    B = (float)(get_px(row, wide, x * nc + 2) - shift);
        y[x] = ict_y(R, G, B);
        cb[x] = ict_cb(R, G, B);
        cr[x] = ict_cr(R, G, B);
    }
}

COLOUR_INLINE void extract_ict_rows(const wc_image *img, int wide, float *y, float *cb, float *cr)
{
    const int32_t shift = level_shift(img->bit_depth);
    const size_t nc = img->components, w = img->width, stride = wc_row_stride(img);
    for (uint32_t r = 0; r < img->height; r++) {
        const size_t o = (size_t)r * w;
        ict_row((const uint8_t *)img->pixels + r * stride, wide, nc, w, shift, y + o, cb + o,
                cr + o);
    }
}

void colour_row_ict(const wc_image *img, uint32_t r, float *y, float *cb, float *cr)
{
    const int32_t shift = level_shift(img->bit_depth);
    const uint8_t *row = (const uint8_t *)img->pixels + r * wc_row_stride(img);
    if (img->bit_depth > 8)
        ict_row(row, 1, img->components, img->width, shift, y, cb, cr);
    else
        ict_row(row, 0, img->components, img->width, shift, y, cb, cr);
}

void colour_row_float(const wc_image *img, uint32_t r, uint32_t c, float *out)
{
    const int32_t shift = level_shift(img->bit_depth);
    const uint8_t *row = (const uint8_t *)img->pixels + r * wc_row_stride(img);
    const size_t nc = img->components;
    if (img->bit_depth > 8)
        for (size_t x = 0; x < img->width; x++)
            out[x] = (float)(get_px(row, 1, x * nc + c) - shift);
    else
        for (size_t x = 0; x < img->width; x++)
            out[x] = (float)(get_px(row, 0, x * nc + c) - shift);
}

void colour_extract_ict(const wc_image *img, float *y, float *cb, float *cr)
{
    if (img->bit_depth > 8)
        extract_ict_rows(img, 1, y, cb, cr);
    else
        extract_ict_rows(img, 0, y, cb, cr);
}

COLOUR_INLINE void insert_rct_rows(const int32_t *y, const int32_t *u, const int32_t *v,
                                   wc_image *img, int wide)
{
    const int32_t shift = level_shift(img->bit_depth);
    const int32_t maxv = (int32_t)((1u << img->bit_depth) - 1);
    const size_t nc = img->components, w = img->width, stride = wc_row_stride(img);
    for (uint32_t r = 0; r < img->height; r++) {
        uint8_t *row = (uint8_t *)img->pixels + r * stride;
        const size_t o = (size_t)r * w;
        for (size_t x = 0; x < w; x++) {
            const int32_t Y = y[o + x], U = u[o + x], V = v[o + x];
            const int32_t G = rct_g(Y, U, V);
            put_px(row, wide, x * nc, unshift_sample(rct_r(V, G), shift, maxv));
            put_px(row, wide, x * nc + 1, unshift_sample(G, shift, maxv));
            put_px(row, wide, x * nc + 2, unshift_sample(rct_b(U, G), shift, maxv));
        }
    }
}

void colour_insert_rct(const int32_t *y, const int32_t *u, const int32_t *v, wc_image *img)
{
    if (img->bit_depth > 8)
        insert_rct_rows(y, u, v, img, 1);
    else
        insert_rct_rows(y, u, v, img, 0);
}

COLOUR_INLINE void insert_ict_rows(const float *y, const float *cb, const float *cr, wc_image *img,
                                   int wide)
{
    const int32_t shift = level_shift(img->bit_depth);
    const int32_t maxv = (int32_t)((1u << img->bit_depth) - 1);
    const float lo = -(float)shift, hi = (float)(shift - 1);
    const size_t nc = img->components, w = img->width, stride = wc_row_stride(img);
    for (uint32_t r = 0; r < img->height; r++) {
        uint8_t *row = (uint8_t *)img->pixels + r * stride;
        const size_t o = (size_t)r * w;
        for (size_t x = 0; x < w; x++) {
            const float Y = y[o + x], Cb = cb[o + x], Cr = cr[o + x];
            const int32_t R = round_sample(ict_r(Y, Cr), lo, hi);
            const int32_t G = round_sample(ict_g(Y, Cb, Cr), lo, hi);
            const int32_t B = round_sample(ict_b(Y, Cb), lo, hi);
            put_px(row, wide, x * nc, unshift_sample(R, shift, maxv));
            put_px(row, wide, x * nc + 1, unshift_sample(G, shift, maxv));
            put_px(row, wide, x * nc + 2, unshift_sample(B, shift, maxv));
        }
    }
}

void colour_insert_ict(const float *y, const float *cb, const float *cr, wc_image *img)
{
    if (img->bit_depth > 8)
        insert_ict_rows(y, cb, cr, img, 1);
    else
        insert_ict_rows(y, cb, cr, img, 0);
}
