/*
 * dwt97.c -- CDF 9/7 irreversible wavelet in float32 lifting with the
 * JPEG 2000 constants. dwt.h states the exact operations; the CUDA kernels
 * repeat them in the same order, so every step here is one rounding of one
 * written expression (the build forbids FMA contraction).
 *
 * Same structure as dwt53.c: rows are lifted through a split copy in
 * scratch, columns through a staging strip of DWT_STRIP columns lifted row
 * by row. Per column the float operations are exactly those of
 * dwt97_forward_1d, in the same order.
 */
#include "dwt.h"
#include "dwt_internal.h"

/* The four lifting constants in the order they are applied. */
static const float dwt97_lift[4] = {DWT97_ALPHA, DWT97_BETA, DWT97_GAMMA, DWT97_DELTA};

/* ---- spans: the lifting arithmetic, written once for rows and columns ---- */

/* Loops run in blocks of this fixed length: gcc vectorises a loop at -O2
 * only when its trip count is a known multiple of the vector length. The
 * arithmetic per element is the same either way (no reassociation). */
enum { DWT97_BLOCK = 16 };

/* y[i] = y[i] + (c * (a[i] + b[i])) for i < n. a and b may overlap each
 * other (both are only read), never y. */
static void dwt97_span_add(float *restrict y, const float *restrict a, const float *restrict b,
                           uint32_t n, float c)
{
    uint32_t i = 0;
    for (; i + DWT97_BLOCK <= n; i += DWT97_BLOCK)
        for (uint32_t j = i; j < i + DWT97_BLOCK; j++) y[j] = y[j] + (c * (a[j] + b[j]));
    for (; i < n; i++) y[i] = y[i] + (c * (a[i] + b[i]));
}

/* y[i] = y[i] - (c * (a[i] + b[i])): undoes dwt97_span_add, up to float
 * rounding, when a and b hold the same values again. */
static void dwt97_span_sub(float *restrict y, const float *restrict a, const float *restrict b,
                           uint32_t n, float c)
{
    uint32_t i = 0;
    for (; i + DWT97_BLOCK <= n; i += DWT97_BLOCK)
        for (uint32_t j = i; j < i + DWT97_BLOCK; j++) y[j] = y[j] - (c * (a[j] + b[j]));
    for (; i < n; i++) y[i] = y[i] - (c * (a[i] + b[i]));
}

/* y[i] = x[i] * c, y and x apart. */
static void dwt97_span_scale(float *restrict y, const float *restrict x, uint32_t n, float c)
{
    uint32_t i = 0;
    for (; i + DWT97_BLOCK <= n; i += DWT97_BLOCK)
        for (uint32_t j = i; j < i + DWT97_BLOCK; j++) y[j] = x[j] * c;
    for (; i < n; i++) y[i] = x[i] * c;
}

/* One staging row: x[i] = x[i] * c. */
static void dwt97_row_scale(float *x, float c)
{
    for (uint32_t j = 0; j < DWT_STRIP; j++) x[j] = x[j] * c;
}

/* ---- 1-D, on a signal split into lo[nl] and hi[nh] (nl = nh or nh + 1) ----- */

/* Odd samples: hi[i] = hi[i] +/- (c * (lo[i] + lo[i+1])), lo[nl] = lo[nl-1]
 * (n even). */
static void dwt97_split_predict(float *hi, const float *lo, uint32_t nl, uint32_t nh, float c,
                                int inverse)
{
    const uint32_t ni = (nl + nh - 1) / 2; /* odd samples whose right neighbour is inside */
    if (!inverse) {
        dwt97_span_add(hi, lo, lo + 1, ni, c);
        if (ni < nh) dwt97_span_add(hi + ni, lo + ni, lo + ni, 1, c);
    } else {
        dwt97_span_sub(hi, lo, lo + 1, ni, c);
        if (ni < nh) dwt97_span_sub(hi + ni, lo + ni, lo + ni, 1, c);
    }
}

/* Even samples: lo[i] = lo[i] +/- (c * (hi[i-1] + hi[i])), hi[-1] = hi[0]
 * and hi[nh] = hi[nh-1] (n odd). */
static void dwt97_split_update(float *lo, const float *hi, uint32_t nl, uint32_t nh, float c,
                               int inverse)
{
    if (!inverse) {
        dwt97_span_add(lo, hi, hi, 1, c);
        dwt97_span_add(lo + 1, hi, hi + 1, nh - 1, c);
        if (nh < nl) dwt97_span_add(lo + nh, hi + nh - 1, hi + nh - 1, 1, c);
    } else {
        dwt97_span_sub(lo, hi, hi, 1, c);
        dwt97_span_sub(lo + 1, hi, hi + 1, nh - 1, c);
        if (nh < nl) dwt97_span_sub(lo + nh, hi + nh - 1, hi + nh - 1, 1, c);
    }
}

void dwt97_forward_1d(float *x, uint32_t n, float *scratch)
{
    if (n < 2) return; /* a single sample is its own low band, unscaled */
    const uint32_t nl = (n + 1) / 2, nh = n / 2;
    float *lo = scratch, *hi = scratch + nl;
    for (uint32_t i = 0; i < nh; i++) {
        lo[i] = x[2 * i];
        hi[i] = x[2 * i + 1];
    }
    if (nh < nl) lo[nh] = x[n - 1];

    for (int s = 0; s < 4; s += 2) {
        dwt97_split_predict(hi, lo, nl, nh, dwt97_lift[s], 0);
        dwt97_split_update(lo, hi, nl, nh, dwt97_lift[s + 1], 0);
    }
    dwt97_span_scale(x, lo, nl, DWT97_INV_K);
    dwt97_span_scale(x + nl, hi, nh, DWT97_K);
}

