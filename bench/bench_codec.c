/*
 * bench_codec.c -- CPU codec throughput on a large photograph: lossless
 * (5/3) encode and decode, lossy 9/7 and DCT encode, at 1 and 2 threads.
 * Prints medians of several runs; not a test (speed is measured, never
 * asserted).
 *
 * usage: bench_codec [KODAK_DIR] [SIDE|WxH] [RUNS] [MODE] [THREADS]
 * MODE keeps the modes whose name contains it ("5/3", "DCT"), or only
 * the one whose name it is ("lossless 5/3": not its arith twin); THREADS
 * runs only that thread count, or the counts of a list ("1,2,4,8,16":
 * the scaling of one build in one run). The image is SIDE x SIDE (or
 * W x H: 7680x4320 is an 8K frame) RGB made by tiling the Kodak
 * photographs (mirrored at every other tile so edges stay continuous).
 * "enc flt" and "dec flt" are the minor page faults of one call (median;
 * the first call on a fresh context is among the runs): pages the call
 * touched for the first time, its own buffers' and the caller's.
 * BENCH_REUSE=1 codes into the caller's buffers, kept from call to call
 * (wc_encode into one wc_encode_bound buffer, wc_decode_into one image),
 * as a program coding many frames does: the codec's own time, without
 * the first touch of a fresh file and image (see the faults columns).
 * BENCH_TIMES=1 in the environment adds the last run's split (wc_times:
 * transform, entropy, container, and the rest) for finding serial time.
 * BENCH_PROBE=1 adds, for each thread count T, one encode and decode
 * under parallel.h's scaling probe: their items timed on one thread, the
 * time outside every loop (the serial part, Amdahl's f), the span T
 * workers would take, the speedup that predicts on a T-core host, and
 * the loops that lose the most to imbalance (named by addr2line).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_photo.h"
#include "image_io.h"
#include "parallel.h"
#include "wcodec.h"

typedef struct result {
    double enc, dec;
    double enc_faults, dec_faults; /* minor page faults of a call, median */
    size_t size;
    wc_times te, td; /* the split of the last encode and decode */
} result;

/* Minor page faults of the whole process so far (every thread's). */
static double minor_faults(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) ? 0.0 : (double)u.ru_minflt;
}

/* One encode: a fresh file (wc_encode_alloc, *buf replaced), or into the
 * caller's buffer *buf of *cap bytes, kept (reuse). */
static wc_status encode_once(wc_ctx *ctx, const wc_params *p, const wc_image *img, int reuse,
                             void **buf, size_t *cap, size_t *size)
{
    if (!reuse) {
        free(*buf);
        *buf = NULL;
        return wc_encode_alloc(ctx, p, img, buf, size);
    }
    if (!*buf) {
        *cap = wc_encode_bound(img, p);
        if (!*cap || !(*buf = malloc(*cap))) return WC_ERR_NOMEM;
    }
    return wc_encode(ctx, p, img, *buf, *cap, size);
}

/* One decode: a fresh image (wc_decode), or into *back, kept (reuse). */
static wc_status decode_once(wc_ctx *ctx, const wc_params *p, const wc_image *img, int reuse,
                             const void *buf, size_t size, wc_image *back)
{
    if (!reuse) return wc_decode(ctx, p, buf, size, back);
    if (!back->pixels) {
        *back = *img;
        back->pixels = NULL;
        back->stride = 0;
        if (wc_image_alloc(back) != WC_OK) return WC_ERR_NOMEM;
    }
    return wc_decode_into(ctx, p, buf, size, back);
}

static int run(const wc_image *img, wc_params *p, int runs, int decode, int reuse, result *r)
{
    wc_ctx *ctx = wc_ctx_create();
    /* cppcheck cannot see that main asks runs >= 1 */
    double te[64] = {0}, td[64] = {0}, fe[64] = {0}, fd[64] = {0};
    void *buf = NULL;
    size_t size = 0, cap = 0;
    wc_image back;
    memset(&back, 0, sizeof back);
    if (runs > 64) runs = 64;
    for (int i = 0; i < runs; i++) {
        double f0 = minor_faults(), t0 = bench_now();
        if (encode_once(ctx, p, img, reuse, &buf, &cap, &size) != WC_OK) {
            fprintf(stderr, "bench_codec: encode failed: %s\n", wc_ctx_error(ctx));
            return 1;
        }
        te[i] = bench_now() - t0;
        fe[i] = minor_faults() - f0;
        wc_ctx_times(ctx, &r->te);
        td[i] = fd[i] = 0;
        if (!decode) continue;
        f0 = minor_faults();
        t0 = bench_now();
        if (decode_once(ctx, p, img, reuse, buf, size, &back) != WC_OK) {
            fprintf(stderr, "bench_codec: decode failed: %s\n", wc_ctx_error(ctx));
            return 1;
        }
        td[i] = bench_now() - t0;
        fd[i] = minor_faults() - f0;
        wc_ctx_times(ctx, &r->td);
        if (p->lossless && memcmp(back.pixels, img->pixels, (size_t)img->width * img->height * 3)) {
            fprintf(stderr, "bench_codec: lossless round trip differs\n");
            return 1;
        }
        if (!reuse) wc_image_free(&back);
    }
    wc_image_free(&back);
    qsort(te, (size_t)runs, sizeof(double), bench_cmp_double);
    qsort(td, (size_t)runs, sizeof(double), bench_cmp_double);
    qsort(fe, (size_t)runs, sizeof(double), bench_cmp_double);
    qsort(fd, (size_t)runs, sizeof(double), bench_cmp_double);
    r->enc_faults = fe[runs / 2];
    r->dec_faults = fd[runs / 2];
    r->enc = te[runs / 2];
    r->dec = td[runs / 2];
    r->size = size;
    free(buf);
    wc_ctx_free(ctx);
    return 0;
}

