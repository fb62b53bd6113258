/* plot_svg: charts as self-contained SVG, for `--plot FILE.svg` (prob,
 * sim, sweep): panels one above the other, each with axes, ticks at round
 * numbers, a legend, and its series as lines (with points), bars, or a
 * line in a shaded band (an interval). Every series is a <g> with
 * class="series" and data-name, so that a program (or a test) can find it;
 * the file opens in any browser. */
#ifndef FRAY_CLI_PLOT_SVG_H
#define FRAY_CLI_PLOT_SVG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { PLOT_LINE, PLOT_BARS, PLOT_STEPS } plot_kind;

typedef struct plot_series {
    const char *name;
    plot_kind kind;
    size_t n;
    const double *x, *y;
    const double *lo, *hi; /* a band around y (95% interval), or NULL */
} plot_series;

typedef struct plot_panel {
    const char *title, *x_label, *y_label;
    bool y_percent;             /* y from 0 to 1, shown as % */
    bool x_whole;               /* ticks on x at whole numbers only */
    bool no_x_ticks;            /* none: the series are named in the legend alone */
    const char *const *x_names; /* or the name of each whole x from 1 (n_names of them) */
    size_t n_names;
    const plot_series *series;
    size_t nseries;
} plot_panel;

/* Writes the panels to path (a temporary file renamed over it, so a
   reader never sees half a chart); false after saying why on stderr. */
bool plot_svg_write(const char *path, const char *title, const plot_panel *panels, size_t npanels);

#endif
