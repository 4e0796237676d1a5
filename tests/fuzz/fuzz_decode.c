/*
 * fuzz_decode.c -- wc_inspect and wc_decode on arbitrary bytes.
 *
 * The input is taken as a .wcx file. Almost every mutation breaks a CRC,
 * which would keep the fuzzer at the container's door, so when the file
 * fails only its checksums a copy with every chunk's CRC recomputed is
 * decoded as well: that copy reaches the header parse, the index and the
 * block decoders with the mutation intact.
 *
 * What must hold, whatever the bytes:
 *  - no crash, overrun, leak or undefined behaviour (the sanitizers);
 *  - a rejection is one of the data errors with a message saying where;
 *  - a file that decodes also inspects, with the same geometry;
 *  - one thread and two threads give the same status and the same pixels;
 *  - the metadata reader (WMET chunks) accepts or names the damage, and
 *    whatever it accepts is within the limits of wcodec.h;
 *  - the header check decode_file (imageio) makes before reading a file's
 *    rest (wc_decode_check_head) refuses only with a data error and a
 *    message;
 *  - a region and a reduced image (wc_decode_region, which reads only the
 *    code blocks they need, so a damaged block elsewhere is never read)
 *    are decoded or refused with a data error, and where the whole image
 *    decoded the region is exactly its crop;
 *  - the decode in strips (wc_decode_stream, reading the file by ranges)
 *    accepts exactly what wc_decode accepts and hands out its rows, in
 *    order, byte for byte; it refuses what wc_decode refuses with a data
 *    error (the first failing block it names may differ: strip order).
 * The limits are near real ones (4 Mpixels, 256 MiB), and .ci/fuzz.sh runs
 * libFuzzer with -malloc_limit_mb=256 to match: a small input that makes
 * the decoder allocate past its own estimate is a finding.
 */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_check.h"
#include "wcodec.h"

#define FUZZ_MAX_PIXELS ((uint64_t)1 << 22)
#define FUZZ_MAX_MEMORY ((uint64_t)256 << 20)

static int is_data_error(wc_status s)
{
    return s == WC_ERR_FORMAT || s == WC_ERR_VERSION || s == WC_ERR_CORRUPT ||
           s == WC_ERR_CHECKSUM || s == WC_ERR_TRUNCATED || s == WC_ERR_LIMIT ||
           s == WC_ERR_UNSUPPORTED;
}

static size_t image_bytes(const wc_image *img) { return (size_t)img->height * img->stride; }

static void meta_one(wc_ctx *ctx, const uint8_t *data, size_t size)
{
    wc_meta *m = wc_meta_create();
    FUZZ_CHECK(m != NULL, "out of memory");
    wc_status s = wc_meta_read(ctx, data, size, m);
    FUZZ_CHECK(s == WC_OK || (is_data_error(s) && wc_ctx_error(ctx)[0]),
               "meta: status %d (%s), message '%s'", (int)s, wc_strerror(s), wc_ctx_error(ctx));
    size_t total = 0;
    for (size_t i = 0; i < wc_meta_count(m); i++) {
        const wc_meta_item *it = wc_meta_get(m, i);
        FUZZ_CHECK(strlen(it->key) <= WC_META_MAX_KEY && it->size <= WC_META_MAX_VALUE,
                   "item %zu over the limits", i);
        total += it->size;
    }
    FUZZ_CHECK(wc_meta_count(m) <= WC_META_MAX_ITEMS && total <= WC_META_MAX_TOTAL,
               "%zu items, %zu bytes", wc_meta_count(m), total);
    wc_meta_free(m);
}

/* A region chosen from the bytes themselves (their CRC), inside the image
 * inspect reported, and a reduce of 0..levels; whole: the full decode, or
 * NULL where it failed. */
