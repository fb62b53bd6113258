/* Unit tests for the parser: every declaration kind, play commands,
 * statements, error recovery, independent parsers and incomplete input. */
#define _POSIX_C_SOURCE 200809L
#include "tests/unit/check_main.h"

#include <stdlib.h>
#include <string.h>

#include "lang/dice_hint.h"
#include "lang/parse.h"
#include "runtime/base/mem.h"
#include "tests/unit/parse_util.h"

static node *nth(const node *list, int i)
{
    ck_assert_ptr_nonnull(list);
    node *c = list ? list->list : NULL;
    while (c && i-- > 0)
        c = c->next;
    ck_assert_ptr_nonnull(c);
    return c;
}

/* Parses one item cleanly and returns it. */
static node *one(parsed *p)
{
    ck_assert_ptr_nonnull(p->root);
    ck_assert_msg(p->sink.errors == 0, "unexpected error: %s", p->msgs[0]);
    ck_assert_int_eq(ast_list_len(p->root), 1);
    return p->root->list;
}

static void assert_decl(const char *text, decl_kind k, const char *name)
{
    parsed *p = parse_text(text);
    node *d = one(p);
    ck_assert_msg(d->kind == AST_DECL, "%s: kind %s", text, ast_kind_name(d->kind));
    ck_assert_msg(d->op == k, "%s: decl %s, want %s", text, decl_kind_name(d->op), decl_kind_name(k));
    if (name)
        ck_assert_str_eq(d->text, name);
    else
        ck_assert_ptr_null(d->text);
    done(p);
}

START_TEST(test_root_is_program)
{
    parsed *p = parse_text("");
    ck_assert_int_eq(p->root->kind, AST_PROGRAM);
    ck_assert_int_eq(ast_list_len(p->root), 0);
    done(p);
}
END_TEST

START_TEST(test_decl_kinds)
{
    assert_decl("system legend \"Legend\" { round 6 s }\n", DK_SYSTEM, "legend");
    assert_decl("resource hp max max_hp\n", DK_RESOURCE, "hp");
    assert_decl("enum size { tiny, small, average }\n", DK_ENUM, "size");
    assert_decl("economy { slot standard 1 per turn role primary }\n", DK_ECONOMY, NULL);
    assert_decl("exchange main -> move\n", DK_EXCHANGE, NULL);
    assert_decl("initiative { roll init; order highest first }\n", DK_INITIATIVE, NULL);
    assert_decl("check attack(a, t) = d20 + a.bab { success \"hit\" }\n", DK_CHECK, "attack");
    assert_decl("bonus dodge stacks\n", DK_BONUS, "dodge");
    assert_decl("relation grapple(holder, held) { one per holder }\n", DK_RELATION, "grapple");
    assert_decl("item sword: weapon \"Sword\" { damage d8 }\n", DK_ITEM, "sword");
    assert_decl("encounter { out when self.hp <= 0 }\n", DK_ENCOUNTER, NULL);
    assert_decl("tactic brute { self: attack nearest(self, enemies(self)) }\n", DK_TACTIC, "brute");
    assert_decl("round { phase movement; phase action }\n", DK_ROUND, NULL);
    assert_decl("duration screen until start of next turn\n", DK_DURATION, "screen");
    assert_decl("range close = 25 ft { beyond 1 by -4 }\n", DK_RANGE, "close");
    assert_decl("space grid { square 5 ft }\n", DK_SPACE, NULL);
    assert_decl("condition prone { modify ac by -2 }\n", DK_CONDITION, "prone");
    assert_decl("action attack(target) costs standard { print target }\n", DK_ACTION, "attack");
    assert_decl("action dodge costs move\n", DK_ACTION, "dodge");
    assert_decl("procedure f(a, b) { return a + b }\n", DK_PROCEDURE, "f");
    assert_decl("trigger t { on hit(a, b) when a > b; do { print a } }\n", DK_TRIGGER, "t");
    assert_decl("ruling surprised \"Q?\" { answer yes_no }\n", DK_RULING, "surprised");
    assert_decl("creature goblin x3 side enemies { dex 2 }\n", DK_CREATURE, "goblin");
}
END_TEST

