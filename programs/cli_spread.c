/*
 * cli_spread.c -- where a batch's work goes: the CUDA devices of one host
 * (--device N, --devices all|I,J,...) and whether mpirun started the
 * command as one of several ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_batch.h"

static int bad_device(const char *opt, const char *what, int count)
{
    if (count == 0)
        fprintf(stderr, "wcodec: %s %s: no CUDA device here (wcodec --version says why)\n", opt,
                what);
    else
        fprintf(stderr, "wcodec: %s %s: the CUDA devices here are 0..%d\n", opt, what, count - 1);
    return 1;
}

int cli_devices_option(const char *opt, const char *value, cli_batch_opts *o)
{
    const int count = wc_device_count();
    if (!strcmp(opt, "--device")) {
        long n;
        if (cli_int(opt, value, 0, CLI_MAX_DEVICES - 1, &n)) return 1;
        if (n >= count) return bad_device(opt, value, count);
        o->p.device = (int)n;
        return 0;
    }
    o->ndevices = 0;
    if (!strcmp(value, "all")) {
        if (count == 0) return bad_device(opt, value, count);
        for (int d = 0; d < count && d < CLI_MAX_DEVICES; d++) o->devices[o->ndevices++] = d;
        return 0;
    }
    for (const char *s = value;; s++) {
        char *end;
        long d = strtol(s, &end, 10);
        if (end == s || d < 0 || d >= CLI_MAX_DEVICES || (*end && *end != ',') ||
            o->ndevices == CLI_MAX_DEVICES) {
            fprintf(stderr, "wcodec: %s: expected all or device numbers such as 0,1, got '%s'\n",
                    opt, value);
            return 1;
        }
        for (int k = 0; k < o->ndevices; k++)
            if (o->devices[k] == d) {
                fprintf(stderr, "wcodec: %s %s: device %ld is named twice\n", opt, value, d);
                return 1;
            }
        o->devices[o->ndevices++] = (int)d;
        s = end;
        if (!*s) break;
    }
    for (int k = 0; k < o->ndevices; k++)
        if (o->devices[k] >= count) return bad_device(opt, value, count);
    return 0;
}

const char cli_devices_help[] =
    "  --device N            code on CUDA device N (default: the current one, 0)\n"
    "  --devices all|I,J,..  with --out-dir: spread the files over these CUDA\n"
    "                        devices, a context each (default: all of them)\n";

int cli_devices_check(const cli_batch_opts *o, int single)
{
    const char *which = o->ndevices ? "--devices" : "--device";
    if (o->ndevices && o->p.device >= 0) {
        fprintf(stderr, "wcodec: give --device N or --devices LIST, not both\n");
        return 1;
    }
    if ((o->ndevices || o->p.device >= 0) && o->p.backend == WC_BACKEND_CPU) {
        fprintf(stderr, "wcodec: %s: --backend cpu uses no CUDA device\n", which);
        return 1;
    }
    if (o->ndevices && single) {
        fprintf(stderr, "wcodec: --devices spreads a batch (--out-dir DIR); for one file give "
                        "--device N\n");
        return 1;
    }
    return 0;
}

int cli_batch_devices(const cli_batch_opts *o, int *devices)
{
    if (o->ndevices > 0) {
        memcpy(devices, o->devices, (size_t)o->ndevices * sizeof *devices);
        return o->ndevices;
    }
    if (o->p.device >= 0) {
        devices[0] = o->p.device;
        return 1;
    }
    const char *env = getenv("WC_BACKEND");
    if (o->p.backend == WC_BACKEND_CPU || (env && !strcmp(env, "cpu"))) return 0;
    int n = wc_device_count();
    if (n > CLI_MAX_DEVICES) n = CLI_MAX_DEVICES;
    for (int d = 0; d < n; d++) devices[d] = d;
    return n;
}

/* The world size the launcher announces: Open MPI's mpirun, or a PMI
 * launcher (MPICH's and Intel MPI's mpiexec, Slurm's srun). */
int cli_mpi_launched(int *size, int *rank)
{
    static const char *const vars[][2] = {{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
                                          {"PMI_SIZE", "PMI_RANK"}};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i][0]), *r = getenv(vars[i][1]);
        if (v && *v) {
            *size = atoi(v);
            *rank = r ? atoi(r) : 0;
            return *size > 1;
        }
    }
    *size = 1;
    *rank = 0;
    return 0;
}
