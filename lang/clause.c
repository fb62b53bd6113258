/* clause: reading a clause's arguments from the syntax tree, word by word,
 * with messages that point at the argument and show how the clause is
 * written; and compiling clause formulas with the names their context
 * binds. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/base/mem.h"

/* --- formulas in context ---------------------------------------------------- */

const char *clause_article(const char *word)
{
    return strchr("aeiou", word[0]) ? "an" : "a";
}

bool fctx_add(fctx *fx, const char *name)
{
    for (int i = 0; i < fx->n; i++)
        if (strcmp(fx->names[i], name) == 0)
            return true;
    if (fx->n >= FCTX_MAX)
        return false;
    fx->names[fx->n++] = name;
    return true;
}

static void bind_names(compiler *cc, const fctx *fx)
{
    for (int i = 0; fx && i < fx->n; i++)
        fn_add_local(cc, comp_intern(cc, fx->names[i]), fx->types[i], (span){0});
}

int formula_in(compiler *cc, const fctx *fx, const node *e, sty *type)
{
    if (type)
        *type = TY_ANY;
    fn_state fs;
    fn_state *outer = cc->fn;
    fn_begin(cc, &fs, CHUNK_FORMULA, fx && fx->what ? fx->what : "formula", e->sp);
    if (!fs.c) {
        cc->fn = outer;
        return -1;
    }
    fs.c->rules_formula = true;
    bind_names(cc, fx);
    fs.c->nparams = (uint8_t)fs.nlocals;
    sty t = compile_expr(cc, e);
    if (type)
        *type = t;
    int id = fn_end(cc, &fs, e->sp);
    cc->fn = outer;
    return id;
}

int body_in(compiler *cc, const fctx *fx, chunk_kind kind, const node *block, bool block_only)
{
    fn_state fs;
    fn_state *outer = cc->fn;
    fn_begin(cc, &fs, kind, fx && fx->what ? fx->what : "body", block->sp);
    if (!fs.c) {
        cc->fn = outer;
        return -1;
    }
    bind_names(cc, fx);
    fs.c->nparams = (uint8_t)fs.nlocals;
    for (const node *it = block->list; it; it = it->next)
        if (is_statement(it) || block_only)
            compile_stmt(cc, it); /* in a block of statements alone, what is none is said so */
    int id = fn_end(cc, &fs, block->sp);
    cc->fn = outer;
    return id;
}

int expr_label(compiler *cc, const node *t)
{
    switch (t->kind) {
    case AST_MEMBER:
    case AST_NAME:
    case AST_CALL: return comp_intern(cc, t->text);
    case AST_DICE:
    case AST_INT: return 0xffff; /* shows itself */
    default: {
        /* a term's own text; past 40 bytes shortened, visibly, at a character */
        const char *text = cc->p->sources[t->sp.source]->text + t->sp.start;
        size_t len = t->sp.end - t->sp.start, shown = len <= 40 ? len : 37;
        while (shown < len && shown > 0 && ((unsigned char)text[shown] & 0xC0) == 0x80)
            shown--;
        char buf[48];
        snprintf(buf, sizeof buf, "%.*s%s", (int)shown, text, shown < len ? "..." : "");
        return comp_intern(cc, buf);
    }
    }
}

static bool is_literal(const node *e)
{
    return e->kind == AST_INT || e->kind == AST_FRAC || e->kind == AST_QTY || e->kind == AST_STRING ||
           e->kind == AST_DICE || e->kind == AST_BOOL;
}

static bool type_fits(sty want, sty got)
{
    if (want == TY_ANY || got == TY_ANY || want == got)
        return true;
    if (want == TY_NUM && got == TY_ROLL)
        return true;
    return false;
}

