/*
 * test_ratectl_search.c -- the step search of a bpp target (codec/
 * ratectl.c, ratectl_search) against size models whose answer is known:
 * it lands within 0.5% under a reachable target, takes the best reachable
 * size when the sizes come in steps, reports a target no step reaches,
 * stops at the finest step when everything fits, keeps only the chosen
 * probe's payloads (the others are freed: ASan and valgrind in CI see a
 * leak), passes a probe's failure on, needs fewer probes than the
 * bisection it replaced (eleven or twelve on the Kodak images), and, where
 * probes leave their payloads in one staging buffer (a device backend's),
 * copies out the probe it keeps before the next one overwrites it, and no
 * other; where probes measure sizes only, gives the kept one its payload
 * once (ratectl_finish_fn).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ratectl.h"
#include "wc_common.h"

typedef enum { M_SMOOTH, M_STAIRS, M_WAVY, M_FAIL } model_kind;

typedef struct model {
    model_kind kind;
    double s0;     /* size at step 1 */
    double slope;  /* ln(size) per log2(step) */
    double stair;  /* M_STAIRS: sizes are multiples of this */
    int fail_at;   /* M_FAIL: the probe that fails */
    int probes;    /* probes made */
    int borrow;    /* probes leave their payloads in `stage`, as a device does */
    int keep_fail; /* borrow: the keep call that fails, counted from 1 */
    float stage;   /* borrow: the staging buffer, the last probe's step */
    int keeps;     /* borrow: payloads copied out of the stage */
    /* sized: probes give sizes only (no payload, as a device's size-only
     * probe), and finish gives the kept one its payload */
    int sized;
    int finish_fail; /* sized: finish fails */
    int finishes;    /* sized: finish calls */
    int was_last;    /* sized: finish's was_last */
    float last_step; /* the last probe's step */
} model;

static double model_size(const model *m, double log_step)
{
    double size = m->s0 * exp(m->slope * log_step);
    if (m->kind == M_WAVY) size *= 1.0 + 0.02 * sin(37.0 * log_step);
    if (m->kind == M_STAIRS) size = m->stair * ceil(size / m->stair);
    return size < 1.0 ? 1.0 : size;
}

/* A probe: the model's size, and a payload holding the probe's step, so
 * the test can see which probe's payload the search kept. */
static wc_status code_at(void *arg, float step, es_output *out, size_t *file_bytes)
{
    model *m = arg;
    memset(out, 0, sizeof *out);
    if (m->kind == M_FAIL && m->probes == m->fail_at) return WC_ERR_NOMEM;
    m->probes++;
    m->last_step = step;
    *file_bytes = (size_t)model_size(m, log2((double)step));
    if (m->sized) return WC_OK; /* no payload */
    if (m->borrow) {            /* the next probe overwrites it */
        m->stage = step;
        out->data[0] = (uint8_t *)&m->stage;
        out->data_borrowed = 1;
        return WC_OK;
    }
    float *tag = wc_malloc(sizeof *tag);
    if (!tag) return WC_ERR_NOMEM;
    *tag = step;
    out->data[0] = (uint8_t *)tag;
    return WC_OK;
}

/* ratectl_keep_fn: a borrowed payload copied out. It must be the stage's,
 * still holding its probe, i.e. called before the next probe. */
static wc_status keep(void *arg, es_output *out)
{
    model *m = arg;
    assert_true(m->borrow && out->data_borrowed);
    assert_ptr_equal(out->data[0], (uint8_t *)&m->stage);
    if (++m->keeps == m->keep_fail) return WC_ERR_NOMEM;
    float *tag = wc_malloc(sizeof *tag);
    if (!tag) return WC_ERR_NOMEM;
    *tag = m->stage;
    out->data[0] = (uint8_t *)tag;
    out->data_borrowed = 0;
    return WC_OK;
}

/* ratectl_finish_fn: the kept probe's payload, called once, on a
 * sized-only output; was_last must say whether it was the last probe. */
static wc_status finish(void *arg, float step, int was_last, es_output *out)
{
    model *m = arg;
    assert_true(m->sized);
    assert_null(out->data[0]);
    m->finishes++;
    m->was_last = was_last;
    assert_int_equal(was_last, step == m->last_step);
    if (m->finish_fail) return WC_ERR_NOMEM;
    float *tag = wc_malloc(sizeof *tag);
    if (!tag) return WC_ERR_NOMEM;
    *tag = step;
    out->data[0] = (uint8_t *)tag;
    return WC_OK;
}

typedef struct result {
    wc_status status;
    float step;
    double size; /* the model's size at the step found */
    int probes;
} result;

