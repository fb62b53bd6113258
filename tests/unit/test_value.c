/* Unit tests for runtime/value: exact rationals (normalisation, overflow),
 * comparison, rounding and truthiness. */
#include "tests/unit/check_main.h"

#include <stdint.h>

#include "runtime/core/value.h"

static value frac(int64_t n, int64_t d)
{
    value v;
    ck_assert_int_eq(rat_make(n, d, V_FRAC, &v), ARITH_OK);
    return v;
}

static void assert_rat(value v, value_type t, int64_t num, int64_t den)
{
    ck_assert_int_eq(v.type, t);
    ck_assert_int_eq(v.num, num);
    if (t == V_FRAC || t == V_DIST)
        ck_assert_int_eq(value_den(v), den);
    else
        ck_assert_int_eq(den, 1);
}

START_TEST(test_make_reduces)
{
    value v;
    ck_assert_int_eq(rat_make(6, 4, V_FRAC, &v), ARITH_OK);
    assert_rat(v, V_FRAC, 3, 2);
    ck_assert_int_eq(rat_make(-6, 4, V_FRAC, &v), ARITH_OK);
    assert_rat(v, V_FRAC, -3, 2);
}
END_TEST

START_TEST(test_make_sign_on_numerator)
{
    value v;
    ck_assert_int_eq(rat_make(3, -6, V_FRAC, &v), ARITH_OK);
    assert_rat(v, V_FRAC, -1, 2);
    ck_assert_int_eq(rat_make(-3, -6, V_FRAC, &v), ARITH_OK);
    assert_rat(v, V_FRAC, 1, 2);
}
END_TEST

START_TEST(test_make_whole_becomes_int)
{
    value v;
    ck_assert_int_eq(rat_make(8, 4, V_FRAC, &v), ARITH_OK);
    assert_rat(v, V_INT, 2, 1);
    ck_assert_int_eq(rat_make(0, 7, V_FRAC, &v), ARITH_OK);
    assert_rat(v, V_INT, 0, 1);
    /* distances keep their type even when whole */
    ck_assert_int_eq(rat_make(10, 2, V_DIST, &v), ARITH_OK);
    assert_rat(v, V_DIST, 5, 1);
}
END_TEST

START_TEST(test_make_errors)
{
    value v = value_int(99);
    ck_assert_int_eq(rat_make(1, 0, V_FRAC, &v), ARITH_DIV_ZERO);
    ck_assert_int_eq(rat_make(INT64_MIN, -1, V_FRAC, &v), ARITH_OVERFLOW);
    /* a denominator past its 48 bits */
    ck_assert_int_eq(rat_make(1, VALUE_DEN_MAX + 1, V_FRAC, &v), ARITH_TOO_FINE);
    ck_assert_int_eq(rat_make(1, INT64_MAX, V_FRAC, &v), ARITH_TOO_FINE);
    /* but one that reduces under them is fine */
    ck_assert_int_eq(rat_make(2, (VALUE_DEN_MAX + 1) * 2, V_FRAC, &v), ARITH_TOO_FINE);
    ck_assert_int_eq(rat_make(4, (VALUE_DEN_MAX + 1) * 2, V_FRAC, &v), ARITH_OK);
    assert_rat(v, V_FRAC, 1, (VALUE_DEN_MAX + 1) / 2);
}
END_TEST

