/* log: the transcript of play and what `explain` adds to it. Every line a
 * command prints is kept with the command's number; details (each die, each
 * modifier and the rule it comes from) are kept but only shown by explain.
 * A line that tells something hidden from the players (hidden.c) is kept
 * as such and printed with COMBAT_HIDDEN_MARK before it.
 * The log keeps the last COMBAT_LOG_MOST lines, so a long session uses
 * bounded memory; `show log` says how many earlier lines went. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

/* A log line's text with the count of the logs that hold it. */
typedef struct log_text {
    atomic_size_t refs;
    size_t size;
    char text[];
} log_text;

char *log_text_new(const char *text)
{
    size_t n = strlen(text), size = offsetof(log_text, text) + n + 1;
    log_text *t = mem_alloc(size);
    if (!t)
        return NULL;
    atomic_init(&t->refs, 1);
    t->size = size;
    memcpy(t->text, text, n + 1);
    return t->text;
}

static log_text *text_head(char *text)
{
    return (log_text *)(text - offsetof(log_text, text));
}

char *log_text_share(char *text)
{
    if (text)
        atomic_fetch_add_explicit(&text_head(text)->refs, 1, memory_order_relaxed);
    return text;
}

void log_text_free(char *text)
{
    if (!text)
        return;
    log_text *t = text_head(text);
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
        mem_free(t, t->size);
}

/* Lines in block i of cb's log. */
static int block_lines(const combat *cb, int i)
{
    int n = cb->nlog - i * COMBAT_LOG_BLOCK;
    return n < COMBAT_LOG_BLOCK ? n : COMBAT_LOG_BLOCK;
}

