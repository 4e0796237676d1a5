/*
 * stream_copy.h -- a copy of many bytes whose destination nobody reads
 * soon: the container's copy of a device-coded payload out of the pinned
 * staging buffer, and the decode's copy of a payload into it (the device
 * reads it by DMA, not the CPU).
 */
#ifndef WC_STREAM_COPY_H
#define WC_STREAM_COPY_H

#include <stddef.h>

/* memcpy(dst, src, n) for buffers that do not overlap. On x86-64 the
 * bulk goes out with non-temporal (streaming) stores, which write whole
 * lines without first reading them into the cache: a third less memory
 * traffic than memcpy's below glibc's non-temporal threshold (tens of MB,
 * while the codec's loops copy a few MB a thread), and nothing evicted.
 * The stores are fenced before it returns. Elsewhere, or with
 * WC_STREAM_COPY=0 in the environment (comparisons; read once, at the
 * first call), it is memcpy. */
void wc_stream_copy(void *dst, const void *src, size_t n);

/* The same with the choice made by the caller: streaming stores where
 * `streaming` and the CPU has them, else memcpy (tests). */
void wc_stream_copy_as(void *dst, const void *src, size_t n, int streaming);

#endif /* WC_STREAM_COPY_H */
