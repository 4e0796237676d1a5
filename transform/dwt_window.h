/*
 * dwt_window.h -- the inverse DWT (5/3 and 9/7) of a window only: the
 * samples of a rectangle of the image, or of the LL band of a coarser level
 * (a reduced image), from the coefficients that rectangle depends on,
 * bit for bit what the whole-plane inverse (dwt.h) gives there.
 *
 * Why it is exact: each level's inverse is a row pass, then a column pass,
 * of the 1-D lifting (dwt53_inverse_1d, dwt97_inverse_1d: the same
 * operations the 2-D transform applies). A sample after a lifting step is
 * a function of its two neighbours' values before it, so a segment of the
 * signal inverted on its own is right except within a few samples of a cut
 * end, where the mirror extension stands in for the missing neighbours:
 * one sample more per step (2 steps for 5/3, 4 and a scaling for 9/7).
 * A segment that reaches a true end mirrors exactly as the whole signal
 * does. Each level therefore takes its target range widened by
 * DWT_WINDOW_MARGIN samples on each cut side, starting on an even sample
 * (so low and high coefficients keep their parity), and the next coarser
 * level's target is the low coefficients that widened range holds.
 */
#ifndef WC_DWT_WINDOW_H
#define WC_DWT_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "dwt.h"
#include "wcodec_types.h"

/* Samples a cut end is widened by: more than the 4 a 9/7 inverse spoils. */
#define DWT_WINDOW_MARGIN 6u

/* A half-open rectangle [x0, x1) x [y0, y1). */
typedef struct dwt_rect {
    uint32_t x0, y0, x1, y1;
} dwt_rect;

/* What a window needs, level by level. The plane is w x h with `levels`
 * levels; the output is the rectangle `want` of the LL band of level
 * `stop` (0: the image itself; stop <= levels). For each level l in
 * stop+1..levels, ext[l] is the range of level l-1's LL samples (the
 * interleaved signal level l's inverse rebuilds) that is computed. */
typedef struct dwt_window {
    uint32_t w, h;
    int levels, stop;
    dwt_rect want;
    dwt_rect ext[WC_MAX_LEVELS + 1];
} dwt_window;

/* Plans the window; want must lie in the level-stop LL band (of size
 * dwt_window_size(w, stop) x dwt_window_size(h, stop)) and not be empty. */
void dwt_window_plan(uint32_t w, uint32_t h, int levels, int stop, dwt_rect want, dwt_window *win);

/* The side of a level-l LL band of a side-n plane: n / 2^l rounded up. */
uint32_t dwt_window_size(uint32_t n, int l);

/* The rectangle of band `b` (one of dwt_bands' for the window's plane) whose
 * coefficients the window reads, in plane coordinates; empty (x0 == x1 or
 * y0 == y1) when it reads none of that band. */
dwt_rect dwt_window_band_rect(const dwt_window *win, const dwt_band *b);

/* Scratch elements (int32 or float) the inverse below needs. */
size_t dwt_window_scratch_elems(const dwt_window *win);

/* The window's samples into out (want's width x height, row-major) from
 * plane (w x h, Mallat layout), which must hold the dequantized
 * coefficients of every dwt_window_band_rect; nothing else of it is read
 * and nothing of it is written. Each level runs on `threads` workers
 * (dwt_threads.h; 0: all cores). 0 on success, -1 when the workers'
 * scratch cannot be had. */
int dwt53_inverse_window(const int32_t *plane, const dwt_window *win, int32_t *out,
                         int32_t *scratch, int threads);
int dwt97_inverse_window(const float *plane, const dwt_window *win, float *out, float *scratch,
                         int threads);

/* The same from coefficients held elsewhere than in one plane (a streaming
 * decoder keeps a few rows of each band): at(user, py, px) returns where
 * plane coefficient (py, px) is, the rest of its band's row following it;
 * it is asked only for the coefficients the plane version reads. */
typedef struct dwt_window_src {
    const void *(*at)(const void *user, uint32_t py, uint32_t px);
    const void *user;
} dwt_window_src;
int dwt53_inverse_window_src(const dwt_window_src *src, const dwt_window *win, int32_t *out,
                             int32_t *scratch, int threads);
int dwt97_inverse_window_src(const dwt_window_src *src, const dwt_window *win, float *out,
                             float *scratch, int threads);

#endif
