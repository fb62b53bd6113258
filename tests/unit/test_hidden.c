/* test_hidden: the players' view leaves out all that is hidden. Under
 * legend and fortitude, a party fights a creature the players see but
 * whose hit points the GM keeps, and a lurker they do not know of, which
 * takes a turn and attacks. The GM's output marks every line that tells
 * either (all of the lurker's turn, the damage line with the hit points
 * left) and shows it all; the players' transcript and state
 * (FRAY_VIEW_PLAYERS) never hold the lurker's name or title, its rolls, or
 * the hidden hit points, while the GM's state says what is hidden. Once
 * revealed, the lurker is in the players' state. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fray.h"
#include "tests/unit/check_main.h"
#include "tests/unit/heard_util.h"

typedef heard text;

static void add(text *t, const char *line)
{
    heard_add(t, line);
    t->marked += strncmp(line, FRAY_HIDDEN_MARK, strlen(FRAY_HIDDEN_MARK)) == 0;
}

/* Does the line (len bytes) hold needle? */
static bool holds(const char *line, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(line + i, needle, n))
            return true;
    return false;
}

/* Is one of t's lines exactly line (len bytes)? */
static bool has_line(const text *t, const char *line, size_t len)
{
    for (const char *l = t->text; *l; l += strcspn(l, "\n") + 1)
        if (strcspn(l, "\n") == len && !memcmp(l, line, len))
            return true;
    return false;
}

static void on_output(void *user, const char *line)
{
    add(user, line);
}

static void on_line(void *user, const fray_line *l)
{
    ck_assert(strncmp(l->text, FRAY_HIDDEN_MARK, strlen(FRAY_HIDDEN_MARK)) != 0);
    add(user, l->text);
    ((text *)user)->marked += l->hidden;
}

static void on_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    ck_assert_msg(d->level == FRAY_NOTE, "unexpected diagnostic: %s", d->text); /* a new side is a note */
}

typedef struct setup {
    const char *system;
    const char *creatures; /* dorn (party), brute (seen, hp hidden), lurker "Lurking horror" (hidden) */
    const char *dorn_attacks;
    const char *lurker_attacks;
} setup;

static const setup setups[] = {
    {"legend",
     "creature dorn \"Dorn\" side party { level 6; dex 1; attack_bonus 30; ac 18; max_hp 52; weapon longspear }\n"
     "creature brute side enemies { level 2; dex 2; attack_bonus 4; ac 13; max_hp 61; speed 50 ft }\n"
     "creature lurker \"Lurking horror\" side enemies hidden { level 3; dex 4; attack_bonus 30; ac 15; max_hp 24 }\n"
     "place dorn at C3\nplace brute at D3\nplace lurker at C4\n",
     "dorn: attack brute", "lurker: attack dorn"},
    {"fortitude",
     "answer death_roll_type all_equal\nanswer decimal_tiebreak yes\n"
     "creature dorn \"Dorn\" side party { str 18; dex 12; con 14; bab 30; hit_dice 6; max_hp 52; fortitude 7; "
     "initiative_bonus 2; armor 5; weapon straight_sword }\n"
     "creature brute side horde { str 16; bab 3; hit_dice 3; max_hp 61; fortitude 4; armor 4; weapon straight_sword }\n"
     "creature lurker \"Lurking horror\" side horde hidden { str 16; bab 30; hit_dice 3; max_hp 45; fortitude 4; "
     "armor 4; weapon straight_sword }\n"
     "place dorn at B4\nplace brute at C4\nplace lurker at B5\n",
     "dorn: attack brute", "lurker: attack dorn"},
};

/* The creature's line of a state document (one creature a line, after the order). */
static const char *creature_line(const char *state, const char *name, char *out, size_t cap)
{
    char key[64];
    snprintf(key, sizeof key, "{\"name\": \"%s\"", name);
    const char *creatures = strstr(state, "\"creatures\": [");
    const char *at = creatures ? strstr(creatures, key) : NULL;
    if (!at)
        return NULL;
    size_t len = strcspn(at, "\n");
    snprintf(out, cap, "%.*s", (int)len, at);
    return out;
}

static void command(fray_session *s, text *out, const char *cmd)
{
    ck_assert_msg(fray_session_command(s, cmd) == FRAY_OK, "%s", cmd);
    (void)out;
}

