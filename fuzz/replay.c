/* fuzz/replay.c: a main for a fuzz harness built without libFuzzer, so
 * that `make check` replays inputs through it (the seed corpora and every
 * input that ever failed, kept in tests/regress/). Runs each file given;
 * a crash or a sanitizer report ends the process, which the test sees.
 * With FUZZ_ECHO=1 in the environment, what the inputs print and their
 * diagnostics go to stdout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int fuzz_echo; /* fuzz.h: print what the inputs print */

int main(int argc, char **argv)
{
    const char *echo = getenv("FUZZ_ECHO");
    fuzz_echo = echo && *echo == '1';
    for (int i = 1; i < argc; i++) {
        FILE *in = fopen(argv[i], "rb");
        if (!in) {
            perror(argv[i]);
            return 2;
        }
        size_t cap = 1 << 16, n = 0;
        uint8_t *data = malloc(cap);
        size_t got;
        while (data && (got = fread(data + n, 1, cap - n, in)) > 0) {
            n += got;
            if (n == cap) {
                uint8_t *grown = realloc(data, cap *= 2);
                if (!grown) {
                    free(data);
                    data = NULL;
                }
                data = grown;
            }
        }
        fclose(in);
        if (!data)
            return 2;
        LLVMFuzzerTestOneInput(data, n);
        free(data);
    }
    return 0;
}
