/* effect_index: which conditions can bear on a given stat, check, or on what
 * a creature may do, so that reading a stat does not walk the creature's
 * effects when none of them can change it. A creature under ten conditions
 * that touch only its speed pays nothing for them when its armour is read.
 *
 * For each stat and each check, the index lists the conditions with a
 * modifier for it, and every condition that implies one of those (through
 * any chain of implications): if none of them is applied to the creature or
 * holds by its own formula, no modifier applies. The index is rebuilt when
 * the rules gain declarations (rules.generation). Each creature counts its
 * applied effects per condition (creature.held), so the test costs one
 * look per listed condition, whatever else the creature bears. */
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/conditions.h"
#include "runtime/combat/world.h"

typedef struct effect_index {
    uint32_t generation;
    int ndecls, nchecks;
    int *stat_start;  /* ndecls + 1 offsets into conds */
    int *check_start; /* nchecks + 1 offsets into conds */
    int forbid_start, forbid_end;
    int *conds;
    size_t conds_cap;
} effect_index;

void effect_index_free(combat *cb)
{
    effect_index *x = cb->index;
    if (!x)
        return;
    if (x->stat_start)
        mem_free(x->stat_start, (size_t)(x->ndecls + 1) * sizeof(int));
    if (x->check_start)
        mem_free(x->check_start, (size_t)(x->nchecks + 1) * sizeof(int));
    if (x->conds)
        mem_free(x->conds, x->conds_cap * sizeof(int));
    mem_free(x, sizeof *x);
    cb->index = NULL;
}

/* Marks every condition that implies a marked one, until none is left. */
static void close_over_implies(const rules *r, bool *marked)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (int c = 0; c < r->nconditions; c++) {
            if (marked[c])
                continue;
            const r_condition *rc = &r->conditions[c];
            for (int m = 0; m < rc->nimplies && !marked[c]; m++)
                if (rc->implies[m].condition >= 0 && rc->implies[m].condition < r->nconditions &&
                    marked[rc->implies[m].condition])
                    marked[c] = changed = true;
        }
    }
}

/* What a modifier or refusal bears on: 0 a stat, 1 a check, 2 what may be done. */
static bool bears(const r_condition *rc, bears_kind kind, int index)
{
    if (kind == BEARS_FORBIDS)
        return rc->nforbids > 0 || rc->nprotects > 0;
    for (int m = 0; m < rc->nmods; m++) {
        const r_modifier *mod = &rc->mods[m];
        if (kind == BEARS_STAT && mod->target == MODT_STAT && mod->index == index)
            return true;
        if (kind == BEARS_CHECK && (mod->target == MODT_CHECK || mod->target == MODT_INCOMING) && mod->index == index)
            return true;
    }
    return false;
}

/* Appends the conditions bearing on (kind, index) to the growing list. */
static bool collect(const rules *r, bears_kind kind, int index, bool *marked, int **conds, size_t *cap, int *n)
{
    memset(marked, 0, (size_t)r->nconditions * sizeof(bool));
    bool any = false;
    for (int c = 0; c < r->nconditions; c++)
        any |= marked[c] = bears(&r->conditions[c], kind, index);
    if (!any)
        return true;
    close_over_implies(r, marked);
    for (int c = 0; c < r->nconditions; c++) {
        if (!marked[c])
            continue;
        int *g = mem_grow(*conds, sizeof(int), cap, (size_t)*n + 1);
        if (!g)
            return false;
        *conds = g;
        (*conds)[(*n)++] = c;
    }
    return true;
}

static bool build(vm *v)
{
    const rules *r = v->r;
    effect_index_free(&v->world->cb);
    effect_index *x = MEM_NEW(effect_index);
    bool *marked = MEM_NEW_ARRAY(bool, (size_t)r->nconditions + 1);
    if (!x || !marked) {
        if (x)
            mem_free(x, sizeof *x);
        if (marked)
            mem_free(marked, ((size_t)r->nconditions + 1) * sizeof(bool));
        return false;
    }
    v->world->cb.index = x;
    x->generation = r->generation;
    x->ndecls = (int)v->p->ndecls;
    x->nchecks = r->nchecks;
    x->stat_start = MEM_NEW_ARRAY(int, (size_t)x->ndecls + 1);
    x->check_start = MEM_NEW_ARRAY(int, (size_t)x->nchecks + 1);
    int n = 0;
    bool ok = x->stat_start && x->check_start;
    /* only stats have modifiers aimed at them: other decls get empty lists */
    for (int d = 0; d < x->ndecls && ok; d++) {
        x->stat_start[d] = n;
        if (v->p->decls[d].kind == DK_STAT || v->p->decls[d].kind == DK_RESOURCE)
            ok = collect(r, BEARS_STAT, d, marked, &x->conds, &x->conds_cap, &n);
    }
    if (ok)
        x->stat_start[x->ndecls] = n;
    for (int k = 0; k < x->nchecks && ok; k++) {
        x->check_start[k] = n;
        ok = collect(r, BEARS_CHECK, k, marked, &x->conds, &x->conds_cap, &n);
    }
    if (ok) {
        x->check_start[x->nchecks] = n;
        x->forbid_start = n;
        ok = collect(r, BEARS_FORBIDS, 0, marked, &x->conds, &x->conds_cap, &n);
        x->forbid_end = n;
    }
    mem_free(marked, ((size_t)r->nconditions + 1) * sizeof(bool));
    if (!ok)
        effect_index_free(&v->world->cb);
    return ok;
}

bool effects_none_bear(vm *v, int c, bears_kind kind, int index, bool *none, span at)
{
    *none = false;
    effect_index *x = v->world->cb.index;
    if ((!x || x->generation != v->r->generation || x->ndecls != (int)v->p->ndecls) && !build(v))
        return true; /* without the index, look at every effect: slower, still right */
    x = v->world->cb.index;
    int from, to;
    if (kind == BEARS_STAT) {
        if (index < 0 || index >= x->ndecls)
            return true;
        from = x->stat_start[index], to = x->stat_start[index + 1];
    } else if (kind == BEARS_CHECK) {
        if (index < 0 || index >= x->nchecks)
            return true;
        from = x->check_start[index], to = x->check_start[index + 1];
    } else {
        from = x->forbid_start, to = x->forbid_end;
    }
    /* what holds on c already worked out (conditions.c) answers at once:
       a listed condition among them may bear; none among them, none does */
    bool in;
    if (from < to && conditions_known(v, c, x->conds[from], &in)) {
        for (int k = from; k < to && !in; k++)
            conditions_known(v, c, x->conds[k], &in);
        *none = !in;
        return true;
    }
    const creature *cr = &v->world->creatures[c];
    for (int k = from; k < to; k++) {
        int cond = x->conds[k];
        if (cond >= cr->held_len || cr->held[cond] > 0)
            return true; /* applied (or not counted: assume so) */
        bool yes;
        if (!effects_holds_by_itself(v, c, cond, &yes, at))
            return false;
        if (yes)
            return true;
    }
    *none = true;
    return true;
}