static result search(model *m, float bpp, uint64_t pixels)
{
    result r = {0};
    es_output out;
    memset(&out, 0, sizeof out);
    wc_err err;
    memset(&err, 0, sizeof err);
    r.status = ratectl_search(bpp, pixels, code_at, m->borrow ? keep : NULL,
                              m->sized ? finish : NULL, m, &out, &r.step, &err);
    r.probes = m->probes;
    if (r.status == WC_OK) {
        assert_non_null(out.data[0]);
        assert_true(*(const float *)(const void *)out.data[0] == r.step); /* its payloads */
        r.size = model_size(m, log2((double)r.step));
        es_output_free(&out);
    }
    return r;
}

/* Photograph-like sizes (the Kodak images' slope, -0.6) over targets from
 * 0.05 to 8 bpp and sizes shifted by 2^-8 to 2^8, wherever a step in the
 * searched range (2^-6 to 2^16) reaches the target: every answer is within
 * the band, in a few probes. */
static void test_smooth_sizes_land_in_the_band(void **state)
{
    (void)state;
    const uint64_t pixels = 768 * 512;
    const double bpps[] = {0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8};
    int most = 0, cases = 0;
    for (int shift = -8; shift <= 8; shift += 2)
        for (size_t i = 0; i < sizeof bpps / sizeof bpps[0]; i++) {
            model m = {M_SMOOTH, 150000.0 * exp2(shift), -0.6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            const double target = bpps[i] * (double)pixels / 8.0;
            if (model_size(&m, -6.0) < target || model_size(&m, 16.0) > target) continue;
            const result r = search(&m, (float)bpps[i], pixels);
            assert_int_equal(r.status, WC_OK);
            assert_true(r.size <= target);
            assert_true(r.size >= target * 0.995);
            if (r.probes > most) most = r.probes;
            cases++;
        }
    assert_true(cases >= 40);
    assert_true(most <= 6); /* the bisection took 11 or 12 */
}

/* Slopes far from the one assumed (a nearly flat and a very steep fall):
 * slower, still inside the band. */
static void test_other_slopes_still_converge(void **state)
{
    (void)state;
    const double slopes[] = {-0.08, -0.2, -1.5, -4.0};
    for (size_t i = 0; i < sizeof slopes / sizeof slopes[0]; i++) {
        model m = {M_SMOOTH, 100000.0, slopes[i], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        const uint64_t pixels = 1u << 20;
        const double target = 0.5 * (double)pixels / 8.0;
        const result r = search(&m, 0.5f, pixels);
        assert_int_equal(r.status, WC_OK);
        assert_true(r.size <= target && r.size >= target * 0.995);
        assert_true(r.probes <= 24);
    }
}

/* Sizes in steps of 1000 bytes around a target that falls between two of
 * them: no step lands in the band, and the answer is the largest size that
 * fits, the best there is. */
static void test_sizes_in_steps_give_the_best_that_fits(void **state)
{
    (void)state;
    model m = {M_STAIRS, 150000.0, -0.6, 1000.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const uint64_t pixels = 10000;
    const double target = 10500.0; /* 8.4 bpp over 10000 pixels */
    const result r = search(&m, (float)(target * 8.0 / (double)pixels), pixels);
    assert_int_equal(r.status, WC_OK);
    assert_true(r.size == 10000.0);
    assert_true(r.probes < 40);
}

/* Sizes that wobble by 2% as the step grows (not monotone everywhere). */
static void test_wobbling_sizes_fit(void **state)
{
    (void)state;
    for (int k = 1; k <= 8; k++) {
        model m = {M_WAVY, 200000.0, -0.6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        const uint64_t pixels = 768 * 512;
        const double target = 0.25 * k * (double)pixels / 8.0;
        const result r = search(&m, 0.25f * (float)k, pixels);
        assert_int_equal(r.status, WC_OK);
        assert_true(r.size <= target);
        assert_true(r.probes <= 40);
    }
}

/* A target below the coarsest step's size: an error, no payload kept. */
static void test_unreachable_target_is_an_error(void **state)
{
    (void)state;
    model m = {M_SMOOTH, 1e9, -0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const result r = search(&m, 0.001f, 1000);
    assert_int_equal(r.status, WC_ERR_ARG);
    assert_true(r.probes <= 8);
}

/* Every step fits (a target above the finest step's size): the finest. */
static void test_everything_fits_gives_the_finest_step(void **state)
{
    (void)state;
    model m = {M_SMOOTH, 100.0, -0.6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; /* 3,700 bytes at 2^-6 */
    const result r = search(&m, 64.0f, 1000);
    assert_int_equal(r.status, WC_OK);
    assert_true(r.step == (float)exp2(-6.0));
}

/* A probe that fails, at each probe the search makes: its status comes
 * back, the payloads kept so far are freed. */
static void test_a_failing_probe_is_passed_on(void **state)
{
    (void)state;
    model whole = {M_SMOOTH, 150000.0, -0.6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const result ok = search(&whole, 0.3f, 768 * 512);
    assert_int_equal(ok.status, WC_OK);
    assert_true(ok.probes >= 2);
    for (int at = 0; at < ok.probes; at++) {
        model m = {M_FAIL, 150000.0, -0.6, 0, at, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        const result r = search(&m, 0.3f, 768 * 512);
        assert_int_equal(r.status, WC_ERR_NOMEM);
        assert_int_equal(r.probes, at);
    }
}

/* Probes that borrow one staging buffer: the payloads returned are the
 * chosen step's (a search that did not copy its best out before the next
 * probe would return the last probe's), copied only while another probe
 * was still to run, so fewer times than there are probes; and a failing
 * copy is passed on, nothing leaked. */
static void test_borrowed_probes_are_copied_only_when_kept(void **state)
{
    (void)state;
    const uint64_t pixels = 768 * 512;
    int probes = 0, keeps = 0;
    for (int k = 1; k <= 16; k++)
        for (int wavy = 0; wavy <= 1; wavy++) {
            model m = {
                wavy ? M_WAVY : M_SMOOTH, 200000.0, -0.6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
            const double target = 0.125 * k * (double)pixels / 8.0;
            const result r = search(&m, 0.125f * (float)k, pixels);
            assert_int_equal(r.status, WC_OK);
            assert_true(r.size <= target);
            assert_true(m.keeps < r.probes);
            probes += r.probes;
            keeps += m.keeps;
        }
    assert_true(2 * keeps < probes);
    /* Sizes in steps: the search ends on a bracket, not in the band, and
     * the best probe is an earlier one than the last. */
    model stairs = {M_STAIRS, 150000.0, -0.6, 1000.0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    const result best = search(&stairs, 8.4f, 10000);
    assert_int_equal(best.status, WC_OK);
    assert_true(best.size == 10000.0);
    assert_true(stairs.keeps >= 1);
    model m = {M_WAVY, 200000.0, -0.6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    const result first = search(&m, 1.3f, pixels);
    assert_int_equal(first.status, WC_OK);
    for (int at = 1; at <= m.keeps; at++) {
        model f = {M_WAVY, 200000.0, -0.6, 0, 0, 0, 1, at, 0, 0, 0, 0, 0, 0, 0};
        const result r = search(&f, 1.3f, pixels);
        assert_int_equal(r.status, WC_ERR_NOMEM);
    }
}

/* Probes that measure sizes only: the search gives the payload to the
 * probe it keeps, once, saying whether it was the last probe (smooth
 * sizes: it is; sizes in steps: the search ends on a bracket and keeps an
 * earlier one); the steps found are those of probes with payloads; a
 * failing finish is passed on, nothing leaked; no finish where nothing
 * fits. */
static void test_sized_probes_are_finished_once(void **state)
{
    (void)state;
    const uint64_t pixels = 768 * 512;
    int last = 0;
    for (int k = 1; k <= 16; k++) {
        model m = {M_SMOOTH, 200000.0, -0.6, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
        model ref = {M_SMOOTH, 200000.0, -0.6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        const result r = search(&m, 0.125f * (float)k, pixels);
        const result rr = search(&ref, 0.125f * (float)k, pixels);
        assert_int_equal(r.status, WC_OK);
        assert_true(r.step == rr.step && r.probes == rr.probes); /* the same search */
        assert_int_equal(m.finishes, 1);
        last += m.was_last;
    }
    assert_true(last >= 1);
    int earlier = 0;
    for (int k = 0; k < 40; k++) {
        model stairs = {M_STAIRS, 150000.0, -0.6, 1000.0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
        const result best = search(&stairs, 4.0f + 0.25f * (float)k, 10000);
        assert_int_equal(best.status, WC_OK);
        assert_int_equal(stairs.finishes, 1);
        earlier += !stairs.was_last;
    }
    print_message("sized probes: %d of 40 stair searches kept an earlier probe\n", earlier);
    assert_true(earlier >= 1);
    model fail = {M_SMOOTH, 200000.0, -0.6, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0};
    assert_int_equal(search(&fail, 1.0f, pixels).status, WC_ERR_NOMEM);
    assert_int_equal(fail.finishes, 1);
    model none = {M_SMOOTH, 1e9, -0.1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    assert_int_equal(search(&none, 0.001f, 1000).status, WC_ERR_ARG);
    assert_int_equal(none.finishes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smooth_sizes_land_in_the_band),
        cmocka_unit_test(test_other_slopes_still_converge),
        cmocka_unit_test(test_sizes_in_steps_give_the_best_that_fits),
        cmocka_unit_test(test_wobbling_sizes_fit),
        cmocka_unit_test(test_unreachable_target_is_an_error),
        cmocka_unit_test(test_everything_fits_gives_the_finest_step),
        cmocka_unit_test(test_a_failing_probe_is_passed_on),
        cmocka_unit_test(test_borrowed_probes_are_copied_only_when_kept),
        cmocka_unit_test(test_sized_probes_are_finished_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
