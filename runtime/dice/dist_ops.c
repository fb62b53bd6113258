/* dist_ops: arithmetic, extremes, comparisons and choices between distributions. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/dice/dist_internal.h"
#include "runtime/base/mem.h"

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
        return dist_fail(err,
                         "this sum is too much work to compute exactly (%zu by %zu outcomes; see --limit exact-work=N)",
                         na, nb);
    /* Every partial sum of r[k] is at most r[k], and the r[k] add up to at
       most a's total times b's: when that product fits, nothing overflows. */
    dist_count total;
    bool exact = a->exact && b->exact && !__builtin_mul_overflow(a->total, b->total, &total);
    dist *r = dist_new(lo, hi, exact, err);
    if (!r)
        return NULL;
    if (exact) {
        dist_count *rev = MEM_NEW_ARRAY(dist_count, nb);
        if (!rev) {
            dist_free(r);
            return dist_oom(err);
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
        return dist_finish(r);
    }
    pview pa, pb;
    double *rev = MEM_NEW_ARRAY(double, nb);
    if (!rev || !dist_pview_open(&pa, a, err)) {
        mem_free(rev, rev ? nb * sizeof *rev : 0);
        dist_free(r);
        return dist_oom(err);
    }
    if (square) {
        pb = pa; /* borrowed: closed once, as pa */
        pb.owned = NULL;
    } else if (!dist_pview_open(&pb, b, err)) {
        dist_pview_close(&pa);
        mem_free(rev, nb * sizeof *rev);
        dist_free(r);
        return dist_oom(err);
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
    dist_finish(r);
    dist_pview_close(&pb);
    dist_pview_close(&pa);
    mem_free(rev, nb * sizeof *rev);
    return r;
}

static dist *pairwise(const dist *a, const dist *b, int op, dist_error *err)
{
    int64_t lo, hi;
    if (!op_range(a, b, op, &lo, &hi))
        return dist_fail(err, "outcome does not fit in 64 bits");
    if (op == OP_ADD)
        return convolve(a, b, lo, hi, err);
    if (op == OP_SUB) { /* a - b is a + (-b): the same fast sum */
        dist *neg = dist_scale(b, -1, err);
        dist *r = neg ? convolve(a, neg, lo, hi, err) : NULL;
        dist_free(neg);
        return r;
    }
    if ((double)a->n * (double)b->n > max_convolution(err))
        return dist_fail(
            err, "this product is too much work to compute exactly (%zu by %zu outcomes; see --limit exact-work=N)",
            a->n, b->n);
    dist_count total;
    if (a->exact && b->exact && !__builtin_mul_overflow(a->total, b->total, &total)) {
        dist *r = dist_new(lo, hi, true, err);
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
            return dist_finish(r);
        dist_free(r);
    }
    pview pa, pb;
    if (!dist_pview_open(&pa, a, err))
        return NULL;
    if (!dist_pview_open(&pb, b, err)) {
        dist_pview_close(&pa);
        return NULL;
    }
    dist *r = dist_new(lo, hi, false, err);
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
        dist_finish(r);
    }
    dist_pview_close(&pa);
    dist_pview_close(&pb);
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

/* y = fn(x) for a monotone-or-not fn whose results over a's outcomes lie in
 * lo..hi. Weights move unchanged, so exactness and remainder carry over. */
dist *dist_map_unary(const dist *a, map_fn fn, const void *ctx, int64_t lo, int64_t hi, dist_error *err)
{
    dist *r = dist_new(lo, hi, a->exact, err);
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
    return dist_finish(r);
}

static int64_t scale_fn(int64_t x, const void *ctx)
{
    return x * *(const int64_t *)ctx;
}

dist *dist_scale(const dist *a, int64_t k, dist_error *err)
{
    int64_t x1, x2;
    if (__builtin_mul_overflow(a->lo, k, &x1) || __builtin_mul_overflow(hi_of(a), k, &x2))
        return dist_fail(err, "outcome does not fit in 64 bits");
    return dist_map_unary(a, scale_fn, &k, x1 < x2 ? x1 : x2, x1 < x2 ? x2 : x1, err);
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
        return dist_fail(err, "division by zero");
    if (k == -1)
        return dist_scale(a, -1, err); /* INT64_MIN / -1 overflows */
    int64_t x1 = floor_div(a->lo, k), x2 = floor_div(hi_of(a), k);
    return dist_map_unary(a, floor_div_fn, &k, x1 < x2 ? x1 : x2, x1 < x2 ? x2 : x1, err);
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
        return dist_fail(err, "outcome does not fit in 64 bits");
    int64_t lo = a->lo <= 0 && hi >= 0 ? 0 : (a->lo > 0 ? a->lo : -hi);
    return dist_map_unary(a, abs_fn, NULL, lo, -a->lo > hi ? -a->lo : hi, err);
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
        dist *r = dist_new(lo, hi, true, err);
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
            return dist_finish(r);
        dist_free(r);
    }
    dist *r = dist_new(lo, hi, false, err);
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
    return dist_finish(r);
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
            return dist_oom(err);
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
            dist *r = dist_new(0, 1, true, err);
            if (!r)
                return NULL;
            r->total = total;
            r->w[0] = all - yes;
            r->w[1] = yes;
            return dist_finish(r);
        }
    }
    long double *pre = MEM_NEW_ARRAY(long double, a->n + 1);
    if (!pre)
        return dist_oom(err);
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
    dist *r = dist_new(0, 1, false, err);
    if (!r)
        return NULL;
    r->p[0] = (double)(all - yes);
    r->p[1] = (double)yes;
    double ra = remainder_of(a), rb = remainder_of(b);
    r->rem = ra + rb - ra * rb;
    return dist_finish(r);
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
        dist_count cf = zero_in ? c->w[z] : 0, ct = dist_mass128(c) - cf;
        dist *r = dist_new(lo, hi, true, err);
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
            return dist_finish(r);
        dist_free(r);
    }
    double pf = zero_in ? prob(c, z) : 0.0, pt = 0.0;
    for (size_t i = 0; i < c->n; i++)
        if (!zero_in || i != z)
            pt += prob(c, i);
    dist *r = dist_new(lo, hi, false, err);
    if (!r)
        return NULL;
    for (size_t i = 0; i < r->n; i++) {
        int64_t v = lo + (int64_t)i;
        double xt = v >= t->lo && v <= hi_of(t) ? prob(t, (size_t)(v - t->lo)) : 0.0;
        double xf = v >= f->lo && v <= hi_of(f) ? prob(f, (size_t)(v - f->lo)) : 0.0;
        r->p[v - lo] = pt * xt + pf * xf;
    }
    r->rem = remainder_of(c) + pt * remainder_of(t) + pf * remainder_of(f);
    return dist_finish(r);
}
