/* conditions: which conditions a creature is in, and whether it is out of
 * the fight, kept per creature between two changes of the state of play.
 *
 * A condition holds when it is applied, when its own `holds when` formula
 * says so, or when one that holds implies it (`implies X [when EXPR]`).
 * The formulas may read anything (stats, rulings, the round, who acts,
 * other creatures), so the answer is kept with the state's version
 * (vm.play_version), which every change a formula could read moves on: a
 * stat or variable set, an effect added, ended or counted down, a move, a
 * turn, round or phase, a creature joining or leaving, an answer to a
 * ruling, a line of the transcript, an event (see vm_play_changed's
 * callers). Path-finding, a formula that asks has() of many creatures, a
 * check's modifiers and the tracker, asked between two changes, work it
 * out once.
 *
 * What keeps a kept answer right:
 * - It is kept only when working it out changed nothing: the version is
 *   the same after as before (a formula that set a stat, asked the GM a
 *   ruling or logged a line moved it on), and no die was rolled (the
 *   generator, the forced faces and the roll count are as they were).
 *   Such a formula is worked out each time it is asked, as before.
 * - It is kept and read only outside `holds when` formulas (where the
 *   conditions that hold by themselves do not count) and outside exact
 *   contexts and displays (where rulings are read, not asked).
 * - It names the rules it was worked out under (their generation): rules
 *   added at the table are new formulas.
 * - A copy of the world (world_clone, undo, a checkpoint) starts without
 *   one (combat_clone), and a new vm starts at version 0 with none.
 * Errors are never kept: a formula that fails fails again when asked
 * again, and a cycle (a guard that asks has() of its own creature) is
 * worked out as before, since nothing is kept until it is finished. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/dice_mark.h"
#include "runtime/combat/conditions.h"
#include "runtime/combat/stat_memo.h"
#include "runtime/combat/world.h"
#include "runtime/core/reads_only.h"

static bool derive(vm *v, int c, held *out, int *n, span at);

typedef struct conditions_entry {
    uint64_t version;    /* vm.play_version it was worked out at */
    uint32_t generation; /* of the rules */
    bool known;
    int n;
    held h[HELD_MAX];
    /* whether it is out of the fight (`out when`), kept alike */
    uint64_t out_version;
    uint32_t out_generation;
    bool out_known, out;
    /* and, where `out when` is a formula of stats alone, kept with what
       it read (stat_memo.h): across changes of other things */
    stat_memo out_memo;
} conditions_entry;

struct out_kept {
    uint64_t serial, answers_serial;
    uint32_t generation;
    bool known, out, answers; /* answers: it read rulings, as stat_memo */
};

struct conditions_cache {
    conditions_entry *entries; /* per creature */
    size_t cap;
    /* Whether c is in one condition, worked out alone (in_alone below):
       per creature, a byte per condition (0 not known, 1 no, 2 yes), for
       the version and rules they were worked out at. */
    uint8_t *in;
    size_t in_cap; /* bytes: in_stride per creature */
    int in_stride; /* conditions per creature */
    uint64_t *in_version;
    uint32_t *in_generation;
    size_t in_creatures;
    /* which conditions imply each one (implied_by[first[k] .. first[k+1]))
       as (condition, clause) pairs, for the rules of generation by_generation */
    int *by_first;
    int (*by)[2];
    /* whether each creature is out, where its `out when` read only its own
       stats (and rulings, as stat_memo keeps them): per creature, kept with its serial
       (creature.serial) and the rules' generation; outs_cap entries */
    struct out_kept *outs;
    size_t outs_cap;
    /* whether an answer given for one use waits to be spent, as the
       answers (their serial) and rules stood when looked at */
    bool per_use_known, per_use;
    uint64_t per_use_serial;
    uint32_t per_use_generation;
    int by_count, by_conditions;
    uint32_t by_generation;
    bool by_known;
    /* `holds when` formulas of stats alone, kept with what they read
       (stat_memo.h): per creature, one per condition with a formula, at
       its place in rules.holds_conditions (holds_at: per condition, that
       place or -1), for the rules of generation holds_generation */
    stat_memo *holds_memo;
    size_t holds_creatures;
    int holds_stride;
    int *holds_at;
    int holds_conditions;
    uint32_t holds_generation;
};

