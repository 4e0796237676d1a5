/*
 * bc_kernels.cu -- entropy/block_coder.c's coder on the device (see
 * entropy_cuda.h): a warp codes one code block, producing exactly the
 * symbols of `walk`, in its order, so with the same tables the bytes are
 * the CPU's. (A first version walked each block with one thread,
 * statement for statement; it was 30-40x slower: cuda/PERF_NOTES.md, e1.)
 *
 * The CPU walk reads magnitudes from a padded scratch copy of the block;
 * here the same values come from the plane itself (zero outside the
 * block, capped at 2^20, MED residuals computed where they are read).
 * Histograms gather in shared memory per warp (its block's class: 25 x
 * 67 counters of 16 bits) and go to global memory once per block.
 */
#include <cstdlib>
#include <cstring>

#include "entropy_cuda.h"
#include "wc_common.h" /* wc_leb128_size: a WIDX entry's bytes */
#include "quantizer.h" /* quant_mag: a coefficient's magnitude, as the CPU takes it */

extern "C" {
#include "block_tiles.h" /* entropy 2's tile size and header */
}

namespace
{

constexpr uint32_t kMagCap = 1u << 20;
constexpr unsigned kFineOctaves = 12;
constexpr unsigned kCoarseBase = 4 * (kFineOctaves - 1) + 4;
constexpr unsigned kRun = 0, kTerm = 24;

__device__ __forceinline__ int32_t med(int32_t a, int32_t b, int32_t c)
{
    const int32_t mx = a > b ? a : b, mn = a > b ? b : a;
    if (c >= mx) return mn;
    if (c <= mn) return mx;
    return (int32_t)((uint32_t)a + (uint32_t)b - (uint32_t)c);
}

/* bc_ctx_lut's bucket of a context sum: s below 2, then two buckets per
 * octave, 23 from 3072 up (ctx_lut.h's generator). */
__device__ __forceinline__ unsigned ctx_of(uint32_t s)
{
    if (s < 2) return s;
    const unsigned k = 31u - (unsigned)__clz(s);
    const unsigned b = 2 * k + ((s >> (k - 1)) & 1u);
    return b < 23 ? b : 23;
}

__device__ __forceinline__ unsigned class_of(uint32_t m, uint32_t *extra, unsigned *nbits)
{
    if (m < 4) {
        *extra = 0;
        *nbits = 0;
        return m;
    }
    const unsigned k = 31u - (unsigned)__clz(m);
    if (k <= kFineOctaves) {
        *nbits = k - 2;
        *extra = m & ((1u << (k - 2)) - 1);
        return 4 * (k - 1) + ((m >> (k - 2)) & 3);
    }
    *nbits = k;
    *extra = m & ((1u << k) - 1);
    return kCoarseBase + (k - kFineOctaves - 1);
}

/* ---- a warp per code block ------------------------------------------------

 * The walk above is serial only in which positions runs swallow; the
 * encoder knows every value in advance, so a warp takes one row of the
 * block at a time: lane l holds columns l, l + 32, l + 64, l + 96 (as j =
 * 0..3), the previous two rows' magnitudes stay in registers, contexts
 * come from shuffles, and ballots give the row's masks of low contexts
 * and non-zeros. From those masks every lane follows the same short loop
 * (one turn per run) that marks which positions are coded as values,
 * which end a run (the run's symbol, then the terminating value), and
 * where runs start. Each lane then forms the bits of its positions, a
 * warp scan places them, and they are OR-ed into a row buffer in shared
 * memory whose whole words go to the block's slot. The symbols and their
 * order are exactly walk's. */

constexpr unsigned kFull = 0xFFFFFFFFu;
constexpr int kRowWords = 336; /* 128 positions x 76 bits + a run + a word */

/* The row masks are four words held in registers: every helper indexes
 * them with unrolled constants only (a runtime index puts the array in
 * local memory, PERF_NOTES e4). */

/* First set bit at or after `from` in a 128-bit row mask, or W. */
__device__ __forceinline__ int next_set(const uint32_t m[4], int from, int W)
{
    int r = W;
#pragma unroll
    for (int k = 3; k >= 0; k--) {
        const int lo = 32 * k;
        const uint32_t v = from >= lo + 32 ? 0u : from > lo ? m[k] & (kFull << (from - lo)) : m[k];
        if (v) r = lo + __ffs(v) - 1;
    }
    return r;
}

/* Last set bit at or before x, or -1 (x may be -1). */
__device__ __forceinline__ int last_set(const uint32_t m[4], int x)
{
    int r = -1;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int lo = 32 * k;
        const uint32_t v = x < lo ? 0u : x >= lo + 31 ? m[k] : m[k] & ((2u << (x - lo)) - 1);
        if (v) r = lo + 31 - __clz(v);
    }
    return r;
}

__device__ __forceinline__ void set_range(uint32_t m[4], int a, int b)
{
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int lo = max(a, 32 * k), hi = min(b, 32 * k + 32);
        if (lo < hi) m[k] |= (hi - lo == 32 ? kFull : ((1u << (hi - lo)) - 1)) << (lo - 32 * k);
    }
}

__device__ __forceinline__ void set_bit(uint32_t m[4], int x)
{
    const uint32_t bit = 1u << (x & 31);
#pragma unroll
    for (int k = 0; k < 4; k++) m[k] |= (x >> 5) == k ? bit : 0u; /* no store by runtime index */
}

/* a[i] of a kernel parameter's array by selects: a runtime index would
 * copy the whole job into local memory. */
template <class T> __device__ __forceinline__ T pick4(const T (&a)[4], unsigned i)
{
    return i == 0 ? a[0] : i == 1 ? a[1] : i == 2 ? a[2] : a[3];
}

/* Bit `lane` of word k (k an unrolled constant). */
__device__ __forceinline__ bool bit_of(const uint32_t m[4], int k, int lane)
{
    return (m[k] >> lane) & 1u;
}

/* The value at column x + d (d = -2, -1 or +1) of a row held as a[j]: from
 * the neighbouring lane, across j at the warp's edge, 0 outside 0..127.
 * One shuffle: the lanes read across the edge (the last -d lanes for d <
 * 0, the first d for d > 0) are read by no other lane, so they offer the
 * neighbouring word's value instead of their own. */
template <int D> __device__ __forceinline__ uint32_t shifted(const uint32_t a[4], int j, int lane)
{
    const int jo = D < 0 ? j - 1 : j + 1;
    const uint32_t other = (jo >= 0 && jo < 4) ? a[jo < 0 ? 0 : jo > 3 ? 3 : jo] : 0u;
    const bool edge = D < 0 ? lane >= 32 + D : lane < D;
    return __shfl_sync(kFull, edge ? other : a[j], (lane + D) & 31);
}

/* Two-row steps (SUPER below): the value at raster position p - 32 * d
 * (d = 1..4 words back) of a step held as cur[4], the step before as
 * prev[4]; k an unrolled constant, d warp-uniform. */
__device__ __forceinline__ uint32_t words_back(const uint32_t (&cur)[4], const uint32_t (&prev)[4],
                                               int k, int d)
{
    const int i = k - d;
    return i >= 0 ? pick4(cur, (unsigned)i) : pick4(prev, (unsigned)(i + 4));
}

