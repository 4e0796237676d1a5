/*
 * consumer.c -- a program outside the project that uses the installed
 * wcodec: a lossless round trip through the public API. Built by
 * run_consumers.sh through find_package and through pkg-config.
 */
#include <stdio.h>
#include <string.h>

#include <wcodec.h>

int main(void)
{
    wc_image img = {64, 48, 3, 8, 0, NULL};
    if (wc_image_alloc(&img) != WC_OK) return 1;
    unsigned char *px = img.pixels;
    for (size_t i = 0; i < (size_t)64 * 48 * 3; i++) px[i] = (unsigned char)(i * 13 + i / 97);
    wc_params p;
    wc_ctx *ctx = wc_ctx_create();
    void *file = NULL;
    size_t size = 0;
    wc_image back = {0};
    int ok = ctx && wc_params_init(&p) == WC_OK &&
             wc_encode_alloc(ctx, &p, &img, &file, &size) == WC_OK &&
             wc_decode(ctx, NULL, file, size, &back) == WC_OK &&
             memcmp(back.pixels, img.pixels, (size_t)64 * 48 * 3) == 0;
    printf("wcodec %s: %zu bytes, %s, backend %s\n", wc_version_string(), size,
           ok ? "exact" : "FAILED", wc_ctx_backend(ctx));
    wc_free(file);
    wc_image_free(&back);
    wc_image_free(&img);
    wc_ctx_free(ctx);
    return ok ? 0 : 1;
}
