/* encounter: rounds, phases and turns. An encounter begins, the order of
 * turns is found, and then each round runs its phases in order; in a phase
 * of turns every participant takes a turn in the order, in a phase of
 * steps each gets a step (not a turn), and an open phase is ended by the
 * GM. `next` ends the turn or step under way and starts the next one, so a
 * script reads as the table plays. Effects tick at each start and end.
 *
 * Surprise, delay and holding are here too (voluntary reordering and
 * forfeited turns in reorder.c); what the rules choose among them is in
 * `initiative`. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/conditions.h"
#include "runtime/combat/stat_memo.h"
#include "runtime/combat/tally.h"
#include "runtime/combat/tracks.h"
#include "runtime/combat/world.h"

#define KEY_GAP ((int64_t)1 << 32)
#define FIGHT_STEPS_FACTOR 100

static bool start_round(vm *v, span at);

/* The rolls entered for after a free round, once used or replaced. */
static void forget_given(combat *cb)
{
    if (cb->given)
        mem_free(cb->given, (size_t)cb->ngiven * sizeof(value));
    cb->given = NULL;
    cb->ngiven = 0;
}

static bool next_participant(vm *v, span at);

/* --- who --------------------------------------------------------------------- */

/* A formula of the encounter's about creature c (its `self`). */
static bool creature_formula(vm *v, const rexpr *e, int c, bool *yes)
{
    value x;
    if (e->kind == REXPR_CONST)
        x = e->v;
    else if (!vm_call(v, e->chunk, c, NULL, 0, &x))
        return false;
    *yes = value_truthy(x);
    return true;
}

bool encounter_out(vm *v, int c, bool *out, span at)
{
    (void)at;
    *out = false;
    const rexpr *e = &v->r->encounter.out;
    return !rexpr_present(e) || conditions_out(v, c, e, out);
}

/* Whether anything hears went_out or came_back (events_heard, for both at
   once: this is asked at every change of a stat). */
static bool out_heard(const vm *v)
{
    if (v->r->nevents <= EV_CAME_BACK)
        return false;
    const r_event *out = &v->r->events[EV_WENT_OUT], *back = &v->r->events[EV_CAME_BACK];
    return out->ntriggers || out->nending || back->ntriggers || back->nending || v->world->cb.nholds;
}

bool encounter_out_before(vm *v, int c, span at)
{
    creature *cr = &v->world->creatures[c];
    if (!v->world->cb.active || !cr->in_play)
        return true;
    if (!out_heard(v)) { /* what it was is not followed: it is worked out when it matters */
        cr->out_known = false;
        return true;
    }
    if (cr->out_known)
        return true;
    bool out;
    if (!encounter_out(v, c, &out, at))
        return false;
    v->world->creatures[c].out_told = out;
    v->world->creatures[c].out_known = true;
    return true;
}

bool encounter_out_after(vm *v, int c, span at)
{
    creature *cr = &v->world->creatures[c];
    if (!v->world->cb.active || !cr->in_play || !cr->out_known)
        return true;
    if (!out_heard(v)) {
        cr->out_known = false;
        return true;
    }
    bool out;
    if (!encounter_out(v, c, &out, at))
        return false;
    cr = &v->world->creatures[c];
    if (out == cr->out_told)
        return true;
    cr->out_told = out;
    value who = value_ref(V_CREATURE, 0, c);
    return events_emit(v, out ? EV_WENT_OUT : EV_CAME_BACK, &who, 1, at);
}

bool encounter_stands(vm *v, int c, bool *stands, span at)
{
    const rexpr *e = &v->r->encounter.stands;
    if (rexpr_present(e))
        return creature_formula(v, e, c, stands);
    bool out;
    if (!encounter_out(v, c, &out, at))
        return false;
    *stands = !out;
    return true;
}

static const entry *current(const vm *v)
{
    const combat *cb = &v->world->cb;
    return cb->turn >= 0 && cb->turn < cb->norder ? &cb->order[cb->turn] : NULL;
}

int encounter_acting(const vm *v)
{
    const entry *e = current(v);
    if (!e || !v->world->cb.in_turn)
        return -1;
    if (e->creature >= 0)
        return e->creature;
    for (size_t c = 0; c < v->world->ncreatures; c++)
        if (v->world->creatures[c].in_play && v->world->creatures[c].side == e->side)
            return (int)c;
    return -1;
}

bool encounter_is_turn_of(const vm *v, int c)
{
    const entry *e = current(v);
    if (!e || !v->world->cb.in_turn)
        return false;
    if (e->creature >= 0)
        return e->creature == c;
    const creature *cr = &v->world->creatures[c];
    if (!cr->in_play || cr->side != e->side)
        return false;
    /* a side's turn is a turn of the members it started a turn for: not of
       one that joined during it, or was surprised (a step starts none) */
    int p = v->world->cb.phase;
    bool steps = p >= 0 && p < v->r->nphases && v->r->phases[p].kind == PHASE_STEPS;
    return steps || cr->turn_round == v->world->cb.round_epoch;
}

int64_t encounter_now_key(const vm *v)
{
    const combat *cb = &v->world->cb;
    const entry *e = current(v);
    if (e)
        return e->key;
    return cb->turn >= cb->norder ? INT64_MAX : INT64_MIN;
}

static const char *entry_name(vm *v, const entry *e)
{
    return e->creature >= 0 ? world_name(v, e->creature) : program_string(v->p, v->r->sides[e->side]);
}

/* What follows an entry's name to make it possessive: "tol's",
   "valeros's"; a side's name is a plural: "bandits'". */
static const char *possessive(const char *name, const entry *e)
{
    size_t n = strlen(name);
    return e->creature < 0 && n > 0 && name[n - 1] == 's' ? "'" : "'s";
}

static const r_phase *phase_of(vm *v)
{
    return v->world->cb.phase >= 0 && v->world->cb.phase < v->r->nphases ? &v->r->phases[v->world->cb.phase] : NULL;
}

