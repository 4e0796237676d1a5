/*
 * decode_parse.h -- a .wcx file's chunks parsed and checked for a decode
 * (decoder.c), shared with the streaming decoder (stream_decode.c), which
 * reads the chunk list from a file by ranges rather than from memory.
 */
#ifndef WC_DECODE_PARSE_H
#define WC_DECODE_PARSE_H

#include "context.h"
#include "entropy_stage.h"
#include "wcodec.h"

typedef struct parsed {
    wcx_chunk *chunks;
    size_t nchunks;
    /* The coded planes' header: the file's, or for a palette file (colour
     * 3) its view as one plane of indices; fh is the file's as written. */
    wcx_header h, fh;
    int has_palette;
    wcx_palette pal;
    wc_layout lay;
    es_input in;
    uint32_t *block_size;
} parsed;

void parsed_free(parsed *ps);

/* Everything wc_decode checks of a file after its chunks' framing and
 * CRCs (the header, palette, levels, the pixel limit, the index), from a
 * verified chunk list whose payloads may be NULL for WDAT chunks (their
 * sizes are what counts); *ps takes chunks (wc_malloc'd) whatever the
 * status and is freed with parsed_free. The memory limit is the caller's. */
wc_status dec_parse_list(wc_ctx *ctx, const wc_params *p, wcx_chunk *chunks, size_t n, parsed *ps);

/* WC_ERR_LIMIT, with wc_decode's message, when need passes p's memory limit. */
wc_status dec_check_memory(const wcx_header *h, uint64_t need, const wc_params *p, wc_err *err);

#endif
