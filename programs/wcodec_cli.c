/*
 * wcodec_cli.c -- the wcodec command: encode, decode, info, compare (and
 * bench/sweep where built). It uses the public API only.
 *
 * Exit status: 0 success, 1 bad input or usage, 2 I/O error, 3 compare
 * below its --min-psnr or --exact bar, 128+N when stopped by signal N
 * (SIGINT, SIGTERM, SIGHUP), after removing the temporary output files.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli_batch.h"
#include "cli_image.h"
#include "cli_util.h"

static const char usage_text[] =
    "usage: wcodec <command> [options]\n"
    "\n"
    "commands:\n"
    "  encode IN OUT [options]   compress a PNG/TIFF/PGM/PPM image into a .wcx file\n"
    "  decode IN OUT [options]   decompress a .wcx file into PNG (or .tif/.pgm/.ppm by name)\n"
    "                            (IN or OUT '-': standard input or output)\n"
    "  encode|decode FILES|DIRS --out-dir DIR   many files at once, on all cores\n"
    "  info FILE                 show a .wcx file's header, bytes per band, metadata\n"
    "  compare A B               PSNR, maximum error and SSIM between two images\n"
    "  bench FILES|DIRS [opts]   encode + decode in memory: size, quality, speed\n"
    "  sweep DIRS --out DIR      a rate-distortion grid: CSV, SVG plots, report.md\n"
    "  plot CSV OUT.svg [opts]   draw a CSV's columns as an SVG line plot\n"
    "\n"
    "Run 'wcodec <command> --help' for the options of a command, 'wcodec --version'\n"
    "for the backends and libraries. Options take --opt value or --opt=value.\n"
    "With no options 'encode' is lossless, so nothing is lost by accident.\n";

static int want_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

/* The options both encode and decode take besides the encoder's; 1 if
 * argv[*i] was one, -1 on a bad value, 0 if not. */
static int common_option(int argc, char **argv, int *i, cli_batch_opts *o)
{
    const char *a = argv[*i];
    long n;
    if (!strcmp(a, "--strip"))
        o->strip = 1;
    else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
        o->verbose = 1;
    else if (!strcmp(a, "--stream"))
        o->stream = 1;
    else if (!strcmp(a, "--no-stream"))
        o->stream = -1;
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
        o->quiet = 1;
        char *end;
        if (*i + 1 < argc && strtod(argv[*i + 1], &end) > 0 && !*end) {
            fprintf(stderr, "wcodec: -q is --quiet here; for quality give --quality %s\n",
                    argv[*i + 1]);
            return -1;
        }
    } else if (!strcmp(a, "--out-dir") || !strcmp(a, "--format") || !strcmp(a, "--page") ||
               !strcmp(a, "--device") || !strcmp(a, "--devices")) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "wcodec: %s needs a value\n", a);
            return -1;
        }
        const char *v = argv[++*i];
        if (!strcmp(a, "--out-dir"))
            o->out_dir = v;
        else if (!strcmp(a, "--format"))
            o->format = v;
        else if (!strncmp(a, "--device", 8))
            return cli_devices_option(a, v, o) ? -1 : 1;
        else if (cli_int(a, v, 1, 65535, &n))
            return -1;
        else
            o->page = (unsigned)n;
    } else
        return 0;
    return 1;
}

/* decode's --region X,Y,W,H and --reduce N; 1 if argv[*i] was one, -1 on
 * a bad value, 0 if not. The rectangle is checked against the image by
 * the library (wc_decode_region), which names what is wrong. */
static int region_option(int argc, char **argv, int *i, cli_batch_opts *o)
{
    const char *a = argv[*i];
    if (strcmp(a, "--region") && strcmp(a, "--reduce")) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "wcodec: %s needs a value\n", a);
        return -1;
    }
    const char *v = argv[++*i];
    o->has_region = 1;
    if (!strcmp(a, "--reduce")) {
        long n;
        if (cli_int(a, v, 0, 15, &n)) return -1;
        o->region.reduce = (int)n;
        return 1;
    }
    unsigned long f[4];
    int used = 0;
    if (sscanf(v, "%lu,%lu,%lu,%lu%n", &f[0], &f[1], &f[2], &f[3], &used) != 4 || v[used] ||
        strchr(v, '-') || f[0] > UINT32_MAX || f[1] > UINT32_MAX || f[2] > UINT32_MAX ||
        f[3] > UINT32_MAX || f[2] == 0 || f[3] == 0) {
        fprintf(stderr, "wcodec: --region %s: expected X,Y,W,H (pixels, W and H at least 1)\n", v);
        return -1;
    }
    o->region.x = (uint32_t)f[0];
    o->region.y = (uint32_t)f[1];
    o->region.width = (uint32_t)f[2];
    o->region.height = (uint32_t)f[3];
    return 1;
}

