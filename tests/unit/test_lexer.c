/* Unit tests for the scanner, observed through the parser's output: dice,
 * quantities, exact decimals, newline rules, keywords as names, calls vs
 * names, spans, and lexical errors with their locations. */
#define _POSIX_C_SOURCE 200809L
#include "tests/unit/check_main.h"

#include <stdlib.h>
#include <string.h>

#include "lang/parse.h"
#include "tests/unit/parse_util.h"

static node *item(const parsed *p, int i)
{
    node *n = p->root->list;
    while (n && i-- > 0)
        n = n->next;
    ck_assert_ptr_nonnull(n);
    return n;
}

static node *child(const node *n, int i)
{
    node *c = n->list;
    while (c && i-- > 0)
        c = c->next;
    ck_assert_ptr_nonnull(c);
    return c;
}

static void assert_clean(const parsed *p)
{
    ck_assert_msg(p->sink.errors == 0, "unexpected error: %s", p->msgs[0]);
}

START_TEST(test_dice_literals)
{
    parsed *p = parse_text("print d20, 4d6kh3, d%, dF, 10d10>=8f1, d6!!\n");
    assert_clean(p);
    node *pr = item(p, 0);
    ck_assert_int_eq(pr->kind, AST_PRINT);
    ck_assert_int_eq(ast_list_len(pr), 6);
    const char *want[] = {"d20", "4d6kh3", "d%", "dF", "10d10>=8f1", "d6!!"};
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(child(pr, i)->kind, AST_DICE);
        ck_assert_str_eq(child(pr, i)->text, want[i]);
    }
    done(p);
}
END_TEST

