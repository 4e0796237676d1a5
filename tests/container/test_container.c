/*
 * test_container.c -- the .wcx container: chunk writer, bounds-checked
 * reader and the WHDR record. The reader is fed every truncation and every
 * single-bit flip of a valid file; inputs sit in exactly sized heap blocks
 * so that the sanitizer build catches any read past the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "container.h"
#include "test_support.h"

#define FILE_CAP 65536

/* ---- helpers ------------------------------------------------------------- */

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* A copy in a block of exactly n bytes (NULL for n == 0): any read past the
 * end is a heap overflow the sanitizer reports. */
static uint8_t *exact_copy(const uint8_t *src, size_t n)
{
    if (n == 0) return NULL;
    uint8_t *p = malloc(n);
    assert_non_null(p);
    memcpy(p, src, n);
    return p;
}

static wc_status read_exact(const uint8_t *src, size_t n, size_t max, size_t *count, wc_err *err)
{
    uint8_t *copy = exact_copy(src, n);
    wcx_chunk *chunks = calloc(max ? max : 1, sizeof *chunks);
    assert_non_null(chunks);
    wc_status s = wcx_read_chunks(copy, n, chunks, max, count, err);
    free(chunks);
    free(copy);
    return s;
}

/* A valid header: three components, DWT, sixteen steps. */
static void base_header(wcx_header *h)
{
    memset(h, 0, sizeof *h);
    h->version_major = WCX_VERSION_MAJOR;
    h->version_minor = WCX_VERSION_MINOR;
    h->width = 640;
    h->height = 480;
    h->components = 3;
    h->bit_depth = 8;
    h->levels = 5;
    h->block_log2 = 6;
    h->flags = 1;
    h->wavelet[0] = 97;
    h->wavelet[1] = 97;
    h->wavelet[2] = 53;
    h->wavelet[3] = 53;
    h->base_step = 1.0f;
    h->recon = 0.5f;
    h->nsteps = 16;
    for (int c = 0; c < 4; c++)
        for (int s = 0; s < WCX_MAX_STEPS; s++) h->steps[c][s] = 0.25f * (float)(c + s + 1);
}

/* A positive finite float with any exponent, denormals included. */
static float random_step(test_rng *r)
{
    uint32_t u;
    do u = test_rng_u32(r) & 0x7FFFFFFFu;
    while (u == 0 || (u >> 23) == 0xFF);
    return bits_f32(u);
}

static void random_header(test_rng *r, wcx_header *h)
{
    base_header(h);
    int small = test_rng_range(r, 0, 1);
    h->width = (uint32_t)test_rng_range(r, 1, small ? 4096 : 1 << 24);
    h->height = (uint32_t)test_rng_range(r, 1, small ? 4096 : 1 << 24);
    h->components = (uint8_t)test_rng_range(r, 1, 4);
    h->bit_depth = (uint8_t)test_rng_range(r, 1, 16);
    h->colour = (uint8_t)(h->components >= 3 ? test_rng_range(r, 0, 2) : 0);
    h->transform = (uint8_t)test_rng_range(r, 0, 2);
    h->levels = (uint8_t)test_rng_range(r, 0, 15);
    h->entropy = (uint8_t)test_rng_range(r, 0, 1);
    h->block_log2 = (uint8_t)test_rng_range(r, 4, 7);
    h->flags = (uint8_t)test_rng_range(r, 0, 1);
    for (int c = 0; c < 4; c++) {
        int fixed = c < 3 && h->colour != 0;
        h->wavelet[c] =
            (uint8_t)(fixed ? (h->colour == 1 ? 53 : 97) : (test_rng_range(r, 0, 1) ? 97 : 53));
    }
    h->base_step = bits_f32(test_rng_u32(r) & 0xFF7FFFFFu); /* any finite value */
    h->recon = (float)test_rng_unit(r);
    if (h->recon >= 1.0f) h->recon = 0.0f; /* a double just below 1 may round up */
    h->nsteps = (uint8_t)test_rng_range(r, 1, WCX_MAX_STEPS);
    memset(h->steps, 0, sizeof h->steps);
    for (int c = 0; c < h->components; c++)
        for (int s = 0; s < h->nsteps; s++) h->steps[c][s] = random_step(r);
}

static void assert_header_equal(const wcx_header *a, const wcx_header *b)
{
    assert_int_equal(a->version_major, b->version_major);
    assert_int_equal(a->version_minor, b->version_minor);
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_int_equal(a->components, b->components);
    assert_int_equal(a->bit_depth, b->bit_depth);
    assert_int_equal(a->colour, b->colour);
    assert_int_equal(a->transform, b->transform);
    assert_int_equal(a->levels, b->levels);
    assert_int_equal(a->entropy, b->entropy);
    assert_int_equal(a->block_log2, b->block_log2);
    assert_int_equal(a->flags, b->flags);
    assert_int_equal(f32_bits(a->base_step), f32_bits(b->base_step));
    assert_int_equal(f32_bits(a->recon), f32_bits(b->recon));
    assert_int_equal(a->nsteps, b->nsteps);
    for (int c = 0; c < a->components; c++) {
        assert_int_equal(a->wavelet[c], b->wavelet[c]);
        for (int s = 0; s < a->nsteps; s++)
            assert_int_equal(f32_bits(a->steps[c][s]), f32_bits(b->steps[c][s]));
    }
}

/* The chunks of the small valid file the damage tests start from: WHDR
 * (written in place), WTAB, an empty WIDX, WDAT, WEND. */
static void write_sample(wcx_writer *w)
{
    wcx_header h;
    base_header(&h);
    h.nsteps = 4;
    wcx_chunk_begin(w, WCX_WHDR);
    size_t n = wcx_header_size(&h);
    uint8_t *dst = wcx_chunk_space(w, n);
    if (dst != NULL) wcx_header_write(&h, dst);
    wcx_chunk_commit(w, n);
    wcx_chunk_end(w);
    static const uint8_t tab[] = {3, 1, 4, 1, 5, 9, 2, 6};
    wcx_put_chunk(w, WCX_WTAB, tab, sizeof tab);
    wcx_put_chunk(w, WCX_WIDX, NULL, 0);
    static const char dat[] = "code-block payloads";
    wcx_put_chunk(w, WCX_WDAT, dat, sizeof dat);
    wcx_put_chunk(w, WCX_WEND, NULL, 0);
}

/* Writes the sample file into buf[0..cap); returns the size it needs. */
static size_t build_file(uint8_t *buf, size_t cap)
{
    wcx_writer w;
    wcx_writer_init(&w, buf, cap);
    write_sample(&w);
    size_t size = 0;
    wc_status s = wcx_writer_finish(&w, &size);
    assert_int_equal(s, cap >= size ? WC_OK : WC_ERR_BUFFER);
    return size;
}