void log_block_release(combat *cb, int i)
{
    log_block *b = cb->log_blocks[i];
    if (!b || atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (int k = 0, n = block_lines(cb, i); k < n; k++)
        log_text_free(b->lines[k].text);
    mem_free(b, sizeof *b);
}

/* Block i of cb's log, cb's own (a copy of it if another log shares it),
   to change; NULL when out of memory. */
static log_block *block_own(combat *cb, int i)
{
    log_block *b = cb->log_blocks[i];
    if (atomic_load_explicit(&b->refs, memory_order_acquire) == 1)
        return b;
    log_block *mine = mem_alloc(sizeof *mine);
    if (!mine)
        return NULL;
    atomic_init(&mine->refs, 1);
    int n = block_lines(cb, i);
    memcpy(mine->lines, b->lines, (size_t)n * sizeof b->lines[0]);
    for (int k = 0; k < n; k++)
        log_text_share(mine->lines[k].text);
    log_block_release(cb, i);
    cb->log_blocks[i] = mine;
    return mine;
}

/* Line i of cb's log, to change; NULL when out of memory. */
static log_line *line_own(combat *cb, int i)
{
    log_block *b = block_own(cb, i / COMBAT_LOG_BLOCK);
    return b ? &b->lines[i % COMBAT_LOG_BLOCK] : NULL;
}

/* Room for one more line at the end of cb's log; false out of memory. */
static bool line_room(combat *cb)
{
    int i = cb->nlog / COMBAT_LOG_BLOCK;
    if (cb->nlog % COMBAT_LOG_BLOCK)
        return block_own(cb, i) != NULL;
    size_t cap = (size_t)cb->log_blocks_cap;
    log_block **g = mem_grow(cb->log_blocks, sizeof *g, &cap, (size_t)i + 1);
    if (!g)
        return false;
    cb->log_blocks = g;
    cb->log_blocks_cap = (int)cap;
    g[i] = mem_alloc(sizeof *g[i]);
    if (!g[i])
        return false;
    atomic_init(&g[i]->refs, 1);
    return true;
}

static bool keep_as(vm *v, bool detail, bool action, bool hidden, const char *text)
{
    combat *cb = &v->world->cb;
    if (cb->quiet)
        return false;
    vm_play_changed(v); /* the transcript is part of the state (explain reads it) */
    if (cb->nlog >= COMBAT_LOG_MOST) {
        /* drop the oldest quarter: whole blocks */
        int drop = COMBAT_LOG_MOST / 4, blocks = drop / COMBAT_LOG_BLOCK;
        int nblocks = (cb->nlog + COMBAT_LOG_BLOCK - 1) / COMBAT_LOG_BLOCK;
        cb->log_dropped += (uint64_t)drop;
        for (int i = 0; i < blocks; i++)
            log_block_release(cb, i);
        memmove(cb->log_blocks, cb->log_blocks + blocks, (size_t)(nblocks - blocks) * sizeof *cb->log_blocks);
        cb->nlog -= drop;
        cb->pending_log = cb->pending_log >= drop ? cb->pending_log - drop : -1;
    }
    char *copy = log_text_new(text);
    if (!copy || !line_room(cb)) {
        log_text_free(copy);
        return false; /* the transcript still printed; only the record is lost */
    }
    int i = cb->nlog++;
    *COMBAT_LOG_AT(cb, i) = (log_line){cb->command_no, detail, action, hidden, copy, false};
    cb->explain_command = cb->command_no; /* explain describes the last command that did something */
    return true;
}

static void keep(vm *v, bool detail, bool hidden, const char *text)
{
    keep_as(v, detail, false, hidden, text);
}

/* A line printed as it is, or with the mark of what is hidden before it. */
static void output(vm *v, const char *line, bool hidden)
{
    if (!v->print)
        return;
    if (!hidden) {
        v->print(v->print_user, line);
        return;
    }
    char small[1100];
    size_t n = strlen(line), size = sizeof COMBAT_HIDDEN_MARK + n;
    char *marked = size <= sizeof small ? small : mem_alloc(size);
    if (!marked) { /* out of memory: the mark alone says what the line was */
        v->print(v->print_user, COMBAT_HIDDEN_MARK);
        return;
    }
    memcpy(marked, COMBAT_HIDDEN_MARK, sizeof COMBAT_HIDDEN_MARK - 1);
    memcpy(marked + sizeof COMBAT_HIDDEN_MARK - 1, line, n + 1);
    v->print(v->print_user, marked);
    if (marked != small)
        mem_free(marked, size);
}

static void print(vm *v, const char *line, bool hidden)
{
    if (!v->world->cb.quiet) {
        vm_play_changed(v);
        output(v, line, hidden);
    }
}

void combat_output(vm *v, const char *line)
{
    output(v, line, hidden_line(v, line, true));
}

void combat_flush_roll(vm *v)
{
    combat *cb = &v->world->cb;
    if (!cb->pending_roll)
        return;
    cb->pending_roll = 0;
    cb->pending_hidden |= hidden_line(v, cb->pending_line, true);
    print(v, cb->pending_line, cb->pending_hidden);
    /* the log holds the line from when it was rolled: bring it up to date */
    if (cb->pending_log >= 0 && cb->pending_log < cb->nlog) {
        char *copy = log_text_new(cb->pending_line);
        log_line *line = copy ? line_own(cb, cb->pending_log) : NULL;
        if (line) {
            log_text_free(line->text);
            line->text = copy;
            line->hidden = cb->pending_hidden;
        } else {
            log_text_free(copy);
        }
    }
    cb->pending_log = -1;
}

/* The pending line from byte `at` on becomes `text`; false out of memory. */
static bool pending_set(combat *cb, size_t at, const char *text)
{
    size_t n = strlen(text);
    char *grown = mem_grow(cb->pending_line, 1, &cb->pending_cap, at + n + 1);
    if (!grown)
        return false;
    cb->pending_line = grown;
    memcpy(grown + at, text, n + 1);
    return true;
}

void combat_pending_add(vm *v, const char *more)
{
    combat *cb = &v->world->cb;
    if (!pending_set(cb, strlen(cb->pending_line), more)) {
        combat_flush_roll(v); /* out of memory: what it has, then the rest on a line of its own */
        combat_say(v, "%s", more);
    }
}

void combat_pending_roll(vm *v, int64_t seq, const char *line)
{
    combat *cb = &v->world->cb;
    combat_flush_roll(v);
    if (cb->quiet)
        return;
    if (!pending_set(cb, 0, line)) { /* out of memory: the line is said as it stands, never cut */
        combat_say(v, "%s", line);
        return;
    }
    cb->pending_roll = seq;
    cb->pending_hidden = hidden_line(v, line, true);
    keep(v, false, cb->pending_hidden, line);
    cb->pending_log = cb->nlog - 1;
}

void combat_say_action(vm *v, const char *line)
{
    if (v->world->cb.quiet)
        return;
    combat_flush_roll(v);
    bool hidden = hidden_line(v, line, true);
    print(v, line, hidden);
    keep_as(v, false, true, hidden, line);
}

void combat_say_line(vm *v, const char *line)
{
    if (v->world->cb.quiet)
        return;
    combat_flush_roll(v);
    bool hidden = hidden_line(v, line, true);
    print(v, line, hidden);
    keep(v, false, hidden, line);
}

void combat_say_for_players(vm *v, const char *line)
{
    if (v->world->cb.quiet)
        return;
    combat_flush_roll(v);
    if (keep_as(v, false, false, false, line)) /* its block is this log's own: it was just written */
        COMBAT_LOG_AT(&v->world->cb, v->world->cb.nlog - 1)->players = true;
}

void combat_print_line(vm *v, const char *line)
{
    if (v->world->cb.quiet)
        return;
    combat_flush_roll(v);
    print(v, line, hidden_line(v, line, false));
}

/* A line of the transcript is never cut: it is formatted into `room` when
   it fits (as nearly all do), else into memory of its own (NULL only when
   there is none; the line is then lost, as keep_as loses a record). Freed
   with line_done. */
typedef struct line_text {
    char *text;
    size_t cap; /* of memory of its own, or 0 */
} line_text;

static line_text line_format(char *room, size_t cap, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int need = vsnprintf(room, cap, fmt, ap);
    line_text t = {room, 0};
    if (need >= 0 && (size_t)need >= cap && (t.text = mem_alloc((size_t)need + 1)) != NULL) {
        t.cap = (size_t)need + 1;
        vsnprintf(t.text, t.cap, fmt, again);
    } else if (need < 0)
        room[0] = '\0';
    va_end(again);
    return t;
}

static void line_done(line_text *t)
{
    if (t->cap)
        mem_free(t->text, t->cap);
}

void combat_say(vm *v, const char *fmt, ...)
{
    if (v->world->cb.quiet)
        return;
    combat_flush_roll(v);
    char room[1024];
    va_list ap;
    va_start(ap, fmt);
    line_text line = line_format(room, sizeof room, fmt, ap);
    va_end(ap);
    if (!line.text)
        return;
    bool hidden = hidden_line(v, line.text, true);
    print(v, line.text, hidden);
    keep(v, false, hidden, line.text);
    line_done(&line);
}

void combat_print(vm *v, const char *fmt, ...)
{
    if (v->world->cb.quiet)
        return;
    combat_flush_roll(v);
    char room[1024];
    va_list ap;
    va_start(ap, fmt);
    line_text line = line_format(room, sizeof room, fmt, ap);
    va_end(ap);
    if (line.text)
        print(v, line.text, hidden_line(v, line.text, false));
    line_done(&line);
}

static void line_emit(vm *v, combat_line *l)
{
    while (l->len > 0 && l->text[l->len - 1] == ' ') /* blanks that padded a column */
        l->text[--l->len] = '\0';
    if (l->say)
        combat_say(v, "%s", l->text);
    else
        combat_print(v, "%s", l->text);
}

void combat_line_add(vm *v, combat_line *l, const char *fmt, ...)
{
    if (v->world->cb.quiet)
        return;
    char room[sizeof l->text];
    va_list ap;
    va_start(ap, fmt);
    line_text whole = line_format(room, sizeof room, fmt, ap);
    va_end(ap);
    if (!whole.text)
        return;
    const char *piece = whole.text, *rest = piece;
    if (l->len > 0 && l->len + strlen(piece) >= sizeof l->text) {
        /* a separator that opens the piece closes the line instead */
        char mark = 0;
        for (; *rest == ',' || *rest == ';' || *rest == ' '; rest++)
            mark = mark ? mark : *rest != ' ' ? *rest : 0;
        if (mark && l->len + 1 < sizeof l->text)
            l->text[l->len++] = mark;
        l->text[l->len] = '\0';
        line_emit(v, l);
        l->len = (size_t)snprintf(l->text, sizeof l->text, "    ");
    }
    l->spilled = false;
    if (l->len + strlen(rest) < sizeof l->text)
        l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "%s", rest);
    else {
        /* a piece longer than a line is a line of its own, whole */
        l->text[l->len] = '\0';
        if (l->say)
            combat_say(v, "%s%s", l->text, rest);
        else
            combat_print(v, "%s%s", l->text, rest);
        l->len = (size_t)snprintf(l->text, sizeof l->text, "    ");
        l->spilled = true;
    }
    line_done(&whole);
}

