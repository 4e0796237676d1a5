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
 * Each iteration issues the next iteration's loads before it computes, so
 * a warp keeps two row pairs in flight (the GPU issues in order: a load
 * used at once would stall the warp for the whole memory latency). The
 * two buffers alternate between an unrolled pair of iterations; rotating
 * them by register copies would make each copy wait for its load.
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

#include <type_traits>

#include "dwt_device.cuh"

namespace wcg
{

#ifndef WCG_WARPS
#define WCG_WARPS 4
#endif
constexpr int LEVEL_WARPS = WCG_WARPS; /* warps per block */

#ifndef WCG_STORE_CS
#define WCG_STORE_CS 1
#endif
/* Coefficient stores: streaming (evict-first) ones by default. Finished
 * coefficients are not read again on the device, so keeping them out of L2
 * leaves it to the next level's LL and the halo rows (5% faster forward
 * on an H100; PERF_NOTES.md). */
template <class V> __device__ __forceinline__ void put(V *p, V v)
{
    if (WCG_STORE_CS)
        __stcs(p, v);
    else
        *p = v;
}

#ifndef WCG_ACROSS
#define WCG_ACROSS 1
#endif
/* How a block's warps share the work: side by side on adjacent strips of
 * one segment (their rows then form one long contiguous access, and the
 * strips' overlapping halo columns hit the same SM's L1), or stacked on
 * consecutive segments of one strip. */
constexpr bool WARPS_ACROSS = WCG_ACROSS != 0;

#ifndef WCG_ALIGN_OUT
#define WCG_ALIGN_OUT 1
#endif
/* Pairs a strip of K*32 writes: all but the HALO pairs its horizontal
 * lifting spoils at each end, rounded down to whole 32-byte sectors of
 * int32/float coefficients, so that neighbouring strips never share a
 * sector (a partly written sector costs the memory system a merge). */
template <int K, int HALO> __host__ __device__ constexpr int strip_pairs()
{
    return WCG_ALIGN_OUT ? (32 * K - 2 * HALO) & ~7 : 32 * K - 2 * HALO;
}

/* A compile-time buffer index for the unrolled iterations below. */
template <int B> struct sel {
    static constexpr int value = B;
};

/* The strip and first segment of this warp, and the stride to its next
 * segment; strip >= strips means the warp has nothing to do. */
struct warp_work {
    int strip, seg, seg_step;
};
__device__ __forceinline__ warp_work my_work()
{
    const int warp = (int)(threadIdx.x >> 5);
    if (WARPS_ACROSS)
        return {(int)blockIdx.x * LEVEL_WARPS + warp, (int)blockIdx.y, (int)gridDim.y};
    return {(int)blockIdx.x, (int)blockIdx.y * LEVEL_WARPS + warp, (int)gridDim.y * LEVEL_WARPS};
}

/* Blocks along x and y for `strips` x `nseg` warp tasks (y capped; the
 * kernels loop over the rest). */
inline dim3 level_grid(uint32_t strips, int nseg)
{
    if (WARPS_ACROSS)
        return dim3((strips + LEVEL_WARPS - 1) / LEVEL_WARPS, (uint32_t)min(nseg, 65535));
    return dim3(strips, (uint32_t)min((nseg + LEVEL_WARPS - 1) / LEVEL_WARPS, 65535));
}

/* Pair rows per warp segment. Warps run in waves of `resident` (what the
 * GPU holds at once); a segment costs its rows plus `extra` warm-up rows.
 * The cheapest choice minimises waves x (rows + extra): long segments
 * waste less on warm-up, short ones fill the last wave. */
inline int level_segment_rows(uint32_t hl, uint32_t strips, int extra, long resident)
{
    if (resident < 1) resident = 1;
    const int longest = hl < 2 ? 2 : (hl > 128 ? 128 : (int)hl);
    int best = longest;
    long best_cost = -1;
    for (int seg = longest; seg >= 2; --seg) {
        const dim3 g = level_grid(strips, (int)((hl + seg - 1) / seg));
        const long blocks = (long)g.x * g.y;
        const long cost = ((blocks + resident - 1) / resident) * (seg + extra);
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = seg;
        }
    }
    return best;
}

