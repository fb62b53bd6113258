/* Out-of-memory paths: compile and run a script, and play a session, with
 * the Nth allocation failing, for every N until one run needs no failure.
 * Each run must end in an error or success, never a crash, and free
 * everything it took. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "tests/unit/check_main.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fray.h"
#include "runtime/base/mem.h"

static const char script[] =
    "use core, d20\n"
    "stat level = 1 in 1..20\n"
    "stat dex = 0\n"
    "stat ac = 10 + dex\n"
    "resource hp max 10\n"
    "range reach = 5 ft + 5 ft * (level // 5)\n"
    "economy { slot standard 1 per turn\n slot free any per round }\n"
    "check init(self) = d20 + self.dex\n"
    "check strike(a, t) = d20 + a.level { success \"hit\" }\n"
    "initiative { roll init\n ties dex, reroll }\n"
    "encounter { out when self.hp <= 0\n track hp, ac }\n"
    "condition prone { modify ac by -2\n modify incoming strike by 2\n lasts 1 round }\n"
    "procedure hit(a, t) {\n"
    "  let r = strike(a, t)\n"
    "  if r >= t.ac { t.hp -= roll d6 + 1 }\n"
    "  emit struck(t)\n"
    "  return r\n"
    "}\n"
    "trigger note { on struck(t) when t.hp < 5; do { print t, \"is hurt\" } }\n"
    "action attack costs standard { hit(self, target)\n apply(target, prone, nothing, self) }\n"
    "creature a { level 5; dex 2 }\n"
    "creature b x2 { dex 1 }\n"
    "begin encounter\n"
    "roll initiative\n"
    "let xs = [1, 2, 3]\n"
    "for x in xs { print x, a.reach, [x, d6 + x] }\n"
    "print roll 4d6kh3, 7 / 2, clamp(9, 1, 5), natural_one(roll d20)\n"
    "next\nnext\nshow\nexplain\n"
    "print 1 / 0\n"
    "end encounter\n";

static void quiet(void *user, const char *line)
{
    (void)user;
    (void)line;
}

static bool last_error_is_division;

static void quiet_diag(void *user, const fray_diagnostic *d)
{
    int *errors = user;
    (*errors)++;
    last_error_is_division = strstr(d->message, "division by zero") != NULL;
}

START_TEST(test_every_allocation_can_fail)
{
    size_t before = mem_live_bytes();
    int completed = 0;
    long n;
    for (n = 0; n < 20000 && !completed; n++) {
        mem_fail_after(n);
        fray *f = fray_open(&(fray_options){.seed = 1});
        if (f) {
            int errors = 0;
            fray_on_output(f, quiet, NULL);
            fray_on_diagnostic(f, quiet_diag, &errors);
            fray_status st = fray_run_string(f, "oom.rules", script, strlen(script));
            /* the script ends in a division by zero: reaching it means
               everything before ran */
            if (st == FRAY_ERR_RULES && errors == 1 && last_error_is_division)
                completed = 1;
            else
                ck_assert_int_gt(errors, 0); /* a failure always says why */
            fray_close(f);
        }
        mem_fail_after(-1);
        ck_assert_msg(mem_live_bytes() == before, "leak after failing allocation %ld: %zu bytes", n,
                      mem_live_bytes() - before);
    }
    ck_assert_msg(completed, "the script never ran to the end");
    ck_assert_int_gt(n, 50); /* the script does allocate: the loop tested something */
}
END_TEST

/* A copy of a context that has played (fray_clone), with the Nth
   allocation failing: NULL and nothing kept, or a copy that plays on. */
START_TEST(test_clone_every_allocation_can_fail)
{
    int errors = 0;
    fray *f = fray_open(&(fray_options){.seed = 1});
    ck_assert_ptr_nonnull(f);
    fray_on_output(f, quiet, NULL);
    fray_on_diagnostic(f, quiet_diag, &errors);
    ck_assert_int_eq(fray_run_string(f, "oom.rules", script, strlen(script)), FRAY_ERR_RULES);
    size_t before = mem_live_bytes();
    bool completed = false;
    long n;
    for (n = 0; n < 100000 && !completed; n++) {
        mem_fail_after(n);
        fray *copy = fray_clone(f);
        mem_fail_after(-1);
        if (copy) {
            completed = true;
            ck_assert_int_eq(fray_run_string(copy, "more.rules", "next\nshow\n", 10), FRAY_OK);
            fray_close(copy);
        }
        ck_assert_msg(mem_live_bytes() == before, "leak after failing allocation %ld: %zu bytes", n,
                      mem_live_bytes() - before);
    }
    ck_assert_msg(completed, "the context was never copied");
    ck_assert_int_gt(n, 20);
    fray_close(f);
}
END_TEST

/* --- a session ------------------------------------------------------------------- */

static void count_diag(void *user, const fray_diagnostic *d)
{
    int *errors = user;
    (void)d;
    (*errors)++;
}

static bool say_yes(void *user, const fray_question *q, char *answer, size_t cap)
{
    (void)user;
    (void)q;
    snprintf(answer, cap, "yes");
    return true;
}

