/* repl_complete: Tab completion. What is offered depends on where the
 * cursor is: REPL commands after ':', file names after `:load` and
 * `:save`, the actions a creature may take now after `NAME:`, the targets
 * the action may take after `NAME: ACTION`, conditions after `apply` and
 * `remove`, a creature's stats after `NAME.`, creatures where a creature
 * goes, and at the start commands, keywords and `NAME:` for each creature. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/readline.h>

#include "cli/repl.h"

static repl *the_repl; /* readline's completion hooks take no user data */

typedef struct words {
    char **w;
    size_t n, cap;
} words;

static words offered;    /* the candidates for the word being completed */
static words vocabulary; /* the language's words, gathered once */

static void keep(words *ws, char *w);

static void add(words *ws, const char *w)
{
    for (size_t i = 0; i < ws->n; i++)
        if (!strcmp(ws->w[i], w))
            return;
    char *copy = strdup(w);
    if (copy)
        keep(ws, copy);
}

/* Takes w (allocated) as the next word, duplicates and all; frees it when
   there is no room. */
static void keep(words *ws, char *w)
{
    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? 2 * ws->cap : 64;
        char **grown = realloc(ws->w, cap * sizeof *grown);
        if (!grown) {
            free(w);
            return;
        }
        ws->w = grown;
        ws->cap = cap;
    }
    ws->w[ws->n++] = w;
}

static void clear(words *ws)
{
    for (size_t i = 0; i < ws->n; i++)
        free(ws->w[i]);
    ws->n = 0;
}

static void add_name(void *user, const char *name)
{
    add(user, name);
}

/* The first word of a form: "roll initiative [...]" offers "roll". */
static void add_word(void *user, const fray_word *w)
{
    if (w->kind == FRAY_WORD_CLAUSE || w->kind == FRAY_WORD_EVENT)
        return;
    char *first = strndup(w->word, strcspn(w->word, " "));
    if (first)
        add(user, first);
    free(first);
}

/* `NAME:`, to act: what a creature at the start of a line mostly is */
static void add_actor(void *user, const char *name)
{
    size_t n = strlen(name) + sizeof ":";
    char *with_colon = malloc(n);
    if (!with_colon)
        return;
    snprintf(with_colon, n, "%s:", name);
    add(user, with_colon);
    free(with_colon);
}

/* `NAME.STAT` for the creature before the dot */
typedef struct member_of {
    words *into;
    const char *creature;
    size_t len;
} member_of;

static void add_member(void *user, const char *stat)
{
    member_of *m = user;
    size_t n = m->len + strlen(stat) + sizeof ".";
    char *both = malloc(n);
    if (!both)
        return;
    snprintf(both, n, "%.*s.%s", (int)m->len, m->creature, stat);
    add(m->into, both);
    free(both);
}

static char *next_candidate(const char *text, int state)
{
    static size_t at, len;
    if (!state) {
        at = 0;
        len = strlen(text);
    }
    while (at < offered.n) {
        const char *w = offered.w[at++];
        if (!strncmp(w, text, len))
            return strdup(w);
    }
    return NULL;
}

/* The words of the line before the one being completed, added to out
   (cleared first); false out of memory. */
static bool split(const char *line, int end, words *out)
{
    clear(out);
    const char *p = line, *stop = line + end;
    while (p < stop) {
        while (p < stop && (isspace((unsigned char)*p) || *p == ','))
            p++;
        const char *w = p;
        while (p < stop && !isspace((unsigned char)*p) && *p != ',')
            p++;
        if (p > w) {
            size_t had = out->n;
            char *word = strndup(w, (size_t)(p - w));
            if (word) /* kept as it is, the same word twice too (add keeps one) */
                keep(out, word);
            if (out->n == had)
                return false;
        }
    }
    return true;
}

/* Commands whose next word is a creature, and nothing else. */
static bool takes_creature(const char *command)
{
    static const char *const commands[] = {"hide", "reveal", "damage", "heal", "resume", "place", "show"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(command, commands[i]))
            return true;
    return false;
}

