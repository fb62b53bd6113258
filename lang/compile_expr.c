/* compile_expr: expressions and statements to bytecode, with static types
 * where they are known so that mistakes like adding a distance to a
 * duration are caught before anything runs. */
#include <stdlib.h>
#include <string.h>

#include "lang/retired.h"
#include "lang/compiler.h"
#include "lang/parser.h"
#include "runtime/base/suggest.h"
#include "runtime/core/builtins.h"
#include "runtime/base/mem.h"
#include "runtime/core/rules.h"

static const char *const sty_names[] = {
    "anything", "nothing",        "a boolean",  "a number", "a distance", "a duration",     "dice",    "a roll",
    "a string", "an enum member", "a creature", "a list",   "a word",     "a distribution", "an item", "a square",
};

const char *sty_name(sty t)
{
    return sty_names[t];
}

const builtin builtins[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) {#name, lo, hi, TY_##result, params, meaning},
#include "runtime/core/builtins.def"
#undef BUILTIN
};
const int nbuiltins = (int)(sizeof builtins / sizeof builtins[0]);

/* How a call of each builtin is compiled (builtins.def's arguments and
   result rule): its arguments as values, or as one distribution to look
   at (prob() and its kind). */
typedef enum { ARGS_AS_VALUES, ARGS_AS_EXACT } builtin_args;
typedef struct builtin_compiling {
    builtin_args args;
    bool like_first; /* its result has the type of its first argument */
} builtin_compiling;
#define COMPILE_VALUES ARGS_AS_VALUES
#define COMPILE_OUTCOMES(fn) ARGS_AS_VALUES
#define COMPILE_LIST_OUTCOMES(fn) ARGS_AS_VALUES
#define COMPILE_DISTRIBS ARGS_AS_VALUES
#define COMPILE_EXACT ARGS_AS_EXACT
#define RESULT_FIXED false
#define RESULT_LIKE_FIRST true
static const builtin_compiling compiling[BI_COUNT] = {
#define BUILTIN_ENTRY(name, lo, hi, result, rule, params, effect, args, layer, fn, meaning) \
    {COMPILE_##args, RESULT_##rule},
#include "runtime/core/builtins.def"
#undef BUILTIN_ENTRY
};
#undef COMPILE_VALUES
#undef COMPILE_OUTCOMES
#undef COMPILE_LIST_OUTCOMES
#undef COMPILE_DISTRIBS
#undef COMPILE_EXACT
#undef RESULT_FIXED
#undef RESULT_LIKE_FIRST

int builtin_find(const char *name)
{
    for (int i = 0; i < nbuiltins; i++) /* the first letter first: most names are no builtin */
        if (builtins[i].name[0] == name[0] && strcmp(builtins[i].name, name) == 0)
            return i;
    return -1;
}

/* --- literals ---------------------------------------------------------------- */

/* The dice limits of the compile options (--limit dice=N, sides=N). */
static int most_dice(const compiler *cc)
{
    return cc->opts && cc->opts->max_dice ? cc->opts->max_dice : DICE_DEFAULT_COUNT;
}
static int most_sides(const compiler *cc)
{
    return cc->opts && cc->opts->max_sides ? cc->opts->max_sides : DICE_DEFAULT_SIDES;
}
static bool dice_fit(const compiler *cc, const dice *d)
{
    return d->count <= most_dice(cc) && d->sides <= most_sides(cc);
}

static bool dice_within_limits(compiler *cc, const node *n, const dice *d)
{
    if (d->count > most_dice(cc))
        comp_error(cc, n->sp, "too many dice (limit is %d; see --limit dice=N)", most_dice(cc));
    else if (d->sides > most_sides(cc))
        comp_error(cc, n->sp, "too many sides (limit is %d; see --limit sides=N)", most_sides(cc));
    return dice_fit(cc, d);
}

bool dice_literal(compiler *cc, const node *n, value *out)
{
    dexpr dx = {.nterms = 1};
    dice_error err;
    if (dice_parse(n->text, strlen(n->text), &dx.terms[0].d, &err) != 0) {
        span at = n->sp;
        if (err.offset < at.end - at.start) {
            at.start += (uint32_t)err.offset;
            at.end = at.start + 1;
        }
        comp_error(cc, at, "%s", err.message);
        return false;
    }
    if (!dice_within_limits(cc, n, &dx.terms[0].d))
        return false;
    dx.terms[0].sign = 1;
    dx.terms[0].times = 1;
    int id = program_add_dice(cc->p, &dx);
    if (id < 0) {
        cc->oom = true;
        return false;
    }
    *out = value_ref(V_DICE, HOME_PROGRAM, id);
    return true;
}

typedef struct unit_info {
    const char *name;
    bool distance;
    int64_t num, den; /* feet per unit, or seconds/count per unit */
    time_kind kind;
} unit_info;

static const unit_info units[] = {
    {"ft", true, 1, 1, 0},
    {"feet", true, 1, 1, 0},
    {"foot", true, 1, 1, 0},
    {"sq", true, 5, 1, 0},
    {"square", true, 5, 1, 0},
    {"squares", true, 5, 1, 0},
    /* the d20 convention: 1.5 m to a 5 ft square */
    {"m", true, 10, 3, 0},
    {"meter", true, 10, 3, 0},
    {"meters", true, 10, 3, 0},
    {"metre", true, 10, 3, 0},
    {"metres", true, 10, 3, 0},
    {"s", false, 1, 1, TIME_SECONDS},
    {"sec", false, 1, 1, TIME_SECONDS},
    {"secs", false, 1, 1, TIME_SECONDS},
    {"second", false, 1, 1, TIME_SECONDS},
    {"seconds", false, 1, 1, TIME_SECONDS},
    {"min", false, 60, 1, TIME_SECONDS},
    {"minute", false, 60, 1, TIME_SECONDS},
    {"minutes", false, 60, 1, TIME_SECONDS},
    {"hour", false, 3600, 1, TIME_SECONDS},
    {"hours", false, 3600, 1, TIME_SECONDS},
    {"round", false, 1, 1, TIME_ROUNDS},
    {"rounds", false, 1, 1, TIME_ROUNDS},
    {"turn", false, 1, 1, TIME_TURNS},
    {"turns", false, 1, 1, TIME_TURNS},
    {"encounter", false, 1, 1, TIME_ENCOUNTERS},
    {"encounters", false, 1, 1, TIME_ENCOUNTERS},
};

/* Not inlined, as fold_literal_sum: compile_expr recurses once a level of
   nesting, and its frame is all that level costs of the stack. */
static __attribute__((noinline)) sty quantity(compiler *cc, const node *n, value *out)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(units[i].name, n->text) != 0)
            continue;
        /* the scanner gives a decimal's exact num/den, den at most 10^12 */
        value amount = value_ratio(V_FRAC, n->num, n->den);
        value scale = value_ratio(V_FRAC, units[i].num, units[i].den);
        if (units[i].distance) {
            if (rat_mul(amount, scale, V_DIST, out) != ARITH_OK) {
                comp_error(cc, n->sp, "distance is too large");
                return TY_DIST;
            }
            return TY_DIST;
        }
        value total;
        if (rat_mul(amount, scale, V_FRAC, &total) != ARITH_OK) {
            comp_error(cc, n->sp, "duration is too large");
            return TY_TIME;
        }
        if (total.type != V_INT) {
            comp_error(cc, n->sp, "a duration must be a whole number of %s", time_kind_name(units[i].kind, 2));
            return TY_TIME;
        }
        *out = value_time(units[i].kind, total.num);
        return TY_TIME;
    }
    return comp_period_count(cc, n, out) ? TY_TIME : TY_ANY;
}

/* --- names ----------------------------------------------------------------- */

static int find_local(compiler *cc, int name)
{
    if (!cc->fn)
        return -1;
    for (int i = cc->fn->nlocals - 1; i >= 0; i--)
        if (cc->fn->locals[i].name == name)
            return i;
    return -1;
}

static int find_global(compiler *cc, int name)
{
    for (size_t i = 0; i < cc->p->nglobals; i++)
        if (cc->p->globals[i] == name)
            return (int)i;
    return -1;
}

