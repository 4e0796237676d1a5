/*
 * dwt_mono_level.cuh -- one DWT level in Barina's Monolithic scheme
 * (transform/dwt_mono.h: the arithmetic, compiled from the same source as
 * the CPU reference), in the register-based layout of dwt_level.cuh: a
 * warp owns a strip of K*32 column pairs, lane t the pairs 32k + t, and
 * walks down a segment of rows two at a time.
 *
 * Where the separable kernels lift each row pair vertically inside the
 * thread and then each row horizontally through shuffles, here a row pair
 * is one quad row (a b / c d per column pair) and each lifting pair is one
 * stage that takes quad row j and gives back quad row j - 1 finished: the
 * spatial predict of quad j - 1 needs quad j below it, the spatial update
 * then needs the predicted quad j - 2 above (carried in registers). A
 * stage reads its right neighbour's a and c (predict) and its left
 * neighbour's b and d (update): four shuffles per quad row, as many as the
 * separable kernel's two horizontal steps, but with no dependent chain of
 * vertical-then-horizontal steps. 5/3 is one stage, 9/7 two and the
 * scaling. Each stage spoils one pair at each strip end (HALO = stages)
 * and lags one quad row (WARM = LAG = stages).
 *
 * The Explosive scheme (transform/dwt_expl.h, wavelets 203, 207) runs in
 * the same kernels with its own stage (ExplFwdStage, ExplInvStage): three
 * spatial steps a lifting pair, still four shuffles a quad row, one pair
 * spoiled at each strip end and one quad row of lag per stage.
 *
 * Rows and columns outside the level are loaded mirrored, so the stages
 * run on the whole-sample symmetric extension; every sum in dwt_mono.h is
 * symmetric, so the values at mirrored places equal the reflected ones
 * and the borders come out exactly as the CPU's.
 */
#ifndef WC_DWT_MONO_LEVEL_CUH
#define WC_DWT_MONO_LEVEL_CUH

#include <type_traits>

#include "dwt.h"
#include "dwt_expl.h"
#include "dwt_level.cuh"
#include "dwt_mono.h"