static void holds_memo_drop(struct conditions_cache *k)
{
    if (k->holds_memo)
        mem_free(k->holds_memo, k->holds_creatures * (size_t)k->holds_stride * sizeof(stat_memo));
    if (k->holds_at)
        mem_free(k->holds_at, (size_t)k->holds_conditions * sizeof(int));
    k->holds_memo = NULL;
    k->holds_at = NULL;
    k->holds_creatures = 0;
    k->holds_stride = k->holds_conditions = 0;
}

/* The answers worked out alone (in, in_version, in_generation), freed. */
static void answers_drop(struct conditions_cache *k)
{
    if (k->in)
        mem_free(k->in, k->in_cap);
    if (k->in_version)
        mem_free(k->in_version, k->in_creatures * sizeof(uint64_t));
    if (k->in_generation)
        mem_free(k->in_generation, k->in_creatures * sizeof(uint32_t));
    k->in = NULL;
    k->in_version = NULL;
    k->in_generation = NULL;
}

void conditions_cache_free(combat *cb)
{
    struct conditions_cache *k = cb->conditions;
    if (!k)
        return;
    if (k->entries)
        mem_free(k->entries, k->cap * sizeof(conditions_entry));
    answers_drop(k);
    if (k->outs)
        mem_free(k->outs, k->outs_cap * sizeof *k->outs);
    if (k->by_first)
        mem_free(k->by_first, ((size_t)k->by_conditions + 1) * sizeof(int));
    if (k->by)
        mem_free(k->by, (size_t)k->by_count * sizeof *k->by);
    holds_memo_drop(k);
    mem_free(k, sizeof *k);
    cb->conditions = NULL;
}

/* c's entry, made (not known) when there is none; NULL when out of memory,
   and then nothing is kept. */
static conditions_entry *entry_of(vm *v, int c)
{
    combat *cb = &v->world->cb;
    if (!cb->conditions && !(cb->conditions = MEM_NEW(struct conditions_cache)))
        return NULL;
    struct conditions_cache *k = cb->conditions;
    if ((size_t)c >= k->cap) {
        size_t old = k->cap;
        conditions_entry *g = mem_grow(k->entries, sizeof(conditions_entry), &k->cap, (size_t)c + 1);
        if (!g)
            return NULL;
        k->entries = g;
        for (size_t i = old; i < k->cap; i++) /* not the whole entry: its list is written before it is read */
            g[i].known = g[i].out_known = g[i].out_memo.known = false;
    }
    return &k->entries[c];
}

/* Whether what is worked out now may be kept or read: outside a `holds`
   formula and an exact context or display. */
static bool keepable(const vm *v)
{
    return !v->world->cb.in_holds && !v->exact_depth;
}

static const conditions_entry *fresh(vm *v, int c)
{
    const struct conditions_cache *k = v->world->cb.conditions;
    if (!k || (size_t)c >= k->cap || !keepable(v))
        return NULL;
    const conditions_entry *e = &k->entries[c];
    return e->known && e->version == v->play_version && e->generation == v->r->generation ? e : NULL;
}

#ifdef FRAY_VERIFY_CACHES
/* A checking build (CI's sanitizer build defines FRAY_VERIFY_CACHES):
   every answer taken from the cache is worked out again and must be the
   same, so that every test is also a test that no change of the state of
   play forgot to move the version on. */
static void verify_conditions(vm *v, int c, const conditions_entry *e)
{
    held again[HELD_MAX];
    int n = 0;
    /* worked out with a budget of its own: the check spends none of the
       command's steps, so a run with it goes as one without */
    int64_t steps = v->steps_left;
    v->steps_left = INT64_MAX / 2;
    bool same = derive(v, c, again, &n, (span){0}) && n == e->n;
    v->steps_left = steps;
    for (int i = 0; same && i < n; i++)
        same = again[i].cond == e->h[i].cond && again[i].source == e->h[i].source && again[i].effect == e->h[i].effect;
    if (!same) {
        fprintf(stderr,
                "fray: internal error: the conditions kept for creature %d are stale (a change of the state of "
                "play did not call vm_play_changed)\n",
                c);
        abort();
    }
}
#else
static inline void verify_conditions(vm *v, int c, const conditions_entry *e)
{
    (void)v, (void)c, (void)e;
}
#endif

bool conditions_known(vm *v, int c, int cond, bool *in)
{
    const conditions_entry *e = fresh(v, c);
    if (e)
        verify_conditions(v, c, e);
    if (!e)
        return false;
    *in = false;
    for (int i = 0; i < e->n && !*in; i++)
        *in = e->h[i].cond == cond;
    return true;
}

