/* act: a creature takes an action. In order: is it in the fight and free
 * to act, does a condition forbid it, is it cooling down or at its limit,
 * do the action's requirements hold, is the target one it may choose (and
 * in range, and not protected), and can the economy pay. The first rule
 * that says no is named in the refusal; a refused action changes nothing.
 * Then the cost is paid, `provoking` and `acting` are emitted, the body
 * runs, and `acted` is emitted. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/suggest.h"
#include "runtime/combat/world.h"

static const char *action_name(vm *v, int a)
{
    return program_string(v->p, v->r->actions[a].name);
}

static bool on_other_sides(const vm *v, int a, int b)
{
    int sa = v->world->creatures[a].side, sb = v->world->creatures[b].side;
    return a != b && (sa < 0 || sb < 0 || sa != sb);
}

/* Is the actor free to act: in play, in the fight, not delaying (and its
   creature arguments in play)? *ok false with why filled when not. */
static bool actor_free(vm *v, int actor, const value *args, int nargs, refusal *why, bool *ok, span at)
{
    creature *c = &v->world->creatures[actor];
    *ok = false;
    if (c->gone) {
        refusal_set(why, NULL, "%s has been removed from play", c->name);
        return true;
    }
    for (int i = 0; i < nargs; i++)
        if (args[i].type == V_CREATURE && v->world->creatures[args[i].num].gone) {
            refusal_set(why, NULL, "%s has been removed from play", v->world->creatures[args[i].num].name);
            return true;
        }
    if (v->world->cb.active && !c->in_play) {
        refusal_set(why, NULL, "%s is not in the encounter", c->name);
        return true;
    }
    bool out;
    if (!encounter_out(v, actor, &out, at))
        return false;
    if (out) {
        refusal_set(why, &v->r->encounter.from, "%s is out of the fight", c->name);
        return true;
    }
    if (c->delaying) {
        refusal_set(why, &v->r->initiative.from, "%s is delaying; 'resume %s' to act", c->name, c->name);
        return true;
    }
    *ok = true;
    return true;
}

/* Is the action open to the actor now: not forbidden by a condition, not
   cooling down, not at its limit? */
static bool action_open(vm *v, int actor, int action, refusal *why, bool *ok, span at)
{
    const r_action *a = &v->r->actions[action];
    const creature *c = &v->world->creatures[actor];
    *ok = false;
    bool forbidden;
    if (!effects_forbids(v, actor, action, why, &forbidden, at))
        return false;
    if (forbidden)
        return true;
    if (effects_on_cooldown(v, actor, action)) {
        refusal_set(why, &a->from, "%s is cooling down", action_name(v, action));
        return true;
    }
    if (a->limit && c->ledger) {
        const counter *k = &c->ledger[v->world->ledger_action + action];
        uint32_t ep = ledger_epoch(v, actor, a->limit_per);
        if (k->epoch == ep && k->n >= a->limit) {
            refusal_set(why, &a->from, "%s at most %d time%s per %s", action_name(v, action), a->limit,
                        a->limit == 1 ? "" : "s", period_name(v->p, a->limit_per));
            return true;
        }
    }
    *ok = true;
    return true;
}

/* Is argument i what parameter i says it takes? Refuses (false) when not. */
static bool param_fits(vm *v, int action, const value *args, int i, refusal *why)
{
    const r_action *a = &v->r->actions[action];
    const char *param = program_string(v->p, a->params[i]), *kinds = program_string(v->p, a->takes_text[i]);
    int word = args[i].type != V_WORD && args[i].type != V_STR ? -1
               : args[i].home == HOME_PROGRAM                  ? (int)args[i].num
                                                               : program_find_string(v->p, vm_string(v, args[i]));
    if (word >= 0 && (a->takes[i] & TAKES_CONDITION) && rules_condition(v->r, word) < 0) {
        refusal_set(why, &a->from, "no condition '%s'", program_string(v->p, word));
        return false;
    }
    if (word >= 0 && (a->takes[i] & TAKES_ZONE) && zones_between(v, word, word) < 0) {
        char like[SUGGEST_MAX + 1];
        bool near = *zones_like(v, word, like);
        refusal_set(why, &a->from, "no zone '%s' here%s%s%s", program_string(v->p, word),
                    near ? "; did you mean '" : "", like, near ? "'?" : "");
        return false;
    }
    /* `A0` where a square is taken: what is wrong with it as a square */
    const char *unnamed = word >= 0 && (a->takes[i] & (UINT32_C(1) << V_SQUARE)) && !(a->takes[i] & TAKES_ZONE)
                              ? square_unnamed(program_string(v->p, word))
                              : NULL;
    if (unnamed) {
        refusal_set(why, &a->from, "%s is not a square of the map: %s", program_string(v->p, word), unnamed);
        return false;
    }
    if (!(a->takes[i] & (UINT32_C(1) << args[i].type))) {
        const char *got = value_type_name(args[i].type);
        refusal_set(why, &a->from, "%s takes its %s as %s, not %s%s", action_name(v, action), param, kinds,
                    args[i].type == V_NIL     ? ""
                    : strchr("aeiou", got[0]) ? "an "
                                              : "a ",
                    got);
        return false;
    }
    return true;
}

