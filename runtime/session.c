/* session: the REPL's timeline of entries, replayed to make the state of
 * play (see session.h); saving it and keeping its journal. The format of
 * the files is session_file.c's. */
#define _POSIX_C_SOURCE 200809L
#include "runtime/session.h"

#include "runtime/session_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- entries ------------------------------------------------------------------ */

void entry_free(entry *e)
{
    free(e->text);
    free(e->path);
    for (size_t i = 0; i < e->nreplies; i++)
        free(e->replies[i]);
    free(e->replies);
    *e = (entry){0};
}

bool entry_reply(entry *e, const char *text)
{
    char **grown = realloc(e->replies, (e->nreplies + 1) * sizeof *grown);
    if (!grown)
        return false;
    e->replies = grown;
    e->replies[e->nreplies] = strdup(text);
    return e->replies[e->nreplies++] != NULL;
}

bool entries_push(entry **list, size_t *n, size_t *cap, entry e)
{
    if (*n == *cap) {
        size_t want = *cap ? 2 * *cap : 16;
        entry *grown = realloc(*list, want * sizeof *grown);
        if (!grown)
            return false;
        *list = grown;
        *cap = want;
    }
    (*list)[(*n)++] = e;
    return true;
}

void entries_clear(entry *list, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        entry_free(&list[i]);
    *n = 0;
}

/* --- the journal's records ------------------------------------------------------ */

/* Flushes out to the disk: after a crash, what was written is there. */
static bool sync_file(FILE *out)
{
    return fflush(out) == 0 && fsync(fileno(out)) == 0;
}

static void journal_write(session *s, const entry *e, const char *op)
{
    if (!s->journal)
        return;
    file_writer w = {.out = s->journal, .hash = s->journal_hash};
    if (e)
        file_write_entry(&w, e);
    if (op)
        file_write_op(&w, op);
    s->journal_hash = w.hash;
    if (!sync_file(s->journal)) {
        fprintf(stderr, "fray repl: cannot write the journal %s: %s; going on without one\n", s->journal_path,
                strerror(errno));
        fclose(s->journal);
        s->journal = NULL;
    }
}

/* --- replaying ------------------------------------------------------------------ */

static void quiet_output(void *user, const char *line)
{
    (void)user;
    (void)line;
}

static void quiet_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    (void)d;
}

static bool answer_question(void *user, const fray_question *q, char *answer, size_t cap)
{
    session *s = user;
    if (s->replaying) {
        if (s->next_reply >= s->replaying->nreplies) {
            s->replay_short = true;
            return false;
        }
        snprintf(answer, cap, "%s", s->replaying->replies[s->next_reply++]);
        return true;
    }
    if (!s->ask || !s->ask(s->ui, q, answer, cap))
        answer[0] = '\0'; /* no answer: written down as an empty one */
    /* an answer that is asked again is not kept: only the one that fits is
       what replaying must give */
    if (s->recording && s->recording->nreplies && q->retry)
        free(s->recording->replies[--s->recording->nreplies]);
    return !s->recording || entry_reply(s->recording, answer);
}

static fray *open_context(session *s, bool quiet)
{
    fray *f = cli_open(&s->opts);
    if (!f)
        return NULL;
    fray_on_output(f, quiet ? quiet_output : s->print, s);
    fray_on_diagnostic(f, quiet ? quiet_diagnostic : s->diagnose, s);
    return f;
}

static void set_quiet(session *s, bool quiet)
{
    fray_on_output(s->f, quiet ? quiet_output : s->print, s);
    fray_on_diagnostic(s->f, quiet ? quiet_diagnostic : s->diagnose, s);
}

static fray_status run_entry(session *s, const entry *e)
{
    fray_on_ask(s->f, e->asked ? answer_question : NULL, s);
    switch (e->kind) {
    case ENTRY_COMMAND:
        if (e->reseed)
            fray_reseed(s->f, e->seed);
        return fray_run_string(s->f, "<repl>", e->text, e->len);
    case ENTRY_FILE: return fray_run_string(s->f, e->path, e->text, e->len);
    case ENTRY_SEED: fray_reseed(s->f, e->seed); return FRAY_OK;
    }
    return FRAY_OK;
}

/* Replays an entry with its written-down answers. */
static fray_status replay_entry(session *s, const entry *e)
{
    s->replaying = e;
    s->next_reply = 0;
    fray_status st = run_entry(s, e);
    s->replaying = NULL;
    return st;
}

