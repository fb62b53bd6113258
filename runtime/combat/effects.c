/* effects: what is in force on creatures (conditions, cooldowns, relations,
 * held actions), how long it lasts, and what it changes.
 *
 * An effect sits on its bearer's list and in one queue that counts it down:
 * a creature's turn starts or ends, the round starts or ends, a phase
 * starts, an initiative position comes round (a heap ordered by round and
 * position), or an encounter or a period the rules declare ends. Only the effects in
 * the queue at hand are touched when it ticks, so the cost of a turn does
 * not grow with unrelated effects elsewhere.
 *
 * A duration in rounds is anchored to the initiative position where it
 * began (or to its creature's own turns, if the rules say `anchor
 * creature`): if the creature later moves in the order, the duration still
 * ends where it began. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/conditions.h"
#include "runtime/combat/tally.h"
#include "runtime/combat/world.h"

/* --- effect records ---------------------------------------------------------- */

static effect *eff(vm *v, int32_t i)
{
    return &v->world->cb.effects[i];
}

static int32_t new_effect(vm *v, span at)
{
    combat *cb = &v->world->cb;
    int32_t i;
    if (cb->live_effects >= v->limits.effects) {
        vm_error(v, at, "too many effects in force at once (limit is %d; see --limit effects=N)", v->limits.effects);
        return -1;
    }
    if (cb->free_effects >= 0) {
        i = cb->free_effects;
        cb->free_effects = cb->effects[i].next;
    } else {
        size_t cap = (size_t)cb->effects_cap;
        effect *g = mem_grow(cb->effects, sizeof(effect), &cap, (size_t)cb->neffects + 1);
        if (!g) {
            vm_error(v, at, "out of memory");
            return -1;
        }
        cb->effects = g;
        cb->effects_cap = (int)cap;
        i = cb->neffects++;
    }
    effect *e = &cb->effects[i];
    memset(e, 0, sizeof *e);
    e->live = true;
    e->partner = e->source = e->anchor = -1;
    e->next = e->prev = e->qnext = e->qprev = e->heap_at = -1;
    e->seq = ++cb->effect_seq;
    cb->live_effects++;
    vm_play_changed(v);
    return i;
}

/* A tag's duration (EFF_TAG) is borne by no creature: it is on no list. */
static void link_bearer(vm *v, int32_t i)
{
    effect *e = eff(v, i);
    if (e->bearer < 0) {
        e->next = e->prev = -1;
        return;
    }
    creature *c = &v->world->creatures[e->bearer];
    if (e->kind == EFF_CONDITION && e->what < c->held_len)
        c->held[e->what]++;
    e->prev = -1;
    e->next = c->effects;
    if (c->effects >= 0)
        eff(v, c->effects)->prev = i;
    c->effects = i;
    vm_play_changed(v);
    world_touch(v->world, e->bearer);
}

static void unlink_bearer(vm *v, int32_t i)
{
    effect *e = eff(v, i);
    if (e->bearer < 0)
        return;
    creature *c = &v->world->creatures[e->bearer];
    if (e->kind == EFF_CONDITION && e->what < c->held_len && c->held[e->what] > 0)
        c->held[e->what]--;
    if (e->prev >= 0)
        eff(v, e->prev)->next = e->next;
    else
        v->world->creatures[e->bearer].effects = e->next;
    if (e->next >= 0)
        eff(v, e->next)->prev = e->prev;
    world_touch(v->world, e->bearer);
    e->next = e->prev = -1;
    vm_play_changed(v);
}

/* The head of a list queue. */
static int32_t *queue_head(vm *v, queue_kind q, int anchor)
{
    combat *cb = &v->world->cb;
    switch (q) {
    case Q_TURN_START: return &cb->q_turn_start[anchor];
    case Q_TURN_END: return &cb->q_turn_end[anchor];
    case Q_PHASE: return &cb->q_phase[anchor];
    case Q_ROUND_START:
    case Q_ROUND_END:
    case Q_ENCOUNTER: return &cb->q_global[q];
    default:
        /* a declared period's: combat_sync made its place */
        return q >= Q_PERIOD && (size_t)(q - Q_PERIOD) < cb->q_period_cap ? &cb->q_period[q - Q_PERIOD] : NULL;
    }
}

/* --- the position heap ------------------------------------------------------------ */

static bool heap_less(vm *v, int32_t a, int32_t b)
{
    const effect *x = eff(v, a), *y = eff(v, b);
    if (x->due_round != y->due_round)
        return x->due_round < y->due_round;
    if (x->due_phase != y->due_phase)
        return x->due_phase < y->due_phase;
    if (x->due_key != y->due_key)
        return x->due_key < y->due_key;
    return x->seq < y->seq;
}

static void heap_set(vm *v, int at, int32_t e)
{
    v->world->cb.heap[at] = e;
    eff(v, e)->heap_at = at;
}

static void heap_up(vm *v, int at)
{
    int32_t e = v->world->cb.heap[at];
    while (at > 0) {
        int parent = (at - 1) / 2;
        if (!heap_less(v, e, v->world->cb.heap[parent]))
            break;
        heap_set(v, at, v->world->cb.heap[parent]);
        at = parent;
    }
    heap_set(v, at, e);
}

static void heap_down(vm *v, int at)
{
    combat *cb = &v->world->cb;
    int32_t e = cb->heap[at];
    for (;;) {
        int l = 2 * at + 1, r = l + 1, best = at;
        int32_t best_e = e;
        if (l < cb->nheap && heap_less(v, cb->heap[l], best_e))
            best = l, best_e = cb->heap[l];
        if (r < cb->nheap && heap_less(v, cb->heap[r], best_e))
            best = r, best_e = cb->heap[r];
        if (best == at)
            break;
        heap_set(v, at, cb->heap[best]);
        at = best;
    }
    heap_set(v, at, e);
}

static bool heap_push(vm *v, int32_t e, span at)
{
    combat *cb = &v->world->cb;
    size_t cap = (size_t)cb->heap_cap;
    int32_t *g = mem_grow(cb->heap, sizeof(int32_t), &cap, (size_t)cb->nheap + 1);
    if (!g)
        return vm_error(v, at, "out of memory");
    cb->heap = g;
    cb->heap_cap = (int)cap;
    cb->heap[cb->nheap++] = e;
    heap_up(v, cb->nheap - 1);
    return true;
}

static void heap_remove(vm *v, int32_t e)
{
    combat *cb = &v->world->cb;
    int at = eff(v, e)->heap_at;
    if (at < 0)
        return;
    int32_t last = cb->heap[--cb->nheap];
    eff(v, e)->heap_at = -1;
    if (at == cb->nheap)
        return;
    heap_set(v, at, last);
    heap_up(v, at);
    heap_down(v, eff(v, last)->heap_at);
}

