/* Unit tests for the scanner, observed through the parser's output: dice,
 * quantities, exact decimals, newline rules, keywords as names, calls vs
 * names, spans, and lexical errors with their locations. */
#define _POSIX_C_SOURCE 200809L
#include "tests/unit/check_main.h"

#include <stdlib.h>
#include <string.h>

#include "lang/lexer.h"
#include "lang/parse.h"
#include "lang/parser.h"
#include "lang/scanner.h"
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

/* A count of a period the text declares is one quantity, whatever the
   order of the lines; a number and any other word are two tokens, the
   word's span its own. */
START_TEST(test_counts_of_declared_periods)
{
    parsed *p = parse_text("print 2 scenes, 1 scene, 3 watches\nslot move 1 per turn\nperiod scene\n"
                           "override period watch\n");
    assert_clean(p);
    node *pr = item(p, 0);
    const char *want[] = {"scenes", "scene", "watches"};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(child(pr, i)->kind, AST_QTY);
        ck_assert_str_eq(child(pr, i)->text, want[i]);
    }
    ck_assert_int_eq(child(pr, 0)->num, 2);
    ck_assert_int_eq(child(pr, 0)->sp.start, 6);
    ck_assert_int_eq(child(pr, 0)->sp.end, 14);
    node *slot = item(p, 1);
    ck_assert_int_eq(child(slot, 1)->kind, AST_INT);
    done(p);
    p = parse_text("period scene\nlasts 12 vs 2 scenario\n");
    assert_clean(p);
    node *cl = item(p, 1);
    ck_assert_int_eq(child(cl, 0)->kind, AST_INT);
    ck_assert_int_eq(child(cl, 1)->kind, AST_NAME);
    ck_assert_str_eq(child(cl, 1)->text, "vs");
    ck_assert_int_eq(child(cl, 1)->sp.start, 22);
    ck_assert_int_eq(child(cl, 2)->kind, AST_INT);
    ck_assert_int_eq(child(cl, 3)->kind, AST_NAME);
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

static const char *token_name(int tok, char *buf, size_t size)
{
    static const struct {
        int tok;
        const char *name;
    } names[] = {
        {IDENT, "IDENT"},         {CALLNAME, "CALL"}, {INT, "INT"},    {STRING, "STR"},        {INDEX, "INDEX"},
        {ELSE, "ELSE"},           {IF, "IF"},         {TRUE_, "TRUE"}, {SHOW, "SHOW"},         {OVERRIDE, "OVERRIDE"},
        {BONUS, "BONUS"},         {CHECK, "CHECK"},   {ITEM, "ITEM"},  {RELATION, "RELATION"}, {TACTIC, "TACTIC"},
        {ENCOUNTER, "ENCOUNTER"}, {SIDE, "SIDE"},     {STAT, "STAT"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].tok == tok)
            return names[i].name;
    if (tok > 0 && tok < 128)
        snprintf(buf, size, "%c", tok);
    else
        snprintf(buf, size, "T%d", tok);
    return buf;
}

/* The tokens the parser is given for text, each as NAME@start-end, one
   space apart, and the number of errors: what the scanner alone says. */
static const char *scan_all(const char *text)
{
    static char out[2048];
    size_t len = strlen(text);
    source *src = source_new("t.rules", text, len);
    ast_arena *ar = ast_arena_new();
    diag_sink sink = {0};
    lexer lx = {.src = src, .ar = ar, .sink = &sink, .last_token = ';'};
    /* as parse.c scans it: a copy ending in a newline and two NULs */
    char *buf = malloc(len + 3);
    memcpy(buf, text, len);
    buf[len] = '\n';
    buf[len + 1] = buf[len + 2] = '\0';
    yyscan_t scanner;
    lexer_set_active(&lx);
    ck_assert_int_eq(lang_yylex_init_extra(&lx, &scanner), 0);
    YY_BUFFER_STATE b = lang_yy_scan_buffer(buf, len + 3, scanner);
    ck_assert_ptr_nonnull(b);
    size_t o = 0;
    for (;;) {
        LANG_YYSTYPE val;
        LANG_YYLTYPE loc;
        int tok = lang_yylex(&val, &loc, scanner);
        if (tok == 0)
            break;
        char name[16];
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%s@%u-%u", o ? " " : "", token_name(tok, name, sizeof name),
                              loc.start, loc.end);
        ck_assert_uint_lt(o, sizeof out);
    }
    if (sink.errors)
        snprintf(out + o, sizeof out - o, " (%d errors)", sink.errors);
    lang_yy_delete_buffer(b, scanner);
    lang_yylex_destroy(scanner);
    lexer_set_active(NULL);
    free(buf);
    ast_arena_free(ar);
    source_free(src);
    return out;
}

#define ck_assert_scans(text, tokens) ck_assert_str_eq(scan_all(text), tokens)

