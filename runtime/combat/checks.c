/* checks: the rolls a rule system names (`check attack(attacker, target) =
 * d20 + attacker.bab + attacker.str`). A check rolls its terms together
 * with every modifier its participants' conditions add (`modify attack` on
 * the one who rolls, `modify incoming attack` on the one it is against),
 * and keeps each term's name so the roll reads
 * `valeros -> goblin_1: attack d20 (14) + bab 5 + str 4 + flanking 1 = 24`,
 * completed by what it was compared with: `vs ac 15: hit`. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/combat/tally.h"
#include "runtime/combat/world.h"

/* A modifier worth dice (`modify attack by d4`): its dice are rolled with
   the check's, its numbers added; the line says where they came from. */
static bool add_dice(vm *v, int check, value amount, int cond, dexpr *rolled, roll_extra *extra, int *nextra,
                     text_buf *said, span at)
{
    const char *name = program_string(v->p, v->r->checks[check].name);
    const dexpr *d = vm_dexpr(v, amount);
    if (!d)
        return vm_error(v, at, "check %s: invalid dice", name);
    for (int k = 0; k < d->nterms; k++) {
        const dterm *t = &d->terms[k];
        if (t->is_constant) {
            if (*nextra >= ROLL_MAX_EXTRA)
                return vm_error(v, at, "check %s has too many terms", name);
            extra[(*nextra)++] = (roll_extra){v->r->conditions[cond].name, cond, t->constant * t->sign * t->times};
        } else if (rolled->nterms >= DEXPR_MAX_TERMS) {
            return vm_error(v, at, "check %s rolls too many kinds of dice (limit is %d)", name, DEXPR_MAX_TERMS);
        } else {
            rolled->terms[rolled->nterms++] = *t;
        }
    }
    text_add(said, "%s", said->len ? ", " : "");
    text_buf shown;
    text_init(&shown);
    vm_format_text(v, amount, &shown);
    text_add(said, "%s%s from %s", shown.s[0] == '-' ? "" : "+", shown.s, rules_condition_title(v->p, cond));
    text_free(&shown);
    return true;
}

static void say_roll(vm *v, int check, const value *args, int nargs, value roll, const text_buf *said,
                     const check_mod *changes, int nchanges, const dice_verdict *verdict, const value *amounts,
                     const int *conds, int nmods);

