/* vm: the interpreter loop and the value operations it needs. Every
 * instruction body is written once; the loop dispatches with computed goto
 * where the compiler supports it and a switch otherwise. */
#include "runtime/vm.h"
#include "runtime/sim.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "runtime/dist.h"
#include "runtime/mem.h"

const vm_limits vm_default_limits = {
    .steps = 10000000,
    .call_depth = 200,
    .creatures = 100000,
    .effects = 1000000,
    .list_values = 1u << 22,
    .dice_exprs = 1u << 16,
    .memory = MEM_DEFAULT_BUDGET,
    .trigger_depth = 32,
    .fight_rounds = 1000,
    .dice = DICE_DEFAULT_COUNT,
    .sides = DICE_DEFAULT_SIDES,
    .string_bytes = STRING_DEFAULT_BYTES,
    .nesting = NESTING_DEFAULT,
    .exact = {.outcomes = DIST_DEFAULT_OUTCOMES, .work = DIST_DEFAULT_WORK},
};

const vm_limit_info vm_limit_infos[] = {
    {"steps", "instructions per command, or per turn of a fight (--max-steps)", UINT64_MAX / 200},
    {"depth", "nested calls of procedures, formulas and triggers (--max-depth)", VM_FRAMES_MAX},
    {"creatures", "creatures in play at once (--max-creatures)", 100000000},
    {"effects", "effects in force at once: conditions, cooldowns, holds, relations", 100000000},
    {"list-values", "values held in lists at once", (uint64_t)1 << 32},
    {"dice-exprs", "dice expressions built by arithmetic in one command", (uint64_t)1 << 32},
    {"memory", "MiB of memory one command, or the compile of one file, may take", (uint64_t)1 << 20},
    {"trigger-depth", "triggers setting off triggers", 100000},
    {"fight-rounds", "rounds of a fight without an end", 100000000},
    {"dice", "dice rolled by one term such as 1000d6", DICE_MAX_COUNT},
    {"sides", "sides of one die", DICE_MAX_SIDES},
    {"string-bytes", "bytes of one string written in a rules file or a command", STRING_MAX_BYTES},
    {"nesting", "levels of brackets, blocks and operators in rules, and of lists in lists", NESTING_MAX},
    {"outcomes", "outcomes of an exact distribution", DIST_MAX_OUTCOMES},
    {"exact-work", "steps of one exact sum, product or keep/drop pool", DIST_MAX_WORK},
    {NULL, NULL, 0},
};

/* Where each limit lives in the struct (memory is kept in bytes). */
static void *limit_slot(vm_limits *l, const char *name, bool *wide)
{
    *wide = false;
    if (!strcmp(name, "steps"))
        return *wide = true, (void *)&l->steps;
    if (!strcmp(name, "depth"))
        return &l->call_depth;
    if (!strcmp(name, "creatures"))
        return &l->creatures;
    if (!strcmp(name, "effects"))
        return &l->effects;
    if (!strcmp(name, "trigger-depth"))
        return &l->trigger_depth;
    if (!strcmp(name, "fight-rounds"))
        return &l->fight_rounds;
    if (!strcmp(name, "dice"))
        return &l->dice;
    if (!strcmp(name, "sides"))
        return &l->sides;
    if (!strcmp(name, "string-bytes"))
        return &l->string_bytes;
    if (!strcmp(name, "nesting"))
        return &l->nesting;
    if (!strcmp(name, "outcomes"))
        return *wide = true, (void *)&l->exact.outcomes;
    if (!strcmp(name, "exact-work"))
        return *wide = true, (void *)&l->exact.work;
    return NULL;
}

uint64_t vm_limit_most(const char *name)
{
    const vm_limit_info *info = vm_limit_infos;
    while (info->name && strcmp(info->name, name))
        info++;
    return info->name ? info->max : 0;
}

bool vm_limit_set(vm_limits *l, const char *name, uint64_t n)
{
    if (n < 1 || n > vm_limit_most(name))
        return false;
    bool wide;
    void *slot = limit_slot(l, name, &wide);
    if (slot && wide)
        *(uint64_t *)slot = n;
    else if (slot)
        *(int *)slot = (int)n;
    else if (!strcmp(name, "list-values"))
        l->list_values = (size_t)n;
    else if (!strcmp(name, "dice-exprs"))
        l->dice_exprs = (size_t)n;
    else if (!strcmp(name, "memory"))
        l->memory = (size_t)n << 20;
    return true;
}

uint64_t vm_limit_get(const vm_limits *l, const char *name)
{
    bool wide;
    void *slot = limit_slot((vm_limits *)l, name, &wide);
    if (slot)
        return wide ? *(uint64_t *)slot : (uint64_t) * (int *)slot;
    if (!strcmp(name, "list-values"))
        return l->list_values;
    if (!strcmp(name, "dice-exprs"))
        return l->dice_exprs;
    if (!strcmp(name, "memory"))
        return l->memory >> 20;
    return 0;
}

/* The error convention. A runtime function that can fail returns bool:
 * false only when it failed, its error recorded here (in v->error) by
 * whoever met it first. Its answer, when it has one (a value, a yes or no,
 * a count), goes through an out-parameter, so a refusal or a "no" is never
 * mistaken for a failure. A caller that gets false returns false at once,
 * adding nothing (vm_error keeps the first error: the cause). v->failed is
 * not a channel for callers to test after a call: it is what vm_error sets
 * so that the dispatch loop, its single stop check, halts the command. */
bool vm_error(vm *v, span at, const char *fmt, ...)
{
    if (v->failed)
        return false; /* keep the first error: it is the cause */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->error, sizeof v->error, fmt, ap);
    /* an allocation refused at the command's ceiling: say which limit */
    if (mem_ceiling_reached())
        snprintf(v->error, sizeof v->error, "memory limit reached (%zu MiB for one command; see --limit memory=N)",
                 v->limits.memory >> 20);
    va_end(ap);
    v->failed = true;
    v->steps_held = v->steps_left;
    v->steps_left = 0;
    v->error_at = at;
    return false;
}

void vm_clear_error(vm *v)
{
    if (!v->failed)
        return;
    v->failed = false;
    v->steps_left = v->steps_held;
}

vm *vm_new(program *p, uint64_t seed, const vm_limits *limits)
{
    vm *v = mem_alloc(sizeof(vm));
    if (!v)
        return NULL;
    memset(v, 0, offsetof(vm, stack));
    v->p = p;
    v->r = p->rules;
    combat_init(&v->cb);
    v->limits = limits ? *limits : vm_default_limits;
    v->seed = seed;
    v->steps_left = vm_step_budget(v);
    rng_seed(&v->rng, seed);
    v->sp = v->stack;
    return v;
}

void vm_free(vm *v)
{
    if (!v)
        return;
    if (v->globals)
        mem_free(v->globals, v->globals_cap * sizeof(value));
    if (v->stat_slot)
        mem_free(v->stat_slot, v->stat_slot_cap * sizeof(int));
    if (v->decl_info)
        mem_free(v->decl_info, v->decl_info_cap * sizeof(decl_info));
    for (size_t i = 0; i < v->ncreatures; i++) {
        mem_strfree(v->creatures[i].name);
        if (v->creatures[i].stats)
            mem_free(v->creatures[i].stats, (size_t)v->nslots * sizeof(value));
        if (v->creatures[i].ledger)
            mem_free(v->creatures[i].ledger, (size_t)v->ledger_len * sizeof(counter));
        if (v->creatures[i].held)
            mem_free(v->creatures[i].held, (size_t)v->creatures[i].held_len * sizeof(int32_t));
    }
    if (v->ledger_try)
        mem_free(v->ledger_try, (size_t)v->ledger_len * sizeof(counter));
    combat_free(&v->cb);
    if (v->creatures)
        mem_free(v->creatures, v->creatures_cap * sizeof(creature));
    if (v->name_index)
        mem_free(v->name_index, v->name_index_cap * sizeof(int32_t));
    if (v->rolls)
        mem_free(v->rolls, v->roll_ring * sizeof(roll_record));
    if (v->roll_details)
        mem_free(v->roll_details, VM_ROLL_RING * sizeof(roll_detail));
    if (v->faces)
        mem_free(v->faces, VM_FACE_RING * sizeof(dice_face));
    vm_store *stores[2] = {&v->scratch, &v->kept};
    for (int i = 0; i < 2; i++) {
        if (stores[i]->dice)
            mem_free(stores[i]->dice, stores[i]->dice_cap * sizeof(dexpr));
        if (stores[i]->items)
            mem_free(stores[i]->items, stores[i]->items_cap * sizeof(value));
        if (stores[i]->lists)
            mem_free(stores[i]->lists, stores[i]->lists_cap * sizeof(vm_list));
        vm_dist_free_store(stores[i]);
    }
    mem_free(v, sizeof *v);
}

void vm_set_output(vm *v, vm_print_fn fn, void *user)
{
    v->print = fn;
    v->print_user = user;
}

/* --- stats and creatures ------------------------------------------------------- */

/* Per declaration: the stat slot (an override shares the slot of what it
 * overrides), the declaration that stands (the latest override), and its
 * stat and resource records. Recomputed when declarations arrive, so a
 * stat read costs no search. */
static bool resync_slots(vm *v);

/* Every stat read asks this first: the check stays inline, the work not. */
static inline bool sync_slots(vm *v)
{
    if (v->synced_decls >= v->p->ndecls && v->synced_stats == v->r->nstats && v->synced_resources == v->r->nresources)
        return true;
    return resync_slots(v);
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
    } else if (c->len == 5 && c->code[0] == OP_SELF && c->code[1] == OP_GET_STAT && c->code[4] == OP_RETURN && !whole)
        di->alias = c->code[2] | c->code[3] << 8;
}

