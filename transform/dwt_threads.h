/*
 * dwt_threads.h -- the multi-level 2-D DWTs of dwt.h on several threads:
 * each level's row pass split by rows (dwt53/97_*_1d on each), its column
 * pass by strips of DWT_MT_STRIP columns, staged interleaved and lifted a
 * staging row at a time. Every sample goes through the operations dwt.h's
 * numeric contract gives, in the same order, so the result is the single
 * thread transform's, bit for bit, whatever the thread count.
 */
#ifndef WC_DWT_THREADS_H
#define WC_DWT_THREADS_H

#include <stdint.h>

#define DWT_MT_STRIP 64 /* columns a worker lifts together: dwt_internal.h's DWT_STRIP */

/* As dwt53_forward etc. on `threads` workers (0: all cores), each with
 * scratch of its own; 0 on success, -1 when that scratch cannot be had
 * (the plane is then untouched). */
int dwt53_forward_mt(int32_t *plane, uint32_t w, uint32_t h, int levels, int threads);
int dwt53_inverse_mt(int32_t *plane, uint32_t w, uint32_t h, int levels, int threads);
int dwt97_forward_mt(float *plane, uint32_t w, uint32_t h, int levels, int threads);
int dwt97_inverse_mt(float *plane, uint32_t w, uint32_t h, int levels, int threads);

/* The same on n planes of one size at once (a colour image's components):
 * each pass of each level one parallel loop over all their rows or strips,
 * so all the workers share every level, where a plane each on a share of
 * the workers left some idle (3 planes on 4 or 8 workers) and waited on
 * the slowest plane. Each plane's result is the one-plane transform's. */
int dwt53_forward_mt_planes(int32_t *const *planes, int n, uint32_t w, uint32_t h, int levels,
                            int threads);
int dwt53_inverse_mt_planes(int32_t *const *planes, int n, uint32_t w, uint32_t h, int levels,
                            int threads);
int dwt97_forward_mt_planes(float *const *planes, int n, uint32_t w, uint32_t h, int levels,
                            int threads);
int dwt97_inverse_mt_planes(float *const *planes, int n, uint32_t w, uint32_t h, int levels,
                            int threads);

#endif
