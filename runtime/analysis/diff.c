/* diff: two rule systems compared by meaning, not by text.
 *
 * Each system is read from its typed tables (rules.h): the economy slot by
 * slot, lined up by the role each slot declares (so one system's
 * `standard` meets another's `main`); the initiative procedure, rounds,
 * encounters, space; then every named declaration, matched by name, with
 * the clauses only one side has. Formulas both have are evaluated at a few
 * values of a stat (levels, by default). Reference fights (a profile) are
 * computed in profile.c. Nothing here knows a rule system. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api/api_internal.h"
#include "runtime/base/mem.h"
#include "runtime/analysis/profile.h"
#include "runtime/analysis/report.h"
#include "runtime/analysis/summary.h"
#include "runtime/core/rules.h"

static const char *str(const program *p, int id)
{
    return id >= 0 ? program_string(p, id) : "";
}

/* The source text of a span, with runs of blanks made one space. */
static void span_text(const program *p, span sp, text_buf *out)
{
    if (sp.source >= p->nsources || sp.end <= sp.start)
        return;
    const source *src = p->sources[sp.source];
    if (sp.end > src->len)
        return;
    bool blank = false, any = false;
    for (uint32_t i = sp.start; i < sp.end; i++) {
        char c = src->text[i];
        if (isspace((unsigned char)c)) {
            blank = any;
            continue;
        }
        if (blank)
            text_putn(out, " ", 1);
        blank = false;
        any = true;
        text_putn(out, &c, 1);
    }
}

static void rexpr_text(const program *p, const rexpr *e, text_buf *out)
{
    if (!rexpr_present(e))
        text_put(out, "-");
    else
        span_text(p, e->where, out);
}

/* --- the clauses of a declaration ------------------------------------------------- */

/* A declaration as the list of its clauses: its text cut at line ends,
   braces and semicolons, without comments, citations, blank parts or the
   word `override`; so two versions of a rule compare clause by clause. */
typedef struct clauses {
    char *lines[128];
    int n;
    char *buf;
    size_t buf_len;
} clauses;

static void clauses_free(clauses *c)
{
    mem_free(c->buf, c->buf_len);
    memset(c, 0, sizeof *c);
}

/* Does the line from start to end go on on the next (it ends with an
   operator or an open parenthesis)? */
static bool continues(const char *start, const char *end)
{
    while (end > start && isspace((unsigned char)end[-1]))
        end--;
    if (end == start)
        return false;
    if (strchr("+-*/%,(=<>[", end[-1]))
        return true;
    static const char *const words[] = {" and", " or", " not"};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(end - start) >= n && !strncmp(end - n, words[i], n))
            return true;
    }
    return false;
}

static bool clauses_of(const program *p, const decl *d, clauses *out)
{
    memset(out, 0, sizeof *out);
    if (d->where.source >= p->nsources)
        return true;
    const source *src = p->sources[d->where.source];
    if (d->where.end > src->len || d->where.end <= d->where.start)
        return true;
    size_t len = d->where.end - d->where.start;
    out->buf = mem_alloc(len + 1);
    if (!out->buf)
        return false;
    out->buf_len = len + 1;
    memcpy(out->buf, src->text + d->where.start, len);
    out->buf[len] = '\0';
    /* cut, dropping comments (outside strings) */
    char *s = out->buf, *start = s;
    bool in_string = false;
    for (char *c = s;; c++) {
        if (*c == '"')
            in_string = !in_string;
        if (!in_string && *c == '#') {
            *c = '\0';
            while (c[1] && c[1] != '\n')
                c++;
            continue;
        }
        bool cut = *c == '\0' || *c == '\n' || (!in_string && (*c == '{' || *c == '}' || *c == ';'));
        if (!cut)
            continue;
        if (*c == '\n' && continues(start, c)) {
            *c = ' ';
            continue;
        }
        bool end = *c == '\0';
        *c = '\0';
        while (isspace((unsigned char)*start))
            start++;
        char *e = start + strlen(start);
        while (e > start && isspace((unsigned char)e[-1]))
            *--e = '\0';
        if (!strncmp(start, "override ", 9))
            start += 9;
        /* runs of blanks (a continued line's indent) read as one */
        char *w = start;
        for (char *r = start; *r; r++)
            if (!isspace((unsigned char)*r) || (w > start && w[-1] != ' '))
                *w++ = isspace((unsigned char)*r) ? ' ' : *r;
        *w = '\0';
        if (*start && strncmp(start, "§", strlen("§")) != 0 && out->n < 128)
            out->lines[out->n++] = start;
        if (end)
            break;
        start = c + 1;
    }
    return true;
}

