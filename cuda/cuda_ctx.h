/*
 * cuda_ctx.h -- what the CUDA backend's two host files share: the context
 * (streams, device buffers, pinned staging, events) and the helpers of
 * backend_cuda.cu that chain_cuda.cu calls. C++ (CUDA) only, internal to
 * cuda/.
 */
#ifndef WC_CUDA_CTX_H
#define WC_CUDA_CTX_H

extern "C" {
#include "chain_host.h" /* backend.h, entropy_stage.h */
}

#include <cuda_runtime.h>

#include "entropy_cuda.h" /* wcg_dec_job */

namespace wcgb
{

struct cuda_ctx {
    int device;
    cudaStream_t stream;
    void *px; /* interleaved samples */
    size_t px_cap;
    void *coef; /* components x width x height coefficients (4 bytes) */
    size_t coef_cap;
    void *work; /* two LL-of-level-1 planes */
    size_t work_cap;
    void *planes; /* inverse: components 0..2 before the colour transform */
    size_t planes_cap;
    /* The block coder's (encode): */
    void *bands; /* DCT/LOT planes regrouped into frequency bands */
    size_t bands_cap;
    void *blocks; /* wcg_cblk per code block */
    size_t blocks_cap;
    void *slots; /* each block's coded bytes, bc_bound apart */
    size_t slots_cap;
    void *payload; /* the blocks' bytes end to end */
    size_t payload_cap;
    void *sizes; /* uint32 per block + the overflow flag */
    size_t sizes_cap;
    void *offsets; /* uint64 per block + the total */
    size_t offsets_cap;
    void *hist; /* uint64 symbol counts */
    size_t hist_cap;
    void *tabs; /* encoder tables */
    size_t tabs_cap;
    void *lens; /* encode: the tables' code lengths, for the file */
    size_t lens_cap;
    void *ac_work; /* entropy 3: each coding thread's scratch (ac_kernels.cu) */
    size_t ac_work_cap;
    void *block_hist; /* a size-only probe's per-block histograms (wcg_bc_job) */
    size_t block_hist_cap;
    /* Pinned host staging of the same, kept between calls. */
    void *h_blocks, *h_lens, *h_tabs, *h_sizes, *h_payload;
    size_t h_blocks_cap, h_lens_cap, h_tabs_cap, h_sizes_cap, h_payload_cap;
    /* The decode's block offsets and its order's sort scratch, kept: as
     * fresh allocations each call they were page faults, ~0.1 ms for
     * 24 K blocks. */
    void *h_dec_work;
    size_t h_dec_work_cap;
    cudaEvent_t ev[8]; /* stage boundaries of the device encode */
    int trace;         /* WC_CUDA_TIMES set: all of them, and a line on stderr */
    double host_t[8];  /* host clock at steps of a call, for the trace line */
    cudaEvent_t user;  /* recorded on the caller's stream (plan->stream) */
    /* Pageable samples pass through here in pieces (see stage_upload). */
    void *stage;
    size_t stage_cap;
    cudaEvent_t piece[8];
    int pieces;
    /* The encode's payload comes down in pieces (device_code), each
     * followed by an event, so that the container copies each piece as it
     * lands (es_output.data_wait); payload_ev[0] follows the CRCs. */
    cudaEvent_t payload_ev[1 + 16];
    int payload_events;     /* created so far */
    size_t payload_piece;   /* bytes a piece */
    size_t payload_base[4]; /* each component's offset in h_payload */
    /* 1: pieces a component (device_code_split): component k's piece q,
     * of comp_piece[k] bytes, is followed by payload_ev[1 + comp_first[k]
     * + q] */
    int payload_by_comp;
    int comp_first[4];
    size_t comp_piece[4];
    int events;
    /* The image whose samples px holds after an encode (NULL: none, or
     * px used since), so that a rate-control probe skips the upload. */
    const void *px_src;
    size_t px_stride;
    uint32_t px_shape[4];
    /* Samples up and down in strips of rows (backend_cuda.cu,
     * strips_up / strips_down): the copies' stream beside `stream`, and
     * an event a strip (and one for the join); made on first use. */
    cudaStream_t side;
    cudaEvent_t strip_ev[17];
    int strip_evs;
    /* A large encode's packs beside its emit (chain_cuda.cu,
     * device_code_split), and the emit's count of each component's
     * finished blocks (4 words, device memory); made on first use. */
    cudaStream_t tail;
    void *done;
    /* The last call was a size-only probe (wc_chain.size_only) whose
     * planes, tokens and tables are still on the device, for emit_last;
     * every call clears it (begin_call). */
    int sized;
    int emitted; /* and that probe emitted its blocks into the slots */
    /* The layout whose blocks c->blocks and h_blocks describe after the
     * last encode (desc_slots: describe_blocks' total), so that a probe
     * of the same samples and layout neither describes nor uploads them
     * again; NULL: unknown. */
    const void *desc_lay;
    size_t desc_n, desc_slots;
    double last_end; /* host clock at the end of the last encode (trace) */
    /* Batch encodes (wc_chain.repeats): the chain of each recent shape as
     * an instantiated CUDA graph (encode_graph.cu's enc_graph array, NULL
     * until the first); graphs_off: a capture failed, the plain stream
     * from then on; capturing: calls are being captured (no events). */
    void *graphs;
    int graphs_off, graphs_made, capturing;
    unsigned long long graph_clock;
    /* WC_CUDA_CLOCKS set: an encode's host clock at its start, its first
     * wait and after it; the sums over encodes, on stderr at destroy. */
    int clocks;
    double clk_t[3], clk_sum[4];
    unsigned long long clk_n;
};

#define CUDA_TRY(err, call, what)                                   \
    do {                                                            \
        const cudaError_t e_ = (call);                              \
        if (e_ != cudaSuccess) return cuda_fail((err), e_, (what)); \
    } while (0)

/* backend_cuda.cu: the context, plans, staging, the stage kernels' calls. */
wc_status cuda_fail(wc_err *err, cudaError_t e, const char *what);
wc_status grow(void **p, size_t *cap, size_t need, wc_err *err, const char *what);
wc_status grow_pinned(void **p, size_t *cap, size_t need, wc_err *err, const char *what);
double now_s();
wc_status begin_call(cuda_ctx *c, const wc_stage_plan *p, wc_err *err);
int is_block(const wc_stage_plan *p, uint32_t c);
uint32_t ceil8(uint32_t n);
size_t coef_elems(const wc_stage_plan *p);
/* co NULL: the whole-chain calls, which own their planes. */
wc_status check_plan(const wc_stage_plan *p, const wc_coeffs *co, wc_err *err);
wc_status ensure_buffers(cuda_ctx *c, const wc_stage_plan *p, int inverse, wc_err *err);
cudaError_t forward_component(cuda_ctx *c, const wc_stage_plan *p, uint32_t k);
/* The pinned stage for pageable samples or payloads of `bytes`. */
wc_status ensure_stage(cuda_ctx *c, size_t bytes, wc_err *err);
/* c->side and c->strip_ev[0..16], made on first use. */
wc_status ensure_strips(cuda_ctx *c, wc_err *err);
/* Rows y0 + i between host buffers of other strides (a pinned stage and
 * the caller's image, either way), a row an item of wc_parallel_for: the
 * whole-image staging and the strips' (strip_encode.cu, strip_decode.cu). */
struct row_copy {
    const uint8_t *src;
    uint8_t *dst;
    size_t sstride, dstride, row;
    size_t y0;
};
/* Out of the stage into the caller's rows: memcpy (a freshly allocated
 * image faults its pages in zeroed and cached, where streaming stores
 * measured slower: PERF_NOTES c1). */
void copy_row(void *arg, size_t i, int worker);
/* Into the pinned stage, which only the device reads: streaming stores
 * (wc_stream_copy). */
void stage_row(void *arg, size_t i, int worker);
/* Whether samples of this plan go up through the pinned stage. */
bool staged_upload(const wc_stage_plan *p, const void *pixels);
size_t host_row_bytes(const wc_stage_plan *p);
/* Rows on the device start 128-byte aligned; a sample is 1 or 2 bytes. */
size_t device_row_bytes(const wc_stage_plan *p);
size_t sample_bytes(const wc_stage_plan *p);
/* Whether the plan's colour transform applies (3 or more components). */
int colour_active(const wc_stage_plan *p);
/* The kernels' view of samples at px, rows device_row_bytes apart (the
 * context's c->px, or a strip's). */
wcg_samples samples_at(void *px, const wc_stage_plan *p);
wc_status upload_samples(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_err *err);
/* The samples of `in` up and every component's forward transform, in
 * row strips that overlap the upload with level 1 where strips_up allows,
 * else one copy and then the transforms. */
wc_status upload_forward(cuda_ctx *c, const wc_stage_plan *p, const wc_image *in, wc_err *err);
/* DWT work planes (each the LL of level 1) the whole-image path of this
 * plan allocates: 2, or components + 1 where its samples may go across
 * PCIe in strips (each component's level-1 LL kept meanwhile). */
size_t work_planes(const wc_stage_plan *p, int inverse);
/* Host work run beside upload_gather's copies: items 0..n-1 of fn (the
 * signature of wc_parallel_for's), on the same threads. */
struct gather_side {
    void (*fn)(void *arg, size_t i, int worker);
    void *arg;
    size_t n;
};
/* What runs as each piece's copies are issued (upload_gather):
 * fn(arg, k, err), on the calling thread, with c->stream made to wait for
 * piece k, so that its work on the device overlaps piece k + 1's staging
 * and copy. An error from fn stops the upload and is returned. */
struct gather_ready {
    wc_status (*fn)(void *arg, int k, wc_err *err);
    void *arg;
    /* false: fn starts nothing on the device that reads the payload before
     * its last call. Staged pieces then go up in one parallel loop (one
     * wake of the pool, not one a piece: 0.1-0.2 ms each, PERF_NOTES p1),
     * fn runs for every piece after it, and c->stream waits for the whole
     * payload before fn's last call. true: a loop a piece, so that piece
     * k's work on the device starts while k + 1 crosses. */
    bool by_piece;
};
/* The n host pieces end to end into dst (device), one after the other on
 * c->side, side's items beside piece 0's copies, ready's fn after each
 * piece (after an error c->side is synchronized: nothing still reads the
 * pinned stage). */
wc_status upload_gather(cuda_ctx *c, uint8_t *dst, const uint8_t *const *src, const size_t *size,
                        int n, int threads, const gather_side *side, const gather_ready *ready,
                        wc_err *err);
wc_status device_inverse(cuda_ctx *c, const wc_stage_plan *p, wc_image *out, wc_err *err);

/* chain_cuda.cu: the decoder's switches (WC_CUDA_DEC_*, for comparisons
 * in one process): the variable's integer where set and within lo..hi,
 * else `otherwise`. */
int dec_switch(const char *name, int otherwise, int lo, int hi);
/* chain_cuda.cu: the tiles kernel's geometry (wcg_dec_job.tiles_max,
 * .tile_lanes) for the file's code blocks; WC_CUDA_TILE_LANES sets the
 * lanes. */
void tile_geometry(const wcx_header *h, wcg_dec_job *job);
/* chain_cuda.cu: the whole chain (backend.h's encode and decode). */
wc_status cuda_encode(void *self, const wc_stage_plan *p, const wc_image *in, wc_chain *ch,
                      es_output *out, wc_err *err);
wc_status cuda_decode(void *self, const wc_stage_plan *p, wc_chain *ch, const es_input *in,
                      wc_image *out, wc_err *err);
/* backend.h's prepare: every buffer an encode of this plan will grow. */
wc_status cuda_prepare(void *self, const wc_stage_plan *p, const wc_chain *ch, wc_err *err);

} /* namespace wcgb */

#endif /* WC_CUDA_CTX_H */
