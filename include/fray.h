/* fray.h: the public interface of libfray, the Fray rules engine.
 *
 * A fray context holds one program (rules and scripts compiled so far) and
 * one VM state (creatures, encounter, dice). Contexts share nothing: a host
 * may open several, one per thread.
 *
 * Ownership: every pointer passed in is borrowed for the duration of the
 * call only; strings passed to callbacks are valid only during the
 * callback. fray_close frees everything the context allocated. */
#ifndef FRAY_H
#define FRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fray fray;

typedef enum {
    FRAY_OK = 0,
    FRAY_ERR_RULES = 1, /* a compile or runtime error in rules or a script */
    FRAY_ERR_USAGE = 2,
    FRAY_ERR_IO = 3, /* a file could not be read */
} fray_status;

typedef enum { FRAY_ERROR, FRAY_WARNING, FRAY_NOTE } fray_level;

typedef struct fray_diagnostic {
    fray_level level;
    const char *file;    /* NULL when the message has no location */
    int line, column;    /* 1-based; column in characters */
    const char *message; /* without location or level */
    const char *text;    /* the whole GCC-style report: location, source line, caret */
    /* Said by a session about itself (a file it cannot read or will not
       load, its journal), not by the rules: text is "fray: LEVEL: message". */
    bool from_session;
} fray_diagnostic;

typedef void (*fray_diagnostic_fn)(void *user, const fray_diagnostic *d);
typedef void (*fray_output_fn)(void *user, const char *line);

typedef struct fray_options {
    uint64_t seed;                  /* same seed, same dice, on every platform */
    uint64_t max_steps;             /* instructions per command; 0 = default (10,000,000) */
    int max_call_depth;             /* 0 = default (200) */
    int max_creatures;              /* 0 = default (10,000) */
    const char *const *search_path; /* directories for `use`, after the file's own */
    size_t search_path_len;
    bool color; /* color in diagnostic text */
    bool quiet; /* no transcript of play and no log (for simulation and benchmarks) */
    /* Imports and `use` modules may be symbolic links that lead out of
       their directory (else such a file is refused, with an error). */
    bool follow_symlinks;
} fray_options;

/* Opens a context. NULL only when out of memory. */
fray *fray_open(const fray_options *opts);
void fray_close(fray *f);
/* A copy of f that goes on by itself: its rules, its state of play, its
 * dice where they stand (the copy rolls what f would roll next), its
 * limits and callbacks. To load a rule system once and play many fights
 * from it, or to try something and throw it away. The search path is
 * shared: it must outlive both. NULL when out of memory, or when f is in
 * the middle of a command (asked from inside one of its callbacks). */
fray *fray_clone(const fray *f);

/* Where diagnostics and script output go. Defaults: stderr and stdout. */
void fray_on_diagnostic(fray *f, fray_diagnostic_fn fn, void *user);
void fray_on_output(fray *f, fray_output_fn fn, void *user);

/* Compiles a rules file or script into the context, then runs the commands
 * it holds. On a compile error nothing of it runs. */
fray_status fray_run_file(fray *f, const char *path);
fray_status fray_run_string(fray *f, const char *name, const char *text, size_t len);

/* Compiles without running: diagnostics only. `syntax_only` parses only. */
fray_status fray_check_file(fray *f, const char *path, bool syntax_only);

/* A rules argument as every command takes one: a file, or a module by its
 * name (`legend`, as `use legend` loads it). A name written as no path (no
 * '/', not ending in .rules) for which there is no file, or only a
 * directory, is the module of that name when there is one. */
bool fray_names_module(fray *f, const char *what);
/* fray_run_file and fray_check_file of such an argument: a module is run
 * or checked as `use NAME` (whole: syntax_only parses files only). */
fray_status fray_run_rules(fray *f, const char *what);
fray_status fray_check_rules(fray *f, const char *what, bool syntax_only);

