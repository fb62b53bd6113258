/* test_cover: the geometry of cover on the grid: the attacker's best
 * corner and its four lines, what blocks a line (walls, creatures the rules
 * say block) and what grants cover on it (marked squares, creatures),
 * footprints of several squares, creatures off the map, and the notes
 * explain shows. */
#include "tests/unit/check_main.h"

#include <stdarg.h>
#include <string.h>

#include "lang/compile.h"
#include "runtime/combat/world.h"
#include "tests/unit/script_util.h"

static run *ok(const char *text)
{
    run *r = run_script(text, 1, NULL);
    ck_assert_msg(r->compile_errors == 0, "compile error: %s", r->first_error);
    ck_assert_msg(r->ok, "runtime error: %s\noutput:\n%s", r->v->error.s, r->out);
    return r;
}

/* five levels, one for each count of lines blocked */
#define LINES(more)                                              \
    "stat big = false\nstat size = 1\n"                          \
    "space grid {\n occupies self.size\n"                        \
    " cover levels zero, one, two, three, four\n"                \
    " cover from lines zero, one, two, three, four\n" more "}\n" \
    "creature a side x { }\ncreature b side y { }\ncreature c side x { }\n"

START_TEST(test_the_best_corner_is_taken)
{
    /* a wall above the line: the top corners' lines along its edge are
       blocked, the bottom-right corner's are all clear */
    run *r = ok(LINES("") "place a at A2\nplace b at E2\nwall C1\nprint cover(a, b), cover_rank(a, b)\n"
                          /* walls above and below: every corner has two lines blocked */
                          "wall C3\nprint cover(a, b), cover_rank(a, b), sees(a, b)\n"
                          /* and between: no line of sight */
                          "wall C2\nprint cover(a, b), cover_rank(a, b), sees(a, b)\n");
    lines_in_order(r, "zero 0\n", "two 2 true\n", "unseen 5 false\n", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_a_footprint_of_four_squares)
{
    /* b fills D1 to E2: its corners are the block's; from a's bottom
       corners two lines pass the wall at C1, from the top ones more */
    run *r = ok(LINES("") "b.size = 2\nplace a at A1\nplace b at D1\nwall C1\nprint cover(a, b)\n");
    lines_in_order(r, "two\n", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_marked_squares_grant_without_blocking)
{
    run *r = ok(LINES("") "place a at A1\nplace b at E1\nterrain cover one C1\n"
                          "print cover(a, b), sees(a, b)\n"
                          /* a mark under the target is not between them */
                          "terrain cover three E1\nprint cover(a, b)\n"
                          /* a higher mark on the line wins; none takes the mark away */
                          "terrain cover two B1\nprint cover(a, b)\nshow map\n"
                          "terrain cover zero B1 to C1\nprint cover(a, b)\nshow map\n");
    lines_in_order(r, "one true\n", "one\n", "two\n", "  1 a  +  +  .  b", "(# blocked, ~ difficult, + cover)",
                   "zero\n", "  1 a  .  .  .  b", "(# blocked, ~ difficult)\n", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_creatures_grant_by_the_rules)
{
    /* self is the one in between, attacker, target and how are bound; the
       first clause that holds decides */
    run *r = ok(LINES(
        " cover creatures one when how == \"ranged\"\n"
        " cover creatures three when self.side != attacker.side\n") "creature d side y { }\nplace a at A1\nplace b at "
                                                                    "E1\nplace c at C1\n"
                                                                    "print cover(a, b), cover(a, b, \"ranged\")\nprint "
                                                                    "cover(b, a), cover(b, a, \"ranged\")\n"
                                                                    "place c at A3\nplace d at C1\nprint cover(b, a), "
                                                                    "cover(b, a, \"ranged\")\n");
    /* c is a's ally: only the ranged attack is covered; seen from b, c is
       an enemy: three; d, b's ally, covers a from b's ranged attacks only */
    lines_in_order(r, "zero one\n", "three one\n", "zero one\n", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_creatures_that_block_sight)
{
    run *r = ok(
        LINES(" cover creatures block when self.big\n") "place a at A1\nplace b at E1\nplace c at C1\nprint sees(a, "
                                                        "b), cover(a, b)\n"
                                                        "c.big = true\nprint sees(a, b), cover(a, b)\n"
                                                        /* moved aside, it blocks two of the lines of a's best corner */
                                                        "move c to C2\nprint sees(a, b), cover(a, b)\n");
    lines_in_order(r, "true zero\n", "false unseen\n", "true", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_off_the_map_is_no_cover)
{
    run *r = ok(LINES("") "place a at A1\nprint cover(a, b), cover(b, a), sees(a, b)\n");
    lines_in_order(r, "zero zero true\n", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_explain_says_what_blocked)
{
    run *r = ok(LINES("") "action look(t) { print cover(self, t) }\n"
                          "place a at A2\nplace b at E2\nplace c at A5\nwall C1\nwall C3\na: look b\nexplain\n"
                          "c: look b\nexplain\n");
    lines_in_order(r, "two\n", "cover of b from a: two: from a's top-left corner, 2 of 4 lines blocked (wall C1)",
                   "cover of b from c: ", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_corners_keep_their_meaning)
{
    /* `cover from corners` alone: none, half, full and unseen, and no
       notes for explain */
    run *r = ok("space grid { cover from corners }\ncreature a { }\ncreature b { }\ncreature c { }\n"
                "action look(t) { print cover(self, t) }\n"
                "place a at A3\nplace b at D2\nplace c at F3\nwall C3\nwall E1 to E5\n"
                "print cover(a, b), sees(a, c), cover(a, c), cover_rank(a, b), cover_rank(a, c)\n"
                "a: look b\nexplain\n");
    lines_in_order(r, "half false unseen 1 3\n", NULL);
    ck_assert(!strstr(r->out, "cover of"));
    run_free(r);
}
END_TEST

START_TEST(test_undeclared_cover_is_an_error)
{
    run *r = run_script("creature a { }\ncreature b { }\nprint cover(a, b)\n", 1, NULL);
    ck_assert(!r->ok);
    ck_assert_str_eq(r->v->error.s,
                     "these rules do not say how cover is found; declare it: space grid { cover from corners }");
    run_free(r);
    r = run_script("creature a { }\nterrain cover half A1\n", 1, NULL);
    ck_assert(!r->ok);
    ck_assert(strstr(r->v->error.s, "these rules do not say how cover is found"));
    run_free(r);
    r = run_script(LINES("") "print cover_rank(\"quarter\")\n", 1, NULL);
    ck_assert(!r->ok);
    ck_assert_str_eq(r->v->error.s, "no level of cover 'quarter' (the levels are zero, one, two, three, four, unseen)");
    run_free(r);
}
END_TEST

static Suite *cover_suite(void)
{
    Suite *s = suite_create("cover");
    TCase *tc = tcase_create("geometry");
    tcase_add_test(tc, test_the_best_corner_is_taken);
    tcase_add_test(tc, test_a_footprint_of_four_squares);
    tcase_add_test(tc, test_marked_squares_grant_without_blocking);
    tcase_add_test(tc, test_creatures_grant_by_the_rules);
    tcase_add_test(tc, test_creatures_that_block_sight);
    tcase_add_test(tc, test_off_the_map_is_no_cover);
    tcase_add_test(tc, test_explain_says_what_blocked);
    tcase_add_test(tc, test_corners_keep_their_meaning);
    tcase_add_test(tc, test_undeclared_cover_is_an_error);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(cover_suite());
}
