/* stream_dct.c -- the DCT / LOT fed by rows (see stream_dct.h). */
#include <string.h>

#include "dct8.h"
#include "lot8.h"
#include "stream_dct.h"
#include "wc_common.h"
#include "wcodec_types.h"

/* Rows of the padded plane kept: a padded row past the image's bottom
 * copies an image row up to 7 rows above it, and the LOT's shifted block
 * reads the 8 rows before the one that completes it; 16 covers both
 * without a slot being reused while still needed. */
enum { SDCT_RING = 16 };

struct sdct {
    int transform;
    uint32_t w, h, pw, ph;
    uint32_t next; /* image rows given */
    sdct_emit_fn emit;
    void *arg;
    float *ring;  /* SDCT_RING padded rows of pw (LOT: after the row transform) */
    float *strip; /* 8 rows of pw: the strip being transformed */
    float *prevq; /* LOT: q of the previous shifted block, 4 rows of pw */
    float *pq;    /* LOT: stage 1 of the current shifted block, 8 rows of pw;
                   * the row transform's line buffer (pw + 8) */
    float *band;  /* one row in band order */
};

size_t sdct_bytes(uint32_t w)
{
    const size_t pw = blk8_ceil8(w);
    return sizeof(sdct) + (SDCT_RING + 8 + 4 + 8 + 1) * pw * sizeof(float) + 8 * sizeof(float);
}

sdct *sdct_create(int transform, uint32_t w, uint32_t h, sdct_emit_fn emit, void *arg)
{
    if ((transform != WC_TRANSFORM_DCT && transform != WC_TRANSFORM_LOT) || w == 0 || h == 0 ||
        w > UINT32_MAX - 7 || h > UINT32_MAX - 7 || !emit)
        return NULL;
    sdct *t = wc_calloc(1, sizeof *t);
    if (!t) return NULL;
    t->transform = transform;
    t->w = w;
    t->h = h;
    t->pw = blk8_ceil8(w);
    t->ph = blk8_ceil8(h);
    t->emit = emit;
    t->arg = arg;
    const size_t pw = t->pw;
    t->ring = wc_malloc_array((size_t)SDCT_RING * pw, sizeof(float));
    t->strip = wc_malloc_array(8 * pw, sizeof(float));
    t->prevq = wc_malloc_array(4 * pw, sizeof(float));
    t->pq = wc_malloc_array(8 * pw + 8, sizeof(float));
    t->band = wc_malloc_array(pw, sizeof(float));
    if (!t->ring || !t->strip || !t->prevq || !t->pq || !t->band) {
        sdct_free(t);
        return NULL;
    }
    return t;
}

void sdct_free(sdct *t)
{
    if (!t) return;
    wc_free(t->ring);
    wc_free(t->strip);
    wc_free(t->prevq);
    wc_free(t->pq);
    wc_free(t->band);
    wc_free(t);
}

static float *ring_row(const sdct *t, uint32_t y)
{
    return t->ring + (size_t)(y % SDCT_RING) * t->pw;
}

/* Strip `by` (8 rows of coefficients, each block in place) out in band
 * order: row v gives band-plane row v * ph/8 + by (layout_strip_to_bands). */
static void emit_strip(sdct *t, uint32_t by)
{
    const uint32_t bw = t->pw / 8, bh = t->ph / 8;
    for (uint32_t v = 0; v < 8; v++) {
        const float *s = t->strip + (size_t)v * t->pw;
        for (uint32_t u = 0; u < 8; u++) {
            float *d = t->band + (size_t)u * bw;
            for (uint32_t bx = 0; bx < bw; bx++) d[bx] = s[(size_t)bx * 8 + u];
        }
        t->emit(t->arg, v * bh + by, 0, t->pw, t->band);
    }
}

/* lot8.c's lot8_fwd_line: the 1-D LOT of one padded row, in place. */
static void lot_row(float *x, uint32_t n, float *pq)
{
    const uint32_t m = n / 8;
    float seg[8];
    for (int i = 0; i < 4; i++) seg[i] = x[3 - i], seg[4 + i] = x[i];
    lot8_stage1_fwd(seg, pq);
    for (uint32_t i = 1; i < m; i++) lot8_stage1_fwd(x + 8 * i - 4, pq + 8 * i);
    for (int i = 0; i < 4; i++) seg[i] = x[n - 4 + i], seg[4 + i] = x[n - 1 - i];
    lot8_stage1_fwd(seg, pq + 8 * m);
    for (uint32_t b = 0; b < m; b++) lot8_stage2_fwd(pq + 8 * b + 4, pq + 8 * b + 8, x + 8 * b);
}

