/*
 * dwt_level.cuh -- one DWT level, forward and inverse, in the
 * register-based style of Enfedaque et al. (seeds/enfedaque-register-based-
 * dwt.txt), generic over the wavelet's lifting steps (dwt53_kernels.cu,
 * dwt97_kernels.cu supply them).
 *
 * A warp owns a strip of K*64 columns: lane t holds the column pairs
 * (2p, 2p+1), p = 32k + t, in registers. It walks down a segment of rows
 * as a sliding window: vertical lifting runs inside each thread along its
 * columns, one row pair per iteration, carrying the few values the lifting
 * steps still need from the rows above (the paper's halo rows, read once
 * instead of re-read per block). Each finished row pair is lifted
 * horizontally through __shfl_sync and written out. The horizontal steps
 * spoil HALO pairs at each end of the strip, so strips overlap by 2*HALO
 * pairs; segments start WARM pairs early to fill the pipeline. Indices
 * outside the image are mirrored (whole-sample symmetric extension), which
 * makes the lifting at an image border identical to the CPU's. Every row
 * is read and written coalesced: 32 lanes touch consecutive words.
 *
 * Wavelet policy W:
 *   T                   int32_t or float
 *   HALO                pairs the horizontal lifting spoils at each end
 *   FWD_WARM, FWD_LAG   forward vertical pipeline: start WARM pairs early;
 *                       an iteration j finishes pair j - LAG
 *   INV_WARM, INV_LAG   the same for the inverse
 *   VFwd::step(xe, xo, xn, s, d)    rows 2j, 2j+1, 2j+2 in, s/d out
 *   VInv::step(s, d, x0, x1)        coefficients of pair j in, two rows out
 *   hfwd<K>(e, o, lane), hinv<K>(e, o, lane)   in place on a row
 */
#ifndef WC_DWT_LEVEL_CUH
#define WC_DWT_LEVEL_CUH

#include "dwt_device.cuh"

