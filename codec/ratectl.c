/*
 * ratectl.c -- rate control: the base step that lands a file at or just
 * under a target of bits per pixel. File size falls as the step grows, so
 * a bisection on log2(step) converges; every probe codes the image for
 * real, so the size it measures is the size written.
 */
#include <math.h>
#include <string.h>

#include "ratectl.h"

#define RC_MAX_PROBES 40
#define RC_TOLERANCE 0.005

wc_status ratectl_search(float bpp, uint64_t pixels, ratectl_code_fn code, void *arg,
                         es_output *out, float *step, wc_err *err)
{
    const double target = (double)bpp * (double)pixels / 8.0;
    double lo = -6.0, hi = 16.0; /* log2 of the step: lo too big a file, hi fits */
    es_output best;
    memset(&best, 0, sizeof best);
    int have_best = 0;
    double best_log = hi;
    for (int probe = 0; probe < RC_MAX_PROBES; probe++) {
        double mid = probe == 0 ? hi : 0.5 * (lo + hi);
        es_output o;
        size_t file_bytes = 0;
        wc_status s = code(arg, (float)exp2(mid), &o, &file_bytes);
        if (s != WC_OK) { /* e.g. out of memory: the best probe so far goes too */
            if (have_best) es_output_free(&best);
            return s;
        }
        double size = (double)file_bytes;
        if (size <= target) {
            if (have_best) es_output_free(&best);
            best = o;
            have_best = 1;
            best_log = mid;
            hi = mid;
            if (size >= target * (1.0 - RC_TOLERANCE)) break;
        } else {
            es_output_free(&o);
            lo = mid;
        }
        if (probe == 0 && size > target) break; /* even the coarsest step is too big */
        if (hi - lo < 1e-5) break;
    }
    WC_RETURN_IF(!have_best, err, WC_ERR_ARG, "target of %g bpp is below what this image can reach",
                 bpp);
    *step = (float)exp2(best_log);
    *out = best;
    return WC_OK;
}
