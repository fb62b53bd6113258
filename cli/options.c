/* options: the flags every subcommand shares, in GNU style. */
#define _GNU_SOURCE /* getopt_long */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

enum {
    OPT_SEED = 256,
    OPT_COLOR,
    OPT_MAX_STEPS,
    OPT_MAX_DEPTH,
    OPT_MAX_CREATURES,
    OPT_LIMIT,
    OPT_SYNTAX_ONLY,
    OPT_KEEP_GOING,
    OPT_QUIET,
    OPT_STATE,
    OPT_WITH,
    OPT_DICE,
    OPT_FOLLOW_SYMLINKS
};

char *cli_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!text)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return text;
}

bool cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return false; /* strtoull would take a sign or spaces */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false; /* ERANGE: past 2^64 - 1, not saturated */
    *out = v;
    return true;
}

/* A whole number, signed, at most 18 digits: where it ends in *end. */
static bool set_number(const char *s, const char **end, int64_t *out)
{
    const char *p = s + (*s == '-');
    if (!isdigit((unsigned char)*p))
        return false;
    int64_t v = 0;
    int digits = 0;
    for (; isdigit((unsigned char)*p); p++)
        if (++digits > 18)
            return false;
        else
            v = v * 10 + (*p - '0');
    *out = *s == '-' ? -v : v;
    *end = p;
    return true;
}

/* A name of the language's: a letter or '_', then letters, digits and '_'. */
static bool set_name(const char *s, size_t len, char *out, size_t cap)
{
    if (!len || len >= cap || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    memcpy(out, s, len);
    out[len] = '\0';
    return true;
}

bool cli_parse_set(const char *text, cli_set *out)
{
    const char *dot = strchr(text, '.'), *eq = strchr(text, '=');
    if (!dot || !eq || dot > eq || !set_name(text, (size_t)(dot - text), out->creature, sizeof out->creature) ||
        !set_name(dot + 1, (size_t)(eq - dot - 1), out->stat, sizeof out->stat))
        return false;
    const char *end;
    if (!set_number(eq + 1, &end, &out->lo))
        return false;
    out->hi = out->lo;
    out->range = end[0] == '.' && end[1] == '.';
    if (out->range && (!set_number(end + 2, &end, &out->hi) || out->hi < out->lo))
        return false;
    return *end == '\0';
}

bool cli_parse_answer(const char *text, cli_answer *out)
{
    const char *eq = strchr(text, '=');
    size_t len = eq ? (size_t)(eq - text) : strlen(text);
    out->answer = eq ? eq + 1 : "";
    return set_name(text, len, out->ruling, sizeof out->ruling);
}

bool cli_set_repeated(const cli_set *given, size_t n, const cli_set *g)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(given[i].creature, g->creature) && !strcmp(given[i].stat, g->stat))
            return true;
    return false;
}

bool cli_answer_repeated(const cli_answer *given, size_t n, const cli_answer *g)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(given[i].ruling, g->ruling))
            return true;
    return false;
}

static bool limit_number(const char *cmd, const char *given, const char *name, const char *text, uint64_t *n);

/* N for the limit `name`, given as option and its argument (--limit
   steps=0, --max-steps 0): a whole number from 1 to the most the limit takes. */
static bool limit_value(const char *cmd, const char *option, const char *arg, const char *name, const char *text,
                        uint64_t *n)
{
    char *given = cli_printf("%s %s", option, arg);
    bool fine = given && limit_number(cmd, given, name, text, n);
    if (!given)
        fprintf(stderr, "fray %s: out of memory\n", cmd);
    free(given);
    return fine;
}

static bool limit_number(const char *cmd, const char *given, const char *name, const char *text, uint64_t *n)
{
    uint64_t most = fray_limit_most(name);
    if (!most)
        fprintf(stderr, "fray %s: %s: no limit '%s' ('fray help limits' lists them)\n", cmd, given, name);
    else if (!*text || text[strspn(text, "0123456789")])
        fprintf(stderr, "fray %s: %s: '%s' is not a whole number\n", cmd, given, text);
    else if (!cli_parse_u64(text, 1, most, n))
        fprintf(stderr, "fray %s: %s: %s takes a number from 1 to %llu\n", cmd, given, name, (unsigned long long)most);
    else
        return true;
    return false;
}

