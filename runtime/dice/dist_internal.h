/* dist_internal: what the dist*.c files share (the representation of a
 * distribution and the helpers of every operation); not for other files. */
#ifndef FRAY_DIST_INTERNAL_H
#define FRAY_DIST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/dice/dist.h"

struct dist {
    int64_t lo;
    size_t n;   /* outcomes lo .. lo + n - 1 */
    size_t cap; /* allocated elements of w or p (trimming keeps the block) */
    bool exact;
    dist_count total; /* exact: the common denominator */
    dist_count *w;    /* exact: counts */
    double *p;        /* inexact: probabilities */
    double rem;       /* inexact: probability mass cut off */
};

/* Probabilities of any distribution as an array, borrowed when inexact. */
typedef struct pview {
    const double *p;
    double *owned;
    size_t n;
} pview;

typedef int64_t (*map_fn)(int64_t x, const void *ctx);

/* Records an error in err (when given); NULL, for `return dist_fail(...)`. */
void *dist_fail(dist_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The error of a result past the outcomes limit. */
void *dist_too_many_outcomes(dist_error *err);
/* The error of an allocation that failed. */
void *dist_oom(dist_error *err);
/* A distribution over lo..hi, all counts (or probabilities) zero. */
dist *dist_new(int64_t lo, int64_t hi, bool exact, dist_error *err);
/* Trims zero outcomes at both ends and reduces exact counts; returns d. */
dist *dist_finish(dist *d);
/* The sum of an exact distribution's counts. */
dist_count dist_mass128(const dist *d);
/* Probabilities of d as an array (borrowed when inexact); false when out of memory. */
bool dist_pview_open(pview *v, const dist *d, dist_error *err);
void dist_pview_close(pview *v);
/* y = fn(x) over a's outcomes, whose results lie in lo..hi. */
dist *dist_map_unary(const dist *a, map_fn fn, const void *ctx, int64_t lo, int64_t hi, dist_error *err);
/* What one kept face adds to the total (a success score, or the face). */
int64_t dist_face_score(const dice *d, int64_t v);
/* Does a roll of v explode? */
bool dist_explodes(const dice *d, int64_t v);
/* The sum of the keep best (highest or lowest) of n dice each distributed as unit. */
dist *dist_keep_pool(const dice *d, const dist *unit, int32_t n, int32_t keep, bool highest, dist_error *err);
/* The same for exploding dice, each chain ranked by its first roll. */
dist *dist_keep_exploding(const dice *d, const dist *raw, int32_t n, int32_t k, bool highest, dist_error *err);

static inline const dist_limits *limits_of(const dist_error *err)
{
    return err && err->limits ? err->limits : &dist_default_limits;
}

static inline double max_work(const dist_error *err)
{
    return (double)limits_of(err)->work;
}

static inline double max_convolution(const dist_error *err)
{
    return (double)limits_of(err)->work / 4;
}

static inline uint64_t max_outcomes(const dist_error *err)
{
    return limits_of(err)->outcomes;
}

static inline int64_t hi_of(const dist *d)
{
    return d->lo + (int64_t)(d->n - 1); /* n - 1 first: the highest may be INT64_MAX */
}

static inline bool nonzero(const dist *d, size_t i)
{
    return d->exact ? d->w[i] != 0 : d->p[i] != 0.0;
}

static inline double remainder_of(const dist *d)
{
    if (!d->exact)
        return d->rem;
    return (double)((long double)(d->total - dist_mass128(d)) / (long double)d->total);
}

static inline double prob(const dist *d, size_t i)
{
    return d->exact ? (double)((long double)d->w[i] / (long double)d->total) : d->p[i];
}

#endif