static const decl *find_stat(compiler *cc, int name)
{
    const decl *d = program_find_decl(cc->p, DK_STAT, name);
    return d ? d : program_find_decl(cc->p, DK_RESOURCE, name);
}

/* An enum member by bare name: the value and its enum. */
static bool find_enum_member(compiler *cc, int name, value *out)
{
    for (size_t e = cc->p->nenums; e-- > 0;)
        for (int m = 0; m < cc->p->enums[e].nmembers; m++)
            if (cc->p->enums[e].members[m] == name) {
                *out = value_enum((int32_t)e, m);
                return true;
            }
    return false;
}

bool creature_declared(compiler *cc, const char *name)
{
    for (size_t i = 0; i < cc->p->ndecls; i++) {
        const decl *d = &cc->p->decls[i];
        if (d->kind != DK_CREATURE)
            continue;
        const char *base = program_string(cc->p, d->name);
        size_t blen = strlen(base);
        if (strcmp(base, name) == 0)
            return true;
        /* `creature goblin x3` makes goblin_1 .. goblin_3 */
        if (d->nparams > 1 && strncmp(base, name, blen) == 0 && name[blen] == '_') {
            char *end;
            long k = strtol(name + blen + 1, &end, 10);
            if (*end == '\0' && k >= 1 && k <= d->nparams)
                return true;
        }
    }
    return false;
}

/* A name the rules declared that stands for itself in expressions: a
 * condition, action, slot, phase, side, relation, tactic, trigger, bonus
 * type, check, period or ordinal range, and `encounter`, which holds tags.
 * Its value is the word. */
static bool declared_word(compiler *cc, int id)
{
    const rules *r = cc->p->rules;
    return rules_condition(r, id) >= 0 || rules_action(r, id) >= 0 || rules_slot(r, id) >= 0 ||
           rules_phase(r, id) >= 0 || rules_side(r, id) >= 0 || rules_relation(r, id) >= 0 ||
           rules_tactic(r, id) >= 0 || rules_bonus(r, id) >= 0 || rules_check(r, id) >= 0 || rules_track(r, id) >= 0 ||
           rules_period(r, id) >= 0 || program_find_decl(cc->p, DK_TRIGGER, id) != NULL ||
           !strcmp(program_string(cc->p, id), "encounter");
}

bool name_resolves(compiler *cc, const char *name)
{
    int id = program_find_string(cc->p, name);
    value v;
    if (strcmp(name, "self") == 0 || strcmp(name, "nothing") == 0 || strcmp(name, "yes") == 0 ||
        strcmp(name, "no") == 0)
        return true;
    if (id >= 0 && (find_local(cc, id) >= 0 || find_global(cc, id) >= 0 || find_stat(cc, id) ||
                    program_find_decl(cc->p, DK_RANGE, id) || program_find_decl(cc->p, DK_DURATION, id) ||
                    find_enum_member(cc, id, &v) || rules_ruling(cc->p->rules, id) >= 0 ||
                    rules_item(cc->p->rules, id) >= 0 || declared_word(cc, id)))
        return true;
    return creature_declared(cc, name);
}

bool name_only_a_stat(compiler *cc, const char *name)
{
    int id = program_find_string(cc->p, name);
    value v;
    if (id < 0 || !find_stat(cc, id))
        return false;
    return find_local(cc, id) < 0 && find_global(cc, id) < 0 && !find_enum_member(cc, id, &v) &&
           rules_item(cc->p->rules, id) < 0 && !creature_declared(cc, name);
}

/* Every name an expression could mean, for "did you mean". */
const char *suggest_name(compiler *cc, const char *name)
{
    const char *best = NULL;
    int best_d = (int)strlen(name) <= 3 ? 1 : 2;
    program *p = cc->p;
    const rules *r = p->rules;
#define CONSIDER(cand)                                                         \
    do {                                                                       \
        const char *c_ = (cand);                                               \
        int d_ = diag_edit_distance(name, c_, best_d);                         \
        if (d_ <= best_d && strcmp(c_, name) != 0 && (!best || d_ < best_d)) { \
            best = c_;                                                         \
            best_d = d_;                                                       \
        }                                                                      \
    } while (0)
    if (cc->fn)
        for (int i = 0; i < cc->fn->nlocals; i++)
            if (program_string(p, cc->fn->locals[i].name)[0] != ' ')
                CONSIDER(program_string(p, cc->fn->locals[i].name));
    for (size_t i = 0; i < p->nglobals; i++)
        CONSIDER(program_string(p, p->globals[i]));
    for (size_t i = 0; i < p->ndecls; i++)
        if (p->decls[i].name >= 0)
            CONSIDER(program_string(p, p->decls[i].name));
    for (size_t e = 0; e < p->nenums; e++)
        for (int m = 0; m < p->enums[e].nmembers; m++)
            CONSIDER(program_string(p, p->enums[e].members[m]));
    for (int i = 0; i < r->nslots; i++)
        CONSIDER(program_string(p, r->slots[i].name));
    for (int i = 0; i < r->nphases; i++)
        CONSIDER(program_string(p, r->phases[i].name));
    for (int i = 0; i < r->nsides; i++)
        CONSIDER(program_string(p, r->sides[i]));
    for (int i = 0; i < nbuiltins; i++)
        CONSIDER(builtins[i].name);
    static const char *const words[] = {"self", "nothing"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        CONSIDER(words[i]);
#undef CONSIDER
    return best;
}

static void unknown_name(compiler *cc, const node *n, const char *what)
{
    const char *instead = retired_instead(what, n->text);
    if (instead) {
        comp_error(cc, n->sp, "there is no %s '%s' any more: %s", what, n->text, instead);
        return;
    }
    /* in an expression a square is written in upper case: A0 is none */
    const char *none = n->text[0] >= 'A' && n->text[0] <= 'Z' ? square_unnamed(n->text) : NULL;
    if (none) {
        comp_error(cc, n->sp, "%s is not a square of the map: %s", n->text, none);
        return;
    }
    const char *s = suggest_name(cc, n->text);
    /* a group's name is no creature: its members are (wolf1: wolf_1) */
    char like[SUGGEST_MAX + 1];
    if ((!s || cmd_names_group(cc, s)) && cmd_creature_like(cc, n->text, like))
        s = like;
    if (s)
        comp_error(cc, n->sp, "unknown %s '%s'; did you mean '%s'?", what, n->text, s);
    else
        comp_error(cc, n->sp, "unknown %s '%s'", what, n->text);
}

/* The type of a ruling's answer. */
static sty ruling_type(const rules *r, int ruling)
{
    switch (r->rulings[ruling].answer) {
    case ANSWER_YES_NO: return TY_BOOL;
    case ANSWER_NUMBER: return TY_NUM;
    case ANSWER_CREATURE: return TY_ANY; /* a creature or nothing */
    default: return TY_WORD;
    }
}

static sty stat_type(const decl *d)
{
    if (d->kind == DK_RESOURCE) /* a resource counts a number, a distance or a time */
        return d->type == TY_DIST || d->type == TY_TIME ? (sty)d->type : TY_NUM;
    return (sty)d->type;
}

static sty compile_name(compiler *cc, const node *n)
{
    int id = comp_intern(cc, n->text);
    int slot = find_local(cc, id);
    if (slot >= 0) {
        emit_op_u8(cc, OP_GET_LOCAL, (uint8_t)slot, n->sp);
        return cc->fn->locals[slot].type;
    }
    int g = find_global(cc, id);
    if (g >= 0) {
        emit_op_u16(cc, OP_GET_GLOBAL, g, n->sp);
        return cc->global_types ? cc->global_types[g] : TY_ANY;
    }
    if (strcmp(n->text, "self") == 0) {
        emit_op(cc, OP_SELF, n->sp);
        return TY_CREATURE;
    }
    if (strcmp(n->text, "nothing") == 0) {
        emit_op(cc, OP_NIL, n->sp);
        return TY_NIL;
    }
    if (strcmp(n->text, "yes") == 0 || strcmp(n->text, "no") == 0) {
        /* the GM's answers read as booleans */
        emit_op(cc, n->text[0] == 'y' ? OP_TRUE : OP_FALSE, n->sp);
        return TY_BOOL;
    }
    const decl *d = find_stat(cc, id);
    if (d) {
        emit_op(cc, OP_SELF, n->sp);
        emit_op_u16(cc, OP_GET_STAT, program_decl_index(cc->p, d), n->sp);
        return stat_type(d);
    }
    if ((d = program_find_decl(cc->p, DK_RANGE, id)) || (d = program_find_decl(cc->p, DK_DURATION, id))) {
        if (d->value == -1) {
            /* a range without a formula is ordinal (short < medium < long) */
            emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, id), n->sp);
            return TY_WORD;
        }
        emit_op(cc, OP_SELF, n->sp);
        emit_op_u16(cc, OP_EVAL_DECL, program_decl_index(cc->p, d), n->sp);
        return d->kind == DK_RANGE ? TY_DIST : TY_TIME;
    }
    value v;
    if (find_enum_member(cc, id, &v)) {
        emit_const(cc, v, n->sp);
        return TY_ENUM;
    }
    const rules *r = cc->p->rules;
    int ruling = rules_ruling(r, id);
    if (ruling >= 0) {
        /* asking: the answer for the creature the formula runs for */
        emit_op_u16(cc, OP_ASK, ruling, n->sp);
        return ruling_type(r, ruling);
    }
    int item = rules_item(r, id);
    if (item >= 0) {
        emit_const(cc, value_ref(V_ITEM, HOME_PROGRAM, item), n->sp);
        return TY_ITEM;
    }
    if (declared_word(cc, id)) {
        emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, id), n->sp);
        return TY_WORD;
    }
    if (creature_declared(cc, n->text)) {
        emit_op_u16(cc, OP_CREATURE, id, n->sp);
        return TY_CREATURE;
    }
    int32_t sx, sy;
    if (n->text[0] >= 'A' && n->text[0] <= 'Z' && square_parse(n->text, &sx, &sy)) {
        /* C4: a square of the grid (upper case, so no name is taken for one) */
        emit_const(cc, value_square(sx, sy), n->sp);
        return TY_SQUARE;
    }
    unknown_name(cc, n, "name");
    emit_op(cc, OP_NIL, n->sp);
    return TY_ANY;
}

