/* repl_meta: the REPL's own commands, which start with ':' and may be
 * shortened to any unambiguous prefix (`:u` is `:undo`). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/repl.h"

typedef struct meta {
    const char *name;
    const char *args;
    const char *help;
    void (*run)(repl *r, const char *arg);
} meta;

static void meta_help(repl *r, const char *arg);
static void meta_load(repl *r, const char *arg);
static void meta_save(repl *r, const char *arg);
static void meta_undo(repl *r, const char *arg);
static void meta_redo(repl *r, const char *arg);
static void meta_reroll(repl *r, const char *arg);
static void meta_explain(repl *r, const char *arg);
static void meta_history(repl *r, const char *arg);
static void meta_state(repl *r, const char *arg);
static void meta_seed(repl *r, const char *arg);
static void meta_quit(repl *r, const char *arg);

static const meta metas[] = {
    {"help", "[TOPIC]", "this help; or a REPL command, a word or a topic of the language", meta_help},
    {"load", "FILE", "load rules (or a variant), or a session saved with :save", meta_load},
    {"save", "FILE", "save the whole session (rules, play, dice) to FILE", meta_save},
    {"undo", "[N]", "take back the last command (or N)", meta_undo},
    {"redo", "[N]", "do again what was undone, with the same dice", meta_redo},
    {"reroll", "", "take back the last command and run it again with new dice", meta_reroll},
    {"explain", "[N]", "every die, modifier and rule behind the last command (or entry N)", meta_explain},
    {"history", "", "the session's entries, numbered (for :explain N)", meta_history},
    {"state", "", "the tracker, whose turn it is and what they may still do", meta_state},
    {"seed", "[N]", "the dice's seed; with N, the dice follow N from now on", meta_seed},
    {"quit", "", "end the session (so does Ctrl-D)", meta_quit},
};
static const size_t nmetas = sizeof metas / sizeof metas[0];

/* --- helpers --------------------------------------------------------------------- */

static void fail(repl *r, int code)
{
    if (!r->worst)
        r->worst = code;
}

/* A count argument: 1 when absent; false (and a message) when not one. */
static bool count_arg(repl *r, const char *arg, const char *what, size_t *n)
{
    *n = 1;
    if (!*arg)
        return true;
    uint64_t k;
    if (!cli_parse_u64(arg, 1, SIZE_MAX, &k)) {
        fprintf(stderr, "fray repl: %s takes a number of steps, not '%s'\n", what, arg);
        fail(r, EXIT_USAGE);
        return false;
    }
    *n = (size_t)k;
    return true;
}

char *repl_describe_entry(const fray_entry *e)
{
    switch (e->kind) {
    case FRAY_ENTRY_COMMAND: {
        const char *nl = strchr(e->text, '\n');
        int len = nl ? (int)(nl - e->text) : (int)strlen(e->text);
        return cli_printf("%.*s%s%s", len, e->text, nl ? " ..." : "", e->rerolled ? "   (rerolled)" : "");
    }
    case FRAY_ENTRY_RULES: return cli_printf(":load %s", e->path);
    case FRAY_ENTRY_SEED: return cli_printf(":seed %" PRIu64, e->seed);
    }
    return NULL;
}

/* Prints entry i's first line, as listings show it, between before and after. */
static void print_entry(const repl *r, size_t i, const char *before, const char *after)
{
    fray_entry e = {.kind = FRAY_ENTRY_SEED};
    fray_session_entry(r->s, i, &e);
    char *what = repl_describe_entry(&e);
    printf("%s%s%s", before, what ? what : "(out of memory to show it)", after);
    free(what);
}

/* --- the commands ------------------------------------------------------------------- */

static void meta_help(repl *r, const char *arg)
{
    if (*arg) {
        const char *name = *arg == ':' ? arg + 1 : arg;
        for (size_t i = 0; i < nmetas; i++)
            if (!strcmp(name, metas[i].name)) {
                printf(":%s%s%s\n    %s\n", metas[i].name, metas[i].args[0] ? " " : "", metas[i].args, metas[i].help);
                return;
            }
        /* the language's words and topics */
        char *argv[] = {"help", (char *)arg, NULL};
        if (cmd_help(2, argv) != EXIT_OK)
            fail(r, EXIT_USAGE);
        return;
    }
    printf("Type play commands and rules as in a .rules file, for example:\n"
           "  use legend                      load a rule system built into fray\n"
           "  creature valeros side party { level 5; ac 18 }\n"
           "  begin encounter                 then: roll initiative [valeros 14, ...]\n"
           "  valeros: strike goblin_1        an action (the rules say what it costs)\n"
           "  can goblin_1 strike valeros     whether it is allowed now, and what says no\n"
           "  show | show economy valeros     the tracker | what is left to spend\n"
           "  next | explain                  the next turn | why the last command went so\n"
           "  range melee for valeros         a formula for a creature\n"
           "A command whose braces are open goes on over the next lines. When the\n"
           "rules ask (a ruling, a reaction), answer at the prompt. A command that\n"
           "fails changes nothing.\n\nREPL commands (any unambiguous prefix will do):\n");
    for (size_t i = 0; i < nmetas; i++) {
        char form[64];
        snprintf(form, sizeof form, ":%s%s%s", metas[i].name, metas[i].args[0] ? " " : "", metas[i].args);
        printf("  %-18s %s\n", form, metas[i].help);
    }
    printf("\n:help TOPIC explains a REPL command or a word of the language; topics:\n"
           "declarations, commands, functions, events.\n");
}

