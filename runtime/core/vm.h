/* vm: the interpreter. It runs chunks of bytecode over values, dice and
 * lists, within the limits of a command; the state of play it runs in is
 * a world the combat layer attaches (v->world, reached only through
 * v->world_ops). One vm per session; nothing is global, so a process may
 * hold many (tests, fuzzing, an embedding host). */
#ifndef FRAY_VM_H
#define FRAY_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/base/text.h"
#include "runtime/core/builtins.h"
#include "runtime/core/rules.h"
#include "runtime/dice/dist.h"
#include "runtime/dice/forced.h"
#include "runtime/core/program.h"
#include "runtime/dice/rng.h"
#include "runtime/core/value.h"

/* Calls in progress at once: the most --limit depth takes. Calls made from
   C (a stat's formula, a trigger) recurse in C too, at most this deep. */
#define VM_FRAMES_MAX 256

typedef struct vm_limits {
    uint64_t steps;     /* instructions per top-level command */
    int call_depth;     /* nested procedure, formula and trigger calls */
    int creatures;      /* creatures alive at once */
    int effects;        /* effects (conditions, holds, timers) in force at once */
    size_t list_values; /* values held in lists */
    size_t dice_exprs;  /* dice expressions built at run time */
    size_t memory;      /* bytes one command may add (MiB in --limit) */
    int trigger_depth;  /* triggers setting off triggers */
    int fight_rounds;   /* rounds of a `fight` without an end */
    int dice, sides;    /* dice rolled by one term, and sides of a die */
    int string_bytes;   /* the longest string a rules file may write */
    int nesting;        /* levels of brackets, blocks and operators, and of lists in lists */
    dist_limits exact;  /* outcomes and work of an exact distribution */
} vm_limits;

extern const vm_limits vm_default_limits;

/* The limits by name, for --limit NAME=N and `fray help limits`. */
typedef struct vm_limit_info {
    const char *name;
    const char *meaning;
    uint64_t max; /* the largest value allowed */
} vm_limit_info;
extern const vm_limit_info vm_limit_infos[];
/* Sets a limit by name; false for an unknown name or a value out of range. */
bool vm_limit_set(vm_limits *l, const char *name, uint64_t value);
uint64_t vm_limit_get(const vm_limits *l, const char *name);
/* The most a limit takes (it takes from 1), or 0 for no such limit. */
uint64_t vm_limit_most(const char *name);

/* The breakdowns of the latest rolls, kept in rings so that a long loop of
 * rolls uses bounded memory; a roll whose record was overwritten still has
 * its total and natural die, only not its faces. */
#define VM_ROLL_RING 1024
#define VM_ROLL_RING_FIRST 64 /* a small fight's worth, so a new VM starts cheap */
_Static_assert((VM_ROLL_RING & (VM_ROLL_RING - 1)) == 0 && (VM_ROLL_RING_FIRST & (VM_ROLL_RING_FIRST - 1)) == 0,
               "the roll ring doubles from VM_ROLL_RING_FIRST to VM_ROLL_RING and is indexed by a mask");
#define VM_FACE_RING 65536

/* A labelled number in a check's roll: `bab 5`, a modifier `flanking 1`. */
#define ROLL_MAX_EXTRA 24
typedef struct roll_extra {
    int32_t label;     /* string id, or -1 */
    int32_t condition; /* the condition it comes from, or -1 */
    int64_t amount;
} roll_extra;

/* What every roll writes, kept small (one cache line) because a roll
 * writes a fresh one each time; the bulky parts, which most rolls do not
 * need, live in a roll_detail at the same place of a parallel ring. The
 * program's small plain sums (`d20 + 5`, `4d6kh3`) write no record: their
 * faces fit in the roll's value (see ROLL_PACKED in vm.c). */
typedef struct roll_record {
    uint64_t seq;        /* which roll this record holds */
    uint64_t face_pos;   /* faces written before this roll's first face */
    uint32_t face_start; /* where its first face is */
    uint16_t term_faces[DEXPR_MAX_TERMS];
    int32_t program_expr; /* >= 0: the expression is the program's dice[program_expr]; else in the detail */
    int32_t check;        /* the check it was for, or -1 */
    int64_t total;
    uint8_t nextra;
} roll_record;

typedef struct roll_detail {
    dexpr expr; /* a copy (the terms in use) of an expression not in the program */
    roll_extra extra[ROLL_MAX_EXTRA];
} roll_detail;

