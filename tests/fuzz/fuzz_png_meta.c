/*
 * fuzz_png_meta.c -- png_meta_read on arbitrary bytes, taken as a PNG file
 * (codec/image_meta_png.c: the chunk walk, CRCs, keywords, the inflation of
 * iCCP, zTXt and compressed iTXt, the fixed-size chunks), then
 * png_meta_insert of what it accepted into a small PNG and a second read.
 *
 * What must hold: no crash, overrun, leak or undefined behaviour; a
 * rejection carries a message; what is accepted is within wcodec.h's
 * limits, and written back and read again it gives the same items (a
 * resolution PNG cannot hold may be refused, with a message).
 *
 * As in fuzz_png, a copy with every chunk's CRC recomputed is read too, so
 * mutations reach the chunk contents.
 */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_check.h"
#include "fuzz_png_crc.h"
#include "image_io.h"

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A valid 1x1 gray PNG: signature, IHDR, IDAT, IEND. */
static size_t base_png(uint8_t *out)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const uint8_t ihdr[13] = {0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0};
    uint8_t raw[2] = {0, 0}, z[64];
    uLongf zn = sizeof z;
    FUZZ_CHECK(compress2(z, &zn, raw, 2, 9) == Z_OK, "zlib");
    size_t n = 0;
    memcpy(out, sig, 8);
    n = 8;
    const struct {
        const char *type;
        const uint8_t *data;
        size_t size;
    } chunks[3] = {{"IHDR", ihdr, 13}, {"IDAT", z, zn}, {"IEND", NULL, 0}};
    for (int i = 0; i < 3; i++) {
        put_be32(out + n, (uint32_t)chunks[i].size);
        memcpy(out + n + 4, chunks[i].type, 4);
        if (chunks[i].size) memcpy(out + n + 8, chunks[i].data, chunks[i].size);
        put_be32(out + n + 8 + chunks[i].size,
                 (uint32_t)crc32(0, out + n + 4, (uInt)chunks[i].size + 4));
        n += 12 + chunks[i].size;
    }
    return n;
}

static void read_one(const uint8_t *data, size_t size)
{
    wc_meta *m = wc_meta_create();
    FUZZ_CHECK(m != NULL, "out of memory");
    wc_err err = {{0}};
    wc_status s = png_meta_read(data, size, m, &err);
    if (s != WC_OK) {
        FUZZ_CHECK(err.msg[0] != '\0', "status %d (%s) without a message", (int)s, wc_strerror(s));
        wc_meta_free(m);
        return;
    }
    uint8_t base[128], *png = NULL;
    size_t bn = base_png(base), pn = 0;
    wc_err ierr = {{0}};
    s = png_meta_insert(base, bn, m, &png, &pn, &ierr);
    FUZZ_CHECK(s == WC_OK || ((s == WC_ERR_UNSUPPORTED || s == WC_ERR_NOMEM) && ierr.msg[0]),
               "insert: %s", ierr.msg);
    if (s == WC_OK) {
        wc_meta *back = wc_meta_create();
        wc_err rerr = {{0}};
        s = png_meta_read(png, pn, back, &rerr);
        FUZZ_CHECK(s == WC_OK, "our own chunks do not read back: %s", rerr.msg);
        FUZZ_CHECK(wc_meta_count(back) == wc_meta_count(m), "%zu items back of %zu",
                   wc_meta_count(back), wc_meta_count(m));
        for (size_t i = 0; i < wc_meta_count(m); i++) {
            const wc_meta_item *a = wc_meta_get(m, i), *b = wc_meta_get(back, i);
            FUZZ_CHECK(a->kind == b->kind && a->flags == b->flags && !strcmp(a->key, b->key) &&
                           a->size == b->size && !memcmp(a->data, b->data, a->size),
                       "item %zu (%s) changed on the way back", i, wc_meta_kind_name(a->kind));
        }
        wc_meta_free(back);
        wc_free(png);
    }
    wc_meta_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_png_both(data, size, read_one);
    return 0;
}
