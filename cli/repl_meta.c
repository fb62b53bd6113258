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

void repl_describe_entry(const fray_entry *e, char *buf, size_t cap)
{
    switch (e->kind) {
    case FRAY_ENTRY_COMMAND: {
        const char *nl = strchr(e->text, '\n');
        int len = nl ? (int)(nl - e->text) : (int)strlen(e->text);
        snprintf(buf, cap, "%.*s%s%s", len, e->text, nl ? " ..." : "", e->rerolled ? "   (rerolled)" : "");
        break;
    }
    case FRAY_ENTRY_RULES: snprintf(buf, cap, ":load %s", e->path); break;
    case FRAY_ENTRY_SEED: snprintf(buf, cap, ":seed %" PRIu64, e->seed); break;
    }
}

/* The first line of entry i, for listings. */
static void describe(const repl *r, size_t i, char *buf, size_t cap)
{
    fray_entry e = {.kind = FRAY_ENTRY_SEED};
    fray_session_entry(r->s, i, &e);
    repl_describe_entry(&e, buf, cap);
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
    for (size_t i = 0; i < n && i < done; i++) {
        char what[256];
        describe(r, done - 1 - i, what, sizeof what);
        printf("undone: %s\n", what);
    }
    fray_session_undo(r->s, n);
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
    fray_session_redo(r->s, n);
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
        char what[256];
        describe(r, (size_t)n - 1, what, sizeof what);
        printf("[%llu] %s\n", (unsigned long long)n, what);
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
        char what[256];
        describe(r, i, what, sizeof what);
        printf("%4zu  %s\n", i + 1, what);
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
        char cmd[200];
        if (fray_is_hidden(f, who))
            repl_print_hidden_mark(r);
        printf("%s's turn\n", who);
        snprintf(cmd, sizeof cmd, "show economy %s", who);
        fray_run_string(f, "<repl>", cmd, strlen(cmd));
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

/* The REPL command a line names (any unambiguous prefix), its argument in
 * arg; NULL, said, when it names none or several. */
static const meta *lookup(const char *line, char *arg, size_t cap)
{
    char name[32];
    size_t n = 0;
    const char *p = line + 1;
    while (*p && !isspace((unsigned char)*p) && n + 1 < sizeof name)
        name[n++] = *p++;
    name[n] = '\0';
    while (isspace((unsigned char)*p))
        p++;
    snprintf(arg, cap, "%s", p);
    for (size_t k = strlen(arg); k > 0 && isspace((unsigned char)arg[k - 1]);)
        arg[--k] = '\0';
    const meta *found = NULL;
    int matches = 0;
    for (size_t i = 0; i < nmetas; i++) {
        if (!strcmp(metas[i].name, name))
            return &metas[i];
        if (n && !strncmp(metas[i].name, name, n)) {
            found = &metas[i];
            matches++;
        }
    }
    if (matches == 1)
        return found;
    if (matches > 1) {
        fprintf(stderr, "fray repl: ':%s' could be", name);
        for (size_t i = 0; i < nmetas; i++)
            if (!strncmp(metas[i].name, name, n))
                fprintf(stderr, " :%s", metas[i].name);
        fprintf(stderr, "\n");
    } else {
        fprintf(stderr, "fray repl: ':%s' is not a REPL command (:help lists them)\n", name);
    }
    return NULL;
}

void repl_meta(repl *r, const char *line)
{
    char arg[1024];
    const meta *m = lookup(line, arg, sizeof arg);
    if (m)
        m->run(r, arg);
    else
        fail(r, EXIT_USAGE);
}

bool repl_meta_at_question(repl *r, const char *line)
{
    char arg[1024];
    const meta *m = lookup(line, arg, sizeof arg);
    if (m && m->run == meta_undo)
        return false; /* the command is cancelled */
    if (m && (m->run == meta_help || m->run == meta_explain || m->run == meta_history || m->run == meta_state))
        m->run(r, arg);
    else if (m)
        fprintf(stderr, "fray repl: :%s waits until the question is answered (or :undo cancels the command)\n",
                m->name);
    return true;
}
