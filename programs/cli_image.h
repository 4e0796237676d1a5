/* cli_image.h -- the metadata listing of 'wcodec info' (cli_image.c). */
#ifndef WC_CLI_IMAGE_H
#define WC_CLI_IMAGE_H

#include "cli_util.h"

/* The "metadata:" lines of 'wcodec info'. */
void cli_image_print_meta(const wc_meta *m);

#endif
