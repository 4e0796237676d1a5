/* cli_batch.h -- encode/decode of one file or many (cli_batch.c), on the
 * host's GPUs (cli_spread.c) and across MPI ranks (cli_mpi.c). */
#ifndef WC_CLI_BATCH_H
#define WC_CLI_BATCH_H

#include "cli_util.h"

#define CLI_MAX_DEVICES 64

typedef struct cli_batch_opts {
    wc_params p;   /* encoder options, or the decoder's limits; threads:
                            one file's threads, or many files' workers;
                            device: --device N */
    unsigned page; /* TIFF page, 1-based (0 = 1) */
    int strip;     /* leave metadata out */
    int quiet, verbose;
    const char *out_dir;     /* many files: the outputs go here */
    const char *format;      /* decode: the outputs' extension (png, tif, tiff, ppm,
                            pgm, pnm); NULL = png */
    image_format out_format; /* decode: the outputs' format (IMAGE_BY_NAME: by
                                their names; needed for OUT '-') */
    int ndevices;            /* --devices: workers take devices[] in turn; 0: not
                            given (a batch then spreads over every device) */
    int devices[CLI_MAX_DEVICES];
    int has_region;   /* decode: --region or --reduce given */
    wc_region region; /* decode: the part (wc_decode_region) */
    int stream;       /* encode by rows: 0 when the whole image would need more
                         than CLI_STREAM_ABOVE bytes (or --max-memory), 1 always
                         (--stream), -1 never (--no-stream) */
} cli_batch_opts;

/* Encoding by rows (wc_encode_rows) is automatic above this in-memory need. */
#define CLI_STREAM_ABOVE ((uint64_t)1 << 30)

/* With out: encodes (decode = 0) or decodes the one file args[0] into out
 * and prints its line. Without: every file and folder of args (folders give
 * their images, or their .wcx files for decode) into o->out_dir, named
 * after the input, in parallel over the CUDA devices of --devices (all by
 * default), with a progress line on a terminal, each file's line otherwise,
 * and a summary; failures are listed and the rest go on. Started by mpirun
 * (a build with MPI), the ranks share the files (cli_mpi.c). Returns the
 * exit code (the worst file's). */
int cli_batch_run(const cli_batch_opts *o, int decode, char **args, int nargs, const char *out);

/* ---- the pieces cli_mpi.c shares ------------------------------------------- */

typedef struct cli_file_result {
    wc_status status;
    char out[1024];
    char line[2400];  /* what a success prints */
    char note[1400];  /* notes (pages, metadata left out, lossless) */
    char error[1400]; /* what a failure prints */
    uint64_t in_bytes, out_bytes, pixels;
} cli_file_result;

/* Makes o->out_dir and lists the inputs (*in, free with cli_list_free).
 * Prints why and returns an exit code on failure. */
int cli_batch_inputs(const cli_batch_opts *o, int decode, char **args, int nargs, char ***in,
                     size_t *n);
/* Fills r[i].out for every input; two inputs with one output name are
 * refused (printed; CLI_BAD). */
int cli_batch_outputs(const cli_batch_opts *o, int decode, char **in, size_t n, cli_file_result *r);
/* Codes in[jobs[k]] into r[jobs[k]] for k < njobs (jobs NULL: every file
 * in order) on `workers` workers spread over the devices of o (ndevices 0:
 * p.device for all), with a progress line on a terminal when `progress`.
 * Returns CLI_OK, or an exit code when no worker ran. */
int cli_batch_code(const cli_batch_opts *o, int decode, char **in, const size_t *jobs, size_t njobs,
                   cli_file_result *r, int workers, int progress);
/* Prints the failures, the lines and notes, and the summary ("encoded K of N
 * file(s), F failed, S s with WHO: ..."); returns the worst file's exit
 * code. */
int cli_batch_report(const cli_batch_opts *o, int decode, const cli_file_result *r, size_t n,
                     double wall, const char *who);

/* ---- devices and ranks (cli_spread.c) ----------------------------------------- */

/* Parses --device N (devices = 0) or --devices all|I,J,... into o; prints
 * why and returns nonzero for an index out of range, a repeat, or no CUDA
 * device. */
int cli_devices_option(const char *opt, const char *value, cli_batch_opts *o);
/* Refuses (printed; nonzero) --device with --devices, either with --backend
 * cpu, and --devices for one file (single). */
int cli_devices_check(const cli_batch_opts *o, int single);
/* The help lines of --device and --devices. */
extern const char cli_devices_help[];
/* The devices a batch spreads over: --devices, --device N, or every device
 * (none where the CPU backend is asked for or no device is present). */
int cli_batch_devices(const cli_batch_opts *o, int *devices);

/* 1 when started by mpirun/mpiexec with more than one rank (Open MPI's
 * and PMI launchers set variables that say so); *size gets the ranks and
 * *rank this one's (read before MPI starts, if it ever does). */
int cli_mpi_launched(int *size, int *rank);

/* ---- MPI (cli_mpi.c; cli_mpi_absent.c in a build without MPI) --------------- */

/* The batch across the ranks of MPI_COMM_WORLD: the same arguments on
 * every rank; returns the worst file's exit code on every rank. Without
 * MPI in the build it says so and returns CLI_BAD (every rank would
 * otherwise code every file). */
int cli_mpi_batch(const cli_batch_opts *o, int decode, char **args, int nargs);
/* The help's paragraph on mpirun, saying whether this build has MPI. */
extern const char cli_spread_help[];
/* For --version: "built in (...)" or "not built in". */
extern const char cli_mpi_build[];

/* ---- sharing files by work (cli_share.c) ------------------------------------- */

/* width x height from the header of a PNG, PGM/PPM, TIFF or .wcx file (at
 * most 4 KiB read); 0 when the file is none of them or cannot be read. */
uint64_t cli_image_pixels(const char *path);
/* Deals n files of pixels[i] pixels (0 counts as 1) to `ranks` ranks:
 * largest first (ties: the lower index), each to the least-loaded rank
 * (ties: the lower rank). order[k] gets the k-th file dealt, owner[i] file
 * i's rank, load[q] rank q's pixels. The same on every rank: it depends on
 * the arguments alone. Returns nonzero when out of memory. */
int cli_deal(const uint64_t *pixels, size_t n, int ranks, size_t *order, int *owner,
             uint64_t *load);

#endif
