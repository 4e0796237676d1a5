/*
 * entropy_stage.h -- turns the quantized coefficient planes of an image
 * into per-component table and data payloads plus a code-block index, and
 * back. Code blocks are coded independently on all workers; the output
 * depends only on the coefficients and the header, never on thread count.
 */
#ifndef WC_ENTROPY_STAGE_H
#define WC_ENTROPY_STAGE_H

#include "block_coder.h"
#include "container.h"
#include "layout.h"

typedef struct es_output {
    uint8_t *tables[4]; /* WTAB payloads (Huffman mode) */
    size_t table_size[4];
    uint8_t *data[4]; /* WDAT payloads: blocks of the component in order */
    size_t data_size[4];
    uint32_t *block_size; /* per code block, layout order */
    /* block_size NULL (a device backend's size-only probe, which leaves
     * its blocks' sizes on the device): the WIDX chunk's bytes those sizes
     * make (wcx_index_size), the only thing the file's size needs of them. */
    size_t index_size;
    int data_borrowed; /* data[] points into a backend's staging
                                buffer (valid until its next call): not
                                freed by es_output_free */
    /* have_data_crc: data_crc[c] is zlib's crc32 of data[c], computed where
     * the payload was made (the CUDA backend's device), so that the WDAT
     * chunks are written without reading the payload again. */
    int have_data_crc;
    uint32_t data_crc[4];
    /* Non-NULL while data[] is still arriving (the CUDA backend brings the
     * payload down in pieces, and the container copies each as it lands):
     * data_wait(data_wait_arg, c, end) returns once data[c][0, end) is in
     * place, NULL, or what failed. Anything else that reads data[] calls
     * es_output_wait first. */
    const char *(*data_wait)(void *arg, uint32_t comp, size_t end);
    void *data_wait_arg;
    /* Non-NULL: data[] came from this pool (es_encode's), and
     * es_output_free gives them back to it; NULL: from wc_malloc. */
    struct wc_pool *data_pool;
} es_output;

/* pool (may be NULL) lends the large buffers: the workers' symbols and
 * coded blocks, and the data payloads, so a context coding image after
 * image faults none of them in again. */
wc_status es_encode(const wcx_header *h, const wc_layout *lay, int32_t *const *planes, int threads,
                    int deflate_level, struct wc_pool *pool, es_output *out, wc_err *err);
void es_output_free(es_output *out);
/* Waits for all of data[] (es_output.data_wait); after it data_wait is
 * NULL. WC_ERR_BACKEND naming what failed. */
wc_status es_output_wait(es_output *out, wc_err *err);

/* Huffman mode: code lengths, the encoder tables enc[c][class][table] and
 * the WTAB payloads (into out->tables) from the symbol counts of the whole
 * image, counts[((c * WC_NCLASS + class) * BC_NTAB + table) * BC_NSYM +
 * symbol]. One algorithm whatever counted them (host workers or a device):
 * counts above 2^32 - 1 are taken as 2^32 - 1. The tables are built on
 * `threads` workers (0: all); they do not depend on it. */
/* A deflate (entropy 1) payload in two steps, for every encoder that
 * codes one (this stage and the streaming encoder): the block's values
 * (MED residuals in predicted bands) into zero-run tokens in tokens
 * (rle_bound(w*h) bytes; values holds w*h scratch), returning their
 * count; then the count and the zlib stream into dst (cap bytes, at least
 * es_deflate_bound(ntok)), its size in *size. */
size_t es_deflate_tokens(const bc_block *b, int32_t *values, uint8_t *tokens);
size_t es_deflate_bound(size_t ntok);
wc_status es_deflate_pack(const uint8_t *tokens, size_t ntok, int level, uint8_t *dst, size_t cap,
                          size_t *size, wc_err *err);

wc_status es_build_tables(const wcx_header *h, const uint64_t *counts, int threads,
                          huf_enc (*enc)[WC_NCLASS][BC_NTAB], es_output *out, wc_err *err);

