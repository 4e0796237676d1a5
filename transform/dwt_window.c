/* dwt_window.c -- the inverse DWT of a window (dwt_window.h says why it is
 * exact). */
#include <string.h>

#include "dwt_threads.h"
#include "dwt_window.h"

uint32_t dwt_window_size(uint32_t n, int l)
{
    for (int i = 0; i < l; i++) n = (n + 1) / 2;
    return n;
}

/* Of an interleaved range [a, b) that starts on an even sample: its low
 * coefficients are [a/2, (b+1)/2), its high ones [a/2, b/2). */
static uint32_t low_end(uint32_t b) { return (b + 1) / 2; }
static uint32_t high_end(uint32_t b) { return b / 2; }

void dwt_window_plan(uint32_t w, uint32_t h, int levels, int stop, dwt_rect want, dwt_window *win)
{
    memset(win, 0, sizeof *win);
    win->w = w;
    win->h = h;
    win->levels = levels;
    win->stop = stop;
    win->want = want;
    dwt_rect t = want; /* the range of level l-1's LL samples wanted */
    for (int l = stop + 1; l <= levels; l++) {
        const uint32_t nw = dwt_window_size(w, l - 1), nh = dwt_window_size(h, l - 1);
        dwt_rect e;
        e.x0 = t.x0 > DWT_WINDOW_MARGIN ? (t.x0 - DWT_WINDOW_MARGIN) & ~1u : 0;
        e.y0 = t.y0 > DWT_WINDOW_MARGIN ? (t.y0 - DWT_WINDOW_MARGIN) & ~1u : 0;
        e.x1 = nw - t.x1 > DWT_WINDOW_MARGIN ? t.x1 + DWT_WINDOW_MARGIN : nw;
        e.y1 = nh - t.y1 > DWT_WINDOW_MARGIN ? t.y1 + DWT_WINDOW_MARGIN : nh;
        win->ext[l] = e;
        t = (dwt_rect){e.x0 / 2, e.y0 / 2, low_end(e.x1), low_end(e.y1)};
    }
}

dwt_rect dwt_window_band_rect(const dwt_window *win, const dwt_band *b)
{
    dwt_rect none = {0, 0, 0, 0};
    if (b->orient == DWT_LL) {
        if (win->levels == win->stop) return win->want;
        const dwt_rect e = win->ext[win->levels];
        return (dwt_rect){e.x0 / 2, e.y0 / 2, low_end(e.x1), low_end(e.y1)};
    }
    if (b->level <= win->stop || b->level > win->levels) return none;
    const dwt_rect e = win->ext[b->level];
    const int hx = b->orient == DWT_HL || b->orient == DWT_HH;
    const int hy = b->orient == DWT_LH || b->orient == DWT_HH;
    dwt_rect r = {b->x0 + e.x0 / 2, b->y0 + e.y0 / 2, b->x0 + (hx ? high_end(e.x1) : low_end(e.x1)),
                  b->y0 + (hy ? high_end(e.y1) : low_end(e.y1))};
    return r;
}

/* The largest area of the window's levels (and of the output). */
static size_t window_area(const dwt_window *win)
{
    size_t area = (size_t)(win->want.x1 - win->want.x0) * (win->want.y1 - win->want.y0);
    for (int l = win->stop + 1; l <= win->levels; l++) {
        const dwt_rect e = win->ext[l];
        const size_t a = (size_t)(e.x1 - e.x0) * (e.y1 - e.y0);
        if (a > area) area = a;
    }
    return area;
}

size_t dwt_window_scratch_elems(const dwt_window *win) { return 2 * window_area(win); }

/* One body for both wavelets: T the sample type, INV_MT the threaded 2-D
 * inverse (dwt_threads.h). Level l fills buf with its ext[l] range in the
 * plane's per-level layout (the low coefficients of each row first, then
 * the high ones; the low rows first, then the high rows), taking the LL
 * part from cur (the previous level's result) below the coarsest level:
 * a one-level plane of its own, which INV_MT inverts as the whole plane's
 * inverse does (every row, then every column); then keeps the part the
 * next level (or the output) wants. */
#define DWT_WINDOW_INVERSE(NAME, T, INV_MT, SRC, AT)                                               \
    int NAME(SRC, const dwt_window *win, T *out, T *scratch, int threads)                          \
    {                                                                                              \
        const dwt_rect want = win->want;                                                           \
        const uint32_t ow = want.x1 - want.x0, oh = want.y1 - want.y0;                             \
        if (win->levels == win->stop) {                                                            \
            for (uint32_t y = 0; y < oh; y++)                                                      \
                memcpy(out + (size_t)y * ow, AT(want.y0 + y, want.x0), ow * sizeof(T));            \
            return 0;                                                                              \
        }                                                                                          \
        T *buf = scratch, *cur = scratch + window_area(win);                                       \
        for (int l = win->levels; l > win->stop; l--) {                                            \
            const dwt_rect e = win->ext[l];                                                        \
            const uint32_t mw = e.x1 - e.x0, mh = e.y1 - e.y0;                                     \
            const uint32_t nlw = low_end(mw), nlh = low_end(mh);                                   \
            const uint32_t lw = dwt_window_size(win->w, l), lh = dwt_window_size(win->h, l);       \
            const uint32_t cx = e.x0 / 2, cy = e.y0 / 2;                                           \
            for (uint32_t j = 0; j < mh; j++) {                                                    \
                const int hy = j >= nlh;                                                           \
                const uint32_t py = hy ? lh + cy + (j - nlh) : cy + j;                             \
                T *row = buf + (size_t)j * mw;                                                     \
                if (!hy && l < win->levels)                                                        \
                    memcpy(row, cur + (size_t)j * nlw, nlw * sizeof(T));                           \
                else                                                                               \
                    memcpy(row, AT(py, cx), nlw * sizeof(T));                                      \
                memcpy(row + nlw, AT(py, lw + cx), (mw - nlw) * sizeof(T));                        \
            }                                                                                      \
            if (INV_MT(buf, mw, mh, 1, threads)) return -1;                                        \
            dwt_rect t = want;                                                                     \
            T *dst = out;                                                                          \
            if (l - 1 > win->stop) {                                                               \
                const dwt_rect n = win->ext[l - 1];                                                \
                t = (dwt_rect){n.x0 / 2, n.y0 / 2, low_end(n.x1), low_end(n.y1)};                  \
                dst = cur;                                                                         \
            }                                                                                      \
            const uint32_t tw = t.x1 - t.x0;                                                       \
            for (uint32_t y = t.y0; y < t.y1; y++)                                                 \
                memcpy(dst + (size_t)(y - t.y0) * tw, buf + (size_t)(y - e.y0) * mw + t.x0 - e.x0, \
                       tw * sizeof(T));                                                            \
        }                                                                                          \
        return 0;                                                                                  \
    }

#define PLANE_AT(py, px) (plane + (size_t)(py)*win->w + (px))
#define SRC_AT(py, px) (src->at(src->user, (py), (px)))
DWT_WINDOW_INVERSE(dwt53_inverse_window, int32_t, dwt53_inverse_mt, const int32_t *plane, PLANE_AT)
DWT_WINDOW_INVERSE(dwt97_inverse_window, float, dwt97_inverse_mt, const float *plane, PLANE_AT)
DWT_WINDOW_INVERSE(dwt53_inverse_window_src, int32_t, dwt53_inverse_mt, const dwt_window_src *src,
                   (const int32_t *)SRC_AT)
DWT_WINDOW_INVERSE(dwt97_inverse_window_src, float, dwt97_inverse_mt, const dwt_window_src *src,
                   (const float *)SRC_AT)
