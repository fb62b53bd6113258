/* session: the timeline of entries, replayed to make the state of play
 * (see session.h); saving, loading and recovering it. The format of the
 * files is session_file.c's, the journal session_journal.c's; opening a
 * session, its settings, callbacks and entries are api_session.c's. */
#define _POSIX_C_SOURCE 200809L
#include "runtime/session/session.h"

#include "runtime/session/session_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/files.h"
#include "runtime/api/api_files.h"
#include "runtime/base/fio.h"
#include "runtime/base/mem.h"
#include "runtime/base/safefile.h"

/* --- entries ------------------------------------------------------------------ */

void session_entry_free(session_entry *e)
{
    if (e->text)
        mem_free(e->text, e->len + 1);
    mem_strfree(e->path);
    for (size_t i = 0; i < e->nreplies; i++)
        mem_strfree(e->replies[i]);
    if (e->replies)
        mem_free(e->replies, e->replies_cap * sizeof *e->replies);
    kept_files_free(&e->files.kept);
    *e = (session_entry){0};
}

/* A copy of from in *to, its own; false when out of memory (*to then
 * holds what was copied, to be freed). */
static bool entry_copy(session_entry *to, const session_entry *from)
{
    bool ok = true;
    *to = (session_entry){.kind = from->kind,
                          .len = from->len,
                          .seed = from->seed,
                          .reseed = from->reseed,
                          .asked = from->asked,
                          .files.from = from->files.from};
    to->text = mem_dup(from->text, from->len + 1, &ok);
    to->path = from->path ? mem_dup(from->path, strlen(from->path) + 1, &ok) : NULL;
    for (size_t i = 0; i < from->nreplies && ok; i++)
        ok = session_entry_reply(to, from->replies[i], strlen(from->replies[i]));
    return ok && kept_files_copy(&to->files.kept, &from->files.kept);
}

static bool entries_copy(session_entry **list, size_t *n, size_t *cap, const session_entry *from, size_t nfrom)
{
    for (size_t i = 0; i < nfrom; i++) {
        session_entry e;
        if (!entry_copy(&e, &from[i]) || !session_entries_push(list, n, cap, e)) {
            session_entry_free(&e);
            return false;
        }
    }
    return true;
}

bool session_entry_reply(session_entry *e, const char *text, size_t len)
{
    char **grown = mem_grow(e->replies, sizeof *grown, &e->replies_cap, e->nreplies + 1);
    if (!grown)
        return false;
    e->replies = grown;
    char *copy = mem_strndup(text, len);
    if (!copy)
        return false;
    e->replies[e->nreplies++] = copy;
    return true;
}

bool session_entry_looks(const session_entry *e)
{
    if (e->kind != ENTRY_COMMAND || e->nreplies || e->reseed || memchr(e->text, ';', e->len) ||
        memchr(e->text, '\n', e->len) || memchr(e->text, '{', e->len))
        return false;
    static const char *const looks[] = {"show", "explain", "can"};
    const char *t = e->text + strspn(e->text, " \t");
    for (size_t k = 0; k < sizeof looks / sizeof looks[0]; k++) {
        size_t len = strlen(looks[k]);
        if (!strncmp(t, looks[k], len) && (t[len] == '\0' || t[len] == ' ' || t[len] == '\t'))
            return true;
    }
    return false;
}

bool session_entries_push(session_entry **list, size_t *n, size_t *cap, session_entry e)
{
    session_entry *grown = mem_grow(*list, sizeof *grown, cap, *n + 1);
    if (!grown)
        return false;
    *list = grown;
    (*list)[(*n)++] = e;
    return true;
}

void session_entries_clear(session_entry *list, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        session_entry_free(&list[i]);
    *n = 0;
}

void session_entries_free(session_entry **list, size_t *n, size_t *cap)
{
    session_entries_clear(*list, n);
    if (*list)
        mem_free(*list, *cap * sizeof **list);
    *list = NULL;
    *cap = 0;
}

/* --- messages --------------------------------------------------------------------- */

static void default_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    fflush(stdout); /* as a context's own default: the transcript stays in order */
    fputs(d->text, stderr);
}