bool conditions_of(vm *v, int c, held *out, int *n, span at)
{
    const conditions_entry *e = fresh(v, c);
    if (e) {
        verify_conditions(v, c, e);
        *n = e->n;
        memcpy(out, e->h, (size_t)e->n * sizeof *out);
        return true;
    }
    bool keep = keepable(v);
    uint64_t version = v->play_version;
    dice_mark m = dice_mark_now(v);
    if (!derive(v, c, out, n, at))
        return false;
    conditions_entry *w;
    /* looked up again: working it out may have grown the cache */
    if (keep && dice_mark_unchanged(v, version, &m) && (w = entry_of(v, c))) {
        w->version = version;
        w->generation = v->r->generation;
        w->known = true;
        w->n = *n;
        memcpy(w->h, out, (size_t)*n * sizeof *out);
    }
    return true;
}

#ifdef FRAY_VERIFY_CACHES
/* A checking build works a kept answer out again: it must be the same. */
static void verify_out(vm *v, int c, const rexpr *e, bool out)
{
    value x = e->v;
    int64_t steps = v->steps_left;
    v->steps_left = INT64_MAX / 2;
    bool called = e->kind == REXPR_CONST || vm_call(v, e->chunk, c, NULL, 0, &x);
    v->steps_left = steps;
    if (!called || value_truthy(x) != out) {
        fprintf(stderr,
                "fray: internal error: whether creature %d is out is stale (a change of the state of "
                "play did not call vm_play_changed, or a stat read was not noted)\n",
                c);
        abort();
    }
}
#else
static inline void verify_out(vm *v, int c, const rexpr *e, bool out)
{
    (void)v, (void)c, (void)e, (void)out;
}
#endif

/* Keeps whether c is out with c's serial, when the memo that says so
   read only c's own stats (and rulings, kept as stat_memo keeps them):
   asked again, it stands while c has not changed, answered before
   anything else (every list of enemies asks it of every creature). */
static void out_keep(vm *v, int c, const stat_memo *m, bool out)
{
    struct conditions_cache *k = v->world->cb.conditions;
    if (!k || !m->known || m->nreads > 1 || (m->nreads == 1 && m->reads[0].creature != c))
        return;
    if ((size_t)c >= k->outs_cap) {
        size_t old = k->outs_cap;
        struct out_kept *g = mem_grow(k->outs, sizeof *k->outs, &k->outs_cap, (size_t)c + 1);
        if (!g)
            return;
        k->outs = g;
        for (size_t i = old; i < k->outs_cap; i++)
            g[i].known = false;
    }
    k->outs[c] = (struct out_kept){.serial = v->world->creatures[c].serial,
                                   .answers_serial = m->answers_serial,
                                   .generation = v->r->generation,
                                   .known = true,
                                   .out = out,
                                   .answers = m->answers};
}

/* conditions_out past its first question (out of line: the first is
   asked far more often, and answers most). */
static __attribute__((noinline)) bool out_worked_out(vm *v, int c, const rexpr *e, bool *out)
{
    const struct conditions_cache *k = v->world->cb.conditions;
    bool keep = keepable(v);
    value x;
    /* inside a formula kept with what it reads (stat_memo.h), what is kept
       here names none of it: worked out again, its reads noted (or else
       nothing is kept) */
    bool recording = v->world->recording != NULL;
    if (k && (size_t)c < k->cap && keep && !recording) {
        const conditions_entry *ce = &k->entries[c];
        if (ce->out_known && ce->out_version == v->play_version && ce->out_generation == v->r->generation) {
            *out = ce->out;
            verify_out(v, c, e, *out);
            return true;
        }
        /* kept with the stats it read (it fits stat_memo, or it would
           not have been kept) */
        if (e->kind == REXPR_CHUNK && stat_memo_get(v, &ce->out_memo, e->chunk, &x)) {
            *out = value_truthy(x);
            verify_out(v, c, e, *out);
            out_keep(v, c, &ce->out_memo, *out); /* which grows outs, not the entries */
            return true;
        }
    }
    uint64_t version = v->play_version;
    dice_mark m = dice_mark_now(v);
    conditions_entry *memo;
    if (e->kind == REXPR_CONST)
        x = e->v;
    else if (keep && stat_memo_fits(v, e->chunk)) {
        {
            stat_memo fresh = {0};
            if (!stat_memo_eval(v, &fresh, e->chunk, c, &x))
                return false;
            /* looked up again: working it out may have grown the cache */
            if (fresh.known && (memo = entry_of(v, c)))
                memo->out_memo = fresh;
            out_keep(v, c, &fresh, value_truthy(x));
        }
    } else {
        if (recording) /* its reads are not noted */
            v->world->recording->spoiled = true;
        if (!vm_call(v, e->chunk, c, NULL, 0, &x))
            return false;
    }
    *out = value_truthy(x);
    conditions_entry *w;
    if (keep && dice_mark_unchanged(v, version, &m) && (w = entry_of(v, c))) {
        w->out_version = version;
        w->out_generation = v->r->generation;
        w->out_known = true;
        w->out = *out;
    }
    return true;
}

