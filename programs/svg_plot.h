/*
 * svg_plot.h -- a small SVG line-plot writer for the experiment commands
 * (rate-distortion curves): axes with nice tick values, grid, labels, a
 * legend, one polyline with point markers per series. The output is a
 * standalone, well-formed XML document with every text escaped.
 */
#ifndef WC_SVG_PLOT_H
#define WC_SVG_PLOT_H

#include <stddef.h>

#include "cli_util.h"

/* One curve: n points (x[i], y[i]) joined in the order given. A point with a
 * non-finite coordinate is left out and breaks the line there. */
typedef struct svg_series {
    const char *label;
    const double *x, *y;
    size_t n;
} svg_series;

typedef struct svg_plot {
    const char *title, *xlabel, *ylabel; /* NULL for none */
    const svg_series *series;
    size_t nseries;
    int width, height; /* pixels; 0 for 800 x 500 */
} svg_plot;

/* Appends the SVG document for p to b. Returns 0, or nonzero when no
 * series has a finite point (nothing to scale the axes to). */
int svg_plot_write(cli_buf *b, const svg_plot *p);

/* Tick values for an axis over [lo, hi]: a step of 1, 2 or 5 times a power
 * of ten giving about `target` intervals. Sets *step and the range widened
 * to whole steps, [*first, *last]; returns the number of ticks. */
int svg_nice_ticks(double lo, double hi, int target, double *first, double *last, double *step);

/* Appends s with the five XML special characters escaped. */
void svg_escape(cli_buf *b, const char *s);

#endif
