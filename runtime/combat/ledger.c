/* ledger: the action economy. Each creature counts its uses of every slot
 * per turn and per round; a cost is paid from the slots it names, through
 * exchanges when a slot runs out, within the limits across slots, the
 * exclusivity locks, the surprise round's restriction and the phase a slot
 * belongs to. A refusal names the rule that refuses.
 *
 * A cost is tried on a scratch copy of the creature's counters, so parts of
 * one cost see each other (`move + 2 * bonus` against a shared limit) and a
 * refused cost leaves nothing spent. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

uint32_t ledger_epoch(const vm *v, int c, period per)
{
    switch (per) {
    case PER_TURN: return c >= 0 ? v->world->creatures[c].turn_epoch : v->world->cb.turn_serial;
    case PER_ROUND: return v->world->cb.round_epoch;
    case PER_ENCOUNTER: return v->world->cb.encounters_ended;
    default:
        /* a declared period: how many have ended */
        return per >= PER_DECLARED && (size_t)(per - PER_DECLARED) < v->world->cb.period_ends_cap
                   ? v->world->cb.period_ends[per - PER_DECLARED]
                   : 0;
    }
}

static int32_t get(const counter *k, uint32_t epoch)
{
    return k->epoch == epoch ? k->n : 0;
}

static void add(counter *k, uint32_t epoch, int32_t n)
{
    if (k->epoch != epoch) {
        k->epoch = epoch;
        k->n = 0;
    }
    k->n += n;
}

/* The economy is kept once the order of turns exists. */
static bool enforced(const vm *v)
{
    return v->world->cb.active && v->world->cb.ordered &&
           (v->world->cb.round > 0 || v->world->cb.surprise || v->world->cb.free_round);
}

static const char *slot_name(const vm *v, int s)
{
    return program_string(v->p, v->r->slots[s].name);
}

static bool slot_capacity(vm *v, int c, int s, int *cap, bool *unlimited, span at)
{
    const econ_slot *sl = &v->r->slots[s];
    *unlimited = sl->unlimited;
    *cap = 0;
    if (sl->unlimited)
        return true;
    value n;
    if (sl->count.kind == REXPR_CONST)
        n = sl->count.v;
    else if (sl->count.kind == REXPR_CHUNK) {
        if (!vm_call(v, sl->count.chunk, c, NULL, 0, &n))
            return false;
    } else {
        n = value_int(0);
    }
    if (!value_is_number(n))
        return vm_error(v, at, "slot %s: its count is %s, not a number", slot_name(v, s), value_type_name(n.type));
    int64_t k = value_floor(value_as_frac(n));
    *cap = k < 0 ? 0 : k > 10000 ? 10000 : (int)k;
    return true;
}

/* Where each part of the ledger lives in a counter array. */
typedef struct view {
    vm *v;
    int c;
    counter *k;  /* the counters being tried */
    int pending; /* uses of the slot being taken that this cost took already */
} view;

static counter *slot_turn(view *w, int s)
{
    return &w->k[w->v->world->ledger_slot_turn + s];
}
static counter *slot_round(view *w, int s)
{
    return &w->k[w->v->world->ledger_slot_round + s];
}
static counter *debt(view *w, int s)
{
    return &w->k[w->v->world->ledger_debt + s];
}

static int used(view *w, int s)
{
    const econ_slot *sl = &w->v->r->slots[s];
    const creature *cr = &w->v->world->creatures[w->c];
    return sl->per == PER_ROUND ? get(slot_round(w, s), w->v->world->cb.round_epoch)
                                : get(slot_turn(w, s), cr->turn_epoch);
}

/* Counts one use of slot s in this window (or, borrowing, the next). */
static void spend_one(view *w, int s, bool next_turn)
{
    const creature *cr = &w->v->world->creatures[w->c];
    if (next_turn) {
        add(debt(w, s), cr->turn_epoch, 1);
        return;
    }
    add(slot_turn(w, s), cr->turn_epoch, 1);
    add(slot_round(w, s), w->v->world->cb.round_epoch, 1);
}

/* A use of slot s given up for a slot that borrows it: spent, but no action
   taken, so a per-turn slot counts it in its turn only, not in the round's
   count that per-round limits add up. */
static void forgo_one(view *w, int s)
{
    if (w->v->r->slots[s].per != PER_TURN) {
        spend_one(w, s, false);
        return;
    }
    add(slot_turn(w, s), w->v->world->creatures[w->c].turn_epoch, 1);
}