bool conditions_out(vm *v, int c, const rexpr *e, bool *out)
{
    const struct conditions_cache *k = v->world->cb.conditions;
    if (k && (size_t)c < k->outs_cap && keepable(v) && !v->world->recording) {
        const struct out_kept *o = &k->outs[c];
        if (o->known && o->serial == v->world->creatures[c].serial && o->generation == v->r->generation &&
            stat_memo_answers_stand(v, o->answers, o->answers_serial)) {
            *out = o->out;
            verify_out(v, c, e, *out);
            return true;
        }
    }
    return out_worked_out(v, c, e, out);
}

/* The kept `holds when` of cond for c (a formula of stats alone), made
   empty for the rules as they stand; NULL when cond has none or out of
   memory. */
static stat_memo *holds_memo_of(vm *v, int c, int cond)
{
    combat *cb = &v->world->cb;
    if (!cb->conditions && !(cb->conditions = MEM_NEW(struct conditions_cache)))
        return NULL;
    struct conditions_cache *k = cb->conditions;
    const rules *r = v->r;
    if (k->holds_generation != r->generation || k->holds_conditions != r->nconditions ||
        k->holds_stride != r->nholds_conditions || !k->holds_at) {
        holds_memo_drop(k);
        if (!r->nconditions || !r->nholds_conditions ||
            !(k->holds_at = mem_alloc((size_t)r->nconditions * sizeof(int))))
            return NULL;
        k->holds_conditions = r->nconditions;
        k->holds_stride = r->nholds_conditions;
        k->holds_generation = r->generation;
        for (int i = 0; i < r->nconditions; i++)
            k->holds_at[i] = -1;
        for (int i = 0; i < r->nholds_conditions; i++)
            k->holds_at[r->holds_conditions[i]] = i;
    }
    if ((size_t)c >= k->holds_creatures) {
        size_t n = v->world->ncreatures > (size_t)c ? v->world->ncreatures : (size_t)c + 1;
        size_t per = (size_t)k->holds_stride;
        stat_memo *grown = mem_alloc(n * per * sizeof(stat_memo));
        if (!grown)
            return NULL;
        if (k->holds_memo)
            memcpy(grown, k->holds_memo, k->holds_creatures * per * sizeof(stat_memo));
        for (size_t i = k->holds_creatures * per; i < n * per; i++)
            grown[i].known = false;
        if (k->holds_memo)
            mem_free(k->holds_memo, k->holds_creatures * per * sizeof(stat_memo));
        k->holds_memo = grown;
        k->holds_creatures = n;
    }
    int at = k->holds_at[cond];
    return at < 0 ? NULL : &k->holds_memo[(size_t)c * (size_t)k->holds_stride + (size_t)at];
}

