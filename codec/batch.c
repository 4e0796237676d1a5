/*
 * batch.c -- wc_encode_batch and wc_decode_batch: many images, one set of
 * parameters, coded on several host threads at once, each with a context
 * of its own (kept in the caller's context between calls, so a second
 * batch pays no set-up). On the CUDA backend every worker has its own
 * stream and buffers, so one image's host work (planning, table builds,
 * the container) and its device work overlap with the others', and the
 * small kernels of many images run side by side on the device. Each image
 * is coded exactly as a single call codes it: the bytes are those of
 * wc_encode_alloc and wc_decode whatever the number of workers. A batch of
 * more images than workers tells the backend that shapes repeat
 * (wc_chain.repeats): the CUDA backend then runs each shape's device chain
 * as a CUDA graph kept in the worker (cuda/encode_graph.cu).
 */
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "parallel.h"

/* Workers beyond the caller's context; each codes one image at a time. */
static wc_status ensure_workers(wc_ctx *ctx, int want)
{
    if (ctx->nworkers >= want) return WC_OK;
    wc_ctx **w = wc_realloc(ctx->workers, (size_t)want * sizeof *w);
    WC_RETURN_IF(!w, &ctx->err, WC_ERR_NOMEM, "out of memory (batch workers)");
    ctx->workers = w;
    for (; ctx->nworkers < want; ctx->nworkers++) {
        w[ctx->nworkers] = ctx->nworkers == 0 ? ctx : wc_ctx_create();
        WC_RETURN_IF(!w[ctx->nworkers], &ctx->err, WC_ERR_NOMEM, "out of memory (batch worker)");
    }
    return WC_OK;
}

void ctx_free_workers(wc_ctx *ctx)
{
    for (int i = 1; i < ctx->nworkers; i++) wc_ctx_free(ctx->workers[i]);
    wc_free(ctx->workers);
    ctx->workers = NULL;
    ctx->nworkers = 0;
}

/* What one worker saw: its first failure (items reach a worker in
 * increasing order, so that is its lowest failing index). */
typedef struct batch_worker {
    size_t failed; /* SIZE_MAX: none */
    wc_status status;
    char msg[sizeof(((wc_err *)0)->msg)];
} batch_worker;

typedef struct batch_job {
    wc_ctx *ctx;
    wc_params p; /* the caller's, with each worker's share of the threads */
    const wc_image *imgs;
    void **outs;
    size_t *sizes;
    const void *const *srcs;
    const size_t *src_sizes;
    wc_image *dec;
    int into;
    batch_worker *w;
} batch_job;

static void record(batch_job *b, int worker, size_t i, wc_status s)
{
    batch_worker *w = &b->w[worker];
    if (s == WC_OK || i >= w->failed) return;
    w->failed = i;
    w->status = s;
    snprintf(w->msg, sizeof w->msg, "%s", wc_ctx_error(b->ctx->workers[worker]));
}

static void encode_item(void *arg, size_t i, int worker)
{
    batch_job *b = arg;
    if (i > b->w[worker].failed) return; /* dropped anyway */
    wc_ctx *ctx = b->ctx->workers[worker];
    record(b, worker, i, wc_encode_alloc(ctx, &b->p, &b->imgs[i], &b->outs[i], &b->sizes[i]));
}

static wc_status decode_one(wc_ctx *ctx, const wc_params *p, const void *src, size_t size,
                            wc_image *out, int into)
{
    return into ? wc_decode_into(ctx, p, src, size, out) : wc_decode(ctx, p, src, size, out);
}

static void decode_item(void *arg, size_t i, int worker)
{
    batch_job *b = arg;
    if (i > b->w[worker].failed) return;
    wc_ctx *ctx = b->ctx->workers[worker];
    record(b, worker, i, decode_one(ctx, &b->p, b->srcs[i], b->src_sizes[i], &b->dec[i], b->into));
}

/* Sets up the job: workers, their thread shares, failure records (*w,
 * freed by the caller). */
static wc_status batch_begin(wc_ctx *ctx, const wc_params *p, size_t n, batch_job *b,
                             batch_worker **wp, int *workers)
{
    memset(b, 0, sizeof *b);
    b->ctx = ctx;
    if (p)
        b->p = *p;
    else
        wc_params_init(&b->p);
    const int all = wc_thread_count(b->p.threads);
    int k = (size_t)all < n ? all : (int)n;
    if (k < 1) k = 1;
    WC_FORWARD_IF_ERROR(ensure_workers(ctx, k));
    batch_worker *w = wc_malloc_array((size_t)k, sizeof *w);
    WC_RETURN_IF(!w, &ctx->err, WC_ERR_NOMEM, "out of memory (batch workers)");
    *wp = w;
    /* Images side by side take the threads; an image alone keeps them. */
    b->p.threads = all / k > 1 ? all / k : 1;
    for (int i = 0; i < k; i++) {
        w[i].failed = SIZE_MAX;
        w[i].status = WC_OK;
        w[i].msg[0] = '\0';
    }
    b->w = w;
    *workers = k;
    return WC_OK;
}

