/* reorder: voluntary changes of place in the order. `reorder NAME
 * after|before NAME` right after the roll (`reorder start`, downward only),
 * `forfeit` a turn for a new place at the start of the next round
 * (`reorder later`), and the rules' requirements on such moves (`reorder
 * ... requires EXPR`), asked with the entries the creature would land
 * between. A move made emits `reordered(c, old, new)`. */
#include <string.h>

#include "runtime/combat/world.h"

/* The creature of the entry at i of the order, or nothing (past an end, or
   a whole side's turn). */
static value entry_at(const vm *v, int i)
{
    const combat *cb = &v->world->cb;
    if (i < 0 || i >= cb->norder || cb->order[i].creature < 0)
        return value_nil();
    return value_ref(V_CREATURE, 0, cb->order[i].creature);
}

/* The entries c would land between at index `to`, c's own left out. */
static void neighbours(const vm *v, int c, int to, value *above, value *below)
{
    const combat *cb = &v->world->cb;
    int before = to - 1, after = to;
    while (before >= 0 && cb->order[before].creature == c)
        before--;
    while (after < cb->norder && cb->order[after].creature == c)
        after++;
    *above = entry_at(v, before);
    *below = entry_at(v, after);
}

/* Do the rules' requirements on a move of this kind hold? The first that
   does not is told, in the rules' words if they give them. */
static bool requirements_hold(vm *v, int c, uint8_t kind, int to, bool after, int other, bool *ok)
{
    const r_initiative *in = &v->r->initiative;
    value args[2];
    neighbours(v, c, to, &args[0], &args[1]);
    *ok = false;
    for (int i = 0; i < in->nreorder_rules; i++) {
        const r_reorder_rule *rr = &in->reorder_rules[i];
        if (!(rr->kinds & kind))
            continue;
        value w;
        if (!combat_eval(v, &rr->holds, c, args, 2, &w))
            return false;
        if (value_truthy(w))
            continue;
        text_buf cite;
        text_init(&cite);
        combat_cite(v, &rr->from, &cite);
        if (rr->why >= 0) {
            combat_say(v, "%s %s (%s)", world_name(v, c), program_string(v->p, rr->why), cite.s);
        } else {
            /* a long requirement is quoted in part, and says so */
            const source *src = v->p->sources[rr->holds.where.source];
            int len = (int)(rr->holds.where.end - rr->holds.where.start);
            combat_say(v, "%s cannot move %s %s: it requires %.*s%s (%s)", world_name(v, c), after ? "after" : "before",
                       world_name(v, other), len > 80 ? 80 : len, src->text + rr->holds.where.start,
                       len > 80 ? "..." : "", cite.s);
        }
        text_free(&cite);
        return true;
    }
    *ok = true;
    return true;
}

/* c has left place `from` for a new one: the rules may take note of it. */
static bool moved_in_order(vm *v, int c, int from, span at)
{
    value args[3] = {value_ref(V_CREATURE, 0, c), value_int(from), value_int(encounter_index_of(v, c))};
    return events_emit(v, EV_REORDERED, args, 3, at);
}

static bool forfeit(vm *v, int c, bool after, int other, int to, span at)
{
    if (!v->r->initiative.reorder_later)
        return vm_error(v, at, "these rules do not let a creature forfeit a turn to move in the order");
    bool ok;
    if (!requirements_hold(v, c, REORDER_LATER, to, after, other, &ok) || !ok)
        return !v->failed;
    creature *cr = &v->world->creatures[c];
    cr->forfeit = true;
    cr->forfeit_next_to = other;
    cr->forfeit_after = after;
    vm_play_changed(v);
    combat_say(v, "%s will forfeit a turn and move %s %s at the start of the next round", cr->name,
               after ? "after" : "before", world_name(v, other));
    return true;
}

bool encounter_reorder(vm *v, int c, bool after, int other, order_move how, span at)
{
    combat *cb = &v->world->cb;
    int from = encounter_index_of(v, c), next_to = encounter_index_of(v, other);
    if (from < 0 || next_to < 0)
        return vm_error(v, at, "both creatures need a place in the order");
    int to = after ? next_to + 1 : next_to;
    if (how == MOVE_FORFEIT)
        return forfeit(v, c, after, other, to, at);
    if (how == MOVE_REORDER) {
        if (!cb->awaiting_start || !v->r->initiative.reorder_start)
            return vm_error(v, at, "the order can be changed this way only right after it is rolled");
        if (to <= from) {
            text_buf cite;
            text_init(&cite);
            combat_say(v, "%s can only move down the order now (%s)", world_name(v, c),
                       combat_cite(v, &v->r->initiative.reorder_from_origin, &cite));
            text_free(&cite);
            return true;
        }
        bool ok;
        if (!requirements_hold(v, c, REORDER_START, to, after, other, &ok) || !ok)
            return !v->failed;
    }
    if (!encounter_move_entry(v, from, to, at))
        return false;
    combat_say(v, "%s moves %s %s", world_name(v, c), after ? "after" : "before", world_name(v, other));
    if (how == MOVE_HELD)
        return true;
    if (!moved_in_order(v, c, from, at))
        return false;
    initiative_show(v);
    return true;
}

/* Moves promised by forfeited turns happen before the first turn of the
   round; those who were earlier decide last, so they go last. */
bool encounter_apply_forfeits(vm *v, span at)
{
    combat *cb = &v->world->cb;
    for (int i = cb->norder - 1; i >= 0; i--) {
        int c = cb->order[i].creature;
        if (c < 0)
            continue;
        creature *cr = &v->world->creatures[c];
        if (cr->forfeit || cr->forfeit_next_to < 0)
            continue;
        int other = cr->forfeit_next_to;
        cr->forfeit_next_to = -1;
        vm_play_changed(v);
        int from = encounter_index_of(v, c), next_to = encounter_index_of(v, other);
        if (from < 0 || next_to < 0)
            continue;
        if (!encounter_move_entry(v, from, cr->forfeit_after ? next_to + 1 : next_to, at))
            return false;
        combat_say(v, "%s moves %s %s", cr->name, cr->forfeit_after ? "after" : "before", world_name(v, other));
        if (!moved_in_order(v, c, from, at))
            return false;
        i = cb->norder; /* the order changed: look again */
    }
    return true;
}
