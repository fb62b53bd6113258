/* dist: exact probability distributions of dice expressions.
 *
 * A distribution is a finite map from integer outcomes to weights. While the
 * weights fit, they are exact integer counts over an exact total (128-bit);
 * when an operation would overflow them, the distribution switches to
 * double-precision probabilities and says so (dist_is_exact). Unbounded
 * explosions are cut where the probability still unaccounted for falls
 * below epsilon; that remainder is kept and reported (dist_remainder).
 *
 * Every function that builds a distribution returns a new one (the caller
 * frees it with dist_free) or NULL with a message in *err. Inputs are never
 * modified. Nothing here samples: all results are computed. */
#ifndef FRAY_DIST_H
#define FRAY_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/dice/dice.h"

typedef unsigned __int128 dist_count;

typedef struct dist dist;

/* Limits: a distribution has at most `outcomes` distinct outcomes between
 * its min and max, and one operation takes at most `work` inner-loop steps
 * (a multiply-add of a sum counts four: they are the costlier kind); bigger
 * ones are refused at once with an error, instead of running for minutes. */
typedef struct dist_limits {
    uint64_t outcomes;
    uint64_t work;
} dist_limits;

#define DIST_DEFAULT_OUTCOMES 1000000
#define DIST_DEFAULT_WORK 200000000 /* about a tenth of a second */
extern const dist_limits dist_default_limits;
/* The most either may be raised to: outcomes are counted in size_t and
 * a step estimate in a double. */
#define DIST_MAX_OUTCOMES 100000000
#define DIST_MAX_WORK ((uint64_t)1 << 50)

/* Every operation takes one: the limits go in (NULL: the defaults) and
 * the message of a refusal comes out. */
typedef struct dist_error {
    char message[160];
    const dist_limits *limits;
} dist_error;
#define DIST_DEFAULT_EPSILON 1e-12

dist *dist_constant(int64_t value, dist_error *err);
/* One dice term as players write it: count, sides, fudge, keep/drop,
 * explode/compound/penetrate (cut at epsilon), reroll/reroll once, success
 * counting with failures. Pools with keep/drop use an order-statistics
 * dynamic program over face values, not enumeration of every roll. */
dist *dist_dice(const dice *d, double epsilon, dist_error *err);

/* Keep/drop over n independent dice that each roll like `die` (keep is an
 * enum dice_keep, keep_n as in struct dice): the order-statistics DP of
 * dist_dice, for dice the notation cannot write, such as a die that
 * explodes at most 4 times. The kept sum is of face values. */
dist *dist_keep(const dist *die, int32_t n, uint8_t keep, int32_t keep_n, dist_error *err);

/* Arithmetic of independent variables. */
dist *dist_add(const dist *a, const dist *b, dist_error *err);     /* a + b (convolution) */
dist *dist_sub(const dist *a, const dist *b, dist_error *err);     /* a - b */
dist *dist_mul(const dist *a, const dist *b, dist_error *err);     /* a * b */
dist *dist_scale(const dist *a, int64_t k, dist_error *err);       /* k * a */
dist *dist_floor_div(const dist *a, int64_t k, dist_error *err);   /* floor(a / k), k != 0 */
dist *dist_maximum(const dist *a, const dist *b, dist_error *err); /* max(a, b) */
dist *dist_minimum(const dist *a, const dist *b, dist_error *err); /* min(a, b) */
dist *dist_abs(const dist *a, dist_error *err);                    /* |a| */

typedef enum { DIST_EQ, DIST_NE, DIST_LT, DIST_LE, DIST_GT, DIST_GE } dist_cmp;
/* 1 where the comparison holds, 0 elsewhere. */
dist *dist_compare(const dist *a, const dist *b, dist_cmp op, dist_error *err);
/* Outcome of `c ? t : f` for a 0/1 (or any: nonzero is true) c. */
dist *dist_choose(const dist *c, const dist *t, const dist *f, dist_error *err);

/* A mixture: distributions, each with a weight (its chance), summed. The
 * weights are exact (num / den) while the counts fit, and `weight` (the
 * same chance as a double) after; they sum to at most 1, what is missing
 * being mass cut off. */
typedef struct dist_mixer dist_mixer;
dist_mixer *dist_mixer_new(dist_error *err);
bool dist_mixer_add(dist_mixer *m, const dist *d, dist_count num, dist_count den, double weight, dist_error *err);
/* The mixture so far; the mixer stays the caller's to free. */
dist *dist_mixer_finish(dist_mixer *m, dist_error *err);
void dist_mixer_free(dist_mixer *m);

void dist_free(dist *d);
dist *dist_copy(const dist *d, dist_error *err);

/* Reading. Outcomes run from lowest to highest; some may have weight 0. */
int64_t dist_lowest(const dist *d);
int64_t dist_highest(const dist *d);
double dist_p(const dist *d, int64_t outcome); /* P(X = outcome) */
double dist_p_at_least(const dist *d, int64_t outcome);
double dist_p_at_most(const dist *d, int64_t outcome);
/* P(X <= v) and P(X >= v) for every outcome v from lowest to highest, in
 * one pass each: at_most and at_least have room for highest - lowest + 1. */
void dist_cumulative(const dist *d, double *at_most, double *at_least);
double dist_mean(const dist *d);
double dist_stddev(const dist *d);
/* The smallest outcome v with P(X <= v) >= q, for 0 < q <= 1. */
int64_t dist_quantile(const dist *d, double q);
/* Exact weights: P(X = outcome) = *num / *den. False when not exact. */
bool dist_exact_p(const dist *d, int64_t outcome, dist_count *num, dist_count *den);
/* P(X != 0) = *num / *den and E[X] = *whole + *num / *den (0 <= num <
 * den), reduced, over the outcomes represented (the mass cut off, when
 * there is any, left out as dist_mean leaves it out). False when not exact. */
bool dist_exact_nonzero(const dist *d, dist_count *num, dist_count *den);
bool dist_exact_mean(const dist *d, int64_t *whole, dist_count *num, dist_count *den);
bool dist_is_exact(const dist *d);
/* Probability mass cut off by explosion depth limits (0 when none). */
double dist_remainder(const dist *d);
/* A count as decimal text (for exact fractions). */
size_t dist_count_format(dist_count c, char *buf, size_t cap);

#endif
