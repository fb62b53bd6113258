/* sim: what one run of a simulated scenario tallies while it plays. The
 * VM holds a pointer to a tally (NULL outside `fray sim`) and the runtime
 * reports to it where damage is done, triggers fire and encounters end. */
#ifndef FRAY_SIM_H
#define FRAY_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/base/source.h"

struct vm;

typedef struct sim_tally {
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
    /* the checks compared, in order (the first SIM_CHECKS of them) */
#define SIM_CHECKS 4
    int check[SIM_CHECKS];
    bool met[SIM_CHECKS]; /* ... and whether each met its target */
    int nchecks;
    int actor;                           /* checks count only while this creature acts (-1: any) */
    int watch;                           /* a creature whose other stats must not change, or -1 */
    bool changed;                        /* a condition was applied, or a stat of `watch` other than health changed */
    int changed_condition, changed_stat; /* the first such (condition index, declaration), or -1 */
} sim_tally;

/* Hooks, each a no-op when v->sim is NULL. */
void sim_note_damage(struct vm *v, int c, int64_t amount);
void sim_note_trigger(struct vm *v, int trigger);
void sim_note_check(struct vm *v, int check, bool met);
/* A condition applied (condition >= 0), or a watched stat changed (stat >= 0). */
void sim_note_change(struct vm *v, int condition, int stat);
/* The first declaration of the stat or resource of this name (what a
   run's `health` is), or -1; a later override counts as the same stat. */
struct program;
int sim_find_health(const struct program *p, const char *name);
/* Records who stands as an encounter ends, or at the end of a run. */
bool sim_note_outcome(struct vm *v, span at);

#endif