bool checks_roll(vm *v, int check, const value *args, int nargs, value *out, span at)
{
    const r_check *ck = &v->r->checks[check];
    const char *name = program_string(v->p, ck->name);
    value terms;
    if (!vm_call(v, ck->formula, nargs > 0 && args[0].type == V_CREATURE ? (int)args[0].num : -1, args, nargs, &terms))
        return false;
    ck = &v->r->checks[check];
    size_t n;
    const value *items = vm_list_items(v, terms, &n);
    dexpr rolled = {0};
    roll_extra extra[ROLL_MAX_EXTRA];
    int nextra = 0;
    for (size_t i = 0; i < n; i++) {
        value t = items[i];
        int label = i < (size_t)ck->nterms && ck->labels[i] != 0xffff ? ck->labels[i] : -1;
        if (t.type == V_DICE) {
            const dexpr *d = vm_dexpr(v, t);
            if (!d)
                return vm_error(v, at, "check %s: invalid dice", name);
            for (int k = 0; k < d->nterms; k++) {
                if (d->terms[k].is_constant) {
                    if (nextra >= ROLL_MAX_EXTRA)
                        return vm_error(v, at, "check %s has too many terms", name);
                    extra[nextra++] = (roll_extra){-1, -1, d->terms[k].constant * d->terms[k].sign * d->terms[k].times};
                    continue;
                }
                if (rolled.nterms >= DEXPR_MAX_TERMS)
                    return vm_error(v, at, "check %s rolls too many kinds of dice (limit is %d)", name,
                                    DEXPR_MAX_TERMS);
                rolled.terms[rolled.nterms++] = d->terms[k];
            }
        } else if (t.type == V_INT || t.type == V_ROLL || (t.type == V_FRAC && value_den(t) == 1)) {
            if (nextra >= ROLL_MAX_EXTRA)
                return vm_error(v, at, "check %s has too many terms", name);
            extra[nextra++] = (roll_extra){label, -1, t.num};
        } else if (t.type == V_FRAC) {
            return vm_error(v, at, "check %s: a term is %s, not a whole number; round it", name, "a fraction");
        } else if (t.type == V_NIL) {
            continue;
        } else {
            return vm_error(v, at, "check %s adds dice and numbers, not %s", name, value_type_name(t.type));
        }
    }
    /* what the participants' conditions add */
    value amounts[ROLL_MAX_EXTRA];
    int labels[ROLL_MAX_EXTRA], conds[ROLL_MAX_EXTRA];
    int nmods, nchanges;
    check_mod changes[ROLL_MAX_EXTRA];
    if (!effects_check_mods(v, check, args, nargs, amounts, labels, conds, &nmods, ROLL_MAX_EXTRA - nextra, changes,
                            &nchanges, at))
        return false;
    text_buf said; /* what changed the dice, for the line */
    text_init(&said);
    dice_verdict verdict;
    if (nchanges && !checks_change_dice(v, check, changes, nchanges, &rolled, &said, &verdict, at)) {
        text_free(&said);
        return false;
    }
    for (int i = 0; i < nmods; i++) {
        value a = amounts[i];
        if (a.type == V_DICE) { /* `modify attack by d4`: dice rolled with the check's */
            if (!add_dice(v, check, a, conds[i], &rolled, extra, &nextra, &said, at)) {
                text_free(&said);
                return false;
            }
            continue;
        }
        if (!(a.type == V_INT || (a.type == V_FRAC && value_den(a) == 1))) {
            text_free(&said);
            return vm_error(v, at, "a modifier of check %s is %s, not a whole number", name, value_type_name(a.type));
        }
        extra[nextra++] = (roll_extra){labels[i], conds[i], a.num};
    }
    if (!vm_roll_check(v, &rolled, extra, nextra, check, at, out)) {
        text_free(&said);
        return false;
    }
    ck = &v->r->checks[check];
    if (!v->world->cb.quiet) /* else no transcript: no line to write */
        say_roll(v, check, args, nargs, *out, &said, changes, nchanges, &verdict, amounts, conds, nmods);
    text_free(&said);
    if (ck->asked_after && !checks_after_roll(v, check, args, nargs, &rolled, extra, nextra, out, at))
        return false;
    ck = &v->r->checks[check];
    value ev[3] = {value_ref(V_WORD, HOME_PROGRAM, ck->name), nargs > 0 ? args[0] : value_nil(), *out};
    return events_emit(v, EV_CHECK_ROLLED, ev, 3, at);
}

/* The roll's line (who, against whom, what changed its dice, the
   breakdown), waiting for what it is compared with, and explain's notes. */