typedef struct vm_list {
    uint32_t start, len;
    uint32_t depth; /* 1, and one more for each list nested in it: never past --limit nesting */
} vm_list;

typedef struct vm_store {
    dexpr *dice;
    size_t ndice, dice_cap;
    value *items;
    size_t nitems, items_cap;
    vm_list *lists;
    size_t nlists, lists_cap;
    struct dist **dists; /* owned; freed when the store is reset */
    size_t ndists, dists_cap;
    char *chars; /* strings built at run time, each NUL-terminated */
    size_t nchars, chars_cap;
    size_t *strs; /* where each string starts in chars */
    size_t nstrs, strs_cap;
} vm_store;

typedef struct frame {
    const chunk *c;
    const uint8_t *ip;
    value *base;
    int self;         /* creature index, -1 for none */
    const span *call; /* where it was called from (a call in a chunk, or its own chunk's `where`) */
} frame;

/* What the interpreter asks of the world it runs in. The core knows
 * creatures only as numbered values and the state of play not at all: the
 * combat layer registers these calls when it makes a vm with its world
 * (world_open, runtime/combat/world.h), and every opcode that touches play
 * goes through one of them. Each returns false with the error set
 * (vm_error), unless it says otherwise. */
struct vm;
typedef struct vm_world_ops {
    /* creatures: by name (-1: none), their name, a member `c.name` or
       `c.side` (false, with no error, for no such member) */
    int (*find_creature)(const struct vm *v, const char *name);
    const char *(*creature_name)(const struct vm *v, int c);
    bool (*creature_member)(struct vm *v, int c, const char *member, value *out);
    /* stats: read (with what modifies them), set, and echoed to the
       transcript (`c.hp = 7` typed at the table) */
    bool (*get_stat)(struct vm *v, int c, int decl_index, value *out);
    bool (*set_stat)(struct vm *v, int c, int decl_index, value x, span at);
    bool (*echo_stat)(struct vm *v, int c, int decl_index, span at);
    /* a stat a side holds (`party.pool`), the side a word: read, or set
       to *set when set is not NULL */
    bool (*side_stat)(struct vm *v, value side, int decl_index, const value *set, value *out, span at);
    /* the declaration that stands for d (its latest override) */
    const struct decl *(*standing)(struct vm *v, int d);
    /* a line the rules print, an event, a play command, a ruling, an
       action taken, a check rolled, a roll compared, a builtin of play */
    void (*print)(struct vm *v, const char *line);
    bool (*emit)(struct vm *v, int event, const value *args, int n, span at);
    bool (*command)(struct vm *v, int cmd, int operand, span at);
    bool (*ruling)(struct vm *v, int ruling, int self, value *out, span at);
    bool (*act)(struct vm *v, int c, int action, const value *args, int argc, bool *allowed, span at);
    bool (*check)(struct vm *v, int check, const value *args, int argc, value *out, span at);
    bool (*compare)(struct vm *v, value a, int op, value b, int label, bool *result, span at);
    bool (*builtin)(struct vm *v, int id, value *args, int argc, span at, value *out);
    /* a program's commands: the world made ready for declarations that
       arrived (false: out of memory, no error set), then around each
       command: it begins, and it ended well (the state it left settled) */
    bool (*sync)(struct vm *v);
    void (*command_begins)(struct vm *v);
    bool (*command_ends)(struct vm *v, span at);
    /* a transcript line waiting for its roll is written now */
    void (*flush)(struct vm *v);
    /* whether play writes a transcript; sets it, giving what it was */
    bool (*quiet)(struct vm *v, bool quiet);
} vm_world_ops;

typedef void (*vm_print_fn)(void *user, const char *text);

/* What an exact context (vm_exact.c) saves of the one around it. */
struct vm_walk;
typedef struct vm_exact_saved {
    struct vm_walk *walk;
    rng_oracle *oracle;
} vm_exact_saved;

