/* vm: the interpreter loop and the value operations it needs. Every
 * instruction body is written once; the loop dispatches with computed goto
 * where the compiler supports it and a switch otherwise. */
#include "runtime/core/vm_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "runtime/dice/dist.h"
#include "runtime/base/mem.h"
#include "runtime/base/suggest.h"

static bool in_library(const vm *v, span at)
{
    return at.source < v->p->nsources && v->p->sources[at.source]->library;
}

/* An error inside a library module is the user's call into it: the
   innermost call made from the user's own text (a procedure's call, or a
   command or formula run from the table) is where it is reported. */
static void error_in_library(vm *v, span at)
{
    v->error_in = NULL;
    if (!v->p || !in_library(v, at))
        return;
    for (int k = v->nframes - 1; k >= 0; k--) {
        const span *call = v->frames[k].call;
        if (call && !in_library(v, *call)) {
            /* the library's chunk the user's text entered */
            int j = k;
            while (j < v->nframes - 1 && !in_library(v, v->frames[j].c->where))
                j++;
            v->error_inside = at;
            v->error_in = v->frames[j].c;
            v->error_at = *call;
            return;
        }
    }
}

/* The error convention is stated in vm.h, above vm_error. */
bool vm_error(vm *v, span at, const char *fmt, ...)
{
    if (v->failed)
        return false; /* keep the first error: it is the cause */
    va_list ap;
    va_start(ap, fmt);
    text_clear(&v->error);
    text_addv(&v->error, fmt, ap);
    va_end(ap);
    /* an allocation refused at the command's ceiling: say which limit */
    if (mem_ceiling_reached()) {
        text_clear(&v->error);
        text_add(&v->error, "memory limit reached (%zu MiB for one command; see --limit memory=N)",
                 v->limits.memory >> 20);
    }
    v->failed = true;
    v->steps_held = v->steps_left;
    v->steps_left = 0;
    v->error_at = at;
    error_in_library(v, at);
    return false;
}

void vm_clear_error(vm *v)
{
    if (!v->failed)
        return;
    v->failed = false;
    v->steps_left = v->steps_held;
}

vm *vm_new(program *p, uint64_t seed, const vm_limits *limits)
{
    vm *v = mem_alloc(sizeof(vm));
    if (!v)
        return NULL;
    memset(v, 0, offsetof(vm, stack));
    text_init(&v->error);
    v->p = p;
    v->r = p->rules;
    v->limits = limits ? *limits : vm_default_limits;
    v->seed = seed;
    v->steps_left = vm_step_budget(v);
    rng_seed(&v->rng, seed);
    v->rng.forced = &v->forced;
    v->sp = v->stack;
    return v;
}

void vm_free(vm *v)
{
    if (!v)
        return;
    text_free(&v->error);
    if (v->globals)
        mem_free(v->globals, v->globals_cap * sizeof(value));
    if (v->rolls)
        mem_free(v->rolls, v->roll_ring * sizeof(roll_record));
    if (v->roll_details)
        mem_free(v->roll_details, VM_ROLL_RING * sizeof(roll_detail));
    if (v->faces)
        mem_free(v->faces, VM_FACE_RING * sizeof(dice_face));
    vm_store *stores[2] = {&v->scratch, &v->kept};
    for (int i = 0; i < 2; i++) {
        if (stores[i]->dice)
            mem_free(stores[i]->dice, stores[i]->dice_cap * sizeof(dexpr));
        if (stores[i]->items)
            mem_free(stores[i]->items, stores[i]->items_cap * sizeof(value));
        if (stores[i]->lists)
            mem_free(stores[i]->lists, stores[i]->lists_cap * sizeof(vm_list));
        if (stores[i]->chars)
            mem_free(stores[i]->chars, stores[i]->chars_cap);
        if (stores[i]->strs)
            mem_free(stores[i]->strs, stores[i]->strs_cap * sizeof(size_t));
        vm_dist_free_store(stores[i]);
    }
    dice_forced_clear(&v->forced);
    mem_free(v, sizeof *v);
}

void vm_set_output(vm *v, vm_print_fn fn, void *user)
{
    v->print = fn;
    v->print_user = user;
}

/* --- arithmetic -------------------------------------------------------------------- */

static bool arith_fail(vm *v, arith_status st, span at, const char *what, value a, value b)
{
    if (st == ARITH_OVERFLOW)
        return vm_error(v, at, "number too large in %s", what);
    if (st == ARITH_TOO_FINE)
        return vm_error(v, at, "fraction too fine in %s: its denominator would pass %" PRId64, what, VALUE_DEN_MAX);
    if (st == ARITH_DIV_ZERO)
        return vm_error(v, at, "division by zero");
    return vm_error(v, at, "cannot %s %s and %s", what, value_type_name(a.type), value_type_name(b.type));
}

static bool is_num(value x)
{
    return x.type == V_INT || x.type == V_FRAC || x.type == V_ROLL;
}

/* A number with no fraction: an integer, or a roll (its total). */
static bool is_whole(value x)
{
    return x.type == V_INT || x.type == V_ROLL;
}

/* [a, b] + [c] is [a, b, c]: a new list. */
static bool list_concat(vm *v, value a, value b, span at, value *out)
{
    size_t na, nb;
    vm_list_items(v, a, &na);
    vm_list_items(v, b, &nb);
    if (!vm_make_list(v, NULL, na + nb, at, out))
        return false;
    /* read the parts only now: making the list may have moved their items */
    size_t n;
    value *dst = vm_list_slots(v, *out, &n);
    const value *pa = vm_list_items(v, a, &na), *pb = vm_list_items(v, b, &nb);
    for (size_t i = 0; i < na; i++)
        dst[i] = pa[i];
    for (size_t i = 0; i < nb; i++)
        dst[na + i] = pb[i];
    /* as deep as the deeper of the two */
    uint32_t da = vm_list_depth(v, a), db = vm_list_depth(v, b);
    v->scratch.lists[out->num].depth = da > db ? da : db;
    return true;
}

