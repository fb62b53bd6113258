/* Unit tests for runtime/dice: parsing every supported notation, error
 * messages and offsets, canonical formatting, rolling semantics (keep/drop,
 * explosions, rerolls, success counting), bounds and breakdown strings. */
#include "tests/unit/check_main.h"
#include <stdlib.h>
#include <string.h>

#include "runtime/dice/dice.h"
#include "runtime/dice/forced.h"

#define FACES_CAP (DICE_MAX_COUNT + DICE_MAX_EXPLOSIONS)

/* Shared scratch for rolls; tests in one process run one at a time. */
static dice_face faces[FACES_CAP];

static dice parse_ok(const char *text)
{
    dice d;
    dice_error err = {0, ""};
    int rc = dice_parse(text, strlen(text), &d, &err);
    ck_assert_msg(rc == 0, "parse \"%s\" failed at %zu: %s", text, err.offset, err.message);
    return d;
}

static bool dice_equal(const dice *a, const dice *b)
{
    return a->count == b->count && a->sides == b->sides && a->fudge == b->fudge && a->keep == b->keep &&
           a->keep_n == b->keep_n && a->explode == b->explode && a->explode_cmp == b->explode_cmp &&
           a->explode_at == b->explode_at && a->reroll_once == b->reroll_once && a->reroll_cmp == b->reroll_cmp &&
           a->reroll_at == b->reroll_at && a->success_cmp == b->success_cmp && a->success_at == b->success_at &&
           a->failure_cmp == b->failure_cmp && a->failure_at == b->failure_at;
}

/* A spec with only count and sides set, like the parser's defaults. */
static dice plain(int32_t count, int32_t sides)
{
    dice d;
    memset(&d, 0, sizeof d);
    d.count = count;
    d.sides = sides;
    return d;
}

/* ------------------------------------------------------------- parsing */

typedef struct parse_case {
    const char *text;
    dice expected;
} parse_case;

static const parse_case *parse_cases(size_t *n)
{
    static parse_case cases[32];
    size_t i = 0;
    dice d;

    cases[i++] = (parse_case){"d20", plain(1, 20)};
    cases[i++] = (parse_case){"3d6", plain(3, 6)};
    cases[i++] = (parse_case){"d%", plain(1, 100)};
    d = plain(1, 3), d.fudge = true;
    cases[i++] = (parse_case){"dF", d};
    d = plain(4, 3), d.fudge = true;
    cases[i++] = (parse_case){"4dF", d};
    d = plain(4, 6), d.keep = DICE_KEEP_HIGH, d.keep_n = 3;
    cases[i++] = (parse_case){"4d6kh3", d};
    cases[i++] = (parse_case){"4d6k3", d};
    d = plain(4, 6), d.keep = DICE_KEEP_LOW, d.keep_n = 1;
    cases[i++] = (parse_case){"4d6kl1", d};
    d = plain(4, 6), d.keep = DICE_DROP_LOW, d.keep_n = 1;
    cases[i++] = (parse_case){"4d6dl1", d};
    d = plain(4, 6), d.keep = DICE_DROP_HIGH, d.keep_n = 1;
    cases[i++] = (parse_case){"4d6dh1", d};
    d = plain(1, 6), d.explode = DICE_EXPLODE, d.explode_cmp = DICE_CMP_EQ, d.explode_at = 6;
    cases[i++] = (parse_case){"d6!", d};
    d.explode_cmp = DICE_CMP_GT, d.explode_at = 5;
    cases[i++] = (parse_case){"d6!>5", d};
    d.explode_cmp = DICE_CMP_GE, d.explode_at = 5;
    cases[i++] = (parse_case){"d6!>=5", d};
    d = plain(1, 6), d.explode = DICE_COMPOUND, d.explode_cmp = DICE_CMP_EQ, d.explode_at = 6;
    cases[i++] = (parse_case){"d6!!", d};
    d.explode = DICE_PENETRATE;
    cases[i++] = (parse_case){"d6!p", d};
    d = plain(1, 20), d.reroll_cmp = DICE_CMP_EQ, d.reroll_at = 1;
    cases[i++] = (parse_case){"d20r1", d};
    d.reroll_once = true;
    cases[i++] = (parse_case){"d20ro1", d};
    d = plain(1, 20), d.reroll_cmp = DICE_CMP_LT, d.reroll_at = 2;
    cases[i++] = (parse_case){"d20r<2", d};
    d = plain(1, 20), d.reroll_once = true, d.reroll_cmp = DICE_CMP_LE, d.reroll_at = 2;
    cases[i++] = (parse_case){"d20ro<=2", d};
    d = plain(10, 10), d.success_cmp = DICE_CMP_GE, d.success_at = 8;
    cases[i++] = (parse_case){"10d10>=8", d};
    d = plain(10, 10), d.success_cmp = DICE_CMP_GT, d.success_at = 7;
    cases[i++] = (parse_case){"10d10>7", d};
    d = plain(10, 10), d.success_cmp = DICE_CMP_GE, d.success_at = 8;
    d.failure_cmp = DICE_CMP_EQ, d.failure_at = 1;
    cases[i++] = (parse_case){"10d10>=8f1", d};
    d.failure_cmp = DICE_CMP_LE, d.failure_at = 2;
    cases[i++] = (parse_case){"10d10>=8f<=2", d};
    /* Beyond the brief's list: spelling variants and combinations. */
    cases[i++] = (parse_case){"d100", plain(1, 100)};
    cases[i++] = (parse_case){"1D6", plain(1, 6)};
    d = plain(3, 3), d.fudge = true, d.explode = DICE_EXPLODE;
    d.explode_cmp = DICE_CMP_EQ, d.explode_at = 1; /* dF's highest face */
    cases[i++] = (parse_case){"3dF!", d};
    d = plain(10, 10), d.explode = DICE_EXPLODE, d.explode_cmp = DICE_CMP_EQ, d.explode_at = 10,
    d.success_cmp = DICE_CMP_GE, d.success_at = 8;
    cases[i++] = (parse_case){"10d10!10>=8", d};
    cases[i++] = (parse_case){"10d10>=8!", d}; /* any modifier order */
    d = plain(4, 6), d.keep = DICE_KEEP_HIGH, d.keep_n = 3;
    d.reroll_cmp = DICE_CMP_EQ, d.reroll_at = 1, d.reroll_once = true;
    cases[i++] = (parse_case){"4d6ro1kh3", d};
    cases[i++] = (parse_case){"4d6kh3ro1", d};
    d = plain(4, 3), d.fudge = true, d.success_cmp = DICE_CMP_GE, d.success_at = -1;
    cases[i++] = (parse_case){"4dF>=-1", d};
    *n = i;
    return cases;
}

