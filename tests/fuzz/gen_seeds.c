/*
 * gen_seeds.c -- writes the seed corpus of every fuzz target:
 *
 *     fuzz_gen_seeds DIR          (writes DIR/<target>/seed_*)
 *     fuzz_gen_seeds --check DIR  (says whether DIR holds exactly those)
 *
 * Seeds are small valid inputs that reach each decoder's main paths, so
 * the fuzzers start deep instead of rediscovering the formats: .wcx files
 * of every coding mode, PNGs of every colour type (palette, tRNS,
 * interlaced, sBIT depths), PGM/PPM of 8 and 16 bits with comments,
 * Huffman tables, code blocks and RLE streams made by the encoders, and
 * parameter strings for the round trip. Everything is deterministic, so
 * rerunning it rewrites the same files; crash regressions sit beside the
 * seeds under other names and are never touched.
 *
 * The seeds are this program's output and nothing else: writing also
 * removes any seed_* file it no longer makes, and the ctest fuzz_seeds
 * runs --check on tests/fuzz/corpus, so a change to the encoders or to
 * this file that changes a seed fails until the corpus is regenerated.
 */
#include <dirent.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <unistd.h>

#include "block_coder.h"
#include "huffman.h"
#include "image_io.h"
#include "rle.h"
#include "wcodec.h"

static const char *g_dir;
static unsigned g_count;
static int g_check;         /* --check: compare with the files instead of writing */
static unsigned g_mismatch; /* --check: seeds missing, different or extra */

#define MAX_SEEDS 256
static char g_made[MAX_SEEDS][96]; /* "<target>/seed_<name>" of every seed made */

static void die(const char *what)
{
    fprintf(stderr, "fuzz_gen_seeds: %s\n", what);
    exit(1);
}

/* Whether path holds exactly data[0..size). */
static int same_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    int same = !ferror(f) && fgetc(f) == EOF && n == size && memcmp(buf, data, size) == 0;
    fclose(f);
    return same;
}

static void put_file(const char *target, const char *name, const void *data, size_t size)
{
    if (g_count == MAX_SEEDS || size > (1 << 16)) die("too many seeds or a seed too large");
    snprintf(g_made[g_count], sizeof g_made[g_count], "%s/seed_%s", target, name);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_dir, g_made[g_count]);
    g_count++;
    if (g_check) {
        if (!same_file(path, data, size)) {
            fprintf(stderr, "fuzz_gen_seeds: %s is missing or differs from what is made now\n",
                    path);
            g_mismatch++;
        }
        return;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", g_dir, target);
    mkdir(dir, 0777);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) die(path);
}

/* seed_* files of DIR/target that no longer come from here: removed when
 * writing, counted as a mismatch when checking. Other names (regress_*)
 * are left alone. */
static void sweep(const char *target)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", g_dir, target);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "seed_", 5) != 0) continue;
        const size_t tl = strlen(target);
        int made = 0;
        for (unsigned i = 0; i < g_count && !made; i++)
            made = strncmp(g_made[i], target, tl) == 0 && g_made[i][tl] == '/' &&
                   strcmp(g_made[i] + tl + 1, e->d_name) == 0;
        if (made) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (g_check) {
            fprintf(stderr, "fuzz_gen_seeds: %s is not made here (a seed_* name)\n", path);
            g_mismatch++;
        } else if (remove(path) == 0) {
            printf("fuzz_gen_seeds: removed %s, no longer made\n", path);
        }
    }
    closedir(d);
}

/* A smooth pattern with an edge and some texture: every band gets
 * coefficients, and the files stay small. */
static void fill(wc_image *img, unsigned seed)
{
    const uint32_t mask = (1u << img->bit_depth) - 1;
    uint32_t x = 2463534242u + seed;
    for (uint32_t y = 0; y < img->height; y++)
        for (uint32_t i = 0; i < img->width * img->components; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            uint32_t c = i % img->components, px = i / img->components;
            uint32_t v = (px * 5 + y * 3 + c * 40) * (mask + 1) / 256 + (x & 3);
            if (px > img->width / 2 && y > img->height / 3) v += (mask + 1) / 3;
            v &= mask;
            size_t at = (size_t)y * img->width * img->components + i;
            if (img->bit_depth > 8)
                ((uint16_t *)img->pixels)[at] = (uint16_t)v;
            else
                ((uint8_t *)img->pixels)[at] = (uint8_t)v;
        }
}

