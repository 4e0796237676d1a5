/*
 * block_coder.c -- the coefficient model of block_coder.h.
 *
 * Magnitude classes: m < 4 is its own class; m >= 4 with k = floor(log2 m)
 * is class 4 + 2(k-2) + (the bit below the leading one), followed by the
 * k-1 low bits raw. Two classes per octave take the most skewed bit out
 * of the raw part, which Huffman alone would spend a whole bit on.
 */
#include <string.h>

#include "block_coder.h"
#include "ctx_lut.h"

#define MAG_CAP (1u << 20) /* keeps s = wa*a + wb*b + c + d inside uint32 */

static const uint32_t weight_w[3] = {2, 1, 3}, weight_n[3] = {2, 3, 1};
/* Magnitude classes: 0..3 exact; octaves 2..12 split in four by the two
 * bits below the leading one; octaves 13..31 one class each. */
#define BC_FINE_OCTAVES 12
#define BC_COARSE_BASE (4 * (BC_FINE_OCTAVES - 1) + 4)
#define MAG_PAD 2 /* rows above and columns each side that read as zero */
#define MAG_STRIDE (BC_MAX_SIDE + 2 * MAG_PAD)
#define MAG_ELEMS ((BC_MAX_SIDE + MAG_PAD) * MAG_STRIDE)

#if defined(__GNUC__)
#define BC_INLINE static inline __attribute__((always_inline))
#else
#define BC_INLINE static inline
#endif

size_t bc_scratch_elems(void) { return MAG_ELEMS + (size_t)BC_MAX_SIDE * BC_MAX_SIDE; }

size_t bc_bound(uint32_t w, uint32_t h)
{
    /* Worst case per coefficient: a 15-bit run code, a 15-bit class, 30
     * raw bits and a sign: under 8 bytes; plus the final partial word. */
    return (size_t)w * h * 8 + 16;
}

