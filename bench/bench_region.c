/*
 * bench_region.c -- what a region or a thumbnail of a big image costs
 * against the whole decode (issue 15): a SIDE x SIDE RGB photograph (tiled
 * Kodak, 16384 by default) coded lossless (5/3) and lossy (9/7 q75); then,
 * at 1 and 2 threads (or the THREADS given), the median time and peak
 * memory of the whole decode, of a 1024 x 1024 region in the middle
 * (wc_decode_region) and of --reduce 3 (the 2048 x 2048 thumbnail). Each
 * decode runs in a child process, which frees what it inherited but its
 * file and restarts its peak resident memory (VmHWM, /proc/self/clear_refs)
 * before decoding: the file, which every decode holds, is counted in all;
 * est is the estimate wc_decode_region checks max_memory against. The
 * region and the thumbnail run twice: with the chunk CRCs by wc_crc32
 * (container/crc32_fast.c, the CPU's best way) and, as the peer, by zlib's
 * crc32; all the decodes of a file are interleaved run by run.
 * Prints numbers; asserts nothing.
 *
 * usage: bench_region [KODAK_DIR] [SIDE] [RUNS] [THREADS]
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "bench_photo.h"
#include "context.h"
#include "crc32_fast.h"
#include "wcodec.h"

static void *others[2]; /* both files: a child frees the one it does not decode */

/* The process's peak resident set (VmHWM) in KiB, 0 if unknown. */
static long hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kib = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kib;
}

/* One decode in a child: its seconds and its peak RSS (KiB) through a pipe.
 * r NULL: the whole image (wc_decode). */
static int decode_once(const void *file, size_t n, const wc_region *r, int threads, int zlib_crc,
                       double *secs, long *peak_kib)
{
    int fd[2];
    if (pipe(fd)) return 1;
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        close(fd[0]);
        /* The other files and the parent's pages count in a forked child:
         * free them, then start the peak (VmHWM) afresh. */
        for (int k = 0; k < 2; k++)
            if (others[k] != file) wc_free(others[k]);
        malloc_trim(0); /* glibc: give back the free heap the parent left */
        FILE *f = fopen("/proc/self/clear_refs", "w");
        if (f) fputs("5", f), fclose(f);
        if (zlib_crc) wc_crc32_use(WC_CRC32_ZLIB); /* the peer: chunk CRCs as before */
        wc_ctx *ctx = wc_ctx_create();
        wc_params p;
        wc_params_init(&p);
        p.threads = threads;
        p.backend = WC_BACKEND_CPU;
        p.max_memory = 0;
        wc_image out;
        double t0 = bench_now();
        wc_status s =
            r ? wc_decode_region(ctx, &p, file, n, r, &out) : wc_decode(ctx, &p, file, n, &out);
        double res[2] = {bench_now() - t0, (double)hwm_kib()};
        if (s != WC_OK) fprintf(stderr, "bench_region: decode failed: %s\n", wc_ctx_error(ctx));
        if (write(fd[1], res, sizeof res) != (ssize_t)sizeof res) s = WC_ERR_IO;
        _exit(s == WC_OK ? 0 : 1);
    }
    close(fd[1]);
    int st = 0;
    double res[2];
    ssize_t got = read(fd[0], res, sizeof res);
    close(fd[0]);
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || got != sizeof res)
        return 1;
    *secs = res[0];
    *peak_kib = (long)res[1];
    return 0;
}

/* The decodes compared: the whole image, then regions and thumbnails with
 * the chunk CRCs by wc_crc32 (the CPU's best) and by zlib's crc32. */
enum { KINDS = 5 };

/* runs of each kind, interleaved (whole, region, ... , whole, region, ...)
 * so that the machine's load falls on all alike: medians and peaks. */