START_TEST(test_parse_notations)
{
    size_t n;
    const parse_case *cases = parse_cases(&n);
    for (size_t i = 0; i < n; i++) {
        dice d = parse_ok(cases[i].text);
        ck_assert_msg(dice_equal(&d, &cases[i].expected), "fields of \"%s\"", cases[i].text);
    }
}
END_TEST

START_TEST(test_parse_uses_len_not_nul)
{
    dice d;
    dice_error err;
    /* Only the first three bytes are the term: "3d6" out of "3d6kh2". */
    ck_assert_int_eq(dice_parse("3d6kh2", 3, &d, &err), 0);
    dice expected = plain(3, 6);
    ck_assert(dice_equal(&d, &expected));
    /* A NUL inside the range is an error, not an end. */
    ck_assert_int_eq(dice_parse("3d6\0k", 5, &d, &err), -1);
    ck_assert_uint_eq(err.offset, 3);
    /* err may be NULL. */
    ck_assert_int_eq(dice_parse("d0", 2, &d, NULL), -1);
}
END_TEST

typedef struct error_case {
    const char *text;
    size_t offset;
    const char *message;
} error_case;

static const error_case error_cases[] = {
    {"d0", 1, "a die needs at least 1 side"},
    {"3d0", 2, "a die needs at least 1 side"},
    {"0d6", 0, "dice count must be at least 1"},
    {"3d", 2, "missing number of sides after 'd'"},
    {"d", 1, "missing number of sides after 'd'"},
    {"2dx", 2, "missing number of sides after 'd'"},
    {"4d6kh5", 5, "cannot keep 5 of 4 dice"},
    {"4d6k5", 4, "cannot keep 5 of 4 dice"},
    {"4d6dl5", 5, "cannot drop 5 of 4 dice"},
    /* the number as written, not where counting it stopped */
    {"4d6kh99999999999999999999", 5, "cannot keep 99999999999999999999 of 4 dice"},
    {"4d6kh0", 5, "must keep at least 1 die"},
    {"60001d6", 0, "too many dice (fray rolls at most 60000 at once)"},
    {"99999999999999999999d6", 0, "too many dice (fray rolls at most 60000 at once)"},
    {"d20000001", 1, "too many sides (fray rolls dice of at most 20000000)"},
    {"3d99999999999999999999", 2, "too many sides (fray rolls dice of at most 20000000)"},
    {"d1!", 2, "an explosion on every face never ends"},
    {"d6!>=1", 2, "an explosion on every face never ends"},
    {"d6!!>0", 2, "an explosion on every face never ends"},
    {"dF!p>=-1", 2, "an explosion on every face never ends"},
    {"d6r<=6", 2, "rerolling every face never ends"},
    {"d1r1", 2, "rerolling every face never ends"},
    {"", 0, "expected dice such as 2d6"},
    {"20", 2, "expected 'd' after the dice count"},
    {"3x6", 1, "unexpected 'x' where 'd' was expected"},
    {"3d6 ", 3, "unexpected space in dice"},
    {"3d6+1", 3, "unexpected '+' in dice"},
    {"d6kh", 4, "missing number after 'kh'"},
    {"d6r", 3, "missing number after 'r'"},
    {"d6ro", 4, "missing number after 'ro'"},
    {"d6>=", 4, "missing number after '>='"},
    {"d6!>", 4, "missing number after '>'"},
    {"10d10f1", 5, "failures need a success target, e.g. 10d10>=8f1"},
    {"d6!!!", 4, "only one explosion modifier is allowed"},
    {"4d6kh3dl1", 6, "only one keep or drop modifier is allowed"},
    {"d6r1r2", 4, "only one reroll modifier is allowed"},
    {"d6>3>4", 4, "only one success target is allowed"},
    {"d6>=99999999999", 4, "number too large (limit is 2147483647)"},
};

START_TEST(test_parse_errors)
{
    size_t n = sizeof error_cases / sizeof error_cases[0];
    for (size_t i = 0; i < n; i++) {
        const error_case *c = &error_cases[i];
        dice d = plain(7, 7);
        dice untouched = d;
        dice_error err = {999, ""};
        ck_assert_msg(dice_parse(c->text, strlen(c->text), &d, &err) == -1, "\"%s\" parsed", c->text);
        ck_assert_str_eq(err.message, c->message);
        ck_assert_msg(err.offset == c->offset, "\"%s\": offset %zu, want %zu", c->text, err.offset, c->offset);
        ck_assert(dice_equal(&d, &untouched));
    }
    /* Reroll-once of every face ends after one reroll, so it is allowed. */
    parse_ok("d6ro<=6");
    /* An explosion target no face reaches is harmless. */
    parse_ok("d6!>6");
}
END_TEST