/* Blocks of `kernel` the whole GPU runs at once. */
template <class Kern> long resident_blocks(Kern kernel)
{
    int dev = 0, sms = 0, blocks = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, 32 * LEVEL_WARPS, 0) !=
            cudaSuccess)
        return 132L * 4;
    return (long)sms * blocks;
}

/* ---- strips of a level -----------------------------------------------------
 *
 * A strip is a level and the pair rows [row0, row1) of its output that a
 * launch alone computes (backend_cuda.cu's level 1 beside the upload and
 * the download). Strip launches run kernels of their own (STRIP true),
 * which take these descriptions; the whole-level kernels take the plain
 * one, so they compile exactly as before strips existed (a range read in
 * the whole-level kernels cost up to 12 registers a thread and moved the
 * 8192x8192 5/3 forward from 0.252 to 0.282 ms: PERF_NOTES "Strips across
 * PCIe"). */
struct fwd_rows : wcg_fwd_level {
    int row0, row1;
};
struct inv_rows : wcg_inv_level {
    int row0, row1;
};
template <bool STRIP>
using fwd_arg = typename std::conditional<STRIP, fwd_rows, wcg_fwd_level>::type;
template <bool STRIP>
using inv_arg = typename std::conditional<STRIP, inv_rows, wcg_inv_level>::type;

/* First and last (exclusive) pair row a launch computes, of hl. */
__device__ __forceinline__ int2 rows_of(const wcg_fwd_level &, int hl) { return {0, hl}; }
__device__ __forceinline__ int2 rows_of(const fwd_rows &l, int) { return {l.row0, l.row1}; }
__device__ __forceinline__ int2 rows_of(const wcg_inv_level &, int hl) { return {0, hl}; }
__device__ __forceinline__ int2 rows_of(const inv_rows &l, int) { return {l.row0, l.row1}; }

/* Pair rows a launch covers, on the host. */
inline uint32_t rows_count(const wcg_fwd_level &l) { return (l.h + 1) / 2; }
inline uint32_t rows_count(const fwd_rows &l) { return (uint32_t)(l.row1 - l.row0); }
inline uint32_t rows_count(const wcg_inv_level &l) { return (l.h + 1) / 2; }
inline uint32_t rows_count(const inv_rows &l) { return (uint32_t)(l.row1 - l.row0); }

/* ---- sources of a forward level -------------------------------------------- */

/* Two adjacent elements in one load. */
template <class E> struct vec2_of;
template <> struct vec2_of<int32_t> {
    using type = int2;
};
template <> struct vec2_of<float> {
    using type = float2;
};
template <> struct vec2_of<uint16_t> {
    using type = ushort2;
};
template <> struct vec2_of<uint8_t> {
    using type = uchar2;
};
template <> struct vec2_of<int16_t> {
    using type = short2;
};

/* The previous level's LL, a plane of E (T, or int16_t where the driver's
 * wcg_ll16 proves every LL fits), read as T. */
template <class T, class E = T> struct PlaneSrc {
    using Raw = E;
    const E *p;
    size_t pitch;
    /* Pairs of columns can be loaded as one aligned 2-element vector. */
    __device__ __forceinline__ bool pairable() const { return (pitch & 1) == 0; }
    __device__ __forceinline__ size_t col(int x) const { return (size_t)x; }
    __device__ __forceinline__ const E *row(int y) const { return p + (size_t)y * pitch; }
    __device__ __forceinline__ Raw load(const E *r, size_t off) const { return __ldg(r + off); }
    __device__ __forceinline__ void load2(const E *r, size_t off, Raw &e, Raw &o) const
    {
        const auto v = __ldg((const typename vec2_of<E>::type *)(r + off));
        e = v.x;
        o = v.y;
    }
    __device__ __forceinline__ T value(Raw v, bool) const { return (T)v; }
};

/* Interleaved samples of S (uint8_t, uint16_t): level shift, and with
 * COLOUR the forward colour transform of components 0..2 (loading all
 * three channels of the pixel). Raw samples stay as loaded, zero-extended
 * in 32-bit registers; a pair loaded as one word is split only when used,
 * since splitting it at once would wait for the load. */
