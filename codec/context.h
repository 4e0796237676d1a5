/* context.h -- what a wc_ctx holds (internal). */
#ifndef WC_CONTEXT_H
#define WC_CONTEXT_H

#include "backend.h"
#include "parallel.h"
#include "pool.h"
#include "wcodec.h"

/* Seconds spent in each stage of the last encode or decode. */
typedef struct wc_stage_times {
    double transform; /* upload + colour + transform + quantize + download */
    double entropy;   /* modelling and coding of code blocks */
    double container; /* chunks, index, CRCs */
    double rate;      /* rate control search (encode with a bpp target) */
} wc_stage_times;

struct wc_ctx {
    wc_err err;
    char note[320];                /* what --verbose reports */
    const wc_backend_ops *backend; /* the one in use, created lazily */
    void *backend_self;
    wc_backend_kind backend_asked;
    wc_stage_times times;
    wc_pool pool; /* large work buffers kept between calls */
    /* Worker threads kept between loops (NULL when memory was short:
     * loops then start their own), current on the calling thread for
     * the length of an encode or decode call (ctx_enter). */
    wc_thread_pool *threads;
    int device;           /* the call's wc_params.device (-1: current) */
    int backend_device;   /* the one the CUDA backend was made for */
    size_t region_blocks; /* code blocks the last wc_decode_region decoded */
    /* Batch calls (batch.c): workers[0] is this context, the others have
     * their own backend (on CUDA: stream and buffers) and pool. */
    struct wc_ctx **workers;
    int nworkers;
    /* Set while this context codes a batch's images (wc_chain.repeats). */
    int in_batch;
};

/* Makes ctx's worker threads the ones wc_parallel_for uses on the calling
 * thread (ctx NULL: none) and returns the ones to put back with
 * ctx_leave when the call returns. */
wc_thread_pool *ctx_enter(wc_ctx *ctx);
void ctx_leave(wc_thread_pool *was);
/* Clears the error of a new call. */
void ctx_begin(wc_ctx *ctx);
/* Makes sure the backend for `kind` is ready (honours WC_BACKEND=cpu);
 * AUTO falls back to the CPU when no device is usable. */
wc_status ctx_backend(wc_ctx *ctx, wc_backend_kind kind);
/* Adds to the --verbose note where the code blocks were coded ("device",
 * "host", "host (deflate)"). */
void ctx_note_chain(wc_ctx *ctx, const char *where);
/* Monotonic clock in seconds. */
double ctx_now(void);
/* Takes the call's device (p may be NULL: the thread's current one) for
 * ctx_backend. */
void ctx_use_device(wc_ctx *ctx, const wc_params *p);

/* Code blocks the last wc_decode_region on ctx entropy-decoded (tests). */
size_t ctx_region_blocks(const wc_ctx *ctx);

/* The memory limit's estimate for wc_decode_region of r (0 on a bad file
 * or region), for bench_region. */
uint64_t dec_region_memory(wc_ctx *ctx, const void *src, size_t size, const wc_region *r,
                           int threads);

/* Frees the batch workers (batch.c). */
void ctx_free_workers(wc_ctx *ctx);

/* wc_inspect into a whole wc_info of this build (decoder.c); api.c copies
 * as much of it as the program's struct holds. */
wc_status dec_inspect(wc_ctx *ctx, const void *src, size_t size, wc_info *info);

#endif
