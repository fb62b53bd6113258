/* dice_changes: conditions that change the dice a check rolls (`roll
 * attack keep highest as advantage`, `roll damage reroll below 3 once`,
 * `roll skill with d12`). The changes that hold for a roll are combined
 * by their bonus types, as modifiers that add are: of a type that does not
 * stack only the first counts, and types that cancel each other (`bonus
 * advantage cancels disadvantage`) cancel one for one. What is left is
 * applied to the check's first die, replaced first, then kept and
 * rerolled, so the order the conditions came in does not change the dice. */
#include <inttypes.h>
#include <string.h>

#include "runtime/combat/world.h"

_Static_assert(CHECK_MODS_MAX == ROLL_MAX_EXTRA, "a verdict has a place for each modifier of a roll");

/* What the transcript calls a change: its bonus type, else its words. */
static void change_label(vm *v, const check_mod *c, text_buf *out)
{
    const r_modifier *m = c->mod;
    if (m->bonus >= 0) {
        text_add(out, "%s", program_string(v->p, v->r->bonuses[m->bonus].name));
        return;
    }
    switch ((dice_change)m->change) {
    case CHANGE_KEEP_HIGHEST: text_add(out, "keep highest"); break;
    case CHANGE_KEEP_LOWEST: text_add(out, "keep lowest"); break;
    case CHANGE_REROLL:
        text_add(out, "reroll%s ", m->reroll_cmp == DICE_CMP_LT ? " below" : "");
        vm_format_text(v, c->amount, out);
        if (m->once)
            text_add(out, " once");
        break;
    case CHANGE_WITH:
        text_add(out, "with ");
        vm_format_text(v, c->amount, out);
        break;
    }
}

static void change_source(vm *v, const check_mod *c, text_buf *out)
{
    change_label(v, c, out);
    text_add(out, " from %s", rules_condition_title(v->p, c->cond));
}

/* Of a type that does not stack, the first change counts; types that
   cancel take out one change of each, in the order they came; a die that
   rerolls, or has been given other dice, keeps the first. */
static void combine(vm *v, const check_mod *changes, int n, bool rerolls, dice_verdict *out)
{
    const rules *r = v->r;
    for (int i = 0; i < n; i++) {
        out->fate[i] = FATE_APPLIES;
        out->pair[i] = -1;
        int b = changes[i].mod->bonus;
        if (b < 0 || r->bonuses[b].stacks)
            continue;
        for (int j = 0; j < i; j++)
            if (changes[j].mod->bonus == b && out->fate[j] == FATE_APPLIES)
                out->fate[i] = FATE_NOT_STACKING;
    }
    for (int i = 0; i < n; i++) {
        int b = changes[i].mod->bonus;
        if (b < 0 || out->fate[i] != FATE_APPLIES)
            continue;
        for (int j = i + 1; j < n; j++) {
            int o = changes[j].mod->bonus;
            if (o < 0 || out->fate[j] != FATE_APPLIES || !(r->bonuses[b].cancels == o || r->bonuses[o].cancels == b))
                continue;
            out->fate[i] = out->fate[j] = FATE_CANCELLED;
            out->pair[i] = (int8_t)j;
            out->pair[j] = (int8_t)i;
            break;
        }
    }
    bool replaced = false;
    for (int i = 0; i < n; i++) {
        uint8_t kind = changes[i].mod->change;
        if (out->fate[i] != FATE_APPLIES || (kind != CHANGE_REROLL && kind != CHANGE_WITH))
            continue;
        bool *taken = kind == CHANGE_REROLL ? &rerolls : &replaced;
        if (*taken)
            out->fate[i] = FATE_SUPERSEDED;
        *taken = true;
    }
}

