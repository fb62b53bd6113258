/* session_file: writing and reading saved sessions and journals (the
 * format is described in session_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "runtime/session/session_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "runtime/base/fio.h"
#include "runtime/base/mem.h"

static const char header_word[] = "fray session ";

/* --- checksums ------------------------------------------------------------------ */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static const uint64_t fnv_start = 0xcbf29ce484222325u;

/* --- writing ---------------------------------------------------------------------- */

void sfile_write_start(sfile_writer *w, int fd, uint64_t hash)
{
    *w = (sfile_writer){.fd = fd, .hash = hash};
}

static void flush(sfile_writer *w)
{
    if (!w->error && w->len && !fio_write(w->fd, w->buf, w->len))
        w->error = errno ? errno : EIO;
    w->len = 0;
}

/* Bytes as they are, outside the checksum. */
static void put_raw(sfile_writer *w, const void *data, size_t n)
{
    if (w->error || !n) /* nothing to add, and perhaps no buffer yet */
        return;
    if (w->len + n > w->cap) {
        /* grown as a group needs (most are a line or two), written out
           once it holds SFILE_WRITE_SIZE */
        if (w->len + n > SFILE_WRITE_SIZE) {
            flush(w);
            if (n > SFILE_WRITE_SIZE) { /* a large text goes straight out */
                if (!w->error && !fio_write(w->fd, data, n))
                    w->error = errno ? errno : EIO;
                return;
            }
        }
        size_t want = w->cap ? w->cap : 256;
        while (want < w->len + n)
            want *= 2;
        if (want > w->cap) {
            char *grown = mem_realloc(w->buf, w->cap, want);
            if (!grown) {
                w->error = ENOMEM;
                return;
            }
            w->buf = grown;
            w->cap = want;
        }
    }
    memcpy(w->buf + w->len, data, n);
    w->len += n;
}

bool sfile_write_finish(sfile_writer *w)
{
    flush(w);
    if (w->buf)
        mem_free(w->buf, w->cap);
    w->buf = NULL;
    w->cap = 0;
    errno = w->error;
    return w->error == 0;
}

static void put(sfile_writer *w, const void *data, size_t n)
{
    put_raw(w, data, n);
    w->hash = fnv1a(w->hash, data, n);
}

static void putf(sfile_writer *w, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf) { /* a long path: once more, allocated */
        char *big = mem_alloc((size_t)n + 1);
        if (!big) {
            w->error = w->error ? w->error : ENOMEM;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        put(w, big, (size_t)n);
        mem_free(big, (size_t)n + 1);
        return;
    }
    put(w, buf, (size_t)n);
}

/* Closes a group: what came before holds together. */
static void check(sfile_writer *w)
{
    char line[32];
    int n = snprintf(line, sizeof line, "check %016" PRIx64 "\n", w->hash);
    put_raw(w, line, (size_t)n);
}

/* The files an entry read, after it: `source LEN PATH`, or `source-use
 * NAME LEN PATH` for a module found on the search path for `use NAME`,
 * each followed by the file's bytes. */
static void write_sources(sfile_writer *w, const session_entry *e)
{
    for (size_t i = 0; i < e->files.kept.n; i++) {
        const kept_file *f = &e->files.kept.list[i];
        if (f->module)
            putf(w, "source-use %s %zu %s\n", f->module, f->len, f->path);
        else
            putf(w, "source %zu %s\n", f->len, f->path);
        put(w, f->text, f->len);
        put(w, "\n", 1);
    }
}

static void write_records(sfile_writer *w, const session_entry *e)
{
    switch (e->kind) {
    case ENTRY_COMMAND:
        if (e->reseed)
            putf(w, "reroll %" PRIu64 "\n", e->seed);
        putf(w, "command %zu%s\n", e->len, e->asked ? " asks" : "");
        put(w, e->text, e->len);
        put(w, "\n", 1);
        for (size_t i = 0; i < e->nreplies; i++)
            putf(w, "reply %s\n", e->replies[i]);
        break;
    case ENTRY_FILE:
        putf(w, "file%s %zu %s\n", e->asked ? "-asks" : "", e->len, e->path);
        put(w, e->text, e->len);
        put(w, "\n", 1);
        break;
    case ENTRY_SEED: putf(w, "seed %" PRIu64 "\n", e->seed); break;
    }
    write_sources(w, e);
}

void sfile_write_entry(sfile_writer *w, const session_entry *e)
{
    write_records(w, e);
    check(w);
}

void sfile_write_op(sfile_writer *w, const char *op)
{
    putf(w, "%s\n", op);
    check(w);
}

void sfile_write_group(sfile_writer *w, const char *op, size_t times, const session_entry *e)
{
    for (size_t i = 0; op && i < times; i++)
        putf(w, "%s\n", op);
    if (e)
        write_records(w, e);
    check(w);
}

