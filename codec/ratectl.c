/*
 * ratectl.c -- rate control: the base step that lands a file at or just
 * under a target of bits per pixel. File size falls as the step grows, so
 * a bisection on log2(step) converges; every probe codes the image for
 * real, so the size it measures is the size written.
 */
#include <math.h>
#include <string.h>

#include "encoder.h"
#include "plan.h"

#define RC_MAX_PROBES 40
#define RC_TOLERANCE 0.005

wc_status ratectl_search(enc_state *st, es_output *out)
{
    const double target = (double)st->p->bpp * st->h.width * st->h.height / 8.0;
    double lo = -6.0, hi = 16.0; /* log2 of the step: lo too big a file, hi fits */
    es_output best;
    memset(&best, 0, sizeof best);
    int have_best = 0;
    double best_log = hi;
    for (int probe = 0; probe < RC_MAX_PROBES; probe++) {
        double mid = probe == 0 ? hi : 0.5 * (lo + hi);
        plan_set_step(&st->h, (float)exp2(mid));
        es_output o;
        wc_status s = enc_code_step(st, &o);
        if (s != WC_OK) { /* e.g. out of memory: the best probe so far goes too */
            if (have_best) es_output_free(&best);
            return s;
        }
        double size = (double)enc_file_size(st, &o);
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
    WC_RETURN_IF(!have_best, &st->ctx->err, WC_ERR_ARG,
                 "target of %g bpp is below what this image can reach%s", st->p->bpp,
                 st->p->meta && wc_meta_count(st->p->meta) ? " with its metadata" : "");
    /* The header must carry the steps `best` was coded with. */
    plan_set_step(&st->h, (float)exp2(best_log));
    *out = best;
    return WC_OK;
}
