/* cmd_sweep: `fray sweep`, a scenario played many times at each value of
 * one creature's stat: who wins and how long fights last, value by value,
 * and the value that gives a target (a side winning half its fights, fights
 * of three rounds) found by bisection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/plot_svg.h"
#include "cli/sim_figures.h"

static const char usage[] =
    "Usage: fray sweep [OPTION]... --set CREATURE.STAT=LO..HI SCENARIO\n"
    "Play a scenario (as 'fray sim' does) at each value of one creature's stat,\n"
    "set as the creature is made (a group's name sets each member), and report\n"
    "each side's wins and the fights' rounds at each value, with 95% intervals.\n"
    "With --target, find the value that gives it by bisection instead of trying\n"
    "every value.\n"
    "\n"
    "  --set C.STAT=LO..HI  the stat swept (whole numbers); more --set C.STAT=N\n"
    "                       fix other stats at one value\n"
    "  --step N             try every Nth value from LO (default 1)\n"
    "  --target SIDE=P%     the value at which SIDE wins P% of the fights\n"
    "  --target rounds=R    the value at which fights last R rounds on average\n"
    "  -n, --runs N         runs at each value (default 400)\n"
    "  -j, --jobs N         threads (default: the machine's cores)\n"
    "  --seed N             seed of the first run of each value (default 0): every\n"
    "                       value plays the same seeds\n"
    "  --health STAT        the stat whose losses count as damage\n"
    "  --format FORMAT      table (default), csv or json\n"
    "  --plot FILE.svg      also draw each side's wins and the rounds against the\n"
    "                       value, in their 95% bands (an SVG a browser opens)\n"
    "  -I, --include DIR    look for `use` modules in DIR\n"
    "\n"
    "A value's figures are those 'fray sim --set C.STAT=VALUE' prints. Bisection\n"
    "takes the figure to move one way as the value grows, and reports the two\n"
    "neighbouring values it falls between.\n"
    "\n"
    "Examples:\n"
    "  fray sweep --set brute.max_hp=20..60 --step 5 examples/variants/keen-legend-duel.rules\n"
    "  fray sweep --set brute.max_hp=20..80 --target party=50% examples/variants/keen-legend-duel.rules\n";

/* One value tried: its result, kept for the table. */
typedef struct tried {
    int64_t value;
    fray_sim_result *r;
} tried;

typedef struct sweep {
    fray *f;
    const char *scenario;
    fray_sim_options so;
    fray_sim_set *sets; /* sets[0] is the swept one */
    size_t nsets;
    tried *t;
    size_t nt, cap;
    bool tty;
} sweep;

/* The result at value (played now, or kept from before); NULL after an
   error, which the library has said. */
static const fray_sim_result *play_at(sweep *s, int64_t value)
{
    for (size_t i = 0; i < s->nt; i++)
        if (s->t[i].value == value)
            return s->t[i].r;
    if (s->nt == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        tried *grown = realloc(s->t, cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "fray: out of memory\n");
            return NULL;
        }
        s->t = grown;
        s->cap = cap;
    }
    if (s->tty)
        fprintf(stderr, "\r%s.%s = %lld ...%*s", s->sets[0].creature, s->sets[0].stat, (long long)value, 20, "");
    s->sets[0].value = value;
    fray_sim_result *r = NULL;
    fray_status st = fray_sim(s->f, s->scenario, &s->so, &r);
    if (s->tty)
        fprintf(stderr, "\r%*s\r", 60, "");
    if (st != FRAY_OK)
        return NULL;
    s->t[s->nt++] = (tried){value, r};
    return r;
}

static uint64_t wins_of(const fray_sim_result *r, const char *side)
{
    for (size_t i = 0; i < r->nsides; i++)
        if (!strcmp(r->sides[i].name, side))
            return r->sides[i].wins;
    return 0;
}