START_TEST(players_see_nothing_hidden)
{
    const setup *u = &setups[_i];
    fray_session *s = fray_session_open(&(fray_options){.seed = 11});
    ck_assert_ptr_nonnull(s);
    text *gm = calloc(1, sizeof *gm), *turn = calloc(1, sizeof *turn);
    ck_assert(gm && turn);
    fray_session_on_output(s, on_output, gm);
    fray_session_on_diagnostic(s, on_diagnostic, NULL);
    char use[64];
    snprintf(use, sizeof use, "use %s", u->system);
    command(s, gm, use);
    command(s, gm, u->creatures);
    command(s, gm, "hide brute hp");
    command(s, gm, "begin encounter");
    /* dorn first */
    command(s, gm, "roll initiative dorn 20, brute 1");
    command(s, gm, u->dorn_attacks);
    /* on to the lurker's turn (legend's enemies may share a roll) */
    for (int i = 0; i < 3 && strcmp(fray_current(fray_session_context(s)), "lurker"); i++)
        command(s, gm, "next");
    ck_assert_str_eq(fray_current(fray_session_context(s)), "lurker");
    /* the lurker's whole turn is the GM's: every line of it marked */
    fray_session_on_output(s, on_output, turn);
    command(s, gm, u->lurker_attacks);
    ck_assert_int_gt(turn->lines, 1);
    ck_assert_msg(strstr(turn->text, "lurker -> dorn") != NULL, "the lurker attacked:\n%s", turn->text);
    ck_assert_msg(turn->marked == turn->lines, "all of its attack is marked, what it does to dorn too:\n%s",
                  turn->text);
    text *tracker = calloc(1, sizeof *tracker);
    ck_assert(tracker);
    fray_session_on_output(s, on_output, tracker);
    command(s, gm, "show");
    fray_session_on_output(s, on_output, gm);
    /* the tracker's row of the lurker is marked, the rows of the others
       are not */
    ck_assert_int_eq(tracker->marked, 1);
    for (const char *line = tracker->text; *line; line += strcspn(line, "\n") + 1) {
        bool marked = strncmp(line, FRAY_HIDDEN_MARK, strlen(FRAY_HIDDEN_MARK)) == 0;
        size_t len = strcspn(line, "\n");
        bool lurker = holds(line, len, "lurker");
        bool tracker_row = holds(line, len, "dorn ") && !holds(line, len, "->") && !holds(line, len, "takes");
        if (lurker)
            ck_assert_msg(marked, "unmarked: %.*s", (int)len, line);
        else if (tracker_row)
            ck_assert_msg(!marked, "marked: %.*s", (int)len, line);
    }
    /* the GM's output says all: the lurker by name, the brute's hit points */
    ck_assert_ptr_nonnull(strstr(gm->text, FRAY_HIDDEN_MARK "brute's hp is hidden from the players"));
    ck_assert_ptr_nonnull(strstr(gm->text, FRAY_HIDDEN_MARK "order: "));
    ck_assert_int_gt(gm->marked, 0);

    fray *f = fray_session_context(s);
    ck_assert(fray_is_hidden(f, "lurker"));
    ck_assert(!fray_is_hidden(f, "brute"));
    ck_assert(!fray_is_hidden(f, "nobody"));

    /* the transcripts: the GM's is the players' and the hidden lines */
    text *all = calloc(1, sizeof *all), *players = calloc(1, sizeof *players);
    ck_assert(all && players);
    fray_transcript(f, FRAY_VIEW_GM, on_line, all);
    fray_transcript(f, FRAY_VIEW_PLAYERS, on_line, players);
    ck_assert_int_gt(all->marked, 0);
    ck_assert_int_eq(players->marked, 0);
    /* and one line the GM's has not: the order as the players know it */
    ck_assert_int_eq(players->lines, all->lines - all->marked + 1);
    ck_assert_msg(strstr(players->text, "order: dorn") != NULL, "the players' order:\n%s", players->text);
    ck_assert_ptr_nonnull(strstr(all->text, "lurker -> dorn"));
    ck_assert_ptr_nonnull(strstr(players->text, "dorn -> brute"));
    ck_assert_ptr_null(strstr(players->text, "lurker"));
    ck_assert_ptr_null(strstr(players->text, "Lurking"));
    /* the lurker's rolls: no line of its turn reaches the players */
    for (const char *line = turn->text; *line; line += strcspn(line, "\n") + 1) {
        size_t len = strcspn(line, "\n");
        size_t mark = strlen(FRAY_HIDDEN_MARK);
        if (strncmp(line, FRAY_HIDDEN_MARK, mark) == 0)
            ck_assert_msg(!has_line(players, line + mark, len - mark), "the players heard: %.*s", (int)len, line);
    }
    /* the brute's hit points: no line names it with them */
    for (const char *line = players->text; *line; line += strcspn(line, "\n") + 1) {
        size_t len = strcspn(line, "\n");
        if (holds(line, len, "brute"))
            ck_assert_msg(!holds(line, len, "hp") && !holds(line, len, "HP"), "%.*s", (int)len, line);
    }

    /* the state: the GM's has all, marked; the players' none of it */
    text *gm_state = calloc(1, sizeof *gm_state), *players_state = calloc(1, sizeof *players_state);
    ck_assert(gm_state && players_state);
    ck_assert_int_eq(fray_state_view(f, FRAY_VIEW_GM, on_output, gm_state), FRAY_OK);
    ck_assert_int_eq(fray_state_view(f, FRAY_VIEW_PLAYERS, on_output, players_state), FRAY_OK);
    char line[4096];
    ck_assert_ptr_nonnull(creature_line(gm_state->text, "lurker", line, sizeof line));
    ck_assert_ptr_nonnull(strstr(line, "\"hidden\": true"));
    ck_assert_ptr_nonnull(creature_line(gm_state->text, "brute", line, sizeof line));
    ck_assert_ptr_nonnull(strstr(line, "\"hidden_stats\": [\"hp\"]"));
    ck_assert_ptr_nonnull(strstr(line, "\"hp\": "));
    ck_assert_ptr_nonnull(strstr(gm_state->text, "\"turn\": \"lurker\""));
    ck_assert_ptr_null(strstr(players_state->text, "lurker"));
    ck_assert_ptr_null(strstr(players_state->text, "Lurking"));
    ck_assert_ptr_null(strstr(players_state->text, "hidden"));
    ck_assert_ptr_nonnull(strstr(players_state->text, "\"turn\": null"));
    ck_assert_ptr_nonnull(creature_line(players_state->text, "brute", line, sizeof line));
    ck_assert_ptr_null(strstr(line, "\"hp\": "));
    ck_assert_ptr_nonnull(strstr(line, "\"max_hp\": 61"));
    ck_assert_ptr_nonnull(creature_line(players_state->text, "dorn", line, sizeof line));
    ck_assert_ptr_nonnull(strstr(line, "\"hp\": "));
    /* fray_state is the GM's */
    text *state = calloc(1, sizeof *state);
    ck_assert(state);
    ck_assert_int_eq(fray_state(f, on_output, state), FRAY_OK);
    ck_assert_str_eq(state->text, gm_state->text);

    /* revealed, the lurker is the players' to see */
    command(s, gm, "reveal lurker");
    f = fray_session_context(s);
    ck_assert(!fray_is_hidden(f, "lurker"));
    text *after = calloc(1, sizeof *after);
    ck_assert(after);
    ck_assert_int_eq(fray_state_view(f, FRAY_VIEW_PLAYERS, on_output, after), FRAY_OK);
    ck_assert_ptr_nonnull(creature_line(after->text, "lurker", line, sizeof line));
    ck_assert_ptr_nonnull(strstr(after->text, "\"turn\": \"lurker\""));
    /* undone, it is hidden again */
    ck_assert_uint_eq(fray_session_undo(s, 1), 1);
    ck_assert(fray_is_hidden(fray_session_context(s), "lurker"));

    free(gm), free(turn), free(all), free(players), free(gm_state), free(players_state), free(state), free(after),
        free(tracker);
    fray_session_close(s);
}
END_TEST

