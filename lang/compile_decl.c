/* compile_decl: declarations become program data. Every declaration has the
 * same shape: a keyword, a name, header clauses and a body of clauses and
 * (for actions, procedures and triggers) statements. Clause arguments are
 * compiled once here: literals to constants, bare unknown names to words
 * the runtime interprets, everything else to formula chunks. */
#include <stdlib.h>
#include <string.h>

#include "lang/compiler.h"
#include "lang/parser.h"
#include "runtime/mem.h"

static bool takes_statements(decl_kind k)
{
    return k == DK_ACTION || k == DK_PROCEDURE || k == DK_TRIGGER || k == DK_CONDITION;
}

/* The names bound inside a declaration's formulas and bodies: a
 * procedure's or action's parameters, or the parameters of the event a
 * trigger listens for (`on hit(attacker, defender)`). */
static int decl_params(const node *d, const node *params_out[], int max)
{
    int n = 0;
    if (d->op == DK_PROCEDURE || d->op == DK_ACTION) {
        if (d->c) {
            for (const node *p = d->c->list; p && n < max; p = p->next)
                params_out[n++] = p;
        }
        return n;
    }
    if (d->op == DK_TRIGGER) {
        const node *clauses[2] = {d, d->b};
        for (int k = 0; k < 2; k++) {
            const node *first = k == 0 ? d->list : (clauses[1] ? clauses[1]->list : NULL);
            for (const node *it = first; it; it = it->next) {
                const node *on = NULL;
                if (k == 1 && it->kind == AST_CLAUSE && strcmp(it->text, "on") == 0)
                    on = it->list;
                if (on && on->kind == AST_CALL) {
                    for (const node *p = on->list; p && n < max; p = p->next)
                        if (p->kind == AST_NAME)
                            params_out[n++] = p;
                    return n;
                }
            }
        }
    }
    return n;
}

/* What each declaration's clauses may be called (the vocabulary of
 * doc/language.md section 5). The runtime gives these words their meaning;
 * the compiler only makes sure a misspelt one is caught here. */
static const char *const vocabulary[DK_COUNT] = {
    [DK_SYSTEM] = "source round extends square",
    [DK_STAT] = "derived",
    [DK_RESOURCE] = "max start min refresh",
    [DK_ECONOMY] = "slot limit exclusive",
    [DK_EXCHANGE] = "limit",
    [DK_INITIATIVE] = "mode group check score tiebreak order ties reroll surprise allow initiator reorder",
    [DK_ROUND] = "length phase",
    [DK_DURATION] = "anchor ends ticks lasts until",
    [DK_RANGE] = "beyond travel within apart corners",
    [DK_SPACE] = "square diagonal difficult reach cover group engagement defense",
    [DK_CONDITION] = "modify set scale forbid protect implies excludes requires lasts ends stacks",
    [DK_ACTION] = "costs provokes requires target kind anytime borrows",
    [DK_PROCEDURE] = "",
    [DK_TRIGGER] = "on automatic reaction limit kind do",
    [DK_RULING] = "answer asked default",
};

static const char *article(const char *word)
{
    return strchr("aeiou", word[0]) ? "an" : "a";
}

static void check_vocabulary(compiler *cc, decl_kind k, const node *it)
{
    span word_at = it->a ? it->a->sp : it->sp;
    const char *words = k < DK_COUNT ? vocabulary[k] : NULL;
    if (!words || k == DK_CREATURE || k == DK_ENUM)
        return;
    size_t len = strlen(it->text);
    const char *best = NULL;
    int best_d = 3;
    char cand[32];
    for (const char *w = words; *w;) {
        size_t n = strcspn(w, " ");
        if (n == len && strncmp(w, it->text, n) == 0)
            return;
        snprintf(cand, sizeof cand, "%.*s", (int)n, w);
        int d = diag_edit_distance(it->text, cand, 2);
        if (d < best_d) {
            best_d = d;
            best = w;
        }
        w += n;
        while (*w == ' ')
            w++;
    }
    if (best) {
        size_t n = strcspn(best, " ");
        comp_error(cc, word_at, "%s %s has no clause '%s'; did you mean '%.*s'?", article(decl_kind_name(k)),
                   decl_kind_name(k), it->text, (int)n, best);
    } else if (!*words) {
        comp_error(cc, word_at, "%s %s holds statements, not clauses like '%s'", article(decl_kind_name(k)),
                   decl_kind_name(k), it->text);
    } else {
        comp_error(cc, word_at, "%s %s has no clause '%s' (it has: %s)", article(decl_kind_name(k)), decl_kind_name(k),
                   it->text, words);
    }
}

