/* vm_dist: distribution values in the VM. Inside prob(), mean() and dist()
 * the compiler turns dice into distributions, and arithmetic and
 * comparisons on them compute exact distributions instead of rolling. */
#include <string.h>

#include "runtime/core/chunk.h"
#include "runtime/dice/dist.h"
#include "runtime/base/mem.h"
#include "runtime/core/vm.h"

static vm_store *store_for(vm *v, uint8_t home)
{
    return home == HOME_VM ? &v->scratch : home == HOME_KEPT ? &v->kept : NULL;
}

const struct dist *vm_dist_lookup(const vm *v, value x)
{
    const vm_store *st = x.home == HOME_VM ? &v->scratch : x.home == HOME_KEPT ? &v->kept : NULL;
    if (x.type != V_DISTRIB || !st || (size_t)x.num >= st->ndists)
        return NULL;
    return st->dists[x.num];
}

static bool store_dist(vm *v, vm_store *st, uint8_t home, dist *d, span at, value *out)
{
    dist **grown = mem_grow(st->dists, sizeof(dist *), &st->dists_cap, st->ndists + 1);
    if (!grown) {
        dist_free(d);
        return vm_error(v, at, "out of memory");
    }
    st->dists = grown;
    st->dists[st->ndists] = d;
    *out = value_ref(V_DISTRIB, home, (int64_t)st->ndists++);
    return true;
}

bool vm_dist_value(vm *v, dist *d, span at, value *out)
{
    return store_dist(v, &v->scratch, HOME_VM, d, at, out);
}

void vm_dist_free_store(vm_store *st)
{
    for (size_t i = 0; i < st->ndists; i++)
        dist_free(st->dists[i]);
    if (st->dists)
        mem_free(st->dists, st->dists_cap * sizeof(dist *));
    st->dists = NULL;
    st->ndists = st->dists_cap = 0;
}

static bool failed(vm *v, span at, const dist_error *err)
{
    return vm_error(v, at, "%s", err->message[0] ? err->message : "out of memory");
}

/* The distribution of a dice expression: each term's, scaled and summed;
   false (the error said) when it cannot be worked out. */
static bool of_dexpr(vm *v, const dexpr *dx, span at, dist **out)
{
    dist_error err = {.limits = &v->limits.exact};
    dist *sum = dist_constant(0, &err);
    for (int t = 0; sum && t < dx->nterms; t++) {
        const dterm *term = &dx->terms[t];
        dist *part =
            term->is_constant ? dist_constant(term->constant, &err) : dist_dice(&term->d, VM_DIST_EPSILON, &err);
        if (part && (int64_t)term->times * term->sign != 1) {
            dist *scaled = dist_scale(part, (int64_t)term->times * term->sign, &err);
            dist_free(part);
            part = scaled;
        }
        dist *next = part ? dist_add(sum, part, &err) : NULL;
        dist_free(part);
        dist_free(sum);
        sum = next;
    }
    *out = sum;
    return sum || failed(v, at, &err);
}

bool vm_distrib(vm *v, value x, span at, value *out)
{
    dist_error err = {.limits = &v->limits.exact};
    dist *made;
    switch ((value_type)x.type) {
    case V_DISTRIB: *out = x; return vm_dist_lookup(v, x) || vm_error(v, at, "invalid distribution");
    case V_DICE: {
        const dexpr *dx = vm_dexpr(v, x);
        if (!dx)
            return vm_error(v, at, "invalid dice");
        if (!of_dexpr(v, dx, at, &made))
            return false;
        break;
    }
    case V_INT:
    case V_ROLL:
    case V_BOOL:
        made = dist_constant(x.num, &err);
        if (!made)
            return failed(v, at, &err);
        break;
    default:
        return vm_error(v, at, "%s has no distribution (only dice, whole numbers and their comparisons)",
                        value_type_name(x.type));
    }
    return vm_dist_value(v, made, at, out);
}

