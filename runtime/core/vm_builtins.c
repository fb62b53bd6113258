/* vm_builtins: the built-in functions of the interpreter's core (values,
 * dice and probability), and the one call of every builtin: what it may
 * not do inside prob(), what a distribution given to it becomes, and the
 * layer that implements it (builtins.def says each). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "runtime/core/builtins.h"
#include "runtime/dice/dist.h"
#include "runtime/core/vm.h"

static const char *const builtin_names[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) #name,
#include "runtime/core/builtins.def"
#undef BUILTIN
};

/* --- values ---------------------------------------------------------------------- */

/* min(a, b, ...) or min(list): the values compared */
static void collect(vm *v, value *args, int argc, const value **items, size_t *n)
{
    if (argc == 1 && args[0].type == V_LIST) {
        *items = vm_list_items(v, args[0], n);
        return;
    }
    *items = args;
    *n = (size_t)argc;
}

static bool dist_extreme(vm *v, const value *items, size_t n, bool want_max, span at, value *out)
{
    const struct dist *acc;
    if (!vm_dist_of(v, items[0], at, &acc))
        return false;
    for (size_t i = 1; i < n; i++) {
        const struct dist *next;
        if (!vm_dist_of(v, items[i], at, &next))
            return false;
        dist_error err = {.limits = &v->limits.exact};
        struct dist *r = want_max ? dist_maximum(acc, next, &err) : dist_minimum(acc, next, &err);
        if (!r)
            return vm_error(v, at, "%s", err.message);
        if (!vm_dist_value(v, r, at, out))
            return false;
        acc = r;
    }
    if (n == 1)
        return vm_distrib(v, items[0], at, out);
    return true;
}

static bool builtin_min_max(vm *v, int id, value *args, int argc, span at, value *out)
{
    bool want_max = id == BI_max;
    const value *items;
    size_t n;
    collect(v, args, argc, &items, &n);
    if (n == 0)
        return vm_error(v, at, "%s() of an empty list", builtin_names[id]);
    bool any_dist = false;
    for (size_t i = 0; i < n; i++)
        any_dist |= items[i].type == V_DISTRIB;
    if (any_dist)
        return dist_extreme(v, items, n, want_max, at, out);
    value best = items[0];
    for (size_t i = 1; i < n; i++) {
        int c;
        if (!vm_builtin_compare(v, items[i], best, at, &c))
            return false;
        if (want_max ? c > 0 : c < 0)
            best = items[i];
    }
    *out = best.type == V_ROLL ? value_int(best.num) : best;
    return true;
}

/* floor, ceil and round */
static bool builtin_rounding(vm *v, int id, value *args, int argc, span at, value *out)
{
    value x = args[0];
    if (!value_is_number(x) && x.type != V_DIST)
        return vm_error(v, at, "%s() needs a number, not %s", builtin_names[id], value_type_name(x.type));
    value fx = x.type == V_DIST ? x : value_as_frac(x);
    int64_t r = id == BI_floor ? value_floor(fx) : id == BI_ceil ? value_ceil(fx) : value_round(fx);
    *out = x.type == V_DIST ? value_ratio(V_DIST, r, 1) : value_int(r);
    return true;
}

static bool builtin_abs(vm *v, int id, value *args, int argc, span at, value *out)
{
    value x = args[0];
    if (!value_is_number(x) && x.type != V_DIST)
        return vm_error(v, at, "abs() needs a number, not %s", value_type_name(x.type));
    *out = x.type == V_ROLL ? value_int(x.num) : x;
    if (out->num == INT64_MIN)
        return vm_error(v, at, "number too large in abs()");
    if (out->num < 0)
        out->num = -out->num;
    return true;
}

static bool builtin_len(vm *v, int id, value *args, int argc, span at, value *out)
{
    size_t n;
    if (args[0].type != V_LIST)
        return vm_error(v, at, "len() needs a list, not %s", value_type_name(args[0].type));
    vm_list_items(v, args[0], &n);
    *out = value_int((int64_t)n);
    return true;
}

/* A string built at run time: each value as print writes it, and the
   whole held to the string limit as it grows. */
static bool builtin_text(vm *v, int id, value *args, int argc, span at, value *out)
{
    (void)id;
    text_buf t;
    text_init(&t);
    bool ok = true;
    for (int i = 0; i < argc && ok; i++) {
        ok = vm_text_value(v, &t, args[i], at);
        if (ok && t.len > (size_t)v->limits.string_bytes)
            break; /* vm_make_string says so */
    }
    ok = ok && vm_make_string(v, t.s, t.len, at, out);
    text_free(&t);
    return ok;
}