typedef struct decl_ctx {
    const node *params[32];
    int nparams;
    bool implicit_target;
    const char *what; /* "stat dex", for chunk names */
} decl_ctx;

static void bind_params(compiler *cc, const decl_ctx *dc)
{
    for (int i = 0; i < dc->nparams; i++)
        fn_add_local(cc, comp_intern(cc, dc->params[i]->text), TY_ANY, dc->params[i]->sp);
    if (dc->implicit_target)
        fn_add_local(cc, comp_intern(cc, "target"), TY_ANY, (span){0});
}

static int formula_chunk(compiler *cc, const decl_ctx *dc, const node *e, sty *type)
{
    fn_state fs;
    fn_state *outer = cc->fn;
    fn_begin(cc, &fs, CHUNK_FORMULA, dc->what, e->sp);
    if (!fs.c) {
        cc->fn = outer;
        return -1;
    }
    bind_params(cc, dc);
    fs.c->nparams = (uint8_t)fs.nlocals;
    sty t = compile_expr(cc, e);
    if (type)
        *type = t;
    int id = fn_end(cc, &fs, e->sp);
    cc->fn = outer;
    return id;
}

static int body_chunk(compiler *cc, const decl_ctx *dc, chunk_kind kind, const node *const *stmts, int nstmts,
                      span where)
{
    fn_state fs;
    fn_state *outer = cc->fn;
    fn_begin(cc, &fs, kind, dc->what, where);
    if (!fs.c) {
        cc->fn = outer;
        return -1;
    }
    bind_params(cc, dc);
    fs.c->nparams = (uint8_t)fs.nlocals;
    for (int i = 0; i < nstmts; i++)
        compile_stmt(cc, stmts[i]);
    int id = fn_end(cc, &fs, where);
    cc->fn = outer;
    return id;
}

static bool is_literal(const node *e)
{
    return e->kind == AST_INT || e->kind == AST_FRAC || e->kind == AST_QTY || e->kind == AST_STRING ||
           e->kind == AST_DICE || e->kind == AST_BOOL;
}

/* A literal's value without running anything. */
static bool literal_value(compiler *cc, const node *e, value *out)
{
    fn_state fs;
    fn_state *outer = cc->fn;
    fn_begin(cc, &fs, CHUNK_FORMULA, "literal", e->sp);
    compile_expr(cc, e);
    bool ok = fs.c && fs.c->nconsts > 0;
    if (ok)
        *out = fs.c->consts[0];
    else if (e->kind == AST_BOOL)
        *out = value_bool(e->num != 0), ok = true;
    chunk_free(fs.c);
    cc->fn = outer;
    return ok;
}

static bool contains_roll(const node *n)
{
    if (!n)
        return false;
    if (n->kind == AST_ROLL)
        return true;
    if (contains_roll(n->a) || contains_roll(n->b) || contains_roll(n->c))
        return true;
    for (const node *k = n->list; k; k = k->next)
        if (contains_roll(k))
            return true;
    return false;
}