/* Denominators past 32 bits: a decimal's 12 places, 1/3037000499. */
START_TEST(test_wide_denominators)
{
    value v, r;
    ck_assert_int_eq(rat_make(123456789012, INT64_C(1000000000000), V_FRAC, &v), ARITH_OK);
    assert_rat(v, V_FRAC, 30864197253, INT64_C(250000000000));
    ck_assert_int_eq(rat_div(value_int(1), value_int(3037000499), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_FRAC, 1, 3037000499);
    /* two wide denominators that differ only above bit 32 stay apart */
    value a = frac(1, (INT64_C(1) << 32) + 3), b = frac(1, (INT64_C(2) << 32) + 3);
    ck_assert_int_eq(a.aux, b.aux);
    ck_assert_int_ne(rat_cmp(a, b), 0);
    ck_assert(!value_identical(a, b));
    /* a sum whose product of denominators passes 48 bits is refused, not wrapped */
    ck_assert_int_eq(rat_add(frac(1, 2147483647), frac(1, 2147483646), V_FRAC, &r, 1), ARITH_TOO_FINE);
    /* a sum whose intermediate products pass 64 bits, but not its result */
    ck_assert_int_eq(rat_add(frac(INT64_MAX, 5), frac(INT64_MAX, 10), V_FRAC, &r, -1), ARITH_OK);
    assert_rat(r, V_FRAC, INT64_MAX, 10);
    ck_assert_int_eq(rat_add(value_int(INT64_MAX), value_int(INT64_MAX), V_FRAC, &r, -1), ARITH_OK);
    assert_rat(r, V_INT, 0, 1);
    /* floor and round of a wide fraction */
    ck_assert_int_eq(value_floor(frac(-1, INT64_C(1000000000000))), -1);
    ck_assert_int_eq(value_ceil(frac(-1, INT64_C(1000000000000))), 0);
    ck_assert_int_eq(value_round(frac(INT64_C(500000000000), INT64_C(1000000000000))), 1);
}
END_TEST

START_TEST(test_add_exact)
{
    value r;
    ck_assert_int_eq(rat_add(frac(1, 3), frac(1, 6), V_FRAC, &r, 1), ARITH_OK);
    assert_rat(r, V_FRAC, 1, 2);
    ck_assert_int_eq(rat_add(frac(1, 2), frac(1, 2), V_FRAC, &r, 1), ARITH_OK);
    assert_rat(r, V_INT, 1, 1);
    ck_assert_int_eq(rat_add(value_int(1), frac(3, 4), V_FRAC, &r, -1), ARITH_OK);
    assert_rat(r, V_FRAC, 1, 4);
    ck_assert_int_eq(rat_add(value_int(2), value_int(5), V_INT, &r, -1), ARITH_OK);
    assert_rat(r, V_INT, -3, 1);
}
END_TEST

START_TEST(test_add_overflow)
{
    value r;
    ck_assert_int_eq(rat_add(value_int(INT64_MAX), value_int(1), V_INT, &r, 1), ARITH_OVERFLOW);
    ck_assert_int_eq(rat_add(value_int(INT64_MIN), value_int(1), V_INT, &r, -1), ARITH_OVERFLOW);
    ck_assert_int_eq(rat_add(value_int(0), value_int(INT64_MIN), V_INT, &r, -1), ARITH_OVERFLOW);
    ck_assert_int_eq(rat_add(value_int(INT64_MAX - 1), value_int(1), V_INT, &r, 1), ARITH_OK);
    ck_assert_int_eq(r.num, INT64_MAX);
}
END_TEST

START_TEST(test_mul_exact_and_cross_reduced)
{
    value r;
    ck_assert_int_eq(rat_mul(value_int(3), frac(3, 2), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_FRAC, 9, 2);
    ck_assert_int_eq(rat_mul(frac(2, 3), frac(3, 2), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_INT, 1, 1);
    /* (2^40/3) * (3/2^40) fits only if reduced before multiplying */
    value big;
    ck_assert_int_eq(rat_make(INT64_C(1) << 40, 3, V_FRAC, &big), ARITH_OK);
    value small = value_ratio(V_FRAC, 3, INT64_C(1) << 40);
    ck_assert_int_eq(rat_mul(big, small, V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_INT, 1, 1);
}
END_TEST

START_TEST(test_mul_overflow)
{
    value r;
    ck_assert_int_eq(rat_mul(value_int(INT64_MAX / 2 + 1), value_int(2), V_INT, &r), ARITH_OVERFLOW);
    ck_assert_int_eq(rat_mul(value_int(INT64_C(1) << 32), value_int(INT64_C(1) << 32), V_INT, &r), ARITH_OVERFLOW);
    ck_assert_int_eq(rat_mul(value_int(-(INT64_C(1) << 31)), value_int(INT64_C(1) << 31), V_INT, &r), ARITH_OK);
    ck_assert_int_eq(r.num, -(INT64_C(1) << 62));
}
END_TEST

START_TEST(test_div)
{
    value r;
    ck_assert_int_eq(rat_div(value_int(7), value_int(2), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_FRAC, 7, 2);
    ck_assert_int_eq(rat_div(value_int(7), value_int(-2), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_FRAC, -7, 2);
    ck_assert_int_eq(rat_div(frac(1, 2), frac(1, 4), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_INT, 2, 1);
    ck_assert_int_eq(rat_div(frac(-3, 4), frac(-3, 8), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_INT, 2, 1);
    ck_assert_int_eq(rat_div(value_int(1), value_int(0), V_FRAC, &r), ARITH_DIV_ZERO);
    /* dividing by a numerator too large for a denominator */
    ck_assert_int_eq(rat_div(value_int(INT64_C(1) << 40), value_int(INT64_C(1) << 38), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_INT, 4, 1);
    ck_assert_int_eq(rat_div(value_int(1), value_int(INT64_C(1) << 40), V_FRAC, &r), ARITH_OK);
    assert_rat(r, V_FRAC, 1, INT64_C(1) << 40);
    ck_assert_int_eq(rat_div(value_int(1), value_int(INT64_C(1) << 48), V_FRAC, &r), ARITH_TOO_FINE);
    ck_assert_int_eq(rat_div(value_int(INT64_MIN), value_int(-1), V_FRAC, &r), ARITH_OVERFLOW);
}
END_TEST

START_TEST(test_cmp)
{
    ck_assert_int_eq(rat_cmp(frac(1, 3), frac(1, 2)), -1);
    ck_assert_int_eq(rat_cmp(frac(1, 2), frac(1, 3)), 1);
    ck_assert_int_eq(rat_cmp(frac(2, 4), frac(1, 2)), 0);
    ck_assert_int_eq(rat_cmp(value_int(3), frac(7, 2)), -1);
    ck_assert_int_eq(rat_cmp(frac(-7, 2), value_int(-3)), -1);
    /* no overflow in the cross products */
    value a = {.type = V_FRAC, .aux = INT32_MAX, .num = INT64_MAX};
    value b = {.type = V_FRAC, .aux = INT32_MAX - 1, .num = INT64_MAX};
    ck_assert_int_eq(rat_cmp(a, b), -1);
    ck_assert_int_eq(rat_cmp(value_int(INT64_MIN), value_int(INT64_MAX)), -1);
}
END_TEST

START_TEST(test_floor_ceil)
{
    ck_assert_int_eq(value_floor(frac(7, 2)), 3);
    ck_assert_int_eq(value_floor(frac(-7, 2)), -4);
    ck_assert_int_eq(value_floor(value_int(-4)), -4);
    ck_assert_int_eq(value_ceil(frac(7, 2)), 4);
    ck_assert_int_eq(value_ceil(frac(-7, 2)), -3);
    ck_assert_int_eq(value_ceil(value_int(5)), 5);
    ck_assert_int_eq(value_floor(frac(1, 3)), 0);
    ck_assert_int_eq(value_ceil(frac(-1, 3)), 0);
}
END_TEST

START_TEST(test_round_half_away)
{
    ck_assert_int_eq(value_round(frac(5, 2)), 3);
    ck_assert_int_eq(value_round(frac(-5, 2)), -3);
    ck_assert_int_eq(value_round(frac(1, 2)), 1);
    ck_assert_int_eq(value_round(frac(-1, 2)), -1);
    ck_assert_int_eq(value_round(frac(7, 3)), 2);
    ck_assert_int_eq(value_round(frac(-7, 3)), -2);
    ck_assert_int_eq(value_round(frac(8, 3)), 3);
    ck_assert_int_eq(value_round(frac(-8, 3)), -3);
    ck_assert_int_eq(value_round(value_int(-9)), -9);
}
END_TEST

START_TEST(test_truthy)
{
    ck_assert(!value_truthy(value_nil()));
    ck_assert(!value_truthy(value_bool(false)));
    ck_assert(value_truthy(value_bool(true)));
    ck_assert(!value_truthy(value_int(0)));
    ck_assert(value_truthy(value_int(-1)));
    ck_assert(value_truthy(frac(1, 2)));
    value dist0;
    ck_assert_int_eq(rat_make(0, 1, V_DIST, &dist0), ARITH_OK);
    ck_assert(!value_truthy(dist0));
    ck_assert(value_truthy(value_ref(V_STR, HOME_PROGRAM, 0)));
}
END_TEST

START_TEST(test_as_frac_and_is_number)
{
    value roll = {.type = V_ROLL, .aux = 0, .num = 17};
    ck_assert(value_is_number(roll));
    ck_assert(value_is_number(frac(1, 2)));
    ck_assert(!value_is_number(value_bool(true)));
    value f = value_as_frac(roll);
    ck_assert_int_eq(f.type, V_INT);
    ck_assert_int_eq(f.num, 17);
    ck_assert_str_eq(value_type_name(V_DIST), "distance");
    ck_assert_str_eq(time_kind_name(TIME_ROUNDS, 1), "round");
    ck_assert_str_eq(time_kind_name(TIME_ROUNDS, 2), "rounds");
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("value");
    TCase *tc = tcase_create("rational");
    tcase_add_test(tc, test_make_reduces);
    tcase_add_test(tc, test_make_sign_on_numerator);
    tcase_add_test(tc, test_make_whole_becomes_int);
    tcase_add_test(tc, test_make_errors);
    tcase_add_test(tc, test_wide_denominators);
    tcase_add_test(tc, test_add_exact);
    tcase_add_test(tc, test_add_overflow);
    tcase_add_test(tc, test_mul_exact_and_cross_reduced);
    tcase_add_test(tc, test_mul_overflow);
    tcase_add_test(tc, test_div);
    tcase_add_test(tc, test_cmp);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("rounding");
    tcase_add_test(tr, test_floor_ceil);
    tcase_add_test(tr, test_round_half_away);
    tcase_add_test(tr, test_truthy);
    tcase_add_test(tr, test_as_frac_and_is_number);
    suite_add_tcase(s, tr);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
