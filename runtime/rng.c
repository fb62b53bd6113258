#include "runtime/rng.h"

/* Reference: https://prng.di.unimi.it/xoshiro256starstar.c and
 * https://prng.di.unimi.it/splitmix64.c (Blackman & Vigna, public domain). */

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

void rng_seed(rng *r, uint64_t seed)
{
    /* splitmix64 is a bijection over distinct counter values, so four
     * consecutive outputs are never all zero: the state is always valid. */
    uint64_t state = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64_next(&state);
}

uint64_t rng_next(rng *r)
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

/* Full 64x64 -> 128-bit product: returns the high half, stores the low.
 * RNG_NO_INT128 forces the portable path so tests can compare both. */
static uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *low)
{
#if defined(__SIZEOF_INT128__) && !defined(RNG_NO_INT128)
    __extension__ typedef unsigned __int128 u128;
    u128 product = (u128)a * b;
    *low = (uint64_t)product;
    return (uint64_t)(product >> 64);
#else
    const uint64_t mask32 = 0xffffffffu;
    uint64_t a_lo = a & mask32, a_hi = a >> 32;
    uint64_t b_lo = b & mask32, b_hi = b >> 32;
    uint64_t p0 = a_lo * b_lo;
    uint64_t p1 = a_lo * b_hi;
    uint64_t p2 = a_hi * b_lo;
    uint64_t p3 = a_hi * b_hi;
    /* Sum of three values below 2^32 each: cannot overflow 64 bits. */
    uint64_t middle = (p0 >> 32) + (p1 & mask32) + (p2 & mask32);
    *low = (middle << 32) | (p0 & mask32);
    return p3 + (p1 >> 32) + (p2 >> 32) + (middle >> 32);
#endif
}

uint64_t rng_below(rng *r, uint64_t n)
{
    if (n == 0)
        return 0;
    uint64_t low;
    uint64_t high = mul_64x64(rng_next(r), n, &low);
    if (low < n) {
        /* (2^64 - n) mod n: the count of low values that would bias the
         * result; only reached with probability n / 2^64. */
        uint64_t threshold = (0 - n) % n;
        while (low < threshold)
            high = mul_64x64(rng_next(r), n, &low);
    }
    return high;
}

int64_t rng_die(rng *r, int64_t sides)
{
    if (sides < 1)
        return 0;
    return 1 + (int64_t)rng_below(r, (uint64_t)sides);
}
