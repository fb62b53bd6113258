/* Unit tests for the combat runtime: each mechanism played out on a small
 * rule system, with its boundary cases: initiative and ties, surprise,
 * turns and phases, delay and reordering, the economy (exchanges, combined
 * costs, borrowing across turns, caps, exclusivity), durations expiring on
 * the exact turn, conditions and modifiers, triggers and reactions,
 * rulings, the grid and zones. */
#include "tests/unit/check_main.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lang/compile.h"
#include "runtime/combat/tracks.h"
#include "runtime/combat/world.h"
#include "tests/unit/script_util.h"

static run *play(uint64_t seed, const char *text)
{
    return run_script(text, seed, NULL);
}

static void done(run *r)
{
    run_free(r);
}

static void absent(run *r, const char *text)
{
    ck_assert_msg(!strstr(r->out, text), "unexpected \"%s\" in:\n%s", text, r->out);
}

static run *ok(uint64_t seed, const char *text)
{
    run *r = play(seed, text);
    ck_assert_msg(r->ok, "runtime error: %s\noutput:\n%s", r->v->error.s, r->out);
    return r;
}

static int index_in_order(run *r, const char *name)
{
    int c = world_find_creature(r->v, name);
    for (int i = 0; i < r->v->world->cb.norder; i++)
        if (r->v->world->cb.order[i].creature == c)
            return i;
    return -1;
}

/* A static order by `speed`, so turns are known without dice. */
#define BASE                                \
    "stat speed = 0\n"                      \
    "encounter { out when self.hp <= 0 }\n" \
    "resource hp max 10\n"                  \
    "initiative { mode static\n score speed\n order highest first\n allow delay }\n"

/* --- initiative ---------------------------------------------------------------- */

START_TEST(test_static_order_ties_keep_creation_order)
{
    run *r = ok(1, BASE "creature a { speed 1 }\ncreature b { speed 3 }\ncreature c { speed 3 }\n"
                        "begin encounter\nroll initiative\n");
    lines_in_order(r, "order: b (3), c (3), a (1)", "round 1: b's turn", NULL);
    done(r);
}
END_TEST

START_TEST(test_lowest_first)
{
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n order lowest first }\n"
                   "creature a { speed 5 }\ncreature b { speed 30 }\ncreature c { speed 1 }\n"
                   "begin encounter\nroll initiative\n");
    lines_in_order(r, "order: c (1), a (5), b (30)", NULL);
    done(r);
}
END_TEST

#define ROLLED                       \
    "stat dex = 0\nstat bonus = 0\n" \
    "check init(self) = d20 + self.dex + self.bonus\n"

START_TEST(test_ties_by_modifier_then_stat)
{
    /* equal totals: the larger modifier first, then the larger dex */
    run *r =
        ok(1, ROLLED "initiative { roll init\n order highest first\n ties modifier, dex, reroll }\n"
                     "creature a { dex 1; bonus 1 }\ncreature b { dex 2; bonus 1 }\ncreature c { dex 0; bonus 0 }\n"
                     "begin encounter\nroll initiative a 10, b 9, c 12\n");
    /* a: 10+2 = 12 (modifier 2); b: 9+3 = 12 (modifier 3); c: 12 (modifier 0) */
    lines_in_order(r, "a: init d20 (10) + dex 1 + bonus 1 = 12", "b: init d20 (9) + dex 2 + bonus 1 = 12",
                   "c: init d20 (12) = 12", "order: b (12), a (12), c (12)", NULL);
    done(r);
    /* same modifier: dex decides */
    r = ok(1, ROLLED "initiative { roll init\n order highest first\n ties modifier, dex, reroll }\n"
                     "creature a { dex 1; bonus 2 }\ncreature b { dex 3; bonus 0 }\n"
                     "begin encounter\nroll initiative a 10, b 10\n");
    lines_in_order(r, "order: b (13), a (13)", NULL);
    done(r);
}
END_TEST

START_TEST(test_ties_rerolled_until_settled)
{
    /* identical creatures: only the reroll can order them, and it does */
    run *r = ok(3, ROLLED "initiative { roll init\n order highest first\n ties modifier, reroll }\n"
                          "creature a { }\ncreature b { }\ncreature c { }\n"
                          "begin encounter\nroll initiative a 7, b 7, c 7\n");
    ck_assert_int_eq(r->v->world->cb.norder, 3);
    /* each rolled again; the higher reroll goes first */
    lines_in_order(r, "a: init d20 (7)", "c: init d20 (7)", "a: init d20 (11)", "b: init d20 (9)", "c: init d20 (8)",
                   "order: a (7), b (7), c (7)", NULL);
    run *again = ok(3, ROLLED "initiative { roll init\n order highest first\n ties modifier, reroll }\n"
                              "creature a { }\ncreature b { }\ncreature c { }\n"
                              "begin encounter\nroll initiative a 7, b 7, c 7\n");
    ck_assert_str_eq(r->out, again->out); /* the same seed, the same settling */
    done(r);
    done(again);
}
END_TEST

START_TEST(test_decimal_tiebreak)
{
    /* fortitude: "1d20+8 with a roll of 12 would be 20.08": a decimal tiebreak is part of the score */
    run *r = ok(1, "stat initiative_bonus = 0\ncheck init(self) = d20 + self.initiative_bonus\n"
                   "initiative { roll init\n score init + self.initiative_bonus / 100\n order highest first }\n"
                   "creature a { initiative_bonus 8 }\ncreature b { initiative_bonus 7 }\n"
                   "begin encounter\nroll initiative a 12, b 13\n");
    lines_in_order(r, "order: a (20.08), b (20.07)", NULL);
    done(r);
}
END_TEST

START_TEST(test_given_roll_out_of_range)
{
    run *r = play(1, ROLLED "initiative { roll init\n order highest first }\ncreature a { }\n"
                            "begin encounter\nroll initiative a 21\n");
    ck_assert(!r->ok);
    ck_assert_ptr_nonnull(strstr(r->v->error.s, "a d20 shows 1 to 20, not 21"));
    done(r);
}
END_TEST

/* The players' rolls for a table of 40 are entered in one command (it
   stopped at 64 arguments, 32 rolls) */
START_TEST(test_forty_rolls_entered_at_once)
{
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "check init(self) = d20\ninitiative { roll init\n order highest first }\n"
                                  "creature g x40 { }\nbegin encounter\nroll initiative");
    for (int i = 1; i <= 40; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s g_%d %d", i > 1 ? "," : "", i, i == 40 ? 20 : 1);
    snprintf(text + len, sizeof text - len, "\n");
    run *r = ok(1, text);
    lines_in_order(r, "g_40: init d20 (20) = 20", "order: g_40 (20)", "round 1: g_40's turn", NULL);
    done(r);
}
END_TEST

/* A held action keeps all of its arguments, as many as an action takes */
START_TEST(test_held_action_with_ten_arguments)
{
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n allow hold }\n"
                   "action small(x1, x2, x3, x4, x5, x6, x7, x8, x9, x10) { print x9, x10 }\n"
                   "creature a { speed 1 }\ncreature b { }\nbegin encounter\nroll initiative\n"
                   "hold a small 1 2 3 4 5 6 7 8 9 10 on boom(_)\nemit boom(1)\n");
    lines_in_order(r, "a takes the held action", "9 10", NULL);
    done(r);
}
END_TEST

START_TEST(test_sides_roll_once_and_party_wins_ties)
{
    /* shock: each side rolls d8, the party adds its best dex, the party wins ties */
    run *r = ok(1, "stat dex = 0\ncheck side_roll(self) = d8\n"
                   "initiative { mode sides\n roll side_roll\n"
                   " score side_roll + (self.side == party ? max(members(party).dex) : 0)\n"
                   " order highest first\n ties side party }\n"
                   "creature orc x2 side horde { dex 3 }\ncreature ana side party { dex 2 }\n"
                   "creature bo side party { dex 1 }\n"
                   "begin encounter\nroll initiative orc_1 6, ana 4\n");
    lines_in_order(r, "order: party (6), horde (6)", "round 1: party's turn (ana, bo)", NULL);
    ck_assert_int_eq(r->v->world->cb.norder, 2);
    done(r);
}
END_TEST

START_TEST(test_group_rolls_once_and_stays_together)
{
    run *r = ok(5, ROLLED "initiative { roll init\n order highest first\n group enemies }\n"
                          "creature hero side party { dex 3 }\ncreature zombie x3 side enemies { dex 0 }\n"
                          "creature shaman side enemies { dex 9 }\n"
                          "begin encounter\nroll initiative\n");
    int z1 = index_in_order(r, "zombie_1"), z2 = index_in_order(r, "zombie_2"), z3 = index_in_order(r, "zombie_3"),
        sh = index_in_order(r, "shaman");
    ck_assert_int_eq(z2, z1 + 1);
    ck_assert_int_eq(z3, z2 + 1);
    ck_assert_int_eq(sh, z3 + 1); /* the whole side shares the first member's roll */
    absent(r, "zombie_2: init");
    done(r);
}
END_TEST

/* `group SIDE by EXPR`: one roll per group of the side; a group is one in a
   tie; members outside the side, and a side without `by`, as before. */
START_TEST(test_group_by_splits_the_side)
{
    run *r = ok(5, ROLLED "stat band = 0\n"
                          "initiative { roll init\n order highest first\n group enemies by self.band\n ties reroll }\n"
                          "creature hero side party { dex 3 }\ncreature zombie x3 side enemies { dex 0 }\n"
                          "creature shaman side enemies { dex 9; band 1 }\ncreature ghoul side enemies { band 1 }\n"
                          "begin encounter\nroll initiative hero 10, zombie_1 15, shaman 3\n");
    lines_in_order(r, "hero: init d20 (10) + dex 3 = 13", "zombie_1: init d20 (15) = 15",
                   "shaman: init d20 (3) + dex 9 = 12",
                   "order: zombie_1 (15), zombie_2 (15), zombie_3 (15), hero (13), shaman (12), ghoul (12)", NULL);
    absent(r, "zombie_2: init");
    absent(r, "ghoul: init"); /* the ghoul takes the shaman's roll, not the zombies' */
    done(r);
    /* two groups tied: each rolls once as one unit, named by its first member */
    r = ok(5, ROLLED "stat band = 0\n"
                     "initiative { roll init\n group enemies by self.band\n ties reroll }\n"
                     "creature zombie x2 side enemies { }\ncreature shaman side enemies { band 1 }\n"
                     "creature ghoul side enemies { band 1 }\n"
                     "begin encounter\nroll initiative zombie_1 4, shaman 4\n");
    lines_in_order(r, "zombie_1's group and shaman's group are tied: they roll again", NULL);
    int z1 = index_in_order(r, "zombie_1"), z2 = index_in_order(r, "zombie_2"), sh = index_in_order(r, "shaman"),
        gh = index_in_order(r, "ghoul");
    ck_assert_int_eq(z2, z1 + 1);
    ck_assert_int_eq(gh, sh + 1);
    ck_assert(z1 == 0 || sh == 0);
    absent(r, "zombie_2: init");
    absent(r, "ghoul: init");
    done(r);
    /* the formula is the GM's: a ruling asked per creature */
    r = ok(5, ROLLED "ruling pack \"Which pack?\" { answer number\n asked per creature\n default 0 }\n"
                     "initiative { roll init\n group enemies by pack }\n"
                     "creature wolf x2 side enemies { }\ncreature rat side enemies { }\n"
                     "answer pack 1 for rat\nbegin encounter\nroll initiative wolf_1 9, rat 2\n");
    lines_in_order(r, "order: wolf_1 (9), wolf_2 (9), rat (2)", NULL);
    done(r);
}
END_TEST

START_TEST(test_below_when)
{
    /* escalation: whoever starts the fight goes last */
    run *r =
        ok(1, "stat agility = 0\nruling initiator \"Who attacked first?\" { answer creature\n asked per encounter }\n"
              "initiative { mode static\n score agility\n order highest first\n below when self == initiator }\n"
              "creature a { agility 5 }\ncreature b { agility 3 }\ncreature c { agility 1 }\n"
              "begin encounter\nanswer initiator a\nroll initiative\n");
    lines_in_order(r, "order: b (3), c (1), a (5)", NULL);
    done(r);
}
END_TEST

/* the same, with the one who starts the fight named as it begins */
START_TEST(test_begin_encounter_by_names_the_initiator)
{
    run *r = ok(1, "stat agility = 0\n"
                   "initiative { mode static\n score agility\n order highest first\n below when self == initiator() }\n"
                   "creature a { agility 5 }\ncreature b { agility 3 }\ncreature c { agility 1 }\n"
                   "begin encounter by b\nroll initiative\nprint \"by\", initiator()\nend encounter\n"
                   "begin encounter\nroll initiative\nprint \"by\", initiator()\n");
    lines_in_order(r, "order: a (5), c (1), b (3)", "by b", "order: a (5), b (3), c (1)", "by nothing", NULL);
    done(r);
    r = play(1, "period scene\ncreature a { }\nbegin scene by a\n");
    ck_assert(!r->ok);
    ck_assert_str_eq(r->v->error.s, "only an encounter is begun by a creature");
    done(r);
}
END_TEST

START_TEST(test_missing_ruling_is_an_error)
{
    run *r =
        play(1, "stat agility = 0\nruling initiator \"Who attacked first?\" { answer creature\n asked per encounter }\n"
                "initiative { mode static\n score agility\n order highest first\n below when self == initiator }\n"
                "creature a { agility 5 }\nbegin encounter\nroll initiative\n");
    ck_assert(!r->ok);
    ck_assert_ptr_nonnull(strstr(r->v->error.s, "ruling initiator needs an answer"));
    done(r);
}
END_TEST

START_TEST(test_surprise_round_restricts_the_economy)
{
    run *r = ok(1, "stat speed = 0\nruling ambushed \"Is this creature unaware?\" { answer yes_no\n asked per "
                   "creature\n default no }\n"
                   "economy { slot standard 1 per turn\n slot move 1 per turn\n slot swift 1 per turn }\n"
                   "initiative { mode static\n score speed\n order highest first\n surprised when ambushed\n"
                   " surprise round { only standard or move, swift } }\n"
                   "action strike costs standard { }\naction step costs move { }\naction quick costs swift { }\n"
                   "creature hero side party { speed 1 }\ncreature orc side horde { speed 5 }\n"
                   "answer ambushed yes for orc\nbegin encounter\nroll initiative\n"
                   "hero: strike\nhero: step\nhero: quick\nnext\n");
    lines_in_order(r, "surprise round: hero's turn", "hero: strike",
                   "hero cannot step: in the surprise round only one standard or move", "hero: quick",
                   "round 1: orc's turn", NULL);
    done(r);
}
END_TEST

/* A § in the surprise block cites the surprise round's refusals; without
   one they cite the initiative. */
START_TEST(test_surprise_round_cites_its_own_passage)
{
    const char *form = "system demo \"Demo\" { }\nstat speed = 0\n"
                       "ruling ambushed \"Unaware?\" { answer yes_no\n asked per creature\n default no }\n"
                       "economy { slot standard 1 per turn\n slot move 1 per turn }\n"
                       "initiative { § \"Initiative\"\n mode static\n score speed\n surprised when ambushed\n"
                       " surprise round { %s only standard or move } }\n"
                       "action strike costs standard { }\naction step costs move { }\n"
                       "creature hero side party { speed 1 }\ncreature orc side horde { speed 5 }\n"
                       "answer ambushed yes for orc\nbegin encounter\nroll initiative\nhero: strike\nhero: step\n";
    char text[1024];
    snprintf(text, sizeof text, form, "§ \"Surprise\"\n");
    run *r = ok(1, text);
    lines_in_order(r, "hero cannot step: in the surprise round only one standard or move (demo § \"Surprise\")", NULL);
    done(r);
    snprintf(text, sizeof text, form, "");
    r = ok(1, text);
    lines_in_order(r, "hero cannot step: in the surprise round only one standard or move (demo § \"Initiative\")",
                   NULL);
    done(r);
}
END_TEST

