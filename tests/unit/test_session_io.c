/* Sessions under I/O faults, as SQLite tests its journal: a session is
 * played in a child process with the Nth file operation (open, write,
 * fsync, rename, link, unlink) failing with ENOSPC, EIO or a short write,
 * or the process killed there, for every N until the play needs no more.
 * After each, whatever the child left is read back, and:
 *
 *  - the save it was writing is the old file or the new one, whole, and
 *    loads;
 *  - recovering its journal gives a session it acknowledged (a call that
 *    had returned): after a kill, the last one acknowledged (or the one in
 *    flight, when its entry was written); after a failure, one no older
 *    than the last acknowledged before it was told (a diagnostic reached
 *    its callback); without a failure, the last one;
 *  - it was told of every failure;
 *  - no temporary file is left, or, after a kill, the next save removes it.
 *
 * The play covers the start of a session (its journal), rules loaded,
 * commands, undo, redo, reroll, reseed (journal appends), a save, a load
 * (the journal starts over from it), and, in a second play, a recovery:
 * what the journal recovered held is never lost, whatever the point the
 * recovering process failed or died at. */
#define _DEFAULT_SOURCE /* flock */
#include "tests/unit/check_main.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fray.h"
#include "runtime/base/fio.h"
#include "runtime/base/mem.h"
#include "runtime/base/safefile.h"
#include "tests/unit/scratch_util.h"

static char rules[96], saved[96], other[96];

static void make_dir(void)
{
    make_scratch_dir("sio");
    snprintf(rules, sizeof rules, "%s/a.rules", dir);
    snprintf(saved, sizeof saved, "%s/night.session", dir);
    snprintf(other, sizeof other, "%s/other.session", dir);
    write_text(rules, "stat hp = 10\ncreature a { hp 3 }\n");
}

/* Removes what a play left: journals and temporaries. */
static void clear_leftovers(void)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, "journal", 7) || safefile_is_temp_name(e->d_name)) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            ck_assert_int_eq(unlink(path), 0);
        }
    closedir(d);
}

static int count_temps(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        n += safefile_is_temp_name(e->d_name);
    closedir(d);
    return n;
}

static char *read_all(const char *path, size_t *len)
{
    char *text = NULL;
    if (fio_read_file(path, 1 << 24, &text, len) != 0)
        return NULL;
    return text;
}

static void quiet(void *user, const char *line)
{
    (void)user;
    (void)line;
}

static void no_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    (void)d;
}

/* A session's first n entries in one number. */
static uint64_t entries_state(const fray_session *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
#define MIX(p, len)                       \
    for (size_t i_ = 0; i_ < (len); i_++) \
        h = (h ^ ((const unsigned char *)(p))[i_]) * 0x100000001b3u;
    MIX(&n, sizeof n);
    for (size_t i = 0; i < n; i++) {
        fray_entry e;
        ck_assert(fray_session_entry(s, i, &e));
        MIX(&e.kind, sizeof e.kind);
        MIX(e.text ? e.text : "", e.len);
        if (e.kind == FRAY_ENTRY_SEED || e.rerolled) /* else the seed means nothing */
            MIX(&e.seed, sizeof e.seed);
        MIX(&e.rerolled, sizeof e.rerolled);
    }
#undef MIX
    return h;
}

/* A session's state in one number: its entries done and how many can be
 * redone. */
static uint64_t state_of(const fray_session *s)
{
    return entries_state(s, fray_session_done(s)) * 31 + fray_session_undone(s);
}

static fray_session *open_quiet(void)
{
    fray_session *s = fray_session_open(&(fray_options){.seed = 1});
    ck_assert_ptr_nonnull(s);
    fray_session_on_output(s, quiet, NULL);
    fray_session_on_diagnostic(s, no_diagnostic, NULL);
    return s;
}

/* --- the child: plays, reporting each call that returned ---------------------- */

static int report_fd;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    (void)!write(report_fd, line, (size_t)n);
}

static void told(void *user, const fray_diagnostic *d)
{
    (void)user;
    (void)d;
    say("told\n");
}

static void ack(const fray_session *s)
{
    say("ack %016llx\n", (unsigned long long)state_of(s));
}

typedef enum { PLAY_SESSION, PLAY_RECOVERY } play;

/* The journal a crash left in dir (the newest), or NULL. */
static void keep_newest(void *user, const fray_journal_info *j)
{
    char **newest = user;
    if (!*newest)
        *newest = strdup(j->path);
}

static char *newest_journal(fray_session *s)
{
    char *newest = NULL;
    fray_session_journals(s, dir, keep_newest, &newest);
    return newest;
}

/* The session's journal synced in groups of this many entries (0: each
 * entry synced), as for piped input: what was acknowledged is written all
 * the same, and a failed sync is told. */
static unsigned grouped;

