/* compile_decl: declarations. Pass 1 (declare_names) gives every name of a
 * file its record before any body is compiled, so declarations may refer
 * to each other in any order; pass 2 (compile_decl) runs each declaration
 * through its kind's compiler (decl_*.c), which checks every clause and
 * fills the typed rules tables. This file holds the driver, the clause
 * dispatch shared by every kind, and the kinds too small for a file of
 * their own (system, stat, enum, procedure). */
#include <stdlib.h>
#include <string.h>

#include "lang/retired.h"
#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/base/mem.h"
#include "runtime/base/suggest.h"

/* Kinds with a rules object by name. */
static bool has_object(decl_kind k)
{
    switch (k) {
    case DK_CONDITION:
    case DK_ACTION:
    case DK_CHECK:
    case DK_RELATION:
    case DK_RULING:
    case DK_TACTIC:
    case DK_RANGE:
    case DK_BONUS:
    case DK_ITEM:
    case DK_TRIGGER:
    case DK_TRACK:
    case DK_PERIOD:
    case DK_CREATURE: return true;
    default: return false;
    }
}

static bool is_named(decl_kind k)
{
    return has_object(k) || k == DK_STAT || k == DK_RESOURCE || k == DK_PROCEDURE || k == DK_DURATION || k == DK_ENUM ||
           k == DK_SYSTEM || k == DK_SIDE;
}

/* --- pass 1 ------------------------------------------------------------------ */

/* The type a word names: a stat's (`stat weapon: item`) or, with
   `parameter`, an action parameter's, which may also be what only a
   command's words are (a square, a word). */
static sty type_named(compiler *cc, const node *t, bool parameter)
{
    if (parameter && strcmp(t->text, "square") == 0)
        return TY_SQUARE;
    if (parameter && strcmp(t->text, "word") == 0)
        return TY_WORD;
    int id = program_find_string(cc->p, t->text);
    for (size_t e = 0; id >= 0 && e < cc->p->nenums; e++)
        if (cc->p->enums[e].name == id)
            return TY_ENUM;
    static const struct {
        const char *word;
        sty type;
    } types[] = {
        {"number", TY_NUM}, {"int", TY_NUM},           {"distance", TY_DIST}, {"duration", TY_TIME}, {"time", TY_TIME},
        {"dice", TY_DICE},  {"creature", TY_CREATURE}, {"bool", TY_BOOL},     {"boolean", TY_BOOL},  {"text", TY_STR},
        {"string", TY_STR}, {"item", TY_ITEM},         {"list", TY_LIST},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t->text, types[i].word) == 0)
            return types[i].type;
    if (id >= 0 && rules_item(cc->p->rules, id) >= 0)
        return TY_ITEM; /* `stat weapon: sword` would be odd, but an item kind works */
    comp_error(cc, t->sp,
               "unknown type '%s' (an enum, int, number, bool, distance, time, dice, creature, item, "
               "list%s or text)",
               t->text, parameter ? ", square, word, condition, zone" : "");
    return TY_ANY;
}

static sty type_from_name(compiler *cc, const node *t)
{
    return type_named(cc, t, false);
}

sty parameter_type(compiler *cc, const node *t)
{
    return type_named(cc, t, true);
}