static phase_kind current_kind(vm *v)
{
    const r_phase *ph = phase_of(v);
    return ph ? ph->kind : PHASE_TURNS;
}

bool encounter_in_turns_phase(vm *v)
{
    return current_kind(v) == PHASE_TURNS;
}

/* May c take part in the current phase's turn or step? */
static bool takes_part(vm *v, int c, bool *yes, span at)
{
    *yes = false;
    creature *cr = &v->world->creatures[c];
    if (!cr->in_play || cr->delaying)
        return true;
    bool out;
    if (!encounter_out(v, c, &out, at))
        return false;
    if (out)
        return true;
    if ((v->world->cb.surprise || v->world->cb.free_round) && cr->surprised)
        return true; /* the surprised do not act in the surprise round */
    if (cr->turn_round == v->world->cb.round_epoch && !cr->resumed && current_kind(v) == PHASE_TURNS)
        return true; /* one turn a round, wherever it has moved to */
    const r_phase *ph = phase_of(v);
    if (ph && rexpr_present(&ph->only)) {
        value x;
        if (ph->only.kind == REXPR_CONST)
            x = ph->only.v;
        else if (!vm_call(v, ph->only.chunk, c, NULL, 0, &x))
            return false;
        if (!value_truthy(x))
            return true;
    }
    if (cr->forfeit && current_kind(v) == PHASE_TURNS) {
        cr->forfeit = false; /* this is the turn it gave up */
        vm_play_changed(v);
        combat_say(v, "%s forfeits this turn", cr->name);
        cr->acted = true;
        vm_play_changed(v);
        return true;
    }
    *yes = true;
    return true;
}

/* --- resources that refresh ------------------------------------------------------ */

static bool refresh(vm *v, period per, int only, span at)
{
    const rules *r = v->r;
    for (int k = 0; k < r->nresources; k++) {
        const r_resource *res = &r->resources[k];
        if (res->refresh != per)
            continue;
        size_t lo = only >= 0 ? (size_t)only : 0, hi = only >= 0 ? (size_t)only + 1 : v->world->ncreatures;
        for (size_t c = lo; c < hi; c++) {
            if (!v->world->creatures[c].in_play)
                continue;
            /* to the maximum; without one, to the start (a budget a Dash
               may take past its usual amount) */
            const rexpr *to = rexpr_present(&res->max) ? &res->max : &res->start;
            value max;
            if (to->kind == REXPR_CONST)
                max = to->v;
            else if (to->kind == REXPR_CHUNK) {
                if (!vm_call(v, to->chunk, (int)c, NULL, 0, &max))
                    return false;
            } else
                continue;
            int slot = world_stat_slot(v, res->stat);
            if (slot < 0)
                return vm_error(v, at, "out of memory");
            value to_max = max.type == V_ROLL ? value_int(max.num) : max;
            if (!value_identical(v->world->creatures[c].stats[slot], to_max)) {
                vm_play_changed(v);
                world_touch(v->world, (int)c);
            }
            v->world->creatures[c].stats[slot] = to_max;
        }
    }
    return v->r->ntracks == 0 || tracks_refresh(v, per, only, at); /* most rules have none */
}

/* --- turns --------------------------------------------------------------------------- */

static bool turn_events(vm *v, int c, bool start, span at)
{
    value arg = value_ref(V_CREATURE, 0, c);
    if (start) {
        v->world->creatures[c].turn_round = v->world->cb.round_epoch;
        vm_play_changed(v);
        if (v->world->creatures[c].resumed) {
            v->world->creatures[c].resumed = false; /* its turn started before it delayed */
            vm_play_changed(v);
            return true;
        }
        ledger_turn_start(v, c);
        if (!effects_tick(v, Q_TURN_START, c, at) || !refresh(v, PER_TURN, c, at))
            return false;
        return events_emit(v, EV_TURN_START, &arg, 1, at);
    }
    if (!events_emit(v, EV_TURN_END, &arg, 1, at) || !effects_tick(v, Q_TURN_END, c, at))
        return false;
    v->world->creatures[c].acted = true;
    vm_play_changed(v);
    return true;
}

static bool start_turn(vm *v, int i, span at)
{
    combat *cb = &v->world->cb;
    cb->turn = i;
    cb->in_turn = true;
    cb->turn_serial++;
    vm_play_changed(v);
    const entry *e = &cb->order[i];
    phase_kind kind = current_kind(v);
    char head[64] = "";
    if (!cb->round_announced) {
        if (cb->free_round)
            snprintf(head, sizeof head, "free round: ");
        else if (cb->surprise)
            snprintf(head, sizeof head, "surprise round: ");
        else
            snprintf(head, sizeof head, "round %d: ", cb->round);
        cb->round_announced = true;
    }
    /* the turn is named first, then what ends as it comes */
    const char *name = cb->quiet ? "" : entry_name(v, e); /* nothing is said: spare the lookup */
    if (kind == PHASE_STEPS) {
        combat_say(v, "%s%s%s %s", head, name, possessive(name, e), program_string(v->p, phase_of(v)->name));
        return effects_tick_position(v, cb->round, cb->phase, e->key, at);
    }
    if (e->creature >= 0) {
        combat_say(v, "%s%s%s turn", head, name, possessive(name, e));
        if (!effects_tick_position(v, cb->round, cb->phase, e->key, at))
            return false;
        if (!cb->active)
            return true; /* an expiring effect ended the fight */
        return turn_events(v, e->creature, true, at);
    }
    /* a side's turn: each member's turn starts */
    combat_line line = {.say = true};
    combat_line_add(v, &line, "%s%s%s turn (", head, name, possessive(name, e));
    bool named = false;
    for (size_t c = 0; c < v->world->ncreatures && !cb->quiet; c++) {
        bool yes;
        if (v->world->creatures[c].side != e->side)
            continue;
        if (!takes_part(v, (int)c, &yes, at))
            return false;
        if (yes)
            combat_line_add(v, &line, "%s%s", named ? ", " : "", v->world->creatures[c].name);
        named |= yes;
    }
    combat_line_add(v, &line, ")");
    combat_line_end(v, &line);
    if (!effects_tick_position(v, cb->round, cb->phase, e->key, at))
        return false;
    if (!cb->active)
        return true;
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        bool yes;
        if (v->world->creatures[c].side != e->side)
            continue;
        if (!takes_part(v, (int)c, &yes, at))
            return false;
        if (yes && !turn_events(v, (int)c, true, at))
            return false;
    }
    return true;
}