void sfile_write_end(sfile_writer *w)
{
    put_raw(w, "end\n", 4);
}

void sfile_write_session(sfile_writer *w, int fd, const session *s)
{
    sfile_write_start(w, fd, fnv_start);
    putf(w, "%s%d\n", header_word, SESSION_FORMAT);
    sfile_settings o = session_settings(s);
    putf(w, "option seed %" PRIu64 "\n", o.seed);
    if (o.max_steps)
        putf(w, "option max-steps %" PRIu64 "\n", o.max_steps);
    if (o.max_call_depth)
        putf(w, "option max-depth %d\n", o.max_call_depth);
    if (o.max_creatures)
        putf(w, "option max-creatures %d\n", o.max_creatures);
    check(w);
    for (size_t i = 0; i < s->ndone; i++)
        sfile_write_entry(w, &s->done[i]);
    /* what can be redone: written as done, then undone again */
    for (size_t i = s->nundone; i-- > 0;)
        sfile_write_entry(w, &s->undone[i]);
    for (size_t i = 0; i < s->nundone; i++)
        sfile_write_op(w, "undo");
}

/* --- reading ----------------------------------------------------------------------- */

/* A cursor over the file's bytes. */
typedef struct reader {
    const char *text;
    size_t len, at;
    size_t line; /* of the record being read, for messages */
} reader;

/* The next line (without its newline) in *line, *n; false at the end or at
 * a last line with no newline (cut short). */
static bool next_line(reader *r, const char **line, size_t *n)
{
    if (r->at >= r->len)
        return false;
    const char *start = r->text + r->at, *nl = memchr(start, '\n', r->len - r->at);
    if (!nl)
        return false;
    *line = start;
    *n = (size_t)(nl - start);
    r->at += *n + 1;
    r->line++;
    return true;
}

static bool starts(const char *line, size_t n, const char *word)
{
    size_t k = strlen(word);
    return n >= k && !memcmp(line, word, k);
}

/* The bytes of an entry and the newline after them. */
static char *read_block(reader *r, size_t len)
{
    if (len > r->len - r->at || r->len - r->at - len < 1 || r->text[r->at + len] != '\n')
        return NULL;
    char *text = mem_strndup(r->text + r->at, len); /* freed as len + 1: it may hold NULs */
    if (!text)
        return NULL;
    for (size_t i = 0; i < len; i++)
        r->line += text[i] == '\n';
    r->at += len + 1;
    r->line++;
    return text;
}

