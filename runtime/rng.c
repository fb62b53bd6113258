#include "runtime/rng.h"

/* Reference: https://prng.di.unimi.it/xoshiro256starstar.c and
 * https://prng.di.unimi.it/splitmix64.c (Blackman & Vigna, public domain). */

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void rng_seed(rng *r, uint64_t seed)
{
    /* splitmix64 is a bijection over distinct counter values, so four
     * consecutive outputs are never all zero: the state is always valid. */
    uint64_t state = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64_next(&state);
}