void combat_line_end(vm *v, combat_line *l)
{
    if (!v->world->cb.quiet && !l->spilled) /* else all of it is out */
        line_emit(v, l);
    l->spilled = false;
    l->len = 0;
    l->text[0] = '\0';
}

void combat_note(vm *v, const char *fmt, ...)
{
    if (v->world->cb.quiet)
        return;
    char room[1024];
    va_list ap;
    va_start(ap, fmt);
    line_text line = line_format(room, sizeof room, fmt, ap);
    va_end(ap);
    if (line.text)
        keep(v, true, hidden_line(v, line.text, true), line.text);
    line_done(&line);
}

const char *combat_cite(vm *v, const origin *o, text_buf *out)
{
    text_clear(out);
    const char *sys = v->p->system_name >= 0 ? program_string(v->p, v->p->system_name) : NULL;
    if (o && o->cite >= 0)
        text_add(out, "%s%s\u00a7 \"%s\"", sys ? sys : "", sys ? " " : "", program_string(v->p, o->cite));
    else if (o && o->decl >= 0 && (size_t)o->decl < v->p->ndecls) {
        const decl *d = &v->p->decls[o->decl];
        const source *src = d->where.source < v->p->nsources ? v->p->sources[d->where.source] : NULL;
        if (src) {
            int line, col;
            source_line_col(src, d->where.start, &line, &col);
            text_add(out, "%s:%d", src->name, line);
        }
    }
    return out->s;
}

