/* embed: a small program that uses Fray as a library, as a chat bot or a
 * virtual tabletop would: it opens a context with a seed and limits, loads
 * a rule system, sets up a fight from strings, plays a few commands, and
 * reads back the state (as JSON), the explanation of an attack, an exact
 * probability, and the diagnostics of a mistake, through callbacks. Then
 * it plays in a session, which undoes, saves to a file (argv[1], or a
 * temporary one) and loads it again.
 *
 * Build it against an installed Fray:
 *     cc embed.c $(pkg-config --cflags --libs fray) -o embed
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fray.h>

/* Where the transcript of play goes: here, prefixed, as a bot would post it. */
static void on_output(void *user, const char *line)
{
    (void)user;
    printf("play> %s\n", line);
}

/* Diagnostics come as data: the location and message apart, and the
   whole report (source line and caret) for people. */
static void on_diagnostic(void *user, const fray_diagnostic *d)
{
    int *errors = user;
    if (d->level == FRAY_ERROR)
        (*errors)++;
    printf("diagnostic: %s line %d column %d: %s\n", d->file ? d->file : "-", d->line, d->column, d->message);
}

static void print_line(void *user, const char *line)
{
    printf("%s%s\n", (const char *)user, line);
}

static int run(fray *f, const char *what, const char *text)
{
    fray_status st = fray_run_string(f, what, text, strlen(text));
    if (st != FRAY_OK)
        printf("%s: failed (status %d)\n", what, (int)st);
    return st == FRAY_OK ? 0 : 1;
}

static const char setup[] = "use legend\n"
                            "creature kyra \"Kyra\" side party { level 6; attack_bonus 8; ac 16; max_hp 40 }\n"
                            "creature ogre \"Ogre\" side enemies { level 4; attack_bonus 7; ac 14; max_hp 30 }\n"
                            "place kyra at B2\n"
                            "place ogre at C2\n"
                            "answer unaware no\n"
                            "begin encounter\n"
                            "roll initiative kyra 15, ogre 3\n";

static void quiet(void *user, const char *line)
{
    (void)user;
    (void)line;
}

/* The ogre's hp in the session's state now. */
static const char *ogre_hp(fray_session *s)
{
    const char *hp;
    if (fray_eval_for(fray_session_context(s), "ogre", "hp", &hp) != FRAY_OK)
        return "?";
    return hp;
}

/* A session keeps what was done as a list: it can be undone, saved, and
 * loaded again (in another process, another day), dice and all. */
static int play_session(const char *path, int *errors)
{
    fray_options opts = {.seed = 42};
    fray_session *s = fray_session_open(&opts), *again = fray_session_open(&opts);
    if (!s || !again) {
        fray_session_close(s);
        fray_session_close(again);
        return 1;
    }
    fray_session_on_output(s, quiet, NULL);
    fray_session_on_diagnostic(s, on_diagnostic, errors);
    int failed = fray_session_command(s, setup) != FRAY_OK;
    failed |= fray_session_command(s, "kyra: attack ogre") != FRAY_OK;
    printf("session: the attack left the ogre at %s hp\n", ogre_hp(s));
    fray_session_undo(s, 1);
    printf("session: undone, the ogre is at %s hp\n", ogre_hp(s));
    failed |= fray_session_save(s, path) != FRAY_OK;
    fray_session_close(s);

    /* a new session, from the file */
    fray_session_on_output(again, quiet, NULL);
    fray_session_on_diagnostic(again, on_diagnostic, errors);
    failed |= fray_session_load(again, path) != FRAY_OK;
    printf("session: loaded %zu entry (%zu to redo), the ogre is at %s hp\n", fray_session_done(again),
           fray_session_undone(again), ogre_hp(again));
    fray_session_redo(again, 1);
    printf("session: redone with the same dice, the ogre is at %s hp\n", ogre_hp(again));
    fray_session_close(again);
    return failed;
}

int main(int argc, char **argv)
{
    fray_options opts = {.seed = 42, .max_steps = 1000000, .quiet = false};
    fray *f = fray_open(&opts);
    if (!f) {
        fprintf(stderr, "embed: out of memory\n");
        return 1;
    }
    int errors = 0;
    fray_on_output(f, on_output, NULL);
    fray_on_diagnostic(f, on_diagnostic, &errors);
    printf("fray %s\n", fray_version());

    /* a built-in rule system, then the fight, from strings */
    int failed = run(f, "rules", "use legend\n");
    failed |= run(f, "setup", strchr(setup, '\n') + 1); /* after its `use legend` */
    failed |= run(f, "turn", "kyra: attack ogre\n");

    /* why it came out so: every die, modifier and rule */
    printf("explain:\n");
    fray_explain(f, print_line, "  ");

    /* the state, for a program to read */
    printf("state:\n");
    fray_state(f, print_line, "  ");

    /* a formula for a creature, and an exact chance */
    const char *medium;
    if (fray_eval_for(f, "kyra", "medium", &medium) == FRAY_OK)
        printf("kyra's medium range: %s\n", medium);
    fray_distribution *d;
    if (fray_prob(f, "d20 + 8 >= 14", &d) == FRAY_OK) {
        printf("chance kyra hits the ogre: %.4f\n", fray_distribution_p(d, 1));
        fray_distribution_free(d);
    }

    /* a mistake is reported through the callback, and nothing changes */
    int before = errors;
    run(f, "typo", "kyra: atack ogre\n");
    printf("errors reported: %d\n", errors - before);

    fray_close(f);

    /* a session, saved where argv[1] says or in a temporary file */
    char temp[] = "/tmp/embed-session.XXXXXX";
    const char *path = argc > 1 ? argv[1] : temp;
    int fd = argc > 1 ? -1 : mkstemp(temp);
    if (argc <= 1 && fd < 0) {
        perror("embed: mkstemp");
        return 1;
    }
    if (fd >= 0)
        close(fd);
    failed |= play_session(path, &errors);
    if (fd >= 0)
        remove(temp);
    return failed;
}
