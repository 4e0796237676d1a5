/*
 * files.c -- reading inputs and writing outputs for the file helpers of
 * image_io.h.
 *
 * Outputs. A new path or an existing regular file gets a temporary file
 * beside it ("NAME.wcodec-tmp.PID.N", NAME shortened when the name would
 * pass the system's limit), renamed over it only when complete, with the
 * existing file's mode (and owner, where allowed); a regular file the user
 * may not write is refused. Anything else that exists -- a character or
 * block device, a FIFO, a socket -- is written straight into, so /dev/null,
 * /dev/stdout and pipes work and are never replaced. A symbolic link is
 * followed: its target is written and the link stays. "-" is standard
 * output. The names of temporary files in progress are kept in a small
 * table that file_cleanup (async-signal-safe) removes: the only
 * process-wide state of the command's libraries (libwcodec keeps none).
 *
 * Inputs. "-" is standard input. Nothing is read whole before its header
 * has been checked against the limits: images go through the streaming
 * readers of image_io.h, .wcx files through decode_file, which has the
 * header chunk checked first (wc_decode_check_head, the library's public
 * check) and then reads with a bounded, growing buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <png.h>
#include <tiffio.h>
#include <zlib.h>

#include "image_io.h"

#define TMP_TAG ".wcodec-tmp."
#define LINK_HOPS 40

/* ---- temporary files in progress, for file_cleanup ---------------------- */

/* A slot is 0 (free), 1 (being filled or emptied) or 2 (holds a live
 * temporary file's name). Only state 2 is read by the signal handler. */
#define LIVE_SLOTS 16
static struct {
    atomic_int state;
    char path[PATH_MAX];
} live[LIVE_SLOTS];

static int live_add(const char *path)
{
    if (strlen(path) >= PATH_MAX) return -1;
    for (int i = 0; i < LIVE_SLOTS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&live[i].state, &free_slot, 1)) {
            strcpy(live[i].path, path);
            atomic_store(&live[i].state, 2);
            return i;
        }
    }
    return -1; /* more writes at once than slots: that one is not cleaned up */
}

static void live_remove(int slot)
{
    if (slot < 0) return;
    atomic_store(&live[slot].state, 1);
    live[slot].path[0] = '\0';
    atomic_store(&live[slot].state, 0);
}

void file_cleanup(void)
{
    for (int i = 0; i < LIVE_SLOTS; i++)
        if (atomic_load(&live[i].state) == 2) unlink(live[i].path);
}

/* ---- where an output goes ------------------------------------------------ */

typedef struct out_file {
    char *target; /* the path written: a symlink's final target */
    char *tmp;    /* temporary name, NULL when written straight into */
    int slot;     /* live[] slot of tmp, or -1 */
    FILE *fp;
} out_file;

static char *str_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = wc_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Follows symbolic links from path to the final name (which may not exist
 * yet: a dangling link's target is created). Returns an errno or 0. */
static int resolve_links(const char *path, char **out)
{
    char *cur = str_dup(path);
    if (!cur) return ENOMEM;
    for (int hop = 0;; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) break;
        if (hop == LINK_HOPS) {
            wc_free(cur);
            return ELOOP;
        }
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            int e = errno;
            wc_free(cur);
            return e;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = wc_malloc(dir + (size_t)n + 1);
        if (!next) {
            wc_free(cur);
            return ENOMEM;
        }
        memcpy(next, cur, dir);
        memcpy(next + dir, link, (size_t)n + 1);
        wc_free(cur);
        cur = next;
    }
    *out = cur;
    return 0;
}

/* Creates the temporary file beside target, as fopen would (0666 less the
 * umask; mkstemp's 0600 would make every new output private). The name
 * keeps as much of the target's as the file system's name limit leaves
 * room for beside the tag. Returns the open descriptor, or -1 with errno.
 * The name is in file_cleanup's table (*slot) before the file exists: a
 * signal between creating and registering it would leave it behind (the
 * command's tests hit that window under load). A signal before open only
 * unlinks a name that is not there yet, or a stale temporary of a dead
 * process that had our pid (the name carries it). */
