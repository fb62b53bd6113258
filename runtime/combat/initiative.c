/* initiative: the order of turns, as the rules' `initiative` says. Each
 * participant (a creature; a side, in `mode sides`; a group of a side that
 * rolls once) rolls the declared check, or is scored without a roll in
 * `mode static`; the score orders them, highest or lowest first; ties go
 * through the declared keys in turn, random keys (a reroll, a roll-off, a
 * die) being rolled again among those still tied until they are settled.
 * Those `below when` holds for come after everyone else.
 *
 * Each entry gets a position key, spaced widely so that a creature that
 * delays or moves can be put between two others without moving anyone:
 * durations anchored to a position stay where they began. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

#define KEY_GAP ((int64_t)1 << 32)
#define TIE_ROUNDS_MAX 100

typedef struct part {
    int creature; /* the one who rolls (a side's first member) */
    int side;     /* for a side's entry, else -1 */
    bool is_side;
    bool below;
    value check; /* the roll */
    value group; /* with `group SIDE by EXPR`: which group of the side */
    value keys[10];
    int nkeys;
    int order; /* creation order, the last word on ties */
} part;

/* A formula of the initiative: the roll is its one parameter, when the
   initiative rolls a check. */
static bool eval_for(vm *v, const rexpr *e, int self, value roll, value *out)
{
    if (e->kind == REXPR_CONST) {
        *out = e->v;
        return true;
    }
    int nargs = v->p->chunks[e->chunk]->nparams >= 1 ? 1 : 0;
    return vm_call(v, e->chunk, self, &roll, nargs, out);
}

static int compare_parts(const part *a, const part *b, bool lowest_first)
{
    if (a->below != b->below)
        return a->below ? 1 : -1;
    int n = a->nkeys < b->nkeys ? a->nkeys : b->nkeys;
    for (int i = 0; i < n; i++) {
        int c = rat_cmp(a->keys[i], b->keys[i]);
        if (c == 0)
            continue;
        bool a_first = c > 0;
        if (lowest_first && i == 0)
            a_first = !a_first; /* `lowest first` orders the score; tie keys favour the higher */
        return a_first ? -1 : 1;
    }
    return 0;
}

static void merge_runs(part *p, part *tmp, int lo, int mid, int hi, bool lowest_first)
{
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        tmp[k++] = compare_parts(&p[j], &p[i], lowest_first) < 0 ? p[j++] : p[i++];
    while (i < mid)
        tmp[k++] = p[i++];
    while (j < hi)
        tmp[k++] = p[j++];
    memcpy(p + lo, tmp + lo, (size_t)(hi - lo) * sizeof(part));
}

/* Stable: equal parts keep their creation order. A bottom-up merge sort, so
   that ten thousand creatures sort in a blink; without memory for it, an
   insertion sort does the same more slowly. */
static void sort_parts(part *p, int n, bool lowest_first)
{
    part *tmp = n > 16 ? MEM_NEW_ARRAY(part, (size_t)n) : NULL;
    if (!tmp) {
        for (int i = 1; i < n; i++) {
            part key = p[i];
            int j = i;
            while (j > 0 && compare_parts(&key, &p[j - 1], lowest_first) < 0) {
                p[j] = p[j - 1];
                j--;
            }
            p[j] = key;
        }
        return;
    }
    for (int width = 1; width < n; width *= 2)
        for (int lo = 0; lo < n - width; lo += 2 * width) {
            int hi = lo + 2 * width < n ? lo + 2 * width : n;
            merge_runs(p, tmp, lo, lo + width, hi, lowest_first);
        }
    mem_free(tmp, (size_t)n * sizeof(part));
}

static bool roll_check(vm *v, int self, int64_t given, value *out, span at)
{
    const r_initiative *in = &v->r->initiative;
    if (in->check < 0) {
        *out = value_int(0);
        return true;
    }
    value arg = value_ref(V_CREATURE, 0, self);
    v->force_face = given; /* a player's own roll, if given */
    /* a side rolls as the side, though its first member stands in for it */
    int side = v->world->creatures[self].side;
    v->world->cb.roll_as = in->mode == INIT_SIDES && side >= 0 ? program_string(v->p, v->r->sides[side]) : NULL;
    bool ok = checks_roll(v, in->check, &arg, 1, out, at);
    v->world->cb.roll_as = NULL;
    v->force_face = 0;
    return ok;
}