/* ------------------------------------------------------------- format */

START_TEST(test_format_canonical)
{
    static const char *const pairs[][2] = {
        {"d20", "d20"},
        {"1d20", "d20"},
        {"d100", "d%"},
        {"d%", "d%"},
        {"dF", "dF"},
        {"2df", "2dF"},
        {"4d6k3", "4d6kh3"},
        {"4d6d1", "4d6dl1"},
        {"4d6dh1", "4d6dh1"},
        {"4d6kl1", "4d6kl1"},
        {"d6!", "d6!"},
        {"d6!6", "d6!"},
        {"d6!=6", "d6!"},
        {"d6!>5", "d6!>5"},
        {"d6!5", "d6!5"},
        {"d6!!", "d6!!"},
        {"d6!p>=5", "d6!p>=5"},
        {"d20r1", "d20r1"},
        {"d20r=1", "d20r1"},
        {"d20ro<=2", "d20ro<=2"},
        {"10d10>7", "10d10>7"},
        {"10d10=10", "10d10=10"},
        {"10d10>=8f1", "10d10>=8f1"},
        {"10d10f<=2>=8", "10d10>=8f<=2"},
        /* A default explosion followed by a success target must stay
         * unambiguous, so its target is written out. */
        {"10d10>=8!", "10d10!10>=8"},
        {"4d6kh3!", "4d6!kh3"},
        {"4d6kh3ro1!p", "4d6!pro1kh3"},
        {"4dF>=-1", "4dF>=-1"},
        {"dF!=-1", "dF!=-1"},
        {"D6", "d6"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        dice d = parse_ok(pairs[i][0]);
        size_t n = dice_format(&d, buf, sizeof buf);
        ck_assert_str_eq(buf, pairs[i][1]);
        ck_assert_uint_eq(n, strlen(pairs[i][1]));
    }
}
END_TEST

START_TEST(test_format_round_trip)
{
    size_t n;
    const parse_case *cases = parse_cases(&n);
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        dice d = parse_ok(cases[i].text);
        dice_format(&d, buf, sizeof buf);
        dice again = parse_ok(buf);
        ck_assert_msg(dice_equal(&d, &again), "\"%s\" -> \"%s\" changed", cases[i].text, buf);
    }
}
END_TEST

START_TEST(test_format_truncates_like_snprintf)
{
    dice d = parse_ok("10d10>=8f<=2");
    char buf[6];
    memset(buf, 'x', sizeof buf);
    ck_assert_uint_eq(dice_format(&d, buf, sizeof buf), strlen("10d10>=8f<=2"));
    ck_assert_str_eq(buf, "10d10");
    ck_assert_uint_eq(dice_format(&d, NULL, 0), strlen("10d10>=8f<=2"));

    dice_face f[] = {{6, 0}, {5, 0}, {2, DICE_FACE_DROPPED}, {4, 0}};
    d = parse_ok("4d6kh3");
    const char *full = "4d6kh3 (6, 5, [2], 4) = 15";
    for (size_t cap = 0; cap <= strlen(full) + 1; cap++) {
        char out[64];
        memset(out, 'x', sizeof out);
        ck_assert_uint_eq(dice_format_roll(&d, f, 4, 15, out, cap), strlen(full));
        if (cap > 0) {
            ck_assert_uint_eq(strlen(out), cap - 1 < strlen(full) ? cap - 1 : strlen(full));
            ck_assert(strncmp(out, full, strlen(out)) == 0);
        } else {
            ck_assert_int_eq(out[0], 'x');
        }
    }
}
END_TEST

/* ------------------------------------------------------------- rolling */

static void roll_ok(const dice *d, uint64_t seed, size_t *n, int64_t *total)
{
    rng r;
    rng_seed(&r, seed);
    ck_assert_int_eq(dice_roll(d, &r, faces, FACES_CAP, n, total), 0);
    ck_assert_uint_le(*n, dice_max_faces(d));
}

static const char *const bounded_notations[] = {
    "d20",          "3d6",     "d%",       "dF",       "4dF",      "4d6kh3",  "4d6kl1",
    "4d6dl1",       "4d6dh1",  "d6!",      "d6!>5",    "d6!>=5",   "d6!!",    "d6!p",
    "d20r1",        "d20ro1",  "d20r<2",   "d20ro<=2", "10d10>=8", "10d10>7", "10d10>=8f1",
    "10d10>=8f<=2", "4d6!kh3", "3d6!!kh2", "2d6!pdl1", "4dF!",     "3dF!!",   "3dF!p",
    "4dF>=0f<0",    "2d2!kl1", "6d4!<=2",  "d2!!",     "3d2!pdh1", "d4r<=3",  "5d10!>=8>=8f1",
    "20d6ro<=2dl5", "d1",      "d1ro1",
};

START_TEST(test_rolls_within_bounds)
{
    size_t count = sizeof bounded_notations / sizeof bounded_notations[0];
    for (size_t i = 0; i < count; i++) {
        dice d = parse_ok(bounded_notations[i]);
        int64_t lo = dice_min(&d), hi = dice_max(&d);
        ck_assert_int_le(lo, hi);
        for (uint64_t seed = 0; seed < 2000; seed++) {
            size_t n;
            int64_t total;
            roll_ok(&d, seed, &n, &total);
            ck_assert_msg(total >= lo && total <= hi, "%s seed %llu: %lld not in %lld..%lld", bounded_notations[i],
                          (unsigned long long)seed, (long long)total, (long long)lo, (long long)hi);
        }
    }
}
END_TEST