static int create_temp(const char *target, char **tmp, int *slot)
{
    const char *slash = strrchr(target, '/');
    const size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = target + dir;
    char dirname[PATH_MAX];
    snprintf(dirname, sizeof dirname, "%.*s", dir ? (int)dir : 1, dir ? target : ".");
    long name_max = pathconf(dirname, _PC_NAME_MAX);
    if (name_max <= 0) name_max = 255;
    size_t cap = strlen(target) + sizeof TMP_TAG + 48;
    char *name = wc_malloc(cap);
    if (!name) {
        errno = ENOMEM;
        return -1;
    }
    for (unsigned attempt = 0; attempt < 1000; attempt++) {
        char suffix[64];
        int ns = snprintf(suffix, sizeof suffix, TMP_TAG "%ld.%u", (long)getpid(), attempt);
        size_t keep = strlen(base);
        if (keep + (size_t)ns > (size_t)name_max) {
            keep = (size_t)name_max > (size_t)ns ? (size_t)name_max - (size_t)ns : 0;
            while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80) keep--; /* UTF-8 */
        }
        snprintf(name, cap, "%.*s%.*s%s", (int)dir, target, (int)keep, base, suffix);
        const int live = live_add(name);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmp = name;
            *slot = live;
            return fd;
        }
        const int e = errno;
        live_remove(live);
        errno = e;
        if (errno != EEXIST) break;
    }
    int e = errno;
    wc_free(name);
    errno = e;
    return -1;
}

/* Opens a Unix socket's path for writing, as a client. */
static int open_socket(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* An existing non-regular file (device, FIFO, socket): written in place. */
static wc_status open_in_place(const char *path, const struct stat *st, out_file *o, wc_err *err)
{
    WC_RETURN_IF(S_ISDIR(st->st_mode), err, WC_ERR_IO, "%s: is a directory", path);
    int fd = S_ISSOCK(st->st_mode) ? open_socket(path) : open(path, O_WRONLY | O_CLOEXEC);
    WC_RETURN_IF(fd < 0, err, WC_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    o->fp = fdopen(fd, "wb");
    if (!o->fp) close(fd);
    WC_RETURN_IF(!o->fp, err, WC_ERR_NOMEM, "%s: out of memory", path);
    return WC_OK;
}

/* A new or existing regular file: a temporary file beside it, with the
 * existing file's mode and (where allowed) owner. */
static wc_status open_temp(const char *path, const struct stat *st, out_file *o, wc_err *err)
{
    /* Read-only means read-only for root too (whose writes the mode does
     * not stop): the file's owner said so, as rm and vi take it. */
    if (st) {
        int denied = faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS) != 0;
        WC_RETURN_IF(denied || !(st->st_mode & 0222), err, WC_ERR_IO,
                     "%s: not replaced: the file is not writable (mode %04o)", path,
                     (unsigned)(st->st_mode & 07777));
    }
    int fd = create_temp(o->target, &o->tmp, &o->slot);
    WC_RETURN_IF(fd < 0, err, WC_ERR_IO, "%s: cannot create a file there: %s", path,
                 strerror(errno));
    int bad = 0;
    if (st) {
        if (st->st_uid != geteuid() || st->st_gid != getegid())
            (void)!fchown(fd, st->st_uid, st->st_gid); /* only root may give files away */
        bad = fchmod(fd, st->st_mode & 07777) != 0;
    }
    o->fp = bad ? NULL : fdopen(fd, "wb");
    if (!o->fp) {
        int e = errno;
        close(fd);
        return wc_fail(err, WC_ERR_IO, "%s: cannot prepare %s: %s", path, o->tmp, strerror(e));
    }
    return WC_OK;
}

static wc_status out_open(const char *path, out_file *o, wc_err *err)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    WC_RETURN_IF(!path || !*path, err, WC_ERR_ARG, "no output path");
    if (!strcmp(path, "-")) {
        int fd = dup(STDOUT_FILENO);
        WC_RETURN_IF(fd < 0, err, WC_ERR_IO, "standard output: %s", strerror(errno));
        o->fp = fdopen(fd, "wb");
        if (!o->fp) close(fd);
        WC_RETURN_IF(!o->fp, err, WC_ERR_NOMEM, "standard output: out of memory");
        return WC_OK;
    }
    int e = resolve_links(path, &o->target);
    WC_RETURN_IF(e != 0, err, e == ENOMEM ? WC_ERR_NOMEM : WC_ERR_IO, "%s: %s", path, strerror(e));
    struct stat st;
    if (stat(o->target, &st) != 0) {
        WC_RETURN_IF(errno != ENOENT, err, WC_ERR_IO, "%s: %s", path, strerror(errno));
        return open_temp(path, NULL, o, err);
    }
    if (S_ISREG(st.st_mode)) return open_temp(path, &st, o, err);
    return open_in_place(path, &st, o, err);
}

