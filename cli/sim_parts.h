/* sim_parts: a slice of a simulation's runs (`fray sim --runs FROM..TO
 * --format part`) written as lines of text, and parts read back and added
 * up (`fray sim --merge PART...`). Every figure of the report is a sum over
 * runs (wins, rounds, damage and its squares, firings), and run i plays
 * seed + i whichever process plays it, so the parts of a simulation merged
 * give exactly the report one process would print. */
#ifndef FRAY_CLI_SIM_PARTS_H
#define FRAY_CLI_SIM_PARTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fray.h"

/* What a part is of: the same for every part of one simulation. */
typedef struct sim_whole {
    char *scenario, *other, *vs; /* other and vs: NULL when none */
    uint64_t seed;               /* of run 0 */
    int threads, n;              /* results: 1, or 2 side by side */
} sim_whole;

/* Writes one part: the results of runs from..to of the whole. */
void sim_part_write(FILE *out, const sim_whole *w, uint64_t from, uint64_t to, const fray_sim_result *const *rs);

/* Reads every part and adds them up into rs[0..w->n), which the caller
   frees with sim_merged_free (and w's strings with sim_whole_free); false
   after saying why on stderr (a file that is no part, parts of different
   simulations, runs in two parts or in none). */
bool sim_parts_merge(char *const *paths, int nparts, sim_whole *w, fray_sim_result *rs[2]);
void sim_merged_free(fray_sim_result *r);
void sim_whole_free(sim_whole *w);

#endif
