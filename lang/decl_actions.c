/* decl_actions: what creatures do (`action`, `tactic`), the rolls rules
 * make (`check`), what happens when something happens (`trigger`), what the
 * GM decides (`ruling`), and per-creature pools (`resource`) and equipment
 * (`item`). */
#include <stdio.h>
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/base/suggest.h"
#include "runtime/base/mem.h"

/* --- action -------------------------------------------------------------------- */

static r_action *act_of(decl_state *ds)
{
    return &ds->cc->p->rules->actions[ds->object];
}

static void act_costs(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    const node *e = ccur_take(k);
    if (!e) {
        ccur_error(k, "name the slots it costs");
        return;
    }
    /* `costs 15 ft of movement`: the amount's resource follows it */
    const node *of = NULL;
    if (ccur_accept(k, "of") && !(of = ccur_take(k))) {
        ccur_error(k, "name the resource the amount is of, as in '15 ft of movement'");
        return;
    }
    if (of && of->kind != AST_NAME) {
        comp_error(ds->cc, of->sp, "an amount in a cost is of a resource, named, as in '15 ft of movement'");
        return;
    }
    cost c;
    compile_cost_of(ds->cc, e, of, &c);
    act_of(ds)->cost = c;
    ccur_end(k);
}

static void act_provokes(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    r_action *a = act_of(ds);
    if (ccur_accept(k, "yes")) {
        a->provokes = 1;
    } else if (ccur_accept(k, "no")) {
        a->provokes = 0;
    } else if (ccur_is(k, "when")) {
        rexpr e;
        bool negate;
        ccur_when(k, &ds->fx, &e, &negate);
        a = act_of(ds);
        a->provokes = 2;
        a->provokes_when = e;
    } else {
        ccur_error(k, "expected 'yes', 'no' or 'when EXPR'");
        return;
    }
    ccur_end(k);
}

static void act_requires(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    rexpr e;
    if (!ccur_expr(k, &ds->fx, TY_BOOL, "what must hold", &e))
        return;
    int why = clause_else_text(k);
    r_action *a = act_of(ds);
    size_t n = (size_t)a->nrequires;
    rexpr *g = mem_alloc((n + 1) * sizeof(rexpr));
    int *w = mem_alloc((n + 1) * sizeof(int));
    if (!g || !w) {
        if (g)
            mem_free(g, (n + 1) * sizeof(rexpr));
        if (w)
            mem_free(w, (n + 1) * sizeof(int));
        ds->cc->oom = true;
        return;
    }
    if (n) {
        memcpy(g, a->requires, n * sizeof(rexpr));
        memcpy(w, a->requires_else, n * sizeof(int));
        mem_free(a->requires, n * sizeof(rexpr));
        mem_free(a->requires_else, n * sizeof(int));
    }
    a->requires = g;
    a->requires_else = w;
    a->requires[a->nrequires] = e;
    a->requires_else[a->nrequires++] = why;
    ccur_end(k);
}

static void act_target(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    static const char *const kinds[] = {"creature", "enemy", "ally", "self", "other"};
    int t = ccur_choice(k, "who may be targeted", kinds, 5);
    if (t < 0)
        return;
    r_action *a = act_of(ds);
    a->target = (uint8_t)t;
    a->has_target = true;
    a->target_range = -1;
    if (ccur_accept(k, "within")) {
        const node *at = k->at;
        int name = ccur_name(k, "a range");
        if (name < 0)
            return;
        int r = rules_range(ds->cc->p->rules, name);
        if (r < 0)
            comp_error(ds->cc, at->sp, "no range '%s'", at->text);
        act_of(ds)->target_range = r;
    }
    ccur_end(k);
}

static void act_kind(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    int name = ccur_name(k, "the kind of action");
    if (name >= 0)
        act_of(ds)->kind = name;
    ccur_end(k);
}

static void act_flag(decl_state *ds, const node *clause, ccur *k)
{
    r_action *a = act_of(ds);
    if (strcmp(clause->text, "anytime") == 0) {
        a->anytime = true;
    } else { /* borrows next turn */
        if (!ccur_expect(k, "next") || !ccur_expect(k, "turn"))
            return;
        a->borrows_next = true;
    }
    ccur_end(k);
}

static void act_cooldown(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    rexpr e;
    if (ccur_duration(k, &ds->fx, &e))
        act_of(ds)->cooldown = e;
    ccur_end(k);
}

static void act_limit(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    r_action *a = act_of(ds);
    if (ccur_times_per(k, "how many times", true, &a->limit, &a->limit_per))
        ccur_end(k);
}

const clause_rule action_clauses[] = {
    {"costs", "costs SLOT [+ SLOT] [or SLOT ...] (as in 'costs move + 2 * bonus')", act_costs, false},
    {"provokes", "provokes yes|no|when EXPR", act_provokes, false},
    {"requires", "requires EXPR [else \"MESSAGE\"]", act_requires, false},
    {"target", "target creature|enemy|ally|self|other [within RANGE]", act_target, false},
    {"kind", "kind NAME", act_kind, false},
    {"anytime", "anytime (may be taken outside one's turn)", act_flag, false},
    {"borrows", "borrows next turn (outside one's turn, the cost comes from the next)", act_flag, false},
    {"cooldown", "cooldown DURATION", act_cooldown, false},
    {"limit", "limit N per turn|round|encounter|PERIOD", act_limit, false},
};
const int action_nclauses = (int)(sizeof action_clauses / sizeof action_clauses[0]);

/* `dest: square or creature`: what parameter i takes, for the checks of
   a command (where it is written) and of the action (when it is taken);
   a parameter of one kind has that type in the action's formulas. */
