/*
 * dwt97_kernels.cu -- the CDF 9/7 (irreversible, float) lifting steps of
 * dwt.h plugged into the level kernels of dwt_level.cuh. Forward, on the
 * interleaved signal: odd += a*(left+right), even += b*(..), odd +=
 * g*(..), even += d*(..), then even *= 1/K, odd *= K; the inverse scales
 * by K and 1/K and undoes the steps in reverse order by subtraction. Each
 * statement is written exactly as transform/dwt97.c writes it (the sum of
 * the neighbours, times the constant, added), and --fmad=false keeps every
 * product and sum separately rounded, so the bits match the CPU.
 */
extern "C" {
#include "dwt.h" /* DWT97_* constants: one definition for CPU and GPU */
}
#include "dwt_level.cuh"

namespace wcg
{
namespace
{

constexpr float A97 = DWT97_ALPHA, B97 = DWT97_BETA, G97 = DWT97_GAMMA, D97 = DWT97_DELTA;
constexpr float K97 = DWT97_K, IK97 = DWT97_INV_K;

struct Dwt97 {
    using T = float;
    static constexpr int HALO = 2;
    /* Forward: iteration j lifts d1[j], s1[j], then d2[j-1], s2[j-1]; the
     * first valid s2 comes three iterations after the start. */
    static constexpr int FWD_WARM = 2, FWD_LAG = 1;
    /* Inverse: iteration j undoes s[j], d[j-1], s[j-1], d[j-2]. */
    static constexpr int INV_WARM = 2, INV_LAG = 2;

    struct VFwd {
        float d1p = 0.0f, s1p = 0.0f, d2p = 0.0f; /* d1[j-1], s1[j-1], d2[j-2] */
        __device__ __forceinline__ void step(float xe, float xo, float xn, float &s, float &d)
        {
            const float d1 = xo + (A97 * (xe + xn));
            const float s1 = xe + (B97 * (d1p + d1));
            const float d2 = d1p + (G97 * (s1p + s1));
            const float s2 = s1p + (D97 * (d2p + d2));
            d1p = d1;
            s1p = s1;
            d2p = d2;
            s = s2 * IK97;
            d = d2 * K97;
        }
    };

    struct VInv {
        /* d[j-1], s1[j-1] (delta undone), d1[j-2] (gamma undone), s0[j-2] */
        float dp = 0.0f, s1p = 0.0f, d1p = 0.0f, s0p = 0.0f;
        __device__ __forceinline__ void step(float s, float d, float &x0, float &x1)
        {
            const float sd = s * K97, dd = d * IK97;
            const float s1 = sd - (D97 * (dp + dd));
            const float d1 = dp - (G97 * (s1p + s1));
            const float s0 = s1p - (B97 * (d1p + d1));
            const float d0 = d1p - (A97 * (s0p + s0));
            x0 = s0p;
            x1 = d0;
            dp = dd;
            s1p = s1;
            d1p = d1;
            s0p = s0;
        }
    };

    template <int K>
    static __device__ __forceinline__ void hfwd(float (&e)[K], float (&o)[K], int lane)
    {
        float n[K], p[K];
        from_next<K>(e, n, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) o[k] = o[k] + (A97 * (e[k] + n[k]));
        from_prev<K>(o, p, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) e[k] = e[k] + (B97 * (p[k] + o[k]));
        from_next<K>(e, n, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) o[k] = o[k] + (G97 * (e[k] + n[k]));
        from_prev<K>(o, p, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            e[k] = (e[k] + (D97 * (p[k] + o[k]))) * IK97;
            o[k] = o[k] * K97;
        }
    }

    template <int K>
    static __device__ __forceinline__ void hinv(float (&e)[K], float (&o)[K], int lane)
    {
        float n[K], p[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            e[k] = e[k] * K97;
            o[k] = o[k] * IK97;
        }
        from_prev<K>(o, p, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) e[k] = e[k] - (D97 * (p[k] + o[k]));
        from_next<K>(e, n, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) o[k] = o[k] - (G97 * (e[k] + n[k]));
        from_prev<K>(o, p, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) e[k] = e[k] - (B97 * (p[k] + o[k]));
        from_next<K>(e, n, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) o[k] = o[k] - (A97 * (e[k] + n[k]));
    }

