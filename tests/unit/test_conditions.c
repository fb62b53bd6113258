/* test_conditions: which conditions hold on a creature, and whether it is
 * out, are worked out once between two changes of the state of play
 * (runtime/combat/conditions.c). Asked again with nothing changed, the
 * answer costs no step of the interpreter; after each kind of change (a
 * stat a formula reads, apply, remove, a duration ending, a move, a copy
 * of the world, an undo) it is worked out again and seen to change. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fray.h"
#include "runtime/combat/world.h"
#include "runtime/combat/stat_memo.h"
#include "runtime/core/reads_only.h"
#include "tests/unit/check_main.h"
#include "tests/unit/script_util.h"

#define RULES                                                                 \
    "system cached \"Cached\" { § \"Conditions\" }\n"                        \
    "stat rage = 0\n"                                                         \
    "stat max_hp = 10\n"                                                      \
    "resource hp max max_hp\n"                                                \
    "economy { slot standard 1 per turn }\n"                                  \
    "encounter { out when self.hp <= 0 or has(self, dead) }\n"                \
    "check initiative_roll(self) = d20\n"                                     \
    "initiative { roll initiative_roll; order highest first; ties reroll }\n" \
    "condition furious { holds when self.rage > 2 }\n"                        \
    "condition dazed { implies slowed when self.hp < 5 }\n"                   \
    "condition slowed { }\n"                                                  \
    "condition dead { }\n"                                                    \
    "condition burning { }\n"                                                 \
    "side left \"Left\" { }\nside right \"Right\" { }\n"                      \
    "creature a side left { }\n"                                              \
    "creature b side right { }\n"

#define BEGUN RULES "begin encounter\nroll initiative a 15, b 3\n"
#define ON_GRID                                                     \
    "space grid { }\nplace a at A1\nplace b at B1\n"                \
    "procedure far(c) {\n"                                          \
    "  if not placed(c) or len(enemies(c)) == 0 { return false }\n" \
    "  let foe = nearest(c, enemies(c))\n"                          \
    "  return placed(foe) and distance(c, foe) > 10 ft\n"           \
    "}\n"                                                           \
    "condition cornered { holds when far(self) }\n"

static const span nowhere = {0};

static int creature_named(vm *v, const char *name)
{
    int c = world_find_creature(v, name);
    ck_assert_int_ge(c, 0);
    return c;
}

static int condition_named(vm *v, const char *name)
{
    int id = program_find_string(v->p, name);
    ck_assert_int_ge(id, 0);
    int cond = rules_condition(v->r, id);
    ck_assert_int_ge(cond, 0);
    return cond;
}

static int stat_named(vm *v, const char *name)
{
    int id = program_find_string(v->p, name);
    ck_assert_int_ge(id, 0);
    const decl *d = program_find_decl(v->p, DK_STAT, id);
    if (!d)
        d = program_find_decl(v->p, DK_RESOURCE, id);
    ck_assert_ptr_nonnull(d);
    return program_decl_index(v->p, d);
}

static bool has(vm *v, const char *who, const char *cond)
{
    bool yes;
    ck_assert_msg(effects_has(v, creature_named(v, who), condition_named(v, cond), &yes, nowhere), "%s", v->error.s);
    return yes;
}

static bool out(vm *v, const char *who)
{
    bool yes;
    ck_assert_msg(encounter_out(v, creature_named(v, who), &yes, nowhere), "%s", v->error.s);
    return yes;
}

static void set(vm *v, const char *who, const char *stat, int64_t x)
{
    ck_assert_msg(world_set_stat(v, creature_named(v, who), stat_named(v, stat), value_int(x), nowhere), "%s",
                  v->error.s);
}

static void apply(vm *v, const char *who, const char *cond, value lasts)
{
    bool applied;
    ck_assert(effects_apply(v, creature_named(v, who), condition_named(v, cond), lasts, -1, nowhere, &applied));
    ck_assert(applied);
}

static void take_off(vm *v, const char *who, const char *cond)
{
    bool removed;
    ck_assert(effects_remove(v, creature_named(v, who), condition_named(v, cond), nowhere, &removed));
    ck_assert(removed);
}

/* A condition holding by its formula: worked out once, then kept (no step
   of the interpreter) until the stat it reads changes. */
