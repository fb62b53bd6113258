/* repl: `fray repl`, the table-side loop over a session (fray_session). */
#ifndef FRAY_CLI_REPL_H
#define FRAY_CLI_REPL_H

#include <stdbool.h>

#include "cli/cli.h"

typedef struct repl {
    fray_session *s;
    bool interactive; /* stdin is a terminal: readline, prompts, history */
    bool color;       /* colour in prompts and notes */
    int worst;        /* the worst exit code of a command (scripts exit with it) */
    char *history_path;
    char *pending; /* a command being read (its lines so far) */
    bool quit;
} repl;

/* Tab completion over the session's names (repl_complete.c). */
void repl_complete_init(repl *r);

/* The meta commands (`:help`, `:undo`, ...): runs one line that starts with
 * ':' (repl_meta.c). */
void repl_meta(repl *r, const char *line);
/* An entry as :history lists it: its first line. */
void repl_describe_entry(const fray_entry *e, char *buf, size_t cap);
/* The names of the meta commands, NULL-terminated (for completion). */
extern const char *const repl_meta_names[];

#endif
