/* cmd_sim: `fray sim SCENARIO`, a scenario played many times, with win
 * rates, rounds, damage and triggers; `--vs OTHER` plays it under a second
 * rule system and prints the two side by side. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sim_figures.h"
#include "cli/plot_svg.h"
#include "cli/sim_parts.h"
#include "cli/output.h"

static const char usage[] = "Usage: fray sim [OPTION]... SCENARIO [SCENARIO2]\n"
                            "   or: fray sim --merge [--format F] PART...\n"
                            "Play a scenario (rules, creatures and an encounter script such as `fight`)\n"
                            "many times, each run with its own dice, and report who wins and how often,\n"
                            "how many rounds fights last, the damage each creature deals and takes, and\n"
                            "how often each trigger fires. Run i plays as 'fray run --seed SEED+i'.\n"
                            "A second scenario (of its own system: an equivalent fight), or --vs, plays\n"
                            "beside the first, with each figure's difference and whether it is\n"
                            "significant.\n"
                            "\n"
                            "  -n, --runs N       runs (default 1000)\n"
                            "  --runs FROM..TO    play only these runs of a larger simulation (run i\n"
                            "                     plays seed + i), for --format part\n"
                            "  -j, --jobs N       threads (default: the machine's cores); the results\n"
                            "                     are the same for every N\n"
                            "  --seed N           seed of the first run (default 0)\n"
                            "  --vs RULES         also play the scenario under RULES (a file or module):\n"
                            "                     its `use` of its own system loads RULES instead\n"
                            "  --health STAT      the stat whose losses count as damage (default: the\n"
                            "                     first stat the rules' encounter tracks)\n"
                            "  --set C.STAT=N     set creature C's STAT to N as it is made, over the\n"
                            "                     scenario's (a group's name sets each member; repeat\n"
                            "                     for more); 'fray sweep' tries a range of values\n"
                            "  --answer R=ANSWER  answer ruling R in every run as at its question (yes,\n"
                            "                     3, half): for every creature and use, over the\n"
                            "                     scenario's answers and its default; repeat for more\n"
                            "  --format FORMAT    table (default), json, csv or part: csv is a figure a\n"
                            "                     row; part, a slice's sums, which\n"
                            "                     --merge adds up into the report of the whole\n"
                            "  --merge PART...    add up parts (played on other machines) and print\n"
                            "                     exactly the report one process would\n"
                            "  --all              every length of fight a row (past 40, they are shown\n"
                            "                     in bins)\n"
                            "  --plot FILE.svg    also draw the rounds fights last and the damage each\n"
                            "                     creature deals and takes, two systems side by side,\n"
                            "                     as an SVG a browser opens\n"
                            "  -I, --include DIR  look for `use` modules in DIR\n"
                            "  --limit NAME=N     a limit per command of each run ('fray help limits')\n"
                            "\n"
                            "Intervals are 95% (Wilson's for shares, normal for means). A progress bar\n"
                            "shows on a terminal when the runs take more than a second.\n"
                            "\n"
                            "Examples:\n"
                            "  fray sim examples/variants/keen-legend-duel.rules\n"
                            "  fray sim -n 5000 --vs legend examples/variants/keen-legend-duel.rules\n"
                            "  fray sim examples/legend-skirmish.rules examples/shock-skirmish.rules\n";

/* --- figures ------------------------------------------------------------------- */

static const fray_sim_side *find_side(const fray_sim_result *r, const char *name)
{
    for (size_t i = 0; i < r->nsides; i++)
        if (!strcmp(r->sides[i].name, name))
            return &r->sides[i];
    return NULL;
}

static const fray_sim_creature *find_creature(const fray_sim_result *r, const char *name)
{
    for (size_t i = 0; i < r->ncreatures; i++)
        if (!strcmp(r->creatures[i].name, name))
            return &r->creatures[i];
    return NULL;
}

static const fray_sim_trigger *find_trigger(const fray_sim_result *r, const char *name)
{
    for (size_t i = 0; i < r->ntriggers; i++)
        if (!strcmp(r->triggers[i].name, name))
            return &r->triggers[i];
    return NULL;
}

/* Every name of a kind, from every result, in the order first seen: as
   many as there are (a table of more than any fixed number of creatures
   still shows each). */
typedef struct names {
    const char **v;
    int n;
    size_t cap;
} names;

/* False when out of memory. */
static bool add_name(names *ns, const char *name)
{
    for (int i = 0; i < ns->n; i++)
        if (!strcmp(ns->v[i], name))
            return true;
    if ((size_t)ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 16;
        const char **grown = realloc(ns->v, cap * sizeof *ns->v);
        if (!grown)
            return false;
        ns->v = grown;
        ns->cap = cap;
    }
    ns->v[ns->n++] = name;
    return true;
}

static void names_free(names *ns)
{
    free(ns->v);
    *ns = (names){0};
}

/* --- the table ------------------------------------------------------------------- */

#define LABEL 24
#define CELL 24

static void cell(FILE *out, const char *text)
{
    fprintf(out, "  %-*s", CELL, text);
}

static void share_cell(FILE *out, uint64_t k, uint64_t n)
{
    double lo, hi;
    share_interval(k, n, &lo, &hi);
    char buf[64];
    snprintf(buf, sizeof buf, "%5.1f%% (%.1f-%.1f)", 100.0 * (double)k / (double)(n ? n : 1), 100 * lo, 100 * hi);
    cell(out, buf);
}

