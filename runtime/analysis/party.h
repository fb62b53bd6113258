/* party: a reference fight for `fray diff` that is not one attacker
 * against one defender (a party of four against a system's own monsters):
 * the profile's scenario, played as written (it begins its encounter and
 * fights), many times as `fray sim` plays it, summed up side by side. */
#ifndef FRAY_PARTY_H
#define FRAY_PARTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fray.h"

#define PARTY_MOST_SIDES 8

typedef struct party_fight {
    uint64_t runs;
    size_t nsides;
    char *side[PARTY_MOST_SIDES];     /* in the order the scenario makes them */
    uint64_t wins[PARTY_MOST_SIDES];  /* runs each won */
    uint64_t dealt[PARTY_MOST_SIDES]; /* damage its creatures dealt, over every run */
    uint64_t by[PARTY_MOST_SIDES];    /* runs each won by round `o->rounds` (3) */
    uint64_t rounds;                  /* the rounds of every run, added up */
} party_fight;

/* Plays the scenario at path under the system in system_file (its `use
   uses` loads it), with the parent's search path and limits; false after
   the error went to the parent's diagnostics. */
bool party_play(party_fight *pf, fray *parent, const char *path, const char *system_file, const char *uses,
                const fray_diff_options *o);
void party_free(party_fight *pf);
/* The side's index, or -1. */
int party_side(const party_fight *pf, const char *name);
/* What each side deals a round, on average over every run's rounds. */
double party_damage_per_round(const party_fight *pf, size_t side);

#endif