/* How a read of stat d can skip base_stat (see decl_info). */
static void plan_stat_read(vm *v, int d)
{
    decl_info *di = &v->decl_info[d];
    const decl_info *li = &v->decl_info[di->latest];
    const decl *latest = &v->p->decls[di->latest];
    const r_stat *st = li->stat >= 0 ? &v->r->stats[li->stat] : NULL;
    di->modifiable = v->p->decls[d].kind == DK_STAT;
    di->direct = v->stat_slot[d] >= 0 && !(st && st->derived);
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
    int *slots = mem_grow(v->stat_slot, sizeof(int), &v->stat_slot_cap, p->ndecls);
    if (!slots)
        return false;
    v->stat_slot = slots;
    decl_info *info = mem_grow(v->decl_info, sizeof(decl_info), &v->decl_info_cap, p->ndecls);
    if (!info)
        return false;
    v->decl_info = info;
    int nslots = v->nslots;
    for (size_t i = v->synced_decls; i < p->ndecls; i++) {
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
    for (size_t i = v->synced_decls; i < p->ndecls; i++) {
        if (slots[i] != -2)
            continue;
        int f = info[i].first;
        slots[i] = f != (int)i && slots[f] >= 0 ? slots[f] : nslots++;
    }
    for (int k = 0; k < v->r->nstats; k++)
        info[v->r->stats[k].decl].stat = k;
    for (int k = 0; k < v->r->nresources; k++)
        info[v->r->resources[k].stat].resource = k;
    for (size_t i = 0; i < p->ndecls; i++)
        plan_stat_read(v, (int)i);
    v->synced_decls = p->ndecls;
    v->synced_stats = v->r->nstats;
    v->synced_resources = v->r->nresources;
    if (nslots != v->nslots) {
        for (size_t c = 0; c < v->ncreatures; c++) {
            value *st =
                mem_realloc(v->creatures[c].stats, (size_t)v->nslots * sizeof(value), (size_t)nslots * sizeof(value));
            if (!st)
                return false;
            for (int k = v->nslots; k < nslots; k++)
                st[k] = value_nil();
            v->creatures[c].stats = st;
        }
        v->nslots = nslots;
    }
    return true;
}

/* The declaration that stands for d (its latest override). */
static const decl *latest_decl(vm *v, int d)
{
    if (!sync_slots(v))
        return &v->p->decls[d];
    return &v->p->decls[v->decl_info[d].latest];
}

int vm_stat_slot(vm *v, int decl_index)
{
    if (!sync_slots(v) || decl_index < 0 || (size_t)decl_index >= v->p->ndecls)
        return -1;
    return v->stat_slot[decl_index];
}

bool vm_stat_internal(vm *v, int decl_index)
{
    /* the declaration that stands says whether it is the rules' own */
    return vm_stat_slot(v, decl_index) >= 0 && v->p->decls[v->decl_info[decl_index].latest].internal;
}

bool vm_stat_shown(vm *v, int c, int decl_index)
{
    const decl *d = &v->p->decls[decl_index];
    if ((d->kind != DK_STAT && d->kind != DK_RESOURCE) || d->overrides)
        return false;
    int slot = vm_stat_slot(v, decl_index);
    if (slot < 0 || vm_stat_internal(v, decl_index))
        return false;
    bool tracked = false;
    /* the tracker may name a later override of it */
    for (int k = 0; k < v->r->encounter.ntrack; k++)
        tracked |= v->decl_info[v->r->encounter.track[k]].first == v->decl_info[decl_index].first;
    return slot >= 0 && (v->creatures[c].stats[slot].type != V_NIL || tracked);
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

int vm_find_creature(const vm *v, const char *name)
{
    if (!v->name_index_cap)
        return -1;
    size_t mask = v->name_index_cap - 1;
    for (size_t k = name_hash(name) & mask;; k = (k + 1) & mask) {
        int32_t c = v->name_index[k];
        if (c < 0)
            return -1;
        if (strcmp(v->creatures[c].name, name) == 0)
            return c;
    }
}

/* Room for one more name, rehashing at half full. */
static bool index_name(vm *v, int32_t c)
{
    if ((size_t)(c + 1) * 2 > v->name_index_cap) {
        size_t cap = v->name_index_cap ? v->name_index_cap * 2 : 64;
        int32_t *idx = mem_alloc(cap * sizeof(int32_t));
        if (!idx)
            return false;
        for (size_t i = 0; i < cap; i++)
            idx[i] = -1;
        for (size_t i = 0; i < (size_t)c; i++) {
            size_t k = name_hash(v->creatures[i].name) & (cap - 1);
            while (idx[k] >= 0)
                k = (k + 1) & (cap - 1);
            idx[k] = (int32_t)i;
        }
        if (v->name_index)
            mem_free(v->name_index, v->name_index_cap * sizeof(int32_t));
        v->name_index = idx;
        v->name_index_cap = cap;
    }
    size_t k = name_hash(v->creatures[c].name) & (v->name_index_cap - 1);
    while (v->name_index[k] >= 0)
        k = (k + 1) & (v->name_index_cap - 1);
    v->name_index[k] = c;
    return true;
}

int vm_add_creature(vm *v, const char *name, int template_index, span at)
{
    int same = vm_find_creature(v, name);
    if (same >= 0 && v->creatures[same].gone) {
        /* the record of play names it still */
        vm_error(v, at, "'%s' was removed from play, and the transcript keeps its name: give the new one another",
                 name);
        return -1;
    }
    if (same >= 0) {
        vm_error(v, at, "there is already a creature named '%s'", name);
        return -1;
    }
    if (v->ncreatures >= (size_t)v->limits.creatures) {
        vm_error(v, at, "too many creatures (limit is %d; see --limit creatures=N)", v->limits.creatures);
        return -1;
    }
    if (!sync_slots(v))
        return vm_error(v, at, "out of memory"), -1;
    creature *grown = mem_grow(v->creatures, sizeof(creature), &v->creatures_cap, v->ncreatures + 1);
    if (!grown)
        return vm_error(v, at, "out of memory"), -1;
    v->creatures = grown;
    creature *c = &v->creatures[v->ncreatures];
    memset(c, 0, sizeof *c);
    c->name = mem_strndup(name, strlen(name));
    c->stats = v->nslots ? MEM_NEW_ARRAY(value, (size_t)v->nslots) : NULL;
    if (!c->name || (v->nslots && !c->stats)) {
        mem_strfree(c->name);
        if (c->stats)
            mem_free(c->stats, (size_t)v->nslots * sizeof(value));
        return vm_error(v, at, "out of memory"), -1;
    }
    c->display = c->side = c->tactic = -1;
    c->decl = template_index;
    c->effects = -1;
    c->zone = c->group = c->engagement = -1;
    v->ncreatures++;
    if (!combat_sync(v) || !index_name(v, (int32_t)v->ncreatures - 1)) {
        v->ncreatures--;
        if (v->ledgers_made > v->ncreatures)
            v->ledgers_made = v->ncreatures;
        mem_strfree(c->name);
        if (c->stats)
            mem_free(c->stats, (size_t)v->nslots * sizeof(value));
        if (c->ledger)
            mem_free(c->ledger, (size_t)v->ledger_len * sizeof(counter));
        if (c->held)
            mem_free(c->held, (size_t)c->held_len * sizeof(int32_t));
        return vm_error(v, at, "out of memory"), -1;
    }
    return (int)v->ncreatures - 1;
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
    int slot = vm_stat_slot(v, decl_index);
    if (slot < 0)
        return vm_error(v, v->p->decls[decl_index].where, "out of memory");
    const decl_info *di = &v->decl_info[decl_index];
    const decl *latest = &v->p->decls[di->latest];
    const decl_info *li = &v->decl_info[di->latest];
    bool derived = li->stat >= 0 && v->r->stats[li->stat].derived;
    value cur = v->creatures[c].stats[slot];
    if (cur.type != V_NIL && !derived) {
        *out = cur;
        return true;
    }
    if (latest->value >= 0) {
        if (!vm_call(v, latest->value, c, NULL, 0, out))
            return false;
        /* a whole-number stat's formula must give one too */
        if (li->stat >= 0 && v->r->stats[li->stat].whole && out->type == V_FRAC && value_den(*out) != 1) {
            char shown[64];
            vm_format(v, *out, shown, sizeof shown);
            const char *name = program_string(v->p, latest->name);
            return vm_error(v, latest->where, "%s is a whole number (stat %s: int), but its formula gives %s; round it",
                            name, name, shown);
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

/* Most reads: a value set on the creature, or a default that needs no
   call, with nothing that could modify it. False when the full read is
   needed (which also reports a cycle of defaults). */
static inline bool stat_at_hand(vm *v, int c, int decl_index, value *out)
{
    if (!sync_slots(v))
        return false;
    const creature *cr = &v->creatures[c];
    bool unmodified = cr->effects < 0 && v->r->nholds_conditions == 0;
    for (int hops = 0; hops < 4; hops++) {
        const decl_info *di = &v->decl_info[decl_index];
        if (!di->direct || (di->modifiable && !unmodified))
            return false;
        value cur = cr->stats[v->stat_slot[decl_index]];
        if (cur.type != V_NIL || di->has_fixed) {
            *out = cur.type != V_NIL ? cur : di->fixed;
            return true;
        }
        if (di->alias < 0)
            return false;
        decl_index = di->alias;
    }
    return false;
}

/* The full read: the stat's own value (its formula run if need be), then
   what modifies it. */
static bool read_stat(vm *v, int c, int decl_index, value *out)
{
    if (!base_stat(v, c, decl_index, out))
        return false;
    const creature *cr = &v->creatures[c];
    if (cr->effects < 0 && v->r->nholds_conditions == 0)
        return true;
    const decl *d = &v->p->decls[decl_index];
    if (d->kind != DK_STAT)
        return true; /* resources are spent and gained, not modified */
    /* modifiers name a stat by its first declaration */
    value base = *out;
    return effects_stat(v, c, v->decl_info[decl_index].first, base, out, d->where);
}

bool vm_get_stat(vm *v, int c, int decl_index, value *out)
{
    return stat_at_hand(v, c, decl_index, out) || read_stat(v, c, decl_index, out);
}

static bool clamp(vm *v, const rexpr *bound, int c, value *x, bool low, span at)
{
    if (!rexpr_present(bound) || !value_is_number(*x))
        return true;
    value b;
    if (!eval_rexpr(v, bound, c, &b))
        return false;
    if (!value_is_number(b))
        return true;
    int cmp = rat_cmp(value_as_frac(*x), value_as_frac(b));
    if ((low && cmp < 0) || (!low && cmp > 0))
        *x = b;
    (void)at;
    return true;
}

static int sim_health(const vm *v)
{
    return v->sim->health;
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
        sim_note_damage(v, c, value_round(before) - value_round(now));
    return true;
}

/* A stat declared `in LO..HI` keeps its value within those bounds; a
   resource within its min and max. Changing a resource is an event. */
bool vm_set_stat(vm *v, int c, int decl_index, value x, span at)
{
    if (v->exact_depth && vm_exact_refuses(v, at, "setting a stat"))
        return false;
    if (x.type == V_DISTRIB)
        return vm_error(v, at, "a stat holds a value, not a distribution: roll the dice to set %s",
                        program_string(v->p, v->p->decls[decl_index].name));
    int slot = vm_stat_slot(v, decl_index);
    if (slot < 0)
        return vm_error(v, at, "out of memory");
    const decl_info *di = &v->decl_info[decl_index];
    const decl_info *li = &v->decl_info[di->latest];
    if (x.type == V_ROLL)
        x = value_int(x.num);
    if (li->stat >= 0) {
        const r_stat *st = &v->r->stats[li->stat];
        if (st->derived)
            return vm_error(v, at, "%s is derived from its formula and cannot be set",
                            program_string(v->p, v->p->decls[decl_index].name));
        if (!clamp(v, &st->lo, c, &x, true, at) || !clamp(v, &st->hi, c, &x, false, at))
            return false;
        if (st->whole && !(x.type == V_INT || (x.type == V_FRAC && value_den(x) == 1))) {
            char shown[64];
            vm_format(v, x, shown, sizeof shown);
            const char *name = program_string(v->p, v->p->decls[decl_index].name);
            return vm_error(v, at,
                            "%s is a whole number (stat %s: int), not %s; round it with floor(), ceil() or round()",
                            name, name, shown);
        }
    }
    value old = value_nil();
    const r_resource *res = li->resource >= 0 ? &v->r->resources[li->resource] : NULL;
    if (res) {
        if (!base_stat(v, c, decl_index, &old))
            return false;
        rexpr zero = {.kind = REXPR_CONST, .v = value_int(0)};
        if (!clamp(v, rexpr_present(&res->min) ? &res->min : &zero, c, &x, true, at) ||
            !clamp(v, &res->max, c, &x, false, at))
            return false;
    }
    value kept;
    if (!vm_keep(v, x, at, &kept))
        return false;
    if (v->sim && di->first == sim_health(v) && !note_damage(v, c, decl_index, kept, res ? &old : NULL))
        return false;
    if (v->sim && c == v->sim->watch && di->first != sim_health(v))
        sim_note_change(v, -1, di->first);
    v->creatures[c].stats[slot] = kept;
    if (res && !value_identical(old, kept)) {
        const decl *d = &v->p->decls[decl_index];
        value args[4] = {value_ref(V_CREATURE, 0, c), value_ref(V_WORD, HOME_PROGRAM, d->name), old, kept};
        return events_emit(v, EV_RESOURCE_CHANGED, args, 4, at);
    }
    return true;
}

/* --- dice, rolls and lists --------------------------------------------------------- */

static const vm_store *store_of(const vm *v, value x)
{
    return x.home == HOME_VM ? &v->scratch : x.home == HOME_KEPT ? &v->kept : NULL;
}

const dexpr *vm_dexpr(const vm *v, value d)
{
    const vm_store *st = store_of(v, d);
    if (st)
        return (size_t)d.num < st->ndice ? &st->dice[d.num] : NULL;
    return (size_t)d.num < v->p->ndice ? &v->p->dice[d.num] : NULL;
}

static bool store_dexpr(vm *v, vm_store *st, uint8_t home, const dexpr *d, span at, value *out)
{
    if (st->ndice >= v->limits.dice_exprs)
        return vm_error(v, at,
                        "too many dice expressions built in one command (limit is %zu; see --limit dice-exprs=N)",
                        v->limits.dice_exprs);
    dexpr *grown = mem_grow(st->dice, sizeof(dexpr), &st->dice_cap, st->ndice + 1);
    if (!grown)
        return vm_error(v, at, "out of memory");
    st->dice = grown;
    st->dice[st->ndice] = *d;
    *out = value_ref(V_DICE, home, (int64_t)st->ndice++);
    return true;
}

static bool new_dexpr(vm *v, const dexpr *d, span at, value *out)
{
    return store_dexpr(v, &v->scratch, HOME_VM, d, at, out);
}

/* dice ± dice, dice ± number: concatenate terms. */
static bool dice_add(vm *v, value a, value b, int sign, span at, value *out)
{
    dexpr r = {0};
    const value parts[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        int s = k == 0 ? 1 : sign;
        if (parts[k].type == V_DICE) {
            const dexpr *d = vm_dexpr(v, parts[k]);
            if (!d)
                return vm_error(v, at, "invalid dice");
            for (int t = 0; t < d->nterms; t++) {
                if (r.nterms >= DEXPR_MAX_TERMS)
                    return vm_error(v, at, "dice expression has too many terms (limit is %d)", DEXPR_MAX_TERMS);
                r.terms[r.nterms] = d->terms[t];
                r.terms[r.nterms].sign *= s;
                r.nterms++;
            }
        } else if (parts[k].type == V_INT || parts[k].type == V_ROLL) {
            if (r.nterms >= DEXPR_MAX_TERMS)
                return vm_error(v, at, "dice expression has too many terms (limit is %d)", DEXPR_MAX_TERMS);
            r.terms[r.nterms++] = (dterm){.sign = s, .times = 1, .is_constant = true, .constant = parts[k].num};
        } else {
            return vm_error(v, at, "cannot add %s to dice (only whole numbers)", value_type_name(parts[k].type));
        }
    }
    return new_dexpr(v, &r, at, out);
}

static bool dice_scale(vm *v, value d, int64_t k, span at, value *out)
{
    const dexpr *src = vm_dexpr(v, d);
    if (!src)
        return vm_error(v, at, "invalid dice");
    dexpr r = *src;
    for (int t = 0; t < r.nterms; t++) {
        int64_t times;
        if (__builtin_mul_overflow((int64_t)r.terms[t].times, k, &times) || times > INT32_MAX || times < INT32_MIN)
            return vm_error(v, at, "dice multiplier is too large");
        r.terms[t].times = (int32_t)times;
    }
    return new_dexpr(v, &r, at, out);
}

static bool roll_dexpr(vm *v, const dexpr *d, span at, value *out);

bool vm_roll(vm *v, value x, span at, value *out)
{
    if (x.type == V_ROLL && v->walk && !vm_exact_may_roll(v, x, at))
        return false;
    if (x.type == V_INT || x.type == V_ROLL) {
        *out = (value){.type = V_ROLL, .num = x.num, .aux = 0};
        return true;
    }
    if (x.type != V_DICE)
        return vm_error(v, at, "cannot roll %s", value_type_name(x.type));
    const dexpr *d = vm_dexpr(v, x);
    if (!d)
        return vm_error(v, at, "invalid dice");
    return roll_dexpr(v, d, at, out);
}

/* `roll d20 + bab + str`: the terms are summed into a dice expression on
 * the C stack and rolled, so the common roll builds nothing in the store. */
static bool roll_sum(vm *v, const value *parts, int n, unsigned negative, span at, value *out)
{
    dexpr d;
    d.nterms = 0; /* only the terms in use are ever read: no need to clear the rest */
    for (int i = 0; i < n; i++) {
        int sign = (negative >> i) & 1 ? -1 : 1;
        value x = parts[i];
        if (x.type == V_DICE) {
            const dexpr *src = vm_dexpr(v, x);
            if (!src)
                return vm_error(v, at, "invalid dice");
            for (int t = 0; t < src->nterms; t++) {
                if (d.nterms >= DEXPR_MAX_TERMS)
                    return vm_error(v, at, "dice expression has too many terms (limit is %d)", DEXPR_MAX_TERMS);
                d.terms[d.nterms] = src->terms[t];
                d.terms[d.nterms++].sign *= sign;
            }
        } else if (x.type == V_INT || x.type == V_ROLL) {
            if (x.type == V_ROLL && v->walk && !vm_exact_may_roll(v, x, at))
                return false;
            if (d.nterms >= DEXPR_MAX_TERMS)
                return vm_error(v, at, "dice expression has too many terms (limit is %d)", DEXPR_MAX_TERMS);
            d.terms[d.nterms++] = (dterm){.sign = sign, .times = 1, .is_constant = true, .constant = x.num};
        } else {
            return vm_error(v, at, "cannot roll %s (only dice and whole numbers)", value_type_name(x.type));
        }
    }
    return roll_dexpr(v, &d, at, out);
}

static bool roll_dexpr_ex(vm *v, const dexpr *d, const roll_extra *extra, int nextra, int check, span at, value *out);

static bool roll_dexpr(vm *v, const dexpr *d, span at, value *out)
{
    return roll_dexpr_ex(v, d, NULL, 0, -1, at, out);
}

bool vm_roll_check(vm *v, const dexpr *dx, const roll_extra *extra, int nextra, int check, span at, value *out)
{
    if (nextra > ROLL_MAX_EXTRA)
        return vm_error(v, at, "too many terms in one check (limit is %d numbers)", ROLL_MAX_EXTRA);
    return roll_dexpr_ex(v, dx, extra, nextra, check, at, out);
}

static bool roll_into(vm *v, const dexpr *d, int32_t program_expr, const roll_extra *extra, int nextra, int check,
                      span at, value *out);

static bool roll_dexpr_ex(vm *v, const dexpr *d, const roll_extra *extra, int nextra, int check, span at, value *out)
{
    return roll_into(v, d, -1, extra, nextra, check, at, out);
}

/* The records start few and double until the ring wraps the first time,
   so a short fight clears only the records it uses. Until then record seq
   sits at index seq, the same after a doubling (and its detail too: the
   details are never cleared, so they are allocated whole). Out of memory,
   the ring stays as it is: older rolls are forgotten sooner. */
static void grow_ring(vm *v)
{
    size_t old = v->roll_ring, cap = old * 2;
    roll_record *rolls = MEM_NEW_ARRAY(roll_record, cap);
    if (!rolls)
        return;
    memcpy(rolls, v->rolls, old * sizeof(roll_record));
    mem_free(v->rolls, old * sizeof(roll_record));
    v->rolls = rolls;
    v->roll_ring = cap;
}

/* The record of roll number ++roll_seq, whose faces take up to `need`
 * places: they are contiguous, so the ring of faces wraps to its start
 * when they would not fit before its end. */
static roll_record *new_record(vm *v, int32_t program_expr, int check, int nextra, size_t need)
{
    uint64_t seq = ++v->roll_seq;
    if (seq == v->roll_ring && v->roll_ring < VM_ROLL_RING)
        grow_ring(v);
    roll_record *rec = &v->rolls[seq & (v->roll_ring - 1)]; /* the ring's sizes are powers of two */
    rec->seq = seq;
    rec->program_expr = program_expr;
    rec->check = check;
    rec->nextra = (uint8_t)nextra;
    if (v->face_pos % VM_FACE_RING + need > VM_FACE_RING)
        v->face_pos += VM_FACE_RING - v->face_pos % VM_FACE_RING;
    rec->face_pos = v->face_pos;
    rec->face_start = (uint32_t)(v->face_pos % VM_FACE_RING);
    return rec;
}

/* A finished roll as a value: 23 bits of the sequence number find its
 * record, bit 7 of home says there is one. Built whole and stored once:
 * patching bytes of a value after a 16-byte store stalls the load that
 * reads it back. */
static value roll_value(const roll_record *rec, int natural)
{
    return (value){.type = V_ROLL,
                   .home = (uint8_t)(0x80 | ((rec->seq >> 16) & 0x7f)),
                   .pad = (uint16_t)(rec->seq & 0xffff),
                   .aux = natural,
                   .num = rec->total};
}

/* A packed sum of several terms (its dice plain pools) rolled into faces,
 * in term order; returns the total. */
static int64_t roll_plain_terms(const dexpr *d, rng *g, dice_face *faces)
{
    int64_t total = 0;
    for (int t = 0; t < d->nterms; t++) {
        const dterm *term = &d->terms[t];
        int64_t part = term->constant;
        if (!term->is_constant) {
            part = dice_roll_plain(&term->d, g, faces);
            faces += term->d.count;
        }
        total += term->sign < 0 ? -part : part; /* the compiler has ruled out overflow */
    }
    return total;
}

/* A packed roll (a roll of a dexpr marked packed) keeps no record: its
 * value holds it all. home is ROLL_PACKED, pad the program's expression,
 * aux its faces, each pool's packed by dice_pack and the last pool's in
 * the lowest bits (the keeping and dropping is done again from them), num
 * the total. Such a roll never goes stale. */
#define ROLL_PACKED 0x40

static uint32_t pack_faces(const dexpr *d, const dice_face *faces)
{
    uint64_t bits = 0;
    for (int t = 0; t < d->nterms; t++) {
        const dice *pool = &d->terms[t].d;
        if (d->terms[t].is_constant)
            continue;
        bits = bits << (pool->count * dice_face_bits(pool->sides)) | dice_pack(pool, faces);
        faces += pool->count;
    }
    return (uint32_t)bits;
}

/* The faces of a packed roll of d into faces, the dropped ones marked,
 * and how many each term showed. */
static void unpack_faces(const dexpr *d, uint32_t packed, dice_face *faces, uint16_t counts[DEXPR_MAX_TERMS])
{
    uint64_t bits = packed;
    size_t at = 0;
    for (int t = 0; t < DEXPR_MAX_TERMS; t++) {
        counts[t] = t < d->nterms && !d->terms[t].is_constant ? (uint16_t)d->terms[t].d.count : 0;
        at += counts[t];
    }
    for (int t = d->nterms - 1; t >= 0; t--) { /* the last pool in the lowest bits */
        const dice *pool = &d->terms[t].d;
        if (d->terms[t].is_constant)
            continue;
        unsigned width = (unsigned)pool->count * dice_face_bits(pool->sides);
        at -= (size_t)pool->count;
        dice_unpack(pool, (uint32_t)(bits & ((UINT64_C(1) << width) - 1)), faces + at);
        bits >>= width;
    }
}

/* A packed roll other than of one die: one pool (`4d6kh3 + 2`) or a sum
 * of several. Out of line: the one die of roll_packed saves no registers
 * for it. */
static __attribute__((noinline)) value roll_packed_pools(vm *v, const dexpr *d, uint16_t index)
{
    dice_packed rolled;
    if (d->packed_plan.count) { /* keeping all or dropping one */
        rolled = dice_roll_planned(&d->packed_plan, &v->rng);
        rolled.total += d->plain_offset;
    } else { /* any other: term by term, its constants among them */
        dice_face faces[DICE_PACKED_MAX];
        rolled.total = roll_plain_terms(d, &v->rng, faces);
        rolled.faces = pack_faces(d, faces);
    }
    return (value){
        .type = V_ROLL, .home = ROLL_PACKED, .pad = index, .aux = (int32_t)rolled.faces, .num = rolled.total};
}

/* A roll of the program's expression dice[index] that is not packed:
 * referred to by its record, never copied. */
static __attribute__((noinline)) bool roll_program_slow(vm *v, uint16_t index, const span *at, value *out)
{
    if (index >= v->p->ndice)
        return vm_error(v, *at, "invalid dice");
    return roll_into(v, &v->p->dice[index], index, NULL, 0, -1, *at, out);
}

/* `roll d20 + 5` with constant terms: the program's expression, when it
 * is packed, rolled into *out; false when it is not (or a die the player
 * rolled, or an oracle's draws, are waiting: those are kept in the ring),
 * for roll_program_slow. The compiler has seen to it that a
 * packed total cannot overflow. */
static inline bool roll_packed(vm *v, uint16_t index, value *out)
{
    if (__builtin_expect(index >= v->p->ndice || v->force_face || v->rng.oracle, 0))
        return false;
    const dexpr *d = &v->p->dice[index];
    if (__builtin_expect(d->packed_die != 0, 1)) { /* `d20 + 5`: one die (packed_die implies packed) */
        uint64_t face = rng_below_nonzero(&v->rng, (uint64_t)d->packed_die);
        *out = (value){.type = V_ROLL,
                       .home = ROLL_PACKED,
                       .pad = index,
                       .aux = (int32_t)face,
                       .num = (int64_t)face + 1 + d->plain_offset};
        return true;
    }
    if (!d->packed)
        return false;
    *out = roll_packed_pools(v, d, index);
    return true;
}

static const dexpr *record_expr(const vm *v, const roll_record *rec);
static const roll_record *roll_of(const vm *v, value r);

/* The faces of roll r in term order, how many each term showed, and the
 * expression rolled; NULL when it shows none (a number rolled, or a
 * record the ring has since overwritten). */
static const dice_face *roll_faces(const vm *v, value r, dice_face scratch[DICE_PACKED_MAX],
                                   uint16_t counts[DEXPR_MAX_TERMS], const dexpr **rolled)
{
    if (r.home == ROLL_PACKED) {
        if (r.pad >= v->p->ndice)
            return NULL;
        *rolled = &v->p->dice[r.pad];
        unpack_faces(*rolled, (uint32_t)r.aux, scratch, counts);
        return scratch;
    }
    const roll_record *rec = roll_of(v, r);
    if (!rec)
        return NULL;
    *rolled = record_expr(v, rec);
    memcpy(counts, rec->term_faces, sizeof rec->term_faces);
    return v->faces + rec->face_start;
}

int vm_roll_natural(const vm *v, value r)
{
    if (r.type != V_ROLL)
        return 0;
    if (r.home != ROLL_PACKED)
        return r.aux;
    dice_face scratch[DICE_PACKED_MAX];
    uint16_t counts[DEXPR_MAX_TERMS];
    const dexpr *rolled;
    const dice_face *faces = roll_faces(v, r, scratch, counts, &rolled);
    size_t n = 0;
    for (int t = 0; faces && t < DEXPR_MAX_TERMS; t++)
        n += counts[t];
    for (size_t i = 0; i < n; i++)
        if (!(faces[i].flags & DICE_FACE_DROPPED))
            return faces[i].value;
    return 0;
}

/* The expression a roll record rolled. */
static const dexpr *record_expr(const vm *v, const roll_record *rec)
{
    return rec->program_expr >= 0 ? &v->p->dice[rec->program_expr]
                                  : &v->roll_details[rec->seq & (v->roll_ring - 1)].expr;
}

static bool roll_into(vm *v, const dexpr *d, int32_t program_expr, const roll_extra *extra, int nextra, int check,
                      span at, value *out)
{
    if (v->rng.oracle == &v->no_draws)
        return vm_error(v, at,
                        "cannot compute exactly: these dice are rolled by a formula read inside prob(), mean(), "
                        "dist(), maximum() or minimum(), which follows the dice of procedures and checks only");
    if (!v->rolls) {
        /* Only the records are cleared: a detail or a face is read only
           through the record written with it, and clearing the other
           megabyte cost every `fray sim` run more than its dice did. */
        v->roll_ring = VM_ROLL_RING_FIRST;
        v->rolls = MEM_NEW_ARRAY(roll_record, v->roll_ring);
        v->roll_details = mem_alloc(VM_ROLL_RING * sizeof(roll_detail));
        v->faces = mem_alloc(VM_FACE_RING * sizeof(dice_face));
        if (!v->rolls || !v->roll_details || !v->faces)
            return vm_error(v, at, "out of memory");
    }
    size_t need = 0;
    for (int t = 0; t < d->nterms; t++)
        if (!d->terms[t].is_constant)
            need += dice_max_faces(&d->terms[t].d);
    if (need > VM_FACE_RING)
        return vm_error(v, at, "too many dice in one roll (limit is %d faces)", VM_FACE_RING);
    roll_record *rec = new_record(v, program_expr, check, nextra, need);
    /* the program's expressions are referred to; others are copied, the
       terms in use only: a record is written on every roll */
    roll_detail *detail = &v->roll_details[rec->seq & (v->roll_ring - 1)];
    if (program_expr < 0) {
        detail->expr.nterms = d->nterms;
        memcpy(detail->expr.terms, d->terms, d->nterms * sizeof d->terms[0]);
    }
    memset(rec->term_faces, 0, sizeof rec->term_faces);
    if (nextra)
        memcpy(detail->extra, extra, (size_t)nextra * sizeof(roll_extra));
    size_t written = 0;
    int64_t total = 0;
    int natural = 0;
    bool have_natural = false;
    for (int t = 0; t < d->nterms; t++) {
        const dterm *term = &d->terms[t];
        int64_t part;
        if (term->is_constant) {
            part = term->constant;
        } else {
            dice_face *faces = v->faces + rec->face_start + written;
            size_t n = 0;
            if (dice_roll(&term->d, &v->rng, faces, VM_FACE_RING - rec->face_start - written, &n, &part) != 0)
                return vm_error(v, at, "cannot roll these dice");
            if (v->force_face && !have_natural) {
                /* a die the player rolled at the table */
                int64_t f = v->force_face;
                v->force_face = 0;
                if (term->d.count != 1 || term->d.fudge || n != 1)
                    return vm_error(v, at, "a rolled value can be entered for a single die, not %s", "several dice");
                if (f < 1 || f > term->d.sides)
                    return vm_error(v, at, "a d%d shows 1 to %d, not %" PRId64, term->d.sides, term->d.sides, f);
                faces[0].value = (int32_t)f;
                part = f;
            }
            if (!have_natural) {
                for (size_t i = 0; i < n; i++)
                    if (!(faces[i].flags & (DICE_FACE_REROLLED | DICE_FACE_DROPPED))) {
                        natural = faces[i].value;
                        have_natural = true;
                        break;
                    }
            }
            rec->term_faces[t] = (uint16_t)n;
            written += n;
        }
        int64_t scaled;
        if (__builtin_mul_overflow(part, (int64_t)term->times * term->sign, &scaled) ||
            __builtin_add_overflow(total, scaled, &total))
            return vm_error(v, at, "roll total overflows");
    }
    for (int i = 0; i < nextra; i++)
        if (__builtin_add_overflow(total, extra[i].amount, &total))
            return vm_error(v, at, "roll total overflows");
    v->face_pos += written;
    rec->total = total;
    *out = roll_value(rec, natural);
    return true;
}

static const roll_record *roll_of(const vm *v, value r);
const roll_record *vm_roll_record(const vm *v, value roll)
{
    return roll_of(v, roll);
}

static const roll_record *roll_of(const vm *v, value r)
{
    if (!(r.home & 0x80) || !v->rolls)
        return NULL;
    uint64_t bits = (uint64_t)(r.home & 0x7f) << 16 | r.pad;
    const roll_record *rec = &v->rolls[bits & (v->roll_ring - 1)];
    if ((rec->seq & 0x7fffff) != bits || rec->seq == 0)
        return NULL;
    if (v->face_pos - rec->face_pos > VM_FACE_RING) /* its faces were overwritten */
        return NULL;
    return rec;
}

/* How many lists deep x is: 0 for what is no list. */
static uint32_t list_depth(const vm *v, value x)
{
    const vm_store *st = x.type == V_LIST ? store_of(v, x) : NULL;
    return st && (size_t)x.num < st->nlists ? st->lists[x.num].depth : 0;
}

/* A list as deep as `depth`, or the error that says it may not be: every
   walk of a list (printing, comparing, keeping it) goes once down a level,
   so the nesting limit that bounds the rules' text bounds them too. */
static bool nesting_ok(vm *v, uint32_t depth, span at)
{
    if (depth <= (uint32_t)v->limits.nesting)
        return true;
    return vm_error(v, at, "lists nested too deeply (limit is %d levels; see --limit nesting=N)", v->limits.nesting);
}

static bool list_limit_reached(vm *v, span at)
{
    return vm_error(v, at, "list memory limit reached (%zu values; see --limit list-values=N)", v->limits.list_values);
}

static bool store_list(vm *v, vm_store *st, uint8_t home, const value *items, size_t n, span at, value *out)
{
    uint32_t depth = 1;
    for (size_t i = 0; items && i < n; i++) {
        uint32_t d = list_depth(v, items[i]);
        if (d >= depth)
            depth = d + 1;
    }
    if (!nesting_ok(v, depth, at))
        return false;
    if (st->nitems + n > v->limits.list_values)
        return list_limit_reached(v, at);
    value *grown = mem_grow(st->items, sizeof(value), &st->items_cap, st->nitems + n);
    if (!grown && n)
        return vm_error(v, at, "out of memory");
    if (grown)
        st->items = grown;
    vm_list *lists = mem_grow(st->lists, sizeof(vm_list), &st->lists_cap, st->nlists + 1);
    if (!lists)
        return vm_error(v, at, "out of memory");
    st->lists = lists;
    for (size_t i = 0; i < n; i++)
        st->items[st->nitems + i] = items ? items[i] : value_nil();
    st->lists[st->nlists] = (vm_list){(uint32_t)st->nitems, (uint32_t)n, depth};
    st->nitems += n;
    *out = value_ref(V_LIST, home, (int64_t)st->nlists++);
    return true;
}

bool vm_make_list(vm *v, const value *items, size_t n, span at, value *out)
{
    return store_list(v, &v->scratch, HOME_VM, items, n, at, out);
}

bool vm_gather_add(vm *v, vm_gather *g, value x, span at)
{
    /* the list it becomes will be a scratch list: held to the limit now */
    if (v->scratch.nitems + g->n + 1 > v->limits.list_values)
        return list_limit_reached(v, at);
    value *grown = mem_grow(g->items, sizeof(value), &g->cap, g->n + 1);
    if (!grown)
        return vm_error(v, at, "out of memory");
    g->items = grown;
    g->items[g->n++] = x;
    return true;
}

bool vm_gather_list(vm *v, vm_gather *g, span at, value *out)
{
    bool ok = vm_make_list(v, g->items, g->n, at, out);
    vm_gather_drop(g);
    return ok;
}

void vm_gather_drop(vm_gather *g)
{
    if (g->items)
        mem_free(g->items, g->cap * sizeof(value));
    *g = (vm_gather){0};
}

static value *list_slots(vm *v, value list, size_t *n)
{
    return (value *)vm_list_items(v, list, n);
}

const value *vm_list_items(const vm *v, value list, size_t *n)
{
    const vm_store *st = list.type == V_LIST ? store_of(v, list) : NULL;
    if (!st || (size_t)list.num >= st->nlists) {
        *n = 0;
        return NULL;
    }
    *n = st->lists[list.num].len;
    if (!st->items)
        return NULL; /* only empty lists so far: nothing to point into */
    return st->items + st->lists[list.num].start;
}

static bool keep_value(vm *v, value x, span at, value *out, int depth);

/* Out of keep_value's frame, which a list takes once a level. */
static __attribute__((noinline)) bool keep_dice(vm *v, value x, span at, value *out)
{
    const dexpr *d = vm_dexpr(v, x);
    dexpr copy = *d; /* store_dexpr may move the table d points into */
    return store_dexpr(v, &v->kept, HOME_KEPT, &copy, at, out);
}

bool vm_keep(vm *v, value x, span at, value *out)
{
    return keep_value(v, x, at, out, 1);
}

/* depth: how many lists down x is, against the nesting limit (met when
   the list was made: this only holds if the limit came down since) */
static bool keep_value(vm *v, value x, span at, value *out, int depth)
{
    *out = x;
    if (x.type == V_ROLL)
        return true; /* its breakdown lives in the ring of rolls while it lasts (roll_of checks) */
    if (x.home != HOME_VM)
        return true;
    if (x.type == V_DISTRIB)
        return vm_dist_keep(v, x, at, out);
    if (x.type == V_DICE)
        return keep_dice(v, x, at, out);
    if (x.type == V_LIST) {
        if (!nesting_ok(v, (uint32_t)depth, at))
            return false;
        size_t n;
        const value *items = vm_list_items(v, x, &n);
        value *copy = n ? mem_alloc(n * sizeof(value)) : NULL;
        if (n && !copy)
            return vm_error(v, at, "out of memory");
        if (n)
            memcpy(copy, items, n * sizeof(value));
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++)
            ok = keep_value(v, copy[i], at, &copy[i], depth + 1);
        ok = ok && store_list(v, &v->kept, HOME_KEPT, copy, n, at, out);
        if (copy)
            mem_free(copy, n * sizeof(value));
        return ok;
    }
    return true;
}

void vm_begin_command(vm *v)
{
    v->scratch.ndice = v->scratch.nitems = v->scratch.nlists = 0;
    vm_dist_free_store(&v->scratch);
    v->steps_left = vm_step_budget(v);
    v->failed = false;
    /* what the command may add to what is held now */
    mem_set_budget(v->limits.memory);
    mem_ceiling_reached();
}

void vm_end_command(vm *v)
{
    (void)v;
    mem_set_budget(SIZE_MAX);
}

vm_mark vm_scratch_mark(const vm *v)
{
    const vm_store *st = &v->scratch;
    return (vm_mark){st->ndice, st->nitems, st->nlists, st->ndists};
}

void vm_scratch_release(vm *v, vm_mark m)
{
    vm_store *st = &v->scratch;
    for (size_t i = m.ndists; i < st->ndists; i++)
        dist_free(st->dists[i]);
    st->ndice = m.ndice;
    st->nitems = m.nitems;
    st->nlists = m.nlists;
    st->ndists = m.ndists;
}

/* --- formatting ------------------------------------------------------------------- */

static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(at < cap ? buf + at : NULL, at < cap ? cap - at : 0, fmt, ap);
    va_end(ap);
    return at + (n > 0 ? (size_t)n : 0);
}

static size_t format_rational(char *buf, size_t cap, size_t at, int64_t num, int64_t den)
{
    if (den == 1)
        return put(buf, cap, at, "%" PRId64, num);
    /* A fraction that ends as a decimal reads as one (7/2 -> 3.5, a
       tiebreak 20.08); others stay exact (10/3). */
    int64_t d = den, digits = 0;
    while (d % 10 == 0 || d % 2 == 0 || d % 5 == 0) {
        if (d % 10 == 0)
            d /= 10;
        else if (d % 2 == 0)
            d /= 2;
        else
            d /= 5;
        digits++;
    }
    if (d != 1 || digits > 18)
        return put(buf, cap, at, "%" PRId64 "/%" PRId64, num, den);
    int64_t scale = 1;
    for (int64_t i = 0; i < digits; i++)
        scale *= 10;
    /* exact: num/den == num*(scale/den)/scale; find the fewest digits */
    __int128 scaled = (__int128)num * (scale / den);
    bool neg = scaled < 0;
    if (neg)
        scaled = -scaled;
    __int128 whole = scaled / scale, frac = scaled % scale;
    while (digits > 0 && frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    return put(buf, cap, at, "%s%lld.%0*lld", neg ? "-" : "", (long long)whole, (int)digits, (long long)frac);
}

/* faces: the rolled faces in term order, counts[t] of them for term t; or
   NULL for the dice alone */
static size_t format_dexpr(const dexpr *d, char *buf, size_t cap, size_t at, const dice_face *faces,
                           const uint16_t *counts)
{
    uint32_t face = 0;
    for (int t = 0; t < d->nterms; t++) {
        const dterm *term = &d->terms[t];
        /* a negative multiple reads as a subtraction: "- d12", not "+ -1*d12" */
        int64_t sign = term->times < 0 ? -term->sign : term->sign;
        int times = term->times < 0 ? -term->times : term->times;
        if (t > 0)
            at = put(buf, cap, at, sign < 0 ? " - " : " + ");
        else if (sign < 0)
            at = put(buf, cap, at, "-");
        if (times != 1)
            at = put(buf, cap, at, "%d*", times);
        if (term->is_constant) {
            at = put(buf, cap, at, "%" PRId64, term->constant);
            continue;
        }
        char note[64];
        dice_format(&term->d, note, sizeof note);
        if (!faces) {
            at = put(buf, cap, at, "%s", note);
            continue;
        }
        char full[1024];
        dice_format_roll(&term->d, faces + face, counts[t], 0, full, sizeof full);
        char *eq = strstr(full, " = ");
        if (eq)
            *eq = '\0';
        at = put(buf, cap, at, "%s", full);
        face += counts[t];
    }
    return at;
}

/* roll.natural, roll.total, roll.faces (the dice kept). */
static __attribute__((noinline)) bool roll_member(vm *v, value roll, const char *name, span at, value *out)
{
    if (v->walk && (!strcmp(name, "natural") || !strcmp(name, "faces")) &&
        !vm_exact_may_read_faces(v, roll, !strcmp(name, "natural"), at))
        return false;
    if (strcmp(name, "natural") == 0) {
        *out = value_int(vm_roll_natural(v, roll));
        return true;
    }
    if (strcmp(name, "total") == 0) {
        *out = value_int(roll.num);
        return true;
    }
    if (strcmp(name, "faces") != 0)
        return vm_error(v, at, "a roll has no member '%s'", name);
    vm_gather g = {0};
    dice_face scratch[DICE_PACKED_MAX];
    uint16_t counts[DEXPR_MAX_TERMS];
    const dexpr *rolled;
    const dice_face *faces = roll_faces(v, roll, scratch, counts, &rolled);
    for (uint32_t i = 0, t = 0; faces && t < DEXPR_MAX_TERMS; t++)
        for (uint16_t k = 0; k < counts[t]; k++, i++)
            if (!(faces[i].flags & (DICE_FACE_DROPPED | DICE_FACE_REROLLED)) &&
                !vm_gather_add(v, &g, value_int(faces[i].value), at)) {
                vm_gather_drop(&g);
                return false;
            }
    return vm_gather_list(v, &g, at, out);
}

size_t vm_format_roll(vm *v, value x, char *buf, size_t cap)
{
    dice_face scratch[DICE_PACKED_MAX];
    uint16_t counts[DEXPR_MAX_TERMS];
    const dexpr *rolled;
    const dice_face *faces = roll_faces(v, x, scratch, counts, &rolled);
    if (!faces)
        return put(buf, cap, 0, "%" PRId64, x.num);
    /* a roll of numbers only (no dice) starts with its first term */
    bool first = rolled->nterms == 0;
    size_t at = first ? 0 : format_dexpr(rolled, buf, cap, 0, faces, counts);
    const roll_record *rec = roll_of(v, x); /* a packed roll has no extras */
    for (int i = 0; rec && i < rec->nextra; i++) {
        const roll_extra *e = &v->roll_details[rec->seq & (v->roll_ring - 1)].extra[i];
        int64_t a = e->amount;
        if (a == 0)
            continue; /* "+ str 0" says nothing */
        bool neg = a < 0;
        if (first)
            at = put(buf, cap, at, "%s", neg ? "-" : "");
        else
            at = put(buf, cap, at, " %s ", neg ? "-" : "+");
        first = false;
        if (e->label >= 0)
            at = put(buf, cap, at, "%s ", program_string(v->p, e->label));
        at = put(buf, cap, at, "%" PRIu64, neg ? (uint64_t)0 - (uint64_t)a : (uint64_t)a);
    }
    if (first)
        at = put(buf, cap, at, "0");
    return put(buf, cap, at, " = %" PRId64, x.num);
}

static size_t format_value(vm *v, value x, char *buf, size_t cap, int depth);

size_t vm_format(vm *v, value x, char *buf, size_t cap)
{
    return format_value(v, x, buf, cap, 1);
}

/* depth: how many lists down x is */
static size_t format_value(vm *v, value x, char *buf, size_t cap, int depth)
{
    const program *p = v->p;
    switch ((value_type)x.type) {
    case V_NIL: return put(buf, cap, 0, "nothing");
    case V_BOOL: return put(buf, cap, 0, "%s", x.num ? "true" : "false");
    case V_INT:
    case V_FRAC: return format_rational(buf, cap, 0, x.num, value_den(x));
    case V_DIST: return put(buf, cap, format_rational(buf, cap, 0, x.num, value_den(x)), " ft");
    case V_TIME:
        switch ((time_kind)x.home) {
        case TIME_UNTIL_TURN_START: return put(buf, cap, 0, "until start of %s turn", x.num <= 1 ? "next" : "a later");
        case TIME_UNTIL_TURN_END: return put(buf, cap, 0, "until end of %sturn", x.num <= 1 ? "" : "next ");
        case TIME_UNTIL_ROUND_START: return put(buf, cap, 0, "until start of next round");
        case TIME_UNTIL_ROUND_END: return put(buf, cap, 0, "until end of %sround", x.num <= 1 ? "" : "next ");
        default: break;
        }
        if (x.home == TIME_SECONDS && x.num % 60 == 0 && x.num != 0)
            return put(buf, cap, 0, "%" PRId64 " minute%s", x.num / 60, x.num == 60 ? "" : "s");
        return put(buf, cap, 0, "%" PRId64 " %s", x.num, time_kind_name((time_kind)x.home, x.num));
    case V_DICE: {
        const dexpr *d = vm_dexpr(v, x);
        return d ? format_dexpr(d, buf, cap, 0, NULL, NULL) : put(buf, cap, 0, "dice?");
    }
    case V_ROLL: return vm_format_roll(v, x, buf, cap);
    case V_STR:
    case V_WORD: return put(buf, cap, 0, "%s", program_string(p, (int)x.num));
    case V_DISTRIB: {
        const struct dist *d = vm_dist_lookup(v, x);
        if (!d)
            return put(buf, cap, 0, "distribution?");
        return put(buf, cap, 0, "distribution %" PRId64 "..%" PRId64 ", mean %.6g%s", dist_lowest(d), dist_highest(d),
                   dist_mean(d), dist_is_exact(d) ? "" : " (approximate)");
    }
    case V_ENUM:
        if (x.aux >= 0 && (size_t)x.aux < p->nenums && x.num < p->enums[x.aux].nmembers)
            return put(buf, cap, 0, "%s", program_string(p, p->enums[x.aux].members[x.num]));
        return put(buf, cap, 0, "enum?");
    case V_CREATURE:
        return put(buf, cap, 0, "%s", (size_t)x.num < v->ncreatures ? v->creatures[x.num].name : "creature?");
    case V_ITEM:
        return put(buf, cap, 0, "%s",
                   x.num >= 0 && x.num < v->r->nitems ? program_string(p, v->r->items[x.num].name) : "item?");
    case V_SQUARE: {
        char sq[32];
        square_format(x.aux, (int32_t)x.num, sq, sizeof sq);
        return put(buf, cap, 0, "%s", sq);
    }
    case V_LIST: {
        /* deeper than the nesting limit (lowered since the list was made):
           the rest is left out, as it is past the end of buf */
        if (depth > v->limits.nesting)
            return put(buf, cap, 0, "[...]");
        size_t n;
        const value *items = vm_list_items(v, x, &n);
        size_t at = put(buf, cap, 0, "[");
        /* the walk stops where buf does: a list that holds another many
           times over would take longer than any command to write out */
        for (size_t i = 0; i < n && at < cap; i++) {
            if (i)
                at = put(buf, cap, at, ", ");
            at += format_value(v, items[i], at < cap ? buf + at : NULL, at < cap ? cap - at : 0, depth + 1);
        }
        return put(buf, cap, at, "]");
    }
    default: return put(buf, cap, 0, "?");
    }
}

/* --- text of any length ----------------------------------------------------------- */

static bool out_of_steps(vm *v, span at)
{
    v->steps_left = 0;
    if (!v->failed)
        vm_error(v, at, "step limit reached (%" PRIu64 " steps; an endless loop? see --max-steps)", v->limits.steps);
    return false;
}

/* Room in t for len more bytes and a NUL. */
static bool text_room(vm *v, vm_text *t, size_t len, span at)
{
    if (t->cap - t->len > len)
        return true;
    char *grown = mem_grow(t->buf, 1, &t->cap, t->len + len + 1);
    if (!grown)
        return vm_error(v, at, "out of memory");
    t->buf = grown;
    return true;
}

bool vm_text_add(vm *v, vm_text *t, const char *s, span at)
{
    size_t len = strlen(s);
    if (!text_room(v, t, len, at))
        return false;
    memcpy(t->buf + t->len, s, len + 1);
    t->len += len;
    return true;
}

static bool text_value(vm *v, vm_text *t, value x, span at, int depth)
{
    /* each value written is a step of the command, as an instruction is */
    if (--v->steps_left < 0)
        return out_of_steps(v, at);
    if (x.type != V_LIST) {
        size_t len = vm_format(v, x, NULL, 0);
        if (!text_room(v, t, len, at))
            return false;
        vm_format(v, x, t->buf + t->len, len + 1);
        t->len += len;
        return true;
    }
    if (!nesting_ok(v, (uint32_t)depth, at) || !vm_text_add(v, t, "[", at))
        return false;
    size_t n;
    vm_list_items(v, x, &n);
    for (size_t i = 0; i < n; i++) {
        /* the items again each time: writing one may move the store */
        size_t len;
        value item = vm_list_items(v, x, &len)[i];
        if ((i && !vm_text_add(v, t, ", ", at)) || !text_value(v, t, item, at, depth + 1))
            return false;
    }
    return vm_text_add(v, t, "]", at);
}

bool vm_text_value(vm *v, vm_text *t, value x, span at)
{
    return text_value(v, t, x, at, 1);
}

void vm_text_free(vm_text *t)
{
    if (t->buf)
        mem_free(t->buf, t->cap);
    *t = (vm_text){0};
}

/* --- arithmetic -------------------------------------------------------------------- */

static bool arith_fail(vm *v, arith_status st, span at, const char *what, value a, value b)
{
    if (st == ARITH_OVERFLOW)
        return vm_error(v, at, "number too large in %s", what);
    if (st == ARITH_TOO_FINE)
        return vm_error(v, at, "fraction too fine in %s: its denominator would pass %" PRId64, what, VALUE_DEN_MAX);
    if (st == ARITH_DIV_ZERO)
        return vm_error(v, at, "division by zero");
    return vm_error(v, at, "cannot %s %s and %s", what, value_type_name(a.type), value_type_name(b.type));
}

static bool is_num(value x)
{
    return x.type == V_INT || x.type == V_FRAC || x.type == V_ROLL;
}

/* A number with no fraction: an integer, or a roll (its total). */
static bool is_whole(value x)
{
    return x.type == V_INT || x.type == V_ROLL;
}

/* [a, b] + [c] is [a, b, c]: a new list. */
static bool list_concat(vm *v, value a, value b, span at, value *out)
{
    size_t na, nb;
    vm_list_items(v, a, &na);
    vm_list_items(v, b, &nb);
    if (!vm_make_list(v, NULL, na + nb, at, out))
        return false;
    /* read the parts only now: making the list may have moved their items */
    size_t n;
    value *dst = list_slots(v, *out, &n);
    const value *pa = vm_list_items(v, a, &na), *pb = vm_list_items(v, b, &nb);
    for (size_t i = 0; i < na; i++)
        dst[i] = pa[i];
    for (size_t i = 0; i < nb; i++)
        dst[na + i] = pb[i];
    /* as deep as the deeper of the two */
    uint32_t da = list_depth(v, a), db = list_depth(v, b);
    v->scratch.lists[out->num].depth = da > db ? da : db;
    return true;
}

static bool do_add(vm *v, value a, value b, int sign, span at, value *out)
{
    const char *what = sign > 0 ? "add" : "subtract";
    if (a.type == V_LIST && b.type == V_LIST && sign > 0)
        return list_concat(v, a, b, at, out);
    if (a.type == V_DICE || b.type == V_DICE) {
        if (a.type != V_DICE) { /* n + dice == dice + n; n - dice == -(dice) + n */
            value neg;
            if (!dice_scale(v, b, sign, at, &neg))
                return false;
            return dice_add(v, neg, a, 1, at, out);
        }
        return dice_add(v, a, b, sign, at, out);
    }
    if (is_num(a) && is_num(b)) {
        arith_status st = rat_add(value_as_frac(a), value_as_frac(b), V_INT, out, sign);
        return st == ARITH_OK || arith_fail(v, st, at, what, a, b);
    }
    if (a.type == V_DIST && b.type == V_DIST) {
        arith_status st = rat_add(a, b, V_DIST, out, sign);
        return st == ARITH_OK || arith_fail(v, st, at, what, a, b);
    }
    if (a.type == V_ENUM && b.type == V_ENUM && a.aux == b.aux && sign < 0) {
        /* steps between members: large - average == 1 */
        *out = value_int(a.num - b.num);
        return true;
    }
    if (a.type == V_TIME && b.type == V_TIME) {
        if (a.home != b.home)
            return vm_error(v, at, "cannot %s %s and %s", what, time_kind_name((time_kind)a.home, 2),
                            time_kind_name((time_kind)b.home, 2));
        int64_t n;
        if (sign > 0 ? __builtin_add_overflow(a.num, b.num, &n) : __builtin_sub_overflow(a.num, b.num, &n))
            return arith_fail(v, ARITH_OVERFLOW, at, what, a, b);
        *out = value_time((time_kind)a.home, n);
        return true;
    }
    return arith_fail(v, ARITH_TYPE, at, what, a, b);
}

static bool do_mul(vm *v, value a, value b, span at, value *out)
{
    if (a.type == V_DICE && is_num(b) && value_as_frac(b).type == V_INT)
        return dice_scale(v, a, b.num, at, out);
    if (b.type == V_DICE && is_num(a) && value_as_frac(a).type == V_INT)
        return dice_scale(v, b, a.num, at, out);
    if (is_num(a) && is_num(b)) {
        arith_status st = rat_mul(value_as_frac(a), value_as_frac(b), V_INT, out);
        return st == ARITH_OK || arith_fail(v, st, at, "multiply", a, b);
    }
    if ((a.type == V_DIST && is_num(b)) || (is_num(a) && b.type == V_DIST)) {
        arith_status st = rat_mul(value_as_frac(a), value_as_frac(b), V_DIST, out);
        return st == ARITH_OK || arith_fail(v, st, at, "multiply", a, b);
    }
    if ((a.type == V_TIME && is_num(b)) || (is_num(a) && b.type == V_TIME)) {
        value t = a.type == V_TIME ? a : b, k = value_as_frac(a.type == V_TIME ? b : a);
        int64_t n;
        if (k.type != V_INT)
            return vm_error(v, at, "a duration can only be multiplied by a whole number");
        if (__builtin_mul_overflow(t.num, k.num, &n))
            return arith_fail(v, ARITH_OVERFLOW, at, "multiply", a, b);
        *out = value_time((time_kind)t.home, n);
        return true;
    }
    return arith_fail(v, ARITH_TYPE, at, "multiply", a, b);
}

static bool do_div(vm *v, value a, value b, bool floor_div, span at, value *out)
{
    value_type rt;
    if (is_num(a) && is_num(b))
        rt = V_INT;
    else if (a.type == V_DIST && is_num(b))
        rt = V_DIST;
    else if (a.type == V_DIST && b.type == V_DIST)
        rt = V_INT;
    else if (a.type == V_TIME && is_num(b)) {
        value k = value_as_frac(b);
        if (k.type != V_INT || k.num == 0)
            return vm_error(v, at,
                            k.num == 0 ? "division by zero" : "a duration can only be divided by a whole number");
        /* in 128 bits: -2^63 / -1 is the one quotient past 64 */
        __int128 q = (__int128)a.num / k.num;
        if (floor_div && (__int128)a.num % k.num != 0 && (a.num < 0) != (k.num < 0))
            q--;
        if (q > INT64_MAX)
            return arith_fail(v, ARITH_OVERFLOW, at, "divide", a, b);
        *out = value_time((time_kind)a.home, (int64_t)q);
        return true;
    } else
        return arith_fail(v, ARITH_TYPE, at, "divide", a, b);
    value bb = b.type == V_DIST ? value_ratio(V_FRAC, b.num, value_den(b)) : value_as_frac(b);
    value aa = a.type == V_DIST && rt == V_INT ? value_ratio(V_FRAC, a.num, value_den(a)) : value_as_frac(a);
    arith_status st = rat_div(aa, bb, rt, out);
    if (st != ARITH_OK)
        return arith_fail(v, st, at, "divide", a, b);
    if (floor_div) {
        int64_t f = value_floor(*out);
        if (out->type == V_DIST)
            *out = value_ratio(V_DIST, f, 1);
        else
            *out = value_int(f);
    }
    return true;
}

/* The same dice written the same way (`2d6 + 1`), wherever they were built. */
static __attribute__((noinline)) bool same_dice(const vm *v, value a, value b)
{
    const dexpr *da = vm_dexpr(v, a), *db = vm_dexpr(v, b);
    char ta[512], tb[512];
    return da && db && format_dexpr(da, ta, sizeof ta, 0, NULL, NULL) < sizeof ta &&
           format_dexpr(db, tb, sizeof tb, 0, NULL, NULL) < sizeof tb && !strcmp(ta, tb);
}

static bool values_equal(const vm *v, value a, value b)
{
    if (is_num(a) && is_num(b))
        return rat_cmp(value_as_frac(a), value_as_frac(b)) == 0;
    /* a word reads as its text: cover(a, b) == "half" */
    if ((a.type == V_WORD && b.type == V_STR) || (a.type == V_STR && b.type == V_WORD))
        return strcmp(program_string(v->p, (int)a.num), program_string(v->p, (int)b.num)) == 0;
    if (a.type != b.type)
        return false;
    switch ((value_type)a.type) {
    case V_NIL: return true;
    case V_DIST: return rat_cmp(a, b) == 0;
    case V_TIME:
    case V_SQUARE:
    case V_ENUM: return a.home == b.home && a.aux == b.aux && a.num == b.num;
    case V_STR:
    case V_WORD:
        if (a.home == b.home)
            return a.num == b.num;
        return strcmp(program_string(v->p, (int)a.num), program_string(v->p, (int)b.num)) == 0;
    case V_DICE: return (a.home == b.home && a.num == b.num) || same_dice(v, a, b);
    default: return a.num == b.num && a.home == b.home;
    }
}

/* a == b: lists by value, item by item, each item a step of the budget (a
   list may hold another many times over) and each level down counted
   against the nesting limit. False on an error, *equal otherwise. */
static bool equal_values(vm *v, value a, value b, span at, int depth, bool *equal)
{
    if (a.type != V_LIST || b.type != V_LIST || (a.home == b.home && a.num == b.num)) {
        *equal = values_equal(v, a, b);
        return true;
    }
    if (!nesting_ok(v, (uint32_t)depth, at))
        return false;
    size_t na, nb;
    const value *ia = vm_list_items(v, a, &na), *ib = vm_list_items(v, b, &nb);
    *equal = na == nb;
    for (size_t i = 0; i < na && *equal; i++) { /* comparing makes nothing: the items stay put */
        if (--v->steps_left < 0)
            return out_of_steps(v, at);
        if (!equal_values(v, ia[i], ib[i], at, depth + 1, equal))
            return false;
    }
    return true;
}

bool vm_values_equal(vm *v, value a, value b, span at, bool *equal)
{
    return equal_values(v, a, b, at, 1, equal);
}

static bool do_compare(vm *v, value a, value b, span at, int *cmp)
{
    if (is_whole(a) && is_whole(b)) { /* the usual case: no fractions to cross-multiply */
        *cmp = (a.num > b.num) - (a.num < b.num);
        return true;
    }
    if (a.type == V_BOOL && b.type == V_BOOL) { /* min/max of outcomes in prob() */
        *cmp = (a.num > b.num) - (a.num < b.num);
        return true;
    }
    if (is_num(a) && is_num(b)) {
        *cmp = rat_cmp(value_as_frac(a), value_as_frac(b));
        return true;
    }
    if (a.type == V_DIST && b.type == V_DIST) {
        *cmp = rat_cmp(a, b);
        return true;
    }
    if (a.type == V_TIME && b.type == V_TIME && a.home == b.home) {
        *cmp = (a.num > b.num) - (a.num < b.num);
        return true;
    }
    if (a.type == V_ENUM && b.type == V_ENUM && a.aux == b.aux) {
        *cmp = (a.num > b.num) - (a.num < b.num);
        return true;
    }
    if (a.type == V_DICE || b.type == V_DICE)
        return vm_error(v, at, "cannot compare dice before they are rolled");
    return vm_error(v, at, "cannot compare %s and %s", value_type_name(a.type), value_type_name(b.type));
}

/* --- builtins -------------------------------------------------------------------- */

static bool builtin_call(vm *v, int id, value *args, int argc, span at, value *out);

/* --- the loop ---------------------------------------------------------------------- */

#define READ_U8() (*ip++)
#define READ_U16() (ip += 2, (uint16_t)(ip[-2] | ip[-1] << 8))
/* SP is the stack top: v->sp, except in run()'s first instructions */
#define SP v->sp
#define PUSH(x) (*SP++ = (x))
#define POP() (*--SP)
#define PEEK(n) (SP[-1 - (n)])

static span op_span(const frame *f, const uint8_t *ip)
{
    return f->c->spans[ip - f->c->code];
}

/* at: where the call is, for an error only (a pointer: most calls never
   need it, so it is not built for them) */
static inline bool push_frame(vm *v, const chunk *c, int self, int nargs, const span *at)
{
    if (v->nframes >= VM_FRAMES_MAX || v->nframes >= v->limits.call_depth)
        return vm_error(
            v, *at, "calls nested too deeply (limit is %d; a rule that calls or triggers itself? see --limit depth=N)",
            v->limits.call_depth);
    /* room for all it may hold at once, from its base (its arguments) */
    if ((uint64_t)(v->sp - v->stack) - (uint64_t)nargs + c->max_stack + VM_STACK_SLACK > VM_STACK_MAX)
        return vm_error(v, *at, "stack limit reached (%d values)", VM_STACK_MAX);
    if (nargs != c->nparams) {
        /* pad missing optional parameters (an action's target) with nothing */
        while (nargs < c->nparams) {
            PUSH(value_nil());
            nargs++;
        }
        if (nargs > c->nparams)
            return vm_error(v, *at, "%s takes %d argument%s, not %d", c->name, c->nparams, c->nparams == 1 ? "" : "s",
                            nargs);
    }
    frame *f = &v->frames[v->nframes++];
    f->c = c;
    f->ip = c->code;
    f->base = v->sp - nargs;
    f->self = self;
    return true;
}

/* Runs until the frame at depth `stop` returns; its result is left on the
 * stack. Aligned to a cache line, so that its hot blocks keep their
 * alignment when code before it grows or shrinks: a shift of 48 bytes
 * once made a loop of `d20 + 5` rolls 1.6 times slower, with the same
 * instructions. */
__attribute__((aligned(64))) static bool run(vm *v, int stop)
{
    frame *f = &v->frames[v->nframes - 1];
    /* the running frame's ip lives here; its frame has it only while
       another frame runs above it */
    /* op_ip: where the running instruction began, for its errors' spans;
       set by the instructions that call out, and by the others only on
       their way to an error, so that the loop need not hold it */
    const uint8_t *ip = f->ip, *op_ip;
    /* the stack top of the instructions that call nothing that uses it:
       kept in a register, not reloaded from v->sp by each of them */
    value *sp;
    value a, b, r;
    int cmp;
    bool equal;

#ifdef FRAY_COMPUTED_GOTO
    static void *const dispatch[OP_COUNT] = {
#define OP(name, operands, effect, meaning) &&op_##name,
#include "runtime/opcodes.def"
#undef OP
    };
#define LABEL(name) op_##name:
#define DISPATCH() goto *dispatch[*ip++];
#else
#define LABEL(name) case OP_##name:
#define DISPATCH() switch ((opcode)*ip++)
#endif
#undef SP
#define SP sp
#define CASE(name) LABEL(name)
#define NEXT goto next
#define HERE op_span(f, op_ip)
/* the same as a pointer, for a call that needs it only on an error */
#define HERE_AT (&f->c->spans[op_ip - f->c->code])
/* a binary instruction: pop b then a; distributions take their own path */
#define BINARY(op, body)                                     \
    {                                                        \
        b = POP();                                           \
        a = POP();                                           \
        if (a.type == V_DISTRIB || b.type == V_DISTRIB) {    \
            FAIL_IF(!vm_dist_binary(v, op, a, b, HERE, &r)); \
            PUSH(r);                                         \
            NEXT;                                            \
        }                                                    \
        body;                                                \
        NEXT;                                                \
    }
/* two lists out of line: they are walked, and may fail */
#define EQUAL(a, b)                                           \
    do {                                                      \
        if ((a).type != V_LIST || (b).type != V_LIST)         \
            equal = values_equal(v, a, b);                    \
        else                                                  \
            FAIL_IF(!equal_values(v, a, b, HERE, 1, &equal)); \
    } while (0)
/* whole numbers inline; the rest (and the error's location) out of line */
#define COMPARE(a, b)                                        \
    do {                                                     \
        if (is_whole(a) && is_whole(b))                      \
            cmp = ((a).num > (b).num) - ((a).num < (b).num); \
        else                                                 \
            FAIL_IF(!do_compare(v, a, b, HERE, &cmp));       \
    } while (0)
#define FAIL_IF(cond)  \
    do {               \
        if (cond)      \
            goto fail; \
    } while (0)

next_reload:
    sp = v->sp;
next:
    /* the one check per instruction: an error empties the budget too,
       and a signed count lets the decrement's sign be the test */
    if (__builtin_expect(--v->steps_left < 0, 0))
        goto out_of_steps;
    DISPATCH()
    {
        /* These first instructions call nothing that reads or moves the
           stack, so its top stays in sp, a register, rather than going
           through v->sp in memory at every push and pop (what makes a
           loop of rolls wait on its own stores). An error needs no
           write-back: fail sets the stack top from the frames. */
        CASE(CONST)
        {
            PUSH(f->c->consts[READ_U16()]);
            NEXT;
        }
        CASE(NIL)
        {
            PUSH(value_nil());
            NEXT;
        }
        CASE(TRUE)
        {
            PUSH(value_bool(true));
            NEXT;
        }
        CASE(FALSE)
        {
            PUSH(value_bool(false));
            NEXT;
        }
        CASE(POP)
        {
            SP--;
            NEXT;
        }
        CASE(DUP)
        {
            a = PEEK(0);
            PUSH(a);
            NEXT;
        }
        CASE(GET_LOCAL)
        {
            PUSH(f->base[READ_U8()]);
            NEXT;
        }
        CASE(SET_LOCAL)
        {
            f->base[READ_U8()] = POP();
            NEXT;
        }
        CASE(GET_GLOBAL)
        {
            uint16_t g = READ_U16();
            PUSH(g < v->globals_cap ? v->globals[g] : value_nil());
            NEXT;
        }
        CASE(SELF)
        {
            PUSH(f->self >= 0 ? value_ref(V_CREATURE, 0, f->self) : value_nil());
            NEXT;
        }
        CASE(JUMP)
        {
            int16_t off = (int16_t)READ_U16();
            ip += off;
            NEXT;
        }
        CASE(JUMP_IF_FALSE)
        {
            int16_t off = (int16_t)READ_U16();
            a = POP();
            if (__builtin_expect(a.type == V_BOOL, 1)) { /* a comparison's: no call to look at it */
                ip += a.num ? 0 : off;
                NEXT;
            }
            if (__builtin_expect(a.type == V_DISTRIB, 0))
                goto branch_on_distribution;
            if (!value_truthy(a))
                ip += off;
            NEXT;
        }
/* `and` stops at a false left side, `or` at a true one: that side,
   as a boolean, is the result; else it goes and the right side follows */
#define SHORT_CIRCUIT(stop_at)                              \
    {                                                       \
        int16_t off = (int16_t)READ_U16();                  \
        if (__builtin_expect(PEEK(0).type == V_DISTRIB, 0)) \
            goto branch_on_distribution;                    \
        if (value_truthy(PEEK(0)) == (stop_at)) {           \
            SP[-1] = value_bool(stop_at);                   \
            ip += off;                                      \
        } else                                              \
            SP--;                                           \
        NEXT;                                               \
    }
        // clang-format off
        CASE(AND_JUMP) SHORT_CIRCUIT(false);
        CASE(OR_JUMP) SHORT_CIRCUIT(true);
        // clang-format on
        CASE(REPEAT_NEXT)
        {
            int16_t off = (int16_t)READ_U16();
            value *count = &SP[-1];
            if (__builtin_expect(count->type == V_INT, 1)) { /* the usual count: no fractions to floor */
                if (count->num < 1)
                    ip += off;
                else
                    count->num--;
                NEXT;
            }
            a = *count;
            if (!is_num(a)) {
                op_ip = ip - 3;
                vm_error(v, HERE, "'repeat' needs a count, not %s", value_type_name(a.type));
                goto fail;
            }
            if (value_floor(value_as_frac(a)) < 1) {
                ip += off;
                NEXT;
            }
            SP[-1] = value_int(value_floor(value_as_frac(a)) - 1);
            NEXT;
        }
        CASE(ROLL_CONST)
        {
            /* straight into its stack slot: a copy through r would reload
               the fresh 16 bytes before the stores that wrote them retire */
            uint16_t index = READ_U16();
            if (__builtin_expect(!roll_packed(v, index, SP), 0)) {
                op_ip = ip - 3;
                FAIL_IF(!roll_program_slow(v, index, HERE_AT, SP));
            }
            SP++;
            NEXT;
        }
        /* From here on the stack top is v->sp: these instructions call
           out, and what they call pushes and pops there too. Each stores
           sp on entry (and notes where it began, op_ip), and NEXT reloads
           it. */
#undef SP
#undef CASE
#undef NEXT
#define SP v->sp
#define CASE(name) LABEL(name) v->sp = sp, op_ip = ip - 1;
#define NEXT goto next_reload
        CASE(SET_GLOBAL)
        {
            uint16_t g = READ_U16();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "setting a variable"));
            if (g >= v->globals_cap) {
                size_t old = v->globals_cap;
                value *grown = mem_grow(v->globals, sizeof(value), &v->globals_cap, (size_t)g + 1);
                FAIL_IF(!grown && !vm_error(v, HERE, "out of memory"));
                v->globals = grown;
                for (size_t i = old; i < v->globals_cap; i++)
                    v->globals[i] = value_nil();
            }
            value kept;
            FAIL_IF(!vm_keep(v, POP(), HERE, &kept));
            v->globals[g] = kept;
            NEXT;
        }
        CASE(GET_STAT)
        {
            uint16_t d = READ_U16();
            a = POP();
            if (a.type != V_CREATURE) {
                const char *stat = program_string(v->p, v->p->decls[d].name);
                if (a.type == V_NIL)
                    vm_error(v, HERE, "'%s' needs a creature: none is acting here (write creature.%s)", stat, stat);
                else
                    vm_error(v, HERE, "%s has no stat '%s'", value_type_name(a.type), stat);
                goto fail;
            }
            if (!stat_at_hand(v, (int)a.num, d, &r)) {
                FAIL_IF(!read_stat(v, (int)a.num, d, &r));
                f = &v->frames[v->nframes - 1];
            }
            PUSH(r);
            NEXT;
        }
        CASE(SET_STAT)
        {
            uint16_t d = READ_U16();
            b = POP();
            a = POP();
            if (a.type != V_CREATURE) {
                vm_error(v, HERE, "cannot set '%s' on %s", program_string(v->p, v->p->decls[d].name),
                         value_type_name(a.type));
                goto fail;
            }
            FAIL_IF(!vm_set_stat(v, (int)a.num, d, b, HERE));
            f = &v->frames[v->nframes - 1];
            NEXT;
        }
        CASE(ECHO_STAT)
        {
            uint16_t d = READ_U16();
            a = POP();
            if (a.type == V_CREATURE && !v->cb.quiet) {
                FAIL_IF(!vm_get_stat(v, (int)a.num, d, &b));
                char shown[256];
                vm_format(v, b, shown, sizeof shown);
                combat_say(v, "%s.%s = %s", v->creatures[a.num].name, program_string(v->p, v->p->decls[d].name), shown);
            }
            NEXT;
        }
        CASE(INDEX)
        {
            b = POP();
            a = POP();
            if (a.type != V_LIST) {
                vm_error(v, HERE, "only a list can be indexed, not %s", value_type_name(a.type));
                goto fail;
            }
            if (!is_whole(b)) { /* a roll is its total */
                vm_error(v, HERE, "a list's index is a whole number, not %s", value_type_name(b.type));
                goto fail;
            }
            size_t n;
            const value *items = vm_list_items(v, a, &n);
            int64_t i = b.num < 0 ? (int64_t)n + b.num : b.num;
            if (i < 0 || (uint64_t)i >= n) {
                vm_error(v, HERE, "index %" PRId64 " is outside the list (it has %zu element%s)", b.num, n,
                         n == 1 ? "" : "s");
                goto fail;
            }
            PUSH(items[i]);
            NEXT;
        }
        CASE(GET_MEMBER)
        {
            const char *name = program_string(v->p, READ_U16());
            a = POP();
            if (a.type == V_ROLL) {
                FAIL_IF(!roll_member(v, a, name, HERE, &r));
                PUSH(r);
                NEXT;
            }
            if (a.type == V_LIST) {
                /* list.stat maps: party.dex is the list of their dex */
                size_t n;
                const value *items = vm_list_items(v, a, &n);
                int sid = program_find_string(v->p, name);
                const decl *sd = program_find_decl(v->p, DK_STAT, sid);
                if (!sd)
                    sd = program_find_decl(v->p, DK_RESOURCE, sid);
                if (!sd) {
                    vm_error(v, HERE, "no stat '%s' to read from a list", name);
                    goto fail;
                }
                /* reading a stat may build lists and move the store: the
                   items are copied first (a list of any length) */
                vm_gather src = {0}, got = {0};
                bool ok = true;
                for (size_t i = 0; i < n && ok; i++)
                    ok = vm_gather_add(v, &src, items[i], HERE);
                for (size_t i = 0; i < n && ok; i++) {
                    value it = src.items[i], stat;
                    if (it.type != V_CREATURE)
                        ok = vm_error(v, HERE, "%s has no stat '%s'", value_type_name(it.type), name);
                    else
                        ok = vm_get_stat(v, (int)it.num, program_decl_index(v->p, sd), &stat) &&
                             vm_gather_add(v, &got, stat, HERE);
                }
                vm_gather_drop(&src);
                if (!ok)
                    vm_gather_drop(&got);
                FAIL_IF(!ok);
                f = &v->frames[v->nframes - 1];
                FAIL_IF(!vm_gather_list(v, &got, HERE, &r));
                PUSH(r);
                NEXT;
            }
            if (a.type == V_CREATURE && strcmp(name, "name") == 0) {
                int sid = program_find_string(v->p, v->creatures[a.num].name);
                PUSH(sid >= 0 ? value_ref(V_STR, HOME_PROGRAM, sid) : value_nil());
                NEXT;
            }
            if (a.type == V_CREATURE && strcmp(name, "side") == 0) {
                int side = v->creatures[a.num].side;
                PUSH(side >= 0 ? value_ref(V_WORD, HOME_PROGRAM, v->r->sides[side]) : value_nil());
                NEXT;
            }
            if (a.type == V_ITEM) {
                const value *pv = rules_item_prop(v->r, (int)a.num, program_find_string(v->p, name));
                if (!pv) {
                    vm_error(v, HERE, "%s has no property '%s'", program_string(v->p, v->r->items[a.num].name), name);
                    goto fail;
                }
                PUSH(*pv);
                NEXT;
            }
            vm_error(v, HERE, "%s has no member '%s'", value_type_name(a.type), name);
            goto fail;
        }
        CASE(EVAL_DECL)
        {
            const decl *latest = latest_decl(v, READ_U16());
            a = POP();
            FAIL_IF(a.type != V_CREATURE && a.type != V_NIL &&
                    !vm_error(v, HERE, "%s has no %s", value_type_name(a.type), program_string(v->p, latest->name)));
            FAIL_IF(!vm_call(v, latest->value, a.type == V_CREATURE ? (int)a.num : -1, NULL, 0, &r));
            f = &v->frames[v->nframes - 1];
            PUSH(r);
            NEXT;
        }
        // clang-format off
        CASE(ADD) BINARY(OP_ADD, FAIL_IF(!do_add(v, a, b, 1, HERE, &r)); PUSH(r));
        CASE(SUB) BINARY(OP_SUB, FAIL_IF(!do_add(v, a, b, -1, HERE, &r)); PUSH(r));
        CASE(MUL) BINARY(OP_MUL, FAIL_IF(!do_mul(v, a, b, HERE, &r)); PUSH(r));
        CASE(DIV) BINARY(OP_DIV, FAIL_IF(!do_div(v, a, b, false, HERE, &r)); PUSH(r));
        CASE(IDIV) BINARY(OP_IDIV, FAIL_IF(!do_div(v, a, b, true, HERE, &r)); PUSH(r));
        // clang-format on
        CASE(NEG)
        {
            a = POP();
            if (a.type == V_DICE) {
                FAIL_IF(!dice_scale(v, a, -1, HERE, &r));
            } else if (a.type == V_DISTRIB) {
                FAIL_IF(!vm_dist_binary(v, OP_MUL, value_int(-1), a, HERE, &r));
            } else if (is_num(a) || a.type == V_DIST) {
                if (a.num == INT64_MIN) {
                    vm_error(v, HERE, "number too large to negate");
                    goto fail;
                }
                r = a.type == V_ROLL ? value_int(-a.num) : a;
                r.num = -a.num;
            } else {
                vm_error(v, HERE, "cannot negate %s", value_type_name(a.type));
                goto fail;
            }
            PUSH(r);
            NEXT;
        }
        CASE(NOT)
        {
            a = POP();
            if (a.type == V_DISTRIB) {
                FAIL_IF(!vm_dist_binary(v, OP_EQ, a, value_int(0), HERE, &r));
                PUSH(r);
                NEXT;
            }
            PUSH(value_bool(!value_truthy(a)));
            NEXT;
        }
        // clang-format off
        CASE(EQ) BINARY(OP_EQ, EQUAL(a, b); PUSH(value_bool(equal)));
        CASE(NE) BINARY(OP_NE, EQUAL(a, b); PUSH(value_bool(!equal)));
        CASE(LT) BINARY(OP_LT, COMPARE(a, b); PUSH(value_bool(cmp < 0)));
        CASE(LE) BINARY(OP_LE, COMPARE(a, b); PUSH(value_bool(cmp <= 0)));
        CASE(GT) BINARY(OP_GT, COMPARE(a, b); PUSH(value_bool(cmp > 0)));
        CASE(GE) BINARY(OP_GE, COMPARE(a, b); PUSH(value_bool(cmp >= 0)));
        // clang-format on
        CASE(INTERVAL)
        {
            /* lo..hi of integers is the list of every integer between */
            b = POP();
            a = POP();
            if (!is_whole(a) || !is_whole(b)) { /* a roll is its total */
                vm_error(v, HERE, "an interval needs two whole numbers, not %s and %s", value_type_name(a.type),
                         value_type_name(b.type));
                goto fail;
            }
            /* the span in unsigned arithmetic: INT64_MIN..INT64_MAX passes 63 bits */
            if (b.num < a.num || (uint64_t)b.num - (uint64_t)a.num >= v->limits.list_values) {
                if (b.num < a.num)
                    FAIL_IF(!vm_make_list(v, NULL, 0, HERE, &r));
                else {
                    vm_error(v, HERE, "interval too long (limit is %zu values)", v->limits.list_values);
                    goto fail;
                }
            } else {
                size_t n = (size_t)(b.num - a.num) + 1;
                FAIL_IF(!vm_make_list(v, NULL, n, HERE, &r));
                size_t len;
                value *items = list_slots(v, r, &len);
                for (size_t i = 0; i < len; i++)
                    items[i] = value_int(a.num + (int64_t)i);
            }
            PUSH(r);
            NEXT;
        }
        CASE(ROLL)
        {
            a = POP();
            FAIL_IF(!vm_roll(v, a, HERE, &r));
            PUSH(r);
            NEXT;
        }
        CASE(DISTRIB)
        {
            a = POP();
            if (a.type == V_DICE)
                FAIL_IF(!vm_distrib(v, a, HERE, &r));
            else
                r = a;
            PUSH(r);
            NEXT;
        }
        CASE(CHOOSE)
        {
            value fv = POP(), tv = POP(), cv = POP();
            if (cv.type == V_DISTRIB || tv.type == V_DISTRIB || fv.type == V_DISTRIB)
                FAIL_IF(!vm_dist_choose(v, cv, tv, fv, HERE, &r));
            else
                r = value_truthy(cv) ? tv : fv;
            PUSH(r);
            NEXT;
        }
        CASE(ROLL_SUM)
        {
            int n = READ_U8();
            unsigned negative = READ_U8();
            FAIL_IF(!roll_sum(v, SP - n, n, negative, HERE, &r));
            SP -= n;
            PUSH(r);
            NEXT;
        }
        CASE(ITER_NEXT)
        {
            int16_t off = (int16_t)READ_U16();
            value list = PEEK(1), index = PEEK(0);
            size_t n;
            const value *items = vm_list_items(v, list, &n);
            if (list.type != V_LIST) {
                vm_error(v, HERE, "'for' needs a list, not %s", value_type_name(list.type));
                goto fail;
            }
            if ((size_t)index.num >= n) {
                ip += off;
                NEXT;
            }
            SP[-1].num++;
            PUSH(items[index.num]);
            NEXT;
        }
        CASE(CALL_BUILTIN)
        {
            int id = READ_U8(), argc = READ_U8();
            value *args = SP - argc;
            FAIL_IF(!builtin_call(v, id, args, argc, HERE, &r));
            SP -= argc;
            PUSH(r);
            NEXT;
        }
        CASE(CALL_EXACT)
        {
            const decl *latest = latest_decl(v, READ_U16());
            int argc = READ_U8();
            unsigned rolled = READ_U8();
            FAIL_IF(!vm_exact_call(v, VM_EXACT_PROCEDURE, (int)(latest - v->p->decls), f->self, SP - argc, argc, rolled,
                                   HERE, &r));
            f = &v->frames[v->nframes - 1];
            SP -= argc;
            PUSH(r);
            NEXT;
        }
        CASE(CHECK_EXACT)
        {
            int check = READ_U16(), argc = READ_U8();
            unsigned rolled = READ_U8();
            FAIL_IF(argc > CHECK_MAX_PARAMS &&
                    !vm_error(v, HERE, "too many arguments (limit is %d)", CHECK_MAX_PARAMS));
            FAIL_IF(!vm_exact_call(v, VM_EXACT_CHECK, check, f->self, SP - argc, argc, rolled, HERE, &r));
            f = &v->frames[v->nframes - 1];
            SP -= argc;
            PUSH(r);
            NEXT;
        }
        CASE(EXACT_ENTER)
        {
            FAIL_IF(!vm_exact_enter(v, HERE));
            NEXT;
        }
        CASE(EXACT_LEAVE)
        {
            vm_exact_leave(v);
            NEXT;
        }
        CASE(CALL)
        {
            const decl *latest = latest_decl(v, READ_U16());
            int argc = READ_U8();
            if (latest->body < 0) {
                vm_error(v, HERE, "procedure %s has no body", program_string(v->p, latest->name));
                goto fail;
            }
            f->ip = ip;
            FAIL_IF(!push_frame(v, v->p->chunks[latest->body], f->self, argc, &f->c->spans[op_ip - f->c->code]));
            f = &v->frames[v->nframes - 1];
            ip = f->ip;
            NEXT;
        }
        CASE(RETURN)
        {
            r = POP();
            SP = f->base;
            v->nframes--;
            PUSH(r);
            if (v->nframes == stop)
                return true;
            f = &v->frames[v->nframes - 1];
            ip = f->ip;
            NEXT;
        }
        CASE(LIST)
        {
            int n = READ_U8();
            FAIL_IF(!vm_make_list(v, SP - n, (size_t)n, HERE, &r));
            SP -= n;
            PUSH(r);
            NEXT;
        }
        CASE(PRINT)
        {
            /* the whole line, however long: writing it is counted against
               the step budget and the memory limit, as building it was */
            int n = READ_U8();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "print"));
            vm_text line = {0};
            bool ok = vm_text_add(v, &line, "", HERE);
            for (int i = 0; i < n && ok; i++)
                ok = (!i || vm_text_add(v, &line, " ", HERE)) && vm_text_value(v, &line, SP[i - n], HERE);
            SP -= n;
            if (ok && v->cb.quiet) {
                combat_output(v, line.buf); /* quiet keeps what the rules print */
            } else if (ok) {
                combat_say_line(v, line.buf); /* a line of the transcript, kept in the log */
            }
            vm_text_free(&line);
            FAIL_IF(!ok);
            NEXT;
        }
        CASE(EMIT)
        {
            int event = READ_U16(), argc = READ_U8();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "emit"));
            value args[32];
            int n = argc > 32 ? 32 : argc;
            memcpy(args, SP - argc, (size_t)n * sizeof(value));
            SP -= argc;
            FAIL_IF(!events_emit(v, event, args, n, HERE));
            f = &v->frames[v->nframes - 1];
            NEXT;
        }
        CASE(FAIL)
        {
            char msg[1024];
            vm_format(v, POP(), msg, sizeof msg);
            vm_error(v, HERE, "%s", msg);
            goto fail;
        }
        CASE(PLAY)
        {
            int cmd = READ_U8();
            int operand = READ_U16();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "a command of play"));
            FAIL_IF(!play_command(v, cmd, operand, HERE));
            f = &v->frames[v->nframes - 1];
            NEXT;
        }
        CASE(ASK)
        {
            int ruling = READ_U16();
            /* a display reads a ruling as it stands (rulings_ask) */
            FAIL_IF(v->exact_depth > v->peek_depth && vm_exact_refuses(v, HERE, "asking a ruling"));
            FAIL_IF(!rulings_ask(v, ruling, f->self, &r, HERE));
            f = &v->frames[v->nframes - 1];
            PUSH(r);
            NEXT;
        }
        CASE(ACT)
        {
            int action = READ_U16(), argc = READ_U8();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "taking an action"));
            value args[32];
            if (argc > 32) {
                vm_error(v, HERE, "too many arguments (limit is 32)");
                goto fail;
            }
            memcpy(args, SP - argc, (size_t)argc * sizeof(value));
            SP -= argc;
            a = POP();
            if (a.type != V_CREATURE) {
                vm_error(v, HERE, "only a creature takes actions, not %s", value_type_name(a.type));
                goto fail;
            }
            bool allowed;
            FAIL_IF(!act_take(v, (int)a.num, action, args, argc, false, &allowed, HERE));
            f = &v->frames[v->nframes - 1];
            PUSH(value_bool(allowed));
            NEXT;
        }
        CASE(CHECK)
        {
            int check = READ_U16(), argc = READ_U8();
            value args[CHECK_MAX_PARAMS];
            if (argc > CHECK_MAX_PARAMS) {
                vm_error(v, HERE, "too many arguments (limit is %d)", CHECK_MAX_PARAMS);
                goto fail;
            }
            memcpy(args, SP - argc, (size_t)argc * sizeof(value));
            SP -= argc;
            FAIL_IF(!checks_roll(v, check, args, argc, &r, HERE));
            f = &v->frames[v->nframes - 1];
            PUSH(r);
            NEXT;
        }
        CASE(CMP_ROLL)
        {
            int cmp_op = READ_U8();
            int label = READ_U16();
            b = POP();
            a = POP();
            if (cmp_op & CMP_ROLL_RIGHT) {
                /* `target <= roll` is `roll >= target` */
                static const uint8_t mirror[] = {0, 1, 4, 5, 2, 3};
                cmp_op = mirror[(cmp_op & 0x7f) % 6];
                value t = a;
                a = b;
                b = t;
            }
            bool result;
            FAIL_IF(!checks_compare(v, a, cmp_op, b, label == 0xffff ? -1 : label, &result, HERE));
            f = &v->frames[v->nframes - 1];
            PUSH(value_bool(result));
            NEXT;
        }
        CASE(CREATURE)
        {
            const char *name = program_string(v->p, READ_U16());
            int c = vm_find_creature(v, name);
            if (c < 0) {
                vm_error(v, HERE, "no creature '%s' here yet", name);
                goto fail;
            }
            PUSH(value_ref(V_CREATURE, 0, c));
            NEXT;
        }
