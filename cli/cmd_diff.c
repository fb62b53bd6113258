/* cmd_diff: `fray diff A B`, two rule systems side by side: a table
 * fitted to the terminal, Markdown, or JSON. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"

static const char usage[] = "Usage: fray diff [OPTION]... A B\n"
                            "Compare two rule systems (files, or modules by name such as legend) by\n"
                            "meaning: the action economy slot by slot, lined up by role; initiative,\n"
                            "rounds, death, space; formulas both have, evaluated at a few levels;\n"
                            "reference fights computed exactly (with --profile); and every condition,\n"
                            "action, trigger, stat ... that differs, or that only one side has.\n"
                            "\n"
                            "  --format FORMAT    table (default), markdown, json or csv: a row a line\n"
                            "  --brief            the summary alone: the reference fight's figures and\n"
                            "                     what differs, section by section\n"
                            "  --exit-code        exit 1 when the systems differ (0 when they do not)\n"
                            "  --at STAT=V,V,...  evaluate formulas at these values of STAT\n"
                            "                     (default level=1,5,10,20)\n"
                            "  --profile DIR      reference fights: DIR/SYSTEM.rules for each system\n"
                            "                     (default: examples/profiles/duel, or the installed\n"
                            "                     one, where both systems have a fight there)\n"
                            "  --no-profile       no reference fight\n"
                            "  --rounds N         the chance the attacker has won by round N (default 3)\n"
                            "  --runs N           runs of a simulation where a fight cannot be computed\n"
                            "                     exactly (default 2000)\n"
                            "  -j, --jobs N       threads for those runs (default: the machine's cores)\n"
                            "  -I, --include DIR  look for `use` modules in DIR\n"
                            "\n"
                            "Examples:\n"
                            "  fray diff legend shock\n"
                            "  fray diff rules/legend.rules examples/variants/keen_legend.rules\n"
                            "  fray diff --profile examples/profiles/duel legend fortitude\n";

/* --- loading ------------------------------------------------------------------- */

/* --- the table --------------------------------------------------------------------- */

/* Width in columns of UTF-8 text (one per character). */
static int columns(const char *s, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* The next line of s that fits in width columns, cut at a space when one
   is near: its length in bytes; *next is where the rest starts. */
static size_t fit(const char *s, int width, const char **next)
{
    size_t len = strlen(s);
    if (columns(s, len) <= width) {
        *next = s + len;
        return len;
    }
    size_t cut = 0, space = 0;
    int cols = 0;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (cols == width)
                break;
            cols++;
        }
        cut = i + 1;
        if (s[i] == ' ')
            space = i;
    }
    if (space > cut / 2) {
        *next = s + space + 1;
        return space;
    }
    *next = s + cut;
    return cut;
}

static void print_padded(FILE *out, const char *s, size_t len, int width)
{
    fwrite(s, 1, len, out);
    int pad = width - columns(s, len);
    if (pad > 0)
        fprintf(out, "%*s", pad, "");
}

static const char *absent(bool unicode)
{
    return unicode ? "—" : "-";
}

static void print_cell_line(FILE *out, const char **rest, int width)
{
    const char *next;
    size_t len = fit(*rest, width, &next);
    print_padded(out, *rest, len, width);
    *rest = next;
}

static void print_row(FILE *out, const fray_report_row *row, int label_w, int cell_w, bool unicode)
{
    const char *ra = row->a ? row->a : absent(unicode), *rb = row->b ? row->b : absent(unicode), *rl = row->label;
    bool first = true;
    while (*ra || *rb || *rl || first) {
        fprintf(out, "%s ", first && row->differs ? (unicode ? "≠" : "!") : " ");
        print_cell_line(out, &rl, label_w);
        fprintf(out, "  ");
        if (first && row->pa >= 0) {
            int cells = cli_bar(out, row->pa, 10, unicode);
            fprintf(out, "%*s ", 10 - cells, "");
            print_cell_line(out, &ra, cell_w - 11);
        } else
            print_cell_line(out, &ra, cell_w);
        fprintf(out, "  ");
        if (first && row->pb >= 0) {
            int cells = cli_bar(out, row->pb, 10, unicode);
            fprintf(out, "%*s ", 10 - cells, "");
            const char *next;
            size_t len = fit(rb, cell_w - 11, &next);
            fwrite(rb, 1, len, out);
            rb = next;
        } else {
            const char *next;
            size_t len = fit(rb, cell_w, &next);
            fwrite(rb, 1, len, out);
            rb = next;
        }
        fputc('\n', out);
        first = false;
    }
}

