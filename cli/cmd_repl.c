/* cmd_repl: `fray repl`, where a GM plays at the table: reads commands with
 * readline (or, from a file or pipe, line by line without prompts), runs
 * them in a session that can undo, redo, save and recover, and asks the GM
 * the questions the rules put. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cli/repl.h"
#include "cli/serve.h"

/* Piped commands: the journal is synced every this many entries, or this
   often (ms), and whenever the input pauses (read_line). */
#define JOURNAL_GROUP_ENTRIES 256
#define JOURNAL_GROUP_MS 200

static const char usage[] = "Usage: fray repl [OPTION]... [RULES]...\n"
                            "Play at the table: load rules, bring in creatures, roll initiative, take\n"
                            "actions, answer the rules' questions, and ask why. Lines are play commands\n"
                            "and rules as in a .rules file; lines starting with ':' are the REPL's own\n"
                            "(:help lists them). From a file or a pipe it reads without prompts, so\n"
                            "  fray repl rules/legend.rules < session.txt\n"
                            "runs session.txt as a script.\n"
                            "\n"
                            "  --ask              put the rules' questions (rulings, reactions) even when\n"
                            "                     reading from a file or pipe: the next line answers\n"
                            "  --recover[=NAME]   restore a session left unsaved (by a crash, or a quit\n"
                            "                     without :save), up to its last completed command: the newest,\n"
                            "                     or the journal NAME (they are listed when there are more)\n"
                            "  --journal FILE     keep the crash journal in FILE (default: a file of the\n"
                            "                     session's own in $XDG_STATE_HOME/fray); never another\n"
                            "                     session's, nor one a crash left (--recover reads it)\n"
                            "  --no-journal       keep none (a crash loses the session)\n"
                            "  --serve [HOST:]PORT  show the players a page of the encounter as they may\n"
                            "                     know it, live: on this machine only unless HOST says\n"
                            "                     otherwise (then its address carries a token)\n"
                            "  --seed N           seed for the dice\n"
                            "  -I DIR             search DIR for `use` modules\n"
                            "  --limit NAME=N     a limit (fray help limits), as for every command\n"
                            "\n"
                            "History is kept in $XDG_STATE_HOME/fray/history (~/.local/state/fray).\n";

/* --- where state files live ---------------------------------------------------- */

/* $XDG_STATE_HOME/fray (or ~/.local/state/fray), created if needed; NULL
 * when there is no such place, with why in *why (free it; NULL: out of
 * memory). */
static char *state_dir(char **why)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char *dir;
    if (xdg && *xdg == '/')
        dir = cli_printf("%s/fray", xdg);
    else if (home && *home)
        dir = cli_printf("%s/.local/state/fray", home);
    else {
        *why = cli_printf("no folder for it ($XDG_STATE_HOME or $HOME/.local/state)");
        return NULL;
    }
    if (!dir) {
        *why = NULL; /* said as out of memory */
        return NULL;
    }
    /* mkdir -p, one level at a time */
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(dir, 0700);
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        *why = cli_printf("cannot make %s: %s", dir, strerror(errno));
        free(dir);
        return NULL;
    }
    return dir;
}

static char *joined(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* --- output ----------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), k = strlen(end);
    return n >= k && !strcmp(s + n - k, end);
}

/* On a terminal the transcript is coloured where the eye looks first: a
 * check's outcome, a refusal, the start of a turn or round. */
void repl_print_hidden_mark(const repl *r)
{
    printf("%s%s%s", r->color ? "\033[1;35m" : "", FRAY_HIDDEN_MARK, r->color ? "\033[0m" : "");
}