static void parameter_kinds(decl_state *ds, int i, const node *p)
{
    compiler *cc = ds->cc;
    r_action *a = act_of(ds);
    text_buf text;
    text_init(&text);
    int nkinds = 0;
    sty only = TY_ANY;
    for (const node *k = p->a->list; k; k = k->next, nkinds++) {
        bool condition = strcmp(k->text, "condition") == 0, zone = strcmp(k->text, "zone") == 0;
        sty t = condition || zone ? TY_WORD : parameter_type(cc, k);
        if (t == TY_ANY) {
            a->takes[i] = 0; /* reported: the parameter takes anything */
            text_free(&text);
            return;
        }
        uint32_t values = condition ? sty_values(TY_WORD) | TAKES_CONDITION
                          : zone    ? sty_values(TY_WORD) | sty_values(TY_STR) | TAKES_ZONE
                                    : sty_values(t);
        if (a->takes[i] & values) {
            comp_error(cc, k->sp, "%s takes %s already", p->text, sty_name(t));
            a->takes[i] = 0;
            text_free(&text);
            return;
        }
        a->takes[i] |= values;
        only = t;
        text_put(&text, nkinds ? " or " : "");
        if (t == TY_ENUM || (t == TY_ITEM && strcmp(k->text, "item") != 0))
            /* an enum or an item kind is named as declared */
            text_add(&text, "%s %s", clause_article(k->text), k->text);
        else
            text_put(&text, condition ? "a condition" : zone ? "a zone" : sty_name(t));
    }
    a->takes_text[i] = comp_intern(cc, text.s);
    text_free(&text);
    a->nrequired = i + 1;
    if (nkinds == 1)
        ds->fx.types[i] = only;
}

void decl_action(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_action *a = act_of(ds);
    a->from = ds->from;
    a->kind = -1;
    a->target_range = -1;
    a->body = -1;
    a->nrequired = 0;
    for (int i = 0; i < ACTION_MAX_PARAMS; i++) {
        a->takes[i] = 0;
        a->takes_text[i] = -1;
    }
    if (ds->dn->c) {
        for (const node *p = ds->dn->c->list; p; p = p->next) {
            if (!fctx_add(&ds->fx, p->text)) {
                comp_error(cc, p->sp, "an action takes at most %d parameters", FCTX_MAX);
                break;
            }
            if (p->a)
                parameter_kinds(ds, ds->fx.n - 1, p);
        }
    } else {
        fctx_add(&ds->fx, "target"); /* `action attack` takes one target */
    }
    act_of(ds)->nparams = ds->fx.n;
    for (int i = 0; i < ds->fx.n; i++)
        act_of(ds)->params[i] = comp_intern(cc, ds->fx.names[i]);
    bool stmts = false;
    decl_clauses(ds, action_clauses, action_nclauses, &stmts);
    a = act_of(ds);
    if (a->has_target && a->takes[0] && !(a->takes[0] & sty_values(TY_CREATURE)) && ds->dn->c && ds->dn->c->list)
        comp_error(cc, ds->dn->c->list->a->sp, "the target clause takes a creature as %s, which says %s",
                   ds->fx.names[0], program_string(cc->p, a->takes_text[0]));
    int body = stmts ? body_in(cc, &ds->fx, CHUNK_ACTION, ds->dn->b, false) : -1;
    a = act_of(ds);
    a->body = body;
    a->from.cite = ds->from.cite;
    cc->p->decls[ds->decl_index].body = body;
    cc->p->decls[ds->decl_index].nparams = ds->fx.n;
}

/* --- check ------------------------------------------------------------------------ */

static r_check *check_of(decl_state *ds)
{
    return &ds->cc->p->rules->checks[ds->object];
}

static void check_word(decl_state *ds, const node *clause, ccur *k)
{
    const node *s = ccur_take(k);
    if (!s || s->kind != AST_STRING) {
        comp_error(ds->cc, s ? s->sp : k->end, "'%s' takes the word shown, as in %s \"hit\"", clause->text,
                   clause->text);
        return;
    }
    int id = comp_intern(ds->cc, s->text);
    if (strcmp(clause->text, "success") == 0)
        check_of(ds)->success = id;
    else
        check_of(ds)->failure = id;
    ccur_end(k);
}

static void check_quiet(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    check_of(ds)->quiet = true;
    ccur_end(k);
}

static void check_succeeds(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    static const char *const ways[] = {"high", "low"};
    int w = ccur_choice(k, "which rolls succeed", ways, 2);
    if (w >= 0)
        check_of(ds)->low = w == 1;
    ccur_end(k);
}

/* `label action_mod "multiple attack penalty"`: the breakdown names the
   terms that read `action_mod` so (`+ multiple attack penalty -5`). */
static void check_label(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    compiler *cc = ds->cc;
    const node *at = k->at;
    int name = ccur_name(k, "the term's name in the breakdown (a parameter or stat it reads)");
    if (name < 0)
        return;
    const node *text = k->at;
    if (!text || text->kind != AST_STRING) {
        ccur_error(k, "expected the term's label, as a string");
        k->at = NULL;
        return;
    }
    ccur_take(k);
    r_check *c = check_of(ds);
    int label = comp_intern(cc, text->text), found = 0;
    for (int i = 0; i < c->nterms; i++)
        if (c->labels[i] == name) {
            c->labels[i] = label;
            found++;
        }
    if (!found) {
        text_buf terms;
        text_init(&terms);
        for (int i = 0; i < c->nterms; i++)
            if (c->labels[i] != 0xffff)
                text_add(&terms, "%s%s", terms.len ? ", " : "", program_string(cc->p, c->labels[i]));
        comp_error(cc, at->sp, "no term of check %s is named '%s' in its breakdown (its terms: %s)", ds->dn->text,
                   at->text, terms.len ? terms.s : "none named");
        text_free(&terms);
    }
    ccur_end(k);
}