/* A rules file in the canonical layout (`fray fmt`). PRINT gives the laid
 * out text to out, whole, in one call (TOKENS: the tokens the parser sees,
 * one a line); CHECK only compares; WRITE rewrites the file in place,
 * atomically, when its layout differs. *changed: whether it differs. The
 * file is read as any rules file, under f's limits (nesting, string-bytes,
 * memory); a syntax error is FRAY_ERR_RULES, a file that cannot be read or
 * written FRAY_ERR_IO, each with its diagnostic. */
typedef enum { FRAY_FORMAT_PRINT, FRAY_FORMAT_CHECK, FRAY_FORMAT_WRITE, FRAY_FORMAT_TOKENS } fray_format_mode;
fray_status fray_format_file(fray *f, const char *path, fray_format_mode mode, fray_output_fn out, void *user,
                             bool *changed);

/* Sets a stat of the creature that `fray_eval` evaluates for, from an
 * expression (`level`, `5`). */
fray_status fray_eval_with(fray *f, const char *stat, const char *expr);
/* Evaluates one expression (`melee`, `roll 4d6kh3`, `d20 + dex`) and points
 * *out at its text, whole (NULL on an error). The text belongs to f and
 * lasts until the next call of fray_eval, fray_eval_for or fray_cite on it. */
fray_status fray_eval(fray *f, const char *expr, const char **out);

/* --- Play at the table (what `fray repl` is built on) ------------------- */

/* A question the rules put to the GM while a command runs: a ruling with
 * no answer yet, or a reaction (or held action) to take or let go. */
typedef enum { FRAY_ANSWER_YES_NO, FRAY_ANSWER_NUMBER, FRAY_ANSWER_CREATURE, FRAY_ANSWER_WORD } fray_answer_kind;

typedef struct fray_question {
    bool reaction;            /* take it? (answered yes or no) */
    fray_answer_kind kind;    /* what answers it */
    const char *ruling;       /* the ruling's name; NULL for a reaction */
    const char *text;         /* the question: "valeros may ...: take it?" */
    const char *retry;        /* NULL, or why the last answer did not do */
    bool has_default;         /* no answer takes the ruling's default, or the
                                 reactions' policy (take them, unless a script said not) */
    const char *default_text; /* the ruling's default as an answer reads (`no`, `3`), or the
                                 formula that gives it; NULL when none */
    const char *choices;      /* the words that answer it, "a/b/c"; NULL for any of its kind */
    const char *each;         /* "creature" or "side" when the ruling is asked of each: an
                                 answer followed by "for all" answers it for every one
                                 not answered yet; else NULL */
} fray_question;

/* Writes the GM's answer into answer as text: yes or no, a whole number, a
 * creature's name (or "nothing"), a word (one of q->choices when it has
 * them), followed by "for all" where q->each allows it. An empty answer is
 * no answer: the ruling's default or the reactions' policy decides, and with
 * no default it is asked again. False (no answer at all) takes the default
 * too, and with none the command stops with an error. An answer that does not fit
 * is asked again (q->retry says why), as often as it takes (after 100 in a
 * row the command stops with an error: a callback never hangs it). Without this
 * callback nothing is asked: rulings take their defaults and reactions
 * follow the script's policy, as in `fray run`. */
typedef bool (*fray_ask_fn)(void *user, const fray_question *q, char *answer, size_t cap);
void fray_on_ask(fray *f, fray_ask_fn fn, void *user);
/* Called by the ask callback before it returns: the command that asked
 * stops with an error ("cancelled at the question"), and in a session the
 * state is as it was before it (the GM's :undo at a question). */
void fray_cancel(fray *f);

/* Limits by name (`memory` in MiB): each runaway rule stops at one, with an
 * error that names it. fray_limits lists them with their defaults. A limit
 * takes a value from 1 to fray_limit_most(name) (0 for no such limit);
 * fray_set_limit refuses any other with a diagnostic and FRAY_ERR_USAGE. */
fray_status fray_set_limit(fray *f, const char *name, uint64_t value);
uint64_t fray_limit_most(const char *name);
typedef void (*fray_limit_fn)(void *user, const char *name, const char *meaning, uint64_t default_value);
void fray_limits(fray_limit_fn fn, void *user);

/* Restarts the dice from a seed, as --seed does at the start. */
void fray_reseed(fray *f, uint64_t seed);