void session_report(const session *s, fray_level level, const char *file, int line, const char *fmt, ...)
{
    text_buf message, text;
    text_init(&message);
    text_init(&text);
    va_list ap;
    va_start(ap, fmt);
    text_addv(&message, fmt, ap);
    va_end(ap);
    text_add(&text, "fray: %s: %s\n",
             level == FRAY_ERROR     ? "error"
             : level == FRAY_WARNING ? "warning"
                                     : "note",
             message.s);
    fray_diagnostic d = {
        .level = level, .file = file, .line = line, .message = message.s, .text = text.s, .from_session = true};
    if (s->hooks.diagnose)
        s->hooks.diagnose(s->hooks.diagnose_user, &d);
    else
        default_diagnostic(NULL, &d);
    text_free(&text);
    text_free(&message);
}

static void out_of_memory(const session *s)
{
    session_report(s, FRAY_ERROR, NULL, 0, "out of memory");
}

const char *session_io_error(int code)
{
    return code > 0 ? strerror(code) : fio_error_text(code);
}

/* --- replaying ------------------------------------------------------------------ */

static void quiet_output(void *user, const char *line)
{
    (void)user;
    (void)line;
}

static void quiet_diagnostic(void *user, const fray_diagnostic *d)
{
    session *s = user;
    if (s->replaying && d->level == FRAY_ERROR && !s->replay_why[0])
        snprintf(s->replay_why, sizeof s->replay_why, "%s", d->message);
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
    bool given = s->hooks.ask && s->hooks.ask(s->hooks.ask_user, q, answer, cap);
    if (!given)
        answer[0] = '\0'; /* no answer: written down as an empty one */
    /* an answer that is asked again is not kept: only the one that fits is
       what replaying must give */
    if (s->recording && s->recording->nreplies && q->retry)
        mem_strfree(s->recording->replies[--s->recording->nreplies]);
    if (s->recording && !session_entry_reply(s->recording, answer, strlen(answer)))
        return false;
    return given;
}

static void set_quiet(session *s, fray *f, bool quiet)
{
    fray_on_output(f, quiet ? quiet_output : s->hooks.print, quiet ? NULL : s->hooks.print_user);
    fray_on_diagnostic(f, quiet ? quiet_diagnostic : s->hooks.diagnose, quiet ? s : s->hooks.diagnose_user);
}

typedef struct limit_default {
    const char *name;
    uint64_t value;
} limit_default;

static void find_default(void *user, const char *name, const char *meaning, uint64_t value)
{
    limit_default *d = user;
    (void)meaning;
    if (!strcmp(name, d->name))
        d->value = value;
}

/* A limit as the process sets it: by name, else in its options, else the
 * default. */
static uint64_t own_limit(const session *s, const char *name, uint64_t in_options)
{
    for (size_t i = 0; i < s->nlimits; i++)
        if (!strcmp(s->limits[i].name, name))
            return s->limits[i].value;
    limit_default d = {.name = name, .value = in_options};
    if (!in_options)
        fray_limits(find_default, &d);
    return d.value;
}

/* A loaded file's limit lowers the process's own, never raises it. */
static void lower_limit(const session *s, fray *f, const char *name, uint64_t in_options, uint64_t cap)
{
    if (cap && cap < own_limit(s, name, in_options))
        fray_set_limit(f, name, cap);
}