static uint32_t text_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Whether the detail at log index i was already explained: a rule read
   again (a ruling's answer, a check's citation) is one line however many
   times the rules read it. seen is an open-addressed set of log indices
   (-1 empty), mask + 1 long, or NULL when out of memory (nothing is left
   out then). */
static bool detail_seen(const combat *cb, int32_t *seen, size_t mask, int i)
{
    if (!seen)
        return false;
    const char *text = COMBAT_LOG_AT(cb, i)->text;
    for (size_t k = text_hash(text) & mask;; k = (k + 1) & mask) {
        if (seen[k] < 0) {
            seen[k] = i;
            return false;
        }
        if (strcmp(COMBAT_LOG_AT(cb, seen[k])->text, text) == 0)
            return true;
    }
}

/* The last command that did something, from its last action on (all of
   it if it took no action), every line with the rules behind it; each
   rule once. */
void combat_explain(vm *v)
{
    combat *cb = &v->world->cb;
    uint32_t which = cb->explain_command;
    bool any = false;
    int from = 0;
    for (int i = 0; i < cb->nlog; i++)
        if (COMBAT_LOG_AT(cb, i)->command == which && COMBAT_LOG_AT(cb, i)->action)
            from = i;
    size_t details = 0;
    for (int i = from; i < cb->nlog; i++)
        details += COMBAT_LOG_AT(cb, i)->command == which && COMBAT_LOG_AT(cb, i)->detail;
    size_t cap = 16;
    while (cap < 2 * details)
        cap *= 2;
    int32_t *seen = details ? mem_alloc(cap * sizeof(int32_t)) : NULL;
    for (size_t k = 0; seen && k < cap; k++)
        seen[k] = -1;
    text_buf line;
    text_init(&line);
    for (int i = from; i < cb->nlog; i++) {
        if (COMBAT_LOG_AT(cb, i)->command != which || COMBAT_LOG_AT(cb, i)->players)
            continue;
        if (COMBAT_LOG_AT(cb, i)->detail && detail_seen(cb, seen, cap - 1, i))
            continue;
        text_clear(&line);
        text_add(&line, "%s%s", COMBAT_LOG_AT(cb, i)->detail ? "    " : "", COMBAT_LOG_AT(cb, i)->text);
        print(v, line.s, combat_log_hidden(v, i));
        any = true;
    }
    text_free(&line);
    if (seen)
        mem_free(seen, cap * sizeof(int32_t));
    if (!any)
        print(v, "nothing to explain: the last command rolled and decided nothing", false);
}

void combat_show_log(vm *v)
{
    combat *cb = &v->world->cb;
    if (cb->log_dropped) {
        char note[160];
        snprintf(note, sizeof note,
                 "(%" PRIu64 " earlier lines of the log are no longer kept: it keeps the last %d, details included)",
                 cb->log_dropped, COMBAT_LOG_MOST);
        print(v, note, false);
    }
    for (int i = 0; i < cb->nlog; i++)
        if (!COMBAT_LOG_AT(cb, i)->detail && !COMBAT_LOG_AT(cb, i)->players)
            print(v, COMBAT_LOG_AT(cb, i)->text, combat_log_hidden(v, i));
}

bool combat_log_hidden(const vm *v, int i)
{
    return COMBAT_LOG_AT(&v->world->cb, i)->hidden || hidden_line(v, COMBAT_LOG_AT(&v->world->cb, i)->text, false);
}

void refusal_init(refusal *r)
{
    text_init(&r->why);
    r->rule = (origin){-1, {0}, -1};
    r->missing = false;
}

void refusal_free(refusal *r)
{
    text_free(&r->why);
}

void refusal_set(refusal *r, const origin *rule, const char *fmt, ...)
{
    if (!r)
        return;
    text_clear(&r->why);
    va_list ap;
    va_start(ap, fmt);
    text_addv(&r->why, fmt, ap);
    va_end(ap);
    r->rule = rule ? *rule : (origin){-1, {0}, -1};
}