static bool has_line(const clauses *c, const char *line)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->lines[i], line))
            return true;
    return false;
}

/* What one side says that the other does not, clause by clause. */
static void only_in(const clauses *mine, const clauses *theirs, text_buf *t)
{
    for (int i = 0; i < mine->n; i++)
        if (!has_line(theirs, mine->lines[i]))
            text_add(t, "%s%s", t->len ? "; " : "", mine->lines[i]);
}

/* --- named declarations -------------------------------------------------------------- */

/* The declarations of one kind that stand (the last override of each name),
   in the order of first declaration: an array of *n indices (standing_free
   frees it), NULL with rb->oom set when out of memory. */
static int *standing(report_builder *rb, const program *p, decl_kind kind, int *n)
{
    *n = 0;
    int *out = p->ndecls ? MEM_NEW_ARRAY(int, p->ndecls) : NULL;
    if (!out) {
        rb->oom |= p->ndecls > 0;
        return NULL;
    }
    for (size_t i = 0; i < p->ndecls; i++) {
        const decl *d = &p->decls[i];
        if (d->kind != kind || d->name < 0 || d->overrides)
            continue;
        const decl *latest = program_find_decl(p, kind, d->name);
        out[(*n)++] = program_decl_index(p, latest ? latest : d);
    }
    return out;
}

static void standing_free(const program *p, int *indices)
{
    if (indices)
        mem_free(indices, p->ndecls * sizeof(int));
}

static const decl *named(const program *p, decl_kind kind, const char *name)
{
    int id = program_find_string(p, name);
    return id >= 0 ? program_find_decl(p, kind, id) : NULL;
}

/* The first clause of a declaration: how it reads in one line. */
static void headline(const program *p, const decl *d, text_buf *t)
{
    clauses c;
    if (clauses_of(p, d, &c) && c.n)
        text_add(t, "%s", c.lines[0]);
    for (int i = 1; i < c.n && t->len < 120; i++)
        text_add(t, "; %s", c.lines[i]);
    if (t->len >= 120)
        text_add(t, " ...");
    clauses_free(&c);
}

typedef struct kind_section {
    decl_kind kind;
    const char *title;
} kind_section;

static const kind_section named_kinds[] = {
    {DK_RANGE, "Range categories"}, {DK_STAT, "Stats"},         {DK_RESOURCE, "Resources"}, {DK_ENUM, "Enumerations"},
    {DK_CONDITION, "Conditions"},   {DK_ACTION, "Actions"},     {DK_TRIGGER, "Triggers"},   {DK_CHECK, "Checks"},
    {DK_PROCEDURE, "Procedures"},   {DK_RULING, "Rulings"},     {DK_DURATION, "Durations"}, {DK_PERIOD, "Periods"},
    {DK_BONUS, "Bonus types"},      {DK_RELATION, "Relations"}, {DK_ITEM, "Items"},         {DK_TRACK, "Tracks"},
};

