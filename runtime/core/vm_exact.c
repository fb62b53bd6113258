/* vm_exact: exact contexts, and the calls walked in them.
 *
 * Inside prob(), mean(), dist(), maximum() and minimum() the compiler turns
 * dice into distributions, and arithmetic on them is computed by
 * convolution (vm_dist.c). That is only right for code that does not look
 * at an outcome to decide what to do: a procedure that compares its
 * argument, branches or rolls dice of its own cannot be given a
 * distribution. So a procedure or check called in an exact context is
 * walked instead: run once for every combination of its arguments'
 * outcomes (each argument is one outcome, the same wherever the procedure
 * reads it) and of the faces of the dice it rolls itself (an rng oracle
 * draws them all, as `fray diff --profile` walks a turn), and the results,
 * weighted by their exact chances, make the distribution of the call.
 *
 * An argument that is dice is first walked by the outcomes of its total
 * (few: 16 for 3d6); when the procedure reads its faces (.natural when the
 * total does not tell it, .faces) it is walked again face by face, and when
 * the procedure rolls it itself (`roll x`, as an opposed roll does) it is
 * passed as the dice, for the procedure to roll as often as it says.
 *
 * Walking a procedure that changed the state of play would change it once
 * per outcome: that, and printing, is refused in an exact context, as is a
 * roll made outside any walked call (by a formula read there). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/core/chunk.h"
#include "runtime/dice/dist.h"
#include "runtime/base/mem.h"
#include "runtime/core/vm.h"

/* A path less likely than this is cut, and so is one that draws more than
   RNG_ORACLE_DEPTH times; what is cut must weigh less than
   VM_DIST_EPSILON in all, like an explosion's tail, or the call is
   refused. */
#define WALK_MIN_WEIGHT 1e-15

enum { ARG_FIXED, ARG_OUTCOME, ARG_FACES, ARG_DICE };

typedef struct walk_arg {
    value given;
    uint8_t mode;
    bool rolled;          /* written `roll E`: rolled as passed, and a roll of it passes it through */
    const struct dist *d; /* ARG_OUTCOME: its outcomes */
    size_t at;            /* ARG_OUTCOME: the outcome of this path, an index into d */
    bool natural_known;   /* ARG_OUTCOME: the natural die is the outcome less natural_less */
    int64_t natural_less;
    value passed; /* what this path passes */
} walk_arg;

struct vm_walk {
    rng_oracle oracle;
    walk_arg *args;
    int nargs;
    uint8_t mark; /* on the outcomes this walk passes */
    int escalate; /* the argument to walk again, more finely, or -1 */
    uint8_t escalate_to;
};

static const char *call_name(const vm *v, vm_exact_kind kind, int callee)
{
    if (kind == VM_EXACT_CHECK)
        return program_string(v->p, v->r->checks[callee].name);
    if (kind == VM_EXACT_CHUNK)
        return v->p->chunks[callee]->name;
    return program_string(v->p, v->p->decls[callee].name);
}

/* --- the context ------------------------------------------------------------------ */

bool vm_exact_enter(vm *v, span at)
{
    if (v->exact_depth >= VM_FRAMES_MAX)
        return vm_error(v, at, "exact distributions nested too deeply (limit is %d)", VM_FRAMES_MAX);
    v->exact_saved[v->exact_depth++] = (vm_exact_saved){v->walk, v->rng.oracle};
    v->walk = NULL;
    v->rng.oracle = &v->no_draws; /* a roll here goes the slow way, which refuses it */
    return true;
}

void vm_exact_leave(vm *v)
{
    if (v->exact_depth <= 0)
        return;
    const vm_exact_saved *s = &v->exact_saved[--v->exact_depth];
    v->walk = s->walk;
    v->rng.oracle = s->oracle;
}

void vm_exact_unwind(vm *v, int depth)
{
    while (v->exact_depth > depth)
        vm_exact_leave(v);
}

bool vm_peek_begin(vm *v, span at)
{
    v->world_ops->flush(v); /* a line waiting for its roll is written before what is shown */
    if (!vm_exact_enter(v, at))
        return false;
    v->peek_depth = v->exact_depth;
    return true;
}

void vm_peek_end(vm *v)
{
    vm_exact_unwind(v, v->peek_depth - 1);
    v->peek_depth = 0;
}

bool vm_exact_refuses(vm *v, span at, const char *what)
{
    if (!v->exact_depth)
        return false;
    vm_error(v, at,
             "cannot compute exactly: %s inside prob(), mean(), dist(), maximum() or minimum() would change the "
             "state of play, once for every outcome",
             what);
    return true;
}

/* --- outcomes passed as arguments -------------------------------------------------- */