template <class S, class T, bool COLOUR> struct SampleSrc {
    struct Raw {
        uint32_t v[COLOUR ? 3 : 1];
    };
    /* The word two adjacent samples load as. */
    using Word = typename std::conditional<sizeof(S) == 1, uint16_t, uint32_t>::type;
    static constexpr int BITS = 8 * sizeof(S);
    const S *px;
    size_t pitch;
    uint32_t comps, comp;
    int colour;
    int32_t shift;
    __device__ __forceinline__ bool pairable() const
    {
        return !COLOUR && comps == 1 && (pitch & 1) == 0;
    }
    __device__ __forceinline__ size_t col(int x) const
    {
        return (size_t)x * comps + (COLOUR ? 0 : comp);
    }
    __device__ __forceinline__ const S *row(int y) const { return px + (size_t)y * pitch; }
    __device__ __forceinline__ Raw load(const S *r, size_t off) const
    {
        Raw w;
#pragma unroll
        for (int i = 0; i < (COLOUR ? 3 : 1); ++i) w.v[i] = __ldg(r + off + i);
        return w;
    }
    __device__ __forceinline__ void load2(const S *r, size_t off, Raw &e, Raw &o) const
    {
        e.v[0] = o.v[0] = __ldg((const Word *)(r + off));
    }
    /* odd_of_pair: the raw value is a loaded pair word and this is its
     * second (odd-column) sample. */
    __device__ __forceinline__ T value(const Raw &w, bool odd_of_pair) const
    {
        if constexpr (!COLOUR) {
            const uint32_t mask = (1u << BITS) - 1;
            const uint32_t v = odd_of_pair ? w.v[0] >> BITS : w.v[0] & mask;
            return (T)((int32_t)v - shift);
        } else {
            const int32_t r = (int32_t)w.v[0] - shift, g = (int32_t)w.v[1] - shift,
                          b = (int32_t)w.v[2] - shift;
            return colour_forward<T>(colour, comp, r, g, b);
        }
    }
};

/* ---- forward ----------------------------------------------------------------- */

/* LL: the element type of the LL plane a level other than the last
 * writes (T, or int16_t: wcg_ll16). */
