/*
 * dwt53.c -- CDF 5/3 reversible integer wavelet, JPEG 2000 Part 1 Annex F
 * (floor rounding by arithmetic shift, whole-sample symmetric extension).
 *
 * Rows are lifted one at a time through a scratch copy of the high half.
 * Columns are not walked one sample at a time: a strip of DWT_STRIP columns
 * is copied into a staging buffer and each lifting step becomes an
 * operation on whole staging rows (row[r] -= (row[r-1] + row[r+1]) >> 1),
 * which the compiler vectorises; the rows are split into the low and high
 * halves as the strip is copied back. Per column the integer operations are
 * exactly those of dwt53_forward_1d, so both give the same result.
 */
#include <string.h>

#include "dwt.h"
#include "dwt_internal.h"

/* Lifting adds and subtracts wrap modulo 2^32 (backend.h's contract): a
 * damaged file can hold any int32 coefficients, and plain int32 sums of
 * those overflow, which is undefined behaviour. Wrapping gives the same
 * results wherever nothing overflows (every valid file: plan_levels keeps
 * the headroom), the forward and inverse stay exact inverses, and the
 * compilers vectorise unsigned adds just the same. */
static inline int32_t w_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t w_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
/* (a + b) >> 1 and (a + b + 2) >> 2 with wrapping sums. */
static inline int32_t w_half(int32_t a, int32_t b) { return w_add(a, b) >> 1; }
static inline int32_t w_quarter(int32_t a, int32_t b) { return w_add(w_add(a, b), 2) >> 2; }

/* ---- 1-D, contiguous ----------------------------------------------------- */

void dwt53_forward_1d(int32_t *x, uint32_t n, int32_t *scratch)
{
    if (n < 2) return; /* a single sample is its own low band */
    const uint32_t nl = (n + 1) / 2, nh = n / 2;
    const uint32_t ni = (n - 1) / 2; /* odd samples whose right neighbour is inside */
    int32_t *d = scratch;

    /* Predict: d[i] = x[2i+1] - ((x[2i] + x[2i+2]) >> 1), x[n] = x[n-2]. */
    for (uint32_t i = 0; i < ni; i++) d[i] = w_sub(x[2 * i + 1], w_half(x[2 * i], x[2 * i + 2]));
    if (ni < nh) d[ni] = w_sub(x[2 * ni + 1], w_half(x[2 * ni], x[2 * ni]));

    /* Update: s[i] = x[2i] + ((d[i-1] + d[i] + 2) >> 2), d[-1] = d[0] and
     * d[nh] = d[nh-1]. s[i] overwrites x[i]: the x[2i] still to be read
     * lie beyond every place written so far. */
    x[0] = w_add(x[0], w_quarter(d[0], d[0]));
    for (uint32_t i = 1; i < nh; i++) x[i] = w_add(x[2 * i], w_quarter(d[i - 1], d[i]));
    if (nh < nl) x[nh] = w_add(x[2 * nh], w_quarter(d[nh - 1], d[nh - 1]));

    memcpy(x + nl, d, nh * sizeof *d);
}

void dwt53_inverse_1d(int32_t *x, uint32_t n, int32_t *scratch)
{
    if (n < 2) return;
    const uint32_t nl = (n + 1) / 2, nh = n / 2;
    const uint32_t ni = (n - 1) / 2;
    memcpy(scratch, x, n * sizeof *x);
    const int32_t *s = scratch, *d = scratch + nl;

    /* Undo the update into the even places... */
    x[0] = w_sub(s[0], w_quarter(d[0], d[0]));
    for (uint32_t i = 1; i < nh; i++) x[2 * i] = w_sub(s[i], w_quarter(d[i - 1], d[i]));
    if (nh < nl) x[2 * nh] = w_sub(s[nh], w_quarter(d[nh - 1], d[nh - 1]));

    /* ...then the prediction, from the even samples just restored. */
    for (uint32_t i = 0; i < ni; i++) x[2 * i + 1] = w_add(d[i], w_half(x[2 * i], x[2 * i + 2]));
    if (ni < nh) x[2 * ni + 1] = w_add(d[ni], w_half(x[2 * ni], x[2 * ni]));
}

/* ---- staging rows of DWT_STRIP samples (the vertical pass) ----------------- */

static void dwt53_row_predict(int32_t *restrict x, const int32_t *restrict a,
                              const int32_t *restrict b)
{
    for (uint32_t j = 0; j < DWT_STRIP; j++) x[j] = w_sub(x[j], w_half(a[j], b[j]));
}

static void dwt53_row_update(int32_t *restrict x, const int32_t *restrict a,
                             const int32_t *restrict b)
{
    for (uint32_t j = 0; j < DWT_STRIP; j++) x[j] = w_add(x[j], w_quarter(a[j], b[j]));
}

static void dwt53_row_unpredict(int32_t *restrict x, const int32_t *restrict a,
                                const int32_t *restrict b)
{
    for (uint32_t j = 0; j < DWT_STRIP; j++) x[j] = w_add(x[j], w_half(a[j], b[j]));
}

static void dwt53_row_unupdate(int32_t *restrict x, const int32_t *restrict a,
                               const int32_t *restrict b)
{
    for (uint32_t j = 0; j < DWT_STRIP; j++) x[j] = w_sub(x[j], w_quarter(a[j], b[j]));
}

