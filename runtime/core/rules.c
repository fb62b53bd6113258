/* rules: the typed tables of a rule system: creation, lookup by name, and
 * freeing. Tables only grow; an object keeps its index for the life of the
 * program, so the combat state can refer to slots and conditions by index
 * while the REPL adds rules. */
#include "runtime/core/rules.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/core/program.h"

static const char *const period_names[] = {"", "turn", "round", "encounter"};

const char *period_name(const program *p, period per)
{
    if (per >= PER_DECLARED)
        return per - PER_DECLARED < p->rules->nperiods ? program_string(p, p->rules->periods[per - PER_DECLARED].name)
                                                       : "?";
    return per >= 0 ? period_names[per] : "?";
}

void rules_period_plural(const char *name, text_buf *out)
{
    size_t n = strlen(name);
    char last = n ? name[n - 1] : 0, before = n > 1 ? name[n - 2] : 0;
    bool es = last == 's' || last == 'x' || last == 'z' || ((before == 'c' || before == 's') && last == 'h');
    text_add(out, "%s%s", name, es ? "es" : "s");
}

int rules_period_word(const program *p, const char *word)
{
    const rules *r = p->rules;
    for (int i = 0; i < r->nperiods; i++)
        if (strcmp(program_string(p, r->periods[i].name), word) == 0 ||
            (r->periods[i].plural >= 0 && strcmp(program_string(p, r->periods[i].plural), word) == 0))
            return i;
    return -1;
}

const char *rules_time_name(const program *p, time_kind k, int64_t count)
{
    if (k < TIME_PERIOD)
        return time_kind_name(k, count);
    int i = (int)k - TIME_PERIOD;
    if (i >= p->rules->nperiods)
        return "?";
    const r_period *per = &p->rules->periods[i];
    return program_string(p, count == 1 || per->plural < 0 ? per->name : per->plural);
}

static const char *const absorb_names[] = {
#define ABSORB_NAME(name, word, meaning) word,
    ABSORB_RULES(ABSORB_NAME)
#undef ABSORB_NAME
};

const char *absorb_rule_name(absorb_rule a)
{
    return (unsigned)a < ABSORB_COUNT ? absorb_names[a] : "?";
}

static const char *const role_names[] = {
#define ROLE_NAME(name, word) word,
    SLOT_ROLES(ROLE_NAME)
#undef ROLE_NAME
};

const char *slot_role_name(slot_role r)
{
    return (unsigned)r < ROLE_COUNT ? role_names[r] : "?";
}

void rules_space_defaults(r_space *s)
{
    memset(s, 0, sizeof *s);
    s->from = (origin){-1, {0}, -1};
    s->reach_range = -1;
    s->diag_num = s->diag_den = 1;
    s->difficult = 2;
    rat_make(5, 1, V_DIST, &s->square);
}

rules *rules_new(void)
{
    rules *r = MEM_NEW(rules);
    if (!r)
        return NULL;
    time_config none = {.tick_phase = -1, .from = {-1, {0}, -1}};
    r->rounds_cfg = r->turns_cfg = none;
    r->initiative.check = r->initiative.group_side = -1;
    r->initiative.from = r->encounter.from = r->round_from = (origin){-1, {0}, -1};
    r->initiative.surprise_from = r->initiative.hold_from = (origin){-1, {0}, -1};
    rules_space_defaults(&r->space); /* a grid of 5 ft squares until a `space` says otherwise */
    return r;
}

static void free_rexprs(rexpr *e, int n)
{
    if (e)
        mem_free(e, (size_t)n * sizeof(rexpr));
}

static void free_action(r_action *a)
{
    free_rexprs(a->requires, a->nrequires);
    if (a->requires_else)
        mem_free(a->requires_else, (size_t)a->nrequires * sizeof(int));
}

