/*
 * ratectl.c -- rate control: the base step that lands a file at or just
 * under a target of bits per pixel. File size falls as the step grows, so
 * a search on log2(step) converges (a safeguarded secant, rc_next); every
 * probe codes the image for real, so the size it measures is the size
 * written.
 */
#include <math.h>
#include <string.h>

#include "dwt.h"
#include "plan.h"
#include "quantizer.h"
#include "ratectl.h"

#define RC_MAX_PROBES 40
#define RC_TOLERANCE 0.005
#define RC_LOG_MIN -6.0 /* log2 of the finest step tried */
#define RC_LOG_MAX 16.0 /* and of the coarsest */
/* Where the search starts, and the slope of ln(file size) against log2(step)
 * it assumes until two probes give their own: about -0.6 on the Kodak
 * images at 0.25 to 2 bpp, 8-bit, 9/7 and DCT alike (a file halves for
 * every 1.15 doublings of the step). Both only place the first probes:
 * the result is what the probes measure. */
#define RC_LOG_START 3.0
#define RC_SLOPE_GUESS -0.6
#define RC_MAX_MOVE 6.0 /* the farthest one unbracketed probe jumps */

typedef struct rc_point {
    double x; /* log2 of the step */
    double g; /* ln(size) - ln(aim): > 0 too big, <= 0 fits */
    int have;
} rc_point;

/* The secant's root through two probes, or NAN where they give no
 * falling line (equal steps, or sizes that do not fall as the step grows:
 * the discrete sizes of a tiny image). */
static double rc_secant(const rc_point *a, const rc_point *b)
{
    if (!a->have || !b->have || a->x == b->x) return NAN;
    const double slope = (a->g - b->g) / (a->x - b->x);
    if (!(slope < -0.05 && slope > -20.0)) return NAN;
    return a->x - a->g / slope;
}

/* The next log2(step) to probe. Sizes fall about geometrically as the step
 * grows, so ln(size) is close to linear in log2(step), and a secant through
 * the last two probes lands near the target in three or four probes where a
 * bisection over the whole range took eleven or twelve. Safeguards keep the
 * guarantees of a bisection: once a step that fits and one that does not
 * are known, a probe stays strictly inside that bracket (a root near one
 * end is probed just inside it: the target is often that close), and after
 * three probes in a
 * row that did not halve the bracket, its middle is probed (as Brent's
 * method does), so the bracket keeps shrinking whatever the sizes do. */
static double rc_next(const rc_point *fits, const rc_point *big, const rc_point *last,
                      const rc_point *prev, int slow)
{
    if (fits->have && big->have) {
        const double w = fits->x - big->x, lo = big->x + 0.005 * w, hi = fits->x - 0.005 * w;
        if (slow >= 3) return big->x + 0.5 * w;
        double x = rc_secant(last, prev);
        if (isnan(x)) x = rc_secant(big, fits);
        if (isnan(x)) return big->x + 0.5 * w;
        return x < lo ? lo : x > hi ? hi : x;
    }
    double x = rc_secant(last, prev);
    if (isnan(x)) x = last->x - last->g / RC_SLOPE_GUESS;
    if (x > last->x + RC_MAX_MOVE) x = last->x + RC_MAX_MOVE;
    if (x < last->x - RC_MAX_MOVE) x = last->x - RC_MAX_MOVE;
    if (x > RC_LOG_MAX) x = RC_LOG_MAX;
    if (x < RC_LOG_MIN) x = RC_LOG_MIN;
    return x;
}

