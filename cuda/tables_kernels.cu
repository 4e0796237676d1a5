/*
 * tables_kernels.cu -- tables_cuda.h: the twin of stage/entropy_stage.c's
 * build_table on the device, a thread a table (675 for an RGB image: the
 * host took 1.3-2.5 ms with its threads' start-up, a round trip and two
 * waits; PERF_NOTES t1). The steps are entropy/huffman_build.h's, the
 * very code huffman.c runs on the host, so the codes and therefore the
 * files are the CPU's (tests/gpu/test_cuda_chain.c compares the bytes).
 */
extern "C" {
#include "huffman.h"
}
#include "huffman_build.h"

#include "tables_cuda.h"

namespace
{

static_assert(WCG_NSYM <= HUF_MAX_SYMS, "the coder's alphabet fits huffman.c's");
static_assert(sizeof(wcg_huf) == sizeof(huf_enc), "wcg_huf mirrors huf_enc");

/* build_table: table i from its counts (clamped to 32 bits as there). */
__global__ void tables_kernel(const unsigned long long *hist, uint32_t ntab, wcg_huf *tabs,
                              uint8_t *lens)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ntab) return;
    const unsigned long long *n = hist + (size_t)i * WCG_NSYM;
    uint32_t f[WCG_NSYM];
    unsigned long long any = 0;
    for (unsigned s = 0; s < WCG_NSYM; s++) {
        f[s] = n[s] > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)n[s];
        any |= n[s];
    }
    uint8_t len[WCG_NSYM];
    huf_enc enc;
    if (any) {
        huf_lengths_build(f, WCG_NSYM, HUF_MAX_LEN, len);
        huf_codes_build(&enc, len, WCG_NSYM);
    } else {
        memset(len, 0, sizeof len);
        memset(&enc, 0, sizeof enc);
    }
    for (unsigned s = 0; s < WCG_NSYM; s++) lens[(size_t)i * WCG_NSYM + s] = len[s];
    memcpy(&tabs[i], &enc, sizeof enc);
}

} /* namespace */

cudaError_t wcg_build_tables(const unsigned long long *hist, uint32_t ntab, wcg_huf *tabs,
                             uint8_t *lens, cudaStream_t st)
{
    if (ntab == 0) return cudaSuccess;
    const unsigned threads = 8; /* 85 blocks for 675 tables: every SM a few */
    tables_kernel<<<(ntab + threads - 1) / threads, threads, 0, st>>>(hist, ntab, tabs, lens);
    return cudaGetLastError();
}
