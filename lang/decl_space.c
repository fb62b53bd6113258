/* decl_space: where creatures are (`space grid` or `space zones`) and how
 * far things reach (`range`). */
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/base/mem.h"
#include "runtime/base/text.h"

static r_space *space_of(decl_state *ds)
{
    return &ds->cc->p->rules->space;
}

static void sp_square(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    rexpr e;
    if (!ccur_expr(k, &ds->fx, TY_DIST, "the side of a square (as in 5 ft)", &e))
        return;
    if (e.kind != REXPR_CONST) {
        comp_error(ds->cc, e.where, "a square's side is a fixed distance");
        return;
    }
    /* every distance on the grid is so many squares times this */
    if (e.v.type != V_DIST || e.v.num <= 0) {
        comp_error(ds->cc, e.where, "a square's side is more than 0 ft");
        return;
    }
    space_of(ds)->square = e.v;
    ccur_end(k);
}

#define DIAGONAL_MAX 10

/* `diagonal N | diagonal alternate`, of the grid or of one range: false
   (reported) when it is neither. */
static bool parse_diagonal(decl_state *ds, ccur *k, int64_t *num, int64_t *den, bool *alternate)
{
    if (ccur_accept(k, "alternate")) {
        *alternate = true;
        return true;
    }
    const node *n = ccur_take(k);
    /* at most 10 squares, so that a path's cost in 64 bits has room for
       a 12-place fraction of a square at every step */
    if (n && (n->kind == AST_INT || n->kind == AST_FRAC) && n->num > 0 && n->num <= DIAGONAL_MAX * n->den) {
        *num = n->num;
        *den = n->den;
        return true;
    }
    if (n && (n->kind == AST_INT || n->kind == AST_FRAC))
        comp_error(ds->cc, n->sp, "a diagonal step counts more than 0 and at most %d squares", DIAGONAL_MAX);
    else
        comp_error(ds->cc, n ? n->sp : k->end,
                   "a diagonal step counts a number of squares (as in 1.5), or 'alternate' (1, 2, 1, ...)");
    return false;
}

static void sp_diagonal(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    r_space *s = space_of(ds);
    if (parse_diagonal(ds, k, &s->diag_num, &s->diag_den, &s->diag_alternate))
        ccur_end(k);
}

static void sp_difficult(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    int64_t n;
    if (!ccur_int(k, "how many times the cost (as in 2)", &n))
        return;
    if (n < 1 || n > 10) {
        comp_error(ds->cc, clause->sp, "difficult terrain multiplies the cost by 1 to 10");
        return;
    }
    space_of(ds)->difficult = (int)n;
    /* which square of a step costs more is the rules' choice */
    if (ccur_accept(k, "on")) {
        static const char *const ends[] = {"leaving", "entering"};
        int which = ccur_choice(k, "'leaving' or 'entering'", ends, 2);
        if (which >= 0)
            space_of(ds)->difficult_entering = which == 1;
    }
    ccur_end(k);
}

static void sp_reach(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    const node *at = k->at;
    int name = ccur_name(k, "the range a creature threatens");
    if (name < 0)
        return;
    int r = rules_range(ds->cc->p->rules, name);
    if (r < 0)
        comp_error(ds->cc, at->sp, "no range '%s'", at->text);
    space_of(ds)->reach_range = r;
    ccur_end(k);
}

static void sp_occupies(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    fctx fx = {.what = ds->label};
    rexpr e;
    if (ccur_expr(k, &fx, TY_NUM, "how many squares a side (self: the creature)", &e))
        space_of(ds)->occupies = e;
    ccur_end(k);
}

static void sp_share(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    if (!ccur_expect(k, "when"))
        return;
    fctx fx = {.what = ds->label};
    rexpr e;
    if (ccur_expr(k, &fx, TY_BOOL, "a condition (self: the creature whose square may be shared)", &e))
        space_of(ds)->share = e;
    ccur_end(k);
}

/* --- cover ----------------------------------------------------------------------- */

/* The levels of cover, in order: those `cover levels` declared, or none,
   half and full when a clause names one before any are declared. */
