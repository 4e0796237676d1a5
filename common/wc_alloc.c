/* wc_alloc.c -- the one allocation wrapper, with a failure injector. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "wc_common.h"

/* Thread-local so tests in one thread never disturb another context. */
static _Thread_local long fail_countdown = -1;

void wc_alloc_fail_after(long n) { fail_countdown = n; }

static int should_fail(void)
{
    if (fail_countdown < 0) return 0;
    if (fail_countdown == 0) return 1;
    fail_countdown--;
    return 0;
}

void *wc_malloc(size_t n)
{
    if (n == 0 || should_fail()) return NULL;
    return malloc(n);
}

void *wc_calloc(size_t count, size_t size)
{
    if (count == 0 || size == 0 || (size_t)-1 / count < size || should_fail()) return NULL;
    return calloc(count, size);
}

void *wc_malloc_array(size_t count, size_t size)
{
    size_t n;
    if (wc_mul_overflow(count, size, &n)) return NULL;
    return wc_malloc(n);
}

void *wc_realloc(void *p, size_t n)
{
    if (n == 0 || should_fail()) return NULL;
    return realloc(p, n);
}

void wc_free(void *p) { free(p); }

#define HUGE_MIN ((size_t)8 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

void wc_advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (!p || n < HUGE_MIN) return;
    const uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    const uintptr_t e = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
    if (e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}