static void play_session(fray_session *s)
{
    fray_session_journal_in(s, dir); /* the start of a session */
    fray_session_group_syncs(s, grouped, 0);
    ack(s);
    fray_session_load_rules(s, rules);
    ack(s);
    fray_session_command(s, "print roll d20");
    ack(s);
    fray_session_command(s, "a.hp -= 1");
    ack(s);
    fray_session_undo(s, 2);
    ack(s);
    fray_session_redo(s, 2);
    ack(s);
    fray_session_reroll(s);
    ack(s);
    fray_session_reseed(s, 5);
    ack(s);
    fray_session_save(s, saved);
    ack(s);
    fray_session_command(s, "print roll d6");
    ack(s);
    fray_session_load(s, saved); /* the journal starts over from it */
    ack(s);
    fray_session_command(s, "print a.hp");
    ack(s);
    fray_session_undo(s, 1);
    ack(s);
    /* a look after an undo keeps what can be redone, in the journal too */
    fray_session_command(s, "a.hp -= 2");
    ack(s);
    fray_session_undo(s, 1);
    ack(s);
    fray_session_command(s, "show a");
    ack(s);
    fray_session_redo(s, 1);
    ack(s);
}

static void play_recovery(fray_session *s)
{
    char *from = newest_journal(s);
    if (from)
        fray_session_recover(s, from);
    free(from);
    ack(s);
    fray_session_journal_in(s, dir); /* the recovered one goes once this is in place */
    ack(s);
    fray_session_command(s, "print \"after\"");
    ack(s);
}

/* Plays in a child with the fault given (countdown < 0: none); the child
 * leaves its journal as a crash would. Returns the child's report; *ops
 * the file operations it made, *killed whether it was killed. */
static char *play_in_child(play what, long countdown, fio_fault how, int err, unsigned long *ops, bool *killed)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(fds[0]);
        report_fd = fds[1];
        fray_session *s = fray_session_open(&(fray_options){.seed = 1});
        if (!s)
            _exit(2);
        fray_session_on_output(s, quiet, NULL);
        fray_session_on_diagnostic(s, told, NULL);
        unsigned long before = fio_operations();
        fio_fail_after(countdown, how, err);
        if (what == PLAY_SESSION)
            play_session(s);
        else
            play_recovery(s);
        fio_fail_after(-1, FIO_FAULT_ERROR, 0);
        say("ops %lu\n", fio_operations() - before);
        fray_session_close(s); /* its journal stays, as after a crash */
        _exit(0);
    }
    close(fds[1]);
    size_t cap = 4096, len = 0;
    char *report = malloc(cap);
    ck_assert_ptr_nonnull(report);
    for (ssize_t got; (got = read(fds[0], report + len, cap - len - 1)) != 0;) {
        if (got < 0 && errno == EINTR)
            continue;
        ck_assert_int_gt(got, 0);
        len += (size_t)got;
        if (len + 1 == cap)
            ck_assert_ptr_nonnull(report = realloc(report, cap *= 2));
    }
    report[len] = '\0';
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    *killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    ck_assert_msg(*killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0), "the child ended with status %d", status);
    *ops = 0;
    const char *at = strstr(report, "ops ");
    if (at)
        *ops = strtoul(at + 4, NULL, 10);
    return report;
}

/* The states a report acknowledged, in order (acks[0]: before any call),
 * and how many had been acknowledged when the child was first told of a
 * failure (-1: never). */
typedef struct acked {
    uint64_t state[64];
    int n, told_after;
} acked;