/* Closes the output; a finished temporary file is renamed into place, a
 * failed one removed. Returns s, or the first error closing it. */
static wc_status out_close(const char *path, out_file *o, wc_status s, wc_err *err)
{
    if (o->fp) {
        int bad = fflush(o->fp) != 0 || (o->tmp && fsync(fileno(o->fp)) != 0);
        int e = errno;
        bad |= fclose(o->fp) != 0;
        if (bad && s == WC_OK)
            s = wc_fail(err, WC_ERR_IO, "%s: write failed: %s", path, strerror(bad ? e : errno));
    }
    if (o->tmp) {
        if (s == WC_OK && rename(o->tmp, o->target) != 0)
            s = wc_fail(err, WC_ERR_IO, "%s: cannot rename the finished file into place: %s", path,
                        strerror(errno));
        if (s != WC_OK) unlink(o->tmp);
        live_remove(o->slot);
    }
    wc_free(o->tmp);
    wc_free(o->target);
    return s;
}

struct file_out {
    out_file o;
};

wc_status file_out_open(const char *path, file_out **o, FILE **fp, wc_err *err)
{
    *o = wc_calloc(1, sizeof **o);
    WC_RETURN_IF(!*o, err, WC_ERR_NOMEM, "out of memory");
    wc_status s = out_open(path, &(*o)->o, err);
    if (s != WC_OK) {
        wc_free(*o);
        *o = NULL;
        return s;
    }
    *fp = (*o)->o.fp;
    return WC_OK;
}

wc_status file_out_close(const char *path, file_out *o, wc_status s, wc_err *err)
{
    if (!o) return s;
    const char *name = !path ? "" : !strcmp(path, "-") ? "standard output" : path;
    s = out_close(name, &o->o, s, err);
    wc_free(o);
    return s;
}

typedef wc_status (*write_fn)(FILE *fp, const char *name, const void *arg, wc_err *err);

static wc_status write_output(const char *path, write_fn fn, const void *arg, wc_err *err)
{
    out_file o;
    wc_status s = out_open(path, &o, err);
    const char *name = !path ? "" : !strcmp(path, "-") ? "standard output" : path;
    if (s == WC_OK) s = fn(o.fp, name, arg, err);
    return out_close(name, &o, s, err);
}

typedef struct bytes {
    const void *data;
    size_t size;
} bytes;

static wc_status write_bytes(FILE *fp, const char *name, const void *arg, wc_err *err)
{
    const bytes *b = arg;
    size_t put = b->size ? fwrite(b->data, 1, b->size, fp) : 0;
    WC_RETURN_IF(put != b->size, err, WC_ERR_IO, "%s: write failed: %s", name, strerror(errno));
    return WC_OK;
}

wc_status file_write(const char *path, const void *data, size_t size, wc_err *err)
{
    bytes b = {data, size};
    return write_output(path, write_bytes, &b, err);
}

/* file_write_with: write_output with the caller's writer and argument. */
typedef struct with_arg {
    file_writer_fn fn;
    void *arg;
} with_arg;

static wc_status write_with(FILE *fp, const char *name, const void *arg, wc_err *err)
{
    const with_arg *w = arg;
    return w->fn(fp, name, w->arg, err);
}

