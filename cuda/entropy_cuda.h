/*
 * entropy_cuda.h -- the CUDA backend's block coder: entropy/block_coder.c's
 * model (contexts, zero runs, magnitude classes, MED prediction) run on
 * the device, a warp per code block (entropy 2: tile by tile,
 * block_tiles.h), in two passes around the host's table build:
 *
 *   wcg_bc_count: every block's symbols into per-(component, class,
 *                 table) histograms (64-bit counters);
 *   wcg_bc_emit:  every block coded with the encoder tables into its own
 *                 slot (bc_bound bytes), its size into sizes[];
 *   wcg_bc_pack:  an exclusive scan of the sizes, then each block's bytes
 *                 moved to their place in one contiguous payload
 *                 (entropy 2: the tiles' pieces joined bit by bit behind
 *                 their lengths).
 *
 * The bytes are bc_encode's: tests/gpu/test_cuda_chain.c compares every
 * file with the CPU backend's. C++ (CUDA) only; all pointers are device
 * pointers.
 */
#ifndef WC_ENTROPY_CUDA_H
#define WC_ENTROPY_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "wcodec_types.h"

#define WCG_NCLASS 9
#define WCG_NTAB 25
#define WCG_NSYM 67
#define WCG_HIST (WCG_NCLASS * WCG_NTAB * WCG_NSYM) /* counters per component */

/* A code block as the kernels see it. */
typedef struct wcg_cblk {
    unsigned long long base; /* element offset of its top-left in its plane */
    unsigned long long slot; /* byte offset of its output slot (multiple of 4) */
    uint32_t stride;         /* plane width */
    uint32_t cap;            /* slot bytes */
    uint16_t w, h;
    uint8_t predict, orient, cls, comp; /* orient: 0 iso, 1 vert, 2 horz */
} wcg_cblk;

/* Encoder table of one context: the layout of entropy/huffman.h's huf_enc. */
typedef struct wcg_huf {
    uint16_t code[128];
    uint8_t bits[128];
} wcg_huf;

typedef struct wcg_bc_job {
    const wcg_cblk *blocks;
    uint32_t nblocks;
    /* Or NULL: emit counts each component's finished blocks here (a word
     * a component), each block's bytes and size visible on the device
     * before its count, so that another stream waiting on a count
     * (cuStreamWaitValue32) packs and sends that component down while
     * the launch goes on (chain_cuda.cu, device_code_split). */
    uint32_t *done;
    uint32_t first[4], count[4]; /* each component's blocks */
    uint32_t components;
    const int32_t *plane[4]; /* quantized coefficients, band layout */
    uint32_t run_max;
    uint32_t tiled; /* entropy 2: each block as tiles (block_tiles.h) */
    /* Each component's token plane (a byte a coefficient, the planes'
     * layout), or all NULL: count writes each position's symbol kind and
     * context there and emit codes from them without walking the
     * contexts again; NULL: emit walks as count does (WC_CUDA_EMIT=walk). */
    uint8_t *tok[4];
    /* Or NULL: count keeps each block's own histogram here too (entropy 0,
     * the warp-histogram count only: wcg_bc_count_keeps_blocks), at
     * WCG_BLOCK_HIST_WORDS words a block in layout order, so that
     * wcg_bc_sizes gives the blocks' coded sizes without emitting them (a
     * rate-control probe's). */
    uint32_t *block_hist;
    /* 1: block_hist packed (its non-zero words behind a mask of them,
     * bc_kernels.cu's flush_warp_hist); 0: every word as it is (the
     * version before, WC_CUDA_PROBE_HIST=0). */
    uint32_t hist_packed;
    /* 1: count and emit walk every block a row a step (the walk before
     * two-row steps, WC_CUDA_WIDE_ROWS=0, for comparison in one binary);
     * 0: blocks exactly 64 or 32 wide two or four rows a step. */
    uint32_t one_row;
} wcg_bc_job;

/* A block's histogram: its class's WCG_NTAB x WCG_NSYM counters, 16 bits
 * each, counter i in the low half of word i and counter i + words in the
 * high half of word i (bc_kernels.cu's WarpHist), those words as they are
 * or packed behind a mask of the non-zero ones (hist_packed): room for
 * the words and the mask. */
