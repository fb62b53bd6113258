/* Unit tests for the VM: scripts compiled and run with output captured:
 * exact arithmetic, quantities, dice determinism, stats, ranges,
 * procedures and limits, triggers, play commands and error locations. */
#include "tests/unit/check_main.h"

#include <stdlib.h>
#include <string.h>

#include "lang/compile.h"
#include "runtime/core/commands.h"
#include "runtime/combat/world.h"
#include "tests/unit/script_util.h"

static run *start(const char *text, uint64_t seed, const vm_limits *limits)
{
    return run_script(text, seed, limits);
}

static void finish(run *r)
{
    run_free(r);
}

/* Runs text, expects success and exactly `want` as output. */
static void expect_output(const char *text, const char *want)
{
    run *r = start(text, 1, NULL);
    ck_assert_msg(r->ok, "runtime error: %s", r->v->error.s);
    ck_assert_str_eq(r->out, want);
    finish(r);
}

/* Runs text, expects a runtime error whose message contains needle. */
static run *expect_error(const char *text, const char *needle, const vm_limits *limits)
{
    run *r = start(text, 1, limits);
    ck_assert_msg(!r->ok, "no runtime error for: %s", text);
    ck_assert(r->v->failed);
    ck_assert_msg(strstr(r->v->error.s, needle), "error '%s' lacks '%s'", r->v->error.s, needle);
    return r;
}

/* --- lists: how deep, how long to write, equal by value ------------------- */

/* A list is as deep as the limit lets it be, when it is made: every walk of
   it (print, ==, keeping it in a variable) then stays within the limit. */
START_TEST(test_list_depth_met_where_made)
{
    vm_limits lim = vm_default_limits;
    lim.nesting = 50;
    run *r = expect_error("let l = []\nrepeat 100 { l = [l] }\nprint \"unreached\"\n",
                          "lists nested too deeply (limit is 50 levels; see --limit nesting=N)", &lim);
    ck_assert_int_eq(r->v->error_at.start, 28); /* the list `[l]` */
    finish(r);
    /* joining lists keeps the deeper one's depth; 50 levels is allowed */
    expect_output("let l = []\nrepeat 49 { l = [l] }\nlet m = [[1]] + l\nprint len(m), m == l + [], [[]] + [[]]\n",
                  "2 false [[], []]\n");
    r = expect_error("let l = []\nrepeat 49 { l = [l] }\nlet m = [l + [1]]\nprint [m]\n", "lists nested too deeply",
                     &lim);
    finish(r);
    /* a list built deep in a procedure is kept whole by the variable */
    expect_output("procedure deep(n) { let l = []\n repeat n { l = [l] }\n return l }\nlet k = deep(30)\n"
                  "repeat 29 { k = k[0] }\nprint k\n",
                  "[[]]\n");
}
END_TEST

/* What a fixed buffer cannot hold is not walked: a list holding another
   2^60 times over is written as far as the buffer goes, at once. */
START_TEST(test_format_stops_where_the_buffer_does)
{
    run *r = start("let l = [1]\nrepeat 60 { l = [l, l] }\n", 1, NULL);
    ck_assert(r->ok);
    value l = r->v->globals[0];
    char buf[64];
    size_t n = vm_format(r->v, l, buf, sizeof buf);
    ck_assert_uint_ge(n, sizeof buf);
    ck_assert_str_eq(buf, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]");
    /* a limit lowered since the list was made: the rest is left out */
    r->v->limits.nesting = 3;
    char all[128];
    n = vm_format(r->v, l, all, sizeof all);
    ck_assert_str_eq(all, "[[[[...], [...]], [[...], [...]]], [[[...], [...]], [[...], [...]]]]");
    ck_assert_uint_eq(n, strlen(all));
    finish(r);
}
END_TEST

/* print writes a line of any length, each value a step of the budget. */
START_TEST(test_print_counts_steps)
{
    run *r = start("print 1..3000\n", 1, NULL);
    ck_assert(r->ok);
    /* "[1, 2, ... 3000]\n": the digits, 2999 ", ", the brackets and the newline */
    ck_assert_uint_eq(strlen(r->out), 9 * 1 + 90 * 2 + 900 * 3 + 2001 * 4 + 2999 * 2 + 2 + 1);
    ck_assert_str_eq(r->out + strlen(r->out) - 7, " 3000]\n");
    finish(r);
    vm_limits lim = vm_default_limits;
    lim.steps = 100000;
    r = expect_error("let l = [1]\nrepeat 60 { l = [l, l] }\nprint \"before\"\nprint l\n",
                     "step limit reached (100000 steps", &lim);
    ck_assert_str_eq(r->out, "before\n");
    finish(r);
}
END_TEST

