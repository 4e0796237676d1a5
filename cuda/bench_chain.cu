/*
 * bench_chain.cu -- the whole codec on the 7680x4320 photograph (tiled
 * from the landscape Kodak images), CPU backend against CUDA backend, and
 * nvJPEG on the same image in the same run (when the toolkit has it):
 *
 *   modes: lossless; 9/7 at nvJPEG q75's rate; 9/7 at 1 bpp; DCT q75
 *   (the lossy steps are found once by rate control, then every timed
 *   encode uses that fixed step);
 *   encode host -> host from pageable and from pinned memory, first call
 *   (context set-up) apart, per-stage times, the CUDA file compared with
 *   the CPU file byte for byte; decode host -> host; rate and PSNR.
 *
 *   usage: wcodec_chain_bench KODAK_DIR [--reps N] [--ppm OUT.ppm] [--no-batch]
 * (--ppm writes the photo and stops: for timing `wcodec encode` on it;
 * --no-batch leaves out the Kodak batch rows). WC_BENCH_TRACE=1: each
 * mode's device stages and host steps of one more encode and decode, on
 * stderr; with WC_BENCH_VARIANTS as well, that encode again under each
 * set of switches it lists (trace_variants). WC_BENCH_BPP_VARIANTS: the
 * same for the `--bpp` encodes (bpp_variants: medians of at least 5, and
 * with WC_BENCH_TRACE a traced one, a line a probe). WC_BENCH_ONLY=TEXT:
 * only the 8K modes whose name holds TEXT (for a profiler's run).
 * Medians of N runs (default 9) after the first call.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <unistd.h>

#include <cuda_runtime.h>
#ifdef WC_HAVE_NVJPEG
#include <nvjpeg.h>
#endif

extern "C" {
#include "image_io.h" /* imageio/: reading the Kodak PNGs, writing the PPM */
#include "metrics.h"  /* programs/: the command's PSNR */
#include "wcodec.h"
}

namespace
{

const uint32_t W = 7680, H = 4320;
int g_reps = 9;
wc_entropy g_entropy = WC_ENTROPY_HUFFMAN; /* --entropy huffman-tiles: format 2.0 */
int g_block = 0;                           /* --block N: the code-block side (0: the default) */

double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* The 8K RGB photograph: landscape Kodak images side by side, 10 x 9
 * tiles of 768 x 512, the last row cut. */
bool make_photo(const char *dir, wc_image *img)
{
    std::vector<wc_image> tiles;
    for (int i = 1; i <= 24; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/kodim%02d.png", dir, i);
        wc_image t;
        wc_err err = {{0}};
        if (image_read(path, 0, &t, &err) != WC_OK) continue;
        if (t.width == 768 && t.height == 512 && t.components == 3 && t.bit_depth == 8)
            tiles.push_back(t);
        else
            wc_image_free(&t);
    }
    if (tiles.empty()) return false;
    img->width = W;
    img->height = H;
    img->components = 3;
    img->bit_depth = 8;
    img->stride = 0;
    if (wc_image_alloc(img) != WC_OK) return false;
    uint8_t *px = (uint8_t *)img->pixels;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t tx = 0; tx < W / 768; tx++) {
            const wc_image &t = tiles[((y / 512) * 10 + tx) % tiles.size()];
            memcpy(px + ((size_t)y * W + tx * 768) * 3,
                   (uint8_t *)t.pixels + (size_t)(y % 512) * t.stride, 768 * 3);
        }
    printf("photo: %ux%u RGB 8-bit from %zu Kodak images\n", W, H, tiles.size());
    for (auto &t : tiles) wc_image_free(&t);
    return true;
}

struct mode {
    const char *name;
    int lossless, transform;
    float bpp, quality;
    float step; /* found once */
};

void set_params(const mode &m, wc_backend_kind be, wc_params *p)
{
    wc_params_init(p);
    p->backend = be;
    p->lossless = m.lossless;
    p->transform = (wc_transform)m.transform;
    p->entropy = g_entropy;
    if (g_block) p->block_size = g_block;
    /* WC_BENCH_DWT_SCHEME=monolithic (or explosive): the same modes in that
     * DWT scheme, to compare it with the separable one in one device run. */
    const char *scheme = getenv("WC_BENCH_DWT_SCHEME");
    if (scheme && !strcmp(scheme, "monolithic")) p->dwt_scheme = WC_DWT_MONOLITHIC;
    if (scheme && !strcmp(scheme, "explosive")) p->dwt_scheme = WC_DWT_EXPLOSIVE;
    if (m.step > 0)
        p->step = m.step;
    else if (m.bpp > 0)
        p->bpp = m.bpp;
    else
        p->quality = m.quality;
}

struct result {
    double enc_first, enc_pageable, enc_pinned, t_transform, t_entropy, t_container;
    double dec;
    size_t bytes;
    int identical;
    double psnr;
};