static bool limits_allow(view *w, int s, refusal *why)
{
    const rules *r = w->v->r;
    for (int i = 0; i < r->nlimits; i++) {
        const econ_limit *lim = &r->limits[i];
        bool has = false;
        for (int j = 0; j < lim->nslots; j++)
            has |= lim->slots[j] == s;
        if (!has)
            continue;
        int total = 0;
        for (int j = 0; j < lim->nslots; j++) {
            int t = lim->slots[j];
            total += lim->per == PER_ROUND ? get(slot_round(w, t), w->v->world->cb.round_epoch)
                                           : get(slot_turn(w, t), w->v->world->creatures[w->c].turn_epoch);
        }
        if (total + 1 > lim->max) {
            text_buf names;
            text_init(&names);
            for (int j = 0; j < lim->nslots; j++)
                text_add(&names, "%s%s", j ? " + " : "", slot_name(w->v, lim->slots[j]));
            refusal_set(why, &lim->from, "at most %d %s per %s (%d taken)", lim->max, names.s,
                        period_name(w->v->p, lim->per), total);
            text_free(&names);
            return false;
        }
    }
    /* the surprise round: one slot of each group */
    const r_initiative *in = &r->initiative;
    if (w->v->world->cb.surprise) {
        for (int g = 0; g < in->nonly_groups; g++) {
            bool has = false;
            for (int j = 0; j < in->only_group_len[g]; j++)
                has |= in->only_groups[g][j] == s;
            if (!has)
                continue;
            int total = 0;
            for (int j = 0; j < in->only_group_len[g]; j++)
                total += get(slot_round(w, in->only_groups[g][j]), w->v->world->cb.round_epoch);
            if (total >= 1) {
                text_buf names;
                text_init(&names);
                for (int j = 0; j < in->only_group_len[g]; j++)
                    text_add(&names, "%s%s", j ? " or " : "", slot_name(w->v, in->only_groups[g][j]));
                refusal_set(why, in->surprise_from.cite >= 0 ? &in->surprise_from : &in->from,
                            "in the surprise round only one %s", names.s);
                text_free(&names);
                return false;
            }
        }
    }
    return true;
}

/* One use of slot s, by an action of `kind`: direct, or through an
   exchange, with everything a slot brings along. */