/* Evaluates an expression for a creature (its `self`): `medium`, `ac`,
 * `attack_bonus + 2`. Points *out at the value's text, as fray_eval does. */
fray_status fray_eval_for(fray *f, const char *creature, const char *expr, const char **out);

/* Names in play, for completion and listings. */
typedef void (*fray_name_fn)(void *user, const char *name);
void fray_creatures(fray *f, fray_name_fn fn, void *user);
/* The actions the creature could take now, their arguments aside (every
 * action when creature is NULL or unknown). */
void fray_actions(fray *f, const char *creature, fray_name_fn fn, void *user);
/* The creatures `creature: action TARGET` may name now: those the action's
 * target clause and requirements accept; every creature when the action
 * has no target clause or can take none now. */
void fray_targets(fray *f, const char *creature, const char *action, fray_name_fn fn, void *user);
/* What argument `index` (from 0) of `creature: action ...` may be: for a
 * parameter that says what it takes, the conditions, zones, items or
 * creatures it takes (nothing for a square, a number or a text); else as
 * fray_targets. */
void fray_arguments(fray *f, const char *creature, const char *action, int index, fray_name_fn fn, void *user);
/* The conditions and the stats (and resources) the rules declare. */
void fray_conditions(fray *f, fray_name_fn fn, void *user);
void fray_stats(fray *f, fray_name_fn fn, void *user);
/* The rulings the rules declare. */
void fray_rulings(fray *f, fray_name_fn fn, void *user);
/* The answers a ruling takes, passed to fn in order: no and yes for one
 * answered yes or no, the words of its `one of` list; none where any
 * number, word or creature answers it. Returns how many, or -1 when the
 * rules declare no ruling of that name. */
int fray_ruling_answers(fray *f, const char *ruling, fray_name_fn fn, void *user);
/* The creature whose turn it is, or NULL. */
const char *fray_current(fray *f);
/* Where a declaration of the rules comes from: `legend § "Ranges"`, or its
 * file and line ("" when neither is known); NULL when no declaration has
 * that name. The text lasts as fray_eval's does. */
const char *fray_cite(fray *f, const char *name);

/* The state of play as one JSON document, passed to fn: the system, the
 * encounter (active, round, whose turn, phase, the order of turns with
 * scores) and every creature (name, title, side, in play, out, delaying,
 * square, zone, its stats: those given and those the encounter tracks, as
 * numbers where whole and as text otherwise, and its effects: conditions,
 * cooldowns, relations, held actions, each with what is left of it). */
fray_status fray_state(fray *f, fray_output_fn fn, void *user);
/* The explanation of the last command that did something, line by line:
 * every die, modifier, rule (with its citation) and trigger behind it. */
fray_status fray_explain(fray *f, fray_output_fn fn, void *user);

/* --- Hidden information: what the players may see --------------------- */

/* The GM may keep a creature from the players (`creature ... hidden`,
 * `hide NAME`), or only some stats of one they see (`hide NAME hp`). A
 * line of the transcript that tells something hidden (said in a hidden
 * creature's action or turn, naming a hidden creature, or naming a
 * creature with one of its hidden stats) comes to the output callback
 * with this mark before it, and so does a line of `show` that does. */
#define FRAY_HIDDEN_MARK "(gm) "

/* Who a view is for: the GM sees everything, the players nothing hidden. */
typedef enum { FRAY_VIEW_GM, FRAY_VIEW_PLAYERS } fray_view;

/* fray_state for a view. For the players, hidden creatures are left out
 * (from the creatures, the order and "turn": null while it is a hidden
 * creature's turn), and so are the hidden stats of the others, and their
 * effects shared with a hidden creature. For the GM it is fray_state,
 * with "hidden": true on each hidden creature and "hidden_stats": the
 * names of the stats kept from the players. */
fray_status fray_state_view(fray *f, fray_view view, fray_output_fn fn, void *user);

/* A line of the transcript kept so far (the last 8192 at most). */
typedef struct fray_line {
    const char *text; /* without FRAY_HIDDEN_MARK */
    bool hidden;      /* it told something hidden when it was said, or it names what is hidden now */
} fray_line;
typedef void (*fray_line_fn)(void *user, const fray_line *line);
/* The transcript, oldest line first (what `show log` prints); in the
 * players' view, without the hidden lines. */