wc_status ratectl_search(float bpp, uint64_t pixels, ratectl_code_fn code, ratectl_keep_fn keep,
                         ratectl_finish_fn finish, void *arg, es_output *out, float *step,
                         wc_err *err)
{
    const double target = (double)bpp * (double)pixels / 8.0;
    /* The secant aims a quarter of the tolerance under the target, so its
     * probes land inside the accepted band [target (1 - tol), target]
     * rather than on its edge. */
    const double aim = log(target * (1.0 - 0.5 * RC_TOLERANCE));
    es_output best;
    memset(&best, 0, sizeof best);
    rc_point fits = {0}, big = {0}, last = {0}, prev = {0};
    double width = RC_LOG_MAX - RC_LOG_MIN;
    int slow = 0;      /* probes in a row that did not halve the bracket */
    int best_last = 0; /* the kept probe is the last one made */
    for (int probe = 0; probe < RC_MAX_PROBES; probe++) {
        const double x = probe == 0 ? RC_LOG_START : rc_next(&fits, &big, &last, &prev, slow);
        if ((fits.have && x == fits.x) || (big.have && x == big.x)) break; /* nothing new */
        wc_status s = WC_OK;
        if (fits.have && best.data_borrowed && keep) s = keep(arg, &best);
        es_output o;
        size_t file_bytes = 0;
        if (s == WC_OK) s = code(arg, (float)exp2(x), &o, &file_bytes);
        if (s != WC_OK) { /* e.g. out of memory: the best probe so far goes too */
            if (fits.have) es_output_free(&best);
            return s;
        }
        best_last = 0;
        const double size = (double)file_bytes;
        const rc_point pt = {x, log(size > 0 ? size : 1.0) - aim, 1};
        prev = last;
        last = pt;
        if (size <= target) {
            if (fits.have) es_output_free(&best);
            best = o;
            best_last = 1;
            fits = pt;
            if (size >= target * (1.0 - RC_TOLERANCE)) break;
        } else {
            es_output_free(&o);
            big = pt;
            if (x >= RC_LOG_MAX) break; /* even the coarsest step is too big */
        }
        if (fits.have && x <= RC_LOG_MIN) break; /* the finest step fits */
        if (fits.have && big.have) {
            const double w = fits.x - big.x;
            slow = w > 0.5 * width ? slow + 1 : 0;
            width = w;
            if (w < 1e-5) break;
        }
    }
    WC_RETURN_IF(!fits.have, err, WC_ERR_ARG, "target of %g bpp is below what this image can reach",
                 bpp);
    *step = (float)exp2(fits.x);
    if (finish) {
        const wc_status s = finish(arg, *step, best_last, &best);
        if (s != WC_OK) {
            es_output_free(&best);
            return s;
        }
    }
    *out = best;
    return WC_OK;
}

/* ---- The rule by counts (ratectl.h) ---- */

int ratectl_rule_applies(const wcx_header *h)
{
    if (h->entropy != WC_ENTROPY_HUFFMAN) return 0;
    for (uint32_t c = 0; c < h->components; c++)
        if (layout_comp_transform(h, c) != WC_TRANSFORM_DWT || dwt_family(h->wavelet[c]) == 0 ||
            dwt_is_mono(h->wavelet[c]) || dwt_is_expl(h->wavelet[c]))
            return 0;
    return 1;
}

float rc_grid_step(int m) { return (float)exp2((double)m / RC_GRID); }

uint64_t rc_rule_bytes(const wcx_header *h)
{
    const uint64_t nf = (uint64_t)h->components * WC_NCLASS;
    return sizeof(rc_rule) + (uint64_t)h->components * WC_MAX_BANDS * RC_BINS * 8 +
           (RC_WINDOW + 1) * nf * sizeof(bc_freq) + nf * BC_NTAB * BC_NSYM * 8 +
           (uint64_t)h->components * sizeof(huf_enc) * WC_NCLASS * BC_NTAB;
}

wc_status rc_init(rc_rule *r, const wcx_header *h, const wc_layout *lay, const float threshold[4],
                  float bpp, size_t meta_bytes, wc_err *err)
{
    memset(r, 0, sizeof *r);
    r->h = *h;
    r->lay = lay;
    r->bpp = bpp;
    r->target = (double)bpp * (double)h->width * (double)h->height / 8.0;
    memcpy(r->threshold, threshold, sizeof r->threshold);
    r->fixed = WCX_MAGIC_SIZE + WCX_CHUNK_OVERHEAD + wcx_header_size(h) + meta_bytes +
               (size_t)h->components * 2 * WCX_CHUNK_OVERHEAD + 2 * WCX_CHUNK_OVERHEAD;
    wcx_header one = *h, two = *h;
    plan_set_step(&one, 1.0f);
    plan_set_step(&two, 2.0f);
    for (uint32_t c = 0; c < h->components; c++)
        for (uint32_t b = 0; b < lay->nbands[c]; b++) {
            const unsigned si = lay->band[c][b].step_index;
            r->rel[c][b] = one.steps[c][si] == two.steps[c][si] ? 0.0f : one.steps[c][si];
        }
    const size_t nf = (size_t)h->components * WC_NCLASS;
    r->hist = wc_calloc((size_t)h->components * WC_MAX_BANDS * RC_BINS, sizeof(uint64_t));
    r->freq = wc_calloc(RC_WINDOW * nf, sizeof(bc_freq));
    r->best_freq = wc_calloc(nf, sizeof(bc_freq));
    if (!r->hist || !r->freq || !r->best_freq) {
        rc_free(r);
        return wc_fail(err, WC_ERR_NOMEM, "out of memory (rate control's statistics)");
    }
    return WC_OK;
}

