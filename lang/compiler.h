/* compiler: internal state shared by compile.c (files, imports, the item
 * loop), compile_decl.c (declarations and clauses) and compile_expr.c
 * (expressions and statements). */
#ifndef FRAY_COMPILER_H
#define FRAY_COMPILER_H

#include "lang/compile.h"
#include "lang/parse.h"
#include "runtime/base/mem.h"

/* Static types: what the compiler knows of a value before it exists. */
typedef enum {
    TY_ANY,
    TY_NIL,
    TY_BOOL,
    TY_NUM,
    TY_DIST,
    TY_TIME,
    TY_DICE,
    TY_ROLL,
    TY_STR,
    TY_ENUM,
    TY_CREATURE,
    TY_LIST,
    TY_WORD,
    TY_DISTRIB,
    TY_ITEM,
    TY_SQUARE,
} sty;

const char *sty_name(sty t);

#define MAX_LOCALS 200 /* per chunk; slots are a u8 operand */
#define MAX_IMPORT_DEPTH 32

typedef struct local {
    int name;  /* string id */
    int depth; /* block depth where declared */
    sty type;
} local;

typedef struct fn_state {
    chunk *c;
    local locals[MAX_LOCALS];
    int nlocals;
    int depth;
    bool top_level; /* script commands: `let` makes a script variable */
} fn_state;

typedef struct compiler {
    program *p;
    diag_sink *sink;
    const compile_options *opts;
    const source *src;
    uint32_t src_index;
    fn_state *fn;
    const char *dir; /* directory of the file being compiled */
    const char *importing[MAX_IMPORT_DEPTH];
    int nimporting;
    bool oom;
    bool items_compiled; /* a parse got through to compile_items */
    int dist_mode;       /* inside prob(), mean(), dist(): dice become distributions */
    bool roll_mode;      /* sampling: every die is rolled where it appears */
    int system;          /* index of the current system declaration or -1 */
    mem_budget outer;    /* the memory budget in force before the compile's own */
    sty *global_types;   /* parallel to p->globals */
    size_t global_types_cap;
} compiler;