static bool take_slot(view *w, int s, int kind, bool off_turn, bool borrows_next, refusal *why, bool *took, span at)
{
    *took = false;
    vm *v = w->v;
    const rules *r = v->r;
    const econ_slot *sl = &r->slots[s];
    const creature *cr = &v->world->creatures[w->c];
    if (sl->phase >= 0 && v->world->cb.phase != sl->phase) {
        refusal_set(why, &sl->from, "%s can only be spent in the %s phase", slot_name(v, s),
                    program_string(v->p, r->phases[sl->phase].name));
        return true;
    }
    /* exclusivity: after one kind, only that kind until the next turn */
    for (int i = 0; i < r->nexclusives; i++) {
        const econ_exclusive *ex = &r->exclusives[i];
        if (ex->slot != s)
            continue;
        counter *lock = &w->k[v->world->ledger_lock + i];
        int32_t held = get(lock, cr->turn_epoch);
        if (held && held != kind + 2) {
            const char *mine = kind >= 0 ? program_string(v->p, kind) : "another kind";
            const char *theirs = held >= 2 ? program_string(v->p, held - 2) : "another kind";
            refusal_set(why, &ex->from, "after %s, %s is only for %s until %s's next turn (not %s)", theirs,
                        slot_name(v, s), theirs, cr->name, mine);
            return true;
        }
    }
    bool next_turn = off_turn && borrows_next && sl->per == PER_TURN;
    int cap;
    bool unlimited;
    if (!slot_capacity(v, w->c, s, &cap, &unlimited, at))
        return false;
    int have = next_turn ? get(debt(w, s), cr->turn_epoch) : used(w, s);
    int via = -1;
    if (!unlimited && have + 1 > cap) {
        /* an exchange: give up another slot instead */
        for (int i = 0; i < r->nexchanges && via < 0; i++) {
            const econ_exchange *x = &r->exchanges[i];
            if (x->to_slot != s || next_turn)
                continue;
            int fcap;
            bool funl;
            if (!slot_capacity(v, w->c, x->from_slot, &fcap, &funl, at))
                return false;
            if (!funl && used(w, x->from_slot) + 1 > fcap)
                continue;
            counter *xc = &w->k[v->world->ledger_exchange + i];
            uint32_t ep = ledger_epoch(v, w->c, x->per ? x->per : PER_TURN);
            if (x->limit && get(xc, ep) >= x->limit)
                continue;
            via = i;
        }
        if (via < 0) {
            if (next_turn)
                refusal_set(why, &sl->from, "no %s left in %s's next turn to borrow", slot_name(v, s), cr->name);
            else if (have > cap) /* the extra ones came by exchange */
                refusal_set(why, &sl->from, "no %s left this %s (%d of %d spent, and %d more by exchange)",
                            slot_name(v, s), period_name(v->p, sl->per), cap, cap, have - cap);
            else if (w->pending > 0) /* the cost takes several: say what was spent before it */
                refusal_set(why, &sl->from, "no %s left this %s (%d of %d spent, and this takes %d)", slot_name(v, s),
                            period_name(v->p, sl->per), have - w->pending, cap, w->pending + 1);
            else
                refusal_set(why, &sl->from, "no %s left this %s (%d of %d spent)", slot_name(v, s),
                            period_name(v->p, sl->per), have, cap);
            return true;
        }
    }
    int paid = via >= 0 ? r->exchanges[via].from_slot : s;
    if (!limits_allow(w, s, why))
        return true;
    if (via >= 0) {
        /* the slot given up is spent, and the one gained counts as used */
        const econ_exchange *x = &r->exchanges[via];
        add(&w->k[v->world->ledger_exchange + via], ledger_epoch(v, w->c, x->per ? x->per : PER_TURN), 1);
        spend_one(w, paid, false);
        spend_one(w, s, false);
    } else {
        spend_one(w, s, next_turn);
    }
    for (int i = 0; i < r->nexclusives; i++)
        if (r->exclusives[i].slot == s)
            w->k[v->world->ledger_lock + i] = (counter){kind + 2, cr->turn_epoch};
    /* a slot that borrows another: this turn's if free, else the next's */
    if (sl->borrows >= 0) {
        int b = sl->borrows;
        int bcap;
        bool bunl;
        if (!slot_capacity(v, w->c, b, &bcap, &bunl, at))
            return false;
        bool this_free = bunl || used(w, b) < bcap;
        /* "this turn" is the turn under way or the most recent one; before
           its first turn of the encounter a creature has none (a step is
           not a turn) */
        bool own_turn = !off_turn && cr->turn_begun;
        if (own_turn ? this_free : (sl->borrow_this && cr->turn_begun && this_free)) {
            forgo_one(w, b);
        } else if (!own_turn && sl->borrow_next && (bunl || get(debt(w, b), cr->turn_epoch) < bcap)) {
            spend_one(w, b, true);
        } else if (!own_turn && !cr->turn_begun && !sl->borrow_next) {
            refusal_set(why, &sl->from, "%s takes a %s of %s's last turn, and %s has had no turn in this encounter",
                        slot_name(v, s), slot_name(v, b), cr->name, cr->name);
            return true;
        } else {
            refusal_set(why, &sl->from, "%s takes a %s, and there is none to give up%s", slot_name(v, s),
                        slot_name(v, b), own_turn ? " this turn" : "");
            return true;
        }
    }
    *took = true;
    return true;
}

/* Uses of slot s that the parts of opt before part i take. */
static int uses_before(const cost_option *opt, int i, int s)
{
    int n = 0;
    for (int j = 0; j < i; j++)
        if (opt->parts[j].kind != COST_RESOURCE && opt->parts[j].index == s)
            n += opt->parts[j].n;
    return n;
}

/* `15 ft of movement`: does c have that much of the resource? (A time
   counts against a time of its kind only.) */
static bool amount_enough(vm *v, int c, const cost_part *part, refusal *why, bool *enough)
{
    value have, need = part->amount;
    if (!world_get_stat(v, c, part->index, &have))
        return false;
    if (have.type == V_DIST && need.type == V_DIST)
        *enough = rat_cmp(have, need) >= 0;
    else
        *enough = have.type == V_TIME && need.type == V_TIME && have.home == need.home && have.num >= need.num;
    if (*enough)
        return true;
    char has[64], needs[64];
    vm_format(v, have, has, sizeof has);
    vm_format(v, need, needs, sizeof needs);
    refusal_set(why, NULL, "not enough %s (%s has %s, needs %s)", program_string(v->p, v->p->decls[part->index].name),
                v->world->creatures[c].name, has, needs);
    return true;
}