/* Whether any row of a section differs. */
static bool section_differs(const fray_report_section *sec)
{
    for (size_t k = 0; k < sec->nrows; k++)
        if (sec->rows[k].differs)
            return true;
    return false;
}

/* A section the same in both, not worth reading whole: its title and a
   line saying so stand for it. */
static bool collapsed(const fray_report_section *sec)
{
    return sec->nrows > 0 && !sec->whole && !section_differs(sec);
}

static void print_table(FILE *out, const fray_report *r, bool brief)
{
    bool unicode = cli_utf8_terminal();
    int width = cli_terminal_width();
    int label_w = width >= 120 ? 26 : width >= 100 ? 24 : 20;
    int cell_w = (width - label_w - 6) / 2;
    if (cell_w < 16)
        cell_w = 16;
    fprintf(out, "  %-*s  ", label_w, "");
    print_padded(out, r->a, strlen(r->a), cell_w);
    fprintf(out, "  %s\n", r->b);
    for (size_t s = 0; s < r->nsections; s++) {
        const fray_report_section *sec = &r->sections[s];
        if (brief && !sec->summary)
            continue;
        fprintf(out, "\n%s\n", sec->title);
        if (sec->note)
            fprintf(out, "  (%s)\n", sec->note);
        if (collapsed(sec)) {
            fprintf(out, "  (the same in both)\n");
            continue;
        }
        for (size_t k = 0; k < sec->nrows; k++)
            print_row(out, &sec->rows[k], label_w, cell_w, unicode);
    }
    fprintf(out, "\n%zu difference%s\n", r->differences, r->differences == 1 ? "" : "s");
}

/* --- Markdown and JSON ------------------------------------------------------------------- */

/* A cell: its text (which gives any share it holds), `—` for nothing. */
static void md_cell(const char *s)
{
    putchar(' ');
    if (!s || !strcmp(s, "-"))
        s = "—";
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", stdout);
        else
            putchar(*s);
    }
    fputs(" |", stdout);
}

static void print_markdown(const fray_report *r, bool brief)
{
    printf("# %s and %s\n", r->a, r->b);
    for (size_t s = 0; s < r->nsections; s++) {
        const fray_report_section *sec = &r->sections[s];
        if (brief && !sec->summary)
            continue;
        printf("\n## %s\n\n", sec->title);
        if (sec->note)
            printf("%s.\n\n", sec->note);
        if (collapsed(sec))
            printf("The same in both.\n");
        if (!sec->nrows || collapsed(sec))
            continue;
        printf("| | %s | %s |\n|---|---|---|\n", r->a, r->b);
        for (size_t k = 0; k < sec->nrows; k++) {
            const fray_report_row *row = &sec->rows[k];
            /* a label's indent (a row under another) is kept outside the
               bold, which Markdown does not open after a space */
            const char *label = row->label;
            printf("| ");
            for (; *label == ' '; label++)
                printf("&nbsp;");
            printf("%s%s%s |", row->differs ? "**" : "", label, row->differs ? "**" : "");
            md_cell(row->a);
            md_cell(row->b);
            putchar('\n');
        }
    }
    printf("\n%zu difference%s.\n", r->differences, r->differences == 1 ? "" : "s");
}

static void json_opt(const char *s)
{
    if (s)
        cli_json_string(s);
    else
        fputs("null", stdout);
}