#define FREE_TABLE(r, name) \
    if ((r)->name)          \
    mem_free((r)->name, (size_t)(r)->name##_cap * sizeof(*(r)->name))

static void free_condition(r_condition *c)
{
    if (c->mods)
        mem_free(c->mods, (size_t)c->nmods * sizeof(r_modifier));
    if (c->forbids)
        mem_free(c->forbids, (size_t)c->nforbids * sizeof(r_forbid));
    if (c->protects)
        mem_free(c->protects, (size_t)c->nprotects * sizeof(r_forbid));
    if (c->implies)
        mem_free(c->implies, (size_t)c->nimplies * sizeof(r_implies));
    if (c->excludes)
        mem_free(c->excludes, (size_t)c->nexcludes * sizeof(int));
    if (c->ends_on)
        mem_free(c->ends_on, (size_t)c->nends_on * sizeof(r_ends_on));
}

/* Frees what an object owns and clears it, keeping its name: an override
 * fills it again. */
void rules_reset(rules *r, decl_kind kind, int i)
{
#define RESET(table)                                 \
    do {                                             \
        int name_ = r->table[i].name;                \
        memset(&r->table[i], 0, sizeof r->table[i]); \
        r->table[i].name = name_;                    \
        r->table[i].from.decl = -1;                  \
        r->table[i].from.cite = -1;                  \
    } while (0)
    switch (kind) {
    case DK_CONDITION:
        free_condition(&r->conditions[i]);
        RESET(conditions);
        break;
    case DK_ACTION:
        free_action(&r->actions[i]);
        RESET(actions);
        break;
    case DK_CHECK:
        if (r->checks[i].labels)
            mem_free(r->checks[i].labels, (size_t)r->checks[i].nterms * sizeof(int));
        RESET(checks);
        break;
    case DK_ITEM:
        if (r->items[i].props)
            mem_free(r->items[i].props, (size_t)r->items[i].nprops * sizeof(r_prop));
        RESET(items);
        break;
    case DK_CREATURE:
        if (r->creatures[i].settings)
            mem_free(r->creatures[i].settings, (size_t)r->creatures[i].nsettings * sizeof(r_setting));
        RESET(creatures);
        break;
    case DK_RELATION: RESET(relations); break;
    case DK_RULING: RESET(rulings); break;
    case DK_TACTIC: RESET(tactics); break;
    case DK_RANGE: RESET(ranges); break;
    case DK_BONUS: RESET(bonuses); break;
    case DK_TRIGGER: RESET(triggers); break;
    case DK_TRACK: RESET(tracks); break;
    case DK_PERIOD:
        RESET(periods);
        r->periods[i].plural = r->periods[i].within = -1;
        break;
    default: break;
    }
#undef RESET
}

void rules_free(rules *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nconditions; i++)
        free_condition(&r->conditions[i]);
    for (int i = 0; i < r->nactions; i++)
        free_action(&r->actions[i]);
    for (int i = 0; i < r->nchecks; i++)
        if (r->checks[i].labels)
            mem_free(r->checks[i].labels, (size_t)r->checks[i].nterms * sizeof(int));
    for (int i = 0; i < r->nevents; i++) {
        if (r->events[i].triggers)
            mem_free(r->events[i].triggers, (size_t)r->events[i].triggers_cap * sizeof(int));
        if (r->events[i].ending)
            mem_free(r->events[i].ending, (size_t)r->events[i].ending_cap * sizeof(int));
    }
    for (int i = 0; i < r->nitems; i++)
        if (r->items[i].props)
            mem_free(r->items[i].props, (size_t)r->items[i].nprops * sizeof(r_prop));
    for (int i = 0; i < r->ncreatures; i++)
        if (r->creatures[i].settings)
            mem_free(r->creatures[i].settings, (size_t)r->creatures[i].nsettings * sizeof(r_setting));
    FREE_TABLE(r, slots);
    FREE_TABLE(r, limits);
    FREE_TABLE(r, exclusives);
    FREE_TABLE(r, exchanges);
    FREE_TABLE(r, phases);
    FREE_TABLE(r, conditions);
    FREE_TABLE(r, bonuses);
    FREE_TABLE(r, checks);
    FREE_TABLE(r, actions);
    FREE_TABLE(r, triggers);
    FREE_TABLE(r, rulings);
    FREE_TABLE(r, relations);
    FREE_TABLE(r, tactics);
    FREE_TABLE(r, resources);
    FREE_TABLE(r, tracks);
    FREE_TABLE(r, ranges);
    FREE_TABLE(r, events);
    FREE_TABLE(r, stats);
    FREE_TABLE(r, items);
    FREE_TABLE(r, creatures);
    FREE_TABLE(r, sides);
    FREE_TABLE(r, periods);
    keymap_free(&r->named);
    if (r->holds_conditions)
        mem_free(r->holds_conditions, (size_t)r->holds_conditions_cap * sizeof(int));
    mem_free(r, sizeof *r);
}

