/* events: what happens when something happens. An emitted event finds its
 * triggers through the event's own list (never by scanning every trigger),
 * ends the conditions that end on it, fires held actions waiting for it,
 * runs automatic triggers in declaration order and then offers reactions to
 * the creatures that may take them, in initiative order. Triggers run at
 * once, inside the rule that emitted the event: a reaction resolves before
 * the action that provoked it goes on.
 *
 * Rulings are asked here too: the answer stands for as long as the ruling
 * says (one use, a creature, an encounter, the game); a script gives it
 * with `answer`, the REPL asks, and where no one can be asked the ruling's
 * default stands. Nothing is guessed. */
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/tally.h"
#include "runtime/combat/stat_memo.h"
#include "runtime/combat/world.h"

static const char *trigger_name(vm *v, int t)
{
    return program_string(v->p, v->r->triggers[t].name);
}

/* An argument of an event against a held action's pattern: `_` (nothing)
   matches anything, anything else must equal it, as `==` says. */
static bool values_match(vm *v, value pattern, value arg, bool *match, span at)
{
    *match = true;
    if (pattern.type == V_NIL)
        return true; /* a pattern's blank */
    return vm_values_equal(v, pattern, arg, at, match);
}

/* --- trigger limits --------------------------------------------------------------- */

/* A limit counts per creature (a reaction's reactor, or `each NAME`), or
   else for the trigger as a whole. */
static counter *trigger_counter(vm *v, int t, int who)
{
    if (who < 0)
        return t < v->world->cb.trigger_counts_cap ? &v->world->cb.trigger_counts[t] : NULL;
    if (!v->world->creatures[who].ledger)
        return NULL;
    return &v->world->creatures[who].ledger[v->world->ledger_trigger + t];
}

static bool within_limit(vm *v, int t, int who)
{
    const r_trigger *tr = &v->r->triggers[t];
    if (!tr->limit)
        return true;
    counter *k = trigger_counter(v, t, who);
    if (!k)
        return true;
    uint32_t ep = ledger_epoch(v, who, tr->limit_per);
    return k->epoch != ep || k->n < tr->limit;
}

static void count_use(vm *v, int t, int who)
{
    const r_trigger *tr = &v->r->triggers[t];
    counter *k = trigger_counter(v, t, who);
    if (!tr->limit || !k)
        return;
    uint32_t ep = ledger_epoch(v, who, tr->limit_per);
    if (k->epoch != ep)
        *k = (counter){0, ep};
    k->n++;
    vm_play_changed(v);
}

/* --- reactions -------------------------------------------------------------------- */

/* Take it? The REPL asks; a script follows its policy. */
static bool wants(vm *v, int t, const char *question, bool *take)
{
    if (v->world->offer) {
        /* the roll the reaction answers is shown before the question; its
           verdict, if one comes, then gets a line of its own */
        combat *cb = &v->world->cb;
        if (cb->pending_roll)
            cb->shown_early = cb->pending_roll;
        combat_flush_roll(v);
        return v->world->offer(v->world->ask_user, question, take);
    }
    int8_t p = t < v->world->cb.trigger_policy_cap ? v->world->cb.trigger_policy[t] : -1;
    *take = p >= 0 ? p == 1 : v->world->cb.reactions_policy == 1;
    return true;
}

static bool run_trigger(vm *v, int t, value *params, int self, span at)
{
    const r_trigger *tr = &v->r->triggers[t];
    tally_trigger(v, t);
    if (tr->body < 0)
        return true;
    value r;
    return vm_call(v, tr->body, self, params, tr->nparams, &r);
}

static void describe_cost(vm *v, const cost *k, text_buf *out)
{
    for (int o = 0; o < k->noptions; o++) {
        const cost_option *opt = &k->options[o];
        for (int i = 0; i < opt->nparts; i++) {
            const cost_part *p = &opt->parts[i];
            const char *name = p->kind == COST_SLOT ? program_string(v->p, v->r->slots[p->index].name)
                                                    : program_string(v->p, v->p->decls[p->index].name);
            text_add(out, "%s%s", i ? " + " : o ? " or " : "", name);
            if (p->n > 1)
                text_add(out, " x%d", p->n);
        }
    }
}