static void enqueue(vm *v, int32_t i)
{
    effect *e = eff(v, i);
    int32_t *head = queue_head(v, (queue_kind)e->queue, e->anchor);
    if (!head)
        return;
    e->qprev = -1;
    e->qnext = *head;
    if (*head >= 0)
        eff(v, *head)->qprev = i;
    *head = i;
}

static void dequeue(vm *v, int32_t i)
{
    effect *e = eff(v, i);
    if (e->queue == Q_POSITION) {
        heap_remove(v, i);
        return;
    }
    int32_t *head = queue_head(v, (queue_kind)e->queue, e->anchor);
    if (!head)
        return;
    if (e->qprev >= 0)
        eff(v, e->qprev)->qnext = e->qnext;
    else
        *head = e->qnext;
    if (e->qnext >= 0)
        eff(v, e->qnext)->qprev = e->qprev;
    e->qnext = e->qprev = -1;
}

static void free_effect(vm *v, int32_t i)
{
    effect *e = eff(v, i);
    dequeue(v, i);
    unlink_bearer(v, i);
    e->live = false;
    v->world->cb.live_effects--;
    e->next = v->world->cb.free_effects;
    v->world->cb.free_effects = i;
    vm_play_changed(v);
}

/* --- durations ---------------------------------------------------------------------- */

/* Text for a duration as the tracker shows it. */
static const char *describe_lasts(vm *v, const effect *e, text_buf *out)
{
    text_clear(out);
    const char *who =
        e->anchor >= 0 && (size_t)e->anchor < v->world->ncreatures ? v->world->creatures[e->anchor].name : "";
    value t = e->lasts;
    if (t.type != V_TIME) {
        text_add(out, "until removed");
        return out->s;
    }
    switch ((time_kind)t.home) {
    case TIME_UNTIL_TURN_START:
        text_add(out, "until start of %s's %s turn", who, t.num <= 1 ? "next" : "later");
        return out->s;
    case TIME_UNTIL_TURN_END: /* by the ends still to come */
        text_add(out, "until end of %s's %sturn", who, e->remaining >= 2 ? "next " : "");
        return out->s;
    case TIME_UNTIL_ROUND_START: text_add(out, "until start of next round"); return out->s;
    case TIME_UNTIL_ROUND_END: text_add(out, "until end of %sround", e->remaining >= 2 ? "next " : ""); return out->s;
    default: break;
    }
    if (e->queue == Q_POSITION) {
        /* before round 1, the count starts with round 1 */
        int left = e->due_round - (v->world->cb.round > 0 ? v->world->cb.round : 1);
        if (left <= 0)
            text_add(out, "ends this round");
        else
            text_add(out, "%d %s left", left, left == 1 ? "round" : "rounds");
    } else {
        /* turns counted by their starts: outside the anchor's turn, the
           next start only begins the first of them */
        int left = e->remaining;
        if ((time_kind)t.home == TIME_TURNS && e->queue == Q_TURN_START && !encounter_is_turn_of(v, e->anchor))
            left--;
        if (left <= 0 && e->queue == Q_TURN_START)
            text_add(out, "ends as %s's next turn starts", who);
        else
            text_add(out, "%d %s left", left, rules_time_name(v->p, (time_kind)t.home, left));
    }
    return out->s;
}

/* Puts a new effect in the queue its duration says. */
static bool schedule(vm *v, int32_t i, value lasts, span at)
{
    effect *e = eff(v, i);
    combat *cb = &v->world->cb;
    const rules *r = v->r;
    e->lasts = lasts;
    if (lasts.type == V_NIL) {
        e->queue = Q_NONE;
        return true;
    }
    if (lasts.type != V_TIME)
        return vm_error(v, at, "a duration must be a time (as in 2 rounds), not %s", value_type_name(lasts.type));
    int64_t n = lasts.num;
    if (n < 0)
        return vm_error(v, at, "a duration cannot be negative");
    if (n > 1000000)
        return vm_error(v, at, "a duration of more than 1000000 is out of range");
    time_kind tk = (time_kind)lasts.home;
    if (tk == TIME_SECONDS) {
        /* seconds count in rounds of the declared length */
        const rexpr *len = &r->round_length;
        value l;
        if (len->kind == REXPR_CONST)
            l = len->v;
        else if (len->kind == REXPR_CHUNK) {
            if (!vm_call(v, len->chunk, -1, NULL, 0, &l))
                return false;
        } else
            return vm_error(v, at, "a duration in seconds needs the length of a round (round { length 6 s })");
        if (l.type != V_TIME || l.num <= 0)
            return vm_error(v, at, "the length of a round must be a positive time in seconds");
        n = (n + l.num - 1) / l.num;
        tk = TIME_ROUNDS;
    }
    int acting = encounter_acting(v);
    bool own_turn = e->anchor >= 0 && acting == e->anchor && cb->in_turn;
    const time_config *cfg =
        tk == TIME_TURNS || tk == TIME_UNTIL_TURN_START || tk == TIME_UNTIL_TURN_END ? &r->turns_cfg : &r->rounds_cfg;
    bool by_position = tk == TIME_ROUNDS ? !r->rounds_cfg.anchor_creature
                       : tk == TIME_TURNS || tk == TIME_UNTIL_TURN_START
                           ? r->turns_cfg.from.decl >= 0 && !r->turns_cfg.anchor_creature
                           : false;
    (void)cfg;
    switch (tk) {
    case TIME_ROUNDS:
    case TIME_TURNS:
        if (tk == TIME_ROUNDS && r->rounds_cfg.tick_phase >= 0 && cb->phase == r->rounds_cfg.tick_phase) {
            e->queue = Q_PHASE;
            e->anchor = r->rounds_cfg.tick_phase;
            e->remaining = (int32_t)n;
            break;
        }
        if (by_position || (tk == TIME_ROUNDS && e->anchor < 0)) {
            e->queue = Q_POSITION;
            int64_t now = encounter_now_key(v);
            int round = cb->round, phase = cb->phase;
            if (!cb->active || !cb->ordered || (round == 0 && !cb->surprise)) {
                round = 1; /* counted from the first round */
                now = INT64_MIN;
                phase = -1;
            }
            /* the same position in the same phase: a step of an earlier
               phase at that position does not end it */
            e->due_round = (int32_t)(round + n);
            e->due_phase = phase;
            e->due_key = now;
            return heap_push(v, i, at);
        }
        e->queue = Q_TURN_START;
        e->remaining = (int32_t)(tk == TIME_TURNS && !own_turn ? n + 1 : n);
        if (tk == TIME_ROUNDS)
            e->remaining = (int32_t)n; /* the creature's next n turn starts */
        break;
    case TIME_UNTIL_TURN_START:
        if (by_position && e->anchor >= 0 && own_turn) {
            e->queue = Q_POSITION;
            e->due_round = cb->round + (int32_t)n;
            e->due_phase = cb->phase;
            e->due_key = encounter_now_key(v);
            return heap_push(v, i, at);
        }
        e->queue = Q_TURN_START;
        e->remaining = (int32_t)n;
        break;
    case TIME_UNTIL_TURN_END:
        /* `until end of next turn`: the next end but one in the anchor's
           own turn, the next end outside it */
        e->queue = Q_TURN_END;
        e->remaining = (int32_t)(n >= 2 && !own_turn ? n - 1 : n);
        break;
    case TIME_UNTIL_ROUND_START:
        e->queue = Q_ROUND_START;
        e->remaining = (int32_t)n;
        break;
    case TIME_UNTIL_ROUND_END:
        /* `until end of next round` before round 1: the end of round 1 */
        e->queue = Q_ROUND_END;
        e->remaining = (int32_t)(n >= 2 && (!cb->active || cb->round == 0) && !cb->surprise ? n - 1 : n);
        break;
    case TIME_ENCOUNTERS: e->queue = Q_ENCOUNTER, e->remaining = (int32_t)n; break;
    default:
        if (tk < TIME_PERIOD || (int)tk - TIME_PERIOD >= v->r->nperiods)
            return vm_error(v, at, "cannot count a duration in %s", rules_time_name(v->p, tk, 2));
        if (!combat_sync(v))
            return vm_error(v, at, "out of memory");
        e = eff(v, i);
        e->queue = (uint8_t)(Q_PERIOD + (tk - TIME_PERIOD));
        e->remaining = (int32_t)n;
        break;
    }
    if ((e->queue == Q_TURN_START || e->queue == Q_TURN_END) && e->anchor < 0) {
        e->queue = Q_NONE; /* in no queue: freeing it touches none */
        return vm_error(v, at, "a duration counted in turns needs a creature whose turns count it");
    }
    if (n == 0) {
        /* lasts no time at all: it never takes hold */
        e->remaining = 0;
    }
    enqueue(v, i);
    vm_play_changed(v);
    return true;
}

