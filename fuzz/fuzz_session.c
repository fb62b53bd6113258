/* libFuzzer harness: loading saved sessions and journals. The input is a
 * session file; it is read as a save (which must be whole and hold
 * together, or be refused) and as a journal (read up to its last complete
 * entry), and what was read is replayed. Refusing is fine; a crash, a
 * sanitizer report, a leak or a hang is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/session.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_input_file("session", data, size, path, sizeof path))
        return 0;
    cli_options o = {.max_steps = 20000, .max_creatures = 50, .color = 0};
    for (int journal = 0; journal < 2; journal++) {
        session s;
        if (!session_init(&s, &o, NULL, NULL, fuzz_quiet_output, fuzz_quiet_diagnostic))
            continue;
        /* replays must stay small: a step budget, few creatures */
        if (session_load(&s, path, journal) == EXIT_OK) {
            session_undo(&s, 2);
            session_redo(&s, 1);
        }
        session_free(&s);
    }
    unlink(path);
    return 0;
}