static acked read_report(const char *report, uint64_t before)
{
    acked a = {.state = {before}, .n = 1, .told_after = -1};
    for (const char *line = report; *line;) {
        if (!strncmp(line, "ack ", 4)) {
            ck_assert_int_lt(a.n, 64);
            a.state[a.n++] = strtoull(line + 4, NULL, 16);
        } else if (!strncmp(line, "told", 4) && a.told_after < 0) {
            a.told_after = a.n - 1;
        }
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
    return a;
}

/* What recovering the journal the child left gives (`empty` when it left
 * none). */
static uint64_t recovered_state(uint64_t empty)
{
    fray_session *t = open_quiet();
    char *from = newest_journal(t);
    uint64_t state = empty;
    if (from) {
        ck_assert_msg(fray_session_recover(t, from) == FRAY_OK, "the journal %s does not recover", from);
        state = state_of(t);
        free(from);
    }
    fray_session_close(t);
    return state;
}

/* Some journal left in dir holds the session whose first n entries are
 * `state`: it is not lost. */
typedef struct holder {
    size_t n;
    uint64_t state;
    bool found;
} holder;

static void check_holds(void *user, const fray_journal_info *j)
{
    holder *h = user;
    fray_session *t = open_quiet();
    if (fray_session_recover(t, j->path) == FRAY_OK && fray_session_done(t) >= h->n)
        h->found |= entries_state(t, h->n) == h->state;
    fray_session_close(t);
}

static bool some_journal_holds(size_t n, uint64_t state)
{
    holder h = {.n = n, .state = state};
    fray_session *t = open_quiet();
    fray_session_journals(t, dir, check_holds, &h);
    fray_session_close(t);
    return h.found;
}

/* What a crash left for the recovery play to recover. */
static size_t left_done;
static uint64_t left_entries;

/* The session saved at `saved` loads: true with its state. */
static bool save_loads(uint64_t *state)
{
    fray_session *t = open_quiet();
    bool ok = fray_session_load(t, saved) == FRAY_OK;
    *state = state_of(t);
    fray_session_close(t);
    return ok;
}

/* After a kill the temporaries it left go at the next save. */
static void next_save_sweeps(void)
{
    fray_session *t = open_quiet();
    ck_assert_int_eq(fray_session_command(t, "print 1"), FRAY_OK);
    ck_assert_int_eq(fray_session_save(t, other), FRAY_OK);
    fray_session_close(t);
    ck_assert_int_eq(count_temps(), 0);
}

/* A play under every fault in turn, checked as the comment at the top
 * says; save_call: which of its calls saves (1 the first; 0 none). */
static void every_fault(play what, void (*prepare)(void), uint64_t empty, int save_call)
{
    static const struct {
        fio_fault how;
        int err;
        const char *name;
    } faults[] = {
        {FIO_FAULT_ERROR, ENOSPC, "ENOSPC"},
        {FIO_FAULT_ERROR, EIO, "EIO"},
        {FIO_FAULT_SHORT, ENOSPC, "a short write"},
        {FIO_FAULT_KILL, 0, "a kill"},
    };
    /* once without a fault: what each call gives, and the save it writes */
    prepare();
    size_t old_len = 0, new_len = 0; /* the new save, by the play without a fault, is the one compared */
    char *old_save = read_all(saved, &old_len);
    unsigned long total;
    bool killed;
    char *report = play_in_child(what, -1, FIO_FAULT_ERROR, 0, &total, &killed);
    acked clean = read_report(report, empty);
    free(report);
    ck_assert(!killed);
    ck_assert_int_eq(clean.told_after, -1);
    ck_assert_uint_eq(recovered_state(empty), clean.state[clean.n - 1]);
    char *new_save = read_all(saved, &new_len);
    ck_assert(save_call == 0 || new_save);
    ck_assert_uint_gt(total, 10);
    int runs = 0;
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++)
        for (unsigned long k = 0; k < total; k++) {
            prepare();
            unsigned long ops;
            report = play_in_child(what, (long)k, faults[f].how, faults[f].err, &ops, &killed);
            acked a = read_report(report, empty);
            free(report);
            runs++;
            const char *where = faults[f].name;
            /* the save is the old one, or the new one (the session as it
               was when the child saved it), whole, and it loads */
            size_t len = 0;
            char *now = read_all(saved, &len);
            if (old_save || now) {
                uint64_t loaded;
                ck_assert_msg(now && save_loads(&loaded), "%s at operation %lu: the save does not load", where, k);
                bool old = old_save && len == old_len && !memcmp(now, old_save, len);
                bool saving = save_call > 0 && a.n >= save_call; /* the child began the call that saves */
                ck_assert_msg(old || (saving && loaded == a.state[save_call - 1]),
                              "%s at operation %lu: the save is neither the old one nor the new one", where, k);
            }
            free(now);
            uint64_t got = recovered_state(empty);
            if (faults[f].how == FIO_FAULT_KILL) {
                ck_assert_msg(killed, "no kill at operation %lu of %lu", k, total);
                int last = a.n - 1; /* what was acknowledged, or the call in flight */
                ck_assert_msg(got == a.state[last] || (last + 1 < clean.n && got == clean.state[last + 1]),
                              "a kill at operation %lu: the recovered session is not the one acknowledged (call %d)", k,
                              last);
                next_save_sweeps();
            } else {
                ck_assert(!killed);
                ck_assert_msg(a.told_after >= 0, "%s at operation %lu: the failure was not told", where, k);
                bool found = false;
                for (int j = a.told_after > 0 ? a.told_after - 1 : 0; j < a.n; j++)
                    found |= got == a.state[j];
                ck_assert_msg(found,
                              "%s at operation %lu (told after call %d): the recovered session lost what was "
                              "acknowledged before",
                              where, k, a.told_after);
                ck_assert_msg(count_temps() == 0, "%s at operation %lu: a temporary file was left", where, k);
            }
            if (what == PLAY_RECOVERY)
                ck_assert_msg(some_journal_holds(left_done, left_entries),
                              "%s at operation %lu: no journal holds the session recovered any more", where, k);
        }
    ck_assert_int_eq(runs, 4 * (int)total);
    printf("%s: %lu file operations, each failed or killed in %d ways: %d runs\n",
           what == PLAY_SESSION ? "session" : "recovery", total, 4, runs);
    free(old_save);
    free(new_save);
}

/* --- the two plays ------------------------------------------------------------------ */