bool effects_holds_by_itself(vm *v, int c, int cond, bool *yes, span at)
{
    const r_condition *rc = &v->r->conditions[cond];
    *yes = false;
    /* inside a `holds` formula, conditions that hold by themselves do not
       count: one cannot be defined by another, or by itself */
    if (!rexpr_present(&rc->holds) || v->world->cb.in_holds)
        return true;
    value x;
    /* a formula of stats alone stands while what it read does */
    bool memo = rc->holds.kind == REXPR_CHUNK && keepable(v) && stat_memo_fits(v, rc->holds.chunk);
    const stat_memo *kept = memo ? holds_memo_of(v, c, cond) : NULL;
    if (kept && stat_memo_get(v, kept, rc->holds.chunk, &x)) {
        *yes = value_truthy(x);
        for (int i = 0; v->world->recording && i < kept->nreads; i++) /* what it read, the formula around it read */
            stat_memo_note(v, kept->reads[i].creature, true);
        if (v->world->recording && kept->answers)
            v->world->recording->answers = true;
#ifdef FRAY_VERIFY_CACHES
        value again;
        int64_t steps = v->steps_left;
        v->steps_left = INT64_MAX / 2;
        v->world->cb.in_holds++;
        bool called = vm_call(v, rc->holds.chunk, c, NULL, 0, &again);
        v->world->cb.in_holds--;
        v->steps_left = steps;
        if (!called || value_truthy(again) != *yes) {
            fprintf(stderr,
                    "fray: internal error: condition %d kept for creature %d is stale (a stat read not noted)\n", cond,
                    c);
            abort();
        }
#endif
        return true;
    }
    stat_memo fresh = {0};
    if (!memo && rc->holds.kind == REXPR_CHUNK && v->world->recording) /* its reads are not noted */
        v->world->recording->spoiled = true;
    v->world->cb.in_holds++;
    bool ok = rc->holds.kind == REXPR_CONST ? (x = rc->holds.v, true)
              : memo                        ? stat_memo_eval(v, &fresh, rc->holds.chunk, c, &x)
                                            : vm_call(v, rc->holds.chunk, c, NULL, 0, &x);
    v->world->cb.in_holds--;
    if (!ok)
        return false;
    stat_memo *keep;
    if (fresh.known && (keep = holds_memo_of(v, c, cond))) /* looked up again: working it out may move it */
        *keep = fresh;
    *yes = value_truthy(x);
    return true;
}

/* Adds cond unless it is there already; false (with the error) when a
   creature is in more distinct conditions than a check can weigh. */
static bool add_held(vm *v, int c, held *out, int *n, int cond, int by, int32_t index, span at)
{
    /* a condition that stacks counts once for each time it was applied */
    bool each = index >= 0 && v->r->conditions[cond].stacks;
    for (int i = 0; i < *n && !each; i++)
        if (out[i].cond == cond)
            return true;
    if (*n >= HELD_MAX)
        return vm_error(v, at, "%s is in too many conditions at once (limit is %d)", v->world->creatures[c].name,
                        HELD_MAX);
    out[(*n)++] = (held){cond, by, index};
    return true;
}

bool guard_holds(vm *v, const rexpr *when, bool negate, int c, const value *args, int nargs, bool *holds)
{
    *holds = true;
    if (!rexpr_present(when))
        return true;
    value w;
    if (!combat_eval(v, when, c, args, nargs, &w))
        return false;
    *holds = value_truthy(w) != negate;
    return true;
}

/* Every condition c is in now: applied, holding by itself, or implied by
   another (transitively), worked out from the state. */
static bool derive(vm *v, int c, held *out, int *n, span at)
{
    *n = 0;
    const effect *all = v->world->cb.effects;
    for (int32_t i = v->world->creatures[c].effects; i >= 0; i = all[i].next) {
        const effect *e = &all[i];
        if (e->kind == EFF_CONDITION && !add_held(v, c, out, n, e->what, e->source, i, at))
            return false;
    }
    /* the list is newest first: in the order they were applied, they read
       as they happened */
    for (int lo = 0, hi = *n - 1; lo < hi; lo++, hi--) {
        held t = out[lo];
        out[lo] = out[hi];
        out[hi] = t;
    }
    const rules *r = v->r;
    for (int k = 0; k < r->nholds_conditions; k++) {
        bool yes;
        if (!effects_holds_by_itself(v, c, r->holds_conditions[k], &yes, at))
            return false;
        if (yes && !add_held(v, c, out, n, r->holds_conditions[k], -1, -1, at))
            return false;
    }
    for (int k = 0; k < *n; k++) {
        const r_condition *rc = &r->conditions[out[k].cond];
        for (int m = 0; m < rc->nimplies; m++) {
            const r_implies *im = &rc->implies[m];
            bool holds;
            if (!guard_holds(v, &im->when, im->negate, c, NULL, 0, &holds))
                return false;
            if (!holds)
                continue;
            if (!add_held(v, c, out, n, im->condition, out[k].source, -1, at))
                return false;
        }
    }
    return true;
}

/* --- one condition alone --------------------------------------------------------- */

/* Whether an answer given for one use waits to be spent (read, it is
   spent), kept with the answers' serial and the rules. */
