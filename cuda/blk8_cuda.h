/*
 * blk8_cuda.h -- the CUDA backend's block transforms (8x8 DCT and LOT) for
 * one component, fused with everything around them so that each direction
 * is one kernel launch per component:
 *
 *   forward: samples -> level shift + forward colour -> blk8_pad mirroring
 *            -> 2-D transform -> quantized int32 (or raw float) coefficients
 *   inverse: int32 coefficients -> dequantize -> inverse 2-D transform ->
 *            crop -> rounded, clamped samples (or a float plane that the
 *            inverse colour transform reads later)
 *
 * The arithmetic is transform/dct8.h and transform/lot8.h copied statement
 * for statement, with quantization and padding as common/backend.h states,
 * so the coefficients and pixels are the CPU backend's bits. C++ (CUDA)
 * only: nothing outside cuda/ sees it. All pointers are device pointers.
 */
#ifndef WC_BLK8_CUDA_H
#define WC_BLK8_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "dwt_cuda.h" /* wcg_samples */

typedef struct wcg_blk8_job {
    uint32_t width, height; /* the component's samples */
    uint32_t pw, ph;        /* the coefficient plane: both rounded up to 8 */
    wcg_samples samples;    /* samples.comp is the component */
    /* pw x ph, row pitch pw: the forward writes int32 (quantize) or float
     * (raw) coefficients; the inverse reads int32 ones. */
    void *coef;
    /* Inverse: a width x height float plane (pitch width) for a component
     * that the inverse colour transform joins later; NULL writes samples. */
    float *plane;
    int quantize;    /* forward only */
    float steps[64]; /* by (y & 7) * 8 + (x & 7) */
    float threshold;
    float recon;
} wcg_blk8_job;

cudaError_t wcg_dct8_forward(const wcg_blk8_job *job, cudaStream_t st);
cudaError_t wcg_dct8_inverse(const wcg_blk8_job *job, cudaStream_t st);
cudaError_t wcg_lot8_forward(const wcg_blk8_job *job, cudaStream_t st);
cudaError_t wcg_lot8_inverse(const wcg_blk8_job *job, cudaStream_t st);

#endif /* WC_BLK8_CUDA_H */