static bool as_number(vm *v, value x, const char *what, span at, value *out)
{
    if (x.type == V_ROLL)
        x = value_int(x.num);
    if (!value_is_number(x))
        return vm_error(v, at, "%s must be a number, not %s", what, value_type_name(x.type));
    *out = value_as_frac(x);
    return true;
}

/* The value of tie key k for p. */
static bool tie_value(vm *v, const tie_key *k, part *p, value *out, span at)
{
    const r_initiative *in = &v->r->initiative;
    switch (k->kind) {
    case TIE_MODIFIER: {
        /* the score less the die: everything the creature adds */
        value natural = value_int(vm_roll_natural(v, p->check));
        if (rat_add(p->keys[0], natural, V_INT, out, -1) != ARITH_OK)
            return vm_error(v, k->where, "initiative modifier overflows");
        return true;
    }
    case TIE_REROLL: {
        /* the whole initiative again, modifiers and all */
        value r;
        if (!roll_check(v, p->creature, 0, &r, at))
            return false;
        value score = value_as_frac(value_int(r.num));
        if (rexpr_present(&in->score) && !eval_for(v, &in->score, p->creature, r, &score))
            return false;
        return as_number(v, score, "a tie-breaker", k->where, out);
    }
    case TIE_ROLL_OFF: {
        /* the die alone: the natural roll of the check */
        value r;
        if (!roll_check(v, p->creature, 0, &r, at))
            return false;
        *out = value_int(r.type == V_ROLL ? r.aux : r.num);
        return true;
    }
    case TIE_ROLL: {
        value d, r;
        if (!eval_for(v, &k->e, p->creature, p->check, &d) || !vm_roll(v, d, k->where, &r))
            return false;
        text_buf shown;
        text_init(&shown);
        vm_format_text(v, r, &shown);
        combat_say(v, "%s breaks a tie: %s",
                   p->is_side ? program_string(v->p, v->r->sides[p->side]) : world_name(v, p->creature), shown.s);
        text_free(&shown);
        *out = value_int(r.num);
        return true;
    }
    case TIE_SIDE: *out = value_int(v->world->creatures[p->creature].side == k->side); return true;
    case TIE_EXPR: {
        value x;
        if (!eval_for(v, &k->e, p->creature, p->check, &x))
            return false;
        return as_number(v, x, "a tie-breaker", k->where, out);
    }
    }
    return true;
}

static bool is_random(const tie_key *k)
{
    return k->kind == TIE_REROLL || k->kind == TIE_ROLL_OFF || k->kind == TIE_ROLL;
}

/* Keys up to the first random one: fixed for the participant. */
static bool score_part(vm *v, part *p, span at)
{
    const r_initiative *in = &v->r->initiative;
    value score;
    if (rexpr_present(&in->score)) {
        if (!eval_for(v, &in->score, p->creature, p->check, &score))
            return false;
    } else {
        score = p->check;
    }
    if (!as_number(v, score, "an initiative score", in->from.where, &score))
        return false;
    p->nkeys = 0;
    p->keys[p->nkeys++] = score;
    return true;
}

/* The keys after the score up to the first random one, worked out only
   for a participant whose score ties another's: a tie-breaker that asks
   the GM (a ruling) is asked only when there is a tie to break. */
static bool fixed_ties(vm *v, part *p, span at)
{
    const r_initiative *in = &v->r->initiative;
    if (p->nkeys > 1)
        return true; /* worked out already */
    for (int i = 0; i < in->nties && !is_random(&in->ties[i]); i++) {
        if (!tie_value(v, &in->ties[i], p, &p->keys[p->nkeys], at))
            return false;
        p->nkeys++;
    }
    return true;
}

/* Random keys are rolled among the tied only, and again while they tie. */
static const char *tie_word(const tie_key *k)
{
    switch (k->kind) {
    case TIE_REROLL: return "they roll again";
    case TIE_ROLL_OFF: return "a roll-off";
    case TIE_ROLL: return "each rolls";
    default: return "the next tie-breaker";
    }
}

/* Members of the side that rolls as one group (`group SIDE`), and of one
   group of it (`group SIDE by EXPR`). */
static bool same_group(vm *v, const r_initiative *in, const part *a, const part *b)
{
    bool equal = true;
    return in->mode != INIT_SIDES && in->group_side >= 0 && !a->is_side && !b->is_side && a->side == in->group_side &&
           b->side == in->group_side &&
           (!rexpr_present(&in->group_by) ||
            (vm_values_equal(v, a->group, b->group, in->group_by.where, &equal) && equal));
}

/* How many take part in the tie of p[i..j): a group that rolls once is
   one in a tie, not several. */