static bool number(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

/* A file the last entry read: [NAME ]LEN PATH, then its bytes. */
static bool read_source(reader *r, const char *arg, size_t alen, bool module, session_entry *e)
{
    const char *name = arg;
    size_t name_len = 0;
    if (module) {
        const char *sp = memchr(arg, ' ', alen);
        if (!sp || sp == arg)
            return false;
        name_len = (size_t)(sp - arg);
        alen -= name_len + 1;
        arg = sp + 1;
    }
    const char *path = memchr(arg, ' ', alen);
    uint64_t v;
    if (!path || !number(arg, (size_t)(path - arg), &v) || path + 1 == arg + alen)
        return false;
    path++;
    char *p = mem_strndup(path, (size_t)(arg + alen - path));
    char *m = module ? mem_strndup(name, name_len) : NULL;
    char *text = p && (!module || m) ? read_block(r, (size_t)v) : NULL;
    bool ok = text && kept_files_add(&e->files.kept, p, m, text, (size_t)v);
    mem_strfree(p);
    mem_strfree(m);
    if (text)
        mem_free(text, (size_t)v + 1);
    return ok;
}

typedef struct pending {
    bool rerolled;
    uint64_t reroll;
    /* the last command read, its replies still to come: whether it ends
       what can be redone is known once they have (a look does not) */
    bool unsettled;
} pending;

static void settle(sfile_loaded *l, pending *p)
{
    if (p->unsettled && l->ndone > 0 && !session_entry_looks(&l->done[l->ndone - 1]))
        session_entries_clear(l->undone, &l->nundone);
    p->unsettled = false;
}

/* One record into l; false when it is not one this format knows. */
static bool read_record(reader *r, const char *line, size_t n, sfile_loaded *l, pending *p)
{
    const char *sp = memchr(line, ' ', n);
    size_t wlen = sp ? (size_t)(sp - line) : n;
    const char *arg = sp ? sp + 1 : line + n;
    size_t alen = n - (size_t)(arg - line);
    uint64_t v;
    /* a reply or a kept source belongs to the command before it */
    if (!starts(line, n, "reply ") && !starts(line, n, "source ") && !starts(line, n, "source-use "))
        settle(l, p);
    if (wlen == 7 && starts(line, n, "command")) {
        bool asks = alen > 5 && !memcmp(arg + alen - 5, " asks", 5);
        if (!number(arg, asks ? alen - 5 : alen, &v))
            return false;
        session_entry e = {.kind = ENTRY_COMMAND,
                           .len = (size_t)v,
                           .reseed = p->rerolled,
                           .seed = p->rerolled ? p->reroll : 0,
                           .asked = asks};
        p->rerolled = false;
        e.text = read_block(r, e.len);
        if (!e.text || !session_entries_push(&l->done, &l->ndone, &l->done_cap, e)) {
            session_entry_free(&e);
            return false;
        }
        p->unsettled = true;
        return true;
    }
    if ((wlen == 4 && starts(line, n, "file")) || (wlen == 9 && starts(line, n, "file-asks"))) {
        const char *name = memchr(arg, ' ', alen);
        if (!name || !number(arg, (size_t)(name - arg), &v))
            return false;
        name++;
        session_entry e = {.kind = ENTRY_FILE, .len = (size_t)v, .asked = wlen == 9};
        e.path = mem_strndup(name, strnlen(name, alen - (size_t)(name - arg)));
        e.text = e.path ? read_block(r, e.len) : NULL;
        if (!e.text || !session_entries_push(&l->done, &l->ndone, &l->done_cap, e)) {
            session_entry_free(&e);
            return false;
        }
        session_entries_clear(l->undone, &l->nundone);
        return true;
    }
    if (((wlen == 6 && starts(line, n, "source")) || (wlen == 10 && starts(line, n, "source-use"))) && l->ndone > 0)
        return read_source(r, arg, alen, wlen == 10, &l->done[l->ndone - 1]);
    if (wlen == 5 && starts(line, n, "reply") && l->ndone > 0)
        return session_entry_reply(&l->done[l->ndone - 1], arg, strnlen(arg, alen));
    if (wlen == 6 && starts(line, n, "reroll") && number(arg, alen, &p->reroll))
        return p->rerolled = true;
    if (wlen == 4 && starts(line, n, "seed") && number(arg, alen, &v)) {
        session_entry e = {.kind = ENTRY_SEED, .seed = v};
        if (!session_entries_push(&l->done, &l->ndone, &l->done_cap, e))
            return false;
        session_entries_clear(l->undone, &l->nundone);
        return true;
    }
    /* an entry leaves one list once it has a place in the other */
    if (n == 4 && starts(line, n, "undo") && l->ndone > 0) {
        if (!session_entries_push(&l->undone, &l->nundone, &l->undone_cap, l->done[l->ndone - 1]))
            return false;
        l->ndone--;
        return true;
    }
    if (n == 4 && starts(line, n, "redo") && l->nundone > 0) {
        if (!session_entries_push(&l->done, &l->ndone, &l->done_cap, l->undone[l->nundone - 1]))
            return false;
        l->nundone--;
        return true;
    }
    if (wlen == 6 && starts(line, n, "option")) {
        const char *val = memchr(arg, ' ', alen);
        if (!val)
            return false;
        size_t klen = (size_t)(val - arg), vlen = alen - klen - 1;
        val++;
        if (!number(val, vlen, &v))
            return false;
        if (klen == 4 && !memcmp(arg, "seed", 4))
            l->settings.seed = v;
        else if (klen == 9 && !memcmp(arg, "max-steps", 9))
            l->settings.max_steps = v;
        else if (klen == 9 && !memcmp(arg, "max-depth", 9) && v <= 1000000)
            l->settings.max_call_depth = (int)v;
        else if (klen == 13 && !memcmp(arg, "max-creatures", 13) && v <= 100000000)
            l->settings.max_creatures = (int)v;
        else
            return false;
        return true;
    }
    return false;
}

void sfile_loaded_free(sfile_loaded *l)
{
    session_entries_free(&l->done, &l->ndone, &l->done_cap);
    session_entries_free(&l->undone, &l->nundone, &l->undone_cap);
    *l = (sfile_loaded){0};
}

bool sfile_is_session(const char *text, size_t len)
{
    size_t n = strlen(header_word);
    return len >= n && !memcmp(text, header_word, n);
}

char *sfile_slurp(const char *path, size_t *len)
{
    char *text = NULL;
    return fio_read_file(path, SFILE_MAX_BYTES, &text, len) == 0 ? text : NULL;
}

fray_status sfile_read(const session *s, const char *path, bool journal, sfile_loaded *l)
{
    *l = (sfile_loaded){.settings = session_settings(s)};
    size_t len;
    char *text = NULL;
    int code = fio_read_file(path, SFILE_MAX_BYTES, &text, &len);
    if (code != 0) {
        session_report(s, FRAY_ERROR, path, 0, "cannot read %s: %s", path, session_io_error(code));
        return FRAY_ERR_IO;
    }
    return sfile_parse(s, path, text, len, journal, l);
}

/* Format 2 was written when Fray knew the periods scene, quest and arc
   itself; the files it kept use them undeclared. Its session is replayed
   after a first entry that loads the library declaring them, which a
   later save keeps. */
static bool with_story_periods(sfile_loaded *l)
{
    static const char use[] = "use story_periods";
    session_entry e = {.kind = ENTRY_COMMAND, .len = sizeof use - 1};
    e.text = mem_strndup(use, sizeof use - 1);
    if (!e.text || !session_entries_push(&l->done, &l->ndone, &l->done_cap, e)) {
        session_entry_free(&e);
        return false;
    }
    memmove(l->done + 1, l->done, (l->ndone - 1) * sizeof *l->done);
    l->done[0] = e;
    return true;
}

fray_status sfile_parse(const session *s, const char *path, char *text, size_t len, bool journal, sfile_loaded *l)
{
    const sfile_settings base = session_settings(s);
    *l = (sfile_loaded){.settings = base};
    reader r = {.text = text, .len = len};
    const char *line;
    size_t n;
    uint64_t version;
    if (!next_line(&r, &line, &n) || !starts(line, n, header_word) ||
        !number(line + strlen(header_word), n - strlen(header_word), &version)) {
        session_report(s, FRAY_ERROR, path, 1, "%s is not a saved fray session", path);
        mem_free(text, len + 1);
        return FRAY_ERR_USAGE;
    }
    if (version < 1 || version > SESSION_FORMAT) {
        session_report(s, FRAY_ERROR, path, 1,
                       "%s is a session in format %" PRIu64 ", from %s fray; this one reads formats 1 to %d", path,
                       version, version > SESSION_FORMAT ? "a newer" : "another", SESSION_FORMAT);
        mem_free(text, len + 1);
        return FRAY_ERR_USAGE;
    }
    /* Records are read into `l` group by group; a group whose check fails,
       or one cut short, is where reading stops: `good` is l after the last
       group that held. Groups are kept by re-reading up to there. */
    size_t good_at = 0, good_line = 0, group_start = r.at;
    bool ended = false, broken = false;
    uint64_t hash = fnv1a(fnv_start, text, r.at);
    pending p = {0};
    sfile_loaded scratch = {.settings = base};
    while (!ended && next_line(&r, &line, &n)) {
        if (starts(line, n, "check ")) {
            char want[17];
            snprintf(want, sizeof want, "%016" PRIx64, hash);
            if (n != 22 || memcmp(line + 6, want, 16) != 0) {
                broken = true;
                break;
            }
            good_at = r.at;
            good_line = r.line;
            group_start = r.at;
            continue;
        }
        if (n == 3 && starts(line, n, "end")) {
            ended = r.at == good_at + 4 && group_start == good_at;
            if (!ended)
                broken = true;
            break;
        }
        size_t before = r.at - n - 1;
        if (!read_record(&r, line, n, &scratch, &p)) {
            broken = true;
            break;
        }
        hash = fnv1a(hash, text + before, r.at - before);
    }
    sfile_loaded_free(&scratch);
    bool whole = ended && r.at == len;
    if (!journal && !whole) {
        session_report(s, FRAY_ERROR, path, (int)r.line, "%s is %s: not loaded", path,
                       broken  ? "damaged (a check does not hold)"
                       : ended ? "followed by something else"
                               : "cut short");
        mem_free(text, len + 1);
        return FRAY_ERR_USAGE;
    }
    /* read again, up to the last group that held */
    reader again = {.text = text, .len = good_at};
    next_line(&again, &line, &n);
    p = (pending){0};
    bool read = true;
    while (read && next_line(&again, &line, &n))
        read = starts(line, n, "check ") || read_record(&again, line, n, l, &p);
    settle(l, &p);
    mem_free(text, len + 1);
    if (!read) { /* these records were read once already: out of memory */
        sfile_loaded_free(l);
        l->settings = base;
        session_report(s, FRAY_ERROR, path, 0, "out of memory");
        return FRAY_ERR_IO;
    }
    if (version == 1) /* it kept no files: they are read from disk, as they were then */
        for (size_t i = 0; i < l->ndone + l->nundone; i++)
            (i < l->ndone ? &l->done[i] : &l->undone[i - l->ndone])->files.from = FILES_DISK;
    if (version == 2 && !with_story_periods(l)) {
        sfile_loaded_free(l);
        l->settings = base;
        session_report(s, FRAY_ERROR, path, 0, "out of memory");
        return FRAY_ERR_IO;
    }
    l->ended = ended;
    if (journal && good_at < len && !ended)
        session_report(s, FRAY_NOTE, path, (int)good_line,
                       "%s: read up to line %zu, the last entry that was complete; the rest %s", path, good_line,
                       broken ? "is damaged" : "was cut short");
    return FRAY_OK;
}