/* A fresh context holding the first n entries of the timeline. */
static bool rebuild(session *s, size_t n)
{
    fray *f = open_context(s, true);
    if (!f) {
        fprintf(stderr, "fray repl: out of memory\n");
        return false;
    }
    fray_close(s->f);
    s->f = f;
    bool same = true;
    for (size_t i = 0; i < n && i < s->ndone; i++)
        same &= replay_entry(s, &s->done[i]) == FRAY_OK;
    set_quiet(s, false);
    if (!same || s->replay_short)
        fprintf(stderr, "fray repl: warning: replaying the session did not go as it went the first time "
                        "(a rules file changed on disk?)\n");
    s->replay_short = false;
    return true;
}

bool session_init(session *s, const cli_options *o, session_ask_fn ask, void *ui, fray_output_fn print,
                  fray_diagnostic_fn diagnose)
{
    *s = (session){.opts = *o, .ask = ask, .ui = ui, .print = print, .diagnose = diagnose};
    s->f = open_context(s, false);
    return s->f != NULL;
}

void session_free(session *s)
{
    entries_clear(s->done, &s->ndone);
    entries_clear(s->undone, &s->nundone);
    free(s->done);
    free(s->undone);
    fray_close(s->f);
    if (s->journal)
        fclose(s->journal);
    free(s->journal_path);
    *s = (session){0};
}

/* --- new entries --------------------------------------------------------------------- */

/* Runs e, recording the GM's answers; keeps it on success, else rebuilds
 * the state before it. Takes e. */
static int add_entry(session *s, entry e)
{
    s->recording = &e;
    fray_status st = run_entry(s, &e);
    s->recording = NULL;
    if (st == FRAY_OK && entries_push(&s->done, &s->ndone, &s->done_cap, e)) {
        entries_clear(s->undone, &s->nundone);
        journal_write(s, &e, NULL);
        return EXIT_OK;
    }
    entry_free(&e);
    rebuild(s, s->ndone);
    return st == FRAY_OK ? EXIT_IO : cli_exit_code(st);
}

int session_command(session *s, const char *text)
{
    entry e = {.kind = ENTRY_COMMAND, .text = strdup(text), .len = strlen(text), .asked = s->asking};
    if (!e.text)
        return EXIT_IO;
    return add_entry(s, e);
}

int session_load_rules(session *s, const char *path)
{
    entry e = {.kind = ENTRY_FILE, .path = strdup(path), .asked = s->asking};
    e.text = e.path ? file_slurp(path, &e.len) : NULL;
    if (!e.text) {
        fprintf(stderr, "fray repl: cannot read %s: %s\n", path, strerror(errno));
        entry_free(&e);
        return EXIT_IO;
    }
    return add_entry(s, e);
}

int session_seed(session *s, uint64_t seed)
{
    return add_entry(s, (entry){.kind = ENTRY_SEED, .seed = seed});
}

/* --- moving along the timeline ------------------------------------------------------- */

size_t session_undo(session *s, size_t n)
{
    size_t k = 0;
    for (; k < n && s->ndone > 0; k++) {
        if (!entries_push(&s->undone, &s->nundone, &s->undone_cap, s->done[s->ndone - 1]))
            break;
        s->ndone--;
        journal_write(s, NULL, "undo");
    }
    if (k)
        rebuild(s, s->ndone);
    return k;
}

size_t session_redo(session *s, size_t n)
{
    size_t k = 0;
    for (; k < n && s->nundone > 0; k++) {
        entry e = s->undone[s->nundone - 1];
        if (replay_entry(s, &e) != FRAY_OK || !entries_push(&s->done, &s->ndone, &s->done_cap, e)) {
            rebuild(s, s->ndone); /* cannot happen with unchanged rules: the same entry, the same state */
            break;
        }
        s->nundone--;
        journal_write(s, NULL, "redo");
    }
    return k;
}

/* A new seed for a reroll: from the session's seed, where the reroll
 * happens and how many came before, so a replay finds the same one. */