/* An old save to be replaced, and no journal. */
static void prepare_session(void)
{
    clear_leftovers();
    fray_session *s = open_quiet();
    ck_assert_int_eq(fray_session_load_rules(s, rules), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "print 1"), FRAY_OK);
    ck_assert_int_eq(fray_session_save(s, saved), FRAY_OK);
    fray_session_close(s);
}

START_TEST(test_session_under_every_fault)
{
    make_dir();
    fray_session *s = open_quiet();
    uint64_t empty = state_of(s);
    fray_session_close(s);
    every_fault(PLAY_SESSION, prepare_session, empty, 9);
    remove_dir();
}
END_TEST

START_TEST(test_grouped_syncs_under_every_fault)
{
    make_dir();
    fray_session *s = open_quiet();
    uint64_t empty = state_of(s);
    fray_session_close(s);
    grouped = 3;
    every_fault(PLAY_SESSION, prepare_session, empty, 9);
    grouped = 0;
    remove_dir();
}
END_TEST

/* A journal a crash left, to be recovered: what it holds is never lost. */

static void prepare_recovery(void)
{
    clear_leftovers();
    unlink(saved);
    fray_session *s = open_quiet();
    ck_assert_int_eq(fray_session_journal_in(s, dir), FRAY_OK);
    ck_assert_int_eq(fray_session_load_rules(s, rules), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "print roll d20"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "a.hp -= 2"), FRAY_OK);
    left_done = fray_session_done(s);
    left_entries = entries_state(s, left_done);
    fray_session_close(s); /* as a crash would: the journal stays */
}

START_TEST(test_recovery_under_every_fault)
{
    make_dir();
    prepare_recovery();
    fray_session *s = open_quiet();
    uint64_t empty = state_of(s);
    fray_session_close(s);
    /* a recovery that fails or dies at any point leaves the journal it
       read, or the new one that holds all of it */
    every_fault(PLAY_RECOVERY, prepare_recovery, empty, 0);
    remove_dir();
}
END_TEST

/* Killed at each point of a recovery in turn, one after the other on what
 * the last left (no fresh journal in between), as a GM who loses the
 * terminal again while recovering: the session is still there after each,
 * what it held first. */
START_TEST(test_killed_recoveries_lose_nothing)
{
    make_dir();
    prepare_recovery();
    unsigned long total, ops;
    bool killed;
    free(play_in_child(PLAY_RECOVERY, -1, FIO_FAULT_ERROR, 0, &total, &killed));
    prepare_recovery();
    for (unsigned long k = 0; k < total; k++) {
        free(play_in_child(PLAY_RECOVERY, (long)k, FIO_FAULT_KILL, 0, &ops, &killed));
        ck_assert(killed);
        fray_session *t = open_quiet();
        char *from = newest_journal(t);
        ck_assert_msg(from != NULL, "killed at operation %lu, no journal is left", k);
        ck_assert_int_eq(fray_session_recover(t, from), FRAY_OK);
        ck_assert_msg(fray_session_done(t) >= left_done && entries_state(t, left_done) == left_entries,
                      "killed at operation %lu, the newest journal lost the session", k);
        free(from);
        fray_session_close(t);
    }
    remove_dir();
}
END_TEST

/* --- where a save goes -------------------------------------------------------------- */

static int diagnostics;
static char last_message[512];

static void count_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    diagnostics++;
    snprintf(last_message, sizeof last_message, "%s", d->message);
}

static fray_session *open_counting(const fray_options *o)
{
    fray_session *s = fray_session_open(o);
    ck_assert_ptr_nonnull(s);
    fray_session_on_output(s, quiet, NULL);
    fray_session_on_diagnostic(s, count_diagnostic, NULL);
    diagnostics = 0;
    return s;
}

/* A save onto what is not a regular file is refused, with a reason, and
 * leaves it as it was. */
START_TEST(test_save_refuses_what_is_not_a_file)
{
    make_dir();
    fray_session *s = open_counting(NULL);
    ck_assert_int_eq(fray_session_command(s, "print 1"), FRAY_OK);
    char fifo[128], device[128];
    snprintf(fifo, sizeof fifo, "%s", in_dir("fifo"));
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    /* a device of the test's own (as /dev/null is, where it may be made):
       were it replaced, nothing else would break */
    snprintf(device, sizeof device, "%s", in_dir("null"));
    if (mknod(device, S_IFCHR | 0600, makedev(1, 3)) != 0)
        snprintf(device, sizeof device, "/dev/null");
    const struct {
        const char *path, *why;
    } refused[] = {
        {device, "is a device, not a file"}, {fifo, "is a pipe or socket, not a file"}, {dir, "is a directory"}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        struct stat before, after;
        ck_assert_int_eq(stat(refused[i].path, &before), 0);
        diagnostics = 0;
        ck_assert_int_eq(fray_session_save(s, refused[i].path), FRAY_ERR_IO);
        ck_assert_int_eq(diagnostics, 1);
        ck_assert_msg(strstr(last_message, refused[i].why), "%s: %s", refused[i].path, last_message);
        ck_assert_int_eq(stat(refused[i].path, &after), 0);
        ck_assert_int_eq(after.st_mode, before.st_mode);
        ck_assert_int_eq(after.st_ino, before.st_ino);
        ck_assert_int_eq(after.st_rdev, before.st_rdev);
    }
    ck_assert_int_eq(count_temps(), 0);
    fray_session_close(s);
    remove_dir();
}
END_TEST