namespace wcg {

constexpr int LEVEL_WARPS = 4; /* warps per block (128 threads) */

/* Pair rows per warp segment: long enough that the pipeline warm-up is a
 * small overhead, short enough to give the GPU a few warps per SM. */
inline int level_segment_rows(uint32_t hl, uint32_t strips)
{
    const long target_warps = 132L * 24;
    long seg = 64;
    while (seg > 8 && (long)strips * (((long)hl + seg - 1) / seg) < target_warps) seg /= 2;
    return (int)seg;
}

/* ---- forward ----------------------------------------------------------------- */

template <class W, int K, bool FROM_SAMPLES, class OutT>
__global__ void __launch_bounds__(32 * LEVEL_WARPS)
    fwd_level_kernel(const wcg_fwd_level lv, int seg_rows, int nseg)
{
    using T = typename W::T;
    constexpr int OUTP = 32 * K - 2 * W::HALO;
    const int lane = threadIdx.x & 31;
    const int w = (int)lv.w, h = (int)lv.h;
    const int wl = (w + 1) >> 1, hl = (h + 1) >> 1;
    const int P0 = (int)blockIdx.x * OUTP - W::HALO;

    int cole[K], colo[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int g = P0 + 32 * k + lane;
        cole[k] = mirror(2 * g, w);
        colo[k] = mirror(2 * g + 1, w);
    }

    auto load = [&](int x, int y) -> T {
        if constexpr (FROM_SAMPLES)
            return load_component<T>(lv.samples, (uint32_t)x, (uint32_t)y);
        else
            return ((const T *)lv.src)[(size_t)y * lv.src_pitch + x];
    };
    auto load_row = [&](int y, T(&e)[K], T(&o)[K]) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            e[k] = load(cole[k], y);
            o[k] = load(colo[k], y);
        }
    };
    OutT *out = (OutT *)lv.out;
    const size_t op = lv.out_pitch;
    /* Lifts a row horizontally and writes the pairs this strip owns: a low
     * row p goes to LL and HL, a high row to LH and HH. */
    auto emit = [&](int p, bool high, T(&e)[K], T(&o)[K]) {
        if (w > 1) W::template hfwd<K>(e, o, lane);
        const int row = high ? hl + p : p;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int local = 32 * k + lane;
            const int g = P0 + local;
            if (local < W::HALO || local >= 32 * K - W::HALO || g >= wl) continue;
            if (high)
                out[(size_t)row * op + g] =
                    coeff_out<OutT, T>::make(e[k], lv.step[2], lv.threshold, lv.quantize);
            else if (lv.last)
                out[(size_t)row * op + g] =
                    coeff_out<OutT, T>::make(e[k], lv.step[0], lv.threshold, lv.quantize);
            else
                ((T *)lv.ll)[(size_t)p * lv.ll_pitch + g] = e[k];
            if (2 * g + 1 < w)
                out[(size_t)row * op + wl + g] = coeff_out<OutT, T>::make(
                    o[k], lv.step[high ? 3 : 1], lv.threshold, lv.quantize);
        }
    };

    for (int seg = (int)blockIdx.y * LEVEL_WARPS + (int)(threadIdx.x >> 5); seg < nseg;
         seg += (int)gridDim.y * LEVEL_WARPS) {
        if (h == 1) { /* nothing to lift vertically: row 0 is a low row */
            T e[K], o[K];
            load_row(0, e, o);
            emit(0, false, e, o);
            continue;
        }
        const int i0 = seg * seg_rows;
        const int i1 = min(i0 + seg_rows, hl);
        typename W::VFwd st[2 * K];
        T xe[K], xeo[K]; /* row 2j of the even and odd columns */
        load_row(mirror(2 * (i0 - W::FWD_WARM), h), xe, xeo);
        for (int j = i0 - W::FWD_WARM; j < i1 + W::FWD_LAG; ++j) {
            T ae[K], ao[K], be[K], bo[K]; /* rows 2j+1 and 2j+2 */
            load_row(mirror(2 * j + 1, h), ae, ao);
            load_row(mirror(2 * j + 2, h), be, bo);
            T se[K], so[K], de[K], dq[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                st[2 * k].step(xe[k], ae[k], be[k], se[k], de[k]);
                st[2 * k + 1].step(xeo[k], ao[k], bo[k], so[k], dq[k]);
                xe[k] = be[k];
                xeo[k] = bo[k];
            }
            const int p = j - W::FWD_LAG;
            if (p >= i0) {
                emit(p, false, se, so);
                if (2 * p + 1 < h) emit(p, true, de, dq);
            }
        }
    }
}

template <class W, int K, bool FROM_SAMPLES, class OutT>
cudaError_t launch_fwd_level(const wcg_fwd_level *lv, cudaStream_t st)
{
    constexpr int OUTP = 32 * K - 2 * W::HALO;
    const uint32_t wl = (lv->w + 1) / 2, hl = (lv->h + 1) / 2;
    const uint32_t strips = (wl + OUTP - 1) / OUTP;
    const int seg = level_segment_rows(hl, strips);
    const int nseg = (int)((hl + seg - 1) / seg);
    const uint32_t gy = (uint32_t)min((nseg + LEVEL_WARPS - 1) / LEVEL_WARPS, 65535);
    fwd_level_kernel<W, K, FROM_SAMPLES, OutT>
        <<<dim3(strips, gy), 32 * LEVEL_WARPS, 0, st>>>(*lv, seg, nseg);
    return cudaGetLastError();
}

/* ---- inverse ----------------------------------------------------------------- */