/* The top-level sum, flattened: `d20 + a.bab - 2` is d20, a.bab, -2. */
static int flatten(const node *e, const node **terms, bool *neg, int n, int max, bool negate)
{
    if (e->kind == AST_BINARY && (e->op == '+' || e->op == '-')) {
        n = flatten(e->a, terms, neg, n, max, negate);
        return flatten(e->b, terms, neg, n, max, e->op == '-' ? !negate : negate);
    }
    if (e->kind == AST_UNARY && e->op == '-' && e->a)
        return flatten(e->a, terms, neg, n, max, !negate); /* `-pen(x) + d6`: pen, subtracted */
    if (n < max) {
        terms[n] = e;
        neg[n] = negate;
    }
    return n + 1;
}

const clause_rule check_clauses[] = {
    {"success", "success \"WORD\" (shown when the roll meets its target)", check_word, false},
    {"failure", "failure \"WORD\"", check_word, false},
    {"quiet", "quiet (the roll is not shown)", check_quiet, false},
    {"label", "label NAME \"TEXT\" (how the breakdown names the terms it calls NAME)", check_label, false},
    {"succeeds", "succeeds high|low (high: at or over its target, the default; low: at or under it)", check_succeeds,
     false},
};
const int check_nclauses = (int)(sizeof check_clauses / sizeof check_clauses[0]);

void decl_check(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_check *c = check_of(ds);
    c->from = ds->from;
    c->success = c->failure = -1;
    c->nparams = 0;
    for (const node *p = ds->dn->c ? ds->dn->c->list : NULL; p; p = p->next) {
        fctx_add(&ds->fx, p->text);
        if (c->nparams < CHECK_MAX_PARAMS) /* more are refused in pass 1 */
            c->params[c->nparams++] = comp_intern(cc, p->text);
    }
    if (!ds->dn->a) {
        comp_error(cc, ds->dn->sp, "a check needs its roll: check %s(...) = d20 + ...", ds->dn->text);
        return;
    }
    enum { MAX_TERMS = 16 };
    const node *terms[MAX_TERMS];
    bool neg[MAX_TERMS];
    int n = flatten(ds->dn->a, terms, neg, 0, MAX_TERMS, false);
    if (n > MAX_TERMS) {
        comp_error(cc, ds->dn->a->sp, "a check adds up at most %d terms", MAX_TERMS);
        return;
    }
    /* one chunk computes every term; the VM rolls them as one roll */
    fn_state fs;
    fn_begin(cc, &fs, CHUNK_FORMULA, ds->label, ds->dn->a->sp);
    if (!fs.c)
        return;
    for (int i = 0; i < ds->fx.n; i++)
        fn_add_local(cc, comp_intern(cc, ds->fx.names[i]), TY_ANY, (span){0});
    fs.c->nparams = (uint8_t)fs.nlocals;
    int labels[MAX_TERMS];
    for (int i = 0; i < n; i++) {
        sty t = compile_expr(cc, terms[i]);
        if (t != TY_ANY && t != TY_NUM && t != TY_DICE && t != TY_ROLL)
            comp_error(cc, terms[i]->sp, "a check adds dice and numbers, not %s", sty_name(t));
        if (neg[i])
            emit_op(cc, OP_NEG, terms[i]->sp);
        labels[i] = expr_label(cc, terms[i]);
    }
    emit_op_u8(cc, OP_LIST, (uint8_t)n, ds->dn->a->sp);
    int formula = fn_end(cc, &fs, ds->dn->a->sp);
    int *copy = mem_alloc((size_t)n * sizeof(int));
    if (!copy) {
        cc->oom = true;
        return;
    }
    memcpy(copy, labels, (size_t)n * sizeof(int));
    c = check_of(ds);
    c->formula = formula;
    c->labels = copy;
    c->nterms = n;
    decl_clauses(ds, check_clauses, check_nclauses, NULL);
    check_of(ds)->from.cite = ds->from.cite;
}

/* --- trigger --------------------------------------------------------------------------- */

static r_trigger *trig_of(decl_state *ds)
{
    return &ds->cc->p->rules->triggers[ds->object];
}

static int param_slot(const fctx *fx, const char *name)
{
    for (int i = 0; i < fx->n; i++)
        if (strcmp(fx->names[i], name) == 0)
            return i;
    return -1;
}

static void trig_on(decl_state *ds, const node *clause, ccur *k)
{
    compiler *cc = ds->cc;
    r_trigger *t = trig_of(ds);
    const node *pat = ccur_take(k);
    if (!pat || pat->kind != AST_CALL) {
        comp_error(cc, pat ? pat->sp : k->end,
                   "'on' takes an event with names for its arguments, as in 'on hit(attacker, target)'");
        return;
    }
    if (t->non >= TRIGGER_MAX_ON) {
        comp_error(cc, clause->sp, "a trigger listens to at most %d events", TRIGGER_MAX_ON);
        return;
    }
    r_on on = {.where = clause->sp};
    on.event = rules_event(cc->p->rules, comp_intern(cc, pat->text));
    if (on.event < 0) {
        cc->oom = true;
        return;
    }
    const r_event *ev = &cc->p->rules->events[on.event];
    int nargs = ast_list_len(pat);
    if (ev->nargs >= 0 && nargs != ev->nargs) {
        comp_error(cc, pat->sp, "event %s has %d argument%s, not %d", pat->text, ev->nargs, ev->nargs == 1 ? "" : "s",
                   nargs);
        return;
    }
    for (const node *p = pat->list; p; p = p->next) {
        if (p->kind != AST_NAME) {
            comp_error(cc, p->sp, "an event pattern lists names, as in %s(who, what)", pat->text);
            return;
        }
        if (on.nparams >= TRIGGER_MAX_PARAMS) {
            comp_error(cc, p->sp, "an event has at most %d arguments", TRIGGER_MAX_PARAMS);
            return;
        }
        on.param_slot[on.nparams++] = param_slot(&ds->fx, p->text);
    }
    if (ccur_is(k, "when")) {
        bool negate;
        ccur_when(k, &ds->fx, &on.when, &negate);
    }
    if (ccur_is(k, "unless")) {
        bool negate;
        ccur_when(k, &ds->fx, &on.unless, &negate);
    }
    ccur_end(k);
    t = trig_of(ds);
    t->on[t->non++] = on;
}