/* A new effect of a kind on its bearer, counted down from now; -1 (with
   the error) when it cannot be. */
static int32_t add_effect(vm *v, effect_kind kind, int what, int bearer, int anchor, value lasts, span at)
{
    int32_t i = new_effect(v, at);
    if (i < 0)
        return -1;
    effect *e = eff(v, i);
    e->kind = (uint8_t)kind;
    e->what = what;
    e->bearer = bearer;
    e->anchor = anchor;
    link_bearer(v, i);
    if (!schedule(v, i, lasts, at)) {
        free_effect(v, i);
        return -1;
    }
    return i;
}

/* --- ending ------------------------------------------------------------------------- */

static const char *what_name(vm *v, const effect *e)
{
    switch ((effect_kind)e->kind) {
    case EFF_CONDITION: return rules_condition_title(v->p, e->what);
    case EFF_COOLDOWN: return program_string(v->p, v->r->actions[e->what].name);
    case EFF_RELATION: return program_string(v->p, v->r->relations[e->what].name);
    case EFF_TAG: return "tag";
    default: return "held action";
    }
}

/* Ends effect i, saying so and emitting the event that it ended. */
static bool end_effect(vm *v, int32_t i, const char *why, span at)
{
    effect copy = *eff(v, i);
    if (copy.kind == EFF_CONDITION && !encounter_out_before(v, copy.bearer, at))
        return false;
    free_effect(v, i);
    if (copy.kind == EFF_TAG)
        return tags_expired(v, copy.what, why, at);
    const char *name = what_name(v, &copy);
    const char *bearer = v->world->creatures[copy.bearer].name;
    switch ((effect_kind)copy.kind) {
    case EFF_CONDITION: {
        combat_say(v, "%s on %s ended%s%s%s", name, bearer, why ? " (" : "", why ? why : "", why ? ")" : "");
        value args[2] = {value_ref(V_CREATURE, 0, copy.bearer),
                         value_ref(V_WORD, HOME_PROGRAM, v->r->conditions[copy.what].name)};
        return events_emit(v, EV_CONDITION_ENDED, args, 2, at) && encounter_out_after(v, copy.bearer, at);
    }
    case EFF_COOLDOWN: combat_note(v, "%s can use %s again", bearer, name); return true;
    case EFF_RELATION: {
        combat_say(v, "%s of %s and %s ended%s%s%s", name, bearer, v->world->creatures[copy.partner].name,
                   why ? " (" : "", why ? why : "", why ? ")" : "");
        value args[3] = {value_ref(V_WORD, HOME_PROGRAM, v->r->relations[copy.what].name),
                         value_ref(V_CREATURE, 0, copy.bearer), value_ref(V_CREATURE, 0, copy.partner)};
        return events_emit(v, EV_UNRELATED, args, 3, at);
    }
    case EFF_TAG: return true;
    case EFF_HOLD:
        if (copy.what >= 0 && copy.what < v->world->cb.nholds && v->world->cb.holds[copy.what].live) {
            v->world->cb.holds[copy.what].live = false;
            vm_play_changed(v);
            combat_say(v, "%s's held action is lost", bearer);
        }
        return true;
    }
    return true;
}

static const char *queue_reason(vm *v, const effect *e, text_buf *out)
{
    text_clear(out);
    const char *who = e->anchor >= 0 && e->queue != Q_PHASE && (size_t)e->anchor < v->world->ncreatures
                          ? v->world->creatures[e->anchor].name
                          : "";
    switch ((queue_kind)e->queue) {
    case Q_TURN_START: text_add(out, "start of %s's turn", who); break;
    case Q_TURN_END: text_add(out, "end of %s's turn", who); break;
    case Q_ROUND_START: text_add(out, "start of round %d", v->world->cb.round); break;
    case Q_ROUND_END: text_add(out, "end of round %d", v->world->cb.round); break;
    case Q_PHASE: text_add(out, "start of the %s phase", program_string(v->p, v->r->phases[e->anchor].name)); break;
    case Q_POSITION: text_add(out, "its initiative position came round"); break;
    case Q_ENCOUNTER: text_add(out, "end of the encounter"); break;
    default:
        if (e->queue >= Q_PERIOD && e->queue - Q_PERIOD < v->r->nperiods)
            text_add(out, "end of the %s", period_name(v->p, PER_DECLARED + (e->queue - Q_PERIOD)));
        else
            text_add(out, "removed");
        break;
    }
    return out->s;
}

