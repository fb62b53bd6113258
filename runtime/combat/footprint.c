/* footprint: the squares per side a creature fills on the grid (the
 * space's `occupies` formula), kept per creature between two changes of
 * the state of play, as conditions.c keeps what holds. Distance, reach,
 * adjacency, threats, sight and every walk read footprints, several times
 * over between two changes (a tactic's distance() to each enemy reads the
 * mover's each time).
 *
 * What keeps a kept footprint right (the rules of conditions.c):
 * - It is kept with the state's version (vm.play_version), which every
 *   change a formula could read moves on (a stat or variable set, an
 *   effect added or ended, a move, a turn, a creature joining or leaving,
 *   an answer to a ruling, a line of the transcript, an event), and with
 *   the rules' generation (rules added at the table are new formulas).
 * - It is kept only when working it out changed nothing: the version and
 *   the dice (the generator, the faces forced ahead, the roll count) are
 *   as they were. A formula that rolls, sets a stat, asks a ruling or logs
 *   a line is worked out each time it is asked, as before.
 * - It is kept and read only outside `holds when` formulas and exact
 *   contexts, where has() and rulings answer otherwise.
 * - Where `occupies` is a formula of stats alone (`occupies bulk`), it is
 *   also kept with the stats it read (stat_memo.h), which stands across
 *   any change but one of the creature's own stats or effects: a move, a
 *   turn or another's hit points leave it as it is.
 * - A copy of the world (world_clone, undo, a checkpoint) starts without
 *   any (combat_clone), and a new vm at version 0 with none.
 * Errors are never kept. A checking build (FRAY_VERIFY_CACHES) works out
 * again every footprint it takes from here, and aborts on a stale one. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/base/mem.h"
#include "runtime/combat/dice_mark.h"
#include "runtime/combat/stat_memo.h"
#include "runtime/combat/world.h"

typedef struct footprint_entry {
    uint64_t version;    /* vm.play_version it was worked out at */
    uint32_t generation; /* of the rules */
    int32_t side;        /* 1 to 16; 0 when none is kept */
    /* and, where `occupies` is a formula of stats alone (`occupies
       bulk`), kept with the stats it read (stat_memo.h): a creature's
       footprint stands across moves and others' changes until its size
       does */
    stat_memo memo;
} footprint_entry;

struct footprint_cache {
    footprint_entry *entries; /* per creature */
    size_t cap;
};

void grid_footprints_free(combat *cb)
{
    struct footprint_cache *k = cb->footprints;
    if (!k)
        return;
    if (k->entries)
        mem_free(k->entries, k->cap * sizeof(footprint_entry));
    mem_free(k, sizeof *k);
    cb->footprints = NULL;
}

/* c's entry, made (none kept) when there is none; NULL when out of memory,
   and then nothing is kept. */
static footprint_entry *entry_of(vm *v, int c)
{
    combat *cb = &v->world->cb;
    if (!cb->footprints && !(cb->footprints = MEM_NEW(struct footprint_cache)))
        return NULL;
    struct footprint_cache *k = cb->footprints;
    if ((size_t)c >= k->cap) {
        size_t old = k->cap;
        footprint_entry *g = mem_grow(k->entries, sizeof(footprint_entry), &k->cap, (size_t)c + 1);
        if (!g)
            return NULL;
        for (size_t i = old; i < k->cap; i++) {
            g[i].side = 0;
            g[i].memo.known = false;
        }
        k->entries = g;
    }
    return &k->entries[c];
}

/* The side a value of `occupies` gives: a number from 1 to 16 (anything
   else counts 1). */
static int32_t side_of(value n)
{
    if (!value_is_number(n))
        return 1;
    int64_t k = value_floor(value_as_frac(n));
    return k < 1 ? 1 : k > 16 ? 16 : (int32_t)k;
}

#ifdef FRAY_VERIFY_CACHES
static void verify_footprint(vm *v, int c, const rexpr *e, int32_t kept)
{
    /* with a budget of its own, so a run with the check goes as one without */
    int64_t steps = v->steps_left;
    v->steps_left = INT64_MAX / 2;
    value n;
    bool called = vm_call(v, e->chunk, c, NULL, 0, &n);
    v->steps_left = steps;
    if (!called || side_of(n) != kept) {
        fprintf(stderr,
                "fray: internal error: the footprint kept for creature %d is stale (a change of the state of play "
                "did not call vm_play_changed)\n",
                c);
        abort();
    }
}
#else
static inline void verify_footprint(vm *v, int c, const rexpr *e, int32_t kept)
{
    (void)v, (void)c, (void)e, (void)kept;
}
#endif

int32_t grid_footprint(vm *v, int c)
{
    const rexpr *e = &v->r->space.occupies;
    if (!rexpr_present(e))
        return 1;
    if (e->kind == REXPR_CONST)
        return side_of(e->v);
    bool keep = !v->world->cb.in_holds && !v->exact_depth;
    const struct footprint_cache *k = v->world->cb.footprints;
    if (keep && k && (size_t)c < k->cap) {
        const footprint_entry *f = &k->entries[c];
        if (f->side && f->version == v->play_version && f->generation == v->r->generation) {
            verify_footprint(v, c, e, f->side);
            return f->side;
        }
        /* kept with the stats it read (kept only where it fits stat_memo) */
        value n;
        if (!v->world->recording && stat_memo_get(v, &f->memo, e->chunk, &n)) {
            verify_footprint(v, c, e, side_of(n));
            return side_of(n);
        }
    }
    uint64_t version = v->play_version;
    dice_mark m = dice_mark_now(v);
    value n;
    footprint_entry *w;
    /* inside a formula kept with what it reads, a footprint kept here
       names none of it: worked out, as before */
    if (keep && !v->world->recording && stat_memo_fits(v, e->chunk)) {
        stat_memo fresh = {0};
        if (!stat_memo_eval(v, &fresh, e->chunk, c, &n))
            return -1;
        if (fresh.known && (w = entry_of(v, c))) /* looked up after: working it out may grow the cache */
            w->memo = fresh;
    } else if (!vm_call(v, e->chunk, c, NULL, 0, &n))
        return -1;
    int32_t side = side_of(n);
    if (keep && dice_mark_unchanged(v, version, &m) && (w = entry_of(v, c))) {
        w->version = version;
        w->generation = v->r->generation;
        w->side = side;
    }
    return side;
}
