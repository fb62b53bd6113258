/* sim: a scenario played many times (fray_sim), each run counted by a
 * tally (runtime/combat/tally.h) and the counts summed. */
#ifndef FRAY_SIM_H
#define FRAY_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/combat/tally.h"

/* The first declaration of the stat or resource of this name (what a
   run's `health` is), or -1; a later override counts as the same stat. */
struct program;
int sim_find_health(const struct program *p, const char *name);

#endif
