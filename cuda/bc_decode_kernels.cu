/*
 * bc_decode_kernels.cu -- entropy/block_coder.c's decoder on the device
 * (see entropy_cuda.h): one thread decodes one code block, dstep for
 * dstep, from the same tables (bc_dectab, built and validated on the host
 * by es_read_tables). Every read stays inside the block's payload (past
 * its end the reader supplies zeros and counts them, as bitio.h's does),
 * every write inside the block's rectangle (a run longer than what is
 * left of the block is an error before anything is written), and each
 * failure leaves a code, the position and a detail in the block's status
 * for the host to turn into the CPU decoder's message.
 */
#include "entropy_cuda.h"
#include "quantizer.h" /* quant_mag: a coefficient's magnitude, as the CPU takes it */

#include <stdio.h>
#include <stdlib.h>

extern "C" {
#include "block_coder.h"
#include "block_tiles.h"
}

namespace
{

constexpr uint32_t kMagCap = 1u << 20;
constexpr unsigned kRun = 0, kTerm = 24;

__constant__ uint32_t c_base[BC_NSYM] = {
    0,         1,         2,          3,          4,       5,        6,        7,        8,
    10,        12,        14,         16,         20,      24,       28,       32,       40,
    48,        56,        64,         80,         96,      112,      128,      160,      192,
    224,       256,       320,        384,        448,     512,      640,      768,      896,
    1024,      1280,      1536,       1792,       2048,    2560,     3072,     3584,     4096,
    5120,      6144,      7168,       8192,       16384,   32768,    65536,    131072,   262144,
    524288,    1048576,   2097152,    4194304,    8388608, 16777216, 33554432, 67108864, 134217728,
    268435456, 536870912, 1073741824, 2147483648u};
__constant__ uint8_t c_bits[BC_NSYM] = {
    0,  0,  0,  0,  0,  0,  0,  0,  1,  1,  1,  1,  2,  2,  2,  2,  3,  3,  3,  3,  4, 4,  4,
    4,  5,  5,  5,  5,  6,  6,  6,  6,  7,  7,  7,  7,  8,  8,  8,  8,  9,  9,  9,  9, 10, 10,
    10, 10, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/* bitio.h's reader. The payload and the tables are read-only in the
 * decode kernels, so their loads take the non-coherent path (__ldg). */
struct Bits {
    const uint8_t *p, *end;
    unsigned long long acc;
    unsigned n;
    uint32_t fake;
    /* At bit bit0 of the stream whose byte bit0 / 8 is first. */
    __device__ __forceinline__ void start(const uint8_t *first, const uint8_t *last, uint32_t bit0)
    {
        p = first;
        end = last;
        acc = 0;
        n = 0;
        fake = 0;
        if (bit0 & 7) get(bit0 & 7);
    }
    /* Callers refill with fewer than 32 bits left: four bytes at once
     * where four remain (two aligned words funnel-shifted: the payload's
     * allocation has 8 bytes of slack, and only bytes before end are
     * kept), else a byte at a time with zeros past the end. Either way
     * (p - start) * 8 + fake - n counts the bits taken. */
    __device__ __forceinline__ void refill()
    {
        if (n <= 32 && end - p >= 4) {
            const uintptr_t u = (uintptr_t)p;
            const uint32_t *q = (const uint32_t *)(u & ~(uintptr_t)3);
            const unsigned sh = (unsigned)(u & 3) * 8;
            uint32_t w = __ldg(q);
            if (sh) w = __funnelshift_r(w, __ldg(q + 1), sh);
            acc |= (unsigned long long)w << n;
            n += 32;
            p += 4;
            return;
        }
        while (n <= 56) {
            if (p < end)
                acc |= (unsigned long long)__ldg(p++) << n;
            else
                fake += 8;
            n += 8;
        }
    }
    __device__ __forceinline__ uint32_t peek(unsigned k)
    {
        if (n < k) refill();
        return (uint32_t)(acc & ((1ull << k) - 1));
    }
    __device__ __forceinline__ void skip(unsigned k)
    {
        acc >>= k;
        n -= k;
    }
    __device__ __forceinline__ uint32_t get(unsigned k)
    {
        const uint32_t v = peek(k);
        skip(k);
        return v;
    }
};

__device__ __forceinline__ unsigned ctx_of(uint32_t s)
{
    if (s < 2) return s;
    const unsigned k = 31u - (unsigned)__clz(s);
    const unsigned b = 2 * k + ((s >> (k - 1)) & 1u);
    return b < 23 ? b : 23;
}

/* huffman.c's huf_decode_long. */
__device__ unsigned decode_long(const huf_dec *d, uint32_t bits, unsigned *len)
{
    if (d->single) {
        *len = 0;
        return d->single_sym;
    }
    unsigned code = 0, first = 0, index = 0;
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        code |= bits & 1;
        bits >>= 1;
        const unsigned c = d->count[l];
        if (code - first < c) {
            *len = l;
            return d->sorted[(index + code - first) & (HUF_MAX_SYMS - 1)];
        }
        index += c;
        first = (first + c) << 1;
        code <<= 1;
    }
    *len = HUF_MAX_LEN;
    return d->sorted[0];
}

/* A value of table t with its sign (block_coder.c's get_value); 0 when the
 * table is unused (or a symbol is out of range: corrupt either way). */
template <bool k16, class Reader>
__device__ __forceinline__ int get_value(Reader &r, const bc_dectab *T, const uint16_t *F,
                                         unsigned t, int sign_mode, uint32_t *value, uint32_t *sign)
{
    /* The common case in one look-up (bc_dectab.fast, as the CPU's
     * get_value, or its 16-bit form F, in shared memory or global):
     * code length, raw bits and the class's base from the next
     * BC_FAST_BITS bits. A refilled window holds at least 32 bits, and
     * code, raw bits and sign take at most 8 + 21 + 1: its low word
     * answers them all. */
    if (r.n < 32) r.refill();
    const uint32_t lo = (uint32_t)r.acc;
    const uint32_t f = k16 ? (uint32_t)F[t * BC_FAST_SIZE + (lo & BC_FAST_MASK)]
                           : __ldg(&T->fast[t][lo & BC_FAST_MASK]);
    if (f & BC_FAST_OK) {
        const unsigned len = f & 15, nb = (f >> 4) & 31;
        const uint32_t raw = (lo >> len) & ((1u << nb) - 1);
        const uint32_t v = k16 ? ((f >> 10) << nb | raw) : (f >> 10) + raw;
        const unsigned has = sign_mode == 2 ? 1u : sign_mode == 0 ? 0u : v != 0;
        *sign = (lo >> (len + nb)) & has;
        r.skip(len + nb + has);
        *value = v;
        return 1;
    }
    const uint32_t bits = r.peek(HUF_MAX_LEN);
    const uint16_t e = __ldg(&T->t[t].fast[bits & ((1u << HUF_FAST_BITS) - 1)]);
    unsigned sym;
    if (e >> 8) {
        r.skip(e >> 8);
        sym = e & 0xFF;
    } else {
        if (!T->used[t]) return 0;
        unsigned len;
        sym = decode_long(&T->t[t], bits, &len);
        r.skip(len);
    }
    if (sym >= BC_NSYM) return 0;
    const unsigned nb = c_bits[sym];
    *value = c_base[sym] | (nb ? r.get(nb) : 0u);
    const int has = sign_mode == 2 || (sign_mode == 1 && *value != 0);
    *sign = has ? r.get(1) : 0u;
    return 1;
}

__device__ __forceinline__ int mag_fits(uint32_t m, uint32_t sign)
{
    return m < 0x80000000u || (m == 0x80000000u && sign);
}
__device__ __forceinline__ int32_t signed_of(uint32_t m, uint32_t sign)
{
    return (int32_t)(sign ? 0u - m : m);
}
__device__ __forceinline__ uint32_t capped(int32_t v)
{
    const uint32_t m = quant_mag(v);
    return m < kMagCap ? m : kMagCap;
}

__device__ __forceinline__ int32_t med(int32_t a, int32_t b, int32_t c)
{
    const int32_t mx = a > b ? a : b, mn = a > b ? b : a;
    if (c >= mx) return mn;
    if (c <= mn) return mx;
    return (int32_t)((uint32_t)a + (uint32_t)b - (uint32_t)c);
}

__device__ void fail(uint32_t *st, uint32_t code, int y, int x, uint32_t detail)
{
    st[0] = code;
    st[1] = (uint32_t)y;
    st[2] = (uint32_t)x;
    st[3] = detail;
}

/* The end of a stream (decode_stream, decode_lean): every bit used as
 * block_coder.c's dstate_finish wants, then bc_unpredict where predict. */
__device__ uint32_t finish_stream(const Bits &r, const uint8_t *p, const uint8_t *first,
                                  const uint8_t *end, uint32_t bit0, uint32_t nbits, int32_t *d,
                                  size_t ds, int W, int H, bool predict, uint32_t *st)
{
    const size_t used = (size_t)(r.p - first) * 8 + r.fake - r.n - (bit0 & 7);
    if (nbits != 0xFFFFFFFFu) { /* block_coder.c's dstate_finish of a sub-stream */
        if (used > nbits) return fail(st, WCG_DEC_SUB_EARLY, H, 0, nbits), WCG_DEC_SUB_EARLY;
        if (used < nbits)
            return fail(st, WCG_DEC_SUB_SPARE, H, 0, nbits - (uint32_t)used), WCG_DEC_SUB_SPARE;
    } else {
        if (r.fake > r.n) return fail(st, WCG_DEC_TRUNCATED, H, 0, 0), WCG_DEC_TRUNCATED;
        const size_t size = (size_t)(end - p);
        if ((used + 7) / 8 != size)
            return fail(st, WCG_DEC_SPARE, H, 0, (uint32_t)(size - (used + 7) / 8)), WCG_DEC_SPARE;
    }
    if (predict) /* bc_unpredict; each step's inputs loaded before the step before stores */
        for (int yy = 0; yy < H; yy++) {
            int32_t *row = d + (size_t)yy * ds;
            const int32_t *above = yy ? row - ds : row;
            int32_t left = 0, ul = 0, u = yy && W ? above[0] : 0, raw = W ? row[0] : 0;
            for (int xx = 0; xx < W; xx++) {
                const bool more = xx + 1 < W;
                const int32_t raw_n = more ? row[xx + 1] : 0;
                const int32_t u_n = more && yy ? above[xx + 1] : 0;
                const int32_t p_ = yy == 0 ? left : xx == 0 ? u : med(left, u, ul);
                const int32_t v = (int32_t)((uint32_t)raw + (uint32_t)p_);
                row[xx] = v;
                left = v;
                ul = u;
                u = u_n;
                raw = raw_n;
            }
        }
    return 0;
}

/* One stream into a rectangle (W x H at d, rows ds apart): a whole 1.0
 * payload (nbits == UINT32_MAX: p .. end, every byte used) or a tile's
 * sub-stream (nbits bits from bit bit0 of p; end bounds every read, past
 * it zeros). 0, or a failure code with st[1..3] filled as fail() does.
 * kZeroed: the rectangle is zero already, so a run of zeros only moves
 * the position (one step, not a store a coefficient). */
template <bool kZeroed, bool k16>
__device__ uint32_t decode_stream(const uint8_t *p, const uint8_t *end, uint32_t bit0,
                                  uint32_t nbits, const bc_dectab *T, const uint16_t *F, int32_t *d,
                                  size_t ds, int W, int H, uint32_t orient, bool predict,
                                  uint32_t run_max, uint32_t *st)
{
    const uint32_t wa = orient == 1 ? 1u : orient == 2 ? 3u : 2u;
    const uint32_t wb = orient == 1 ? 3u : orient == 2 ? 1u : 2u;
    const uint8_t *const first = p + bit0 / 8;
    Bits r;
    r.start(first, end, bit0);
    /* Capped magnitudes of decoded values (rows y - 1 and y - 2 read back
     * from the plane; zero outside the block). The context's four
     * neighbours from those rows live in registers (l1, c1, r1: row y - 1
     * at x - 1, x, x + 1; c2: row y - 2 at x); the two that the next
     * position adds are loaded before this position decodes and stores,
     * so their round trip to the plane is off the serial chain (PERF_NOTES
     * "Decode latency", k1). */
    auto up = [&](int x, int y) -> uint32_t {
        return (x < 0 || x >= W || y < 0) ? 0u : capped(d[(size_t)y * ds + x]);
    };
    int x = 0, y = 0;
    uint32_t a = 0, a2 = 0;
    uint32_t l1 = 0, c1 = 0, r1 = 0, c2 = 0; /* row 0: nothing above */
    for (;;) {
        const uint32_t s = wa * a + wb * c1 + l1 + r1 + a2 + c2;
        uint32_t m, sign;
        uint32_t nl1, nc1, nr1, nc2; /* the window at x + 1 */
        if (s > run_max) {
            nl1 = c1;
            nc1 = r1;
            nr1 = up(x + 2, y - 1);
            nc2 = up(x + 1, y - 2);
            const unsigned ctx = ctx_of(s);
            if (!get_value<k16>(r, T, F, ctx, 1, &m, &sign))
                return fail(st, WCG_DEC_NO_TABLE, y, x, ctx), WCG_DEC_NO_TABLE;
            if (!mag_fits(m, sign)) return fail(st, WCG_DEC_RANGE, y, x, m), WCG_DEC_RANGE;
            d[(size_t)y * ds + x] = signed_of(m, sign);
            a2 = a;
            a = m < kMagCap ? m : kMagCap;
        } else {
            uint32_t run;
            if (!get_value<k16>(r, T, F, kRun, 0, &run, &sign))
                return fail(st, WCG_DEC_NO_RUN_TABLE, y, x, 0), WCG_DEC_NO_RUN_TABLE;
            const uint32_t left = (uint32_t)((H - y) * W - x);
            if (run > left) return fail(st, WCG_DEC_LONG_RUN, y, x, run), WCG_DEC_LONG_RUN;
            /* The value left of the run's end: zero when the run wrote it,
             * else the one a holds (zero at a row's start). */
            const uint32_t before = run == 0 ? a : 0u;
            bool done = false;
            if (kZeroed) {
                uint32_t t = (uint32_t)x + run; /* run <= left: y stays <= H */
                while (t >= (uint32_t)W) {
                    t -= (uint32_t)W;
                    y++;
                }
                x = (int)t;
                done = y == H;
                run = 0;
            }
            while (run > 0) {
                const uint32_t n = (uint32_t)(W - x) < run ? (uint32_t)(W - x) : run;
                for (uint32_t k = 0; k < n; k++) d[(size_t)y * ds + x + k] = 0;
                run -= n;
                x += (int)n;
                if (x == W) {
                    x = 0;
                    if (++y == H) {
                        done = true;
                        break;
                    }
                }
            }
            if (done) break;
            nl1 = up(x, y - 1); /* loaded while the run's end decodes */
            nc1 = up(x + 1, y - 1);
            nr1 = up(x + 2, y - 1);
            nc2 = up(x + 1, y - 2);
            if (!get_value<k16>(r, T, F, kTerm, 2, &m, &sign))
                return fail(st, WCG_DEC_NO_TERM_TABLE, y, x, 0), WCG_DEC_NO_TERM_TABLE;
            m += 1;
            if (m == 0 || !mag_fits(m, sign))
                return fail(st, WCG_DEC_TERM_RANGE, y, x, m - 1), WCG_DEC_TERM_RANGE;
            d[(size_t)y * ds + x] = signed_of(m, sign);
            a2 = before;
            a = m < kMagCap ? m : kMagCap;
        }
        if (++x == W) {
            x = 0;
            if (++y == H) break;
            a = a2 = 0;
            l1 = 0;
            c1 = up(0, y - 1);
            r1 = up(1, y - 1);
            c2 = up(0, y - 2);
        } else {
            l1 = nl1;
            c1 = nc1;
            r1 = nr1;
            c2 = nc2;
        }
    }
    return finish_stream(r, p, first, end, bit0, nbits, d, ds, W, H, predict, st);
}

/* decode_lean's look-ups, split so that the common case falls through
 * to the store with nothing to check: fast_lean answers from the fast
 * entry (false: not there), slow_lean the long way (get_value) with the
 * checks only it needs. The fast entries' values are below 2^23 (never
 * out of the int32 range), and the sign bit's presence comes from the
 * entry instead of the value: of the classes only 0 (value 0, no raw
 * bits) has base 0, so v != 0 is base != 0. kBias: the run end's 1. */
template <bool k16, int kSign, uint32_t kBias, class Reader>
__device__ __forceinline__ bool fast_lean(Reader &r, const bc_dectab *T, const uint16_t *F,
                                          unsigned t, uint32_t *value, uint32_t *sign)
{
    if (r.n < 32) r.refill();
    const uint32_t lo = (uint32_t)r.acc;
    const uint32_t f = k16 ? (uint32_t)F[t * BC_FAST_SIZE + (lo & BC_FAST_MASK)]
                           : __ldg(&T->fast[t][lo & BC_FAST_MASK]);
    if (!(f & BC_FAST_OK)) return false;
    const unsigned len = f & 15, nb = (f >> 4) & 31;
    const unsigned has = kSign == 2 ? 1u : kSign == 0 ? 0u : f >= 1024u;
    const uint32_t raw = (lo >> len) & ((1u << nb) - 1);
    *value = (k16 ? ((f >> 10) << nb | raw) : (f >> 10) + raw) + kBias;
    *sign = (lo >> (len + nb)) & has;
    r.skip(len + nb + has);
    return true;
}
/* 1; 0 where the table is unused (or the symbol out of range); with
 * kCheck, 2 where the value (plus kBias) is out of the int32 range. */
template <int kSign, uint32_t kBias, bool kCheck, class Reader>
__device__ __forceinline__ unsigned slow_lean(Reader &r, const bc_dectab *T, unsigned t,
                                              uint32_t *value, uint32_t *sign)
{
    uint32_t v, sg;
    if (!get_value<false>(r, T, nullptr, t, kSign, &v, &sg)) return 0;
    v += kBias;
    *value = v;
    *sign = sg;
    return kCheck && ((kBias && v == 0) || !mag_fits(v, sg)) ? 2u : 1u;
}

/* Zeros above a block's first row (decode_lean's rows y - 1 and y - 2
 * there). */
__device__ int32_t g_zero_row[BC_MAX_SIDE + 4];

/* decode_stream with a shorter step (PERF_NOTES k9: the kernel is bound by
 * each step's instruction count, one warp issuing every ~6 cycles): the
 * rows y, y - 1 and y - 2 as pointers moved a row at a time (the zero row
 * above the block's top) instead of a 64-bit product and four bound
 * checks a neighbour, the range check only on the long way, the sign
 * bit's presence from the entry. The same values, messages and bounds.
 * kLazy (PERF_NOTES p3): the two neighbours a dense step loads for the
 * next one (row y - 1 at x + 2, row y - 2 at x + 1) are kept as loaded
 * and capped where the next step sums them, so that their trip to the
 * plane (rows written a row ago: L2, not L1) overlaps this whole step
 * instead of stalling at the cap right after the load. */
template <bool kZeroed, bool k16, bool kLazy = false>
__device__ uint32_t decode_lean(const uint8_t *p, const uint8_t *end, uint32_t bit0, uint32_t nbits,
                                const bc_dectab *T, const uint16_t *F, int32_t *d, size_t ds, int W,
                                int H, uint32_t orient, bool predict, uint32_t run_max,
                                uint32_t *st)
{
    const uint32_t wa = orient == 1 ? 1u : orient == 2 ? 3u : 2u;
    const uint32_t wb = orient == 1 ? 3u : orient == 2 ? 1u : 2u;
    const uint8_t *const first = p + bit0 / 8;
    Bits r;
    r.start(first, end, bit0);
    int32_t *row = d;                                 /* row y */
    const int32_t *u1 = g_zero_row, *u2 = g_zero_row; /* rows y - 1, y - 2 */
    /* (a load from the zero row past the row's end: no branch) */
    auto up = [W](const int32_t *u, int x) -> uint32_t {
        const int32_t *q = x < W ? u + x : g_zero_row;
        return capped(*q);
    };
    /* r1 and c2 as the window holds them: the plane's values (kLazy),
     * capped where the step uses them, or capped already */
    auto held = [W](const int32_t *u, int x) -> int32_t {
        const int32_t *q = x < W ? u + x : g_zero_row;
        return kLazy ? *q : (int32_t)capped(*q);
    };
    auto use = [](int32_t v) -> uint32_t { return kLazy ? capped(v) : (uint32_t)v; };
    /* the rows after a jump to row y (a run over whole rows) */
    auto rows_at = [&](int y) {
        row = d + (size_t)y * ds;
        u1 = y >= 1 ? row - ds : g_zero_row;
        u2 = y >= 2 ? row - 2 * ds : g_zero_row;
    };
    int x = 0, y = 0;
    uint32_t a = 0, a2 = 0;
    uint32_t l1 = 0, c1 = 0;
    int32_t r1v = 0, c2v = 0;
    for (;;) {
        const uint32_t r1 = use(r1v), c2 = use(c2v);
        const uint32_t s = wa * a + wb * c1 + l1 + r1 + a2 + c2;
        uint32_t m, sign;
        uint32_t nl1, nc1;
        int32_t nr1, nc2;
        if (s > run_max) {
            nl1 = c1;
            nc1 = r1;
            nr1 = held(u1, x + 2);
            nc2 = held(u2, x + 1);
            const unsigned ctx = ctx_of(s);
            if (!fast_lean<k16, 1, 0>(r, T, F, ctx, &m, &sign)) {
                const unsigned rc = slow_lean<1, 0, true>(r, T, ctx, &m, &sign);
                if (rc == 0) return fail(st, WCG_DEC_NO_TABLE, y, x, ctx), WCG_DEC_NO_TABLE;
                if (rc == 2) return fail(st, WCG_DEC_RANGE, y, x, m), WCG_DEC_RANGE;
            }
            row[x] = signed_of(m, sign);
            a2 = a;
            a = m < kMagCap ? m : kMagCap;
        } else {
            uint32_t run;
            if (!fast_lean<k16, 0, 0>(r, T, F, kRun, &run, &sign) &&
                !slow_lean<0, 0, false>(r, T, kRun, &run, &sign))
                return fail(st, WCG_DEC_NO_RUN_TABLE, y, x, 0), WCG_DEC_NO_RUN_TABLE;
            const uint32_t left = (uint32_t)((H - y) * W - x);
            if (run > left) return fail(st, WCG_DEC_LONG_RUN, y, x, run), WCG_DEC_LONG_RUN;
            const uint32_t before = run == 0 ? a : 0u;
            bool done = false;
            if (kZeroed) {
                uint32_t t = (uint32_t)x + run; /* run <= left: y stays <= H */
                const int y0 = y;
                while (t >= (uint32_t)W) {
                    t -= (uint32_t)W;
                    y++;
                }
                x = (int)t;
                done = y == H;
                if (y != y0 && !done) rows_at(y);
                run = 0;
            }
            while (run > 0) {
                const uint32_t n = (uint32_t)(W - x) < run ? (uint32_t)(W - x) : run;
                for (uint32_t k = 0; k < n; k++) row[x + k] = 0;
                run -= n;
                x += (int)n;
                if (x == W) {
                    x = 0;
                    if (++y == H) {
                        done = true;
                        break;
                    }
                    u2 = u1;
                    u1 = row;
                    row += ds;
                }
            }
            if (done) break;
            nl1 = up(u1, x); /* loaded while the run's end decodes */
            nc1 = up(u1, x + 1);
            nr1 = held(u1, x + 2);
            nc2 = held(u2, x + 1);
            if (!fast_lean<k16, 2, 1>(r, T, F, kTerm, &m, &sign)) {
                const unsigned rc = slow_lean<2, 1, true>(r, T, kTerm, &m, &sign);
                if (rc == 0) return fail(st, WCG_DEC_NO_TERM_TABLE, y, x, 0), WCG_DEC_NO_TERM_TABLE;
                if (rc == 2) return fail(st, WCG_DEC_TERM_RANGE, y, x, m - 1), WCG_DEC_TERM_RANGE;
            }
            row[x] = signed_of(m, sign);
            a2 = before;
            a = m < kMagCap ? m : kMagCap;
        }
        if (++x == W) {
            x = 0;
            if (++y == H) break;
            u2 = u1;
            u1 = row;
            row += ds;
            a = a2 = 0;
            l1 = 0;
            c1 = capped(u1[0]);
            r1v = held(u1, 1);
            c2v = held(u2, 0);
        } else {
            l1 = nl1;
            c1 = nc1;
            r1v = nr1;
            c2v = nc2;
        }
    }
    return finish_stream(r, p, first, end, bit0, nbits, d, ds, W, H, predict, st);
}

/* Entropy 0: a thread a block, `lanes` threads a thread block (fewer
 * than a warp's 32: fewer blocks whose divergent paths one warp runs one
 * after the other; the SMs have room for the extra warps); thread t
 * decodes block order[t] when the caller ordered them. kTab: where the
 * fast look-ups come from (wcg_dec_job.tab_mode); with 2 the thread block
 * first copies the fast16 entries of the lowest (component, class) among
 * its blocks into shared memory, so that a dense block's serial chain
 * waits for a shared-memory load a symbol instead of an L1 miss (PERF_NOTES
 * k8); every thread takes part in the copy and its barriers. */
constexpr uint32_t kNone = 0xFFFFFFFFu;
template <bool kZeroed, int kTab, int kStep> __global__ void decode_kernel(wcg_dec_job j)
{
    extern __shared__ uint4 s_fast[]; /* kTab 2: WCG_FAST16 entries */
    __shared__ uint32_t s_key;
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t i = t >= (j.norder ? j.norder : j.nblocks) ? kNone
                       : j.order                              ? __ldg(&j.order[t])
                                                              : t;
    const bool live = i < j.nblocks;
    wcg_cblk b = {};
    if (live) b = j.blocks[i];
    const uint32_t key = b.comp * BC_NCLASS_ALL + b.cls;
    const uint16_t *F = kTab ? j.fast16 + (size_t)key * WCG_FAST16 : nullptr;
    if (kTab == 2) {
        if (threadIdx.x == 0) s_key = kNone;
        __syncthreads();
        if (live) atomicMin(&s_key, key);
        __syncthreads();
        const uint32_t k = s_key;
        if (k != kNone) {
            const uint4 *src = (const uint4 *)(j.fast16 + (size_t)k * WCG_FAST16);
            for (uint32_t q = threadIdx.x; q < WCG_FAST16 * 2 / 16; q += blockDim.x)
                s_fast[q] = __ldg(src + q);
        }
        __syncthreads();
        if (key == k) F = (const uint16_t *)s_fast;
    }
    if (!live) return;
    uint32_t *st = j.status + 4 * (size_t)i;
    const bc_dectab *T = (const bc_dectab *)j.tabs + key;
    const uint8_t *p = j.data + b.slot;
    if (kStep)
        decode_lean<kZeroed, kTab != 0, kStep == 2>(p, p + b.cap, 0u, 0xFFFFFFFFu, T, F,
                                                    j.plane[b.comp] + b.base, b.stride, b.w, b.h,
                                                    b.orient, b.predict, j.run_max, st);
    else
        decode_stream<kZeroed, kTab != 0>(p, p + b.cap, 0u, 0xFFFFFFFFu, T, F,
                                          j.plane[b.comp] + b.base, b.stride, b.w, b.h, b.orient,
                                          b.predict, j.run_max, st);
}

/* bc_dectab.fast's entries in 16 bits (wcg_dec_fast16). */
__global__ void fast16_kernel(const bc_dectab *T, uint32_t n, uint16_t *out)
{
    const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n) return;
    const uint32_t tab = q / WCG_FAST16, e = q % WCG_FAST16;
    const uint32_t f = T[tab].fast[e / BC_FAST_SIZE][e % BC_FAST_SIZE];
    const uint32_t nb = (f >> 4) & 31, base = f >> 10, m = base >> nb;
    out[q] = (f & BC_FAST_OK) && m <= 7 && m << nb == base ? (uint16_t)((f & 0x3FF) | m << 10)
                                                           : (uint16_t)0;
}

