/* fio: Fray's own file I/O. Every file libfray reads or writes goes
 * through here, for two reasons:
 *
 *  - reading is checked the same way everywhere: a file is opened once,
 *    found to be a regular file on that very descriptor (never a directory,
 *    FIFO, device or socket, which could block or never end), and read up
 *    to a limit;
 *  - tests can make any operation fail, as mem_fail_after does for memory:
 *    the Nth operation from now returns an error (ENOSPC, EIO, ...), writes
 *    only part of its bytes, or kills the process where it stands, so that
 *    what a full disk or a crash at that point leaves can be checked.
 *
 * The functions return false (or -1) with errno set, as the system calls
 * they wrap do; an injected fault looks exactly like a real one. */
#ifndef FRAY_RUNTIME_FIO_H
#define FRAY_RUNTIME_FIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Errors of fio_read_file beyond errno's (negative, so they never clash). */
enum {
    FIO_ERR_DIRECTORY = -1, /* a directory */
    FIO_ERR_FIFO = -2,      /* a FIFO or a socket */
    FIO_ERR_DEVICE = -3,    /* a character or block device */
    FIO_ERR_TOO_BIG = -4,   /* longer than the limit */
};

/* Reads the whole of the regular file at path, at most `limit` bytes, into
 * *text (NUL-terminated; allocated with mem_alloc, *len + 1 bytes). The
 * open never blocks (a FIFO is refused, not waited on). Returns 0, or an
 * errno value or a FIO_ERR_ code; errno is set to the same (EISDIR, EINVAL
 * or EFBIG for the FIO_ERR_ codes). */
int fio_read_file(const char *path, size_t limit, char **text, size_t *len);
/* The same from a descriptor already open (not closed here). */
int fio_read_fd(int fd, size_t limit, char **text, size_t *len);
/* Words for a code of fio_read_file: "is a directory", "is a FIFO, not a
 * file", ..., or strerror's for an errno value. */
const char *fio_error_text(int code);

/* Wrappers of the system calls that write, each a point where a test can
 * make it fail. fio_write writes all n bytes (retrying short writes and
 * EINTR) or fails; fio_sync_dir flushes the folder that holds path, so
 * that a rename or a new file in it reaches the disk. */
int fio_open(const char *path, int flags, mode_t mode);
bool fio_write(int fd, const void *data, size_t n);
bool fio_fsync(int fd);
bool fio_close(int fd);
bool fio_rename(const char *from, const char *to);
/* A second name for a file, failing with EEXIST where `to` is taken (a
 * rename that never replaces). */
bool fio_link(const char *from, const char *to);
bool fio_unlink(const char *path);
bool fio_sync_dir(const char *path);

/* --- test hooks ---------------------------------------------------------------- */

typedef enum {
    FIO_FAULT_ERROR, /* the operation fails with the given errno, doing nothing */
    FIO_FAULT_SHORT, /* a write writes half its bytes, then fails with the errno; others fail */
    FIO_FAULT_KILL,  /* the process is killed (SIGKILL) before the operation */
} fio_fault;

/* The operation after `countdown` more successful ones (0: the next) fails
 * as `how` says; negative: none does. Per thread, as mem_fail_after. */
void fio_fail_after(long countdown, fio_fault how, int err);
/* Operations done (or failed) through this module by this thread so far:
 * a test runs once to count them, then fails each in turn. */
unsigned long fio_operations(void);

#endif
