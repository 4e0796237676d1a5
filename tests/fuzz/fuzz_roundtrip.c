/*
 * fuzz_roundtrip.c -- encode and decode random small images with
 * parameters taken from the input bytes.
 *
 * Input: 6 parameter bytes (size, components and depth, then three of
 * coding choices, see choose_params; sizes are capped at FUZZ_MAX_AREA
 * pixels), 3 bytes choosing the pixel source
 * and its seed, then raw sample bytes (see make_image). Every
 * combination the API accepts is reachable: lossless or lossy; DWT 5/3 or
 * 9/7, DCT or LOT; Huffman or deflate (levels 1..9); code blocks of 16 to
 * 128; 0 to 15 levels; quality, step, bpp target (rate control) and
 * threshold; 1 to 4 components of 1 to 16 bits.
 *
 * What must hold:
 *  - encoding never fails on valid parameters (but for a bpp target that
 *    cannot be reached);
 *  - the output is a function of image and parameters: a second encode
 *    with another thread count gives the same bytes;
 *  - it fits wc_encode_bound, and wc_encode with exactly its size works
 *    and with one byte less says WC_ERR_BUFFER (for a quarter of inputs);
 *  - it decodes; lossless decodes to the exact samples, lossy to an image
 *    of the same geometry.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "wcodec.h"

/* Sides of 1 to 64 samples, and at most 2048 pixels: the height of a
 * larger image is cut to 2048 / width (64x64 becomes 64x32). Every path
 * stays reachable: every width and height from 1 to 64 (1xN, Nx1, the
 * primes up to 61); a band holding several code blocks of 16 or 32 and a
 * full-width one of 64 (levels 0); 128-sample blocks, as before, only
 * larger than their band; up to 6 DWT levels as before (the longer side
 * sets the count: 64x32 has 6) and more asked than the image allows;
 * every transform, mode, depth and component count; and Huffman codes
 * longer than the decoders' fast tables, which need many samples in one
 * table: a corpus grown for 10 minutes reaches the same edges under this
 * cap as without it, and under a cap of 1024 lost those long-code paths.
 * The per-sample work (coding, transforms, a bpp target's twenty-odd
 * probes) was half of each run on that corpus. */
#define FUZZ_MAX_SIDE 64
#define FUZZ_MAX_AREA 2048

/* Fills img from the rest of the input: raw bytes cycled, a seeded
 * xorshift noise, a gradient with noise, or a constant; samples are masked
 * to the bit depth (which may leave a raw byte stream mostly zero: fine). */
static void make_image(fuzz_bytes *b, wc_image *img)
{
    const size_t n = (size_t)img->width * img->height * img->components;
    const uint32_t mask = (1u << img->bit_depth) - 1;
    const uint8_t kind = fuzz_u8(b) % 4;
    uint64_t x = 0x9E3779B97F4A7C15ull ^ fuzz_u16(b);
    const uint8_t *raw = b->p;
    const size_t nraw = b->left;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t v;
        switch (kind) {
        case 0:
            v = nraw ? (uint32_t)raw[i % nraw] | (uint32_t)raw[(i * 7 + 1) % nraw] << 8 : 0;
            break;
        case 1: v = (uint32_t)x; break;
        case 2:
            v = (uint32_t)(i % (img->width * img->components)) * 97u + (uint32_t)(x & 15);
            break;
        default: v = nraw ? raw[0] * 0x0101u : 0; break;
        }
        v &= mask;
        if (img->bit_depth > 8)
            ((uint16_t *)img->pixels)[i] = (uint16_t)v;
        else
            ((uint8_t *)img->pixels)[i] = (uint8_t)v;
    }
}

static void choose_params(fuzz_bytes *b, wc_params *p)
{
    static const int blocks[4] = {16, 32, 64, 128};
    uint8_t f = fuzz_u8(b), g = fuzz_u8(b), q = fuzz_u8(b);
    p->lossless = f & 1;
    p->entropy = (f >> 1) & 1 ? WC_ENTROPY_DEFLATE : WC_ENTROPY_HUFFMAN;
    p->block_size = blocks[(f >> 2) & 3];
    p->levels = (f >> 4) & 15;
    p->deflate_level = 1 + g % 9;
    p->threads = 1;
    p->backend = WC_BACKEND_CPU;
    if (p->lossless) {
        p->wavelet = (g >> 4) & 1 ? 53 : 0;
        /* 0 levels may take filtered deflate (entropy 4, format 2.0) */
        if (p->levels == 0 && (g >> 5) & 1) p->entropy = WC_ENTROPY_FILTERED;
        return;
    }
    p->transform = (wc_transform)((g >> 4) % 3);
    p->wavelet = (g >> 6) & 1 ? 53 : 97;
    switch (q & 3) {
    case 0: p->quality = 1.0f + (float)(q >> 2) * (99.0f / 63.0f); break;
    case 1: p->step = 0.05f * (float)(1 + (q >> 2)) * (float)(1 + (q >> 2)); break;
    case 2: p->bpp = 0.05f + (float)(q >> 2) * 0.1f; break;
    default: break; /* the default quality */
    }
    if ((g >> 7) & 1) p->threshold = (float)(q >> 4);
}