static bool end_turn(vm *v, span at)
{
    combat *cb = &v->world->cb;
    const entry *e = current(v);
    cb->in_turn = false;
    vm_play_changed(v);
    if (!e)
        return true;
    if (current_kind(v) == PHASE_STEPS)
        return true;
    if (e->creature >= 0)
        return turn_events(v, e->creature, false, at);
    int side = e->side;
    for (size_t c = 0; c < v->world->ncreatures; c++)
        if (v->world->creatures[c].in_play && v->world->creatures[c].side == side && !turn_events(v, (int)c, false, at))
            return false;
    return true;
}

/* --- phases and rounds --------------------------------------------------------------- */

static bool phase_skipped(vm *v, const r_phase *ph, bool *skip)
{
    *skip = false;
    if (!rexpr_present(&ph->skip_when))
        return true;
    value x;
    if (ph->skip_when.kind == REXPR_CONST)
        x = ph->skip_when.v;
    else if (!vm_call(v, ph->skip_when.chunk, -1, NULL, 0, &x))
        return false;
    if (!value_truthy(x))
        return true;
    if (rexpr_present(&ph->skip_unless)) {
        if (ph->skip_unless.kind == REXPR_CONST)
            x = ph->skip_unless.v;
        else if (!vm_call(v, ph->skip_unless.chunk, -1, NULL, 0, &x))
            return false;
        if (value_truthy(x))
            return true;
    }
    *skip = true;
    return true;
}

static bool end_round(vm *v, span at);

static bool start_phase(vm *v, int p, span at)
{
    combat *cb = &v->world->cb;
    const rules *r = v->r;
    cb->turn = -1;
    cb->in_turn = false;
    vm_play_changed(v);
    if (r->nphases == 0) {
        cb->phase = -1;
        vm_play_changed(v);
        if (!encounter_apply_forfeits(v, at))
            return false;
        return next_participant(v, at);
    }
    for (; p < r->nphases; p++) {
        const r_phase *ph = &r->phases[p];
        cb->phase = p;
        vm_play_changed(v);
        bool skip;
        if (!phase_skipped(v, ph, &skip))
            return false;
        if (skip) {
            combat_note(v, "no %s phase this round", program_string(v->p, ph->name));
            continue;
        }
        if (ph->kind == PHASE_TURNS && !r->initiative.reorder_at_round_start && !encounter_apply_forfeits(v, at))
            return false;
        /* what was due in an earlier phase, or as this one begins */
        if (!effects_tick_position(v, cb->round, p, INT64_MIN, at))
            return false;
        value name = value_ref(V_WORD, HOME_PROGRAM, ph->name);
        if (!events_emit(v, EV_PHASE_START, &name, 1, at) || !effects_tick(v, Q_PHASE, p, at))
            return false;
        if (ph->kind == PHASE_OPEN) {
            combat_say(v, "%s phase", program_string(v->p, ph->name));
            return true;
        }
        return next_participant(v, at);
    }
    return end_round(v, at);
}

static bool end_phase(vm *v, span at)
{
    combat *cb = &v->world->cb;
    const r_phase *ph = phase_of(v);
    cb->turn = cb->norder; /* past the last position */
    vm_play_changed(v);
    if (ph) {
        value name = value_ref(V_WORD, HOME_PROGRAM, ph->name);
        if (!events_emit(v, EV_PHASE_END, &name, 1, at))
            return false;
        if (cb->phase + 1 < v->r->nphases)
            return start_phase(v, cb->phase + 1, at);
    }
    return end_round(v, at);
}

static bool next_participant(vm *v, span at)
{
    combat *cb = &v->world->cb;
    for (int i = cb->turn + 1; i < cb->norder; i++) {
        const entry *e = &cb->order[i];
        bool yes = false;
        if (e->creature >= 0) {
            if (!takes_part(v, e->creature, &yes, at))
                return false;
        } else {
            for (size_t c = 0; c < v->world->ncreatures && !yes; c++)
                if (v->world->creatures[c].side == e->side && !takes_part(v, (int)c, &yes, at))
                    return false;
        }
        if (!cb->active)
            return true;
        if (yes)
            return start_turn(v, i, at);
    }
    return end_phase(v, at);
}

static bool start_round(vm *v, span at)
{
    combat *cb = &v->world->cb;
    if (!cb->surprise && !cb->free_round)
        cb->round++;
    cb->round_epoch++;
    cb->round_announced = false;
    cb->turn = -1;
    vm_play_changed(v);
    /* `ends when round_number() > 3` ends it here, before round 4 starts */
    if (!encounter_check_over(v, at))
        return false;
    if (!cb->active)
        return true;
    if (!refresh(v, PER_ROUND, -1, at) || !effects_tick(v, Q_ROUND_START, 0, at))
        return false;
    value n = value_int(cb->round);
    if (!events_emit(v, EV_ROUND_START, &n, 1, at))
        return false;
    if (!cb->active)
        return true;
    if (v->r->initiative.reorder_at_round_start && !encounter_apply_forfeits(v, at))
        return false;
    return start_phase(v, 0, at);
}

/* allow delay ... returns: each creature a delay moved this round takes
   the place it had before again, as the round ends. Its old key is free
   (or shared only by chance: then it goes first). */
