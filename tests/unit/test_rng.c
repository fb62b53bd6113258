/* Unit tests for runtime/rng: reference outputs, determinism, range and
 * uniformity. Reference numbers come from the published xoshiro256** and
 * splitmix64 algorithms (prng.di.unimi.it), recomputed independently. */
#include "tests/unit/check_main.h"
#include <stdint.h>
#include <stdlib.h>

#include "runtime/dice/rng.h"

/* Independent splitmix64, to check the seeding without trusting rng.c. */
static uint64_t ref_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

START_TEST(test_xoshiro_reference_outputs)
{
    /* xoshiro256** from state {1, 2, 3, 4}: the commonly published vector. */
    static const uint64_t expected[10] = {
        UINT64_C(11520),
        UINT64_C(0),
        UINT64_C(1509978240),
        UINT64_C(1215971899390074240),
        UINT64_C(1216172134540287360),
        UINT64_C(607988272756665600),
        UINT64_C(16172922978634559625),
        UINT64_C(8476171486693032832),
        UINT64_C(10595114339597558777),
        UINT64_C(2904607092377533576),
    };
    rng r = {.s = {1, 2, 3, 4}, .oracle = NULL};
    for (int i = 0; i < 10; i++)
        ck_assert_uint_eq(rng_next(&r), expected[i]);
}
END_TEST

/* The oracle walks every combination of the draws: 2d6 gives 36 paths of
   1/36 each, the sums in the usual proportions (7 six times), and the
   walk ends. */
START_TEST(test_oracle_walks_every_path)
{
    rng r;
    rng_seed(&r, 1);
    rng_oracle o = {.min_weight = 0};
    r.oracle = &o;
    int paths = 0, sums[13] = {0};
    double total = 0;
    do {
        rng_oracle_rewind(&o);
        int64_t sum = rng_die(&r, 6) + rng_die(&r, 6);
        ck_assert(!o.too_deep && !o.diverged);
        ck_assert_double_eq_tol(o.weight, 1.0 / 36, 1e-15);
        total += o.weight;
        sums[sum]++;
        paths++;
    } while (rng_oracle_advance(&o));
    ck_assert_int_eq(paths, 36);
    ck_assert_double_eq_tol(total, 1.0, 1e-12);
    for (int s = 2; s <= 12; s++)
        ck_assert_int_eq(sums[s], 6 - abs(s - 7));
}
END_TEST

/* Draws that depend on earlier ones (a d20, then a d6 only on a 20): the
   paths have different lengths, and their chances still add up to 1. */
START_TEST(test_oracle_uneven_paths)
{
    rng r;
    rng_seed(&r, 1);
    rng_oracle o = {.min_weight = 0};
    r.oracle = &o;
    int paths = 0;
    double total = 0, twenty_and_six = 0;
    do {
        rng_oracle_rewind(&o);
        int64_t d20 = rng_die(&r, 20);
        if (d20 == 20 && rng_die(&r, 6) == 6)
            twenty_and_six += o.weight;
        total += o.weight;
        paths++;
    } while (rng_oracle_advance(&o));
    ck_assert_int_eq(paths, 19 + 6);
    ck_assert_double_eq_tol(total, 1.0, 1e-12);
    ck_assert_double_eq_tol(twenty_and_six, 1.0 / 120, 1e-15);
}
END_TEST

/* A draw that would make the path less likely than min_weight is cut:
   rerolling ties forever stops, and the cut paths are marked. Two d20s
   make a path of 1/400; a third draw 1/8000; a fourth would be below
   1e-4, so every tie is cut there. */
START_TEST(test_oracle_cuts_unlikely_paths)
{
    rng r;
    rng_seed(&r, 1);
    rng_oracle o = {.min_weight = 1e-4};
    r.oracle = &o;
    double settled = 0, cut = 0;
    do {
        rng_oracle_rewind(&o);
        int64_t a, b;
        do {
            a = rng_die(&r, 20);
            b = rng_die(&r, 20);
        } while (a == b && !o.too_deep);
        if (o.too_deep)
            cut += o.weight;
        else
            settled += o.weight;
    } while (rng_oracle_advance(&o));
    /* a tie (1 in 20) goes below 1e-4 at its second reroll's second die */
    ck_assert_double_eq_tol(cut, 0.05, 1e-12);
    ck_assert_double_eq_tol(settled + cut, 1.0, 1e-12);
}
END_TEST

