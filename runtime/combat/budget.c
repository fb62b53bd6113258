/* budget: a walk that spends a resource counting distance (`resource
 * movement: distance`): `walk(self, dest, movement)` and the table's
 * `move NAME to SQUARE spending movement` take their limit from the
 * creature's resource and spend what they move, so that a second walk in
 * the same turn goes on from what is left. */
#include "runtime/combat/world.h"

bool budget_open(vm *v, int c, value named, walk_budget *b, span at)
{
    b->decl = -1;
    b->have = value_nil();
    if (named.type != V_WORD || named.home != HOME_PROGRAM)
        return true;
    const char *name = program_string(v->p, (int)named.num);
    const decl *d = program_find_decl(v->p, DK_RESOURCE, (int)named.num);
    if (!d)
        return vm_error(v, at, "a walk spends a resource of distance, and '%s' is none", name);
    int index = program_decl_index(v->p, d);
    const r_resource *res = rules_resource_of(v->r, index);
    if (!res || res->unit != V_DIST)
        return vm_error(v, at, "a walk spends a distance, and %s counts %s; declare it 'resource %s: distance ...'",
                        name, res && res->unit == V_TIME ? "a time" : "numbers", name);
    b->decl = index;
    return world_get_stat(v, c, index, &b->have);
}

bool budget_left(vm *v, const walk_budget *b, value moved, value *left, span at)
{
    if (b->have.type != V_DIST || rat_add(b->have, moved, V_DIST, left, -1) != ARITH_OK)
        return vm_error(v, at, "a distance on the grid is too large for a number");
    return true;
}

bool budget_pay(vm *v, int c, const walk_budget *b, value left, span at)
{
    return b->decl < 0 || world_set_stat(v, c, b->decl, left, at);
}