/* A side's wins at one value, with their 95% interval. */
typedef struct side_wins {
    uint64_t wins;
    double share, lo, hi;
} side_wins;

static side_wins wins_at(const fray_sim_result *r, const char *side)
{
    side_wins w = {.wins = wins_of(r, side)};
    w.share = r->runs ? (double)w.wins / (double)r->runs : 0;
    share_interval(w.wins, r->runs, &w.lo, &w.hi);
    return w;
}

/* The mean rounds of the fights at one value, and the half-width of its
   95% interval. */
static double rounds_at(const fray_sim_result *r, double *half)
{
    round_stats st = rounds_of(r);
    double mean;
    mean_interval(st.sum, st.squares, st.decided, &mean, half);
    return mean;
}

/* The figure a target is about: a side's share of wins (in %, worked
   out as the table's is), or mean rounds. */
static double figure(const fray_sim_result *r, const char *side)
{
    if (side)
        return r->runs ? 100.0 * (double)wins_of(r, side) / (double)r->runs : 0;
    return rounds_of(r).mean;
}

static int by_value(const void *a, const void *b)
{
    const tried *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* Every side that won in any value's runs, in the order first seen. */
static size_t sides_of(const sweep *s, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nt; i++)
        for (size_t k = 0; k < s->t[i].r->nsides; k++) {
            const char *name = s->t[i].r->sides[k].name;
            bool seen = false;
            for (size_t j = 0; j < n && !seen; j++)
                seen = !strcmp(out[j], name);
            if (!seen && n < cap)
                out[n++] = name;
        }
    return n;
}

static void print_table(const sweep *s, const char **sides, size_t nsides)
{
    char head[160];
    snprintf(head, sizeof head, "%s.%s", s->sets[0].creature, s->sets[0].stat);
    printf("  %-16s", head);
    for (size_t k = 0; k < nsides; k++) {
        char col[96];
        snprintf(col, sizeof col, "%s wins", sides[k]);
        printf("  %-20s", col);
    }
    printf("  rounds\n");
    for (size_t i = 0; i < s->nt; i++) {
        const fray_sim_result *r = s->t[i].r;
        printf("  %-16lld", (long long)s->t[i].value);
        for (size_t k = 0; k < nsides; k++) {
            side_wins w = wins_at(r, sides[k]);
            char cell[64];
            snprintf(cell, sizeof cell, "%5.1f%% (%.1f-%.1f)", 100.0 * w.share, 100 * w.lo, 100 * w.hi);
            printf("  %-20s", cell);
        }
        double half, mean = rounds_at(r, &half);
        printf("  %.2f %s %.2f\n", mean, cli_utf8_terminal() ? "±" : "+-", half);
    }
}

static void print_csv(const sweep *s, const char **sides, size_t nsides)
{
    printf("%s.%s", s->sets[0].creature, s->sets[0].stat);
    for (size_t k = 0; k < nsides; k++)
        printf(",%s_wins,%s_share,%s_low,%s_high", sides[k], sides[k], sides[k], sides[k]);
    printf(",runs,rounds_mean,rounds_low,rounds_high\n");
    for (size_t i = 0; i < s->nt; i++) {
        const fray_sim_result *r = s->t[i].r;
        printf("%lld", (long long)s->t[i].value);
        for (size_t k = 0; k < nsides; k++) {
            side_wins w = wins_at(r, sides[k]);
            printf(",%llu,%.17g,%.17g,%.17g", (unsigned long long)w.wins, w.share, w.lo, w.hi);
        }
        double half, mean = rounds_at(r, &half);
        printf(",%llu,%.17g,%.17g,%.17g\n", (unsigned long long)r->runs, mean, mean - half, mean + half);
    }
}

/* The target: what it is about (a side, or NULL for rounds) and its level. */
typedef struct target {
    bool given;
    const char *side; /* NULL: rounds */
    double level;     /* a share in %, or rounds */
    char text[96];    /* as given */
} target;