static void compile_args_into(compiler *cc, const decl_ctx *dc, const node *first, clause_arg **out, int *nout)
{
    int n = 0;
    for (const node *a = first; a; a = a->next)
        n++;
    *nout = n;
    *out = NULL;
    if (!n)
        return;
    clause_arg *args = MEM_NEW_ARRAY(clause_arg, (size_t)n);
    if (!args) {
        cc->oom = true;
        *nout = 0;
        return;
    }
    int i = 0;
    for (const node *a = first; a; a = a->next, i++) {
        clause_arg *ca = &args[i];
        ca->where = a->sp;
        ca->word = -1;
        ca->chunk = -1;
        if (a->kind == AST_SEP) {
            ca->kind = ARG_SEP;
        } else if (a->kind == AST_WORD) {
            ca->kind = ARG_WORD;
            ca->word = comp_intern(cc, a->text);
        } else if (a->kind == AST_NAME) {
            ca->word = comp_intern(cc, a->text);
            bool is_param = false;
            for (int k = 0; k < dc->nparams; k++)
                is_param |= strcmp(dc->params[k]->text, a->text) == 0;
            if (is_param || name_resolves(cc, a->text) || (dc->implicit_target && strcmp(a->text, "target") == 0)) {
                ca->kind = ARG_FORMULA;
                ca->chunk = formula_chunk(cc, dc, a, NULL);
            } else {
                ca->kind = ARG_WORD;
            }
        } else if (a->kind == AST_CALL && builtin_find(a->text) < 0 &&
                   !program_find_decl(cc->p, DK_PROCEDURE, comp_intern(cc, a->text))) {
            /* an event pattern such as `on hit(attacker, defender)` */
            ca->kind = ARG_WORD;
            ca->word = comp_intern(cc, a->text);
            for (const node *p = a->list; p; p = p->next)
                if (p->kind != AST_NAME)
                    comp_error(cc, p->sp, "an event pattern lists parameter names, as in %s(attacker, target)",
                               a->text);
        } else if (is_literal(a) && literal_value(cc, a, &ca->v)) {
            ca->kind = ARG_CONST;
        } else {
            ca->kind = ARG_FORMULA;
            ca->chunk = formula_chunk(cc, dc, a, NULL);
            ca->rolls = contains_roll(a);
        }
    }
    *out = args;
}

static void compile_body(compiler *cc, decl *d, decl_kind kind, const decl_ctx *dc, const node *body,
                         clause **clauses_out, int *nclauses_out, int *body_out);

static void compile_clause(compiler *cc, decl_kind kind, const decl_ctx *dc, const node *it, clause *cl)
{
    memset(cl, 0, sizeof *cl);
    cl->word = comp_intern(cc, it->text);
    cl->where = it->sp;
    cl->body = -1;
    compile_args_into(cc, dc, it->list, &cl->args, &cl->nargs);
    if (it->b)
        compile_body(cc, NULL, kind, dc, it->b, &cl->sub, &cl->nsub, &cl->body);
}

/* A body holds clauses (data), statements (one chunk), a citation, and in
 * a system, nested declarations. */
