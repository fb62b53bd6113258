/* fuzz.h: what the fuzz harnesses share: callbacks that print nothing, and
 * the input written to a file for the harnesses that read files. */
#ifndef FRAY_FUZZ_H
#define FRAY_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fray.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_quiet_output(void *user, const char *line)
{
    (void)user;
    (void)line;
}

static inline void fuzz_quiet_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    (void)d;
}

/* Writes the input to /tmp/fray-fuzz-NAME.PID; the path, or NULL. */
static inline const char *fuzz_input_file(const char *name, const uint8_t *data, size_t size, char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/fray-fuzz-%s.%d", name, (int)getpid());
    FILE *out = fopen(path, "wb");
    if (!out)
        return NULL;
    fwrite(data, 1, size, out);
    fclose(out);
    return path;
}

#endif