static void meta_load(repl *r, const char *arg)
{
    if (!*arg) {
        fprintf(stderr, "fray repl: :load needs a file (rules, or a session saved with :save)\n");
        fail(r, EXIT_USAGE);
        return;
    }
    bool was_session;
    fray_status st = fray_session_load_any(r->s, arg, &was_session); /* a session starts the journal over */
    size_t done = fray_session_done(r->s);
    if (st == FRAY_OK && was_session)
        printf("loaded the session in %s (%zu entr%s)\n", arg, done, done == 1 ? "y" : "ies");
    if (st != FRAY_OK)
        fail(r, cli_exit_code(st));
}

static void meta_save(repl *r, const char *arg)
{
    if (!*arg) {
        fprintf(stderr, "fray repl: :save needs a file name\n");
        fail(r, EXIT_USAGE);
        return;
    }
    fray_status st = fray_session_save(r->s, arg);
    size_t done = fray_session_done(r->s);
    if (st == FRAY_OK)
        printf("saved %zu entr%s to %s\n", done, done == 1 ? "y" : "ies", arg);
    else
        fail(r, cli_exit_code(st));
}

/* Whether entry i only looked (show, explain, can): :undo takes such
   entries back with the command before them, not instead of it, so that
   looking before undoing changes nothing. */
static bool only_looked(const repl *r, size_t i)
{
    fray_entry e;
    return fray_session_entry(r->s, i, &e) && e.looks;
}

static void meta_undo(repl *r, const char *arg)
{
    size_t n;
    if (!count_arg(r, arg, ":undo", &n))
        return;
    size_t done = fray_session_done(r->s);
    if (done == 0) {
        printf("nothing to undo\n");
        return;
    }
    /* n commands back, with the looks after each of them */
    size_t total = 0, counted = 0;
    while (total < done && counted < n)
        counted += !only_looked(r, done - 1 - total++);
    for (size_t i = 0; i < total; i++)
        print_entry(r, done - 1 - i, "undone: ", "\n");
    fray_session_undo(r->s, total);
}

static void meta_redo(repl *r, const char *arg)
{
    size_t n;
    if (!count_arg(r, arg, ":redo", &n))
        return;
    if (fray_session_undone(r->s) == 0) {
        printf("nothing to redo\n");
        return;
    }
    /* one at a time, each named before what it prints again: n commands,
       with the looks after each of them, as :undo took them */
    for (size_t counted = 0;;) {
        fray_entry e;
        if (!fray_session_undone_entry(r->s, 0, &e))
            break;
        bool look = e.looks;
        if (counted == n && !look)
            break;
        counted += !look;
        char *what = repl_describe_entry(&e);
        printf("redone: %s\n", what ? what : "(out of memory to show it)");
        free(what);
        fflush(stdout);
        if (fray_session_redo(r->s, 1) != 1)
            break;
    }
}

static void meta_reroll(repl *r, const char *arg)
{
    (void)arg;
    fray_status st = fray_session_reroll(r->s);
    if (st != FRAY_OK)
        fail(r, cli_exit_code(st));
}

static void meta_explain(repl *r, const char *arg)
{
    int code;
    if (!*arg) {
        code = fray_run_string(fray_session_context(r->s), "<repl>", "explain", 7) == FRAY_OK ? EXIT_OK : EXIT_RULES;
    } else {
        uint64_t n;
        size_t done = fray_session_done(r->s);
        if (!cli_parse_u64(arg, 1, done, &n)) {
            fprintf(stderr, "fray repl: :explain takes the number of an entry from :history (1 to %zu)\n", done);
            fail(r, EXIT_USAGE);
            return;
        }
        printf("[%llu] ", (unsigned long long)n);
        print_entry(r, (size_t)n - 1, "", "\n");
        code = cli_exit_code(fray_session_run_at(r->s, (size_t)n, "explain"));
    }
    if (code != EXIT_OK)
        fail(r, code);
}

