/* combat_builtins: the built-in functions that read and change the state
 * of play (the COMBAT rows of builtins.def): conditions, the economy, who
 * is in the fight, relations, the grid and zones. Each is a function of
 * its own, found in a table by id; it checks its arguments and hands the
 * work to the module that owns it. */
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/tracks.h"
#include "runtime/combat/world.h"

static const char *const builtin_names[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) #name,
#include "runtime/core/builtins.def"
#undef BUILTIN
};

static bool creature_at(vm *v, int id, const value *args, int i, int *out, span at)
{
    value x = args[i];
    if (x.type != V_CREATURE)
        return vm_error(v, at, "%s() needs a creature as argument %d, not %s", builtin_names[id], i + 1,
                        value_type_name(x.type));
    *out = (int)x.num;
    return true;
}

/* A condition, slot, relation... named by a word value. */
static bool named(vm *v, int id, value x, int (*lookup)(const rules *, int), const char *what, int *out, span at)
{
    if (x.type != V_WORD)
        return vm_error(v, at, "%s() needs a %s, not %s", builtin_names[id], what, value_type_name(x.type));
    *out = lookup(v->r, (int)x.num);
    if (*out < 0)
        return vm_error(v, at, "no %s '%s'", what, program_string(v->p, (int)x.num));
    return true;
}

static bool in_fight(vm *v, int c, bool *yes, span at)
{
    bool out;
    *yes = false;
    if (!world_present(v, c)) /* the cheap test first: `out when` runs a formula */
        return true;
    if (!encounter_out(v, c, &out, at))
        return false;
    *yes = !out;
    return true;
}

/* Adds k to a list of creatures() (everyone in play), enemies(c) or
   allies(c) if it belongs there. */
static bool consider(vm *v, int id, int c, int k, vm_gather *g, span at)
{
    const creature *cr = &v->world->creatures[k];
    bool want;
    switch (id) {
    case BI_creatures: want = world_present(v, k); break;
    case BI_enemies:
    case BI_allies: {
        int sa = v->world->creatures[c].side, sb = cr->side;
        bool enemy = k != c && (sa < 0 || sb < 0 || sa != sb);
        want = k != c && (id == BI_enemies ? enemy : !enemy);
        /* only then whether it still fights: that runs a formula */
        if (want && !in_fight(v, k, &want, at))
            return false;
        break;
    }
    default: want = false; break;
    }
    return !want || vm_gather_add(v, g, value_ref(V_CREATURE, 0, k), at);
}

/* In initiative order when there is one (a side's entry: its members in
   play), then those in play without a place in it (joined later, or
   outside one); else in creation order. Each creature once, at its first
   place (one that joined its side's fight has an entry of its own too). */
static bool creature_list(vm *v, int id, int c, span at, value *out)
{
    combat *cb = &v->world->cb;
    vm_gather g = {0};
    size_t n = v->world->ncreatures;
    if (!cb->ordered) {
        for (size_t k = 0; k < n; k++)
            if (!consider(v, id, c, (int)k, &g, at))
                goto fail;
        return vm_gather_list(v, &g, at, out);
    }
    /* a rule may ask for a list while one is being made (a formula of
       consider's), so the marks are this call's own: on the stack for a
       usual fight, allocated for a mass battle */
    bool small[64] = {false};
    bool *listed = n <= sizeof small ? small : MEM_NEW_ARRAY(bool, n);
    if (!listed) {
        vm_error(v, at, "out of memory");
        goto fail;
    }
    bool ok = true;
    for (int i = 0; ok && i < cb->norder; i++) {
        const entry *e = &cb->order[i];
        size_t first = e->creature >= 0 ? (size_t)e->creature : 0, last = e->creature >= 0 ? first + 1 : n;
        for (size_t k = first; ok && k < last; k++)
            if (!listed[k] &&
                (e->creature >= 0 || (v->world->creatures[k].side == e->side && v->world->creatures[k].in_play))) {
                listed[k] = true;
                ok = consider(v, id, c, (int)k, &g, at);
            }
    }
    for (size_t k = 0; ok && k < n; k++)
        if (!listed[k] && v->world->creatures[k].in_play)
            ok = consider(v, id, c, (int)k, &g, at);
    if (listed != small)
        mem_free(listed, n * sizeof(bool));
    if (ok)
        return vm_gather_list(v, &g, at, out);
fail:
    vm_gather_drop(&g);
    return false;
}

/* A word or a string as the program's string id of its text (zones,
   groups and zones are named by words), or -1. */