START_TEST(test_free_round_before_initiative)
{
    run *r = ok(1, "stat speed = 0\nruling ambushed \"Unaware?\" { answer yes_no\n asked per creature\n default no }\n"
                   "check init(self) = d8\n"
                   "initiative { mode sides\n roll init\n order highest first\n surprised when ambushed\n"
                   " surprise free_round }\n"
                   "creature hero side party { }\ncreature orc x2 side horde { }\n"
                   "answer ambushed yes for orc_1\nanswer ambushed yes for orc_2\n"
                   "begin encounter\nroll initiative\nnext\n");
    lines_in_order(r, "free round before initiative", "free round: party's turn (hero)", "order:", "round 1:", NULL);
    absent(r, "free round: orc");
    done(r);
    /* rolls entered with `roll initiative` are the ones used once the free round ends */
    r = ok(1, "stat speed = 0\nruling ambushed \"Unaware?\" { answer yes_no\n asked per creature\n default no }\n"
              "check init(self) = d8\n"
              "initiative { mode sides\n roll init\n order highest first\n surprised when ambushed\n"
              " surprise free_round }\n"
              "creature hero side party { }\ncreature orc x2 side horde { }\n"
              "answer ambushed yes for orc_1\nanswer ambushed yes for orc_2\n"
              "begin encounter\nroll initiative hero 2, orc_1 7\nnext\n");
    lines_in_order(r, "free round: party's turn (hero)", "party: init d8 (2) = 2", "horde: init d8 (7) = 7",
                   "order: horde (7), party (2)", NULL);
    done(r);
}
END_TEST

/* --- turns, rounds and phases --------------------------------------------------------- */

START_TEST(test_next_and_rounds_skip_the_fallen)
{
    run *r = ok(1, BASE "creature a { speed 3 }\ncreature b { speed 2; hp 0 }\ncreature c { speed 1 }\n"
                        "begin encounter\nroll initiative\nnext\nnext\n");
    lines_in_order(r, "round 1: a's turn", "c's turn", "round 2: a's turn", NULL);
    absent(r, "b's turn");
    done(r);
}
END_TEST

START_TEST(test_phases_skip_and_steps)
{
    /* lurasko: no movement phase in round 1 unless a whole side is surprised */
    const char *text = "stat speed = 0\n"
                       "initiative { mode static\n score speed\n order highest first }\n"
                       "round { length 5 s\n phase movement steps { skip when round_number() == 1 }\n"
                       " phase action }\n"
                       "creature a { speed 2 }\ncreature b { speed 1 }\n"
                       "begin encounter\nroll initiative\nnext\nnext\nnext\nnext\n";
    run *r = ok(1, text);
    lines_in_order(r, "round 1: a's turn", "b's turn", "round 2: a's movement", "b's movement", "a's turn", NULL);
    done(r);
}
END_TEST

START_TEST(test_delay_then_resume_keeps_new_place)
{
    run *r = ok(1, BASE "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"
                        "begin encounter\nroll initiative\ndelay\nresume a\nnext\nnext\nnext\nnext\n");
    /* a waits, then acts after b; next round it keeps that place */
    lines_in_order(r, "round 1: a's turn", "a delays", "b's turn", "a stops delaying", "a's turn", "c's turn",
                   "round 2: b's turn", "a's turn", NULL);
    done(r);
}
END_TEST

START_TEST(test_delay_returns_to_former_place)
{
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n allow delay for round returns }\n"
                   "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"
                   "begin encounter\nroll initiative\ndelay\nresume a\nnext\nnext\nnext\nnext\nnext\n");
    /* a acts after b in round 1 only; round 2 is played in the rolled order */
    lines_in_order(r, "a delays", "b's turn", "a stops delaying", "a's turn", "c's turn",
                   "a takes its former place in the order again", "round 2: a's turn", "b's turn", "c's turn", NULL);
    done(r);
}
END_TEST

START_TEST(test_delay_for_round_loses_the_turn)
{
    run *r =
        ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n order highest first\n allow delay for round }\n"
              "creature a { speed 3 }\ncreature b { speed 2 }\n"
              "begin encounter\nroll initiative\ndelay\nnext\n");
    lines_in_order(r, "a delays", "b's turn", "a waited all round and loses its turn", "round 2: a's turn", NULL);
    done(r);
}
END_TEST

/* A requirement on moves is asked with the entries the creature would land
   between (above, below: nothing at an end) and refuses in the rules'
   words; moving up is refused by the mechanism itself. */
START_TEST(test_reorder_start_requires_above_and_below)
{
    const char *text = "stat speed = 0\n"
                       "procedure between_enemies(self, above, below) {\n"
                       " if above == nothing or below == nothing { return false }\n"
                       " return above.side != self.side and below.side != self.side\n}\n"
                       "initiative { mode static\n score speed\n order highest first\n"
                       " reorder start requires not between_enemies(self, above, below)\n"
                       "  else \"cannot move between two enemies whose turns are adjacent\" }\n"
                       "creature a side one { speed 4 }\ncreature b side two { speed 3 }\n"
                       "creature c side two { speed 2 }\ncreature d side one { speed 1 }\n"
                       "begin encounter\nroll initiative\n"
                       "reorder c after a\nreorder a after b\nreorder a after d\nnext\n";
    run *r = ok(1, text);
    lines_in_order(r, "c can only move down the order now",
                   "a cannot move between two enemies whose turns are adjacent", "a moves after d",
                   "order: b (3), c (2), d (1), a (moved; rolled 4)", "round 1: b's turn", NULL);
    done(r);
}
END_TEST

/* A move made emits reordered(c, old, new) with the places it left and
   took; rules code holds what it needs, here the decisions going up the
   order as rolled. A refused move emits nothing. */
START_TEST(test_reordered_event_and_rules_held_decisions)
{
    const char *text = "use core\nstat speed = 0\nstat left: int = -1 { internal }\n"
                       "procedure in_turn(self) {\n"
                       " for c in creatures() { if c.left >= 0 and c.left <= order_place(self) { return false } }\n"
                       " return true\n}\n"
                       "trigger note { on reordered(c, old, new); do { c.left = old; print c, old, new } }\n"
                       "initiative { mode static\n score speed\n"
                       " reorder start requires in_turn(self) else \"has had its chance\" }\n"
                       "creature a side one { speed 5 }\ncreature b side one { speed 4 }\n"
                       "creature c side two { speed 3 }\ncreature d side two { speed 2 }\n"
                       "creature e side one { speed 1 }\n"
                       "begin encounter\nroll initiative\n"
                       "reorder c after e\nreorder d after e\nreorder a after d\n"
                       "reorder b after a\nnext\n";
    run *r = ok(1, text);
    lines_in_order(r, "c moves after e", "c 2 4", "d has had its chance", "a moves after d", "a 0 2",
                   "order: b (4), d (2), a (moved; rolled 5), e (1), c (moved; rolled 3)", "b has had its chance",
                   "round 1: b's turn", NULL);
    absent(r, "d 2");
    done(r);
}
END_TEST

/* A requirement is asked only of the moves of its clause's kind; once
   the rounds have begun, `reorder` is refused as an error. */
START_TEST(test_reorder_requirement_asked_of_its_kind)
{
    const char *text = "stat speed = 0\n"
                       "initiative { mode static\n score speed\n order highest first\n § \"Moving Down\"\n"
                       " reorder start requires below != nothing\n reorder later }\n"
                       "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"
                       "begin encounter\nroll initiative\nreorder a after c\nreorder a after b\nnext\n"
                       "forfeit b after c\nreorder c before a\n";
    run *r = play(1, text);
    ck_assert(!r->ok);
    lines_in_order(r, "a cannot move after c: it requires below != nothing (§ \"Moving Down\")", "a moves after b",
                   "round 1: b's turn", "b will forfeit a turn and move after c", NULL);
    ck_assert_msg(strstr(r->v->error.s, "only right after it is rolled"), "error: %s", r->v->error.s);
    done(r);
}
END_TEST

START_TEST(test_forfeit_moves_next_round)
{
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n order highest first\n"
                   " reorder later requires round_number() >= 2 }\n"
                   "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"
                   "begin encounter\nroll initiative\nforfeit c before a\nnext\nnext\nnext\nforfeit c before a\nnext\n"
                   "next\n");
    lines_in_order(r, "c cannot move before a: it requires round_number() >= 2 (", "round 2: a's turn",
                   "c will forfeit a turn", "c forfeits this turn", "c moves before a", "round 3: c's turn", NULL);
    done(r);
}
END_TEST

/* With 'at round start' the new place is taken as the next round starts,
   so a phase of steps before the turns already goes in the new order;
   without it, the steps keep the old order. Forfeiting in one's own step
   gives up the turn of the action phase, not the step. A refusal cites the
   last citation written before the reorder clause. */
START_TEST(test_forfeit_at_round_start_and_clause_citation)
{
    const char *head = "stat speed = 0\nround { phase movement steps\n phase action }\n";
    const char *play = "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"
                       "begin encounter\nroll initiative\nforfeit a after c\nnext\nnext\nnext\nnext\nnext\nnext\n"
                       "forfeit a after c\nnext\nnext\nnext\nnext\nnext\nnext\nnext\nnext\n";
    char text[2048];
    snprintf(text, sizeof text,
             "%sinitiative { § \"Initiative\"\n mode static\n score speed\n § \"Changing Places\"\n"
             " reorder later at round start requires round_number() > 1\n"
             "  else \"cannot change its place in round 1 (from round 2 on)\" }\n%s",
             head, play);
    run *r = ok(1, text);
    lines_in_order(r, "a cannot change its place in round 1 (from round 2 on) (§ \"Changing Places\")",
                   "round 2: a's movement", "a will forfeit a turn", "b's movement", "c's movement",
                   "a forfeits this turn", "b's turn", "c's turn", "a moves after c", "round 3: b's movement",
                   "c's movement", "a's movement", "b's turn", NULL);
    done(r);
    snprintf(text, sizeof text,
             "%sinitiative { § \"Initiative\"\n mode static\n score speed\n reorder later requires round_number() > 1"
             " else \"cannot change its place in round 1 (from round 2 on)\" }\n%s",
             head, play);
    r = ok(1, text);
    lines_in_order(r, "a cannot change its place in round 1 (from round 2 on) (§ \"Initiative\")",
                   "round 3: a's movement", "b's movement", "c's movement", "a moves after c", "b's turn", NULL);
    done(r);
}
END_TEST

/* --- the economy ------------------------------------------------------------------------ */

#define ECONOMY                                                                                       \
    BASE "economy { § \"Actions\"\n slot standard 1 per turn role primary\n"                         \
         " slot move 1 per turn role movement\n slot swift 1 per turn role minor\n"                   \
         " slot bonus 2 per turn role minor\n"                                                        \
         " slot immediate 1 per round role reaction borrows swift from this or next turn\n"           \
         " limit swift + immediate <= 3 per round }\n"                                                \
         "exchange standard -> move\n"                                                                \
         "action hit costs standard { }\naction walk costs move { }\naction quick costs swift { }\n"  \
         "action extra costs move + 2 * bonus { }\naction rise costs standard or move or bonus { }\n" \
         "action react costs immediate { anytime }\n"                                                 \
         "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"

START_TEST(test_slot_refused_with_its_rule)
{
    run *r = ok(1, ECONOMY "a: hit\na: hit\n");
    lines_in_order(r, "a: hit", "a cannot hit: no standard left this turn (1 of 1 spent) (§ \"Actions\")", NULL);
    done(r);
}
END_TEST

START_TEST(test_exchange_standard_for_move)
{
    run *r = ok(1, ECONOMY "a: walk\na: walk\na: walk\na: hit\n");
    lines_in_order(r, "a: walk", "a: walk", "a cannot walk: no move left this turn", "a cannot hit", NULL);
    done(r);
}
END_TEST

START_TEST(test_combined_and_alternative_costs)
{
    run *r = ok(1, ECONOMY "a: extra\na: extra\na: rise\na: rise\na: rise\n");
    /* move + 2 bonus: once; then rise takes the standard; then nothing */
    lines_in_order(r, "a: extra", "a cannot extra", "a: rise", "a cannot rise", NULL);
    done(r);
}
END_TEST

START_TEST(test_off_turn_needs_anytime)
{
    run *r = ok(1, ECONOMY "b: hit\n");
    lines_in_order(r, "b cannot hit: it is a's turn, not b's", NULL);
    done(r);
}
END_TEST

START_TEST(test_immediate_borrows_this_or_next_swift)
{
    /* on its own turn: the swift of this turn */
    run *r = ok(1, ECONOMY "a: react\na: quick\n");
    lines_in_order(r, "a: react", "a cannot quick: no swift left this turn", NULL);
    done(r);
    /* off its turn with this turn's swift unspent: that one */
    r = ok(1, ECONOMY "next\na: react\nnext\na: quick\n");
    lines_in_order(r, "a: react", "round 2: a's turn", "a: quick", NULL);
    done(r);
    /* off its turn with this turn's swift spent: the next turn's */
    r = ok(1, ECONOMY "a: quick\nnext\na: react\nnext\na: quick\n");
    lines_in_order(r, "a: quick", "b's turn", "a: react", "round 2: a's turn",
                   "a cannot quick: no swift left this turn", NULL);
    done(r);
}
END_TEST

/* A creature that has had no turn in this encounter has no turn whose
   swift it could give up: its immediate action owes the next turn's. */