/* `apply CONDITION to NAME`, `remove CONDITION from NAME`. */
static bool takes_creature_after(const char *command, const char *word)
{
    return (!strcmp(command, "apply") && !strcmp(word, "to")) || (!strcmp(command, "remove") && !strcmp(word, "from"));
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    fray *f = fray_session_context(the_repl->s);
    static words line; /* the words before the one being completed */
    if (!split(rl_line_buffer, start, &line))
        return NULL;
    char **before = line.w;
    int n = (int)line.n;
    clear(&offered);
    rl_attempted_completion_over = 1; /* no file names unless said below */
    if (n == 0 && text[0] == ':') {
        for (const char *const *m = repl_meta_names; *m; m++)
            add(&offered, *m);
    } else if (n >= 1 && before[0][0] == ':') {
        if (!strncmp(before[0], ":load", strlen(before[0])) || !strncmp(before[0], ":save", strlen(before[0]))) {
            rl_attempted_completion_over = 0;
            return NULL; /* readline's own file names */
        }
        for (size_t i = 0; i < vocabulary.n; i++)
            add(&offered, vocabulary.w[i]);
        for (const char *const *m = repl_meta_names; *m; m++)
            add(&offered, *m + 1);
    } else if (strchr(text, '.')) {
        /* NAME.STAT */
        member_of m = {&offered, text, strcspn(text, ".")};
        fray_stats(f, add_member, &m);
    } else if (n == 1 && before[0][strlen(before[0]) - 1] == ':') {
        /* NAME: ACTION */
        before[0][strlen(before[0]) - 1] = '\0';
        fray_actions(f, before[0], add_name, &offered);
    } else if (n == 2 && !strcmp(before[1], ":")) {
        /* NAME : ACTION, after a completed name */
        fray_actions(f, before[0], add_name, &offered);
    } else if (n >= 2 && before[0][strlen(before[0]) - 1] == ':') {
        /* NAME: ACTION ARGS...: what the next parameter takes */
        before[0][strlen(before[0]) - 1] = '\0';
        fray_arguments(f, before[0], before[1], n - 2, add_name, &offered);
    } else if (n >= 3 && !strcmp(before[1], ":")) {
        fray_arguments(f, before[0], before[2], n - 3, add_name, &offered);
    } else if (n == 2 && !strcmp(before[0], "can")) {
        fray_actions(f, before[1], add_name, &offered);
    } else if (n == 1 && (!strcmp(before[0], "apply") || !strcmp(before[0], "remove"))) {
        fray_conditions(f, add_name, &offered);
        if (!strcmp(before[0], "remove")) /* remove NAME: a creature out of play */
            fray_creatures(f, add_name, &offered);
    } else if ((n == 1 && takes_creature(before[0])) || (n == 3 && takes_creature_after(before[0], before[2])) ||
               (n >= 2 && !strcmp(before[0], "roll") && !strcmp(before[1], "initiative"))) {
        fray_creatures(f, add_name, &offered);
    } else if (n >= 1) {
        /* arguments: creatures mostly */
        fray_creatures(f, add_name, &offered);
        for (size_t i = 0; i < vocabulary.n; i++)
            add(&offered, vocabulary.w[i]);
    } else {
        /* the first word: a command, a keyword or a creature about to act */
        for (size_t i = 0; i < vocabulary.n; i++)
            add(&offered, vocabulary.w[i]);
        fray_creatures(f, add_actor, &offered);
    }
    return rl_completion_matches(text, next_candidate);
}

void repl_complete_init(repl *r)
{
    the_repl = r;
    if (!vocabulary.n) {
        fray_vocabulary(add_word, &vocabulary);
        static const char *const statements[] = {"print", "let", "if", "for", "repeat", "use", "import", "override"};
        for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++)
            add(&vocabulary, statements[i]);
    }
    rl_readline_name = "fray";
    rl_attempted_completion_function = complete;
    rl_basic_word_break_characters = " \t\n\"(),;{}";
}
