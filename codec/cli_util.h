/* cli_util.h -- small helpers shared by the wcodec subcommands. */
#ifndef WC_CLI_UTIL_H
#define WC_CLI_UTIL_H

#include <stdint.h>

#include "wcodec.h"

/* Exit codes of the command. */
enum { CLI_OK = 0, CLI_BAD = 1, CLI_IO = 2 };

/* Strict number parsing: the whole string must be a number in [lo, hi];
 * on failure prints "wcodec: --opt: ..." and returns nonzero. */
int cli_int(const char *opt, const char *s, long lo, long hi, long *out);
int cli_float(const char *opt, const char *s, double lo, double hi, float *out);
int cli_u64(const char *opt, const char *s, uint64_t *out);

/* Exit code for a library status (I/O errors are 2, everything else 1). */
int cli_exit_code(wc_status s);
/* Prints "wcodec: <what>: <detail or strerror>" to stderr. */
void cli_error(wc_ctx *ctx, wc_status s, const char *what);

/* Reads an image: PNG/PGM/PPM, or a .wcx file which is decoded. */
wc_status cli_load_any(wc_ctx *ctx, const char *path, const wc_params *p, wc_image *img);

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

#endif
