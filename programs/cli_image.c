/* cli_image.c -- the metadata listing of 'wcodec info'. */
#include <stdio.h>
#include <string.h>

#include "cli_image.h"
#include "image_io.h" /* wc_rd32le and friends come with it */

/* Text values: printable ASCII as it is, the rest escaped, cut at 60. */
static void print_text(const uint8_t *d, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n && i < 60; i++) {
        if (d[i] >= 0x20 && d[i] < 0x7f && d[i] != '"' && d[i] != '\\')
            putchar(d[i]);
        else
            printf("\\x%02x", d[i]);
    }
    printf(n > 60 ? "\"... (%zu bytes)" : "\"", n);
}

void cli_image_print_meta(const wc_meta *m)
{
    size_t n = wc_meta_count(m);
    if (n)
        printf("metadata:    %zu item(s)\n", n);
    else
        printf("metadata:    none\n");
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
