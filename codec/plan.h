/*
 * plan.h -- from user parameters to the header a file carries and the
 * stage plan a backend runs: colour transform, wavelet per component,
 * levels, and the per-band quantizer steps derived from one base step.
 */
#ifndef WC_PLAN_H
#define WC_PLAN_H

#include "backend.h"
#include "wcodec.h"
#include "container.h"

/* Checks the image and the parameters; messages name the offending one. */
wc_status plan_check(const wc_params *p, const wc_image *img, wc_err *err);

/* The base step a lossy encode uses for quality q (1..100). */
float plan_step_for_quality(float q);

/* The base step p asks for: its step, else its quality's (75 when unset);
 * 1 when lossless (the header ignores it). Both encoders plan with it. */
float plan_base_step(const wc_params *p);

/* The code-block side the params ask for, their default resolved. */
int plan_block_side(const wc_params *p);

/* Fills the header for img and p with base step `step` (ignored when
 * lossless). */
void plan_header(const wc_params *p, const wc_image *img, float step, wcx_header *h);

/* Recomputes the per-band steps of h for a new base step. */
void plan_set_step(wcx_header *h, float step);

/* The stage plan a header implies (threshold from the encoder's params). */
void plan_from_header(const wcx_header *h, float threshold, wc_stage_plan *plan);

/* Levels actually used for a w x h image of the given depth when asked for
 * `levels`: capped by the size and by int32 headroom. */
int plan_levels(uint32_t w, uint32_t h, uint32_t bit_depth, int levels);

/* The header's wavelet identifier for a filter family (53 or 97) under the
 * params' DWT scheme (dwt.h: DWT_53 .. DWT_97_EXPL). */
int plan_wavelet(const wc_params *p, int family);

#endif