template <class W, int K, class Src, class OutT, bool QUANT, bool STRIP, class LL>
__global__ void __launch_bounds__(32 * LEVEL_WARPS)
    fwd_level_kernel(const fwd_arg<STRIP> lv, const Src src, int strips, int seg_rows, int nseg)
{
    using T = typename W::T;
    using Raw = typename Src::Raw;
    constexpr int OUTP = strip_pairs<K, W::HALO>();
    const int lane = threadIdx.x & 31;
    const int w = (int)lv.w, h = (int)lv.h;
    const int wl = (w + 1) >> 1, hl = (h + 1) >> 1;
    const warp_work ww = my_work();
    if (ww.strip >= strips) return;
    const int P0 = ww.strip * OUTP - W::HALO;

    size_t ce[K], co[K]; /* source offsets of each pair's (mirrored) columns */
    bool ve[K], vo[K];   /* this lane writes the low / high coefficient of pair k */
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int local = 32 * k + lane;
        const int g = P0 + local;
        ce[k] = src.col(mirror(2 * g, w));
        co[k] = src.col(mirror(2 * g + 1, w));
        ve[k] = local >= W::HALO && local < W::HALO + OUTP && g < wl;
        vo[k] = ve[k] && 2 * g + 1 < w;
    }
    /* A strip wholly inside the image reads each column pair with one
     * vector load. */
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
    /* Lifts a row horizontally and writes the pairs this strip owns: a low
     * row p goes to LL and HL, a high row to LH and HH. */
    auto emit = [&](int p, bool high, T(&e)[K], T(&o)[K]) {
        if (w > 1) W::template hfwd<K>(e, o, lane);
        OutT *const orow = out + (size_t)(high ? hl + p : p) * lv.out_pitch + P0 + lane;
        const float se = lv.step[high ? 2 : 0], so = lv.step[high ? 3 : 1];
        if (high || lv.last) {
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (ve[k]) put(orow + 32 * k, make_coeff<OutT, QUANT>(e[k], se, lv.threshold));
        } else {
            LL *const lrow = (LL *)lv.ll + (size_t)p * lv.ll_pitch + P0 + lane;
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (ve[k]) lrow[32 * k] = (LL)e[k];
        }
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (vo[k]) put(orow + wl + 32 * k, make_coeff<OutT, QUANT>(o[k], so, lv.threshold));
    };

    /* The pair rows this launch owns: all, or a strip. */
    const int2 rows = rows_of(lv, hl);
    const int r0 = rows.x, r1 = rows.y;
    for (int seg = ww.seg; seg < nseg; seg += ww.seg_step) {
        if (h == 1) { /* nothing to lift vertically: row 0 is a low row */
            Raw re[K], ro[K];
            load_row(0, re, ro);
            T e[K], o[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                e[k] = src.value(re[k], false);
                o[k] = src.value(ro[k], paired);
            }
            emit(0, false, e, o);
            continue;
        }
        const int i0 = r0 + seg * seg_rows;
        const int i1 = min(i0 + seg_rows, r1);
        const int js = i0 - W::FWD_WARM, je = i1 + W::FWD_LAG;
        typename W::VFwd st[2 * K];
        /* Rows 2j+1 and 2j+2 of iteration j in buffer j & 1; iteration j
         * loads iteration j+1's into the other buffer. Two buffers used
         * alternately by an unrolled pair of iterations: a rotation by
         * register copies would wait for the loads it copies. */
        Raw a[2][K], ao[2][K], b[2][K], bo[2][K];
        T xe[K], xeo[K]; /* row 2j, already converted */
        {
            Raw xr[K], xro[K];
            load_row(mirror(2 * js, h), xr, xro);
#pragma unroll
            for (int k = 0; k < K; ++k) {
                xe[k] = src.value(xr[k], false);
                xeo[k] = src.value(xro[k], paired);
            }
        }
        load_row(mirror(2 * js + 1, h), a[0], ao[0]);
        load_row(mirror(2 * js + 2, h), b[0], bo[0]);
        auto iteration = [&](int j, auto sel) {
            constexpr int cur = decltype(sel)::value, nxt = 1 - cur;
            load_row(mirror(2 * j + 3, h), a[nxt], ao[nxt]);
            load_row(mirror(2 * j + 4, h), b[nxt], bo[nxt]);
            T se[K], so[K], de[K], dq[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const T be = src.value(b[cur][k], false), bod = src.value(bo[cur][k], paired);
                st[2 * k].step(xe[k], src.value(a[cur][k], false), be, se[k], de[k]);
                st[2 * k + 1].step(xeo[k], src.value(ao[cur][k], paired), bod, so[k], dq[k]);
                xe[k] = be;
                xeo[k] = bod;
            }
            const int p = j - W::FWD_LAG;
            if (p >= i0) {
                emit(p, false, se, so);
                if (2 * p + 1 < h) emit(p, true, de, dq);
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

template <class W, int K, class Src, class OutT, bool QUANT, bool STRIP, class LL = typename W::T>
cudaError_t launch_fwd(const fwd_arg<STRIP> *lv, const Src &src, cudaStream_t st)
{
    constexpr int OUTP = strip_pairs<K, W::HALO>();
    /* A strip's last segment reads sample rows up to 2 (row1 + LAG) + 2
     * (the prefetch of its last iteration): within the reach the
     * backend's strips wait for. */
    static_assert(2 * W::FWD_LAG + 3 <= WCG_FWD_REACH, "a strip reads past WCG_FWD_REACH");
    auto kernel = fwd_level_kernel<W, K, Src, OutT, QUANT, STRIP, LL>;
    const uint32_t wl = (lv->w + 1) / 2, hl = rows_count(*lv);
    const uint32_t strips = (wl + OUTP - 1) / OUTP;
    const int seg =
        level_segment_rows(hl, strips, W::FWD_WARM + W::FWD_LAG, resident_blocks(kernel));
    const int nseg = (int)((hl + seg - 1) / seg);
    kernel<<<level_grid(strips, nseg), 32 * LEVEL_WARPS, 0, st>>>(*lv, src, (int)strips, seg, nseg);
    return cudaGetLastError();
}

template <class W, int K, class S, class OutT, bool QUANT, bool STRIP, class LL = typename W::T>
cudaError_t launch_fwd_samples(const fwd_arg<STRIP> *lv, cudaStream_t st)
{
    using T = typename W::T;
    const wcg_samples &s = lv->samples;
    const bool colour = s.colour != WC_COLOUR_NONE && s.comp < 3;
    if (colour) {
        const SampleSrc<S, T, true> src = {(const S *)s.px, s.pitch,  s.comps,
                                           s.comp,          s.colour, s.shift};
        return launch_fwd<W, K, SampleSrc<S, T, true>, OutT, QUANT, STRIP, LL>(lv, src, st);
    }
    const SampleSrc<S, T, false> src = {(const S *)s.px, s.pitch,  s.comps,
                                        s.comp,          s.colour, s.shift};
    return launch_fwd<W, K, SampleSrc<S, T, false>, OutT, QUANT, STRIP, LL>(lv, src, st);
}

/* Level 1 reads the samples, deeper levels the previous LL. Coefficients
 * come out as OutT, quantized when QUANT. lv->ll16 (5/3 only, 8-bit
 * samples: wcg_ll16): the LL planes between levels are int16. */
template <class W, int K, class OutT, bool QUANT>
cudaError_t launch_fwd_level(const wcg_fwd_level *lv, cudaStream_t st)
{
    using T = typename W::T;
    if constexpr (std::is_same_v<T, int32_t>) {
        if (lv->ll16) {
            if (lv->from_samples)
                return launch_fwd_samples<W, K, uint8_t, OutT, QUANT, false, int16_t>(lv, st);
            const PlaneSrc<T, int16_t> src = {(const int16_t *)lv->src, lv->src_pitch};
            return launch_fwd<W, K, PlaneSrc<T, int16_t>, OutT, QUANT, false, int16_t>(lv, src, st);
        }
    }
    if (!lv->from_samples) {
        const PlaneSrc<T> src = {(const T *)lv->src, lv->src_pitch};
        return launch_fwd<W, K, PlaneSrc<T>, OutT, QUANT, false>(lv, src, st);
    }
    return lv->samples.bytes == 1 ? launch_fwd_samples<W, K, uint8_t, OutT, QUANT, false>(lv, st)
                                  : launch_fwd_samples<W, K, uint16_t, OutT, QUANT, false>(lv, st);
}

/* Pair rows [row0, row1) of level 1 (the samples) only. */
template <class W, int K, class OutT, bool QUANT>
cudaError_t launch_fwd_rows(const wcg_fwd_level *lv, uint32_t row0, uint32_t row1, cudaStream_t st)
{
    if (!lv->from_samples || row1 <= row0 || row1 > (lv->h + 1) / 2) return cudaErrorInvalidValue;
    fwd_rows r{};
    static_cast<wcg_fwd_level &>(r) = *lv;
    r.row0 = (int)row0;
    r.row1 = (int)row1;
    if constexpr (std::is_same_v<typename W::T, int32_t>)
        if (lv->ll16) return launch_fwd_samples<W, K, uint8_t, OutT, QUANT, true, int16_t>(&r, st);
    return lv->samples.bytes == 1 ? launch_fwd_samples<W, K, uint8_t, OutT, QUANT, true>(&r, st)
                                  : launch_fwd_samples<W, K, uint16_t, OutT, QUANT, true>(&r, st);
}

/* ---- inverse ----------------------------------------------------------------- */

/* Where an inverse level writes: a plane of T, or (level 1 of a component
 * outside the colour transform) the samples, as S. */
template <class S> struct sample_dst {
    using type = S;
};
struct plane_dst {
};

/* Row y of an inverse level's output, this lane's pair k at column pair
 * pair0 + 32 k: both columns of a pair go out in one vector store where
 * rows keep pairs aligned (even pitch, one component per pixel). ve / vo:
 * whether this lane writes the even / odd column of pair k. The separable
 * and the Monolithic inverse kernels share it. */
template <class T, int K, class Dst>
__device__ __forceinline__ void store_inv_row(const wcg_inv_level &lv, int y, int pair0,
                                              const bool (&ve)[K], const bool (&vo)[K],
                                              const T (&e)[K], const T (&o)[K])
{
    if constexpr (std::is_same_v<Dst, plane_dst>) {
        T *const drow = (T *)lv.dst + (size_t)y * lv.dst_pitch + 2 * pair0;
        const bool pair = (lv.dst_pitch & 1) == 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (pair && vo[k]) {
                *(typename vec2_of<T>::type *)(drow + 64 * k) = {e[k], o[k]};
            } else {
                if (ve[k]) drow[64 * k] = e[k];
                if (vo[k]) drow[64 * k + 1] = o[k];
            }
        }
    } else {
        using S = typename Dst::type;
        const wcg_samples &sm = lv.samples;
        const size_t c = sm.comps;
        S *const srow = (S *)sm.px + (size_t)y * sm.pitch + 2 * (size_t)pair0 * c + sm.comp;
        const bool pair = c == 1 && (sm.pitch & 1) == 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const S a = (S)to_sample(sm, e[k]), b = (S)to_sample(sm, o[k]);
            if (pair && vo[k]) {
                *(typename vec2_of<S>::type *)(srow + 64 * k) = {a, b};
            } else {
                if (ve[k]) srow[64 * k * c] = a;
                if (vo[k]) srow[(64 * k + 1) * c] = b;
            }
        }
    }
}

template <class W, int K, class Dst, bool STRIP>
__global__ void __launch_bounds__(32 * LEVEL_WARPS)
    inv_level_kernel(const inv_arg<STRIP> lv, int strips, int seg_rows, int nseg)
{
    using T = typename W::T;
    constexpr int OUTP = strip_pairs<K, W::HALO>();
    const int lane = threadIdx.x & 31;
    const int w = (int)lv.w, h = (int)lv.h;
    const int wl = (w + 1) >> 1, hl = (h + 1) >> 1;
    const warp_work ww = my_work();
    if (ww.strip >= strips) return;
    const int P0 = ww.strip * OUTP - W::HALO;

    /* Subband columns of each pair: the mirrored even column is a low
     * coefficient, the mirrored odd column a high one (mirroring keeps
     * parity), so the coefficients extend exactly as the samples do. */
    int lo[K], hi[K];
    bool ve[K], vo[K]; /* this lane writes the even / odd column of pair k */
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int local = 32 * k + lane;
        const int g = P0 + local;
        lo[k] = w == 1 ? 0 : mirror(2 * g, w) >> 1;
        hi[k] = w == 1 ? 0 : wl + (mirror(2 * g + 1, w) >> 1);
        ve[k] = local >= W::HALO && local < W::HALO + OUTP && g < wl;
        vo[k] = ve[k] && 2 * g + 1 < w;
    }
    const int32_t *const coef = lv.coef;
    const T *const llp = (const T *)lv.ll;
    /* Row j of the low (LL|HL) and the high (LH|HH) half, as loaded: raw
     * bits, turned into values only when used (see the file comment). */
    struct RawPair {
        uint32_t le[K], lo[K], he[K], ho[K];
    };
    auto load_pair = [&](int j, RawPair &r) {
        const int rl = h == 1 ? 0 : mirror(2 * j, h) >> 1;
        const int rh = h == 1 ? 0 : hl + (mirror(2 * j + 1, h) >> 1);
        const int32_t *const cl = coef + (size_t)rl * lv.coef_pitch;
        const int32_t *const chh = coef + (size_t)rh * lv.coef_pitch;
        const T *const ll = llp + (size_t)rl * lv.ll_pitch;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            r.le[k] = lv.ll_from_coef ? (uint32_t)__ldg(cl + lo[k]) : as_bits(__ldg(ll + lo[k]));
            r.lo[k] = w == 1 ? 0u : (uint32_t)__ldg(cl + hi[k]);
            if (h > 1) {
                r.he[k] = (uint32_t)__ldg(chh + lo[k]);
                r.ho[k] = w == 1 ? 0u : (uint32_t)__ldg(chh + hi[k]);
            }
        }
    };
    /* Dequantizes one half row and lifts it back horizontally: even and odd
     * columns of a vertically-low or -high row. */
    auto unpack = [&](bool high, const uint32_t(&re)[K], const uint32_t(&ro)[K], T(&e)[K],
                      T(&o)[K]) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (high)
                e[k] = dequantize_value<T>((int32_t)re[k], lv.step[2], lv.recon);
            else if (lv.ll_from_coef)
                e[k] = dequantize_value<T>((int32_t)re[k], lv.step[0], lv.recon);
            else
                e[k] = from_bits<T>(re[k]);
            o[k] = w == 1 ? T(0)
                          : dequantize_value<T>((int32_t)ro[k], lv.step[high ? 3 : 1], lv.recon);
        }
        if (w > 1) W::template hinv<K>(e, o, lane);
    };
    auto store_row = [&](int y, const T(&e)[K], const T(&o)[K]) {
        store_inv_row<T, K, Dst>(lv, y, P0 + lane, ve, vo, e, o);
    };

    const int2 rows = rows_of(lv, hl);
    const int r0 = rows.x, r1 = rows.y;
    for (int seg = ww.seg; seg < nseg; seg += ww.seg_step) {
        if (h == 1) {
            RawPair r;
            load_pair(0, r);
            T e[K], o[K];
            unpack(false, r.le, r.lo, e, o);
            store_row(0, e, o);
            continue;
        }
        const int i0 = r0 + seg * seg_rows;
        const int i1 = min(i0 + seg_rows, r1);
        const int js = i0 - W::INV_WARM, je = i1 + W::INV_LAG;
        typename W::VInv st[2 * K];
        RawPair buf[2]; /* pair j in buf[j & 1], as in the forward kernel */
        load_pair(js, buf[0]);
        auto iteration = [&](int j, auto sel) {
            constexpr int cur = decltype(sel)::value, nxt = 1 - cur;
            load_pair(j + 1, buf[nxt]);
            T se[K], so[K], de[K], dq[K];
            unpack(false, buf[cur].le, buf[cur].lo, se, so);
            unpack(true, buf[cur].he, buf[cur].ho, de, dq);
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
        };
        int j = js;
        for (; j + 1 < je; j += 2) {
            iteration(j, sel<0>{});
            iteration(j + 1, sel<1>{});
        }
        if (j < je) iteration(j, sel<0>{});
    }
}