START_TEST(test_bounds_values)
{
    static const struct {
        const char *text;
        int64_t min, max;
    } cases[] = {
        {"d20", 1, 20},
        {"3d6", 3, 18},
        {"4dF", -4, 4},
        {"4d6kh3", 3, 18},
        {"4d6kl1", 1, 6},
        {"4d6dh1", 3, 18},
        {"10d10>=8", 0, 10},
        {"10d10>=8f1", -10, 10},
        {"d20r1", 1, 20},
        /* Explosions: every allowed extra die may land. */
        {"d6!", 1, 606},
        {"d6!p", 0, 606},
        {"4d6!kh3", 3, 18},
        {"dF!", -101, 101},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dice d = parse_ok(cases[i].text);
        ck_assert_msg(dice_min(&d) == cases[i].min, "min of %s", cases[i].text);
        ck_assert_msg(dice_max(&d) == cases[i].max, "max of %s", cases[i].text);
    }
}
END_TEST

START_TEST(test_same_seed_same_roll)
{
    dice d = parse_ok("20d6!ro1kh10");
    static dice_face first[FACES_CAP];
    size_t n1, n2;
    int64_t t1, t2;
    roll_ok(&d, 77, &n1, &t1);
    memcpy(first, faces, n1 * sizeof faces[0]);
    roll_ok(&d, 77, &n2, &t2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_int_eq(t1, t2);
    for (size_t i = 0; i < n1; i++) {
        ck_assert_int_eq(first[i].value, faces[i].value);
        ck_assert_uint_eq(first[i].flags, faces[i].flags);
    }
}
END_TEST

/* Check keep/drop marking on one roll: the right number of faces dropped,
 * every kept face on the right side of every dropped one, ties at the cut
 * kept earliest first, and the total the sum of the kept faces. */
static void check_keep(const dice *d, size_t n, int64_t total)
{
    size_t pool = 0, dropped = 0;
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (faces[i].flags & DICE_FACE_REROLLED)
            continue;
        pool++;
        if (faces[i].flags & DICE_FACE_DROPPED)
            dropped++;
        else
            sum += faces[i].value;
    }
    size_t k = (size_t)d->keep_n;
    size_t want_kept =
        d->keep == DICE_KEEP_HIGH || d->keep == DICE_KEEP_LOW ? (k < pool ? k : pool) : (k < pool ? pool - k : 0);
    ck_assert_uint_eq(pool - dropped, want_kept);
    ck_assert_int_eq(sum, total);
    bool high = d->keep == DICE_KEEP_HIGH || d->keep == DICE_DROP_LOW;
    for (size_t i = 0; i < n; i++) {
        if (faces[i].flags & (DICE_FACE_REROLLED | DICE_FACE_DROPPED))
            continue;
        for (size_t j = 0; j < n; j++) {
            if ((faces[j].flags & (DICE_FACE_REROLLED | DICE_FACE_DROPPED)) != DICE_FACE_DROPPED)
                continue;
            if (high)
                ck_assert_int_ge(faces[i].value, faces[j].value);
            else
                ck_assert_int_le(faces[i].value, faces[j].value);
            if (faces[i].value == faces[j].value)
                ck_assert_uint_lt(i, j);
        }
    }
}

START_TEST(test_keep_and_drop_mark_right_faces)
{
    static const char *const notations[] = {
        "4d6kh3", "4d6kl1",  "4d6dl1",   "4d6dh1",   "8d4kh5",       "8d4kl3", "8d4dl7",
        "8d4dh2", "6d6!kh2", "6d6!!kl2", "5d6!pdl2", "10d6ro<=2dh3", "4dFkh2", "4d6dl4",
    };
    for (size_t i = 0; i < sizeof notations / sizeof notations[0]; i++) {
        dice d = parse_ok(notations[i]);
        for (uint64_t seed = 0; seed < 500; seed++) {
            size_t n;
            int64_t total;
            roll_ok(&d, seed, &n, &total);
            check_keep(&d, n, total);
        }
    }
}
END_TEST

START_TEST(test_explode_chains)
{
    dice d = parse_ok("10d6!");
    bool saw_explosion = false;
    for (uint64_t seed = 0; seed < 300; seed++) {
        size_t n;
        int64_t total, sum = 0;
        size_t exploded = 0;
        roll_ok(&d, seed, &n, &total);
        for (size_t i = 0; i < n; i++) {
            bool six = faces[i].value == 6;
            ck_assert_int_eq(six, (faces[i].flags & DICE_FACE_EXPLODED) != 0);
            exploded += six;
            sum += faces[i].value;
        }
        /* Each explosion adds exactly one face; the last face never explodes. */
        ck_assert_uint_eq(n, 10 + exploded);
        ck_assert_int_eq(faces[n - 1].flags & DICE_FACE_EXPLODED, 0);
        ck_assert_int_eq(sum, total);
        saw_explosion |= exploded > 0;
    }
    ck_assert(saw_explosion);
}
END_TEST

