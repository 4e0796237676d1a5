/*
 * replay_main.c -- a main() for the fuzz targets when libFuzzer is not
 * linked: runs LLVMFuzzerTestOneInput once on every file named on the
 * command line and on every regular file of every directory named there
 * (in name order, so runs repeat exactly). ctest uses it to replay each
 * target's corpus in every build, sanitizers or not; a failing input
 * aborts inside the target, which fails the test.
 *
 * Exit status: 0 when every input ran, 1 when an input could not be read
 * or nothing at all was run (an empty or missing corpus is a broken test).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Under AddressSanitizer a single allocation above 256 MiB is a failure, as
 * under libFuzzer with -malloc_limit_mb=256: the targets' limits keep real
 * needs to a few MiB, so such a request is a size taken from the input
 * unchecked. ASAN_OPTIONS can still override it. The runtime finds this
 * hook in the executable's dynamic symbols (the targets link with
 * ENABLE_EXPORTS); without ASan it is never called. */
__attribute__((visibility("default"))) const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "max_allocation_size_mb=256"; }

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) break;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        return 1;
    }
    /* An exact-size copy, so ASan catches a read even one byte past the
     * input, as it would under libFuzzer. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir; *runs counts them. */
static int run_dir(const char *dir, unsigned *runs)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open directory %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    struct dirent *e;
    while (!bad && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **more = realloc(names, cap * sizeof *names);
            if (!more) {
                bad = 1;
                break;
            }
            names = more;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            bad = 1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!bad && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            bad |= run_file(names[i]);
            ++*runs;
        }
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    unsigned runs = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (argv[i][0] == '-') continue; /* libFuzzer flags: meaningless here */
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            bad = 1;
        } else if (S_ISDIR(st.st_mode)) {
            bad |= run_dir(argv[i], &runs);
        } else {
            bad |= run_file(argv[i]);
            runs++;
        }
    }
    printf("replay: %u inputs run%s\n", runs, bad ? ", with errors" : "");
    return bad || runs == 0;
}
