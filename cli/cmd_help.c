/* fray help: the language's vocabulary, from the library's own tables, so
 * what help says is what the compiler accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char usage[] = "Usage: fray help [TOPIC | WORD]\n"
                            "Explain the words of the Fray language.\n"
                            "\n"
                            "Topics:\n"
                            "  declarations   every declaration (stat, economy, initiative, condition, ...)\n"
                            "  commands       every play command (begin, roll initiative, show, ...)\n"
                            "  functions      every built-in function (has, distance, prob, ...)\n"
                            "  events         every event the runtime emits, for triggers\n"
                            "  limits         every limit on what rules may do, and its default\n"
                            "\n"
                            "A WORD is one of them: a declaration is shown with all its clauses\n"
                            "(fray help initiative), a clause with its declaration (fray help ties).\n"
                            "  --forms        every form, one per line (for scripts)\n"
                            "  --man          the whole vocabulary as a manual page, fray-rules(5)\n";

typedef struct lookup {
    const char *want;    /* a topic or word */
    fray_word_kind kind; /* topic listing: this kind */
    bool listing;
    bool forms;
    const char *in_decl; /* printing a declaration's clauses */
    bool clauses_titled;
    int found;
} lookup;

static const char *kind_title(fray_word_kind k)
{
    switch (k) {
    case FRAY_WORD_DECLARATION: return "declaration";
    case FRAY_WORD_CLAUSE: return "clause";
    case FRAY_WORD_COMMAND: return "command";
    case FRAY_WORD_FUNCTION: return "function";
    case FRAY_WORD_EVENT: return "event";
    }
    return "";
}

static void print_entry(const fray_word *w, bool brief, int indent)
{
    if (brief) {
        printf("%*s%-20s %s\n", indent, "", w->word, w->meaning);
        return;
    }
    printf("%*s%s\n", indent, "", w->form);
    if (w->meaning[0])
        printf("%*s    %s\n", indent, "", w->meaning);
}

static void on_word(void *user, const fray_word *w)
{
    lookup *l = user;
    if (l->forms) {
        printf("%s\n", w->form);
        return;
    }
    if (l->listing) {
        if (w->kind == l->kind) {
            print_entry(w, true, 2);
            l->found++;
        }
        return;
    }
    /* the clauses of the declaration just printed */
    if (l->in_decl) {
        if (w->kind == FRAY_WORD_CLAUSE && w->parent && !strcmp(w->parent, l->in_decl)) {
            if (!l->clauses_titled)
                printf("  clauses:\n");
            l->clauses_titled = true;
            print_entry(w, false, 4);
            return;
        }
        l->in_decl = NULL;
    }
    /* "space" names both kinds of space */
    bool named =
        !strcmp(w->word, l->want) || (w->kind == FRAY_WORD_DECLARATION && !strncmp(w->word, l->want, strlen(l->want)) &&
                                      w->word[strlen(l->want)] == ' ');
    if (!named)
        return;
    if (l->found++)
        printf("\n");
    if (w->kind == FRAY_WORD_CLAUSE)
        printf("%s: a clause of %s\n", w->word, w->parent);
    else
        printf("%s: %s\n", w->word, kind_title(w->kind));
    print_entry(w, false, 2);
    if (w->kind == FRAY_WORD_DECLARATION) {
        l->in_decl = w->word;
        l->clauses_titled = false;
    }
}

/* `fray help` alone: every word of the language by kind, names only,
   wrapped, a clause once however many declarations have it. */
typedef struct overview {
    fray_word_kind kind;
    int column;
    const char *seen[1024]; /* clause words printed so far */
    int nseen;
} overview;

static void overview_word(void *user, const fray_word *w)
{
    overview *o = user;
    if (w->kind != o->kind)
        return;
    for (int i = 0; i < o->nseen; i++)
        if (!strcmp(o->seen[i], w->word))
            return;
    if (o->nseen < (int)(sizeof o->seen / sizeof o->seen[0]))
        o->seen[o->nseen++] = w->word;
    int n = (int)strlen(w->word);
    if (o->column + 1 + n > 78) {
        printf("\n ");
        o->column = 1;
    }
    printf(" %s", w->word);
    o->column += 1 + n;
}

static void print_overview(void)
{
    static const struct {
        fray_word_kind kind;
        const char *title;
    } kinds[] = {{FRAY_WORD_DECLARATION, "Declarations"},
                 {FRAY_WORD_CLAUSE, "Clauses (of the declarations)"},
                 {FRAY_WORD_COMMAND, "Play commands"},
                 {FRAY_WORD_FUNCTION, "Built-in functions"},
                 {FRAY_WORD_EVENT, "Built-in events"}};
    printf("The words of the Fray language. fray help WORD explains one; fray help TOPIC\n"
           "lists them with their meanings (declarations, commands, functions, events,\n"
           "limits); fray --help lists the program's commands.\n");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        /* the clause words repeat; the seen list is only as long as needed */
        overview *o = calloc(1, sizeof *o);
        if (!o)
            return;
        o->kind = kinds[k].kind;
        printf("\n%s:\n ", kinds[k].title);
        o->column = 1;
        fray_vocabulary(overview_word, o);
        printf("\n");
        free(o);
    }
}

static void print_limit(void *user, const char *name, const char *meaning, uint64_t default_value)
{
    (void)user;
    printf("  %-14s %-10llu %-18llu %s\n", name, (unsigned long long)default_value,
           (unsigned long long)fray_limit_most(name), meaning);
}

/* --- fray-rules(5) ------------------------------------------------------------ */

/* Text for roff: backslashes doubled, and a line never starts with a
   control character. */
static void roff(const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", stdout);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", stdout);
        else if (*s == '-')
            fputs("\\-", stdout);
        else
            putchar(*s);
    }
}