/* --- operators --------------------------------------------------------------- */

static bool numeric(sty t)
{
    return t == TY_NUM || t == TY_ROLL;
}

static sty binary_type(compiler *cc, int op, sty a, sty b, const node *e)
{
    if (a == TY_ANY || b == TY_ANY) {
        if (op == EQ || op == NE || op == '<' || op == LE || op == '>' || op == GE)
            return TY_BOOL;
        return TY_ANY;
    }
    if (a == TY_DISTRIB || b == TY_DISTRIB) {
        sty other = a == TY_DISTRIB ? b : a;
        if (other == TY_DISTRIB || numeric(other) || other == TY_BOOL || other == TY_DICE) {
            if (op != '/')
                return TY_DISTRIB;
            comp_error(cc, e->sp, "divide a distribution with // (whole-number outcomes)");
            return TY_DISTRIB;
        }
    }
    const char *verb = NULL;
    switch (op) {
    case '+':
    case '-':
        if (numeric(a) && numeric(b))
            return TY_NUM;
        if (a == b && (a == TY_DIST || a == TY_TIME))
            return a;
        if ((a == TY_DICE && (b == TY_DICE || numeric(b))) || (numeric(a) && b == TY_DICE))
            return TY_DICE;
        if (op == '-' && a == TY_ENUM && b == TY_ENUM)
            return TY_NUM; /* how many steps apart */
        if (op == '+' && a == TY_LIST && b == TY_LIST)
            return TY_LIST; /* one after the other */
        verb = op == '+' ? "add" : "subtract";
        break;
    case '*':
        if (numeric(a) && numeric(b))
            return TY_NUM;
        if ((a == TY_DIST && numeric(b)) || (numeric(a) && b == TY_DIST))
            return TY_DIST;
        if ((a == TY_TIME && numeric(b)) || (numeric(a) && b == TY_TIME))
            return TY_TIME;
        if ((a == TY_DICE && numeric(b)) || (numeric(a) && b == TY_DICE))
            return TY_DICE;
        verb = "multiply";
        break;
    case '/':
    case IDIV:
        if (numeric(a) && numeric(b))
            return TY_NUM;
        if (a == TY_DIST && numeric(b))
            return TY_DIST;
        if (a == TY_DIST && b == TY_DIST)
            return TY_NUM;
        if (a == TY_TIME && numeric(b))
            return TY_TIME;
        verb = "divide";
        break;
    case EQ:
    case NE:
        if (a == b || (numeric(a) && numeric(b)) || a == TY_NIL || b == TY_NIL)
            return TY_BOOL;
        if ((a == TY_WORD && b == TY_STR) || (a == TY_STR && b == TY_WORD))
            return TY_BOOL; /* a word compares with its text */
        verb = "compare";
        break;
    default: /* ordering */
        if ((numeric(a) && numeric(b)) || (a == b && (a == TY_DIST || a == TY_TIME || a == TY_ENUM || a == TY_STR)))
            return TY_BOOL;
        if (a == TY_DICE || b == TY_DICE) {
            comp_error(cc, e->sp, "cannot compare dice before they are rolled; write 'roll' before the dice");
            return TY_BOOL;
        }
        verb = "compare";
        break;
    }
    comp_error(cc, e->sp, "cannot %s %s and %s%s", verb, sty_name(a), sty_name(b),
               op == '+' && a == TY_STR ? " (text(a, b, ...) builds a string)" : "");
    return TY_ANY;
}

static opcode binary_opcode(int op)
{
    switch (op) {
    case '+': return OP_ADD;
    case '-': return OP_SUB;
    case '*': return OP_MUL;
    case '/': return OP_DIV;
    case IDIV: return OP_IDIV;
    case EQ: return OP_EQ;
    case NE: return OP_NE;
    case '<': return OP_LT;
    case LE: return OP_LE;
    case '>': return OP_GT;
    default: return OP_GE;
    }
}

/* Conditions are booleans: `if roll d20` or `if hp` would hide a missing
   comparison, so they are errors, not truthiness. */
static void check_condition(compiler *cc, sty t, const node *e)
{
    if (cc->dist_mode && (t == TY_DISTRIB || t == TY_DICE))
        return;
    if (t == TY_DICE)
        comp_error(cc, e->sp, "dice are not a condition; roll them and compare, e.g. 'roll d20 >= 15'");
    else if (t == TY_ROLL)
        comp_error(cc, e->sp, "a roll is not a condition; compare it, e.g. 'roll d20 >= 15'");
    else if (t == TY_DISTRIB)
        comp_error(cc, e->sp,
                   "a distribution is neither true nor false: roll the dice to decide, or ask prob() how likely it is");
    else if (t != TY_BOOL && t != TY_ANY)
        comp_error(cc, e->sp, "%s is not a condition; compare it", sty_name(t));
}

/* Members every creature has besides its stats. */
static bool creature_member(const char *name, sty *type)
{
    if (strcmp(name, "name") == 0) {
        *type = TY_STR;
        return true;
    }
    if (strcmp(name, "side") == 0) {
        *type = TY_WORD;
        return true;
    }
    return false;
}

static sty sty_of_value(const value *v)
{
    switch ((value_type)v->type) {
    case V_INT:
    case V_FRAC: return TY_NUM;
    case V_BOOL: return TY_BOOL;
    case V_DIST: return TY_DIST;
    case V_TIME: return TY_TIME;
    case V_DICE: return TY_DICE;
    case V_STR: return TY_STR;
    case V_ENUM: return TY_ENUM;
    case V_ITEM: return TY_ITEM;
    case V_WORD: return TY_WORD;
    default: return TY_ANY;
    }
}

/* The type of an item property if every item that has it agrees; whether
 * any item has it at all goes to *exists. */