bool rexpr_of(compiler *cc, const fctx *fx, const node *e, sty want, const char *what, rexpr *out)
{
    memset(out, 0, sizeof *out);
    out->where = e->sp;
    sty t = TY_ANY;
    int id = formula_in(cc, fx, e, &t);
    if (id < 0 || cc->oom)
        return false; /* out of memory: reported once, at the end */
    if (!type_fits(want, t)) {
        comp_error(cc, e->sp, "%s must be %s, not %s", what, sty_name(want), sty_name(t));
        return false;
    }
    /* A literal needs no call at run time: keep its value. */
    const chunk *c = cc->p->chunks[id];
    if (is_literal(e) && c->nconsts == 1 && c->code[0] == OP_CONST && c->len == 4) { /* CONST k, RETURN */
        out->kind = REXPR_CONST;
        out->v = c->consts[0];
        return true;
    }
    if (e->kind == AST_BOOL) {
        out->kind = REXPR_CONST;
        out->v = value_bool(e->num != 0);
        return true;
    }
    /* -2 is a literal too: CONST k, NEG, RETURN */
    if (e->kind == AST_UNARY && e->op == '-' && is_literal(e->a) && c->len == 5 && c->code[0] == OP_CONST &&
        c->code[3] == OP_NEG) {
        value x = c->consts[c->code[1] | c->code[2] << 8];
        if ((x.type == V_INT || x.type == V_FRAC || x.type == V_DIST) && x.num != INT64_MIN) {
            x.num = -x.num;
            out->kind = REXPR_CONST;
            out->v = x;
            return true;
        }
    }
    out->kind = REXPR_CHUNK;
    out->chunk = id;
    return true;
}

/* --- the cursor ----------------------------------------------------------------- */

void ccur_init(ccur *k, compiler *cc, const node *clause, const node *first, const node *stop, const char *usage)
{
    k->cc = cc;
    k->clause = clause;
    k->at = first == stop ? NULL : first;
    k->stop = stop;
    k->usage = usage;
    k->end = clause ? (span){clause->sp.end, clause->sp.end, clause->sp.source} : (span){0};
    /* "missing ..." points just past the last argument, not past a block */
    for (const node *a = first; a && a != stop; a = a->next)
        k->end = (span){a->sp.end, a->sp.end, a->sp.source};
}

/* Moves past the current argument, stopping at the clause's end. */
static void advance(ccur *k)
{
    k->at = k->at->next;
    if (k->at == k->stop)
        k->at = NULL;
}

bool ccur_done(const ccur *k)
{
    return k->at == NULL;
}

static const char *word_of(const node *n)
{
    if (!n)
        return NULL;
    if (n->kind == AST_NAME || n->kind == AST_WORD)
        return n->text;
    return NULL;
}

bool ccur_is(const ccur *k, const char *w)
{
    const char *t = word_of(k->at);
    return t && strcmp(t, w) == 0;
}

bool ccur_accept(ccur *k, const char *w)
{
    if (!ccur_is(k, w))
        return false;
    advance(k);
    return true;
}

void ccur_error(ccur *k, const char *fmt, ...)
{
    text_buf msg;
    text_init(&msg);
    va_list ap;
    va_start(ap, fmt);
    text_addv(&msg, fmt, ap);
    va_end(ap);
    span at = k->at ? k->at->sp : k->end;
    if (k->usage)
        comp_error(k->cc, at, "%s (write: %s)", msg.s, k->usage);
    else
        comp_error(k->cc, at, "%s", msg.s);
    text_free(&msg);
}

/* What was found where something else was expected, in out (started). */
static const char *describe(const node *n, text_buf *out)
{
    if (!n)
        text_put(out, "the end of the clause");
    else if (word_of(n))
        text_add(out, "'%s'", word_of(n));
    else if (n->kind == AST_SEP)
        text_put(out, "','");
    else
        text_add(out, "%s %s", clause_article(ast_kind_name((ast_kind)n->kind)), ast_kind_name((ast_kind)n->kind));
    return out->s;
}

bool ccur_expect(ccur *k, const char *w)
{
    if (ccur_accept(k, w))
        return true;
    text_buf buf;
    text_init(&buf);
    ccur_error(k, "expected '%s', found %s", w, describe(k->at, &buf));
    text_free(&buf);
    if (k->at)
        k->at = NULL; /* one message per clause */
    return false;
}

const node *ccur_take(ccur *k)
{
    const node *n = k->at;
    if (n)
        advance(k);
    return n;
}