/* Median of reps encodes; the stage times of the median-ish run. */
double time_encode(wc_ctx *ctx, const wc_params *p, const wc_image *img, std::vector<uint8_t> &file,
                   int reps, wc_times *stages)
{
    std::vector<double> t;
    std::vector<wc_times> st;
    size_t cap = wc_encode_bound(img, p);
    file.resize(cap);
    for (int r = 0; r < reps; r++) {
        size_t n = 0;
        double t0 = now_ms();
        wc_status s = wc_encode(ctx, p, img, file.data(), cap, &n);
        t.push_back(now_ms() - t0);
        if (s != WC_OK) {
            fprintf(stderr, "encode: %s\n", wc_ctx_error(ctx));
            exit(1);
        }
        file.resize(n);
        wc_times x;
        wc_ctx_times(ctx, &x);
        st.push_back(x);
        file.resize(cap);
        file.resize(n);
    }
    if (stages) {
        std::vector<double> a, b, c;
        for (auto &x : st)
            a.push_back(x.transform), b.push_back(x.entropy), c.push_back(x.container);
        stages->transform = median(a);
        stages->entropy = median(b);
        stages->container = median(c);
    }
    return median(t);
}

/* Sets (on) or unsets one variant's comma-separated VAR=VALUE list. */
void set_variant(const char *v, bool on)
{
    char set[128];
    snprintf(set, sizeof set, "%s", v);
    char *save = NULL;
    for (char *kv = strtok_r(set, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) continue;
        *eq = 0;
        if (on)
            setenv(kv, eq + 1, 1);
        else
            unsetenv(kv);
    }
}

/* The space-separated variants of environment variable env (none where
 * it is unset). */
std::vector<std::string> variants_of(const char *env)
{
    std::vector<std::string> out;
    const char *all = getenv(env);
    for (const char *a = all ? all : ""; *a;) {
        const char *b = strchr(a, ' ');
        const size_t n = b ? (size_t)(b - a) : strlen(a);
        if (n) out.emplace_back(a, n);
        a += n + (b ? 1 : 0);
    }
    return out;
}

/* fn(v) for each variant v of environment variable env, with v's
 * switches set (set_variant) while it runs. */
template <class F> void each_variant(const char *env, F fn)
{
    for (const std::string &v : variants_of(env)) {
        set_variant(v.c_str(), true);
        fn(v.c_str());
        set_variant(v.c_str(), false);
    }
}

/* WC_BENCH_BPP_VARIANTS="A=0,B=0 A=1": the `--bpp` encode (params pb)
 * under each space-separated set of switches in turn, medians of reps,
 * against the fixed step's `fixed_ms`; with WC_BENCH_TRACE one more
 * encode with the device's trace on (a line a probe, on stderr). */
void bpp_variants(wc_ctx *ctx, const wc_params *pb, const wc_image *img,
                  const std::vector<uint8_t> &want, double fixed_ms, int reps)
{
    each_variant("WC_BENCH_BPP_VARIANTS", [&](const char *v) {
        std::vector<uint8_t> f;
        const double ms = time_encode(ctx, pb, img, f, reps, NULL);
        printf("  --bpp %.3f variant %s: %.2f ms (%.2fx the fixed step's %.2f), same bytes as "
               "the CPU's: %s\n",
               pb->bpp, v, ms, ms / fixed_ms, fixed_ms, f == want ? "yes" : "NO");
        if (getenv("WC_BENCH_TRACE")) {
            setenv("WC_CUDA_TIMES", "1", 1);
            fprintf(stderr, "  --bpp %.3f variant %s, traced:\n", pb->bpp, v);
            const double t = time_encode(ctx, pb, img, f, 1, NULL);
            fprintf(stderr, "  --bpp %.3f variant %s, traced: wall %.3f ms\n", pb->bpp, v, t);
            unsetenv("WC_CUDA_TIMES");
        }
    });
}

/* WC_BENCH_VARIANTS="A=1,B=2 A=3": the traced encode again under each
 * space-separated set of VAR=VALUE settings (the versions a binary keeps
 * behind WC_CUDA_* switches, side by side in one process): five encodes
 * each, their median wall and container times, the device stages on
 * stderr, and whether the file is the same. */
void trace_variants(wc_ctx *ctx, const wc_params *p, const wc_image *img,
                    const std::vector<uint8_t> &want, const char *mode)
{
    each_variant("WC_BENCH_VARIANTS", [&](const char *v) {
        setenv("WC_CUDA_TIMES", "1", 1);
        fprintf(stderr, "  %s variant %s:\n", mode, v);
        std::vector<double> wall, cont;
        bool same = true;
        std::vector<uint8_t> f;
        for (int r = 0; r < 5; r++) {
            wc_times x;
            wall.push_back(time_encode(ctx, p, img, f, 1, &x));
            cont.push_back(1e3 * x.container);
            same = same && f == want;
        }
        unsetenv("WC_CUDA_TIMES");
        fprintf(stderr,
                "  %s variant %s: encode pinned median wall %.3f ms, container %.3f ms, "
                "same file: %s\n",
                mode, v, median(wall), median(cont), same ? "yes" : "NO");
    });
}

/* wc_decode_into a buffer of the caller's (pinned host or device): the
 * median of n decodes (n 0: reps, at least 5; the decodes are short, and
 * three left the rows at the host's mercy). */
