/* cmd_prob: `fray prob EXPR...`, exact distributions as a table, JSON or
 * CSV, optionally next to a sample of the same expressions. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/plot_svg.h"

static const char usage[] = "Usage: fray prob [OPTION]... EXPR...\n"
                            "Print the exact probability distribution of each expression: every outcome\n"
                            "with its probability, the chance of at least and at most that much, a bar,\n"
                            "and the mean, standard deviation, extremes, median and percentiles. Dice\n"
                            "are not rolled but computed; comparisons give the chance they hold. A\n"
                            "procedure or check of the rules is run for every outcome of its arguments\n"
                            "and its dice; what cannot be computed exactly is an error that says why.\n"
                            "Several expressions are shown side by side.\n"
                            "\n"
                            "  --exact            probabilities as exact fractions where they fit (every\n"
                            "                     outcome on a line of its own)\n"
                            "  --all              every outcome on a line of its own: past 40, they are\n"
                            "                     shown in bins otherwise\n"
                            "  --format FORMAT    table (default), json or csv\n"
                            "  --plot FILE.svg    also draw the distributions overlaid, the chances of\n"
                            "                     at least each outcome, and how likely comparisons hold\n"
                            "  --sample N         also roll each expression N times and show what came up\n"
                            "  -r, --rules FILE   load rules first (their stats, ranges, procedures)\n"
                            "  --with STAT=EXPR   give the evaluating creature a stat value\n"
                            "  --seed N           seed for --sample\n"
                            "\n"
                            "Examples:\n"
                            "  fray prob 4d6kh3\n"
                            "  fray prob 'd20+5>=15' 'max(d20,d20)+5>=15'\n"
                            "  fray prob --sample 100000 '5d10!kh3'\n";

static const double percentiles[] = {0.05, 0.25, 0.75, 0.95};

typedef struct column {
    const char *expr;
    fray_distribution *d;
    int64_t *sample; /* counts per outcome from lowest..highest */
    size_t sampled;
    int64_t next; /* print_table: the offset from lowest of its next outcome to show */
} column;

/* The outcomes of d are lowest + k for k from 0 to this: loops count by
   offset, because an outcome may be INT64_MAX (x <= highest never ends) */
static int64_t last_offset(const fray_distribution *d)
{
    return fray_distribution_highest(d) - fray_distribution_lowest(d);
}

/* The offset of c's first outcome with a chance at or after offset k, or
   -1 when there is none. */
static int64_t outcome_from(const column *c, int64_t k)
{
    for (int64_t n = last_offset(c->d); k <= n; k++)
        if (fray_distribution_p(c->d, fray_distribution_lowest(c->d) + k) > 0)
            return k;
    return -1;
}

static void probability_text(const column *c, int64_t x, bool exact, char *buf, size_t cap)
{
    if (exact && fray_distribution_exact(c->d, x, buf, cap))
        return;
    snprintf(buf, cap, "%.4f%%", 100.0 * fray_distribution_p(c->d, x));
}

static void summary(const column *c)
{
    const fray_distribution *d = c->d;
    printf("  mean %.6g, sd %.6g, min %lld, max %lld, median %lld", fray_distribution_mean(d),
           fray_distribution_stddev(d), (long long)fray_distribution_lowest(d), (long long)fray_distribution_highest(d),
           (long long)fray_distribution_quantile(d, 0.5));
    for (size_t i = 0; i < sizeof percentiles / sizeof percentiles[0]; i++)
        printf(", p%d %lld", (int)(percentiles[i] * 100 + 0.5),
               (long long)fray_distribution_quantile(d, percentiles[i]));
    putchar('\n');
    if (fray_distribution_lowest(d) >= 0 && fray_distribution_highest(d) <= 1)
        printf("  P(true) = %.6g\n", fray_distribution_p(d, 1));
    if (fray_distribution_remainder(d) > 0)
        printf("  (explosions cut where less than %.3g of the probability remained)\n", fray_distribution_remainder(d));
    if (c->sampled) {
        double m = 0;
        for (int64_t k = 0; k <= last_offset(d); k++)
            m += (double)(fray_distribution_lowest(d) + k) * (double)c->sample[k];
        printf("  sampled %zu times: mean %.6g\n", c->sampled, m / (double)c->sampled);
    }
}

