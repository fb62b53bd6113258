/* decl_period: `period NAME { within OTHER }`, the periods of play a rule
 * system names for itself (a scene, a session, a day of downtime), and the
 * one lookup of a period by its word that every clause and command taking
 * one uses: durations (`lasts 2 scenes`), `refresh per NAME`, `limit N per
 * NAME`, `begin NAME` and `end NAME`. Round, turn and encounter are the
 * engine's own and are not declared. */
#include <string.h>

#include "lang/decl.h"
#include "runtime/base/suggest.h"

/* The unknown word w where a period was wanted: the closest declared one,
   or, when the rules declare none by that name, how to declare it. */
void comp_period_unknown(compiler *cc, span at, const char *w)
{
    const rules *r = cc->p->rules;
    suggestion s;
    suggest_init(&s, w);
    for (int i = 0; i < r->nperiods; i++)
        suggest_consider(&s, program_string(cc->p, r->periods[i].name), 0);
    /* and the engine's own (`rnds` for rounds) */
    for (int k = TIME_ROUNDS; k <= TIME_ENCOUNTERS; k++)
        for (int n = 1; n <= 2; n++)
            suggest_consider(&s, time_kind_name((time_kind)k, n), 0);
    if (s.found && strcmp(s.best, w) != 0)
        comp_error(cc, at, "unknown period '%s'; did you mean '%s'?", w, s.best);
    else {
        /* a plural asks for its singular: `2 scenes` wants `period scene` */
        size_t n = strlen(w);
        int one = (int)(n > 1 && w[n - 1] == 's' ? n - 1 : n);
        if (r->nperiods == 0)
            comp_error(cc, at, "these rules declare no period '%s'; declare it: period %.*s", w, one, w);
        else
            comp_error(cc, at, "unknown period '%s' (the rules declare none by that name; declare it: period %.*s)", w,
                       one, w);
    }
}

int comp_period_named(compiler *cc, const char *w)
{
    return rules_period_word(cc->p, w);
}

bool comp_period_count(compiler *cc, const node *n, value *out)
{
    int i = comp_period_named(cc, n->text);
    if (i < 0) {
        comp_period_unknown(cc, n->sp, n->text);
        return false;
    }
    if (n->den != 1) {
        comp_error(cc, n->sp, "a duration must be a whole number of %s",
                   program_string(cc->p, cc->p->rules->periods[i].plural));
        return false;
    }
    *out = value_time((time_kind)(TIME_PERIOD + i), n->num);
    return true;
}

period comp_period_of(compiler *cc, const node *word, bool allow_long, bool report)
{
    const char *w = word && (word->kind == AST_NAME || word->kind == AST_WORD) ? word->text : NULL;
    if (!w)
        return PER_NONE;
    static const char *const built_in[] = {"turn", "round", "encounter"};
    for (int i = 0; i < (allow_long ? 3 : 2); i++)
        if (strcmp(w, built_in[i]) == 0)
            return (period)(PER_TURN + i);
    int i = allow_long ? rules_period(cc->p->rules, program_find_string(cc->p, w)) : -1;
    if (i >= 0)
        return (period)(PER_DECLARED + i);
    if (report && allow_long)
        comp_period_unknown(cc, word->sp, w);
    return PER_NONE;
}

/* `within OTHER`: ending OTHER counts this period's durations down and
   refreshes its resources too (a scene within a quest). */
static void period_within(decl_state *ds, const node *clause, ccur *k)
{
    (void)clause;
    compiler *cc = ds->cc;
    const node *a = k->at;
    int name = ccur_name(k, "the period it lies within");
    if (name < 0)
        return;
    int other = rules_period(cc->p->rules, name);
    if (other < 0) {
        comp_period_unknown(cc, a->sp, a->text);
        return;
    }
    if (other == ds->object) {
        comp_error(cc, a->sp, "a period cannot lie within itself");
        return;
    }
    /* a period within one that lies within it would never be ended alone */
    for (int o = other, steps = 0; o >= 0 && steps <= cc->p->rules->nperiods; o = cc->p->rules->periods[o].within)
        if (o == ds->object || ++steps > cc->p->rules->nperiods) {
            comp_error(cc, a->sp, "period %s cannot lie within %s: %s already lies within it", ds->dn->text, a->text,
                       a->text);
            return;
        }
    cc->p->rules->periods[ds->object].within = other;
    ccur_end(k);
}

const clause_rule period_clauses[] = {
    {"within", "within PERIOD (ending PERIOD also counts this one's durations down and refreshes its resources)",
     period_within, false},
};
const int period_nclauses = (int)(sizeof period_clauses / sizeof period_clauses[0]);

/* The words a number already takes as its unit (the scanner's UNIT). */
static bool unit_word(const char *w)
{
    static const char *const units[] = {
        "ft",      "feet",   "foot",  "sq",    "square", "squares", "m",       "meter",     "meters",
        "metre",   "metres", "s",     "sec",   "secs",   "second",  "seconds", "min",       "minute",
        "minutes", "hour",   "hours", "round", "rounds", "turn",    "turns",   "encounter", "encounters",
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(w, units[i]) == 0)
            return true;
    return false;
}

void decl_period(decl_state *ds)
{
    compiler *cc = ds->cc;
    r_period *p = &cc->p->rules->periods[ds->object];
    p->from = ds->from;
    p->within = -1;
    text_buf plural;
    text_init(&plural);
    rules_period_plural(ds->dn->text, &plural);
    p->plural = comp_intern(cc, plural.s);
    text_free(&plural);
    if (unit_word(ds->dn->text) || unit_word(program_string(cc->p, p->plural)))
        comp_error(cc, ds->dn->sp, "period %s: a count of it ('2 %s') would read as Fray's own unit; name it otherwise",
                   ds->dn->text, program_string(cc->p, p->plural));
    if (cc->p->rules->nperiods > TIME_PERIODS_MAX)
        comp_error(cc, ds->dn->sp, "at most %d periods can be declared", TIME_PERIODS_MAX);
    decl_clauses(ds, period_clauses, period_nclauses, NULL);
    cc->p->rules->periods[ds->object].from.cite = ds->from.cite;
}