double time_decode_into(wc_ctx *ctx, wc_memory mem, const std::vector<uint8_t> &file,
                        const wc_image &like, void *buf, int n = 0)
{
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CUDA;
    p.memory = mem;
    wc_image out = like;
    out.pixels = buf;
    out.stride = 0;
    std::vector<double> t;
    for (int r = 0; r < (n ? n : std::max(5, g_reps)); r++) {
        double t0 = now_ms();
        if (wc_decode_into(ctx, &p, file.data(), file.size(), &out) != WC_OK) {
            fprintf(stderr, "decode into: %s\n", wc_ctx_error(ctx));
            exit(1);
        }
        t.push_back(now_ms() - t0);
    }
    return median(t);
}

/* WC_BENCH_DEC_AB="A=1 A=0,B=2": decodes to pinned memory and to the
 * device under each space-separated set of switches, the sets taking
 * turns decode by decode (so that the host's drift falls on all alike),
 * 3 * reps each; medians, and whether the pixels are the CPU's. */
void dec_ab(wc_ctx *ctx, const std::vector<uint8_t> &file, const wc_image &like, void *pinned,
            void *dev, const std::vector<uint8_t> &want)
{
    const std::vector<std::string> sets = variants_of("WC_BENCH_DEC_AB");
    if (sets.empty()) return;
    std::vector<std::vector<double>> tp(sets.size()), td(sets.size());
    std::vector<bool> same(sets.size(), true);
    for (int r = 0; r < g_reps; r++)
        for (size_t v = 0; v < sets.size(); v++) {
            set_variant(sets[v].c_str(), true);
            tp[v].push_back(time_decode_into(ctx, WC_MEMORY_HOST, file, like, pinned, 3));
            same[v] = same[v] && memcmp(pinned, want.data(), want.size()) == 0;
            td[v].push_back(time_decode_into(ctx, WC_MEMORY_DEVICE, file, like, dev, 3));
            set_variant(sets[v].c_str(), false);
        }
    for (size_t v = 0; v < sets.size(); v++)
        printf("  decode %s: to pinned %.2f ms, to device %.2f ms (medians of %d x 3, taking "
               "turns), same pixels as the CPU: %s\n",
               sets[v].c_str(), median(tp[v]), median(td[v]), g_reps, same[v] ? "yes" : "NO");
    fflush(stdout);
}

double time_decode(wc_ctx *ctx, wc_backend_kind be, const std::vector<uint8_t> &file, int reps,
                   wc_image *out)
{
    wc_params p;
    wc_params_init(&p);
    p.backend = be;
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        if (out->pixels) wc_image_free(out);
        double t0 = now_ms();
        if (wc_decode(ctx, &p, file.data(), file.size(), out) != WC_OK) {
            fprintf(stderr, "decode: %s\n", wc_ctx_error(ctx));
            exit(1);
        }
        t.push_back(now_ms() - t0);
    }
    return median(t);
}