START_TEST(test_compound_and_penetrate)
{
    dice compound = parse_ok("10d6!!");
    dice penetrate = parse_ok("10d6!p");
    bool saw_compound = false, saw_penetrate = false;
    for (uint64_t seed = 0; seed < 300; seed++) {
        size_t n;
        int64_t total, sum = 0;
        roll_ok(&compound, seed, &n, &total);
        ck_assert_uint_eq(n, 10);
        for (size_t i = 0; i < n; i++) {
            /* A compounded face is 6k + (1..5) for k explosions. */
            bool grew = (faces[i].flags & DICE_FACE_EXPLODED) != 0;
            ck_assert_int_eq(grew, faces[i].value > 6);
            ck_assert_int_ne(faces[i].value % 6, 0);
            saw_compound |= grew;
            sum += faces[i].value;
        }
        ck_assert_int_eq(sum, total);

        roll_ok(&penetrate, seed, &n, &total);
        sum = 0;
        for (size_t i = 0; i < n; i++) {
            sum += faces[i].value;
            if (i > 0 && (faces[i - 1].flags & DICE_FACE_EXPLODED)) {
                /* Extra dice count one less: 0..5, and explode on a raw 6. */
                ck_assert_int_ge(faces[i].value, 0);
                ck_assert_int_le(faces[i].value, 5);
                ck_assert_int_eq(faces[i].value == 5, (faces[i].flags & DICE_FACE_EXPLODED) != 0);
                saw_penetrate = true;
            } else {
                ck_assert_int_eq(faces[i].value == 6, (faces[i].flags & DICE_FACE_EXPLODED) != 0);
            }
        }
        ck_assert_int_eq(sum, total);
    }
    ck_assert(saw_compound);
    ck_assert(saw_penetrate);
}
END_TEST

START_TEST(test_reroll)
{
    dice again = parse_ok("20d4r<=2");
    dice once = parse_ok("20d4ro<=2");
    for (uint64_t seed = 0; seed < 200; seed++) {
        size_t n, kept = 0;
        int64_t total, sum = 0;
        roll_ok(&again, seed, &n, &total);
        for (size_t i = 0; i < n; i++) {
            if (faces[i].flags & DICE_FACE_REROLLED) {
                ck_assert_int_le(faces[i].value, 2);
                continue;
            }
            /* 20 dice with half the faces rerolled stay far below the
             * budget, so no low face survives. */
            ck_assert_int_ge(faces[i].value, 3);
            kept++;
            sum += faces[i].value;
        }
        ck_assert_uint_eq(kept, 20);
        ck_assert_int_eq(sum, total);

        roll_ok(&once, seed, &n, &total);
        kept = 0;
        sum = 0;
        for (size_t i = 0; i < n; i++) {
            if (faces[i].flags & DICE_FACE_REROLLED) {
                ck_assert_int_le(faces[i].value, 2);
                /* Rerolled once: the next face is final whatever it shows. */
                ck_assert(i + 1 < n);
                ck_assert_int_eq(faces[i + 1].flags & DICE_FACE_REROLLED, 0);
                continue;
            }
            kept++;
            sum += faces[i].value;
        }
        ck_assert_uint_eq(kept, 20);
        ck_assert_int_eq(sum, total);
    }
}
END_TEST

START_TEST(test_success_and_failure_counting)
{
    dice d = parse_ok("10d10>=8f<=2");
    for (uint64_t seed = 0; seed < 300; seed++) {
        size_t n;
        int64_t total, net = 0;
        roll_ok(&d, seed, &n, &total);
        ck_assert_uint_eq(n, 10);
        for (size_t i = 0; i < n; i++) {
            int32_t v = faces[i].value;
            ck_assert_int_eq(v >= 8, (faces[i].flags & DICE_FACE_SUCCESS) != 0);
            ck_assert_int_eq(v <= 2, (faces[i].flags & DICE_FACE_FAILURE) != 0);
            net += (v >= 8) - (v <= 2);
        }
        ck_assert_int_eq(net, total);
    }
    /* Dropped faces neither succeed nor fail. */
    d = parse_ok("6d10kh2>=1");
    size_t n;
    int64_t total;
    roll_ok(&d, 3, &n, &total);
    ck_assert_int_eq(total, 2);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq((faces[i].flags & DICE_FACE_DROPPED) != 0, (faces[i].flags & DICE_FACE_SUCCESS) == 0);
}
END_TEST

START_TEST(test_every_comparison)
{
    /* Success flags must follow each operator exactly, boundaries included. */
    static const struct {
        const char *text;
        int lo, hi; /* successes are faces in lo..hi */
    } cases[] = {
        {"30d10>=8", 8, 10}, {"30d10>7", 8, 10}, {"30d10<=3", 1, 3}, {"30d10<3", 1, 2}, {"30d10=5", 5, 5},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dice d = parse_ok(cases[c].text);
        for (uint64_t seed = 0; seed < 50; seed++) {
            size_t n;
            int64_t total, want = 0;
            roll_ok(&d, seed, &n, &total);
            for (size_t i = 0; i < n; i++) {
                bool hit = faces[i].value >= cases[c].lo && faces[i].value <= cases[c].hi;
                ck_assert_int_eq(hit, (faces[i].flags & DICE_FACE_SUCCESS) != 0);
                want += hit;
            }
            ck_assert_int_eq(want, total);
        }
    }
    /* Explosion targets use the same operators. */
    dice d = parse_ok("30d10!>8");
    size_t n;
    int64_t total;
    roll_ok(&d, 5, &n, &total);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(faces[i].value > 8, (faces[i].flags & DICE_FACE_EXPLODED) != 0);
}
END_TEST

