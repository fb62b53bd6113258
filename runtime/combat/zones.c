/* zones: a battlefield without a grid. Creatures are in zones (named,
 * with neighbours). The range between two creatures follows from where
 * they are and how they are related: the rules' ordinal ranges say which
 * relations put creatures at which range (`range short { within engaged,
 * grouped }`, `range long { apart 1 zone }`), tried in the order they were
 * declared. Groups and engagements are the rules' relations (groups.c). */
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/suggest.h"
#include "runtime/combat/world.h"

static int zone_index(const vm *v, int name)
{
    for (int i = 0; i < v->world->cb.nzones; i++)
        if (v->world->cb.zones[i].name == name)
            return i;
    return -1;
}

static int add_zone(vm *v, int name, span at)
{
    combat *cb = &v->world->cb;
    int z = zone_index(v, name);
    if (z >= 0)
        return z;
    size_t cap = (size_t)cb->zones_cap;
    zone_info *g = mem_grow(cb->zones, sizeof(zone_info), &cap, (size_t)cb->nzones + 1);
    if (!g)
        return vm_error(v, at, "out of memory"), -1;
    cb->zones = g;
    cb->zones_cap = (int)cap;
    cb->zones[cb->nzones] = (zone_info){.name = name};
    vm_play_changed(v);
    return cb->nzones++;
}

/* Adds a word to a zone's neighbours, once. */
static bool add_word(vm *v, int32_t **words, int *n, size_t *cap, int32_t w, span at)
{
    for (int i = 0; i < *n; i++)
        if ((*words)[i] == w)
            return true;
    int32_t *g = mem_grow(*words, sizeof(int32_t), cap, (size_t)*n + 1);
    if (!g)
        return vm_error(v, at, "out of memory");
    *words = g;
    (*words)[(*n)++] = w;
    return true;
}

static bool link_zone(vm *v, int z, int other, span at)
{
    zone_info *zi = &v->world->cb.zones[z];
    return add_word(v, &zi->neighbours, &zi->nneighbours, &zi->neighbours_cap, v->world->cb.zones[other].name, at);
}

bool zones_declare(vm *v, int name, const value *neighbours, int nneighbours, const value *tags, int ntags, span at)
{
    for (int i = 0; i < nneighbours; i++)
        if (zone_index(v, (int)neighbours[i].num) < 0)
            return vm_error(v, at, "no zone '%s' yet", program_string(v->p, (int)neighbours[i].num));
    int z = add_zone(v, name, at);
    if (z < 0)
        return false;
    for (int i = 0; i < ntags; i++)
        if (!tags_declare(v, TAG_ON_ZONE, name, program_string(v->p, (int)tags[i].num), at))
            return false;
    /* next to each other, both ways */
    for (int i = 0; i < nneighbours; i++) {
        int other = zone_index(v, (int)neighbours[i].num);
        if (other == z)
            return vm_error(v, at, "a zone is not next to itself");
        if (!link_zone(v, z, other, at) || !link_zone(v, other, z, at))
            return false;
    }
    return true;
}

const char *zones_like(const vm *v, int name, char *out)
{
    const combat *cb = &v->world->cb;
    suggestion near;
    suggest_init(&near, program_string(v->p, name));
    for (int z = 0; z < cb->nzones; z++)
        suggest_consider(&near, program_string(v->p, cb->zones[z].name), z);
    snprintf(out, SUGGEST_MAX + 1, "%s", near.found ? near.best : "");
    return out;
}

bool zones_place(vm *v, int c, int zone, span at)
{
    if (v->r->space.kind == SPACE_GRID)
        return vm_error(v, at, "these rules use a grid, not zones, so there is no zone '%s' (place NAME at SQUARE)",
                        program_string(v->p, zone));
    char like[SUGGEST_MAX + 1];
    if (zone_index(v, zone) < 0 && *zones_like(v, zone, like))
        return vm_error(v, at, "no zone '%s'; did you mean '%s'?", program_string(v->p, zone), like);
    if (zone_index(v, zone) < 0)
        return vm_error(v, at, "no zone '%s' (declare it: zone %s)", program_string(v->p, zone),
                        program_string(v->p, zone));
    creature *cr = &v->world->creatures[c];
    int old = cr->zone;
    if (old == zone)
        return true;
    cr->zone = zone;
    vm_play_changed(v);
    value args[3] = {value_ref(V_CREATURE, 0, c), old >= 0 ? value_ref(V_WORD, HOME_PROGRAM, old) : value_nil(),
                     value_ref(V_WORD, HOME_PROGRAM, zone)};
    if (old >= 0)
        combat_say(v, "%s moves from %s to %s", cr->name, program_string(v->p, old), program_string(v->p, zone));
    /* the relations of the zone it left end before anyone hears that it moved */
    if (old >= 0 && !groups_leave_all(v, c, true, at))
        return false;
    return events_emit(v, EV_ZONE_CHANGED, args, 3, at);
}