/* A row of the table: the outcomes from lo to hi, one (lo == hi) or a
   bin of them. */
typedef struct row {
    int64_t lo, hi;
    bool below, above; /* the outcomes below (above) the bins */
} row;

#define MAX_ROWS CLI_MOST_ROWS /* a table longer than a screen is put in bins (unless --all) */

/* P(lo <= X <= hi). */
static double p_within(const fray_distribution *d, int64_t lo, int64_t hi)
{
    double above = hi == INT64_MAX ? 0 : fray_distribution_at_least(d, hi + 1);
    double p = fray_distribution_at_least(d, lo) - above;
    return p < 0 ? 0 : p;
}

/* The outcomes any column can give, in order, one row each: the columns
   merged, not every number between the lowest and the highest (d6 beside
   d6 + 10^12 would be 10^12 lines to skip). Up to cap rows; the count of
   all of them. */
static size_t outcome_rows(column *cols, int n, row *out, size_t cap)
{
    size_t count = 0;
    for (int i = 0; i < n; i++)
        cols[i].next = outcome_from(&cols[i], 0);
    for (;;) {
        bool any = false;
        int64_t x = 0;
        for (int i = 0; i < n; i++) {
            int64_t at = cols[i].next, v = fray_distribution_lowest(cols[i].d) + at;
            if (at >= 0 && (!any || v < x))
                x = v;
            any |= at >= 0;
        }
        if (!any)
            return count;
        for (int i = 0; i < n; i++)
            if (cols[i].next >= 0 && fray_distribution_lowest(cols[i].d) + cols[i].next == x)
                cols[i].next = outcome_from(&cols[i], cols[i].next + 1);
        if (count < cap)
            out[count] = (row){.lo = x, .hi = x};
        count++;
    }
}

/* Bins of one width over where all but a thousandth of each column's
   chances lie, and a row for what lies below and above them; their
   count (at most MAX_ROWS). */
static size_t bin_rows(const column *cols, int n, row *out)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, lowest = INT64_MAX, highest = INT64_MIN;
    for (int i = 0; i < n; i++) {
        const fray_distribution *d = cols[i].d;
        int64_t a = fray_distribution_quantile(d, 0.0005), b = fray_distribution_quantile(d, 0.9995);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
        lowest = fray_distribution_lowest(d) < lowest ? fray_distribution_lowest(d) : lowest;
        highest = fray_distribution_highest(d) > highest ? fray_distribution_highest(d) : highest;
    }
    /* the span in unsigned: it may pass INT64_MAX */
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    int64_t width = cli_round_width((int64_t)((span + (MAX_ROWS - 3)) / (MAX_ROWS - 2)));
    /* the first bin starts at a multiple of the width, at or below lo */
    int64_t first = lo / width * width - (lo % width < 0 ? width : 0);
    size_t k = 0;
    if (first > lowest)
        out[k++] = (row){.lo = lowest, .hi = first - 1, .below = true};
    for (int64_t a = first; k < MAX_ROWS - 1 && a <= hi; a += width) {
        int64_t b = a > INT64_MAX - (width - 1) ? INT64_MAX : a + width - 1;
        out[k++] = (row){.lo = a, .hi = b};
        if (b == INT64_MAX)
            break;
    }
    if (out[k - 1].hi < highest) {
        out[k] = (row){.lo = out[k - 1].hi + 1, .hi = highest, .above = true};
        k++;
    }
    /* a bin's label names no outcome there cannot be (d% from 1, not 0) */
    out[0].lo = out[0].lo < lowest ? lowest : out[0].lo;
    out[k - 1].hi = out[k - 1].hi > highest ? highest : out[k - 1].hi;
    return k;
}

static void row_label(const row *r, char *buf, size_t cap)
{
    if (r->lo == r->hi)
        snprintf(buf, cap, "%lld", (long long)r->lo);
    else if (r->below)
        snprintf(buf, cap, "<= %lld", (long long)r->hi);
    else if (r->above)
        snprintf(buf, cap, ">= %lld", (long long)r->lo);
    else
        snprintf(buf, cap, "%lld..%lld", (long long)r->lo, (long long)r->hi);
}

/* One column's cells of a row: its chance, at least and at most, a bar
   of bar_width (none at 0), what its sample gave. */
