/* libFuzzer harness: scan, parse and compile only (what `fray check` does),
 * with nothing run: the front end on its own, so that its coverage is not
 * diluted by running. The input is written to a file, as `fray check`
 * reads one. Diagnostics are fine; a crash, a sanitizer report, a leak or
 * a hang is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fray.h"

static void quiet_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    (void)d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fray-fuzz-check.%d.rules", (int)getpid());
    FILE *out = fopen(path, "wb");
    if (!out)
        return 0;
    fwrite(data, 1, size, out);
    fclose(out);
    for (int syntax_only = 0; syntax_only < 2; syntax_only++) {
        fray *f = fray_open(&(fray_options){.seed = 1});
        if (!f)
            break;
        fray_on_diagnostic(f, quiet_diagnostic, NULL);
        fray_check_file(f, path, syntax_only);
        fray_close(f);
    }
    unlink(path);
    return 0;
}
