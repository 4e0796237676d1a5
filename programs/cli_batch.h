/* cli_batch.h -- encode/decode of one file or many (cli_batch.c). */
#ifndef WC_CLI_BATCH_H
#define WC_CLI_BATCH_H

#include "cli_util.h"

typedef struct cli_batch_opts {
    wc_params p;         /* encoder options, or the decoder's limits; threads:
                            one file's threads, or many files' workers */
    unsigned page;       /* TIFF page, 1-based (0 = 1) */
    int strip;           /* leave metadata out */
    int quiet, verbose;
    const char *out_dir; /* many files: the outputs go here */
    const char *format;  /* decode: the outputs' extension (png, tif, tiff, ppm,
                            pgm, pnm); NULL = png */
    image_format out_format; /* decode: the outputs' format (IMAGE_BY_NAME: by
                                their names; needed for OUT '-') */
} cli_batch_opts;

/* With out: encodes (decode = 0) or decodes the one file args[0] into out
 * and prints its line. Without: every file and folder of args (folders give
 * their images, or their .wcx files for decode) into o->out_dir, named
 * after the input, in parallel, with a progress line on a terminal, each
 * file's line otherwise, and a summary; failures are listed and the rest
 * go on. Returns the exit code (the worst file's). */
int cli_batch_run(const cli_batch_opts *o, int decode, char **args, int nargs, const char *out);

#endif