static void print_line(void *user, const char *line)
{
    const repl *r = user;
    if (!strncmp(line, FRAY_HIDDEN_MARK, strlen(FRAY_HIDDEN_MARK))) {
        repl_print_hidden_mark(r);
        line += strlen(FRAY_HIDDEN_MARK);
    }
    const char *color = NULL;
    size_t plain = strlen(line); /* the part printed without colour */
    if (r->color) {
        const char *colon = strrchr(line, ':');
        if (strstr(line, " vs ") && colon && (ends_with(line, ": hit") || ends_with(line, ": success"))) {
            color = "\033[32m";
            plain = (size_t)(colon - line) + 2;
        } else if (strstr(line, " vs ") && colon && (ends_with(line, ": miss") || ends_with(line, ": failure"))) {
            color = "\033[31m";
            plain = (size_t)(colon - line) + 2;
        } else if (strstr(line, " cannot ") || !strncmp(line, "no: ", 4)) {
            color = "\033[33m";
            plain = 0;
        } else if (!strncmp(line, "round ", 6) || ends_with(line, "'s turn") || ends_with(line, "' turn")) {
            color = "\033[1m";
            plain = 0;
        }
    }
    fwrite(line, 1, plain, stdout);
    if (color)
        printf("%s%s\033[0m", color, line + plain);
    fputc('\n', stdout);
}

static void print_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    fflush(stdout);
    if (d->from_session) /* a file refused, the journal: said as the REPL's own messages are */
        fprintf(stderr, "fray repl: %s%s\n", d->level == FRAY_WARNING ? "warning: " : "", d->message);
    else
        fputs(d->text, stderr);
}

static const char *paint(const repl *r, const char *code)
{
    return r->color ? code : "";
}

/* --- Ctrl-C --------------------------------------------------------------------------- */

/* At a prompt, Ctrl-C drops the line being typed; while a command runs it
 * is let pass (the step limits stop a runaway command). */
static sigjmp_buf at_prompt_jump, at_question_jump;
static volatile sig_atomic_t at_prompt, at_question;

/* At a question of the rules, it gives no answer (the default, if any). */
static void on_interrupt(int sig)
{
    (void)sig;
    if (at_prompt)
        siglongjmp(at_prompt_jump, 1);
    if (at_question)
        siglongjmp(at_question_jump, 1);
}

/* --- reading ---------------------------------------------------------------------------- */

/* How many braces the text leaves open (strings and comments aside). */
static int open_braces(const char *text, int depth)
{
    bool in_string = false;
    for (const char *p = text; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_string = false;
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '#') {
            while (p[1] && p[1] != '\n')
                p++;
        } else if (*p == '{') {
            depth++;
        } else if (*p == '}') {
            depth--;
        }
    }
    return depth;
}

/* One line: with readline and a prompt on a terminal, else plain. NULL at
 * the end of input. */
static char *read_line(repl *r, const char *prompt)
{
    if (r->interactive)
        return readline(prompt);
    /* input that is not typed has its journal synced in groups: what
       waits is synced before waiting for more, so that a pause in the
       input never leaves entries unsynced */
    struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
    if (!r->typed && poll(&in, 1, 0) == 0)
        fray_session_sync_journal(r->s);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = '\0';
    return line;
}

static bool append(char **text, size_t *len, const char *line)
{
    size_t add = strlen(line);
    char *grown = realloc(*text, *len + add + 2);
    if (!grown)
        return false;
    *text = grown;
    if (*len)
        (*text)[(*len)++] = '\n';
    memcpy(*text + *len, line, add + 1);
    *len += add;
    return true;
}

/* A whole command: more lines while braces are open. NULL at the end. */
static char *read_command(repl *r)
{
    char prompt[64], more[96];
    snprintf(prompt, sizeof prompt, "%sfray>%s ", r->color ? "\001\033[1;32m\002" : "",
             r->color ? "\001\033[0m\002" : "");
    /* the lines so far live in r->pending, where Ctrl-C finds them */
    size_t len = 0;
    int depth = 0;
    for (;;) {
        /* a command goes on while braces are open: the prompt shows how
           many (` ...{>`, ` ...{{>`), so that a stray one is seen */
        int shown = depth < 8 ? depth : 8;
        snprintf(more, sizeof more, "%s ...%.*s%s>%s ", r->color ? "\001\033[32m\002" : "", shown, "{{{{{{{{",
                 depth > 8 ? "+" : "", r->color ? "\001\033[0m\002" : "");
        char *line = read_line(r, len ? more : prompt);
        if (!line) {
            if (r->interactive && !len)
                putchar('\n'); /* Ctrl-D leaves the prompt's line */
            break;
        }
        bool ok = append(&r->pending, &len, line);
        depth = open_braces(line, depth);
        free(line);
        if (!ok) {
            free(r->pending);
            r->pending = NULL;
            break;
        }
        if (depth <= 0)
            break;
    }
    char *text = r->pending;
    r->pending = NULL;
    return text;
}