static void compile_body(compiler *cc, decl *d, decl_kind kind, const decl_ctx *dc, const node *body,
                         clause **clauses_out, int *nclauses_out, int *body_out)
{
    int nclauses = 0, nstmts = 0;
    for (const node *it = body ? body->list : NULL; it; it = it->next) {
        if (it->kind == AST_CLAUSE)
            nclauses++;
        else if (is_statement(it))
            nstmts++;
    }
    clause *clauses = nclauses ? MEM_NEW_ARRAY(clause, (size_t)nclauses) : NULL;
    const node **stmts = nstmts ? mem_alloc((size_t)nstmts * sizeof(node *)) : NULL;
    if ((nclauses && !clauses) || (nstmts && !stmts)) {
        cc->oom = true;
        if (clauses)
            mem_free(clauses, (size_t)nclauses * sizeof(clause));
        if (stmts)
            mem_free(stmts, (size_t)nstmts * sizeof(node *));
        return;
    }
    int ci = 0, si = 0;
    for (const node *it = body ? body->list : NULL; it; it = it->next) {
        if (it->kind == AST_CLAUSE) {
            if (d)
                check_vocabulary(cc, kind, it);
            compile_clause(cc, kind, dc, it, &clauses[ci++]);
        } else if (is_statement(it)) {
            stmts[si++] = it;
        } else if (it->kind == AST_CITE) {
            if (d && d->cite < 0)
                d->cite = comp_intern(cc, it->text);
        } else if ((it->kind == AST_DECL || it->kind == AST_OVERRIDE) && (kind == DK_SYSTEM || kind == DK_SPACE)) {
            compile_decl(cc, it);
        } else {
            comp_error(cc, it->sp, "%s %s cannot hold %s %s", article(decl_kind_name(kind)), decl_kind_name(kind),
                       article(ast_kind_name((ast_kind)it->kind)), ast_kind_name((ast_kind)it->kind));
        }
    }
    if (nstmts) {
        if (!takes_statements(kind) && d) {
            comp_error(cc, stmts[0]->sp, "%s %s declaration holds clauses, not statements",
                       article(decl_kind_name(kind)), decl_kind_name(kind));
        } else {
            *body_out = body_chunk(cc, dc,
                                   kind == DK_PROCEDURE ? CHUNK_PROCEDURE
                                   : kind == DK_TRIGGER ? CHUNK_TRIGGER
                                                        : CHUNK_ACTION,
                                   stmts, nstmts, body->sp);
        }
        mem_free(stmts, (size_t)nstmts * sizeof(node *));
    }
    *clauses_out = clauses;
    *nclauses_out = nclauses;
}

/* Merge two clause arrays (header first, then body). */
static void append_clauses(compiler *cc, decl *d, clause *more, int nmore)
{
    if (!nmore)
        return;
    clause *all =
        mem_realloc(d->clauses, (size_t)d->nclauses * sizeof(clause), (size_t)(d->nclauses + nmore) * sizeof(clause));
    if (!all) {
        cc->oom = true;
        program_free_clauses(more, nmore);
        return;
    }
    memcpy(all + d->nclauses, more, (size_t)nmore * sizeof(clause));
    mem_free(more, (size_t)nmore * sizeof(clause));
    d->clauses = all;
    d->nclauses += nmore;
}

/* The header arguments after the name form one clause named by the
 * declaration keyword (`slot`-less shorthand such as `exchange a -> b`,
 * `initiative individual`), kept first in the clause list. */
static void header_clause(compiler *cc, decl *d, const decl_ctx *dc, const node *dn)
{
    if (!dn->list)
        return;
    clause *cl = MEM_NEW(clause);
    if (!cl) {
        cc->oom = true;
        return;
    }
    cl->word = comp_intern(cc, decl_kind_name((decl_kind)dn->op));
    cl->where = dn->sp;
    cl->body = -1;
    compile_args_into(cc, dc, dn->list, &cl->args, &cl->nargs);
    append_clauses(cc, d, cl, 1);
}

