/* libFuzzer harness: the dice notation and the exact-distribution engine.
 * The input's last line is an expression; the lines before it, if any,
 * are rules compiled first (procedures and checks that the expression
 * calls: `procedure f(x) { return x == 20 or x == 1 }` then `f(d20)`). The
 * expression's exact distribution is computed (every notation form,
 * keep/drop pools, explosions cut at epsilon, comparisons, chains,
 * procedures walked over their arguments' outcomes) and read back as
 * `fray prob` prints it, and then it is rolled many times on a fixed seed,
 * as an oracle for the exact answer:
 *
 * - every outcome rolled must be one the distribution gives a chance to;
 * - how often each outcome came up, and the mean of the rolls, must be
 *   near the exact probability and mean, by Hoeffding's bound for the
 *   outcomes' range at a chance of 10^-12 per input to be wrong: a fixed
 *   seed and a bound that does not flake, which still tells a probability
 *   of 1 from one of 0.1.
 *
 * Errors are fine; a crash, a sanitizer report, a leak, a hang (the
 * distribution limits must stop a huge one quickly) or an exact answer the
 * rolls contradict is a bug. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"

#define SAMPLES 2000
#define OUTCOMES_CHECKED 4096

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void wrong(const char *expr, const char *what, double exact, double rolled)
{
    fprintf(stderr, "fuzz_dice: the exact answer is wrong for '%s': %s is %.9g exactly, %.9g in %d rolls\n", expr, what,
            exact, rolled, SAMPLES);
    abort();
}

/* The rolls of expr against its exact distribution d (exact, nothing cut). */
static void check_rolls(fray *f, const char *expr, const fray_distribution *d)
{
    static int64_t rolls[SAMPLES];
    if (fray_sample(f, expr, SAMPLES, rolls) != FRAY_OK)
        return; /* not a whole number, or an error of its own */
    int64_t lo = fray_distribution_lowest(d), hi = fray_distribution_highest(d);
    qsort(rolls, SAMPLES, sizeof rolls[0], by_value);
    /* Hoeffding: |mean of n rolls in [a, b] - mean| >= t with chance at
       most 2 exp(-2 n t^2 / (b - a)^2); an outcome's frequency is the mean
       of an indicator, in [0, 1] */
    double spread = sqrt(log(2e12 * OUTCOMES_CHECKED) / (2.0 * SAMPLES));
    double sum = 0;
    for (size_t i = 0; i < SAMPLES;) {
        size_t j = i;
        while (j < SAMPLES && rolls[j] == rolls[i])
            j++;
        int64_t x = rolls[i];
        char what[64];
        snprintf(what, sizeof what, "P(%lld)", (long long)x);
        double p = x >= lo && x <= hi ? fray_distribution_p(d, x) : 0;
        if (p <= 0)
            wrong(expr, what, 0, (double)(j - i) / SAMPLES);
        if (fabs((double)(j - i) / SAMPLES - p) > spread)
            wrong(expr, what, p, (double)(j - i) / SAMPLES);
        sum += (double)x * (double)(j - i);
        i = j;
    }
    /* the outcomes that never came up */
    for (uint64_t i = 0; i <= (uint64_t)hi - (uint64_t)lo && i < OUTCOMES_CHECKED; i++) {
        int64_t x = (int64_t)((uint64_t)lo + i);
        double p = fray_distribution_p(d, x);
        int64_t *at = bsearch(&x, rolls, SAMPLES, sizeof rolls[0], by_value);
        char what[64];
        snprintf(what, sizeof what, "P(%lld)", (long long)x);
        if (!at && p > spread)
            wrong(expr, what, p, 0);
    }
    double range = (double)hi - (double)lo, mean = fray_distribution_mean(d);
    if (fabs(sum / SAMPLES - mean) > range * sqrt(log(2e12) / (2.0 * SAMPLES)) + 1e-9 * fabs(mean))
        wrong(expr, "the mean", mean, sum / SAMPLES);
}

/* Whether the input calls one of the functions that compute a whole
 * distribution (prob, mean, dist, maximum, minimum): each roll of such an
 * expression does that work again, so rolling it SAMPLES times costs the
 * distribution's work SAMPLES times (`prob(d40431 + 5 > 5)`, 2 ms a roll,
 * took 8 s, and past libFuzzer's time limit under the sanitizers). Its
 * distribution is still computed and read back; only the rolls are not
 * made. */
static bool computes_distributions(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"prob", "mean", "dist", "maximum", "minimum"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t n = strlen(names[k]);
        for (size_t i = 0; i + n < size; i++) {
            if (memcmp(data + i, names[k], n) != 0)
                continue;
            size_t j = i + n;
            while (j < size && (data[j] == ' ' || data[j] == '\t'))
                j++;
            if (j < size && data[j] == '(')
                return true;
        }
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t start = size; /* after the last newline, or 0 */
    while (start > 0 && data[start - 1] != '\n')
        start--;
    char *expr = malloc(size - start + 1);
    if (!expr)
        return 0;
    memcpy(expr, data + start, size - start);
    expr[size - start] = '\0';
    fray_options o = fuzz_options(data, size);
    fray *f = fray_open(&o);
    if (!f) {
        free(expr);
        return 0;
    }
    FUZZ_LIMITS(fray_set_limit, f);
    fray_on_output(f, fuzz_quiet_output, NULL);
    fray_on_diagnostic(f, fuzz_quiet_diagnostic, NULL);
    if (start)
        fray_run_string(f, "fuzz.rules", (const char *)data, start);
    fray_distribution *d;
    if (fray_prob(f, expr, &d) == FRAY_OK) {
        /* read it all back, as fray prob prints it */
        bool exact = true;
        int64_t lo = fray_distribution_lowest(d);
        uint64_t span = (uint64_t)fray_distribution_highest(d) - (uint64_t)lo;
        for (uint64_t i = 0; i <= span && i < OUTCOMES_CHECKED; i++) {
            int64_t x = (int64_t)((uint64_t)lo + i);
            char frac[96];
            (void)fray_distribution_p(d, x);
            (void)fray_distribution_at_least(d, x);
            exact &= fray_distribution_exact(d, x, frac, sizeof frac);
        }
        (void)fray_distribution_mean(d);
        (void)fray_distribution_stddev(d);
        (void)fray_distribution_quantile(d, 0.5);
        if (exact && fray_distribution_remainder(d) == 0 && !computes_distributions(data, size))
            check_rolls(f, expr, d);
        fray_distribution_free(d);
    }
    int64_t values[8];
    fray_sample(f, expr, 8, values);
    fray_close(f);
    free(expr);
    return 0;
}
