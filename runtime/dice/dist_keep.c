/* dist_keep: keep/drop pools (the best or worst k of n dice), exploding or not. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/dice/dist_internal.h"
#include "runtime/base/mem.h"

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
    dist *r = dist_new((int64_t)k * kj->smin, (int64_t)k * kj->smax, true, err);
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
            dist_oom(err); /* new_dist already said why when it failed */
        *overflow = allocated;
        dist_free(r);
        return NULL;
    }
    return dist_finish(r);
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
    dist *r = dist_new((int64_t)k * kj->smin, (int64_t)k * kj->smax, false, err);
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
        return dist_oom(err);
    }
    return dist_finish(r);
}

dist *dist_keep_pool(const dice *d, const dist *unit, int32_t n, int32_t keep, bool highest, dist_error *err)
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
        return dist_oom(err);
    }
    size_t at = 0;
    kj.smin = INT64_MAX;
    kj.smax = INT64_MIN;
    for (size_t t = 0; t < unit->n; t++) {
        size_t i = highest ? unit->n - 1 - t : t;
        if (!nonzero(unit, i))
            continue;
        kj.val[at] = unit->lo + (int64_t)i;
        kj.score[at] = dist_face_score(d, kj.val[at]);
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
        dist_too_many_outcomes(err);
    } else if (work > max_work(err)) {
        dist_fail(err, "keeping %d of %d dice is too much work to compute exactly (see --limit exact-work=N)",
                  (int)keep, (int)n);
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
dist *dist_keep_exploding(const dice *d, const dist *raw, int32_t n, int32_t k, bool highest, dist_error *err)
{
    size_t m = raw->n;
    int64_t smin = INT64_MAX, smax = INT64_MIN;
    for (size_t i = 0; i < m; i++) {
        int64_t sc = dist_face_score(d, raw->lo + (int64_t)i);
        smin = sc < smin ? sc : smin;
        smax = sc > smax ? sc : smax;
    }
    __int128 width128 = (__int128)k * (smax - smin) + 1;
    double work = (double)m * k * k * (double)width128 * (n + k);
    if (width128 > (__int128)max_outcomes(err))
        return dist_too_many_outcomes(err);
    if (work > max_work(err))
        return dist_fail(err, "keeping %d of %d exploding dice is too much work to compute (see --limit exact-work=N)",
                         (int)k, (int)n);
    size_t w = (size_t)width128, ks = (size_t)k;
    /* f[(a * k + b) * w + s - (a + b) * smin] */
    size_t npow = ks + (size_t)n + 1;
    long double *f = MEM_NEW_ARRAY(long double, ks *ks *w);
    long double *qpow = MEM_NEW_ARRAY(long double, npow), *rinv = MEM_NEW_ARRAY(long double, npow);
    long double *stay = MEM_NEW_ARRAY(long double, ks + 1);
    dist *r = dist_new((int64_t)k * smin, (int64_t)k * smax, false, err);
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
        return r ? dist_oom(err) : NULL;
    }
    long double qbelow = 0, rbelow = 0; /* non-exploding / exploding mass below */
    for (size_t i = 0; i < m; i++) {
        long double p = prob(raw, i);
        if (dist_explodes(d, raw->lo + (int64_t)i))
            rbelow += p;
        else
            qbelow += p;
    }
    f[0] = 1;
    for (size_t t = 0; t < m; t++) {
        size_t i = highest ? m - 1 - t : t;
        int64_t v = raw->lo + (int64_t)i, sc = dist_face_score(d, v);
        long double p = prob(raw, i);
        bool ex = dist_explodes(d, v);
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
            return dist_fail(err, "keeping %d of %d exploding dice does not fit in doubles", (int)k, (int)n);
        }
    r->rem = remainder_of(raw); /* raw rolls are complete: 0 */
    return dist_finish(r);
}
