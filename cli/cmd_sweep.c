/* cmd_sweep: `fray sweep`, a scenario played many times at each value of
 * one creature's stat, or at each answer to one ruling: who wins and how
 * long fights last, value by value, and the value that gives a target (a
 * side winning half its fights, fights of three rounds) found by
 * bisection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/plot_svg.h"
#include "cli/sim_figures.h"
#include "cli/sweep_parts.h"

static const char usage[] =
    "Usage: fray sweep [OPTION]... --set CREATURE.STAT=LO..HI SCENARIO\n"
    "   or: fray sweep [OPTION]... --answer RULING[=A,B,...|=LO..HI] SCENARIO\n"
    "   or: fray sweep --merge [--format F] PART...\n"
    "Play a scenario (as 'fray sim' does) at each value of one creature's stat,\n"
    "set as the creature is made (a group's name sets each member), or at each\n"
    "answer to one of the rules' rulings, and report each side's wins and the\n"
    "fights' rounds at each value, with 95% intervals. With --target, find the\n"
    "value that gives it by bisection instead of trying every value.\n"
    "\n"
    "  --set C.STAT=LO..HI  the stat swept (whole numbers); more --set C.STAT=N\n"
    "                       fix other stats at one value\n"
    "  --answer RULING      each answer the ruling takes (no and yes, or the words\n"
    "                       of its `one of`), given in every run; =A,B,... these\n"
    "                       answers; =LO..HI every number from LO to HI; =A one\n"
    "                       answer, fixed while something else is swept\n"
    "  --step N             try every Nth value from LO (default 1)\n"
    "  --target SIDE=P%     the value at which SIDE wins P% of the fights\n"
    "  --target rounds=R    the value at which fights last R rounds on average\n"
    "  -n, --runs N         runs at each value (default 400)\n"
    "  --runs FROM..TO      play only these runs at each value, for --format part\n"
    "  -j, --jobs N         threads (default: the machine's cores)\n"
    "  --seed N             seed of the first run of each value (default 0): every\n"
    "                       value plays the same seeds\n"
    "  --health STAT        the stat whose losses count as damage\n"
    "  --format FORMAT      table (default), csv, json or part: a slice's sums at\n"
    "                       each value, which --merge adds up\n"
    "  --merge PART...      add up parts (played on other machines) and print\n"
    "                       exactly the sweep one process would\n"
    "  --plot FILE.svg      also draw each side's wins and the rounds against the\n"
    "                       value, in their 95% bands (an SVG a browser opens)\n"
    "  -I, --include DIR    look for `use` modules in DIR\n"
    "\n"
    "A value's figures are those 'fray sim --set C.STAT=VALUE' (or --answer\n"
    "RULING=ANSWER) prints. Bisection\n"
    "takes the figure to move one way as the value grows, and reports the two\n"
    "neighbouring values it falls between.\n"
    "\n"
    "Examples:\n"
    "  fray sweep --set brute.max_hp=20..60 --step 5 examples/variants/keen-legend-duel.rules\n"
    "  fray sweep --set brute.max_hp=20..80 --target party=50% examples/variants/keen-legend-duel.rules\n"
    "  fray sweep --answer death_roll_type examples/fortitude-skirmish.rules\n";

/* One value tried: its result, kept for the table. */
typedef struct tried {
    int64_t value; /* the number, or the index of the word answered */
    fray_sim_result *r;
} tried;

typedef struct sweep {
    fray *f;
    const char *scenario;
    fray_sim_options so;
    fray_sim_set *sets; /* sets[0] is the swept one, when a stat is */
    size_t nsets;
    fray_sim_answer *answers; /* answers[0] is the swept one, when a ruling is */
    size_t nanswers;
    bool ruling;        /* a ruling's answers are swept, not a stat */
    char name[160];     /* what is swept, as the table heads it: goblin.ac, or the ruling's name */
    const char **words; /* the ruling's answers tried, when they are words (else NULL) */
    size_t nwords;
    char number[32]; /* the number answered, as text */
    tried *t;
    size_t nt, cap;
    bool tty;
} sweep;

