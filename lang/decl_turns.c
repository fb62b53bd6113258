/* decl_turns: how the order of turns is found (`initiative`), what a round
 * is made of (`round` and its phases), when an encounter is over
 * (`encounter`), and how time is counted (`duration`). */
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/base/mem.h"

/* --- initiative ------------------------------------------------------------------ */

static r_initiative *init_of(decl_state *ds)
{
    return &ds->cc->p->rules->initiative;
}

static void init_mode_clause(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    static const char *const modes[] = {"individual", "sides", "static"};
    int m = ccur_choice(k, "who is ordered", modes, 3);
    if (m >= 0)
        init_of(ds)->mode = (init_mode)m;
    ccur_end(k);
}

static void init_roll(decl_state *ds, const node *clause, ccur *k)
{
    const node *at = k->at;
    int name = ccur_name(k, "the check each participant rolls");
    if (name < 0)
        return;
    int c = rules_check(ds->cc->p->rules, name);
    if (c < 0)
        comp_error(ds->cc, at->sp, "'%s' is not a check; declare it: check %s(self) = d20 + ...", at->text, at->text);
    init_of(ds)->check = c;
    (void)clause;
    ccur_end(k);
}

static void init_score(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    rexpr e;
    if (ccur_expr(k, &ds->fx, TY_NUM, "the score (a number)", &e))
        init_of(ds)->score = e;
    ccur_end(k);
}

static void init_order(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    static const char *const ways[] = {"highest", "lowest"};
    int w = ccur_choice(k, "the order", ways, 2);
    if (w < 0 || !ccur_expect(k, "first"))
        return;
    init_of(ds)->lowest_first = w == 1;
    ccur_end(k);
}

static void init_ties(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    r_initiative *in = init_of(ds);
    in->nties = 0;
    while (!ccur_done(k)) {
        ccur_skip_commas(k);
        if (ccur_done(k))
            break;
        if (in->nties >= 8) {
            ccur_error(k, "at most 8 tie-breakers");
            return;
        }
        tie_key key = {.where = k->at->sp};
        if (in->nties > 0) {
            tie_kind last = (tie_kind)in->ties[in->nties - 1].kind;
            if (last == TIE_REROLL || last == TIE_ROLL_OFF || last == TIE_ROLL) {
                ccur_error(k, "a tie-breaker that rolls settles every tie by itself; it must be the last one");
                return;
            }
        }
        if (ccur_accept(k, "modifier")) {
            key.kind = TIE_MODIFIER;
        } else if (ccur_accept(k, "reroll")) {
            key.kind = TIE_REROLL;
        } else if (ccur_accept(k, "roll_off")) {
            key.kind = TIE_ROLL_OFF;
        } else if (ccur_accept(k, "side")) {
            key.kind = TIE_SIDE;
            const node *at = k->at;
            int side = ccur_name(k, "the side that wins ties");
            if (side < 0)
                return;
            key.side = rules_side(ds->cc->p->rules, side);
            if (key.side < 0)
                comp_error(ds->cc, at->sp, "no creature is on a side '%s'", at->text);
        } else if (k->at->kind == AST_ROLL) {
            const node *r = ccur_take(k);
            key.kind = TIE_ROLL;
            if (!rexpr_of(ds->cc, &ds->fx, r->a, TY_DICE, "the dice rolled to break ties", &key.e))
                return;
        } else {
            key.kind = TIE_EXPR;
            if (!ccur_expr(k, &ds->fx, TY_NUM, "a tie-breaker", &key.e))
                return;
        }
        in = init_of(ds);
        in->ties[in->nties++] = key;
        ccur_skip_commas(k);
    }
}

static void init_reroll(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (ccur_accept(k, "never")) {
        init_of(ds)->reroll_each_round = false;
    } else if (ccur_accept(k, "each")) {
        if (ccur_expect(k, "round"))
            init_of(ds)->reroll_each_round = true;
    } else {
        ccur_error(k, "expected 'never' or 'each round'");
        return;
    }
    ccur_end(k);
}

static void init_group(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    const node *at = k->at;
    int side = ccur_name(k, "the side that rolls once for all its members");
    if (side < 0)
        return;
    int s = rules_side(ds->cc->p->rules, side);
    if (s < 0)
        comp_error(ds->cc, at->sp, "no creature is on a side '%s'", at->text);
    init_of(ds)->group_side = s;
    if (ccur_accept(k, "by")) {
        /* who: self, a member of the side */
        fctx fx = {.what = ds->label};
        rexpr e;
        if (!ccur_expr(k, &fx, TY_ANY, "what tells the side's groups apart", &e))
            return;
        init_of(ds)->group_by = e;
    }
    ccur_end(k);
}