static bool do_add(vm *v, value a, value b, int sign, span at, value *out)
{
    const char *what = sign > 0 ? "add" : "subtract";
    if (a.type == V_LIST && b.type == V_LIST && sign > 0)
        return list_concat(v, a, b, at, out);
    if (a.type == V_DICE || b.type == V_DICE) {
        if (a.type != V_DICE) { /* n + dice == dice + n; n - dice == -(dice) + n */
            value neg;
            if (!vm_dice_scale(v, b, sign, at, &neg))
                return false;
            return vm_dice_add(v, neg, a, 1, at, out);
        }
        return vm_dice_add(v, a, b, sign, at, out);
    }
    if (is_num(a) && is_num(b)) {
        arith_status st = rat_add(value_as_frac(a), value_as_frac(b), V_INT, out, sign);
        return st == ARITH_OK || arith_fail(v, st, at, what, a, b);
    }
    if (a.type == V_DIST && b.type == V_DIST) {
        arith_status st = rat_add(a, b, V_DIST, out, sign);
        return st == ARITH_OK || arith_fail(v, st, at, what, a, b);
    }
    if (a.type == V_ENUM && b.type == V_ENUM && a.aux == b.aux && sign < 0) {
        /* steps between members: large - average == 1 */
        *out = value_int(a.num - b.num);
        return true;
    }
    if (a.type == V_TIME && b.type == V_TIME) {
        if (a.home != b.home)
            return vm_error(v, at, "cannot %s %s and %s", what, rules_time_name(v->p, (time_kind)a.home, 2),
                            rules_time_name(v->p, (time_kind)b.home, 2));
        int64_t n;
        if (sign > 0 ? __builtin_add_overflow(a.num, b.num, &n) : __builtin_sub_overflow(a.num, b.num, &n))
            return arith_fail(v, ARITH_OVERFLOW, at, what, a, b);
        *out = value_time((time_kind)a.home, n);
        return true;
    }
    return arith_fail(v, ARITH_TYPE, at, what, a, b);
}

static bool do_mul(vm *v, value a, value b, span at, value *out)
{
    if (a.type == V_DICE && is_num(b) && value_as_frac(b).type == V_INT)
        return vm_dice_scale(v, a, b.num, at, out);
    if (b.type == V_DICE && is_num(a) && value_as_frac(a).type == V_INT)
        return vm_dice_scale(v, b, a.num, at, out);
    if (is_num(a) && is_num(b)) {
        arith_status st = rat_mul(value_as_frac(a), value_as_frac(b), V_INT, out);
        return st == ARITH_OK || arith_fail(v, st, at, "multiply", a, b);
    }
    if ((a.type == V_DIST && is_num(b)) || (is_num(a) && b.type == V_DIST)) {
        arith_status st = rat_mul(value_as_frac(a), value_as_frac(b), V_DIST, out);
        return st == ARITH_OK || arith_fail(v, st, at, "multiply", a, b);
    }
    if ((a.type == V_TIME && is_num(b)) || (is_num(a) && b.type == V_TIME)) {
        value t = a.type == V_TIME ? a : b, k = value_as_frac(a.type == V_TIME ? b : a);
        int64_t n;
        if (k.type != V_INT)
            return vm_error(v, at, "a duration can only be multiplied by a whole number");
        if (__builtin_mul_overflow(t.num, k.num, &n))
            return arith_fail(v, ARITH_OVERFLOW, at, "multiply", a, b);
        *out = value_time((time_kind)t.home, n);
        return true;
    }
    return arith_fail(v, ARITH_TYPE, at, "multiply", a, b);
}

static bool do_div(vm *v, value a, value b, bool floor_div, span at, value *out)
{
    value_type rt;
    if (is_num(a) && is_num(b))
        rt = V_INT;
    else if (a.type == V_DIST && is_num(b))
        rt = V_DIST;
    else if (a.type == V_DIST && b.type == V_DIST)
        rt = V_INT;
    else if (a.type == V_TIME && is_num(b)) {
        value k = value_as_frac(b);
        if (k.type != V_INT || k.num == 0)
            return vm_error(v, at,
                            k.num == 0 ? "division by zero" : "a duration can only be divided by a whole number");
        /* in 128 bits: -2^63 / -1 is the one quotient past 64 */
        __int128 q = (__int128)a.num / k.num;
        if (floor_div && (__int128)a.num % k.num != 0 && (a.num < 0) != (k.num < 0))
            q--;
        if (q > INT64_MAX)
            return arith_fail(v, ARITH_OVERFLOW, at, "divide", a, b);
        *out = value_time((time_kind)a.home, (int64_t)q);
        return true;
    } else
        return arith_fail(v, ARITH_TYPE, at, "divide", a, b);
    value bb = b.type == V_DIST ? value_ratio(V_FRAC, b.num, value_den(b)) : value_as_frac(b);
    value aa = a.type == V_DIST && rt == V_INT ? value_ratio(V_FRAC, a.num, value_den(a)) : value_as_frac(a);
    arith_status st = rat_div(aa, bb, rt, out);
    if (st != ARITH_OK)
        return arith_fail(v, st, at, "divide", a, b);
    if (floor_div) {
        int64_t f = value_floor(*out);
        if (out->type == V_DIST)
            *out = value_ratio(V_DIST, f, 1);
        else
            *out = value_int(f);
    }
    return true;
}

/* The same dice written the same way (`2d6 + 1`), wherever they were built. */
static __attribute__((noinline)) bool same_dice(const vm *v, value a, value b)
{
    if (!vm_dexpr(v, a) || !vm_dexpr(v, b))
        return false;
    text_buf ta, tb;
    text_init(&ta);
    text_init(&tb);
    vm_format_text((vm *)v, a, &ta); /* dice are written without changing anything */
    vm_format_text((vm *)v, b, &tb);
    bool same = !ta.cut && !tb.cut && !strcmp(ta.s, tb.s);
    text_free(&ta);
    text_free(&tb);
    return same;
}

static bool values_equal(const vm *v, value a, value b)
{
    if (is_num(a) && is_num(b))
        return rat_cmp(value_as_frac(a), value_as_frac(b)) == 0;
    /* a word reads as its text: cover(a, b) == "half" */
    if ((a.type == V_WORD && b.type == V_STR) || (a.type == V_STR && b.type == V_WORD))
        return strcmp(vm_string(v, a), vm_string(v, b)) == 0;
    if (a.type != b.type)
        return false;
    switch ((value_type)a.type) {
    case V_NIL: return true;
    case V_DIST: return rat_cmp(a, b) == 0;
    case V_TIME:
    case V_SQUARE:
    case V_ENUM: return a.home == b.home && a.aux == b.aux && a.num == b.num;
    case V_STR:
    case V_WORD:
        if (a.home == b.home && a.home == HOME_PROGRAM)
            return a.num == b.num; /* interned */
        return strcmp(vm_string(v, a), vm_string(v, b)) == 0;
    case V_DICE: return (a.home == b.home && a.num == b.num) || same_dice(v, a, b);
    default: return a.num == b.num && a.home == b.home;
    }
}