/* The argument of the current walk that x is the outcome of, or NULL. */
static walk_arg *outcome_of(vm *v, value x)
{
    struct vm_walk *w = v->walk;
    if (!w || x.type != V_ROLL)
        return NULL;
    if (x.home & ROLL_OUTCOME) {
        if ((x.pad >> 8) != w->mark || (x.pad & 0xff) >= w->nargs)
            return NULL;
        return &w->args[x.pad & 0xff];
    }
    for (int i = 0; i < w->nargs; i++)
        if (w->args[i].mode == ARG_FACES && value_identical(w->args[i].passed, x))
            return &w->args[i];
    return NULL;
}

/* Stops this path, for the walk to start over with argument `a` walked
   in mode `to`. */
static bool escalate(vm *v, walk_arg *a, uint8_t to, span at)
{
    v->walk->escalate = (int)(a - v->walk->args);
    v->walk->escalate_to = to;
    return vm_error(v, at, "(the walk starts over)");
}

bool vm_exact_may_roll(vm *v, value x, span at)
{
    walk_arg *a = outcome_of(v, x);
    if (!a || a->rolled)
        return true; /* a number, or a roll as the call was given it: rolling it again passes it through */
    if (a->given.type != V_DICE)
        return vm_error(v, at,
                        "cannot compute exactly: this rolls an argument that is an outcome of a distribution, not "
                        "dice; pass the dice themselves");
    return escalate(v, a, ARG_DICE, at);
}

bool vm_exact_may_read_faces(vm *v, value x, bool natural, span at)
{
    walk_arg *a = outcome_of(v, x);
    if (!a || a->mode != ARG_OUTCOME || (natural && a->natural_known))
        return true;
    if (a->given.type != V_DICE)
        return vm_error(v, at,
                        "cannot compute exactly: this reads the faces of an argument that is an outcome of a "
                        "distribution, not of dice");
    return escalate(v, a, ARG_FACES, at);
}

/* The natural die of dice whose total tells it: one die kept (d20,
   2d20kh1, d20r1) plus numbers; *less is what the total has besides. */
static bool natural_from_total(const dexpr *dx, int64_t *less)
{
    int dice_terms = 0;
    int64_t sum = 0;
    for (int t = 0; t < dx->nterms; t++) {
        const dterm *term = &dx->terms[t];
        if (term->is_constant) {
            int64_t c;
            if (__builtin_mul_overflow(term->constant, (int64_t)term->times * term->sign, &c) ||
                __builtin_add_overflow(sum, c, &sum))
                return false;
            continue;
        }
        const dice *d = &term->d;
        int32_t kept = d->keep == DICE_KEEP_ALL                                ? d->count
                       : d->keep == DICE_KEEP_HIGH || d->keep == DICE_KEEP_LOW ? d->keep_n
                                                                               : d->count - d->keep_n;
        if (++dice_terms > 1 || term->sign != 1 || term->times != 1 || kept != 1 || d->explode != DICE_NO_EXPLODE ||
            d->success_cmp != DICE_CMP_NONE)
            return false;
    }
    *less = sum;
    return dice_terms == 1;
}

/* --- the walk ----------------------------------------------------------------------- */

/* The weight of the arguments' outcomes on this path, num / den (false
   when the product passes 128 bits), and as a double. */
static bool outcome_weight(const struct vm_walk *w, dist_count *num, dist_count *den, double *p)
{
    bool exact = true;
    *num = *den = 1;
    *p = 1;
    for (int i = 0; i < w->nargs; i++) {
        const walk_arg *a = &w->args[i];
        if (a->mode != ARG_OUTCOME)
            continue;
        dist_count wn, wd;
        int64_t x = dist_lowest(a->d) + (int64_t)a->at;
        if (dist_exact_p(a->d, x, &wn, &wd))
            exact = exact && !__builtin_mul_overflow(*num, wn, num) && !__builtin_mul_overflow(*den, wd, den);
        else
            exact = false;
        *p *= dist_p(a->d, x);
    }
    return exact;
}

/* An argument's outcome from index `from` on that has any chance. */
static bool outcome_from(walk_arg *a, size_t from)
{
    size_t n = (size_t)(dist_highest(a->d) - dist_lowest(a->d)) + 1;
    while (from < n && dist_p(a->d, dist_lowest(a->d) + (int64_t)from) == 0.0)
        from++;
    a->at = from;
    return from < n;
}

/* The first combination of the arguments' outcomes, or the next (as an
   odometer turns); false when there is none, or after the last. */
static bool next_outcomes(struct vm_walk *w, bool first)
{
    for (int i = 0; i < w->nargs; i++) {
        walk_arg *a = &w->args[i];
        if (a->mode != ARG_OUTCOME)
            continue;
        if (first) {
            if (!outcome_from(a, 0))
                return false;
            continue;
        }
        if (outcome_from(a, a->at + 1))
            return true;
        outcome_from(a, 0); /* this one turns over; the next one moves */
    }
    return first;
}