static sty guess_type(compiler *cc, const node *dn)
{
    if (dn->c)
        return type_from_name(cc, dn->c);
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
            /* members are bare names, separated by commas or newlines; a
               line `a, b` in the block parses as a clause `a` with args; a
               citation (§ "Section") names the passage, not a member */
            const node *chain[2] = {it, it->kind == AST_CLAUSE ? it->list : NULL};
            for (int w = 0; w < 2; w++) {
                for (const node *m = chain[w]; m; m = (w == 0 ? NULL : m->next)) {
                    if (m->kind == AST_SEP || m->kind == AST_CITE)
                        continue;
                    if (m->kind != AST_NAME && m->kind != AST_CLAUSE) {
                        comp_error(cc, m->sp, "enum members are names, separated by commas");
                        continue;
                    }
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

/* `x3` in a creature header. */
static int creature_count(compiler *cc, const node *dn)
{
    for (const node *a = dn->list; a; a = a->next) {
        if (a->kind == AST_NAME && a->text[0] == 'x' && a->text[1] >= '1' && a->text[1] <= '9') {
            char *end;
            long k = strtol(a->text + 1, &end, 10);
            if (*end == '\0') {
                if (k > 1000000) {
                    comp_error(cc, a->sp, "too many creatures in one declaration (limit is 1000000)");
                    return 1;
                }
                return (int)k;
            }
        }
    }
    return 1;
}

/* Slot names of an economy and phase names of a round are names too. */
static void register_inner_names(compiler *cc, const node *dn)
{
    rules *r = cc->p->rules;
    const char *word = dn->op == DK_ECONOMY ? "slot" : dn->op == DK_ROUND ? "phase" : NULL;
    if (!word || !dn->b)
        return;
    for (const node *it = dn->b->list; it; it = it->next) {
        if (it->kind != AST_CLAUSE || strcmp(it->text, word) != 0 || !it->list || it->list->kind != AST_NAME)
            continue;
        int name = comp_intern(cc, it->list->text);
        int i = dn->op == DK_ECONOMY ? rules_add_slot(r, name) : rules_add_phase(r, name);
        if (i < 0)
            cc->oom = true;
    }
}

/* Sides are named by the creatures that take them; a new one is announced. */
static void register_side(compiler *cc, const node *dn)
{
    for (const node *a = dn->list; a; a = a->next)
        if (a->kind == AST_NAME && strcmp(a->text, "side") == 0 && a->next && a->next->kind == AST_NAME) {
            int name = comp_intern(cc, a->next->text);
            if (name >= 0 && rules_side(cc->p->rules, name) < 0)
                cmd_new_side(cc, a->next);
            if (rules_add_side(cc->p->rules, name) < 0)
                cc->oom = true;
        }
}

/* The kind of answer of a ruling (its `answer` clause, in the header or the
 * block), read in pass 1: a formula compiled before the ruling's own
 * declaration reads its answer with the right type. Pass 2 checks the
 * clause and reports what is wrong with it. */
static void preset_ruling_answer(compiler *cc, const node *dn, int obj)
{
    static const char *const kinds[] = {"yes_no", "number", "creature", "word"};
    const node *arg = NULL;
    for (const node *h = dn->list; h && !arg; h = h->next)
        if (h->kind == AST_NAME && strcmp(h->text, "answer") == 0)
            arg = h->next;
    for (const node *it = dn->b ? dn->b->list : NULL; it && !arg; it = it->next)
        if (it->kind == AST_CLAUSE && it->text && strcmp(it->text, "answer") == 0)
            arg = it->list;
    if (!arg || (arg->kind != AST_NAME && arg->kind != AST_WORD) || !arg->text)
        return;
    if (strcmp(arg->text, "one") == 0) /* answer one of WORDS */
        cc->p->rules->rulings[obj].answer = ANSWER_WORD;
    for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]); i++)
        if (strcmp(arg->text, kinds[i]) == 0)
            cc->p->rules->rulings[obj].answer = (answer_kind)i;
}

/* A period declared again in another file, lying within the same period
   (or none): the same period, the first declaration standing. Modules
   that each need a scene (a system and a library of periods) agree on it. */
static bool period_again(compiler *cc, const node *dn, const decl *prev)
{
    if (prev->where.source == cc->src_index || prev->object < 0)
        return false;
    const char *within = NULL;
    const node *firsts[2] = {dn->list, dn->b ? dn->b->list : NULL};
    for (int k = 0; k < 2; k++)
        for (const node *it = firsts[k]; it; it = it->next) {
            bool clause = it->kind == AST_CLAUSE && it->text && strcmp(it->text, "within") == 0;
            const node *w = clause                                                    ? it->list
                            : it->kind == AST_NAME && strcmp(it->text, "within") == 0 ? it->next
                                                                                      : NULL;
            if (clause || w)
                within = w && w->text ? w->text : "";
        }
    int had = cc->p->rules->periods[prev->object].within;
    const char *was = had >= 0 ? program_string(cc->p, cc->p->rules->periods[had].name) : NULL;
    return (!within && !was) || (within && was && strcmp(within, was) == 0);
}