static void return_delayed(vm *v)
{
    combat *cb = &v->world->cb;
    for (int i = 0; i < cb->norder; i++) {
        if (!cb->order[i].away)
            continue;
        entry back = cb->order[i];
        back.away = back.moved = false;
        back.key = back.home;
        memmove(&cb->order[i], &cb->order[i + 1], (size_t)(cb->norder - i - 1) * sizeof(entry));
        int to = 0;
        while (to < cb->norder - 1 && cb->order[to].key < back.key)
            to++;
        memmove(&cb->order[to + 1], &cb->order[to], (size_t)(cb->norder - 1 - to) * sizeof(entry));
        cb->order[to] = back;
        vm_play_changed(v);
        if (back.creature >= 0)
            combat_say(v, "%s takes its former place in the order again", v->world->creatures[back.creature].name);
        i = -1; /* the order has changed: look again from the top */
    }
}

static bool end_round(vm *v, span at)
{
    combat *cb = &v->world->cb;
    cb->turn = cb->norder;
    cb->in_turn = false;
    vm_play_changed(v);
    value n = value_int(cb->round);
    if (!events_emit(v, EV_ROUND_END, &n, 1, at) || !effects_tick(v, Q_ROUND_END, 0, at) ||
        !effects_tick_position(v, cb->round, INT32_MAX, INT64_MAX, at))
        return false;
    if (!cb->active)
        return true;
    /* a creature that delayed all round */
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        creature *cr = &v->world->creatures[c];
        if (cr->delaying && v->r->initiative.delay_round_only) {
            cr->delaying = false;
            cr->resumed = false;
            vm_play_changed(v);
            combat_say(v, "%s waited all round and loses its turn", cr->name);
        }
    }
    return_delayed(v);
    if (!encounter_check_over(v, at))
        return false;
    if (!cb->active)
        return true;
    if (cb->fighting > 0 && !cb->surprise && !cb->free_round && --cb->fighting == 0)
        cb->fight_paused = true;
    if (cb->free_round) {
        /* the free round is over: now initiative is rolled, with the rolls
           entered when it was asked for */
        cb->free_round = false;
        cb->round = 0;
        vm_play_changed(v);
        bool rolled = initiative_roll(v, cb->given, cb->ngiven, at);
        forget_given(cb);
        if (!rolled)
            return false;
        return start_round(v, at);
    }
    if (cb->surprise) {
        cb->surprise = false; /* who was surprised stays known: surprised(c) */
        cb->round = 0;
        vm_play_changed(v);
    }
    if (v->r->initiative.reroll_each_round && !initiative_roll(v, NULL, 0, at))
        return false;
    return start_round(v, at);
}

/* --- the encounter --------------------------------------------------------------------- */

bool encounter_begin(vm *v, span at)
{
    combat *cb = &v->world->cb;
    if (cb->active)
        return vm_error(v, at, "an encounter is already under way; 'end encounter' first");
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    cb->active = true;
    cb->over = false;
    cb->ordered = false;
    cb->round = 0;
    cb->turn = -1;
    cb->phase = -1;
    cb->in_turn = false;
    cb->surprise = cb->free_round = false;
    cb->norder = 0;
    cb->fighting = 0;
    vm_play_changed(v);
    cb->fight_paused = false;
    cb->awaiting_start = false;
    vm_play_changed(v);
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        creature *cr = &v->world->creatures[c];
        cr->in_play = !cr->gone;
        cr->acted = cr->delaying = cr->resumed = cr->forfeit = cr->surprised = false;
        vm_play_changed(v);
        cr->out_known = false; /* what it is in this fight is worked out at its first change */
        ledger_encounter_start(v, (int)c);
    }
    combat_say(v, "encounter begins");
    if (!refresh(v, PER_ENCOUNTER, -1, at))
        return false;
    return events_emit(v, EV_ENCOUNTER_START, NULL, 0, at);
}

bool encounter_end(vm *v, span at)
{
    combat *cb = &v->world->cb;
    /* a script written for a longer fight goes on quietly past its end */
    if (!cb->active && cb->over) {
        combat_say(v, "the encounter is already over");
        return true;
    }
    if (!cb->active)
        return vm_error(v, at, "no encounter to end");
    /* a round that ends the encounter as it starts was never played */
    int rounds = cb->turn < 0 && cb->round > 0 ? cb->round - 1 : cb->round;
    if (!events_emit(v, EV_ENCOUNTER_END, NULL, 0, at))
        return false;
    if (v->world->tally && !tally_outcome(v, at))
        return false;
    cb->active = false;
    vm_play_changed(v);
    if (!effects_end_encounter(v, at))
        return false;
    cb->encounters_ended++;
    rulings_end_encounter(v);
    cb->ordered = false;
    cb->norder = 0;
    cb->turn = -1;
    cb->phase = -1;
    cb->in_turn = false;
    cb->round = 0;
    vm_play_changed(v);
    for (int h = 0; h < cb->nholds; h++)
        cb->holds[h].live = false;
    cb->nholds = 0;
    vm_play_changed(v);
    combat_say(v, "encounter ends after %d round%s", rounds, rounds == 1 ? "" : "s");
    return true;
}

/* A period the rules declare, per, and those within it (inner first, in
   the order declared): durations counted in them tick, and resources
   that refresh per them do. Only per itself is counted as ended. */
static bool close_period(vm *v, int per, int depth, span at)
{
    const rules *r = v->r;
    for (int q = 0; q < r->nperiods && depth < r->nperiods; q++)
        if (r->periods[q].within == per && !close_period(v, q, depth + 1, at))
            return false;
    return effects_tick(v, (queue_kind)(Q_PERIOD + per), 0, at) && refresh(v, PER_DECLARED + per, -1, at);
}

static value period_word(vm *v, int per)
{
    return value_ref(V_WORD, HOME_PROGRAM, v->r->periods[per].name);
}

bool period_begin(vm *v, int per, span at)
{
    combat_say(v, "the %s begins", period_name(v->p, PER_DECLARED + per));
    value w = period_word(v, per);
    return events_emit(v, EV_PERIOD_START, &w, 1, at);
}

