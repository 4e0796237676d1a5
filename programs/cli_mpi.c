/*
 * cli_mpi.c -- 'mpirun -n N wcodec encode|decode INPUTS... --out-dir DIR':
 * the ranks of MPI_COMM_WORLD share a batch's files. Built with WCODEC_MPI
 * only; the command's, never the library's.
 *
 * Rank 0 makes the folder, lists the inputs and sends the list to all.
 * Each rank reads the headers of every size-th file (pixel counts, summed
 * by one all-reduce), and every rank deals the files the same way: largest
 * first, each to the least-loaded rank (ties: the lower file index, the
 * lower rank), so no further message is needed. A rank codes its files
 * with the batch's workers on the GPU of its local rank (the ranks of one
 * host split its devices) or on the CPU; the results travel to rank 0,
 * which prints the one report, and the exit status (the worst file's)
 * reaches every rank. Every rank makes every collective call whatever
 * failed before it, so a bad file, or a rank that could not allocate,
 * never leaves the others waiting.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_batch.h"

const char cli_mpi_build[] = "built in: mpirun -n N wcodec encode|decode ... --out-dir DIR";

const char cli_spread_help[] =
    "Across ranks and hosts: 'mpirun -n N wcodec encode|decode INPUTS... --out-dir DIR'\n"
    "shares the files among the ranks by pixel count; each rank codes its files on\n"
    "the GPU of its local rank (or the CPU), and rank 0 prints the summary.\n";

typedef struct mpi_env {
    int rank, size, local_rank, local_size, hosts;
} mpi_env;

/* 1 on every rank when every rank passes ok. */
static int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static void bcast_bytes(char *buf, uint64_t len)
{
    for (uint64_t at = 0; at < len; at += 1u << 30) {
        uint64_t part = len - at < (1u << 30) ? len - at : (1u << 30);
        MPI_Bcast(buf + at, (int)part, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
}

/* Rank 0's inputs and outputs, sent to all: *names holds n NUL-ended paths
 * back to back, *in points into it. Returns the exit code on every rank. */
static int share_inputs(const mpi_env *e, const cli_batch_opts *o, int decode, char **args,
                        int nargs, char **names, char ***in, size_t *n)
{
    char **list = NULL;
    size_t count = 0;
    uint64_t head[3] = {CLI_OK, 0, 0}; /* exit code, files, bytes of names */
    *names = NULL;
    *in = NULL;
    if (e->rank == 0) {
        head[0] = (uint64_t)cli_batch_inputs(o, decode, args, nargs, &list, &count);
        cli_file_result *r = head[0] == CLI_OK ? calloc(count, sizeof *r) : NULL;
        if (head[0] == CLI_OK && !r) head[0] = CLI_BAD;
        if (r) head[0] = (uint64_t)cli_batch_outputs(o, decode, list, count, r);
        free(r);
        head[1] = count;
        for (size_t i = 0; i < count; i++) head[2] += strlen(list[i]) + 1;
    }
    MPI_Bcast(head, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int rc = (int)head[0];
    if (rc == CLI_OK) {
        *names = malloc(head[2] ? head[2] : 1);
        *in = calloc(head[1] ? head[1] : 1, sizeof **in);
        if (!all_ok(*names && *in)) rc = CLI_BAD;
    }
    if (rc == CLI_OK) {
        if (e->rank == 0) {
            char *at = *names;
            for (size_t i = 0; i < count; i++) at = stpcpy(at, list[i]) + 1;
        }
        bcast_bytes(*names, head[2]);
        char *at = *names;
        for (size_t i = 0; i < head[1]; i++, at += strlen(at) + 1) (*in)[i] = at;
        *n = head[1];
    }
    if (list) cli_list_free(list, count);
    if (rc != CLI_OK && e->rank == 0 && head[0] == CLI_OK)
        fprintf(stderr, "wcodec: out of memory on a rank\n");
    return rc;
}

/* A rank's workers: --threads, or the cores it may run on shared among the
 * ranks of its host; none without files. */
static int rank_workers(const mpi_env *e, const cli_batch_opts *o, size_t files)
{
    if (files == 0) return 0;
    if (o->p.threads > 0) return cli_pool_threads(o->p.threads, files);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int share = (int)(online > 0 ? online : 1) / e->local_size;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < share)
        share = CPU_COUNT(&set);
    return cli_pool_threads(share > 0 ? share : 1, files);
}

/* Sends every rank's results to rank 0 into r[] by file. order is the
 * deal: rank q sends its files in that order, so rank 0 knows whose record
 * is which. Returns 1 on every rank when it went through. */
static int gather(const mpi_env *e, cli_file_result *r, size_t n, const size_t *order,
                  const int *owner, const size_t *mine, size_t nmine, const int *per_rank)
{
    MPI_Datatype rec;
    MPI_Type_contiguous((int)sizeof(cli_file_result), MPI_BYTE, &rec);
    MPI_Type_commit(&rec);
    cli_file_result *send = malloc((nmine ? nmine : 1) * sizeof *send);
    cli_file_result *recv = e->rank == 0 ? malloc((n ? n : 1) * sizeof *recv) : NULL;
    int *displs = calloc((size_t)e->size, sizeof *displs);
    int *next = calloc((size_t)e->size, sizeof *next);
    const int ok = all_ok(send && displs && next && (e->rank != 0 || recv));
    if (ok) {
        for (size_t k = 0; k < nmine; k++) send[k] = r[mine[k]];
        for (int q = 1; q < e->size; q++) displs[q] = displs[q - 1] + per_rank[q - 1];
        MPI_Gatherv(send, (int)nmine, rec, recv, per_rank, displs, rec, 0, MPI_COMM_WORLD);
    }
    if (ok && e->rank == 0)
        for (size_t k = 0; k < n; k++) {
            const int q = owner[order[k]];
            r[order[k]] = recv[displs[q] + next[q]++];
        }
    free(send);
    free(recv);
    free(displs);
    free(next);
    MPI_Type_free(&rec);
    return ok;
}

/* Every rank: pixel counts, the deal, its files coded, the results on
 * rank 0 and its report; returns the exit code rank 0 found. */
static int run_batch(const mpi_env *e, const cli_batch_opts *o, int decode, char **in, size_t n)
{
    uint64_t *pixels = calloc(n ? n : 1, sizeof *pixels);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    int *owner = malloc((n ? n : 1) * sizeof *owner);
    size_t *mine = malloc((n ? n : 1) * sizeof *mine);
    uint64_t *load = malloc((size_t)e->size * sizeof *load);
    int *per_rank = calloc((size_t)e->size, sizeof *per_rank);
    cli_file_result *r = calloc(n ? n : 1, sizeof *r);
    int rc = all_ok(pixels && order && owner && mine && load && per_rank && r) ? CLI_OK : CLI_BAD;
    if (rc == CLI_OK) {
        for (size_t i = (size_t)e->rank; i < n; i += (size_t)e->size)
            pixels[i] = cli_image_pixels(in[i]);
        MPI_Allreduce(MPI_IN_PLACE, pixels, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        rc = all_ok(cli_deal(pixels, n, e->size, order, owner, load) == 0) ? CLI_OK : CLI_BAD;
    }
    if (rc == CLI_OK) {
        size_t nmine = 0; /* this rank's files, heaviest first */
        for (size_t k = 0; k < n; k++) {
            per_rank[owner[order[k]]]++;
            if (owner[order[k]] == e->rank) mine[nmine++] = order[k];
        }
        rc = cli_batch_outputs(o, decode, in, n, r); /* as rank 0 found: it passed there */

        /* This rank's device: its local rank's share of the host's. */
        cli_batch_opts ro = *o;
        int devices[CLI_MAX_DEVICES];
        const int nd = cli_batch_devices(o, devices);
        ro.ndevices = nd > 0;
        if (nd > 0) ro.devices[0] = devices[e->local_rank % nd];
        const int workers = rank_workers(e, o, nmine);
        int mine_n[2] = {workers, nd > 0}, all_n[2] = {0, 0}; /* workers, ranks on a GPU */
        MPI_Allreduce(mine_n, all_n, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

        const double t0 = MPI_Wtime();
        if (rc == CLI_OK) rc = cli_batch_code(&ro, decode, in, mine, nmine, r, workers, 0);
        if (rc != CLI_OK)
            for (size_t k = 0; k < nmine; k++) {
                r[mine[k]].status = WC_ERR_NOMEM;
                snprintf(r[mine[k]].error, sizeof r[mine[k]].error,
                         "%s: rank %d could not start its workers", in[mine[k]], e->rank);
            }
        rc = gather(e, r, n, order, owner, mine, nmine, per_rank) ? CLI_OK : CLI_BAD;
        const double wall = MPI_Wtime() - t0;
        if (rc == CLI_OK && e->rank == 0) {
            char who[160];
            snprintf(who, sizeof who, "%d rank(s) on %d host(s) (%d with a GPU), %d worker(s)",
                     e->size, e->hosts, all_n[1], all_n[0]);
            rc = cli_batch_report(o, decode, r, n, wall, who);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(pixels);
    free(order);
    free(owner);
    free(mine);
    free(load);
    free(per_rank);
    free(r);
    return rc;
}

int cli_mpi_batch(const cli_batch_opts *o, int decode, char **args, int nargs)
{
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "wcodec: MPI could not start\n");
        return CLI_BAD;
    }
    mpi_env e;
    MPI_Comm host;
    MPI_Comm_rank(MPI_COMM_WORLD, &e.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &e.size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, e.rank, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &e.local_rank);
    MPI_Comm_size(host, &e.local_size);
    int first = e.local_rank == 0;
    MPI_Allreduce(&first, &e.hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    char *names = NULL;
    char **in = NULL;
    size_t n = 0;
    int rc = share_inputs(&e, o, decode, args, nargs, &names, &in, &n);
    if (rc == CLI_OK) rc = run_batch(&e, o, decode, in, n);
    free(in);
    free(names);
    MPI_Comm_free(&host);
    MPI_Finalize();
    return rc;
}