/* The lowest failing index over the workers, its status and message. */
static wc_status batch_end(wc_ctx *ctx, const batch_worker *w, int k, size_t *first)
{
    const batch_worker *f = NULL;
    for (int i = 0; i < k; i++)
        if (w[i].failed != SIZE_MAX && (!f || w[i].failed < f->failed)) f = &w[i];
    if (!f) return WC_OK;
    *first = f->failed;
    /* The worker's message, cut to fit after the index. */
    char head[32];
    const int hn = snprintf(head, sizeof head, "image %zu: ", f->failed);
    const size_t room = sizeof ctx->err.msg - (size_t)hn - 1, len = strlen(f->msg);
    memcpy(ctx->err.msg, head, (size_t)hn);
    memcpy(ctx->err.msg + hn, f->msg, len < room ? len : room);
    ctx->err.msg[(size_t)hn + (len < room ? len : room)] = '\0';
    return f->status;
}

wc_status wc_encode_batch(wc_ctx *ctx, const wc_params *p, const wc_image *imgs, size_t n,
                          void **outs, size_t *sizes, size_t *failed)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    WC_RETURN_IF(n && (!imgs || !outs || !sizes), &ctx->err, WC_ERR_ARG, "no batch arrays");
    WC_RETURN_IF(!p, &ctx->err, WC_ERR_ARG, "no parameters");
    for (size_t i = 0; i < n; i++) outs[i] = NULL;
    if (n == 0) return WC_OK;
    batch_job b;
    batch_worker *w = NULL;
    int k = 0;
    WC_FORWARD_IF_ERROR(batch_begin(ctx, p, n, &b, &w, &k));
    b.imgs = imgs;
    b.outs = outs;
    b.sizes = sizes;
    /* The images' loop starts its k-1 threads once for the batch, so that
     * ctx's pooled threads stay free for worker 0 (ctx itself),
     * whose encodes make them current; each other worker has its own. */
    wc_thread_pool *was = wc_thread_pool_use(NULL);
    /* Each worker's encodes tell the backend that more images follow
     * (wc_chain.repeats: on CUDA, a graph of the chain kept per shape). */
    for (int i = 0; i < k; i++) ctx->workers[i]->in_batch = n > (size_t)k;
    wc_parallel_for(k, n, encode_item, &b);
    for (int i = 0; i < k; i++) ctx->workers[i]->in_batch = 0;
    wc_thread_pool_use(was);
    size_t first = n;
    wc_status s = batch_end(ctx, w, k, &first);
    wc_free(w);
    if (s != WC_OK) {
        for (size_t i = first; i < n; i++) { /* the documented result: none from there on */
            wc_free(outs[i]);
            outs[i] = NULL;
        }
        if (failed) *failed = first;
    }
    return s;
}

wc_status wc_decode_batch(wc_ctx *ctx, const wc_params *p, const void *const *srcs,
                          const size_t *sizes, size_t n, wc_image *outs, size_t *failed)
{
    if (!ctx) return WC_ERR_ARG;
    ctx_begin(ctx);
    WC_RETURN_IF(n && (!srcs || !sizes || !outs), &ctx->err, WC_ERR_ARG, "no batch arrays");
    if (n == 0) return WC_OK;
    batch_job b;
    batch_worker *w = NULL;
    int k = 0;
    WC_FORWARD_IF_ERROR(batch_begin(ctx, p, n, &b, &w, &k));
    b.srcs = srcs;
    b.src_sizes = sizes;
    b.dec = outs;
    b.into = p && p->memory == WC_MEMORY_DEVICE;
    if (!b.into)
        for (size_t i = 0; i < n; i++) outs[i].pixels = NULL;
    wc_thread_pool *was = wc_thread_pool_use(NULL); /* as in wc_encode_batch */
    wc_parallel_for(k, n, decode_item, &b);
    wc_thread_pool_use(was);
    size_t first = n;
    wc_status s = batch_end(ctx, w, k, &first);
    wc_free(w);
    if (s != WC_OK) {
        if (!b.into)
            for (size_t i = first; i < n; i++) wc_image_free(&outs[i]);
        if (failed) *failed = first;
    }
    return s;
}