#ifndef FRAY_COMPUTED_GOTO
    default: break; /* a byte that is no opcode: reported below */
#endif
    }
#ifndef FRAY_COMPUTED_GOTO
    vm_error(v, op_span(f, ip - 1), "invalid instruction %d", ip[-1]);
#endif
branch_on_distribution:
    /* true or false only by chance: a condition on dice not rolled, or
       on a distribution prob() would give the chance of */
    op_ip = ip - 3;
    vm_error(v, HERE,
             "a distribution is neither true nor false: roll the dice to decide, or ask prob() how likely it is "
             "(a procedure called inside prob() gets one outcome at a time)");
    goto fail;
out_of_steps:
    out_of_steps(v, op_span(f, ip));
fail:
    /* unwind this run's frames (there is always one: the stack top is
       set from it, whichever of v->sp and sp was current); the caller
       reports the error */
    if (v->nframes > stop) {
        v->sp = v->frames[stop].base;
        v->nframes = stop;
    }
    return false;
#undef SP
#undef CASE
#undef NEXT
#define SP v->sp
}

bool vm_call(vm *v, int chunk_id, int self, const value *args, int nargs, value *result)
{
    if (v->failed)
        return false;
    if (chunk_id < 0 || (size_t)chunk_id >= v->p->nchunks)
        return vm_error(v, (span){0}, "internal: no chunk %d", chunk_id);
    const chunk *c = v->p->chunks[chunk_id];
    if (v->sp + nargs + VM_STACK_SLACK > v->stack + VM_STACK_MAX)
        return vm_error(v, c->where, "stack limit reached (%d values)", VM_STACK_MAX);
    for (int i = 0; i < nargs; i++)
        PUSH(args[i]);
    int stop = v->nframes, exact_depth = v->exact_depth;
    if (!push_frame(v, c, self, nargs, &c->where))
        return false;
    if (!run(v, stop)) {
        vm_exact_unwind(v, exact_depth); /* the exact contexts the error left */
        return false;
    }
    *result = POP();
    return true;
}