static void say_roll(vm *v, int check, const value *args, int nargs, value roll, const text_buf *said,
                     const check_mod *changes, int nchanges, const dice_verdict *verdict, const value *amounts,
                     const int *conds, int nmods)
{
    const r_check *ck = &v->r->checks[check];
    const char *name = program_string(v->p, ck->name);
    /* the line: who, against whom, the breakdown */
    text_buf line;
    text_init(&line);
    if (v->world->cb.roll_as)
        text_add(&line, "%s: ", v->world->cb.roll_as);
    else if (nargs >= 2 && args[0].type == V_CREATURE && args[1].type == V_CREATURE)
        text_add(&line, "%s -> %s: ", world_name(v, (int)args[0].num), world_name(v, (int)args[1].num));
    else if (nargs >= 1 && args[0].type == V_CREATURE)
        text_add(&line, "%s: ", world_name(v, (int)args[0].num));
    text_add(&line, said->len ? "%s (%s) " : "%s %s", name, said->s);
    vm_format_text(v, roll, &line);
    if (!ck->quiet)
        combat_pending_roll(v, (int64_t)v->roll_seq, line.s);
    else
        combat_note(v, "%s", line.s);
    combat_note(v, "check %s: %s", name, combat_cite(v, &ck->from, &line));
    checks_note_dice(v, changes, nchanges, verdict);
    for (int i = 0; i < nmods; i++) {
        const r_condition *rc = &v->r->conditions[conds[i]];
        if (amounts[i].type == V_DICE) {
            text_buf shown;
            text_init(&shown);
            vm_format_text(v, amounts[i], &shown);
            combat_note(v, "%s%s %s (%s)", shown.s[0] == '-' ? "" : "+", shown.s, rules_condition_title(v->p, conds[i]),
                        combat_cite(v, &rc->from, &line));
            text_free(&shown);
            continue;
        }
        combat_note(v, "%+" PRId64 " %s (%s)", amounts[i].num, rules_condition_title(v->p, conds[i]),
                    combat_cite(v, &rc->from, &line));
    }
    text_free(&line);
}

bool checks_compare(vm *v, value roll, int cmp, value target, int label, bool *result, span at)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    value a = roll.type == V_ROLL ? value_int(roll.num) : roll;
    value b = target.type == V_ROLL ? value_int(target.num) : target;
    if (!value_is_number(a) || !value_is_number(b)) {
        if (cmp == 0 || cmp == 1) { /* by value, as == compares */
            bool eq;
            if (!vm_values_equal(v, a, b, at, &eq))
                return false;
            *result = cmp == 0 ? eq : !eq;
            return true;
        }
        return vm_error(v, at, "cannot compare %s with %s", value_type_name(roll.type), value_type_name(target.type));
    }
    int c = rat_cmp(value_as_frac(a), value_as_frac(b));
    switch (cmp) {
    case 0: *result = c == 0; break;
    case 1: *result = c != 0; break;
    case 2: *result = c < 0; break;
    case 3: *result = c <= 0; break;
    case 4: *result = c > 0; break;
    default: *result = c >= 0; break;
    }
    combat *cb = &v->world->cb;
    const roll_record *rec = vm_roll_record(v, roll);
    if (!rec || rec->check < 0)
        return true;
    const r_check *ck = &v->r->checks[rec->check];
    /* whether the roll meets its target is the check's to say (high or
       low); a comparison written the other way round is its negation */
    bool against = ck->low ? cmp == 4 || cmp == 5 : cmp == 2 || cmp == 3;
    bool meets = against ? !*result : *result;
    tally_check(v, rec->check, meets);
    if (cb->quiet)
        return true;
    const char *word = meets ? (ck->success >= 0 ? program_string(v->p, ck->success) : "success")
                             : (ck->failure >= 0 ? program_string(v->p, ck->failure) : "failure");
    bool plain = cmp >= 2; /* an ordering reads as "vs" */
    text_buf tail;
    text_init(&tail);
    text_add(&tail, " %s%s%s ", plain ? "vs" : ops[cmp], label >= 0 ? " " : "",
             label >= 0 ? program_string(v->p, label) : "");
    vm_format_text(v, b, &tail);
    text_add(&tail, ": %s", word);
    if (cb->pending_roll == (int64_t)rec->seq) {
        combat_pending_add(v, tail.s);
        combat_flush_roll(v);
    } else if (cb->shown_early == (int64_t)rec->seq) {
        /* printed already, for a reaction's question: the verdict follows */
        cb->shown_early = 0;
        combat_say(v, "%s %" PRId64 "%s", program_string(v->p, ck->name), roll.num, tail.s);
    } else {
        combat_note(v, "%s %" PRId64 "%s", program_string(v->p, ck->name), roll.num, tail.s);
    }
    text_free(&tail);
    return true;
}
