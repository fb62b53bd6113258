/* kept_files: files read once and kept, to be served again instead of
 * read from disk: what an entry of a session read (session.h), what the
 * first compile of a simulation read for the threads that follow. */
#ifndef FRAY_RUNTIME_KEPT_FILES_H
#define FRAY_RUNTIME_KEPT_FILES_H

#include <stdbool.h>
#include <stddef.h>

struct compile_read;

typedef struct kept_file {
    char *path;   /* as the compiler asked for it */
    char *module; /* found on the search path for `use` of this name; else NULL */
    char *text;   /* allocated len + 1 */
    size_t len;
} kept_file;

typedef struct kept_files {
    kept_file *list;
    size_t n, cap;
} kept_files;

/* Keeps copies of path, module and text (a path kept already is kept as
 * it was first read); false when out of memory. */
bool kept_files_add(kept_files *k, const char *path, const char *module, const char *text, size_t len);
/* Copies from's files into to; false when out of memory. */
bool kept_files_copy(kept_files *to, const kept_files *from);
void kept_files_free(kept_files *k);
/* Serves the file rq asks for as a compile_read_fn would: by its path or,
 * for a module on the search path, the one kept for `use` of that name
 * (the search path that found it may not be this one: rq->served_as then
 * says where it was). ENOENT when none is kept. */
int kept_files_serve(const kept_files *k, struct compile_read *rq, char **text, size_t *len);

#endif
