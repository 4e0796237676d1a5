/* api.c -- version, parameters, contexts and image buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"

#define WC_STR2(x) #x
#define WC_STR(x) WC_STR2(x)

unsigned wc_version_number(void) { return WC_VERSION_NUMBER; }

const char *wc_version_string(void)
{
    return WC_STR(WC_VERSION_MAJOR) "." WC_STR(WC_VERSION_MINOR) "." WC_STR(WC_VERSION_PATCH);
}

wc_status wc_params_init_abi(wc_params *p, unsigned abi, size_t size)
{
    if (p == NULL) return WC_ERR_ARG;
    if (abi != WC_ABI_VERSION || size != sizeof(wc_params)) {
        /* A program built against another layout: writing the defaults could
         * run past its struct. Only the leading abi field is cleared, so
         * that plan_check refuses these params later. */
        if (size >= sizeof p->abi) p->abi = 0;
        return WC_ERR_ABI;
    }
    memset(p, 0, sizeof *p);
    p->abi = WC_ABI_VERSION;
    p->lossless = 1;
    p->transform = WC_TRANSFORM_DWT;
    p->wavelet = 0; /* 53 when lossless, else 97 */
    p->levels = WC_LEVELS_AUTO;
    p->entropy = WC_ENTROPY_HUFFMAN;
    p->deflate_level = 6;
    p->block_size = 0; /* plan_block_side: 64 lossy Huffman, else 128 */
    p->threads = 0;
    p->backend = WC_BACKEND_AUTO;
    p->device = -1;
    p->max_pixels = WC_DEFAULT_MAX_PIXELS;
    p->max_memory = WC_DEFAULT_MAX_MEMORY;
    return WC_OK;
}

int wc_device_count(void) { return wcg_device_count(); }

wc_ctx *wc_ctx_create(void)
{
    wc_ctx *ctx = wc_calloc(1, sizeof *ctx);
    if (!ctx) return NULL;
    pool_init(&ctx->pool);
    ctx->threads = wc_thread_pool_create();
    ctx->device = ctx->backend_device = -1;
    return ctx;
}

void wc_ctx_free(wc_ctx *ctx)
{
    if (ctx == NULL) return;
    ctx_free_workers(ctx);
    if (ctx->backend && ctx->backend->destroy) ctx->backend->destroy(ctx->backend_self);
    pool_destroy(&ctx->pool);
    wc_thread_pool_free(ctx->threads);
    wc_free(ctx);
}

void wc_ctx_trim(wc_ctx *ctx)
{
    if (!ctx) return;
    pool_trim(&ctx->pool);
    for (int i = 1; i < ctx->nworkers; i++) pool_trim(&ctx->workers[i]->pool);
}

const char *wc_ctx_error(const wc_ctx *ctx) { return ctx ? ctx->err.msg : ""; }

const char *wc_ctx_backend(const wc_ctx *ctx)
{
    return ctx && ctx->backend ? ctx->backend->name : "none";
}

const char *wc_ctx_note(const wc_ctx *ctx) { return ctx ? ctx->note : ""; }

void wc_ctx_times_sized(const wc_ctx *ctx, wc_times *t, size_t t_size)
{
    if (!t) return;
    wc_times all = {0};
    if (ctx) {
        all.transform = ctx->times.transform;
        all.entropy = ctx->times.entropy;
        all.container = ctx->times.container;
        all.rate = ctx->times.rate;
    }
    memcpy(t, &all, t_size < sizeof all ? t_size : sizeof all);
}

wc_status wc_inspect_sized(wc_ctx *ctx, const void *src, size_t size, wc_info *info,
                           size_t info_size)
{
    wc_info all;
    memset(&all, 0, sizeof all);
    wc_thread_pool *was = ctx_enter(ctx); /* the CRC checks on ctx's parked threads */
    wc_status s = dec_inspect(ctx, src, size, info ? &all : NULL);
    ctx_leave(was);
    if (info) memcpy(info, &all, info_size < sizeof all ? info_size : sizeof all);
    return s;
}

wc_thread_pool *ctx_enter(wc_ctx *ctx) { return wc_thread_pool_use(ctx ? ctx->threads : NULL); }

void ctx_leave(wc_thread_pool *was) { wc_thread_pool_use(was); }

void ctx_begin(wc_ctx *ctx)
{
    ctx->err.msg[0] = '\0';
    ctx->note[0] = '\0';
    memset(&ctx->times, 0, sizeof ctx->times);
}