static void compare_kind(report_builder *rb, const program *pa, const program *pb, const kind_section *ks)
{
    int na, nb;
    int *ia = standing(rb, pa, ks->kind, &na), *ib = standing(rb, pb, ks->kind, &nb);
    if (!na && !nb) {
        standing_free(pa, ia);
        standing_free(pb, ib);
        return;
    }
    int same = 0;
    /* count first, for the note */
    for (int i = 0; i < na; i++) {
        const decl *da = &pa->decls[ia[i]];
        const decl *db = named(pb, ks->kind, str(pa, da->name));
        if (!db)
            continue;
        clauses ca, cb;
        clauses_of(pa, da, &ca);
        clauses_of(pb, db, &cb);
        text_buf x, y;
        text_init(&x);
        text_init(&y);
        only_in(&ca, &cb, &x);
        only_in(&cb, &ca, &y);
        same += !x.len && !y.len;
        text_free(&x);
        text_free(&y);
        clauses_free(&ca);
        clauses_free(&cb);
    }
    text_buf note;
    text_init(&note);
    text_add(&note, "%d in %s, %d in %s, %d the same in both", na, rb->r->a, nb, rb->r->b, same);
    report_section(rb, ks->title, note.s);
    text_free(&note);
    for (int i = 0; i < na; i++) {
        const decl *da = &pa->decls[ia[i]];
        const char *name = str(pa, da->name);
        const decl *db = named(pb, ks->kind, name);
        text_buf x, y, label;
        text_init(&x);
        text_init(&y);
        text_init(&label);
        if (!db) {
            headline(pa, da, &x);
            report_row(rb, name, x.s, NULL);
            text_free(&x);
            continue;
        }
        clauses ca, cb;
        clauses_of(pa, da, &ca);
        clauses_of(pb, db, &cb);
        only_in(&ca, &cb, &x);
        only_in(&cb, &ca, &y);
        if (x.len || y.len) {
            text_add(&label, "%s%s", name, db->overrides && !da->overrides ? " (override)" : "");
            report_row(rb, label.s, x.len ? x.s : "(as B, less)", y.len ? y.s : "(as A, less)");
        }
        text_free(&x);
        text_free(&y);
        text_free(&label);
        clauses_free(&ca);
        clauses_free(&cb);
    }
    for (int i = 0; i < nb; i++) {
        const decl *db = &pb->decls[ib[i]];
        const char *name = str(pb, db->name);
        if (named(pa, ks->kind, name))
            continue;
        text_buf y;
        text_init(&y);
        headline(pb, db, &y);
        report_row(rb, name, NULL, y.s);
        text_free(&y);
    }
    standing_free(pa, ia);
    standing_free(pb, ib);
}

/* --- the economy ------------------------------------------------------------------------ */

static void slot_text(const program *p, const rules *r, const econ_slot *s, text_buf *t)
{
    text_add(t, "%s%s", t->len ? ", " : "", str(p, s->name));
    if (s->unlimited)
        text_add(t, " any number");
    else if (s->count.kind == REXPR_CONST && s->count.v.type == V_INT)
        text_add(t, " %" PRId64, s->count.v.num);
    else {
        text_put(t, " (");
        rexpr_text(p, &s->count, t);
        text_put(t, ")");
    }
    text_add(t, "/%s", period_name(p, s->per));
    if (s->borrows >= 0)
        text_add(t, " borrows %s", str(p, r->slots[s->borrows].name));
    if (s->phase >= 0)
        text_add(t, " in %s", str(p, r->phases[s->phase].name));
}

static void economy(report_builder *rb, const program *pa, const program *pb)
{
    const rules *ra = pa->rules, *rb_ = pb->rules;
    report_section(rb, "Action economy", "slots lined up by the role each declares");
    for (int role = ROLE_PRIMARY; role <= ROLE_COUNT; role++) {
        slot_role want = role == ROLE_COUNT ? ROLE_NONE : (slot_role)role;
        text_buf x, y;
        text_init(&x);
        text_init(&y);
        for (int i = 0; i < ra->nslots; i++)
            if (ra->slots[i].role == want)
                slot_text(pa, ra, &ra->slots[i], &x);
        for (int i = 0; i < rb_->nslots; i++)
            if (rb_->slots[i].role == want)
                slot_text(pb, rb_, &rb_->slots[i], &y);
        if (x.len || y.len)
            report_row(rb, want == ROLE_NONE ? "no role" : slot_role_name(want), x.len ? x.s : NULL,
                       y.len ? y.s : NULL);
        text_free(&x);
        text_free(&y);
    }
    const rules *rs[2] = {ra, rb_};
    const program *ps[2] = {pa, pb};
    text_buf lim[2], ex[2], excl[2];
    for (int k = 0; k < 2; k++) {
        text_init(&lim[k]);
        text_init(&ex[k]);
        text_init(&excl[k]);
    }
    for (int k = 0; k < 2; k++) {
        const rules *r = rs[k];
        for (int i = 0; i < r->nlimits; i++) {
            const econ_limit *l = &r->limits[i];
            text_add(&lim[k], "%s", lim[k].len ? "; " : "");
            for (int j = 0; j < l->nslots; j++)
                text_add(&lim[k], "%s%s", j ? " + " : "", str(ps[k], r->slots[l->slots[j]].name));
            text_add(&lim[k], " <= %d per %s", l->max, period_name(ps[k], l->per));
        }
        for (int i = 0; i < r->nexchanges; i++) {
            const econ_exchange *e = &r->exchanges[i];
            text_add(&ex[k], "%s%s -> %s", ex[k].len ? "; " : "", str(ps[k], r->slots[e->from_slot].name),
                     str(ps[k], r->slots[e->to_slot].name));
            if (e->limit)
                text_add(&ex[k], " (%d per %s)", e->limit, period_name(ps[k], e->per));
        }
        for (int i = 0; i < r->nexclusives; i++)
            text_add(&excl[k], "%s%s by kind", excl[k].len ? "; " : "",
                     str(ps[k], r->slots[r->exclusives[i].slot].name));
    }
    report_row(rb, "caps", lim[0].len ? lim[0].s : "none", lim[1].len ? lim[1].s : "none");
    report_row(rb, "exchanges", ex[0].len ? ex[0].s : "none", ex[1].len ? ex[1].s : "none");
    if (excl[0].len || excl[1].len)
        report_row(rb, "exclusive", excl[0].len ? excl[0].s : "none", excl[1].len ? excl[1].s : "none");
    for (int k = 0; k < 2; k++) {
        text_free(&lim[k]);
        text_free(&ex[k]);
        text_free(&excl[k]);
    }
}

