/* parallel.c -- parallel for-loop on POSIX threads, with or without a
 * pool of parked workers. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parallel.h"

#define WC_MAX_THREADS 256

typedef struct job {
    void (*fn)(void *, size_t, int);
    void *arg;
    size_t n;
    atomic_size_t next;
} job;

/* A thread started for one loop (no pool). */
typedef struct worker {
    job *j;
    int id;
} worker;

/* A pool thread: its id, the last loop it has seen, and its own wake-up
 * (a loop wakes only the threads it uses). */
typedef struct pool_worker {
    struct wc_thread_pool *pool;
    pthread_t tid;
    pthread_cond_t wake;
    int id;
    unsigned long seen;
} pool_worker;

/* Every field below the lock is read and written under it. A loop bumps
 * `loop` and wakes the workers with id < `width`, which take part (one
 * woken otherwise sees a loop it is not in and sleeps again); the caller waits until `running` is 0, so the
 * job on its stack outlives every use. */
struct wc_thread_pool {
    pthread_mutex_t lock;
    pthread_cond_t done; /* the loop's last worker finished */
    int busy;            /* a loop is running (nested ones start threads) */
    int quit;
    int started;        /* threads with ids 1..started */
    unsigned long loop; /* loops begun */
    int width;          /* workers, the caller's 0 included, of this loop */
    int running;        /* pool threads of this loop not done yet */
    job *j;
    pool_worker w[WC_MAX_THREADS];
};

/* The pool wc_parallel_for uses on this thread (set by a context's API
 * calls for their duration; threads of a pool have none). */
static _Thread_local wc_thread_pool *current_pool;

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

static void *pool_main(void *p)
{
    pool_worker *w = p;
    wc_thread_pool *pool = w->pool;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->quit && pool->loop == w->seen) pthread_cond_wait(&w->wake, &pool->lock);
        if (pool->quit) break;
        w->seen = pool->loop;
        if (w->id >= pool->width) continue;
        job *j = pool->j;
        pthread_mutex_unlock(&pool->lock);
        run_items(j, w->id);
        pthread_mutex_lock(&pool->lock);
        if (--pool->running == 0) pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
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

wc_thread_pool *wc_thread_pool_create(void)
{
    wc_thread_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    if (pthread_mutex_init(&pool->lock, NULL) != 0) goto no_lock;
    if (pthread_cond_init(&pool->done, NULL) != 0) goto no_done;
    return pool;
no_done:
    pthread_mutex_destroy(&pool->lock);
no_lock:
    free(pool);
    return NULL;
}

void wc_thread_pool_free(wc_thread_pool *pool)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = 1;
    const int started = pool->started;
    for (int i = 1; i <= started; i++) pthread_cond_signal(&pool->w[i].wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i <= started; i++) {
        pthread_join(pool->w[i].tid, NULL);
        pthread_cond_destroy(&pool->w[i].wake);
    }
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

wc_thread_pool *wc_thread_pool_use(wc_thread_pool *pool)
{
    wc_thread_pool *was = current_pool;
    current_pool = pool;
    return was;
}

int wc_thread_pool_size(wc_thread_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    const int n = pool->started;
    pthread_mutex_unlock(&pool->lock);
    return n;
}

/* The loop on pool's threads, t workers wanted; -1 when the pool is busy
 * (the caller then starts its own). */
static int pool_for(wc_thread_pool *pool, int t, job *j)
{
    pthread_mutex_lock(&pool->lock);
    if (pool->busy) {
        pthread_mutex_unlock(&pool->lock);
        return -1;
    }
    pool->busy = 1;
    while (pool->started < t - 1) { /* lazily, up to the most asked */
        pool_worker *w = &pool->w[pool->started + 1];
        *w = (pool_worker){.pool = pool, .id = pool->started + 1, .seen = pool->loop};
        if (pthread_cond_init(&w->wake, NULL) != 0) break;
        if (pthread_create(&w->tid, NULL, pool_main, w) != 0) {
            pthread_cond_destroy(&w->wake);
            break;
        }
        pool->started++;
    }
    const int width = t < pool->started + 1 ? t : pool->started + 1;
    pool->j = j;
    pool->width = width;
    pool->running = width - 1;
    pool->loop++;
    for (int i = 1; i < width; i++) pthread_cond_signal(&pool->w[i].wake);
    pthread_mutex_unlock(&pool->lock);

    run_items(j, 0); /* the caller works too */

    pthread_mutex_lock(&pool->lock);
    while (pool->running > 0) pthread_cond_wait(&pool->done, &pool->lock);
    pool->busy = 0;
    pool->j = NULL;
    pthread_mutex_unlock(&pool->lock);
    return width;
}

static _Thread_local wc_probe *current_probe;
static _Thread_local int probe_depth;

/* The calling thread's CPU time: on a machine shared with other work,
 * time-slicing does not stretch it as it does the wall clock. */
double wc_probe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void wc_probe_use(wc_probe *probe)
{
    if (probe) {
        memset(probe, 0, sizeof *probe);
        probe->last_end = wc_probe_now();
    }
    current_probe = probe;
    probe_depth = 0;
}

/* The loop's items on this thread, timed, and the span of t workers: each
 * item goes to the worker free first (the lowest id on ties). */
static void probe_loop(wc_probe *pr, int t, job *j)
{
    if (probe_depth++ > 0) { /* nested: part of the outer item's time */
        pr->nested++;
        run_items(j, 0);
        probe_depth--;
        return;
    }
    const double start = wc_probe_now(), gap = start - pr->last_end;
    double free_at[WC_MAX_THREADS] = {0};
    double run = 0;
    for (size_t i = 0; i < j->n; i++) {
        const double t0 = wc_probe_now();
        j->fn(j->arg, i, 0);
        const double d = wc_probe_now() - t0;
        int w = 0;
        for (int k = 1; k < t; k++)
            if (free_at[k] < free_at[w]) w = k;
        free_at[w] += d;
        run += d;
    }
    probe_depth--;
    pr->last_end = wc_probe_now();
    /* The clock's own reads between items (a system call each): not the
     * codec's time, serial or parallel. */
    pr->overhead_s += pr->last_end - start - run;
    double span = 0;
    for (int k = 0; k < t; k++)
        if (free_at[k] > span) span = free_at[k];
    pr->run_s += run;
    pr->span_s += span;
    pr->loops++;
    int s = 0;
    while (s < pr->nsites && pr->site[s].fn != j->fn) s++;
    if (s == WC_PROBE_SITES) return; /* the sites' table is full: totals only */
    wc_probe_site *site = &pr->site[s];
    if (s == pr->nsites) *site = (wc_probe_site){.fn = j->fn}, pr->nsites++;
    site->calls++;
    site->items += j->n;
    if (t > site->width) site->width = t;
    site->run_s += run;
    site->span_s += span;
    site->gap_s += gap;
}

int wc_parallel_for(int threads, size_t n, void (*fn)(void *arg, size_t i, int worker), void *arg)
{
    int t = wc_thread_count(threads);
    if ((size_t)t > n) t = n ? (int)n : 1;
    job j = {fn, arg, n, 0};
    atomic_init(&j.next, 0);
    if (current_probe) {
        probe_loop(current_probe, t, &j);
        return t;
    }
    if (t == 1) {
        run_items(&j, 0);
        return 1;
    }
    if (current_pool) {
        const int used = pool_for(current_pool, t, &j);
        if (used > 0) return used;
    }
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