START_TEST(test_use_and_import)
{
    parsed *p = parse_text("use core, d20_family, d20\nimport \"x/y.rules\"\n");
    ck_assert_int_eq(p->sink.errors, 0);
    node *u = nth(p->root, 0);
    ck_assert_int_eq(u->kind, AST_USE);
    ck_assert_int_eq(ast_list_len(u), 3);
    ck_assert_str_eq(nth(u, 0)->text, "core");
    ck_assert_str_eq(nth(u, 1)->text, "d20_family");
    ck_assert_str_eq(nth(u, 2)->text, "d20");
    node *i = nth(p->root, 1);
    ck_assert_int_eq(i->kind, AST_IMPORT);
    ck_assert_str_eq(i->text, "x/y.rules");
    done(p);
}
END_TEST

START_TEST(test_stat_type_default_range)
{
    parsed *p = parse_text("stat level: int = 1 in 1..20 { derived }\n");
    node *d = one(p);
    ck_assert_int_eq(d->op, DK_STAT);
    ck_assert_str_eq(d->text, "level");
    ck_assert_ptr_nonnull(d->c); /* type */
    ck_assert_str_eq(d->c->text, "int");
    ck_assert_ptr_nonnull(d->a); /* default */
    ck_assert_int_eq(d->a->kind, AST_INT);
    ck_assert_int_eq(d->a->num, 1);
    /* header args: `in` and the interval */
    ck_assert_int_eq(ast_list_len(d), 2);
    ck_assert_int_eq(nth(d, 0)->kind, AST_WORD);
    ck_assert_str_eq(nth(d, 0)->text, "in");
    node *iv = nth(d, 1);
    ck_assert_int_eq(iv->kind, AST_SPAN);
    ck_assert_int_eq(iv->a->num, 1);
    ck_assert_int_eq(iv->b->num, 20);
    ck_assert_ptr_nonnull(d->b);
    ck_assert_str_eq(nth(d->b, 0)->text, "derived");
    done(p);
    p = parse_text("stat dex = 0\n");
    d = one(p);
    ck_assert_ptr_null(d->c);
    ck_assert_int_eq(d->a->num, 0);
    done(p);
}
END_TEST

START_TEST(test_economy_slot_clauses)
{
    parsed *p = parse_text("economy {\n"
                           "  slot standard 1 per turn role primary\n"
                           "  slot immediate 1 per round role reaction borrows swift from this or next turn\n"
                           "  limit swift + immediate <= 3 per round\n"
                           "}\n");
    node *d = one(p);
    ck_assert_int_eq(ast_list_len(d->b), 3);
    node *s1 = nth(d->b, 0);
    ck_assert_int_eq(s1->kind, AST_CLAUSE);
    ck_assert_str_eq(s1->text, "slot");
    ck_assert_int_eq(ast_list_len(s1), 6);
    ck_assert_str_eq(nth(s1, 0)->text, "standard");
    ck_assert_int_eq(nth(s1, 1)->num, 1);
    node *lim = nth(d->b, 2);
    ck_assert_str_eq(lim->text, "limit");
    /* `swift + immediate <= 3` is one argument */
    ck_assert_int_eq(nth(lim, 0)->kind, AST_BINARY);
    done(p);
}
END_TEST

START_TEST(test_exchange_arrow)
{
    parsed *p = parse_text("exchange main -> move\n");
    node *d = one(p);
    ck_assert_int_eq(ast_list_len(d), 3);
    ck_assert_str_eq(nth(d, 1)->text, "->");
    done(p);
}
END_TEST

START_TEST(test_round_phases)
{
    parsed *p = parse_text("round {\n  length 5 s\n  phase movement {\n    skip when round.number == 1\n  }\n"
                           "  phase action\n}\n");
    node *d = one(p);
    ck_assert_int_eq(ast_list_len(d->b), 3);
    node *ph = nth(d->b, 1);
    ck_assert_str_eq(ph->text, "phase");
    ck_assert_ptr_nonnull(ph->b);
    node *skip = nth(ph->b, 0);
    ck_assert_str_eq(skip->text, "skip");
    ck_assert_int_eq(nth(skip, 1)->kind, AST_BINARY);
    ck_assert_int_eq(nth(skip, 1)->a->kind, AST_MEMBER);
    ck_assert_str_eq(nth(skip, 1)->a->text, "number");
    ck_assert_str_eq(nth(nth(d->b, 2), 0)->text, "action");
    done(p);
}
END_TEST