/* Are the arguments what the parameters take: a creature to target, and
   each parameter given and of its kind? Refuses (false) when not. */
static bool params_fit(vm *v, int action, const value *args, int nargs, refusal *why)
{
    const r_action *a = &v->r->actions[action];
    /* a target that is no creature is refused before the requirements,
       which are written for one */
    if (a->has_target && (nargs == 0 || args[0].type != V_CREATURE)) {
        refusal_set(why, &a->from, "%s needs a creature to target", action_name(v, action));
        why->missing = nargs == 0;
        return false;
    }
    for (int i = a->has_target ? 1 : 0; i < a->nparams; i++) {
        if (!a->takes[i])
            continue;
        if (i >= nargs) {
            refusal_set(why, &a->from, "%s needs its %s, %s", action_name(v, action),
                        program_string(v->p, a->params[i]), program_string(v->p, a->takes_text[i]));
            why->missing = true;
            return false;
        }
        if (!param_fits(v, action, args, i, why))
            return false;
    }
    return true;
}

/* Do the action's requirements hold? The first that does not is named. */
static bool requirements_hold(vm *v, int actor, int action, const value *args, int nargs, refusal *why, bool *ok)
{
    const r_action *a = &v->r->actions[action];
    *ok = false;
    for (int i = 0; i < a->nrequires; i++) {
        value w;
        if (!combat_eval(v, &a->requires[i], actor, args, nargs, &w))
            return false;
        if (!value_truthy(w)) {
            origin rule = a->from;
            rule.where = a->requires[i].where;
            if (a->requires_else && a->requires_else[i] >= 0) {
                /* the rules' own words: `requires ... else "..."` */
                refusal_set(why, &rule, "%s", program_string(v->p, a->requires_else[i]));
                return true;
            }
            const source *src = v->p->sources[a->requires[i].where.source];
            int len = (int)(a->requires[i].where.end - a->requires[i].where.start);
            /* a long requirement is quoted in part, and says so */
            refusal_set(why, &rule, "it requires %.*s%s", len > 80 ? 80 : len, src->text + a->requires[i].where.start,
                        len > 80 ? "..." : "");
            return true;
        }
    }
    *ok = true;
    return true;
}

/* Is the target of the kind the action targets (an enemy, an ally,
   oneself, someone else)? Refuses (false) when not. */
static bool target_kind_fits(vm *v, int actor, int action, int target, refusal *why)
{
    const r_action *a = &v->r->actions[action];
    const char *tn = v->world->creatures[target].name, *an = v->world->creatures[actor].name;
    switch ((target_kind)a->target) {
    case TARGET_ENEMY:
        if (!on_other_sides(v, actor, target)) {
            refusal_set(why, &a->from, "%s is not an enemy of %s", tn, an);
            return false;
        }
        break;
    case TARGET_ALLY:
        if (on_other_sides(v, actor, target) || target == actor) {
            refusal_set(why, &a->from, "%s is not an ally of %s", tn, an);
            return false;
        }
        break;
    case TARGET_SELF:
        if (target != actor) {
            refusal_set(why, &a->from, "%s only targets oneself", action_name(v, action));
            return false;
        }
        break;
    case TARGET_OTHER:
        if (target == actor) {
            refusal_set(why, &a->from, "%s targets someone else", action_name(v, action));
            return false;
        }
        break;
    default: break;
    }
    return true;
}

/* May the actor choose this target: in the fight (an enemy or an ally),
   of the kind the action targets, in range, and not protected? */
static bool target_fits(vm *v, int actor, int action, int target, refusal *why, bool *ok, span at)
{
    const r_action *a = &v->r->actions[action];
    const char *tn = v->world->creatures[target].name;
    *ok = false;
    /* an enemy or an ally is one still in the fight; `target creature`
       reaches the fallen too (to finish or to heal them) */
    if (a->target == TARGET_ENEMY || a->target == TARGET_ALLY) {
        bool fallen;
        if (v->world->cb.active && !encounter_out(v, target, &fallen, at))
            return false;
        if (v->world->cb.active && fallen) {
            refusal_set(why, &v->r->encounter.from, "%s is out of the fight", tn);
            return true;
        }
    }
    if (!target_kind_fits(v, actor, action, target, why))
        return true;
    if (a->target_range >= 0) {
        bool in;
        if (!grid_within(v, actor, target, a->target_range, &in, at))
            return false;
        if (!in) {
            const r_range *rg = &v->r->ranges[a->target_range];
            refusal_set(why, &rg->from, "%s is not within %s's %s range", tn, v->world->creatures[actor].name,
                        program_string(v->p, rg->name));
            return true;
        }
    }
    bool is_protected;
    if (!effects_protects(v, target, action, actor, why, &is_protected, at))
        return false;
    *ok = !is_protected;
    return true;
}