/* --- initiative, rounds, encounters, space --------------------------------------------------- */

static const char *tie_name(tie_kind k)
{
    switch (k) {
    case TIE_EXPR: return "by a formula";
    case TIE_MODIFIER: return "higher modifier";
    case TIE_REROLL: return "reroll";
    case TIE_ROLL: return "a roll";
    case TIE_ROLL_OFF: return "roll-off until settled";
    case TIE_SIDE: return "a side";
    }
    return "?";
}

typedef void (*describe_fn)(const program *p, text_buf *t);

static void two(report_builder *rb, const char *label, const program *pa, const program *pb, describe_fn fn)
{
    text_buf x, y;
    text_init(&x);
    text_init(&y);
    fn(pa, &x);
    fn(pb, &y);
    report_row(rb, label, x.len ? x.s : "-", y.len ? y.s : "-");
    text_free(&x);
    text_free(&y);
}

static void init_who(const program *p, text_buf *t)
{
    const r_initiative *in = &p->rules->initiative;
    if (!in->present)
        return;
    static const char *const modes[] = {"each creature", "each side", "fixed (no roll)"};
    text_add(t, "%s", modes[in->mode]);
    if (in->group_side >= 0)
        text_add(t, "; side %s rolls once", str(p, p->rules->sides[in->group_side]));
}
static void init_roll(const program *p, text_buf *t)
{
    const r_initiative *in = &p->rules->initiative;
    if (!in->present)
        return;
    if (in->check >= 0) {
        const r_check *ck = &p->rules->checks[in->check];
        const decl *d = ck->from.decl >= 0 ? &p->decls[ck->from.decl] : NULL;
        text_add(t, "%s", str(p, ck->name));
        if (d) {
            text_buf h;
            text_init(&h);
            headline(p, d, &h);
            const char *eq = strchr(h.s, '=');
            if (eq)
                text_add(t, ": %s", eq + 2 <= h.s + h.len ? eq + 2 : eq);
            text_free(&h);
        }
    }
    if (rexpr_present(&in->score)) {
        text_add(t, "%sscore ", t->len ? "; " : "");
        rexpr_text(p, &in->score, t);
    }
}
static void init_order(const program *p, text_buf *t)
{
    const r_initiative *in = &p->rules->initiative;
    if (!in->present)
        return;
    text_add(t, "%s first%s", in->lowest_first ? "lowest" : "highest",
             in->reroll_each_round ? ", rerolled each round" : "");
}
static void init_ties(const program *p, text_buf *t)
{
    const r_initiative *in = &p->rules->initiative;
    for (int i = 0; i < in->nties; i++)
        text_add(t, "%s%s", i ? ", then " : "", tie_name(in->ties[i].kind));
}
static void init_surprise(const program *p, text_buf *t)
{
    const r_initiative *in = &p->rules->initiative;
    static const char *const surprises[] = {"", "a surprise round", "a free round"};
    if (in->surprise != SURPRISE_NONE)
        text_add(t, "%s", surprises[in->surprise]);
    if (rexpr_present(&in->below)) {
        text_add(t, "%splaced last: ", t->len ? "; " : "");
        rexpr_text(p, &in->below, t);
    }
}
static void init_wait(const program *p, text_buf *t)
{
    const r_initiative *in = &p->rules->initiative;
    if (in->allow_delay)
        text_add(t, "delay%s%s", in->delay_round_only ? " (this round)" : "", in->delay_returns ? " (returns)" : "");
    if (in->allow_hold)
        text_add(t, "%shold%s", t->len ? ", " : "", in->hold_moves ? " (moves the holder)" : "");
    if (in->reorder_start || in->reorder_later)
        text_add(t, "%sreorder%s%s", t->len ? ", " : "", in->reorder_start ? " at the start" : "",
                 in->reorder_later ? " later by forfeiting a turn" : "");
    if (!t->len)
        text_add(t, "none");
}
/* What each kind of voluntary move requires, as the rules write it. */
static void init_reorder_rules(const program *p, text_buf *t)
{
    const r_initiative *in = &p->rules->initiative;
    for (int i = 0; i < in->nreorder_rules; i++) {
        const r_reorder_rule *rr = &in->reorder_rules[i];
        text_add(t, "%s%s: ", i ? "; " : "", rr->kinds == REORDER_START ? "at the start" : "later");
        rexpr_text(p, &rr->holds, t);
    }
}
static void round_phases(const program *p, text_buf *t)
{
    const rules *r = p->rules;
    static const char *const phase_kinds[] = {"turns", "steps", "open"};
    for (int i = 0; i < r->nphases; i++)
        text_add(t, "%s%s (%s)", i ? ", " : "", str(p, r->phases[i].name), phase_kinds[r->phases[i].kind]);
    if (!r->nphases)
        text_add(t, "one phase of turns");
}
static void round_length(const program *p, text_buf *t)
{
    rexpr_text(p, &p->rules->round_length, t);
}
static void time_counts(const program *p, text_buf *t)
{
    const rules *r = p->rules;
    text_add(t, "durations in rounds count from %s; in turns, %s",
             r->rounds_cfg.anchor_creature ? "the owner's turns" : "initiative positions",
             r->turns_cfg.anchor_creature ? "the owner's turns" : "initiative positions");
}
static void enc_out(const program *p, text_buf *t)
{
    rexpr_text(p, &p->rules->encounter.out, t);
}
static void enc_ends(const program *p, text_buf *t)
{
    if (rexpr_present(&p->rules->encounter.ends))
        rexpr_text(p, &p->rules->encounter.ends, t);
    else
        text_put(t, "one side left standing");
}
static void enc_stands(const program *p, text_buf *t)
{
    if (rexpr_present(&p->rules->encounter.stands))
        rexpr_text(p, &p->rules->encounter.stands, t);
    else
        text_put(t, "while not out");
}
static void space_kind_text(const program *p, text_buf *t)
{
    const r_space *s = &p->rules->space;
    if (s->kind == SPACE_NONE)
        text_add(t, "none declared");
    else if (s->kind == SPACE_ZONES)
        text_add(t, "zones");
    else {
        char sq[64];
        sq[0] = '\0';
        if (s->square.type == V_DIST || s->square.type == V_INT) /* 7.5 ft squares stay 7.5 */
            snprintf(sq, sizeof sq, "%.12g ft ", (double)s->square.num / (double)value_den(s->square));
        if (s->diag_alternate)
            text_add(t, "grid, %ssquares, diagonals alternate 1, 2", sq);
        else if (s->diag_num == s->diag_den)
            text_add(t, "grid, %ssquares, diagonals count 1", sq);
        else
            text_add(t, "grid, %ssquares, diagonals count %" PRId64 "/%" PRId64, sq, s->diag_num, s->diag_den);
        if (s->difficult_entering) /* said only when it is not the default, leaving */
            text_add(t, ", difficult terrain costs more to enter");
    }
}

