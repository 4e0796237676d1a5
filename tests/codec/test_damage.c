/*
 * test_damage.c -- damaged files and failed allocations through the public
 * API (wc_decode, wc_inspect, wc_encode).
 *
 * For small files of several coding modes, made here:
 *  - every truncation and every single-bit flip is refused with a data
 *    error and a message (never WC_OK, never a crash; a flip inside a
 *    chunk's type, data or CRC is a CRC mismatch naming the chunk);
 *  - damage behind intact CRCs is refused with a message naming the place
 *    ("component 0, subband HL1, block 2: ...");
 *  - every allocation of an encode and of a decode failing in turn gives
 *    WC_ERR_NOMEM and leaves nothing allocated (the sanitizer build's
 *    LeakSanitizer checks the latter), and the call then succeeds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "wc_common.h"
#include "chunk_edit.h"
#include "test_support.h"
#include "wcodec.h"

typedef struct damage_case {
    const char *name;
    uint32_t w, h, comps, depth;
    int lossless, transform, wavelet, entropy, block, levels;
    float quality, bpp;
} damage_case;

static const damage_case cases[] = {
    {"lossless RGB", 21, 17, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_HUFFMAN, 16, 3, 0, 0},
    {"lossy 9/7 gray+alpha", 19, 23, 2, 8, 0, WC_TRANSFORM_DWT, 97, WC_ENTROPY_HUFFMAN, 16, 2, 70,
     0},
    {"deflate RGBA 12-bit", 14, 11, 4, 12, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_DEFLATE, 32, 2, 0,
     0},
    {"DCT RGB", 16, 16, 3, 8, 0, WC_TRANSFORM_DCT, 97, WC_ENTROPY_HUFFMAN, 16, 0, 60, 0},
    {"LOT gray, deflate", 16, 8, 1, 8, 0, WC_TRANSFORM_LOT, 97, WC_ENTROPY_DEFLATE, 16, 0, 50, 0},
    /* Format 2.0: code blocks of several 32x16 tiles (lengths, sub-streams). */
    {"tiles lossless gray 10-bit", 45, 37, 1, 10, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_HUFFMAN_TILES,
     64, 1, 0, 0},
    {"tiles lossy 9/7 RGB", 40, 20, 3, 8, 0, WC_TRANSFORM_DWT, 97, WC_ENTROPY_HUFFMAN_TILES, 64, 1,
     85, 0},
    /* Format 2.0: filtered deflate, a plane a block (packing, filters). */
    {"filtered gray+alpha 16-bit", 23, 13, 2, 16, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_FILTERED, 16,
     0, 0, 0},
    /* Format 2.0: small files of entropy 4 as one WONE chunk: a 1x1 pixel
     * (the automatic layout: a palette, WPAL inside), a row of RGB. */
    {"WONE palette 1x1", 1, 1, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_HUFFMAN, 64,
     WC_LEVELS_AUTO, 0, 0},
    {"WONE filtered RGB 37x1", 37, 1, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_FILTERED, 16, 0, 0,
     0},
    /* Format 2.0: arithmetic coding (entropy 3), no tables. */
    {"arith lossless RGB", 21, 17, 3, 8, 1, WC_TRANSFORM_DWT, 53, WC_ENTROPY_ARITH, 16, 3, 0, 0},
    {"arith lossy 9/7 gray 12-bit", 30, 19, 1, 12, 0, WC_TRANSFORM_DWT, 97, WC_ENTROPY_ARITH, 32, 2,
     70, 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

static void make_image(const damage_case *c, wc_image *img)
{
    memset(img, 0, sizeof *img);
    img->width = c->w;
    img->height = c->h;
    img->components = c->comps;
    img->bit_depth = c->depth;
    assert_int_equal(wc_image_alloc(img), WC_OK);
    test_rng r;
    test_rng_seed(&r, c->w * 1000u + c->h);
    const uint32_t mask = (1u << c->depth) - 1;
    for (size_t i = 0; i < (size_t)c->w * c->h * c->comps; i++) {
        size_t x = i / c->comps % c->w, y = i / c->comps / c->w;
        uint32_t v = ((uint32_t)(x * 9 + y * 5) * (mask + 1) / 256 + test_rng_u32(&r) % 5) & mask;
        if (c->depth > 8)
            ((uint16_t *)img->pixels)[i] = (uint16_t)v;
        else
            ((uint8_t *)img->pixels)[i] = (uint8_t)v;
    }
}

static void case_params(const damage_case *c, wc_params *p)
{
    wc_params_init(p);
    p->lossless = c->lossless;
    p->transform = (wc_transform)c->transform;
    p->wavelet = c->wavelet;
    p->entropy = (wc_entropy)c->entropy;
    p->block_size = c->block;
    p->levels = c->levels;
    p->quality = c->quality;
    p->bpp = c->bpp;
    p->threads = 1; /* the failure injector counts this thread's allocations */
    p->backend = WC_BACKEND_CPU;
}

static uint8_t *encode_case(wc_ctx *ctx, const damage_case *c, size_t *size, wc_image *img)
{
    wc_params p;
    case_params(c, &p);
    make_image(c, img);
    void *buf = NULL;
    assert_int_equal(wc_encode_alloc(ctx, &p, img, &buf, size), WC_OK);
    return buf;
}

static int is_data_error(wc_status s)
{
    return s == WC_ERR_FORMAT || s == WC_ERR_VERSION || s == WC_ERR_CORRUPT ||
           s == WC_ERR_CHECKSUM || s == WC_ERR_TRUNCATED || s == WC_ERR_LIMIT;
}

/* Decodes and inspects a damaged file: both must refuse it with a data
 * error and a message, and leave no image behind. Returns the status. */
static wc_status expect_refused(wc_ctx *ctx, const uint8_t *buf, size_t size, const char *what,
                                size_t where)
{
    wc_params p;
    wc_params_init(&p);
    p.threads = 1;
    p.backend = WC_BACKEND_CPU;
    wc_image out;
    wc_status s = wc_decode(ctx, &p, buf, size, &out);
    if (s == WC_OK || !is_data_error(s) || wc_ctx_error(ctx)[0] == '\0')
        fail_msg("%s at %zu: decode gave %s ('%s')", what, where, wc_strerror(s),
                 wc_ctx_error(ctx));
    assert_null(out.pixels);
    wc_info info;
    wc_status si = wc_inspect(ctx, buf, size, &info);
    if (si == WC_OK || !is_data_error(si) || wc_ctx_error(ctx)[0] == '\0')
        fail_msg("%s at %zu: inspect gave %s ('%s')", what, where, wc_strerror(si),
                 wc_ctx_error(ctx));
    return s;
}

static void test_truncations(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    for (size_t k = 0; k < NCASES; k++) {
        wc_image img;
        size_t size;
        uint8_t *buf = encode_case(ctx, &cases[k], &size, &img);
        /* Each prefix in a buffer of its own size, so a read past the cut
         * is a read past the allocation (ASan sees it). */
        for (size_t n = 0; n < size; n++) {
            uint8_t *cut = malloc(n ? n : 1);
            assert_non_null(cut);
            memcpy(cut, buf, n);
            wc_status s = expect_refused(ctx, cut, n, cases[k].name, n);
            if (n >= 8) assert_int_equal(s, WC_ERR_TRUNCATED);
            free(cut);
        }
        free(buf);
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* Byte ranges of the file: 0 the magic, 1 a chunk's length, 2 a chunk's
 * type, data or CRC (what the CRC covers or is). */
static void classify(const uint8_t *buf, size_t size, uint8_t *kind)
{
    memset(kind, 0, 8);
    size_t off = 8;
    while (off + 12 <= size) {
        uint32_t len = wc_rd32le(buf + off);
        memset(kind + off, 1, 4);
        memset(kind + off + 4, 2, (size_t)len + 8);
        off += 12 + (size_t)len;
    }
    assert_int_equal(off, size);
}

static void test_bit_flips(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    for (size_t k = 0; k < NCASES; k++) {
        wc_image img;
        size_t size;
        uint8_t *buf = encode_case(ctx, &cases[k], &size, &img);
        uint8_t *kind = malloc(size);
        assert_non_null(kind);
        classify(buf, size, kind);
        for (size_t i = 0; i < size; i++)
            for (unsigned bit = 0; bit < 8; bit++) {
                buf[i] ^= (uint8_t)(1u << bit);
                wc_status s = expect_refused(ctx, buf, size, cases[k].name, i * 8 + bit);
                buf[i] ^= (uint8_t)(1u << bit);
                if (kind[i] == 0) assert_int_equal(s, WC_ERR_FORMAT);
                if (kind[i] == 2) {
                    assert_int_equal(s, WC_ERR_CHECKSUM);
                    const char *m = wc_ctx_error(ctx);
                    assert_non_null(strstr(m, "chunk "));
                    assert_non_null(strstr(m, "CRC mismatch"));
                }
            }
        free(kind);
        free(buf);
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* A single-chunk file (WONE) whose part lengths or record were changed
 * and its CRC made good again: refused as corrupt, the message naming
 * WONE or the part. */
static void test_one_chunk_behind_crc(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    const damage_case *c = NULL;
    for (size_t k = 0; k < NCASES; k++)
        if (strcmp(cases[k].name, "WONE filtered RGB 37x1") == 0) c = &cases[k];
    assert_non_null(c);
    wc_image img;
    size_t size;
    uint8_t *buf = encode_case(ctx, c, &size, &img);
    assert_memory_equal(buf + 12, "WONE", 4);
    assert_int_equal(wc_rd32le(buf + 8) + 20, size); /* one chunk, no WEND */
    const size_t rec = 17, rlen = buf[16];           /* the record behind its length */
    assert_int_equal(rlen, 23);                      /* the short record of 3 components */
    const size_t plane0 = rec + rlen;                /* the first plane's length */
    uint8_t *bad = malloc(size + 12);
    assert_non_null(bad);
    struct {
        size_t at;
        uint8_t v;
        wc_status want;
        int payload; /* only decoding sees it (inspect reads the header) */
    } edits[] = {
        {16, 20, WC_ERR_CORRUPT, 0},                  /* a record too short */
        {16, 0x7F, WC_ERR_CORRUPT, 0},                /* a record past the chunk's end */
        {rec + 17, 1, WC_ERR_CORRUPT, 0},             /* entropy 1 in a WONE file */
        {rec + 0, 1, WC_ERR_CORRUPT, 0},              /* format 1.0 */
        {rec + 0, 3, WC_ERR_VERSION, 0},              /* format 3.0 */
        {rec + 12, 5, WC_ERR_CORRUPT, 0},             /* 5 components */
        {plane0, 0xFF, WC_ERR_CORRUPT, 0},            /* plane 0 past the chunk's end */
        {plane0, 0, WC_ERR_CORRUPT, 1},               /* plane 0 empty */
        {plane0, buf[plane0] + 1, WC_ERR_CORRUPT, 1}, /* a byte of plane 1 in plane 0 */
    };
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
        memcpy(bad, buf, size);
        bad[edits[e].at] = edits[e].v;
        chunk_fix_crc(bad, 8);
        wc_params p;
        wc_params_init(&p);
        wc_image out;
        wc_status s = edits[e].payload ? wc_decode(ctx, &p, bad, size, &out)
                                       : expect_refused(ctx, bad, size, "WONE edit", edits[e].at);
        if (s != edits[e].want || wc_ctx_error(ctx)[0] == '\0')
            fail_msg("edit %zu: %s ('%s')", e, wc_strerror(s), wc_ctx_error(ctx));
    }
    /* A WEND after the WONE chunk: the single chunk is the whole file. */
    memcpy(bad, buf, size);
    memcpy(bad + size, "\0\0\0\0WEND\x2e\x40\x84\x1e", 12);
    assert_int_equal(expect_refused(ctx, bad, size + 12, "WONE then WEND", size), WC_ERR_CORRUPT);
    assert_non_null(strstr(wc_ctx_error(ctx), "WONE"));
    free(bad);
    free(buf);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* Damage the CRCs cannot see, because they were recomputed: the file is
 * well formed as a container, its payloads are not. The decoder must
 * still refuse, and say where. */
static void test_damage_behind_crc(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    wc_image img;
    size_t size;
    uint8_t *buf = encode_case(ctx, &cases[0], &size, &img);

    /* The index claims one more byte for the first block. */
    size_t idx = chunk_find(buf, size, "WIDX", 0);
    assert_true(idx > 0);
    assert_true(buf[idx + 8] < 0x7F);
    buf[idx + 8]++;
    chunk_fix_crc(buf, idx);
    expect_refused(ctx, buf, size, "index", idx);
    assert_non_null(strstr(wc_ctx_error(ctx), "the blocks of component 0 add up to"));
    buf[idx + 8]--;
    chunk_fix_crc(buf, idx);

    /* A header field out of range is refused by name, with the chunk. */
    size_t hdr = chunk_find(buf, size, "WHDR", 0);
    assert_int_equal(hdr, 8);
    buf[hdr + 8 + 12] = 7; /* components */
    chunk_fix_crc(buf, hdr);
    expect_refused(ctx, buf, size, "header", hdr);
    assert_non_null(strstr(wc_ctx_error(ctx), "chunk 0 (WHDR) at byte 8: WHDR components 7"));
    buf[hdr + 8 + 12] = 3;
    chunk_fix_crc(buf, hdr);

    /* Block payload bytes replaced one at a time: some changes still decode
     * (to other coefficients: only the CRC can tell), but every refusal
     * names the component, subband and block, and there are refusals. */
    size_t dat = chunk_find(buf, size, "WDAT", 0);
    assert_true(dat > 0);
    const uint32_t len = wc_rd32le(buf + dat);
    unsigned refused = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint8_t keep = buf[dat + 8 + i];
        buf[dat + 8 + i] = (uint8_t)~keep;
        chunk_fix_crc(buf, dat);
        wc_params p;
        wc_params_init(&p);
        p.threads = 1;
        wc_image out;
        wc_status s = wc_decode(ctx, &p, buf, size, &out);
        if (s == WC_OK) {
            wc_image_free(&out);
        } else {
            const char *m = wc_ctx_error(ctx);
            if (!is_data_error(s) || strncmp(m, "component 0, subband ", 21) != 0 ||
                !strstr(m, ", block "))
                fail_msg("byte %u of WDAT: %s: '%s'", i, wc_strerror(s), m);
            refused++;
        }
        buf[dat + 8 + i] = keep;
    }
    chunk_fix_crc(buf, dat);
    assert_true(refused > len / 4);

    /* And the file itself is still fine. */
    wc_image out;
    assert_int_equal(wc_decode(ctx, NULL, buf, size, &out), WC_OK);
    assert_memory_equal(out.pixels, img.pixels, img.stride * img.height);
    wc_image_free(&out);
    free(buf);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* Entropy 3 has no tables and little redundancy: a changed payload byte
 * behind a fixed CRC mostly decodes to other coefficients. Every outcome
 * is that (an image of the same size) or a refusal naming the block. */
static void test_arith_damage_behind_crc(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    for (size_t k = 0; k < NCASES; k++) {
        if (cases[k].entropy != WC_ENTROPY_ARITH) continue;
        wc_image img;
        size_t size;
        uint8_t *buf = encode_case(ctx, &cases[k], &size, &img);
        assert_int_equal(chunk_find(buf, size, "WTAB", 0), 0); /* no tables */
        size_t dat = chunk_find(buf, size, "WDAT", 0);
        assert_true(dat > 0);
        const uint32_t len = wc_rd32le(buf + dat);
        for (uint32_t i = 0; i < len; i++) {
            uint8_t keep = buf[dat + 8 + i];
            buf[dat + 8 + i] = (uint8_t)~keep;
            chunk_fix_crc(buf, dat);
            wc_params p;
            wc_params_init(&p);
            p.threads = 1;
            wc_image out;
            wc_status s = wc_decode(ctx, &p, buf, size, &out);
            if (s == WC_OK) {
                assert_int_equal(out.width, img.width);
                assert_int_equal(out.height, img.height);
                wc_image_free(&out);
            } else {
                const char *m = wc_ctx_error(ctx);
                if (!is_data_error(s) || strncmp(m, "component 0, subband ", 21) != 0 ||
                    !strstr(m, ", block "))
                    fail_msg("%s: byte %u of WDAT: %s: '%s'", cases[k].name, i, wc_strerror(s), m);
            }
            buf[dat + 8 + i] = keep;
        }
        chunk_fix_crc(buf, dat);
        free(buf);
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* Limits refuse before allocating, with the numbers in the message. */
static void test_limits(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    wc_image img;
    size_t size;
    uint8_t *buf = encode_case(ctx, &cases[0], &size, &img);
    wc_params p;
    wc_params_init(&p);
    wc_image out;
    p.max_pixels = 21 * 17 - 1;
    assert_int_equal(wc_decode(ctx, &p, buf, size, &out), WC_ERR_LIMIT);
    assert_non_null(strstr(wc_ctx_error(ctx), "21x17 (357 pixels) exceeds the limit of 356"));
    p.max_pixels = 21 * 17;
    p.max_memory = 1000;
    assert_int_equal(wc_decode(ctx, &p, buf, size, &out), WC_ERR_LIMIT);
    assert_non_null(strstr(wc_ctx_error(ctx), "over the memory limit of 1000"));
    p.max_memory = 0; /* no limit */
    assert_int_equal(wc_decode(ctx, &p, buf, size, &out), WC_OK);
    wc_image_free(&out);

    /* A header that claims a large image over a small index: refused as
     * damage from the index's size, before the block list (or anything
     * image-sized) is allocated. */
    size_t hdr = 8;
    wc_wr32le(buf + hdr + 8 + 4, 4096); /* width */
    wc_wr32le(buf + hdr + 8 + 8, 4096); /* height */
    chunk_fix_crc(buf, hdr);
    wc_info info;
    assert_int_equal(wc_inspect(ctx, buf, size, &info), WC_ERR_CORRUPT);
    assert_non_null(strstr(wc_ctx_error(ctx), "(WIDX)"));
    assert_non_null(strstr(wc_ctx_error(ctx), "cannot list the 196"));
    assert_int_equal(wc_decode(ctx, NULL, buf, size, &out), WC_ERR_CORRUPT);
    /* Past the pixel limit, the limit speaks first. */
    wc_wr32le(buf + hdr + 8 + 4, 1u << 20);
    wc_wr32le(buf + hdr + 8 + 8, 1u << 20);
    chunk_fix_crc(buf, hdr);
    assert_int_equal(wc_decode(ctx, NULL, buf, size, &out), WC_ERR_LIMIT);
    assert_non_null(strstr(wc_ctx_error(ctx), "exceeds the limit of 2147483648 pixels"));
    assert_int_equal(wc_inspect(ctx, buf, size, &info), WC_ERR_LIMIT);
    free(buf);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* The chunks of a file in memory, to reorder (the CRCs move with them). */
typedef struct chunk_span {
    size_t off, len; /* len: framing included */
    char type[5];
} chunk_span;

static size_t list_chunks(const uint8_t *buf, size_t size, chunk_span *out, size_t max)
{
    size_t n = 0;
    for (size_t off = 8; off + 12 <= size && n < max; n++) {
        out[n].off = off;
        out[n].len = 12 + (size_t)wc_rd32le(buf + off);
        memcpy(out[n].type, buf + off + 4, 4);
        out[n].type[4] = '\0';
        off += out[n].len;
    }
    return n;
}

/* Writes the chunks named by order (indexes into sp; extra, if not NULL,
 * a whole chunk inserted at position at) after the signature into dst. */
static size_t rebuild(const uint8_t *src, const chunk_span *sp, const int *order, size_t n,
                      const uint8_t *extra, size_t extra_len, size_t at, uint8_t *dst)
{
    memcpy(dst, src, 8);
    size_t pos = 8;
    for (size_t i = 0; i <= n; i++) {
        if (extra && i == at) {
            memcpy(dst + pos, extra, extra_len);
            pos += extra_len;
        }
        if (i == n) break;
        memcpy(dst + pos, src + sp[order[i]].off, sp[order[i]].len);
        pos += sp[order[i]].len;
    }
    return pos;
}

/* FORMAT.md: WHDR, the WTABs, one WIDX, the WDATs, WEND; a misplaced
 * payload chunk is WC_ERR_CORRUPT, an unknown chunk anywhere is skipped. */
static void test_misplaced_chunks(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img;
    size_t size;
    uint8_t *buf = encode_case(ctx, &cases[0], &size, &img); /* Huffman RGB: 3 WTAB, 3 WDAT */
    chunk_span sp[16];
    size_t n = list_chunks(buf, size, sp, 16);
    assert_int_equal(n, 9);
    static const char *const want[9] = {"WHDR", "WTAB", "WTAB", "WTAB", "WIDX",
                                        "WDAT", "WDAT", "WDAT", "WEND"};
    for (size_t i = 0; i < n; i++) assert_string_equal(sp[i].type, want[i]);
    uint8_t *re = malloc(size + 64);
    assert_non_null(re);
    wc_image out;
    static const struct {
        int order[9];
        const char *msg;
    } bad[] = {
        /* The order of the issue: WDAT before WIDX. */
        {{0, 1, 2, 3, 5, 6, 7, 4, 8}, "chunk 4 (WDAT) at byte"},
        {{0, 4, 1, 2, 3, 5, 6, 7, 8}, "chunk 1 (WIDX) at byte"},
        {{0, 1, 2, 4, 3, 5, 6, 7, 8}, "misplaced: after 2 of the 3 table chunks (WTAB)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        size_t len = rebuild(buf, sp, bad[k].order, n, NULL, 0, 0, re);
        assert_int_equal(len, size);
        assert_int_equal(wc_decode(ctx, NULL, re, len, &out), WC_ERR_CORRUPT);
        assert_non_null(strstr(wc_ctx_error(ctx), "misplaced"));
        assert_non_null(strstr(wc_ctx_error(ctx), bad[k].msg));
        wc_info info;
        assert_int_equal(wc_inspect(ctx, re, len, &info), WC_ERR_CORRUPT);
    }
    /* An unknown chunk between any two payload chunks is passed over. */
    static const int same[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t extra[12 + 3] = {3, 0, 0, 0, 'w', 'X', 'Y', 'Z', 1, 2, 3};
    wc_wr32le(extra + 11, (uint32_t)crc32(0L, extra + 4, 7));
    for (size_t at = 1; at < n; at++) {
        size_t len = rebuild(buf, sp, same, n, extra, sizeof extra, at, re);
        assert_int_equal(wc_decode(ctx, NULL, re, len, &out), WC_OK);
        assert_memory_equal(out.pixels, img.pixels, img.stride * img.height);
        wc_image_free(&out);
    }
    free(re);
    free(buf);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* The encoder's limits: pixels and memory, checked before allocating,
 * with the need and the limit in the message. */
static void test_encode_limits(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img;
    for (size_t c = 0; c < NCASES; c++) {
        size_t size;
        uint8_t *buf = encode_case(ctx, &cases[c], &size, &img);
        free(buf);
        wc_params p;
        case_params(&cases[c], &p);
        void *out = NULL;
        const uint64_t pixels = (uint64_t)img.width * img.height;
        if (pixels > 1) { /* max_pixels 0 is no limit */
            p.max_pixels = pixels - 1;
            assert_int_equal(wc_encode_alloc(ctx, &p, &img, &out, &size), WC_ERR_LIMIT);
            assert_non_null(strstr(wc_ctx_error(ctx), "exceeds the limit of"));
        }
        p.max_pixels = pixels;
        const uint64_t need = wc_encode_memory(&img, &p);
        assert_true(need > img.stride * img.height);
        p.max_memory = need - 1;
        assert_int_equal(wc_encode_alloc(ctx, &p, &img, &out, &size), WC_ERR_LIMIT);
        char msg[160];
        snprintf(msg, sizeof msg, "needs about %llu bytes to encode, over the memory limit of %llu",
                 (unsigned long long)need, (unsigned long long)(need - 1));
        assert_non_null(strstr(wc_ctx_error(ctx), msg));
        assert_null(out);
        p.max_memory = need;
        assert_int_equal(wc_encode_alloc(ctx, &p, &img, &out, &size), WC_OK);
        free(out);
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* Fails allocation n = 0, 1, 2 ... of fn until fn succeeds; each failure
 * must be WC_ERR_NOMEM (with a message). Returns the number of
 * allocations the call made. */
typedef wc_status (*alloc_fn)(wc_ctx *ctx, void *arg);

static long fail_each_allocation(wc_ctx *ctx, alloc_fn fn, void *arg, const char *what)
{
    for (long n = 0;; n++) {
        if (n > 100000) fail_msg("%s: still failing after %ld allocations", what, n);
        wc_alloc_fail_after(n);
        wc_status s = fn(ctx, arg);
        wc_alloc_fail_after(-1);
        if (s == WC_OK) return n;
        if (s != WC_ERR_NOMEM || wc_ctx_error(ctx)[0] == '\0')
            fail_msg("%s, allocation %ld failing: %s ('%s')", what, n, wc_strerror(s),
                     wc_ctx_error(ctx));
    }
}

/* wc_decode's status and message on a number of threads. */
static wc_status decode_threads(wc_ctx *ctx, int threads, const uint8_t *buf, size_t size,
                                char *msg, size_t cap)
{
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CPU;
    p.threads = threads;
    wc_image out;
    const wc_status s = wc_decode(ctx, &p, buf, size, &out);
    snprintf(msg, cap, "%s", s == WC_OK ? "" : wc_ctx_error(ctx));
    if (s == WC_OK) wc_image_free(&out);
    return s;
}

/* A decode's status and message, with every CRC checked first
 * (WC_DECODE_EAGER_CRC) or with the large data chunks' left to after
 * the parse (codec/decoder.c's lazy_crc; the CPU backend checks them
 * before it starts). */
static wc_status decode_msg(wc_ctx *ctx, int eager, const uint8_t *buf, size_t size, char *msg,
                            size_t cap)
{
    if (eager) setenv("WC_DECODE_EAGER_CRC", "1", 1);
    const wc_status s = decode_threads(ctx, 0, buf, size, msg, cap);
    unsetenv("WC_DECODE_EAGER_CRC");
    return s;
}

/* A file with a data chunk of over a MiB: the verdict with its CRC
 * checked late is the eager one, status and message, for a bad CRC
 * alone, with a bad index or a cut file besides (the CRC error, which
 * the chunk walk meets first, wins), and for damage behind a good CRC. */
static void test_large_data_crc(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    wc_image img = {1200, 1000, 1, 8, 0, NULL};
    assert_int_equal(wc_image_alloc(&img), WC_OK);
    test_rng r;
    test_rng_seed(&r, 92);
    for (size_t i = 0; i < (size_t)img.width * img.height; i++)
        ((uint8_t *)img.pixels)[i] = (uint8_t)test_rng_u32(&r);
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CPU;
    p.lossless = 1;
    p.levels = 5;
    uint8_t *buf = NULL;
    size_t size = 0;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, (void **)&buf, &size), WC_OK);
    const size_t dat = chunk_find(buf, size, "WDAT", 0), idx = chunk_find(buf, size, "WIDX", 0);
    assert_true(dat > 0 && idx > 0);
    const uint32_t len = wc_rd32le(buf + dat);
    assert_true(len >= (1u << 20));
    static const int want[5] = {WC_ERR_CHECKSUM, WC_ERR_CHECKSUM, WC_ERR_CHECKSUM, -1, WC_OK};
    for (int k = 0; k < 5; k++) {
        size_t n = size;
        uint8_t *at = buf + dat + 8 + len / 2, keep = *at;
        *at ^= 0x20;
        if (k == 1) {
            buf[idx + 8] ^= 0x01;
            chunk_fix_crc(buf, idx);
        }
        if (k == 2) n = size - 5;
        if (k == 3) chunk_fix_crc(buf, dat);
        if (k == 4) {
            *at = keep;
            chunk_fix_crc(buf, dat);
        }
        char m_lazy[256], m_eager[256];
        const wc_status s_lazy = decode_msg(ctx, 0, buf, n, m_lazy, sizeof m_lazy);
        const wc_status s_eager = decode_msg(ctx, 1, buf, n, m_eager, sizeof m_eager);
        assert_int_equal(s_lazy, s_eager);
        assert_string_equal(m_lazy, m_eager);
        if (want[k] >= 0) assert_int_equal(s_lazy, want[k]);
        if (k == 1) {
            buf[idx + 8] ^= 0x01;
            chunk_fix_crc(buf, idx);
        }
        *at = keep;
        chunk_fix_crc(buf, dat);
    }
    free(buf);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

/* A byte of each component's data changed behind good CRCs (so three
 * different blocks, in the blocks' order): wc_decode names the block of
 * the first change that fails alone, the lowest failing index, on every
 * thread count and every run (the workers race for the blocks). */
static void test_several_damaged_blocks(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    const damage_case big = {"lossy RGB",        160, 120, 3,  8, 0, WC_TRANSFORM_DWT, 97,
                             WC_ENTROPY_HUFFMAN, 16,  3,   80, 0};
    wc_image img;
    size_t size;
    uint8_t *buf = encode_case(ctx, &big, &size, &img);
    size_t dat[3], nd = 0;
    for (size_t off = 8; off + 12 <= size && nd < 3; off += 12 + (size_t)wc_rd32le(buf + off))
        if (memcmp(buf + off + 4, "WDAT", 4) == 0) dat[nd++] = off;
    assert_int_equal(nd, 3);
    uint8_t *one = malloc(size), *all = malloc(size);
    test_rng r;
    test_rng_seed(&r, 606);
    static const int threads[] = {1, 2, 3, 4, 8};
    int failed = 0;
    for (int k = 0; k < 30; k++) {
        memcpy(all, buf, size);
        char first_msg[256] = "";
        wc_status first = WC_OK;
        for (size_t c = 0; c < 3; c++) {
            const uint32_t len = wc_rd32le(buf + dat[c]);
            const size_t at = dat[c] + 8 + (size_t)test_rng_range(&r, 0, (int32_t)len - 1);
            const uint8_t x = (uint8_t)test_rng_range(&r, 1, 255);
            memcpy(one, buf, size);
            one[at] ^= x;
            all[at] ^= x;
            chunk_fix_crc(one, dat[c]);
            chunk_fix_crc(all, dat[c]);
            char m[256];
            const wc_status s = decode_threads(ctx, 1, one, size, m, sizeof m);
            if (s != WC_OK && first == WC_OK) {
                first = s;
                snprintf(first_msg, sizeof first_msg, "%s", m);
            }
        }
        char want[256];
        const wc_status s1 = decode_threads(ctx, 1, all, size, want, sizeof want);
        assert_int_equal(s1, first);
        assert_string_equal(want, first_msg);
        failed += s1 != WC_OK;
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
            for (int run = 0; run < 3; run++) {
                char m[256];
                const wc_status s = decode_threads(ctx, threads[t], all, size, m, sizeof m);
                if (s != s1 || strcmp(m, want) != 0)
                    fail_msg("damage %d, %d threads: %d \"%s\", on 1 thread %d \"%s\"", k,
                             threads[t], s, m, s1, want);
            }
    }
    assert_true(failed > 0);
    free(one);
    free(all);
    free(buf);
    wc_image_free(&img);
    wc_ctx_free(ctx);
}

typedef struct enc_arg {
    const wc_params *p;
    const wc_image *img;
} enc_arg;

static wc_status do_encode(wc_ctx *ctx, void *arg)
{
    const enc_arg *a = arg;
    void *buf = NULL;
    size_t size = 0;
    wc_status s = wc_encode_alloc(ctx, a->p, a->img, &buf, &size);
    assert_true(s == WC_OK || buf == NULL);
    free(buf);
    return s;
}

typedef struct dec_arg {
    const uint8_t *buf;
    size_t size;
    const wc_image *expect;
} dec_arg;

static wc_status do_decode(wc_ctx *ctx, void *arg)
{
    const dec_arg *a = arg;
    wc_params p;
    wc_params_init(&p);
    p.threads = 1;
    p.backend = WC_BACKEND_CPU;
    wc_image out;
    wc_status s = wc_decode(ctx, &p, a->buf, a->size, &out);
    if (s != WC_OK) {
        assert_null(out.pixels);
        return s;
    }
    if (a->expect)
        assert_memory_equal(out.pixels, a->expect->pixels, a->expect->stride * a->expect->height);
    wc_image_free(&out);
    return WC_OK;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    /* The cases, and a rate-controlled encode (several coding probes). */
    damage_case all[NCASES + 1];
    memcpy(all, cases, sizeof cases);
    all[NCASES] = (damage_case){"rate control",     24, 24, 3, 8,   0, WC_TRANSFORM_DWT, 97,
                                WC_ENTROPY_HUFFMAN, 16, 2,  0, 6.0f};
    for (size_t k = 0; k < NCASES + 1; k++) {
        wc_params p;
        case_params(&all[k], &p);
        wc_image img;
        size_t size;
        uint8_t *buf = encode_case(ctx, &all[k], &size, &img);
        enc_arg ea = {&p, &img};
        long n = fail_each_allocation(ctx, do_encode, &ea, all[k].name);
        assert_true(n > 3);
        dec_arg da = {buf, size, all[k].lossless ? &img : NULL};
        n = fail_each_allocation(ctx, do_decode, &da, all[k].name);
        assert_true(n > 3);
        free(buf);
        wc_image_free(&img);
    }
    /* A context itself. */
    wc_alloc_fail_after(0);
    assert_null(wc_ctx_create());
    wc_alloc_fail_after(-1);
    wc_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_damage_behind_crc),
        cmocka_unit_test(test_arith_damage_behind_crc),
        cmocka_unit_test(test_one_chunk_behind_crc),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_misplaced_chunks),
        cmocka_unit_test(test_encode_limits),
        cmocka_unit_test(test_large_data_crc),
        cmocka_unit_test(test_several_damaged_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