static int units_in(vm *v, const part *p, int i, int j)
{
    const r_initiative *in = &v->r->initiative;
    int units = 0;
    for (int m = i; m < j; m++) {
        bool seen = false;
        for (int q = i; q < m && !seen; q++)
            seen = same_group(v, in, &p[q], &p[m]);
        units += !seen;
    }
    return units;
}

/* The fixed tie-breakers of every participant whose score ties another's
   (p sorted by score); a group that rolls once shares its first member's. */
static bool break_score_ties(vm *v, part *p, int n, span at)
{
    const r_initiative *in = &v->r->initiative;
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && compare_parts(&p[i], &p[j], in->lowest_first) == 0)
            j++;
        int units = units_in(v, p, i, j);
        for (int m = i; units > 1 && m < j; m++) {
            const part *shares = NULL;
            for (int q = i; q < m && !shares; q++)
                if (same_group(v, in, &p[q], &p[m]))
                    shares = &p[q];
            if (shares) {
                memcpy(p[m].keys, shares->keys, sizeof p[m].keys);
                p[m].nkeys = shares->nkeys;
            } else if (!fixed_ties(v, &p[m], at)) {
                return false;
            }
        }
        i = j;
    }
    return true;
}

/* How a tie names a group: its side, or with `by`, its first member's group. */
static bool add_group_name(vm *v, const r_initiative *in, const part *p, text_buf *names, span at)
{
    if (!rexpr_present(&in->group_by))
        return vm_text_add(v, names, program_string(v->p, v->r->sides[p->side]), at);
    return vm_text_add(v, names, world_name(v, p->creature), at) && vm_text_add(v, names, "'s group", at);
}

/* "a, b and c are tied: each rolls", however many are tied. */
static bool say_tied(vm *v, const r_initiative *in, const tie_key *k, const part *p, int i, int j, int units, span at)
{
    text_buf names;
    text_init(&names);
    bool ok = true;
    int said = 0;
    for (int m = i; ok && m < j; m++) {
        bool seen = false;
        for (int q = i; q < m && !seen; q++)
            seen = same_group(v, in, &p[q], &p[m]);
        if (seen)
            continue;
        said++;
        bool group = in->mode != INIT_SIDES && in->group_side >= 0 && p[m].side == in->group_side;
        ok = vm_text_add(v, &names, said == 1 ? "" : said == units ? " and " : ", ", at);
        if (ok && group && !p[m].is_side)
            ok = add_group_name(v, in, &p[m], &names, at);
        else if (ok)
            ok = vm_text_add(v, &names,
                             p[m].is_side ? program_string(v->p, v->r->sides[p[m].side]) : world_name(v, p[m].creature),
                             at);
    }
    if (ok) {
        combat_flush_roll(v);
        combat_say(v, "%s are tied: %s", names.s, tie_word(k));
    }
    text_free(&names);
    return ok;
}

static bool settle(vm *v, part *p, int n, span at)
{
    const r_initiative *in = &v->r->initiative;
    int fixed = 1;
    while (fixed - 1 < in->nties && !is_random(&in->ties[fixed - 1]))
        fixed++;
    if (fixed - 1 >= in->nties)
        return true; /* no random key: creation order settles what is left */
    const tie_key *k = &in->ties[fixed - 1];
    for (int round = 0; round < TIE_ROUNDS_MAX; round++) {
        bool tied = false;
        for (int i = 0; i + 1 < n;) {
            int j = i + 1;
            while (j < n && compare_parts(&p[i], &p[j], in->lowest_first) == 0)
                j++;
            int units = units_in(v, p, i, j);
            if (units > 1) {
                tied = true;
                /* say who is tied, so the rolls that follow read as a tie-break */
                if (!say_tied(v, in, k, p, i, j, units, at))
                    return false;
                for (int m = i; m < j; m++) {
                    if (p[m].nkeys >= 10)
                        p[m].nkeys = 9;
                    const part *first = NULL;
                    for (int q = i; q < m && !first; q++)
                        if (same_group(v, in, &p[q], &p[m]))
                            first = &p[q];
                    if (first)
                        p[m].keys[p[m].nkeys] = first->keys[first->nkeys - 1];
                    else if (!tie_value(v, k, &p[m], &p[m].keys[p[m].nkeys], at))
                        return false;
                    p[m].nkeys++;
                }
                sort_parts(p + i, j - i, in->lowest_first);
            }
            i = j;
        }
        if (!tied)
            return true;
    }
    /* a tie-break that never breaks (a die of one face, a constant): the
       order stops asking, and says so */
    combat_say(v, "still tied after %d tie-breaks: the order they were created in settles it", TIE_ROUNDS_MAX);
    return true;
}

