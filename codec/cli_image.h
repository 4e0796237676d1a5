/* cli_image.h -- the command's image-file helpers (cli_image.c). */
#ifndef WC_CLI_IMAGE_H
#define WC_CLI_IMAGE_H

#include "cli_util.h"

/* Prints the error of a failed image read or write (the image layer's
 * message, else the context's). */
void cli_image_error(wc_ctx *ctx, wc_status s, const char *path);
/* Reads PNG, PGM/PPM or TIFF (page: 1-based, 0 = first) with its metadata
 * into meta (NULL: none); prints the error, or a note when a TIFF has more
 * pages (unless quiet). */
wc_status cli_image_read(wc_ctx *ctx, const char *path, unsigned page, uint64_t max_pixels,
                         wc_image *img, wc_meta *meta, int quiet);
/* Notes the metadata kinds (bits 1 << kind) a written file had no place
 * for. */
void cli_image_dropped(const char *path, unsigned dropped);
/* The "metadata:" lines of 'wcodec info'. */
void cli_image_print_meta(const wc_meta *m);

#endif