wc_status file_write_with(const char *path, file_writer_fn fn, void *arg, wc_err *err)
{
    with_arg w = {fn, arg};
    return write_output(path, write_with, &w, err);
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

static wc_status write_png(FILE *fp, const char *name, const void *arg, wc_err *err)
{
    return png_write_fp(fp, name, arg, err);
}

static wc_status write_pnm(FILE *fp, const char *name, const void *arg, wc_err *err)
{
    return pnm_write_fp(fp, name, arg, err);
}

image_format image_format_of(const char *path)
{
    if (!path) return IMAGE_PNG;
    if (ends_with(path, ".pgm") || ends_with(path, ".ppm") || ends_with(path, ".pnm"))
        return IMAGE_PNM;
    if (ends_with(path, ".tif") || ends_with(path, ".tiff")) return IMAGE_TIFF;
    return IMAGE_PNG;
}

wc_status image_write_format(const char *path, const wc_image *img, image_format format,
                             wc_err *err)
{
    return image_write_meta(path, img, NULL, format, NULL, err);
}

/* A PNG in memory (open_memstream), for the metadata chunks to go in. */
static wc_status png_to_memory(const wc_image *img, const char *name, uint8_t **out, size_t *size,
                               wc_err *err)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    WC_RETURN_IF(!fp, err, WC_ERR_NOMEM, "%s: out of memory", name);
    wc_status s = png_write_fp(fp, name, img, err);
    if (fclose(fp) != 0 && s == WC_OK) s = wc_fail(err, WC_ERR_NOMEM, "%s: out of memory", name);
    if (s != WC_OK) {
        free(buf);
        return s;
    }
    *out = (uint8_t *)buf;
    *size = n;
    return WC_OK;
}

wc_status image_write_meta(const char *path, const wc_image *img, const wc_meta *meta,
                           image_format format, unsigned *dropped, wc_err *err)
{
    if (dropped) *dropped = 0;
    WC_RETURN_IF(!path || !img || !img->pixels, err, WC_ERR_ARG, "missing argument");
    if (format == IMAGE_BY_NAME) format = image_format_of(path);
    const char *name = !strcmp(path, "-") ? "standard output" : path;
    wc_err e = {{0}};
    uint8_t *buf = NULL;
    size_t size = 0;
    wc_status s;
    switch (format) {
    case IMAGE_PNM:
        if (dropped)
            for (size_t i = 0; i < wc_meta_count(meta); i++)
                *dropped |= 1u << wc_meta_get(meta, i)->kind;
        return write_output(path, write_pnm, img, err);
    case IMAGE_TIFF:
        s = tiff_write_mem(img, meta, &buf, &size, dropped, &e);
        if (s != WC_OK) return wc_fail(err, s, "%s: %s", name, e.msg);
        s = file_write(path, buf, size, err);
        wc_free(buf);
        return s;
    default:
        if (wc_meta_count(meta) == 0) return write_output(path, write_png, img, err);
        WC_FORWARD_IF_ERROR(png_to_memory(img, name, &buf, &size, err));
        uint8_t *png = NULL;
        size_t png_size = 0;
        s = png_meta_insert(buf, size, meta, &png, &png_size, &e);
        free(buf);
        if (s != WC_OK) return wc_fail(err, s, "%s: %s", name, e.msg);
        s = file_write(path, png, png_size, err);
        wc_free(png);
        return s;
    }
}

wc_status image_write(const char *path, const wc_image *img, wc_err *err)
{
    return image_write_format(path, img, IMAGE_BY_NAME, err);
}

/* ---- inputs --------------------------------------------------------------- */

/* Opens path ("-": standard input, not closed by in_close) and says its
 * size when it is a regular file (else 0). */
