/* compile: source files and strings -> program. Compiling adds to an
 * existing program, so rules files, imports, scripts, REPL lines and
 * `fray eval` expressions build one program step by step. */
#ifndef FRAY_COMPILE_H
#define FRAY_COMPILE_H

#include <stdbool.h>

#include "lang/diag.h"
#include "runtime/core/program.h"

/* A file the compiler would read: the file compiled, an import, or a
 * candidate for a `use` module (tried in the order of the search path;
 * ENOENT tries the next). */
typedef struct compile_read {
    const char *path;      /* as the compiler names it: in diagnostics, and the base of its own imports */
    const char *within;    /* the directory it must stay inside (symbolic links resolved); NULL: a file
                              the user named */
    const char *module;    /* a `use` looking on the search path or in the installed library: the
                              module's name; else NULL */
    const char *served_as; /* set by a reader that serves the module from another path (one kept
                              when another search path found it): that path, kept by the reader */
} compile_read;

struct compile_options;
/* Reads a file for the compiler compiling with opts: 0 with its text
 * (mem_alloc'd, *len + 1 bytes, NUL-terminated), or an errno value
 * (ENOENT: no such file), a FIO_ERR_ code or FILES_ERR_OUTSIDE
 * (lang/files.h). */
typedef int (*compile_read_fn)(void *user, const struct compile_options *opts, compile_read *rq, char **text,
                               size_t *len);

typedef struct compile_options {
    const char *const *search_path; /* after the file's own directory */
    size_t npaths;
    bool syntax_only; /* parse and report syntax errors only */
    /* `use NAME` in the file compiled (not in its modules) loads this
       instead, a file (with a '/' or ending in .rules) or a module by name:
       a scenario played under another rule system (`fray sim --vs`). */
    const char *use_instead_name, *use_instead_path;
    /* Set when use_instead_name was met and replaced (NULL: not told). */
    bool *use_instead_taken;
    /* The most dice a literal may roll and sides a die may have (0: the
       defaults, DICE_DEFAULT_COUNT and DICE_DEFAULT_SIDES): limits, so a
       literal past one is an error that names it. */
    int max_dice, max_sides;
    /* The longest string literal, in bytes (0: STRING_DEFAULT_BYTES). */
    int max_string;
    /* Every file the compiler reads comes through `read` (NULL: from disk,
       as compile_read_disk reads it): a session serves the files an entry
       read from what it kept. */
    compile_read_fn read;
    void *read_user;
    /* The longest file read, in bytes (0: COMPILE_DEFAULT_READ): the memory
       one command may take (--limit memory=N). */
    size_t max_read;
    /* Imports and modules may be symbolic links that lead out of their
       directory (--follow-symlinks). */
    bool follow_symlinks;
    /* How deep brackets, blocks and operators may nest (0: NESTING_DEFAULT). */
    int max_nesting;
    /* The memory one compile may add, in bytes (0: MEM_DEFAULT_BUDGET), as
       a command may (--limit memory=N): the parse, its tree and the code. */
    size_t max_memory;
    /* The creature whose turn it is (NULL: none), for a play command typed
       without its actor: the error says whose command it could be. */
    const char *turn_of;
    /* Commands typed one at a time (the REPL): a creature line that makes
       a new side says so. */
    bool typed;
    /* Of the overrides written in the file of this name (a variant), only
       the one of this kind (a decl_kind) and name is compiled (name NULL:
       the kind's one declaration, as `override initiative`); the others
       are left out as if not written, so that a variant's changes can be
       tried one at a time (`fray diff`: the effect of each). */
    const char *only_override_file;
    int only_override_kind;
    const char *only_override_name;
} compile_options;

#define COMPILE_DEFAULT_READ ((size_t)1 << 30)

/* Reads rq's file from disk with the options' limit and symbolic-link
 * rule (what the compiler does without a reader of its own). */
int compile_read_disk(const compile_options *opts, compile_read *rq, char **text, size_t *len);

/* Each returns the number of errors reported to sink (0 = success). On
 * error the program may hold partial declarations; callers that need the
 * state unchanged compile into a scratch program first. */
int compile_file(program *p, const char *path, diag_sink *sink, const compile_options *opts);
int compile_string(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                   const compile_options *opts);
/* Compiles the text of a rules file read by the caller, named path: as
 * compile_string, but text that is not rules text (UTF-8 without NUL
 * bytes) is refused whole, with one error at its first bad byte that does
 * not show the line. */
int compile_file_text(program *p, const char *path, const char *text, size_t len, diag_sink *sink,
                      const compile_options *opts);
/* compile_string, or compile_file_text when as_file, for a caller that
 * must know whether the program changed: when the text is refused before
 * any of it is compiled (it is not rules text, or does not parse), the
 * program is left exactly as it was and *unchanged is set (when unchanged
 * is not NULL). */
int compile_or_nothing(program *p, const char *name, const char *text, size_t len, bool as_file, diag_sink *sink,
                       const compile_options *opts, bool *unchanged);
/* Compiles one expression into a formula chunk (evaluated for `self`) and
 * stores its index in *chunk_out. */
int compile_expression(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                       const compile_options *opts, int *chunk_out);
/* The same, but the chunk computes the exact distribution of the
 * expression (as prob() and dist() do) instead of rolling its dice. */
int compile_distribution(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                         const compile_options *opts, int *chunk_out, bool *yes_no);
/* (*yes_no: whether the expression is a yes or no, a comparison: its
   distribution is of 0 and 1, and what is asked of it is how likely it is
   to hold.) */
/* The same, but every die is rolled where it appears: one sample of the
 * distribution compile_distribution computes. */
int compile_sample(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                   const compile_options *opts, int *chunk_out);

/* The arena a parse of text builds its tree in, holding strings and
 * nesting to the options' limits (--limit string-bytes=N, nesting=N). */
struct ast_arena *compile_arena(const compile_options *opts);
/* A program holding only the modules the text src uses or imports, loaded
 * quietly (NULL when it uses none, or out of memory): the periods they
 * declare, for a reading of src that does not compile it (`fray fmt`). */
program *compile_modules_of(const source *src, const compile_options *opts);

/* The module built into fray whose name is closest to name, a typo or
 * two away; NULL when none is. */
const char *compile_module_like(const char *name);
/* Whether `use NAME` finds a module: on the search path, or built in. */
bool compile_module_exists(const char *name, const compile_options *opts);

#endif