namespace wcg
{

/* ---- the arithmetic of each filter, per stage -------------------------------- */

struct Mono53 {
    using T = int32_t;
    static constexpr int STAGES = 1;
    static constexpr bool EXPL = false;
    static __device__ __forceinline__ T pd(int, T d, T bn, T bs, T cw, T ce, T anw, T ane, T asw,
                                           T ase, bool inv)
    {
        const T t = mono53_pd(bn, bs, cw, ce, anw, ane, asw, ase);
        return inv ? mono53_add(d, t) : mono53_sub(d, t);
    }
    static __device__ __forceinline__ T pe(int, T x, T a0, T a1, bool inv)
    {
        const T t = mono53_pe(a0, a1);
        return inv ? mono53_add(x, t) : mono53_sub(x, t);
    }
    static __device__ __forceinline__ T ua(int, T a, T bw, T be, T cn, T cs, T dnw, T dne, T dsw,
                                           T dse, bool inv)
    {
        const T t = mono53_ua(bw, be, cn, cs, dnw, dne, dsw, dse);
        return inv ? mono53_sub(a, t) : mono53_add(a, t);
    }
    static __device__ __forceinline__ T ue(int, T x, T d0, T d1, bool inv)
    {
        const T t = mono53_ue(d0, d1);
        return inv ? mono53_sub(x, t) : mono53_add(x, t);
    }
    static __device__ __forceinline__ void scale(T &, T &, T &, T &, bool) {}
};

struct Mono97 {
    using T = float;
    static constexpr int STAGES = 2;
    static constexpr bool EXPL = false;
    static __device__ __forceinline__ float kp(int s) { return s ? DWT97_GAMMA : DWT97_ALPHA; }
    static __device__ __forceinline__ float ku(int s) { return s ? DWT97_DELTA : DWT97_BETA; }
    /* The sums in dwt_mono.c's order: d (b north/south, c west/east), a
     * (c north/south, b west/east; float addition commutes). */
    static __device__ __forceinline__ T pd(int s, T d, T bn, T bs, T cw, T ce, T anw, T ane, T asw,
                                           T ase, bool inv)
    {
        const float k = kp(s), k2 = k * k;
        return inv ? mono97_q_inv(d, k, k2, bn, bs, cw, ce, anw, ane, asw, ase)
                   : mono97_q(d, k, k2, bn, bs, cw, ce, anw, ane, asw, ase);
    }
    static __device__ __forceinline__ T pe(int s, T x, T a0, T a1, bool inv)
    {
        return inv ? mono97_e_inv(x, kp(s), a0, a1) : mono97_e(x, kp(s), a0, a1);
    }
    static __device__ __forceinline__ T ua(int s, T a, T bw, T be, T cn, T cs, T dnw, T dne, T dsw,
                                           T dse, bool inv)
    {
        const float k = ku(s), k2 = k * k;
        return inv ? mono97_q_inv(a, k, k2, cn, cs, bw, be, dnw, dne, dsw, dse)
                   : mono97_q(a, k, k2, cn, cs, bw, be, dnw, dne, dsw, dse);
    }
    static __device__ __forceinline__ T ue(int s, T x, T d0, T d1, bool inv)
    {
        return inv ? mono97_e_inv(x, ku(s), d0, d1) : mono97_e(x, ku(s), d0, d1);
    }
    /* Vertical factor first, then horizontal (dwt_nonsep.c's dwt_ns_scale97). */
    static __device__ __forceinline__ void scale(T &a, T &b, T &c, T &d, bool inv)
    {
        const float lo = inv ? DWT97_K : DWT97_INV_K, hi = inv ? DWT97_INV_K : DWT97_K;
        a = (a * lo) * lo;
        b = (b * lo) * hi;
        c = (c * hi) * lo;
        d = (d * hi) * hi;
    }
};

/* The Explosive scheme's three steps (transform/dwt_expl.h), as amounts
 * applied forward (inv false) or undone (inv true). Argument order is the
 * CPU's (dwt_expl.c): diagonals nw, ne, sw, se; a from b west/east then c
 * north/south; d from b north/south then c west/east. */
struct Expl53 {
    using T = int32_t;
    static constexpr int STAGES = 1;
    static constexpr bool EXPL = true;
    static __device__ __forceinline__ T app(T x, T t, bool add)
    {
        return add ? expl53_add(x, t) : expl53_sub(x, t);
    }
    /* b or c from two a; d from four diagonal a (both subtracted). */
    static __device__ __forceinline__ T pe(int, T x, T a0, T a1, bool inv)
    {
        return app(x, expl53_p2(a0, a1), inv);
    }
    static __device__ __forceinline__ T pdiag(int, T d, T nw, T ne, T sw, T se, bool inv)
    {
        return app(d, expl53_q4(nw, ne, sw, se), inv);
    }
    /* a from two b and two c (added), d from two b and two c (subtracted). */
    static __device__ __forceinline__ T ma(int, T a, T bw, T be, T cn, T cs, bool inv)
    {
        return app(a, expl53_q4(bw, be, cn, cs), !inv);
    }
    static __device__ __forceinline__ T md(int, T d, T bn, T bs, T cw, T ce, bool inv)
    {
        return app(d, expl53_h4(bn, bs, cw, ce), inv);
    }
    /* b or c from two d; a from four diagonal d (both added). */
    static __device__ __forceinline__ T ue(int, T x, T d0, T d1, bool inv)
    {
        return app(x, expl53_u2(d0, d1), !inv);
    }
    static __device__ __forceinline__ T ua(int, T a, T nw, T ne, T sw, T se, bool inv)
    {
        return app(a, expl53_s4(nw, ne, sw, se), !inv);
    }
    static __device__ __forceinline__ void scale(T &, T &, T &, T &, bool) {}
};

struct Expl97 {
    using T = float;
    static constexpr int STAGES = 2;
    static constexpr bool EXPL = true;
    static __device__ __forceinline__ float kp(int s) { return s ? DWT97_GAMMA : DWT97_ALPHA; }
    static __device__ __forceinline__ float ku(int s) { return s ? DWT97_DELTA : DWT97_BETA; }
    static __device__ __forceinline__ T app(T x, T t, bool add) { return add ? x + t : x - t; }
    static __device__ __forceinline__ T pe(int s, T x, T a0, T a1, bool inv)
    {
        return app(x, expl97_t2(kp(s), a0, a1), !inv);
    }
    static __device__ __forceinline__ T pdiag(int s, T d, T nw, T ne, T sw, T se, bool inv)
    {
        const float k = kp(s);
        return app(d, expl97_t4(k * k, nw, ne, sw, se), inv);
    }
    static __device__ __forceinline__ T ma(int s, T a, T bw, T be, T cn, T cs, bool inv)
    {
        return app(a, expl97_t4(ku(s), bw, be, cn, cs), !inv);
    }
    static __device__ __forceinline__ T md(int s, T d, T bn, T bs, T cw, T ce, bool inv)
    {
        return app(d, expl97_t4(kp(s), bn, bs, cw, ce), !inv);
    }
    static __device__ __forceinline__ T ue(int s, T x, T d0, T d1, bool inv)
    {
        return app(x, expl97_t2(ku(s), d0, d1), !inv);
    }
    static __device__ __forceinline__ T ua(int s, T a, T nw, T ne, T sw, T se, bool inv)
    {
        const float k = ku(s);
        return app(a, expl97_t4(k * k, nw, ne, sw, se), !inv);
    }
    static __device__ __forceinline__ void scale(T &a, T &b, T &c, T &d, bool inv)
    {
        Mono97::scale(a, b, c, d, inv);
    }
};

/* ---- forward stage: quad row j in, quad row j - 1 out ------------------------- */

template <class M, int K> struct FwdStage {
    using T = typename M::T;
    /* Zero until the warm-up rows fill them; what they give is never
     * written out. */
    T pa[K] = {}, pb[K] = {}, pc[K] = {}, pd[K] = {}; /* quad j - 1 as it came in */
    T qc[K] = {}, qd[K] = {}, qdw[K] = {}; /* quad j - 2 predicted: c, d, d of pair p - 1 */

    __device__ __forceinline__ void push(int s, T (&a)[K], T (&b)[K], T (&c)[K], T (&d)[K],
                                         int lane)
    {
        T an[K], asn[K], cn[K], d1[K], b1[K], c1[K], bw[K], dw[K];
        from_next<K>(pa, an, lane);
        from_next<K>(a, asn, lane);
        from_next<K>(pc, cn, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            d1[k] = M::pd(s, pd[k], pb[k], b[k], pc[k], cn[k], pa[k], an[k], a[k], asn[k], false);
            b1[k] = M::pe(s, pb[k], pa[k], an[k], false);
            c1[k] = M::pe(s, pc[k], pa[k], a[k], false);
        }
        from_prev<K>(b1, bw, lane);
        from_prev<K>(d1, dw, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const T a2 =
                M::ua(s, pa[k], bw[k], b1[k], qc[k], c1[k], qdw[k], qd[k], dw[k], d1[k], false);
            const T b2 = M::ue(s, b1[k], qd[k], d1[k], false);
            const T c2 = M::ue(s, c1[k], dw[k], d1[k], false);
            qc[k] = c1[k];
            qd[k] = d1[k];
            qdw[k] = dw[k];
            pa[k] = a[k];
            pb[k] = b[k];
            pc[k] = c[k];
            pd[k] = d[k];
            a[k] = a2;
            b[k] = b2;
            c[k] = c2;
            d[k] = d1[k];
        }
    }
};

/* ---- Explosive forward stage: quad row j in, quad row j - 1 out --------------
 * On quad row j's arrival: b of row j from its a (the explode-a step needs
 * only its own row), c and d of row j - 1 from the a of rows j - 1 and j;
 * then row j - 1's middle step (d from the b of rows j - 1, j and its c
 * and the right pair's c; a from the left pair's b and the c of rows
 * j - 2, j - 1) and its explode-d step (the d of rows j - 2, j - 1 and of
 * the left pair). Four shuffles a quad row, as the Monolithic stage. */
template <class M, int K> struct ExplFwdStage {
    using T = typename M::T;
    T pa[K] = {}, pan[K] = {}, pb1[K] = {}, pc[K] = {}, pd[K] = {}; /* row j - 1 */
    T qc1[K] = {}, qd2[K] = {}, qd2w[K] = {}; /* row j - 2: c, d done, d of pair p - 1 */

    __device__ __forceinline__ void push(int s, T (&a)[K], T (&b)[K], T (&c)[K], T (&d)[K],
                                         int lane)
    {
        T an[K], b1[K], c1[K], d2[K], cn1[K], bw[K], dw[K];
        from_next<K>(a, an, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            b1[k] = M::pe(s, b[k], a[k], an[k], false);
            c1[k] = M::pe(s, pc[k], pa[k], a[k], false);
        }
        from_next<K>(c1, cn1, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const T d1 = M::pdiag(s, pd[k], pa[k], pan[k], a[k], an[k], false);
            d2[k] = M::md(s, d1, pb1[k], b1[k], c1[k], cn1[k], false);
        }
        from_prev<K>(pb1, bw, lane);
        from_prev<K>(d2, dw, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const T a2 = M::ma(s, pa[k], bw[k], pb1[k], qc1[k], c1[k], false);
            const T a3 = M::ua(s, a2, qd2w[k], qd2[k], dw[k], d2[k], false);
            const T b3 = M::ue(s, pb1[k], qd2[k], d2[k], false);
            const T c3 = M::ue(s, c1[k], dw[k], d2[k], false);
            pa[k] = a[k];
            pan[k] = an[k];
            pb1[k] = b1[k];
            pc[k] = c[k];
            pd[k] = d[k];
            qc1[k] = c1[k];
            qd2[k] = d2[k];
            qd2w[k] = dw[k];
            a[k] = a3;
            b[k] = b3;
            c[k] = c3;
            d[k] = d2[k];
        }
    }
};

/* ---- Explosive inverse stage: coded quad row j in, row j - 1 restored out -----
 * Row j's explode-d step is undone from the d of rows j - 1, j (b, c) and
 * of the left pair (a), then its middle step's a from its b and the c of
 * rows j - 1, j; row j - 1's d then has everything (the b of rows j - 1
 * and j, its c and the right pair's), and the explode-a step of b (row j)
 * and of c, d (row j - 1) follows from the restored a. */
template <class M, int K> struct ExplInvStage {
    using T = typename M::T;
    T rd[K] = {}, rdw[K] = {};   /* row j - 1: d as coded, d of pair p - 1 */
    T rb1[K] = {}, rb0[K] = {};  /* row j - 1: b before explode-d, b restored */
    T rc1[K] = {}, rcn1[K] = {}; /* row j - 1: c before explode-d, of pair p + 1 */
    T ra[K] = {}, ran[K] = {};   /* row j - 1: a restored, of pair p + 1 */

    __device__ __forceinline__ void push(int s, T (&a)[K], T (&b)[K], T (&c)[K], T (&d)[K],
                                         int lane)
    {
        T dw[K], b1[K], c1[K], bw[K], a1[K], an[K], cn1[K];
        from_prev<K>(d, dw, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            b1[k] = M::ue(s, b[k], rd[k], d[k], true);
            c1[k] = M::ue(s, c[k], dw[k], d[k], true);
        }
        from_prev<K>(b1, bw, lane);
        from_next<K>(c1, cn1, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const T a2 = M::ua(s, a[k], rdw[k], rd[k], dw[k], d[k], true);
            a1[k] = M::ma(s, a2, bw[k], b1[k], rc1[k], c1[k], true);
        }
        from_next<K>(a1, an, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const T d1 = M::md(s, rd[k], rb1[k], b1[k], rc1[k], rcn1[k], true);
            const T d0 = M::pdiag(s, d1, ra[k], ran[k], a1[k], an[k], true);
            const T c0 = M::pe(s, rc1[k], ra[k], a1[k], true);
            const T b0 = M::pe(s, b1[k], a1[k], an[k], true);
            const T oa = ra[k], ob = rb0[k];
            rd[k] = d[k];
            rdw[k] = dw[k];
            rb1[k] = b1[k];
            rb0[k] = b0;
            rc1[k] = c1[k];
            rcn1[k] = cn1[k];
            ra[k] = a1[k];
            ran[k] = an[k];
            a[k] = oa;
            b[k] = ob;
            c[k] = c0;
            d[k] = d0;
        }
    }
};

/* ---- inverse stage: coded quad row j in, quad row j - 1 restored out --------- */

template <class M, int K> struct InvStage {
    using T = typename M::T;
    T ra[K] = {}, ran[K] = {}, rb[K] = {}; /* quad j - 1: a, a of pair p + 1, b restored */
    T rc[K] = {}, rd[K] = {}, rdw[K] = {}; /* quad j - 1: c, d predicted, d of pair p - 1 */

    __device__ __forceinline__ void push(int s, T (&a)[K], T (&b)[K], T (&c)[K], T (&d)[K],
                                         int lane)
    {
        T dw[K], b1[K], c1[K], bw[K];
        from_prev<K>(d, dw, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            b1[k] = M::ue(s, b[k], rd[k], d[k], true);
            c1[k] = M::ue(s, c[k], dw[k], d[k], true);
        }
        from_prev<K>(b1, bw, lane);
        T a0[K], an[K];
#pragma unroll
        for (int k = 0; k < K; ++k)
            a0[k] = M::ua(s, a[k], bw[k], b1[k], rc[k], c1[k], rdw[k], rd[k], dw[k], d[k], true);
        from_next<K>(a0, an, lane);
        T c0[K], cn[K], b0[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            b0[k] = M::pe(s, b1[k], a0[k], an[k], true); /* b of quad j restored */
            c0[k] = M::pe(s, rc[k], ra[k], a0[k], true); /* c of quad j - 1 */
        }
        from_next<K>(c0, cn, lane);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const T d0 =
                M::pd(s, rd[k], rb[k], b0[k], c0[k], cn[k], ra[k], ran[k], a0[k], an[k], true);
            const T oa = ra[k], ob = rb[k];
            ra[k] = a0[k];
            ran[k] = an[k];
            rb[k] = b0[k];
            rc[k] = c1[k];
            rd[k] = d[k];
            rdw[k] = dw[k];
            a[k] = oa;
            b[k] = ob;
            c[k] = c0[k];
            d[k] = d0;
        }
    }
};