/* Where word k of a step of a block W x H lies (warp_block's and
 * warp_emit's SUPER steps: 128 / W rows from row y, ks = W / 32 words a
 * row; otherwise row y alone): its row and column; returns whether it is
 * in the block. */
template <bool SUPER>
__device__ __forceinline__ bool step_position(int y, int k, int W, int H, int ks, int lane,
                                              int &row, int &col)
{
    row = SUPER ? y + k / ks : y;
    col = SUPER ? (k % ks) * 32 + lane : k * 32 + lane;
    return SUPER ? row < H : col < W;
}

/* What a warp knows about its block between rows. */
struct RowState {
    int inrun;      /* a run is open at the row's start */
    uint32_t carry; /* zeros the open run has counted so far */
};

/* The row's events from its masks (warp-uniform). `carried` gets the run
 * length of a terminator that ends a run opened in an earlier row. */
__device__ __forceinline__ void row_events(const uint32_t low[4], const uint32_t nz[4], int W,
                                           RowState &st, uint32_t normal[4], uint32_t term[4],
                                           uint32_t start[4], uint32_t &carried)
{
#pragma unroll
    for (int k = 0; k < 4; k++) normal[k] = term[k] = start[k] = 0;
    int x = 0;
    if (st.inrun) {
        const int q = next_set(nz, 0, W);
        if (q == W) {
            st.carry += (uint32_t)W;
            return;
        }
        set_bit(term, q);
        carried = st.carry + (uint32_t)q;
        st.inrun = 0;
        x = q + 1;
    }
    while (x < W) {
        const int p = next_set(low, x, W);
        set_range(normal, x, p);
        if (p == W) break;
        set_bit(start, p);
        const int q = next_set(nz, p, W);
        if (q == W) {
            st.inrun = 1;
            st.carry = (uint32_t)(W - p);
            break;
        }
        set_bit(term, q);
        x = q + 1;
    }
}

/* row_events without its loop (one turn a run): whether a run is open
 * after position x obeys R[x] = !nz[x] && (R[x - 1] || low[x]), with
 * R[-1] = st.inrun (a non-zero ends a run or is coded; a zero stays in an
 * open run, or opens one where its context is low). That is the carry
 * chain of the sum P + G + R[-1] for P = !nz (propagate) and G = P & low
 * (generate, within P): the carry into bit x + 1 is R[x], and the carries
 * are (P + G + cin) ^ P ^ G. Two 64-bit adds give the row's run mask;
 * normal, term and start follow bit by bit. Same events, same state. */
__device__ __forceinline__ void row_events_scan(const uint32_t low[4], const uint32_t nz[4], int W,
                                                RowState &st, uint32_t normal[4], uint32_t term[4],
                                                uint32_t start[4], uint32_t &carried)
{
    uint32_t v[4], p[4], g[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int n = W - 32 * k; /* columns of word k inside the block */
        v[k] = n >= 32 ? kFull : n > 0 ? (1u << n) - 1 : 0u;
        p[k] = ~nz[k] & v[k];
        g[k] = p[k] & low[k];
    }
    const uint64_t p0 = (uint64_t)p[1] << 32 | p[0], p1 = (uint64_t)p[3] << 32 | p[2];
    const uint64_t g0 = (uint64_t)g[1] << 32 | g[0], g1 = (uint64_t)g[3] << 32 | g[2];
    const uint64_t cin = st.inrun ? 1u : 0u;
    const uint64_t s0 = p0 + g0, t0 = s0 + cin;
    const uint64_t c64 = (s0 < p0) | (t0 < s0); /* carry into bit 64 */
    const uint64_t s1 = p1 + g1, t1 = s1 + c64;
    const uint64_t c128 = (s1 < p1) | (t1 < s1);
    const uint64_t k0 = t0 ^ p0 ^ g0, k1 = t1 ^ p1 ^ g1; /* carries into each bit */
    /* r: open after x (carry into x + 1); rb: open before x (carry into x). */
    const uint64_t r0 = k0 >> 1 | k1 << 63, r1 = k1 >> 1 | c128 << 63;
    const uint32_t r[4] = {(uint32_t)r0, (uint32_t)(r0 >> 32), (uint32_t)r1, (uint32_t)(r1 >> 32)};
    const uint32_t rb[4] = {(uint32_t)k0, (uint32_t)(k0 >> 32), (uint32_t)k1, (uint32_t)(k1 >> 32)};
#pragma unroll
    for (int k = 0; k < 4; k++) {
        normal[k] = ~rb[k] & ~low[k] & v[k];
        start[k] = ~rb[k] & low[k] & v[k];
        term[k] = nz[k] & (rb[k] | low[k]) & v[k];
    }
    if (st.inrun) carried = st.carry + (uint32_t)next_set(nz, 0, W);
    /* The state after the row: open if R[W - 1]; its zeros so far are
     * those after the row's last position that is not a skip. */
    const int e = W - 1;
    const uint32_t re = e < 32   ? r[0] >> e
                        : e < 64 ? r[1] >> (e - 32)
                        : e < 96 ? r[2] >> (e - 64)
                                 : r[3] >> (e - 96);
    if (re & 1u) {
        uint32_t kept[4];
#pragma unroll
        for (int k = 0; k < 4; k++) kept[k] = ~r[k] & v[k];
        const int lk = last_set(kept, e);
        st.carry = lk >= 0 ? (uint32_t)(e - lk) : (st.inrun ? st.carry : 0u) + (uint32_t)W;
        st.inrun = 1;
    } else {
        st.inrun = 0;
    }
}

/* A position's bits (at most 76: a run, then a terminating value of 21
 * extra bits and a sign), gathered in three words in registers. */
struct Bits {
    uint32_t w0, w1, w2, n;
    __device__ __forceinline__ void clear() { w0 = w1 = w2 = n = 0; }
    /* Appends len <= 32 bits (v < 2^len). */
    __device__ __forceinline__ void add(uint32_t v, unsigned len)
    {
        const uint32_t s = n & 31, k = n >> 5;
        const uint32_t lo = v << s, hi = s ? v >> (32 - s) : 0u;
        if (k == 0) {
            w0 |= lo;
            w1 |= hi;
        } else if (k == 1) {
            w1 |= lo;
            w2 |= hi;
        } else {
            w2 |= lo;
        }
        n += len;
    }
};

/* Coder::put's bits. */
__device__ __forceinline__ void code_bits(const wcg_huf *t, uint32_t m, int sign_bit, int with_sign,
                                          Bits &pc)
{
    uint32_t extra;
    unsigned nb;
    const unsigned sym = class_of(m, &extra, &nb);
    const unsigned len = t->bits[sym];
    if (nb <= 16) {
        pc.add(t->code[sym] | extra << len | (uint32_t)sign_bit << (len + nb),
               len + nb + (unsigned)with_sign);
        return;
    }
    pc.add(t->code[sym], len);
    pc.add(extra, nb);
    if (with_sign) pc.add((uint32_t)sign_bit, 1);
}

/* Where count adds a symbol (`add`: one more of magnitude m's class in
 * table tab of class cls). BlockHist: the thread block's shared
 * histogram of a component's every class, 32-bit counters. */
struct BlockHist {
    uint32_t *h;
    __device__ __forceinline__ void add(unsigned cls, unsigned tab, uint32_t m) const
    {
        uint32_t extra;
        unsigned nb;
        const unsigned sym = class_of(m, &extra, &nb);
        atomicAdd(&h[(cls * WCG_NTAB + tab) * WCG_NSYM + sym], 1u);
    }
};