void fray_transcript(fray *f, fray_view view, fray_line_fn fn, void *user);
/* Whether the creature is hidden from the players (whole). */
bool fray_is_hidden(fray *f, const char *creature);

/* The exact distribution of an expression (`4d6kh3`, `d20 + 5 >= 15`):
 * its dice are not rolled but computed. Free it with
 * fray_distribution_free. */
typedef struct fray_distribution fray_distribution;
fray_status fray_prob(fray *f, const char *expr, fray_distribution **out);
void fray_distribution_free(fray_distribution *d);
int64_t fray_distribution_lowest(const fray_distribution *d);
int64_t fray_distribution_highest(const fray_distribution *d);
double fray_distribution_p(const fray_distribution *d, int64_t outcome);
double fray_distribution_at_least(const fray_distribution *d, int64_t outcome);
double fray_distribution_at_most(const fray_distribution *d, int64_t outcome);
double fray_distribution_mean(const fray_distribution *d);
double fray_distribution_stddev(const fray_distribution *d);
/* The smallest outcome v with P(X <= v) >= q (0 < q <= 1). */
int64_t fray_distribution_quantile(const fray_distribution *d, double q);
/* Probability mass cut off where explosions were stopped (0 if none). */
double fray_distribution_remainder(const fray_distribution *d);
/* True when the weights are exact; then writes P(X = outcome) as "a/b". */
bool fray_distribution_exact(const fray_distribution *d, int64_t outcome, char *buf, size_t cap);
/* Whether the expression was a yes or no (a comparison, `d20 + 5 >= 15`):
   its outcomes are 1 (it holds) and 0, and P(1) is how likely it is. */
bool fray_distribution_yes_no(const fray_distribution *d);

/* Evaluates an expression n times, rolling its dice each time, and stores
 * the whole-number results (for comparing samples with fray_prob). */
fray_status fray_sample(fray *f, const char *expr, size_t n, int64_t *values);

/* --- Sessions: play that can be undone, saved and recovered ------------ */

/* A session is the list of what the GM did, in order: rules files (their
 * text as read then), commands with the answers given to the rules'
 * questions, reseeds. Its state of play is what replaying them from its
 * seed gives, dice included: undo replays one entry less, redo runs an
 * undone entry again with the same dice, a command that fails changes
 * nothing, and a saved session or a journal is that list (what `fray repl`
 * is built on). The session owns its contexts, and its own copy of what it
 * is opened with. Its own messages (a file it cannot read or refuses)
 * come through its diagnostic callback with from_session set. */
typedef struct fray_session fray_session;

/* A session with nothing done yet: opts (NULL for the defaults) is
 * copied, search path included. NULL only when out of memory. */
fray_session *fray_session_open(const fray_options *opts);
/* A copy of s that goes on by itself: its entries, undone ones too, its
 * settings, limits and callbacks, and its state of play, made from the
 * copies of the context s keeps (a rule system loaded is not compiled
 * again). It keeps no journal (fray_session_journal gives it one). To
 * load a rule system once and play many sessions from it. NULL when out
 * of memory, or when s is in the middle of an entry (asked from inside
 * one of its callbacks). */
fray_session *fray_session_clone(const fray_session *s);
/* Frees the session and its contexts; a journal it keeps is left on disk
 * (fray_session_close_journal first when the session ended as it should). */
void fray_session_close(fray_session *s);

/* The context that holds the state of play now, to read it (fray_state,
 * fray_eval_for, fray_creatures, ...). Owned by the session, and valid only
 * until the next call that changes the session (a command, undo, redo,
 * reroll, load, ...): the state may be rebuilt in a new context. Commands
 * run on it directly are not entries of the session. */
fray *fray_session_context(fray_session *s);

/* As fray_on_output, fray_on_diagnostic and fray_on_ask, for every context
 * the session makes (nothing comes out while it replays entries). Without
 * an ask callback nothing is put to the GM: rulings take their defaults
 * and reactions follow the script's policy, and a saved session replays
 * them so. */
