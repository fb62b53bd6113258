/* api_files: what a session needs of its contexts, without the rest of
 * their insides: to serve the files they read (runtime/session/entry_files.c), and
 * to know when a failed entry left its context as it was. */
#ifndef FRAY_API_FILES_H
#define FRAY_API_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fray.h"
#include "runtime/base/text.h"

struct compile_options;
struct compile_read;

/* Every file f compiles from now on is read through fn (a compile_read_fn)
 * with user. */
void api_read_through(fray *f,
                      int (*fn)(void *user, const struct compile_options *opts, struct compile_read *rq, char **text,
                                size_t *len),
                      void *user);
/* Whether a rules argument names neither a file nor a module (a name
 * written as no path, with no file there): *why says so, with the module
 * it may be a typo of. */
bool api_rules_missing(fray *f, const char *what, text_buf *why);
/* The longest file f reads whole: the memory one command may take. */
size_t api_read_limit(const fray *f);
/* Compiles and runs the text of a rules file read by the caller (text
 * that is not rules text is refused whole). */
fray_status api_run_file_text(fray *f, const char *path, const char *text, size_t len);
/* How many calls may have changed f: that compiled into it, ran it (a
 * command, an expression, the requirements of actions), reseeded it, set
 * a limit, cancelled a question or reported through it. The same count
 * means nothing of that was done to f in between. */
uint64_t api_uses(const fray *f);
/* Readies f to be copied often: a copy then costs nothing for each
 * source and chunk compiled so far (program_settle). */
void api_settle(fray *f);
/* A copy of from, as fray_clone, made in place of spare, a context it is
 * to replace (a rebuild's): spare is closed, and when it descends from
 * from (or from from's source), the copy takes its arrays of sources,
 * chunks and commands instead of copying from's, as long as the session
 * (program_arrays_shared). NULL when out of memory, spare left open. */
fray *api_clone_over(const fray *from, fray *spare);
/* A copy of from (settled: api_settle, nothing done since) to be kept and
 * only ever copied again, never run (a checkpoint): its program holds its
 * sources, chunks and commands through what it shares with from alone
 * (program_clone_kept), so it costs nothing as long as the session. NULL
 * when out of memory. */
fray *api_clone_kept(const fray *from);
/* The bytes of source f has compiled so far: what replaying it would
 * compile again. */
uint64_t api_source_bytes(const fray *f);
/* f, a copy made for another session (fray_clone), reads its files
 * through fn with user and searches paths for modules, as fray_open and
 * api_read_through set them. */
void api_adopt(fray *f, const char *const *paths, size_t npaths,
               int (*fn)(void *user, const struct compile_options *opts, struct compile_read *rq, char **text,
                         size_t *len),
               void *user);
/* Whether f's last fray_run_string or api_run_file_text failed before
 * anything of its text was compiled or run (it is not rules text, or does
 * not parse), leaving f as it was before that call but for api_uses. */
bool api_failed_unchanged(const fray *f);
/* Compiles and runs one command typed at the prompt: as fray_run_string,
 * and a creature line that makes a new side says so. */
fray_status api_run_typed(fray *f, const char *text, size_t len);

#endif
