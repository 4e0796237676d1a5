/*
 * cli_image.c -- the command's side of image files: reading any supported
 * format with its metadata, notes on pages and on metadata a format cannot
 * hold, and the metadata listing of 'wcodec info'.
 */
#include <stdio.h>
#include <string.h>

#include "cli_image.h"
#include "image_ext.h" /* wc_rd32le and friends come with it */

void cli_image_error(wc_ctx *ctx, wc_status s, const char *path)
{
    const char *msg = imgio_error();
    if (*msg) fprintf(stderr, "wcodec: %s\n", msg);
    else cli_error(ctx, s, path);
}

wc_status cli_image_read(wc_ctx *ctx, const char *path, unsigned page, uint64_t max_pixels,
                         wc_image *img, wc_meta *meta, int quiet)
{
    unsigned pages = 1;
    wc_status s = imgio_read(ctx, path, page, max_pixels, img, meta, &pages);
    if (s != WC_OK) {
        cli_image_error(ctx, s, path);
        return s;
    }
    if (pages > 1 && !quiet)
        fprintf(stderr, "wcodec: note: %s has %u pages; this is page %u (--page N for another)\n",
                path, pages, page ? page : 1);
    return WC_OK;
}

void cli_image_dropped(const char *path, unsigned dropped)
{
    if (!dropped) return;
    fprintf(stderr, "wcodec: note: %s: the format has no place for:", path);
    const char *sep = " ";
    for (unsigned k = 1; k < 32; k++)
        if (dropped & (1u << k)) {
            fprintf(stderr, "%s%s", sep, wc_meta_kind_name((wc_meta_kind)k));
            sep = ", ";
        }
    fprintf(stderr, " (left out)\n");
}

/* Text values: printable ASCII as it is, the rest escaped, cut at 60. */
static void print_text(const uint8_t *d, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n && i < 60; i++) {
        if (d[i] >= 0x20 && d[i] < 0x7f && d[i] != '"' && d[i] != '\\') putchar(d[i]);
        else printf("\\x%02x", d[i]);
    }
    printf(n > 60 ? "\"... (%zu bytes)" : "\"", n);
}

void cli_image_print_meta(const wc_meta *m)
{
    size_t n = wc_meta_count(m);
    printf("metadata:    %s\n", n ? "" : "none");
    for (size_t i = 0; i < n; i++) {
        const wc_meta_item *it = wc_meta_get(m, i);
        const uint8_t *v = it->data;
        printf("  %-15s", wc_meta_kind_name(it->kind));
        switch (it->kind) {
        case WC_META_GAMMA: printf("%.5f\n", wc_rd32le(v) / 100000.0); break;
        case WC_META_SRGB: printf("rendering intent %u\n", v[0]); break;
        case WC_META_CHROMATICITY:
            printf("white %.4f,%.4f red %.4f,%.4f green %.4f,%.4f blue %.4f,%.4f\n",
                   wc_rd32le(v) / 1e5, wc_rd32le(v + 4) / 1e5, wc_rd32le(v + 8) / 1e5,
                   wc_rd32le(v + 12) / 1e5, wc_rd32le(v + 16) / 1e5, wc_rd32le(v + 20) / 1e5,
                   wc_rd32le(v + 24) / 1e5, wc_rd32le(v + 28) / 1e5);
            break;
        case WC_META_RESOLUTION: {
            static const char *const units[4] = {"(aspect ratio)", "per metre", "per inch",
                                                 "per centimetre"};
            double x, y;
            memcpy(&x, v, 8);
            memcpy(&y, v + 8, 8);
            printf("%g x %g pixels %s\n", x, y, units[v[16] & 3]);
            break;
        }
        case WC_META_TIME:
            printf("%04u-%02u-%02u %02u:%02u:%02u\n", wc_rd16le(v), v[2], v[3], v[4], v[5], v[6]);
            break;
        case WC_META_TEXT:
            printf("%s = ", it->key);
            print_text(v, it->size);
            printf("%s\n", it->flags & WC_META_TEXT_COMPRESSED ? " (compressed)" : "");
            break;
        default:
            printf("%zu bytes%s%s%s\n", it->size, it->key[0] ? " (\"" : "", it->key,
                   it->key[0] ? "\")" : "");
        }
    }
}