/* The die's face given for a roll (0: none given), or false after saying
   why the number cannot be one. */
static bool given_face(vm *v, value given, span at, int64_t *face)
{
    *face = 0;
    if (given.type == V_NIL)
        return true;
    if ((given.type != V_INT && given.type != V_ROLL) || given.num < 1) {
        text_buf shown;
        text_init(&shown);
        vm_format_text(v, given, &shown);
        vm_error(v, at, "the number rolled is what the die shows, a whole number from 1, not %s", shown.s);
        text_free(&shown);
        return false;
    }
    *face = given.num;
    return true;
}

/* The face given for creature c (0: none); in `mode sides`, for any member
   of its side, which rolls once for all of them. */
static int64_t face_for(vm *v, const value *given, int ngiven, int c)
{
    int side = v->world->creatures[c].side;
    bool by_side = v->r->initiative.mode == INIT_SIDES && side >= 0;
    for (int g = 0; g + 1 < ngiven; g += 2) {
        int d = (int)given[g].num;
        if (d == c || (by_side && v->world->creatures[d].side == side))
            if (given[g + 1].type != V_NIL)
                return given[g + 1].num;
    }
    return 0;
}

/* The numbers given to `roll initiative`: each for a creature in the
   encounter, named once, a die's face, and at most one for a side that
   rolls once; none where the order is scored without a roll. A number
   that would go unused is refused, not dropped. */
static bool check_given(vm *v, const value *given, int ngiven, span at)
{
    const r_initiative *in = &v->r->initiative;
    for (int g = 0; g + 1 < ngiven; g += 2) {
        if (given[g].type != V_CREATURE)
            return vm_error(v, at, "roll initiative NAME [ROLLED]: a creature, not %s", value_type_name(given[g].type));
        int c = (int)given[g].num;
        const creature *cr = &v->world->creatures[c];
        for (int h = 0; h < g; h += 2)
            if (given[h].num == given[g].num)
                return vm_error(v, at, "%s is named twice", cr->name);
        if (!cr->in_play)
            return vm_error(v, at, "%s is not in the encounter", cr->name);
        int64_t face;
        if (!given_face(v, given[g + 1], at, &face))
            return false;
        if (!face)
            continue;
        if (in->mode == INIT_STATIC || in->check < 0)
            return vm_error(v, at, "%s rolls no initiative (the order is by score, without a roll): give no number",
                            cr->name);
        if (in->mode == INIT_SIDES && cr->side >= 0)
            for (int h = 0; h < g; h += 2)
                if (given[h + 1].type != V_NIL && v->world->creatures[given[h].num].side == cr->side)
                    return vm_error(v, at, "%s and %s are of one side, %s, which rolls once: give one number for it",
                                    world_name(v, (int)given[h].num), cr->name,
                                    program_string(v->p, v->r->sides[cr->side]));
    }
    return true;
}

/* Whether creatures a and b, of the side that rolls in groups, are of one
   group (groups: each one's `by` value, or NULL when there is none). */
static bool one_group(vm *v, const value *groups, int a, int b, span at, bool *same)
{
    *same = true;
    return !groups || vm_values_equal(v, groups[a], groups[b], at, same);
}

/* A number given for a member of a group that rolls with an earlier one
   would go unused: it is refused before anything is rolled. To know the
   groups, `by EXPR` is worked out for each of the side first, in the order
   the rolls would (the same questions, asked before them), and *groups
   keeps the values for the rolls; only when such a number is given. */
static bool check_group_numbers(vm *v, const value *given, int ngiven, value **groups, span at)
{
    const r_initiative *in = &v->r->initiative;
    struct world *w = v->world;
    bool any = false;
    for (int g = 0; g + 1 < ngiven; g += 2)
        any |= given[g + 1].type != V_NIL && w->creatures[given[g].num].side == in->group_side;
    if (in->mode == INIT_SIDES || in->group_side < 0 || !any)
        return true;
    if (rexpr_present(&in->group_by)) {
        *groups = MEM_NEW_ARRAY(value, w->ncreatures);
        if (!*groups)
            return vm_error(v, at, "out of memory");
        for (size_t c = 0; c < w->ncreatures; c++)
            if (w->creatures[c].in_play && w->creatures[c].side == in->group_side &&
                !eval_for(v, &in->group_by, (int)c, value_nil(), &(*groups)[c]))
                goto fail;
    }
    for (int g = 0; g + 1 < ngiven; g += 2) {
        int c = (int)given[g].num;
        if (given[g + 1].type == V_NIL || w->creatures[c].side != in->group_side)
            continue;
        for (int d = 0; d < c; d++) {
            bool same;
            if (!w->creatures[d].in_play || w->creatures[d].side != in->group_side)
                continue;
            if (!one_group(v, *groups, d, c, in->group_by.where, &same))
                goto fail;
            if (same) {
                vm_error(v, at, "%s rolls initiative with %s, the first of its group: give the group's number for %s",
                         w->creatures[c].name, w->creatures[d].name, w->creatures[d].name);
                goto fail;
            }
        }
    }
    return true;
fail:
    mem_free(*groups, w->ncreatures * sizeof(value));
    *groups = NULL;
    return false;
}

