/*
 * test_device_memory.cu -- the public API's device-memory forms on the
 * CUDA backend (a test program in cuda/, the one folder that may include
 * CUDA headers; tests/gpu/CMakeLists.txt registers it, label gpu):
 *
 *  - encoding samples that are in device memory (pitched rows, written by
 *    an asynchronous copy on the caller's stream just before the call)
 *    gives the bytes of encoding them from host memory;
 *  - wc_decode_into a pitched device buffer gives wc_decode's pixels;
 *  - wc_encode_batch / wc_decode_batch on the device give the single
 *    calls' bytes and pixels (mixed sizes, components, depths, every
 *    mode, any number of workers), and a damaged member is named;
 *  - wc_ctx_prepare changes no byte;
 *  - a bpp target searched on the device gives the CPU's file;
 *  - the device out of memory is WC_ERR_BACKEND, and the context recovers.
 * Exit 77 (ctest SKIP) where there is no CUDA device.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

extern "C" {
#include "wcodec.h"
}

namespace
{

int g_fail;
int g_palette_files; /* lossless cases that took the palette layout */

#define CHECK(cond, ...)                                    \
    do {                                                    \
        if (!(cond)) {                                      \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fprintf(stderr, "\n");                          \
            g_fail = 1;                                     \
            return;                                         \
        }                                                   \
    } while (0)

void make_image(uint32_t w, uint32_t h, uint32_t comps, uint32_t depth, unsigned seed,
                wc_image *img)
{
    img->width = w;
    img->height = h;
    img->components = comps;
    img->bit_depth = depth;
    img->stride = 0;
    img->pixels = NULL;
    if (wc_image_alloc(img) != WC_OK) abort();
    const uint32_t maxv = (1u << depth) - 1;
    unsigned r = seed;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w * comps; x++) {
            r = r * 1103515245u + 12345u;
            const uint32_t v = ((x * 3 + y * 5) % 200 * maxv / 256 + (r >> 28)) & maxv;
            const size_t i = (size_t)y * w * comps + x;
            if (depth > 8)
                ((uint16_t *)img->pixels)[i] = (uint16_t)v;
            else
                ((uint8_t *)img->pixels)[i] = (uint8_t)v;
        }
}