void fray_session_on_output(fray_session *s, fray_output_fn fn, void *user);
void fray_session_on_diagnostic(fray_session *s, fray_diagnostic_fn fn, void *user);
void fray_session_on_ask(fray_session *s, fray_ask_fn fn, void *user);
/* A limit by name (fray_set_limit), for every context the session makes. */
fray_status fray_session_set_limit(fray_session *s, const char *name, uint64_t value);

/* A new entry: a command or script (diagnostics name it `<repl>`), a rules
 * file (read now, and kept), or new dice. On success it joins the session
 * and what was undone can no longer be redone; on failure the state is
 * rebuilt as it was before it, by replaying the session's entries in a new
 * context; an entry that fails before any of it is compiled (it does not
 * parse) changed nothing, and the context stays as it was, unless
 * something was done to it outside the session's entries since (commands
 * run on fray_session_context, a limit set, new dice). The files a command or rules file reads
 * (imports, `use` modules from disk) are kept with it: it replays from
 * them (undo, a saved session, a journal), never from disk again. */
fray_status fray_session_command(fray_session *s, const char *text);
/* A rules file, or a module by name (fray_names_module), as the command
 * `use NAME`. */
fray_status fray_session_load_rules(fray_session *s, const char *path);
fray_status fray_session_reseed(fray_session *s, uint64_t seed);
/* Undo or redo up to n entries; the number done. Redo prints again. */
size_t fray_session_undo(fray_session *s, size_t n);
size_t fray_session_redo(fray_session *s, size_t n);
/* Undoes the last entry, a command, and runs it again on new dice (the
 * same in every replay); FRAY_ERR_USAGE when the last entry is not a
 * command. On failure the old roll stands. */
fray_status fray_session_reroll(fray_session *s);
/* Runs text on the state after the first n entries, not as an entry, then
 * rebuilds the present (`:explain N`: explain there). */
fray_status fray_session_run_at(fray_session *s, size_t n, const char *text);

/* How many entries are done, and how many redo can bring back; the entries
 * done, oldest first. */
typedef enum { FRAY_ENTRY_COMMAND, FRAY_ENTRY_RULES, FRAY_ENTRY_SEED } fray_entry_kind;
typedef struct fray_entry {
    fray_entry_kind kind;
    const char *text; /* COMMAND: as given; RULES: the file's text as read */
    size_t len;       /* of text (0 for SEED) */
    const char *path; /* RULES: where it was read from; else NULL */
    uint64_t seed;    /* SEED: the dice's new seed; a rerolled COMMAND: the dice it was run on */
    bool rerolled;    /* COMMAND: run again on new dice (fray_session_reroll) */
    /* COMMAND: it only looked (show, explain, can, answering no question):
       it changed nothing, and a new command that only looks leaves what
       can be redone as it is */
    bool looks;
} fray_entry;
size_t fray_session_done(const fray_session *s);
size_t fray_session_undone(const fray_session *s);
/* Entry i (0 is the first) of those done; its strings are the session's,
 * valid until the next call that changes it. False when there is none. */
bool fray_session_entry(const fray_session *s, size_t i, fray_entry *out);
/* The entry a redo would bring back k-th (0: the next), as above. */
bool fray_session_undone_entry(const fray_session *s, size_t k, fray_entry *out);
/* The seed the session started from (a loaded one brings its own). */
uint64_t fray_session_seed(const fray_session *s);

/* Saves the whole session (its entries, what can be redone, its seed and
 * the limits of its fray_options; not the search path, nor limits set by
 * name) to path, whole or not at all: a temporary file beside it (locked,
 * so that no other process takes it for one a crash left), flushed to
 * disk, renamed over it, so that a crash or a full disk leaves the old
 * file or the new one. A symlink is followed: the file it names is
 * replaced and the link stays. The file keeps its mode (a new one gets
 * 0666 less the umask). What is not a regular file (a device, a FIFO, a
 * folder) is refused and left alone. Temporaries that crashed processes
 * left in the folder are removed. The format is text, checked with
 * checksums. */