START_TEST(test_extra_dice_budget)
{
    /* About half of 10000 d2 show a 2: the budget caps extra dice at 100. */
    dice d = parse_ok("10000d2!");
    size_t n, exploded = 0;
    int64_t total;
    roll_ok(&d, 1, &n, &total);
    ck_assert_uint_eq(n, 10000 + DICE_MAX_EXPLOSIONS);
    ck_assert_uint_eq(n, dice_max_faces(&d));
    for (size_t i = 0; i < n; i++)
        exploded += (faces[i].flags & DICE_FACE_EXPLODED) != 0;
    ck_assert_uint_eq(exploded, DICE_MAX_EXPLOSIONS);

    /* Specs the parser refuses still stop when built by hand. */
    d = plain(1, 1);
    d.explode = DICE_EXPLODE, d.explode_cmp = DICE_CMP_EQ, d.explode_at = 1;
    roll_ok(&d, 1, &n, &total);
    ck_assert_uint_eq(n, 1 + DICE_MAX_EXPLOSIONS);
    ck_assert_int_eq(total, 1 + DICE_MAX_EXPLOSIONS);
    ck_assert_int_eq(faces[n - 1].flags, 0);

    d.explode = DICE_COMPOUND;
    roll_ok(&d, 1, &n, &total);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(total, 1 + DICE_MAX_EXPLOSIONS);

    d = plain(3, 6);
    d.reroll_cmp = DICE_CMP_GE, d.reroll_at = 1;
    roll_ok(&d, 1, &n, &total);
    ck_assert_uint_eq(n, 3 + DICE_MAX_EXPLOSIONS);
    size_t rerolled = 0;
    for (size_t i = 0; i < n; i++)
        rerolled += (faces[i].flags & DICE_FACE_REROLLED) != 0;
    ck_assert_uint_eq(rerolled, DICE_MAX_EXPLOSIONS);
}
END_TEST

START_TEST(test_small_cap_refused)
{
    dice d = parse_ok("3d6!");
    ck_assert_uint_eq(dice_max_faces(&d), 3 + DICE_MAX_EXPLOSIONS);
    rng r, before;
    rng_seed(&r, 9);
    before = r;
    size_t n = 42;
    int64_t total = 42;
    ck_assert_int_eq(dice_roll(&d, &r, faces, dice_max_faces(&d) - 1, &n, &total), -1);
    ck_assert_uint_eq(n, 42);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(r.s[i], before.s[i]);

    d = parse_ok("3d6");
    ck_assert_uint_eq(dice_max_faces(&d), 3);
    dice_face three[3];
    ck_assert_int_eq(dice_roll(&d, &r, three, 3, &n, &total), 0);
    ck_assert_uint_eq(n, 3);

    d = plain(0, 6); /* out of range */
    ck_assert_int_eq(dice_roll(&d, &r, faces, FACES_CAP, &n, &total), -1);
}
END_TEST

/* The short path for plain pools must roll exactly what dice_roll rolls:
 * the same faces from the same seed, the same dropped ones (ties at the cut
 * to the earliest), the same total. Small sides make ties common. */
START_TEST(test_plain_path_agrees_with_dice_roll)
{
    static const char *const pools[] = {"4d6kh3",   "4d6dl1", "5d4kl2", "6d3dh2",  "3d2kh1",  "8d4kh7", "10d3kl9",
                                        "20d6kh10", "d20",    "3d6",    "2d20kh1", "2d20kl1", "7d2dl6", "16d4kh8"};
    ck_assert(!dice_is_plain(&(dice){.count = 1, .sides = 6, .explode = DICE_EXPLODE}));
    for (size_t p = 0; p < sizeof pools / sizeof pools[0]; p++) {
        dice d = parse_ok(pools[p]);
        ck_assert_msg(dice_is_plain(&d), "%s is plain", pools[p]);
        rng a, b;
        rng_seed(&a, 1000 + p);
        rng_seed(&b, 1000 + p);
        for (int round = 0; round < 500; round++) {
            dice_face short_path[FACES_CAP];
            size_t n;
            int64_t total;
            int64_t plain_total = dice_roll_plain(&d, &a, short_path);
            ck_assert_int_eq(dice_roll(&d, &b, faces, FACES_CAP, &n, &total), 0);
            ck_assert_uint_eq(n, (size_t)d.count);
            ck_assert_int_eq(plain_total, total);
            for (size_t i = 0; i < n; i++) {
                ck_assert_int_eq(short_path[i].value, faces[i].value);
                ck_assert_msg(short_path[i].flags == faces[i].flags, "%s round %d face %zu: flags %d, not %d", pools[p],
                              round, i, short_path[i].flags, faces[i].flags);
            }
        }
    }
}
END_TEST

