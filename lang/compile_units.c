/* compile_units: resources that count a distance or a time (`resource
 * movement: distance`): what may be assigned to one, and a walk that
 * spends one (`walk(self, dest, movement)`). */
#include <string.h>

#include "lang/compiler.h"
#include "runtime/core/rules.h"

void resource_assign_fits(compiler *cc, const decl *d, sty t, span at)
{
    if (!d || d->kind != DK_RESOURCE || t == TY_ANY || t == TY_NIL)
        return;
    sty want = d->type == TY_DIST || d->type == TY_TIME ? (sty)d->type : TY_NUM;
    if (want == TY_NUM ? t != TY_DIST && t != TY_TIME : t == want)
        return;
    const char *name = program_string(cc->p, d->name);
    if (want == TY_NUM)
        comp_error(cc, at, "%s is a number (resource %s), not %s; declare it 'resource %s: %s' to count that", name,
                   name, sty_name(t), name, t == TY_DIST ? "distance" : "time");
    else
        comp_error(cc, at, "%s is %s (resource %s: %s), not %s; give it with its unit, as in %s", name, sty_name(want),
                   name, want == TY_DIST ? "distance" : "time", sty_name(t), want == TY_DIST ? "5 ft" : "6 s");
}

bool compile_walk_budget(compiler *cc, const char *fn, const node *a)
{
    int id = comp_intern(cc, a->text);
    const decl *d = program_find_decl(cc->p, DK_RESOURCE, id);
    if (!d)
        return false;
    bool move = strcmp(fn, "move") == 0; /* the table's `move ... spending` */
    if (d->type != TY_DIST)
        comp_error(cc, a->sp,
                   "%s%s spends a distance, and %s counts %s; declare it 'resource %s: distance ...' to walk on it",
                   move ? "a move" : fn, move ? "" : "()", a->text, d->type == TY_TIME ? "times" : "numbers", a->text);
    /* the resource itself, not its value for self: the walk spends it */
    emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, id), a->sp);
    return true;
}