/* k bits (<= 16) from bit o of a payload of `size` bytes, zeros past it. */
__device__ __forceinline__ uint32_t bits_at(const uint8_t *p, uint32_t size, uint32_t o, unsigned k)
{
    uint32_t v = 0;
    for (unsigned q = 0; q < 3; q++) {
        const uint32_t byte = o / 8 + q;
        if (byte < size) v |= (uint32_t)p[byte] << (8 * q);
    }
    return (v >> (o & 7)) & ((1u << k) - 1);
}

__device__ __forceinline__ unsigned width_of(uint32_t v) { return v ? 32u - __clz(v) : 0u; }

/* Entropy 2 (block_tiles.h): a block's tiles over G warps of L lanes
 * each (wcg_dec_job.tile_lanes, .tile_groups): warp g of the block
 * decodes tiles g * L .. g * L + L - 1, one a lane, its other lanes idle.
 * Fewer busy lanes a warp diverge less (a lane's run and value steps, its
 * refills and long look-ups, run one after the other for the whole warp),
 * and a block's warps run side by side (PERF_NOTES "t1"). Every warp
 * reads the block's lengths side by side (lane t tile t) and finds the
 * sub-streams by a warp prefix sum; the header's checks come in
 * block_tiles.c's order, then the lowest failing tile of the block (over
 * its warps, through shared memory) names the error, as the CPU's loop
 * does. blockDim.x is 32 * kTileWarps or 32 * G, whichever is larger. */
