/* zones: a battlefield without a grid. Creatures are in zones (named,
 * with neighbours); allies may group up and enemies engage. The range
 * between two creatures follows from what they share: the rules' ordinal
 * ranges say which bonds put creatures at which range (`range short {
 * within engagement, group }`, `range long { apart 1 zone }`), tried in
 * the order they were declared. Group defense protects a share of a
 * group's members, some counting less than one. */
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
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

bool zones_place(vm *v, int c, int zone, span at)
{
    if (v->r->space.kind == SPACE_GRID)
        return vm_error(v, at, "these rules use a grid, not zones, so there is no zone '%s' (place NAME at SQUARE)",
                        program_string(v->p, zone));
    if (zone_index(v, zone) < 0)
        return vm_error(v, at, "no zone '%s' (declare it: zone %s)", program_string(v->p, zone),
                        program_string(v->p, zone));
    creature *cr = &v->world->creatures[c];
    int old = cr->zone;
    if (old == zone)
        return true;
    cr->zone = zone;
    if (old >= 0) {
        /* leaving a zone leaves its group and engagement */
        cr->group = -1;
        cr->engagement = -1;
        cr->defended = false;
    }
    value args[3] = {value_ref(V_CREATURE, 0, c), old >= 0 ? value_ref(V_WORD, HOME_PROGRAM, old) : value_nil(),
                     value_ref(V_WORD, HOME_PROGRAM, zone)};
    if (old >= 0)
        combat_say(v, "%s moves from %s to %s", cr->name, program_string(v->p, old), program_string(v->p, zone));
    /* the relations of the zone it left end before anyone hears that it moved */
    if (old >= 0 && !groups_leave_all(v, c, true, at))
        return false;
    return events_emit(v, EV_ZONE_CHANGED, args, 3, at);
}

static int count_group(const vm *v, int group, int zone)
{
    int n = 0;
    for (size_t c = 0; c < v->world->ncreatures; c++)
        n += world_present(v, (int)c) && v->world->creatures[c].group == group && v->world->creatures[c].zone == zone;
    return n;
}

bool zones_join(vm *v, int c, int group, span at)
{
    creature *cr = &v->world->creatures[c];
    if (cr->zone < 0)
        return vm_error(v, at, "%s is in no zone (place %s in ZONE)", cr->name, cr->name);
    int max = v->r->space.group_max;
    if (max > 0 && cr->group != group && count_group(v, group, cr->zone) >= max) {
        text_buf cite;
        text_init(&cite);
        combat_say(v, "%s cannot join %s: a group holds at most %d (%s)", cr->name, program_string(v->p, group), max,
                   combat_cite(v, &v->r->space.from, &cite));
        text_free(&cite);
        return true;
    }
    cr->group = group;
    return true;
}

bool zones_separate(vm *v, int c, span at)
{
    (void)at;
    v->world->creatures[c].group = -1;
    v->world->creatures[c].defended = false;
    return true;
}

bool zones_engage(vm *v, int a, int b, span at)
{
    combat *cb = &v->world->cb;
    creature *ca = &v->world->creatures[a], *cbr = &v->world->creatures[b];
    if (ca->zone != cbr->zone)
        return vm_error(v, at, "%s and %s are in different zones", ca->name, cbr->name);
    int e = cbr->engagement >= 0 ? cbr->engagement : ca->engagement;
    if (e < 0)
        e = ++cb->next_engagement;
    int old_a = ca->engagement, old_b = cbr->engagement;
    int max = v->r->space.engagement_max, size = 0;
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        int ce = v->world->creatures[c].engagement;
        size += world_present(v, (int)c) && (ce == e || (ce >= 0 && (ce == old_a || ce == old_b)));
    }
    size += old_a < 0;
    size += old_b < 0 && b != a;
    if (max > 0 && size > max) {
        text_buf cite;
        text_init(&cite);
        combat_say(v, "%s cannot engage %s: an engagement holds at most %d (%s)", ca->name, cbr->name, max,
                   combat_cite(v, &v->r->space.from, &cite));
        text_free(&cite);
        return true;
    }
    /* the two engagements merge */
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        int ce = v->world->creatures[c].engagement;
        if (ce >= 0 && (ce == old_a || ce == old_b))
            v->world->creatures[c].engagement = e;
    }
    ca->engagement = cbr->engagement = e;
    return true;
}