/* Writes chunk by hand (for files the writer would never make). */
static size_t raw_chunk(uint8_t *p, uint32_t type, const void *data, uint32_t n)
{
    wcx_writer w;
    uint8_t tmp[256];
    assert_true(n + WCX_MAGIC_SIZE + WCX_CHUNK_OVERHEAD <= sizeof tmp);
    wcx_writer_init(&w, tmp, sizeof tmp);
    wcx_put_chunk(&w, type, data, n);
    size_t size;
    assert_int_equal(wcx_writer_finish(&w, &size), WC_OK);
    memcpy(p, tmp + WCX_MAGIC_SIZE, size - WCX_MAGIC_SIZE);
    return size - WCX_MAGIC_SIZE;
}

static int is_damage_status(wc_status s)
{
    return s == WC_ERR_FORMAT || s == WC_ERR_CHECKSUM || s == WC_ERR_CORRUPT ||
           s == WC_ERR_TRUNCATED;
}

/* ---- writer -------------------------------------------------------------- */

static void test_writer_reader_roundtrip(void **state)
{
    (void)state;
    uint8_t buf[1024];
    wcx_writer w;
    wcx_writer_init(&w, buf, sizeof buf);
    wcx_put_chunk(&w, WCX_WHDR, "hdr", 3);
    wcx_put_chunk(&w, WCX_WTAB, NULL, 0);
    wcx_chunk_begin(&w, WCX_WIDX); /* pieces with wcx_write */
    wcx_write(&w, "ab", 2);
    wcx_write(&w, NULL, 0);
    wcx_write(&w, "cde", 3);
    wcx_chunk_end(&w);
    wcx_chunk_begin(&w, WCX_WDAT); /* in place */
    uint8_t *p = wcx_chunk_space(&w, 100);
    assert_non_null(p);
    for (int i = 0; i < 100; i++) p[i] = (uint8_t)(i * 7);
    wcx_chunk_commit(&w, 60); /* only part of the space is used */
    wcx_chunk_end(&w);
    wcx_chunk_begin(&w, WCX_WDAT); /* an empty one, in place */
    wcx_chunk_commit(&w, 0);
    wcx_chunk_end(&w);
    wcx_put_chunk(&w, WCX_WEND, NULL, 0);
    size_t size = 0;
    assert_int_equal(wcx_writer_finish(&w, &size), WC_OK);
    assert_int_equal(size, 8 + 6 * 12 + 3 + 5 + 60);
    assert_memory_equal(buf, WCX_MAGIC, WCX_MAGIC_SIZE);

    wcx_chunk c[8];
    size_t count = 0;
    wc_err err = {{0}};
    assert_int_equal(wcx_read_chunks(buf, size, c, 8, &count, &err), WC_OK);
    assert_int_equal(count, 6);
    static const uint32_t types[] = {WCX_WHDR, WCX_WTAB, WCX_WIDX, WCX_WDAT, WCX_WDAT, WCX_WEND};
    static const uint32_t sizes[] = {3, 0, 5, 60, 0, 0};
    size_t off = WCX_MAGIC_SIZE;
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(c[i].type, types[i]);
        assert_int_equal(c[i].size, sizes[i]);
        assert_int_equal(c[i].index, i);
        assert_int_equal(c[i].offset, off);
        assert_ptr_equal(c[i].data, buf + off + 8);
        off += WCX_CHUNK_OVERHEAD + sizes[i];
    }
    assert_memory_equal(c[0].data, "hdr", 3);
    assert_memory_equal(c[2].data, "abcde", 5);
    for (int i = 0; i < 60; i++) assert_int_equal(c[3].data[i], (uint8_t)(i * 7));
}

/* Pins the bytes on disk: framing order, little-endian length, and the
 * CRC-32 of zlib/PNG (values computed independently). */
static void test_writer_golden_bytes(void **state)
{
    (void)state;
    uint8_t buf[64];
    wcx_writer w;
    wcx_writer_init(&w, buf, sizeof buf);
    wcx_put_chunk(&w, WCX_WDAT, "\x01\x02\x03", 3);
    wcx_put_chunk(&w, WCX_WEND, NULL, 0);
    size_t size;
    assert_int_equal(wcx_writer_finish(&w, &size), WC_OK);
    static const uint8_t want[] = {0x89, 'W', 'C', 'X', '\r', '\n', 0x1a, '\n', 3,    0,    0,    0,
                                   'W',  'D', 'A', 'T', 1,    2,    3,    0x3e, 0xf0, 0xd6, 0x64, 0,
                                   0,    0,   0,   'W', 'E',  'N',  'D',  0x2e, 0x40, 0x84, 0x1e};
    assert_int_equal(size, sizeof want);
    assert_memory_equal(buf, want, sizeof want);
}

/* Every capacity short of the file: WC_ERR_BUFFER, the size it needs, and
 * not one byte written past the capacity. The full capacity gives the same
 * bytes as a roomy buffer. */
static void test_writer_overflow(void **state)
{
    (void)state;
    static uint8_t ref[FILE_CAP], buf[FILE_CAP];
    size_t n = build_file(ref, sizeof ref);
    assert_int_equal(build_file(NULL, 0), n); /* dry run */
    for (size_t cap = 0; cap <= n; cap++) {
        memset(buf, 0xA5, n + 16);
        wcx_writer w;
        wcx_writer_init(&w, buf, cap);
        write_sample(&w);
        size_t size = 0;
        wc_status s = wcx_writer_finish(&w, &size);
        assert_int_equal(size, n);
        assert_int_equal(s, cap < n ? WC_ERR_BUFFER : WC_OK);
        for (size_t i = cap; i < n + 16; i++) assert_int_equal(buf[i], 0xA5);
        if (cap == n) assert_memory_equal(buf, ref, n);
    }
}

static void test_writer_space_after_overflow(void **state)
{
    (void)state;
    uint8_t buf[32];
    wcx_writer w;
    wcx_writer_init(&w, buf, sizeof buf);
    wcx_chunk_begin(&w, WCX_WDAT);
    assert_non_null(wcx_chunk_space(&w, 16));
    assert_null(wcx_chunk_space(&w, 17));
    assert_null(wcx_chunk_space(&w, 1)); /* sticky, even though 1 byte fits */
    wcx_chunk_commit(&w, 1);
    wcx_chunk_end(&w);
    size_t size;
    assert_int_equal(wcx_writer_finish(&w, &size), WC_ERR_BUFFER);
}

static void test_writer_misuse(void **state)
{
    (void)state;
    uint8_t buf[128];
    wcx_writer w;
    size_t size;
    wcx_writer_init(&w, buf, sizeof buf);
    wcx_write(&w, "x", 1); /* data outside a chunk */
    assert_int_equal(wcx_writer_finish(&w, &size), WC_ERR_ARG);
    wcx_writer_init(&w, buf, sizeof buf);
    wcx_chunk_begin(&w, WCX_WHDR); /* never closed */
    assert_int_equal(wcx_writer_finish(&w, &size), WC_ERR_ARG);
    wcx_writer_init(&w, buf, sizeof buf);
    wcx_chunk_end(&w); /* nothing open */
    assert_int_equal(wcx_writer_finish(&w, &size), WC_ERR_ARG);
    wcx_writer_init(&w, buf, sizeof buf);
    wcx_chunk_begin(&w, WCX_WHDR);
    wcx_chunk_begin(&w, WCX_WEND); /* nested */
    wcx_chunk_end(&w);
    assert_int_equal(wcx_writer_finish(&w, &size), WC_ERR_ARG);
}

