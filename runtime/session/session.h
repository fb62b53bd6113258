/* session: a session of play as the list of what the GM did, in order
 * (fray_session in fray.h).
 *
 * The state of play is never copied or written out: it is what replaying
 * the session's entries (rules files, commands with the answers the GM gave
 * to their questions, reseeds) from its first seed produces, and the same
 * seed and entries always produce the same state, dice included. So undo
 * replays one entry less, redo runs the undone entry again with the same
 * dice, a failed command is undone by replaying what came before it, and a
 * saved session or the journal kept for crashes is the list itself. */
#ifndef FRAY_RUNTIME_SESSION_H
#define FRAY_RUNTIME_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fray.h"
#include "runtime/session/kept_files.h"

typedef enum { ENTRY_COMMAND, ENTRY_FILE, ENTRY_SEED } entry_kind;

/* Where an entry's files come from when it runs. */
typedef enum {
    FILES_KEPT, /* from what it kept, never from disk: replaying an entry run before */
    FILES_NEW,  /* from disk, each kept: the entry runs for the first time */
    FILES_DISK, /* from disk, nothing kept: an entry of a format-1 file, which kept none */
} files_source;

/* The files an entry read: with them it replays the same from any folder
 * and whatever has changed on disk since. */
typedef struct entry_files {
    files_source from;
    kept_files kept;
} entry_files;

typedef struct session_entry {
    entry_kind kind;
    char *text;     /* COMMAND: as typed (may span lines); FILE: the file's contents */
    size_t len;     /* of text (allocated len + 1: it may hold NUL bytes) */
    char *path;     /* FILE: the path it was loaded from */
    uint64_t seed;  /* SEED: the new seed; COMMAND with reseed: the dice's seed before it */
    bool reseed;    /* COMMAND: a reroll, run on dice reseeded with `seed` */
    bool asked;     /* COMMAND, FILE: the rules' questions were put to the GM (else
                       defaults and policies answered, as in a script) */
    char **replies; /* the GM's answers to its questions, in the order asked */
    size_t nreplies, replies_cap;
    entry_files files; /* COMMAND, FILE: the files it read */
} session_entry;

/* A limit by name (fray_session_set_limit), applied to every context. */
typedef struct session_limit {
    char *name;
    uint64_t value;
} session_limit;

typedef struct fray_session session;

/* A copy of the context as it stood after the first `at` entries
 * (session_checkpoints.c). */
typedef struct session_checkpoint {
    fray *f;
    size_t at;
} session_checkpoint;
#define SESSION_CHECKPOINTS 8

/* What the embedder hears and answers through, copied whole by a clone. */
typedef struct session_hooks {
    fray_ask_fn ask; /* NULL: nothing is put to the GM in new entries */
    void *ask_user;
    fray_output_fn print; /* NULL: the context's default */
    void *print_user;
    fray_diagnostic_fn diagnose; /* NULL: the context's default */
    void *diagnose_user;
} session_hooks;

struct fray_session {
    fray_options opts; /* its search path and their strings owned */
    session_limit *limits;
    size_t nlimits, limits_cap;
    fray *f;
    session_entry *done; /* the timeline up to now */
    size_t ndone, done_cap;
    session_entry *undone; /* undone entries, the next to redo last */
    size_t nundone, undone_cap;
    /* where a rebuild starts from: the newest last */
    session_checkpoint checkpoints[SESSION_CHECKPOINTS];
    int ncheckpoints;
    /* questions: answered from `replaying` while replaying, else by the GM
       through `ask` and written down in `recording` */
    const session_entry *replaying;
    size_t next_reply;
    bool replay_short; /* a replayed command asked more than was written down */
    /* the first error a replay said (its entry's reason for failing now),
       and the entry (1-based) a warning last named: a replay that fails
       there again at each rebuild is not warned of again */
    char replay_why[256];
    size_t replay_warned_at;
    /* api_uses(f) when f last held the entries done and nothing else (a
       different count: something else was done to it since, so only a
       rebuild gives the state of the timeline) */
    uint64_t settled_uses;
    session_entry *recording;
    session_hooks hooks;
    /* changes to the timeline (entries done, undone, redone, rerolled),
       and how many of them the last save or load holds: the session is
       unsaved while they differ */
    uint64_t changes, saved_changes;
    uint64_t rerolls; /* rerolls made, undone ones too: each draws new dice */
    /* limits a loaded file asked for (0: none); they only ever lower the
       process's own (opts, and limits set by name) */
    uint64_t file_max_steps;
    int file_max_call_depth, file_max_creatures;
    /* the journal (session_journal.c): open and locked for as long as the
       session keeps it */
    int journal_fd;        /* -1: none */
    bool journal_broken;   /* a write failed: nothing more is written to it */
    uint64_t journal_hash; /* the checksum of what the journal holds so far */
    char *journal_path;
    /* grouped syncs (fray_session_group_syncs): groups written since the
       last fsync, and when that was; 0 and 0: each synced as written */
    unsigned group_entries, group_ms;
    unsigned unsynced;
    uint64_t synced_ms;
    /* the journal a recovery read, locked until the session is in a
       journal of its own, then removed */
    int recovered_fd; /* -1: none */
    char *recovered_path;
};

/* A context with the session's settings, limits and callbacks (none when
 * quiet: while replaying); NULL when out of memory. */
fray *session_open_context(session *s, bool quiet);

/* Checkpoints (session_checkpoints.c): one taken after the entry just
 * done when enough was done since the last; those past the first n
 * entries dropped, or all; a copy of the newest after at most n entries
 * (NULL: none), *at set to where it stands, made in the place of *spare
 * (NULL: none), a context it is to replace, which it closes (*spare set
 * to NULL then); the copies of another session's, made this one's. */
void checkpoints_maybe(session *s);
void checkpoints_trim(session *s, size_t n);
void checkpoints_clear(session *s);
fray *checkpoints_open(const session *s, size_t n, size_t *at, fray **spare);
bool checkpoints_copy(session *s, const session *from);

/* The session's own messages (a file refused, the journal lost), through
 * the diagnostic callback; file and line when they are known. */
void session_report(const session *s, fray_level level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Words for an errno value or a FIO_ERR_ code. */
const char *session_io_error(int code);

/* The journal (session_journal.c): what a call did, appended and flushed
 * to the disk as one group, so that a crash recovers all of it or none:
 * `op` ("undo" or "redo") `times` times, then the entry e (NULL: none);
 * the journal started over from the whole session (after a load); closed
 * and forgotten, its file left. */
void journal_write(session *s, const char *op, size_t times, const session_entry *e);
fray_status journal_restart(session *s);
void journal_release(session *s);

/* Entries and lists of them. */
void session_entry_free(session_entry *e);
/* The reader of every file the session's contexts compile (a
 * compile_read_fn, with the session as user): the files of the entry
 * being replayed or recorded (entry_files.c). */
struct compile_options;
struct compile_read;
int session_read_file(void *user, const struct compile_options *opts, struct compile_read *rq, char **text,
                      size_t *len);
bool session_entry_reply(session_entry *e, const char *text, size_t len);
/* Whether a command only looked: `show`, `explain` or `can`, alone on its
 * line, answering no question. The language's own commands that read the
 * state and change nothing (the rules run for `can` are worked out, not
 * played), so a new one keeps what can be redone, and :undo takes it back
 * with the command before it. */
bool session_entry_looks(const session_entry *e);
bool session_entries_push(session_entry **list, size_t *n, size_t *cap, session_entry e);
void session_entries_clear(session_entry *list, size_t *n);
void session_entries_free(session_entry **list, size_t *n, size_t *cap);

#endif