static sty guess_type(compiler *cc, const node *dn)
{
    if (dn->c) { /* `stat size: size` */
        int id = program_find_string(cc->p, dn->c->text);
        for (size_t e = 0; id >= 0 && e < cc->p->nenums; e++)
            if (cc->p->enums[e].name == id)
                return TY_ENUM;
        if (strcmp(dn->c->text, "number") == 0 || strcmp(dn->c->text, "int") == 0)
            return TY_NUM;
        if (strcmp(dn->c->text, "distance") == 0)
            return TY_DIST;
        if (strcmp(dn->c->text, "duration") == 0)
            return TY_TIME;
        if (strcmp(dn->c->text, "dice") == 0)
            return TY_DICE;
        if (strcmp(dn->c->text, "time") == 0)
            return TY_TIME;
        if (strcmp(dn->c->text, "creature") == 0)
            return TY_CREATURE;
        if (strcmp(dn->c->text, "bool") == 0 || strcmp(dn->c->text, "boolean") == 0)
            return TY_BOOL;
        if (strcmp(dn->c->text, "text") == 0 || strcmp(dn->c->text, "string") == 0)
            return TY_STR;
        comp_error(cc, dn->c->sp,
                   "unknown type '%s' (an enum, int, number, bool, distance, time, dice, creature or text)",
                   dn->c->text);
        return TY_ANY;
    }
    const node *v = dn->a;
    if (!v)
        return TY_NUM;
    switch (v->kind) {
    case AST_INT:
    case AST_FRAC: return TY_NUM;
    case AST_DICE: return TY_DICE;
    case AST_STRING: return TY_STR;
    case AST_BOOL: return TY_BOOL;
    case AST_QTY: {
        static const char *const dist[] = {"ft", "feet",  "foot",   "sq",    "square", "squares",
                                           "m",  "meter", "meters", "metre", "metres"};
        for (size_t i = 0; i < sizeof dist / sizeof dist[0]; i++)
            if (strcmp(v->text, dist[i]) == 0)
                return TY_DIST;
        return TY_TIME;
    }
    default: return TY_ANY; /* a formula: its type is known once compiled */
    }
}

static void register_enum(compiler *cc, const node *dn, int name)
{
    int members[512];
    int n = 0;
    const node *firsts[2] = {dn->list, dn->b ? dn->b->list : NULL};
    for (int k = 0; k < 2; k++) {
        for (const node *it = firsts[k]; it; it = it->next) {
            /* members are bare names, separated by commas or newlines */
            const node *words[2] = {it, it->kind == AST_CLAUSE ? it->list : NULL};
            for (int w = 0; w < 2; w++) {
                for (const node *m = words[w]; m; m = (w == 0 ? NULL : m->next)) {
                    if (m->kind == AST_SEP)
                        continue;
                    if (m->kind != AST_NAME && m->kind != AST_CLAUSE) {
                        comp_error(cc, m->sp, "enum members are names");
                        continue;
                    }
                    if (w == 0 && m->kind == AST_CLAUSE && 0)
                        continue;
                    if (n >= 512) {
                        comp_error(cc, m->sp, "too many enum members (limit is 512)");
                        break;
                    }
                    members[n++] = comp_intern(cc, m->text);
                }
            }
        }
    }
    enum_info *grown = mem_grow(cc->p->enums, sizeof(enum_info), &cc->p->enums_cap, cc->p->nenums + 1);
    int *copy = n ? mem_alloc((size_t)n * sizeof(int)) : NULL;
    if (!grown || (n && !copy)) {
        cc->oom = true;
        return;
    }
    cc->p->enums = grown;
    if (n)
        memcpy(copy, members, (size_t)n * sizeof(int));
    cc->p->enums[cc->p->nenums++] = (enum_info){name, copy, n};
}

/* Creature count from a header word like `x3`. */
static int creature_count(compiler *cc, const node *dn)
{
    for (const node *a = dn->list; a; a = a->next) {
        if (a->kind == AST_NAME && a->text[0] == 'x' && a->text[1] >= '1' && a->text[1] <= '9') {
            char *end;
            long k = strtol(a->text + 1, &end, 10);
            if (*end == '\0') {
                if (k > 1000) {
                    comp_error(cc, a->sp, "too many creatures in one declaration (limit is 1000)");
                    return 1;
                }
                return (int)k;
            }
        }
    }
    return 1;
}

/* Pass 1: make every declaration of this file known before any body is
 * compiled, so declarations may refer to each other in any order. */