static void make_image(wc_image *img, uint32_t w, uint32_t h, uint32_t comps, uint32_t depth,
                       unsigned seed)
{
    memset(img, 0, sizeof *img);
    img->width = w;
    img->height = h;
    img->components = comps;
    img->bit_depth = depth;
    if (wc_image_alloc(img) != WC_OK) die("out of memory");
    fill(img, seed);
}

/* ---- fuzz_decode: .wcx files ------------------------------------------------ */

typedef struct wcx_seed {
    const char *name;
    uint32_t w, h, comps, depth;
    int lossless, transform, wavelet, entropy, block, levels;
    float quality;
    int flat; /* 1: all samples zero (a large image in a small file); 2: few colours */
} wcx_seed;

static const wcx_seed wcx_seeds[] = {
    {"lossless_rgb.wcx", 24, 20, 3, 8, 1, 0, 53, 0, 16, 3, 0, 0},
    {"lossless_gray1.wcx", 17, 9, 1, 1, 1, 0, 53, 0, 16, 2, 0, 0},
    {"lossless_rgba16.wcx", 12, 12, 4, 16, 1, 0, 53, 0, 16, 2, 0, 0},
    {"lossless_deflate_ga.wcx", 20, 14, 2, 8, 1, 0, 53, 1, 32, 2, 0, 0},
    {"lossy97_ga.wcx", 24, 24, 2, 8, 0, 0, 97, 0, 16, 3, 60, 0},
    {"lossy97_deflate_rgb.wcx", 20, 20, 3, 8, 0, 0, 97, 1, 16, 2, 50, 0},
    {"lossy53_gray12.wcx", 16, 24, 1, 12, 0, 0, 53, 0, 16, 2, 70, 0},
    {"dct_rgb.wcx", 24, 16, 3, 8, 0, 1, 97, 0, 16, 0, 60, 0},
    {"dct_deflate_gray.wcx", 16, 16, 1, 8, 0, 1, 97, 1, 16, 0, 40, 0},
    {"lot_rgba.wcx", 16, 16, 4, 8, 0, 2, 97, 0, 16, 1, 60, 0},
    {"levels0_gray.wcx", 9, 7, 1, 8, 1, 0, 53, 0, 16, 0, 0, 0},
    {"one_pixel.wcx", 1, 1, 1, 8, 1, 0, 53, 0, 16, 5, 0, 0},
    {"block128_gray.wcx", 40, 8, 1, 8, 1, 0, 53, 0, 128, 1, 0, 0},
    /* Entropy 2 (format 2.0): blocks of several 32x16 tiles, edge tiles. */
    {"tiles_lossless_rgb.wcx", 70, 40, 3, 8, 1, 0, 53, 2, 64, 2, 0, 0},
    {"tiles_lossy97_gray.wcx", 45, 37, 1, 8, 0, 0, 97, 2, 128, 1, 80, 0},
    /* Colour 3 (format 2.0): a palette file (WPAL), the automatic layout. */
    {"palette_rgb.wcx", 30, 21, 3, 8, 1, 0, 53, 0, 16, WC_LEVELS_AUTO, 0, 2},
    /* Entropy 4 (format 2.0): filtered deflate, a plane a block; 1-bit
     * packing of few levels, and RGB through the RCT (16-bit packing). */
    {"filtered_gray.wcx", 23, 17, 1, 8, 1, 0, 53, 4, 16, 0, 0, 2},
    {"filtered_rgb.wcx", 19, 13, 3, 8, 1, 0, 53, 4, 16, 0, 0, 0},
    /* 4 Mpixels in about 1 KB: starts the fuzzer where a small input costs
     * large memory (the harness's limits are 4 Mpixels and 256 MiB). */
    {"flat_2048_gray.wcx", 2048, 2048, 1, 8, 1, 0, 53, 0, 128, 5, 0, 1},
    /* Entropy 3 (format 2.0): arithmetic coding, no tables (last: the
     * seeds above keep their images). */
    {"arith_lossless_rgb.wcx", 30, 20, 3, 8, 1, 0, 53, 3, 16, 2, 0, 0},
    {"arith_lossy97_gray.wcx", 45, 37, 1, 8, 0, 0, 97, 3, 64, 2, 70, 0},
};