START_TEST(test_equality_by_value)
{
    expect_output("print [1] == [1], [] == [], [1, [2, [3]]] == [1, [2, [3]]], [1, [2]] == [1, [3]], [1] != [1, 1]\n",
                  "true true true false true\n");
    expect_output(
        "print count([[1], [2], [1]], [1]), [1, 2] + [3] == [1, 2, 3], [5 ft] == [5 ft], [\"a\"] == [\"a\"]\n",
        "2 true true true\n");
    expect_output("print d20 == d20, dice(2, 6) + 1 == 2d6 + 1, d6 == d8, 2d6 == d6 + d6\n", "true true false false\n");
    /* two lists holding others 2^60 times over: compared until the steps run out */
    vm_limits lim = vm_default_limits;
    lim.steps = 100000;
    run *r = expect_error("let a = [1]\nlet b = [1]\nrepeat 60 { a = [a, a]\n b = [b, b] }\nprint a == b\n",
                          "step limit reached (100000 steps", &lim);
    finish(r);
    /* one list is equal to itself at once */
    expect_output("let a = [1]\nrepeat 60 { a = [a, a] }\nprint a == a, count([a, a, 1], a)\n", "true 2\n");
}
END_TEST

/* text() builds a string at run time: kept in a variable past the command
   that built it, equal to a literal of its text, and held to the limit. */
START_TEST(test_strings_built_at_run_time)
{
    expect_output("let s = text(\"Good (+\", 3, \")\")\nprint s, s == \"Good (+3)\", [s] == [\"Good (+3)\"]\n"
                  "let t = text(s, \"!\")\nprint t, t != s, text(1/2, [1], nothing)\n",
                  "Good (+3) true true\nGood (+3)! true 0.5[1]nothing\n");
    vm_limits lim = vm_default_limits;
    lim.string_bytes = 8;
    run *r = expect_error("let n = 123456\nprint text(n, n)\n",
                          "string too long (12 bytes; limit is 8; see --limit string-bytes=N)", &lim);
    ck_assert_int_eq(r->v->error_at.start, 21); /* the call */
    finish(r);
}
END_TEST

/* A run whose output no one reads (a simulated one) writes no line: what
   print would write is not even made, and the run goes on. */
START_TEST(test_unread_output_not_written)
{
    const char *text = "let n = 0\nprint \"a\", [1, 2], 1/3\nn = 2\nprint n\n";
    run *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    r->p = program_new();
    diag_sink sink = {.fn = on_diag, .user = r};
    ck_assert_int_eq(compile_string(r->p, "t.rules", text, strlen(text), &sink, NULL), 0);
    r->v = world_open(r->p, 1, &vm_default_limits);
    ck_assert_ptr_nonnull(r->v);
    vm_set_output(r->v, on_print, r);
    r->v->output_unread = true;
    ck_assert(vm_run_commands(r->v, 0));
    ck_assert_uint_eq(r->len, 0);
    ck_assert(r->v->globals[0].type == V_INT && r->v->globals[0].num == 2);
    r->v->output_unread = false;
    run_free(r);
    expect_output(text, "a [1, 2] 1/3\n2\n");
}
END_TEST

START_TEST(test_integer_arithmetic)
{
    expect_output("print 1 + 2 * 3, (1 + 2) * 3, 10 - 20, -(4)\n", "7 9 -10 -4\n");
}
END_TEST

START_TEST(test_exact_fractions)
{
    /* exact: the fraction survives the round trip */
    expect_output("print 7 / 2 * 2, 1/3 + 1/6 == 1/2, 3 * 1.5 == 9/2, 50% * 4\n", "7 true true 2\n");
    expect_output("print 0.1 + 0.2 == 0.3\n", "true\n");
}
END_TEST

START_TEST(test_let_in_binds_one_roll)
{
    /* one d20 asked two questions, against two d20s asked one each */
    expect_output("print prob(let r = d20 in r == 20 or r == 1), prob(d20 == 20 or d20 == 1)\n", "0.1 0.0975\n");
    expect_output("print mean(let r = d6 in r * r), dist(let a = d4 in let b = d4 in a + b + a)\n",
                  "91/6 distribution 3..12, mean 7.5\n");
    /* the roll's faces, the locals around it, a name it hides */
    expect_output("print prob(let r = d20 in r.natural == 20)\n", "0.05\n");
    expect_output("procedure p(bonus, r) {\n  return prob(let r = d20 in r + bonus <= 1)\n}\nprint p(-3, 100)\n",
                  "0.2\n");
    /* a list of dice bound; the body's own dice, each walked */
    expect_output("print prob(let x = [d6, d6] in x[0] == 1), prob(let n = 3 in d6 >= n)\n", "1/6 2/3\n");
    /* outside an exact context: rolled once, the body run once */
    expect_output("print let r = roll d20 in r == r, let x = 2 in x * x\n", "true 4\n");
}
END_TEST

/* language.md 3.6: a list of dice written in an exact context and passed
   to a procedure stays dice, for the procedure to roll; any other list is
   of distributions, as before. */
START_TEST(test_exact_list_of_dice_is_rolled)
{
    const char *first = "procedure first_max(ds) {\n  return roll ds[0] == maximum(ds[0]) ? roll ds[1] : 0\n}\n";
    char src[512];
    snprintf(src, sizeof src, "%sprint prob(first_max([d4, d6 + 1]) == 7), mean(first_max([2d4, d8]))\n", first);
    expect_output(src, "1/24 0.28125\n");
    snprintf(src, sizeof src, "%sprint prob(first_max([d4, 2 * d6]) >= 1)\n", first);
    expect_output(src, "0.25\n");
    /* a list holding a comparison is no list of dice: its elements are distributions */
    expect_output("procedure n(xs) { return xs[0] }\nprint prob(n([d20 >= 11]) == 1)\n", "0.5\n");
}
END_TEST