/* ---- header -------------------------------------------------------------- */

static void test_header_roundtrip_random(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 0x57C0DEC);
    for (int iter = 0; iter < 3000; iter++) {
        wcx_header h, back;
        random_header(&r, &h);
        uint8_t buf[2048], again[2048];
        size_t n = wcx_header_size(&h);
        assert_int_equal(n, 29u + h.components + 4u * h.components * h.nsteps);
        wcx_header_write(&h, buf);
        wc_err err = {{0}};
        wc_status s = wcx_header_parse(buf, n, &back, &err);
        if (s != WC_OK) fail_msg("iteration %d: %s", iter, err.msg);
        assert_header_equal(&h, &back);
        wcx_header_write(&back, again);
        assert_memory_equal(buf, again, n);
    }
}

/* The offsets FORMAT.md documents. */
static void test_header_layout(void **state)
{
    (void)state;
    wcx_header h;
    base_header(&h);
    h.width = 0x01020304;
    h.height = 0x00A0B0C;
    h.components = 2;
    h.wavelet[0] = 53;
    h.wavelet[1] = 97;
    h.nsteps = 2;
    h.steps[0][0] = 1.0f;
    h.steps[0][1] = 2.0f;
    h.steps[1][0] = 3.0f;
    h.steps[1][1] = 4.0f;
    h.base_step = 0.5f;
    uint8_t b[64];
    assert_int_equal(wcx_header_size(&h), 29 + 2 + 16);
    wcx_header_write(&h, b);
    assert_int_equal(wc_rd16le(b + 0), WCX_VERSION_MAJOR);
    assert_int_equal(wc_rd16le(b + 2), WCX_VERSION_MINOR);
    assert_int_equal(wc_rd32le(b + 4), 0x01020304);
    assert_int_equal(wc_rd32le(b + 8), 0x00A0B0C);
    static const uint8_t mid[] = {2, 8, 0, 0, 5, 0, 6, 1, 53, 97};
    assert_memory_equal(b + 12, mid, sizeof mid);
    assert_int_equal(wc_rd32le(b + 22), 0x3F000000u); /* base_step 0.5 */
    assert_int_equal(wc_rd32le(b + 26), 0x3F000000u); /* recon 0.5 */
    assert_int_equal(b[30], 2);
    assert_int_equal(wc_rd32le(b + 31), 0x3F800000u); /* steps[0][0] = 1 */
    assert_int_equal(wc_rd32le(b + 35), 0x40000000u); /* steps[0][1] = 2 */
    assert_int_equal(wc_rd32le(b + 39), 0x40400000u); /* steps[1][0] = 3 */
    assert_int_equal(wc_rd32le(b + 43), 0x40800000u); /* steps[1][1] = 4 */
}

typedef struct bad_field {
    const char *field; /* must appear in the message */
    void (*set)(wcx_header *h, uint32_t v);
    uint32_t value;
    wc_status want;
} bad_field;

static void set_major(wcx_header *h, uint32_t v) { h->version_major = (uint16_t)v; }
static void set_width(wcx_header *h, uint32_t v) { h->width = v; }
static void set_height(wcx_header *h, uint32_t v) { h->height = v; }
static void set_comps(wcx_header *h, uint32_t v) { h->components = (uint8_t)v; }
static void set_depth(wcx_header *h, uint32_t v) { h->bit_depth = (uint8_t)v; }
static void set_colour(wcx_header *h, uint32_t v) { h->colour = (uint8_t)v; }
static void set_transform(wcx_header *h, uint32_t v) { h->transform = (uint8_t)v; }
static void set_levels(wcx_header *h, uint32_t v) { h->levels = (uint8_t)v; }
static void set_entropy(wcx_header *h, uint32_t v) { h->entropy = (uint8_t)v; }
/* entropy in a 1.0 header: 2 and 3 are 2.0 values */
static void set_entropy_v1(wcx_header *h, uint32_t v)
{
    h->entropy = (uint8_t)v;
    h->version_major = 1;
}
static void set_block(wcx_header *h, uint32_t v) { h->block_log2 = (uint8_t)v; }
static void set_flags(wcx_header *h, uint32_t v) { h->flags = (uint8_t)v; }
static void set_wavelet0(wcx_header *h, uint32_t v) { h->wavelet[0] = (uint8_t)v; }
static void set_wavelet2(wcx_header *h, uint32_t v) { h->wavelet[2] = (uint8_t)v; }
static void set_base(wcx_header *h, uint32_t v) { h->base_step = bits_f32(v); }
static void set_recon(wcx_header *h, uint32_t v) { h->recon = bits_f32(v); }
static void set_nsteps(wcx_header *h, uint32_t v) { h->nsteps = (uint8_t)v; }
static void set_step(wcx_header *h, uint32_t v) { h->steps[1][3] = bits_f32(v); }
/* a colour that format 2.0 added (v = 3, palette) in a 1.0 file */
static void set_colour_v1(wcx_header *h, uint32_t v)
{
    h->colour = (uint8_t)v;
    h->version_major = 1;
}
/* colour with too few components: v is the colour, two components */
static void set_colour_2c(wcx_header *h, uint32_t v)
{
    h->colour = (uint8_t)v;
    h->components = 2;
}
/* RCT (v = 1) or ICT (v = 2) with the other wavelet on component 1 */
static void set_colour_wrong_wavelet(wcx_header *h, uint32_t v)
{
    h->colour = (uint8_t)v;
    for (int c = 0; c < 3; c++) h->wavelet[c] = v == 1 ? 53 : 97;
    h->wavelet[1] = v == 1 ? 97 : 53;
}

#define F32_INF 0x7F800000u
#define F32_NAN 0x7FC00000u
#define F32_NEG_INF 0xFF800000u