/* WarpHist: a warp's own histogram of its one block's class, 16-bit
 * counters two to a word (counter i in the low half of word i, counter
 * i + kHalfWords in the high half: far apart in table and class, so
 * lanes seldom share a word they would not share anyway), 3.3 KB
 * instead of the thread block's 60 KB. A block of at most 128 x 128
 * positions has at most one value, or a run and its term, a position
 * and one closing run (a tile's each: 32 more), so no counter reaches
 * 2^16 before flush_warp_hist adds it to the block's class. */
constexpr unsigned kClassCounters = WCG_NTAB * WCG_NSYM;
constexpr unsigned kHalfWords = (kClassCounters + 1) / 2;
struct WarpHist {
    uint32_t *h;
    __device__ __forceinline__ void add(unsigned, unsigned tab, uint32_t m) const
    {
        uint32_t extra;
        unsigned nb;
        const unsigned i = tab * WCG_NSYM + class_of(m, &extra, &nb);
        const bool hi = i >= kHalfWords;
        atomicAdd(&h[hi ? i - kHalfWords : i], hi ? 0x10000u : 1u);
    }
};

/* A block's kept histogram packed (wcg_bc_job.hist_packed): kMaskWords
 * words of which of its kHalfWords words are non-zero (bit l of mask k:
 * word 32 k + l), then those words in order. A 64x64 block at a probe's
 * rates has a few dozen non-zero words of its 838: count writes and the
 * sizes kernel reads ~30-100 words a block instead of 838. */
constexpr unsigned kMaskWords = (kHalfWords + 31) / 32;
constexpr unsigned kKeptWords = kMaskWords + kHalfWords;

/* A warp's histogram into its class's global counters (g), then zeroed;
 * where `keep` is set, its words there too (the block's own, for
 * wcg_bc_sizes): as they are, or packed (above). */
__device__ __forceinline__ void flush_warp_hist(uint32_t *h, unsigned long long *g, uint32_t *keep,
                                                bool packed)
{
    __syncwarp();
    const uint32_t lane = threadIdx.x & 31;
    uint32_t at = kMaskWords; /* the next packed word */
    for (uint32_t k = 0; k < kMaskWords; k++) {
        const uint32_t i = 32 * k + lane;
        const uint32_t v = i < kHalfWords ? h[i] : 0u;
        if (keep && !packed && i < kHalfWords) keep[i] = v;
        if (keep && packed) {
            const uint32_t m = __ballot_sync(kFull, v != 0);
            if (lane == 0) keep[k] = m;
            if (v) keep[at + __popc(m & ((1u << lane) - 1))] = v;
            at += __popc(m);
        }
        if (!v) continue;
        h[i] = 0;
        if (v & 0xFFFFu) atomicAdd(g + i, (unsigned long long)(v & 0xFFFFu));
        if (v >> 16) atomicAdd(g + i + kHalfWords, (unsigned long long)(v >> 16));
    }
    __syncwarp();
}

/* ORs a piece into the row buffer at bit offset o. */
__device__ __forceinline__ void or_bits(uint32_t *buf, uint32_t o, uint32_t v, unsigned n)
{
    if (!n) return;
    const uint32_t w = o >> 5, s = o & 31;
    atomicOr(&buf[w], v << s);
    if (s + n > 32) atomicOr(&buf[w + 1], v >> (32 - s));
}

/* A position's bits into the row buffer at bit offset o. */
__device__ __forceinline__ void or_position(uint32_t *buf, uint32_t o, const Bits &b)
{
    or_bits(buf, o, b.w0, min(b.n, 32u));
    if (b.n > 32) or_bits(buf, o + 32, b.w1, min(b.n - 32, 32u));
    if (b.n > 64) or_bits(buf, o + 64, b.w2, b.n - 64);
}

/* Where a warp's output stands between rows. */
struct OutState {
    uint32_t pend;  /* bits in buf[0] not yet written */
    uint32_t words; /* words written to the slot */
};

/* A row's bits placed in raster order (k-major, then lane) by a warp
 * scan, after the last row the block's closing run (close: its length,
 * 0 for none), and the row buffer's whole words out to the slot (all of
 * them after the last row). Returns the block's size in bits after the
 * last row. */
__device__ __forceinline__ uint32_t place_row(uint32_t *buf, uint32_t *out, uint32_t capw,
                                              const Bits pc[4], bool last, const wcg_huf *run_tab,
                                              uint32_t close, OutState &o)
{
    const int lane = threadIdx.x & 31;
    uint32_t base = o.pend;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint32_t incl = pc[k].n;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const uint32_t v = __shfl_up_sync(kFull, incl, d);
            if (lane >= d) incl += v;
        }
        or_position(buf, base + incl - pc[k].n, pc[k]);
        base += __shfl_sync(kFull, incl, 31);
    }
    if (last && close) {
        Bits e;
        e.clear();
        code_bits(run_tab, close, 0, 0, e);
        if (lane == 0) or_position(buf, base, e);
        base += e.n;
    }
    __syncwarp();
    const uint32_t full = last ? (base + 31) >> 5 : base >> 5;
    for (uint32_t i = lane; i < full; i += 32)
        if (o.words + i < capw) out[o.words + i] = buf[i];
    __syncwarp();
    const uint32_t keep = last ? 0u : buf[full];
    __syncwarp(); /* every lane has read buf[full] before any clears it */
    for (uint32_t i = lane; i <= full && i < (uint32_t)kRowWords; i += 32) buf[i] = 0;
    __syncwarp();
    if (lane == 0) buf[0] = keep;
    __syncwarp();
    o.words += full;
    o.pend = base & 31;
    return (o.words - full) * 32 + base;
}

/* Token bytes that count leaves for emit (one a position of the plane):
 * kSkip for a zero a run swallows, kValue | context for a value coded
 * with its context's table, kTerm for a run's terminating value. */
constexpr uint8_t kSkip = 0, kValue = 0x40, kTermTok = 0x80;

/* A row's raw values and, for predicted (lossless LL) blocks, MED
 * residuals: q[k] is what the coder codes at column k * 32 + lane. */
__device__ __forceinline__ void load_row(const wcg_cblk &b, const int32_t *row, int y, int lane,
                                         uint32_t raw[4], const uint32_t praw[4], uint32_t q[4])
{
    const int W = b.w;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int x = k * 32 + lane;
        raw[k] = x < W ? (uint32_t)__ldg(row + x) : 0u;
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int x = k * 32 + lane;
        q[k] = raw[k];
        if (b.predict) {
            const uint32_t w_ = shifted<-1>(raw, k, lane), n_ = praw[k],
                           nw_ = shifted<-1>(praw, k, lane);
            int32_t p;
            if (y == 0)
                p = x ? (int32_t)w_ : 0;
            else if (x == 0)
                p = (int32_t)n_;
            else
                p = med((int32_t)w_, (int32_t)n_, (int32_t)nw_);
            q[k] = raw[k] - (uint32_t)p;
        }
    }
}

