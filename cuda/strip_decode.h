/*
 * strip_decode.h -- the CUDA backend's decode of an image larger than its
 * device-memory cap (wc_stage_plan.max_device_memory, or the device's free
 * memory when no cap is set): the output in strips of rows, each decoded
 * from the code blocks its window of rows needs, inverted as an image of
 * its own and downloaded without its halo (strip_decode.cu says why the
 * samples are the whole image's). C++ (CUDA) only, internal to cuda/.
 */
#ifndef WC_STRIP_DECODE_H
#define WC_STRIP_DECODE_H

#include "cuda_ctx.h"

namespace wcgb
{

/* Whether the decode of p must go in strips: its whole-image device
 * buffers need more than the cap (or than the device has free). */
bool strip_decode_wanted(cuda_ctx *c, const wc_stage_plan *p, const wc_chain *ch,
                         const es_input *in);

/* backend.h's decode in strips (entropy 0, 2 and 3; DWT components only;
 * other modes WC_ERR_LIMIT), the device memory it allocates counted
 * against the cap: WC_ERR_LIMIT with the least it needs when even one
 * strip does not fit. */
wc_status strip_decode(cuda_ctx *c, const wc_stage_plan *p, wc_chain *ch, const es_input *in,
                       wc_image *out, wc_err *err);

} /* namespace wcgb */

#endif /* WC_STRIP_DECODE_H */
