/* cuda_absent.c -- compiled when the CUDA toolkit is missing: there is no
 * CUDA backend, and the pipeline keeps the CPU one. */
#include "backend.h"

const wc_backend_ops *wc_backend_cuda(void) { return NULL; }

int wcg_device_count(void) { return 0; }

wc_status wcg_device_select(int device, wc_err *err)
{
    WC_RETURN_IF(device >= 0, err, WC_ERR_BACKEND,
                 "CUDA device %d asked for; this build has no CUDA backend", device);
    return WC_OK;
}
