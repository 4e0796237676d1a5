/* test_parallel.c -- wc_parallel_for runs every item exactly once, on
 * worker ids below the threads asked for, with no pool, with a pool made
 * current, in loops nested in items, and on two pools at once; under the
 * scaling probe, in order on the calling thread, with a simulated span
 * between an even share of the items' time and all of it. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "parallel.h"

#define MAX_ITEMS 3000

typedef struct tally {
    atomic_int runs[MAX_ITEMS];
    atomic_int bad_worker; /* items given a worker id out of range */
    int threads;           /* the loop's threads, resolved */
} tally;

static void count_item(void *arg, size_t i, int worker)
{
    tally *t = arg;
    atomic_fetch_add(&t->runs[i], 1);
    if (worker < 0 || worker >= t->threads) atomic_fetch_add(&t->bad_worker, 1);
}

/* One loop of n items on `threads`; checks each ran exactly once. */
static void check_loop(int threads, size_t n)
{
    static tally t;
    for (size_t i = 0; i < MAX_ITEMS; i++) atomic_store(&t.runs[i], 0);
    atomic_store(&t.bad_worker, 0);
    t.threads = wc_thread_count(threads);
    const int used = wc_parallel_for(threads, n, count_item, &t);
    assert_true(used >= 1);
    assert_true(used <= t.threads);
    if (n > 0) assert_true((size_t)used <= n);
    for (size_t i = 0; i < MAX_ITEMS; i++) assert_int_equal(atomic_load(&t.runs[i]), i < n);
    assert_int_equal(atomic_load(&t.bad_worker), 0);
}

/* ---- the scaling probe ---- */

typedef struct probed {
    pthread_t caller;
    size_t next; /* the item expected next (in order) */
    int out_of_order, other_thread, nonzero_worker;
    double longest; /* the longest item, timed inside it */
    int inner;      /* nested loops to start in each item */
    volatile unsigned sink;
} probed;

static void spin_item(void *arg, size_t i, int worker)
{
    probed *p = arg;
    const double t0 = wc_probe_now();
    if (i != p->next++) p->out_of_order++;
    if (!pthread_equal(pthread_self(), p->caller)) p->other_thread++;
    if (worker != 0) p->nonzero_worker++;
    for (unsigned k = 0; k < 2000u * (unsigned)(i % 7 + 1); k++) p->sink += k * (unsigned)i;
    for (int k = 0; k < p->inner; k++) check_loop(3, 17); /* nested: its items run once too */
    const double d = wc_probe_now() - t0;
    if (d > p->longest) p->longest = d;
}

static void test_probe(void **state)
{
    (void)state;
    static wc_probe pr;
    const size_t ns[] = {0, 1, 5, 100, 1000};
    for (int inner = 0; inner < 2; inner++)
        for (int threads = 1; threads <= 17; threads += 4)
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
                probed p = {.caller = pthread_self(), .inner = inner};
                wc_probe_use(&pr);
                wc_parallel_for(threads, ns[k], spin_item, &p);
                wc_parallel_for(threads, ns[k], spin_item, &(probed){.caller = pthread_self()});
                wc_probe_use(NULL);
                assert_int_equal(p.next, ns[k]);
                assert_int_equal(p.out_of_order + p.other_thread + p.nonzero_worker, 0);
                assert_int_equal(pr.loops, 2);
                assert_int_equal(pr.nested, (unsigned long)inner * ns[k]);
                assert_int_equal(pr.nsites, 1);
                const wc_probe_site *st = &pr.site[0];
                assert_true(st->fn == spin_item);
                assert_int_equal(st->calls, 2);
                assert_int_equal(st->items, 2 * ns[k]);
                const size_t width =
                    ns[k] < (size_t)threads ? (ns[k] ? ns[k] : 1) : (size_t)threads;
                assert_int_equal(st->width, (int)width);
                assert_true(st->run_s >= 0 && st->gap_s >= 0 && pr.overhead_s >= 0);
                assert_true(st->span_s <= st->run_s + 1e-9);
                assert_true(st->span_s >= st->run_s / (double)width - 1e-9);
                assert_true(st->span_s >= p.longest - 1e-9); /* no item is split */
                assert_true(pr.run_s == st->run_s && pr.span_s == st->span_s);
            }
}

static const size_t sizes[] = {0, 1, 2, 3, 16, 17, 255, MAX_ITEMS};

static void every_size_and_width(void)
{
    for (int threads = 0; threads <= 17; threads++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) check_loop(threads, sizes[k]);
}

static void test_without_pool(void **state)
{
    (void)state;
    assert_null(wc_thread_pool_use(NULL));
    every_size_and_width();
}

static void test_pool_every_item_once(void **state)
{
    (void)state;
    wc_thread_pool *pool = wc_thread_pool_create();
    assert_non_null(pool);
    assert_null(wc_thread_pool_use(pool));
    every_size_and_width();
    /* Threads grew lazily to the widest loop (17 asked: the caller and 16)
     * where the system let them start, and no further. */
    assert_true(wc_thread_pool_size(pool) <= 16);
    assert_true(wc_thread_pool_size(pool) >= 1);
    assert_ptr_equal(wc_thread_pool_use(NULL), pool);
    wc_thread_pool_free(pool);
}

