/* groups: relations held by a whole group (`relation R(a, b) { group }`),
 * as parties, engagements, formations or squads are. A creature is in at
 * most one group of each such relation; every two members are related.
 * A group is a number shared by its members, kept in one list of
 * (relation, creature, group): groups are small, and a scan is cheap
 * beside the cost of keeping an index in step through clones and undo.
 * A group left with one member is no group: that member leaves it too. */
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

static int member_at(const vm *v, int rel, int c)
{
    const combat *cb = &v->world->cb;
    for (int i = 0; i < cb->nmembers; i++)
        if (cb->members[i].rel == rel && cb->members[i].creature == c)
            return i;
    return -1;
}

int groups_of(const vm *v, int rel, int c)
{
    int i = member_at(v, rel, c);
    return i < 0 ? -1 : v->world->cb.members[i].group;
}

bool groups_related(const vm *v, int rel, int a, int b)
{
    int g = groups_of(v, rel, a);
    return a != b && g >= 0 && g == groups_of(v, rel, b);
}

/* Members of group g of rel present in play. */
static int group_size(const vm *v, int rel, int g)
{
    const combat *cb = &v->world->cb;
    int n = 0;
    for (int i = 0; i < cb->nmembers; i++)
        n += cb->members[i].rel == rel && cb->members[i].group == g && world_present(v, cb->members[i].creature);
    return n;
}

static bool add_member(vm *v, int rel, int c, int g, span at)
{
    combat *cb = &v->world->cb;
    size_t cap = (size_t)cb->members_cap;
    group_member *grown = mem_grow(cb->members, sizeof(group_member), &cap, (size_t)cb->nmembers + 1);
    if (!grown)
        return vm_error(v, at, "out of memory");
    cb->members = grown;
    cb->members_cap = (int)cap;
    cb->members[cb->nmembers++] = (group_member){.rel = rel, .creature = c, .group = g};
    vm_play_changed(v);
    return true;
}

static void drop_member(vm *v, int i)
{
    combat *cb = &v->world->cb;
    memmove(&cb->members[i], &cb->members[i + 1], (size_t)(cb->nmembers - i - 1) * sizeof(group_member));
    cb->nmembers--;
    vm_play_changed(v);
}

/* Emits related or unrelated (rel, c, m) for every other member m of group g. */
static bool emit_each(vm *v, int ev, int rel, int c, int g, span at)
{
    for (size_t m = 0; m < v->world->ncreatures; m++) {
        if ((int)m == c || groups_of(v, rel, (int)m) != g)
            continue;
        value args[3] = {value_ref(V_WORD, HOME_PROGRAM, v->r->relations[rel].name), value_ref(V_CREATURE, 0, c),
                         value_ref(V_CREATURE, 0, (int64_t)m)};
        if (!events_emit(v, ev, args, 3, at))
            return false;
    }
    return true;
}

static bool groups_leave(vm *v, int rel, int c, span at, bool *done)
{
    int i = member_at(v, rel, c);
    *done = i >= 0;
    if (i < 0)
        return true;
    int g = v->world->cb.members[i].group;
    drop_member(v, i);
    /* the one left alone is in no group */
    int last = -1, n = 0;
    for (int k = 0; k < v->world->cb.nmembers; k++)
        if (v->world->cb.members[k].rel == rel && v->world->cb.members[k].group == g) {
            last = k;
            n++;
        }
    int alone = n == 1 ? v->world->cb.members[last].creature : -1;
    if (n == 1)
        drop_member(v, last);
    if (alone < 0)
        return emit_each(v, EV_UNRELATED, rel, c, g, at);
    value args[3] = {value_ref(V_WORD, HOME_PROGRAM, v->r->relations[rel].name), value_ref(V_CREATURE, 0, c),
                     value_ref(V_CREATURE, 0, alone)};
    return events_emit(v, EV_UNRELATED, args, 3, at);
}