/* How cover is found: the geometry, the levels, the count of lines or
   corners each names, and what creatures do. */
static void space_cover_text(const program *p, text_buf *t)
{
    const r_cover *c = &p->rules->space.cover;
    if (p->rules->space.kind != SPACE_GRID || c->from == COVER_UNDECLARED)
        return;
    text_add(t, "from %s; levels", c->from == COVER_LINES ? "lines" : "corners");
    for (int i = 0; i < c->nlevels; i++)
        text_add(t, "%s %s", i ? "," : "", str(p, c->levels[i]));
    text_add(t, "; for 0 to 4:");
    for (int i = 0; i < 5; i++)
        text_add(t, "%s %s", i ? "," : "", str(p, c->levels[c->count[i]]));
    text_add(t, "; unseen: %s", c->unseen < 0 ? "unseen" : str(p, c->levels[c->unseen]));
    for (int i = 0; i < c->nby; i++) {
        text_add(t, "; creatures %s", c->by[i].level < 0 ? "block" : str(p, c->levels[c->by[i].level]));
        if (c->by[i].when.kind == REXPR_CHUNK) {
            text_put(t, " when ");
            rexpr_text(p, &c->by[i].when, t);
        }
    }
}

/* A row only where the two differ: what neither system says, or both say
   alike, is left out. */
