/*
 * fuzz_tiff.c -- tiff_read_mem on arbitrary bytes, taken as a TIFF file
 * (libtiff through image_tiff.c: the layout checks, the claimed size
 * against the limit and the file's bytes, strips and tiles, planar data,
 * the metadata tags), and our writer on whatever it accepts.
 *
 * What must hold: no crash, overrun, leak or undefined behaviour; a
 * rejection carries a message and leaves no pixels; an accepted image is
 * consistent (geometry within the pixel limit, every sample below
 * 2^bit_depth) and writes back as a TIFF that reads back to the same
 * samples.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_image.h"
#include "image_ext.h"

#define FUZZ_MAX_PIXELS ((uint64_t)1 << 18)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_image img;
    wc_err err = {{0}};
    wc_meta *meta = wc_meta_create();
    FUZZ_CHECK(meta != NULL, "out of memory");
    unsigned pages = 0;
    wc_status s = tiff_read_mem(data, size, 1, FUZZ_MAX_PIXELS, &img, meta, &pages, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0] != '\0', "status %d (%s) without a message", (int)s, wc_strerror(s));
        FUZZ_CHECK(img.pixels == NULL, "a failed read left pixels behind");
        wc_meta_free(meta);
        return 0;
    }
    fuzz_check_image(&img, FUZZ_MAX_PIXELS);
    uint8_t *out = NULL;
    size_t out_size = 0;
    wc_err werr = {{0}};
    s = tiff_write_mem(&img, meta, &out, &out_size, NULL, &werr);
    FUZZ_CHECK(s == WC_OK || s == WC_ERR_NOMEM, "write: %s", werr.msg);
    if (s == WC_OK) {
        wc_image back;
        wc_err rerr = {{0}};
        s = tiff_read_mem(out, out_size, 1, FUZZ_MAX_PIXELS, &back, NULL, NULL, &rerr);
        FUZZ_CHECK(s == WC_OK || s == WC_ERR_NOMEM, "our own TIFF does not read: %s", rerr.msg);
        if (s == WC_OK) {
            FUZZ_CHECK(back.bit_depth == img.bit_depth && back.components == img.components &&
                           memcmp(back.pixels, img.pixels, img.stride * img.height) == 0,
                       "written and read back, the samples differ");
            wc_free(back.pixels);
        }
        wc_free(out);
    }
    wc_free(img.pixels);
    wc_meta_free(meta);
    return 0;
}
