/* decl_effects: what a creature can be in (`condition`, with its
 * modifiers), how typed bonuses stack (`bonus`), and what two creatures can
 * be to each other (`relation`). */
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/base/mem.h"

static r_condition *cond_of(decl_state *ds)
{
    return &ds->cc->p->rules->conditions[ds->object];
}

/* Grows one of a condition's arrays by one zeroed element. */
static void *push(compiler *cc, void **arr, int *n, size_t elem)
{
    char *g = mem_realloc(*arr, (size_t)*n * elem, (size_t)(*n + 1) * elem);
    if (!g) {
        cc->oom = true;
        return NULL;
    }
    *arr = g;
    memset(g + (size_t)*n * elem, 0, elem);
    return g + (size_t)(*n)++ * elem;
}

/* The names a modifier's formulas see: the check's parameters, or none
   beyond self (the bearer). */
static void check_names(decl_state *ds, int check, fctx *fx)
{
    *fx = (fctx){.what = ds->label};
    if (check < 0)
        return;
    /* parameter names were recorded when the check's name was */
    const r_check *c = &ds->cc->p->rules->checks[check];
    for (int i = 0; i < c->nparams; i++)
        fctx_add(fx, program_string(ds->cc->p, c->params[i]));
}

/* `[incoming] CHECK` of a modifier of a check: fills m's target and index;
   false (said) when the name is no check. */
static bool modifier_check(decl_state *ds, ccur *k, r_modifier *m, const char *usage)
{
    compiler *cc = ds->cc;
    bool incoming = ccur_accept(k, "incoming");
    const node *at = k->at;
    int name = ccur_name(k, incoming ? "the check made against the bearer" : "a check");
    if (name < 0)
        return false;
    int check = rules_check(cc->p->rules, name);
    if (check < 0) {
        const char *hint = suggest_name(cc, at->text);
        if (hint)
            comp_error(cc, at->sp, "no check '%s'; did you mean '%s'? (%s)", at->text, hint, usage);
        else
            comp_error(cc, at->sp, "'%s' is not a check; %s", at->text, usage);
        return false;
    }
    m->target = incoming ? MODT_INCOMING : MODT_CHECK;
    m->index = check;
    return true;
}

/* `as BONUS`, if there: the modifier's bonus type. */
static bool modifier_bonus(decl_state *ds, ccur *k, r_modifier *m)
{
    if (!ccur_accept(k, "as"))
        return true;
    const node *bat = k->at;
    int b = ccur_name(k, "a bonus type");
    if (b < 0)
        return false;
    m->bonus = rules_bonus(ds->cc->p->rules, b);
    if (m->bonus < 0) {
        comp_error(ds->cc, bat->sp, "no bonus type '%s'; declare it: bonus %s [stacks]", bat->text, bat->text);
        return false;
    }
    return true;
}

static void push_modifier(decl_state *ds, const r_modifier *m)
{
    r_condition *c = cond_of(ds);
    r_modifier *slot = push(ds->cc, (void **)&c->mods, &c->nmods, sizeof(r_modifier));
    if (slot)
        *slot = *m;
}

/* `modify [incoming] NAME by EXPR [as BONUS] [when|unless EXPR]`
   `set STAT to EXPR [when|unless EXPR]`, `scale STAT by EXPR [...]` */