static bool offer_reaction(vm *v, int t, value *params, int who, span at)
{
    const r_trigger *tr = &v->r->triggers[t];
    creature *c = &v->world->creatures[who];
    if (!c->in_play)
        return true;
    bool out;
    if (!encounter_out(v, who, &out, at))
        return false;
    if (out || !within_limit(v, t, who))
        return true;
    refusal why;
    refusal_init(&why);
    text_buf costs, others, question;
    text_init(&costs);
    text_init(&others);
    text_init(&question);
    bool fine = false, forbidden, affordable, take;
    if (!effects_forbids_kind(v, who, tr->kind, &why, &forbidden, at))
        goto done;
    if (forbidden) {
        combat_note(v, "%s cannot take %s: %s", c->name, trigger_name(v, t), why.why.s);
        fine = true;
        goto done;
    }
    if (!ledger_pay(v, who, &tr->cost, tr->kind, true, false, false, &why, &affordable))
        goto done;
    if (!affordable) {
        combat_note(v, "%s cannot take %s: %s", c->name, trigger_name(v, t), why.why.s);
        fine = true;
        goto done;
    }
    describe_cost(v, &tr->cost, &costs);
    /* name the other creatures of the event, for the question */
    for (int i = 0; i < tr->nparams; i++)
        if (params[i].type == V_CREATURE && (int)params[i].num != who)
            text_add(&others, "%s%s", others.len ? ", " : " on ", v->world->creatures[params[i].num].name);
    text_add(&question, "%s may take %s%s%s%s%s: take it?", c->name, trigger_name(v, t), others.s,
             costs.len ? " (" : "", costs.s, costs.len ? ")" : "");
    if (!wants(v, t, question.s, &take))
        goto done;
    if (!take) {
        combat_say(v, "%s declines %s%s", c->name, trigger_name(v, t), others.s);
        fine = true;
        goto done;
    }
    if (!ledger_pay(v, who, &tr->cost, tr->kind, true, false, true, &why, &affordable))
        goto done;
    if (!affordable) {
        combat_say(v, "%s cannot take %s: %s", c->name, trigger_name(v, t), why.why.s);
        fine = true;
        goto done;
    }
    count_use(v, t, who);
    combat_say(v, "%s takes %s%s%s%s%s", c->name, trigger_name(v, t), others.s, costs.len ? " (" : "", costs.s,
               costs.len ? ")" : "");
    combat_note(v, "trigger %s: %s", trigger_name(v, t), combat_cite(v, &tr->from, &question));
    int32_t outer = v->world->cb.reacting;
    v->world->cb.reacting = who;
    fine = run_trigger(v, t, params, who, at);
    v->world->cb.reacting = outer;
done:
    text_free(&question);
    text_free(&others);
    text_free(&costs);
    refusal_free(&why);
    return fine;
}

/* Creatures in the order of turns, starting after the one acting. */
static int candidates(vm *v, int *out, int max)
{
    int n = 0;
    combat *cb = &v->world->cb;
    int start = cb->turn >= 0 ? cb->turn + 1 : 0;
    /* one does not react to one's own action */
    int actor = cb->actor;
    for (int k = 0; k < cb->norder && n < max; k++) {
        const entry *e = &cb->order[(start + k) % cb->norder];
        if (e->creature >= 0) {
            if (e->creature != actor)
                out[n++] = e->creature;
        } else {
            for (size_t c = 0; c < v->world->ncreatures && n < max; c++)
                if (v->world->creatures[c].in_play && v->world->creatures[c].side == e->side && (int)c != actor)
                    out[n++] = (int)c;
        }
    }
    if (!cb->ordered)
        for (size_t c = 0; c < v->world->ncreatures && n < max; c++)
            if (v->world->creatures[c].in_play && (int)c != actor)
                out[n++] = (int)c;
    return n;
}

/* --- one trigger, one event ---------------------------------------------------------- */

static bool fire_for(vm *v, int t, const r_on *on, value *params, const int *cands, int ncands, span at);