/* A value as the reader sees it: the number, or the word answered. */
static const char *value_text(const sweep *s, int64_t value, char *buf, size_t cap)
{
    if (s->words)
        return s->words[value];
    snprintf(buf, cap, "%lld", (long long)value);
    return buf;
}

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
    char buf[32];
    const char *shown = value_text(s, value, buf, sizeof buf);
    if (s->tty)
        fprintf(stderr, "\r%s = %s ...%*s", s->name, shown, 20, "");
    if (s->ruling) {
        snprintf(s->number, sizeof s->number, "%s", shown);
        s->answers[0].answer = s->words ? shown : s->number;
    } else
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
    printf("  %-16s", s->name);
    for (size_t k = 0; k < nsides; k++) {
        char col[96];
        snprintf(col, sizeof col, "%s wins", sides[k]);
        printf("  %-20s", col);
    }
    printf("  rounds\n");
    for (size_t i = 0; i < s->nt; i++) {
        const fray_sim_result *r = s->t[i].r;
        char buf[32];
        printf("  %-16s", value_text(s, s->t[i].value, buf, sizeof buf));
        for (size_t k = 0; k < nsides; k++) {
            side_wins w = wins_at(r, sides[k]);
            char cell[64];
            snprintf(cell, sizeof cell, "%5.1f%% (%.1f-%.1f)", 100.0 * (double)w.wins / (double)(r->runs ? r->runs : 1),
                     100 * w.lo, 100 * w.hi);
            printf("  %-20s", cell);
        }
        double half, mean = rounds_at(r, &half);
        printf("  %.2f %s %.2f\n", mean, cli_utf8_terminal() ? "±" : "+-", half);
    }
}