/* Ending a period ends the encounter under way first. */
bool period_end(vm *v, int per, span at)
{
    combat *cb = &v->world->cb;
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    if (cb->active && !encounter_end(v, at))
        return false;
    combat_say(v, "the %s ends", period_name(v->p, PER_DECLARED + per));
    cb->period_ends[per]++;
    vm_play_changed(v);
    value w = period_word(v, per);
    return events_emit(v, EV_PERIOD_END, &w, 1, at) && close_period(v, per, 0, at);
}

static int side_key(const vm *v, int c)
{
    return v->world->creatures[c].side >= 0 ? v->world->creatures[c].side : -2 - c;
}

/* The encounter is over when its `ends when` holds; without one, when
   creatures can be out of the fight and at most one side still stands. */
bool encounter_check_over(vm *v, span at)
{
    combat *cb = &v->world->cb;
    if (!cb->active || !cb->ordered || cb->checking_over)
        return true;
    const r_encounter *e = &v->r->encounter;
    bool over = false;
    cb->checking_over = true;
    if (rexpr_present(&e->ends)) {
        value x;
        bool ok = e->ends.kind == REXPR_CONST ? (x = e->ends.v, true)
                                              : roster_memo_call(v, &cb->ends_memo, e->ends.chunk, -1, &x);
        if (!ok) {
            cb->checking_over = false;
            return false;
        }
        over = value_truthy(x);
    } else if (rexpr_present(&e->out)) {
        /* a creature with no side is a side of its own. Two creatures of
           different sides found standing last time are asked first: while
           they stand, the fight goes on, and no one else need be asked. */
        bool two = false;
        int w0 = cb->standing[0], w1 = cb->standing[1];
        if (w0 >= 0 && w1 >= 0 && (size_t)w0 < v->world->ncreatures && (size_t)w1 < v->world->ncreatures &&
            v->world->creatures[w0].in_play && v->world->creatures[w1].in_play && side_key(v, w0) != side_key(v, w1)) {
            bool out0, out1;
            if (!encounter_out(v, w0, &out0, at) || !encounter_out(v, w1, &out1, at)) {
                cb->checking_over = false;
                return false;
            }
            two = !out0 && !out1;
        }
        int standing = INT32_MIN;
        for (size_t c = 0; c < v->world->ncreatures && !two; c++) {
            bool out;
            if (!v->world->creatures[c].in_play)
                continue;
            if (!encounter_out(v, (int)c, &out, at)) {
                cb->checking_over = false;
                return false;
            }
            if (out)
                continue;
            int side = side_key(v, (int)c);
            if (standing == INT32_MIN) {
                standing = side;
                cb->standing[0] = (int32_t)c;
            } else if (side != standing) {
                two = true;
                cb->standing[1] = (int32_t)c;
            }
        }
        over = !two;
    }
    cb->checking_over = false;
    if (!over)
        return true;
    combat_say(v, "the encounter is over");
    if (!encounter_end(v, at))
        return false;
    cb->over = true;
    vm_play_changed(v);
    return true;
}

/* Surprise happens when some creatures are caught unaware and others are
   not: the aware act first (a surprise round or a free round). */
static bool some_surprised(const vm *v)
{
    bool aware = false, unaware = false;
    for (size_t c = 0; c < v->world->ncreatures; c++)
        if (v->world->creatures[c].in_play) {
            unaware |= v->world->creatures[c].surprised;
            aware |= !v->world->creatures[c].surprised;
        }
    return aware && unaware;
}

/* Round 1 (or the surprise round) starts once the order is settled. */
bool encounter_start_rounds(vm *v, span at)
{
    combat *cb = &v->world->cb;
    cb->awaiting_start = false;
    vm_play_changed(v);
    const r_initiative *in = &v->r->initiative;
    if (in->surprise == SURPRISE_ROUND && some_surprised(v)) {
        cb->surprise = true;
        vm_play_changed(v);
    }
    return start_round(v, at);
}

/* `roll initiative` once the order is rolled: each creature that joined
   since, put last without a roll, rolls for its place. */
static bool place_all_unrolled(vm *v, span at)
{
    combat *cb = &v->world->cb;
    int n = 0;
    for (int i = 0; i < cb->norder; i++)
        n += cb->order[i].unrolled;
    if (n == 0)
        return vm_error(v, at,
                        "initiative is already rolled for this encounter, and no creature has joined the fight since "
                        "(one that joins is placed with 'roll initiative NAME [ROLLED]')");
    value *given = MEM_NEW_ARRAY(value, 2 * (size_t)n);
    if (!given)
        return vm_error(v, at, "out of memory");
    int k = 0;
    for (int i = 0; i < cb->norder; i++)
        if (cb->order[i].unrolled) {
            given[k++] = value_ref(V_CREATURE, 0, cb->order[i].creature);
            given[k++] = value_nil();
        }
    bool ok = initiative_place(v, given, k, at);
    mem_free(given, 2 * (size_t)n * sizeof(value));
    return ok;
}