static void print_json(const fray_report *r)
{
    printf("{\"a\": ");
    cli_json_string(r->a);
    printf(", \"b\": ");
    cli_json_string(r->b);
    printf(", \"differences\": %zu, \"sections\": [", r->differences);
    for (size_t s = 0; s < r->nsections; s++) {
        const fray_report_section *sec = &r->sections[s];
        printf("%s\n  {\"title\": ", s ? "," : "");
        cli_json_string(sec->title);
        printf(", \"note\": ");
        json_opt(sec->note);
        if (sec->summary)
            printf(", \"summary\": true");
        printf(", \"rows\": [");
        for (size_t k = 0; k < sec->nrows; k++) {
            const fray_report_row *row = &sec->rows[k];
            printf("%s\n    {\"label\": ", k ? "," : "");
            cli_json_string(row->label);
            printf(", \"a\": ");
            json_opt(row->a);
            printf(", \"b\": ");
            json_opt(row->b);
            if (row->pa >= 0 || row->pb >= 0)
                printf(", \"pa\": %.17g, \"pb\": %.17g", row->pa, row->pb);
            printf(", \"differs\": %s}", row->differs ? "true" : "false");
        }
        printf("]}");
    }
    printf("\n]}\n");
}

/* Every row of every section, one a line: section,label,a,b,differs
   (a and b empty where that system has nothing). */
static void print_csv(const fray_report *r, bool brief)
{
    printf("section,label,%s,%s,differs\n", r->a, r->b);
    for (size_t s = 0; s < r->nsections; s++) {
        const fray_report_section *sec = &r->sections[s];
        for (size_t k = 0; k < sec->nrows && (!brief || sec->summary); k++) {
            const fray_report_row *row = &sec->rows[k];
            const char *label = row->label;
            while (*label == ' ')
                label++;
            cli_csv_field(sec->title);
            putchar(',');
            cli_csv_field(label);
            putchar(',');
            cli_csv_field(row->a);
            putchar(',');
            cli_csv_field(row->b);
            printf(",%s\n", row->differs ? "yes" : "no");
        }
    }
}

/* --- the command --------------------------------------------------------------------------- */

static bool parse_at(const char *arg, char *stat, size_t cap, int64_t *values, size_t *n)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= cap)
        return false;
    snprintf(stat, cap, "%.*s", (int)(eq - arg), arg);
    *n = 0;
    for (const char *s = eq + 1; *s;) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno || *n >= 8 || (*end && *end != ','))
            return false; /* ERANGE: no value past 64 bits taken as the largest */
        values[(*n)++] = v;
        s = *end ? end + 1 : end;
    }
    return *n > 0;
}