static void mean_cell(FILE *out, uint64_t sum, uint64_t squares, uint64_t n)
{
    double mean, half;
    mean_interval(sum, squares, n, &mean, &half);
    char buf[64];
    snprintf(buf, sizeof buf, "%.2f %s %.2f", mean, cli_utf8_terminal() ? "±" : "+-", half);
    cell(out, buf);
}

/* The second system's figure less the first's, d, with its 95% interval
   (d +- 1.96 se, the two sets of runs taken as independent), and whether
   the interval leaves out 0: a difference chance alone would seldom make
   (the cell of the third column, in unit). */
static void difference_cell(FILE *out, double d, double se, int decimals, const char *unit)
{
    char buf[96];
    double lo = d - 1.959963984540054 * se, hi = d + 1.959963984540054 * se;
    if (se == 0 && d == 0)
        snprintf(buf, sizeof buf, "none");
    else
        snprintf(buf, sizeof buf, "%+.*f%s (%+.*f to %+.*f), %s", decimals, d, unit, decimals, lo, decimals, hi,
                 lo > 0 || hi < 0 ? "significant" : "not significant");
    cell(out, buf);
}

/* Of two shares, k1 of n1 and k2 of n2: in percentage points. */
static void share_difference(FILE *out, uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
    double p1 = n1 ? (double)k1 / (double)n1 : 0, p2 = n2 ? (double)k2 / (double)n2 : 0;
    double se = sqrt((n1 ? p1 * (1 - p1) / (double)n1 : 0) + (n2 ? p2 * (1 - p2) / (double)n2 : 0));
    difference_cell(out, 100 * (p2 - p1), 100 * se, 1, " pts");
}

/* Of two means, each from a sum and a sum of squares over its runs. */
static void mean_difference(FILE *out, uint64_t s1, uint64_t q1, uint64_t n1, uint64_t s2, uint64_t q2, uint64_t n2)
{
    double m1, v1, m2, v2;
    mean_variance(s1, q1, n1, &m1, &v1);
    mean_variance(s2, q2, n2, &m2, &v2);
    difference_cell(out, m2 - m1, sqrt((n1 ? v1 / (double)n1 : 0) + (n2 ? v2 / (double)n2 : 0)), 2, "");
}

/* A row's label, padded to the column; a longer one is written whole and
   the row's cells follow it, a step to the right. */
static void labelf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void labelf(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int width = vfprintf(out, fmt, ap);
    va_end(ap);
    if (width >= 0 && width < LABEL)
        fprintf(out, "%*s", LABEL - width, "");
}

static void label(FILE *out, const char *text)
{
    labelf(out, "%s", text);
}

/* The results side by side: the runs, then one column per result. */
typedef struct table {
    FILE *out;
    const fray_sim_result *const *rs;
    int n;
    bool all; /* every length of fight a row, never bins */
} table;

static void print_heading(const table *t, const char *const *titles, const char *scenario, uint64_t seed, int threads)
{
    const fray_sim_result *r0 = t->rs[0];
    fprintf(t->out, "%s: %llu run%s (seeds %llu to %llu), ", scenario, (unsigned long long)r0->runs,
            r0->runs == 1 ? "" : "s", (unsigned long long)seed, (unsigned long long)(seed + r0->runs - 1));
    if (threads > 0)
        fprintf(t->out, "%d thread%s\n", threads, threads == 1 ? "" : "s");
    else /* parts merged, played on several thread counts */
        fprintf(t->out, "parts merged\n");
    label(t->out, "");
    for (int i = 0; i < t->n; i++)
        cell(t->out, titles[i]);
    if (t->n == 2) /* the second less the first, and whether chance alone would explain it */
        cell(t->out, "difference (95% interval)");
    fprintf(t->out, "\n\n");
}

/* Each side's share of the wins, and of the runs won by no one. */
static bool print_winners(const table *t)
{
    FILE *out = t->out;
    label(out, "Winner (95% interval)");
    fputc('\n', out);
    names sides = {0};
    for (int i = 0; i < t->n; i++)
        for (size_t k = 0; k < t->rs[i]->nsides; k++)
            if (!add_name(&sides, t->rs[i]->sides[k].name))
                return names_free(&sides), false;
    for (int s = 0; s < sides.n; s++) {
        labelf(out, "  %s", sides.v[s]);
        uint64_t wins[2] = {0, 0};
        for (int i = 0; i < t->n; i++) {
            const fray_sim_side *side = find_side(t->rs[i], sides.v[s]);
            wins[i] = side ? side->wins : 0;
            share_cell(out, wins[i], t->rs[i]->runs);
        }
        if (t->n == 2)
            share_difference(out, wins[0], t->rs[0]->runs, wins[1], t->rs[1]->runs);
        fputc('\n', out);
    }
    names_free(&sides);
    bool undecided = false, nobody = false;
    for (int i = 0; i < t->n; i++) {
        undecided |= t->rs[i]->undecided > 0;
        nobody |= t->rs[i]->nobody > 0;
    }
    if (undecided) {
        label(out, "  no winner yet");
        for (int i = 0; i < t->n; i++)
            share_cell(out, t->rs[i]->undecided, t->rs[i]->runs);
        if (t->n == 2)
            share_difference(out, t->rs[0]->undecided, t->rs[0]->runs, t->rs[1]->undecided, t->rs[1]->runs);
        fputc('\n', out);
    }
    if (nobody) {
        label(out, "  every side down");
        for (int i = 0; i < t->n; i++)
            share_cell(out, t->rs[i]->nobody, t->rs[i]->runs);
        if (t->n == 2)
            share_difference(out, t->rs[0]->nobody, t->rs[0]->runs, t->rs[1]->nobody, t->rs[1]->runs);
        fputc('\n', out);
    }
    return true;
}