/* encode and decode: one IN and OUT, or inputs and folders with --out-dir. */
static int run_files(int argc, char **argv, int decode)
{
    const char *cmd = decode ? "decode" : "encode";
    cli_batch_opts o = {.page = 1};
    wc_params_init(&o.p);
    char **pos = calloc((size_t)argc, sizeof *pos);
    if (!pos) return CLI_BAD;
    int npos = 0, lossy = 0, lossless = 0, rc = CLI_OK;
    for (int i = 2; i < argc && rc == CLI_OK; i++) {
        const char *a = argv[i];
        int r = common_option(argc, argv, &i, &o);
        if (r == 0 && decode) r = region_option(argc, argv, &i, &o);
        if (r == 0 && (!decode || !strcmp(a, "--threads") || !strcmp(a, "--backend") ||
                       !strcmp(a, "--max-pixels") || !strcmp(a, "--max-memory") ||
                       !strcmp(a, "--max-device-memory")))
            r = cli_encoder_option(argc, argv, &i, &o.p, &lossy, &lossless);
        if (r < 0)
            rc = CLI_BAD;
        else if (r > 0)
            continue;
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "wcodec: %s: unknown option '%s' (see --help)\n", cmd, a);
            rc = CLI_BAD;
        } else
            pos[npos++] = argv[i];
    }
    const char *out = NULL;
    if (rc == CLI_OK && !o.out_dir) {
        if (npos == 2)
            out = pos[--npos];
        else {
            fprintf(stderr,
                    "wcodec: %s needs IN and OUT, or inputs and --out-dir DIR (see --help)\n", cmd);
            rc = CLI_BAD;
        }
    }
    if (rc == CLI_OK && o.out_dir && npos == 0) {
        fprintf(stderr, "wcodec: %s: no inputs (see --help)\n", cmd);
        rc = CLI_BAD;
    }
    if (rc == CLI_OK && !decode && cli_encoder_finish(&o.p, lossy, lossless)) rc = CLI_BAD;
    if (rc == CLI_OK && cli_devices_check(&o, out != NULL)) rc = CLI_BAD;
    if (rc == CLI_OK && decode) {
        /* --format, else OUT's name; OUT '-' (no name) is PNG unless --format. */
        const char *ext = o.format                    ? o.format
                          : !out || !strcmp(out, "-") ? "png"
                                                      : strrchr(out, '.');
        if (ext && *ext == '.') ext++;
        static const char *const ok[] = {"png", "tif", "tiff", "pgm", "ppm", "pnm"};
        static const image_format fmt[] = {IMAGE_PNG, IMAGE_TIFF, IMAGE_TIFF,
                                           IMAGE_PNM, IMAGE_PNM,  IMAGE_PNM};
        int known = -1;
        for (int k = 0; ext && k < 6; k++)
            if (!strcasecmp(ext, ok[k])) known = k;
        if (known >= 0) {
            o.out_format = fmt[known];
        } else if (o.format) {
            fprintf(stderr,
                    "wcodec: --format %s: unknown output format (expected png, tif, tiff, "
                    "pgm, ppm or pnm)\n",
                    o.format);
            rc = CLI_BAD;
        } else {
            fprintf(stderr,
                    "wcodec: decode: %s: unknown output format (use .png, .tif, .tiff, "
                    ".pgm, .ppm or .pnm, or --format)\n",
                    out);
            rc = CLI_BAD;
        }
    }
    /* One IN and OUT: never write over the input (i11). */
    if (rc == CLI_OK && out && cli_same_file(cmd, pos[0], out)) rc = CLI_BAD;
    if (rc == CLI_OK) rc = cli_batch_run(&o, decode, pos, npos, out);
    free(pos);
    return rc;
}