START_TEST(test_immediate_before_the_first_turn_borrows_the_next)
{
    run *r = ok(1, ECONOMY "b: react\nnext\nb: quick\n");
    lines_in_order(r, "b: react", "b's turn", "b cannot quick: no swift left this turn (1 of 1 spent)", NULL);
    done(r);
    /* the same for one that joins the fight after the order is rolled */
    r = ok(1, ECONOMY "creature c { speed 0 }\nc: react\nnext\nnext\nc: quick\n");
    lines_in_order(r, "c joins the fight", "c: react", "c's turn", "c cannot quick: no swift left this turn", NULL);
    done(r);
    /* `from this turn` alone: nothing to give up, and the refusal says why */
    r = ok(1, BASE "economy { § \"Actions\"\n slot swift 1 per turn\n"
                   " slot immediate 1 per round borrows swift from this turn }\n"
                   "action react costs immediate { anytime }\n"
                   "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                   "b: react\nnext\nnext\nb: react\n");
    lines_in_order(r,
                   "b cannot react: immediate takes a swift of b's last turn, and b has had no turn in this "
                   "encounter (§ \"Actions\")",
                   "round 2: a's turn", "b: react", NULL);
    done(r);
}
END_TEST

/* The turns of an encounter end with it: a use owed to the next turn, or
   made outside the last one, is not charged to the next encounter. */
START_TEST(test_ledger_starts_afresh_each_encounter)
{
    run *r = ok(1, ECONOMY "a: quick\nnext\na: react\nend encounter\nbegin encounter\nroll initiative\na: quick\n");
    lines_in_order(r, "a: react", "encounter ends", "round 1: a's turn", "a: quick", NULL);
    absent(r, "a cannot quick");
    done(r);
    r = ok(1, BASE "economy { slot reaction 1 per turn }\naction parry costs reaction { anytime }\n"
                   "creature a { speed 1 }\ncreature b { speed 2 }\nbegin encounter\nroll initiative\n"
                   "next\nnext\na: parry\nend encounter\nbegin encounter\nroll initiative\na: parry\n");
    lines_in_order(r, "round 2: b's turn", "a: parry", "encounter begins", "a: parry", NULL);
    absent(r, "a cannot parry");
    done(r);
}
END_TEST

/* In mode sides, a side's turn is a turn of the members whose turn it
   started: one that joins the fight during it waits for a turn of its own. */
START_TEST(test_joining_member_waits_for_its_own_turn)
{
    run *r = ok(1, "stat speed = 0\ninitiative { mode sides\n score speed }\n"
                   "economy { slot main 1 per turn }\naction hit costs main { }\n"
                   "creature a side party { speed 2 }\ncreature b side foes { speed 1 }\n"
                   "begin encounter\nroll initiative\ncreature late side party { speed 1 }\nlate: hit\nnext\nnext\n"
                   "late: hit\n");
    lines_in_order(r, "round 1: party's turn (a)", "late joins the fight",
                   "late cannot hit: it is a's turn, not late's", "late's turn", "late: hit", NULL);
    done(r);
    /* a surprised member takes no part in its side's turn of the surprise round */
    r = ok(1,
           "stat speed = 0\nruling ambushed \"Unaware?\" { answer yes_no\n asked per creature\n default no }\n"
           "check init(self) = d8\n"
           "initiative { mode sides\n roll init\n order highest first\n surprised when ambushed\n"
           " surprise round }\neconomy { slot main 1 per turn }\naction hit costs main { }\n"
           "creature hero side party { }\ncreature sleepy side party { }\ncreature orc side horde { }\n"
           "answer ambushed yes for sleepy\nbegin encounter\nroll initiative hero 8, orc 1\nsleepy: hit\nhero: hit\n");
    lines_in_order(r, "surprise round: party's turn (hero)", "sleepy cannot hit: it is hero's turn, not sleepy's",
                   "hero: hit", NULL);
    done(r);
}
END_TEST

/* A ledger is as long as the rules need: 3000 actions, each with its own
   count, and a cost is still tried and paid. */
START_TEST(test_ledger_grows_with_the_rules)
{
    size_t cap = 200000, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len += (size_t)snprintf(text + len, cap - len, "%s", BASE "economy { slot main 1 per turn }\n");
    for (int i = 0; i < 3000; i++)
        len += (size_t)snprintf(text + len, cap - len, "action a%d costs main { }\n", i);
    snprintf(text + len, cap - len,
             "creature x { speed 1 }\ncreature y { }\nbegin encounter\nroll initiative\nx: a2999\nx: a0\n");
    run *r = ok(1, text);
    lines_in_order(r, "x: a2999", "x cannot a0: no main left this turn (1 of 1 spent)", NULL);
    done(r);
    free(text);
}
END_TEST

START_TEST(test_cap_across_slots)
{
    /* swift + immediate <= 3 per round: the fourth is refused */
    run *r = ok(1, BASE "economy { slot swift 2 per turn\n slot immediate 3 per round\n"
                        " limit swift + immediate <= 3 per round }\n"
                        "action quick costs swift { }\naction react costs immediate { anytime }\n"
                        "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                        "a: quick\na: quick\na: react\na: react\n");
    lines_in_order(r, "a: quick", "a: quick", "a: react",
                   "a cannot react: at most 3 swift + immediate per round (3 taken)", NULL);
    done(r);
}
END_TEST

/* A use given up to a borrowing slot is no action taken: per-round limits
   do not count it, whether it comes from this turn or is owed by the next. */
START_TEST(test_borrowed_use_not_counted_by_limits)
{
    const char *econ = BASE "economy { slot swift %d per turn\n"
                            " slot immediate 1 per round borrows swift from this or next turn\n"
                            " slot bonus 2 per round\n limit swift + immediate + bonus <= 3 per round }\n"
                            "action quick costs swift { }\naction react costs immediate { anytime }\n"
                            "action spare costs bonus { anytime }\n"
                            "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n%s";
    char text[2048];
    /* this turn's swift given up: one swift, one immediate, one bonus make three */
    snprintf(text, sizeof text, econ, 3, "a: quick\nnext\na: react\na: spare\na: spare\n");
    run *r = ok(1, text);
    lines_in_order(r, "a: quick", "a: react", "a: spare",
                   "a cannot spare: at most 3 swift + immediate + bonus per round (3 taken)", NULL);
    done(r);
    /* the next turn's swift owed: round 2 still allows three, the owed one aside */
    snprintf(text, sizeof text, econ, 2,
             "a: quick\na: quick\nnext\na: react\nnext\na: quick\na: quick\na: spare\na: spare\n");
    r = ok(1, text);
    lines_in_order(r, "a: react", "round 2: a's turn", "a: quick", "a cannot quick: no swift left this turn",
                   "a: spare", "a: spare", NULL);
    absent(r, "a cannot spare");
    done(r);
}
END_TEST

START_TEST(test_exclusive_by_kind_until_next_turn)
{
    /* fortitude: after an attack of opportunity, only attacks of opportunity */
    run *r =
        ok(1, BASE "economy { slot immediate 2 per round\n exclusive immediate by kind until start of next turn }\n"
                   "action aoo costs immediate { anytime\n kind opportunity }\n"
                   "action counter costs immediate { anytime\n kind counterspell }\n"
                   "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                   "next\na: aoo\na: counter\nnext\na: counter\n");
    lines_in_order(r, "a: aoo",
                   "a cannot counter: after opportunity, immediate is only for opportunity until a's next turn",
                   "round 2: a's turn", "a: counter", NULL);
    done(r);
}
END_TEST

START_TEST(test_action_borrows_next_turn)
{
    /* escalation: standing up off-turn takes the bonus action of the next turn */
    run *r = ok(1, BASE "economy { slot bonus 1 per turn }\naction stand costs bonus { anytime\n borrows next turn }\n"
                        "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                        "next\na: stand\na: stand\nnext\na: stand\n");
    lines_in_order(r, "b's turn", "a: stand", "a cannot stand: no bonus left in a's next turn to borrow",
                   "round 2: a's turn", "a cannot stand: no bonus left this turn (1 of 1 spent)", NULL);
    done(r);
}
END_TEST

START_TEST(test_slot_of_a_phase)
{
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n order highest first }\n"
                   "round { phase movement steps\n phase action }\n"
                   "economy { slot movement 1 per round during movement\n slot major 1 per turn during action }\n"
                   "action run costs movement { }\naction strike costs major { }\n"
                   "creature a { speed 1 }\nbegin encounter\nroll initiative\n"
                   "a: strike\na: run\nnext\na: run\na: strike\n");
    lines_in_order(r, "a's movement", "a cannot strike: major can only be spent in the action phase", "a: run",
                   "a's turn", "a cannot run: movement can only be spent in the movement phase", "a: strike", NULL);
    done(r);
}
END_TEST

/* --- durations ---------------------------------------------------------------------------- */

#define TIMED                                                                       \
    BASE "condition blessed { }\n"                                                  \
         "action bless costs { apply(self, blessed, 1 round) }\n"                   \
         "action bless2 costs { apply(self, blessed, 2 rounds) }\n"                 \
         "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n" \
         "begin encounter\nroll initiative\n"

START_TEST(test_rounds_end_at_the_same_position)
{
    /* begun on b's turn in round 1: still there through c and a in round 2,
       gone just before b's turn in round 2 */
    run *r = ok(1, BASE "condition blessed { }\n"
                        "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"
                        "begin encounter\nroll initiative\nnext\n"
                        "apply blessed to b for 1 round\nnext\nnext\nshow b\nnext\n");
    lines_in_order(r, "b's turn", "b is blessed (1 round left)", "c's turn", "round 2: a's turn",
                   "b: speed 2; blessed [ends this round]", "b's turn",
                   "blessed on b ended (its initiative position came round)", NULL);
    done(r);
}
END_TEST

START_TEST(test_turns_counted_on_the_creature)
{
    /* lurasko: 3 turns: this turn, the next two, gone before the fourth */
    run *r = ok(1, BASE "condition focused { }\n"
                        "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                        "apply focused to a for 3 turns\n"
                        "next\nnext\nnext\nnext\nnext\nshow a\nnext\n");
    lines_in_order(r, "a is focused (3 turns left)", "round 2: a's turn", "round 3: a's turn",
                   "a:", "focused [ends as a's next turn starts]", "round 4: a's turn",
                   "focused on a ended (start of a's turn)", NULL);
    done(r);
}
END_TEST

START_TEST(test_until_marks)
{
    run *r =
        ok(1, BASE "condition prone { lasts until start of next turn }\n"
                   "condition charging { lasts until end of round }\ncondition braced { lasts until end of turn }\n"
                   "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                   "apply prone to b by a\napply charging to a\napply braced to a\nnext\nnext\n");
    lines_in_order(r, "b is prone (until start of a's next turn)", "a is charging (until end of round)",
                   "a is braced (until end of a's turn)", "braced on a ended (end of a's turn)", "b's turn",
                   "charging on a ended (end of round 1)", "round 2: a's turn", "prone on b ended (start of a's turn)",
                   NULL);
    done(r);
}
END_TEST

/* `until end of next turn` and `N turns`, begun in the anchor's turn and
   outside it */
START_TEST(test_next_turn_in_and_out_of_the_own_turn)
{
    run *r = ok(1, BASE "condition steady { lasts until end of next turn }\ncondition keen { }\n"
                        "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                        "apply steady to a\nnext\napply steady to b by a\napply keen to a for 2 turns\nnext\nnext\n"
                        "next\nnext\nnext\n");
    /* on a's turn: to the end of a's next turn (round 2); begun in b's
       turn for a: to the end of a's next turn (round 2 as well); keen: a's
       turns in rounds 2 and 3 */
    lines_in_order(r, "a is steady (until end of a's next turn)", "b's turn", "b is steady (until end of a's turn)",
                   "a is keen (2 turns left)", "round 2: a's turn", "steady on a ended (end of a's turn)",
                   "steady on b ended (end of a's turn)", "b's turn", "round 3: a's turn", "b's turn",
                   "round 4: a's turn", "keen on a ended (start of a's turn)", NULL);
    done(r);
}
END_TEST

START_TEST(test_reordering_does_not_move_a_duration)
{
    /* lurasko: moved in the order, an effect still ends at the position it began */
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n order highest first\n reorder later }\n"
                   "condition warded { }\n"
                   "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"
                   "begin encounter\nroll initiative\napply warded to a for 1 round\n"
                   "forfeit a after c\nnext\nnext\nshow a\nnext\nnext\n");
    /* a began it at the top; in round 2 it acts last, but the ward ends
       before b, where a's turn used to be */
    lines_in_order(r, "a forfeits this turn", "a moves after c", "round 2: b's turn",
                   "warded on a ended (its initiative position came round)", "c's turn", "a's turn", NULL);
    done(r);
}
END_TEST

/* Periods the rules declare: ending one counts down what lasts it and the
   periods within it, inner first, but only it is said to end and counts as
   ended (a limit per an inner one holds); its events are heard. */
START_TEST(test_declared_periods_nest)
{
    run *r = ok(1, "period watch { within night }\nperiod night { within week }\nperiod week\n"
                   "condition a_watch { }\ncondition a_night { }\ncondition a_week { }\n"
                   "action rest { limit 1 per watch\n print self, \"rests\" }\n"
                   "trigger heard { on period_end(p)\n automatic\n do { print \"heard\", p } }\n"
                   "creature a { }\n"
                   "apply a_watch to a for 2 watches\napply a_night to a for 1 night\napply a_week to a for 1 week\n"
                   "a: rest\nend week\na: rest\nend watch\na: rest\n");
    lines_in_order(r, "a is a_watch (2 watches left)", "a rests", "the week ends", "heard week", NULL);
    lines_in_order(r, "the week ends", "a_night on a ended (end of the night)", "a_week on a ended (end of the week)",
                   "a cannot rest", "the watch ends", "a_watch on a ended (end of the watch)", "a rests", NULL);
    absent(r, "the night ends");
    ck_assert_int_eq(r->p->rules->nperiods, 3);
    ck_assert_int_eq(rules_period_word(r->p, "watches"), 0);
    ck_assert_int_eq(rules_period_word(r->p, "nights"), 1);
    ck_assert_int_eq(rules_period_word(r->p, "weeks"), 2);
    ck_assert_int_eq(rules_period_word(r->p, "day"), -1);
    ck_assert_str_eq(period_name(r->p, PER_DECLARED + 1), "night");
    ck_assert_str_eq(rules_time_name(r->p, (time_kind)(TIME_PERIOD + 0), 2), "watches");
    done(r);
}
END_TEST

START_TEST(test_encounter_and_scene_durations)
{
    run *r = ok(1, BASE "period scene\ncondition inspired { }\ncondition warded { }\n"
                        "creature a { speed 1 }\nbegin encounter\napply inspired to a for 1 encounter\n"
                        "apply warded to a for 2 scenes\nend encounter\nend scene\nshow a\nend scene\n");
    lines_in_order(r, "inspired on a ended (end of the encounter)", "the scene ends", "warded [1 scene left]",
                   "warded on a ended (end of the scene)", NULL);
    done(r);
}
END_TEST

START_TEST(test_phase_anchored_rounds)
{
    /* lurasko: begun in the movement phase, a round count ticks at each
       movement phase's start */
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n order highest first }\n"
                   "round { phase movement steps\n phase action }\nduration round { ticks at phase movement }\n"
                   "condition rushing { }\n"
                   "creature a { speed 1 }\nbegin encounter\nroll initiative\napply rushing to a for 1 round\n"
                   "next\nnext\n");
    lines_in_order(r, "round 1: a's movement", "a is rushing", "a's turn",
                   "rushing on a ended (start of the movement phase)", "round 2: a's movement", NULL);
    done(r);
}
END_TEST

/* begun in a's turn of the action phase, a round ends right before a's
   turn of the next action phase, not at a's step of the movement phase */
START_TEST(test_rounds_end_in_the_phase_they_began)
{
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n order highest first }\n"
                   "round { phase movement steps\n phase action }\ncondition braced { }\n"
                   "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                   "next\nnext\napply braced to a for 1 round\nnext\nnext\nnext\nnext\nnext\n");
    lines_in_order(r, "round 1: a's movement", "b's movement", "a's turn", "a is braced (1 round left)", "b's turn",
                   "round 2: a's movement", "b's movement", "a's turn",
                   "braced on a ended (its initiative position came round)", "b's turn", NULL);
    done(r);
}
END_TEST

START_TEST(test_cooldown)
{
    run *r = ok(1, BASE "action burst { cooldown 2 rounds\n print \"burst\" }\n"
                        "creature a { speed 1 }\ncreature b { speed 0 }\nbegin encounter\nroll initiative\n"
                        "a: burst\nnext\nnext\na: burst\nnext\nnext\na: burst\n");
    lines_in_order(r, "a: burst", "burst", "round 2: a's turn", "a cannot burst: burst is cooling down",
                   "round 3: a's turn", "a: burst", NULL);
    done(r);
}
END_TEST

/* --- conditions and modifiers ------------------------------------------------------------ */

START_TEST(test_modifiers_set_add_scale_and_typed_bonuses)
{
    run *r = ok(
        1, "stat ac = 10\nstat speed = 30\nbonus dodge stacks\nbonus circumstance\n"
           "condition flat { set ac to 5 }\ncondition guarded { modify ac by 4 as dodge }\n"
           "condition nimble { modify ac by 1 as dodge }\n"
           "condition cover { modify ac by 2 as circumstance }\ncondition shield { modify ac by 3 as circumstance }\n"
           "condition slowed { scale speed by 1/3 }\n"
           "creature a { }\n"
           "apply guarded to a\napply nimble to a\napply cover to a\napply shield to a\nprint a.ac\n"
           "apply flat to a\nprint a.ac\napply slowed to a\nprint a.speed\n");
    /* 10 + 4 + 1 (dodge stacks) + 3 (the best circumstance) = 18; set to 5 then + 8 = 13; 30 / 3 = 10 */
    lines_in_order(r, "\n18\n", "\n13\n", "\n10\n", NULL);
    done(r);
}
END_TEST

START_TEST(test_stacking_condition_counts_each_time)
{
    run *r = ok(1, "stat ac = 10\ncondition shaken { modify ac by -1\n stacks }\ncondition dazed { modify ac by -1 }\n"
                   "creature a { }\napply shaken to a\napply shaken to a\napply dazed to a\napply dazed to a\n"
                   "print \"ac\", a.ac\nremove shaken from a\nprint \"after\", a.ac\n");
    /* two shaken count twice; dazed does not stack: applied again, it is one */
    lines_in_order(r, "ac 7", "after 9", NULL);
    done(r);
}
END_TEST

START_TEST(test_excludes_implies_holds)
{
    run *r = ok(1, "stat hp = 5\n"
                   "condition flying { excludes swimming, burrowing }\ncondition swimming { excludes flying }\n"
                   "condition burrowing { }\n"
                   "condition helpless { holds when self.hp <= 0 }\ncondition flat { modify hp by 0 }\n"
                   "condition pinned { implies flat }\n"
                   "creature a { }\n"
                   "apply swimming to a\napply flying to a\nprint has(a, swimming), has(a, flying)\n"
                   "print has(a, helpless)\na.hp = 0\nprint has(a, helpless)\n"
                   "apply pinned to a\nprint has(a, flat)\n");
    lines_in_order(r, "swimming on a ended", "false true", "false", "true", "true", NULL);
    done(r);
}
END_TEST

/* A stat read skips the creature's effects only when none of them can
   change it: a modifier reached through an implied condition, or through a
   condition that holds by itself, still counts, and conditions that touch
   other stats change nothing. */
START_TEST(test_modifier_index_follows_implies_and_holds)
{
    run *r = ok(1, "stat ac = 10\nstat speed = 30\nstat hp = 5\n"
                   "condition flat { modify ac by -2 }\ncondition pinned { implies flat }\n"
                   "condition bound { implies pinned }\n"
                   "condition helpless { holds when self.hp <= 0\n implies flat }\n"
                   "condition slow1 { modify speed by -1 }\ncondition slow2 { modify speed by -1 }\n"
                   "creature a { }\ncreature b { }\n"
                   "apply slow1 to a\napply slow2 to a\nprint a.ac, a.speed\n"
                   "apply bound to a\nprint \"bound\", a.ac\nremove bound from a\nprint \"free\", a.ac\n"
                   "b.hp = 0\nprint \"helpless\", b.ac\nb.hp = 1\nprint \"up\", b.ac\n");
    lines_in_order(r, "\n10 28\n", "bound 8", "free 10", "helpless 8", "up 10", NULL);
    done(r);
}
END_TEST

