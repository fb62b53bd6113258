/* libFuzzer harness: scan, parse, compile and run arbitrary input, under
 * the harnesses' limits (fuzz.h): endless rules end at the step budget,
 * and the input's commands share one. Any crash, leak, sanitizer report or
 * hang is a bug. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fray_options o = fuzz_options(data, size);
    fray *f = fray_open(&o);
    if (!f)
        return 0;
    FUZZ_LIMITS(fray_set_limit, f);
    fray_on_output(f, fuzz_quiet_output, NULL);
    fray_on_diagnostic(f, fuzz_quiet_diagnostic, NULL);
    fray_run_string(f, "fuzz.rules", (const char *)data, size);
    fray_close(f);
    return 0;
}