static void seeds_decode(void)
{
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) die("no context");
    for (size_t i = 0; i < sizeof wcx_seeds / sizeof wcx_seeds[0]; i++) {
        const wcx_seed *s = &wcx_seeds[i];
        wc_image img;
        make_image(&img, s->w, s->h, s->comps, s->depth, (unsigned)i);
        if (s->flat == 1) memset(img.pixels, 0, img.stride * img.height);
        if (s->flat == 2) /* 4 levels a component: a palette of at most 64 */
            for (size_t k = 0; k < img.stride * img.height; k++) ((uint8_t *)img.pixels)[k] &= 0xC0;
        wc_params p;
        wc_params_init(&p);
        p.lossless = s->lossless;
        p.transform = (wc_transform)s->transform;
        p.wavelet = s->wavelet;
        p.entropy = (wc_entropy)s->entropy;
        p.block_size = s->block;
        p.levels = s->levels;
        p.quality = s->quality;
        p.threads = 1;
        p.backend = WC_BACKEND_CPU;
        void *buf = NULL;
        size_t size = 0;
        if (wc_encode_alloc(ctx, &p, &img, &buf, &size) != WC_OK) die(wc_ctx_error(ctx));
        put_file("fuzz_decode", s->name, buf, size);
        free(buf);
        if (i < 2) { /* the same with one item of every kind (WMET chunks) */
            wc_meta *m = wc_meta_create();
            uint8_t v[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
            static const size_t sizes[] = {0, 40, 14, 30, 12, 4, 32, 1, 17, 7};
            for (int k = WC_META_ICC; k <= WC_META_TIME; k++)
                if (wc_meta_add(m, (wc_meta_kind)k, k == WC_META_TEXT ? WC_META_TEXT_UTF8 : 0,
                                k == WC_META_TEXT ? "Comment" : "", v,
                                sizes[k] > 32 ? 32 : sizes[k]) != WC_OK)
                    die("metadata");
            p.meta = m;
            if (wc_encode_alloc(ctx, &p, &img, &buf, &size) != WC_OK) die(wc_ctx_error(ctx));
            char name[64];
            snprintf(name, sizeof name, "meta_%s", s->name);
            put_file("fuzz_decode", name, buf, size);
            free(buf);
            wc_meta_free(m);
        }
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* ---- fuzz_png ------------------------------------------------------------------ */

static void png_via_writer(const char *name, uint32_t w, uint32_t h, uint32_t comps, uint32_t depth)
{
    wc_image img;
    make_image(&img, w, h, comps, depth, w * 31 + h);
    char tmp[] = "/tmp/fuzz_seed_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) die("mkstemp");
    close(fd);
    wc_err err = {{0}};
    if (png_write_file(tmp, &img, &err) != WC_OK) die(err.msg);
    FILE *f = fopen(tmp, "rb");
    static uint8_t buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (!f || n == 0 || n == sizeof buf) die("reading back a PNG seed");
    fclose(f);
    remove(tmp);
    put_file("fuzz_png", name, buf, n);
    wc_image_free(&img);
}

typedef struct membuf {
    uint8_t data[1 << 14];
    size_t size;
} membuf;

static void png_mem_write(png_structp png, png_bytep p, png_size_t n)
{
    membuf *m = png_get_io_ptr(png);
    if (m->size + n > sizeof m->data) png_error(png, "seed too large");
    memcpy(m->data + m->size, p, n);
    m->size += n;
}

static void png_mem_flush(png_structp png) { (void)png; }

/* What png_write_file cannot make: palette (with and without tRNS), an
 * interlaced image, a colour key, and text chunks. */
static const membuf *png_direct(const char *name, int ctype, int depth, int interlace, int trns)
{
    static membuf m;
    m.size = 0;
    const uint32_t w = 13, h = 11;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info || setjmp(png_jmpbuf(png))) die("libpng");
    png_set_write_fn(png, &m, png_mem_write, png_mem_flush);
    png_set_IHDR(png, info, w, h, depth, ctype, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (ctype == PNG_COLOR_TYPE_PALETTE) {
        png_color pal[16];
        png_byte alpha[16];
        for (int i = 0; i < 16; i++) {
            pal[i] = (png_color){(png_byte)(i * 16), (png_byte)(255 - i * 9), (png_byte)(i * 5)};
            alpha[i] = (png_byte)(255 - i * 15);
        }
        png_set_PLTE(png, info, pal, 16);
        if (trns) png_set_tRNS(png, info, alpha, 16, NULL);
    } else if (trns) {
        png_color_16 key = {0, 10, 20, 30, 10};
        png_set_tRNS(png, info, NULL, 0, &key);
    }
    png_text text = {PNG_TEXT_COMPRESSION_zTXt, "Comment", "seed", 4, 0, NULL, NULL};
    png_set_text(png, info, &text, 1);
    png_write_info(png, info);
    if (depth < 8) png_set_packing(png);
    const int channels = ctype == PNG_COLOR_TYPE_RGB          ? 3
                         : ctype == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
                         : ctype == PNG_COLOR_TYPE_RGB_ALPHA  ? 4
                                                              : 1;
    const int bps = depth == 16 ? 2 : 1;
    static png_byte rows[11][13 * 4 * 2];
    png_bytep rp[11];
    /* Sample values fit the depth, and palette indices the 16 entries. */
    const unsigned mask =
        ctype == PNG_COLOR_TYPE_PALETTE ? 15u : (1u << (depth < 8 ? depth : 8)) - 1;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t i = 0; i < w * channels * bps; i++)
            rows[y][i] = (png_byte)(((i / bps) * 7 + y * 3) & mask);
        rp[y] = rows[y];
    }
    png_write_image(png, rp);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    put_file("fuzz_png", name, m.data, m.size);
    return &m;
}