static void cond_modify(decl_state *ds, const node *clause, ccur *k)
{
    compiler *cc = ds->cc;
    rules *r = cc->p->rules;
    r_modifier m = {.bonus = -1, .where = clause->sp};
    const char *word = clause->text;
    m.op = strcmp(word, "set") == 0 ? MOD_SET : strcmp(word, "scale") == 0 ? MOD_SCALE : MOD_ADD;
    bool incoming = m.op == MOD_ADD && ccur_accept(k, "incoming");
    const node *at = k->at;
    int name = ccur_name(k, incoming ? "the check made against the bearer" : "a stat or check");
    if (name < 0)
        return;
    int check = rules_check(r, name);
    const decl *stat = program_find_decl(cc->p, DK_STAT, name);
    if (incoming || (check >= 0 && !stat)) {
        if (check < 0) {
            comp_error(cc, at->sp,
                       "'%s' is not a check; 'modify incoming' names a check, as in 'modify incoming "
                       "attack by 2'",
                       at->text);
            return;
        }
        if (m.op != MOD_ADD) {
            comp_error(cc, at->sp, "a check is modified with 'modify', not '%s'", word);
            return;
        }
        m.target = incoming ? MODT_INCOMING : MODT_CHECK;
        m.index = check;
    } else if (stat) {
        int si = rules_stat(r, program_decl_index(cc->p, stat));
        if (si >= 0 && r->stats[si].per_side) {
            comp_error(cc, at->sp, "%s is held per side: a condition on a creature cannot modify it (set it instead)",
                       at->text);
            return;
        }
        /* a stat is named by its first declaration, whatever overrides it */
        m.target = MODT_STAT;
        m.index = program_decl_index(cc->p, stat);
        for (size_t j = 0; j < cc->p->ndecls; j++)
            if (cc->p->decls[j].kind == DK_STAT && cc->p->decls[j].name == name) {
                m.index = (int)j;
                break;
            }
    } else {
        const char *hint = suggest_name(cc, at->text);
        if (program_find_decl(cc->p, DK_RESOURCE, name))
            comp_error(cc, at->sp, "'%s' is a resource; modify its maximum stat instead", at->text);
        else if (hint)
            comp_error(cc, at->sp, "no stat or check '%s'; did you mean '%s'?", at->text, hint);
        else
            comp_error(cc, at->sp, "no stat or check '%s'", at->text);
        return;
    }
    fctx fx;
    check_names(ds, m.target == MODT_STAT ? -1 : check, &fx);
    if (!ccur_expect(k, m.op == MOD_SET ? "to" : "by"))
        return;
    if (!ccur_expr(k, &fx, TY_ANY, "the amount", &m.amount))
        return;
    if (!modifier_bonus(ds, k, &m))
        return;
    ccur_when(k, &fx, &m.when, &m.negate);
    ccur_end(k);
    push_modifier(ds, &m);
}

#define ROLL_USAGE \
    "roll [incoming] CHECK keep highest|lowest | reroll [below] N [once] | with DICE [as BONUS] [when|unless EXPR]"

/* `roll [incoming] CHECK CHANGE [as BONUS] [when|unless EXPR]`: the
   check's die is rolled otherwise (an extra die kept or dropped, a
   reroll, other dice). */
static void cond_roll(decl_state *ds, const node *clause, ccur *k)
{
    r_modifier m = {.op = MOD_DICE, .bonus = -1, .where = clause->sp};
    if (!modifier_check(ds, k, &m, "as in 'roll attack keep highest'"))
        return;
    fctx fx;
    check_names(ds, m.index, &fx);
    static const char *const changes[] = {"keep", "reroll", "with"};
    int change = ccur_choice(k, "a change of the dice", changes, 3);
    if (change < 0)
        return;
    if (change == 0) {
        static const char *const ends[] = {"highest", "lowest"};
        int end = ccur_choice(k, "which dice are kept", ends, 2);
        if (end < 0)
            return;
        m.change = end == 0 ? CHANGE_KEEP_HIGHEST : CHANGE_KEEP_LOWEST;
    } else if (change == 1) {
        m.change = CHANGE_REROLL;
        m.reroll_cmp = ccur_accept(k, "below") ? DICE_CMP_LT : DICE_CMP_EQ;
        if (!ccur_expr(k, &fx, TY_NUM, "the face rerolled", &m.amount))
            return;
        m.once = ccur_accept(k, "once");
    } else {
        m.change = CHANGE_WITH;
        if (!ccur_expr(k, &fx, TY_DICE, "the dice rolled instead", &m.amount))
            return;
    }
    if (!modifier_bonus(ds, k, &m))
        return;
    ccur_when(k, &fx, &m.when, &m.negate);
    ccur_end(k);
    push_modifier(ds, &m);
}

