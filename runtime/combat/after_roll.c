/* after_roll: decisions taken after a roll and before it is judged. A
 * ruling declared `after CHECK` is asked of the one who rolled each time
 * the check is rolled (where its `when` holds), with the roll so far shown
 * as what is at stake; a yes changes the roll as its `then` says (`then
 * reroll`, `then add 2`) and runs its statements (spending a point of
 * luck, a free use). The line of the roll shows each decision taken:
 * `a -> b: attack d20 (4) + 3 = 7; lucky: reroll d20 (15) + 3 = 18`. */
#include <inttypes.h>
#include <string.h>

#include "runtime/combat/world.h"

/* Whether the ruling is asked for this roll: its `when` holds. */
static bool offered(vm *v, const r_ruling *rl, int self, const value *seen, int nseen, bool *yes)
{
    *yes = true;
    if (!rexpr_present(&rl->after_when))
        return true;
    value w;
    if (!combat_eval(v, &rl->after_when, self, seen, nseen, &w))
        return false;
    *yes = value_truthy(w) != rl->after_negate;
    return true;
}

/* The answer: in an exact context (prob, mean), the default for every
   outcome, asked of no one; else as any ruling is asked. */
static bool decide(vm *v, int ruling, int self, const value *seen, int nseen, const char *stakes, bool *take, span at)
{
    const r_ruling *rl = &v->r->rulings[ruling];
    value said;
    if (v->exact_depth > 0) {
        if (!rexpr_present(&rl->def))
            return vm_error(v, at, "ruling %s has no default to take for every outcome of a roll computed exactly",
                            program_string(v->p, rl->name));
        if (!combat_eval(v, &rl->def, self, seen, nseen, &said))
            return false;
    } else if (!rulings_ask_about(v, ruling, self, seen, nseen, stakes, &said, at)) {
        return false;
    }
    *take = value_truthy(said);
    return true;
}

/* What a decision did, on the roll's line while it waits for its
   comparison (which then follows the roll as it now stands), else on a
   line of its own. */
static void tell(vm *v, int self, uint64_t was, const value *roll, const char *what)
{
    combat *cb = &v->world->cb;
    if (cb->pending_roll == (int64_t)was) {
        combat_pending_add(v, what);
        const roll_record *rec = vm_roll_record(v, *roll);
        cb->pending_roll = rec ? (int64_t)rec->seq : 0;
        return;
    }
    combat_say(v, "%s: %s", v->world->creatures[self].name, what + 2);
}

/* A yes: the roll changes, then the ruling's statements run. */
static bool take(vm *v, const r_ruling *rl, int self, value *seen, int nseen, const dexpr *rolled,
                 const roll_extra *extra, int nextra, int check, bool quiet, span at)
{
    value *roll = &seen[nseen - 1];
    const char *name = program_string(v->p, rl->name);
    const roll_record *before = vm_roll_record(v, *roll);
    uint64_t was = before ? before->seq : 0;
    text_buf said;
    text_init(&said);
    if (rl->then == THEN_REROLL) {
        if (!vm_roll_check(v, rolled, extra, nextra, check, at, roll)) {
            text_free(&said);
            return false;
        }
        text_add(&said, "; %s: reroll ", name);
        vm_format_text(v, *roll, &said);
    } else {
        value amount;
        if (!combat_eval(v, &rl->then_amount, self, seen, nseen, &amount))
            return false;
        if (amount.type == V_ROLL)
            amount = value_int(amount.num);
        if (amount.type != V_INT)
            return vm_error(v, rl->then_amount.where, "ruling %s adds %s to a roll, not a whole number", name,
                            value_type_name(amount.type));
        if (!vm_roll_add(v, roll, rl->name, amount.num, at))
            return false;
        text_add(&said, "; %s %+" PRId64 " = %" PRId64, name, amount.num, roll->num);
    }
    if (!quiet)
        tell(v, self, was, roll, said.s);
    text_free(&said);
    /* computed exactly, the roll changes for each outcome; what the
       decision spends would be spent once per outcome, so it is not */
    value ignored;
    return rl->then_body < 0 || v->exact_depth > 0 || vm_call(v, rl->then_body, self, seen, nseen, &ignored);
}

bool checks_after_roll(vm *v, int check, const value *args, int nargs, const dexpr *rolled, const roll_extra *extra,
                       int nextra, value *roll, span at)
{
    int self = nargs > 0 && args[0].type == V_CREATURE ? (int)args[0].num : -1;
    bool quiet = v->world->cb.quiet || v->exact_depth > 0;
    /* what the formulas see: the check's arguments, then the roll */
    value seen[CHECK_MAX_PARAMS + 1];
    memcpy(seen, args, (size_t)nargs * sizeof *seen);
    int nseen = nargs + 1;
    text_buf stakes;
    text_init(&stakes);
    bool fine = true;
    for (int r = 0; fine && r < v->r->nrulings; r++) {
        const r_ruling *rl = &v->r->rulings[r];
        if (rl->after != check)
            continue;
        seen[nargs] = *roll;
        bool yes;
        if (!(fine = offered(v, rl, self, seen, nseen, &yes)) || !yes)
            continue;
        if (self < 0) {
            fine = vm_error(v, at, "ruling %s is asked of the one who rolls %s, and no creature rolls it here",
                            program_string(v->p, rl->name), program_string(v->p, v->r->checks[check].name));
            break;
        }
        text_clear(&stakes);
        if (!quiet || v->world->ask) {
            text_add(&stakes, "%s ", program_string(v->p, v->r->checks[check].name));
            vm_format_text(v, *roll, &stakes);
        }
        bool taken = false;
        if (!(fine = decide(v, r, self, seen, nseen, stakes.s, &taken, at)) || !taken)
            continue;
        rl = &v->r->rulings[r];
        fine = take(v, rl, self, seen, nseen, rolled, extra, nextra, check, quiet, at);
        *roll = seen[nargs];
    }
    text_free(&stakes);
    return fine;
}