void declare_names(compiler *cc, const node *prog)
{
    for (const node *it = prog->list; it; it = it->next) {
        const node *dn = it->kind == AST_OVERRIDE ? it->a : it;
        if (!dn || dn->kind != AST_DECL || comp_left_out(cc, it))
            continue;
        decl_kind k = (decl_kind)dn->op;
        bool override = it->kind == AST_OVERRIDE;
        if (k == DK_ECONOMY || k == DK_ROUND)
            register_inner_names(cc, dn);
        if (k == DK_CREATURE)
            register_side(cc, dn);
        if (k == DK_SIDE && dn->text && rules_add_side(cc->p->rules, comp_intern(cc, dn->text)) < 0)
            cc->oom = true;
        if (!is_named(k) || k == DK_SYSTEM || !dn->text)
            continue;
        /* what a call `NAME(...)` may reach: a built-in first, then a
           check, a procedure, a ruling (asked for a creature) */
        static const decl_kind callables[] = {DK_CHECK, DK_PROCEDURE, DK_RULING};
        bool callable = k == DK_PROCEDURE || k == DK_CHECK || k == DK_RULING;
        /* a ruling is mostly read by its bare name: one named like a
           built-in is read so, and a call by that name is the built-in */
        if (callable && k != DK_RULING && builtin_find(dn->text) >= 0) {
            /* a call by this name would reach the built-in, never the procedure */
            comp_error(cc, dn->sp, "%s '%s' has the name of a built-in function; choose another name",
                       decl_kind_name(k), dn->text);
            continue;
        }
        int name = comp_intern(cc, dn->text);
        decl_kind other = k;
        for (size_t c = 0; callable && c < sizeof callables / sizeof callables[0] && other == k; c++)
            if (callables[c] != k && program_find_decl(cc->p, callables[c], name))
                other = callables[c];
        if (other != k) {
            /* a call by this name would reach only one of them */
            comp_error(cc, dn->sp, "%s '%s' has the name of a %s; choose another name", decl_kind_name(k), dn->text,
                       decl_kind_name(other));
            continue;
        }
        if (k == DK_ENUM) {
            register_enum(cc, dn, name);
            continue;
        }
        const decl *prev = program_find_decl(cc->p, k, name);
        if (prev && !override && k == DK_PERIOD && period_again(cc, dn, prev))
            continue;
        if (prev && !override) {
            comp_error(cc, dn->sp, "%s '%s' is already declared", decl_kind_name(k), dn->text);
            comp_note(cc, prev->where, "first declared here; write 'override %s %s' to replace it", decl_kind_name(k),
                      dn->text);
            continue;
        }
        if (!prev && override) {
            char like[SUGGEST_MAX + 1];
            if (*comp_decl_like(cc, dn->text, k, k, like))
                comp_error(cc, dn->sp, "nothing to override: no %s '%s' is declared; did you mean '%s'?",
                           decl_kind_name(k), dn->text, like);
            else
                comp_error(cc, dn->sp, "nothing to override: no %s '%s' is declared", decl_kind_name(k), dn->text);
            continue;
        }
        decl *d = program_add_decl(cc->p, k, name, dn->sp);
        if (!d) {
            cc->oom = true;
            return;
        }
        d->overrides = override;
        d->system = cc->system;
        if (k == DK_STAT)
            d->type = (int)guess_type(cc, dn);
        if (k == DK_RESOURCE) /* what it counts: a number, or a distance or time (decl_resource checks) */
            d->type = (int)(dn->c ? type_from_name(cc, dn->c) : TY_NUM);
        if (k == DK_PROCEDURE || k == DK_CHECK || k == DK_RELATION || k == DK_ACTION)
            d->nparams = ast_list_len(dn->c);
        for (const node *p = dn->c && dn->c->kind == AST_LIST ? dn->c->list : NULL; p; p = p->next) {
            if (p->a && k != DK_ACTION)
                comp_error(cc, p->a->sp, "only an action's parameters say what they take (a command's words)");
            for (const node *q = dn->c->list; q != p; q = q->next)
                if (p->text && q->text && strcmp(p->text, q->text) == 0) {
                    comp_error(cc, p->sp, "parameter '%s' is named twice", p->text);
                    break;
                }
        }
        if (k == DK_CREATURE)
            d->nparams = creature_count(cc, dn);
        if (k == DK_RANGE && !dn->a)
            d->value = -1;
        else if (k == DK_RANGE || k == DK_DURATION)
            d->value = -2; /* a formula, compiled in pass 2 */
        if (has_object(k)) {
            int obj = rules_add_named(cc->p->rules, k, name);
            if (obj < 0) {
                cc->oom = true;
                return;
            }
            d = &cc->p->decls[cc->p->ndecls - 1];
            d->object = obj;
            if (k == DK_CHECK) {
                r_check *c = &cc->p->rules->checks[obj];
                c->nparams = 0;
                for (const node *p = dn->c ? dn->c->list : NULL; p && c->nparams < CHECK_MAX_PARAMS; p = p->next)
                    c->params[c->nparams++] = comp_intern(cc, p->text);
                if (ast_list_len(dn->c) > CHECK_MAX_PARAMS)
                    comp_error(cc, dn->sp, "a check takes at most %d parameters", CHECK_MAX_PARAMS);
            }
            if (k == DK_RULING)
                preset_ruling_answer(cc, dn, obj);
            if (k == DK_PERIOD) { /* counts of it may be compiled before it */
                text_buf plural;
                text_init(&plural);
                rules_period_plural(dn->text, &plural);
                cc->p->rules->periods[obj].plural = comp_intern(cc, plural.s);
                text_free(&plural);
            }
        }
    }
}