constexpr int kTileWarps = 4;
template <bool kZeroed, bool kLean>
__global__ void __launch_bounds__(256) decode_tiles_kernel(wcg_dec_job j, unsigned L, unsigned G)
{
    __shared__ uint32_t s_bad[kTileWarps]; /* a block's lowest failing tile */
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    const unsigned slot = warp / G, part = warp % G, per_tb = blockDim.x / 32 / G;
    const uint32_t i = blockIdx.x * per_tb + slot;
    if (part == 0 && lane == 0) s_bad[slot] = kNone;
    __syncthreads();
    /* No early return from here to the barrier below (warp-uniform
     * branches only until the tiles diverge). */
    uint32_t code = 0, mine[4] = {0, 0, 0, 0};
    bool ok = i < j.nblocks;
    wcg_cblk b = {};
    uint32_t *st = NULL;
    if (ok) {
        b = j.blocks[i];
        st = j.status + 4 * (size_t)i;
    }
    const uint8_t *p = j.data + b.slot;
    const uint32_t size = b.cap;
    const uint32_t across = (b.w + BCT_W - 1) / BCT_W;
    const uint32_t n = across * ((b.h + BCT_H - 1) / BCT_H);
    const bool writer = part == 0 && lane == 0; /* the header's verdicts */
    const unsigned width = ok ? bits_at(p, size, 0, BCT_WIDTH_BITS) : 0u;
    if (ok && width > BCT_MAX_WIDTH) {
        if (writer) fail(st, WCG_DEC_TILE_WIDTH, 0, 0, width);
        ok = false;
    }
    const uint32_t head = BCT_WIDTH_BITS + n * width;
    if (ok && (unsigned long long)head > 8ull * size) {
        if (writer) fail(st, WCG_DEC_TILE_HEAD, 0, (int)size, head);
        ok = false;
    }
    const uint32_t len =
        ok && lane < n && width ? bits_at(p, size, BCT_WIDTH_BITS + lane * width, width) : 0u;
    const unsigned w_ok = width_of(__reduce_max_sync(0xFFFFFFFFu, len));
    if (ok && w_ok != width) {
        if (writer) fail(st, WCG_DEC_TILE_SHORTEST, (int)width, 0, w_ok);
        ok = false;
    }
    uint32_t incl = len;
    for (unsigned o = 1; o < 32; o <<= 1) {
        const uint32_t v = __shfl_up_sync(0xFFFFFFFFu, incl, o);
        if (lane >= o) incl += v;
    }
    /* Sums stay below 32 x 2^16 plus the header: no overflow. */
    const unsigned long long start = head + (unsigned long long)(incl - len);
    const bool past = ok && lane < n && (unsigned long long)len > 8ull * size - start;
    const unsigned pastm = __ballot_sync(0xFFFFFFFFu, past);
    if (ok && pastm) {
        const unsigned tp = __ffs(pastm) - 1;
        if (part == 0 && lane == tp) fail(st, WCG_DEC_TILE_PAST, (int)tp, (int)size, len);
        ok = false;
    }
    const unsigned long long total = head + (unsigned long long)__shfl_sync(0xFFFFFFFFu, incl, 31);
    if (ok && (total + 7) / 8 != size) {
        if (writer) fail(st, WCG_DEC_SPARE, 0, 0, size - (uint32_t)((total + 7) / 8));
        ok = false;
    }
    /* Tiles part * L + lane, then G * L further on while the block has
     * more (a block larger than the launch planned for), each lane
     * stopping at its first failure. n is the warp's own: every lane
     * takes the shuffles. */
    unsigned t = kNone; /* this lane's failing tile */
    for (unsigned first = part * L; ok && first < n; first += G * L) {
        const unsigned q = first + lane;
        const uint32_t tlen = __shfl_sync(0xFFFFFFFFu, len, q & 31);
        const unsigned long long tstart = __shfl_sync(0xFFFFFFFFu, start, q & 31);
        if (code || lane >= L || q >= n) continue;
        const uint32_t tx = q % across * BCT_W, ty = q / across * BCT_H;
        const int tw = (int)min(BCT_W, b.w - tx), th = (int)min(BCT_H, b.h - ty);
        int32_t *d = j.plane[b.comp] + b.base + (size_t)ty * b.stride + tx;
        if (tlen == 0) { /* an all-zero tile (on cleared planes: there already) */
            if (!kZeroed)
                for (int y = 0; y < th; y++)
                    for (int x = 0; x < tw; x++) d[(size_t)y * b.stride + x] = 0;
            continue;
        }
        const bc_dectab *T = (const bc_dectab *)j.tabs + (size_t)b.comp * BC_NCLASS_ALL + b.cls;
        code = kLean ? decode_lean<kZeroed, false>(p, p + size, (uint32_t)tstart, tlen, T, nullptr,
                                                   d, b.stride, tw, th, b.orient, b.predict,
                                                   j.run_max, mine)
                     : decode_stream<kZeroed, false>(p, p + size, (uint32_t)tstart, tlen, T,
                                                     nullptr, d, b.stride, tw, th, b.orient,
                                                     b.predict, j.run_max, mine);
        if (code) {
            t = q;
            atomicMin(&s_bad[slot], q);
        }
    }
    __syncthreads();
    if (code && s_bad[slot] == t) {
        st[1] = mine[1];
        st[2] = mine[2];
        st[3] = mine[3];
        st[0] = code | (t + 1) << 8; /* the tile, for the message */
    }
}