void one_case(wc_ctx *ctx, const wc_image *img, int lossless, wc_transform tf)
{
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CUDA;
    p.lossless = lossless;
    p.transform = tf;
    void *host_file = NULL;
    size_t host_size = 0;
    CHECK(wc_encode_alloc(ctx, &p, img, &host_file, &host_size) == WC_OK, "host encode: %s",
          wc_ctx_error(ctx));

    const size_t row = wc_image_row_bytes(img), pitch = row + 96;
    cudaStream_t st;
    CHECK(cudaStreamCreate(&st) == cudaSuccess, "stream");
    void *dev = NULL;
    CHECK(cudaMalloc(&dev, pitch * img->height) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMemsetAsync(dev, 0xA5, pitch * img->height, st) == cudaSuccess, "memset");
    /* Queued, not waited for: the encode must order itself after it. */
    CHECK(cudaMemcpy2DAsync(dev, pitch, img->pixels, row, row, img->height, cudaMemcpyHostToDevice,
                            st) == cudaSuccess,
          "upload");
    wc_image dimg = *img;
    dimg.pixels = dev;
    dimg.stride = pitch;
    p.memory = WC_MEMORY_DEVICE;
    p.stream = st;
    void *dev_file = NULL;
    size_t dev_size = 0;
    CHECK(wc_encode_alloc(ctx, &p, &dimg, &dev_file, &dev_size) == WC_OK, "device encode: %s",
          wc_ctx_error(ctx));
    CHECK(dev_size == host_size && memcmp(dev_file, host_file, host_size) == 0,
          "%ux%u x%u: the file from device memory differs (%zu vs %zu bytes)", img->width,
          img->height, img->components, dev_size, host_size);

    /* A palette file (format 2.0, colour 3) maps its indices on the host:
     * decoding it into device memory is refused, naming why. */
    wc_info info;
    CHECK(wc_inspect(ctx, host_file, host_size, &info) == WC_OK, "inspect");
    if (info.colour == 3) {
        CHECK(wc_decode_into(ctx, &p, host_file, host_size, &dimg) == WC_ERR_UNSUPPORTED &&
                  strstr(wc_ctx_error(ctx), "palette"),
              "a palette file decoded into device memory: %s", wc_ctx_error(ctx));
        p.memory = WC_MEMORY_HOST;
        wc_image back;
        CHECK(wc_decode(ctx, &p, host_file, host_size, &back) == WC_OK, "decode: %s",
              wc_ctx_error(ctx));
        CHECK(memcmp(back.pixels, img->pixels, row * img->height) == 0,
              "palette file: CUDA decode differs from the image");
        wc_image_free(&back);
        cudaFree(dev);
        cudaStreamDestroy(st);
        wc_free(host_file);
        wc_free(dev_file);
        g_palette_files++;
        return;
    }

    /* Decode into device memory, pitched, then compare with wc_decode. */
    wc_image ref;
    p.memory = WC_MEMORY_HOST;
    CHECK(wc_decode(ctx, &p, host_file, host_size, &ref) == WC_OK, "decode: %s", wc_ctx_error(ctx));
    CHECK(cudaMemsetAsync(dev, 0x5A, pitch * img->height, st) == cudaSuccess, "memset");
    p.memory = WC_MEMORY_DEVICE;
    CHECK(wc_decode_into(ctx, &p, host_file, host_size, &dimg) == WC_OK,
          "decode into device memory: %s", wc_ctx_error(ctx));
    std::vector<uint8_t> back(row * img->height);
    CHECK(cudaMemcpy2D(back.data(), row, dev, pitch, row, img->height, cudaMemcpyDeviceToHost) ==
              cudaSuccess,
          "download");
    CHECK(memcmp(back.data(), ref.pixels, back.size()) == 0,
          "pixels decoded into device memory differ");
    wc_image_free(&ref);
    cudaFree(dev);
    cudaStreamDestroy(st);
    wc_free(host_file);
    wc_free(dev_file);
}

/* Batches of mixed sizes, component counts and depths in every mode, on
 * 1, 3 and all host threads: each file is the CPU's single call's; then a
 * damaged member of a decode batch is named by its index, the images
 * before it are decoded and the rest have no pixels. */