/* Rules declared after creatures exist (as at the REPL) are seen: the
   index is rebuilt and each creature's counts grow. */
START_TEST(test_modifier_index_sees_later_rules)
{
    run *r = ok(1, "stat ac = 10\ncondition a1 { modify ac by 1 }\ncreature a { }\napply a1 to a\nprint a.ac\n");
    size_t first = r->p->ncommands;
    const char *more = "condition a2 { modify ac by 2 }\ncondition a3 { implies a2 }\napply a3 to a\nprint a.ac\n";
    diag_sink sink = {.fn = on_diag, .user = r};
    ck_assert_int_eq(compile_string(r->p, "more.rules", more, strlen(more), &sink, NULL), 0);
    ck_assert(vm_run_commands(r->v, first));
    lines_in_order(r, "\n11\n", "\n13\n", NULL);
    done(r);
}
END_TEST

START_TEST(test_too_many_conditions_is_an_error)
{
    char text[8192] = "stat ac = 10\n";
    size_t n = strlen(text);
    for (int i = 0; i < 70; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "condition c%d { modify ac by 1 }\n", i);
    n += (size_t)snprintf(text + n, sizeof text - n, "creature a { }\n");
    for (int i = 0; i < 70; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "apply c%d to a\n", i);
    snprintf(text + n, sizeof text - n, "print a.ac\n");
    run *r = play(1, text);
    ck_assert(!r->ok);
    ck_assert_msg(strstr(r->v->error.s, "a is in too many conditions at once (limit is 64)"), "%s", r->v->error.s);
    done(r);
}
END_TEST

START_TEST(test_forbid_and_protect)
{
    run *r =
        ok(1, BASE "condition stunned { forbid hit }\ncondition defended { protect from hit unless actor.speed > 5 }\n"
                   "action hit(target) { target creature }\n"
                   "creature a { speed 2 }\ncreature b { speed 1 }\ncreature c { speed 9 }\n"
                   "begin encounter\nroll initiative\n"
                   "apply defended to b\nc: hit b\nnext\na: hit b\napply stunned to a\na: hit c\n");
    lines_in_order(r, "c: hit b", "a cannot hit b: b is defended", "a cannot hit c: a is stunned", NULL);
    done(r);
}
END_TEST

START_TEST(test_check_modifiers_in_and_out)
{
    run *r = ok(2, "stat ac = 10\n"
                   "check attack(attacker, target) = d20 { success \"hit\"; failure \"miss\" }\n"
                   "let adjacent_ok = true\n"
                   "condition prone { modify incoming attack by 2 when adjacent_ok\n modify attack by -4 }\n"
                   "creature a { }\ncreature b { }\napply prone to b\n"
                   "let r = attack(a, b)\nprint r >= b.ac\nlet s = attack(b, a)\nexplain\n");
    lines_in_order(r, "a -> b: attack d20 (", "+ prone 2 = ", "b -> a: attack d20 (",
                   "- prone 4 = ", "b -> a: attack d20 (", "    -4 prone (t.rules:", NULL);
    done(r);
}
END_TEST

/* A check without dice shows its terms from the first one, with no
   leading 0; a first term that is negative reads as "-NAME N"; a check
   whose terms are all 0 shows 0. */
START_TEST(test_check_without_dice_shows_its_terms)
{
    run *r = ok(1, "stat spd = 0\nstat tn = 0\n"
                   "check margin(self, face) = self.spd - face\n"
                   "check low(self) = self.tn\n"
                   "creature a { spd 7 }\ncreature b { }\n"
                   "print margin(a, 5)\nprint margin(b, 3)\nprint low(b)\n");
    lines_in_order(r, "a: margin spd 7 - face 5 = 2", "b: margin -face 3 = -3", "b: low 0 = 0", NULL);
    absent(r, "margin 0 ");
    done(r);
}
END_TEST

/* A roll's modifiers of a type that does not stack: the best bonus and
   the worst penalty of the type count; untyped and stacking ones all do. */
START_TEST(test_check_modifiers_typed_bonuses_do_not_stack)
{
    run *r = ok(
        2, "bonus morale\nbonus dodge stacks\n"
           "check attack(attacker, target) = d20\n"
           "condition heartened { modify attack by 2 as morale }\ncondition inspired { modify attack by 1 as morale }\n"
           "condition shaken { modify attack by -1 as morale }\ncondition cowed { modify attack by -3 as morale }\n"
           "condition nimble { modify attack by 1 as dodge }\ncondition quick { modify attack by 1 as dodge }\n"
           "condition sure { modify attack by 1 }\n"
           "creature a { }\ncreature b { }\n"
           "apply heartened to a\napply inspired to a\napply shaken to a\napply cowed to a\n"
           "apply nimble to a\napply quick to a\napply sure to a\n"
           "let x = attack(a, b)\nexplain\n");
    /* +2 (best morale) - 3 (worst morale) + 1 + 1 (dodge stacks) + 1 */
    lines_in_order(r, "a -> b: attack d20 (", "+ heartened 2 - cowed 3 + nimble 1 + quick 1 + sure 1 = ",
                   "inspired 1 does not count: morale bonuses do not stack",
                   "shaken -1 does not count: morale bonuses do not stack", NULL);
    ck_assert_msg(strstr(r->out, "+ sure 1"), "%s", r->out);
    ck_assert_msg(strstr(r->out, "+ heartened 2") && strstr(r->out, "- cowed 3") && strstr(r->out, "+ nimble 1") &&
                      strstr(r->out, "+ quick 1"),
                  "%s", r->out);
    ck_assert_msg(!strstr(r->out, "+ inspired 1 ") && !strstr(r->out, "- shaken 1 "), "%s", r->out);
    done(r);
}
END_TEST

/* --- events, triggers, reactions ------------------------------------------------------------- */

#define REACTIONS                                                                                   \
    BASE "economy { slot standard 1 per turn\n slot reaction 1 per round }\n"                       \
         "action poke(target) costs standard { target creature\n emit poked(self, target)\n"        \
         " print \"the poke lands\" }\n"                                                            \
         "trigger riposte { on poked(attacker, victim)\n reaction of victim costs reaction\n"       \
         " do { print victim, \"ripostes\", attacker } }\n"                                         \
         "trigger tally { on poked(attacker, victim)\n automatic\n limit 1 per round each victim\n" \
         " do { print \"tally\", victim } }\n"                                                      \
         "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"                 \
         "begin encounter\nroll initiative\n"

START_TEST(test_reaction_interrupts_and_is_paid)
{
    run *r = ok(1, REACTIONS "a: poke b\nnext\nb: poke c\n");
    /* automatic first, then the reaction, both before the poke goes on */
    lines_in_order(r, "a: poke b", "tally b", "b takes riposte on a (reaction)", "b ripostes a", "the poke lands",
                   "b's turn", "b: poke c", "tally c", "c takes riposte on b", NULL);
    done(r);
}
END_TEST

START_TEST(test_reaction_policy_and_slot_spent)
{
    run *r = ok(1, REACTIONS "policy riposte decline\na: poke b\npolicy riposte take\nnext\nnext\nnext\nb: poke c\n");
    lines_in_order(r, "b declines riposte on a", "the poke lands", NULL);
    done(r);
    /* one reaction per round: the second poke finds none left */
    r = ok(1, REACTIONS "a: poke b\nnext\nnext\nnext\na: poke b\nexplain\n");
    ck_assert_ptr_nonnull(strstr(r->out, "b takes riposte"));
    done(r);
}
END_TEST

START_TEST(test_trigger_limit_each)
{
    /* a second poke at b in one round: no second tally for b */
    run *r = ok(1, BASE "action poke(target) { target creature\n emit poked(self, target) }\n"
                        "trigger tally { on poked(attacker, victim)\n automatic\n limit 1 per round each victim\n"
                        " do { print \"tally\", victim } }\n"
                        "creature a { speed 3 }\ncreature b { speed 2 }\nbegin encounter\nroll initiative\n"
                        "a: poke b\na: poke b\nnext\nnext\na: poke b\n");
    lines_in_order(r, "tally b", "a: poke b", "round 2: a's turn", "tally b", NULL);
    const char *first = strstr(r->out, "tally b");
    const char *second = strstr(first + 1, "tally b");
    ck_assert_ptr_nonnull(second);
    ck_assert_ptr_nonnull(strstr(first, "round 2"));
    ck_assert(strstr(first, "round 2") < second);
    done(r);
}
END_TEST

START_TEST(test_ruling_asked_for_a_creature)
{
    run *r =
        ok(1, BASE "ruling bold \"Bold?\" { answer yes_no\n asked per creature\n default self.speed > 1 }\n"
                   "procedure bold_target(t) { return bold(t) }\n"
                   "creature a { speed 2 }\ncreature b { speed 1 }\nprint bold_target(a), bold_target(b), bold(b)\n");
    lines_in_order(r, "true false false", NULL);
    done(r);
}
END_TEST

START_TEST(test_changed_for_any_stat)
{
    run *r = ok(1, BASE "trigger seen { on changed(c, what, old, new)\n automatic\n do { print what, old, new } }\n"
                        "creature a { speed 2 }\na.speed = 5\na.speed = 5\na.hp = 3\n");
    lines_in_order(r, "speed 2 5", "hp 10 3", NULL);
    absent(r, "speed 5 5");
    done(r);
}
END_TEST

START_TEST(test_out_and_back_whatever_the_change)
{
    run *r = ok(1, "resource hp max 10\ncondition stone { }\n"
                   "encounter { out when self.hp <= 0 or has(self, stone) }\n"
                   "trigger o { on went_out(c)\n automatic\n do { print \"out:\", c } }\n"
                   "trigger b { on came_back(c)\n automatic\n do { print \"back:\", c } }\n"
                   "creature a { }\ncreature z { }\n"
                   "a.hp = 0\nbegin encounter\na.hp = 3\na.hp = 0\na.hp = 0\nprint \"still\"\na.hp = 2\n"
                   "apply stone to z\nz.hp = 1\nremove stone from z\nend encounter\nz.hp = 0\nprint \"over\"\n");
    /* out before the encounter, back in it by a stat set; out and back by
       a condition; a change that leaves it out, or one outside the
       encounter, tells nothing */
    lines_in_order(r, "back: a", "out: a", "still", "back: a", "z is stone", "out: z", "stone on z ended", "back: z",
                   "over", NULL);
    ck_assert_ptr_null(strstr(strstr(r->out, "still"), "out: a"));
    ck_assert_ptr_null(strstr(strstr(r->out, "back: z"), "out: z"));
    done(r);
}
END_TEST

