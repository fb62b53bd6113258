/* fio: checked reading and fault-injectable writing (see fio.h). */
#define _POSIX_C_SOURCE 200809L
#include "runtime/base/fio.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/base/mem.h"

/* --- the fault hook ---------------------------------------------------------------- */

static _Thread_local long fault_countdown = -1;
static _Thread_local fio_fault fault_how;
static _Thread_local int fault_errno;
static _Thread_local unsigned long operations;

void fio_fail_after(long countdown, fio_fault how, int err)
{
    fault_countdown = countdown;
    fault_how = how;
    fault_errno = err;
}

unsigned long fio_operations(void)
{
    return operations;
}

/* Counts an operation; true when this one is to fail (errno set), after
 * killing the process if that is the fault asked for. */
static bool injected(fio_fault *how)
{
    operations++;
    if (fault_countdown < 0)
        return false;
    if (fault_countdown-- > 0)
        return false;
    if (fault_how == FIO_FAULT_KILL)
        raise(SIGKILL);
    *how = fault_how;
    errno = fault_errno;
    return true;
}

/* --- reading ------------------------------------------------------------------------ */

const char *fio_error_text(int code)
{
    switch (code) {
    case FIO_ERR_DIRECTORY: return "is a directory";
    case FIO_ERR_FIFO: return "is a pipe or socket, not a file";
    case FIO_ERR_DEVICE: return "is a device, not a file";
    case FIO_ERR_TOO_BIG: return "is too large";
    default: return strerror(code);
    }
}

static int fail_with(int code)
{
    errno = code == FIO_ERR_DIRECTORY ? EISDIR : code == FIO_ERR_TOO_BIG ? EFBIG : code < 0 ? EINVAL : code;
    return code;
}

int fio_read_fd(int fd, size_t limit, char **text, size_t *len)
{
    fio_fault how;
    if (injected(&how))
        return fail_with(errno);
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail_with(errno);
    if (S_ISDIR(st.st_mode))
        return fail_with(FIO_ERR_DIRECTORY);
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
        return fail_with(FIO_ERR_FIFO);
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        return fail_with(FIO_ERR_DEVICE);
    if (!S_ISREG(st.st_mode))
        return fail_with(EINVAL);
    if (st.st_size < 0 || (uintmax_t)st.st_size > limit)
        return fail_with(FIO_ERR_TOO_BIG);
    /* The size is a hint: the file may grow or shrink while it is read.
       One byte more than it says is asked for, to see its end. */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = mem_alloc(cap + 1);
    if (!buf)
        return fail_with(ENOMEM);
    for (;;) {
        if (n == cap) {
            if (cap > limit) {
                mem_free(buf, cap + 1);
                return fail_with(FIO_ERR_TOO_BIG);
            }
            size_t want = cap > limit - cap ? limit + 1 : 2 * cap;
            char *grown = mem_realloc(buf, cap + 1, want + 1);
            if (!grown) {
                mem_free(buf, cap + 1);
                return fail_with(ENOMEM);
            }
            buf = grown;
            cap = want;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int why = errno;
            mem_free(buf, cap + 1);
            return fail_with(why);
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    if (n > limit) {
        mem_free(buf, cap + 1);
        return fail_with(FIO_ERR_TOO_BIG);
    }
    char *fit = mem_realloc(buf, cap + 1, n + 1);
    if (!fit) {
        mem_free(buf, cap + 1);
        return fail_with(ENOMEM);
    }
    fit[n] = '\0';
    *text = fit;
    *len = n;
    return 0;
}

int fio_read_file(const char *path, size_t limit, char **text, size_t *len)
{
    /* O_NONBLOCK: opening a FIFO with no writer would wait for one */
    int fd = fio_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    if (fd < 0)
        return fail_with(errno);
    int code = fio_read_fd(fd, limit, text, len);
    int why = errno;
    close(fd);
    errno = why;
    return code;
}

/* --- writing ------------------------------------------------------------------------ */

int fio_open(const char *path, int flags, mode_t mode)
{
    fio_fault how;
    if (injected(&how))
        return -1;
    int fd;
    do
        fd = open(path, flags | O_CLOEXEC, mode);
    while (fd < 0 && errno == EINTR);
    return fd;
}

bool fio_write(int fd, const void *data, size_t n)
{
    fio_fault how;
    const char *p = data;
    if (injected(&how)) {
        if (how == FIO_FAULT_SHORT && n > 1) {
            int why = errno;
            (void)!write(fd, p, n / 2);
            errno = why;
        }
        return false;
    }
    while (n > 0) {
        ssize_t put = write(fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0)
            return false;
        if (put == 0) {
            errno = EIO;
            return false;
        }
        p += put;
        n -= (size_t)put;
    }
    return true;
}

bool fio_fsync(int fd)
{
    fio_fault how;
    if (injected(&how))
        return false;
    return fsync(fd) == 0;
}

bool fio_close(int fd)
{
    fio_fault how;
    if (injected(&how)) {
        int why = errno;
        close(fd); /* the descriptor goes either way, as close(2) says */
        errno = why;
        return false;
    }
    return close(fd) == 0 || errno == EINTR;
}

bool fio_rename(const char *from, const char *to)
{
    fio_fault how;
    if (injected(&how))
        return false;
    return rename(from, to) == 0;
}

bool fio_link(const char *from, const char *to)
{
    fio_fault how;
    if (injected(&how))
        return false;
    return link(from, to) == 0;
}

bool fio_unlink(const char *path)
{
    fio_fault how;
    if (injected(&how))
        return false;
    return unlink(path) == 0;
}

bool fio_sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        strcpy(dir, ".");
    else if (slash == path)
        strcpy(dir, "/");
    else if ((size_t)(slash - path) < sizeof dir) {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    } else {
        errno = ENAMETOOLONG;
        return false;
    }
    int fd = fio_open(dir, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0)
        return false;
    bool ok = fio_fsync(fd);
    int why = errno;
    close(fd);
    errno = why;
    return ok;
}