void dwt97_inverse_1d(float *x, uint32_t n, float *scratch)
{
    if (n < 2) return;
    const uint32_t nl = (n + 1) / 2, nh = n / 2;
    float *lo = scratch, *hi = scratch + nl;
    dwt97_span_scale(lo, x, nl, DWT97_K);
    dwt97_span_scale(hi, x + nl, nh, DWT97_INV_K);

    for (int s = 2; s >= 0; s -= 2) {
        dwt97_split_update(lo, hi, nl, nh, dwt97_lift[s + 1], 1);
        dwt97_split_predict(hi, lo, nl, nh, dwt97_lift[s], 1);
    }
    for (uint32_t i = 0; i < nh; i++) {
        x[2 * i] = lo[i];
        x[2 * i + 1] = hi[i];
    }
    if (nh < nl) x[n - 1] = lo[nh];
}

/* ---- staging rows of DWT_STRIP samples (the vertical pass) ----------------- */

/* Staging row r of an n-row strip, mirrored at the ends. */
static float *dwt97_srow(float *t, int64_t r, uint32_t n)
{
    return t + (size_t)dwt_mirror(r, n) * DWT_STRIP;
}

/* Forward lifting of n >= 2 interleaved staging rows, in place: step s
 * updates the odd rows when s is even (alpha, gamma), else the even rows. */
static void dwt97_strip_forward(float *t, uint32_t n)
{
    for (int s = 0; s < 4; s++)
        for (uint32_t r = (s & 1) ? 0 : 1; r < n; r += 2)
            dwt97_span_add(dwt97_srow(t, r, n), dwt97_srow(t, (int64_t)r - 1, n),
                           dwt97_srow(t, r + 1, n), DWT_STRIP, dwt97_lift[s]);
    for (uint32_t r = 0; r < n; r++)
        dwt97_row_scale(t + (size_t)r * DWT_STRIP, (r & 1) ? DWT97_K : DWT97_INV_K);
}

static void dwt97_strip_inverse(float *t, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++)
        dwt97_row_scale(t + (size_t)r * DWT_STRIP, (r & 1) ? DWT97_INV_K : DWT97_K);
    for (int s = 3; s >= 0; s--)
        for (uint32_t r = (s & 1) ? 0 : 1; r < n; r += 2)
            dwt97_span_sub(dwt97_srow(t, r, n), dwt97_srow(t, (int64_t)r - 1, n),
                           dwt97_srow(t, r + 1, n), DWT_STRIP, dwt97_lift[s]);
}

/* ---- one level of the 2-D transform on the w x h region at p --------------- */

static void dwt97_level_forward(float *p, size_t stride, uint32_t w, uint32_t h, float *scratch)
{
    dwt97_cols_forward(p, stride, 0, w, h, scratch); /* dwt_internal.h */
    for (uint32_t y = 0; y < h; y++) dwt97_forward_1d(p + (size_t)y * stride, w, scratch);
}

static void dwt97_level_inverse(float *p, size_t stride, uint32_t w, uint32_t h, float *scratch)
{
    for (uint32_t y = 0; y < h; y++) dwt97_inverse_1d(p + (size_t)y * stride, w, scratch);
    dwt97_cols_inverse(p, stride, 0, w, h, scratch);
}

/* The column pass of one level on columns [c0, c1) of the region at p
 * (c0 a multiple of DWT_STRIP): the strips the level functions above
 * lift, for dwt_threads.c to hand out between workers. */
void dwt97_cols_forward(float *p, size_t stride, uint32_t c0, uint32_t c1, uint32_t h,
                        float *scratch)
{
    for (uint32_t c = c0; h >= 2 && c < c1; c += DWT_STRIP) {
        const uint32_t cw = c1 - c < DWT_STRIP ? c1 - c : DWT_STRIP;
        dwt_strip_load(scratch, p + c, stride, h, cw, sizeof *p, 0);
        dwt97_strip_forward(scratch, h);
        dwt_strip_store(p + c, scratch, stride, h, cw, sizeof *p, 1);
    }
}

void dwt97_cols_inverse(float *p, size_t stride, uint32_t c0, uint32_t c1, uint32_t h,
                        float *scratch)
{
    for (uint32_t c = c0; h >= 2 && c < c1; c += DWT_STRIP) {
        const uint32_t cw = c1 - c < DWT_STRIP ? c1 - c : DWT_STRIP;
        dwt_strip_load(scratch, p + c, stride, h, cw, sizeof *p, 1);
        dwt97_strip_inverse(scratch, h);
        dwt_strip_store(p + c, scratch, stride, h, cw, sizeof *p, 0);
    }
}

/* ---- 2-D, multi-level ------------------------------------------------------ */

void dwt97_forward(float *plane, uint32_t w, uint32_t h, int levels, float *scratch)
{
    for (int l = 0; l < levels; l++)
        dwt97_level_forward(plane, w, dwt_level_size(w, l), dwt_level_size(h, l), scratch);
}

void dwt97_inverse(float *plane, uint32_t w, uint32_t h, int levels, float *scratch)
{
    for (int l = levels - 1; l >= 0; l--)
        dwt97_level_inverse(plane, w, dwt_level_size(w, l), dwt_level_size(h, l), scratch);
}