bool effects_tick(vm *v, queue_kind q, int anchor, span at)
{
    int32_t *head = queue_head(v, q, anchor);
    if (!head || *head < 0)
        return true;
    /* Count down, collecting what is due first: ending an effect runs
       triggers that may add effects to this very queue, and those count
       from the next tick on. */
    int n = 0, cap = 0;
    for (int32_t i = *head; i >= 0; i = eff(v, i)->qnext)
        cap++;
    /* each with its creation number: a slot freed meanwhile may hold a new effect */
    struct due_effect {
        int32_t index;
        uint32_t seq;
    } *due = mem_alloc((size_t)cap * sizeof *due);
    if (!due)
        return vm_error(v, at, "out of memory");
    for (int32_t i = *head; i >= 0; i = eff(v, i)->qnext) {
        effect *e = eff(v, i);
        if (e->remaining > 0)
            e->remaining--;
        if (e->remaining <= 0)
            due[n++] = (struct due_effect){i, e->seq};
    }
    vm_play_changed(v);
    /* the queue is newest first: end them in the order they began */
    bool ok = true;
    text_buf why;
    text_init(&why);
    for (int k = n - 1; k >= 0 && ok; k--) {
        const effect *e = eff(v, due[k].index);
        if (!e->live || e->seq != due[k].seq)
            continue;
        ok = end_effect(v, due[k].index, queue_reason(v, e, &why), at);
    }
    text_free(&why);
    mem_free(due, (size_t)cap * sizeof *due);
    return ok;
}

bool effects_tick_position(vm *v, int round, int phase, int64_t key, span at)
{
    combat *cb = &v->world->cb;
    while (cb->nheap > 0) {
        int32_t top = cb->heap[0];
        effect *e = eff(v, top);
        if (e->due_round != round   ? e->due_round > round
            : e->due_phase != phase ? e->due_phase > phase
                                    : e->due_key > key)
            break;
        if (!end_effect(v, top, "its initiative position came round", at))
            return false;
    }
    return true;
}

void effects_drop_hold(vm *v, int c, int hold_index)
{
    for (int32_t i = v->world->creatures[c].effects; i >= 0; i = eff(v, i)->next)
        if (eff(v, i)->kind == EFF_HOLD && eff(v, i)->what == hold_index) {
            free_effect(v, i);
            return;
        }
}

bool effects_end_encounter(vm *v, span at)
{
    combat *cb = &v->world->cb;
    /* rounds and turns stop with the encounter: what they count ends */
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        int32_t next;
        for (int32_t i = v->world->creatures[c].effects; i >= 0; i = next) {
            next = eff(v, i)->next;
            queue_kind q = (queue_kind)eff(v, i)->queue;
            if (q == Q_TURN_START || q == Q_TURN_END || q == Q_ROUND_START || q == Q_ROUND_END || q == Q_PHASE ||
                q == Q_POSITION) {
                if (!end_effect(v, i, "end of the encounter", at))
                    return false;
                next = v->world->creatures[c].effects; /* the list may have changed */
            }
        }
    }
    /* and so do those of tags, which no creature bears */
    for (int32_t i = 0; i < cb->neffects; i++) {
        const effect *e = eff(v, i);
        queue_kind q = (queue_kind)e->queue;
        if (e->live && e->kind == EFF_TAG &&
            (q == Q_TURN_START || q == Q_TURN_END || q == Q_ROUND_START || q == Q_ROUND_END || q == Q_PHASE ||
             q == Q_POSITION) &&
            !end_effect(v, i, "end of the encounter", at))
            return false;
    }
    return effects_tick(v, Q_ENCOUNTER, 0, at);
}

/* --- applying and removing ----------------------------------------------------------- */

bool effects_apply(vm *v, int c, int cond, value lasts, int by, span at, bool *applied)
{
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    const r_condition *rc = &v->r->conditions[cond];
    const char *name = rules_condition_title(v->p, cond);
    tally_change(v, cond, -1);
    *applied = false;
    if (rexpr_present(&rc->requires)) {
        value ok;
        if (rc->requires.kind == REXPR_CONST)
        ok = rc->requires.v;
        else if (!vm_call(v, rc->requires.chunk, c, NULL, 0, &ok)) return false;
        if (!value_truthy(ok)) {
            text_buf cite;
            text_init(&cite);
            combat_say(v, "%s cannot be %s: %s (%s)", v->world->creatures[c].name, name,
                       rc->requires_else >= 0 ? program_string(v->p, rc->requires_else)
                                              : "its requirement does not hold",
                       combat_cite(v, &rc->from, &cite));
            text_free(&cite);
            return true;
        }
    }
    if (lasts.type == V_NIL && rexpr_present(&rc->lasts)) {
        if (rc->lasts.kind == REXPR_CONST)
            lasts = rc->lasts.v;
        else if (!vm_call(v, rc->lasts.chunk, c, NULL, 0, &lasts))
            return false;
    }
    if (!encounter_out_before(v, c, at))
        return false;
    rc = &v->r->conditions[cond];
    /* again: refresh (unless it stacks) */
    if (!rc->stacks) {
        for (int32_t i = v->world->creatures[c].effects; i >= 0; i = eff(v, i)->next)
            if (eff(v, i)->kind == EFF_CONDITION && eff(v, i)->what == cond) {
                free_effect(v, i);
                break;
            }
    }
    /* conditions this one excludes end */
    for (int k = 0; k < rc->nexcludes; k++) {
        bool removed;
        if (rc->excludes[k] != cond && !effects_remove(v, c, rc->excludes[k], at, &removed))
            return false;
        rc = &v->r->conditions[cond];
    }
    /* counted on whoever caused it, else on its bearer */
    int32_t i = add_effect(v, EFF_CONDITION, cond, c, by >= 0 ? by : c, lasts, at);
    if (i < 0)
        return false;
    eff(v, i)->source = by;
    vm_play_changed(v);
    text_buf how;
    text_init(&how);
    combat_say(v, "%s is %s (%s)", v->world->creatures[c].name, name, describe_lasts(v, eff(v, i), &how));
    combat_note(v, "%s: %s", name, combat_cite(v, &v->r->conditions[cond].from, &how));
    text_free(&how);
    *applied = true;
    value args[3] = {value_ref(V_CREATURE, 0, c), value_ref(V_WORD, HOME_PROGRAM, v->r->conditions[cond].name),
                     by >= 0 ? value_ref(V_CREATURE, 0, by) : value_nil()};
    return events_emit(v, EV_CONDITION_APPLIED, args, 3, at) && encounter_out_after(v, c, at);
}

bool effects_remove(vm *v, int c, int cond, span at, bool *removed)
{
    *removed = false;
    int32_t next;
    for (int32_t i = v->world->creatures[c].effects; i >= 0; i = next) {
        next = eff(v, i)->next;
        if (eff(v, i)->kind == EFF_CONDITION && eff(v, i)->what == cond) {
            *removed = true;
            if (!end_effect(v, i, NULL, at))
                return false;
            next = v->world->creatures[c].effects;
        }
    }
    return true;
}