/* One block by one warp, walking its contexts. CODE: bits into `out`
 * (the slot), returning the size in bits; otherwise symbols into `hist`
 * (shared) and, where `tok` is set, each position's token there (at the
 * block's top-left, rows b.stride apart). `buf` is the warp's row buffer
 * (kRowWords, zeroed).
 * SUPER (count only, blocks exactly 32 or 64 wide and not predicted:
 * wide_rows): a step takes 128 / W rows at once, position p = 32 k +
 * lane in raster order. The walk's order is raster order, so the
 * events, runs and symbols of the step are those of its rows one after
 * another; only the neighbours change: the row above a position is
 * p - W (this step's words or the last step's), two rows above p - 2W,
 * and a row's ends cut the left and right neighbours. A 64-wide block
 * then keeps every lane busy where one row a step idled half of them. */
template <bool CODE, bool SCAN = true, class Hist = BlockHist, bool SUPER = false>
__device__ uint32_t warp_block(const wcg_bc_job &j, const wcg_cblk &b, const Hist &hist,
                               const wcg_huf *tabs, uint32_t *buf, uint32_t *out, uint8_t *tok)
{
    static_assert(!(SUPER && CODE), "two-row steps count only");
    const uint32_t capw = b.cap / 4;
    const int lane = threadIdx.x & 31;
    const int W = b.w, H = b.h;
    /* words a row (SUPER), and the step's rows */
    const int ks = SUPER ? W / 32 : 4, R = SUPER ? 4 / ks : 1;
    const uint32_t wa = b.orient == 1 ? 1u : b.orient == 2 ? 3u : 2u;
    const uint32_t wb = b.orient == 1 ? 3u : b.orient == 2 ? 1u : 2u;
    const int32_t *d = pick4(j.plane, b.comp) + b.base;
    uint32_t pm[4] = {0, 0, 0, 0}, ppm[4] = {0, 0, 0, 0}; /* magnitudes of rows y-1, y-2 */
    uint32_t praw[4] = {0, 0, 0, 0};                      /* raw values of row y-1 */
    RowState st = {0, 0};
    OutState o = {0, 0};
    for (int y = 0; y < H; y += R) {
        int row[4], col[4];
        bool in[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            in[k] = step_position<SUPER>(y, k, W, H, ks, lane, row[k], col[k]);
        uint32_t raw[4], q[4], m[4];
        if (SUPER) {
#pragma unroll
            for (int k = 0; k < 4; k++) {
                raw[k] = in[k] ? (uint32_t)__ldg(d + (size_t)row[k] * b.stride + col[k]) : 0u;
                q[k] = raw[k];
            }
        } else {
            load_row(b, d + (size_t)y * b.stride, y, lane, raw, praw, q);
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const uint32_t mm = quant_mag((int32_t)q[k]);
            m[k] = in[k] ? (mm < kMagCap ? mm : kMagCap) : 0u;
        }
        uint32_t low[4], nz[4], s[4];
#pragma unroll
        for (int k = 0; k < 4; k++) nz[k] = __ballot_sync(kFull, in[k] && q[k] != 0);
        /* the step's positions in raster order (its rows' W each) */
        const int n = SUPER ? W * min(R, H - y) : W;
        const bool last = y + R >= H;
        if (SCAN && st.inrun && !(nz[0] | nz[1] | nz[2] | nz[3]) && (!CODE || !last)) {
            /* The open run swallows the whole row (most rows of a lossy
             * image's finest bands): no contexts, no symbols, nothing to
             * place; its magnitudes are zeros. */
            st.carry += (uint32_t)n;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                if (!CODE && tok && in[k]) tok[(size_t)row[k] * b.stride + col[k]] = kSkip;
                ppm[k] = SUPER ? 0u : pm[k];
                pm[k] = 0;
                praw[k] = raw[k];
            }
            if (!CODE && last && lane == 0) hist.add(b.cls, kRun, st.carry);
            continue;
        }
        /* SUPER: pm holds the last step's magnitudes; the row above a
         * position comes from it or from this step's own words. */
        uint32_t up[4];
#pragma unroll
        for (int k = 0; k < 4; k++) up[k] = SUPER ? words_back(m, pm, k, ks) : 0u;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (SUPER) {
                /* every lane shuffles; the row's ends then cut the values */
                const int x = col[k];
                const uint32_t left = shifted<-1>(m, k, lane), left2 = shifted<-2>(m, k, lane);
                const uint32_t up_left = shifted<-1>(up, k, lane),
                               up_right = shifted<1>(up, k, lane);
                s[k] = wa * (x >= 1 ? left : 0u) + wb * up[k] + (x >= 1 ? up_left : 0u) +
                       (x + 1 < W ? up_right : 0u) + (x >= 2 ? left2 : 0u) +
                       words_back(m, pm, k, 2 * ks);
            } else {
                s[k] = wa * shifted<-1>(m, k, lane) + wb * pm[k] + shifted<-1>(pm, k, lane) +
                       shifted<1>(pm, k, lane) + shifted<-2>(m, k, lane) + ppm[k];
            }
            low[k] = __ballot_sync(kFull, in[k] && s[k] <= j.run_max);
        }
        uint32_t normal[4], term[4], start[4], carried = 0;
        if (SCAN)
            row_events_scan(low, nz, n, st, normal, term, start, carried);
        else
            row_events(low, nz, n, st, normal, term, start, carried);
        /* This lane's symbols. */
        Bits pc[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int x = k * 32 + lane; /* the position in the step */
            pc[k].clear();
            if (!in[k]) continue;
            const bool isn = bit_of(normal, k, lane), ist = bit_of(term, k, lane);
            if (!CODE && tok)
                tok[(size_t)row[k] * b.stride + col[k]] = isn   ? (uint8_t)(kValue | ctx_of(s[k]))
                                                          : ist ? kTermTok
                                                                : kSkip;
            if (!isn && !ist) continue;
            const uint32_t mag = quant_mag((int32_t)q[k]);
            const int neg = (int32_t)q[k] < 0;
            if (!CODE && SCAN) {
                /* A value's symbol and a run's in one add, so the lanes of
                 * the two kinds do not take turns. */
                uint32_t r = 0;
                if (ist) {
                    const int ps = last_set(start, x);
                    r = ps >= 0 ? (uint32_t)(x - ps) : carried;
                }
                hist.add(b.cls, isn ? ctx_of(s[k]) : kRun, isn ? mag : r);
                if (ist) hist.add(b.cls, kTerm, mag - 1);
            } else if (isn) {
                const unsigned tab = ctx_of(s[k]);
                if (CODE)
                    code_bits(tabs + tab, mag, neg, mag != 0, pc[k]);
                else
                    hist.add(b.cls, tab, mag);
            } else {
                const int ps = last_set(start, x);
                const uint32_t r = ps >= 0 ? (uint32_t)(x - ps) : carried;
                if (CODE) {
                    code_bits(tabs + kRun, r, 0, 0, pc[k]);
                    code_bits(tabs + kTerm, mag - 1, neg, 1, pc[k]);
                } else {
                    hist.add(b.cls, kRun, r);
                    hist.add(b.cls, kTerm, mag - 1);
                }
            }
        }
        if (!CODE) {
            if (last && st.inrun && lane == 0) hist.add(b.cls, kRun, st.carry);
        } else {
            const uint32_t bits =
                place_row(buf, out, capw, pc, last, tabs + kRun, st.inrun ? st.carry : 0u, o);
            if (last) return bits;
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            ppm[k] = pm[k];
            pm[k] = m[k];
            praw[k] = raw[k];
        }
    }
    return 0;
}