static bool per_use_waiting(vm *v)
{
    combat *cb = &v->world->cb;
    struct conditions_cache *k = cb->conditions;
    if (k && k->per_use_known && k->per_use_serial == cb->answers_serial && k->per_use_generation == v->r->generation)
        return k->per_use;
    bool waiting = false;
    for (int i = 0; i < cb->nanswers && !waiting; i++) /* an answer for one use, spent when read */
        waiting = v->r->rulings[cb->answers[i].ruling].per == ASKED_PER_USE;
    if (k) {
        k->per_use_known = true;
        k->per_use = waiting;
        k->per_use_serial = cb->answers_serial;
        k->per_use_generation = v->r->generation;
    }
    return waiting;
}

/* Whether c is in cond can be worked out from what can make it so alone:
 * cond applied, its own `holds when`, or a condition that implies it
 * (and that one's own causes, back through every chain), leaving the
 * rest of c's conditions unasked. The answer is derive's, as a creature
 * is in cond exactly when one of those holds; what could tell the two
 * ways apart is what the formulas not worked out would have done besides
 * giving their value, so this is done only where no formula does anything
 * else (reads_only.h): none rolls, changes play or prints, and a ruling
 * one reads is read where no one is asked and nothing is noted (a quiet
 * run, as `fray sim`'s, with no answer given for one use waiting to be
 * spent). Not inside prob() and its kind, where a ruling
 * read is refused. */
static bool alone_allowed(vm *v)
{
    if (v->exact_depth)
        return false;
    reads_kind k = vm_formulas_reads(v);
    if (k == READS_ONLY)
        return true;
    const combat *cb = &v->world->cb;
    return k == READS_RULINGS && cb->quiet && !v->world->ask && !per_use_waiting(v);
}

/* Which conditions imply each one: by[by_first[k] .. by_first[k + 1]) are
   (condition, clause) pairs, for the rules as they stand. */
static bool implied_by_index(vm *v, struct conditions_cache *k)
{
    const rules *r = v->r;
    if (k->by_known && k->by_generation == r->generation && k->by_conditions == r->nconditions)
        return true;
    if (k->by_first)
        mem_free(k->by_first, ((size_t)k->by_conditions + 1) * sizeof(int));
    if (k->by)
        mem_free(k->by, (size_t)k->by_count * sizeof *k->by);
    k->by_first = NULL;
    k->by = NULL;
    k->by_known = false;
    int total = 0;
    for (int i = 0; i < r->nconditions; i++)
        total += r->conditions[i].nimplies;
    k->by_conditions = r->nconditions;
    k->by_count = total;
    k->by_first = mem_alloc(((size_t)r->nconditions + 1) * sizeof(int));
    k->by = total ? mem_alloc((size_t)total * sizeof *k->by) : NULL;
    if (!k->by_first || (total && !k->by))
        return false;
    memset(k->by_first, 0, ((size_t)r->nconditions + 1) * sizeof(int));
    for (int i = 0; i < r->nconditions; i++)
        for (int m = 0; m < r->conditions[i].nimplies; m++)
            k->by_first[r->conditions[i].implies[m].condition + 1]++;
    for (int i = 0; i < r->nconditions; i++)
        k->by_first[i + 1] += k->by_first[i];
    int *fill = mem_alloc(((size_t)r->nconditions + 1) * sizeof(int));
    if (!fill)
        return false;
    memcpy(fill, k->by_first, ((size_t)r->nconditions + 1) * sizeof(int));
    for (int i = 0; i < r->nconditions; i++)
        for (int m = 0; m < r->conditions[i].nimplies; m++) {
            int to = r->conditions[i].implies[m].condition;
            k->by[fill[to]][0] = i;
            k->by[fill[to]++][1] = m;
        }
    mem_free(fill, ((size_t)r->nconditions + 1) * sizeof(int));
    k->by_generation = r->generation;
    k->by_known = true;
    return true;
}

static bool applied(const vm *v, int c, int cond)
{
    const creature *cr = &v->world->creatures[c];
    if (cond < cr->held_len)
        return cr->held[cond] > 0;
    const effect *all = v->world->cb.effects; /* not counted yet: a condition added at the table */
    for (int32_t i = cr->effects; i >= 0; i = all[i].next)
        if (all[i].kind == EFF_CONDITION && all[i].what == cond)
            return true;
    return false;
}

/* The walk back from one condition: the conditions on its path (a cycle
   of implications supports nothing), and how many steps it may take
   before derive is the cheaper way (a dense web of implications). */
typedef struct alone_walk {
    uint8_t *on_path;
    int steps;
} alone_walk;

