/* Unit tests for runtime/dist: known exact values of dice distributions,
 * keep/drop pools, explosions, rerolls, success counting, arithmetic,
 * the switch to doubles, errors, and agreement with the
 * roller (runtime/dice/dice.c) by a chi-square test over sampled rolls. */
#include "tests/unit/check_main.h"
#include <math.h>
#include <string.h>

#include "runtime/dice/dice.h"
#include "runtime/dice/dist.h"
#include "runtime/base/mem.h"
#include "runtime/dice/rng.h"

/* Live bytes when the running test started (one test per process). */
static size_t live_at_start;

static void leak_setup(void)
{
    live_at_start = mem_live_bytes();
}

static void leak_teardown(void)
{
    ck_assert_msg(mem_live_bytes() == live_at_start, "leaked %zu bytes", mem_live_bytes() - live_at_start);
}

static dice parse_ok(const char *text)
{
    dice d;
    dice_error err = {0, ""};
    int rc = dice_parse(text, strlen(text), &d, &err);
    ck_assert_msg(rc == 0, "parse \"%s\" failed at %zu: %s", text, err.offset, err.message);
    return d;
}

static dist *dice_dist(const char *text)
{
    dice d = parse_ok(text);
    dist_error err = {.message = ""};
    dist *r = dist_dice(&d, DIST_DEFAULT_EPSILON, &err);
    ck_assert_msg(r != NULL, "dist of %s failed: %s", text, err.message);
    return r;
}

static dist *constant(int64_t v)
{
    dist_error err = {.message = ""};
    dist *r = dist_constant(v, &err);
    ck_assert_ptr_nonnull(r);
    return r;
}

/* P(X = outcome) is exactly num/den. */
static void assert_exact(const dist *d, int64_t outcome, unsigned long long num, unsigned long long den)
{
    dist_count n, m;
    ck_assert_msg(dist_exact_p(d, outcome, &n, &m), "not exact");
    ck_assert_msg(n * (dist_count)den == (dist_count)num * m, "P(%lld) is not %llu/%llu", (long long)outcome, num, den);
}