/* `only standard or move, swift or immediate`: groups of slots. */
static void surprise_only(decl_state *ds, const node *clause)
{
    r_initiative *in = init_of(ds);
    in->nonly_groups = 0;
    for (const node *g = clause->list; g; g = g->next) {
        if (g->kind == AST_SEP)
            continue;
        if (in->nonly_groups >= SURPRISE_MAX_GROUPS) {
            comp_error(ds->cc, g->sp, "at most %d groups", SURPRISE_MAX_GROUPS);
            return;
        }
        int *slots = in->only_groups[in->nonly_groups];
        int n = 0;
        const node *stack[LIMIT_MAX_SLOTS * 2];
        int depth = 0;
        stack[depth++] = g;
        while (depth > 0) {
            const node *e = stack[--depth];
            if (e->kind == AST_BINARY && e->op == OR && depth + 2 <= (int)(sizeof stack / sizeof stack[0])) {
                stack[depth++] = e->b;
                stack[depth++] = e->a;
                continue;
            }
            int s = e->kind == AST_NAME ? rules_slot(ds->cc->p->rules, comp_intern(ds->cc, e->text)) : -1;
            if (s < 0) {
                comp_error(ds->cc, e->sp, "expected slots of the economy joined by 'or'");
                return;
            }
            if (n >= LIMIT_MAX_SLOTS) {
                comp_error(ds->cc, e->sp, "at most %d slots in a group", LIMIT_MAX_SLOTS);
                return;
            }
            slots[n++] = s;
        }
        in->only_group_len[in->nonly_groups++] = n;
    }
}

static void init_surprise(decl_state *ds, const node *clause, ccur *k)
{
    r_initiative *in = init_of(ds);
    if (ccur_accept(k, "round")) {
        in->surprise = SURPRISE_ROUND;
    } else if (ccur_accept(k, "free_round")) {
        in->surprise = SURPRISE_FREE_ROUND;
    } else {
        ccur_error(k, "expected 'round' (a surprise round for those not surprised) or 'free_round' (they act once, "
                      "before initiative is rolled)");
        return;
    }
    ccur_end(k);
    if (clause->kind != AST_CLAUSE || !clause->b)
        return;
    for (const node *it = clause->b->list; it; it = it->next) {
        if (it->kind == AST_CLAUSE && strcmp(it->text, "only") == 0) {
            surprise_only(ds, it);
        } else if (it->kind == AST_CITE) {
            /* the surprise round's own passage, cited by its refusals */
            int cite = comp_intern(ds->cc, it->text);
            in = init_of(ds);
            if (in->surprise_from.cite < 0)
                in->surprise_from = (origin){.decl = ds->from.decl, .where = it->sp, .cite = cite};
        } else {
            comp_error(ds->cc, it->sp, "a surprise block holds 'only SLOT or SLOT, SLOT or SLOT'");
        }
    }
}

static void init_when_clause(decl_state *ds, const node *clause, ccur *k)
{
    r_initiative *in = init_of(ds);
    rexpr e;
    if (!ccur_expect(k, "when"))
        return;
    /* who: self */
    fctx fx = {.what = ds->label};
    if (!ccur_expr(k, &fx, TY_BOOL, "a condition", &e))
        return;
    in = init_of(ds);
    if (strcmp(clause->text, "surprised") == 0)
        in->surprised = e;
    else
        in->below = e;
    ccur_end(k);
}

/* `only standard or move`: slots joined by 'or'. */
static bool hold_only(decl_state *ds, const node *e)
{
    r_initiative *in = init_of(ds);
    if (e->kind == AST_BINARY && e->op == OR)
        return hold_only(ds, e->a) && hold_only(ds, e->b);
    int s = e->kind == AST_NAME ? rules_slot(ds->cc->p->rules, comp_intern(ds->cc, e->text)) : -1;
    if (s < 0) {
        comp_error(ds->cc, e->sp, "expected slots of the economy joined by 'or', as in 'only standard or move'");
        return false;
    }
    if (in->nhold_only >= LIMIT_MAX_SLOTS) {
        comp_error(ds->cc, e->sp, "at most %d slots", LIMIT_MAX_SLOTS);
        return false;
    }
    in->hold_only[in->nhold_only++] = s;
    return true;
}