bool initiative_roll(vm *v, const value *given, int ngiven, span at)
{
    combat *cb = &v->world->cb;
    const r_initiative *in = &v->r->initiative;
    if (!in->present)
        return vm_error(v, at, "these rules declare no initiative");
    if (!cb->active)
        return vm_error(v, at, "no encounter: 'begin encounter' first");
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    int n = 0;
    for (size_t c = 0; c < v->world->ncreatures; c++)
        n += v->world->creatures[c].in_play;
    if (n == 0)
        return vm_error(v, at, "no creatures in the encounter to order");
    if (!check_given(v, given, ngiven, at))
        return false;
    value *groups = NULL;
    if (!check_group_numbers(v, given, ngiven, &groups, at))
        return false;
    part *parts = MEM_NEW_ARRAY(part, (size_t)n);
    if (!parts) {
        mem_free(groups, v->world->ncreatures * sizeof(value));
        return vm_error(v, at, "out of memory");
    }
    int np = 0;
    bool ok = true;
    for (size_t c = 0; c < v->world->ncreatures && ok; c++) {
        creature *cr = &v->world->creatures[c];
        if (!cr->in_play)
            continue;
        /* a creature of no side has no side's turn to share: it acts alone */
        bool by_side = in->mode == INIT_SIDES && cr->side >= 0;
        bool shared = by_side || (in->group_side >= 0 && cr->side == in->group_side);
        if (by_side) {
            /* one entry per side */
            bool seen = false;
            for (int k = 0; k < np; k++)
                seen |= parts[k].is_side && parts[k].side == cr->side;
            if (seen)
                continue;
        }
        part *p = &parts[np];
        memset(p, 0, sizeof *p);
        p->creature = (int)c;
        p->side = cr->side;
        p->is_side = by_side;
        p->order = np;
        if (rexpr_present(&in->below)) {
            value b;
            ok = eval_for(v, &in->below, (int)c, value_nil(), &b);
            p->below = ok && value_truthy(b);
        }
        /* a group rolls once: its later members take the first's roll */
        const part *first = NULL;
        if (ok && shared && in->mode != INIT_SIDES && rexpr_present(&in->group_by)) {
            if (groups)
                p->group = groups[c];
            else
                ok = eval_for(v, &in->group_by, (int)c, value_nil(), &p->group);
        }
        if (shared && in->mode != INIT_SIDES)
            for (int k = 0; k < np && !first; k++) {
                bool equal = true;
                if (parts[k].side == cr->side && !parts[k].is_side &&
                    (!rexpr_present(&in->group_by) ||
                     (vm_values_equal(v, parts[k].group, p->group, in->group_by.where, &equal) && equal)))
                    first = &parts[k];
            }
        if (ok && first) {
            p->check = first->check;
            memcpy(p->keys, first->keys, sizeof p->keys);
            p->nkeys = first->nkeys;
            p->below = first->below;
            np++;
            continue;
        }
        if (ok && in->mode != INIT_STATIC)
            ok = roll_check(v, (int)c, face_for(v, given, ngiven, (int)c), &p->check, at);
        if (ok && in->mode == INIT_STATIC)
            p->check = value_nil();
        if (ok)
            ok = score_part(v, p, at);
        np++;
    }
    if (ok) {
        combat_flush_roll(v);
        sort_parts(parts, np, in->lowest_first);
        ok = break_score_ties(v, parts, np, at);
        if (ok)
            sort_parts(parts, np, in->lowest_first);
        if (ok)
            ok = settle(v, parts, np, at);
    }
    if (ok) {
        size_t cap = (size_t)cb->order_cap;
        entry *g = mem_grow(cb->order, sizeof(entry), &cap, (size_t)np);
        if (!g) {
            ok = vm_error(v, at, "out of memory");
        } else {
            cb->order = g;
            cb->order_cap = (int)cap;
            cb->norder = np;
            vm_play_changed(v);
            for (int i = 0; i < np; i++) {
                cb->order[i] = (entry){.creature = parts[i].is_side ? -1 : parts[i].creature,
                                       .side = parts[i].side,
                                       .key = (int64_t)i * KEY_GAP,
                                       .score = parts[i].keys[0],
                                       .check = parts[i].check};
            }
            cb->ordered = true;
            vm_play_changed(v);
        }
    }
    mem_free(parts, (size_t)n * sizeof(part));
    mem_free(groups, v->world->ncreatures * sizeof(value));
    if (!ok)
        return false;
    initiative_show(v);
    return events_emit(v, EV_INITIATIVE_ROLLED, NULL, 0, at);
}

