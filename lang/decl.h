/* decl: what the declaration compilers (decl_*.c) share. A declaration is
 * a keyword, a name, header arguments and a block of clauses; each clause
 * is `word args... [{ block }]`. The compilers read clause arguments from
 * the syntax tree with a cursor, so a clause can be checked word by word
 * and its formulas compiled with exactly the names its context binds; the
 * result goes into the typed tables of runtime/core/rules.h. */
#ifndef FRAY_DECL_H
#define FRAY_DECL_H

#include "lang/compiler.h"
#include "runtime/core/rules.h"

/* "a" or "an", for a word in a message (clause.c). */
const char *clause_article(const char *word);

/* --- formulas in context ------------------------------------------------ */

/* The names a formula of a clause may use besides stats, ranges and the
 * rest of the program: parameters bound by position when it is called. */
#define FCTX_MAX ACTION_MAX_PARAMS
typedef struct fctx {
    const char *names[FCTX_MAX];
    sty types[FCTX_MAX]; /* what each holds, when known (0: anything) */
    int n;
    const char *what; /* chunk name for disasm: "condition prone" */
} fctx;

/* Adds a name once; false when there is no room for it (FCTX_MAX). */
bool fctx_add(fctx *fx, const char *name);
/* Compiles e as a formula chunk; its static type goes to *type if given. */
int formula_in(compiler *cc, const fctx *fx, const node *e, sty *type);
/* A formula, or a constant when e is a literal: the common clause value. */
bool rexpr_of(compiler *cc, const fctx *fx, const node *e, sty want, const char *what, rexpr *out);
/* Compiles statements (the items of `block` that are statements) into a
 * body chunk with fx's names as parameters. block_only: the block holds
 * statements alone (a trigger's `do`), and any other item is an error; else
 * its clauses are the declaration's, reported by decl_clauses. */
int body_in(compiler *cc, const fctx *fx, chunk_kind kind, const node *block, bool block_only);

/* --- the clause cursor ----------------------------------------------------- */

typedef struct ccur {
    compiler *cc;
    const node *clause; /* for spans of messages at the end */
    const node *at;     /* next argument */
    const node *stop;   /* first node past the clause (header clauses) */
    const char *usage;  /* "slot NAME COUNT per turn|round ...", for messages */
    span end;           /* where "missing ..." points */
} ccur;

void ccur_init(ccur *k, compiler *cc, const node *clause, const node *first, const node *stop, const char *usage);
bool ccur_done(const ccur *k);
/* `else "TEXT"` after a requirement: TEXT's string id, or -1 when there is
   none (an error when `else` is not followed by a string). */