bool effects_clear(vm *v, int c, span at)
{
    while (v->world->creatures[c].effects >= 0)
        if (!end_effect(v, v->world->creatures[c].effects, "left play", at))
            return false;
    /* a relation another holds with it has no partner left, ... */
    for (size_t o = 0; o < v->world->ncreatures; o++) {
        int32_t next;
        for (int32_t i = v->world->creatures[o].effects; i >= 0; i = next) {
            next = eff(v, i)->next;
            /* ... and what lasts until one of its turns will never end */
            const effect *e = eff(v, i);
            bool its_turn = (e->queue == Q_TURN_START || e->queue == Q_TURN_END) && e->anchor == c;
            if (!(e->kind == EFF_RELATION && e->partner == c) && !its_turn)
                continue;
            text_buf why;
            text_init(&why);
            text_add(&why, "%s left play", v->world->creatures[c].name);
            bool ended = end_effect(v, i, why.s, at);
            text_free(&why);
            if (!ended)
                return false;
            next = v->world->creatures[o].effects; /* the list may have changed */
        }
    }
    return true;
}

/* --- modifiers ------------------------------------------------------------------------ */

/* The explain line of one modifier: `ac of goblin +2: shielded (§ ...)`;
   how is "is " or "times ", or NULL for an amount added (signed). */
static void note_modifier(vm *v, const char *stat, int c, const char *how, value amount, const char *cname,
                          const r_condition *rc)
{
    if (v->world->cb.quiet)
        return;
    text_buf shown, cite;
    text_init(&shown);
    text_init(&cite);
    vm_format_text(v, amount, &shown);
    if (!how)
        how = shown.s[0] == '-' ? "" : "+";
    combat_note(v, "%s of %s %s%s: %s (%s)", stat, v->world->creatures[c].name, how, shown.s, cname,
                combat_cite(v, &rc->from, &cite));
    text_free(&cite);
    text_free(&shown);
}

/* Typed bonuses that do not stack: the best bonus and the worst penalty of
   each type. Untyped ones all count. */
/* Types of bonus that may modify one stat at once: past it, an error. */
#define BONUS_TYPES_AT_ONCE 64
typedef struct bonus_pick {
    int type;
    value best, worst;
    bool has_best, has_worst;
    int best_label, worst_label;
} bonus_pick;

static bool add_numbers(vm *v, value a, value b, value *out, span at)
{
    if (a.type == V_DIST || b.type == V_DIST) {
        if (rat_add(a, b, V_DIST, out, 1) != ARITH_OK)
            return vm_error(v, at, "a modifier overflows");
        return true;
    }
    if (!value_is_number(a) || !value_is_number(b))
        return vm_error(v, at, "cannot add a modifier of %s to %s", value_type_name(b.type), value_type_name(a.type));
    value fa = value_as_frac(a), fb = value_as_frac(b);
    if (rat_add(fa, fb, V_INT, out, 1) != ARITH_OK)
        return vm_error(v, at, "a modifier overflows");
    return true;
}

bool effects_stat(vm *v, int c, int stat_decl, value base, value *out, span at)
{
    *out = base;
    if (v->world->creatures[c].effects < 0 && v->r->nholds_conditions == 0)
        return true;
    bool none;
    if (!effects_none_bear(v, c, BEARS_STAT, stat_decl, &none, at))
        return false;
    if (none)
        return true;
    held h[HELD_MAX];
    int n;
    if (!conditions_of(v, c, h, &n, at))
        return false;
    bool set = false;
    value set_to = base;
    value add = value_int(0);
    bool any_add = false;
    value scale = value_int(1);
    bool any_scale = false;
    bonus_pick picks[BONUS_TYPES_AT_ONCE];
    int npicks = 0;
    const rules *r = v->r;
    for (int k = 0; k < n; k++) {
        const r_condition *rc = &r->conditions[h[k].cond];
        for (int m = 0; m < rc->nmods; m++) {
            const r_modifier *mod = &rc->mods[m];
            if (mod->target != MODT_STAT || mod->index != stat_decl)
                continue;
            bool holds;
            if (!guard_holds(v, &mod->when, mod->negate, c, NULL, 0, &holds))
                return false;
            if (!holds)
                continue;
            value amount;
            if (!combat_eval(v, &mod->amount, c, NULL, 0, &amount))
                return false;
            if (amount.type == V_ROLL)
                amount = value_int(amount.num);
            const char *stat = program_string(v->p, v->p->decls[stat_decl].name);
            const char *cname = rules_condition_title(v->p, (int)(rc - v->r->conditions));
            if (mod->op == MOD_SET) {
                set = true;
                set_to = amount;
                note_modifier(v, stat, c, "is ", amount, cname, rc);
            } else if (mod->op == MOD_SCALE) {
                if (!value_is_number(amount))
                    return vm_error(v, mod->where, "a scale is a number, not %s", value_type_name(amount.type));
                if (rat_mul(value_as_frac(scale), value_as_frac(amount), V_FRAC, &scale) != ARITH_OK)
                    return vm_error(v, mod->where, "a scale overflows");
                any_scale = true;
                note_modifier(v, stat, c, "times ", amount, cname, rc);
            } else if (mod->bonus >= 0 && !r->bonuses[mod->bonus].stacks) {
                bonus_pick *p = NULL;
                for (int b = 0; b < npicks; b++)
                    if (picks[b].type == mod->bonus)
                        p = &picks[b];
                if (!p && npicks >= BONUS_TYPES_AT_ONCE)
                    return vm_error(v, mod->where, "more than %d types of bonus modify %s of %s at once",
                                    BONUS_TYPES_AT_ONCE, stat, v->world->creatures[c].name);
                if (!p) {
                    p = &picks[npicks++];
                    memset(p, 0, sizeof *p);
                    p->type = mod->bonus;
                }
                bool negative = value_is_number(amount) && rat_cmp(value_as_frac(amount), value_int(0)) < 0;
                if (!negative && (!p->has_best || rat_cmp(value_as_frac(amount), value_as_frac(p->best)) > 0))
                    p->best = amount, p->has_best = true, p->best_label = rc->name;
                if (negative && (!p->has_worst || rat_cmp(value_as_frac(amount), value_as_frac(p->worst)) < 0))
                    p->worst = amount, p->has_worst = true, p->worst_label = rc->name;
            } else {
                if (!add_numbers(v, add, amount, &add, mod->where))
                    return false;
                any_add = true;
                note_modifier(v, stat, c, NULL, amount, cname, rc);
            }
        }
    }
    for (int b = 0; b < npicks; b++) {
        if (picks[b].has_best && !add_numbers(v, add, picks[b].best, &add, at))
            return false;
        if (picks[b].has_worst && !add_numbers(v, add, picks[b].worst, &add, at))
            return false;
        any_add = true;
    }
    value result = set ? set_to : base;
    if (result.type == V_ROLL)
        result = value_int(result.num);
    if (any_add) {
        if (result.type == V_NIL)
            result = value_int(0);
        if (!add_numbers(v, result, add, &result, at))
            return false;
    }
    if (any_scale) {
        if (!value_is_number(result) && result.type != V_DIST)
            return vm_error(v, at, "cannot scale %s", value_type_name(result.type));
        value scaled;
        value_type t = result.type == V_DIST ? V_DIST : V_FRAC;
        if (rat_mul(result.type == V_DIST ? result : value_as_frac(result), scale, t, &scaled) != ARITH_OK)
            return vm_error(v, at, "a scaled stat overflows");
        /* a whole-number stat stays whole: rules round down */
        if (t == V_FRAC && (base.type == V_INT || base.type == V_NIL))
            scaled = value_int(value_floor(scaled));
        result = scaled;
    }
    if (result.type == V_FRAC && value_den(result) == 1)
        result = value_int(result.num);
    *out = result;
    return true;
}

