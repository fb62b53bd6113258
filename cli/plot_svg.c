/* plot_svg: charts as self-contained SVG (plot_svg.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/plot_svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WIDTH 720
#define PANEL 300 /* a panel's height */
#define LEFT 70
#define RIGHT 180 /* the legend's room */
#define TOP 40
#define BOTTOM 45

/* Colours told apart by most eyes, colour-blind ones included (Okabe and Ito). */
static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#F0E442", "#000000"};

static void xml_text(FILE *out, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
}

/* A step between ticks that is 1, 2 or 5 times a power of ten, for about
   six ticks over span. */
static double tick_step(double span)
{
    if (!(span > 0))
        return 1;
    double raw = span / 6, ten = pow(10, floor(log10(raw)));
    double m = raw / ten;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * ten;
}

typedef struct frame {
    double x0, x1, y0, y1; /* the data's box */
    double left, top, width, height;
} frame;

static double px(const frame *f, double x)
{
    return f->left + (f->x1 > f->x0 ? (x - f->x0) / (f->x1 - f->x0) : 0.5) * f->width;
}

static double py(const frame *f, double y)
{
    return f->top + f->height - (f->y1 > f->y0 ? (y - f->y0) / (f->y1 - f->y0) : 0.5) * f->height;
}

/* The box around every point (and band) of the panel: y from 0. */
static frame frame_of(const plot_panel *p, double top)
{
    frame f = {.x0 = INFINITY, .x1 = -INFINITY, .y0 = 0, .y1 = -INFINITY};
    for (size_t s = 0; s < p->nseries; s++)
        for (size_t i = 0; i < p->series[s].n; i++) {
            const plot_series *ps = &p->series[s];
            double hi = ps->hi ? ps->hi[i] : ps->y[i];
            f.x0 = fmin(f.x0, ps->x[i]);
            f.x1 = fmax(f.x1, ps->x[i]);
            f.y1 = fmax(f.y1, hi);
            f.y0 = fmin(f.y0, ps->lo ? ps->lo[i] : ps->y[i]);
        }
    if (!isfinite(f.x0))
        f.x0 = 0, f.x1 = 1;
    if (!isfinite(f.y1) || f.y1 <= f.y0)
        f.y1 = f.y0 + 1;
    /* up to a round tick above the highest point (a share, to 100% at most) */
    double step = tick_step(f.y1 - f.y0);
    f.y1 = ceil(f.y1 / step - 1e-9) * step;
    if (p->y_percent && f.y1 > 1)
        f.y1 = 1;
    bool bars = false;
    for (size_t s = 0; s < p->nseries; s++)
        bars |= p->series[s].kind == PLOT_BARS;
    if (bars) /* a bar's half width at each end */
        f.x0 -= 0.5, f.x1 += 0.5;
    f.left = LEFT;
    f.top = top + TOP;
    f.width = WIDTH - LEFT - RIGHT;
    f.height = PANEL - TOP - BOTTOM;
    return f;
}

static void axes(FILE *out, const plot_panel *p, const frame *f)
{
    fprintf(out, "<g class=\"axes\" font-size=\"11\" fill=\"#333\">\n");
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#999\"/>\n",
            f->left, f->top, f->width, f->height);
    double ys = tick_step(f->y1 - f->y0);
    for (double y = ceil(f->y0 / ys) * ys; y <= f->y1 + ys * 1e-9; y += ys) {
        fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>", f->left,
                f->left + f->width, py(f, y), py(f, y));
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", f->left - 6, py(f, y) + 4);
        double shown = fabs(y) < ys * 1e-9 ? 0.0 : y; /* never "-0" */
        if (p->y_percent)
            fprintf(out, "%g%%", round(shown * 1000) / 10);
        else
            fprintf(out, "%g", shown);
        fprintf(out, "</text>\n");
    }
    double xs = tick_step(f->x1 - f->x0);
    if (p->x_whole && xs < 1)
        xs = 1;
    for (double x = ceil(f->x0 / xs) * xs; !p->no_x_ticks && !p->x_names && x <= f->x1 + xs * 1e-9; x += xs)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", px(f, x),
                f->top + f->height + 15, x == 0 ? 0.0 : x); /* never "-0" */
    for (size_t k = 0; k < p->n_names; k++) {
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px(f, (double)k + 1),
                f->top + f->height + 15);
        xml_text(out, p->x_names[k]);
        fprintf(out, "</text>\n");
    }
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", f->left + f->width / 2,
            f->top + f->height + 34);
    xml_text(out, p->x_label);
    fprintf(out, "</text>\n<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">",
            f->top + f->height / 2, f->top + f->height / 2);
    xml_text(out, p->y_label);
    fprintf(out, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\">", f->left, f->top - 12);
    xml_text(out, p->title);
    fprintf(out, "</text>\n</g>\n");
}