static void trig_automatic(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    trig_of(ds)->reaction = false;
    ccur_end(k);
}

static void trig_costs(decl_state *ds, const node *clause, ccur *k);
static void trig_limit(decl_state *ds, const node *clause, ccur *k);

/* `reaction of NAME [costs COST] [limit N per P [each NAME]]` */
static void trig_reaction(decl_state *ds, const node *clause, ccur *k)
{
    r_trigger *t = trig_of(ds);
    t->reaction = true;
    if (!ccur_expect(k, "of"))
        return;
    const node *at = k->at;
    int who = ccur_name(k, "who may react");
    if (who < 0)
        return;
    t = trig_of(ds);
    t->reactor = param_slot(&ds->fx, at->text);
    while (!ccur_done(k)) {
        if (ccur_accept(k, "costs"))
            trig_costs(ds, clause, k);
        else if (ccur_accept(k, "limit"))
            trig_limit(ds, clause, k);
        else
            ccur_end(k);
    }
}

static void trig_costs(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    const node *e = ccur_take(k);
    if (!e) {
        ccur_error(k, "name the slots it costs");
        return;
    }
    cost c;
    compile_cost(ds->cc, e, &c);
    trig_of(ds)->cost = c;
}

static void trig_limit(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    r_trigger *t = trig_of(ds);
    t->limit_each = -1;
    if (!ccur_times_per(k, "how many times", true, &t->limit, &t->limit_per))
        return;
    if (ccur_accept(k, "each")) {
        const node *at = k->at;
        int who = ccur_name(k, "whom the limit counts for");
        if (who < 0)
            return;
        int slot = param_slot(&ds->fx, at->text);
        if (slot < 0)
            comp_error(ds->cc, at->sp, "'%s' is not one of the event's names", at->text);
        trig_of(ds)->limit_each = slot;
    }
}

static void trig_costs_clause(decl_state *ds, const node *clause, ccur *k)
{
    trig_costs(ds, clause, k);
    ccur_end(k);
}

static void trig_limit_clause(decl_state *ds, const node *clause, ccur *k)
{
    trig_limit(ds, clause, k);
    ccur_end(k);
}

static void trig_kind(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    int name = ccur_name(k, "the kind");
    if (name >= 0)
        trig_of(ds)->kind = name;
    ccur_end(k);
}

static void trig_do(decl_state *ds, const node *clause, ccur *k)
{
    ccur_end(k);
    if (!clause->b) {
        comp_error(ds->cc, clause->sp, "'do' takes a block: do { ... }");
        return;
    }
    if (trig_of(ds)->body >= 0) {
        comp_error(ds->cc, clause->sp, "a trigger has one 'do' block");
        return;
    }
    int body = body_in(ds->cc, &ds->fx, CHUNK_TRIGGER, clause->b, true);
    trig_of(ds)->body = body;
}

/* The names a trigger binds: every `on` pattern's, then its reactor. */
static void trigger_names(decl_state *ds)
{
    const node *firsts[2] = {ds->dn->list, ds->dn->b ? ds->dn->b->list : NULL};
    for (int i = 0; i < 2; i++)
        for (const node *it = firsts[i]; it; it = it->next)
            if (it->kind == AST_CLAUSE && strcmp(it->text, "on") == 0 && it->list && it->list->kind == AST_CALL)
                for (const node *p = it->list->list; p; p = p->next)
                    if (p->kind == AST_NAME && !fctx_add(&ds->fx, p->text)) {
                        comp_error(ds->cc, p->sp, "a trigger's events name at most %d different things", FCTX_MAX);
                        return;
                    }
    for (int i = 0; i < 2; i++)
        for (const node *it = firsts[i]; it; it = it->next)
            if (it->kind == AST_CLAUSE && strcmp(it->text, "reaction") == 0 && it->list && it->list->next &&
                it->list->next->kind == AST_NAME && !fctx_add(&ds->fx, it->list->next->text)) {
                comp_error(ds->cc, it->list->next->sp, "a trigger's events name at most %d different things", FCTX_MAX);
                return;
            }
}

const clause_rule trigger_clauses[] = {
    {"on", "on EVENT(NAME, ...) [when EXPR] [unless EXPR]", trig_on, false},
    {"automatic", "automatic", trig_automatic, false},
    {"reaction", "reaction of NAME [costs SLOT] [limit N per turn|round [each NAME]]", trig_reaction, false},
    {"costs", "costs SLOT [+ SLOT]", trig_costs_clause, false},
    {"limit", "limit N per turn|round [each NAME]", trig_limit_clause, false},
    {"kind", "kind NAME", trig_kind, false},
    {"internal", "internal (the rules' own bookkeeping: left out of the reports of sim and diff)", stat_internal,
     false},
    {"do", "do { statements }", trig_do, true},
};
const int trigger_nclauses = (int)(sizeof trigger_clauses / sizeof trigger_clauses[0]);