/* The modifiers of a check that hold now, on its first two arguments (the
   one who rolls, the one it is made against), in the order their
   conditions are held. */
static bool check_mods_holding(vm *v, int check, const value *args, int nargs, check_mod *out, int *n, int max, span at)
{
    *n = 0;
    const rules *r = v->r;
    for (int side = 0; side < 2 && side < nargs; side++) {
        if (args[side].type != V_CREATURE)
            continue;
        int c = (int)args[side].num;
        bool none;
        if (!effects_none_bear(v, c, BEARS_CHECK, check, &none, at))
            return false;
        if (none)
            continue;
        held h[HELD_MAX];
        int nh;
        if (!conditions_of(v, c, h, &nh, at))
            return false;
        for (int k = 0; k < nh; k++) {
            const r_condition *rc = &r->conditions[h[k].cond];
            for (int m = 0; m < rc->nmods; m++) {
                const r_modifier *mod = &rc->mods[m];
                if (mod->index != check || mod->target != (side == 0 ? MODT_CHECK : MODT_INCOMING))
                    continue;
                bool holds;
                if (!guard_holds(v, &mod->when, mod->negate, c, args, nargs, &holds))
                    return false;
                if (!holds)
                    continue;
                value amount = value_nil();
                if (rexpr_present(&mod->amount) && !combat_eval(v, &mod->amount, c, args, nargs, &amount))
                    return false;
                if (amount.type == V_ROLL)
                    amount = value_int(amount.num);
                if (*n >= max)
                    return vm_error(v, at, "too many modifiers on one roll (limit is %d)", max);
                out[(*n)++] = (check_mod){mod, h[k].cond, amount};
            }
        }
    }
    return true;
}

/* A penalty: a number below 0, or dice that are subtracted (`-d4`). */
static bool amount_negative(vm *v, value a)
{
    if (a.type == V_DICE) {
        const dexpr *d = vm_dexpr(v, a);
        return d && d->nterms > 0 && d->terms[0].sign < 0;
    }
    return rat_cmp(value_as_frac(a), value_int(0)) < 0;
}

bool effects_check_mods(vm *v, int check, const value *args, int nargs, value *amounts, int *labels, int *cites, int *n,
                        int max, check_mod *changes, int *nchanges, span at)
{
    const rules *r = v->r;
    int types[ROLL_MAX_EXTRA]; /* each modifier's bonus type if it does not stack, else -1 */
    if (max > ROLL_MAX_EXTRA)
        max = ROLL_MAX_EXTRA;
    check_mod found[ROLL_MAX_EXTRA];
    int nfound;
    if (!check_mods_holding(v, check, args, nargs, found, &nfound, ROLL_MAX_EXTRA, at))
        return false;
    /* the changes of its dice are the caller's (checks_change_dice) */
    *n = *nchanges = 0;
    for (int i = 0; i < nfound; i++) {
        if (found[i].mod->op == MOD_DICE)
            changes[(*nchanges)++] = found[i];
        else if (*n >= max)
            return vm_error(v, at, "too many modifiers on one roll (limit is %d)", max);
        else
            found[(*n)++] = found[i];
    }
    for (int i = 0; i < *n; i++) {
        const r_modifier *mod = found[i].mod;
        amounts[i] = found[i].amount;
        labels[i] = r->conditions[found[i].cond].name;
        cites[i] = found[i].cond;
        types[i] = mod->bonus >= 0 && !r->bonuses[mod->bonus].stacks ? mod->bonus : -1;
    }
    /* bonuses of a type that does not stack: only the best of the type
       counts, and the worst penalty */
    int kept = 0;
    for (int i = 0; i < *n; i++) {
        bool drop = false;
        if (types[i] >= 0) {
            bool negative = amount_negative(v, amounts[i]);
            for (int j = 0; j < *n && !drop; j++) {
                if (j == i || types[j] != types[i])
                    continue;
                bool neg_j = amount_negative(v, amounts[j]);
                if (neg_j != negative)
                    continue;
                /* dice are not ranked: the first of the type counts */
                int c = amounts[i].type == V_DICE || amounts[j].type == V_DICE
                            ? 0
                            : rat_cmp(value_as_frac(amounts[j]), value_as_frac(amounts[i]));
                /* j is better (or as good and earlier): i does not count */
                drop = negative ? (c < 0 || (c == 0 && j < i)) : (c > 0 || (c == 0 && j < i));
            }
        }
        if (drop) {
            text_buf shown;
            text_init(&shown);
            vm_format_text(v, amounts[i], &shown);
            combat_note(v, "%s %s does not count: %s bonuses do not stack", program_string(v->p, labels[i]), shown.s,
                        program_string(v->p, r->bonuses[types[i]].name));
            text_free(&shown);
            continue;
        }
        amounts[kept] = amounts[i];
        labels[kept] = labels[i];
        cites[kept] = cites[i];
        types[kept] = types[i];
        kept++;
    }
    *n = kept;
    return true;
}

static bool forbid_matches(vm *v, const r_forbid *f, int action)
{
    const r_action *a = &v->r->actions[action];
    switch ((forbid_kind)f->kind) {
    case FORBID_ACTION: return f->index == action;
    case FORBID_KIND: return a->kind >= 0 && f->index == a->kind;
    case FORBID_SLOT: {
        /* an action is forbidden if every way to pay it spends the slot */
        if (a->cost.noptions == 0)
            return false;
        for (int o = 0; o < a->cost.noptions; o++) {
            bool uses = false;
            for (int i = 0; i < a->cost.options[o].nparts; i++)
                uses |= a->cost.options[o].parts[i].kind == COST_SLOT && a->cost.options[o].parts[i].index == f->index;
            if (!uses)
                return false;
        }
        return true;
    }
    }
    return false;
}

