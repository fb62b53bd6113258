/* sim_figures: the figures `fray sim` and `fray sweep` print from a
 * simulation's sums: shares and means with their 95% intervals, and the
 * lengths of fights in rounds. */
#ifndef FRAY_CLI_SIM_FIGURES_H
#define FRAY_CLI_SIM_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "fray.h"

/* Wilson's score interval at 95% for k successes in n. */
void share_interval(uint64_t k, uint64_t n, double *lo, double *hi);
/* Mean and the variance of one run's figure (sample variance) from a sum
   and a sum of squares. */
void mean_variance(uint64_t sum, uint64_t squares, uint64_t n, double *mean, double *var);
/* Mean and the half-width of its 95% interval from a sum and a sum of squares. */
void mean_interval(uint64_t sum, uint64_t squares, uint64_t n, double *mean, double *half);

typedef struct round_stats {
    double mean;
    size_t median, p90, shortest, longest;
    uint64_t decided;      /* runs with an encounter of at least one round */
    uint64_t sum, squares; /* of the rounds of every run */
} round_stats;

/* The rounds fights lasted, over a result's runs. */
round_stats rounds_of(const fray_sim_result *r);

#endif