bool encounter_roll_initiative(vm *v, const value *given, int ngiven, span at)
{
    combat *cb = &v->world->cb;
    const r_initiative *in = &v->r->initiative;
    if (!cb->active)
        return vm_error(v, at, "no encounter: 'begin encounter' first");
    if (cb->ordered && cb->free_round)
        return vm_error(v, at, "initiative is rolled as the free round ends: enter the rolls then");
    if (cb->ordered && ngiven > 0)
        return initiative_place(v, given, ngiven, at);
    if (cb->ordered)
        return place_all_unrolled(v, at);
    /* who is surprised, by the rules' own test */
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        creature *cr = &v->world->creatures[c];
        cr->surprised = false;
        vm_play_changed(v);
        if (!cr->in_play || !rexpr_present(&in->surprised))
            continue;
        value x;
        if (in->surprised.kind == REXPR_CONST)
            x = in->surprised.v;
        else if (!vm_call(v, in->surprised.chunk, (int)c, NULL, 0, &x))
            return false;
        cr->surprised = value_truthy(x);
        vm_play_changed(v);
    }
    if (in->surprise == SURPRISE_FREE_ROUND && some_surprised(v)) {
        /* the free round comes before initiative: the aware act in the
           order they were brought into play */
        size_t cap = (size_t)cb->order_cap;
        entry *g = mem_grow(cb->order, sizeof(entry), &cap, v->world->ncreatures);
        if (!g)
            return vm_error(v, at, "out of memory");
        cb->order = g;
        cb->order_cap = (int)cap;
        cb->norder = 0;
        vm_play_changed(v);
        bool by_sides = in->mode == INIT_SIDES;
        for (size_t c = 0; c < v->world->ncreatures; c++) {
            const creature *cr = &v->world->creatures[c];
            if (!cr->in_play || cr->surprised)
                continue;
            /* by sides, a side acts as one, as it will once initiative is rolled */
            bool seen = false;
            for (int k = 0; by_sides && k < cb->norder; k++)
                seen |= cb->order[k].side == cr->side;
            if (seen)
                continue;
            int32_t who = by_sides && cr->side >= 0 ? -1 : (int32_t)c;
            cb->order[cb->norder] = (entry){.creature = who,
                                            .side = cr->side,
                                            .key = (int64_t)cb->norder * KEY_GAP,
                                            .score = value_nil(),
                                            .check = value_nil()};
            cb->norder++;
        }
        forget_given(cb);
        if (ngiven > 0) {
            cb->given = MEM_NEW_ARRAY(value, (size_t)ngiven);
            if (!cb->given)
                return vm_error(v, at, "out of memory");
            memcpy(cb->given, given, (size_t)ngiven * sizeof(value));
            cb->ngiven = ngiven;
        }
        cb->ordered = true;
        cb->free_round = true;
        vm_play_changed(v);
        combat_say(v, "free round before initiative: the surprised side cannot act");
        return start_round(v, at);
    }
    if (!initiative_roll(v, given, ngiven, at))
        return false;
    if (in->reorder_start) {
        cb->awaiting_start = true;
        vm_play_changed(v);
        combat_say(v, "changes to the order may be made now (reorder NAME after|before NAME); 'next' starts round 1");
        return true;
    }
    return encounter_start_rounds(v, at);
}

bool encounter_next(vm *v, span at)
{
    combat *cb = &v->world->cb;
    if (!cb->active && cb->over) {
        combat_say(v, "the encounter is already over");
        return true;
    }
    if (!cb->active)
        return vm_error(v, at, "no encounter under way");
    if (!cb->ordered)
        return vm_error(v, at, "no turns yet: 'roll initiative' first");
    if (cb->awaiting_start)
        return encounter_start_rounds(v, at);
    if (cb->in_turn) {
        if (!end_turn(v, at))
            return false;
        if (!cb->active)
            return true;
        if (!encounter_check_over(v, at))
            return false;
        if (!cb->active)
            return true;
        return next_participant(v, at);
    }
    if (current_kind(v) == PHASE_OPEN)
        return end_phase(v, at);
    return next_participant(v, at);
}

/* --- delay and resume -------------------------------------------------------------------- */

bool encounter_delay(vm *v, span at)
{
    combat *cb = &v->world->cb;
    if (!v->r->initiative.allow_delay)
        return vm_error(v, at, "these rules do not let a creature delay");
    const entry *e = current(v);
    if (!e || !cb->in_turn || e->creature < 0)
        return vm_error(v, at, "only the creature whose turn it is can delay");
    creature *cr = &v->world->creatures[e->creature];
    cr->delaying = true;
    cr->resumed = true; /* its turn has started; resuming goes on with it */
    cb->in_turn = false;
    vm_play_changed(v);
    combat_say(v, "%s delays", cr->name);
    return next_participant(v, at);
}

bool encounter_resume(vm *v, int c, span at)
{
    combat *cb = &v->world->cb;
    creature *cr = &v->world->creatures[c];
    if (!cr->delaying)
        return vm_error(v, at, "%s is not delaying", cr->name);
    int at_index = -1;
    for (int i = 0; i < cb->norder; i++)
        if (cb->order[i].creature == c)
            at_index = i;
    if (at_index < 0)
        return vm_error(v, at, "%s has no place in the order", cr->name);
    cr->delaying = false;
    vm_play_changed(v);
    combat_say(v, "%s stops delaying", cr->name);
    if (v->r->initiative.delay_returns && !cb->order[at_index].away) {
        cb->order[at_index].away = true;
        cb->order[at_index].home = cb->order[at_index].key;
    }
    /* it acts right after the turn under way (or now, between turns) */
    int target = cb->in_turn ? cb->turn + 1 : cb->turn + 1;
    if (target > cb->norder)
        target = cb->norder;
    if (at_index != target && at_index != target - 1) {
        if (!encounter_move_entry(v, at_index, target, at))
            return false;
    } else if (at_index == target - 1 && cb->in_turn) {
        /* already just before: nothing to move */
    }
    if (!cb->in_turn) {
        for (int i = 0; i < cb->norder; i++)
            if (cb->order[i].creature == c)
                return start_turn(v, i, at);
    }
    return true;
}

/* --- remove ------------------------------------------------------------------------------- */

/* Does a side's entry still have a member in play? */
static bool side_has_members(const vm *v, int side)
{
    for (size_t c = 0; c < v->world->ncreatures; c++)
        if (v->world->creatures[c].in_play && v->world->creatures[c].side == side)
            return true;
    return false;
}