START_TEST(test_holds_kept_until_its_stat_changes)
{
    run *r = run_script(BEGUN, 1, NULL);
    ck_assert(r->ok);
    vm *v = r->v;
    ck_assert(!has(v, "a", "furious"));
    int64_t steps = v->steps_left;
    uint64_t version = v->play_version;
    ck_assert(!has(v, "a", "furious"));
    ck_assert(!has(v, "a", "slowed"));
    ck_assert_int_eq(v->steps_left, steps); /* kept: no formula ran */
    ck_assert_uint_eq(v->play_version, version);
    set(v, "a", "rage", 5);
    ck_assert_uint_ne(v->play_version, version);
    ck_assert(has(v, "a", "furious"));
    ck_assert_int_lt(v->steps_left, steps); /* worked out again */
    set(v, "a", "rage", 1);
    ck_assert(!has(v, "a", "furious"));
    /* b's answer is its own */
    set(v, "b", "rage", 3);
    ck_assert(has(v, "b", "furious") && !has(v, "a", "furious"));
    run_free(r);
}
END_TEST

/* Applied, implied when the guard's stat allows it, and removed. */
START_TEST(test_apply_implies_remove)
{
    run *r = run_script(BEGUN, 1, NULL);
    ck_assert(r->ok);
    vm *v = r->v;
    ck_assert(!has(v, "a", "dazed") && !has(v, "a", "slowed"));
    apply(v, "a", "dazed", value_nil());
    ck_assert(has(v, "a", "dazed"));
    ck_assert(!has(v, "a", "slowed")); /* hp 10: the guard does not hold */
    set(v, "a", "hp", 3);
    ck_assert(has(v, "a", "slowed"));
    take_off(v, "a", "dazed");
    ck_assert(!has(v, "a", "dazed") && !has(v, "a", "slowed"));
    run_free(r);
}
END_TEST

/* A condition that lasts one turn ends at the start of a's next turn. */
START_TEST(test_duration_ends)
{
    run *r = run_script(BEGUN "apply dazed to a for 1 turn\na.hp = 2\n", 1, NULL);
    ck_assert(r->ok);
    vm *v = r->v;
    ck_assert(has(v, "a", "slowed"));
    ck_assert(encounter_next(v, nowhere)); /* b's turn */
    ck_assert(has(v, "a", "slowed"));
    ck_assert(encounter_next(v, nowhere)); /* a's: dazed ends */
    ck_assert(!has(v, "a", "dazed") && !has(v, "a", "slowed"));
    run_free(r);
}
END_TEST

/* `out when` reads a stat and a condition: each change is seen; a change
   of another creature is not one (the formula is kept with b's reads). */
START_TEST(test_out_changes)
{
    run *r = run_script(BEGUN, 1, NULL);
    ck_assert(r->ok);
    vm *v = r->v;
    ck_assert(!out(v, "b"));
    int64_t steps = v->steps_left;
    ck_assert(!out(v, "b"));
    ck_assert_int_eq(v->steps_left, steps); /* kept */
    set(v, "a", "rage", 3);
    apply(v, "a", "burning", value_nil());
    steps = v->steps_left;
    ck_assert(!out(v, "b"));
    ck_assert_int_eq(v->steps_left, steps); /* kept with b's stats and conditions */
    apply(v, "b", "dead", value_nil());
    ck_assert(out(v, "b"));
    take_off(v, "b", "dead");
    ck_assert(!out(v, "b"));
    set(v, "b", "hp", 0);
    ck_assert(out(v, "b"));
    set(v, "b", "hp", 4);
    ck_assert(!out(v, "b"));
    run_free(r);
}
END_TEST

/* A move changes what a formula over the grid says. */
START_TEST(test_move_seen)
{
    run *r = run_script(BEGUN ON_GRID, 1, NULL);
    ck_assert_msg(r->ok, "%s", r->v->error.s);
    vm *v = r->v;
    ck_assert(!has(v, "a", "cornered"));
    ck_assert(grid_place(v, creature_named(v, "a"), 5, 5, nowhere));
    ck_assert(has(v, "a", "cornered"));
    ck_assert(grid_place(v, creature_named(v, "a"), 0, 1, nowhere));
    ck_assert(!has(v, "a", "cornered"));
    run_free(r);
}
END_TEST