static bool fire(vm *v, int t, const r_on *on, const value *args, int nargs, span at)
{
    const r_trigger *tr = &v->r->triggers[t];
    value params[TRIGGER_MAX_PARAMS];
    for (int i = 0; i < TRIGGER_MAX_PARAMS; i++)
        params[i] = value_nil();
    for (int i = 0; i < on->nparams && i < nargs; i++)
        if (on->param_slot[i] >= 0)
            params[on->param_slot[i]] = args[i];
    /* who the trigger is for, when it is a reaction: its reactor, or any
       creature, in the order of turns from the one after the turn under way */
    int one = -1;
    int *cands = &one;
    size_t cands_len = 0;
    int ncands = 0;
    if (tr->reaction) {
        value who = tr->reactor >= 0 ? params[tr->reactor] : value_nil();
        bool bound = false;
        for (int i = 0; i < on->nparams; i++)
            bound |= on->param_slot[i] == tr->reactor;
        if (bound) {
            if (who.type != V_CREATURE)
                return true;
            one = (int)who.num;
            ncands = 1;
        } else {
            cands_len = v->world->ncreatures ? v->world->ncreatures : 1;
            cands = MEM_NEW_ARRAY(int, cands_len);
            if (!cands)
                return vm_error(v, at, "out of memory");
            ncands = candidates(v, cands, (int)cands_len);
        }
    } else {
        ncands = 1;
    }
    bool ok = fire_for(v, t, on, params, cands, ncands, at);
    if (cands_len)
        mem_free(cands, cands_len * sizeof(int));
    return ok;
}

static bool fire_for(vm *v, int t, const r_on *on, value *params, const int *cands, int ncands, span at)
{
    const r_trigger *tr = &v->r->triggers[t];
    for (int k = 0; k < ncands; k++) {
        if (tr->reaction)
            params[tr->reactor] = value_ref(V_CREATURE, 0, cands[k]);
        value w;
        if (rexpr_present(&on->when)) {
            if (!combat_eval(v, &on->when, -1, params, tr->nparams, &w))
                return false;
            if (!value_truthy(w))
                continue;
        }
        if (rexpr_present(&on->unless)) {
            if (!combat_eval(v, &on->unless, -1, params, tr->nparams, &w))
                return false;
            if (value_truthy(w))
                continue;
        }
        if (tr->reaction) {
            if (!offer_reaction(v, t, params, cands[k], at))
                return false;
            continue;
        }
        int each =
            tr->limit_each >= 0 && params[tr->limit_each].type == V_CREATURE ? (int)params[tr->limit_each].num : -1;
        if (tr->limit && !within_limit(v, t, each)) {
            combat_note(v, "%s does not fire: its limit of %d per %s is reached", trigger_name(v, t), tr->limit,
                        period_name(v->p, tr->limit_per));
            continue;
        }
        count_use(v, t, each);
        if (!v->world->cb.quiet) {
            text_buf cite;
            text_init(&cite);
            combat_note(v, "trigger %s fires (%s)", trigger_name(v, t), combat_cite(v, &tr->from, &cite));
            text_free(&cite);
        }
        if (!run_trigger(v, t, params, -1, at))
            return false;
    }
    return true;
}

/* --- held actions ----------------------------------------------------------------------- */

static bool fire_holds(vm *v, int event, const value *args, int nargs, span at)
{
    combat *cb = &v->world->cb;
    for (int h = 0; h < cb->nholds; h++) {
        hold *hd = &cb->holds[h];
        if (!hd->live || hd->event != event)
            continue;
        bool match = true;
        for (int i = 0; i < hd->npattern && i < nargs && match; i++)
            if (!values_match(v, hd->pattern[i], args[i], &match, at))
                return false;
        if (!match)
            continue;
        int who = hd->creature;
        text_buf question;
        text_init(&question);
        text_add(&question, "%s's held %s: take it now?", v->world->creatures[who].name,
                 program_string(v->p, v->r->actions[hd->action].name));
        bool take = true;
        bool fine = !v->world->offer || v->world->offer(v->world->ask_user, question.s, &take);
        text_free(&question);
        if (!fine)
            return false;
        if (!take)
            continue;
        hd->live = false;
        effects_drop_hold(v, who, h); /* the effect that would time it out goes too */
        combat_say(v, "%s takes the held action", v->world->creatures[who].name);
        value held_args[ACTION_MAX_PARAMS];
        memcpy(held_args, hd->args, sizeof held_args);
        int acting = encounter_acting(v);
        bool allowed;
        if (!act_take(v, who, hd->action, held_args, hd->nargs, true, &allowed, at))
            return false;
        /* its place moves to just after the one whose event it was; in an
           order by sides, it keeps its side's place */
        if (allowed && v->r->initiative.hold_moves && acting >= 0 && acting != who) {
            if (!encounter_has_place(v, who) || !encounter_has_place(v, acting))
                combat_say(v, "%s keeps its side's place in the order", v->world->creatures[who].name);
            else if (!encounter_reorder(v, who, true, acting, MOVE_HELD, at))
                return false;
        }
    }
    return true;
}

