/* rng: a small seedable PRNG for dice. xoshiro256** seeded through
 * splitmix64, so the same uint64 seed yields the same sequence on every
 * platform. No floating point and no libc rand() anywhere. */
#ifndef FRAY_RNG_H
#define FRAY_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An oracle replaces the generator's draws with chosen ones, so that a
 * procedure can be run once per combination of its dice (`fray diff`
 * computes a turn's outcomes exactly that way). Each draw in [0, n) takes
 * the next choice of the path; past the path's end, 0, and the draw is
 * added to it. */
#define RNG_ORACLE_DEPTH 64
typedef struct rng_oracle {
    uint32_t choice[RNG_ORACLE_DEPTH], sides[RNG_ORACLE_DEPTH];
    int len, depth;
    double weight;     /* the chance of the path's draws so far */
    double min_weight; /* a path less likely than this is cut (0: none) */
    bool too_deep;     /* this path was cut: too many draws, too unlikely, or too wide a draw */
    bool diverged;     /* a draw of another width than the path had there */
} rng_oracle;
uint64_t rng_oracle_pick(rng_oracle *o, uint64_t n);
/* Starts the path over from its first draw. */
void rng_oracle_rewind(rng_oracle *o);
/* The next path (the last draw that can go one higher does, and what
   came after it is dropped); false when every path has been taken. */
bool rng_oracle_advance(rng_oracle *o);

struct dice_forced;
typedef struct rng {
    uint64_t s[4];
    rng_oracle *oracle;         /* NULL: draws come from s */
    struct dice_forced *forced; /* faces chosen ahead for the dice (forced.h), or NULL */
} rng;

/* Expand seed into the 256-bit state with splitmix64 (never all zero). */
void rng_seed(rng *r, uint64_t seed);
/* The draws are inline: a die roll is a handful of instructions, and a
 * call per die would cost as much as the die itself. */

static inline uint64_t rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Copies a generator's state word by word. A plain copy may move it in
 * 16-byte halves, and reading a half right after a draw stored its words
 * one by one stalls until those stores reach the cache: a dozen cycles,
 * as much as the die. The empty asm keeps each word in a register, so
 * that the compiler cannot merge the moves. */
#if defined(__GNUC__)
#define RNG_IN_REGISTER(w) __asm__("" : "+r"(w))
#else
#define RNG_IN_REGISTER(w) (void)(w)
#endif
static inline void rng_copy_state(uint64_t to[4], const uint64_t from[4])
{
    uint64_t w0 = from[0], w1 = from[1], w2 = from[2], w3 = from[3];
    RNG_IN_REGISTER(w0);
    RNG_IN_REGISTER(w1);
    RNG_IN_REGISTER(w2);
    RNG_IN_REGISTER(w3);
    to[0] = w0;
    to[1] = w1;
    to[2] = w2;
    to[3] = w3;
}

/* Next raw 64-bit output of xoshiro256**. */
static inline uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* The high and low halves of a 64x64-bit product. */
static inline uint64_t rng_mul_64x64(uint64_t a, uint64_t b, uint64_t *low)
{
#if defined(__SIZEOF_INT128__) && !defined(RNG_NO_INT128)
    __extension__ typedef unsigned __int128 rng_u128;
    rng_u128 product = (rng_u128)a * b;
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

/* Unbiased uniform integer in [0, n), n > 0, by Lemire's multiply-shift
 * with rejection. */
static inline uint64_t rng_below_nonzero(rng *r, uint64_t n)
{
    if (__builtin_expect(r->oracle != NULL, 0))
        return rng_oracle_pick(r->oracle, n);
    uint64_t low;
    uint64_t high = rng_mul_64x64(rng_next(r), n, &low);
    if (low < n) {
        /* (2^64 - n) mod n: the count of low values that would bias the
         * result; only reached with probability n / 2^64. */
        uint64_t threshold = (0 - n) % n;
        while (low < threshold)
            high = rng_mul_64x64(rng_next(r), n, &low);
    }
    return high;
}

/* The same for any n: n == 0 has no valid answer, and returns 0 and
 * leaves r untouched. */
static inline uint64_t rng_below(rng *r, uint64_t n)
{
    return n ? rng_below_nonzero(r, n) : 0;
}

/* Uniform integer in [1, sides]. sides < 1 returns 0 and leaves r untouched. */
static inline int64_t rng_die(rng *r, int64_t sides)
{
    if (sides < 1)
        return 0;
    return 1 + (int64_t)rng_below(r, (uint64_t)sides);
}

#endif