static void print_cells(const column *c, const row *r, bool exact, double top, int bar_width, bool unicode, bool pad)
{
    const fray_distribution *d = c->d;
    bool inside = r->hi >= fray_distribution_lowest(d) && r->lo <= fray_distribution_highest(d);
    double p = p_within(d, r->lo, r->hi);
    char text[96];
    if (!inside)
        snprintf(text, sizeof text, "-");
    else if (r->lo == r->hi)
        probability_text(c, r->lo, exact, text, sizeof text);
    else
        snprintf(text, sizeof text, "%.4f%%", 100.0 * p);
    printf("  %12s  %8.4f%%  %8.4f%%  ", text, 100.0 * fray_distribution_at_least(d, r->lo),
           100.0 * fray_distribution_at_most(d, r->hi));
    double share = top > 0 && inside ? p / top : 0;
    int cells = bar_width > 0 ? cli_bar(stdout, share, bar_width, unicode) : 0;
    if ((pad || c->sampled) && bar_width > 0) /* to the column's width (bars are multibyte) */
        printf("%*s", bar_width - cells, "");
    if (c->sampled) {
        double seen = 0;
        for (int64_t x = r->lo; inside && x <= r->hi && x <= fray_distribution_highest(d); x++)
            if (x >= fray_distribution_lowest(d))
                seen += (double)c->sample[x - fray_distribution_lowest(d)];
        printf("  %8.4f%%", 100.0 * seen / (double)c->sampled);
    }
}

/* The expressions that are not comparisons, outcome by outcome (or bin by
   bin, past a screen's worth of outcomes, unless every one is asked for),
   each with its chance, at least and at most. */
static void print_numbers(column *cols, int n, bool exact, bool all)
{
    bool unicode = cli_utf8_terminal();
    row few[MAX_ROWS + 1];
    size_t count = outcome_rows(cols, n, few, MAX_ROWS);
    row *rows = few;
    size_t nrows = count;
    bool binned = count > MAX_ROWS && !all && !exact;
    if (binned)
        nrows = bin_rows(cols, n, few);
    else if (count > MAX_ROWS) {
        rows = malloc(count * sizeof *rows);
        if (!rows) {
            fprintf(stderr, "fray: out of memory\n");
            return;
        }
        outcome_rows(cols, n, rows, count);
    }
    double top = 0;
    for (int i = 0; i < n; i++)
        for (size_t r = 0; r < nrows; r++) {
            double p = p_within(cols[i].d, rows[r].lo, rows[r].hi);
            top = p > top ? p : top;
        }
    int label = 7;
    for (size_t r = 0; r < nrows; r++) {
        char buf[64];
        row_label(&rows[r], buf, sizeof buf);
        label = (int)strlen(buf) > label ? (int)strlen(buf) : label;
    }
    /* a column is its three figures (37 wide), and a bar where the screen
       has room for one */
    int room = cli_terminal_width() - label - n * (37 + (cols[0].sampled ? 11 : 0));
    int bar_width = n == 1 ? 40 : room / n - 1 >= 6 ? (room / n - 1 > 20 ? 20 : room / n - 1) : 0;
    printf("%*s", label, "value");
    for (int i = 0; i < n; i++) {
        if (n > 1)
            printf("  %-*.*s", 35 + bar_width, 35 + bar_width, cols[i].expr);
        else
            printf("  %12s  %9s  %9s", "probability", "at least", "at most");
        if (cols[i].sampled)
            printf("  %9s", "sampled");
    }
    putchar('\n');
    if (n > 1) {
        printf("%*s", label, "");
        for (int i = 0; i < n; i++) {
            printf("  %12s  %9s  %9s%*s", "probability", "at least", "at most", bar_width + 2, "");
            if (cols[i].sampled)
                printf("  %9s", "sampled");
        }
        putchar('\n');
    }
    for (size_t r = 0; r < nrows; r++) {
        char buf[64];
        row_label(&rows[r], buf, sizeof buf);
        printf("%*s", label, buf);
        for (int i = 0; i < n; i++)
            print_cells(&cols[i], &rows[r], exact, top, bar_width, unicode, i + 1 < n);
        putchar('\n');
    }
    if (binned)
        printf("(%zu outcomes in bins of %lld; --all shows each)\n", count,
               (long long)(rows[nrows > 2 ? 1 : 0].hi - rows[nrows > 2 ? 1 : 0].lo + 1));
    if (rows != few)
        free(rows);
    for (int i = 0; i < n; i++) {
        printf("%s\n", cols[i].expr);
        summary(&cols[i]);
    }
}