/* What bisection found: the two neighbouring values tried whose figures
   lie on either side of the target (or meet it), or why there are none. */
typedef struct found {
    bool bracketed;
    int64_t below, above; /* values, below < above */
    double f_below, f_above;
} found;

static void print_json(const sweep *s, const char **sides, size_t nsides, const target *tg, const found *fd)
{
    printf("{\"scenario\": ");
    cli_json_string(s->scenario);
    printf(", \"set\": ");
    char name[160];
    snprintf(name, sizeof name, "%s.%s", s->sets[0].creature, s->sets[0].stat);
    cli_json_string(name);
    printf(", \"runs\": %llu, \"seed\": %llu, \"values\": [", (unsigned long long)s->so.runs,
           (unsigned long long)s->so.seed);
    for (size_t i = 0; i < s->nt; i++) {
        const fray_sim_result *r = s->t[i].r;
        printf("%s\n  {\"value\": %lld, \"winners\": [", i ? "," : "", (long long)s->t[i].value);
        for (size_t k = 0; k < nsides; k++) {
            side_wins w = wins_at(r, sides[k]);
            printf("%s{\"side\": ", k ? ", " : "");
            cli_json_string(sides[k]);
            printf(", \"wins\": {\"runs\": %llu, \"share\": %.17g, \"low\": %.17g, \"high\": %.17g}}",
                   (unsigned long long)w.wins, w.share, w.lo, w.hi);
        }
        double half, mean = rounds_at(r, &half);
        printf("], \"rounds\": {\"mean\": %.17g, \"low\": %.17g, \"high\": %.17g}}", mean, mean - half, mean + half);
    }
    printf("\n]");
    if (tg->given) {
        printf(", \"target\": {\"of\": ");
        cli_json_string(tg->side ? tg->side : "rounds");
        printf(", \"level\": %.17g, \"found\": %s", tg->side ? tg->level / 100 : tg->level,
               fd->bracketed ? "true" : "false");
        if (fd->bracketed)
            printf(", \"between\": [%lld, %lld]", (long long)fd->below, (long long)fd->above);
        printf("}");
    }
    printf("}\n");
}

/* A figure as the target names it: a share in %, or rounds. */
static void say_figure(char *out, size_t cap, const target *tg, double f)
{
    if (tg->side)
        snprintf(out, cap, "%.1f%%", f);
    else
        snprintf(out, cap, "%.2f rounds", f);
}

/* The chart of --plot: each side's wins against the value, in its 95%
   band, and the fights' mean rounds in theirs; false after saying why. */
static bool plot_sweep(const sweep *s, const char **sides, size_t nsides, const char *path)
{
    size_t n = s->nt, cells = (nsides + 1) * n;
    double *x = malloc(n * sizeof *x), *y = malloc(cells * sizeof *y), *lo = malloc(cells * sizeof *lo),
           *hi = malloc(cells * sizeof *hi);
    plot_series *ser = malloc((nsides + 1) * sizeof *ser);
    bool ok = x && y && lo && hi && ser;
    for (size_t i = 0; ok && i < n; i++) {
        const fray_sim_result *r = s->t[i].r;
        x[i] = (double)s->t[i].value;
        for (size_t k = 0; k < nsides; k++) {
            side_wins w = wins_at(r, sides[k]);
            y[k * n + i] = w.share, lo[k * n + i] = w.lo, hi[k * n + i] = w.hi;
        }
        double half, mean = rounds_at(r, &half);
        y[nsides * n + i] = mean, lo[nsides * n + i] = mean - half, hi[nsides * n + i] = mean + half;
    }
    char axis[160], names[64][96];
    snprintf(axis, sizeof axis, "%s.%s", s->sets[0].creature, s->sets[0].stat);
    for (size_t k = 0; ok && k <= nsides; k++) {
        if (k < nsides)
            snprintf(names[k], sizeof names[k], "%s wins", sides[k]);
        ser[k] = (plot_series){k < nsides ? names[k] : "rounds", PLOT_LINE, n, x, y + k * n, lo + k * n, hi + k * n};
    }
    if (ok) {
        plot_panel panels[2] = {
            {.title = "Wins (95% band)",
             .x_label = axis,
             .y_label = "share of fights",
             .y_percent = true,
             .x_whole = true,
             .series = ser,
             .nseries = nsides},
            {.title = "Rounds a fight lasts (mean, 95% band)",
             .x_label = axis,
             .y_label = "rounds",
             .x_whole = true,
             .series = ser + nsides,
             .nseries = 1},
        };
        char title[256];
        snprintf(title, sizeof title, "%s: %s", s->scenario, axis);
        ok = plot_svg_write(path, title, panels, 2);
    } else
        fprintf(stderr, "fray: out of memory\n");
    free(x), free(y), free(lo), free(hi), free(ser);
    return ok;
}