static void seeds_png(void)
{
    png_via_writer("gray1.png", 9, 5, 1, 1);
    png_via_writer("gray4.png", 7, 6, 1, 4);
    png_via_writer("gray8.png", 10, 8, 1, 8);
    png_via_writer("gray12_sbit.png", 8, 8, 1, 12);
    png_via_writer("ga8.png", 8, 7, 2, 8);
    png_via_writer("rgb8.png", 12, 9, 3, 8);
    png_via_writer("rgb10_sbit.png", 6, 6, 3, 10);
    png_via_writer("rgba16.png", 6, 5, 4, 16);
    png_direct("palette4.png", PNG_COLOR_TYPE_PALETTE, 4, PNG_INTERLACE_NONE, 0);
    const membuf *pal =
        png_direct("palette8_trns.png", PNG_COLOR_TYPE_PALETTE, 8, PNG_INTERLACE_NONE, 1);
    /* fuzz_png_meta too: a zTXt chunk in a palette image. */
    put_file("fuzz_png_meta", "ztxt_palette.png", pal->data, pal->size);
    png_direct("rgb8_interlaced.png", PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_ADAM7, 0);
    png_direct("gray2_interlaced.png", PNG_COLOR_TYPE_GRAY, 2, PNG_INTERLACE_ADAM7, 0);
    png_direct("rgb16_colourkey.png", PNG_COLOR_TYPE_RGB, 16, PNG_INTERLACE_NONE, 1);
}

/* ---- fuzz_pnm -------------------------------------------------------------------- */

static void pnm_seed(const char *name, const char *header, uint32_t samples, int two_bytes,
                     uint32_t maxval)
{
    static uint8_t buf[4096];
    size_t n = strlen(header);
    memcpy(buf, header, n);
    for (uint32_t i = 0; i < samples; i++) {
        uint32_t v = (i * 37) & (two_bytes ? 1023 : 255) & maxval;
        if (two_bytes) buf[n++] = (uint8_t)(v >> 8);
        buf[n++] = (uint8_t)v;
    }
    put_file("fuzz_pnm", name, buf, n);
}

static void seeds_pnm(void)
{
    pnm_seed("gray8.pgm", "P5\n7 5\n255\n", 35, 0, 255);
    pnm_seed("gray10.pgm", "P5 4 4 1023\n", 16, 1, 1023);
    pnm_seed("rgb8_comments.ppm", "P6\n# a comment\n5 3 # another\n255\n", 45, 0, 255);
    pnm_seed("rgb16.ppm", "P6\n3 2\n65535\n", 18, 1, 65535);
    pnm_seed("maxval1.pgm", "P5\n4 2\n1\n", 8, 0, 1);
}

/* ---- fuzz_huffman ------------------------------------------------------------------ */