static bool check_forbids(vm *v, int c, int action, int actor, bool protects, refusal *why, span at, bool *no)
{
    *no = false;
    bool none;
    if (!effects_none_bear(v, c, BEARS_FORBIDS, 0, &none, at))
        return false;
    if (none)
        return true;
    held h[HELD_MAX];
    int n;
    if (!conditions_of(v, c, h, &n, at))
        return false;
    for (int k = 0; k < n && !*no; k++) {
        const r_condition *rc = &v->r->conditions[h[k].cond];
        const r_forbid *list = protects ? rc->protects : rc->forbids;
        int count = protects ? rc->nprotects : rc->nforbids;
        for (int f = 0; f < count && !*no; f++) {
            if (!forbid_matches(v, &list[f], action))
                continue;
            value arg = value_ref(V_CREATURE, 0, actor);
            bool holds;
            if (!guard_holds(v, &list[f].when, list[f].negate, c, protects ? &arg : NULL, protects ? 1 : 0, &holds))
                return false;
            if (!holds)
                continue;
            *no = true;
            if (why) {
                refusal_set(why, &rc->from, "%s is %s", v->world->creatures[c].name,
                            rules_condition_title(v->p, (int)(rc - v->r->conditions)));
            }
        }
    }
    return true;
}

bool effects_forbids(vm *v, int c, int action, refusal *why, bool *no, span at)
{
    return check_forbids(v, c, action, c, false, why, at, no);
}

bool effects_forbids_kind(vm *v, int c, int kind, refusal *why, bool *no, span at)
{
    *no = false;
    if (kind < 0)
        return true;
    bool none;
    if (!effects_none_bear(v, c, BEARS_FORBIDS, 0, &none, at))
        return false;
    if (none)
        return true;
    held h[HELD_MAX];
    int n;
    if (!conditions_of(v, c, h, &n, at))
        return false;
    for (int k = 0; k < n; k++) {
        const r_condition *rc = &v->r->conditions[h[k].cond];
        for (int f = 0; f < rc->nforbids; f++) {
            const r_forbid *fb = &rc->forbids[f];
            if (fb->kind != FORBID_KIND || fb->index != kind)
                continue;
            bool holds;
            if (!guard_holds(v, &fb->when, fb->negate, c, NULL, 0, &holds))
                return false;
            if (!holds)
                continue;
            if (why) {
                refusal_set(why, &rc->from, "%s is %s", v->world->creatures[c].name,
                            rules_condition_title(v->p, (int)(rc - v->r->conditions)));
            }
            *no = true;
            return true;
        }
    }
    return true;
}

bool effects_protects(vm *v, int target, int action, int actor, refusal *why, bool *no, span at)
{
    return check_forbids(v, target, action, actor, true, why, at, no);
}

/* --- cooldowns ------------------------------------------------------------------------- */

int32_t effects_tag(vm *v, int32_t tag_id, int anchor, value lasts, span at)
{
    return add_effect(v, EFF_TAG, tag_id, -1, anchor, lasts, at);
}

void effects_drop_tag(vm *v, int32_t i)
{
    if (i >= 0 && i < v->world->cb.neffects && eff(v, i)->live && eff(v, i)->kind == EFF_TAG)
        free_effect(v, i);
}

const char *effects_lasts_text(vm *v, int32_t i, text_buf *out)
{
    return describe_lasts(v, eff(v, i), out);
}

bool effects_cooldown(vm *v, int c, int action, value lasts, span at)
{
    return add_effect(v, EFF_COOLDOWN, action, c, c, lasts, at) >= 0;
}

bool effects_hold(vm *v, int c, int hold_index, value lasts, span at)
{
    return add_effect(v, EFF_HOLD, hold_index, c, c, lasts, at) >= 0;
}

bool effects_on_cooldown(vm *v, int c, int action)
{
    for (int32_t i = v->world->creatures[c].effects; i >= 0; i = eff(v, i)->next)
        if (eff(v, i)->kind == EFF_COOLDOWN && eff(v, i)->what == action)
            return true;
    return false;
}

/* --- relations ------------------------------------------------------------------------- */

static int32_t find_relation(vm *v, int rel, int a, int b)
{
    for (int32_t i = v->world->creatures[a].effects; i >= 0; i = eff(v, i)->next) {
        const effect *e = eff(v, i);
        if (e->kind == EFF_RELATION && e->what == rel && (b < 0 || e->partner == b))
            return i;
    }
    return -1;
}

bool effects_related(vm *v, int rel, int a, int b)
{
    return find_relation(v, rel, a, b) >= 0;
}

bool effects_relate(vm *v, int rel, int a, int b, value lasts, span at, bool *done)
{
    const r_relation *rr = &v->r->relations[rel];
    const char *name = program_string(v->p, rr->name);
    *done = false;
    if (a == b)
        return vm_error(v, at, "%s relates two different creatures", name);
    if (find_relation(v, rel, a, b) >= 0) {
        *done = true;
        return true;
    }
    if (rr->one_per_a && find_relation(v, rel, a, -1) >= 0) {
        combat_say(v, "%s cannot %s %s: already in a %s as %s", v->world->creatures[a].name, name,
                   v->world->creatures[b].name, name, program_string(v->p, rr->a_name));
        return true;
    }
    if (rr->one_per_b) {
        for (size_t c = 0; c < v->world->ncreatures; c++)
            if (find_relation(v, rel, (int)c, b) >= 0) {
                combat_say(v, "%s cannot be in another %s as %s", v->world->creatures[b].name, name,
                           program_string(v->p, rr->b_name));
                return true;
            }
    }
    if (lasts.type == V_NIL && rexpr_present(&rr->lasts)) {
        if (!combat_eval(v, &rr->lasts, a, NULL, 0, &lasts))
            return false;
    }
    int32_t i = add_effect(v, EFF_RELATION, rel, a, a, lasts, at);
    if (i < 0)
        return false;
    eff(v, i)->partner = b;
    combat_say(v, "%s: %s is %s, %s is %s", name, v->world->creatures[a].name, program_string(v->p, rr->a_name),
               v->world->creatures[b].name, program_string(v->p, rr->b_name));
    *done = true;
    value args[3] = {value_ref(V_WORD, HOME_PROGRAM, rr->name), value_ref(V_CREATURE, 0, a),
                     value_ref(V_CREATURE, 0, b)};
    return events_emit(v, EV_RELATED, args, 3, at);
}

bool effects_unrelate(vm *v, int rel, int a, int b, span at, bool *done)
{
    int32_t i = find_relation(v, rel, a, b);
    *done = i >= 0;
    return i < 0 || end_effect(v, i, NULL, at);
}

