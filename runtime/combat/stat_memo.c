/* stat_memo: a formula of stats alone, kept with the stats it read
 * (stat_memo.h). */
#include "runtime/combat/stat_memo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"
#include "runtime/core/builtins.h"
#include "runtime/core/reads_only.h"

/* Whether one instruction keeps a formula to stats alone: constants,
   locals, self, stat reads, arithmetic, comparisons, branches. */
static bool op_fits(opcode op)
{
    switch (op) {
    case OP_CONST:
    case OP_NIL:
    case OP_TRUE:
    case OP_FALSE:
    case OP_POP:
    case OP_DUP:
    case OP_GET_LOCAL:
    case OP_SET_LOCAL:
    case OP_SELF:
    case OP_GET_STAT:
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_IDIV:
    case OP_NEG:
    case OP_NOT:
    case OP_EQ:
    case OP_NE:
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
    case OP_ASK:
    case OP_ASK_FOR: /* rulings, noted where they are reads (events.c) */
    case OP_JUMP:
    case OP_JUMP_IF_FALSE:
    case OP_AND_JUMP:
    case OP_OR_JUMP:
    case OP_RETURN: return true;
    default: return false;
    }
}

/* has(), too: worked out alone, it notes what it reads (conditions.c) */
static bool chunk_fits(const chunk *c)
{
    for (size_t at = 0; at < c->len; at += 1 + (size_t)opcode_operands[c->code[at]]) {
        if (c->code[at] >= OP_COUNT)
            return false;
        if (c->code[at] == OP_CALL_BUILTIN) {
            if (at + 1 >= c->len || c->code[at + 1] != BI_has)
                return false;
        } else if (!op_fits((opcode)c->code[at]))
            return false;
    }
    return true;
}

/* The byte of what a chunk is, in the world's table: a byte per chunk, two
   bits for each question (0 not asked, 1 yes, 2 no) at shift FITS_STATS
   and FITS_ROSTER (chunks never change once compiled; the table follows
   the program's count, as one-off chunks come and go, and the rules) */
enum { FITS_STATS = 0, FITS_ROSTER = 2 };

static bool stats_fit(vm *v, int chunk_id)
{
    return chunk_fits(v->p->chunks[chunk_id]);
}

static bool fits(vm *v, int chunk_id, int shift, bool (*work_out)(vm *, int))
{
    struct world *w = v->world;
    size_t n = v->p->nchunks;
    if (chunk_id < 0 || (size_t)chunk_id >= n || !v->p->chunks[chunk_id])
        return false;
    if (w->memo_fits_n != n || w->memo_fits_generation != v->r->generation) {
        uint8_t *table = mem_alloc(n);
        if (!table)
            return false;
        memset(table, 0, n);
        if (w->memo_fits)
            mem_free(w->memo_fits, w->memo_fits_n);
        w->memo_fits = table;
        w->memo_fits_n = n;
        w->memo_fits_generation = v->r->generation;
    }
    int k = w->memo_fits[chunk_id] >> shift & 3;
    if (!k) {
        k = work_out(v, chunk_id) ? 1 : 2;
        w->memo_fits[chunk_id] |= (uint8_t)(k << shift);
    }
    return k == 1;
}

bool stat_memo_fits(vm *v, int chunk_id)
{
    return fits(v, chunk_id, FITS_STATS, stats_fit);
}

void stat_memo_note(vm *v, int c, bool plain)
{
    stat_memo_record *rec = v->world->recording;
    if (!plain) {
        rec->spoiled = true;
        return;
    }
    if (rec->roster) /* every creature is named at once (roster_memo) */
        return;
    for (int i = 0; i < rec->n; i++)
        if (rec->reads[i].creature == c)
            return; /* its serial cannot have moved since: the formula changes nothing */
    if (rec->n >= STAT_MEMO_READS) {
        rec->spoiled = true;
        return;
    }
    rec->reads[rec->n++] = (stat_memo_read){c, v->world->creatures[c].serial};
}

