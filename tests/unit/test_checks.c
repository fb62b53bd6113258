/* Unit tests for what changes a check's roll: conditions that change its
 * dice (`roll CHECK keep highest as advantage`), combined by their bonus
 * types (not stacking, stacking, cancelling one for one) and applied in a
 * fixed order whatever the order of the conditions; dice worth of
 * modifiers; and the decisions taken after a roll and before it is judged
 * (`ruling ... { after CHECK; then reroll|add N }`), answered from a
 * script's queue or by their default, and computed exactly. The dice are
 * forced so each outcome is known. */
#include "tests/unit/check_main.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lang/compile.h"
#include "runtime/combat/world.h"
#include "tests/unit/script_util.h"

static run *ok(const char *text)
{
    run *r = run_script(text, 1, NULL);
    ck_assert_msg(r->ok, "runtime error: %s\noutput:\n%s", r->v->error.s, r->out);
    return r;
}

#define BASE                                                                           \
    "stat ac = 12\n"                                                                   \
    "stat luck = 2\n"                                                                  \
    "check attack(attacker, target) = d20 + 3 { success \"hit\"; failure \"miss\" }\n" \
    "creature a { }\n"                                                                 \
    "creature b { }\n"

#define EDGES                                                      \
    "bonus advantage cancels disadvantage\n"                       \
    "bonus disadvantage\n"                                         \
    "bonus boon stacks cancels bane\n"                             \
    "bonus bane stacks\n"                                          \
    "condition adv1 { roll attack keep highest as advantage }\n"   \
    "condition adv2 { roll attack keep highest as advantage }\n"   \
    "condition dis1 { roll attack keep lowest as disadvantage }\n" \
    "condition boon1 { roll attack keep highest as boon }\n"       \
    "condition boon2 { roll attack keep highest as boon }\n"       \
    "condition boon3 { roll attack keep highest as boon }\n"       \
    "condition bane1 { roll attack keep lowest as bane }\n"

START_TEST(test_advantage_does_not_stack_and_cancels_whatever_the_number)
{
    run *r = ok(BASE EDGES "apply adv1 to a\napply adv2 to a\nprint attack(a, b)\n"
                           "apply dis1 to a\nprint attack(a, b)\n");
    lines_in_order(r, "attack (advantage from adv1) 2d20kh1 (",
                   "attack (advantage from adv1 and disadvantage from dis1 cancel) d20 (", NULL);
    ck_assert_msg(!strstr(r->out, "3d20"), "two sources of advantage do not stack:\n%s", r->out);
    run_free(r);
}
END_TEST

