/* tally: what one simulated run counts while it plays (tally.h). */
#include "runtime/combat/tally.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

/* Frees the per-creature arrays (cap entries each). */
static void free_creatures(int64_t *dealt, int64_t *taken, bool *down, int64_t *seen, bool *seen_known, size_t cap)
{
    /* freeing NULL frees nothing */
    mem_free(dealt, cap * sizeof *dealt);
    mem_free(taken, cap * sizeof *taken);
    mem_free(down, cap * sizeof *down);
    mem_free(seen, cap * sizeof *seen);
    mem_free(seen_known, cap * sizeof *seen_known);
}

static bool ensure_creatures(tally *t, size_t n)
{
    if (n <= t->ncreatures)
        return true;
    if (n > t->creatures_cap) {
        /* they grow together, or not at all: they share one capacity */
        size_t cap = t->creatures_cap ? t->creatures_cap : 8;
        while (cap < n)
            cap *= 2;
        int64_t *dealt = mem_alloc(cap * sizeof *dealt), *taken = mem_alloc(cap * sizeof *taken);
        int64_t *seen = mem_alloc(cap * sizeof *seen);
        bool *down = mem_alloc(cap * sizeof *down), *seen_known = mem_alloc(cap * sizeof *seen_known);
        if (!dealt || !taken || !down || !seen || !seen_known) {
            free_creatures(dealt, taken, down, seen, seen_known, cap);
            return false;
        }
        if (t->ncreatures) {
            memcpy(dealt, t->dealt, t->ncreatures * sizeof *dealt);
            memcpy(taken, t->taken, t->ncreatures * sizeof *taken);
            memcpy(down, t->down, t->ncreatures * sizeof *down);
            memcpy(seen, t->seen, t->ncreatures * sizeof *seen);
            memcpy(seen_known, t->seen_known, t->ncreatures * sizeof *seen_known);
        }
        if (t->creatures_cap)
            free_creatures(t->dealt, t->taken, t->down, t->seen, t->seen_known, t->creatures_cap);
        t->dealt = dealt;
        t->taken = taken;
        t->down = down;
        t->seen = seen;
        t->seen_known = seen_known;
        t->creatures_cap = cap;
    }
    for (size_t c = t->ncreatures; c < n; c++) {
        t->dealt[c] = t->taken[c] = t->seen[c] = 0;
        t->down[c] = t->seen_known[c] = false;
    }
    t->ncreatures = n;
    return true;
}

void tally_free(tally *t)
{
    if (t->creatures_cap)
        free_creatures(t->dealt, t->taken, t->down, t->seen, t->seen_known, t->creatures_cap);
    t->dealt = t->taken = t->seen = NULL;
    t->down = t->seen_known = NULL;
    t->ncreatures = t->creatures_cap = 0;
}

/* The damage is the target's; whoever is resolving an action (or whose
   turn it is, for what happens between actions) dealt it. */
void tally_damage(vm *v, int c, int64_t amount)
{
    tally *t = v->world->tally;
    if (!t || !ensure_creatures(t, v->world->ncreatures)) {
        if (t)
            t->failed = true;
        return;
    }
    t->taken[c] += amount;
    const combat *cb = &v->world->cb;
    int by = cb->reacting >= 0 ? cb->reacting : cb->actor >= 0 ? cb->actor : encounter_acting(v);
    if (by >= 0 && by != c && (size_t)by < t->ncreatures)
        t->dealt[by] += amount;
}

bool tally_observe(vm *v, int c)
{
    tally *t = v->world->tally;
    if (!t || !t->computed || !v->world->creatures[c].in_play)
        return true;
    if (!ensure_creatures(t, v->world->ncreatures)) {
        t->failed = true;
        return true;
    }
    /* a read the rules' formulas make only as reads (the sim checks that
       first): the budget is as it was, so a run takes the steps `fray run`
       of its seed takes */
    int64_t steps = v->steps_left;
    value now;
    if (!world_get_stat(v, c, t->health, &now))
        return false;
    v->steps_left = steps;
    if (!value_is_number(now))
        return true;
    int64_t whole = value_round(now);
    if (t->seen_known[c] && whole < t->seen[c])
        tally_damage(v, c, t->seen[c] - whole);
    t->seen[c] = whole;
    t->seen_known[c] = true;
    return true;
}

