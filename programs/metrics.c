/*
 * metrics.c -- PSNR, maximum error and SSIM between two images, as
 * compression experiments report them (SSIM: Wang et al. 2004, on luma,
 * 11x11 Gaussian window with sigma 1.5, K1 = 0.01, K2 = 0.03).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static double sample(const wc_image *img, uint32_t x, uint32_t y, uint32_t c)
{
    size_t stride = img->stride ? img->stride : wc_image_row_bytes(img);
    const uint8_t *row = (const uint8_t *)img->pixels + y * stride;
    size_t i = (size_t)x * img->components + c;
    return img->bit_depth <= 8 ? row[i] : ((const uint16_t *)(const void *)row)[i];
}

static double luma(const wc_image *img, uint32_t x, uint32_t y)
{
    if (img->components < 3) return sample(img, x, y, 0);
    return 0.299 * sample(img, x, y, 0) + 0.587 * sample(img, x, y, 1) +
           0.114 * sample(img, x, y, 2);
}

static double psnr_of(double mse, double peak)
{
    return mse > 0 ? 10.0 * log10(peak * peak / mse) : INFINITY;
}

/* Separable Gaussian blur of a w x h double plane into dst. */
static void blur(const double *src, double *dst, double *tmp, uint32_t w, uint32_t h)
{
    double k[11], sum = 0;
    for (int i = 0; i < 11; i++) sum += k[i] = exp(-((i - 5) * (i - 5)) / (2 * 1.5 * 1.5));
    for (int i = 0; i < 11; i++) k[i] /= sum;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double a = 0, wsum = 0;
            for (int i = -5; i <= 5; i++) {
                int64_t xx = (int64_t)x + i;
                if (xx < 0 || xx >= w) continue;
                a += k[i + 5] * src[(size_t)y * w + xx];
                wsum += k[i + 5];
            }
            tmp[(size_t)y * w + x] = a / wsum;
        }
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double a = 0, wsum = 0;
            for (int i = -5; i <= 5; i++) {
                int64_t yy = (int64_t)y + i;
                if (yy < 0 || yy >= h) continue;
                a += k[i + 5] * tmp[(size_t)yy * w + x];
                wsum += k[i + 5];
            }
            dst[(size_t)y * w + x] = a / wsum;
        }
}

static wc_status ssim_of(const wc_image *a, const wc_image *b, double *out)
{
    const uint32_t w = a->width, h = a->height;
    const size_t n = (size_t)w * h;
    double *buf = n <= SIZE_MAX / (8 * sizeof(double)) ? malloc(n * 8 * sizeof(double)) : NULL;
    if (!buf) return WC_ERR_NOMEM;
    double *x = buf, *y = x + n, *xx = y + n, *yy = xx + n, *xy = yy + n, *t = xy + n;
    double *mx = t + n, *my = mx + n;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) {
            size_t k = (size_t)j * w + i;
            x[k] = luma(a, i, j);
            y[k] = luma(b, i, j);
        }
    for (size_t k = 0; k < n; k++) {
        xx[k] = x[k] * x[k];
        yy[k] = y[k] * y[k];
        xy[k] = x[k] * y[k];
    }
    blur(x, mx, t, w, h);
    blur(y, my, t, w, h);
    blur(xx, x, t, w, h); /* x, y now hold E[x^2], E[y^2] */
    blur(yy, y, t, w, h);
    blur(xy, xx, t, w, h); /* xx holds E[xy] */
    const double peak = (double)((1u << a->bit_depth) - 1);
    const double c1 = (0.01 * peak) * (0.01 * peak), c2 = (0.03 * peak) * (0.03 * peak);
    double sum = 0;
    for (size_t k = 0; k < n; k++) {
        double vx = x[k] - mx[k] * mx[k], vy = y[k] - my[k] * my[k], cov = xx[k] - mx[k] * my[k];
        sum += ((2 * mx[k] * my[k] + c1) * (2 * cov + c2)) /
               ((mx[k] * mx[k] + my[k] * my[k] + c1) * (vx + vy + c2));
    }
    *out = sum / (double)n;
    free(buf);
    return WC_OK;
}

wc_status image_compare(const wc_image *a, const wc_image *b, image_metrics *m)
{
    if (!a || !b || !m || !a->pixels || !b->pixels) return WC_ERR_ARG;
    if (a->width != b->width || a->height != b->height || a->components != b->components ||
        a->bit_depth != b->bit_depth || a->components < 1 || a->components > 4)
        return WC_ERR_ARG;
    memset(m, 0, sizeof *m);
    const double peak = (double)((1u << a->bit_depth) - 1);
    const uint32_t colours =
        a->components == 2 || a->components == 4 ? a->components - 1 : a->components;
    double se[4] = {0}, sey = 0;
    uint32_t maxe = 0;
    for (uint32_t y = 0; y < a->height; y++)
        for (uint32_t x = 0; x < a->width; x++) {
            for (uint32_t c = 0; c < a->components; c++) {
                double d = sample(a, x, y, c) - sample(b, x, y, c);
                se[c] += d * d;
                uint32_t ad = (uint32_t)fabs(d);
                if (ad > maxe) maxe = ad;
            }
            if (colours >= 3) {
                double d = luma(a, x, y) - luma(b, x, y);
                sey += d * d;
            }
        }
    const double n = (double)a->width * a->height;
    double sum = 0;
    for (uint32_t c = 0; c < a->components; c++) {
        m->psnr[c] = psnr_of(se[c] / n, peak);
        if (c < colours) sum += se[c];
    }
    m->mse_rgb = sum / (n * colours);
    m->psnr_rgb = psnr_of(m->mse_rgb, peak);
    m->psnr_y = colours >= 3 ? psnr_of(sey / n, peak) : m->psnr[0];
    m->max_abs_error = maxe;
    return ssim_of(a, b, &m->ssim);
}