static const bad_field bad_fields[] = {
    {"version 0.0", set_major, 0, WC_ERR_VERSION},
    {"version 3.0", set_major, 3, WC_ERR_VERSION},
    {"width 0", set_width, 0, WC_ERR_CORRUPT},
    {"width 16777217", set_width, (1u << 24) + 1, WC_ERR_LIMIT},
    {"width 4294967295", set_width, 0xFFFFFFFFu, WC_ERR_LIMIT},
    {"height 0", set_height, 0, WC_ERR_CORRUPT},
    {"height 16777217", set_height, (1u << 24) + 1, WC_ERR_LIMIT},
    {"components 0", set_comps, 0, WC_ERR_CORRUPT},
    {"components 5", set_comps, 5, WC_ERR_CORRUPT},
    {"components 255", set_comps, 255, WC_ERR_CORRUPT},
    {"bit_depth 0", set_depth, 0, WC_ERR_CORRUPT},
    {"bit_depth 17", set_depth, 17, WC_ERR_CORRUPT},
    {"colour 4", set_colour, 4, WC_ERR_CORRUPT},
    {"colour 255", set_colour, 255, WC_ERR_CORRUPT},
    {"colour 3 needs format 2.0", set_colour_v1, 3, WC_ERR_CORRUPT},
    {"colour 1 (RCT) needs 3", set_colour_2c, 1, WC_ERR_CORRUPT},
    {"colour 2 (ICT) needs 3", set_colour_2c, 2, WC_ERR_CORRUPT},
    {"transform 3", set_transform, 3, WC_ERR_CORRUPT},
    {"levels 16", set_levels, 16, WC_ERR_CORRUPT},
    {"entropy 4", set_entropy, 4, WC_ERR_CORRUPT},
    {"entropy 3 needs format 2.0", set_entropy_v1, 3, WC_ERR_CORRUPT},
    {"block_log2 3", set_block, 3, WC_ERR_CORRUPT},
    {"block_log2 8", set_block, 8, WC_ERR_CORRUPT},
    {"flags 0x02", set_flags, 2, WC_ERR_CORRUPT},
    {"flags 0x81", set_flags, 0x81, WC_ERR_CORRUPT},
    {"wavelet[0] 0", set_wavelet0, 0, WC_ERR_CORRUPT},
    {"wavelet[2] 98", set_wavelet2, 98, WC_ERR_CORRUPT},
    {"wavelet[1] 97 with colour RCT", set_colour_wrong_wavelet, 1, WC_ERR_CORRUPT},
    {"wavelet[1] 53 with colour ICT", set_colour_wrong_wavelet, 2, WC_ERR_CORRUPT},
    {"base_step (bits 0x7F800000)", set_base, F32_INF, WC_ERR_CORRUPT},
    {"base_step (bits 0x7FC00000)", set_base, F32_NAN, WC_ERR_CORRUPT},
    {"recon 1 ", set_recon, 0x3F800000u, WC_ERR_CORRUPT},
    {"recon -0.25", set_recon, 0xBE800000u, WC_ERR_CORRUPT},
    {"recon", set_recon, F32_NAN, WC_ERR_CORRUPT},
    {"recon", set_recon, F32_INF, WC_ERR_CORRUPT},
    {"nsteps 0", set_nsteps, 0, WC_ERR_CORRUPT},
    {"nsteps 65", set_nsteps, WCX_MAX_STEPS + 1, WC_ERR_CORRUPT},
    {"nsteps 255", set_nsteps, 255, WC_ERR_CORRUPT},
    {"steps[1][3] 0", set_step, 0, WC_ERR_CORRUPT},
    {"steps[1][3] -0", set_step, 0x80000000u, WC_ERR_CORRUPT},
    {"steps[1][3] -1", set_step, 0xBF800000u, WC_ERR_CORRUPT},
    {"steps[1][3]", set_step, F32_INF, WC_ERR_CORRUPT},
    {"steps[1][3]", set_step, F32_NEG_INF, WC_ERR_CORRUPT},
    {"steps[1][3]", set_step, F32_NAN, WC_ERR_CORRUPT},
};

static void test_header_refuses_each_field(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_fields / sizeof bad_fields[0]; i++) {
        const bad_field *b = &bad_fields[i];
        wcx_header h, back;
        base_header(&h);
        b->set(&h, b->value);
        uint8_t buf[2048];
        size_t n = wcx_header_size(&h);
        wcx_header_write(&h, buf);
        wc_err err = {{0}};
        wc_status s = wcx_header_parse(buf, n, &back, &err);
        if (s != b->want || strstr(err.msg, b->field) == NULL)
            fail_msg("case %zu (%s): status %d (%s), message \"%s\"", i, b->field, (int)s,
                     wc_strerror(s), err.msg);
    }
}

/* The edges that are valid. */
static void test_header_accepts_edges(void **state)
{
    (void)state;
    static const struct {
        void (*set)(wcx_header *h, uint32_t v);
        uint32_t value;
    } ok[] = {
        {set_width, 1u << 24}, {set_height, 1},          {set_comps, 4},
        {set_depth, 16},       {set_depth, 1},           {set_levels, 15},
        {set_levels, 0},       {set_block, 4},           {set_block, 7},
        {set_flags, 0},        {set_nsteps, 1},          {set_nsteps, WCX_MAX_STEPS},
        {set_recon, 0},        {set_recon, 0x3F7FFFFFu}, {set_step, 1}, /* denormal */
        {set_base, 0},         {set_base, 0xC0000000u},  {set_colour, 2},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        wcx_header h, back;
        base_header(&h);
        if (ok[i].set == set_colour) h.wavelet[2] = 97; /* ICT wants 9/7 on 0..2 */
        ok[i].set(&h, ok[i].value);
        uint8_t buf[2048];
        wcx_header_write(&h, buf);
        wc_err err = {{0}};
        wc_status s = wcx_header_parse(buf, wcx_header_size(&h), &back, &err);
        if (s != WC_OK) fail_msg("case %zu: %s", i, err.msg);
        assert_header_equal(&h, &back);
    }
}