static void roundtrip(const wc_params *p, const wc_image *img)
{
    static wc_ctx *ctx;
    if (!ctx) ctx = wc_ctx_create();
    FUZZ_CHECK(ctx != NULL, "no context");

    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    wc_status s = wc_encode_alloc(ctx, p, img, &a, &na);
    /* A bits-per-pixel target below what the coarsest step reaches is
     * refused (the headers alone can exceed a tiny image's budget). */
    if (p->bpp > 0 && s == WC_ERR_ARG) return;
    FUZZ_CHECK(s == WC_OK, "encode: %s: %s", wc_strerror(s), wc_ctx_error(ctx));
    size_t bound = wc_encode_bound(img, p);
    FUZZ_CHECK(na <= bound, "%zu bytes exceed the bound %zu", na, bound);

    /* Two more checks, each on a quarter of the inputs (chosen by size)
     * to keep the target above 200 executions a second: a second encode
     * with two threads gives the same bytes; into a caller's buffer,
     * exactly the size fits and one byte less does not. */
    if (((img->width ^ img->height) & 3) == 1) {
        wc_params p2 = *p;
        p2.threads = 2;
        s = wc_encode_alloc(ctx, &p2, img, &b, &nb);
        FUZZ_CHECK(s == WC_OK, "second encode: %s: %s", wc_strerror(s), wc_ctx_error(ctx));
        FUZZ_CHECK(na == nb && memcmp(a, b, na) == 0, "two encodes differ (%zu vs %zu bytes)", na,
                   nb);
    }
    if (((img->width ^ img->height) & 3) == 0) {
        size_t written = 0;
        b = malloc(na);
        FUZZ_CHECK(b != NULL, "out of memory");
        s = wc_encode(ctx, p, img, b, na, &written);
        FUZZ_CHECK(s == WC_OK && written == na && memcmp(a, b, na) == 0,
                   "wc_encode into %zu bytes: %s", na, wc_strerror(s));
        s = wc_encode(ctx, p, img, b, na - 1, &written);
        FUZZ_CHECK(s == WC_ERR_BUFFER, "wc_encode into %zu bytes gave %s", na - 1, wc_strerror(s));
    }
    free(b);

    wc_image out;
    s = wc_decode(ctx, p, a, na, &out);
    FUZZ_CHECK(s == WC_OK, "decode: %s: %s", wc_strerror(s), wc_ctx_error(ctx));
    FUZZ_CHECK(out.width == img->width && out.height == img->height &&
                   out.components == img->components && out.bit_depth == img->bit_depth,
               "decoded %ux%u x%u %u-bit, encoded %ux%u x%u %u-bit", out.width, out.height,
               out.components, out.bit_depth, img->width, img->height, img->components,
               img->bit_depth);
    if (p->lossless)
        FUZZ_CHECK(memcmp(out.pixels, img->pixels, img->stride * img->height) == 0,
                   "lossless round trip is not exact");
    wc_image_free(&out);
    free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes in = {data, size};
    wc_image img = {0};
    img.width = 1u + fuzz_u8(&in) % FUZZ_MAX_SIDE;
    img.height = 1u + fuzz_u8(&in) % FUZZ_MAX_SIDE;
    if (img.width * img.height > FUZZ_MAX_AREA) img.height = FUZZ_MAX_AREA / img.width;
    uint8_t cd = fuzz_u8(&in);
    img.components = 1u + cd % 4;
    img.bit_depth = 1u + (cd >> 2) % 16;
    wc_params p;
    wc_params_init(&p);
    choose_params(&in, &p);
    FUZZ_CHECK(wc_image_alloc(&img) == WC_OK, "image allocation");
    make_image(&in, &img);
    roundtrip(&p, &img);
    wc_image_free(&img);
    return 0;
}
