/* gpu_pair.c -- the shared main of the gpu tests (gpu_pair.h). */
#include <stdio.h>
#include <stdlib.h>

#include "gpu_pair.h"

const wc_backend_ops *g_cpu, *g_gpu;
void *g_cpu_self, *g_gpu_self;
wc_ctx *g_ctx_cpu, *g_ctx_gpu;

int gpu_ctx_setup(void **state)
{
    (void)state;
    g_ctx_cpu = wc_ctx_create();
    g_ctx_gpu = wc_ctx_create();
    return g_ctx_cpu && g_ctx_gpu ? 0 : -1;
}

int gpu_ctx_teardown(void **state)
{
    (void)state;
    wc_ctx_free(g_ctx_cpu);
    wc_ctx_free(g_ctx_gpu);
    g_ctx_cpu = g_ctx_gpu = NULL;
    return 0;
}

int gpu_pair_main(const char *name, const struct CMUnitTest *tests, size_t count)
{
    g_cpu = wc_backend_cpu();
    g_gpu = wc_backend_cuda();
    wc_err err = {{0}};
    if (!g_gpu || g_gpu->create(&g_gpu_self, &err) != WC_OK) {
        printf("no CUDA device: skipping (%s)\n", g_gpu ? err.msg : "built without CUDA");
        return 77;
    }
    if (g_cpu->create(&g_cpu_self, &err) != WC_OK) {
        printf("CPU backend: %s\n", err.msg);
        return 1;
    }
    if (getenv("WC_TEST_FILTER")) cmocka_set_test_filter(getenv("WC_TEST_FILTER"));
    if (getenv("WC_TEST_SKIP")) cmocka_set_skip_filter(getenv("WC_TEST_SKIP"));
    const int r = _cmocka_run_group_tests(name, tests, count, NULL, NULL);
    g_gpu->destroy(g_gpu_self);
    g_cpu->destroy(g_cpu_self);
    return r;
}