/* Stage 1 down every column of the 8 rows r into t->pq (8 rows of pw). */
static void lot_cols_stage1(sdct *t, const float *r[8])
{
    const size_t pw = t->pw;
    float *o = t->pq;
    float *const out[8] = {o,          o + pw,     o + 2 * pw, o + 3 * pw,
                           o + 4 * pw, o + 5 * pw, o + 6 * pw, o + 7 * pw};
    lot8_lanes_stage1_fwd(r, out, (uint32_t)pw);
}

/* LOT block row `by` from prevq (q of shifted block by-1) and the p half
 * of t->pq (shifted block by), into t->strip; then prevq := q of t->pq. */
static void lot_block_row(sdct *t, uint32_t by)
{
    const size_t pw = t->pw;
    const float *q = t->prevq, *p = t->pq;
    float *o = t->strip;
    const float *const qr[4] = {q, q + pw, q + 2 * pw, q + 3 * pw};
    const float *const pr[4] = {p, p + pw, p + 2 * pw, p + 3 * pw};
    float *const out[8] = {o,          o + pw,     o + 2 * pw, o + 3 * pw,
                           o + 4 * pw, o + 5 * pw, o + 6 * pw, o + 7 * pw};
    lot8_lanes_stage2_fwd(qr, pr, out, (uint32_t)pw);
    memcpy(t->prevq, t->pq + 4 * pw, 4 * pw * sizeof(float));
    emit_strip(t, by);
}

/* Padded row y is in the ring: whatever it completes is transformed and
 * sent. */
static void padded_row_done(sdct *t, uint32_t y)
{
    if (t->transform == WC_TRANSFORM_DCT) {
        if (y % 8 != 7) return;
        for (uint32_t k = 0; k < 8; k++)
            memcpy(t->strip + (size_t)k * t->pw, ring_row(t, y - 7 + k), t->pw * sizeof(float));
        dct8_forward(t->strip, t->pw, 8);
        emit_strip(t, y / 8);
        return;
    }
    /* LOT (lot8.c's lot8_fwd_cols): shifted block s covers rows
     * [8s+4, 8s+12), mirrored past the plane's edges. */
    const float *r[8];
    if (y == 3) { /* shifted block -1: rows 3 2 1 0 0 1 2 3 */
        for (int k = 0; k < 4; k++) r[k] = ring_row(t, 3 - k), r[4 + k] = ring_row(t, k);
        lot_cols_stage1(t, r);
        memcpy(t->prevq, t->pq + 4 * t->pw, 4 * t->pw * sizeof(float));
    }
    if (y + 1 == t->ph) { /* the last shifted block, mirrored */
        for (int k = 0; k < 4; k++) r[k] = r[7 - k] = ring_row(t, y - 3 + k);
        lot_cols_stage1(t, r);
        lot_block_row(t, y / 8);
    } else if (y >= 11 && y % 8 == 3) { /* shifted block (y - 11) / 8 */
        for (int k = 0; k < 8; k++) r[k] = ring_row(t, y - 7 + k);
        lot_cols_stage1(t, r);
        lot_block_row(t, (y - 11) / 8);
    }
}

/* Padded row y, already holding its pw samples, through the row stage. */
static void add_padded_row(sdct *t, uint32_t y)
{
    if (t->transform == WC_TRANSFORM_LOT) lot_row(ring_row(t, y), t->pw, t->pq);
    padded_row_done(t, y);
}

int sdct_push(sdct *t, const float *row)
{
    if (t->next >= t->h) return -1;
    const uint32_t y = t->next++;
    float *d = ring_row(t, y);
    memcpy(d, row, (size_t)t->w * sizeof(float));
    blk8_pad_tail(d, t->w, t->pw);
    add_padded_row(t, y);
    if (t->next < t->h) return 0;
    /* The rows below the image: blk8_pad's mirror of rows at most 7 above
     * (all of them for an image under 8 rows), already through the row
     * stage, so copied as they are. */
    for (uint32_t p = t->h; p < t->ph; p++) {
        memcpy(ring_row(t, p), ring_row(t, blk8_mirror(p, t->h)), t->pw * sizeof(float));
        padded_row_done(t, p);
    }
    return 0;
}
