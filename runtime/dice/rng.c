#include "runtime/dice/rng.h"

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
    r->oracle = NULL;
    r->forced = NULL; /* its owner points it at the faces it keeps */
}

uint64_t rng_oracle_pick(rng_oracle *o, uint64_t n)
{
    if (o->too_deep)
        return 0;
    if (o->depth < o->len) {
        if (o->sides[o->depth] != n)
            o->diverged = true;
        o->weight /= (double)n;
        uint32_t c = o->choice[o->depth++];
        return c < n ? c : 0;
    }
    if (o->len >= RNG_ORACLE_DEPTH || n > UINT32_MAX || o->weight / (double)n < o->min_weight) {
        o->too_deep = true;
        return 0;
    }
    o->weight /= (double)n;
    o->choice[o->len] = 0;
    o->sides[o->len] = (uint32_t)n;
    o->len++;
    o->depth++;
    return 0;
}

void rng_oracle_rewind(rng_oracle *o)
{
    o->depth = 0;
    o->weight = 1;
    o->too_deep = o->diverged = false;
}

bool rng_oracle_advance(rng_oracle *o)
{
    while (o->len > 0 && o->choice[o->len - 1] + 1 >= o->sides[o->len - 1])
        o->len--;
    if (o->len == 0)
        return false;
    o->choice[o->len - 1]++;
    rng_oracle_rewind(o);
    return true;
}