START_TEST(test_dice_missing_sides)
{
    parsed *p = parse_text("print 3d + 1\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "missing number of sides"));
    ck_assert_int_eq(p->where[0].start, 6);
    ck_assert_int_eq(p->where[0].end, 8);
    done(p);
}
END_TEST

START_TEST(test_quantities)
{
    parsed *p = parse_text("print 5 ft, 1.5 m, 2 rounds, 5ft, 1 minute\n");
    assert_clean(p);
    node *pr = item(p, 0);
    struct {
        const char *unit;
        int64_t num, den;
    } want[] = {{"ft", 5, 1}, {"m", 3, 2}, {"rounds", 2, 1}, {"ft", 5, 1}, {"minute", 1, 1}};
    for (int i = 0; i < 5; i++) {
        node *q = child(pr, i);
        ck_assert_int_eq(q->kind, AST_QTY);
        ck_assert_str_eq(q->text, want[i].unit);
        ck_assert_int_eq(q->num, want[i].num);
        ck_assert_int_eq(q->den, want[i].den);
    }
    /* the span covers number, spaces and unit */
    ck_assert_int_eq(child(pr, 0)->sp.start, 6);
    ck_assert_int_eq(child(pr, 0)->sp.end, 10);
    done(p);
}
END_TEST

START_TEST(test_quantity_at_end_of_input)
{
    /* no trailing newline: the unit's trailing context still matches */
    parsed *p = parse_text("print 6 s");
    assert_clean(p);
    node *q = child(item(p, 0), 0);
    ck_assert_int_eq(q->kind, AST_QTY);
    ck_assert_str_eq(q->text, "s");
    ck_assert_int_eq(q->num, 6);
    done(p);
}
END_TEST

START_TEST(test_decimals_and_percents_exact)
{
    parsed *p = parse_text("print 1.5, 50%, 5%, 0.01, 2.50, 0.333, 12.5%, 0.1234567891\n");
    assert_clean(p);
    node *pr = item(p, 0);
    int64_t want[][2] = {{3, 2}, {1, 2}, {1, 20}, {1, 100}, {5, 2}, {333, 1000}, {1, 8}, {1234567891, 10000000000}};
    for (int i = 0; i < 8; i++) {
        node *f = child(pr, i);
        ck_assert_int_eq(f->kind, AST_FRAC);
        ck_assert_int_eq(f->num, want[i][0]);
        ck_assert_int_eq(f->den, want[i][1]);
    }
    done(p);
}
END_TEST

START_TEST(test_decimal_too_precise)
{
    parsed *p = parse_text("print 0.1234567890123\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "at most 12 digits after the point"));
    done(p);
    p = parse_text("print 0.000000000001\n");
    assert_clean(p);
    ck_assert_int_eq(child(item(p, 0), 0)->num, 1);
    ck_assert_int_eq(child(item(p, 0), 0)->den, 1000000000000);
    done(p);
    /* reduced before it must fit: 10^19 + 1/10^12 in 128 bits is too large,
       but 10^7 and 12 places fits once reduced (its digits pass 2^63) */
    p = parse_text("print 10000000.123456789012, 99999999999999999999.5\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "too large"));
    ck_assert_int_eq(child(item(p, 0), 0)->num, 2500000030864197253);
    ck_assert_int_eq(child(item(p, 0), 0)->den, 250000000000);
    done(p);
}
END_TEST

START_TEST(test_integers)
{
    parsed *p = parse_text("print 0, 42, 9223372036854775807\n");
    assert_clean(p);
    ck_assert_int_eq(child(item(p, 0), 1)->num, 42);
    ck_assert_int_eq(child(item(p, 0), 2)->num, INT64_MAX);
    done(p);
}
END_TEST

START_TEST(test_huge_integer_is_error)
{
    parsed *p = parse_text("print 99999999999999999999\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "integer literal is too large"));
    ck_assert_int_eq(p->where[0].start, 6);
    ck_assert_int_eq(p->where[0].end, 26);
    done(p);
    p = parse_text("print 9223372036854775808\n");
    ck_assert_int_eq(p->sink.errors, 1);
    done(p);
}
END_TEST

START_TEST(test_invalid_number)
{
    parsed *p = parse_text("print 3x\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_str_eq(p->msgs[0], "invalid number '3x'");
    done(p);
}
END_TEST

START_TEST(test_newline_ends_item)
{
    parsed *p = parse_text("print 1\nprint 2\n\n\nprint 3; print 4\n");
    assert_clean(p);
    ck_assert_int_eq(ast_list_len(p->root), 4);
    done(p);
}
END_TEST

START_TEST(test_newline_after_operator_continues)
{
    const char *ops[] = {"+", "-", "*", "//", "==", "and", ".."};
    for (int i = 0; i < 7; i++) {
        char text[64];
        snprintf(text, sizeof text, "let a = 1 %s\n   2\n", ops[i]);
        parsed *p = parse_text(text);
        assert_clean(p);
        ck_assert_int_eq(ast_list_len(p->root), 1);
        ck_assert_int_eq(item(p, 0)->kind, AST_LET);
        done(p);
    }
}
END_TEST

START_TEST(test_newline_inside_parens_continues)
{
    parsed *p = parse_text("print (1\n+ 2)\nprint max(1,\n 2\n)\nprint [1\n, 2]\n");
    assert_clean(p);
    ck_assert_int_eq(ast_list_len(p->root), 3);
    node *b = child(item(p, 0), 0);
    ck_assert_int_eq(b->kind, AST_BINARY);
    ck_assert_int_eq(b->op, '+');
    ck_assert_int_eq(ast_list_len(child(item(p, 1), 0)), 2);
    done(p);
}
END_TEST

START_TEST(test_newline_in_braces_separates)
{
    parsed *p = parse_text("if true {\n print 1\n print 2\n}\n");
    assert_clean(p);
    ck_assert_int_eq(ast_list_len(p->root), 1);
    ck_assert_int_eq(ast_list_len(item(p, 0)->b), 2);
    done(p);
}
END_TEST

START_TEST(test_else_on_next_line)
{
    parsed *p = parse_text("if true { print 1 }\nelse { print 2 }\nprint 3\n");
    assert_clean(p);
    ck_assert_int_eq(ast_list_len(p->root), 2);
    node *i = item(p, 0);
    ck_assert_int_eq(i->kind, AST_IF);
    ck_assert_ptr_nonnull(i->c);
    done(p);
    /* blank lines and comments between } and else */
    p = parse_text("if true { print 1 }\n\n# why\n  else if false { print 2 }\nelse { print 3 }\n");
    assert_clean(p);
    ck_assert_int_eq(ast_list_len(p->root), 1);
    ck_assert_ptr_nonnull(item(p, 0)->c);
    done(p);
}
END_TEST

START_TEST(test_else_prefix_word_is_not_else)
{
    /* `elsewhere` on the next line is an item of its own */
    parsed *p = parse_text("if true { print 1 }\nelsewhere: go\n");
    assert_clean(p);
    ck_assert_int_eq(ast_list_len(p->root), 2);
    ck_assert_ptr_null(item(p, 0)->c);
    ck_assert_int_eq(item(p, 1)->kind, AST_ACT);
    ck_assert_str_eq(item(p, 1)->text, "elsewhere");
    done(p);
}
END_TEST

START_TEST(test_connective_at_line_end_continues)
{
    parsed *p = parse_text("economy {\n  slot standard 1 per\n    turn role primary\n}\n");
    assert_clean(p);
    node *cl = child(item(p, 0)->b, 0);
    ck_assert_int_eq(cl->kind, AST_CLAUSE);
    ck_assert_int_eq(ast_list_len(cl), 6);
    done(p);
}
END_TEST

START_TEST(test_keywords_as_names_in_clause_args)
{
    parsed *p = parse_text("economy { slot free 5 per round role free }\n");
    assert_clean(p);
    node *cl = child(item(p, 0)->b, 0);
    ck_assert_str_eq(cl->text, "slot");
    node *per = child(cl, 2), *round = child(cl, 3);
    ck_assert_int_eq(per->kind, AST_WORD);
    ck_assert_str_eq(per->text, "per");
    ck_assert_str_eq(round->text, "round");
    /* a declaration keyword in name position is a name (parser.y `name`) */
    ck_assert_int_eq(round->kind, AST_NAME);
    done(p);
}
END_TEST

START_TEST(test_keyword_as_name_phase_action)
{
    parsed *p = parse_text("round { phase action }\n");
    assert_clean(p);
    node *cl = child(item(p, 0)->b, 0);
    ck_assert_str_eq(cl->text, "phase");
    ck_assert_str_eq(child(cl, 0)->text, "action");
    ck_assert_int_eq(child(cl, 0)->kind, AST_NAME);
    done(p);
}
END_TEST

START_TEST(test_call_vs_name)
{
    parsed *p = parse_text("print max(1, 2)\nprint round(7/2)\nprint roll(d6)\n");
    assert_clean(p);
    node *c = child(item(p, 0), 0);
    ck_assert_int_eq(c->kind, AST_CALL);
    ck_assert_str_eq(c->text, "max");
    ck_assert_int_eq(ast_list_len(c), 2);
    c = child(item(p, 1), 0);
    ck_assert_int_eq(c->kind, AST_CALL);
    ck_assert_str_eq(c->text, "round");
    /* roll( keeps its keyword meaning */
    ck_assert_int_eq(child(item(p, 2), 0)->kind, AST_ROLL);
    done(p);
    /* with a space, `max` is a name and `(` cannot follow it */
    p = parse_text("print max (1, 2)\n");
    ck_assert_int_ge(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "'('"));
    ck_assert_int_eq(p->where[0].start, 10);
    done(p);
}
END_TEST

START_TEST(test_spans)
{
    parsed *p = parse_text("stat dex = 0\nprint 1 + 22\n");
    assert_clean(p);
    node *st = item(p, 0);
    ck_assert_int_eq(st->sp.start, 0);
    ck_assert_int_eq(st->sp.end, 12);
    node *pr = item(p, 1);
    ck_assert_int_eq(pr->sp.start, 13);
    ck_assert_int_eq(pr->sp.end, 25);
    node *b = child(pr, 0);
    ck_assert_int_eq(b->kind, AST_BINARY);
    ck_assert_int_eq(b->sp.start, 19);
    ck_assert_int_eq(b->sp.end, 25);
    ck_assert_int_eq(b->b->sp.start, 23);
    ck_assert_int_eq(b->b->sp.end, 25);
    ck_assert_int_eq(b->a->sp.start, 19);
    ck_assert_int_eq(b->a->sp.end, 20);
    done(p);
}
END_TEST

START_TEST(test_span_source_index)
{
    source *s = source_new("t", "print 1\n", 8);
    ast_arena *ar = ast_arena_new();
    diag_sink sink = {0};
    node *root = parse_program(s, 7, ar, &sink);
    ck_assert_int_eq(root->list->sp.source, 7);
    ck_assert_int_eq(root->list->list->sp.source, 7);
    ast_arena_free(ar);
    source_free(s);
}
END_TEST

START_TEST(test_strings_and_escapes)
{
    parsed *p = parse_text("print \"a\\tb\\\"c\\\\\\n\", \"\xc2\xa7 ok\"\n");
    assert_clean(p);
    ck_assert_str_eq(child(item(p, 0), 0)->text, "a\tb\"c\\\n");
    ck_assert_str_eq(child(item(p, 0), 1)->text, "\xc2\xa7 ok");
    done(p);
    p = parse_text("print \"a\\q\"\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "unknown escape"));
    ck_assert_int_eq(p->where[0].start, 8);
    done(p);
}
END_TEST

START_TEST(test_unterminated_string)
{
    parsed *p = parse_text("print \"never closed\nprint 1\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_str_eq(p->msgs[0], "unterminated string");
    ck_assert_int_eq(p->where[0].start, 6);
    /* the next line still parses */
    ck_assert_int_eq(ast_list_len(p->root), 2);
    done(p);
}
END_TEST

START_TEST(test_invalid_utf8_outside_string)
{
    /* after a two-byte §, the bad byte is at byte 7 but column 7 */
    parsed *p = parse_text("\xc2\xa7 \"a\" \xff\n");
    ck_assert_int_ge(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "invalid UTF-8 byte 0xff"));
    ck_assert_int_eq(p->where[0].start, 7);
    int line, col;
    source_line_col(p->src, p->where[0].start, &line, &col);
    ck_assert_int_eq(line, 1);
    ck_assert_int_eq(col, 7);
    done(p);
}
END_TEST

START_TEST(test_invalid_utf8_in_string)
{
    parsed *p = parse_text("print \"\xc3\xa9\xff\"\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_ptr_nonnull(strstr(p->msgs[0], "invalid UTF-8"));
    ck_assert_int_eq(p->where[0].start, 9);
    int line, col;
    source_line_col(p->src, p->where[0].start, &line, &col);
    ck_assert_int_eq(col, 9);
    done(p);
    /* a truncated sequence at the end of the string */
    p = parse_text("print \"a\xc3\"\n");
    ck_assert_int_eq(p->sink.errors, 1);
    ck_assert_int_eq(p->where[0].start, 8);
    done(p);
}
END_TEST

START_TEST(test_non_ascii_outside_string)
{
    parsed *p = parse_text("print 1 \xe2\x82\xac\n");
    ck_assert_int_ge(p->sink.errors, 1);
    ck_assert_str_eq(p->msgs[0], "unexpected character '\xe2\x82\xac'");
    ck_assert_int_eq(p->where[0].start, 8);
    ck_assert_int_eq(p->where[0].end, 11);
    done(p);
}
END_TEST

START_TEST(test_comments_and_cite)
{
    parsed *p = parse_text("# a comment\ncondition c {\n  cite \"A\" # trailing\n  \xc2\xa7 \"B\"\n}\n");
    assert_clean(p);
    ck_assert_int_eq(ast_list_len(p->root), 1);
    node *b = item(p, 0)->b;
    ck_assert_int_eq(child(b, 0)->kind, AST_CITE);
    ck_assert_str_eq(child(b, 0)->text, "A");
    ck_assert_str_eq(child(b, 1)->text, "B");
    done(p);
}
END_TEST

START_TEST(test_parse_expression_mode)
{
    source *s = source_new("e", "d20 + dex", 9);
    ast_arena *ar = ast_arena_new();
    diag_sink sink = {0};
    node *e = parse_expression(s, 0, ar, &sink);
    ck_assert_int_eq(sink.errors, 0);
    ck_assert_int_eq(e->kind, AST_BINARY);
    ck_assert_int_eq(e->a->kind, AST_DICE);
    ck_assert_int_eq(e->b->kind, AST_NAME);
    ast_arena_free(ar);
    source_free(s);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("lexer");
    TCase *t = tcase_create("tokens");
    tcase_add_test(t, test_dice_literals);
    tcase_add_test(t, test_dice_missing_sides);
    tcase_add_test(t, test_quantities);
    tcase_add_test(t, test_quantity_at_end_of_input);
    tcase_add_test(t, test_decimals_and_percents_exact);
    tcase_add_test(t, test_decimal_too_precise);
    tcase_add_test(t, test_integers);
    tcase_add_test(t, test_huge_integer_is_error);
    tcase_add_test(t, test_invalid_number);
    tcase_add_test(t, test_strings_and_escapes);
    tcase_add_test(t, test_comments_and_cite);
    tcase_add_test(t, test_parse_expression_mode);
    suite_add_tcase(s, t);
    TCase *n = tcase_create("newlines");
    tcase_add_test(n, test_newline_ends_item);
    tcase_add_test(n, test_newline_after_operator_continues);
    tcase_add_test(n, test_newline_inside_parens_continues);
    tcase_add_test(n, test_newline_in_braces_separates);
    tcase_add_test(n, test_else_on_next_line);
    tcase_add_test(n, test_else_prefix_word_is_not_else);
    tcase_add_test(n, test_connective_at_line_end_continues);
    suite_add_tcase(s, n);
    TCase *k = tcase_create("names");
    tcase_add_test(k, test_keywords_as_names_in_clause_args);
    tcase_add_test(k, test_keyword_as_name_phase_action);
    tcase_add_test(k, test_call_vs_name);
    tcase_add_test(k, test_spans);
    tcase_add_test(k, test_span_source_index);
    suite_add_tcase(s, k);
    TCase *e = tcase_create("errors");
    tcase_add_test(e, test_unterminated_string);
    tcase_add_test(e, test_invalid_utf8_outside_string);
    tcase_add_test(e, test_invalid_utf8_in_string);
    tcase_add_test(e, test_non_ascii_outside_string);
    suite_add_tcase(s, e);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