static void print_csv(const sweep *s, const char **sides, size_t nsides)
{
    printf("%s", s->name);
    for (size_t k = 0; k < nsides; k++)
        printf(",%s_wins,%s_share,%s_low,%s_high", sides[k], sides[k], sides[k], sides[k]);
    printf(",runs,rounds_mean,rounds_low,rounds_high\n");
    for (size_t i = 0; i < s->nt; i++) {
        const fray_sim_result *r = s->t[i].r;
        char buf[32];
        printf("%s", value_text(s, s->t[i].value, buf, sizeof buf));
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
    printf(", \"%s\": ", s->ruling ? "answer" : "set");
    cli_json_string(s->name);
    printf(", \"runs\": %llu, \"seed\": %llu, \"values\": [", (unsigned long long)s->so.runs,
           (unsigned long long)s->so.seed);
    for (size_t i = 0; i < s->nt; i++) {
        const fray_sim_result *r = s->t[i].r;
        printf("%s\n  {\"value\": ", i ? "," : "");
        if (s->words)
            cli_json_string(s->words[s->t[i].value]);
        else
            printf("%lld", (long long)s->t[i].value);
        printf(", \"winners\": [");
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
        x[i] = (double)s->t[i].value + (s->words ? 1 : 0); /* words are named from x = 1 */
        for (size_t k = 0; k < nsides; k++) {
            side_wins w = wins_at(r, sides[k]);
            y[k * n + i] = w.share, lo[k * n + i] = w.lo, hi[k * n + i] = w.hi;
        }
        double half, mean = rounds_at(r, &half);
        y[nsides * n + i] = mean, lo[nsides * n + i] = mean - half, hi[nsides * n + i] = mean + half;
    }
    char axis[192], names[64][96];
    snprintf(axis, sizeof axis, "%s%s", s->ruling ? "ruling " : "", s->name);
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
             .x_names = s->words,
             .n_names = s->nwords,
             .series = ser,
             .nseries = nsides},
            {.title = "Rounds a fight lasts (mean, 95% band)",
             .x_label = axis,
             .y_label = "rounds",
             .x_whole = true,
             .x_names = s->words,
             .n_names = s->nwords,
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
        printf("%s: %s%s ", s->scenario, s->ruling ? "ruling " : "", s->name);
        if (s->words) {
            printf("answered");
            for (size_t i = 0; i < s->nwords; i++)
                printf("%s %s", i ? (i + 1 == s->nwords ? " and" : ",") : "", s->words[i]);
        } else
            printf("from %lld to %lld", (long long)lo, (long long)hi);
        printf(", %llu runs at each %s (seeds %llu to %llu), ", (unsigned long long)s->so.runs,
               s->words ? "answer" : "value", (unsigned long long)s->so.seed,
               (unsigned long long)(s->so.seed + s->so.runs - 1));
        if (s->so.threads > 0)
            printf("%d thread%s\n\n", s->so.threads, s->so.threads == 1 ? "" : "s");
        else /* parts merged, played on several thread counts */
            printf("parts merged\n\n");
        print_table(s, sides, nsides);
        if (tg->given) {
            char a[32], b[32], want[32];
            say_figure(a, sizeof a, tg, fd->f_below);
            say_figure(b, sizeof b, tg, fd->f_above);
            say_figure(want, sizeof want, tg, tg->level);
            const char *what = tg->side ? tg->side : "fights", *verb = tg->side ? "wins" : "last";
            if (fd->bracketed)
                printf("\n%s %s %s between %s = %lld (%s) and %lld (%s)%s\n", what, verb, want, s->name,
                       (long long)fd->below, a, (long long)fd->above, b,
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

/* The answers fray_ruling_answers passes, copied. */
typedef struct word_list {
    char **words;
    size_t n, cap;
    bool failed;
} word_list;

static void add_word(void *user, const char *word)
{
    word_list *l = user;
    if (l->failed)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **grown = realloc(l->words, cap * sizeof *grown);
        if (!grown) {
            l->failed = true;
            return;
        }
        l->words = grown, l->cap = cap;
    }
    char *copy = strdup(word);
    if (!copy)
        l->failed = true;
    else
        l->words[l->n++] = copy;
}

static void words_free(word_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->words[i]);
    free(l->words);
}

/* The words of --answer R=A,B,... into l; false when one is empty. */
static bool split_answers(const char *text, word_list *l)
{
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        char word[128];
        if (!len || len >= sizeof word)
            return false;
        memcpy(word, p, len);
        word[len] = '\0';
        add_word(l, word);
        if (!p[len])
            return !l->failed;
        p += len + 1;
    }
}

/* Whether text is LO..HI, whole numbers (a number ruling's range). */
static bool answer_range(const char *ruling, const char *text, cli_set *out)
{
    char probe[256];
    if (snprintf(probe, sizeof probe, "r.%s=%s", ruling, text) >= (int)sizeof probe)
        return false;
    return cli_parse_set(probe, out) && out->range;
}

/* Each answer ruling takes, found by compiling the scenario (words[] set
   in l); an exit code, after saying why there are none to try. */
static int answers_of(fray *f, const char *scenario, const char *ruling, fray_sim_options so, word_list *l)
{
    if (fray_check_file(f, scenario, false) != FRAY_OK)
        return EXIT_RULES;
    int n = fray_ruling_answers(f, ruling, add_word, l);
    if (l->failed) {
        fprintf(stderr, "fray: out of memory\n");
        return EXIT_IO;
    }
    if (n < 0) {
        /* the library says so, with the nearest ruling's name */
        fray_sim_answer probe = {ruling, ""};
        so.answers = &probe, so.nanswers = 1, so.check_only = true;
        fray_sim_result *none = NULL;
        fray_sim(f, scenario, &so, &none);
        return EXIT_RULES;
    }
    if (n == 0) {
        fprintf(stderr,
                "fray sweep: ruling %s takes any answer of its kind: give those to try (--answer %s=A,B,... or "
                "=LO..HI)\n",
                ruling, ruling);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

enum { MAX_SETS = 16 };

/* What the command line asks for besides the shared options. */
typedef struct sweep_args {
    uint64_t runs, jobs, step;
    uint64_t from, to; /* --runs FROM..TO: a slice of the runs at each value */
    bool slice, merge;
    const char *health, *format, *plot;
    cli_set given[MAX_SETS];
    cli_answer given_answers[MAX_SETS];
    size_t nsets, nanswers;
    int swept, swept_answer; /* which --set or --answer is swept, or -1 */
    target tg;
    char **rest; /* the arguments left for cli_parse */
    int nrest;
} sweep_args;

/* One of sweep's own options and its value; false after saying why. */
static bool take_option(sweep_args *a, const char *opt, const char *val)
{
    if (!strcmp(opt, "-n") || !strcmp(opt, "--runs")) {
        cli_set slice;
        char probe[128];
        bool range = strstr(val, "..") && snprintf(probe, sizeof probe, "r.runs=%s", val) < (int)sizeof probe &&
                     cli_parse_set(probe, &slice) && slice.range && slice.lo >= 0 && slice.hi - slice.lo < 100000000;
        if (range) {
            a->slice = true;
            a->from = (uint64_t)slice.lo, a->to = (uint64_t)slice.hi;
            a->runs = a->to - a->from + 1;
        } else if (!cli_parse_u64(val, 1, 100000000, &a->runs)) {
            fprintf(stderr,
                    "fray sweep: %s takes a count of runs from 1 to 100000000, or a slice of them: FROM..TO (runs "
                    "from 0)\n",
                    opt);
            return false;
        }
    } else if (!strcmp(opt, "-j") || !strcmp(opt, "--jobs")) {
        if (!cli_parse_u64(val, 1, 256, &a->jobs)) {
            fprintf(stderr, "fray sweep: %s takes a count of threads from 1 to 256\n", opt);
            return false;
        }
    } else if (!strcmp(opt, "--step")) {
        if (!cli_parse_u64(val, 1, 1000000000, &a->step)) {
            fprintf(stderr, "fray sweep: --step takes a whole number from 1\n");
            return false;
        }
    } else if (!strcmp(opt, "--set")) {
        cli_set *g = &a->given[a->nsets];
        if (a->nsets == MAX_SETS || !cli_parse_set(val, g)) {
            fprintf(stderr, "fray sweep: --set takes CREATURE.STAT=LO..HI (or =N), whole numbers with LO <= HI\n");
            return false;
        }
        if (cli_set_repeated(a->given, a->nsets, g)) {
            fprintf(stderr, "fray sweep: --set %s.%s is given twice\n", g->creature, g->stat);
            return false;
        }
        if (g->range && (a->swept >= 0 || a->swept_answer >= 0)) {
            fprintf(stderr, "fray sweep: one thing is swept at a time (a second: --set %s)\n", val);
            return false;
        }
        if (g->range)
            a->swept = (int)a->nsets;
        a->nsets++;
    } else if (!strcmp(opt, "--answer")) {
        cli_answer *g = &a->given_answers[a->nanswers];
        if (a->nanswers == MAX_SETS || !cli_parse_answer(val, g)) {
            fprintf(stderr, "fray sweep: --answer takes RULING, RULING=A,B,..., RULING=LO..HI or RULING=A\n");
            return false;
        }
        if (cli_answer_repeated(a->given_answers, a->nanswers, g)) {
            fprintf(stderr, "fray sweep: --answer %s is given twice\n", g->ruling);
            return false;
        }
        bool several = !*g->answer || strchr(g->answer, ',') || strstr(g->answer, "..");
        if (several && (a->swept >= 0 || a->swept_answer >= 0)) {
            fprintf(stderr, "fray sweep: one thing is swept at a time (a second: --answer %s)\n", val);
            return false;
        }
        if (several)
            a->swept_answer = (int)a->nanswers;
        a->nanswers++;
    } else if (!strcmp(opt, "--target")) {
        if (!parse_target(val, &a->tg)) {
            fprintf(stderr, "fray sweep: --target takes SIDE=P%% (as party=50%%) or rounds=R (as rounds=3)\n");
            return false;
        }
    } else if (!strcmp(opt, "--health"))
        a->health = val;
    else if (!strcmp(opt, "--plot"))
        a->plot = val;
    else
        a->format = val;
    return true;
}

/* Reads the command line into a: EXIT_OK, or the exit code after saying why. */
static int parse_args(int argc, char **argv, sweep_args *a)
{
    static const char *const options[] = {"-n",       "--runs",   "-j",       "--jobs", "--step",  "--set",
                                          "--answer", "--target", "--health", "--plot", "--format"};
    a->rest = argv;
    a->rest[a->nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--merge")) {
            a->merge = true;
            continue;
        }
        bool ours = false;
        for (size_t k = 0; k < sizeof options / sizeof *options && !ours; k++)
            ours = !strcmp(argv[i], options[k]);
        if (!ours) {
            a->rest[a->nrest++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "fray sweep: %s needs a value\nTry 'fray sweep --help'.\n", argv[i]);
            return EXIT_USAGE;
        }
        if (!take_option(a, argv[i], argv[i + 1]))
            return EXIT_USAGE;
        i++;
    }
    a->rest[a->nrest] = NULL;
    if (strcmp(a->format, "table") && strcmp(a->format, "csv") && strcmp(a->format, "json") &&
        strcmp(a->format, "part")) {
        fprintf(stderr, "fray sweep: --format takes table, csv, json or part\n");
        return EXIT_USAGE;
    }
    const char *why = a->merge && !strcmp(a->format, "part")      ? "--merge prints a table, CSV or JSON, not a part"
                      : !strcmp(a->format, "part") && a->tg.given ? "--target picks each value from the results "
                                                                    "before it: it plays in one process, not in parts"
                      : a->slice && strcmp(a->format, "part")     ? "--runs FROM..TO plays a slice, for --format part"
                                                                  : NULL;
    if (why) {
        fprintf(stderr, "fray sweep: %s\n", why);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* The values swept: a stat's range, a number ruling's (range), or a
   ruling's words as given (words); EXIT_OK, or the exit code after saying
   why not. */
static int values_given(const sweep_args *a, word_list *words, cli_set *range, int64_t *lo, int64_t *hi)
{
    if (a->swept_answer >= 0) {
        const cli_answer *g = &a->given_answers[a->swept_answer];
        if (strstr(g->answer, "..") && !answer_range(g->ruling, g->answer, range)) {
            fprintf(stderr, "fray sweep: --answer %s=%s: a range is of whole numbers, LO..HI with LO <= HI\n",
                    g->ruling, g->answer);
            return EXIT_USAGE;
        }
        if (*g->answer && !range->range && !split_answers(g->answer, words)) {
            fprintf(stderr, "fray sweep: --answer %s=%s: an empty answer in the list\n", g->ruling, g->answer);
            return EXIT_USAGE;
        }
        if (!range->range && a->tg.given) {
            fprintf(stderr, "fray sweep: --target finds a value between two others, and answers given as words "
                            "have no order: the table gives each answer's figures\n");
            return EXIT_USAGE;
        }
    }
    *lo = a->swept >= 0 ? a->given[a->swept].lo : range->lo;
    *hi = a->swept >= 0 ? a->given[a->swept].hi : range->hi;
    if ((a->swept >= 0 || range->range) && (uint64_t)(*hi - *lo) / a->step > 1000 && !a->tg.given) {
        fprintf(stderr, "fray sweep: %lld values from %lld to %lld: at most 1001 (a --step, or --target)\n",
                (long long)((uint64_t)(*hi - *lo) / a->step + 1), (long long)*lo, (long long)*hi);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* The runs played at each value, as a part of the whole sweep. */
static void write_parts(const sweep *s, const sweep_args *a)
{
    sweep_whole w = {(char *)s->name, s->ruling, s->words != NULL};
    sim_whole sw = {(char *)s->scenario, NULL, NULL, s->so.seed - a->from, s->so.threads, 1};
    sweep_part_begin(stdout, &w);
    for (size_t i = 0; i < s->nt; i++) {
        char buf[32];
        sweep_part_value(stdout, value_text(s, s->t[i].value, buf, sizeof buf), &sw, a->from, a->from + s->so.runs - 1,
                         s->t[i].r);
    }
}

/* `fray sweep --merge PART...`: the parts added up value by value, and
   reported as one process would have; an exit code. */
static int merge_sweep(char *const *paths, int n, const sweep_args *a)
{
    sweep_merged m;
    if (!sweep_parts_merge(paths, n, &m))
        return EXIT_RULES;
    sweep s = {.scenario = m.merges[0].w.scenario,
               .so = {.runs = m.merges[0].rs[0]->runs, .seed = m.merges[0].w.seed, .threads = m.merges[0].w.threads},
               .ruling = m.w.ruling,
               .words = m.w.words ? (const char **)m.values : NULL,
               .nwords = m.w.words ? m.nvalues : 0};
    snprintf(s.name, sizeof s.name, "%s", m.w.name);
    int code = EXIT_OK;
    s.t = malloc(m.nvalues * sizeof *s.t);
    if (!s.t) {
        fprintf(stderr, "fray: out of memory\n");
        code = EXIT_IO;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; code == EXIT_OK && i < m.nvalues; i++) {
        if (m.merges[i].w.threads != s.so.threads)
            s.so.threads = 0; /* a thread count of its own at some value */
        char *end;
        int64_t v = m.w.words ? (int64_t)i : strtoll(m.values[i], &end, 10);
        s.t[s.nt++] = (tried){v, m.merges[i].rs[0]};
        lo = v < lo ? v : lo, hi = v > hi ? v : hi;
    }
    for (size_t i = 0; code == EXIT_OK && i < m.nvalues; i++)
        if (m.merges[i].rs[0]->runs != s.so.runs) {
            fprintf(stderr, "fray sweep: %s = %s has %llu runs, and %s = %s %llu: a value's parts are missing\n",
                    s.name, m.values[i], (unsigned long long)m.merges[i].rs[0]->runs, s.name, m.values[0],
                    (unsigned long long)s.so.runs);
            code = EXIT_RULES;
        }
    if (code == EXIT_OK) {
        qsort(s.t, s.nt, sizeof *s.t, by_value);
        const char *sides[64];
        size_t nsides = sides_of(&s, sides, 64);
        report(&s, sides, nsides, &a->tg, &(found){.bracketed = false}, a->format, lo, hi);
        if (a->plot && !plot_sweep(&s, sides, nsides, a->plot))
            code = EXIT_IO;
    }
    free(s.t);
    sweep_merged_free(&m);
    return code;
}

/* Plays every value (or bisects for the target), then reports. */
static int sweep_and_report(sweep *s, const sweep_args *a, int64_t lo, int64_t hi)
{
    int code = EXIT_OK;
    found fd = {.bracketed = false};
    int64_t step = (int64_t)a->step;
    if (a->tg.given) {
        if (!bisect(s, &a->tg, lo, lo + (hi - lo) / step * step, step, &fd))
            code = EXIT_RULES;
    } else {
        int64_t by = s->words ? 1 : step;
        for (int64_t v = lo; v <= hi && code == EXIT_OK; v += by)
            if (!play_at(s, v))
                code = EXIT_RULES;
    }
    const char *sides[64];
    size_t nsides = 0;
    if (code == EXIT_OK) {
        qsort(s->t, s->nt, sizeof *s->t, by_value);
        nsides = sides_of(s, sides, 64);
        if (a->tg.side && !s->nt) /* nothing played */
            code = EXIT_RULES;
    }
    if (code == EXIT_OK && !side_known(&a->tg, sides, nsides))
        code = EXIT_USAGE;
    if (code == EXIT_OK && !strcmp(a->format, "part"))
        write_parts(s, a);
    else if (code == EXIT_OK)
        report(s, sides, nsides, &a->tg, &fd, a->format, lo, hi);
    if (code == EXIT_OK && a->plot && !plot_sweep(s, sides, nsides, a->plot))
        code = EXIT_IO;
    return code;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_args a = {.runs = 400, .step = 1, .format = "table", .swept = -1, .swept_answer = -1};
    int rc = parse_args(argc, argv, &a);
    if (rc != EXIT_OK)
        return rc;
    cli_options o;
    int first;
    rc = cli_parse("sweep", a.nrest, a.rest, &o, &first, usage);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (a.merge) {
        if (first >= a.nrest) {
            fprintf(stderr, "fray sweep: --merge needs the parts to add up\nTry 'fray sweep --help'.\n");
            return EXIT_USAGE;
        }
        return merge_sweep(a.rest + first, a.nrest - first, &a);
    }
    bool none = a.swept < 0 && a.swept_answer < 0;
    if (a.nrest - first != 1 || none) {
        fprintf(stderr, "fray sweep: %s\nTry 'fray sweep --help'.\n",
                none               ? "nothing to sweep: --set CREATURE.STAT=LO..HI or --answer RULING"
                : first >= a.nrest ? "no scenario"
                                   : "one scenario at a time");
        return EXIT_USAGE;
    }
    if (o.seed > UINT64_MAX - (a.runs - 1)) {
        fprintf(stderr, "fray sweep: with --seed %llu, %llu runs would pass seed %llu; start lower\n",
                (unsigned long long)o.seed, (unsigned long long)a.runs, (unsigned long long)UINT64_MAX);
        return EXIT_USAGE;
    }
    word_list words = {.words = NULL};
    cli_set range = {.range = false};
    int64_t lo = 0, hi = 0;
    rc = values_given(&a, &words, &range, &lo, &hi);
    /* the swept one first: play_at sets its value */
    fray_sim_set sets[MAX_SETS];
    fray_sim_answer answers[MAX_SETS];
    size_t k = 0;
    if (a.swept >= 0)
        sets[k++] = (fray_sim_set){a.given[a.swept].creature, a.given[a.swept].stat, lo};
    for (size_t i = 0; i < a.nsets; i++)
        if ((int)i != a.swept)
            sets[k++] = (fray_sim_set){a.given[i].creature, a.given[i].stat, a.given[i].lo};
    k = 0;
    if (a.swept_answer >= 0)
        answers[k++] = (fray_sim_answer){a.given_answers[a.swept_answer].ruling, ""};
    for (size_t i = 0; i < a.nanswers; i++)
        if ((int)i != a.swept_answer)
            answers[k++] = (fray_sim_answer){a.given_answers[i].ruling, a.given_answers[i].answer};
    if (!a.jobs) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        a.jobs = cores > 0 ? (uint64_t)(cores > 256 ? 256 : cores) : 1;
    }
    fray *f = rc == EXIT_OK ? cli_open(&o) : NULL;
    if (!f) {
        words_free(&words);
        return rc == EXIT_OK ? EXIT_IO : rc;
    }
    sweep s = {.f = f,
               .scenario = a.rest[first],
               .so = {.runs = a.runs,
                      .threads = (int)a.jobs,
                      .seed = o.seed + a.from,
                      .health = a.health,
                      .sets = sets,
                      .nsets = a.nsets,
                      .answers = answers,
                      .nanswers = a.nanswers},
               .sets = sets,
               .nsets = a.nsets,
               .answers = answers,
               .nanswers = a.nanswers,
               .ruling = a.swept_answer >= 0,
               .tty = isatty(STDERR_FILENO)};
    if (a.swept >= 0)
        snprintf(s.name, sizeof s.name, "%s.%s", a.given[a.swept].creature, a.given[a.swept].stat);
    else {
        snprintf(s.name, sizeof s.name, "%s", a.given_answers[a.swept_answer].ruling);
        if (!range.range && !words.n)
            rc = answers_of(f, s.scenario, s.name, s.so, &words);
        s.words = (const char **)words.words;
        s.nwords = words.n;
        if (!range.range)
            lo = 0, hi = (int64_t)words.n - 1;
    }
    if (rc == EXIT_OK)
        rc = sweep_and_report(&s, &a, lo, hi);
    for (size_t i = 0; i < s.nt; i++)
        fray_sim_free(s.t[i].r);
    free(s.t);
    words_free(&words);
    fray_close(f);
    return rc;
}
