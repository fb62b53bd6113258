/* session: a REPL session as the list of what the GM did, in order.
 *
 * The state of play is never copied or written out: it is what replaying
 * the session's entries (rules files, commands with the answers the GM gave
 * to their questions, reseeds) from its first seed produces, and the same
 * seed and entries always produce the same state, dice included. So undo
 * replays one entry less, redo runs the undone entry again with the same
 * dice, a failed command is undone by replaying what came before it, and a
 * saved session or the journal kept for crashes is the list itself. */
#ifndef FRAY_CLI_SESSION_H
#define FRAY_CLI_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"

typedef enum { ENTRY_COMMAND, ENTRY_FILE, ENTRY_SEED } entry_kind;

typedef struct entry {
    entry_kind kind;
    char *text;     /* COMMAND: as typed (may span lines); FILE: the file's contents */
    size_t len;     /* of text */
    char *path;     /* FILE: the path it was loaded from */
    uint64_t seed;  /* SEED: the new seed; COMMAND with reseed: the dice's seed before it */
    bool reseed;    /* COMMAND: a reroll, run on dice reseeded with `seed` */
    bool asked;     /* COMMAND, FILE: the rules' questions were put to the GM (else
                       defaults and policies answered, as in a script) */
    char **replies; /* the GM's answers to its questions, in the order asked */
    size_t nreplies;
} entry;

/* Asks the GM a question while a new command runs; the answer as text. */
typedef bool (*session_ask_fn)(void *ui, const fray_question *q, char *answer, size_t cap);

typedef struct session {
    cli_options opts;
    fray *f;
    entry *done; /* the timeline up to now */
    size_t ndone, done_cap;
    entry *undone; /* undone entries, the next to redo last */
    size_t nundone, undone_cap;
    /* questions: answered from `replaying` while replaying, else by the GM
       through `ask` and written down in `recording` */
    const entry *replaying;
    size_t next_reply;
    bool replay_short; /* a replayed command asked more than was written down */
    entry *recording;
    session_ask_fn ask;
    void *ui;
    bool asking; /* put the rules' questions to the GM in new entries */
    fray_output_fn print;
    fray_diagnostic_fn diagnose;
    FILE *journal;
    uint64_t journal_hash; /* the checksum of what the journal holds so far */
    char *journal_path;
} session;

/* A session with no entries yet; print and diagnose get play's output and
 * diagnostics (none while replaying). False when out of memory. */
bool session_init(session *s, const cli_options *o, session_ask_fn ask, void *ui, fray_output_fn print,
                  fray_diagnostic_fn diagnose);
void session_free(session *s);

/* Runs a command, loads a rules file (read now, kept in the session) or
 * reseeds the dice, as a new entry. On success the entry joins the timeline
 * and what was undone can no longer be redone; on failure the state is
 * rebuilt as it was before. An exit code. */
int session_command(session *s, const char *text);
int session_load_rules(session *s, const char *path);
int session_seed(session *s, uint64_t seed);

/* Undo or redo up to n entries; the number done. Redo prints again. */
size_t session_undo(session *s, size_t n);
size_t session_redo(session *s, size_t n);
/* Undoes the last command and runs it again on new dice. An exit code
 * (EXIT_USAGE when there is no command to reroll). */
int session_reroll(session *s);
/* Rebuilds the state after the first n entries (silently), runs `text`
 * there, then rebuilds the present: for `:explain N`. */
int session_at(session *s, size_t n, const char *text);

/* Saves the whole session to path atomically (a temporary file in the same
 * folder, flushed to disk, renamed over path). An exit code. */
int session_save(const session *s, const char *path);
/* Replaces the session with the one saved in path, which must be whole
 * (checked), or with a journal, read up to its last complete entry. An
 * exit code; on failure the session is as it was. */
int session_load(session *s, const char *path, bool journal);
/* Whether path holds a saved session (by its first line). */
bool session_file(const char *path);

/* The journal: every entry and undo is appended (and flushed to disk) as
 * it happens, so that `--recover` can replay a session whose process died.
 * session_journal starts one at path with the session so far; NULL path
 * or failure: no journal (a warning is printed). session_close_journal
 * removes it: the session ended as it should. */
void session_journal(session *s, const char *path);
void session_close_journal(session *s);

#endif