/* Through a symlink to the file it names, the link kept; the file's mode
 * kept; a new file's mode from the umask. */
START_TEST(test_save_follows_links_and_keeps_the_mode)
{
    make_dir();
    fray_session *s = open_counting(NULL);
    ck_assert_int_eq(fray_session_command(s, "print 1"), FRAY_OK);
    char target[128], link[128], dangling[128], made[128], fresh[128];
    snprintf(target, sizeof target, "%s", in_dir("night.session"));
    snprintf(link, sizeof link, "%s", in_dir("night.link"));
    snprintf(dangling, sizeof dangling, "%s", in_dir("dangling.link"));
    snprintf(made, sizeof made, "%s", in_dir("made.session"));
    snprintf(fresh, sizeof fresh, "%s", in_dir("fresh.session"));
    write_text(target, "an old save\n");
    ck_assert_int_eq(chmod(target, 0640), 0);
    ck_assert_int_eq(symlink("night.session", link), 0);
    ck_assert_int_eq(fray_session_save(s, link), FRAY_OK);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(stat(target, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0640);
    ck_assert(fray_session_is_file(target));
    /* a link to a file not there yet makes it */
    ck_assert_int_eq(symlink("made.session", dangling), 0);
    ck_assert_int_eq(fray_session_save(s, dangling), FRAY_OK);
    ck_assert(fray_session_is_file(made));
    ck_assert_int_eq(lstat(dangling, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    /* a new file: 0666 less the umask */
    mode_t was = umask(027);
    ck_assert_int_eq(fray_session_save(s, fresh), FRAY_OK);
    umask(was);
    ck_assert_int_eq(stat(fresh, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0640);
    ck_assert_int_eq(diagnostics, 0);
    ck_assert_int_eq(count_temps(), 0);
    fray_session_close(s);
    remove_dir();
}
END_TEST

/* Temporaries a dead process left are removed at the next save; one a live
 * process holds (its lock) is not. */
START_TEST(test_save_removes_only_stale_temporaries)
{
    make_dir();
    char stale[128], live[128], mine[128], user_file[128], target[128];
    snprintf(stale, sizeof stale, "%s", in_dir(".night.session.fray-tmp.abc123"));
    snprintf(live, sizeof live, "%s", in_dir(".other.session.fray-tmp.zz9z9z"));
    snprintf(user_file, sizeof user_file, "%s", in_dir("night.session.tmp.abc123")); /* a user's name, not ours */
    snprintf(mine, sizeof mine, "%s", in_dir(".night.session.fray-tmp.ABC123"));     /* not of the form */
    snprintf(target, sizeof target, "%s", in_dir("night.session"));
    const char *names[] = {stale, live, user_file, mine};
    for (size_t i = 0; i < 4; i++)
        write_text(names[i], "half a save\n");
    /* the live one is held, as a save being written holds it */
    int held = open(live, O_RDONLY);
    ck_assert_int_ge(held, 0);
    ck_assert_int_eq(flock(held, LOCK_EX), 0);
    fray_session *s = open_counting(NULL);
    ck_assert_int_eq(fray_session_command(s, "print 1"), FRAY_OK);
    ck_assert_int_eq(fray_session_save(s, target), FRAY_OK);
    ck_assert_int_ne(access(stale, F_OK), 0);
    ck_assert_int_eq(access(live, F_OK), 0);
    ck_assert_int_eq(access(user_file, F_OK), 0);
    ck_assert_int_eq(access(mine, F_OK), 0);
    close(held);
    /* once its writer is gone, it goes too */
    ck_assert_int_eq(fray_session_save(s, target), FRAY_OK);
    ck_assert_int_ne(access(live, F_OK), 0);
    fray_session_close(s);
    remove_dir();
}
END_TEST

/* --- what a journal may be kept over ------------------------------------------------- */

/* A journal is never written over a file that is not one, a saved
 * session, or another session's journal; an empty file may be taken. A
 * save given to recover is read and left as it is. */
START_TEST(test_a_journal_is_never_written_over_another_file)
{
    make_dir();
    char notes[128], save[128], left[128], empty[128];
    snprintf(notes, sizeof notes, "%s", in_dir("notes.txt"));
    snprintf(save, sizeof save, "%s", in_dir("night.session"));
    snprintf(left, sizeof left, "%s", in_dir("left.journal"));
    snprintf(empty, sizeof empty, "%s", in_dir("empty"));
    write_text(notes, "the GM's notes\n");
    write_text(empty, "");
    fray_session *s = open_counting(NULL);
    ck_assert_int_eq(fray_session_command(s, "print 1"), FRAY_OK);
    ck_assert_int_eq(fray_session_save(s, save), FRAY_OK);
    ck_assert_int_eq(fray_session_journal(s, left), FRAY_OK);
    fray_session_close(s); /* as a crash: its journal stays */
    size_t save_len, left_len;
    char *save_text = read_all(save, &save_len), *left_text = read_all(left, &left_len);
    ck_assert(save_text && left_text);
    const struct {
        const char *path, *why;
    } refused[] = {{notes, "is not a journal"}, {save, "is a saved session"}, {left, "did not end"}};
    s = open_counting(NULL);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        diagnostics = 0;
        ck_assert_int_eq(fray_session_journal(s, refused[i].path), FRAY_ERR_USAGE);
        ck_assert_int_eq(diagnostics, 1);
        ck_assert_msg(strstr(last_message, refused[i].why), "%s", last_message);
    }
    size_t len;
    char *now = read_all(save, &len);
    ck_assert(now && len == save_len && !memcmp(now, save_text, len));
    mem_free(now, len + 1);
    now = read_all(left, &len);
    ck_assert(now && len == left_len && !memcmp(now, left_text, len));
    mem_free(now, len + 1);
    now = read_all(notes, &len);
    ck_assert_str_eq(now, "the GM's notes\n");
    mem_free(now, len + 1);
    /* an empty file holds nothing to lose */
    ck_assert_int_eq(fray_session_journal(s, empty), FRAY_OK);
    ck_assert(fray_session_is_file(empty));
    /* a save read as a journal is left as it was, even when the session
       ends and its journal goes */
    ck_assert_int_eq(fray_session_recover(s, save), FRAY_OK);
    ck_assert_uint_eq(fray_session_done(s), 1);
    fray_session_close_journal(s);
    fray_session_close(s);
    now = read_all(save, &len);
    ck_assert(now && len == save_len && !memcmp(now, save_text, len));
    mem_free(now, len + 1);
    ck_assert_int_ne(access(empty, F_OK), 0); /* the session's own journal went */
    /* and the journal a crash left goes once recovered into one of the
       session's own that holds it all */
    s = open_counting(NULL);
    ck_assert_int_eq(fray_session_recover(s, left), FRAY_OK);
    ck_assert_int_eq(access(left, F_OK), 0);
    ck_assert_int_eq(fray_session_journal_in(s, dir), FRAY_OK);
    ck_assert_int_ne(access(left, F_OK), 0);
    fray_session_close_journal(s);
    fray_session_close(s);
    mem_free(save_text, save_len + 1);
    mem_free(left_text, left_len + 1);
    ck_assert_int_eq(diagnostics, 0);
    remove_dir();
}
END_TEST

/* --- what a save may ask for --------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 0x100000001b3u;
    return h;
}

/* A save as a crafted one would be: its checks hold. */
static void craft_save(const char *path, const char *options, const char *command)
{
    char head[512], body[512];
    snprintf(head, sizeof head, "fray session 1\noption seed 3\n%s", options);
    snprintf(body, sizeof body, "command %zu\n%s\n", strlen(command), command);
    uint64_t h = fnv(0xcbf29ce484222325u, head);
    FILE *out = fopen(path, "w");
    ck_assert_ptr_nonnull(out);
    fprintf(out, "%scheck %016llx\n", head, (unsigned long long)h);
    h = fnv(h, body);
    fprintf(out, "%scheck %016llx\nend\n", body, (unsigned long long)h);
    ck_assert_int_eq(fclose(out), 0);
}

/* Options in a save lower the program's limits and never raise them: a
 * save that asks for every step there is does not make a loop endless. */
START_TEST(test_a_save_never_raises_a_limit)
{
    make_dir();
    char path[128];
    snprintf(path, sizeof path, "%s", in_dir("crafted.session"));
    /* the program allows 100000 steps; the save asks for 2^64 - 1 */
    craft_save(path, "option max-steps 18446744073709551615\n", "print 1");
    fray_session *s = open_counting(&(fray_options){.max_steps = 100000});
    ck_assert_int_eq(fray_session_load(s, path), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "repeat 1000000 { let x = 1 }"), FRAY_ERR_RULES);
    ck_assert_msg(strstr(last_message, "step limit"), "%s", last_message);
    fray_session_close(s);
    /* the default limit stands as well, when none is given */
    s = open_counting(NULL);
    ck_assert_int_eq(fray_session_load(s, path), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "repeat 100000000 { let x = 1 }"), FRAY_ERR_RULES);
    ck_assert_msg(strstr(last_message, "step limit"), "%s", last_message);
    fray_session_close(s);
    /* the creature limit: the program's 3 stands against the save's 100 */
    craft_save(path, "option max-creatures 100\n", "print 1");
    s = open_counting(&(fray_options){.max_creatures = 3});
    ck_assert_int_eq(fray_session_load(s, path), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "creature a x5 {}"), FRAY_ERR_RULES);
    ck_assert_msg(strstr(last_message, "too many creatures"), "%s", last_message);
    fray_session_close(s);
    /* set by name, too */
    s = open_counting(NULL);
    ck_assert_int_eq(fray_session_set_limit(s, "creatures", 3), FRAY_OK);
    ck_assert_int_eq(fray_session_load(s, path), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "creature a x5 {}"), FRAY_ERR_RULES);
    fray_session_close(s);
    /* a lower one does lower it, and is saved again */
    craft_save(path, "option max-creatures 2\noption max-steps 5000\n", "print 1");
    s = open_counting(&(fray_options){.max_creatures = 10});
    ck_assert_int_eq(fray_session_load(s, path), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "creature a x3 {}"), FRAY_ERR_RULES);
    ck_assert_int_eq(fray_session_command(s, "repeat 100000 { let x = 1 }"), FRAY_ERR_RULES);
    ck_assert_int_eq(fray_session_command(s, "creature a x2 {}"), FRAY_OK);
    char again[128];
    snprintf(again, sizeof again, "%s", in_dir("again.session"));
    ck_assert_int_eq(fray_session_save(s, again), FRAY_OK);
    fray_session_close(s);
    size_t len;
    char *text = read_all(again, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert(strstr(text, "option max-creatures 2\n") && strstr(text, "option max-steps 5000\n"));
    mem_free(text, len + 1);
    remove_dir();
}
END_TEST