static int measure(const void *file, size_t n, const wc_region *const r[KINDS],
                   const int zlib_crc[KINDS], int threads, int runs, double med[KINDS],
                   long peak[KINDS])
{
    double t[KINDS][32] = {{0}};
    if (runs > 32) runs = 32;
    if (runs < 1) runs = 1;
    for (int k = 0; k < KINDS; k++) peak[k] = 0;
    for (int i = 0; i < runs; i++)
        for (int k = 0; k < KINDS; k++) {
            long kib = 0;
            if (decode_once(file, n, r[k], threads, zlib_crc[k], &t[k][i], &kib)) return 1;
            if (kib > peak[k]) peak[k] = kib;
        }
    for (int k = 0; k < KINDS; k++) {
        qsort(t[k], (size_t)runs, sizeof t[k][0], bench_cmp_double);
        med[k] = t[k][runs / 2];
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/corpus/kodak";
    const uint32_t side = argc > 2 ? (uint32_t)atoi(argv[2]) : 16384;
    const int runs = argc > 3 ? atoi(argv[3]) : 3;
    const int only_threads = argc > 4 ? atoi(argv[4]) : 0;
    if (side < 2048 || runs < 1) {
        fprintf(stderr, "usage: bench_region [KODAK_DIR] [SIDE >= 2048] [RUNS] [THREADS]\n");
        return 1;
    }
    static const struct {
        const char *name;
        int lossless, wavelet;
    } modes[] = {{"lossless 5/3", 1, 53}, {"lossy 9/7 q75", 0, 97}};
    void *files[2] = {NULL, NULL};
    size_t sizes[2] = {0, 0};
    {
        wc_image img;
        if (bench_photo("bench_region", dir, side, &img)) return 1;
        wc_ctx *ctx = wc_ctx_create();
        for (int m = 0; m < 2; m++) {
            wc_params p;
            wc_params_init(&p);
            p.lossless = modes[m].lossless;
            p.wavelet = modes[m].wavelet;
            /* 5 levels: the automatic lossless layout took 0 levels for
             * the 16384^2 tiled photograph, which has no reduce 3 */
            p.levels = 5;
            p.backend = WC_BACKEND_CPU;
            p.max_memory = 0;
            if (wc_encode_alloc(ctx, &p, &img, &files[m], &sizes[m]) != WC_OK) {
                fprintf(stderr, "bench_region: encode failed: %s\n", wc_ctx_error(ctx));
                return 1;
            }
        }
        wc_ctx_free(ctx);
        wc_image_free(&img); /* the children hold the files only */
        others[0] = files[0];
        others[1] = files[1];
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("wcodec %s, %ux%u RGB photograph (tiled Kodak), CPU backend, %ld cores, median of "
           "%d runs;\npeak = the decoding process's peak RSS, the file included\n",
           wc_version_string(), side, side, cpus, runs);
    printf("%-14s %7s %-22s %9s %9s %9s %9s\n", "file", "threads", "decode", "ms", "vs whole",
           "peak MiB", "est MiB");
    const wc_region region = {side / 2 - 512, side / 2 - 512, 1024, 1024, 0};
    const wc_region thumb = {0, 0, 0, 0, 3};
    for (int m = 0; m < 2; m++)
        for (int threads = 1; threads <= (only_threads > 2 ? only_threads : 2); threads++) {
            if (only_threads && threads != only_threads && threads != 1) continue;
            const wc_region *kinds[KINDS] = {NULL, &region, &thumb, &region, &thumb};
            static const int zlib_crc[KINDS] = {0, 0, 0, 1, 1};
            static const char *const names[KINDS] = {"whole", "region 1024x1024",
                                                     "reduce 3 (thumbnail)", "region, zlib crc32",
                                                     "reduce 3, zlib crc32"};
            double t[KINDS];
            long pk[KINDS];
            if (measure(files[m], sizes[m], kinds, zlib_crc, threads, runs, t, pk)) {
                fprintf(stderr, "bench_region: a decode failed\n");
                return 1;
            }
            wc_ctx *ctx = wc_ctx_create();
            const double er =
                dec_region_memory(ctx, files[m], sizes[m], &region, threads) / 1048576.0;
            const double et =
                dec_region_memory(ctx, files[m], sizes[m], &thumb, threads) / 1048576.0;
            wc_ctx_free(ctx);
            printf("%-14s %7d %-22s %9.1f %9s %9.1f %9s\n", modes[m].name, threads, names[0],
                   t[0] * 1e3, "1", pk[0] / 1024.0, "-");
            for (int k = 1; k < KINDS; k++)
                printf("%-14s %7d %-22s %9.1f %9.4f %9.1f %9.1f\n", modes[m].name, threads,
                       names[k], t[k] * 1e3, t[k] / t[0], pk[k] / 1024.0, k % 2 ? er : et);
            fflush(stdout);
        }
    printf("file sizes: lossless %.1f MB, lossy %.1f MB\n", sizes[0] / 1e6, sizes[1] / 1e6);
    for (int m = 0; m < 2; m++) wc_free(files[m]);
    return 0;
}
