/* cli_util.c -- helpers shared by the wcodec subcommands. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_util.h"

int cli_int(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "wcodec: %s: expected an integer in %ld..%ld, got '%s'\n", opt, lo, hi,
                s ? s : "");
        return 1;
    }
    *out = v;
    return 0;
}

int cli_float(const char *opt, const char *s, double lo, double hi, float *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !(v >= lo && v <= hi)) {
        fprintf(stderr, "wcodec: %s: expected a number in %g..%g, got '%s'\n", opt, lo, hi,
                s ? s : "");
        return 1;
    }
    *out = (float)v;
    return 0;
}

int cli_u64(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = s ? strtoull(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v == 0 || s[0] == '-') {
        fprintf(stderr, "wcodec: %s: expected a positive integer, got '%s'\n", opt, s ? s : "");
        return 1;
    }
    *out = v;
    return 0;
}

int cli_exit_code(wc_status s) { return s == WC_OK ? CLI_OK : s == WC_ERR_IO ? CLI_IO : CLI_BAD; }

void cli_error(wc_ctx *ctx, wc_status s, const char *what)
{
    const char *msg = ctx ? wc_ctx_error(ctx) : "";
    fprintf(stderr, "wcodec: %s: %s\n", what, *msg ? msg : wc_strerror(s));
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int has_wcx_magic(const void *data, size_t size)
{
    return size >= 8 && memcmp(data, "\x89WCX\r\n\x1a\n", 8) == 0;
}

wc_status cli_load_any(wc_ctx *ctx, const char *path, const wc_params *p, wc_image *img)
{
    void *data = NULL;
    size_t size = 0;
    wc_status s = wc_file_read(ctx, path, 0, &data, &size);
    if (s != WC_OK) return s;
    if (has_wcx_magic(data, size)) {
        s = wc_decode(ctx, p, data, size, img);
        free(data);
        return s;
    }
    free(data);
    return wc_image_read(ctx, path, p ? p->max_pixels : 0, img);
}

const char cli_encoder_help[] =
    "  --lossless            exact coding with the 5/3 wavelet (the default)\n"
    "  --transform T         dwt (default), dct or lot (lossy only)\n"
    "  --wavelet W           53 or 97 (lossy default 97)\n"
    "  --levels N            wavelet levels 0..15 (default 5)\n"
    "  --quality Q           1..100, lossy (default 75)\n"
    "  --step S              base quantizer step, lossy\n"
    "  --bpp R               target bits per pixel, lossy (searches the step)\n"
    "  --threshold T         zero coefficients smaller than T\n"
    "  --entropy E           huffman (default) or deflate\n"
    "  --deflate-level L     zlib level 1..9 (default 6)\n"
    "  --block N             code-block side 16, 32, 64 (default) or 128\n"
    "  --threads N           worker threads (default: all cores)\n"
    "  --backend B           auto (default), cpu or cuda\n";

static const char *value_of(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "wcodec: %s needs a value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int cli_encoder_option(int argc, char **argv, int *i, wc_params *p, int *lossy, int *lossless)
{
    const char *o = argv[*i], *v;
    long n;
    if (!strcmp(o, "--lossless")) {
        *lossless = 1;
        return 1;
    }
#define VALUE() \
    if (!(v = value_of(argc, argv, i))) return -1
    if (!strcmp(o, "--transform")) {
        VALUE();
        if (!strcmp(v, "dwt")) p->transform = WC_TRANSFORM_DWT;
        else if (!strcmp(v, "dct")) p->transform = WC_TRANSFORM_DCT;
        else if (!strcmp(v, "lot")) p->transform = WC_TRANSFORM_LOT;
        else {
            fprintf(stderr, "wcodec: --transform: expected dwt, dct or lot, got '%s'\n", v);
            return -1;
        }
        if (p->transform != WC_TRANSFORM_DWT) *lossy = 1;
        return 1;
    }
    if (!strcmp(o, "--wavelet")) {
        VALUE();
        if (strcmp(v, "53") && strcmp(v, "97")) {
            fprintf(stderr, "wcodec: --wavelet: expected 53 or 97, got '%s'\n", v);
            return -1;
        }
        p->wavelet = atoi(v);
        if (p->wavelet == 97) *lossy = 1;
        return 1;
    }
    if (!strcmp(o, "--levels")) {
        VALUE();
        if (cli_int(o, v, 0, 15, &n)) return -1;
        p->levels = (int)n;
        return 1;
    }
    if (!strcmp(o, "--quality")) {
        VALUE();
        *lossy = 1;
        return cli_float(o, v, 1, 100, &p->quality) ? -1 : 1;
    }
    if (!strcmp(o, "--step")) {
        VALUE();
        *lossy = 1;
        return cli_float(o, v, 1e-6, 1e8, &p->step) ? -1 : 1;
    }
    if (!strcmp(o, "--bpp")) {
        VALUE();
        *lossy = 1;
        return cli_float(o, v, 1e-4, 1000, &p->bpp) ? -1 : 1;
    }
    if (!strcmp(o, "--threshold")) {
        VALUE();
        *lossy = 1;
        return cli_float(o, v, 0, 1e8, &p->threshold) ? -1 : 1;
    }
    if (!strcmp(o, "--entropy")) {
        VALUE();
        if (!strcmp(v, "huffman")) p->entropy = WC_ENTROPY_HUFFMAN;
        else if (!strcmp(v, "deflate")) p->entropy = WC_ENTROPY_DEFLATE;
        else {
            fprintf(stderr, "wcodec: --entropy: expected huffman or deflate, got '%s'\n", v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(o, "--deflate-level")) {
        VALUE();
        if (cli_int(o, v, 1, 9, &n)) return -1;
        p->deflate_level = (int)n;
        return 1;
    }
    if (!strcmp(o, "--block")) {
        VALUE();
        if (cli_int(o, v, 16, 128, &n)) return -1;
        if (n != 16 && n != 32 && n != 64 && n != 128) {
            fprintf(stderr, "wcodec: --block: expected 16, 32, 64 or 128, got '%s'\n", v);
            return -1;
        }
        p->block_size = (int)n;
        return 1;
    }
    if (!strcmp(o, "--threads")) {
        VALUE();
        if (cli_int(o, v, 1, 256, &n)) return -1;
        p->threads = (int)n;
        return 1;
    }
    if (!strcmp(o, "--backend")) {
        VALUE();
        if (!strcmp(v, "auto")) p->backend = WC_BACKEND_AUTO;
        else if (!strcmp(v, "cpu")) p->backend = WC_BACKEND_CPU;
        else if (!strcmp(v, "cuda")) p->backend = WC_BACKEND_CUDA;
        else {
            fprintf(stderr, "wcodec: --backend: expected auto, cpu or cuda, got '%s'\n", v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(o, "--max-pixels")) {
        VALUE();
        return cli_u64(o, v, &p->max_pixels) ? -1 : 1;
    }
    if (!strcmp(o, "--max-memory")) {
        VALUE();
        return cli_u64(o, v, &p->max_memory) ? -1 : 1;
    }
#undef VALUE
    return 0;
}

int cli_encoder_finish(wc_params *p, int lossy, int lossless)
{
    if (lossless && lossy) {
        fprintf(stderr, "wcodec: --lossless cannot be combined with lossy options "
                        "(--quality, --step, --bpp, --threshold, --wavelet 97, --transform dct|lot)\n");
        return 1;
    }
    p->lossless = !lossy;
    int set = (p->quality > 0) + (p->step > 0) + (p->bpp > 0);
    if (set > 1) {
        fprintf(stderr, "wcodec: give only one of --quality, --step and --bpp\n");
        return 1;
    }
    return 0;
}
