/*
 * test_tables.cu -- the device's Huffman tables (tables_cuda.h) against
 * huffman.c's, table for table: code lengths and canonical codes from
 * hostile counts as well as typical ones (every count kind below), so
 * that the files of the CUDA backend stay the CPU's whatever the image.
 * Both device versions run (a warp a table, the default, and
 * WC_CUDA_TABLES=thread's thread a table through a second process run by
 * ctest). A plain program that tests/gpu/CMakeLists.txt registers (label
 * gpu); exit 77 (ctest SKIP) where there is no CUDA device.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

extern "C" {
#include "huffman.h"
}
#include "tables_cuda.h"

namespace
{

/* splitmix64: reproducible counts. */
uint64_t next(uint64_t &s)
{
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

enum kind {
    EMPTY,      /* no symbol: the unused tables of small images */
    ONE,        /* one symbol: a length of 1, no codes */
    TWO,        /* two symbols */
    GEOMETRIC,  /* small magnitudes frequent: most real tables */
    SPARSE,     /* a few random symbols, random counts */
    EQUAL,      /* every used symbol the same count: all ties */
    FEW_VALUES, /* counts from {1, 2, 3}: ties everywhere */
    FIBONACCI,  /* lengths past the limit: package-merge's cut matters */
    HUGE,       /* counts over 2^32 (clamped) and near it */
    ALL_ONES,   /* 67 symbols of count 1 */
    HIGH_ONLY,  /* only the top symbols */
    NKINDS
};

void fill(kind k, uint64_t &seed, unsigned long long *h)
{
    memset(h, 0, WCG_NSYM * sizeof *h);
    switch (k) {
    case EMPTY: break;
    case ONE: h[next(seed) % WCG_NSYM] = 1 + next(seed) % 1000000; break;
    case TWO: {
        const unsigned a = next(seed) % WCG_NSYM,
                       b = (a + 1 + next(seed) % (WCG_NSYM - 1)) % WCG_NSYM;
        h[a] = 1 + next(seed) % 1000;
        h[b] = 1 + next(seed) % 1000;
        break;
    }
    case GEOMETRIC: {
        double v = 1e6 * (1 + next(seed) % 100);
        const double r = 0.3 + (next(seed) % 60) / 100.0;
        for (unsigned s = 0; s < WCG_NSYM && v >= 1; s++, v *= r) h[s] = (unsigned long long)v;
        break;
    }
    case SPARSE:
        for (unsigned n = 1 + next(seed) % 12; n-- > 0;)
            h[next(seed) % WCG_NSYM] = 1 + next(seed) % (1u << (next(seed) % 31));
        break;
    case EQUAL: {
        const unsigned long long c = 1 + next(seed) % 5000;
        for (unsigned s = 0; s < WCG_NSYM; s++)
            if (next(seed) % 3) h[s] = c;
        break;
    }
    case FEW_VALUES:
        for (unsigned s = 0; s < WCG_NSYM; s++) h[s] = next(seed) % 4;
        break;
    case FIBONACCI: {
        unsigned long long a = 1, b = 1;
        const unsigned start = next(seed) % 20, n = 20 + next(seed) % 30;
        for (unsigned s = start; s < WCG_NSYM && s < start + n; s++) {
            h[s] = a;
            const unsigned long long c = a + b;
            a = b;
            b = c;
        }
        break;
    }
    case HUGE:
        for (unsigned s = 0; s < WCG_NSYM; s++) {
            const uint64_t r = next(seed) % 4;
            h[s] = r == 0   ? 0
                   : r == 1 ? 0xFFFFFFFFull - next(seed) % 3
                   : r == 2 ? (1ull << 33) + next(seed) % 99
                            : next(seed) % 100;
        }
        break;
    case ALL_ONES:
        for (unsigned s = 0; s < WCG_NSYM; s++) h[s] = 1;
        break;
    case HIGH_ONLY:
        for (unsigned s = WCG_NSYM - 1 - next(seed) % 8; s < WCG_NSYM; s++)
            h[s] = 1 + next(seed) % 50;
        break;
    case NKINDS: break;
    }
}

} /* namespace */

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("test_tables: no CUDA device, skipped\n");
        return 77;
    }
    const uint32_t ntab = 11 * 400 + 3; /* not a whole number of thread blocks */
    std::vector<unsigned long long> hist((size_t)ntab * WCG_NSYM);
    uint64_t seed = 12345;
    for (uint32_t i = 0; i < ntab; i++) fill((kind)(i % NKINDS), seed, &hist[(size_t)i * WCG_NSYM]);

    unsigned long long *dh = nullptr;
    wcg_huf *dt = nullptr;
    uint8_t *dl = nullptr;
    if (cudaMalloc(&dh, hist.size() * sizeof hist[0]) != cudaSuccess ||
        cudaMalloc(&dt, ntab * sizeof(wcg_huf)) != cudaSuccess ||
        cudaMalloc(&dl, (size_t)ntab * WCG_NSYM) != cudaSuccess) {
        fprintf(stderr, "test_tables: cudaMalloc failed\n");
        return 1;
    }
    /* Garbage first: every byte of the output must be written. */
    cudaMemset(dt, 0xA5, ntab * sizeof(wcg_huf));
    cudaMemset(dl, 0xA5, (size_t)ntab * WCG_NSYM);
    cudaMemcpy(dh, hist.data(), hist.size() * sizeof hist[0], cudaMemcpyHostToDevice);
    cudaError_t e = wcg_build_tables(dh, ntab, dt, dl, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "test_tables: %s\n", cudaGetErrorString(e));
        return 1;
    }
    std::vector<wcg_huf> tabs(ntab);
    std::vector<uint8_t> lens((size_t)ntab * WCG_NSYM);
    cudaMemcpy(tabs.data(), dt, ntab * sizeof(wcg_huf), cudaMemcpyDeviceToHost);
    cudaMemcpy(lens.data(), dl, lens.size(), cudaMemcpyDeviceToHost);

    int bad = 0, limited = 0;
    for (uint32_t i = 0; i < ntab && bad < 10; i++) {
        /* stage/entropy_stage.c's build_table on the host. */
        uint32_t f[WCG_NSYM];
        unsigned long long any = 0;
        for (unsigned s = 0; s < WCG_NSYM; s++) {
            const unsigned long long n = hist[(size_t)i * WCG_NSYM + s];
            f[s] = n > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)n;
            any |= n;
        }
        uint8_t len[WCG_NSYM] = {0};
        huf_enc enc;
        memset(&enc, 0, sizeof enc);
        if (any) {
            huf_build_lengths(f, WCG_NSYM, HUF_MAX_LEN, len);
            huf_enc_build(&enc, len, WCG_NSYM);
        }
        for (unsigned s = 0; s < WCG_NSYM; s++) limited += len[s] == HUF_MAX_LEN;
        if (memcmp(len, &lens[(size_t)i * WCG_NSYM], WCG_NSYM) != 0 ||
            memcmp(&enc, &tabs[i], sizeof enc) != 0) {
            fprintf(stderr, "test_tables: table %u (kind %u) differs from huffman.c's\n", i,
                    i % NKINDS);
            bad++;
        }
    }
    cudaFree(dh);
    cudaFree(dt);
    cudaFree(dl);
    /* The length limit must have been reached, or FIBONACCI tested less
     * than it claims. */
    if (limited == 0) {
        fprintf(stderr, "test_tables: no table reached the %d-bit limit\n", HUF_MAX_LEN);
        bad++;
    }
    const char *mode = getenv("WC_CUDA_TABLES");
    printf("test_tables (%s): %u tables, %d at the length limit: %s\n", mode ? mode : "warp", ntab,
           limited, bad ? "FAILED" : "same as huffman.c");
    return bad ? 1 : 0;
}