START_TEST(test_fraction_display)
{
    /* language.md 3.1: a fraction is shown as a decimal when it terminates,
     * otherwise as a/b */
    expect_output("print 7/2, 1/3, 2008/100\n", "3.5 1/3 20.08\n");
}
END_TEST

START_TEST(test_floor_division)
{
    expect_output("print 7 // 2, -7 // 2, 7 // -2, -7 // -2, 6 // 3\n", "3 -4 -4 3 2\n");
}
END_TEST

START_TEST(test_rounding_builtins)
{
    expect_output("print floor(7/2), ceil(7/2), round(5/2), round(-5/2), floor(-7/2)\n", "3 4 3 -3 -4\n");
    expect_output("print min(3, 1, 2), max(3, 1, 2), abs(-4), len([1, 2]), sum([1, 2, 3])\n", "1 3 4 2 6\n");
}
END_TEST

/* builtins.def puts each builtin in one layer: exactly one of the two
   tables (the core's, combat's) has a function for it. */
START_TEST(test_every_builtin_has_one_function)
{
    for (int id = 0; id < BI_COUNT; id++) {
        bool in_core = vm_builtin_core_fn(id) != NULL, in_combat = combat_builtin_fn(id) != NULL;
        ck_assert_msg(in_core != in_combat, "builtin %d is implemented %s", id, in_core ? "twice" : "nowhere");
    }
    ck_assert_ptr_null(vm_builtin_core_fn(BI_COUNT));
    ck_assert_ptr_null(combat_builtin_fn(-1));
    ck_assert_ptr_nonnull(vm_builtin_core_fn(BI_maximum));
    ck_assert_ptr_nonnull(combat_builtin_fn(BI_has));
}
END_TEST

START_TEST(test_overflow_is_error)
{
    run *r = expect_error("print 9223372036854775807 + 1\n", "too large", NULL);
    finish(r);
    r = expect_error("let x = 4611686018427387904\nprint x * 2\n", "too large", NULL);
    finish(r);
}
END_TEST

START_TEST(test_division_by_zero)
{
    run *r = expect_error("print 1 / 0\n", "division by zero", NULL);
    finish(r);
}
END_TEST

START_TEST(test_distances)
{
    expect_output("print 5 ft + 10 ft, 5 ft * 3, 3 m, 2 sq, 30 ft / 5 ft\n", "15 ft 15 ft 10 ft 10 ft 6\n");
    expect_output("print 10 ft > 5 ft, 1.5 m == 5 ft\n", "true true\n");
}
END_TEST

START_TEST(test_durations)
{
    expect_output("print 2 rounds + 1 round, 1 minute, 30 s + 30 s, 3 turns\n", "3 rounds 1 minute 1 minute 3 turns\n");
    expect_output("print 1 round < 2 rounds\n", "true\n");
}
END_TEST

START_TEST(test_dice_reproducible)
{
    const char *text = "repeat 5 { print roll 4d6kh3, roll d20 + 3, roll d%, roll dF }\n";
    run *a = start(text, 42, NULL), *b = start(text, 42, NULL), *c = start(text, 43, NULL);
    ck_assert(a->ok && b->ok && c->ok);
    ck_assert_int_gt(a->len, 0);
    ck_assert_str_eq(a->out, b->out);
    ck_assert_str_ne(a->out, c->out);
    finish(a);
    finish(b);
    finish(c);
}
END_TEST

START_TEST(test_roll_natural_and_total)
{
    const char *text =
        "repeat 50 {\n  let r = roll d20 + 5\n"
        "  if r.natural < 1 or r.natural > 20 or r.total != r.natural + 5 or r != r.total { print \"bad\" }\n"
        "}\nprint \"done\"\n";
    expect_output(text, "done\n");
    /* a d1 always rolls 1 */
    expect_output("let r = roll d1 + 2\nprint r.natural, r.total\n", "1 3\n");
}
END_TEST

START_TEST(test_roll_range)
{
    expect_output("let lo = 100\nlet hi = 0\nrepeat 400 {\n  let r = roll 3d6\n"
                  "  if r < lo { lo = r.total }\n  if r > hi { hi = r.total }\n}\nprint lo >= 3, hi <= 18, hi > lo\n",
                  "true true true\n");
}
END_TEST

START_TEST(test_derived_stats_follow_inputs)
{
    expect_output("stat dex = 0\nstat bonus = dex * 2\n"
                  "creature a { dex 3 }\ncreature b { dex 1 }\n"
                  "print a.bonus, b.bonus\na.dex = 10\nprint a.bonus, b.bonus\n",
                  "6 2\n20 2\n");
}
END_TEST