static bool builtin_sum(vm *v, int id, value *args, int argc, span at, value *out)
{
    size_t n;
    if (args[0].type != V_LIST)
        return vm_error(v, at, "sum() needs a list, not %s", value_type_name(args[0].type));
    const value *items = vm_list_items(v, args[0], &n);
    /* from the first element, so distances and times sum as themselves */
    value acc = n ? items[0] : value_int(0);
    if (acc.type == V_ROLL)
        acc = value_int(acc.num);
    for (size_t i = 1; i < n; i++)
        if (!vm_builtin_add(v, acc, items[i], at, &acc))
            return false;
    *out = acc;
    return true;
}

static bool builtin_any_all(vm *v, int id, value *args, int argc, span at, value *out)
{
    size_t n;
    if (args[0].type != V_LIST)
        return vm_error(v, at, "%s() needs a list, not %s", builtin_names[id], value_type_name(args[0].type));
    const value *items = vm_list_items(v, args[0], &n);
    bool want_all = id == BI_all, acc = want_all;
    for (size_t i = 0; i < n; i++)
        acc = want_all ? acc && value_truthy(items[i]) : acc || value_truthy(items[i]);
    *out = value_bool(acc);
    return true;
}

static bool builtin_count(vm *v, int id, value *args, int argc, span at, value *out)
{
    size_t n;
    if (args[0].type != V_LIST)
        return vm_error(v, at, "count() needs a list, not %s", value_type_name(args[0].type));
    const value *items = vm_list_items(v, args[0], &n);
    int64_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool equal;
        if (!vm_values_equal(v, items[i], args[1], at, &equal))
            return false;
        k += equal;
    }
    *out = value_int(k);
    return true;
}

/* dice(count, sides), or dice(count, DIE): count of DIE with what it says
   of each die (`dice(n, d10!10>=7)`: a pool of n, exploding on 10, counting
   7s and up) */
static bool builtin_dice(vm *v, int id, value *args, int argc, span at, value *out)
{
    const dexpr *like = args[1].type == V_DICE ? vm_dexpr(v, args[1]) : NULL;
    if (value_as_frac(args[0]).type != V_INT || (!like && value_as_frac(args[1]).type != V_INT))
        return vm_error(v, at,
                        "dice() needs a whole number of dice, then sides or a die: dice(count, sides), "
                        "dice(count, d10>=7)");
    int64_t count = args[0].num, sides = like ? 0 : args[1].num;
    if (count < 1 || count > v->limits.dice)
        return vm_error(v, at, "dice count must be 1 to %d, not %" PRId64 " (see --limit dice=N)", v->limits.dice,
                        count);
    if (like) {
        const dterm *t = &like->terms[0];
        if (like->nterms != 1 || t->is_constant || t->sign != 1 || t->times != 1)
            return vm_error(v, at, "dice(count, DIE) takes a die with what it says of each (as d10!10>=7), not a sum");
        if (t->d.keep != DICE_KEEP_ALL && t->d.keep_n > count)
            return vm_error(v, at, "dice(%" PRId64 ", ...) keeps or drops %d of %" PRId64 " dice", count, t->d.keep_n,
                            count);
        dexpr d = {.nterms = 1};
        d.terms[0] = *t;
        d.terms[0].d.count = (int32_t)count; /* the die's count gives way to count */
        return vm_builtin_new_dice(v, &d, at, out);
    }
    if (sides < 1 || sides > v->limits.sides)
        return vm_error(v, at, "dice sides must be 1 to %d, not %" PRId64 " (see --limit sides=N)", v->limits.sides,
                        sides);
    dexpr d = {.nterms = 1};
    d.terms[0] = (dterm){.d = {.count = (int32_t)count, .sides = (int32_t)sides}, .sign = 1, .times = 1};
    return vm_builtin_new_dice(v, &d, at, out);
}

