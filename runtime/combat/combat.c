/* combat: the state of play's lifecycle: creation, freeing, and growing
 * with the rules (the REPL may add a slot or a phase mid-session) and with
 * the creatures. */
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/conditions.h"
#include "runtime/combat/stat_memo.h"
#include "runtime/combat/world.h"

void combat_init(combat *cb)
{
    memset(cb, 0, sizeof *cb);
    cb->phase = -1;
    cb->turn = -1;
    cb->free_effects = -1;
    cb->initiator = -1;
    cb->actor = -1;
    cb->reacting = -1;
    cb->pending_log = -1;
    cb->reactions_policy = 1;
    cb->standing[0] = cb->standing[1] = -1;
    for (int i = 0; i < Q_PERIOD; i++)
        cb->q_global[i] = -1;
}

#define FREE_ARRAY(p, cap) \
    if (p)                 \
    mem_free((p), (size_t)(cap) * sizeof(*(p)))

void combat_free(combat *cb)
{
    FREE_ARRAY(cb->order, cb->order_cap);
    FREE_ARRAY(cb->given, cb->ngiven);
    FREE_ARRAY(cb->effects, cb->effects_cap);
    FREE_ARRAY(cb->q_turn_start, cb->q_turn_start_cap);
    FREE_ARRAY(cb->q_turn_end, cb->q_turn_end_cap);
    FREE_ARRAY(cb->q_phase, cb->q_phase_cap);
    FREE_ARRAY(cb->q_period, cb->q_period_cap);
    FREE_ARRAY(cb->period_ends, cb->period_ends_cap);
    FREE_ARRAY(cb->heap, cb->heap_cap);
    FREE_ARRAY(cb->holds, cb->holds_cap);
    FREE_ARRAY(cb->answers, cb->answers_cap);
    FREE_ARRAY(cb->trigger_policy, cb->trigger_policy_cap);
    FREE_ARRAY(cb->trigger_counts, cb->trigger_counts_cap);
    FREE_ARRAY(cb->cells, cb->cells_cap);
    FREE_ARRAY(cb->cell_index, cb->cell_index_cap);
    for (int z = 0; z < cb->nzones; z++)
        FREE_ARRAY(cb->zones[z].neighbours, cb->zones[z].neighbours_cap);
    FREE_ARRAY(cb->zones, cb->zones_cap);
    FREE_ARRAY(cb->members, cb->members_cap);
    for (int i = 0; i * COMBAT_LOG_BLOCK < cb->nlog; i++)
        log_block_release(cb, i);
    FREE_ARRAY(cb->log_blocks, cb->log_blocks_cap);
    FREE_ARRAY(cb->pending_line, cb->pending_cap);
    effect_index_free(cb);
    conditions_cache_free(cb);
    grid_footprints_free(cb);
    roster_memo_free(cb->ends_memo);
    combat_init(cb);
}

#define CLONE_ARRAY(to, from, field, cap, ok) \
    ((to)->field = mem_dup((from)->field, (size_t)(from)->cap * sizeof(*(from)->field), (ok)))

