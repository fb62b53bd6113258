/* sides: what a side holds besides its creatures, the stats declared
 * `per side` (a party's shared pool, the points of the GM's side). A side
 * keeps one value of each; its creatures read and set that one value, and
 * a rule may name the side itself (`party.pool`, `self.side.pool`). */
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

static const r_stat *stat_of(vm *v, int decl_index)
{
    int latest = v->world->decl_info[decl_index].latest;
    int si = v->world->decl_info[latest].stat;
    return si >= 0 ? &v->r->stats[si] : NULL;
}

bool sides_holds(vm *v, int decl_index)
{
    if (world_stat_slot(v, decl_index) < 0)
        return false;
    const r_stat *st = stat_of(v, decl_index);
    return st && st->per_side;
}

/* The value side s holds in slot (nil: never set), the side's slots
   grown to the world's. */
static value *side_slot(vm *v, int s, int slot, span at)
{
    struct world *w = v->world;
    if ((size_t)s >= w->nside_state) {
        size_t cap = w->nside_state;
        side_state *g = mem_grow(w->side_state, sizeof(side_state), &cap, (size_t)s + 1);
        if (!g) {
            vm_error(v, at, "out of memory");
            return NULL;
        }
        memset(g + w->nside_state, 0, (cap - w->nside_state) * sizeof(side_state));
        w->side_state = g;
        w->nside_state = cap;
    }
    side_state *ss = &w->side_state[s];
    if (slot >= ss->nstats) {
        size_t cap = (size_t)ss->nstats;
        value *g = mem_grow(ss->stats, sizeof(value), &cap,
                            (size_t)w->nslots > (size_t)slot ? (size_t)w->nslots : (size_t)slot + 1);
        if (!g) {
            vm_error(v, at, "out of memory");
            return NULL;
        }
        for (size_t i = (size_t)ss->nstats; i < cap; i++)
            g[i] = value_nil();
        ss->stats = g;
        ss->nstats = (int)cap;
    }
    return &ss->stats[slot];
}

void sides_free(struct world *w)
{
    for (size_t s = 0; s < w->nside_state; s++)
        if (w->side_state[s].stats)
            mem_free(w->side_state[s].stats, (size_t)w->side_state[s].nstats * sizeof(value));
    if (w->side_state)
        mem_free(w->side_state, w->nside_state * sizeof(side_state));
    w->side_state = NULL;
    w->nside_state = 0;
}

bool sides_clone(struct world *w, const struct world *from)
{
    bool ok = true;
    w->side_state = mem_dup(from->side_state, from->nside_state * sizeof(side_state), &ok);
    if (!w->side_state) {
        w->nside_state = 0;
        return ok;
    }
    for (size_t s = 0; s < w->nside_state; s++)
        w->side_state[s].stats =
            mem_dup(from->side_state[s].stats, (size_t)from->side_state[s].nstats * sizeof(value), &ok);
    return ok;
}

static const char *stat_name(vm *v, int decl_index)
{
    return program_string(v->p, v->p->decls[decl_index].name);
}

bool sides_read(vm *v, int s, int decl_index, value *out, span at)
{
    int slot = world_stat_slot(v, decl_index);
    /* s < 0: a creature on no side reads the default no side has changed */
    if (slot < 0)
        return vm_error(v, at, "out of memory");
    value *x = s >= 0 ? side_slot(v, s, slot, at) : NULL;
    if (!x && s >= 0)
        return false; /* side_slot said why */
    if (x && x->type != V_NIL) {
        *out = *x;
        return true;
    }
    /* never set: the declared default, the same for every side */
    const decl *latest = &v->p->decls[v->world->decl_info[decl_index].latest];
    if (latest->value < 0) {
        *out = value_int(0);
        return true;
    }
    return vm_call(v, latest->value, -1, NULL, 0, out);
}

bool sides_write(vm *v, int s, int decl_index, value x, span at)
{
    if (v->exact_depth && vm_exact_refuses(v, at, "setting a stat"))
        return false;
    const r_stat *st = stat_of(v, decl_index);
    const char *name = stat_name(v, decl_index);
    if (x.type == V_DISTRIB)
        return vm_error(v, at, "a stat holds a value, not a distribution: roll the dice to set %s", name);
    if (x.type == V_ROLL)
        x = value_int(x.num);
    if (!world_clamp(v, &st->lo, -1, &x, true) || !world_clamp(v, &st->hi, -1, &x, false))
        return false;
    if (st->whole && !(x.type == V_INT || (x.type == V_FRAC && value_den(x) == 1))) {
        text_buf shown;
        text_init(&shown);
        vm_format_text(v, x, &shown);
        vm_error(v, at, "%s is a whole number (stat %s: int), not %s; round it with floor(), ceil() or round()", name,
                 name, shown.s);
        text_free(&shown);
        return false;
    }
    value kept;
    if (!vm_keep(v, x, at, &kept))
        return false;
    int slot = world_stat_slot(v, decl_index);
    value *at_slot = slot >= 0 ? side_slot(v, s, slot, at) : NULL;
    if (!at_slot)
        return slot >= 0 || vm_error(v, at, "out of memory");
    *at_slot = kept;
    vm_play_changed(v);
    return true;
}