double ctx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static wc_status use_backend(wc_ctx *ctx, const wc_backend_ops *ops, wc_err *err)
{
    if (ctx->backend == ops) return WC_OK;
    void *self = NULL;
    WC_FORWARD_IF_ERROR(ops->create(&self, err));
    if (ctx->backend && ctx->backend->destroy) ctx->backend->destroy(ctx->backend_self);
    ctx->backend = ops;
    ctx->backend_self = self;
    return WC_OK;
}

void ctx_use_device(wc_ctx *ctx, const wc_params *p) { ctx->device = p ? p->device : -1; }

/* The CUDA backend on the call's device: one made for another device is
 * replaced, on the device asked for (wcg_device_select, then create). */
static wc_status use_cuda(wc_ctx *ctx, const wc_backend_ops *cuda, wc_err *err)
{
    if (ctx->backend == cuda && ctx->backend_device == ctx->device) return WC_OK;
    WC_FORWARD_IF_ERROR(wcg_device_select(ctx->device, err));
    if (ctx->backend == cuda) {
        cuda->destroy(ctx->backend_self);
        ctx->backend = NULL;
        ctx->backend_self = NULL;
    }
    WC_FORWARD_IF_ERROR(use_backend(ctx, cuda, err));
    ctx->backend_device = ctx->device;
    return WC_OK;
}

wc_status ctx_backend(wc_ctx *ctx, wc_backend_kind kind)
{
    const char *env = getenv("WC_BACKEND");
    if (env && strcmp(env, "cpu") == 0) {
        if (kind == WC_BACKEND_AUTO)
            snprintf(ctx->note, sizeof ctx->note, "backend: cpu (WC_BACKEND=cpu)");
        kind = WC_BACKEND_CPU;
    } else if (env && strcmp(env, "cuda") == 0) {
        kind = WC_BACKEND_CUDA;
    } else if (env && *env && strcmp(env, "auto") != 0) {
        /* A typo must not quietly run somewhere else. */
        return wc_fail(&ctx->err, WC_ERR_ARG, "WC_BACKEND=%.40s: expected cpu, cuda or auto", env);
    }
    if (kind == WC_BACKEND_CPU) return use_backend(ctx, wc_backend_cpu(), &ctx->err);
    const wc_backend_ops *cuda = wc_backend_cuda();
    if (kind == WC_BACKEND_CUDA) {
        WC_RETURN_IF(!cuda, &ctx->err, WC_ERR_BACKEND,
                     "the CUDA backend is not part of this build (no CUDA toolkit at build time)");
        return use_cuda(ctx, cuda, &ctx->err);
    }
    if (cuda) {
        wc_err probe = {{0}};
        if (use_cuda(ctx, cuda, &probe) == WC_OK) {
            if (ctx->device >= 0)
                snprintf(ctx->note, sizeof ctx->note, "backend: cuda (device %d)", ctx->device);
            else
                snprintf(ctx->note, sizeof ctx->note, "backend: cuda");
            return WC_OK;
        }
        snprintf(ctx->note, sizeof ctx->note, "backend: cpu (CUDA unavailable: %s)", probe.msg);
    } else if (!ctx->note[0]) {
        snprintf(ctx->note, sizeof ctx->note, "backend: cpu (built without CUDA)");
    }
    return use_backend(ctx, wc_backend_cpu(), &ctx->err);
}

void ctx_note_chain(wc_ctx *ctx, const char *where)
{
    if (!where) return;
    size_t n = strlen(ctx->note);
    if (!n) n = (size_t)snprintf(ctx->note, sizeof ctx->note, "backend: %s", ctx->backend->name);
    if (n < sizeof ctx->note)
        snprintf(ctx->note + n, sizeof ctx->note - n, "; entropy coding: %s", where);
}

size_t wc_image_row_bytes(const wc_image *img) { return img ? wc_packed_row_bytes(img) : 0; }

wc_status wc_image_alloc(wc_image *img)
{
    if (!img || img->width == 0 || img->height == 0 || img->components < 1 || img->components > 4 ||
        img->bit_depth < 1 || img->bit_depth > 16)
        return WC_ERR_ARG;
    size_t row = wc_image_row_bytes(img), total;
    if (row == 0 || wc_mul_overflow(row, img->height, &total)) return WC_ERR_LIMIT;
    img->pixels = wc_malloc(total);
    if (!img->pixels) return WC_ERR_NOMEM;
    /* No huge-page advice here (unlike the pool's planes): a decoded image
     * is fresh memory every call, and 2 MiB pages fresh every call made a
     * 1-thread 8K decode 15-20% slower by the wall clock (compaction
     * waits, not CPU time) in 6 of 6 interleaved rounds. */
    img->stride = row;
    return WC_OK;
}

void wc_image_free(wc_image *img)
{
    if (!img) return;
    wc_free(img->pixels);
    img->pixels = NULL;
}