static void series(FILE *out, const plot_panel *p, const frame *f, size_t s)
{
    const plot_series *ps = &p->series[s];
    const char *colour = palette[s % (sizeof palette / sizeof palette[0])];
    fprintf(out, "<g class=\"series\" data-name=\"");
    xml_text(out, ps->name);
    fprintf(out, "\" data-points=\"%zu\">\n", ps->n);
    if (ps->lo && ps->hi && ps->n) { /* the band: along hi, back along lo */
        fprintf(out, "<polygon class=\"band\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" points=\"", colour);
        for (size_t i = 0; i < ps->n; i++)
            fprintf(out, "%.2f,%.2f ", px(f, ps->x[i]), py(f, ps->hi[i]));
        for (size_t i = ps->n; i-- > 0;)
            fprintf(out, "%.2f,%.2f ", px(f, ps->x[i]), py(f, ps->lo[i]));
        fprintf(out, "\"/>\n");
    }
    if (ps->kind == PLOT_BARS) {
        /* bars of several series side by side within one unit of x */
        double unit = f->width / (f->x1 - f->x0 > 0 ? f->x1 - f->x0 : 1);
        double w = unit * 0.8 / (double)p->nseries;
        for (size_t i = 0; i < ps->n; i++) {
            double x = px(f, ps->x[i]) - unit * 0.4 + w * (double)s, top = py(f, ps->y[i]);
            fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x, top, w,
                    py(f, f->y0 > 0 ? f->y0 : 0) - top, colour);
        }
    } else if (ps->n) {
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
        for (size_t i = 0; i < ps->n; i++) {
            if (ps->kind == PLOT_STEPS && i > 0)
                fprintf(out, "%.2f,%.2f ", px(f, ps->x[i]), py(f, ps->y[i - 1]));
            fprintf(out, "%.2f,%.2f ", px(f, ps->x[i]), py(f, ps->y[i]));
        }
        fprintf(out, "\"/>\n");
        for (size_t i = 0; ps->n <= 60 && i < ps->n; i++)
            fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"/>\n", px(f, ps->x[i]), py(f, ps->y[i]),
                    colour);
    }
    /* its line of the legend */
    double ly = f->top + 8 + 18 * (double)s;
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>", f->left + f->width + 14,
            ly - 10, colour);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", f->left + f->width + 30, ly);
    xml_text(out, ps->name);
    fprintf(out, "</text>\n</g>\n");
}

static bool write_all(FILE *out, const char *title, const plot_panel *panels, size_t npanels)
{
    int height = (int)npanels * PANEL + 10;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\">\n<title>",
            WIDTH, height, WIDTH, height);
    xml_text(out, title);
    fprintf(out, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    for (size_t k = 0; k < npanels; k++) {
        const plot_panel *p = &panels[k];
        frame f = frame_of(p, (double)k * PANEL);
        fprintf(out, "<g class=\"panel\" data-title=\"");
        xml_text(out, p->title);
        fprintf(out, "\">\n");
        axes(out, p, &f);
        for (size_t s = 0; s < p->nseries; s++)
            series(out, p, &f, s);
        fprintf(out, "</g>\n");
    }
    fprintf(out, "</svg>\n");
    return !ferror(out);
}

bool plot_svg_write(const char *path, const char *title, const plot_panel *panels, size_t npanels)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (!tmp) {
        fprintf(stderr, "fray: out of memory\n");
        return false;
    }
    snprintf(tmp, len + 16, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd >= 0) { /* readable as a file the user made would be, not mkstemp's 0600 */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    bool ok = out && write_all(out, title, panels, npanels) && fflush(out) == 0 && fsync(fileno(out)) == 0;
    int err = errno;
    if (out)
        ok = fclose(out) == 0 && ok;
    else if (fd >= 0)
        close(fd);
    if (ok && rename(tmp, path) != 0) {
        err = errno;
        ok = false;
    }
    if (!ok) {
        fprintf(stderr, "fray: cannot write the chart to '%s': %s\n", path, strerror(err ? err : EIO));
        if (fd >= 0)
            unlink(tmp);
    }
    free(tmp);
    return ok;
}