/* --- the GM's answers --------------------------------------------------------------------- */

/* One answer to a question: at a terminal with readline, the question as
 * its prompt; from a script, the next line that is not a comment (both go
 * in the transcript). NULL at the end of input or on Ctrl-C. */
static char *read_answer(repl *r, const char *question)
{
    fflush(stdout);
    if (!r->interactive) {
        fputs(question, stdout);
        char *line = read_line(r, "");
        while (line && line[strspn(line, " \t")] == '#') {
            free(line);
            line = read_line(r, "");
        }
        printf("%s\n", line ? line : "");
        return line;
    }
    static char colored[1200]; /* static: it outlives a Ctrl-C's jump */
    /* readline redraws a prompt that wraps over several lines badly when it
       holds colours (stray "m", "ault]"): a question longer than the line
       is written out first, the answer read after it */
    int rows = 0, cols = 0;
    rl_get_screen_size(&rows, &cols);
    int visible = 0;
    for (const char *c = question; *c; c++)
        visible += ((unsigned char)*c & 0xC0) != 0x80;
    if ((cols > 0 && visible >= cols - 1) || strlen(question) + 32 >= sizeof colored) {
        printf("%s%s%s\n", paint(r, "\033[1;33m"), question, paint(r, "\033[0m"));
        snprintf(colored, sizeof colored, "%s>%s ", paint(r, "\001\033[1;33m\002"), paint(r, "\001\033[0m\002"));
    } else {
        snprintf(colored, sizeof colored, "%s%s%s", paint(r, "\001\033[1;33m\002"), question,
                 paint(r, "\001\033[0m\002"));
    }
    if (sigsetjmp(at_question_jump, 1)) {
        at_question = 0;
        rl_free_line_state();
        rl_cleanup_after_signal();
        putchar('\n');
        return NULL;
    }
    at_question = 1;
    char *line = readline(colored);
    at_question = 0;
    return line;
}

static bool ask_gm(void *ui, const fray_question *q, char *answer, size_t cap)
{
    repl *r = ui;
    const char *hint = q->reaction                       ? "y/n"
                       : q->kind == FRAY_ANSWER_YES_NO   ? "yes/no"
                       : q->kind == FRAY_ANSWER_NUMBER   ? "a number"
                       : q->kind == FRAY_ANSWER_CREATURE ? "a creature, or nothing"
                       : q->choices                      ? q->choices
                                                         : "a word";
    const char *on_enter = !q->has_default   ? ""
                           : q->reaction     ? "take it"
                           : q->default_text ? q->default_text
                                             : "its default";
    /* an example answer, as it would be typed: its default (a short one, a
       value), else a choice */
    const char *example = "ANSWER";
    int example_len = 6;
    size_t first = q->choices ? strcspn(q->choices, "/") : 0;
    if (q->default_text && !strpbrk(q->default_text, " (") && strlen(q->default_text) < 64)
        example = q->default_text, example_len = (int)strlen(example);
    else if (q->kind == FRAY_ANSWER_YES_NO)
        example = "no", example_len = 2;
    else if (first && first < 64)
        example = q->choices, example_len = (int)first;
    char *question = cli_printf(
        "%s%s%s%s%s [%s%s%s%s%.*s%s%s] ", q->retry ? "(" : "", q->retry ? q->retry : "", q->retry ? ") " : "",
        q->ruling ? "ruling: " : "", q->text, hint, q->has_default ? "; Enter: " : "", on_enter, q->each ? "; '" : "",
        q->each ? example_len : 0, example, q->each ? " for all': every " : "", q->each ? q->each : "");
    if (!question) {
        fprintf(stderr, "fray repl: out of memory to ask the question\n");
        return false;
    }
    if (r->typed && !r->question_hint_shown) {
        r->question_hint_shown = true;
        printf("(a question of the rules: answer it; Enter takes its default; :state, :explain and :help work\n"
               " here, :undo cancels the command; 'answer RULING VALUE [for NAME]' answers one ahead of time;\n"
               " an answer followed by 'for all' answers every creature the question is put for)\n");
    }
    char *line;
    for (;;) {
        line = read_answer(r, question);
        if (!line) {
            free(question);
            return false;
        }
        const char *p = line + strspn(line, " \t");
        if (*p != ':')
            break;
        /* a REPL command at the question */
        bool again = repl_meta_at_question(r, p);
        free(line);
        fflush(stdout);
        if (!again) {
            fray_cancel(fray_session_context(r->s));
            free(question);
            return false;
        }
    }
    free(question);
    snprintf(answer, cap, "%s", line); /* longer than cap: refused as too long, never taken cut */
    free(line);
    return true;
}

