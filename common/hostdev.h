/*
 * hostdev.h -- marks the small numeric kernels that the CPU code and the
 * CUDA kernels compile from one source, so the two cannot drift apart:
 * plain `static inline` in C, `__host__ __device__` under nvcc. It
 * includes no CUDA header.
 */
#ifndef WC_HOSTDEV_H
#define WC_HOSTDEV_H

#if defined(__CUDACC__)
#define WC_HOSTDEV static inline __host__ __device__
#else
#define WC_HOSTDEV static inline
#endif

#endif