/* `forbid A, B [when EXPR]` and `protect from A [unless EXPR]`: actions,
   slots or action kinds. */
static void cond_forbid(decl_state *ds, const node *clause, ccur *k)
{
    compiler *cc = ds->cc;
    rules *r = cc->p->rules;
    bool protect = strcmp(clause->text, "protect") == 0;
    if (protect && !ccur_expect(k, "from"))
        return;
    r_forbid items[16];
    int n = 0;
    while (!ccur_done(k) && !ccur_is(k, "when") && !ccur_is(k, "unless")) {
        ccur_skip_commas(k);
        const node *at = k->at;
        int name = ccur_name(k, protect ? "an action or kind of action" : "an action, slot or kind of action");
        if (name < 0)
            return;
        r_forbid f = {.where = at->sp};
        int i;
        if ((i = rules_action(r, name)) >= 0) {
            f.kind = FORBID_ACTION;
            f.index = i;
        } else if (!protect && (i = rules_slot(r, name)) >= 0) {
            f.kind = FORBID_SLOT;
            f.index = i;
        } else {
            f.kind = FORBID_KIND; /* `kind NAME` of actions and triggers */
            f.index = name;
        }
        if (n >= (int)(sizeof items / sizeof items[0])) {
            comp_error(cc, at->sp, "at most %d things in one '%s' clause (write another)",
                       (int)(sizeof items / sizeof items[0]), clause->text);
            return;
        }
        items[n++] = f;
        ccur_skip_commas(k);
    }
    if (n == 0) {
        ccur_error(k, "name what is %s", protect ? "warded off" : "forbidden");
        return;
    }
    fctx fx = {.what = ds->label};
    if (protect)
        fctx_add(&fx, "actor");
    rexpr when = {0};
    bool negate = false;
    ccur_when(k, &fx, &when, &negate);
    ccur_end(k);
    for (int i = 0; i < n; i++) {
        items[i].when = when;
        items[i].negate = negate;
        r_condition *c = cond_of(ds);
        r_forbid *slot = protect ? push(cc, (void **)&c->protects, &c->nprotects, sizeof(r_forbid))
                                 : push(cc, (void **)&c->forbids, &c->nforbids, sizeof(r_forbid));
        if (slot)
            *slot = items[i];
    }
}

static int condition_named(decl_state *ds, ccur *k, const char *what)
{
    const node *at = k->at;
    int name = ccur_name(k, what);
    if (name < 0)
        return -1;
    int c = rules_condition(ds->cc->p->rules, name);
    if (c < 0) {
        const char *hint = suggest_name(ds->cc, at->text);
        if (hint)
            comp_error(ds->cc, at->sp, "no condition '%s'; did you mean '%s'?", at->text, hint);
        else
            comp_error(ds->cc, at->sp, "no condition '%s'", at->text);
    }
    return c;
}

static void cond_implies(decl_state *ds, const node *clause, ccur *k)
{
    r_implies im = {.where = clause->sp};
    im.condition = condition_named(ds, k, "the condition it brings");
    if (im.condition < 0)
        return;
    if (im.condition == ds->object) {
        comp_error(ds->cc, clause->sp, "a condition cannot imply itself");
        return;
    }
    fctx fx = {.what = ds->label};
    ccur_when(k, &fx, &im.when, &im.negate);
    ccur_end(k);
    r_condition *c = cond_of(ds);
    r_implies *slot = push(ds->cc, (void **)&c->implies, &c->nimplies, sizeof(r_implies));
    if (slot)
        *slot = im;
}

