/* Unit tests for lang/diag: the exact GCC-style format of diag_print (line,
 * column in characters, source line, caret under the span), sinks and the
 * edit distance behind "did you mean". */
#define _POSIX_C_SOURCE 200809L
#include "tests/unit/check_main.h"

#include <stdlib.h>
#include <string.h>

#include "lang/diag.h"
#include "runtime/base/source.h"
#include "runtime/base/suggest.h"

/* diag_print of one diagnostic into a string (caller frees). */
static char *render(const char *name, const char *text, uint32_t start, uint32_t end, diag_level level, const char *msg)
{
    source *src = source_new(name, text, strlen(text));
    ck_assert_ptr_nonnull(src);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(out);
    diag d = {level, src, {start, end, 0}, msg};
    diag_print(out, &d, false);
    fclose(out);
    source_free(src);
    return buf;
}

START_TEST(test_format_simple)
{
    char *s = render("f.rules", "print dexx\n", 6, 10, DIAG_ERROR, "unknown name 'dexx'");
    ck_assert_str_eq(s, "f.rules:1:7: error: unknown name 'dexx'\n"
                        "    1 | print dexx\n"
                        "      |       ^~~~\n");
    free(s);
}
END_TEST

START_TEST(test_format_column_one_and_levels)
{
    char *s = render("f", "oops\n", 0, 4, DIAG_ERROR, "msg");
    ck_assert_str_eq(s, "f:1:1: error: msg\n    1 | oops\n      | ^~~~\n");
    free(s);
    s = render("f", "oops\n", 0, 1, DIAG_WARNING, "w");
    ck_assert_str_eq(s, "f:1:1: warning: w\n    1 | oops\n      | ^\n");
    free(s);
    s = render("f", "oops\n", 1, 2, DIAG_NOTE, "n");
    ck_assert_str_eq(s, "f:1:2: note: n\n    1 | oops\n      |  ^\n");
    free(s);
}
END_TEST

START_TEST(test_format_second_line)
{
    const char *text = "stat dex = 0\nprint 1 +\n";
    char *s = render("f.rules", text, 13 + 8, 13 + 9, DIAG_ERROR, "x");
    ck_assert_str_eq(s, "f.rules:2:9: error: x\n    2 | print 1 +\n      |         ^\n");
    free(s);
}
END_TEST

START_TEST(test_format_utf8_columns)
{
    /* § is two bytes but one column: `oops` starts at byte 7, column 7 */
    const char *text = "\xc2\xa7 \"x\" oops\n";
    char *s = render("u.rules", text, 7, 11, DIAG_ERROR, "unexpected name");
    ck_assert_str_eq(s, "u.rules:1:7: error: unexpected name\n"
                        "    1 | \xc2\xa7 \"x\" oops\n"
                        "      |       ^~~~\n");
    free(s);
}
END_TEST

START_TEST(test_format_utf8_span_counts_characters)
{
    /* a span over "é!" (3 bytes, 2 characters) gets a caret two columns wide */
    const char *text = "a \"\xc3\xa9!\" b\n";
    char *s = render("u", text, 3, 6, DIAG_ERROR, "m");
    ck_assert_str_eq(s, "u:1:4: error: m\n    1 | a \"\xc3\xa9!\" b\n      |    ^~\n");
    free(s);
}
END_TEST

START_TEST(test_format_tab_is_one_column)
{
    const char *text = "\tx oops\n";
    char *s = render("t", text, 3, 7, DIAG_ERROR, "m");
    ck_assert_str_eq(s, "t:1:4: error: m\n    1 |  x oops\n      |    ^~~~\n");
    free(s);
}
END_TEST

START_TEST(test_format_invalid_byte_one_column)
{
    /* a stray 0xff shows as one '?' column and the caret still lines up */
    const char *text = "a\xff b\n";
    char *s = render("i", text, 1, 2, DIAG_ERROR, "invalid UTF-8 byte 0xff");
    ck_assert_str_eq(s, "i:1:2: error: invalid UTF-8 byte 0xff\n    1 | a? b\n      |  ^\n");
    free(s);
    s = render("i", text, 3, 4, DIAG_ERROR, "m");
    ck_assert_str_eq(s, "i:1:4: error: m\n    1 | a? b\n      |    ^\n");
    free(s);
}
END_TEST