static void test_pool_grows_lazily(void **state)
{
    (void)state;
    wc_thread_pool *pool = wc_thread_pool_create();
    assert_non_null(pool);
    assert_int_equal(wc_thread_pool_size(pool), 0);
    wc_thread_pool *was = wc_thread_pool_use(pool);
    check_loop(1, 100);
    assert_int_equal(wc_thread_pool_size(pool), 0);
    check_loop(3, 1); /* one item: no other worker needed */
    assert_int_equal(wc_thread_pool_size(pool), 0);
    check_loop(3, 100);
    assert_int_equal(wc_thread_pool_size(pool), 2);
    check_loop(2, 100); /* a narrower loop keeps the threads */
    assert_int_equal(wc_thread_pool_size(pool), 2);
    wc_thread_pool_use(was);
    wc_thread_pool_free(pool);
}

static void test_pool_repeated_loops(void **state)
{
    (void)state;
    wc_thread_pool *pool = wc_thread_pool_create();
    assert_non_null(pool);
    wc_thread_pool *was = wc_thread_pool_use(pool);
    for (int r = 0; r < 500; r++) check_loop(1 + r % 9, (size_t)(r * 7) % 40);
    wc_thread_pool_use(was);
    wc_thread_pool_free(pool);
}

/* An item that runs a loop of its own: on the pool's threads (no pool
 * current there) and on the caller's (its pool busy), threads are started;
 * with `inner_pool`, an item makes a pool of its own current, as a batch
 * worker's context does. */
typedef struct nest {
    atomic_int runs[64][64];
    int inner_threads;
    int own_pool;
} nest;

typedef struct inner {
    nest *nest;
    size_t outer;
} inner;

static void inner_item(void *arg, size_t i, int worker)
{
    (void)worker;
    inner *in = arg;
    atomic_fetch_add(&in->nest->runs[in->outer][i], 1);
}

static void outer_item(void *arg, size_t i, int worker)
{
    (void)worker;
    nest *ns = arg;
    inner in = {ns, i};
    wc_thread_pool *own = ns->own_pool ? wc_thread_pool_create() : NULL;
    wc_thread_pool *was = own ? wc_thread_pool_use(own) : NULL;
    wc_parallel_for(ns->inner_threads, 64, inner_item, &in);
    if (own) {
        wc_parallel_for(ns->inner_threads, 0, inner_item, &in); /* reuse: nothing to do */
        assert_ptr_equal(wc_thread_pool_use(was), own);
        wc_thread_pool_free(own);
    }
}

static void check_nested(int own_pool)
{
    static nest ns;
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++) atomic_store(&ns.runs[a][b], 0);
    ns.inner_threads = 3;
    ns.own_pool = own_pool;
    wc_thread_pool *pool = wc_thread_pool_create();
    assert_non_null(pool);
    wc_thread_pool *was = wc_thread_pool_use(pool);
    for (int r = 0; r < 3; r++) wc_parallel_for(4, 64, outer_item, &ns);
    assert_ptr_equal(wc_thread_pool_use(was), pool);
    wc_thread_pool_free(pool);
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++) assert_int_equal(atomic_load(&ns.runs[a][b]), 3);
}

static void test_nested_loops(void **state)
{
    (void)state;
    check_nested(0);
}

static void test_nested_loops_own_pools(void **state)
{
    (void)state;
    check_nested(1);
}

/* Two contexts' pools, each current on its own thread, loops at once. */
typedef struct side {
    wc_thread_pool *pool;
    atomic_int runs[500];
    int errors;
} side;

static void side_item(void *arg, size_t i, int worker)
{
    (void)worker;
    side *s = arg;
    atomic_fetch_add(&s->runs[i], 1);
}

static void *side_main(void *arg)
{
    side *s = arg;
    wc_thread_pool_use(s->pool);
    for (int r = 0; r < 200; r++) {
        for (int i = 0; i < 500; i++) atomic_store(&s->runs[i], 0);
        wc_parallel_for(1 + r % 5, 500, side_item, s);
        for (int i = 0; i < 500; i++) s->errors += atomic_load(&s->runs[i]) != 1;
    }
    wc_thread_pool_use(NULL);
    return NULL;
}

static void test_two_pools_at_once(void **state)
{
    (void)state;
    static side s[2];
    pthread_t tid[2];
    for (int k = 0; k < 2; k++) {
        s[k].pool = wc_thread_pool_create();
        s[k].errors = 0;
        assert_non_null(s[k].pool);
        assert_int_equal(pthread_create(&tid[k], NULL, side_main, &s[k]), 0);
    }
    for (int k = 0; k < 2; k++) {
        assert_int_equal(pthread_join(tid[k], NULL), 0);
        assert_int_equal(s[k].errors, 0);
        wc_thread_pool_free(s[k].pool);
    }
}

static void test_teardown(void **state)
{
    (void)state;
    wc_thread_pool_free(NULL);
    wc_thread_pool_free(wc_thread_pool_create()); /* never used: no threads */
    wc_thread_pool *pool = wc_thread_pool_create();
    assert_non_null(pool);
    wc_thread_pool *was = wc_thread_pool_use(pool);
    check_loop(8, 100);
    wc_thread_pool_use(was);
    wc_thread_pool_free(pool); /* joins its 7 parked threads (LeakSanitizer, valgrind) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_pool),      cmocka_unit_test(test_pool_every_item_once),
        cmocka_unit_test(test_pool_grows_lazily), cmocka_unit_test(test_pool_repeated_loops),
        cmocka_unit_test(test_nested_loops),      cmocka_unit_test(test_nested_loops_own_pools),
        cmocka_unit_test(test_two_pools_at_once), cmocka_unit_test(test_probe),
        cmocka_unit_test(test_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