static fray_session *open_session(int *errors)
{
    static const char *const search[] = {"/nowhere"};
    fray_session *s = fray_session_open(&(fray_options){.seed = 1, .search_path = search, .search_path_len = 1});
    if (s) {
        fray_session_on_output(s, quiet, NULL);
        fray_session_on_diagnostic(s, count_diag, errors);
    }
    return s;
}

/* Every step of a session: rules from a file, commands with a question,
 * reseed, undo, redo, reroll, a journal, a save loaded and the journal
 * recovered in another session. True when all of it went through. */
static bool play_session(const char *rules, const char *saved, const char *journal)
{
    int errors = 0;
    fray_session *s = open_session(&errors);
    if (!s)
        return false;
    fray_session_on_ask(s, say_yes, NULL);
    bool ok = fray_session_set_limit(s, "steps", 100000) == FRAY_OK;
    ok &= fray_session_journal(s, journal) == FRAY_OK;
    ok &= fray_session_load_rules(s, rules) == FRAY_OK;
    ok &= fray_session_command(s, "if lucky { print \"lucky\" }\nprint roll d20 + a.hp") == FRAY_OK;
    ok &= fray_session_reseed(s, 9) == FRAY_OK;
    ok &= fray_session_command(s, "print roll d6") == FRAY_OK;
    ok &= fray_session_undo(s, 2) == 2 && fray_session_redo(s, 2) == 2;
    ok &= fray_session_reroll(s) == FRAY_OK;
    ok &= fray_session_run_at(s, 2, "print a.hp") == FRAY_OK;
    ok &= fray_session_undo(s, 1) == 1;
    ok &= fray_session_save(s, saved) == FRAY_OK;
    fray_session_close(s); /* the journal stays */
    fray_session *t = open_session(&errors);
    if (!t)
        return false;
    ok &= fray_session_load(t, saved) == FRAY_OK && fray_session_done(t) == 3 && fray_session_undone(t) == 1;
    ok &= fray_session_redo(t, 1) == 1;
    ok &= fray_session_recover(t, journal) == FRAY_OK && fray_session_done(t) == 3;
    fray_session_close(t);
    return ok && errors == 0;
}

START_TEST(test_session_every_allocation_can_fail)
{
    /* in memory where there is such a folder: a session flushes its files to disk */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char rules[64], saved[64], journal[64];
    snprintf(rules, sizeof rules, "%s/fray-oom-%ld.rules", dir, (long)getpid());
    snprintf(saved, sizeof saved, "%s/fray-oom-%ld.session", dir, (long)getpid());
    snprintf(journal, sizeof journal, "%s/fray-oom-%ld.journal", dir, (long)getpid());
    FILE *out = fopen(rules, "w");
    ck_assert_ptr_nonnull(out);
    fputs("stat hp = 10\nruling lucky \"Is it lucky?\" { answer yes_no; default no }\ncreature a { hp 3 }\n", out);
    fclose(out);
    size_t before = mem_live_bytes();
    bool completed = false;
    long n;
    for (n = 0; n < 100000 && !completed; n++) {
        /* a journal is never written over one an earlier run left */
        unlink(journal);
        mem_fail_after(n);
        completed = play_session(rules, saved, journal);
        mem_fail_after(-1);
        ck_assert_msg(mem_live_bytes() == before, "leak after failing allocation %ld: %zu bytes", n,
                      mem_live_bytes() - before);
    }
    unlink(rules);
    unlink(saved);
    unlink(journal);
    ck_assert_msg(completed, "the session never went through");
    ck_assert_int_gt(n, 50);
}
END_TEST

/* A copy of a session (fray_session_clone) that keeps a copy of its
   context (a checkpoint: more source than one is taken after), with the
   Nth allocation failing: NULL and nothing kept, or a copy that plays on. */
START_TEST(test_session_clone_every_allocation_can_fail)
{
    int errors = 0;
    fray_session *s = open_session(&errors);
    ck_assert_ptr_nonnull(s);
    /* enough rules that the session keeps a copy of its context after them */
    size_t cap = 40000, len = 0;
    char *rules = malloc(cap);
    ck_assert_ptr_nonnull(rules);
    for (int i = 0; len + 64 < cap; i++)
        len += (size_t)snprintf(rules + len, cap - len, "stat s%d = %d\n", i, i);
    ck_assert_int_eq(fray_session_command(s, rules), FRAY_OK);
    free(rules);
    ck_assert_int_eq(fray_session_command(s, "creature a { s3 4 }"), FRAY_OK);
    size_t before = mem_live_bytes();
    bool completed = false;
    long n;
    for (n = 0; n < 100000 && !completed; n++) {
        mem_fail_after(n);
        fray_session *copy = fray_session_clone(s);
        mem_fail_after(-1);
        if (copy) {
            completed = true;
            ck_assert_int_eq(fray_session_command(copy, "print a.s3 + a.s7"), FRAY_OK);
            ck_assert_uint_eq(fray_session_done(copy), 3);
            fray_session_close(copy);
        }
        ck_assert_msg(mem_live_bytes() == before, "leak after failing allocation %ld: %zu bytes", n,
                      mem_live_bytes() - before);
    }
    ck_assert_msg(completed, "the session was never copied");
    ck_assert_int_gt(n, 20);
    ck_assert_uint_eq(fray_session_done(s), 2);
    fray_session_close(s);
}
END_TEST