static const char *entry_name(vm *v, const entry *e)
{
    return e->creature >= 0 ? world_name(v, e->creature) : program_string(v->p, v->r->sides[e->side]);
}

bool initiative_waiting(const vm *v, const entry *e)
{
    return e->creature >= 0 && v->world->creatures[e->creature].delaying;
}

int initiative_each(const vm *v, int *row)
{
    const combat *cb = &v->world->cb;
    while (*row < 2 * cb->norder) {
        int i = *row % cb->norder;
        bool second_pass = (*row)++ >= cb->norder;
        if (initiative_waiting(v, &cb->order[i]) == second_pass)
            return i;
    }
    return -1;
}

void initiative_entry_text(vm *v, const entry *e, text_buf *score, text_buf *note)
{
    text_clear(score);
    text_clear(note);
    bool waiting = initiative_waiting(v, e);
    if (waiting || e->moved) {
        text_put(note, waiting ? "delaying" : "moved");
        if (e->score.type != V_NIL) {
            text_put(note, "; rolled ");
            vm_format_text(v, e->score, note);
        }
    } else if (e->score.type != V_NIL) {
        vm_format_text(v, e->score, score);
    }
    if (!waiting && !e->moved && e->unrolled)
        text_put(note, "no roll yet");
}

void initiative_show(vm *v)
{
    combat *cb = &v->world->cb;
    if (cb->quiet)
        return;
    /* the whole order, and when some of it is hidden, the order as the
       players know it (when it is one line) */
    combat_line line = {.say = true};
    combat_line_add(v, &line, "order:");
    text_buf players, score, note;
    text_init(&players);
    text_init(&score);
    text_init(&note);
    text_put(&players, "order:");
    /* as play goes: a creature that waits comes after the others */
    int said = 0, shown_to_players = 0;
    bool kept_back = false;
    for (int row = 0, i; (i = initiative_each(v, &row)) >= 0;) {
        const entry *e = &cb->order[i];
        initiative_entry_text(v, e, &score, &note);
        const char *shown = score.len ? score.s : note.s;
        const char *open = shown[0] ? " (" : "", *close = shown[0] ? ")" : "";
        combat_line_add(v, &line, "%s %s%s%s%s", said++ ? "," : "", entry_name(v, e), open, shown, close);
        if (e->creature >= 0 && v->world->creatures[e->creature].hidden)
            kept_back = true;
        else
            text_add(&players, "%s %s%s%s%s", shown_to_players++ ? "," : "", entry_name(v, e), open, shown, close);
    }
    bool one_line = strncmp(line.text, "order:", 6) == 0;
    combat_line_end(v, &line);
    if (kept_back && one_line)
        combat_say_for_players(v, players.s);
    text_free(&note);
    text_free(&score);
    text_free(&players);
}

/* --- late arrivals ------------------------------------------------------------- */

/* The part of an entry already in the order, scored again from the roll
   that placed it (the keys that do not roll: its score and fixed
   tie keys). */
static bool part_of_entry(vm *v, const entry *e, part *q, span at)
{
    const r_initiative *in = &v->r->initiative;
    memset(q, 0, sizeof *q);
    q->creature = e->creature;
    if (e->creature < 0)
        for (size_t c = 0; c < v->world->ncreatures && q->creature < 0; c++)
            if (v->world->creatures[c].in_play && v->world->creatures[c].side == e->side)
                q->creature = (int)c;
    if (q->creature < 0)
        return true; /* a side with no one left: scored as nothing */
    q->side = e->side;
    q->is_side = e->creature < 0;
    q->check = e->check;
    if (rexpr_present(&in->below)) {
        value b;
        if (!eval_for(v, &in->below, q->creature, value_nil(), &b))
            return false;
        q->below = value_truthy(b);
    }
    return score_part(v, q, at);
}