static int word_of(const vm *v, value x)
{
    if (x.type != V_WORD && x.type != V_STR)
        return -1;
    return x.home == HOME_PROGRAM ? (int)x.num : program_find_string(v->p, vm_string(v, x));
}

/* --- conditions and the economy --------------------------------------------------- */

static bool builtin_has(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, k = -1;
    bool has;
    if (!creature_at(v, id, args, 0, &a, at) || !named(v, id, args[1], rules_condition, "condition", &k, at) ||
        !effects_has(v, a, k, &has, at))
        return false;
    *out = value_bool(has);
    return true;
}

static bool builtin_apply(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, k = -1;
    if (!creature_at(v, id, args, 0, &a, at) || !named(v, id, args[1], rules_condition, "condition", &k, at))
        return false;
    value lasts = argc > 2 ? args[2] : value_nil();
    int by = argc > 3 && args[3].type == V_CREATURE ? (int)args[3].num : -1;
    if (argc > 3 && args[3].type != V_CREATURE && args[3].type != V_NIL)
        return vm_error(v, at, "apply(): the source is a creature, not %s", value_type_name(args[3].type));
    bool applied;
    if (!effects_apply(v, a, k, lasts, by, at, &applied))
        return false;
    *out = value_bool(applied);
    return true;
}

static bool builtin_remove(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, k = -1;
    bool removed;
    if (!creature_at(v, id, args, 0, &a, at) || !named(v, id, args[1], rules_condition, "condition", &k, at) ||
        !effects_remove(v, a, k, at, &removed))
        return false;
    *out = value_bool(removed);
    return true;
}

/* spent(c, slot) and left(c, slot) */
static bool builtin_spent_left(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, k = -1;
    if (!creature_at(v, id, args, 0, &a, at) || !named(v, id, args[1], rules_slot, "slot", &k, at))
        return false;
    if (id == BI_spent) {
        *out = value_int(ledger_spent(v, a, k));
    } else {
        bool unlimited;
        int left;
        if (!ledger_left(v, a, k, &unlimited, &left))
            return false;
        *out = value_int(unlimited ? 1000000 : left);
    }
    return true;
}

static bool builtin_spend(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, k = -1;
    if (!creature_at(v, id, args, 0, &a, at) || !named(v, id, args[1], rules_slot, "slot", &k, at))
        return false;
    int n = 1;
    if (argc > 2) {
        if ((args[2].type != V_INT && args[2].type != V_ROLL) || args[2].num < 1 || args[2].num > 100)
            return vm_error(v, at, "spend(): how many is a whole number from 1 to 100");
        n = (int)args[2].num;
    }
    refusal why;
    refusal_init(&why);
    bool ok;
    bool fine = ledger_spend_slot(v, a, k, n, &why, &ok);
    if (fine && !ok) {
        text_buf cite;
        text_init(&cite);
        combat_note(v, "%s cannot spend %s: %s (%s)", v->world->creatures[a].name,
                    program_string(v->p, v->r->slots[k].name), why.why.s, combat_cite(v, &why.rule, &cite));
        text_free(&cite);
    }
    refusal_free(&why);
    *out = value_bool(fine && ok);
    return fine;
}

/* --- who is in the fight ----------------------------------------------------------- */

static bool builtin_out(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    bool o;
    if (!creature_at(v, id, args, 0, &a, at) || !encounter_out(v, a, &o, at))
        return false;
    *out = value_bool(o);
    return true;
}

static bool builtin_acted(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    if (!creature_at(v, id, args, 0, &a, at))
        return false;
    *out = value_bool(v->world->creatures[a].acted);
    return true;
}

static bool builtin_acting(vm *v, int id, value *args, int argc, span at, value *out)
{
    int c = encounter_acting(v);
    *out = c >= 0 ? value_ref(V_CREATURE, 0, c) : value_nil();
    return true;
}

static bool builtin_surprised(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    if (!creature_at(v, id, args, 0, &a, at))
        return false;
    *out = value_bool(v->world->cb.active && v->world->creatures[a].surprised);
    return true;
}

static bool builtin_initiator(vm *v, int id, value *args, int argc, span at, value *out)
{
    const combat *cb = &v->world->cb;
    *out = cb->active && cb->initiator >= 0 ? value_ref(V_CREATURE, 0, cb->initiator) : value_nil();
    return true;
}

static bool builtin_round_number(vm *v, int id, value *args, int argc, span at, value *out)
{
    *out = value_int(v->world->cb.active ? v->world->cb.round : 0);
    return true;
}