START_TEST(test_play_commands_in_bodies)
{
    run *r = ok(1, BASE "economy { slot standard 1 per turn }\ncondition braced { }\ncondition shaken { }\n"
                        "override initiative { mode static\n score speed\n allow hold }\n"
                        "action strike(t) costs standard { print self, \"strikes\", t }\n"
                        "action ready(t) { hold self strike t on changed(t, _, _, _)\n apply braced to self }\n"
                        "trigger spread { on condition_applied(c, what, src) when what == \"braced\"\n"
                        " do { for o in [a, b] { if o != c { apply shaken to o } } } }\n"
                        "creature a { speed 3 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                        "a: ready b\nnext\nb.speed = 5\n");
    lines_in_order(r, "a holds strike b until changed(b, _, _, _)", "a is braced", "b is shaken", "b's turn",
                   "a takes the held action", "a strikes b", NULL);
    done(r);
}
END_TEST

START_TEST(test_check_term_label)
{
    run *r = ok(1, BASE "check hit(a, t, penalty) = d20 + a.speed + penalty { label penalty \"range penalty\" }\n"
                        "creature a { speed 2 }\nprint hit(a, a, -3) > 0\n");
    lines_in_order(r, "+ speed 2 - range penalty 3 =", NULL);
    absent(r, "- penalty 3");
    done(r);
}
END_TEST

START_TEST(test_answers_for_one_use_queue)
{
    run *r = ok(1, "ruling lucky \"Lucky?\" { answer yes_no }\n"
                   "ruling dc \"DC?\" { answer number\n asked per game }\n"
                   "answer lucky yes\nanswer lucky no\nanswer dc 10\nanswer dc 15\n"
                   "print lucky, lucky, dc, dc\n");
    lines_in_order(r, "true false 15 15", NULL);
    done(r);
}
END_TEST

START_TEST(test_condition_title_in_the_transcript)
{
    run *r = ok(1, BASE "condition sick \"summoning sick\" { forbid rest }\n"
                        "action rest(t) { print \"rests\" }\n"
                        "creature a { speed 2 }\napply sick to a\na: rest a\nremove sick from a\nprint has(a, sick)\n");
    lines_in_order(r, "a is summoning sick", "a cannot rest a: a is summoning sick", "summoning sick on a ended",
                   "false", NULL);
    absent(r, "a is sick");
    done(r);
}
END_TEST

START_TEST(test_requires_else_gives_the_refusal)
{
    run *r = ok(1, BASE "action rest(t) { requires self.speed > 5 else \"only the swift rest\"\n print \"rests\" }\n"
                        "action wait(t) { requires self.speed > 5\n print \"waits\" }\n"
                        "condition hale { requires self.speed > 5 else \"too slow to be hale\" }\n"
                        "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                        "a: rest b\na: wait b\napply hale to a\na.speed = 9\na: rest b\n");
    lines_in_order(r, "a cannot rest b: only the swift rest", "a cannot wait b: it requires self.speed > 5",
                   "a cannot be hale: too slow to be hale", "rests", NULL);
    done(r);
}
END_TEST

START_TEST(test_cancel_stops_the_action)
{
    run *r = ok(1, BASE "action shoot(target) { target creature\n emit aimed(self, target)\n print \"it lands\" }\n"
                        "trigger deflect { on aimed(a, t)\n automatic\n do { print \"deflected\"\n cancel() } }\n"
                        "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                        "a: shoot b\nprint \"after\"\n");
    lines_in_order(r, "a: shoot b", "deflected", "a's shoot has no further effect", "after", NULL);
    absent(r, "it lands");
    done(r);
}
END_TEST

START_TEST(test_condition_ends_on_event)
{
    run *r = ok(1, BASE "condition hidden { ends on attacked(who) when who == self }\n"
                        "action strike(target) { target creature\n emit attacked(self) }\n"
                        "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n"
                        "apply hidden to a\napply hidden to b\na: strike b\nprint has(a, hidden), has(b, hidden)\n");
    lines_in_order(r, "hidden on a ended", "false true", NULL);
    done(r);
}
END_TEST

START_TEST(test_hold_fires_on_the_event_and_moves)
{
    run *r = ok(1, "stat speed = 0\ninitiative { mode static\n score speed\n order highest first\n allow hold moves }\n"
                   "action strike(target) { target creature\n print self, \"strikes\", target }\n"
                   "action walk { emit walked(self) }\n"
                   "creature a { speed 3 }\ncreature b { speed 2 }\ncreature c { speed 1 }\n"
                   "begin encounter\nroll initiative\nhold a strike b on walked(b)\nnext\nb: walk\n"
                   "next\nnext\nnext\n");
    lines_in_order(r, "a holds strike b until walked(b)", "b's turn", "a takes the held action", "a strikes b",
                   "a moves after b", "c's turn", "round 2: b's turn", "a's turn", NULL);
    absent(r, "a moves after b\na's turn"); /* no second turn in round 1 */
    done(r);
}
END_TEST

START_TEST(test_hold_only_some_slots)
{
    run *r = ok(1, "stat speed = 0\neconomy { slot standard 1 per turn\n slot free any per turn }\n"
                   "initiative { mode static\n score speed\n order highest first\n"
                   "§ \"Readying\"\n allow hold only standard }\n"
                   "action strike(target) costs standard { target creature\n print self, \"strikes\", target }\n"
                   "action shout costs free { print self, \"shouts\" }\n"
                   "action walk { emit walked(self) }\n"
                   "creature a { speed 3 }\ncreature b { speed 2 }\n"
                   "begin encounter\nroll initiative\nhold a shout on walked(b)\nhold a strike b on walked(b)\n"
                   "next\nb: walk\n");
    lines_in_order(r, "a cannot hold shout: only an action that costs standard may be held (§ \"Readying\")",
                   "a holds strike b until walked(b)", "b's turn", "a takes the held action", "a strikes b", NULL);
    absent(r, "a shouts");
    done(r);
}
END_TEST

/* A held action's pattern matches the event's arguments by value, as `==`
   does: a list built anew, a roll of 20 for the number 20. */
static run *hold_for_walk(const char *walked_how)
{
    char text[1024];
    snprintf(text, sizeof text,
             "stat speed = 0\ninitiative { mode static\n score speed\n order highest first\n allow hold }\n"
             "action strike(target) { target creature\n print self, \"strikes\", target }\n"
             "action walk { emit walked(self, [1, \"%s\"], roll 1d1 + 19) }\n"
             "creature a { speed 3 }\ncreature b { speed 2 }\n"
             "begin encounter\nroll initiative\nhold a strike b on walked(b, [1, \"far\"], 20)\nnext\nb: walk\n",
             walked_how);
    return ok(1, text);
}

START_TEST(test_hold_pattern_matches_by_value)
{
    run *r = hold_for_walk("far");
    lines_in_order(r, "a holds strike b until walked(b, [1, far], 20)", "b's turn", "a takes the held action",
                   "a strikes b", NULL);
    done(r);
    r = hold_for_walk("near");
    absent(r, "a strikes b");
    done(r);
}
END_TEST

/* A held action whose own cost can be paid but not the hold's on top of it
   is refused as a whole: the slot its own cost took is given back. */
START_TEST(test_refused_held_action_pays_nothing)
{
    run *r = ok(1, "stat speed = 0\neconomy { slot main 1 per round\n slot move 1 per round }\n"
                   "exchange main -> move\n"
                   "initiative { mode static\n score speed\n order highest first\n allow hold costs move }\n"
                   "action strike(target) costs main { target creature\n print self, \"strikes\", target }\n"
                   "action walk costs move { emit walked(self) }\n"
                   "creature a { speed 2 }\ncreature b { speed 1 }\n"
                   "begin encounter\nroll initiative\nhold a strike b on walked(b)\na: walk\nnext\nb: walk\n"
                   "print left(a, main), left(a, move)\n");
    lines_in_order(r, "a holds strike b until walked(b)", "a takes the held action", "a cannot strike b: no move left",
                   "1 0", NULL);
    absent(r, "a strikes b");
    done(r);
}
END_TEST

/* --- rulings -------------------------------------------------------------------------------- */

START_TEST(test_rulings_answered_defaulted_and_per_creature)
{
    run *r = ok(1, "ruling cover_here \"Is there cover?\" { answer yes_no }\n"
                   "ruling dc \"What is the DC?\" { answer number\n default 15 }\n"
                   "ruling brave \"Is this creature brave?\" { answer yes_no\n asked per creature }\n"
                   "creature a { }\ncreature b { }\n"
                   "answer cover_here yes\nanswer brave no\nanswer brave yes for b\n"
                   "procedure q(c) { return brave }\n"
                   "print cover_here, dc\nprint a, b\nexplain\n");
    lines_in_order(r, "true 15", NULL);
    done(r);
}
END_TEST

/* --- the grid ------------------------------------------------------------------------------ */

#define GRID(diag)                                                                        \
    "space grid { square 5 ft\n diagonal " diag "\n reach melee\n cover from corners }\n" \
    "range melee = 5 ft\n"

START_TEST(test_grid_distance_rules)
{
    run *r = ok(1, GRID("1.5") "creature a { }\ncreature b { }\nplace a at a1\nplace b at c3\n"
                               "print distance(a, b)\nprint distance(square_of(a), square_of(b)), adjacent(a, b)\n");
    lines_in_order(r, "15 ft\n", "15 ft false", NULL); /* two diagonals at 1.5 squares */
    done(r);
    r = ok(1, GRID("alternate") "creature a { }\ncreature b { }\nplace a at a1\nplace b at d4\nprint distance(a, b)\n");
    lines_in_order(r, "20 ft\n", NULL); /* 1, 2, 1 squares */
    done(r);
    r = ok(1, GRID("1") "creature a { }\ncreature b { }\nplace a at a1\nplace b at b2\nprint distance(a, b), "
                        "adjacent(a, b)\n");
    lines_in_order(r, "5 ft true", NULL);
    done(r);
}
END_TEST

START_TEST(test_blocked_squares)
{
    /* blocked(): a wall under a square, or under any square of a footprint */
    run *r = ok(1, "stat size = 1\nspace grid { square 5 ft\n occupies size }\ncreature a { }\ncreature b { size 2 }\n"
                   "place a at a1\nplace b at c1\nprint blocked(a), blocked(b), blocked(B2)\n"
                   "wall d2\nwall b2\nprint blocked(a), blocked(b), blocked(B2), blocked(square_of(b))\n");
    lines_in_order(r, "false false false", "false true true false", NULL);
    done(r);
}
END_TEST

START_TEST(test_line_of_sight_and_cover_from_corners)
{
    /* shock: some corners hidden is half cover; no line at all is no sight */
    run *r = ok(1, GRID("1") "creature a { }\ncreature b { }\ncreature c { }\n"
                             "place a at A3\nplace b at D2\nplace c at F3\nwall C3\nwall E1 to E5\n"
                             "print cover(a, b), sees(a, c), cover(a, c)\n");
    lines_in_order(r, "half false unseen", NULL);
    done(r);
    r = ok(1, GRID("1") "creature a { }\ncreature b { }\nplace a at a1\nplace b at e1\nprint cover(a, b)\n");
    lines_in_order(r, "none", NULL);
    done(r);
}
END_TEST

/* A look lists the walls near both creatures once for its 25 lines: with
   32 walls near (the list) and 34 (too many to list: every marked square
   is asked), a clear line is found, and a block of walls across every
   line hides each from the other. */
START_TEST(test_sight_among_many_walls)
{
    const char *walls = "space grid { square 5 ft }\ncreature a { }\ncreature b { }\nplace a at A1\nplace b at L12\n"
                        "wall A5 to A12\nwall B8 to B12\nwall C10 to C12\nwall E1 to L1\nwall H2 to L2\n"
                        "wall J3 to L3\n";
    for (int many = 0; many < 2; many++) {
        char src[512];
        snprintf(src, sizeof src, "%s%sprint sees(a, b), sees(b, a)\nwall E5 to G7\nprint sees(a, b), sees(b, a)\n",
                 walls, many ? "wall K4 to L4\n" : "");
        run *r = ok(1, src);
        lines_in_order(r, "true true", "false false", NULL);
        done(r);
    }
}
END_TEST

/* The path-finder reads who stands where, and how big, as it is when the
   walk begins: a creature moved, resized (its stat, a condition the size
   formula reads), or made to share its square since the last walk is seen
   where it is now, and a copy of the world walks on its own board. Row 2
   is a corridor between walls; b stands in a gap above it at C1, out of
   the way at size 1 and across it (C2, D2) at size 2. */
#define WALKWAY                                                              \
    "stat size = 1\nstat ghost = false\ncondition huge { }\n"                \
    "space grid { square 5 ft\n occupies size + (has(self, huge) ? 1 : 0)\n" \
    " share when self.ghost }\n"                                             \
    "creature a side one { }\ncreature b side two { }\n"                     \
    "wall A1 to B1\nwall D1 to Z1\nwall A3 to Z3\nplace a at A2\nplace b at C1\n"

/* A walk's search reads the map's marks as they are when it begins (a wall
   or difficult ground marked between two walks counts in the next), goes
   around the map's top and left edge, not off it, and gives the nearest
   square it can reach when the goal is walled off; its costs are exact
   whether its heap packs a cost with its tie-break (small costs) or keeps
   them apart (a diagonal of 12 places). */
START_TEST(test_walk_sees_marks_and_edges)
{
    run *r = ok(1, "space grid { square 5 ft }\ncreature a { }\nplace a at A1\nprint walk(a, E1, nothing)\n"
                   "wall B1 to B2\nprint walk(a, A1, nothing)\nterrain difficult A2 to A3\n"
                   "print walk(a, C1, nothing)\nprint walk(a, A3, nothing)\nwall A2 to B2\n"
                   "print walk(a, A1, nothing)\nprint square_of(a)\n");
    lines_in_order(r, "a moves A1 -> E1 (20 ft)", "a moves E1 -> A1 (25 ft)", "a moves A1 -> C1 (25 ft)",
                   "a moves C1 -> A3 (15 ft)", "0 ft", "A3", NULL);
    done(r);
    r = ok(1, "space grid { square 5 ft\n diagonal 1.000000000001\n difficult 3 on entering }\ncreature a { }\n"
              "place a at A1\nterrain difficult D4\nprint walk(a, D4, nothing)\nprint walk(a, A1, nothing)\n");
    lines_in_order(r, "a moves A1 -> D4 (25.000000000025 ft)", "a moves D4 -> A1 (15.000000000015 ft)", NULL);
    done(r);
}
END_TEST

/* A creature's footprint is kept between two changes of the state of
   play: worked out again after a resize by its stat, by a condition
   applied and removed, and in a copy of the world (which starts without
   any); never kept when its formula rolls. */
START_TEST(test_footprint_kept_until_the_state_changes)
{
    /* b stands in C1: E2 is 10 ft away, 5 ft at a side of 2, 0 ft at 3 */
    run *r = ok(1, WALKWAY "print distance(b, E2)\nprint distance(b, E2)\nb.size = 3\nprint distance(b, E2)\n"
                           "b.size = 1\nprint distance(b, E2)\napply huge to b\nprint distance(b, E2)\n"
                           "remove huge from b\nprint distance(b, E2)\nplace b at F2\nprint distance(b, E2)\n");
    lines_in_order(r, "10 ft", "10 ft", "0 ft", "10 ft", "5 ft", "10 ft", "5 ft", NULL);
    vm *v = r->v;
    int a = world_find_creature(v, "a"), b = world_find_creature(v, "b");
    ck_assert_int_eq(grid_footprint(v, b), 1);
    ck_assert_ptr_nonnull(v->world->cb.footprints); /* kept */
    int size = program_decl_index(r->p, program_find_decl(r->p, DK_STAT, program_find_string(r->p, "size")));
    ck_assert(world_set_stat(v, b, size, value_int(2), (span){0}));
    ck_assert_int_eq(grid_footprint(v, b), 2);
    ck_assert_int_eq(grid_footprint(v, a), 1);
    /* a copy starts without: grown there, not in the original */
    program *p = program_clone(r->p);
    ck_assert_ptr_nonnull(p);
    vm *copy = world_clone(v, p);
    ck_assert_ptr_nonnull(copy);
    ck_assert_ptr_null(copy->world->cb.footprints);
    ck_assert_int_eq(grid_footprint(copy, b), 2);
    ck_assert(world_set_stat(copy, b, size, value_int(4), (span){0}));
    ck_assert_int_eq(grid_footprint(copy, b), 4);
    ck_assert_int_eq(grid_footprint(v, b), 2);
    world_close(copy);
    program_free(p);
    done(r);
    /* a formula that rolls is rolled each time it is asked */
    r = ok(1, "space grid { occupies roll d3 }\ncreature a { }\nplace a at A1\nprint 1\n");
    uint64_t before = r->v->rng.s[0];
    int32_t first = grid_footprint(r->v, 0);
    ck_assert(first >= 1 && first <= 3);
    uint64_t once = r->v->rng.s[0];
    ck_assert(once != before);
    grid_footprint(r->v, 0);
    ck_assert(r->v->rng.s[0] != once);
    done(r);
}
END_TEST

/* Where `occupies` is a formula of stats alone, a footprint is also kept
   with the stats it read: across another's change, a move and a turn of
   play (no step of the formula is run), until the creature's own size
   changes. */
START_TEST(test_footprint_kept_with_its_stats)
{
    run *r = ok(1, "stat size = 1\nstat hp = 5\nspace grid { square 5 ft\n occupies size }\n"
                   "creature a { }\ncreature b { size 2 }\nplace a at A1\nplace b at C1\nprint distance(a, b)\n");
    vm *v = r->v;
    int a = world_find_creature(v, "a"), b = world_find_creature(v, "b");
    int size = program_decl_index(r->p, program_find_decl(r->p, DK_STAT, program_find_string(r->p, "size")));
    int hp = program_decl_index(r->p, program_find_decl(r->p, DK_STAT, program_find_string(r->p, "hp")));
    ck_assert_int_eq(grid_footprint(v, b), 2);
    ck_assert(world_set_stat(v, a, hp, value_int(3), (span){0})); /* another's change: the version moves on */
    int64_t steps = v->steps_left;
    ck_assert_int_eq(grid_footprint(v, b), 2);
    ck_assert_int_eq(v->steps_left, steps);                       /* kept: no step taken */
    ck_assert(world_set_stat(v, b, hp, value_int(3), (span){0})); /* its own change that is not its size */
    ck_assert_int_eq(grid_footprint(v, b), 2);
    ck_assert(world_set_stat(v, b, size, value_int(3), (span){0}));
    steps = v->steps_left;
    ck_assert_int_eq(grid_footprint(v, b), 3);
    ck_assert_int_lt(v->steps_left, steps); /* worked out again */
    done(r);
}
END_TEST

START_TEST(test_walk_sees_the_board_as_it_is)
{
    /* resized by its stat, then by a condition applied and removed, then
       sharing its square: each walk sees it */
    run *r = ok(1, WALKWAY "print walk(a, F2, nothing)\nb.size = 2\nprint walk(a, A2, nothing)\n"
                           "b.size = 1\nprint walk(a, A2, nothing)\napply huge to b\nprint walk(a, F2, nothing)\n"
                           "remove huge from b\nprint walk(a, F2, nothing)\n"
                           "b.size = 2\nprint walk(a, A2, nothing)\nb.ghost = true\nprint walk(a, A2, nothing)\n");
    lines_in_order(r, "a moves A2 -> F2 (25 ft)", "a moves F2 -> E2 (5 ft)", "a moves E2 -> A2 (20 ft)",
                   "a moves A2 -> B2 (5 ft)", "a moves B2 -> F2 (20 ft)", "a moves F2 -> E2 (5 ft)",
                   "a moves E2 -> A2 (20 ft)", NULL);
    done(r);
    /* moved: b walks into the corridor and on out of a's way */
    r = ok(1, WALKWAY "wall C1\nplace b at D2\nprint walk(a, H2, nothing)\nprint walk(b, H2, nothing)\n"
                      "print walk(a, G2, nothing)\n");
    lines_in_order(r, "a moves A2 -> C2 (10 ft)", "b moves D2 -> H2 (20 ft)", "a moves C2 -> G2 (20 ft)", NULL);
    done(r);
    /* a copy: b grown in the copy blocks there, not in the original */
    r = ok(1, WALKWAY "print 1\n");
    program *p = program_clone(r->p);
    ck_assert_ptr_nonnull(p);
    vm *copy = world_clone(r->v, p);
    ck_assert_ptr_nonnull(copy);
    int a = world_find_creature(copy, "a"), b = world_find_creature(copy, "b");
    int size = program_decl_index(p, program_find_decl(p, DK_STAT, program_find_string(p, "size")));
    ck_assert(world_set_stat(copy, b, size, value_int(2), (span){0}));
    value moved;
    int how = program_intern(p, "walk", 4);
    ck_assert(grid_walk(copy, a, value_square(5, 1), value_nil(), false, how, NULL, 0, &moved, (span){0}));
    ck_assert_int_eq(copy->world->creatures[a].x, 1); /* B2: b stands in C2 */
    ck_assert(grid_walk(r->v, a, value_square(5, 1), value_nil(), false, how, NULL, 0, &moved, (span){0}));
    ck_assert_int_eq(r->v->world->creatures[a].x, 5); /* F2: the original's b is still small */
    world_close(copy);
    program_free(p);
    done(r);
}
END_TEST

START_TEST(test_walk_provokes_by_square)
{
    run *r = ok(1, BASE GRID("1.5") "economy { slot move 1 per turn\n slot reaction 1 per round }\n"
                                    "action walk(dest) costs move { walk(self, dest, 30 ft) }\n"
                                    "action step(dest) { walk(self, dest, 5 ft, step) }\n"
                                    "trigger aoo { on leaves_threatened(mover, foe, how, n) unless how == step\n"
                                    " reaction of foe costs reaction\n do { print foe, \"strikes\", mover } }\n"
                                    "creature a side one { speed 2 }\ncreature b side two { speed 1 }\n"
                                    "begin encounter\nroll initiative\nplace a at b2\nplace b at c2\n"
                                    "a: step b1\na: walk f5\nshow map\n");
    lines_in_order(r, "a moves B2 -> B1 (5 ft)", "b takes aoo on a", "b strikes a", "a moves B1 ->", NULL);
    /* the step did not provoke */
    const char *first = strstr(r->out, "b strikes a");
    ck_assert(strstr(r->out, "a moves B2 -> B1") < first);
    done(r);
}
END_TEST

START_TEST(test_walk_budget_and_difficult_terrain)
{
    run *r = ok(1, "space grid { square 5 ft\n difficult 2 }\ncreature a { }\nplace a at a1\n"
                   "terrain difficult b1 to c1\nprint walk(a, E1, 20 ft)\n");
    /* a1 -> b1 5, b1 -> c1 10 (leaving difficult), c1 -> d1 10: only 15 fits */
    /* A1 -> B1 5 ft, B1 -> C1 10 ft (leaving difficult), C1 -> D1 10 ft: 20 ft
       reaches B1 only by the straight line; the path may avoid the mud */
    ck_assert_msg(strstr(r->out, "a moves A1 -> "), "%s", r->out);
    done(r);
}
END_TEST

/* A corridor along row 1 (walls below it) with mud at C1: what a walk
   costs depends on whether the rules charge the square left or entered. */
#define CORRIDOR(clause)                                                       \
    "space grid { square 5 ft\n " clause " }\ncreature a { }\nplace a at a1\n" \
    "wall a2 to h2\nterrain difficult c1\n"

START_TEST(test_difficult_on_leaving_or_entering)
{
    /* leaving (the default): A1 -> B1 5, B1 -> C1 5; out of C1 costs 10 */
    run *r = ok(1, CORRIDOR("difficult 2") "print walk(a, C1, nothing)\nprint walk(a, E1, nothing)\n");
    lines_in_order(r, "a moves A1 -> C1 (10 ft)", "a moves C1 -> E1 (15 ft)", NULL);
    done(r);
    r = ok(1, CORRIDOR("difficult 2 on leaving") "print walk(a, C1, nothing)\n");
    lines_in_order(r, "a moves A1 -> C1 (10 ft)", NULL);
    done(r);
    /* entering: into C1 costs 10, out of it 5 */
    r = ok(1, CORRIDOR("difficult 2 on entering") "print walk(a, C1, nothing)\nprint walk(a, E1, nothing)\n");
    lines_in_order(r, "a moves A1 -> C1 (15 ft)", "a moves C1 -> E1 (10 ft)", NULL);
    done(r);
    /* a limit of 10 ft stops short of the mud it cannot pay to enter */
    r = ok(1, CORRIDOR("difficult 3 on entering") "print walk(a, E1, 10 ft)\n");
    lines_in_order(r, "a moves A1 -> B1 (5 ft)", NULL);
    done(r);
}
END_TEST

/* A walk on a resource of distance spends what it moves; a second goes on
   from what is left; the value read as a limit spends nothing; a move at
   the table that the rest cannot pay is refused, nothing spent. */
START_TEST(test_walks_spend_a_budget)
{
    run *r = ok(1, CORRIDOR("difficult 2 on entering") "resource movement: distance start 25 ft\n"
                                                       "print walk(a, B1, movement), a.movement\n"
                                                       "print walk(a, C1, a.movement), a.movement\n"
                                                       "print walk(a, D1, movement), a.movement\n"
                                                       "move a to H1 spending movement\nprint a.movement\n"
                                                       "move a to E1 spending movement\nprint a.movement\n");
    lines_in_order(r, "a moves A1 -> B1 (5 ft, 20 ft left)", "5 ft 20 ft", "a moves B1 -> C1 (10 ft)\n", "10 ft 20 ft",
                   "a moves C1 -> D1 (5 ft, 15 ft left)", "5 ft 15 ft",
                   "a cannot move to H1: the way costs 20 ft, and a has 15 ft of movement left", "15 ft",
                   "a moves D1 -> E1 (5 ft, 10 ft left)", "10 ft", NULL);
    done(r);
}
END_TEST

/* An action costing an amount of a resource of distance pays it, and is
   refused, saying so, when too little is left. */
START_TEST(test_cost_in_a_unit)
{
    run *r = ok(1, "resource movement: distance max 30 ft\naction stand costs 15 ft of movement { }\n"
                   "creature a { }\na: stand\nprint a.movement\na.movement -= 5 ft\na: stand\nprint a.movement\n");
    lines_in_order(r, "a: stand", "15 ft", "a cannot stand: not enough movement (a has 10 ft, needs 15 ft)", "10 ft",
                   NULL);
    done(r);
}
END_TEST

/* walking up to a creature on the board's edge never ends off the board
   (there is no row 0 and no column before A) */
START_TEST(test_walk_stays_on_the_board)
{
    run *r = ok(1, "space grid { square 5 ft }\ncreature a { }\ncreature b { }\nplace a at a1\nplace b at f1\n"
                   "print walk(a, b, 20 ft)\n");
    lines_in_order(r, "a moves A1 -> E", NULL);
    ck_assert_msg(!strstr(r->out, "E0"), "%s", r->out);
    done(r);
}
END_TEST

/* A path longer than any fixed buffer (a winding corridor of about 5,000
   squares) is walked from its start: 20 ft of it, not none. */
START_TEST(test_walk_a_long_path_from_its_start)
{
    size_t cap = 100000, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len += (size_t)snprintf(text + len, cap - len, "space grid { square 5 ft\n diagonal 1 }\ncreature a { }\n");
    /* walls across rows 2, 4, ... with the gap at alternate ends */
    for (int row = 2; row <= 700; row += 2)
        len += (size_t)snprintf(text + len, cap - len, "wall %s%d to %s%d\n", row % 4 ? "A" : "B", row,
                                row % 4 ? "L" : "M", row);
    snprintf(text + len, cap - len, "place a at A1\nprint walk(a, A701, 20 ft)\nprint square_of(a)\n");
    run *r = ok(1, text);
    lines_in_order(r, "a moves A1 -> E1 (20 ft)", "20 ft", "E1", NULL);
    done(r);
    free(text);
}
END_TEST

/* Pushed as far as the distance says, past any fixed number of squares. */
START_TEST(test_push_goes_the_whole_distance)
{
    run *r = ok(1, "space grid { square 5 ft }\ncreature a { }\ncreature b { }\nplace a at a1\nplace b at b1\n"
                   "print push(b, a, 6000 ft)\nprint square_of(b)\n");
    lines_in_order(r, "b moves B1 -> ", "6000 ft", NULL);
    done(r);
}
END_TEST

/* The map draws every creature it shows, and its key names them all. */
START_TEST(test_map_shows_every_creature)
{
    char text[20000];
    size_t len = (size_t)snprintf(text, sizeof text, "space grid { square 5 ft }\ncreature g x300 { }\n");
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "place g_%d at %c%d\n", i + 1, 'A' + i % 20, 1 + i / 20);
    snprintf(text + len, sizeof text - len, "show map\n");
    run *r = ok(1, text);
    /* row 15 is full, and the key ends with the last of them */
    lines_in_order(r, " 15 g", " g_300   (# blocked, ~ difficult)", NULL);
    absent(r, " 15 g0 g1 g2 g3 g4 g5 g6 g7 g8 g9 g0 g1 g2 g3 g4 g5 g6 g7 g8 .");
    done(r);
}
END_TEST

/* A creature beyond the part of the map drawn is counted, not left out
   without a word */
START_TEST(test_map_counts_creatures_beyond_it)
{
    run *r = ok(1, "space grid { square 5 ft }\ncreature a { }\ncreature b { }\nplace a at A1\nplace b at CA90\n"
                   "show map\n");
    lines_in_order(r, "a  a   (# blocked, ~ difficult)", "(1 creature beyond the part of the map shown, A1 to BI61)",
                   NULL);
    done(r);
}
END_TEST

/* On a grid there are no zones: enter() says so, not "no zone" */
START_TEST(test_no_zones_on_a_grid)
{
    run *r = play(1, "space grid { square 5 ft }\ncreature a { }\nplace a at B2\nprint enter(a, \"hall\")\n");
    ck_assert(!r->ok);
    ck_assert_msg(strstr(r->v->error.s, "these rules use a grid, not zones, so there is no zone 'hall'"), "%s",
                  r->v->error.s);
    done(r);
}
END_TEST

/* a friend's square may be passed through but not ended in; an enemy's
   may not be entered at all */
START_TEST(test_walk_through_friends_not_enemies)
{
    run *r = play(1, "space grid { square 5 ft\n diagonal 1 }\n"
                     "creature a side x { }\ncreature b side x { }\ncreature c side y { }\n"
                     "place a at A1\nplace b at B1\nplace c at B2\n"
                     "move a to C1\nmove a to B1\nprint square_of(a)\nmove a to B3 via B2\n");
    ck_assert(!r->ok);
    lines_in_order(r, "a moves A1 -> C1 (10 ft)", "a cannot end its move in B1, where b stands", "C1", NULL);
    ck_assert_str_eq(r->v->error.s, "the path runs through B2, where c stands: no one passes through an enemy");
    done(r);
}
END_TEST

/* `share when`: a creature for whom it holds does not keep others out of
   its square, friend or enemy; everyone else still does. */
START_TEST(test_share_when_lets_others_in)
{
    const char *head = "stat mount = false\nspace grid { square 5 ft\n diagonal 1\n share when self.mount }\n"
                       "creature a side x { }\ncreature steed side y { mount true }\ncreature c side y { }\n"
                       "creature d side x { }\n";
    char text[1024];
    /* through and into an enemy's riderless steed; not into a friend's square, nor through an enemy */
    snprintf(text, sizeof text, "%s%s", head,
             "place a at A1\nplace steed at B1\nplace c at B2\nplace d at D1\n"
             "move a to C1 via B1\nmove a to B1\nprint square_of(a), square_of(steed)\nmove a to D1\n"
             "print square_of(a)\nmove a to B3 via B2\n");
    run *r = play(1, text);
    ck_assert(!r->ok);
    lines_in_order(r, "a moves A1 -> C1 (10 ft)", "a moves C1 -> B1 (5 ft)", "B1 B1",
                   "a cannot end its move in D1, where d stands", "B1", NULL);
    ck_assert_str_eq(r->v->error.s, "the path runs through B2, where c stands: no one passes through an enemy");
    done(r);
    /* placing and pushing into the steed's square; the steed may not be placed on another */
    snprintf(text, sizeof text, "%s%s", head,
             "place steed at C1\nplace a at C1\nplace c at A1\nplace d at B1\nmove a to E1\n"
             "print push(d, c, 10 ft)\nplace steed at D1\n");
    r = play(1, text);
    ck_assert(!r->ok);
    lines_in_order(r, "a moves C1 -> E1 (10 ft)", "d moves B1 -> D1 (10 ft)", "10 ft", NULL);
    ck_assert_str_eq(r->v->error.s, "d already stands in D1");
    done(r);
    /* without the clause, nothing changes */
    r = play(1, "stat mount = false\ncreature a side x { }\ncreature steed side y { mount true }\n"
                "place a at A1\nplace steed at B1\nmove a to B1\nprint square_of(a)\n");
    lines_in_order(r, "a cannot end its move in B1, where steed stands", "A1", NULL);
    done(r);
}
END_TEST

/* placed(): on the grid or not; square_of() of one off the map is an error */
START_TEST(test_placed_tells_who_is_on_the_map)
{
    run *r = play(1, "creature a { }\ncreature b { }\nplace a at B2\nprint placed(a), placed(b)\nprint square_of(b)\n");
    ck_assert(!r->ok);
    lines_in_order(r, "true false", NULL);
    ck_assert_str_eq(r->v->error.s, "b is not on the map");
    done(r);
}
END_TEST

/* Squares start at A1: a push stops at the edge of the map. */
START_TEST(test_pushes_stay_on_the_map)
{
    run *r = ok(1, "creature b { }\ncreature c { }\n"
                   "place b at B3\nplace c at C4\nprint push(b, c, 20 ft), square_of(b)\n");
    lines_in_order(r, "b moves B3 -> A2 (5 ft)", "5 ft A2", NULL);
    done(r);
}
END_TEST

START_TEST(test_push_stops_at_walls)
{
    run *r = ok(1, GRID("1") "creature a { }\ncreature b { }\nplace a at a1\nplace b at b1\nwall e1\n"
                             "print push(b, a, 20 ft)\n");
    lines_in_order(r, "b moves B1 -> D1 (10 ft)", "10 ft", NULL);
    done(r);
}
END_TEST

/* A run-time error inside a module of the library is the user's call:
   error_at is the call in the user's text, error_inside where it arose,
   error_in the library's chunk entered; inside one's own text, as it is. */
START_TEST(test_library_error_is_reported_at_the_call)
{
    run *r = play(1, "use chains\nprint chain(d4)\n");
    ck_assert(!r->ok);
    ck_assert_ptr_nonnull(r->v->error_in);
    ck_assert_str_eq(r->v->error_in->name, "procedure chain");
    ck_assert(!r->p->sources[r->v->error_at.source]->library);
    ck_assert(r->p->sources[r->v->error_inside.source]->library);
    ck_assert_uint_eq(r->v->error_at.start, strlen("use chains\nprint "));
    done(r);
    r = play(1, "procedure halve(x) { return x / 0 }\nprint halve(3)\n");
    ck_assert(!r->ok);
    ck_assert_ptr_null(r->v->error_in);
    ck_assert_uint_eq(r->v->error_at.start, strlen("procedure halve(x) { return "));
    done(r);
}
END_TEST

/* What a creature threatens follows its footprint as it is now: the
   squares next to any square of it, not its own squares. */
START_TEST(test_large_creature_threatens_around_its_footprint)
{
    run *r = ok(1, "stat size = 1\nspace grid { square 5 ft\n occupies size }\n"
                   "creature a { }\ncreature b { size 2 }\nplace a at A1\nplace b at C1\n"
                   "print threatens(b, a)\nplace a at B3\nprint threatens(b, a), threatens(b, C2), threatens(b, E3)\n"
                   "b.size = 1\nprint threatens(b, a), threatens(b, C2)\n");
    lines_in_order(r, "false\ntrue false true\nfalse true\n", NULL);
    done(r);
}
END_TEST

START_TEST(test_range_counts_diagonals_its_own_way)
{
    /* a small creature's reach weapon loses the corners of the larger
       square: its 10 ft reach counts diagonals as 1.5 after the first */
    run *r = ok(1, "stat small = false\nrange reach = 10 ft { diagonal 1.5 when self.small }\n"
                   "space grid { square 5 ft\n reach reach }\n"
                   "creature a { small true }\ncreature b { }\ncreature c { }\nplace a at a1\nplace b at c3\n"
                   "place c at m1\nprint threatens(a, b), threatens(c, N3), threatens(c, O3)\n"
                   "place b at c2\nprint threatens(a, b)\n");
    /* c is not small: the grid's rule (diagonals of 1) reaches o3 */
    lines_in_order(r, "false true true\ntrue\n", NULL);
    done(r);
    /* alternate within the range: 1 + (1 + 2 + 1) squares to E5, 1 + (1 + 1 + 1) to E3 */
    r = ok(1, "range far = 20 ft { diagonal alternate }\nrange plain = 20 ft\n"
              "creature a { }\ncreature b { }\nplace a at a1\nplace b at e5\n"
              "print within(a, b, far), within(a, b, plain)\nplace b at e3\nprint within(a, b, far)\n");
    lines_in_order(r, "false true\ntrue\n", NULL);
    done(r);
}
END_TEST

/* --- zones ---------------------------------------------------------------------------------- */

START_TEST(test_zone_ranges_follow_relations)
{
    run *r = ok(1, "relation band(a, b) { group max 3; within zone }\nrelation fight(a, b) { group; within zone }\n"
                   "space zones { }\n"
                   "range short { within fight, band }\nrange medium { within zone }\nrange long { apart 1 zone }\n"
                   "zone yard\nzone keep next to yard\n"
                   "creature a side p { }\ncreature b side p { }\ncreature c side p { }\ncreature d side p { }\n"
                   "creature e side q { }\n"
                   "place a in yard\nplace b in yard\nplace c in yard\nplace d in yard\nplace e in keep\n"
                   "relate(band, b, a)\nrelate(band, c, a)\nrelate(band, d, a)\n"
                   "print range_between(a, b), range_between(a, d), range_between(a, e)\n"
                   "relate(fight, d, c)\nprint range_between(c, d), range_between(a, d)\n");
    lines_in_order(r, "d cannot join a's band: a group holds at most 3", "short medium long", "short medium", NULL);
    done(r);
}
END_TEST

/* A group relation keeps one entry per member: relating moves a creature
   from its group into another's, a group left with one member is none,
   moving to another zone leaves it (within zone), and a copy of the world
   has groups of its own. */
#define SQUADS                                                           \
    "relation squad(m, n) { § \"Squads\"; group max 3; within zone }\n" \
    "space zones { }\nzone yard\nzone keep next to yard\n"               \
    "creature a { }\ncreature b { }\ncreature c { }\ncreature d { }\n"   \
    "place a in yard\nplace b in yard\nplace c in yard\nplace d in yard\n"

START_TEST(test_group_relation_members)
{
    run *r = ok(1, SQUADS "relate(squad, b, a)\nrelate(squad, c, a)\nrelate(squad, d, c)\n"
                          "print related(squad, b, c), partners(squad, d)\n");
    lines_in_order(r, "d cannot join c's squad: a group holds at most 3 (§ \"Squads\")", "true []", NULL);
    int rel = rules_relation(r->p->rules, program_find_string(r->p, "squad"));
    int a = world_find_creature(r->v, "a"), b = world_find_creature(r->v, "b");
    int c = world_find_creature(r->v, "c"), d = world_find_creature(r->v, "d");
    ck_assert_int_eq(r->v->world->cb.nmembers, 3);
    ck_assert_int_eq(groups_of(r->v, rel, d), -1);
    ck_assert_int_eq(groups_of(r->v, rel, a), groups_of(r->v, rel, c));
    /* c moves to a group of its own with d: a and b stay together */
    bool done_ = false;
    ck_assert(groups_relate(r->v, rel, c, d, (span){0}, &done_));
    ck_assert(done_);
    ck_assert(groups_related(r->v, rel, a, b) && groups_related(r->v, rel, c, d));
    ck_assert(!groups_related(r->v, rel, a, c));
    /* b leaves: a is alone, and in no group */
    ck_assert(groups_unrelate(r->v, rel, b, -1, (span){0}, &done_));
    ck_assert(done_);
    ck_assert_int_eq(groups_of(r->v, rel, a), -1);
    ck_assert_int_eq(r->v->world->cb.nmembers, 2);
    /* a copy's groups are its own */
    program *p = program_clone(r->p);
    ck_assert_ptr_nonnull(p);
    vm *copy = world_clone(r->v, p);
    ck_assert_ptr_nonnull(copy);
    ck_assert(groups_related(copy, rel, c, d));
    ck_assert(zones_place(copy, c, program_find_string(p, "keep"), (span){0}));
    ck_assert(!groups_related(copy, rel, c, d));
    ck_assert(groups_related(r->v, rel, c, d)); /* the original is untouched */
    world_close(copy);
    program_free(p);
    done(r);
}
END_TEST

/* A group relation refuses a duration, and a range within it follows the
   groups. */
START_TEST(test_group_relation_range_and_duration)
{
    run *r = ok(1, SQUADS "range close { within squad }\nrange near { within zone }\n"
                          "relate(squad, b, a)\nprint range_between(a, b), range_between(a, c)\n");
    lines_in_order(r, "close near", NULL);
    done(r);
    r = play(1, SQUADS "relate(squad, b, a, 2 rounds)\n");
    ck_assert(!r->ok);
    ck_assert_msg(strstr(r->v->error.s, "squad is a group relation"), "%s", r->v->error.s);
    done(r);
}
END_TEST

/* zones_apart(): zones between two zones through neighbours, nothing when
   no chain joins them, an error for a name that is no zone. */
START_TEST(test_zones_apart)
{
    run *r = ok(1, "space zones { }\nzone yard\nzone keep next to yard\nzone tower next to keep\nzone moor\n"
                   "creature a side p { }\nplace a in yard\n"
                   "print zones_apart(\"yard\", \"yard\"), zones_apart(zone_of(a), \"keep\"), "
                   "zones_apart(\"tower\", \"yard\"), zones_apart(\"yard\", \"moor\")\n");
    lines_in_order(r, "0 1 2 nothing", NULL);
    done(r);
    r = play(1, "space zones { }\nzone yard\nprint zones_apart(\"yard\", \"nowhere\")\n");
    ck_assert(!r->ok);
    ck_assert_msg(strstr(r->v->error.s, "no zone 'nowhere'"), "%s", r->v->error.s);
    done(r);
}
END_TEST

/* A zone has as many neighbours and tags as it is given, and show map
   lists everyone in it. */
START_TEST(test_zone_without_fixed_caps)
{
    char text[20000];
    size_t len = (size_t)snprintf(text, sizeof text, "space zones { }\nzone hub\ncreature g x200 { }\n");
    for (int i = 1; i <= 20; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "zone z%d next to hub with t%d\nzone hub with u%d\n", i,
                                i, i);
    for (int i = 1; i <= 200; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "place g_%d in hub\n", i);
    snprintf(text + len, sizeof text - len, "print zones_apart(\"z1\", \"z20\")\nshow map\n");
    run *r = ok(1, text);
    lines_in_order(r, "2", "hub (next to z1, z2", "z19, z20) [u1, u2", "u19, u20]: g_1, g_2", "g_199, g_200",
                   "z20 (next to hub) [t20]:", NULL);
    done(r);
}
END_TEST

/* `zone NAME with WORD, ...` gives the zone tags of those names, without a
   word said or an event raised; has_tag() and tags() ask them; show map
   keeps them in brackets while they are as declared, and a tag given by
   hand stays apart. */
START_TEST(test_zone_tags_from_declaration)
{
    run *r = ok(1, "space zones { }\ncreature a { }\ntrigger said { on tag_added(x, n); do { print \"added\", n } }\n"
                   "zone yard with open, lit\nzone tower next to yard with high\nzone tower with high, windy\n"
                   "place a in tower\n"
                   "print has_tag(\"tower\", \"high\"), has_tag(zone_of(a), \"windy\"), has_tag(\"yard\", \"high\")\n"
                   "print tags(\"yard\"), tags(\"tower\")\ntag tower \"On Fire\"\nuntag tower \"high\"\n"
                   "tag yard \"open\" with 1 use\nshow map\n");
    lines_in_order(r, "true true false", "[open, lit] [high, windy]", "tower gains the tag \"On Fire\"",
                   "added On Fire", "tower loses the tag \"high\"", "yard renews the tag \"open\" (1 free use)",
                   "yard (next to tower) [lit] tags \"open\" (1 free use):",
                   "tower (next to yard) [windy] tags \"On Fire\": a", NULL);
    absent(r, "added open");
    absent(r, "added high");
    done(r);
}
END_TEST

/* --- relations ------------------------------------------------------------------------------ */

START_TEST(test_relations)
{
    run *r = ok(1, "relation grapple(holder, held) { one per holder }\n"
                   "creature a { }\ncreature b { }\ncreature c { }\n"
                   "print relate(grapple, a, b)\nprint relate(grapple, a, c)\n"
                   "print related(grapple, a, b), partners(grapple, a), holders(grapple, b)\n"
                   "print unrelate(grapple, a, b), related(grapple, a, b)\n");
    lines_in_order(r, "grapple: a is holder, b is held", "true", "a cannot grapple c: already in a grapple as holder",
                   "false", "true [b] [a]", "grapple of a and b ended", "true false", NULL);
    done(r);
}
END_TEST

/* partners() and holders() list every creature in the relation, however many */
/* --- tracks ------------------------------------------------------------------------ */

/* One rule on boxes written as values, `marked` those already marked:
   the boxes it marks, as a string of indices, and what it gives back. */
static int64_t take(absorb_rule rule, const int64_t *vals, const char *marked, int n, int64_t hit, int chosen,
                    char *which)
{
    bool m[16];
    int boxes[16], nb = 0;
    for (int i = 0; i < n; i++)
        m[i] = marked[i] == 'x';
    int64_t left = track_rule_take(rule, vals, m, n, hit, chosen, boxes, &nb);
    for (int i = 0; i < nb; i++)
        which[i] = (char)('0' + boxes[i]);
    which[nb] = '\0';
    return left;
}

START_TEST(test_absorb_whole)
{
    const int64_t stress[] = {1, 2, 3};
    char w[17];
    /* the least box worth the hit, whole */
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, "...", 3, 2, -1, w), 0);
    ck_assert_str_eq(w, "1");
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, ".x.", 3, 2, -1, w), 0);
    ck_assert_str_eq(w, "2");
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, "...", 3, 1, -1, w), 0);
    ck_assert_str_eq(w, "0");
    /* none worth it: nothing marked, all of it back */
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, "..x", 3, 3, -1, w), 3);
    ck_assert_str_eq(w, "");
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, "...", 3, 4, -1, w), 4);
    /* a box chosen must be free and worth the hit */
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, "...", 3, 1, 2, w), 0);
    ck_assert_str_eq(w, "2");
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, "...", 3, 2, 0, w), 2);
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, "..x", 3, 1, 2, w), 1);
    /* nothing to take */
    ck_assert_int_eq(take(ABSORB_WHOLE, stress, "...", 3, 0, -1, w), 0);
    ck_assert_str_eq(w, "");
}
END_TEST