/* a == b: lists by value, item by item, each item a step of the budget (a
   list may hold another many times over) and each level down counted
   against the nesting limit. False on an error, *equal otherwise. */
static bool equal_values(vm *v, value a, value b, span at, int depth, bool *equal)
{
    if (a.type != V_LIST || b.type != V_LIST || (a.home == b.home && a.num == b.num)) {
        *equal = values_equal(v, a, b);
        return true;
    }
    if (!vm_nesting_ok(v, (uint32_t)depth, at))
        return false;
    size_t na, nb;
    const value *ia = vm_list_items(v, a, &na), *ib = vm_list_items(v, b, &nb);
    *equal = na == nb;
    for (size_t i = 0; i < na && *equal; i++) { /* comparing makes nothing: the items stay put */
        if (--v->steps_left < 0)
            return vm_out_of_steps(v, at);
        if (!equal_values(v, ia[i], ib[i], at, depth + 1, equal))
            return false;
    }
    return true;
}

bool vm_values_equal(vm *v, value a, value b, span at, bool *equal)
{
    return equal_values(v, a, b, at, 1, equal);
}

static bool do_compare(vm *v, value a, value b, span at, int *cmp)
{
    if (is_whole(a) && is_whole(b)) { /* the usual case: no fractions to cross-multiply */
        *cmp = (a.num > b.num) - (a.num < b.num);
        return true;
    }
    if (a.type == V_BOOL && b.type == V_BOOL) { /* min/max of outcomes in prob() */
        *cmp = (a.num > b.num) - (a.num < b.num);
        return true;
    }
    if (is_num(a) && is_num(b)) {
        *cmp = rat_cmp(value_as_frac(a), value_as_frac(b));
        return true;
    }
    if (a.type == V_DIST && b.type == V_DIST) {
        *cmp = rat_cmp(a, b);
        return true;
    }
    if (a.type == V_TIME && b.type == V_TIME && a.home == b.home) {
        *cmp = (a.num > b.num) - (a.num < b.num);
        return true;
    }
    if (a.type == V_ENUM && b.type == V_ENUM && a.aux == b.aux) {
        *cmp = (a.num > b.num) - (a.num < b.num);
        return true;
    }
    if (a.type == V_DICE || b.type == V_DICE)
        return vm_error(v, at, "cannot compare dice before they are rolled");
    return vm_error(v, at, "cannot compare %s and %s", value_type_name(a.type), value_type_name(b.type));
}

/* --- the loop ---------------------------------------------------------------------- */

#define READ_U8() (*ip++)
#define READ_U16() (ip += 2, (uint16_t)(ip[-2] | ip[-1] << 8))
/* SP is the stack top: v->sp, except in run()'s first instructions */
#define SP v->sp
#define PUSH(x) (*SP++ = (x))
#define POP() (*--SP)
#define PEEK(n) (SP[-1 - (n)])

static span op_span(const frame *f, const uint8_t *ip)
{
    return f->c->spans[ip - f->c->code];
}

/* at: where the call is, for an error only (a pointer: most calls never
   need it, so it is not built for them) */
static inline bool push_frame(vm *v, const chunk *c, int self, int nargs, const span *at)
{
    if (v->nframes >= VM_FRAMES_MAX || v->nframes >= v->limits.call_depth)
        return vm_error(
            v, *at, "calls nested too deeply (limit is %d; a rule that calls or triggers itself? see --limit depth=N)",
            v->limits.call_depth);
    /* room for all it may hold at once, from its base (its arguments) */
    if ((uint64_t)(v->sp - v->stack) - (uint64_t)nargs + c->max_stack + VM_STACK_SLACK > VM_STACK_MAX)
        return vm_error(v, *at, "stack limit reached (%d values)", VM_STACK_MAX);
    if (nargs != c->nparams) {
        /* pad missing optional parameters (an action's target) with nothing */
        while (nargs < c->nparams) {
            PUSH(value_nil());
            nargs++;
        }
        if (nargs > c->nparams)
            return vm_error(v, *at, "%s takes %d argument%s, not %d", c->name, c->nparams, c->nparams == 1 ? "" : "s",
                            nargs);
    }
    frame *f = &v->frames[v->nframes++];
    f->c = c;
    f->ip = c->code;
    f->base = v->sp - nargs;
    f->self = self;
    f->call = at;
    return true;
}

/* Runs until the frame at depth `stop` returns; its result is left on the
 * stack. Aligned to a cache line, so that its hot blocks keep their
 * alignment when code before it grows or shrinks: a shift of 48 bytes
 * once made a loop of `d20 + 5` rolls 1.6 times slower, with the same
 * instructions. */