START_TEST(test_stat_defaults_follow_modifiers)
{
    /* a default that is another stat (max_hp = vigor, hp's max max_hp) is
       read without a call unless a modifier could change it: the reads
       must follow both the stat they name and the modifiers on it */
    expect_output("stat vigor = 10\nstat max_hp = vigor\nresource hp max max_hp\n"
                  "condition hale { modify vigor by 5 }\ncondition tough { modify max_hp by 3 }\n"
                  "creature c {}\nprint c.hp, c.max_hp\napply(c, hale)\nprint c.hp, c.max_hp\n"
                  "apply(c, tough)\nprint c.hp, c.max_hp\nc.vigor = 1\nprint c.hp\nc.hp = 4\nprint c.hp\n",
                  "10 10\nc is hale (until removed)\n15 15\nc is tough (until removed)\n18 18\n9\n4\n");
    /* defaults that name each other stop at the depth limit */
    run *r = expect_error("stat a = b\nstat b = a\ncreature c {}\nprint c.a\n", "nested too deeply", NULL);
    finish(r);
}
END_TEST

START_TEST(test_roll_records_kept)
{
    /* the record ring grows as rolls are made: an early roll keeps its
       faces through the growth, and is forgotten once the ring wraps. A
       roll with a variable in it has a record; a literal as small as 3d6
       keeps its faces in its value, and never forgets them. */
    expect_output(
        "let k = 0\nlet first = roll 3d6 + k\nlet packed = roll 3d6\nlet mid = first\n"
        "repeat 100 { mid = roll 4d6 + k }\n"
        "print len(first.faces), sum(first.faces) == first.total, len(mid.faces), sum(mid.faces) == mid.total\n"
        "repeat 2000 { let x = roll d20 + k }\nprint len(first.faces), len(packed.faces)\n"
        "print sum(packed.faces) == packed.total, packed.natural == packed.faces[0]\n",
        "3 true 4 true\n0 3\ntrue true\n");
}
END_TEST

START_TEST(test_packed_rolls_match_kept_faces)
{
    /* A roll of the program's plain dice keeps its faces packed in its
       value (up to 32 bits of them); with a variable in the sum, or too
       big to pack, the faces are kept in the ring as they are rolled. From
       the same seed all must show the same breakdown, faces and natural
       die: one die, one pool dropping one (from the top or the bottom) or
       more, several pools, a subtraction, one die dropped or kept; then
       sums too big to pack. */
    static const char *const sums[][2] = {
        {"d20 + 2", "d20 + k"},           {"4d6kh3 + 2", "4d6kh3 + k"},           {"4d6dh1 + 2", "4d6dh1 + k"},
        {"5d6kl2 + 2", "5d6kl2 + k"},     {"4d6kh3 + d8 + 2", "4d6kh3 + d8 + k"}, {"2d20kl1 - 2", "2d20kl1 - k"},
        {"1d20dl1 + 2", "1d20dl1 + k"},   {"1d20kh1 + 2", "1d20kh1 + k"},         {"7d20 + 2", "7d20 + k"},
        {"12d10kh3 + 2", "12d10kh3 + k"}, {"3d6 - d4", "3d6 - d4 + k - 2"},
    };
    size_t same_text = sizeof sums / sizeof sums[0] - 1;
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++)
        for (uint64_t seed = 1; seed <= 20; seed++) {
            char plain[200], kept[200];
            snprintf(plain, sizeof plain, "let k = 2\nlet r = roll %s\nprint r\nprint r.faces, r.natural\n",
                     sums[i][0]);
            snprintf(kept, sizeof kept, "let k = 2\nlet r = roll %s\nprint r\nprint r.faces, r.natural\n", sums[i][1]);
            run *a = start(plain, seed, NULL), *b = start(kept, seed, NULL);
            ck_assert(a->ok && b->ok);
            if (i < same_text) /* the same text but for the last number */
                ck_assert_msg(strcmp(a->out, b->out) == 0, "seed %d: '%s' vs '%s'", (int)seed, a->out, b->out);
            else /* "3d6 - d4 + 2 - 2": the faces and the total agree */
                ck_assert_str_eq(strchr(a->out, '\n'), strchr(b->out, '\n'));
            finish(a);
            finish(b);
        }
}
END_TEST

START_TEST(test_stat_range_clamps)
{
    /* language.md 4.3: assigning to a stat with `in LO..HI` clamps */
    expect_output("stat level = 1 in 1..20\ncreature a { level 5 }\na.level = 50\nprint a.level\n"
                  "a.level = -3\nprint a.level\n",
                  "20\n1\n");
}
END_TEST

START_TEST(test_ranges_per_creature)
{
    expect_output("stat level = 1\nrange reach = 5 ft * level\n"
                  "creature a { level 5 }\ncreature b { level 1 }\ncreature c { }\n"
                  "print a.reach, b.reach, c.reach\n",
                  "25 ft 5 ft 5 ft\n");
}
END_TEST

START_TEST(test_procedures)
{
    expect_output("procedure twice(x) { return x * 2 }\n"
                  "procedure fact(n) { if n <= 1 { return 1 } else { return n * fact(n - 1) } }\n"
                  "print twice(21), fact(10)\n",
                  "42 3628800\n");
}
END_TEST

