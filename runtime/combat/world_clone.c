/* world_clone: a VM and its world copied whole between commands, for a
 * context copied whole (fray_clone): what vm_free and world_close free,
 * each copied. A field that owns memory is copied here and freed there:
 * keep them in step. */
#include <stddef.h>
#include <string.h>

#include "runtime/dice/dist.h"
#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

bool world_at_rest(const vm *v)
{
    return v->nframes == 0 && v->sp == v->stack && !v->walk && !v->world->tally && v->exact_depth == 0 &&
           v->peek_depth == 0 && !v->world->ledger_trying && !v->world->cb.roll_as && v->world->cb.actor < 0 &&
           v->world->cb.trigger_depth == 0;
}

static void clone_store(vm_store *st, const vm_store *from, bool *ok)
{
    st->dice = mem_dup(from->dice, from->dice_cap * sizeof(dexpr), ok);
    st->items = mem_dup(from->items, from->items_cap * sizeof(value), ok);
    st->lists = mem_dup(from->lists, from->lists_cap * sizeof(vm_list), ok);
    st->chars = mem_dup(from->chars, from->chars_cap, ok);
    st->strs = mem_dup(from->strs, from->strs_cap * sizeof(size_t), ok);
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
    c->stats = mem_dup(from->stats, (size_t)v->world->nslots * sizeof(value), ok);
    c->ledger = mem_dup(from->ledger, (size_t)v->world->ledger_len * sizeof(counter), ok);
    c->held = mem_dup(from->held, (size_t)from->held_len * sizeof(int32_t), ok);
    c->marks = mem_dup(from->marks, from->marks_cap * sizeof(track_mark), ok);
    if (!c->marks)
        c->nmarks = c->marks_cap = 0;
}

vm *world_clone(const vm *from, program *p)
{
    if (!world_at_rest(from))
        return NULL;
    vm *v = mem_alloc(sizeof(vm));
    struct world *w = mem_alloc(sizeof *w);
    if (!v || !w) {
        mem_free(v, sizeof(vm));
        mem_free(w, sizeof *w);
        return NULL;
    }
    /* the stack and frames hold nothing at rest (vm_new leaves them too) */
    memcpy(v, from, offsetof(vm, stack));
    text_init(&v->error); /* the copy's own (at rest, there is no error to copy) */
    memcpy(w, from->world, sizeof *w);
    v->world = w;
    w->recording = NULL; /* at rest: no formula runs */
    w->memo_fits = NULL; /* the copy looks at chunks itself */
    w->memo_fits_n = 0;
    v->p = p;
    v->r = p->rules;
    v->sp = v->stack;
    bool ok = true;
    v->globals = mem_dup(from->globals, from->globals_cap * sizeof(value), &ok);
    v->rng.forced = &v->forced;
    if (!dice_forced_copy(&v->forced, &from->forced))
        ok = false;
    v->world->stat_slot = mem_dup(from->world->stat_slot, from->world->stat_slot_cap * sizeof(int), &ok);
    v->world->decl_info = mem_dup(from->world->decl_info, from->world->decl_info_cap * sizeof(decl_info), &ok);
    v->world->creatures = mem_dup(from->world->creatures, from->world->creatures_cap * sizeof(creature), &ok);
    if (!v->world->creatures)
        v->world->ncreatures = 0;
    for (size_t i = 0; i < v->world->ncreatures; i++)
        clone_creature(&v->world->creatures[i], &from->world->creatures[i], from, &ok);
    v->world->name_index = mem_dup(from->world->name_index, from->world->name_index_cap * sizeof(int32_t), &ok);
    if (!vm_rolls_copy(v, from))
        ok = false;
    v->world->ledger_try = mem_dup(from->world->ledger_try, (size_t)from->world->ledger_len * sizeof(counter), &ok);
    clone_store(&v->scratch, &from->scratch, &ok);
    clone_store(&v->kept, &from->kept, &ok);
    ok &= sides_clone(v->world, from->world);
    ok &= tags_clone(v->world, from->world);
    if (!ok || !combat_clone(&v->world->cb, &from->world->cb)) {
        combat_init(&v->world->cb); /* nothing of it was taken */
        world_close(v);
        return NULL;
    }
    return v;
}