START_TEST(test_splitmix_reference_outputs)
{
    /* splitmix64 seeded with 1234567: published reference outputs. */
    static const uint64_t expected[5] = {
        UINT64_C(6457827717110365317), UINT64_C(3203168211198807973),  UINT64_C(9817491932198370423),
        UINT64_C(4593380528125082431), UINT64_C(16408922859458223821),
    };
    uint64_t state = 1234567;
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(ref_splitmix64(&state), expected[i]);
}
END_TEST

START_TEST(test_seed_uses_splitmix64)
{
    rng r;
    rng_seed(&r, 42);
    ck_assert_uint_eq(r.s[0], UINT64_C(0xbdd732262feb6e95));
    ck_assert_uint_eq(r.s[1], UINT64_C(0x28efe333b266f103));
    ck_assert_uint_eq(r.s[2], UINT64_C(0x47526757130f9f52));
    ck_assert_uint_eq(r.s[3], UINT64_C(0x581ce1ff0e4ae394));

    for (uint64_t seed = 0; seed < 50; seed++) {
        uint64_t state = seed;
        rng_seed(&r, seed);
        for (int i = 0; i < 4; i++)
            ck_assert_uint_eq(r.s[i], ref_splitmix64(&state));
    }

    /* First outputs after seeding with 42. */
    static const uint64_t first[5] = {
        UINT64_C(1546998764402558742),  UINT64_C(6990951692964543102),  UINT64_C(12544586762248559009),
        UINT64_C(17057574109182124193), UINT64_C(18295552978065317476),
    };
    rng_seed(&r, 42);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(rng_next(&r), first[i]);
}
END_TEST

START_TEST(test_seed_zero_gives_valid_state)
{
    rng r;
    rng_seed(&r, 0);
    ck_assert(r.s[0] | r.s[1] | r.s[2] | r.s[3]);
    /* A stuck generator would return the same value again and again. */
    uint64_t a = rng_next(&r), b = rng_next(&r), c = rng_next(&r);
    ck_assert(a != b || b != c);
}
END_TEST

START_TEST(test_same_seed_same_sequence)
{
    rng a, b, c;
    rng_seed(&a, 20261122);
    rng_seed(&b, 20261122);
    rng_seed(&c, 20261123);
    int differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rng_next(&a);
        ck_assert_uint_eq(x, rng_next(&b));
        differ += x != rng_next(&c);
    }
    ck_assert_int_gt(differ, 990);

    rng_seed(&a, 7);
    rng_seed(&b, 7);
    for (int i = 0; i < 1000; i++) {
        ck_assert_uint_eq(rng_below(&a, 1000), rng_below(&b, 1000));
        ck_assert_int_eq(rng_die(&a, 20), rng_die(&b, 20));
    }
}
END_TEST

START_TEST(test_below_reference_values)
{
    /* Lemire's method as specified: floor(x * n / 2^64) with rejection of
     * low products below (2^64 - n) mod n. Values computed independently
     * with arbitrary-precision integers. These also pin the portable
     * 64x64 multiply when built with -DRNG_NO_INT128. */
    static const uint64_t d6[20] = {4, 4, 5, 4, 3, 4, 1, 4, 1, 4, 5, 3, 5, 4, 4, 0, 1, 2, 3, 1};
    static const uint64_t prime[5] = {489191759, 398991792, 789121931, 635056756, 231334536};
    static const uint64_t huge[5] = {
        UINT64_C(3820974707974779384), UINT64_C(5743682620720952228), UINT64_C(7961270525770625619),
        UINT64_C(6889856558200211211), UINT64_C(413472167751005817),
    };
    rng r;
    rng_seed(&r, 42);
    for (int i = 0; i < 5; i++)
        (void)rng_next(&r);
    for (int i = 0; i < 20; i++)
        ck_assert_uint_eq(rng_below(&r, 6), d6[i]);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(rng_below(&r, 1000000007), prime[i]);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(rng_below(&r, (UINT64_C(1) << 63) + 12345), huge[i]);
}
END_TEST