/* --- fray sim and fray diff --------------------------------------------------------- */

/* Tries `attempt` with the Nth allocation failing, for N = 0, 1, ... until
 * it goes through; each try must leave no memory behind. */
static void each_allocation_fails(bool (*attempt)(long n, void *user), void *user, const char *what)
{
    size_t before = mem_live_bytes();
    bool completed = false;
    long n;
    for (n = 0; n < 100000 && !completed; n++) {
        mem_fail_after(n);
        completed = attempt(n, user);
        mem_fail_after(-1);
        ck_assert_msg(mem_live_bytes() == before, "%s: leak after failing allocation %ld: %zu bytes", what, n,
                      mem_live_bytes() - before);
    }
    ck_assert_msg(completed, "%s never went through", what);
    ck_assert_int_gt(n, 50);
}

/* One simulation of the scenario in the file `user`: a failed one says why
 * (it could end with nothing said, and fray sim exit 1 silently). */
static bool simulate(long n, void *user)
{
    fray *f = fray_open(&(fray_options){.seed = 1});
    if (!f)
        return false;
    int errors = 0;
    fray_on_output(f, quiet, NULL);
    fray_on_diagnostic(f, count_diag, &errors);
    fray_sim_result *r = NULL;
    fray_status st = fray_sim(f, user, &(fray_sim_options){.runs = 3, .threads = 1}, &r);
    bool completed = st == FRAY_OK && r && r->runs == 3;
    if (st != FRAY_OK)
        ck_assert_msg(errors > 0, "fray_sim failed at allocation %ld with nothing said", n);
    fray_sim_free(r);
    fray_close(f);
    return completed;
}

START_TEST(test_sim_every_allocation_can_fail)
{
    char rules[256];
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(rules, sizeof rules, "%s/fray-oom-sim-%ld.rules", dir, (long)getpid());
    FILE *out = fopen(rules, "w");
    ck_assert_ptr_nonnull(out);
    fputs("stat speed = 0\nresource hp max 6\nencounter { out when self.hp <= 0\n track hp }\n"
          "initiative { mode static; score speed }\naction hit { target enemy\n target.hp -= roll d4 }\n"
          "tactic brute { self: hit nearest(self, enemies(self)) }\n"
          "creature a side x tactic brute { speed 2 }\ncreature b side y tactic brute { speed 1 }\n"
          "begin encounter\nroll initiative\nfight\n",
          out);
    fclose(out);
    each_allocation_fails(simulate, rules, "the simulation");
    unlink(rules);
}
END_TEST

/* Two systems loaded and compared: a failed comparison says why. */
static bool compare(long n, void *user)
{
    static const char sys_a[] = "system a \"A\" { § \"x\" }\nstat dex = 0\neconomy { slot main 1 per turn }\n"
                                "check init(self) = d20 + self.dex\ninitiative { roll init }\n";
    static const char sys_b[] = "system b \"B\" { § \"x\" }\nstat dex = 1\neconomy { slot main 2 per turn }\n"
                                "check init(self) = d12 + self.dex\ninitiative { roll init\n order lowest first }\n";
    (void)user;
    fray *a = fray_open(&(fray_options){.seed = 1}), *b = fray_open(&(fray_options){.seed = 1});
    bool completed = false;
    if (a && b) {
        int errors = 0;
        fray_on_output(a, quiet, NULL);
        fray_on_output(b, quiet, NULL);
        fray_on_diagnostic(a, count_diag, &errors);
        fray_on_diagnostic(b, count_diag, &errors);
        fray_report *r = NULL;
        fray_status st = fray_run_string(a, "a.rules", sys_a, strlen(sys_a));
        if (st == FRAY_OK)
            st = fray_run_string(b, "b.rules", sys_b, strlen(sys_b));
        if (st == FRAY_OK)
            st = fray_diff(a, b, &(fray_diff_options){.runs = 10}, &r);
        completed = st == FRAY_OK && r;
        if (st != FRAY_OK)
            ck_assert_msg(errors > 0, "fray diff failed at allocation %ld with nothing said", n);
        fray_report_free(r);
    }
    fray_close(a);
    fray_close(b);
    return completed;
}

START_TEST(test_diff_every_allocation_can_fail)
{
    each_allocation_fails(compare, NULL, "the comparison");
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("oom");
    TCase *tc = tcase_create("oom");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_allocation_can_fail);
    tcase_add_test(tc, test_clone_every_allocation_can_fail);
    tcase_add_test(tc, test_session_every_allocation_can_fail);
    tcase_add_test(tc, test_session_clone_every_allocation_can_fail);
    tcase_add_test(tc, test_sim_every_allocation_can_fail);
    tcase_add_test(tc, test_diff_every_allocation_can_fail);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(make_suite());
}