/* A side's creature reads and sets its side's value; one on no side reads
   the default and cannot set it. */
bool sides_creature_stat(vm *v, int c, int decl_index, const value *set, value *out, span at)
{
    int s = v->world->creatures[c].side;
    if (!set)
        return sides_read(v, s, decl_index, out, at);
    if (s < 0)
        return vm_error(v, at, "%s is on no side, and %s is held per side (give it one: creature %s side NAME)",
                        world_name(v, c), stat_name(v, decl_index), world_name(v, c));
    return sides_write(v, s, decl_index, *set, at);
}

/* `party.pool`: the world's call for a stat read or set on a word. */
bool sides_stat(vm *v, value side, int decl_index, const value *set, value *out, span at)
{
    const char *word = vm_string(v, side);
    int s = side.home == HOME_PROGRAM ? rules_side(v->r, (int)side.num) : -1;
    if (s < 0)
        return vm_error(v, at, "'%s' is not a side: only a creature or a side holds stats", word);
    if (!sides_holds(v, decl_index))
        return vm_error(v, at, "a side holds only the stats declared per side, not %s (stat %s { per side })",
                        stat_name(v, decl_index), stat_name(v, decl_index));
    return set ? sides_write(v, s, decl_index, *set, at) : sides_read(v, s, decl_index, out, at);
}

/* A side's line: its stats per side and its tags (`party: pool 3; tags
   "Inspired"`); when it holds none, only if always. */
static void show_side(vm *v, int s, bool always)
{
    combat_line line = {.say = false};
    bool any = false;
    for (size_t d = 0; d < v->p->ndecls; d++) {
        const decl *dd = &v->p->decls[d];
        if (dd->kind != DK_STAT || dd->overrides || !sides_holds(v, (int)d) || world_stat_internal(v, (int)d))
            continue;
        value x;
        bool began = v->peek_depth == 0 && vm_peek_begin(v, (span){0});
        bool ok = sides_read(v, s, (int)d, &x, (span){0});
        if (began)
            vm_peek_end(v);
        text_buf t;
        text_init(&t);
        if (ok)
            vm_format_text(v, x, &t);
        else
            vm_clear_error(v);
        if (!any)
            combat_line_add(v, &line, "%s:", program_string(v->p, v->r->sides[s]));
        combat_line_add(v, &line, " %s %s", program_string(v->p, dd->name), ok ? t.s : "?");
        text_free(&t);
        any = true;
    }
    if (tags_any_on(v, TAG_ON_SIDE, s)) {
        if (!any)
            combat_line_add(v, &line, "%s:", program_string(v->p, v->r->sides[s]));
        tags_show_on(v, TAG_ON_SIDE, s, &line, any ? "; tags " : " tags ");
        any = true;
    }
    if (!any && always)
        combat_line_add(v, &line, "%s: holds no stat per side and no tag", program_string(v->p, v->r->sides[s]));
    if (any || always)
        combat_line_end(v, &line);
}

void sides_show(vm *v)
{
    for (int s = 0; s < v->r->nsides; s++)
        show_side(v, s, false);
}

void sides_show_encounter(vm *v)
{
    if (!tags_any_on(v, TAG_ON_ENCOUNTER, 0))
        return;
    combat_line line = {.say = false};
    tags_show_on(v, TAG_ON_ENCOUNTER, 0, &line, "encounter: tags ");
    combat_line_end(v, &line);
}

bool sides_show_word(vm *v, value x)
{
    if (x.type != V_WORD)
        return false;
    if (!strcmp(vm_string(v, x), "encounter")) {
        if (!tags_any_on(v, TAG_ON_ENCOUNTER, 0))
            combat_print(v, "encounter: no tags");
        sides_show_encounter(v);
        return true;
    }
    int s = x.home == HOME_PROGRAM ? rules_side(v->r, (int)x.num) : -1;
    if (s < 0)
        return false;
    show_side(v, s, true);
    return true;
}

/* The table's own values, the script variables (a top-level `let`):
   `table: gm_pool 3`, those that hold something. */
void sides_show_table(vm *v)
{
    combat_line line = {.say = false};
    bool any = false;
    size_t n = v->p->nglobals < v->globals_cap ? v->p->nglobals : v->globals_cap;
    for (size_t g = 0; g < n; g++) {
        if (v->globals[g].type == V_NIL || (g < v->p->global_typed_cap && v->p->global_typed[g]))
            continue;
        text_buf t;
        text_init(&t);
        vm_format_text(v, v->globals[g], &t);
        combat_line_add(v, &line, "%s %s %s", any ? "" : "table:", program_string(v->p, v->p->globals[g]), t.s);
        text_free(&t);
        any = true;
    }
    if (any)
        combat_line_end(v, &line);
}