bool vm_dist_of(vm *v, value x, span at, const dist **out)
{
    value d;
    if (!vm_distrib(v, x, at, &d))
        return false;
    *out = vm_dist_lookup(v, d);
    return *out != NULL;
}

/* Whole-number outcomes beside a fraction f (the right operand; the left
   one is mirrored to it): x < f is x <= floor(f), x > f is x > floor(f),
   x == f never holds, and x // f is floor(x * den / num). *done is false
   when there is no fraction. */
static bool beside_fraction(vm *v, int op, value a, value b, span at, value *out, bool *done)
{
    static const int mirror[] = {
        [OP_LT] = OP_GT, [OP_LE] = OP_GE, [OP_GT] = OP_LT, [OP_GE] = OP_LE, [OP_EQ] = OP_EQ, [OP_NE] = OP_NE};
    *done = false;
    bool compare = op == OP_EQ || op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;
    if (a.type == V_FRAC && b.type != V_FRAC && compare) {
        *done = true;
        return vm_dist_binary(v, mirror[op], b, a, at, out);
    }
    if (b.type != V_FRAC || a.type == V_FRAC || (!compare && op != OP_IDIV))
        return true;
    *done = true;
    const dist *da;
    if (!vm_dist_of(v, a, at, &da))
        return false;
    dist_error err = {.limits = &v->limits.exact};
    int64_t below = value_floor(b); /* a fraction lies strictly between two whole numbers */
    dist *r, *scaled;
    switch ((opcode)op) {
    case OP_EQ:
    case OP_NE: r = dist_constant(op == OP_NE, &err); break;
    case OP_LT:
    case OP_LE: return vm_dist_binary(v, OP_LE, a, value_int(below), at, out);
    case OP_GT:
    case OP_GE: return vm_dist_binary(v, OP_GT, a, value_int(below), at, out);
    default:
        scaled = dist_scale(da, value_den(b), &err);
        r = scaled ? dist_floor_div(scaled, b.num, &err) : NULL;
        dist_free(scaled);
        break;
    }
    return r ? vm_dist_value(v, r, at, out) : failed(v, at, &err);
}

bool vm_dist_binary(vm *v, int op, value a, value b, span at, value *out)
{
    bool done, ok = beside_fraction(v, op, a, b, at, out, &done);
    if (!ok || done)
        return ok;
    const dist *da, *db;
    if (!vm_dist_of(v, a, at, &da) || !vm_dist_of(v, b, at, &db))
        return false;
    dist_error err = {.limits = &v->limits.exact};
    dist *r = NULL;
    switch ((opcode)op) {
    case OP_ADD: r = dist_add(da, db, &err); break;
    case OP_SUB: r = dist_sub(da, db, &err); break;
    case OP_MUL: r = dist_mul(da, db, &err); break;
    case OP_IDIV:
        if (dist_lowest(db) != dist_highest(db) || dist_lowest(db) == 0)
            return vm_error(v, at, "a distribution can only be divided by a nonzero whole number");
        r = dist_floor_div(da, dist_lowest(db), &err);
        break;
    case OP_EQ: r = dist_compare(da, db, DIST_EQ, &err); break;
    case OP_NE: r = dist_compare(da, db, DIST_NE, &err); break;
    case OP_LT: r = dist_compare(da, db, DIST_LT, &err); break;
    case OP_LE: r = dist_compare(da, db, DIST_LE, &err); break;
    case OP_GT: r = dist_compare(da, db, DIST_GT, &err); break;
    case OP_GE: r = dist_compare(da, db, DIST_GE, &err); break;
    default: return vm_error(v, at, "this operation has no exact distribution (use // for division)");
    }
    if (!r)
        return failed(v, at, &err);
    return vm_dist_value(v, r, at, out);
}

