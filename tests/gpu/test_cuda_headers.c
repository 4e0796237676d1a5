/*
 * test_cuda_headers.c -- the seam of DESIGN.md holds: no source file
 * outside cuda/ includes a CUDA header (cuda.h, cuda_runtime.h, any
 * <cu...> header), no .cu/.cuh file lives outside cuda/, and no
 * CMakeLists.txt outside cuda/ enables the CUDA language. Runs everywhere
 * (label cpu): it reads the source tree, not the GPU.
 *
 * The patterns are assembled from pieces so that this file does not match
 * them itself.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

static const char *const CU = "cu";
static int g_offences;
static int g_files;

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int is_source(const char *name)
{
    static const char *const ext[] = {".c", ".h", ".cc", ".cpp", ".hpp", ".inc"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (ends_with(name, ext[i])) return 1;
    return 0;
}

/* A CUDA header named by an #include line: <cu...> or "cuda*.h". */
static int includes_cuda(const char *line)
{
    while (*line == ' ' || *line == '\t') line++;
    if (*line++ != '#') return 0;
    while (*line == ' ' || *line == '\t') line++;
    if (strncmp(line, "include", 7) != 0) return 0;
    line += 7;
    while (*line == ' ' || *line == '\t') line++;
    if (*line == '<') return strncmp(line + 1, CU, 2) == 0;
    if (*line == '"') {
        const char *name = line + 1;
        const char *slash = strrchr(name, '/');
        if (slash) name = slash + 1;
        char cuda[8];
        snprintf(cuda, sizeof cuda, "%sda", CU);
        return strncmp(name, cuda, 4) == 0 && (name[4] == '.' || name[4] == '_');
    }
    return 0;
}

/* enable_language(CUDA) or a project()/LANGUAGES list naming CUDA. */
static int enables_cuda(const char *line)
{
    char lang[8];
    snprintf(lang, sizeof lang, "%sDA", "CU");
    const char *e = strstr(line, "enable_language");
    const char *l = strstr(line, "LANGUAGES");
    return (e && strstr(e, lang)) || (l && strstr(l, lang));
}

static void check_file(const char *path, int cmake)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    g_files++;
    char line[4096];
    unsigned no = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        if (cmake ? enables_cuda(line) : includes_cuda(line)) {
            print_error("%s:%u: %s", path, no, line);
            g_offences++;
        }
    }
    fclose(f);
}

static void walk(const char *dir, int top)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (name[0] == '.') continue; /* ., .., .git, .deps and other hidden trees */
        if (top && (strcmp(name, "cuda") == 0 || strncmp(name, "build", 5) == 0)) continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) continue;
        struct stat st;
        if (lstat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(path, 0);
        } else if (S_ISREG(st.st_mode)) {
            char cu_ext[8], cuh_ext[8];
            snprintf(cu_ext, sizeof cu_ext, ".%s", CU);
            snprintf(cuh_ext, sizeof cuh_ext, ".%sh", CU);
            if (ends_with(name, cu_ext) || ends_with(name, cuh_ext)) {
                print_error("%s: CUDA source outside cuda/\n", path);
                g_offences++;
            } else if (is_source(name)) {
                check_file(path, 0);
            } else if (strcmp(name, "CMakeLists.txt") == 0 || ends_with(name, ".cmake")) {
                check_file(path, 1);
            }
        }
    }
    closedir(d);
}

static void test_no_cuda_outside_cuda_dir(void **state)
{
    (void)state;
    walk(WC_TESTS_DIR "/..", 1);
    assert_true(g_files > 10); /* the tree was found and read */
    assert_int_equal(g_offences, 0);
}

static void test_patterns(void **state)
{
    (void)state;
    char a[64], b[64], c[64];
    snprintf(a, sizeof a, "#include <%sda_runtime.h>\n", CU);
    snprintf(b, sizeof b, "  #  include \"%sda.h\"\n", CU);
    snprintf(c, sizeof c, "enable_language(%sDA)\n", "CU");
    assert_true(includes_cuda(a));
    assert_true(includes_cuda(b));
    assert_false(includes_cuda("#include \"backend.h\"\n"));
    assert_false(includes_cuda("#include <stdio.h>\n"));
    assert_true(enables_cuda(c));
    assert_false(enables_cuda("project(x LANGUAGES C)\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_no_cuda_outside_cuda_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
