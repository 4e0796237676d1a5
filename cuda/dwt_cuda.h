/*
 * dwt_cuda.h -- the CUDA backend's internal interface: one call per DWT
 * level (forward and inverse, per wavelet), the level-0 and colour kernels,
 * and the driver that chains them for one component. backend_cuda.cu builds
 * these descriptions from a wc_stage_plan; bench_gpu.cu calls them directly
 * on device-resident data. C++ (CUDA) only: nothing outside cuda/ sees it.
 *
 * All pointers are device pointers; pitches count elements, not bytes.
 * A level transforms a w x h region (the current LL) exactly as dwt.h says:
 * vertical lifting then horizontal, low half first, whole-sample symmetric
 * extension, a length-1 direction left alone.
 */
#ifndef WC_DWT_CUDA_H
#define WC_DWT_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Interleaved image samples on the device: rows of width*comps samples of
 * `bytes` (1 or 2) each, `pitch` samples apart. A kernel reads or writes
 * component `comp`; `colour` (WC_COLOUR_*, already reduced to NONE for
 * images of fewer than 3 components) applies to components 0..2. */
typedef struct wcg_samples {
    void *px;
    size_t pitch;
    uint32_t comps, bytes, comp;
    int colour;
    int32_t shift;  /* 2^(bit_depth-1) */
    int32_t maxval; /* 2^bit_depth - 1 */
} wcg_samples;

/* One forward level. Level 1 reads the samples (level shift and colour
 * transform on the fly); deeper levels read the previous LL from `src`.
 * HL, LH, HH go to the Mallat coefficient plane `out` (and LL too when
 * `last`; otherwise LL goes to `ll` for the next level), quantized when
 * `quantize` (int32 out) or raw (int32 for 5/3, float for 9/7). */
typedef struct wcg_fwd_level {
    uint32_t w, h;
    int from_samples;
    wcg_samples samples;
    const void *src;
    size_t src_pitch;
    int last;
    void *ll;
    size_t ll_pitch;
    void *out;
    size_t out_pitch;
    int quantize;
    float step[4]; /* LL (used when last), HL, LH, HH */
    float threshold;
    int ll16; /* src (deeper levels) and ll are int16 planes (wcg_ll16) */
} wcg_fwd_level;

/* One inverse level: the inverse of wcg_fwd_level. HL, LH, HH (and LL when
 * `ll_from_coef`, the coarsest level) are dequantized from the int32 plane
 * `coef`; otherwise LL is the previous level's result in `ll`. The w x h
 * result goes to `dst` or, for level 1 of a component outside the colour
 * transform, straight to the samples (rounded, shifted, clamped). */
typedef struct wcg_inv_level {
    uint32_t w, h;
    int ll_from_coef;
    const void *ll;
    size_t ll_pitch;
    const int32_t *coef;
    size_t coef_pitch;
    float step[4];
    float recon;
    int to_samples;
    wcg_samples samples;
    void *dst;
    size_t dst_pitch;
} wcg_inv_level;

cudaError_t wcg_dwt53_forward_level(const wcg_fwd_level *lv, cudaStream_t st);
cudaError_t wcg_dwt97_forward_level(const wcg_fwd_level *lv, cudaStream_t st);
cudaError_t wcg_dwt53_inverse_level(const wcg_inv_level *lv, cudaStream_t st);
cudaError_t wcg_dwt97_inverse_level(const wcg_inv_level *lv, cudaStream_t st);
/* The same levels in the Monolithic scheme (wavelets 153, 197). */
cudaError_t wcg_dwt53m_forward_level(const wcg_fwd_level *lv, cudaStream_t st);
cudaError_t wcg_dwt97m_forward_level(const wcg_fwd_level *lv, cudaStream_t st);
cudaError_t wcg_dwt53m_inverse_level(const wcg_inv_level *lv, cudaStream_t st);
cudaError_t wcg_dwt97m_inverse_level(const wcg_inv_level *lv, cudaStream_t st);
/* The same levels in the Explosive scheme (wavelets 203, 207). */
cudaError_t wcg_dwt53e_forward_level(const wcg_fwd_level *lv, cudaStream_t st);
cudaError_t wcg_dwt97e_forward_level(const wcg_fwd_level *lv, cudaStream_t st);
cudaError_t wcg_dwt53e_inverse_level(const wcg_inv_level *lv, cudaStream_t st);
cudaError_t wcg_dwt97e_inverse_level(const wcg_inv_level *lv, cudaStream_t st);

/* A wavelet identifier's level functions. */
typedef cudaError_t (*wcg_fwd_level_fn)(const wcg_fwd_level *lv, cudaStream_t st);
typedef cudaError_t (*wcg_inv_level_fn)(const wcg_inv_level *lv, cudaStream_t st);
wcg_fwd_level_fn wcg_forward_level_of(int wavelet);
wcg_inv_level_fn wcg_inverse_level_of(int wavelet);

/* Level 0 (no DWT): samples -> (colour) -> coefficients of band LL, and
 * back. is_float selects the 9/7 (float) arithmetic of the plane. */