START_TEST(test_format_at_end_of_line)
{
    /* an empty span after the last character (end of input) */
    char *s = render("e", "if true {", 9, 9, DIAG_ERROR, "unexpected end of input");
    ck_assert_str_eq(s, "e:1:10: error: unexpected end of input\n    1 | if true {\n      |          ^\n");
    free(s);
}
END_TEST

/* A line past 160 columns shows the 160 around the caret, "..." where it
   is cut, and the caret still under the column it names. */
START_TEST(test_format_long_line_shows_a_window)
{
    char text[1001];
    for (int i = 0; i < 1000; i++)
        text[i] = (char)('a' + i % 26);
    text[1000] = '\0';
    text[500] = '?';
    char *s = render("long", text, 500, 503, DIAG_ERROR, "m");
    char want[400];
    /* columns 447 to 606 (0-based), the caret 53 columns in */
    snprintf(want, sizeof want, "long:1:501: error: m\n    1 | ...%.160s...\n      | %*s^~~\n", text + 447, 3 + 53, "");
    ck_assert_str_eq(s, want);
    free(s);
    /* at the end of a long line: the last 160 columns, nothing cut after */
    s = render("long", text, 1000, 1000, DIAG_ERROR, "m");
    snprintf(want, sizeof want, "long:1:1001: error: m\n    1 | ...%.160s\n      | %*s^\n", text + 840, 3 + 160, "");
    ck_assert_str_eq(s, want);
    free(s);
    /* a span that runs past what is shown is underlined up to its end */
    s = render("long", text, 10, 900, DIAG_ERROR, "m");
    char under[200];
    memset(under, '~', 159);
    under[159] = '\0';
    snprintf(want, sizeof want, "long:1:11: error: m\n    1 | %.160s...\n      |           ^%.149s\n", text, under);
    ck_assert_str_eq(s, want);
    free(s);
}
END_TEST

START_TEST(test_format_crlf)
{
    char *s = render("c", "ab\r\ncd\r\n", 4, 6, DIAG_ERROR, "m");
    ck_assert_str_eq(s, "c:2:1: error: m\n    2 | cd\n      | ^~\n");
    free(s);
}
END_TEST

START_TEST(test_format_no_source)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    diag d = {DIAG_ERROR, NULL, {0, 0, 0}, "cannot read 'x'"};
    diag_print(out, &d, false);
    fclose(out);
    ck_assert_str_eq(buf, "fray: error: cannot read 'x'\n");
    free(buf);
}
END_TEST

START_TEST(test_format_line_number_width)
{
    char text[64] = "";
    for (int i = 0; i < 11; i++)
        strcat(text, "x\n");
    strcat(text, "bad\n");
    char *s = render("w", text, 22, 25, DIAG_ERROR, "m");
    ck_assert_str_eq(s, "w:12:1: error: m\n   12 | bad\n      | ^~~\n");
    free(s);
}
END_TEST

typedef struct rec {
    int calls;
    char last[256];
} rec;

static void record(void *user, const diag *d)
{
    rec *r = user;
    r->calls++;
    snprintf(r->last, sizeof r->last, "%s", d->message);
}

START_TEST(test_sink_counts_and_formats)
{
    rec r = {0};
    diag_sink sink = {.fn = record, .user = &r};
    source *src = source_new("s", "x", 1);
    diag_report(&sink, DIAG_ERROR, src, (span){0, 1, 0}, "bad %s %d", "thing", 3);
    diag_report(&sink, DIAG_WARNING, src, (span){0, 1, 0}, "warn");
    diag_report(&sink, DIAG_NOTE, src, (span){0, 1, 0}, "note");
    ck_assert_int_eq(sink.errors, 1);
    ck_assert_int_eq(sink.warnings, 1);
    ck_assert_int_eq(r.calls, 3);
    ck_assert_str_eq(r.last, "note");
    diag_report(&sink, DIAG_ERROR, src, (span){0, 1, 0}, "bad %s %d", "thing", 3);
    ck_assert_str_eq(r.last, "bad thing 3");
    source_free(src);
}
END_TEST

