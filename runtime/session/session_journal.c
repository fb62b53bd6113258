/* session_journal: the journal a session keeps so that a crash loses
 * nothing (fray_session_journal in fray.h).
 *
 * A journal belongs to one session. It is written whole under a temporary
 * name and put in place (safefile.c), never rewritten: entries are
 * appended, one group and one fsync each, and when the session starts over
 * (a load, a recovery) a new journal replaces it whole. The session holds
 * its lock for as long as it keeps it, which is how a journal whose session
 * is alive is told from one a crash left: only those whose lock is free
 * are listed to recover, and none is ever written by another process. */
#define _DEFAULT_SOURCE /* realpath */
#include "runtime/session/session.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/base/fio.h"
#include "runtime/base/text.h"
#include "runtime/base/mem.h"
#include "runtime/base/safefile.h"
#include "runtime/session/session_file.h"

/* --- appending ------------------------------------------------------------------ */

/* Said once, when it happens: from here on a crash loses what follows. */
static void journal_lost(session *s, int code)
{
    session_report(s, FRAY_WARNING, s->journal_path, 0,
                   "cannot write the journal %s: %s; going on without one (a crash now would lose what follows)",
                   s->journal_path, session_io_error(code));
    /* the file and its lock stay: it holds the session up to here, for a
       recovery if this process dies, and goes when the session ends */
    s->journal_broken = true;
}

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

void fray_session_sync_journal(fray_session *s)
{
    if (s->journal_fd < 0 || s->journal_broken || !s->unsynced)
        return;
    if (!fio_fsync(s->journal_fd))
        journal_lost(s, errno ? errno : EIO);
    s->unsynced = 0;
    s->synced_ms = now_ms();
}

void fray_session_group_syncs(fray_session *s, unsigned entries, unsigned ms)
{
    fray_session_sync_journal(s); /* what waits is not left to a new rule */
    s->group_entries = entries;
    s->group_ms = ms;
    s->synced_ms = now_ms();
}

/* Each group is written as it happens, so that a process killed loses
 * none: what is written is the kernel's to keep. Only the flush to the
 * disk waits, when syncs are grouped, for a machine that crashes. */
void journal_write(session *s, const char *op, size_t times, const session_entry *e)
{
    if (s->journal_fd < 0 || s->journal_broken || (!times && !e))
        return;
    sfile_writer w;
    sfile_write_start(&w, s->journal_fd, s->journal_hash);
    sfile_write_group(&w, op, times, e);
    if (!sfile_write_finish(&w)) {
        journal_lost(s, errno ? errno : EIO);
        return;
    }
    s->journal_hash = w.hash;
    s->unsynced++;
    if ((!s->group_entries && !s->group_ms) || (s->group_entries && s->unsynced >= s->group_entries) ||
        (s->group_ms && now_ms() - s->synced_ms >= s->group_ms))
        fray_session_sync_journal(s);
}

/* --- starting one ---------------------------------------------------------------- */

/* The journal fd, at path if it is still there (a new one may have taken
 * its place: then that one stays), goes: the session ended, or a journal
 * that holds all it held is in place. */
static void remove_if_still(session *s, int fd, const char *path)
{
    if (fd >= 0 && path && safefile_is_at(fd, path) && !fio_unlink(path))
        session_report(s, FRAY_WARNING, path, 0,
                       "cannot remove the journal %s: %s; it stays, as a session left unfinished", path,
                       session_io_error(errno));
}

void journal_release(session *s)
{
    if (s->journal_fd >= 0)
        close(s->journal_fd);
    if (s->recovered_fd >= 0)
        close(s->recovered_fd);
    mem_strfree(s->journal_path);
    mem_strfree(s->recovered_path);
    s->journal_fd = s->recovered_fd = -1;
    s->journal_path = s->recovered_path = NULL;
    s->journal_broken = false;
}