void decl_trigger(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_trigger *t = trig_of(ds);
    t->from = ds->from;
    t->kind = -1;
    t->body = -1;
    t->reactor = -1;
    t->limit_each = -1;
    trigger_names(ds);
    t->nparams = ds->fx.n;
    bool stmts = false;
    decl_clauses(ds, trigger_clauses, trigger_nclauses, &stmts);
    t = trig_of(ds);
    if (stmts) {
        if (t->body >= 0)
            comp_error(cc, ds->dn->sp, "a trigger's effect is either its statements or a 'do' block, not both");
        else
            t->body = body_in(cc, &ds->fx, CHUNK_TRIGGER, ds->dn->b, false);
    }
    t = trig_of(ds);
    t->from.cite = ds->from.cite;
    t->nparams = ds->fx.n;
    if (t->non == 0)
        comp_error(cc, ds->dn->sp, "trigger %s needs 'on EVENT(...)'", ds->dn->text);
    if (t->reaction && t->reactor < 0)
        comp_error(cc, ds->dn->sp, "trigger %s: say who reacts, as in 'reaction of threatener'", ds->dn->text);
    /* index: the event finds its triggers without a scan */
    rules *r = cc->p->rules;
    for (int i = 0; i < t->non; i++) {
        r_event *ev = &r->events[t->on[i].event];
        bool listed = false;
        for (int j = 0; j < ev->ntriggers; j++)
            listed |= ev->triggers[j] == ds->object;
        if (listed)
            continue;
        size_t cap = (size_t)ev->triggers_cap;
        int *g = mem_grow(ev->triggers, sizeof(int), &cap, (size_t)ev->ntriggers + 1);
        if (!g) {
            cc->oom = true;
            return;
        }
        ev->triggers = g;
        ev->triggers_cap = (int)cap;
        ev->triggers[ev->ntriggers++] = ds->object;
    }
}

/* --- ruling -------------------------------------------------------------------------- */

static r_ruling *ruling_of(decl_state *ds)
{
    return &ds->cc->p->rules->rulings[ds->object];
}

/* `answer one of w1, w2, ...`: a word answer, and the words that give it */
static void ruling_choices(decl_state *ds, ccur *k)
{
    r_ruling *rl = ruling_of(ds);
    rl->answer = ANSWER_WORD;
    if (ccur_done(k)) {
        ccur_error(k, "expected the words that answer it after 'one of'");
        return;
    }
    while (!ccur_done(k)) {
        const node *n = k->at;
        if (n->kind != AST_NAME && n->kind != AST_WORD && n->kind != AST_STRING) {
            ccur_error(k, "expected a word that answers it");
            k->at = NULL;
            return;
        }
        ccur_take(k);
        int id = comp_intern(ds->cc, n->text);
        for (int i = 0; i < rl->nchoices; i++)
            if (rl->choices[i] == id)
                comp_error(ds->cc, n->sp, "'%s' is one of the choices already", n->text);
        if (rl->nchoices == RULING_MOST_CHOICES) {
            comp_error(ds->cc, n->sp, "a ruling offers at most %d choices", RULING_MOST_CHOICES);
            k->at = NULL;
            return;
        }
        rl->choices[rl->nchoices++] = id;
        ccur_skip_commas(k);
    }
}

static void ruling_answer(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (ccur_accept(k, "one")) {
        if (ccur_expect(k, "of"))
            ruling_choices(ds, k);
        return;
    }
    static const char *const kinds[] = {"yes_no", "number", "creature", "word"};
    int a = ccur_choice(k, "the kind of answer", kinds, 4);
    if (a >= 0)
        ruling_of(ds)->answer = (answer_kind)a;
    ccur_end(k);
}

static void ruling_asked(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (ccur_accept(k, "of")) { /* who answers */
        static const char *const parties[] = {"gm", "player"};
        int who = ccur_choice(k, "who answers it", parties, 2);
        if (who >= 0)
            ruling_of(ds)->of_player = who == 1;
        ccur_end(k);
        return;
    }
    if (!ccur_expect(k, "per"))
        return;
    /* in the order of asked_per */
    static const char *const pers[] = {"use", "creature", "encounter", "game", "side"};
    int a = ccur_choice(k, "how long an answer stands", pers, 5);
    if (a >= 0)
        ruling_of(ds)->per = (asked_per)a;
    /* per creature (or side) per encounter: forgotten when it ends */
    if ((a == ASKED_PER_CREATURE || a == ASKED_PER_SIDE) && ccur_accept(k, "per")) {
        static const char *const again[] = {"encounter"};
        ruling_of(ds)->each_encounter = ccur_choice(k, "when it is asked again", again, 1) == 0;
    }
    ccur_end(k);
}

/* The choice a default names as a bare word (`default brutality`, as the
   choices are written); -1 for a formula, -2 for a word misspelt (said). */
static int default_choice(decl_state *ds, const ccur *k)
{
    const r_ruling *rl = ruling_of(ds);
    const node *n = k->at;
    if (!rl->nchoices || !n || n->kind != AST_NAME || (n->next && n->next != k->stop))
        return -1;
    int choice = rules_choice(ds->cc->p, rl, n->text);
    if (choice >= 0)
        return choice;
    suggestion near;
    suggest_init(&near, n->text);
    for (int i = 0; i < rl->nchoices; i++)
        suggest_consider(&near, program_string(ds->cc->p, rl->choices[i]), i);
    if (!near.found)
        return -1;
    text_buf list;
    text_init(&list);
    rules_choices_text(ds->cc->p, rl, &list);
    comp_error(ds->cc, n->sp, "the default is not one of the choices (%s); did you mean '%s'?", list.s, near.best);
    text_free(&list);
    return -2;
}

static void ruling_default(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    int choice = default_choice(ds, k);
    if (choice == -2)
        return;
    if (choice >= 0) {
        ruling_of(ds)->def =
            (rexpr){.kind = REXPR_CONST, .v = value_ref(V_WORD, HOME_PROGRAM, choice), .where = k->at->sp};
        ccur_take(k);
        ccur_end(k);
        return;
    }
    rexpr e;
    if (ccur_expr(k, &ds->fx, TY_ANY, "the answer when no one is asked", &e))
        ruling_of(ds)->def = e;
    ccur_end(k);
}