/* The stage a scheme lifts with. */
template <class M, int K>
using fwd_stage_t = std::conditional_t<M::EXPL, ExplFwdStage<M, K>, FwdStage<M, K>>;
template <class M, int K>
using inv_stage_t = std::conditional_t<M::EXPL, ExplInvStage<M, K>, InvStage<M, K>>;

/* ---- forward level ------------------------------------------------------------- */

template <class M, int K, class Src, class OutT, bool QUANT>
__global__ void __launch_bounds__(32 * LEVEL_WARPS)
    mono_fwd_kernel(const wcg_fwd_level lv, const Src src, int strips, int seg_rows, int nseg)
{
    using T = typename M::T;
    using Raw = typename Src::Raw;
    constexpr int S = M::STAGES;
    constexpr int OUTP = strip_pairs<K, S>();
    const int lane = threadIdx.x & 31;
    const int w = (int)lv.w, h = (int)lv.h;
    const int wl = (w + 1) >> 1, hl = (h + 1) >> 1;
    const warp_work ww = my_work();
    if (ww.strip >= strips) return;
    const int P0 = ww.strip * OUTP - S;

    size_t ce[K], co[K];
    bool ve[K], vo[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int local = 32 * k + lane;
        const int g = P0 + local;
        ce[k] = src.col(mirror(2 * g, w));
        co[k] = src.col(mirror(2 * g + 1, w));
        ve[k] = local >= S && local < S + OUTP && g < wl;
        vo[k] = ve[k] && 2 * g + 1 < w;
    }
    const bool paired = src.pairable() && P0 >= 0 && 2 * (P0 + 32 * K) <= w;
    auto load_row = [&](int y, Raw(&e)[K], Raw(&o)[K]) {
        const auto r = src.row(y);
        if (paired) {
#pragma unroll
            for (int k = 0; k < K; ++k) src.load2(r, ce[k], e[k], o[k]);
        } else {
#pragma unroll
            for (int k = 0; k < K; ++k) {
                e[k] = src.load(r, ce[k]);
                o[k] = src.load(r, co[k]);
            }
        }
    };
    OutT *const out = (OutT *)lv.out;
    /* Quad row p: a to LL (or the next level's LL), b to HL, c to LH, d to
     * HH. */
    auto emit = [&](int p, const T(&a)[K], const T(&b)[K], const T(&c)[K], const T(&d)[K]) {
        OutT *const lrow = out + (size_t)p * lv.out_pitch + P0 + lane;
        if (lv.last) {
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (ve[k])
                    put(lrow + 32 * k, make_coeff<OutT, QUANT>(a[k], lv.step[0], lv.threshold));
        } else {
            T *const llrow = (T *)lv.ll + (size_t)p * lv.ll_pitch + P0 + lane;
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (ve[k]) llrow[32 * k] = a[k];
        }
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (vo[k])
                put(lrow + wl + 32 * k, make_coeff<OutT, QUANT>(b[k], lv.step[1], lv.threshold));
        if (2 * p + 1 >= h) return;
        OutT *const hrow = out + (size_t)(hl + p) * lv.out_pitch + P0 + lane;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (ve[k]) put(hrow + 32 * k, make_coeff<OutT, QUANT>(c[k], lv.step[2], lv.threshold));
            if (vo[k])
                put(hrow + wl + 32 * k, make_coeff<OutT, QUANT>(d[k], lv.step[3], lv.threshold));
        }
    };

    for (int seg = ww.seg; seg < nseg; seg += ww.seg_step) {
        const int i0 = seg * seg_rows;
        const int i1 = min(i0 + seg_rows, hl);
        const int js = i0 - S, je = i1 + S;
        fwd_stage_t<M, K> st[S];
        Raw ra[2][K], rb[2][K], rc[2][K], rd[2][K]; /* quad j in buffer j & 1 */
        load_row(mirror(2 * js, h), ra[0], rb[0]);
        load_row(mirror(2 * js + 1, h), rc[0], rd[0]);
        auto iteration = [&](int j, auto sel) {
            constexpr int cur = decltype(sel)::value, nxt = 1 - cur;
            load_row(mirror(2 * j + 2, h), ra[nxt], rb[nxt]);
            load_row(mirror(2 * j + 3, h), rc[nxt], rd[nxt]);
            T a[K], b[K], c[K], d[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                a[k] = src.value(ra[cur][k], false);
                b[k] = src.value(rb[cur][k], paired);
                c[k] = src.value(rc[cur][k], false);
                d[k] = src.value(rd[cur][k], paired);
            }
#pragma unroll
            for (int s = 0; s < S; ++s) st[s].push(s, a, b, c, d, lane);
            const int p = j - S;
            if (p >= i0) {
#pragma unroll
                for (int k = 0; k < K; ++k) M::scale(a[k], b[k], c[k], d[k], false);
                emit(p, a, b, c, d);
            }
        };
        int j = js;
        for (; j + 1 < je; j += 2) {
            iteration(j, sel<0>{});
            iteration(j + 1, sel<1>{});
        }
        if (j < je) iteration(j, sel<0>{});
    }
}