/* A command after a reroll is read back as it was written: not rerolled,
 * and with no seed of its own (the reroll's seed stays with the reroll). */
START_TEST(test_a_reroll_stays_with_its_command)
{
    make_dir();
    fray_session *s = open_quiet();
    ck_assert_int_eq(fray_session_command(s, "print roll d20"), FRAY_OK);
    ck_assert_int_eq(fray_session_reroll(s), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "print roll d6"), FRAY_OK);
    ck_assert_int_eq(fray_session_save(s, saved), FRAY_OK);
    fray_entry first, second;
    ck_assert(fray_session_entry(s, 0, &first) && fray_session_entry(s, 1, &second));
    ck_assert(first.rerolled && !second.rerolled);
    fray_session *back = open_quiet();
    ck_assert_int_eq(fray_session_load(back, saved), FRAY_OK);
    fray_entry first_back, second_back;
    ck_assert(fray_session_entry(back, 0, &first_back) && fray_session_entry(back, 1, &second_back));
    ck_assert(first_back.rerolled && first_back.seed == first.seed);
    ck_assert(!second_back.rerolled);
    ck_assert_uint_eq(second_back.seed, second.seed);
    fray_session_close(back);
    fray_session_close(s);
    remove_dir();
}
END_TEST

/* What `fray repl` asks before the GM leaves: has the session changed
   since it was saved or loaded? A recovered one has, until it is saved. */
