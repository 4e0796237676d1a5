/*
 * metrics.h -- how far a decoded image is from its original, as compression
 * experiments report it: PSNR, maximum error and SSIM (metrics.c). Used by
 * the command and the tests; not part of libwcodec.
 */
#ifndef WC_METRICS_H
#define WC_METRICS_H

#include <stdint.h>

#include "wcodec.h"

/* PSNR peaks at 2^depth - 1; identical data gives INFINITY. "rgb" averages
 * the squared error over the colour channels (all but alpha), as codec
 * comparisons report it. */
typedef struct image_metrics {
    double psnr[4];  /* per component */
    double psnr_rgb; /* over the colour channels */
    double psnr_y;   /* of BT.601 luma (colour images; = psnr[0] for gray) */
    double mse_rgb;
    uint32_t max_abs_error; /* over all components */
    double ssim;            /* mean SSIM of luma, 11x11 Gaussian window */
} image_metrics;

/* Compares b with a (same size and layout) into *m. WC_ERR_ARG when either
 * is missing or they differ in size or layout; WC_ERR_NOMEM when SSIM's
 * work planes cannot be allocated. */
wc_status image_compare(const wc_image *a, const wc_image *b, image_metrics *m);

#endif /* WC_METRICS_H */
