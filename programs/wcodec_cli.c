/*
 * wcodec_cli.c -- the wcodec command: encode, decode, info, compare (and
 * bench/sweep where built). It uses the public API only.
 *
 * Exit status: 0 success, 1 bad input or usage, 2 I/O error, 128+N when
 * stopped by signal N (SIGINT, SIGTERM, SIGHUP), after removing the
 * temporary output file.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli_util.h"

static const char usage_text[] =
    "usage: wcodec <command> [options]\n"
    "\n"
    "commands:\n"
    "  encode IN OUT [options]   compress a PNG/PGM/PPM image into a .wcx file\n"
    "  decode IN OUT [options]   decompress a .wcx file into PNG (or .pgm/.ppm by name)\n"
    "                            (IN or OUT '-': standard input or output)\n"
    "  info FILE                 show a .wcx file's header and bytes per band\n"
    "  compare A B               PSNR, maximum error and SSIM between two images\n"
    "  bench FILES|DIRS [opts]   encode + decode in memory: size, quality, speed\n"
    "  sweep DIRS --out DIR      a rate-distortion grid: CSV, SVG plots, report.md\n"
    "  plot CSV OUT.svg [opts]   draw a CSV's columns as an SVG line plot\n"
    "\n"
    "Run 'wcodec <command> --help' for the options of a command.\n"
    "With no options 'encode' is lossless, so nothing is lost by accident.\n";

static int want_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

static void print_verbose(wc_ctx *ctx)
{
    const char *note = wc_ctx_note(ctx);
    if (*note)
        fprintf(stderr, "wcodec: %s\n", note);
    else
        fprintf(stderr, "wcodec: backend: %s\n", wc_ctx_backend(ctx));
}

static int cmd_encode(int argc, char **argv)
{
    if (want_help(argc, argv)) {
        printf("usage: wcodec encode IN OUT [options]\n\n"
               "Compresses IN (PNG, PGM or PPM) into OUT (.wcx). Lossless unless a lossy\n"
               "option is given. IN '-' reads standard input, OUT '-' writes standard\n"
               "output. Prints one line: sizes, ratio, bits per pixel, time (on standard\n"
               "error when OUT is '-').\n\n"
               "options:\n%s"
               "  --max-pixels N        refuse inputs larger than N pixels (default 2^31)\n"
               "  --max-memory N        refuse inputs whose encode needs more than N bytes,\n"
               "                        the image included (default 8 GiB: 8589934592)\n"
               "  -v, --verbose         say which backend ran\n"
               "  -q, --quiet           print nothing on success\n",
               cli_encoder_help);
        return CLI_OK;
    }
    wc_params p;
    wc_params_init(&p);
    const char *in = NULL, *out = NULL;
    int lossy = 0, lossless = 0, verbose = 0, quiet = 0;
    for (int i = 2; i < argc; i++) {
        int r = cli_encoder_option(argc, argv, &i, &p, &lossy, &lossless);
        if (r < 0) return CLI_BAD;
        if (r > 0) continue;
        if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) verbose = 1;
        else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) quiet = 1;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "wcodec: encode: unknown option '%s' (see --help)\n", argv[i]);
            return CLI_BAD;
        } else if (!in) in = argv[i];
        else if (!out) out = argv[i];
        else {
            fprintf(stderr, "wcodec: encode: unexpected argument '%s'\n", argv[i]);
            return CLI_BAD;
        }
    }
    if (!in || !out) {
        fprintf(stderr, "wcodec: encode needs IN and OUT (see --help)\n");
        return CLI_BAD;
    }
    if (cli_encoder_finish(&p, lossy, lossless)) return CLI_BAD;
    if (cli_same_file("encode", in, out)) return CLI_BAD;
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return CLI_BAD;
    wc_image img = {0};
    void *buf = NULL;
    size_t size = 0;
    double t0 = cli_now(), t1 = t0;
    wc_err err = {{0}};
    wc_status s = image_read_for_encode(in, &p, &img, &err);
    if (s == WC_OK) {
        t0 = cli_now();
        s = wc_encode_alloc(ctx, &p, &img, &buf, &size);
        t1 = cli_now();
        if (s != WC_OK) cli_error(ctx, s, in);
    } else {
        cli_error_msg(err.msg, s, in);
    }
    if (s == WC_OK) {
        s = file_write(out, buf, size, &err);
        if (s != WC_OK) cli_error_msg(err.msg, s, out);
    }
    if (s == WC_OK) {
        if (verbose) print_verbose(ctx);
        if (!quiet) {
            double raw = (double)img.width * img.height * img.components * (img.bit_depth > 8 ? 2 : 1);
            fprintf(cli_report_stream(out),
                   "%s -> %s: %ux%u, %u x %u-bit -> %zu bytes, ratio %.2f:1, %.4f bpp, %.1f ms%s\n",
                   in, out, img.width, img.height, img.components, img.bit_depth, size,
                   raw / (double)size, size * 8.0 / ((double)img.width * img.height),
                   (t1 - t0) * 1e3, p.lossless ? " (lossless)" : "");
        }
    }
    wc_free(buf);
    wc_image_free(&img);
    wc_ctx_free(ctx);
    return cli_exit_code(s);
}

static int cmd_decode(int argc, char **argv)
{
    if (want_help(argc, argv)) {
        printf("usage: wcodec decode IN OUT [options]\n\n"
               "Decompresses IN (.wcx) into OUT: PNG, or PGM/PPM when OUT ends in\n"
               ".pgm/.ppm/.pnm. The image keeps the original bit depth and channels.\n"
               "IN '-' reads standard input; OUT '-' writes standard output (PNG unless\n"
               "--format says otherwise; the summary line then goes to standard error).\n\n"
               "options:\n"
               "  --format F            png, pgm, ppm or pnm, whatever OUT's name says\n"
               "  --threads N           worker threads (default: all cores)\n"
               "  --backend B           auto (default), cpu or cuda\n"
               "  --max-pixels N        refuse files larger than N pixels (default 2^31)\n"
               "  --max-memory N        refuse files needing more than N bytes to decode,\n"
               "                        the file included (default 8 GiB: 8589934592)\n"
               "  -v, --verbose         say which backend ran\n"
               "  -q, --quiet           print nothing on success\n");
        return CLI_OK;
    }
    wc_params p;
    wc_params_init(&p);
    const char *in = NULL, *out = NULL, *format = NULL;
    int verbose = 0, quiet = 0, dummy = 0;
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--threads") || !strcmp(o, "--backend") || !strcmp(o, "--max-pixels") ||
            !strcmp(o, "--max-memory")) {
            if (cli_encoder_option(argc, argv, &i, &p, &dummy, &dummy) < 0) return CLI_BAD;
        } else if (!strcmp(o, "--format")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "wcodec: --format needs a value\n");
                return CLI_BAD;
            }
            format = argv[++i];
        } else if (!strcmp(o, "-v") || !strcmp(o, "--verbose")) verbose = 1;
        else if (!strcmp(o, "-q") || !strcmp(o, "--quiet")) quiet = 1;
        else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "wcodec: decode: unknown option '%s' (see --help)\n", o);
            return CLI_BAD;
        } else if (!in) in = o;
        else if (!out) out = o;
        else {
            fprintf(stderr, "wcodec: decode: unexpected argument '%s'\n", o);
            return CLI_BAD;
        }
    }
    if (!in || !out) {
        fprintf(stderr, "wcodec: decode needs IN and OUT (see --help)\n");
        return CLI_BAD;
    }
    image_format fmt = IMAGE_PNG;
    const char *name = format ? format : !strcmp(out, "-") ? ".png" : strrchr(out, '.');
    if (name && *name == '.') name++;
    if (name && !strcasecmp(name, "png"))
        fmt = IMAGE_PNG;
    else if (name && (!strcasecmp(name, "pgm") || !strcasecmp(name, "ppm") || !strcasecmp(name, "pnm")))
        fmt = IMAGE_PNM;
    else if (format) {
        fprintf(stderr, "wcodec: --format: expected png, pgm, ppm or pnm, got '%s'\n", format);
        return CLI_BAD;
    } else {
        fprintf(stderr, "wcodec: decode: %s: unknown output format (use .png, .pgm, .ppm or .pnm, "
                        "or --format)\n", out);
        return CLI_BAD;
    }
    if (cli_same_file("decode", in, out)) return CLI_BAD;
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return CLI_BAD;
    wc_image img = {0};
    wc_err err = {{0}};
    double t0 = cli_now();
    wc_status s = decode_file(ctx, &p, in, &img, &err);
    double t1 = cli_now();
    if (s != WC_OK) cli_error_msg(err.msg, s, in);
    /* The note of the decode, before the image is written. */
    if (s == WC_OK && verbose) print_verbose(ctx);
    if (s == WC_OK) {
        s = image_write_format(out, &img, fmt, &err);
        if (s != WC_OK) cli_error_msg(err.msg, s, out);
    }
    if (s == WC_OK) {
        if (!quiet)
            fprintf(cli_report_stream(out), "%s -> %s: %ux%u, %u x %u-bit, %.1f ms\n", in, out,
                    img.width, img.height, img.components, img.bit_depth, (t1 - t0) * 1e3);
    }
    wc_image_free(&img);
    wc_ctx_free(ctx);
    return cli_exit_code(s);
}