/* --- a formula for a creature: `range medium for valeros` --------------------------------- */

static void formula_answer(repl *r, const char *kind, const char *name, const char *creature)
{
    fray *f = fray_session_context(r->s);
    const char *found = fray_cite(f, name);
    if (!found) {
        fprintf(stderr, "fray repl: no %s '%s' in the rules loaded\n", kind, name);
        r->worst = r->worst ? r->worst : EXIT_USAGE;
        return;
    }
    char *cite = strdup(found); /* the value's text is the next the context returns */
    const char *value;
    if (!cite || fray_eval_for(f, creature, name, &value) != FRAY_OK) {
        if (!cite)
            fprintf(stderr, "fray repl: out of memory\n");
        free(cite);
        r->worst = r->worst ? r->worst : EXIT_RULES;
        return;
    }
    printf("%s %s for %s: %s%s%s%s\n", kind, name, creature, value, cite[0] ? "  (" : "", cite, cite[0] ? ")" : "");
    free(cite);
}

/* The next word of *at (letters, digits, underscores) after blanks, of
   any length: its length, with *at moved past it; 0 when there is none. */
static size_t next_word(const char **at, const char **word)
{
    const char *s = *at + strspn(*at, " \t");
    size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    *word = s;
    *at = s + n;
    return n;
}

static bool formula_query(repl *r, const char *line)
{
    static const char *const kinds[] = {"range", "stat", "resource", "duration"};
    const char *at = line, *w[4];
    size_t n[4];
    for (int i = 0; i < 4; i++)
        n[i] = next_word(&at, &w[i]);
    if (!n[0] || !n[1] || n[2] != 3 || memcmp(w[2], "for", 3) || !n[3] || at[strspn(at, " \t")])
        return false;
    const char *kind = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i]) == n[0] && !memcmp(w[0], kinds[i], n[0]))
            kind = kinds[i];
    if (!kind)
        return false;
    char *name = strndup(w[1], n[1]), *creature = strndup(w[3], n[3]);
    if (!name || !creature) {
        free(name);
        free(creature);
        fprintf(stderr, "fray repl: out of memory\n");
        r->worst = r->worst ? r->worst : EXIT_RULES;
        return true;
    }
    formula_answer(r, kind, name, creature);
    free(name);
    free(creature);
    return true;
}

/* --- the loop ---------------------------------------------------------------------------- */

static bool blank(const char *text)
{
    for (const char *p = text; *p; p++) {
        if (*p == '#')
            while (p[1] && p[1] != '\n')
                p++;
        else if (!isspace((unsigned char)*p))
            return false;
    }
    return true;
}