static sty item_property_type(compiler *cc, int name, bool *exists)
{
    const rules *r = cc->p->rules;
    sty t = TY_NIL;
    *exists = false;
    for (int i = 0; i < r->nitems; i++)
        for (int k = 0; k < r->items[i].nprops; k++)
            if (r->items[i].props[k].name == name) {
                sty pt = sty_of_value(&r->items[i].props[k].v);
                *exists = true;
                t = t == TY_NIL || t == pt ? pt : TY_ANY;
            }
    return t == TY_NIL ? TY_ANY : t;
}

/* xs[i]: an element of a list, counted from 0 (negative: from the end). */
static sty compile_index(compiler *cc, const node *e)
{
    sty base = compile_expr(cc, e->a);
    if (base != TY_LIST && base != TY_ANY)
        comp_error(cc, e->a->sp, "only a list can be indexed, not %s", sty_name(base));
    sty at = compile_expr(cc, e->b);
    if (at != TY_NUM && at != TY_ROLL && at != TY_ANY) /* a roll is its total */
        comp_error(cc, e->b->sp, "a list's index is a whole number, not %s", sty_name(at));
    emit_op(cc, OP_INDEX, e->sp);
    return TY_ANY;
}

static sty compile_member(compiler *cc, const node *e)
{
    sty base = compile_expr(cc, e->a);
    int id = comp_intern(cc, e->text);
    const decl *d = find_stat(cc, id);
    sty member_type = TY_ANY;
    bool is_prop = false;
    sty prop_type = item_property_type(cc, id, &is_prop);
    if (base == TY_ROLL) {
        if (strcmp(e->text, "natural") && strcmp(e->text, "total") && strcmp(e->text, "faces"))
            comp_error(cc, e->sp, "a roll has 'natural', 'total' and 'faces', not '%s'", e->text);
        emit_op_u16(cc, OP_GET_MEMBER, id, e->sp);
        return strcmp(e->text, "faces") == 0 ? TY_LIST : TY_NUM;
    }
    if (base == TY_ITEM) {
        if (!is_prop)
            comp_error(cc, e->sp, "no item has a property '%s'", e->text);
        emit_op_u16(cc, OP_GET_MEMBER, id, e->sp);
        return prop_type;
    }
    if (base != TY_ANY && base != TY_CREATURE && base != TY_LIST && !(base == TY_WORD && d)) { /* a side's stat */
        comp_error(cc, e->sp, "%s has no member '%s'", sty_name(base), e->text);
        emit_op_u16(cc, OP_GET_MEMBER, id, e->sp);
        return TY_ANY;
    }
    if (d) {
        if (base == TY_LIST) {
            emit_op_u16(cc, OP_GET_MEMBER, id, e->sp);
            return TY_LIST;
        }
        emit_op_u16(cc, OP_GET_STAT, program_decl_index(cc->p, d), e->sp);
        return stat_type(d);
    }
    if (base != TY_LIST && (((d = program_find_decl(cc->p, DK_RANGE, id)) && d->value != -1) ||
                            ((d = program_find_decl(cc->p, DK_DURATION, id)) && d->value != -1))) {
        emit_op_u16(cc, OP_EVAL_DECL, program_decl_index(cc->p, d), e->sp);
        return d->kind == DK_RANGE ? TY_DIST : TY_TIME;
    }
    if (creature_member(e->text, &member_type) || base == TY_ANY) {
        /* a value of unknown type: its member is looked up when it runs
           (a roll's natural, an item's property) */
        emit_op_u16(cc, OP_GET_MEMBER, id, e->sp);
        return base == TY_LIST ? TY_LIST : base == TY_ANY ? TY_ANY : member_type;
    }
    const char *s = suggest_name(cc, e->text);
    if (s)
        comp_error(cc, e->sp, "no stat or resource '%s'; did you mean '%s'?", e->text, s);
    else
        comp_error(cc, e->sp, "no stat or resource '%s'", e->text);
    emit_op_u16(cc, OP_GET_MEMBER, id, e->sp);
    return TY_ANY;
}

static int compile_args(compiler *cc, const node *list)
{
    int n = 0;
    for (const node *a = list ? list->list : NULL; a; a = a->next) {
        compile_expr(cc, a);
        n++;
    }
    return n;
}

/* A bare name given where a builtin wants a condition, action, slot,
   relation or range: it must be one. */
/* Whether the bare name a, given where fn takes a `kind`, is one (or may
   hold one); false after saying it is not. */
static bool check_named_arg(compiler *cc, const char *fn, char kind, const node *a)
{
    const rules *r = cc->p->rules;
    int id = comp_intern(cc, a->text);
    const char *what = NULL;
    bool ok = false;
    switch (kind) {
    case 'C': ok = rules_condition(r, id) >= 0, what = "condition"; break;
    case 'A': ok = rules_action(r, id) >= 0, what = "action"; break;
    case 'S': ok = rules_slot(r, id) >= 0, what = "slot of the economy"; break;
    case 'R': ok = rules_relation(r, id) >= 0, what = "relation"; break;
    case 'G': ok = rules_range(r, id) >= 0, what = "range"; break;
    case 'T': ok = rules_track(r, id) >= 0, what = "track"; break;
    default: return true;
    }
    /* a local or parameter holding one is fine too */
    if (ok || find_local(cc, id) >= 0 || find_global(cc, id) >= 0)
        return true;
    const char *best = NULL;
    int best_d = 3;
#define NEAR(cand)                                      \
    do {                                                \
        const char *c_ = program_string(cc->p, (cand)); \
        int d_ = diag_edit_distance(a->text, c_, 2);    \
        if (d_ < best_d) {                              \
            best_d = d_;                                \
            best = c_;                                  \
        }                                               \
    } while (0)
    if (kind == 'C')
        for (int i = 0; i < r->nconditions; i++)
            NEAR(r->conditions[i].name);
    if (kind == 'A')
        for (int i = 0; i < r->nactions; i++)
            NEAR(r->actions[i].name);
    if (kind == 'S')
        for (int i = 0; i < r->nslots; i++)
            NEAR(r->slots[i].name);
    if (kind == 'R')
        for (int i = 0; i < r->nrelations; i++)
            NEAR(r->relations[i].name);
    if (kind == 'G')
        for (int i = 0; i < r->nranges; i++)
            NEAR(r->ranges[i].name);
    if (kind == 'T')
        for (int i = 0; i < r->ntracks; i++)
            NEAR(r->tracks[i].name);
#undef NEAR
    if (best)
        comp_error(cc, a->sp, "%s() wants a %s here: '%s' is not one; did you mean '%s'?", fn, what, a->text, best);
    else
        comp_error(cc, a->sp, "%s() wants a %s here: '%s' is not one", fn, what, a->text);
    return false;
}

/* A call with too few or too many arguments, said with the function's
   form: "apply() takes 2 to 4 arguments, not 5: apply(c, condition [,
   duration [, source]])". */
static void arity_error(compiler *cc, const node *e, const builtin *bi, int argc)
{
    char takes[64];
    int lo = bi->min_args, hi = bi->max_args;
    if (lo == hi && lo == 0)
        snprintf(takes, sizeof takes, "no arguments");
    else if (lo == hi)
        snprintf(takes, sizeof takes, "%d argument%s", lo, lo == 1 ? "" : "s");
    else if (argc < lo && hi == 255) /* any number: min(a, b, ...) */
        snprintf(takes, sizeof takes, "at least %d argument%s", lo, lo == 1 ? "" : "s");
    else if (hi == 255)
        snprintf(takes, sizeof takes, "at most %d arguments", hi);
    else
        snprintf(takes, sizeof takes, "%d %s %d arguments", lo, hi == lo + 1 ? "or" : "to", hi);
    const char *colon = strstr(bi->meaning, "): ");
    int form = colon ? (int)(colon - bi->meaning) + 1 : (int)strlen(bi->meaning);
    comp_error(cc, e->sp, "%s() takes %s, not %d: %.*s", e->text, takes, argc, form, bi->meaning);
}

/* The arguments of a procedure or check called in a distribution context,
   which walks the call over their outcomes (vm_exact.c): dice written as
   such, a list of them, or named, stay dice, so that the call may roll
   them; `roll E`
   passes E's dice, to be rolled once as the call is made (its bit in the
   result is set); anything else is the distribution it has there. */
