/* dist: exact probability distributions of dice expressions.
 *
 * A distribution covers the outcomes lo..lo+n-1. While exact, outcome i has
 * probability w[i] / total with 128-bit integer counts; the counts may sum
 * to less than total, and the difference is the mass cut off by explosion
 * limits. Every operation first tries the exact path and, when a product or
 * sum would overflow, recomputes the whole result in doubles instead (p[i],
 * with the cut-off mass kept in rem) rather than mixing the two.
 *
 * Combining independent parts multiplies their totals, so the represented
 * mass of a result is the product of the parts' masses: the remainder of a
 * sum is 1 - prod(1 - r_i) without any special bookkeeping.
 *
 * This file holds the representation, mixtures and the reading of results;
 * the operations are in dist_ops.c, dice in dist_dice.c, keep/drop pools in
 * dist_keep.c. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/dice/dist_internal.h"
#include "runtime/base/mem.h"

/* 2e8 steps of a keep/drop pool, or 5e7 multiply-adds of a sum, take about a
 * tenth of a second (1000d6 needs a few million). */
const dist_limits dist_default_limits = {.outcomes = DIST_DEFAULT_OUTCOMES, .work = DIST_DEFAULT_WORK};

void *dist_fail(dist_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

void *dist_too_many_outcomes(dist_error *err)
{
    return dist_fail(err, "too many possible outcomes (limit is %" PRIu64 "; see --limit outcomes=N)",
                     max_outcomes(err));
}

void *dist_oom(dist_error *err)
{
    return dist_fail(err, "out of memory computing a distribution");
}

/* ---------------------------------------------------------------- basics */

dist *dist_new(int64_t lo, int64_t hi, bool exact, dist_error *err)
{
    __int128 span = (__int128)hi - lo + 1;
    if (span < 1)
        return dist_fail(err, "empty distribution");
    if (span > (__int128)max_outcomes(err))
        return dist_fail(err, "too many possible outcomes (%lld to %lld; limit is %" PRIu64 "; see --limit outcomes=N)",
                         (long long)lo, (long long)hi, max_outcomes(err));
    dist *d = MEM_NEW(dist);
    if (!d)
        return dist_oom(err);
    d->lo = lo;
    d->n = d->cap = (size_t)span;
    d->exact = exact;
    if (exact)
        d->w = MEM_NEW_ARRAY(dist_count, d->n);
    else
        d->p = MEM_NEW_ARRAY(double, d->n);
    if (!d->w && !d->p) {
        mem_free(d, sizeof *d);
        return dist_oom(err);
    }
    return d;
}

void dist_free(dist *d)
{
    if (!d)
        return;
    if (d->w)
        mem_free(d->w, d->cap * sizeof *d->w);
    if (d->p)
        mem_free(d->p, d->cap * sizeof *d->p);
    mem_free(d, sizeof *d);
}

static dist_count gcd128(dist_count a, dist_count b)
{
    while (b) {
        dist_count t = a % b;
        a = b;
        b = t;
    }
    return a;
}

dist_count dist_mass128(const dist *d)
{
    dist_count s = 0;
    for (size_t i = 0; i < d->n; i++)
        s += d->w[i]; /* counts never sum past total */
    return s;
}

/* Trim zero outcomes at both ends (keeping one) and, for exact counts,
 * divide by the common gcd: smaller counts delay the switch to doubles. */
dist *dist_finish(dist *d)
{
    size_t first = 0, last = d->n - 1;
    while (first < last && !nonzero(d, first))
        first++;
    while (last > first && !nonzero(d, last))
        last--;
    size_t n = last - first + 1;
    if (d->exact) {
        memmove(d->w, d->w + first, n * sizeof *d->w);
        dist_count g = d->total;
        for (size_t i = 0; i < n && g > 1; i++)
            if (d->w[i])
                g = gcd128(d->w[i], g);
        if (g > 1) {
            d->total /= g;
            for (size_t i = 0; i < n; i++)
                d->w[i] /= g;
        }
    } else {
        memmove(d->p, d->p + first, n * sizeof *d->p);
    }
    d->lo += (int64_t)first;
    d->n = n;
    return d;
}

bool dist_pview_open(pview *v, const dist *d, dist_error *err)
{
    v->n = d->n;
    v->owned = NULL;
    if (!d->exact) {
        v->p = d->p;
        return true;
    }
    v->owned = MEM_NEW_ARRAY(double, d->n);
    if (!v->owned) {
        dist_oom(err);
        return false;
    }
    long double inv = 1.0L / (long double)d->total; /* one division, not one per outcome */
    for (size_t i = 0; i < d->n; i++)
        v->owned[i] = (double)((long double)d->w[i] * inv);
    v->p = v->owned;
    return true;
}

void dist_pview_close(pview *v)
{
    if (v->owned)
        mem_free(v->owned, v->n * sizeof *v->owned);
    v->owned = NULL;
}

dist *dist_constant(int64_t value, dist_error *err)
{
    dist *d = dist_new(value, value, true, err);
    if (!d)
        return NULL;
    d->total = 1;
    d->w[0] = 1;
    return d;
}

dist *dist_copy(const dist *d, dist_error *err)
{
    dist *r = dist_new(d->lo, hi_of(d), d->exact, err);
    if (!r)
        return NULL;
    r->total = d->total;
    r->rem = d->rem;
    if (d->exact)
        memcpy(r->w, d->w, d->n * sizeof *d->w);
    else
        memcpy(r->p, d->p, d->n * sizeof *d->p);
    return r;
}

/* -------------------------------------------------------------- mixtures */

/* The mixture so far is a distribution of its own (acc, NULL until the
   first part), grown to cover each part, its counts over a common
   denominator while they fit. */
struct dist_mixer {
    dist *acc;
};

dist_mixer *dist_mixer_new(dist_error *err)
{
    dist_mixer *m = MEM_NEW(dist_mixer);
    return m ? m : dist_oom(err);
}

void dist_mixer_free(dist_mixer *m)
{
    if (!m)
        return;
    dist_free(m->acc);
    mem_free(m, sizeof *m);
}

/* acc covering lo..hi too, new outcomes at 0: a new distribution, the
   old one's weights moved in. */
static bool mixer_cover(dist_mixer *m, int64_t lo, int64_t hi, dist_error *err)
{
    dist *a = m->acc;
    if (a && a->lo <= lo && hi_of(a) >= hi)
        return true;
    int64_t nlo = a && a->lo < lo ? a->lo : lo, nhi = a && hi_of(a) > hi ? hi_of(a) : hi;
    dist *grown = dist_new(nlo, nhi, a ? a->exact : true, err);
    if (!grown)
        return false;
    grown->total = a ? a->total : 1;
    if (a && a->exact)
        memcpy(grown->w + (a->lo - nlo), a->w, a->n * sizeof *a->w);
    else if (a)
        memcpy(grown->p + (a->lo - nlo), a->p, a->n * sizeof *a->p);
    dist_free(a);
    m->acc = grown;
    return true;
}

/* From counts to probabilities, when an exact weight would not fit. */
static bool mixer_to_doubles(dist *a, dist_error *err)
{
    double *p = MEM_NEW_ARRAY(double, a->cap);
    if (!p)
        return dist_oom(err) != NULL;
    for (size_t i = 0; i < a->n; i++)
        p[i] = prob(a, i);
    mem_free(a->w, a->cap * sizeof *a->w);
    a->w = NULL;
    a->p = p;
    a->exact = false;
    return true;
}

bool dist_mixer_add(dist_mixer *m, const dist *d, dist_count num, dist_count den, double weight, dist_error *err)
{
    if (!mixer_cover(m, d->lo, hi_of(d), err))
        return false;
    dist *a = m->acc;
    size_t at = (size_t)(d->lo - a->lo);
    /* The weights of a mixture sum to at most 1, so that every count, once
       over a common denominator L, is at most L: only the denominator of
       d's weights (den * d->total) and L itself can overflow. */
    dist_count dden, l;
    if (a->exact && d->exact && den && !__builtin_mul_overflow(den, d->total, &dden) &&
        !__builtin_mul_overflow(a->total / gcd128(a->total, dden), dden, &l)) {
        dist_count up = l / a->total, each = l / dden;
        if (up > 1)
            for (size_t i = 0; i < a->n; i++)
                a->w[i] *= up;
        a->total = l;
        for (size_t i = 0; i < d->n; i++)
            a->w[at + i] += num * d->w[i] * each;
        return true;
    }
    if (a->exact && !mixer_to_doubles(a, err))
        return false;
    for (size_t i = 0; i < d->n; i++)
        a->p[at + i] += weight * prob(d, i);
    return true;
}

dist *dist_mixer_finish(dist_mixer *m, dist_error *err)
{
    if (!m->acc)
        return dist_fail(err, "no outcome: every way through was cut");
    dist *r = dist_copy(m->acc, err);
    if (r && !r->exact) {
        long double mass = 0;
        for (size_t i = 0; i < r->n; i++)
            mass += r->p[i];
        r->rem = mass < 1 ? (double)(1 - mass) : 0.0;
    }
    return r ? dist_finish(r) : NULL;
}

/* -------------------------------------------------------------- reading */

int64_t dist_lowest(const dist *d)
{
    return d->lo;
}
int64_t dist_highest(const dist *d)
{
    return hi_of(d);
}

double dist_p(const dist *d, int64_t outcome)
{
    if (outcome < d->lo || outcome > hi_of(d))
        return 0.0;
    return prob(d, (size_t)(outcome - d->lo));
}

double dist_p_at_least(const dist *d, int64_t outcome)
{
    long double s = 0;
    for (size_t i = d->n; i-- > 0 && d->lo + (int64_t)i >= outcome;)
        s += prob(d, i);
    return (double)s;
}

double dist_p_at_most(const dist *d, int64_t outcome)
{
    long double s = 0;
    for (size_t i = 0; i < d->n && d->lo + (int64_t)i <= outcome; i++)
        s += prob(d, i);
    return (double)s;
}

void dist_cumulative(const dist *d, double *at_most, double *at_least)
{
    long double s = 0;
    for (size_t i = 0; i < d->n; i++)
        at_most[i] = (double)(s += prob(d, i));
    s = 0;
    for (size_t i = d->n; i-- > 0;)
        at_least[i] = (double)(s += prob(d, i));
}

/* Moments over the represented outcomes, renormalized: the cut-off mass
 * (at most epsilon per die) is left out rather than guessed at. */
static void moments(const dist *d, long double *mean, long double *var)
{
    long double s0 = 0, s1 = 0;
    for (size_t i = 0; i < d->n; i++) {
        long double p = prob(d, i);
        s0 += p;
        s1 += p * (long double)(d->lo + (int64_t)i);
    }
    long double mu = s0 > 0 ? s1 / s0 : 0;
    long double s2 = 0;
    for (size_t i = 0; i < d->n; i++) {
        long double x = (long double)(d->lo + (int64_t)i) - mu;
        s2 += prob(d, i) * x * x;
    }
    *mean = mu;
    *var = s0 > 0 ? s2 / s0 : 0;
}

double dist_mean(const dist *d)
{
    long double m, v;
    moments(d, &m, &v);
    return (double)m;
}

double dist_stddev(const dist *d)
{
    long double m, v;
    moments(d, &m, &v);
    return sqrt((double)v);
}

int64_t dist_quantile(const dist *d, double q)
{
    /* exact weights compare exactly (the median of d6 is 3: three sixths
       are one half, which summed probabilities miss by a rounding) */
    if (d->exact) {
        long double want = (long double)q * (long double)d->total;
        dist_count cum = 0;
        for (size_t i = 0; i < d->n; i++) {
            cum += d->w[i];
            if ((long double)cum >= want)
                return d->lo + (int64_t)i;
        }
        return hi_of(d);
    }
    long double s = 0;
    for (size_t i = 0; i < d->n; i++) {
        s += prob(d, i);
        if (s >= q - 1e-12L)
            return d->lo + (int64_t)i;
    }
    return hi_of(d);
}

static dist_count num_or_zero(const dist *d, int64_t outcome)
{
    return outcome < d->lo || outcome > hi_of(d) ? 0 : d->w[outcome - d->lo];
}

bool dist_exact_p(const dist *d, int64_t outcome, dist_count *num, dist_count *den)
{
    if (!d->exact)
        return false;
    dist_count w = num_or_zero(d, outcome);
    dist_count g = gcd128(w, d->total);
    *num = w / g;
    *den = d->total / g;
    return true;
}

bool dist_is_exact(const dist *d)
{
    return d->exact;
}

bool dist_exact_nonzero(const dist *d, dist_count *num, dist_count *den)
{
    if (!d->exact)
        return false;
    dist_count mass = dist_mass128(d);
    dist_count w = num_or_zero(d, 0);
    dist_count g = gcd128(mass - w, mass);
    *num = (mass - w) / g;
    *den = mass / g;
    return true;
}

/* q * m + r += k * w, for r < m and w <= m: k * w may pass 128 bits, so it
   is added by doubling, each step reduced modulo m. */
static void add_multiple(dist_count w, uint64_t k, dist_count m, uint64_t *q, dist_count *r)
{
    uint64_t aq = w == m; /* a = w * 2^bit, as aq * m + ar */
    dist_count ar = w == m ? 0 : w;
    for (; k; k >>= 1) {
        if (k & 1) {
            *q += aq;
            if (*r >= m - ar) { /* r + ar >= m, without overflow */
                *r -= m - ar;
                ++*q;
            } else {
                *r += ar;
            }
        }
        aq *= 2;
        if (ar >= m - ar) {
            ar -= m - ar;
            aq++;
        } else {
            ar *= 2;
        }
    }
}

bool dist_exact_mean(const dist *d, int64_t *whole, dist_count *num, dist_count *den)
{
    if (!d->exact)
        return false;
    dist_count m = dist_mass128(d);
    if (m == 0)
        return false;
    /* mean = lo + (sum of i * w[i]) / m, i from 0: q * m + r */
    uint64_t q = 0;
    dist_count r = 0;
    if (m <= ~(dist_count)0 / (dist_count)d->n) { /* the sum fits in 128 bits */
        dist_count s = 0;
        for (size_t i = 1; i < d->n; i++)
            s += (dist_count)i * d->w[i];
        q = (uint64_t)(s / m);
        r = s % m;
    } else {
        for (size_t i = 1; i < d->n; i++)
            add_multiple(d->w[i], i, m, &q, &r);
    }
    dist_count g = gcd128(r, m);
    *whole = d->lo + (int64_t)q; /* q < n: the mean lies within lo..hi */
    *num = r / g;
    *den = m / g;
    return true;
}

double dist_remainder(const dist *d)
{
    return remainder_of(d);
}

size_t dist_count_format(dist_count c, char *buf, size_t cap)
{
    char tmp[48];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(c % 10));
        c /= 10;
    } while (c);
    if (buf && cap > 0) {
        size_t w = n < cap - 1 ? n : cap - 1;
        for (size_t i = 0; i < w; i++)
            buf[i] = tmp[n - 1 - i];
        buf[w] = '\0';
    }
    return n;
}