START_TEST(test_sink_max_errors)
{
    rec r = {0};
    diag_sink sink = {.fn = record, .user = &r, .max_errors = 2};
    for (int i = 0; i < 5; i++)
        diag_report(&sink, DIAG_ERROR, NULL, (span){0, 0, 0}, "e%d", i);
    ck_assert_int_eq(sink.errors, 5);
    /* two errors, then one "too many errors" notice, then silence */
    ck_assert_int_eq(r.calls, 3);
    ck_assert_ptr_nonnull(strstr(r.last, "too many errors"));
}
END_TEST

START_TEST(test_source_line_col)
{
    source *s = source_new("s", "ab\n\xc2\xa7x\n", 6);
    int line, col;
    source_line_col(s, 0, &line, &col);
    ck_assert_int_eq(line, 1);
    ck_assert_int_eq(col, 1);
    source_line_col(s, 3, &line, &col);
    ck_assert_int_eq(line, 2);
    ck_assert_int_eq(col, 1);
    source_line_col(s, 5, &line, &col);
    ck_assert_int_eq(line, 2);
    ck_assert_int_eq(col, 2);
    size_t len;
    const char *t = source_line(s, 2, &len);
    ck_assert_int_eq(len, 3);
    ck_assert_int_eq(memcmp(t, "\xc2\xa7x", 3), 0);
    source_line(s, 9, &len);
    ck_assert_int_eq(len, 0);
    source_free(s);
}
END_TEST

START_TEST(test_edit_distance)
{
    ck_assert_int_eq(diag_edit_distance("dexx", "dex", 3), 1);
    ck_assert_int_eq(diag_edit_distance("dex", "dex", 3), 0);
    ck_assert_int_eq(diag_edit_distance("kitten", "sitting", 5), 3);
    ck_assert_int_eq(diag_edit_distance("", "abc", 5), 3);
    ck_assert_int_eq(diag_edit_distance("abc", "", 5), 3);
    ck_assert_int_eq(diag_edit_distance("flaw", "lawn", 5), 2);
    ck_assert_int_eq(diag_edit_distance("ab", "ba", 5), 2);
}
END_TEST

/* The closest of cands to typed, or "" when none is close. */
static const char *suggest_of(const char *typed, const char *const *cands, int n)
{
    static suggestion s;
    suggest_init(&s, typed);
    for (int i = 0; i < n; i++)
        suggest_consider(&s, cands[i], i);
    return s.found ? s.best : "";
}

START_TEST(test_suggest_close_for_the_length)
{
    static const char *const words[] = {"dead", "level", "wolf_1", "dorn", "party", "attack", "stride", "x"};
    int n = (int)(sizeof words / sizeof words[0]);
    ck_assert_str_eq(suggest_of("delay", words, n), "");    /* two edits in five letters: too far */
    ck_assert_str_eq(suggest_of("lvl", words, n), "level"); /* vowels left out */
    ck_assert_str_eq(suggest_of("sre", words, n), "");      /* not an abbreviation of stride */
    ck_assert_str_eq(suggest_of("Wolf_1", words, n), "wolf_1");
    ck_assert_str_eq(suggest_of("wolf1", words, n), "wolf_1");
    ck_assert_str_eq(suggest_of("dron", words, n), "dorn"); /* a swap is one edit */
    ck_assert_str_eq(suggest_of("partty", words, n), "party");
    ck_assert_str_eq(suggest_of("atack", words, n), "attack");
    ck_assert_str_eq(suggest_of("y", words, n), "");    /* one letter is close to nothing */
    ck_assert_str_eq(suggest_of("X", words, n), "x");   /* but to itself in another case */
    ck_assert_str_eq(suggest_of("dorn", words, n), ""); /* the word itself is no suggestion */
}
END_TEST

