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
#include "image_io.h"

/* Near real limits (4 Mpixels, 256 MiB), with -malloc_limit_mb=256 in
 * .ci/fuzz.sh: an allocation the header check should have refused is a
 * finding. Odd-sized inputs are read as a regular file (their size is
 * checked against the header's claim), even-sized ones as a pipe (the
 * rows arrive into a growing buffer). */
#define FUZZ_MAX_PIXELS ((uint64_t)1 << 22)
#define FUZZ_MAX_MEMORY ((uint64_t)256 << 20)

static wc_status fuzz_read(const uint8_t *data, size_t size, wc_image *img, wc_err *err)
{
    img_source src = {data, size, NULL, NULL, (size & 1) ? size : 0};
    img_limits lim = {FUZZ_MAX_PIXELS, FUZZ_MAX_MEMORY, NULL, NULL};
    return pnm_read_src(&src, &lim, img, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_image img;
    wc_err err = {{0}};
    wc_status s = fuzz_read(data, size, &img, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0] != '\0', "status %d (%s) without a message", (int)s, wc_strerror(s));
        FUZZ_CHECK(img.pixels == NULL, "a failed read left pixels behind");
        return 0;
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
    return 0;
}