/* feet(d) and squares(d) */
static bool builtin_feet_squares(vm *v, int id, value *args, int argc, span at, value *out)
{
    if (args[0].type != V_DIST)
        return vm_error(v, at, "%s() needs a distance, not %s", builtin_names[id], value_type_name(args[0].type));
    value ft = value_ratio(V_FRAC, args[0].num, value_den(args[0]));
    if (id == BI_squares) {
        const value side = v->r->space.square;
        value per = value_ratio(V_FRAC, side.num, value_den(side)), q;
        arith_status st = rat_div(ft, per, V_FRAC, &q);
        if (st != ARITH_OK)
            return vm_builtin_arith_fail(v, st, at, "divide", ft, per);
        *out = value_int(value_floor(q));
        return true;
    }
    return rat_make(ft.num, value_den(ft), V_INT, out) == ARITH_OK;
}

static bool builtin_square_side(vm *v, int id, value *args, int argc, span at, value *out)
{
    *out = v->r->space.square;
    return true;
}

/* --- probability ------------------------------------------------------------------- */

/* The answer of prob() or mean(): whole + num / den, exactly, when the
 * distribution is exact and the answer fits a number; refused when it is
 * exact and does not fit, or when the counts went to floating point. A
 * distribution with mass cut off (dice that explode or reroll without end,
 * followed to where less than 1e-12 is left) has no exact answer: its
 * answer, `approx`, is rounded to 6 decimal places (doc/language.md, 3.6). */
static bool exact_answer(vm *v, const char *fn, const struct dist *d, bool exact, int64_t whole, dist_count num,
                         dist_count den, double approx, span at, value *out)
{
    if (exact && dist_remainder(d) > 0) {
        double scaled = approx * 1e6;
        if (!(scaled > -9e18 && scaled < 9e18))
            return vm_error(v, at, "%s() is too large for a number", fn);
        return rat_make((int64_t)llround(scaled), 1000000, V_INT, out) == ARITH_OK ||
               vm_error(v, at, "%s() is too large for a number", fn);
    }
    if (!exact)
        return vm_error(v, at,
                        "cannot compute %s() exactly: the distribution has more combinations than 128-bit counts "
                        "hold (fray prob shows it in floating point)",
                        fn);
    if (den <= (dist_count)VALUE_DEN_MAX && num <= (dist_count)INT64_MAX) {
        arith_status st = rat_add(value_int(whole), value_ratio(V_FRAC, (int64_t)num, (int64_t)den), V_INT, out, 1);
        if (st == ARITH_OK)
            return true;
    }
    char n[48], q[48];
    dist_count_format(num, n, sizeof n);
    dist_count_format(den, q, sizeof q);
    if (whole)
        return vm_error(v, at, "%s() is %" PRId64 " + %s/%s exactly, which does not fit in a number", fn, whole, n, q);
    return vm_error(v, at, "%s() is %s/%s exactly, which does not fit in a number (a denominator has at most 48 bits)",
                    fn, n, q);
}

static bool exact_prob_true(vm *v, const struct dist *d, span at, value *out)
{
    dist_count num = 0, den = 1;
    bool exact = dist_exact_nonzero(d, &num, &den);
    double approx = 1.0 - dist_p(d, 0) / (1.0 - dist_remainder(d));
    return exact_answer(v, "prob", d, exact, 0, num, den, approx, at, out);
}

static bool exact_mean(vm *v, const struct dist *d, span at, value *out)
{
    dist_count num = 0, den = 1;
    int64_t whole = 0;
    bool exact = dist_exact_mean(d, &whole, &num, &den);
    return exact_answer(v, "mean", d, exact, whole, num, den, dist_mean(d), at, out);
}

static bool builtin_prob_mean(vm *v, int id, value *args, int argc, span at, value *out)
{
    const struct dist *d;
    if (!vm_dist_of(v, args[0], at, &d))
        return false;
    return id == BI_mean ? exact_mean(v, d, at, out) : exact_prob_true(v, d, at, out);
}

static bool builtin_dist(vm *v, int id, value *args, int argc, span at, value *out)
{
    return vm_distrib(v, args[0], at, out);
}

/* maximum(E) and minimum(E): the outermost outcome with any probability */
static bool builtin_maximum_minimum(vm *v, int id, value *args, int argc, span at, value *out)
{
    const struct dist *d;
    if (!vm_dist_of(v, args[0], at, &d))
        return false;
    int64_t lo = dist_lowest(d), hi = dist_highest(d);
    if (id == BI_maximum)
        while (hi > lo && dist_p(d, hi) == 0.0)
            hi--;
    else
        while (lo < hi && dist_p(d, lo) == 0.0)
            lo++;
    *out = value_int(id == BI_maximum ? hi : lo);
    return true;
}

