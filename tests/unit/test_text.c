/* text: a string built piece by piece grows as it needs to and is never
 * cut to fit; out of memory, it ends in "..." and says it was cut. */
#include "tests/unit/check_main.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/text.h"

START_TEST(test_grows_past_its_room)
{
    size_t live = mem_live_bytes();
    text_buf t;
    text_init(&t);
    for (int i = 0; i < 2000; i++)
        text_add(&t, "%s%d", i ? "," : "", i % 10);
    ck_assert_uint_eq(t.len, 2000 * 2 - 1);
    ck_assert_uint_eq(strlen(t.s), t.len);
    ck_assert(!t.cut);
    ck_assert_int_eq(t.s[0], '0');
    ck_assert_int_eq(t.s[t.len - 1], '9');
    ck_assert_ptr_ne(t.s, t.room); /* it left its room for memory of its own */
    text_free(&t);
    ck_assert_uint_eq(mem_live_bytes(), live);
}
END_TEST

START_TEST(test_one_long_piece_whole)
{
    char piece[5001];
    memset(piece, 'x', sizeof piece - 1);
    piece[sizeof piece - 1] = '\0';
    text_buf t;
    text_init(&t);
    text_put(&t, "[");
    text_add(&t, "%s]", piece);
    ck_assert_uint_eq(t.len, 5002);
    ck_assert_int_eq(t.s[0], '[');
    ck_assert_int_eq(t.s[5000], 'x');
    ck_assert_int_eq(t.s[5001], ']');
    ck_assert_int_eq(t.s[5002], '\0');
    text_putn(&t, "abc", 2);
    ck_assert_str_eq(t.s + 5002, "ab");
    text_free(&t);
}
END_TEST

START_TEST(test_clear_and_move)
{
    text_buf a, b;
    text_init(&a);
    text_init(&b);
    text_put(&a, "short");
    text_move(&b, &a);
    ck_assert_str_eq(b.s, "short");
    ck_assert_str_eq(a.s, "");
    ck_assert_uint_eq(a.len, 0);
    for (int i = 0; i < 100; i++)
        text_put(&a, "0123456789");
    text_move(&b, &a); /* b's old text is given back, a's memory taken over */
    ck_assert_uint_eq(b.len, 1000);
    ck_assert_uint_eq(a.len, 0);
    text_clear(&b);
    ck_assert_str_eq(b.s, "");
    text_put(&b, "again");
    ck_assert_str_eq(b.s, "again");
    text_free(&a);
    text_free(&b);
}
END_TEST

START_TEST(test_out_of_memory_says_it_was_cut)
{
    size_t live = mem_live_bytes();
    text_buf t;
    text_init(&t);
    text_put(&t, "begins");
    mem_fail_after(0);
    char piece[1000];
    memset(piece, 'y', sizeof piece - 1);
    piece[sizeof piece - 1] = '\0';
    text_add(&t, " %s", piece);
    text_put(&t, " and more");
    mem_fail_after(-1);
    ck_assert(t.cut);
    ck_assert_uint_eq(strlen(t.s), t.len);
    ck_assert_uint_lt(t.len, sizeof t.room);
    ck_assert_int_eq(strncmp(t.s, "begins", 6), 0);
    ck_assert_str_eq(t.s + t.len - 3, "...");
    text_free(&t);
    ck_assert_uint_eq(mem_live_bytes(), live);
}
END_TEST

static Suite *text_suite(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_grows_past_its_room);
    tcase_add_test(tc, test_one_long_piece_whole);
    tcase_add_test(tc, test_clear_and_move);
    tcase_add_test(tc, test_out_of_memory_says_it_was_cut);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(text_suite());
}
