/*
 * fuzz_image.h -- how fuzz_png, fuzz_pnm and fuzz_tiff call their reader: limits near
 * real ones (4 Mpixels, 256 MiB), with -malloc_limit_mb=256 in .ci/fuzz.sh,
 * so an allocation the header check should have refused is a finding.
 * Odd-sized inputs are read as a regular file (their size is checked
 * against the header's claim), even-sized ones as a pipe (the rows arrive
 * into a growing buffer).
 */
#ifndef WC_FUZZ_IMAGE_H
#define WC_FUZZ_IMAGE_H

#include "fuzz_check.h"
#include "image_io.h"

#define FUZZ_MAX_PIXELS ((uint64_t)1 << 22)
#define FUZZ_MAX_MEMORY ((uint64_t)256 << 20)

typedef wc_status (*fuzz_reader)(const img_source *src, const img_limits *lim, wc_image *img,
                                 wc_err *err);

static inline wc_status fuzz_image_read(fuzz_reader read, const uint8_t *data, size_t size,
                                        wc_image *img, wc_err *err)
{
    img_source src = {data, size, NULL, NULL, (size & 1) ? size : 0};
    img_limits lim = {FUZZ_MAX_PIXELS, FUZZ_MAX_MEMORY, NULL, NULL};
    return read(&src, &lim, img, err);
}

/* What an accepted image must be: geometry in range and within the pixel
 * limit, packed rows, every sample below 2^bit_depth (as the encoder
 * takes it). */
static inline void fuzz_image_check(const wc_image *img)
{
    FUZZ_CHECK(img->width >= 1 && img->height >= 1 &&
                   (uint64_t)img->width * img->height <= FUZZ_MAX_PIXELS,
               "size %ux%u", img->width, img->height);
    FUZZ_CHECK(img->components >= 1 && img->components <= 4, "%u components", img->components);
    FUZZ_CHECK(img->bit_depth >= 1 && img->bit_depth <= 16, "bit depth %u", img->bit_depth);
    const size_t row = (size_t)img->width * img->components * (img->bit_depth > 8 ? 2 : 1);
    FUZZ_CHECK(img->stride == row, "stride %zu for rows of %zu bytes", img->stride, row);
    const size_t n = (size_t)img->width * img->height * img->components;
    const uint32_t maxval = (1u << img->bit_depth) - 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = img->bit_depth > 8 ? ((const uint16_t *)img->pixels)[i]
                                        : ((const uint8_t *)img->pixels)[i];
        FUZZ_CHECK(v <= maxval, "sample %zu is %u, above %u for %u bits", i, v, maxval,
                   img->bit_depth);
    }
}

#endif