bool stat_memo_eval(vm *v, stat_memo *m, int formula, int self, value *out)
{
    stat_memo_record rec = {.n = 0}, *outer = v->world->recording;
    v->world->recording = &rec;
    uint64_t version = v->play_version;
    bool ok = vm_call(v, formula, self, NULL, 0, out);
    v->world->recording = outer;
    if (outer) /* a formula inside another: what it read, the outer read */
        for (int i = 0; i < rec.n; i++)
            stat_memo_note(v, rec.reads[i].creature, true);
    if (outer && rec.spoiled)
        outer->spoiled = true;
    if (outer && rec.answers)
        outer->answers = true;
    m->known = false;
    /* kept only with plain reads and nothing changed; a result that is a
       number, a boolean or nothing (no list or string in a store that a
       command's end clears) */
    if (!ok || rec.spoiled || v->play_version != version ||
        !(out->type == V_BOOL || out->type == V_INT || out->type == V_NIL || out->type == V_FRAC))
        return ok;
    m->known = true;
    m->generation = v->r->generation;
    m->chunk = formula;
    m->result = *out;
    m->nreads = rec.n;
    m->answers = rec.answers;
    m->answers_serial = v->world->cb.answers_serial;
    memcpy(m->reads, rec.reads, (size_t)rec.n * sizeof *rec.reads);
    return true;
}

void stat_memo_free(vm *v)
{
    struct world *w = v->world;
    if (w->memo_fits)
        mem_free(w->memo_fits, w->memo_fits_n);
    w->memo_fits = NULL;
    w->memo_fits_n = 0;
}

/* --- formulas of the roster ------------------------------------------------------------ */

/* Whether one instruction keeps a formula to the roster: what one of stats
   alone may do, calls of formulas of the same kind (looked at in turn),
   lists, creatures by name, members (a creature's side and name, a roll's
   parts, a list's stats), and builtins that read values alone or the
   roster. */
static bool roster_op_fits(const chunk *c, size_t at)
{
    opcode op = (opcode)c->code[at];
    switch (op) {
    case OP_CALL:
    case OP_CALL_CHUNK:
    case OP_INDEX:
    case OP_ITER_NEXT:
    case OP_INTERVAL:
    case OP_LIST:
    case OP_CREATURE: /* by its name: who is in play */
    case OP_GET_MEMBER: return true;
    case OP_CALL_BUILTIN: return vm_builtin_reads(c->code[at + 1]) != BUILTIN_READS_PLAY;
    default: return op_fits(op);
    }
}

/* A walk over the chunks formula reaches, each once. */
static bool roster_fits_walk(vm *v, int formula)
{
    size_t n = v->p->nchunks;
    uint8_t *seen = mem_alloc(n);
    int *todo = mem_alloc(n * sizeof(int));
    bool fits = seen && todo;
    size_t ntodo = 0;
    if (fits) {
        memset(seen, 0, n);
        seen[formula] = 1;
        todo[ntodo++] = formula;
    }
    while (fits && ntodo) {
        const chunk *c = v->p->chunks[todo[--ntodo]];
        for (size_t at = 0; fits && at < c->len; at += 1 + (size_t)opcode_operands[c->code[at]]) {
            if (c->code[at] >= OP_COUNT || at + (size_t)opcode_operands[c->code[at]] >= c->len) {
                fits = false;
                break;
            }
            fits = roster_op_fits(c, at);
            int next = vm_chunk_callee(v, c, at);
            if (fits && next >= 0) {
                if ((size_t)next >= n || !v->p->chunks[next])
                    fits = false;
                else if (!seen[next]) {
                    seen[next] = 1;
                    todo[ntodo++] = next;
                }
            }
        }
    }
    if (seen)
        mem_free(seen, n);
    if (todo)
        mem_free(todo, n * sizeof(int));
    return fits;
}

bool roster_memo_fits(vm *v, int formula)
{
    return fits(v, formula, FITS_ROSTER, roster_fits_walk);
}

/* Who is in play as a formula of the roster may read it: whether there is
   an encounter and an order, the order's entries (creature, side), and each
   creature's presence and side; in *out (grown as needed), its length in
   *n; false when out of memory. */
static size_t roster_entries(const vm *v)
{
    return 4 + 2 * (size_t)v->world->cb.norder + 2 * v->world->ncreatures;
}

/* Who is in play as a formula of the roster may read it, entry by entry:
   whether there is an encounter and an order, the order's entries
   (creature, side), and each creature's presence and side. Written to r
   (roster_entries(v) long), or, with compare, compared with it. */