    /* The same on rows where each lane holds N consecutive pairs: each
     * step sends one value to a neighbour lane. */
    template <int N>
    static __device__ __forceinline__ float next_e(const float (&e)[N], int i, float en)
    {
        return i + 1 < N ? e[i + 1] : en;
    }
    template <int N>
    static __device__ __forceinline__ float prev_o(const float (&o)[N], int i, float op)
    {
        return i > 0 ? o[i - 1] : op;
    }
    template <int N>
    static __device__ __forceinline__ void hfwd_c(float (&e)[N], float (&o)[N], int lane)
    {
        float en = __shfl_sync(FULL_MASK, e[0], (lane + 1) & 31);
#pragma unroll
        for (int i = 0; i < N; ++i) o[i] = o[i] + (A97 * (e[i] + next_e(e, i, en)));
        float op = __shfl_sync(FULL_MASK, o[N - 1], (lane + 31) & 31);
#pragma unroll
        for (int i = N - 1; i >= 0; --i) e[i] = e[i] + (B97 * (prev_o(o, i, op) + o[i]));
        en = __shfl_sync(FULL_MASK, e[0], (lane + 1) & 31);
#pragma unroll
        for (int i = 0; i < N; ++i) o[i] = o[i] + (G97 * (e[i] + next_e(e, i, en)));
        op = __shfl_sync(FULL_MASK, o[N - 1], (lane + 31) & 31);
#pragma unroll
        for (int i = N - 1; i >= 0; --i) e[i] = (e[i] + (D97 * (prev_o(o, i, op) + o[i]))) * IK97;
#pragma unroll
        for (int i = 0; i < N; ++i) o[i] = o[i] * K97;
    }

    template <int N>
    static __device__ __forceinline__ void hinv_c(float (&e)[N], float (&o)[N], int lane)
    {
#pragma unroll
        for (int i = 0; i < N; ++i) {
            e[i] = e[i] * K97;
            o[i] = o[i] * IK97;
        }
        float op = __shfl_sync(FULL_MASK, o[N - 1], (lane + 31) & 31);
#pragma unroll
        for (int i = N - 1; i >= 0; --i) e[i] = e[i] - (D97 * (prev_o(o, i, op) + o[i]));
        float en = __shfl_sync(FULL_MASK, e[0], (lane + 1) & 31);
#pragma unroll
        for (int i = 0; i < N; ++i) o[i] = o[i] - (G97 * (e[i] + next_e(e, i, en)));
        op = __shfl_sync(FULL_MASK, o[N - 1], (lane + 31) & 31);
#pragma unroll
        for (int i = N - 1; i >= 0; --i) e[i] = e[i] - (B97 * (prev_o(o, i, op) + o[i]));
        en = __shfl_sync(FULL_MASK, e[0], (lane + 1) & 31);
#pragma unroll
        for (int i = 0; i < N; ++i) o[i] = o[i] - (A97 * (e[i] + next_e(e, i, en)));
    }
};

#ifndef WCG_K97
#define WCG_K97 2
#endif
constexpr int K97P = WCG_K97; /* pairs per lane: a warp strip is 64*K97P columns */

} /* namespace */
} /* namespace wcg */

cudaError_t wcg_dwt97_forward_level(const wcg_fwd_level *lv, cudaStream_t st)
{
    using namespace wcg;
    return lv->quantize ? launch_fwd_level<Dwt97, K97P, int32_t, true>(lv, st)
                        : launch_fwd_level<Dwt97, K97P, float, false>(lv, st);
}

cudaError_t wcg_dwt97_inverse_level(const wcg_inv_level *lv, cudaStream_t st)
{
    using namespace wcg;
    return launch_inv_level<Dwt97, K97P>(lv, st);
}

cudaError_t wcg_dwt97_forward_rows(const wcg_fwd_level *lv, uint32_t row0, uint32_t row1,
                                   cudaStream_t st)
{
    using namespace wcg;
    return lv->quantize ? launch_fwd_rows<Dwt97, K97P, int32_t, true>(lv, row0, row1, st)
                        : launch_fwd_rows<Dwt97, K97P, float, false>(lv, row0, row1, st);
}

cudaError_t wcg_dwt97_inverse_rows(const wcg_inv_level *lv, uint32_t row0, uint32_t row1,
                                   cudaStream_t st)
{
    using namespace wcg;
    return launch_inv_rows<Dwt97, K97P>(lv, row0, row1, st);
}
