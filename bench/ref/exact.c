/* bench/ref/exact.c: fray's time to an exact distribution, in process.
 *
 * For each expression: fray_prob (parse, compile, compute, copy out) and
 * fray_distribution_free, repeated in batches of at least 20 ms; the best
 * batch's time per distribution is printed. This is what bench/dice puts
 * next to dicelab: the distribution itself, without starting a process or
 * printing hundreds of rows of 17-digit numbers (which `fray prob` does,
 * and which costs far more than the computing for sums like 100d6).
 *
 * Usage: exact EXPR...     prints "EXPR US_PER_DISTRIBUTION" per line
 * Build: cc -O2 -Iinclude -o exact bench/ref/exact.c libfray.a -lm
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>

#include "fray.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Seconds for `reps` distributions of expr, or a negative number on error. */
static double batch(fray *f, const char *expr, long reps)
{
    double start = now();
    for (long i = 0; i < reps; i++) {
        fray_distribution *d;
        if (fray_prob(f, expr, &d) != FRAY_OK)
            return -1.0;
        fray_distribution_free(d);
    }
    return now() - start;
}

int main(int argc, char **argv)
{
    fray_options opts = {0};
    fray *f = fray_open(&opts);
    if (!f)
        return 2;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        long reps = 1;
        double t = batch(f, argv[i], reps);
        while (t >= 0 && t < 0.02 && reps < (1L << 30)) {
            reps *= 2;
            t = batch(f, argv[i], reps);
        }
        double best = t;
        for (int b = 0; b < 4 && t >= 0; b++) {
            t = batch(f, argv[i], reps);
            best = t >= 0 && t < best ? t : best;
        }
        if (t < 0) {
            printf("%s n/a\n", argv[i]);
            status = 1;
            continue;
        }
        printf("%s %.3f\n", argv[i], best / (double)reps * 1e6);
    }
    fray_close(f);
    return status;
}
