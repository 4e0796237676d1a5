/*
 * gpu_pair.h -- what the gpu tests share: the CPU and CUDA backends side
 * by side, and a main that skips (exit 77, with a message) where there is
 * no CUDA device or no CUDA in the build.
 */
#ifndef WC_GPU_PAIR_H
#define WC_GPU_PAIR_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "backend.h"
#include "wcodec.h"

extern const wc_backend_ops *g_cpu, *g_gpu;
extern void *g_cpu_self, *g_gpu_self;

/* Opens both backends, runs the tests (WC_TEST_FILTER / WC_TEST_SKIP
 * select them by cmocka pattern), closes the backends; returns the exit
 * status for main. */
int gpu_pair_main(const char *name, const struct CMUnitTest *tests, size_t count);

/* A CPU and a CUDA context through the public API, made by
 * gpu_ctx_setup and freed by gpu_ctx_teardown (cmocka's per-test setup
 * and teardown): each test starts with fresh contexts. */
extern wc_ctx *g_ctx_cpu, *g_ctx_gpu;
int gpu_ctx_setup(void **state);
int gpu_ctx_teardown(void **state);

#endif
