/*
 * bench_gpu.cu -- wcodec_gpu_bench: how fast the CUDA backend's kernels
 * are, beside what the GPU's memory can do.
 *
 *   wcodec_gpu_bench [--sizes 2048,4096,...] [--bits 8|16] [--reps N] [--csv FILE] [--full]
 *
 * For each size (square), 8- and 16-bit single-component input, 5 levels,
 * 5/3 and 9/7: the forward transform alone (samples already on the device
 * -> level shift + every level -> raw coefficients, int32 for 5/3 and float
 * for 9/7) and the inverse alone (int32 coefficients on the device ->
 * dequantize + every level -> rounded, clamped samples), timed with CUDA
 * events after a warm-up, median of --reps runs (default 25). Beside them,
 * a device-to-device cudaMemcpy of the coefficient plane measured in the
 * same run, and a "floor" row: a streaming kernel that only reads the
 * samples once and writes one int32 per sample, the traffic no forward
 * transform with int32 coefficients can go under. Effective GB/s counts the bytes a transform cannot avoid:
 * samples once plus coefficients once. Small sizes rotate through several
 * buffer sets so that the L2 cache does not flatter them.
 *
 * The 8x8 DCT and LOT (rows "dct", "lot") are timed the same way, one
 * kernel per direction: forward from the samples to int32 coefficients
 * quantized with steps of 1 (the codec always quantizes block transforms),
 * inverse from int32 coefficients back to samples.
 *
 * --full also times the whole backend call host to host (pageable memory,
 * as the codec calls it) with its upload, kernels and download split out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <type_traits>

extern "C" {
#include "backend.h"
}

#include "blk8_cuda.h"
#include "dwt_cuda.h"

namespace
{

#define CHECK(call)                                                                                \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Pseudo-random smooth-plus-noise samples, made on the device. */
__global__ void fill_samples(void *px, size_t n, uint32_t bytes, uint32_t seed, uint32_t width)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        const uint32_t x = (uint32_t)(i % width), y = (uint32_t)(i / width);
        const uint32_t smooth = (x * 3 + y * 5) & 0xffff;
        const uint32_t v = (smooth + (h & 0x3ff)) & (bytes == 1 ? 0xff : 0xffff);
        if (bytes == 1)
            ((uint8_t *)px)[i] = (uint8_t)v;
        else
            ((uint16_t *)px)[i] = (uint16_t)v;
    }
}

/* The least any forward transform of this backend must move: every
 * sample read once, one int32 coefficient written for each. A streaming
 * kernel with nothing else to do: each lane converts 4 samples a step
 * (one 4- or 8-byte load, one 16-byte evict-first store), so that a
 * warp's loads and stores are each one contiguous run; 4 steps unrolled
 * keep 4 loads in flight per lane. */
template <class S> __global__ void floor_kernel(const S *px, int32_t *out, size_t n, int32_t shift)
{
    using L4 = typename std::conditional<sizeof(S) == 1, uint32_t, uint2>::type;
    constexpr int U = 4;
    const size_t lanes = (size_t)gridDim.x * blockDim.x, groups = n / 4;
    for (size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x; q < groups; q += U * lanes) {
        L4 raw[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (q + u * lanes < groups) raw[u] = __ldcs((const L4 *)(px + 4 * (q + u * lanes)));
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (q + u * lanes >= groups) break;
            S v[4];
            memcpy(v, &raw[u], sizeof v);
            __stcs((int4 *)(out + 4 * (q + u * lanes)),
                   make_int4(v[0] - shift, v[1] - shift, v[2] - shift, v[3] - shift));
        }
    }
}

int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

float median(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

struct set {
    void *px, *coef;
};

struct result {
    unsigned n, bits, wavelet;
    const char *what;
    float ms, gpix, gbs, copy_gbs;
    const char *tx = nullptr; /* block transform rows: "dct" or "lot" */
};

/* A row: ms for px samples that moved io bytes. */
result row_of(unsigned n, unsigned bits, unsigned wavelet, const char *what, float ms, double px,
              double io, float copy_gbs, const char *tx = nullptr)
{
    return {n,        bits, wavelet, what, ms, (float)(px / (ms * 1e6)), (float)(io / (ms * 1e6)),
            copy_gbs, tx};
}

/* The transform column: the wavelet, or the block transform's name. */
const char *tx_label(const result &r)
{
    if (r.tx) return r.tx;
    switch (r.wavelet) {
    case 53: return "53";
    case 97: return "97";
    case 153: return "53m"; /* the Monolithic scheme (dwt_mono_level.cuh) */
    case 197: return "97m";
    case 203: return "53e"; /* the Explosive scheme (same file) */
    default: return "97e";
    }
}

/* Times fn(set index) with events: warm-up, then the median of reps. */
template <class F> float time_ms(cudaStream_t st, int sets, int reps, F fn)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) fn(i % sets);
    CHECK(cudaStreamSynchronize(st));
    float *t = (float *)malloc(sizeof(float) * (size_t)reps);
    for (int r = 0; r < reps; ++r) {
        CHECK(cudaEventRecord(a, st));
        fn(r % sets);
        CHECK(cudaEventRecord(b, st));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&t[r], a, b));
    }
    const float m = median(t, reps);
    free(t);
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return m;
}

