/*
 * dwt_driver.cu -- one component through all its DWT levels on the device:
 * which buffer each level reads and writes, its region, and the quantizer
 * steps of its bands. The LL between levels ping-pongs between two work
 * buffers (a level's halo reads must never see its own writes); the high
 * bands of every level go straight to their final place in the Mallat
 * coefficient plane, so each coefficient is written once.
 */
#include "dwt_cuda.h"

namespace
{

uint32_t level_size(uint32_t n, int levels)
{
    for (int l = 0; l < levels; ++l) n = (n + 1) / 2;
    return n;
}

/* Steps of level l's bands in dwt_bands order: LL first, then for level =
 * levels down to 1: HL, LH, HH. */
void level_steps(const float *steps, int levels, int l, float out[4])
{
    out[0] = steps[0];
    for (int b = 0; b < 3; ++b) out[1 + b] = steps[1 + 3 * (levels - l) + b];
}

/* Level l (1 = finest) of a forward job: its region, where it reads
 * (src; level 1 reads the samples) and where its LL goes (ll). */
void forward_level(const wcg_component_job *job, int l, const void *src, void *ll,
                   wcg_fwd_level *lv)
{
    lv->w = level_size(job->width, l - 1);
    lv->h = level_size(job->height, l - 1);
    lv->from_samples = l == 1;
    lv->src = src;
    lv->src_pitch = wcg_work_pitch(lv->w);
    lv->last = l == job->levels;
    lv->ll = lv->last ? NULL : ll;
    lv->ll_pitch = wcg_work_pitch((lv->w + 1) / 2);
    level_steps(job->steps, job->levels, l, lv->step);
}

/* Level l of an inverse job: its LL from ll (or from the plane at the
 * coarsest level), its result to dst (level 1: the samples or the colour
 * plane). */
void inverse_level(const wcg_component_job *job, int l, const void *ll, void *dst,
                   wcg_inv_level *lv)
{
    lv->w = level_size(job->width, l - 1);
    lv->h = level_size(job->height, l - 1);
    lv->ll_from_coef = l == job->levels;
    lv->ll = lv->ll_from_coef ? NULL : ll;
    lv->ll_pitch = wcg_work_pitch((lv->w + 1) / 2);
    lv->to_samples = l == 1 && job->plane == NULL;
    lv->dst = l == 1 ? job->plane : dst;
    lv->dst_pitch = l == 1 ? job->width : wcg_work_pitch(lv->w);
    level_steps(job->steps, job->levels, l, lv->step);
}

} /* namespace */

wcg_fwd_level_fn wcg_forward_level_of(int wavelet)
{
    switch (wavelet) {
    case 97: return wcg_dwt97_forward_level;
    case 153: return wcg_dwt53m_forward_level;
    case 197: return wcg_dwt97m_forward_level;
    case 203: return wcg_dwt53e_forward_level;
    case 207: return wcg_dwt97e_forward_level;
    default: return wcg_dwt53_forward_level;
    }
}

wcg_inv_level_fn wcg_inverse_level_of(int wavelet)
{
    switch (wavelet) {
    case 97: return wcg_dwt97_inverse_level;
    case 153: return wcg_dwt53m_inverse_level;
    case 197: return wcg_dwt97m_inverse_level;
    case 203: return wcg_dwt53e_inverse_level;
    case 207: return wcg_dwt97e_inverse_level;
    default: return wcg_dwt53_inverse_level;
    }
}

namespace
{

/* What every forward level of a job shares. */
wcg_fwd_level forward_common(const wcg_component_job *job)
{
    wcg_fwd_level lv = {};
    lv.samples = job->samples;
    lv.out = job->coef;
    lv.out_pitch = job->width;
    lv.quantize = job->quantize;
    lv.threshold = job->threshold;
    return lv;
}

/* Levels from..levels, the LL of level from - 1 in work[cur]. */
cudaError_t forward_levels(const wcg_component_job *job, int from, int cur, cudaStream_t st)
{
    const wcg_fwd_level_fn level_fn = wcg_forward_level_of(job->wavelet);
    wcg_fwd_level lv = forward_common(job);
    for (int l = from; l <= job->levels; ++l) {
        forward_level(job, l, job->work[cur], job->work[1 - cur], &lv);
        cudaError_t e = level_fn(&lv, st);
        if (e != cudaSuccess) return e;
        cur = 1 - cur;
    }
    return cudaSuccess;
}

/* What every inverse level of a job shares. */
wcg_inv_level inverse_common(const wcg_component_job *job)
{
    wcg_inv_level lv = {};
    lv.coef = (const int32_t *)job->coef;
    lv.coef_pitch = job->width;
    lv.recon = job->recon;
    lv.samples = job->samples;
    return lv;
}

} /* namespace */

