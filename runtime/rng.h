/* rng: a small seedable PRNG for dice. xoshiro256** seeded through
 * splitmix64, so the same uint64 seed yields the same sequence on every
 * platform. No floating point and no libc rand() anywhere. */
#ifndef FRAY_RNG_H
#define FRAY_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s[4];
} rng;

/* Expand seed into the 256-bit state with splitmix64 (never all zero). */
void rng_seed(rng *r, uint64_t seed);
/* Next raw 64-bit output of xoshiro256**. */
uint64_t rng_next(rng *r);
/* Unbiased uniform integer in [0, n) by Lemire's multiply-shift with
 * rejection. n == 0 has no valid answer: returns 0 and leaves r untouched. */
uint64_t rng_below(rng *r, uint64_t n);
/* Uniform integer in [1, sides]. sides < 1 returns 0 and leaves r untouched. */
int64_t rng_die(rng *r, int64_t sides);

#endif