static uint64_t reroll_seed(const session *s, const entry *old)
{
    uint64_t z = s->opts.seed ^ (0x9e3779b97f4a7c15u * (s->ndone + 1)) ^ (old->reseed ? old->seed : 0x5eed);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int session_reroll(session *s)
{
    if (s->ndone == 0 || s->done[s->ndone - 1].kind != ENTRY_COMMAND) {
        fprintf(stderr, "fray repl: the last thing done is not a command, so there is nothing to reroll\n");
        return EXIT_USAGE;
    }
    entry old = s->done[--s->ndone];
    rebuild(s, s->ndone);
    entry e = {.kind = ENTRY_COMMAND, .text = strdup(old.text), .len = old.len, .reseed = true, .asked = s->asking};
    e.seed = reroll_seed(s, &old);
    if (!e.text) {
        entries_push(&s->done, &s->ndone, &s->done_cap, old);
        rebuild(s, s->ndone);
        return EXIT_IO;
    }
    /* run it as new; if it fails, the old roll stands */
    s->recording = &e;
    fray_status st = run_entry(s, &e);
    s->recording = NULL;
    if (st == FRAY_OK && entries_push(&s->done, &s->ndone, &s->done_cap, e)) {
        journal_write(s, NULL, "undo");
        journal_write(s, &e, NULL);
        entries_clear(s->undone, &s->nundone);
        entry_free(&old);
        return EXIT_OK;
    }
    entry_free(&e);
    entries_push(&s->done, &s->ndone, &s->done_cap, old);
    rebuild(s, s->ndone);
    return cli_exit_code(st);
}

int session_at(session *s, size_t n, const char *text)
{
    if (n > s->ndone)
        n = s->ndone;
    if (!rebuild(s, n))
        return EXIT_IO;
    fray_status st = fray_run_string(s->f, "<repl>", text, strlen(text));
    rebuild(s, s->ndone);
    return cli_exit_code(st);
}

/* --- files ------------------------------------------------------------------------- */

int session_save(const session *s, const char *path)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return EXIT_IO;
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        fprintf(stderr, "fray repl: cannot write %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        free(tmp);
        return EXIT_IO;
    }
    file_writer w;
    file_write_session(&w, out, s);
    file_write_end(&w);
    bool ok = !ferror(out) && sync_file(out);
    ok &= fclose(out) == 0;
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        fprintf(stderr, "fray repl: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return EXIT_IO;
    }
    /* the rename itself reaches the disk with its folder */
    char *slash = strrchr(tmp, '/');
    const char *dir = ".";
    if (slash) {
        *slash = '\0';
        dir = slash == tmp ? "/" : tmp;
    }
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(tmp);
    return EXIT_OK;
}

bool session_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return false;
    static const char word[] = "fray session ";
    char head[sizeof word] = "";
    size_t got = fread(head, 1, sizeof word - 1, in);
    fclose(in);
    return got == sizeof word - 1 && !memcmp(head, word, got);
}

int session_load(session *s, const char *path, bool journal)
{
    loaded l;
    int code = file_read(path, journal, &s->opts, &l); /* the search path stays this process's (-I) */
    if (code != EXIT_OK)
        return code;
    /* the loaded session replaces this one */
    entries_clear(s->done, &s->ndone);
    entries_clear(s->undone, &s->nundone);
    free(s->done);
    free(s->undone);
    s->opts = l.opts;
    s->done = l.done;
    s->ndone = l.ndone;
    s->done_cap = l.done_cap;
    s->undone = l.undone;
    s->nundone = l.nundone;
    s->undone_cap = l.undone_cap;
    if (!rebuild(s, s->ndone))
        return EXIT_IO;
    return EXIT_OK;
}

void session_journal(session *s, const char *path)
{
    if (s->journal)
        fclose(s->journal);
    s->journal = NULL;
    char *copy = path ? strdup(path) : NULL; /* path may be s->journal_path itself */
    free(s->journal_path);
    s->journal_path = copy;
    if (!s->journal_path)
        return;
    s->journal = fopen(s->journal_path, "w");
    if (!s->journal) {
        fprintf(stderr, "fray repl: warning: cannot keep a journal in %s (%s): a crash would lose the session\n",
                s->journal_path, strerror(errno));
        return;
    }
    file_writer w;
    file_write_session(&w, s->journal, s);
    s->journal_hash = w.hash;
    if (!sync_file(s->journal)) {
        fclose(s->journal);
        s->journal = NULL;
    }
}

void session_close_journal(session *s)
{
    if (!s->journal)
        return;
    /* only a journal file of our own goes: never a device (--journal
       /dev/null) or anything else that is not a plain file */
    struct stat st;
    bool plain = fstat(fileno(s->journal), &st) == 0 && S_ISREG(st.st_mode);
    fclose(s->journal);
    s->journal = NULL;
    if (plain && s->journal_path)
        unlink(s->journal_path);
}
