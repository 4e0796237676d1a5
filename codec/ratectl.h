/*
 * ratectl.h -- rate control: the base quantizer step that lands a file at
 * or just under a target of bits per pixel. It knows nothing of the
 * encoder: it calls back to code the image at a candidate step, so every
 * probe measures the size that would be written.
 */
#ifndef WC_RATECTL_H
#define WC_RATECTL_H

#include "entropy_stage.h"

/* One probe: codes the image with base step `step` into *out and sets
 * *file_bytes to the size of the file those payloads make. */
typedef wc_status (*ratectl_code_fn)(void *arg, float step, es_output *out, size_t *file_bytes);

/* Finds the smallest base step whose file fits bpp bits per pixel over
 * `pixels` pixels (stopping within 0.5% under the target when it is
 * reachable). On WC_OK *out holds the payloads coded at that step (the
 * caller frees them) and *step the step, which the caller's header must
 * carry. WC_ERR_ARG when even the coarsest step makes a larger file; a
 * probe's failure is returned as it is. */
wc_status ratectl_search(float bpp, uint64_t pixels, ratectl_code_fn code, void *arg,
                         es_output *out, float *step, wc_err *err);

#endif /* WC_RATECTL_H */