/* Where p goes in the order as it stands: before the first entry it beats,
   before those put last without a roll; among those it ties with, as the
   rules' random tie key settles it (rolled among them only: their own
   places do not change). */
static bool place_index(vm *v, part *p, int *to, span at)
{
    combat *cb = &v->world->cb;
    const r_initiative *in = &v->r->initiative;
    int n = cb->norder;
    part *tied = MEM_NEW_ARRAY(part, (size_t)n + 1);
    if (!tied)
        return vm_error(v, at, "out of memory");
    int ntied = 0, first_tied = -1;
    bool ok = true;
    *to = n;
    for (int i = 0; i < n && ok; i++) {
        const entry *e = &cb->order[i];
        if (e->unrolled) {
            *to = i;
            break;
        }
        part q;
        if (!(ok = part_of_entry(v, e, &q, at)))
            break;
        if (q.creature < 0)
            continue; /* a side with no one left in play: no place to compare */
        int c = compare_parts(p, &q, in->lowest_first);
        if (c == 0) { /* the same score: the fixed tie-breakers say more */
            if (!(ok = fixed_ties(v, p, at) && fixed_ties(v, &q, at)))
                break;
            c = compare_parts(p, &q, in->lowest_first);
        }
        if (c < 0 && ntied == 0) {
            *to = i;
            break;
        }
        if (c == 0) {
            if (ntied == 0)
                first_tied = i;
            q.order = ntied;
            tied[ntied++] = q;
        } else if (ntied > 0) {
            *to = i; /* past the tied run */
            break;
        }
    }
    if (ok && ntied > 0) {
        /* the tied run and p: p is the last brought into play */
        p->order = ntied;
        tied[ntied] = *p;
        combat_flush_roll(v);
        ok = settle(v, tied, ntied + 1, at);
        int before = 0;
        for (int k = 0; ok && k <= ntied && tied[k].order != ntied; k++)
            before++;
        if (ok)
            *to = first_tied + before;
        if (ok)
            p->nkeys = 1; /* its place is found: only the score is shown */
    }
    mem_free(tied, ((size_t)n + 1) * sizeof(part));
    return ok;
}

/* The index of a place c can share without a roll of its own: its side's
   (mode sides), or its group's (`group SIDE [by EXPR]`): the last member
   of the group in the order. -1 if none. */
static bool shared_place(vm *v, int c, int *at_index, span at)
{
    const r_initiative *in = &v->r->initiative;
    combat *cb = &v->world->cb;
    const creature *cr = &v->world->creatures[c];
    *at_index = -1;
    if (cr->side < 0)
        return true;
    if (in->mode == INIT_SIDES) {
        for (int i = 0; i < cb->norder; i++)
            if (cb->order[i].creature < 0 && cb->order[i].side == cr->side)
                *at_index = i;
        return true;
    }
    if (in->group_side < 0 || cr->side != in->group_side)
        return true;
    value mine = value_nil();
    if (rexpr_present(&in->group_by) && !eval_for(v, &in->group_by, c, value_nil(), &mine))
        return false;
    for (int i = 0; i < cb->norder; i++) {
        const entry *e = &cb->order[i];
        if (e->unrolled || e->creature < 0 || e->creature == c || v->world->creatures[e->creature].side != cr->side)
            continue;
        bool equal = true;
        if (rexpr_present(&in->group_by)) {
            value theirs;
            if (!eval_for(v, &in->group_by, e->creature, value_nil(), &theirs) ||
                !vm_values_equal(v, mine, theirs, in->group_by.where, &equal))
                return false;
        }
        if (equal)
            *at_index = i;
    }
    return true;
}

