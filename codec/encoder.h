/* encoder.h -- the encoder's working state, shared with rate control. */
#ifndef WC_ENCODER_H
#define WC_ENCODER_H

#include "context.h"
#include "entropy_stage.h"
#include "layout.h"

typedef struct enc_state {
    wc_ctx *ctx;
    const wc_params *p;
    wcx_header h;
    wc_layout lay;
    wc_stage_plan plan;
    int32_t *q[4];      /* quantized planes, band layout for DCT/LOT */
    int32_t *raw[4];    /* rate control: unquantized int (5/3) planes */
    float *f[4];        /* rate control: unquantized float planes */
} enc_state;

/* Quantizes the unquantized planes with the header's current steps into
 * q (host-side, exactly as a backend would) and codes them. */
wc_status enc_code_step(enc_state *st, es_output *out);

/* Finds the smallest base step whose file fits p->bpp (within 3% under it
 * when reachable), sets the header's steps to it and codes it into *out. */
wc_status ratectl_search(enc_state *st, es_output *out);

/* Exact size of the file the header, layout and payloads make. */
size_t enc_file_size(const enc_state *st, const es_output *out);

#endif