/* A formula that rolls is never kept: each ask rolls again. */
START_TEST(test_rolling_formula_not_kept)
{
    run *r = run_script(BEGUN "condition lucky { holds when roll d6 > 3 }\n", 1, NULL);
    ck_assert(r->ok);
    vm *v = r->v;
    uint64_t state[4];
    memcpy(state, v->rng.s, sizeof state);
    (void)has(v, "a", "lucky");
    ck_assert(memcmp(state, v->rng.s, sizeof state));
    memcpy(state, v->rng.s, sizeof state);
    (void)has(v, "a", "burning");
    ck_assert(memcmp(state, v->rng.s, sizeof state)); /* worked out again, rolling again */
    run_free(r);
}
END_TEST

/* A copy of the world works out its own answers: a change in either is
   not seen by the other. */
START_TEST(test_clone_own_answers)
{
    run *r = run_script(BEGUN, 1, NULL);
    ck_assert(r->ok);
    ck_assert(!has(r->v, "a", "furious"));
    program *p = program_clone(r->p);
    ck_assert_ptr_nonnull(p);
    vm *copy = world_clone(r->v, p);
    ck_assert_ptr_nonnull(copy);
    ck_assert(!has(copy, "a", "furious"));
    set(copy, "a", "rage", 9);
    ck_assert(has(copy, "a", "furious"));
    ck_assert(!has(r->v, "a", "furious"));
    set(r->v, "b", "rage", 9);
    ck_assert(has(r->v, "b", "furious"));
    ck_assert(!has(copy, "b", "furious"));
    world_close(copy);
    program_free(p);
    run_free(r);
}
END_TEST

static void on_output(void *user, const char *text)
{
    char *buf = user;
    size_t n = strlen(buf), len = strlen(text);
    if (n + len + 2 < 4096) {
        memcpy(buf + n, text, len);
        buf[n + len] = '\n';
        buf[n + len + 1] = '\0';
    }
}

