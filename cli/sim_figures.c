/* sim_figures: shares, means and rounds from a simulation's sums (sim_figures.h). */
#include "cli/sim_figures.h"

#include <math.h>
#include <stdbool.h>

/* Wilson's score interval at 95% for k successes in n. */
void share_interval(uint64_t k, uint64_t n, double *lo, double *hi)
{
    const double z = 1.959963984540054;
    if (!n) {
        *lo = 0;
        *hi = 1;
        return;
    }
    double p = (double)k / (double)n, nn = (double)n;
    double centre = (p + z * z / (2 * nn)) / (1 + z * z / nn);
    double half = z * sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);
    /* none or all: the interval touches 0 or 1 exactly */
    *lo = k == 0 ? 0 : fmax(0, centre - half);
    *hi = k == n ? 1 : fmin(1, centre + half);
}

/* Mean and the variance of one run's figure (sample variance) from a sum
   and a sum of squares. */
void mean_variance(uint64_t sum, uint64_t squares, uint64_t n, double *mean, double *var)
{
    *mean = n ? (double)sum / (double)n : 0;
    *var = n > 1 ? fmax(0, ((double)squares - (double)n * *mean * *mean) / (double)(n - 1)) : 0;
}

/* Mean and the half-width of its 95% interval from a sum and a sum of squares. */
void mean_interval(uint64_t sum, uint64_t squares, uint64_t n, double *mean, double *half)
{
    double var;
    mean_variance(sum, squares, n, mean, &var);
    *half = n > 1 && var > 0 ? 1.959963984540054 * sqrt(var / (double)n) : 0;
}

static size_t round_quantile(const fray_sim_result *r, double q)
{
    uint64_t total = 0, seen = 0;
    for (size_t k = 0; k < r->nrounds; k++)
        total += r->rounds[k];
    for (size_t k = 0; k < r->nrounds; k++) {
        seen += r->rounds[k];
        if ((double)seen >= q * (double)total && r->rounds[k])
            return k;
    }
    return r->nrounds ? r->nrounds - 1 : 0;
}

round_stats rounds_of(const fray_sim_result *r)
{
    round_stats s = {0};
    uint64_t total = 0, sum = 0;
    bool first = true;
    for (size_t k = 0; k < r->nrounds; k++) {
        total += r->rounds[k];
        sum += k * r->rounds[k];
        s.squares += k * k * r->rounds[k];
        if (r->rounds[k]) {
            if (first)
                s.shortest = k;
            first = false;
            s.longest = k;
        }
    }
    s.mean = total ? (double)sum / (double)total : 0;
    s.sum = sum;
    s.median = round_quantile(r, 0.5);
    s.p90 = round_quantile(r, 0.9);
    s.decided = total;
    return s;
}