enum { ALONE_NO, ALONE_YES, ALONE_FAILED, ALONE_TOO_MANY };
#define ALONE_STEPS 256

static int in_alone(vm *v, int c, int cond, alone_walk *w, const struct conditions_cache *k, span at)
{
    if (w->on_path[cond])
        return ALONE_NO;
    if (++w->steps > ALONE_STEPS)
        return ALONE_TOO_MANY;
    if (v->world->recording) /* what is applied to c moves its serial on */
        stat_memo_note(v, c, true);
    if (applied(v, c, cond))
        return ALONE_YES;
    bool yes;
    if (!effects_holds_by_itself(v, c, cond, &yes, at))
        return ALONE_FAILED;
    if (yes)
        return ALONE_YES;
    w->on_path[cond] = 1;
    int result = ALONE_NO;
    for (int i = k->by_first[cond]; i < k->by_first[cond + 1] && result == ALONE_NO; i++) {
        int from = k->by[i][0];
        result = in_alone(v, c, from, w, k, at);
        if (result == ALONE_YES) {
            const r_implies *im = &v->r->conditions[from].implies[k->by[i][1]];
            bool holds;
            if (v->world->recording && rexpr_present(&im->when)) /* a guard's reads are not noted */
                v->world->recording->spoiled = true;
            if (!guard_holds(v, &im->when, im->negate, c, NULL, 0, &holds))
                result = ALONE_FAILED;
            else if (!holds)
                result = ALONE_NO;
        }
    }
    w->on_path[cond] = 0;
    return result;
}

/* c's bytes of known answers, made when there are none and cleared when
   they are of another version or other rules; NULL when out of memory. */
static uint8_t *answers_of(vm *v, int c)
{
    struct conditions_cache *k = v->world->cb.conditions;
    int stride = v->r->nconditions;
    if (stride != k->in_stride || (size_t)c >= k->in_creatures) {
        size_t n = (size_t)c + 1 > v->world->ncreatures ? (size_t)c + 1 : v->world->ncreatures;
        size_t bytes = n * (size_t)stride;
        uint8_t *in = mem_alloc(bytes ? bytes : 1);
        uint64_t *ver = mem_alloc(n * sizeof(uint64_t));
        uint32_t *gen = mem_alloc(n * sizeof(uint32_t));
        if (!in || !ver || !gen) {
            if (in)
                mem_free(in, bytes ? bytes : 1);
            if (ver)
                mem_free(ver, n * sizeof(uint64_t));
            if (gen)
                mem_free(gen, n * sizeof(uint32_t));
            return NULL;
        }
        answers_drop(k);
        memset(in, 0, bytes ? bytes : 1);
        for (size_t i = 0; i < n; i++)
            ver[i] = UINT64_MAX; /* no version: nothing known */
        k->in = in;
        k->in_cap = bytes ? bytes : 1;
        k->in_version = ver;
        k->in_generation = gen;
        k->in_creatures = n;
        k->in_stride = stride;
    }
    uint8_t *mine = &k->in[(size_t)c * (size_t)stride];
    if (k->in_version[c] != v->play_version || k->in_generation[c] != v->r->generation) {
        memset(mine, 0, (size_t)stride);
        k->in_version[c] = v->play_version;
        k->in_generation[c] = v->r->generation;
    }
    return mine;
}

/* c's answer for cond worked out alone and kept with this version, when
   there is one (answers_of's bytes: 0 none, 1 no, 2 yes); looked up first,
   as it is asked far more often than worked out, and taken where has_alone
   would work one out (alone_allowed): not inside a formula kept with what
   it reads (stat_memo.h), whose reads an answer kept with the version does
   not name, nor inside `holds` or prob(). */
static inline int answer_kept(const vm *v, int c, int cond)
{
    const struct conditions_cache *k = v->world->cb.conditions;
    if (!k || k->in_stride != v->r->nconditions || (size_t)c >= k->in_creatures ||
        k->in_version[c] != v->play_version || k->in_generation[c] != v->r->generation || !keepable(v) ||
        v->world->recording)
        return 0;
    return k->in[(size_t)c * (size_t)k->in_stride + (size_t)cond];
}

/* Whether c is in cond, worked out alone: true with *in, or false with
   *done false when it is better worked out with all the others (not
   allowed here, too tangled, out of memory), or an error. */