bool combat_clone(combat *cb, const combat *from)
{
    bool ok = true;
    *cb = *from;
    CLONE_ARRAY(cb, from, order, order_cap, &ok);
    CLONE_ARRAY(cb, from, given, ngiven, &ok);
    CLONE_ARRAY(cb, from, effects, effects_cap, &ok);
    CLONE_ARRAY(cb, from, q_turn_start, q_turn_start_cap, &ok);
    CLONE_ARRAY(cb, from, q_turn_end, q_turn_end_cap, &ok);
    CLONE_ARRAY(cb, from, q_phase, q_phase_cap, &ok);
    CLONE_ARRAY(cb, from, q_period, q_period_cap, &ok);
    CLONE_ARRAY(cb, from, period_ends, period_ends_cap, &ok);
    CLONE_ARRAY(cb, from, heap, heap_cap, &ok);
    CLONE_ARRAY(cb, from, holds, holds_cap, &ok);
    CLONE_ARRAY(cb, from, answers, answers_cap, &ok);
    CLONE_ARRAY(cb, from, trigger_policy, trigger_policy_cap, &ok);
    CLONE_ARRAY(cb, from, trigger_counts, trigger_counts_cap, &ok);
    CLONE_ARRAY(cb, from, cells, cells_cap, &ok);
    CLONE_ARRAY(cb, from, cell_index, cell_index_cap, &ok);
    CLONE_ARRAY(cb, from, pending_line, pending_cap, &ok);
    CLONE_ARRAY(cb, from, zones, zones_cap, &ok);
    CLONE_ARRAY(cb, from, members, members_cap, &ok);
    if (!cb->zones)
        cb->nzones = 0;
    for (int z = 0; z < cb->nzones; z++)
        CLONE_ARRAY(&cb->zones[z], &from->zones[z], neighbours, neighbours_cap, &ok);
    CLONE_ARRAY(cb, from, log_blocks, log_blocks_cap, &ok);
    if (!cb->log_blocks)
        cb->nlog = 0;
    for (int i = 0; i * COMBAT_LOG_BLOCK < cb->nlog; i++) /* shared, copied when one changes (log.c) */
        atomic_fetch_add_explicit(&cb->log_blocks[i]->refs, 1, memory_order_relaxed);
    cb->index = NULL;      /* built again when first asked */
    cb->conditions = NULL; /* worked out again in the copy */
    cb->footprints = NULL; /* likewise */
    cb->ends_memo = NULL;  /* likewise */
    if (!ok)
        combat_free(cb);
    return ok;
}

/* Grows an int32 array to n, filling new places with -1. */
static bool grow_heads(int32_t **arr, size_t *cap, size_t n)
{
    if (n <= *cap)
        return true;
    size_t old = *cap;
    size_t want = old ? old : 8;
    while (want < n)
        want *= 2;
    int32_t *g = mem_realloc(*arr, old * sizeof(int32_t), want * sizeof(int32_t));
    if (!g)
        return false;
    for (size_t i = old; i < want; i++)
        g[i] = -1;
    *arr = g;
    *cap = want;
    return true;
}

/* Every creature's ledger holds, in order: per-turn and per-round uses of
 * each slot, debts owed by the next turn, exclusivity locks, exchange,
 * action and trigger use counts. When the rules gain entries the ledgers
 * are laid out again, each part copied to its new place. */