/* The record pass 1 made for this node, if any. */
static decl *predeclared(compiler *cc, const node *dn)
{
    return program_decl_at(cc->p, (decl_kind)dn->op, dn->sp);
}

/* --- clauses ------------------------------------------------------------------- */

static const clause_rule *find_rule(const clause_rule *table, int n, const char *word)
{
    for (int i = 0; i < n; i++)
        if (strcmp(table[i].word, word) == 0)
            return &table[i];
    return NULL;
}

/* Does usage hold word as a word of its own after its first (`max` in
   "group [max N]")? */
static bool usage_has(const char *usage, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strchr(usage, ' '); p; p = strchr(p + 1, ' ')) {
        const char *w = p + 1 + (p[1] == '[');
        if (strncmp(w, word, n) == 0 && (w[n] == ' ' || w[n] == ']' || w[n] == '\0'))
            return true;
    }
    return false;
}

static void unknown_clause(decl_state *ds, const clause_rule *table, int n, const char *word, span at)
{
    compiler *cc = ds->cc;
    const char *kind = decl_kind_name(ds->kind);
    const char *instead = retired_instead(kind, word);
    if (instead) {
        comp_error(cc, at, "%s %s has no clause '%s' any more: %s", clause_article(kind), kind, word, instead);
        return;
    }
    const char *best = NULL;
    int best_d = 3;
    for (int i = 0; i < n; i++) {
        int d = diag_edit_distance(word, table[i].word, 2);
        if (d < best_d) {
            best_d = d;
            best = table[i].word;
        }
    }
    if (best) {
        comp_error(cc, at, "%s %s has no clause '%s'; did you mean '%s'?", clause_article(kind), kind, word, best);
        return;
    }
    if (n == 0) {
        comp_error(cc, at, "%s %s holds statements, not clauses like '%s'", clause_article(kind), kind, word);
        return;
    }
    /* a word that goes after another clause's word */
    for (int i = 0; i < n; i++)
        if (usage_has(table[i].usage, word)) {
            comp_error(cc, at, "'%s' goes after '%s' in %s %s: %s", word, table[i].word, clause_article(kind), kind,
                       table[i].usage);
            return;
        }
    text_buf list;
    text_init(&list);
    for (int i = 0; i < n; i++)
        text_add(&list, "%s%s", i ? ", " : "", table[i].word);
    comp_error(cc, at, "%s %s has no clause '%s' (it has: %s)", clause_article(kind), kind, word, list.s);
    text_free(&list);
}

