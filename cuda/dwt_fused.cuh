/*
 * dwt_fused.cuh -- two DWT levels in one pass, forward and inverse, so that
 * the LL between them never goes to device memory (at 8192^2 the level-1
 * LL is 134 MB of int32 written and read back: a quarter of the traffic of
 * five per-level passes; PERF_NOTES.md).
 *
 * Layout. Lane t of a warp holds NC = 2*NP consecutive columns of the finer
 * level (NP level-1 pairs, whose LL columns are NQ = NP/2 level-2 pairs);
 * the warp owns a strip of 32*NC columns and slides down a segment of rows
 * as the level kernels of dwt_level.cuh do: vertical lifting inside each
 * thread, horizontal lifting with one __shfl_sync per lifting step (only a
 * lane's first or last value crosses to a neighbour). The horizontal steps
 * of both levels spoil LO lanes at each end of the strip, so strips overlap
 * and own the OWN lanes in between, chosen so that every band row a strip
 * writes starts on a 32-byte sector (Geo below).
 *
 * The coarser level runs on rows of the middle LL that the finer level
 * makes (forward) or needs (inverse), one coarse row pair per two fine row
 * pairs. Those rows pass through a ring of RING rows in shared memory per
 * warp. The ring also gives the coarse level its symmetric extension: rows
 * and columns outside the middle LL are read from their mirror images
 * (the values the finer level would make there are not the mirror images
 * when a length is even). The ring lets the two levels run a fixed number
 * of super-iterations apart (`delta`): at the top of the image the first
 * coarse steps need mirrored rows from further down, so the top segment
 * runs with a larger delta.
 *
 * Status: bit-exact, but on an H100 still slower than two per-level
 * passes (8192^2 16-bit 5/3 forward: 0.42 ms for this file, 0.35 for its
 * v4b with one row pair in flight, against 0.25; PERF_NOTES.md v4a-v4c),
 * so the driver runs it only when asked (WCG_FUSE_MIN). The
 * first version, with every fallback inline (73 KB of SASS forward, 150 KB
 * inverse) and 4 pairs a lane (114-196 registers), took ~4 us a row step;
 * hence one copy of each level's step per loop trip, a fast variant for
 * strips wholly inside, fallbacks decided per lane, mirroring by a short
 * loop. ncu still shows the warps waiting on long-scoreboard dependencies
 * most of the time.
 *
 * Wavelet policy W (dwt53_kernels.cu, dwt97_kernels.cu) as for
 * dwt_level.cuh, plus hfwd_c<N>(e, o, lane) / hinv_c<N>(e, o, lane): the
 * horizontal steps on a row where each lane holds N consecutive pairs.
 */
#ifndef WC_DWT_FUSED_CUH
#define WC_DWT_FUSED_CUH

#include "dwt_level.cuh"