static const char *band_label(const wc_info *in, uint32_t b, char *buf, size_t n)
{
    if (in->transform != WC_TRANSFORM_DWT) {
        snprintf(buf, n, "zigzag %u", b);
        return buf;
    }
    if (b == 0) {
        snprintf(buf, n, "LL%d", in->levels);
        return buf;
    }
    static const char *const o[3] = {"HL", "LH", "HH"};
    snprintf(buf, n, "%s%d", o[(b - 1) % 3], in->levels - (int)((b - 1) / 3));
    return buf;
}

static int cmd_info(int argc, char **argv)
{
    if (want_help(argc, argv) || argc != 3) {
        printf("usage: wcodec info FILE\n\nShows the header of a .wcx file and its bytes per\n"
               "component and per band. FILE '-' reads standard input.\n");
        return argc == 3 ? CLI_OK : CLI_BAD;
    }
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return CLI_BAD;
    wc_info in;
    wc_err err = {{0}};
    wc_status s = inspect_file(ctx, argv[2], &in, &err);
    if (s != WC_OK) {
        cli_error_msg(err.msg, s, argv[2]);
    } else {
        static const char *const tn[3] = {"DWT", "DCT 8x8", "LOT 8x8"};
        static const char *const cn[3] = {"none", "RCT (reversible)", "ICT (YCbCr)"};
        printf("file:        %s (%llu bytes, format %u.%u)\n", argv[2],
               (unsigned long long)in.file_bytes, in.format_major, in.format_minor);
        printf("image:       %ux%u, %u component(s), %u-bit\n", in.width, in.height,
               in.components, in.bit_depth);
        printf("coding:      %s, %s", in.lossless ? "lossless" : "lossy", tn[in.transform]);
        if (in.transform == WC_TRANSFORM_DWT)
            printf(" %s, %d level(s)", in.wavelet == 53 ? "5/3" : "9/7", in.levels);
        printf("\ncolour:      %s\n", cn[in.colour]);
        printf("entropy:     %s, code blocks %dx%d\n",
               in.entropy == WC_ENTROPY_HUFFMAN ? "Huffman" : "deflate", in.block_size,
               in.block_size);
        if (!in.lossless) printf("base step:   %g\n", in.base_step);
        printf("bits/pixel:  %.4f\n", in.file_bytes * 8.0 / ((double)in.width * in.height));
        for (uint32_t c = 0; c < in.components; c++) {
            printf("component %u: %llu bytes\n", c, (unsigned long long)in.component_bytes[c]);
            uint32_t nb = in.bands;
            for (uint32_t b = 0; b < nb && b < 64; b++) {
                char label[32];
                printf("  %-10s %10llu\n", band_label(&in, b, label, sizeof label),
                       (unsigned long long)in.band_bytes[c][b]);
            }
        }
    }
    wc_ctx_free(ctx);
    return cli_exit_code(s);
}