static bool builtin_phase(vm *v, int id, value *args, int argc, span at, value *out)
{
    int phase = v->world->cb.phase;
    *out =
        phase >= 0 && phase < v->r->nphases ? value_ref(V_WORD, HOME_PROGRAM, v->r->phases[phase].name) : value_nil();
    return true;
}

/* creatures(), enemies(c) and allies(c) */
static bool builtin_creature_list(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    if (id != BI_creatures && !creature_at(v, id, args, 0, &a, at))
        return false;
    return creature_list(v, id, a, at, out);
}

static bool builtin_members(vm *v, int id, value *args, int argc, span at, value *out)
{
    if (args[0].type != V_WORD)
        return vm_error(v, at, "members() needs a side, not %s", value_type_name(args[0].type));
    int side = rules_side(v->r, (int)args[0].num);
    if (side < 0)
        return vm_error(v, at, "no side '%s'", program_string(v->p, (int)args[0].num));
    vm_gather g = {0};
    for (size_t c = 0; c < v->world->ncreatures; c++)
        if (v->world->creatures[c].side == side && world_present(v, (int)c) &&
            !vm_gather_add(v, &g, value_ref(V_CREATURE, 0, (int64_t)c), at)) {
            vm_gather_drop(&g);
            return false;
        }
    return vm_gather_list(v, &g, at, out);
}

static bool builtin_sides_standing(vm *v, int id, value *args, int argc, span at, value *out)
{
    size_t nsides = (size_t)v->r->nsides;
    bool *seen = nsides ? MEM_NEW_ARRAY(bool, nsides) : NULL;
    if (nsides && !seen)
        return vm_error(v, at, "out of memory");
    int64_t n = 0;
    bool ok = true;
    for (size_t c = 0; ok && c < v->world->ncreatures; c++) {
        bool yes;
        if (!(ok = in_fight(v, (int)c, &yes, at)) || !yes)
            continue;
        /* a creature with no side is a side of its own */
        int side = v->world->creatures[c].side;
        if (side < 0 || (size_t)side >= nsides)
            n++;
        else if (!seen[side]) {
            seen[side] = true;
            n++;
        }
    }
    if (seen)
        mem_free(seen, nsides * sizeof(bool));
    *out = value_int(n);
    return ok;
}

static bool builtin_cancel(vm *v, int id, value *args, int argc, span at, value *out)
{
    /* it unwinds to the action being taken, which then stops */
    if (v->world->cb.actor < 0)
        return vm_error(v, at, "cancel() stops an action as it is taken, and no action is being taken here");
    v->world->cb.cancelled = true;
    return vm_error(v, at, "cancelled");
}

static bool builtin_can(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, k = -1;
    if (!creature_at(v, id, args, 0, &a, at) || !named(v, id, args[1], rules_action, "action", &k, at))
        return false;
    refusal why;
    refusal_init(&why);
    bool yes;
    bool fine = act_can(v, a, k, args + 2, argc - 2, &why, &yes, at);
    refusal_free(&why);
    *out = value_bool(fine && yes);
    return fine;
}

/* --- relations --------------------------------------------------------------------- */

/* relate(relation, a, b [, duration]), unrelate(relation, a [, b]) and
   related(...): a group relation is kept by its groups, a pair by effects */
static bool builtin_relation(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, b = -1, k = -1;
    if (!named(v, id, args[0], rules_relation, "relation", &k, at) || !creature_at(v, id, args, 1, &a, at) ||
        (argc > 2 && !creature_at(v, id, args, 2, &b, at)))
        return false;
    bool group = v->r->relations[k].group, done = false;
    if (id == BI_related)
        done = group ? groups_related(v, k, a, b) : effects_related(v, k, a, b);
    else if (id == BI_relate) {
        if (group && argc > 3 && args[3].type != V_NIL)
            return vm_error(v, at, "%s is a group relation: it lasts as long as its members stay in it",
                            program_string(v->p, v->r->relations[k].name));
        if (group ? !groups_relate(v, k, a, b, at, &done)
                  : !effects_relate(v, k, a, b, argc > 3 ? args[3] : value_nil(), at, &done))
            return false;
    } else if (group    ? !groups_unrelate(v, k, a, b, at, &done)
               : b >= 0 ? !effects_unrelate(v, k, a, b, at, &done)
                        : !effects_unrelate_all(v, k, a, NULL, at, &done))
        return false;
    *out = value_bool(done);
    return true;
}

