/* safefile: a temporary beside the target, locked, flushed and renamed
 * into place (see safefile.h). */
#define _DEFAULT_SOURCE /* flock, fchown */
#include "runtime/base/safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/base/fio.h"
#include "runtime/base/mem.h"

static const char temp_mark[] = ".fray-tmp.";
enum { TEMP_SUFFIX = 6, MAX_LINKS = 40 };

/* --- paths ------------------------------------------------------------------------ */

static char *concat(const char *a, size_t alen, const char *b, const char *c)
{
    size_t blen = strlen(b), clen = strlen(c);
    char *p = mem_alloc(alen + blen + clen + 1);
    if (!p)
        return NULL;
    memcpy(p, a, alen);
    memcpy(p + alen, b, blen);
    memcpy(p + alen + blen, c, clen + 1);
    return p;
}

/* The length of path's folder part, its last slash included (0: none). */
static size_t folder_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* The file path names once its symlinks are followed (it may not exist);
 * NULL with *code set when there is none to follow to. */
static char *follow_links(const char *path, int *code)
{
    char *p = mem_strndup(path, strlen(path));
    for (int hops = 0; p; hops++) {
        struct stat st;
        if (lstat(p, &st) != 0) {
            if (errno == ENOENT)
                return p; /* a new file (or a link to one) */
            *code = errno;
            mem_strfree(p);
            return NULL;
        }
        if (!S_ISLNK(st.st_mode))
            return p;
        if (hops == MAX_LINKS) {
            *code = ELOOP;
            mem_strfree(p);
            return NULL;
        }
        char to[4096];
        ssize_t n = readlink(p, to, sizeof to - 1);
        if (n < 0 || (size_t)n >= sizeof to - 1) {
            *code = n < 0 ? errno : ENAMETOOLONG;
            mem_strfree(p);
            return NULL;
        }
        to[n] = '\0';
        /* a relative link is read from the link's folder */
        char *next = to[0] == '/' ? mem_strndup(to, (size_t)n) : concat(p, folder_len(p), to, "");
        mem_strfree(p);
        p = next;
    }
    *code = ENOMEM;
    return NULL;
}

static int kind_code(mode_t mode)
{
    return S_ISDIR(mode)                      ? FIO_ERR_DIRECTORY
           : S_ISFIFO(mode) || S_ISSOCK(mode) ? FIO_ERR_FIFO
           : S_ISCHR(mode) || S_ISBLK(mode)   ? FIO_ERR_DEVICE
                                              : EINVAL;
}

bool safefile_is_temp_name(const char *name)
{
    size_t n = strlen(name), k = sizeof temp_mark - 1;
    if (name[0] != '.' || n < 1 + 1 + k + TEMP_SUFFIX || memcmp(name + n - TEMP_SUFFIX - k, temp_mark, k))
        return false;
    for (size_t i = n - TEMP_SUFFIX; i < n; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z')))
            return false;
    return true;
}

/* --- locks -------------------------------------------------------------------------- */

bool safefile_is_at(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The lock, without waiting: false with errno EWOULDBLOCK when it is held. */
static bool try_lock(int fd)
{
    int rc;
    do
        rc = flock(fd, LOCK_EX | LOCK_NB);
    while (rc != 0 && errno == EINTR);
    return rc == 0;
}

/* Takes the lock of an open file that must be a regular one: fd, or -1
 * (fd closed) with *code set. */
static int lock_regular(int fd, int *code)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        *code = errno;
    else if (!S_ISREG(st.st_mode))
        *code = kind_code(st.st_mode);
    else if (!try_lock(fd))
        *code = errno;
    else
        return fd;
    close(fd);
    return -1;
}

int safefile_lock(const char *path, int *code)
{
    int fd = fio_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    if (fd < 0) {
        *code = errno;
        return -1;
    }
    return lock_regular(fd, code);
}

/* The same for a temporary found in a folder, without fio (see safefile.h)
 * and without following a link. */
static int lock_found(const char *path, int *code)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) /* a file no one may read can still be locked */
        fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        *code = errno;
        return -1;
    }
    return lock_regular(fd, code);
}

/* Removes the temporaries in the folder of path whose lock is free: their
 * writer died. One held by a live process is left alone, and so is a name
 * that was replaced between the look and the lock. */
static void sweep(const char *path)
{
    size_t flen = folder_len(path);
    char *dir = flen ? mem_strndup(path, flen) : mem_strndup(".", 1);
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        mem_strfree(dir);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (!safefile_is_temp_name(e->d_name))
            continue;
        char *stale = concat(dir, strlen(dir), flen ? "" : "/", e->d_name);
        int code, fd = stale ? lock_found(stale, &code) : -1;
        if (fd >= 0) {
            if (safefile_is_at(fd, stale))
                unlink(stale);
            close(fd);
        }
        mem_strfree(stale);
    }
    closedir(d);
    mem_strfree(dir);
}