static void cover_default_levels(decl_state *ds)
{
    r_space *s = space_of(ds);
    if (s->cover.nlevels)
        return;
    static const char *const plain[] = {"none", "half", "full"};
    for (int i = 0; i < 3; i++)
        s->cover.levels[i] = comp_intern(ds->cc, plain[i]);
    s->cover.nlevels = 3;
}

static void cover_level_list(text_buf *t, const decl_state *ds)
{
    const r_space *s = &ds->cc->p->rules->space;
    for (int i = 0; i < s->cover.nlevels; i++)
        text_add(t, "%s%s", i ? ", " : "", program_string(ds->cc->p, s->cover.levels[i]));
}

/* A level the clause names: its index, or -1 (said). */
static int cover_level_named(decl_state *ds, ccur *k)
{
    cover_default_levels(ds);
    const node *at = k->at;
    int name = ccur_name(k, "a level of cover");
    if (name < 0)
        return -1;
    const r_space *s = space_of(ds);
    for (int i = 0; i < s->cover.nlevels; i++)
        if (s->cover.levels[i] == name)
            return i;
    text_buf t;
    text_init(&t);
    cover_level_list(&t, ds);
    comp_error(ds->cc, at->sp, "no level of cover '%s' (the levels are %s; 'cover levels' comes first to name others)",
               at->text, t.s);
    text_free(&t);
    return -1;
}

/* `cover levels NAME, NAME, ...`: at least two, the first being no cover. */
static void cover_levels(decl_state *ds, const node *clause, ccur *k)
{
    r_space *s = space_of(ds);
    if (s->cover.nlevels) {
        comp_error(ds->cc, clause->sp, "the levels of cover are declared once, before the clauses that name them");
        return;
    }
    int n = 0;
    while (!ccur_done(k)) {
        ccur_skip_commas(k);
        const node *at = k->at;
        int name = ccur_name(k, "a level of cover");
        if (name < 0)
            return;
        const char *w = program_string(ds->cc->p, name);
        if (!strcmp(w, "unseen") || !strcmp(w, "block")) {
            comp_error(ds->cc, at->sp,
                       "'%s' is not a level of cover: cover() says 'unseen' without sight, and "
                       "'block' is for creatures that block",
                       w);
            return;
        }
        for (int i = 0; i < n; i++)
            if (s->cover.levels[i] == name) {
                comp_error(ds->cc, at->sp, "level of cover '%s' is named twice", w);
                return;
            }
        if (n >= COVER_LEVELS_MAX) {
            comp_error(ds->cc, at->sp, "at most %d levels of cover", COVER_LEVELS_MAX);
            return;
        }
        s->cover.levels[n++] = name;
        ccur_skip_commas(k);
    }
    if (n < 2) {
        comp_error(ds->cc, clause->sp,
                   "cover needs at least two levels, the first being no cover (as in cover levels "
                   "none, half, full)");
        return;
    }
    s->cover.nlevels = n;
    s->cover.explained = true;
}

/* `cover from corners|lines [L0, L1, L2, L3, L4 [, UNSEEN]]`: the
   geometry, the level for 0 to 4 hidden corners or blocked lines, and the
   level when the attacker does not see the target (unseen if not named). */
static void cover_from(decl_state *ds, const node *clause, ccur *k)
{
    static const char *const kinds[] = {"corners", "lines"};
    int kind = ccur_choice(k, "how cover is found", kinds, 2);
    if (kind < 0)
        return;
    cover_default_levels(ds);
    r_space *s = space_of(ds);
    s->cover.from = kind == 0 ? COVER_CORNERS : COVER_LINES;
    int last = s->cover.nlevels - 1;
    int8_t counts[6] = {0, 1, 1, 1, (int8_t)last, -1};
    if (!ccur_done(k)) {
        for (int i = 0; i < 6; i++) {
            ccur_skip_commas(k);
            if (ccur_done(k) && i == 5)
                break;
            if (ccur_done(k)) {
                comp_error(ds->cc, clause->sp,
                           "name five levels, for 0, 1, 2, 3 and 4 %s (and a sixth for no line of sight, if not "
                           "unseen)",
                           kind ? "blocked lines" : "hidden corners");
                return;
            }
            int level = cover_level_named(ds, k);
            if (level < 0)
                return;
            counts[i] = (int8_t)level;
        }
        ccur_skip_commas(k);
        if (!ccur_done(k)) {
            comp_error(ds->cc, k->at->sp, "at most six levels: for 0 to 4 %s, and for no line of sight",
                       kind ? "blocked lines" : "hidden corners");
            return;
        }
        s = space_of(ds);
        s->cover.explained = true;
    }
    memcpy(s->cover.count, counts, 5);
    s->cover.unseen = counts[5];
    if (kind == 1)
        s->cover.explained = true;
    ccur_end(k);
}