START_TEST(test_recursion_limit)
{
    run *r = expect_error("procedure f(n) { return f(n + 1) }\nprint f(1)\n", "nested", NULL);
    ck_assert_ptr_nonnull(strstr(r->v->error.s, "200"));
    finish(r);
    vm_limits lim = vm_default_limits;
    lim.call_depth = 10;
    r = expect_error("procedure f(n) { return f(n + 1) }\nprint f(1)\n", "limit is 10", &lim);
    finish(r);
    /* a depth within the limit is fine */
    expect_output("procedure d(n) { if n <= 0 { return 0 } else { return 1 + d(n - 1) } }\nprint d(150)\n", "150\n");
}
END_TEST

START_TEST(test_step_limit)
{
    vm_limits lim = vm_default_limits;
    lim.steps = 1000;
    run *r = expect_error("repeat 1000000000 { }\n", "step limit", &lim);
    finish(r);
    /* the budget is per command: many short commands all run */
    r = start("repeat 50 { }\nrepeat 50 { }\nrepeat 50 { }\nprint \"ok\"\n", 1, &lim);
    ck_assert(r->ok);
    ck_assert_str_eq(r->out, "ok\n");
    finish(r);
}
END_TEST

/* A limit takes 1 to its most: 0 and past the most are refused and change
   nothing; an unknown name has no most. */
START_TEST(test_limit_values)
{
    vm_limits lim = vm_default_limits;
    ck_assert_uint_eq(vm_limit_most("dice"), 60000);
    ck_assert_uint_eq(vm_limit_most("no-such-limit"), 0);
    ck_assert(!vm_limit_set(&lim, "steps", 0));
    ck_assert(!vm_limit_set(&lim, "dice", 60001));
    ck_assert(!vm_limit_set(&lim, "no-such-limit", 5));
    ck_assert_uint_eq(vm_limit_get(&lim, "steps"), vm_limit_get(&vm_default_limits, "steps"));
    ck_assert_uint_eq(vm_limit_get(&lim, "dice"), vm_limit_get(&vm_default_limits, "dice"));
    ck_assert(vm_limit_set(&lim, "dice", 60000));
    ck_assert(vm_limit_set(&lim, "steps", 1));
    ck_assert_uint_eq(vm_limit_get(&lim, "dice"), 60000);
    ck_assert_uint_eq(vm_limit_get(&lim, "steps"), 1);
}
END_TEST

START_TEST(test_error_in_a_call_unwinds_the_stack)
{
    /* run() keeps the stack top in a register for the instructions that
       call nothing (repeat, jumps, constants); an error in one of them,
       two calls deep with values of the caller below, still leaves the
       stack and the frames as they were before the command */
    const char *bad_count = "procedure f(x) { repeat x { } }\nprocedure g(x) { return 7 + f(x) }\n"
                            "print 1, 2, g(true)\n";
    run *r = expect_error(bad_count, "'repeat' needs a count", NULL);
    ck_assert_ptr_eq(r->v->sp, r->v->stack);
    ck_assert_int_eq(r->v->nframes, 0);
    finish(r);
    vm_limits lim = vm_default_limits;
    lim.steps = 1000;
    r = expect_error("procedure f() { repeat 1000000000 { } }\nprint 1, 2, [3, f()]\n", "step limit", &lim);
    ck_assert_ptr_eq(r->v->sp, r->v->stack);
    ck_assert_int_eq(r->v->nframes, 0);
    finish(r);
    /* and what the fast instructions leave, the others see: a procedure
       that loops, then calls out, then loops, on top of a caller's values */
    expect_output("procedure h(n) { let t = 0\n repeat n { t += 1 }\n let m = max(t, 2)\n repeat m { t += 1 }\n"
                  " return t }\nprint 1, [h(3), h(0)], 2\n",
                  "1 [6, 2] 2\n");
}
END_TEST

START_TEST(test_error_stops_later_commands)
{
    run *r = start("print 1\nprint 1 / 0\nprint 2\n", 1, NULL);
    ck_assert(!r->ok);
    ck_assert_str_eq(r->out, "1\n");
    finish(r);
}
END_TEST

START_TEST(test_loops)
{
    expect_output("let t = 0\nfor x in [1, 2, 3] { t += x }\nprint t\n", "6\n");
    expect_output("let n = 0\nrepeat 4 { n += 1 }\nrepeat 0 { n += 100 }\nprint n\n", "4\n");
}
END_TEST

START_TEST(test_for_over_interval)
{
    /* language.md 4.3: `for NAME in E` where E is an interval */
    expect_output("for i in 1..3 { print i }\n", "1\n2\n3\n");
}
END_TEST

START_TEST(test_if_else_chain)
{
    expect_output("let r = 5\nif r == 20 { print \"c\" } else if r < 10 { print \"l\" } else { print \"o\" }\n", "l\n");
    expect_output("print true and false, true or false, not true\n", "false true false\n");
}
END_TEST

START_TEST(test_string_equality)
{
    /* language.md 3.5: strings compare with == and != */
    expect_output("let s = \"ab\"\nprint s == \"ab\", s != \"ab\", s == \"b\"\n", "true false false\n");
}
END_TEST

START_TEST(test_fail_statement)
{
    run *r = expect_error("fail \"no target in reach\"\n", "no target in reach", NULL);
    finish(r);
}
END_TEST

