/*
 * fuzz_png.c -- png_read_mem on arbitrary bytes, taken as
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
#include "fuzz_png_crc.h"
#include "image_io.h"
#include <zlib.h>

#define FUZZ_MAX_PIXELS ((uint64_t)1 << 18)

static void read_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_png_both(data, size, read_one);
    return 0;
}

static void read_one(const uint8_t *data, size_t size)
{
    wc_image img;
    wc_err err = {{0}};
    wc_status s = png_read_mem(data, size, FUZZ_MAX_PIXELS, &img, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0] != '\0', "status %d (%s) without a message", (int)s, wc_strerror(s));
        FUZZ_CHECK(img.pixels == NULL, "a failed read left pixels behind");
        return;
    }
    FUZZ_CHECK(img.width >= 1 && img.height >= 1 &&
                   (uint64_t)img.width * img.height <= FUZZ_MAX_PIXELS,
               "size %ux%u", img.width, img.height);
    FUZZ_CHECK(img.components >= 1 && img.components <= 4, "%u components", img.components);
    FUZZ_CHECK(img.bit_depth >= 1 && img.bit_depth <= 16, "bit depth %u", img.bit_depth);
    const size_t row = (size_t)img.width * img.components * (img.bit_depth > 8 ? 2 : 1);
    FUZZ_CHECK(img.stride == row, "stride %zu for rows of %zu bytes", img.stride, row);
    const size_t n = (size_t)img.width * img.height * img.components;
    const uint32_t maxval = (1u << img.bit_depth) - 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = img.bit_depth > 8 ? ((const uint16_t *)img.pixels)[i]
                                       : ((const uint8_t *)img.pixels)[i];
        FUZZ_CHECK(v <= maxval, "sample %zu is %u, above %u for %u bits", i, v, maxval,
                   img.bit_depth);
    }
    wc_free(img.pixels); /* the readers allocate with wc_malloc */
}