/* `cover creatures LEVEL|block [when EXPR]` */
static void cover_creatures(decl_state *ds, const node *clause, ccur *k)
{
    if (space_of(ds)->cover.nby >= COVER_BY_MAX) {
        comp_error(ds->cc, clause->sp, "at most %d 'cover creatures' clauses", COVER_BY_MAX);
        return;
    }
    int level = -1;
    if (!ccur_accept(k, "block") && (level = cover_level_named(ds, k)) < 0)
        return;
    fctx fx = {.what = ds->label};
    fctx_add(&fx, "attacker");
    fctx_add(&fx, "target");
    fctx_add(&fx, "how");
    fx.types[0] = fx.types[1] = TY_CREATURE;
    rexpr when = {.kind = REXPR_CONST, .v = value_bool(true)};
    if (ccur_accept(k, "when") &&
        !ccur_expr(k, &fx, TY_BOOL, "which creatures (self: the one in between; attacker, target, how)", &when))
        return;
    r_space *s = space_of(ds);
    s->cover.by[s->cover.nby++] = (r_cover_by){level, when};
    s->cover.creatures_block |= level < 0;
    s->cover.explained = true;
    ccur_end(k);
}

static void sp_cover(decl_state *ds, const node *clause, ccur *k)
{
    if (ccur_accept(k, "from"))
        cover_from(ds, clause, k);
    else if (ccur_accept(k, "levels"))
        cover_levels(ds, clause, k);
    else if (ccur_accept(k, "creatures"))
        cover_creatures(ds, clause, k);
    else
        ccur_error(k, "expected 'from corners|lines', 'levels NAME, ...' or 'creatures LEVEL|block [when EXPR]'");
}

const clause_rule grid_clauses[] = {
    {"square", "square DISTANCE", sp_square, false},
    {"diagonal", "diagonal N | diagonal alternate", sp_diagonal, false},
    {"difficult",
     "difficult N [on leaving|on entering] (leaving, or entering, difficult terrain costs N times as much)",
     sp_difficult, false},
    {"reach", "reach RANGE (the squares a creature threatens)", sp_reach, false},
    {"occupies", "occupies EXPR (squares per side; self is the creature)", sp_occupies, false},
    {"share", "share when EXPR (self: a creature whose square others may enter and end a move in)", sp_share, false},
    {"cover",
     "cover from corners|lines [L0, L1, L2, L3, L4 [, UNSEEN]] | cover levels NAME, ... | cover creatures LEVEL|block "
     "[when EXPR] "
     "(what cover() gives, section 7.13)",
     sp_cover, false},
};
const int grid_nclauses = (int)(sizeof grid_clauses / sizeof grid_clauses[0]);

/* Zones take no clause: groups, engagements and their limits are the
   rules' relations (`relation R(a, b) { group max N; within zone }`). */
const clause_rule zones_clauses[] = {{"", "", NULL, false}};
const int zones_nclauses = 0;

/* A clause in `space zones` is reported once, with where groups went. */
static bool zones_without_clauses(decl_state *ds)
{
    for (const node *it = ds->dn->b ? ds->dn->b->list : NULL; it; it = it->next)
        if (it->kind == AST_CLAUSE) {
            comp_error(ds->cc, it->sp,
                       "space zones takes no clauses: a group or an engagement is a relation held by a group "
                       "(relation grouped(a, b) { group max N; within zone })");
            return true;
        }
    return false;
}