void batch_modes_case(wc_ctx *ctx)
{
    const int n = 9;
    std::vector<wc_image> imgs(n);
    const uint32_t dims[n][2] = {{1, 1}, {1, 97},   {131, 1},  {64, 64},  {257, 129},
                                 {8, 9}, {700, 13}, {33, 517}, {128, 128}};
    for (int i = 0; i < n; i++)
        make_image(dims[i][0], dims[i][1], 1 + i % 4, i % 3 == 1 ? 12 : 8, 31 + i, &imgs[i]);
    const int modes[][2] = {{1, WC_TRANSFORM_DWT}, {0, WC_TRANSFORM_DWT}, {0, WC_TRANSFORM_DCT}};
    for (const auto &m : modes) {
        wc_params p;
        wc_params_init(&p);
        p.backend = WC_BACKEND_CUDA;
        p.lossless = m[0];
        p.transform = (wc_transform)m[1];
        std::vector<void *> ref(n);
        std::vector<size_t> ref_n(n);
        for (int i = 0; i < n; i++) {
            wc_params q = p;
            q.backend = WC_BACKEND_CPU;
            CHECK(wc_encode_alloc(ctx, &q, &imgs[i], &ref[i], &ref_n[i]) == WC_OK,
                  "cpu encode %d: %s", i, wc_ctx_error(ctx));
        }
        /* Under the sanitizers (WC_TEST_STRIDE set): all threads only. */
        const bool quick = getenv("WC_TEST_STRIDE") != NULL;
        for (int threads : {1, 3, 0}) {
            if (quick && threads) continue;
            p.threads = threads;
            std::vector<void *> outs(n);
            std::vector<size_t> sizes(n);
            size_t failed = 99;
            CHECK(wc_encode_batch(ctx, &p, imgs.data(), n, outs.data(), sizes.data(), &failed) ==
                      WC_OK,
                  "batch (mode %d/%d, %d threads): %s", m[0], m[1], threads, wc_ctx_error(ctx));
            for (int i = 0; i < n; i++) {
                CHECK(sizes[i] == ref_n[i] && memcmp(outs[i], ref[i], sizes[i]) == 0,
                      "batch image %d (mode %d/%d, %d threads) differs from the CPU's", i, m[0],
                      m[1], threads);
                wc_free(outs[i]);
            }
        }
        /* Image 4 damaged: its data chunk's CRC fails. */
        ((uint8_t *)ref[4])[ref_n[4] - 20] ^= 0x10;
        p.threads = 0;
        std::vector<wc_image> dec(n);
        size_t failed = 99;
        CHECK(wc_decode_batch(ctx, &p, (const void *const *)ref.data(), ref_n.data(), n, dec.data(),
                              &failed) != WC_OK,
              "a damaged member decoded");
        CHECK(failed == 4 && strncmp(wc_ctx_error(ctx), "image 4: ", 9) == 0,
              "damaged member: index %zu, message '%s'", failed, wc_ctx_error(ctx));
        for (int i = 0; i < n; i++) {
            if (i >= 4) {
                CHECK(dec[i].pixels == NULL, "image %d after the damaged one has pixels", i);
            } else {
                CHECK(memcmp(dec[i].pixels, imgs[i].pixels,
                             wc_image_row_bytes(&imgs[i]) * imgs[i].height) == 0 ||
                          !m[0],
                      "lossless batch decode %d differs", i);
                wc_image one;
                CHECK(wc_decode(ctx, &p, ref[i], ref_n[i], &one) == WC_OK, "decode %d", i);
                CHECK(memcmp(one.pixels, dec[i].pixels, wc_image_row_bytes(&one) * one.height) == 0,
                      "batch decode %d differs from the single call", i);
                wc_image_free(&one);
                wc_image_free(&dec[i]);
            }
        }
        for (int i = 0; i < n; i++) wc_free(ref[i]);
    }
    for (auto &im : imgs) wc_image_free(&im);
}

/* A bpp target on the device (each probe of the search coded there)
 * gives the CPU's file, in every lossy mode and for several targets. */
void bpp_case(wc_ctx *ctx)
{
    const uint32_t shapes[][4] = {{301, 217, 3, 8}, {64, 129, 2, 12}, {97, 33, 4, 16}};
    for (const auto &sh : shapes) {
        wc_image img;
        make_image(sh[0], sh[1], sh[2], sh[3], sh[0] * 3 + sh[1], &img);
        for (int tf : {WC_TRANSFORM_DWT, WC_TRANSFORM_DCT})
            for (float bpp : {0.5f, 2.0f, 6.0f}) {
                if (getenv("WC_TEST_STRIDE") && bpp != 2.0f) continue;  /* sanitizers: one */
                if (tf == WC_TRANSFORM_DCT && sh[2] % 2 == 0) continue; /* as one_case */
                wc_params p;
                wc_params_init(&p);
                p.lossless = 0;
                p.transform = (wc_transform)tf;
                p.bpp = bpp;
                p.backend = WC_BACKEND_CPU;
                void *a = NULL, *b = NULL;
                size_t an = 0, bn = 0;
                const wc_status sa = wc_encode_alloc(ctx, &p, &img, &a, &an);
                p.backend = WC_BACKEND_CUDA;
                const wc_status sb = wc_encode_alloc(ctx, &p, &img, &b, &bn);
                if (sa != WC_OK || sb != WC_OK) {
                    wc_free(a);
                    wc_free(b);
                }
                CHECK(sa == sb, "--bpp %g: cpu status %d, cuda %d (%s)", bpp, (int)sa, (int)sb,
                      wc_ctx_error(ctx));
                if (sa != WC_OK) continue; /* a target below what the image can reach */
                CHECK(an == bn && memcmp(a, b, an) == 0,
                      "--bpp %g on %ux%ux%u, transform %d: the device's file differs", bpp, sh[0],
                      sh[1], sh[2], tf);
                wc_free(a);
                wc_free(b);
            }
        wc_image_free(&img);
    }
}