#define ck_assert_near(x, y, tol) \
    ck_assert_msg(fabs((double)(x) - (double)(y)) <= (tol), "%s = %.12g, expected %.12g", #x, (double)(x), (double)(y))

/* ---------------------------------------------------------- known values */

/* A roll makes at most 100 extra dice, its whole pool counted: where the
   pool wants more with a chance worth counting, the rolls stop there and
   no distribution of dice that never stop is theirs, so it is refused. */
START_TEST(refused_where_the_budget_of_extra_dice_binds)
{
    static const char *const refused[] = {"208d2r2", "100d2!", "60d2!", "300d4r<2", "120d2ro2!"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        dice d;
        ck_assert_int_eq(dice_parse(refused[i], strlen(refused[i]), &d, NULL), 0);
        dist_error err = {.message = ""};
        dist *r = dist_dice(&d, DIST_DEFAULT_EPSILON, &err);
        ck_assert_msg(r == NULL, "%s was not refused", refused[i]);
        ck_assert_msg(strstr(err.message, "at most 100 extra dice") != NULL, "%s: %s", refused[i], err.message);
    }
    /* where the budget is out of reach, the answer stands */
    static const char *const kept[] = {"200d6r1", "20d6!", "150d10ro1", "100d10ro1", "8d6kh3!"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        dist_free(dice_dist(kept[i]));
    dist *d = dice_dist("200d6r1");
    ck_assert_near(dist_mean(d), 800, 1e-9);
    dist_free(d);
}
END_TEST

START_TEST(sum_3d6)
{
    dist *d = dice_dist("3d6");
    ck_assert(dist_is_exact(d));
    ck_assert_int_eq(dist_lowest(d), 3);
    ck_assert_int_eq(dist_highest(d), 18);
    assert_exact(d, 10, 27, 216);
    assert_exact(d, 3, 1, 216);
    ck_assert_near(dist_mean(d), 10.5, 1e-12);
    ck_assert_near(dist_stddev(d), sqrt(35.0 / 4.0), 1e-12);
    ck_assert_int_eq(dist_quantile(d, 0.5), 10);
    ck_assert_near(dist_p_at_least(d, 17), 4.0 / 216, 1e-15);
    ck_assert_near(dist_p_at_most(d, 4), 4.0 / 216, 1e-15);
    ck_assert_near(dist_remainder(d), 0.0, 0.0);
    dist_free(d);
}
END_TEST

/* A quantile lands on the outcome where the chance reaches it exactly:
   three sixths of a d6 are one half, so its median is 3, not 4. */
START_TEST(quantiles_at_exact_boundaries)
{
    dist *d = dice_dist("d6");
    ck_assert_int_eq(dist_quantile(d, 0.5), 3);
    ck_assert_int_eq(dist_quantile(d, 1.0 / 3), 2);
    ck_assert_int_eq(dist_quantile(d, 0.51), 4);
    ck_assert_int_eq(dist_quantile(d, 1.0), 6);
    dist_free(d);
    d = dice_dist("d4");
    ck_assert_int_eq(dist_quantile(d, 0.25), 1);
    ck_assert_int_eq(dist_quantile(d, 0.75), 3);
    dist_free(d);
}
END_TEST

START_TEST(keep_4d6kh3)
{
    dist *d = dice_dist("4d6kh3");
    dist *e = dice_dist("4d6dl1");
    ck_assert(dist_is_exact(d));
    ck_assert_near(dist_mean(d), 12.2446, 1e-4);
    assert_exact(d, 18, 21, 1296);
    assert_exact(d, 3, 1, 1296);
    ck_assert_int_eq(dist_lowest(e), 3);
    ck_assert_int_eq(dist_highest(e), 18);
    for (int64_t v = 3; v <= 18; v++) {
        dist_count n1, d1, n2, d2;
        ck_assert(dist_exact_p(d, v, &n1, &d1) && dist_exact_p(e, v, &n2, &d2));
        ck_assert(n1 == n2 && d1 == d2);
    }
    dist_free(d);
    dist_free(e);
}
END_TEST

START_TEST(keep_advantage_and_pools)
{
    dist *d = dice_dist("2d20kh1");
    assert_exact(d, 20, 39, 400);
    assert_exact(d, 1, 1, 400);
    dist_free(d);
    d = dice_dist("2d20kl1");
    assert_exact(d, 1, 39, 400);
    dist_free(d);
    d = dice_dist("6d10kh3");
    ck_assert_near(dist_mean(d), 22.878570, 1e-6);
    dist_free(d);
    d = dice_dist("10d10kh5");
    ck_assert_near(dist_mean(d), 38.780304, 1e-6);
    dist_free(d);
    /* keep all / drop none are plain sums */
    d = dice_dist("3d6kh3");
    assert_exact(d, 10, 27, 216);
    dist_free(d);
}
END_TEST

/* A d10 that explodes at most `more` times: 1..9 stand, a 10 adds the
 * next roll (the last roll stands whatever it shows). */
static dist *capped_d10(int more)
{
    dist_error err = {.message = ""};
    dist *die = dice_dist("d10");
    if (more == 0)
        return die;
    dist *next = capped_d10(more - 1), *ten = constant(10), *above = dist_add(ten, next, &err);
    dist *low = dice_dist("d9");
    dist_mixer *m = dist_mixer_new(&err);
    ck_assert_ptr_nonnull(above);
    ck_assert(dist_mixer_add(m, low, 9, 10, 0.9, &err) && dist_mixer_add(m, above, 1, 10, 0.1, &err));
    dist *r = dist_mixer_finish(m, &err);
    ck_assert_ptr_nonnull(r);
    dist_mixer_free(m);
    dist_free(low);
    dist_free(above);
    dist_free(ten);
    dist_free(next);
    dist_free(die);
    return r;
}

/* 5d10, each exploding at most 4 times (the fifth roll stands), keep the
 * highest 3 totals. The notation cannot cap explosions at 4, so the die is
 * built by hand and the pool by dist_keep. */
START_TEST(keep_capped_exploding)
{
    dist_error err = {.message = ""};
    dist *die = capped_d10(4);
    ck_assert(dist_is_exact(die));
    ck_assert_near(dist_mean(die), 5.5 * (1 + 0.1 + 0.01 + 0.001 + 0.0001), 1e-12);
    dist *pool = dist_keep(die, 5, DICE_KEEP_HIGH, 3, &err);
    ck_assert_msg(pool != NULL, "%s", err.message);
    ck_assert_near(dist_mean(pool), 24.512299, 1e-6);
    dist_free(pool);
    dist_free(die);
}
END_TEST

START_TEST(compare_and_extremes)
{
    dist_error err = {.message = ""};
    dist *d20 = dice_dist("d20"), *five = constant(5), *fifteen = constant(15);
    dist *sum = dist_add(d20, five, &err);
    dist *hit = dist_compare(sum, fifteen, DIST_GE, &err);
    assert_exact(hit, 1, 11, 20);
    assert_exact(hit, 0, 9, 20);
    dist *best = dist_maximum(d20, d20, &err);
    dist *hit2 = dist_compare(best, fifteen, DIST_GE, &err);
    assert_exact(hit2, 1, 400 - 14 * 14, 400);
    dist *worst = dist_minimum(d20, d20, &err);
    assert_exact(worst, 1, 39, 400);
    assert_exact(worst, 20, 1, 400);
    dist *eq = dist_compare(d20, d20, DIST_EQ, &err);
    assert_exact(eq, 1, 1, 20);
    dist *lt = dist_compare(d20, d20, DIST_LT, &err);
    assert_exact(lt, 1, 190, 400);
    /* hit ? d20 + 5 : 0 */
    dist *zero = constant(0);
    dist *dmg = dist_choose(hit, sum, zero, &err);
    assert_exact(dmg, 0, 9, 20);
    assert_exact(dmg, 25, 11, 400);
    ck_assert_near(dist_mean(dmg), 11.0 / 20 * 15.5, 1e-12);
    dist *list[] = {d20, five, fifteen, sum, hit, best, hit2, worst, eq, lt, zero, dmg};
    for (size_t i = 0; i < sizeof list / sizeof *list; i++)
        dist_free(list[i]);
}
END_TEST

START_TEST(arithmetic)
{
    dist_error err = {.message = ""};
    dist *a = dice_dist("d6"), *b = dice_dist("d4");
    dist *diff = dist_sub(a, b, &err);
    ck_assert_int_eq(dist_lowest(diff), -3);
    ck_assert_int_eq(dist_highest(diff), 5);
    assert_exact(diff, 0, 4, 24);
    dist *prod = dist_mul(a, b, &err);
    assert_exact(prod, 24, 1, 24);
    assert_exact(prod, 12, 3, 24); /* 3*4, 4*3, 6*2 */
    assert_exact(prod, 7, 0, 1);
    dist *neg = dist_scale(a, -2, &err);
    ck_assert_int_eq(dist_lowest(neg), -12);
    ck_assert_int_eq(dist_highest(neg), -2);
    assert_exact(neg, -4, 1, 6);
    dist *half = dist_floor_div(neg, 4, &err); /* floor(-2/4) = -1, floor(-12/4) = -3 */
    ck_assert_int_eq(dist_lowest(half), -3);
    ck_assert_int_eq(dist_highest(half), -1);
    assert_exact(half, -1, 2, 6); /* -2, -4 */
    assert_exact(half, -2, 2, 6); /* -6, -8 */
    assert_exact(half, -3, 2, 6); /* -10, -12 */
    ck_assert_ptr_null(dist_floor_div(a, 0, &err));
    ck_assert_str_eq(err.message, "division by zero");
    dist *copy = dist_copy(prod, &err);
    assert_exact(copy, 12, 3, 24);
    dist *list[] = {a, b, diff, prod, neg, half, copy};
    for (size_t i = 0; i < sizeof list / sizeof *list; i++)
        dist_free(list[i]);
}
END_TEST

START_TEST(success_counting)
{
    dist *d = dice_dist("10d10>=8");
    ck_assert_near(dist_mean(d), 3.0, 1e-12);
    ck_assert_int_eq(dist_lowest(d), 0);
    ck_assert_int_eq(dist_highest(d), 10);
    dist_free(d);
    d = dice_dist("2d10>=8f1");
    ck_assert_int_eq(dist_lowest(d), -2);
    assert_exact(d, -2, 1, 100);
    assert_exact(d, 2, 9, 100);
    ck_assert_near(dist_mean(d), 2 * 0.2, 1e-12);
    dist_free(d);
    /* successes among the kept dice only */
    d = dice_dist("3d6kh1>=6");
    assert_exact(d, 1, 216 - 125, 216);
    dist_free(d);
}
END_TEST

START_TEST(fudge_dice)
{
    dist *d = dice_dist("dF");
    ck_assert_near(dist_mean(d), 0.0, 1e-15);
    dist_free(d);
    d = dice_dist("4dF");
    assert_exact(d, 0, 19, 81);
    assert_exact(d, 4, 1, 81);
    ck_assert_int_eq(dist_lowest(d), -4);
    dist_free(d);
}
END_TEST

START_TEST(rerolls)
{
    dist *d = dice_dist("d20r1");
    ck_assert_int_eq(dist_lowest(d), 2);
    assert_exact(d, 1, 0, 1);
    for (int64_t v = 2; v <= 20; v++)
        assert_exact(d, v, 1, 19);
    dist_free(d);
    d = dice_dist("d20ro1");
    assert_exact(d, 1, 1, 400);
    assert_exact(d, 2, 21, 400);
    dist_free(d);
    d = dice_dist("d6r<3");
    assert_exact(d, 3, 1, 4);
    dist_free(d);
}
END_TEST

START_TEST(explosions)
{
    dist *d = dice_dist("d6!");
    ck_assert(dist_remainder(d) > 0.0);
    ck_assert(dist_remainder(d) < 1e-12);
    ck_assert_near(dist_mean(d), 4.2, 1e-9);
    assert_exact(d, 6, 0, 1);
    assert_exact(d, 7, 1, 36);
    dist_free(d);
    d = dice_dist("d6!!");
    ck_assert_near(dist_mean(d), 4.2, 1e-9);
    dist_free(d);
    d = dice_dist("d6!p"); /* each extra die counts one less: 3.5 + (1/6)(2.5)/(1 - 1/6) */
    ck_assert_near(dist_mean(d), 3.5 + 0.5, 1e-9);
    assert_exact(d, 6, 1, 36); /* 6 then 1 shown as 0 */
    dist_free(d);
    d = dice_dist("2d6!");
    double r1 = 0;
    {
        dist *one = dice_dist("d6!");
        r1 = dist_remainder(one);
        dist_free(one);
    }
    ck_assert_near(dist_remainder(d), r1 * (2 - r1), 1e-24);
    ck_assert_near(dist_mean(d), 8.4, 1e-9);
    dist_free(d);
    d = dice_dist("d10!>=9");
    ck_assert_near(dist_mean(d), 5.5 / 0.8, 1e-9);
    dist_free(d);
    d = dice_dist("8d6!");
    ck_assert_near(dist_mean(d), 8 * 4.2, 1e-9);
    dist_free(d);
}
END_TEST

START_TEST(big_sum_goes_inexact)
{
    dist *d = dice_dist("100d6");
    ck_assert(!dist_is_exact(d));
    ck_assert_near(dist_mean(d), 350.0, 1e-9);
    ck_assert_near(dist_stddev(d), sqrt(100 * 35.0 / 12), 1e-9);
    ck_assert_int_eq(dist_lowest(d), 100);
    ck_assert_int_eq(dist_highest(d), 600);
    dist_count n, m;
    ck_assert(!dist_exact_p(d, 350, &n, &m));
    dist_free(d);
    d = dice_dist("20d20>=15");
    ck_assert_near(dist_mean(d), 20 * 0.3, 1e-9);
    dist_free(d);
    d = dice_dist("20d20kh10");
    ck_assert(dist_mean(d) > 150 && dist_mean(d) < 200);
    dist_free(d);
}
END_TEST

/* mean() and prob() exactly: whole + num/den, reduced, even where the sum
   of outcome times count passes 128 bits (48d6: 6^48 times 241 outcomes) */
START_TEST(exact_mean_and_chance)
{
    int64_t whole;
    dist_count num, den;
    dist *d = dice_dist("4d6kh3");
    ck_assert(dist_exact_mean(d, &whole, &num, &den));
    ck_assert_int_eq(whole, 12);
    ck_assert(num == 317 && den == 1296); /* 15869/1296 */
    dist_free(d);
    d = dice_dist("48d6");
    ck_assert(dist_is_exact(d));
    ck_assert(dist_exact_mean(d, &whole, &num, &den));
    ck_assert_int_eq(whole, 168);
    ck_assert(num == 0 && den == 1);
    dist_free(d);
    d = dice_dist("47d6"); /* the fast path, for comparison: 164.5 */
    ck_assert(dist_exact_mean(d, &whole, &num, &den));
    ck_assert_int_eq(whole, 164);
    ck_assert(num == 1 && den == 2);
    dist_free(d);
    dist_error err = {.message = ""};
    dist *six = dice_dist("d6"), *far = constant(INT64_MAX - 7);
    d = dist_add(six, far, &err);
    ck_assert_ptr_nonnull(d);
    ck_assert(dist_exact_mean(d, &whole, &num, &den)); /* no 64-bit sum along the way */
    ck_assert_int_eq(whole, INT64_MAX - 4);
    ck_assert(num == 1 && den == 2);
    dist_free(d);
    dist *five = constant(5);
    d = dist_compare(six, five, DIST_GE, &err);
    ck_assert(dist_exact_nonzero(d, &num, &den));
    ck_assert(num == 1 && den == 3);
    dist_free(d);
    dist_free(five);
    dist_free(far);
    dist_free(six);
    d = dice_dist("100d6"); /* past 128 bits: no exact answer */
    ck_assert(!dist_is_exact(d));
    ck_assert(!dist_exact_mean(d, &whole, &num, &den));
    ck_assert(!dist_exact_nonzero(d, &num, &den));
    dist_free(d);
}
END_TEST

/* A mixture of distributions, each with its chance: exact over the least
   common denominator while it fits, in doubles after; what the weights
   leave out is the remainder. */
START_TEST(mixtures)
{
    dist_error err = {.message = ""};
    dist_mixer *m = dist_mixer_new(&err);
    dist *d6 = dice_dist("d6"), *one = constant(1), *far = constant(100);
    /* 1/2 of d6, 1/3 of 1, 1/6 of 100 */
    ck_assert(dist_mixer_add(m, d6, 1, 2, 0.5, &err));
    ck_assert(dist_mixer_add(m, one, 1, 3, 1.0 / 3, &err));
    ck_assert(dist_mixer_add(m, far, 1, 6, 1.0 / 6, &err));
    dist *r = dist_mixer_finish(m, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert(dist_is_exact(r));
    ck_assert_int_eq(dist_lowest(r), 1);
    ck_assert_int_eq(dist_highest(r), 100);
    assert_exact(r, 1, 5, 12); /* 1/12 + 1/3 */
    assert_exact(r, 6, 1, 12);
    assert_exact(r, 100, 1, 6);
    assert_exact(r, 50, 0, 1);
    ck_assert(dist_remainder(r) == 0);
    dist_free(r);
    dist_mixer_free(m);
    /* weights summing to less than 1: the rest is cut off */
    m = dist_mixer_new(&err);
    ck_assert(dist_mixer_add(m, one, 1, 4, 0.25, &err));
    r = dist_mixer_finish(m, &err);
    ck_assert(fabs(dist_remainder(r) - 0.75) < 1e-12);
    dist_free(r);
    /* a denominator past 128 bits: doubles from then on */
    dist_count big = (dist_count)1 << 126; /* times 6 passes 128 bits */
    ck_assert(dist_mixer_add(m, d6, 1, big, 1.0 / (double)big, &err));
    ck_assert(dist_mixer_add(m, one, 1, 3, 1.0 / 3, &err));
    r = dist_mixer_finish(m, &err);
    ck_assert(!dist_is_exact(r));
    ck_assert(fabs(dist_p(r, 1) - (0.25 + 1.0 / 3)) < 1e-12);
    dist_free(r);
    dist_mixer_free(m);
    /* nothing added: an error, not an empty distribution */
    m = dist_mixer_new(&err);
    ck_assert_ptr_null(dist_mixer_finish(m, &err));
    dist_mixer_free(m);
    /* |x| folds the outcomes below 0 onto those above */
    dist *four = constant(4), *centred = dist_sub(d6, four, &err);
    r = dist_abs(centred, &err);
    ck_assert_int_eq(dist_lowest(r), 0);
    ck_assert_int_eq(dist_highest(r), 3);
    assert_exact(r, 1, 2, 6); /* 3 and 5 */
    assert_exact(r, 3, 1, 6);
    dist_free(r);
    dist_free(centred);
    dist_free(four);
    dist_free(d6);
    dist_free(one);
    dist_free(far);
}
END_TEST

START_TEST(errors)
{
    dist_error err = {.message = ""};
    dice d = parse_ok("10000d1000");
    ck_assert_ptr_null(dist_dice(&d, DIST_DEFAULT_EPSILON, &err));
    ck_assert_msg(strstr(err.message, "too many possible outcomes") != NULL, "%s", err.message);
    d = parse_ok("5d10!dl1"); /* the number of faces kept varies with the pool */
    ck_assert_ptr_null(dist_dice(&d, DIST_DEFAULT_EPSILON, &err));
    ck_assert_msg(strstr(err.message, "not supported") != NULL, "%s", err.message);
    d = parse_ok("d6!>1");
    dist *r = dist_dice(&d, DIST_DEFAULT_EPSILON, &err); /* cut at DICE_MAX_EXPLOSIONS: stands */
    ck_assert_ptr_nonnull(r);
    ck_assert_near(dist_remainder(r), 0.0, 0.0);
    dist_free(r);
    d = parse_ok("d6");
    d.count = 0;
    ck_assert_ptr_null(dist_dice(&d, DIST_DEFAULT_EPSILON, &err));
    ck_assert_ptr_null(dist_dice(NULL, DIST_DEFAULT_EPSILON, &err));
    dist *big = dice_dist("100d1000");
    ck_assert_ptr_null(dist_mul(big, big, &err));
    dist_free(big);
}
END_TEST

START_TEST(count_format)
{
    char buf[64];
    ck_assert_uint_eq(dist_count_format(0, buf, sizeof buf), 1);
    ck_assert_str_eq(buf, "0");
    dist_count big = (dist_count)UINT64_MAX * 1000 + 7;
    ck_assert_uint_eq(dist_count_format(big, buf, sizeof buf), 23);
    ck_assert_str_eq(buf, "18446744073709551615007");
    ck_assert_uint_eq(dist_count_format(big, buf, 5), 23);
    ck_assert_str_eq(buf, "1844");
}
END_TEST

/* The limits an operation is given are the ones it meets: at the
 * boundary it computes, one past it refuses with the limit's name. */
START_TEST(limits_given_are_met)
{
    dice d = parse_ok("3d6"); /* 16 outcomes, 3..18 */
    dist_limits lim = {.outcomes = 16, .work = DIST_DEFAULT_WORK};
    dist_error err = {"", &lim};
    dist *r = dist_dice(&d, DIST_DEFAULT_EPSILON, &err);
    ck_assert_ptr_nonnull(r);
    dist_free(r);
    lim.outcomes = 15;
    ck_assert_ptr_null(dist_dice(&d, DIST_DEFAULT_EPSILON, &err));
    ck_assert_str_eq(err.message, "too many possible outcomes (limit is 15; see --limit outcomes=N)");

    dice pool = parse_ok("10d10kh5"); /* its estimate: 2350 steps */
    lim = (dist_limits){.outcomes = DIST_DEFAULT_OUTCOMES, .work = 2350};
    r = dist_dice(&pool, DIST_DEFAULT_EPSILON, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_double_eq_tol(dist_mean(r), 38.780304, 1e-6);
    dist_free(r);
    lim.work = 2349;
    ck_assert_ptr_null(dist_dice(&pool, DIST_DEFAULT_EPSILON, &err));
    ck_assert_str_eq(err.message,
                     "keeping 5 of 10 dice is too much work to compute exactly (see --limit exact-work=N)");

    /* no limits given: the defaults */
    dist_error plain = {.message = ""};
    dice wide = parse_ok("5000d1000");
    ck_assert_ptr_null(dist_dice(&wide, DIST_DEFAULT_EPSILON, &plain));
    ck_assert_str_eq(plain.message, "too many possible outcomes (limit is 1000000; see --limit outcomes=N)");
}
END_TEST

/* Every allocation failure gives NULL with a message, and leaks nothing. */
START_TEST(out_of_memory)
{
    static const char *const texts[] = {"4d6kh3", "5d10!kh3", "3d6!", "2d6!!kh1", "100d6", "3d6>=5f1", "30d20kh10"};
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        dice d = parse_ok(texts[t]);
        for (long countdown = 0;; countdown++) {
            dist_error err = {.message = ""};
            mem_fail_after(countdown);
            dist *r = dist_dice(&d, DIST_DEFAULT_EPSILON, &err);
            mem_fail_after(-1);
            if (r) {
                dist_free(r);
                break;
            }
            ck_assert_msg(err.message[0] != '\0', "%s: no message at countdown %ld", texts[t], countdown);
            ck_assert_msg(mem_live_bytes() == live_at_start, "%s leaked at countdown %ld", texts[t], countdown);
        }
    }
    dist *a = dice_dist("2d6"), *b = dice_dist("d20");
    for (long countdown = 0; countdown < 8; countdown++) {
        dist_error err = {.message = ""};
        mem_fail_after(countdown);
        dist *r[6] = {dist_add(a, b, &err),       dist_maximum(a, b, &err), dist_compare(a, b, DIST_LT, &err),
                      dist_choose(a, a, b, &err), dist_scale(a, 3, &err),   dist_copy(b, &err)};
        mem_fail_after(-1);
        for (int i = 0; i < 6; i++)
            dist_free(r[i]);
    }
    dist_free(a);
    dist_free(b);
}
END_TEST

/* ------------------------------------------------------ against the roller */

#define SAMPLES 20000
#define FACES_CAP (DICE_MAX_COUNT + DICE_MAX_EXPLOSIONS)

static dice_face faces[FACES_CAP];

/* Chi-square of SAMPLES rolls against the computed distribution, with
 * adjacent outcomes pooled until each bin expects at least 5. */
static void agree_with_roller(const char *text, uint64_t seed)
{
    dice d = parse_ok(text);
    dist *x = dice_dist(text);
    int64_t lo = dist_lowest(x), hi = dist_highest(x);
    size_t n = (size_t)(hi - lo + 1);
    long *seen = calloc(n, sizeof *seen);
    ck_assert_ptr_nonnull(seen);
    rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < SAMPLES; i++) {
        size_t nf;
        int64_t total;
        ck_assert_int_eq(dice_roll(&d, &r, faces, FACES_CAP, &nf, &total), 0);
        ck_assert_msg(total >= lo && total <= hi, "%s rolled %lld outside %lld..%lld", text, (long long)total,
                      (long long)lo, (long long)hi);
        seen[total - lo]++;
    }
    double chi2 = 0, expect = 0, observed = 0;
    int bins = 0;
    for (size_t i = 0; i < n; i++) {
        expect += SAMPLES * dist_p(x, lo + (int64_t)i);
        observed += (double)seen[i];
        if (expect >= 5 || i == n - 1) {
            if (expect > 0) {
                chi2 += (observed - expect) * (observed - expect) / expect;
                bins++;
            } else {
                ck_assert_msg(observed == 0, "%s: rolled an impossible total", text);
            }
            expect = observed = 0;
        }
    }
    double df = bins > 1 ? bins - 1 : 1;
    double limit = df + 6 * sqrt(2 * df) + 10;
    ck_assert_msg(chi2 < limit, "%s: chi-square %.1f over %d bins (limit %.1f)", text, chi2, bins, limit);
    free(seen);
    dist_free(x);
}

static const char *const roller_cases[] = {
    "3d6",     "4d6kh3", "2d20kl1",    "5d8dh2",        "d20ro1",   "3d6r<3",    "d6!",           "2d6!!",
    "3d6!p",   "4dF",    "10d10>=8f1", "6d6>=5",        "d10!>=9",  "5d10!!kh3", "4d6ro1dl1",     "3d8!!>=7kh2",
    "2d6!>=5", "4dF!",   "6d6kl2>=3",  "3d10!>=9>=8f1", "5d10!kh3", "4d6!kl2",   "3d6!>=5kh2>=5", "6d4!kh3",
};

START_TEST(roller_agreement)
{
    agree_with_roller(roller_cases[_i], 0x5eed + (uint64_t)_i);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("values");
    tcase_add_checked_fixture(tc, leak_setup, leak_teardown);
    tcase_add_test(tc, sum_3d6);
    tcase_add_test(tc, keep_4d6kh3);
    tcase_add_test(tc, keep_advantage_and_pools);
    tcase_add_test(tc, keep_capped_exploding);
    tcase_add_test(tc, compare_and_extremes);
    tcase_add_test(tc, arithmetic);
    tcase_add_test(tc, success_counting);
    tcase_add_test(tc, fudge_dice);
    tcase_add_test(tc, rerolls);
    tcase_add_test(tc, explosions);
    tcase_add_test(tc, big_sum_goes_inexact);
    tcase_add_test(tc, exact_mean_and_chance);
    tcase_add_test(tc, mixtures);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, count_format);
    tcase_add_test(tc, quantiles_at_exact_boundaries);
    tcase_add_test(tc, limits_given_are_met);
    tcase_add_test(tc, out_of_memory);
    tcase_add_test(tc, refused_where_the_budget_of_extra_dice_binds);
    suite_add_tcase(s, tc);

    TCase *roller = tcase_create("roller");
    tcase_add_checked_fixture(roller, leak_setup, leak_teardown);
    tcase_set_timeout(roller, 30);
    tcase_add_loop_test(roller, roller_agreement, 0, (int)(sizeof roller_cases / sizeof *roller_cases));
    suite_add_tcase(s, roller);

    return s;
}

int main(void)
{
    return check_main(make_suite());
}
