/* conditions: which conditions a creature is in (applied, holding by its
 * own formula, or implied by another), worked out once between two changes
 * of the state of play (conditions.c); effects.c reads it for modifiers,
 * refusals and has(). */
#ifndef FRAY_CONDITIONS_H
#define FRAY_CONDITIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/combat/combat.h"

struct vm;

typedef struct held {
    int cond;
    int source;     /* creature that caused it, or -1 */
    int32_t effect; /* the effect, or -1 when it holds by itself or is implied */
} held;

/* The most distinct conditions one creature is in at once. */
#define HELD_MAX 64

/* Every condition c is in now, applied ones first in the order they were
   applied; out holds HELD_MAX. */
bool conditions_of(struct vm *v, int c, held *out, int *n, span at);
/* A clause's `when EXPR` (or `unless EXPR`, negate): sets *holds when the
   clause applies to c, as it does without a guard. */
bool guard_holds(struct vm *v, const rexpr *when, bool negate, int c, const value *args, int nargs, bool *holds);
/* Whether c's conditions are known without working anything out (nothing
   changed since they were): then *in tells whether cond is among them. */
bool conditions_known(struct vm *v, int c, int cond, bool *in);
/* Whether c is out of the fight by the encounter's formula e (`out when`),
   kept like its conditions. */
bool conditions_out(struct vm *v, int c, const rexpr *e, bool *out);
/* The cache of what holds, freed with the combat (not copied with it). */
void conditions_cache_free(combat *cb);

#endif