static void cond_excludes(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    while (!ccur_done(k)) {
        ccur_skip_commas(k);
        if (ccur_done(k))
            break;
        int other = condition_named(ds, k, "a condition it ends");
        if (other < 0)
            return;
        r_condition *c = cond_of(ds);
        int *slot = push(ds->cc, (void **)&c->excludes, &c->nexcludes, sizeof(int));
        if (slot)
            *slot = other;
        ccur_skip_commas(k);
    }
}

static void cond_requires(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    fctx fx = {.what = ds->label};
    rexpr e;
    if (ccur_expr(k, &fx, TY_BOOL, "what must hold to apply it", &e)) {
        cond_of(ds)->requires = e;
        cond_of(ds)->requires_else = clause_else_text(k);
    }
    ccur_end(k);
}

static void cond_lasts(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    fctx fx = {.what = ds->label};
    rexpr e;
    if (ccur_duration(k, &fx, &e))
        cond_of(ds)->lasts = e;
    ccur_end(k);
}

static void cond_holds(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (!ccur_expect(k, "when"))
        return;
    fctx fx = {.what = ds->label};
    rexpr e;
    if (!ccur_expr(k, &fx, TY_BOOL, "when the bearer is in this condition", &e))
        return;
    cond_of(ds)->holds = e;
    ccur_end(k);
}

static void cond_why(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    const node *s = ccur_take(k);
    if (!s || s->kind != AST_STRING || !s->text[0]) {
        comp_error(ds->cc, s ? s->sp : k->end,
                   "'why' takes a few words in quotes, as in 'why \"until its first turn\"'");
        return;
    }
    int id = comp_intern(ds->cc, s->text);
    if (id < 0)
        return;
    cond_of(ds)->why = id;
    cond_of(ds)->has_why = true;
    ccur_end(k);
}

static void cond_stacks(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    cond_of(ds)->stacks = true;
    ccur_end(k);
}

/* `ends on EVENT(a, b) [when EXPR]`: the bearer is `self`; the event's
   arguments are named as in a trigger. */
static void cond_ends(decl_state *ds, const node *clause, ccur *k)
{
    compiler *cc = ds->cc;
    if (!ccur_expect(k, "on"))
        return;
    const node *pat = ccur_take(k);
    if (!pat || pat->kind != AST_CALL) {
        comp_error(cc, pat ? pat->sp : k->end,
                   "'ends on' takes an event with names for its arguments, as in "
                   "'ends on turn_start(c) when c == self'");
        return;
    }
    r_ends_on e = {.where = clause->sp};
    e.event = rules_event(cc->p->rules, comp_intern(cc, pat->text));
    if (e.event < 0) {
        cc->oom = true;
        return;
    }
    fctx fx = {.what = ds->label};
    for (const node *p = pat->list; p; p = p->next) {
        if (p->kind != AST_NAME) {
            comp_error(cc, p->sp, "an event pattern lists names, as in %s(who, what)", pat->text);
            return;
        }
        if (fx.n >= TRIGGER_MAX_PARAMS || !fctx_add(&fx, p->text)) {
            comp_error(cc, p->sp, "an event has at most %d arguments", TRIGGER_MAX_PARAMS);
            return;
        }
    }
    ccur_when(k, &fx, &e.when, &e.negate);
    ccur_end(k);
    r_condition *c = cond_of(ds);
    r_ends_on *slot = push(cc, (void **)&c->ends_on, &c->nends_on, sizeof(r_ends_on));
    if (slot)
        *slot = e;
}