static bool sync_ledgers(vm *v)
{
    const rules *r = v->r;
    if (r->nslots == v->world->ledger_nslots && r->nexclusives == v->world->ledger_nexclusives &&
        r->nexchanges == v->world->ledger_nexchanges && r->nactions == v->world->ledger_nactions &&
        r->ntriggers == v->world->ledger_ntriggers)
        return true;
    int old_len = v->world->ledger_len;
    int old_at[7] = {v->world->ledger_slot_turn, v->world->ledger_slot_round, v->world->ledger_debt,
                     v->world->ledger_lock,      v->world->ledger_exchange,   v->world->ledger_action,
                     v->world->ledger_trigger};
    int old_n[7] = {v->world->ledger_nslots,      v->world->ledger_nslots,     v->world->ledger_nslots,
                    v->world->ledger_nexclusives, v->world->ledger_nexchanges, v->world->ledger_nactions,
                    v->world->ledger_ntriggers};
    int new_n[7] = {r->nslots, r->nslots, r->nslots, r->nexclusives, r->nexchanges, r->nactions, r->ntriggers};
    int new_at[7];
    int len = 0;
    for (int i = 0; i < 7; i++) {
        new_at[i] = len;
        len += new_n[i];
    }
    /* everything is allocated before anything changes, so that running out
       of memory leaves every ledger as it was */
    size_t n = v->world->ncreatures;
    counter **fresh = n ? MEM_NEW_ARRAY(counter *, n) : NULL;
    counter *try = len ? MEM_NEW_ARRAY(counter, (size_t)len) : NULL;
    bool ok = (!n || fresh) && (!len || try);
    for (size_t c = 0; ok && len && c < n; c++)
        ok = (fresh[c] = MEM_NEW_ARRAY(counter, (size_t)len)) != NULL;
    if (!ok) {
        for (size_t c = 0; fresh && c < n; c++)
            if (fresh[c])
                mem_free(fresh[c], (size_t)len * sizeof(counter));
        if (fresh)
            mem_free(fresh, n * sizeof(counter *));
        if (try)
            mem_free(try, (size_t)len * sizeof(counter));
        return false;
    }
    for (size_t c = 0; c < n; c++) {
        creature *cr = &v->world->creatures[c];
        for (int part = 0; part < 7 && cr->ledger && fresh[c]; part++)
            memcpy(fresh[c] + new_at[part], cr->ledger + old_at[part], (size_t)old_n[part] * sizeof(counter));
        if (cr->ledger)
            mem_free(cr->ledger, (size_t)old_len * sizeof(counter));
        cr->ledger = fresh[c];
    }
    if (fresh)
        mem_free(fresh, n * sizeof(counter *));
    if (v->world->ledger_try)
        mem_free(v->world->ledger_try, (size_t)old_len * sizeof(counter));
    v->world->ledger_try = try;
    v->world->ledger_len = len;
    v->world->ledger_slot_turn = new_at[0];
    v->world->ledger_slot_round = new_at[1];
    v->world->ledger_debt = new_at[2];
    v->world->ledger_lock = new_at[3];
    v->world->ledger_exchange = new_at[4];
    v->world->ledger_action = new_at[5];
    v->world->ledger_trigger = new_at[6];
    v->world->ledger_nslots = r->nslots;
    v->world->ledger_nexclusives = r->nexclusives;
    v->world->ledger_nexchanges = r->nexchanges;
    v->world->ledger_nactions = r->nactions;
    v->world->ledger_ntriggers = r->ntriggers;
    return true;
}

/* Each creature counts its applied effects of each condition; when the
   rules gain conditions, the counts of the creatures so far grow (each
   knows its own length, so running out of memory halfway leaves no harm). */
static bool grow_held(creature *cr, int want)
{
    if (cr->held_len >= want)
        return true;
    int32_t *g = mem_realloc(cr->held, (size_t)cr->held_len * sizeof(int32_t), (size_t)want * sizeof(int32_t));
    if (!g)
        return false;
    memset(g + cr->held_len, 0, (size_t)(want - cr->held_len) * sizeof(int32_t));
    cr->held = g;
    cr->held_len = want;
    return true;
}

static bool sync_held(vm *v)
{
    int want = v->r->nconditions;
    if (want <= v->world->held_len)
        return true;
    for (size_t c = 0; c < v->world->ledgers_made; c++)
        if (!grow_held(&v->world->creatures[c], want))
            return false;
    v->world->held_len = want;
    return true;
}

/* Whether nothing has grown since the last sync: most calls (every list
   of creatures a rule asks for) find nothing to do. */
static bool combat_in_sync(const vm *v)
{
    const struct world *w = v->world;
    const combat *cb = &w->cb;
    const rules *r = v->r;
    /* the tables below grow only with declarations, each of which moves
       the rules' generation on: in sync at this generation with these
       creatures, in sync still (every builtin of play asks) */
    if (cb->synced_generation == r->generation && cb->synced_creatures == w->ncreatures && cb->synced_any)
        return true;
    return w->ledgers_made == w->ncreatures && r->nslots == w->ledger_nslots &&
           r->nexclusives == w->ledger_nexclusives && r->nexchanges == w->ledger_nexchanges &&
           r->nactions == w->ledger_nactions && r->ntriggers == w->ledger_ntriggers && r->nconditions <= w->held_len &&
           w->ncreatures <= cb->q_turn_start_cap && w->ncreatures <= cb->q_turn_end_cap &&
           r->nphases <= cb->q_phase_cap && r->ntriggers <= cb->trigger_policy_cap &&
           r->ntriggers <= cb->trigger_counts_cap && (size_t)r->nperiods <= cb->q_period_cap &&
           (size_t)r->nperiods <= cb->period_ends_cap;
}