bool zones_disengage(vm *v, int c, span at)
{
    (void)at;
    v->world->creatures[c].engagement = -1;
    return true;
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
    if (ca->engagement >= 0 && ca->engagement == cbr->engagement)
        shared |= ZONE_ENGAGEMENT;
    if (ca->group >= 0 && ca->group == cbr->group && ca->zone == cbr->zone)
        shared |= ZONE_GROUP;
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

/* Group defense: the members protected weigh at most share/(1 - share)
   of those protecting them (a third of the group: one per two). */
bool zones_defend(vm *v, int c, bool *ok, span at)
{
    creature *cr = &v->world->creatures[c];
    *ok = false;
    const r_space *sp = &v->r->space;
    if (cr->group < 0) {
        combat_say(v, "%s is in no group to defend it", cr->name);
        return true;
    }
    if (cr->defended) {
        *ok = true;
        return true;
    }
    value protected_w = value_int(0);
    int protecting = 0;
    for (size_t k = 0; k < v->world->ncreatures; k++) {
        const creature *m = &v->world->creatures[k];
        if (!world_present(v, (int)k) || m->group != cr->group || m->zone != cr->zone)
            continue;
        bool counts_less = false;
        if (rexpr_present(&sp->incapacitated)) {
            value x;
            if (sp->incapacitated.kind == REXPR_CONST)
                x = sp->incapacitated.v;
            else if (!vm_call(v, sp->incapacitated.chunk, (int)k, NULL, 0, &x))
                return false;
            counts_less = value_truthy(x);
        }
        value w = counts_less ? sp->incapacitated_weight : value_int(1);
        if (m->defended || (int)k == c) {
            if (rat_add(protected_w, value_as_frac(w), V_FRAC, &protected_w, 1) != ARITH_OK)
                return vm_error(v, at, "group defense overflows");
        } else {
            protecting++;
        }
    }
    /* protected <= share / (1 - share) * protecting */
    value share = value_as_frac(sp->defense_share), rest, ratio, allowed;
    if (rexpr_present(&sp->defense_share_rule)) {
        if (!vm_call(v, sp->defense_share_rule.chunk, c, NULL, 0, &share))
            return false;
        if (share.type != V_INT && share.type != V_FRAC)
            return vm_error(v, at, "group defense: its share is %s, not a number", value_type_name(share.type));
        share = value_as_frac(share);
        sp = &v->r->space;
        cr = &v->world->creatures[c];
    }
    if (rat_add(value_int(1), share, V_FRAC, &rest, -1) != ARITH_OK || rat_cmp(rest, value_int(0)) <= 0 ||
        rat_div(share, rest, V_FRAC, &ratio) != ARITH_OK ||
        rat_mul(ratio, value_int(protecting), V_FRAC, &allowed) != ARITH_OK)
        return vm_error(v, at, "group defense: its share must be below 1");
    if (rat_cmp(protected_w, allowed) > 0) {
        value all;
        if (rat_add(protected_w, value_int(protecting), V_FRAC, &all, 1) != ARITH_OK)
            return vm_error(v, at, "group defense overflows");
        text_buf line;
        text_init(&line);
        text_add(&line, "group %s cannot protect %s too: at most ", program_string(v->p, cr->group), cr->name);
        vm_format_text(v, share, &line);
        text_put(&line, " of a group may be protected, and that would be ");
        vm_format_text(v, protected_w, &line);
        text_put(&line, " of ");
        vm_format_text(v, all, &line);
        text_buf cite;
        text_init(&cite);
        combat_say(v, "%s (%s)", line.s, combat_cite(v, &sp->from, &cite));
        text_free(&cite);
        text_free(&line);
        return true;
    }
    cr->defended = true;
    combat_say(v, "%s is protected by group defense", cr->name);
    *ok = true;
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
            /* the creature, its group, whether the group defends it, its engagement */
            text_buf about;
            text_init(&about);
            const char *sep = " [";
            if (cr->group >= 0) {
                text_add(&about, "%sgroup %s%s", sep, program_string(v->p, cr->group),
                         cr->defended ? ", defended" : "");
                sep = ", ";
            }
            if (cr->engagement >= 0) {
                text_add(&about, "%sengagement %d", sep, cr->engagement);
                sep = ", ";
            }
            text_buf rels;
            text_init(&rels);
            groups_describe(v, (int)c, &rels);
            if (rels.len) {
                text_add(&about, "%s%s", sep, rels.s);
                sep = ", ";
            }
            text_free(&rels);
            if (sep[0] == ',')
                text_put(&about, "]");
            combat_line_add(v, &line, "%s %s%s", first ? "" : ",", cr->name, about.s);
            text_free(&about);
            first = false;
        }
        combat_line_end(v, &line);
    }
}