bool vm_dist_choose(vm *v, value c, value t, value f, span at, value *out)
{
    const dist *dc, *dt, *df;
    if (!vm_dist_of(v, c, at, &dc) || !vm_dist_of(v, t, at, &dt) || !vm_dist_of(v, f, at, &df))
        return false;
    dist_error err = {.limits = &v->limits.exact};
    dist *r = dist_choose(dc, dt, df, &err);
    return r ? vm_dist_value(v, r, at, out) : failed(v, at, &err);
}

bool vm_dist_keep(vm *v, value x, span at, value *out)
{
    const dist *d = vm_dist_lookup(v, x);
    if (!d)
        return vm_error(v, at, "invalid distribution");
    dist_error err = {.limits = &v->limits.exact};
    dist *copy = dist_copy(d, &err);
    if (!copy)
        return failed(v, at, &err);
    return store_dist(v, store_for(v, HOME_KEPT), HOME_KEPT, copy, at, out);
}

/* The builtins that look for distributions in a list too (builtins.def) */
#define IN_LISTS_VALUES false
#define IN_LISTS_OUTCOMES(fn) false
#define IN_LISTS_LIST_OUTCOMES(fn) true
#define IN_LISTS_DISTRIBS false
#define IN_LISTS_EXACT false
static const bool looks_in_lists[BI_COUNT] = {
#define BUILTIN_ENTRY(name, lo, hi, result, rule, params, effect, args, layer, fn, meaning) IN_LISTS_##args,
#include "runtime/core/builtins.def"
#undef BUILTIN_ENTRY
};
#undef IN_LISTS_VALUES
#undef IN_LISTS_OUTCOMES
#undef IN_LISTS_LIST_OUTCOMES
#undef IN_LISTS_DISTRIBS
#undef IN_LISTS_EXACT

bool vm_dist_among(const vm *v, int id, const value *args, int argc)
{
    /* only these look at what a list holds as numbers or truths */
    bool in_lists = id >= 0 && id < BI_COUNT && looks_in_lists[id];
    for (int i = 0; i < argc; i++) {
        if (args[i].type == V_DISTRIB)
            return true;
        if (in_lists && args[i].type == V_LIST) {
            size_t n;
            const value *items = vm_list_items(v, args[i], &n);
            for (size_t k = 0; k < n; k++)
                if (items[k].type == V_DISTRIB)
                    return true;
        }
    }
    return false;
}

/* acc (a distribution value, or nothing yet) op x, for a fold over a list. */
static bool fold(vm *v, int op, value *acc, value x, span at)
{
    if (acc->type == V_NIL) {
        *acc = x;
        return vm_distrib(v, x, at, acc);
    }
    return vm_dist_binary(v, op, *acc, x, at, acc);
}

/* A builtin computed over the outcomes of the distributions among its
   arguments (builtins.def: OUTCOMES and LIST_OUTCOMES): items and n are its
   first argument's elements when that is a list (items NULL otherwise). */
typedef bool outcomes_fn(vm *v, int id, const char *name, const value *args, const value *items, size_t n, span at,
                         value *out);

/* floor, ceil and round: whole-number outcomes, each its own */
static bool outcomes_whole(vm *v, int id, const char *name, const value *args, const value *items, size_t n, span at,
                           value *out)
{
    return vm_distrib(v, args[0], at, out);
}

static bool outcomes_abs(vm *v, int id, const char *name, const value *args, const value *items, size_t n, span at,
                         value *out)
{
    const dist *d;
    if (!vm_dist_of(v, args[0], at, &d))
        return false;
    dist_error err = {.limits = &v->limits.exact};
    dist *r = dist_abs(d, &err);
    return r ? vm_dist_value(v, r, at, out) : failed(v, at, &err);
}

static bool outcomes_len(vm *v, int id, const char *name, const value *args, const value *items, size_t n, span at,
                         value *out)
{
    *out = value_int((int64_t)n);
    return items != NULL || vm_error(v, at, "len() needs a list");
}