static wc_status in_open(const char *path, FILE **fp, uint64_t *size, wc_err *err)
{
    WC_RETURN_IF(!path || !*path, err, WC_ERR_ARG, "no input path");
    *fp = !strcmp(path, "-") ? stdin : fopen(path, "rb");
    WC_RETURN_IF(!*fp, err, WC_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    *size = fstat(fileno(*fp), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    if (*fp != stdin && fstat(fileno(*fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(*fp);
        return wc_fail(err, WC_ERR_IO, "%s: is a directory", path);
    }
    return WC_OK;
}

static void in_close(FILE *fp)
{
    if (fp && fp != stdin) fclose(fp); /* read-only: a close error loses nothing */
}

static const char *in_name(const char *path)
{
    return !strcmp(path, "-") ? "standard input" : path;
}

/* Appends the rest of fp to buf[0..*n), growing it (doubling from 64 KiB)
 * to at most max bytes; more is WC_ERR_LIMIT. */
static wc_status read_rest(FILE *fp, const char *name, size_t max, uint8_t **buf, size_t *n,
                           size_t *cap, wc_err *err)
{
    for (;;) {
        if (*n == *cap) {
            WC_RETURN_IF(*cap >= max, err, WC_ERR_LIMIT,
                         "%s: larger than %zu bytes, the most the limits allow", name, max);
            size_t ncap = *cap < (1 << 16) ? 1 << 16 : *cap * 2;
            ncap = ncap > max ? max : ncap;
            uint8_t *nb = wc_realloc(*buf, ncap);
            WC_RETURN_IF(!nb, err, WC_ERR_NOMEM, "%s: out of memory (%zu bytes)", name, ncap);
            *buf = nb;
            *cap = ncap;
        }
        size_t got = fread(*buf + *n, 1, *cap - *n, fp);
        *n += got;
        if (got == 0) {
            WC_RETURN_IF(ferror(fp), err, WC_ERR_IO, "%s: read error: %s", name, strerror(errno));
            return WC_OK;
        }
    }
}

wc_status file_read(const char *path, size_t max_bytes, void **data, size_t *size, wc_err *err)
{
    WC_RETURN_IF(!path || !data || !size, err, WC_ERR_ARG, "missing argument");
    if (max_bytes == 0) max_bytes = (size_t)4 << 30;
    FILE *fp = NULL;
    uint64_t fsize = 0;
    WC_FORWARD_IF_ERROR(in_open(path, &fp, &fsize, err));
    const char *name = in_name(path);
    wc_status s = WC_OK;
    if (fsize > max_bytes)
        s = wc_fail(err, WC_ERR_LIMIT, "%s: %llu bytes, larger than %zu", name,
                    (unsigned long long)fsize, max_bytes);
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    if (s == WC_OK && fsize) { /* a regular file: one buffer, one byte more to meet the end */
        cap = (size_t)fsize + 1 < max_bytes ? (size_t)fsize + 1 : max_bytes;
        buf = wc_malloc(cap);
        if (!buf) s = wc_fail(err, WC_ERR_NOMEM, "%s: out of memory", name);
    }
    if (s == WC_OK) s = read_rest(fp, name, max_bytes, &buf, &n, &cap, err);
    in_close(fp);
    if (s != WC_OK) {
        wc_free(buf);
        return s;
    }
    *data = buf;
    *size = n;
    return WC_OK;
}

static int is_tiff(const uint8_t *d, size_t n)
{
    return n >= 4 && ((d[0] == 'I' && d[1] == 'I' && (d[2] == 42 || d[2] == 43) && d[3] == 0) ||
                      (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && (d[3] == 42 || d[3] == 43)));
}

/* The rest of src->fp after head, whole, in one buffer: at most the memory
 * limit (or WC_DEFAULT_MAX_MEMORY), and a regular file's size is compared
 * with that first. */
static wc_status read_whole(const img_source *src, const img_limits *lim, uint8_t **data,
                            size_t *size, wc_err *err)
{
    uint64_t max = lim && lim->max_memory ? lim->max_memory : WC_DEFAULT_MAX_MEMORY;
    if (max > SIZE_MAX / 2) max = SIZE_MAX / 2;
    WC_RETURN_IF(src->file_size > max, err, WC_ERR_LIMIT,
                 "%llu bytes, over the memory limit of %llu", (unsigned long long)src->file_size,
                 (unsigned long long)max);
    size_t cap = src->file_size ? (size_t)src->file_size + 1 : src->head_size;
    if (cap > max) cap = (size_t)max;
    if (cap < src->head_size) cap = src->head_size;
    uint8_t *buf = wc_malloc(cap ? cap : 1);
    WC_RETURN_IF(!buf, err, WC_ERR_NOMEM, "out of memory");
    memcpy(buf, src->head, src->head_size);
    size_t n = src->head_size;
    wc_err e = {{0}};
    wc_status s = read_rest(src->fp, "input", (size_t)max, &buf, &n, &cap, &e);
    if (s != WC_OK) {
        wc_free(buf);
        /* read_rest names "input"; the caller puts the path first. */
        const char *msg = strncmp(e.msg, "input: ", 7) ? e.msg : e.msg + 7;
        return wc_fail(err, s, "%s", msg);
    }
    *data = buf;
    *size = n;
    return WC_OK;
}

/* Reads an image with the readers of image_io.h, recognised by its first
 * bytes, which are read (not the rest) before the header is checked. A
 * TIFF (random access) is read whole, as is a PNG whose metadata is
 * wanted, within the memory limit. */
static wc_status read_image(const char *path, const img_limits *lim, unsigned page, wc_image *img,
                            wc_meta *meta, unsigned *pages, wc_err *err)
{
    WC_RETURN_IF(!path || !img, err, WC_ERR_ARG, "missing argument");
    memset(img, 0, sizeof *img);
    if (pages) *pages = 1;
    FILE *fp = NULL;
    uint64_t fsize = 0;
    WC_FORWARD_IF_ERROR(in_open(path, &fp, &fsize, err));
    const char *name = in_name(path);
    uint8_t head[8];
    size_t got = fread(head, 1, sizeof head, fp);
    wc_err e = {{0}};
    wc_status s;
    img_source src = {head, got, fp, name, fsize};
    const int png = got >= 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0;
    const int tiff = is_tiff(head, got);
    uint8_t *whole = NULL;
    size_t whole_size = 0;
    if (got < sizeof head && ferror(fp))
        s = wc_fail(&e, WC_ERR_IO, "read error: %s", strerror(errno));
    else if (page > 1 && !tiff)
        s = wc_fail(&e, WC_ERR_ARG, "--page %u: only TIFF files have pages", page);
    else if (tiff) {
        s = read_whole(&src, lim, &whole, &whole_size, &e);
        if (s == WC_OK) s = tiff_read_lim(whole, whole_size, page, lim, img, meta, pages, &e);
    } else if (png && meta) {
        s = read_whole(&src, lim, &whole, &whole_size, &e);
        /* A pipe stays a pipe (file_size 0): the limits are checked as for one. */
        img_source mem = {whole, whole_size, NULL, name, fsize ? whole_size : 0};
        if (s == WC_OK) s = png_read_src(&mem, lim, img, &e);
        if (s == WC_OK && (s = png_meta_read(whole, whole_size, meta, &e)) != WC_OK)
            wc_image_free(img);
    } else if (png)
        s = png_read_src(&src, lim, img, &e);
    else if (got >= 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '7')
        s = pnm_read_src(&src, lim, img, &e);
    else
        s = wc_fail(&e, WC_ERR_FORMAT, "not a PNG, TIFF, PGM or PPM image");
    wc_free(whole);
    in_close(fp);
    if (s != WC_OK) wc_fail(err, s, "%s: %s", name, e.msg);
    return s;
}

wc_status image_read(const char *path, uint64_t max_pixels, wc_image *img, wc_err *err)
{
    /* The default memory limit too: a PNG row is read whole by libpng, so
     * one claimed row of 2^31 pixels would cost gigabytes even from a pipe. */
    img_limits lim = {max_pixels, WC_DEFAULT_MAX_MEMORY, NULL, NULL};
    return read_image(path, &lim, 0, img, NULL, NULL, err);
}

static uint64_t encode_need(const wc_image *shape, const void *p)
{
    return wc_encode_memory(shape, p);
}

wc_status image_read_for_encode(const char *path, const wc_params *p, wc_image *img, wc_err *err)
{
    wc_params d;
    if (!p) {
        wc_params_init(&d);
        p = &d;
    }
    img_limits lim = {p->max_pixels, p->max_memory, encode_need, p};
    return read_image(path, &lim, 0, img, NULL, NULL, err);
}

wc_status image_read_meta(const char *path, const wc_params *p, unsigned page, wc_image *img,
                          wc_meta *meta, unsigned *pages, wc_err *err)
{
    wc_params d;
    if (!p) {
        wc_params_init(&d);
        p = &d;
    }
    img_limits lim = {p->max_pixels, p->max_memory, encode_need, p};
    return read_image(path, &lim, page, img, meta, pages, err);
}

/* Reads a .wcx file whole, but the signature and header chunk first: what
 * they allow under p's limits bounds the rest (wc_decode_check_head, whose
 * message is copied from ctx). For a region or a reduced image the whole
 * decode's need is not the question (wc_decode_region checks the region's
 * own, file included, before it allocates): the head is checked without the
 * memory limit, and the limit then bounds the file's bytes alone. */
static wc_status read_wcx(wc_ctx *ctx, const wc_params *p, const char *path, int region,
                          uint8_t **data, size_t *size, wc_err *err)
{
    FILE *fp = NULL;
    uint64_t fsize = 0;
    WC_FORWARD_IF_ERROR(in_open(path, &fp, &fsize, err));
    const char *name = in_name(path);
    size_t cap = WC_DECODE_HEAD_BYTES, n = 0, max = 0;
    uint8_t *buf = wc_malloc(cap);
    wc_status s = buf ? WC_OK : wc_fail(err, WC_ERR_NOMEM, "out of memory");
    if (s == WC_OK) {
        n = fread(buf, 1, cap, fp);
        if (n < cap && ferror(fp))
            s = wc_fail(err, WC_ERR_IO, "%s: read error: %s", name, strerror(errno));
    }
    wc_params head_p;
    if (p)
        head_p = *p;
    else
        wc_params_init(&head_p);
    const uint64_t limit = head_p.max_memory;
    if (region) head_p.max_memory = 0;
    if (s == WC_OK) {
        s = wc_decode_check_head(ctx, &head_p, buf, n, fsize, &max);
        if (s != WC_OK) wc_fail(err, s, "%s", wc_ctx_error(ctx));
    }
    if (s == WC_OK && region && limit && max > limit) max = (size_t)limit;
    if (s == WC_OK && n == cap) s = read_rest(fp, name, max, &buf, &n, &cap, err);
    in_close(fp);
    if (s != WC_OK) {
        wc_free(buf);
        return s;
    }
    *data = buf;
    *size = n;
    return WC_OK;
}

wc_status decode_file_region(wc_ctx *ctx, const wc_params *p, const char *path,
                             const wc_region *region, wc_image *out, wc_meta *meta, wc_err *err)
{
    WC_RETURN_IF(!ctx || !out, err, WC_ERR_ARG, "missing argument");
    memset(out, 0, sizeof *out);
    uint8_t *buf = NULL;
    size_t n = 0;
    WC_FORWARD_IF_ERROR(read_wcx(ctx, p, path, region != NULL, &buf, &n, err));
    wc_status s =
        region ? wc_decode_region(ctx, p, buf, n, region, out) : wc_decode(ctx, p, buf, n, out);
    if (s == WC_OK && meta && (s = wc_meta_read(ctx, buf, n, meta)) != WC_OK) wc_image_free(out);
    wc_free(buf);
    if (s != WC_OK) wc_fail(err, s, "%s", wc_ctx_error(ctx));
    return s;
}

wc_status decode_file_meta(wc_ctx *ctx, const wc_params *p, const char *path, wc_image *out,
                           wc_meta *meta, wc_err *err)
{
    return decode_file_region(ctx, p, path, NULL, out, meta, err);
}

wc_status decode_file(wc_ctx *ctx, const wc_params *p, const char *path, wc_image *out, wc_err *err)
{
    return decode_file_meta(ctx, p, path, out, NULL, err);
}

wc_status inspect_file_meta(wc_ctx *ctx, const char *path, wc_info *info, wc_meta *meta,
                            wc_err *err)
{
    WC_RETURN_IF(!ctx || !info, err, WC_ERR_ARG, "missing argument");
    uint8_t *buf = NULL;
    size_t n = 0;
    /* Listing decodes nothing: the file is read (up to the default
     * memory limit) but the whole decode's need is not asked for, as a
     * region's is not. */
    WC_FORWARD_IF_ERROR(read_wcx(ctx, NULL, path, 1, &buf, &n, err));
    wc_status s = wc_inspect(ctx, buf, n, info);
    if (s == WC_OK && meta) s = wc_meta_read(ctx, buf, n, meta);
    wc_free(buf);
    if (s != WC_OK) wc_fail(err, s, "%s", wc_ctx_error(ctx));
    return s;
}

wc_status inspect_file(wc_ctx *ctx, const char *path, wc_info *info, wc_err *err)
{
    return inspect_file_meta(ctx, path, info, NULL, err);
}

void image_io_versions(char *buf, size_t cap)
{
    /* TIFFGetVersion() is "LIBTIFF, Version 4.5.0\nCopyright ...". */
    const char *t = strstr(TIFFGetVersion(), "Version ");
    int tn = t ? (int)strcspn(t + 8, "\n") : 1;
    snprintf(buf, cap, "libpng %s, libtiff %.*s, zlib %s", png_get_libpng_ver(NULL), tn,
             t ? t + 8 : "?", zlibVersion());
}