/* partners(relation, a) and holders(relation, b) */
static bool builtin_partners_holders(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, k = -1;
    if (!named(v, id, args[0], rules_relation, "relation", &k, at) || !creature_at(v, id, args, 1, &a, at))
        return false;
    if (v->r->relations[k].group)
        return groups_members(v, k, a, out, at);
    return effects_partners(v, k, a, id == BI_holders, out, at);
}

/* --- the grid ---------------------------------------------------------------------- */

static bool builtin_distance(vm *v, int id, value *args, int argc, span at, value *out)
{
    return grid_distance(v, args[0], args[1], out, at);
}

static bool builtin_within(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, b = -1, k = -1;
    bool ok;
    if (!creature_at(v, id, args, 0, &a, at) || !creature_at(v, id, args, 1, &b, at) ||
        !named(v, id, args[2], rules_range, "range", &k, at) || !grid_within(v, a, b, k, &ok, at))
        return false;
    *out = value_bool(ok);
    return true;
}

static bool builtin_adjacent(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, b = -1;
    if (!creature_at(v, id, args, 0, &a, at) || !creature_at(v, id, args, 1, &b, at))
        return false;
    *out = value_bool(grid_adjacent(v, a, b));
    return true;
}

static bool builtin_threatens(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    bool ok;
    if (!creature_at(v, id, args, 0, &a, at) || !grid_threatens(v, a, args[1], &ok, at))
        return false;
    *out = value_bool(ok);
    return true;
}

/* The level of cover of b attacked by a (-1: unseen). */
static bool cover_level(vm *v, int id, value *args, int argc, int *level, span at)
{
    int a = -1, b = -1;
    if (v->r->space.cover.from == COVER_UNDECLARED)
        return vm_error(v, at,
                        "these rules do not say how cover is found; declare it: space grid { cover from corners }");
    return creature_at(v, id, args, 0, &a, at) && creature_at(v, id, args, 1, &b, at) &&
           grid_cover(v, a, b, argc > 2 ? args[2] : value_nil(), level, at);
}

/* A level's place in the rules' order; unseen comes after them all. */
static bool builtin_cover_rank(vm *v, int id, value *args, int argc, span at, value *out)
{
    const r_space *sp = &v->r->space;
    int level;
    if (argc >= 2) {
        if (!cover_level(v, id, args, argc, &level, at))
            return false;
        *out = value_int(level < 0 ? sp->cover.nlevels : level);
        return true;
    }
    if (args[0].type != V_WORD && args[0].type != V_STR)
        return vm_error(v, at, "cover_rank() needs a level of cover (as in \"half\") or two creatures, not %s",
                        value_type_name(args[0].type));
    if (!grid_cover_level_named(v, vm_string(v, args[0]), true, &level, at))
        return false;
    *out = value_int(level);
    return true;
}

/* cover(): the level, as the rules name it */
static bool builtin_cover(vm *v, int id, value *args, int argc, span at, value *out)
{
    const r_space *sp = &v->r->space;
    int level;
    if (!cover_level(v, id, args, argc, &level, at))
        return false;
    if (level < 0)
        *out = value_ref(V_WORD, HOME_PROGRAM, program_intern(v->p, "unseen", 6));
    else
        *out = value_ref(V_WORD, HOME_PROGRAM, sp->cover.levels[level]);
    return true;
}

static bool builtin_sees(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, b = -1;
    bool yes;
    if (!creature_at(v, id, args, 0, &a, at) || !creature_at(v, id, args, 1, &b, at) || !grid_sees(v, a, b, &yes, at))
        return false;
    *out = value_bool(yes);
    return true;
}

static bool builtin_nearest(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    if (!creature_at(v, id, args, 0, &a, at))
        return false;
    if (args[1].type != V_LIST)
        return vm_error(v, at, "nearest() needs a list of creatures, not %s", value_type_name(args[1].type));
    size_t n;
    const value *items = vm_list_items(v, args[1], &n);
    value best_d = value_nil();
    for (size_t i = 0; i < n; i++) {
        if (items[i].type != V_CREATURE)
            continue;
        if (!v->world->creatures[a].placed || !v->world->creatures[items[i].num].placed) {
            if (out->type == V_NIL)
                *out = items[i]; /* off the map: the first will do */
            continue;
        }
        value d;
        if (!grid_distance(v, value_ref(V_CREATURE, 0, a), items[i], &d, at))
            return false;
        if (best_d.type == V_NIL || rat_cmp(d, best_d) < 0) {
            best_d = d;
            *out = items[i];
        }
    }
    return true;
}

static bool builtin_placed(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    if (!creature_at(v, id, args, 0, &a, at))
        return false;
    *out = value_bool(v->world->creatures[a].placed);
    return true;
}