static void two_if_different(report_builder *rb, const char *label, const program *pa, const program *pb,
                             describe_fn fn)
{
    text_buf x, y;
    text_init(&x);
    text_init(&y);
    fn(pa, &x);
    fn(pb, &y);
    if (strcmp(x.s, y.s) != 0)
        report_row(rb, label, x.len ? x.s : "-", y.len ? y.s : "-");
    text_free(&x);
    text_free(&y);
}

static void turns(report_builder *rb, const program *pa, const program *pb)
{
    report_section(rb, "Initiative", NULL);
    two(rb, "who rolls", pa, pb, init_who);
    two(rb, "the roll", pa, pb, init_roll);
    two(rb, "order", pa, pb, init_order);
    two(rb, "ties", pa, pb, init_ties);
    two(rb, "surprise", pa, pb, init_surprise);
    two(rb, "waiting", pa, pb, init_wait);
    two_if_different(rb, "a move in the order requires", pa, pb, init_reorder_rules);
    report_section(rb, "Rounds and time", NULL);
    two(rb, "phases", pa, pb, round_phases);
    two(rb, "length", pa, pb, round_length);
    two(rb, "durations", pa, pb, time_counts);
    report_section(rb, "Death and the end of a fight", NULL);
    two(rb, "out of the fight", pa, pb, enc_out);
    two(rb, "still standing", pa, pb, enc_stands);
    two(rb, "the fight ends", pa, pb, enc_ends);
    report_section(rb, "Space", NULL);
    two(rb, "battlefield", pa, pb, space_kind_text);
    two_if_different(rb, "cover", pa, pb, space_cover_text);
}

/* --- ranges and formulas, evaluated -------------------------------------------------------- */

static void quiet_diag(void *user, const fray_diagnostic *d)
{
    (void)user;
    (void)d;
}

/* The value of a stat or range for a creature of default stats with
   `stat` = value, as text; "-" where it cannot be had. */
static void value_at(fray *f, const char *stat, int64_t at, const char *name, text_buf *out)
{
    char num[32];
    snprintf(num, sizeof num, "%" PRId64, at);
    const char *got;
    if ((stat && fray_eval_with(f, stat, num) != FRAY_OK) || fray_eval(f, name, &got) != FRAY_OK)
        got = "-";
    text_put(out, got);
}

