/* tally: what one run of a simulated scenario counts while it plays. The
 * VM holds a pointer to a tally (NULL outside `fray sim` and `fray diff`),
 * and combat reports to it where damage is done, triggers fire, checks
 * are met and encounters end; the analysis (sim.c, profile.c) reads it. */
#ifndef FRAY_TALLY_H
#define FRAY_TALLY_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/base/source.h"
#include "runtime/core/value.h"

struct vm;

/* A stat set on each creature of a name as it is made, over what the
   scenario gives it (`fray sim --set`, `fray sweep`). */
typedef struct tally_set {
    const char *creature; /* a creature's name, or a group's (every member) */
    int stat;             /* its declaration in the run's program */
    int64_t value;
} tally_set;

/* A ruling's answer for the whole run (`fray sim --answer`, `fray sweep
   --answer`): it stands for every creature, side and use, over the
   scenario's own answers and the ruling's default. */
typedef struct tally_answer {
    int ruling; /* its index in the run's rules */
    value v;    /* a value of the program (a word is interned there) */
} tally_answer;

typedef struct tally {
    int health;             /* first declaration of the stat whose losses are damage */
    int64_t *dealt, *taken; /* per creature index */
    bool *down;
    /* health is worked out by the rules (a formula, not a value set on the
       creature: world_stat_computed): its losses are seen by reading it
       as the rules do (tally_observe), each creature's last reading kept,
       rather than where it is set */
    bool computed;
    int64_t *seen;
    bool *seen_known;
    size_t ncreatures, creatures_cap;
    uint64_t *fired; /* per trigger */
    size_t ntriggers;
    /* the outcome of the last encounter (or of the one still under way) */
    bool ended;
    int winner; /* side index; -1: more than one side stands; -2: none does */
    int rounds;
    bool failed; /* out of memory while tallying */
    /* what a turn played for `fray diff` did besides damage */
    /* the checks compared, in order (the first TALLY_CHECKS of them) */
#define TALLY_CHECKS 4
    int check[TALLY_CHECKS];
    bool met[TALLY_CHECKS]; /* ... and whether each met its target */
    int nchecks;
    int actor;             /* checks count only while this creature acts (-1: any) */
    int watch;             /* a creature whose other stats must not change, or -1 */
    const tally_set *sets; /* applied as creatures are made (tally_spawned) */
    size_t nsets;
    const tally_answer *answers;
    size_t nanswers;
    bool changed;                        /* a condition was applied, or a stat of `watch` other than health changed */
    int changed_condition, changed_stat; /* the first such (condition index, declaration), or -1 */
} tally;

/* Hooks, each a no-op when v->world->tally is NULL. */
void tally_damage(struct vm *v, int c, int64_t amount);
void tally_trigger(struct vm *v, int trigger);
void tally_check(struct vm *v, int check, bool met);
/* Where health is computed: reads c's (or every creature's in play) as
   the rules do and counts a fall since the last reading as damage; the
   first reading of a creature is where its count starts. A read leaves
   the state, the dice and the step budget as they were; false with the
   error when the rules' formula fails. */
bool tally_observe(struct vm *v, int c);
bool tally_observe_all(struct vm *v);
/* A condition applied (condition >= 0), or a watched stat changed (stat >= 0). */
void tally_change(struct vm *v, int condition, int stat);
/* c was just made, of the group (or the name) base: the sets that name
   either are set on it; false with the error when one cannot be. */
bool tally_spawned(struct vm *v, int c, const char *base, span at);
/* The run's answer to the ruling, when it has one (tally_answer). */
bool tally_answered(struct vm *v, int ruling, value *out);
/* Frees what a tally holds per creature. */
void tally_free(tally *t);
/* Records who stands as an encounter ends, or at the end of a run. */
bool tally_outcome(struct vm *v, span at);

#endif
