/*
 * meta.c -- metadata beside the pixels: the wc_meta list of the public API,
 * its WMET chunks in the encoder's output, and wc_meta_read. The codec
 * carries the items; it never interprets them.
 */
#include <string.h>

#include "container.h"
#include "context.h"
#include "meta.h"

typedef struct meta_slot {
    wc_meta_item item;
    char key[WC_META_MAX_KEY + 1];
} meta_slot;

struct wc_meta {
    meta_slot *slots;
    size_t count, cap;
    size_t total; /* value bytes */
};

wc_meta *wc_meta_create(void) { return wc_calloc(1, sizeof(wc_meta)); }

void wc_meta_clear(wc_meta *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->count; i++) wc_free((void *)m->slots[i].item.data);
    m->count = 0;
    m->total = 0;
}

void wc_meta_free(wc_meta *m)
{
    if (!m) return;
    wc_meta_clear(m);
    wc_free(m->slots);
    wc_free(m);
}

/* The value size a kind must have, 0 when it may have any. */
static size_t fixed_size(wc_meta_kind kind)
{
    switch (kind) {
    case WC_META_GAMMA: return 4;
    case WC_META_CHROMATICITY: return 32;
    case WC_META_SRGB: return 1;
    case WC_META_RESOLUTION: return 17;
    case WC_META_TIME: return 7;
    default: return 0;
    }
}

const char *wc_meta_kind_name(wc_meta_kind kind)
{
    switch (kind) {
    case WC_META_ICC: return "ICC profile";
    case WC_META_EXIF: return "EXIF";
    case WC_META_XMP: return "XMP";
    case WC_META_TEXT: return "text";
    case WC_META_GAMMA: return "gamma";
    case WC_META_CHROMATICITY: return "chromaticities";
    case WC_META_SRGB: return "sRGB";
    case WC_META_RESOLUTION: return "resolution";
    case WC_META_TIME: return "time";
    }
    return "unknown";
}

static int kind_known(unsigned kind) { return kind >= WC_META_ICC && kind <= WC_META_TIME; }

/* Checks an item against the limits and the kind's layout; 0 if good. */
static wc_status meta_check(const wc_meta *m, wc_meta_kind kind, uint32_t flags, const char *key,
                            size_t klen, const void *data, size_t size, wc_err *err)
{
    WC_RETURN_IF(!kind_known(kind), err, WC_ERR_ARG, "metadata: unknown kind %d", (int)kind);
    WC_RETURN_IF(klen > WC_META_MAX_KEY, err, WC_ERR_ARG, "metadata: a %zu-byte key (at most %d)",
                 klen, WC_META_MAX_KEY);
    WC_RETURN_IF(key && memchr(key, 0, klen), err, WC_ERR_ARG, "metadata: a NUL byte in a key");
    WC_RETURN_IF(kind == WC_META_TEXT && klen == 0, err, WC_ERR_ARG,
                 "metadata: text without a key");
    WC_RETURN_IF(
        flags & ~(WC_META_TEXT_COMPRESSED | WC_META_TEXT_UTF8) || (flags && kind != WC_META_TEXT),
        err, WC_ERR_ARG, "metadata: flags 0x%x on %s", (unsigned)flags, wc_meta_kind_name(kind));
    size_t want = fixed_size(kind);
    WC_RETURN_IF(want && size != want, err, WC_ERR_ARG, "metadata: %s of %zu bytes (must be %zu)",
                 wc_meta_kind_name(kind), size, want);
    WC_RETURN_IF(size && !data, err, WC_ERR_ARG, "metadata: no data");
    WC_RETURN_IF(size > WC_META_MAX_VALUE, err, WC_ERR_LIMIT,
                 "metadata: a %zu-byte %s (at most %u)", size, wc_meta_kind_name(kind),
                 WC_META_MAX_VALUE);
    WC_RETURN_IF(m->count >= WC_META_MAX_ITEMS, err, WC_ERR_LIMIT, "metadata: more than %d items",
                 WC_META_MAX_ITEMS);
    WC_RETURN_IF(m->total + size > WC_META_MAX_TOTAL, err, WC_ERR_LIMIT,
                 "metadata: more than %u bytes in all", WC_META_MAX_TOTAL);
    return WC_OK;
}