START_TEST(test_duration_and_range_forms)
{
    parsed *p = parse_text("duration charge = 1 round\n");
    node *d = one(p);
    ck_assert_int_eq(d->a->kind, AST_QTY);
    done(p);
    p = parse_text("range extreme = min(1000 ft + 100 ft * level, 3000 ft) {\n  travel 1 round\n}\n");
    d = one(p);
    ck_assert_int_eq(d->a->kind, AST_CALL);
    ck_assert_str_eq(d->a->text, "min");
    ck_assert_str_eq(nth(d->b, 0)->text, "travel");
    done(p);
}
END_TEST

START_TEST(test_action_and_procedure_params)
{
    parsed *p = parse_text("action extra_attack(target, other) costs move_action + 2 * bonus_action {\n"
                           "  attack(self, target)\n}\n");
    node *d = one(p);
    ck_assert_ptr_nonnull(d->c);
    ck_assert_int_eq(ast_list_len(d->c), 2);
    ck_assert_str_eq(nth(d->c, 1)->text, "other");
    ck_assert_str_eq(nth(d, 0)->text, "costs");
    ck_assert_int_eq(nth(d->b, 0)->kind, AST_EXPR_STMT);
    done(p);
    p = parse_text("procedure noargs() { return }\n");
    d = one(p);
    ck_assert_int_eq(ast_list_len(d->c), 0);
    ck_assert_int_eq(nth(d->b, 0)->kind, AST_RETURN);
    ck_assert_ptr_null(nth(d->b, 0)->a);
    done(p);
}
END_TEST

START_TEST(test_trigger_on_when)
{
    parsed *p = parse_text("trigger crit {\n  on hit(attacker, target, r) when r.natural >= 20\n  automatic\n"
                           "  do {\n    print r\n  }\n}\n");
    node *d = one(p);
    node *on = nth(d->b, 0);
    ck_assert_str_eq(on->text, "on");
    ck_assert_int_eq(nth(on, 0)->kind, AST_CALL);
    ck_assert_str_eq(nth(on, 0)->text, "hit");
    ck_assert_int_eq(ast_list_len(nth(on, 0)), 3);
    ck_assert_int_eq(nth(on, 1)->kind, AST_WORD);
    ck_assert_str_eq(nth(on, 1)->text, "when");
    ck_assert_int_eq(nth(on, 2)->kind, AST_BINARY);
    ck_assert_str_eq(nth(d->b, 1)->text, "automatic");
    node *dd = nth(d->b, 2);
    ck_assert_str_eq(dd->text, "do");
    ck_assert_int_eq(nth(dd->b, 0)->kind, AST_PRINT);
    done(p);
}
END_TEST

START_TEST(test_override)
{
    parsed *p = parse_text("override range close = 30 ft\n");
    node *o = one(p);
    ck_assert_int_eq(o->kind, AST_OVERRIDE);
    ck_assert_int_eq(o->a->kind, AST_DECL);
    ck_assert_int_eq(o->a->op, DK_RANGE);
    ck_assert_str_eq(o->a->text, "close");
    done(p);
}
END_TEST

START_TEST(test_play_commands)
{
    parsed *p = parse_text("creature valeros \"Valeros\" side party { dex 2; hp 44 }\n"
                           "creature goblin x3 side enemies { dex 2 }\n"
                           "begin encounter\nroll initiative\nvaleros: attack goblin_2\n"
                           "end turn\nshow order\nend encounter\n");
    ck_assert_int_eq(p->sink.errors, 0);
    ck_assert_int_eq(ast_list_len(p->root), 8);
    node *c = nth(p->root, 0);
    ck_assert_int_eq(c->op, DK_CREATURE);
    ck_assert_int_eq(ast_list_len(c->b), 2);
    ck_assert_str_eq(nth(c->b, 1)->text, "hp");
    node *g = nth(p->root, 1);
    ck_assert_str_eq(nth(g, 0)->text, "x3");
    struct {
        int i;
        decl_kind k;
        const char *arg;
    } cmds[] = {{2, DK_BEGIN, "encounter"},
                {3, DK_ROLL_INITIATIVE, NULL},
                {5, DK_END, "turn"},
                {6, DK_SHOW, "order"},
                {7, DK_END, "encounter"}};
    for (int i = 0; i < 5; i++) {
        node *n = nth(p->root, cmds[i].i);
        ck_assert_int_eq(n->kind, AST_COMMAND);
        ck_assert_int_eq(n->op, cmds[i].k);
        if (cmds[i].arg)
            ck_assert_str_eq(nth(n, 0)->text, cmds[i].arg);
        else
            ck_assert_int_eq(ast_list_len(n), 0);
    }
    node *act = nth(p->root, 4);
    ck_assert_int_eq(act->kind, AST_ACT);
    ck_assert_str_eq(act->text, "valeros");
    ck_assert_int_eq(ast_list_len(act), 2);
    ck_assert_str_eq(nth(act, 0)->text, "attack");
    ck_assert_str_eq(nth(act, 1)->text, "goblin_2");
    done(p);
}
END_TEST

