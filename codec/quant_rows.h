/*
 * quant_rows.h -- quant.h's whole-plane passes on several threads: the
 * plane is cut into bands of rows, and every sample gets exactly the value
 * arithmetic of quant.c (transform/quantizer.h), so the result does not
 * depend on the thread count. threads: 0 = all cores, 1 = quant.c itself.
 */
#ifndef WC_QUANT_ROWS_H
#define WC_QUANT_ROWS_H

#include "quant.h"

void quant_int_plane_mt(int32_t *plane, const quant_layout *lay, const float *steps,
                        float threshold, int threads);
void quant_float_plane_mt(const float *src, int32_t *dst, const quant_layout *lay,
                          const float *steps, float threshold, int threads);
void dequant_int_plane_mt(int32_t *plane, const quant_layout *lay, const float *steps, float recon,
                          int threads);
void dequant_float_plane_mt(const int32_t *src, float *dst, const quant_layout *lay,
                            const float *steps, float recon, int threads);

#endif
