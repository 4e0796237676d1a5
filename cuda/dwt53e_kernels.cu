/*
 * dwt53e_kernels.cu -- the 5/3 levels of the Explosive scheme
 * (dwt_mono_level.cuh), one file per wavelet so that nvcc compiles the two
 * in parallel. Levels of one row or one column are the separable ones
 * (dwt_expl.h).
 */
#include "dwt_mono_level.cuh"

cudaError_t wcg_dwt53e_forward_level(const wcg_fwd_level *lv, cudaStream_t st)
{
    using namespace wcg;
    if (lv->w < 2 || lv->h < 2) return wcg_dwt53_forward_level(lv, st);
    return lv->quantize ? mono_fwd_level<Expl53, KM, int32_t, true>(lv, st)
                        : mono_fwd_level<Expl53, KM, int32_t, false>(lv, st);
}

cudaError_t wcg_dwt53e_inverse_level(const wcg_inv_level *lv, cudaStream_t st)
{
    using namespace wcg;
    if (lv->w < 2 || lv->h < 2) return wcg_dwt53_inverse_level(lv, st);
    return mono_inv_level<Expl53, KM>(lv, st);
}