bool encounter_remove(vm *v, int c, span at)
{
    combat *cb = &v->world->cb;
    creature *cr = &v->world->creatures[c];
    if (cr->gone)
        return vm_error(v, at, "%s has already been removed from play", cr->name);
    /* its entry: its own, or its side's when it was the last member */
    bool active = cb->active && cb->ordered;
    bool its_turn = active && cb->in_turn && encounter_is_turn_of(v, c);
    cr->gone = true;
    cr->in_play = false;
    cr->delaying = cr->resumed = cr->forfeit = false;
    cr->forfeit_next_to = -1;
    vm_play_changed(v);
    int at_index = -1;
    for (int i = 0; active && i < cb->norder && at_index < 0; i++) {
        const entry *e = &cb->order[i];
        if (e->creature == c || (e->creature < 0 && e->side == cr->side && !side_has_members(v, e->side)))
            at_index = i;
    }
    bool entry_turn = at_index >= 0 && at_index == cb->turn && cb->in_turn;
    if (at_index >= 0) {
        memmove(&cb->order[at_index], &cb->order[at_index + 1], (size_t)(cb->norder - at_index - 1) * sizeof(entry));
        cb->norder--;
        if (at_index <= cb->turn)
            cb->turn--; /* the next turn is the one after the entry that went */
    }
    /* a move promised next to it (a forfeited turn) has nowhere to go */
    for (size_t o = 0; o < v->world->ncreatures; o++)
        if (v->world->creatures[o].forfeit_next_to == c) {
            v->world->creatures[o].forfeit_next_to = -1;
            vm_play_changed(v);
        }
    cr->placed = false;
    cr->zone = -1;
    vm_play_changed(v);
    combat_say(v, "%s is removed from play%s", cr->name, its_turn ? " in its own turn" : "");
    if (!effects_clear(v, c, at) || !groups_leave_all(v, c, false, at))
        return false;
    /* an action readied against it, or for what it does, can never be taken */
    for (int h = 0; h < cb->nholds; h++) {
        hold *hd = &cb->holds[h];
        bool names = false;
        for (int i = 0; i < hd->nargs; i++)
            names |= hd->args[i].type == V_CREATURE && hd->args[i].num == c;
        for (int i = 0; i < hd->npattern; i++)
            names |= hd->pattern[i].type == V_CREATURE && hd->pattern[i].num == c;
        if (!hd->live || !names)
            continue;
        hd->live = false;
        effects_drop_hold(v, hd->creature, h);
        combat_say(v, "%s's held action is lost: %s left play", v->world->creatures[hd->creature].name, cr->name);
    }
    if (!active || !cb->active)
        return true;
    if (entry_turn) {
        cb->in_turn = false;
        vm_play_changed(v);
    }
    if (!encounter_check_over(v, at))
        return false;
    if (!cb->active)
        return true;
    /* its turn is over: the next one starts (a side's goes on for the rest) */
    return entry_turn ? next_participant(v, at) : true;
}

/* Renumbers every key from 0, keeping order, and maps waiting positions
   along with them. */
static bool renumber(vm *v, span at)
{
    combat *cb = &v->world->cb;
    int64_t *old = mem_alloc((size_t)cb->norder * sizeof(int64_t) + 1);
    if (!old)
        return vm_error(v, at, "out of memory");
    for (int i = 0; i < cb->norder; i++)
        old[i] = cb->order[i].key;
    for (int i = 0; i < cb->norder; i++)
        cb->order[i].key = (int64_t)i * KEY_GAP;
    /* a former place kept for a creature that delayed stays between the
       same two entries */
    for (int i = 0; i < cb->norder; i++) {
        if (!cb->order[i].away)
            continue;
        int k = 0;
        while (k < cb->norder && old[k] < cb->order[i].home)
            k++;
        cb->order[i].home = (int64_t)k * KEY_GAP - KEY_GAP / 2;
    }
    for (int h = 0; h < cb->nheap; h++) {
        effect *e = &cb->effects[cb->heap[h]];
        if (e->due_key == INT64_MIN || e->due_key == INT64_MAX)
            continue;
        /* the new key of the first entry at or after the old one, less a
           little: a position between two entries stays between them */
        int k = 0;
        while (k < cb->norder && old[k] < e->due_key)
            k++;
        e->due_key = k < cb->norder && old[k] == e->due_key ? cb->order[k].key : (int64_t)k * KEY_GAP - KEY_GAP / 2;
    }
    mem_free(old, (size_t)cb->norder * sizeof(int64_t) + 1);
    return true;
}

/* The key for an entry put at index `to`: between its new neighbours'. */
static bool key_at(vm *v, int to, int64_t *key, span at)
{
    combat *cb = &v->world->cb;
    int64_t lo = to > 0 ? cb->order[to - 1].key : (cb->norder ? cb->order[0].key : 0) - 2 * KEY_GAP;
    int64_t hi = to < cb->norder ? cb->order[to].key : (cb->norder ? cb->order[cb->norder - 1].key : 0) + 2 * KEY_GAP;
    if (hi - lo < 2) {
        if (!renumber(v, at))
            return false;
        lo = to > 0 ? cb->order[to - 1].key : -2 * KEY_GAP;
        hi = to < cb->norder ? cb->order[to].key : (int64_t)cb->norder * KEY_GAP + KEY_GAP;
    }
    *key = lo + (hi - lo) / 2;
    return true;
}

bool encounter_insert_entry(vm *v, entry e, int to, span at)
{
    combat *cb = &v->world->cb;
    size_t cap = (size_t)cb->order_cap;
    entry *g = mem_grow(cb->order, sizeof(entry), &cap, (size_t)cb->norder + 1);
    if (!g)
        return vm_error(v, at, "out of memory");
    cb->order = g;
    cb->order_cap = (int)cap;
    if (!key_at(v, to, &e.key, at))
        return false;
    memmove(&cb->order[to + 1], &cb->order[to], (size_t)(cb->norder - to) * sizeof(entry));
    cb->order[to] = e;
    cb->norder++;
    if (cb->turn >= to)
        cb->turn++; /* the turn under way stays its own */
    vm_play_changed(v);
    return true;
}