template <class M, int K, class Src, class OutT, bool QUANT>
cudaError_t mono_launch_fwd(const wcg_fwd_level *lv, const Src &src, cudaStream_t st)
{
    constexpr int OUTP = strip_pairs<K, M::STAGES>();
    auto kernel = mono_fwd_kernel<M, K, Src, OutT, QUANT>;
    const uint32_t wl = (lv->w + 1) / 2, hl = (lv->h + 1) / 2;
    const uint32_t strips = (wl + OUTP - 1) / OUTP;
    const int seg = level_segment_rows(hl, strips, 2 * M::STAGES, resident_blocks(kernel));
    const int nseg = (int)((hl + seg - 1) / seg);
    kernel<<<level_grid(strips, nseg), 32 * LEVEL_WARPS, 0, st>>>(*lv, src, (int)strips, seg, nseg);
    return cudaGetLastError();
}

template <class M, int K, class S, class OutT, bool QUANT>
cudaError_t mono_launch_fwd_samples(const wcg_fwd_level *lv, cudaStream_t st)
{
    using T = typename M::T;
    const wcg_samples &s = lv->samples;
    if (s.colour != WC_COLOUR_NONE && s.comp < 3) {
        const SampleSrc<S, T, true> src = {(const S *)s.px, s.pitch,  s.comps,
                                           s.comp,          s.colour, s.shift};
        return mono_launch_fwd<M, K, SampleSrc<S, T, true>, OutT, QUANT>(lv, src, st);
    }
    const SampleSrc<S, T, false> src = {(const S *)s.px, s.pitch,  s.comps,
                                        s.comp,          s.colour, s.shift};
    return mono_launch_fwd<M, K, SampleSrc<S, T, false>, OutT, QUANT>(lv, src, st);
}