static void formulas(report_builder *rb, fray *fa, fray *fb, const fray_diff_options *o)
{
    const program *pa = fa->p, *pb = fb->p;
    static const int64_t levels[] = {1, 5, 10, 20};
    const char *stat = o && o->stat ? o->stat : "level";
    const int64_t *values = o && o->nvalues ? o->values : levels;
    size_t nvalues = o && o->nvalues ? o->nvalues : 4;
    bool stat_a = named(pa, DK_STAT, stat) != NULL, stat_b = named(pb, DK_STAT, stat) != NULL;
    text_buf note;
    text_init(&note);
    if (stat_a && stat_b) {
        text_add(&note, "for a creature of default stats at %s ", stat);
        for (size_t i = 0; i < nvalues; i++)
            text_add(&note, "%s%" PRId64, i ? " / " : "", values[i]);
        text_put(&note, "; only those that differ");
    } else {
        text_add(&note, "for a creature of default stats (no stat '%s' in both); only those that differ", stat);
        nvalues = 1;
    }
    report_section(rb, "Ranges and formulas", note.s);
    text_free(&note);
    /* each value's text for A, then for B */
    text_buf *shown = MEM_NEW_ARRAY(text_buf, 2 * nvalues);
    if (!shown) {
        rb->oom = true;
        return;
    }
    text_buf *va = shown, *vb = shown + nvalues;
    for (size_t v = 0; v < 2 * nvalues; v++)
        text_init(&shown[v]);
    fray_diagnostic_fn saved_a = fa->on_diag, saved_b = fb->on_diag;
    void *user_a = fa->diag_user, *user_b = fb->diag_user;
    fray_on_diagnostic(fa, quiet_diag, NULL);
    fray_on_diagnostic(fb, quiet_diag, NULL);
    static const decl_kind fkinds[] = {DK_RANGE, DK_STAT, DK_RESOURCE};
    for (size_t k = 0; k < 3; k++) {
        int na;
        int *ia = standing(rb, pa, fkinds[k], &na);
        for (int i = 0; i < na; i++) {
            const decl *da = &pa->decls[ia[i]];
            const char *name = str(pa, da->name);
            const decl *db = named(pb, fkinds[k], name);
            if (!db || (!strcmp(name, stat) && fkinds[k] == DK_STAT))
                continue;
            bool differs = false, varies = false;
            for (size_t v = 0; v < nvalues; v++) {
                text_clear(&va[v]);
                text_clear(&vb[v]);
                value_at(fa, stat_a && stat_b ? stat : NULL, values[v], name, &va[v]);
                value_at(fb, stat_a && stat_b ? stat : NULL, values[v], name, &vb[v]);
                differs |= strcmp(va[v].s, vb[v].s) != 0;
                varies |= v > 0 && (strcmp(va[v].s, va[0].s) || strcmp(vb[v].s, vb[0].s));
            }
            if (!differs)
                continue;
            /* one value when the stat does not change it, else each in turn */
            text_buf x, y;
            text_init(&x);
            text_init(&y);
            for (size_t v = 0; v < (varies ? nvalues : 1); v++) {
                text_add(&x, "%s%s", v ? " / " : "", va[v].s);
                text_add(&y, "%s%s", v ? " / " : "", vb[v].s);
            }
            report_row(rb, name, x.s, y.s);
            text_free(&x);
            text_free(&y);
        }
        standing_free(pa, ia);
    }
    for (size_t v = 0; v < 2 * nvalues; v++)
        text_free(&shown[v]);
    mem_free(shown, 2 * nvalues * sizeof *shown);
    if (stat_a && stat_b) {
        fray_eval_with(fa, stat, "1");
        fray_eval_with(fb, stat, "1");
    }
    fray_on_diagnostic(fa, saved_a, user_a);
    fray_on_diagnostic(fb, saved_b, user_b);
}

/* --- the whole ------------------------------------------------------------------------------- */

static const char *system_label(const program *p)
{
    return p->system_name >= 0 ? program_string(p, p->system_name) : "(no system)";
}

/* Whether an error reached the caller through a context during fray_diff:
   a failure with none said is said as memory running out. */
typedef struct heard {
    fray_diagnostic_fn fn;
    void *user;
    bool error;
} heard;

static void hear(void *user, const fray_diagnostic *d)
{
    heard *h = user;
    h->error |= d->level == FRAY_ERROR;
    if (h->fn)
        h->fn(h->user, d);
}

static fray_status compare(fray *a, fray *b, const fray_diff_options *o, fray_report **out);

/* The first error of a reference fight not asked for, held back. */
typedef struct held_back {
    text_buf first;
    bool any;
} held_back;

static void hold_back(void *user, const fray_diagnostic *d)
{
    held_back *h = user;
    if (d->level != FRAY_ERROR || h->any)
        return;
    h->any = true;
    const char *m = d->message && *d->message ? d->message : d->text;
    text_add(&h->first, "%.*s", (int)strcspn(m, "\n"), m);
}

