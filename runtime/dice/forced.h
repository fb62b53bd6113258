/* forced: faces chosen ahead for the dice. A GM who rolls at the table,
 * and a test that needs a natural 20, queue faces by kind of die
 * (`force d20 20, 1`); the next dice of that kind rolled, wherever they
 * are rolled (a check, damage, an explosion, a reroll), take them in
 * order, and are marked DICE_FACE_FORCED. The queue belongs to whoever
 * owns the generator (the VM), which points rng.forced at it. */
#ifndef FRAY_FORCED_H
#define FRAY_FORCED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dice_forced_face {
    int32_t sides; /* 3 for dF */
    bool fudge;
    int32_t face; /* as the die shows it: 1..sides, or -1..1 for dF */
} dice_forced_face;

typedef struct dice_forced {
    dice_forced_face *queue;
    size_t n, cap;
} dice_forced;

struct dice;
/* Whether d is one die a face can be forced for (d20, d%, dF: no count,
 * keep, explosion, reroll or success rule), and whether it shows face. */
bool dice_forced_kind(const struct dice *d);
bool dice_forced_fits(const struct dice *d, int64_t face);
/* Queues face for the next die of d's kind; false when out of memory. */
bool dice_forced_add(dice_forced *f, const struct dice *d, int32_t face);
/* The first face queued for a die of this kind, taken off the queue. */
bool dice_forced_take(dice_forced *f, int32_t sides, bool fudge, int32_t *face);
void dice_forced_clear(dice_forced *f);
/* A copy of from's queue into to (empty); false when out of memory. */
bool dice_forced_copy(dice_forced *to, const dice_forced *from);

#endif
