/*
 * quant.h -- deadzone scalar quantization and its inverse over whole
 * planes, per band (DWT) or per frequency of the 8x8 block (DCT/LOT), on
 * the CPU. The value arithmetic is transform/quantizer.h, which the CUDA
 * kernels compile too.
 */
#ifndef WC_QUANT_H
#define WC_QUANT_H

#include "backend.h"
#include "quantizer.h"

/* Per-sample step lookup for a plane: DWT planes step by band rectangle,
 * block planes by (y & 7) * 8 + (x & 7). */
typedef struct quant_layout {
    uint32_t width, height;
    int blocked; /* 1: DCT/LOT frequency steps */
    int levels;  /* DWT levels (when !blocked) */
} quant_layout;

/* In place on an int plane (5/3 coefficients). D == 1 and T == 0 leaves
 * the band untouched (lossless). */
void quant_int_plane(int32_t *plane, const quant_layout *lay, const float *steps, float threshold);
/* From a float plane into an int plane. */
void quant_float_plane(const float *src, int32_t *dst, const quant_layout *lay, const float *steps,
                       float threshold);
/* In place on an int plane; D == 1 is the identity. */
void dequant_int_plane(int32_t *plane, const quant_layout *lay, const float *steps, float recon);
/* From an int plane into a float plane. */
void dequant_float_plane(const int32_t *src, float *dst, const quant_layout *lay,
                         const float *steps, float recon);

#endif