/* Mean, median, 90th percentile, shortest and longest fight, in rounds. */
static void print_round_figures(const table *t, const round_stats *st)
{
    static const char *const what[] = {"  mean", "  median", "  90th percentile", "  shortest", "  longest"};
    for (int row = 0; row < 5; row++) {
        label(t->out, what[row]);
        for (int i = 0; i < t->n; i++) {
            char buf[32];
            size_t v[] = {0, st[i].median, st[i].p90, st[i].shortest, st[i].longest};
            if (row == 0)
                snprintf(buf, sizeof buf, "%.2f", st[i].mean);
            else
                snprintf(buf, sizeof buf, "%zu", v[row]);
            cell(t->out, buf);
        }
        if (row == 0 && t->n == 2)
            mean_difference(t->out, st[0].sum, st[0].squares, st[0].decided, st[1].sum, st[1].squares, st[1].decided);
        fputc('\n', t->out);
    }
}

/* Runs of column i that lasted from a to b rounds. */
static uint64_t runs_within(const table *t, int i, size_t a, size_t b)
{
    uint64_t runs = 0;
    for (size_t k = a; k <= b && k < t->rs[i]->nrounds; k++)
        runs += t->rs[i]->rounds[k];
    return runs;
}

/* How often a fight lasts each number of rounds, as a bar per column; past
   a screen's worth of lengths (unless --all), in bins of a round width. */
static void print_round_bars(const table *t, size_t shortest, size_t longest)
{
    bool unicode = cli_utf8_terminal();
    size_t lengths = 0;
    for (size_t k = shortest; k <= longest; k++)
        for (int i = 0; i < t->n; i++)
            if (runs_within(t, i, k, k)) {
                lengths++;
                break;
            }
    size_t width = 1, first = shortest;
    if (lengths > CLI_MOST_ROWS && !t->all) {
        width = (size_t)cli_round_width((int64_t)((longest - shortest + CLI_MOST_ROWS) / CLI_MOST_ROWS));
        first = shortest / width * width;
    }
    uint64_t top = 0;
    for (size_t a = first; a <= longest; a += width)
        for (int i = 0; i < t->n; i++)
            top = runs_within(t, i, a, a + width - 1) > top ? runs_within(t, i, a, a + width - 1) : top;
    for (size_t a = first; a <= longest; a += width) {
        size_t b = a + width - 1;
        /* a length (or a bin) no run had, in any column, is left out */
        bool any = false;
        for (int i = 0; i < t->n && !any; i++)
            any = runs_within(t, i, a, b) > 0;
        if (!any)
            continue;
        char text[48];
        if (width == 1)
            snprintf(text, sizeof text, "  %zu round%s", a, a == 1 ? "" : "s");
        else
            snprintf(text, sizeof text, "  %zu-%zu rounds", a > shortest ? a : shortest, b < longest ? b : longest);
        label(t->out, text);
        for (int i = 0; i < t->n; i++) {
            uint64_t runs = runs_within(t, i, a, b);
            char buf[32];
            snprintf(buf, sizeof buf, "%5.1f%% ", 100.0 * (double)runs / (double)t->rs[i]->runs);
            fprintf(t->out, "  %s", buf);
            int cells = cli_bar(t->out, top ? (double)runs / (double)top : 0, CELL - 8, unicode);
            if (i + 1 < t->n)
                fprintf(t->out, "%*s", CELL - (int)strlen(buf) - cells, "");
        }
        fputc('\n', t->out);
    }
    if (width > 1)
        fprintf(t->out, "  (%zu lengths of fight in bins of %zu rounds; --all shows each)\n", lengths, width);
}

static void print_rounds(const table *t)
{
    fputc('\n', t->out);
    label(t->out, "Rounds");
    fputc('\n', t->out);
    round_stats st[2];
    size_t longest = 0;
    for (int i = 0; i < t->n; i++) {
        st[i] = rounds_of(t->rs[i]);
        longest = st[i].longest > longest ? st[i].longest : longest;
    }
    print_round_figures(t, st);
    size_t shortest = longest;
    for (int i = 0; i < t->n; i++)
        shortest = st[i].shortest < shortest ? st[i].shortest : shortest;
    print_round_bars(t, shortest, longest);
}

