/*
 * dwt53_kernels.cu -- the CDF 5/3 (reversible, integer) lifting steps of
 * dwt.h plugged into the level kernels of dwt_level.cuh:
 *   d[i] = x[2i+1] - ((x[2i] + x[2i+2]) >> 1)
 *   s[i] = x[2i]   + ((d[i-1] + d[i] + 2) >> 2)        (>> is floor)
 * and their exact inverse.
 */
#include "dwt_level.cuh"

namespace wcg {
namespace {

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
            d = xo - ((xe + xn) >> 1);
            s = xe + ((dp + d + 2) >> 2);
            dp = d;
        }
    };

    struct VInv {
        int32_t dp = 0, xp = 0; /* d[j-1], x[2j-2] */
        __device__ __forceinline__ void step(int32_t s, int32_t d, int32_t &x0, int32_t &x1)
        {
            const int32_t xe = s - ((dp + d + 2) >> 2);
            x0 = xp;
            x1 = dp + ((xp + xe) >> 1);
            dp = d;
            xp = xe;
        }
    };

    template <int K> static __device__ __forceinline__ void hfwd(int32_t (&e)[K], int32_t (&o)[K],
                                                                 int lane)
    {
        int32_t n[K], p[K];
        from_next<K>(e, n, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) o[k] = o[k] - ((e[k] + n[k]) >> 1);
        from_prev<K>(o, p, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) e[k] = e[k] + ((p[k] + o[k] + 2) >> 2);
    }

    template <int K> static __device__ __forceinline__ void hinv(int32_t (&e)[K], int32_t (&o)[K],
                                                                 int lane)
    {
        int32_t n[K], p[K];
        from_prev<K>(o, p, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) e[k] = e[k] - ((p[k] + o[k] + 2) >> 2);
        from_next<K>(e, n, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) o[k] = o[k] + ((e[k] + n[k]) >> 1);
    }
};

constexpr int K53 = 2; /* pairs per lane: a warp strip is 128 columns */

} /* namespace */
} /* namespace wcg */

cudaError_t wcg_dwt53_forward_level(const wcg_fwd_level *lv, cudaStream_t st)
{
    using namespace wcg;
    return lv->from_samples ? launch_fwd_level<Dwt53, K53, true, int32_t>(lv, st)
                            : launch_fwd_level<Dwt53, K53, false, int32_t>(lv, st);
}

cudaError_t wcg_dwt53_inverse_level(const wcg_inv_level *lv, cudaStream_t st)
{
    using namespace wcg;
    return lv->to_samples ? launch_inv_level<Dwt53, K53, true>(lv, st)
                          : launch_inv_level<Dwt53, K53, false>(lv, st);
}