/* A refusal: said, citing the relation, and answered false. */
static void refuse(vm *v, const r_relation *rr, const char *what)
{
    text_buf cite;
    text_init(&cite);
    combat_say(v, "%s (%s)", what, combat_cite(v, &rr->from, &cite));
    text_free(&cite);
}

bool groups_relate(vm *v, int rel, int a, int b, span at, bool *done)
{
    const r_relation *rr = &v->r->relations[rel];
    const char *name = program_string(v->p, rr->name);
    const creature *ca = &v->world->creatures[a], *cb = &v->world->creatures[b];
    *done = false;
    if (a == b)
        return vm_error(v, at, "%s relates two different creatures", name);
    if (groups_related(v, rel, a, b)) {
        *done = true;
        return true;
    }
    text_buf why;
    text_init(&why);
    if (rr->within_zone && ca->zone != cb->zone) {
        text_add(&why, "%s cannot join %s's %s: they are in different zones", ca->name, cb->name, name);
        refuse(v, rr, why.s);
        text_free(&why);
        return true;
    }
    int g = groups_of(v, rel, b);
    int size = g >= 0 ? group_size(v, rel, g) : world_present(v, b);
    if (rr->group_max > 0 && size + 1 > rr->group_max) {
        text_add(&why, "%s cannot join %s's %s: a group holds at most %d", ca->name, cb->name, name, rr->group_max);
        refuse(v, rr, why.s);
        text_free(&why);
        return true;
    }
    text_free(&why);
    bool left;
    if (!groups_leave(v, rel, a, at, &left))
        return false;
    g = groups_of(v, rel, b); /* b may have been left alone */
    if (g < 0) {
        g = ++v->world->cb.next_group;
        if (!add_member(v, rel, b, g, at))
            return false;
    }
    if (!add_member(v, rel, a, g, at))
        return false;
    *done = true;
    return emit_each(v, EV_RELATED, rel, a, g, at);
}

bool groups_unrelate(vm *v, int rel, int a, int b, span at, bool *done)
{
    *done = false;
    if (b >= 0 && !groups_related(v, rel, a, b))
        return true;
    return groups_leave(v, rel, a, at, done);
}

bool groups_members(vm *v, int rel, int c, value *out, span at)
{
    vm_gather gl = {0};
    int g = groups_of(v, rel, c);
    for (size_t m = 0; g >= 0 && m < v->world->ncreatures; m++)
        if ((int)m != c && groups_of(v, rel, (int)m) == g &&
            !vm_gather_add(v, &gl, value_ref(V_CREATURE, 0, (int64_t)m), at)) {
            vm_gather_drop(&gl);
            return false;
        }
    return vm_gather_list(v, &gl, at, out);
}

bool groups_leave_all(vm *v, int c, bool zone_only, span at)
{
    for (int rel = 0; rel < v->r->nrelations; rel++) {
        const r_relation *rr = &v->r->relations[rel];
        if (zone_only ? !rr->within_zone : !rr->group)
            continue; /* a creature leaving play ends its pairs elsewhere (effects_clear) */
        bool done;
        if (rr->group ? !groups_leave(v, rel, c, at, &done)
                      : !effects_unrelate_all(v, rel, c, "moved to another zone", at, &done))
            return false;
    }
    return true;
}

void groups_describe(vm *v, int c, text_buf *out)
{
    const char *sep = "";
    for (int rel = 0; rel < v->r->nrelations; rel++) {
        int g = v->r->relations[rel].group ? groups_of(v, rel, c) : -1;
        if (g < 0)
            continue;
        text_add(out, "%s%s with", sep, program_string(v->p, v->r->relations[rel].name));
        const char *comma = " ";
        for (size_t m = 0; m < v->world->ncreatures; m++)
            if ((int)m != c && groups_of(v, rel, (int)m) == g) {
                text_add(out, "%s%s", comma, v->world->creatures[m].name);
                comma = ", ";
            }
        sep = "; ";
    }
}
