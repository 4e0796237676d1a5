/*
 * ac_block.c -- entropy 3's host entry points: the block's view, MED
 * residuals where the band is predicted, and ac_model.h's coder.
 */
#include "ac_block.h"

#include "ac_model.h"

/* The scratch: the model's state, then room for a block of residuals. */
typedef struct ac_work {
    ac_scratch s;
    int32_t res[AC_MAX_SIDE * AC_MAX_SIDE];
} ac_work;

size_t ac_scratch_bytes(void) { return sizeof(ac_work); }

size_t ac_bound(uint32_t w, uint32_t h) { return ac_values_bound(w, h); }

size_t ac_encode(const bc_block *b, uint8_t *out, size_t cap, void *scratch)
{
    ac_work *W = scratch;
    const int32_t *src = b->data;
    size_t ss = b->stride;
    if (b->predict) {
        bc_residuals(b, W->res);
        src = W->res;
        ss = b->w;
    }
    return ac_encode_values(src, ss, b->w, b->h, b->orient, &W->s, out, cap);
}

wc_status ac_decode(const uint8_t *src, size_t size, const bc_block *b, void *scratch, wc_err *err)
{
    ac_work *W = scratch;
    WC_RETURN_IF(ac_decode_values(src, size, b->data, b->stride, b->w, b->h, b->orient, &W->s), err,
                 WC_ERR_CORRUPT, "arithmetic-coded data is inconsistent");
    if (b->predict) bc_unpredict(b);
    return WC_OK;
}