template <class M, int K, class OutT, bool QUANT>
cudaError_t mono_fwd_level(const wcg_fwd_level *lv, cudaStream_t st)
{
    using T = typename M::T;
    if (!lv->from_samples) {
        const PlaneSrc<T> src = {(const T *)lv->src, lv->src_pitch};
        return mono_launch_fwd<M, K, PlaneSrc<T>, OutT, QUANT>(lv, src, st);
    }
    return lv->samples.bytes == 1 ? mono_launch_fwd_samples<M, K, uint8_t, OutT, QUANT>(lv, st)
                                  : mono_launch_fwd_samples<M, K, uint16_t, OutT, QUANT>(lv, st);
}

/* ---- inverse level -------------------------------------------------------------- */

template <class M, int K, class Dst>
__global__ void __launch_bounds__(32 * LEVEL_WARPS)
    mono_inv_kernel(const wcg_inv_level lv, int strips, int seg_rows, int nseg)
{
    using T = typename M::T;
    constexpr int S = M::STAGES;
    constexpr int OUTP = strip_pairs<K, S>();
    const int lane = threadIdx.x & 31;
    const int w = (int)lv.w, h = (int)lv.h;
    const int wl = (w + 1) >> 1, hl = (h + 1) >> 1;
    const warp_work ww = my_work();
    if (ww.strip >= strips) return;
    const int P0 = ww.strip * OUTP - S;

    int lo[K], hi[K];
    bool ve[K], vo[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int local = 32 * k + lane;
        const int g = P0 + local;
        lo[k] = mirror(2 * g, w) >> 1;
        hi[k] = wl + (mirror(2 * g + 1, w) >> 1);
        ve[k] = local >= S && local < S + OUTP && g < wl;
        vo[k] = ve[k] && 2 * g + 1 < w;
    }
    const int32_t *const coef = lv.coef;
    const T *const llp = (const T *)lv.ll;
    struct RawQuad {
        uint32_t a[K], b[K], c[K], d[K];
    };
    auto load_quad = [&](int j, RawQuad &r) {
        const int rl = mirror(2 * j, h) >> 1;
        const int rh = hl + (mirror(2 * j + 1, h) >> 1);
        const int32_t *const cl = coef + (size_t)rl * lv.coef_pitch;
        const int32_t *const chh = coef + (size_t)rh * lv.coef_pitch;
        const T *const ll = llp + (size_t)rl * lv.ll_pitch;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            r.a[k] = lv.ll_from_coef ? (uint32_t)__ldg(cl + lo[k]) : as_bits(__ldg(ll + lo[k]));
            r.b[k] = (uint32_t)__ldg(cl + hi[k]);
            r.c[k] = (uint32_t)__ldg(chh + lo[k]);
            r.d[k] = (uint32_t)__ldg(chh + hi[k]);
        }
    };
    auto store_row = [&](int y, const T(&e)[K], const T(&o)[K]) {
        store_inv_row<T, K, Dst>(lv, y, P0 + lane, ve, vo, e, o);
    };

    for (int seg = ww.seg; seg < nseg; seg += ww.seg_step) {
        const int i0 = seg * seg_rows;
        const int i1 = min(i0 + seg_rows, hl);
        const int js = i0 - S, je = i1 + S;
        inv_stage_t<M, K> st[S];
        RawQuad buf[2];
        load_quad(js, buf[0]);
        auto iteration = [&](int j, auto sel) {
            constexpr int cur = decltype(sel)::value, nxt = 1 - cur;
            load_quad(j + 1, buf[nxt]);
            T a[K], b[K], c[K], d[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                a[k] = lv.ll_from_coef
                           ? dequantize_value<T>((int32_t)buf[cur].a[k], lv.step[0], lv.recon)
                           : from_bits<T>(buf[cur].a[k]);
                b[k] = dequantize_value<T>((int32_t)buf[cur].b[k], lv.step[1], lv.recon);
                c[k] = dequantize_value<T>((int32_t)buf[cur].c[k], lv.step[2], lv.recon);
                d[k] = dequantize_value<T>((int32_t)buf[cur].d[k], lv.step[3], lv.recon);
                M::scale(a[k], b[k], c[k], d[k], true);
            }
#pragma unroll
            for (int s = S - 1; s >= 0; --s) st[S - 1 - s].push(s, a, b, c, d, lane);
            const int p = j - S;
            if (p >= i0) {
                store_row(2 * p, a, b);
                if (2 * p + 1 < h) store_row(2 * p + 1, c, d);
            }
        };
        int j = js;
        for (; j + 1 < je; j += 2) {
            iteration(j, sel<0>{});
            iteration(j + 1, sel<1>{});
        }
        if (j < je) iteration(j, sel<0>{});
    }
}