bool encounter_move_entry(vm *v, int from, int to, span at)
{
    combat *cb = &v->world->cb;
    entry moving = cb->order[from];
    int cur = cb->turn;
    /* take it out */
    memmove(&cb->order[from], &cb->order[from + 1], (size_t)(cb->norder - from - 1) * sizeof(entry));
    cb->norder--;
    if (to > from)
        to--;
    if (cur > from)
        cur--;
    else if (cur == from)
        cur = -1;
    if (!key_at(v, to, &moving.key, at))
        return false;
    moving.moved = true;
    memmove(&cb->order[to + 1], &cb->order[to], (size_t)(cb->norder - to) * sizeof(entry));
    cb->order[to] = moving;
    cb->norder++;
    if (cur >= to)
        cur++;
    cb->turn = cur >= 0 ? cur : cb->turn;
    vm_play_changed(v);
    return true;
}

static int index_of(const vm *v, int c)
{
    for (int i = 0; i < v->world->cb.norder; i++)
        if (v->world->cb.order[i].creature == c)
            return i;
    return -1;
}

int encounter_index_of(const vm *v, int c)
{
    return index_of(v, c);
}

bool encounter_has_place(const vm *v, int c)
{
    return index_of(v, c) >= 0;
}

/* --- fight ----------------------------------------------------------------------------------- */

/* A turn of a fight is over: its steps count toward the fight's, and
   its scratch values go. */
static bool turn_done(vm *v, vm_mark mark, uint64_t *used, uint64_t allowed, span at)
{
    if (v->failed) /* its budget was emptied by the error */
        return false;
    *used += (uint64_t)(vm_step_budget(v) - v->steps_left);
    if (*used > allowed)
        return vm_error(v, at,
                        "step limit reached: the fight took more than %" PRIu64 " steps in all (%d times --max-steps)",
                        allowed, FIGHT_STEPS_FACTOR);
    vm_scratch_release(v, mark);
    v->steps_left = vm_step_budget(v); /* the next turn gets a budget of its own */
    return true;
}

bool encounter_play_tactic(vm *v, int c, span at)
{
    int t = v->world->creatures[c].tactic;
    if (t < 0)
        return vm_error(v, at,
                        "%s has no tactic, so 'fight' cannot play its turn (give it one: creature ... tactic NAME)",
                        world_name(v, c));
    combat *cb = &v->world->cb;
    if (cb->tactic_depth++ == 0)
        cb->tactic_encounter = cb->encounters_ended;
    value r;
    bool ok = vm_call(v, v->r->tactics[t].body, c, NULL, 0, &r);
    cb->tactic_depth--;
    if (!ok && cb->tactic_stopped && cb->tactic_depth == 0) {
        /* its encounter ended: the rest of the tactic is not played */
        cb->tactic_stopped = false;
        vm_clear_error(v);
        ok = true;
    }
    return ok;
}

bool encounter_fight(vm *v, int rounds, span at)
{
    combat *cb = &v->world->cb;
    if (!cb->active && cb->encounters_ended > 0) {
        combat_say(v, "the encounter is already over");
        return true;
    }
    if (!cb->active)
        return vm_error(v, at, "no encounter to fight; 'begin encounter' first");
    if (!cb->ordered && !encounter_roll_initiative(v, NULL, 0, at))
        return false;
    if (cb->awaiting_start && !encounter_start_rounds(v, at))
        return false;
    cb->fighting = rounds;
    vm_play_changed(v);
    cb->fight_paused = false;
    int guard = 0;
    /* each turn gets the step budget of a command, and its scratch values
       are dropped when it ends, so a long fight runs in bounded memory */
    vm_mark mark = vm_scratch_mark(v);
    /* all the turns of one fight may take FIGHT_STEPS_FACTOR budgets */
    uint64_t used = 0, allowed = v->limits.steps > UINT64_MAX / FIGHT_STEPS_FACTOR
                                     ? UINT64_MAX
                                     : v->limits.steps * FIGHT_STEPS_FACTOR;
    while (cb->active && !cb->fight_paused) {
        if (cb->round > v->limits.fight_rounds && rounds == 0)
            return vm_error(v, at,
                            "the fight has gone on for %d rounds without ending (the limit; see --limit "
                            "fight-rounds=N); does anything end it ('encounter { ends when ... }')?",
                            v->limits.fight_rounds);
        if (++guard > 10000000)
            return vm_error(v, at, "the fight takes too many steps");
        phase_kind kind = current_kind(v);
        if ((cb->in_turn && (kind == PHASE_TURNS || kind == PHASE_STEPS)) || (!cb->in_turn && kind == PHASE_OPEN)) {
            /* a turn or a step: its creature, or a side's members; an open
               phase: everyone, in the order of turns */
            int from = cb->in_turn ? cb->turn : 0, to = cb->in_turn ? cb->turn + 1 : cb->norder;
            for (int i = from; i < to && cb->active; i++) {
                const entry e = cb->order[i];
                size_t first = e.creature >= 0 ? (size_t)e.creature : 0;
                size_t last = e.creature >= 0 ? (size_t)e.creature + 1 : v->world->ncreatures;
                for (size_t c = first; c < last && cb->active; c++) {
                    if (e.creature < 0 && v->world->creatures[c].side != e.side)
                        continue;
                    /* in its own turn, only whether it can still act; in an
                       open phase, whether it takes part at all */
                    bool yes = v->world->creatures[c].in_play, out = false;
                    if (cb->in_turn) {
                        if (yes && !encounter_out(v, (int)c, &out, at))
                            return false;
                        yes = yes && !out;
                    } else if (!takes_part(v, (int)c, &yes, at)) {
                        return false;
                    }
                    if (!yes)
                        continue;
                    if (!encounter_play_tactic(v, (int)c, at))
                        return false;
                    if (!turn_done(v, mark, &used, allowed, at))
                        return false;
                }
            }
            if (!cb->active)
                break;
        }
        if (!encounter_next(v, at) || !turn_done(v, mark, &used, allowed, at))
            return false;
    }
    cb->fighting = 0;
    vm_play_changed(v);
    cb->fight_paused = false;
    return true;
}