START_TEST(test_boons_stack_and_cancel_banes_one_for_one)
{
    run *r = ok(BASE EDGES "apply boon1 to a\napply bane1 to a\napply boon2 to a\napply boon3 to a\n"
                           "print attack(a, b)\n");
    /* three boons, one bane: two dice more, the highest kept */
    lines_in_order(r, "boon from boon1 and bane from bane1 cancel", "3d20kh1 (", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_changes_apply_in_one_order_whatever_the_conditions_order)
{
    const char *system = BASE "condition lucky { roll attack reroll 1 once }\n"
                              "condition keen { roll attack keep highest }\n"
                              "condition big { roll attack with d12 }\n";
    char text[2048];
    snprintf(text, sizeof text, "%sapply lucky to a\napply keen to a\napply big to a\nprint attack(a, b)\n", system);
    run *r = ok(text);
    lines_in_order(r, "2d12ro1kh1 (", NULL);
    run_free(r);
    snprintf(text, sizeof text, "%sapply big to a\napply keen to a\napply lucky to a\nprint attack(a, b)\n", system);
    r = ok(text);
    lines_in_order(r, "2d12ro1kh1 (", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_incoming_changes_the_attackers_dice)
{
    run *r = ok(BASE "condition prone { roll incoming attack keep highest }\n"
                     "apply prone to b\nprint attack(a, b)\nprint attack(b, a)\n");
    lines_in_order(r, "a -> b: attack (keep highest from prone) 2d20kh1 (", "b -> a: attack d20 (", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_both_ways_without_cancels_is_an_error)
{
    run *r = run_script(BASE "condition up { roll attack keep highest }\ncondition down { roll attack keep lowest }\n"
                             "apply up to a\napply down to a\nprint attack(a, b)\n",
                        1, NULL);
    ck_assert(!r->ok);
    ck_assert_ptr_nonnull(strstr(r->v->error.s, "cannot keep both the highest and the lowest"));
    run_free(r);
}
END_TEST

START_TEST(test_one_die_more_past_the_limit_is_refused)
{
    run *r = run_script("check c(a) = 10000d6\ncondition k { roll c keep highest }\ncreature x { }\napply k to x\n"
                        "print c(x)\n",
                        1, NULL);
    ck_assert(!r->ok);
    ck_assert_ptr_nonnull(strstr(r->v->error.s, "would roll 10001 dice"));
    ck_assert_ptr_nonnull(strstr(r->v->error.s, "--limit dice=N"));
    run_free(r);
}
END_TEST

START_TEST(test_dice_modifier_is_rolled_and_exact)
{
    run *r = ok(BASE "condition blessed { modify attack by d4 }\napply blessed to a\n"
                     "force d20 10\nforce d4 2\nif attack(a, b) >= b.ac { print \"hit\" }\n"
                     "print mean(attack(a, b))\n");
    lines_in_order(r, "attack (+d4 from blessed) d20 (10 forced) + d4 (2 forced) + 3 = 15 vs ac 12: hit", "hit", "16",
                   NULL);
    run_free(r);
}
END_TEST

#define LUCKY                                                         \
    "ruling lucky \"Spend a luck point to reroll?\" {\n"              \
    "  after attack when attacker.luck > 0 and result.natural < 10\n" \
    "  default result < target.ac\n"                                  \
    "  then reroll { attacker.luck -= 1 }\n"                          \
    "}\n"

START_TEST(test_reroll_after_the_roll_is_judged_as_it_stands)
{
    run *r = ok(BASE LUCKY "force d20 2, 15\nif attack(a, b) >= b.ac { print \"hit\" }\nprint a.luck\n");
    lines_in_order(r, "a -> b: attack d20 (2 forced) + 3 = 5; lucky: reroll d20 (15 forced) + 3 = 18 vs ac 12: hit",
                   "hit\n", "1\n", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_answers_queue_and_when_limits_the_asking)
{
    /* no: the 2 stands; the 11 is not asked about (natural 10 or more) */
    run *r = ok(BASE LUCKY "answer lucky no\nforce d20 2, 11\nprint attack(a, b)\nprint attack(a, b)\nprint a.luck\n");
    lines_in_order(r, "attack d20 (2 forced) + 3 = 5\n", "attack d20 (11 forced) + 3 = 14\n", "2\n", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_add_keeps_the_faces)
{
    run *r = ok(BASE "ruling inspired \"Add the inspiration die?\" {\n after attack\n default result < target.ac\n"
                     " then add 4\n}\nforce d20 6\nif attack(a, b) >= b.ac { print \"hit\" }\n");
    lines_in_order(r, "a -> b: attack d20 (6 forced) + 3 = 9; inspired +4 = 13 vs ac 12: hit", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_exact_takes_the_default_for_each_outcome_and_spends_nothing)
{
    /* needs 9 on the die: 12 in 20; below, a reroll: 8/20 * 12/20 */
    run *r = ok(BASE LUCKY "print prob(attack(a, b) >= 12)\nprint a.luck\n");
    lines_in_order(r, "0.84\n", "2\n", NULL);
    run_free(r);
}
END_TEST

START_TEST(test_a_players_answer_is_said_to_be_the_players)
{
    run *r = ok(BASE "ruling lucky \"Reroll?\" {\n after attack\n asked of player\n default no\n then reroll\n}\n"
                     "ruling gm_call \"Is it dark?\" { asked per use; default no }\n"
                     "answer lucky yes\nanswer gm_call yes\nforce d20 2, 15\nprint attack(a, b)\nexplain\n"
                     "print gm_call\nexplain\n");
    lines_in_order(r, "ruling lucky: yes, a's player's answer", "ruling gm_call: yes, the GM's answer", NULL);
    run_free(r);
}
END_TEST

static Suite *checks_suite(void)
{
    Suite *s = suite_create("checks");
    TCase *d = tcase_create("dice changes");
    tcase_add_test(d, test_advantage_does_not_stack_and_cancels_whatever_the_number);
    tcase_add_test(d, test_boons_stack_and_cancel_banes_one_for_one);
    tcase_add_test(d, test_changes_apply_in_one_order_whatever_the_conditions_order);
    tcase_add_test(d, test_incoming_changes_the_attackers_dice);
    tcase_add_test(d, test_both_ways_without_cancels_is_an_error);
    tcase_add_test(d, test_dice_modifier_is_rolled_and_exact);
    tcase_add_test(d, test_one_die_more_past_the_limit_is_refused);
    suite_add_tcase(s, d);
    TCase *a = tcase_create("after the roll");
    tcase_add_test(a, test_reroll_after_the_roll_is_judged_as_it_stands);
    tcase_add_test(a, test_answers_queue_and_when_limits_the_asking);
    tcase_add_test(a, test_add_keeps_the_faces);
    tcase_add_test(a, test_exact_takes_the_default_for_each_outcome_and_spends_nothing);
    tcase_add_test(a, test_a_players_answer_is_said_to_be_the_players);
    suite_add_tcase(s, a);
    return s;
}

int main(void)
{
    return check_main(checks_suite());
}