static int cmd_encode(int argc, char **argv)
{
    if (want_help(argc, argv)) {
        printf("usage: wcodec encode IN OUT [options]\n"
               "       wcodec encode FILES|DIRS... --out-dir DIR [options]\n\n"
               "Compresses IN (PNG, TIFF, PGM or PPM) into OUT (.wcx). Lossless unless a lossy\n"
               "option is given. IN '-' reads standard input, OUT '-' writes standard\n"
               "output. Prints one line: sizes, ratio, bits per pixel, time (on standard\n"
               "error when OUT is '-').\n"
               "Metadata (ICC profile, gamma, chromaticities, sRGB, resolution, text, time,\n"
               "EXIF, XMP) goes into the file too. With --out-dir, every file and every\n"
               "image in the folders given becomes DIR/NAME.wcx, several at once (one per\n"
               "core, each file the same as from a call of its own); a file that fails is\n"
               "reported and the rest go on; a summary ends it.\n\n"
               "options:\n%s"
               "                        (with --out-dir: files coded at once)\n"
               "  --max-pixels N        refuse inputs larger than N pixels (default 2^31)\n"
               "  --max-memory N        refuse inputs whose encode needs more than N bytes,\n"
               "                        the image included (default 8 GiB: 8589934592)\n"
               "  --max-device-memory N CUDA: allocate at most N bytes of device memory (e.g.\n"
               "                        4G); a larger image is coded in strips, the same bytes\n"
               "                        (default: what the device has free)\n"
               "  --page N              the page of a multi-page TIFF to encode (default 1)\n"
               "  --stream, --no-stream encode a PNG/TIFF/PGM/PPM file by rows in memory that\n"
               "                        grows with its width (always / never; by default\n"
               "                        when the whole image would need over 1 GiB or\n"
               "                        --max-memory; --bpp with Huffman blocks too);\n"
               "                        the same bytes (levels auto: the photograph layout)\n"
               "  --strip               leave the metadata out\n"
               "  --out-dir DIR         encode every input into DIR (created if missing)\n"
               "%s"
               "  -v, --verbose         say which backend ran\n"
               "  -q, --quiet           print nothing on success\n"
               "--quality 100 is lossless; a --bpp at or above the lossless rate gives the\n"
               "lossless file, and says so. Options take --opt value or --opt=value.\n"
               "%s",
               cli_encoder_help, cli_devices_help, cli_spread_help);
        return CLI_OK;
    }
    return run_files(argc, argv, 0);
}