__global__ void blocks_kernel(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph)
{
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= pw) return;
    const uint32_t bw = pw / 8, bh = ph / 8;
    const uint32_t u = x & 7, bx = x >> 3, v = y & 7, by = y >> 3;
    dst[(size_t)y * pw + x] = src[(size_t)(v * bh + by) * pw + u * bw + bx];
}

} /* namespace */

cudaError_t wcg_dec_fast16(const void *tabs, uint32_t ntab, uint16_t *fast16, cudaStream_t st)
{
    static_assert(WCG_FAST16 == BC_NTAB * BC_FAST_SIZE, "a class's fast entries");
    static_assert(WCG_FAST16 * 2 % 16 == 0, "a class copies as 16-byte words");
    const uint32_t n = ntab * WCG_FAST16;
    if (n == 0) return cudaSuccess;
    fast16_kernel<<<(n + 255) / 256, 256, 0, st>>>((const bc_dectab *)tabs, n, fast16);
    return cudaGetLastError();
}

/* One entropy-0 kernel (planes cleared or not, table mode, step: 0
 * decode_stream's, 1 decode_lean's, 2 decode_lean's with kLazy). */
template <int kTab, int kStep>
static cudaError_t launch_blocks(const wcg_dec_job *job, unsigned eb, unsigned lanes,
                                 cudaStream_t st)
{
    const size_t smem = kTab == 2 ? WCG_FAST16 * 2 : 0;
    if (kTab == 2) { /* room for many thread blocks' tables: L1 mostly as shared memory */
        const int carve = cudaSharedmemCarveoutMaxShared;
        const cudaFuncAttribute at = cudaFuncAttributePreferredSharedMemoryCarveout;
        const cudaError_t e =
            job->zeroed ? cudaFuncSetAttribute(decode_kernel<true, kTab, kStep>, at, carve)
                        : cudaFuncSetAttribute(decode_kernel<false, kTab, kStep>, at, carve);
        if (e != cudaSuccess) return e;
    }
    if (job->zeroed)
        decode_kernel<true, kTab, kStep><<<eb, lanes, smem, st>>>(*job);
    else
        decode_kernel<false, kTab, kStep><<<eb, lanes, smem, st>>>(*job);
    return cudaGetLastError();
}

