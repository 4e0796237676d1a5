/* cuda_absent.c -- compiled when the CUDA toolkit is missing: there is no
 * CUDA backend, and the pipeline keeps the CPU one. */
#include "backend.h"

const wc_backend_ops *wc_backend_cuda(void) { return NULL; }