/* What argument i passes on this path; false on an error. */
static bool pass(vm *v, struct vm_walk *w, int i, span at)
{
    walk_arg *a = &w->args[i];
    switch (a->mode) {
    case ARG_OUTCOME: {
        int64_t x = dist_lowest(a->d) + (int64_t)a->at;
        a->passed = (value){.type = V_ROLL,
                            .home = (uint8_t)(ROLL_OUTCOME | (a->natural_known ? ROLL_NATURAL_KNOWN : 0)),
                            .pad = (uint16_t)(w->mark << 8 | i),
                            .aux = a->natural_known ? (int32_t)(x - a->natural_less) : 0,
                            .num = x};
        return true;
    }
    case ARG_FACES: return vm_roll(v, a->given, at, &a->passed);
    default: a->passed = a->given; return true;
    }
}

static bool run_call(vm *v, vm_exact_kind kind, int callee, int self, const value *args, int argc, span at, value *out)
{
    if (kind == VM_EXACT_CHECK)
        return v->world_ops->check(v, callee, args, argc, out, at);
    if (kind == VM_EXACT_CHUNK)
        return vm_call(v, callee, self, args, argc, out);
    const decl *d = &v->p->decls[callee];
    return vm_call(v, d->body, self, args, argc, out);
}

/* The distribution of what a path gave; false when it is no number. */
static bool result_dist(vm *v, const char *name, value r, span at, const struct dist **out)
{
    switch ((value_type)r.type) {
    case V_INT:
    case V_BOOL:
    case V_ROLL:
    case V_DICE:
    case V_DISTRIB: return vm_dist_of(v, r, at, out);
    case V_FRAC: {
        char shown[64];
        vm_format(v, r, shown, sizeof shown);
        return vm_error(v, at,
                        "cannot compute exactly: %s gives %s for some outcomes, and a distribution has whole-number "
                        "outcomes (round it)",
                        name, shown);
    }
    default:
        return vm_error(v, at, "cannot compute exactly: %s gives %s, not a number", name,
                        value_type_name((value_type)r.type));
    }
}

/* One walk over every path; false on an error (an escalation among them).
   A call with no outcome to walk that rolls nothing is no distribution:
   *plain is its value, whatever it is (a creature, a list), as outside. */
static bool walk(vm *v, struct vm_walk *w, vm_exact_kind kind, int callee, int self, span at, dist_mixer *mix,
                 double *cut, value *plain)
{
    bool fixed = true;
    for (int i = 0; i < w->nargs; i++)
        fixed &= w->args[i].mode == ARG_FIXED || w->args[i].mode == ARG_DICE;
    const char *name = call_name(v, kind, callee);
    value passed[256];
    uint64_t paths = 0, seq = v->roll_seq, face_pos = v->face_pos;
    dist_error err = {.limits = &v->limits.exact};
    if (!next_outcomes(w, true))
        return vm_error(v, at, "cannot compute exactly: an argument of %s has no outcome", name);
    do {
        dist_count onum, oden;
        double op;
        bool exact = outcome_weight(w, &onum, &oden, &op);
        w->oracle = (rng_oracle){.min_weight = WALK_MIN_WEIGHT};
        do {
            if (++paths > v->limits.exact.outcomes)
                return vm_error(v, at,
                                "cannot compute exactly: %s would be run more than %" PRIu64
                                " times, once for every outcome of its dice (see --limit outcomes=N)",
                                name, v->limits.exact.outcomes);
            rng_oracle_rewind(&w->oracle);
            /* each path rolls where the one before did: a walk keeps the
               breakdowns of earlier rolls as a few rolls would */
            v->roll_seq = seq;
            v->face_pos = face_pos;
            vm_mark mark = vm_scratch_mark(v);
            bool ok = true;
            for (int i = 0; ok && i < w->nargs; i++) {
                ok = pass(v, w, i, at);
                passed[i] = w->args[i].passed;
            }
            value r = value_nil();
            ok = ok && run_call(v, kind, callee, self, passed, w->nargs, at, &r);
            if (w->oracle.too_deep) { /* the path was cut: what it gave is not its own */
                *cut += op * w->oracle.weight;
                if (!ok)
                    vm_clear_error(v);
                vm_scratch_release(v, mark);
                continue;
            }
            if (!ok && v->steps_held <= 0 && w->escalate < 0) {
                /* the step limit, met by walking: say so in its terms */
                text_clear(&v->error);
                text_add(&v->error,
                         "cannot compute exactly: running %s for every outcome of its dice (%" PRIu64
                         " runs so far) takes more than %" PRIu64 " steps (see --max-steps)",
                         name, paths, v->limits.steps);
                v->error_at = at;
            }
            if (!ok)
                return false;
            if (w->oracle.diverged)
                return vm_error(v, at, "internal: %s did not roll the same dice twice on one path", name);
            if (fixed && paths == 1 && w->oracle.len == 0) {
                *plain = r; /* kept: what it made lives on in the scratch store */
                return true;
            }
            /* the path's chance: the outcomes', and 1/n for every draw */
            dist_count den = oden;
            bool path_exact = exact;
            for (int i = 0; path_exact && i < w->oracle.depth; i++)
                path_exact = !__builtin_mul_overflow(den, (dist_count)w->oracle.sides[i], &den);
            const struct dist *rd;
            if (!result_dist(v, name, r, at, &rd))
                return false;
            if (!dist_mixer_add(mix, rd, onum, path_exact ? den : 0, op * w->oracle.weight, &err))
                return vm_error(v, at, "%s", err.message);
            vm_scratch_release(v, mark);
        } while (rng_oracle_advance(&w->oracle));
    } while (next_outcomes(w, false));
    return true;
}