double now_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

float steps_one[WC_MAX_STEPS];

void bench_size(unsigned n, unsigned only_bits, int reps, cudaStream_t st, result *out, int *nout)
{
    const size_t px = (size_t)n * n;
    const size_t ll = wcg_work_elems(n, n);
    const size_t set_bytes = px * 6;
    int sets = (int)((400u << 20) / set_bytes);
    sets = sets < 1 ? 1 : (sets > 8 ? 8 : sets);
    set s[8];
    void *work, *copy_dst;
    for (int i = 0; i < sets; ++i) {
        CHECK(cudaMalloc(&s[i].px, px * 2));
        /* Block transforms pad to whole 8x8 blocks. */
        CHECK(cudaMalloc(&s[i].coef, (size_t)((n + 7) & ~7u) * ((n + 7) & ~7u) * 4));
    }
    CHECK(cudaMalloc(&work, 2 * ll * 4));
    CHECK(cudaMalloc(&copy_dst, px * 4));

    /* The copy every transform is measured against: a plane of coefficients,
     * read once and written once. */
    const float copy_ms = time_ms(st, sets, reps, [&](int i) {
        CHECK(cudaMemcpyAsync(copy_dst, s[i].coef, px * 4, cudaMemcpyDeviceToDevice, st));
    });
    const float copy_gbs = (float)(2.0 * px * 4 / (copy_ms * 1e6));

    for (unsigned bits = 8; bits <= 16; bits += 8) {
        if (only_bits && bits != only_bits) continue;
        const uint32_t bytes = bits / 8;
        for (int i = 0; i < sets; ++i) {
            fill_samples<<<1024, 256, 0, st>>>(s[i].px, px, bytes, 1234u + (uint32_t)i, n);
            CHECK(cudaGetLastError());
        }
        {
            const int32_t shift = 1 << (bits - 1);
            /* One pass of 16 samples a lane covers the image (a remainder of
             * up to 3 samples is left out). */
            const unsigned floor_blocks = (unsigned)((px + 16 * 256 - 1) / (16 * 256));
            const float fl = time_ms(st, sets, reps, [&](int i) {
                if (bytes == 1)
                    floor_kernel<<<floor_blocks, 256, 0, st>>>((const uint8_t *)s[i].px,
                                                               (int32_t *)s[i].coef, px, shift);
                else
                    floor_kernel<<<floor_blocks, 256, 0, st>>>((const uint16_t *)s[i].px,
                                                               (int32_t *)s[i].coef, px, shift);
                CHECK(cudaGetLastError());
            });
            const double io = (double)px * bytes + (double)px * 4;
            out[(*nout)++] = row_of(n, bits, 0, "floor", fl, px, io, copy_gbs, "-");
        }
        /* Separable 5/3 and 9/7, then the same in the Monolithic and the
         * Explosive schemes. */
        static const int wavelets[] = {53, 97, 153, 197, 203, 207};
        for (int wav : wavelets) {
            wcg_component_job j = {};
            j.width = j.height = n;
            j.levels = 5;
            j.wavelet = wav;
            j.samples.pitch = n;
            j.samples.comps = 1;
            j.samples.bytes = bytes;
            j.samples.shift = 1 << (bits - 1);
            j.samples.maxval = (int32_t)((1u << bits) - 1);
            j.work[0] = work;
            j.work[1] = (char *)work + ll * 4;
            j.steps = steps_one;
            j.recon = 0.0f;
            const double io = (double)px * bytes + (double)px * 4;

            j.quantize = 0;
            const auto time_forward = [&]() {
                return time_ms(st, sets, reps, [&](int i) {
                    wcg_component_job k = j;
                    k.samples.px = s[i].px;
                    k.coef = s[i].coef;
                    CHECK(wcg_forward_component(&k, st));
                });
            };
            const float fwd = time_forward();
            out[(*nout)++] = row_of(n, bits, (unsigned)wav, "forward", fwd, px, io, copy_gbs);
            if (wcg_ll16(&j)) {
                /* The same with the LL planes forced back to int32. */
                setenv("WCG_LL32", "1", 1);
                const float f32 = time_forward();
                unsetenv("WCG_LL32");
                out[(*nout)++] =
                    row_of(n, bits, (unsigned)wav, "forward", f32, px, io, copy_gbs, "53-ll32");
            }

            /* The inverse starts from quantized (step 1) coefficients. */
            j.quantize = 1;
            for (int i = 0; i < sets; ++i) {
                wcg_component_job k = j;
                k.samples.px = s[i].px;
                k.coef = s[i].coef;
                CHECK(wcg_forward_component(&k, st));
            }
            const float inv = time_ms(st, sets, reps, [&](int i) {
                wcg_component_job k = j;
                k.samples.px = s[i].px;
                k.coef = s[i].coef;
                CHECK(wcg_inverse_component(&k, st));
            });
            out[(*nout)++] = row_of(n, bits, (unsigned)wav, "inverse", inv, px, io, copy_gbs);
        }
        for (int tx = WC_TRANSFORM_DCT; tx <= WC_TRANSFORM_LOT; ++tx) {
            const char *name = tx == WC_TRANSFORM_DCT ? "dct" : "lot";
            wcg_blk8_job b = {};
            b.width = b.height = n;
            b.pw = b.ph = (n + 7) & ~7u;
            b.samples.pitch = n;
            b.samples.comps = 1;
            b.samples.bytes = bytes;
            b.samples.shift = 1 << (bits - 1);
            b.samples.maxval = (int32_t)((1u << bits) - 1);
            b.quantize = 1;
            for (int k = 0; k < 64; ++k) b.steps[k] = 1.0f;
            const double io = (double)px * bytes + (double)b.pw * b.ph * 4;
            auto run = [&](int i, int inverse) {
                wcg_blk8_job k = b;
                k.samples.px = s[i].px;
                k.coef = s[i].coef;
                if (tx == WC_TRANSFORM_DCT)
                    CHECK(inverse ? wcg_dct8_inverse(&k, st) : wcg_dct8_forward(&k, st));
                else
                    CHECK(inverse ? wcg_lot8_inverse(&k, st) : wcg_lot8_forward(&k, st));
            };
            const float fwd = time_ms(st, sets, reps, [&](int i) { run(i, 0); });
            out[(*nout)++] = row_of(n, bits, 0, "forward", fwd, px, io, copy_gbs, name);
            /* The inverse reads the coefficients the forward left. */
            const float inv = time_ms(st, sets, reps, [&](int i) { run(i, 1); });
            out[(*nout)++] = row_of(n, bits, 0, "inverse", inv, px, io, copy_gbs, name);
        }
    }
    for (int i = 0; i < sets; ++i) {
        CHECK(cudaFree(s[i].px));
        CHECK(cudaFree(s[i].coef));
    }
    CHECK(cudaFree(work));
    CHECK(cudaFree(copy_dst));
}