/* Staging row r of an n-row strip. */
static int32_t *dwt53_srow(int32_t *t, int64_t r, uint32_t n)
{
    return t + (size_t)dwt_mirror(r, n) * DWT_STRIP;
}

/* Forward lifting of n >= 2 interleaved staging rows, in place, in one
 * sweep: row r - 1 is updated right after row r is predicted, so the
 * rows in use stay in L1 instead of the whole strip being walked twice.
 * Each step still sees exactly the values of the two-pass order: the
 * prediction of r reads even rows not yet updated (r + 1 = n mirrors to
 * n - 2, updated only after), the update of r - 1 odd rows already
 * predicted. */
static void dwt53_strip_forward(int32_t *t, uint32_t n)
{
    uint32_t r = 1;
    for (; r < n; r += 2) {
        dwt53_row_predict(dwt53_srow(t, r, n), dwt53_srow(t, (int64_t)r - 1, n),
                          dwt53_srow(t, r + 1, n));
        dwt53_row_update(dwt53_srow(t, r - 1, n), dwt53_srow(t, (int64_t)r - 2, n),
                         dwt53_srow(t, r, n));
    }
    if (r - 1 < n) /* n odd: the last even row */
        dwt53_row_update(dwt53_srow(t, r - 1, n), dwt53_srow(t, (int64_t)r - 2, n),
                         dwt53_srow(t, r, n));
}

/* The inverse sweep: even row r is restored, then odd row r - 1 from the
 * restored rows on either side (r - 1 keeps its coded value until then). */
static void dwt53_strip_inverse(int32_t *t, uint32_t n)
{
    dwt53_row_unupdate(dwt53_srow(t, 0, n), dwt53_srow(t, -1, n), dwt53_srow(t, 1, n));
    uint32_t r = 2;
    for (; r < n; r += 2) {
        dwt53_row_unupdate(dwt53_srow(t, r, n), dwt53_srow(t, (int64_t)r - 1, n),
                           dwt53_srow(t, r + 1, n));
        dwt53_row_unpredict(dwt53_srow(t, r - 1, n), dwt53_srow(t, (int64_t)r - 2, n),
                            dwt53_srow(t, r, n));
    }
    if (r - 1 < n) /* n even: the last odd row */
        dwt53_row_unpredict(dwt53_srow(t, r - 1, n), dwt53_srow(t, (int64_t)r - 2, n),
                            dwt53_srow(t, r, n));
}

/* ---- one level of the 2-D transform on the w x h region at p --------------- */

static void dwt53_level_forward(int32_t *p, size_t stride, uint32_t w, uint32_t h, int32_t *scratch)
{
    dwt53_cols_forward(p, stride, 0, w, h, scratch); /* dwt_internal.h */
    for (uint32_t y = 0; y < h; y++) dwt53_forward_1d(p + (size_t)y * stride, w, scratch);
}

static void dwt53_level_inverse(int32_t *p, size_t stride, uint32_t w, uint32_t h, int32_t *scratch)
{
    for (uint32_t y = 0; y < h; y++) dwt53_inverse_1d(p + (size_t)y * stride, w, scratch);
    dwt53_cols_inverse(p, stride, 0, w, h, scratch);
}

/* The column pass of one level on columns [c0, c1) of the region at p
 * (c0 a multiple of DWT_STRIP): the strips the level functions above
 * lift, for dwt_threads.c to hand out between workers. */
void dwt53_cols_forward(int32_t *p, size_t stride, uint32_t c0, uint32_t c1, uint32_t h,
                        int32_t *scratch)
{
    for (uint32_t c = c0; h >= 2 && c < c1; c += DWT_STRIP) {
        const uint32_t cw = c1 - c < DWT_STRIP ? c1 - c : DWT_STRIP;
        dwt_strip_load(scratch, p + c, stride, h, cw, sizeof *p, 0);
        dwt53_strip_forward(scratch, h);
        dwt_strip_store(p + c, scratch, stride, h, cw, sizeof *p, 1);
    }
}

void dwt53_cols_inverse(int32_t *p, size_t stride, uint32_t c0, uint32_t c1, uint32_t h,
                        int32_t *scratch)
{
    for (uint32_t c = c0; h >= 2 && c < c1; c += DWT_STRIP) {
        const uint32_t cw = c1 - c < DWT_STRIP ? c1 - c : DWT_STRIP;
        dwt_strip_load(scratch, p + c, stride, h, cw, sizeof *p, 1);
        dwt53_strip_inverse(scratch, h);
        dwt_strip_store(p + c, scratch, stride, h, cw, sizeof *p, 0);
    }
}

/* ---- 2-D, multi-level ------------------------------------------------------ */

void dwt53_forward(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch)
{
    for (int l = 0; l < levels; l++)
        dwt53_level_forward(plane, w, dwt_level_size(w, l), dwt_level_size(h, l), scratch);
}

void dwt53_inverse(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch)
{
    for (int l = levels - 1; l >= 0; l--)
        dwt53_level_inverse(plane, w, dwt_level_size(w, l), dwt_level_size(h, l), scratch);
}
