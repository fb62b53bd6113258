/* libFuzzer harness: the dice notation and the exact-distribution engine.
 * The input is an expression: its exact distribution is computed (every
 * notation form, keep/drop pools, explosions cut at epsilon, comparisons,
 * chains), and it is rolled a few times. Errors are fine; a crash, a
 * sanitizer report, a leak or a hang (the distribution limits must stop a
 * huge one quickly) is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char expr[512];
    if (size >= sizeof expr)
        return 0;
    memcpy(expr, data, size);
    expr[size] = '\0';
    fray *f = fray_open(&(fray_options){.seed = 1, .max_steps = 20000});
    if (!f)
        return 0;
    fray_on_diagnostic(f, fuzz_quiet_diagnostic, NULL);
    fray_distribution *d;
    if (fray_prob(f, expr, &d) == FRAY_OK) {
        /* read it all back, as fray prob prints it */
        for (int64_t x = fray_distribution_lowest(d);
             x <= fray_distribution_highest(d) && x < fray_distribution_lowest(d) + 4096; x++) {
            char frac[96];
            (void)fray_distribution_p(d, x);
            (void)fray_distribution_at_least(d, x);
            (void)fray_distribution_exact(d, x, frac, sizeof frac);
        }
        (void)fray_distribution_mean(d);
        (void)fray_distribution_stddev(d);
        (void)fray_distribution_quantile(d, 0.5);
        fray_distribution_free(d);
    }
    int64_t values[8];
    fray_sample(f, expr, 8, values);
    fray_close(f);
    return 0;
}
