/* fuzz.h: what the fuzz harnesses share: their limits, callbacks that print
 * nothing, and the input written to a file for the harnesses that read
 * files. */
#ifndef FRAY_FUZZ_H
#define FRAY_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fray.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The limits an input runs under: high enough to reach what a user can
 * type (two thousand creatures and the lists of them, a list 100,000 deep
 * built by a loop, a long fight), low enough that an input stays well
 * under libFuzzer's -timeout (25 s), sanitizers and all. The step budget
 * is per command, so an input gets FUZZ_INPUT_STEPS shared among as many
 * commands as it may hold (its lines and semicolons), each command at
 * least FUZZ_MIN_STEPS and at most FUZZ_MAX_STEPS: a list 100,000 deep
 * takes about 500,000 steps to build, and 10,000,000 steps (the default
 * budget) take 1.5 to 7 s under ASan. */
#define FUZZ_INPUT_STEPS 4000000u
#define FUZZ_MIN_STEPS 20000u
#define FUZZ_MAX_STEPS 1000000u
#define FUZZ_CREATURES 2000
/* A fight's turns each get the step budget: few rounds, then. */
#define FUZZ_FIGHT_ROUNDS 5
/* MiB one command may take (the default, 1 GiB, is past what ASan's
   shadow and libFuzzer's -rss_limit_mb=2048 leave room for) */
#define FUZZ_MEMORY_MIB 256

static inline uint64_t fuzz_steps_per_command(const uint8_t *data, size_t size)
{
    uint64_t commands = 1;
    for (size_t i = 0; i < size; i++)
        commands += data[i] == '\n' || data[i] == ';';
    uint64_t steps = FUZZ_INPUT_STEPS / commands;
    return steps < FUZZ_MIN_STEPS ? FUZZ_MIN_STEPS : steps > FUZZ_MAX_STEPS ? FUZZ_MAX_STEPS : steps;
}

static inline fray_options fuzz_options(const uint8_t *data, size_t size)
{
    return (fray_options){.seed = 1, .max_steps = fuzz_steps_per_command(data, size), .max_creatures = FUZZ_CREATURES};
}

/* The limits set by name (fray_set_limit, fray_session_set_limit). */
#define FUZZ_LIMITS(set, target)                          \
    do {                                                  \
        set((target), "memory", FUZZ_MEMORY_MIB);         \
        set((target), "fight-rounds", FUZZ_FIGHT_ROUNDS); \
    } while (0)

/* Set by fuzz/replay.c (FUZZ_ECHO=1): what an input prints and its
   diagnostics go to stdout, for tests/regress.test to compare with what
   it should print. Under libFuzzer nothing sets it. */
__attribute__((weak)) int fuzz_echo;

static inline void fuzz_quiet_output(void *user, const char *line)
{
    (void)user;
    if (fuzz_echo)
        printf("%s\n", line);
}

static inline void fuzz_quiet_diagnostic(void *user, const fray_diagnostic *d)
{
    (void)user;
    if (fuzz_echo)
        fputs(d->text, stdout);
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