/* --- emitting ------------------------------------------------------------------------------ */

static bool end_conditions(vm *v, int event, const value *args, int nargs, span at)
{
    const r_event *ev = &v->r->events[event];
    for (int k = 0; k < ev->nending; k++) {
        int cond = ev->ending[k];
        const r_condition *rc = &v->r->conditions[cond];
        for (size_t c = 0; c < v->world->ncreatures; c++) {
            if (!v->world->creatures[c].in_play)
                continue;
            bool has = false;
            for (int32_t i = v->world->creatures[c].effects; i >= 0 && !has; i = v->world->cb.effects[i].next)
                has = v->world->cb.effects[i].kind == EFF_CONDITION && v->world->cb.effects[i].what == cond;
            if (!has)
                continue;
            for (int m = 0; m < rc->nends_on; m++) {
                if (rc->ends_on[m].event != event)
                    continue;
                if (rexpr_present(&rc->ends_on[m].when)) {
                    value w;
                    if (!combat_eval(v, &rc->ends_on[m].when, (int)c, args, nargs, &w))
                        return false;
                    if (value_truthy(w) == rc->ends_on[m].negate)
                        continue;
                }
                bool removed;
                if (!effects_remove(v, (int)c, cond, at, &removed))
                    return false;
                break;
            }
        }
    }
    return true;
}

bool events_heard(const vm *v, int event)
{
    const r_event *ev = event >= 0 && event < v->r->nevents ? &v->r->events[event] : NULL;
    return ev && (ev->ntriggers || ev->nending || v->world->cb.nholds);
}

bool events_emit(vm *v, int event, const value *args, int nargs, span at)
{
    combat *cb = &v->world->cb;
    if (event < 0 || event >= v->r->nevents)
        return vm_error(v, at, "internal: no event %d", event);
    const r_event *ev = &v->r->events[event];
    /* nothing hears it (most rolls): it changes nothing a formula reads
       (the change it tells of moved the version on itself) */
    if (ev->ntriggers == 0 && ev->nending == 0 && cb->nholds == 0)
        return true;
    vm_play_changed(v); /* heard, it may end effects and fire triggers */
    if (cb->trigger_depth >= v->limits.trigger_depth)
        return vm_error(v, at,
                        "triggers nested too deeply (limit is %d; a trigger that triggers itself? see --limit "
                        "trigger-depth=N)",
                        v->limits.trigger_depth);
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    cb->trigger_depth++;
    bool ok = end_conditions(v, event, args, nargs, at) && fire_holds(v, event, args, nargs, at);
    /* automatic triggers first, in declaration order; then reactions */
    for (int pass = 0; pass < 2 && ok; pass++) {
        for (int k = 0; k < v->r->events[event].ntriggers && ok; k++) {
            int t = v->r->events[event].triggers[k];
            const r_trigger *tr = &v->r->triggers[t];
            if (tr->reaction != (pass == 1))
                continue;
            for (int o = 0; o < tr->non && ok; o++)
                if (tr->on[o].event == event)
                    ok = fire(v, t, &tr->on[o], args, nargs, at);
        }
    }
    cb->trigger_depth--;
    /* an actor that falls to what it set off does not go on acting */
    if (ok && cb->actor >= 0 && cb->trigger_depth == cb->actor_depth) {
        bool out;
        if (!encounter_out(v, cb->actor, &out, at))
            return false;
        if (out) {
            cb->cancelled = true;
            vm_play_changed(v);
            return vm_error(v, at, "cancelled");
        }
    }
    return ok;
}