START_TEST(test_else_after_blank_lines_and_comments)
{
    ck_assert_scans("}\nelse", "}@0-1 ELSE@2-6");
    ck_assert_scans("}\n\n  # why\n\t\r\n  else {", "}@0-1 ELSE@16-20 {@21-22");
    ck_assert_scans("x # same line\nelse", "IDENT@0-1 ELSE@14-18");
    ck_assert_scans("x\n# else\ny", "IDENT@0-1 ;@1-2 IDENT@9-10 ;@10-11");
    ck_assert_scans("x\n\n", "IDENT@0-1 ;@1-2");
    ck_assert_scans("x\n# only a comment", "IDENT@0-1 ;@1-2");
}
END_TEST

START_TEST(test_else_at_end_of_input)
{
    ck_assert_scans("x\nelse", "IDENT@0-1 ELSE@2-6");
    ck_assert_scans("x\nelse\n", "IDENT@0-1 ELSE@2-6");
    ck_assert_scans("x\n  else  ", "IDENT@0-1 ELSE@4-8");
    ck_assert_scans("x\nels", "IDENT@0-1 ;@1-2 IDENT@2-5 ;@5-6");
}
END_TEST

START_TEST(test_else_is_a_whole_word)
{
    ck_assert_scans("x\nelsewhere", "IDENT@0-1 ;@1-2 IDENT@2-11 ;@11-12");
    ck_assert_scans("x\nelse_", "IDENT@0-1 ;@1-2 IDENT@2-7 ;@7-8");
    ck_assert_scans("x\nelse2", "IDENT@0-1 ;@1-2 IDENT@2-7 ;@7-8");
    /* any other byte ends the word, a call's '(' too */
    ck_assert_scans("x\nelse(1)", "IDENT@0-1 CALL@2-6 (@6-7 INT@7-8 )@8-9 ;@9-10");
    ck_assert_scans("x\nelse{", "IDENT@0-1 ELSE@2-6 {@6-7");
    ck_assert_scans("x\nelse#c", "IDENT@0-1 ELSE@2-6");
    ck_assert_scans("x\n else\xc3\xa9", "IDENT@0-1 ELSE@3-7 (1 errors)");
    ck_assert_scans("x\nElse", "IDENT@0-1 ;@1-2 IDENT@2-6 ;@6-7");
}
END_TEST

START_TEST(test_else_where_newlines_do_not_end_items)
{
    /* inside brackets, and after a token that continues the line */
    ck_assert_scans("(x\nelse", "(@0-1 IDENT@1-2 ELSE@3-7");
    ck_assert_scans("x +\n\nelse", "IDENT@0-1 +@2-3 ELSE@5-9");
    ck_assert_scans("x\n$\nelse", "IDENT@0-1 ;@1-2 ELSE@4-8 (1 errors)");
}
END_TEST

START_TEST(test_bracket_after_name_indexes)
{
    ck_assert_scans("foes[0]", "IDENT@0-4 INDEX@4-5 INT@5-6 ]@6-7 ;@7-8");
    ck_assert_scans("f(x)[0][1]",
                    "CALL@0-1 (@1-2 IDENT@2-3 )@3-4 INDEX@4-5 INT@5-6 ]@6-7 INDEX@7-8 INT@8-9 ]@9-10 ;@10-11");
    ck_assert_scans("\"ab\"[0]", "STR@0-4 INDEX@4-5 INT@5-6 ]@6-7 ;@7-8");
    /* a byte reported as an error does not part them */
    ck_assert_scans("a$[0]", "IDENT@0-1 INDEX@2-3 INT@3-4 ]@4-5 ;@5-6 (1 errors)");
    ck_assert_scans("a\x01[0]", "IDENT@0-1 INDEX@2-3 INT@3-4 ]@4-5 ;@5-6 (1 errors)");
    /* nor does it after a space: the '[' is glued to it, not to the space */
    ck_assert_scans("a $[0]", "IDENT@0-1 INDEX@3-4 INT@4-5 ]@5-6 ;@6-7 (1 errors)");
    ck_assert_scans("(a\n$[0])", "(@0-1 IDENT@1-2 INDEX@4-5 INT@5-6 ]@6-7 )@7-8 ;@8-9 (1 errors)");
    ck_assert_scans("1 $[0]", "INT@0-1 [@3-4 INT@4-5 ]@5-6 ;@6-7 (1 errors)");
}
END_TEST

