/* libFuzzer harness: scan, parse and compile only (what `fray check` does),
 * with nothing run: the front end on its own, so that its coverage is not
 * diluted by running. The input is written to a file, as `fray check`
 * reads one. Diagnostics are fine; a crash, a sanitizer report, a leak or
 * a hang is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_input_file("check", data, size, path, sizeof path))
        return 0;
    for (int syntax_only = 0; syntax_only < 2; syntax_only++) {
        fray *f = fray_open(&(fray_options){.seed = 1});
        if (!f)
            break;
        fray_set_limit(f, "memory", FUZZ_MEMORY_MIB);
        fray_on_diagnostic(f, fuzz_quiet_diagnostic, NULL);
        fray_check_file(f, path, syntax_only);
        fray_close(f);
    }
    unlink(path);
    return 0;
}