fray_status fray_session_save(fray_session *s, const char *path);
/* Whether path holds a saved session or a journal (by its first line; a
 * look that never waits: only a regular file can be one). To load a file
 * that may be either, fray_session_load_any reads it once. */
bool fray_session_is_file(const char *path);
/* Reads path once: a saved session or a journal (by its first line) is
 * loaded as fray_session_load does, and *was_session set; anything else is
 * a rules file, added as fray_session_load_rules adds one. */
fray_status fray_session_load_any(fray_session *s, const char *path, bool *was_session);
/* Replaces the session with the one saved in path, and its seed. Limits in
 * the file (max-steps, max-depth, max-creatures) only lower this
 * session's: a file never raises a limit above what the program allows.
 * (The search path and limits set by name stay this session's.) A file
 * damaged, cut short or from a newer format is refused whole, with a
 * diagnostic: FRAY_ERR_USAGE (FRAY_ERR_IO when it cannot be read), and the
 * session is unchanged. A save is as trusted as a rules file: its
 * checksums find damage, not tampering. */
fray_status fray_session_load(fray_session *s, const char *path);
/* The same from a journal, read up to its last complete entry (a note
 * says where it stopped): what a process that died had done. The journal
 * of a session still running (its lock is held) is refused. The journal
 * read is never written: the session holds its lock, and it is removed
 * once the session keeps a journal of its own (fray_session_journal) that
 * holds all it held, or when the session ends as it should; else it stays
 * as it was. A saved file (one that ends as :save ends it) given for a
 * journal is read as fray_session_load reads it, and never removed. */
fray_status fray_session_recover(fray_session *s, const char *journal_path);

/* A journal: the session so far, then every entry, undo and redo appended
 * and flushed to disk as it happens, so that fray_session_recover can
 * bring back a session whose process died. A journal is one session's
 * alone: written whole under a temporary name and put in place (a load or
 * a recovery starts a new one the same way, over the old), only ever
 * appended to, and locked (flock) for as long as the session keeps it.
 * When a write fails (a full disk), a warning says so and the session
 * goes on without it.
 *
 * fray_session_journal keeps it at path (NULL: none; a file kept before
 * stays where it is). Refused, FRAY_ERR_USAGE and the session unchanged,
 * when path is the journal of another live session, holds a session that
 * did not end (recover it first), or is a file that is not a journal;
 * FRAY_ERR_IO, with a warning, when it cannot be written there (a device,
 * a full disk, a read-only folder): the session then goes on without one
 * (or with the one it kept before). */
fray_status fray_session_journal(fray_session *s, const char *path);
/* The same in a new file of its own in the folder dir, named
 * journal-DATE-TIME-PID, so that sessions side by side never share one. */
fray_status fray_session_journal_in(fray_session *s, const char *dir);
/* The session ended as it should: its journal is closed and the file
 * removed, and so is the journal it was recovered from. */
void fray_session_close_journal(fray_session *s);
/* Whether the session changed (an entry done, undone, redone, rerolled)
 * since it was last saved or loaded from a save; a recovered session is
 * unsaved until it is saved. */
bool fray_session_unsaved(const fray_session *s);
/* Whether it keeps a journal now (one that a failed write has not lost). */
bool fray_session_has_journal(const fray_session *s);
/* Grouped syncs, for entries that come faster than a disk syncs (input
 * from a pipe or a file): each entry is still written to the journal as
 * it completes (a killed process loses none of them), but flushed to the
 * disk only once `entries` are waiting or `ms` milliseconds have passed
 * since the last flush, whichever comes first, so that a crash of the
 * machine loses at most that group. 0 and 0 (the default): every entry
 * flushed as it completes, as for commands a GM types.
 * fray_session_sync_journal flushes what waits now: call it at the end of
 * the input, and before telling the user that the session is kept. */
void fray_session_group_syncs(fray_session *s, unsigned entries, unsigned ms);
void fray_session_sync_journal(fray_session *s);