cudaError_t wcg_forward_level0(const wcg_fwd_level *lv, int is_float, cudaStream_t st);
cudaError_t wcg_inverse_level0(const wcg_inv_level *lv, int is_float, cudaStream_t st);

/* Inverse colour transform of components 0..2 held in full-size planes
 * (int32 or float each, `pitch` apart), rounded, shifted, clamped and
 * interleaved into the samples. */
cudaError_t wcg_colour_inverse(const wcg_samples *s, uint32_t w, uint32_t h,
                               const void *const planes[3], const int is_float[3], size_t pitch,
                               cudaStream_t st);

/* Row pitch (elements) of the work planes that carry an LL of width w
 * between levels: rows start 128-byte aligned, so a warp's accesses line up
 * with cache lines and column pairs load as one vector. */
static inline size_t wcg_work_pitch(uint32_t w) { return ((size_t)w + 31) & ~(size_t)31; }

/* Elements of each of the two work planes a width x height component needs. */
static inline size_t wcg_work_elems(uint32_t width, uint32_t height)
{
    return wcg_work_pitch((width + 1) / 2) * ((height + 1) / 2);
}

/* One component through all levels. */
typedef struct wcg_component_job {
    uint32_t width, height;
    int levels;
    int wavelet; /* 53, 97, 153, 197, 203 or 207 (dwt.h) */
    wcg_samples samples;
    void *coef;         /* width x height Mallat plane, pitch = width */
    void *work[2];      /* each wcg_work_elems(width, height) elements */
    void *plane;        /* inverse: full-size result plane when the component
                        * goes through the colour transform, else NULL */
    int quantize;       /* forward only */
    const float *steps; /* 3*levels+1, dwt_bands order */
    float threshold;
    float recon;
} wcg_component_job;

/* Whether a forward job's LL planes between levels are int16 instead of
 * int32 (half the bytes those planes move): the separable 5/3 on samples
 * of one byte, at level counts where every such LL provably fits
 * (dwt_driver.cu has the proof), unless WCG_LL32=1 in the environment.
 * The inverse keeps int32 planes: a damaged file's coefficients bound
 * nothing. */
int wcg_ll16(const wcg_component_job *job);

/* Row pitch (elements) of an int16 LL plane of width w: 128-byte rows as
 * wcg_work_pitch's. Fits in the work planes: 2 * wcg_work_pitch16(w) <=
 * 4 * wcg_work_pitch(w) for every w. */
static inline size_t wcg_work_pitch16(uint32_t w) { return ((size_t)w + 63) & ~(size_t)63; }

cudaError_t wcg_forward_component(const wcg_component_job *job, cudaStream_t st);
cudaError_t wcg_inverse_component(const wcg_component_job *job, cudaStream_t st);

/* ---- level 1 in strips of rows (the upload's and download's overlap) ----
 *
 * A forward level-1 strip of pair rows [row0, row1) reads sample rows
 * below 2*row1 + WCG_FWD_REACH (or the mirrored ones of the image's last
 * rows): its lifting's halo and the kernel's prefetch (dwt_level.cuh
 * checks its wavelets against it). */
#define WCG_FWD_REACH 6

/* Whether level 1 of this wavelet comes in strips of rows: the separable
 * 5/3 and 9/7 (53, 97). */
static inline int wcg_strips_fit(int wavelet) { return wavelet == 53 || wavelet == 97; }

/* Level 1 (lv as wcg_forward_level / wcg_inverse_level describe it) on
 * its pair rows [row0, row1) only: output rows 2*row0 up to 2*row1. */
cudaError_t wcg_dwt53_forward_rows(const wcg_fwd_level *lv, uint32_t row0, uint32_t row1,
                                   cudaStream_t st);
cudaError_t wcg_dwt97_forward_rows(const wcg_fwd_level *lv, uint32_t row0, uint32_t row1,
                                   cudaStream_t st);
cudaError_t wcg_dwt53_inverse_rows(const wcg_inv_level *lv, uint32_t row0, uint32_t row1,
                                   cudaStream_t st);
cudaError_t wcg_dwt97_inverse_rows(const wcg_inv_level *lv, uint32_t row0, uint32_t row1,
                                   cudaStream_t st);

/* Forward: level 1 of pair rows [row0, row1), its LL to job->work[0];
 * then, once every strip is done, levels 2.. (work[0] read, work[1] the
 * other buffer of the ping-pong). Levels >= 1. */
cudaError_t wcg_forward_rows(const wcg_component_job *job, uint32_t row0, uint32_t row1,
                             cudaStream_t st);
cudaError_t wcg_forward_rest(const wcg_component_job *job, cudaStream_t st);

/* Inverse: levels down to 2, level 2's result left in job->work[0]; then
 * level 1 in strips of pair rows [row0, row1) (to the samples, or to
 * job->plane for the colour transform). Levels >= 1. */
cudaError_t wcg_inverse_rest(const wcg_component_job *job, cudaStream_t st);
cudaError_t wcg_inverse_rows(const wcg_component_job *job, uint32_t row0, uint32_t row1,
                             cudaStream_t st);

#endif /* WC_DWT_CUDA_H */