bool vm_run_commands(vm *v, size_t first)
{
    if (!combat_sync(v))
        return vm_error(v, (span){0}, "out of memory");
    for (size_t i = first; i < v->p->ncommands; i++) {
        vm_begin_command(v); /* the budget is per command */
        v->cb.command_no++;
        value r;
        bool ok = vm_call(v, v->p->commands[i], -1, NULL, 0, &r);
        vm_end_command(v);
        combat_flush_roll(v);
        if (!ok)
            return false;
        if (!encounter_check_over(v, v->p->chunks[v->p->commands[i]]->where))
            return false;
    }
    return true;
}

/* --- builtins -------------------------------------------------------------------- */

static bool collect(vm *v, value *args, int argc, const value **items, size_t *n)
{
    if (argc == 1 && args[0].type == V_LIST) {
        *items = vm_list_items(v, args[0], n);
        return true;
    }
    *items = args;
    *n = (size_t)argc;
    return true;
}

static bool dist_extreme(vm *v, const value *items, size_t n, bool want_max, span at, value *out)
{
    const struct dist *acc;
    if (!vm_dist_of(v, items[0], at, &acc))
        return false;
    for (size_t i = 1; i < n; i++) {
        const struct dist *next;
        if (!vm_dist_of(v, items[i], at, &next))
            return false;
        dist_error err = {.limits = &v->limits.exact};
        struct dist *r = want_max ? dist_maximum(acc, next, &err) : dist_minimum(acc, next, &err);
        if (!r)
            return vm_error(v, at, "%s", err.message);
        if (!vm_dist_value(v, r, at, out))
            return false;
        acc = r;
    }
    if (n == 1)
        return vm_distrib(v, items[0], at, out);
    return true;
}

