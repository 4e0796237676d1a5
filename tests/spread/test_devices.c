/*
 * test_devices.c -- a context bound to a CUDA device (wc_params.device):
 * its work lands there and nowhere else (GPU 0 stays untouched when
 * device 1 is asked for: the driver's primary-context state says so), the
 * bytes are the same on every device and on the CPU, a context moves when
 * asked for another device, and a device out of range fails (CUDA) or
 * falls back with a note (AUTO).
 *
 * Needs two CUDA devices: with fewer it says so and returns 77 (ctest
 * SKIP). The driver is reached through dlopen, so no CUDA header leaves
 * cuda/ (test_cuda_headers).
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "image_io.h"
#include "wcodec.h"
#include "test_support.h"

/* Whether device `ordinal` has an active primary context (the CUDA
 * runtime's), through the driver API: cuInit, cuDeviceGet,
 * cuDevicePrimaryCtxGetState (CUresult is 0 on success; CUdevice an int). */
static int device_active(int ordinal)
{
    static void *lib;
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
    assert_non_null(lib);
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(lib, "cuInit");
    int (*get)(int *, int) = (int (*)(int *, int))dlsym(lib, "cuDeviceGet");
    int (*state)(int, unsigned *, int *) =
        (int (*)(int, unsigned *, int *))dlsym(lib, "cuDevicePrimaryCtxGetState");
    assert_true(init && get && state);
    assert_int_equal(init(0), 0);
    int dev = -1, active = -1;
    unsigned flags = 0;
    assert_int_equal(get(&dev, ordinal), 0);
    assert_int_equal(state(dev, &flags, &active), 0);
    return active;
}

static void load(int n, wc_image *img)
{
    wc_ctx *ctx = wc_ctx_create();
    assert_non_null(ctx);
    assert_int_equal(image_read(test_kodak_path(n), 0, img, NULL), WC_OK);
    wc_ctx_free(ctx);
}

static void encode(wc_ctx *ctx, const wc_params *p, const wc_image *img, void **buf, size_t *n)
{
    wc_status s = wc_encode_alloc(ctx, p, img, buf, n);
    if (s != WC_OK) fprintf(stderr, "encode: %s\n", wc_ctx_error(ctx));
    assert_int_equal(s, WC_OK);
}

/* Runs first, in a process that has touched no GPU yet. */
static void test_work_lands_on_the_device_asked_for(void **state)
{
    (void)state;
    assert_int_equal(device_active(0), 0);
    assert_int_equal(device_active(1), 0);
    wc_image img;
    load(1, &img);
    wc_params p;
    wc_params_init(&p);
    p.backend = WC_BACKEND_CUDA;
    p.device = 1;
    wc_ctx *ctx = wc_ctx_create();
    void *buf = NULL;
    size_t n = 0;
    encode(ctx, &p, &img, &buf, &n);
    wc_image out = {0};
    assert_int_equal(wc_decode(ctx, &p, buf, n, &out), WC_OK);
    assert_string_equal(wc_ctx_backend(ctx), "cuda");
    assert_int_equal(device_active(1), 1);
    assert_int_equal(device_active(0), 0); /* nothing on GPU 0 by accident */
    wc_image_free(&out);
    free(buf);
    wc_ctx_free(ctx);
    wc_image_free(&img);
}

/* The bytes of an encode on device 0, on device 1 and on the CPU, for
 * several modes; decoding on device 1 gives the CPU's pixels. */
static void test_same_bytes_on_every_device(void **state)
{
    (void)state;
    wc_ctx *ctx = wc_ctx_create();
    for (int mode = 0; mode < 4; mode++) {
        wc_image img;
        load(mode == 0 ? 1 : mode == 1 ? 3 : mode == 2 ? 7 : 23, &img);
        wc_params p;
        wc_params_init(&p);
        if (mode > 0) {
            p.lossless = 0;
            p.quality = 70;
            p.transform = mode == 2   ? WC_TRANSFORM_DCT
                          : mode == 3 ? WC_TRANSFORM_LOT
                                      : WC_TRANSFORM_DWT;
        }
        void *ref = NULL, *buf = NULL;
        size_t nref = 0, n = 0;
        p.backend = WC_BACKEND_CPU;
        encode(ctx, &p, &img, &ref, &nref);
        p.backend = WC_BACKEND_CUDA;
        for (int d = 0; d < 2; d++) {
            p.device = d;
            encode(ctx, &p, &img, &buf, &n);
            assert_int_equal(n, nref);
            assert_memory_equal(buf, ref, n);
            free(buf);
        }
        wc_image a = {0}, b = {0};
        p.device = 1;
        assert_int_equal(wc_decode(ctx, &p, ref, nref, &a), WC_OK);
        p.backend = WC_BACKEND_CPU;
        assert_int_equal(wc_decode(ctx, &p, ref, nref, &b), WC_OK);
        assert_memory_equal(a.pixels, b.pixels, wc_image_row_bytes(&a) * a.height);
        wc_image_free(&a);
        wc_image_free(&b);
        free(ref);
        wc_image_free(&img);
    }
    wc_ctx_free(ctx);
}

/* AUTO names the device in the note; a device out of range fails when CUDA
 * is asked for by name and falls back to the CPU, saying why, under AUTO. */
static void test_notes_and_a_device_out_of_range(void **state)
{
    (void)state;
    wc_image img;
    load(3, &img);
    wc_params p;
    wc_params_init(&p);
    wc_ctx *ctx = wc_ctx_create();
    void *buf = NULL;
    size_t n = 0;
    p.device = 1;
    encode(ctx, &p, &img, &buf, &n);
    free(buf);
    /* The note goes on with the entropy coder's place and the layout chosen. */
    assert_non_null(strstr(wc_ctx_note(ctx), "backend: cuda (device 1)"));
    p.device = wc_device_count();
    encode(ctx, &p, &img, &buf, &n);
    free(buf);
    assert_string_equal(wc_ctx_backend(ctx), "cpu");
    assert_non_null(strstr(wc_ctx_note(ctx), "asked for"));
    p.backend = WC_BACKEND_CUDA;
    assert_int_equal(wc_encode_alloc(ctx, &p, &img, &buf, &n), WC_ERR_BACKEND);
    assert_non_null(strstr(wc_ctx_error(ctx), "asked for"));
    wc_ctx_free(ctx);
    wc_image_free(&img);
}

int main(void)
{
    const int n = wc_device_count();
    if (n < 2) {
        printf("fewer than two CUDA devices (%d): skipping\n", n);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_work_lands_on_the_device_asked_for),
        cmocka_unit_test(test_same_bytes_on_every_device),
        cmocka_unit_test(test_notes_and_a_device_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