__attribute__((aligned(64))) static bool run(vm *v, int stop)
{
    frame *f = &v->frames[v->nframes - 1];
    /* the running frame's ip lives here; its frame has it only while
       another frame runs above it */
    /* op_ip: where the running instruction began, for its errors' spans;
       set by the instructions that call out, and by the others only on
       their way to an error, so that the loop need not hold it */
    const uint8_t *ip = f->ip, *op_ip;
    /* the stack top of the instructions that call nothing that uses it:
       kept in a register, not reloaded from v->sp by each of them */
    value *sp;
    value a, b, r;
    int cmp;
    bool equal;

#ifdef FRAY_COMPUTED_GOTO
    static void *const dispatch[OP_COUNT] = {
#define OP(name, operands, effect, meaning) &&op_##name,
#include "runtime/core/opcodes.def"
#undef OP
    };
#define LABEL(name) op_##name:
#define DISPATCH() goto *dispatch[*ip++];
#else
#define LABEL(name) case OP_##name:
#define DISPATCH() switch ((opcode)*ip++)
#endif
#undef SP
#define SP sp
#define CASE(name) LABEL(name)
#define NEXT goto next
#define HERE op_span(f, op_ip)
/* the same as a pointer, for a call that needs it only on an error */
#define HERE_AT (&f->c->spans[op_ip - f->c->code])
/* a binary instruction: pop b then a; distributions take their own path */
#define BINARY(op, body)                                     \
    {                                                        \
        b = POP();                                           \
        a = POP();                                           \
        if (a.type == V_DISTRIB || b.type == V_DISTRIB) {    \
            FAIL_IF(!vm_dist_binary(v, op, a, b, HERE, &r)); \
            PUSH(r);                                         \
            NEXT;                                            \
        }                                                    \
        body;                                                \
        NEXT;                                                \
    }
/* two lists out of line: they are walked, and may fail */
#define EQUAL(a, b)                                           \
    do {                                                      \
        if (is_whole(a) && is_whole(b))                       \
            equal = (a).num == (b).num;                       \
        else if ((a).type != V_LIST || (b).type != V_LIST)    \
            equal = values_equal(v, a, b);                    \
        else                                                  \
            FAIL_IF(!equal_values(v, a, b, HERE, 1, &equal)); \
    } while (0)
/* a sum of two integers inline, unless it overflows (do_add says so) */
#define SUM(a, b, sign)                                                      \
    do {                                                                     \
        int64_t sum_;                                                        \
        if ((a).type == V_INT && (b).type == V_INT &&                        \
            !((sign) > 0 ? __builtin_add_overflow((a).num, (b).num, &sum_)   \
                         : __builtin_sub_overflow((a).num, (b).num, &sum_))) \
            r = value_int(sum_);                                             \
        else                                                                 \
            FAIL_IF(!do_add(v, a, b, sign, HERE, &r));                       \
    } while (0)
/* whole numbers inline; the rest (and the error's location) out of line */
#define COMPARE(a, b)                                        \
    do {                                                     \
        if (is_whole(a) && is_whole(b))                      \
            cmp = ((a).num > (b).num) - ((a).num < (b).num); \
        else                                                 \
            FAIL_IF(!do_compare(v, a, b, HERE, &cmp));       \
    } while (0)
#define FAIL_IF(cond)  \
    do {               \
        if (cond)      \
            goto fail; \
    } while (0)
/* A call into the world, which may run other chunks: they were called
   from this instruction (entry_at), for an error in a library they reach. */
#define WORLD_CALL(call)                       \
    do {                                       \
        const span *outer_entry = v->entry_at; \
        v->entry_at = HERE_AT;                 \
        bool world_done = (call);              \
        v->entry_at = outer_entry;             \
        FAIL_IF(!world_done);                  \
    } while (0)

next_reload:
    sp = v->sp;
next:
    /* the one check per instruction: an error empties the budget too,
       and a signed count lets the decrement's sign be the test */
    if (__builtin_expect(--v->steps_left < 0, 0))
        goto out_of_steps;
    DISPATCH()
    {
        /* These first instructions call nothing that reads or moves the
           stack, so its top stays in sp, a register, rather than going
           through v->sp in memory at every push and pop (what makes a
           loop of rolls wait on its own stores). An error needs no
           write-back: fail sets the stack top from the frames. */
        CASE(CONST)
        {
            PUSH(f->c->consts[READ_U16()]);
            NEXT;
        }
        CASE(NIL)
        {
            PUSH(value_nil());
            NEXT;
        }
        CASE(TRUE)
        {
            PUSH(value_bool(true));
            NEXT;
        }
        CASE(FALSE)
        {
            PUSH(value_bool(false));
            NEXT;
        }
        CASE(POP)
        {
            SP--;
            NEXT;
        }
        CASE(DUP)
        {
            a = PEEK(0);
            PUSH(a);
            NEXT;
        }
        CASE(GET_LOCAL)
        {
            PUSH(f->base[READ_U8()]);
            NEXT;
        }
        CASE(SET_LOCAL)
        {
            f->base[READ_U8()] = POP();
            NEXT;
        }
        CASE(GET_GLOBAL)
        {
            uint16_t g = READ_U16();
            PUSH(g < v->globals_cap ? v->globals[g] : value_nil());
            NEXT;
        }
        CASE(SELF)
        {
            PUSH(f->self >= 0 ? value_ref(V_CREATURE, 0, f->self) : value_nil());
            NEXT;
        }
        CASE(JUMP)
        {
            int16_t off = (int16_t)READ_U16();
            ip += off;
            NEXT;
        }
        CASE(JUMP_IF_FALSE)
        {
            int16_t off = (int16_t)READ_U16();
            a = POP();
            if (__builtin_expect(a.type == V_BOOL, 1)) { /* a comparison's: no call to look at it */
                ip += a.num ? 0 : off;
                NEXT;
            }
            if (__builtin_expect(a.type == V_DISTRIB, 0))
                goto branch_on_distribution;
            if (!value_truthy(a))
                ip += off;
            NEXT;
        }
/* `and` stops at a false left side, `or` at a true one: that side,
   as a boolean, is the result; else it goes and the right side follows */
#define SHORT_CIRCUIT(stop_at)                              \
    {                                                       \
        int16_t off = (int16_t)READ_U16();                  \
        if (__builtin_expect(PEEK(0).type == V_DISTRIB, 0)) \
            goto branch_on_distribution;                    \
        if (value_truthy(PEEK(0)) == (stop_at)) {           \
            SP[-1] = value_bool(stop_at);                   \
            ip += off;                                      \
        } else                                              \
            SP--;                                           \
        NEXT;                                               \
    }
        // clang-format off
        CASE(AND_JUMP) SHORT_CIRCUIT(false);
        CASE(OR_JUMP) SHORT_CIRCUIT(true);
        // clang-format on
        CASE(REPEAT_NEXT)
        {
            int16_t off = (int16_t)READ_U16();
            value *count = &SP[-1];
            if (__builtin_expect(count->type == V_INT, 1)) { /* the usual count: no fractions to floor */
                if (count->num < 1)
                    ip += off;
                else
                    count->num--;
                NEXT;
            }
            a = *count;
            if (!is_num(a)) {
                op_ip = ip - 3;
                vm_error(v, HERE, "'repeat' needs a count, not %s", value_type_name(a.type));
                goto fail;
            }
            if (value_floor(value_as_frac(a)) < 1) {
                ip += off;
                NEXT;
            }
            SP[-1] = value_int(value_floor(value_as_frac(a)) - 1);
            NEXT;
        }
        CASE(ROLL_CONST)
        {
            /* straight into its stack slot: a copy through r would reload
               the fresh 16 bytes before the stores that wrote them retire */
            uint16_t index = READ_U16();
            if (__builtin_expect(!vm_roll_packed(v, index, SP), 0)) {
                op_ip = ip - 3;
                FAIL_IF(!vm_roll_program_slow(v, index, HERE_AT, SP));
            }
            SP++;
            NEXT;
        }
        /* From here on the stack top is v->sp: these instructions call
           out, and what they call pushes and pops there too. Each stores
           sp on entry (and notes where it began, op_ip), and NEXT reloads
           it. */
#undef SP
#undef CASE
#undef NEXT
#define SP v->sp
#define CASE(name) LABEL(name) v->sp = sp, op_ip = ip - 1;
#define NEXT goto next_reload
        CASE(SET_GLOBAL)
        {
            uint16_t g = READ_U16();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "setting a variable"));
            vm_play_changed(v);
            if (g >= v->globals_cap) {
                size_t old = v->globals_cap;
                value *grown = mem_grow(v->globals, sizeof(value), &v->globals_cap, (size_t)g + 1);
                FAIL_IF(!grown && !vm_error(v, HERE, "out of memory"));
                v->globals = grown;
                for (size_t i = old; i < v->globals_cap; i++)
                    v->globals[i] = value_nil();
            }
            value kept;
            FAIL_IF(!vm_keep(v, POP(), HERE, &kept));
            v->globals[g] = kept;
            NEXT;
        }
        CASE(GET_STAT)
        {
            uint16_t d = READ_U16();
            a = POP();
            if (a.type == V_WORD) {
                FAIL_IF(!v->world_ops->side_stat(v, a, d, NULL, &r, HERE));
                f = &v->frames[v->nframes - 1];
                PUSH(r);
                NEXT;
            }
            if (a.type != V_CREATURE) {
                const char *stat = program_string(v->p, v->p->decls[d].name);
                if (a.type == V_NIL)
                    vm_error(v, HERE, "'%s' needs a creature: none is acting here (write creature.%s)", stat, stat);
                else
                    vm_error(v, HERE, "%s has no stat '%s'", value_type_name(a.type), stat);
                goto fail;
            }
            FAIL_IF(!v->world_ops->get_stat(v, (int)a.num, d, &r));
            f = &v->frames[v->nframes - 1];
            PUSH(r);
            NEXT;
        }
        CASE(SET_STAT)
        {
            uint16_t d = READ_U16();
            b = POP();
            a = POP();
            if (a.type == V_WORD) {
                vm_play_changed(v);
                FAIL_IF(!v->world_ops->side_stat(v, a, d, &b, &r, HERE));
                f = &v->frames[v->nframes - 1];
                NEXT;
            }
            if (a.type != V_CREATURE) {
                vm_error(v, HERE, "cannot set '%s' on %s", program_string(v->p, v->p->decls[d].name),
                         value_type_name(a.type));
                goto fail;
            }
            FAIL_IF(!v->world_ops->set_stat(v, (int)a.num, d, b, HERE));
            f = &v->frames[v->nframes - 1];
            NEXT;
        }
        CASE(ECHO_STAT)
        {
            uint16_t d = READ_U16();
            a = POP();
            if (a.type == V_CREATURE) {
                FAIL_IF(!v->world_ops->echo_stat(v, (int)a.num, d, HERE));
                f = &v->frames[v->nframes - 1];
            }
            NEXT;
        }
        CASE(INDEX)
        {
            b = POP();
            a = POP();
            if (a.type != V_LIST) {
                vm_error(v, HERE, "only a list can be indexed, not %s", value_type_name(a.type));
                goto fail;
            }
            if (!is_whole(b)) { /* a roll is its total */
                vm_error(v, HERE, "a list's index is a whole number, not %s", value_type_name(b.type));
                goto fail;
            }
            size_t n;
            const value *items = vm_list_items(v, a, &n);
            int64_t i = b.num < 0 ? (int64_t)n + b.num : b.num;
            if (i < 0 || (uint64_t)i >= n) {
                vm_error(v, HERE, "index %" PRId64 " is outside the list (it has %zu element%s)", b.num, n,
                         n == 1 ? "" : "s");
                goto fail;
            }
            PUSH(items[i]);
            NEXT;
        }
        CASE(GET_MEMBER)
        {
            /* the member's name, interned: its id is the one to look up by */
            int name_id = READ_U16();
            const char *name = program_string(v->p, name_id);
            a = POP();
            if (a.type == V_ROLL) {
                FAIL_IF(!vm_roll_member(v, a, name, HERE, &r));
                PUSH(r);
                NEXT;
            }
            if (a.type == V_LIST) {
                /* list.stat maps: party.dex is the list of their dex */
                size_t n;
                const value *items = vm_list_items(v, a, &n);
                const decl *sd = program_find_decl(v->p, DK_STAT, name_id);
                if (!sd)
                    sd = program_find_decl(v->p, DK_RESOURCE, name_id);
                if (!sd) {
                    vm_error(v, HERE, "no stat '%s' to read from a list", name);
                    goto fail;
                }
                /* reading a stat may build lists and move the store: the
                   items are copied first (a list of any length) */
                vm_gather src = {0}, got = {0};
                bool ok = true;
                for (size_t i = 0; i < n && ok; i++)
                    ok = vm_gather_add(v, &src, items[i], HERE);
                for (size_t i = 0; i < n && ok; i++) {
                    value it = src.items[i], stat;
                    if (it.type != V_CREATURE)
                        ok = vm_error(v, HERE, "%s has no stat '%s'", value_type_name(it.type), name);
                    else
                        ok = v->world_ops->get_stat(v, (int)it.num, program_decl_index(v->p, sd), &stat) &&
                             vm_gather_add(v, &got, stat, HERE);
                }
                vm_gather_drop(&src);
                if (!ok)
                    vm_gather_drop(&got);
                FAIL_IF(!ok);
                f = &v->frames[v->nframes - 1];
                FAIL_IF(!vm_gather_list(v, &got, HERE, &r));
                PUSH(r);
                NEXT;
            }
            if (a.type == V_CREATURE && v->world_ops->creature_member(v, (int)a.num, name, &r)) {
                PUSH(r);
                NEXT;
            }
            if (a.type == V_ITEM) {
                const value *pv = rules_item_prop(v->r, (int)a.num, name_id);
                if (!pv) {
                    vm_error(v, HERE, "%s has no property '%s'", program_string(v->p, v->r->items[a.num].name), name);
                    goto fail;
                }
                PUSH(*pv);
                NEXT;
            }
            if (a.type == V_CREATURE) {
                /* a stat mistyped on a parameter, which no compile could check */
                suggestion near;
                suggest_init(&near, name);
                for (size_t i = 0; i < v->p->ndecls; i++)
                    if ((v->p->decls[i].kind == DK_STAT || v->p->decls[i].kind == DK_RESOURCE) &&
                        v->p->decls[i].name >= 0)
                        suggest_consider(&near, program_string(v->p, v->p->decls[i].name), 0);
                if (near.found) {
                    vm_error(v, HERE, "a creature has no stat '%s'; did you mean '%s'?", name, near.best);
                    goto fail;
                }
            }
            vm_error(v, HERE, "%s has no member '%s'", value_type_name(a.type), name);
            goto fail;
        }
        CASE(EVAL_DECL)
        {
            const decl *latest = v->world_ops->standing(v, READ_U16());
            a = POP();
            FAIL_IF(a.type != V_CREATURE && a.type != V_NIL &&
                    !vm_error(v, HERE, "%s has no %s", value_type_name(a.type), program_string(v->p, latest->name)));
            FAIL_IF(!vm_call(v, latest->value, a.type == V_CREATURE ? (int)a.num : -1, NULL, 0, &r));
            f = &v->frames[v->nframes - 1];
            PUSH(r);
            NEXT;
        }
        // clang-format off
        CASE(ADD) BINARY(OP_ADD, SUM(a, b, 1); PUSH(r));
        CASE(SUB) BINARY(OP_SUB, SUM(a, b, -1); PUSH(r));
        CASE(MUL) BINARY(OP_MUL, FAIL_IF(!do_mul(v, a, b, HERE, &r)); PUSH(r));
        CASE(DIV) BINARY(OP_DIV, FAIL_IF(!do_div(v, a, b, false, HERE, &r)); PUSH(r));
        CASE(IDIV) BINARY(OP_IDIV, FAIL_IF(!do_div(v, a, b, true, HERE, &r)); PUSH(r));
        // clang-format on
        CASE(NEG)
        {
            a = POP();
            if (a.type == V_DICE) {
                FAIL_IF(!vm_dice_scale(v, a, -1, HERE, &r));
            } else if (a.type == V_DISTRIB) {
                FAIL_IF(!vm_dist_binary(v, OP_MUL, value_int(-1), a, HERE, &r));
            } else if (is_num(a) || a.type == V_DIST) {
                if (a.num == INT64_MIN) {
                    vm_error(v, HERE, "number too large to negate");
                    goto fail;
                }
                r = a.type == V_ROLL ? value_int(-a.num) : a;
                r.num = -a.num;
            } else {
                vm_error(v, HERE, "cannot negate %s", value_type_name(a.type));
                goto fail;
            }
            PUSH(r);
            NEXT;
        }
        CASE(NOT)
        {
            a = POP();
            if (a.type == V_DISTRIB) {
                FAIL_IF(!vm_dist_binary(v, OP_EQ, a, value_int(0), HERE, &r));
                PUSH(r);
                NEXT;
            }
            PUSH(value_bool(!value_truthy(a)));
            NEXT;
        }
        // clang-format off
        CASE(EQ) BINARY(OP_EQ, EQUAL(a, b); PUSH(value_bool(equal)));
        CASE(NE) BINARY(OP_NE, EQUAL(a, b); PUSH(value_bool(!equal)));
        CASE(LT) BINARY(OP_LT, COMPARE(a, b); PUSH(value_bool(cmp < 0)));
        CASE(LE) BINARY(OP_LE, COMPARE(a, b); PUSH(value_bool(cmp <= 0)));
        CASE(GT) BINARY(OP_GT, COMPARE(a, b); PUSH(value_bool(cmp > 0)));
        CASE(GE) BINARY(OP_GE, COMPARE(a, b); PUSH(value_bool(cmp >= 0)));
        // clang-format on
        CASE(INTERVAL)
        {
            /* lo..hi of integers is the list of every integer between */
            b = POP();
            a = POP();
            if (!is_whole(a) || !is_whole(b)) { /* a roll is its total */
                vm_error(v, HERE, "an interval needs two whole numbers, not %s and %s", value_type_name(a.type),
                         value_type_name(b.type));
                goto fail;
            }
            /* the span in unsigned arithmetic: INT64_MIN..INT64_MAX passes 63 bits */
            if (b.num < a.num || (uint64_t)b.num - (uint64_t)a.num >= v->limits.list_values) {
                if (b.num < a.num)
                    FAIL_IF(!vm_make_list(v, NULL, 0, HERE, &r));
                else {
                    vm_error(v, HERE, "interval too long (limit is %zu values)", v->limits.list_values);
                    goto fail;
                }
            } else {
                size_t n = (size_t)(b.num - a.num) + 1;
                FAIL_IF(!vm_make_list(v, NULL, n, HERE, &r));
                size_t len;
                value *items = vm_list_slots(v, r, &len);
                for (size_t i = 0; i < len; i++)
                    items[i] = value_int(a.num + (int64_t)i);
            }
            PUSH(r);
            NEXT;
        }
        CASE(ROLL)
        {
            a = POP();
            FAIL_IF(!vm_roll(v, a, HERE, &r));
            PUSH(r);
            NEXT;
        }
        CASE(DISTRIB)
        {
            a = POP();
            if (a.type == V_DICE)
                FAIL_IF(!vm_distrib(v, a, HERE, &r));
            else
                r = a;
            PUSH(r);
            NEXT;
        }
        CASE(CHOOSE)
        {
            value fv = POP(), tv = POP(), cv = POP();
            if (cv.type == V_DISTRIB || tv.type == V_DISTRIB || fv.type == V_DISTRIB)
                FAIL_IF(!vm_dist_choose(v, cv, tv, fv, HERE, &r));
            else
                r = value_truthy(cv) ? tv : fv;
            PUSH(r);
            NEXT;
        }
        CASE(ROLL_SUM)
        {
            int n = READ_U8();
            unsigned negative = READ_U8();
            FAIL_IF(!vm_roll_sum(v, SP - n, n, negative, HERE, &r));
            SP -= n;
            PUSH(r);
            NEXT;
        }
        CASE(ITER_NEXT)
        {
            int16_t off = (int16_t)READ_U16();
            value list = PEEK(1), index = PEEK(0);
            size_t n;
            const value *items = vm_list_items(v, list, &n);
            if (list.type != V_LIST) {
                vm_error(v, HERE, "'for' needs a list, not %s", value_type_name(list.type));
                goto fail;
            }
            if ((size_t)index.num >= n) {
                ip += off;
                NEXT;
            }
            SP[-1].num++;
            PUSH(items[index.num]);
            NEXT;
        }
        CASE(CALL_BUILTIN)
        {
            int id = READ_U8(), argc = READ_U8();
            value *args = SP - argc;
            WORLD_CALL(vm_builtin_call(v, id, args, argc, HERE, &r));
            SP -= argc;
            PUSH(r);
            NEXT;
        }
        CASE(CALL_CHUNK)
        {
            int body = READ_U16(), argc = READ_U8();
            f->ip = ip;
            FAIL_IF(!push_frame(v, v->p->chunks[body], f->self, argc, &f->c->spans[op_ip - f->c->code]));
            f = &v->frames[v->nframes - 1];
            ip = f->ip;
            NEXT;
        }
        CASE(CALL_CHUNK_EXACT)
        {
            int body = READ_U16(), argc = READ_U8();
            unsigned rolled = READ_U8();
            FAIL_IF(!vm_exact_call(v, VM_EXACT_CHUNK, body, f->self, SP - argc, argc, rolled, HERE, &r));
            f = &v->frames[v->nframes - 1];
            SP -= argc;
            PUSH(r);
            NEXT;
        }
        CASE(CALL_EXACT)
        {
            const decl *latest = v->world_ops->standing(v, READ_U16());
            int argc = READ_U8();
            unsigned rolled = READ_U8();
            FAIL_IF(!vm_exact_call(v, VM_EXACT_PROCEDURE, (int)(latest - v->p->decls), f->self, SP - argc, argc, rolled,
                                   HERE, &r));
            f = &v->frames[v->nframes - 1];
            SP -= argc;
            PUSH(r);
            NEXT;
        }
        CASE(CHECK_EXACT)
        {
            int check = READ_U16(), argc = READ_U8();
            unsigned rolled = READ_U8();
            FAIL_IF(argc > CHECK_MAX_PARAMS &&
                    !vm_error(v, HERE, "too many arguments (limit is %d)", CHECK_MAX_PARAMS));
            FAIL_IF(!vm_exact_call(v, VM_EXACT_CHECK, check, f->self, SP - argc, argc, rolled, HERE, &r));
            f = &v->frames[v->nframes - 1];
            SP -= argc;
            PUSH(r);
            NEXT;
        }
        CASE(EXACT_ENTER)
        {
            FAIL_IF(!vm_exact_enter(v, HERE));
            NEXT;
        }
        CASE(EXACT_LEAVE)
        {
            vm_exact_leave(v);
            NEXT;
        }
        CASE(CALL)
        {
            const decl *latest = v->world_ops->standing(v, READ_U16());
            int argc = READ_U8();
            if (latest->body < 0) {
                vm_error(v, HERE, "procedure %s has no body", program_string(v->p, latest->name));
                goto fail;
            }
            f->ip = ip;
            FAIL_IF(!push_frame(v, v->p->chunks[latest->body], f->self, argc, &f->c->spans[op_ip - f->c->code]));
            f = &v->frames[v->nframes - 1];
            ip = f->ip;
            NEXT;
        }
        CASE(RETURN)
        {
            r = POP();
            SP = f->base;
            v->nframes--;
            PUSH(r);
            if (v->nframes == stop)
                return true;
            f = &v->frames[v->nframes - 1];
            ip = f->ip;
            NEXT;
        }
        CASE(LIST)
        {
            int n = READ_U8();
            FAIL_IF(!vm_make_list(v, SP - n, (size_t)n, HERE, &r));
            SP -= n;
            PUSH(r);
            NEXT;
        }
        CASE(PRINT)
        {
            /* the whole line, however long: writing it is counted against
               the step budget and the memory limit, as building it was */
            int n = READ_U8();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "print"));
            vm_play_changed(v);
            if (v->output_unread) {
                SP -= n;
                NEXT;
            }
            text_buf line;
            text_init(&line);
            bool ok = true;
            for (int i = 0; i < n && ok; i++)
                ok = (!i || vm_text_add(v, &line, " ", HERE)) && vm_text_value(v, &line, SP[i - n], HERE);
            SP -= n;
            if (ok)
                v->world_ops->print(v, line.s);
            text_free(&line);
            FAIL_IF(!ok);
            NEXT;
        }
        CASE(EMIT)
        {
            int event = READ_U16(), argc = READ_U8();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "emit"));
            vm_play_changed(v);
            value args[32];
            int n = argc > 32 ? 32 : argc;
            memcpy(args, SP - argc, (size_t)n * sizeof(value));
            SP -= argc;
            WORLD_CALL(v->world_ops->emit(v, event, args, n, HERE));
            f = &v->frames[v->nframes - 1];
            NEXT;
        }
        CASE(FAIL)
        {
            text_buf msg;
            text_init(&msg);
            vm_format_text(v, POP(), &msg);
            vm_error(v, HERE, "%s", msg.s);
            text_free(&msg);
            goto fail;
        }
        CASE(PLAY)
        {
            int cmd = READ_U8();
            int operand = READ_U16();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "a command of play"));
            vm_play_changed(v);
            WORLD_CALL(v->world_ops->command(v, cmd, operand, HERE));
            vm_play_changed(v); /* after as well: whatever it did is done */
            f = &v->frames[v->nframes - 1];
            NEXT;
        }
        CASE(ASK)
        {
            int ruling = READ_U16();
            /* a display reads a ruling as it stands (rulings_ask) */
            FAIL_IF(v->exact_depth > v->peek_depth && vm_exact_refuses(v, HERE, "asking a ruling"));
            WORLD_CALL(v->world_ops->ruling(v, ruling, f->self, &r, HERE));
            f = &v->frames[v->nframes - 1];
            PUSH(r);
            NEXT;
        }
        CASE(ASK_FOR)
        {
            int ruling = READ_U16();
            a = POP();
            if (a.type != V_CREATURE) {
                vm_error(v, HERE, "ruling %s is asked for a creature, not %s",
                         program_string(v->p, v->r->rulings[ruling].name), value_type_name(a.type));
                goto fail;
            }
            FAIL_IF(v->exact_depth > v->peek_depth && vm_exact_refuses(v, HERE, "asking a ruling"));
            WORLD_CALL(v->world_ops->ruling(v, ruling, (int)a.num, &r, HERE));
            f = &v->frames[v->nframes - 1];
            PUSH(r);
            NEXT;
        }
        CASE(ACT)
        {
            int action = READ_U16(), argc = READ_U8();
            FAIL_IF(v->exact_depth && vm_exact_refuses(v, HERE, "taking an action"));
            vm_play_changed(v);
            value args[32];
            if (argc > 32) {
                vm_error(v, HERE, "too many arguments (limit is 32)");
                goto fail;
            }
            memcpy(args, SP - argc, (size_t)argc * sizeof(value));
            SP -= argc;
            a = POP();
            if (a.type != V_CREATURE) {
                vm_error(v, HERE, "only a creature takes actions, not %s", value_type_name(a.type));
                goto fail;
            }
            bool allowed;
            WORLD_CALL(v->world_ops->act(v, (int)a.num, action, args, argc, &allowed, HERE));
            vm_play_changed(v); /* after as well: whatever it did is done */
            f = &v->frames[v->nframes - 1];
            PUSH(value_bool(allowed));
            NEXT;
        }
        CASE(CHECK)
        {
            int check = READ_U16(), argc = READ_U8();
            value args[CHECK_MAX_PARAMS];
            if (argc > CHECK_MAX_PARAMS) {
                vm_error(v, HERE, "too many arguments (limit is %d)", CHECK_MAX_PARAMS);
                goto fail;
            }
            memcpy(args, SP - argc, (size_t)argc * sizeof(value));
            SP -= argc;
            WORLD_CALL(v->world_ops->check(v, check, args, argc, &r, HERE));
            f = &v->frames[v->nframes - 1];
            PUSH(r);
            NEXT;
        }
        CASE(CMP_ROLL)
        {
            int cmp_op = READ_U8();
            int label = READ_U16();
            b = POP();
            a = POP();
            if (cmp_op & CMP_ROLL_RIGHT) {
                /* `target <= roll` is `roll >= target` */
                static const uint8_t mirror[] = {0, 1, 4, 5, 2, 3};
                cmp_op = mirror[(cmp_op & 0x7f) % 6];
                value t = a;
                a = b;
                b = t;
            }
            bool result;
            FAIL_IF(!v->world_ops->compare(v, a, cmp_op, b, label == 0xffff ? -1 : label, &result, HERE));
            f = &v->frames[v->nframes - 1];
            PUSH(value_bool(result));
            NEXT;
        }
        CASE(CREATURE)
        {
            const char *name = program_string(v->p, READ_U16());
            int c = v->world_ops->find_creature(v, name);
            if (c < 0) {
                vm_error(v, HERE, "no creature '%s' here yet", name);
                goto fail;
            }
            PUSH(value_ref(V_CREATURE, 0, c));
            NEXT;
        }
