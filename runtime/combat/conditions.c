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
#include "runtime/combat/conditions.h"
#include "runtime/combat/world.h"

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
} conditions_entry;

struct conditions_cache {
    conditions_entry *entries; /* per creature */
    size_t cap;
};

void conditions_cache_free(combat *cb)
{
    struct conditions_cache *k = cb->conditions;
    if (!k)
        return;
    if (k->entries)
        mem_free(k->entries, k->cap * sizeof(conditions_entry));
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
            g[i].known = g[i].out_known = false;
    }
    return &k->entries[c];
}

/* Whether what is worked out now may be kept or read: outside a `holds`
   formula and an exact context or display. */
static bool keepable(const vm *v)
{
    return !v->world->cb.in_holds && !v->exact_depth;
}

/* What rolling a die changes (the generator, the faces forced ahead, the
   rolls counted): a formula that rolled is not kept. */
typedef struct dice_mark {
    uint64_t s[4], roll_seq;
    size_t forced;
} dice_mark;

static inline dice_mark dice_now(const vm *v)
{
    return (dice_mark){{v->rng.s[0], v->rng.s[1], v->rng.s[2], v->rng.s[3]}, v->roll_seq, v->forced.n};
}

static inline bool unchanged(const vm *v, uint64_t version, const dice_mark *m)
{
    return v->play_version == version && v->rng.s[0] == m->s[0] && v->rng.s[1] == m->s[1] && v->rng.s[2] == m->s[2] &&
           v->rng.s[3] == m->s[3] && v->roll_seq == m->roll_seq && v->forced.n == m->forced;
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
    dice_mark m = dice_now(v);
    if (!derive(v, c, out, n, at))
        return false;
    conditions_entry *w;
    /* looked up again: working it out may have grown the cache */
    if (keep && unchanged(v, version, &m) && (w = entry_of(v, c))) {
        w->version = version;
        w->generation = v->r->generation;
        w->known = true;
        w->n = *n;
        memcpy(w->h, out, (size_t)*n * sizeof *out);
    }
    return true;
}

bool conditions_out(vm *v, int c, const rexpr *e, bool *out)
{
    const struct conditions_cache *k = v->world->cb.conditions;
    if (k && (size_t)c < k->cap && keepable(v)) {
        const conditions_entry *ce = &k->entries[c];
        if (ce->out_known && ce->out_version == v->play_version && ce->out_generation == v->r->generation) {
            *out = ce->out;
#ifdef FRAY_VERIFY_CACHES
            value x = e->v;
            int64_t steps = v->steps_left;
            v->steps_left = INT64_MAX / 2;
            bool called = e->kind == REXPR_CONST || vm_call(v, e->chunk, c, NULL, 0, &x);
            v->steps_left = steps;
            if (!called || value_truthy(x) != *out) {
                fprintf(stderr,
                        "fray: internal error: whether creature %d is out is stale (a change of the state of "
                        "play did not call vm_play_changed)\n",
                        c);
                abort();
            }
#endif
            return true;
        }
    }
    bool keep = keepable(v);
    uint64_t version = v->play_version;
    dice_mark m = dice_now(v);
    value x;
    if (e->kind == REXPR_CONST)
        x = e->v;
    else if (!vm_call(v, e->chunk, c, NULL, 0, &x))
        return false;
    *out = value_truthy(x);
    conditions_entry *w;
    if (keep && unchanged(v, version, &m) && (w = entry_of(v, c))) {
        w->out_version = version;
        w->out_generation = v->r->generation;
        w->out_known = true;
        w->out = *out;
    }
    return true;
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
    v->world->cb.in_holds++;
    bool ok = rc->holds.kind == REXPR_CONST ? (x = rc->holds.v, true) : vm_call(v, rc->holds.chunk, c, NULL, 0, &x);
    v->world->cb.in_holds--;
    if (!ok)
        return false;
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

bool effects_has(vm *v, int c, int cond, bool *has, span at)
{
    held h[HELD_MAX];
    int n;
    *has = false;
    /* fast path: an applied effect */
    const creature *cr = &v->world->creatures[c];
    if (cond < cr->held_len && cr->held[cond] > 0) {
        *has = true;
        return true;
    }
    if (conditions_known(v, c, cond, has))
        return true;
    if (!conditions_of(v, c, h, &n, at))
        return false;
    for (int i = 0; i < n; i++)
        if (h[i].cond == cond)
            *has = true;
    return true;
}