/* What one creature deals and takes per fight, and how often it ends down. */
static void print_creature(const table *t, const char *name)
{
    FILE *out = t->out;
    const fray_sim_creature *any = NULL;
    for (int i = 0; i < t->n && !any; i++)
        any = find_creature(t->rs[i], name);
    labelf(out, "  %s%s%s%s", name, any->side ? " (" : "", any->side ? any->side : "", any->side ? ")" : "");
    fputc('\n', out);
    static const char *const rows[] = {"    deals per fight", "    takes per fight", "    ends down"};
    for (int row = 0; row < 3; row++) {
        label(out, rows[row]);
        const fray_sim_creature *in[2] = {NULL, NULL};
        for (int i = 0; i < t->n; i++) {
            const fray_sim_creature *cr = in[i] = find_creature(t->rs[i], name);
            if (!cr)
                cell(out, "-");
            else if (row == 0)
                mean_cell(out, cr->dealt, cr->dealt_squares, t->rs[i]->runs);
            else if (row == 1)
                mean_cell(out, cr->taken, cr->taken_squares, t->rs[i]->runs);
            else
                share_cell(out, cr->down, t->rs[i]->runs);
        }
        if (t->n == 2 && (!in[0] || !in[1]))
            cell(out, "-");
        else if (t->n == 2) {
            uint64_t n0 = t->rs[0]->runs, n1 = t->rs[1]->runs;
            if (row == 0)
                mean_difference(out, in[0]->dealt, in[0]->dealt_squares, n0, in[1]->dealt, in[1]->dealt_squares, n1);
            else if (row == 1)
                mean_difference(out, in[0]->taken, in[0]->taken_squares, n0, in[1]->taken, in[1]->taken_squares, n1);
            else
                share_difference(out, in[0]->down, n0, in[1]->down, n1);
        }
        fputc('\n', out);
    }
}

static bool print_damage(const table *t)
{
    const fray_sim_result *r0 = t->rs[0];
    fputc('\n', t->out);
    labelf(t->out, "Damage (%s lost)", r0->health[0] ? r0->health : "nothing counted");
    fputc('\n', t->out);
    names cs = {0};
    for (int i = 0; i < t->n; i++)
        for (size_t k = 0; k < t->rs[i]->ncreatures; k++)
            if (!add_name(&cs, t->rs[i]->creatures[k].name))
                return names_free(&cs), false;
    for (int c = 0; c < cs.n; c++)
        print_creature(t, cs.v[c]);
    names_free(&cs);
    return true;
}

/* How often each trigger fires per fight, and in how many fights. */
static bool print_triggers(const table *t)
{
    FILE *out = t->out;
    names ts = {0};
    for (int i = 0; i < t->n; i++)
        for (size_t k = 0; k < t->rs[i]->ntriggers; k++)
            if (!t->rs[i]->triggers[k].internal && !add_name(&ts, t->rs[i]->triggers[k].name))
                return names_free(&ts), false;
    if (ts.n) {
        fputc('\n', out);
        label(out, "Triggers (per fight; in)");
        fputc('\n', out);
    }
    for (int k = 0; k < ts.n; k++) {
        labelf(out, "  %s", ts.v[k]);
        for (int i = 0; i < t->n; i++) {
            const fray_sim_trigger *tr = find_trigger(t->rs[i], ts.v[k]);
            char buf[64];
            if (tr)
                snprintf(buf, sizeof buf, "%.3f; %.1f%% of fights", (double)tr->fired / (double)t->rs[i]->runs,
                         100.0 * (double)tr->runs / (double)t->rs[i]->runs);
            else
                snprintf(buf, sizeof buf, "never");
            cell(out, buf);
        }
        fputc('\n', out);
    }
    names_free(&ts);
    return true;
}

/* False when out of memory (the names of a section could not be kept). */
static bool print_table(FILE *out, const fray_sim_result *const *rs, const char *const *titles, int n,
                        const char *scenario, uint64_t seed, int threads, bool all)
{
    table t = {out, rs, n, all};
    print_heading(&t, titles, scenario, seed, threads);
    if (!print_winners(&t))
        return false;
    print_rounds(&t);
    return print_damage(&t) && print_triggers(&t);
}

/* --- JSON -------------------------------------------------------------------------- */

static void json_share(const char *key, uint64_t k, uint64_t n)
{
    double lo, hi;
    share_interval(k, n, &lo, &hi);
    printf("\"%s\": {\"runs\": %llu, \"share\": %.17g, \"low\": %.17g, \"high\": %.17g}", key, (unsigned long long)k,
           n ? (double)k / (double)n : 0.0, lo, hi);
}

static void json_mean(const char *key, uint64_t sum, uint64_t squares, uint64_t n)
{
    double mean, half;
    mean_interval(sum, squares, n, &mean, &half);
    printf("\"%s\": {\"mean\": %.17g, \"low\": %.17g, \"high\": %.17g}", key, mean, mean - half, mean + half);
}