START_TEST(test_statements)
{
    parsed *p = parse_text("let r = roll d20\n"
                           "r = 3\n"
                           "target.hp -= 5\n"
                           "target.hp += 1\n"
                           "if r == 20 { print \"c\" } else if r < 10 { print \"l\" } else { print \"o\" }\n"
                           "for i in 1..3 { print i }\n"
                           "repeat 3 { print roll d6 }\n"
                           "emit hit(self, target, r)\n"
                           "print \"total\", r.total\n"
                           "fail \"no target\"\n"
                           "apply(target, prone)\n"
                           "return 1\n");
    ck_assert_int_eq(p->sink.errors, 0);
    ck_assert_int_eq(ast_list_len(p->root), 12);
    node *let = nth(p->root, 0);
    ck_assert_int_eq(let->kind, AST_LET);
    ck_assert_str_eq(let->text, "r");
    ck_assert_int_eq(let->b->kind, AST_ROLL);
    node *as = nth(p->root, 1);
    ck_assert_int_eq(as->kind, AST_ASSIGN);
    ck_assert_int_eq(as->op, '=');
    node *sub = nth(p->root, 2);
    ck_assert_int_eq(sub->op, '-');
    ck_assert_int_eq(sub->a->kind, AST_MEMBER);
    ck_assert_str_eq(sub->a->text, "hp");
    ck_assert_int_eq(nth(p->root, 3)->op, '+');
    node *iff = nth(p->root, 4);
    ck_assert_int_eq(iff->kind, AST_IF);
    /* else if is a block holding a nested if, whose else is the last block */
    ck_assert_int_eq(iff->c->kind, AST_BLOCK);
    node *inner = nth(iff->c, 0);
    ck_assert_int_eq(inner->kind, AST_IF);
    ck_assert_ptr_nonnull(inner->c);
    ck_assert_int_eq(nth(inner->c, 0)->kind, AST_PRINT);
    node *fo = nth(p->root, 5);
    ck_assert_int_eq(fo->kind, AST_FOR);
    ck_assert_str_eq(fo->text, "i");
    ck_assert_int_eq(fo->a->kind, AST_SPAN);
    ck_assert_int_eq(nth(p->root, 6)->kind, AST_REPEAT);
    node *em = nth(p->root, 7);
    ck_assert_int_eq(em->kind, AST_EMIT);
    ck_assert_str_eq(em->text, "hit");
    ck_assert_int_eq(ast_list_len(em), 3);
    ck_assert_int_eq(ast_list_len(nth(p->root, 8)), 2);
    ck_assert_int_eq(nth(p->root, 9)->kind, AST_FAIL);
    node *call = nth(p->root, 10);
    ck_assert_int_eq(call->kind, AST_EXPR_STMT);
    ck_assert_int_eq(call->a->kind, AST_CALL);
    ck_assert_str_eq(call->a->text, "apply");
    ck_assert_int_eq(nth(p->root, 11)->kind, AST_RETURN);
    ck_assert_int_eq(nth(p->root, 11)->a->num, 1);
    done(p);
}
END_TEST

