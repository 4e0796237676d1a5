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
#include "fuzz_png_crc.h"
#include <zlib.h>

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
    wc_status s = fuzz_image_read(png_read_src, data, size, &img, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0] != '\0', "status %d (%s) without a message", (int)s, wc_strerror(s));
        FUZZ_CHECK(img.pixels == NULL, "a failed read left pixels behind");
        return;
    }
    fuzz_image_check(&img);
    wc_free(img.pixels); /* the readers allocate with wc_malloc */
}