static void run_clause(decl_state *ds, const clause_rule *rule, const node *clause, const node *first, const node *stop)
{
    if (clause->kind == AST_CLAUSE && clause->b && !rule->takes_block) {
        comp_error(ds->cc, clause->b->sp, "'%s' takes no block", rule->word);
        return;
    }
    ccur k;
    ccur_init(&k, ds->cc, clause, first, stop, rule->usage);
    rule->fn(ds, clause, &k);
}

/* Header arguments hold clauses one after another (`costs move provokes
   no`): a bare name that is a clause word starts the next one. */
static void header_clauses(decl_state *ds, const clause_rule *table, int n)
{
    const node *first = ds->header;
    while (first) {
        bool wordy = first->kind == AST_NAME || first->kind == AST_WORD;
        const clause_rule *rule = wordy ? find_rule(table, n, first->text) : NULL;
        if (!rule) {
            if (n == 0 || !table[0].word[0]) {
                comp_error(ds->cc, first->sp, "unexpected %s after the name of %s %s", ast_kind_name(first->kind),
                           clause_article(decl_kind_name(ds->kind)), decl_kind_name(ds->kind));
            } else if (first->kind == AST_NAME) {
                unknown_clause(ds, table, n, first->text, first->sp);
            } else {
                comp_error(ds->cc, first->sp, "expected a clause of %s %s here, found %s %s",
                           clause_article(decl_kind_name(ds->kind)), decl_kind_name(ds->kind),
                           clause_article(ast_kind_name(first->kind)), ast_kind_name(first->kind));
            }
            return;
        }
        const node *stop = first->next;
        while (stop && !((stop->kind == AST_NAME || stop->kind == AST_WORD) && find_rule(table, n, stop->text)))
            stop = stop->next;
        run_clause(ds, rule, first, first->next, stop);
        first = stop;
    }
}

void decl_clauses(decl_state *ds, const clause_rule *table, int nrules, bool *stmts_seen)
{
    if (!ds->skip_header)
        header_clauses(ds, table, nrules);
    if (!ds->dn->b)
        return;
    for (const node *it = ds->dn->b->list; it; it = it->next) {
        const clause_rule *rule = it->kind == AST_CLAUSE ? find_rule(table, nrules, it->text) : NULL;
        if (rule) {
            run_clause(ds, rule, it, it->list, NULL);
        } else if (it->kind == AST_CLAUSE && !(stmts_seen && is_statement(it))) {
            if (!stmts_seen || !cmd_not_in_body(ds->cc, it))
                unknown_clause(ds, table, nrules, it->text, it->a ? it->a->sp : it->sp);
        } else if (it->kind == AST_CITE) {
            ds->clause_cite = comp_intern(ds->cc, it->text);
            if (ds->from.cite < 0)
                ds->from.cite = ds->clause_cite;
        } else if (is_statement(it)) {
            if (stmts_seen)
                *stmts_seen = true;
            else
                comp_error(ds->cc, it->sp, "%s %s holds clauses, not statements",
                           clause_article(decl_kind_name(ds->kind)), decl_kind_name(ds->kind));
        } else if ((it->kind == AST_DECL || it->kind == AST_OVERRIDE) && ds->kind == DK_SYSTEM) {
            compile_decl(ds->cc, it);
        } else if (stmts_seen && it->kind == AST_COMMAND) {
            cmd_not_in_body(ds->cc, it);
        } else {
            const char *kind = decl_kind_name(ds->kind);
            comp_error(ds->cc, it->sp, "%s %s cannot hold %s %s", clause_article(kind), kind,
                       clause_article(ast_kind_name((ast_kind)it->kind)), ast_kind_name((ast_kind)it->kind));
        }
    }
    decl *d = &ds->cc->p->decls[ds->decl_index];
    if (ds->from.cite >= 0)
        d->cite = ds->from.cite;
}