static void region_one(wc_ctx *ctx, const wc_params *p, const uint8_t *data, size_t size,
                       const wc_info *info, const wc_image *whole)
{
    const uint32_t h = (uint32_t)crc32(0L, data, (uInt)size);
    const uint32_t W = info->width, H = info->height;
    wc_region r = {h % W, (h >> 8) % H, 0, 0, 0};
    r.width = 1 + (h >> 16) % (W - r.x);
    r.height = 1 + (h >> 24) % (H - r.y);
    wc_image img;
    wc_status s = wc_decode_region(ctx, p, data, size, &r, &img);
    FUZZ_CHECK(s == WC_OK || (is_data_error(s) && wc_ctx_error(ctx)[0]),
               "region %u,%u %ux%u: status %d (%s), message '%s'", r.x, r.y, r.width, r.height,
               (int)s, wc_strerror(s), wc_ctx_error(ctx));
    if (s == WC_OK) {
        FUZZ_CHECK(img.width == r.width && img.height == r.height, "region of the wrong size");
        if (whole) {
            const size_t px = (size_t)whole->components * (whole->bit_depth > 8 ? 2 : 1);
            for (uint32_t y = 0; y < r.height; y++)
                FUZZ_CHECK(memcmp((const uint8_t *)img.pixels + (size_t)y * img.stride,
                                  (const uint8_t *)whole->pixels +
                                      (size_t)(r.y + y) * whole->stride + r.x * px,
                                  r.width * px) == 0,
                           "region %u,%u %ux%u differs from the crop at its row %u", r.x, r.y,
                           r.width, r.height, y);
        }
        wc_image_free(&img);
    } else {
        FUZZ_CHECK(img.pixels == NULL, "a failed region decode left pixels behind");
        FUZZ_CHECK(whole == NULL || s != WC_ERR_CORRUPT,
                   "the whole image decodes, its region is corrupt: %s", wc_ctx_error(ctx));
    }
    wc_region red = {0, 0, 0, 0, info->levels > 0 ? (int)((h >> 4) % (info->levels + 1u)) : 0};
    s = wc_decode_region(ctx, p, data, size, &red, &img);
    FUZZ_CHECK(s == WC_OK || (is_data_error(s) && wc_ctx_error(ctx)[0]),
               "reduce %d: status %d (%s), message '%s'", red.reduce, (int)s, wc_strerror(s),
               wc_ctx_error(ctx));
    if (s == WC_OK) wc_image_free(&img);
}

/* wc_decode_stream's source and sink over the fuzzer's bytes: the rows
 * are compared with the whole decode's as they come. */
typedef struct stream_check {
    const uint8_t *data;
    size_t size;
    const wc_image *whole; /* NULL where wc_decode failed */
    uint32_t next_row;
    int begun, differs;
} stream_check;

static int stream_read(void *user, uint64_t offset, void *dst, size_t n)
{
    const stream_check *c = user;
    if (offset > c->size || n > c->size - offset) return 1;
    memcpy(dst, c->data + offset, n);
    return 0;
}

static wc_status stream_begin(void *user, const wc_image *shape)
{
    stream_check *c = user;
    c->begun = 1;
    if (c->whole &&
        (shape->width != c->whole->width || shape->height != c->whole->height ||
         shape->components != c->whole->components || shape->bit_depth != c->whole->bit_depth))
        c->differs = 1;
    return WC_OK;
}

static wc_status stream_rows(void *user, const wc_image *rows, uint32_t y)
{
    stream_check *c = user;
    if (!c->begun || y != c->next_row) c->differs = 1;
    c->next_row = y + rows->height;
    if (c->whole && !c->differs) {
        /* stride 0: packed rows */
        const size_t rb = wc_image_row_bytes(c->whole);
        const size_t rs = rows->stride ? rows->stride : wc_image_row_bytes(rows);
        const size_t ws = c->whole->stride ? c->whole->stride : rb;
        for (uint32_t r = 0; r < rows->height && !c->differs; r++)
            if (y + r >= c->whole->height ||
                memcmp((const uint8_t *)rows->pixels + (size_t)r * rs,
                       (const uint8_t *)c->whole->pixels + (size_t)(y + r) * ws, rb) != 0)
                c->differs = 1;
    }
    return WC_OK;
}

static void stream_one(wc_ctx *ctx, const wc_params *p, const uint8_t *data, size_t size,
                       wc_status whole_status, const wc_image *whole)
{
    stream_check c = {data, size, whole, 0, 0, 0};
    const wc_stream_source src = {stream_read, &c, size};
    const wc_stream_sink sink = {stream_begin, stream_rows, &c};
    const wc_status s = wc_decode_stream(ctx, p, &src, &sink, NULL);
    FUZZ_CHECK(s == WC_OK || (is_data_error(s) && wc_ctx_error(ctx)[0]),
               "stream: status %d (%s), message '%s'", (int)s, wc_strerror(s), wc_ctx_error(ctx));
    /* The strips need less memory than the whole: a limit may refuse one. */
    const int limited = s == WC_ERR_LIMIT || whole_status == WC_ERR_LIMIT;
    FUZZ_CHECK(limited || (s == WC_OK) == (whole_status == WC_OK),
               "wc_decode says %d (%s), the decode in strips %d: %s", (int)whole_status,
               wc_strerror(whole_status), (int)s, wc_ctx_error(ctx));
    FUZZ_CHECK(!c.differs, "the strips' rows differ from wc_decode's (or come out of order)");
    FUZZ_CHECK(s != WC_OK || !whole || c.next_row == whole->height,
               "the strips end at row %u of %u", c.next_row, whole ? whole->height : 0);
}