/* Can the actor pay for the action (and, held, for holding it)? */
static bool affordable(vm *v, int actor, int action, bool held, refusal *why, bool *ok)
{
    const r_action *a = &v->r->actions[action];
    if (!ledger_pay(v, actor, &a->cost, a->kind, a->anytime || held, a->borrows_next, false, why, ok))
        return false;
    /* a held action also costs what the rules say holding costs */
    if (*ok && held)
        return ledger_pay(v, actor, &v->r->initiative.hold_cost, a->kind, true, false, false, why, ok);
    return true;
}

/* The checks before paying, in the order the refusal names the first that
   says no; *ok false with why filled when refused. */
static bool allowed(vm *v, int actor, int action, const value *args, int nargs, bool held, refusal *why, bool *ok,
                    span at)
{
    if (!actor_free(v, actor, args, nargs, why, ok, at))
        return false;
    if (*ok && !action_open(v, actor, action, why, ok, at))
        return false;
    if (*ok)
        *ok = params_fit(v, action, args, nargs, why);
    if (*ok && !requirements_hold(v, actor, action, args, nargs, why, ok))
        return false;
    if (*ok && nargs > 0 && args[0].type == V_CREATURE && !target_fits(v, actor, action, (int)args[0].num, why, ok, at))
        return false;
    if (*ok && !affordable(v, actor, action, held, why, ok))
        return false;
    return true;
}

bool act_can(vm *v, int actor, int action, const value *args, int nargs, refusal *why, bool *can, span at)
{
    return allowed(v, actor, action, args, nargs, false, why, can, at);
}

static void say_refusal(vm *v, int actor, int action, const value *args, int nargs, const refusal *why)
{
    text_buf cite;
    text_init(&cite);
    combat_cite(v, &why->rule, &cite);
    bool target = nargs > 0 && args[0].type == V_CREATURE;
    combat_say(v, "%s cannot %s%s%s: %s%s%s%s", v->world->creatures[actor].name, action_name(v, action),
               target ? " " : "", target ? v->world->creatures[args[0].num].name : "", why->why.s, cite.len ? " (" : "",
               cite.s, cite.len ? ")" : "");
    text_free(&cite);
}