#ifndef FRAY_COMPUTED_GOTO
    default: break; /* a byte that is no opcode: reported below */
#endif
    }
#ifndef FRAY_COMPUTED_GOTO
    vm_error(v, op_span(f, ip - 1), "invalid instruction %d", ip[-1]);
#endif
branch_on_distribution:
    /* true or false only by chance: a condition on dice not rolled, or
       on a distribution prob() would give the chance of */
    op_ip = ip - 3;
    vm_error(v, HERE,
             "a distribution is neither true nor false: roll the dice to decide, or ask prob() how likely it is "
             "(a procedure called inside prob() gets one outcome at a time)");
    goto fail;
out_of_steps:
    vm_out_of_steps(v, op_span(f, ip));
fail:
    /* unwind this run's frames (there is always one: the stack top is
       set from it, whichever of v->sp and sp was current); the caller
       reports the error */
    if (v->nframes > stop) {
        v->sp = v->frames[stop].base;
        v->nframes = stop;
    }
    return false;
#undef SP
#undef CASE
#undef NEXT
#define SP v->sp
}

bool vm_call(vm *v, int chunk_id, int self, const value *args, int nargs, value *result)
{
    if (v->failed)
        return false;
    if (chunk_id < 0 || (size_t)chunk_id >= v->p->nchunks)
        return vm_error(v, (span){0}, "internal: no chunk %d", chunk_id);
    const chunk *c = v->p->chunks[chunk_id];
    if (v->sp + nargs + VM_STACK_SLACK > v->stack + VM_STACK_MAX)
        return vm_error(v, c->where, "stack limit reached (%d values)", VM_STACK_MAX);
    for (int i = 0; i < nargs; i++)
        PUSH(args[i]);
    int stop = v->nframes, exact_depth = v->exact_depth;
    /* called from the instruction whose call into the world runs it, if any */
    if (!push_frame(v, c, self, nargs, v->entry_at ? v->entry_at : &c->where))
        return false;
    if (!run(v, stop)) {
        vm_exact_unwind(v, exact_depth); /* the exact contexts the error left */
        return false;
    }
    *result = POP();
    return true;
}

