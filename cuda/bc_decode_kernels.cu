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

extern "C" {
#include "block_coder.h"
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

/* bitio.h's reader, a byte at a time. */
struct Bits {
    const uint8_t *p, *end;
    unsigned long long acc;
    unsigned n;
    uint32_t fake;
    __device__ __forceinline__ void refill()
    {
        while (n <= 56) {
            if (p < end)
                acc |= (unsigned long long)*p++ << n;
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
__device__ __forceinline__ int get_value(Bits &r, const bc_dectab *T, unsigned t, int sign_mode,
                                         uint32_t *value, uint32_t *sign)
{
    /* The common case in one look-up (bc_dectab.fast, as the CPU's
     * get_value): code length, raw bits and the class's base from the
     * next BC_FAST_BITS bits; a refilled window holds the at most 30 bits. */
    if (r.n < 32) r.refill();
    const uint32_t f = T->fast[t][r.acc & BC_FAST_MASK];
    if (f & BC_FAST_OK) {
        const unsigned len = f & 15, nb = (f >> 4) & 31;
        const uint32_t v = (f >> 10) + ((uint32_t)(r.acc >> len) & ((1u << nb) - 1));
        const unsigned has = sign_mode == 2 ? 1u : sign_mode == 0 ? 0u : v != 0;
        *sign = (uint32_t)(r.acc >> (len + nb)) & has;
        r.skip(len + nb + has);
        *value = v;
        return 1;
    }
    const uint32_t bits = r.peek(HUF_MAX_LEN);
    const uint16_t e = T->t[t].fast[bits & ((1u << HUF_FAST_BITS) - 1)];
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

__global__ void decode_kernel(wcg_dec_job j)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= j.nblocks) return;
    const wcg_cblk b = j.blocks[i];
    uint32_t *st = j.status + 4 * (size_t)i;
    const bc_dectab *T = (const bc_dectab *)j.tabs + (size_t)b.comp * BC_NCLASS_ALL + b.cls;
    int32_t *d = j.plane[b.comp] + b.base;
    const size_t ds = b.stride;
    const int W = b.w, H = b.h;
    const uint32_t wa = b.orient == 1 ? 1u : b.orient == 2 ? 3u : 2u;
    const uint32_t wb = b.orient == 1 ? 3u : b.orient == 2 ? 1u : 2u;
    Bits r;
    r.p = j.data + b.slot;
    r.end = r.p + b.cap;
    r.acc = 0;
    r.n = 0;
    r.fake = 0;
    /* Capped magnitudes of decoded values (row y - 1 and y - 2 read back
     * from the plane; zero outside the block). */
    auto up = [&](int x, int y) -> uint32_t {
        return (x < 0 || x >= W || y < 0) ? 0u : capped(d[(size_t)y * ds + x]);
    };
    int x = 0, y = 0;
    uint32_t a = 0, a2 = 0;
    for (;;) {
        const uint32_t s =
            wa * a + wb * up(x, y - 1) + up(x - 1, y - 1) + up(x + 1, y - 1) + a2 + up(x, y - 2);
        uint32_t m, sign;
        if (s > j.run_max) {
            const unsigned ctx = ctx_of(s);
            if (!get_value(r, T, ctx, 1, &m, &sign)) return fail(st, WCG_DEC_NO_TABLE, y, x, ctx);
            if (!mag_fits(m, sign)) return fail(st, WCG_DEC_RANGE, y, x, m);
            d[(size_t)y * ds + x] = signed_of(m, sign);
            a2 = a;
            a = m < kMagCap ? m : kMagCap;
        } else {
            uint32_t run;
            if (!get_value(r, T, kRun, 0, &run, &sign))
                return fail(st, WCG_DEC_NO_RUN_TABLE, y, x, 0);
            const uint32_t left = (uint32_t)((H - y) * W - x);
            if (run > left) return fail(st, WCG_DEC_LONG_RUN, y, x, run);
            bool end = false;
            while (run > 0) {
                const uint32_t n = (uint32_t)(W - x) < run ? (uint32_t)(W - x) : run;
                for (uint32_t k = 0; k < n; k++) d[(size_t)y * ds + x + k] = 0;
                run -= n;
                x += (int)n;
                if (x == W) {
                    x = 0;
                    if (++y == H) {
                        end = true;
                        break;
                    }
                }
            }
            if (end) break;
            if (!get_value(r, T, kTerm, 2, &m, &sign))
                return fail(st, WCG_DEC_NO_TERM_TABLE, y, x, 0);
            m += 1;
            if (m == 0 || !mag_fits(m, sign)) return fail(st, WCG_DEC_TERM_RANGE, y, x, m - 1);
            d[(size_t)y * ds + x] = signed_of(m, sign);
            a2 = x > 0 ? capped(d[(size_t)y * ds + x - 1]) : 0u;
            a = m < kMagCap ? m : kMagCap;
        }
        if (++x == W) {
            x = 0;
            if (++y == H) break;
            a = a2 = 0;
        }
    }
    if (r.fake > r.n) return fail(st, WCG_DEC_TRUNCATED, H, 0, 0);
    const size_t used = (size_t)(r.p - (j.data + b.slot)) * 8 + r.fake - r.n;
    if ((used + 7) / 8 != b.cap)
        return fail(st, WCG_DEC_SPARE, H, 0, b.cap - (uint32_t)((used + 7) / 8));
    if (b.predict) /* bc_unpredict */
        for (int yy = 0; yy < H; yy++)
            for (int xx = 0; xx < W; xx++) {
                int32_t *v = d + (size_t)yy * ds + xx;
                int32_t p;
                if (yy == 0)
                    p = xx ? v[-1] : 0;
                else if (xx == 0)
                    p = v[-(ptrdiff_t)ds];
                else
                    p = med(v[-1], v[-(ptrdiff_t)ds], v[-1 - (ptrdiff_t)ds]);
                *v = (int32_t)((uint32_t)*v + (uint32_t)p);
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

cudaError_t wcg_bc_decode(const wcg_dec_job *job, cudaStream_t st)
{
    if (job->nblocks == 0) return cudaSuccess;
    decode_kernel<<<(job->nblocks + 31) / 32, 32, 0, st>>>(*job);
    return cudaGetLastError();
}

cudaError_t wcg_bands_to_blocks(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph,
                                cudaStream_t st)
{
    if (pw == 0 || ph == 0) return cudaSuccess;
    blocks_kernel<<<dim3((pw + 255) / 256, ph), 256, 0, st>>>(src, dst, pw, ph);
    return cudaGetLastError();
}