/* The name of an item function, from addr2line on this program. */
static void site_name(void (*fn)(void *, size_t, int), char *name, size_t cap)
{
    snprintf(name, cap, "?");
    Dl_info info;
    void *addr;
    memcpy(&addr, &fn, sizeof addr);
    if (!dladdr(addr, &info) || !info.dli_fname) return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "addr2line -f -e '%s' %#lx 2>/dev/null", info.dli_fname,
             (unsigned long)((char *)addr - (char *)info.dli_fbase));
    FILE *f = popen(cmd, "r");
    if (!f) return;
    if (fgets(name, (int)cap, f)) name[strcspn(name, "\n")] = '\0';
    pclose(f);
}

static void probe_print(const char *what, double total, const wc_probe *pr, int threads)
{
    /* The probe's own clock reads are neither serial nor parallel work. */
    total -= pr->overhead_s;
    const double serial = total - pr->run_s, pred = serial + pr->span_s;
    printf("  probe %s at %d threads: %.3f CPU s on one thread, loops %.3f (%lu, %lu nested), "
           "serial %.3f (f = %.1f%%), span %.3f -> %.3f s, predicted speedup %.2f\n",
           what, threads, total, pr->run_s, pr->loops, pr->nested, serial, 100 * serial / total,
           pr->span_s, pred, total / pred);
    /* The sites, most lost to imbalance and serial work (span beyond an even share) first. */
    int order[WC_PROBE_SITES];
    for (int i = 0; i < pr->nsites; i++) order[i] = i;
    for (int i = 1; i < pr->nsites; i++)
        for (int k = i; k > 0; k--) {
            const wc_probe_site *a = &pr->site[order[k]], *b = &pr->site[order[k - 1]];
            if (a->gap_s + a->span_s - a->run_s / a->width <=
                b->gap_s + b->span_s - b->run_s / b->width)
                break;
            const int x = order[k];
            order[k] = order[k - 1];
            order[k - 1] = x;
        }
    double gaps = 0;
    for (int i = 0; i < pr->nsites; i++) gaps += pr->site[i].gap_s;
    printf("    serial after the last loop (and sites past the table) %.3f\n", serial - gaps);
    for (int i = 0; i < pr->nsites; i++) {
        const wc_probe_site *st = &pr->site[order[i]];
        char name[200];
        site_name(st->fn, name, sizeof name);
        printf("    %-22s calls %3lu items %7lu width %2d run %.3f span %.3f (even %.3f) "
               "serial before %.3f\n",
               name, st->calls, st->items, st->width, st->run_s, st->span_s, st->run_s / st->width,
               st->gap_s);
    }
}