static void test_header_version_and_size(void **state)
{
    (void)state;
    wcx_header h, back;
    base_header(&h);
    uint8_t buf[2048];
    size_t n = wcx_header_size(&h);
    wc_err err = {{0}};

    h.version_major = 3; /* a new major: refused before anything else is read */
    wcx_header_write(&h, buf);
    assert_int_equal(wcx_header_parse(buf, 4, &back, &err), WC_ERR_VERSION);
    assert_string_equal(err.msg,
                        "format version 3.0 is not supported (this library reads 1.x to 2.x)");
    h.version_major = 0;
    wcx_header_write(&h, buf);
    assert_int_equal(wcx_header_parse(buf, 4, &back, &err), WC_ERR_VERSION);

    /* Both majors read the same 1.0 fields; 1.0 values need no more than 1.0. */
    h.version_major = 2;
    wcx_header_write(&h, buf);
    assert_int_equal(wcx_header_parse(buf, n, &back, &err), WC_OK);
    assert_int_equal(back.version_major, 2);
    assert_int_equal(wcx_header_needed_major(&h), 1);
    wcx_header_stamp_version(&h);
    assert_int_equal(h.version_major, 1);
    assert_int_equal(h.version_minor, 0);

    /* A value no version defines is damage, named with its field. */
    h.entropy = 200;
    wcx_header_write(&h, buf);
    err.msg[0] = '\0';
    assert_int_equal(wcx_header_parse(buf, n, &back, &err), WC_ERR_CORRUPT);
    assert_string_equal(err.msg, "WHDR entropy 200 is not defined by any format version");
    h.entropy = 0;
    h.wavelet[0] = 54;
    wcx_header_write(&h, buf);
    err.msg[0] = '\0';
    assert_int_equal(wcx_header_parse(buf, n, &back, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "WHDR wavelet[0] 54"));
    h.wavelet[0] = 53;

    /* The Monolithic wavelets (153, 197) and the Explosive ones (203, 207)
     * are 2.0 values: refused in a 1.0 file, stamped 2.0, and paired with
     * the colour transform by family. */
    for (int k = 0; k < 4; k++) {
        const int mono = k & 1; /* here: the 9/7 family */
        const unsigned w53 = k < 2 ? 153 : 203, w97 = k < 2 ? 197 : 207;
        char msg[64];
        wcx_header m = h;
        m.components = 3;
        m.colour = mono ? 2 : 1; /* ICT with a 9/7, RCT with a 5/3 */
        for (int c = 0; c < 3; c++) m.wavelet[c] = (uint8_t)(mono ? w97 : w53);
        const size_t mn = wcx_header_size(&m);
        m.version_major = 1;
        wcx_header_write(&m, buf);
        err.msg[0] = '\0';
        assert_int_equal(wcx_header_parse(buf, mn, &back, &err), WC_ERR_CORRUPT);
        snprintf(msg, sizeof msg, "wavelet[0] %u needs format 2.0", mono ? w97 : w53);
        assert_non_null(strstr(err.msg, msg));
        wcx_header_stamp_version(&m);
        assert_int_equal(m.version_major, 2);
        wcx_header_write(&m, buf);
        assert_int_equal(wcx_header_parse(buf, mn, &back, &err), WC_OK);
        assert_int_equal(back.wavelet[1], mono ? w97 : w53);
        m.wavelet[1] = (uint8_t)(mono ? w53 : w97); /* the other family on a colour component */
        wcx_header_write(&m, buf);
        err.msg[0] = '\0';
        assert_int_equal(wcx_header_parse(buf, mn, &back, &err), WC_ERR_CORRUPT);
        assert_non_null(strstr(err.msg, mono ? "colour ICT" : "colour RCT"));
    }

    h.version_major = WCX_VERSION_MAJOR;
    h.version_minor = WCX_VERSION_MINOR + 1; /* a newer minor may append fields */
    wcx_header_write(&h, buf);
    memset(buf + n, 0xEE, 7);
    err.msg[0] = '\0';
    assert_int_equal(wcx_header_parse(buf, n + 7, &back, &err), WC_OK);
    assert_header_equal(&h, &back);
    assert_int_equal(wcx_header_parse(buf, n - 1, &back, &err), WC_ERR_CORRUPT);

    h.version_minor = WCX_VERSION_MINOR; /* the same minor: not one byte more */
    wcx_header_write(&h, buf);
    err.msg[0] = '\0';
    assert_int_equal(wcx_header_parse(buf, n + 1, &back, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "WHDR is"));
    assert_int_equal(wcx_header_parse(buf, n, &back, &err), WC_OK);

    /* Every shorter payload is refused, read from an exact-size block. */
    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = exact_copy(buf, len);
        wc_status s = wcx_header_parse(copy, len, &back, NULL);
        free(copy);
        assert_int_equal(s, WC_ERR_CORRUPT);
    }
}

/* Entropy 4 (filtered deflate, 2.0): a short record that ends after the
 * wavelets, the lossless scalars implied; refused in a 1.0 file, with
 * levels, another transform or without the lossless flag, and at any
 * other size. */
static void test_header_filtered_short_record(void **state)
{
    (void)state;
    wcx_header h, back;
    base_header(&h);
    h.entropy = WCX_ENTROPY_FILTERED;
    h.levels = 0;
    h.wavelet[0] = h.wavelet[1] = 53;
    wcx_header_stamp_version(&h);
    assert_int_equal(h.version_major, 2);
    const size_t n = wcx_header_size(&h);
    assert_int_equal(n, 20 + 3);
    uint8_t buf[2048];
    wc_err err = {{0}};
    wcx_header_write(&h, buf);
    assert_int_equal(wcx_header_parse(buf, n, &back, &err), WC_OK);
    assert_int_equal(back.entropy, WCX_ENTROPY_FILTERED);
    assert_int_equal(back.nsteps, 1);
    assert_true(back.base_step == 1.0f && back.recon == 0.0f);
    for (int c = 0; c < 3; c++) assert_true(back.steps[c][0] == 1.0f);
    assert_int_equal(back.wavelet[2], 53);
    /* one byte more (the same minor), or a newer minor's appended field */
    assert_int_equal(wcx_header_parse(buf, n + 1, &back, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "entropy 4"));
    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = exact_copy(buf, len);
        assert_int_equal(wcx_header_parse(copy, len, &back, NULL), WC_ERR_CORRUPT);
        free(copy);
    }
    wcx_header m = h;
    m.version_minor = WCX_VERSION_MINOR + 1;
    wcx_header_write(&m, buf);
    assert_int_equal(wcx_header_parse(buf, n + 5, &back, &err), WC_OK);
    static const struct {
        const char *what;
        uint16_t major;
        uint8_t levels, transform, flags;
    } bad[] = {{"entropy 4 needs format 2.0", 1, 0, 0, 1},
               {"needs transform 0, levels 0", 2, 1, 0, 1},
               {"needs transform 0, levels 0", 2, 0, 1, 1},
               {"the lossless flag", 2, 0, 0, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = h;
        m.version_major = bad[i].major;
        m.levels = bad[i].levels;
        m.transform = bad[i].transform;
        m.flags = bad[i].flags;
        wcx_header_write(&m, buf);
        err.msg[0] = '\0';
        assert_int_equal(wcx_header_parse(buf, n, &back, &err), WC_ERR_CORRUPT);
        if (!strstr(err.msg, bad[i].what)) fail_msg("case %zu: \"%s\"", i, err.msg);
    }
}

/* Any bit flip in a WHDR payload (past the CRC, as a hostile writer could
 * make it): parsed or refused with a field error, never a crash. */
static void test_header_bit_flips(void **state)
{
    (void)state;
    wcx_header h, back;
    base_header(&h);
    h.components = 4;
    h.nsteps = 3;
    uint8_t buf[2048];
    size_t n = wcx_header_size(&h);
    wcx_header_write(&h, buf);
    for (size_t bit = 0; bit < n * 8; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << bit % 8);
        uint8_t *copy = exact_copy(buf, n);
        wc_status s = wcx_header_parse(copy, n, &back, NULL);
        free(copy);
        buf[bit / 8] ^= (uint8_t)(1u << bit % 8);
        assert_true(s == WC_OK || s == WC_ERR_CORRUPT || s == WC_ERR_VERSION || s == WC_ERR_LIMIT);
    }
}

/* ---- reader: damage ------------------------------------------------------ */

static void test_reader_every_truncation(void **state)
{
    (void)state;
    static uint8_t file[FILE_CAP];
    size_t n = build_file(file, sizeof file);
    size_t count = 99;
    assert_int_equal(read_exact(file, n, 16, &count, NULL), WC_OK);
    assert_int_equal(count, 5);
    for (size_t len = 0; len < n; len++) {
        wc_err err = {{0}};
        count = 99;
        wc_status s = read_exact(file, len, 16, &count, &err);
        /* Empty input is "not a wcodec file"; any other prefix is a cut. */
        if (s != (len == 0 ? WC_ERR_FORMAT : WC_ERR_TRUNCATED))
            fail_msg("prefix %zu: status %d (%s)", len, (int)s, err.msg);
        assert_int_equal(count, 0); /* nothing listed from a damaged file */
        assert_true(err.msg[0] != '\0');
    }
}