void declare_names(compiler *cc, const node *prog)
{
    for (const node *it = prog->list; it; it = it->next) {
        const node *dn = it->kind == AST_OVERRIDE ? it->a : it;
        if (!dn || dn->kind != AST_DECL)
            continue;
        decl_kind k = (decl_kind)dn->op;
        int name = dn->text ? comp_intern(cc, dn->text) : -1;
        if (k == DK_ENUM && name >= 0)
            register_enum(cc, dn, name);
        if (k == DK_STAT || k == DK_RESOURCE || k == DK_PROCEDURE || k == DK_RANGE || k == DK_DURATION ||
            k == DK_CREATURE) {
            const decl *prev = name >= 0 ? program_find_decl(cc->p, k, name) : NULL;
            if (prev && it->kind != AST_OVERRIDE) {
                comp_error(cc, dn->sp, "%s '%s' is already declared", decl_kind_name(k), dn->text);
                comp_note(cc, prev->where, "first declared here");
                continue;
            }
            if (!prev && it->kind == AST_OVERRIDE) {
                comp_error(cc, dn->sp, "nothing to override: no %s '%s' is declared", decl_kind_name(k), dn->text);
                continue;
            }
            decl *d = program_add_decl(cc->p, k, name, dn->sp);
            if (!d) {
                cc->oom = true;
                return;
            }
            d->overrides = it->kind == AST_OVERRIDE;
            d->system = cc->system;
            if (k == DK_STAT)
                d->type = (int)guess_type(cc, dn);
            if (k == DK_PROCEDURE)
                d->nparams = ast_list_len(dn->c);
            if (k == DK_CREATURE)
                d->nparams = creature_count(cc, dn);
            if (k == DK_RANGE && !dn->a)
                d->value = -1;
            else if (k == DK_RANGE || k == DK_DURATION)
                d->value = -2; /* a formula, compiled in pass 2 */
        }
    }
}

/* The record pass 1 made for this node, if any. */
static decl *predeclared(compiler *cc, const node *dn)
{
    for (size_t i = cc->p->ndecls; i-- > 0;) {
        decl *d = &cc->p->decls[i];
        if (d->where.start == dn->sp.start && d->where.source == dn->sp.source && d->kind == (decl_kind)dn->op)
            return d;
    }
    return NULL;
}

void compile_decl(compiler *cc, const node *item)
{
    bool is_override = item->kind == AST_OVERRIDE;
    const node *dn = is_override ? item->a : item;
    if (!dn || dn->kind != AST_DECL) {
        if (dn)
            comp_error(cc, dn->sp, "'override' applies to a declaration");
        return;
    }
    decl_kind k = (decl_kind)dn->op;
    int name = dn->text ? comp_intern(cc, dn->text) : -1;
    decl *d = predeclared(cc, dn);
    if (!d) {
        if (k == DK_STAT || k == DK_RESOURCE || k == DK_PROCEDURE || k == DK_RANGE || k == DK_DURATION)
            return; /* pass 1 rejected it (duplicate) */
        const decl *prev = name >= 0 ? program_find_decl(cc->p, k, name) : NULL;
        if (prev && !is_override && k != DK_SYSTEM) {
            comp_error(cc, dn->sp, "%s '%s' is already declared", decl_kind_name(k), dn->text);
            comp_note(cc, prev->where, "first declared here");
            return;
        }
        d = program_add_decl(cc->p, k, name, dn->sp);
        if (!d) {
            cc->oom = true;
            return;
        }
        d->overrides = is_override;
        d->system = cc->system;
    }
    int index = program_decl_index(cc->p, d);
    char what[160];
    snprintf(what, sizeof what, "%s %s", decl_kind_name(k), dn->text ? dn->text : "");
    decl_ctx dc = {.what = what};
    dc.nparams = decl_params(dn, dc.params, 32);
    node check_param = {.kind = AST_NAME, .text = "check", .sp = dn->sp};
    if (k == DK_INITIATIVE)
        dc.params[dc.nparams++] = &check_param; /* the participant's roll, in score and ties */
    dc.implicit_target = k == DK_ACTION && !dn->c;
    if (k == DK_SYSTEM) {
        cc->system = index;
        cc->p->system_name = name;
        for (const node *a = dn->list; a; a = a->next)
            if (a->kind == AST_STRING)
                cc->p->system_title = comp_intern(cc, a->text);
    }
    if (k == DK_ENUM) {
        d->type = (int)cc->p->nenums - 1;
        return;
    }
    if (dn->a) {
        sty t;
        d = &cc->p->decls[index];
        int formula = formula_chunk(cc, &dc, dn->a, &t);
        d = &cc->p->decls[index]; /* the table may have moved */
        d->value = formula;
        if (k == DK_STAT && !dn->c && d->type == TY_ANY)
            d->type = (int)t;
        else if (k == DK_STAT && dn->c && t != TY_ANY && (sty)d->type != t && !(d->type == TY_NUM && t == TY_ROLL))
            comp_error(cc, dn->a->sp, "stat %s is declared as %s but its value is %s", dn->text, sty_name((sty)d->type),
                       sty_name(t));
        if (k == DK_RANGE && t != TY_DIST && t != TY_ANY)
            comp_error(cc, dn->a->sp, "a range is a distance, not %s", sty_name(t));
        if (k == DK_DURATION && t != TY_TIME && t != TY_ANY)
            comp_error(cc, dn->a->sp, "a duration is a span of time, not %s", sty_name(t));
    }
    if (k != DK_SYSTEM && k != DK_STAT)
        header_clause(cc, &cc->p->decls[index], &dc, dn);
    else if (k == DK_STAT && dn->list)
        header_clause(cc, &cc->p->decls[index], &dc, dn);
    clause *more = NULL;
    int nmore = 0, body = -1;
    compile_body(cc, &cc->p->decls[index], k, &dc, dn->b, &more, &nmore, &body);
    d = &cc->p->decls[index];
    append_clauses(cc, d, more, nmore);
    if (body >= 0)
        d->body = body;
    if (k == DK_PROCEDURE || k == DK_ACTION)
        d->nparams = dc.nparams + (dc.implicit_target ? 1 : 0);
    if (k == DK_PROCEDURE && !dn->b)
        comp_error(cc, dn->sp, "procedure %s needs a body", dn->text);
    if (k == DK_SYSTEM)
        cc->system = index;
}

