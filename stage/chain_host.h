/*
 * chain_host.h -- backend.h's whole chain (encode, decode) made of a
 * backend's forward/inverse and the host's entropy stage. A backend's
 * encode/decode may be just these (the CPU backend's are) or fall back to
 * them for what it does not code itself (the CUDA backend: deflate mode).
 */
#ifndef WC_CHAIN_HOST_H
#define WC_CHAIN_HOST_H

#include "backend.h"
#include "entropy_stage.h"

/* The whole chain through a backend's forward and the host's entropy
 * coder (chain_host.c): the CPU backend's encode, and the fallback
 * of any backend for what it does not code itself (deflate mode). */
wc_status wc_chain_encode_host(const wc_backend_ops *ops, void *self, const wc_stage_plan *plan,
                               const wc_image *in, wc_chain *chain, struct es_output *out,
                               wc_err *err);
/* The same backwards: the host's entropy decoder, then ops->inverse. */
wc_status wc_chain_decode_host(const wc_backend_ops *ops, void *self, const wc_stage_plan *plan,
                               wc_chain *chain, const struct es_input *in, wc_image *out,
                               wc_err *err);

#endif /* WC_CHAIN_HOST_H */