#define AFTER_FAILED (-2) /* an `after` clause that said its error */

/* `after CHECK [when EXPR]`: the ruling is a decision taken after a roll,
   before it is judged; its formulas see the check's parameters and the
   roll so far. */
static void ruling_after(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    compiler *cc = ds->cc;
    r_ruling *rl = ruling_of(ds);
    rl->after = AFTER_FAILED; /* until it is known: 'then' says nothing more */
    if (rexpr_present(&rl->def)) {
        ccur_error(k, "write 'after CHECK' before 'default', whose formula may read the roll");
        return;
    }
    const node *at = k->at;
    int name = ccur_name(k, "the check after whose rolls it is asked");
    if (name < 0)
        return;
    int check = rules_check(cc->p->rules, name);
    if (check < 0) {
        const char *hint = suggest_name(cc, at->text);
        if (hint)
            comp_error(cc, at->sp, "no check '%s'; did you mean '%s'?", at->text, hint);
        else
            comp_error(cc, at->sp, "'%s' is not a check; a ruling is asked after the roll of a check", at->text);
        return;
    }
    const r_check *c = &cc->p->rules->checks[check];
    for (int i = 0; i < c->nparams; i++)
        fctx_add(&ds->fx, program_string(cc->p, c->params[i]));
    if (!fctx_add(&ds->fx, "result")) {
        comp_error(cc, at->sp, "check %s has too many parameters for a ruling to see them", at->text);
        return;
    }
    rl = ruling_of(ds);
    rl->after = check;
    cc->p->rules->checks[check].asked_after = true;
    ccur_when(k, &ds->fx, &rl->after_when, &rl->after_negate);
    ccur_end(k);
}

/* `then reroll | then add EXPR`, with statements to run: what a yes does. */
static void ruling_then_clause(decl_state *ds, const node *clause, ccur *k)
{
    compiler *cc = ds->cc;
    if (ruling_of(ds)->after < 0) {
        if (ruling_of(ds)->after != AFTER_FAILED)
            ccur_error(k, "'then' changes a roll: write 'after CHECK' first, to say which");
        k->at = NULL;
        return;
    }
    static const char *const changes[] = {"reroll", "add"};
    int change = ccur_choice(k, "what a yes does to the roll", changes, 2);
    if (change < 0)
        return;
    rexpr amount = {0};
    if (change == 1 && !ccur_expr(k, &ds->fx, TY_NUM, "the amount added to the roll", &amount))
        return;
    ccur_end(k);
    int body = clause->b ? body_in(cc, &ds->fx, CHUNK_PROCEDURE, clause->b, true) : -1;
    r_ruling *rl = ruling_of(ds);
    rl->then = change == 0 ? THEN_REROLL : THEN_ADD;
    rl->then_amount = amount;
    rl->then_body = body;
}

const clause_rule ruling_clauses[] = {
    {"answer", "answer yes_no|number|creature|word|one of WORD, ...", ruling_answer, false},
    {"asked", "asked per use|creature|side|encounter|game [per encounter] | asked of gm|player", ruling_asked, false},
    {"default", "default EXPR", ruling_default, false},
    {"after", "after CHECK [when|unless EXPR]", ruling_after, false},
    {"then", "then reroll|add EXPR [{ STATEMENTS }]", ruling_then_clause, true},
};
const int ruling_nclauses = (int)(sizeof ruling_clauses / sizeof ruling_clauses[0]);

/* A default written as a word or a string must be one of the choices; one
 * a formula gives is checked when it is taken. */
static void default_is_a_choice(compiler *cc, const r_ruling *rl)
{
    if (!rl->nchoices || !rexpr_present(&rl->def))
        return;
    value d;
    if (rl->def.kind == REXPR_CONST) {
        d = rl->def.v;
    } else {
        const chunk *c = cc->p->chunks[rl->def.chunk];
        if (!(c->nconsts == 1 && c->code[0] == OP_CONST && c->len == 4))
            return;
        d = c->consts[0]; /* a bare word compiles to one constant push */
    }
    if ((d.type == V_STR || d.type == V_WORD) && rules_choice(cc->p, rl, program_string(cc->p, (int)d.num)) >= 0)
        return;
    text_buf list;
    text_init(&list);
    rules_choices_text(cc->p, rl, &list);
    comp_error(cc, rl->def.where, "the default is not one of the choices: %s", list.s);
    text_free(&list);
}

/* A default written as a value must be of the answer's kind (a formula's
   is checked when it is taken): `default 3` for a yes or no was an error
   only where the ruling was first asked. */
static void default_fits_kind(compiler *cc, const r_ruling *rl)
{
    if (rl->def.kind != REXPR_CONST)
        return;
    value_type t = rl->def.v.type;
    bool fits = rl->answer == ANSWER_YES_NO     ? t == V_BOOL
                : rl->answer == ANSWER_NUMBER   ? t == V_INT || t == V_FRAC
                : rl->answer == ANSWER_CREATURE ? t == V_CREATURE || t == V_NIL
                                                : t == V_WORD || t == V_ENUM || t == V_STR;
    static const char *const kinds[] = {"yes or no", "a number", "a creature", "a word"};
    if (!fits)
        comp_error(cc, rl->def.where, "ruling %s is answered %s%s, so its default cannot be %s",
                   program_string(cc->p, rl->name), rl->answer == ANSWER_YES_NO ? "" : "with ", kinds[rl->answer],
                   value_type_name(t));
}