static wc_status meta_add(wc_meta *m, wc_meta_kind kind, uint32_t flags, const char *key,
                          size_t klen, const void *data, size_t size, wc_err *err)
{
    WC_RETURN_IF(!m, err, WC_ERR_ARG, "metadata: no list");
    WC_FORWARD_IF_ERROR(meta_check(m, kind, flags, key, klen, data, size, err));
    if (m->count == m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 8;
        meta_slot *ns = wc_realloc(m->slots, ncap * sizeof *ns);
        WC_RETURN_IF(!ns, err, WC_ERR_NOMEM, "metadata: out of memory");
        m->slots = ns;
        m->cap = ncap;
        /* Keys live in the slots: point the items at their new place. */
        for (size_t i = 0; i < m->count; i++) m->slots[i].item.key = m->slots[i].key;
    }
    uint8_t *copy = wc_malloc(size ? size : 1);
    WC_RETURN_IF(!copy, err, WC_ERR_NOMEM, "metadata: out of memory (%zu bytes)", size);
    if (size) memcpy(copy, data, size);
    meta_slot *s = &m->slots[m->count++];
    if (klen) memcpy(s->key, key, klen);
    s->key[klen] = '\0';
    s->item = (wc_meta_item){kind, flags, s->key, copy, size};
    m->total += size;
    return WC_OK;
}

wc_status wc_meta_add(wc_meta *m, wc_meta_kind kind, uint32_t flags, const char *key,
                      const void *data, size_t size)
{
    return meta_add(m, kind, flags, key, key ? strlen(key) : 0, data, size, NULL);
}

size_t wc_meta_count(const wc_meta *m) { return m ? m->count : 0; }

const wc_meta_item *wc_meta_get(const wc_meta *m, size_t i)
{
    return m && i < m->count ? &m->slots[i].item : NULL;
}

const wc_meta_item *wc_meta_find(const wc_meta *m, wc_meta_kind kind, const char *key)
{
    for (size_t i = 0; i < wc_meta_count(m); i++) {
        const wc_meta_item *it = &m->slots[i].item;
        if (it->kind == kind && (!key || !strcmp(it->key, key))) return it;
    }
    return NULL;
}

size_t meta_file_bytes(const wc_meta *m)
{
    size_t n = 0;
    for (size_t i = 0; i < wc_meta_count(m); i++)
        n += wcx_meta_chunk_size(strlen(m->slots[i].key), m->slots[i].item.size);
    return n;
}

void meta_put_chunks(wcx_writer *w, const wc_meta *m)
{
    for (size_t i = 0; i < wc_meta_count(m); i++) {
        const wc_meta_item *it = &m->slots[i].item;
        wcx_meta_item c = {(uint8_t)it->kind,        (uint8_t)it->flags, (uint8_t)strlen(it->key),
                           (const uint8_t *)it->key, it->data,           (uint32_t)it->size};
        wcx_meta_put(w, &c);
    }
}

wc_status wc_meta_read(wc_ctx *ctx, const void *src, size_t size, wc_meta *m)
{
    if (!ctx) return WC_ERR_ARG;
    /* Only the error: the note and the stage times stay the last encode's
     * or decode's (wcodec.h), which a caller reading the metadata after a
     * decode, as the command does, still reports. */
    ctx->err.msg[0] = '\0';
    WC_RETURN_IF(!src || !m, &ctx->err, WC_ERR_ARG, "missing argument");
    size_t max = (size > WCX_MAGIC_SIZE ? (size - WCX_MAGIC_SIZE) / WCX_CHUNK_OVERHEAD : 0) + 1;
    if (max > WCX_MAX_CHUNKS) max = WCX_MAX_CHUNKS;
    if (max < WCX_ONE_MAX_PARTS) max = WCX_ONE_MAX_PARTS; /* a WONE file's parts */
    wcx_chunk *chunks = wc_malloc_array(max, sizeof *chunks);
    WC_RETURN_IF(!chunks, &ctx->err, WC_ERR_NOMEM, "out of memory (chunk list)");
    size_t n = 0;
    wc_thread_pool *was = ctx_enter(ctx); /* the CRC checks on ctx's parked threads */
    wc_status s = wcx_read_chunks(src, size, chunks, max, &n, &ctx->err);
    ctx_leave(was);
    if (s == WC_OK) s = meta_from_chunks(chunks, n, m, &ctx->err);
    wc_free(chunks);
    return s;
}

wc_status meta_from_chunks(const wcx_chunk *chunks, size_t n, wc_meta *m, wc_err *err)
{
    wc_status s = WC_OK;
    for (size_t i = 0; s == WC_OK && i < n; i++) {
        if (chunks[i].type != WCX_WMET) continue;
        wcx_meta_item it;
        s = wcx_meta_parse(&chunks[i], &it, err);
        if (s != WC_OK || !kind_known(it.kind)) continue; /* later kinds: skipped */
        wc_err e = {{0}};
        s = meta_add(m, (wc_meta_kind)it.kind, it.flags, (const char *)it.key, it.key_len, it.value,
                     it.size, &e);
        if (s == WC_ERR_ARG) s = WC_ERR_CORRUPT; /* from a file, a bad item is damage */
        if (s != WC_OK)
            wc_fail(err, s, "chunk %u (WMET) at byte %zu: %s", chunks[i].index, chunks[i].offset,
                    e.msg);
    }
    return s;
}