/* One encode and decode under the probe (after run(): buffers warm). */
static int probe(const wc_image *img, const wc_params *p)
{
    wc_ctx *ctx = wc_ctx_create();
    void *buf = NULL;
    size_t size = 0;
    wc_image back;
    wc_probe pr;
    int bad = 0;
    for (int pass = 0; pass < 2 && !bad; pass++) { /* the first warms the context's pool */
        free(buf);
        buf = NULL;
        wc_probe_use(&pr);
        double t0 = wc_probe_now();
        bad = wc_encode_alloc(ctx, p, img, &buf, &size) != WC_OK;
        const double te = wc_probe_now() - t0;
        wc_probe_use(NULL);
        if (!bad) probe_print(pass ? "enc" : "enc (cold)", te, &pr, p->threads);
        if (bad) break;
        wc_probe_use(&pr);
        t0 = wc_probe_now();
        bad = wc_decode(ctx, p, buf, size, &back) != WC_OK;
        const double td = wc_probe_now() - t0;
        wc_probe_use(NULL);
        if (!bad) probe_print(pass ? "dec" : "dec (cold)", td, &pr, p->threads);
        if (!bad) wc_image_free(&back);
    }
    if (bad) fprintf(stderr, "bench_codec: probe failed: %s\n", wc_ctx_error(ctx));
    free(buf);
    wc_ctx_free(ctx);
    return bad;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/corpus/kodak";
    unsigned width = 4096, height = 4096;
    if (argc > 2 && sscanf(argv[2], "%ux%u", &width, &height) != 2)
        width = height = (unsigned)atoi(argv[2]);
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    const char *only = argc > 4 ? argv[4] : "";
    int counts[32] = {1, 2}, ncounts = 2;
    if (argc > 5) {
        ncounts = 0;
        for (const char *s = argv[5]; *s && ncounts < 32;
             s = strchr(s, ',') ? strchr(s, ',') + 1 : "")
            if (atoi(s) > 0) counts[ncounts++] = atoi(s);
    }
    const int split = getenv("BENCH_TIMES") && atoi(getenv("BENCH_TIMES"));
    const int probing = getenv("BENCH_PROBE") && atoi(getenv("BENCH_PROBE"));
    const int reuse = getenv("BENCH_REUSE") && atoi(getenv("BENCH_REUSE"));
    wc_image img;
    if (width < 16 || height < 16 || runs < 1 || ncounts < 1 ||
        bench_photo_rect("bench_codec", dir, width, height, &img))
        return 1;
    const double mp = (double)width * height / 1e6;
    printf("wcodec %s, %ux%u RGB photograph (tiled Kodak), median of %d runs, CPU backend, %s\n",
           wc_version_string(), width, height, runs,
           reuse ? "the caller's buffers kept (BENCH_REUSE)" : "a fresh file and image a call");
    printf("%-22s %7s %9s %10s %10s %10s %10s\n", "mode", "threads", "bpp", "enc MP/s", "dec MP/s",
           "enc flt", "dec flt");
    /* DCT q58 lands near the rate of libjpeg-turbo's default quality 75
     * on this image (1.39 against cjpeg's 1.36 bpp): the rate-matched
     * comparison for issue 4's speed target. */
    static const struct {
        const char *name;
        int lossless, transform;
        float quality;
        wc_entropy entropy;
    } modes[] = {
        {"lossless 5/3", 1, WC_TRANSFORM_DWT, 0, WC_ENTROPY_HUFFMAN},
        {"lossy 9/7 q75", 0, WC_TRANSFORM_DWT, 75, WC_ENTROPY_HUFFMAN},
        {"lossy DCT q75", 0, WC_TRANSFORM_DCT, 75, WC_ENTROPY_HUFFMAN},
        {"lossy DCT q58", 0, WC_TRANSFORM_DCT, 58, WC_ENTROPY_HUFFMAN},
        {"lossy LOT q75", 0, WC_TRANSFORM_LOT, 75, WC_ENTROPY_HUFFMAN},
        /* Entropy 3 (arithmetic coding) beside entropy 0 on the same coefficients. */
        {"lossless 5/3 arith", 1, WC_TRANSFORM_DWT, 0, WC_ENTROPY_ARITH},
        {"lossy 9/7 q75 arith", 0, WC_TRANSFORM_DWT, 75, WC_ENTROPY_ARITH},
    };
    const size_t nmodes = sizeof modes / sizeof modes[0];
    int exact = 0;
    for (size_t m = 0; m < nmodes; m++) exact |= !strcmp(modes[m].name, only);
    for (size_t m = 0; m < nmodes; m++)
        for (int k = 0; k < ncounts; k++) {
            const int threads = counts[k];
            if (exact ? strcmp(modes[m].name, only) != 0 : !strstr(modes[m].name, only)) continue;
            wc_params p;
            wc_params_init(&p);
            p.lossless = modes[m].lossless;
            p.transform = (wc_transform)modes[m].transform;
            p.quality = modes[m].quality;
            p.entropy = modes[m].entropy;
            p.threads = threads;
            p.backend = WC_BACKEND_CPU;
            result r;
            if (run(&img, &p, runs, 1, reuse, &r)) return 1;
            printf("%-22s %7d %9.4f %10.1f %10.1f %10.0f %10.0f\n", modes[m].name, threads,
                   r.size * 8.0 / (mp * 1e6), mp / r.enc, r.dec > 0 ? mp / r.dec : 0.0,
                   r.enc_faults, r.dec_faults);
            if (split)
                printf("  split s: enc transform %.3f entropy %.3f container %.3f rest %.3f | "
                       "dec transform %.3f entropy %.3f container %.3f rest %.3f\n",
                       r.te.transform, r.te.entropy, r.te.container,
                       r.enc - r.te.transform - r.te.entropy - r.te.container, r.td.transform,
                       r.td.entropy, r.td.container,
                       r.dec - r.td.transform - r.td.entropy - r.td.container);
            if (probing && probe(&img, &p)) return 1;
        }
    wc_image_free(&img);
    return 0;
}