/* the sum of independent outcomes */
static bool outcomes_sum(vm *v, int id, const char *name, const value *args, const value *items, size_t n, span at,
                         value *out)
{
    if (!items)
        return vm_error(v, at, "sum() needs a list, not %s", value_type_name(args[0].type));
    value acc = value_nil();
    for (size_t i = 0; i < n; i++)
        if (!fold(v, OP_ADD, &acc, items[i], at))
            return false;
    return n ? (*out = acc, true) : vm_distrib(v, value_int(0), at, out);
}

/* how many equal x: a sum of 0/1 outcomes */
static bool outcomes_count(vm *v, int id, const char *name, const value *args, const value *items, size_t n, span at,
                           value *out)
{
    if (!items)
        return vm_error(v, at, "count() needs a list, not %s", value_type_name(args[0].type));
    value acc = value_nil();
    for (size_t i = 0; i < n; i++) {
        value eq;
        if (!vm_dist_binary(v, OP_EQ, items[i], args[1], at, &eq) || !fold(v, OP_ADD, &acc, eq, at))
            return false;
    }
    return n ? (*out = acc, true) : vm_distrib(v, value_int(0), at, out);
}

/* any and all: the largest, or the smallest, of 0/1 outcomes */
static bool outcomes_any_all(vm *v, int id, const char *name, const value *args, const value *items, size_t n, span at,
                             value *out)
{
    if (!items)
        return vm_error(v, at, "%s() needs a list, not %s", name, value_type_name(args[0].type));
    value acc = value_nil();
    const dist *da, *db;
    for (size_t i = 0; i < n; i++) {
        value truth;
        if (!vm_dist_binary(v, OP_NE, items[i], value_int(0), at, &truth))
            return false;
        if (acc.type == V_NIL) {
            acc = truth;
            continue;
        }
        if (!vm_dist_of(v, acc, at, &da) || !vm_dist_of(v, truth, at, &db))
            return false;
        dist_error err = {.limits = &v->limits.exact};
        dist *r = id == BI_any ? dist_maximum(da, db, &err) : dist_minimum(da, db, &err);
        if (!r || !vm_dist_value(v, r, at, &acc))
            return r ? false : failed(v, at, &err);
    }
    return vm_distrib(v, value_int(id == BI_all), at, out) && (acc.type == V_NIL || (*out = acc, true));
}

/* Each builtin's function over outcomes, NULL for one that has none. */
#define OUTCOMES_VALUES NULL
#define OUTCOMES_OUTCOMES(fn) fn
#define OUTCOMES_LIST_OUTCOMES(fn) fn
#define OUTCOMES_DISTRIBS NULL
#define OUTCOMES_EXACT NULL
static outcomes_fn *const over_outcomes[BI_COUNT] = {
#define BUILTIN_ENTRY(name, lo, hi, result, rule, params, effect, args, layer, fn, meaning) OUTCOMES_##args,
#include "runtime/core/builtins.def"
#undef BUILTIN_ENTRY
};
#undef OUTCOMES_VALUES
#undef OUTCOMES_OUTCOMES
#undef OUTCOMES_LIST_OUTCOMES
#undef OUTCOMES_DISTRIBS
#undef OUTCOMES_EXACT

bool vm_dist_builtin(vm *v, int id, const char *name, const value *args, int argc, span at, value *out)
{
    size_t n = 0;
    const value *items = argc >= 1 && args[0].type == V_LIST ? vm_list_items(v, args[0], &n) : NULL;
    outcomes_fn *fn = id >= 0 && id < BI_COUNT ? over_outcomes[id] : NULL;
    if (fn)
        return fn(v, id, name, args, items, n, at, out);
    return vm_error(v, at,
                    "%s() has no exact distribution: it takes values, and here it is given the outcomes of dice "
                    "not rolled (roll them, or compute it in a procedure called inside prob())",
                    name);
}
