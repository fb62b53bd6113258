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

static const char usage[] = "Usage: fray prob [OPTION]... EXPR...\n"
                            "Print the exact probability distribution of each expression: every outcome\n"
                            "with its probability, the chance of at least and at most that much, a bar,\n"
                            "and the mean, standard deviation, extremes, median and percentiles. Dice\n"
                            "are not rolled but computed; comparisons give the chance they hold. A\n"
                            "procedure or check of the rules is run for every outcome of its arguments\n"
                            "and its dice; what cannot be computed exactly is an error that says why.\n"
                            "Several expressions are shown side by side.\n"
                            "\n"
                            "  --exact            probabilities as exact fractions where they fit\n"
                            "  --format FORMAT    table (default), json or csv\n"
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

static void print_table(column *cols, int n, bool exact)
{
    bool unicode = cli_utf8_terminal();
    double top = 0;
    for (int i = 0; i < n; i++) {
        for (int64_t k = 0; k <= last_offset(cols[i].d); k++) {
            double p = fray_distribution_p(cols[i].d, fray_distribution_lowest(cols[i].d) + k);
            top = p > top ? p : top;
        }
        cols[i].next = outcome_from(&cols[i], 0);
    }
    int bar_width = n == 1 ? 40 : 20;
    /* header */
    printf("%7s", "value");
    for (int i = 0; i < n; i++) {
        if (n == 1)
            printf("  %12s  %9s  %9s", "probability", "at least", "at most");
        else
            printf("  %-*.*s", 12 + bar_width, 12 + bar_width, cols[i].expr);
        if (cols[i].sampled)
            printf("  %9s", "sampled");
    }
    putchar('\n');
    /* the outcomes any expression can give, in order: the columns merged,
       not every number between the lowest and the highest (d6 beside
       d6 + 10^12 would be 10^12 lines to skip) */
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
            break;
        for (int i = 0; i < n; i++)
            if (cols[i].next >= 0 && fray_distribution_lowest(cols[i].d) + cols[i].next == x)
                cols[i].next = outcome_from(&cols[i], cols[i].next + 1);
        printf("%7lld", (long long)x);
        for (int i = 0; i < n; i++) {
            const fray_distribution *d = cols[i].d;
            bool inside = x >= fray_distribution_lowest(d) && x <= fray_distribution_highest(d);
            char p[96];
            probability_text(&cols[i], x, exact, p, sizeof p);
            if (!inside)
                snprintf(p, sizeof p, "-");
            if (n == 1)
                printf("  %12s  %8.4f%%  %8.4f%%  ", p, 100.0 * fray_distribution_at_least(d, x),
                       100.0 * fray_distribution_at_most(d, x));
            else
                printf("  %12s ", p);
            double share = top > 0 ? fray_distribution_p(d, x) / top : 0;
            cli_bar(stdout, inside ? share : 0, bar_width, unicode);
            if (n > 1) { /* pad to the column's width (bars are multibyte) */
                int cells = (int)(share * bar_width + (unicode ? 0.999 : 0.5));
                if (!inside)
                    cells = 0;
                printf("%*s", bar_width - cells + 1, "");
            }
            if (cols[i].sampled) {
                double seen =
                    inside ? (double)cols[i].sample[x - fray_distribution_lowest(d)] / (double)cols[i].sampled : 0;
                printf("  %8.4f%%", 100.0 * seen);
            }
        }
        putchar('\n');
    }
    for (int i = 0; i < n; i++) {
        printf("%s\n", cols[i].expr);
        summary(&cols[i]);
    }
}

static void print_json(column *cols, int n)
{
    printf("{\"expressions\": [");
    for (int i = 0; i < n; i++) {
        const fray_distribution *d = cols[i].d;
        printf("%s\n  {\"expression\": ", i ? "," : "");
        cli_json_string(cols[i].expr);
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
    bool exact = false;
    const char *format = "table";
    size_t samples = 0;
    char **rest = argv; /* the arguments not taken here, kept in place: never more than there are */
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--exact"))
            exact = true;
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
            print_table(cols, n, exact);
    }
    for (int i = 0; cols && i < n; i++) {
        fray_distribution_free(cols[i].d);
        free(cols[i].sample);
    }
    free(cols);
    fray_close(f);
    return code;
}
