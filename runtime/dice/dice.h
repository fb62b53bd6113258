/* dice: dice notation as players type it ("4d6kh3", "d20ro1", "10d10>=8f1"),
 * parsed into a spec, rolled without allocating, and rendered back as
 * canonical notation or as a breakdown of a roll. */
#ifndef FRAY_DICE_H
#define FRAY_DICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/dice/rng.h"

enum dice_keep { DICE_KEEP_ALL, DICE_KEEP_HIGH, DICE_KEEP_LOW, DICE_DROP_HIGH, DICE_DROP_LOW };
enum dice_explode { DICE_NO_EXPLODE, DICE_EXPLODE, DICE_COMPOUND, DICE_PENETRATE };
enum dice_cmp { DICE_CMP_NONE, DICE_CMP_EQ, DICE_CMP_GE, DICE_CMP_LE, DICE_CMP_GT, DICE_CMP_LT };
/* Whether `value CMP at` holds (DICE_CMP_NONE never does). */
bool dice_cmp_holds(uint8_t cmp, int64_t value, int32_t at);

typedef struct dice {
    int32_t count; /* number of dice, >= 1 */
    int32_t sides; /* >= 1; 100 for d%; 3 for dF (faces -1,0,+1) */
    bool fudge;
    uint8_t keep;        /* enum dice_keep */
    int32_t keep_n;      /* dice kept (KEEP_*) or dropped (DROP_*); 0 for KEEP_ALL */
    uint8_t explode;     /* enum dice_explode */
    uint8_t explode_cmp; /* DICE_CMP_NONE when not exploding */
    int32_t explode_at;  /* default: == highest face (sides; 1 for dF) */
    bool reroll_once;    /* ro vs r */
    uint8_t reroll_cmp;  /* DICE_CMP_NONE = no reroll */
    int32_t reroll_at;
    uint8_t success_cmp; /* DICE_CMP_NONE = sum faces; else count successes */
    int32_t success_at;
    uint8_t failure_cmp; /* f1 etc: failures subtract 1 each (needs success_cmp) */
    int32_t failure_at;
} dice;

typedef struct dice_error {
    size_t offset; /* byte offset in the parsed text */
    char message[128];
} dice_error;

/* What a roll can hold: faces per term are counted in 16 bits (with room
 * for the extra dice), and a compounded face, up to DICE_MAX_SIDES times
 * (DICE_MAX_EXPLOSIONS + 1), in 32. The limits rules meet first (--limit
 * dice=N and sides=N) default lower. */
#define DICE_MAX_COUNT 60000
#define DICE_MAX_SIDES 20000000
#define DICE_DEFAULT_COUNT 10000
#define DICE_DEFAULT_SIDES 1000000
/* Extra dice per roll from explosions and rerolls together; then it stops. */
#define DICE_MAX_EXPLOSIONS 100

/* Parse text[0..len) entirely as one dice term (no spaces, no arithmetic).
 * Modifiers may come in any order, each at most once; a comparison right
 * after '!' belongs to the explosion. Returns 0, or -1 with err filled
 * (err may be NULL). text need not be NUL-terminated. */
int dice_parse(const char *text, size_t len, dice *out, dice_error *err);

enum {
    DICE_FACE_DROPPED = 1 << 0,  /* removed by keep/drop */
    DICE_FACE_EXPLODED = 1 << 1, /* this face caused another die (or compounded) */
    DICE_FACE_REROLLED = 1 << 2, /* discarded by a reroll */
    DICE_FACE_SUCCESS = 1 << 3,
    DICE_FACE_FAILURE = 1 << 4,
    DICE_FACE_FORCED = 1 << 5, /* chosen ahead (forced.h), not rolled */
};

typedef struct dice_face {
    int32_t value;
    uint8_t flags; /* DICE_FACE_* */
} dice_face;

/* Worst-case number of faces one roll of d can record (0 for a count out
 * of range). Inline: every roll sizes its faces with it. */
static inline size_t dice_max_faces(const dice *d)
{
    if (d->count < 1 || d->count > DICE_MAX_COUNT)
        return 0;
    size_t n = (size_t)d->count;
    if (d->explode != DICE_NO_EXPLODE || d->reroll_cmp != DICE_CMP_NONE)
        n += DICE_MAX_EXPLOSIONS;
    return n;
}

/* Whether d is a plain pool: NdS with at most keep/drop (no fudge,
 * explosions, rerolls or success counting), every count and size in range.
 * dice_roll_plain rolls such a pool; it needs d->count faces of room. */