/* Zones between two zones, through neighbours. */
static int zones_apart(const vm *v, int za, int zb)
{
    if (za == zb)
        return 0;
    const combat *cb = &v->world->cb;
    int start = zone_index(v, za), goal = zone_index(v, zb);
    if (start < 0 || goal < 0)
        return 1000;
    /* breadth first through neighbours */
    int *steps = MEM_NEW_ARRAY(int, (size_t)cb->nzones);
    int *queue = MEM_NEW_ARRAY(int, (size_t)cb->nzones);
    int apart = 1000;
    if (steps && queue) {
        for (int i = 0; i < cb->nzones; i++)
            steps[i] = -1;
        int head = 0, tail = 0;
        steps[start] = 0;
        queue[tail++] = start;
        while (head < tail && steps[goal] < 0) {
            int z = queue[head++];
            for (int k = 0; k < cb->zones[z].nneighbours; k++) {
                int n = zone_index(v, cb->zones[z].neighbours[k]);
                if (n >= 0 && steps[n] < 0) {
                    steps[n] = steps[z] + 1;
                    queue[tail++] = n;
                }
            }
        }
        if (steps[goal] >= 0)
            apart = steps[goal];
    }
    if (steps)
        mem_free(steps, (size_t)cb->nzones * sizeof(int));
    if (queue)
        mem_free(queue, (size_t)cb->nzones * sizeof(int));
    return apart;
}

/* Are a and b related by one of the relations a range names? A pair
   counts either way round. */
static bool in_relation(vm *v, int a, int b, const r_range *rg)
{
    for (int i = 0; i < rg->nwithin_rel; i++) {
        int rel = rg->within_rel[i];
        if (v->r->relations[rel].group ? groups_related(v, rel, a, b)
                                       : effects_related(v, rel, a, b) || effects_related(v, rel, b, a))
            return true;
    }
    return false;
}

bool zones_range_between(vm *v, int a, int b, int *range, span at)
{
    *range = -1;
    const creature *ca = &v->world->creatures[a], *cbr = &v->world->creatures[b];
    const rules *r = v->r;
    int shared = 0;
    if (ca->zone >= 0 && ca->zone == cbr->zone)
        shared |= ZONE_ZONE;
    /* one not in a zone is at no distance in zones at all */
    int apart = ca->zone >= 0 && cbr->zone >= 0 ? zones_apart(v, ca->zone, cbr->zone) : 1000;
    for (int i = 0; i < r->nranges; i++) {
        const r_range *rg = &r->ranges[i];
        if (!rg->ordinal)
            continue;
        if ((rg->within & shared) || in_relation(v, a, b, rg) || (rg->apart > 0 && apart <= rg->apart)) {
            *range = i;
            return true;
        }
    }
    (void)at;
    return true;
}

int zones_between(const vm *v, int za, int zb)
{
    if (zone_index(v, za) < 0 || zone_index(v, zb) < 0)
        return -1;
    return zones_apart(v, za, zb);
}

void zones_show(vm *v)
{
    const combat *cb = &v->world->cb;
    if (cb->nzones == 0) {
        combat_print(v, "no zones yet (zone NAME)");
        return;
    }
    for (int z = 0; z < cb->nzones; z++) {
        const zone_info *zi = &cb->zones[z];
        combat_line line = {.say = false};
        combat_line_add(v, &line, "%s", program_string(v->p, zi->name));
        for (int k = 0; k < zi->nneighbours; k++)
            combat_line_add(v, &line, "%s%s", k ? ", " : " (next to ", program_string(v->p, zi->neighbours[k]));
        if (zi->nneighbours)
            combat_line_add(v, &line, ")");
        tags_show_declared(v, TAG_ON_ZONE, zi->name, &line);
        tags_show_on(v, TAG_ON_ZONE, zi->name, &line, " tags ");
        combat_line_add(v, &line, ":");
        bool first = true;
        for (size_t c = 0; c < v->world->ncreatures; c++) {
            const creature *cr = &v->world->creatures[c];
            if (!world_present(v, (int)c) || cr->zone != zi->name)
                continue;
            /* the creature and its groups */
            text_buf rels;
            text_init(&rels);
            groups_describe(v, (int)c, &rels);
            combat_line_add(v, &line, "%s %s%s%s%s", first ? "" : ",", cr->name, rels.len ? " [" : "", rels.s,
                            rels.len ? "]" : "");
            text_free(&rels);
            first = false;
        }
        combat_line_end(v, &line);
    }
}