START_TEST(test_packed_path_agrees_with_plain_path)
{
    /* A planned pool rolls the same faces and total as dice_roll_plain and
       leaves the generator where it does; packed faces come back with
       the same dice dropped, the first face in the highest bits. Planned
       pools (all kept, however written, or one dropped, even the only
       one) and the others (5d4kl2) alike. */
    static const char *const pools[] = {"4d6kh3", "4d6dl1",  "4d6dh1",  "2d20kh1", "2d20kl1", "d20",
                                        "3d6",    "5d4kl2",  "6d3dh2",  "8d4kh7",  "16d2",    "3d1",
                                        "2d100",  "10d8kl9", "2d20kh2", "1d20dl1", "1d20kh1"};
    for (size_t p = 0; p < sizeof pools / sizeof pools[0]; p++) {
        dice d = parse_ok(pools[p]);
        dice_plan plan;
        bool planned = dice_plan_packed(&d, &plan);
        bool general_keep = strcmp(pools[p], "5d4kl2") == 0 || strcmp(pools[p], "6d3dh2") == 0;
        ck_assert_msg(planned == !general_keep, "%s: planned %d", pools[p], planned);
        rng a, c;
        rng_seed(&a, 2000 + p);
        rng_seed(&c, 2000 + p);
        for (int round = 0; round < 500; round++) {
            dice_face plain[FACES_CAP], unpacked[FACES_CAP];
            int64_t total = dice_roll_plain(&d, &a, plain);
            uint32_t packed = dice_pack(&d, plain);
            if (planned) {
                dice_packed again = dice_roll_planned(&plan, &c);
                ck_assert_int_eq(again.total, total);
                ck_assert_uint_eq(again.faces, packed);
            }
            dice_unpack(&d, packed, unpacked);
            for (int32_t i = 0; i < d.count; i++) {
                ck_assert_int_eq(unpacked[i].value, plain[i].value);
                ck_assert_msg(unpacked[i].flags == plain[i].flags, "%s round %d face %d: flags %d, not %d", pools[p],
                              round, i, unpacked[i].flags, plain[i].flags);
            }
        }
        if (planned)
            ck_assert_mem_eq(a.s, c.s, sizeof a.s);
    }
    /* the first face in the highest bits: 2d6 showing 2 then 5 */
    dice d = parse_ok("2d6");
    dice_face two_five[] = {{2, 0}, {5, 0}};
    ck_assert_uint_eq(dice_pack(&d, two_five), (1u << 3) | 4u);
}
END_TEST

/* ------------------------------------------------------------- breakdown */

START_TEST(test_breakdown_examples)
{
    char buf[256];
    dice d = parse_ok("4d6kh3");
    dice_face kh[] = {{6, 0}, {5, 0}, {2, DICE_FACE_DROPPED}, {4, 0}};
    dice_format_roll(&d, kh, 4, 15, buf, sizeof buf);
    ck_assert_str_eq(buf, "4d6kh3 (6, 5, [2], 4) = 15");

    d = parse_ok("5d10>=8");
    dice_face succ[] = {{9, DICE_FACE_SUCCESS}, {3, 0}, {8, DICE_FACE_SUCCESS}, {1, 0}, {10, DICE_FACE_SUCCESS}};
    dice_format_roll(&d, succ, 5, 3, buf, sizeof buf);
    ck_assert_str_eq(buf, "5d10>=8 (9*, 3, 8*, 1, 10*) = 3");
}
END_TEST

START_TEST(test_breakdown_fixed_seeds)
{
    static const struct {
        const char *text;
        uint64_t seed;
        const char *expected;
    } cases[] = {
        {"d20", 1, "d20 (15) = 15"},
        {"3d6", 1, "3d6 (5, 4, 4) = 13"},
        {"4dF", 1, "4dF (1, 0, 0, 0) = 1"},
        {"4d6kh3", 1, "4d6kh3 (5, 4, 4, [3]) = 13"},
        {"4d6dh1", 1, "4d6dh1 ([5], 4, 4, 3) = 11"},
        {"4d6kl1", 1, "4d6kl1 ([5], [4], [4], 3) = 3"},
        {"d6!>=5", 1, "d6!>=5 (5!, 4) = 9"},
        {"d6!!", 10, "d6!! (9!) = 9"},
        {"d6!p", 10, "d6!p (6!, 2) = 8"},
        {"d20r1", 9, "d20r1 ([1], 6) = 6"},
        {"d6ro<=6", 1, "d6ro<=6 ([5], 4) = 4"},
        {"4d6!kh3", 4, "4d6!kh3 ([2], 6!, [3], 6!, [2], 4) = 16"},
        {"10d10>=8f1", 1, "10d10>=8f1 (8*, 6, 6, 4, 7, 2, 1f, 4, 9*, 6) = 1"},
        {"10d10>=8!", 1, "10d10!10>=8 (8*, 6, 6, 4, 7, 2, 1, 4, 9*, 6) = 2"},
        {"d4r<=3", 1, "d4r<=3 ([3], [3], [3], [2], [3], [1], [1], [2], 4) = 4"},
    };
    char buf[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dice d = parse_ok(cases[i].text);
        size_t n;
        int64_t total;
        roll_ok(&d, cases[i].seed, &n, &total);
        size_t len = dice_format_roll(&d, faces, n, total, buf, sizeof buf);
        ck_assert_str_eq(buf, cases[i].expected);
        ck_assert_uint_eq(len, strlen(cases[i].expected));
    }
}
END_TEST

/* --- forced faces ---------------------------------------------------------- */

/* Rolls d with r (seeded) and forced faces queued; its breakdown. */
static int64_t roll_forced(const char *notation, rng *r, char *shown, size_t cap)
{
    dice d = parse_ok(notation);
    dice_face rolled[256];
    size_t n;
    int64_t total;
    ck_assert_int_eq(dice_roll(&d, r, rolled, 256, &n, &total), 0);
    dice_format_roll(&d, rolled, n, total, shown, cap);
    return total;
}

