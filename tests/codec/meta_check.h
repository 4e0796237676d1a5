/* meta_check.h -- cmocka assertion that two metadata lists hold the same
 * items in the same order (the metadata tests share it). */
#ifndef WC_TEST_META_CHECK_H
#define WC_TEST_META_CHECK_H

#include "wcodec.h"

static inline void assert_same_meta(const wc_meta *a, const wc_meta *b)
{
    assert_int_equal(wc_meta_count(a), wc_meta_count(b));
    for (size_t i = 0; i < wc_meta_count(a); i++) {
        const wc_meta_item *x = wc_meta_get(a, i), *y = wc_meta_get(b, i);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->flags, y->flags);
        assert_string_equal(x->key, y->key);
        assert_int_equal(x->size, y->size);
        assert_memory_equal(x->data, y->data, x->size);
    }
}

#endif
