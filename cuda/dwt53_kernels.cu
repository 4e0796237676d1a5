/*
 * dwt53_kernels.cu -- the CDF 5/3 (reversible, integer) lifting steps of
 * dwt.h plugged into the level kernels of dwt_level.cuh:
 *   d[i] = x[2i+1] - ((x[2i] + x[2i+2]) >> 1)
 *   s[i] = x[2i]   + ((d[i-1] + d[i] + 2) >> 2)        (>> is floor)
 * and their exact inverse. Sums wrap modulo 2^32 as transform/dwt53.c's do
 * (a damaged file may hold any int32 coefficients), so the kernels are
 * written in uint32 arithmetic with an arithmetic shift of the result.
 */
#include "dwt_level.cuh"

namespace wcg
{
namespace
{

__device__ __forceinline__ int32_t w_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}
__device__ __forceinline__ int32_t w_sub(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a - (uint32_t)b);
}
/* (a + b) >> 1 and (a + b + 2) >> 2 with wrapping sums. */
__device__ __forceinline__ int32_t w_half(int32_t a, int32_t b) { return w_add(a, b) >> 1; }
__device__ __forceinline__ int32_t w_quarter(int32_t a, int32_t b)
{
    return w_add(w_add(a, b), 2) >> 2;
}

struct Dwt53 {
    using T = int32_t;
    static constexpr int HALO = 1;
    /* Forward: iteration j makes d[j] and s[j], which needs d[j-1]. */
    static constexpr int FWD_WARM = 1, FWD_LAG = 0;
    /* Inverse: iteration j makes x[2j] (needs d[j-1]), then x[2j-1]. */
    static constexpr int INV_WARM = 1, INV_LAG = 1;

    struct VFwd {
        int32_t dp = 0; /* d[j-1] */
        __device__ __forceinline__ void step(int32_t xe, int32_t xo, int32_t xn, int32_t &s,
                                             int32_t &d)
        {
            d = w_sub(xo, w_half(xe, xn));
            s = w_add(xe, w_quarter(dp, d));
            dp = d;
        }
    };

    struct VInv {
        int32_t dp = 0, xp = 0; /* d[j-1], x[2j-2] */
        __device__ __forceinline__ void step(int32_t s, int32_t d, int32_t &x0, int32_t &x1)
        {
            const int32_t xe = w_sub(s, w_quarter(dp, d));
            x0 = xp;
            x1 = w_add(dp, w_half(xp, xe));
            dp = d;
            xp = xe;
        }
    };

    template <int K>
    static __device__ __forceinline__ void hfwd(int32_t (&e)[K], int32_t (&o)[K], int lane)
    {
        int32_t n[K], p[K];
        from_next<K>(e, n, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) o[k] = w_sub(o[k], w_half(e[k], n[k]));
        from_prev<K>(o, p, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) e[k] = w_add(e[k], w_quarter(p[k], o[k]));
    }

    template <int K>
    static __device__ __forceinline__ void hinv(int32_t (&e)[K], int32_t (&o)[K], int lane)
    {
        int32_t n[K], p[K];
        from_prev<K>(o, p, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) e[k] = w_sub(e[k], w_quarter(p[k], o[k]));
        from_next<K>(e, n, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) o[k] = w_add(o[k], w_half(e[k], n[k]));
    }

    /* The same on rows where each lane holds N consecutive pairs: only the
     * first even value goes left and the last odd value right. */
    template <int N>
    static __device__ __forceinline__ void hfwd_c(int32_t (&e)[N], int32_t (&o)[N], int lane)
    {
        const int32_t en = __shfl_sync(FULL_MASK, e[0], (lane + 1) & 31);
#pragma unroll
        for (int i = 0; i < N; ++i) o[i] = w_sub(o[i], w_half(e[i], i + 1 < N ? e[i + 1] : en));
        const int32_t op = __shfl_sync(FULL_MASK, o[N - 1], (lane + 31) & 31);
#pragma unroll
        for (int i = N - 1; i >= 0; --i) e[i] = w_add(e[i], w_quarter(i > 0 ? o[i - 1] : op, o[i]));
    }

    template <int N>
    static __device__ __forceinline__ void hinv_c(int32_t (&e)[N], int32_t (&o)[N], int lane)
    {
        const int32_t op = __shfl_sync(FULL_MASK, o[N - 1], (lane + 31) & 31);
#pragma unroll
        for (int i = 0; i < N; ++i) e[i] = w_sub(e[i], w_quarter(i > 0 ? o[i - 1] : op, o[i]));
        const int32_t en = __shfl_sync(FULL_MASK, e[0], (lane + 1) & 31);
#pragma unroll
        for (int i = 0; i < N; ++i) o[i] = w_add(o[i], w_half(e[i], i + 1 < N ? e[i + 1] : en));
    }
};

#ifndef WCG_K53
#define WCG_K53 2
#endif
constexpr int K53 = WCG_K53; /* pairs per lane: a warp strip is 64*K53 columns */

} /* namespace */
} /* namespace wcg */

cudaError_t wcg_dwt53_forward_level(const wcg_fwd_level *lv, cudaStream_t st)
{
    using namespace wcg;
    return lv->quantize ? launch_fwd_level<Dwt53, K53, int32_t, true>(lv, st)
                        : launch_fwd_level<Dwt53, K53, int32_t, false>(lv, st);
}

cudaError_t wcg_dwt53_inverse_level(const wcg_inv_level *lv, cudaStream_t st)
{
    using namespace wcg;
    return launch_inv_level<Dwt53, K53>(lv, st);
}

cudaError_t wcg_dwt53_forward_rows(const wcg_fwd_level *lv, uint32_t row0, uint32_t row1,
                                   cudaStream_t st)
{
    using namespace wcg;
    return lv->quantize ? launch_fwd_rows<Dwt53, K53, int32_t, true>(lv, row0, row1, st)
                        : launch_fwd_rows<Dwt53, K53, int32_t, false>(lv, row0, row1, st);
}

cudaError_t wcg_dwt53_inverse_rows(const wcg_inv_level *lv, uint32_t row0, uint32_t row1,
                                   cudaStream_t st)
{
    using namespace wcg;
    return launch_inv_rows<Dwt53, K53>(lv, row0, row1, st);
}