static void init_allow(decl_state *ds, const node *clause, ccur *k)
{
    r_initiative *in = init_of(ds);
    static const char *const what[] = {"delay", "hold"};
    int w = ccur_choice(k, "what is allowed", what, 2);
    if (w == 0) {
        in->allow_delay = true;
        if (ccur_accept(k, "for")) {
            if (ccur_expect(k, "round"))
                in->delay_round_only = true;
        }
        if (ccur_accept(k, "returns"))
            in->delay_returns = true;
    } else if (w == 1) {
        in->allow_hold = true;
        while (!ccur_done(k)) {
            if (ccur_accept(k, "moves")) {
                init_of(ds)->hold_moves = true;
            } else if (ccur_accept(k, "costs")) {
                const node *e = ccur_take(k);
                if (!e) {
                    ccur_error(k, "name what taking a held action costs");
                    return;
                }
                cost c;
                compile_cost(ds->cc, e, &c);
                init_of(ds)->hold_cost = c;
            } else if (ccur_accept(k, "only")) {
                /* `only standard or move`: the slots a held action must spend */
                const node *e = ccur_take(k);
                if (!e || !hold_only(ds, e))
                    return;
                /* a refused hold cites the last citation before the clause, else the declaration's */
                in->hold_from =
                    (origin){ds->decl_index, clause->sp, ds->clause_cite >= 0 ? ds->clause_cite : ds->from.cite};
            } else if (ccur_is(k, "until") || ccur_accept(k, "for")) {
                rexpr d;
                if (!ccur_duration(k, &ds->fx, &d))
                    return;
                init_of(ds)->hold_lasts = d;
            } else {
                break;
            }
        }
    }
    ccur_end(k);
}

/* `reorder start|later [at round start] [requires EXPR [else "MESSAGE"]]`:
   the kind of move is allowed; each requirement is asked of every move of
   that kind, with the entries the creature would land between. */
static void init_reorder(decl_state *ds, const node *clause, ccur *k)
{
    r_initiative *in = init_of(ds);
    uint8_t kind;
    if (ccur_accept(k, "start")) {
        kind = REORDER_START;
        in->reorder_start = true;
    } else if (ccur_accept(k, "later")) {
        kind = REORDER_LATER;
        in->reorder_later = true;
        if (ccur_accept(k, "at")) {
            if (!ccur_expect(k, "round") || !ccur_expect(k, "start"))
                return;
            in->reorder_at_round_start = true;
        }
    } else {
        ccur_error(k, "expected 'start' or 'later' (a condition on the moves is written 'requires EXPR')");
        return;
    }
    if (!ccur_done(k) && !ccur_is(k, "requires")) {
        if (kind == REORDER_START && ccur_is(k, "at"))
            ccur_error(k, "'at round start' is for 'reorder later': a move right after the roll is made at once");
        else
            ccur_error(k, "expected 'requires EXPR' or the end of the clause: what a move needs is a formula "
                          "(of self, above, below, round_number(), ...)");
        return;
    }
    /* a refusal cites the last citation before the clause, else the declaration's */
    origin from = (origin){ds->decl_index, clause->sp, ds->clause_cite >= 0 ? ds->clause_cite : ds->from.cite};
    if (kind == REORDER_START) /* moving up the order is refused with it */
        in->reorder_from_origin = from;
    if (ccur_accept(k, "requires")) {
        if (in->nreorder_rules >= REORDER_MAX_RULES) {
            comp_error(ds->cc, clause->sp, "at most %d 'reorder ... requires' clauses", REORDER_MAX_RULES);
            return;
        }
        fctx fx = {.what = ds->label};
        fctx_add(&fx, "above");
        fctx_add(&fx, "below");
        rexpr e;
        if (!ccur_expr(k, &fx, TY_BOOL, "what a move needs (self: the creature moving; above, below)", &e))
            return;
        int why = clause_else_text(k);
        in->reorder_rules[in->nreorder_rules++] = (r_reorder_rule){kind, e, why, from};
    }
    ccur_end(k);
}

/* The check's name stands for the participant's roll in initiative
   formulas: find it before compiling them. */
static int initiative_check_name(decl_state *ds)
{
    const node *firsts[2] = {ds->dn->list, ds->dn->b ? ds->dn->b->list : NULL};
    for (int i = 0; i < 2; i++)
        for (const node *it = firsts[i]; it; it = it->next) {
            if (it->kind == AST_CLAUSE && strcmp(it->text, "roll") == 0 && it->list && it->list->kind == AST_NAME)
                return comp_intern(ds->cc, it->list->text);
            if (i == 0 && it->kind == AST_NAME && strcmp(it->text, "roll") == 0 && it->next &&
                it->next->kind == AST_NAME)
                return comp_intern(ds->cc, it->next->text);
        }
    return -1;
}