/* Comparisons: how likely each is to hold, a line each. */
static void print_yes_no(column *cols, int n, bool exact)
{
    bool unicode = cli_utf8_terminal();
    int width = 10;
    for (int i = 0; i < n; i++)
        width = (int)strlen(cols[i].expr) > width ? (int)strlen(cols[i].expr) : width;
    width = width > 40 ? 40 : width;
    printf("%-*s  %12s", width, "comparison", "holds");
    if (cols[0].sampled)
        printf("  %30s  %9s", "", "sampled");
    putchar('\n');
    for (int i = 0; i < n; i++) {
        const fray_distribution *d = cols[i].d;
        char p[96];
        probability_text(&cols[i], 1, exact, p, sizeof p);
        printf("%-*s  %12s  ", width, cols[i].expr, p);
        int cells = cli_bar(stdout, fray_distribution_p(d, 1), 30, unicode);
        if (cols[i].sampled) {
            /* the samples of 1 (none where it never holds) */
            int64_t lo = fray_distribution_lowest(d);
            int64_t held = fray_distribution_highest(d) >= 1 ? cols[i].sample[1 - lo] : 0;
            printf("%*s  %9.4f%%", 30 - cells, "", 100.0 * (double)held / (double)cols[i].sampled);
        }
        putchar('\n');
        if (fray_distribution_remainder(d) > 0)
            printf("  (explosions cut where less than %.3g of the probability remained)\n",
                   fray_distribution_remainder(d));
    }
}

/* The chart of --plot: the chance of each outcome of every expression
   that is a number, overlaid, and the chance of at least each; how likely
   each comparison is to hold, a bar each. False after saying why. */
static bool plot_prob(const column *cols, int n, const char *path)
{
    plot_series *dist = calloc((size_t)n, sizeof *dist), *least = calloc((size_t)n, sizeof *least);
    plot_series *holds = calloc((size_t)n, sizeof *holds);
    double *hy = calloc((size_t)n, sizeof *hy);
    double **bufs = calloc((size_t)n * 3, sizeof *bufs);
    static const double one = 1;
    bool ok = dist && least && holds && hy && bufs;
    size_t nd = 0, nh = 0;
    for (int i = 0; ok && i < n; i++) {
        const fray_distribution *d = cols[i].d;
        if (fray_distribution_yes_no(d)) { /* a bar each, side by side, named in the legend */
            hy[nh] = fray_distribution_p(d, 1);
            holds[nh] = (plot_series){cols[i].expr, PLOT_BARS, 1, &one, &hy[nh], NULL, NULL};
            nh++;
            continue;
        }
        /* at most 100,000 points a line: a chart has no room for more */
        uint64_t span = (uint64_t)last_offset(d) + 1;
        size_t pts = span > 100000 ? 100000 : (size_t)span, step = (size_t)((span + pts - 1) / pts);
        double *x = bufs[3 * i] = malloc(pts * sizeof *x), *y = bufs[3 * i + 1] = malloc(pts * sizeof *y);
        double *al = bufs[3 * i + 2] = malloc(pts * sizeof *al);
        ok = x && y && al;
        size_t k = 0;
        for (uint64_t o = 0; ok && o < span && k < pts; o += step, k++) {
            int64_t v = fray_distribution_lowest(d) + (int64_t)o;
            x[k] = (double)v, y[k] = fray_distribution_p(d, v), al[k] = fray_distribution_at_least(d, v);
        }
        dist[nd] = (plot_series){cols[i].expr, PLOT_LINE, k, x, y, NULL, NULL};
        least[nd++] = (plot_series){cols[i].expr, PLOT_STEPS, k, x, al, NULL, NULL};
    }
    if (ok) {
        plot_panel panels[3];
        size_t np = 0;
        if (nd) {
            panels[np++] = (plot_panel){.title = "Chance of each outcome",
                                        .x_label = "outcome",
                                        .y_label = "chance",
                                        .x_whole = true,
                                        .series = dist,
                                        .nseries = nd};
            panels[np++] = (plot_panel){.title = "Chance of at least each outcome",
                                        .x_label = "outcome",
                                        .y_label = "chance",
                                        .y_percent = true,
                                        .x_whole = true,
                                        .series = least,
                                        .nseries = nd};
        }
        if (nh)
            panels[np++] = (plot_panel){.title = "How likely each comparison holds",
                                        .x_label = "",
                                        .y_label = "chance",
                                        .y_percent = true,
                                        .no_x_ticks = true,
                                        .series = holds,
                                        .nseries = nh};
        ok = plot_svg_write(path, "fray prob", panels, np);
    } else
        fprintf(stderr, "fray: out of memory\n");
    for (int i = 0; bufs && i < 3 * n; i++)
        free(bufs[i]);
    free(bufs), free(dist), free(least), free(holds), free(hy);
    return ok;
}