namespace wcg {
namespace fused {

constexpr int RING = 16; /* middle-LL rows per warp, a power of 2 */
constexpr int WARPS = LEVEL_WARPS;

/* Strip geometry for wavelet W with NP level-1 pairs per lane. */
template <class W, int NP_> struct Geo {
    static constexpr int NP = NP_, NC = 2 * NP, NQ = NP / 2;
    /* Lanes lost to the halo at each end, and lanes owned in between:
     * 4 pairs a lane, 2 + 28 + 2 for both wavelets; 2 pairs a lane, 2 + 28
     * + 2 for 5/3 and 3 + 24 + 5 for 9/7, so that the level-1 band runs
     * of a strip are whole 32-byte sectors (4 * NP * OWN bytes, a multiple of 32). */
    static constexpr int LO = NP == 4 || W::HALO == 1 ? 2 : 3;
    static constexpr int OWN = NP == 4 || W::HALO == 1 ? 28 : 24;
    /* What the halo must cover at each end: the forward spoils the level-2
     * pairs holding a spoiled middle-LL column and HALO more; the inverse
     * 3 * HALO level-1 pairs. */
    static constexpr int SPOIL2 = (W::HALO + 1) / 2 + W::HALO;
    static_assert(LO * NQ >= SPOIL2 && (32 - LO - OWN) * NQ >= SPOIL2, "forward halo too narrow");
    static_assert(LO * NP >= 3 * W::HALO && (32 - LO - OWN) * NP >= 3 * W::HALO, "inverse halo too narrow");
    static constexpr int OWN_COLS = OWN * NC;
    static_assert(NP == 2 || NP == 4, "2 or 4 pairs per lane");
};

template <int N, class T> struct vec_of;
template <> struct vec_of<4, int32_t> { using type = int4; };
template <> struct vec_of<4, float> { using type = float4; };
template <> struct vec_of<4, uint32_t> { using type = uint4; };
template <> struct vec_of<2, int32_t> { using type = int2; };
template <> struct vec_of<2, float> { using type = float2; };
template <> struct vec_of<2, uint32_t> { using type = uint2; };

__device__ __forceinline__ bool aligned(const void *p, unsigned bytes)
{
    return ((uintptr_t)p & (bytes - 1)) == 0;
}

/* Whole-sample symmetric extension for n >= 2 (dwt_device.cuh's mirror()
 * without its division: one reflection is all that strips of images at
 * least 3 wide ever need, and a loop keeps the inlined code short). */
__device__ __forceinline__ int reflect(int i, int n)
{
    while ((unsigned)i >= (unsigned)n) i = i < 0 ? -i : 2 * n - 2 - i;
    return i;
}

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* N (2 or 4) values as one vector: to and from shared memory, and as one
 * load or store of device memory where the address allows. */
template <int N, class T> __device__ __forceinline__ void vload(const T *p, T (&v)[N])
{
    const auto q = *(const typename vec_of<N, T>::type *)p;
    v[0] = q.x;
    v[1] = q.y;
    if constexpr (N == 4) {
        v[2] = q.z;
        v[3] = q.w;
    }
}
template <int N, class T> __device__ __forceinline__ void vstore(T *p, const T (&v)[N])
{
    typename vec_of<N, T>::type q;
    q.x = v[0];
    q.y = v[1];
    if constexpr (N == 4) {
        q.z = v[2];
        q.w = v[3];
    }
    *(typename vec_of<N, T>::type *)p = q;
}

/* N consecutive coefficients from p: one vector load where p allows
 * (FAST: the caller knows it does). */
template <int N, bool FAST = false> __device__ __forceinline__ void load_run(const int32_t *p, uint32_t (&v)[N])
{
    if constexpr (N > 1) {
        if (FAST || aligned(p, 4 * N)) {
            const auto q = __ldg((const typename vec_of<N, int32_t>::type *)p);
            v[0] = (uint32_t)q.x;
            v[1] = (uint32_t)q.y;
            if constexpr (N == 4) {
                v[2] = (uint32_t)q.z;
                v[3] = (uint32_t)q.w;
            }
            return;
        }
    }
    if constexpr (!FAST || N == 1) {
#pragma unroll
        for (int i = 0; i < N; ++i) v[i] = (uint32_t)__ldg(p + i);
    }
}

/* The first n (0..N) of N consecutive values to p: one vector store when
 * all N go and p allows (FAST: the caller knows that n is 0 or N and p is
 * aligned). STREAM: finished coefficients (see put()). */
template <bool STREAM, bool FAST = false, int N, class V>
__device__ __forceinline__ void store_run(V *p, const V (&v)[N], int n)
{
    if (n <= 0) return;
    if constexpr (N > 1) {
        if (FAST || (n == N && aligned(p, 4 * N))) {
            typename vec_of<N, V>::type q;
            q.x = v[0];
            q.y = v[1];
            if constexpr (N == 4) {
                q.z = v[2];
                q.w = v[3];
            }
            if (STREAM)
                put((typename vec_of<N, V>::type *)p, q);
            else
                *(typename vec_of<N, V>::type *)p = q;
            return;
        }
    }
    if constexpr (!FAST || N == 1) {
#pragma unroll
        for (int i = 0; i < N; ++i)
            if (i < n) {
                if (STREAM)
                    put(p + i, v[i]);
                else
                    p[i] = v[i];
            }
    }
}

/* Finished coefficients of one band run; an int plane with step 1 and no
 * threshold passes through (the test made once per run, not per value). */
template <class OutT, bool QUANT, int N, class T>
__device__ __forceinline__ void coeff_run(const T (&v)[N], float step, float thr, OutT (&q)[N])
{
    if constexpr (QUANT && std::is_same_v<T, int32_t>) {
        if (step == 1.0f && thr == 0.0f) {
#pragma unroll
            for (int i = 0; i < N; ++i) q[i] = v[i];
            return;
        }
    }
#pragma unroll
    for (int i = 0; i < N; ++i) q[i] = make_coeff<OutT, QUANT>(v[i], step, thr);
}

/* Dequantized values of one band run; int planes with step 1 pass through. */
template <class T, int N>
__device__ __forceinline__ void deq_run(const uint32_t (&q)[N], float step, float recon, T (&v)[N])
{
    if constexpr (std::is_same_v<T, int32_t>) {
        if (step == 1.0f) {
#pragma unroll
            for (int i = 0; i < N; ++i) v[i] = (int32_t)q[i];
            return;
        }
    }
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = dequantize_value<T>((int32_t)q[i], step, recon);
}

/* ---- sources of the forward pass: NC consecutive columns per lane ----------- */

/* The previous level's LL, a plane of T. */
template <class T, int NC> struct PlaneRows {
    struct Raw {
        uint32_t v[NC];
    };
    const T *p;
    size_t pitch;
    __device__ __forceinline__ bool vec_ok() const { return (pitch & 3) == 0 && aligned(p, 16); }
    __device__ __forceinline__ const T *row(int y) const { return p + (size_t)y * pitch; }
    __device__ __forceinline__ void load(const T *r, int x, Raw &raw) const
    {
#pragma unroll
        for (int k = 0; k < NC; k += 4) {
            const uint4 a = __ldg((const uint4 *)(r + x + k));
            raw.v[k] = a.x, raw.v[k + 1] = a.y, raw.v[k + 2] = a.z, raw.v[k + 3] = a.w;
        }
    }
    __device__ __forceinline__ void load_mirrored(const T *r, int x, int w, Raw &raw) const
    {
#pragma unroll
        for (int c = 0; c < NC; ++c) raw.v[c] = as_bits(__ldg(r + reflect(x + c, w)));
    }
    __device__ __forceinline__ T value(const Raw &raw, int c) const { return from_bits<T>(raw.v[c]); }
};

/* One component of interleaved samples, level-shifted. With one component
 * per pixel, a lane's samples load as one word (4 to 16 bytes) and stay
 * packed until used (unpacking at once would wait for the load). */
template <class S, class T, int NC> struct SampleRows {
    static constexpr int PER = 4 / (int)sizeof(S); /* samples per 32-bit word */
    static constexpr int BITS = 8 * (int)sizeof(S);
    static constexpr int WORDS = NC / PER;
    struct Raw {
        uint32_t v[WORDS];
    };
    const S *px;
    size_t pitch;
    uint32_t comps, comp;
    int32_t shift;
    __device__ __forceinline__ bool vec_ok() const
    {
        return comps == 1 && (pitch * sizeof(S)) % (NC * sizeof(S)) == 0 && aligned(px, NC * sizeof(S));
    }
    __device__ __forceinline__ const S *row(int y) const { return px + (size_t)y * pitch; }
    __device__ __forceinline__ void load(const S *r, int x, Raw &raw) const
    {
        if constexpr (WORDS == 4) {
            const uint4 q = __ldg((const uint4 *)(r + x));
            raw.v[0] = q.x, raw.v[1] = q.y, raw.v[2] = q.z, raw.v[3] = q.w;
        } else if constexpr (WORDS == 2) {
            const uint2 q = __ldg((const uint2 *)(r + x));
            raw.v[0] = q.x, raw.v[1] = q.y;
        } else {
            raw.v[0] = __ldg((const uint32_t *)(r + x));
        }
    }
    __device__ __forceinline__ void load_mirrored(const S *r, int x, int w, Raw &raw) const
    {
#pragma unroll
        for (int i = 0; i < WORDS; ++i) {
            uint32_t word = 0;
#pragma unroll
            for (int k = 0; k < PER; ++k)
                word |= (uint32_t)__ldg(r + (size_t)reflect(x + PER * i + k, w) * comps + comp) << (BITS * k);
            raw.v[i] = word;
        }
    }
    __device__ __forceinline__ T value(const Raw &raw, int c) const
    {
        const uint32_t v = (raw.v[c / PER] >> (BITS * (c % PER))) & ((1u << BITS) - 1);
        return (T)((int32_t)v - shift);
    }
};

/* Components 0..2 through the forward colour transform: three channels per
 * pixel, converted as loaded (the registers to keep them raw would cost
 * more occupancy than the wait). */
template <class S, class T, int NC> struct ColourRows {
    struct Raw {
        T v[NC];
    };
    const S *px;
    size_t pitch;
    uint32_t comps, comp;
    int colour;
    int32_t shift;
    __device__ __forceinline__ bool vec_ok() const { return false; }
    __device__ __forceinline__ const S *row(int y) const { return px + (size_t)y * pitch; }
    __device__ __forceinline__ void load(const S *, int, Raw &) const {}
    __device__ __forceinline__ void load_mirrored(const S *r, int x, int w, Raw &raw) const
    {
#pragma unroll
        for (int c = 0; c < NC; ++c) {
            const S *q = r + (size_t)reflect(x + c, w) * comps;
            raw.v[c] = colour_forward<T>(colour, comp, (int32_t)__ldg(q) - shift,
                                         (int32_t)__ldg(q + 1) - shift, (int32_t)__ldg(q + 2) - shift);
        }
    }
    __device__ __forceinline__ T value(const Raw &raw, int c) const { return raw.v[c]; }
};

/* ---- forward ----------------------------------------------------------------- */

/* Levels l (l1: reads src, writes its HL, LH, HH) and l+1 (l2: reads the
 * middle LL from the ring, writes its HL, LH, HH and its LL to l2.ll, or to
 * the plane, quantized, when l2.last). Segments count coarse row pairs. */
template <class W, int NP, class Src, class OutT, bool QUANT>
__global__ void __launch_bounds__(32 * WARPS)
    fwd2_kernel(const wcg_fwd_level l1, const wcg_fwd_level l2, const Src src, int strips, int seg_rows,
                int nseg)
{
    using G = Geo<W, NP>;
    constexpr int NC = G::NC, NQ = G::NQ;
    using T = typename W::T;
    using Raw = typename Src::Raw;
    __shared__ T ring_all[WARPS][RING][32 * NP];
    const int lane = threadIdx.x & 31, warp = (int)(threadIdx.x >> 5);
    const int strip = (int)blockIdx.x * WARPS + warp;
    if (strip >= strips) return;
    T(*const ring)[32 * NP] = ring_all[warp];

    const int w = (int)l1.w, h = (int)l1.h;
    const int wl1 = (w + 1) >> 1, hl1 = (h + 1) >> 1, wl2 = (wl1 + 1) >> 1, hl2 = (hl1 + 1) >> 1;
    const int X = strip * G::OWN_COLS - G::LO * NC; /* the strip's first column */
    const int x0 = X + NC * lane;                  /* this lane's */
    const int g1 = x0 >> 1, g2 = x0 >> 2;          /* its first level-1 and level-2 pair */
    const int xm = X >> 1;                         /* the strip's first middle-LL column */
    const bool own = lane >= G::LO && lane < G::LO + G::OWN;
    /* Values each band row of this lane writes (a prefix of its run). */
    const int n1e = own ? clampi(wl1 - g1, 0, NP) : 0, n1o = own ? clampi(w / 2 - g1, 0, NP) : 0;
    const int n2e = own ? clampi(wl2 - g2, 0, NQ) : 0, n2o = own ? clampi(wl1 / 2 - g2, 0, NQ) : 0;
    /* This lane's columns, and its middle-LL columns, need no mirroring. */
    const bool in0 = src.vec_ok() && x0 >= 0 && x0 + NC <= w;
    const bool in1 = g1 >= 0 && g1 + NP <= wl1;

    OutT *const out = (OutT *)l1.out;
    /* A strip wholly inside the image whose band rows all align runs the
     * fast variant of the loop: vector loads and stores without checks or
     * mirrored fallbacks, so the loop the most warps run stays short. */
    const bool fast = src.vec_ok() && X >= 0 && X + 32 * NC <= w && aligned(out, 4 * NP) &&
                      l1.out_pitch % NP == 0 && wl1 % NP == 0 && wl2 % NQ == 0 &&
                      (l2.last || (aligned(l2.ll, 4 * NQ) && l2.ll_pitch % NQ == 0));
    auto segments = [&](auto fast_tag) {
    constexpr bool F = decltype(fast_tag)::value != 0;
    auto load_row = [&](int y, Raw &r) {
        const auto rp = src.row(reflect(y, h));
        if (F || in0)
            src.load(rp, x0, r);
        else
            src.load_mirrored(rp, x0, w, r);
    };
    auto read_ring = [&](int row, T(&v)[NP]) {
        const T *const rr = ring[row & (RING - 1)];
        if (F || in1) {
            vload<NP>(rr + NP * lane, v);
        } else {
#pragma unroll
            for (int i = 0; i < NP; ++i) v[i] = rr[clampi(reflect(g1 + i, wl1) - xm, 0, 32 * NP - 1)];
        }
    };

    for (int seg = (int)blockIdx.y; seg < nseg; seg += (int)gridDim.y) {
        const int a2 = seg * seg_rows, b2 = min(a2 + seg_rows, hl2);
        /* Level-2 steps m in [m_s, m_e) finish its pairs a2..b2-1; they read
         * middle-LL rows r_lo..r_hi, which level-1 iterations js..r_hi +
         * FWD_LAG make. */
        const int m_s = a2 - W::FWD_WARM, m_e = b2 + W::FWD_LAG;
        const int r_lo = max(0, 2 * m_s), r_hi = min(hl1 - 1, 2 * m_e);
        const int js = r_lo - W::FWD_WARM;
        const int own_lo = 2 * a2, own_hi = min(2 * b2, hl1); /* level-1 rows this segment writes */
        /* Step m runs at the end of super-iteration m + delta, by when level 1
         * has made rows up to 2(m + delta) + 1 - FWD_LAG. */
        int delta = 1;
        for (int m = m_s; m < min(0, m_e); ++m) {
            const int need = max(reflect(2 * m, hl1), max(reflect(2 * m + 1, hl1), reflect(2 * m + 2, hl1)));
            delta = max(delta, ((need + W::FWD_LAG) >> 1) - m);
        }

        typename W::VFwd st1[NC];
        typename W::VFwd st2[NP];
        /* Rows 2j+1, 2j+2 of level-1 iteration j in buffer (j - j0) & 3,
         * loaded three iterations ahead: a warp keeps three row pairs in
         * flight (one was not enough to cover the memory latency). The
         * iterations start at j0, a multiple of 4 at or before js, so that
         * the buffer of each unrolled step is known at compile time; the
         * extra leading iterations are warm-up on real (mirrored) rows. */
        const int j0 = js & ~3;
        Raw A[4], B[4];
        T xe[NC]; /* row 2j */
        {
            Raw r;
            load_row(2 * j0, r);
#pragma unroll
            for (int c = 0; c < NC; ++c) xe[c] = src.value(r, c);
#pragma unroll
            for (int k = 0; k < 3; ++k) {
                load_row(2 * (j0 + k) + 1, A[k]);
                load_row(2 * (j0 + k) + 2, B[k]);
            }
        }

        /* Level-1 iteration j (buffer K): every one runs, also past je
         * (rows are mirrored, so every load is valid); only what it
         * writes is limited to this segment's rows. */
        auto level1 = [&](int j, auto sel) {
            constexpr int K = decltype(sel)::value, L = (K + 3) & 3;
            load_row(2 * j + 7, A[L]);
            load_row(2 * j + 8, B[L]);
            T se[NP], so[NP], de[NP], dq[NP];
#pragma unroll
            for (int c = 0; c < NC; ++c) {
                const T b = src.value(B[K], c);
                T s, d;
                st1[c].step(xe[c], src.value(A[K], c), b, s, d);
                xe[c] = b;
                if (c & 1) {
                    so[c >> 1] = s;
                    dq[c >> 1] = d;
                } else {
                    se[c >> 1] = s;
                    de[c >> 1] = d;
                }
            }
            const int p = j - W::FWD_LAG;
            if (p < r_lo || p > r_hi) return;
            W::template hfwd_c<NP>(se, so, lane);
            W::template hfwd_c<NP>(de, dq, lane);
            vstore<NP>(ring[p & (RING - 1)] + NP * lane, se); /* LL: for level 2 */
            if (p < own_lo || p >= own_hi) return;
            OutT q[NP];
            OutT *const lrow = out + (size_t)p * l1.out_pitch;
            coeff_run<OutT, QUANT>(so, l1.step[1], l1.threshold, q);
            store_run<true, F>(lrow + wl1 + g1, q, n1o);
            if (2 * p + 1 < h) {
                OutT *const hrow = out + (size_t)(hl1 + p) * l1.out_pitch;
                coeff_run<OutT, QUANT>(de, l1.step[2], l1.threshold, q);
                store_run<true, F>(hrow + g1, q, n1e);
                coeff_run<OutT, QUANT>(dq, l1.step[3], l1.threshold, q);
                store_run<true, F>(hrow + wl1 + g1, q, n1o);
            }
        };

        auto level2 = [&](int m) {
            if (m < m_s || m >= m_e) return;
            __syncwarp(); /* the ring rows other lanes wrote */
            T x0r[NP], x1r[NP], x2r[NP];
            read_ring(reflect(2 * m, hl1), x0r);
            read_ring(reflect(2 * m + 1, hl1), x1r);
            read_ring(reflect(2 * m + 2, hl1), x2r);
            T s[NP], d[NP];
#pragma unroll
            for (int c = 0; c < NP; ++c) st2[c].step(x0r[c], x1r[c], x2r[c], s[c], d[c]);
            const int q = m - W::FWD_LAG;
            if (q < a2) return;
            T se[NQ], so[NQ], de[NQ], dq[NQ];
#pragma unroll
            for (int i = 0; i < NQ; ++i) {
                se[i] = s[2 * i];
                so[i] = s[2 * i + 1];
                de[i] = d[2 * i];
                dq[i] = d[2 * i + 1];
            }
            W::template hfwd_c<NQ>(se, so, lane);
            W::template hfwd_c<NQ>(de, dq, lane);
            OutT o[NQ];
            OutT *const lrow = out + (size_t)q * l2.out_pitch;
            if (l2.last) {
                coeff_run<OutT, QUANT>(se, l2.step[0], l2.threshold, o);
                store_run<true, F>(lrow + g2, o, n2e);
            } else {
                store_run<false, F>((T *)l2.ll + (size_t)q * l2.ll_pitch + g2, se, n2e);
            }
            coeff_run<OutT, QUANT>(so, l2.step[1], l2.threshold, o);
            store_run<true, F>(lrow + wl2 + g2, o, n2o);
            if (2 * q + 1 < hl1) {
                OutT *const hrow = out + (size_t)(hl2 + q) * l2.out_pitch;
                coeff_run<OutT, QUANT>(de, l2.step[2], l2.threshold, o);
                store_run<true, F>(hrow + g2, o, n2e);
                coeff_run<OutT, QUANT>(dq, l2.step[3], l2.threshold, o);
                store_run<true, F>(hrow + wl2 + g2, o, n2o);
            }
        };

        /* Two super-iterations (four level-1 steps, two level-2 steps) a
         * trip, until the last level-2 step has run; that is also past the
         * last level-1 step (je - 1), since level 2 waits for its rows. */
        const int u_end = m_e + delta;
        for (int j = j0; (j >> 1) < u_end; j += 4) {
            level1(j, sel<0>{});
            level1(j + 1, sel<1>{});
            level2((j >> 1) - delta);
            level1(j + 2, sel<2>{});
            level1(j + 3, sel<3>{});
            level2((j >> 1) + 1 - delta);
        }
    }
    };
    if (fast)
        segments(sel<1>{});
    else
        segments(sel<0>{});
}

/* ---- inverse ----------------------------------------------------------------- */

/* Where the finer inverse level writes: a plane of T (the next level's LL,
 * or a colour plane) or the samples (rounded, shifted, clamped). */
template <class T, int NC> struct PlaneOut {
    T *p;
    size_t pitch;
    __device__ __forceinline__ bool fast_ok() const { return aligned(p, 16) && pitch % 4 == 0; }
    template <bool FAST> __device__ __forceinline__ void store(int y, int x, const T (&v)[NC], int n) const
    {
        T *const r = p + (size_t)y * pitch + x;
#pragma unroll
        for (int k = 0; k < NC; k += 4) {
            const T a[4] = {v[k], v[k + 1], v[k + 2], v[k + 3]};
            store_run<false, FAST>(r + k, a, n - k);
        }
    }
};

template <class S, int NC> struct SampleOut {
    static constexpr int PER = 4 / (int)sizeof(S), WORDS = NC / PER;
    wcg_samples s;
    __device__ __forceinline__ bool fast_ok() const
    {
        return s.comps == 1 && aligned(s.px, NC * sizeof(S)) && s.pitch % NC == 0;
    }
    template <bool FAST, class T> __device__ __forceinline__ void store(int y, int x, const T (&v)[NC], int n) const
    {
        if (FAST && n <= 0) return;
        S *const r = (S *)s.px + (size_t)y * s.pitch + (size_t)x * s.comps + s.comp;
        S q[NC];
#pragma unroll
        for (int c = 0; c < NC; ++c) q[c] = (S)to_sample(s, v[c]);
        if (FAST || (n == NC && s.comps == 1 && aligned(r, NC * sizeof(S)))) {
            uint32_t wd[WORDS];
#pragma unroll
            for (int i = 0; i < WORDS; ++i) {
                uint32_t word = 0;
#pragma unroll
                for (int k = 0; k < PER; ++k) word |= (uint32_t)q[i * PER + k] << (8 * sizeof(S) * k);
                wd[i] = word;
            }
            if constexpr (WORDS == 4)
                *(uint4 *)r = make_uint4(wd[0], wd[1], wd[2], wd[3]);
            else if constexpr (WORDS == 2)
                *(uint2 *)r = make_uint2(wd[0], wd[1]);
            else
                *(uint32_t *)r = wd[0];
        } else {
#pragma unroll
            for (int c = 0; c < NC; ++c)
                if (c < n) r[(size_t)c * s.comps] = q[c];
        }
    }
};

/* Levels l+1 (l2: its LL from l2.ll, or dequantized from the plane when
 * l2.ll_from_coef, and its bands) and l (l1: its bands; the result to
 * `dst`). The middle LL goes from level l+1 to level l through the ring.
 * Segments count the finer level's row pairs. */
template <class W, int NP, class Dst>
__global__ void __launch_bounds__(32 * WARPS)
    inv2_kernel(const wcg_inv_level l2, const wcg_inv_level l1, const Dst dst, int strips, int seg_rows,
                int nseg)
{
    using G = Geo<W, NP>;
    constexpr int NC = G::NC, NQ = G::NQ;
    using T = typename W::T;
    __shared__ T ring_all[WARPS][RING][32 * NP];
    const int lane = threadIdx.x & 31, warp = (int)(threadIdx.x >> 5);
    const int strip = (int)blockIdx.x * WARPS + warp;
    if (strip >= strips) return;
    T(*const ring)[32 * NP] = ring_all[warp];

    const int w = (int)l1.w, h = (int)l1.h;
    const int wl1 = (w + 1) >> 1, hl1 = (h + 1) >> 1, wl2 = (wl1 + 1) >> 1, hl2 = (hl1 + 1) >> 1;
    const int X = strip * G::OWN_COLS - G::LO * NC;
    const int x0 = X + NC * lane;
    const int g1 = x0 >> 1, g2 = x0 >> 2;
    const int xm = X >> 1;
    const int nout = lane >= G::LO && lane < G::LO + G::OWN ? clampi(w - x0, 0, NC) : 0;
    /* Coefficient columns: straight runs where this lane's pairs lie
     * inside, mirrored otherwise (mirroring keeps parity, so a low column
     * stays low). */
    const bool in1 = x0 >= 0 && x0 + NC <= w;  /* level-1 pairs */
    const bool in2 = g1 >= 0 && g1 + NP <= wl1; /* level-2 pairs */
    auto lo1 = [&](int i) { return reflect(2 * (g1 + i), w) >> 1; };
    auto hi1 = [&](int i) { return wl1 + (reflect(2 * (g1 + i) + 1, w) >> 1); };
    auto lo2 = [&](int i) { return reflect(2 * (g2 + i), wl1) >> 1; };
    auto hi2 = [&](int i) { return wl2 + (reflect(2 * (g2 + i) + 1, wl1) >> 1); };
    const int32_t *const coef = l1.coef;
    const size_t cp = l1.coef_pitch;

    /* The fast variant of the loop for strips wholly inside whose rows all
     * align (see fwd2_kernel). */
    const bool fast = X >= 0 && X + 32 * NC <= w && aligned(coef, 4 * NP) && cp % NP == 0 && wl1 % NP == 0 &&
                      wl2 % NQ == 0 && (l2.ll_from_coef || (aligned(l2.ll, 4 * NQ) && l2.ll_pitch % NQ == 0)) &&
                      dst.fast_ok();
    auto segments = [&](auto fast_tag) {
    constexpr bool F = decltype(fast_tag)::value != 0;
    /* Level 2's coefficient rows of iteration j, as loaded. */
    struct Raw2 {
        uint32_t le[NQ], lo[NQ], he[NQ], ho[NQ];
    };
    auto load2 = [&](int j, Raw2 &r) {
        const int rl = reflect(2 * j, hl1) >> 1, rh = hl2 + (reflect(2 * j + 1, hl1) >> 1);
        const int32_t *const cl = coef + (size_t)rl * cp, *const ch = coef + (size_t)rh * cp;
        const T *const ll = (const T *)l2.ll + (size_t)rl * l2.ll_pitch;
        if (F || in2) {
            load_run<NQ, F>(l2.ll_from_coef ? cl + g2 : (const int32_t *)(ll + g2), r.le);
            load_run<NQ, F>(cl + wl2 + g2, r.lo);
            load_run<NQ, F>(ch + g2, r.he);
            load_run<NQ, F>(ch + wl2 + g2, r.ho);
        } else {
#pragma unroll
            for (int i = 0; i < NQ; ++i) {
                const int lo = lo2(i), hi = hi2(i);
                r.le[i] = l2.ll_from_coef ? (uint32_t)__ldg(cl + lo) : as_bits(__ldg(ll + lo));
                r.lo[i] = (uint32_t)__ldg(cl + hi);
                r.he[i] = (uint32_t)__ldg(ch + lo);
                r.ho[i] = (uint32_t)__ldg(ch + hi);
            }
        }
    };
    /* Level 1's band rows of iteration j (its LL row comes from the ring). */
    struct Raw1 {
        uint32_t lo[NP], he[NP], ho[NP];
    };
    auto load1 = [&](int j, Raw1 &r) {
        const int rl = reflect(2 * j, h) >> 1, rh = hl1 + (reflect(2 * j + 1, h) >> 1);
        const int32_t *const cl = coef + (size_t)rl * cp, *const ch = coef + (size_t)rh * cp;
        if (F || in1) {
            load_run<NP, F>(cl + wl1 + g1, r.lo);
            load_run<NP, F>(ch + g1, r.he);
            load_run<NP, F>(ch + wl1 + g1, r.ho);
        } else {
#pragma unroll
            for (int i = 0; i < NP; ++i) {
                const int lo = lo1(i), hi = hi1(i);
                r.lo[i] = (uint32_t)__ldg(cl + hi);
                r.he[i] = (uint32_t)__ldg(ch + lo);
                r.ho[i] = (uint32_t)__ldg(ch + hi);
            }
        }
    };

    for (int seg = (int)blockIdx.y; seg < nseg; seg += (int)gridDim.y) {
        const int a1 = seg * seg_rows, b1 = min(a1 + seg_rows, hl1);
        /* Level-1 iterations [js1, je1) finish its row pairs a1..b1-1; they
         * read middle-LL rows r_lo..r_hi, which level-2 iterations from js2
         * to (r_hi >> 1) + INV_LAG make. */
        const int js1 = a1 - W::INV_WARM, je1 = b1 + W::INV_LAG;
        const int r_lo = max(js1, 0), r_hi = min(hl1 - 1, max(je1 - 1, -js1));
        const int js2 = (r_lo >> 1) - W::INV_WARM;
        /* Level-1 iteration j runs in super-iteration delta + (j >> 1), after
         * level-2 iteration u of that super-iteration has made middle-LL
         * rows up to 2(u - INV_LAG) + 1. */
        int delta = W::INV_LAG;
        for (int j = js1; j < min(je1, 1); ++j)
            delta = max(delta, ((reflect(2 * j, h) >> 1) >> 1) + W::INV_LAG - (j >> 1));

        typename W::VInv st1[NC];
        typename W::VInv st2[NP];
        /* Level-1 iteration j (its band rows loaded three iterations ahead
         * into c1[(j - j0) & 3]) runs in super-iteration u = delta + (j >> 1),
         * after level-2 iteration u (its rows loaded one super-iteration
         * ahead into c2[(u - u0) & 1]). j0, a multiple of 4, starts level 1
         * early enough that level 2 starts by js2; the extra iterations of
         * both levels are warm-up (on real rows, or for level 1 on ring rows
         * not yet made, whose results the real ones flush out before any
         * output). */
        const int j0 = min(js1, 2 * (js2 - delta)) & ~3;
        const int u0 = (j0 >> 1) + delta;
        Raw2 c2[2];
        Raw1 c1[4];
        load2(u0, c2[0]);
#pragma unroll
        for (int k = 0; k < 3; ++k) load1(j0 + k, c1[k]);

        auto level2 = [&](int j, auto sel) {
            constexpr int K = decltype(sel)::value;
            __syncwarp(); /* other lanes' reads of the ring slots written below */
            load2(j + 1, c2[1 - K]);
            const Raw2 &r = c2[K];
            T se[NQ], so[NQ], de[NQ], dq[NQ];
            if (l2.ll_from_coef)
                deq_run<T>(r.le, l2.step[0], l2.recon, se);
            else
#pragma unroll
                for (int i = 0; i < NQ; ++i) se[i] = from_bits<T>(r.le[i]);
            deq_run<T>(r.lo, l2.step[1], l2.recon, so);
            deq_run<T>(r.he, l2.step[2], l2.recon, de);
            deq_run<T>(r.ho, l2.step[3], l2.recon, dq);
            W::template hinv_c<NQ>(se, so, lane);
            W::template hinv_c<NQ>(de, dq, lane);
            T y0[NP], y1[NP];
#pragma unroll
            for (int i = 0; i < NQ; ++i) {
                st2[2 * i].step(se[i], de[i], y0[2 * i], y1[2 * i]);
                st2[2 * i + 1].step(so[i], dq[i], y0[2 * i + 1], y1[2 * i + 1]);
            }
            const int q = j - W::INV_LAG;
            if (2 * q >= r_lo && 2 * q <= r_hi) vstore<NP>(ring[(2 * q) & (RING - 1)] + NP * lane, y0);
            if (2 * q + 1 >= r_lo && 2 * q + 1 <= r_hi) vstore<NP>(ring[(2 * q + 1) & (RING - 1)] + NP * lane, y1);
        };

        auto level1 = [&](int j, auto sel) {
            constexpr int K = decltype(sel)::value;
            load1(j + 3, c1[(K + 3) & 3]);
            __syncwarp(); /* the ring rows other lanes wrote */
            const T *const rr = ring[(reflect(2 * j, h) >> 1) & (RING - 1)];
            const Raw1 &r = c1[K];
            T se[NP], so[NP], de[NP], dq[NP];
            if (j < js1 || j >= je1) {
                /* Warm-up or run-out: its ring row is not made (and may be
                 * being written), and nothing it computes is kept. */
#pragma unroll
                for (int i = 0; i < NP; ++i) se[i] = T(0);
            } else if (F || in1) {
                vload<NP>(rr + NP * lane, se);
            } else {
#pragma unroll
                for (int i = 0; i < NP; ++i) se[i] = rr[clampi(lo1(i) - xm, 0, 32 * NP - 1)];
            }
            deq_run<T>(r.lo, l1.step[1], l1.recon, so);
            deq_run<T>(r.he, l1.step[2], l1.recon, de);
            deq_run<T>(r.ho, l1.step[3], l1.recon, dq);
            W::template hinv_c<NP>(se, so, lane);
            W::template hinv_c<NP>(de, dq, lane);
            T y0[NC], y1[NC];
#pragma unroll
            for (int i = 0; i < NP; ++i) {
                st1[2 * i].step(se[i], de[i], y0[2 * i], y1[2 * i]);
                st1[2 * i + 1].step(so[i], dq[i], y0[2 * i + 1], y1[2 * i + 1]);
            }
            const int p = j - W::INV_LAG;
            if (p < a1 || p >= b1) return;
            dst.template store<F>(2 * p, x0, y0, nout);
            if (2 * p + 1 < h) dst.template store<F>(2 * p + 1, x0, y1, nout);
        };

        for (int j = j0; j < je1; j += 4) {
            const int u = (j >> 1) + delta;
            level2(u, sel<0>{});
            level1(j, sel<0>{});
            level1(j + 1, sel<1>{});
            level2(u + 1, sel<1>{});
            level1(j + 2, sel<2>{});
            level1(j + 3, sel<3>{});
        }
    }
    };
    if (fast)
        segments(sel<1>{});
    else
        segments(sel<0>{});
}

/* ---- launches ------------------------------------------------------------------ */

/* Strips for a finer level w wide. */
template <class G> inline uint32_t strips_for(uint32_t w)
{
    const uint32_t wl2 = ((w + 1) / 2 + 1) / 2;
    return (wl2 + G::OWN * G::NQ - 1) / (G::OWN * G::NQ);
}

template <class W, int NP, class Src, class OutT, bool QUANT>
cudaError_t launch_fwd2(const wcg_fwd_level *l1, const wcg_fwd_level *l2, const Src &src, cudaStream_t st)
{
    auto kernel = fwd2_kernel<W, NP, Src, OutT, QUANT>;
    const uint32_t hl2 = ((l1->h + 1) / 2 + 1) / 2;
    const uint32_t strips = strips_for<Geo<W, NP>>(l1->w);
    /* Warm-up and lag of both levels, in level-2 rows. */
    const int extra = W::FWD_WARM + W::FWD_LAG + 2;
    const int seg = level_segment_rows(hl2, strips, extra, resident_blocks(kernel));
    const int nseg = (int)((hl2 + seg - 1) / seg);
    kernel<<<level_grid(strips, nseg), 32 * WARPS, 0, st>>>(*l1, *l2, src, (int)strips, seg, nseg);
    return cudaGetLastError();
}

template <class W, int NP, class OutT, bool QUANT>
cudaError_t launch_fwd2_level(const wcg_fwd_level *l1, const wcg_fwd_level *l2, cudaStream_t st)
{
    using T = typename W::T;
    constexpr int NC = 2 * NP;
    if (!l1->from_samples) {
        const PlaneRows<T, NC> src = {(const T *)l1->src, l1->src_pitch};
        return launch_fwd2<W, NP, PlaneRows<T, NC>, OutT, QUANT>(l1, l2, src, st);
    }
    const wcg_samples &s = l1->samples;
    if (s.colour != WC_COLOUR_NONE && s.comp < 3) {
        if (s.bytes == 1) {
            const ColourRows<uint8_t, T, NC> src = {(const uint8_t *)s.px, s.pitch, s.comps, s.comp, s.colour, s.shift};
            return launch_fwd2<W, NP, ColourRows<uint8_t, T, NC>, OutT, QUANT>(l1, l2, src, st);
        }
        const ColourRows<uint16_t, T, NC> src = {(const uint16_t *)s.px, s.pitch, s.comps, s.comp, s.colour, s.shift};
        return launch_fwd2<W, NP, ColourRows<uint16_t, T, NC>, OutT, QUANT>(l1, l2, src, st);
    }
    if (s.bytes == 1) {
        const SampleRows<uint8_t, T, NC> src = {(const uint8_t *)s.px, s.pitch, s.comps, s.comp, s.shift};
        return launch_fwd2<W, NP, SampleRows<uint8_t, T, NC>, OutT, QUANT>(l1, l2, src, st);
    }
    const SampleRows<uint16_t, T, NC> src = {(const uint16_t *)s.px, s.pitch, s.comps, s.comp, s.shift};
    return launch_fwd2<W, NP, SampleRows<uint16_t, T, NC>, OutT, QUANT>(l1, l2, src, st);
}

template <class W, int NP, class Dst>
cudaError_t launch_inv2(const wcg_inv_level *l2, const wcg_inv_level *l1, const Dst &dst, cudaStream_t st)
{
    auto kernel = inv2_kernel<W, NP, Dst>;
    const uint32_t hl1 = (l1->h + 1) / 2;
    const uint32_t strips = strips_for<Geo<W, NP>>(l1->w);
    /* Warm-up and lag of both levels, in level-1 rows. */
    const int extra = 2 * (W::INV_WARM + W::INV_LAG) + W::INV_WARM + W::INV_LAG;
    const int seg = level_segment_rows(hl1, strips, extra, resident_blocks(kernel));
    const int nseg = (int)((hl1 + seg - 1) / seg);
    kernel<<<level_grid(strips, nseg), 32 * WARPS, 0, st>>>(*l2, *l1, dst, (int)strips, seg, nseg);
    return cudaGetLastError();
}

template <class W, int NP>
cudaError_t launch_inv2_level(const wcg_inv_level *l2, const wcg_inv_level *l1, cudaStream_t st)
{
    using T = typename W::T;
    constexpr int NC = 2 * NP;
    if (!l1->to_samples) return launch_inv2<W, NP>(l2, l1, PlaneOut<T, NC>{(T *)l1->dst, l1->dst_pitch}, st);
    if (l1->samples.bytes == 1) return launch_inv2<W, NP>(l2, l1, SampleOut<uint8_t, NC>{l1->samples}, st);
    return launch_inv2<W, NP>(l2, l1, SampleOut<uint16_t, NC>{l1->samples}, st);
}

/* Two level-1 pairs a lane: measured against four on an H100, half the
 * registers won more than the wider rows (PERF_NOTES.md v4b). */
constexpr int PAIRS = 2;

template <class W, class OutT, bool QUANT>
cudaError_t forward2(const wcg_fwd_level *l1, const wcg_fwd_level *l2, cudaStream_t st)
{
    return launch_fwd2_level<W, PAIRS, OutT, QUANT>(l1, l2, st);
}

template <class W> cudaError_t inverse2(const wcg_inv_level *l2, const wcg_inv_level *l1, cudaStream_t st)
{
    return launch_inv2_level<W, PAIRS>(l2, l1, st);
}

} /* namespace fused */
} /* namespace wcg */

#endif /* WC_DWT_FUSED_CUH */