static void meta_history(repl *r, const char *arg)
{
    (void)arg;
    size_t done = fray_session_done(r->s), undone = fray_session_undone(r->s);
    for (size_t i = 0; i < done; i++) {
        printf("%4zu  ", i + 1);
        print_entry(r, i, "", "\n");
    }
    if (undone)
        printf("      (%zu undone; :redo brings %s back)\n", undone, undone == 1 ? "it" : "them");
}

static void meta_state(repl *r, const char *arg)
{
    (void)arg;
    fray *f = fray_session_context(r->s);
    fray_run_string(f, "<repl>", "show", 4);
    const char *who = fray_current(f);
    if (who) {
        if (fray_is_hidden(f, who))
            repl_print_hidden_mark(r);
        printf("%s's turn\n", who);
        char *cmd = cli_printf("show economy %s", who);
        if (cmd)
            fray_run_string(f, "<repl>", cmd, strlen(cmd));
        else
            fprintf(stderr, "fray repl: out of memory to show what %s may still use\n", who);
        free(cmd);
    }
}

static void meta_seed(repl *r, const char *arg)
{
    if (!*arg) {
        uint64_t seed = fray_session_seed(r->s);
        size_t since = 0, done = fray_session_done(r->s);
        fray_entry e;
        for (size_t i = 0; i < done; i++)
            if (fray_session_entry(r->s, i, &e) && e.kind == FRAY_ENTRY_SEED) {
                seed = e.seed;
                since = i + 1;
            }
        printf("seed %" PRIu64 " (the dice since %s follow from it%s)\n", seed, since ? "then" : "the start",
               done > since ? " and the commands" : "");
        return;
    }
    uint64_t seed;
    if (!cli_parse_u64(arg, 0, UINT64_MAX, &seed)) {
        fprintf(stderr, "fray repl: :seed takes a whole number from 0 to %llu, not '%s'\n",
                (unsigned long long)UINT64_MAX, arg);
        fail(r, EXIT_USAGE);
        return;
    }
    if (fray_session_reseed(r->s, seed) == FRAY_OK)
        printf("the dice now follow seed %llu\n", (unsigned long long)seed);
}

static void meta_quit(repl *r, const char *arg)
{
    (void)arg;
    r->quit = repl_may_leave(r);
}

const char *const repl_meta_names[] = {":help",    ":load",    ":save",  ":undo", ":redo", ":reroll",
                                       ":explain", ":history", ":state", ":seed", ":quit", NULL};

/* The REPL command a line names (any unambiguous prefix), with *arg its
 * argument, whole (free it); NULL, said, when it names none or several,
 * or memory runs out. */
static const meta *lookup(const char *line, char **arg)
{
    *arg = NULL;
    const char *name = line + 1;
    size_t n = 0;
    while (name[n] && !isspace((unsigned char)name[n]))
        n++;
    const char *p = name + n;
    while (isspace((unsigned char)*p))
        p++;
    size_t len = strlen(p);
    while (len > 0 && isspace((unsigned char)p[len - 1]))
        len--;
    const meta *found = NULL;
    int matches = 0;
    for (size_t i = 0; i < nmetas && matches >= 0; i++) {
        if (strlen(metas[i].name) == n && !strncmp(metas[i].name, name, n)) {
            found = &metas[i];
            matches = -1; /* the whole name: no prefix of another */
        } else if (n && !strncmp(metas[i].name, name, n)) {
            found = &metas[i];
            matches++;
        }
    }
    if (matches > 1) {
        fprintf(stderr, "fray repl: ':%.*s' could be", (int)n, name);
        for (size_t i = 0; i < nmetas; i++)
            if (!strncmp(metas[i].name, name, n))
                fprintf(stderr, " :%s", metas[i].name);
        fprintf(stderr, "\n");
        return NULL;
    }
    if (!found) {
        fprintf(stderr, "fray repl: ':%.*s' is not a REPL command (:help lists them)\n", (int)n, name);
        return NULL;
    }
    *arg = strndup(p, len);
    if (!*arg) {
        fprintf(stderr, "fray repl: out of memory\n");
        return NULL;
    }
    return found;
}

void repl_meta(repl *r, const char *line)
{
    char *arg;
    const meta *m = lookup(line, &arg);
    if (m)
        m->run(r, arg);
    else
        fail(r, EXIT_USAGE);
    free(arg);
}

bool repl_meta_at_question(repl *r, const char *line)
{
    char *arg;
    const meta *m = lookup(line, &arg);
    if (m && m->run == meta_undo) {
        free(arg);
        return false; /* the command is cancelled */
    }
    if (m && (m->run == meta_help || m->run == meta_explain || m->run == meta_history || m->run == meta_state))
        m->run(r, arg);
    else if (m)
        fprintf(stderr, "fray repl: :%s waits until the question is answered (or :undo cancels the command)\n",
                m->name);
    free(arg);
    return true;
}
