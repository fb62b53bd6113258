/* damage: the GM's `damage NAME N [KIND]` and `heal NAME N`. What damage
 * and healing are is the rules' to say: a resource declares the procedure
 * each command calls (`damage by PROC [kinds ...]`, `heal by PROC`), so
 * that the rules' thresholds, unconsciousness, death and wounds follow as
 * they do in play. The command then echoes the resource as the tracker
 * shows it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/core/commands.h"
#include "runtime/combat/world.h"

/* The procedure the clause names, as it stands, with the arguments it must
   take; NULL (and an error) when it is none. */
static const decl *damage_procedure(vm *v, const r_resource *res, bool heal, span at)
{
    int name = heal ? res->heal_by : res->damage_by;
    const char *resource = program_string(v->p, v->p->decls[res->stat].name);
    const char *clause = heal ? "heal" : "damage";
    const decl *d = program_find_decl(v->p, DK_PROCEDURE, name);
    if (d)
        d = &v->p->decls[v->world->decl_info[program_decl_index(v->p, d)].latest];
    if (!d || d->body < 0) {
        vm_error(v, at, "resource %s says '%s by %s', but no procedure %s is declared", resource, clause,
                 program_string(v->p, name), program_string(v->p, name));
        return NULL;
    }
    int want = 2 + (!heal && res->nkinds > 0);
    if (d->nparams != want) {
        vm_error(v, at, "resource %s says '%s by %s': %s must take %d arguments (the creature, the amount%s), not %d",
                 resource, clause, program_string(v->p, name), program_string(v->p, name), want,
                 want == 3 ? ", the kind" : "", d->nparams);
        return NULL;
    }
    return d;
}

bool play_damage(vm *v, bool heal, const value *args, int argc, span at)
{
    const r_resource *res = rules_damage_resource(v->p, heal);
    if (!res)
        return vm_error(v, at, "these rules say nothing of %s", heal ? "healing" : "damage");
    if (args[0].type != V_CREATURE)
        return vm_error(v, at, "expected a creature, not %s", value_type_name(args[0].type));
    int c = (int)args[0].num;
    if (args[1].type != V_INT || args[1].aux != 1 || args[1].num < 0)
        return vm_error(v, at, "the amount %s is a whole number, 0 or more", heal ? "healed" : "of damage");
    int stat = res->stat;
    const decl *d = damage_procedure(v, res, heal, at);
    if (!d)
        return false;
    value call[3] = {args[0], args[1], value_nil()};
    int n = 2;
    if (!heal && res->nkinds > 0) {
        int kind = argc > 2 && args[2].type == V_WORD ? (int)args[2].num : res->kinds[0];
        if (rules_damage_kind(res, kind) < 0)
            return vm_error(v, at, "these rules know no damage of kind '%s'", program_string(v->p, kind));
        call[n++] = value_ref(V_WORD, HOME_PROGRAM, kind);
    }
    /* the tracker's other columns, to say those the command changed */
    const r_encounter *enc = &v->r->encounter;
    char *before[ENCOUNTER_MAX_TRACK] = {NULL};
    bool ok = true;
    for (int k = 0; ok && k < enc->ntrack; k++)
        ok = (before[k] = play_stat_text_whole(v, c, enc->track[k])) != NULL;
    value out;
    ok = ok ? vm_call(v, d->body, -1, call, n, &out) : vm_error(v, at, "out of memory");
    /* the resource as the tracker shows it, then what else changed */
    char *now = ok ? play_stat_text_whole(v, c, stat) : NULL;
    if (ok && !(ok = now != NULL))
        vm_error(v, at, "out of memory");
    combat_line line = {.say = true};
    if (ok)
        combat_line_add(v, &line, "%s: %s %s", v->world->creatures[c].name,
                        program_string(v->p, v->p->decls[stat].name), now);
    for (int k = 0; ok && k < enc->ntrack; k++) {
        mem_strfree(now);
        if (!(now = play_stat_text_whole(v, c, enc->track[k])))
            ok = vm_error(v, at, "out of memory");
        else if (enc->track[k] != stat && strcmp(now, before[k]) != 0)
            combat_line_add(v, &line, ", %s %s", program_string(v->p, v->p->decls[enc->track[k]].name), now);
    }
    if (ok)
        combat_line_end(v, &line);
    mem_strfree(now);
    for (int k = 0; k < enc->ntrack; k++)
        mem_strfree(before[k]);
    return ok;
}
