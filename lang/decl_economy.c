/* decl_economy: `economy` (slots, limits across slots, exclusivity) and
 * `exchange` (spend one slot as another). */
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/base/mem.h"

static econ_slot *slot_at(decl_state *ds, int i)
{
    return &ds->cc->p->rules->slots[i];
}

/* A slot name that must already be declared in an economy. */
static int slot_named(ccur *k, const char *what)
{
    const node *at = k->at;
    int name = ccur_name(k, what);
    if (name < 0)
        return -1;
    rules *r = k->cc->p->rules;
    int i = rules_slot(r, name);
    if (i < 0) {
        const char *best = NULL;
        for (int s = 0; s < r->nslots; s++)
            if (diag_edit_distance(at->text, program_string(k->cc->p, r->slots[s].name), 2) <= 2)
                best = program_string(k->cc->p, r->slots[s].name);
        if (best)
            comp_error(k->cc, at->sp, "'%s' is not a slot of the economy; did you mean '%s'?", at->text, best);
        else
            comp_error(k->cc, at->sp, "'%s' is not a slot of the economy", at->text);
    }
    return i;
}

static void econ_slot_clause(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    compiler *cc = ds->cc;
    int name = ccur_name(k, "the slot's name");
    if (name < 0)
        return;
    int i = rules_slot(cc->p->rules, name);
    if (i < 0 && (i = rules_add_slot(cc->p->rules, name)) < 0) {
        cc->oom = true;
        return;
    }
    econ_slot *s = slot_at(ds, i);
    if (s->from.decl == ds->decl_index) {
        comp_error(cc, clause->sp, "slot '%s' is declared twice in this economy", program_string(cc->p, name));
        return;
    }
    memset(s, 0, sizeof *s);
    s->name = name;
    s->from = ds->from;
    s->from.where = clause->sp;
    s->phase = s->borrows = -1;
    if (ccur_accept(k, "any")) {
        s->unlimited = true;
    } else {
        rexpr count;
        if (!ccur_expr(k, &ds->fx, TY_NUM, "how many (a number, a formula or 'any')", &count))
            return;
        s = slot_at(ds, i);
        s->count = count;
        if (count.kind == REXPR_CONST && (count.v.type != V_INT || count.v.num < 0))
            comp_error(cc, count.where, "a slot's count is a whole number of at least 0");
    }
    if (!ccur_expect(k, "per"))
        return;
    period per = ccur_period(k, false);
    s = slot_at(ds, i);
    s->per = per;
    while (!ccur_done(k)) {
        if (ccur_accept(k, "role")) {
            static const char *const roles[] = {"primary", "movement", "minor", "free", "reaction"};
            int role = ccur_choice(k, "a role", roles, 5);
            if (role >= 0)
                slot_at(ds, i)->role = (slot_role)(ROLE_PRIMARY + role);
        } else if (ccur_accept(k, "during")) {
            int phase = ccur_name(k, "a phase of the round");
            if (phase >= 0) {
                int pi = rules_phase(cc->p->rules, phase);
                if (pi < 0)
                    comp_error(cc, clause->sp, "no phase '%s' in the round", program_string(cc->p, phase));
                slot_at(ds, i)->phase = pi;
            }
        } else if (ccur_accept(k, "borrows")) {
            int other = slot_named(k, "the slot it borrows");
            if (!ccur_expect(k, "from"))
                return;
            bool this_turn = false, next_turn = false;
            /* `this or next` reads as one expression of two names */
            const node *which = k->at;
            if (which && which->kind == AST_BINARY && which->op == OR && which->a->kind == AST_NAME &&
                which->b->kind == AST_NAME) {
                const char *ws[2] = {which->a->text, which->b->text};
                for (int w = 0; w < 2; w++) {
                    this_turn |= strcmp(ws[w], "this") == 0;
                    next_turn |= strcmp(ws[w], "next") == 0;
                }
                ccur_take(k);
            } else if (ccur_accept(k, "this")) {
                this_turn = true;
            } else if (ccur_accept(k, "next")) {
                next_turn = true;
            }
            if (!ccur_expect(k, "turn"))
                return;
            if (!this_turn && !next_turn)
                comp_error(cc, clause->sp, "say which turn it borrows from: 'from this or next turn'");
            s = slot_at(ds, i);
            s->borrows = other;
            s->borrow_this = this_turn;
            s->borrow_next = next_turn;
        } else {
            ccur_end(k);
        }
    }
}

/* `limit a + b <= 3 per round` */
static bool sum_of_slots(decl_state *ds, const node *e, econ_limit *lim)
{
    if (e->kind == AST_BINARY && e->op == '+')
        return sum_of_slots(ds, e->a, lim) && sum_of_slots(ds, e->b, lim);
    if (e->kind != AST_NAME) {
        comp_error(ds->cc, e->sp, "a limit adds up slots, as in 'limit swift + immediate <= 3 per round'");
        return false;
    }
    int s = rules_slot(ds->cc->p->rules, comp_intern(ds->cc, e->text));
    if (s < 0) {
        comp_error(ds->cc, e->sp, "'%s' is not a slot of the economy", e->text);
        return false;
    }
    if (lim->nslots >= LIMIT_MAX_SLOTS) {
        comp_error(ds->cc, e->sp, "a limit adds up at most %d slots", LIMIT_MAX_SLOTS);
        return false;
    }
    lim->slots[lim->nslots++] = s;
    return true;
}

