#include "runtime/dice/forced.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/dice/dice.h"

bool dice_forced_kind(const dice *d)
{
    return d->count == 1 && d->keep == DICE_KEEP_ALL && d->explode == DICE_NO_EXPLODE &&
           d->reroll_cmp == DICE_CMP_NONE && d->success_cmp == DICE_CMP_NONE;
}

bool dice_forced_fits(const dice *d, int64_t face)
{
    return d->fudge ? face >= -1 && face <= 1 : face >= 1 && face <= d->sides;
}

bool dice_forced_add(dice_forced *f, const dice *d, int32_t face)
{
    dice_forced_face *grown = mem_grow(f->queue, sizeof *grown, &f->cap, f->n + 1);
    if (!grown)
        return false;
    f->queue = grown;
    f->queue[f->n++] = (dice_forced_face){.sides = d->fudge ? 3 : d->sides, .fudge = d->fudge, .face = face};
    return true;
}

bool dice_forced_take(dice_forced *f, int32_t sides, bool fudge, int32_t *face)
{
    for (size_t i = 0; i < f->n; i++) {
        if (f->queue[i].sides != sides || f->queue[i].fudge != fudge)
            continue;
        *face = f->queue[i].face;
        memmove(f->queue + i, f->queue + i + 1, (f->n - i - 1) * sizeof *f->queue);
        f->n--;
        return true;
    }
    return false;
}

void dice_forced_clear(dice_forced *f)
{
    if (f->queue)
        mem_free(f->queue, f->cap * sizeof *f->queue);
    *f = (dice_forced){0};
}

bool dice_forced_copy(dice_forced *to, const dice_forced *from)
{
    *to = (dice_forced){0};
    if (!from->n)
        return true;
    bool ok = true;
    to->queue = mem_dup(from->queue, from->n * sizeof *from->queue, &ok);
    if (!ok)
        return false;
    to->n = to->cap = from->n;
    return true;
}