/* A question the rules put while nobody answers it: counted, left to
   its default. */
static bool count_and_leave(void *user, const fray_question *q, char *answer, size_t cap)
{
    (void)q, (void)answer, (void)cap;
    ++*(int *)user;
    return false;
}

/* Reading the state, the players' or the GM's, puts no question to the GM:
   a stat or an `out when` whose formula reads a ruling not asked yet
   (legend's `unaware`, once the encounter began) reads it as it stands. It
   asked it of each creature, at every look: of a screen of the players'
   that looks after every command, before play had asked it at all. */
START_TEST(reading_the_state_asks_no_one)
{
    fray_session *s = fray_session_open(&(fray_options){.seed = 3});
    ck_assert_ptr_nonnull(s);
    int asked = 0;
    fray_session_on_ask(s, count_and_leave, &asked);
    text *out = calloc(1, sizeof *out);
    ck_assert(out);
    fray_session_on_output(s, on_output, out);
    command(s, out, "use legend");
    command(s, out, "creature dorn side party { level 6 }");
    command(s, out, "creature wolf side enemies { level 2 }");
    command(s, out, "begin encounter");
    ck_assert_int_eq(asked, 0); /* unaware? is asked when something reads it */
    fray *f = fray_session_context(s);
    text *players = calloc(1, sizeof *players), *gm = calloc(1, sizeof *gm);
    ck_assert(players && gm);
    ck_assert_int_eq(fray_state_view(f, FRAY_VIEW_PLAYERS, on_output, players), FRAY_OK);
    ck_assert_int_eq(fray_state_view(f, FRAY_VIEW_GM, on_output, gm), FRAY_OK);
    ck_assert_int_eq(asked, 0);
    char line[4096];
    ck_assert_ptr_nonnull(creature_line(players->text, "dorn", line, sizeof line));
    ck_assert_ptr_nonnull(strstr(line, "\"hp\": "));
    free(out), free(players), free(gm);
    fray_session_close(s);
}
END_TEST

static Suite *hidden_suite(void)
{
    Suite *s = suite_create("hidden");
    TCase *tc = tcase_create("views");
    tcase_add_loop_test(tc, players_see_nothing_hidden, 0, (int)(sizeof setups / sizeof setups[0]));
    tcase_add_test(tc, reading_the_state_asks_no_one);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(hidden_suite());
}