#ifdef WC_HAVE_NVJPEG
#define NJ(call)                                                                      \
    do {                                                                              \
        nvjpegStatus_t s_ = (call);                                                   \
        if (s_ != NVJPEG_STATUS_SUCCESS) {                                            \
            fprintf(stderr, "%s:%d: nvJPEG error %d\n", __FILE__, __LINE__, (int)s_); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

void nvj_close(nvjpegHandle_t h, nvjpegEncoderState_t es, nvjpegEncoderParams_t ep,
               nvjpegJpegState_t js, cudaStream_t st, void *d_rgb, void *d_out, void *h_jpg,
               void *h_out)
{
    nvjpegJpegStateDestroy(js);
    nvjpegEncoderParamsDestroy(ep);
    nvjpegEncoderStateDestroy(es);
    nvjpegDestroy(h);
    cudaFree(d_rgb);
    cudaFree(d_out);
    cudaFreeHost(h_jpg);
    cudaFreeHost(h_out);
    cudaStreamDestroy(st);
}

/* nvJPEG q75 4:2:0 of the photo: returns its bits per pixel. */
double bench_nvjpeg(const wc_image *img, const uint8_t *pinned)
{
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    nvjpegHandle_t h;
    nvjpegEncoderState_t es;
    nvjpegEncoderParams_t ep;
    double t0 = now_ms();
    NJ(nvjpegCreateSimple(&h));
    NJ(nvjpegEncoderStateCreate(h, &es, st));
    NJ(nvjpegEncoderParamsCreate(h, &ep, st));
    NJ(nvjpegEncoderParamsSetQuality(ep, 75, st));
    NJ(nvjpegEncoderParamsSetSamplingFactors(ep, NVJPEG_CSS_420, st));
    NJ(nvjpegEncoderParamsSetOptimizedHuffman(ep, 0, st));
    const double setup = now_ms() - t0;
    const size_t bytes = (size_t)W * H * 3;
    uint8_t *d_rgb, *d_out;
    CK(cudaMalloc(&d_rgb, bytes));
    CK(cudaMalloc(&d_out, bytes));
    nvjpegImage_t in;
    memset(&in, 0, sizeof in);
    in.channel[0] = d_rgb;
    in.pitch[0] = W * 3;
    std::vector<uint8_t> jpg;
    uint8_t *h_jpg;
    CK(cudaHostAlloc((void **)&h_jpg, bytes, cudaHostAllocDefault));
    std::vector<double> hh, dd;
    size_t len = 0;
    for (int r = 0; r < g_reps + 1; r++) {
        double a = now_ms();
        CK(cudaMemcpyAsync(d_rgb, pinned, bytes, cudaMemcpyHostToDevice, st));
        CK(cudaStreamSynchronize(st));
        double b = now_ms();
        NJ(nvjpegEncodeImage(h, es, ep, &in, NVJPEG_INPUT_RGBI, W, H, st));
        NJ(nvjpegEncodeRetrieveBitstream(h, es, NULL, &len, st));
        NJ(nvjpegEncodeRetrieveBitstream(h, es, h_jpg, &len, st));
        CK(cudaStreamSynchronize(st));
        double c = now_ms();
        if (r) hh.push_back(c - a), dd.push_back(c - b);
    }
    jpg.assign(h_jpg, h_jpg + len);
    /* Decode: to the device, and to the host. */
    nvjpegJpegState_t js;
    NJ(nvjpegJpegStateCreate(h, &js));
    nvjpegImage_t out;
    memset(&out, 0, sizeof out);
    out.channel[0] = d_out;
    out.pitch[0] = W * 3;
    std::vector<double> dev, host;
    uint8_t *h_out;
    CK(cudaHostAlloc((void **)&h_out, bytes, cudaHostAllocDefault));
    for (int r = 0; r < g_reps + 1; r++) {
        double a = now_ms();
        NJ(nvjpegDecode(h, js, jpg.data(), jpg.size(), NVJPEG_OUTPUT_RGBI, &out, st));
        CK(cudaStreamSynchronize(st));
        double b = now_ms();
        CK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
        double c = now_ms();
        if (r) dev.push_back(b - a), host.push_back(c - a);
    }
    wc_image dec = *img;
    dec.pixels = h_out;
    dec.stride = 0;
    image_metrics m;
    image_compare(img, &dec, &m);
    const double bpp = 8.0 * len / ((double)W * H);
    printf("nvJPEG q75 4:2:0: %.3f bpp, PSNR %.2f dB | encode pinned host->host %.2f ms, "
           "from device (to host bitstream) %.2f ms | decode to device %.2f ms, to host %.2f ms | "
           "set-up %.1f ms\n",
           bpp, m.psnr_rgb, median(hh), median(dd), median(dev), median(host), setup);
    nvj_close(h, es, ep, js, st, d_rgb, d_out, h_jpg, h_out);
    return bpp;
}
#endif

/* One batch row's timings: encode and decode of n images, host to host. */
struct batch_times {
    std::vector<double> enc, dec;
};

/* One pass of a row (row 1: one call an image, else the batch calls);
 * false on a failure (reported). */
bool batch_pass(wc_ctx *ctx, const wc_params &p, std::vector<wc_image> &imgs, bool one_call,
                batch_times *t)
{
    const size_t n = imgs.size();
    std::vector<void *> outs(n);
    std::vector<size_t> sizes(n);
    std::vector<wc_image> dec(n);
    size_t failed = 0;
    double t0 = now_ms();
    bool ok = true;
    if (one_call) {
        for (size_t i = 0; i < n && ok; i++)
            ok = wc_encode_alloc(ctx, &p, &imgs[i], &outs[i], &sizes[i]) == WC_OK;
    } else {
        ok = wc_encode_batch(ctx, &p, imgs.data(), n, outs.data(), sizes.data(), &failed) == WC_OK;
    }
    const double enc = now_ms() - t0;
    t0 = now_ms();
    const bool decode = !getenv("WC_BENCH_BATCH_ENCODE_ONLY");
    if (decode && one_call) {
        for (size_t i = 0; i < n && ok; i++)
            ok = wc_decode(ctx, &p, outs[i], sizes[i], &dec[i]) == WC_OK;
    } else if (decode && ok) {
        ok = wc_decode_batch(ctx, &p, (const void *const *)outs.data(), sizes.data(), n, dec.data(),
                             &failed) == WC_OK;
    }
    const double dect = now_ms() - t0;
    if (!ok) fprintf(stderr, "batch: %s\n", wc_ctx_error(ctx));
    if (t) {
        t->enc.push_back(enc);
        t->dec.push_back(dect);
    }
    for (size_t i = 0; i < n; i++) {
        wc_free(outs[i]);
        wc_image_free(&dec[i]);
    }
    return ok;
}

/* WC_BENCH_AB=1: each CUDA batch row three times, its passes interleaved
 * with WC_CUDA_GRAPH=0 (the chain's calls one by one), =copy (a graph a
 * shape, g1) and =mapped (the pack writing into pinned host memory, g2),
 * on one context each, on as many workers as cores and twice that (the
 * other rows left out: the switch does not touch them);
 * WC_BENCH_BATCH_WORKERS=N: only a CUDA batch row of N workers (with
 * WC_CUDA_CLOCKS, whose lines then come from one variant);
 * WC_BENCH_BATCH_ENCODE_ONLY=1: no decodes. Passes: 1 +
 * WC_BENCH_BATCH_REPS (default 3), the first one set-up, not counted. */
int env_int(const char *name, int otherwise)
{
    const char *e = getenv(name);
    return e && *e ? atoi(e) : otherwise;
}

/* The 24 Kodak images, each `times` times, as one batch: images per
 * second, encode (9/7, quality 75) and decode, host to host, on each
 * backend. */
void batch(const char *dir)
{
    std::vector<wc_image> kodak;
    for (int i = 1; i <= 24; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/kodim%02d.png", dir, i);
        wc_image t;
        wc_err err = {{0}};
        if (image_read(path, 0, &t, &err) == WC_OK) kodak.push_back(t);
    }
    if (kodak.empty()) return;
    const bool ab = env_int("WC_BENCH_AB", 0) != 0;
    const int only = env_int("WC_BENCH_BATCH_WORKERS", 0);
    const int reps = env_int("WC_BENCH_BATCH_REPS", 3) > 0 ? env_int("WC_BENCH_BATCH_REPS", 3) : 3;
    printf("\n| batch (Kodak x N, 9/7 q75, host to host; medians of %d) | images | encode "
           "images/s | decode images/s |\n"
           "| --- | --- | --- | --- |\n",
           reps);
    /* rows: CPU batch, CUDA one call an image, CUDA batch on all cores,
     * then on 2x and 4x as many workers (p.threads): a worker waits on
     * its stream for much of an image */
    const int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int row = 0; row < 5; row++) {
        const int threads = only       ? only
                            : row == 3 ? 2 * cores
                            : row == 4 ? 4 * cores
                            : row == 2 ? cores
                                       : 0;
        if ((only && row != 2) || (ab && (row < 2 || row > 3))) continue;
        const int times = row >= 2 ? 40 : row ? 10 : 4; /* the slow ones: fewer */
        std::vector<wc_image> imgs;
        for (int k = 0; k < times; k++) imgs.insert(imgs.end(), kodak.begin(), kodak.end());
        const size_t n = imgs.size();
        wc_params p;
        wc_params_init(&p);
        p.lossless = 0;
        if (g_block) p.block_size = g_block;
        p.backend = row ? WC_BACKEND_CUDA : WC_BACKEND_CPU;
        p.threads = row >= 2 ? threads : 0;
        const int variants = ab && row >= 2 ? 3 : 1;
        static const char *const graph[3] = {"0", "copy", "mapped"};
        static const char *const label[3] = {" (WC_CUDA_GRAPH=0)", " (graphs, payload copied, g1)",
                                             " (graphs, payload mapped, g2)"};
        wc_ctx *ctx[3] = {wc_ctx_create(), variants > 1 ? wc_ctx_create() : NULL,
                          variants > 1 ? wc_ctx_create() : NULL};
        batch_times t[3];
        bool ok = true;
        for (int rep = 0; rep <= reps && ok; rep++) /* the first: set-up, not counted */
            for (int v = 0; v < variants && ok; v++) {
                if (variants > 1) setenv("WC_CUDA_GRAPH", graph[v], 1);
                ok = batch_pass(ctx[v], p, imgs, row == 1, rep ? &t[v] : NULL);
            }
        if (variants > 1) unsetenv("WC_CUDA_GRAPH");
        for (int v = 0; v < variants && ok; v++)
            printf("| %s%s, %d workers | %zu | %.0f | %.0f |\n",
                   row == 0   ? "cpu backend, wc_encode/decode_batch"
                   : row == 1 ? "cuda backend, one call an image"
                              : "cuda backend, wc_encode/decode_batch",
                   variants > 1 ? label[v] : "",
                   row == 1    ? 1
                   : p.threads ? p.threads
                               : cores,
                   n, n / (median(t[v].enc) * 1e-3), n / (median(t[v].dec) * 1e-3));
        for (wc_ctx *c : ctx)
            if (c) wc_ctx_free(c);
    }
    if (only) {
        for (auto &t : kodak) wc_image_free(&t);
        return;
    }
#ifdef WC_HAVE_NVJPEG
    { /* nvJPEG q75 4:2:0 on the same 960 images, one call each, host to host */
        cudaStream_t st;
        CK(cudaStreamCreate(&st));
        nvjpegHandle_t h;
        nvjpegEncoderState_t es;
        nvjpegEncoderParams_t ep;
        NJ(nvjpegCreateSimple(&h));
        NJ(nvjpegEncoderStateCreate(h, &es, st));
        NJ(nvjpegEncoderParamsCreate(h, &ep, st));
        NJ(nvjpegEncoderParamsSetQuality(ep, 75, st));
        NJ(nvjpegEncoderParamsSetSamplingFactors(ep, NVJPEG_CSS_420, st));
        nvjpegJpegState_t js;
        NJ(nvjpegJpegStateCreate(h, &js));
        uint8_t *d_rgb, *d_out, *h_jpg, *h_out;
        const size_t most = 768 * 768 * 3;
        CK(cudaMalloc(&d_rgb, most));
        CK(cudaMalloc(&d_out, most));
        CK(cudaHostAlloc((void **)&h_jpg, most, cudaHostAllocDefault));
        CK(cudaHostAlloc((void **)&h_out, most, cudaHostAllocDefault));
        std::vector<std::vector<uint8_t>> jpgs;
        const int times = 40;
        std::vector<double> enc_t, dec_t;
        for (int rep = 0; rep < reps; rep++) {
            double t0 = now_ms();
            for (int k = 0; k < times; k++)
                for (const wc_image &t : kodak) {
                    const size_t bytes = (size_t)t.width * t.height * 3;
                    CK(cudaMemcpyAsync(d_rgb, t.pixels, bytes, cudaMemcpyHostToDevice, st));
                    nvjpegImage_t in;
                    memset(&in, 0, sizeof in);
                    in.channel[0] = d_rgb;
                    in.pitch[0] = t.width * 3;
                    NJ(nvjpegEncodeImage(h, es, ep, &in, NVJPEG_INPUT_RGBI, t.width, t.height, st));
                    size_t len = 0;
                    NJ(nvjpegEncodeRetrieveBitstream(h, es, NULL, &len, st));
                    NJ(nvjpegEncodeRetrieveBitstream(h, es, h_jpg, &len, st));
                    CK(cudaStreamSynchronize(st));
                    if (k == 0 && rep == 0) jpgs.emplace_back(h_jpg, h_jpg + len);
                }
            enc_t.push_back(now_ms() - t0);
            t0 = now_ms();
            for (int k = 0; k < times; k++)
                for (size_t i = 0; i < kodak.size(); i++) {
                    nvjpegImage_t out;
                    memset(&out, 0, sizeof out);
                    out.channel[0] = d_out;
                    out.pitch[0] = kodak[i].width * 3;
                    NJ(nvjpegDecode(h, js, jpgs[i].data(), jpgs[i].size(), NVJPEG_OUTPUT_RGBI, &out,
                                    st));
                    CK(cudaMemcpyAsync(h_out, d_out, (size_t)kodak[i].width * kodak[i].height * 3,
                                       cudaMemcpyDeviceToHost, st));
                    CK(cudaStreamSynchronize(st));
                }
            dec_t.push_back(now_ms() - t0);
        }
        const size_t n = (size_t)times * kodak.size();
        printf("| nvJPEG (one call an image) | %zu | %.0f | %.0f |\n", n,
               n / (median(enc_t) * 1e-3), n / (median(dec_t) * 1e-3));
        nvj_close(h, es, ep, js, st, d_rgb, d_out, h_jpg, h_out);
    }
#endif
    for (auto &t : kodak) wc_image_free(&t);
}

} /* namespace */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "usage: %s KODAK_DIR [--reps N] [--ppm OUT.ppm] [--batch-only]\n"
                "       [--entropy huffman|huffman-tiles|arith] [--block N] [--no-batch]\n",
                argv[0]);
        return 2;
    }
    const char *ppm = NULL;
    bool no_batch = false;
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--no-batch")) no_batch = true; /* the 8K rows alone */
    for (int i = 2; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--reps"))
            g_reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 9;
        else if (!strcmp(argv[i], "--block"))
            g_block = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ppm"))
            ppm = argv[++i];
        else if (!strcmp(argv[i], "--entropy"))
            g_entropy = !strcmp(argv[++i], "huffman-tiles") ? WC_ENTROPY_HUFFMAN_TILES
                        : !strcmp(argv[i], "arith")         ? WC_ENTROPY_ARITH
                                                            : WC_ENTROPY_HUFFMAN;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--batch-only")) { /* the Kodak batch rows alone */
            batch(argv[1]);
            return 0;
        }
    wc_image img;
    if (!make_photo(argv[1], &img)) {
        fprintf(stderr, "no landscape Kodak PNGs in %s\n", argv[1]);
        return 1;
    }
    if (ppm) { /* the photo for timing the command itself; nothing else */
        wc_err err = {{0}};
        const wc_status st = image_write(ppm, &img, &err);
        printf("wrote %s: %s\n", ppm, st == WC_OK ? "ok" : err.msg);
        return st == WC_OK ? 0 : 1;
    }
    uint8_t *pinned;
    const size_t bytes = (size_t)W * H * 3;
    CK(cudaHostAlloc((void **)&pinned, bytes, cudaHostAllocDefault));
    memcpy(pinned, img.pixels, bytes);
    wc_image pimg = img;
    pimg.pixels = pinned;
    void *dpx;
    CK(cudaMalloc(&dpx, bytes));
    CK(cudaMemcpy(dpx, pinned, bytes, cudaMemcpyHostToDevice));
    wc_image dimg = img;
    dimg.pixels = dpx;
    uint8_t *pinned_out;
    CK(cudaHostAlloc((void **)&pinned_out, bytes, cudaHostAllocDefault));
    void *dout;
    CK(cudaMalloc(&dout, bytes));

    float nvj_bpp = 1.59f;
