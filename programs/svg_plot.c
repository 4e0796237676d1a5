/*
 * svg_plot.c -- line plots as SVG, written by hand so that the experiment
 * commands need no plotting dependency. Layout: title on top, the plot
 * area with a grid at the tick values, axis labels below and rotated on the
 * left, the legend to the right (so curves are never hidden under it).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg_plot.h"

enum { MARGIN_LEFT = 72, MARGIN_TOP = 44, MARGIN_BOTTOM = 56, LEGEND_ROW = 18 };

static const char *const palette[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

void svg_escape(cli_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': cli_buf_printf(b, "&amp;"); break;
        case '<': cli_buf_printf(b, "&lt;"); break;
        case '>': cli_buf_printf(b, "&gt;"); break;
        case '"': cli_buf_printf(b, "&quot;"); break;
        case '\'': cli_buf_printf(b, "&apos;"); break;
        default:
            /* XML 1.0 forbids most control characters even when escaped. */
            cli_buf_printf(b, "%c", (unsigned char)*s < 0x20 && *s != '\t' ? ' ' : *s);
        }
    }
}

int svg_nice_ticks(double lo, double hi, int target, double *first, double *last, double *step)
{
    if (target < 1) target = 1;
    if (!(hi > lo)) { /* one value: give it some room rather than a zero-width axis */
        double pad = lo != 0 ? fabs(lo) * 0.05 : 1;
        lo -= pad;
        hi += pad;
    }
    double raw = (hi - lo) / target;
    double mag = pow(10, floor(log10(raw)));
    double r = raw / mag; /* in [1, 10) */
    double s = (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
    /* The small bias keeps 2.0000000001 * s from counting as a new tick. */
    *first = floor(lo / s + 1e-9) * s;
    *last = ceil(hi / s - 1e-9) * s;
    *step = s;
    return (int)llround((*last - *first) / s) + 1;
}

/* Decimals that show every tick of this step exactly (steps are 1, 2, 5 x 10^k). */
static int tick_decimals(double step)
{
    int d = -(int)floor(log10(step) + 1e-9);
    return d > 0 ? d : 0;
}

typedef struct frame {
    double x0, x1, xs, y0, y1, ys; /* axis ranges and tick steps */
    int nx, ny;
    double left, top, w, h; /* plot area in pixels */
} frame;

static double px(const frame *f, double x)
{
    return f->left + (x - f->x0) / (f->x1 - f->x0) * f->w;
}

static double py(const frame *f, double y)
{
    return f->top + f->h - (y - f->y0) / (f->y1 - f->y0) * f->h;
}

/* The data's extent over finite points; returns 0 when there are none. */
static int data_bounds(const svg_plot *p, double *xmin, double *xmax, double *ymin, double *ymax)
{
    int any = 0;
    for (size_t s = 0; s < p->nseries; s++)
        for (size_t i = 0; i < p->series[s].n; i++) {
            double x = p->series[s].x[i], y = p->series[s].y[i];
            if (!isfinite(x) || !isfinite(y)) continue;
            if (!any || x < *xmin) *xmin = x;
            if (!any || x > *xmax) *xmax = x;
            if (!any || y < *ymin) *ymin = y;
            if (!any || y > *ymax) *ymax = y;
            any = 1;
        }
    return any;
}

static void text(cli_buf *b, double x, double y, const char *anchor, const char *extra,
                 const char *s)
{
    cli_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
    svg_escape(b, s);
    cli_buf_printf(b, "</text>\n");
}

static void draw_axes(cli_buf *b, const svg_plot *p, const frame *f)
{
    char label[64];
    int dx = tick_decimals(f->xs), dy = tick_decimals(f->ys);
    cli_buf_printf(b, "<g stroke=\"#dddddd\" stroke-width=\"1\">\n");
    for (int i = 0; i < f->nx; i++) {
        double x = px(f, f->x0 + i * f->xs);
        cli_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, f->top, x,
                       f->top + f->h);
    }
    for (int i = 0; i < f->ny; i++) {
        double y = py(f, f->y0 + i * f->ys);
        cli_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", f->left, y,
                       f->left + f->w, y);
    }
    cli_buf_printf(b,
                   "</g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"none\" stroke=\"#333333\"/>\n",
                   f->left, f->top, f->w, f->h);
    for (int i = 0; i < f->nx; i++) {
        double v = f->x0 + i * f->xs;
        snprintf(label, sizeof label, "%.*f", dx, fabs(v) < f->xs * 1e-6 ? 0.0 : v);
        text(b, px(f, v), f->top + f->h + 16, "middle", "", label);
    }
    for (int i = 0; i < f->ny; i++) {
        double v = f->y0 + i * f->ys;
        snprintf(label, sizeof label, "%.*f", dy, fabs(v) < f->ys * 1e-6 ? 0.0 : v);
        text(b, f->left - 6, py(f, v) + 4, "end", "", label);
    }
    if (p->title)
        text(b, f->left + f->w / 2, 26, "middle", " font-size=\"15\" font-weight=\"bold\"",
             p->title);
    if (p->xlabel) text(b, f->left + f->w / 2, f->top + f->h + 40, "middle", "", p->xlabel);
    if (p->ylabel) {
        char rot[96];
        double x = 18, y = f->top + f->h / 2;
        snprintf(rot, sizeof rot, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
        text(b, x, y, "middle", rot, p->ylabel);
    }
}

