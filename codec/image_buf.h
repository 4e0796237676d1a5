/* image_buf.h -- a growable byte buffer for the image layer's writers
 * (image_meta_png.c, image_exif.c). A failed allocation is sticky:
 * writers append everything and check `failed` once. */
#ifndef WC_IMAGE_BUF_H
#define WC_IMAGE_BUF_H

#include <string.h>

#include "wc_common.h"

typedef struct imgio_buf {
    uint8_t *p;
    size_t n, cap;
    int failed;
    size_t limit; /* the most bytes it may hold; 0: SIZE_MAX / 2 */
} imgio_buf;

/* n more bytes at the end (NULL, and failed set, when they cannot be had
 * or the buffer would pass its limit). */
static inline uint8_t *imgio_buf_room(imgio_buf *b, size_t n)
{
    const size_t limit = b->limit ? b->limit : SIZE_MAX / 2;
    if (b->failed || n > limit || b->n > limit - n) {
        b->failed = 1;
        return NULL;
    }
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n) cap *= 2;
        uint8_t *np = wc_realloc(b->p, cap);
        if (!np) {
            b->failed = 1;
            return NULL;
        }
        b->p = np;
        b->cap = cap;
    }
    uint8_t *at = b->p + b->n;
    b->n += n;
    return at;
}

static inline void imgio_buf_put(imgio_buf *b, const void *d, size_t n)
{
    uint8_t *at = n ? imgio_buf_room(b, n) : NULL;
    if (at) memcpy(at, d, n);
}

#endif
