/* cli_util.h -- small helpers shared by the wcodec subcommands. */
#ifndef WC_CLI_UTIL_H
#define WC_CLI_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "image_io.h"
#include "metrics.h"
#include "wcodec.h"

/* Exit codes of the command. */
enum { CLI_OK = 0, CLI_BAD = 1, CLI_IO = 2, CLI_BELOW = 3 /* compare: under the bar */ };

/* Strict number parsing: the whole string must be a number in [lo, hi];
 * on failure prints "wcodec: --opt: ..." and returns nonzero. */
int cli_int(const char *opt, const char *s, long lo, long hi, long *out);
int cli_float(const char *opt, const char *s, double lo, double hi, float *out);
int cli_u64(const char *opt, const char *s, uint64_t *out);
/* A byte count with an optional K, M, G or T (powers of 1024) after it. */
int cli_bytes(const char *opt, const char *s, uint64_t *out);

/* Exit code for a library status (I/O errors are 2, everything else 1). */
int cli_exit_code(wc_status s);
/* Prints "wcodec: <what>: <msg or strerror>" to stderr (the message alone
 * when it already starts with what). */
void cli_error_msg(const char *msg, wc_status s, const char *what);
/* cli_error_msg with the message of ctx's last failed call. */
void cli_error(wc_ctx *ctx, wc_status s, const char *what);

/* Refuses (prints why, returns nonzero) an output that is the input file
 * however it is spelled (same device and inode: a link, "./x", "-" for a
 * redirected file), before anything is read. Devices may be both. */
int cli_same_file(const char *cmd, const char *in, const char *out);
/* Where a command's summary line goes: stderr when the output is "-". */
FILE *cli_report_stream(const char *out);

/* Reads an image: PNG/PGM/PPM, or a .wcx file which is decoded. A failure
 * is described in *err (the decoder's message copied from ctx). */
wc_status cli_load_any(wc_ctx *ctx, const char *path, const wc_params *p, wc_image *img,
                       wc_err *err);

/* Seconds on a monotonic clock. */
double cli_now(void);

/* Parses one encoder option at argv[*i] into p (advancing *i past its
 * value). Returns 1 if consumed, 0 if not an encoder option, -1 on error.
 * *lossy_asked is set when an option implies lossy coding. */
int cli_encoder_option(int argc, char **argv, int *i, wc_params *p, int *lossy_asked,
                       int *lossless_asked);
/* Checks the combination after parsing; prints and returns nonzero if bad. */
int cli_encoder_finish(wc_params *p, int lossy_asked, int lossless_asked);
/* Help text of the encoder options. */
extern const char cli_encoder_help[];

/* Subcommands kept in their own files (cli_bench.c, cli_sweep.c); each takes
 * main's argc/argv (argv[1] is the command) and returns an exit code. */
int cmd_bench(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* ---- text built in memory, then written atomically ------------------------ */

/* A growing string. A failed allocation sets `failed` and later appends do
 * nothing, so writers check once at the end (cli_buf_save reports it). */
typedef struct cli_buf {
    char *data;
    size_t len, cap;
    int failed;
} cli_buf;

void cli_buf_printf(cli_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends one CSV field (RFC 4180: quoted when it holds , " CR or LF). */
void cli_buf_csv(cli_buf *b, const char *field);
/* Appends a JSON string literal with the escapes JSON requires. */
void cli_buf_json_str(cli_buf *b, const char *s);
/* Appends a JSON number, or null for infinities and NaN (JSON has none). */
void cli_buf_json_num(cli_buf *b, double v);
/* Writes the text to path through file_write (temporary file, rename);
 * prints the error and returns a CLI exit code. */
int cli_buf_save(const cli_buf *b, const char *path);
void cli_buf_free(cli_buf *b);

/* ---- image sets ------------------------------------------------------------ */

/* Expands FILES and DIRS into a list of image paths: a file is taken as
 * given, a directory contributes its .png/.tif/.tiff/.pgm/.ppm/.pnm entries (not
 * recursive) sorted by name. Returns a CLI exit code after printing why;
 * an empty result is an error. Free the list with cli_list_free. */
int cli_list_images(char *const *args, int nargs, char ***list, size_t *count);
/* The same with a filter of a folder's entries (NULL: images). */
int cli_list_files(char *const *args, int nargs, int (*keep)(const char *name), char ***list,
                   size_t *count);
void cli_list_free(char **list, size_t count);

/* ---- a pool of workers, one wc_ctx each, with a progress bar --------------- */

typedef struct cli_progress cli_progress;
/* Runs fn(arg, job, ctx, prog) for job 0..jobs-1 on `threads` workers (0 =
 * all cores); each worker owns one wc_ctx for all its jobs. Jobs report
 * finished units of work with cli_progress_step; `units` is their total.
 * The bar is drawn on stderr only when it is a terminal. Returns 0, or
 * nonzero (after printing why) when workers could not be set up. */
typedef void (*cli_job_fn)(void *arg, size_t job, wc_ctx *ctx, cli_progress *prog);
int cli_pool_run(int threads, size_t jobs, cli_job_fn fn, void *arg, size_t units);
void cli_progress_step(cli_progress *prog, size_t units);
/* The worker count cli_pool_run uses for `threads` and `jobs`. */
int cli_pool_threads(int threads, size_t jobs);

/* ---- one encode + decode round trip, measured ------------------------------- */

typedef struct cli_run {
    wc_status status; /* WC_OK, or what failed (error holds the message) */
    char error[288];
    uint32_t width, height, components, bit_depth;
    size_t raw_bytes; /* of the uncompressed samples */
    size_t bytes;     /* of the .wcx file */
    double bpp, ratio;
    image_metrics m;     /* decoded against the original */
    double enc_s, dec_s; /* wall seconds of wc_encode_alloc / wc_decode */
    wc_times enc, dec;   /* per stage, from wc_ctx_times */
    char backend[16];
} cli_run;

/* Encodes img with p in memory, decodes it back and compares: fills *r,
 * including r->status and r->error on failure. */
void cli_run_image(wc_ctx *ctx, const wc_params *p, const wc_image *img, cli_run *r);
/* Reads an image for a run: on failure fills r->status and r->error (the
 * reader's message, less the path it starts with, which callers print). */
wc_status cli_run_read(const char *path, uint64_t max_pixels, wc_image *img, cli_run *r);
/* Megapixels per second for `pixels` done in `seconds` (0 if no time). */
double cli_mps(double pixels, double seconds);

#endif
