/* tally: what one run of a simulated scenario counts while it plays. The
 * VM holds a pointer to a tally (NULL outside `fray sim` and `fray diff`),
 * and combat reports to it where damage is done, triggers fire, checks
 * are met and encounters end; the analysis (sim.c, profile.c) reads it. */
#ifndef FRAY_TALLY_H
#define FRAY_TALLY_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/base/source.h"

struct vm;

typedef struct tally {
    int health;             /* first declaration of the stat whose losses are damage */
    int64_t *dealt, *taken; /* per creature index */
    bool *down;
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
    int actor;                           /* checks count only while this creature acts (-1: any) */
    int watch;                           /* a creature whose other stats must not change, or -1 */
    bool changed;                        /* a condition was applied, or a stat of `watch` other than health changed */
    int changed_condition, changed_stat; /* the first such (condition index, declaration), or -1 */
} tally;

/* Hooks, each a no-op when v->world->tally is NULL. */
void tally_damage(struct vm *v, int c, int64_t amount);
void tally_trigger(struct vm *v, int trigger);
void tally_check(struct vm *v, int check, bool met);
/* A condition applied (condition >= 0), or a watched stat changed (stat >= 0). */
void tally_change(struct vm *v, int condition, int stat);
/* Records who stands as an encounter ends, or at the end of a run. */
bool tally_outcome(struct vm *v, span at);

#endif
