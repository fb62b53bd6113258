/* libFuzzer harness: REPL command sequences against a rule system. The
 * first byte picks the system (one of the five, or none); each line after
 * it (with the lines that follow while braces are open) is a command, or
 * an undo (":u"), a redo (":r"), a reroll (":x"), a reseed (":s N"), up to
 * 64 of them. Questions are put, and answered from a rotation of answers
 * of every kind. Lines may be of any length (libFuzzer's -max_len bounds
 * them), and the commands share the input's step budget (fuzz.h). After
 * each line the session must still stand: errors are fine; a crash, a
 * sanitizer report, a leak or a hang is a bug. The system is loaded once
 * per process: each input plays in a copy of a session that loaded it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fray.h"
#include "fuzz/fuzz.h"

#define MAX_LINES 64

static bool answer(void *ui, const fray_question *q, char *out, size_t cap)
{
    static const char *const answers[] = {"yes", "no", "", "3", "nothing", "maybe", "valeros", "0"};
    unsigned *turn = ui;
    (void)q;
    snprintf(out, cap, "%s", answers[(*turn)++ % 8]);
    return true;
}

/* The session each input starts from: the rule system loaded once per
 * process, each input playing in a copy of it (fray_session_clone), as a
 * rebuild does from the session's own copies. */
static fray_session *base_session(int system)
{
    static const char *const systems[] = {"use legend", "use lurasko", "use escalation", "use shock", "use fortitude"};
    static fray_session *bases[6];
    if (bases[system])
        return bases[system];
    fray_options o = {.seed = 1, .max_creatures = FUZZ_CREATURES};
    fray_session *s = fray_session_open(&o);
    if (!s)
        return NULL;
    FUZZ_LIMITS(fray_session_set_limit, s);
    fray_session_on_output(s, fuzz_quiet_output, NULL);
    fray_session_on_diagnostic(s, fuzz_quiet_diagnostic, NULL);
    if (system < 5 && fray_session_command(s, systems[system]) != FRAY_OK) {
        fray_session_close(s);
        return NULL;
    }
    return bases[system] = s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    fray_session *base = base_session(data[0] % 6);
    fray_session *s = base ? fray_session_clone(base) : NULL;
    char *line = s ? malloc(size) : NULL;
    if (!line) {
        fray_session_close(s);
        return 0;
    }
    unsigned turn = 0;
    fray_session_set_limit(s, "steps", fuzz_steps_per_command(data + 1, size - 1));
    fray_session_on_ask(s, answer, &turn);
    size_t at = 1, lines = 0;
    while (at < size && lines < MAX_LINES) {
        /* a line, and more while braces are open, as the REPL reads */
        size_t n = 0;
        int depth = 0;
        while (at < size) {
            char c = (char)data[at++];
            depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            if (c == '\n' && depth <= 0)
                break;
            line[n++] = c;
        }
        line[n] = '\0';
        lines++;
        if (!strcmp(line, ":u"))
            fray_session_undo(s, 1);
        else if (!strcmp(line, ":r"))
            fray_session_redo(s, 1);
        else if (!strcmp(line, ":x"))
            fray_session_reroll(s);
        else if (!strncmp(line, ":s ", 3))
            fray_session_reseed(s, strtoull(line + 3, NULL, 10));
        else if (n)
            fray_session_command(s, line);
    }
    fray_session_close(s);
    free(line);
    return 0;
}
