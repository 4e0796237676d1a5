/*
 * device_select.cu -- which GPU a context's CUDA backend lives on.
 *
 * A wc_ctx asks for a device by index (wc_params.device); ctx_backend calls
 * wcg_device_select on the calling thread right before the backend's
 * create, whose stream and buffers then land on that device (cuda_create
 * records it with cudaGetDevice), and every later call on the context sets
 * it again (cudaSetDevice(c->device) at each entry). Nothing touches GPU 0
 * unless 0 is the device asked for, or none is asked for and 0 is the
 * thread's current device.
 */
extern "C" {
#include "backend.h"
}

#include <cuda_runtime.h>

extern "C" int wcg_device_count(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" wc_status wcg_device_select(int device, wc_err *err)
{
    if (device < 0) return WC_OK; /* the thread's current device */
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    WC_RETURN_IF(e != cudaSuccess, err, WC_ERR_BACKEND, "no CUDA device: %s",
                 cudaGetErrorString(e));
    WC_RETURN_IF(device >= n, err, WC_ERR_BACKEND, "CUDA device %d asked for; %d present", device,
                 n);
    const cudaError_t s = cudaSetDevice(device);
    WC_RETURN_IF(s != cudaSuccess, err, WC_ERR_BACKEND, "CUDA device %d: %s", device,
                 cudaGetErrorString(s));
    return WC_OK;
}