static econ_limit *new_limit(compiler *cc)
{
    rules *r = cc->p->rules;
    size_t cap = (size_t)r->limits_cap;
    econ_limit *g = mem_grow(r->limits, sizeof(econ_limit), &cap, (size_t)r->nlimits + 1);
    if (!g) {
        cc->oom = true;
        return NULL;
    }
    r->limits = g;
    r->limits_cap = (int)cap;
    econ_limit *lim = &r->limits[r->nlimits++];
    memset(lim, 0, sizeof *lim);
    return lim;
}

static void econ_limit_clause(decl_state *ds, const node *clause, ccur *k)
{
    const node *e = ccur_take(k);
    if (!e || e->kind != AST_BINARY || e->op != LE || e->b->kind != AST_INT) {
        comp_error(ds->cc, e ? e->sp : clause->sp, "write a limit as 'limit a + b <= N per turn|round'");
        return;
    }
    econ_limit tmp = {0};
    if (!sum_of_slots(ds, e->a, &tmp))
        return;
    tmp.max = (int)e->b->num;
    if (!ccur_expect(k, "per"))
        return;
    tmp.per = ccur_period(k, false);
    ccur_end(k);
    tmp.from = ds->from;
    tmp.from.where = clause->sp;
    econ_limit *lim = new_limit(ds->cc);
    if (lim)
        *lim = tmp;
}

static void econ_exclusive_clause(decl_state *ds, const node *clause, ccur *k)
{
    int s = slot_named(k, "the slot");
    if (s < 0)
        return;
    if (!ccur_expect(k, "by") || !ccur_expect(k, "kind"))
        return;
    /* the lock lasts until the creature's next turn starts */
    if (ccur_accept(k, "until")) {
        if (!ccur_expect(k, "start") || !ccur_expect(k, "of") || !ccur_expect(k, "next") || !ccur_expect(k, "turn"))
            return;
    }
    ccur_end(k);
    rules *r = ds->cc->p->rules;
    size_t cap = (size_t)r->exclusives_cap;
    econ_exclusive *g = mem_grow(r->exclusives, sizeof(econ_exclusive), &cap, (size_t)r->nexclusives + 1);
    if (!g) {
        ds->cc->oom = true;
        return;
    }
    r->exclusives = g;
    r->exclusives_cap = (int)cap;
    r->exclusives[r->nexclusives++] = (econ_exclusive){.slot = s, .from = {ds->decl_index, clause->sp, ds->from.cite}};
}

const clause_rule economy_clauses[] = {
    {"slot",
     "slot NAME COUNT per turn|round [role primary|movement|minor|free|reaction] [during PHASE] "
     "[borrows SLOT from this or next turn]",
     econ_slot_clause, false},
    {"limit", "limit SLOT + SLOT <= N per turn|round", econ_limit_clause, false},
    {"exclusive", "exclusive SLOT by kind until start of next turn", econ_exclusive_clause, false},
};
const int economy_nclauses = (int)(sizeof economy_clauses / sizeof economy_clauses[0]);

void decl_economy(decl_state *ds)
{
    rules *r = ds->cc->p->rules;
    if (ds->overrides) {
        /* a new economy replaces the old one's limits; slots keep their
           indices and are redeclared */
        r->nlimits = 0;
        r->nexclusives = 0;
        for (int i = 0; i < r->nslots; i++)
            r->slots[i].from.decl = -1;
    }
    int before = r->nlimits;
    decl_clauses(ds, economy_clauses, economy_nclauses, NULL);
    /* the citation may come after the clauses: give it to all of them */
    for (int i = 0; i < r->nslots; i++)
        if (r->slots[i].from.decl == ds->decl_index)
            r->slots[i].from.cite = ds->from.cite;
    for (int i = before; i < r->nlimits; i++)
        r->limits[i].from.cite = ds->from.cite;
    for (int i = 0; i < r->nexclusives; i++)
        if (r->exclusives[i].from.decl == ds->decl_index)
            r->exclusives[i].from.cite = ds->from.cite;
}

/* --- exchange ------------------------------------------------------------------ */

static econ_exchange *current_exchange(decl_state *ds)
{
    return &ds->cc->p->rules->exchanges[ds->object];
}

static void exch_limit(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    econ_exchange *x = current_exchange(ds);
    if (ccur_times_per(k, "how many exchanges", false, &x->limit, &x->per))
        ccur_end(k);
}

const clause_rule exchange_clauses[] = {
    {"limit", "limit N per turn|round", exch_limit, false},
};
const int exchange_nclauses = (int)(sizeof exchange_clauses / sizeof exchange_clauses[0]);

void decl_exchange(decl_state *ds)
{
    compiler *cc = ds->cc;
    ccur k;
    ccur_init(&k, cc, ds->dn, ds->dn->list, NULL, "exchange SLOT -> SLOT");
    int from = slot_named(&k, "the slot given up");
    if (from < 0)
        return;
    if (!ccur_expect(&k, "->"))
        return;
    int to = slot_named(&k, "the slot gained");
    if (to < 0)
        return;
    ccur_end(&k);
    if (from == to) {
        comp_error(cc, ds->dn->sp, "an exchange gives up one slot for another, not for itself");
        return;
    }
    rules *r = cc->p->rules;
    size_t cap = (size_t)r->exchanges_cap;
    econ_exchange *g = mem_grow(r->exchanges, sizeof(econ_exchange), &cap, (size_t)r->nexchanges + 1);
    if (!g) {
        cc->oom = true;
        return;
    }
    r->exchanges = g;
    r->exchanges_cap = (int)cap;
    ds->object = r->nexchanges++;
    r->exchanges[ds->object] = (econ_exchange){.from_slot = from, .to_slot = to, .from = ds->from};
    ds->skip_header = true;
    decl_clauses(ds, exchange_clauses, exchange_nclauses, NULL);
    r->exchanges[ds->object].from.cite = ds->from.cite;
}