typedef struct es_input {
    const uint8_t *tables[4];
    size_t table_size[4];
    const uint8_t *data[4];
    size_t data_size[4];
    const uint32_t *block_size;
    /* NULL: decode every block. Else only the blocks i with block_mask[i]
     * set are decoded (a region or a reduced image needs no more); the
     * others' coefficients are left as they were in the planes. */
    const uint8_t *block_mask;
    /* Where not NULL, the data's CRCs are not checked yet: codec/decoder.c
     * leaves those of large data chunks to a device backend, to check
     * beside its work. Such a backend calls verify before it writes any
     * output and returns its status where it is not WC_OK; es_decode and
     * the CPU backend are never given one. */
    wc_status (*verify)(void *arg, wc_err *err);
    void *verify_arg;
} es_input;

/* Decodes every block into planes (sized by the layout). Errors name the
 * component, band and block. */
wc_status es_decode(const wcx_header *h, const wc_layout *lay, const es_input *in,
                    int32_t *const *planes, int threads, wc_err *err);

/* Huffman mode: every component's decoder tables, tabs[c * WC_NCLASS +
 * class] (zeroed by the caller: unused tables decode to errors); checks
 * that the WTAB payloads hold nothing else. */
wc_status es_read_tables(const wcx_header *h, const es_input *in, bc_dectab *tabs, wc_err *err);
/* es_read_tables' work for class cls of component c alone, into T (a
 * caller's threads build a colour image's 27 classes at once: filling
 * their look-ups is most of the time, ~0.4 ms a component on one
 * thread). The classes before cls are read for their place in the
 * payload; the last class also checks that nothing follows. Errors
 * name the component and class, but may differ from es_read_tables'
 * for a damaged payload: call that for the message. */
wc_status es_read_class_tables(const es_input *in, uint32_t c, unsigned cls, bc_dectab *T,
                               wc_err *err);
/* es_read_tables as items of a caller's parallel loop (the CUDA decoder
 * runs them beside its payload's staging): item i is class i % WC_NCLASS
 * of component i / WC_NCLASS into tabs[i] (es_read_class_tables); a
 * failure sets `failed`. After the loop es_table_items_end gives WC_OK,
 * or reads a damaged payload again in order for es_read_tables' verdict
 * and message. */
typedef struct es_table_items {
    const es_input *in;
    bc_dectab *tabs;
    int failed;
} es_table_items;
void es_table_item(void *arg, size_t i, int worker);
wc_status es_table_items_end(const wcx_header *h, const es_table_items *t, wc_err *err);
/* es_read_tables with the classes on `threads` workers (es_table_item). */
wc_status es_read_tables_threads(const wcx_header *h, const es_input *in, bc_dectab *tabs,
                                 int threads, wc_err *err);
/* Each block's offset within its component's data, from the index;
 * checks that the sizes cover each component's data exactly. */
wc_status es_block_offsets(const wc_layout *lay, const es_input *in, size_t *offset, wc_err *err);

/* One code block at a time, for a decoder that reads the blocks it needs
 * as it goes (codec/stream_decode.c): the tables read and checked once
 * (es_read_tables), then block i (layout order) from its size coded bytes
 * into dst, rows stride elements apart, with es_decode's messages, by
 * worker 0..workers-1 (each has its own scratch; workers may run at once). */
typedef struct es_block_decoder es_block_decoder;
wc_status es_block_decoder_create(const wcx_header *h, const wc_layout *lay, const es_input *in,
                                  int workers, es_block_decoder **out, wc_err *err);
wc_status es_block_decode(es_block_decoder *d, int worker, size_t i, const uint8_t *src,
                          size_t size, int32_t *dst, size_t stride, wc_err *err);
/* Blocks i[0] and i[1] at once (bc_decode_pair, in turns: faster), with
 * es_block_decode's results and messages. */
wc_status es_block_decode_pair(es_block_decoder *d, int worker, const size_t i[2],
                               const uint8_t *const src[2], const size_t size[2],
                               int32_t *const dst[2], size_t stride, wc_err *err);
/* The bytes a decoder of that many workers holds (tables and scratch). */
size_t es_block_decoder_bytes(const wcx_header *h, int workers);
void es_block_decoder_free(es_block_decoder *d);

/* Names of bands for messages and `wcodec info`: "LL5", "HL2", "DCT(3,1)". */
void es_band_name(const wcx_header *h, const wc_layout *lay, uint32_t c, uint32_t b, char out[16]);

#endif
