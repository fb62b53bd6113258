/* compile: source files and strings -> program. Compiling adds to an
 * existing program, so rules files, imports, scripts, REPL lines and
 * `fray eval` expressions build one program step by step. */
#ifndef FRAY_COMPILE_H
#define FRAY_COMPILE_H

#include <stdbool.h>

#include "lang/diag.h"
#include "runtime/program.h"

typedef struct compile_options {
    const char *const *search_path; /* after the file's own directory */
    size_t npaths;
    bool syntax_only; /* parse and report syntax errors only */
    /* `use NAME` in the file compiled (not in its modules) loads this
       instead, a file (with a '/' or ending in .rules) or a module by name:
       a scenario played under another rule system (`fray sim --vs`). */
    const char *use_instead_name, *use_instead_path;
    /* The most dice a literal may roll and sides a die may have (0: the
       defaults, DICE_DEFAULT_COUNT and DICE_DEFAULT_SIDES): limits, so a
       literal past one is an error that names it. */
    int max_dice, max_sides;
    /* The longest string literal, in bytes (0: STRING_DEFAULT_BYTES). */
    int max_string;
    /* How deep brackets, blocks and operators may nest (0: NESTING_DEFAULT). */
    int max_nesting;
    /* The memory one compile may add, in bytes (0: MEM_DEFAULT_BUDGET), as
       a command may (--limit memory=N): the parse, its tree and the code. */
    size_t max_memory;
} compile_options;

/* Each returns the number of errors reported to sink (0 = success). On
 * error the program may hold partial declarations; callers that need the
 * state unchanged compile into a scratch program first. */
int compile_file(program *p, const char *path, diag_sink *sink, const compile_options *opts);
int compile_string(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                   const compile_options *opts);
/* Compiles one expression into a formula chunk (evaluated for `self`) and
 * stores its index in *chunk_out. */
int compile_expression(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                       const compile_options *opts, int *chunk_out);
/* The same, but the chunk computes the exact distribution of the
 * expression (as prob() and dist() do) instead of rolling its dice. */
int compile_distribution(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                         const compile_options *opts, int *chunk_out);
/* The same, but every die is rolled where it appears: one sample of the
 * distribution compile_distribution computes. */
int compile_sample(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                   const compile_options *opts, int *chunk_out);

/* The arena a parse of text builds its tree in, holding strings and
 * nesting to the options' limits (--limit string-bytes=N, nesting=N). */
struct ast_arena *compile_arena(const compile_options *opts);

/* Resolves `use NAME` to a file: NAME.rules in the importing file's
 * directory, then each search path entry, then the built-in stdlib. */
bool compile_find_module(const char *name, const char *from_dir, const compile_options *opts, char *out, size_t cap);
/* Whether `use NAME` finds a module: on the search path, or built in. */
bool compile_module_exists(const char *name, const compile_options *opts);

#endif