void decl_space(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_space *s = space_of(ds);
    rules_space_defaults(s);
    s->from = ds->from;
    ccur k;
    ccur_init(&k, cc, ds->dn, ds->dn->list, NULL, "space grid|zones { ... }");
    static const char *const kinds[] = {"grid", "zones"};
    int kind = ccur_choice(&k, "the kind of space", kinds, 2);
    if (kind < 0)
        return;
    s->kind = kind == 0 ? SPACE_GRID : SPACE_ZONES;
    ds->header = k.at;
    if (kind == 0)
        decl_clauses(ds, grid_clauses, grid_nclauses, NULL);
    else if (!zones_without_clauses(ds))
        decl_clauses(ds, zones_clauses, zones_nclauses, NULL);
    s = space_of(ds);
    s->from.cite = ds->from.cite;
    if (s->cover.explained && s->cover.from == COVER_UNDECLARED)
        comp_error(cc, ds->dn->sp,
                   "the grid says what grants cover but not how it is found: add 'cover from corners' "
                   "or 'cover from lines'");
}

/* --- range -------------------------------------------------------------------------- */

static r_range *range_of(decl_state *ds)
{
    return &ds->cc->p->rules->ranges[ds->object];
}

static void rg_within(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    int mask = 0;
    while (!ccur_done(k)) {
        ccur_skip_commas(k);
        if (ccur_accept(k, "zone")) {
            mask |= ZONE_ZONE;
        } else {
            const node *at = k->at;
            int name = ccur_name(k, "a relation, or zone");
            if (name < 0)
                return;
            int rel = rules_relation(ds->cc->p->rules, name);
            r_range *rg = range_of(ds);
            if (rel < 0) {
                comp_error(ds->cc, at->sp, "'%s' is not a relation: a range is within zone or within a relation",
                           at->text);
                return;
            }
            if (rg->nwithin_rel == RANGE_WITHIN_MOST) {
                comp_error(ds->cc, at->sp, "a range names at most %d relations", RANGE_WITHIN_MOST);
                return;
            }
            rg->within_rel[rg->nwithin_rel++] = rel;
        }
        ccur_accept(k, "or");
        ccur_skip_commas(k);
    }
    range_of(ds)->within = mask;
}

static void rg_apart(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    int64_t n;
    if (!ccur_int_in(k, "how many zones apart", 1, INT32_MAX, &n))
        return;
    if (!ccur_accept(k, "zone") && !ccur_accept(k, "zones")) {
        ccur_error(k, "expected 'zone' or 'zones'");
        return;
    }
    range_of(ds)->apart = (int)n;
    ccur_end(k);
}

static void rg_diagonal(decl_state *ds, const node *clause, ccur *k)
{
    r_range *r = range_of(ds);
    if (r->ordinal) {
        comp_error(ds->cc, clause->sp,
                   "a range band without a formula is decided by zones, not measured: it has no diagonals");
        return;
    }
    if (!parse_diagonal(ds, k, &r->diag_num, &r->diag_den, &r->diag_alternate))
        return;
    rexpr e = {.kind = REXPR_CONST, .v = value_bool(true)};
    if (ccur_accept(k, "when") && !ccur_expr(k, &ds->fx, TY_BOOL, "when the range counts diagonals its own way", &e))
        return;
    range_of(ds)->diag_when = e;
    ccur_end(k);
}

const clause_rule range_clauses[] = {
    {"within", "within zone|RELATION, ... (zones: creatures in one zone, or related)", rg_within, false},
    {"apart", "apart N zone(s) (creatures at most N zones apart, through neighbours)", rg_apart, false},
    {"diagonal", "diagonal N | diagonal alternate [when EXPR] (grid: a diagonal step counts thus within this range)",
     rg_diagonal, false},
};
const int range_nclauses = (int)(sizeof range_clauses / sizeof range_clauses[0]);

void decl_range(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_range *r = range_of(ds);
    r->from = ds->from;
    r->decl = ds->decl_index;
    if (ds->dn->a) {
        sty t;
        int formula = formula_in(cc, &ds->fx, ds->dn->a, &t);
        if (t != TY_DIST && t != TY_ANY)
            comp_error(cc, ds->dn->a->sp, "a range is a distance, not %s", sty_name(t));
        cc->p->decls[ds->decl_index].value = formula;
        range_of(ds)->ordinal = false;
    } else {
        cc->p->decls[ds->decl_index].value = -1;
        range_of(ds)->ordinal = true;
    }
    decl_clauses(ds, range_clauses, range_nclauses, NULL);
    range_of(ds)->from.cite = ds->from.cite;
}