/* --- writing -------------------------------------------------------------------------- */

/* Six characters that make a temporary's name new. */
static void temp_suffix(char *out)
{
    static _Thread_local uint64_t counter;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t z = ((uint64_t)getpid() << 32) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 20) ^
                 (++counter * 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9u;
    z ^= z >> 29;
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    for (int i = 0; i < TEMP_SUFFIX; i++, z /= 36)
        out[i] = digits[z % 36];
    out[TEMP_SUFFIX] = '\0';
}

/* A new temporary beside target, created and locked; the lock is taken
 * after the file is made, so it is checked to be still there under its
 * name (a sweep in another process may have taken it in between). */
static int create_temp(safefile *sf, mode_t mode)
{
    size_t flen = folder_len(sf->target);
    char *prefix = concat(sf->target, flen, ".", sf->target + flen);
    if (!prefix)
        return ENOMEM;
    int code = EEXIST;
    for (int tries = 0; tries < 100 && code == EEXIST; tries++) {
        char suffix[TEMP_SUFFIX + 1];
        temp_suffix(suffix);
        char *temp = concat(prefix, strlen(prefix), temp_mark, suffix);
        if (!temp) {
            code = ENOMEM;
            break;
        }
        int fd = fio_open(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY, mode);
        if (fd < 0) {
            code = errno;
            mem_strfree(temp);
            continue;
        }
        int rc;
        do
            rc = flock(fd, LOCK_EX);
        while (rc != 0 && errno == EINTR);
        if (rc != 0 || !safefile_is_at(fd, temp)) {
            code = rc != 0 ? errno : EEXIST; /* swept away: another name */
            close(fd);
            mem_strfree(temp);
            continue;
        }
        sf->fd = fd;
        sf->temp = temp;
        code = 0;
    }
    mem_strfree(prefix);
    return code;
}

int safefile_begin(safefile *sf, const char *path, mode_t mode)
{
    *sf = (safefile){.fd = -1};
    int code = 0;
    sf->target = follow_links(path, &code);
    if (!sf->target)
        return code ? code : ENOMEM;
    struct stat st;
    bool there = stat(sf->target, &st) == 0;
    if (there && !S_ISREG(st.st_mode)) {
        safefile_close(sf);
        return kind_code(st.st_mode);
    }
    sweep(sf->target);
    /* the temporary is readable by its owner whatever the mode asked, so
       that a sweep can lock it; the mode it will have is set before it
       takes the target's place */
    code = create_temp(sf, there ? 0600 : mode);
    if (code != 0) {
        safefile_close(sf);
        return code;
    }
    if (there) {
        /* the same owner where this process may give it (as root), and the
           same mode */
        if (st.st_uid != geteuid() || st.st_gid != getegid())
            (void)!fchown(sf->fd, st.st_uid, st.st_gid);
        if (fchmod(sf->fd, st.st_mode & 07777) != 0) {
            code = errno;
            safefile_close(sf);
            return code;
        }
    }
    return 0;
}

int safefile_commit(safefile *sf, bool replace)
{
    bool placed = false;
    if (!fio_fsync(sf->fd))
        goto fail;
    if (replace) {
        if (!fio_rename(sf->temp, sf->target))
            goto fail;
        placed = true;
    } else {
        if (!fio_link(sf->temp, sf->target))
            goto fail;
        placed = true;
        /* the temporary's name is a second link now; if it stays (a
           failure, a kill), a later sweep takes it, never the file */
        if (!fio_unlink(sf->temp))
            goto fail;
    }
    mem_strfree(sf->temp);
    sf->temp = NULL;
    if (!fio_sync_dir(sf->target))
        goto fail;
    return 0;
fail : {
    int code = errno;
    /* the temporary's name goes, unless the rename took it already */
    if (sf->temp && (!placed || safefile_is_at(sf->fd, sf->temp)))
        unlink(sf->temp);
    mem_strfree(sf->temp);
    sf->temp = NULL;
    close(sf->fd);
    sf->fd = -1;
    return code;
}
}

void safefile_close(safefile *sf)
{
    if (sf->temp)
        unlink(sf->temp);
    if (sf->fd >= 0)
        close(sf->fd);
    mem_strfree(sf->temp);
    mem_strfree(sf->target);
    *sf = (safefile){.fd = -1};
}