void rc_free(rc_rule *r)
{
    wc_free(r->hist);
    wc_free(r->freq);
    wc_free(r->best_freq);
    r->hist = NULL;
    r->freq = r->best_freq = NULL;
}

/* Bin of a magnitude relative to the band's step: 0 for (nearly) zero,
 * then eight a octave from 2^-24 up (the float's exponent and three
 * mantissa bits), the last bin open. */
static inline unsigned rc_bin(float u)
{
    uint32_t bits;
    memcpy(&bits, &u, 4);
    const int i = (int)(bits >> 20) - (103 << 3) + 1;
    return i < 1 ? 0u : i >= RC_BINS ? RC_BINS - 1u : (unsigned)i;
}

static double rc_bin_value(unsigned i)
{
    if (i == 0) return 0.0;
    return exp2((double)((int)((i - 1) >> 3) + 103 - 127)) * (1.0 + (((i - 1) & 7) + 0.5) / 8.0);
}

void rc_hist(rc_rule *r, uint32_t c, uint32_t b, const float *f, const int32_t *iv, size_t n)
{
    uint64_t *hst = r->hist + ((size_t)c * WC_MAX_BANDS + b) * RC_BINS;
    /* a product, not the quantizer's quotient: the model needs no more,
     * and both encoders run this same code */
    const float inv = r->rel[c][b] > 0.0f ? 1.0f / r->rel[c][b] : 1.0f;
    if (f)
        for (size_t i = 0; i < n; i++) hst[rc_bin(fabsf(f[i]) * inv)]++;
    else
        for (size_t i = 0; i < n; i++) hst[rc_bin(fabsf((float)iv[i]) * inv)]++;
}

/* The model: a band's bits at base step s as N h(p) for where its non-zero
 * values are (p of them) plus log2 of each non-zero magnitude and 2.5
 * bits (class code and sign). Only where the first window goes. */
#define RC_MODEL_EXTRA 2.5
/* It overstates sizes: on 6 Kodak images at 0.1 to 4 bpp the rule's step
 * was 3 to 8 grid steps below the model's (mean 4.7), so the first
 * window is centred that far down. */
#define RC_MODEL_BIAS (5 * RC_GRID / 16)

static double rc_model_bytes(const rc_rule *r, double s)
{
    double bits = 0.0;
    for (uint32_t c = 0; c < r->h.components; c++)
        for (uint32_t b = 0; b < r->lay->nbands[c]; b++) {
            const uint64_t *hst = r->hist + ((size_t)c * WC_MAX_BANDS + b) * RC_BINS;
            const double st = r->rel[c][b] > 0.0f ? s : 1.0;
            double n = 0.0, nz = 0.0, mag = 0.0;
            for (unsigned i = 0; i < RC_BINS; i++) {
                if (!hst[i]) continue;
                n += (double)hst[i];
                const double u = rc_bin_value(i);
                if (u < st) continue;
                nz += (double)hst[i];
                mag += (double)hst[i] * (log2(u / st) + RC_MODEL_EXTRA);
            }
            if (n == 0.0) continue;
            const double p = nz / n;
            if (p > 0.0 && p < 1.0) bits += -n * (p * log2(p) + (1.0 - p) * log2(1.0 - p));
            bits += mag;
        }
    return (double)r->fixed + 200.0 * r->h.components + bits / 8.0 + 2.0 * (double)r->lay->nblocks;
}

static void rc_set_window(rc_rule *r)
{
    wcx_header hh = r->h;
    for (int k = 0; k < RC_WINDOW; k++) {
        plan_set_step(&hh, rc_grid_step(r->m_lo + k));
        for (uint32_t c = 0; c < hh.components; c++)
            for (uint32_t b = 0; b < r->lay->nbands[c]; b++)
                r->step[k][c][b] = hh.steps[c][r->lay->band[c][b].step_index];
    }
    memset(r->freq, 0, RC_WINDOW * (size_t)r->h.components * WC_NCLASS * sizeof(bc_freq));
}

void rc_first_window(rc_rule *r)
{
    int m0 = RC_M_MAX;
    for (int m = RC_M_MIN; m <= RC_M_MAX; m++)
        if (rc_model_bytes(r, (double)rc_grid_step(m)) <= r->target) {
            m0 = m;
            break;
        }
    r->m0 = m0;
    r->m_lo = m0 - RC_MODEL_BIAS - RC_WINDOW / 2;
    if (r->m_lo > RC_M_MAX - RC_WINDOW + 1) r->m_lo = RC_M_MAX - RC_WINDOW + 1;
    if (r->m_lo < RC_M_MIN) r->m_lo = RC_M_MIN;
    rc_set_window(r);
}

