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
#include <unistd.h>

#include "fray.h"
#include "tests/unit/check_main.h"
#include "tests/unit/heard_util.h"

static const char *const systems[] = {"legend", "lurasko", "escalation", "shock", "fortitude"};

/* --- what a session prints, kept ---------------------------------------------- */

static void keep(heard *h, const char *line)
{
    heard_add(h, line);
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
            ck_assert_int_ne(fray_session_command(s, "damag a 1\nnxt"), FRAY_OK);
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

/* A command that does not parse, or whose every line starts with a word
   that names no command, keeps the context; one that fails later (a name
   unknown when compiling, an error running) replaces it with a replay. */
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
    /* misspelt command words: each said, nothing compiled */
    ck_assert_int_ne(fray_session_command(s, "damag a 1"), FRAY_OK);
    ck_assert_ptr_eq(fray_session_context(s), f);
    ck_assert_int_ne(fray_session_command(s, "nxt\nbegn encounter"), FRAY_OK);
    ck_assert_ptr_eq(fray_session_context(s), f);
    /* but with a command that compiles, a rebuild */
    ck_assert_int_ne(fray_session_command(s, "print 1\nnxt"), FRAY_OK);
    ck_assert_ptr_ne(fray_session_context(s), f);
    f = fray_session_context(s);
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

/* --- copies ------------------------------------------------------------------------ */

/* The text of one of the shipped example skirmishes (malloc'd). */
static char *read_example(const char *system)
{
    const char *srcdir = getenv("srcdir");
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s-skirmish.rules", srcdir ? srcdir : ".", system);
    FILE *in = fopen(path, "rb");
    ck_assert_msg(in != NULL, "cannot read %s", path);
    char *text = malloc(1 << 20);
    ck_assert_ptr_nonnull(text);
    size_t n = fread(text, 1, (1 << 20) - 1, in);
    text[n] = '\0';
    fclose(in);
    return text;
}

/* The end of the statement at text: a line, and the lines after it while
   braces are open or the next begins with `else`. */
static const char *statement_end(const char *text)
{
    int depth = 0;
    bool quoted = false, comment = false;
    for (const char *c = text; *c; c++) {
        if (*c == '\n') {
            comment = false;
            const char *next = c + 1;
            while (*next == ' ')
                next++;
            if (depth <= 0 && strncmp(next, "else", 4) != 0)
                return c + 1;
        } else if (comment) {
            continue;
        } else if (*c == '"') {
            quoted = !quoted;
        } else if (!quoted && *c == '#') {
            comment = true;
        } else if (!quoted) {
            depth += *c == '{' ? 1 : *c == '}' ? -1 : 0;
        }
    }
    return text + strlen(text);
}

/* Plays the example: its declarations at once (they name each other),
   then from `begin encounter` on statement by statement; with copies,
   each statement in a copy of the context the one before played in (the
   older closed). */
static void play_example(const char *text, heard *h, bool copies)
{
    fray *f = fray_open(&(fray_options){.seed = 3});
    ck_assert_ptr_nonnull(f);
    fray_on_output(f, on_output, h);
    fray_on_diagnostic(f, on_diagnostic, h);
    const char *begin = strstr(text, "\nbegin encounter");
    ck_assert_ptr_nonnull(begin);
    ck_assert_int_eq(fray_run_string(f, "<example>", text, (size_t)(begin + 1 - text)), FRAY_OK);
    for (const char *at = begin + 1; *at;) {
        const char *end = statement_end(at);
        fray_run_string(f, "<example>", at, (size_t)(end - at));
        at = end;
        if (copies) {
            fray *copy = fray_clone(f);
            ck_assert_ptr_nonnull(copy);
            fray_close(f);
            f = copy;
        }
    }
    fray_close(f);
}

/* A copy plays on exactly as the context it was copied from would have:
   the same transcript, dice included, however often it is copied. */
START_TEST(test_copies_play_as_the_original)
{
    char *text = read_example(systems[_i]);
    heard *once = calloc(1, sizeof *once), *copied = calloc(1, sizeof *copied);
    ck_assert_ptr_nonnull(once);
    ck_assert_ptr_nonnull(copied);
    play_example(text, once, false);
    play_example(text, copied, true);
    ck_assert_int_eq(once->errors, 0);
    ck_assert_uint_gt(once->n, 2000); /* a whole fight was played */
    ck_assert_str_eq(once->text, copied->text);
    free(once);
    free(copied);
    free(text);
}
END_TEST

static int64_t eval_int(fray *f, const char *expr)
{
    const char *out;
    ck_assert_int_eq(fray_eval(f, expr, &out), FRAY_OK);
    return strtoll(out, NULL, 10);
}

static void run_lines(fray *f, const char *line, int times)
{
    for (int i = 0; i < times; i++)
        ck_assert_int_eq(fray_run_string(f, "<repl>", line, strlen(line)), FRAY_OK);
}

static void show_log(fray *f, heard *h)
{
    h->n = 0;
    h->lines = 0;
    h->text[0] = '\0';
    fray_on_output(f, on_output, h);
    ck_assert_int_eq(fray_run_string(f, "<repl>", "show log", 8), FRAY_OK);
    fray_on_output(f, NULL, NULL);
}

/* A copy shares the blocks of its log with the original: the lines
   either says after, the oldest either drops, are not in the other's
   log, which outlives the one it was copied from. */
START_TEST(test_copies_share_the_log)
{
    heard *before = calloc(1, sizeof *before), *after = calloc(1, sizeof *after);
    ck_assert(before && after);
    fray *f = fray_open(&(fray_options){.seed = 5});
    ck_assert_ptr_nonnull(f);
    fray_on_output(f, NULL, NULL);
    const char *setup = "check init(self) = d20\ninitiative {\n roll init\n order highest first\n}\n"
                        "creature x side a {}\ncreature y side b {}\nbegin encounter\nroll initiative\n";
    ck_assert_int_eq(fray_run_string(f, "setup", setup, strlen(setup)), FRAY_OK);
    run_lines(f, "next", 300); /* more than a block */
    fray *copy = fray_clone(f);
    ck_assert_ptr_nonnull(copy);
    show_log(copy, before);
    ck_assert_ptr_nonnull(strstr(before->text, "encounter begins"));
    ck_assert_ptr_nonnull(strstr(before->text, "round 151: y's turn\n"));
    run_lines(f, "next", 9000); /* the original drops its oldest blocks */
    show_log(copy, after);
    ck_assert_str_eq(after->text, before->text);
    show_log(f, after);
    ck_assert_ptr_nonnull(strstr(after->text, "earlier lines of the log are no longer kept"));
    ck_assert_ptr_null(strstr(after->text, "encounter begins"));
    run_lines(copy, "next", 1); /* in the block the copy shared last */
    fray_close(f);
    show_log(copy, after);
    ck_assert_int_eq(after->lines, before->lines + 1);
    ck_assert_int_eq(strncmp(after->text, before->text, before->n), 0);
    ck_assert_str_eq(after->text + before->n, "x's turn\n");
    fray_close(copy);
    free(before);
    free(after);
}
END_TEST

/* What is done to a copy is not done to the original, nor the other way
   round, and either outlives the other. */
START_TEST(test_copies_go_their_own_way)
{
    heard *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    fray *f = fray_open(&(fray_options){.seed = 5});
    ck_assert_ptr_nonnull(f);
    fray_on_output(f, on_output, h);
    const char *setup = "use legend\ncreature dorn side party { max_hp 30 }\n";
    ck_assert_int_eq(fray_run_string(f, "setup", setup, strlen(setup)), FRAY_OK);
    fray *copy = fray_clone(f);
    ck_assert_ptr_nonnull(copy);
    const char *more = "dorn.hp -= 7\ncreature orc side foes {}";
    ck_assert_int_eq(fray_run_string(copy, "a", more, strlen(more)), FRAY_OK);
    ck_assert_int_eq(eval_int(copy, "dorn.hp"), 23);
    ck_assert_int_eq(eval_int(f, "dorn.hp"), 30);
    ck_assert_int_eq(eval_int(copy, "len(creatures())"), eval_int(f, "len(creatures())") + 1);
    /* the same dice from where they stood */
    int64_t a = eval_int(f, "roll 10d100"), b = eval_int(copy, "roll 10d100");
    ck_assert_int_eq(a, b);
    fray_close(f); /* what they shared stays the copy's */
    const char *fight = "show\nbegin encounter\nroll initiative\n";
    ck_assert_int_eq(fray_run_string(copy, "b", fight, strlen(fight)), FRAY_OK);
    ck_assert_int_eq(eval_int(copy, "dorn.hp"), 23);
    fray_close(copy);
    free(h);
}
END_TEST

/* Tags, a side's values and strings built at run time go with a copy, and
   the state of play (JSON) lists the tags of a creature and of the
   encounter. */
START_TEST(test_tags_in_copies_and_state)
{
    heard *h = calloc(1, sizeof *h), *state = calloc(1, sizeof *state);
    ck_assert(h && state);
    fray *f = fray_open(&(fray_options){.seed = 5});
    ck_assert_ptr_nonnull(f);
    fray_on_output(f, on_output, h);
    const char *setup = "stat pool = 2 { per side }\nstat label = \"\"\ncreature dorn side party { }\n"
                        "dorn.label = text(\"Good (+\", 3, \")\")\ntag dorn \"Cornered\" with 2 uses for 3 rounds\n"
                        "tag encounter \"Heavy Rain\"\nparty.pool -= 1\n";
    ck_assert_int_eq(fray_run_string(f, "setup", setup, strlen(setup)), FRAY_OK);
    fray *copy = fray_clone(f);
    ck_assert_ptr_nonnull(copy);
    const char *more = "print use_tag(dorn, \"Cornered\")\nparty.pool -= 1\n";
    ck_assert_int_eq(fray_run_string(copy, "a", more, strlen(more)), FRAY_OK);
    ck_assert_int_eq(eval_int(copy, "tag_uses(dorn, \"Cornered\")"), 1);
    ck_assert_int_eq(eval_int(f, "tag_uses(dorn, \"Cornered\")"), 2);
    ck_assert_int_eq(eval_int(copy, "party.pool"), 0);
    ck_assert_int_eq(eval_int(f, "party.pool"), 1);
    fray_close(f);
    ck_assert_int_eq(eval_int(copy, "dorn.label == \"Good (+3)\" ? 1 : 0"), 1);
    ck_assert_int_eq(fray_state(copy, on_output, state), FRAY_OK);
    ck_assert_ptr_nonnull(
        strstr(state->text, "\"tags\": [{\"name\": \"Heavy Rain\", \"uses\": 0, \"lasts\": \"until removed\"}]"));
    ck_assert_ptr_nonnull(
        strstr(state->text, "\"tags\": [{\"name\": \"Cornered\", \"uses\": 1, \"lasts\": \"3 rounds left\"}]"));
    ck_assert_ptr_nonnull(strstr(state->text, "\"label\": \"Good (+3)\""));
    fray_close(copy);
    free(h);
    free(state);
}
END_TEST

/* Asked from inside a command (a question it puts), a copy is refused:
   the state is half-way through it. */
static bool clone_while_asked(void *user, const fray_question *q, char *answer, size_t cap)
{
    (void)q;
    fray_session *s = user;
    ck_assert_ptr_null(fray_session_clone(s));
    ck_assert_ptr_null(fray_clone(fray_session_context(s)));
    snprintf(answer, cap, "no");
    return true;
}

START_TEST(test_no_copy_mid_command)
{
    heard *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    fray_session *s = open_heard(h);
    fray_session_on_ask(s, clone_while_asked, s);
    ck_assert_int_eq(fray_session_command(s, "use legend"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "creature dorn side party {}\ncreature wolf side foes {}"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "begin encounter"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "roll initiative"), FRAY_OK);
    ck_assert(strstr(h->text, "wolf") != NULL);
    fray_session_close(s);
    free(h);
}
END_TEST

/* Entries in a long session, each a command that changes the state. */
static void long_play(fray_session *s, int n)
{
    ck_assert_int_eq(fray_session_command(s, "use legend"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "creature a x2 side red {}\ncreature b side blue {}"), FRAY_OK);
    ck_assert_int_eq(fray_session_command(s, "begin encounter\nroll initiative\nlet l = [0]"), FRAY_OK);
    for (int i = 0; i < n; i++) {
        char command[96];
        snprintf(command, sizeof command, "let l = [roll(d%d), %d]\na_1.hp -= 1\na_1.hp += 1", 4 + i % 17, i);
        ck_assert_int_eq(fray_session_command(s, command), FRAY_OK);
    }
}

/* A session rebuilt from the copies it keeps (after a failure, an undo
   past them, a redo, a look back) is the state a replay of every entry
   from the first gives, dice included: a loaded save replays them all. */
START_TEST(test_rebuilt_from_copies_as_replayed)
{
    char saved[64];
    snprintf(saved, sizeof saved, "/tmp/fray-test-copies-%ld.session", (long)getpid());
    heard *kept = calloc(1, sizeof *kept), *replayed = calloc(1, sizeof *replayed);
    ck_assert_ptr_nonnull(kept);
    ck_assert_ptr_nonnull(replayed);
    fray_session *s = open_heard(kept);
    long_play(s, 1200);
    ck_assert_int_ne(fray_session_command(s, "print 1 // 0"), FRAY_OK);
    ck_assert_uint_eq(fray_session_undo(s, 700), 700);
    ck_assert_int_ne(fray_session_command(s, "print 1 // 0"), FRAY_OK);
    ck_assert_uint_eq(fray_session_redo(s, 300), 300);
    ck_assert_int_eq(fray_session_run_at(s, 100, "print l"), FRAY_OK);
    ck_assert_int_eq(fray_session_reroll(s), FRAY_OK);
    ck_assert_int_ne(fray_session_command(s, "a_1.hp -= 1\nprint 1 // 0"), FRAY_OK);
    /* a copy of the session, played on alike */
    fray_session *copy = fray_session_clone(s);
    ck_assert_ptr_nonnull(copy);
    ck_assert_uint_eq(fray_session_done(copy), fray_session_done(s));
    ck_assert_uint_eq(fray_session_undone(copy), fray_session_undone(s));
    ck_assert_int_eq(fray_session_save(s, saved), FRAY_OK);
    fray_session *t = open_heard(replayed);
    ck_assert_int_eq(fray_session_load(t, saved), FRAY_OK);
    unlink(saved);
    look(s, kept);
    look(t, replayed);
    ck_assert_str_eq(kept->text, replayed->text);
    ck_assert(strstr(kept->text, "a_1") != NULL);
    heard *other = calloc(1, sizeof *other);
    ck_assert_ptr_nonnull(other);
    fray_session_on_output(copy, on_output, other);
    look(copy, other);
    ck_assert_str_eq(other->text, replayed->text);
    fray_session_close(copy);
    fray_session_close(s);
    fray_session_close(t);
    free(kept);
    free(replayed);
    free(other);
}
END_TEST

/* The copies kept are spaced further apart the further back they stand
   (older ones let go as new ones come): undone far past the newest copies,
   then some redone and a failure, the session is at each point the state
   a replay of every entry from the first gives. */
START_TEST(test_spaced_copies_as_replayed)
{
    char saved[64];
    snprintf(saved, sizeof saved, "/tmp/fray-test-spaced-%ld.session", (long)getpid());
    heard *kept = calloc(1, sizeof *kept), *replayed = calloc(1, sizeof *replayed);
    ck_assert_ptr_nonnull(kept);
    ck_assert_ptr_nonnull(replayed);
    fray_session *s = open_heard(kept);
    long_play(s, 2400); /* copies taken every 64 entries: more than are kept */
    static const size_t at[] = {1, 300, 900, 2100, 2300};
    size_t undone = 0;
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        ck_assert_uint_eq(fray_session_undo(s, at[k] - undone), at[k] - undone);
        undone = at[k];
        if (k == 3) {
            ck_assert_uint_eq(fray_session_redo(s, 500), 500);
            ck_assert_int_ne(fray_session_command(s, "print 1 // 0"), FRAY_OK);
            ck_assert_uint_eq(fray_session_undo(s, 500), 500);
        }
        ck_assert_int_eq(fray_session_save(s, saved), FRAY_OK);
        fray_session *t = open_heard(replayed);
        ck_assert_int_eq(fray_session_load(t, saved), FRAY_OK);
        unlink(saved);
        kept->n = replayed->n = 0;
        kept->text[0] = replayed->text[0] = '\0';
        ck_assert_int_eq(fray_state(fray_session_context(s), on_output, kept), FRAY_OK);
        ck_assert_int_eq(fray_state(fray_session_context(t), on_output, replayed), FRAY_OK);
        ck_assert_int_eq(fray_session_command(s, "print l, roll(d100)"), FRAY_OK);
        ck_assert_int_eq(fray_session_command(t, "print l, roll(d100)"), FRAY_OK);
        ck_assert_str_eq(kept->text, replayed->text);
        ck_assert_uint_eq(fray_session_undo(s, 1), 1); /* the print goes again */
        fray_session_close(t);
    }
    fray_session_close(s);
    free(kept);
    free(replayed);
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
    TCase *copies = tcase_create("copies");
    tcase_set_timeout(copies, 120);
    tcase_add_loop_test(copies, test_copies_play_as_the_original, 0, (int)(sizeof systems / sizeof systems[0]));
    tcase_add_test(copies, test_copies_go_their_own_way);
    tcase_add_test(copies, test_copies_share_the_log);
    tcase_add_test(copies, test_tags_in_copies_and_state);
    tcase_add_test(copies, test_no_copy_mid_command);
    tcase_add_test(copies, test_rebuilt_from_copies_as_replayed);
    tcase_add_test(copies, test_spaced_copies_as_replayed);
    suite_add_tcase(s, copies);
    return s;
}

int main(void)
{
    return check_main(session_suite());
}