/* Writes the whole session into a new journal at path and makes it the
 * session's: over the file there when replace (one of the session's own),
 * else only where there is none (EEXIST). The journal it replaces and the
 * one it recovered from go once the new one is in place. 0 or an errno
 * value or FIO_ERR_ code; on failure the session's journal is as it was. */
static int journal_create(session *s, const char *path, bool replace)
{
    safefile sf;
    int code = safefile_begin(&sf, path, 0600);
    if (code != 0)
        return code;
    sfile_writer w;
    sfile_write_session(&w, sf.fd, s);
    code = sfile_write_finish(&w) ? safefile_commit(&sf, replace) : errno;
    if (code != 0) {
        safefile_close(&sf);
        return code;
    }
    remove_if_still(s, s->journal_fd, s->journal_path);
    remove_if_still(s, s->recovered_fd, s->recovered_path);
    journal_release(s);
    s->journal_fd = sf.fd;
    s->journal_path = sf.target; /* the file itself, its links followed */
    s->journal_hash = w.hash;
    s->unsynced = 0; /* put in place synced (safefile_commit) */
    sf = (safefile){.fd = -1};
    return 0;
}

/* A journal that could not be started: the one kept before goes on when
 * it still holds the session. */
static void cannot_keep(session *s, const char *where, int code)
{
    if (s->journal_fd >= 0 && !s->journal_broken)
        session_report(s, FRAY_WARNING, where, 0, "cannot keep a journal in %s: %s; it stays in %s", where,
                       session_io_error(code), s->journal_path);
    else
        session_report(s, FRAY_WARNING, where, 0,
                       "cannot keep a journal in %s: %s; going on without one (a crash would lose the session)", where,
                       session_io_error(code));
}

static bool is_ours(const session *s, const char *path)
{
    return (s->journal_fd >= 0 && safefile_is_at(s->journal_fd, path)) ||
           (s->recovered_fd >= 0 && safefile_is_at(s->recovered_fd, path));
}

/* Whether a journal may be written at path, and over what is there: a
 * journal of this session's, or an empty file. Another session's journal
 * (live, or left by a crash) or a file that is not a journal is never
 * overwritten. An empty file's lock is kept in *held until the journal is
 * in place, so that no other session takes it meanwhile. */
static fray_status may_keep_at(session *s, const char *path, bool *replace, int *held)
{
    *replace = false;
    *held = -1;
    char real[4096];
    struct stat st;
    if (stat(path, &st) != 0)
        return FRAY_OK; /* a new file (safefile says why if it cannot be made) */
    *replace = true;
    if (!S_ISREG(st.st_mode))
        return FRAY_OK; /* refused by safefile, as cannot be written */
    if (realpath(path, real) && is_ours(s, real))
        return FRAY_OK;
    int code, fd = safefile_lock(path, &code);
    if (fd < 0 && code == EWOULDBLOCK) {
        session_report(s, FRAY_ERROR, path, 0,
                       "%s is the journal of a session still running in another process: not shared", path);
        return FRAY_ERR_USAGE;
    }
    if (fd < 0) { /* what cannot be read is not overwritten either */
        cannot_keep(s, path, code);
        return FRAY_ERR_IO;
    }
    static const char word[] = "fray session ";
    char head[sizeof word] = "", tail[4] = "";
    ssize_t got = st.st_size ? read(fd, head, sizeof word - 1) : 0;
    bool ends = st.st_size >= 4 && pread(fd, tail, 4, st.st_size - 4) == 4 && !memcmp(tail, "end\n", 4);
    if (st.st_size == 0) {
        *held = fd;
        return FRAY_OK; /* nothing to lose */
    }
    close(fd);
    if (got != (ssize_t)sizeof word - 1 || memcmp(head, word, sizeof word - 1))
        session_report(s, FRAY_ERROR, path, 0, "%s is not a journal: it is not overwritten", path);
    else if (ends)
        session_report(s, FRAY_ERROR, path, 0, "%s is a saved session, not a journal: it is not overwritten", path);
    else
        session_report(s, FRAY_ERROR, path, 0,
                       "%s holds a session that did not end as it should (a crash, or a quit without :save): "
                       "recover it with 'fray repl --recover --journal %s', or remove it first; it is not overwritten",
                       path, path);
    return FRAY_ERR_USAGE;
}