START_TEST(test_absorb_part)
{
    const int64_t cons[] = {2, 4, 6};
    char w[17];
    /* the smallest slot that fits */
    ck_assert_int_eq(take(ABSORB_PART, cons, "...", 3, 1, -1, w), 0);
    ck_assert_str_eq(w, "0");
    ck_assert_int_eq(take(ABSORB_PART, cons, "...", 3, 3, -1, w), 0);
    ck_assert_str_eq(w, "1");
    ck_assert_int_eq(take(ABSORB_PART, cons, ".x.", 3, 3, -1, w), 0);
    ck_assert_str_eq(w, "2");
    /* none fits: the largest free, the rest left over */
    ck_assert_int_eq(take(ABSORB_PART, cons, "...", 3, 8, -1, w), 2);
    ck_assert_str_eq(w, "2");
    ck_assert_int_eq(take(ABSORB_PART, cons, "..x", 3, 5, -1, w), 1);
    ck_assert_str_eq(w, "1");
    ck_assert_int_eq(take(ABSORB_PART, cons, "xxx", 3, 5, -1, w), 5);
    ck_assert_str_eq(w, "");
    /* the caller's slot, up to its value */
    ck_assert_int_eq(take(ABSORB_PART, cons, "...", 3, 5, 0, w), 3);
    ck_assert_str_eq(w, "0");
}
END_TEST

