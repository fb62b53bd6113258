/* decl_track: `track NAME { boxes ...; absorb ...; named; refresh per ... }`,
 * a per-creature row of boxes or slots that hits mark (runtime/combat/tracks.c). */
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"

static r_track *track_of(decl_state *ds)
{
    return &ds->cc->p->rules->tracks[ds->object];
}

/* A box's value written out is a whole number of at least 1. */
static void check_box_literal(compiler *cc, const node *e)
{
    if (e->kind == AST_INT && e->num >= 1 && e->num <= 1000000)
        return;
    if (e->kind == AST_INT || e->kind == AST_FRAC || e->kind == AST_STRING || e->kind == AST_BOOL ||
        e->kind == AST_DICE || e->kind == AST_QTY)
        comp_error(cc, e->sp, "a box's value is a whole number of at least 1, as in 'boxes [2, 4, 6]'");
}

static void track_boxes(decl_state *ds, const node *clause, ccur *k)
{
    compiler *cc = ds->cc;
    const node *e = k->at;
    if (e && e->kind == AST_LIST) {
        int n = 0;
        for (const node *x = e->list; x; x = x->next, n++)
            check_box_literal(cc, x);
        if (n == 0)
            comp_error(cc, e->sp,
                       "a track needs at least one box: 'boxes [1, 1]', or 'boxes 2' for two 1-valued boxes");
        else if (n > TRACK_MAX_BOXES)
            comp_error(cc, e->sp, "a track has at most %d boxes", TRACK_MAX_BOXES);
    } else if (e && e->kind == AST_INT && (e->num < 1 || e->num > TRACK_MAX_BOXES)) {
        comp_error(cc, e->sp, "a track has 1 to %d boxes, not %lld", TRACK_MAX_BOXES, (long long)e->num);
    } else if (e) {
        check_box_literal(cc, e);
    }
    rexpr r;
    if (!ccur_expr(k, &ds->fx, TY_ANY, "the boxes (a list of values, or how many 1-valued boxes)", &r))
        return;
    (void)clause;
    track_of(ds)->boxes = r;
    ccur_end(k);
}

static void track_absorb(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    static const char *const words[] = {
#define ABSORB_WORD(name, word, meaning) word,
        ABSORB_RULES(ABSORB_WORD)
#undef ABSORB_WORD
    };
    int i = ccur_choice(k, "a rule of absorbing", words, ABSORB_COUNT);
    if (i >= 0)
        track_of(ds)->absorb = (absorb_rule)i;
    ccur_end(k);
}

static void track_named(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    track_of(ds)->named = true;
    ccur_end(k);
}

/* `refresh per P` clears every box; `refresh per P1, P2, P3` clears box i
   with the i-th period (the last for the boxes after). */
static void track_refresh(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (!ccur_expect(k, "per"))
        return;
    r_track *t = track_of(ds);
    t->nclear = 0;
    do {
        ccur_skip_commas(k);
        const node *at = k->at;
        period p = ccur_period(k, true);
        if (p == PER_NONE)
            return;
        t = track_of(ds);
        if (t->nclear >= TRACK_MAX_PERIODS) {
            comp_error(ds->cc, at->sp, "a track names at most %d periods", TRACK_MAX_PERIODS);
            return;
        }
        t->clear[t->nclear++] = p;
    } while (k->at && k->at->kind == AST_SEP);
    ccur_end(k);
}

const clause_rule track_clauses[] = {
    {"boxes", "boxes EXPR (a list of the boxes' values, or how many 1-valued boxes; for the creature)", track_boxes,
     false},
    {"absorb", "absorb whole|part|level|spread (how a hit is taken; default whole)", track_absorb, false},
    {"named", "named (a marked box may carry a name given in play)", track_named, false},
    {"refresh", "refresh per PERIOD, ... (clears the boxes; one period per box, the last for the rest)", track_refresh,
     false},
};
const int track_nclauses = (int)(sizeof track_clauses / sizeof track_clauses[0]);

bool track_arg(compiler *cc, const node *call, const node *arg)
{
    int t = rules_track(cc->p->rules, comp_intern(cc, arg->text));
    if (t < 0)
        return false;
    const node *name = arg->next ? arg->next->next : NULL;
    if (strcmp(call->text, "absorb") == 0 && arg == call->list->next && name && name->kind == AST_STRING &&
        !cc->p->rules->tracks[t].named)
        comp_error(cc, name->sp, "track %s's boxes carry no names (declare it 'named' to give them one)", arg->text);
    return true;
}

void decl_track(decl_state *ds)
{
    compiler *cc = ds->cc;
    if (ds->object < 0)
        return;
    r_track *t = track_of(ds);
    t->from = ds->from;
    t->absorb = ABSORB_WHOLE;
    t->named = false;
    t->nclear = 0;
    memset(&t->boxes, 0, sizeof t->boxes);
    decl_clauses(ds, track_clauses, track_nclauses, NULL);
    t = track_of(ds);
    t->from.cite = ds->from.cite;
    if (!rexpr_present(&t->boxes))
        comp_error(cc, ds->dn->sp, "track %s needs its boxes, as in 'boxes [1, 2]' or 'boxes 3'", ds->dn->text);
}