/* wc_ctx_prepare, with and without a shape, changes no byte. */
void prepare_case(wc_ctx *ctx)
{
    wc_image img;
    make_image(1000, 700, 3, 8, 77, &img);
    for (int lossless = 0; lossless < 2; lossless++) {
        wc_params p;
        wc_params_init(&p);
        p.backend = WC_BACKEND_CUDA;
        p.lossless = lossless;
        void *a = NULL, *b = NULL;
        size_t an = 0, bn = 0;
        CHECK(wc_encode_alloc(ctx, &p, &img, &a, &an) == WC_OK, "encode: %s", wc_ctx_error(ctx));
        wc_ctx *fresh = wc_ctx_create();
        CHECK(wc_ctx_prepare(fresh, &p, NULL) == WC_OK, "prepare: %s", wc_ctx_error(fresh));
        CHECK(wc_ctx_prepare(fresh, &p, &img) == WC_OK, "prepare: %s", wc_ctx_error(fresh));
        CHECK(wc_encode_alloc(fresh, &p, &img, &b, &bn) == WC_OK, "encode: %s",
              wc_ctx_error(fresh));
        CHECK(an == bn && memcmp(a, b, an) == 0, "a prepared context codes other bytes");
        wc_image bad = img;
        bad.components = 9;
        CHECK(wc_ctx_prepare(fresh, &p, &bad) == WC_ERR_ARG, "prepare took 9 components");
        wc_ctx_free(fresh);
        wc_free(a);
        wc_free(b);
    }
    wc_image_free(&img);
}

/* The device out of memory: an encode whose buffers do not fit what is
 * left (the test holds the rest) is WC_ERR_BACKEND with CUDA's message,
 * and the same context codes again once memory is back. */
void oom_case(wc_ctx *ctx)
{
    wc_image img;
    make_image(2048, 2048, 3, 8, 5, &img); /* ~200 MB of device buffers */
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CUDA;
    wc_ctx *own = wc_ctx_create();
    void *a = NULL;
    size_t an = 0;
    CHECK(wc_ctx_prepare(own, &p, NULL) == WC_OK, "prepare: %s", wc_ctx_error(own));
    size_t free_b = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_b, &total) == cudaSuccess, "cudaMemGetInfo");
    void *hog = NULL;
    size_t take = free_b > ((size_t)64 << 20) ? free_b - ((size_t)64 << 20) : 0;
    while (take && cudaMalloc(&hog, take) != cudaSuccess) {
        (void)cudaGetLastError();
        take -= (size_t)256 << 20 < take ? (size_t)256 << 20 : take;
    }
    const wc_status s = wc_encode_alloc(own, &p, &img, &a, &an);
    const std::string msg = wc_ctx_error(own);
    if (hog) cudaFree(hog);
    CHECK(s == WC_ERR_BACKEND && a == NULL, "out of device memory: status %d, '%s'", (int)s,
          msg.c_str());
    CHECK(strstr(msg.c_str(), "memory") != NULL, "the message names no memory: '%s'", msg.c_str());
    printf("out of device memory: %s\n", msg.c_str());
    CHECK(wc_encode_alloc(own, &p, &img, &a, &an) == WC_OK, "after out of memory: %s",
          wc_ctx_error(own));
    void *b = NULL;
    size_t bn = 0;
    CHECK(wc_encode_alloc(ctx, &p, &img, &b, &bn) == WC_OK, "encode: %s", wc_ctx_error(ctx));
    CHECK(an == bn && memcmp(a, b, an) == 0, "bytes after out of memory differ");
    wc_free(a);
    wc_free(b);
    wc_ctx_free(own);
    wc_image_free(&img);
}