/* --- the call ---------------------------------------------------------------------- */

/* Only the core's functions: a builtin of another layer is NULL here. */
#define LAYER_CORE(fn) fn
#define LAYER_COMBAT(fn) NULL
static builtin_fn *const core_fns[BI_COUNT] = {
#define BUILTIN_ENTRY(name, lo, hi, result, rule, params, effect, args, layer, fn, meaning) LAYER_##layer(fn),
#include "runtime/core/builtins.def"
#undef BUILTIN_ENTRY
};
#undef LAYER_CORE
#undef LAYER_COMBAT

#define EFFECT_READS false
#define EFFECT_ROSTER false
#define EFFECT_CHANGES true
static const bool changes_play[BI_COUNT] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) EFFECT_##effect,
#include "runtime/core/builtins.def"
#undef BUILTIN
};
#undef EFFECT_READS
#undef EFFECT_ROSTER
#undef EFFECT_CHANGES

/* what each reads (builtin_reads): a builtin of the core reads values
   alone (it runs without play); one of play, as its effect says */
#define READS_OF_CORE_READS BUILTIN_READS_VALUES
#define READS_OF_CORE_CHANGES BUILTIN_READS_PLAY
#define READS_OF_COMBAT_READS BUILTIN_READS_PLAY
#define READS_OF_COMBAT_ROSTER BUILTIN_READS_ROSTER
#define READS_OF_COMBAT_CHANGES BUILTIN_READS_PLAY
#define READS_OF(layer, effect) READS_OF_##layer##_##effect
static const builtin_reads reads_of[BI_COUNT] = {
#define BUILTIN_ENTRY(name, lo, hi, result, rule, params, effect, args, layer, fn, meaning) READS_OF(layer, effect),
#include "runtime/core/builtins.def"
#undef BUILTIN_ENTRY
};
#undef READS_OF
#undef READS_OF_CORE_READS
#undef READS_OF_CORE_CHANGES
#undef READS_OF_COMBAT_READS
#undef READS_OF_COMBAT_ROSTER
#undef READS_OF_COMBAT_CHANGES

#define TAKES_VALUES false
#define TAKES_OUTCOMES(fn) false
#define TAKES_LIST_OUTCOMES(fn) false
#define TAKES_DISTRIBS true
#define TAKES_EXACT true
static const bool takes_distribs[BI_COUNT] = {
#define BUILTIN_ENTRY(name, lo, hi, result, rule, params, effect, args, layer, fn, meaning) TAKES_##args,
#include "runtime/core/builtins.def"
#undef BUILTIN_ENTRY
};
#undef TAKES_VALUES
#undef TAKES_OUTCOMES
#undef TAKES_LIST_OUTCOMES
#undef TAKES_DISTRIBS
#undef TAKES_EXACT

bool vm_builtin_changes(int id)
{
    return id < 0 || id >= BI_COUNT || changes_play[id];
}

builtin_reads vm_builtin_reads(int id)
{
    return id < 0 || id >= BI_COUNT ? BUILTIN_READS_PLAY : reads_of[id];
}

builtin_fn *vm_builtin_core_fn(int id)
{
    return id >= 0 && id < BI_COUNT ? core_fns[id] : NULL;
}

bool vm_builtin_call(vm *v, int id, value *args, int argc, span at, value *out)
{
    if (id < 0 || id >= BI_COUNT)
        return vm_error(v, at, "internal: unknown builtin %d", id);
    const char *name = builtin_names[id];
    if (changes_play[id])
        vm_play_changed(v);
    if (v->exact_depth && changes_play[id]) {
        char what[64];
        snprintf(what, sizeof what, "%s()", name);
        if (vm_exact_refuses(v, at, what))
            return false;
    }
    /* a distribution given to a builtin that does not compute with one
       itself: computed there, or refused, never taken for a value (where
       no distribution has been made, as in a fight, none is looked for) */
    if ((v->scratch.ndists || v->kept.ndists) && !takes_distribs[id] && vm_dist_among(v, id, args, argc))
        return vm_dist_builtin(v, id, name, args, argc, at, out);
    bool ok = core_fns[id] ? core_fns[id](v, id, args, argc, at, out)
                           : v->world_ops->builtin(v, id, args, argc, at, out); /* a builtin of play */
    if (changes_play[id])
        vm_play_changed(v); /* before and after: whatever it did is done */
    return ok;
}