/* Bisection over whole values from lo to hi (step apart): the figure at
   each end, then at the middle of the pair that holds the target, until
   the pair is a step apart. */
static bool bisect(sweep *s, const target *tg, int64_t lo, int64_t hi, int64_t step, found *fd)
{
    const fray_sim_result *a = play_at(s, lo), *b = a ? play_at(s, hi) : NULL;
    if (!b)
        return false;
    double fa = figure(a, tg->side), fb = figure(b, tg->side);
    *fd = (found){.below = lo, .above = hi, .f_below = fa, .f_above = fb};
    if ((fa - tg->level) * (fb - tg->level) > 0)
        return true; /* both on one side: not bracketed */
    while (hi - lo > step) {
        int64_t mid = lo + (hi - lo) / step / 2 * step;
        const fray_sim_result *m = play_at(s, mid);
        if (!m)
            return false;
        double fm = figure(m, tg->side);
        if ((fa - tg->level) * (fm - tg->level) <= 0) {
            hi = mid;
            fb = fm;
        } else {
            lo = mid;
            fa = fm;
        }
    }
    *fd = (found){.bracketed = true, .below = lo, .above = hi, .f_below = fa, .f_above = fb};
    return true;
}

/* Whether the target's share lies within the 95% interval of the figures
   at both values it was found between (chance alone could swap them). */
static bool within_both(const sweep *s, const target *tg, const found *fd)
{
    if (!tg->side)
        return false;
    int in = 0;
    for (size_t i = 0; i < s->nt; i++)
        if (s->t[i].value == fd->below || s->t[i].value == fd->above) {
            side_wins w = wins_at(s->t[i].r, tg->side);
            in += 100 * w.lo <= tg->level && tg->level <= 100 * w.hi;
        }
    return in == 2;
}

static bool parse_target(const char *text, target *tg)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || strlen(text) >= sizeof tg->text)
        return false;
    snprintf(tg->text, sizeof tg->text, "%s", text);
    tg->text[eq - text] = '\0';
    char *end;
    double level = strtod(eq + 1, &end);
    if (end == eq + 1 || !isfinite(level))
        return false;
    if (!strcmp(tg->text, "rounds")) {
        tg->side = NULL;
        if (*end || level <= 0)
            return false;
    } else {
        if (strcmp(end, "%") || level < 0 || level > 100)
            return false;
        tg->side = tg->text;
    }
    tg->level = level;
    tg->given = true;
    return true;
}