void batch_case(wc_ctx *ctx)
{
    const int n = 6;
    std::vector<wc_image> imgs(n);
    for (int i = 0; i < n; i++)
        make_image(40 + 17 * i, 30 + 11 * i, 1 + i % 4, i == 3 ? 16 : 8, 9 + i, &imgs[i]);
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CUDA;
    p.lossless = 0;
    std::vector<void *> outs(n);
    std::vector<size_t> sizes(n);
    size_t failed = 0;
    CHECK(wc_encode_batch(ctx, &p, imgs.data(), n, outs.data(), sizes.data(), &failed) == WC_OK,
          "batch: %s", wc_ctx_error(ctx));
    std::vector<wc_image> dec(n);
    CHECK(wc_decode_batch(ctx, &p, (const void *const *)outs.data(), sizes.data(), n, dec.data(),
                          &failed) == WC_OK,
          "decode batch: %s", wc_ctx_error(ctx));
    for (int i = 0; i < n; i++) {
        void *one = NULL;
        size_t sz = 0;
        wc_params q = p;
        q.backend = WC_BACKEND_CPU;
        CHECK(wc_encode_alloc(ctx, &q, &imgs[i], &one, &sz) == WC_OK, "cpu encode");
        CHECK(sz == sizes[i] && memcmp(one, outs[i], sz) == 0,
              "batch image %d differs from the CPU's", i);
        wc_image ref;
        CHECK(wc_decode(ctx, &q, one, sz, &ref) == WC_OK, "cpu decode");
        CHECK(memcmp(ref.pixels, dec[i].pixels, wc_image_row_bytes(&ref) * ref.height) == 0,
              "batch decode %d differs", i);
        wc_image_free(&ref);
        wc_image_free(&dec[i]);
        wc_free(one);
        wc_free(outs[i]);
        wc_image_free(&imgs[i]);
    }
}

} /* namespace */

int main()
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no CUDA device: skipping\n");
        return 77;
    }
    wc_ctx *ctx = wc_ctx_create();
    const uint32_t shapes[][4] = {{301, 217, 3, 8}, {1, 1, 1, 8}, {97, 3, 4, 16}, {64, 129, 2, 12}};
    for (const auto &s : shapes) {
        wc_image img;
        make_image(s[0], s[1], s[2], s[3], s[0] + s[1], &img);
        one_case(ctx, &img, 1, WC_TRANSFORM_DWT);
        one_case(ctx, &img, 0, WC_TRANSFORM_DWT);
        if (s[2] != 2 && s[2] != 4) one_case(ctx, &img, 0, WC_TRANSFORM_DCT);
        wc_image_free(&img);
    }
    /* Few colours (4 levels a component of 8 bits): the palette layout,
     * from device memory through the host copy the detection brings back,
     * the same file as from host memory. */
    {
        wc_image img;
        make_image(173, 91, 3, 8, 7, &img);
        for (size_t i = 0; i < wc_image_row_bytes(&img) * img.height; i++)
            ((uint8_t *)img.pixels)[i] &= 0xC0;
        one_case(ctx, &img, 1, WC_TRANSFORM_DWT);
        wc_image_free(&img);
        if (!g_fail && g_palette_files != 1) {
            fprintf(stderr, "the few-colour image did not take the palette layout\n");
            g_fail = 1;
        }
    }
    batch_case(ctx);
    batch_modes_case(ctx);
    prepare_case(ctx);
    bpp_case(ctx);
    /* It takes the whole device: a "large" case, which the sanitizer runs
     * (WC_TEST_SKIP='*large*') leave out. */
    if (!getenv("WC_TEST_SKIP")) oom_case(ctx);
    wc_ctx_free(ctx);
    printf(g_fail ? "FAILED\n" : "PASSED\n");
    return g_fail;
}
