/* libFuzzer harness: scan, parse, compile and run arbitrary input, with a
 * small step budget so that endless rules end quickly. Any crash, leak,
 * sanitizer report or hang is a bug. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fray *f = fray_open(&(fray_options){.seed = 1, .max_steps = 20000, .max_creatures = 50});
    if (!f)
        return 0;
    fray_on_output(f, fuzz_quiet_output, NULL);
    fray_on_diagnostic(f, fuzz_quiet_diagnostic, NULL);
    fray_run_string(f, "fuzz.rules", (const char *)data, size);
    fray_close(f);
    return 0;
}