void decl_ruling(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_ruling *rl = ruling_of(ds);
    rl->from = ds->from;
    rl->question = -1;
    rl->after = rl->then_body = -1;
    const node *h = ds->dn->list;
    if (h && h->kind == AST_STRING) {
        rl->question = comp_intern(cc, h->text);
        ds->header = h->next;
    } else {
        comp_error(cc, ds->dn->sp, "a ruling asks a question: ruling %s \"...?\"", ds->dn->text);
    }
    decl_clauses(ds, ruling_clauses, ruling_nclauses, NULL);
    ruling_of(ds)->from.cite = ds->from.cite;
    default_is_a_choice(cc, ruling_of(ds));
    default_fits_kind(cc, ruling_of(ds));
    rl = ruling_of(ds);
    if (rl->after == AFTER_FAILED)
        rl->after = -1;
    if (rl->after >= 0 && rl->answer != ANSWER_YES_NO)
        comp_error(cc, ds->dn->sp, "ruling %s is asked after a roll: it is answered yes or no (answer yes_no)",
                   ds->dn->text);
    if (rl->of_player && rl->after < 0 && (rl->per == ASKED_PER_ENCOUNTER || rl->per == ASKED_PER_GAME))
        comp_error(cc, ds->dn->sp,
                   "ruling %s is asked of a player, who answers for a creature: ask it per use, creature or side, "
                   "or after a check",
                   ds->dn->text);
    if (rl->after >= 0 && rl->then == THEN_NOTHING)
        comp_error(cc, ds->dn->sp, "ruling %s is asked after a roll, but no 'then' says what a yes does to it",
                   ds->dn->text);
}

/* --- tactic ------------------------------------------------------------------------- */

void decl_tactic(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_tactic *t = &cc->p->rules->tactics[ds->object];
    t->from = ds->from;
    t->body = -1;
    bool stmts = false;
    decl_clauses(ds, NULL, 0, &stmts);
    if (!ds->dn->b || !stmts) {
        comp_error(cc, ds->dn->sp, "tactic %s needs a body of statements, as in { self: attack nearest_enemy }",
                   ds->dn->text);
        return;
    }
    int body = body_in(cc, &ds->fx, CHUNK_PROCEDURE, ds->dn->b, false);
    t = &cc->p->rules->tactics[ds->object];
    t->body = body;
    t->from.cite = ds->from.cite;
}

/* --- resource ------------------------------------------------------------------------- */

static r_resource *res_of(decl_state *ds)
{
    return &ds->cc->p->rules->resources[ds->object];
}

static void res_value(decl_state *ds, const node *clause, ccur *k)
{
    rexpr e;
    uint8_t unit = res_of(ds)->unit;
    sty want = unit == V_DIST ? TY_DIST : unit == V_TIME ? TY_TIME : TY_NUM;
    text_buf what;
    text_init(&what);
    if (unit == V_INT)
        text_put(&what, clause->text);
    else
        text_add(&what, "the %s of %s, a resource of %s,", clause->text, ds->dn->text,
                 unit == V_DIST ? "distance" : "time");
    bool ok = ccur_expr(k, &ds->fx, want, what.s, &e);
    text_free(&what);
    r_resource *r = res_of(ds);
    rexpr *slot = strcmp(clause->text, "max") == 0 ? &r->max : strcmp(clause->text, "start") == 0 ? &r->start : &r->min;
    if (!ok) { /* said; and the clause is there, so 'needs a max' would be wrong */
        *slot = (rexpr){.kind = REXPR_CONST, .v = value_nil(), .where = clause->sp};
        return;
    }
    *slot = e;
    ccur_end(k);
}

static void res_refresh(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (!ccur_expect(k, "per"))
        return;
    res_of(ds)->refresh = ccur_period(k, true);
    ccur_end(k);
}

/* `damage by PROC [kinds K, ...]` and `heal by PROC`: the procedure name is
   looked up when a command runs it (a later override stands), and checked
   then and by `damage`/`heal` where they are written. */
static void res_by(decl_state *ds, const node *clause, ccur *k)
{
    bool damage = strcmp(clause->text, "damage") == 0;
    if (!ccur_expect(k, "by"))
        return;
    const node *at = k->at;
    int proc = ccur_name(k, "the procedure the command calls");
    if (proc < 0)
        return;
    r_resource *r = res_of(ds);
    *(damage ? &r->damage_by : &r->heal_by) = proc;
    if (damage && ccur_accept(k, "kinds")) {
        while (!ccur_done(k)) {
            ccur_skip_commas(k);
            const node *kat = k->at;
            int kind = ccur_name(k, "a kind of damage");
            if (kind < 0)
                return;
            r = res_of(ds);
            if (r->nkinds >= RESOURCE_MAX_KINDS) {
                comp_error(ds->cc, kat->sp, "at most %d kinds of damage", RESOURCE_MAX_KINDS);
                return;
            }
            r->kinds[r->nkinds++] = kind;
            ccur_skip_commas(k);
        }
        if (res_of(ds)->nkinds == 0)
            ccur_error(k, "expected the kinds of damage, as in 'kinds lethal, nonlethal'");
    }
    ccur_end(k);
    /* the names of a file are all declared before its bodies: the procedure
       is known here, with its parameters */
    const decl *d = program_find_decl(ds->cc->p, DK_PROCEDURE, proc);
    int want = 2 + (damage && res_of(ds)->nkinds > 0);
    if (!d)
        comp_error(ds->cc, at->sp, "no procedure '%s' (declare 'procedure %s(creature, amount%s) { ... }')", at->text,
                   at->text, want == 3 ? ", kind" : "");
    else if (d->nparams != want)
        comp_error(ds->cc, at->sp,
                   "procedure %s takes %d argument%s; '%s by' calls it with %d (the creature, the amount%s)", at->text,
                   d->nparams, d->nparams == 1 ? "" : "s", clause->text, want, want == 3 ? ", the kind" : "");
}

