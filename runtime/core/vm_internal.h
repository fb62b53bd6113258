/* vm_internal: what the interpreter's own files share, and nothing else
 * may use: vm.c (the loop and arithmetic), vm_roll.c (dice and rolls),
 * vm_store.c (lists and the stores of values made at run time),
 * vm_format.c (values as text) and vm_limits.c. */
#ifndef FRAY_VM_INTERNAL_H
#define FRAY_VM_INTERNAL_H

#include "runtime/core/vm.h"

/* vm_roll.c: dice values and rolls */
const vm_store *vm_store_of(const vm *v, value x);
bool vm_store_dexpr(vm *v, vm_store *st, uint8_t home, const dexpr *d, span at, value *out);
bool vm_new_dexpr(vm *v, const dexpr *d, span at, value *out);
bool vm_dice_add(vm *v, value a, value b, int sign, span at, value *out);
bool vm_dice_scale(vm *v, value d, int64_t k, span at, value *out);
bool vm_roll_sum(vm *v, const value *parts, int n, unsigned negative, span at, value *out);
value vm_roll_packed_pools(vm *v, const dexpr *d, uint16_t index);
bool vm_roll_program_slow(vm *v, uint16_t index, const span *at, value *out);
const dice_face *vm_roll_faces(const vm *v, value r, dice_face scratch[DICE_PACKED_MAX],
                               uint16_t counts[DEXPR_MAX_TERMS], const dexpr **rolled);
const roll_record *vm_roll_of(const vm *v, value r);

/* vm_store.c: lists */
uint32_t vm_list_depth(const vm *v, value x);
bool vm_nesting_ok(vm *v, uint32_t depth, span at);
value *vm_list_slots(vm *v, value list, size_t *n);

/* vm_format.c: text */
size_t vm_format_dexpr(const dexpr *d, char *buf, size_t cap, size_t at, const dice_face *faces,
                       const uint16_t *counts);
bool vm_roll_member(vm *v, value roll, const char *name, span at, value *out);
bool vm_out_of_steps(vm *v, span at);

/* The loop's own roll of a program's dice, inline: most rolls of a fight
 * are these. */
/* A packed roll (a roll of a dexpr marked packed) keeps no record: its
 * value holds it all. home is ROLL_PACKED, pad the program's expression,
 * aux its faces, each pool's packed by dice_pack and the last pool's in
 * the lowest bits (the keeping and dropping is done again from them), num
 * the total. Such a roll never goes stale. */
#define ROLL_PACKED 0x40

/* `roll d20 + 5` with constant terms: the program's expression, when it
 * is packed, rolled into *out; false when it is not (or a die the player
 * rolled, or an oracle's draws, are waiting: those are kept in the ring),
 * for roll_program_slow. The compiler has seen to it that a
 * packed total cannot overflow. */
static inline bool vm_roll_packed(vm *v, uint16_t index, value *out)
{
    if (__builtin_expect(index >= v->p->ndice || v->force_face || v->rng.oracle || v->forced.n, 0))
        return false;
    const dexpr *d = &v->p->dice[index];
    if (__builtin_expect(d->packed_die != 0, 1)) { /* `d20 + 5`: one die (packed_die implies packed) */
        uint64_t face = rng_below_nonzero(&v->rng, (uint64_t)d->packed_die);
        *out = (value){.type = V_ROLL,
                       .home = ROLL_PACKED,
                       .pad = index,
                       .aux = (int32_t)face,
                       .num = (int64_t)face + 1 + d->plain_offset};
        return true;
    }
    if (!d->packed)
        return false;
    *out = vm_roll_packed_pools(v, d, index);
    return true;
}

#endif
