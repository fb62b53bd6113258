/* vm_clone: a VM copied whole between commands, for a context copied
 * whole (fray_clone): what vm_free frees, each copied. A field that owns
 * memory is copied here and freed there: keep the two in step. */
#include <stddef.h>
#include <string.h>

#include "runtime/dice/dist.h"
#include "runtime/base/mem.h"
#include "runtime/core/vm.h"

bool vm_at_rest(const vm *v)
{
    return v->nframes == 0 && v->sp == v->stack && !v->walk && !v->sim && v->exact_depth == 0 && v->peek_depth == 0 &&
           !v->ledger_trying && !v->cb.roll_as && v->cb.actor < 0 && v->cb.trigger_depth == 0;
}

static void clone_store(vm_store *st, const vm_store *from, bool *ok)
{
    st->dice = mem_dup(from->dice, from->dice_cap * sizeof(dexpr), ok);
    st->items = mem_dup(from->items, from->items_cap * sizeof(value), ok);
    st->lists = mem_dup(from->lists, from->lists_cap * sizeof(vm_list), ok);
    st->dists = *ok && from->dists ? mem_calloc(from->dists_cap, sizeof *st->dists) : NULL;
    if (!st->dists) {
        *ok &= !from->dists;
        st->ndists = st->dists_cap = 0;
        return;
    }
    for (size_t i = 0; i < st->ndists && *ok; i++) {
        dist_error err = {.limits = NULL};
        *ok = (st->dists[i] = dist_copy(from->dists[i], &err)) != NULL;
    }
}

static void clone_creature(creature *c, const creature *from, const vm *v, bool *ok)
{
    c->name = mem_dup(from->name, strlen(from->name) + 1, ok);
    c->stats = mem_dup(from->stats, (size_t)v->nslots * sizeof(value), ok);
    c->ledger = mem_dup(from->ledger, (size_t)v->ledger_len * sizeof(counter), ok);
    c->held = mem_dup(from->held, (size_t)from->held_len * sizeof(int32_t), ok);
}

vm *vm_clone(const vm *from, program *p)
{
    if (!vm_at_rest(from))
        return NULL;
    vm *v = mem_alloc(sizeof(vm));
    if (!v)
        return NULL;
    /* the stack and frames hold nothing at rest (vm_new leaves them too) */
    memcpy(v, from, offsetof(vm, stack));
    v->p = p;
    v->r = p->rules;
    v->sp = v->stack;
    bool ok = true;
    v->globals = mem_dup(from->globals, from->globals_cap * sizeof(value), &ok);
    v->stat_slot = mem_dup(from->stat_slot, from->stat_slot_cap * sizeof(int), &ok);
    v->decl_info = mem_dup(from->decl_info, from->decl_info_cap * sizeof(decl_info), &ok);
    v->creatures = mem_dup(from->creatures, from->creatures_cap * sizeof(creature), &ok);
    if (!v->creatures)
        v->ncreatures = 0;
    for (size_t i = 0; i < v->ncreatures; i++)
        clone_creature(&v->creatures[i], &from->creatures[i], from, &ok);
    v->name_index = mem_dup(from->name_index, from->name_index_cap * sizeof(int32_t), &ok);
    v->rolls = mem_dup(from->rolls, from->roll_ring * sizeof(roll_record), &ok);
    v->roll_details = mem_dup(from->roll_details, VM_ROLL_RING * sizeof(roll_detail), &ok);
    v->faces = mem_dup(from->faces, VM_FACE_RING * sizeof(dice_face), &ok);
    v->ledger_try = mem_dup(from->ledger_try, (size_t)from->ledger_len * sizeof(counter), &ok);
    clone_store(&v->scratch, &from->scratch, &ok);
    clone_store(&v->kept, &from->kept, &ok);
    if (!ok || !combat_clone(&v->cb, &from->cb)) {
        combat_init(&v->cb); /* nothing of it was taken */
        vm_free(v);
        return NULL;
    }
    return v;
}