typedef struct vm {
    program *p;
    vm_limits limits;
    rng rng;
    uint64_t seed;

    value *sp; /* into stack, at the end */
    int nframes;
    int64_t steps_left; /* counted down by each instruction: below 0, it stops */

    value *globals;
    size_t globals_cap;

    roll_record *rolls;        /* roll_ring records, by seq % roll_ring */
    roll_detail *roll_details; /* and their details, likewise */
    dice_face *faces;          /* VM_FACE_RING faces */
    uint64_t roll_seq;         /* rolls made so far */
    size_t roll_ring;          /* records in the ring: grows to VM_ROLL_RING */
    int64_t force_face;        /* the next roll's first die shows this (a player's roll), or 0 */
    dice_forced forced;        /* faces queued for the next dice (`force`), rng.forced points here */
    uint64_t face_pos;         /* faces written so far */

    rules *r; /* the program's rules tables (p->rules) */
    /* the world the program plays in: what the combat layer attaches
       (runtime/combat/world.h), reached only through world_ops */
    struct world *world;
    const struct vm_world_ops *world_ops;

    /* Dice and lists built at run time. Scratch ones live for one top-level
       command; a value stored in a variable or a stat is copied to the
       kept store first, so memory stays bounded however long a session. */
    vm_store scratch, kept;

    /* Exact contexts (vm_exact.c): the arguments of prob(), mean(),
       dist(), maximum() and minimum() being computed, nested; the call
       being walked over its outcomes in the innermost, or NULL; and the
       oracle that refuses a roll made in one outside any walked call. */
    int exact_depth;
    struct vm_walk *walk;
    uint32_t walks; /* walks begun: each one's own mark on its arguments */
    rng_oracle no_draws;
    /* Reading for a display (vm_peek_begin): the exact context it is, or 0. */
    int peek_depth;

    /* The state of play's version: vm_play_changed counts every change a
       formula could read (a stat, a variable, an effect, a move, a turn,
       an answer, a line of the transcript...), so that what is worked out
       from the state (which conditions hold, who is out) is kept until the
       next one (runtime/combat/held.c). */
    uint64_t play_version;
    /* What the rules' formulas may do (reads_only.h), as last worked out:
       for the rules of that generation and that many chunks. */
    bool reads_known;
    uint8_t reads;
    uint32_t reads_generation;
    size_t reads_nchunks;

    /* output and errors */
    vm_print_fn print;
    void *print_user;
    /* Nothing reads what the rules print or show (a simulated run): a
       line is not written at all, and an error that only writing it would
       give (a text past its limit) is not given. */
    bool output_unread;
    /* An error sets failed and takes the step budget to 0, so that the one
       check every instruction makes (of the budget) stops at an error too;
       the budget comes back from steps_held if the error is cleared. */
    bool failed;
    int64_t steps_held;
    span error_at;
    text_buf error; /* what went wrong, whole (error.s) */
    /* An error that arose inside a library module is reported at the
       user's call into it (error_at); where it arose is error_inside, in
       the library's chunk error_in (NULL: it arose in the user's text). */
    span error_inside;
    const chunk *error_in;
    /* The instruction whose call into the world (a command, an action, a
       check, a builtin) is running, or NULL: a chunk the world calls
       (vm_call) was called from there, so that an error in a library it
       reaches is reported at the user's line that led to it. */
    const span *entry_at;

    /* Last, and not cleared when a VM is made: only what sp and nframes
       cover is ever read, and clearing these 70 KB was a few percent of
       each `fray sim` run. */
    value stack[VM_STACK_MAX];
    frame frames[VM_FRAMES_MAX];
    vm_exact_saved exact_saved[VM_FRAMES_MAX]; /* [0, exact_depth) */
} vm;

/* Something a formula could read has changed: what was worked out from
   the state of play before it is not to be used again. */
static inline void vm_play_changed(vm *v)
{
    v->play_version++;
}

vm *vm_new(program *p, uint64_t seed, const vm_limits *limits);
void vm_free(vm *v);
void vm_set_output(vm *v, vm_print_fn fn, void *user);

/* Runs every command of the program from `first` on. Returns false on a
 * runtime error (v->error, v->error_at). */
bool vm_run_commands(vm *v, size_t first);
/* Evaluates a chunk for creature `self` (-1 for none), with args. */
bool vm_call(vm *v, int chunk, int self, const value *args, int nargs, value *result);

/* Text of a value as the transcript shows it ("15 ft", "7/2", "2 rounds"),
 * snprintf-style, into buf: a list is written only as far as buf holds
 * (the length returned is then at least cap, not the whole text's). */
size_t vm_format(vm *v, value x, char *buf, size_t cap);
/* The same text appended to out, whole; only a list whose text passes
 * VM_FORMAT_MOST bytes stops there and says how many items it leaves out
 * (a list that holds another many times over could otherwise fill memory:
 * print, which must show all, uses vm_text_value under the step budget). */
