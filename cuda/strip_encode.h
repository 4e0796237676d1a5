/*
 * strip_encode.h -- the CUDA backend's encode of an image larger than its
 * device-memory cap (wc_stage_plan.max_device_memory, or the device's free
 * memory when no cap is set): the whole chain in strips of rows, each
 * uploaded with a halo, transformed whole and coded for the code blocks
 * it holds exactly (strip_encode.cu says why the bits are the whole
 * image's). C++ (CUDA) only, internal to cuda/.
 */
#ifndef WC_STRIP_ENCODE_H
#define WC_STRIP_ENCODE_H

#include "cuda_ctx.h"

namespace wcgb
{

/* Whether the encode of p must go in strips: its whole-image device
 * buffers need more than the cap (or than the device has free). */
bool strip_encode_wanted(cuda_ctx *c, const wc_stage_plan *p, const wc_chain *ch);

/* backend.h's encode in strips (entropy 0, 2 and 3; DWT components only),
 * the device memory it allocates counted against the cap: WC_ERR_LIMIT
 * with the least it needs when even one strip does not fit. */
wc_status strip_encode(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_chain *ch,
                       es_output *out, wc_err *err);

/* Shared with the decode in strips (strip_decode.cu): */
/* Whether a call whose whole-image buffers need `need` bytes goes in
 * strips (over the cap); under a cap, first gives back whole-image
 * buffers an earlier, larger image left over it. */
bool strips_wanted(cuda_ctx *c, const wc_stage_plan *p, size_t need);
/* H / 2^L, the halo of a strip in rows of its coarsest level. */
uint32_t halo_rows_per_level(const wc_stage_plan *p);
/* Device bytes the context's whole-image buffers hold now. */
size_t held(const cuda_ctx *c);
/* The cap a call works under: wc_stage_plan.max_device_memory, else what
 * the device has free beside the context's buffers (less a margin); 0
 * when unknown. */
uint64_t effective_cap(const cuda_ctx *c, const wc_stage_plan *p);
/* Gives back the context's whole-image device buffers. */
void release_whole(cuda_ctx *c);
/* ceil(n / 2^l): a dimension after l levels. */
uint32_t level_size(uint32_t n, int l);
/* cudaMalloc / cudaHostAlloc of at least a byte, failures named by what. */
wc_status dev_alloc(void **p, size_t bytes, wc_err *err, const char *what);
wc_status host_pinned(void **p, size_t bytes, wc_err *err, const char *what);

} /* namespace wcgb */

#endif /* WC_STRIP_ENCODE_H */