const clause_rule initiative_clauses[] = {
    {"mode", "mode individual|sides|static", init_mode_clause, false},
    {"roll", "roll CHECK", init_roll, false},
    {"score", "score EXPR", init_score, false},
    {"order", "order highest|lowest first", init_order, false},
    {"ties", "ties KEY, KEY, ... (a formula, modifier, reroll, roll DICE, roll_off, side NAME)", init_ties, false},
    {"reroll", "reroll never|each round", init_reroll, false},
    {"group", "group SIDE [by EXPR]", init_group, false},
    {"surprise", "surprise round|free_round [{ only SLOT or SLOT, ... }]", init_surprise, true},
    {"surprised", "surprised when EXPR", init_when_clause, false},
    {"below", "below when EXPR", init_when_clause, false},
    {"allow", "allow delay [for round] [returns] | allow hold [moves] [costs SLOT] [only SLOT or ...] [until ...]",
     init_allow, false},
    {"reorder", "reorder start|later [at round start] [requires EXPR [else \"MESSAGE\"]]", init_reorder, false},
};
const int initiative_nclauses = (int)(sizeof initiative_clauses / sizeof initiative_clauses[0]);

void decl_initiative(decl_state *ds)
{
    r_initiative *in = init_of(ds);
    memset(in, 0, sizeof *in);
    in->present = true;
    in->from = ds->from;
    in->surprise_from = in->hold_from = (origin){-1, {0}, -1};
    in->check = -1;
    in->group_side = -1;
    int check = initiative_check_name(ds);
    if (check >= 0)
        fctx_add(&ds->fx, program_string(ds->cc->p, check));
    int errors = ds->cc->sink->errors;
    decl_clauses(ds, initiative_clauses, initiative_nclauses, NULL);
    in = init_of(ds);
    in->from.cite = ds->from.cite;
    if (ds->cc->sink->errors > errors)
        return; /* one mistake is enough to report */
    if (in->mode != INIT_STATIC && in->check < 0 && !rexpr_present(&in->score))
        comp_error(ds->cc, ds->dn->sp, "initiative needs 'roll CHECK' (or 'mode static' with a 'score')");
    if (in->mode == INIT_STATIC && !rexpr_present(&in->score))
        comp_error(ds->cc, ds->dn->sp, "a static initiative orders by a 'score', as in 'score agility'");
}

/* --- round and phases ------------------------------------------------------------------ */

static void round_length(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    rexpr e;
    if (ccur_expr(k, &ds->fx, TY_TIME, "the length of a round (as in 6 s)", &e))
        ds->cc->p->rules->round_length = e;
    ccur_end(k);
}

static void round_phase(decl_state *ds, const node *clause, ccur *k)
{
    compiler *cc = ds->cc;
    rules *r = cc->p->rules;
    int name = ccur_name(k, "the phase's name");
    if (name < 0)
        return;
    int pi = rules_phase(r, name);
    if (pi < 0 && (pi = rules_add_phase(r, name)) < 0) {
        cc->oom = true;
        return;
    }
    r_phase *ph = &r->phases[pi];
    if (ph->from.decl == ds->decl_index) {
        comp_error(cc, clause->sp, "phase '%s' is declared twice", program_string(cc->p, name));
        return;
    }
    memset(ph, 0, sizeof *ph);
    ph->name = name;
    ph->from = (origin){ds->decl_index, clause->sp, ds->from.cite};
    if (!ccur_done(k)) {
        static const char *const kinds[] = {"turns", "steps", "open"};
        int kind = ccur_choice(k, "how creatures take part", kinds, 3);
        if (kind >= 0)
            r->phases[pi].kind = (phase_kind)kind;
    }
    ccur_end(k);
    if (clause->kind != AST_CLAUSE || !clause->b)
        return;
    fctx none = {.what = ds->label};
    for (const node *it = clause->b->list; it; it = it->next) {
        if (it->kind == AST_CITE) {
            r->phases[pi].from.cite = comp_intern(cc, it->text);
            continue;
        }
        if (it->kind != AST_CLAUSE) {
            comp_error(cc, it->sp, "a phase holds 'skip when ...', 'only ...' and a citation");
            continue;
        }
        ccur pk;
        if (strcmp(it->text, "skip") == 0) {
            ccur_init(&pk, cc, it, it->list, NULL, "skip when EXPR [unless EXPR]");
            rexpr when = {0}, unless = {0};
            if (!ccur_expect(&pk, "when") || !ccur_expr(&pk, &none, TY_BOOL, "a condition", &when))
                continue;
            if (ccur_accept(&pk, "unless"))
                ccur_expr(&pk, &none, TY_BOOL, "a condition", &unless);
            ccur_end(&pk);
            r->phases[pi].skip_when = when;
            r->phases[pi].skip_unless = unless;
        } else if (strcmp(it->text, "only") == 0) {
            ccur_init(&pk, cc, it, it->list, NULL, "only EXPR (self: who takes part)");
            rexpr only;
            if (ccur_expr(&pk, &none, TY_BOOL, "who takes part", &only))
                r->phases[pi].only = only;
            ccur_end(&pk);
        } else {
            comp_error(cc, it->a ? it->a->sp : it->sp, "a phase has no clause '%s' (it has: skip, only)", it->text);
        }
    }
    r->nphases = r->nphases > pi + 1 ? r->nphases : pi + 1;
}

