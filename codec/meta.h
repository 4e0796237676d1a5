/* meta.h -- the encoder's side of metadata (meta.c): WMET chunks. */
#ifndef WC_META_H
#define WC_META_H

#include "container.h"

/* Bytes the WMET chunks of m take in a file (0 for NULL). */
size_t meta_file_bytes(const wc_meta *m);
/* Writes one WMET chunk per item of m, in order (nothing for NULL). */
void meta_put_chunks(wcx_writer *w, const wc_meta *m);

#endif