static bool builtin_blocked(vm *v, int id, value *args, int argc, span at, value *out)
{
    bool ok;
    if (!grid_blocked(v, args[0], &ok, at))
        return false;
    *out = value_bool(ok);
    return true;
}

static bool builtin_square_of(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    if (!creature_at(v, id, args, 0, &a, at))
        return false;
    if (!v->world->creatures[a].placed)
        return vm_error(v, at, "%s is not on the map", v->world->creatures[a].name);
    *out = value_square(v->world->creatures[a].x, v->world->creatures[a].y);
    return true;
}

static bool builtin_walk(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    if (!creature_at(v, id, args, 0, &a, at))
        return false;
    int how = argc > 3 ? word_of(v, args[3]) : program_intern(v->p, "walk", 4);
    if (how < 0)
        return vm_error(v, at, "walk(): how it moves is a word or a string (\"step\"), not %s",
                        value_type_name(args[3].type));
    return grid_walk(v, a, args[1], args[2], false, how, NULL, 0, out, at);
}

static bool builtin_push(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, b = -1;
    if (!creature_at(v, id, args, 0, &a, at) || !creature_at(v, id, args, 1, &b, at))
        return false;
    return grid_push(v, a, b, args[2], out, at);
}

/* --- zones ------------------------------------------------------------------------- */

static bool builtin_range_between(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, b = -1, k = -1;
    if (!creature_at(v, id, args, 0, &a, at) || !creature_at(v, id, args, 1, &b, at) ||
        !zones_range_between(v, a, b, &k, at))
        return false;
    *out = k >= 0 ? value_ref(V_WORD, HOME_PROGRAM, v->r->ranges[k].name) : value_nil();
    return true;
}

static bool builtin_zone_of(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1;
    if (!creature_at(v, id, args, 0, &a, at))
        return false;
    *out =
        v->world->creatures[a].zone >= 0 ? value_ref(V_WORD, HOME_PROGRAM, v->world->creatures[a].zone) : value_nil();
    return true;
}

static bool builtin_enter(vm *v, int id, value *args, int argc, span at, value *out)
{
    int a = -1, zone = word_of(v, args[1]);
    if (!creature_at(v, id, args, 0, &a, at))
        return false;
    if (zone < 0)
        return vm_error(v, at, "enter() takes a zone (a word or string), not %s", value_type_name(args[1].type));
    *out = value_bool(v->world->creatures[a].zone != zone);
    return zones_place(v, a, zone, at);
}

static bool builtin_zones_apart(vm *v, int id, value *args, int argc, span at, value *out)
{
    int za = word_of(v, args[0]), zb = word_of(v, args[1]);
    if (za < 0 || zb < 0)
        return vm_error(v, at, "zones_apart() takes two zones (words or strings), not %s",
                        value_type_name(args[za < 0 ? 0 : 1].type));
    int n = zones_between(v, za, zb);
    if (n < 0)
        return vm_error(v, at, "zones_apart(): no zone '%s'",
                        program_string(v->p, zones_between(v, za, za) < 0 ? za : zb));
    *out = n >= 1000 ? value_nil() : value_int(n);
    return true;
}

/* --- the call ---------------------------------------------------------------------- */

/* Only combat's functions: a builtin of another layer is NULL here. */
#define LAYER_CORE(fn) NULL
#define LAYER_COMBAT(fn) fn
static builtin_fn *const combat_fns[BI_COUNT] = {
#define BUILTIN_ENTRY(name, lo, hi, result, rule, params, effect, args, layer, fn, meaning) LAYER_##layer(fn),
#include "runtime/core/builtins.def"
#undef BUILTIN_ENTRY
};
#undef LAYER_CORE
#undef LAYER_COMBAT

builtin_fn *combat_builtin_fn(int id)
{
    return id >= 0 && id < BI_COUNT ? combat_fns[id] : NULL;
}

bool combat_builtin(vm *v, int id, value *args, int argc, span at, value *out)
{
    const combat *cb = &v->world->cb;
    /* in sync with these rules and creatures (combat_sync's own first
       question, asked here first: every builtin of play asks it) */
    bool in_sync =
        cb->synced_any && cb->synced_generation == v->r->generation && cb->synced_creatures == v->world->ncreatures;
    if (!in_sync && !combat_sync(v))
        return vm_error(v, at, "out of memory");
    *out = value_nil();
    builtin_fn *fn = combat_builtin_fn(id);
    if (!fn)
        return vm_error(v, at, "internal: unknown builtin %d", id);
    return fn(v, id, args, argc, at, out);
}