/* What is left of a resource once an amount is paid. */
static bool amount_less(vm *v, value have, value amount, value *rest, span at)
{
    if (have.type == V_TIME) {
        *rest = value_time((time_kind)have.home, have.num - amount.num);
        return true;
    }
    if (rat_add(have, amount, V_DIST, rest, -1) != ARITH_OK)
        return vm_error(v, at, "number too large in a cost");
    return true;
}

static bool try_on(vm *v, int c, counter *k, const cost_option *opt, int kind, bool off_turn, bool borrows_next,
                   bool slots_free, bool pay, refusal *why, bool *took, span at)
{
    view w = {v, c, k, 0};
    *took = false;
    for (int i = 0; i < opt->nparts; i++) {
        const cost_part *part = &opt->parts[i];
        if (part->kind == COST_RESOURCE && part->amount.type != V_NIL) {
            bool enough;
            if (!amount_enough(v, c, part, why, &enough))
                return false;
            if (!enough)
                return true;
            continue;
        }
        if (part->kind == COST_RESOURCE) {
            value have;
            if (!world_get_stat(v, c, part->index, &have))
                return false;
            if (!value_is_number(have) || value_floor(value_as_frac(have)) < part->n) {
                const decl *d = &v->p->decls[part->index];
                refusal_set(why, NULL, "not enough %s (%s has %lld, needs %d)", program_string(v->p, d->name),
                            v->world->creatures[c].name,
                            (long long)(value_is_number(have) ? value_floor(value_as_frac(have)) : 0), part->n);
                return true;
            }
            continue;
        }
        for (int n = 0; n < part->n && !slots_free; n++) {
            w.pending = uses_before(opt, i, part->index) + n;
            if (!take_slot(&w, part->index, kind, off_turn, borrows_next, why, took, at))
                return false;
            if (!*took)
                return true;
            *took = false;
        }
    }
    *took = true;
    if (!pay)
        return true;
    if (v->world->ledger_len > 0)
        memcpy(v->world->creatures[c].ledger, w.k, (size_t)v->world->ledger_len * sizeof(counter));
    vm_play_changed(v);
    for (int i = 0; i < opt->nparts; i++) {
        const cost_part *part = &opt->parts[i];
        if (part->kind != COST_RESOURCE)
            continue;
        value have;
        if (!world_get_stat(v, c, part->index, &have))
            return false;
        value rest = value_int(value_floor(value_as_frac(have)) - part->n);
        if (part->amount.type != V_NIL && !amount_less(v, have, part->amount, &rest, at))
            return false;
        if (!world_set_stat(v, c, part->index, rest, at))
            return false;
    }
    return true;
}

/* A cost is tried on a copy of c's ledger: the vm's, or, when a formula
   evaluated during a try (a slot's count) tries a cost itself, one of its own. */
static bool try_option(vm *v, int c, const cost_option *opt, int kind, bool off_turn, bool borrows_next,
                       bool slots_free, bool pay, refusal *why, bool *took, span at)
{
    size_t bytes = (size_t)v->world->ledger_len * sizeof(counter);
    bool nested = v->world->ledger_trying;
    counter *k = nested && bytes ? mem_alloc(bytes) : v->world->ledger_try;
    if (nested && bytes && !k)
        return vm_error(v, at, "out of memory");
    if (bytes)
        memcpy(k, v->world->creatures[c].ledger, bytes);
    v->world->ledger_trying = true;
    bool ok = try_on(v, c, k, opt, kind, off_turn, borrows_next, slots_free, pay, why, took, at);
    v->world->ledger_trying = nested;
    if (nested && bytes)
        mem_free(k, bytes);
    return ok;
}

