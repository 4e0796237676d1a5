/* fuzz_png_crc.h -- the PNG targets' driver: libpng and the metadata
 * reader stop at a chunk whose CRC does not match, which is where almost
 * every mutation would end; so an input that is a PNG is read as it is
 * and, when that changes anything, with every chunk's CRC recomputed. */
#ifndef WC_FUZZ_PNG_CRC_H
#define WC_FUZZ_PNG_CRC_H

#include <string.h>
#include <zlib.h>

#include "fuzz_check.h"

/* Recomputes the CRC of every chunk whose framing fits; 1 if any changed. */
static inline int fuzz_png_fix_crcs(uint8_t *buf, size_t size)
{
    int changed = 0;
    size_t off = 8;
    while (off + 12 <= size) {
        uint32_t len = (uint32_t)buf[off] << 24 | (uint32_t)buf[off + 1] << 16 |
                       (uint32_t)buf[off + 2] << 8 | buf[off + 3];
        if (len > size - off - 12) break;
        uint32_t crc = (uint32_t)crc32(0L, buf + off + 4, (uInt)len + 4u);
        uint8_t want[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8),
                           (uint8_t)crc};
        if (memcmp(buf + off + 8 + len, want, 4) != 0) {
            memcpy(buf + off + 8 + len, want, 4);
            changed = 1;
        }
        off += 12 + (size_t)len;
    }
    return changed;
}

/* read(data) and, for a PNG, read(the copy with its CRCs repaired). */
static inline void fuzz_png_both(const uint8_t *data, size_t size,
                                 void (*read)(const uint8_t *, size_t))
{
    read(data, size);
    if (size < 8 || memcmp(data, "\x89PNG\r\n\x1a\n", 8) != 0) return;
    uint8_t *copy = malloc(size);
    FUZZ_CHECK(copy != NULL, "out of memory");
    memcpy(copy, data, size);
    if (fuzz_png_fix_crcs(copy, size)) read(copy, size);
    free(copy);
}

#endif