START_TEST(test_trigger_statement_body_when_unless)
{
    expect_output("trigger t {\n  on hit(a, n) when n > 2 unless n > 10\n  print \"hit\", n\n}\n"
                  "emit hit(1, 1)\nemit hit(1, 5)\nemit hit(1, 11)\n",
                  "hit 5\n");
}
END_TEST

START_TEST(test_trigger_do_block)
{
    /* language.md 5.16: the effect is `do { statements }` */
    expect_output("trigger t {\n  on hit(a, n) when n > 2\n  automatic\n  do {\n    print \"hit\", n\n  }\n}\n"
                  "emit hit(1, 1)\nemit hit(1, 5)\n",
                  "hit 5\n");
}
END_TEST

START_TEST(test_trigger_other_event_ignored)
{
    expect_output("trigger t {\n  on hit(a)\n  print \"hit\", a\n}\nemit miss(1)\nemit hit(2)\n", "hit 2\n");
}
END_TEST

START_TEST(test_trigger_self_emit_limited)
{
    run *r = expect_error("trigger t {\n  on ping(n)\n  emit ping(n + 1)\n}\nemit ping(1)\n", "nested", NULL);
    finish(r);
}
END_TEST

START_TEST(test_trigger_chain_limit)
{
    /* language.md 7.4 and 7.6: a trigger chain stops at depth 32 */
    run *r = expect_error("trigger t {\n  on ping(n)\n  print n\n  emit ping(n + 1)\n}\nemit ping(1)\n",
                          "triggers nested too deeply (limit is 32", NULL);
    ck_assert_ptr_nonnull(strstr(r->out, "\n32\n"));
    ck_assert_ptr_null(strstr(r->out, "\n33\n"));
    finish(r);
}
END_TEST

static const char *encounter = "stat dex = 0\n"
                               "initiative {\n  mode static\n  score dex\n  order highest first\n}\n"
                               "creature valeros \"Valeros\" side party { dex 3 }\n"
                               "creature goblin x3 side enemies { dex 1 }\n";

START_TEST(test_creatures_created)
{
    run *r = start(encounter, 1, NULL);
    ck_assert(r->ok);
    ck_assert_int_eq(r->v->world->ncreatures, 4);
    ck_assert_int_eq(world_find_creature(r->v, "valeros"), 0);
    ck_assert_int_eq(world_find_creature(r->v, "goblin_1"), 1);
    ck_assert_int_eq(world_find_creature(r->v, "goblin_3"), 3);
    ck_assert_int_lt(world_find_creature(r->v, "goblin"), 0);
    ck_assert_str_eq(program_string(r->p, r->p->rules->sides[r->v->world->creatures[0].side]), "party");
    finish(r);
}
END_TEST

START_TEST(test_duplicate_creature_is_error)
{
    program *p = program_new();
    run r = {0};
    diag_sink sink = {.fn = on_diag, .user = &r};
    const char *text = "creature a { }\ncreature a { }\n";
    ck_assert_int_ge(compile_string(p, "t.rules", text, strlen(text), &sink, NULL), 1);
    ck_assert_ptr_nonnull(strstr(r.first_error, "already declared"));
    program_free(p);
}
END_TEST

START_TEST(test_runtime_error_location)
{
    const char *text = "let z = 0\nprint 1 + (2 // z)\n";
    run *r = expect_error(text, "division by zero", NULL);
    /* `2 // z` is bytes 21..27 */
    ck_assert_int_eq(r->v->error_at.start, 21);
    ck_assert_int_eq(r->v->error_at.end, 27);
    finish(r);
    r = expect_error("procedure f(x) {\n  return x + 1\n}\nprint f(\"s\")\n", "cannot add", NULL);
    /* inside the procedure: `x + 1` */
    ck_assert_int_eq(r->v->error_at.start, 26);
    ck_assert_int_eq(r->v->error_at.end, 31);
    finish(r);
}
END_TEST

/* A VM for a program of one formula, `6 * 7`, compiled into chunk *ck. */
static vm *formula_vm(program **p, int *ck)
{
    *p = program_new();
    diag_sink sink = {0};
    *ck = -1;
    ck_assert_int_eq(compile_expression(*p, "<e>", "6 * 7", 5, &sink, NULL, ck), 0);
    vm *v = world_open(*p, 0, NULL);
    ck_assert_ptr_nonnull(v);
    return v;
}

START_TEST(test_vm_call_formula)
{
    program *p;
    int ck;
    vm *v = formula_vm(&p, &ck);
    value out;
    /* vm.h: vm_call evaluates a chunk; a fresh VM has its full step budget */
    ck_assert_msg(vm_call(v, ck, -1, NULL, 0, &out), "vm_call failed: %s", v->error.s);
    ck_assert_int_eq(out.type, V_INT);
    ck_assert_int_eq(out.num, 42);
    char buf[32];
    vm_format(v, out, buf, sizeof buf);
    ck_assert_str_eq(buf, "42");
    world_close(v);
    program_free(p);
}
END_TEST