START_TEST(test_bracket_after_space_is_a_list)
{
    ck_assert_scans("show [a, b]", "SHOW@0-4 [@5-6 IDENT@6-7 ,@7-8 IDENT@9-10 ]@10-11 ;@11-12");
    ck_assert_scans("a [0]", "IDENT@0-1 [@2-3 INT@3-4 ]@4-5 ;@5-6");
    ck_assert_scans("a\t[0]", "IDENT@0-1 [@2-3 INT@3-4 ]@4-5 ;@5-6");
    ck_assert_scans("a\r[0]", "IDENT@0-1 [@2-3 INT@3-4 ]@4-5 ;@5-6");
    ck_assert_scans("[0]", "[@0-1 INT@1-2 ]@2-3 ;@3-4");
    /* only after a name, a call, an index or a string */
    ck_assert_scans("1[0]", "INT@0-1 [@1-2 INT@2-3 ]@3-4 ;@4-5");
    ck_assert_scans("show[0]", "SHOW@0-4 [@4-5 INT@5-6 ]@6-7 ;@7-8");
}
END_TEST

START_TEST(test_bracket_after_newline_is_a_list)
{
    ck_assert_scans("a\n[0]", "IDENT@0-1 ;@1-2 [@2-3 INT@3-4 ]@4-5 ;@5-6");
    ck_assert_scans("(a\n[0])", "(@0-1 IDENT@1-2 [@3-4 INT@4-5 ]@5-6 )@6-7 ;@7-8");
    ck_assert_scans("(a # c\n[0])", "(@0-1 IDENT@1-2 [@7-8 INT@8-9 ]@9-10 )@10-11 ;@11-12");
}
END_TEST

START_TEST(test_soft_keywords_start_declarations)
{
    ck_assert_scans("bonus x", "BONUS@0-5 IDENT@6-7 ;@7-8");
    ck_assert_scans("bonus\t_x", "BONUS@0-5 IDENT@6-8 ;@8-9");
    ck_assert_scans("bonus{", "BONUS@0-5 {@5-6");
    ck_assert_scans("check  {", "CHECK@0-5 {@7-8");
    ck_assert_scans("a\nitem sword", "IDENT@0-1 ;@1-2 ITEM@2-6 IDENT@7-12 ;@12-13");
    ck_assert_scans("a; relation r", "IDENT@0-1 ;@1-2 RELATION@3-11 IDENT@12-13 ;@13-14");
    ck_assert_scans("{ tactic t", "{@0-1 TACTIC@2-8 IDENT@9-10 ;@10-11");
    ck_assert_scans("}encounter e", "}@0-1 ENCOUNTER@1-10 IDENT@11-12 ;@12-13");
    ck_assert_scans("override side s", "OVERRIDE@0-8 SIDE@9-13 IDENT@14-15 ;@15-16");
    ck_assert_scans("; # c\n\n  bonus x", ";@0-1 BONUS@9-14 IDENT@15-16 ;@16-17");
    ck_assert_scans("; $ bonus x", ";@0-1 BONUS@4-9 IDENT@10-11 ;@11-12 (1 errors)");
}
END_TEST

START_TEST(test_soft_keywords_are_names_elsewhere)
{
    /* not followed by a name or a block */
    ck_assert_scans("bonus 2", "IDENT@0-5 INT@6-7 ;@7-8");
    ck_assert_scans("bonus", "IDENT@0-5 ;@5-6");
    ck_assert_scans("bonus\nx", "IDENT@0-5 ;@5-6 IDENT@6-7 ;@7-8");
    ck_assert_scans("bonus # c", "IDENT@0-5 ;@9-10");
    ck_assert_scans("bonus \xc3\xa9", "IDENT@0-5 ;@8-9 (1 errors)");
    ck_assert_scans("bonus(x)", "CALL@0-5 (@5-6 IDENT@6-7 )@7-8 ;@8-9");
    ck_assert_scans("bonuses x", "IDENT@0-7 IDENT@8-9 ;@9-10");
    /* not where a declaration starts */
    ck_assert_scans("x bonus y", "IDENT@0-1 IDENT@2-7 IDENT@8-9 ;@9-10");
    ck_assert_scans("stat bonus x", "STAT@0-4 IDENT@5-10 IDENT@11-12 ;@12-13");
    ck_assert_scans("(check x", "(@0-1 IDENT@1-6 IDENT@7-8 ;@9-9");
    ck_assert_scans("a,\nside x", "IDENT@0-1 ,@1-2 IDENT@3-7 IDENT@8-9 ;@9-10");
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
    tcase_add_test(t, test_counts_of_declared_periods);
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
    TCase *c = tcase_create("context");
    tcase_add_test(c, test_else_after_blank_lines_and_comments);
    tcase_add_test(c, test_else_at_end_of_input);
    tcase_add_test(c, test_else_is_a_whole_word);
    tcase_add_test(c, test_else_where_newlines_do_not_end_items);
    tcase_add_test(c, test_bracket_after_name_indexes);
    tcase_add_test(c, test_bracket_after_space_is_a_list);
    tcase_add_test(c, test_bracket_after_newline_is_a_list);
    tcase_add_test(c, test_soft_keywords_start_declarations);
    tcase_add_test(c, test_soft_keywords_are_names_elsewhere);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