BC_INLINE uint32_t mag_of(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

/* Context bucket of s: s itself below 2, then two buckets per octave
 * (2k plus the bit below the leading one), the last from 3072 up; read
 * from ctx_lut.h, as it sits on the decoder's serial chain. */
BC_INLINE unsigned ctx_of(uint32_t s)
{
    return bc_ctx_lut[s < BC_CTX_LUT_SIZE ? s : BC_CTX_LUT_SIZE - 1];
}

BC_INLINE unsigned class_of(uint32_t m, uint32_t *extra, unsigned *nbits)
{
    if (m < 4) {
        *extra = 0;
        *nbits = 0;
        return m;
    }
    unsigned k = 31u - (unsigned)__builtin_clz(m);
    if (k <= BC_FINE_OCTAVES) {
        *nbits = k - 2;
        *extra = m & ((1u << (k - 2)) - 1);
        return 4 * (k - 1) + ((m >> (k - 2)) & 3);
    }
    *nbits = k;
    *extra = m & ((1u << k) - 1) & 0xFFFFFFFFu;
    return BC_COARSE_BASE + (k - BC_FINE_OCTAVES - 1);
}

/* Smallest magnitude of each class; class_bits (below) raw bits follow. */
static const uint32_t class_base[BC_NSYM] = {
    0,         1,         2,          3,          4,       5,        6,        7,        8,
    10,        12,        14,         16,         20,      24,       28,       32,       40,
    48,        56,        64,         80,         96,      112,      128,      160,      192,
    224,       256,       320,        384,        448,     512,      640,      768,      896,
    1024,      1280,      1536,       1792,       2048,    2560,     3072,     3584,     4096,
    5120,      6144,      7168,       8192,       16384,   32768,    65536,    131072,   262144,
    524288,    1048576,   2097152,    4194304,    8388608, 16777216, 33554432, 67108864, 134217728,
    268435456, 536870912, 1073741824, 2147483648u};
/* Raw bits below each magnitude class (see class_of). */
static const uint8_t class_bits[BC_NSYM] = {
    0,  0,  0,  0,  0,  0,  0,  0,  1,  1,  1,  1,  2,  2,  2,  2,  3,  3,  3,  3,  4, 4,  4,
    4,  5,  5,  5,  5,  6,  6,  6,  6,  7,  7,  7,  7,  8,  8,  8,  8,  9,  9,  9,  9, 10, 10,
    10, 10, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

BC_INLINE uint32_t value_of_class(bitr *r, unsigned sym)
{
    unsigned nb = class_bits[sym];
    return class_base[sym] | (nb ? bitr_get(r, nb) : 0);
}

/* MED predictor of JPEG-LS with wrapping arithmetic. */
BC_INLINE int32_t med(int32_t a, int32_t b, int32_t c)
{
    int32_t mx = a > b ? a : b, mn = a > b ? b : a;
    if (c >= mx) return mn;
    if (c <= mn) return mx;
    return (int32_t)((uint32_t)a + (uint32_t)b - (uint32_t)c);
}

BC_INLINE int32_t predict_at(const int32_t *v, size_t stride, uint32_t x, uint32_t y)
{
    if (y == 0) return x ? v[x - 1] : 0;
    const int32_t *row = v + y * stride;
    if (x == 0) return row[-(ptrdiff_t)stride];
    return med(row[x - 1], row[x - (ptrdiff_t)stride], row[x - 1 - (ptrdiff_t)stride]);
}

void bc_residuals(const bc_block *b, int32_t *res)
{
    for (uint32_t y = 0; y < b->h; y++)
        for (uint32_t x = 0; x < b->w; x++) {
            int32_t v = b->data[y * b->stride + x];
            int32_t p = predict_at(b->data, b->stride, x, y);
            res[(size_t)y * b->w + x] = (int32_t)((uint32_t)v - (uint32_t)p);
        }
}

static void mags_init(uint32_t *M, uint32_t w, uint32_t h)
{
    const size_t ms = w + 2 * MAG_PAD;
    memset(M, 0, MAG_PAD * ms * sizeof(uint32_t));
    for (uint32_t y = MAG_PAD; y < h + MAG_PAD; y++) {
        memset(M + y * ms, 0, MAG_PAD * sizeof(uint32_t));
        memset(M + y * ms + w + MAG_PAD, 0, MAG_PAD * sizeof(uint32_t));
    }
}

/* Rows of a code block lie a plane's width apart: too far for the
 * hardware prefetcher to follow, so each pass over a block asks for the
 * row PREFETCH_ROWS ahead (a 128-wide row is 8 cache lines). */
#define PREFETCH_ROWS 4

/* Prefetches rows [*pf, upto) of a block (up to its last) and moves *pf:
 * every pass keeps *pf = its row + PREFETCH_ROWS. */
BC_INLINE void prefetch_rows(const int32_t *src, size_t ss, uint32_t w, uint32_t h, uint32_t *pf,
                             uint32_t upto)
{
    for (; *pf < upto && *pf < h; ++*pf) {
#if defined(__GNUC__)
        for (uint32_t x = 0; x < w; x += 16) __builtin_prefetch(src + *pf * ss + x);
#else
        (void)src, (void)ss, (void)w;
#endif
    }
}

/* The coder knows every magnitude in advance: fill them all in one pass
 * the compiler vectorizes, instead of one store per coded value. The
 * contexts read only coded neighbours, so the values are the same. */
static void mags_fill(uint32_t *M, const int32_t *src, size_t ss, uint32_t w, uint32_t h)
{
    const size_t ms = w + 2 * MAG_PAD;
    mags_init(M, w, h);
    uint32_t pf = 0;
    for (uint32_t y = 0; y < h; y++) {
        uint32_t *mrow = M + (y + MAG_PAD) * ms + MAG_PAD;
        const int32_t *row = src + y * ss;
        prefetch_rows(src, ss, w, h, &pf, y + 1 + PREFETCH_ROWS);
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t m = mag_of(row[x]);
            mrow[x] = m < MAG_CAP ? m : MAG_CAP;
        }
    }
}

/* The first column from x on whose value is not zero, or w: four at a
 * time, as runs of zeros are what the coder spends its time skipping. */
BC_INLINE int next_nonzero(const int32_t *row, int x, int w)
{
    while (x + 4 <= w && (row[x] | row[x + 1] | row[x + 2] | row[x + 3]) == 0) x += 4;
    while (x < w && row[x] == 0) x++;
    return x;
}

/* Skips the zeros from (x, y) on in raster order; returns how many. */
BC_INLINE uint32_t skip_zeros(const int32_t *src, size_t ss, int w, int h, int *x, int *y)
{
    uint32_t r = 0;
    while (*y < h) {
        const int nx = next_nonzero(src + (size_t)*y * ss, *x, w);
        r += (uint32_t)(nx - *x);
        *x = nx;
        if (nx < w) break;
        *x = 0;
        ++*y;
    }
    return r;
}

/* Context sum over the coded neighbourhood of mrow[x] (rows ms apart). */
BC_INLINE uint32_t context_sum(const uint32_t *mrow, ptrdiff_t ms, int x, uint32_t wa, uint32_t wb)
{
    const uint32_t *up = mrow - ms;
    return wa * mrow[x - 1] + wb * up[x] + up[x - 1] + up[x + 1] + mrow[x - 2] + up[x - ms];
}

typedef struct sink {
    uint32_t (*freq)[BC_NSYM]; /* counting */
    uint16_t *tok;             /* counting: the symbols, for bc_emit */
    size_t *ntok;
    const huf_enc *tabs; /* coding */
    bitw *w;
} sink;

BC_INLINE void emit(const sink *k, int coding, unsigned tab, uint32_t m, int sign_bit,
                    int with_sign)
{
    uint32_t extra;
    unsigned nb;
    unsigned sym = class_of(m, &extra, &nb);
    if (!coding) {
        k->freq[tab][sym]++;
        if (k->tok) {
            k->tok[(*k->ntok)++] = (uint16_t)(tab << 8 | sym);
            /* A run's length follows its token (at most 128 * 128), so
             * bc_emit need not find the run in the data again. */
            if (tab == BC_RUN) k->tok[(*k->ntok)++] = (uint16_t)m;
        }
        return;
    }
    const huf_enc *t = &k->tabs[tab];
    unsigned len = t->bits[sym];
    if (nb <= 16) {
        /* Code, raw bits and sign in one write: at most 15 + 16 + 1 bits. */
        uint32_t v = t->code[sym] | extra << len | (uint32_t)sign_bit << (len + nb);
        bitw_put(k->w, v, len + nb + (unsigned)with_sign);
        return;
    }
    bitw_put(k->w, t->code[sym], len);
    bitw_put(k->w, extra, nb);
    if (with_sign) bitw_put(k->w, (uint32_t)sign_bit, 1);
}

/* One walk over the block for both counting and coding, so the two can
 * never disagree about contexts. With `filled` the caller has put the
 * block's magnitudes, all below MAG_CAP, in the magnitude plane
 * (bc_count_mags): they are the values walked (no sign is needed to
 * count), so the plane is neither filled nor read twice. */
BC_INLINE void walk(const bc_block *b, uint32_t *scratch, const sink *k, int coding, int filled)
{
    const int W = (int)b->w, H = (int)b->h; /* signed: x - 1 must reach the pad column */
    const uint32_t wa = weight_w[b->orient], wb = weight_n[b->orient];
    const ptrdiff_t ms = W + 2 * MAG_PAD;
    uint32_t *M = scratch;
    const int32_t *src = b->data;
    size_t ss = b->stride;
    if (filled) {
        src = (const int32_t *)(M + MAG_PAD * ms + MAG_PAD);
        ss = (size_t)ms;
    } else {
        if (b->predict) {
            int32_t *res = (int32_t *)(scratch + MAG_ELEMS);
            bc_residuals(b, res);
            src = res;
            ss = W;
        }
        mags_fill(M, src, ss, b->w, b->h);
    }
    int x = 0, y = 0;
    while (y < H) {
        const uint32_t *mrow = M + (y + MAG_PAD) * ms + MAG_PAD;
        const int32_t *row = src + y * (ptrdiff_t)ss;
        while (x < W) {
            uint32_t s = context_sum(mrow, ms, x, wa, wb);
            if (s <= b->run_max) break;
            int32_t v = row[x];
            uint32_t m = mag_of(v);
            emit(k, coding, ctx_of(s), m, v < 0, m != 0);
            x++;
        }
        if (x == W) {
            x = 0;
            y++;
            continue;
        }
        /* Run mode: zeros in raster order until a non-zero or the end. */
        uint32_t r = skip_zeros(src, ss, W, H, &x, &y);
        emit(k, coding, BC_RUN, r, 0, 0);
        if (y == H) break;
        int32_t v = src[y * (ptrdiff_t)ss + x];
        uint32_t m = mag_of(v);
        emit(k, coding, BC_TERM, m - 1, v < 0, 1);
        if (++x == W) {
            x = 0;
            y++;
        }
    }
}

void bc_count(const bc_block *b, bc_freq freq, uint32_t *scratch)
{
    sink k = {freq, NULL, NULL, NULL, NULL};
    walk(b, scratch, &k, 0, 0);
}

uint32_t bc_mags_cap(void) { return MAG_CAP; }

uint32_t *bc_mags_plane(uint32_t *scratch, uint32_t w, uint32_t h)
{
    mags_init(scratch, w, h);
    return scratch + MAG_PAD * (w + 2 * MAG_PAD) + MAG_PAD;
}

void bc_count_mags(uint32_t w, uint32_t h, int orient, uint32_t run_max, bc_freq freq,
                   uint32_t *scratch)
{
    const bc_block b = {NULL, w, h, w + 2 * MAG_PAD, 0, orient, run_max};
    sink k = {freq, NULL, NULL, NULL, NULL};
    walk(&b, scratch, &k, 0, 1);
}

size_t bc_symbolize(const bc_block *b, bc_freq freq, uint16_t *tokens, uint32_t *scratch)
{
    size_t n = 0;
    sink k = {freq, tokens, &n, NULL, NULL};
    walk(b, scratch, &k, 0, 0);
    return n;
}

void bc_count_zero(uint32_t w, uint32_t h, bc_freq freq)
{
    uint32_t extra;
    unsigned nb;
    freq[BC_RUN][class_of(w * h, &extra, &nb)]++;
}

uint64_t bc_payload_bits(const bc_freq freq, const huf_enc *tabs)
{
    uint64_t bits = 0;
    for (unsigned t = 0; t < BC_NTAB; t++)
        for (unsigned sym = 0; sym < BC_NSYM; sym++) {
            if (!freq[t][sym]) continue;
            /* walk(): a sign after a magnitude context's non-zero value
             * and after every run's terminating value; none after a run */
            const unsigned sign = t == BC_TERM || (t != BC_RUN && sym != 0);
            bits += (uint64_t)freq[t][sym] * (tabs[t].bits[sym] + class_bits[sym] + sign);
        }
    return bits;
}

size_t bc_encode(const bc_block *b, const huf_enc *tabs, uint8_t *out, size_t cap,
                 uint32_t *scratch)
{
    bitw w;
    bitw_init(&w, out, cap);
    sink k = {NULL, NULL, NULL, tabs, &w};
    walk(b, scratch, &k, 1, 0);
    size_t n = bitw_flush(&w);
    return w.overflow ? SIZE_MAX : n;
}

BC_INLINE void put_token(bitw *w, const huf_enc *t, unsigned sym, uint32_t m, uint32_t sign,
                         unsigned with_sign)
{
    unsigned len = t->bits[sym], nb = class_bits[sym];
    uint32_t extra = nb ? m & (0xFFFFFFFFu >> (32 - nb)) : 0;
    if (nb <= 16) {
        bitw_put(w, t->code[sym] | extra << len | sign << (len + nb), len + nb + with_sign);
        return;
    }
    bitw_put(w, t->code[sym], len);
    bitw_put(w, extra, nb);
    if (with_sign) bitw_put(w, sign, 1);
}

void bc_emit_to(bitw *w, const bc_block *b, const uint16_t *tokens, size_t ntok,
                const huf_enc *tabs, uint32_t *scratch)
{
    const int32_t *src = b->data;
    size_t ss = b->stride;
    if (b->predict) {
        int32_t *res = (int32_t *)(scratch + MAG_ELEMS);
        bc_residuals(b, res);
        src = res;
        ss = b->w;
    }
    const uint32_t W = b->w, H = b->h;
    uint32_t x = 0, y = 0;
    const int32_t *row = src;
    uint32_t pf = 0; /* rows below pf are prefetched */
    prefetch_rows(src, ss, W, H, &pf, PREFETCH_ROWS);
    for (size_t i = 0; i < ntok && y < H; i++) {
        unsigned tab = tokens[i] >> 8, sym = tokens[i] & 0xFF;
        if (tab == BC_RUN) {
            const uint32_t r = i + 1 < ntok ? tokens[++i] : 0;
            put_token(w, &tabs[BC_RUN], sym, r, 0, 0);
            y += (x + r) / W;
            x = (x + r) % W;
            row = src + (size_t)y * ss;
            prefetch_rows(src, ss, W, H, &pf, y + PREFETCH_ROWS);
            continue;
        }
        int32_t v = row[x];
        uint32_t m = mag_of(v), neg = v < 0;
        if (tab == BC_TERM)
            put_token(w, &tabs[BC_TERM], sym, m - 1, neg, 1);
        else
            put_token(w, &tabs[tab], sym, m, neg, m != 0);
        if (++x == W) {
            x = 0;
            row = src + (size_t)++y * ss;
            prefetch_rows(src, ss, W, H, &pf, y + PREFETCH_ROWS);
        }
    }
}

size_t bc_emit(const bc_block *b, const uint16_t *tokens, size_t ntok, const huf_enc *tabs,
               uint8_t *out, size_t cap, uint32_t *scratch)
{
    bitw w;
    bitw_init(&w, out, cap);
    bc_emit_to(&w, b, tokens, ntok, tabs, scratch);
    size_t n = bitw_flush(&w);
    return w.overflow ? SIZE_MAX : n;
}

BC_INLINE int32_t signed_of(uint32_t m, uint32_t sign) { return (int32_t)(sign ? 0u - m : m); }

/* The magnitudes an int32 has: up to 2^31 - 1 either sign, and 2^31 only
 * negative. Anything else (a 32-bit class with raw bits, or +2^31) no
 * encoder writes; refusing it keeps every decodable payload the one
 * spelling of its coefficients, so damage cannot alias a valid value. */
BC_INLINE int mag_fits(uint32_t m, uint32_t sign)
{
    return m < 0x80000000u || (m == 0x80000000u && sign);
}

/* Rebuilds values from MED residuals in place, in raster order. */
void bc_unpredict(const bc_block *b)
{
    for (uint32_t y = 0; y < b->h; y++)
        for (uint32_t x = 0; x < b->w; x++) {
            int32_t *v = b->data + y * b->stride + x;
            int32_t p = predict_at(b->data, b->stride, x, y);
            *v = (int32_t)((uint32_t)*v + (uint32_t)p);
        }
}

/* One symbol of table t; 0 when the table is unused (corrupt input). The
 * fast table answers almost every code; the rest take huf_decode_long. */
BC_INLINE int decode_sym(bitr *r, const bc_dectab *T, unsigned t, unsigned *sym)
{
    uint32_t bits = bitr_peek(r, HUF_MAX_LEN);
    uint16_t e = T->t[t].fast[bits & ((1u << HUF_FAST_BITS) - 1)];
    if (__builtin_expect(e >> 8, 1)) {
        bitr_skip(r, e >> 8);
        *sym = e & 0xFF;
        return 1;
    }
    if (!T->used[t]) return 0;
    unsigned len;
    *sym = huf_decode_long(&T->t[t], bits, &len);
    bitr_skip(r, len);
    return 1;
}

#define FAST_BASE_LIMIT (1u << 22) /* classes whose smallest magnitude fits the entry */

/* The entry of `fast` for symbol sym with a code of clen bits; 0 (the long
 * way) for a class too large for the entry. */
static uint32_t fast_entry(unsigned sym, unsigned clen)
{
    if (sym >= BC_NSYM || class_base[sym] >= FAST_BASE_LIMIT) return 0;
    return clen | (uint32_t)class_bits[sym] << 4 | BC_FAST_OK | class_base[sym] << 10;
}

/* Fills a table's `fast` from its built decoder: a code of at most
 * BC_FAST_BITS bits owns every index whose low bits are its reversed code
 * (as in huf_dec_build), so the codes are placed directly instead of
 * every entry being derived from huf_dec's larger table; the rest (longer
 * codes) stay 0. */
static void fast_fill(uint32_t *fast, const huf_dec *d)
{
    if (d->single) {
        const uint32_t e = fast_entry(d->single_sym, 0);
        for (unsigned i = 0; i < BC_FAST_SIZE; i++) fast[i] = e;
        return;
    }
    /* Grown by doubling as huf_dec_build's table is. */
    unsigned rev = 0, idx = 0; /* the current canonical code, reversed */
    fast[0] = 0;
    for (unsigned l = 1; l <= BC_FAST_BITS; l++) {
        const unsigned half = 1u << (l - 1);
        memcpy(fast + half, fast, half * sizeof *fast);
        for (unsigned k = 0; k < d->count[l]; k++, idx++) {
            fast[rev] = fast_entry(d->sorted[idx], l);
            rev = huf_reverse_next(rev, l);
        }
    }
}

wc_status bc_dectab_build(bc_dectab *T, const uint8_t (*len)[BC_NSYM], const uint8_t *used,
                          wc_err *err)
{
    /* Only what a decoder reads is written: an unused table's lookups
     * (`fast` and its huf_dec, read before `used` is) are zeroed so they
     * lead to the "unused table" error; a used table's are overwritten
     * whole. Clearing all of T first cost as much as building it. */
    for (unsigned t = 0; t < BC_NTAB; t++) {
        T->used[t] = used[t] != 0;
        if (!used[t]) {
            memset(T->fast[t], 0, sizeof T->fast[t]);
            memset(&T->t[t], 0, sizeof T->t[t]);
            continue;
        }
        wc_err e = {{0}};
        wc_status s = huf_dec_build(&T->t[t], len[t], BC_NSYM, &e);
        WC_RETURN_IF(s != WC_OK, err, s, "table %u: %s", t, e.msg);
        fast_fill(T->fast[t], &T->t[t]);
    }
    return WC_OK;
}

/* How a value is followed by its sign bit. */
enum { SIGN_NONE, SIGN_IF_NONZERO, SIGN_ALWAYS };

/* Next value of table t: its class's base plus raw bits, and its sign. One
 * refill, one table load and shifts of the same 64-bit window in the
 * common case (code <= HUF_FAST_BITS, value < 2^22: at most 32 bits, and
 * a refill leaves at least 56). Returns 0 on an unused table. */
BC_INLINE int get_value(bitr *r, const bc_dectab *T, unsigned t, int sign_mode, uint32_t *value,
                        uint32_t *sign)
{
    bitr_refill(r);
    const uint64_t bits = r->acc;
    const uint32_t e = T->fast[t][bits & BC_FAST_MASK];
    if (__builtin_expect((e & BC_FAST_OK) != 0, 1)) {
        const unsigned len = e & 15, nb = (e >> 4) & 31;
        const uint32_t v = (e >> 10) + ((uint32_t)(bits >> len) & ((1u << nb) - 1));
        const unsigned has_sign = sign_mode == SIGN_ALWAYS ? 1u
                                  : sign_mode == SIGN_NONE ? 0u
                                                           : v != 0;
        *sign = (uint32_t)(bits >> (len + nb)) & has_sign;
        bitr_skip(r, len + nb + has_sign);
        *value = v;
        return 1;
    }
    unsigned sym;
    if (!decode_sym(r, T, t, &sym)) return 0;
    *value = value_of_class(r, sym);
    const int has_sign = sign_mode == SIGN_ALWAYS || (sign_mode == SIGN_IF_NONZERO && *value != 0);
    *sign = has_sign ? bitr_get(r, 1) : 0;
    return 1;
}

/* A block being decoded: bit reader, position and the two left
 * magnitudes. Kept as a value so that two of them can advance in turns
 * (bc_decode_pair) with their state in registers. */
typedef struct dstate {
    bitr r;
    const bc_dectab *T;
    const bc_block *b;
    const uint8_t *src;
    size_t size;
    size_t bit0, nbits; /* a sub-stream's bits from src's bit bit0; SIZE_MAX: size bytes */
    int32_t *row;       /* output row y */
    uint32_t *mrow;     /* magnitude row y (padded) */
    ptrdiff_t ms, ds;
    int x, y, W, H;
    uint32_t wa, wb, run_max, a, a2; /* a, a2: magnitudes at x - 1, x - 2 */
    uint32_t pf;                     /* output rows below pf are prefetched */
} dstate;

static void dstate_init(dstate *d, const uint8_t *src, size_t size, const bc_block *b,
                        const bc_dectab *T, uint32_t *scratch)
{
    bitr_init(&d->r, src, size);
    d->T = T;
    d->b = b;
    d->src = src;
    d->size = size;
    d->bit0 = 0;
    d->nbits = SIZE_MAX;
    d->W = (int)b->w;
    d->H = (int)b->h;
    d->ms = d->W + 2 * MAG_PAD;
    d->ds = (ptrdiff_t)b->stride;
    d->wa = weight_w[b->orient];
    d->wb = weight_n[b->orient];
    d->run_max = b->run_max;
    mags_init(scratch, b->w, b->h);
    d->row = b->data;
    d->mrow = scratch + MAG_PAD * d->ms + MAG_PAD;
    d->x = d->y = 0;
    d->a = d->a2 = 0;
    d->pf = 0;
    prefetch_rows(d->row, (size_t)d->ds, b->w, b->h, &d->pf, PREFETCH_ROWS);
}

/* Decodes the next coefficient, or a zero run and the value that ends
 * it. Returns 1 while the block goes on, 0 at its end, -1 on corrupt
 * data (message in err). */
BC_INLINE int dstep(dstate *d, wc_err *err)
{
    const uint32_t *up = d->mrow - d->ms;
    int x = d->x;
    uint32_t m, sign;
    const uint32_t s = d->wa * d->a + d->wb * up[x] + up[x - 1] + up[x + 1] + d->a2 + up[x - d->ms];
    if (s > d->run_max) {
        const unsigned ctx = ctx_of(s);
        if (!get_value(&d->r, d->T, ctx, SIGN_IF_NONZERO, &m, &sign))
            return wc_fail(err, WC_ERR_CORRUPT, "row %d col %d: context %u has no table", d->y, x,
                           ctx),
                   -1;
        if (!mag_fits(m, sign))
            return wc_fail(err, WC_ERR_CORRUPT,
                           "row %d col %d: magnitude %u out of the int32 range", d->y, x, m),
                   -1;
        d->row[x] = signed_of(m, sign);
        d->a2 = d->a;
        d->a = m < MAG_CAP ? m : MAG_CAP;
        d->mrow[x] = d->a;
    } else {
        uint32_t run;
        if (!get_value(&d->r, d->T, BC_RUN, SIGN_NONE, &run, &sign))
            return wc_fail(err, WC_ERR_CORRUPT, "row %d col %d: no run table", d->y, x), -1;
        const uint32_t left = (uint32_t)((d->H - d->y) * d->W - x);
        if (run > left)
            return wc_fail(err, WC_ERR_CORRUPT, "row %d col %d: run of %u past end of block", d->y,
                           x, run),
                   -1;
        while (run > 0) { /* a row piece at a time */
            const uint32_t n = (uint32_t)(d->W - x) < run ? (uint32_t)(d->W - x) : run;
            memset(d->row + x, 0, n * sizeof(int32_t));
            memset(d->mrow + x, 0, n * sizeof(uint32_t));
            run -= n;
            x += (int)n;
            if (x == d->W) {
                x = 0;
                if (++d->y == d->H) return 0;
                d->row += d->ds;
                d->mrow += d->ms;
            }
        }
        if (!get_value(&d->r, d->T, BC_TERM, SIGN_ALWAYS, &m, &sign))
            return wc_fail(err, WC_ERR_CORRUPT, "row %d col %d: no run-end table", d->y, x), -1;
        m += 1;
        if (m == 0 || !mag_fits(m, sign)) /* m wraps to 0 for 2^32 */
            return wc_fail(err, WC_ERR_CORRUPT,
                           "row %d col %d: magnitude %llu out of the int32 range", d->y, x,
                           (unsigned long long)(m - 1u) + 1),
                   -1;
        d->row[x] = signed_of(m, sign);
        d->a2 = d->mrow[x - 1];
        d->a = m < MAG_CAP ? m : MAG_CAP;
        d->mrow[x] = d->a;
    }
    if (++x == d->W) {
        x = 0;
        if (++d->y == d->H) return 0;
        d->row += d->ds;
        d->mrow += d->ms;
        d->a = d->a2 = 0;
        prefetch_rows(d->b->data, (size_t)d->ds, (uint32_t)d->W, (uint32_t)d->H, &d->pf,
                      (uint32_t)d->y + PREFETCH_ROWS + 1);
    }
    d->x = x;
    return 1;
}

/* After the last coefficient: every byte used, none missing. */
static wc_status dstate_finish(const dstate *d, wc_err *err)
{
    if (d->nbits != SIZE_MAX) {
        /* A sub-stream: exactly its bits, read from the payload (which
         * holds the following sub-streams' bits, or zeros past its end). */
        const size_t used = (size_t)(d->r.p - d->src) * 8 + d->r.fake - d->r.n - d->bit0;
        WC_RETURN_IF(used > d->nbits, err, WC_ERR_CORRUPT, "sub-stream of %zu bits ends early",
                     d->nbits);
        WC_RETURN_IF(used < d->nbits, err, WC_ERR_CORRUPT, "%zu unused bits at the end of the tile",
                     d->nbits - used);
        if (d->b->predict) bc_unpredict(d->b);
        return WC_OK;
    }
    WC_RETURN_IF(bitr_overrun(&d->r), err, WC_ERR_TRUNCATED, "block data ends early");
    size_t used_bits = (size_t)(d->r.p - d->src) * 8 + d->r.fake - d->r.n;
    WC_RETURN_IF((used_bits + 7) / 8 != d->size, err, WC_ERR_CORRUPT,
                 "%zu unused bytes at the end of the block", d->size - (used_bits + 7) / 8);
    if (d->b->predict) bc_unpredict(d->b);
    return WC_OK;
}

wc_status bc_decode_bits(const uint8_t *src, size_t size, size_t bit0, size_t nbits,
                         const bc_block *b, const bc_dectab *T, uint32_t *scratch, wc_err *err)
{
    dstate d;
    const size_t skip = bit0 / 8;
    dstate_init(&d, src + skip, size - skip, b, T, scratch);
    d.bit0 = bit0 & 7;
    d.nbits = nbits;
    if (d.bit0) bitr_get(&d.r, (unsigned)d.bit0);
    int rc;
    while ((rc = dstep(&d, err)) > 0) {
    }
    return rc < 0 ? WC_ERR_CORRUPT : dstate_finish(&d, err);
}

wc_status bc_decode(const uint8_t *src, size_t size, const bc_block *b, const bc_dectab *T,
                    uint32_t *scratch, wc_err *err)
{
    dstate d;
    dstate_init(&d, src, size, b, T, scratch);
    int rc;
    while ((rc = dstep(&d, err)) > 0) {
    }
    return rc < 0 ? WC_ERR_CORRUPT : dstate_finish(&d, err);
}

/* The common case of a pair, with every piece of hot state in locals:
 * both blocks inside a row (not at its last column), outside run mode,
 * and answered by their fast tables. Advances both in turns until one of
 * them leaves that case; dstep then takes the step in full. Values from
 * the fast table are below 2^22, so no range check is needed here. */
BC_INLINE void pair_fast_w(dstate *d0, dstate *d1, const uint32_t wa0, const uint32_t wb0,
                           const uint32_t wa1, const uint32_t wb1)
{
    bitr r0 = d0->r, r1 = d1->r;
    int x0 = d0->x, x1 = d1->x;
    const int e0x = d0->W - 1, e1x = d1->W - 1;
    uint32_t a0 = d0->a, b0 = d0->a2, a1 = d1->a, b1 = d1->a2;
    const uint32_t *up0 = d0->mrow - d0->ms, *up1 = d1->mrow - d1->ms;
    const uint32_t *upp0 = up0 - d0->ms, *upp1 = up1 - d1->ms;
    uint32_t *m0 = d0->mrow, *m1 = d1->mrow;
    int32_t *o0 = d0->row, *o1 = d1->row;
    const uint32_t rm0 = d0->run_max, rm1 = d1->run_max;
    const uint32_t(*f0)[BC_FAST_SIZE] = d0->T->fast, (*f1)[BC_FAST_SIZE] = d1->T->fast;
    while (x0 < e0x && x1 < e1x) {
        const uint32_t s0 = wa0 * a0 + wb0 * up0[x0] + up0[x0 - 1] + up0[x0 + 1] + b0 + upp0[x0];
        const uint32_t s1 = wa1 * a1 + wb1 * up1[x1] + up1[x1 - 1] + up1[x1 + 1] + b1 + upp1[x1];
        if (s0 <= rm0 || s1 <= rm1) break;
        bitr_refill(&r0);
        bitr_refill(&r1);
        const uint64_t k0 = r0.acc, k1 = r1.acc;
        const uint32_t e0 = f0[ctx_of(s0)][k0 & BC_FAST_MASK];
        const uint32_t e1 = f1[ctx_of(s1)][k1 & BC_FAST_MASK];
        if (!(e0 & e1 & BC_FAST_OK)) break;
        const unsigned l0 = e0 & 15, n0 = (e0 >> 4) & 31, l1 = e1 & 15, n1 = (e1 >> 4) & 31;
        const uint32_t v0 = (e0 >> 10) + ((uint32_t)(k0 >> l0) & ((1u << n0) - 1));
        const uint32_t v1 = (e1 >> 10) + ((uint32_t)(k1 >> l1) & ((1u << n1) - 1));
        const uint32_t z0 = v0 != 0, z1 = v1 != 0;
        const uint32_t g0 = (uint32_t)(k0 >> (l0 + n0)) & z0, g1 = (uint32_t)(k1 >> (l1 + n1)) & z1;
        bitr_skip(&r0, l0 + n0 + z0);
        bitr_skip(&r1, l1 + n1 + z1);
        o0[x0] = signed_of(v0, g0);
        o1[x1] = signed_of(v1, g1);
        b0 = a0;
        b1 = a1;
        /* No cap: fast values are below 2^22, so s stays below 2^25,
         * and any magnitude from MAG_CAP up puts s in the last context
         * capped or not. */
        a0 = v0;
        a1 = v1;
        m0[x0++] = a0;
        m1[x1++] = a1;
    }
    d0->r = r0;
    d1->r = r1;
    d0->x = x0;
    d1->x = x1;
    d0->a = a0;
    d0->a2 = b0;
    d1->a = a1;
    d1->a2 = b1;
}

/* pair_fast with the context weights as constants (multiplications by
 * 1, 2, 3 become shifts and adds on the serial chain) when both blocks
 * have the same orientation, as neighbours in a band do. */
static void pair_fast(dstate *d0, dstate *d1)
{
    if (d0->wa == d1->wa && d0->wb == d1->wb) {
        if (d0->wa == 2 && d0->wb == 2) {
            pair_fast_w(d0, d1, 2, 2, 2, 2);
            return;
        }
        if (d0->wa == 1 && d0->wb == 3) {
            pair_fast_w(d0, d1, 1, 3, 1, 3);
            return;
        }
        if (d0->wa == 3 && d0->wb == 1) {
            pair_fast_w(d0, d1, 3, 1, 3, 1);
            return;
        }
    }
    pair_fast_w(d0, d1, d0->wa, d0->wb, d1->wa, d1->wb);
}

wc_status bc_decode_pair(const uint8_t *const src[2], const size_t size[2],
                         const bc_block *const b[2], const bc_dectab *const T[2],
                         uint32_t *const scratch[2], wc_err *err)
{
    dstate d0, d1;
    dstate_init(&d0, src[0], size[0], b[0], T[0], scratch[0]);
    dstate_init(&d1, src[1], size[1], b[1], T[1], scratch[1]);
    int r0, r1;
    /* The blocks' serial chains are independent: stepping them in turns
     * lets the processor overlap one's table loads with the other's. */
    do {
        pair_fast(&d0, &d1);
        r0 = dstep(&d0, err);
        r1 = dstep(&d1, err);
    } while (r0 > 0 && r1 > 0);
    if (r0 < 0 || r1 < 0) return WC_ERR_CORRUPT;
    while (r0 > 0) r0 = dstep(&d0, err);
    while (r1 > 0) r1 = dstep(&d1, err);
    if (r0 < 0 || r1 < 0) return WC_ERR_CORRUPT;
    WC_FORWARD_IF_ERROR(dstate_finish(&d0, err));
    return dstate_finish(&d1, err);
}

void bc_tables_write(bitw *w, const uint8_t (*len)[BC_NSYM])
{
    for (unsigned t = 0; t < BC_NTAB; t++) {
        unsigned used = 0;
        for (unsigned s = 0; s < BC_NSYM; s++) used |= len[t][s];
        bitw_put(w, used != 0, 1);
        if (used) huf_lengths_write(w, len[t], BC_NSYM);
    }
}

wc_status bc_tables_read(bitr *r, uint8_t (*len)[BC_NSYM], uint8_t *used, wc_err *err)
{
    for (unsigned t = 0; t < BC_NTAB; t++) {
        used[t] = (uint8_t)bitr_get(r, 1);
        if (used[t])
            WC_FORWARD_IF_ERROR(huf_lengths_read(r, len[t], BC_NSYM, err));
        else
            memset(len[t], 0, BC_NSYM);
        WC_RETURN_IF(bitr_overrun(r), err, WC_ERR_TRUNCATED, "entropy tables end early");
    }
    return WC_OK;
}