static unsigned compile_exact_args(compiler *cc, const node *call)
{
    unsigned rolled = 0;
    int i = 0, saved = cc->dist_mode;
    bool saved_roll = cc->roll_mode;
    for (const node *a = call->list; a; a = a->next, i++) {
        const node *what = a->kind == AST_ROLL ? a->a : a;
        bool as_dice = a->kind == AST_ROLL || expr_dice_written(a) || expr_dice_list_written(a) ||
                       a->kind == AST_NAME || a->kind == AST_WORD || a->kind == AST_MEMBER;
        if (a->kind == AST_ROLL && i < 8)
            rolled |= 1u << i;
        if (as_dice) {
            cc->dist_mode = 0;
            cc->roll_mode = false;
        }
        sty t = compile_expr(cc, what);
        cc->dist_mode = saved;
        cc->roll_mode = saved_roll;
        if (a->kind == AST_ROLL && t != TY_ANY && t != TY_DICE && t != TY_DISTRIB && !numeric(t))
            comp_error(cc, a->sp, "cannot roll %s", sty_name(t));
    }
    return rolled;
}

/* `unaware(target)`: the ruling asked for that creature, not for the
   creature the formula runs for. */
static sty compile_ruling_for(compiler *cc, const node *e, int ruling)
{
    if (ast_list_len(e) != 1) {
        comp_error(cc, e->sp, "ruling %s is asked for one creature, as in %s(target), not %d", e->text, e->text,
                   ast_list_len(e));
        compile_args(cc, e);
        emit_op(cc, OP_NIL, e->sp);
        return TY_ANY;
    }
    sty t = compile_expr(cc, e->list);
    if (t != TY_ANY && t != TY_CREATURE)
        comp_error(cc, e->list->sp, "ruling %s is asked for a creature, not %s", e->text, sty_name(t));
    emit_op_u16(cc, OP_ASK_FOR, ruling, e->sp);
    return ruling_type(cc->p->rules, ruling);
}

static sty compile_call(compiler *cc, const node *e)
{
    int argc = ast_list_len(e);
    int b = builtin_find(e->text);
    if (b >= 0) {
        if (argc < builtins[b].min_args || argc > builtins[b].max_args)
            arity_error(cc, e, &builtins[b], argc);
        sty first = TY_ANY;
        int n = 0;
        /* prob() and its kind look at their argument's distribution */
        bool exact = compiling[b].args == ARGS_AS_EXACT;
        int saved_mode = cc->dist_mode;
        /* the outermost: nothing in it rolls or changes the state (vm_exact.c) */
        bool enters = exact && !saved_mode;
        if (enters)
            emit_op(cc, OP_EXACT_ENTER, e->sp);
        if (exact)
            cc->dist_mode++;
        for (const node *a = e->list; a; a = a->next, n++) {
            char kind = n < (int)strlen(builtins[b].params) ? builtins[b].params[n] : '.';
            bool named = !(a->kind == AST_NAME && strchr("CASRGT", kind)) || check_named_arg(cc, e->text, kind, a);
            sty t;
            int id = a->kind == AST_NAME ? comp_intern(cc, a->text) : -1;
            if (!named) { /* said: not again as an unknown name */
                emit_op(cc, OP_NIL, a->sp);
                t = TY_ANY;
            } else if (id >= 0 && find_local(cc, id) < 0 &&
                       ((kind == 'G' && rules_range(cc->p->rules, id) >= 0) || (kind == 'T' && track_arg(cc, e, a)))) {
                /* the range itself, not its distance for self; a track, not a stat of its name */
                emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, comp_intern(cc, a->text)), a->sp);
                t = TY_WORD;
            } else if (kind == 'B' && a->kind == AST_NAME && find_local(cc, comp_intern(cc, a->text)) < 0 &&
                       find_global(cc, comp_intern(cc, a->text)) < 0 && compile_walk_budget(cc, e->text, a)) {
                t = TY_WORD;
            } else if (kind == 'D' && a->kind == AST_DICE) {
                int dist_was = cc->dist_mode; /* the die described, not its outcomes */
                cc->dist_mode = 0;
                t = compile_expr(cc, a);
                cc->dist_mode = dist_was;
            } else {
                t = compile_expr(cc, a);
            }
            if (kind == 'c' && t != TY_ANY && t != TY_CREATURE && t != TY_NIL)
                comp_error(cc, a->sp, "%s() takes a creature here, not %s", e->text, sty_name(t));
            if (n == 0)
                first = t;
        }
        cc->dist_mode = saved_mode;
        if (enters)
            emit_op(cc, OP_EXACT_LEAVE, e->sp);
        emit_op(cc, OP_CALL_BUILTIN, e->sp);
        emit_byte(cc, (uint8_t)b, e->sp);
        emit_byte(cc, (uint8_t)(argc > 255 ? 255 : argc), e->sp);
        if (builtins[b].result == TY_ANY && compiling[b].like_first)
            return argc == 1 && first == TY_LIST ? TY_ANY : first == TY_ROLL ? TY_NUM : cc->dist_mode ? TY_ANY : first;
        return builtins[b].result;
    }
    int id = comp_intern(cc, e->text);
    int check = rules_check(cc->p->rules, id);
    if (check >= 0) {
        /* a check rolls, with every modifier that applies */
        int want = cc->p->rules->checks[check].nparams;
        if (argc != want)
            comp_error(cc, e->sp, "check %s takes %d argument%s, not %d", e->text, want, want == 1 ? "" : "s", argc);
        if (cc->dist_mode) { /* its distribution, every roll walked */
            unsigned rolled = compile_exact_args(cc, e);
            emit_op_u16(cc, OP_CHECK_EXACT, check, e->sp);
            emit_byte(cc, (uint8_t)argc, e->sp);
            emit_byte(cc, (uint8_t)rolled, e->sp);
            return TY_DISTRIB;
        }
        compile_args(cc, e);
        emit_op_u16(cc, OP_CHECK, check, e->sp);
        emit_byte(cc, (uint8_t)argc, e->sp);
        return TY_ROLL;
    }
    const decl *d = program_find_decl(cc->p, DK_PROCEDURE, id);
    int ruling = d ? -1 : rules_ruling(cc->p->rules, id);
    if (ruling >= 0)
        return compile_ruling_for(cc, e, ruling);
    /* a word retired says what replaced it, first */
    const char *module = d || retired_instead("function", e->text) ? NULL : comp_library_module_of(e->text);
    if (module) {
        comp_error(cc, e->sp, "unknown function '%s': it is the library's, in module %s (use %s)", e->text, module,
                   module);
        compile_args(cc, e);
        emit_op(cc, OP_NIL, e->sp);
        return TY_ANY;
    }
    if (!d) {
        unknown_name(cc, e, "function");
        compile_args(cc, e);
        emit_op(cc, OP_NIL, e->sp);
        return TY_ANY;
    }
    if (argc != d->nparams)
        comp_error(cc, e->sp, "procedure %s takes %d argument%s, not %d", e->text, d->nparams,
                   d->nparams == 1 ? "" : "s", argc);
    if (cc->dist_mode) { /* walked over its arguments' outcomes and its own dice */
        unsigned rolled = compile_exact_args(cc, e);
        emit_op_u16(cc, OP_CALL_EXACT, program_decl_index(cc->p, d), e->sp);
        emit_byte(cc, (uint8_t)argc, e->sp);
        emit_byte(cc, (uint8_t)rolled, e->sp);
        return TY_ANY;
    }
    compile_args(cc, e);
    emit_op_u16(cc, OP_CALL, program_decl_index(cc->p, d), e->sp);
    emit_byte(cc, (uint8_t)argc, e->sp);
    return TY_ANY;
}

/* The terms of a + and - tree, with their signs; false past 8 terms. */
static bool flatten_sum(const node *e, const node **terms, bool *negated, int *n, bool neg)
{
    if (e->kind == AST_BINARY && (e->op == '+' || e->op == '-'))
        return flatten_sum(e->a, terms, negated, n, neg) &&
               flatten_sum(e->b, terms, negated, n, e->op == '-' ? !neg : neg);
    if (*n >= 8)
        return false;
    terms[*n] = e;
    negated[*n] = neg;
    (*n)++;
    return true;
}