static void test_reader_every_bit_flip(void **state)
{
    (void)state;
    static uint8_t file[FILE_CAP];
    size_t n = build_file(file, sizeof file);
    for (size_t bit = 0; bit < n * 8; bit++) {
        file[bit / 8] ^= (uint8_t)(1u << bit % 8);
        wc_err err = {{0}};
        size_t count;
        wc_status s = read_exact(file, n, 16, &count, &err);
        file[bit / 8] ^= (uint8_t)(1u << bit % 8);
        if (!is_damage_status(s))
            fail_msg("bit %zu (byte %zu): status %d (%s)", bit, bit / 8, (int)s, err.msg);
        if (bit < WCX_MAGIC_SIZE * 8) assert_int_equal(s, WC_ERR_FORMAT);
    }
}

static void test_reader_crc_message(void **state)
{
    (void)state;
    static uint8_t file[FILE_CAP];
    size_t n = build_file(file, sizeof file);
    wcx_chunk c[8];
    size_t count;
    assert_int_equal(wcx_read_chunks(file, n, c, 8, &count, NULL), WC_OK);
    assert_int_equal(c[3].type, WCX_WDAT);
    file[c[3].offset + 8 + 5] ^= 0x10; /* one payload bit */
    wc_err err = {{0}};
    assert_int_equal(wcx_read_chunks(file, n, c, 8, &count, &err), WC_ERR_CHECKSUM);
    char want[64];
    snprintf(want, sizeof want, "chunk 3 (WDAT) at byte %zu: CRC mismatch", c[3].offset);
    assert_non_null(strstr(err.msg, want));
}

/* Appends a chunk (length, type, data, CRC of type and data). */
static void put_chunk(uint8_t *f, size_t *o, uint32_t type, const uint8_t *data, size_t len)
{
    wc_wr32le(f + *o, (uint32_t)len);
    wc_wr32le(f + *o + 4, type);
    if (len) memcpy(f + *o + 8, data, len);
    wc_wr32le(f + *o + 8 + len, (uint32_t)crc32(0L, f + *o + 4, (uInt)(len + 4)));
    *o += 12 + len;
}

/* A chunk of several MiB is checked in pieces on threads (chunk_crc): the
 * same verdict for 1, 2, 3 and 7 threads, intact and with one bit flipped
 * in a middle piece or in the last, short one. */
static void test_reader_large_chunk_threads(void **state)
{
    (void)state;
    const size_t big = ((size_t)9 << 20) + 12345;
    uint8_t *data = malloc(big);
    for (size_t i = 0; i < big; i++) data[i] = (uint8_t)(i * 131 + (i >> 9));
    const size_t n = WCX_MAGIC_SIZE + 16 + (12 + big) + 12;
    uint8_t *f = malloc(n);
    memcpy(f, WCX_MAGIC, WCX_MAGIC_SIZE);
    size_t o = WCX_MAGIC_SIZE;
    put_chunk(f, &o, WCX_WHDR, (const uint8_t *)"head", 4);
    const size_t dat = o;
    put_chunk(f, &o, WCX_WDAT, data, big);
    put_chunk(f, &o, WCX_WEND, NULL, 0);
    assert_int_equal(o, n);
    static const int threads[] = {1, 2, 3, 7};
    const size_t flips[] = {dat + 8 + ((size_t)5 << 20) + 17, dat + 8 + big - 3};
    for (int round = 0; round < 3; round++) {
        if (round) f[flips[round - 1]] ^= 0x04;
        for (int t = 0; t < 4; t++) {
            wcx_chunk c[4];
            size_t count = 0;
            wc_err err = {{0}};
            wc_status s = wcx_read_chunks_mt(f, n, c, 4, &count, threads[t], &err);
            assert_int_equal(s, round ? WC_ERR_CHECKSUM : WC_OK);
            if (round) assert_non_null(strstr(err.msg, "chunk 1 (WDAT)"));
        }
        if (round) f[flips[round - 1]] ^= 0x04;
    }
    free(f);
    free(data);
}

/* wcx_read_chunks_lazy leaves only the CRCs of chunks of the lazy type
 * and size unchecked, for wcx_chunk_crc_ok; everything else (smaller
 * chunks of that type, other types, the framing) it checks as
 * wcx_read_chunks_mt does, and lazy 0 checks every CRC. */
static void test_reader_lazy_crc(void **state)
{
    (void)state;
    const size_t big = ((size_t)2 << 20) + 7, small = 1000, min = (size_t)1 << 20;
    uint8_t *data = malloc(big);
    for (size_t i = 0; i < big; i++) data[i] = (uint8_t)(i * 29 + (i >> 11));
    const size_t n = WCX_MAGIC_SIZE + 16 + (12 + small) + (12 + big) + 12;
    uint8_t *f = malloc(n);
    memcpy(f, WCX_MAGIC, WCX_MAGIC_SIZE);
    size_t o = WCX_MAGIC_SIZE;
    put_chunk(f, &o, WCX_WHDR, (const uint8_t *)"head", 4);
    const size_t at_small = o;
    put_chunk(f, &o, WCX_WDAT, data, small);
    const size_t at_big = o;
    put_chunk(f, &o, WCX_WDAT, data, big);
    put_chunk(f, &o, WCX_WEND, NULL, 0);
    assert_int_equal(o, n);
    wcx_chunk c[5];
    size_t count = 0;
    wc_err err = {{0}};
    for (int threads = 1; threads <= 3; threads += 2) {
        assert_int_equal(wcx_read_chunks_lazy(f, n, c, 5, &count, threads, WCX_WDAT, min, &err),
                         WC_OK);
        assert_int_equal(count, 4);
        assert_true(wcx_chunk_crc_ok(&c[1], threads) && wcx_chunk_crc_ok(&c[2], threads));
        f[at_big + 8 + big / 2] ^= 0x10; /* the big chunk's CRC: left to the caller */
        assert_int_equal(wcx_read_chunks_lazy(f, n, c, 5, &count, threads, WCX_WDAT, min, &err),
                         WC_OK);
        assert_false(wcx_chunk_crc_ok(&c[2], threads));
        assert_int_equal(wcx_read_chunks_lazy(f, n, c, 5, &count, threads, 0, min, &err),
                         WC_ERR_CHECKSUM);
        err.msg[0] = '\0';
        assert_int_equal(wcx_read_chunks_mt(f, n, c, 5, &count, threads, &err), WC_ERR_CHECKSUM);
        assert_non_null(strstr(err.msg, "chunk 2 (WDAT)"));
        f[at_big + 8 + big / 2] ^= 0x10;
        f[at_small + 8 + 3] ^= 0x01; /* under the size: checked */
        err.msg[0] = '\0';
        assert_int_equal(wcx_read_chunks_lazy(f, n, c, 5, &count, threads, WCX_WDAT, min, &err),
                         WC_ERR_CHECKSUM);
        assert_non_null(strstr(err.msg, "chunk 1 (WDAT)"));
        f[at_small + 8 + 3] ^= 0x01;
        /* The framing still: the file cut inside the big chunk. */
        assert_int_equal(
            wcx_read_chunks_lazy(f, n - 20, c, 5, &count, threads, WCX_WDAT, min, &err),
            WC_ERR_TRUNCATED);
        assert_int_equal(count, 0);
    }
    free(f);
    free(data);
}