const clause_rule round_clauses[] = {
    {"length", "length DURATION (as in 6 s)", round_length, false},
    {"phase", "phase NAME [turns|steps|open] [{ skip when EXPR; only EXPR }]", round_phase, true},
};
const int round_nclauses = (int)(sizeof round_clauses / sizeof round_clauses[0]);

void decl_round(decl_state *ds)
{
    compiler *cc = ds->cc;
    rules *r = cc->p->rules;
    r->round_from = ds->from;
    /* `round 6 s`: the header may start with the length */
    const node *h = ds->dn->list;
    if (h && h->kind == AST_QTY) {
        rexpr e;
        if (rexpr_of(cc, &ds->fx, h, TY_TIME, "the length of a round", &e))
            r->round_length = e;
        ds->header = h->next;
    }
    decl_clauses(ds, round_clauses, round_nclauses, NULL);
    r->round_from.cite = ds->from.cite;
    if (r->round_length.kind == REXPR_CONST && r->round_length.v.home != TIME_SECONDS)
        comp_error(cc, r->round_length.where, "a round's length is a time in seconds or minutes, as in 6 s");
}

/* --- encounter ----------------------------------------------------------------------- */

static void enc_when(decl_state *ds, const node *clause, ccur *k)
{
    r_encounter *e = &ds->cc->p->rules->encounter;
    bool out = strcmp(clause->text, "out") == 0, stands = strcmp(clause->text, "stands") == 0;
    if (!ccur_expect(k, "when"))
        return;
    fctx fx = {.what = ds->label};
    rexpr cond;
    if (!ccur_expr(k, &fx, TY_BOOL,
                   out      ? "when a creature is out of the fight"
                   : stands ? "when a creature still stands for its side"
                            : "when the encounter is over",
                   &cond))
        return;
    e = &ds->cc->p->rules->encounter;
    *(out ? &e->out : stands ? &e->stands : &e->ends) = cond;
    ccur_end(k);
}

static void enc_track(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    r_encounter *e = &ds->cc->p->rules->encounter;
    e->ntrack = 0;
    while (!ccur_done(k)) {
        ccur_skip_commas(k);
        const node *at = k->at;
        int name = ccur_name(k, "a stat or resource to show");
        if (name < 0)
            return;
        const decl *d = program_find_decl(ds->cc->p, DK_STAT, name);
        if (!d)
            d = program_find_decl(ds->cc->p, DK_RESOURCE, name);
        if (!d) {
            comp_error(ds->cc, at->sp, "no stat or resource '%s'", at->text);
            continue;
        }
        if (e->ntrack >= ENCOUNTER_MAX_TRACK) {
            comp_error(ds->cc, at->sp, "the tracker shows at most %d stats", ENCOUNTER_MAX_TRACK);
            return;
        }
        e->track[e->ntrack++] = program_decl_index(ds->cc->p, d);
        ccur_skip_commas(k);
    }
}

const clause_rule encounter_clauses[] = {
    {"out", "out when EXPR (self: this creature cannot act and does not count)", enc_when, false},
    {"ends", "ends when EXPR", enc_when, false},
    {"stands", "stands when EXPR (self: counts for its side when the winner is told; default: not out)", enc_when,
     false},
    {"track", "track STAT, STAT, ... (the columns of the tracker)", enc_track, false},
};
const int encounter_nclauses = (int)(sizeof encounter_clauses / sizeof encounter_clauses[0]);