static void print_json(const fray_sim_result *const *rs, const char *const *titles, int n, const char *scenario,
                       const char *other, uint64_t seed, int threads)
{
    printf("{\"scenario\": ");
    cli_json_string(scenario);
    if (other) {
        printf(", \"other_scenario\": ");
        cli_json_string(other);
    }
    printf(", \"runs\": %llu, \"seed\": %llu, \"threads\": %d, \"results\": [", (unsigned long long)rs[0]->runs,
           (unsigned long long)seed, threads);
    for (int i = 0; i < n; i++) {
        const fray_sim_result *r = rs[i];
        printf("%s\n  {\"rules\": ", i ? "," : "");
        cli_json_string(titles[i]);
        printf(", \"system\": ");
        cli_json_string(r->system);
        printf(", \"health\": ");
        cli_json_string(r->health);
        printf(",\n   \"winners\": [");
        for (size_t k = 0; k < r->nsides; k++) {
            printf("%s{\"side\": ", k ? ", " : "");
            cli_json_string(r->sides[k].name);
            printf(", ");
            json_share("wins", r->sides[k].wins, r->runs);
            putchar('}');
        }
        printf("],\n   ");
        json_share("undecided", r->undecided, r->runs);
        printf(", ");
        json_share("nobody", r->nobody, r->runs);
        round_stats st = rounds_of(r);
        printf(",\n   \"rounds\": {\"mean\": %.17g, \"median\": %zu, \"p90\": %zu, \"min\": %zu, \"max\": %zu, "
               "\"histogram\": [",
               st.mean, st.median, st.p90, st.shortest, st.longest);
        bool first = true;
        for (size_t k = 0; k < r->nrounds; k++) {
            if (!r->rounds[k])
                continue;
            printf("%s{\"rounds\": %zu, \"runs\": %llu}", first ? "" : ", ", k, (unsigned long long)r->rounds[k]);
            first = false;
        }
        printf("]},\n   \"creatures\": [");
        for (size_t k = 0; k < r->ncreatures; k++) {
            const fray_sim_creature *c = &r->creatures[k];
            printf("%s\n    {\"name\": ", k ? "," : "");
            cli_json_string(c->name);
            printf(", \"side\": ");
            if (c->side)
                cli_json_string(c->side);
            else
                printf("null");
            printf(", ");
            json_mean("dealt", c->dealt, c->dealt_squares, r->runs);
            printf(", ");
            json_mean("taken", c->taken, c->taken_squares, r->runs);
            printf(", ");
            json_share("down", c->down, r->runs);
            putchar('}');
        }
        printf("],\n   \"triggers\": [");
        for (size_t k = 0; k < r->ntriggers; k++) {
            const fray_sim_trigger *t = &r->triggers[k];
            printf("%s\n    {\"name\": ", k ? "," : "");
            cli_json_string(t->name);
            printf(", \"fired\": %llu, \"per_run\": %.17g, ", (unsigned long long)t->fired,
                   (double)t->fired / (double)r->runs);
            json_share("in_runs", t->runs, r->runs);
            if (t->internal)
                printf(", \"internal\": true");
            putchar('}');
        }
        printf("]}");
    }
    printf("\n]}\n");
}

/* --- progress ------------------------------------------------------------------------ */

typedef struct progress {
    struct timespec start;
    bool shown;
} progress;