int ccur_name(ccur *k, const char *what)
{
    const char *w = word_of(k->at);
    if (!w || k->at->kind != AST_NAME) {
        text_buf buf;
        text_init(&buf);
        ccur_error(k, "expected %s (a name), found %s", what, describe(k->at, &buf));
        text_free(&buf);
        k->at = NULL;
        return -1;
    }
    advance(k);
    return comp_intern(k->cc, w);
}

bool ccur_int(ccur *k, const char *what, int64_t *out)
{
    const node *n = k->at;
    bool neg = false;
    if (n && n->kind == AST_UNARY && n->op == '-' && n->a && n->a->kind == AST_INT) {
        neg = true;
        n = n->a;
    }
    if (!n || n->kind != AST_INT) {
        text_buf buf;
        text_init(&buf);
        ccur_error(k, "expected %s (a whole number), found %s", what, describe(k->at, &buf));
        text_free(&buf);
        k->at = NULL;
        return false;
    }
    *out = neg ? -n->num : n->num;
    advance(k);
    return true;
}

bool ccur_int_in(ccur *k, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    const node *at = k->at;
    if (!ccur_int(k, what, out))
        return false;
    if (*out < lo || *out > hi) {
        comp_error(k->cc, at->sp, "%s is from %" PRId64 " to %" PRId64 ", not %" PRId64, what, lo, hi, *out);
        return false;
    }
    return true;
}

int ccur_choice(ccur *k, const char *what, const char *const *words, int n)
{
    const char *w = word_of(k->at);
    for (int i = 0; w && i < n; i++) {
        if (strcmp(w, words[i]) == 0) {
            advance(k);
            return i;
        }
    }
    char list[256];
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'",
                                i == 0       ? ""
                                : i == n - 1 ? " or "
                                             : ", ",
                                words[i]);
    text_buf buf;
    text_init(&buf);
    const char *best = NULL;
    for (int i = 0; w && i < n; i++)
        if (diag_edit_distance(w, words[i], 2) <= 2)
            best = words[i];
    if (best)
        ccur_error(k, "expected %s: %s, found %s; did you mean '%s'?", what, list, describe(k->at, &buf), best);
    else
        ccur_error(k, "expected %s: %s, found %s", what, list, describe(k->at, &buf));
    text_free(&buf);
    k->at = NULL;
    return -1;
}

bool ccur_expr(ccur *k, const fctx *fx, sty want, const char *what, rexpr *out)
{
    memset(out, 0, sizeof *out);
    if (!k->at || k->at->kind == AST_SEP || (k->at->kind == AST_WORD)) {
        text_buf buf;
        text_init(&buf);
        ccur_error(k, "expected %s, found %s", what, describe(k->at, &buf));
        text_free(&buf);
        k->at = NULL;
        return false;
    }
    const node *e = ccur_take(k);
    return rexpr_of(k->cc, fx, e, want, what, out);
}

int clause_else_text(ccur *k)
{
    if (!ccur_accept(k, "else"))
        return -1;
    const node *at = k->at;
    if (!at || at->kind != AST_STRING) {
        ccur_error(k, "expected the refusal's text after 'else', as a string");
        k->at = NULL;
        return -1;
    }
    ccur_take(k);
    return comp_intern(k->cc, at->text);
}

void ccur_skip_commas(ccur *k)
{
    while (k->at && k->at->kind == AST_SEP)
        advance(k);
}

void ccur_end(ccur *k)
{
    if (!k->at)
        return;
    text_buf buf;
    text_init(&buf);
    ccur_error(k, "unexpected %s", describe(k->at, &buf));
    text_free(&buf);
    k->at = NULL;
}

/* --- shared clause pieces --------------------------------------------------------- */

period ccur_period(ccur *k, bool allow_long)
{
    static const char *const short_words[] = {"turn", "round"};
    if (!allow_long) {
        int i = ccur_choice(k, "a period", short_words, 2);
        return i < 0 ? PER_NONE : (period)(PER_TURN + i);
    }
    const node *a = k->at;
    if (!a || (a->kind != AST_NAME && a->kind != AST_WORD)) {
        ccur_error(k, "expected a period: turn, round, encounter or a period the rules declare");
        k->at = NULL;
        return PER_NONE;
    }
    ccur_take(k);
    period per = comp_period_of(k->cc, a, true, true);
    if (per == PER_NONE)
        k->at = NULL;
    return per;
}