/* --- system -------------------------------------------------------------------- */

static void sys_source(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    const node *s = ccur_take(k);
    if (!s || s->kind != AST_STRING)
        comp_error(ds->cc, s ? s->sp : k->end, "'source' takes the document's title as a string");
    ccur_end(k);
}

/* `extends NAME`: the system must be known already (loaded by `use`). */
static void extends_system(decl_state *ds, ccur *k)
{
    const node *at = k->at;
    int base = ccur_name(k, "the system it extends");
    if (base < 0)
        return;
    if (!program_find_decl(ds->cc->p, DK_SYSTEM, base) || (ds->dn->text && strcmp(at->text, ds->dn->text) == 0)) {
        char like[SUGGEST_MAX + 1];
        if (*comp_decl_like(ds->cc, at->text, DK_SYSTEM, DK_SYSTEM, like) &&
            strcmp(like, ds->dn->text ? ds->dn->text : ""))
            comp_error(ds->cc, at->sp, "no system '%s' to extend; did you mean '%s'?", at->text, like);
        else
            comp_error(ds->cc, at->sp, "no system '%s' to extend; load it first (use %s)", at->text, at->text);
        return;
    }
    ds->cc->p->system_base = base;
}

static void sys_extends(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    extends_system(ds, k);
    ccur_end(k);
}

static void sys_title(decl_state *ds, const node *clause, ccur *k)
{
    /* the header: ["Title"] [extends NAME] */
    (void)clause;
    while (!ccur_done(k)) {
        const node *n = k->at;
        if (n->kind == AST_STRING) {
            ds->cc->p->system_title = comp_intern(ds->cc, n->text);
            ccur_take(k);
        } else if (ccur_accept(k, "extends")) {
            extends_system(ds, k);
        } else {
            ccur_end(k);
        }
    }
}

const clause_rule system_clauses[] = {
    {"source", "source \"TITLE OF THE DOCUMENT\"", sys_source, false},
    {"extends", "extends SYSTEM", sys_extends, false},
};
const int system_nclauses = (int)(sizeof system_clauses / sizeof system_clauses[0]);

static void decl_system(decl_state *ds)
{
    compiler *cc = ds->cc;
    cc->system = ds->decl_index;
    cc->p->system_name = ds->d->name;
    /* The header of a system is a title and `extends`, not clauses. */
    ccur k;
    ccur_init(&k, cc, ds->dn, ds->dn->list, NULL, "system NAME [\"Title\"] [extends SYSTEM] { ... }");
    sys_title(ds, ds->dn, &k);
    ds->skip_header = true;
    decl_clauses(ds, system_clauses, system_nclauses, NULL);
}

/* A side declared by the rules ("the party", "the enemies"), so clauses
 * such as `ties side party` can name it before any creature takes it. */
static void decl_side(decl_state *ds)
{
    const node *h = ds->dn->list;
    if (h && h->kind == AST_STRING)
        ds->header = h->next;
    decl_clauses(ds, NULL, 0, NULL);
}

/* --- stat ------------------------------------------------------------------------- */

static void stat_in(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    r_stat *st = &ds->cc->p->rules->stats[ds->object];
    const node *e = ccur_take(k);
    if (!e || e->kind != AST_SPAN) {
        comp_error(ds->cc, e ? e->sp : k->end, "'in' takes the range of allowed values, as in 'in 1..20'");
        return;
    }
    rexpr_of(ds->cc, &ds->fx, e->a, TY_ANY, "the lowest value", &st->lo);
    st = &ds->cc->p->rules->stats[ds->object];
    rexpr_of(ds->cc, &ds->fx, e->b, TY_ANY, "the highest value", &st->hi);
    ccur_end(k);
}