const clause_rule resource_clauses[] = {
    {"max", "max EXPR", res_value, false},
    {"start", "start EXPR", res_value, false},
    {"min", "min EXPR", res_value, false},
    {"refresh", "refresh per turn|round|encounter|PERIOD", res_refresh, false},
    {"internal", STAT_INTERNAL_USAGE, stat_internal, false},
    {"damage",
     "damage by PROCEDURE [kinds KIND, ...] (what 'damage NAME N [KIND]' calls: PROCEDURE(creature, N[, KIND]))",
     res_by, false},
    {"heal", "heal by PROCEDURE (what 'heal NAME N' calls: PROCEDURE(creature, N))", res_by, false},
};
const int resource_nclauses = (int)(sizeof resource_clauses / sizeof resource_clauses[0]);

void decl_resource(decl_state *ds)
{
    compiler *cc = ds->cc;
    rules *r = cc->p->rules;
    int i = -1;
    for (int k = 0; k < r->nresources; k++)
        if (r->resources[k].stat == ds->decl_index)
            i = k;
    if (i < 0) {
        size_t cap = (size_t)r->resources_cap;
        r_resource *g = mem_grow(r->resources, sizeof(r_resource), &cap, (size_t)r->nresources + 1);
        if (!g) {
            cc->oom = true;
            return;
        }
        r->resources = g;
        r->resources_cap = (int)cap;
        i = r->nresources++;
    }
    memset(&r->resources[i], 0, sizeof(r_resource));
    r->resources[i].stat = ds->decl_index;
    r->resources[i].from = ds->from;
    r->resources[i].damage_by = r->resources[i].heal_by = -1;
    r->resources[i].unit = V_INT;
    sty t = (sty)cc->p->decls[ds->decl_index].type;
    if (t == TY_DIST || t == TY_TIME)
        r->resources[i].unit = t == TY_DIST ? V_DIST : V_TIME;
    else if (ds->dn->c && t != TY_NUM && t != TY_ANY)
        comp_error(cc, ds->dn->c->sp, "a resource counts a number, a distance or a time, not %s", sty_name(t));
    ds->object = i;
    decl_clauses(ds, resource_clauses, resource_nclauses, NULL);
    res_of(ds)->from.cite = ds->from.cite;
    if (!rexpr_present(&res_of(ds)->max) && !rexpr_present(&res_of(ds)->start))
        comp_error(cc, ds->dn->sp, "resource %s needs a 'max' (or a 'start')", ds->dn->text);
}

/* --- item ----------------------------------------------------------------------------- */

/* A property's value: a literal, an enum member, another item, a boolean. */
static bool prop_value(compiler *cc, const node *e, value *out)
{
    fctx none = {.what = "item"};
    rexpr r;
    if (!rexpr_of(cc, &none, e, TY_ANY, "a property's value", &r))
        return false;
    if (r.kind == REXPR_CONST) {
        *out = r.v;
        return true;
    }
    /* a bare name compiles to one constant push */
    const chunk *c = cc->p->chunks[r.chunk];
    if (c->nconsts == 1 && c->code[0] == OP_CONST && c->len == 4) {
        *out = c->consts[0];
        return true;
    }
    comp_error(cc, e->sp, "an item's property is a fixed value (a number, dice, a word, another item)");
    return false;
}

void decl_item(decl_state *ds)
{
    compiler *cc = ds->cc;
    rules *r = cc->p->rules;
    r_item *it = &r->items[ds->object];
    it->from = ds->from;
    it->base = it->display = -1;
    if (ds->dn->a) {
        int base = rules_item(r, comp_intern(cc, ds->dn->a->text));
        /* the bases so far form no circle, so this walk ends; it finds the
           circle this base would close */
        int on = base;
        while (on >= 0 && on != ds->object)
            on = r->items[on].base;
        if (base < 0 || base == ds->object)
            comp_error(cc, ds->dn->a->sp, "'%s' is not an item to build on", ds->dn->a->text);
        else if (on == ds->object)
            comp_error(cc, ds->dn->a->sp,
                       "%s cannot build on %s: %s already builds on %s (an item cannot build on itself, however far "
                       "round)",
                       program_string(cc->p, r->items[ds->object].name), ds->dn->a->text, ds->dn->a->text,
                       program_string(cc->p, r->items[ds->object].name));
        else
            r->items[ds->object].base = base;
    }
    for (const node *h = ds->dn->list; h; h = h->next) {
        if (h->kind == AST_STRING)
            r->items[ds->object].display = comp_intern(cc, h->text);
        else
            comp_error(cc, h->sp, "after the item's name: its title as a string, then its properties in { }");
    }
    for (const node *p = ds->dn->b ? ds->dn->b->list : NULL; p; p = p->next) {
        if (p->kind == AST_CITE) {
            ds->from.cite = comp_intern(cc, p->text);
            continue;
        }
        if (p->kind != AST_CLAUSE || !p->list || p->list->next) {
            comp_error(cc, p->sp, "an item's block holds properties, one per line: NAME VALUE");
            continue;
        }
        value v;
        if (!prop_value(cc, p->list, &v))
            continue;
        int name = comp_intern(cc, p->text);
        r_item *item = &cc->p->rules->items[ds->object];
        r_prop *g = mem_realloc(item->props, (size_t)item->nprops * sizeof(r_prop),
                                (size_t)(item->nprops + 1) * sizeof(r_prop));
        if (!g) {
            cc->oom = true;
            return;
        }
        item->props = g;
        item->props[item->nprops++] = (r_prop){name, v};
    }
    cc->p->rules->items[ds->object].from.cite = ds->from.cite;
}
