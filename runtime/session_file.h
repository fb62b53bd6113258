/* session_file: the text format of saved sessions and journals.
 *
 *     fray session 1                  the format's version
 *     option seed 42                  the session's settings
 *     check 5d41402abc4b2a76          FNV-1a 64 of every byte before this line
 *     file 1234 rules/legend.rules    an entry: a rules file, its bytes follow
 *     ...
 *     check ...
 *     reroll 99                       a command rerolled on seed 99 ...
 *     command 24 asks                 ... a command (its bytes follow), whose
 *     goblin_2: attack valeros        questions were put to the GM,
 *     reply yes                       ... and the answers given
 *     check ...
 *     undo                            an undo, a redo
 *     check ...
 *     end                             a saved file is complete
 *
 * Each group of records is followed by a check line; a group counts only
 * when its check holds. A saved file must hold together to its end line, or
 * it is refused whole; a journal (appended as play goes, flushed after each
 * group) is read up to its last group whose check holds, since a crash may
 * cut its last group short. */
#ifndef FRAY_CLI_SESSION_FILE_H
#define FRAY_CLI_SESSION_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/session.h"

#define SESSION_FORMAT 1

/* Writes records to out, keeping the running checksum. */
typedef struct file_writer {
    FILE *out;
    uint64_t hash;
} file_writer;

/* The header and the settings, then the session so far: its entries, what
 * can be redone (as entries undone again). */
void file_write_session(file_writer *w, FILE *out, const session *s);
void file_write_entry(file_writer *w, const entry *e);
/* "undo" or "redo" */
void file_write_op(file_writer *w, const char *op);
void file_write_end(file_writer *w);

/* A session read from a file. */
typedef struct loaded {
    cli_options opts;
    entry *done, *undone;
    size_t ndone, done_cap, nundone, undone_cap;
} loaded;

/* Reads path into l (settings start from base). A saved file must be whole;
 * a journal is read up to its last group that holds together. An exit
 * code, with the reason on stderr; on failure l holds nothing. */
int file_read(const char *path, bool journal, const cli_options *base, loaded *l);
void loaded_free(loaded *l);

/* A whole file read into memory (NUL-terminated), at most 1 GiB; NULL with
 * errno set when it cannot be read. */
char *file_slurp(const char *path, size_t *len);

/* Entries and lists of them (session.c). */
void entry_free(entry *e);
bool entry_reply(entry *e, const char *text);
bool entries_push(entry **list, size_t *n, size_t *cap, entry e);
void entries_clear(entry *list, size_t *n);

#endif