/* --- rulings -------------------------------------------------------------------------------- */

static answer *find_answer(vm *v, int ruling, int who)
{
    combat *cb = &v->world->cb;
    for (int i = 0; i < cb->nanswers; i++)
        if (cb->answers[i].ruling == ruling && cb->answers[i].creature == who)
            return &cb->answers[i];
    return NULL;
}

/* Is a word answer one of the ruling's choices (any, when it has none)? */
static bool answer_is_a_choice(vm *v, const r_ruling *rl, value a, span at)
{
    if (!rl->nchoices)
        return true;
    text_buf given, list;
    text_init(&given);
    text_init(&list);
    vm_format_text(v, a, &given);
    bool fits = rules_choice(v->p, rl, given.s) >= 0;
    if (!fits) {
        rules_choices_text(v->p, rl, &list);
        vm_error(v, at, "ruling %s is answered with one of %s, not %s", program_string(v->p, rl->name), list.s,
                 given.s);
    }
    text_free(&list);
    text_free(&given);
    return fits;
}

static bool answer_fits(vm *v, const r_ruling *rl, value a, span at)
{
    const char *name = program_string(v->p, rl->name);
    switch (rl->answer) {
    case ANSWER_YES_NO:
        if (a.type != V_BOOL)
            return vm_error(v, at, "ruling %s is answered yes or no, not %s", name, value_type_name(a.type));
        return true;
    case ANSWER_NUMBER:
        if (!value_is_number(a))
            return vm_error(v, at, "ruling %s is answered with a number, not %s", name, value_type_name(a.type));
        return true;
    case ANSWER_CREATURE:
        if (a.type != V_CREATURE && a.type != V_NIL)
            return vm_error(v, at, "ruling %s is answered with a creature, not %s", name, value_type_name(a.type));
        return true;
    case ANSWER_WORD:
        if (a.type != V_WORD && a.type != V_ENUM && a.type != V_STR)
            return vm_error(v, at, "ruling %s is answered with a word, not %s", name, value_type_name(a.type));
        return answer_is_a_choice(v, rl, a, at);
    }
    return true;
}

static bool asked_of_each(const r_ruling *rl)
{
    return rl->per == ASKED_PER_CREATURE || rl->per == ASKED_PER_SIDE;
}

/* Who an answer for creature c (-1: for all) is kept under. */
static int answer_key(const vm *v, const r_ruling *rl, int c)
{
    if (!asked_of_each(rl))
        return ANSWER_KEY_ONE;
    if (c < 0)
        return ANSWER_KEY_EVERYONE;
    return rl->per == ASKED_PER_SIDE ? ANSWER_KEY_SIDE(v->world->creatures[c].side) : c;
}

bool rulings_answer(vm *v, int ruling, value a, int who, span at)
{
    combat *cb = &v->world->cb;
    const r_ruling *rl = &v->r->rulings[ruling];
    if (!answer_fits(v, rl, a, at))
        return false;
    who = answer_key(v, rl, who);
    value kept;
    if (!vm_keep(v, a, at, &kept))
        return false;
    /* an answer that stands replaces the one before; answers for one use
       each queue, and the uses take them in the order given */
    answer *old = rl->per == ASKED_PER_USE ? NULL : find_answer(v, ruling, who);
    cb->answers_serial++;
    if (old) {
        old->v = kept;
        return true;
    }
    size_t cap = (size_t)cb->answers_cap;
    answer *g = mem_grow(cb->answers, sizeof(answer), &cap, (size_t)cb->nanswers + 1);
    if (!g)
        return vm_error(v, at, "out of memory");
    cb->answers = g;
    cb->answers_cap = (int)cap;
    cb->answers[cb->nanswers++] = (answer){ruling, who, kept};
    vm_play_changed(v);
    return true;
}

/* An answer as the GM gave it: yes or no for a yes-no question. */
static const char *format_answer(vm *v, const r_ruling *rl, value a, text_buf *out)
{
    text_clear(out);
    if (rl->answer == ANSWER_YES_NO && a.type == V_BOOL)
        text_put(out, a.num ? "yes" : "no");
    else
        vm_format_text(v, a, out);
    return out->s;
}