static double elapsed(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* On a terminal, once the runs have taken a second: a bar on stderr,
   wiped when they are done. */
static void show_progress(void *user, uint64_t done, uint64_t runs)
{
    progress *pg = user;
    if (done >= runs) {
        if (pg->shown)
            fprintf(stderr, "\r%*s\r", 60, "");
        pg->shown = false;
        return;
    }
    if (elapsed(&pg->start) < 1.0)
        return;
    int width = 30, filled = (int)((double)done / (double)runs * width);
    fprintf(stderr, "\r[%.*s%*s] %3d%% %llu/%llu runs", filled, "##############################", width - filled, "",
            (int)(100.0 * (double)done / (double)runs), (unsigned long long)done, (unsigned long long)runs);
    fflush(stderr);
    pg->shown = true;
}

/* --- the command ------------------------------------------------------------------------ */

/* One figure of the CSV: a share (k of n) or a mean (from a sum and its
   squares), with its 95% interval. */
static void csv_share(const char *result, const char *section, const char *name, const char *figure, uint64_t k,
                      uint64_t n)
{
    double lo, hi;
    share_interval(k, n, &lo, &hi);
    cli_csv_field(result);
    printf(",%s,%s,%s,%.17g,%.17g,%.17g\n", section, name, figure, n ? (double)k / (double)n : 0, lo, hi);
}

static void csv_mean(const char *result, const char *section, const char *name, const char *figure, uint64_t sum,
                     uint64_t squares, uint64_t n)
{
    double mean, half;
    mean_interval(sum, squares, n, &mean, &half);
    cli_csv_field(result);
    printf(",%s,%s,%s,%.17g,%.17g,%.17g\n", section, name, figure, mean, mean - half, mean + half);
}

/* The results as CSV, a figure a row (for a spreadsheet or a plotting
   tool): result,section,name,figure,value,low,high; names are the
   language's, which need no quoting. */
static void print_csv(fray_sim_result *const *rs, const char *const *titles, int n)
{
    printf("result,section,name,figure,value,low,high\n");
    for (int i = 0; i < n; i++) {
        const fray_sim_result *r = rs[i];
        const char *t = titles[i];
        for (size_t k = 0; k < r->nsides; k++)
            csv_share(t, "winner", r->sides[k].name, "wins", r->sides[k].wins, r->runs);
        csv_share(t, "winner", "", "undecided", r->undecided, r->runs);
        csv_share(t, "winner", "", "nobody", r->nobody, r->runs);
        round_stats st = rounds_of(r);
        csv_mean(t, "rounds", "", "mean", st.sum, st.squares, st.decided);
        for (size_t k = 0; k < r->nrounds; k++) {
            char round[32];
            snprintf(round, sizeof round, "%zu", k);
            if (r->rounds[k])
                csv_share(t, "rounds", round, "share", r->rounds[k], r->runs);
        }
        for (size_t k = 0; k < r->ncreatures; k++) {
            const fray_sim_creature *c = &r->creatures[k];
            csv_mean(t, "creature", c->name, "dealt", c->dealt, c->dealt_squares, r->runs);
            csv_mean(t, "creature", c->name, "taken", c->taken, c->taken_squares, r->runs);
            csv_share(t, "creature", c->name, "down", c->down, r->runs);
        }
        for (size_t k = 0; k < r->ntriggers; k++)
            if (!r->triggers[k].internal) {
                cli_csv_field(t);
                printf(",trigger,%s,per_run,%.17g,,\n", r->triggers[k].name,
                       (double)r->triggers[k].fired / (double)r->runs);
            }
    }
}

/* The chart of --plot: how many rounds fights last, and the damage each
   creature deals and takes per fight, each result a series (side by side
   with --vs); false after saying why. */
static bool plot_sim(fray_sim_result *const *rs, int n, const char *const *titles, const char *scenario,
                     const char *path)
{
    names cs = {0};
    size_t longest = 0;
    for (int i = 0; i < n; i++) {
        longest = rs[i]->nrounds > longest ? rs[i]->nrounds : longest;
        for (size_t k = 0; k < rs[i]->ncreatures; k++)
            if (!add_name(&cs, rs[i]->creatures[k].name))
                return names_free(&cs), fprintf(stderr, "fray: out of memory\n"), false;
    }
    size_t nc = (size_t)cs.n, per = longest + 2 * nc; /* one result's numbers */
    double *v = calloc((size_t)n * per * 3 + longest + nc + 1, sizeof *v);
    plot_series ser[6];
    bool ok = v != NULL;
    double *xs = ok ? v + (size_t)n * per * 3 : NULL, *xc = xs ? xs + longest : NULL;
    for (size_t k = 0; ok && k < longest; k++)
        xs[k] = (double)k;
    for (size_t c = 0; ok && c < nc; c++)
        xc[c] = (double)c + 1;
    for (int i = 0; ok && i < n; i++) {
        double *share = v + (size_t)i * per * 3, *dealt = share + longest, *taken = dealt + nc;
        for (size_t k = 0; k < rs[i]->nrounds; k++)
            share[k] = (double)rs[i]->rounds[k] / (double)rs[i]->runs;
        for (size_t c = 0; c < nc; c++)
            for (size_t k = 0; k < rs[i]->ncreatures; k++)
                if (!strcmp(rs[i]->creatures[k].name, cs.v[c])) {
                    dealt[c] = (double)rs[i]->creatures[k].dealt / (double)rs[i]->runs;
                    taken[c] = (double)rs[i]->creatures[k].taken / (double)rs[i]->runs;
                }
        ser[i] = (plot_series){titles[i], PLOT_BARS, longest, xs, share, NULL, NULL};
        ser[2 + i] = (plot_series){titles[i], PLOT_BARS, nc, xc, dealt, NULL, NULL};
        ser[4 + i] = (plot_series){titles[i], PLOT_BARS, nc, xc, taken, NULL, NULL};
    }
    if (ok) {
        plot_panel panels[3] = {
            {.title = "Rounds a fight lasts",
             .x_label = "rounds",
             .y_label = "share of fights",
             .y_percent = true,
             .x_whole = true,
             .series = ser,
             .nseries = (size_t)n},
            {.title = "Damage each creature deals per fight (mean)",
             .x_label = "creature",
             .y_label = "damage",
             .x_names = cs.v,
             .n_names = nc,
             .series = ser + 2,
             .nseries = (size_t)n},
            {.title = "Damage each creature takes per fight (mean)",
             .x_label = "creature",
             .y_label = "damage",
             .x_names = cs.v,
             .n_names = nc,
             .series = ser + 4,
             .nseries = (size_t)n},
        };
        ok = plot_svg_write(path, scenario, panels, 3);
    } else
        fprintf(stderr, "fray: out of memory\n");
    free(v);
    names_free(&cs);
    return ok;
}

/* The results as a table or JSON: an exit code. */
static int report(fray_sim_result *const *rs, int n, const char *scenario, const char *other, const char *vs,
                  const char *format, uint64_t seed, int jobs, const char *plot, bool all)
{
    int code = EXIT_OK;
    const char *titles[2] = {"", vs};
    titles[0] = rs[0]->system[0] ? rs[0]->system : "this scenario";
    if (n == 2)
        titles[1] = rs[1]->system[0] ? rs[1]->system : other ? other : vs;
    if (n == 2 && !strcmp(titles[0], titles[1])) {
        titles[0] = scenario;
        titles[1] = other ? other : vs;
    }
    const fray_sim_result *const *view = (const fray_sim_result *const *)rs;
    if (!strcmp(format, "json"))
        print_json(view, titles, n, scenario, other, seed, jobs);
    else if (!strcmp(format, "csv"))
        print_csv(rs, titles, n);
    else {
        /* the table is laid out in columns, then printed without the
           blanks that pad its last column */
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        char both[512];
        snprintf(both, sizeof both, "%s and %s", scenario, other ? other : "");
        bool printed = print_table(mem ? mem : stdout, view, titles, n, other ? both : scenario, seed, jobs, all);
        if (mem) {
            fclose(mem);
            if (printed)
                cli_print_trimmed(text);
            free(text); /* open_memstream's buffer is libc's */
        }
        if (!printed) {
            fprintf(stderr, "fray: out of memory\n");
            code = EXIT_IO;
        }
    }
    if (code == EXIT_OK && plot && !plot_sim(rs, n, titles, scenario, plot))
        code = EXIT_IO;
    return code;
}

enum { MAX_SETS = 16 };

/* What the command line asks for besides the shared options. */
typedef struct sim_args {
    uint64_t runs, jobs, from, to; /* from..to: --runs FROM..TO, a slice */
    bool slice, merge, all;
    const char *vs, *health, *format, *plot;
    fray_sim_set sets[MAX_SETS];
    cli_set given[MAX_SETS];
    size_t nsets;
    fray_sim_answer answers[MAX_SETS];
    cli_answer given_answers[MAX_SETS];
    size_t nanswers;
} sim_args;

/* `--runs N`, or `--runs FROM..TO` (a slice of the runs); false when it is
   neither. */
static bool parse_runs(const char *val, sim_args *a)
{
    const char *dots = val ? strstr(val, "..") : NULL;
    if (!dots)
        return cli_parse_u64(val, 1, 100000000, &a->runs);
    char from[32];
    if ((size_t)(dots - val) >= sizeof from)
        return false;
    memcpy(from, val, (size_t)(dots - val));
    from[dots - val] = '\0';
    a->slice = true;
    return cli_parse_u64(from, 0, UINT64_MAX - 1, &a->from) && cli_parse_u64(dots + 2, 0, UINT64_MAX - 1, &a->to) &&
           a->to >= a->from && a->to - a->from < 100000000;
}

/* Takes this command's options out of argv, the rest left in rest; -1 to
   go on, or an exit code. */
static int sim_args_parse(int argc, char **argv, sim_args *a, char **rest, int *nrest)
{
    *a = (sim_args){.runs = 1000, .format = "table"};
    rest[(*nrest)++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (!strcmp(opt, "--merge") || !strcmp(opt, "--all")) {
            *(opt[2] == 'm' ? &a->merge : &a->all) = true;
            takes = false;
        } else if (!strcmp(opt, "-n") || !strcmp(opt, "--runs")) {
            if (!parse_runs(val, a)) {
                fprintf(stderr,
                        "fray sim: %s takes a count of runs from 1 to 100000000, or a slice of them: "
                        "FROM..TO (runs from 0)\n",
                        opt);
                return EXIT_USAGE;
            }
        } else if (!strcmp(opt, "-j") || !strcmp(opt, "--jobs")) {
            if (!val || !cli_parse_u64(val, 1, 256, &a->jobs)) {
                fprintf(stderr, "fray sim: %s takes a count of threads from 1 to 256\n", opt);
                return EXIT_USAGE;
            }
        } else if (!strcmp(opt, "--set")) {
            cli_set *g = &a->given[a->nsets];
            if (!val || a->nsets == MAX_SETS || !cli_parse_set(val, g) || g->range) {
                fprintf(stderr, "fray sim: --set takes CREATURE.STAT=N, a whole number (at most %d of them)%s\n",
                        MAX_SETS, val && strstr(val, "..") ? "; a range is for 'fray sweep'" : "");
                return EXIT_USAGE;
            }
            if (cli_set_repeated(a->given, a->nsets, g)) {
                fprintf(stderr, "fray sim: --set %s.%s is given twice\n", g->creature, g->stat);
                return EXIT_USAGE;
            }
            a->sets[a->nsets++] = (fray_sim_set){g->creature, g->stat, g->lo};
        } else if (!strcmp(opt, "--answer")) {
            cli_answer *g = &a->given_answers[a->nanswers];
            if (!val || a->nanswers == MAX_SETS || !cli_parse_answer(val, g) || !*g->answer ||
                strstr(g->answer, "..") || strchr(g->answer, ',')) {
                fprintf(stderr, "fray sim: --answer takes RULING=ANSWER, as typed at its question (at most %d)%s\n",
                        MAX_SETS,
                        val && (strstr(val, "..") || strchr(val, ',')) ? "; several answers are for 'fray sweep'" : "");
                return EXIT_USAGE;
            }
            if (cli_answer_repeated(a->given_answers, a->nanswers, g)) {
                fprintf(stderr, "fray sim: --answer %s is given twice\n", g->ruling);
                return EXIT_USAGE;
            }
            a->answers[a->nanswers++] = (fray_sim_answer){g->ruling, g->answer};
        } else if (!strcmp(opt, "--vs"))
            a->vs = val;
        else if (!strcmp(opt, "--health"))
            a->health = val;
        else if (!strcmp(opt, "--format"))
            a->format = val;
        else if (!strcmp(opt, "--plot"))
            a->plot = val;
        else {
            takes = false;
            if (strcmp(opt, "--merge") && strcmp(opt, "--all"))
                rest[(*nrest)++] = argv[i];
        }
        if (takes) {
            if (!val) {
                fprintf(stderr, "fray sim: %s needs a value\nTry 'fray sim --help'.\n", opt);
                return EXIT_USAGE;
            }
            i++;
        }
    }
    rest[*nrest] = NULL;
    if (strcmp(a->format, "table") && strcmp(a->format, "json") && strcmp(a->format, "csv") &&
        strcmp(a->format, "part")) {
        fprintf(stderr, "fray sim: --format takes table, json, csv or part\n");
        return EXIT_USAGE;
    }
    if (a->merge && !strcmp(a->format, "part")) {
        fprintf(stderr, "fray sim: --merge prints a table or JSON, not a part\n");
        return EXIT_USAGE;
    }
    return -1;
}

/* `fray sim --merge PART...`: the parts added up, reported as one
   process playing every run would report them. */
static int merge_parts(char *const *paths, int n, const char *format, const char *plot, bool all)
{
    sim_whole w;
    fray_sim_result *rs[2];
    if (!sim_parts_merge(paths, n, &w, rs))
        return EXIT_RULES;
    int code = report(rs, w.n, w.scenario, w.other, w.vs, format, w.seed, w.threads, plot, all);
    sim_merged_free(rs[0]);
    sim_merged_free(rs[1]);
    sim_whole_free(&w);
    return code;
}

int cmd_sim(int argc, char **argv)
{
    sim_args a;
    char **rest = argv; /* the arguments not taken here, kept in place: never more than there are */
    int nrest = 0;
    int rc = sim_args_parse(argc, argv, &a, rest, &nrest);
    if (rc >= 0)
        return rc;
    cli_options o;
    int first;
    rc = cli_parse("sim", nrest, rest, &o, &first, usage);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (a.merge) {
        if (first >= nrest) {
            fprintf(stderr, "fray sim: --merge takes the parts to add up\nTry 'fray sim --help'.\n");
            return EXIT_USAGE;
        }
        return merge_parts(rest + first, nrest - first, a.format, a.plot, a.all);
    }
    if (nrest - first < 1 || nrest - first > 2 || (a.vs && nrest - first == 2)) {
        fprintf(stderr, "fray sim: %s\nTry 'fray sim --help'.\n",
                first >= nrest ? "no scenario"
                : a.vs         ? "one scenario with --vs (or two scenarios side by side, without it)"
                               : "one scenario, or two side by side");
        return EXIT_USAGE;
    }
    const char *scenario = rest[first];
    /* a second scenario, each of its own system: played side by side, as
       one scenario under two systems is with --vs */
    const char *other = nrest - first == 2 ? rest[first + 1] : NULL;
    /* a slice plays its runs as they come in the whole: run i on seed + i */
    uint64_t from = a.slice ? a.from : 0, runs = a.slice ? a.to - a.from + 1 : a.runs;
    if (o.seed > UINT64_MAX - from || o.seed + from > UINT64_MAX - (runs - 1)) {
        /* the last run must not wrap round to seed 0 */
        if (a.slice)
            fprintf(stderr, "fray sim: with --seed %llu, runs %llu..%llu would pass seed %llu; start lower\n",
                    (unsigned long long)o.seed, (unsigned long long)a.from, (unsigned long long)a.to,
                    (unsigned long long)UINT64_MAX);
        else
            fprintf(stderr, "fray sim: with --seed %llu, %llu runs would pass seed %llu; start lower\n",
                    (unsigned long long)o.seed, (unsigned long long)runs, (unsigned long long)UINT64_MAX);
        return EXIT_USAGE;
    }
    uint64_t jobs = a.jobs;
    if (!jobs) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cores > 0 ? (uint64_t)cores : 1;
        if (jobs > 256)
            jobs = 256;
    }
    fray *f = cli_open(&o);
    if (!f)
        return EXIT_IO;
    progress pg = {.shown = false};
    clock_gettime(CLOCK_MONOTONIC, &pg.start);
    bool tty = isatty(STDERR_FILENO);
    fray_sim_options so = {.runs = runs,
                           .threads = (int)jobs,
                           .seed = o.seed + from,
                           .health = a.health,
                           .progress = tty ? show_progress : NULL,
                           .progress_user = &pg,
                           .sets = a.sets,
                           .nsets = a.nsets,
                           .answers = a.answers,
                           .nanswers = a.nanswers};
    fray_sim_result *rs[2] = {NULL, NULL};
    int n = 1;
    int code = EXIT_OK;
    const char *vs = a.vs;
    if (vs || other) {
        /* the second compiled before the first is played: a slip in it is
           said at once, not after the first half's runs */
        fray_sim_options check = so;
        check.system_path = vs;
        check.check_only = true;
        fray_sim_result *none = NULL;
        fray_status st = fray_sim(f, other ? other : scenario, &check, &none);
        code = cli_exit_code(st);
        if (st == FRAY_ERR_RULES && vs)
            fprintf(stderr, "fray sim: %s does not compile under %s (--vs), as said above: nothing was played\n",
                    scenario, vs);
        else if (st == FRAY_ERR_RULES)
            fprintf(stderr, "fray sim: %s does not compile, as said above: nothing was played\n", other);
    }
    if (code == EXIT_OK)
        code = cli_exit_code(fray_sim(f, scenario, &so, &rs[0]));
    if (code == EXIT_OK && (vs || other)) {
        so.system_path = vs;
        clock_gettime(CLOCK_MONOTONIC, &pg.start);
        code = cli_exit_code(fray_sim(f, other ? other : scenario, &so, &rs[1]));
        n = 2;
    }
    if (code == EXIT_OK && !strcmp(a.format, "part")) {
        sim_whole w = {(char *)scenario, (char *)other, (char *)vs, o.seed, (int)jobs, n};
        sim_part_write(stdout, &w, from, from + runs - 1, (const fray_sim_result *const *)rs);
    } else if (code == EXIT_OK)
        code = report(rs, n, scenario, other, vs, a.format, o.seed + from, (int)jobs, a.plot, a.all);
    fray_sim_free(rs[0]);
    fray_sim_free(rs[1]);
    fray_close(f);
    return code;
}