START_TEST(test_unsaved_follows_every_change)
{
    make_dir();
    char journal[128];
    snprintf(journal, sizeof journal, "%s/journal", dir);
    fray_session *s = open_quiet();
    ck_assert(!fray_session_unsaved(s)); /* nothing to lose */
    ck_assert_int_eq(fray_session_journal(s, journal), FRAY_OK);
    ck_assert(fray_session_has_journal(s));
    ck_assert_int_eq(fray_session_command(s, "print roll d20"), FRAY_OK);
    ck_assert(fray_session_unsaved(s));
    ck_assert_int_eq(fray_session_save(s, saved), FRAY_OK);
    ck_assert(!fray_session_unsaved(s));
    ck_assert_int_ne(fray_session_command(s, "no such command"), FRAY_OK);
    ck_assert(!fray_session_unsaved(s)); /* a command that failed changed nothing */
    ck_assert_uint_eq(fray_session_undo(s, 1), 1);
    ck_assert(fray_session_unsaved(s));
    ck_assert_int_eq(fray_session_save(s, saved), FRAY_OK);
    ck_assert_uint_eq(fray_session_redo(s, 1), 1);
    ck_assert(fray_session_unsaved(s));
    ck_assert_int_eq(fray_session_save(s, saved), FRAY_OK);
    ck_assert_int_eq(fray_session_reroll(s), FRAY_OK);
    ck_assert(fray_session_unsaved(s));
    ck_assert_int_eq(fray_session_load(s, saved), FRAY_OK);
    ck_assert(!fray_session_unsaved(s)); /* it is what the file holds */
    ck_assert_int_eq(fray_session_command(s, "print 1"), FRAY_OK);
    fray_session_close(s); /* as a crash leaves it: the journal stays */
    fray_session *back = open_quiet();
    ck_assert_int_eq(fray_session_recover(back, journal), FRAY_OK);
    ck_assert(fray_session_unsaved(back));
    ck_assert(!fray_session_has_journal(back));
    fray_session_close_journal(back);
    fray_session_close(back);
    remove_dir();
}
END_TEST

