/* dice_mark: whether working out a formula changed anything, for what is
 * kept with the state of play's version (conditions.c, footprint.c): the
 * version, which every change of play moves on, and what rolling a die
 * changes besides (the generator, the faces forced ahead, the rolls
 * counted). A formula that rolled or changed play is not kept. */
#ifndef FRAY_DICE_MARK_H
#define FRAY_DICE_MARK_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/core/vm.h"

typedef struct dice_mark {
    uint64_t s[4], roll_seq;
    size_t forced;
} dice_mark;

static inline dice_mark dice_mark_now(const vm *v)
{
    return (dice_mark){{v->rng.s[0], v->rng.s[1], v->rng.s[2], v->rng.s[3]}, v->roll_seq, v->forced.n};
}

/* Nothing changed since version and m were taken. */
static inline bool dice_mark_unchanged(const vm *v, uint64_t version, const dice_mark *m)
{
    return v->play_version == version && v->rng.s[0] == m->s[0] && v->rng.s[1] == m->s[1] && v->rng.s[2] == m->s[2] &&
           v->rng.s[3] == m->s[3] && v->roll_seq == m->roll_seq && v->forced.n == m->forced;
}

#endif
