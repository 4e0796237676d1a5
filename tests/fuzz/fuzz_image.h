/* fuzz_image.h -- what every image reader's output must satisfy: geometry
 * within the pixel limit, 1..4 components, 1..16 bits, rows tightly
 * packed, every sample below 2^bit_depth (so the encoder takes it as it
 * is). fuzz_png.c and fuzz_pnm.c check the same inline. */
#ifndef WC_FUZZ_IMAGE_H
#define WC_FUZZ_IMAGE_H

#include "fuzz_check.h"
#include "wc_common.h"

static inline void fuzz_check_image(const wc_image *img, uint64_t max_pixels)
{
    FUZZ_CHECK(img->width >= 1 && img->height >= 1 &&
                   (uint64_t)img->width * img->height <= max_pixels,
               "size %ux%u", img->width, img->height);
    FUZZ_CHECK(img->components >= 1 && img->components <= 4, "%u components", img->components);
    FUZZ_CHECK(img->bit_depth >= 1 && img->bit_depth <= 16, "bit depth %u", img->bit_depth);
    FUZZ_CHECK(img->stride == wc_image_row_bytes(img), "stride %zu for rows of %zu bytes",
               img->stride, wc_image_row_bytes(img));
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