/* The REPL's undo: the answer after it is the state's before the change. */
START_TEST(test_undo_seen)
{
    static char heard[4096];
    heard[0] = '\0';
    fray_options o = {0};
    fray_session *s = fray_session_open(&o);
    ck_assert_ptr_nonnull(s);
    fray_session_on_output(s, on_output, heard);
    const char *lines[] = {RULES, "begin encounter", "roll initiative a 15, b 3", "a.rage = 5",
                           "print \"before\", has(a, furious)"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        ck_assert_int_eq(fray_session_command(s, lines[i]), FRAY_OK);
    ck_assert_uint_eq(fray_session_undo(s, 2), 2); /* the print and a.rage = 5 */
    ck_assert_int_eq(fray_session_command(s, "print \"after\", has(a, furious)"), FRAY_OK);
    ck_assert_msg(strstr(heard, "before true") && strstr(heard, "after false"), "%s", heard);
    fray_session_close(s);
}
END_TEST

/* The GM's answers: counted, "yes" each time. */
static bool answer_yes(void *user, const fray_question *q, char *buf, size_t cap)
{
    (void)q;
    ++*(int *)user;
    snprintf(buf, cap, "yes");
    return true;
}

/* A ruling asked for each use, read by a condition's formula: the GM is
   asked at each question, as when nothing was kept. */
START_TEST(test_gm_asked_each_time)
{
    int asked = 0;
    fray_options o = {.quiet = true}; /* nothing noted: only the asking itself says it changed anything */
    fray *f = fray_open(&o);
    ck_assert_ptr_nonnull(f);
    fray_on_ask(f, answer_yes, &asked);
    const char *text = RULES "ruling lit \"Is it in the light?\" { answer yes_no; asked per use }\n"
                             "condition seen { holds when lit }\n"
                             "print has(a, seen), has(a, seen), has(a, seen)\n";
    ck_assert_int_eq(fray_run_string(f, "t.rules", text, strlen(text)), FRAY_OK);
    ck_assert_int_eq(asked, 3);
    fray_close(f);
}
END_TEST

/* What the rules' formulas may do, from their bytecode: only read, read
   rulings too, or more (roll, change play, print), through the procedures
   they call. */
START_TEST(test_formulas_reads)
{
    static const struct {
        const char *more;
        reads_kind kind;
    } cases[] = {
        {"", READS_ONLY},
        {"procedure calm(c) { return c.rage < 2 }\ncondition still { holds when calm(self) }\n", READS_ONLY},
        {"ruling lit \"Lit?\" { answer yes_no; default yes }\ncondition seen { holds when lit }\n", READS_RULINGS},
        {"condition lucky { holds when roll d6 > 3 }\n", READS_AND_MORE},
        {"procedure loud(c) { print \"hey\"\n return true }\ncondition shouting { holds when loud(self) }\n",
         READS_AND_MORE},
        {"stat luck = roll d6\n", READS_AND_MORE},
        {"condition marked { modify rage by 1 when apply(self, burning) }\n", READS_AND_MORE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[4096];
        snprintf(text, sizeof text, "%s%s", BEGUN, cases[i].more);
        run *r = run_script(text, 1, NULL);
        ck_assert_msg(r->ok, "%s: %s", cases[i].more, r->v->error.s);
        ck_assert_msg(vm_formulas_reads(r->v) == cases[i].kind, "%s: %d", cases[i].more, vm_formulas_reads(r->v));
        run_free(r);
    }
}
END_TEST

/* Where formulas only read, has() of one condition works out only what
   can make it hold: dead has no formula and nothing implies it, so no
   formula runs for it, while another condition's formula would; slowed
   is worked out through dazed and its guard; a cycle of implications
   supports nothing. Each answer is kept until a change. */
START_TEST(test_one_condition_alone)
{
    run *r = run_script(BEGUN "condition x { implies y }\ncondition y { implies x }\n", 1, NULL);
    ck_assert(r->ok);
    vm *v = r->v;
    ck_assert_int_eq(vm_formulas_reads(v), READS_ONLY);
    set(v, "a", "rage", 1); /* nothing known from here on */
    int64_t steps = v->steps_left;
    ck_assert(!has(v, "a", "dead"));
    ck_assert_int_eq(v->steps_left, steps); /* furious's formula did not run */
    set(v, "a", "rage", 2);                 /* what furious's formula reads (a checking build worked it out for dead) */
    ck_assert(!has(v, "a", "furious"));
    ck_assert_int_lt(v->steps_left, steps); /* its own did */
    steps = v->steps_left;
    ck_assert(!has(v, "a", "furious"));
    ck_assert_int_eq(v->steps_left, steps); /* kept */
    ck_assert(!has(v, "a", "x") && !has(v, "a", "y"));
    apply(v, "a", "y", value_nil());
    ck_assert(has(v, "a", "x") && has(v, "a", "y"));
    take_off(v, "a", "y");
    ck_assert(!has(v, "a", "x"));
    apply(v, "a", "dazed", value_nil());
    ck_assert(!has(v, "a", "slowed"));
    set(v, "a", "hp", 3);
    ck_assert(has(v, "a", "slowed"));
    set(v, "a", "rage", 3);
    ck_assert(has(v, "a", "furious"));
    run_free(r);
}
END_TEST

/* Where a formula rolls, every formula is worked out at each question, as
   before: what was rolled is the same whichever condition is asked. */
START_TEST(test_rolling_rules_work_out_all)
{
    run *r = run_script(BEGUN "condition lucky { holds when roll d6 > 3 }\n", 1, NULL);
    ck_assert(r->ok);
    vm *v = r->v;
    uint64_t state[4];
    memcpy(state, v->rng.s, sizeof state);
    (void)has(v, "a", "dead"); /* lucky's formula rolls for it */
    ck_assert(memcmp(state, v->rng.s, sizeof state));
    run_free(r);
}
END_TEST

#define STATS_ALONE                                                                 \
    "system kept \"Kept\" { § \"Out\" }\n"                                         \
    "stat toughness = 3\nstat rage = 0\nstat max_hp = 10\nresource hp max max_hp\n" \
    "economy { slot standard 1 per turn }\n"                                        \
    "encounter { out when self.hp <= 0 or self.toughness < 1 }\n"                   \
    "check initiative_roll(self) = d20\n"                                           \
    "initiative { roll initiative_roll; order highest first; ties reroll }\n"       \
    "condition weak { modify toughness by -5 }\ncondition burning { }\n"            \
    "side left \"Left\" { }\nside right \"Right\" { }\n"                            \
    "creature a side left { }\ncreature b side right { }\n"                         \
    "begin encounter\nroll initiative a 15, b 3\n"

/* `out when` of stats alone is kept with the creatures whose stats it
   read: a change of another creature leaves it standing, no formula run;
   a change of one of its own stats, or a modifier arriving, has it worked
   out again. */
START_TEST(test_out_kept_with_its_stats)
{
    run *r = run_script(STATS_ALONE, 1, NULL);
    ck_assert_msg(r->ok, "%s", r->v->error.s);
    vm *v = r->v;
    set(v, "b", "rage", 4); /* the version moves on */
    ck_assert(!out(v, "b"));
    set(v, "a", "hp", 7);
    set(v, "a", "rage", 2);
    int64_t steps = v->steps_left;
    ck_assert(!out(v, "b"));
    ck_assert_int_eq(v->steps_left, steps); /* kept: no formula ran */
    set(v, "b", "rage", 5);
    ck_assert(!out(v, "b"));
    ck_assert_int_lt(v->steps_left, steps); /* one of b's stats: worked out again */
    set(v, "b", "toughness", 0);
    ck_assert(out(v, "b"));
    set(v, "b", "toughness", 3);
    ck_assert(!out(v, "b"));
    /* an effect on b: toughness, which a modifier names, is no plain
       read any more, and the formula is worked out again */
    apply(v, "b", "burning", value_nil());
    steps = v->steps_left;
    ck_assert(!out(v, "b"));
    ck_assert_int_lt(v->steps_left, steps);
    apply(v, "b", "weak", value_nil()); /* toughness 3 - 5 */
    ck_assert(out(v, "b"));
    take_off(v, "b", "weak");
    ck_assert(!out(v, "b"));
    set(v, "b", "hp", 0);
    ck_assert(out(v, "b"));
    run_free(r);
}
END_TEST

#define ROSTER_ENDS                                                                                 \
    "system roster \"Roster\" { § \"Ends\" }\n"                                                    \
    "stat max_hp = 10\nresource hp max max_hp\nstat turns = 0\n"                                    \
    "economy { slot standard 1 per turn }\n"                                                        \
    "condition down { holds when self.hp <= 0 }\n"                                                  \
    "procedure up(c) { return not has(c, down) }\n"                                                 \
    "procedure sides_up() {\n"                                                                      \
    "  let seen = []\n"                                                                             \
    "  for c in creatures() { if up(c) and count(seen, c.side) == 0 { seen = seen + [c.side] } }\n" \
    "  return len(seen)\n"                                                                          \
    "}\n"                                                                                           \
    "encounter { out when self.hp <= -10; ends when sides_up() <= 1 }\n"                            \
    "check initiative_roll(self) = d20\n"                                                           \
    "initiative { roll initiative_roll; order highest first; ties reroll }\n"                       \
    "side left \"Left\" { }\nside right \"Right\" { }\n"                                            \
    "creature a side left { }\ncreature b side right { }\ncreature c side right { }\n"              \
    "begin encounter\nroll initiative a 15, b 3, c 9\n"

/* Calls the encounter's `ends when` through m; whether a formula ran. */
static bool ends_now(vm *v, roster_memo **m, bool *over)
{
    int64_t steps = v->steps_left;
    value x;
    ck_assert_msg(roster_memo_call(v, m, v->r->encounter.ends.chunk, -1, &x), "%s", v->error.s);
    *over = value_truthy(x);
    return v->steps_left != steps;
}

/* `ends when` that counts the sides still up, through procedures, a list
   of everyone and has(): kept with every creature at once and who is in
   play. A change of play that is no creature's (the version moving on)
   leaves it standing; any creature's stat, a creature leaving play, a
   change of the rules have it worked out again; a formula that reads the
   turn is never kept. */
START_TEST(test_ends_kept_with_the_roster)
{
    run *r = run_script(ROSTER_ENDS, 1, NULL);
    ck_assert_msg(r->ok, "%s", r->v->error.s);
    vm *v = r->v;
    ck_assert(roster_memo_fits(v, v->r->encounter.ends.chunk));
    roster_memo *m = NULL;
    bool over;
    ck_assert(ends_now(v, &m, &over)); /* worked out */
    ck_assert(!over);
    ck_assert(!ends_now(v, &m, &over)); /* kept */
    ck_assert(!over);
    vm_play_changed(v); /* the state moves on, no creature changes */
    ck_assert(!ends_now(v, &m, &over));
    set(v, "a", "turns", 1); /* a stat no formula here reads: worked out again all the same */
    ck_assert(ends_now(v, &m, &over));
    ck_assert(!over);
    set(v, "b", "hp", 0);
    ck_assert(ends_now(v, &m, &over));
    ck_assert(!over); /* c is up still */
    ck_assert(!ends_now(v, &m, &over));
    ck_assert_msg(encounter_remove(v, creature_named(v, "c"), nowhere), "%s", v->error.s);
    ck_assert(ends_now(v, &m, &over)); /* who is in play changed */
    ck_assert(over);
    set(v, "b", "hp", 5);
    ck_assert(ends_now(v, &m, &over));
    ck_assert(!over);
    roster_memo_free(m);
    run_free(r);
    /* a formula shorter than who is in play is worked out each time: a
       kept answer would be checked against all of them */
    r = run_script(ROSTER_ENDS "override encounter { ends when has(a, down) }\n", 1, NULL);
    ck_assert_msg(r->ok, "%s", r->v->error.s);
    ck_assert(roster_memo_fits(r->v, r->v->r->encounter.ends.chunk));
    m = NULL;
    ck_assert(ends_now(r->v, &m, &over));
    ck_assert(ends_now(r->v, &m, &over));
    ck_assert(!over);
    roster_memo_free(m);
    run_free(r);
    /* the turn is read: never kept */
    r = run_script(ROSTER_ENDS "override encounter { ends when sides_up() <= 1 or round_number() > 3 }\n", 1, NULL);
    ck_assert_msg(r->ok, "%s", r->v->error.s);
    ck_assert(!roster_memo_fits(r->v, r->v->r->encounter.ends.chunk));
    run_free(r);
}
END_TEST

/* Which formulas are of stats alone; which stats read plainly (a stat no
   modifier names does, whatever the creature bears). */
START_TEST(test_stats_alone_and_plain_reads)
{
    run *r = run_script(STATS_ALONE "procedure p(c) { return c.hp }\ncondition hurt { holds when p(self) < 5 }\n"
                                    "condition furious { holds when self.rage > 2 and has(self, burning) }\n",
                        1, NULL);
    ck_assert_msg(r->ok, "%s", r->v->error.s);
    vm *v = r->v;
    ck_assert(stat_memo_fits(v, v->r->encounter.out.chunk));
    ck_assert(!stat_memo_fits(v, v->r->conditions[condition_named(v, "hurt")].holds.chunk));
    ck_assert(stat_memo_fits(v, v->r->conditions[condition_named(v, "furious")].holds.chunk)); /* has() too */
    apply(v, "a", "burning", value_nil());
    value x;
    ck_assert(world_plain_stat(v, creature_named(v, "a"), stat_named(v, "rage"), &x));
    ck_assert(x.num == 0);
    ck_assert(!world_plain_stat(v, creature_named(v, "a"), stat_named(v, "toughness"), &x));
    run_free(r);
}
END_TEST

/* A `holds when` of stats alone is kept with what it read, as `out when`
   is: a change of another creature leaves it standing; a boolean default
   (`= false`) reads plainly, with no formula run. */
START_TEST(test_holds_kept_with_its_stats)
{
    run *r =
        run_script(BEGUN "stat proud = false\ncondition vain { holds when self.proud or self.rage > 8 }\n", 1, NULL);
    ck_assert_msg(r->ok, "%s", r->v->error.s);
    vm *v = r->v;
    value x;
    ck_assert(world_plain_stat(v, creature_named(v, "a"), stat_named(v, "proud"), &x));
    ck_assert(x.type == V_BOOL && !x.num);
    set(v, "b", "rage", 1);
    ck_assert(!has(v, "a", "furious") && !has(v, "a", "vain"));
    set(v, "b", "rage", 2); /* the version moves on */
    int64_t steps = v->steps_left;
    ck_assert(!has(v, "a", "furious") && !has(v, "a", "vain"));
    ck_assert_int_eq(v->steps_left, steps); /* kept: no formula ran */
    set(v, "a", "rage", 9);
    ck_assert(has(v, "a", "furious") && has(v, "a", "vain"));
    set(v, "a", "rage", 0);
    ck_assert(!has(v, "a", "vain"));
    ck_assert_msg(world_set_stat(v, creature_named(v, "a"), stat_named(v, "proud"), value_bool(true), nowhere), "%s",
                  v->error.s);
    ck_assert(has(v, "a", "vain") && !has(v, "b", "vain"));
    run_free(r);
}
END_TEST

/* In a quiet run with no one to ask (a simulated one), a formula that
   reads a ruling is kept with the answers: a change of another creature
   leaves it standing; an answer given has it worked out again. Where the
   reading is noted (a run that is not quiet), it is worked out each time. */
START_TEST(test_ruling_read_kept_with_the_answers)
{
    run *r = run_script(STATS_ALONE "ruling routed \"Routed?\" { answer yes_no; asked per creature; default no }\n"
                                    "condition fleeing { holds when routed or self.rage > 5 }\n",
                        1, NULL);
    ck_assert_msg(r->ok, "%s", r->v->error.s);
    vm *v = r->v;
    v->world->cb.quiet = true;
    ck_assert(!has(v, "b", "fleeing"));
    set(v, "a", "rage", 1);
    int64_t steps = v->steps_left;
    ck_assert(!has(v, "b", "fleeing"));
    ck_assert_int_eq(v->steps_left, steps); /* kept */
    int ruling = rules_ruling(v->r, program_find_string(v->p, "routed"));
    ck_assert_int_ge(ruling, 0);
    ck_assert(rulings_answer(v, ruling, value_bool(true), creature_named(v, "b"), nowhere));
    ck_assert(has(v, "b", "fleeing") && !has(v, "a", "fleeing"));
    v->world->cb.quiet = false; /* noted: worked out each time */
    set(v, "a", "rage", 2);
    steps = v->steps_left;
    ck_assert(has(v, "b", "fleeing"));
    set(v, "a", "rage", 3);
    ck_assert(has(v, "b", "fleeing"));
    ck_assert_int_lt(v->steps_left, steps);
    run_free(r);
}
END_TEST

static Suite *conditions_suite(void)
{
    Suite *s = suite_create("conditions");
    TCase *tc = tcase_create("kept");
    tcase_add_test(tc, test_holds_kept_until_its_stat_changes);
    tcase_add_test(tc, test_apply_implies_remove);
    tcase_add_test(tc, test_duration_ends);
    tcase_add_test(tc, test_out_changes);
    tcase_add_test(tc, test_move_seen);
    tcase_add_test(tc, test_rolling_formula_not_kept);
    tcase_add_test(tc, test_clone_own_answers);
    tcase_add_test(tc, test_undo_seen);
    tcase_add_test(tc, test_gm_asked_each_time);
    tcase_add_test(tc, test_formulas_reads);
    tcase_add_test(tc, test_one_condition_alone);
    tcase_add_test(tc, test_rolling_rules_work_out_all);
    tcase_add_test(tc, test_out_kept_with_its_stats);
    tcase_add_test(tc, test_ends_kept_with_the_roster);
    tcase_add_test(tc, test_stats_alone_and_plain_reads);
    tcase_add_test(tc, test_holds_kept_with_its_stats);
    tcase_add_test(tc, test_ruling_read_kept_with_the_answers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(conditions_suite());
}