bool stat_is_derived(compiler *cc, const decl *d)
{
    int derived = program_find_string(cc->p, "derived");
    for (int i = 0; d && derived >= 0 && i < d->nclauses; i++)
        if (d->clauses[i].word == derived)
            return true;
    return false;
}

/* --- commands ---------------------------------------------------------------- */

static void push_command_arg(compiler *cc, const node *a)
{
    if ((a->kind == AST_NAME || a->kind == AST_WORD) && !name_resolves(cc, a->text)) {
        emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, comp_intern(cc, a->text)), a->sp);
        return;
    }
    if (a->kind == AST_SEP)
        return;
    compile_expr(cc, a);
}

static int push_command_args(compiler *cc, const node *first)
{
    int n = 0;
    for (const node *a = first; a; a = a->next) {
        if (a->kind == AST_SEP)
            continue;
        push_command_arg(cc, a);
        n++;
    }
    return n;
}

void compile_command(compiler *cc, const node *cmd)
{
    fn_state fs;
    char name[64];
    snprintf(name, sizeof name, "command %zu", cc->p->ncommands + 1);
    fn_begin(cc, &fs, CHUNK_COMMAND, name, cmd->sp);
    if (!fs.c)
        return;
    fs.top_level = true;
    switch ((ast_kind)cmd->kind) {
    case AST_DECL: { /* creature */
        decl *d = predeclared(cc, cmd);
        if (!d)
            break;
        int index = program_decl_index(cc->p, d);
        decl_ctx dc = {.what = "creature"};
        clause *more = NULL;
        int nmore = 0, body = -1;
        header_clause(cc, d, &dc, cmd);
        compile_body(cc, &cc->p->decls[index], DK_CREATURE, &dc, cmd->b, &more, &nmore, &body);
        d = &cc->p->decls[index];
        append_clauses(cc, d, more, nmore);
        /* each body clause sets a stat or resource */
        for (int i = 0; i < d->nclauses; i++) {
            const clause *cl = &d->clauses[i];
            if (i == 0 && cmd->list)
                continue; /* the header */
            int w = cl->word;
            if (!program_find_decl(cc->p, DK_STAT, w) && !program_find_decl(cc->p, DK_RESOURCE, w)) {
                const char *s = suggest_name(cc, program_string(cc->p, w));
                comp_error(cc, cl->where, "no stat or resource '%s'%s%s%s", program_string(cc->p, w),
                           s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
            } else if (cl->nargs != 1) {
                comp_error(cc, cl->where, "give %s one value", program_string(cc->p, w));
            } else if (stat_is_derived(cc, program_find_decl(cc->p, DK_STAT, w))) {
                comp_error(cc, cl->where, "%s is derived from its formula; a creature cannot set it",
                           program_string(cc->p, w));
            }
        }
        emit_op(cc, OP_PLAY, cmd->sp);
        emit_byte(cc, DK_CREATURE, cmd->sp);
        emit_byte(cc, (uint8_t)(index & 0xff), cmd->sp);
        emit_byte(cc, (uint8_t)(index >> 8), cmd->sp);
        break;
    }
    case AST_COMMAND: {
        int argc = push_command_args(cc, cmd->list);
        emit_op(cc, OP_PLAY, cmd->sp);
        emit_byte(cc, (uint8_t)cmd->op, cmd->sp);
        emit_byte(cc, (uint8_t)(argc & 0xff), cmd->sp);
        emit_byte(cc, (uint8_t)(argc >> 8), cmd->sp);
        break;
    }
    case AST_ACT: {
        if (!creature_declared(cc, cmd->text)) {
            const char *s = suggest_name(cc, cmd->text);
            comp_error(cc, cmd->a->sp, "no creature '%s'%s%s%s", cmd->text, s ? "; did you mean '" : "", s ? s : "",
                       s ? "'?" : "");
        }
        emit_op_u16(cc, OP_CREATURE, comp_intern(cc, cmd->text), cmd->a->sp);
        const node *action = cmd->list;
        if (!action) {
            comp_error(cc, cmd->sp, "name the action, as in '%s: attack goblin'", cmd->text);
            break;
        }
        int id = comp_intern(cc, action->text ? action->text : "");
        const decl *ad = action->text ? program_find_decl(cc->p, DK_ACTION, id) : NULL;
        if (!ad) {
            const char *s = action->text ? suggest_name(cc, action->text) : NULL;
            comp_error(cc, action->sp, "no action '%s'%s%s%s", action->text ? action->text : "?",
                       s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
            break;
        }
        int argc = push_command_args(cc, action->next);
        if (argc > ad->nparams)
            comp_error(cc, cmd->sp, "action %s takes %d target%s, not %d", action->text, ad->nparams,
                       ad->nparams == 1 ? "" : "s", argc);
        emit_const(cc, value_int(argc), cmd->sp);
        int index = program_decl_index(cc->p, ad);
        emit_op(cc, OP_PLAY, cmd->sp);
        emit_byte(cc, DK_ACT, cmd->sp);
        emit_byte(cc, (uint8_t)(index & 0xff), cmd->sp);
        emit_byte(cc, (uint8_t)(index >> 8), cmd->sp);
        break;
    }
    default: compile_stmt(cc, cmd); break;
    }
    /* locals of a command die with it */
    while (fs.nlocals > 0) {
        emit_op(cc, OP_POP, cmd->sp);
        fs.nlocals--;
    }
    int id = fn_end(cc, &fs, cmd->sp);
    if (id < 0)
        return;
    int *grown = mem_grow(cc->p->commands, sizeof(int), &cc->p->commands_cap, cc->p->ncommands + 1);
    if (!grown) {
        cc->oom = true;
        return;
    }
    cc->p->commands = grown;
    cc->p->commands[cc->p->ncommands++] = id;
}
