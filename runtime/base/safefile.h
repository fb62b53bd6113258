/* safefile: files replaced whole or not at all, and locked for as long as
 * they are in use, as saved sessions and journals need.
 *
 * New bytes never go into the file they replace. They are written to a
 * temporary beside it, named as no user's file is (".NAME.fray-tmp.XXXXXX")
 * and held under an advisory lock (flock) while it is written; then it is
 * flushed to the disk, renamed over the target (or linked in where there
 * is none yet), and the folder is flushed. A kill or a failure at any point
 * leaves the old file or the new one, whole, and at most a temporary. A
 * temporary whose lock is free was left by a process that died: the next
 * file put in its folder removes it; one whose lock is held is never
 * touched.
 *
 * The same lock tells a live journal from one a crash left behind: the
 * session that writes it holds it for as long as it runs.
 *
 * Writing goes through fio (its fault hook reaches every open, write,
 * fsync, rename and link); looking for stale temporaries does not, so that
 * the operations a save makes are the same whatever earlier crashes left. */
#ifndef FRAY_RUNTIME_SAFEFILE_H
#define FRAY_RUNTIME_SAFEFILE_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct safefile {
    char *target; /* where it goes: the path given, its symlinks followed */
    char *temp;   /* the temporary, until it is in place */
    int fd;       /* open and locked: the temporary, then the file in place; -1: none */
} safefile;

/* Prepares to write path: follows its symlinks to the file they name,
 * refuses one that is there and not a regular file, removes the stale
 * temporaries of its folder, and creates a temporary to write (sf->fd).
 * The file will have the mode of the one it replaces, or `mode` less the
 * umask. 0, or an errno value or FIO_ERR_ code (fio_error_text); on
 * failure sf holds nothing. */
int safefile_begin(safefile *sf, const char *path, mode_t mode);
/* Flushes what was written to the disk and puts it in place: over the
 * target when `replace`, else only where there is nothing (EEXIST when
 * there is), then flushes the folder. The descriptor stays open, and
 * locked, on the file in place. 0 or an errno value; on failure the
 * temporary is gone and sf->fd closed (the target, if it was replaced
 * already, is the new file, whole). */
int safefile_commit(safefile *sf, bool replace);
/* Closes it, and the lock with it; a temporary not yet in place is
 * removed. sf holds nothing after. */
void safefile_close(safefile *sf);

/* Opens the regular file at path to read it, and takes its lock: a
 * descriptor, or -1 with *code an errno value or FIO_ERR_ code
 * (EWOULDBLOCK: a live process holds it). */
int safefile_lock(const char *path, int *code);
/* Whether fd is still the file that path names (not renamed away, removed
 * or replaced since it was opened). */
bool safefile_is_at(int fd, const char *path);
/* Whether a name is one of safefile's temporaries. */
bool safefile_is_temp_name(const char *name);

#endif
