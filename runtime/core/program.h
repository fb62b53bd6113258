/* program: what the compiler produces and the VM runs: named declarations,
 * the typed rules tables they compile to (rules.h), bytecode chunks for
 * every formula and body, and the script's commands in order. */
#ifndef FRAY_PROGRAM_H
#define FRAY_PROGRAM_H

#include <stdbool.h>

#include "runtime/base/source.h"
#include "runtime/core/chunk.h"
#include "runtime/dice/dice.h"
#include "runtime/core/keymap.h"

/* A dice expression: a signed sum of dice terms and constants, small and
 * fixed-size so that building and rolling one never allocates. */
#define DEXPR_MAX_TERMS 8
typedef struct dterm {
    dice d;
    int32_t sign;  /* +1 or -1 */
    int32_t times; /* scale factor for `k * dice` */
    bool is_constant;
    int64_t constant;
} dterm;
typedef struct dexpr {
    uint8_t nterms;
    /* Set by the compiler on the program's literal sums whose dice are all
     * plain (count, sides and keep/drop only, each term once), few (at most
     * DICE_PACKED_MAX) and small (their faces, each less one in
     * dice_face_bits of its die, fit in 32 bits), and whose constants are
     * far from overflowing: a roll of it keeps its faces in its own value
     * (see ROLL_PACKED in vm.c). Read only where the program's own
     * expression is rolled (ROLL_CONST). */
    bool packed;
    /* and when that packed sum is one die, kept, and constants (`d20 + 5`,
     * not `1d20dl1`): the die's sides, so that it rolls with no look at
     * its terms; else 0 */
    int32_t packed_die;
    /* or one pool, added, that keeps all or drops one (`4d6kh3 + 2`): its
     * plan (count 0 otherwise) */
    dice_plan packed_plan;
    /* for either of those two: the constants' sum */
    int64_t plain_offset;
    dterm terms[DEXPR_MAX_TERMS];
} dexpr;

typedef struct decl {
    decl_kind kind;
    int name; /* string id, -1 when unnamed */
    span where;
    int cite;   /* string id of the § citation, -1 if none */
    int value;  /* chunk of `= expr` (stat default, range, duration), or -1 */
    int body;   /* chunk of the statement body (action, procedure), or -1 */
    int type;   /* stat: static type (compiler's); enum: enum id */
    int system; /* index of the system that declared it */
    int nparams;
    int object; /* index in its rules table (condition, action, ...), or -1 */
    bool overrides;
    bool internal; /* stat or resource: the rules' own bookkeeping, never shown to a GM */
} decl;

typedef struct enum_info {
    int name;     /* string id */
    int *members; /* string ids */
    int nmembers;
} enum_info;

/* Sources and chunks kept alive for several programs at once (a program
 * and its copies): one reference to each, and to the keep before it. */
typedef struct program_keep program_keep;

typedef struct program {
    /* sources[i] and chunks[i] below kept_sources and kept_chunks are kept
       by `kept` (shared with copies); from there on they are the
       program's own, one reference each */
    program_keep *kept;
    size_t kept_sources, kept_chunks;
    /* its sources, chunks and commands are those its keep holds, and it
       has no arrays of them (program_clone_kept): it is only copied */
    bool only_kept;
    source **sources;
    size_t nsources, sources_cap;
    uint64_t source_bytes; /* of every source ever added: the work of compiling it all again */

    char **strings; /* interned; ids are indices */
    size_t nstrings, strings_cap;
    int32_t *string_hash; /* open addressing over ids, -1 empty */
    size_t hash_cap;

    dexpr *dice;
    size_t ndice, dice_cap;

    chunk **chunks;
    size_t nchunks, chunks_cap;

    decl *decls;
    size_t ndecls, decls_cap;
    keymap decl_by_name;  /* (kind, name) -> the latest such decl */
    keymap decl_by_place; /* (source, start, kind) -> the decl written there */
    bool decls_unindexed; /* the maps ran out of memory: lookups scan */

    enum_info *enums;
    size_t nenums, enums_cap;

    int *globals; /* string ids of script variables, by slot */
    size_t nglobals, globals_cap;
    bool *global_typed; /* by slot: declared by a command typed at the table, not by a file */
    size_t global_typed_cap;

    int *commands; /* chunks run in order by `fray run` */
    size_t ncommands, commands_cap;

    int *modules; /* string ids of the paths already loaded, so each loads once */
    size_t nmodules, modules_cap;

    int system_name;  /* string id or -1 */
    int system_title; /* string id or -1 */
    int system_base;  /* string id of the system it extends, or -1 */

    struct rules *rules;
} program;

program *program_new(void);
/* A copy of p, its own: sources, strings, code and rules; NULL when out of
 * memory. */
program *program_clone(const program *p);
/* A rebuild's copy, which a copy of a long session's context would spend
 * most of its time on copying arrays as long as the session: when
 * program_arrays_shared(from, spare), spare's arrays of sources, chunks
 * and commands begin with from's, so a copy of from made without them
 * (program_clone_part(from, false)) takes them from spare, cut to from's
 * length (program_take_arrays), and spare, left with none, is freed. */
program *program_clone_part(const program *from, bool arrays);
/* A copy of p (settled, with nothing compiled since) that holds its
 * sources, chunks and commands through the keep it shares with p alone,
 * with no arrays of them: made at no cost as long as the session, and
 * only ever copied (program_clone and program_clone_part make the copy's
 * arrays from the keeps then), never compiled into or run. Otherwise as
 * program_clone. */
program *program_clone_kept(const program *p);
bool program_arrays_shared(const program *from, const program *spare);
void program_take_arrays(program *p, const program *from, program *spare);
/* Hands the sources and chunks p holds of its own to a keep shared with
 * its copies, so that copying p later costs no reference per source and
 * chunk (a session copies a long one often). Never fails: out of memory,
 * p stays as it was. Not while another thread copies p. */
void program_settle(program *p);
void program_free(program *p);

/* Adds a script variable named by string id `name` (typed: declared by a
 * command typed at the table); returns its slot or -1 out of memory. */
int program_add_global(program *p, int name, bool typed);
/* Adds a source; returns its index or -1. The program takes ownership. */
int program_add_source(program *p, source *s);
/* Interns a string; returns its id or -1 when out of memory. */
int program_intern(program *p, const char *s, size_t len);
int program_find_string(const program *p, const char *s);
const char *program_string(const program *p, int id);
int program_add_chunk(program *p, chunk *c);
/* Frees the sources and chunks added since the program had `nsources` and
 * `nchunks` of them: for one-off expressions that leave nothing behind
 * (a distribution, a sample), so that a long session does not pile them
 * up. The caller makes sure nothing refers to them any more. */
void program_release(program *p, size_t nsources, size_t nchunks);
int program_add_dice(program *p, const dexpr *d);
decl *program_add_decl(program *p, decl_kind kind, int name, span where);
/* Latest declaration of that kind and name (overrides win), or NULL. */
const decl *program_find_decl(const program *p, decl_kind kind, int name);
/* The decl of this kind written at `where` (its first pass made it), or
 * NULL. */
decl *program_decl_at(program *p, decl_kind kind, span where);
int program_decl_index(const program *p, const decl *d);

#endif