/* One kernel a level; the LL after each level ping-pongs between the work
 * buffers. (Two levels a kernel measured slower: PERF_NOTES.md, v4.) */
cudaError_t wcg_forward_component(const wcg_component_job *job, cudaStream_t st)
{
    const int is97 = job->wavelet % 10 == 7; /* 97, 197, 207 */
    wcg_fwd_level lv = forward_common(job);
    if (job->levels == 0) {
        lv.w = job->width;
        lv.h = job->height;
        lv.from_samples = 1;
        lv.last = 1;
        level_steps(job->steps, 0, 0, lv.step);
        return wcg_forward_level0(&lv, is97, st);
    }
    /* Level 1 writes its LL to work[0] (cur 1: the one it does not read). */
    return forward_levels(job, 1, 1, st);
}

cudaError_t wcg_forward_rows(const wcg_component_job *job, uint32_t row0, uint32_t row1,
                             cudaStream_t st)
{
    if (!wcg_strips_fit(job->wavelet)) return cudaErrorInvalidValue;
    wcg_fwd_level lv = forward_common(job);
    forward_level(job, 1, NULL, job->work[0], &lv);
    return job->wavelet == 97 ? wcg_dwt97_forward_rows(&lv, row0, row1, st)
                              : wcg_dwt53_forward_rows(&lv, row0, row1, st);
}

cudaError_t wcg_forward_rest(const wcg_component_job *job, cudaStream_t st)
{
    return forward_levels(job, 2, 0, st);
}

/* The inverse: coarsest level first, one kernel a level. */
cudaError_t wcg_inverse_component(const wcg_component_job *job, cudaStream_t st)
{
    const int is97 = job->wavelet % 10 == 7; /* 97, 197, 207 */
    const wcg_inv_level_fn level_fn = wcg_inverse_level_of(job->wavelet);
    wcg_inv_level lv = inverse_common(job);
    if (job->levels == 0) {
        lv.w = job->width;
        lv.h = job->height;
        lv.ll_from_coef = 1;
        lv.to_samples = job->plane == NULL;
        lv.dst = job->plane;
        lv.dst_pitch = job->width;
        level_steps(job->steps, 0, 0, lv.step);
        return wcg_inverse_level0(&lv, is97, st);
    }
    int cur = 1; /* the work buffer holding the current LL (below the coarsest) */
    for (int l = job->levels; l >= 1; --l) {
        inverse_level(job, l, job->work[cur], job->work[1 - cur], &lv);
        cudaError_t e = level_fn(&lv, st);
        if (e != cudaSuccess) return e;
        cur = 1 - cur;
    }
    return cudaSuccess;
}

/* Levels down to 2 with the ping-pong started so that level 2's result
 * lands in work[0] (level l reads work[cur] and writes work[1 - cur]). */
cudaError_t wcg_inverse_rest(const wcg_component_job *job, cudaStream_t st)
{
    const wcg_inv_level_fn level_fn = wcg_inverse_level_of(job->wavelet);
    wcg_inv_level lv = inverse_common(job);
    int cur = 1 ^ (job->levels & 1);
    for (int l = job->levels; l >= 2; --l) {
        inverse_level(job, l, job->work[cur], job->work[1 - cur], &lv);
        cudaError_t e = level_fn(&lv, st);
        if (e != cudaSuccess) return e;
        cur = 1 - cur;
    }
    return cudaSuccess;
}

cudaError_t wcg_inverse_rows(const wcg_component_job *job, uint32_t row0, uint32_t row1,
                             cudaStream_t st)
{
    if (!wcg_strips_fit(job->wavelet)) return cudaErrorInvalidValue;
    wcg_inv_level lv = inverse_common(job);
    inverse_level(job, 1, job->work[0], NULL, &lv);
    return job->wavelet == 97 ? wcg_dwt97_inverse_rows(&lv, row0, row1, st)
                              : wcg_dwt53_inverse_rows(&lv, row0, row1, st);
}