/* x86-64 with GCC: the loops over a block's values also get an AVX2
 * clone, picked at load time where the CPU has it. The arithmetic is
 * IEEE's either way (division, truncation, no contraction): the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define RC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define RC_CLONES
#endif

/* The largest |value| of each row of a block, as floats (NaN when any is
 * NaN: its bits are above every other magnitude's), and of the block.
 * Compared as the bits of non-negative floats, in int32, so the loops
 * vectorize. */
RC_CLONES static float rc_block_top(const float *f, const int32_t *iv, size_t stride, uint32_t w,
                                    uint32_t h, float *row_top)
{
    int32_t top = 0;
    for (uint32_t y = 0; y < h; y++) {
        int32_t rt = 0;
        for (uint32_t x = 0; x < w; x++) {
            const float v = f ? f[(size_t)y * stride + x] : (float)iv[(size_t)y * stride + x];
            int32_t bits;
            memcpy(&bits, &v, 4);
            bits &= 0x7FFFFFFF;
            rt = bits > rt ? bits : rt;
        }
        memcpy(&row_top[y], &rt, 4);
        top = rt > top ? rt : top;
    }
    float t;
    memcpy(&t, &top, 4);
    return t;
}

/* The block's quantized magnitudes at step st straight into the block
 * coder's magnitude plane (rows w + 4 apart): quant_value's, without the
 * quantized block in between. A row whose largest value quantizes to 0
 * is all zeros. */
RC_CLONES static void rc_quant_mags(uint32_t *m, const float *f, const int32_t *iv, size_t stride,
                                    uint32_t w, uint32_t h, const float *row_top, float st,
                                    float th)
{
    const size_t ms = (size_t)w + 4;
    for (uint32_t y = 0; y < h; y++) {
        uint32_t *d = m + (size_t)y * ms;
        if (quant_value(row_top[y], st, th) == 0) {
            memset(d, 0, w * sizeof *d);
        } else if (f) {
            const float *s = f + (size_t)y * stride;
            for (uint32_t x = 0; x < w; x++) d[x] = quant_mag(quant_value(s[x], st, th));
        } else {
            const int32_t *s = iv + (size_t)y * stride;
            for (uint32_t x = 0; x < w; x++) d[x] = quant_mag(quant_value((float)s[x], st, th));
        }
    }
}

void rc_count_block(rc_rule *r, uint32_t c, uint32_t b, const float *f, const int32_t *iv,
                    size_t stride, uint32_t w, uint32_t h, int32_t *q, uint32_t *scratch)
{
    const wc_band_info *bi = &r->lay->band[c][b];
    const float th = r->threshold[c];
    const int orient = bi->orient == 1 ? BC_VERT : bi->orient == 2 ? BC_HORZ : BC_ISO;
    const uint32_t run_max = (r->h.flags & 1) ? 1u : 3u;
    const bc_block blk = {q, w, h, w, bi->predict, orient, run_max};
    /* Steps grow along the window and the quantizer's magnitude grows
     * with |value|, so the block's largest magnitude bounds every
     * quantized one: 0 gives a block of zeros at this step and every
     * coarser one; under the block coder's cap, its magnitudes go
     * straight into its plane (bc_count_mags). */
    float row_top[BC_MAX_SIDE];
    const float top = rc_block_top(f, iv, stride, w, h, row_top);
    uint32_t *plane = NULL;
    for (int k = 0; k < RC_WINDOW; k++) {
        const float st = r->step[k][c][b];
        bc_freq *fr = &r->freq[((size_t)k * r->h.components + c) * WC_NCLASS + bi->cls];
        const int32_t qtop = quant_value(top, st, th);
        if (qtop == 0) {
            bc_count_zero(w, h, *fr);
            continue;
        }
        const int identity = !f && quant_int_is_identity(st, th);
        if (!bi->predict && !identity && (uint32_t)qtop < bc_mags_cap()) {
            if (!plane) plane = bc_mags_plane(scratch, w, h);
            rc_quant_mags(plane, f, iv, stride, w, h, row_top, st, th);
            bc_count_mags(w, h, orient, run_max, *fr, scratch);
            continue;
        }
        plane = NULL; /* bc_count below fills the plane its own way */
        for (uint32_t y = 0; y < h; y++) {
            int32_t *d = q + (size_t)y * w;
            if (f) {
                const float *s = f + (size_t)y * stride;
                for (uint32_t x = 0; x < w; x++) d[x] = quant_value(s[x], st, th);
            } else {
                const int32_t *s = iv + (size_t)y * stride;
                if (identity)
                    memcpy(d, s, w * sizeof *d);
                else
                    for (uint32_t x = 0; x < w; x++) d[x] = quant_value((float)s[x], st, th);
            }
        }
        bc_count(&blk, *fr, scratch);
    }
}