/* "fray run: --seed takes a whole number from 0 to ..., not 'x'" */
static int bad_number(const char *cmd, const char *option, const char *arg, uint64_t lo, uint64_t hi)
{
    fprintf(stderr, "fray %s: %s takes a whole number from %llu to %llu, not '%s'\n", cmd, option,
            (unsigned long long)lo, (unsigned long long)hi, arg);
    return EXIT_USAGE;
}

/* Whether arg is an option of these (or one getopt should report as
   unknown), not an operand: a file, or an expression such as "-2" or
   "-d6" that fray prob and fray eval take. */
static bool is_option(const char *arg)
{
    if (arg[0] != '-' || !arg[1])
        return false; /* "-" is an operand, as for any GNU tool */
    if (arg[1] == '-')
        return true;
    return !isdigit((unsigned char)arg[1]) && !strchr("d(.", arg[1]);
}

/* Whether option arg takes the next argument as its value: -r and -I
   given alone, or a long option with a required argument and no "=". */
static bool takes_next(const char *arg, const struct option *longopts)
{
    if (arg[1] != '-')
        return (arg[1] == 'r' || arg[1] == 'I') && !arg[2];
    if (strchr(arg, '='))
        return false;
    for (const struct option *l = longopts; l->name; l++)
        if (!strcmp(arg + 2, l->name))
            return l->has_arg == required_argument;
    return false;
}

/* Options may come anywhere (fray run FILE -I DIR): argv[1..argc) is
   reordered, in place and otherwise in order, options (each with its
   value) first, then the operands; "--" ends the options. Returns where
   the operands begin. */
static int options_first(int argc, char **argv, const struct option *longopts)
{
    char **operands = malloc((size_t)argc * sizeof *operands);
    if (!operands)
        return -1;
    int nopts = 1, nops = 0;
    char *ended = NULL;
    for (int i = 1; i < argc; i++) {
        if (ended || !is_option(argv[i])) {
            operands[nops++] = argv[i];
            continue;
        }
        if (!strcmp(argv[i], "--")) {
            ended = argv[i];
            continue;
        }
        bool next = takes_next(argv[i], longopts) && i + 1 < argc;
        argv[nopts++] = argv[i];
        if (next)
            argv[nopts++] = argv[++i];
    }
    if (ended)
        argv[nopts++] = ended; /* last of the options, where getopt stops */
    memcpy(argv + nopts, operands, (size_t)nops * sizeof *operands);
    free(operands);
    return nopts;
}