/* A word of a name joined with '_' suggests the name, after anything close
   to a whole name; a word with a digit in it must be one exactly. */
START_TEST(test_suggest_a_word_of_a_name)
{
    static const char *const actions[] = {"move", "melee_attack", "grapple_attack", "pick_up"};
    int n = (int)(sizeof actions / sizeof actions[0]);
    ck_assert_str_eq(suggest_of("attack", actions, n), "melee_attack"); /* the first of two */
    ck_assert_str_eq(suggest_of("atack", actions, n), "melee_attack");  /* close to a word of it */
    ck_assert_str_eq(suggest_of("grapple", actions, n), "grapple_attack");
    ck_assert_str_eq(suggest_of("up", actions, n), ""); /* too short to say */
    ck_assert_str_eq(suggest_of("mve", actions, n), "move");
    static const char *const creatures[] = {"wolf_1", "wolf_2", "wolf"};
    ck_assert_str_eq(suggest_of("wolf3", creatures, 3), "wolf"); /* not wolf_1: one of many */
    static const char *const stats[] = {"attack_bonus", "attack"};
    ck_assert_str_eq(suggest_of("atack", stats, 2), "attack"); /* the whole before a word */
}
END_TEST

START_TEST(test_suggest_fewest_edits_first_on_a_tie)
{
    suggestion s;
    suggest_init(&s, "stre");
    suggest_consider(&s, "stra", 0);
    suggest_consider(&s, "str", 1);
    ck_assert_str_eq(s.best, "stra"); /* one edit each: the first stays */
    ck_assert_int_eq(s.tag, 0);
    suggest_consider(&s, "Stre", 2);
    ck_assert_str_eq(s.best, "Stre"); /* case only: closest of all */
    ck_assert_int_eq(s.tag, 2);
}
END_TEST

START_TEST(test_edit_distance_cap)
{
    /* beyond the cap the result is cap + 1, never less than the cap */
    ck_assert_int_eq(diag_edit_distance("abcdef", "uvwxyz", 2), 3);
    ck_assert_int_gt(diag_edit_distance("initiative", "x", 3), 3);
    char longa[80], longb[80];
    memset(longa, 'a', 79);
    longa[79] = '\0';
    memcpy(longb, longa, 80);
    ck_assert_int_gt(diag_edit_distance(longa, longb, 2), 2);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("diag");
    TCase *tf = tcase_create("format");
    tcase_add_test(tf, test_format_simple);
    tcase_add_test(tf, test_format_column_one_and_levels);
    tcase_add_test(tf, test_format_second_line);
    tcase_add_test(tf, test_format_utf8_columns);
    tcase_add_test(tf, test_format_utf8_span_counts_characters);
    tcase_add_test(tf, test_format_tab_is_one_column);
    tcase_add_test(tf, test_format_invalid_byte_one_column);
    tcase_add_test(tf, test_format_at_end_of_line);
    tcase_add_test(tf, test_format_long_line_shows_a_window);
    tcase_add_test(tf, test_format_crlf);
    tcase_add_test(tf, test_format_no_source);
    tcase_add_test(tf, test_format_line_number_width);
    suite_add_tcase(s, tf);
    TCase *ts = tcase_create("sink");
    tcase_add_test(ts, test_sink_counts_and_formats);
    tcase_add_test(ts, test_sink_max_errors);
    tcase_add_test(ts, test_source_line_col);
    tcase_add_test(ts, test_edit_distance);
    tcase_add_test(ts, test_edit_distance_cap);
    tcase_add_test(ts, test_suggest_close_for_the_length);
    tcase_add_test(ts, test_suggest_a_word_of_a_name);
    tcase_add_test(ts, test_suggest_fewest_edits_first_on_a_tie);
    suite_add_tcase(s, ts);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