START_TEST(test_forced_faces_in_order_by_kind)
{
    rng r;
    rng_seed(&r, 7);
    dice_forced f = {0};
    r.forced = &f;
    dice d20 = parse_ok("d20"), d6 = parse_ok("d6"), df = parse_ok("dF"), d3 = parse_ok("d3");
    ck_assert(dice_forced_kind(&d20) && dice_forced_kind(&df));
    ck_assert(!dice_forced_kind((dice[]){parse_ok("2d6")}) && !dice_forced_kind((dice[]){parse_ok("d6!")}));
    ck_assert(dice_forced_fits(&d20, 20) && !dice_forced_fits(&d20, 21) && !dice_forced_fits(&d20, 0));
    ck_assert(dice_forced_fits(&df, -1) && !dice_forced_fits(&df, 2));
    ck_assert(dice_forced_add(&f, &d20, 20) && dice_forced_add(&f, &d6, 2) && dice_forced_add(&f, &d20, 1));
    ck_assert(dice_forced_add(&f, &df, -1));
    char shown[256];
    /* a d6 roll takes the d6's face, not the first queued */
    ck_assert_int_eq(roll_forced("d6", &r, shown, sizeof shown), 2);
    ck_assert_str_eq(shown, "d6 (2 forced) = 2");
    /* a d3 is not a dF, though both draw among three */
    roll_forced("d3", &r, shown, sizeof shown);
    ck_assert_ptr_null(strstr(shown, "forced"));
    (void)d3;
    /* the d20s in order, then rolled again; a pool takes what is queued */
    ck_assert_int_eq(roll_forced("d20", &r, shown, sizeof shown), 20);
    ck_assert_str_eq(shown, "d20 (20 forced) = 20");
    ck_assert_int_eq(roll_forced("2dF", &r, shown, sizeof shown) >= -2, 1);
    ck_assert_msg(strncmp(shown, "2dF (-1 forced, ", 16) == 0, "got %s", shown);
    ck_assert_int_eq(roll_forced("2d20kh1", &r, shown, sizeof shown) >= 1, 1);
    ck_assert_msg(strstr(shown, "1 forced") != NULL, "got %s", shown);
    ck_assert_uint_eq(f.n, 0);
    roll_forced("d20", &r, shown, sizeof shown);
    ck_assert_ptr_null(strstr(shown, "forced"));
    dice_forced_clear(&f);
}
END_TEST

START_TEST(test_forced_faces_explode_and_never_under_an_oracle)
{
    rng r;
    rng_seed(&r, 1);
    dice_forced f = {0};
    r.forced = &f;
    dice d6 = parse_ok("d6");
    for (int i = 0; i < 3; i++)
        ck_assert(dice_forced_add(&f, &d6, i < 2 ? 6 : 3));
    char shown[256];
    /* each die an explosion adds takes the next face */
    ck_assert_int_eq(roll_forced("d6!", &r, shown, sizeof shown), 15);
    ck_assert_str_eq(shown, "d6! (6! forced, 6! forced, 3 forced) = 15");
    /* a compounded face is forced when any of its rolls was */
    ck_assert(dice_forced_add(&f, &d6, 6) && dice_forced_add(&f, &d6, 2));
    ck_assert_int_eq(roll_forced("d6!!", &r, shown, sizeof shown), 8);
    ck_assert_str_eq(shown, "d6!! (8! forced) = 8");
    /* an oracle's draws (an exact walk) leave the queue alone */
    ck_assert(dice_forced_add(&f, &d6, 5));
    rng_oracle o = {0};
    r.oracle = &o;
    ck_assert_int_eq(roll_forced("d6", &r, shown, sizeof shown), 1);
    ck_assert_uint_eq(f.n, 1);
    r.oracle = NULL;
    /* a copy takes the queue as it is, apart */
    dice_forced g;
    ck_assert(dice_forced_copy(&g, &f));
    ck_assert_uint_eq(g.n, 1);
    int32_t face;
    ck_assert(dice_forced_take(&g, 6, false, &face) && face == 5);
    ck_assert_uint_eq(f.n, 1);
    ck_assert(!dice_forced_take(&g, 6, false, &face));
    dice_forced_clear(&g);
    dice_forced_clear(&f);
    ck_assert_ptr_null(f.queue);
}
END_TEST

static Suite *dice_suite(void)
{
    Suite *s = suite_create("dice");
    TCase *parse = tcase_create("parse");
    tcase_add_test(parse, test_parse_notations);
    tcase_add_test(parse, test_parse_uses_len_not_nul);
    tcase_add_test(parse, test_parse_errors);
    suite_add_tcase(s, parse);

    TCase *format = tcase_create("format");
    tcase_add_test(format, test_format_canonical);
    tcase_add_test(format, test_format_round_trip);
    tcase_add_test(format, test_format_truncates_like_snprintf);
    suite_add_tcase(s, format);

    TCase *roll = tcase_create("roll");
    tcase_set_timeout(roll, 60);
    tcase_add_test(roll, test_rolls_within_bounds);
    tcase_add_test(roll, test_bounds_values);
    tcase_add_test(roll, test_same_seed_same_roll);
    tcase_add_test(roll, test_keep_and_drop_mark_right_faces);
    tcase_add_test(roll, test_explode_chains);
    tcase_add_test(roll, test_compound_and_penetrate);
    tcase_add_test(roll, test_reroll);
    tcase_add_test(roll, test_success_and_failure_counting);
    tcase_add_test(roll, test_every_comparison);
    tcase_add_test(roll, test_extra_dice_budget);
    tcase_add_test(roll, test_small_cap_refused);
    suite_add_tcase(s, roll);

    TCase *breakdown = tcase_create("breakdown");
    tcase_add_test(breakdown, test_breakdown_examples);
    tcase_add_test(breakdown, test_plain_path_agrees_with_dice_roll);
    tcase_add_test(breakdown, test_packed_path_agrees_with_plain_path);
    tcase_add_test(breakdown, test_breakdown_fixed_seeds);
    suite_add_tcase(s, breakdown);

    TCase *forced = tcase_create("forced");
    tcase_add_test(forced, test_forced_faces_in_order_by_kind);
    tcase_add_test(forced, test_forced_faces_explode_and_never_under_an_oracle);
    suite_add_tcase(s, forced);
    return s;
}

int main(void)
{
    return check_main(dice_suite());
}
