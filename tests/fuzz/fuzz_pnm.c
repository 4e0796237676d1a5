/*
 * fuzz_pnm.c -- pnm_read_src on arbitrary bytes, taken as
 * a binary PGM/PPM file (image_pnm.c: header fields, comments, maxval, the raster's size and every sample against maxval).
 *
 * What must hold: no crash, overrun, leak or undefined behaviour; a
 * rejection carries a message; an accepted image is consistent (geometry
 * in range and within the pixel limit, every sample below 2^bit_depth), so
 * the encoder would take it as it is.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_image img;
    wc_err err = {{0}};
    wc_status s = fuzz_image_read(pnm_read_src, data, size, &img, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0] != '\0', "status %d (%s) without a message", (int)s, wc_strerror(s));
        FUZZ_CHECK(img.pixels == NULL, "a failed read left pixels behind");
        return 0;
    }
    fuzz_image_check(&img);
    wc_free(img.pixels); /* the readers allocate with wc_malloc */
    return 0;
}