START_TEST(test_cleared_error_gives_back_the_budget)
{
    /* An error empties the step budget, which is how the loop's one check
       per instruction stops at it; clearing the error (a cancelled action
       goes on) gives the budget back, and the next call runs. */
    program *p;
    int ck;
    vm *v = formula_vm(&p, &ck);
    value out;
    int64_t budget = v->steps_left;
    ck_assert(!vm_error(v, (span){0}, "first"));
    ck_assert(!vm_error(v, (span){0}, "second")); /* the first error stays */
    ck_assert_str_eq(v->error.s, "first");
    ck_assert_int_eq(v->steps_left, 0);
    ck_assert(!vm_call(v, ck, -1, NULL, 0, &out));
    vm_clear_error(v);
    ck_assert(!v->failed);
    ck_assert_int_eq(v->steps_left, budget);
    ck_assert_msg(vm_call(v, ck, -1, NULL, 0, &out), "vm_call failed: %s", v->error.s);
    ck_assert_int_eq(out.num, 42);
    world_close(v);
    program_free(p);
}
END_TEST

/* --- the arguments of play commands, by the slots commands.def gives ------- */

/* Arguments for every slot of a family: one value where one is taken, a
   LIST of one (every count says 1), `rest` values for a REST or an OPT. */
static int fill_slots(const command_layout *l, int rest, value *args)
{
    int argc = 0;
    for (int s = 0; s < l->nslots; s++) {
        int n = l->slots[s].kind == SLOT_REST || l->slots[s].kind == SLOT_OPT ? rest : 1;
        for (int i = 0; i < n; i++)
            args[argc++] = value_int(1);
    }
    return argc;
}

/* Every family's layout reads back as it was filled: each slot where it
   was put and as long, however many a REST or an OPT holds; and one value
   too many or too few is refused. */
START_TEST(test_command_layouts_read_back)
{
    for (int cmd = 0; cmd < CMD_COUNT; cmd++) {
        const command_layout *l = &command_layouts[command_families[cmd]];
        ck_assert_int_le(l->nslots, COMMAND_MAX_SLOTS);
        for (int rest = 0; rest <= 1; rest++) {
            value args[2 * COMMAND_MAX_SLOTS + 1];
            int argc = fill_slots(l, rest, args);
            command_args a;
            ck_assert_msg(command_args_read((command_id)cmd, args, argc, &a), "%s: its layout does not read back",
                          command_words[cmd]);
            for (int s = 0, at = 0; s < l->nslots; s++) {
                int n = l->slots[s].kind == SLOT_REST || l->slots[s].kind == SLOT_OPT ? rest : 1;
                ck_assert_msg(a.slot[s].at == at && a.slot[s].n == n, "%s: slot %d read at %d (%d values)",
                              command_words[cmd], s, a.slot[s].at, a.slot[s].n);
                at += n;
            }
            bool any_rest = false, any_opt = false;
            for (int s = 0; s < l->nslots; s++) {
                any_rest |= l->slots[s].kind == SLOT_REST;
                any_opt |= l->slots[s].kind == SLOT_OPT;
            }
            /* one more fits only a REST, or an OPT left empty */
            args[argc] = value_int(1);
            if (!any_rest && (rest == 1 || !any_opt))
                ck_assert_msg(!command_args_read((command_id)cmd, args, argc + 1, &a), "%s: one too many read",
                              command_words[cmd]);
            /* with every REST and OPT empty, one fewer leaves a slot unfilled */
            if (rest == 0 && argc > 0)
                ck_assert_msg(!command_args_read((command_id)cmd, args, argc - 1, &a), "%s: one too few read",
                              command_words[cmd]);
        }
    }
}
END_TEST

/* `hold a strike b c on walked(_, x)` as the compiler pushes it: two
   lists, each with its count after it, are found from the end. */
START_TEST(test_hold_slots_where_pushed)
{
    value args[] = {value_int(100), value_int(101), value_int(102), value_int(7), value_int(2),
                    value_nil(),    value_int(103), value_int(3),   value_int(2)};
    command_args a;
    ck_assert(command_args_read(CMD_HOLD, args, 9, &a));
    ck_assert_int_eq(command_arg(&a, ARG_HOLD_WHO).num, 100);
    ck_assert_int_eq(command_count(&a, ARG_HOLD_ARGS), 2);
    ck_assert_int_eq(command_list(&a, ARG_HOLD_ARGS)[1].num, 102);
    ck_assert_int_eq(command_arg(&a, ARG_HOLD_ACTION).num, 7);
    ck_assert_int_eq(command_count(&a, ARG_HOLD_PATTERN), 2);
    ck_assert_int_eq(command_list(&a, ARG_HOLD_PATTERN)[1].num, 103);
    ck_assert_int_eq(command_arg(&a, ARG_HOLD_EVENT).num, 3);
    /* a count that does not match what is there */
    args[4] = value_int(3);
    ck_assert(!command_args_read(CMD_HOLD, args, 9, &a));
    args[4] = value_int(2);
    args[8] = value_int(9);
    ck_assert(!command_args_read(CMD_HOLD, args, 9, &a));
}
END_TEST

/* `zone hall next to a, b with dark`: the count before its list, the
   traits after; an OPT slot given nothing reads as nil. */
