/* repl: `fray repl`, the table-side loop over a session (fray_session). */
#ifndef FRAY_CLI_REPL_H
#define FRAY_CLI_REPL_H

#include <stdbool.h>

#include "cli/cli.h"

typedef struct repl {
    fray_session *s;
    bool interactive; /* stdin is a terminal: readline, prompts, history */
    bool typed;       /* stdin is a terminal (stdout may be a pipe): a GM types */
    bool color;       /* colour in prompts and notes */
    int worst;        /* the worst exit code of a command (scripts exit with it) */
    char *history_path;
    char *pending; /* a command being read (its lines so far) */
    bool quit;
    bool warned_unsaved;      /* leaving unsaved with no journal was said once */
    bool keep_journal;        /* left unsaved: the journal stays for --recover */
    bool question_hint_shown; /* how to answer was said at the first question */
    struct serve *serve;      /* the players' view (--serve), or NULL */
} repl;

/* Whether the GM may leave now (:quit, Ctrl-D): a session that is not
 * saved is kept in its journal for `fray repl --recover`, and said so;
 * with no journal, the first try says that it would be lost. */
bool repl_may_leave(repl *r);

/* Tab completion over the session's names (repl_complete.c). */
void repl_complete_init(repl *r);

/* The mark of what the players must not know (FRAY_HIDDEN_MARK), in a
 * colour that stands out on a terminal; the line goes on after it. */
void repl_print_hidden_mark(const repl *r);
/* The meta commands (`:help`, `:undo`, ...): runs one line that starts with
 * ':' (repl_meta.c). */
void repl_meta(repl *r, const char *line);
/* The same at a question: :help, :explain, :history and :state run (true:
 * ask again); :undo cancels the command that asked (false); the others
 * wait until it is answered. */
bool repl_meta_at_question(repl *r, const char *line);
/* An entry as :history lists it: its first line. */
char *repl_describe_entry(const fray_entry *e);
/* The names of the meta commands, NULL-terminated (for completion). */
extern const char *const repl_meta_names[];

#endif