/* A queue and a count for each period the rules declare. */
static bool sync_periods(combat *cb, const rules *r)
{
    size_t n = (size_t)r->nperiods;
    if (!grow_heads(&cb->q_period, &cb->q_period_cap, n))
        return false;
    if (n <= cb->period_ends_cap)
        return true;
    size_t want = n + 4;
    uint32_t *g = mem_realloc(cb->period_ends, cb->period_ends_cap * sizeof(uint32_t), want * sizeof(uint32_t));
    if (!g)
        return false;
    memset(g + cb->period_ends_cap, 0, (want - cb->period_ends_cap) * sizeof(uint32_t));
    cb->period_ends = g;
    cb->period_ends_cap = want;
    return true;
}

bool combat_sync(vm *v)
{
    combat *cb = &v->world->cb;
    if (combat_in_sync(v)) {
        cb->synced_generation = v->r->generation;
        cb->synced_creatures = v->world->ncreatures;
        cb->synced_any = true;
        return true;
    }
    const rules *r = v->r;
    if (!sync_ledgers(v))
        return false;
    if (!sync_held(v))
        return false;
    /* only creatures new since the last sync: a turn must not cost O(creatures) */
    for (size_t c = v->world->ledgers_made; c < v->world->ncreatures; c++) {
        creature *cr = &v->world->creatures[c];
        if (!cr->ledger && v->world->ledger_len && !(cr->ledger = MEM_NEW_ARRAY(counter, (size_t)v->world->ledger_len)))
            return false;
        if (!grow_held(cr, v->world->held_len))
            return false;
    }
    v->world->ledgers_made = v->world->ncreatures;
    if (!grow_heads(&cb->q_turn_start, &cb->q_turn_start_cap, v->world->ncreatures) ||
        !grow_heads(&cb->q_turn_end, &cb->q_turn_end_cap, v->world->ncreatures))
        return false;
    size_t pcap = (size_t)cb->q_phase_cap;
    if (!grow_heads(&cb->q_phase, &pcap, (size_t)r->nphases))
        return false;
    cb->q_phase_cap = (int)pcap;
    if (!sync_periods(cb, r))
        return false;
    if (r->ntriggers > cb->trigger_policy_cap) {
        int old = cb->trigger_policy_cap;
        int want = r->ntriggers + 8;
        int8_t *g = mem_realloc(cb->trigger_policy, (size_t)old, (size_t)want);
        if (!g)
            return false;
        memset(g + old, -1, (size_t)(want - old));
        cb->trigger_policy = g;
        cb->trigger_policy_cap = want;
    }
    if (r->ntriggers > cb->trigger_counts_cap) {
        int old = cb->trigger_counts_cap;
        int want = r->ntriggers + 8;
        counter *g = mem_realloc(cb->trigger_counts, (size_t)old * sizeof(counter), (size_t)want * sizeof(counter));
        if (!g)
            return false;
        memset(g + old, 0, (size_t)(want - old) * sizeof(counter));
        cb->trigger_counts = g;
        cb->trigger_counts_cap = want;
    }
    cb->synced_generation = r->generation;
    cb->synced_creatures = v->world->ncreatures;
    cb->synced_any = true;
    return true;
}

const char *world_name(const vm *v, int c)
{
    return c >= 0 && (size_t)c < v->world->ncreatures ? v->world->creatures[c].name : "nobody";
}

bool combat_eval(vm *v, const rexpr *e, int self, const value *args, int nargs, value *out)
{
    if (e->kind == REXPR_CONST) {
        *out = e->v;
        return true;
    }
    if (e->kind == REXPR_NONE) {
        *out = value_bool(true);
        return true;
    }
    return vm_call(v, e->chunk, self, args, nargs, out);
}