static void test_reader_bad_magic(void **state)
{
    (void)state;
    static uint8_t file[FILE_CAP];
    size_t n = build_file(file, sizeof file);
    file[1] = 'P';
    wc_err err = {{0}};
    size_t count;
    assert_int_equal(read_exact(file, n, 16, &count, &err), WC_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "not a wcodec file"));
    err.msg[0] = '\0';
    assert_int_equal(read_exact((const uint8_t *)"GIF89a", 6, 16, &count, &err), WC_ERR_FORMAT);
    assert_int_equal(wcx_read_chunks(NULL, 0, NULL, 0, &count, NULL), WC_ERR_FORMAT);
    assert_int_equal(wcx_read_chunks(file, n, NULL, 4, &count, NULL), WC_ERR_ARG);
}

/* A length that points past the end is refused from the length alone:
 * the file sits in an exact block, so a read of the data or of a CRC
 * beyond it would be a sanitizer report. */
static void test_reader_length_past_end(void **state)
{
    (void)state;
    static uint8_t file[FILE_CAP];
    size_t n = build_file(file, sizeof file);
    wcx_chunk c[8];
    size_t count;
    assert_int_equal(wcx_read_chunks(file, n, c, 8, &count, NULL), WC_OK);
    size_t off = c[3].offset;
    const uint32_t lengths[] = {(uint32_t)(n - off - 11), 0x00FFFFFFu, WCX_MAX_CHUNK_SIZE};
    for (size_t i = 0; i < 3; i++) {
        wc_wr32le(file + off, lengths[i]);
        wc_err err = {{0}};
        assert_int_equal(read_exact(file, n, 8, &count, &err), WC_ERR_TRUNCATED);
        char want[64];
        snprintf(want, sizeof want, "chunk 3 (WDAT) at byte %zu", off);
        assert_non_null(strstr(err.msg, want));
    }
    wc_wr32le(file + off, WCX_MAX_CHUNK_SIZE + 1u); /* beyond the format's maximum */
    wc_err err = {{0}};
    assert_int_equal(read_exact(file, n, 8, &count, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "exceeds"));
    wc_wr32le(file + off, 0xFFFFFFFFu);
    assert_int_equal(read_exact(file, n, 8, &count, NULL), WC_ERR_CORRUPT);
}

/* ---- reader: structure --------------------------------------------------- */

/* Magic, then the chunks given as (type, payload) pairs, by hand. */
static size_t make_file(uint8_t *buf, const uint32_t *types, const char *const *data, int n)
{
    memcpy(buf, WCX_MAGIC, WCX_MAGIC_SIZE);
    size_t pos = WCX_MAGIC_SIZE;
    for (int i = 0; i < n; i++)
        pos += raw_chunk(buf + pos, types[i], data[i], (uint32_t)strlen(data[i]));
    return pos;
}

static void expect_structure(const uint32_t *types, const char *const *data, int n, wc_status want,
                             const char *msg_part)
{
    static uint8_t buf[FILE_CAP];
    size_t size = make_file(buf, types, data, n);
    wc_err err = {{0}};
    size_t count;
    wc_status s = read_exact(buf, size, 16, &count, &err);
    if (s != want || (msg_part != NULL && strstr(err.msg, msg_part) == NULL))
        fail_msg("status %d, want %d, message \"%s\"", (int)s, (int)want, err.msg);
}

static void test_reader_structure_rules(void **state)
{
    (void)state;
    const uint32_t H = WCX_WHDR, D = WCX_WDAT, E = WCX_WEND;
    {
        const uint32_t t[] = {D, H, E};
        const char *const d[] = {"x", "h", ""};
        expect_structure(t, d, 3, WC_ERR_CORRUPT,
                         "chunk 0 (WDAT) at byte 8: the first chunk must be WHDR");
    }
    {
        const uint32_t t[] = {H, D, H, E};
        const char *const d[] = {"h", "x", "h", ""};
        expect_structure(t, d, 4, WC_ERR_CORRUPT, "chunk 2 (WHDR)");
    }
    {
        const uint32_t t[] = {H, D, E};
        const char *const d[] = {"h", "x", "!"};
        expect_structure(t, d, 3, WC_ERR_CORRUPT, "WEND must be empty");
    }
    {
        const uint32_t t[] = {H, D};
        const char *const d[] = {"h", "x"};
        expect_structure(t, d, 2, WC_ERR_TRUNCATED, "without a WEND");
    }
    {
        expect_structure(NULL, NULL, 0, WC_ERR_TRUNCATED, "without a WEND");
    }
    {
        const uint32_t t[] = {E};
        const char *const d[] = {""};
        expect_structure(t, d, 1, WC_ERR_CORRUPT, "must be WHDR");
    }
    {
        const uint32_t t[] = {H, E};
        const char *const d[] = {"", ""};
        expect_structure(t, d, 2, WC_OK, NULL);
    }
}

static void test_reader_bytes_after_wend(void **state)
{
    (void)state;
    static uint8_t file[FILE_CAP];
    size_t n = build_file(file, sizeof file);
    size_t count;
    for (size_t extra = 1; extra <= 13; extra++) {
        memset(file + n, 0, extra);
        wc_err err = {{0}};
        assert_int_equal(read_exact(file, n + extra, 16, &count, &err), WC_ERR_CORRUPT);
        assert_non_null(strstr(err.msg, "after WEND"));
    }
    /* even a whole valid chunk after WEND */
    size_t m = n + raw_chunk(file + n, WCX_WDAT, "late", 4);
    assert_int_equal(read_exact(file, m, 16, &count, NULL), WC_ERR_CORRUPT);
}

static void test_reader_unknown_chunks(void **state)
{
    (void)state;
    static uint8_t buf[FILE_CAP];
    const uint32_t t[] = {WCX_WHDR, WCX_FOURCC('z', 'z', 'Z', 'z'),
                          WCX_WDAT, WCX_FOURCC(0, 1, 0xFF, 'A'),
                          WCX_WTAB, WCX_WEND};
    const char *const d[] = {"h", "future", "data", "", "tab", ""};
    size_t size = make_file(buf, t, d, 6);
    wcx_chunk c[6];
    size_t count;
    wc_err err = {{0}};
    assert_int_equal(wcx_read_chunks(buf, size, c, 6, &count, &err), WC_OK);
    assert_int_equal(count, 6);
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(c[i].type, t[i]);
        assert_int_equal(c[i].size, strlen(d[i]));
        assert_memory_equal(c[i].data, d[i], c[i].size);
    }
    char name[9];
    wcx_type_name(c[1].type, name);
    assert_string_equal(name, "zzZz");
    wcx_type_name(c[3].type, name);
    assert_string_equal(name, "0001FF41"); /* bytes in file order */
    wcx_type_name(WCX_WDAT, name);
    assert_string_equal(name, "WDAT");
}