/* A journal a session left unfinished (no live session holds it). */
typedef struct fray_journal_info {
    const char *path;
    int64_t modified; /* its last write, in seconds since 1970 */
    size_t entries;   /* entries a recovery restores */
    size_t undone;    /* and entries it can redo */
    fray_entry last;  /* the last entry done, its text cut at its first line (when entries > 0) */
} fray_journal_info;
typedef void (*fray_journal_fn)(void *user, const fray_journal_info *j);
/* The journals in dir (journal-*, and journal and journal.prev of earlier
 * versions) that no live session holds, newest first (by their last
 * write): what crashed sessions left, for fray_session_recover. Each is
 * read, under its lock; one that holds nothing is removed. Returns how
 * many; their strings are valid during the call. */
size_t fray_session_journals(fray_session *s, const char *dir, fray_journal_fn fn, void *user);

/* --- Simulation (what `fray sim` is built on) ----------------------------- */

/* A scenario (rules, creatures, an encounter script such as `begin
 * encounter`, `roll initiative`, `fight`) played many times over, each run
 * from a fresh state with its own seed: run i is what `fray run --seed
 * SEED+i SCENARIO` plays, quietly. Rulings take their defaults and
 * reactions follow the script's policies, as in `fray run`. */
/* A whole-number stat set on each creature of a name as it is made, over
   what the scenario gives it: `goblin.ac = 15` for every goblin (a group's
   name sets each member; a member's, that one). */
typedef struct fray_sim_set {
    const char *creature, *stat;
    int64_t value;
} fray_sim_set;

/* A ruling's answer in every run, as it is typed at its question (`yes`,
   `3`, `half`): it stands for every creature, side and use, over the
   scenario's own answers and the ruling's default. */
typedef struct fray_sim_answer {
    const char *ruling, *answer;
} fray_sim_answer;

typedef struct fray_sim_options {
    uint64_t runs; /* 0 = 1000 */
    int threads;   /* 0 = 1; the results do not depend on it */
    uint64_t seed;
    /* The stat whose losses count as damage; NULL: the first stat the
       rules' encounter tracks (`track hp, ...`). */
    const char *health;
    /* Play the scenario under another rule system: its `use NAME` of
       its own system loads this file instead (NULL: its own). */
    const char *system_path;
    /* ... replacing the `use` of this name (NULL: the name of the system
       the scenario declares, found by compiling it first). */
    const char *system_use;
    /* Commands played after the scenario's own, as if written at its end
       (`fray diff` adds `begin encounter`, `roll initiative`, `fight`). */
    const char *then;
    /* Called now and then from the calling thread while the runs go on. */
    void (*progress)(void *user, uint64_t done, uint64_t runs);
    void *progress_user;
    /* Only compile the scenario as every run would, reporting what it
       finds: FRAY_OK with no result when it compiles (so that a second
       system is known good before the first is played). */
    bool check_only;
    /* Stats set on creatures as they are made (fray sim --set, fray
       sweep); a name the scenario has no creature or stat of is an error. */
    const fray_sim_set *sets;
    size_t nsets;
    /* Rulings answered in every run (fray sim --answer, fray sweep); a
       ruling the scenario does not have, or an answer that does not fit
       it, is an error. */
    const fray_sim_answer *answers;
    size_t nanswers;
} fray_sim_options;

typedef struct fray_sim_side {
    const char *name;
    uint64_t wins;    /* runs it ended as the one side standing */
    uint64_t *rounds; /* rounds[k]: of those, the runs that ended in round k */
    size_t nrounds;
    long order; /* its place in the report (the results are in this order) */
} fray_sim_side;

typedef struct fray_sim_creature {
    const char *name;
    const char *side;              /* NULL when it has none */
    uint64_t dealt, dealt_squares; /* damage it dealt, summed over runs (and squared per run) */
    uint64_t taken, taken_squares; /* damage it took, likewise */
    uint64_t down;                 /* runs it ended out of the fight */
    long order;                    /* its place in the report, as a side's */
} fray_sim_creature;

typedef struct fray_sim_trigger {
    const char *name;
    uint64_t fired; /* times it fired, over every run */
    uint64_t runs;  /* runs in which it fired at least once */
    bool internal;  /* declared `internal`: the rules' own bookkeeping */
    long order;     /* its place in the report (its declaration's) */
} fray_sim_trigger;