template <int kTab, bool kLean>
static cudaError_t launch_step(const wcg_dec_job *job, unsigned eb, unsigned lanes, cudaStream_t st)
{
    if (!kLean) return launch_blocks<kTab, 0>(job, eb, lanes, st);
    return job->lazy_above ? launch_blocks<kTab, 2>(job, eb, lanes, st)
                           : launch_blocks<kTab, 1>(job, eb, lanes, st);
}

template <bool kLean> static cudaError_t launch(const wcg_dec_job *job, cudaStream_t st)
{
    const unsigned lanes = job->lanes ? job->lanes : 2;
    const uint32_t threads = job->norder ? job->norder : job->nblocks;
    const unsigned eb = (threads + lanes - 1) / lanes;
    if (job->tiled) {
        /* G warps of L lanes a block (powers of two, G * L covering the
         * largest block's tiles where G <= 8 can; past that a lane takes
         * several), thread blocks of max(kTileWarps, G) warps */
        const unsigned most = job->tiles_max ? job->tiles_max : 32;
        unsigned L = job->tile_lanes ? job->tile_lanes : 32, G = 1;
        if (L > 32 || (L & (L - 1))) L = 32;
        while (G * L < most && G < 8) G *= 2;
        const unsigned warps = G > (unsigned)kTileWarps ? G : (unsigned)kTileWarps;
        const unsigned per_tb = warps / G;
        const unsigned tb = (job->nblocks + per_tb - 1) / per_tb;
        if (job->zeroed)
            decode_tiles_kernel<true, kLean><<<tb, warps * 32, 0, st>>>(*job, L, G);
        else
            decode_tiles_kernel<false, kLean><<<tb, warps * 32, 0, st>>>(*job, L, G);
        return cudaGetLastError();
    }
    if (job->fast16 && job->tab_mode == 2) return launch_step<2, kLean>(job, eb, lanes, st);
    if (job->fast16 && job->tab_mode == 1) return launch_step<1, kLean>(job, eb, lanes, st);
    return launch_step<0, kLean>(job, eb, lanes, st);
}