static void series_style(cli_buf *b, size_t s)
{
    cli_buf_printf(b, " stroke=\"%s\" stroke-width=\"2\" fill=\"none\"%s", palette[s % 10],
                   s >= 10 ? " stroke-dasharray=\"6,3\"" : "");
}

static void draw_series(cli_buf *b, const svg_series *sr, size_t s, const frame *f)
{
    int open = 0;
    for (size_t i = 0; i <= sr->n; i++) {
        int ok = i < sr->n && isfinite(sr->x[i]) && isfinite(sr->y[i]);
        if (ok && !open) {
            cli_buf_printf(b, "<polyline");
            series_style(b, s);
            cli_buf_printf(b, " points=\"");
            open = 1;
        } else if (!ok && open) {
            cli_buf_printf(b, "\"/>\n");
            open = 0;
        }
        if (ok) cli_buf_printf(b, "%.1f,%.1f ", px(f, sr->x[i]), py(f, sr->y[i]));
    }
    cli_buf_printf(b, "<g fill=\"%s\">\n", palette[s % 10]);
    for (size_t i = 0; i < sr->n; i++)
        if (isfinite(sr->x[i]) && isfinite(sr->y[i]))
            cli_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n", px(f, sr->x[i]),
                           py(f, sr->y[i]));
    cli_buf_printf(b, "</g>\n");
}

static void draw_legend(cli_buf *b, const svg_plot *p, const frame *f)
{
    double x = f->left + f->w + 16;
    for (size_t s = 0; s < p->nseries; s++) {
        double y = f->top + 8 + s * LEGEND_ROW;
        cli_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", x, y, x + 24, y);
        series_style(b, s);
        cli_buf_printf(b, "/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x + 12, y,
                       palette[s % 10]);
        text(b, x + 30, y + 4, "start", "", p->series[s].label ? p->series[s].label : "");
    }
}

int svg_plot_write(cli_buf *b, const svg_plot *p)
{
    double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
    if (!data_bounds(p, &xmin, &xmax, &ymin, &ymax)) return 1;
    size_t longest = 0;
    for (size_t s = 0; s < p->nseries; s++)
        if (p->series[s].label && strlen(p->series[s].label) > longest)
            longest = strlen(p->series[s].label);
    /* About 7 px per character of 12 px sans-serif; capped so that a very
     * long label cannot squeeze the plot away. */
    double legend = longest > 40 ? 40 * 7 + 56 : (double)longest * 7 + 56;
    double width = p->width > 0 ? p->width : 800, height = p->height > 0 ? p->height : 500;
    double need = MARGIN_TOP + 16 + (double)p->nseries * LEGEND_ROW + MARGIN_BOTTOM;
    if (height < need) height = need;
    frame f = {.left = MARGIN_LEFT, .top = MARGIN_TOP};
    f.w = width - MARGIN_LEFT - legend;
    f.h = height - MARGIN_TOP - MARGIN_BOTTOM;
    if (f.w < 100) { /* a narrow width asked for: widen the document instead */
        f.w = 100;
        width = MARGIN_LEFT + legend + 100;
    }
    f.nx = svg_nice_ticks(xmin, xmax, 8, &f.x0, &f.x1, &f.xs);
    f.ny = svg_nice_ticks(ymin, ymax, 6, &f.y0, &f.y1, &f.ys);
    cli_buf_printf(b,
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
                   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                   width, height, width, height);
    draw_axes(b, p, &f);
    for (size_t s = 0; s < p->nseries; s++) draw_series(b, &p->series[s], s, &f);
    draw_legend(b, p, &f);
    cli_buf_printf(b, "</svg>\n");
    return 0;
}