#define VM_FORMAT_MOST 65536
void vm_format_text(vm *v, value x, text_buf *out);

/* The text of values for print and show, in a text_buf: whole, however
 * long. Each value written is a step of the command's budget, and the text
 * counts against its memory, so a list that holds another many times over
 * ends with the step limit, as an endless loop does. False on an error
 * (v->error; memory that runs out is one). */
bool vm_text_add(vm *v, text_buf *t, const char *s, span at);
bool vm_text_value(vm *v, text_buf *t, value x, span at);

/* Whether two values are equal, as `==` says: lists by value, item by
 * item (counted against the step budget and the nesting limit; false,
 * with the error at `at`, when one of them is passed). */
bool vm_values_equal(vm *v, value a, value b, span at, bool *equal);

/* The error convention. A runtime function that can fail returns bool:
 * false only when it failed, its error recorded here (in v->error) by
 * whoever met it first. Its answer, when it has one (a value, a yes or no,
 * a count), goes through an out-parameter, so a refusal or a "no" is never
 * mistaken for a failure. A caller that gets false returns false at once,
 * adding nothing (vm_error keeps the first error: the cause). v->failed is
 * not a channel for callers to test after a call: it is what vm_error sets
 * so that the dispatch loop, its single stop check, halts the command. */
/* Reports a runtime error at `at` and stops the current command. */
bool vm_error(vm *v, span at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Forgets the error (a cancelled action, an error reported and done with). */
void vm_clear_error(vm *v);

/* Rolls a dice value (or passes a number through) recording the faces. */
bool vm_roll(vm *v, value dice, span at, value *out);
/* The rings of rolls of from made to's own (a copy of the VM): every
 * record, and of the details and faces only what a record holds, since
 * nothing else of them is ever read (see roll_into): a copy costs what the
 * records hold, not the megabyte and a half of the rings. False out of
 * memory (vm_free frees what was taken). */
bool vm_rolls_copy(vm *to, const vm *from);
/* Rolls dice plus labelled numbers, as a check does; the record keeps
   them all for the breakdown. */
bool vm_roll_check(vm *v, const dexpr *dx, const roll_extra *extra, int nextra, int check, span at, value *out);
/* Adds a labelled number to a check's roll, its faces kept: a decision
   taken after the roll (`then add 2`). */
bool vm_roll_add(vm *v, value *roll, int32_t label, int64_t amount, span at);
/* The step budget of a command (or a turn): limits.steps, at most INT64_MAX. */
static inline int64_t vm_step_budget(const vm *v)
{
    return v->limits.steps > INT64_MAX ? INT64_MAX : (int64_t)v->limits.steps;
}
const roll_record *vm_roll_record(const vm *v, value roll);
/* The natural die of a roll (its first die kept), 0 for a number rolled. */
int vm_roll_natural(const vm *v, value roll);
/* "d20 (14) + bab 5 = 19": a roll's breakdown. */
size_t vm_format_roll(vm *v, value roll, char *buf, size_t cap);
const dexpr *vm_dexpr(const vm *v, value d);
/* Appends a scratch list (items NULL: n nothing values to fill in). */
bool vm_make_list(vm *v, const value *items, size_t n, span at, value *out);
const value *vm_list_items(const vm *v, value list, size_t *n);
/* A list gathered item by item, when its length is not known before (the
 * creatures that pass a test): it grows through the allocator, is held to
 * --limit list-values as it grows, and becomes a scratch list. */
typedef struct vm_gather {
    value *items;
    size_t n, cap;
} vm_gather;
bool vm_gather_add(vm *v, vm_gather *g, value x, span at);
/* The scratch list of what was gathered; the gathering is dropped either way. */
bool vm_gather_list(vm *v, vm_gather *g, span at, value *out);
void vm_gather_drop(vm_gather *g);
/* A scratch string of the len bytes at s, held to --limit string-bytes. */
bool vm_make_string(vm *v, const char *s, size_t len, span at, value *out);
/* The text of a string or word, wherever it lives ("" for anything else). */
const char *vm_string(const vm *v, value x);
/* A copy of x that outlives the command (kept dice and lists, a roll
 * without its breakdown). */
bool vm_keep(vm *v, value x, span at, value *out);
/* Starts a new top-level command: scratch dice and lists are dropped. */
/* A command's bounds: its steps, and the memory it may add (a ceiling
 * lifted again by vm_end_command). */
void vm_begin_command(vm *v);
void vm_end_command(vm *v);
/* A long command (a fight) drops, turn by turn, the scratch values made
   since the mark: what a turn keeps was copied by vm_keep, and the values
   made before the mark stay valid. */
typedef struct vm_mark {
    size_t ndice, nitems, nlists, ndists, nchars, nstrs;
} vm_mark;
vm_mark vm_scratch_mark(const vm *v);
void vm_scratch_release(vm *v, vm_mark m);

/* Distributions (vm_dist.c): exact probability of dice expressions. */
#define VM_DIST_EPSILON 1e-12
/* x as a distribution value (dice and numbers are converted). */
bool vm_distrib(vm *v, value x, span at, value *out);
/* The distribution of x: a distribution value, dice, or a number. */
bool vm_dist_of(vm *v, value x, span at, const struct dist **out);
/* Takes ownership of d and returns it as a scratch value. */
bool vm_dist_value(vm *v, struct dist *d, span at, value *out);
/* a OP b where either is a distribution (OP_ADD ... OP_GE). */
bool vm_dist_binary(vm *v, int op, value a, value b, span at, value *out);
bool vm_dist_choose(vm *v, value c, value t, value f, span at, value *out);
bool vm_dist_keep(vm *v, value x, span at, value *out);
/* Whether a distribution is among the args of builtin id, or among the
 * items of a list among them where the builtin reads them as numbers. */
bool vm_dist_among(const vm *v, int id, const value *args, int argc);
/* Builtin `id` (called `name`) of arguments with a distribution among
 * them: any(), all(), count(), sum(), abs(), floor(), ceil(), round() and
 * len() compute a distribution; any other is refused. */
bool vm_dist_builtin(vm *v, int id, const char *name, const value *args, int argc, span at, value *out);
void vm_dist_free_store(vm_store *st);
const struct dist *vm_dist_lookup(const vm *v, value x);

/* Exact contexts (vm_exact.c). prob(E) and its kind compute E between
 * vm_exact_enter and vm_exact_leave: there, what would change the state of
 * play is refused (vm_exact_refuses), and so is a roll, except in a
 * procedure or check called there, which vm_exact_call walks: it runs once
 * for every combination of its arguments' outcomes and of the dice it
 * rolls, and gives the distribution of its results. */
bool vm_exact_enter(vm *v, span at);
void vm_exact_leave(vm *v);
/* Leaves the contexts entered since there were `depth` (an error unwinds). */
void vm_exact_unwind(vm *v, int depth);
/* What a display reads (the conditions that hold on a creature) is read
 * between vm_peek_begin and vm_peek_end: an exact context, where nothing
 * changes the state of play, no die is rolled, and a ruling is read as it
 * stands (the GM's answer, else its default) without asking the GM,
 * spending an answer given for one use, or writing to the transcript. */
bool vm_peek_begin(vm *v, span at);
void vm_peek_end(vm *v);
/* False, with an error, inside an exact context: `what` would change the
 * state of play or the transcript. */
bool vm_exact_refuses(vm *v, span at, const char *what);
typedef enum { VM_EXACT_PROCEDURE, VM_EXACT_CHECK, VM_EXACT_CHUNK } vm_exact_kind;
/* Calls procedure `callee` (or check `callee`) for self with args, walked;
 * rolled: bit i says argument i was written `roll E` (E's dice were
 * passed, to be rolled as the call is made). *out is the distribution. */
bool vm_exact_call(vm *v, vm_exact_kind kind, int callee, int self, const value *args, int argc, unsigned rolled,
                   span at, value *out);
/* Whether rolling x (a roll, given to `roll` again) may go ahead: false,
 * with an error, when x is the outcome of an argument of the call being
 * walked, which must then be walked as dice (the walk starts over). */
bool vm_exact_may_roll(vm *v, value x, span at);
/* The same for reading x.faces, or x.natural (natural). */
bool vm_exact_may_read_faces(vm *v, value x, bool natural, span at);
/* An argument's outcome in a walk is a roll with no record: home has
   ROLL_OUTCOME (and ROLL_NATURAL_KNOWN when aux is its natural die), pad
   the walk's mark and the argument. */
#define ROLL_OUTCOME 0x20
#define ROLL_NATURAL_KNOWN 0x10

#endif
