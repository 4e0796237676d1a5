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

#define DWT_MT_STRIP 32 /* columns a worker lifts together (128 bytes a row) */

/* As dwt53_forward etc. on `threads` workers (0: all cores), each with
 * scratch of its own; 0 on success, -1 when that scratch cannot be had
 * (the plane is then untouched). */
int dwt53_forward_mt(int32_t *plane, uint32_t w, uint32_t h, int levels, int threads);
int dwt53_inverse_mt(int32_t *plane, uint32_t w, uint32_t h, int levels, int threads);
int dwt97_forward_mt(float *plane, uint32_t w, uint32_t h, int levels, int threads);
int dwt97_inverse_mt(float *plane, uint32_t w, uint32_t h, int levels, int threads);

#endif
