/* dist_dice: the distribution of a dice expression: one die, rerolls, explosions, sums, pools. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/dice/dist_internal.h"
#include "runtime/base/mem.h"

/* ----------------------------------------------------- one die, rerolls */

/* What one kept face adds to the total. */
int64_t dist_face_score(const dice *d, int64_t v)
{
    if (d->success_cmp == DICE_CMP_NONE)
        return v;
    return (int64_t)dice_cmp_holds(d->success_cmp, v, d->success_at) -
           (int64_t)dice_cmp_holds(d->failure_cmp, v, d->failure_at);
}

static int64_t score_fn(int64_t x, const void *ctx)
{
    return dist_face_score(ctx, x);
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
    dist *r = dist_new(lo, hi, true, err);
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
            return dist_fail(err, "rerolling every face never ends");
        }
        r->total = s - meet;
        for (int64_t v = lo; v <= hi; v++)
            r->w[v - lo] = !dice_cmp_holds(d->reroll_cmp, v, d->reroll_at);
    } else {
        r->total = s * s;
        for (int64_t v = lo; v <= hi; v++)
            r->w[v - lo] = (dice_cmp_holds(d->reroll_cmp, v, d->reroll_at) ? 0 : s) + meet;
    }
    return dist_finish(r);
}

/* ------------------------------------------------------------ explosions */

typedef struct explode_plan {
    const dice *d;
    const dist *raw;
    bool face_scores; /* contributions are success scores of each face */
} explode_plan;

bool dist_explodes(const dice *d, int64_t v)
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
    return pl->face_scores ? dist_face_score(d, shown) : shown;
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
        if (dist_explodes(d, v)) {
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
        return dist_fail(err, "every roll explodes");
    dist_count nt = next && next->exact ? next->total : 1, total;
    if ((!next || next->exact) && !__builtin_mul_overflow(raw->total, nt, &total)) {
        dist *r = dist_new(lo, hi, true, err);
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
            if (!dist_explodes(d, v) || (!next && stand)) {
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
            return dist_finish(r);
        dist_free(r);
    }
    dist *r = dist_new(lo, hi, false, err);
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
        if (!dist_explodes(d, v) || (!next && stand)) {
            r->p[c - lo] += pv;
        } else if (next) {
            for (size_t j = 0; j < next->n; j++)
                r->p[c + next->lo + (int64_t)j - lo] += pv * prob(next, j);
            r->rem += pv * rn;
        } else {
            r->rem += pv;
        }
    }
    return dist_finish(r);
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
        if (dist_explodes(pl->d, raw->lo + (int64_t)i))
            pe += (long double)raw->w[i] / (long double)raw->total;
    if (pe >= 1.0L)
        return dist_fail(err, "an explosion on every face never ends");
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
        return dist_fail(err,
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
        return dist_oom(err);
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
    return dist_finish(r);
}

/* n independent copies of a uniform die lo..hi, by a sliding window. */
static dist *sum_uniform(int64_t lo, int64_t hi, int32_t n, dist_error *err)
{
    int64_t s = hi - lo + 1;
    __int128 span = (__int128)n * (s - 1) + 1;
    if (span > (__int128)max_outcomes(err))
        return dist_too_many_outcomes(err);
    dist *r = dist_new(lo * n, hi * n, true, err);
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
        return dist_finish(r);
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
            return dist_fail(
                err, "this sum is too much work to compute exactly (%d dice of %lld sides; see --limit exact-work=N)",
                n, (long long)s);
        }
        return window_rest(r, k, len, s, n, err);
    }
    r->lo = lo * k; /* so far it holds k dice, in its first len entries */
    r->n = len;
    dist_finish(r);
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
        return dist_too_many_outcomes(err);
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
        return dist_keep_pool(d, unit, n, kept, highest, err);
    if (d->success_cmp == DICE_CMP_NONE)
        return sum_iid(unit, n, err);
    /* No keep: each die's success score, summed. */
    int64_t lo = d->failure_cmp != DICE_CMP_NONE ? -1 : 0;
    dist *scored = dist_map_unary(unit, score_fn, d, lo, 1, err);
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
        return dist_fail(err, "invalid dice");
    int64_t lo = d->fudge ? -1 : 1, hi = d->fudge ? 1 : d->sides;
    if (d->explode != DICE_NO_EXPLODE && covers_all(d->explode_cmp, d->explode_at, lo, hi))
        return dist_fail(err, "an explosion on every face never ends");
    /* the rolls stop at the budget: past it, no answer here is theirs */
    double overrun = budget_overrun(d, lo, hi);
    if (overrun > (epsilon > DIST_DEFAULT_EPSILON ? epsilon : DIST_DEFAULT_EPSILON))
        return dist_fail(err,
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
                kr = dist_keep_exploding(d, raw, d->count, d->keep_n, d->keep == DICE_KEEP_HIGH, err);
            else
                dist_fail(err,
                          "dropping dice with '!', or keeping with '!p', is not supported yet (use '!!' or kh/kl)");
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
        return dist_fail(err, "invalid keep/drop");
    dice d;
    memset(&d, 0, sizeof d);
    d.count = n;
    d.keep = keep;
    d.keep_n = keep_n;
    return pool_of(&d, die, true, err);
}