fray_status fray_session_journal(fray_session *s, const char *path)
{
    if (!path) {
        journal_release(s);
        return FRAY_OK;
    }
    bool replace;
    int held;
    fray_status st = may_keep_at(s, path, &replace, &held);
    if (st != FRAY_OK)
        return st;
    int code = journal_create(s, path, replace);
    if (held >= 0)
        close(held);
    if (code != 0) {
        cannot_keep(s, path, code);
        return FRAY_ERR_IO;
    }
    return FRAY_OK;
}

fray_status journal_restart(session *s)
{
    bool was_broken = s->journal_broken;
    char *path = mem_strndup(s->journal_path, strlen(s->journal_path));
    int code = path ? journal_create(s, path, true) : ENOMEM;
    if (code == 0 && was_broken)
        session_report(s, FRAY_NOTE, s->journal_path, 0, "the journal is kept again, in %s", s->journal_path);
    if (code != 0) {
        s->journal_broken = true; /* what it holds is no longer the session */
        cannot_keep(s, s->journal_path, code);
    }
    mem_strfree(path);
    return code ? FRAY_ERR_IO : FRAY_OK;
}

fray_status fray_session_journal_in(fray_session *s, const char *dir)
{
    char stamp[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    int code = EEXIST;
    text_buf name;
    text_init(&name);
    for (int n = 0; n < 100 && code == EEXIST; n++) {
        text_clear(&name);
        if (n == 0)
            text_add(&name, "%s/journal-%s-%ld", dir, stamp, (long)getpid());
        else
            text_add(&name, "%s/journal-%s-%ld-%d", dir, stamp, (long)getpid(), n);
        code = name.cut ? ENOMEM : journal_create(s, name.s, false);
    }
    text_free(&name);
    if (code != 0) {
        cannot_keep(s, dir, code);
        return FRAY_ERR_IO;
    }
    return FRAY_OK;
}

bool fray_session_has_journal(const fray_session *s)
{
    return s->journal_fd >= 0 && !s->journal_broken;
}

void fray_session_close_journal(fray_session *s)
{
    remove_if_still(s, s->journal_fd, s->journal_path);
    remove_if_still(s, s->recovered_fd, s->recovered_path);
    journal_release(s);
}

/* --- finding those left by a crash ----------------------------------------------- */

typedef struct found {
    char *path;
    struct timespec modified;
    size_t entries, undone;
    session_entry last; /* the last entry done, its text cut at its first line */
} found;

static bool journal_name(const char *name)
{
    return !strcmp(name, "journal") || !strcmp(name, "journal.prev") || !strncmp(name, "journal-", 8);
}

/* While journals are looked at, the note that one was cut short (as a
 * crash leaves them) is not said; what makes one unreadable is. */
typedef struct said {
    fray_diagnostic_fn fn;
    void *user;
} said;

static void no_notes(void *user, const fray_diagnostic *d)
{
    const said *to = user;
    if (d->level != FRAY_NOTE && to->fn)
        to->fn(to->user, d);
    else if (d->level != FRAY_NOTE)
        fputs(d->text, stderr);
}

/* Reads the journal at path if no live session holds it: true with *f
 * filled when it holds a session. One that holds nothing goes. */
static bool look_at(session *s, const char *path, found *f)
{
    int code, fd = safefile_lock(path, &code);
    if (fd < 0) {
        if (code != EWOULDBLOCK) /* held: a live session's */
            session_report(s, FRAY_WARNING, path, 0, "cannot read the journal %s: %s", path, session_io_error(code));
        return false;
    }
    struct stat st;
    char *text = NULL;
    size_t len = 0;
    code = fstat(fd, &st) == 0 ? fio_read_fd(fd, SFILE_MAX_BYTES, &text, &len) : errno;
    if (code != 0) {
        session_report(s, FRAY_WARNING, path, 0, "cannot read the journal %s: %s", path, session_io_error(code));
        close(fd);
        return false;
    }
    sfile_loaded l;
    if (sfile_parse(s, path, text, len, true, &l) != FRAY_OK) {
        close(fd);
        return false;
    }
    bool holds = l.ndone > 0 || l.nundone > 0;
    if (!holds && safefile_is_at(fd, path)) /* begun and left before anything was done */
        unlink(path);
    close(fd);
    *f = (found){.modified = st.st_mtim, .entries = l.ndone, .undone = l.nundone};
    if (holds && l.ndone) {
        const session_entry *e = &l.done[l.ndone - 1];
        const char *nl = e->text ? memchr(e->text, '\n', e->len) : NULL;
        size_t cut = !e->text ? 0 : nl ? (size_t)(nl - e->text) : e->len; /* the first line is what is shown */
        f->last = (session_entry){.kind = e->kind, .seed = e->seed, .reseed = e->reseed};
        f->last.text = mem_strndup(e->text ? e->text : "", cut);
        f->last.len = f->last.text ? cut : 0;
        f->last.path = e->path ? mem_strndup(e->path, strlen(e->path)) : NULL;
    }
    sfile_loaded_free(&l);
    f->path = holds ? mem_strndup(path, strlen(path)) : NULL;
    if (!f->path)
        session_entry_free(&f->last);
    return f->path != NULL;
}

static int newest_first(const void *a, const void *b)
{
    const found *x = a, *y = b;
    if (x->modified.tv_sec != y->modified.tv_sec)
        return x->modified.tv_sec < y->modified.tv_sec ? 1 : -1;
    if (x->modified.tv_nsec != y->modified.tv_nsec)
        return x->modified.tv_nsec < y->modified.tv_nsec ? 1 : -1;
    return -strcmp(x->path, y->path);
}

size_t fray_session_journals(fray_session *s, const char *dir, fray_journal_fn fn, void *user)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    found *list = NULL;
    size_t n = 0, cap = 0;
    said to = {.fn = s->hooks.diagnose, .user = s->hooks.diagnose_user};
    s->hooks.diagnose = no_notes;
    s->hooks.diagnose_user = &to;
    for (struct dirent *e; (e = readdir(d));) {
        if (!journal_name(e->d_name))
            continue;
        size_t size = strlen(dir) + strlen(e->d_name) + 2;
        char *path = mem_alloc(size);
        found f;
        found *grown = path ? mem_grow(list, sizeof *list, &cap, n + 1) : NULL;
        if (grown) {
            list = grown;
            snprintf(path, size, "%s/%s", dir, e->d_name);
            if (look_at(s, path, &f))
                list[n++] = f;
        }
        if (path)
            mem_free(path, size);
    }
    closedir(d);
    s->hooks.diagnose = to.fn;
    s->hooks.diagnose_user = to.user;
    if (n)
        qsort(list, n, sizeof *list, newest_first);
    for (size_t i = 0; i < n; i++) {
        fray_journal_info info = {.path = list[i].path,
                                  .modified = (int64_t)list[i].modified.tv_sec,
                                  .entries = list[i].entries,
                                  .undone = list[i].undone};
        const session_entry *e = &list[i].last;
        if (list[i].entries)
            info.last = (fray_entry){.kind = e->kind == ENTRY_COMMAND ? FRAY_ENTRY_COMMAND
                                             : e->kind == ENTRY_FILE  ? FRAY_ENTRY_RULES
                                                                      : FRAY_ENTRY_SEED,
                                     .text = e->text ? e->text : "",
                                     .len = e->len,
                                     .path = e->path,
                                     .seed = e->seed,
                                     .rerolled = e->reseed};
        if (fn)
            fn(user, &info);
        mem_strfree(list[i].path);
        session_entry_free(&list[i].last);
    }
    if (list)
        mem_free(list, cap * sizeof *list);
    return n;
}