/* Mode 0: a length table for nsym symbols, then symbols. */
static void huf_seed(const char *name, const uint32_t *freq, unsigned nsym)
{
    static uint8_t buf[4096];
    uint8_t len[HUF_MAX_SYMS];
    huf_build_lengths(freq, nsym, HUF_MAX_LEN, len);
    huf_enc enc;
    huf_enc_build(&enc, len, nsym);
    buf[0] = 0;
    buf[1] = (uint8_t)(nsym - 1);
    bitw w;
    bitw_init(&w, buf + 2, sizeof buf - 2);
    huf_lengths_write(&w, len, nsym);
    for (unsigned i = 0; i < 200; i++) {
        unsigned s = (i * 7) % nsym;
        if (len[s]) huf_put(&w, &enc, s);
    }
    put_file("fuzz_huffman", name, buf, 2 + bitw_flush(&w));
}

/* Mode 1: a class's tables made from the block's own counts, then the
 * block coded with them. */
static void block_seed(const char *name, uint32_t bw, uint32_t bh, int predict, int orient,
                       int scale)
{
    static int32_t v[64 * 64];
    static uint32_t scratch[(BC_MAX_SIDE + 4) * (BC_MAX_SIDE + 4) * 2];
    static bc_freq freq;
    static uint8_t buf[1 << 16];
    uint32_t x = 88172645u;
    for (uint32_t i = 0; i < bw * bh; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        int32_t r = (int32_t)(x % 9) - 4;
        v[i] = (x & 0x30) ? 0 : r * scale + (predict ? (int32_t)(i % bw) * 3 : 0);
    }
    bc_block b = {v, bw, bh, bw, predict, orient, predict ? 1u : 3u};
    memset(freq, 0, sizeof freq);
    bc_count(&b, freq, scratch);
    uint8_t len[BC_NTAB][BC_NSYM];
    huf_enc enc[BC_NTAB];
    for (unsigned t = 0; t < BC_NTAB; t++) {
        huf_build_lengths(freq[t], BC_NSYM, HUF_MAX_LEN, len[t]);
        huf_enc_build(&enc[t], len[t], BC_NSYM);
    }
    buf[0] = 1;
    buf[1] = (uint8_t)(bw - 1);
    buf[2] = (uint8_t)(bh - 1);
    buf[3] = (uint8_t)(predict | orient << 1);
    bitw w;
    bitw_init(&w, buf + 4, sizeof buf - 4);
    bc_tables_write(&w, (const uint8_t(*)[BC_NSYM])len);
    size_t tsize = bitw_flush(&w);
    size_t bsize = bc_encode(&b, enc, buf + 4 + tsize, sizeof buf - 4 - tsize, scratch);
    if (bsize == SIZE_MAX) die("block seed too large");
    put_file("fuzz_huffman", name, buf, 4 + tsize + bsize);
}

static void rle_seed(const char *name, const int32_t *v, size_t n)
{
    static uint8_t buf[4096];
    buf[0] = 2;
    buf[1] = (uint8_t)((n - 1) & 0xFF);
    buf[2] = (uint8_t)((n - 1) >> 8);
    size_t k = rle_encode(v, n, buf + 3);
    put_file("fuzz_huffman", name, buf, 3 + k);
}

static void seeds_huffman(void)
{
    uint32_t f[HUF_MAX_SYMS];
    for (unsigned s = 0; s < HUF_MAX_SYMS; s++) f[s] = 1000u >> (s % 10);
    huf_seed("table_67.bin", f, 67);
    huf_seed("table_128.bin", f, 128);
    uint32_t fib[30] = {1, 1};
    for (unsigned s = 2; s < 30; s++) fib[s] = fib[s - 1] + fib[s - 2];
    huf_seed("table_fibonacci.bin", fib, 30); /* hits the 15-bit limit */
    uint32_t one[5] = {0, 0, 7, 0, 0};
    huf_seed("table_single.bin", one, 5);
    block_seed("block_iso.bin", 16, 16, 0, 0, 1);
    block_seed("block_vert_big.bin", 32, 8, 0, 1, 5000);
    block_seed("block_predict.bin", 13, 7, 1, 2, 3);
    block_seed("block_1x1.bin", 1, 1, 0, 0, 2);
    static int32_t v[600];
    for (unsigned i = 0; i < 600; i++) v[i] = (i % 50 == 7) ? (int32_t)i - 300 : 0;
    v[599] = INT32_MIN;
    v[598] = INT32_MAX;
    rle_seed("rle_sparse.bin", v, 600);
    int32_t dense[5] = {1, -1, 64, -65, 0};
    rle_seed("rle_dense.bin", dense, 5);
}