/* The bound of candidate k: the tables its counts make, the payload at
 * their code lengths, a byte of padding a block, and the index entries
 * (a varint of v bytes takes at most 1 + v / 128 bytes). */
static wc_status rc_bound_bytes(rc_rule *r, int k, int threads, double *bytes, wc_err *err)
{
    const size_t nf = (size_t)r->h.components * WC_NCLASS, n = nf * BC_NTAB * BC_NSYM;
    uint64_t *counts = wc_calloc(n, sizeof(uint64_t));
    huf_enc(*enc)[WC_NCLASS][BC_NTAB] = wc_calloc(r->h.components, sizeof *enc);
    wc_status s = counts && enc ? WC_OK : wc_fail(err, WC_ERR_NOMEM, "out of memory (counts)");
    const bc_freq *fk = r->freq + (size_t)k * nf;
    es_output tabs;
    memset(&tabs, 0, sizeof tabs);
    if (s == WC_OK) {
        const uint32_t *f = (const uint32_t *)fk;
        for (size_t i = 0; i < n; i++) counts[i] = f[i];
        s = es_build_tables(&r->h, counts, threads, enc, &tabs, err);
    }
    if (s == WC_OK) {
        double total = (double)r->fixed, payload = 0.0;
        for (uint32_t c = 0; c < r->h.components; c++) {
            uint64_t bits = 0;
            for (uint32_t cls = 0; cls < WC_NCLASS; cls++)
                bits += bc_payload_bits((const uint32_t(*)[BC_NSYM])fk[c * WC_NCLASS + cls],
                                        enc[c][cls]);
            total += (double)tabs.table_size[c];
            payload += (double)((bits + 7) / 8);
        }
        payload += (double)r->lay->nblocks;
        *bytes = total + payload + (double)r->lay->nblocks + floor(payload / 128.0);
    }
    es_output_free(&tabs);
    wc_free(counts);
    wc_free(enc);
    return s;
}

wc_status rc_window_done(rc_rule *r, int threads, int *again, float *step, wc_err *err)
{
    *again = 0;
    int lowest_fits = 0, any = 0;
    const size_t nf = (size_t)r->h.components * WC_NCLASS;
    for (int k = 0; k < RC_WINDOW; k++) {
        WC_FORWARD_IF_ERROR(rc_bound_bytes(r, k, threads, &r->bound[k], err));
        if (r->bound[k] > r->target) continue;
        any = 1;
        if (k == 0) lowest_fits = 1;
        const int m = r->m_lo + k;
        if (!r->have_best || m < r->best_m) {
            r->have_best = 1;
            r->best_m = m;
            memcpy(r->best_freq, r->freq + (size_t)k * nf, nf * sizeof(bc_freq));
        }
    }
    r->windows++;
    /* Up (nothing fits yet) until a step fits or the grid ends, each move
     * twice the last; down (the lowest fits) a window at a time, at most
     * RC_MAX_WINDOWS in all. */
    int move = 0;
    if (!any && r->dir != -1 && r->m_lo < RC_M_MAX - RC_WINDOW + 1) {
        r->dir = 1;
        move = RC_WINDOW << (r->ups < 8 ? r->ups : 8);
        r->ups++;
    } else if (lowest_fits && r->dir != 1 && r->m_lo > RC_M_MIN && r->windows < RC_MAX_WINDOWS) {
        r->dir = -1;
        move = -RC_WINDOW;
    }
    if (move) {
        r->m_lo += move;
        if (r->m_lo < RC_M_MIN) r->m_lo = RC_M_MIN;
        if (r->m_lo > RC_M_MAX - RC_WINDOW + 1) r->m_lo = RC_M_MAX - RC_WINDOW + 1;
        rc_set_window(r);
        *again = 1;
        return WC_OK;
    }
    WC_RETURN_IF(!r->have_best, err, WC_ERR_ARG,
                 "target of %g bpp is below what this image can reach", r->bpp);
    *step = rc_grid_step(r->best_m);
    return WC_OK;
}