template <class M, int K, class Dst>
cudaError_t mono_launch_inv(const wcg_inv_level *lv, cudaStream_t st)
{
    constexpr int OUTP = strip_pairs<K, M::STAGES>();
    auto kernel = mono_inv_kernel<M, K, Dst>;
    const uint32_t wl = (lv->w + 1) / 2, hl = (lv->h + 1) / 2;
    const uint32_t strips = (wl + OUTP - 1) / OUTP;
    const int seg = level_segment_rows(hl, strips, 2 * M::STAGES, resident_blocks(kernel));
    const int nseg = (int)((hl + seg - 1) / seg);
    kernel<<<level_grid(strips, nseg), 32 * LEVEL_WARPS, 0, st>>>(*lv, (int)strips, seg, nseg);
    return cudaGetLastError();
}

template <class M, int K> cudaError_t mono_inv_level(const wcg_inv_level *lv, cudaStream_t st)
{
    if (!lv->to_samples) return mono_launch_inv<M, K, plane_dst>(lv, st);
    return lv->samples.bytes == 1 ? mono_launch_inv<M, K, sample_dst<uint8_t>>(lv, st)
                                  : mono_launch_inv<M, K, sample_dst<uint16_t>>(lv, st);
}

#ifndef WCG_KMONO
#define WCG_KMONO 2
#endif
constexpr int KM = WCG_KMONO; /* pairs per lane: a warp strip is 64*KM columns */

} /* namespace wcg */

#endif /* WC_DWT_MONO_LEVEL_CUH */
