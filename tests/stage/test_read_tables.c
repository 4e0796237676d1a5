/*
 * test_read_tables.c -- es_read_class_tables (one class of one component,
 * what the CUDA decoder builds on many threads) against es_read_tables
 * (every class in order): on WTAB payloads es_build_tables wrote from
 * random counts, each class alone gives every byte the whole read gives;
 * on damaged payloads (bytes flipped, cut short, a stray byte after the
 * end) the whole read fails exactly when some class fails, so a caller
 * that builds the classes apart accepts and refuses the same files; and
 * es_read_tables_threads (the classes on several workers) gives the whole
 * read's tables, status and message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "entropy_stage.h"
#include "test_support.h"

enum { NCOUNTS = WC_NCLASS * BC_NTAB * BC_NSYM };

/* Counts of one component: some tables unused (all zero), some with
 * one symbol, the rest dense or skewed (long codes). */
static void random_counts(test_rng *r, uint64_t *counts)
{
    for (size_t t = 0; t < WC_NCLASS * BC_NTAB; t++) {
        uint64_t *c = counts + t * BC_NSYM;
        const int kind = test_rng_range(r, 0, 3);
        for (unsigned s = 0; s < BC_NSYM; s++)
            c[s] = kind == 0   ? 0
                   : kind == 1 ? (s == (unsigned)t % BC_NSYM ? 7 : 0)
                   : kind == 2 ? (uint64_t)test_rng_range(r, 0, 1000)
                               : (test_rng_range(r, 0, 3) ? 0 : (uint64_t)1 << (s % 20));
    }
}

/* Reads component c of `in` both ways; returns whether es_read_tables
 * succeeded, after checking that the class reads agree with it. */
static int read_both(const wcx_header *h, const es_input *in, bc_dectab *whole, bc_dectab *one,
                     bc_dectab *threaded)
{
    wc_err err = {{0}}, terr = {{0}};
    const size_t n = (size_t)h->components * WC_NCLASS;
    memset(whole, 0, n * sizeof *whole);
    memset(threaded, 0, n * sizeof *threaded);
    const wc_status ws = es_read_tables(h, in, whole, &err);
    const int ok = ws == WC_OK;
    assert_int_equal(es_read_tables_threads(h, in, threaded, 4, &terr), ws);
    assert_string_equal(terr.msg, err.msg);
    if (ok) assert_memory_equal(threaded, whole, n * sizeof *whole);
    int all = 1;
    for (uint32_t c = 0; c < h->components; c++)
        for (unsigned cls = 0; cls < WC_NCLASS; cls++) {
            memset(one, 0, sizeof *one);
            wc_err e = {{0}};
            const int k_ok = es_read_class_tables(in, c, cls, one, &e) == WC_OK;
            if (!k_ok) assert_true(e.msg[0] != 0); /* a failure says why */
            all = all && k_ok;
            if (ok) {
                assert_true(k_ok);
                assert_memory_equal(one, &whole[c * WC_NCLASS + cls], sizeof *one);
            }
        }
    assert_int_equal(ok, all);
    return ok;
}

static void test_classes_alone_equal_the_whole_read(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 7);
    bc_dectab *whole = calloc(4 * WC_NCLASS, sizeof *whole), *one = calloc(1, sizeof *one);
    bc_dectab *threaded = calloc(4 * WC_NCLASS, sizeof *threaded);
    assert_non_null(threaded);
    uint64_t *counts = calloc(4 * (size_t)NCOUNTS, sizeof *counts);
    huf_enc(*enc)[WC_NCLASS][BC_NTAB] = calloc(4, sizeof *enc);
    assert_non_null(whole);
    assert_non_null(one);
    assert_non_null(counts);
    assert_non_null(enc);
    for (int trial = 0; trial < 40; trial++) {
        wcx_header h;
        memset(&h, 0, sizeof h);
        h.components = (uint8_t)test_rng_range(&r, 1, 4);
        for (uint32_t c = 0; c < h.components; c++) random_counts(&r, counts + c * NCOUNTS);
        es_output out;
        memset(&out, 0, sizeof out);
        wc_err err = {{0}};
        assert_int_equal(es_build_tables(&h, counts, 1, enc, &out, &err), WC_OK);
        es_input in;
        memset(&in, 0, sizeof in);
        for (uint32_t c = 0; c < h.components; c++) {
            in.tables[c] = out.tables[c];
            in.table_size[c] = out.table_size[c];
        }
        assert_true(read_both(&h, &in, whole, one, threaded));

        /* Damage to one component's payload, in a copy with room for a
         * stray byte. */
        const uint32_t c = (uint32_t)test_rng_range(&r, 0, h.components - 1);
        const size_t size = out.table_size[c];
        uint8_t *copy = malloc(size + 1);
        assert_non_null(copy);
        memcpy(copy, out.tables[c], size);
        in.tables[c] = copy;
        copy[size] = 0;
        in.table_size[c] = size + 1; /* a stray byte */
        assert_false(read_both(&h, &in, whole, one, threaded));
        in.table_size[c] = size / 2; /* cut short */
        assert_false(read_both(&h, &in, whole, one, threaded));
        in.table_size[c] = size;
        for (int f = 0; f < 8; f++) { /* flipped bytes: either verdict, the same both ways */
            const size_t at = (size_t)test_rng_range(&r, 0, (int32_t)size - 1);
            const uint8_t was = copy[at];
            copy[at] ^= (uint8_t)test_rng_range(&r, 1, 255);
            read_both(&h, &in, whole, one, threaded);
            copy[at] = was;
        }
        free(copy);
        for (uint32_t k = 0; k < h.components; k++) wc_free(out.tables[k]);
    }
    free(whole);
    free(threaded);
    free(one);
    free(counts);
    free(enc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes_alone_equal_the_whole_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
