/* parallel.c -- parallel for-loop on POSIX threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "parallel.h"

#define WC_MAX_THREADS 256

typedef struct job {
    void (*fn)(void *, size_t, int);
    void *arg;
    size_t n;
    atomic_size_t next;
} job;

typedef struct worker {
    job *j;
    int id;
} worker;

static void run_items(job *j, int id)
{
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n) return;
        j->fn(j->arg, i, id);
    }
}

static void *worker_main(void *p)
{
    worker *w = p;
    run_items(w->j, w->id);
    return NULL;
}

int wc_thread_count(int threads)
{
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    return threads > WC_MAX_THREADS ? WC_MAX_THREADS : threads;
}

int wc_parallel_for(int threads, size_t n, void (*fn)(void *arg, size_t i, int worker), void *arg)
{
    int t = wc_thread_count(threads);
    if ((size_t)t > n) t = n ? (int)n : 1;
    job j = {fn, arg, n, 0};
    atomic_init(&j.next, 0);
    pthread_t tid[WC_MAX_THREADS];
    worker w[WC_MAX_THREADS];
    int started = 0;
    for (int i = 1; i < t; i++) {
        w[i] = (worker){&j, i};
        if (pthread_create(&tid[i], NULL, worker_main, &w[i]) != 0) break;
        started = i;
    }
    run_items(&j, 0); /* the caller works too; a failed spawn just means fewer workers */
    for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
    return started + 1;
}
