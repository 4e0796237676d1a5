/*
 * ratectl.h -- rate control: the base quantizer step that lands a file at
 * or just under a target of bits per pixel. It knows nothing of the
 * encoder: it calls back to code the image at a candidate step, so every
 * probe measures the size that would be written.
 */
#ifndef WC_RATECTL_H
#define WC_RATECTL_H

#include "entropy_stage.h"
#include "layout.h"

/* One probe: codes the image with base step `step` into *out and sets
 * *file_bytes to the size of the file those payloads make. */
typedef wc_status (*ratectl_code_fn)(void *arg, float step, es_output *out, size_t *file_bytes);

/* Makes a probe's payloads outlive the next probe. A device backend's
 * probe leaves its payloads in a staging buffer that the next probe
 * overwrites (es_output.data_borrowed): the search copies out only the
 * probe it keeps while another runs, not every probe (most are thrown
 * away, and the last kept one is written from the buffer). NULL where
 * every probe's payloads are its own. */
typedef wc_status (*ratectl_keep_fn)(void *arg, es_output *out);

/* Completes the kept probe once the search is over: a probe may measure
 * the file's size without coding its payloads (a device backend's
 * size-only probe: out->data[] NULL), and only the one kept needs them.
 * `was_last` says whether it was the last probe made (its state may
 * still be on the device). out holds the probe's output; the callback
 * replaces it with the full one at `step`, or leaves it where it is
 * complete. NULL where every probe codes its payloads. */
typedef wc_status (*ratectl_finish_fn)(void *arg, float step, int was_last, es_output *out);

/* Finds the smallest base step whose file fits bpp bits per pixel over
 * `pixels` pixels (stopping within 0.5% under the target when it is
 * reachable). On WC_OK *out holds the payloads coded at that step (the
 * caller frees them) and *step the step, which the caller's header must
 * carry; they may be borrowed (keep above), and are complete (finish
 * above, called once on the kept probe). WC_ERR_ARG when even the coarsest step makes a larger file; a
 * probe's failure is returned as it is. */
wc_status ratectl_search(float bpp, uint64_t pixels, ratectl_code_fn code, ratectl_keep_fn keep,
                         ratectl_finish_fn finish, void *arg, es_output *out, float *step,
                         wc_err *err);

/*
 * The rule for plain Huffman files of the separable DWT (ratectl_rule_
 * applies) that the encoder by rows follows, since it never holds the
 * image (the whole-image encoder searches with ratectl_search, to 0.5%;
 * the file by rows is the whole encoder's at the rule's step; the rule
 * on the whole image was ~200x a fixed-step encode on the CUDA backend,
 * its counts on the host): the base step is 2^(m/16) for an integer m, the
 * smallest m tried whose bound on the file's size (rc_bound_bytes: the
 * exact symbol counts at that step, the tables built from them, each
 * block's padding and index entry at their most) is within the target.
 *  1. Histograms of each band's coefficients (rc_hist, 1/8 octave bins)
 *     give a model of the size at each step; m0 is the smallest m whose
 *     modelled size fits. It only places the first window.
 *  2. A window is the RC_WINDOW steps from m0 - 5 - RC_WINDOW/2 (the
 *     model overstates sizes by about 5 grid steps); their exact
 *     counts (rc_count_block, every code block quantized at each step)
 *     give each step's bound.
 *  3. No step of the window fits: a window up (coarser), each move up
 *     twice the last, until one fits or the grid ends; the window's lowest
 *     fits: the next window down, unless the search came from below, at
 *     most RC_MAX_WINDOWS windows in all; else the smallest fitting m
 *     found (WC_ERR_ARG when none: the coarsest step is over the target).
 * Counts do not depend on the order blocks are counted in, so the rows'
 * pass over a band and the whole plane's agree.
 */
#define RC_GRID 16 /* steps per octave */
#define RC_WINDOW 6
#define RC_MAX_WINDOWS 6
#define RC_BINS 512 /* 1/8 octave bins of |coefficient| / relative step */
#define RC_M_MIN (-6 * RC_GRID)
#define RC_M_MAX (16 * RC_GRID)

typedef struct rc_rule {
    wcx_header h; /* the file's header (steps set per candidate) */
    const wc_layout *lay;
    float threshold[4];
    float bpp;
    double target;              /* bytes */
    size_t fixed;               /* the file's bytes outside tables, payload and index entries */
    float rel[4][WC_MAX_BANDS]; /* a band's step at base step 1; 0: fixed step 1 */
    uint64_t *hist;             /* [c][band][RC_BINS] */
    int m0, m_lo, windows, ups, dir, have_best, best_m;
    float step[RC_WINDOW][4][WC_MAX_BANDS]; /* the window's band steps */
    bc_freq *freq;                          /* [RC_WINDOW][c * WC_NCLASS + class] */
    bc_freq *best_freq;                     /* [c * WC_NCLASS + class] */
    double bound[RC_WINDOW];
} rc_rule;

/* Plain Huffman over the separable DWT in every component. */
int ratectl_rule_applies(const wcx_header *h);
/* The bytes rc_rule keeps beside the caller's. */
uint64_t rc_rule_bytes(const wcx_header *h);
wc_status rc_init(rc_rule *r, const wcx_header *h, const wc_layout *lay, const float threshold[4],
                  float bpp, size_t meta_bytes, wc_err *err);
void rc_free(rc_rule *r);
/* Step 1: n unquantized coefficients (float, or int when f is NULL) of
 * band b of component c. Different components may be added at once. */
void rc_hist(rc_rule *r, uint32_t c, uint32_t b, const float *f, const int32_t *iv, size_t n);
/* After every rc_hist: the first window. */
void rc_first_window(rc_rule *r);
/* Step 2: a code block of band b (w x h values `stride` apart, float or
 * int), quantized at each step of the window and counted: the counts of
 * bc_count over the block quantized with quant_value, made cheaper (a
 * block or row whose largest value quantizes to 0 is zeros at that step;
 * magnitudes go straight into the block coder's plane, bc_count_mags; q,
 * w*h, only where that cannot: the LL band's prediction, an int band
 * kept as it is, magnitudes at the coder's cap). Different components
 * may be counted at once. */
void rc_count_block(rc_rule *r, uint32_t c, uint32_t b, const float *f, const int32_t *iv,
                    size_t stride, uint32_t w, uint32_t h, int32_t *q, uint32_t *scratch);
/* Step 3, after every block of the window was counted: *again set when
 * another window must be counted (the counts are cleared for it). Else
 * *step is the rule's step (WC_ERR_ARG when no step fits). */
wc_status rc_window_done(rc_rule *r, int threads, int *again, float *step, wc_err *err);
/* The step of grid index m (the float both encoders put in the header). */
float rc_grid_step(int m);

#endif /* WC_RATECTL_H */