#ifdef WC_HAVE_NVJPEG
    nvj_bpp = (float)bench_nvjpeg(&img, pinned);
#else
    printf("nvJPEG: not in this toolkit; 9/7 at the issue's 1.59 bpp instead\n");
#endif
    mode modes[] = {{"lossless 5/3", 1, 0, 0, 0, 0},
                    {"9/7 @ nvJPEG rate", 0, 0, nvj_bpp, 0, 0},
                    {"9/7 @ 1 bpp", 0, 0, 1.0f, 0, 0},
                    {"DCT q75", 0, 1, 0, 75, 0}};
    printf(
        "\n| mode | bpp | PSNR dB | same bytes | cpu enc ms | cuda enc pageable ms | cuda enc "
        "pinned ms "
        "| cuda enc device ms | cuda first call ms | cuda enc stages (xform / entropy / container) "
        "ms "
        "| cpu dec ms | cuda dec to new host ms | cuda dec to pinned ms | cuda dec to device ms |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    const char *only = getenv("WC_BENCH_ONLY"); /* the modes whose name holds it, e.g. "9/7 @ n" */
    for (mode &m : modes) {
        if (only && !strstr(m.name, only)) continue;
        wc_params p;
        std::vector<uint8_t> fcpu_bpp;
        double cpu_bpp_ms = 0;
        if (m.bpp > 0) { /* find the step once (rate control), then fix it */
            set_params(m, WC_BACKEND_CPU, &p);
            void *f = NULL;
            size_t n = 0;
            wc_ctx *c = wc_ctx_create();
            const double t0 = now_ms();
            if (wc_encode_alloc(c, &p, &img, &f, &n) != WC_OK) return 1;
            cpu_bpp_ms = now_ms() - t0;
            fcpu_bpp.assign((uint8_t *)f, (uint8_t *)f + n);
            wc_info info;
            wc_inspect(c, f, n, &info);
            m.step = info.base_step;
            wc_free(f);
            wc_ctx_free(c);
        }
        result r = {};
        std::vector<uint8_t> fcpu, fgpu;
        wc_ctx *cc = wc_ctx_create(), *gc = wc_ctx_create();
        set_params(m, WC_BACKEND_CPU, &p);
        double cpu = time_encode(cc, &p, &img, fcpu, std::max(3, g_reps / 3), NULL);
        set_params(m, WC_BACKEND_CUDA, &p);
        r.enc_first = time_encode(gc, &p, &img, fgpu, 1, NULL);
        wc_times st;
        r.enc_pageable = time_encode(gc, &p, &img, fgpu, g_reps, &st);
        r.enc_pinned = time_encode(gc, &p, &pimg, fgpu, g_reps, NULL);
        r.identical = fcpu == fgpu;
        wc_params pd = p;
        pd.memory = WC_MEMORY_DEVICE;
        std::vector<uint8_t> fdev;
        const double enc_dev = time_encode(gc, &pd, &dimg, fdev, g_reps, NULL);
        r.identical = r.identical && fdev == fgpu;
        if (m.bpp > 0) { /* the rate search itself, each probe on the device */
            wc_params pb = p;
            pb.step = 0;
            pb.bpp = m.bpp;
            std::vector<uint8_t> fb;
            const double bpp_ms = time_encode(gc, &pb, &pimg, fb, std::max(3, g_reps / 2), NULL);
            printf("  --bpp %.3f on the device (pinned): %.1f ms against %.1f ms at the step it "
                   "finds (%.1fx); same bytes as the CPU's --bpp (%.0f ms): %s\n",
                   m.bpp, bpp_ms, r.enc_pinned, bpp_ms / r.enc_pinned, cpu_bpp_ms,
                   fb == fcpu_bpp ? "yes" : "NO");
            bpp_variants(gc, &pb, &pimg, fcpu_bpp, r.enc_pinned, std::max(5, g_reps / 2));
        }
        if (getenv("WC_BENCH_TRACE")) { /* the device stages of one more encode, on stderr */
            setenv("WC_CUDA_TIMES", "1", 1);
            wc_times x;
            const double ms = time_encode(gc, &p, &pimg, fgpu, 1, &x);
            unsetenv("WC_CUDA_TIMES");
            fprintf(stderr,
                    "  %s encode pinned: wall %.3f ms; wc_times transform %.3f, entropy %.3f, "
                    "container %.3f ms\n",
                    m.name, ms, 1e3 * x.transform, 1e3 * x.entropy, 1e3 * x.container);
            trace_variants(gc, &p, &pimg, fgpu, m.name);
        }
        wc_image dec = {};
        double cdec = time_decode(cc, WC_BACKEND_CPU, fgpu, std::max(3, g_reps / 3), &dec);
        image_metrics met;
        image_compare(&img, &dec, &met);
        /* The CPU's pixels, for the decoder variants below. */
        const std::vector<uint8_t> want((uint8_t *)dec.pixels, (uint8_t *)dec.pixels + bytes);
        wc_image_free(&dec);
        double gdec = time_decode(gc, WC_BACKEND_CUDA, fgpu, std::max(3, g_reps / 3), &dec);
        wc_image_free(&dec);
        const double gdec_pinned = time_decode_into(gc, WC_MEMORY_HOST, fgpu, img, pinned_out);
        const double gdec_dev = time_decode_into(gc, WC_MEMORY_DEVICE, fgpu, img, dout);
        dec_ab(gc, fgpu, img, pinned_out, dout, want);
        if (const char *vs = getenv("WC_BENCH_DEC_VARIANTS")) {
            /* Decoder variants side by side in this process, e.g.
             * "k:4,kzf:2": each names every switch (the backend's
             * defaults apply only where WC_BENCH_DEC_VARIANTS is unset).
             * A name ending in e: every CRC checked before the backend
             * starts (WC_DECODE_EAGER_CRC), as before k3; a z: planes
             * cleared first, runs write nothing (WC_CUDA_DEC_ZEROED); an
             * o: entropy-0 blocks longest payload first
             * (WC_CUDA_DEC_ORDER=1), an f: longest and shortest in turn
             * (=2), a c: one (component, class) an SM (=3), a g: thread
             * blocks of one class, longest first (=4), none of them:
             * layout order; an h: 16-bit fast entries (WC_CUDA_DEC_TAB=1),
             * an s: those of the thread block's class in shared memory
             * (=2), neither: bc_dectab's; an l: decode_lean's step
             * (WC_CUDA_DEC_LEAN=1), else decode_stream's (=0); a y:
             * decode_lean's rows above capped where
             * used, not where loaded (WC_CUDA_DEC_LAZY=1, else =0); the
             * number after the colon:
             * threads a thread block of the entropy-0 kernel
             * (WC_CUDA_DEC_LANES; the tiles kernel ignores it). So k:4
             * is the decoder before PERF_NOTES k4. */
            std::string list(vs);
            for (size_t a = 0; a < list.size();) {
                size_t b = list.find(',', a);
                if (b == std::string::npos) b = list.size();
                const std::string v = list.substr(a, b - a);
                a = b + 1;
                const size_t colon = v.find(':');
                if (colon == std::string::npos) continue;
                if (v[colon - 1] == 'e')
                    setenv("WC_DECODE_EAGER_CRC", "1", 1);
                else
                    unsetenv("WC_DECODE_EAGER_CRC");
                const std::string name = v.substr(0, colon);
                setenv("WC_CUDA_DEC_ZEROED", name.find('z') != std::string::npos ? "1" : "0", 1);
                setenv("WC_CUDA_DEC_ORDER",
                       name.find('o') != std::string::npos   ? "1"
                       : name.find('f') != std::string::npos ? "2"
                       : name.find('c') != std::string::npos ? "3"
                       : name.find('g') != std::string::npos ? "4"
                                                             : "0",
                       1);
                setenv("WC_CUDA_DEC_LEAN", name.find('l') != std::string::npos ? "1" : "0", 1);
                setenv("WC_CUDA_DEC_LAZY", name.find('y') != std::string::npos ? "1" : "0", 1);
                setenv("WC_CUDA_DEC_TAB",
                       name.find('s') != std::string::npos   ? "2"
                       : name.find('h') != std::string::npos ? "1"
                                                             : "0",
                       1);
                setenv("WC_CUDA_DEC_LANES", v.c_str() + colon + 1, 1);
                const double vp = time_decode_into(gc, WC_MEMORY_HOST, fgpu, img, pinned_out);
                const bool same = memcmp(pinned_out, want.data(), bytes) == 0;
                const double vd = time_decode_into(gc, WC_MEMORY_DEVICE, fgpu, img, dout);
                printf("  decoder %s: to pinned %.2f ms, to device %.2f ms, same pixels as the "
                       "CPU: %s\n",
                       v.c_str(), vp, vd, same ? "yes" : "NO");
                fflush(stdout);
                if (getenv("WC_BENCH_TRACE")) { /* the variant's device stages, on stderr */
                    fprintf(stderr, "  %s decoder %s to device, traced:\n", m.name, v.c_str());
                    setenv("WC_CUDA_TIMES", "1", 1);
                    time_decode_into(gc, WC_MEMORY_DEVICE, fgpu, img, dout, 3);
                    unsetenv("WC_CUDA_TIMES");
                }
            }
            unsetenv("WC_CUDA_DEC_LANES");
            unsetenv("WC_CUDA_DEC_ZEROED");
            unsetenv("WC_CUDA_DEC_ORDER");
            unsetenv("WC_CUDA_DEC_TAB");
            unsetenv("WC_CUDA_DEC_LEAN");
            unsetenv("WC_CUDA_DEC_LAZY");
            unsetenv("WC_DECODE_EAGER_CRC");
        }
        if (getenv("WC_BENCH_TRACE")) {
            setenv("WC_CUDA_TIMES", "1", 1);
            /* 3 runs, 3 trace lines */
            const double ms = time_decode_into(gc, WC_MEMORY_HOST, fgpu, img, pinned_out, 3);
            unsetenv("WC_CUDA_TIMES");
            wc_times x;
            wc_ctx_times(gc, &x);
            fprintf(stderr,
                    "  %s decode to pinned: wall %.3f ms; last call's wc_times container "
                    "(parse, CRCs) %.3f, entropy %.3f, transform %.3f ms\n",
                    m.name, ms, 1e3 * x.container, 1e3 * x.entropy, 1e3 * x.transform);
        }
        printf("| %s | %.3f | %.2f | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f / %.1f / %.1f | "
               "%.1f | %.1f | %.1f | %.1f |\n",
               m.name, 8.0 * fgpu.size() / ((double)W * H), met.psnr_rgb,
               r.identical ? "yes" : "NO", cpu, r.enc_pageable, r.enc_pinned, enc_dev, r.enc_first,
               st.transform * 1e3, st.entropy * 1e3, st.container * 1e3, cdec, gdec, gdec_pinned,
               gdec_dev);
        fflush(stdout);
        printf("  (%s)\n", wc_ctx_note(gc));
        wc_ctx_free(cc);
        wc_ctx_free(gc);
    }
    if (!no_batch) batch(argv[1]);
    cudaFreeHost(pinned);
    cudaFreeHost(pinned_out);
    cudaFree(dpx);
    cudaFree(dout);
    wc_image_free(&img);
    return 0;
}