/* Who answers: the GM, or the player of the creature it is asked for. */
static const char *answerer(const vm *v, const r_ruling *rl, int self, text_buf *out)
{
    text_clear(out);
    if (!rl->of_player)
        return "the GM";
    if (self < 0)
        return "a player";
    text_add(out, "%s's player", v->world->creatures[self].name);
    return out->s;
}

/* Whom the question is put for: the creature, or its side. */
static const char *asked_of(const vm *v, const r_ruling *rl, int self)
{
    int side = v->world->creatures[self].side;
    if (rl->per == ASKED_PER_SIDE)
        return side >= 0 ? program_string(v->p, v->r->sides[side]) : v->world->creatures[self].name;
    return v->world->creatures[self].name;
}

/* What a ruling is asked about: the values its formulas see (a check's
   arguments and the roll, for a ruling asked after it), and what is at
   stake, shown with the question (the roll so far), or NULL. */
typedef struct asking {
    const value *args;
    int nargs;
    const char *stakes;
} asking;

/* The question as the GM (or a player) is asked it, into question: only
   when someone is asked, or told that no one can answer. */
static void put_question(vm *v, const r_ruling *rl, int self, const asking *about, text_buf *question, text_buf *who)
{
    const char *q = rl->question >= 0 ? program_string(v->p, rl->question) : program_string(v->p, rl->name);
    const char *party = rl->of_player ? answerer(v, rl, self, who) : NULL;
    text_clear(question);
    if (about->stakes && party)
        text_add(question, "%s (%s; %s: %s)", q, party, v->world->creatures[self].name, about->stakes);
    else if (about->stakes)
        text_add(question, "%s (%s: %s)", q, v->world->creatures[self].name, about->stakes);
    else if (party && asked_of_each(rl) && rl->per == ASKED_PER_SIDE)
        text_add(question, "%s (%s, for %s)", q, party, asked_of(v, rl, self));
    else if (party)
        text_add(question, "%s (%s)", q, party);
    else if (asked_of_each(rl))
        text_add(question, "%s (%s)", q, asked_of(v, rl, self));
    else
        text_put(question, q);
}

/* rulings_ask, with three texts to write in: the rule's citation, the
   answer as shown, and the question. */