static bool take(vm *v, int actor, int action, const value *args, int nargs, bool held, refusal *why_not, bool *done,
                 span at)
{
    *done = false;
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    combat *cb = &v->world->cb;
    if (cb->tactic_depth > 0 && cb->encounters_ended != cb->tactic_encounter) {
        /* the encounter the tactic plays a turn of is over: nothing more of
           the tactic is played (encounter_play_tactic ends it quietly) */
        cb->tactic_stopped = true;
        return vm_error(v, at, "the encounter is over");
    }
    const r_action *a = &v->r->actions[action];
    bool ok;
    if (!allowed(v, actor, action, args, nargs, held, why_not, &ok, at))
        return false;
    if (!ok) {
        say_refusal(v, actor, action, args, nargs, why_not);
        return true;
    }
    /* A held action pays its own cost and the hold's together, or neither:
     * each was checked alone, so when the hold's cannot be paid after the
     * action's, the action's payment is undone (its slots and resources). */
    counter *saved = NULL;
    size_t saved_bytes = (size_t)v->world->ledger_len * sizeof(counter);
    value saved_res[COST_MAX_OPTIONS * COST_MAX_PARTS];
    int res_decl[COST_MAX_OPTIONS * COST_MAX_PARTS], nres = 0;
    if (held) {
        if (v->world->creatures[actor].ledger && saved_bytes) {
            saved = mem_alloc(saved_bytes);
            if (!saved)
                return vm_error(v, at, "out of memory");
            memcpy(saved, v->world->creatures[actor].ledger, (size_t)v->world->ledger_len * sizeof(counter));
        }
        for (int o = 0; o < a->cost.noptions; o++)
            for (int i = 0; i < a->cost.options[o].nparts; i++) {
                const cost_part *part = &a->cost.options[o].parts[i];
                if (part->kind != COST_RESOURCE)
                    continue;
                res_decl[nres] = part->index;
                if (!world_get_stat(v, actor, part->index, &saved_res[nres])) {
                    mem_free(saved, saved_bytes);
                    return false;
                }
                nres++;
            }
    }
    bool paid = false, hold_paid = false;
    bool fine = ledger_pay(v, actor, &a->cost, a->kind, a->anytime || held, a->borrows_next, true, why_not, &paid);
    if (fine && paid && held)
        fine = ledger_pay(v, actor, &v->r->initiative.hold_cost, a->kind, true, false, true, why_not, &hold_paid);
    else
        hold_paid = paid;
    if (fine && paid && !hold_paid) {
        if (saved)
            memcpy(v->world->creatures[actor].ledger, saved, (size_t)v->world->ledger_len * sizeof(counter));
        vm_play_changed(v);
        for (int i = 0; i < nres; i++)
            if (!world_set_stat(v, actor, res_decl[i], saved_res[i], at)) {
                mem_free(saved, saved_bytes);
                return false;
            }
    }
    mem_free(saved, saved_bytes);
    if (!fine)
        return false;
    if (!hold_paid) {
        say_refusal(v, actor, action, args, nargs, why_not);
        return true;
    }
    creature *c = &v->world->creatures[actor];
    if (a->limit && c->ledger) {
        counter *k = &c->ledger[v->world->ledger_action + action];
        uint32_t ep = ledger_epoch(v, actor, a->limit_per);
        if (k->epoch != ep)
            *k = (counter){0, ep};
        k->n++;
        vm_play_changed(v);
    }
    if (!v->world->cb.quiet) { /* the transcript's line, when there is one */
        text_buf line;
        text_init(&line);
        text_add(&line, "%s: %s", c->name, action_name(v, action));
        for (int i = 0; i < nargs; i++) {
            text_put(&line, " ");
            vm_format_text(v, args[i], &line);
        }
        combat_say_action(v, line.s);
        combat_note(v, "action %s: %s", action_name(v, action), combat_cite(v, &a->from, &line));
        text_free(&line);
    }
    *done = true;
    if (rexpr_present(&a->cooldown)) {
        value lasts;
        if (!combat_eval(v, &a->cooldown, actor, args, nargs, &lasts) || !effects_cooldown(v, actor, action, lasts, at))
            return false;
    }
    value who = value_ref(V_CREATURE, 0, actor);
    value what = value_ref(V_WORD, HOME_PROGRAM, a->name);
    value target = nargs > 0 ? args[0] : value_nil();
    bool provokes = a->provokes == 1;
    if (a->provokes == 2) {
        value w;
        if (!combat_eval(v, &a->provokes_when, actor, args, nargs, &w))
            return false;
        provokes = value_truthy(w);
    }
    value ev[3] = {who, what, target};
    /* damage to a stat the rules compute is seen before and after: what
       changed before is another's doing */
    if (!tally_observe_all(v))
        return false;
    int32_t outer_actor = v->world->cb.actor, outer_depth = v->world->cb.actor_depth;
    v->world->cb.actor = actor;
    v->world->cb.actor_depth = v->world->cb.trigger_depth; /* its own events are emitted from this depth */
    vm_play_changed(v);
    if (provokes && !events_emit(v, EV_PROVOKING, ev, 2, at))
        goto stopped;
    if (!events_emit(v, EV_ACTING, ev, 3, at))
        goto stopped;
    if (a->body >= 0) {
        value r;
        value padded[32];
        int n = nargs < 32 ? nargs : 32;
        memcpy(padded, args, (size_t)n * sizeof(value));
        if (!vm_call(v, a->body, actor, padded, n, &r))
            goto stopped;
    }
    if (!events_emit(v, EV_ACTED, ev, 3, at) || !tally_observe_all(v))
        goto stopped;
    v->world->cb.actor = outer_actor;
    v->world->cb.actor_depth = outer_depth;
    vm_play_changed(v);
    return encounter_check_over(v, at);
stopped:
    /* what a cancelled action did before it ended is its actor's doing */
    if (v->world->cb.cancelled && v->world->tally) {
        vm_clear_error(v);
        if (!tally_observe_all(v))
            v->world->cb.cancelled = false; /* the error is the tally's */
    }
    v->world->cb.actor = outer_actor;
    v->world->cb.actor_depth = outer_depth;
    vm_play_changed(v);
    /* cancel() ends the action where it stands; anything else is an error */
    if (v->world->cb.cancelled) {
        v->world->cb.cancelled = false;
        vm_clear_error(v);
        bool out = false;
        if (!encounter_out(v, actor, &out, at))
            return false;
        if (out)
            combat_say(v, "%s's %s ends: %s is out of the fight", c->name, action_name(v, action), c->name);
        else
            combat_say(v, "%s's %s has no further effect", c->name, action_name(v, action));
        return encounter_check_over(v, at);
    }
    return false;
}

bool act_take(vm *v, int actor, int action, const value *args, int nargs, bool held, bool *done, span at)
{
    refusal why;
    refusal_init(&why);
    bool fine = take(v, actor, action, args, nargs, held, &why, done, at);
    refusal_free(&why);
    return fine;
}