bool dice_is_plain(const dice *d);
int64_t dice_roll_plain(const dice *d, rng *r, dice_face *faces);
/* Bits that hold a face of a die of `sides`, less one (0 for a d1). */
static inline unsigned dice_face_bits(int32_t sides)
{
    return sides > 1 ? 32u - (unsigned)__builtin_clz((uint32_t)(sides - 1)) : 0u;
}
/* Packed faces: a plain pool of at most DICE_PACKED_MAX dice (callers see
 * to it) whose faces, each less one in dice_face_bits(d->sides) bits, fit
 * in 32 bits, the first face in the highest of them. dice_pack packs the
 * faces dice_roll_plain rolled; dice_unpack gives them back with the
 * dropped ones marked as the roll marked them. */
#define DICE_PACKED_MAX 32
typedef struct dice_packed {
    int64_t total;
    uint32_t faces;
} dice_packed;

/* A packed pool that keeps all its dice or drops one (4d6kh3, 2d20kh1)
 * rolls in one pass, by a plan worked out once: dice_plan_packed says
 * whether d is such a pool, and dice_roll_planned rolls it as
 * dice_roll_plain and dice_pack would (not with an oracle's draws). */
typedef struct dice_plan {
    int32_t count, sides; /* count 0: no plan */
    uint8_t bits;         /* dice_face_bits(sides) */
    bool drop_one;        /* else all are kept */
    int64_t flip;         /* 0: the lowest face goes, -1: the highest */
} dice_plan;
bool dice_plan_packed(const dice *d, dice_plan *out);
/* Inline: the caller's call is the only one a roll of such a pool makes. */
static inline dice_packed dice_roll_planned(const dice_plan *p, rng *r)
{
    /* One pass rolls, packs, adds and finds the face to drop (its value
       is all the total needs; dice_unpack marks which, as keep_plain
       does). A face dropped from the top has the complement for its key. */
    rng local = {.oracle = NULL}; /* in registers, as in dice_roll_plain */
    rng_copy_state(local.s, r->s);
    uint64_t sides = (uint64_t)p->sides, bits = 0;
    unsigned b = p->bits;
    int64_t sum = p->count, flip = p->flip, low = INT64_MAX;
    for (int32_t i = p->count; i > 0; i--) {
        uint64_t face = rng_below_nonzero(&local, sides);
        bits = bits << b | face;
        sum += (int64_t)face;
        int64_t key = (int64_t)face ^ flip;
        low = key < low ? key : low;
    }
    rng_copy_state(r->s, local.s);
    if (p->drop_one)
        sum -= (low ^ flip) + 1;
    return (dice_packed){.total = sum, .faces = (uint32_t)bits};
}
uint32_t dice_pack(const dice *d, const dice_face *faces);
void dice_unpack(const dice *d, uint32_t packed, dice_face *faces);

/* Roll d. Faces go to faces[0..cap) in roll order, including rerolled and
 * dropped ones; *nfaces gets their count. *total is the sum of kept faces, or
 * successes minus failures. Returns 0, or -1 (nothing rolled, r untouched)
 * if cap < dice_max_faces(d) or d is out of range. Never allocates. */
int dice_roll(const dice *d, rng *r, dice_face *faces, size_t cap, size_t *nfaces, int64_t *total);

/* Lowest and highest totals any roll can produce. Exact without explosions.
 * With explosions these are true but loose bounds that assume every allowed
 * extra die (DICE_MAX_EXPLOSIONS) could land, e.g. d6! gives 1..606. Rerolls
 * are ignored: once the reroll budget runs out any face can stand. */
int64_t dice_min(const dice *d);
int64_t dice_max(const dice *d);

/* Canonical notation, e.g. "4d6kh3", "d20", "d%", "2dF", "d6!>5".
 * snprintf-style: returns the length the full text needs; writes at most cap
 * bytes including the terminating NUL. */
size_t dice_format(const dice *d, char *buf, size_t cap);

/* Breakdown such as "4d6kh3 (6, 5, [2], 4) = 15": dropped and rerolled faces
 * in [brackets], faces that exploded suffixed "!", successes "*", failures
 * "f": "5d10>=8 (9*, 3, 8*, 1, 10*) = 3". snprintf-style return. */
size_t dice_format_roll(const dice *d, const dice_face *faces, size_t nfaces, int64_t total, char *buf, size_t cap);

#endif