static void print_db(const char *name, double v)
{
    if (isinf(v))
        printf("%s inf (identical)\n", name);
    else
        printf("%s %.4f dB\n", name, v);
}

static int cmd_compare(int argc, char **argv)
{
    if (want_help(argc, argv) || argc != 4) {
        printf("usage: wcodec compare A B\n\nPSNR per channel and over the colour channels,\n"
               "luma PSNR, maximum absolute error and SSIM between two images of the same\n"
               "size and layout (PNG, PGM, PPM or .wcx, which is decoded first).\n");
        return argc == 4 ? CLI_OK : CLI_BAD;
    }
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return CLI_BAD;
    wc_image a = {0}, b = {0};
    wc_err err = {{0}};
    wc_status s = cli_load_any(ctx, argv[2], NULL, &a, &err);
    if (s != WC_OK) cli_error_msg(err.msg, s, argv[2]);
    if (s == WC_OK && (s = cli_load_any(ctx, argv[3], NULL, &b, &err)) != WC_OK)
        cli_error_msg(err.msg, s, argv[3]);
    image_metrics m;
    if (s == WC_OK && (s = image_compare(&a, &b, &m)) != WC_OK)
        fprintf(stderr, "wcodec: compare: the images differ in size, channels or bit depth "
                        "(%ux%u x%u %u-bit vs %ux%u x%u %u-bit)\n",
                a.width, a.height, a.components, a.bit_depth, b.width, b.height, b.components,
                b.bit_depth);
    if (s == WC_OK) {
        static const char *const names[4][4] = {{"gray"}, {"gray", "alpha"}, {"R", "G", "B"},
                                                 {"R", "G", "B", "alpha"}};
        for (uint32_t c = 0; c < a.components; c++) {
            char label[32];
            snprintf(label, sizeof label, "PSNR %-6s", names[a.components - 1][c]);
            print_db(label, m.psnr[c]);
        }
        print_db("PSNR colour", m.psnr_rgb);
        print_db("PSNR Y     ", m.psnr_y);
        printf("max error   %u\n", m.max_abs_error);
        printf("SSIM        %.6f\n", m.ssim);
    }
    wc_image_free(&a);
    wc_image_free(&b);
    wc_ctx_free(ctx);
    return cli_exit_code(s);
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporary output file, exit 128+N. */
static void on_signal(int sig)
{
    file_cleanup();
    _exit(128 + sig);
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) sigaddset(&sa.sa_mask, sigs[i]);
    for (int i = 0; i < 3; i++) {
        struct sigaction old;
        /* A signal ignored by whoever started us (nohup, a shell's &) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    catch_signals();
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_BAD : CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("wcodec %s\n", wc_version_string());
        return CLI_OK;
    }
    if (!strcmp(argv[1], "encode")) return cmd_encode(argc, argv);
    if (!strcmp(argv[1], "decode")) return cmd_decode(argc, argv);
    if (!strcmp(argv[1], "info")) return cmd_info(argc, argv);
    if (!strcmp(argv[1], "compare")) return cmd_compare(argc, argv);
    if (!strcmp(argv[1], "bench")) return cmd_bench(argc, argv);
    if (!strcmp(argv[1], "sweep")) return cmd_sweep(argc, argv);
    if (!strcmp(argv[1], "plot")) return cmd_plot(argc, argv);
    fprintf(stderr, "wcodec: unknown command '%s'\n\n%s", argv[1], usage_text);
    return CLI_BAD;
}