static void remember(repl *r, const char *text)
{
    if (!r->interactive)
        return;
    add_history(text);
    if (r->history_path)
        append_history(1, r->history_path);
}

static void one_command(repl *r, const char *text)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == ':') {
        repl_meta(r, p);
    } else if (!formula_query(r, p)) {
        int code = cli_exit_code(fray_session_command(r->s, text));
        if (code != EXIT_OK && !r->worst)
            r->worst = code;
    }
    if (r->serve)
        serve_publish(r->serve, fray_session_context(r->s));
    fflush(stdout);
}

bool repl_may_leave(repl *r)
{
    if (!r->typed || !fray_session_unsaved(r->s))
        return true;
    if (fray_session_has_journal(r->s)) {
        r->keep_journal = true;
        fray_session_sync_journal(r->s);
        fprintf(stderr, "fray repl: the session is not saved; its journal is kept, and 'fray repl --recover' "
                        "restores it\n");
        return true;
    }
    if (r->warned_unsaved)
        return true;
    r->warned_unsaved = true;
    fprintf(stderr, "fray repl: the session is not saved, and no journal keeps it: ':save FILE' keeps it; :quit or "
                    "Ctrl-D again leaves without it\n");
    return false;
}

static void loop(repl *r)
{
    if (r->interactive)
        printf("fray %s. :help for help, Ctrl-D to quit.\n", fray_version());
    while (!r->quit) {
        if (r->interactive && sigsetjmp(at_prompt_jump, 1)) {
            /* Ctrl-C: the line is dropped, the session goes on */
            at_prompt = 0;
            free(r->pending);
            r->pending = NULL;
            rl_free_line_state();
            rl_cleanup_after_signal();
            putchar('\n');
        }
        at_prompt = 1;
        char *text = read_command(r);
        at_prompt = 0;
        if (!text) {
            if (repl_may_leave(r))
                break;
            continue;
        }
        if (!blank(text)) {
            remember(r, text);
            one_command(r, text);
        }
        free(text);
    }
}

/* Options of our own (--recover, --journal); the rest are the shared ones. */
typedef struct repl_options {
    bool ask, recover;
    const char *recover_from; /* --recover=NAME */
    const char *journal;      /* --journal FILE; "" for --no-journal */
    const char *serve;        /* --serve [HOST:]PORT, or NULL */
} repl_options;

static int parse(int argc, char **argv, cli_options *o, int *first, repl_options *ro)
{
    /* room for every argument: past a fixed number the rest went unread */
    size_t rest_bytes = ((size_t)argc + 1) * sizeof(char *);
    char **rest = malloc(rest_bytes);
    if (!rest) {
        fprintf(stderr, "fray: out of memory\n");
        return EXIT_IO;
    }
    int n = 0;
    rest[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--recover"))
            ro->recover = true;
        else if (!strncmp(argv[i], "--recover=", 10) && argv[i][10])
            ro->recover = true, ro->recover_from = argv[i] + 10;
        else if (!strcmp(argv[i], "--ask"))
            ro->ask = true;
        else if (!strcmp(argv[i], "--no-journal"))
            ro->journal = "";
        else if (!strcmp(argv[i], "--journal") && i + 1 < argc)
            ro->journal = argv[++i];
        else if (!strncmp(argv[i], "--journal=", 10))
            ro->journal = argv[i] + 10;
        else if (!strcmp(argv[i], "--serve") && i + 1 < argc)
            ro->serve = argv[++i];
        else if (!strcmp(argv[i], "--serve")) {
            fprintf(stderr, "fray repl: --serve needs where to serve: PORT, HOST:PORT or [IPV6]:PORT\n");
            free(rest);
            return EXIT_USAGE;
        } else if (!strncmp(argv[i], "--serve=", 8))
            ro->serve = argv[i] + 8;
        else
            rest[n++] = argv[i];
    }
    rest[n] = NULL;
    int rc = cli_parse("repl", n, rest, o, first, usage);
    for (int i = 0; i < n; i++)
        argv[i] = rest[i];
    argv[n] = NULL;
    free(rest);
    return rc;
}