void comp_error(compiler *cc, span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void comp_note(compiler *cc, span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int comp_intern(compiler *cc, const char *s);
/* An item of the file left out by the options' only_override_file. */
bool comp_left_out(const compiler *cc, const node *item);

/* Emitting. */
void emit_byte(compiler *cc, uint8_t b, span sp);
void emit_op(compiler *cc, opcode op, span sp);
void emit_op_u8(compiler *cc, opcode op, uint8_t a, span sp);
void emit_op_u16(compiler *cc, opcode op, int a, span sp);
void emit_const(compiler *cc, value v, span sp);
size_t emit_jump(compiler *cc, opcode op, span sp);
void patch_jump(compiler *cc, size_t at);
void emit_loop(compiler *cc, size_t target, span sp);

/* Opens a chunk for a body or formula; close returns its program index. */
void fn_begin(compiler *cc, fn_state *fs, chunk_kind kind, const char *name, span where);
int fn_end(compiler *cc, fn_state *fs, span where);
int fn_add_local(compiler *cc, int name, sty type, span sp);

/* Expressions and statements (compile_expr.c). */
sty compile_expr(compiler *cc, const node *e);
/* The type an action parameter's kind word names (`dest: square`). */
sty parameter_type(compiler *cc, const node *t);
void compile_stmt(compiler *cc, const node *s);
void compile_block(compiler *cc, const node *block);
bool is_statement(const node *n);
/* Does this bare name resolve to something an expression can use? */
bool name_resolves(compiler *cc, const char *name);
/* Whether arg, an argument of a builtin of tracks written as a bare name
   that is no local, names a track; absorb(c, TRACK, hit, "NAME") giving a
   name to a box of a track that takes none is refused there (decl_track.c). */
bool track_arg(compiler *cc, const node *call, const node *arg);
/* Whether it names a stat and nothing else an expression could mean (a
   local, a global, an enum member, an item, a creature). */
bool name_only_a_stat(compiler *cc, const char *name);
bool creature_declared(compiler *cc, const char *name);
/* What a term is called in a roll's breakdown: `a.bab` is "bab"; a string
 * id, or 0xffff for a literal that shows itself. */
int expr_label(compiler *cc, const node *t);
/* Resources that count a unit (compile_units.c): a value of the wrong
   kind assigned to one is an error; a resource named as a walk's limit is
   passed as its word, to be spent. */
void resource_assign_fits(compiler *cc, const decl *d, sty t, span at);
bool compile_walk_budget(compiler *cc, const char *fn, const node *a);
/* `let NAME = E in BODY` (compile_let.c). */
sty compile_let_in(compiler *cc, const node *e);
/* Dice written as such: `d20`, `2d6 + 3`, `2*d8` (compile_dice.c), and a
   list literal of them, `[d4, d6]`. */
bool expr_dice_written(const node *a);
bool expr_dice_list_written(const node *a);
/* Builds a dice expression value for a DICE literal; reports errors. */
bool dice_literal(compiler *cc, const node *n, value *out);

/* Declarations (compile_decl.c and decl_*.c) and commands (compile_cmd.c). */
void declare_names(compiler *cc, const node *program);
void compile_decl(compiler *cc, const node *d);
void compile_command(compiler *cc, const node *cmd);
/* A text whose every line starts with a word that names no command (a
   misspelt command): each is reported as compile_command would, and
   nothing is compiled, so the program stays as it was; true then. */
bool compile_unknown_words_only(compiler *cc, const node *prog);
/* `self: attack t` inside a body. */
void compile_act_stmt(compiler *cc, const node *s);
/* A play command a body may hold as a statement (`hold self strike t on
   moved(t)` in an action, `apply stunned to t` in a trigger): one that
   changes the state of play without starting or ending a part of it. */
bool cmd_in_body(const node *n);
void compile_body_command(compiler *cc, const node *s);
/* Says why a play command cannot stand in a body; false (nothing said)
   when s is no play command. */
bool cmd_not_in_body(compiler *cc, const node *s);
bool stat_is_derived(compiler *cc, const decl *d);
/* A play command's words checked where they are written (cmd_check.c),
 * each false (or void) after reporting what is wrong. A creature named by
 * a bare name: one that plays (not a group's name, not a typo). */
bool cmd_creature_known(compiler *cc, const node *a);
/* An argument of any kind: a group's name, or a word no one declared that
   is close to a creature's name, is taken for a creature mistyped. */
bool cmd_arg_known(compiler *cc, const node *a);
/* The creature name closest to name, if one is close (out: SUGGEST_MAX + 1
   bytes). */
bool cmd_creature_like(compiler *cc, const char *name, char *out);
/* Whether name is that of a group (`creature wolf x3`), which no one plays. */
bool cmd_names_group(compiler *cc, const char *name);
/* argc arguments for action ai: not more than its parameters, every
   parameter that says what it takes given, and for a command its target
   when it has a `target` clause (reported at end). */
bool cmd_action_count(compiler *cc, int ai, const node *action, int argc, bool command, span end);
/* The value types (a bit per value_type) of a static type. */
uint32_t sty_values(sty t);
/* Argument i, of static type `type`, is what its parameter takes: the
   target clause's for the first of a command, the parameter's kinds. */
bool cmd_arg_kind(compiler *cc, int ai, const node *action, const node *arg, int i, bool command, sty type);
/* What argument i of action ai takes (r_action.takes; 0: anything). */
uint32_t cmd_arg_takes(compiler *cc, int ai, int i);
/* Whether argument i of action ai takes a creature (the target of a
   command, or a parameter of kind creature). */
bool cmd_arg_is_creature(compiler *cc, int ai, int i, bool command);
/* An actor's action that is none; a play command word typed after an actor. */
void cmd_unknown_action(compiler *cc, const node *action, const char *actor);
/* A name that should be a declared thing of kind (or also) and is none:
   "no WHAT 'NAME'" at `at`, with the one of that kind it may be. */
void cmd_no_such(compiler *cc, span at, const char *name, const char *what, decl_kind kind, decl_kind also);
/* The declared name of kind `kind` (or `also`) closest to name, mistyped,
   into out (SUGGEST_MAX + 1 bytes); "" when none is close. */
/* The library module (stdlib/) whose procedure this is, or NULL: for an
   unknown function, where a `use` is what is missing. */
const char *comp_library_module_of(const char *procedure);
const char *comp_decl_like(compiler *cc, const char *name, decl_kind kind, decl_kind also, char *out);
/* A line whose first word is no declaration or command. */
void cmd_unknown_word(compiler *cc, const node *cmd);
/* A creature line names a side no creature had yet. */
void cmd_new_side(compiler *cc, const node *name);
/* The string ids a "did you mean" can suggest for a name in expressions. */
const char *suggest_name(compiler *cc, const char *name);

/* Builtin functions: name, min and max arguments. */
typedef struct builtin {
    const char *name;
    int min_args, max_args;
    sty result;
    const char *params;  /* one letter per parameter: builtins.def */
    const char *meaning; /* "name(a, b): ...", its form first */
} builtin;
extern const builtin builtins[];
extern const int nbuiltins;
int builtin_find(const char *name);

/* A count of a period the rules declare (`2 scenes`, a QTY node whose unit
 * is no built-in one) as a time value; false after reporting the word as
 * an unknown unit or period (decl_period.c). */
bool comp_period_count(compiler *cc, const node *n, value *out);

#endif
