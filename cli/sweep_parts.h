/* sweep_parts: a slice of a sweep's runs at every value (`fray sweep
 * --runs FROM..TO --format part`) written as text, and such parts added up
 * value by value (`fray sweep --merge PART...`): each value's runs are a
 * simulation's (sim_parts.h), so the merged sweep is exactly the one a
 * single process would print. */
#ifndef FRAY_CLI_SWEEP_PARTS_H
#define FRAY_CLI_SWEEP_PARTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/sim_parts.h"

/* What is swept, the same in every part of one sweep. */
typedef struct sweep_whole {
    char *name;  /* goblin.ac, or a ruling's name */
    bool ruling; /* a ruling's answers, not a stat */
    bool words;  /* its values are words (in the order tried), not numbers */
} sweep_whole;

/* The header of a part; then, for each value, sweep_part_value. */
void sweep_part_begin(FILE *out, const sweep_whole *w);
void sweep_part_value(FILE *out, const char *value, const sim_whole *sw, uint64_t from, uint64_t to,
                      const fray_sim_result *r);

/* The parts merged: each value's text (in the order first read) and its
   whole result. */
typedef struct sweep_merged {
    sweep_whole w;
    size_t nvalues;
    char **values;
    sim_merge *merges; /* merges[i].rs[0]: value i's result */
} sweep_merged;
/* Reads the parts and adds them up value by value; false after saying
   why on stderr. Free with sweep_merged_free. */
bool sweep_parts_merge(char *const *paths, int nparts, sweep_merged *m);
void sweep_merged_free(sweep_merged *m);

#endif