bool ledger_pay(vm *v, int c, const cost *k, int kind, bool anytime, bool borrows_next, bool pay, refusal *why,
                bool *affordable)
{
    span at = k->where;
    *affordable = false;
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    bool off_turn = enforced(v) && !encounter_is_turn_of(v, c);
    if (off_turn && !anytime) {
        int acting = encounter_acting(v);
        if (acting >= 0)
            refusal_set(why, NULL, "it is %s's turn, not %s's", v->world->creatures[acting].name,
                        v->world->creatures[c].name);
        else
            refusal_set(why, NULL, "it is nobody's turn");
        return true;
    }
    if (k->noptions == 0) {
        *affordable = true;
        return true;
    }
    /* before the order of turns exists slots are free; resources are not */
    bool slots_free = !enforced(v);
    /* every way to pay is refused: say why for each (once per reason), so
       "no bonus action left" is not read as the only thing missing */
    refusal all, one;
    refusal_init(&all);
    refusal_init(&one);
    bool fine = true;
    for (int o = 0; o < k->noptions; o++) {
        text_clear(&one.why);
        if (!try_option(v, c, &k->options[o], kind, off_turn, borrows_next, slots_free, pay, &one, affordable, at)) {
            fine = false;
            break;
        }
        if (*affordable)
            break;
        if (o == 0)
            all.rule = one.rule;
        if (!strstr(all.why.s, one.why.s))
            text_add(&all.why, "%s%s", all.why.len ? "; " : "", one.why.s);
    }
    if (fine && !*affordable && why) {
        text_move(&why->why, &all.why);
        why->rule = all.rule;
        why->missing = false;
    }
    refusal_free(&one);
    refusal_free(&all);
    return fine;
}

int ledger_spent(vm *v, int c, int s)
{
    if (!combat_sync(v))
        return 0;
    view w = {v, c, v->world->creatures[c].ledger, 0};
    return w.k ? used(&w, s) : 0;
}

bool ledger_left(vm *v, int c, int s, bool *unlimited, int *left)
{
    int cap;
    if (!slot_capacity(v, c, s, &cap, unlimited, (span){0}))
        return false;
    int rest = cap - ledger_spent(v, c, s);
    *left = rest < 0 ? 0 : rest;
    return true;
}

bool ledger_spend_slot(vm *v, int c, int s, int n, refusal *why, bool *spent)
{
    cost k = {.noptions = 1};
    k.options[0].nparts = 1;
    k.options[0].parts[0] = (cost_part){COST_SLOT, s, n, value_nil()};
    return ledger_pay(v, c, &k, -1, true, false, true, why, spent);
}

void ledger_encounter_start(vm *v, int c)
{
    creature *cr = &v->world->creatures[c];
    cr->turn_epoch++; /* per-turn counts, debts and locks of the last encounter lapse */
    cr->turn_begun = false;
    vm_play_changed(v);
}

void ledger_turn_start(vm *v, int c)
{
    creature *cr = &v->world->creatures[c];
    uint32_t owed = cr->turn_epoch;
    cr->turn_epoch++;
    cr->turn_begun = true;
    vm_play_changed(v);
    if (!cr->ledger)
        return;
    for (int s = 0; s < v->world->ledger_nslots; s++) {
        counter *d = &cr->ledger[v->world->ledger_debt + s];
        counter *t = &cr->ledger[v->world->ledger_slot_turn + s];
        if (d->epoch == owed && d->n > 0) {
            /* what was borrowed is spent already (given up, not taken: a
               per-turn slot's round count, which limits add up, leaves it out) */
            *t = (counter){d->n, cr->turn_epoch};
            if (v->r->slots[s].per != PER_TURN)
                add(&cr->ledger[v->world->ledger_slot_round + s], v->world->cb.round_epoch, d->n);
        }
        d->n = 0;
    }
}

bool ledger_show(vm *v, int c)
{
    if (!combat_sync(v))
        return false;
    const rules *r = v->r;
    text_buf line;
    text_init(&line);
    text_add(&line, "%s may still use:", v->world->creatures[c].name);
    if (r->nslots == 0)
        text_put(&line, " (these rules declare no economy)");
    for (int s = 0; s < r->nslots; s++) {
        bool unl;
        int left;
        if (!ledger_left(v, c, s, &unl, &left)) {
            text_free(&line);
            return false;
        }
        if (unl)
            text_add(&line, "%s %s any", s ? "," : "", slot_name(v, s));
        else
            text_add(&line, "%s %s %d", s ? "," : "", slot_name(v, s), left);
        text_add(&line, " (per %s)", period_name(v->p, r->slots[s].per));
    }
    combat_print(v, "%s", line.s);
    text_free(&line);
    return true;
}
