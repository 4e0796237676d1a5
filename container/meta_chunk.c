/*
 * meta_chunk.c -- the WMET chunk: one metadata item per chunk (FORMAT.md,
 * "WMET"). Framing and bounds only; what a kind's value means is the
 * codec's (codec/meta.c).
 */
#include <string.h>

#include "container.h"

size_t wcx_meta_chunk_size(size_t key_len, size_t value_size)
{
    return WCX_CHUNK_OVERHEAD + WCX_META_FIXED + key_len + value_size;
}

void wcx_meta_put(wcx_writer *w, const wcx_meta_item *it)
{
    uint8_t head[WCX_META_FIXED] = {it->kind, it->flags, it->key_len};
    wcx_chunk_begin(w, WCX_WMET);
    wcx_write(w, head, sizeof head);
    wcx_write(w, it->key, it->key_len);
    wcx_write(w, it->value, it->size);
    wcx_chunk_end(w);
}

wc_status wcx_meta_parse(const wcx_chunk *k, wcx_meta_item *it, wc_err *err)
{
    memset(it, 0, sizeof *it);
    WC_RETURN_IF(k->size < WCX_META_FIXED, err, WC_ERR_CORRUPT,
                 "chunk %u (WMET) at byte %zu: %u bytes, less than the %u of its fields", k->index,
                 k->offset, (unsigned)k->size, (unsigned)WCX_META_FIXED);
    it->kind = k->data[0];
    it->flags = k->data[1];
    it->key_len = k->data[2];
    WC_RETURN_IF(it->key_len > WCX_META_MAX_KEY, err, WC_ERR_CORRUPT,
                 "chunk %u (WMET) at byte %zu: a %u-byte key (at most %u)", k->index, k->offset,
                 (unsigned)it->key_len, (unsigned)WCX_META_MAX_KEY);
    WC_RETURN_IF(k->size - WCX_META_FIXED < it->key_len, err, WC_ERR_CORRUPT,
                 "chunk %u (WMET) at byte %zu: the %u-byte key runs past the chunk", k->index,
                 k->offset, (unsigned)it->key_len);
    it->key = k->data + WCX_META_FIXED;
    WC_RETURN_IF(memchr(it->key, 0, it->key_len) != NULL, err, WC_ERR_CORRUPT,
                 "chunk %u (WMET) at byte %zu: a NUL byte in the key", k->index, k->offset);
    it->value = it->key + it->key_len;
    it->size = k->size - WCX_META_FIXED - it->key_len;
    WC_RETURN_IF(it->size > WCX_META_MAX_VALUE, err, WC_ERR_LIMIT,
                 "chunk %u (WMET) at byte %zu: a %u-byte value (at most %u)", k->index, k->offset,
                 (unsigned)it->size, (unsigned)WCX_META_MAX_VALUE);
    return WC_OK;
}