static bool ask(vm *v, int ruling, int self, const asking *about, value *out, span at, text_buf *cite, text_buf *shown,
                text_buf *question, text_buf *who)
{
    const r_ruling *rl = &v->r->rulings[ruling];
    const char *name = program_string(v->p, rl->name);
    if (asked_of_each(rl) && self < 0)
        return vm_error(v, at, "ruling %s is asked per %s, but no creature is at hand here", name,
                        rl->per == ASKED_PER_SIDE ? "side" : "creature");
    /* a simulation's answer stands over every other, for every use */
    if (tally_answered(v, ruling, out))
        return true;
    int key = answer_key(v, rl, self);
    answer *a = find_answer(v, ruling, key);
    if (!a && key != ANSWER_KEY_ONE)
        a = find_answer(v, ruling, ANSWER_KEY_EVERYONE);
    if (v->peek_depth) {
        /* read for a display: as it stands, asked of no one, noted nowhere */
        if (a) {
            *out = a->v;
            return true;
        }
        if (rexpr_present(&rl->def))
            return combat_eval(v, &rl->def, self, about->args, about->nargs, out);
        return vm_error(v, at, "ruling %s is not answered yet", name);
    }
    /* inside a formula kept with what it reads (stat_memo.h): a ruling is
       a read of the answers where nothing is noted and no one is asked,
       and its default's reads are noted too, when it has reads alone */
    stat_memo_record *rec = v->world->recording;
    if (rec) {
        if (!v->world->cb.quiet || v->world->ask || rl->per == ASKED_PER_USE ||
            (rl->def.kind == REXPR_CHUNK && !stat_memo_fits(v, rl->def.chunk)))
            rec->spoiled = true;
        else
            rec->answers = true;
    }
    /* what is noted of it is not kept in a quiet run: its texts are not made */
    bool noted = !v->world->cb.quiet;
    if (noted)
        combat_cite(v, &rl->from, cite);
    if (a) {
        *out = a->v;
        if (noted)
            combat_note(v, "ruling %s%s%s: %s, %s's answer (%s)", name, self >= 0 && asked_of_each(rl) ? " for " : "",
                        self >= 0 && asked_of_each(rl) ? asked_of(v, rl, self) : "", format_answer(v, rl, *out, shown),
                        answerer(v, rl, self, who), cite->s);
        /* an answer for one use is spent by it; those queued after it keep
           their order */
        if (rl->per == ASKED_PER_USE) {
            combat *cb = &v->world->cb;
            size_t at_index = (size_t)(a - cb->answers);
            memmove(a, a + 1, ((size_t)cb->nanswers - at_index - 1) * sizeof *a);
            cb->nanswers--;
            cb->answers_serial++;
            vm_play_changed(v);
        }
        return true;
    }
    bool asked = v->world->ask != NULL;
    if (asked) {
        put_question(v, rl, self, about, question, who);
        value got;
        bool answered, for_all = false;
        bool fine = v->world->ask(v->world->ask_user, ruling, question->s, &got, &answered, &for_all);
        vm_play_changed(v); /* someone was asked: asked again, they may answer otherwise */
        if (!fine)
            return false;
        if (answered) {
            if (!answer_fits(v, rl, got, at))
                return false;
            if (rl->per != ASKED_PER_USE && !rulings_answer(v, ruling, got, self, at))
                return false;
            if (for_all && asked_of_each(rl) && !rulings_answer(v, ruling, got, -1, at))
                return false;
            *out = got;
            if (noted)
                combat_note(v, "ruling %s: %s, %s's answer (%s)", name, format_answer(v, rl, *out, shown),
                            answerer(v, rl, self, who), cite->s);
            return true;
        }
        if (!rexpr_present(&rl->def))
            return vm_error(v, at, "ruling %s was not answered", name);
    }
    if (rexpr_present(&rl->def)) {
        if (!combat_eval(v, &rl->def, self, about->args, about->nargs, out))
            return false;
        if (noted)
            combat_note(v, "ruling %s%s%s: %s, its default; %s (%s)", name,
                        self >= 0 && asked_of_each(rl) ? " for " : "",
                        self >= 0 && asked_of_each(rl) ? asked_of(v, rl, self) : "", format_answer(v, rl, *out, shown),
                        asked ? "the GM took it" : "no one was asked", cite->s);
        if (!answer_fits(v, rl, *out, at))
            return false;
        /* taken at the prompt, the default is the GM's answer from now on,
           as any other would be: not asked again for this creature */
        return !asked || rl->per == ASKED_PER_USE || rulings_answer(v, ruling, *out, self, at);
    }
    put_question(v, rl, self, about, question, who);
    return vm_error(v, at, "ruling %s needs an answer: \"%s\"; give it with 'answer %s VALUE%s' before this%s", name,
                    question->s, name, asked_of_each(rl) ? " for NAME" : "",
                    rl->per == ASKED_PER_USE ? " (it is asked at each use, and an answer given with 'answer' is spent "
                                               "by the one use it answers: give one for each)"
                                             : "");
}

bool rulings_ask(vm *v, int ruling, int self, value *out, span at)
{
    return rulings_ask_about(v, ruling, self, NULL, 0, NULL, out, at);
}

bool rulings_ask_about(vm *v, int ruling, int self, const value *args, int nargs, const char *stakes, value *out,
                       span at)
{
    text_buf cite, shown, question, who;
    text_init(&cite);
    text_init(&shown);
    text_init(&question);
    text_init(&who);
    const asking q = {args, nargs, stakes};
    bool fine = ask(v, ruling, self, &q, out, at, &cite, &shown, &question, &who);
    text_free(&who);
    text_free(&question);
    text_free(&shown);
    text_free(&cite);
    return fine;
}

void rulings_end_encounter(vm *v)
{
    combat *cb = &v->world->cb;
    int kept = 0;
    for (int i = 0; i < cb->nanswers; i++) {
        const r_ruling *rl = &v->r->rulings[cb->answers[i].ruling];
        if (rl->per == ASKED_PER_ENCOUNTER || rl->each_encounter)
            continue;
        cb->answers[kept++] = cb->answers[i];
        vm_play_changed(v);
    }
    cb->nanswers = kept;
    cb->answers_serial++;
    vm_play_changed(v);
}