/* Whether count walks block b two (or four) rows a step (warp_block's
 * SUPER): exactly 64 or 32 wide, so a step's rows meet with no gap in
 * its 128 positions; not MED-predicted (the residuals read their own
 * rows' neighbours, row by row). */
__device__ __forceinline__ bool wide_rows(const wcg_cblk &b)
{
    return (b.w == 64 || b.w == 32) && !b.predict;
}

/* One block by one warp from count's tokens: no contexts and no run
 * search, only the symbols' bits. A term's run length is the number of
 * skipped positions before it (in raster order, across rows); `carry`
 * counts those at the end of the rows so far, and a block that ends in
 * skips closes with a run of them (walk's order and symbols). SUPER:
 * 128 / W rows a step, as warp_block's (wide_rows blocks). */
template <bool SUPER>
__device__ uint32_t warp_emit(const wcg_bc_job &j, const wcg_cblk &b, const wcg_huf *tabs,
                              uint32_t *buf, uint32_t *out)
{
    const uint32_t capw = b.cap / 4;
    const int lane = threadIdx.x & 31;
    const int W = b.w, H = b.h;
    const int ks = SUPER ? W / 32 : 4, R = SUPER ? 4 / ks : 1;
    const int32_t *d = pick4(j.plane, b.comp) + b.base;
    const uint8_t *tk = pick4(j.tok, b.comp) + b.base;
    uint32_t praw[4] = {0, 0, 0, 0};
    uint32_t carry = 0;
    OutState o = {0, 0};
    for (int y = 0; y < H; y += R) {
        uint32_t raw[4], q[4], t[4], kept[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            int row, col;
            const bool in = step_position<SUPER>(y, k, W, H, ks, lane, row, col);
            t[k] = in ? (uint32_t)tk[(size_t)row * b.stride + col] : kSkip;
            if (SUPER) raw[k] = q[k] = in ? (uint32_t)__ldg(d + (size_t)row * b.stride + col) : 0u;
        }
        if (!SUPER) load_row(b, d + (size_t)y * b.stride, y, lane, raw, praw, q);
#pragma unroll
        for (int k = 0; k < 4; k++) kept[k] = __ballot_sync(kFull, t[k] != kSkip);
        /* the step's positions in raster order */
        const int n = SUPER ? W * min(R, H - y) : W;
        const bool last = y + R >= H;
        if (!(kept[0] | kept[1] | kept[2] | kept[3]) && !last) {
            /* A row of skips adds no bits (its values are loaded beside the
             * tokens all the same: the other rows need both at once). */
            carry += (uint32_t)n;
#pragma unroll
            for (int k = 0; k < 4; k++) praw[k] = raw[k];
            continue;
        }
        Bits pc[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int x = k * 32 + lane; /* the position in the step */
            pc[k].clear();
            if (t[k] == kSkip) continue;
            const uint32_t mag = quant_mag((int32_t)q[k]);
            const int neg = (int32_t)q[k] < 0;
            if (t[k] & kValue) {
                code_bits(tabs + (t[k] & 31u), mag, neg, mag != 0, pc[k]);
            } else {
                const int ps = last_set(kept, x - 1);
                const uint32_t r = ps >= 0 ? (uint32_t)(x - 1 - ps) : carry + (uint32_t)x;
                code_bits(tabs + kRun, r, 0, 0, pc[k]);
                code_bits(tabs + kTerm, mag - 1, neg, 1, pc[k]);
            }
        }
        const int lk = last_set(kept, n - 1);
        carry = lk < 0 ? carry + (uint32_t)n : (uint32_t)(n - 1 - lk);
        const uint32_t bits = place_row(buf, out, capw, pc, last, tabs + kRun, carry, o);
        if (last) return bits;
#pragma unroll
        for (int k = 0; k < 4; k++) praw[k] = raw[k];
    }
    return 0;
}

/* A block (or tile) into its slot: TOK, from the tokens count left. */
template <bool TOK>
__device__ __forceinline__ uint32_t code_block(const wcg_bc_job &j, const wcg_cblk &b,
                                               const wcg_huf *tabs, uint32_t *buf, uint32_t *out)
{
    if (!TOK) return warp_block<true>(j, b, BlockHist{nullptr}, tabs, buf, out, nullptr);
    return wide_rows(b) && !j.one_row ? warp_emit<true>(j, b, tabs, buf, out)
                                      : warp_emit<false>(j, b, tabs, buf, out);
}

/* ---- entropy 2: tiles of a block (block_tiles.h) ---------------------------- */

/* Tile t of block b as a block of its own (block_tiles.c's bct_tile). */
__device__ __forceinline__ wcg_cblk tile_of(const wcg_cblk &b, uint32_t t, uint32_t across)
{
    wcg_cblk k = b;
    const uint32_t x0 = t % across * BCT_W, y0 = t / across * BCT_H;
    k.base = b.base + (unsigned long long)y0 * b.stride + x0;
    k.w = (uint16_t)min(BCT_W, (uint32_t)b.w - x0);
    k.h = (uint16_t)min(BCT_H, (uint32_t)b.h - y0);
    return k;
}

/* Whether a tile's values are all zero (an empty sub-stream, no symbols);
 * a tile is at most 32 wide, a column a lane. Warp-uniform. */
__device__ bool tile_zero(const wcg_bc_job &j, const wcg_cblk &k)
{
    const unsigned lane = threadIdx.x & 31;
    const int32_t *d = pick4(j.plane, k.comp) + k.base;
    bool nz = false;
    if (lane < k.w)
        for (uint32_t y = 0; y < k.h; y++) nz |= __ldg(d + (size_t)y * k.stride + lane) != 0;
    return !__any_sync(kFull, nz);
}

/* After a warp has written block i's bytes and lane 0 its size: the
 * block counted in its component's j.done word, the writes made visible
 * to the whole device first (another stream's pack reads them as soon as
 * the count is reached). Every lane calls it. */
__device__ __forceinline__ void count_done(const wcg_bc_job &j, uint32_t comp)
{
    if (!j.done) return;
    __threadfence();
    __syncwarp();
    if ((threadIdx.x & 31) == 0) atomicAdd(j.done + comp, 1u);
}

/* A tiled block into its slot, as pieces the pack kernel joins: the
 * tiles' bit lengths in the slot's first n words, then each tile's bits
 * from a word boundary of their own. sizes[i] gets the payload's bytes
 * (header, lengths and the sub-streams end to end). */
