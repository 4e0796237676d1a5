/*
 * stream_copy.c -- memcpy with non-temporal stores (stream_copy.h).
 */
#include "stream_copy.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define WC_HAVE_STREAM 1
#else
#define WC_HAVE_STREAM 0
#endif

/* Below this, the fence and the alignment cost more than they save. */
#define STREAM_MIN 4096

/* WC_STREAM_COPY, read once: the stage is filled a row at a time (4,320
 * calls for an 8K image), too often for a walk of the environment each.
 * Threads racing on the first call store the same value. */
static int stream_wanted(void)
{
    static atomic_int wanted = -1;
    int w = atomic_load_explicit(&wanted, memory_order_relaxed);
    if (w < 0) {
        const char *e = getenv("WC_STREAM_COPY");
        w = !(e && e[0] == '0');
        atomic_store_explicit(&wanted, w, memory_order_relaxed);
    }
    return w;
}

void wc_stream_copy(void *dst, const void *src, size_t n)
{
    wc_stream_copy_as(dst, src, n, n >= STREAM_MIN && stream_wanted());
}

void wc_stream_copy_as(void *dst, const void *src, size_t n, int streaming)
{
#if WC_HAVE_STREAM
    if (streaming && n >= 64) {
        uint8_t *d = dst;
        const uint8_t *s = src;
        /* The head up to a 16-byte boundary of dst, then 64 bytes (a line)
         * a round, then the tail. */
        const size_t head = (size_t)(-(uintptr_t)d & 15);
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            const __m128i a = _mm_loadu_si128((const __m128i *)s);
            const __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
            const __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
            const __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
            _mm_stream_si128((__m128i *)d, a);
            _mm_stream_si128((__m128i *)(d + 16), b);
            _mm_stream_si128((__m128i *)(d + 32), c);
            _mm_stream_si128((__m128i *)(d + 48), e);
        }
        memcpy(d, s, n);
        /* Streaming stores are weakly ordered: visible to the thread that
         * next reads them (after the loop's join) only once fenced. */
        _mm_sfence();
        return;
    }
#else
    (void)streaming;
#endif
    memcpy(dst, src, n);
}