template <class W, int K, bool TO_SAMPLES>
__global__ void __launch_bounds__(32 * LEVEL_WARPS)
    inv_level_kernel(const wcg_inv_level lv, int seg_rows, int nseg)
{
    using T = typename W::T;
    constexpr int OUTP = 32 * K - 2 * W::HALO;
    const int lane = threadIdx.x & 31;
    const int w = (int)lv.w, h = (int)lv.h;
    const int wl = (w + 1) >> 1, hl = (h + 1) >> 1;
    const int P0 = (int)blockIdx.x * OUTP - W::HALO;

    /* Subband columns of each pair: the mirrored even column is a low
     * coefficient, the mirrored odd column a high one (mirroring keeps
     * parity), so the coefficients extend exactly as the samples do. */
    int lo[K], hi[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int g = P0 + 32 * k + lane;
        lo[k] = w == 1 ? 0 : mirror(2 * g, w) >> 1;
        hi[k] = w == 1 ? 0 : wl + (mirror(2 * g + 1, w) >> 1);
    }
    const int32_t *coef = lv.coef;
    const size_t cp = lv.coef_pitch;
    /* Row j of the low (LL|HL) or high (LH|HH) half, dequantized and lifted
     * back horizontally: even and odd columns of a vertically-low or -high
     * row. */
    auto load_row = [&](int j, bool high, T(&e)[K], T(&o)[K]) {
        const int r = h == 1 ? 0 : mirror(2 * j + (high ? 1 : 0), h) >> 1;
        const size_t row = (size_t)(high ? hl + r : r) * cp;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (high)
                e[k] = dequantize_value<T>(coef[row + lo[k]], lv.step[2], lv.recon);
            else if (lv.ll_from_coef)
                e[k] = dequantize_value<T>(coef[row + lo[k]], lv.step[0], lv.recon);
            else
                e[k] = ((const T *)lv.ll)[(size_t)r * lv.ll_pitch + lo[k]];
            o[k] = w == 1 ? T(0)
                          : dequantize_value<T>(coef[row + hi[k]], lv.step[high ? 3 : 1],
                                                lv.recon);
        }
        if (w > 1) W::template hinv<K>(e, o, lane);
    };
    auto store = [&](int x, int y, T v) {
        if constexpr (TO_SAMPLES)
            store_sample(lv.samples, (uint32_t)x, (uint32_t)y, lv.samples.comp,
                         to_sample(lv.samples, v));
        else
            ((T *)lv.dst)[(size_t)y * lv.dst_pitch + x] = v;
    };
    auto store_row = [&](int y, const T(&e)[K], const T(&o)[K]) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int local = 32 * k + lane;
            const int g = P0 + local;
            if (local < W::HALO || local >= 32 * K - W::HALO || g >= wl) continue;
            store(2 * g, y, e[k]);
            if (2 * g + 1 < w) store(2 * g + 1, y, o[k]);
        }
    };

    for (int seg = (int)blockIdx.y * LEVEL_WARPS + (int)(threadIdx.x >> 5); seg < nseg;
         seg += (int)gridDim.y * LEVEL_WARPS) {
        if (h == 1) {
            T e[K], o[K];
            load_row(0, false, e, o);
            store_row(0, e, o);
            continue;
        }
        const int i0 = seg * seg_rows;
        const int i1 = min(i0 + seg_rows, hl);
        typename W::VInv st[2 * K];
        for (int j = i0 - W::INV_WARM; j < i1 + W::INV_LAG; ++j) {
            T se[K], so[K], de[K], dq[K];
            load_row(j, false, se, so);
            load_row(j, true, de, dq);
            T ae[K], ao[K], be[K], bo[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                st[2 * k].step(se[k], de[k], ae[k], be[k]);
                st[2 * k + 1].step(so[k], dq[k], ao[k], bo[k]);
            }
            const int p = j - W::INV_LAG;
            if (p >= i0) {
                store_row(2 * p, ae, ao);
                if (2 * p + 1 < h) store_row(2 * p + 1, be, bo);
            }
        }
    }
}

template <class W, int K, bool TO_SAMPLES>
cudaError_t launch_inv_level(const wcg_inv_level *lv, cudaStream_t st)
{
    constexpr int OUTP = 32 * K - 2 * W::HALO;
    const uint32_t wl = (lv->w + 1) / 2, hl = (lv->h + 1) / 2;
    const uint32_t strips = (wl + OUTP - 1) / OUTP;
    const int seg = level_segment_rows(hl, strips);
    const int nseg = (int)((hl + seg - 1) / seg);
    const uint32_t gy = (uint32_t)min((nseg + LEVEL_WARPS - 1) / LEVEL_WARPS, 65535);
    inv_level_kernel<W, K, TO_SAMPLES>
        <<<dim3(strips, gy), 32 * LEVEL_WARPS, 0, st>>>(*lv, seg, nseg);
    return cudaGetLastError();
}

} /* namespace wcg */

#endif /* WC_DWT_LEVEL_CUH */