template <class W, int K, class Dst, bool STRIP>
cudaError_t launch_inv(const inv_arg<STRIP> *lv, cudaStream_t st)
{
    constexpr int OUTP = strip_pairs<K, W::HALO>();
    auto kernel = inv_level_kernel<W, K, Dst, STRIP>;
    const uint32_t wl = (lv->w + 1) / 2, hl = rows_count(*lv);
    const uint32_t strips = (wl + OUTP - 1) / OUTP;
    const int seg =
        level_segment_rows(hl, strips, W::INV_WARM + W::INV_LAG, resident_blocks(kernel));
    const int nseg = (int)((hl + seg - 1) / seg);
    kernel<<<level_grid(strips, nseg), 32 * LEVEL_WARPS, 0, st>>>(*lv, (int)strips, seg, nseg);
    return cudaGetLastError();
}

template <class W, int K> cudaError_t launch_inv_level(const wcg_inv_level *lv, cudaStream_t st)
{
    if (!lv->to_samples) return launch_inv<W, K, plane_dst, false>(lv, st);
    return lv->samples.bytes == 1 ? launch_inv<W, K, sample_dst<uint8_t>, false>(lv, st)
                                  : launch_inv<W, K, sample_dst<uint16_t>, false>(lv, st);
}

/* Pair rows [row0, row1) of the level only (level 1, beside the download). */
template <class W, int K>
cudaError_t launch_inv_rows(const wcg_inv_level *lv, uint32_t row0, uint32_t row1, cudaStream_t st)
{
    if (row1 <= row0 || row1 > (lv->h + 1) / 2) return cudaErrorInvalidValue;
    inv_rows r{};
    static_cast<wcg_inv_level &>(r) = *lv;
    r.row0 = (int)row0;
    r.row1 = (int)row1;
    if (!lv->to_samples) return launch_inv<W, K, plane_dst, true>(&r, st);
    return lv->samples.bytes == 1 ? launch_inv<W, K, sample_dst<uint8_t>, true>(&r, st)
                                  : launch_inv<W, K, sample_dst<uint16_t>, true>(&r, st);
}

} /* namespace wcg */

#endif /* WC_DWT_LEVEL_CUH */
