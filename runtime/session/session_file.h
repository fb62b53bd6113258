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
 *     file 80 camp/night.rules        a rules file that imports one:
 *     ...
 *     source 310 camp/monsters.rules  each file an entry read, its bytes
 *     ...                             following (format 2)
 *     source-use mine 120 lib/mine.rules   a module `use mine` found on
 *     ...                             the search path
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
#ifndef FRAY_RUNTIME_SESSION_FILE_H
#define FRAY_RUNTIME_SESSION_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/session/session.h"

#define SESSION_FORMAT 3

/* Writes records to the descriptor fd through fio, keeping the running
 * checksum. Records are gathered in memory and written a group at a time
 * (or in pieces of SFILE_WRITE_SIZE when a group is larger); the first
 * failure sticks, and sfile_write_finish says whether all of it went. */
typedef struct sfile_writer {
    int fd;
    char *buf;
    size_t len, cap;
    uint64_t hash;
    int error; /* errno of the first failure, 0 while none */
} sfile_writer;

#define SFILE_WRITE_SIZE ((size_t)1 << 18)

/* Starts writing at the end of a file whose checksum so far is hash. */
void sfile_write_start(sfile_writer *w, int fd, uint64_t hash);
/* The header and the settings, then the session so far: its entries, what
 * can be redone (as entries undone again). Starts w. */
void sfile_write_session(sfile_writer *w, int fd, const session *s);
void sfile_write_entry(sfile_writer *w, const session_entry *e);
/* "undo" or "redo" */
void sfile_write_op(sfile_writer *w, const char *op);
/* One group: op (NULL: none) `times` times, then e (NULL: none). */
void sfile_write_group(sfile_writer *w, const char *op, size_t times, const session_entry *e);
void sfile_write_end(sfile_writer *w);
/* Writes what is left and frees the buffer: false, errno set, when any of
 * it could not be written. */
bool sfile_write_finish(sfile_writer *w);

/* The settings a file carries (`option` lines). */
typedef struct sfile_settings {
    uint64_t seed, max_steps;
    int max_call_depth, max_creatures;
} sfile_settings;

/* The settings a session writes to a file: its seed, and the limits of its
 * options, lowered by those of a file it loaded. */
sfile_settings session_settings(const session *s);

/* A session read from a file. */
typedef struct sfile_loaded {
    sfile_settings settings;
    session_entry *done, *undone;
    size_t ndone, done_cap, nundone, undone_cap;
    bool ended; /* it has its end line: a saved file, not a journal */
} sfile_loaded;

/* Reads path into l (settings start from the session's). A saved file must
 * be whole; a journal is read up to its last group that holds together. A
 * status, with the reason reported through the session's diagnostics; on
 * failure l holds nothing. Format 1, whose entries kept no files, is read
 * too: its entries read their files from disk (FILES_DISK). */
fray_status sfile_read(const session *s, const char *path, bool journal, sfile_loaded *l);
/* Whether text is a saved session or a journal, by its first line. */
bool sfile_is_session(const char *text, size_t len);
/* The same from a file already read, text[len] (path names it). Frees text. */
fray_status sfile_parse(const session *s, const char *path, char *text, size_t len, bool journal, sfile_loaded *l);
void sfile_loaded_free(sfile_loaded *l);

/* The most a saved session or a journal may hold. */
#define SFILE_MAX_BYTES ((size_t)1 << 30)

/* A whole file read into memory (NUL-terminated, allocated *len + 1), at
 * most SFILE_MAX_BYTES, through fio_read_file (a regular file only); NULL
 * with errno set when it cannot be read. */
char *sfile_slurp(const char *path, size_t *len);

#endif
