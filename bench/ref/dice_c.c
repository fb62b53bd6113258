/* bench/ref/dice_c.c: the plain-C reference for bench/run's dice-roll lines.
 *
 * The same rolls as the fray scripts (d20+5 and 4d6kh3), with the same
 * generator as runtime/dice/rng.c (xoshiro256** seeded by splitmix64) and the
 * same unbiased bounded draw (Lemire's multiply-shift with rejection), but
 * as a tight C loop: no VM, no roll objects. This is a separate copy on
 * purpose, so that the reference does not move when the runtime does.
 *
 * Usage: dice_c N     rolls each expression N times and prints
 *   d20+5 NS_PER_ROLL CHECKSUM
 *   4d6kh3 NS_PER_ROLL CHECKSUM
 * where the time is the best of 5 runs of N rolls and CHECKSUM (the sum of
 * the totals of the last run) keeps the compiler from dropping the work.
 *
 * Build: cc -O2 -o dice_c bench/ref/dice_c.c
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    uint64_t s[4];
} rng;

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64_next(&state);
}

static inline uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Lemire, "Fast Random Integer Generation in an Interval" (2019). */
static inline uint64_t rng_below(rng *r, uint64_t n)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    u128 m = (u128)rng_next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = (u128)rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
#else
#error "dice_c.c needs a compiler with unsigned __int128 (gcc, clang)"
#endif
}

static inline int64_t die(rng *r, int64_t sides)
{
    return 1 + (int64_t)rng_below(r, (uint64_t)sides);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best of 5 runs, in ns per roll; *sum gets the last run's checksum. */
static double time_d20p5(rng *r, long n, int64_t *sum)
{
    double best = 1e300;
    for (int run = 0; run < 5; run++) {
        int64_t acc = 0;
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            acc += die(r, 20) + 5;
        double dt = (now_ns() - t0) / (double)n;
        if (dt < best)
            best = dt;
        *sum = acc;
    }
    return best;
}

static double time_4d6kh3(rng *r, long n, int64_t *sum)
{
    double best = 1e300;
    for (int run = 0; run < 5; run++) {
        int64_t acc = 0;
        double t0 = now_ns();
        for (long i = 0; i < n; i++) {
            int64_t total = 0, lowest = 7;
            for (int k = 0; k < 4; k++) {
                int64_t f = die(r, 6);
                total += f;
                if (f < lowest)
                    lowest = f;
            }
            acc += total - lowest;
        }
        double dt = (now_ns() - t0) / (double)n;
        if (dt < best)
            best = dt;
        *sum = acc;
    }
    return best;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    if (n < 1)
        n = 1;
    rng r;
    rng_seed(&r, 0);
    int64_t sum;
    double t = time_d20p5(&r, n, &sum);
    printf("d20+5 %.3f %lld\n", t, (long long)sum);
    t = time_4d6kh3(&r, n, &sum);
    printf("4d6kh3 %.3f %lld\n", t, (long long)sum);
    return 0;
}
