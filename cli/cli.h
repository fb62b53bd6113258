/* cli: the `fray` program, a thin layer over libfray (fray.h). */
#ifndef FRAY_CLI_H
#define FRAY_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "fray.h"

enum { EXIT_OK = 0, EXIT_RULES = 1, EXIT_USAGE = 2, EXIT_IO = 3 };

typedef struct cli_options {
    uint64_t seed;
    bool seed_given;
    uint64_t max_steps;
    int max_depth;
    int max_creatures;
    int color; /* -1 auto, 0 never, 1 always */
    bool syntax_only;
    bool keep_going;
    /* --follow-symlinks: imports may leave their directory through a link */
    bool follow_symlinks;
    bool quiet; /* --quiet: no transcript of play */
    bool state; /* --state: print the state of play as JSON at the end */
    const char *rules[64];
    int nrules;
    const char *with[64]; /* stat=expr */
    int nwith;
    const char *path[64];
    int npath;
    const char *limits[16]; /* --limit NAME=N, checked */
    int nlimits;
    const char *dice[64]; /* --dice DIE=FACE,...: fray run forces them first */
    int ndice;
} cli_options;

/* Parses the options of a subcommand; leaves operands in argv[*first..argc).
 * Returns EXIT_OK, EXIT_USAGE (message printed), or -1 after --help. */
int cli_parse(const char *cmd, int argc, char **argv, cli_options *o, int *first, const char *usage);
/* The library's settings for the options: seed, limits, colour in
 * diagnostics (auto: when stderr is a terminal), the search path (-I, then
 * FRAY_PATH). Its strings live in this module until the next call. */
fray_options cli_fray_options(const cli_options *o);
/* A context, or a session, configured from the options (those settings and
 * --limit); NULL, with a message, when it cannot be. */
fray *cli_open(const cli_options *o);
fray_session *cli_session(const cli_options *o);
int cli_exit_code(fray_status st);
/* Applies each --limit NAME=N (checked by cli_parse) through set; false
 * when one is out of its range (set says so). */
bool cli_apply_limits(const cli_options *o, fray_status (*set)(void *, const char *, uint64_t), void *target);
/* A whole number from lo to hi, written as digits alone (no sign, spaces
 * or exponent); false when it is not one, or out of range: a number past
 * 2^64 - 1 is refused, never taken as 2^64 - 1. */
bool cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* `--set CREATURE.STAT=N` (or `=LO..HI` where a range is allowed): a
 * creature's (or group's) whole-number stat, set as it is made. */
typedef struct cli_set {
    char creature[64], stat[64];
    int64_t lo, hi; /* hi == lo: one value */
    bool range;     /* written LO..HI */
} cli_set;
/* Parses one; false (with nothing said) when it is not of that form. */
bool cli_parse_set(const char *text, cli_set *out);
/* `--answer RULING=ANSWER`: a ruling answered in every run, the answer as
 * typed at its question; `RULING` alone leaves answer empty. */
typedef struct cli_answer {
    char ruling[64];
    const char *answer; /* points into the text parsed */
} cli_answer;
/* Parses one; false (with nothing said) when the ruling is not a name. */
bool cli_parse_answer(const char *text, cli_answer *out);
/* Whether one of the n given before sets the same creature's stat
 * (answers the same ruling): the two would not both hold, so the command
 * refuses the second rather than let one silently win. */
bool cli_set_repeated(const cli_set *given, size_t n, const cli_set *g);
bool cli_answer_repeated(const cli_answer *given, size_t n, const cli_answer *g);
/* What printf would write, whole, in memory of its own (free it); NULL
 * when out of memory. */
char *cli_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs the -r files silently and applies --with; an exit code. */
int cli_load_rules(fray *f, const cli_options *o);

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_disasm(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_prob(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_repl(int argc, char **argv);
int cmd_fmt(int argc, char **argv);

#endif