bool ccur_times_per(ccur *k, const char *what, bool allow_long, int *n, period *per)
{
    int64_t count;
    if (!ccur_int(k, what, &count) || !ccur_expect(k, "per"))
        return false;
    *per = ccur_period(k, allow_long);
    *n = (int)count;
    return *per != PER_NONE;
}

void ccur_when(ccur *k, const fctx *fx, rexpr *e, bool *negate)
{
    memset(e, 0, sizeof *e);
    if (negate)
        *negate = false;
    if (ccur_accept(k, "when")) {
        ccur_expr(k, fx, TY_BOOL, "the condition after 'when'", e);
    } else if (ccur_accept(k, "unless")) {
        if (negate)
            *negate = true;
        ccur_expr(k, fx, TY_BOOL, "the condition after 'unless'", e);
    }
}

bool ccur_duration(ccur *k, const fctx *fx, rexpr *out)
{
    memset(out, 0, sizeof *out);
    if (ccur_is(k, "until")) {
        span start = k->at->sp;
        ccur_take(k);
        static const char *const edges[] = {"start", "end"};
        int edge = ccur_choice(k, "when it ends", edges, 2);
        if (edge < 0 || !ccur_expect(k, "of"))
            return false;
        bool next = ccur_accept(k, "next");
        static const char *const units[] = {"turn", "round"};
        int unit = ccur_choice(k, "what it counts", units, 2);
        if (unit < 0)
            return false;
        time_kind tk = unit == 0 ? (edge == 0 ? TIME_UNTIL_TURN_START : TIME_UNTIL_TURN_END)
                                 : (edge == 0 ? TIME_UNTIL_ROUND_START : TIME_UNTIL_ROUND_END);
        /* `until start of turn` is the next start anyway; `next` on an end
           skips the one under way */
        int64_t count = 1;
        if (next && edge == 1)
            count = 2;
        out->kind = REXPR_CONST;
        out->v = value_time(tk, count);
        out->where = start;
        return true;
    }
    /* `1 scen`: a number and a word that is no period the rules declare
       (a declared one would have been scanned as one quantity) */
    const node *n = k->at, *w = n ? n->next : NULL;
    if (n && n->kind == AST_INT && w && w != k->stop && w->kind == AST_NAME && w->text) {
        comp_period_unknown(k->cc, w->sp, w->text);
        k->at = NULL;
        return false;
    }
    return ccur_expr(k, fx, TY_TIME, "a duration", out);
}

/* --- costs ------------------------------------------------------------------------- */

/* `15 ft of movement`: an amount of a resource counting a unit. */
static bool amount_part(compiler *cc, const node *e, const node *of, cost_part *part)
{
    const decl *res = of ? program_find_decl(cc->p, DK_RESOURCE, comp_intern(cc, of->text)) : NULL;
    if (!of) {
        comp_error(cc, e->sp, "an amount in a cost names what it is of, as in '15 ft of movement'");
        return false;
    }
    if (!res || (res->type != TY_DIST && res->type != TY_TIME)) {
        comp_error(cc, of->sp, "'%s' is not a resource counting a distance or a time (as in 'resource %s: distance')",
                   of->text, of->text);
        return false;
    }
    fctx none = {.what = "cost"};
    rexpr amount;
    if (!rexpr_of(cc, &none, e, (sty)res->type, "the amount", &amount))
        return false;
    if (amount.kind != REXPR_CONST) {
        comp_error(cc, e->sp, "a cost's amount is a fixed %s, as in %s", sty_name((sty)res->type),
                   res->type == TY_DIST ? "15 ft" : "6 s");
        return false;
    }
    part->kind = COST_RESOURCE;
    part->index = program_decl_index(cc->p, res);
    part->amount = amount.v;
    return true;
}

/* A cost is an expression of names: `a`, `2 * a`, `a + b`, `a or b`, and
   amounts of a resource: `standard + 15 ft of movement`. */