static int cmd_decode(int argc, char **argv)
{
    if (want_help(argc, argv)) {
        printf("usage: wcodec decode IN OUT [options]\n"
               "       wcodec decode FILES|DIRS... --out-dir DIR [--format F] [options]\n\n"
               "Decompresses IN (.wcx) into OUT: PNG, TIFF when OUT ends in .tif/.tiff,\n"
               "or PGM/PPM when it ends in .pgm/.ppm/.pnm. The image keeps the original\n"
               "bit depth and channels, and its metadata goes into the format's own\n"
               "fields (a note names what the format has no place for). With --out-dir,\n"
               "every .wcx file given or in the folders given becomes DIR/NAME.F.\n"
               "IN '-' reads standard input; OUT '-' writes standard output (PNG unless\n"
               "--format says otherwise; the summary line then goes to standard error).\n\n"
               "options:\n"
               "  --out-dir DIR         decode every input into DIR (created if missing)\n"
               "  --format F            png, tif, tiff, pgm, ppm or pnm, whatever OUT's name says\n"
               "                        (with --out-dir: the outputs' format, png by default)\n"
               "  --strip               leave the metadata out\n"
               "  --region X,Y,W,H      only that rectangle (in the --reduce'd image's\n"
               "                        pixels): only the code blocks it needs are decoded\n"
               "  --reduce N            the image at 1/2^N of each side (rounded up), from\n"
               "                        the bands coarser than DWT level N (N <= levels)\n"
               "  --threads N           worker threads (default: all cores)\n"
               "  --backend B           auto (default), cpu or cuda (--region and --reduce\n"
               "                        run on the cpu)\n"
               "  --max-pixels N        refuse files larger than N pixels (default 2^31)\n"
               "  --max-memory N        refuse files needing more than N bytes to decode,\n"
               "                        the file included (default 8 GiB: 8589934592); a\n"
               "                        file decoded in strips takes the tallest strips\n"
               "                        (32 rows down to 8) whose buffers fit in N\n"
               "  --max-device-memory N CUDA: allocate at most N bytes of device memory (e.g.\n"
               "                        4G); a larger image is decoded in strips of rows, the\n"
               "                        same pixels (DWT files with Huffman or arithmetic\n"
               "                        coding; others over N are refused)\n"
               "%s"
               "  -v, --verbose         say which backend ran (and the strips, their need)\n"
               "  -q, --quiet           print nothing on success\n"
               "A file (not '-') decoded on the host (no CUDA device, --backend cpu or\n"
               "WC_BACKEND=cpu; not --region/--reduce) is decoded in full-width strips and\n"
               "written row by row (PNG, TIFF, PGM/PPM; TIFF with EXIF gathers the image):\n"
               "memory grows with the width, not the area, and the output is the same bytes.\n%s",
               cli_devices_help, cli_spread_help);
        return CLI_OK;
    }
    return run_files(argc, argv, 1);
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
        fprintf(want_help(argc, argv) ? stdout : stderr,
                "usage: wcodec info FILE\n\nShows the header of a .wcx file, its bytes per\n"
                "component and per band, and its metadata. FILE '-' reads standard input.\n");
        return want_help(argc, argv) ? CLI_OK : CLI_BAD;
    }
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return CLI_BAD;
    wc_info in;
    wc_err err = {{0}};
    wc_meta *meta = wc_meta_create();
    wc_status s = meta ? inspect_file_meta(ctx, argv[2], &in, meta, &err) : WC_ERR_NOMEM;
    if (s != WC_OK) {
        cli_error_msg(err.msg, s, argv[2]);
    } else {
        static const char *const tn[3] = {"DWT", "DCT 8x8", "LOT 8x8"};
        static const char *const cn[4] = {"none", "RCT (reversible)", "ICT (YCbCr)",
                                          "palette (one plane of indices)"};
        printf("file:        %s (%llu bytes, format %u.%u)\n", argv[2],
               (unsigned long long)in.file_bytes, in.format_major, in.format_minor);
        printf("image:       %ux%u, %u component(s), %u-bit\n", in.width, in.height, in.components,
               in.bit_depth);
        printf("coding:      %s, %s", in.lossless ? "lossless" : "lossy", tn[in.transform]);
        if (in.transform == WC_TRANSFORM_DWT)
            printf(" %s%s, %d level(s)", in.wavelet % 10 == 3 ? "5/3" : "9/7",
                   in.wavelet > 200   ? " explosive"
                   : in.wavelet > 100 ? " monolithic"
                                      : "",
                   in.levels);
        printf("\ncolour:      %s\n", cn[in.colour]);
        if (in.entropy == WC_ENTROPY_FILTERED) /* each plane one deflate stream: no blocks */
            printf("entropy:     filtered deflate (PNG's row filters, a plane a stream)\n");
        else
            printf("entropy:     %s, code blocks %dx%d\n",
                   in.entropy == WC_ENTROPY_HUFFMAN         ? "Huffman"
                   : in.entropy == WC_ENTROPY_HUFFMAN_TILES ? "Huffman (tiles)"
                   : in.entropy == WC_ENTROPY_ARITH         ? "arithmetic"
                                                            : "deflate",
                   in.block_size, in.block_size);
        if (!in.lossless) printf("base step:   %g\n", in.base_step);
        printf("bits/pixel:  %.4f\n", in.file_bytes * 8.0 / ((double)in.width * in.height));
        /* A palette file codes one plane, of indices. */
        const uint32_t planes = in.colour == 3 ? 1 : in.components;
        for (uint32_t c = 0; c < planes; c++) {
            printf("component %u: %llu bytes\n", c, (unsigned long long)in.component_bytes[c]);
            uint32_t nb = in.bands;
            for (uint32_t b = 0; b < nb && b < 64; b++) {
                char label[32];
                printf("  %-10s %10llu\n", band_label(&in, b, label, sizeof label),
                       (unsigned long long)in.band_bytes[c][b]);
            }
        }
        cli_image_print_meta(meta);
    }
    wc_meta_free(meta);
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
    const char *file[2] = {NULL, NULL};
    float min_psnr = -1;
    int exact = 0, nfile = 0, bad = 0;
    for (int i = 2; i < argc && !bad; i++) {
        if (!strcmp(argv[i], "--exact"))
            exact = 1;
        else if (!strcmp(argv[i], "--min-psnr"))
            bad = i + 1 >= argc || cli_float("--min-psnr", argv[++i], 0, 1000, &min_psnr);
        else if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--help") &&
                 strcmp(argv[i], "-h")) {
            fprintf(stderr, "wcodec: compare: unknown option '%s' (see --help)\n", argv[i]);
            bad = 1;
        } else if (nfile < 2)
            file[nfile++] = argv[i];
        else
            bad = 1;
    }
    if (want_help(argc, argv) || bad || nfile != 2) {
        fprintf(want_help(argc, argv) ? stdout : stderr,
                "usage: wcodec compare A B [--min-psnr X] [--exact]\n\n"
                "PSNR per channel and over the colour channels, luma PSNR, maximum absolute\n"
                "error and SSIM between two images of the same size and layout (PNG, TIFF,\n"
                "PGM, PPM or .wcx, which is decoded first). Exit status 0 when it ran,\n"
                "whatever the difference; for scripts:\n"
                "  --min-psnr X          exit 3 when the colour PSNR is below X dB\n"
                "  --exact               exit 3 unless the images are identical\n");
        return want_help(argc, argv) ? CLI_OK : CLI_BAD;
    }
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return CLI_BAD;
    wc_image a = {0}, b = {0};
    wc_err err = {{0}};
    wc_status s = WC_OK;
    for (int k = 0; k < 2 && s == WC_OK; k++) {
        struct stat st;
        if (stat(file[k], &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "wcodec: %s is a folder, not an image\n", file[k]);
            s = WC_ERR_ARG;
        } else if ((s = cli_load_any(ctx, file[k], NULL, k ? &b : &a, &err)) != WC_OK) {
            cli_error_msg(err.msg, s, file[k]);
        }
    }
    image_metrics m;
    if (s == WC_OK && (s = image_compare(&a, &b, &m)) != WC_OK)
        fprintf(stderr,
                "wcodec: compare: the images differ in size, channels or bit depth "
                "(%ux%u x%u %u-bit vs %ux%u x%u %u-bit)\n",
                a.width, a.height, a.components, a.bit_depth, b.width, b.height, b.components,
                b.bit_depth);
    if (s == WC_OK) {
        static const char *const names[4][4] = {
            {"gray"}, {"gray", "alpha"}, {"R", "G", "B"}, {"R", "G", "B", "alpha"}};
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
    int rc = cli_exit_code(s);
    if (s == WC_OK && exact && m.max_abs_error != 0) {
        fprintf(stderr, "wcodec: compare: the images differ (--exact)\n");
        rc = CLI_BELOW;
    } else if (s == WC_OK && min_psnr >= 0 && !(m.psnr_rgb >= min_psnr)) {
        fprintf(stderr, "wcodec: compare: PSNR %.4f dB is below --min-psnr %g\n", m.psnr_rgb,
                min_psnr);
        rc = CLI_BELOW;
    }
    wc_image_free(&a);
    wc_image_free(&b);
    wc_ctx_free(ctx);
    return rc;
}