/* An ask callback that never answers what fits: the command stops with an
   error (it must not hang), and nothing of it is kept. */
static bool always_maybe(void *user, const fray_question *q, char *answer, size_t cap)
{
    (void)q;
    ++*(int *)user;
    snprintf(answer, cap, "maybe");
    return true;
}

START_TEST(test_answers_that_never_fit_stop_the_command)
{
    fray_session *s = open_quiet();
    int asked = 0;
    fray_session_on_ask(s, always_maybe, &asked);
    ck_assert_int_eq(fray_session_command(s, "ruling r \"Well?\" { answer yes_no }"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "print r"), FRAY_ERR_RULES);
    ck_assert_int_eq(asked, 100);
    ck_assert_uint_eq(fray_session_done(s), 1);
    fray_session_close(s);
}
END_TEST

/* Answers in turn from a list; records why each was asked again. */
typedef struct scripted {
    const char *const *answers;
    int n, asked;
    char why[4][128];
    bool each_offered;
} scripted;

static bool scripted_answer(void *user, const fray_question *q, char *answer, size_t cap)
{
    scripted *sc = user;
    if (sc->asked < 4)
        snprintf(sc->why[sc->asked], sizeof sc->why[0], "%s", q->retry ? q->retry : "");
    sc->each_offered |= q->each != NULL;
    if (sc->asked >= sc->n)
        return false;
    snprintf(answer, cap, "%s", sc->answers[sc->asked++]);
    return true;
}

START_TEST(test_a_ruling_with_choices_takes_only_them)
{
    fray_session *s = open_quiet();
    static const char *const answers[] = {"", "brutal", "stats_matter"};
    scripted sc = {answers, 3, 0, {{0}}, false};
    fray_session_on_ask(s, scripted_answer, &sc);
    ck_assert_int_eq(
        fray_session_command(s, "ruling r \"Which?\" { answer one of all_equal, stats_matter; asked per game }"),
        FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "print r"), FRAY_OK);
    ck_assert_int_eq(sc.asked, 3);
    ck_assert_str_eq(sc.why[0], "");
    ck_assert_str_eq(sc.why[1], "choose one of all_equal/stats_matter"); /* Enter, with no default */
    ck_assert_str_eq(sc.why[2], "choose one of all_equal/stats_matter");
    /* the answer stands: not asked again */
    ck_assert_int_eq(fray_session_command(s, "print r"), FRAY_OK);
    ck_assert_int_eq(sc.asked, 3);
    /* ahead of time, a word that is not a choice is refused */
    ck_assert_int_eq(fray_session_command(s, "answer r brutal"), FRAY_ERR_RULES);
    fray_session_close(s);
}
END_TEST

START_TEST(test_an_answer_for_all_answers_every_creature)
{
    fray_session *s = open_quiet();
    static const char *const answers[] = {"yes for all"};
    scripted sc = {answers, 1, 0, {{0}}, false};
    fray_session_on_ask(s, scripted_answer, &sc);
    ck_assert_int_eq(fray_session_command(s, "ruling r \"Well?\" { answer yes_no; asked per creature }"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "action probe { print self, r }"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "creature a side one { }"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "creature b side two { }"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "a: probe"), FRAY_OK);
    ck_assert(sc.each_offered);
    ck_assert_int_eq(fray_session_command(s, "b: probe"), FRAY_OK);
    ck_assert_int_eq(sc.asked, 1);
    /* no answer at all, with no default: the command stops */
    ck_assert_int_eq(fray_session_command(s, "ruling q \"Well?\" { answer number }"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "print q"), FRAY_ERR_RULES);
    fray_session_close(s);
}
END_TEST

static Suite *session_io_suite(void)
{
    Suite *s = suite_create("session_io");
    TCase *tc = tcase_create("faults");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_session_under_every_fault);
    tcase_add_test(tc, test_grouped_syncs_under_every_fault);
    tcase_add_test(tc, test_recovery_under_every_fault);
    tcase_add_test(tc, test_killed_recoveries_lose_nothing);
    suite_add_tcase(s, tc);
    TCase *files = tcase_create("files");
    tcase_set_timeout(files, 60);
    tcase_add_test(files, test_save_refuses_what_is_not_a_file);
    tcase_add_test(files, test_save_follows_links_and_keeps_the_mode);
    tcase_add_test(files, test_save_removes_only_stale_temporaries);
    tcase_add_test(files, test_a_save_never_raises_a_limit);
    tcase_add_test(files, test_a_journal_is_never_written_over_another_file);
    tcase_add_test(files, test_a_reroll_stays_with_its_command);
    tcase_add_test(files, test_unsaved_follows_every_change);
    tcase_add_test(files, test_answers_that_never_fit_stop_the_command);
    tcase_add_test(files, test_a_ruling_with_choices_takes_only_them);
    tcase_add_test(files, test_an_answer_for_all_answers_every_creature);
    suite_add_tcase(s, files);
    return s;
}

int main(void)
{
    return check_main(session_io_suite());
}