#define WCG_BLOCK_HIST_WORDS \
    ((WCG_NTAB * WCG_NSYM + 1) / 2 + ((WCG_NTAB * WCG_NSYM + 1) / 2 + 31) / 32)

/* hist: components x WCG_HIST counters, zeroed by the caller. */
cudaError_t wcg_bc_count(const wcg_bc_job *job, unsigned long long *hist, cudaStream_t st);
/* tabs: components x WCG_NCLASS x WCG_NTAB tables; slots: each block's
 * slot; sizes: nblocks + 1 entries, the last a flag (zeroed by the caller)
 * that becomes non-zero if a block did not fit its slot. */
cudaError_t wcg_bc_emit(const wcg_bc_job *job, const wcg_huf *tabs, uint8_t *slots, uint32_t *sizes,
                        cudaStream_t st);
/* Whether wcg_bc_count fills job->block_hist (WC_CUDA_COUNT's warp
 * histograms, the default; not "loop" or "shared"). */
int wcg_bc_count_keeps_blocks(void);
/* Every block's coded size from count's block_hist and the tables: the
 * sizes[] and overflow flag wcg_bc_emit would give (each symbol's code
 * length, extra bits and sign; bytes rounded up), entropy 0 only. totals
 * (or NULL): six counters the caller zeroed, to which it adds each
 * component's bytes (0-3), the LEB128 bytes of every block's size (the
 * WIDX entries, 4) and the overflow flag (5). */
cudaError_t wcg_bc_sizes(const wcg_bc_job *job, const wcg_huf *tabs, uint32_t *sizes,
                         unsigned long long *totals, cudaStream_t st);
/* offsets (nblocks + 1 entries: the last is the total) and the payload. */
cudaError_t wcg_bc_pack(const wcg_bc_job *job, const uint8_t *slots, const uint32_t *sizes,
                        unsigned long long *offsets, uint8_t *payload, cudaStream_t st);
/* A DCT/LOT plane from block layout (each 8x8 block in place) to the band
 * layout the coder reads (stage/layout.c's layout_blocks_to_bands). */
cudaError_t wcg_blocks_to_bands(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph,
                                cudaStream_t st);

/* ---- decoding ---------------------------------------------------------- */

/* Why a block failed (status[4 * i]; then the row, column and a detail). */
enum {
    WCG_DEC_OK = 0,
    WCG_DEC_NO_TABLE, /* detail: the context */
    WCG_DEC_RANGE,    /* detail: the magnitude */
    WCG_DEC_NO_RUN_TABLE,
    WCG_DEC_LONG_RUN, /* detail: the run */
    WCG_DEC_NO_TERM_TABLE,
    WCG_DEC_TRUNCATED,
    WCG_DEC_SPARE,      /* detail: unused bytes */
    WCG_DEC_TERM_RANGE, /* detail: the magnitude less one */
    /* entropy 2 (block_tiles.h); a tile's failure has tile + 1 in bits 8.. */
    WCG_DEC_SUB_EARLY,     /* detail: the sub-stream's bits */
    WCG_DEC_SUB_SPARE,     /* detail: unused bits */
    WCG_DEC_TILE_WIDTH,    /* detail: the width */
    WCG_DEC_TILE_HEAD,     /* column: the block's bytes; detail: the header's bits */
    WCG_DEC_TILE_SHORTEST, /* row: the width; detail: the width that does */
    WCG_DEC_TILE_PAST,     /* row: the tile; column: the block's bytes; detail: its bits */
    WCG_DEC_ARITH          /* entropy 3: ac_decode's "inconsistent" (ac_kernels.cu) */
};
#define BC_NCLASS_ALL WCG_NCLASS

