/* libFuzzer harness: REPL command sequences against a rule system. The
 * first byte picks the system (one of the five, or none); each line after
 * it (with the lines that follow while braces are open) is a command, or an undo (":u"), a redo (":r"), a reroll
 * (":x"), a reseed (":s N"). Questions are put, and answered from a rotation of answers of every kind. After each line
 * the session must still stand: errors are fine; a crash, a sanitizer report, a leak or a hang is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/session.h"
#include "fuzz/fuzz.h"

static bool answer(void *ui, const fray_question *q, char *out, size_t cap)
{
    static const char *const answers[] = {"yes", "no", "", "3", "nothing", "maybe", "valeros", "0"};
    unsigned *turn = ui;
    (void)q;
    snprintf(out, cap, "%s", answers[(*turn)++ % 8]);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const systems[] = {"use legend", "use lurasko", "use escalation", "use shock", "use fortitude"};
    if (size < 1 || size > 4096)
        return 0;
    unsigned turn = 0;
    cli_options o = {.max_steps = 20000, .max_creatures = 50, .color = 0};
    session s;
    if (!session_init(&s, &o, answer, &turn, fuzz_quiet_output, fuzz_quiet_diagnostic))
        return 0;
    s.asking = true;
    if (data[0] % 6 < 5)
        session_command(&s, systems[data[0] % 6]);
    char line[4097];
    size_t at = 1, lines = 0;
    while (at < size && lines < 64) {
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
            session_undo(&s, 1);
        else if (!strcmp(line, ":r"))
            session_redo(&s, 1);
        else if (!strcmp(line, ":x"))
            session_reroll(&s);
        else if (!strncmp(line, ":s ", 3))
            session_seed(&s, strtoull(line + 3, NULL, 10));
        else if (n)
            session_command(&s, line);
    }
    session_free(&s);
    return 0;
}