/* The version, the backends built in and the one a call would use (a
 * one-pixel encode asks the library, as any program would), the image
 * libraries linked. */
static wc_status probe(wc_ctx *ctx, wc_backend_kind kind)
{
    uint8_t px = 0;
    wc_image img = {1, 1, 1, 8, 1, &px};
    wc_params p;
    wc_params_init(&p);
    p.backend = kind;
    void *buf = NULL;
    size_t n = 0;
    wc_status s = wc_encode_alloc(ctx, &p, &img, &buf, &n);
    free(buf);
    return s;
}

static int cli_version(void)
{
    printf("wcodec %s (format 1.0)\n", wc_version_string());
    wc_ctx *ctx = wc_ctx_create();
    if (!ctx) return CLI_BAD;
    wc_status s = probe(ctx, WC_BACKEND_AUTO);
    if (s != WC_OK) {
        cli_error(ctx, s, "backend");
    } else {
        const char *note = wc_ctx_note(ctx), *env = getenv("WC_BACKEND");
        printf("default:   %s\n", note[0] ? note + strlen("backend: ") : wc_ctx_backend(ctx));
        if (env && !strcmp(env, "cpu")) {
            printf("cuda:      not probed (WC_BACKEND=cpu)\n");
        } else if (probe(ctx, WC_BACKEND_CUDA) == WC_OK) {
            printf("cuda:      built in; %d device(s)\n", wc_device_count());
        } else {
            const char *e = wc_ctx_error(ctx);
            printf("cuda:      %s\n", strstr(e, "not part of this build") ? "not built in" : e);
        }
    }
    printf("mpi:       %s\n", cli_mpi_build);
    char v[160];
    image_io_versions(v, sizeof v);
    printf("libraries: %s\n", v);
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

/* --opt=value becomes --opt value, so every option takes either form.
 * Returns a new list (argv itself when out of memory). */
static char **split_equals(int *argc, char **argv)
{
    char **v = calloc(2 * (size_t)*argc + 1, sizeof *v);
    if (!v) return argv;
    int n = 0;
    for (int i = 0; i < *argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (i >= 2 && !strncmp(argv[i], "--", 2) && eq && eq > argv[i] + 2) {
            *eq = '\0';
            v[n++] = argv[i];
            v[n++] = eq + 1;
        } else {
            v[n++] = argv[i];
        }
    }
    *argc = n;
    return v;
}

static int run_command(int argc, char **argv)
{
    catch_signals();
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_BAD : CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) return cli_version();
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

int main(int argc, char **argv)
{
    char **args = split_equals(&argc, argv);
    int rc = run_command(argc, args);
    if (args != argv) free(args);
    return rc;
}