static void stat_derived(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    ds->cc->p->rules->stats[ds->object].derived = true;
    ccur_end(k);
}

void stat_internal(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    ds->cc->p->decls[ds->decl_index].internal = true;
    ccur_end(k);
}

static void stat_per(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    static const char *const holders[] = {"side"};
    if (ccur_choice(k, "what holds the value", holders, 1) == 0)
        ds->cc->p->rules->stats[ds->object].per_side = true;
    ccur_end(k);
}

const clause_rule stat_clauses[] = {
    {"in", "in LOW..HIGH (the values it may take)", stat_in, false},
    {"derived", "derived (always its formula: it cannot be set)", stat_derived, false},
    {"internal", STAT_INTERNAL_USAGE, stat_internal, false},
    {"per", "per side (one value for each side, which its creatures share)", stat_per, false},
};
const int stat_nclauses = (int)(sizeof stat_clauses / sizeof stat_clauses[0]);

void decl_stat(decl_state *ds)
{
    compiler *cc = ds->cc;
    rules *r = cc->p->rules;
    int si = rules_stat(r, ds->decl_index);
    if (si < 0) {
        size_t cap = (size_t)r->stats_cap;
        r_stat *g = mem_grow(r->stats, sizeof(r_stat), &cap, (size_t)r->nstats + 1);
        if (!g) {
            cc->oom = true;
            return;
        }
        r->stats = g;
        r->stats_cap = (int)cap;
        si = r->nstats++;
        rules_index_stat(r, ds->decl_index, si);
    }
    memset(&r->stats[si], 0, sizeof(r_stat));
    r->stats[si].decl = ds->decl_index;
    r->stats[si].whole = ds->dn->c && strcmp(ds->dn->c->text, "int") == 0;
    ds->object = si;
    const node *dn = ds->dn;
    if (dn->a) {
        sty t;
        int formula = formula_in(cc, &ds->fx, dn->a, &t);
        decl *d = &cc->p->decls[ds->decl_index];
        d->value = formula;
        if (!dn->c && d->type == TY_ANY)
            d->type = (int)t;
        else if (dn->c && t != TY_ANY && (sty)d->type != t && !(d->type == TY_NUM && t == TY_ROLL) &&
                 !(d->type == TY_ITEM && t == TY_ITEM) &&
                 !(t == TY_NIL && (d->type == TY_CREATURE || d->type == TY_ITEM)))
            comp_error(cc, dn->a->sp, "stat %s is declared as %s but its value is %s", dn->text, sty_name((sty)d->type),
                       sty_name(t));
    }
    decl_clauses(ds, stat_clauses, stat_nclauses, NULL);
    if (r->stats[si].derived && !dn->a)
        comp_error(cc, dn->sp, "a derived stat needs a formula: stat %s = ... { derived }", dn->text);
    if (r->stats[si].derived && r->stats[si].per_side)
        comp_error(cc, dn->sp, "stat %s is held per side: it keeps what is set on it, so it cannot be derived",
                   dn->text);
}

/* --- procedure -------------------------------------------------------------------- */

static void decl_procedure(decl_state *ds)
{
    compiler *cc = ds->cc;
    if (!ds->dn->b) {
        comp_error(cc, ds->dn->sp, "procedure %s needs a body", ds->dn->text);
        return;
    }
    bool stmts = false;
    decl_clauses(ds, NULL, 0, &stmts);
    int body = body_in(cc, &ds->fx, CHUNK_PROCEDURE, ds->dn->b, false);
    cc->p->decls[ds->decl_index].body = body;
}

/* --- pass 2 ------------------------------------------------------------------------ */