static bool keep_one_more(vm *v, dice *d, bool highest, const char *check, span at)
{
    uint8_t same_keep = highest ? DICE_KEEP_HIGH : DICE_KEEP_LOW;
    uint8_t same_drop = highest ? DICE_DROP_LOW : DICE_DROP_HIGH;
    if (d->keep == DICE_KEEP_ALL) {
        d->keep = same_keep;
        d->keep_n = d->count;
    } else if (d->keep == same_drop) {
        d->keep_n++;
    } else if (d->keep != same_keep) {
        return vm_error(v, at,
                        "check %s's dice cannot keep both the highest and the lowest; say how the two changes "
                        "combine: bonus NAME cancels OTHER",
                        check);
    }
    if ((int64_t)d->count + 1 > (int64_t)v->limits.dice)
        return vm_error(v, at,
                        "check %s would roll %" PRId32 " dice, more than one term may (limit is %" PRIu64
                        "; see --limit dice=N)",
                        check, d->count + 1, (uint64_t)v->limits.dice);
    d->count++;
    return true;
}

static bool apply_change(vm *v, const check_mod *c, int pass, dterm *t, const char *check, span at)
{
    const r_modifier *m = c->mod;
    if (pass == 0 && m->change == CHANGE_WITH) {
        const dexpr *with = c->amount.type == V_DICE ? vm_dexpr(v, c->amount) : NULL;
        if (!with || with->nterms != 1 || with->terms[0].is_constant)
            return vm_error(v, m->where, "'roll %s with' takes dice of one kind, as in 'with d12'", check);
        t->d = with->terms[0].d;
    } else if (pass == 1 && (m->change == CHANGE_KEEP_HIGHEST || m->change == CHANGE_KEEP_LOWEST)) {
        if (!keep_one_more(v, &t->d, m->change == CHANGE_KEEP_HIGHEST, check, at))
            return false;
    } else if (pass == 2 && m->change == CHANGE_REROLL) {
        if (c->amount.type != V_INT)
            return vm_error(v, m->where, "the face a reroll names is a whole number, not %s",
                            value_type_name(c->amount.type));
        t->d.reroll_cmp = m->reroll_cmp;
        t->d.reroll_at = (int32_t)c->amount.num;
        t->d.reroll_once = m->once;
    }
    return true;
}

bool checks_change_dice(vm *v, int check, const check_mod *changes, int n, dexpr *rolled, text_buf *said,
                        dice_verdict *verdict, span at)
{
    if (n == 0)
        return true;
    const char *name = program_string(v->p, v->r->checks[check].name);
    dterm *die = NULL;
    for (int i = 0; i < rolled->nterms && !die; i++)
        if (!rolled->terms[i].is_constant)
            die = &rolled->terms[i];
    if (!die)
        return vm_error(v, changes[0].mod->where, "check %s rolls no die for '%s' to change", name,
                        rules_condition_title(v->p, changes[0].cond));
    combine(v, changes, n, die->d.reroll_cmp != DICE_CMP_NONE, verdict);
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < n; i++)
            if (verdict->fate[i] == FATE_APPLIES && !apply_change(v, &changes[i], pass, die, name, at))
                return false;
    /* what the line shows: each change that counts, and those that cancel */
    const char *sep = said->len ? ", " : "";
    for (int i = 0; i < n; i++) {
        int j = verdict->pair[i];
        if (verdict->fate[i] == FATE_APPLIES || (verdict->fate[i] == FATE_CANCELLED && j > i)) {
            text_add(said, "%s", sep);
            change_source(v, &changes[i], said);
            if (verdict->fate[i] == FATE_CANCELLED) {
                text_add(said, " and ");
                change_source(v, &changes[j], said);
                text_add(said, " cancel");
            }
            sep = ", ";
        }
    }
    return true;
}

void checks_note_dice(vm *v, const check_mod *changes, int n, const dice_verdict *verdict)
{
    static const char *const why[] = {
        [FATE_APPLIES] = "",
        [FATE_NOT_STACKING] = ": does not count, its type does not stack",
        [FATE_CANCELLED] = ": cancelled",
        [FATE_SUPERSEDED] = ": does not count, the die is changed so already",
    };
    text_buf line, cite;
    text_init(&line);
    text_init(&cite);
    for (int i = 0; i < n; i++) {
        text_clear(&line);
        change_source(v, &changes[i], &line);
        const r_condition *rc = &v->r->conditions[changes[i].cond];
        combat_note(v, "%s%s (%s)", line.s, why[verdict->fate[i]], combat_cite(v, &rc->from, &cite));
    }
    text_free(&line);
    text_free(&cite);
}