static bool add_part(compiler *cc, const node *e, int times, cost_option *opt, const node *of)
{
    if (e->kind == AST_BINARY && e->op == '+') /* op codes: tokens, '+' is a char */
        return add_part(cc, e->a, times, opt, of) && add_part(cc, e->b, times, opt, of);
    if (e->kind == AST_BINARY && e->op == '*') {
        const node *n = e->a->kind == AST_INT ? e->a : e->b->kind == AST_INT ? e->b : NULL;
        const node *what = n == e->a ? e->b : e->a;
        if (!n || n->num < 1 || n->num > 100) {
            comp_error(cc, e->sp, "a cost multiplies a slot by a whole number from 1 to 100, as in '2 * bonus_action'");
            return false;
        }
        return add_part(cc, what, times * (int)n->num, opt, of);
    }
    if (e->kind == AST_QTY) {
        cost_part part = {0};
        if (!amount_part(cc, e, of, &part))
            return false;
        for (int i = 0; i < opt->nparts; i++)
            if (opt->parts[i].kind == COST_RESOURCE && opt->parts[i].index == part.index) {
                comp_error(cc, e->sp, "a cost names each resource once");
                return false;
            }
        if (opt->nparts >= COST_MAX_PARTS) {
            comp_error(cc, e->sp, "a cost has at most %d parts", COST_MAX_PARTS);
            return false;
        }
        opt->parts[opt->nparts++] = part;
        return true;
    }
    if (e->kind != AST_NAME) {
        comp_error(cc, e->sp, "a cost names slots or resources, as in 'standard', 'move + 2 * bonus', 'a or b'");
        return false;
    }
    int name = comp_intern(cc, e->text);
    rules *r = cc->p->rules;
    int slot = rules_slot(r, name);
    cost_part part = {0};
    if (slot >= 0) {
        part.kind = COST_SLOT;
        part.index = slot;
    } else {
        const decl *res = program_find_decl(cc->p, DK_RESOURCE, name);
        if (!res) {
            const char *best = NULL;
            int best_d = 3;
            for (int i = 0; i < r->nslots; i++) {
                int d = diag_edit_distance(e->text, program_string(cc->p, r->slots[i].name), 2);
                if (d < best_d) {
                    best_d = d;
                    best = program_string(cc->p, r->slots[i].name);
                }
            }
            if (best)
                comp_error(cc, e->sp, "'%s' is not a slot of the economy or a resource; did you mean '%s'?", e->text,
                           best);
            else
                comp_error(cc, e->sp, "'%s' is not a slot of the economy or a resource", e->text);
            return false;
        }
        part.kind = COST_RESOURCE;
        part.index = program_decl_index(cc->p, res);
        if (res->type == TY_DIST || res->type == TY_TIME) {
            comp_error(cc, e->sp, "%s counts %s: say how much the cost takes, as in '%s of %s'", e->text,
                       res->type == TY_DIST ? "a distance" : "a time", res->type == TY_DIST ? "15 ft" : "6 s", e->text);
            return false;
        }
    }
    part.n = times;
    for (int i = 0; i < opt->nparts; i++) {
        if (opt->parts[i].kind == part.kind && opt->parts[i].index == part.index) {
            opt->parts[i].n += times;
            return true;
        }
    }
    if (opt->nparts >= COST_MAX_PARTS) {
        comp_error(cc, e->sp, "a cost has at most %d parts", COST_MAX_PARTS);
        return false;
    }
    opt->parts[opt->nparts++] = part;
    return true;
}

static void add_options(compiler *cc, const node *e, cost *out, const node *of)
{
    if (e->kind == AST_BINARY && e->op == OR) {
        add_options(cc, e->a, out, of);
        add_options(cc, e->b, out, of);
        return;
    }
    if (out->noptions >= COST_MAX_OPTIONS) {
        comp_error(cc, e->sp, "a cost has at most %d alternatives", COST_MAX_OPTIONS);
        return;
    }
    cost_option *opt = &out->options[out->noptions];
    memset(opt, 0, sizeof *opt);
    if (add_part(cc, e, 1, opt, of))
        out->noptions++;
}

void compile_cost_of(compiler *cc, const node *e, const node *of, cost *out)
{
    memset(out, 0, sizeof *out);
    out->where = e->sp;
    add_options(cc, e, out, of);
}

void compile_cost(compiler *cc, const node *e, cost *out)
{
    compile_cost_of(cc, e, NULL, out);
}