static bool roster_visit(const vm *v, int32_t *r, bool compare)
{
    const struct world *w = v->world;
    const combat *cb = &w->cb;
    size_t k = 0;
    bool same = true;
#define ROSTER_ENTRY(x)                    \
    do {                                   \
        int32_t entry_ = (int32_t)(x);     \
        if (compare)                       \
            same = same && r[k] == entry_; \
        else                               \
            r[k] = entry_;                 \
        k++;                               \
    } while (0)
    ROSTER_ENTRY(cb->active);
    ROSTER_ENTRY(cb->ordered);
    ROSTER_ENTRY(cb->norder);
    ROSTER_ENTRY(w->ncreatures);
    for (int i = 0; same && i < cb->norder; i++) {
        ROSTER_ENTRY(cb->order[i].creature);
        ROSTER_ENTRY(cb->order[i].side);
    }
    for (size_t c = 0; same && c < w->ncreatures; c++) {
        ROSTER_ENTRY(w->creatures[c].in_play | w->creatures[c].gone << 1);
        ROSTER_ENTRY(w->creatures[c].side);
    }
#undef ROSTER_ENTRY
    return same;
}

/* Whether m's answer stands: the rules, every creature, the answers and who
   is in play as they were. */
static bool roster_memo_stands(vm *v, const roster_memo *m, int formula)
{
    const struct world *w = v->world;
    return m->known && m->chunk == formula && m->generation == v->r->generation && m->serials == w->serials &&
           m->answers_serial == w->cb.answers_serial && stat_memo_answers_stand(v, m->answers, m->answers_serial) &&
           m->nroster == roster_entries(v) && roster_visit(v, m->roster, true);
}

#ifdef FRAY_VERIFY_CACHES
/* A checking build works every kept answer out again: the same, or a
   change of what the formula reads was not followed. */
static void verify_roster(vm *v, int formula, int self, value kept)
{
    int64_t steps = v->steps_left;
    v->steps_left = INT64_MAX / 2;
    value again;
    bool called = vm_call(v, formula, self, NULL, 0, &again);
    v->steps_left = steps;
    if (!called || again.type != kept.type || again.num != kept.num || again.aux != kept.aux) {
        fprintf(stderr, "fray: internal error: the formula of the roster kept for chunk %d is stale\n", formula);
        abort();
    }
}
#else
static inline void verify_roster(vm *v, int formula, int self, value kept)
{
    (void)v, (void)formula, (void)self, (void)kept;
}
#endif

bool roster_memo_call(vm *v, roster_memo **slot, int formula, int self, value *out)
{
    struct world *w = v->world;
    /* not inside another formula kept with its reads, a `holds` formula or
       an exact context (where conditions are answered otherwise) */
    if (w->recording || w->cb.in_holds || v->exact_depth || !roster_memo_fits(v, formula))
        return vm_call(v, formula, self, NULL, 0, out);
    roster_memo *m = *slot;
    if (m && roster_memo_stands(v, m, formula)) {
        *out = m->result;
        verify_roster(v, formula, self, *out);
        return true;
    }
    roster_has has_known[ROSTER_HAS];
    for (int i = 0; i < ROSTER_HAS; i++)
        has_known[i].in = 0;
    stat_memo_record rec = {.roster = true, .has_known = has_known};
    w->recording = &rec;
    uint64_t version = v->play_version;
    int64_t steps = v->steps_left;
    bool ok = vm_call(v, formula, self, NULL, 0, out);
    w->recording = NULL;
    if (m)
        m->known = false;
    /* kept with plain reads alone, nothing changed, a number, a boolean or
       nothing (as stat_memo_eval keeps); and only when it took more steps
       than there are entries in who is in play, which a kept answer is
       checked against: a short formula among many creatures (`ends when
       has(a, dead)` in a mass battle) is worked out again, as cheaply */
    size_t entries = roster_entries(v);
    if (!ok || rec.spoiled || v->play_version != version || (uint64_t)(steps - v->steps_left) < entries ||
        !(out->type == V_BOOL || out->type == V_INT || out->type == V_NIL || out->type == V_FRAC))
        return ok;
    if (!m && !(m = *slot = MEM_NEW(roster_memo)))
        return ok;
    if (entries > m->roster_cap) {
        int32_t *grown = mem_realloc(m->roster, m->roster_cap * sizeof(int32_t), entries * sizeof(int32_t));
        if (!grown)
            return ok;
        m->roster = grown;
        m->roster_cap = entries;
    }
    roster_visit(v, m->roster, false);
    m->nroster = entries;
    m->known = true;
    m->answers = rec.answers;
    m->chunk = formula;
    m->generation = v->r->generation;
    m->serials = w->serials;
    m->answers_serial = w->cb.answers_serial;
    m->result = *out;
    return ok;
}

void roster_memo_free(roster_memo *m)
{
    if (!m)
        return;
    if (m->roster)
        mem_free(m->roster, m->roster_cap * sizeof(int32_t));
    mem_free(m, sizeof *m);
}
