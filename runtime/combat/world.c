/* world: the state of play a vm runs in (world.h): made with the vm,
 * freed with it; the creatures and their stats, read and set as the rules
 * declare them; and the calls the interpreter makes into play. */
#include "runtime/combat/world.h"

#include <stddef.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/stat_memo.h"
#include "runtime/combat/tally.h"

/* --- stats and creatures ------------------------------------------------------- */

/* Per declaration: the stat slot (an override shares the slot of what it
 * overrides), the declaration that stands (the latest override), and its
 * stat and resource records. Recomputed when declarations arrive, so a
 * stat read costs no search. */
static bool resync_slots(vm *v);

/* Every stat read asks this first: the check stays inline, the work not. */
static inline bool sync_slots(vm *v)
{
    return world_slots_in_sync(v) || resync_slots(v);
}

/* A default formula that needs no call: a constant (`= 20`), or another
   stat of the same creature (`max max_hp`). */
static void plan_default(vm *v, decl_info *di, const rexpr *e, bool whole)
{
    if (e->kind == REXPR_CONST) {
        di->fixed = e->v;
        di->has_fixed = true;
        return;
    }
    const chunk *c = e->kind == REXPR_CHUNK && e->chunk >= 0 ? v->p->chunks[e->chunk] : NULL;
    if (!c)
        return;
    if (c->len == 4 && c->code[0] == OP_CONST && c->code[3] == OP_RETURN) {
        di->fixed = c->consts[c->code[1] | c->code[2] << 8];
        /* a fraction for a whole-number stat is base_stat's error to give */
        di->has_fixed = !(whole && di->fixed.type == V_FRAC && value_den(di->fixed) != 1);
    } else if (c->len == 2 && c->code[1] == OP_RETURN &&
               (c->code[0] == OP_TRUE || c->code[0] == OP_FALSE || c->code[0] == OP_NIL)) {
        /* `= false`, `= true`, `= nothing` */
        di->fixed = c->code[0] == OP_NIL ? value_nil() : value_bool(c->code[0] == OP_TRUE);
        di->has_fixed = true;
    } else if (c->len == 5 && c->code[0] == OP_SELF && c->code[1] == OP_GET_STAT && c->code[4] == OP_RETURN && !whole)
        di->alias = c->code[2] | c->code[3] << 8;
}

/* How a read of stat d can skip base_stat (see decl_info). modified:
   per declaration, whether a condition's modifier names it. */
static void plan_stat_read(vm *v, int d, const bool *modified)
{
    decl_info *di = &v->world->decl_info[d];
    const decl_info *li = &v->world->decl_info[di->latest];
    const decl *latest = &v->p->decls[di->latest];
    const r_stat *st = li->stat >= 0 ? &v->r->stats[li->stat] : NULL;
    /* a stat no modifier names reads as it is set, whatever the creature
       bears (modifiers name a stat by its first declaration) */
    di->modifiable = v->p->decls[d].kind == DK_STAT && (!modified || modified[di->first]);
    di->direct = v->world->stat_slot[d] >= 0 && !(st && (st->derived || st->per_side));
    di->has_fixed = false;
    di->alias = -1;
    if (!di->direct)
        return;
    if (latest->value >= 0) {
        rexpr e = {.kind = REXPR_CHUNK, .chunk = latest->value};
        plan_default(v, di, &e, st && st->whole);
    } else if (li->resource >= 0) {
        const r_resource *res = &v->r->resources[li->resource];
        plan_default(v, di, rexpr_present(&res->start) ? &res->start : &res->max, false);
    } else {
        di->fixed = value_int(0);
        di->has_fixed = true;
    }
}