int cmd_diff(int argc, char **argv)
{
    const char *format = "table", *profile = NULL;
    bool exit_code = false, brief = false, no_profile = false;
    char at_stat[64] = "";
    int64_t values[8];
    size_t nvalues = 0;
    uint64_t rounds = 3, runs = 2000, jobs = 0;
    char **rest = argv; /* the arguments not taken here, kept in place: never more than there are */
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--exit-code") || !strcmp(a, "--brief") || !strcmp(a, "--no-profile")) {
            *(!strcmp(a, "--exit-code") ? &exit_code : !strcmp(a, "--brief") ? &brief : &no_profile) = true;
            continue;
        }
        bool known = !strcmp(a, "--format") || !strcmp(a, "--at") || !strcmp(a, "--profile") ||
                     !strcmp(a, "--rounds") || !strcmp(a, "--runs") || !strcmp(a, "-j") || !strcmp(a, "--jobs");
        if (!known) {
            rest[nrest++] = argv[i];
            continue;
        }
        if (!val) {
            fprintf(stderr, "fray diff: %s needs a value\nTry 'fray diff --help'.\n", a);
            return EXIT_USAGE;
        }
        i++;
        uint64_t n = 0;
        bool count = cli_parse_u64(val, 0, UINT64_MAX, &n);
        if (!strcmp(a, "--format"))
            format = val;
        else if (!strcmp(a, "--profile"))
            profile = val;
        else if (!strcmp(a, "--at")) {
            if (!parse_at(val, at_stat, sizeof at_stat, values, &nvalues)) {
                fprintf(stderr, "fray diff: --at takes STAT=V,V,... (at most 8 whole numbers), not '%s'\n", val);
                return EXIT_USAGE;
            }
        } else {
            /* a count: of rounds, runs or threads */
            bool is_rounds = !strcmp(a, "--rounds"), is_runs = !strcmp(a, "--runs");
            uint64_t most = is_rounds ? 100 : is_runs ? 10000000 : 256;
            if (!count || n < 1 || n > most) {
                fprintf(stderr, "fray diff: %s takes a count of %s from 1 to %llu, not '%s'\n", a,
                        is_rounds ? "rounds"
                        : is_runs ? "runs"
                                  : "threads",
                        (unsigned long long)most, val);
                return EXIT_USAGE;
            }
            *(is_rounds ? &rounds : is_runs ? &runs : &jobs) = n;
        }
    }
    rest[nrest] = NULL;
    if (strcmp(format, "table") && strcmp(format, "markdown") && strcmp(format, "json") && strcmp(format, "csv")) {
        fprintf(stderr, "fray diff: --format takes table, markdown, json or csv\n");
        return EXIT_USAGE;
    }
    cli_options o;
    int first, rc = cli_parse("diff", nrest, rest, &o, &first, usage);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (nrest - first != 2) {
        fprintf(stderr, "fray diff: two rule systems to compare, not %d\nTry 'fray diff --help'.\n", nrest - first);
        return EXIT_USAGE;
    }
    if (!jobs) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cores > 0 && cores <= 256 ? (uint64_t)cores : 1;
    }
    fray *fa = cli_open(&o), *fb = cli_open(&o);
    int code = fa && fb ? EXIT_OK : EXIT_IO;
    if (code == EXIT_OK)
        code = cli_exit_code(fray_run_rules(fa, rest[first]));
    if (code == EXIT_OK)
        code = cli_exit_code(fray_run_rules(fb, rest[first + 1]));
    fray_report *r = NULL;
    /* without --profile, the reference fights of a clone's examples, or of
       the installed ones, where both systems have one */
    bool if_both = false;
    if (!profile && !no_profile) {
        static const char *const found[] = {"examples/profiles/duel", FRAY_DATADIR "/profiles/duel"};
        struct stat st;
        for (size_t i = 0; i < sizeof found / sizeof found[0] && !profile; i++)
            if (stat(found[i], &st) == 0 && S_ISDIR(st.st_mode))
                profile = found[i];
        if_both = profile != NULL;
    }
    if (code == EXIT_OK) {
        fray_diff_options d = {.stat = at_stat[0] ? at_stat : NULL,
                               .values = values,
                               .nvalues = nvalues,
                               .profile = profile,
                               .profile_if_both = if_both,
                               .rounds = (int)rounds,
                               .runs = runs,
                               .threads = (int)jobs};
        code = cli_exit_code(fray_diff(fa, fb, &d, &r));
    }
    if (code == EXIT_OK) {
        if (!r->differences && strcmp(format, "json"))
            printf("no differences between %s and %s\n", rest[first], rest[first + 1]);
        else if (!strcmp(format, "json"))
            print_json(r);
        else if (!strcmp(format, "markdown"))
            print_markdown(r, brief);
        else if (!strcmp(format, "csv"))
            print_csv(r, brief);
        else {
            /* laid out in columns, then printed without the blanks that
               pad the last one */
            char *text = NULL;
            size_t len = 0;
            FILE *mem = open_memstream(&text, &len);
            print_table(mem ? mem : stdout, r, brief);
            if (mem) {
                fclose(mem);
                cli_print_trimmed(text);
                free(text);
            }
        }
        if (exit_code && r->differences)
            code = EXIT_RULES;
    }
    fray_report_free(r);
    fray_close(fa);
    fray_close(fb);
    return code;
}