/* A sum of dice and whole-number literals (`d20 + 5`, `2d6 - 1`) as one
 * dice expression of the program: its index, or -1 when a term is not a
 * literal (or too many, or past the u16 operand). Not inlined: its dexpr
 * would make each level of compile_expr's recursion 1 KB of stack. */
static __attribute__((noinline)) int fold_literal_sum(compiler *cc, const node *const *terms, const bool *negated,
                                                      int n)
{
    if (n < 1 || n > DEXPR_MAX_TERMS || cc->p->ndice >= 0xffff)
        return -1;
    int dice_terms = 0;
    for (int i = 0; i < n; i++) {
        if (terms[i]->kind != AST_DICE && terms[i]->kind != AST_INT)
            return -1;
        dice_terms += terms[i]->kind == AST_DICE;
    }
    if (!dice_terms)
        return -1; /* `roll 5` is the number itself, with no breakdown */
    dexpr dx = {.nterms = (uint8_t)n};
    for (int i = 0; i < n; i++) {
        dterm *t = &dx.terms[i];
        t->sign = negated[i] ? -1 : 1;
        t->times = 1;
        if (terms[i]->kind == AST_INT) {
            t->is_constant = true;
            t->constant = terms[i]->num;
        } else {
            dice_error err;
            if (dice_parse(terms[i]->text, strlen(terms[i]->text), &t->d, &err) != 0 || !dice_fit(cc, &t->d))
                return -1; /* compiled the usual way, which reports it */
        }
    }
    /* packed (see dexpr): plain dice, at most DICE_PACKED_MAX of them and
       32 bits of faces, and constants that leave room for any sum of them */
    bool plain = true;
    uint32_t faces = 0, face_bits = 0;
    int64_t constants = 0;
    int8_t pool = -1;
    for (int i = 0; i < n && plain; i++) {
        const dterm *t = &dx.terms[i];
        if (!t->is_constant) {
            plain = dice_is_plain(&t->d);
            faces += (uint32_t)t->d.count;
            face_bits += (uint32_t)t->d.count * dice_face_bits(t->d.sides);
            pool = (int8_t)(t->sign > 0 ? i : -1);
        } else if (t->constant == INT64_MIN ||
                   __builtin_add_overflow(constants, t->sign > 0 ? t->constant : -t->constant, &constants)) {
            plain = false;
        }
    }
    dx.packed =
        plain && faces <= DICE_PACKED_MAX && face_bits <= 32 && constants > INT64_MIN / 2 && constants < INT64_MAX / 2;
    dx.plain_offset = constants;
    /* one pool added to constants may have a plan; one die kept (`d20`,
       `1d20kh1`: not `1d20dl1`, which is 0) rolls with no plan at all */
    if (dx.packed && dice_terms == 1 && pool >= 0 && dice_plan_packed(&dx.terms[pool].d, &dx.packed_plan) &&
        dx.packed_plan.count == 1 && !dx.packed_plan.drop_one)
        dx.packed_die = dx.packed_plan.sides;
    int id = program_add_dice(cc->p, &dx);
    if (id < 0)
        cc->oom = true;
    return id;
}

/* `roll E` outside a distribution. Not inlined: its arrays would make
   each level of compile_expr's recursion larger. */
static __attribute__((noinline)) sty compile_roll(compiler *cc, const node *e)
{
    /* A sum of terms rolls without building dice at run time; a sum of
       literals is one expression of the program, rolled by one
       instruction. */
    const node *terms[8];
    bool negated[8];
    int n = 0;
    bool flat = flatten_sum(e->a, terms, negated, &n, false);
    int folded = flat ? fold_literal_sum(cc, terms, negated, n) : -1;
    if (folded >= 0) {
        emit_op(cc, OP_ROLL_CONST, e->sp);
        emit_byte(cc, (uint8_t)(folded & 0xff), e->sp);
        emit_byte(cc, (uint8_t)(folded >> 8), e->sp);
        return TY_ROLL;
    }
    if (flat && n > 1) {
        unsigned mask = 0;
        for (int i = 0; i < n; i++) {
            sty t = compile_expr(cc, terms[i]);
            if (t != TY_ANY && t != TY_DICE && !numeric(t))
                comp_error(cc, terms[i]->sp, "cannot roll %s", sty_name(t));
            if (negated[i])
                mask |= 1u << i;
        }
        emit_op(cc, OP_ROLL_SUM, e->sp);
        emit_byte(cc, (uint8_t)n, e->sp);
        emit_byte(cc, (uint8_t)mask, e->sp);
        return TY_ROLL;
    }
    sty t = compile_expr(cc, e->a);
    if (t != TY_ANY && t != TY_DICE && !numeric(t))
        comp_error(cc, e->sp, "cannot roll %s", sty_name(t));
    emit_op(cc, OP_ROLL, e->sp);
    return TY_ROLL;
}

static sty compile_expr_inner(compiler *cc, const node *e);

/* In a distribution context, every value that may be dice becomes its
   exact distribution as soon as it is produced. */
sty compile_expr(compiler *cc, const node *e)
{
    sty t = compile_expr_inner(cc, e);
    if (cc->roll_mode && !cc->dist_mode && t == TY_DICE && e->kind != AST_ROLL) {
        emit_op(cc, OP_ROLL, e->sp);
        return TY_ROLL;
    }
    if (!cc->dist_mode || (t != TY_DICE && t != TY_ANY))
        return t;
    switch ((ast_kind)e->kind) {
    case AST_DICE:
    case AST_NAME:
    case AST_WORD:
    case AST_MEMBER:
    case AST_CALL: emit_op(cc, OP_DISTRIB, e->sp); return t == TY_DICE ? TY_DISTRIB : TY_ANY;
    default: return t;
    }
}