/* The whole backend call, host to host, and its three parts. */
void bench_full(unsigned n, unsigned comps, unsigned bits, int reps, cudaStream_t st)
{
    const wc_backend_ops *ops = wc_backend_cuda();
    void *self = NULL;
    wc_err err = {{0}};
    if (ops->create(&self, &err) != WC_OK) {
        fprintf(stderr, "create: %s\n", err.msg);
        return;
    }
    const size_t px = (size_t)n * n, bytes = bits / 8;
    wc_image img = {n, n, comps, bits, (size_t)n * comps * bytes, malloc(px * comps * bytes)};
    for (size_t i = 0; i < px * comps * bytes; ++i)
        ((uint8_t *)img.pixels)[i] = (uint8_t)(i * 7 + (i >> 9) + (i * i >> 17));
    wc_stage_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.width = plan.height = n;
    plan.components = comps;
    plan.bit_depth = bits;
    plan.colour = comps >= 3 ? WC_COLOUR_ICT : WC_COLOUR_NONE;
    plan.levels = 5;
    plan.quantize = 1;
    plan.recon = 0.375f;
    for (unsigned c = 0; c < comps; ++c) {
        plan.transform[c] = WC_TRANSFORM_DWT;
        plan.wavelet[c] = 97;
        for (int b = 0; b < WC_MAX_STEPS; ++b) plan.steps[c][b] = 4.0f;
    }
    wc_coeffs co;
    memset(&co, 0, sizeof co);
    co.components = comps;
    for (unsigned c = 0; c < comps; ++c) {
        co.width[c] = co.height[c] = n;
        co.q[c] = (int32_t *)malloc(px * 4);
        memset(co.q[c], 0, px * 4);
    }
    float *tf = (float *)malloc(sizeof(float) * (size_t)reps);
    float *ti = (float *)malloc(sizeof(float) * (size_t)reps);
    for (int r = -2; r < reps; ++r) {
        double t0 = now_ms();
        if (ops->forward(self, &plan, &img, &co, &err) != WC_OK) {
            fprintf(stderr, "forward: %s\n", err.msg);
            break;
        }
        double t1 = now_ms();
        if (ops->inverse(self, &plan, &co, &img, &err) != WC_OK) {
            fprintf(stderr, "inverse: %s\n", err.msg);
            break;
        }
        double t2 = now_ms();
        if (r >= 0) {
            tf[r] = (float)(t1 - t0);
            ti[r] = (float)(t2 - t1);
        }
    }
    /* The parts, with events: pageable upload, kernels, pageable download. */
    void *dpx, *dco;
    CHECK(cudaMalloc(&dpx, px * comps * bytes));
    CHECK(cudaMalloc(&dco, px * 4 * comps));
    const float up = time_ms(st, 1, reps, [&](int) {
        CHECK(cudaMemcpyAsync(dpx, img.pixels, px * comps * bytes, cudaMemcpyHostToDevice, st));
    });
    const float down = time_ms(st, 1, reps, [&](int) {
        for (unsigned c = 0; c < comps; ++c)
            CHECK(cudaMemcpyAsync(co.q[c], (char *)dco + c * px * 4, px * 4, cudaMemcpyDeviceToHost,
                                  st));
    });
    printf("full backend %ux%u %u-bit %u comp 9/7 q: forward %.2f ms, inverse %.2f ms host to host "
           "(upload %.2f ms, coefficient download %.2f ms, pageable)\n",
           n, n, bits, comps, median(tf, reps), median(ti, reps), up, down);
    CHECK(cudaFree(dpx));
    CHECK(cudaFree(dco));
    free(tf);
    free(ti);
    for (unsigned c = 0; c < comps; ++c) free(co.q[c]);
    free(img.pixels);
    ops->destroy(self);
}

} /* namespace */