/* ---- fuzz_roundtrip: parameter bytes (fuzz_roundtrip.c reads them) ---------------- */

static void seeds_roundtrip(void)
{
    /* w, h, components|depth, flags, deflate/transform, quality/step/bpp,
     * pixel kind, seed (2 bytes), raw bytes. */
    static const uint8_t s[][12] = {
        {15, 11, 2 | 7 << 2, 1 | 3 << 4, 0, 0, 1, 1, 0, 0, 0, 0}, /* lossless RGB 8-bit */
        {20, 9, 3 | 15 << 2, 1 | 1 << 1 | 2 << 4, 5, 0, 2, 9, 9, 0, 0,
         0}, /* lossless RGBA 16, deflate */
        {31, 31, 1 | 7 << 2, 0 | 3 << 4, 0, 40 << 2, 1, 3, 0, 0, 0, 0},      /* lossy 9/7 GA */
        {16, 16, 2 | 7 << 2, 0 | 1 << 4, 1 << 4, 30 << 2, 2, 5, 0, 0, 0, 0}, /* DCT RGB */
        {17, 23, 3 | 7 << 2, 1 << 1 | 1 << 4, 2 << 4 | 4, 20 << 2 | 1, 1, 7, 0, 0, 0,
         0}, /* LOT RGBA, deflate, step */
        {40, 12, 0 | 11 << 2, 2 << 4 | 1 << 2, 1 << 6 | 1 << 7, 60 << 2 | 2, 2, 1, 0, 0, 0,
         0},                                                      /* 5/3 lossy, bpp, threshold */
        {0, 0, 0, 1, 0, 0, 3, 0, 0, 200, 0, 0},                   /* 1x1 */
        {63, 1, 0 | 0 << 2, 1 | 15 << 4, 0, 0, 0, 0, 0, 1, 2, 3}, /* 64x1, 1-bit, 15 levels asked */
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "params_%zu.bin", i);
        put_file("fuzz_roundtrip", name, s[i], sizeof s[i]);
    }
}

/* ---- fuzz_png_meta --------------------------------------------------------------- */

/* PNGs with every metadata chunk png_meta_insert writes: iCCP, gAMA,
 * cHRM, sRGB, pHYs, tIME, eXIf, tEXt, zTXt, iTXt (plain and compressed)
 * and XMP; one item of each kind per seed, or the text kinds alone. */
static void seeds_png_meta(void)
{
    wc_image img;
    make_image(&img, 6, 5, 3, 8, 7);
    char tmp[] = "/tmp/fuzz_seed_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) die("mkstemp");
    close(fd);
    wc_err err = {{0}};
    if (png_write_file(tmp, &img, &err) != WC_OK) die(err.msg);
    wc_ctx *ctx = wc_ctx_create();
    void *png = NULL;
    size_t n = 0;
    if (!ctx || file_read(tmp, 0, &png, &n, NULL) != WC_OK) die("reading back a PNG seed");
    remove(tmp);
    for (int text_only = 0; text_only < 2; text_only++) {
        wc_meta *m = wc_meta_create();
        uint8_t res[17] = {0}, chrm[32];
        double x = 2835;
        memcpy(res, &x, 8);
        memcpy(res + 8, &x, 8);
        res[16] = 1;
        for (int i = 0; i < 32; i++) chrm[i] = (uint8_t)(i * 11);
        int bad = 0;
        if (!text_only)
            bad |=
                wc_meta_add(m, WC_META_ICC, 0, "seed profile", "profile bytes profile bytes", 27) |
                wc_meta_add(m, WC_META_GAMMA, 0, "", "\xa0\x86\x01\x00", 4) |
                wc_meta_add(m, WC_META_CHROMATICITY, 0, "", chrm, 32) |
                wc_meta_add(m, WC_META_SRGB, 0, "", "\x01", 1) |
                wc_meta_add(m, WC_META_RESOLUTION, 0, "", res, 17) |
                wc_meta_add(m, WC_META_TIME, 0, "", "\xea\x07\x01\x02\x03\x04\x05", 7) |
                wc_meta_add(m, WC_META_EXIF, 0, "", "II*\0\x08\0\0\0\0\0", 10);
        bad |=
            wc_meta_add(m, WC_META_TEXT, 0, "Title", "plain", 5) |
            wc_meta_add(m, WC_META_TEXT, WC_META_TEXT_COMPRESSED, "Comment", "zipped zipped", 13) |
            wc_meta_add(m, WC_META_TEXT, WC_META_TEXT_UTF8, "Author", "Ren\xc3\xa9", 6) |
            wc_meta_add(m, WC_META_TEXT, WC_META_TEXT_UTF8 | WC_META_TEXT_COMPRESSED, "Description",
                        "utf-8, zipped", 13) |
            wc_meta_add(m, WC_META_XMP, 0, "", "<x:xmpmeta/>", 12);
        if (bad) die("metadata");
        uint8_t *out = NULL;
        size_t on = 0;
        if (png_meta_insert(png, n, m, &out, &on, &err) != WC_OK) die(err.msg);
        put_file("fuzz_png_meta", text_only ? "text.png" : "all_kinds.png", out, on);
        wc_free(out);
        wc_meta_free(m);
    }
    free(png);
    wc_ctx_free(ctx);
    wc_image_free(&img);
}