bool effects_unrelate_all(vm *v, int rel, int c, const char *why, span at, bool *done)
{
    *done = false;
    for (size_t o = 0; o < v->world->ncreatures; o++) {
        int32_t next;
        for (int32_t i = v->world->creatures[o].effects; i >= 0; i = next) {
            next = eff(v, i)->next;
            const effect *e = eff(v, i);
            if (e->kind != EFF_RELATION || e->what != rel || ((int)o != c && e->partner != c))
                continue;
            *done = true;
            if (!end_effect(v, i, why, at))
                return false;
            next = v->world->creatures[o].effects; /* the list may have changed */
        }
    }
    return true;
}

bool effects_partners(vm *v, int rel, int c, bool holders, value *out, span at)
{
    vm_gather g = {0};
    bool ok = true;
    if (!holders) {
        for (int32_t i = v->world->creatures[c].effects; ok && i >= 0; i = eff(v, i)->next)
            if (eff(v, i)->kind == EFF_RELATION && eff(v, i)->what == rel)
                ok = vm_gather_add(v, &g, value_ref(V_CREATURE, 0, eff(v, i)->partner), at);
    } else {
        for (size_t a = 0; ok && a < v->world->ncreatures; a++)
            if (find_relation(v, rel, (int)a, c) >= 0)
                ok = vm_gather_add(v, &g, value_ref(V_CREATURE, 0, (int64_t)a), at);
    }
    if (!ok) {
        vm_gather_drop(&g);
        return false;
    }
    return vm_gather_list(v, &g, at, out);
}

/* --- show ------------------------------------------------------------------------------- */

void effects_each(vm *v, int c, effects_each_fn fn, void *user)
{
    int32_t tail = -1;
    for (int32_t i = v->world->creatures[c].effects; i >= 0; i = eff(v, i)->next)
        tail = i;
    static const char *const kinds[] = {"condition", "cooldown", "relation", "hold"};
    for (int32_t i = tail; i >= 0; i = eff(v, i)->prev) {
        const effect *e = eff(v, i);
        text_buf lasts;
        text_init(&lasts);
        const char *how = describe_lasts(v, e, &lasts);
        const char *partner = e->kind == EFF_RELATION && e->partner >= 0 ? v->world->creatures[e->partner].name : NULL;
        fn(user, kinds[e->kind], e->kind == EFF_HOLD ? "held action" : what_name(v, e), partner, how);
        text_free(&lasts);
    }
}

void effects_show(vm *v, int c, combat_line *line, const char *before)
{
    /* oldest first reads better: walk to the tail */
    int32_t tail = -1;
    for (int32_t i = v->world->creatures[c].effects; i >= 0; i = eff(v, i)->next)
        tail = i;
    for (int32_t i = tail; i >= 0; i = eff(v, i)->prev) {
        const effect *e = eff(v, i);
        text_buf lasts;
        text_init(&lasts);
        const char *how = describe_lasts(v, e, &lasts);
        const char *sep = i == tail ? before : ", ";
        switch ((effect_kind)e->kind) {
        case EFF_CONDITION: combat_line_add(v, line, "%s%s [%s]", sep, what_name(v, e), how); break;
        case EFF_COOLDOWN: combat_line_add(v, line, "%s%s cooling down [%s]", sep, what_name(v, e), how); break;
        case EFF_RELATION:
            combat_line_add(v, line, "%s%s %s [%s]", sep, what_name(v, e), v->world->creatures[e->partner].name, how);
            break;
        case EFF_HOLD: combat_line_add(v, line, "%sholding an action [%s]", sep, how); break;
        case EFF_TAG: break; /* on no creature's list */
        }
        text_free(&lasts);
    }
}

/* --- what a display shows: every condition that holds ------------------------------------ */

typedef struct shown_cond {
    int cond;
    int via; /* the condition that implies it, or -1: it holds by itself */
} shown_cond;

static bool listed(const shown_cond *s, int n, int cond)
{
    for (int i = 0; i < n; i++)
        if (s[i].cond == cond)
            return true;
    return false;
}

/* The conditions c is in without an effect of its own, read as has() reads
   them (section 7.8) but between vm_peek_begin and vm_peek_end, so that
   showing them asks nothing and changes nothing; one whose formula cannot
   be read so (it would roll, or a ruling has no answer yet) is left out. */
static int derived_conditions(vm *v, int c, shown_cond *out, int cap)
{
    shown_cond all[HELD_MAX];
    int n = 0;
    for (int32_t i = v->world->creatures[c].effects; i >= 0 && n < HELD_MAX; i = eff(v, i)->next)
        if (eff(v, i)->kind == EFF_CONDITION && !listed(all, n, eff(v, i)->what))
            all[n++] = (shown_cond){eff(v, i)->what, -2}; /* applied: shown with its effect */
    if (!vm_peek_begin(v, (span){0})) {
        vm_clear_error(v);
        return 0;
    }
    const rules *r = v->r;
    for (int k = 0; k < r->nholds_conditions && n < HELD_MAX; k++) {
        int cond = r->holds_conditions[k];
        bool yes = false;
        if (!effects_holds_by_itself(v, c, cond, &yes, (span){0}))
            vm_clear_error(v);
        else if (yes && !listed(all, n, cond))
            all[n++] = (shown_cond){cond, -1};
    }
    for (int k = 0; k < n; k++) {
        const r_condition *rc = &r->conditions[all[k].cond];
        for (int m = 0; m < rc->nimplies && n < HELD_MAX; m++) {
            const r_implies *im = &rc->implies[m];
            bool holds = false;
            if (!guard_holds(v, &im->when, im->negate, c, NULL, 0, &holds))
                vm_clear_error(v);
            else if (holds && !listed(all, n, im->condition))
                all[n++] = (shown_cond){im->condition, all[k].cond};
        }
    }
    vm_peek_end(v);
    int got = 0;
    for (int k = 0; k < n && got < cap; k++)
        if (all[k].via != -2)
            out[got++] = all[k];
    return got;
}

void effects_show_held(vm *v, int c, combat_line *line, const char *before)
{
    effects_show(v, c, line, before);
    shown_cond s[HELD_MAX];
    int n = derived_conditions(v, c, s, HELD_MAX);
    bool first = v->world->creatures[c].effects < 0;
    for (int k = 0; k < n; k++, first = false) {
        const r_condition *rc = &v->r->conditions[s[k].cond];
        const char *sep = first ? before : ", ";
        const char *name = rules_condition_title(v->p, s[k].cond);
        if (s[k].via >= 0)
            combat_line_add(v, line, "%s%s (from %s)", sep, name, rules_condition_title(v->p, s[k].via));
        else
            combat_line_add(v, line, "%s%s (%s)", sep, name,
                            rc->has_why ? program_string(v->p, rc->why) : "by its rule");
    }
}
