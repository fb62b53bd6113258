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

#include "fray.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_input_file("session", data, size, path, sizeof path))
        return 0;
    /* replays must stay small: a step budget, few creatures */
    fray_options o = {.max_steps = 20000, .max_creatures = 50};
    for (int journal = 0; journal < 2; journal++) {
        fray_session *s = fray_session_open(&o);
        if (!s)
            continue;
        fray_session_on_output(s, fuzz_quiet_output, NULL);
        fray_session_on_diagnostic(s, fuzz_quiet_diagnostic, NULL);
        if ((journal ? fray_session_recover(s, path) : fray_session_load(s, path)) == FRAY_OK) {
            fray_session_undo(s, 2);
            fray_session_redo(s, 1);
        }
        fray_session_close(s);
    }
    unlink(path);
    return 0;
}