/* ---- fuzz_tiff ----------------------------------------------------------------- */

/* A TIFF with an EXIF directory (DateTimeOriginal, ISO, exposure), made
 * the way libtiff documents: the main directory, then the EXIF one, then
 * the main one rewritten to point at it. */
static void seed_exif_tiff(void)
{
    char tmp[] = "/tmp/wc_seed_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) die("mkstemp");
    close(fd);
    TIFF *t = TIFFOpen(tmp, "wl");
    if (!t) die("TIFFOpen");
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 8);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 4);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_EXIFIFD, (uint64_t)0);
    uint8_t row[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (uint32_t y = 0; y < 4; y++)
        if (TIFFWriteScanline(t, row, y, 0) != 1) die("row");
    if (!TIFFWriteDirectory(t) || TIFFCreateEXIFDirectory(t) != 0) die("EXIF directory");
    uint16_t iso[1] = {400};
    TIFFSetField(t, EXIFTAG_DATETIMEORIGINAL, "2026:11:24 01:02:03");
    TIFFSetField(t, EXIFTAG_ISOSPEEDRATINGS, 1, iso);
    TIFFSetField(t, EXIFTAG_EXPOSURETIME, 0.004);
    uint64_t off = 0;
    if (!TIFFWriteCustomDirectory(t, &off) || !TIFFSetDirectory(t, 0)) die("EXIF directory");
    TIFFSetField(t, TIFFTAG_EXIFIFD, off);
    if (!TIFFRewriteDirectory(t)) die("EXIF directory");
    TIFFClose(t);
    void *data = NULL;
    size_t n = 0;
    if (file_read(tmp, 0, &data, &n, NULL) != WC_OK) die("read back");
    put_file("fuzz_tiff", "exif.tif", data, n);
    free(data);
    unlink(tmp);
}

/* Our writer's layouts (LZW, with and without the predictor) with
 * metadata, and libtiff's own for tiles, planar data, PackBits, deflate
 * and big-endian files. */