/* Numbers first, as a table; then comparisons, a line each. */
static void print_table(column *cols, int n, bool exact, bool all)
{
    column *numbers = malloc((size_t)n * sizeof *numbers), *yes_no = malloc((size_t)n * sizeof *yes_no);
    if (!numbers || !yes_no) {
        free(numbers);
        free(yes_no);
        fprintf(stderr, "fray: out of memory\n");
        return;
    }
    int nn = 0, ny = 0;
    for (int i = 0; i < n; i++) {
        /* a comparison that always (never) holds is still a comparison:
           it holds 100% (0%) of the time */
        if (fray_distribution_yes_no(cols[i].d))
            yes_no[ny++] = cols[i];
        else
            numbers[nn++] = cols[i];
    }
    if (nn)
        print_numbers(numbers, nn, exact, all);
    if (nn && ny)
        putchar('\n');
    if (ny)
        print_yes_no(yes_no, ny, exact);
    free(numbers);
    free(yes_no);
}

static void print_json(column *cols, int n)
{
    printf("{\"expressions\": [");
    for (int i = 0; i < n; i++) {
        const fray_distribution *d = cols[i].d;
        printf("%s\n  {\"expression\": ", i ? "," : "");
        cli_json_string(cols[i].expr);
        if (fray_distribution_yes_no(d))
            printf(", \"holds\": %.17g", fray_distribution_p(d, 1));
        bool exact = fray_distribution_exact(d, fray_distribution_lowest(d), (char[8]){0}, 0);
        printf(
            ", \"exact\": %s, \"remainder\": %.17g, \"min\": %lld, \"max\": %lld, \"mean\": %.17g, \"stddev\": %.17g, "
            "\"median\": %lld, \"percentiles\": {",
            exact ? "true" : "false", fray_distribution_remainder(d), (long long)fray_distribution_lowest(d),
            (long long)fray_distribution_highest(d), fray_distribution_mean(d), fray_distribution_stddev(d),
            (long long)fray_distribution_quantile(d, 0.5));
        for (size_t k = 0; k < sizeof percentiles / sizeof percentiles[0]; k++)
            printf("%s\"%d\": %lld", k ? ", " : "", (int)(percentiles[k] * 100 + 0.5),
                   (long long)fray_distribution_quantile(d, percentiles[k]));
        printf("},\n   \"distribution\": [");
        bool first = true;
        for (int64_t k = 0; k <= last_offset(d); k++) {
            int64_t x = fray_distribution_lowest(d) + k;
            double p = fray_distribution_p(d, x);
            if (p == 0)
                continue;
            char frac[96];
            printf("%s\n    {\"value\": %lld, \"p\": %.17g, \"at_least\": %.17g, \"at_most\": %.17g", first ? "" : ",",
                   (long long)x, p, fray_distribution_at_least(d, x), fray_distribution_at_most(d, x));
            if (fray_distribution_exact(d, x, frac, sizeof frac))
                printf(", \"fraction\": \"%s\"", frac);
            if (cols[i].sampled)
                printf(", \"sampled\": %.17g", (double)cols[i].sample[k] / (double)cols[i].sampled);
            putchar('}');
            first = false;
        }
        printf("]}");
    }
    printf("\n]}\n");
}