static bool place_one(vm *v, int c, value given, span at)
{
    combat *cb = &v->world->cb;
    const r_initiative *in = &v->r->initiative;
    creature *cr = &v->world->creatures[c];
    int old = encounter_index_of(v, c);
    if (!cr->in_play)
        return vm_error(v, at, "%s is not in the encounter", cr->name);
    if (old >= 0 && !cb->order[old].unrolled) {
        text_buf score;
        text_init(&score);
        if (cb->order[old].score.type != V_NIL)
            vm_format_text(v, cb->order[old].score, &score);
        vm_error(v, at,
                 "%s already has its place in the order%s%s%s; only a creature that joined the fight "
                 "since is placed this way",
                 cr->name, score.len ? " (" : "", score.s, score.len ? ")" : "");
        text_free(&score);
        return false;
    }
    int shared;
    if (!shared_place(v, c, &shared, at))
        return false;
    if (old < 0 && shared >= 0 && in->mode == INIT_SIDES)
        return vm_error(v, at, "%s already has its place in the order: it acts in its side's turns (%s)", cr->name,
                        program_string(v->p, v->r->sides[cr->side]));
    if (old < 0)
        return vm_error(v, at, "%s has no place of its own in the order to take", cr->name);
    if (old >= 0 && old == cb->turn && cb->in_turn)
        return vm_error(v, at, "%s is taking its turn: place it once the turn is over", cr->name);
    if (given.type != V_NIL && (in->mode == INIT_STATIC || shared >= 0))
        return vm_error(v, at, "%s rolls no initiative of its own (%s): give no number", cr->name,
                        in->mode == INIT_STATIC  ? "the order is by score, without a roll"
                        : in->mode == INIT_SIDES ? "its side rolled once for all its members"
                                                 : "its group rolled once for all its members");
    /* out of its place at the end */
    memmove(&cb->order[old], &cb->order[old + 1], (size_t)(cb->norder - old - 1) * sizeof(entry));
    cb->norder--;
    if (cb->turn > old)
        cb->turn--;
    vm_play_changed(v);
    if (in->mode == INIT_SIDES && shared >= 0) {
        combat_say(v, "%s acts with its side, %s, in the side's place in the order (the side rolled once)", cr->name,
                   program_string(v->p, v->r->sides[cr->side]));
        return true;
    }
    entry e = {.creature = c, .side = cr->side, .score = value_nil(), .check = value_nil()};
    int to = 0;
    if (shared >= 0) {
        /* its group's roll and keys, right after the group's last member */
        if (shared >= old)
            shared--;
        e.score = cb->order[shared].score;
        e.check = cb->order[shared].check;
        to = shared + 1;
    } else {
        /* by sides, a side new to the fight rolls as the side */
        bool as_side = in->mode == INIT_SIDES && cr->side >= 0;
        part p = {.creature = c, .side = cr->side, .is_side = as_side};
        if (as_side)
            e.creature = -1;
        if (rexpr_present(&in->below)) {
            value b;
            if (!eval_for(v, &in->below, c, value_nil(), &b))
                return false;
            p.below = value_truthy(b);
        }
        int64_t forced;
        if (!given_face(v, given, at, &forced))
            return false;
        if (in->mode == INIT_STATIC)
            p.check = value_nil();
        else if (!roll_check(v, c, forced, &p.check, at))
            return false;
        if (!score_part(v, &p, at) || !place_index(v, &p, &to, at))
            return false;
        combat_flush_roll(v);
        e.score = p.keys[0];
        e.check = p.check;
    }
    if (!encounter_insert_entry(v, e, to, at))
        return false;
    text_buf line;
    text_init(&line);
    if (e.creature < 0)
        text_add(&line, "%s's side, %s,", cr->name, program_string(v->p, v->r->sides[cr->side]));
    else
        text_put(&line, cr->name);
    text_put(&line, " takes its place in the order");
    if (e.score.type != V_NIL) {
        text_put(&line, " at ");
        vm_format_text(v, e.score, &line);
    }
    text_add(&line, "%s: ", shared >= 0 ? ", its group's roll" : "");
    if (to > 0)
        text_add(&line, "after %s", entry_name(v, &cb->order[to - 1]));
    else if (cb->norder > 1)
        text_add(&line, "first, before %s", entry_name(v, &cb->order[1]));
    else
        text_put(&line, "alone");
    bool this_round = cb->awaiting_start || to > cb->turn;
    text_add(&line, " (%s)", this_round ? "its turn comes this round" : "it acts from the next round");
    combat_say(v, "%s", line.s);
    text_free(&line);
    return true;
}

bool initiative_place(vm *v, const value *given, int ngiven, span at)
{
    for (int g = 0; g + 1 < ngiven; g += 2) {
        if (given[g].type != V_CREATURE)
            return vm_error(v, at, "roll initiative NAME [ROLLED]: a creature, not %s", value_type_name(given[g].type));
        for (int h = 0; h < g; h += 2)
            if (given[h].type == V_CREATURE && given[h].num == given[g].num)
                return vm_error(v, at, "%s is named twice", world_name(v, (int)given[g].num));
        if (!place_one(v, (int)given[g].num, given[g + 1], at))
            return false;
    }
    initiative_show(v);
    return true;
}