int clause_else_text(ccur *k);
/* Is the next argument the bare word w (a name or connective)? */
bool ccur_is(const ccur *k, const char *w);
bool ccur_accept(ccur *k, const char *w);
/* Requires word w next; reports "expected 'w'" with the usage. */
bool ccur_expect(ccur *k, const char *w);
const node *ccur_take(ccur *k);
/* A bare name: its string id, or -1 after reporting. */
int ccur_name(ccur *k, const char *what);
bool ccur_int(ccur *k, const char *what, int64_t *out);
/* The same, from lo to hi: a number outside is an error at the number. */
bool ccur_int_in(ccur *k, const char *what, int64_t lo, int64_t hi, int64_t *out);
/* One of n words: its index, or -1 after reporting. */
int ccur_choice(ccur *k, const char *what, const char *const *words, int n);
/* The next argument as a value or formula of type `want` (TY_ANY: any). */
bool ccur_expr(ccur *k, const fctx *fx, sty want, const char *what, rexpr *out);
void ccur_skip_commas(ccur *k);
/* Reports any argument left over. */
void ccur_end(ccur *k);
/* An error at the next argument (or the clause's end), with the usage. */
void ccur_error(ccur *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- declarations ----------------------------------------------------------- */

/* One clause word a declaration accepts. */
typedef struct decl_state decl_state;
typedef void (*clause_fn)(decl_state *ds, const node *clause, ccur *k);
typedef struct clause_rule {
    const char *word;
    const char *usage;
    clause_fn fn;
    bool takes_block; /* the clause may have a { block } */
} clause_rule;

struct decl_state {
    compiler *cc;
    const node *dn; /* the DECL node */
    decl *d;        /* its record (may move: use decl_index) */
    int decl_index;
    decl_kind kind;
    bool overrides;
    fctx fx; /* names the declaration's formulas see */
    origin from;
    int clause_cite;    /* the last citation seen in the block, or -1: it cites the clauses after it */
    int object;         /* index of the rules object being filled, or -1 */
    bool skip_header;   /* the header is not clauses (system) */
    const node *header; /* first header argument that is a clause */
    const char *label;  /* "action strike", for messages and the chunks' names */
};

/* Runs each clause of the header and the body through rules; statements
 * go to *stmts_seen (or are an error if NULL). The citation goes to
 * ds->from.cite. */
void decl_clauses(decl_state *ds, const clause_rule *table, int nrules, bool *stmts_seen);

/* `internal`, a clause of stat and resource alike: the rules' own
   bookkeeping, which rules read as any stat but no display shows. */
#define STAT_INTERNAL_USAGE "internal (the rules' own bookkeeping: never shown to a GM)"
void stat_internal(decl_state *ds, const node *clause, ccur *k);

/* The clauses each declaration accepts, by kind (space: two kinds); the
   vocabulary (vocabulary.c) lists them for `fray help`. */
extern const clause_rule system_clauses[];
extern const int system_nclauses;
extern const clause_rule stat_clauses[];
extern const int stat_nclauses;
extern const clause_rule action_clauses[];
extern const int action_nclauses;
extern const clause_rule check_clauses[];
extern const int check_nclauses;
extern const clause_rule trigger_clauses[];
extern const int trigger_nclauses;
extern const clause_rule ruling_clauses[];
extern const int ruling_nclauses;
extern const clause_rule resource_clauses[];
extern const int resource_nclauses;
extern const clause_rule economy_clauses[];
extern const int economy_nclauses;
extern const clause_rule exchange_clauses[];
extern const int exchange_nclauses;
extern const clause_rule condition_clauses[];
extern const int condition_nclauses;
extern const clause_rule bonus_clauses[];
extern const int bonus_nclauses;
extern const clause_rule relation_clauses[];
extern const int relation_nclauses;
extern const clause_rule grid_clauses[];
extern const int grid_nclauses;
extern const clause_rule zones_clauses[];
extern const int zones_nclauses;
extern const clause_rule range_clauses[];
extern const int range_nclauses;
extern const clause_rule initiative_clauses[];
extern const int initiative_nclauses;
extern const clause_rule round_clauses[];
extern const int round_nclauses;
extern const clause_rule encounter_clauses[];
extern const int encounter_nclauses;
extern const clause_rule duration_clauses[];
extern const int duration_nclauses;
extern const clause_rule track_clauses[];
extern const int track_nclauses;
extern const clause_rule period_clauses[];
extern const int period_nclauses;

/* Each kind's compiler (decl_*.c). */
void decl_economy(decl_state *ds);
void decl_exchange(decl_state *ds);
void decl_initiative(decl_state *ds);
void decl_round(decl_state *ds);
void decl_encounter(decl_state *ds);
void decl_duration(decl_state *ds);
void decl_condition(decl_state *ds);
void decl_bonus(decl_state *ds);
void decl_relation(decl_state *ds);
void decl_action(decl_state *ds);
void decl_check(decl_state *ds);
void decl_trigger(decl_state *ds);
void decl_ruling(decl_state *ds);
void decl_tactic(decl_state *ds);
void decl_space(decl_state *ds);
void decl_range(decl_state *ds);
void decl_item(decl_state *ds);
void decl_resource(decl_state *ds);
void decl_stat(decl_state *ds);
void decl_track(decl_state *ds);
void decl_period(decl_state *ds);

/* Periods (decl_period.c). The period a word names: turn, round (and, with
 * allow_long, encounter or a period the rules declare); PER_NONE when it
 * names none, reported if asked. */
period comp_period_of(compiler *cc, const node *word, bool allow_long, bool report);
/* A declared period's index by its word, singular or plural; -1. */
int comp_period_named(compiler *cc, const char *w);
/* Reports w, found where a period was wanted, with the closest one. */
void comp_period_unknown(compiler *cc, span at, const char *w);

/* Shared clause pieces. */
/* `per turn|round|encounter|...` after the word `per` has been read. */
period ccur_period(ccur *k, bool allow_long);
/* `N per PERIOD` (a limit): false after reporting a mistake. */
bool ccur_times_per(ccur *k, const char *what, bool allow_long, int *n, period *per);
/* `costs a + 2 * b or c`: one node (an expression of names) to a cost. */
void compile_cost(compiler *cc, const node *e, cost *out);
/* The same, its amounts (`15 ft`) of the resource named by `of`. */
void compile_cost_of(compiler *cc, const node *e, const node *of, cost *out);
/* A duration: a time value (`2 rounds`, a named duration) or the words
 * `until start|end of [next] turn|round`. */
bool ccur_duration(ccur *k, const fctx *fx, rexpr *out);
/* `when EXPR` / `unless EXPR` (optional): fills e and *negate. */
void ccur_when(ccur *k, const fctx *fx, rexpr *e, bool *negate);

#endif
