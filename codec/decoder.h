/* decoder.h -- what the file helpers need from the decoder (internal). */
#ifndef WC_DECODER_H
#define WC_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "wc_common.h"

/* wc_decode_file reads this much first: the signature and header chunk. */
#define DECODE_HEAD_MAX ((size_t)4096)

/* Checks the first n bytes of a .wcx file before the rest is read: the
 * signature, then -- when n == DECODE_HEAD_MAX, so more may follow -- the
 * header chunk (framing, CRC, fields) and p's pixel and memory limits, with
 * file_size (a regular file's size, else 0) counted as memory. Sets
 * *max_file to the most bytes the whole file may have under the limits. */
wc_status decode_check_head(const uint8_t *head, size_t n, uint64_t file_size, const wc_params *p,
                            size_t *max_file, wc_err *err);

#endif