static void seeds_tiff(void)
{
    static const struct {
        const char *name;
        uint32_t w, h, comps, depth;
    } ours[] = {{"gray1.tif", 19, 7, 1, 1},
                {"ga8.tif", 12, 9, 2, 8},
                {"rgb16.tif", 10, 8, 3, 16},
                {"rgba12.tif", 9, 6, 4, 12}};
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
        wc_image img;
        make_image(&img, ours[i].w, ours[i].h, ours[i].comps, ours[i].depth, (unsigned)i);
        wc_meta *m = wc_meta_create();
        uint8_t res[17] = {0};
        double x = 300;
        memcpy(res, &x, 8);
        memcpy(res + 8, &x, 8);
        res[16] = 2;
        if (wc_meta_add(m, WC_META_ICC, 0, "", "profile bytes", 13) != WC_OK ||
            wc_meta_add(m, WC_META_RESOLUTION, 0, "", res, 17) != WC_OK ||
            wc_meta_add(m, WC_META_TEXT, 0, "Description", "seed", 4) != WC_OK ||
            wc_meta_add(m, WC_META_TIME, 0, "", "\xea\x07\x01\x02\x03\x04\x05", 7) != WC_OK)
            die("metadata");
        uint8_t *buf;
        size_t n;
        wc_err err = {{0}};
        if (tiff_write_mem(&img, m, &buf, &n, NULL, &err) != WC_OK) die(err.msg);
        put_file("fuzz_tiff", ours[i].name, buf, n);
        wc_free(buf);
        wc_meta_free(m);
        wc_image_free(&img);
    }
    static const struct {
        const char *name, *mode;
        uint16_t comps, depth, compression, planar;
        uint32_t tile;
    } theirs[] = {{"tiles_deflate_be.tif", "wb", 3, 8, COMPRESSION_ADOBE_DEFLATE, 1, 16},
                  {"planar_packbits.tif", "wl", 3, 8, COMPRESSION_PACKBITS, 2, 0},
                  {"tiles_planar_lzw16.tif", "wb", 4, 16, COMPRESSION_LZW, 2, 16}};
    for (size_t i = 0; i < sizeof theirs / sizeof theirs[0]; i++) {
        char tmp[] = "/tmp/wc_seed_XXXXXX";
        int fd = mkstemp(tmp);
        if (fd < 0) die("mkstemp");
        close(fd);
        TIFF *t = TIFFOpen(tmp, theirs[i].mode);
        if (!t) die("TIFFOpen");
        uint32_t w = 20, h = 18;
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, theirs[i].comps);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, theirs[i].depth);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, theirs[i].planar);
        TIFFSetField(t, TIFFTAG_COMPRESSION, theirs[i].compression);
        if (theirs[i].comps == 4) {
            uint16_t a = EXTRASAMPLE_ASSOCALPHA;
            TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &a);
        }
        uint8_t buf[16 * 16 * 8];
        for (size_t k = 0; k < sizeof buf; k++) buf[k] = (uint8_t)(k * 29 >> 2);
        uint16_t planes = theirs[i].planar == 2 ? theirs[i].comps : 1;
        if (theirs[i].tile) {
            TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
            TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
            for (uint16_t p = 0; p < planes; p++)
                for (uint32_t y = 0; y < h; y += 16)
                    for (uint32_t x = 0; x < w; x += 16)
                        if (TIFFWriteTile(t, buf, x, y, 0, p) < 0) die("tile");
        } else {
            TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 5);
            for (uint16_t p = 0; p < planes; p++)
                for (uint32_t y = 0; y < h; y++)
                    if (TIFFWriteScanline(t, buf, y, p) != 1) die("row");
        }
        TIFFClose(t);
        void *data = NULL;
        size_t n = 0;
        wc_ctx *ctx = wc_ctx_create();
        if (!ctx || file_read(tmp, 0, &data, &n, NULL) != WC_OK) die("read back");
        put_file("fuzz_tiff", theirs[i].name, data, n);
        free(data);
        wc_ctx_free(ctx);
        unlink(tmp);
    }
    seed_exif_tiff();
}

static const char *const g_targets[] = {"fuzz_decode",   "fuzz_png",      "fuzz_pnm",
                                        "fuzz_tiff",     "fuzz_png_meta", "fuzz_huffman",
                                        "fuzz_roundtrip"};

int main(int argc, char **argv)
{
    g_check = argc == 3 && strcmp(argv[1], "--check") == 0;
    if (argc != 2 + g_check) {
        fprintf(stderr, "usage: fuzz_gen_seeds [--check] DIR\n");
        return 1;
    }
    g_dir = argv[1 + g_check];
    if (!g_check) mkdir(g_dir, 0777);
    seeds_decode();
    seeds_png();
    seeds_pnm();
    seeds_tiff();
    seeds_png_meta();
    seeds_huffman();
    seeds_roundtrip();
    for (size_t i = 0; i < sizeof g_targets / sizeof g_targets[0]; i++) sweep(g_targets[i]);
    if (g_check) {
        if (g_mismatch) {
            fprintf(stderr,
                    "fuzz_gen_seeds: %u of the seeds under %s differ from what is made now: "
                    "regenerate them (fuzz_gen_seeds %s) and commit the result\n",
                    g_mismatch, g_dir, g_dir);
            return 1;
        }
        printf("fuzz_gen_seeds: the %u seeds under %s are as made now\n", g_count, g_dir);
        return 0;
    }
    printf("fuzz_gen_seeds: %u files under %s\n", g_count, g_dir);
    return 0;
}