typedef struct man_state {
    fray_word_kind section; /* the section under way */
    bool started;
    bool in_clauses; /* a declaration's clauses are indented under it */
} man_state;

static void man_word(void *user, const fray_word *w)
{
    man_state *m = user;
    static const char *const titles[] = {"DECLARATIONS", "", "PLAY COMMANDS", "BUILT-IN FUNCTIONS", "BUILT-IN EVENTS"};
    bool clause = w->kind == FRAY_WORD_CLAUSE;
    if (!clause && m->in_clauses) {
        printf(".RE\n");
        m->in_clauses = false;
    }
    if (!clause && (!m->started || w->kind != m->section)) {
        printf(".SH %s\n", titles[w->kind]);
        m->section = w->kind;
        m->started = true;
    }
    if (clause && !m->in_clauses) {
        printf(".RS\n");
        m->in_clauses = true;
    }
    printf(".TP\n.B \"");
    for (const char *s = w->form; *s; s++) /* inside quotes: no quote, a backslash escaped */
        fputs(*s == '"' ? "\\(dq" : *s == '\\' ? "\\e" : (char[2]){*s, 0}, stdout);
    printf("\"\n");
    if (w->meaning[0])
        roff(w->meaning);
    else
        fputs("\\&", stdout);
    putchar('\n');
}

static void man_end(man_state *m)
{
    if (m->in_clauses)
        printf(".RE\n");
}

static void man_limit(void *user, const char *name, const char *meaning, uint64_t default_value)
{
    (void)user;
    printf(".TP\n.B %s\n(default %llu, at most %llu) ", name, (unsigned long long)default_value,
           (unsigned long long)fray_limit_most(name));
    roff(meaning);
    putchar('\n');
}

/* The language's vocabulary from the compiler's own tables, as a manual
   page: it cannot drift from what fray accepts, and doc/language.md is
   checked against the same tables (tests/doc.test). */
static int print_man(void)
{
    printf(".TH FRAY-RULES 5 \"\" \"fray %s\" \"Fray Manual\"\n", fray_version());
    printf(".SH NAME\nfray-rules \\- the Fray rules language\n");
    printf(".SH DESCRIPTION\n"
           "A rules file (\\fI.rules\\fR) transcribes the combat rules of a tabletop role-playing game: "
           "its action economy, initiative, rounds, durations, ranges, conditions, actions, triggers and "
           "rulings, as declarations; a script adds creatures and play commands. "
           "Items are separated by newlines or semicolons; \\fB#\\fR starts a comment; "
           "\\fB\\(sc \"Section\"\\fR cites the passage of the rules a declaration transcribes. "
           "Numbers may carry units (\\fB5 ft\\fR, \\fB6 s\\fR, \\fB2 rounds\\fR) and dice use the common "
           "notation (\\fB4d6kh3\\fR, \\fBd20r1\\fR, \\fB10d10>=8\\fR, \\fBd6!\\fR).\n"
           ".PP\nThis page lists every declaration with its clauses, every play command, built-in function "
           "and built-in event, as \\fBfray help\\fR shows them. The full reference, with the meaning of "
           "each and examples, is \\fIdoc/language.md\\fR in Fray's documentation.\n");
    man_state m = {0};
    fray_vocabulary(man_word, &m);
    man_end(&m);
    printf(".SH LIMITS\nA rule that runs away stops at a limit, with an error that names it; "
           "\\fB\\-\\-limit NAME=N\\fR changes one.\n");
    fray_limits(man_limit, NULL);
    printf(".SH SEE ALSO\n.BR fray (1)\n");
    return EXIT_OK;
}

int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_overview();
        return EXIT_OK;
    }
    if (argc > 2) {
        fprintf(stderr, "fray help: one topic or word at a time\n");
        return EXIT_USAGE;
    }
    const char *what = argv[1];
    if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    lookup l = {.want = what};
    static const struct {
        const char *topic;
        fray_word_kind kind;
        const char *title;
    } topics[] = {
        {"declarations", FRAY_WORD_DECLARATION, "Declarations (fray help NAME for the clauses of one):"},
        {"commands", FRAY_WORD_COMMAND, "Play commands (fray help NAME for the form of one):"},
        {"functions", FRAY_WORD_FUNCTION, "Built-in functions (fray help NAME for the form of one):"},
        {"events", FRAY_WORD_EVENT, "Built-in events (fray help NAME for its arguments):"},
    };
    if (!strcmp(what, "limits")) {
        printf("Limits (--limit NAME=N on every command; a rule that passes one stops with an error naming it).\n"
               "Each with its default and the most it takes; N is a whole number from 1 to that most:\n");
        fray_limits(print_limit, NULL);
        printf("Fixed: 8 terms in a dice expression, 100 extra dice from explosions and rerolls per roll,\n"
               "64 conditions on a creature at once, 50 errors reported per file, imports nested 32 deep,\n"
               "4096 values held at once by a command and the calls it has in progress;\n"
               "dice and sides may be raised to 60000 and 20000000, what a roll can hold.\n");
        return EXIT_OK;
    }
    if (!strcmp(what, "--man"))
        return print_man();
    if (!strcmp(what, "--forms")) {
        l.forms = true;
        fray_vocabulary(on_word, &l);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        if (!strcmp(what, topics[i].topic)) {
            l.listing = true;
            l.kind = topics[i].kind;
            printf("%s\n", topics[i].title);
            fray_vocabulary(on_word, &l);
            return EXIT_OK;
        }
    fray_vocabulary(on_word, &l);
    if (!l.found) {
        fprintf(stderr, "fray help: no word '%s' (try: fray help declarations, commands, functions, events)\n", what);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