void decl_encounter(decl_state *ds)
{
    rules *r = ds->cc->p->rules;
    memset(&r->encounter, 0, sizeof r->encounter);
    r->encounter.from = ds->from;
    decl_clauses(ds, encounter_clauses, encounter_nclauses, NULL);
    r->encounter.from.cite = ds->from.cite;
}

/* --- duration ------------------------------------------------------------------------ */

static time_config *time_cfg(decl_state *ds)
{
    rules *r = ds->cc->p->rules;
    const char *name = ds->dn->text;
    return strcmp(name, "round") == 0 ? &r->rounds_cfg : &r->turns_cfg;
}

static void dur_anchor(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    static const char *const what[] = {"position", "creature"};
    int w =
        ccur_choice(k, "what a duration is anchored to (the initiative count, or the creature's own turns)", what, 2);
    if (w >= 0)
        time_cfg(ds)->anchor_creature = w == 1;
    ccur_end(k);
}

static void dur_ticks(decl_state *ds, const node *clause, ccur *k)
{
    if (strcmp(ds->dn->text, "round") != 0) {
        comp_error(ds->cc, clause->sp, "only rounds tick at a phase ('duration round { ticks at phase NAME }')");
        return;
    }
    if (!ccur_expect(k, "at") || !ccur_expect(k, "phase"))
        return;
    const node *at = k->at;
    int name = ccur_name(k, "a phase");
    if (name < 0)
        return;
    int pi = rules_phase(ds->cc->p->rules, name);
    if (pi < 0)
        comp_error(ds->cc, at->sp, "no phase '%s' in the round", at->text);
    time_cfg(ds)->tick_phase = pi;
    ccur_end(k);
}

const clause_rule duration_clauses[] = {
    {"anchor", "anchor position|creature", dur_anchor, false},
    {"ticks", "ticks at phase NAME (begun in that phase: counts its starts)", dur_ticks, false},
};
const int duration_nclauses = (int)(sizeof duration_clauses / sizeof duration_clauses[0]);

void decl_duration(decl_state *ds)
{
    compiler *cc = ds->cc;
    const char *name = ds->dn->text;
    decl *d = &cc->p->decls[ds->decl_index];
    if (strcmp(name, "round") == 0 || strcmp(name, "turn") == 0) {
        time_config *tc = time_cfg(ds);
        memset(tc, 0, sizeof *tc);
        tc->tick_phase = -1;
        tc->from = ds->from;
        if (ds->dn->a)
            comp_error(cc, ds->dn->a->sp, "'duration %s' says how %ss are counted; it has no value", name, name);
        decl_clauses(ds, duration_clauses, duration_nclauses, NULL);
        time_cfg(ds)->from.cite = ds->from.cite;
        d = &cc->p->decls[ds->decl_index];
        d->value = -1;
        return;
    }
    /* A named duration: `= EXPR` or `until start|end of [next] turn|round`. */
    if (ds->dn->a) {
        sty t;
        int formula = formula_in(cc, &ds->fx, ds->dn->a, &t);
        const node *unit = ds->dn->list; /* `= 1 scen`: a word that names no period */
        if (ds->dn->a->kind == AST_INT && unit && unit->kind == AST_NAME && unit->text)
            comp_period_unknown(cc, unit->sp, unit->text);
        else if (t != TY_TIME && t != TY_ANY)
            comp_error(cc, ds->dn->a->sp, "a duration is a span of time, not %s", sty_name(t));
        cc->p->decls[ds->decl_index].value = formula;
    } else {
        ccur k;
        ccur_init(&k, cc, ds->dn, ds->dn->list, NULL, "duration NAME until start|end of [next] turn|round");
        rexpr e;
        if (!ccur_is(&k, "until")) {
            ccur_error(&k, "a named duration is '= DURATION' or 'until start|end of [next] turn|round'");
            return;
        }
        if (!ccur_duration(&k, &ds->fx, &e))
            return;
        ccur_end(&k);
        /* the value as a formula chunk, so the name works in expressions */
        fn_state fs;
        fn_begin(cc, &fs, CHUNK_FORMULA, ds->label, ds->dn->sp);
        emit_const(cc, e.v, ds->dn->sp);
        cc->p->decls[ds->decl_index].value = fn_end(cc, &fs, ds->dn->sp);
    }
    /* only a citation may follow */
    ds->skip_header = true;
    decl_clauses(ds, NULL, 0, NULL);
}