/* The answer of prob() or mean(): whole + num / den, exactly, when the
 * distribution is exact and the answer fits a number; refused when it is
 * exact and does not fit, or when the counts went to floating point. A
 * distribution with mass cut off (dice that explode or reroll without end,
 * followed to where less than 1e-12 is left) has no exact answer: its
 * answer, `approx`, is rounded to 6 decimal places (doc/language.md, 3.6). */
static bool exact_answer(vm *v, const char *fn, const struct dist *d, bool exact, int64_t whole, dist_count num,
                         dist_count den, double approx, span at, value *out)
{
    if (exact && dist_remainder(d) > 0) {
        double scaled = approx * 1e6;
        if (!(scaled > -9e18 && scaled < 9e18))
            return vm_error(v, at, "%s() is too large for a number", fn);
        return rat_make((int64_t)llround(scaled), 1000000, V_INT, out) == ARITH_OK ||
               vm_error(v, at, "%s() is too large for a number", fn);
    }
    if (!exact)
        return vm_error(v, at,
                        "cannot compute %s() exactly: the distribution has more combinations than 128-bit counts "
                        "hold (fray prob shows it in floating point)",
                        fn);
    if (den <= (dist_count)VALUE_DEN_MAX && num <= (dist_count)INT64_MAX) {
        arith_status st = rat_add(value_int(whole), value_ratio(V_FRAC, (int64_t)num, (int64_t)den), V_INT, out, 1);
        if (st == ARITH_OK)
            return true;
    }
    char n[48], q[48];
    dist_count_format(num, n, sizeof n);
    dist_count_format(den, q, sizeof q);
    if (whole)
        return vm_error(v, at, "%s() is %" PRId64 " + %s/%s exactly, which does not fit in a number", fn, whole, n, q);
    return vm_error(v, at, "%s() is %s/%s exactly, which does not fit in a number (a denominator has at most 48 bits)",
                    fn, n, q);
}

