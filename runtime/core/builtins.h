/* builtins: the ids of the built-in functions listed in builtins.def, and
 * the one form of the C functions implementing them. */
#ifndef FRAY_BUILTINS_H
#define FRAY_BUILTINS_H

#include <stdbool.h>

#include "runtime/core/program.h"
#include "runtime/core/value.h"

typedef enum {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) BI_##name,
#include "runtime/core/builtins.def"
#undef BUILTIN
    BI_COUNT
} builtin_id;

typedef struct vm vm;

/* A builtin's C function: id tells apart the builtins of a family that
   share one; the arguments are checked here, their count by the compiler. */
typedef bool builtin_fn(vm *v, int id, value *args, int argc, span at, value *out);

/* Calls builtin id: refused where it may not run (a change of the state of
   play inside prob()), computed over the outcomes of a distribution it is
   given when it does not compute with distributions itself, and otherwise
   handed to its layer's function (vm_builtins.c). */
bool vm_builtin_call(vm *v, int id, value *args, int argc, span at, value *out);

/* Whether builtin id changes the state of play (its effect is CHANGES). */
bool vm_builtin_changes(int id);

/* What builtin id reads, from its row: values alone (a builtin of the core
   that changes nothing), who is in play with their stats and conditions
   (effect ROSTER), or more of the state of play. */
typedef enum { BUILTIN_READS_VALUES, BUILTIN_READS_ROSTER, BUILTIN_READS_PLAY } builtin_reads;
builtin_reads vm_builtin_reads(int id);

/* The interpreter's arithmetic and comparison, for the core builtins (vm.c). */
bool vm_builtin_compare(vm *v, value a, value b, span at, int *cmp);
bool vm_builtin_add(vm *v, value a, value b, span at, value *sum);
bool vm_builtin_new_dice(vm *v, const dexpr *d, span at, value *out);
bool vm_builtin_arith_fail(vm *v, arith_status st, span at, const char *what, value a, value b);

/* Which builtins the core implements, for tests: the function of id in
   the core's table (NULL for a builtin of play: combat_builtin_fn, in
   runtime/combat/world.h). */
builtin_fn *vm_builtin_core_fn(int id);

#endif
