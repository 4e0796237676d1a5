/*
 * fuzz_rows.c -- img_rows_open/img_rows_read (imageio/image_rows.c, PNG
 * through png_in_rows in image_png.c, TIFF through tiff_in_rows in
 * image_tiff.c, PGM/PPM) on arbitrary bytes in a
 * regular file: the input of encoding by rows.
 *
 * What must hold: no crash, overrun, leak or undefined behaviour; a
 * rejection carries a message; every sample read is below 2^bit_depth;
 * a rewind gives the first row again; and where the whole-image reader
 * (image_read) also takes the file, every row equals its row.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "fuzz_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/wc_fuzz_rows_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return 0;
    FILE *fp = fdopen(fd, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size)) {
        if (fp) fclose(fp);
        unlink(path);
        return 0;
    }
    fclose(fp);
    wc_image shape;
    img_rows *r = NULL;
    wc_err err = {{0}};
    wc_status s = img_rows_open(path, &shape, &r, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0] != '\0', "status %d without a message", (int)s);
        FUZZ_CHECK(r == NULL, "a failed open left a reader");
        unlink(path);
        return 0;
    }
    wc_image whole = {0};
    wc_err werr = {{0}};
    const int have_whole = image_read(path, FUZZ_MAX_PIXELS, &whole, &werr) == WC_OK;
    const size_t rb = wc_image_row_bytes(&shape);
    /* Row buffers only: a wide row is what the reader holds anyway. */
    uint8_t *row = rb <= FUZZ_MAX_MEMORY / 4 ? malloc(rb) : NULL;
    uint8_t *first = row ? malloc(rb) : NULL;
    const uint32_t rows = shape.height < 64 ? shape.height : 64;
    const uint32_t maxval = (1u << shape.bit_depth) - 1;
    int all = row != NULL && first != NULL;
    for (uint32_t y = 0; all && y < rows; y++) {
        if (img_rows_read(r, row) != WC_OK) {
            FUZZ_CHECK(img_rows_error(r)[0] != '\0', "a failed row without a message");
            all = 0;
            break;
        }
        for (size_t i = 0; i < (size_t)shape.width * shape.components; i++) {
            const uint32_t v = shape.bit_depth > 8 ? ((const uint16_t *)(void *)row)[i] : row[i];
            FUZZ_CHECK(v <= maxval, "row %u sample %zu is %u, above %u", y, i, v, maxval);
        }
        if (y == 0) memcpy(first, row, rb);
        if (have_whole && whole.width == shape.width && whole.components == shape.components &&
            whole.bit_depth == shape.bit_depth)
            FUZZ_CHECK(!memcmp(row, (const uint8_t *)whole.pixels + (size_t)y * whole.stride, rb),
                       "row %u differs from the whole read's", y);
    }
    if (all && rows > 0 && img_rows_rewind(r) == WC_OK && img_rows_read(r, row) == WC_OK)
        FUZZ_CHECK(!memcmp(row, first, rb), "the first row differs after a rewind");
    free(row);
    free(first);
    wc_image_free(&whole);
    img_rows_close(r);
    unlink(path);
    return 0;
}