/* The lower of two limits where 0 is none. */
static uint64_t lower(uint64_t a, uint64_t b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

sfile_settings session_settings(const session *s)
{
    return (sfile_settings){
        .seed = s->opts.seed,
        .max_steps = lower(s->opts.max_steps, s->file_max_steps),
        .max_call_depth = (int)lower((uint64_t)s->opts.max_call_depth, (uint64_t)s->file_max_call_depth),
        .max_creatures = (int)lower((uint64_t)s->opts.max_creatures, (uint64_t)s->file_max_creatures)};
}

/* The session's limits: those set by name, and those a loaded file
 * lowered. */
static void apply_limits(const session *s, fray *f)
{
    for (size_t i = 0; i < s->nlimits; i++)
        fray_set_limit(f, s->limits[i].name, s->limits[i].value); /* each was checked when set */
    lower_limit(s, f, "steps", s->opts.max_steps, s->file_max_steps);
    lower_limit(s, f, "depth", (uint64_t)s->opts.max_call_depth, (uint64_t)s->file_max_call_depth);
    lower_limit(s, f, "creatures", (uint64_t)s->opts.max_creatures, (uint64_t)s->file_max_creatures);
}

fray *session_open_context(session *s, bool quiet)
{
    fray *f = fray_open(&s->opts);
    if (!f)
        return NULL;
    set_quiet(s, f, quiet);
    /* the files its entries read come through the session: kept, served */
    api_read_through(f, session_read_file, s);
    apply_limits(s, f);
    s->settled_uses = api_uses(f); /* no entry yet: as a rebuild of none */
    return f;
}

static fray_status run_entry(session *s, const session_entry *e)
{
    fray_on_ask(s->f, e->asked ? answer_question : NULL, s);
    switch (e->kind) {
    case ENTRY_COMMAND:
        if (e->reseed)
            fray_reseed(s->f, e->seed);
        return api_run_typed(s->f, e->text, e->len);
    case ENTRY_FILE: return api_run_file_text(s->f, e->path, e->text, e->len);
    case ENTRY_SEED: fray_reseed(s->f, e->seed); return FRAY_OK;
    }
    return FRAY_OK;
}

/* Replays an entry with its written-down answers. */
static fray_status replay_entry(session *s, const session_entry *e)
{
    s->replaying = e;
    s->next_reply = 0;
    fray_status st = run_entry(s, e);
    s->replaying = NULL;
    return st;
}

/* The timeline's entry `at` (1-based) did not replay as it ran the first
   time: it fails now (replay_why says why), or asked more than was
   answered. Said once for that entry, naming it, not at every rebuild. */
static void warn_diverged(session *s, size_t at, bool short_of_answers)
{
    const session_entry *e = &s->done[at - 1];
    text_buf what;
    text_init(&what);
    if (e->kind == ENTRY_FILE)
        text_add(&what, "loading %s", e->path);
    else if (e->kind == ENTRY_SEED)
        text_put(&what, "a new seed");
    else {
        size_t len = strcspn(e->text, "\n");
        text_add(&what, "'%.*s%s'", (int)(len > 60 ? 57 : len), e->text, len > 60 ? "..." : "");
    }
    session_report(s, FRAY_WARNING, NULL, 0,
                   "replaying the session did not go as it went the first time (was it saved by another version "
                   "of fray, or edited?): entry %zu, %s, %s%s%s",
                   at, what.s, short_of_answers ? "asks more questions than were answered" : "fails now",
                   !short_of_answers && s->replay_why[0] ? ": " : "", short_of_answers ? "" : s->replay_why);
    text_free(&what);
    s->replay_warned_at = at;
}

/* A fresh context holding the first n entries of the timeline. */
static bool rebuild_checked(session *s, size_t n, bool *replayed_same);

static bool rebuild(session *s, size_t n)
{
    return rebuild_checked(s, n, NULL);
}

/* As rebuild; with replayed_same, whether every entry replayed as it ran
   the first time is said there instead of in a warning. */
static bool rebuild_checked(session *s, size_t n, bool *replayed_same)
{
    size_t from = 0;
    fray *old = s->f;
    fray *f = checkpoints_open(s, n, &from, &old);
    if (f)
        set_quiet(s, f, true);
    else
        f = session_open_context(s, true);
    if (!f) {
        out_of_memory(s);
        return false;
    }
    fray_close(old); /* NULL when the copy closed it */
    s->f = f;
    size_t diverged = 0; /* the first entry that did not replay as it ran (1-based) */
    bool short_of_answers = false;
    s->replay_why[0] = '\0';
    for (size_t i = from; i < n && i < s->ndone; i++) {
        bool ok = replay_entry(s, &s->done[i]) == FRAY_OK;
        if ((!ok || s->replay_short) && !diverged) {
            diverged = i + 1;
            short_of_answers = ok;
        }
    }
    /* a look back at an earlier point (n < ndone) is not the timeline's state */
    s->settled_uses = n >= s->ndone ? api_uses(s->f) : UINT64_MAX;
    set_quiet(s, s->f, false);
    if (replayed_same)
        *replayed_same = !diverged;
    else if (diverged && diverged != s->replay_warned_at)
        warn_diverged(s, diverged, short_of_answers);
    s->replay_short = false;
    return true;
}

fray_session *fray_session_clone(const fray_session *from)
{
    if (from->replaying || from->recording)
        return NULL; /* in the middle of an entry */
    session *s = fray_session_open(&from->opts);
    if (!s)
        return NULL;
    s->hooks = from->hooks;
    bool ok = true;
    for (size_t i = 0; i < from->nlimits && ok; i++)
        ok = fray_session_set_limit(s, from->limits[i].name, from->limits[i].value) == FRAY_OK;
    s->file_max_steps = from->file_max_steps;
    s->file_max_call_depth = from->file_max_call_depth;
    s->file_max_creatures = from->file_max_creatures;
    s->changes = from->changes;
    s->saved_changes = from->saved_changes;
    s->rerolls = from->rerolls;
    ok = ok && entries_copy(&s->done, &s->ndone, &s->done_cap, from->done, from->ndone) &&
         entries_copy(&s->undone, &s->nundone, &s->undone_cap, from->undone, from->nundone) &&
         checkpoints_copy(s, from);
    /* a copy is the session as it is, or none (a replay cut short by a
       lack of memory is not it) */
    bool same = false;
    if (!ok || !rebuild_checked(s, s->ndone, &same) || !same) {
        fray_session_close(s);
        return NULL;
    }
    return s;
}

/* --- new entries --------------------------------------------------------------------- */

/* The timeline changed: `op` `times` times, then e (NULL: none). Written
 * to the journal as one group, and counted until the next save. */
static void timeline_changed(session *s, const char *op, size_t times, const session_entry *e)
{
    if (!times && !e)
        return;
    s->changes++;
    journal_write(s, op, times, e);
}

/* Runs e, recording the GM's answers; keeps it on success, else rebuilds
 * the state before it. Takes e.
 *
 * A rebuild replays every entry from the first, which in a long session
 * takes seconds. It is not needed when the context held the timeline's
 * state and nothing else before e (settled), and e failed having changed
 * nothing: a command or file that does not parse, with no reseed first. */
static fray_status add_entry(session *s, session_entry e)
{
    bool settled = api_uses(s->f) == s->settled_uses;
    s->recording = &e;
    fray_status st = run_entry(s, &e);
    s->recording = NULL;
    e.files.from = FILES_KEPT; /* from now on it reads what it read this time */
    bool looks = session_entry_looks(&e);
    if (st == FRAY_OK && session_entries_push(&s->done, &s->ndone, &s->done_cap, e)) {
        if (!looks) /* a look changes nothing: what was undone can still be redone */
            session_entries_clear(s->undone, &s->nundone);
        timeline_changed(s, NULL, 0, &e);
        if (settled)
            s->settled_uses = api_uses(s->f);
        checkpoints_maybe(s);
        return FRAY_OK;
    }
    bool unchanged = st != FRAY_OK && settled && e.kind != ENTRY_SEED && !e.reseed && api_failed_unchanged(s->f);
    if (st == FRAY_OK)
        out_of_memory(s);
    session_entry_free(&e);
    if (unchanged)
        s->settled_uses = api_uses(s->f);
    else
        rebuild(s, s->ndone);
    return st == FRAY_OK ? FRAY_ERR_IO : st;
}

fray_status fray_session_command(fray_session *s, const char *text)
{
    size_t len = strlen(text);
    session_entry e = {.kind = ENTRY_COMMAND,
                       .text = mem_strndup(text, len),
                       .len = len,
                       .asked = s->hooks.ask != NULL,
                       .files.from = FILES_NEW};
    if (!e.text) {
        out_of_memory(s);
        return FRAY_ERR_IO;
    }
    return add_entry(s, e);
}

/* Reads a file the GM names, whole: once, a regular file, up to the
 * memory a command may take; false, with the reason reported, when it
 * cannot be. */
static bool read_named_file(session *s, const char *path, char **text, size_t *len)
{
    size_t limit = api_read_limit(s->f);
    int code = fio_read_file(path, limit, text, len);
    if (code != 0) {
        char why[256];
        files_error_text(code, limit, why, sizeof why);
        session_report(s, FRAY_ERROR, path, 0, "cannot read '%s': %s", path, why);
    }
    return code == 0;
}

/* A rules file's text as an entry (takes text). */
static fray_status add_rules(session *s, const char *path, char *text, size_t len)
{
    session_entry e = {.kind = ENTRY_FILE,
                       .path = mem_strndup(path, strlen(path)),
                       .text = text,
                       .len = len,
                       .asked = s->hooks.ask != NULL,
                       .files.from = FILES_NEW};
    if (!e.path) {
        out_of_memory(s);
        session_entry_free(&e);
        return FRAY_ERR_IO;
    }
    return add_entry(s, e);
}

/* A rules argument that is no file: a module by name (`fray repl legend`),
 * added as an entry `use legend`, or neither, said so. True when it was
 * one of them, with *st what came of it. */
static bool module_or_missing(session *s, const char *path, fray_status *st)
{
    text_buf why;
    text_init(&why);
    bool missing = api_rules_missing(s->f, path, &why);
    if (missing)
        session_report(s, FRAY_ERROR, NULL, 0, "%s", why.s);
    text_free(&why);
    if (missing) {
        *st = FRAY_ERR_IO;
        return true;
    }
    if (!fray_names_module(s->f, path))
        return false;
    size_t n = strlen(path) + sizeof "use ";
    char *use = mem_alloc(n);
    if (!use) {
        out_of_memory(s);
        *st = FRAY_ERR_IO;
        return true;
    }
    snprintf(use, n, "use %s", path);
    *st = fray_session_command(s, use);
    mem_free(use, n);
    return true;
}

fray_status fray_session_load_rules(fray_session *s, const char *path)
{
    fray_status st;
    if (module_or_missing(s, path, &st))
        return st;
    char *text;
    size_t len;
    if (!read_named_file(s, path, &text, &len))
        return FRAY_ERR_IO;
    return add_rules(s, path, text, len);
}

fray_status fray_session_reseed(fray_session *s, uint64_t seed)
{
    return add_entry(s, (session_entry){.kind = ENTRY_SEED, .seed = seed});
}

/* --- moving along the timeline ------------------------------------------------------- */

size_t fray_session_undo(fray_session *s, size_t n)
{
    size_t k = 0;
    for (; k < n && s->ndone > 0; k++) {
        if (!session_entries_push(&s->undone, &s->nundone, &s->undone_cap, s->done[s->ndone - 1]))
            break;
        s->ndone--;
    }
    timeline_changed(s, "undo", k, NULL); /* one group: a crash recovers all k or none */
    checkpoints_trim(s, s->ndone);
    if (k)
        rebuild(s, s->ndone);
    return k;
}

size_t fray_session_redo(fray_session *s, size_t n)
{
    bool settled = api_uses(s->f) == s->settled_uses;
    size_t k = 0;
    for (; k < n && s->nundone > 0; k++) {
        session_entry e = s->undone[s->nundone - 1];
        if (replay_entry(s, &e) != FRAY_OK || !session_entries_push(&s->done, &s->ndone, &s->done_cap, e)) {
            rebuild(s, s->ndone); /* cannot happen with unchanged rules: the same entry, the same state */
            break;
        }
        s->nundone--;
    }
    if (settled) /* each entry redone as a rebuild replays it */
        s->settled_uses = api_uses(s->f);
    checkpoints_maybe(s);
    timeline_changed(s, "redo", k, NULL);
    return k;
}

/* A new seed for a reroll: from the session's seed, where the reroll
 * happens and how many came before, so a replay finds the same one. */
static uint64_t reroll_seed(const session *s, const session_entry *old)
{
    uint64_t z = s->opts.seed ^ (0x9e3779b97f4a7c15u * (s->ndone + 1)) ^ (old->reseed ? old->seed : 0x5eed);
    /* and how many rerolls came before in this session, undone ones too:
       a reroll undone and made again draws new dice */
    z ^= 0xd1b54a32d192ed03u * s->rerolls;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

fray_status fray_session_reroll(fray_session *s)
{
    if (s->ndone == 0 || s->done[s->ndone - 1].kind != ENTRY_COMMAND) {
        session_report(s, FRAY_ERROR, NULL, 0, "the last thing done is not a command, so there is nothing to reroll");
        return FRAY_ERR_USAGE;
    }
    /* the old entry goes back where it was on failure: its place is kept */
    session_entry old = s->done[--s->ndone];
    checkpoints_trim(s, s->ndone);
    rebuild(s, s->ndone);
    session_entry e = {.kind = ENTRY_COMMAND,
                       .text = mem_strndup(old.text, old.len),
                       .len = old.len,
                       .reseed = true,
                       .asked = s->hooks.ask != NULL};
    e.seed = reroll_seed(s, &old);
    s->rerolls++;
    /* the same command, on the files it read the first time */
    e.files.from = old.files.from;
    if (!e.text || !kept_files_copy(&e.files.kept, &old.files.kept)) {
        session_entry_free(&e);
        out_of_memory(s);
        session_entries_push(&s->done, &s->ndone, &s->done_cap, old);
        rebuild(s, s->ndone);
        return FRAY_ERR_IO;
    }
    /* run it as new; if it fails, the old roll stands */
    s->recording = &e;
    fray_status st = run_entry(s, &e);
    s->recording = NULL;
    if (st == FRAY_OK && session_entries_push(&s->done, &s->ndone, &s->done_cap, e)) {
        timeline_changed(s, "undo", 1, &e); /* one group: the old roll or the new one */
        session_entries_clear(s->undone, &s->nundone);
        session_entry_free(&old);
        checkpoints_maybe(s);
        return FRAY_OK;
    }
    session_entry_free(&e);
    session_entries_push(&s->done, &s->ndone, &s->done_cap, old);
    rebuild(s, s->ndone);
    return st;
}

fray_status fray_session_run_at(fray_session *s, size_t n, const char *text)
{
    if (n > s->ndone)
        n = s->ndone;
    if (!rebuild(s, n))
        return FRAY_ERR_IO;
    fray_status st = api_run_typed(s->f, text, strlen(text));
    rebuild(s, s->ndone);
    return st;
}

/* --- files ------------------------------------------------------------------------- */

fray_status fray_session_save(fray_session *s, const char *path)
{
    safefile sf;
    int code = safefile_begin(&sf, path, 0666);
    if (code == 0) {
        sfile_writer w;
        sfile_write_session(&w, sf.fd, s);
        sfile_write_end(&w);
        code = sfile_write_finish(&w) ? safefile_commit(&sf, true) : errno;
        safefile_close(&sf);
    }
    if (code != 0) {
        session_report(s, FRAY_ERROR, path, 0, "cannot write %s: %s", path, session_io_error(code));
        return FRAY_ERR_IO;
    }
    s->saved_changes = s->changes;
    return FRAY_OK;
}

bool fray_session_unsaved(const fray_session *s)
{
    return s->changes != s->saved_changes;
}

bool fray_session_is_file(const char *path)
{
    /* a look at its first line that never waits: a pipe is not one */
    int fd = fio_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    if (fd < 0)
        return false;
    struct stat st;
    char head[32];
    ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof head) : -1;
    close(fd);
    return got > 0 && sfile_is_session(head, (size_t)got);
}

/* Exchanges the session's entries and settings with l's (the search path
 * and limits stay the session's: they are this process's; a file's limits
 * can only lower them). */
static void swap_loaded(session *s, sfile_loaded *l)
{
    sfile_loaded mine = {.settings = {.seed = s->opts.seed,
                                      .max_steps = s->file_max_steps,
                                      .max_call_depth = s->file_max_call_depth,
                                      .max_creatures = s->file_max_creatures},
                         .done = s->done,
                         .ndone = s->ndone,
                         .done_cap = s->done_cap,
                         .undone = s->undone,
                         .nundone = s->nundone,
                         .undone_cap = s->undone_cap};
    s->opts.seed = l->settings.seed;
    s->file_max_steps = l->settings.max_steps;
    s->file_max_call_depth = l->settings.max_call_depth;
    s->file_max_creatures = l->settings.max_creatures;
    s->done = l->done;
    s->ndone = l->ndone;
    s->done_cap = l->done_cap;
    s->undone = l->undone;
    s->nundone = l->nundone;
    s->undone_cap = l->undone_cap;
    *l = mine;
}

/* Replaces the session with the one read into l; on failure it is as it
 * was. Frees l. */
static fray_status take_loaded(session *s, sfile_loaded *l)
{
    checkpoints_clear(s); /* of another timeline, and settings */
    swap_loaded(s, l);
    if (!rebuild(s, s->ndone)) {
        swap_loaded(s, l); /* out of memory: back as it was, in the context it kept */
        sfile_loaded_free(l);
        return FRAY_ERR_IO;
    }
    sfile_loaded_free(l);
    return FRAY_OK;
}

/* A saved session, read into l with status st, replaces this one, and the
 * journal starts over from it. */
static fray_status load_read(session *s, fray_status st, sfile_loaded *l)
{
    if (st == FRAY_OK)
        st = take_loaded(s, l);
    if (st == FRAY_OK) {
        s->saved_changes = s->changes; /* it is what the file holds */
        if (s->journal_fd >= 0)
            journal_restart(s);
    }
    return st;
}

fray_status fray_session_load_any(fray_session *s, const char *path, bool *was_session)
{
    char *text;
    size_t len;
    *was_session = false;
    fray_status st;
    if (module_or_missing(s, path, &st))
        return st;
    if (!read_named_file(s, path, &text, &len))
        return FRAY_ERR_IO;
    if (!sfile_is_session(text, len))
        return add_rules(s, path, text, len);
    *was_session = true;
    sfile_loaded l;
    return load_read(s, sfile_parse(s, path, text, len, false, &l), &l);
}

fray_status fray_session_load(fray_session *s, const char *path)
{
    sfile_loaded l;
    return load_read(s, sfile_read(s, path, false, &l), &l);
}

fray_status fray_session_recover(fray_session *s, const char *journal_path)
{
    /* Its lock is taken first, and kept: the journal of a live session is
       not read, and the one read is not taken by another recovery while
       this session puts what it holds in a journal of its own. It is
       never written: removed once that journal is in place. */
    int code, fd = safefile_lock(journal_path, &code);
    if (fd < 0) {
        if (code == EWOULDBLOCK) {
            session_report(s, FRAY_ERROR, journal_path, 0,
                           "%s is the journal of a session still running in another process: not recovered",
                           journal_path);
            return FRAY_ERR_USAGE;
        }
        session_report(s, FRAY_ERROR, journal_path, 0, "cannot read %s: %s", journal_path, session_io_error(code));
        return FRAY_ERR_IO;
    }
    char *path = mem_strndup(journal_path, strlen(journal_path)), *text = NULL;
    size_t len = 0;
    code = path ? fio_read_fd(fd, SFILE_MAX_BYTES, &text, &len) : ENOMEM;
    if (code != 0) {
        session_report(s, FRAY_ERROR, journal_path, 0, "cannot read %s: %s", journal_path, session_io_error(code));
        mem_strfree(path);
        close(fd);
        return FRAY_ERR_IO;
    }
    sfile_loaded l;
    fray_status st = sfile_parse(s, journal_path, text, len, true, &l);
    bool saved = l.ended; /* a save given for a journal: read, and left as it is */
    if (st == FRAY_OK)
        st = take_loaded(s, &l);
    if (st == FRAY_OK)
        s->changes = s->saved_changes + !saved; /* what a journal held is in no save */
    if (st != FRAY_OK || saved) {
        mem_strfree(path);
        close(fd);
        return st;
    }
    /* an earlier recovery's journal is left as it is */
    if (s->recovered_fd >= 0)
        close(s->recovered_fd);
    mem_strfree(s->recovered_path);
    s->recovered_fd = fd;
    s->recovered_path = path;
    if (s->journal_fd >= 0)
        journal_restart(s);
    return FRAY_OK;
}