static bool exact_prob_true(vm *v, const struct dist *d, span at, value *out)
{
    dist_count num = 0, den = 1;
    bool exact = dist_exact_nonzero(d, &num, &den);
    double approx = 1.0 - dist_p(d, 0) / (1.0 - dist_remainder(d));
    return exact_answer(v, "prob", d, exact, 0, num, den, approx, at, out);
}

static bool exact_mean(vm *v, const struct dist *d, span at, value *out)
{
    dist_count num = 0, den = 1;
    int64_t whole = 0;
    bool exact = dist_exact_mean(d, &whole, &num, &den);
    return exact_answer(v, "mean", d, exact, whole, num, den, dist_mean(d), at, out);
}

/* chain(d4, d6, ...): roll while each die shows its maximum. */
static bool chain(vm *v, int id, const value *args, int argc, span at, value *out)
{
    const dice *dies[16];
    for (int i = 0; i < argc && i < 16; i++) {
        const dexpr *dx = args[i].type == V_DICE ? vm_dexpr(v, args[i]) : NULL;
        if (!dx || dx->nterms != 1 || dx->terms[0].is_constant || dx->terms[0].d.count != 1)
            return vm_error(v, at, "chain() takes single dice, such as chain(d4, d6, d8)");
        dies[i] = &dx->terms[0].d;
    }
    bool steps = id == BI_chain_steps || id == BI_chain_steps_distribution;
    if (id == BI_chain_distribution || id == BI_chain_steps_distribution) {
        dist_error err = {.limits = &v->limits.exact};
        struct dist *d = dist_chain(dies, argc, steps, &err);
        return d ? vm_dist_value(v, d, at, out) : vm_error(v, at, "%s", err.message);
    }
    int64_t sum = 0, maxima = 0;
    for (int i = 0; i < argc; i++) {
        value r;
        if (!vm_roll(v, args[i], at, &r))
            return false;
        sum += r.num;
        if (r.num < dice_max(dies[i]))
            break;
        maxima++;
    }
    *out = value_int(steps ? maxima : sum);
    return true;
}

