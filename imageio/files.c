/*
 * files.c -- whole-file reads and atomic writes: a result goes to a
 * temporary file beside the target and is renamed over it only when
 * complete, so a failure never leaves a partial file behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_io.h"

typedef wc_status (*write_fn)(const char *tmp_path, const void *arg, wc_err *err);

/* Creates an empty, unique temporary file beside path, with the mode a
 * plain fopen would give (0666 less the umask: mkstemp's 0600 would make
 * every output private). Returns 0 and the name in tmp, or an errno. */
static int create_temp(const char *path, char *tmp, size_t cap)
{
    for (unsigned attempt = 0; attempt < 1000; attempt++) {
        snprintf(tmp, cap, "%s.tmp.%ld.%u", path, (long)getpid(), attempt);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        if (errno != EEXIST) return errno;
    }
    return EEXIST;
}

static wc_status write_atomic(const char *path, write_fn fn, const void *arg, wc_err *err)
{
    WC_RETURN_IF(!path || !*path, err, WC_ERR_ARG, "no output path");
    size_t cap = strlen(path) + 48;
    char *tmp = wc_malloc(cap);
    WC_RETURN_IF(!tmp, err, WC_ERR_NOMEM, "out of memory");
    int e = create_temp(path, tmp, cap);
    if (e != 0) {
        wc_status s = wc_fail(err, WC_ERR_IO, "%s: cannot create a file there: %s", path,
                              strerror(e));
        wc_free(tmp);
        return s;
    }
    wc_status s = fn(tmp, arg, err);
    if (s == WC_OK && rename(tmp, path) != 0)
        s = wc_fail(err, WC_ERR_IO, "%s: cannot rename the finished file into place: %s", path,
                    strerror(errno));
    if (s != WC_OK) unlink(tmp);
    wc_free(tmp);
    return s;
}

typedef struct bytes {
    const void *data;
    size_t size;
} bytes;

static wc_status write_bytes(const char *tmp, const void *arg, wc_err *err)
{
    const bytes *b = arg;
    FILE *f = fopen(tmp, "wb");
    WC_RETURN_IF(!f, err, WC_ERR_IO, "%s: %s", tmp, strerror(errno));
    size_t put = b->size ? fwrite(b->data, 1, b->size, f) : 0;
    int bad = put != b->size || fflush(f) != 0;
    int saved = errno;
    bad |= fclose(f) != 0;
    WC_RETURN_IF(bad, err, WC_ERR_IO, "%s: write failed: %s", tmp, strerror(saved ? saved : errno));
    return WC_OK;
}

wc_status file_write(const char *path, const void *data, size_t size, wc_err *err)
{
    bytes b = {data, size};
    return write_atomic(path, write_bytes, &b, err);
}

wc_status file_read(const char *path, size_t max_bytes, void **data, size_t *size, wc_err *err)
{
    WC_RETURN_IF(!path || !data || !size, err, WC_ERR_ARG, "missing argument");
    if (max_bytes == 0) max_bytes = (size_t)4 << 30;
    FILE *f = fopen(path, "rb");
    WC_RETURN_IF(!f, err, WC_ERR_IO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = wc_malloc(cap);
    wc_status s = buf ? WC_OK : wc_fail(err, WC_ERR_NOMEM, "out of memory");
    while (s == WC_OK) {
        if (n == cap) {
            if (cap >= max_bytes) {
                s = wc_fail(err, WC_ERR_LIMIT, "%s: larger than %zu bytes", path, max_bytes);
                break;
            }
            size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            uint8_t *nb = wc_realloc(buf, ncap);
            if (!nb) {
                s = wc_fail(err, WC_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) s = wc_fail(err, WC_ERR_IO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (s != WC_OK) {
        wc_free(buf);
        return s;
    }
    *data = buf;
    *size = n;
    return WC_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m) return 0;
    for (size_t i = 0; i < m; i++) {
        char a = s[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

wc_status image_read(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err)
{
    WC_RETURN_IF(!path || !img, err, WC_ERR_ARG, "missing argument");
    void *data = NULL;
    size_t size = 0;
    WC_FORWARD_IF_ERROR(file_read(path, 0, &data, &size, err));
    if (!max_pixels) max_pixels = WC_DEFAULT_MAX_PIXELS;
    const uint8_t *d = data;
    wc_status s;
    wc_err e = {{0}};
    if (size >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0)
        s = png_read_mem(d, size, max_pixels, img, &e);
    else if (size >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7')
        s = pnm_read_mem(d, size, max_pixels, img, &e);
    else
        s = wc_fail(&e, WC_ERR_FORMAT, "not a PNG, PGM or PPM image");
    wc_free(data);
    if (s != WC_OK) wc_fail(err, s, "%s: %s", path, e.msg);
    return s;
}

static wc_status write_image(const char *tmp, const void *arg, wc_err *err)
{
    const wc_image *img = arg;
    const char *fmt = tmp; /* the temporary name keeps the target's name in front */
    (void)fmt;
    return png_write_file(tmp, img, err);
}

static wc_status write_pnm(const char *tmp, const void *arg, wc_err *err)
{
    return pnm_write_file(tmp, arg, err);
}

wc_status image_write(const char *path, const wc_image *img, wc_err *err)
{
    WC_RETURN_IF(!path || !img || !img->pixels, err, WC_ERR_ARG, "missing argument");
    int pnm = ends_with(path, ".pgm") || ends_with(path, ".ppm") || ends_with(path, ".pnm");
    return write_atomic(path, pnm ? write_pnm : write_image, img, err);
}