template <bool TOK>
__device__ void emit_tiles(const wcg_bc_job &j, const wcg_cblk &b, const wcg_huf *tabs,
                           uint32_t *buf, uint8_t *slots, uint32_t *sizes, uint32_t i)
{
    const unsigned lane = threadIdx.x & 31;
    uint32_t *slot = (uint32_t *)(slots + b.slot);
    const uint32_t across = (b.w + BCT_W - 1) / BCT_W;
    const uint32_t n = across * ((b.h + BCT_H - 1) / BCT_H);
    uint32_t at = 4 * n, longest = 0;
    unsigned long long sum = 0;
    bool over = at > b.cap;
    for (uint32_t t = 0; t < n && !over; t++) {
        wcg_cblk k = tile_of(b, t, across);
        uint32_t bits = 0;
        if (!tile_zero(j, k)) {
            k.cap = b.cap - at;
            bits = code_block<TOK>(j, k, tabs, buf, slot + at / 4);
            at += (bits + 31) / 32 * 4;
            over = at > b.cap;
        }
        if (lane == 0) slot[t] = bits;
        longest = max(longest, bits);
        sum += bits;
    }
    __syncwarp();
    if (lane == 0) {
        const unsigned width = longest ? 32u - __clz(longest) : 0u;
        const unsigned long long total = BCT_WIDTH_BITS + (unsigned long long)n * width + sum;
        over = over || width > BCT_MAX_WIDTH || (total + 7) / 8 > b.cap;
        if (over) atomicOr(&sizes[j.nblocks], 1u);
        sizes[i] = over ? 0u : (uint32_t)((total + 7) / 8);
    }
    count_done(j, b.comp);
}

constexpr int kCountWarps = 8, kEmitWarps = 4;

/* Where count writes a block's tokens, or nullptr (none asked). */
__device__ __forceinline__ uint8_t *tok_of(const wcg_bc_job &j, const wcg_cblk &b)
{
    uint8_t *t = pick4(j.tok, b.comp);
    return t ? t + b.base : nullptr;
}

/* Every block (entropy 2: every tile of it) of the warp's job into hist. */
template <bool SCAN, class Hist>
__device__ __forceinline__ void count_block(const wcg_bc_job &j, const wcg_cblk &b, const Hist &h)
{
    if (!j.tiled) {
        if (SCAN && wide_rows(b) && !j.one_row)
            warp_block<false, true, Hist, true>(j, b, h, nullptr, nullptr, nullptr, tok_of(j, b));
        else
            warp_block<false, SCAN>(j, b, h, nullptr, nullptr, nullptr, tok_of(j, b));
        return;
    }
    const uint32_t across = (b.w + BCT_W - 1) / BCT_W;
    const uint32_t n = across * ((b.h + BCT_H - 1) / BCT_H);
    for (uint32_t t = 0; t < n; t++) {
        const wcg_cblk k = tile_of(b, t, across);
        if (tile_zero(j, k)) continue;
        if (SCAN && wide_rows(k) && !j.one_row)
            warp_block<false, true, Hist, true>(j, k, h, nullptr, nullptr, nullptr, tok_of(j, k));
        else
            warp_block<false, SCAN>(j, k, h, nullptr, nullptr, nullptr, tok_of(j, k));
    }
}

/* Count with the thread block's shared histogram of a component (60 KB:
 * three thread blocks an SM). SCAN: row_events_scan, else row_events'
 * loop (WC_CUDA_COUNT=loop, the version before e6). */