static bool builtin_call(vm *v, int id, value *args, int argc, span at, value *out)
{
    static const char *const names[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) #name,
#include "runtime/builtins.def"
#undef BUILTIN
    };
#define BUILTIN_READS false
#define BUILTIN_CHANGES true
    static const bool changes[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) BUILTIN_##effect,
#include "runtime/builtins.def"
#undef BUILTIN
    };
#undef BUILTIN_READS
#undef BUILTIN_CHANGES
    if (id < 0 || id >= BI_COUNT)
        return vm_error(v, at, "internal: unknown builtin %d", id);
    const char *name = names[id];
    if (v->exact_depth && changes[id]) {
        char what[64];
        snprintf(what, sizeof what, "%s()", name);
        if (vm_exact_refuses(v, at, what))
            return false;
    }
    /* a distribution given to a builtin that does not compute with one
       itself: computed there, or refused, never taken for a value (where
       no distribution has been made, as in a fight, none is looked for) */
    if ((v->scratch.ndists || v->kept.ndists) && id != BI_min && id != BI_max && id != BI_prob && id != BI_mean &&
        id != BI_dist && id != BI_maximum && id != BI_minimum && vm_dist_among(v, id, args, argc))
        return vm_dist_builtin(v, id, name, args, argc, at, out);
    const value *items;
    size_t n;
    switch ((builtin_id)id) {
    case BI_min:
    case BI_max: {
        bool want_max = id == BI_max;
        collect(v, args, argc, &items, &n);
        if (n == 0)
            return vm_error(v, at, "%s() of an empty list", name);
        bool any_dist = false;
        for (size_t i = 0; i < n; i++)
            any_dist |= items[i].type == V_DISTRIB;
        if (any_dist)
            return dist_extreme(v, items, n, want_max, at, out);
        value best = items[0];
        for (size_t i = 1; i < n; i++) {
            int c;
            if (!do_compare(v, items[i], best, at, &c))
                return false;
            if (want_max ? c > 0 : c < 0)
                best = items[i];
        }
        *out = best.type == V_ROLL ? value_int(best.num) : best;
        return true;
    }
    case BI_floor:
    case BI_ceil:
    case BI_round: {
        value x = args[0];
        if (!is_num(x) && x.type != V_DIST)
            return vm_error(v, at, "%s() needs a number, not %s", name, value_type_name(x.type));
        value fx = x.type == V_DIST ? x : value_as_frac(x);
        int64_t r = id == BI_floor ? value_floor(fx) : id == BI_ceil ? value_ceil(fx) : value_round(fx);
        *out = x.type == V_DIST ? value_ratio(V_DIST, r, 1) : value_int(r);
        return true;
    }
    case BI_abs: {
        value x = args[0];
        if (!is_num(x) && x.type != V_DIST)
            return vm_error(v, at, "abs() needs a number, not %s", value_type_name(x.type));
        *out = x.type == V_ROLL ? value_int(x.num) : x;
        if (out->num == INT64_MIN)
            return vm_error(v, at, "number too large in abs()");
        if (out->num < 0)
            out->num = -out->num;
        return true;
    }
    case BI_len: {
        if (args[0].type != V_LIST)
            return vm_error(v, at, "len() needs a list, not %s", value_type_name(args[0].type));
        vm_list_items(v, args[0], &n);
        *out = value_int((int64_t)n);
        return true;
    }
    case BI_sum: {
        if (args[0].type != V_LIST)
            return vm_error(v, at, "sum() needs a list, not %s", value_type_name(args[0].type));
        items = vm_list_items(v, args[0], &n);
        /* from the first element, so distances and times sum as themselves */
        value acc = n ? items[0] : value_int(0);
        if (acc.type == V_ROLL)
            acc = value_int(acc.num);
        for (size_t i = 1; i < n; i++)
            if (!do_add(v, acc, items[i], 1, at, &acc))
                return false;
        *out = acc;
        return true;
    }
    case BI_any:
    case BI_all: {
        if (args[0].type != V_LIST)
            return vm_error(v, at, "%s() needs a list, not %s", name, value_type_name(args[0].type));
        items = vm_list_items(v, args[0], &n);
        bool want_all = id == BI_all, acc = want_all;
        for (size_t i = 0; i < n; i++)
            acc = want_all ? acc && value_truthy(items[i]) : acc || value_truthy(items[i]);
        *out = value_bool(acc);
        return true;
    }
    case BI_count: {
        if (args[0].type != V_LIST)
            return vm_error(v, at, "count() needs a list, not %s", value_type_name(args[0].type));
        items = vm_list_items(v, args[0], &n);
        int64_t k = 0;
        for (size_t i = 0; i < n; i++) {
            bool equal;
            if (!equal_values(v, items[i], args[1], at, 1, &equal))
                return false;
            k += equal;
        }
        *out = value_int(k);
        return true;
    }
    case BI_dice: {
        if (value_as_frac(args[0]).type != V_INT || value_as_frac(args[1]).type != V_INT)
            return vm_error(v, at, "dice() needs whole numbers: dice(count, sides)");
        int64_t count = args[0].num, sides = args[1].num;
        if (count < 1 || count > v->limits.dice)
            return vm_error(v, at, "dice count must be 1 to %d, not %" PRId64 " (see --limit dice=N)", v->limits.dice,
                            count);
        if (sides < 1 || sides > v->limits.sides)
            return vm_error(v, at, "dice sides must be 1 to %d, not %" PRId64 " (see --limit sides=N)", v->limits.sides,
                            sides);
        dexpr d = {.nterms = 1};
        d.terms[0] = (dterm){.d = {.count = (int32_t)count, .sides = (int32_t)sides}, .sign = 1, .times = 1};
        return new_dexpr(v, &d, at, out);
    }
    case BI_feet:
    case BI_squares: {
        if (args[0].type != V_DIST)
            return vm_error(v, at, "%s() needs a distance, not %s", name, value_type_name(args[0].type));
        value ft = value_ratio(V_FRAC, args[0].num, value_den(args[0]));
        if (id == BI_squares) {
            const value side = v->r->space.square;
            value per = value_ratio(V_FRAC, side.num, value_den(side)), q;
            arith_status st = rat_div(ft, per, V_FRAC, &q);
            if (st != ARITH_OK)
                return arith_fail(v, st, at, "divide", ft, per);
            *out = value_int(value_floor(q));
            return true;
        }
        return rat_make(ft.num, value_den(ft), V_INT, out) == ARITH_OK;
    }
    case BI_square_side: *out = v->r->space.square; return true;
    case BI_prob:
    case BI_mean: {
        const struct dist *d;
        if (!vm_dist_of(v, args[0], at, &d))
            return false;
        return id == BI_mean ? exact_mean(v, d, at, out) : exact_prob_true(v, d, at, out);
    }
    case BI_dist: return vm_distrib(v, args[0], at, out);
    case BI_maximum:
    case BI_minimum: {
        const struct dist *d;
        if (!vm_dist_of(v, args[0], at, &d))
            return false;
        /* the outermost outcome with any probability */
        int64_t lo = dist_lowest(d), hi = dist_highest(d);
        if (id == BI_maximum)
            while (hi > lo && dist_p(d, hi) == 0.0)
                hi--;
        else
            while (lo < hi && dist_p(d, lo) == 0.0)
                lo++;
        *out = value_int(id == BI_maximum ? hi : lo);
        return true;
    }
    case BI_chain:
    case BI_chain_steps:
    case BI_chain_distribution:
    case BI_chain_steps_distribution: return chain(v, id, args, argc, at, out);
    case BI_COUNT: break;
    default: return combat_builtin(v, id, args, argc, at, out);
    }
    return vm_error(v, at, "internal: unknown builtin %d", id);
}
