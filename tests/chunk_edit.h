/* chunk_edit.h -- what the damage tests use to edit a .wcx file in place
 * (container/FORMAT.md: a chunk is a 4-byte length, a 4-byte type, the
 * data, then a CRC-32 of type and data). Header-only: only the tests that
 * include it need zlib. */
#ifndef WC_TEST_CHUNK_EDIT_H
#define WC_TEST_CHUNK_EDIT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "wc_common.h"

/* Recomputes the CRC of the chunk at off (after its data was changed). */
static inline void chunk_fix_crc(uint8_t *buf, size_t off)
{
    uint32_t len = wc_rd32le(buf + off);
    wc_wr32le(buf + off + 8 + len, (uint32_t)crc32(0L, buf + off + 4, (uInt)len + 4u));
}

/* The offset of the nth (from 0) chunk of a type, 0 if none. */
static inline size_t chunk_find(const uint8_t *buf, size_t size, const char *type, int nth)
{
    for (size_t off = 8; off + 12 <= size; off += 12 + (size_t)wc_rd32le(buf + off))
        if (memcmp(buf + off + 4, type, 4) == 0 && nth-- == 0) return off;
    return 0;
}

#endif