/* --- the journal, and sessions a crash left -------------------------------------- */

/* The journals a crash left in the state folder, newest first. */
typedef struct unfinished {
    size_t n;
    char *chosen; /* the newest with entries done (else the newest) */
    bool chosen_has_entries;
    bool print;
} unfinished;

static void when(int64_t t, char *buf, size_t cap)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!localtime_r(&tt, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M", &tm))
        snprintf(buf, cap, "?");
}

static void found_journal(void *user, const fray_journal_info *j)
{
    unfinished *u = user;
    u->n++;
    if (!u->chosen || (!u->chosen_has_entries && j->entries)) {
        free(u->chosen);
        u->chosen = strdup(j->path);
        u->chosen_has_entries = j->entries > 0;
    }
    if (!u->print)
        return;
    char at[32], undone[32] = "";
    char *last = j->entries ? repl_describe_entry(&j->last) : NULL;
    if (j->undone)
        snprintf(undone, sizeof undone, " (%zu undone)", j->undone);
    when(j->modified, at, sizeof at);
    const char *name = strrchr(j->path, '/');
    printf("  %-34s %s  %5zu entr%s%s%s%s\n", name ? name + 1 : j->path, at, j->entries, j->entries == 1 ? "y" : "ies",
           undone, last && last[0] ? "  last: " : "", last ? last : "");
    free(last);
}

/* The journal --recover reads: the one named, --journal's, or the newest
 * in the state folder that holds entries (all of them listed). NULL, said
 * why, when none. */
static char *journal_to_recover(repl *r, const repl_options *ro, const char *dir)
{
    if (ro->recover_from) {
        if (strchr(ro->recover_from, '/') || !dir)
            return strdup(ro->recover_from);
        return joined(dir, ro->recover_from);
    }
    if (ro->journal && *ro->journal)
        return strdup(ro->journal);
    unfinished u = {0};
    if (dir)
        fray_session_journals(r->s, dir, found_journal, &u);
    if (u.n > 1) {
        /* listed on a second look, to say which is restored */
        char *chosen = u.chosen;
        printf("%zu sessions were left unsaved (newest first):\n", u.n);
        u = (unfinished){.print = true};
        fray_session_journals(r->s, dir, found_journal, &u);
        const char *name = strrchr(chosen, '/');
        printf("restoring %s; --recover=NAME restores another\n", name ? name + 1 : chosen);
        free(u.chosen);
        u.chosen = chosen;
    }
    if (!u.chosen)
        fprintf(stderr, "fray repl: no session to recover (no journal left in %s)\n", dir ? dir : "the state folder");
    return u.chosen;
}

/* Says, at the start of a session, that others were left by a crash. */
static void note_unfinished(repl *r, const char *dir)
{
    unfinished u = {0};
    fray_session_journals(r->s, dir, found_journal, &u);
    if (u.n)
        fprintf(stderr,
                "fray repl: %zu earlier session%s left unsaved (by a crash, or a quit without :save); "
                "'fray repl --recover' restores %s\n",
                u.n, u.n == 1 ? " was" : "s were", u.n == 1 ? "it" : "the newest (and lists them)");
    free(u.chosen);
}

/* Recovers, then starts the session's journal. A status to exit with, or
 * EXIT_OK to go on. */