template <bool SCAN>
__global__ void __launch_bounds__(kCountWarps * 32, 3)
    count_warp_kernel(wcg_bc_job j, unsigned long long *hist)
{
    extern __shared__ uint32_t sh[];
    const uint32_t c = blockIdx.y;
    for (uint32_t i = threadIdx.x; i < WCG_HIST; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    const uint32_t i = blockIdx.x * kCountWarps + threadIdx.x / 32;
    if (i < pick4(j.count, c)) count_block<SCAN>(j, j.blocks[pick4(j.first, c) + i], BlockHist{sh});
    __syncthreads();
    unsigned long long *g = hist + (size_t)c * WCG_HIST;
    for (uint32_t t = threadIdx.x; t < WCG_HIST; t += blockDim.x)
        if (sh[t]) atomicAdd(g + t, (unsigned long long)sh[t]);
}

/* Count with a warp's own 16-bit histogram (WarpHist), flushed after its
 * block: 3.3 KB a warp, so registers alone bound the warps an SM, and no
 * thread block waits for its slowest warp before the next starts. */
constexpr int kCount16Warps = 4;
template <int MINB>
__global__ void __launch_bounds__(kCount16Warps * 32, MINB)
    count_warp16_kernel(wcg_bc_job j, unsigned long long *hist)
{
    __shared__ uint32_t sh[kCount16Warps][kHalfWords];
    const uint32_t c = blockIdx.y, w = threadIdx.x / 32;
    for (uint32_t i = threadIdx.x & 31; i < kHalfWords; i += 32) sh[w][i] = 0;
    __syncwarp();
    const uint32_t i = blockIdx.x * kCount16Warps + w;
    if (i >= pick4(j.count, c)) return;
    const wcg_cblk b = j.blocks[pick4(j.first, c) + i];
    count_block<true>(j, b, WarpHist{sh[w]});
    uint32_t *keep =
        j.block_hist ? j.block_hist + (size_t)(pick4(j.first, c) + i) * kKeptWords : nullptr;
    flush_warp_hist(sh[w], hist + ((size_t)c * WCG_NCLASS + b.cls) * kClassCounters, keep,
                    j.hist_packed);
}

static_assert(kKeptWords == WCG_BLOCK_HIST_WORDS, "entropy_cuda.h's block histogram");

/* The bits of one symbol of counter idx (table, symbol) of a block's
 * histogram: block_coder.c's bc_payload_bits, class_of's extra bits from
 * the symbol alone (none under 4, then sym / 4 - 1 in the fine octaves,
 * the octave's in the coarse ones), a sign after a magnitude context's
 * non-zero value and after every run's terminating value, none after a
 * run. */
__device__ __forceinline__ uint32_t symbol_bits(const wcg_huf *t, uint32_t idx)
{
    const uint32_t tab = idx / WCG_NSYM, sym = idx % WCG_NSYM;
    const uint32_t nb = sym < 4             ? 0u
                        : sym < kCoarseBase ? sym / 4 - 1
                                            : sym - kCoarseBase + kFineOctaves + 1;
    const uint32_t sign = tab == kTerm || (tab != kRun && sym != 0);
    return t[tab].bits[sym] + nb + sign;
}

/* The bits of a block's kept histogram under its tables t, summed over
 * the warp (every lane gets the sum): its words as they are, or packed
 * (flush_warp_hist). */
__device__ __forceinline__ unsigned long long block_bits(const uint32_t *h, const wcg_huf *t,
                                                         bool packed)
{
    const uint32_t lane = threadIdx.x & 31;
    unsigned long long bits = 0;
    const auto add = [&](uint32_t k, uint32_t v) {
        if (v & 0xFFFFu) bits += (unsigned long long)(v & 0xFFFFu) * symbol_bits(t, k);
        if ((v >> 16) && k + kHalfWords < kClassCounters)
            bits += (unsigned long long)(v >> 16) * symbol_bits(t, k + kHalfWords);
    };
    if (!packed) {
        for (uint32_t k = lane; k < kHalfWords; k += 32) add(k, h[k]);
    } else {
        /* Lane l holds mask l and where its words start (a warp scan). */
        const uint32_t m = lane < kMaskWords ? h[lane] : 0u, n = __popc(m);
        uint32_t incl = n;
        for (int d = 1; d < 32; d <<= 1) {
            const uint32_t v = __shfl_up_sync(kFull, incl, d);
            if (lane >= (uint32_t)d) incl += v;
        }
        const uint32_t start = kMaskWords + incl - n;
        for (uint32_t k = 0; k < kMaskWords; k++) {
            const uint32_t mk = __shfl_sync(kFull, m, k), at = __shfl_sync(kFull, start, k);
            if (mk >> lane & 1) add(32 * k + lane, h[at + __popc(mk & ((1u << lane) - 1))]);
        }
    }
    for (int d = 16; d > 0; d >>= 1) bits += __shfl_xor_sync(kFull, bits, d);
    return bits;
}

/* A warp a block: its size from its histogram, emit_warp_kernel's sizes[]
 * and overflow flag without coding it. With totals (wcg_bc_sizes): each
 * warp takes blocks kSizesWarps * gridDim.x apart and the thread block
 * adds each component's bytes, the index's LEB128 bytes and the overflow
 * flag there (totals[0..3], [4], [5]), so that a probe downloads six
 * words and not a word a block. */
constexpr int kSizesWarps = 8;
__global__ void __launch_bounds__(kSizesWarps * 32)
    sizes_kernel(wcg_bc_job j, const wcg_huf *tabs, uint32_t *sizes, unsigned long long *totals)
{
    __shared__ unsigned long long part[kSizesWarps][6];
    const uint32_t w = threadIdx.x / 32, lane = threadIdx.x & 31;
    unsigned long long acc[6] = {0, 0, 0, 0, 0, 0};
    const uint32_t step = totals ? kSizesWarps * gridDim.x : j.nblocks;
    for (uint32_t i = blockIdx.x * kSizesWarps + w; i < j.nblocks; i += step) {
        const wcg_cblk b = j.blocks[i];
        const wcg_huf *t = tabs + ((size_t)b.comp * WCG_NCLASS + b.cls) * WCG_NTAB;
        const unsigned long long n =
            (block_bits(j.block_hist + (size_t)i * kKeptWords, t, j.hist_packed) + 7) / 8;
        const uint32_t size = n > b.cap ? 0u : (uint32_t)n;
        if (lane == 0) {
            if (n > b.cap) atomicOr(&sizes[j.nblocks], 1u);
            sizes[i] = size;
        }
        acc[b.comp & 3] += size;
        acc[4] += wc_leb128_size(size);
        acc[5] |= n > b.cap;
    }
    if (!totals) return;
    if (lane == 0)
        for (int k = 0; k < 6; k++) part[w][k] = acc[k];
    __syncthreads();
    if (threadIdx.x < 6) {
        unsigned long long s = 0;
        for (int x = 0; x < kSizesWarps; x++)
            s = threadIdx.x == 5 ? s | part[x][5] : s + part[x][threadIdx.x];
        if (s && threadIdx.x == 5)
            atomicOr(&totals[5], s);
        else if (s)
            atomicAdd(&totals[threadIdx.x], s);
    }
}

/* MINB: thread blocks an SM that the registers must allow (0: as many
 * as 96 registers allow, 5; 6 or 8: 80 or 64 registers, some spilled).
 * The token emit runs at 8 (PERF_NOTES e8): it waits on latency, so
 * more warps pay more than the spills cost. */
template <bool TOK, int MINB>
__global__ void __launch_bounds__(kEmitWarps * 32, MINB)
    emit_warp_kernel(wcg_bc_job j, const wcg_huf *tabs, uint8_t *slots, uint32_t *sizes)
{
    __shared__ uint32_t rows[kEmitWarps][kRowWords];
    const int w = threadIdx.x / 32, lane = threadIdx.x & 31;
    for (int i = lane; i < kRowWords; i += 32) rows[w][i] = 0;
    __syncwarp();
    const uint32_t i = blockIdx.x * kEmitWarps + w;
    if (i >= j.nblocks) return;
    const wcg_cblk b = j.blocks[i];
    const wcg_huf *t = tabs + ((size_t)b.comp * WCG_NCLASS + b.cls) * WCG_NTAB;
    if (j.tiled) {
        emit_tiles<TOK>(j, b, t, rows[w], slots, sizes, i);
        return;
    }
    const uint32_t n = (code_block<TOK>(j, b, t, rows[w], (uint32_t *)(slots + b.slot)) + 7) / 8;
    if (lane == 0) {
        if (n > b.cap) atomicOr(&sizes[j.nblocks], 1u);
        sizes[i] = n > b.cap ? 0 : n;
    }
    count_done(j, b.comp);
}

/* Exclusive scan of the sizes by one thread block: each thread sums a
 * run of consecutive blocks, the runs' sums are scanned in shared memory,
 * then each thread writes its run's offsets. */
constexpr int kScanThreads = 1024;
__global__ void scan_kernel(const uint32_t *sizes, uint32_t n, unsigned long long *offsets)
{
    __shared__ unsigned long long part[kScanThreads];
    const uint32_t per = (n + kScanThreads - 1) / kScanThreads;
    const uint32_t lo = threadIdx.x * per, hi = min(n, lo + per);
    unsigned long long sum = 0;
    for (uint32_t i = lo; i < hi; i++) sum += sizes[i];
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int d = 1; d < kScanThreads; d *= 2) {
        const unsigned long long add = threadIdx.x >= (unsigned)d ? part[threadIdx.x - d] : 0;
        __syncthreads();
        part[threadIdx.x] += add;
        __syncthreads();
    }
    unsigned long long off = part[threadIdx.x] - sum;
    for (uint32_t i = lo; i < hi; i++) {
        offsets[i] = off;
        off += sizes[i];
    }
    if (threadIdx.x == kScanThreads - 1) offsets[n] = part[threadIdx.x];
}

__global__ void move_kernel(const wcg_cblk *blocks, const uint8_t *slots, const uint32_t *sizes,
                            const unsigned long long *offsets, uint8_t *payload)
{
    const uint32_t i = blockIdx.x;
    const uint8_t *src = slots + blocks[i].slot;
    uint8_t *dst = payload + offsets[i];
    const uint32_t n = sizes[i];
    for (uint32_t t = threadIdx.x; t < n; t += blockDim.x) dst[t] = src[t];
}

/* Entropy 2: a block's payload from emit_tiles' pieces, each output byte
 * gathered by one thread from the width, the lengths and the tiles' bits
 * (the tile holding a bit found by a binary search over their starts). */
