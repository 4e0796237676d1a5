/*
 * file_head.h -- the chunks of a .wcx file ahead of its data, in
 * FORMAT.md's order, written once for both encoders: the whole-image one
 * (encoder.c), which writes its data chunks from memory after them, and
 * the one by rows (stream_encoder.c), which streams them from its store.
 */
#ifndef WC_FILE_HEAD_H
#define WC_FILE_HEAD_H

#include <stddef.h>
#include <stdint.h>

#include "container.h"
#include "wcodec.h"

typedef struct file_head {
    const wcx_header *h;        /* the record WHDR carries */
    const uint8_t *wpal;        /* the WPAL payload (colour 3), or NULL */
    size_t wpal_size;           /* its bytes */
    const wc_meta *meta;        /* a WMET chunk an item, or NULL */
    unsigned planes;            /* coded components: one WTAB each (entropies with tables) */
    uint8_t *const *tables;     /* their payloads */
    const size_t *table_size;   /* and sizes */
    const uint32_t *block_size; /* every code block's size, for WIDX (all but entropy 4, */
    size_t nblocks;             /* whose WDAT chunks are each their one block) */
    size_t index_size;          /* block_size NULL: WIDX's bytes (es_output.index_size) */
} file_head;

/* Bytes of the magic and the chunks below (block_size NULL: with
 * index_size for WIDX; file_head_put needs block_size). */
size_t file_head_bytes(const file_head *f);
/* Writes WHDR, WPAL, the WMET chunks, the WTAB chunks and WIDX after the
 * magic that wcx_writer_init wrote. */
void file_head_put(wcx_writer *w, const file_head *f);

#endif /* WC_FILE_HEAD_H */
