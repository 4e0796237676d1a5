/*
 * dwt_driver.cu -- one component through all its DWT levels on the device:
 * which buffer each level reads and writes, its region, and the quantizer
 * steps of its bands. The LL between levels ping-pongs between two work
 * buffers (a level's halo reads must never see its own writes); the high
 * bands of every level go straight to their final place in the Mallat
 * coefficient plane, so each coefficient is written once.
 */
#include <stdlib.h>

#include "backend.h"
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
 * (src; level 1 reads the samples) and where its LL goes (ll), as int16
 * planes when ll16 (wcg_ll16). */
void forward_level(const wcg_component_job *job, int l, const void *src, void *ll, int ll16,
                   wcg_fwd_level *lv)
{
    lv->w = level_size(job->width, l - 1);
    lv->h = level_size(job->height, l - 1);
    lv->from_samples = l == 1;
    lv->src = src;
    lv->src_pitch = ll16 ? wcg_work_pitch16(lv->w) : wcg_work_pitch(lv->w);
    lv->last = l == job->levels;
    lv->ll = lv->last ? NULL : ll;
    lv->ll_pitch = ll16 ? wcg_work_pitch16((lv->w + 1) / 2) : wcg_work_pitch((lv->w + 1) / 2);
    lv->ll16 = ll16;
    level_steps(job->steps, job->levels, l, lv->step);
}

/* An interval [lo, hi] of integers. */
struct range {
    int64_t lo, hi;
};

/* floor(a / 8), a of either sign. */
int64_t floor8(int64_t a) { return a >= 0 ? a / 8 : -((-a + 7) / 8); }

/* Bounds of the LL after one separable 5/3 level (dwt.h: vertical then
 * horizontal lifting, >> as floor) whose input lies in r.
 *
 * Proof. 1-D, the lifting is d_i = x_{2i+1} - floor((x_{2i} + x_{2i+2}) / 2)
 * and s_i = x_{2i} + floor((d_{i-1} + d_i + 2) / 4). Write floor(a / 2) =
 * a/2 - r, r in [0, 1/2], and floor((a + 2) / 4) = a/4 + 1/2 - q, q in
 * [0, 3/4]. Then s = g * x + e: g = (-1/8, 1/4, 3/4, 1/4, -1/8), whose
 * positive taps sum to P = 5/4 and negative ones to -N = -1/4, and e the
 * rounding. On exact integer input (the vertical pass) d carries r, in
 * [0, 1/2], and s carries (r' + r)/4 + 1/2 - q, in [-1/4, 3/4]. The
 * horizontal pass lifts the vertically-low rows, whose values carry errors
 * in [-1/4, 3/4]: its d carries e_o - (e_e + e_n)/2 + r, in [-1, 3/2], its
 * s carries e_e + (e_d' + e_d)/4 + 1/2 - q, in [-1, 2]. The linear part of
 * the LL is the separable g (x) g: positive taps sum P2 = P^2 + N^2 = 13/8,
 * negative ones -N2 = -2PN = -5/8. So for input in [lo, hi]:
 *   LL in [(13 lo - 5 hi)/8 - 1, (13 hi - 5 lo)/8 + 2].
 * At the borders whole-sample symmetric extension folds taps onto the same
 * sample; the folded taps still sum to 1 and their absolute values to at
 * most P2 + N2, so P2 and N2 only shrink and the bound holds; a direction
 * of length 1 is not lifted (P = 1, N = 0, no rounding): smaller still.
 * The next level's input is this LL, so the bound chains level by level
 * (loose: it ignores that the taps of successive levels overlap; the
 * cascade's true gain is far lower).
 *
 * For one byte samples, x = v - shift (v in [0, 255], whatever the bit
 * depth says: nothing checks the pixels against it); the RCT's Y =
 * (R + 2G + B) >> 2 stays in [lo, hi], U = B - G and V = R - G lie in
 * [lo - hi, hi - lo]. Gray 8-bit, [-128, 127]: LL1..LL6 within
 * [-288, 288], [-649, 650], [-1461, 1463], [-3289, 3292], [-7403, 7407],
 * [-16660, 16665]; LL7 could reach 37,495. Chroma, [-255, 255]: LL1..LL5
 * up to 14,750, LL6 33,186. So up to 7 levels (gray) or 6 (RCT chroma)
 * every LL written to a work plane (LL1 .. LL(levels - 1): the last LL goes
 * to the int32 plane) fits int16; wcg_ll16 checks this per job. */
range ll53_after(range r)
{
    return {-floor8(5 * r.hi - 13 * r.lo) - 1, floor8(13 * r.hi - 5 * r.lo) + 2};
}

} /* namespace */

int wcg_ll16(const wcg_component_job *job)
{
    if (job->wavelet != 53 || job->samples.bytes != 1 || job->levels < 2) return 0;
    const char *e = getenv("WCG_LL32");
    if (e && e[0] == '1') return 0;
    const wcg_samples &s = job->samples;
    range r = {-(int64_t)s.shift, 255 - (int64_t)s.shift};
    if (s.colour != WC_COLOUR_NONE && s.comp >= 1 && s.comp <= 2) r = {r.lo - r.hi, r.hi - r.lo};
    for (int l = 1; l < job->levels; ++l) {
        r = ll53_after(r);
        if (r.lo < INT16_MIN || r.hi > INT16_MAX) return 0;
    }
    return 1;
}

namespace
{

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
    const int ll16 = wcg_ll16(job);
    for (int l = from; l <= job->levels; ++l) {
        forward_level(job, l, job->work[cur], job->work[1 - cur], ll16, &lv);
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
    forward_level(job, 1, NULL, job->work[0], wcg_ll16(job), &lv);
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