START_TEST(test_absorb_level_and_spread)
{
    const int64_t harm[] = {1, 1, 2, 2, 3, 4};
    char w[17];
    ck_assert_int_eq(take(ABSORB_LEVEL, harm, "......", 6, 1, -1, w), 0);
    ck_assert_str_eq(w, "0");
    ck_assert_int_eq(take(ABSORB_LEVEL, harm, "x.....", 6, 1, -1, w), 0);
    ck_assert_str_eq(w, "1");
    /* its level full: the next level with room */
    ck_assert_int_eq(take(ABSORB_LEVEL, harm, "xx....", 6, 1, -1, w), 0);
    ck_assert_str_eq(w, "2");
    ck_assert_int_eq(take(ABSORB_LEVEL, harm, "xxxx..", 6, 1, -1, w), 0);
    ck_assert_str_eq(w, "4");
    ck_assert_int_eq(take(ABSORB_LEVEL, harm, "xxxxx.", 6, 2, -1, w), 0);
    ck_assert_str_eq(w, "5");
    /* no level at or above with room: the level back */
    ck_assert_int_eq(take(ABSORB_LEVEL, harm, "....xx", 6, 3, -1, w), 3);
    ck_assert_str_eq(w, "");
    ck_assert_int_eq(take(ABSORB_LEVEL, harm, "......", 6, 5, -1, w), 5);
    /* any number of boxes, each its value */
    const int64_t boxes[] = {1, 1, 1, 1};
    ck_assert_int_eq(take(ABSORB_SPREAD, boxes, "....", 4, 3, -1, w), 0);
    ck_assert_str_eq(w, "012");
    ck_assert_int_eq(take(ABSORB_SPREAD, boxes, ".x..", 4, 5, -1, w), 2);
    ck_assert_str_eq(w, "023");
    const int64_t mixed[] = {2, 3};
    ck_assert_int_eq(take(ABSORB_SPREAD, mixed, "..", 2, 1, -1, w), 0);
    ck_assert_str_eq(w, "0");
}
END_TEST

/* Marks belong to the creature: a copy of the world has them and goes
   its own way; a period clears the boxes that name it; out when may read
   a track, and went_out follows a mark. */
START_TEST(test_tracks_marks_clone_and_clear)
{
    run *r = ok(1, "stat speed = 0\n"
                   "period scene { within quest }\nperiod quest { within arc }\nperiod arc\n"
                   "track stress { boxes 2; absorb spread; refresh per scene }\n"
                   "track cons { boxes [2, 4]; absorb part; named; refresh per round, arc }\n"
                   "encounter { out when unmarked(self, stress) == 0 }\n"
                   "initiative { mode static; score speed }\n"
                   "trigger t { on went_out(c); automatic; do { print c, \"is out\" } }\n"
                   "creature a side x { speed 2 }\n"
                   "creature b side y\n"
                   "begin encounter\n"
                   "roll initiative\n"
                   "print absorb(b, cons, 5, \"ribs\")\n"
                   "print absorb(b, stress, 1)\n");
    lines_in_order(r, "b marks cons: [2][4 \"ribs\"]", "1", "b marks stress: [x][ ]", "0", NULL);
    absent(r, "b is out");
    int b = world_find_creature(r->v, "b");
    ck_assert_int_eq((int)r->v->world->creatures[b].nmarks, 2);
    program *p2 = program_clone(r->p);
    ck_assert_ptr_nonnull(p2);
    vm *copy = world_clone(r->v, p2);
    ck_assert_ptr_nonnull(copy);
    ck_assert_int_eq((int)copy->world->creatures[b].nmarks, 2);
    ck_assert_ptr_ne(copy->world->creatures[b].marks, r->v->world->creatures[b].marks);
    int64_t left = -1;
    int t = rules_track(r->p->rules, program_find_string(r->p, "stress"));
    ck_assert_int_ge(t, 0);
    ck_assert(track_absorb(copy, b, t, 1, value_nil(), -1, (span){0}, &left));
    ck_assert_int_eq(left, 0);
    ck_assert_int_eq((int)copy->world->creatures[b].nmarks, 3);
    ck_assert_int_eq((int)r->v->world->creatures[b].nmarks, 2); /* the original is untouched */
    world_close(copy);
    program_free(p2);
    /* the second box clears with the arc only: a round clears nothing of it */
    int cleared = -1;
    ck_assert(tracks_refresh(r->v, PER_ROUND, -1, (span){0}));
    ck_assert_int_eq((int)r->v->world->creatures[b].nmarks, 2);
    ck_assert(tracks_refresh(r->v, PER_DECLARED + 0, -1, (span){0})); /* scene */
    ck_assert_int_eq((int)r->v->world->creatures[b].nmarks, 1);
    ck_assert(tracks_refresh(r->v, PER_DECLARED + 2, -1, (span){0})); /* arc */
    ck_assert_int_eq((int)r->v->world->creatures[b].nmarks, 0);
    ck_assert(track_clear(r->v, b, t, -1, (span){0}, &cleared));
    ck_assert_int_eq(cleared, 0);
    done(r);
    /* marking the last box puts b out */
    r = ok(1, "stat speed = 0\n"
              "track stress { boxes 2; absorb spread }\n"
              "encounter { out when unmarked(self, stress) == 0 }\n"
              "initiative { mode static; score speed }\n"
              "trigger t { on went_out(c); automatic; do { print c, \"is out\" } }\n"
              "creature a side x { speed 2 }\n"
              "creature b side y\n"
              "begin encounter\n"
              "roll initiative\n"
              "print absorb(b, stress, 2)\n");
    lines_in_order(r, "b marks stress: [x][x]", "b is out", NULL);
    done(r);
}
END_TEST

START_TEST(test_tracks_errors_at_run_time)
{
    run *r = play(1, "stat n = 2\n"
                     "track s { boxes self.n }\n"
                     "creature a { n 100 }\n"
                     "print absorb(a, s, 1)\n");
    ck_assert(!r->ok);
    ck_assert_msg(strstr(r->v->error.s, "track s has 0 to 64 boxes, not 100"), "%s", r->v->error.s);
    done(r);
    r = play(1, "track s { boxes 2 }\n"
                "creature a { }\n"
                "print absorb(a, s, 1, nothing, 3)\n");
    ck_assert(!r->ok);
    ck_assert_msg(strstr(r->v->error.s, "track s has 2 boxes; there is no box 3"), "%s", r->v->error.s);
    done(r);
}
END_TEST

