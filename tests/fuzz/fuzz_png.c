/*
 * fuzz_png.c -- png_read_src on arbitrary bytes, taken as
 * a PNG file (libpng through image_png.c: signature, the pixel limit checked from IHDR before libpng runs, palette and tRNS expansion, sBIT depths, interlacing).
 *
 * What must hold: no crash, overrun, leak or undefined behaviour; a
 * rejection carries a message; an accepted image is consistent (geometry
 * in range and within the pixel limit, every sample below 2^bit_depth), so
 * the encoder would take it as it is.
 *
 * libpng refuses a critical chunk whose CRC does not match, which is where
 * almost every mutation would end; so when the read fails on a checksum, a
 * copy with every chunk's CRC recomputed is read as well.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_image.h"
#include <zlib.h>

static void read_one(const uint8_t *data, size_t size);

/* Recomputes the CRC of every chunk whose framing fits; 1 if any changed. */
static int fix_crcs(uint8_t *buf, size_t size)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_one(data, size);
    if (size < 8 || memcmp(data, "\x89PNG\r\n\x1a\n", 8) != 0) return 0;
    uint8_t *copy = malloc(size);
    FUZZ_CHECK(copy != NULL, "out of memory");
    memcpy(copy, data, size);
    if (fix_crcs(copy, size)) read_one(copy, size);
    free(copy);
    return 0;
}

static void read_one(const uint8_t *data, size_t size)
{
    wc_image img;
    wc_err err = {{0}};
    wc_status s = fuzz_image_read(png_read_src, data, size, &img, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0] != '\0', "status %d (%s) without a message", (int)s, wc_strerror(s));
        FUZZ_CHECK(img.pixels == NULL, "a failed read left pixels behind");
        return;
    }
    fuzz_image_check(&img);
    wc_free(img.pixels); /* the readers allocate with wc_malloc */
}