static sty compile_expr_inner(compiler *cc, const node *e)
{
    value v;
    switch ((ast_kind)e->kind) {
    case AST_INT: emit_const(cc, value_int(e->num), e->sp); return TY_NUM;
    case AST_FRAC:
        if (rat_make(e->num, e->den, V_FRAC, &v) != ARITH_OK) {
            comp_error(cc, e->sp, "number is too large");
            v = value_int(0);
        }
        emit_const(cc, v, e->sp);
        return TY_NUM;
    case AST_QTY: {
        v = value_nil();
        sty t = quantity(cc, e, &v);
        if (t == TY_DIST && e->text[0] == 's') {
            /* squares: so many times the grid's square, known when it runs */
            value n;
            if (rat_make(e->num, e->den, V_FRAC, &n) != ARITH_OK) {
                comp_error(cc, e->sp, "number is too large");
                n = value_int(0);
            }
            emit_const(cc, n, e->sp);
            emit_op(cc, OP_CALL_BUILTIN, e->sp);
            emit_byte(cc, (uint8_t)BI_square_side, e->sp);
            emit_byte(cc, 0, e->sp);
            emit_op(cc, OP_MUL, e->sp);
            return TY_DIST;
        }
        emit_const(cc, v, e->sp);
        return t;
    }
    case AST_DICE:
        if (!dice_literal(cc, e, &v))
            v = value_nil();
        emit_const(cc, v, e->sp);
        return TY_DICE;
    case AST_STRING: emit_const(cc, value_ref(V_STR, HOME_PROGRAM, comp_intern(cc, e->text)), e->sp); return TY_STR;
    case AST_BOOL: emit_op(cc, e->num ? OP_TRUE : OP_FALSE, e->sp); return TY_BOOL;
    case AST_NAME:
    case AST_WORD: return compile_name(cc, e);
    case AST_MEMBER: return compile_member(cc, e);
    case AST_INDEX: return compile_index(cc, e);
    case AST_CALL: return compile_call(cc, e);
    case AST_LIST: {
        int n = compile_args(cc, e);
        if (n > 255)
            comp_error(cc, e->sp, "too many elements in a list literal (limit is 255)");
        emit_op_u8(cc, OP_LIST, (uint8_t)(n > 255 ? 255 : n), e->sp);
        return TY_LIST;
    }
    case AST_UNARY: {
        sty t = compile_expr(cc, e->a);
        if (e->op == NOT) {
            check_condition(cc, t, e->a);
            emit_op(cc, OP_NOT, e->sp);
            return TY_BOOL;
        }
        if (t != TY_ANY && !numeric(t) && t != TY_DIST && t != TY_DICE && t != TY_DISTRIB)
            comp_error(cc, e->sp, "cannot negate %s", sty_name(t));
        emit_op(cc, OP_NEG, e->sp);
        return t == TY_ROLL ? TY_NUM : t;
    }
    case AST_BINARY: {
        if ((e->op == AND || e->op == OR) && cc->dist_mode) {
            /* both sides are outcomes of independent dice: and is the
               smaller of two 0/1 outcomes, or the larger; each side is
               made 0/1 first (not not), or -2 and 0 would be -2, true */
            check_condition(cc, compile_expr(cc, e->a), e->a);
            emit_op(cc, OP_NOT, e->a->sp);
            emit_op(cc, OP_NOT, e->a->sp);
            check_condition(cc, compile_expr(cc, e->b), e->b);
            emit_op(cc, OP_NOT, e->b->sp);
            emit_op(cc, OP_NOT, e->b->sp);
            emit_op(cc, OP_CALL_BUILTIN, e->sp);
            emit_byte(cc, e->op == AND ? BI_min : BI_max, e->sp);
            emit_byte(cc, 2, e->sp);
            return TY_ANY;
        }
        if (e->op == AND || e->op == OR) {
            check_condition(cc, compile_expr(cc, e->a), e->a);
            size_t j = emit_jump(cc, e->op == AND ? OP_AND_JUMP : OP_OR_JUMP, e->sp);
            check_condition(cc, compile_expr(cc, e->b), e->b);
            patch_jump(cc, j);
            return TY_BOOL;
        }
        sty a = compile_expr(cc, e->a);
        sty b = compile_expr(cc, e->b);
        sty r = binary_type(cc, e->op, a, b, e);
        opcode op = binary_opcode(e->op);
        if ((a == TY_ROLL || b == TY_ROLL) && op >= OP_EQ && op <= OP_GE && !cc->dist_mode) {
            /* a roll compared with its target: the breakdown shows it; the
               roll may stand on either side (CMP_ROLL_RIGHT) */
            bool right = a != TY_ROLL;
            emit_op(cc, OP_CMP_ROLL, e->sp);
            emit_byte(cc, (uint8_t)((op - OP_EQ) | (right ? CMP_ROLL_RIGHT : 0)), e->sp);
            int label = expr_label(cc, right ? e->a : e->b);
            emit_byte(cc, (uint8_t)(label & 0xff), e->sp);
            emit_byte(cc, (uint8_t)((label >> 8) & 0xff), e->sp);
            return r;
        }
        emit_op(cc, op, e->sp);
        return r;
    }
    case AST_COND: {
        if (cc->dist_mode) { /* a mixture: both branches weigh in */
            check_condition(cc, compile_expr(cc, e->a), e->a);
            sty a = compile_expr(cc, e->b), b = compile_expr(cc, e->c);
            emit_op(cc, OP_CHOOSE, e->sp);
            return a == b ? a : TY_ANY;
        }
        check_condition(cc, compile_expr(cc, e->a), e->a);
        size_t to_else = emit_jump(cc, OP_JUMP_IF_FALSE, e->sp);
        sty a = compile_expr(cc, e->b);
        size_t to_end = emit_jump(cc, OP_JUMP, e->sp);
        patch_jump(cc, to_else);
        sty b = compile_expr(cc, e->c);
        patch_jump(cc, to_end);
        if (a == b)
            return a;
        if (numeric(a) && numeric(b))
            return TY_NUM;
        if (a != TY_ANY && b != TY_ANY && a != TY_NIL && b != TY_NIL)
            comp_error(cc, e->sp, "the two branches give different types: %s and %s", sty_name(a), sty_name(b));
        return TY_ANY;
    }
    case AST_ROLL: {
        if (cc->dist_mode) { /* the roll's outcome is its distribution */
            sty t = compile_expr(cc, e->a);
            if (t != TY_ANY && t != TY_DICE && t != TY_DISTRIB && !numeric(t))
                comp_error(cc, e->sp, "cannot roll %s", sty_name(t));
            return t == TY_DICE ? TY_DISTRIB : t;
        }
        return compile_roll(cc, e);
    }
    case AST_LET_IN: return compile_let_in(cc, e);
    case AST_SPAN: {
        sty a = compile_expr(cc, e->a), b = compile_expr(cc, e->b);
        if (a != TY_ANY && b != TY_ANY && a != b && !(numeric(a) && numeric(b)))
            comp_error(cc, e->sp, "an interval needs two values of one kind, not %s and %s", sty_name(a), sty_name(b));
        emit_op(cc, OP_INTERVAL, e->sp);
        return TY_LIST;
    }
    default:
        comp_error(cc, e->sp, "expected an expression, not a %s", ast_kind_name((ast_kind)e->kind));
        emit_op(cc, OP_NIL, e->sp);
        return TY_ANY;
    }
}

/* --- statements ---------------------------------------------------------------- */

bool is_statement(const node *n)
{
    switch ((ast_kind)n->kind) {
    case AST_LET:
    case AST_ASSIGN:
    case AST_IF:
    case AST_FOR:
    case AST_REPEAT:
    case AST_EMIT:
    case AST_RETURN:
    case AST_PRINT:
    case AST_FAIL:
    case AST_ACT:
    case AST_EXPR_STMT: return true;
    case AST_CLAUSE: return cmd_in_body(n);
    default: return false;
    }
}

static void begin_scope(compiler *cc)
{
    cc->fn->depth++;
}

static void end_scope(compiler *cc, span sp)
{
    fn_state *fs = cc->fn;
    fs->depth--;
    while (fs->nlocals > 0 && fs->locals[fs->nlocals - 1].depth > fs->depth) {
        emit_op(cc, OP_POP, sp);
        fs->nlocals--;
    }
}

void compile_block(compiler *cc, const node *block)
{
    begin_scope(cc);
    for (const node *s = block ? block->list : NULL; s; s = s->next)
        compile_stmt(cc, s);
    end_scope(cc, block ? block->sp : (span){0});
}

static int add_global(compiler *cc, int name, sty type)
{
    program *p = cc->p;
    /* one typed at the table is the GM's own, not the table's state */
    int g = program_add_global(p, name, cc->opts && cc->opts->typed);
    if (g < 0) {
        cc->oom = true;
        return 0;
    }
    size_t cap = cc->global_types_cap;
    sty *types = mem_grow(cc->global_types, sizeof(sty), &cap, (size_t)g + 1);
    if (types) {
        /* zero the new tail so earlier globals of other compiles read as any */
        for (size_t i = cc->global_types_cap; i < cap; i++)
            types[i] = TY_ANY;
        cc->global_types = types;
        cc->global_types_cap = cap;
        cc->global_types[g] = type;
    }
    return g;
}