bool vm_run_commands(vm *v, size_t first)
{
    const vm_world_ops *w = v->world_ops;
    if (!w->sync(v))
        return vm_error(v, (span){0}, "out of memory");
    for (size_t i = first; i < v->p->ncommands; i++) {
        vm_begin_command(v); /* the budget is per command */
        w->command_begins(v);
        value r;
        bool ok = vm_call(v, v->p->commands[i], -1, NULL, 0, &r);
        vm_end_command(v);
        w->flush(v);
        if (!ok)
            return false;
        if (!w->command_ends(v, v->p->chunks[v->p->commands[i]]->where))
            return false;
    }
    return true;
}

/* --- builtins -------------------------------------------------------------------- */

/* The builtins of the core (vm_builtins.c) compute as the instructions do. */

bool vm_builtin_compare(vm *v, value a, value b, span at, int *cmp)
{
    return do_compare(v, a, b, at, cmp);
}

bool vm_builtin_add(vm *v, value a, value b, span at, value *sum)
{
    return do_add(v, a, b, 1, at, sum);
}

bool vm_builtin_new_dice(vm *v, const dexpr *d, span at, value *out)
{
    return vm_new_dexpr(v, d, at, out);
}

bool vm_builtin_arith_fail(vm *v, arith_status st, span at, const char *what, value a, value b)
{
    return arith_fail(v, st, at, what, a, b);
}
