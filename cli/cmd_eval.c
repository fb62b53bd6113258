/* cmd_eval: `fray eval [-r RULES] [--with STAT=EXPR] EXPR...` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"

static const char usage[] = "Usage: fray eval [OPTION]... EXPR...\n"
                            "Evaluate each expression and print its value. With -r, the expression may\n"
                            "use the stats, ranges and durations of RULES, for a creature whose stats\n"
                            "are their defaults, changed with --with.\n"
                            "\n"
                            "  -r, --rules FILE     load rules first (repeatable)\n"
                            "  --with STAT=EXPR     give the creature a stat value (repeatable)\n"
                            "  --seed N             seed for the dice\n"
                            "  --format FORMAT      text (default) or json: {\"results\": [{\"expression\",\n"
                            "                       \"value\" (as text), \"number\" (when a whole number)}]}\n"
                            "\n"
                            "Examples:\n"
                            "  fray eval 'roll 4d6kh3'\n"
                            "  fray eval -r examples/skirmish.rules --with level=10 melee\n";

static void discard(void *user, const char *line)
{
    (void)user;
    (void)line;
}

int cli_load_rules(fray *f, const cli_options *o)
{
    int code = EXIT_OK;
    /* Rules files may play a scene too; eval wants their state, not their
       transcript. Errors are still reported. */
    fray_on_output(f, discard, NULL);
    for (int i = 0; i < o->nrules && code == EXIT_OK; i++)
        code = cli_exit_code(fray_run_rules(f, o->rules[i]));
    fray_on_output(f, NULL, NULL);
    for (int i = 0; i < o->nwith && code == EXIT_OK; i++) {
        const char *eq = strchr(o->with[i], '=');
        char *stat = strndup(o->with[i], (size_t)(eq - o->with[i]));
        code = stat ? cli_exit_code(fray_eval_with(f, stat, eq + 1)) : EXIT_IO;
        if (!stat)
            fprintf(stderr, "fray eval: out of memory\n");
        free(stat);
    }
    return code;
}

int cmd_eval(int argc, char **argv)
{
    /* --format first; the rest are the shared options */
    bool json = false;
    char **rest = argv; /* the arguments not taken here, kept in place: never more than there are */
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        bool eq = !strncmp(argv[i], "--format=", 9);
        if ((!strcmp(argv[i], "--format") && i + 1 < argc) || eq) {
            const char *v = eq ? argv[i] + 9 : argv[++i];
            if (strcmp(v, "json") && strcmp(v, "text")) {
                fprintf(stderr, "fray eval: --format takes text or json\n");
                return EXIT_USAGE;
            }
            json = !strcmp(v, "json");
        } else
            rest[nrest++] = argv[i];
    }
    rest[nrest] = NULL;
    argc = nrest;
    argv = rest;
    cli_options o;
    int first, rc = cli_parse("eval", argc, argv, &o, &first, usage);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (first >= argc) {
        fprintf(stderr, "fray eval: no expression\nTry 'fray eval --help'.\n");
        return EXIT_USAGE;
    }
    fray *f = cli_open(&o);
    if (!f)
        return EXIT_IO;
    int code = cli_load_rules(f, &o);
    if (json)
        printf("{\"results\": [");
    for (int i = first; i < argc && code == EXIT_OK; i++) {
        const char *out;
        code = cli_exit_code(fray_eval(f, argv[i], &out));
        if (code != EXIT_OK)
            break;
        if (!json) {
            puts(out);
            continue;
        }
        printf("%s\n  {\"expression\": ", i > first ? "," : "");
        cli_json_string(argv[i]);
        printf(", \"value\": ");
        cli_json_string(out);
        char *end;
        long long n = strtoll(out, &end, 10);
        if (*out && !*end)
            printf(", \"number\": %lld", n);
        putchar('}');
    }
    if (json && code == EXIT_OK)
        printf("\n]}\n");
    fray_close(f);
    return code;
}