START_TEST(test_precedence)
{
    parsed *p = parse_text("print roll d20 + 5 >= 15 and not x or y\n");
    node *e = nth(one(p), 0);
    ck_assert_int_eq(e->kind, AST_BINARY); /* or */
    node *andn = e->a;
    ck_assert_int_eq(andn->kind, AST_BINARY);
    node *ge = andn->a;
    ck_assert_int_eq(ge->kind, AST_BINARY);
    ck_assert_int_eq(ge->a->kind, AST_ROLL);
    ck_assert_int_eq(ge->a->a->kind, AST_BINARY); /* roll (d20 + 5) */
    ck_assert_int_eq(andn->b->kind, AST_UNARY);
    done(p);
    p = parse_text("print 1 + 2 * 3 - -4\n");
    e = nth(one(p), 0);
    ck_assert_int_eq(e->op, '-');
    ck_assert_int_eq(e->a->op, '+');
    ck_assert_int_eq(e->a->b->op, '*');
    ck_assert_int_eq(e->b->kind, AST_UNARY);
    done(p);
    p = parse_text("print a ? b : c ? d : e\n");
    e = nth(one(p), 0);
    ck_assert_int_eq(e->kind, AST_COND);
    ck_assert_int_eq(e->c->kind, AST_COND);
    done(p);
}
END_TEST

START_TEST(test_juxtaposed_args_yield_to_operators)
{
    parsed *p = parse_text("condition c {\n  modify attack -2\n  modify attack by -2\n  modify attack (-2)\n}\n");
    node *d = one(p);
    ck_assert_int_eq(ast_list_len(nth(d->b, 0)), 1); /* attack - 2 */
    ck_assert_int_eq(nth(nth(d->b, 0), 0)->kind, AST_BINARY);
    ck_assert_int_eq(ast_list_len(nth(d->b, 1)), 3);
    ck_assert_int_eq(ast_list_len(nth(d->b, 2)), 2);
    done(p);
}
END_TEST

typedef struct counter {
    int n;
    int lines[16];
    const source *src;
} counter;

static void count_diag(void *user, const diag *d)
{
    counter *c = user;
    if (d->level != DIAG_ERROR)
        return;
    if (c->n < 16) {
        int line, col;
        source_line_col(c->src, d->where.start, &line, &col);
        c->lines[c->n] = line;
    }
    c->n++;
}

START_TEST(test_error_recovery_reports_several)
{
    const char *text = "print 1\nprint (1 + )\nprint 2\nprint 3d\nprint 4\nlet = 4\nprint 5\n";
    source *s = source_new("r", text, strlen(text));
    ast_arena *ar = ast_arena_new();
    counter c = {.src = s};
    diag_sink sink = {.fn = count_diag, .user = &c};
    node *root = parse_program(s, 0, ar, &sink);
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(c.n, 3);
    ck_assert_int_eq(sink.errors, 3);
    ck_assert_int_eq(c.lines[0], 2);
    ck_assert_int_eq(c.lines[1], 4);
    ck_assert_int_eq(c.lines[2], 6);
    /* the good lines survive: print 1, 2, 3d (recovered as a dice), 4, 5 */
    int prints = 0;
    for (node *n = root->list; n; n = n->next)
        prints += n->kind == AST_PRINT;
    ck_assert_int_ge(prints, 4);
    ast_arena_free(ar);
    source_free(s);
}
END_TEST

START_TEST(test_error_in_block_recovers)
{
    parsed *p = parse_text("condition a {\n  modify x by )\n}\ncondition b { }\nprint )\nprint 1\n");
    ck_assert_int_eq(p->sink.errors, 2);
    int found_b = 0;
    for (node *n = p->root->list; n; n = n->next)
        found_b |= n->kind == AST_DECL && n->text && strcmp(n->text, "b") == 0;
    ck_assert(found_b);
    done(p);
}
END_TEST

START_TEST(test_syntax_error_message)
{
    parsed *p = parse_text("print max (1, 2)\n");
    ck_assert_int_ge(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "unexpected '('"));
    done(p);
    p = parse_text("if true {\n  print 1\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "unexpected end of input"));
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "never closed"));
    /* parse.h: the tree holds whatever parsed, NULL only when out of memory */
    ck_assert_ptr_nonnull(p->root);
    done(p);
}
END_TEST

/* The end of a line ends a statement as ';' does: an error there names the
   end of the line, not a ';' no one typed; a stat read alone, typed to see
   it, is told how to see it, and only that. */
/* Other dice tools' notations, spelt as Fray writes them; anything else,
   and a keep of more dice than are rolled, gets no spelling. */
