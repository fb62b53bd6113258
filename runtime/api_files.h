/* api_files: what a session needs of its contexts to serve the files they
 * read (runtime/entry_files.c), without the rest of their insides. */
#ifndef FRAY_API_FILES_H
#define FRAY_API_FILES_H

#include <stddef.h>

#include "fray.h"

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
bool api_rules_missing(fray *f, const char *what, char *why, size_t cap);
/* The longest file f reads whole: the memory one command may take. */
size_t api_read_limit(const fray *f);
/* Compiles and runs the text of a rules file read by the caller (text
 * that is not rules text is refused whole). */
fray_status api_run_file_text(fray *f, const char *path, const char *text, size_t len);
/* Compiles and runs one command typed at the prompt: as fray_run_string,
 * and a creature line that makes a new side says so. */
fray_status api_run_typed(fray *f, const char *text, size_t len);

#endif
