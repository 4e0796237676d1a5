/*
 * encode_graph.cu -- a batch worker's device chain as CUDA graphs kept per
 * shape (encode_graph.h). The chain's calls are captured from the worker's
 * stream once (cudaStreamBeginCapture, thread-local mode: other workers'
 * calls go on meanwhile), instantiated, and relaunched for every later
 * image whose key is the same: same plan, same coder job, same buffers.
 * What changes from image to image lives in buffers the graph reads when
 * it runs (the pinned stage's samples, the pinned block descriptors) or
 * writes (the pinned sizes and code lengths), so a launch needs no update.
 */
#include "encode_graph.h"

#include <string.h>

namespace wcgb
{

/* Shapes a worker keeps graphs of: a batch of photographs has two
 * (landscape and portrait); more shapes than this replace the least
 * recently used. A key is captured the second time it is seen (of the
 * last kSeen keys), so that a batch of all different shapes pays no
 * capture for a graph it would launch once. */
const int kGraphs = 4, kSeen = 16;

struct enc_graph {
    graph_key key;
    cudaGraphExec_t exec; /* NULL: an empty slot */
    unsigned long long used;
};

struct graph_cache {
    enc_graph g[kGraphs];
    graph_key seen[kSeen];
    int nseen, next_seen;
};

void graph_key_make(const cuda_ctx *c, const wc_stage_plan *p, const wcg_bc_job *job,
                    uint64_t nblocks, size_t slots, int entropy, int flags, bool staged,
                    const void *pack_to, graph_key *k)
{
    memset(k, 0, sizeof *k);
    k->plan = *p;
    k->plan.threads = 0;
    k->plan.pool = NULL;
    k->plan.stream = NULL;
    k->plan.max_device_memory = 0;
    k->job = *job;
    k->nblocks = nblocks;
    k->slots = slots;
    k->entropy = entropy;
    k->flags = flags;
    k->staged = staged;
    k->pack_to = pack_to;
    const void *b[] = {c->px,       c->coef,   c->work,    c->bands, c->blocks, c->slots,
                       c->payload,  c->sizes,  c->offsets, c->hist,  c->tabs,   c->lens,
                       c->h_blocks, c->h_lens, c->h_sizes, c->stage};
    static_assert(sizeof b == sizeof k->buf, "every buffer of the chain in the key");
    memcpy(k->buf, b, sizeof b);
}

void graph_cache_free(cuda_ctx *c)
{
    graph_cache *gc = (graph_cache *)c->graphs;
    for (int i = 0; gc && i < kGraphs; i++)
        if (gc->g[i].exec) cudaGraphExecDestroy(gc->g[i].exec);
    wc_free(gc);
    c->graphs = NULL;
}

/* Whether k is among the last kSeen keys; remembers it if not. */
static bool seen_before(graph_cache *gc, const graph_key *k)
{
    for (int i = 0; i < gc->nseen; i++)
        if (memcmp(&gc->seen[i], k, sizeof *k) == 0) return true;
    gc->seen[gc->next_seen] = *k;
    gc->next_seen = (gc->next_seen + 1) % kSeen;
    if (gc->nseen < kSeen) gc->nseen++;
    return false;
}

/* The capture of queue(arg) into *exec; cudaSuccess or the runtime's
 * reason (queue's own failure: *qs). */
static cudaError_t capture(cuda_ctx *c, graph_queue_fn queue, void *arg, wc_status *qs, wc_err *err,
                           cudaGraphExec_t *exec)
{
    *exec = NULL;
    cudaError_t e = cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) return e;
    c->capturing = 1;
    *qs = queue(arg, err);
    c->capturing = 0;
    cudaGraph_t graph = NULL;
    e = cudaStreamEndCapture(c->stream, &graph);
    if (e == cudaSuccess && *qs == WC_OK) e = cudaGraphInstantiate(exec, graph, 0);
    if (graph) cudaGraphDestroy(graph);
    return e;
}

wc_status graph_launch(cuda_ctx *c, const graph_key *k, graph_queue_fn queue, void *arg,
                       wc_err *err)
{
    if (c->graphs_off) return queue(arg, err);
    if (!c->graphs) {
        c->graphs = wc_calloc(1, sizeof(graph_cache));
        WC_RETURN_IF(!c->graphs, err, WC_ERR_NOMEM, "out of memory (CUDA graphs)");
    }
    graph_cache *gc = (graph_cache *)c->graphs;
    enc_graph *g = gc->g, *hit = NULL, *old = &g[0];
    for (int i = 0; i < kGraphs && !hit; i++) {
        if (g[i].exec && memcmp(&g[i].key, k, sizeof *k) == 0) hit = &g[i];
        if (!g[i].exec || (old->exec && g[i].used < old->used)) old = &g[i];
    }
    if (!hit && !seen_before(gc, k)) return queue(arg, err); /* the first of its key */
    if (!hit) {
        if (old->exec) cudaGraphExecDestroy(old->exec);
        old->exec = NULL;
        wc_status qs = WC_OK;
        cudaGraphExec_t exec = NULL;
        const cudaError_t e = capture(c, queue, arg, &qs, err, &exec);
        if (qs != WC_OK) { /* queue's own error, already in err */
            (void)cudaGetLastError();
            if (exec) cudaGraphExecDestroy(exec);
            return qs;
        }
        if (e != cudaSuccess) { /* not capturable here: the plain stream from now on */
            (void)cudaGetLastError();
            c->graphs_off = 1;
            return queue(arg, err);
        }
        old->key = *k;
        old->exec = exec;
        c->graphs_made++;
        hit = old;
    }
    hit->used = ++c->graph_clock;
    CUDA_TRY(err, cudaGraphLaunch(hit->exec, c->stream), "launching the chain's graph");
    return WC_OK;
}

} /* namespace wcgb */