/* A reference fight found without --profile: one that cannot be played
   (a variant whose rules break the profile's scenario) leaves a line
   saying so, and the comparison goes on without it. */
static fray_status fight_if_it_plays(report_builder *rb, fray *a, fray *b, const fray_diff_options *o)
{
    held_back h = {.any = false};
    text_init(&h.first);
    fray_diagnostic_fn fa = a->on_diag, fb = b->on_diag;
    void *ua = a->diag_user, *ub = b->diag_user;
    a->on_diag = b->on_diag = hold_back;
    a->diag_user = b->diag_user = &h;
    fray_status st = profile_compare(rb, a, b, o);
    a->on_diag = fa, a->diag_user = ua, b->on_diag = fb, b->diag_user = ub;
    if (st != FRAY_OK) {
        text_buf note;
        text_init(&note);
        text_add(&note, "%s/SYSTEM.rules: not played: %s (fray diff --profile %s says the whole of it)", o->profile,
                 h.any ? h.first.s : "out of memory", o->profile);
        report_section(rb, "Reference fight", note.s);
        report_mark(rb, false, true);
        text_free(&note);
    }
    text_free(&h.first);
    return FRAY_OK;
}

fray_status fray_diff(fray *a, fray *b, const fray_diff_options *o, fray_report **out)
{
    api_use(a);
    api_use(b);
    heard h[2] = {{a->on_diag, a->diag_user, false}, {b->on_diag, b->diag_user, false}};
    a->on_diag = hear;
    a->diag_user = &h[0];
    b->on_diag = hear;
    b->diag_user = &h[1];
    fray_status st = compare(a, b, o, out);
    a->on_diag = h[0].fn;
    a->diag_user = h[0].user;
    b->on_diag = h[1].fn;
    b->diag_user = h[1].user;
    if (st != FRAY_OK && !h[0].error && !h[1].error && a->on_diag) {
        fray_diagnostic d = {.level = FRAY_ERROR,
                             .message = "out of memory",
                             .text = "fray: error: out of memory to compare the two systems\n"};
        a->on_diag(a->diag_user, &d);
    }
    return st;
}

static fray_status compare(fray *a, fray *b, const fray_diff_options *o, fray_report **out)
{
    *out = NULL;
    const char *na = system_label(a->p), *nb = system_label(b->p);
    report_builder rb;
    if (!report_begin(&rb, na, nb)) {
        fray_report_free(rb.r);
        return FRAY_ERR_RULES;
    }
    const program *pa = a->p, *pb = b->p;
    report_section(&rb, "System", NULL);
    report_row(&rb, "name", na, nb);
    report_row(&rb, "title", pa->system_title >= 0 ? str(pa, pa->system_title) : "-",
               pb->system_title >= 0 ? str(pb, pb->system_title) : "-");
    report_row(&rb, "extends", pa->system_base >= 0 ? str(pa, pa->system_base) : "-",
               pb->system_base >= 0 ? str(pb, pb->system_base) : "-");
    economy(&rb, pa, pb);
    turns(&rb, pa, pb);
    formulas(&rb, a, b, o);
    /* the sections so far are the rules of play, the summary's first group */
    size_t play = rb.r ? rb.r->nsections : 0;
    fray_status st = FRAY_OK;
    if (o && o->profile && !o->profile_if_both)
        st = profile_compare(&rb, a, b, o);
    else if (o && o->profile && profile_found(o->profile, pa) && profile_found(o->profile, pb))
        st = fight_if_it_plays(&rb, a, b, o);
    for (size_t k = 0; k < sizeof named_kinds / sizeof named_kinds[0]; k++)
        compare_kind(&rb, pa, pb, &named_kinds[k]);
    fray_report *whole = report_end(&rb);
    /* the summary opens it: what differs, and what it does to the fight */
    *out = whole ? summary_prepend(whole, play) : NULL;
    fray_report_free(whole);
    if (st == FRAY_OK && !*out)
        st = FRAY_ERR_RULES;
    if (st != FRAY_OK) {
        fray_report_free(*out);
        *out = NULL;
    }
    return st;
}