int main(int argc, char **argv)
{
    unsigned sizes[16] = {2048, 4096, 8192, 16384};
    int nsizes = 4, reps = 25, full = 0;
    unsigned only_bits = 0;
    const char *csv = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = 0;
            for (char *p = strtok(argv[++i], ","); p && nsizes < 16; p = strtok(NULL, ","))
                sizes[nsizes++] = (unsigned)strtoul(p, NULL, 10);
        } else if (!strcmp(argv[i], "--bits") && i + 1 < argc) {
            only_bits = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) reps = 1;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv = argv[++i];
        } else if (!strcmp(argv[i], "--full")) {
            full = 1;
        } else {
            fprintf(stderr,
                    "usage: %s [--sizes a,b,...] [--bits 8|16] [--reps N] [--csv FILE] [--full]\n",
                    argv[0]);
            return 2;
        }
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no CUDA device: nothing to measure\n");
        return 0;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20);
    for (int b = 0; b < WC_MAX_STEPS; ++b) steps_one[b] = 1.0f;
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    static result res[16 * 32];
    int nres = 0;
    for (int i = 0; i < nsizes; ++i) bench_size(sizes[i], only_bits, reps, st, res, &nres);
    if (full) {
        bench_full(8192, 1, 16, 5, st);
        bench_full(4096, 3, 8, 5, st);
    }

    FILE *f = csv ? fopen(csv, "w") : NULL;
    if (f) fprintf(f, "size,bits,wavelet,direction,ms,gpix_s,gb_s,copy_gb_s\n");
    printf("\n%6s %4s %4s %-8s %9s %8s %8s %8s\n", "size", "bits", "wav", "dir", "ms", "GPix/s",
           "GB/s", "copyGB/s");
    for (int i = 0; i < nres; ++i) {
        const result &r = res[i];
        printf("%6u %4u %4s %-8s %9.4f %8.2f %8.1f %8.1f\n", r.n, r.bits, tx_label(r), r.what, r.ms,
               r.gpix, r.gbs, r.copy_gbs);
        if (f)
            fprintf(f, "%u,%u,%s,%s,%.5f,%.3f,%.1f,%.1f\n", r.n, r.bits, tx_label(r), r.what, r.ms,
                    r.gpix, r.gbs, r.copy_gbs);
    }
    if (f) fclose(f);
    CHECK(cudaStreamDestroy(st));
    return 0;
}