static bool singleton_taken(compiler *cc, decl_kind k, bool override, span at)
{
    rules *r = cc->p->rules;
    bool *flag = k == DK_ECONOMY      ? &r->has_economy
                 : k == DK_INITIATIVE ? &r->has_initiative
                 : k == DK_ROUND      ? &r->has_round
                 : k == DK_SPACE      ? &r->has_space
                 : k == DK_ENCOUNTER  ? &r->has_encounter
                                      : NULL;
    if (!flag)
        return false;
    if (*flag && !override) {
        comp_error(cc, at, "a second %s declaration; write 'override %s { ... }' to replace the first",
                   decl_kind_name(k), decl_kind_name(k));
        return true;
    }
    if (!*flag && override) {
        comp_error(cc, at, "nothing to override: no %s is declared", decl_kind_name(k));
        return true;
    }
    *flag = true;
    return false;
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
    if (k == DK_ENUM)
        return; /* done in pass 1 */
    int name = dn->text ? comp_intern(cc, dn->text) : -1;
    decl *d = predeclared(cc, dn);
    if (!d) {
        if (is_named(k) && k != DK_SYSTEM)
            return; /* pass 1 rejected it */
        if (singleton_taken(cc, k, is_override, dn->sp))
            return;
        d = program_add_decl(cc->p, k, name, dn->sp);
        if (!d) {
            cc->oom = true;
            return;
        }
        d->overrides = is_override;
        d->system = cc->system;
    }
    decl_state ds = {
        .cc = cc, .dn = dn, .d = d, .kind = k, .overrides = is_override, .object = d->object, .clause_cite = -1};
    ds.decl_index = program_decl_index(cc->p, d);
    ds.header = dn->list;
    ds.from = (origin){.decl = ds.decl_index, .where = dn->sp, .cite = -1};
    text_buf label;
    text_init(&label);
    text_add(&label, "%s%s%s", decl_kind_name(k), dn->text ? " " : "", dn->text ? dn->text : "");
    ds.label = label.s;
    ds.fx.what = ds.label;
    if (ds.object >= 0 && is_override)
        rules_reset(cc->p->rules, k, ds.object);
    cc->p->rules->generation++;
    switch (k) {
    case DK_SYSTEM: decl_system(&ds); break;
    case DK_STAT: decl_stat(&ds); break;
    case DK_RESOURCE: decl_resource(&ds); break;
    case DK_PROCEDURE:
        for (const node *p = dn->c ? dn->c->list : NULL; p; p = p->next)
            if (!fctx_add(&ds.fx, p->text)) {
                comp_error(cc, p->sp, "a procedure takes at most %d parameters", FCTX_MAX);
                break;
            }
        decl_procedure(&ds);
        break;
    case DK_ECONOMY: decl_economy(&ds); break;
    case DK_EXCHANGE: decl_exchange(&ds); break;
    case DK_INITIATIVE: decl_initiative(&ds); break;
    case DK_ROUND: decl_round(&ds); break;
    case DK_ENCOUNTER: decl_encounter(&ds); break;
    case DK_DURATION: decl_duration(&ds); break;
    case DK_RANGE: decl_range(&ds); break;
    case DK_SPACE: decl_space(&ds); break;
    case DK_CONDITION: decl_condition(&ds); break;
    case DK_BONUS: decl_bonus(&ds); break;
    case DK_RELATION: decl_relation(&ds); break;
    case DK_ACTION: decl_action(&ds); break;
    case DK_CHECK: decl_check(&ds); break;
    case DK_TRIGGER: decl_trigger(&ds); break;
    case DK_RULING: decl_ruling(&ds); break;
    case DK_TACTIC: decl_tactic(&ds); break;
    case DK_SIDE: decl_side(&ds); break;
    case DK_PERIOD: decl_period(&ds); break;
    case DK_ITEM: decl_item(&ds); break;
    case DK_TRACK: decl_track(&ds); break;
    default: comp_error(cc, dn->sp, "%s is not a declaration", decl_kind_name(k)); break;
    }
    if (k == DK_SYSTEM)
        cc->system = ds.decl_index;
    text_free(&label);
}

bool stat_is_derived(compiler *cc, const decl *d)
{
    if (!d)
        return false;
    int si = rules_stat(cc->p->rules, program_decl_index(cc->p, d));
    return si >= 0 && cc->p->rules->stats[si].derived;
}