bool tally_observe_all(vm *v)
{
    if (!v->world->tally || !v->world->tally->computed)
        return true;
    for (size_t c = 0; c < v->world->ncreatures; c++)
        if (!tally_observe(v, (int)c))
            return false;
    return true;
}

bool tally_spawned(vm *v, int c, const char *base, span at)
{
    const tally *t = v->world->tally;
    for (size_t i = 0; t && i < t->nsets; i++) {
        const tally_set *s = &t->sets[i];
        if (strcmp(s->creature, base) && strcmp(s->creature, v->world->creatures[c].name))
            continue;
        /* a number set only where the creature holds one: a stat that is
           an item or a word would be a number to the rules that read it */
        value was;
        if (!world_get_stat(v, c, s->stat, &was))
            return false;
        if (!value_is_number(was) && was.type != V_NIL) {
            text_buf shown;
            text_init(&shown);
            vm_format_text(v, was, &shown);
            const char *kind = value_type_name(was.type);
            vm_error(v, at,
                     "--set %s.%s: %s's %s is %s %s (%s), not a number; --set takes a stat or resource that "
                     "is a whole number",
                     s->creature, program_string(v->p, v->p->decls[s->stat].name), v->world->creatures[c].name,
                     program_string(v->p, v->p->decls[s->stat].name), strchr("aeiou", kind[0]) ? "an" : "a", kind,
                     shown.s);
            text_free(&shown);
            return false;
        }
        if (!world_set_stat(v, c, s->stat, value_int(s->value), at))
            return false;
    }
    return true;
}

void tally_trigger(vm *v, int trigger)
{
    tally *t = v->world->tally;
    if (t && trigger >= 0 && (size_t)trigger < t->ntriggers)
        t->fired[trigger]++;
}

bool tally_answered(vm *v, int ruling, value *out)
{
    const tally *t = v->world->tally;
    for (size_t i = 0; t && i < t->nanswers; i++)
        if (t->answers[i].ruling == ruling) {
            *out = t->answers[i].v;
            return true;
        }
    return false;
}

void tally_check(vm *v, int check, bool met)
{
    tally *t = v->world->tally;
    if (!t || t->nchecks >= TALLY_CHECKS)
        return;
    /* who rolls: the creature the running body is for (a reaction's is the
       one reacting), else the one taking the action */
    int self = v->nframes > 0 ? v->frames[v->nframes - 1].self : -1;
    int roller = self >= 0 ? self : v->world->cb.actor;
    if (t->actor < 0 || roller == t->actor) {
        t->check[t->nchecks] = check;
        t->met[t->nchecks++] = met;
    }
}

void tally_change(vm *v, int condition, int stat)
{
    tally *t = v->world->tally;
    if (!t)
        return;
    if (!t->changed) {
        t->changed_condition = condition;
        t->changed_stat = stat;
    }
    t->changed = true;
}

/* A creature without a side is a side of its own: -2 - its index. */
static int side_of(const vm *v, int c)
{
    return v->world->creatures[c].side >= 0 ? v->world->creatures[c].side : -2 - c;
}

bool tally_outcome(vm *v, span at)
{
    tally *t = v->world->tally;
    if (!t)
        return true;
    if (!ensure_creatures(t, v->world->ncreatures)) {
        t->failed = true;
        return true;
    }
    if (!tally_observe_all(v))
        return false;
    int standing = INT32_MIN;
    bool several = false;
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        t->down[c] = false;
        if (!v->world->creatures[c].in_play)
            continue;
        bool stands;
        if (!encounter_stands(v, (int)c, &stands, at))
            return false;
        t->down[c] = !stands;
        if (!stands)
            continue;
        if (standing == INT32_MIN)
            standing = side_of(v, (int)c);
        else if (side_of(v, (int)c) != standing)
            several = true;
    }
    t->ended = true;
    t->winner = several ? -1 : standing == INT32_MIN ? -2 : standing;
    const combat *cb = &v->world->cb;
    /* as the encounter's end says: a round that ends it as it starts was never played */
    t->rounds = cb->turn < 0 && cb->round > 0 ? cb->round - 1 : cb->round;
    return true;
}
