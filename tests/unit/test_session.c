/* test_session: a failed command leaves the session's state as a full
 * replay of its timeline makes it. A command that does not parse changed
 * nothing, so the session keeps its context (no rebuild from the first
 * entry); any other failure rebuilds it. Either way, what `show`, the
 * state and the next rolls give is what a session that never saw the
 * failures gives after replaying every entry, for each of the five rule
 * systems. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fray.h"
#include "tests/unit/check_main.h"

static const char *const systems[] = {"legend", "lurasko", "escalation", "shock", "fortitude"};

/* --- what a session prints, kept ---------------------------------------------- */

typedef struct heard {
    char text[1 << 16];
    size_t n;
    int errors, too_many;
} heard;

static void keep(heard *h, const char *line)
{
    size_t len = strlen(line);
    ck_assert_uint_lt(h->n + len + 1, sizeof h->text);
    memcpy(h->text + h->n, line, len);
    h->n += len;
    h->text[h->n++] = '\n';
    h->text[h->n] = '\0';
}

static void on_output(void *user, const char *line)
{
    keep(user, line);
}

static void on_diagnostic(void *user, const fray_diagnostic *d)
{
    heard *h = user;
    h->errors += d->level == FRAY_ERROR;
    h->too_many += strstr(d->message, "too many errors") != NULL;
}

static fray_session *open_heard(heard *h)
{
    fray_session *s = fray_session_open(&(fray_options){.seed = 7});
    ck_assert_ptr_nonnull(s);
    fray_session_on_output(s, on_output, h);
    fray_session_on_diagnostic(s, on_diagnostic, h);
    return s;
}

/* --- a skirmish, with failures between its commands -------------------------------- */

static void play(fray_session *s, const char *system, bool with_failures)
{
    char use[64];
    snprintf(use, sizeof use, "use %s", system);
    const char *const commands[] = {use,
                                    "creature a x2 side red {}",
                                    "creature b side blue {}",
                                    "print roll(3d6)",
                                    "begin encounter",
                                    "roll initiative",
                                    "print roll(d20 + 2d8)",
                                    "let l = [1, [2, 3]]"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        ck_assert_int_eq(fray_session_command(s, commands[i]), FRAY_OK);
        if (with_failures) {
            ck_assert_int_ne(fray_session_command(s, "print (1 +"), FRAY_OK);
            ck_assert_int_ne(fray_session_command(s, "creature c side blue { hp 3"), FRAY_OK);
        }
    }
}

/* What the session shows, its state, and the rolls that come next. */
static void look(fray_session *s, heard *h)
{
    h->n = 0;
    h->text[0] = '\0';
    ck_assert_int_eq(fray_session_command(s, "show"), FRAY_OK);
    ck_assert_int_eq(fray_state(fray_session_context(s), on_output, h), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "print roll(4d6), l, len(creatures())"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "next"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "show"), FRAY_OK);
}

START_TEST(test_failed_parse_keeps_state)
{
    heard *failed = calloc(1, sizeof *failed), *replayed = calloc(1, sizeof *replayed);
    ck_assert_ptr_nonnull(failed);
    ck_assert_ptr_nonnull(replayed);
    fray_session *a = open_heard(failed), *b = open_heard(replayed);
    play(a, systems[_i], true);
    play(b, systems[_i], false);
    /* b: every entry replayed from the first */
    ck_assert_uint_eq(fray_session_undo(b, 1), 1);
    ck_assert_uint_eq(fray_session_redo(b, 1), 1);
    look(a, failed);
    look(b, replayed);
    ck_assert_str_eq(failed->text, replayed->text);
    ck_assert_uint_eq(fray_session_done(a), fray_session_done(b));
    fray_session_close(a);
    fray_session_close(b);
    free(failed);
    free(replayed);
}
END_TEST

/* A command that does not parse keeps the context; one that fails later
   (a name unknown when compiling, an error running) replaces it with a
   replay. */
START_TEST(test_rebuild_only_when_changed)
{
    heard *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    fray_session *s = open_heard(h);
    ck_assert_int_eq(fray_session_command(s, "use legend"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "creature a side red {}"), FRAY_OK);
    fray *f = fray_session_context(s);
    ck_assert_int_ne(fray_session_command(s, "print (1 +"), FRAY_OK);
    ck_assert_ptr_eq(fray_session_context(s), f);
    ck_assert_int_ne(fray_session_command(s, "print \"unclosed"), FRAY_OK);
    ck_assert_ptr_eq(fray_session_context(s), f);
    ck_assert_int_ne(fray_session_command(s, "print no_such_name"), FRAY_OK);
    ck_assert_ptr_ne(fray_session_context(s), f);
    f = fray_session_context(s);
    ck_assert_int_ne(fray_session_command(s, "print 1 // 0"), FRAY_OK);
    ck_assert_ptr_ne(fray_session_context(s), f);
    /* something done to the context outside the timeline: a failure
       rebuilds, as the context may no longer be the timeline's state */
    f = fray_session_context(s);
    ck_assert_int_eq(fray_run_string(f, "<repl>", "show", 4), FRAY_OK);
    ck_assert_int_ne(fray_session_command(s, "print (1 +"), FRAY_OK);
    ck_assert_ptr_ne(fray_session_context(s), f);
    /* a command that runs keeps it too */
    f = fray_session_context(s);
    ck_assert_int_eq(fray_session_command(s, "print roll(d20)"), FRAY_OK);
    ck_assert_ptr_eq(fray_session_context(s), f);
    fray_session_close(s);
    free(h);
}
END_TEST

/* A context reports at most 50 errors; failures that leave no trace do not
   count towards it, as in a context rebuilt after each. */
START_TEST(test_failures_do_not_pile_up)
{
    heard *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    fray_session *s = open_heard(h);
    ck_assert_int_eq(fray_session_command(s, "use legend"), FRAY_OK);
    for (int i = 0; i < 120; i++)
        ck_assert_int_ne(fray_session_command(s, "print (1 +"), FRAY_OK);
    ck_assert_int_eq(h->errors, 120);
    ck_assert_int_eq(h->too_many, 0);
    fray_session_close(s);
    free(h);
}
END_TEST

static Suite *session_suite(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_create("failures");
    tcase_add_loop_test(tc, test_failed_parse_keeps_state, 0, (int)(sizeof systems / sizeof systems[0]));
    tcase_add_test(tc, test_rebuild_only_when_changed);
    tcase_add_test(tc, test_failures_do_not_pile_up);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(session_suite());
}