bool vm_exact_call(vm *v, vm_exact_kind kind, int callee, int self, const value *args, int argc, unsigned rolled,
                   span at, value *out)
{
    if (kind == VM_EXACT_PROCEDURE && v->p->decls[callee].body < 0)
        return vm_error(v, at, "procedure %s has no body", program_string(v->p, v->p->decls[callee].name));
    walk_arg *wargs = argc ? MEM_NEW_ARRAY(walk_arg, (size_t)argc) : NULL;
    if (argc && !wargs)
        return vm_error(v, at, "out of memory");
    struct vm_walk w = {.args = wargs, .nargs = argc, .mark = (uint8_t)++v->walks, .escalate = -1};
    for (int i = 0; i < argc; i++) {
        walk_arg *a = &wargs[i];
        *a = (walk_arg){.given = args[i], .rolled = i < 8 && (rolled >> i & 1)};
        if (args[i].type == V_DICE || args[i].type == V_DISTRIB)
            a->mode = ARG_OUTCOME;
    }
    bool ok = true;
    dist_mixer *mix = NULL;
    double cut = 0;
    value plain = {.type = V_TYPE_COUNT}; /* none yet */
    struct vm_walk *outer = v->walk;
    rng_oracle *outer_oracle = v->rng.oracle;
    uint64_t seq = v->roll_seq, face_pos = v->face_pos;
    for (;;) {
        for (int i = 0; ok && i < argc; i++) {
            walk_arg *a = &wargs[i];
            if (a->mode != ARG_OUTCOME)
                continue;
            ok = vm_dist_of(v, a->given, at, &a->d);
            const dexpr *dx = a->given.type == V_DICE ? vm_dexpr(v, a->given) : NULL;
            a->natural_known = dx && natural_from_total(dx, &a->natural_less);
        }
        dist_error err = {.limits = &v->limits.exact};
        mix = ok ? dist_mixer_new(&err) : NULL;
        if (ok && !mix)
            ok = vm_error(v, at, "%s", err.message);
        if (!ok)
            break;
        v->walk = &w;
        v->rng.oracle = &w.oracle;
        /* quiet: a check walked writes no line, and sets off no trigger */
        bool quiet = v->world_ops->quiet(v, true);
        cut = 0;
        ok = walk(v, &w, kind, callee, self, at, mix, &cut, &plain);
        v->walk = outer;
        v->rng.oracle = outer_oracle;
        v->world_ops->quiet(v, quiet);
        v->roll_seq = seq;
        v->face_pos = face_pos;
        if (ok || w.escalate < 0)
            break;
        /* an argument is needed more finely: walk again */
        wargs[w.escalate].mode = w.escalate_to;
        w.escalate = -1;
        vm_clear_error(v);
        ok = true;
        dist_mixer_free(mix);
        mix = NULL;
    }
    if (ok && cut > VM_DIST_EPSILON)
        ok = vm_error(v, at,
                      "cannot compute exactly: %s rolls more than %d dice on a way through it, or dice that go on "
                      "without end (%.3g of the chance is past that)",
                      call_name(v, kind, callee), RNG_ORACLE_DEPTH, cut);
    if (ok && plain.type != V_TYPE_COUNT) {
        *out = plain;
    } else if (ok) {
        dist_error err = {.limits = &v->limits.exact};
        struct dist *d = dist_mixer_finish(mix, &err);
        ok = d ? vm_dist_value(v, d, at, out) : vm_error(v, at, "%s", err.message);
    }
    dist_mixer_free(mix);
    if (wargs)
        mem_free(wargs, (size_t)argc * sizeof *wargs);
    return ok;
}