static bool resync_slots(vm *v)
{
    program *p = v->p;
    int *slots = mem_grow(v->world->stat_slot, sizeof(int), &v->world->stat_slot_cap, p->ndecls);
    if (!slots)
        return false;
    v->world->stat_slot = slots;
    decl_info *info = mem_grow(v->world->decl_info, sizeof(decl_info), &v->world->decl_info_cap, p->ndecls);
    if (!info)
        return false;
    v->world->decl_info = info;
    int nslots = v->world->nslots;
    for (size_t i = v->world->synced_decls; i < p->ndecls; i++) {
        slots[i] = -1;
        const decl *d = &p->decls[i];
        if (d->kind != DK_STAT && d->kind != DK_RESOURCE)
            continue;
        /* the first declaration of this name owns the slot (slots of
           earlier declarations are known; this one's first is found below) */
        slots[i] = -2;
    }
    /* the first and the latest declaration of each kind and name, through
       one hash table: a program may hold very many declarations */
    size_t cap = 16;
    while (cap < p->ndecls * 2)
        cap *= 2;
    int32_t *first = mem_alloc(cap * sizeof(int32_t));
    if (!first)
        return false;
    for (size_t i = 0; i < cap; i++)
        first[i] = -1;
    for (size_t i = 0; i < p->ndecls; i++) {
        const decl *d = &p->decls[i];
        info[i] = (decl_info){.latest = (int)i, .first = (int)i, .stat = -1, .resource = -1};
        if (d->name < 0)
            continue;
        uint32_t h = ((uint32_t)d->name * 2654435761u) ^ (uint32_t)d->kind;
        size_t k = h & (cap - 1);
        while (first[k] >= 0 && !(p->decls[first[k]].kind == d->kind && p->decls[first[k]].name == d->name))
            k = (k + 1) & (cap - 1);
        if (first[k] < 0)
            first[k] = (int32_t)i;
        info[i].first = first[k];
        info[first[k]].latest = (int)i; /* later ones override */
    }
    for (size_t i = 0; i < p->ndecls; i++)
        info[i].latest = info[info[i].first].latest;
    mem_free(first, cap * sizeof(int32_t));
    for (size_t i = v->world->synced_decls; i < p->ndecls; i++) {
        if (slots[i] != -2)
            continue;
        int f = info[i].first;
        slots[i] = f != (int)i && slots[f] >= 0 ? slots[f] : nslots++;
    }
    for (int k = 0; k < v->r->nstats; k++)
        info[v->r->stats[k].decl].stat = k;
    for (int k = 0; k < v->r->nresources; k++)
        info[v->r->resources[k].stat].resource = k;
    /* the stats that conditions' modifiers name: only they can read
       otherwise than as they are set (effects_stat); without the room to
       know, every stat is taken to be one */
    bool *modified = mem_alloc(p->ndecls ? p->ndecls * sizeof(bool) : 1);
    if (modified) {
        memset(modified, 0, p->ndecls * sizeof(bool));
        for (int k = 0; k < v->r->nconditions; k++)
            for (int m = 0; m < v->r->conditions[k].nmods; m++) {
                const r_modifier *mod = &v->r->conditions[k].mods[m];
                if (mod->target == MODT_STAT && mod->index >= 0 && (size_t)mod->index < p->ndecls)
                    modified[mod->index] = true;
            }
    }
    for (size_t i = 0; i < p->ndecls; i++)
        plan_stat_read(v, (int)i, modified);
    if (modified)
        mem_free(modified, p->ndecls ? p->ndecls * sizeof(bool) : 1);
    v->world->synced_decls = p->ndecls;
    v->world->synced_stats = v->r->nstats;
    v->world->synced_resources = v->r->nresources;
    if (nslots != v->world->nslots) {
        for (size_t c = 0; c < v->world->ncreatures; c++) {
            value *st = mem_realloc(v->world->creatures[c].stats, (size_t)v->world->nslots * sizeof(value),
                                    (size_t)nslots * sizeof(value));
            if (!st)
                return false;
            for (int k = v->world->nslots; k < nslots; k++)
                st[k] = value_nil();
            v->world->creatures[c].stats = st;
        }
        v->world->nslots = nslots;
    }
    return true;
}

/* The declaration that stands for d (its latest override). */
static const decl *world_standing(vm *v, int d)
{
    if (!sync_slots(v))
        return &v->p->decls[d];
    return &v->p->decls[v->world->decl_info[d].latest];
}

int world_stat_slot(vm *v, int decl_index)
{
    if (!sync_slots(v) || decl_index < 0 || (size_t)decl_index >= v->p->ndecls)
        return -1;
    return v->world->stat_slot[decl_index];
}

bool world_stat_internal(vm *v, int decl_index)
{
    /* the declaration that stands says whether it is the rules' own */
    return world_stat_slot(v, decl_index) >= 0 && v->p->decls[v->world->decl_info[decl_index].latest].internal;
}

