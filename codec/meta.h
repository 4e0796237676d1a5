/* meta.h -- the encoder's side of metadata (meta.c): WMET chunks. */
#ifndef WC_META_H
#define WC_META_H

#include "container.h"

/* Bytes the WMET chunks of m take in a file (0 for NULL). */
size_t meta_file_bytes(const wc_meta *m);
/* Writes one WMET chunk per item of m, in order (nothing for NULL). */
void meta_put_chunks(wcx_writer *w, const wc_meta *m);
/* Appends the items of the WMET chunks of a checked chunk list to m
 * (wc_meta_read's rules; the streaming decoder's list too). */
wc_status meta_from_chunks(const wcx_chunk *chunks, size_t n, wc_meta *m, wc_err *err);

#endif