int cli_parse(const char *cmd, int argc, char **argv, cli_options *o, int *first, const char *usage)
{
    static const struct option longopts[] = {
        {"seed", required_argument, NULL, OPT_SEED},
        {"color", optional_argument, NULL, OPT_COLOR},
        {"colour", optional_argument, NULL, OPT_COLOR},
        {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
        {"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
        {"max-creatures", required_argument, NULL, OPT_MAX_CREATURES},
        {"limit", required_argument, NULL, OPT_LIMIT},
        {"syntax-only", no_argument, NULL, OPT_SYNTAX_ONLY},
        {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"state", no_argument, NULL, OPT_STATE},
        {"rules", required_argument, NULL, 'r'},
        {"with", required_argument, NULL, OPT_WITH},
        {"dice", required_argument, NULL, OPT_DICE},
        {"include", required_argument, NULL, 'I'},
        {"follow-symlinks", no_argument, NULL, OPT_FOLLOW_SYMLINKS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->color = -1;
    int nopts = options_first(argc, argv, longopts);
    if (nopts < 0) {
        fprintf(stderr, "fray %s: out of memory\n", cmd);
        return EXIT_IO;
    }
    optind = 1;
    opterr = 0;
    int c, at = -1;
    uint64_t n;
    /* getopt sees the options only: an operand such as "-2" stays one */
    while ((c = getopt_long(nopts, argv, "+:r:I:h", longopts, &at)) != -1) {
        switch (c) {
        case OPT_SEED:
            if (!cli_parse_u64(optarg, 0, UINT64_MAX, &o->seed))
                return bad_number(cmd, "--seed", optarg, 0, UINT64_MAX);
            o->seed_given = true;
            break;
        case OPT_COLOR:
            if (!optarg || !strcmp(optarg, "always"))
                o->color = 1;
            else if (!strcmp(optarg, "never"))
                o->color = 0;
            else if (!strcmp(optarg, "auto"))
                o->color = -1;
            else {
                fprintf(stderr, "fray %s: --color takes auto, always or never\n", cmd);
                return EXIT_USAGE;
            }
            break;
        case OPT_MAX_STEPS:
        case OPT_MAX_DEPTH:
        case OPT_MAX_CREATURES: {
            /* the limits steps, depth and creatures by their own flags */
            const char *name = c == OPT_MAX_STEPS ? "steps" : c == OPT_MAX_DEPTH ? "depth" : "creatures";
            if (!limit_value(cmd,
                             c == OPT_MAX_STEPS   ? "--max-steps"
                             : c == OPT_MAX_DEPTH ? "--max-depth"
                                                  : "--max-creatures",
                             optarg, name, optarg, &n))
                return EXIT_USAGE;
            if (c == OPT_MAX_STEPS)
                o->max_steps = n;
            else if (c == OPT_MAX_DEPTH)
                o->max_depth = (int)n;
            else
                o->max_creatures = (int)n;
            break;
        }
        case OPT_LIMIT: {
            /* NAME=N, checked now against the library's list and range */
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                fprintf(stderr, "fray %s: --limit takes NAME=N, as in --limit steps=1000000, not '%s'\n", cmd, optarg);
                return EXIT_USAGE;
            }
            char *name = strndup(optarg, (size_t)(eq - optarg));
            bool fine = name && limit_value(cmd, "--limit", optarg, name, eq + 1, &n);
            free(name);
            if (!fine)
                return EXIT_USAGE;
            if (o->nlimits >= 16)
                goto too_many;
            o->limits[o->nlimits++] = optarg;
            break;
        }
        case OPT_SYNTAX_ONLY: o->syntax_only = true; break;
        case OPT_KEEP_GOING: o->keep_going = true; break;
        case OPT_QUIET: o->quiet = true; break;
        case OPT_STATE: o->state = true; break;
        case OPT_FOLLOW_SYMLINKS: o->follow_symlinks = true; break;
        case 'r':
            if (o->nrules == 64)
                goto too_many;
            o->rules[o->nrules++] = optarg;
            break;
        case OPT_WITH:
            if (o->nwith == 64 || !strchr(optarg, '=')) {
                fprintf(stderr, "fray %s: --with takes STAT=EXPR, e.g. --with level=5\n", cmd);
                return EXIT_USAGE;
            }
            o->with[o->nwith++] = optarg;
            break;
        case OPT_DICE:
            if (strcmp(cmd, "run") != 0) {
                fprintf(stderr, "fray %s: --dice is for fray run (at the REPL, type 'force DIE FACE, ...')\n", cmd);
                return EXIT_USAGE;
            }
            if (o->ndice == 64 || !strchr(optarg, '=')) {
                fprintf(stderr, "fray %s: --dice takes DIE=FACE,..., e.g. --dice d20=20,1\n", cmd);
                return EXIT_USAGE;
            }
            o->dice[o->ndice++] = optarg;
            break;
        case 'I':
            if (o->npath == 64)
                goto too_many;
            o->path[o->npath++] = optarg;
            break;
        case 'h': fputs(usage, stdout); return -1;
        case ':':
            fprintf(stderr, "fray %s: option '%s' needs a value\n", cmd, argv[optind - 1]);
            fprintf(stderr, "Try 'fray %s --help'.\n", cmd);
            return EXIT_USAGE;
        default:
            if (optopt)
                fprintf(stderr, "fray %s: unknown option '-%c'\n", cmd, optopt);
            else
                fprintf(stderr, "fray %s: unknown option '%s'\n", cmd, argv[optind - 1]);
            fprintf(stderr, "Try 'fray %s --help'.\n", cmd);
            return EXIT_USAGE;
        }
    }
    *first = nopts;
    return EXIT_OK;
too_many:
    fprintf(stderr, "fray %s: too many -r, -I or --limit options (64, 64, 16)\n", cmd);
    return EXIT_USAGE;
}

fray_options cli_fray_options(const cli_options *o)
{
    /* FRAY_PATH entries come after -I directories. */
    static char fray_path[4096];
    static const char *paths[128];
    size_t n = 0;
    for (int i = 0; i < o->npath; i++)
        paths[n++] = o->path[i];
    const char *env = getenv("FRAY_PATH");
    if (env && *env) {
        /* what does not fit is not searched, and the warning says so */
        if (strlen(env) >= sizeof fray_path)
            fprintf(stderr, "fray: warning: FRAY_PATH is longer than %zu bytes; the rest of it is not searched\n",
                    sizeof fray_path - 1);
        snprintf(fray_path, sizeof fray_path, "%s", env);
        char *save = NULL, *tok = strtok_r(fray_path, ":", &save);
        for (; tok && n < sizeof paths / sizeof paths[0]; tok = strtok_r(NULL, ":", &save))
            paths[n++] = tok;
        if (tok)
            fprintf(stderr,
                    "fray: warning: -I and FRAY_PATH name more than %zu directories; from %s on they are not "
                    "searched\n",
                    sizeof paths / sizeof paths[0], tok);
    }
    bool color = o->color == 1;
    if (o->color == -1) {
        const char *no_color = getenv("NO_COLOR");
        color = isatty(STDERR_FILENO) && !(no_color && *no_color);
    }
    return (fray_options){.seed = o->seed,
                          .max_steps = o->max_steps,
                          .max_call_depth = o->max_depth,
                          .max_creatures = o->max_creatures,
                          .search_path = paths,
                          .search_path_len = n,
                          .color = color,
                          .quiet = o->quiet,
                          .follow_symlinks = o->follow_symlinks};
}

static fray_status set_context_limit(void *f, const char *name, uint64_t n)
{
    return fray_set_limit(f, name, n);
}

static fray_status set_session_limit(void *s, const char *name, uint64_t n)
{
    return fray_session_set_limit(s, name, n);
}

bool cli_apply_limits(const cli_options *o, fray_status (*set)(void *, const char *, uint64_t), void *target)
{
    for (int i = 0; i < o->nlimits; i++) {
        const char *eq = strchr(o->limits[i], '=');
        char *name = strndup(o->limits[i], (size_t)(eq - o->limits[i]));
        bool fine = name && set(target, name, strtoull(eq + 1, NULL, 10)) == FRAY_OK;
        free(name);
        if (!fine)
            return false;
    }
    return true;
}

fray *cli_open(const cli_options *o)
{
    fray_options fo = cli_fray_options(o);
    fray *f = fray_open(&fo);
    if (!f) {
        fprintf(stderr, "fray: out of memory\n");
        return NULL;
    }
    if (!cli_apply_limits(o, set_context_limit, f)) {
        fray_close(f);
        return NULL;
    }
    return f;
}

fray_session *cli_session(const cli_options *o)
{
    fray_options fo = cli_fray_options(o);
    fray_session *s = fray_session_open(&fo);
    if (!s) {
        fprintf(stderr, "fray: out of memory\n");
        return NULL;
    }
    if (!cli_apply_limits(o, set_session_limit, s)) {
        fray_session_close(s);
        return NULL;
    }
    return s;
}

int cli_exit_code(fray_status st)
{
    switch (st) {
    case FRAY_OK: return EXIT_OK;
    case FRAY_ERR_RULES: return EXIT_RULES;
    case FRAY_ERR_USAGE: return EXIT_USAGE;
    default: return EXIT_IO;
    }
}