/* A single-chunk file (WONE, format 2.0) of a record and parts: the file
 * wcx_one_size says, read back as the chunks the parts stand for (each
 * pointing at its own bytes), and refused when cut anywhere, listed in
 * too short a list, or 4096 bytes long. */
static size_t one_file(uint8_t *buf, size_t cap, unsigned colour, size_t plane_bytes,
                       unsigned *nparts, size_t *part_size)
{
    wcx_header h;
    base_header(&h);
    h.levels = 0;
    h.entropy = WCX_ENTROPY_FILTERED;
    h.colour = (uint8_t)colour;
    h.wavelet[0] = h.wavelet[1] = h.wavelet[2] = 53;
    wcx_header_stamp_version(&h);
    static uint8_t rec[64], data[4][5000];
    wcx_header_write(&h, rec);
    const uint8_t *part[WCX_ONE_MAX_PARTS];
    unsigned n = 0;
    part_size[n] = wcx_header_size(&h);
    part[n++] = rec;
    for (unsigned k = 0; k < (colour == 3 ? 2u : 3u); k++) {
        for (size_t i = 0; i < sizeof data[k]; i++) data[k][i] = (uint8_t)(i * 7 + k);
        part_size[n] = k == 0 && colour == 3 ? 5 : plane_bytes + k;
        part[n++] = data[k];
    }
    wcx_writer w;
    wcx_writer_init(&w, buf, cap);
    wcx_one_put(&w, part, part_size, n);
    size_t size = 0;
    assert_int_equal(wcx_writer_finish(&w, &size), WC_OK);
    assert_int_equal(size, wcx_one_size(part_size, n));
    *nparts = n;
    return size;
}

static void test_one_chunk_file(void **state)
{
    (void)state;
    static uint8_t buf[8192];
    for (unsigned colour = 0; colour <= 3; colour += 3) {
        unsigned n;
        size_t part_size[WCX_ONE_MAX_PARTS];
        const size_t size = one_file(buf, sizeof buf, colour, 200, &n, part_size);
        wcx_chunk c[WCX_ONE_MAX_PARTS];
        size_t count = 0;
        wc_err err = {{0}};
        assert_int_equal(wcx_read_chunks(buf, size, c, WCX_ONE_MAX_PARTS, &count, &err), WC_OK);
        assert_int_equal(count, n + 1);
        const uint32_t want[] = {WCX_WHDR, colour == 3 ? WCX_WPAL : WCX_WDAT, WCX_WDAT, WCX_WDAT};
        for (unsigned i = 0; i < n; i++) {
            assert_int_equal(c[i].type, want[i]);
            assert_int_equal(c[i].size, part_size[i]);
            assert_int_equal(c[i].offset, (size_t)(c[i].data - buf));
        }
        assert_int_equal(c[n].type, WCX_WEND);
        assert_ptr_equal(c[n - 1].data + c[n - 1].size, buf + size - 4); /* then the CRC */
        wcx_header h;
        assert_int_equal(wcx_header_parse(c[0].data, c[0].size, &h, &err), WC_OK);
        assert_int_equal(h.colour, colour);
        for (size_t cut = 8; cut < size; cut++)
            assert_int_equal(read_exact(buf, cut, WCX_ONE_MAX_PARTS, &count, &err),
                             WC_ERR_TRUNCATED);
        assert_int_equal(read_exact(buf, size, n, &count, &err), WC_ERR_LIMIT);
    }
    /* 4096 bytes and more: not a single-chunk file. */
    unsigned n;
    size_t part_size[WCX_ONE_MAX_PARTS];
    size_t size = one_file(buf, sizeof buf, 0, 1300, &n, part_size);
    assert_true(size < WCX_ONE_MAX_FILE);
    size = one_file(buf, sizeof buf, 0, 1360, &n, part_size);
    assert_true(size >= WCX_ONE_MAX_FILE);
    size_t count;
    wc_err err = {{0}};
    assert_int_equal(read_exact(buf, size, WCX_ONE_MAX_PARTS, &count, &err), WC_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "WONE"));
}

static void test_reader_chunk_limit(void **state)
{
    (void)state;
    size_t cap = WCX_MAGIC_SIZE + (WCX_MAX_CHUNKS + 2) * WCX_CHUNK_OVERHEAD;
    uint8_t *buf = malloc(cap);
    wcx_chunk *c = calloc(WCX_MAX_CHUNKS + 8, sizeof *c);
    assert_non_null(buf);
    assert_non_null(c);
    /* nchunks chunks: WHDR, empty unknowns, WEND */
    for (unsigned nchunks = WCX_MAX_CHUNKS; nchunks <= WCX_MAX_CHUNKS + 1; nchunks++) {
        wcx_writer w;
        wcx_writer_init(&w, buf, cap);
        wcx_put_chunk(&w, WCX_WHDR, NULL, 0);
        for (unsigned i = 2; i < nchunks; i++)
            wcx_put_chunk(&w, WCX_FOURCC('p', 'a', 'd', ' '), NULL, 0);
        wcx_put_chunk(&w, WCX_WEND, NULL, 0);
        size_t size, count;
        assert_int_equal(wcx_writer_finish(&w, &size), WC_OK);
        wc_err err = {{0}};
        wc_status s = wcx_read_chunks(buf, size, c, WCX_MAX_CHUNKS + 8, &count, &err);
        assert_int_equal(s, nchunks <= WCX_MAX_CHUNKS ? WC_OK : WC_ERR_LIMIT);
        /* the caller's max binds too */
        err.msg[0] = '\0';
        assert_int_equal(wcx_read_chunks(buf, size, c, 5, &count, &err), WC_ERR_LIMIT);
        assert_non_null(strstr(err.msg, "chunk 5 at byte"));
        assert_int_equal(wcx_read_chunks(buf, size, c, 0, &count, NULL), WC_ERR_LIMIT);
    }
    free(c);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_reader_roundtrip),
        cmocka_unit_test(test_writer_golden_bytes),
        cmocka_unit_test(test_writer_overflow),
        cmocka_unit_test(test_writer_space_after_overflow),
        cmocka_unit_test(test_writer_misuse),
        cmocka_unit_test(test_header_roundtrip_random),
        cmocka_unit_test(test_header_layout),
        cmocka_unit_test(test_header_refuses_each_field),
        cmocka_unit_test(test_header_accepts_edges),
        cmocka_unit_test(test_header_version_and_size),
        cmocka_unit_test(test_header_filtered_short_record),
        cmocka_unit_test(test_header_bit_flips),
        cmocka_unit_test(test_reader_every_truncation),
        cmocka_unit_test(test_reader_every_bit_flip),
        cmocka_unit_test(test_reader_crc_message),
        cmocka_unit_test(test_reader_bad_magic),
        cmocka_unit_test(test_reader_length_past_end),
        cmocka_unit_test(test_reader_structure_rules),
        cmocka_unit_test(test_reader_bytes_after_wend),
        cmocka_unit_test(test_reader_unknown_chunks),
        cmocka_unit_test(test_reader_chunk_limit),
        cmocka_unit_test(test_one_chunk_file),
        cmocka_unit_test(test_reader_large_chunk_threads),
        cmocka_unit_test(test_reader_lazy_crc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