static bool has_alone(vm *v, int c, int cond, bool *in, bool *done, span at)
{
    *done = false;
    if (!alone_allowed(v))
        return true;
    combat *cb = &v->world->cb;
    if (!cb->conditions && !(cb->conditions = MEM_NEW(struct conditions_cache)))
        return true;
    struct conditions_cache *k = cb->conditions;
    /* inside a formula kept with what it reads (stat_memo.h), an answer
       kept with the version names none of it: worked out again, noted */
    bool keep = keepable(v) && !v->world->recording;
    int known_here = keep ? answer_kept(v, c, cond) : 0;
    if (known_here) {
        *in = known_here == 2;
        *done = true;
        return true;
    }
    /* inside a formula of the roster, an answer it worked out already:
       noted the first time, the same since (nothing changes as it runs) */
    stat_memo_record *rec = v->world->recording;
    roster_has *asked = NULL;
    if (rec && rec->has_known && keepable(v)) {
        asked = &rec->has_known[((size_t)c * 31 + (size_t)cond) % ROSTER_HAS];
        if (asked->in && asked->c == c && asked->cond == cond && asked->version == v->play_version) {
            *in = asked->in == 2;
            *done = true;
            return true;
        }
    }
    if (!implied_by_index(v, k))
        return true;
    /* the marks of this walk's own (a formula on the way may ask has()
       in turn): on the stack for the usual rules */
    uint8_t small[256];
    size_t nconds = (size_t)v->r->nconditions;
    uint8_t *on_path = nconds <= sizeof small ? small : mem_alloc(nconds);
    if (!on_path)
        return true;
    memset(on_path, 0, nconds);
    alone_walk w = {on_path, 0};
    uint64_t version = v->play_version;
    dice_mark m = dice_mark_now(v);
    int got = in_alone(v, c, cond, &w, k, at);
    if (on_path != small)
        mem_free(on_path, nconds);
    if (got == ALONE_FAILED)
        return false;
    if (got == ALONE_TOO_MANY)
        return true;
    *in = got == ALONE_YES;
    *done = true;
    if (asked && dice_mark_unchanged(v, version, &m))
        *asked = (roster_has){c, cond, version, *in ? 2 : 1};
    uint8_t *known;
    if (keep && dice_mark_unchanged(v, version, &m) && (known = answers_of(v, c)))
        known[cond] = *in ? 2 : 1;
    return true;
}

#ifdef FRAY_VERIFY_CACHES
/* A checking build works every answer out again with all the others. */
static void verify_alone(vm *v, int c, int cond, bool in)
{
    held all[HELD_MAX];
    int n = 0;
    int64_t steps = v->steps_left;
    v->steps_left = INT64_MAX / 2;
    bool worked = derive(v, c, all, &n, (span){0});
    v->steps_left = steps;
    bool again = false;
    for (int i = 0; i < n; i++)
        again = again || all[i].cond == cond;
    if (worked && again != in) {
        fprintf(stderr, "fray: internal error: creature %d is%s in condition %d, worked out alone, but is%s\n", c,
                in ? "" : " not", cond, again ? "" : " not");
        abort();
    }
    if (!worked)
        vm_clear_error(v);
}
#else
static inline void verify_alone(vm *v, int c, int cond, bool in)
{
    (void)v, (void)c, (void)cond, (void)in;
}
#endif

bool effects_has(vm *v, int c, int cond, bool *has, span at)
{
    held h[HELD_MAX];
    int n;
    *has = false;
    if (v->world->recording) {
        /* inside a formula kept with what it reads: worked out alone, its
           reads noted (in_alone), or else nothing is kept */
        bool done;
        if (!has_alone(v, c, cond, has, &done, at))
            return false;
        if (done)
            return true;
        v->world->recording->spoiled = true;
    }
    /* fast paths: an applied effect, an answer kept */
    const creature *cr = &v->world->creatures[c];
    if (cond < cr->held_len && cr->held[cond] > 0) {
        *has = true;
        return true;
    }
    int kept = answer_kept(v, c, cond);
    if (kept && alone_allowed(v)) {
        *has = kept == 2;
        verify_alone(v, c, cond, *has);
        return true;
    }
    if (conditions_known(v, c, cond, has))
        return true;
    bool done;
    if (!has_alone(v, c, cond, has, &done, at))
        return false;
    if (done) {
        verify_alone(v, c, cond, *has);
        return true;
    }
    if (!conditions_of(v, c, h, &n, at))
        return false;
    for (int i = 0; i < n; i++)
        if (h[i].cond == cond)
            *has = true;
    return true;
}