START_TEST(test_below_range)
{
    static const uint64_t bounds[] = {
        1, 2, 3, 6, 7, 10, 20, 100, 1000000, UINT64_C(0x100000000), (UINT64_C(1) << 63) + 1, UINT64_MAX,
    };
    rng r;
    rng_seed(&r, 99);
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
        for (int i = 0; i < 2000; i++)
            ck_assert_uint_lt(rng_below(&r, bounds[b]), bounds[b]);

    /* n == 0 has no answer: 0 and the state is left alone. */
    rng before = r;
    ck_assert_uint_eq(rng_below(&r, 0), 0);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(r.s[i], before.s[i]);
}
END_TEST

START_TEST(test_die_range_and_coverage)
{
    rng r;
    rng_seed(&r, 5);
    int seen[21] = {0};
    for (int i = 0; i < 20000; i++) {
        int64_t v = rng_die(&r, 20);
        ck_assert_int_ge(v, 1);
        ck_assert_int_le(v, 20);
        seen[v]++;
    }
    for (int v = 1; v <= 20; v++)
        ck_assert_int_gt(seen[v], 0);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(rng_die(&r, 1), 1);
    ck_assert_int_eq(rng_die(&r, 0), 0);
    ck_assert_int_eq(rng_die(&r, -4), 0);
}
END_TEST

START_TEST(test_d6_chi_square)
{
    /* 1e5 d6 rolls, 5 degrees of freedom. The 0.999 quantile is 20.5;
     * 30 is generous while still catching a broken or biased generator. */
    enum { DRAWS = 100000, SIDES = 6 };
    rng r;
    rng_seed(&r, 12345);
    long counts[SIDES] = {0};
    for (int i = 0; i < DRAWS; i++)
        counts[rng_die(&r, SIDES) - 1]++;
    /* Chi-square times the expected count, in integers: no floating
     * point needed for the comparison. */
    const long expected = DRAWS / SIDES; /* 16666 (remainder is tiny) */
    double chi = 0;
    for (int i = 0; i < SIDES; i++) {
        double diff = (double)counts[i] - (double)DRAWS / SIDES;
        chi += diff * diff / ((double)DRAWS / SIDES);
        ck_assert_int_gt(counts[i], expected - 1000);
    }
    ck_assert_msg(chi < 30.0, "chi-square %f too large", chi);
}
END_TEST

START_TEST(test_below_uniform_non_power_of_two)
{
    /* n = 3 * 2^62 makes a naive modulo visibly biased toward low values;
     * Lemire's rejection keeps the top third as likely as the others. */
    const uint64_t n = UINT64_C(3) << 62;
    rng r;
    rng_seed(&r, 2024);
    long thirds[3] = {0};
    for (int i = 0; i < 60000; i++)
        thirds[rng_below(&r, n) / (UINT64_C(1) << 62)]++;
    for (int i = 0; i < 3; i++) {
        ck_assert_int_gt(thirds[i], 19000);
        ck_assert_int_lt(thirds[i], 21000);
    }
}
END_TEST

static Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_xoshiro_reference_outputs);
    tcase_add_test(tc, test_splitmix_reference_outputs);
    tcase_add_test(tc, test_oracle_walks_every_path);
    tcase_add_test(tc, test_oracle_uneven_paths);
    tcase_add_test(tc, test_oracle_cuts_unlikely_paths);
    tcase_add_test(tc, test_seed_uses_splitmix64);
    tcase_add_test(tc, test_seed_zero_gives_valid_state);
    tcase_add_test(tc, test_same_seed_same_sequence);
    tcase_add_test(tc, test_below_reference_values);
    tcase_add_test(tc, test_below_range);
    tcase_add_test(tc, test_die_range_and_coverage);
    tcase_add_test(tc, test_d6_chi_square);
    tcase_add_test(tc, test_below_uniform_non_power_of_two);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(rng_suite());
}
