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
 * sum is 1 - prod(1 - r_i) without any special bookkeeping. */
#include "runtime/dice/dist.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"

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

/* 2e8 steps of a keep/drop pool, or 5e7 multiply-adds of a sum, take about a
 * tenth of a second (1000d6 needs a few million). */
const dist_limits dist_default_limits = {.outcomes = DIST_DEFAULT_OUTCOMES, .work = DIST_DEFAULT_WORK};

static const dist_limits *limits_of(const dist_error *err)
{
    return err && err->limits ? err->limits : &dist_default_limits;
}
static double max_work(const dist_error *err)
{
    return (double)limits_of(err)->work;
}
static double max_convolution(const dist_error *err)
{
    return (double)limits_of(err)->work / 4;
}
static uint64_t max_outcomes(const dist_error *err)
{
    return limits_of(err)->outcomes;
}

static void *fail(dist_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

static void *too_many_outcomes(dist_error *err)
{
    return fail(err, "too many possible outcomes (limit is %" PRIu64 "; see --limit outcomes=N)", max_outcomes(err));
}

static void *oom(dist_error *err)
{
    return fail(err, "out of memory computing a distribution");
}

/* ---------------------------------------------------------------- basics */

static dist *new_dist(int64_t lo, int64_t hi, bool exact, dist_error *err)
{
    __int128 span = (__int128)hi - lo + 1;
    if (span < 1)
        return fail(err, "empty distribution");
    if (span > (__int128)max_outcomes(err))
        return fail(err, "too many possible outcomes (%lld to %lld; limit is %" PRIu64 "; see --limit outcomes=N)",
                    (long long)lo, (long long)hi, max_outcomes(err));
    dist *d = MEM_NEW(dist);
    if (!d)
        return oom(err);
    d->lo = lo;
    d->n = d->cap = (size_t)span;
    d->exact = exact;
    if (exact)
        d->w = MEM_NEW_ARRAY(dist_count, d->n);
    else
        d->p = MEM_NEW_ARRAY(double, d->n);
    if (!d->w && !d->p) {
        mem_free(d, sizeof *d);
        return oom(err);
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

static int64_t hi_of(const dist *d)
{
    return d->lo + (int64_t)(d->n - 1); /* n - 1 first: the highest may be INT64_MAX */
}

static bool nonzero(const dist *d, size_t i)
{
    return d->exact ? d->w[i] != 0 : d->p[i] != 0.0;
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

static dist_count mass128(const dist *d)
{
    dist_count s = 0;
    for (size_t i = 0; i < d->n; i++)
        s += d->w[i]; /* counts never sum past total */
    return s;
}

/* Trim zero outcomes at both ends (keeping one) and, for exact counts,
 * divide by the common gcd: smaller counts delay the switch to doubles. */
static dist *finish(dist *d)
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

static double remainder_of(const dist *d)
{
    if (!d->exact)
        return d->rem;
    return (double)((long double)(d->total - mass128(d)) / (long double)d->total);
}

static double prob(const dist *d, size_t i)
{
    return d->exact ? (double)((long double)d->w[i] / (long double)d->total) : d->p[i];
}

/* Probabilities of any distribution as an array, borrowed when inexact. */
typedef struct pview {
    const double *p;
    double *owned;
    size_t n;
} pview;

static bool pview_open(pview *v, const dist *d, dist_error *err)
{
    v->n = d->n;
    v->owned = NULL;
    if (!d->exact) {
        v->p = d->p;
        return true;
    }
    v->owned = MEM_NEW_ARRAY(double, d->n);
    if (!v->owned) {
        oom(err);
        return false;
    }
    long double inv = 1.0L / (long double)d->total; /* one division, not one per outcome */
    for (size_t i = 0; i < d->n; i++)
        v->owned[i] = (double)((long double)d->w[i] * inv);
    v->p = v->owned;
    return true;
}

static void pview_close(pview *v)
{
    if (v->owned)
        mem_free(v->owned, v->n * sizeof *v->owned);
    v->owned = NULL;
}

dist *dist_constant(int64_t value, dist_error *err)
{
    dist *d = new_dist(value, value, true, err);
    if (!d)
        return NULL;
    d->total = 1;
    d->w[0] = 1;
    return d;
}

dist *dist_copy(const dist *d, dist_error *err)
{
    dist *r = new_dist(d->lo, hi_of(d), d->exact, err);
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
    return m ? m : oom(err);
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
    dist *grown = new_dist(nlo, nhi, a ? a->exact : true, err);
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
        return oom(err) != NULL;
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
        return fail(err, "no outcome: every way through was cut");
    dist *r = dist_copy(m->acc, err);
    if (r && !r->exact) {
        long double mass = 0;
        for (size_t i = 0; i < r->n; i++)
            mass += r->p[i];
        r->rem = mass < 1 ? (double)(1 - mass) : 0.0;
    }
    return r ? finish(r) : NULL;
}

/* ------------------------------------------------------------- pairwise */

enum { OP_ADD, OP_SUB, OP_MUL };

static bool apply_op(int op, int64_t x, int64_t y, int64_t *out)
{
    switch (op) {
    case OP_ADD: return !__builtin_add_overflow(x, y, out);
    case OP_SUB: return !__builtin_sub_overflow(x, y, out);
    default: return !__builtin_mul_overflow(x, y, out);
    }
}

/* Result range of x op y over both ranges: the corners bound all three. */
static bool op_range(const dist *a, const dist *b, int op, int64_t *lo, int64_t *hi)
{
    int64_t xs[2] = {a->lo, hi_of(a)}, ys[2] = {b->lo, hi_of(b)};
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            int64_t v;
            if (!apply_op(op, xs[i], ys[j], &v))
                return false;
            *lo = v < *lo ? v : *lo;
            *hi = v > *hi ? v : *hi;
        }
    }
    return true;
}

/* x . y with four running sums, so that the additions overlap. */
static double dot(const double *x, const double *y, size_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* The terms of r[k] = sum over i of a[i] * b[k - i] for a of length na and
 * b of length nb: i runs over [*i0, *i0 + *len). When a and b are the same
 * (squaring, as in n copies of a die), the terms pair up, a[i] * a[k - i]
 * with a[k - i] * a[i]: then only i < k - i is listed and *center says
 * whether a[k / 2]^2 stands alone. */
static void conv_terms(size_t k, size_t na, size_t nb, bool square, size_t *i0, size_t *len, bool *center)
{
    size_t first = k >= nb - 1 ? k - (nb - 1) : 0, last = k < na - 1 ? k : na - 1;
    *i0 = first;
    *center = false;
    if (!square) {
        *len = last - first + 1;
        return;
    }
    size_t below = (k + 1) / 2; /* i < k - i */
    *len = below > first ? below - first : 0;
    *center = k % 2 == 0;
}

/* a + b by convolution, the heart of every sum of dice, as dot products of
 * a with b reversed (independent sums, no store per term; squaring does
 * half the work). Exact when the product of the totals fits, so the loop
 * needs no checks; otherwise in doubles, where products of non-negative terms
 * lose no precision to cancellation. */
static dist *convolve(const dist *a, const dist *b, int64_t lo, int64_t hi, dist_error *err)
{
    bool square = a == b;
    if (a->n > b->n) { /* the longer one reversed */
        const dist *t = a;
        a = b;
        b = t;
    }
    size_t na = a->n, nb = b->n;
    if ((double)na * (double)nb / (square ? 2 : 1) > max_convolution(err))
        return fail(err, "this sum is too much work to compute exactly (%zu by %zu outcomes; see --limit exact-work=N)",
                    na, nb);
    /* Every partial sum of r[k] is at most r[k], and the r[k] add up to at
       most a's total times b's: when that product fits, nothing overflows. */
    dist_count total;
    bool exact = a->exact && b->exact && !__builtin_mul_overflow(a->total, b->total, &total);
    dist *r = new_dist(lo, hi, exact, err);
    if (!r)
        return NULL;
    if (exact) {
        dist_count *rev = MEM_NEW_ARRAY(dist_count, nb);
        if (!rev) {
            dist_free(r);
            return oom(err);
        }
        for (size_t j = 0; j < nb; j++)
            rev[j] = b->w[nb - 1 - j];
        for (size_t k = 0; k < r->n; k++) {
            size_t i0, len;
            bool center;
            conv_terms(k, na, nb, square, &i0, &len, &center);
            const dist_count *x = a->w + i0, *y = rev + (nb - 1 - k + i0);
            dist_count s = 0;
            for (size_t i = 0; i < len; i++)
                s += x[i] * y[i];
            r->w[k] = (square ? 2 * s : s) + (center ? a->w[k / 2] * a->w[k / 2] : 0);
        }
        r->total = total;
        mem_free(rev, nb * sizeof *rev);
        return finish(r);
    }
    pview pa, pb;
    double *rev = MEM_NEW_ARRAY(double, nb);
    if (!rev || !pview_open(&pa, a, err)) {
        mem_free(rev, rev ? nb * sizeof *rev : 0);
        dist_free(r);
        return oom(err);
    }
    if (square) {
        pb = pa; /* borrowed: closed once, as pa */
        pb.owned = NULL;
    } else if (!pview_open(&pb, b, err)) {
        pview_close(&pa);
        mem_free(rev, nb * sizeof *rev);
        dist_free(r);
        return oom(err);
    }
    for (size_t j = 0; j < nb; j++)
        rev[j] = pb.p[nb - 1 - j];
    for (size_t k = 0; k < r->n; k++) {
        size_t i0, len;
        bool center;
        conv_terms(k, na, nb, square, &i0, &len, &center);
        double s = dot(pa.p + i0, rev + (nb - 1 - k + i0), len);
        r->p[k] = (square ? 2 * s : s) + (center ? pa.p[k / 2] * pa.p[k / 2] : 0.0);
    }
    double ra = remainder_of(a), rb = remainder_of(b);
    r->rem = ra + rb - ra * rb;
    finish(r);
    pview_close(&pb);
    pview_close(&pa);
    mem_free(rev, nb * sizeof *rev);
    return r;
}

static dist *pairwise(const dist *a, const dist *b, int op, dist_error *err)
{
    int64_t lo, hi;
    if (!op_range(a, b, op, &lo, &hi))
        return fail(err, "outcome does not fit in 64 bits");
    if (op == OP_ADD)
        return convolve(a, b, lo, hi, err);
    if (op == OP_SUB) { /* a - b is a + (-b): the same fast sum */
        dist *neg = dist_scale(b, -1, err);
        dist *r = neg ? convolve(a, neg, lo, hi, err) : NULL;
        dist_free(neg);
        return r;
    }
    if ((double)a->n * (double)b->n > max_convolution(err))
        return fail(err,
                    "this product is too much work to compute exactly (%zu by %zu outcomes; see --limit exact-work=N)",
                    a->n, b->n);
    dist_count total;
    if (a->exact && b->exact && !__builtin_mul_overflow(a->total, b->total, &total)) {
        dist *r = new_dist(lo, hi, true, err);
        if (!r)
            return NULL;
        r->total = total;
        bool ok = true;
        for (size_t i = 0; i < a->n && ok; i++) {
            if (!a->w[i])
                continue;
            int64_t x = a->lo + (int64_t)i;
            for (size_t j = 0; j < b->n; j++) {
                dist_count prod;
                int64_t v;
                if (!b->w[j])
                    continue;
                apply_op(op, x, b->lo + (int64_t)j, &v);
                dist_count *slot = &r->w[v - lo];
                if (__builtin_mul_overflow(a->w[i], b->w[j], &prod) || __builtin_add_overflow(*slot, prod, slot)) {
                    ok = false;
                    break;
                }
            }
        }
        if (ok)
            return finish(r);
        dist_free(r);
    }
    pview pa, pb;
    if (!pview_open(&pa, a, err))
        return NULL;
    if (!pview_open(&pb, b, err)) {
        pview_close(&pa);
        return NULL;
    }
    dist *r = new_dist(lo, hi, false, err);
    if (r) {
        for (size_t i = 0; i < a->n; i++) {
            if (pa.p[i] == 0.0)
                continue;
            int64_t x = a->lo + (int64_t)i;
            for (size_t j = 0; j < b->n; j++) {
                int64_t v;
                apply_op(op, x, b->lo + (int64_t)j, &v);
                r->p[v - lo] += pa.p[i] * pb.p[j];
            }
        }
        double ra = remainder_of(a), rb = remainder_of(b);
        r->rem = ra + rb - ra * rb;
        finish(r);
    }
    pview_close(&pa);
    pview_close(&pb);
    return r;
}

dist *dist_add(const dist *a, const dist *b, dist_error *err)
{
    return pairwise(a, b, OP_ADD, err);
}
dist *dist_sub(const dist *a, const dist *b, dist_error *err)
{
    return pairwise(a, b, OP_SUB, err);
}
dist *dist_mul(const dist *a, const dist *b, dist_error *err)
{
    return pairwise(a, b, OP_MUL, err);
}

/* ---------------------------------------------------------------- unary */

typedef int64_t (*map_fn)(int64_t x, const void *ctx);

/* y = fn(x) for a monotone-or-not fn whose results over a's outcomes lie in
 * lo..hi. Weights move unchanged, so exactness and remainder carry over. */
static dist *map_unary(const dist *a, map_fn fn, const void *ctx, int64_t lo, int64_t hi, dist_error *err)
{
    dist *r = new_dist(lo, hi, a->exact, err);
    if (!r)
        return NULL;
    r->total = a->total;
    r->rem = a->rem;
    for (size_t i = 0; i < a->n; i++) {
        int64_t y = fn(a->lo + (int64_t)i, ctx);
        if (a->exact)
            r->w[y - lo] += a->w[i];
        else
            r->p[y - lo] += a->p[i];
    }
    return finish(r);
}

static int64_t scale_fn(int64_t x, const void *ctx)
{
    return x * *(const int64_t *)ctx;
}

dist *dist_scale(const dist *a, int64_t k, dist_error *err)
{
    int64_t x1, x2;
    if (__builtin_mul_overflow(a->lo, k, &x1) || __builtin_mul_overflow(hi_of(a), k, &x2))
        return fail(err, "outcome does not fit in 64 bits");
    return map_unary(a, scale_fn, &k, x1 < x2 ? x1 : x2, x1 < x2 ? x2 : x1, err);
}

static int64_t floor_div(int64_t x, int64_t k)
{
    int64_t q = x / k;
    if (x % k != 0 && ((x < 0) != (k < 0)))
        q--;
    return q;
}

static int64_t floor_div_fn(int64_t x, const void *ctx)
{
    return floor_div(x, *(const int64_t *)ctx);
}

dist *dist_floor_div(const dist *a, int64_t k, dist_error *err)
{
    if (k == 0)
        return fail(err, "division by zero");
    if (k == -1)
        return dist_scale(a, -1, err); /* INT64_MIN / -1 overflows */
    int64_t x1 = floor_div(a->lo, k), x2 = floor_div(hi_of(a), k);
    return map_unary(a, floor_div_fn, &k, x1 < x2 ? x1 : x2, x1 < x2 ? x2 : x1, err);
}

static int64_t abs_fn(int64_t x, const void *ctx)
{
    (void)ctx;
    return x < 0 ? -x : x;
}

dist *dist_abs(const dist *a, dist_error *err)
{
    int64_t hi = hi_of(a);
    if (a->lo == INT64_MIN)
        return fail(err, "outcome does not fit in 64 bits");
    int64_t lo = a->lo <= 0 && hi >= 0 ? 0 : (a->lo > 0 ? a->lo : -hi);
    return map_unary(a, abs_fn, NULL, lo, -a->lo > hi ? -a->lo : hi, err);
}

/* ------------------------------------------------------------ max / min */

/* P(max = v) = pa(v) Fb(v) + Fa(v-1) pb(v) (and the mirror for min with tail
 * sums): no cancellation, and linear in the range instead of quadratic. */
static dist *extreme(const dist *a, const dist *b, bool want_max, dist_error *err)
{
    int64_t lo, hi;
    if (want_max) {
        lo = a->lo > b->lo ? a->lo : b->lo;
        hi = hi_of(a) > hi_of(b) ? hi_of(a) : hi_of(b);
    } else {
        lo = a->lo < b->lo ? a->lo : b->lo;
        hi = hi_of(a) < hi_of(b) ? hi_of(a) : hi_of(b);
    }
    int64_t alo = a->lo, ahi = hi_of(a), blo = b->lo, bhi = hi_of(b);
    /* Walk v in the direction where the cumulative sums grow. */
    int64_t start = want_max ? (alo < blo ? alo : blo) : (ahi > bhi ? ahi : bhi);
    int64_t stop = want_max ? hi : lo;
    int64_t step = want_max ? 1 : -1;
    dist_count total;
    if (a->exact && b->exact && !__builtin_mul_overflow(a->total, b->total, &total)) {
        dist *r = new_dist(lo, hi, true, err);
        if (!r)
            return NULL;
        r->total = total;
        dist_count fa = 0, fb = 0; /* mass of a (b) strictly before v */
        bool ok = true;
        for (int64_t v = start;; v += step) {
            dist_count wa = v >= alo && v <= ahi ? a->w[v - alo] : 0;
            dist_count wb = v >= blo && v <= bhi ? b->w[v - blo] : 0;
            dist_count t1, t2, sum;
            if (v >= lo && v <= hi) {
                if (__builtin_mul_overflow(wa, fb + wb, &t1) || __builtin_mul_overflow(fa, wb, &t2) ||
                    __builtin_add_overflow(t1, t2, &sum)) {
                    ok = false;
                    break;
                }
                r->w[v - lo] = sum;
            }
            fa += wa;
            fb += wb;
            if (v == stop)
                break;
        }
        if (ok)
            return finish(r);
        dist_free(r);
    }
    dist *r = new_dist(lo, hi, false, err);
    if (!r)
        return NULL;
    long double fa = 0, fb = 0;
    for (int64_t v = start;; v += step) {
        double pa = v >= alo && v <= ahi ? prob(a, (size_t)(v - alo)) : 0.0;
        double pb = v >= blo && v <= bhi ? prob(b, (size_t)(v - blo)) : 0.0;
        if (v >= lo && v <= hi)
            r->p[v - lo] = (double)(pa * (fb + pb) + fa * pb);
        fa += pa;
        fb += pb;
        if (v == stop)
            break;
    }
    double ra = remainder_of(a), rb = remainder_of(b);
    r->rem = ra + rb - ra * rb;
    return finish(r);
}

dist *dist_maximum(const dist *a, const dist *b, dist_error *err)
{
    return extreme(a, b, true, err);
}
dist *dist_minimum(const dist *a, const dist *b, dist_error *err)
{
    return extreme(a, b, false, err);
}

/* -------------------------------------------------------------- compare */

/* Index into a's prefix sums: mass of outcomes <= v. */
static size_t upto_index(const dist *a, int64_t v)
{
    if (v < a->lo)
        return 0;
    if (v > hi_of(a))
        return a->n;
    return (size_t)(v - a->lo) + 1;
}

dist *dist_compare(const dist *a, const dist *b, dist_cmp op, dist_error *err)
{
    /* For each y of b, the mass of a's x with (x op y) from prefix sums. */
    dist_count total;
    if (a->exact && b->exact && !__builtin_mul_overflow(a->total, b->total, &total)) {
        dist_count *pre = MEM_NEW_ARRAY(dist_count, a->n + 1);
        if (!pre)
            return oom(err);
        for (size_t i = 0; i < a->n; i++)
            pre[i + 1] = pre[i] + a->w[i];
        dist_count sa = pre[a->n], yes = 0, all = 0;
        bool ok = true;
        for (size_t j = 0; j < b->n && ok; j++) {
            if (!b->w[j])
                continue;
            int64_t y = b->lo + (int64_t)j;
            dist_count le = pre[upto_index(a, y)], lt = pre[upto_index(a, y - 1)], cnt;
            switch (op) {
            case DIST_EQ: cnt = le - lt; break;
            case DIST_NE: cnt = sa - (le - lt); break;
            case DIST_LT: cnt = lt; break;
            case DIST_LE: cnt = le; break;
            case DIST_GT: cnt = sa - le; break;
            default: cnt = sa - lt; break;
            }
            dist_count t, m;
            ok = !__builtin_mul_overflow(b->w[j], cnt, &t) && !__builtin_add_overflow(yes, t, &yes) &&
                 !__builtin_mul_overflow(b->w[j], sa, &m) && !__builtin_add_overflow(all, m, &all);
        }
        mem_free(pre, (a->n + 1) * sizeof *pre);
        if (ok) {
            dist *r = new_dist(0, 1, true, err);
            if (!r)
                return NULL;
            r->total = total;
            r->w[0] = all - yes;
            r->w[1] = yes;
            return finish(r);
        }
    }
    long double *pre = MEM_NEW_ARRAY(long double, a->n + 1);
    if (!pre)
        return oom(err);
    for (size_t i = 0; i < a->n; i++)
        pre[i + 1] = pre[i] + prob(a, i);
    long double sa = pre[a->n], yes = 0, all = 0;
    for (size_t j = 0; j < b->n; j++) {
        double pb = prob(b, j);
        if (pb == 0.0)
            continue;
        int64_t y = b->lo + (int64_t)j;
        long double le = pre[upto_index(a, y)], lt = pre[upto_index(a, y - 1)], cnt;
        switch (op) {
        case DIST_EQ: cnt = le - lt; break;
        case DIST_NE: cnt = sa - (le - lt); break;
        case DIST_LT: cnt = lt; break;
        case DIST_LE: cnt = le; break;
        case DIST_GT: cnt = sa - le; break;
        default: cnt = sa - lt; break;
        }
        yes += pb * cnt;
        all += pb * sa;
    }
    mem_free(pre, (a->n + 1) * sizeof *pre);
    dist *r = new_dist(0, 1, false, err);
    if (!r)
        return NULL;
    r->p[0] = (double)(all - yes);
    r->p[1] = (double)yes;
    double ra = remainder_of(a), rb = remainder_of(b);
    r->rem = ra + rb - ra * rb;
    return finish(r);
}

/* --------------------------------------------------------------- choose */

dist *dist_choose(const dist *c, const dist *t, const dist *f, dist_error *err)
{
    int64_t lo = t->lo < f->lo ? t->lo : f->lo;
    int64_t hi = hi_of(t) > hi_of(f) ? hi_of(t) : hi_of(f);
    bool zero_in = 0 >= c->lo && 0 <= hi_of(c);
    size_t z = zero_in ? (size_t)(0 - c->lo) : 0;
    dist_count tt, total;
    if (c->exact && t->exact && f->exact && !__builtin_mul_overflow(c->total, t->total, &tt) &&
        !__builtin_mul_overflow(tt, f->total, &total)) {
        dist_count cf = zero_in ? c->w[z] : 0, ct = mass128(c) - cf;
        dist *r = new_dist(lo, hi, true, err);
        if (!r)
            return NULL;
        r->total = total;
        bool ok = true;
        for (size_t i = 0; i < r->n && ok; i++) { /* by index: hi may be INT64_MAX */
            int64_t v = lo + (int64_t)i;
            dist_count wt = v >= t->lo && v <= hi_of(t) ? t->w[v - t->lo] : 0;
            dist_count wf = v >= f->lo && v <= hi_of(f) ? f->w[v - f->lo] : 0;
            dist_count x1, x2;
            ok = !__builtin_mul_overflow(ct, wt, &x1) && !__builtin_mul_overflow(x1, f->total, &x1) &&
                 !__builtin_mul_overflow(cf, wf, &x2) && !__builtin_mul_overflow(x2, t->total, &x2) &&
                 !__builtin_add_overflow(x1, x2, &r->w[v - lo]);
        }
        if (ok)
            return finish(r);
        dist_free(r);
    }
    double pf = zero_in ? prob(c, z) : 0.0, pt = 0.0;
    for (size_t i = 0; i < c->n; i++)
        if (!zero_in || i != z)
            pt += prob(c, i);
    dist *r = new_dist(lo, hi, false, err);
    if (!r)
        return NULL;
    for (size_t i = 0; i < r->n; i++) {
        int64_t v = lo + (int64_t)i;
        double xt = v >= t->lo && v <= hi_of(t) ? prob(t, (size_t)(v - t->lo)) : 0.0;
        double xf = v >= f->lo && v <= hi_of(f) ? prob(f, (size_t)(v - f->lo)) : 0.0;
        r->p[v - lo] = pt * xt + pf * xf;
    }
    r->rem = remainder_of(c) + pt * remainder_of(t) + pf * remainder_of(f);
    return finish(r);
}

/* ----------------------------------------------------- one die, rerolls */

/* What one kept face adds to the total. */
static int64_t face_score(const dice *d, int64_t v)
{
    if (d->success_cmp == DICE_CMP_NONE)
        return v;
    return (int64_t)dice_cmp_holds(d->success_cmp, v, d->success_at) -
           (int64_t)dice_cmp_holds(d->failure_cmp, v, d->failure_at);
}

static int64_t score_fn(int64_t x, const void *ctx)
{
    return face_score(ctx, x);
}

/* One roll with the reroll rule applied. "r" repeats while the condition
 * holds, so the die is uniform over the faces that don't meet it; "ro" is a
 * mixture: keep the first roll, or (if it met the condition) a fresh one.
 * The roller's shared budget of DICE_MAX_EXPLOSIONS extra dice is ignored
 * here: running out of it takes 100 consecutive rerolls. */
static dist *raw_roll(const dice *d, dist_error *err)
{
    int64_t lo = d->fudge ? -1 : 1, hi = d->fudge ? 1 : d->sides;
    dist_count s = (dist_count)(hi - lo + 1), meet = 0;
    dist *r = new_dist(lo, hi, true, err);
    if (!r)
        return NULL;
    for (int64_t v = lo; v <= hi; v++)
        meet += dice_cmp_holds(d->reroll_cmp, v, d->reroll_at);
    if (d->reroll_cmp == DICE_CMP_NONE || meet == 0) {
        r->total = s;
        for (size_t i = 0; i < r->n; i++)
            r->w[i] = 1;
    } else if (!d->reroll_once) {
        if (meet == s) {
            dist_free(r);
            return fail(err, "rerolling every face never ends");
        }
        r->total = s - meet;
        for (int64_t v = lo; v <= hi; v++)
            r->w[v - lo] = !dice_cmp_holds(d->reroll_cmp, v, d->reroll_at);
    } else {
        r->total = s * s;
        for (int64_t v = lo; v <= hi; v++)
            r->w[v - lo] = (dice_cmp_holds(d->reroll_cmp, v, d->reroll_at) ? 0 : s) + meet;
    }
    return finish(r);
}

/* ------------------------------------------------------------ explosions */

typedef struct explode_plan {
    const dice *d;
    const dist *raw;
    bool face_scores; /* contributions are success scores of each face */
} explode_plan;

static bool explodes(const dice *d, int64_t v)
{
    return dice_cmp_holds(d->explode_cmp, v, d->explode_at);
}

/* What a roll of raw value v at chain level `level` adds. */
static int64_t contribution(const explode_plan *pl, int64_t v, int level)
{
    const dice *d = pl->d;
    int64_t shown = v;
    if (d->explode == DICE_PENETRATE && level > 0)
        shown--;
    return pl->face_scores ? face_score(d, shown) : shown;
}

/* The chain from `level` on, given the chain from level+1 (`next`, NULL at
 * the deepest level, where exploding rolls either stand or are cut). */
static dist *chain_level(const explode_plan *pl, int level, const dist *next, bool stand, dist_error *err)
{
    const dist *raw = pl->raw;
    const dice *d = pl->d;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < raw->n; i++) {
        int64_t v = raw->lo + (int64_t)i;
        if (!raw->w[i])
            continue;
        int64_t c = contribution(pl, v, level), a = c, b = c;
        if (explodes(d, v)) {
            if (next) {
                a = c + next->lo;
                b = c + hi_of(next);
            } else if (!stand) {
                continue;
            }
        }
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    if (lo > hi)
        return fail(err, "every roll explodes");
    dist_count nt = next && next->exact ? next->total : 1, total;
    if ((!next || next->exact) && !__builtin_mul_overflow(raw->total, nt, &total)) {
        dist *r = new_dist(lo, hi, true, err);
        if (!r)
            return NULL;
        r->total = total;
        bool ok = true;
        for (size_t i = 0; i < raw->n && ok; i++) {
            int64_t v = raw->lo + (int64_t)i;
            int64_t c = contribution(pl, v, level);
            dist_count x;
            if (!raw->w[i])
                continue;
            if (!explodes(d, v) || (!next && stand)) {
                ok = !__builtin_mul_overflow(raw->w[i], nt, &x) &&
                     !__builtin_add_overflow(r->w[c - lo], x, &r->w[c - lo]);
            } else if (next) {
                for (size_t j = 0; j < next->n && ok; j++) {
                    dist_count *slot = &r->w[c + next->lo + (int64_t)j - lo];
                    ok = !__builtin_mul_overflow(raw->w[i], next->w[j], &x) && !__builtin_add_overflow(*slot, x, slot);
                }
            }
        }
        if (ok)
            return finish(r);
        dist_free(r);
    }
    dist *r = new_dist(lo, hi, false, err);
    if (!r)
        return NULL;
    double rn = next ? remainder_of(next) : 0.0;
    r->rem = 0.0;
    for (size_t i = 0; i < raw->n; i++) {
        int64_t v = raw->lo + (int64_t)i;
        int64_t c = contribution(pl, v, level);
        double pv = prob(raw, i);
        if (pv == 0.0)
            continue;
        if (!explodes(d, v) || (!next && stand)) {
            r->p[c - lo] += pv;
        } else if (next) {
            for (size_t j = 0; j < next->n; j++)
                r->p[c + next->lo + (int64_t)j - lo] += pv * prob(next, j);
            r->rem += pv * rn;
        } else {
            r->rem += pv;
        }
    }
    return finish(r);
}

/* A whole exploding die: the sum (or success count) of its chain of rolls.
 * The chain is built to the depth where the chance of exploding further is
 * below epsilon and that last bit is cut (and reported as remainder); if
 * that depth exceeds max_depth, the roll at max_depth stands instead, as the
 * roller does when its budget of extra dice runs out. */
static dist *explode_die(const explode_plan *pl, double epsilon, int max_depth, dist_error *err)
{
    const dist *raw = pl->raw;
    long double pe = 0;
    for (size_t i = 0; i < raw->n; i++)
        if (explodes(pl->d, raw->lo + (int64_t)i))
            pe += (long double)raw->w[i] / (long double)raw->total;
    if (pe >= 1.0L)
        return fail(err, "an explosion on every face never ends");
    int depth = 0;
    long double cut = pe;
    while (!(cut < epsilon) && depth < max_depth) {
        depth++;
        cut *= pe;
    }
    bool stand = !(cut < epsilon);
    /* level k spreads each face over the (depth - k) * faces outcomes of
       the levels above it: a die of hundreds of faces that nearly always
       explodes is millions of times the work of a d6 */
    double work = (double)raw->n * (double)raw->n * ((double)depth + 1) * ((double)depth + 2) / 2;
    if (work > max_work(err))
        return fail(err,
                    "this explosion is too much work to compute exactly (%d levels of %zu faces; see --limit "
                    "exact-work=N)",
                    depth + 1, raw->n);
    dist *y = NULL;
    for (int level = depth; level >= 0; level--) {
        dist *next = chain_level(pl, level, y, stand, err);
        dist_free(y);
        if (!next)
            return NULL;
        y = next;
    }
    return y;
}

/* --------------------------------------------------------------- sums */

static dist *sum_iid(const dist *unit, int32_t n, dist_error *err);

/* The last n - k dice of a sum of n uniform dice of s faces, added one at a
 * time to r (its first len entries hold the exact sum of k) with a running
 * window in long double, in place. Takes r. */
static dist *window_rest(dist *r, int32_t k, size_t len, int64_t s, int32_t n, dist_error *err)
{
    double *p = MEM_NEW_ARRAY(double, r->cap);
    if (!p) {
        dist_free(r);
        return oom(err);
    }
    long double inv_total = 1.0L / (long double)r->total;
    for (size_t i = 0; i < len; i++)
        p[i] = (double)((long double)r->w[i] * inv_total);
    mem_free(r->w, r->cap * sizeof *r->w);
    r->w = NULL;
    r->p = p;
    r->exact = false;
    r->rem = 0.0;
    long double inv = 1.0L / (long double)s;
    for (; k < n; k++) {
        size_t nlen = len + (size_t)s - 1;
        /* new[x] = (old[x - s + 1] + ... + old[x]) / s, walking x down so
           that what is still needed is not overwritten yet */
        long double win = 0;
        for (size_t t = nlen - (size_t)s; t < nlen; t++)
            win += t < len ? p[t] : 0.0;
        for (size_t x = nlen; x-- > 0;) {
            double old = x < len ? p[x] : 0.0, v = (double)(win * inv);
            p[x] = v > 0.0 ? v : 0.0; /* cancellation can leave dust below zero */
            win -= old;
            if (x >= (size_t)s)
                win += x - (size_t)s < len ? p[x - (size_t)s] : 0.0;
        }
        len = nlen;
    }
    return finish(r);
}

/* n independent copies of a uniform die lo..hi, by a sliding window. */
static dist *sum_uniform(int64_t lo, int64_t hi, int32_t n, dist_error *err)
{
    int64_t s = hi - lo + 1;
    __int128 span = (__int128)n * (s - 1) + 1;
    if (span > (__int128)max_outcomes(err))
        return too_many_outcomes(err);
    dist *r = new_dist(lo * n, hi * n, true, err);
    if (!r)
        return NULL;
    r->total = 1;
    r->w[0] = 1;
    size_t len = 1; /* live entries after k dice */
    int32_t k = 0;
    for (; k < n; k++) {
        dist_count total;
        if (__builtin_mul_overflow(r->total, (dist_count)s, &total))
            break;
        /* new[x] = old[x - s + 1] + ... + old[x]. Walking x down, every
         * old value still needed sits below x and is not overwritten yet;
         * entries at or past len are zero (never written). */
        size_t nlen = len + (size_t)s - 1;
        dist_count win = 0;
        for (size_t t = nlen - (size_t)s; t < nlen; t++)
            win += r->w[t];
        for (size_t x = nlen; x-- > 0;) {
            dist_count old = r->w[x];
            r->w[x] = win;
            win -= old;
            if (x >= (size_t)s)
                win += r->w[x - (size_t)s];
        }
        len = nlen;
        r->total = total;
    }
    if (k == n)
        return finish(r);
    /* Counts overflowed after k dice. Where it is not too much work, n =
     * q*k + rest, and the sum is q copies of the exact k-dice sum (by
     * squaring) plus rest more dice, in doubles from there on: no
     * subtraction anywhere to lose precision. For the widest sums (a
     * hundred d1000), die by die with a running window instead: far less
     * work, the tails good only to about 1e-18 of the peak. */
    double half = (double)span / 2;
    if (half * half / 2 > max_convolution(err)) {
        if ((double)(n - k) * half > max_convolution(err)) {
            dist_free(r);
            return fail(
                err, "this sum is too much work to compute exactly (%d dice of %lld sides; see --limit exact-work=N)",
                n, (long long)s);
        }
        return window_rest(r, k, len, s, n, err);
    }
    r->lo = lo * k; /* so far it holds k dice, in its first len entries */
    r->n = len;
    finish(r);
    dist *result = sum_iid(r, n / k, err);
    dist_free(r);
    if (result && n % k) {
        dist *rest = sum_uniform(lo, hi, n % k, err);
        dist *both = rest ? dist_add(result, rest, err) : NULL;
        dist_free(rest);
        dist_free(result);
        result = both;
    }
    return result;
}

/* n independent copies of any distribution, by repeated squaring. */
static dist *sum_iid(const dist *unit, int32_t n, dist_error *err)
{
    __int128 span = (__int128)n * ((int64_t)unit->n - 1) + 1;
    if (span > (__int128)max_outcomes(err))
        return too_many_outcomes(err);
    dist *acc = NULL, *base = dist_copy(unit, err);
    if (!base)
        return NULL;
    while (n > 0) {
        if (n & 1) {
            dist *next = acc ? dist_add(acc, base, err) : dist_copy(base, err);
            dist_free(acc);
            acc = next;
            if (!acc)
                break;
        }
        n >>= 1;
        if (n > 0) {
            dist *sq = dist_add(base, base, err);
            dist_free(base);
            base = sq;
            if (!base)
                break;
        }
    }
    if (!base || !acc) {
        dist_free(base);
        dist_free(acc);
        return NULL;
    }
    dist_free(base);
    return acc;
}

/* ------------------------------------------------------------ keep/drop */

/* Sum of the scores of the `keep` best of n independent dice, each
 * distributed as `unit`, where "best" is by face value (highest or lowest
 * first). An order-statistics DP over face values from best to worst: the
 * state is (dice placed so far, kept score so far); placing c dice on the
 * current value multiplies by C(n - placed, c) p^c. Once `keep` dice are
 * placed the rest only need to fall below, so the state stays under keep. */
typedef struct keep_job {
    const dist *unit;
    int32_t n, keep;
    size_t m;       /* values with nonzero weight, best first */
    int64_t *val;   /* [m] */
    int64_t *score; /* [m] */
    int64_t smin, smax;
    size_t width; /* row width: k * (smax - smin) + 1 */
} keep_job;

static dist *keep_exact(const keep_job *kj, dist_error *err, bool *overflow)
{
    const dist *u = kj->unit;
    int32_t n = kj->n, k = kj->keep;
    size_t w = kj->width, m = kj->m;
    *overflow = false;
    dist_count total = 1;
    for (int32_t i = 0; i < n; i++)
        if (__builtin_mul_overflow(total, u->total, &total)) {
            *overflow = true;
            return NULL;
        }
    /* C(a, b) for a <= n: n <= 127 here since total^n fit in 128 bits. */
    size_t rows = (size_t)n + 1;
    dist_count *binom = MEM_NEW_ARRAY(dist_count, rows * rows);
    dist_count *f = MEM_NEW_ARRAY(dist_count, (size_t)k * w);
    dist_count *pw = MEM_NEW_ARRAY(dist_count, rows);
    dist_count *rest = MEM_NEW_ARRAY(dist_count, rows);
    dist_count *wt = MEM_NEW_ARRAY(dist_count, m);
    dist *r = new_dist((int64_t)k * kj->smin, (int64_t)k * kj->smax, true, err);
    bool allocated = binom && f && pw && rest && wt && r, ok = allocated;
    for (size_t a = 0; ok && a < rows; a++) {
        binom[a * rows] = 1;
        for (size_t b = 1; b <= a && ok; b++)
            ok =
                !__builtin_add_overflow(binom[(a - 1) * rows + b - 1], binom[(a - 1) * rows + b], &binom[a * rows + b]);
    }
    for (size_t j = 0; ok && j < m; j++)
        wt[j] = u->w[kj->val[j] - u->lo];
    if (ok) {
        r->total = total;
        f[0 * w + 0] = 1; /* row i holds kept sums i*smin .. i*smax */
    }
    dist_count below = 0; /* weight of values after the current one */
    for (size_t j = 0; ok && j < m; j++)
        below += wt[j];
    for (size_t j = 0; ok && j < m; j++) {
        below -= wt[j];
        pw[0] = rest[0] = 1;
        for (int32_t c = 1; c <= n && ok; c++)
            ok = !__builtin_mul_overflow(pw[c - 1], wt[j], &pw[c]) &&
                 !__builtin_mul_overflow(rest[c - 1], below, &rest[c]);
        int64_t sc = kj->score[j];
        for (int32_t i = k - 1; i >= 0 && ok; i--) {
            int32_t left = n - i;
            const dist_count *brow = &binom[(size_t)left * rows];
            /* row i holds sums of i scores: only its first i * (smax -
               smin) + 1 cells can be live (keeping 1 of 2 d220000 was
               otherwise m * w steps, where the estimate counts m) */
            size_t live = (size_t)i * (size_t)(kj->smax - kj->smin) + 1;
            if (live > w)
                live = w;
            for (size_t s = 0; s < live && ok; s++) {
                dist_count cur = f[(size_t)i * w + s];
                if (!cur)
                    continue;
                int64_t sum = (int64_t)s + (int64_t)i * kj->smin; /* the kept score */
                for (int32_t c = 1; c <= left && ok; c++) {
                    dist_count x;
                    ok = !__builtin_mul_overflow(cur, brow[c], &x) && !__builtin_mul_overflow(x, pw[c], &x);
                    if (!ok)
                        break;
                    if (i + c < k) {
                        dist_count *slot =
                            &f[(size_t)(i + c) * w + (size_t)(sum + c * sc - (int64_t)(i + c) * kj->smin)];
                        ok = !__builtin_add_overflow(*slot, x, slot);
                    } else {
                        int64_t kept = sum + (int64_t)(k - i) * sc;
                        dist_count *slot = &r->w[kept - r->lo];
                        ok = !__builtin_mul_overflow(x, rest[left - c], &x) && !__builtin_add_overflow(*slot, x, slot);
                    }
                }
            }
        }
    }
    if (binom)
        mem_free(binom, rows * rows * sizeof *binom);
    if (f)
        mem_free(f, (size_t)k * w * sizeof *f);
    if (pw)
        mem_free(pw, rows * sizeof *pw);
    if (rest)
        mem_free(rest, rows * sizeof *rest);
    if (wt)
        mem_free(wt, m * sizeof *wt);
    if (!ok) {
        if (!allocated && r)
            oom(err); /* new_dist already said why when it failed */
        *overflow = allocated;
        dist_free(r);
        return NULL;
    }
    return finish(r);
}

/* log C(a, b) for the binomial pmf of big pools. */
static double log_choose(int32_t a, int32_t b)
{
    return lgamma(a + 1.0) - lgamma(b + 1.0) - lgamma(a - b + 1.0);
}

/* The same DP in probabilities, kept as conditional probabilities so that
 * nothing overflows or underflows for big pools: given `left` dice all at
 * or below the current value, the number exactly on it is binomial with
 * p = p_j / (mass at or below). */
static dist *keep_double(const keep_job *kj, dist_error *err)
{
    const dist *u = kj->unit;
    int32_t n = kj->n, k = kj->keep;
    size_t w = kj->width, m = kj->m;
    double *f = MEM_NEW_ARRAY(double, (size_t)k *w);
    double *pmf = MEM_NEW_ARRAY(double, (size_t)n + 1);
    double *pj = MEM_NEW_ARRAY(double, m);
    double *tail = MEM_NEW_ARRAY(double, m + 1);         /* mass of values j.. */
    size_t *span = MEM_NEW_ARRAY(size_t, 2 * (size_t)k); /* live cells of row i: [span[2i], span[2i+1]) */
    dist *r = new_dist((int64_t)k * kj->smin, (int64_t)k * kj->smax, false, err);
    bool ok = f && pmf && pj && tail && span && r;
    if (ok) {
        for (size_t j = 0; j < m; j++)
            pj[j] = prob(u, (size_t)(kj->val[j] - u->lo));
        tail[m] = 0.0;
        long double acc = 0;
        for (size_t j = m; j-- > 0;) {
            acc += pj[j];
            tail[j] = (double)acc;
        }
        double ru = remainder_of(u);
        r->rem = 1.0 - pow(1.0 - ru, n);
        f[0] = pow(tail[0], n); /* every die lands on a represented value */
        for (int32_t i = 0; i < k; i++) {
            span[2 * i] = w;
            span[2 * i + 1] = 0;
        }
        span[0] = 0;
        span[1] = 1;
    }
    for (size_t j = 0; ok && j < m && tail[j] > 0.0; j++) {
        double q = pj[j] / tail[j], nq = tail[j + 1] / tail[j];
        int64_t sc = kj->score[j];
        for (int32_t i = k - 1; i >= 0; i--) {
            int32_t left = n - i;
            if (q >= 1.0) {
                for (int32_t c = 0; c <= left; c++)
                    pmf[c] = c == left ? 1.0 : 0.0;
            } else if (left <= 512) {
                /* C(left, c) q^c: products only, no transcendental calls per
                 * term (this is the hot part for small pools); C(512, 256)
                 * and the powers stay inside double range. */
                double coef = 1.0;
                for (int32_t c = 0; c <= left; c++) {
                    pmf[c] = coef;
                    coef = coef * (left - c) / (c + 1) * q;
                }
                double tailp = 1.0;
                for (int32_t c = left; c >= 0; c--) {
                    pmf[c] *= tailp;
                    tailp *= nq;
                }
            } else {
                for (int32_t c = 0; c <= left; c++)
                    pmf[c] = exp(log_choose(left, c) + c * log(q) + (left - c) * log(nq));
            }
            /* Row i, shifted, feeds rows i + c (c more dice on this value,
               each adding its score) and, once k dice are placed, the
               result, where every c >= k - i lands on the same sum. Whole
               rows at a time: plain multiply-adds over arrays. */
            size_t s0 = span[2 * i], s1 = span[2 * i + 1];
            if (s0 >= s1)
                continue;
            double *row = f + (size_t)i * w;
            double done = 0.0;
            for (int32_t c = k - i; c <= left; c++)
                done += pmf[c];
            if (done > 0.0) {
                double *out = r->p + ((int64_t)i * kj->smin + (int64_t)(k - i) * sc - r->lo);
                for (size_t s = s0; s < s1; s++)
                    out[s] += row[s] * done;
            }
            for (int32_t c = 1; c <= left && i + c < k; c++) {
                size_t shift = (size_t)c * (size_t)(sc - kj->smin);
                double *dst = f + (size_t)(i + c) * w + shift, pc = pmf[c];
                for (size_t s = s0; s < s1; s++)
                    dst[s] += row[s] * pc;
                size_t *sp = &span[2 * (i + c)];
                sp[0] = s0 + shift < sp[0] ? s0 + shift : sp[0];
                sp[1] = s1 + shift > sp[1] ? s1 + shift : sp[1];
            }
            for (size_t s = s0; s < s1; s++)
                row[s] *= pmf[0];
        }
    }
    if (f)
        mem_free(f, (size_t)k * w * sizeof *f);
    if (pmf)
        mem_free(pmf, ((size_t)n + 1) * sizeof *pmf);
    if (pj)
        mem_free(pj, m * sizeof *pj);
    if (tail)
        mem_free(tail, (m + 1) * sizeof *tail);
    if (span)
        mem_free(span, 2 * (size_t)k * sizeof *span);
    if (!ok) {
        dist_free(r);
        return oom(err);
    }
    return finish(r);
}

static dist *keep_pool(const dice *d, const dist *unit, int32_t n, int32_t keep, bool highest, dist_error *err)
{
    keep_job kj = {.unit = unit, .n = n, .keep = keep};
    size_t m = 0;
    for (size_t i = 0; i < unit->n; i++)
        m += nonzero(unit, i);
    kj.m = m;
    kj.val = MEM_NEW_ARRAY(int64_t, m);
    kj.score = MEM_NEW_ARRAY(int64_t, m);
    if (!kj.val || !kj.score) {
        if (kj.val)
            mem_free(kj.val, m * sizeof *kj.val);
        if (kj.score)
            mem_free(kj.score, m * sizeof *kj.score);
        return oom(err);
    }
    size_t at = 0;
    kj.smin = INT64_MAX;
    kj.smax = INT64_MIN;
    for (size_t t = 0; t < unit->n; t++) {
        size_t i = highest ? unit->n - 1 - t : t;
        if (!nonzero(unit, i))
            continue;
        kj.val[at] = unit->lo + (int64_t)i;
        kj.score[at] = face_score(d, kj.val[at]);
        kj.smin = kj.score[at] < kj.smin ? kj.score[at] : kj.smin;
        kj.smax = kj.score[at] > kj.smax ? kj.score[at] : kj.smax;
        at++;
    }
    dist *r = NULL;
    __int128 width = (__int128)keep * ((__int128)kj.smax - kj.smin) + 1;
    /* the rows the DP fills, for each face value: row i spreads to the
       next min(n - i, keep - i) rows, over the i * (smax - smin) + 1 sums
       it can hold */
    double work = 0;
    for (int32_t i = 0; i < keep && work <= max_work(err); i++)
        work +=
            (double)m * (double)(n - i < keep - i ? n - i : keep - i) * ((double)i * (double)(kj.smax - kj.smin) + 1) +
            /* and the binomial terms of the row, each a few logs and an
               exp when more than 512 dice are left */
            (double)m * (double)(n - i) * (n - i > 512 ? 16 : 1);
    if (width > (__int128)max_outcomes(err)) {
        too_many_outcomes(err);
    } else if (work > max_work(err)) {
        fail(err, "keeping %d of %d dice is too much work to compute exactly (see --limit exact-work=N)", (int)keep,
             (int)n);
    } else {
        kj.width = (size_t)width;
        bool overflow = false;
        if (unit->exact)
            r = keep_exact(&kj, err, &overflow);
        if (!unit->exact || overflow)
            r = keep_double(&kj, err);
    }
    mem_free(kj.val, m * sizeof *kj.val);
    mem_free(kj.score, m * sizeof *kj.score);
    return r;
}

/* Keep highest/lowest k faces of n exploding dice where every extra die is
 * a face of its own ('!'). The rolls form one iid sequence that ends at the
 * n-th roll that does not explode, so a pool with u_v non-exploding and e_v
 * exploding faces of value v (E exploding in all) has probability
 *     n!/prod(u_v!) prod(p^u)  *  (n+E-1)!/((n-1)! prod(e_v!)) prod(p^e).
 * The DP walks values best first with state (non-exploding placed a,
 * exploding placed b, kept score); placing c non-exploding faces multiplies
 * by C(n-a, c) p^c and placing e exploding ones by C(n-1+b+e, e) p^e. Once k
 * faces are placed, the rest fall below: the non-exploding ones with mass
 * Q^(n-a), the unbounded number of exploding ones with the negative binomial
 * sum (1-R)^-(n+b). The number of faces is unbounded, but the kept faces
 * are single dice, so no depth cut is needed and nothing is lost. Computed
 * in doubles: the denominators (1-R)^(n+b) are not powers of one total. */
static dist *keep_exploding(const dice *d, const dist *raw, int32_t n, int32_t k, bool highest, dist_error *err)
{
    size_t m = raw->n;
    int64_t smin = INT64_MAX, smax = INT64_MIN;
    for (size_t i = 0; i < m; i++) {
        int64_t sc = face_score(d, raw->lo + (int64_t)i);
        smin = sc < smin ? sc : smin;
        smax = sc > smax ? sc : smax;
    }
    __int128 width128 = (__int128)k * (smax - smin) + 1;
    double work = (double)m * k * k * (double)width128 * (n + k);
    if (width128 > (__int128)max_outcomes(err))
        return too_many_outcomes(err);
    if (work > max_work(err))
        return fail(err, "keeping %d of %d exploding dice is too much work to compute (see --limit exact-work=N)",
                    (int)k, (int)n);
    size_t w = (size_t)width128, ks = (size_t)k;
    /* f[(a * k + b) * w + s - (a + b) * smin] */
    size_t npow = ks + (size_t)n + 1;
    long double *f = MEM_NEW_ARRAY(long double, ks *ks *w);
    long double *qpow = MEM_NEW_ARRAY(long double, npow), *rinv = MEM_NEW_ARRAY(long double, npow);
    long double *stay = MEM_NEW_ARRAY(long double, ks + 1);
    dist *r = new_dist((int64_t)k * smin, (int64_t)k * smax, false, err);
    if (!f || !qpow || !rinv || !stay || !r) {
        if (f)
            mem_free(f, ks * ks * w * sizeof *f);
        if (qpow)
            mem_free(qpow, npow * sizeof *qpow);
        if (rinv)
            mem_free(rinv, npow * sizeof *rinv);
        if (stay)
            mem_free(stay, (ks + 1) * sizeof *stay);
        dist_free(r);
        return r ? oom(err) : NULL;
    }
    long double qbelow = 0, rbelow = 0; /* non-exploding / exploding mass below */
    for (size_t i = 0; i < m; i++) {
        long double p = prob(raw, i);
        if (explodes(d, raw->lo + (int64_t)i))
            rbelow += p;
        else
            qbelow += p;
    }
    f[0] = 1;
    for (size_t t = 0; t < m; t++) {
        size_t i = highest ? m - 1 - t : t;
        int64_t v = raw->lo + (int64_t)i, sc = face_score(d, v);
        long double p = prob(raw, i);
        bool ex = explodes(d, v);
        if (ex)
            rbelow -= p;
        else
            qbelow -= p;
        if (rbelow < 0)
            rbelow = 0;
        if (qbelow < 0)
            qbelow = 0;
        if (p == 0)
            continue;
        long double x = p / (1 - rbelow); /* for the exploding tail sum */
        /* qpow[e] = Q^e, rinv[e] = (1-R)^-e: hoisted out of the state loops. */
        for (size_t e = 0; e <= ks + (size_t)n; e++) {
            qpow[e] = e ? qpow[e - 1] * qbelow : 1;
            rinv[e] = e ? rinv[e - 1] / (1 - rbelow) : 1;
        }
        for (int32_t placed = k - 1; placed >= 0; placed--) {
            for (int32_t a = 0; a <= placed; a++) {
                int32_t b = placed - a, room = k - placed;
                long double *row = &f[((size_t)a * ks + (size_t)b) * w];
                int64_t base = (int64_t)placed * smin;
                /* Coefficients depend on (a, b) only: stay[c] moves c faces
                 * into the DP, fin is the mass that finishes the pool here. */
                int32_t top = ex ? room - 1 : (n - a < room - 1 ? n - a : room - 1);
                long double fin = 0, coef = 1;
                if (!ex) {
                    for (int32_t c = 1; c <= n - a; c++) {
                        coef = coef * (long double)(n - a - c + 1) / c * p;
                        if (c < room)
                            stay[c] = coef;
                        else
                            fin += coef * qpow[n - a - c] * rinv[n + b];
                    }
                } else {
                    /* e < room stays in the DP; e >= room finishes. With
                     * M = n + b: sum_{e>=0} C(M-1+e, e) x^e = (1-x)^-M. */
                    long double partial = 1; /* e = 0 term */
                    int32_t mm = n + b;
                    for (int32_t e = 1; e < room; e++) {
                        coef = coef * (long double)(mm - 1 + e) / e * p;
                        stay[e] = coef;
                        partial += coef * rinv[e];
                    }
                    long double tail = powl(1 - x, -(long double)mm) - partial;
                    fin = (tail > 0 ? tail : 0) * rinv[mm] * qpow[n - a];
                }
                for (size_t s2 = 0; s2 < w; s2++) {
                    long double cur = row[s2];
                    if (cur == 0)
                        continue;
                    int64_t sum = (int64_t)s2 + base;
                    for (int32_t c = 1; c <= top; c++) {
                        size_t cell = ex ? ((size_t)a * ks + (size_t)(b + c)) : ((size_t)(a + c) * ks + (size_t)b);
                        f[cell * w + (size_t)(sum + c * sc - (int64_t)(placed + c) * smin)] += cur * stay[c];
                    }
                    if (fin != 0)
                        r->p[sum + (int64_t)room * sc - r->lo] += (double)(cur * fin);
                }
            }
        }
    }
    mem_free(f, ks * ks * w * sizeof *f);
    mem_free(qpow, npow * sizeof *qpow);
    mem_free(rinv, npow * sizeof *rinv);
    mem_free(stay, (ks + 1) * sizeof *stay);
    for (size_t i = 0; i < r->n; i++)
        if (!isfinite(r->p[i])) {
            dist_free(r);
            return fail(err, "keeping %d of %d exploding dice does not fit in doubles", (int)k, (int)n);
        }
    r->rem = remainder_of(raw); /* raw rolls are complete: 0 */
    return finish(r);
}

/* ------------------------------------------------------------ dist_dice */

static bool covers_all(uint8_t cmp, int32_t at, int64_t lo, int64_t hi)
{
    for (int64_t v = lo; v <= hi; v++)
        if (!dice_cmp_holds(cmp, v, at))
            return false;
    return true;
}

/* Shared by dist_dice and dist_keep: one die's faces to a pool total. */
static dist *pool_of(const dice *d, const dist *unit, bool keep_applies, dist_error *err)
{
    int32_t n = d->count, kept = n;
    bool highest = true;
    if (keep_applies) {
        switch (d->keep) {
        case DICE_KEEP_HIGH: kept = d->keep_n; break;
        case DICE_KEEP_LOW: kept = d->keep_n, highest = false; break;
        case DICE_DROP_HIGH: kept = n - d->keep_n, highest = false; break;
        case DICE_DROP_LOW: kept = n - d->keep_n; break;
        default: break;
        }
    }
    if (kept <= 0)
        return dist_constant(0, err);
    if (kept < n)
        return keep_pool(d, unit, n, kept, highest, err);
    if (d->success_cmp == DICE_CMP_NONE)
        return sum_iid(unit, n, err);
    /* No keep: each die's success score, summed. */
    int64_t lo = d->failure_cmp != DICE_CMP_NONE ? -1 : 0;
    dist *scored = map_unary(unit, score_fn, d, lo, 1, err);
    if (!scored)
        return NULL;
    dist *r = sum_iid(scored, n, err);
    dist_free(scored);
    return r;
}

/* How many of the faces lo..hi `CMP at` holds for. */
static int64_t faces_meeting(uint8_t cmp, int32_t at, int64_t lo, int64_t hi)
{
    int64_t a = lo, b = hi; /* the faces it holds for: a..b */
    switch (cmp) {
    case DICE_CMP_EQ: a = b = at; break;
    case DICE_CMP_GE: a = at; break;
    case DICE_CMP_GT: a = (int64_t)at + 1; break;
    case DICE_CMP_LE: b = at; break;
    case DICE_CMP_LT: b = (int64_t)at - 1; break;
    default: return 0;
    }
    a = a < lo ? lo : a;
    b = b > hi ? hi : b;
    return b >= a ? b - a + 1 : 0;
}

/* The chance that a roll of d wants more extra dice than a roll may make.
 * A roll makes at most DICE_MAX_EXPLOSIONS extra dice, explosions and
 * rerolls together, over the whole pool (dice_roll), then stops; the
 * distributions here treat each die on its own (one die's explosions cut
 * at the budget), which is the rolls' own only while the pool's total is
 * within it. Each die is taken to want extra
 * dice one after another, each with the chance c that a face rerolls or
 * explodes (a bound above the truth when it does both), and the pool's
 * total is the dice's sum, whose distribution up to the budget is had by
 * squaring (a few thousand steps for any count). */
static double budget_overrun(const dice *d, int64_t lo, int64_t hi)
{
    double s = (double)(hi - lo + 1);
    double rerolled = d->reroll_cmp == DICE_CMP_NONE ? 0 : (double)faces_meeting(d->reroll_cmp, d->reroll_at, lo, hi);
    double q = rerolled / s;
    double exploding = d->explode == DICE_NO_EXPLODE ? 0 : (double)faces_meeting(d->explode_cmp, d->explode_at, lo, hi);
    double p = exploding / (d->reroll_once || s <= rerolled ? s : s - rerolled);
    p = p > 1 ? 1 : p;
    if (d->count == 1)
        p = 0; /* one die's explosions are cut at the budget as its rolls are (explode_die) */
    if (q == 0 && p == 0)
        return 0;
    enum { B = DICE_MAX_EXPLOSIONS + 1 }; /* totals 0..B-1 fit; B or more do not */
    if (d->reroll_once && p == 0 && d->count < B)
        return 0; /* a die rerolls once at most */
    double one[B], sum[B], t[B];
    double c = 1 - (1 - q) * (1 - p);
    for (int k = 0; k < B; k++)
        one[k] = d->reroll_once && p == 0 ? (k == 0 ? 1 - q : k == 1 ? q : 0) : pow(c, k) * (1 - c);
    for (int k = 0; k < B; k++)
        sum[k] = k == 0;
    /* sum = one^count, truncated below B */
    for (int32_t n = d->count; n > 0; n >>= 1) {
        if (n & 1) {
            for (int k = 0; k < B; k++) {
                t[k] = 0;
                for (int j = 0; j <= k; j++)
                    t[k] += sum[j] * one[k - j];
            }
            memcpy(sum, t, sizeof t);
        }
        if (n > 1) {
            for (int k = 0; k < B; k++) {
                t[k] = 0;
                for (int j = 0; j <= k; j++)
                    t[k] += one[j] * one[k - j];
            }
            memcpy(one, t, sizeof t);
        }
    }
    double within = 0;
    for (int k = 0; k < B; k++)
        within += sum[k];
    return within >= 1 ? 0 : 1 - within;
}

dist *dist_dice(const dice *d, double epsilon, dist_error *err)
{
    if (!d || d->count < 1 || d->count > DICE_MAX_COUNT || d->sides < 1 || d->sides > DICE_MAX_SIDES ||
        d->keep > DICE_DROP_LOW || d->keep_n < 0 || d->keep_n > d->count || d->explode > DICE_PENETRATE)
        return fail(err, "invalid dice");
    int64_t lo = d->fudge ? -1 : 1, hi = d->fudge ? 1 : d->sides;
    if (d->explode != DICE_NO_EXPLODE && covers_all(d->explode_cmp, d->explode_at, lo, hi))
        return fail(err, "an explosion on every face never ends");
    /* the rolls stop at the budget: past it, no answer here is theirs */
    double overrun = budget_overrun(d, lo, hi);
    if (overrun > (epsilon > DIST_DEFAULT_EPSILON ? epsilon : DIST_DEFAULT_EPSILON))
        return fail(err,
                    "a roll makes at most %d extra dice (explosions and rerolls together), and %d dice want more "
                    "with a chance of %.3g: their rolls stop there, so no exact answer is theirs (fewer dice)",
                    DICE_MAX_EXPLOSIONS, (int)d->count, overrun);
    bool plain = d->explode == DICE_NO_EXPLODE && d->reroll_cmp == DICE_CMP_NONE && d->success_cmp == DICE_CMP_NONE &&
                 (d->keep == DICE_KEEP_ALL || (d->keep <= DICE_KEEP_LOW ? d->keep_n >= d->count : d->keep_n == 0));
    if (plain)
        return sum_uniform(lo, hi, d->count, err);

    dist *raw = raw_roll(d, err);
    if (!raw)
        return NULL;
    bool has_keep = d->keep != DICE_KEEP_ALL && (d->keep <= DICE_KEEP_LOW ? d->keep_n < d->count : d->keep_n > 0);
    dist *unit = raw, *r = NULL;
    if (d->explode == DICE_EXPLODE || d->explode == DICE_PENETRATE) {
        /* Every extra die is a face of its own, so with keep/drop the pool
         * size is random: see keep_exploding. Dropping keeps a number of
         * faces that depends on the pool size, and penetration shifts the
         * extra faces; neither is written yet. */
        if (has_keep) {
            dist *kr = NULL;
            if (d->explode == DICE_EXPLODE && d->keep <= DICE_KEEP_LOW)
                kr = keep_exploding(d, raw, d->count, d->keep_n, d->keep == DICE_KEEP_HIGH, err);
            else
                fail(err, "dropping dice with '!', or keeping with '!p', is not supported yet (use '!!' or kh/kl)");
            dist_free(raw);
            return kr;
        }
        explode_plan pl = {d, raw, d->success_cmp != DICE_CMP_NONE};
        unit = explode_die(&pl, epsilon, DICE_MAX_EXPLOSIONS, err);
        if (unit) {
            /* Faces are already scored: sum the per-die totals. */
            r = sum_iid(unit, d->count, err);
        }
    } else {
        if (d->explode == DICE_COMPOUND) {
            explode_plan pl = {d, raw, false};
            unit = explode_die(&pl, epsilon, DICE_MAX_EXPLOSIONS, err);
        }
        if (unit)
            r = pool_of(d, unit, true, err);
    }
    if (unit != raw)
        dist_free(unit);
    dist_free(raw);
    return r;
}

dist *dist_keep(const dist *die, int32_t n, uint8_t keep, int32_t keep_n, dist_error *err)
{
    if (!die || n < 1 || n > DICE_MAX_COUNT || keep > DICE_DROP_LOW || keep_n < 0 || keep_n > n)
        return fail(err, "invalid keep/drop");
    dice d;
    memset(&d, 0, sizeof d);
    d.count = n;
    d.keep = keep;
    d.keep_n = keep_n;
    return pool_of(&d, die, true, err);
}

/* ---------------------------------------------------------------- chain */

/* The chain from one die on: d where it is below `top` (the die's maximum),
 * and top + rest (or 1 + rest when counting steps) where it reaches it. */
static dist *splice_at_max(const dist *d, int64_t top, const dist *rest, bool count_steps, dist_error *err)
{
    int64_t shift = count_steps ? 1 : top, lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < d->n; i++) {
        int64_t v = d->lo + (int64_t)i, a, b;
        if (!nonzero(d, i))
            continue;
        if (v >= top) {
            a = rest->lo + shift;
            b = hi_of(rest) + shift;
        } else {
            a = b = count_steps ? 0 : v;
        }
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    if (lo > hi)
        return fail(err, "impossible die in a chain");
    dist_count total;
    if (d->exact && rest->exact && !__builtin_mul_overflow(d->total, rest->total, &total)) {
        dist *r = new_dist(lo, hi, true, err);
        if (!r)
            return NULL;
        r->total = total;
        bool ok = true;
        for (size_t i = 0; i < d->n && ok; i++) {
            int64_t v = d->lo + (int64_t)i;
            dist_count x;
            if (!d->w[i])
                continue;
            if (v < top) {
                int64_t at = count_steps ? 0 : v;
                ok = !__builtin_mul_overflow(d->w[i], rest->total, &x) &&
                     !__builtin_add_overflow(r->w[at - lo], x, &r->w[at - lo]);
                continue;
            }
            for (size_t j = 0; j < rest->n && ok; j++) {
                dist_count *slot = &r->w[rest->lo + (int64_t)j + shift - lo];
                ok = !__builtin_mul_overflow(d->w[i], rest->w[j], &x) && !__builtin_add_overflow(*slot, x, slot);
            }
        }
        if (ok)
            return finish(r);
        dist_free(r);
    }
    dist *r = new_dist(lo, hi, false, err);
    if (!r)
        return NULL;
    r->rem = remainder_of(d);
    for (size_t i = 0; i < d->n; i++) {
        int64_t v = d->lo + (int64_t)i;
        double pv = prob(d, i);
        if (pv == 0.0)
            continue;
        if (v < top) {
            r->p[(count_steps ? 0 : v) - lo] += pv;
            continue;
        }
        for (size_t j = 0; j < rest->n; j++)
            r->p[rest->lo + (int64_t)j + shift - lo] += pv * prob(rest, j);
        r->rem += pv * remainder_of(rest);
    }
    return finish(r);
}

/* Built from the last die backwards. "Maximum" is dice_max, as the roller
 * judges it; the last die's maximum still counts as a step. */
dist *dist_chain(const dice *const *dies, int n, bool count_steps, dist_error *err)
{
    if (!dies || n < 1)
        return fail(err, "chain() needs at least one die");
    dist *acc = NULL;
    for (int i = n - 1; i >= 0; i--) {
        dist *die = dist_dice(dies[i], DIST_DEFAULT_EPSILON, err);
        if (!die) {
            dist_free(acc);
            return NULL;
        }
        dist *next;
        if (acc) {
            next = splice_at_max(die, dice_max(dies[i]), acc, count_steps, err);
        } else if (!count_steps) {
            next = dist_copy(die, err);
        } else {
            dist *zero = dist_constant(0, err);
            next = zero ? splice_at_max(die, dice_max(dies[i]), zero, true, err) : NULL;
            dist_free(zero);
        }
        dist_free(die);
        dist_free(acc);
        if (!next)
            return NULL;
        acc = next;
    }
    return acc;
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
    dist_count mass = mass128(d);
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
    dist_count m = mass128(d);
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
