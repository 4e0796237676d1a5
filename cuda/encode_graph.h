/*
 * encode_graph.h -- a batch worker's device chain as CUDA graphs, one per
 * recent shape (encode_graph.cu). A Kodak image's chain is ~30 stream
 * calls (upload, a DWT kernel a level and component, count, tables, emit,
 * pack, copies); many workers issuing them through one CUDA context were
 * bound by the calls, not the device (PERF_NOTES b1, g1). A graph made
 * once for a shape is one launch an image. C++ (CUDA) only, internal to
 * cuda/.
 */
#ifndef WC_ENCODE_GRAPH_H
#define WC_ENCODE_GRAPH_H

#include "dwt_cuda.h" /* before cuda_ctx.h: wcg_samples */

#include "cuda_ctx.h"
#include "entropy_cuda.h"

namespace wcgb
{

/* Everything the captured calls depend on: the plan (less the fields
 * that only the host reads), the coder's job, the buffers' addresses
 * (a buffer that grows moves) and the upload's form. Compared bytewise:
 * graph_key_make clears it first, padding included. */
struct graph_key {
    wc_stage_plan plan; /* threads, pool, stream, max_device_memory cleared */
    wcg_bc_job job;
    uint64_t nblocks, slots;
    int entropy, flags, staged;
    const void *buf[16];
    const void *pack_to; /* where the pack writes the payload */
};

void graph_key_make(const cuda_ctx *c, const wc_stage_plan *p, const wcg_bc_job *job,
                    uint64_t nblocks, size_t slots, int entropy, int flags, bool staged,
                    const void *pack_to, graph_key *k);

/* The stream calls of one image's chain (the graph's content). */
typedef wc_status (*graph_queue_fn)(void *arg, wc_err *err);

/* Launches on c->stream the graph kept under k; or, the second time k
 * is seen, first captures queue(arg) into a new one (replacing the least
 * recently used of the few kept); the first time, runs queue(arg) on the
 * stream as it is. A capture the runtime refuses runs queue(arg) so too,
 * and graphs stay off for the context. */
wc_status graph_launch(cuda_ctx *c, const graph_key *k, graph_queue_fn queue, void *arg,
                       wc_err *err);

/* Frees the context's graphs (cuda_destroy). */
void graph_cache_free(cuda_ctx *c);

} /* namespace wcgb */

#endif /* WC_ENCODE_GRAPH_H */