const clause_rule condition_clauses[] = {
    {"modify", "modify [incoming] STAT|CHECK by EXPR [as BONUS] [when|unless EXPR]", cond_modify, false},
    {"roll", ROLL_USAGE, cond_roll, false},
    {"set", "set STAT to EXPR [when|unless EXPR]", cond_modify, false},
    {"scale", "scale STAT by EXPR [when|unless EXPR]", cond_modify, false},
    {"forbid", "forbid ACTION|SLOT|KIND, ... [when|unless EXPR]", cond_forbid, false},
    {"protect", "protect from ACTION|KIND, ... [when|unless EXPR] (actor: who acts)", cond_forbid, false},
    {"implies", "implies CONDITION [when|unless EXPR]", cond_implies, false},
    {"excludes", "excludes CONDITION, CONDITION, ...", cond_excludes, false},
    {"requires", "requires EXPR [else \"MESSAGE\"]", cond_requires, false},
    {"lasts", "lasts DURATION | lasts until start|end of [next] turn|round", cond_lasts, false},
    {"ends", "ends on EVENT(NAMES) [when|unless EXPR]", cond_ends, false},
    {"stacks", "stacks", cond_stacks, false},
    {"holds", "holds when EXPR", cond_holds, false},
    {"why", "why \"TEXT\" (what the tracker says of it while it holds by itself)", cond_why, false},
};
const int condition_nclauses = (int)(sizeof condition_clauses / sizeof condition_clauses[0]);

void decl_condition(decl_state *ds)
{
    r_condition *c = cond_of(ds);
    c->from = ds->from;
    /* `condition sick "summoning sick" { ... }`: the title transcripts use */
    c->display = -1;
    if (ds->header && ds->header->kind == AST_STRING) {
        c->display = comp_intern(ds->cc, ds->header->text);
        ds->header = ds->header->next;
    }
    decl_clauses(ds, condition_clauses, condition_nclauses, NULL);
    rules *r = ds->cc->p->rules;
    c = cond_of(ds);
    c->from.cite = ds->from.cite;
    if (c->has_why && !rexpr_present(&c->holds))
        comp_error(ds->cc, ds->dn->sp, "condition %s says 'why' it holds by itself, but has no 'holds when'",
                   ds->dn->text);
    if (rexpr_present(&c->holds) && !rules_add_holds(r, ds->object)) {
        ds->cc->oom = true;
        return;
    }
    /* conditions that end on an event are found from the event */
    for (int i = 0; i < c->nends_on; i++) {
        r_event *ev = &r->events[c->ends_on[i].event];
        bool listed = false;
        for (int j = 0; j < ev->nending; j++)
            listed |= ev->ending[j] == ds->object;
        if (listed)
            continue;
        size_t cap = (size_t)ev->ending_cap;
        int *g = mem_grow(ev->ending, sizeof(int), &cap, (size_t)ev->nending + 1);
        if (!g) {
            ds->cc->oom = true;
            return;
        }
        ev->ending = g;
        ev->ending_cap = (int)cap;
        ev->ending[ev->nending++] = ds->object;
    }
}

/* --- bonus ------------------------------------------------------------------------ */

static void bonus_stacks(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    ds->cc->p->rules->bonuses[ds->object].stacks = true;
    ccur_end(k);
}

/* `cancels OTHER`: a modifier of this type and one of OTHER, on one roll,
   cancel each other */
static void bonus_cancels(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    compiler *cc = ds->cc;
    const node *at = k->at;
    int name = ccur_name(k, "the bonus type it cancels");
    if (name < 0)
        return;
    int other = rules_bonus(cc->p->rules, name);
    if (other < 0) {
        comp_error(cc, at->sp, "no bonus type '%s'; declare it: bonus %s", at->text, at->text);
        return;
    }
    if (other == ds->object) {
        comp_error(cc, at->sp, "a bonus type cannot cancel itself");
        return;
    }
    cc->p->rules->bonuses[ds->object].cancels = other;
    ccur_end(k);
}

const clause_rule bonus_clauses[] = {
    {"stacks", "stacks (every modifier of the type counts, not only the best)", bonus_stacks, false},
    {"cancels", "cancels OTHER (a change of the dice of this type and one of OTHER cancel, one for one)", bonus_cancels,
     false},
};
const int bonus_nclauses = (int)(sizeof bonus_clauses / sizeof bonus_clauses[0]);