typedef struct fray_sim_result {
    uint64_t runs;
    const char *system; /* the rule system played (its `system` name), or "" */
    const char *health; /* the stat counted as damage ("" when none: no damage is counted) */
    fray_sim_side *sides;
    size_t nsides;
    uint64_t undecided; /* runs that ended with more than one side standing */
    uint64_t nobody;    /* runs that ended with every side out */
    uint64_t *rounds;   /* rounds[k]: runs whose encounter lasted k rounds */
    size_t nrounds;
    fray_sim_creature *creatures; /* in the order the scenario makes them */
    size_t ncreatures;
    fray_sim_trigger *triggers; /* those that fired, in declaration order */
    size_t ntriggers;
} fray_sim_result;

/* Plays the scenario file o->runs times on o->threads threads, with the
 * context's search path and limits. Compile and runtime errors go to the
 * context's diagnostic callback (a runtime error names the run and its
 * seed) and nothing is returned. Free the result with fray_sim_free. */
fray_status fray_sim(fray *f, const char *scenario, const fray_sim_options *o, fray_sim_result **out);
void fray_sim_free(fray_sim_result *r);

/* --- Comparing two rule systems (what `fray diff` is built on) ---------- */

/* A report: sections of rows, each with what system A and system B say. */
typedef struct fray_report_row {
    const char *label;
    const char *a, *b; /* NULL: that side has nothing here */
    double pa, pb;     /* probabilities to draw as bars, or -1 */
    bool differs;
} fray_report_row;

typedef struct fray_report_section {
    const char *title;
    const char *note; /* a line under the title, or NULL */
    fray_report_row *rows;
    size_t nrows;
    bool summary; /* the report's opening summary (what --brief prints) */
    bool whole;   /* worth reading even where nothing differs (a reference fight) */
} fray_report_section;

typedef struct fray_report {
    const char *a, *b; /* the systems' names */
    fray_report_section *sections;
    size_t nsections;
    size_t differences; /* rows that differ, in every section */
} fray_report;

typedef struct fray_diff_options {
    /* Formulas both systems have are evaluated for a creature of default
       stats with this stat set to each value (default: level 1, 5, 10, 20). */
    const char *stat;
    const int64_t *values;
    size_t nvalues;
    /* A directory of reference fights, one scenario per system named
       after it (legend.rules, ...): see doc/diff.md. NULL: none. */
    const char *profile;
    bool profile_if_both; /* ... only when both systems have a fight there (else none, silently) */
    int rounds;           /* the chance to drop the defender within this many rounds (default 3) */
    uint64_t runs;        /* runs of `fray sim` where a fight cannot be computed exactly (default 2000) */
    int threads;
} fray_diff_options;

/* Compares the rule systems loaded into a and b. Free with fray_report_free. */
fray_status fray_diff(fray *a, fray *b, const fray_diff_options *o, fray_report **out);
void fray_report_free(fray_report *r);

/* Writes the bytecode of everything compiled so far, with source lines. */
void fray_disasm(fray *f, FILE *out);

const char *fray_version(void);

/* The words of the language, for help and documentation: declarations
 * (each followed by its clauses), play commands, built-in functions and
 * built-in events, in that order. */
typedef enum {
    FRAY_WORD_DECLARATION,
    FRAY_WORD_CLAUSE,
    FRAY_WORD_COMMAND,
    FRAY_WORD_FUNCTION,
    FRAY_WORD_EVENT
} fray_word_kind;

typedef struct fray_word {
    fray_word_kind kind;
    const char *word;    /* "initiative", "ties", "show", "has", "turn_start" */
    const char *form;    /* how it is written: "ties KEY, KEY, ..." */
    const char *meaning; /* a line of explanation, or "" */
    const char *parent;  /* a clause's declaration ("space grid"), else NULL */
} fray_word;

typedef void (*fray_word_fn)(void *user, const fray_word *w);
void fray_vocabulary(fray_word_fn fn, void *user);

#ifdef __cplusplus
}
#endif

#endif