/* The sweep as a table, CSV or JSON, with what bisection found. */
static void report(const sweep *s, const char **sides, size_t nsides, const target *tg, const found *fd,
                   const char *format, int64_t lo, int64_t hi)
{
    if (!strcmp(format, "json"))
        print_json(s, sides, nsides, tg, fd);
    else if (!strcmp(format, "csv"))
        print_csv(s, sides, nsides);
    else {
        printf("%s: %s.%s from %lld to %lld, %llu runs at each value (seeds %llu to %llu), %d thread%s\n\n",
               s->scenario, s->sets[0].creature, s->sets[0].stat, (long long)lo, (long long)hi,
               (unsigned long long)s->so.runs, (unsigned long long)s->so.seed,
               (unsigned long long)(s->so.seed + s->so.runs - 1), s->so.threads, s->so.threads == 1 ? "" : "s");
        print_table(s, sides, nsides);
        if (tg->given) {
            char a[32], b[32], want[32];
            say_figure(a, sizeof a, tg, fd->f_below);
            say_figure(b, sizeof b, tg, fd->f_above);
            say_figure(want, sizeof want, tg, tg->level);
            const char *what = tg->side ? tg->side : "fights", *verb = tg->side ? "wins" : "last";
            if (fd->bracketed)
                printf("\n%s %s %s between %s.%s = %lld (%s) and %lld (%s)%s\n", what, verb, want, s->sets[0].creature,
                       s->sets[0].stat, (long long)fd->below, a, (long long)fd->above, b,
                       within_both(s, tg, fd) ? "; it lies within both values' 95% intervals: more runs (-n) "
                                                "would tell them apart"
                                              : "");
            else
                printf("\n%s %s %s at neither end nor between: %s at %lld and %s at %lld\n", what, verb, want, a,
                       (long long)fd->below, b, (long long)fd->above);
        }
    }
}

/* Whether the target's side won any fight (else it names those that did). */
static bool side_known(const target *tg, const char **sides, size_t nsides)
{
    bool known = !tg->side || !nsides;
    for (size_t k = 0; !known && k < nsides; k++)
        known = !strcmp(sides[k], tg->side);
    if (!known)
        fprintf(stderr, "fray sweep: no side '%s' won any fight here (sides that did: %s%s)\n", tg->side, sides[0],
                nsides > 1 ? ", ..." : "");
    return known;
}