void decl_bonus(decl_state *ds)
{
    r_bonus *b = &ds->cc->p->rules->bonuses[ds->object];
    b->from = ds->from;
    b->stacks = false;
    b->cancels = -1;
    decl_clauses(ds, bonus_clauses, bonus_nclauses, NULL);
    ds->cc->p->rules->bonuses[ds->object].from.cite = ds->from.cite;
}

/* --- relation ------------------------------------------------------------------------ */

static r_relation *rel_of(decl_state *ds)
{
    return &ds->cc->p->rules->relations[ds->object];
}

static void rel_one(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (!ccur_expect(k, "per"))
        return;
    const node *at = k->at;
    int who = ccur_name(k, "one of the relation's two roles");
    if (who < 0)
        return;
    r_relation *rel = rel_of(ds);
    if (who == rel->a_name)
        rel->one_per_a = true;
    else if (who == rel->b_name)
        rel->one_per_b = true;
    else
        comp_error(ds->cc, at->sp, "'%s' is not a role of this relation (it has %s and %s)", at->text,
                   program_string(ds->cc->p, rel->a_name), program_string(ds->cc->p, rel->b_name));
    ccur_end(k);
}

static void rel_moves(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (!ccur_expect(k, "together"))
        return;
    rel_of(ds)->moves_together = true;
    ccur_end(k);
}

static void rel_lasts(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    fctx fx = {.what = ds->label};
    rexpr e;
    if (ccur_duration(k, &fx, &e))
        rel_of(ds)->lasts = e;
    ccur_end(k);
}

/* `group [max N]`: relate(R, a, b) puts a into b's group; all its members are related */
static void rel_group(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    r_relation *rel = rel_of(ds);
    rel->group = true;
    int64_t n;
    if (ccur_accept(k, "max") && ccur_int_in(k, "how many creatures a group holds at most", 2, INT32_MAX, &n))
        rel_of(ds)->group_max = (int)n;
    ccur_end(k);
}

static void rel_within(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    static const char *const places[] = {"zone"};
    if (ccur_choice(k, "where the relation holds (a relation holds within one zone: within zone)", places, 1) < 0)
        return;
    rel_of(ds)->within_zone = true;
    ccur_end(k);
}

const clause_rule relation_clauses[] = {
    {"one", "one per ROLE (a creature holds at most one such relation in that role)", rel_one, false},
    {"moves", "moves together (the second moves with the first)", rel_moves, false},
    {"lasts", "lasts DURATION", rel_lasts, false},
    {"group", "group [max N] (held by a whole group: relate(R, a, b) puts a into b's group)", rel_group, false},
    {"within", "within zone (a creature moving to another zone leaves it)", rel_within, false},
};
const int relation_nclauses = (int)(sizeof relation_clauses / sizeof relation_clauses[0]);

void decl_relation(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_relation *rel = rel_of(ds);
    rel->from = ds->from;
    int n = ast_list_len(ds->dn->c);
    if (n != 2) {
        comp_error(cc, ds->dn->sp, "a relation names its two roles, as in relation grapple(aggressor, defender)");
        return;
    }
    rel->a_name = comp_intern(cc, ds->dn->c->list->text);
    rel->b_name = comp_intern(cc, ds->dn->c->list->next->text);
    decl_clauses(ds, relation_clauses, relation_nclauses, NULL);
    rel = rel_of(ds);
    rel->from.cite = ds->from.cite;
    /* a group is symmetric and lives as long as its members stay */
    if (rel->group && (rel->one_per_a || rel->one_per_b || rel->moves_together || rexpr_present(&rel->lasts)))
        comp_error(cc, ds->dn->sp,
                   "a group relation goes with none of 'one per', 'moves together' or 'lasts': a creature leaves "
                   "its group with unrelate(%s, c) or by moving away (within zone)",
                   program_string(cc->p, rel->name));
}