START_TEST(test_dice_hints)
{
    char out[64];
    static const char *const word[][2] = {{"2d20H", "2d20kh1"},   {"4d6H3", "4d6kh3"},  {"2d20l", "2d20kl1"},
                                          {"1d20adv", "2d20kh1"}, {"2d20k", "2d20kh1"}, {"d8dis", "2d8kl1"}};
    for (size_t i = 0; i < sizeof word / sizeof word[0]; i++) {
        ck_assert_msg(dice_hint_word(word[i][0], strlen(word[i][0]), out, sizeof out), "%s", word[i][0]);
        ck_assert_str_eq(out, word[i][1]);
    }
    ck_assert(dice_hint("d20", 3, "advantage", 9, out, sizeof out));
    ck_assert_str_eq(out, "2d20kh1");
    ck_assert(dice_hint("1d20", 4, "DIS", 3, out, sizeof out));
    ck_assert_str_eq(out, "2d20kl1");
    static const char *const none[] = {"12ft", "2d20Hx", "3d6H4", "2d", "d0H", "3d6adv", "2d20q"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        ck_assert_msg(!dice_hint_word(none[i], strlen(none[i]), out, sizeof out), "%s", none[i]);
    ck_assert(!dice_hint("d20", 3, "foo", 3, out, sizeof out));
    ck_assert(!dice_hint("goblin", 6, "adv", 3, out, sizeof out));
    ck_assert(!dice_hint("d20", 3, "adv", 3, out, 4)); /* no room: nothing half written is offered */
}
END_TEST

START_TEST(test_syntax_error_at_end_of_line)
{
    parsed *p = parse_text("wolf.hp\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_msg(strstr(p->msgs[0], "unexpected end of line; expected +=") != NULL, "%s", p->msgs[0]);
    ck_assert_msg(strstr(p->msgs[0], "'print' shows it") != NULL, "%s", p->msgs[0]);
    done(p);
    p = parse_text("wolf.hp;\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_msg(strstr(p->msgs[0], "unexpected ';'") != NULL, "%s", p->msgs[0]);
    done(p);
    p = parse_text("procedure f() {\n  let x\n  return 1\n}\n");
    ck_assert_int_ge(p->sink.errors, 1);
    ck_assert_msg(strstr(p->msgs[0], "unexpected end of line; expected '='") != NULL, "%s", p->msgs[0]);
    ck_assert_msg(strstr(p->msgs[0], "print") == NULL, "%s", p->msgs[0]);
    done(p);
}
END_TEST

START_TEST(test_two_parsers_at_once)
{
    /* Interleave two parses with their own arenas and sources: neither
     * may see the other's names, spans or errors. */
    const char *ta = "stat alpha = 1\nprint alpha +\n 2\n";
    const char *tb = "print (\n 3\nprint beta\n"; /* one error, unclosed */
    source *sa = source_new("a", ta, strlen(ta)), *sb = source_new("b", tb, strlen(tb));
    ast_arena *aa = ast_arena_new(), *ab = ast_arena_new();
    diag_sink ka = {0}, kb = {0};
    node *ra = parse_program(sa, 1, aa, &ka);
    node *rb = parse_program(sb, 2, ab, &kb);
    node *ra2 = parse_program(sa, 1, aa, &ka);
    ck_assert_int_eq(ka.errors, 0);
    ck_assert_int_ge(kb.errors, 1);
    ck_assert_int_eq(ast_list_len(ra), 2);
    ck_assert_int_eq(ast_list_len(ra2), 2);
    ck_assert_str_eq(ra->list->text, "alpha");
    ck_assert_int_eq(ra->list->sp.source, 1);
    ck_assert_ptr_nonnull(rb);
    /* freeing one arena leaves the other tree intact */
    ast_arena_free(ab);
    ck_assert_str_eq(ra2->list->text, "alpha");
    ck_assert_int_eq(ra2->list->next->list->kind, AST_BINARY);
    ast_arena_free(aa);
    source_free(sa);
    source_free(sb);
}
END_TEST

/* The nodes under n and the bytes of their text, counted by reading each
   (under ASan, a read of a node given back is an error). */
static long walk(const node *n)
{
    if (!n)
        return 0;
    long count = 1 + walk(n->a) + walk(n->b) + walk(n->c);
    for (const node *c = n->list; c; c = c->next)
        count += walk(c);
    return count + (n->text ? (long)strlen(n->text) : 0);
}

START_TEST(test_release_gives_back_finished_items)
{
    /* Items that start with a keyword and with a name (a name is read, as
       the parser's look ahead, before the item before it is complete). */
    enum { ITEMS = 3000 };
    size_t cap = ITEMS * 64, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < ITEMS; i++) {
        if (i % 3 == 0)
            len += (size_t)snprintf(text + len, cap - len, "stat s_%d = %d + 1\n", i, i);
        else if (i % 3 == 1)
            len += (size_t)snprintf(text + len, cap - len, "hp_%d 4 per round\n", i);
        else
            len += (size_t)snprintf(text + len, cap - len, "x_%d = %d * (%d - 1)\n", i, i, i);
    }
    parsed *p = parse_text(text);
    ck_assert_int_eq(p->sink.errors, 0);
    ck_assert_int_eq(ast_list_len(p->root), ITEMS);
    size_t whole = mem_live_bytes();
    int i = 0;
    for (const node *it = p->root->list; it; it = it->next, i++) {
        /* this item, and the one after it, are still whole */
        ck_assert_int_ge(walk(it), 3);
        if (it->next)
            ck_assert_int_ge(walk(it->next), 3);
        if (i % 3 == 0)
            ck_assert_int_eq(atoi(it->text + 2), i);
        else if (i % 3 == 1)
            ck_assert_int_eq(atoi(it->text + 3), i);
        else
            ck_assert_int_eq(atoi(it->a->text + 2), i);
        ast_arena_release(p->ar, (size_t)i);
    }
    ck_assert_int_eq(i, ITEMS);
    /* the root stays, the rest of the tree is given back */
    ck_assert_int_eq(p->root->kind, AST_PROGRAM);
    ck_assert_msg(mem_live_bytes() < whole / 4, "%zu bytes held of %zu", mem_live_bytes(), whole);
    done(p);
    free(text);
}
END_TEST

static bool incomplete(const char *text)
{
    source *s = source_new("i", text, strlen(text));
    bool r = parse_is_incomplete(s);
    source_free(s);
    return r;
}

START_TEST(test_parse_is_incomplete)
{
    ck_assert(incomplete("if true {"));
    ck_assert(incomplete("condition c {\n  modify ac by 2\n"));
    ck_assert(incomplete("print max(1,"));
    ck_assert(incomplete("print 1 +"));
    ck_assert(!incomplete("if true { print 1 }"));
    ck_assert(!incomplete("print 1"));
    ck_assert(!incomplete("print )"));
    ck_assert(!incomplete("}"));
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("parser");
    TCase *d = tcase_create("declarations");
    tcase_add_test(d, test_root_is_program);
    tcase_add_test(d, test_syntax_error_at_end_of_line);
    tcase_add_test(d, test_dice_hints);
    tcase_add_test(d, test_decl_kinds);
    tcase_add_test(d, test_use_and_import);
    tcase_add_test(d, test_stat_type_default_range);
    tcase_add_test(d, test_economy_slot_clauses);
    tcase_add_test(d, test_exchange_arrow);
    tcase_add_test(d, test_round_phases);
    tcase_add_test(d, test_duration_and_range_forms);
    tcase_add_test(d, test_action_and_procedure_params);
    tcase_add_test(d, test_trigger_on_when);
    tcase_add_test(d, test_override);
    suite_add_tcase(s, d);
    TCase *c = tcase_create("commands");
    tcase_add_test(c, test_play_commands);
    tcase_add_test(c, test_statements);
    tcase_add_test(c, test_precedence);
    tcase_add_test(c, test_juxtaposed_args_yield_to_operators);
    suite_add_tcase(s, c);
    TCase *e = tcase_create("errors");
    tcase_add_test(e, test_error_recovery_reports_several);
    tcase_add_test(e, test_error_in_block_recovers);
    tcase_add_test(e, test_syntax_error_message);
    tcase_add_test(e, test_two_parsers_at_once);
    tcase_add_test(e, test_parse_is_incomplete);
    suite_add_tcase(s, e);
    TCase *r = tcase_create("release");
    tcase_add_test(r, test_release_gives_back_finished_items);
    suite_add_tcase(s, r);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