int cmd_sweep(int argc, char **argv)
{
    uint64_t runs = 400, jobs = 0, step = 1;
    const char *health = NULL, *format = "table", *plot = NULL;
    enum { MAX_SETS = 16 };
    cli_set given[MAX_SETS];
    fray_sim_set sets[MAX_SETS];
    size_t nsets = 0;
    int swept = -1;
    target tg = {.given = false};
    char **rest = argv;
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (!strcmp(a, "-n") || !strcmp(a, "--runs")) {
            if (!val || !cli_parse_u64(val, 1, 100000000, &runs)) {
                fprintf(stderr, "fray sweep: %s takes a count of runs from 1 to 100000000\n", a);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
            if (!val || !cli_parse_u64(val, 1, 256, &jobs)) {
                fprintf(stderr, "fray sweep: %s takes a count of threads from 1 to 256\n", a);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--step")) {
            if (!val || !cli_parse_u64(val, 1, 1000000000, &step)) {
                fprintf(stderr, "fray sweep: --step takes a whole number from 1\n");
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--set")) {
            if (!val || nsets == MAX_SETS || !cli_parse_set(val, &given[nsets])) {
                fprintf(stderr, "fray sweep: --set takes CREATURE.STAT=LO..HI (or =N), whole numbers\n");
                return EXIT_USAGE;
            }
            if (given[nsets].range) {
                if (swept >= 0) {
                    fprintf(stderr, "fray sweep: one stat is swept at a time (a second range: %s)\n", val);
                    return EXIT_USAGE;
                }
                swept = (int)nsets;
            }
            nsets++;
        } else if (!strcmp(a, "--target")) {
            if (!val || !parse_target(val, &tg)) {
                fprintf(stderr, "fray sweep: --target takes SIDE=P%% (as party=50%%) or rounds=R (as rounds=3)\n");
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--health"))
            health = val;
        else if (!strcmp(a, "--plot"))
            plot = val;
        else if (!strcmp(a, "--format"))
            format = val;
        else {
            takes = false;
            rest[nrest++] = argv[i];
        }
        if (takes) {
            if (!val) {
                fprintf(stderr, "fray sweep: %s needs a value\nTry 'fray sweep --help'.\n", a);
                return EXIT_USAGE;
            }
            i++;
        }
    }
    rest[nrest] = NULL;
    if (strcmp(format, "table") && strcmp(format, "csv") && strcmp(format, "json")) {
        fprintf(stderr, "fray sweep: --format takes table, csv or json\n");
        return EXIT_USAGE;
    }
    cli_options o;
    int first, rc = cli_parse("sweep", nrest, rest, &o, &first, usage);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (nrest - first != 1 || swept < 0) {
        fprintf(stderr, "fray sweep: %s\nTry 'fray sweep --help'.\n",
                swept < 0        ? "no stat to sweep: --set CREATURE.STAT=LO..HI"
                : first >= nrest ? "no scenario"
                                 : "one scenario at a time");
        return EXIT_USAGE;
    }
    if (o.seed > UINT64_MAX - (runs - 1)) {
        fprintf(stderr, "fray sweep: with --seed %llu, %llu runs would pass seed %llu; start lower\n",
                (unsigned long long)o.seed, (unsigned long long)runs, (unsigned long long)UINT64_MAX);
        return EXIT_USAGE;
    }
    int64_t lo = given[swept].lo, hi = given[swept].hi;
    if ((uint64_t)(hi - lo) / step > 1000 && !tg.given) {
        fprintf(stderr, "fray sweep: %lld values from %lld to %lld: at most 1001 (a --step, or --target)\n",
                (long long)((uint64_t)(hi - lo) / step + 1), (long long)lo, (long long)hi);
        return EXIT_USAGE;
    }
    /* the swept one first: play_at sets its value */
    sets[0] = (fray_sim_set){given[swept].creature, given[swept].stat, lo};
    for (size_t i = 0, k = 1; i < nsets; i++)
        if ((int)i != swept)
            sets[k++] = (fray_sim_set){given[i].creature, given[i].stat, given[i].lo};
    if (!jobs) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cores > 0 ? (uint64_t)(cores > 256 ? 256 : cores) : 1;
    }
    fray *f = cli_open(&o);
    if (!f)
        return EXIT_IO;
    sweep s = {
        .f = f,
        .scenario = rest[first],
        .so = {.runs = runs, .threads = (int)jobs, .seed = o.seed, .health = health, .sets = sets, .nsets = nsets},
        .sets = sets,
        .nsets = nsets,
        .tty = isatty(STDERR_FILENO)};
    int code = EXIT_OK;
    found fd = {.bracketed = false};
    if (tg.given) {
        if (!bisect(&s, &tg, lo, lo + (hi - lo) / (int64_t)step * (int64_t)step, (int64_t)step, &fd))
            code = EXIT_RULES;
    } else {
        for (int64_t v = lo; v <= hi && code == EXIT_OK; v += (int64_t)step)
            if (!play_at(&s, v))
                code = EXIT_RULES;
    }
    const char *sides[64];
    size_t nsides = 0;
    if (code == EXIT_OK) {
        qsort(s.t, s.nt, sizeof *s.t, by_value);
        nsides = sides_of(&s, sides, 64);
        if (tg.side && !s.nt) /* nothing played */
            code = EXIT_RULES;
    }
    if (code == EXIT_OK && !side_known(&tg, sides, nsides))
        code = EXIT_USAGE;
    if (code == EXIT_OK)
        report(&s, sides, nsides, &tg, &fd, format, lo, hi);
    if (code == EXIT_OK && plot && !plot_sweep(&s, sides, nsides, plot))
        code = EXIT_IO;
    for (size_t i = 0; i < s.nt; i++)
        fray_sim_free(s.t[i].r);
    free(s.t);
    fray_close(f);
    return code;
}