static void print_csv(column *cols, int n)
{
    printf("expression,value,p,at_least,at_most,fraction%s\n", cols[0].sampled ? ",sampled" : "");
    for (int i = 0; i < n; i++) {
        const fray_distribution *d = cols[i].d;
        for (int64_t k = 0; k <= last_offset(d); k++) {
            int64_t x = fray_distribution_lowest(d) + k;
            double p = fray_distribution_p(d, x);
            if (p == 0)
                continue;
            char frac[96] = "";
            fray_distribution_exact(d, x, frac, sizeof frac);
            putchar('"');
            for (const char *s = cols[i].expr; *s; s++)
                fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, stdout);
            printf("\",%lld,%.17g,%.17g,%.17g,%s", (long long)x, p, fray_distribution_at_least(d, x),
                   fray_distribution_at_most(d, x), frac);
            if (cols[i].sampled)
                printf(",%.17g", (double)cols[i].sample[k] / (double)cols[i].sampled);
            putchar('\n');
        }
    }
}

int cmd_prob(int argc, char **argv)
{
    /* options of our own first; the rest are the shared ones */
    bool exact = false, all = false;
    const char *format = "table", *plot = NULL;
    size_t samples = 0;
    char **rest = argv; /* the arguments not taken here, kept in place: never more than there are */
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--exact"))
            exact = true;
        else if (!strcmp(argv[i], "--all"))
            all = true;
        else if (!strcmp(argv[i], "--plot") && i + 1 < argc)
            plot = argv[++i];
        else if (!strncmp(argv[i], "--format=", 9))
            format = argv[i] + 9;
        else if (!strcmp(argv[i], "--format") && i + 1 < argc)
            format = argv[++i];
        else if ((!strcmp(argv[i], "--sample") && i + 1 < argc) || !strncmp(argv[i], "--sample=", 9)) {
            const char *n = argv[i][8] == '=' ? argv[i] + 9 : argv[++i];
            uint64_t k;
            if (!cli_parse_u64(n, 1, 100000000, &k)) {
                fprintf(stderr, "fray prob: --sample takes a count from 1 to 100000000\n");
                return EXIT_USAGE;
            }
            samples = (size_t)k;
        } else
            rest[nrest++] = argv[i];
    }
    rest[nrest] = NULL;
    if (strcmp(format, "table") && strcmp(format, "json") && strcmp(format, "csv")) {
        fprintf(stderr, "fray prob: --format takes table, json or csv\n");
        return EXIT_USAGE;
    }
    cli_options o;
    int first, rc = cli_parse("prob", nrest, rest, &o, &first, usage);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (first >= nrest) {
        fprintf(stderr, "fray prob: no expression\nTry 'fray prob --help'.\n");
        return EXIT_USAGE;
    }
    fray *f = cli_open(&o);
    if (!f)
        return EXIT_IO;
    int code = cli_load_rules(f, &o);
    int n = nrest - first;
    column *cols = calloc((size_t)n, sizeof *cols);
    if (!cols)
        code = EXIT_IO;
    for (int i = 0; i < n && code == EXIT_OK; i++) {
        cols[i].expr = rest[first + i];
        code = cli_exit_code(fray_prob(f, cols[i].expr, &cols[i].d));
        if (code != EXIT_OK || !samples)
            continue;
        int64_t *values = malloc(samples * sizeof *values);
        int64_t span = fray_distribution_highest(cols[i].d) - fray_distribution_lowest(cols[i].d) + 1;
        cols[i].sample = calloc((size_t)span, sizeof *cols[i].sample);
        if (!values || !cols[i].sample) {
            free(values);
            code = EXIT_IO;
            break;
        }
        code = cli_exit_code(fray_sample(f, cols[i].expr, samples, values));
        for (size_t k = 0; code == EXIT_OK && k < samples; k++) {
            int64_t x = values[k] - fray_distribution_lowest(cols[i].d);
            if (x >= 0 && x < span) /* beyond a cut explosion: counted nowhere */
                cols[i].sample[x]++;
        }
        cols[i].sampled = samples;
        free(values);
    }
    if (code == EXIT_OK) {
        if (!strcmp(format, "json"))
            print_json(cols, n);
        else if (!strcmp(format, "csv"))
            print_csv(cols, n);
        else
            print_table(cols, n, exact, all);
        if (plot && !plot_prob(cols, n, plot))
            code = EXIT_IO;
    }
    for (int i = 0; cols && i < n; i++) {
        fray_distribution_free(cols[i].d);
        free(cols[i].sample);
    }
    free(cols);
    fray_close(f);
    return code;
}