typedef struct wcg_dec_job {
    const wcg_cblk *blocks; /* slot: the payload's offset in data; cap: its size */
    uint32_t nblocks;
    const uint8_t *data;
    const void *tabs;  /* bc_dectab [component * WCG_NCLASS + class] */
    int32_t *plane[4]; /* band layout */
    uint32_t run_max;
    uint32_t *status; /* 4 per block, zeroed by the caller */
    uint32_t tiled;   /* entropy 2: blocks of tiles (block_tiles.h) */
    /* Entropy 2: the tiles in the layout's largest block (0: 32), and
     * the lanes a warp that decode a tile each (a power of two; 0: 32),
     * a block's tiles spread over as many warps as that takes. */
    uint32_t tiles_max;
    uint32_t tile_lanes;
    /* Entropy 0: thread t decodes block order[t] (NULL: block t; an entry
     * of nblocks or more: none) for t below norder (0: nblocks), in
     * thread blocks of `lanes` threads (0: 2). */
    const uint32_t *order;
    uint32_t norder;
    uint32_t lanes;
    /* The planes are zero already (the caller cleared them): a run of
     * zeros moves the position without writing. */
    uint32_t zeroed;
    /* Entropy 0's fast look-ups (PERF_NOTES k8): 0 from bc_dectab.fast
     * (32-bit entries); 1 from fast16 (wcg_dec_fast16's 16-bit entries);
     * 2 from fast16, the thread block's (component, class) copied into
     * shared memory first (its other classes, if any, from fast16). */
    uint32_t tab_mode;
    const uint16_t *fast16; /* [component * WCG_NCLASS + class][WCG_FAST16] */
    /* decode_stream's step instead of decode_lean's (both kernels; for
     * comparisons, PERF_NOTES k9). */
    uint32_t stream_step;
    /* Entropy 0, decode_lean's step: the rows above as loaded, capped
     * where the next step uses them (PERF_NOTES p3). */
    uint32_t lazy_above;
} wcg_dec_job;

/* 16-bit fast entries of a class: BC_NTAB tables of BC_FAST_SIZE. */
#define WCG_FAST16 (25u * 256u)
/* fast16 (ntab x WCG_FAST16 entries) from the uploaded bc_dectab tabs:
 * each bc_dectab.fast entry as code length (bits 0-3) | raw bits nb
 * (4-8) | BC_FAST_OK (9) | m (10-12), the class's smallest magnitude
 * being m << nb (every class below 2^22 is 0..7 exactly or 4..7 or 1
 * times a power of two); an entry that does not fit is 0, the long way. */
cudaError_t wcg_dec_fast16(const void *tabs, uint32_t ntab, uint16_t *fast16, cudaStream_t st);

/* Decodes every block into its plane (entropy 0: one thread a block;
 * entropy 2: a warp a block, a lane a tile), with decode_lean's step
 * unless job->stream_step. The caller (chain_cuda.cu, strip_decode.cu)
 * makes every choice; this file reads no environment. */
cudaError_t wcg_bc_decode(const wcg_dec_job *job, cudaStream_t st);
/* The CPU decoder's words for a block's status (what follows "component
 * c, subband s, block b: "), and its status code. */
wc_status wcg_dec_message(const uint32_t *status, char *what, size_t cap);
/* The inverse of wcg_blocks_to_bands. */
cudaError_t wcg_bands_to_blocks(const int32_t *src, int32_t *dst, uint32_t pw, uint32_t ph,
                                cudaStream_t st);

/* ---- entropy 3: arithmetic coding (ac_kernels.cu) ----------------------- */

/* A thread a block, entropy/ac_block.c's coder and decoder; at most this
 * many threads, each with its own scratch in one buffer of
 * wcg_ac_work_bytes(nblocks). */
#define WCG_AC_THREADS 8192u
size_t wcg_ac_work_bytes(uint32_t nblocks);
/* Every block into its slot (cap bytes; a block that does not fit sets
 * the flag sizes[nblocks], as wcg_bc_emit does); then wcg_bc_pack. */
cudaError_t wcg_ac_emit(const wcg_bc_job *job, uint8_t *slots, uint32_t *sizes, void *work,
                        cudaStream_t st);
/* Every block of job (tabs unused) into its plane; a block the CPU
 * refuses gets WCG_DEC_ARITH. */
cudaError_t wcg_ac_decode(const wcg_dec_job *job, void *work, cudaStream_t st);

#endif /* WC_ENTROPY_CUDA_H */