cudaError_t wcg_bc_decode(const wcg_dec_job *job, cudaStream_t st)
{
    if (job->nblocks == 0) return cudaSuccess;
    return job->stream_step ? launch<false>(job, st) : launch<true>(job, st);
}

cudaError_t wcg_bands_to_blocks(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph,
                                cudaStream_t st)
{
    if (pw == 0 || ph == 0) return cudaSuccess;
    blocks_kernel<<<dim3((pw + 255) / 256, ph), 256, 0, st>>>(src, dst, pw, ph);
    return cudaGetLastError();
}

wc_status wcg_dec_message(const uint32_t *st, char *what, size_t cap)
{
    /* A tile's failure: "tile T: " and then the sub-stream's message. */
    const uint32_t code = st[0] & 0xFF, tile = st[0] >> 8;
    int k = tile ? snprintf(what, cap, "tile %u: ", tile - 1) : 0;
    if (k < 0 || (size_t)k >= cap) k = 0;
    char *o = what + k;
    const size_t left = cap - (size_t)k;
    wc_status s = WC_ERR_CORRUPT;
    switch (code) {
    case WCG_DEC_NO_TABLE:
        snprintf(o, left, "row %u col %u: context %u has no table", st[1], st[2], st[3]);
        break;
    case WCG_DEC_RANGE:
        snprintf(o, left, "row %u col %u: magnitude %u out of the int32 range", st[1], st[2],
                 st[3]);
        break;
    case WCG_DEC_TERM_RANGE:
        snprintf(o, left, "row %u col %u: magnitude %llu out of the int32 range", st[1], st[2],
                 (unsigned long long)st[3] + 1);
        break;
    case WCG_DEC_NO_RUN_TABLE:
        snprintf(o, left, "row %u col %u: no run table", st[1], st[2]);
        break;
    case WCG_DEC_LONG_RUN:
        snprintf(o, left, "row %u col %u: run of %u past end of block", st[1], st[2], st[3]);
        break;
    case WCG_DEC_NO_TERM_TABLE:
        snprintf(o, left, "row %u col %u: no run-end table", st[1], st[2]);
        break;
    case WCG_DEC_TRUNCATED:
        snprintf(o, left, "block data ends early");
        s = WC_ERR_TRUNCATED;
        break;
    case WCG_DEC_SUB_EARLY: snprintf(o, left, "sub-stream of %u bits ends early", st[3]); break;
    case WCG_DEC_SUB_SPARE:
        snprintf(o, left, "%u unused bits at the end of the tile", st[3]);
        break;
    case WCG_DEC_TILE_WIDTH:
        snprintf(o, left, "tile lengths of %u bits (at most %u)", st[3], BCT_MAX_WIDTH);
        break;
    case WCG_DEC_TILE_HEAD:
        snprintf(o, left, "the tile lengths (%u bits) run past the block's %u bytes", st[3], st[2]);
        break;
    case WCG_DEC_TILE_SHORTEST:
        snprintf(o, left, "tile lengths of %u bits where %u would do", st[1], st[3]);
        break;
    case WCG_DEC_TILE_PAST:
        snprintf(o, left, "tile %u: its %u bits run past the block's %u bytes", st[1], st[3],
                 st[2]);
        break;
    case WCG_DEC_ARITH: snprintf(o, left, "arithmetic-coded data is inconsistent"); break;
    default: snprintf(o, left, "%u unused bytes at the end of the block", st[3]); break;
    }
    return s;
}