static void decode_one(wc_ctx *ctx, const uint8_t *data, size_t size)
{
    meta_one(ctx, data, size);
    wc_info info;
    wc_status si = wc_inspect(ctx, data, size, &info);
    FUZZ_CHECK(si == WC_OK || (is_data_error(si) && wc_ctx_error(ctx)[0]),
               "inspect: status %d (%s), message '%s'", (int)si, wc_strerror(si),
               wc_ctx_error(ctx));

    wc_params p;
    wc_params_init(&p);
    p.max_pixels = FUZZ_MAX_PIXELS;
    p.max_memory = FUZZ_MAX_MEMORY;
    p.threads = 1;
    p.backend = WC_BACKEND_CPU;

    size_t max_file = 0;
    const size_t head = size < WC_DECODE_HEAD_BYTES ? size : WC_DECODE_HEAD_BYTES;
    wc_status sh = wc_decode_check_head(ctx, &p, data, head, size, &max_file);
    FUZZ_CHECK(sh == WC_OK || (is_data_error(sh) && wc_ctx_error(ctx)[0]),
               "head check: status %d (%s), message '%s'", (int)sh, wc_strerror(sh),
               wc_ctx_error(ctx));
    FUZZ_CHECK(sh != WC_OK || max_file >= head,
               "head check allows %zu bytes, fewer than it was given", max_file);
    char head_msg[256];
    snprintf(head_msg, sizeof head_msg, "%s", wc_ctx_error(ctx));

    wc_image img;
    wc_status s = wc_decode(ctx, &p, data, size, &img);
    FUZZ_CHECK(s == WC_OK || (is_data_error(s) && wc_ctx_error(ctx)[0]),
               "decode: status %d (%s), message '%s'", (int)s, wc_strerror(s), wc_ctx_error(ctx));
    if (s != WC_OK) {
        FUZZ_CHECK(img.pixels == NULL, "a failed decode left pixels behind");
        if (si == WC_OK && (uint64_t)info.width * info.height <= FUZZ_MAX_PIXELS) {
            region_one(ctx, &p, data, size, &info, NULL);
            stream_one(ctx, &p, data, size, s, NULL);
        }
        return;
    }
    FUZZ_CHECK(si == WC_OK, "decodes but does not inspect: %s", wc_strerror(si));
    FUZZ_CHECK(sh == WC_OK, "decodes, but the head check refuses: %s", head_msg);
    FUZZ_CHECK(img.width == info.width && img.height == info.height &&
                   img.components == info.components && img.bit_depth == info.bit_depth,
               "decode and inspect disagree on the geometry");
    FUZZ_CHECK((uint64_t)img.width * img.height <= FUZZ_MAX_PIXELS, "pixel limit not applied");

    /* Thread count must not change the result. Checked up to 2^18 pixels:
     * a 2048x2048 decode takes 1.3 s under the sanitizers, and a second
     * one would put inputs at the limits near libFuzzer's timeout. */
    if ((uint64_t)img.width * img.height > ((uint64_t)1 << 18)) {
        wc_image_free(&img);
        return;
    }
    region_one(ctx, &p, data, size, &info, &img);
    stream_one(ctx, &p, data, size, s, &img);
    p.threads = 2;
    wc_image img2;
    wc_status s2 = wc_decode(ctx, &p, data, size, &img2);
    FUZZ_CHECK(s2 == WC_OK, "decodes with 1 thread, not with 2: %s", wc_ctx_error(ctx));
    FUZZ_CHECK(img2.stride == img.stride && memcmp(img.pixels, img2.pixels, image_bytes(&img)) == 0,
               "1 and 2 threads decode different pixels");
    wc_image_free(&img2);
    wc_image_free(&img);
}

/* Recomputes the CRC of every chunk whose framing fits in the buffer;
 * returns 1 if any CRC changed. */
static int fix_crcs(uint8_t *buf, size_t size)
{
    int changed = 0;
    size_t off = 8;
    while (off + 12 <= size) {
        uint32_t len = (uint32_t)buf[off] | (uint32_t)buf[off + 1] << 8 |
                       (uint32_t)buf[off + 2] << 16 | (uint32_t)buf[off + 3] << 24;
        if (len > size - off - 12) break;
        uint8_t *crc_at = buf + off + 8 + len;
        uint32_t crc = (uint32_t)crc32(0L, buf + off + 4, (uInt)len + 4u);
        uint8_t want[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16),
                           (uint8_t)(crc >> 24)};
        if (memcmp(crc_at, want, 4) != 0) {
            memcpy(crc_at, want, 4);
            changed = 1;
        }
        off += 12 + (size_t)len;
    }
    return changed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wc_ctx *ctx;
    if (!ctx) ctx = wc_ctx_create();
    FUZZ_CHECK(ctx != NULL, "no context");
    decode_one(ctx, data, size);
    if (size < 8 || memcmp(data, "\x89WCX\r\n\x1a\n", 8) != 0) return 0;
    uint8_t *copy = malloc(size);
    FUZZ_CHECK(copy != NULL, "out of memory");
    memcpy(copy, data, size);
    if (fix_crcs(copy, size)) decode_one(ctx, copy, size);
    free(copy);
    return 0;
}