/* A table copied whole; when it cannot be, none (its objects with it). */
#define CLONE_TABLE(r, from, name, ok)                                                               \
    do {                                                                                             \
        (r)->name = mem_dup((from)->name, (size_t)(from)->name##_cap * sizeof(*(from)->name), (ok)); \
        if (!(r)->name)                                                                              \
            (r)->n##name = (r)->name##_cap = 0;                                                      \
    } while (0)

static void clone_condition(r_condition *c, const r_condition *from, bool *ok)
{
    c->mods = mem_dup(from->mods, (size_t)from->nmods * sizeof(r_modifier), ok);
    c->forbids = mem_dup(from->forbids, (size_t)from->nforbids * sizeof(r_forbid), ok);
    c->protects = mem_dup(from->protects, (size_t)from->nprotects * sizeof(r_forbid), ok);
    c->implies = mem_dup(from->implies, (size_t)from->nimplies * sizeof(r_implies), ok);
    c->excludes = mem_dup(from->excludes, (size_t)from->nexcludes * sizeof(int), ok);
    c->ends_on = mem_dup(from->ends_on, (size_t)from->nends_on * sizeof(r_ends_on), ok);
}

/* Every table and what its objects own, as rules_free frees them: a field
 * that owns memory is copied in both. */
rules *rules_clone(const rules *from)
{
    rules *r = MEM_NEW(rules);
    if (!r)
        return NULL;
    bool ok = true;
    *r = *from;
    CLONE_TABLE(r, from, slots, &ok);
    CLONE_TABLE(r, from, limits, &ok);
    CLONE_TABLE(r, from, exclusives, &ok);
    CLONE_TABLE(r, from, exchanges, &ok);
    CLONE_TABLE(r, from, phases, &ok);
    CLONE_TABLE(r, from, conditions, &ok);
    CLONE_TABLE(r, from, bonuses, &ok);
    CLONE_TABLE(r, from, checks, &ok);
    CLONE_TABLE(r, from, actions, &ok);
    CLONE_TABLE(r, from, triggers, &ok);
    CLONE_TABLE(r, from, rulings, &ok);
    CLONE_TABLE(r, from, relations, &ok);
    CLONE_TABLE(r, from, tactics, &ok);
    CLONE_TABLE(r, from, resources, &ok);
    CLONE_TABLE(r, from, tracks, &ok);
    CLONE_TABLE(r, from, ranges, &ok);
    CLONE_TABLE(r, from, events, &ok);
    CLONE_TABLE(r, from, stats, &ok);
    CLONE_TABLE(r, from, items, &ok);
    CLONE_TABLE(r, from, creatures, &ok);
    CLONE_TABLE(r, from, sides, &ok);
    CLONE_TABLE(r, from, periods, &ok);
    for (int i = 0; i < r->nconditions; i++)
        clone_condition(&r->conditions[i], &from->conditions[i], &ok);
    for (int i = 0; i < r->nactions; i++) {
        r->actions[i].requires =
            mem_dup(from->actions[i].requires, (size_t)from->actions[i].nrequires * sizeof(rexpr), &ok);
        r->actions[i].requires_else =
            mem_dup(from->actions[i].requires_else, (size_t)from->actions[i].nrequires * sizeof(int), &ok);
    }
    for (int i = 0; i < r->nchecks; i++)
        r->checks[i].labels = mem_dup(from->checks[i].labels, (size_t)from->checks[i].nterms * sizeof(int), &ok);
    for (int i = 0; i < r->nevents; i++) {
        const r_event *e = &from->events[i];
        r->events[i].triggers = mem_dup(e->triggers, (size_t)e->triggers_cap * sizeof(int), &ok);
        r->events[i].ending = mem_dup(e->ending, (size_t)e->ending_cap * sizeof(int), &ok);
    }
    for (int i = 0; i < r->nitems; i++)
        r->items[i].props = mem_dup(from->items[i].props, (size_t)from->items[i].nprops * sizeof(r_prop), &ok);
    for (int i = 0; i < r->ncreatures; i++)
        r->creatures[i].settings =
            mem_dup(from->creatures[i].settings, (size_t)from->creatures[i].nsettings * sizeof(r_setting), &ok);
    r->named = keymap_clone(&from->named, &ok);
    r->holds_conditions = mem_dup(from->holds_conditions, (size_t)from->holds_conditions_cap * sizeof(int), &ok);
    if (!ok) {
        rules_free(r);
        return NULL;
    }
    return r;
}

/* The key of a name in one of the tables: the table's place in the struct
 * tells the tables apart. */
#define NAMED_KEY(table, name) ((uint64_t)offsetof(rules, table) << 32 | (uint32_t)(name))

static void index_name(rules *r, uint64_t key, int i)
{
    if (!keymap_put(&r->named, key, i))
        r->unindexed = true;
}

static int find_creature(const rules *r, int name); /* defined below, file-local */

/* Every named table starts with `int name; origin from;` except events,
 * stats and sides, which have their own lookups. */
#define FIND_BY_NAME(fn, table)                                   \
    int fn(const rules *r, int name)                              \
    {                                                             \
        if (!r->unindexed)                                        \
            return keymap_get(&r->named, NAMED_KEY(table, name)); \
        for (int i = 0; i < r->n##table; i++)                     \
            if (r->table[i].name == name)                         \
                return i;                                         \
        return -1;                                                \
    }
FIND_BY_NAME(rules_slot, slots)
FIND_BY_NAME(rules_phase, phases)
FIND_BY_NAME(rules_condition, conditions)
FIND_BY_NAME(rules_check, checks)
FIND_BY_NAME(rules_action, actions)
FIND_BY_NAME(rules_relation, relations)
FIND_BY_NAME(rules_ruling, rulings)
FIND_BY_NAME(rules_tactic, tactics)
FIND_BY_NAME(rules_range, ranges)
FIND_BY_NAME(rules_bonus, bonuses)
FIND_BY_NAME(rules_item, items)
FIND_BY_NAME(rules_find_event, events)
FIND_BY_NAME(find_creature, creatures)
FIND_BY_NAME(rules_trigger, triggers)
FIND_BY_NAME(rules_track, tracks)
FIND_BY_NAME(rules_period, periods)
#undef FIND_BY_NAME

int rules_side(const rules *r, int name)
{
    for (int i = 0; i < r->nsides; i++)
        if (r->sides[i] == name)
            return i;
    return -1;
}

bool rules_add_holds(rules *r, int ci)
{
    uint64_t key = NAMED_KEY(holds_conditions, ci);
    if (!r->unindexed && keymap_get(&r->named, key) >= 0)
        return true;
    for (int i = 0; r->unindexed && i < r->nholds_conditions; i++)
        if (r->holds_conditions[i] == ci)
            return true;
    size_t cap = (size_t)r->holds_conditions_cap;
    int *g = mem_grow(r->holds_conditions, sizeof(int), &cap, (size_t)r->nholds_conditions + 1);
    if (!g)
        return false;
    r->holds_conditions = g;
    r->holds_conditions_cap = (int)cap;
    index_name(r, key, r->nholds_conditions);
    r->holds_conditions[r->nholds_conditions++] = ci;
    return true;
}

void rules_index_stat(rules *r, int decl_index, int si)
{
    index_name(r, NAMED_KEY(stats, decl_index), si);
}

int rules_stat(const rules *r, int decl_index)
{
    if (!r->unindexed)
        return keymap_get(&r->named, NAMED_KEY(stats, decl_index));
    for (int i = 0; i < r->nstats; i++)
        if (r->stats[i].decl == decl_index)
            return i;
    return -1;
}

/* Appends a zeroed element to a table; returns its index or -1. */
static int grow_table(void **table, size_t elem, int *n, int *cap)
{
    size_t c = (size_t)*cap;
    char *g = mem_grow(*table, elem, &c, (size_t)*n + 1);
    if (!g)
        return -1;
    *table = g;
    *cap = (int)c;
    memset(g + (size_t)*n * elem, 0, elem);
    return (*n)++;
}
#define GROW(r, table) grow_table((void **)&(r)->table, sizeof(*(r)->table), &(r)->n##table, &(r)->table##_cap)

int rules_add_side(rules *r, int name)
{
    int i = rules_side(r, name);
    if (i >= 0)
        return i;
    i = GROW(r, sides);
    if (i >= 0)
        r->sides[i] = name;
    return i;
}

int rules_event(rules *r, int name)
{
    int i = rules_find_event(r, name);
    if (i >= 0)
        return i;
    i = GROW(r, events);
    if (i >= 0) {
        index_name(r, NAMED_KEY(events, name), i);
        r->events[i].name = name;
        r->events[i].nargs = -1;
    }
    return i;
}

const r_resource *rules_resource_of(const rules *r, int decl_index)
{
    for (int i = 0; i < r->nresources; i++)
        if (r->resources[i].stat == decl_index)
            return &r->resources[i];
    return NULL;
}

const value *rules_item_prop(const rules *r, int item, int name)
{
    /* the compiler lets no item build on itself, so a chain of bases is
       never longer than the items there are */
    for (int depth = 0; item >= 0 && item < r->nitems && depth <= r->nitems; depth++) {
        const r_item *it = &r->items[item];
        for (int i = 0; i < it->nprops; i++)
            if (it->props[i].name == name)
                return &it->props[i].v;
        item = it->base;
    }
    return NULL;
}

/* Creating entries by name, as the compiler's first pass meets them. */
#define ADD_NAMED(table, lookup)                       \
    do {                                               \
        int i_ = lookup(r, name);                      \
        if (i_ >= 0)                                   \
            return i_;                                 \
        i_ = GROW(r, table);                           \
        if (i_ >= 0) {                                 \
            index_name(r, NAMED_KEY(table, name), i_); \
            r->table[i_].name = name;                  \
            r->table[i_].from.decl = -1;               \
            r->table[i_].from.cite = -1;               \
        }                                              \
        return i_;                                     \
    } while (0)

int rules_add_slot(rules *r, int name)
{
    ADD_NAMED(slots, rules_slot);
}

int rules_add_phase(rules *r, int name)
{
    ADD_NAMED(phases, rules_phase);
}

static int add_condition_entry(rules *r, int name)
{
    ADD_NAMED(conditions, rules_condition);
}

/* A new condition has no title until its declaration gives one. */
static int add_condition(rules *r, int name)
{
    int before = r->nconditions;
    int i = add_condition_entry(r, name);
    if (i >= before)
        r->conditions[i].display = -1;
    return i;
}

const char *rules_condition_title(const program *p, int cond)
{
    const r_condition *c = &p->rules->conditions[cond];
    return program_string(p, c->display >= 0 ? c->display : c->name);
}

static int add_item_entry(rules *r, int name)
{
    ADD_NAMED(items, rules_item);
}

/* A new item builds on nothing until its declaration says so: the
   compiler walks the bases set so far to refuse a circle. */
static int add_item(rules *r, int name)
{
    int before = r->nitems;
    int i = add_item_entry(r, name);
    if (i >= before)
        r->items[i].base = r->items[i].display = -1;
    return i;
}

static int add_period_entry(rules *r, int name)
{
    ADD_NAMED(periods, rules_period);
}

static int add_period(rules *r, int name)
{
    int before = r->nperiods;
    int i = add_period_entry(r, name);
    if (i >= before)
        r->periods[i].plural = r->periods[i].within = -1;
    return i;
}

int rules_add_named(rules *r, decl_kind kind, int name)
{
    switch (kind) {
    case DK_CONDITION: return add_condition(r, name);
    case DK_ACTION: ADD_NAMED(actions, rules_action);
    case DK_CHECK: ADD_NAMED(checks, rules_check);
    case DK_RELATION: ADD_NAMED(relations, rules_relation);
    case DK_RULING: ADD_NAMED(rulings, rules_ruling);
    case DK_TACTIC: ADD_NAMED(tactics, rules_tactic);
    case DK_RANGE: ADD_NAMED(ranges, rules_range);
    case DK_BONUS: ADD_NAMED(bonuses, rules_bonus);
    case DK_ITEM: return add_item(r, name);
    case DK_TRIGGER: ADD_NAMED(triggers, rules_trigger);
    case DK_CREATURE: ADD_NAMED(creatures, find_creature);
    case DK_TRACK: ADD_NAMED(tracks, rules_track);
    case DK_PERIOD: return add_period(r, name);
    default: return -1;
    }
}

void rules_choices_text(const program *p, const r_ruling *rl, text_buf *out)
{
    for (int i = 0; i < rl->nchoices; i++)
        text_add(out, "%s%s", i ? "/" : "", program_string(p, rl->choices[i]));
}

int rules_choice(const program *p, const r_ruling *rl, const char *word)
{
    for (int i = 0; i < rl->nchoices; i++)
        if (!strcmp(word, program_string(p, rl->choices[i])))
            return rl->choices[i];
    return -1;
}

/* The resource that `damage`/`heal` deal with (its `damage by` or `heal by`
   clause), as the declaration that stands says; NULL when none. */
const r_resource *rules_damage_resource(const program *p, bool heal)
{
    const rules *r = p->rules;
    for (int i = r->nresources; i-- > 0;) {
        const r_resource *res = &r->resources[i];
        if ((heal ? res->heal_by : res->damage_by) < 0)
            continue;
        /* only the declaration that stands: an override without the clause
           takes it away */
        const decl *d = &p->decls[res->stat];
        if (program_find_decl(p, DK_RESOURCE, d->name) == d)
            return res;
    }
    return NULL;
}

int rules_damage_kind(const r_resource *res, int word)
{
    for (int i = 0; i < res->nkinds; i++)
        if (res->kinds[i] == word)
            return i;
    return -1;
}