static int start_session(repl *r, const repl_options *ro, const char *dir, const char *no_dir)
{
    bool none = ro->journal && !*ro->journal;
    const char *file = ro->journal && *ro->journal ? ro->journal : NULL;
    if (ro->recover) {
        char *path = journal_to_recover(r, ro, dir);
        if (!path)
            return EXIT_USAGE;
        int rc = cli_exit_code(fray_session_recover(r->s, path));
        if (rc == EXIT_OK) {
            size_t done = fray_session_done(r->s);
            printf("recovered %zu entr%s from %s\n", done, done == 1 ? "y" : "ies", path);
        }
        free(path);
        if (rc != EXIT_OK)
            return rc;
    } else if (!file && !none && dir) {
        note_unfinished(r, dir);
    }
    if (none)
        return EXIT_OK;
    if (file) /* refused when it is another session's: nothing is started */
        return fray_session_journal(r->s, file) == FRAY_ERR_USAGE ? EXIT_USAGE : EXIT_OK;
    if (dir) {
        fray_session_journal_in(r->s, dir); /* when it cannot be kept, a warning says so */
        return EXIT_OK;
    }
    fprintf(stderr,
            "fray repl: warning: cannot keep a journal: %s; going on without one (a crash would lose the "
            "session)\n",
            no_dir);
    return EXIT_OK;
}

/* The players' view, served from now on (--serve); false after saying why. */
static bool start_serving(repl *r, const char *where)
{
    char *url = NULL;
    r->serve = serve_start(where, &url);
    if (!r->serve)
        return false;
    /* a socket whose reader left must not end the session */
    signal(SIGPIPE, SIG_IGN);
    serve_publish(r->serve, fray_session_context(r->s));
    fprintf(stderr, "fray repl: the players' view is at %s\n", url);
    free(url);
    return true;
}

int cmd_repl(int argc, char **argv)
{
    cli_options o;
    int first;
    repl_options ro = {0};
    int rc = parse(argc, argv, &o, &first, &ro);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    int nargs = 0;
    while (argv[nargs])
        nargs++;

    /* line by line, so that what is printed and what goes to stderr keep
       their order in a transcript */
    setvbuf(stdout, NULL, _IOLBF, 0);
    repl r = {.interactive = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO), .typed = isatty(STDIN_FILENO)};
    const char *no_color = getenv("NO_COLOR");
    r.color = o.color == 1 || (o.color == -1 && r.interactive && !(no_color && *no_color));
    r.s = cli_session(&o);
    if (!r.s)
        return EXIT_IO;
    fray_session_on_output(r.s, print_line, &r);
    fray_session_on_diagnostic(r.s, print_diagnostic, &r);
    if (r.interactive || ro.ask) /* else rulings take their defaults, as in a script */
        fray_session_on_ask(r.s, ask_gm, &r);
    char *no_dir = NULL;
    char *dir = state_dir(&no_dir);
    rc = start_session(&r, &ro, dir, no_dir ? no_dir : "out of memory");
    /* commands that come faster than a disk syncs (a pipe, a file) are
       synced in groups; each one a GM types, as it completes */
    if (!r.typed)
        fray_session_group_syncs(r.s, JOURNAL_GROUP_ENTRIES, JOURNAL_GROUP_MS);
    free(no_dir);
    for (int i = first; i < nargs && rc == EXIT_OK; i++)
        rc = cli_exit_code(fray_session_load_rules(r.s, argv[i]));
    if (rc != EXIT_OK) {
        /* a session recovered stays in its journal; else nothing was done */
        if (!ro.recover)
            fray_session_close_journal(r.s);
        fray_session_close(r.s);
        free(dir);
        return rc;
    }
    if (r.interactive) {
        r.history_path = dir ? joined(dir, "history") : NULL;
        using_history();
        /* append_history needs the file to be there */
        if (r.history_path && read_history(r.history_path) != 0)
            write_history(r.history_path);
        repl_complete_init(&r);
        struct sigaction sa = {.sa_handler = on_interrupt};
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
    }
    if (ro.serve && !start_serving(&r, ro.serve)) {
        fray_session_close_journal(r.s);
        fray_session_close(r.s);
        free(dir);
        return EXIT_USAGE;
    }
    loop(&r);
    serve_stop(r.serve);
    if (r.history_path) {
        history_truncate_file(r.history_path, 1000);
        free(r.history_path);
    }
    if (!r.keep_journal)
        fray_session_close_journal(r.s);
    fray_session_close(r.s);
    free(dir);
    return r.interactive ? EXIT_OK : r.worst;
}