static void compile_assign(compiler *cc, const node *s)
{
    const node *target = s->a;
    if (target->kind == AST_MEMBER) {
        /* `wolf_2.hp -= 7` typed at the table sets a stat by hand, which no
           rule answers: its new value is said */
        bool echo = cc->opts && cc->opts->typed && cc->fn->top_level && cc->fn->depth == 0;
        compile_expr(cc, target->a);
        if (echo)
            emit_op(cc, OP_DUP, s->sp);
        int id = comp_intern(cc, target->text);
        const decl *d = find_stat(cc, id);
        if (!d) {
            const char *sug = suggest_name(cc, target->text);
            comp_error(cc, target->sp, "no stat or resource '%s' to assign%s%s%s", target->text,
                       sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
        }
        if (d && d->kind == DK_STAT && stat_is_derived(cc, d))
            comp_error(cc, target->sp, "%s is derived from its formula and cannot be assigned", target->text);
        int idx = d ? program_decl_index(cc->p, d) : 0;
        if (s->op != '=') {
            emit_op(cc, OP_DUP, s->sp);
            emit_op_u16(cc, OP_GET_STAT, idx, target->sp);
        }
        sty t = compile_expr(cc, s->b);
        if (s->op != '=') {
            binary_type(cc, s->op, d ? stat_type(d) : TY_ANY, t, s);
            emit_op(cc, s->op == '+' ? OP_ADD : OP_SUB, s->sp);
        } else
            resource_assign_fits(cc, d, t, s->b->sp);
        emit_op_u16(cc, OP_SET_STAT, idx, s->sp);
        if (echo)
            emit_op_u16(cc, OP_ECHO_STAT, idx, s->sp);
        return;
    }
    int id = comp_intern(cc, target->text);
    int slot = find_local(cc, id), g = slot < 0 ? find_global(cc, id) : -1;
    if (slot < 0 && g < 0) {
        const decl *d = find_stat(cc, id);
        if (d) {
            /* `hp -= 3` inside a body means self's resource */
            emit_op(cc, OP_SELF, target->sp);
            node member = *target;
            member.kind = AST_MEMBER;
            (void)member;
            int idx = program_decl_index(cc->p, d);
            if (s->op != '=') {
                emit_op(cc, OP_DUP, s->sp);
                emit_op_u16(cc, OP_GET_STAT, idx, target->sp);
            }
            sty t = compile_expr(cc, s->b);
            if (s->op != '=') {
                binary_type(cc, s->op, stat_type(d), t, s);
                emit_op(cc, s->op == '+' ? OP_ADD : OP_SUB, s->sp);
            } else
                resource_assign_fits(cc, d, t, s->b->sp);
            emit_op_u16(cc, OP_SET_STAT, idx, s->sp);
            return;
        }
        unknown_name(cc, target, "variable");
        return;
    }
    if (s->op != '=') {
        if (slot >= 0)
            emit_op_u8(cc, OP_GET_LOCAL, (uint8_t)slot, target->sp);
        else
            emit_op_u16(cc, OP_GET_GLOBAL, g, target->sp);
    }
    sty t = compile_expr(cc, s->b);
    if (s->op != '=') {
        sty cur = slot >= 0 ? cc->fn->locals[slot].type : TY_ANY;
        binary_type(cc, s->op, cur, t, s);
        emit_op(cc, s->op == '+' ? OP_ADD : OP_SUB, s->sp);
    }
    if (slot >= 0)
        emit_op_u8(cc, OP_SET_LOCAL, (uint8_t)slot, s->sp);
    else
        emit_op_u16(cc, OP_SET_GLOBAL, g, s->sp);
}

void compile_stmt(compiler *cc, const node *s)
{
    switch ((ast_kind)s->kind) {
    case AST_LET: {
        int id = comp_intern(cc, s->text);
        sty t = compile_expr(cc, s->b);
        /* `let best = nothing` holds a value to come (a creature found in a
           loop): what it will hold is not known, and checked as it is used */
        if (t == TY_NIL)
            t = TY_ANY;
        if (cc->fn->top_level && cc->fn->depth == 0) {
            int g = find_global(cc, id);
            if (g < 0)
                g = add_global(cc, id, t);
            else if (cc->global_types)
                cc->global_types[g] = t;
            emit_op_u16(cc, OP_SET_GLOBAL, g, s->sp);
        } else {
            fn_add_local(cc, id, t, s->sp); /* the value stays on the stack as the slot */
        }
        break;
    }
    case AST_ASSIGN: compile_assign(cc, s); break;
    case AST_IF: {
        check_condition(cc, compile_expr(cc, s->a), s->a);
        size_t to_else = emit_jump(cc, OP_JUMP_IF_FALSE, s->sp);
        compile_block(cc, s->b);
        if (s->c) {
            size_t to_end = emit_jump(cc, OP_JUMP, s->sp);
            patch_jump(cc, to_else);
            compile_block(cc, s->c);
            patch_jump(cc, to_end);
        } else {
            patch_jump(cc, to_else);
        }
        break;
    }
    case AST_FOR: {
        begin_scope(cc);
        sty t = compile_expr(cc, s->a);
        if (t != TY_ANY && t != TY_LIST)
            comp_error(cc, s->a->sp, "'for' needs a list, not %s", sty_name(t));
        fn_add_local(cc, comp_intern(cc, " list"), TY_LIST, s->sp);
        emit_const(cc, value_int(0), s->sp);
        fn_add_local(cc, comp_intern(cc, " index"), TY_NUM, s->sp);
        size_t top = cc->fn->c ? cc->fn->c->len : 0;
        size_t exit = emit_jump(cc, OP_ITER_NEXT, s->sp);
        begin_scope(cc);
        fn_add_local(cc, comp_intern(cc, s->text), TY_ANY, s->c ? s->c->sp : s->sp);
        for (const node *st = s->b ? s->b->list : NULL; st; st = st->next)
            compile_stmt(cc, st);
        end_scope(cc, s->sp);
        emit_loop(cc, top, s->sp);
        patch_jump(cc, exit);
        end_scope(cc, s->sp);
        break;
    }
    case AST_REPEAT: {
        begin_scope(cc);
        sty t = compile_expr(cc, s->a);
        if (t != TY_ANY && !numeric(t))
            comp_error(cc, s->a->sp, "'repeat' needs a count, not %s", sty_name(t));
        fn_add_local(cc, comp_intern(cc, " count"), TY_NUM, s->sp);
        size_t top = cc->fn->c ? cc->fn->c->len : 0;
        size_t exit = emit_jump(cc, OP_REPEAT_NEXT, s->sp);
        compile_block(cc, s->b);
        emit_loop(cc, top, s->sp);
        patch_jump(cc, exit);
        end_scope(cc, s->sp);
        break;
    }
    case AST_EMIT: {
        int argc = compile_args(cc, s);
        rules *r = cc->p->rules;
        int ev = rules_event(r, comp_intern(cc, s->text));
        if (ev < 0) {
            cc->oom = true;
            break;
        }
        if (ev < EV_BUILTIN_COUNT) {
            comp_error(cc, s->sp, "%s is an event of the runtime; rules cannot emit it", s->text);
        } else if (argc > TRIGGER_MAX_PARAMS) {
            comp_error(cc, s->sp, "an event has at most %d arguments, not %d", TRIGGER_MAX_PARAMS, argc);
        } else if (r->events[ev].emitted && r->events[ev].nargs != argc) {
            comp_error(cc, s->sp, "event %s is emitted elsewhere with %d argument%s, here with %d", s->text,
                       r->events[ev].nargs, r->events[ev].nargs == 1 ? "" : "s", argc);
        } else {
            r->events[ev].emitted = true;
            r->events[ev].nargs = argc;
        }
        emit_op_u16(cc, OP_EMIT, ev, s->sp);
        emit_byte(cc, (uint8_t)argc, s->sp);
        break;
    }
    case AST_ACT: compile_act_stmt(cc, s); break;
    case AST_CLAUSE: compile_body_command(cc, s); break;
    case AST_COMMAND: cmd_not_in_body(cc, s); break;
    case AST_RETURN:
        if (s->a)
            compile_expr(cc, s->a);
        else
            emit_op(cc, OP_NIL, s->sp);
        emit_op(cc, OP_RETURN, s->sp);
        break;
    case AST_PRINT: {
        int n = compile_args(cc, s);
        if (n > 255)
            comp_error(cc, s->sp, "too many values to print (limit is 255)");
        emit_op_u8(cc, OP_PRINT, (uint8_t)(n > 255 ? 255 : n), s->sp);
        break;
    }
    case AST_FAIL:
        compile_expr(cc, s->a);
        emit_op(cc, OP_FAIL, s->sp);
        break;
    case AST_EXPR_STMT:
        compile_expr(cc, s->a);
        emit_op(cc, OP_POP, s->sp);
        break;
    case AST_BLOCK: compile_block(cc, s); break;
    default: comp_error(cc, s->sp, "expected a statement here, not a %s", ast_kind_name((ast_kind)s->kind)); break;
    }
}