START_TEST(test_zone_and_optional_slots)
{
    value zone[] = {value_int(50), value_int(2), value_int(51), value_int(52), value_int(53)};
    command_args a;
    ck_assert(command_args_read(CMD_ZONE, zone, 5, &a));
    ck_assert_int_eq(command_count(&a, ARG_ZONE_NEXT), 2);
    ck_assert_int_eq(command_list(&a, ARG_ZONE_NEXT)[0].num, 51);
    ck_assert_int_eq(command_count(&a, ARG_ZONE_TAGS), 1);
    ck_assert_int_eq(command_list(&a, ARG_ZONE_TAGS)[0].num, 53);
    value begin[] = {value_int(60)};
    ck_assert(command_args_read(CMD_BEGIN, begin, 1, &a));
    ck_assert_int_eq(command_arg(&a, ARG_BEGIN_WHAT).num, 60);
    ck_assert_int_eq(command_count(&a, ARG_BEGIN_BY), 0);
    ck_assert_int_eq(command_arg(&a, ARG_BEGIN_BY).type, V_NIL);
}
END_TEST

START_TEST(test_two_vms_independent)
{
    const char *text = "creature a { }\nprint roll d1000000\n";
    run *a = start(text, 5, NULL);
    run *b = start(text, 5, NULL);
    ck_assert(a->ok && b->ok);
    ck_assert_str_eq(a->out, b->out);
    ck_assert_int_eq(a->v->world->ncreatures, 1);
    ck_assert_int_eq(b->v->world->ncreatures, 1);
    finish(a);
    ck_assert_int_eq(b->v->world->ncreatures, 1);
    finish(b);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("vm");
    TCase *a = tcase_create("arithmetic");
    tcase_add_test(a, test_integer_arithmetic);
    tcase_add_test(a, test_exact_fractions);
    tcase_add_test(a, test_let_in_binds_one_roll);
    tcase_add_test(a, test_exact_list_of_dice_is_rolled);
    tcase_add_test(a, test_fraction_display);
    tcase_add_test(a, test_floor_division);
    tcase_add_test(a, test_rounding_builtins);
    tcase_add_test(a, test_every_builtin_has_one_function);
    tcase_add_test(a, test_overflow_is_error);
    tcase_add_test(a, test_division_by_zero);
    tcase_add_test(a, test_distances);
    tcase_add_test(a, test_durations);
    suite_add_tcase(s, a);
    TCase *d = tcase_create("dice");
    tcase_add_test(d, test_dice_reproducible);
    tcase_add_test(d, test_roll_natural_and_total);
    tcase_add_test(d, test_roll_range);
    tcase_add_test(d, test_two_vms_independent);
    suite_add_tcase(s, d);
    TCase *c = tcase_create("control");
    tcase_add_test(c, test_derived_stats_follow_inputs);
    tcase_add_test(c, test_stat_range_clamps);
    tcase_add_test(c, test_ranges_per_creature);
    tcase_add_test(c, test_procedures);
    tcase_add_test(c, test_recursion_limit);
    tcase_add_test(c, test_step_limit);
    tcase_add_test(c, test_limit_values);
    tcase_add_test(c, test_error_in_a_call_unwinds_the_stack);
    tcase_add_test(c, test_error_stops_later_commands);
    tcase_add_test(c, test_loops);
    tcase_add_test(c, test_for_over_interval);
    tcase_add_test(c, test_if_else_chain);
    tcase_add_test(c, test_string_equality);
    tcase_add_test(c, test_stat_defaults_follow_modifiers);
    tcase_add_test(c, test_roll_records_kept);
    tcase_add_test(c, test_packed_rolls_match_kept_faces);
    tcase_add_test(c, test_fail_statement);
    tcase_add_test(c, test_runtime_error_location);
    tcase_add_test(c, test_vm_call_formula);
    tcase_add_test(c, test_cleared_error_gives_back_the_budget);
    tcase_add_test(c, test_list_depth_met_where_made);
    tcase_add_test(c, test_format_stops_where_the_buffer_does);
    tcase_add_test(c, test_print_counts_steps);
    tcase_add_test(c, test_equality_by_value);
    tcase_add_test(c, test_strings_built_at_run_time);
    tcase_add_test(c, test_unread_output_not_written);
    suite_add_tcase(s, c);
    TCase *t = tcase_create("triggers");
    tcase_add_test(t, test_trigger_statement_body_when_unless);
    tcase_add_test(t, test_trigger_do_block);
    tcase_add_test(t, test_trigger_other_event_ignored);
    tcase_add_test(t, test_trigger_self_emit_limited);
    tcase_add_test(t, test_trigger_chain_limit);
    suite_add_tcase(s, t);
    TCase *pl = tcase_create("play");
    tcase_add_test(pl, test_creatures_created);
    tcase_add_test(pl, test_duplicate_creature_is_error);
    tcase_add_test(pl, test_command_layouts_read_back);
    tcase_add_test(pl, test_hold_slots_where_pushed);
    tcase_add_test(pl, test_zone_and_optional_slots);
    suite_add_tcase(s, pl);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