bool world_stat_shown(vm *v, int c, int decl_index)
{
    const decl *d = &v->p->decls[decl_index];
    if ((d->kind != DK_STAT && d->kind != DK_RESOURCE) || d->overrides)
        return false;
    int slot = world_stat_slot(v, decl_index);
    if (slot < 0 || world_stat_internal(v, decl_index) || sides_holds(v, decl_index))
        return false;
    bool tracked = false;
    /* the tracker may name a later override of it */
    for (int k = 0; k < v->r->encounter.ntrack; k++)
        tracked |= v->world->decl_info[v->r->encounter.track[k]].first == v->world->decl_info[decl_index].first;
    return slot >= 0 && (v->world->creatures[c].stats[slot].type != V_NIL || tracked);
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

int world_find_creature(const vm *v, const char *name)
{
    if (!v->world->name_index_cap)
        return -1;
    size_t mask = v->world->name_index_cap - 1;
    for (size_t k = name_hash(name) & mask;; k = (k + 1) & mask) {
        int32_t c = v->world->name_index[k];
        if (c < 0)
            return -1;
        if (strcmp(v->world->creatures[c].name, name) == 0)
            return c;
    }
}

/* Room for one more name, rehashing at half full. */
static bool index_name(vm *v, int32_t c)
{
    if ((size_t)(c + 1) * 2 > v->world->name_index_cap) {
        size_t cap = v->world->name_index_cap ? v->world->name_index_cap * 2 : 64;
        int32_t *idx = mem_alloc(cap * sizeof(int32_t));
        if (!idx)
            return false;
        for (size_t i = 0; i < cap; i++)
            idx[i] = -1;
        for (size_t i = 0; i < (size_t)c; i++) {
            size_t k = name_hash(v->world->creatures[i].name) & (cap - 1);
            while (idx[k] >= 0)
                k = (k + 1) & (cap - 1);
            idx[k] = (int32_t)i;
        }
        if (v->world->name_index)
            mem_free(v->world->name_index, v->world->name_index_cap * sizeof(int32_t));
        v->world->name_index = idx;
        v->world->name_index_cap = cap;
    }
    size_t k = name_hash(v->world->creatures[c].name) & (v->world->name_index_cap - 1);
    while (v->world->name_index[k] >= 0)
        k = (k + 1) & (v->world->name_index_cap - 1);
    v->world->name_index[k] = c;
    return true;
}

int world_add_creature(vm *v, const char *name, int template_index, span at)
{
    int same = world_find_creature(v, name);
    if (same >= 0 && v->world->creatures[same].gone) {
        /* the record of play names it still */
        vm_error(v, at, "'%s' was removed from play, and the transcript keeps its name: give the new one another",
                 name);
        return -1;
    }
    if (same >= 0) {
        vm_error(v, at, "there is already a creature named '%s'", name);
        return -1;
    }
    if (v->world->ncreatures >= (size_t)v->limits.creatures) {
        vm_error(v, at, "too many creatures (limit is %d; see --limit creatures=N)", v->limits.creatures);
        return -1;
    }
    if (!sync_slots(v))
        return vm_error(v, at, "out of memory"), -1;
    creature *grown =
        mem_grow(v->world->creatures, sizeof(creature), &v->world->creatures_cap, v->world->ncreatures + 1);
    if (!grown)
        return vm_error(v, at, "out of memory"), -1;
    v->world->creatures = grown;
    creature *c = &v->world->creatures[v->world->ncreatures];
    memset(c, 0, sizeof *c);
    c->name = mem_strndup(name, strlen(name));
    c->stats = v->world->nslots ? MEM_NEW_ARRAY(value, (size_t)v->world->nslots) : NULL;
    if (!c->name || (v->world->nslots && !c->stats)) {
        mem_strfree(c->name);
        if (c->stats)
            mem_free(c->stats, (size_t)v->world->nslots * sizeof(value));
        return vm_error(v, at, "out of memory"), -1;
    }
    c->display = c->side = c->tactic = -1;
    c->decl = template_index;
    c->effects = -1;
    c->zone = -1;
    v->world->ncreatures++;
    if (!combat_sync(v) || !index_name(v, (int32_t)v->world->ncreatures - 1)) {
        v->world->ncreatures--;
        if (v->world->ledgers_made > v->world->ncreatures)
            v->world->ledgers_made = v->world->ncreatures;
        mem_strfree(c->name);
        if (c->stats)
            mem_free(c->stats, (size_t)v->world->nslots * sizeof(value));
        if (c->ledger)
            mem_free(c->ledger, (size_t)v->world->ledger_len * sizeof(counter));
        if (c->held)
            mem_free(c->held, (size_t)c->held_len * sizeof(int32_t));
        return vm_error(v, at, "out of memory"), -1;
    }
    vm_play_changed(v);
    return (int)v->world->ncreatures - 1;
}

static bool eval_rexpr(vm *v, const rexpr *e, int self, value *out)
{
    switch (e->kind) {
    case REXPR_CONST: *out = e->v; return true;
    case REXPR_CHUNK: return vm_call(v, e->chunk, self, NULL, 0, out);
    default: *out = value_nil(); return true;
    }
}

/* A stat's own value: set on the creature, or its declared default (so a
   derived stat follows the stats it uses), without modifiers. */
static bool base_stat(vm *v, int c, int decl_index, value *out)
{
    int slot = world_stat_slot(v, decl_index);
    if (slot < 0)
        return vm_error(v, v->p->decls[decl_index].where, "out of memory");
    const decl_info *di = &v->world->decl_info[decl_index];
    const decl *latest = &v->p->decls[di->latest];
    const decl_info *li = &v->world->decl_info[di->latest];
    bool derived = li->stat >= 0 && v->r->stats[li->stat].derived;
    if (li->stat >= 0 && v->r->stats[li->stat].per_side)
        return sides_creature_stat(v, c, decl_index, NULL, out, latest->where);
    value cur = v->world->creatures[c].stats[slot];
    if (cur.type != V_NIL && !derived) {
        *out = cur;
        return true;
    }
    if (latest->value >= 0) {
        if (!vm_call(v, latest->value, c, NULL, 0, out))
            return false;
        /* a whole-number stat's formula must give one too */
        if (li->stat >= 0 && v->r->stats[li->stat].whole && out->type == V_FRAC && value_den(*out) != 1) {
            text_buf shown;
            text_init(&shown);
            vm_format_text(v, *out, &shown);
            const char *name = program_string(v->p, latest->name);
            vm_error(v, latest->where, "%s is a whole number (stat %s: int), but its formula gives %s; round it", name,
                     name, shown.s);
            text_free(&shown);
            return false;
        }
        return true;
    }
    if (li->resource >= 0) {
        const r_resource *res = &v->r->resources[li->resource];
        return eval_rexpr(v, rexpr_present(&res->start) ? &res->start : &res->max, c, out);
    }
    *out = value_int(0);
    return true;
}

/* The full read: the stat's own value (its formula run if need be), then
   what modifies it. */
static bool read_stat(vm *v, int c, int decl_index, value *out)
{
    if (!base_stat(v, c, decl_index, out))
        return false;
    const creature *cr = &v->world->creatures[c];
    if (cr->effects < 0 && v->r->nholds_conditions == 0)
        return true;
    const decl *d = &v->p->decls[decl_index];
    if (d->kind != DK_STAT || sides_holds(v, decl_index))
        return true; /* resources are spent and gained, not modified; a side's value is the side's */
    /* modifiers name a stat by its first declaration */
    value base = *out;
    return effects_stat(v, c, v->world->decl_info[decl_index].first, base, out, d->where);
}

/* The full read, out of line: world_get_stat's common case calls nothing,
   so it needs no frame. */
static __attribute__((noinline)) bool get_stat_long(vm *v, int c, int decl_index, value *out)
{
    if (!sync_slots(v))
        return false;
    return world_stat_at_hand(v, c, decl_index, out) || read_stat(v, c, decl_index, out);
}

/* A read while a formula to keep runs (stat_memo.h): noted, with whether
   it was plain. */
static __attribute__((noinline)) bool get_stat_noted(vm *v, int c, int decl_index, value *out)
{
    bool plain = world_plain_stat(v, c, decl_index, out);
    if (!plain && !get_stat_long(v, c, decl_index, out))
        return false;
    stat_memo_note(v, c, plain);
    return true;
}

/* The loop reads every stat through here. */
bool world_get_stat(vm *v, int c, int decl_index, value *out)
{
    if (__builtin_expect(v->world->recording != NULL, 0))
        return get_stat_noted(v, c, decl_index, out);
    if (world_slots_in_sync(v)) {
        const struct world *w = v->world;
        const creature *cr = &w->creatures[c];
        bool unmodified = cr->effects < 0 && v->r->nholds_conditions == 0;
        int alias;
        if (world_plain_read(w, cr, unmodified, decl_index, out, &alias) ||
            (alias >= 0 && world_plain_read(w, cr, unmodified, alias, out, &alias)))
            return true;
    }
    return get_stat_long(v, c, decl_index, out);
}

/* A side's stat is no plain read: a formula kept with its reads that
   reads one is not kept. */
static bool side_stat(vm *v, value side, int decl_index, const value *set, value *out, span at)
{
    if (v->world->recording)
        v->world->recording->spoiled = true;
    return sides_stat(v, side, decl_index, set, out, at);
}

/* How a value compares with a bound of its kind: numbers with numbers,
   distances with distances, times with times of one kind; false when
   they do not compare. */
static bool bound_cmp(value x, value b, int *cmp)
{
    if (value_is_number(x) && value_is_number(b))
        *cmp = rat_cmp(value_as_frac(x), value_as_frac(b));
    else if (x.type == V_DIST && b.type == V_DIST)
        *cmp = rat_cmp(x, b);
    else if (x.type == V_TIME && b.type == V_TIME && x.home == b.home)
        *cmp = x.num < b.num ? -1 : x.num > b.num;
    else
        return false;
    return true;
}

bool world_clamp(vm *v, const rexpr *bound, int c, value *x, bool low)
{
    if (!rexpr_present(bound) || !(value_is_number(*x) || x->type == V_DIST || x->type == V_TIME))
        return true;
    value b;
    if (!eval_rexpr(v, bound, c, &b))
        return false;
    int cmp;
    if (!bound_cmp(*x, b, &cmp))
        return true;
    if ((low && cmp < 0) || (!low && cmp > 0))
        *x = b;
    return true;
}

bool world_stat_computed(vm *v, int decl_index)
{
    if (!sync_slots(v))
        return true; /* out of memory: read it as the rules do, the safe way */
    const decl_info *di = &v->world->decl_info[decl_index];
    const decl_info *li = &v->world->decl_info[di->latest];
    return li->resource < 0 && !(di->direct && di->has_fixed);
}

static int sim_health(const vm *v)
{
    return v->world->tally->health;
}

/* A simulated run counts what the health stat loses as damage. */
static bool note_damage(vm *v, int c, int decl_index, value now, const value *old)
{
    value before;
    if (old)
        before = *old;
    else if (!base_stat(v, c, decl_index, &before))
        return false;
    if (value_is_number(before) && value_is_number(now) && rat_cmp(value_as_frac(before), value_as_frac(now)) > 0)
        tally_damage(v, c, value_round(before) - value_round(now));
    return true;
}

/* A resource holds what it counts: a number, a distance or a time. */
static bool resource_takes(vm *v, const r_resource *res, int decl_index, value x, span at)
{
    bool fits = res->unit == V_DIST   ? x.type == V_DIST
                : res->unit == V_TIME ? x.type == V_TIME && !time_kind_is_mark((time_kind)x.home)
                                      : x.type != V_DIST && x.type != V_TIME;
    if (fits)
        return true;
    const char *name = program_string(v->p, v->p->decls[decl_index].name);
    text_buf shown;
    text_init(&shown);
    vm_format_text(v, x, &shown);
    if (res->unit == V_DIST)
        vm_error(v, at, "%s is a distance (resource %s: distance), not %s; give it in feet or squares, as in 5 ft",
                 name, name, shown.s);
    else if (res->unit == V_TIME)
        vm_error(v, at, "%s is a time (resource %s: time), not %s; give it with its unit, as in 6 s", name, name,
                 shown.s);
    else
        vm_error(v, at, "%s is a number (resource %s), not %s; declare it 'resource %s: %s' to count that", name, name,
                 shown.s, name, x.type == V_DIST ? "distance" : "time");
    text_free(&shown);
    return false;
}

/* A stat declared `in LO..HI` keeps its value within those bounds; a
   resource within its min and max. Changing a resource is an event. */
bool world_set_stat(vm *v, int c, int decl_index, value x, span at)
{
    if (v->exact_depth && vm_exact_refuses(v, at, "setting a stat"))
        return false;
    if (x.type == V_DISTRIB)
        return vm_error(v, at, "a stat holds a value, not a distribution: roll the dice to set %s",
                        program_string(v->p, v->p->decls[decl_index].name));
    int slot = world_stat_slot(v, decl_index);
    if (slot < 0)
        return vm_error(v, at, "out of memory");
    const decl_info *di = &v->world->decl_info[decl_index];
    const decl_info *li = &v->world->decl_info[di->latest];
    if (li->stat >= 0 && v->r->stats[li->stat].per_side)
        return sides_creature_stat(v, c, decl_index, &x, NULL, at);
    if (x.type == V_ROLL)
        x = value_int(x.num);
    if (li->stat >= 0) {
        const r_stat *st = &v->r->stats[li->stat];
        if (st->derived)
            return vm_error(v, at, "%s is derived from its formula and cannot be set",
                            program_string(v->p, v->p->decls[decl_index].name));
        if (!world_clamp(v, &st->lo, c, &x, true) || !world_clamp(v, &st->hi, c, &x, false))
            return false;
        if (st->whole && !(x.type == V_INT || (x.type == V_FRAC && value_den(x) == 1))) {
            text_buf shown;
            text_init(&shown);
            vm_format_text(v, x, &shown);
            const char *name = program_string(v->p, v->p->decls[decl_index].name);
            vm_error(v, at, "%s is a whole number (stat %s: int), not %s; round it with floor(), ceil() or round()",
                     name, name, shown.s);
            text_free(&shown);
            return false;
        }
    }
    value old = value_nil();
    const r_resource *res = li->resource >= 0 ? &v->r->resources[li->resource] : NULL;
    /* a change of any stat is an event; what it carries is worked out
       only when something hears it (a resource's old value is needed
       anyway) */
    bool tell = res || events_heard(v, EV_CHANGED);
    if (tell && !base_stat(v, c, decl_index, &old))
        return false;
    if (res && !resource_takes(v, res, decl_index, x, at))
        return false;
    if (res) {
        value none = res->unit == V_DIST   ? value_ratio(V_DIST, 0, 1)
                     : res->unit == V_TIME ? value_time((time_kind)x.home, 0)
                                           : value_int(0);
        rexpr zero = {.kind = REXPR_CONST, .v = none};
        if (!world_clamp(v, rexpr_present(&res->min) ? &res->min : &zero, c, &x, true) ||
            !world_clamp(v, &res->max, c, &x, false))
            return false;
    }
    value kept;
    if (!vm_keep(v, x, at, &kept))
        return false;
    /* damage to a stat the rules compute is seen when it is read
       (tally_observe), not here */
    if (v->world->tally && !v->world->tally->computed && di->first == sim_health(v) &&
        !note_damage(v, c, decl_index, kept, res ? &old : NULL))
        return false;
    if (v->world->tally && c == v->world->tally->watch && di->first != sim_health(v)) {
        /* set to the value it has (`t.marks = 0` at 0), it did not change */
        value was = old;
        if (!tell && !base_stat(v, c, decl_index, &was))
            return false;
        if (!value_identical(was, kept))
            tally_change(v, -1, di->first);
    }
    if (!encounter_out_before(v, c, at))
        return false;
    /* the same value again changes nothing a formula could read */
    if (!value_identical(v->world->creatures[c].stats[slot], kept)) {
        vm_play_changed(v);
        world_touch(v->world, c);
    }
    v->world->creatures[c].stats[slot] = kept;
    if (!tally_observe(v, c))
        return false;
    if (tell && !value_identical(old, kept)) {
        const decl *d = &v->p->decls[decl_index];
        value args[4] = {value_ref(V_CREATURE, 0, c), value_ref(V_WORD, HOME_PROGRAM, d->name), old, kept};
        if (!events_emit(v, EV_CHANGED, args, 4, at))
            return false;
    }
    return encounter_out_after(v, c, at);
}

/* --- the calls the interpreter makes into play ------------------------------------ */

static const char *creature_name(const vm *v, int c)
{
    return c >= 0 && (size_t)c < v->world->ncreatures ? v->world->creatures[c].name : NULL;
}

/* `c.name` and `c.side`: what a creature is besides its stats. */
static bool creature_member(vm *v, int c, const char *member, value *out)
{
    if (strcmp(member, "name") == 0) {
        int sid = program_find_string(v->p, v->world->creatures[c].name);
        *out = sid >= 0 ? value_ref(V_STR, HOME_PROGRAM, sid) : value_nil();
        return true;
    }
    if (strcmp(member, "side") == 0) {
        int side = v->world->creatures[c].side;
        *out = side >= 0 ? value_ref(V_WORD, HOME_PROGRAM, v->r->sides[side]) : value_nil();
        return true;
    }
    return false;
}

/* `c.hp = 7` typed at the table says what it did, as the tracker would. */
static bool echo_stat(vm *v, int c, int d, span at)
{
    if (v->world->cb.quiet)
        return true;
    value x;
    if (!world_get_stat(v, c, d, &x))
        return false;
    text_buf shown;
    text_init(&shown);
    vm_format_text(v, x, &shown);
    combat_say(v, "%s.%s = %s", v->world->creatures[c].name, program_string(v->p, v->p->decls[d].name), shown.s);
    text_free(&shown);
    (void)at;
    return true;
}

static void print_line(vm *v, const char *line)
{
    if (v->world->cb.quiet)
        combat_output(v, line); /* quiet keeps what the rules print */
    else
        combat_say_line(v, line); /* a line of the transcript, kept in the log */
}

static bool act(vm *v, int c, int action, const value *args, int argc, bool *allowed, span at)
{
    return act_take(v, c, action, args, argc, false, allowed, at);
}

static bool sync(vm *v)
{
    return combat_sync(v);
}

static void command_begins(vm *v)
{
    v->world->cb.command_no++;
}

static bool set_quiet(vm *v, bool quiet)
{
    bool was = v->world->cb.quiet;
    v->world->cb.quiet = quiet;
    if (was != quiet)
        vm_play_changed(v); /* what was worked out quietly noted nothing in the transcript */
    return was;
}

const vm_world_ops world_ops = {
    .find_creature = world_find_creature,
    .creature_name = creature_name,
    .creature_member = creature_member,
    .get_stat = world_get_stat,
    .set_stat = world_set_stat,
    .echo_stat = echo_stat,
    .side_stat = side_stat,
    .standing = world_standing,
    .print = print_line,
    .emit = events_emit,
    .command = play_command,
    .ruling = rulings_ask,
    .act = act,
    .check = checks_roll,
    .compare = checks_compare,
    .builtin = combat_builtin,
    .sync = sync,
    .command_begins = command_begins,
    .command_ends = encounter_check_over,
    .flush = combat_flush_roll,
    .quiet = set_quiet,
};

vm *world_open(program *p, uint64_t seed, const vm_limits *limits)
{
    vm *v = vm_new(p, seed, limits);
    if (!v)
        return NULL;
    v->world = MEM_NEW(struct world);
    if (!v->world) {
        vm_free(v);
        return NULL;
    }
    combat_init(&v->world->cb);
    v->world_ops = &world_ops;
    return v;
}

void world_close(vm *v)
{
    if (!v)
        return;
    if (v->world) {
        if (v->world->stat_slot)
            mem_free(v->world->stat_slot, v->world->stat_slot_cap * sizeof(int));
        if (v->world->decl_info)
            mem_free(v->world->decl_info, v->world->decl_info_cap * sizeof(decl_info));
        for (size_t i = 0; i < v->world->ncreatures; i++) {
            mem_strfree(v->world->creatures[i].name);
            if (v->world->creatures[i].stats)
                mem_free(v->world->creatures[i].stats, (size_t)v->world->nslots * sizeof(value));
            if (v->world->creatures[i].ledger)
                mem_free(v->world->creatures[i].ledger, (size_t)v->world->ledger_len * sizeof(counter));
            if (v->world->creatures[i].held)
                mem_free(v->world->creatures[i].held, (size_t)v->world->creatures[i].held_len * sizeof(int32_t));
            if (v->world->creatures[i].marks)
                mem_free(v->world->creatures[i].marks, v->world->creatures[i].marks_cap * sizeof(track_mark));
        }
        if (v->world->ledger_try)
            mem_free(v->world->ledger_try, (size_t)v->world->ledger_len * sizeof(counter));
        combat_free(&v->world->cb);
        stat_memo_free(v);
        sides_free(v->world);
        tags_free(v->world);
        if (v->world->creatures)
            mem_free(v->world->creatures, v->world->creatures_cap * sizeof(creature));
        if (v->world->name_index)
            mem_free(v->world->name_index, v->world->name_index_cap * sizeof(int32_t));
        mem_free(v->world, sizeof *v->world);
    }
    vm_free(v);
}