/* A track may share its name with a stat: a builtin of tracks reads the
   name as the track, an expression as the stat. */
START_TEST(test_track_named_like_a_stat)
{
    run *r = ok(1, "stat stress = 3\n"
                   "track stress { boxes 2 }\n"
                   "creature k { }\n"
                   "print absorb(k, stress, 1), k.stress, unmarked(k, stress)\n");
    lines_in_order(r, "k marks stress: [x][ ]", "0 3 1", NULL);
    done(r);
}
END_TEST

START_TEST(test_partners_and_holders_of_many)
{
    run *r = ok(1, "relation watch(watcher, watched) { }\ncreature a { }\ncreature b { }\ncreature x x300 { }\n"
                   "for c in creatures() { if c != a and c != b { relate(watch, a, c)\n relate(watch, c, b) } }\n"
                   "print len(partners(watch, a)), len(holders(watch, b))\n");
    lines_in_order(r, "watch: a is watcher, x_300 is watched", "300 300", NULL);
    done(r);
}
END_TEST

/* A creature in many conditions is shown in all of them, in the tracker,
   in show NAME and in show effects (the line was cut at 700 bytes). */
START_TEST(test_show_every_condition)
{
    char text[16384];
    size_t len = (size_t)snprintf(text, sizeof text, "%s", BASE);
    for (int i = 1; i <= 60; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "condition a_rather_long_condition_name_%d { }\n", i);
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "creature a { speed 2 }\ncreature b { speed 1 }\nbegin encounter\nroll initiative\n");
    for (int i = 1; i <= 60; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "apply a_rather_long_condition_name_%d to a\n", i);
    snprintf(text + len, sizeof text - len, "show tracker\nshow a\nshow effects\n");
    run *r = ok(1, text);
    lines_in_order(r, "round 1 - turn 1 of 2", "a_rather_long_condition_name_60 [until removed]\n     1  b",
                   "a: speed 2; a_rather", "a_rather_long_condition_name_60 [until removed]\n", "a: a_rather",
                   "a_rather_long_condition_name_60 [until removed]\n", NULL);
    done(r);
}
END_TEST

/* --- tags and what a side holds ---------------------------------------------------- */

#define TAGS                           \
    "space zones { }\n"                \
    "stat pool = 2 { per side }\n"     \
    "creature kyra side party { }\n"   \
    "creature ogre side enemies { }\n" \
    "zone yard\n"                      \
    "place kyra in yard\n"

/* A side's stat is held to its bounds as a creature's is, a distance too. */
START_TEST(test_side_stat_held_to_its_bounds)
{
    run *r = ok(1, "stat reach: distance = 0 ft in 0 ft..30 ft { per side }\n"
                   "stat pool = 2 in 0..5 { per side }\ncreature a side p { }\n"
                   "p.reach = 50 ft\np.pool = -3\nprint p.reach, p.pool\n");
    lines_in_order(r, "30 ft 0\n", NULL);
    done(r);
}
END_TEST

/* Each kind of holder keeps its own tags; a free use is taken once; a tag
   given again gains uses, not a second entry. */
START_TEST(test_tags_on_each_holder)
{
    run *r =
        ok(1, TAGS "tag yard \"On Fire\" with 1 use\n"
                   "print use_tag(zone_of(kyra), \"On Fire\"), use_tag(\"yard\", \"On Fire\")\n"
                   "print tag(kyra, \"On Fire\", 2), tag(kyra, \"On Fire\", 3), tag_uses(kyra, \"On Fire\")\n"
                   "print tag(party, text(\"Inspired \", 1)), tag(encounter, \"Rain\"), has_tag(enemies, \"Rain\")\n"
                   "print tags(kyra), tags(party), tags(encounter), tags(ogre)\n");
    lines_in_order(r, "yard gains the tag \"On Fire\" (1 free use)", "true false", "true false 5", "true true false",
                   "[On Fire] [Inspired 1] [Rain] []", NULL);
    const struct world *w = r->v->world;
    ck_assert_uint_eq(w->ntags, 4);
    ck_assert_int_eq(w->tags[0].kind, TAG_ON_ZONE);
    ck_assert_int_eq(w->tags[0].uses, 0);
    ck_assert_int_eq(w->tags[1].kind, TAG_ON_CREATURE);
    ck_assert_int_eq(w->tags[1].uses, 5);
    ck_assert_int_eq(w->tags[2].kind, TAG_ON_SIDE);
    ck_assert_int_eq(w->tags[3].kind, TAG_ON_ENCOUNTER);
    done(r);
}
END_TEST

/* A name typed at the table is bounded and one line; uses too. */
START_TEST(test_tag_names_bounded)
{
    char text[512];
    char name[102];
    memset(name, 'x', 101);
    name[101] = '\0';
    snprintf(text, sizeof text, TAGS "tag kyra \"%s\"\n", name + 1); /* 100 bytes: fine */
    run *r = ok(1, text);
    ck_assert_uint_eq(r->v->world->ntags, 1);
    done(r);
    snprintf(text, sizeof text, TAGS "tag kyra \"%s\"\n", name);
    r = play(1, text);
    ck_assert(!r->ok);
    ck_assert_str_eq(r->v->error.s, "tag: a tag's name is at most 100 bytes, not 101");
    ck_assert_uint_eq(r->v->world->ntags, 0);
    done(r);
    r = play(1, TAGS "print tag(kyra, \"a\\nb\")\n");
    ck_assert(!r->ok);
    ck_assert_str_eq(r->v->error.s, "tag(): a tag's name is one line of text, without tabs or line breaks");
    done(r);
    r = play(1, TAGS "print tag(kyra, \"a\", 1001)\n");
    ck_assert(!r->ok);
    ck_assert_str_eq(r->v->error.s, "a tag has 0 to 1000 free uses, not 1001");
    done(r);
}
END_TEST

/* A copy of the world (a simulated run starts from one) holds the same
   tags and side values, its own: changing one leaves the other. */
START_TEST(test_tags_without_end_stop_at_their_limit)
{
    /* tags are found by a look through them all: a rule adding them
       without end stops at 10000, at once */
    run *r = play(1, "creature x { }\nlet i = 0\nrepeat 20000 { tag(x, text(\"t\", i)); i += 1 }\n");
    ck_assert(!r->ok);
    ck_assert_str_eq(r->v->error.s, "too many tags at once (limit is 10000)");
    ck_assert_int_eq((int)r->v->world->ntags, 10000);
    done(r);
}
END_TEST

START_TEST(test_tags_and_sides_copied_whole)
{
    run *r = ok(1, TAGS "tag kyra \"Cornered\" with 2 uses for 3 rounds\nparty.pool = 5\n");
    program *p = program_clone(r->p);
    ck_assert_ptr_nonnull(p);
    vm *copy = world_clone(r->v, p);
    ck_assert_ptr_nonnull(copy);
    ck_assert_uint_eq(copy->world->ntags, 1);
    ck_assert_str_eq(copy->world->tags[0].name, "Cornered");
    ck_assert_ptr_ne(copy->world->tags[0].name, r->v->world->tags[0].name);
    ck_assert_int_eq(copy->world->tags[0].effect, r->v->world->tags[0].effect);
    copy->world->tags[0].uses = 0;
    ck_assert_int_eq(r->v->world->tags[0].uses, 2);
    value x;
    ck_assert(sides_read(copy, 0, program_decl_index(p, program_find_decl(p, DK_STAT, program_find_string(p, "pool"))),
                         &x, (span){0}));
    ck_assert_int_eq(x.num, 5);
    world_close(copy);
    program_free(p);
    done(r);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("combat");
    TCase *i = tcase_create("initiative");
    tcase_add_test(i, test_static_order_ties_keep_creation_order);
    tcase_add_test(i, test_lowest_first);
    tcase_add_test(i, test_reordered_event_and_rules_held_decisions);
    tcase_add_test(i, test_reorder_requirement_asked_of_its_kind);
    tcase_add_test(i, test_forfeit_at_round_start_and_clause_citation);
    tcase_add_test(i, test_ties_by_modifier_then_stat);
    tcase_add_test(i, test_ties_rerolled_until_settled);
    tcase_add_test(i, test_decimal_tiebreak);
    tcase_add_test(i, test_given_roll_out_of_range);
    tcase_add_test(i, test_sides_roll_once_and_party_wins_ties);
    tcase_add_test(i, test_forty_rolls_entered_at_once);
    tcase_add_test(i, test_held_action_with_ten_arguments);
    tcase_add_test(i, test_group_rolls_once_and_stays_together);
    tcase_add_test(i, test_group_by_splits_the_side);
    tcase_add_test(i, test_below_when);
    tcase_add_test(i, test_begin_encounter_by_names_the_initiator);
    tcase_add_test(i, test_missing_ruling_is_an_error);
    tcase_add_test(i, test_surprise_round_restricts_the_economy);
    tcase_add_test(i, test_surprise_round_cites_its_own_passage);
    tcase_add_test(i, test_free_round_before_initiative);
    suite_add_tcase(s, i);
    TCase *t = tcase_create("turns");
    tcase_add_test(t, test_next_and_rounds_skip_the_fallen);
    tcase_add_test(t, test_phases_skip_and_steps);
    tcase_add_test(t, test_delay_then_resume_keeps_new_place);
    tcase_add_test(t, test_delay_returns_to_former_place);
    tcase_add_test(t, test_delay_for_round_loses_the_turn);
    tcase_add_test(t, test_reorder_start_requires_above_and_below);
    tcase_add_test(t, test_forfeit_moves_next_round);
    suite_add_tcase(s, t);
    TCase *e = tcase_create("economy");
    tcase_add_test(e, test_slot_refused_with_its_rule);
    tcase_add_test(e, test_exchange_standard_for_move);
    tcase_add_test(e, test_combined_and_alternative_costs);
    tcase_add_test(e, test_off_turn_needs_anytime);
    tcase_add_test(e, test_immediate_borrows_this_or_next_swift);
    tcase_add_test(e, test_immediate_before_the_first_turn_borrows_the_next);
    tcase_add_test(e, test_ledger_starts_afresh_each_encounter);
    tcase_add_test(e, test_joining_member_waits_for_its_own_turn);
    tcase_add_test(e, test_ledger_grows_with_the_rules);
    tcase_add_test(e, test_cap_across_slots);
    tcase_add_test(e, test_borrowed_use_not_counted_by_limits);
    tcase_add_test(e, test_exclusive_by_kind_until_next_turn);
    tcase_add_test(e, test_action_borrows_next_turn);
    tcase_add_test(e, test_slot_of_a_phase);
    suite_add_tcase(s, e);
    TCase *d = tcase_create("durations");
    tcase_add_test(d, test_rounds_end_at_the_same_position);
    tcase_add_test(d, test_turns_counted_on_the_creature);
    tcase_add_test(d, test_until_marks);
    tcase_add_test(d, test_next_turn_in_and_out_of_the_own_turn);
    tcase_add_test(d, test_reordering_does_not_move_a_duration);
    tcase_add_test(d, test_encounter_and_scene_durations);
    tcase_add_test(d, test_declared_periods_nest);
    tcase_add_test(d, test_phase_anchored_rounds);
    tcase_add_test(d, test_rounds_end_in_the_phase_they_began);
    tcase_add_test(d, test_cooldown);
    suite_add_tcase(s, d);
    TCase *c = tcase_create("conditions");
    tcase_add_test(c, test_modifiers_set_add_scale_and_typed_bonuses);
    tcase_add_test(c, test_stacking_condition_counts_each_time);
    tcase_add_test(c, test_excludes_implies_holds);
    tcase_add_test(c, test_show_every_condition);
    tcase_add_test(c, test_modifier_index_follows_implies_and_holds);
    tcase_add_test(c, test_modifier_index_sees_later_rules);
    tcase_add_test(c, test_too_many_conditions_is_an_error);
    tcase_add_test(c, test_forbid_and_protect);
    tcase_add_test(c, test_check_modifiers_typed_bonuses_do_not_stack);
    tcase_add_test(c, test_check_modifiers_in_and_out);
    tcase_add_test(c, test_check_without_dice_shows_its_terms);
    tcase_add_test(c, test_zone_tags_from_declaration);
    tcase_add_test(c, test_group_relation_members);
    tcase_add_test(c, test_group_relation_range_and_duration);
    suite_add_tcase(s, c);
    TCase *ev = tcase_create("events");
    tcase_add_test(ev, test_reaction_interrupts_and_is_paid);
    tcase_add_test(ev, test_reaction_policy_and_slot_spent);
    tcase_add_test(ev, test_trigger_limit_each);
    tcase_add_test(ev, test_cancel_stops_the_action);
    tcase_add_test(ev, test_requires_else_gives_the_refusal);
    tcase_add_test(ev, test_condition_title_in_the_transcript);
    tcase_add_test(ev, test_answers_for_one_use_queue);
    tcase_add_test(ev, test_check_term_label);
    tcase_add_test(ev, test_changed_for_any_stat);
    tcase_add_test(ev, test_out_and_back_whatever_the_change);
    tcase_add_test(ev, test_play_commands_in_bodies);
    tcase_add_test(ev, test_ruling_asked_for_a_creature);
    tcase_add_test(ev, test_condition_ends_on_event);
    tcase_add_test(ev, test_hold_fires_on_the_event_and_moves);
    tcase_add_test(ev, test_hold_only_some_slots);
    tcase_add_test(ev, test_hold_pattern_matches_by_value);
    tcase_add_test(ev, test_refused_held_action_pays_nothing);
    tcase_add_test(ev, test_rulings_answered_defaulted_and_per_creature);
    suite_add_tcase(s, ev);
    TCase *g = tcase_create("space");
    tcase_add_test(g, test_grid_distance_rules);
    tcase_add_test(g, test_line_of_sight_and_cover_from_corners);
    tcase_add_test(g, test_walk_provokes_by_square);
    tcase_add_test(g, test_sight_among_many_walls);
    tcase_add_test(g, test_footprint_kept_with_its_stats);
    tcase_add_test(g, test_walk_sees_the_board_as_it_is);
    tcase_add_test(g, test_footprint_kept_until_the_state_changes);
    tcase_add_test(g, test_walk_sees_marks_and_edges);
    tcase_add_test(g, test_large_creature_threatens_around_its_footprint);
    tcase_add_test(g, test_walk_budget_and_difficult_terrain);
    tcase_add_test(g, test_difficult_on_leaving_or_entering);
    tcase_add_test(g, test_walks_spend_a_budget);
    tcase_add_test(g, test_cost_in_a_unit);
    tcase_add_test(g, test_walk_stays_on_the_board);
    tcase_add_test(g, test_walk_a_long_path_from_its_start);
    tcase_add_test(g, test_map_shows_every_creature);
    tcase_add_test(g, test_no_zones_on_a_grid);
    tcase_add_test(g, test_map_counts_creatures_beyond_it);
    tcase_add_test(g, test_push_goes_the_whole_distance);
    tcase_add_test(g, test_walk_through_friends_not_enemies);
    tcase_add_test(g, test_share_when_lets_others_in);
    tcase_add_test(g, test_placed_tells_who_is_on_the_map);
    tcase_add_test(g, test_pushes_stay_on_the_map);
    tcase_add_test(g, test_push_stops_at_walls);
    tcase_add_test(g, test_range_counts_diagonals_its_own_way);
    tcase_add_test(g, test_library_error_is_reported_at_the_call);
    tcase_add_test(g, test_zone_ranges_follow_relations);
    tcase_add_test(g, test_blocked_squares);
    tcase_add_test(g, test_zones_apart);
    tcase_add_test(g, test_zone_without_fixed_caps);
    tcase_add_test(g, test_relations);
    tcase_add_test(g, test_partners_and_holders_of_many);
    suite_add_tcase(s, g);
    TCase *tr = tcase_create("tracks");
    tcase_add_test(tr, test_absorb_whole);
    tcase_add_test(tr, test_absorb_part);
    tcase_add_test(tr, test_absorb_level_and_spread);
    tcase_add_test(tr, test_tracks_marks_clone_and_clear);
    tcase_add_test(tr, test_tracks_errors_at_run_time);
    tcase_add_test(tr, test_track_named_like_a_stat);
    suite_add_tcase(s, tr);
    TCase *tg = tcase_create("tags");
    tcase_add_test(tg, test_side_stat_held_to_its_bounds);
    tcase_add_test(tg, test_tags_on_each_holder);
    tcase_add_test(tg, test_tag_names_bounded);
    tcase_add_test(tg, test_tags_and_sides_copied_whole);
    tcase_add_test(tg, test_tags_without_end_stop_at_their_limit);
    suite_add_tcase(s, tg);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