__global__ void tile_pack_kernel(const wcg_cblk *blocks, const uint8_t *slots,
                                 const uint32_t *sizes, const unsigned long long *offsets,
                                 uint8_t *payload)
{
    __shared__ uint32_t len[BCT_MAX], start[BCT_MAX + 1], src[BCT_MAX];
    __shared__ uint32_t sh_width, sh_n;
    const uint32_t i = blockIdx.x;
    const wcg_cblk b = blocks[i];
    const uint8_t *slot = slots + b.slot;
    if (threadIdx.x == 0) {
        const uint32_t across = (b.w + BCT_W - 1) / BCT_W;
        const uint32_t n = across * ((b.h + BCT_H - 1) / BCT_H);
        uint32_t longest = 0;
        for (uint32_t t = 0; t < n; t++) longest = max(longest, ((const uint32_t *)slot)[t]);
        const uint32_t width = longest ? 32u - __clz(longest) : 0u;
        uint32_t pos = BCT_WIDTH_BITS + n * width, at = 4 * n;
        for (uint32_t t = 0; t < n; t++) {
            len[t] = ((const uint32_t *)slot)[t];
            start[t] = pos;
            src[t] = at;
            pos += len[t];
            if (len[t]) at += (len[t] + 31) / 32 * 4;
        }
        start[n] = pos;
        sh_width = width;
        sh_n = n;
    }
    __syncthreads();
    const uint32_t n = sh_n, width = sh_width, head = BCT_WIDTH_BITS + n * width;
    const uint32_t size = sizes[i];
    uint8_t *dst = payload + offsets[i];
    for (uint32_t k = threadIdx.x; k < size; k += blockDim.x) {
        uint32_t out = 0;
        const uint32_t lo = 8 * k, hi = lo + 8;
        for (uint32_t q = lo; q < hi && q < start[n];) {
            if (q < BCT_WIDTH_BITS) {
                out |= ((width >> q) & 1u) << (q - lo);
                q++;
            } else if (q < head) {
                const uint32_t f = (q - BCT_WIDTH_BITS) / width, r = (q - BCT_WIDTH_BITS) % width;
                out |= ((len[f] >> r) & 1u) << (q - lo);
                q++;
            } else {
                uint32_t a = 0, z = n - 1; /* the last tile starting at or before q */
                while (a < z) {
                    const uint32_t m = (a + z + 1) / 2;
                    if (start[m] <= q)
                        a = m;
                    else
                        z = m - 1;
                }
                const uint32_t r = q - start[a];
                const uint32_t m = min(hi, start[a + 1]) - q;
                const uint8_t *s = slot + src[a] + r / 8;
                uint32_t v = s[0];
                if ((r & 7) + m > 8) v |= (uint32_t)s[1] << 8;
                out |= ((v >> (r & 7)) & ((1u << m) - 1)) << (q - lo);
                q += m;
            }
        }
        dst[k] = (uint8_t)out;
    }
}

__global__ void bands_kernel(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph)
{
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= pw) return;
    const uint32_t bw = pw / 8, bh = ph / 8;
    const uint32_t u = x & 7, bx = x >> 3, v = y & 7, by = y >> 3;
    dst[(size_t)(v * bh + by) * pw + u * bw + bx] = src[(size_t)y * pw + x];
}

} /* namespace */

/* WC_CUDA_COUNT picks the count kernel (PERF_NOTES e6-e7): "loop" the
 * thread block's shared histogram and row_events' loop (the count before
 * e6), "shared" the shared histogram with the scan (e6), "warp6" a
 * warp's own histogram with the scan at 6 thread blocks an SM (80
 * registers); anything else or unset: the same at 8 (64 registers, a
 * few spilled; the fastest, e7). */
static int count_kind()
{
    const char *e = getenv("WC_CUDA_COUNT");
    if (!e) return 8;
    if (strcmp(e, "loop") == 0) return 0;
    if (strcmp(e, "shared") == 0) return 1;
    if (strcmp(e, "warp6") == 0) return 6;
    return 8;
}

cudaError_t wcg_bc_count(const wcg_bc_job *job, unsigned long long *hist, cudaStream_t st)
{
    uint32_t most = 0;
    for (uint32_t c = 0; c < job->components; c++)
        most = job->count[c] > most ? job->count[c] : most;
    if (most == 0) return cudaSuccess;
    const int kind = count_kind();
    if (kind >= 4) {
        const dim3 grid((most + kCount16Warps - 1) / kCount16Warps, job->components);
        if (kind == 6)
            count_warp16_kernel<6><<<grid, kCount16Warps * 32, 0, st>>>(*job, hist);
        else
            count_warp16_kernel<8><<<grid, kCount16Warps * 32, 0, st>>>(*job, hist);
        return cudaGetLastError();
    }
    const size_t shmem = WCG_HIST * sizeof(uint32_t);
    const dim3 grid((most + kCountWarps - 1) / kCountWarps, job->components);
    cudaError_t e;
    if (kind == 1) {
        e = cudaFuncSetAttribute(count_warp_kernel<true>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem);
        if (e != cudaSuccess) return e;
        count_warp_kernel<true><<<grid, kCountWarps * 32, shmem, st>>>(*job, hist);
    } else {
        e = cudaFuncSetAttribute(count_warp_kernel<false>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem);
        if (e != cudaSuccess) return e;
        count_warp_kernel<false><<<grid, kCountWarps * 32, shmem, st>>>(*job, hist);
    }
    return cudaGetLastError();
}

int wcg_bc_count_keeps_blocks(void) { return count_kind() >= 4; }

cudaError_t wcg_bc_sizes(const wcg_bc_job *job, const wcg_huf *tabs, uint32_t *sizes,
                         unsigned long long *totals, cudaStream_t st)
{
    if (job->nblocks == 0) return cudaSuccess;
    /* With totals, a warp sizes ~4 blocks: a few hundred thread blocks
     * add into the six totals, not one a block. */
    const unsigned per = totals ? 4 * kSizesWarps : kSizesWarps;
    const unsigned grid = (job->nblocks + per - 1) / per;
    sizes_kernel<<<grid, kSizesWarps * 32, 0, st>>>(*job, tabs, sizes, totals);
    return cudaGetLastError();
}

cudaError_t wcg_bc_emit(const wcg_bc_job *job, const wcg_huf *tabs, uint8_t *slots, uint32_t *sizes,
                        cudaStream_t st)
{
    if (job->nblocks == 0) return cudaSuccess;
    const unsigned grid = (job->nblocks + kEmitWarps - 1) / kEmitWarps;
    /* WC_CUDA_EMIT_BLOCKS: "0" no register bound (96 registers, 5 thread
     * blocks an SM), "6" 80 registers; unset or else 64 for 8 (e8). */
    const char *e = getenv("WC_CUDA_EMIT_BLOCKS");
    const int blocks = !e ? 8 : strcmp(e, "0") == 0 ? 0 : strcmp(e, "6") == 0 ? 6 : 8;
    if (!job->tok[0])
        emit_warp_kernel<false, 0><<<grid, kEmitWarps * 32, 0, st>>>(*job, tabs, slots, sizes);
    else if (blocks == 0)
        emit_warp_kernel<true, 0><<<grid, kEmitWarps * 32, 0, st>>>(*job, tabs, slots, sizes);
    else if (blocks == 6)
        emit_warp_kernel<true, 6><<<grid, kEmitWarps * 32, 0, st>>>(*job, tabs, slots, sizes);
    else
        emit_warp_kernel<true, 8><<<grid, kEmitWarps * 32, 0, st>>>(*job, tabs, slots, sizes);
    return cudaGetLastError();
}

cudaError_t wcg_bc_pack(const wcg_bc_job *job, const uint8_t *slots, const uint32_t *sizes,
                        unsigned long long *offsets, uint8_t *payload, cudaStream_t st)
{
    scan_kernel<<<1, kScanThreads, 0, st>>>(sizes, job->nblocks, offsets);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || job->nblocks == 0) return e;
    if (job->tiled)
        tile_pack_kernel<<<job->nblocks, 128, 0, st>>>(job->blocks, slots, sizes, offsets, payload);
    else
        move_kernel<<<job->nblocks, 128, 0, st>>>(job->blocks, slots, sizes, offsets, payload);
    return cudaGetLastError();
}

cudaError_t wcg_blocks_to_bands(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph,
                                cudaStream_t st)
{
    if (pw == 0 || ph == 0) return cudaSuccess;
    bands_kernel<<<dim3((pw + 255) / 256, ph), 256, 0, st>>>(src, dst, pw, ph);
    return cudaGetLastError();
}
