/* tracks: boxes and slots that hits mark (tracks.h). One mechanism: the
 * rules name one of a few absorption rules (rules.h ABSORB_RULES), and
 * everything else (marking, names, clearing by period, the transcript)
 * is the same for all of them. */
#include "runtime/combat/tracks.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/core/builtins.h"

/* --- the rules of absorbing ------------------------------------------------------- */

/* The free box of least value at least `at_least`, or of most value when
   none is that large (largest true); the first of equals; -1 when none. */
static int free_box(const int64_t *vals, const bool *marked, int n, int64_t at_least, bool largest)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (marked[i])
            continue;
        if (largest ? (best < 0 || vals[i] > vals[best]) : vals[i] >= at_least && (best < 0 || vals[i] < vals[best]))
            best = i;
    }
    return best;
}

int64_t track_rule_take(absorb_rule rule, const int64_t *vals, const bool *marked, int n, int64_t hit, int chosen,
                        int *take, int *ntake)
{
    *ntake = 0;
    if (hit <= 0)
        return 0;
    if (chosen >= 0 && (chosen >= n || marked[chosen]))
        return hit; /* the box picked cannot take it */
    int box = -1;
    switch (rule) {
    case ABSORB_WHOLE:
        box = chosen >= 0 ? (vals[chosen] >= hit ? chosen : -1) : free_box(vals, marked, n, hit, false);
        if (box < 0)
            return hit;
        take[(*ntake)++] = box;
        return 0;
    case ABSORB_PART:
        box = chosen >= 0 ? chosen : free_box(vals, marked, n, hit, false);
        if (box < 0)
            box = free_box(vals, marked, n, 0, true);
        if (box < 0)
            return hit;
        take[(*ntake)++] = box;
        return hit > vals[box] ? hit - vals[box] : 0;
    case ABSORB_LEVEL:
        if (chosen >= 0) {
            box = vals[chosen] >= hit ? chosen : -1;
        } else {
            /* its own level first, then the lowest level above with room */
            for (int i = 0; i < n && box < 0; i++)
                if (!marked[i] && vals[i] == hit)
                    box = i;
            if (box < 0)
                box = free_box(vals, marked, n, hit + 1, false);
        }
        if (box < 0)
            return hit;
        take[(*ntake)++] = box;
        return 0;
    case ABSORB_SPREAD:
        for (int i = chosen >= 0 ? chosen : 0; i < n && hit > 0; i++) {
            if (marked[i])
                continue;
            take[(*ntake)++] = i;
            hit = hit > vals[i] ? hit - vals[i] : 0;
        }
        return hit;
    default: return hit;
    }
}

/* --- a creature's boxes -------------------------------------------------------------- */

/* The values of c's boxes of track t: its `boxes`, a list or a count. */
static bool boxes_of(vm *v, int c, int t, span at, int64_t *vals, int *n)
{
    const r_track *tr = &v->r->tracks[t];
    const char *name = program_string(v->p, tr->name);
    value x = value_int(0);
    if (tr->boxes.kind == REXPR_CONST)
        x = tr->boxes.v;
    else if (tr->boxes.kind == REXPR_CHUNK && !vm_call(v, tr->boxes.chunk, c, NULL, 0, &x))
        return false;
    *n = 0;
    if (x.type == V_ROLL || x.type == V_INT) {
        if (x.num < 0 || x.num > TRACK_MAX_BOXES)
            return vm_error(v, at, "track %s has 0 to %d boxes, not %lld", name, TRACK_MAX_BOXES, (long long)x.num);
        for (int i = 0; i < (int)x.num; i++)
            vals[(*n)++] = 1;
        return true;
    }
    if (x.type != V_LIST)
        return vm_error(v, at, "track %s's boxes are a list of values or a count, not %s", name,
                        value_type_name(x.type));
    size_t len;
    const value *items = vm_list_items(v, x, &len);
    if (len > TRACK_MAX_BOXES)
        return vm_error(v, at, "track %s has at most %d boxes, not %zu", name, TRACK_MAX_BOXES, len);
    for (size_t i = 0; i < len; i++) {
        value b = items[i];
        if ((b.type != V_INT && b.type != V_ROLL) || b.num < 1)
            return vm_error(v, at, "a box of track %s is worth a whole number of at least 1, not %s", name,
                            value_type_name(b.type));
        vals[(*n)++] = b.num;
    }
    return true;
}

static int find_mark(const creature *cr, int t, int box)
{
    for (size_t i = 0; i < cr->nmarks; i++)
        if (cr->marks[i].track == t && cr->marks[i].box == box)
            return (int)i;
    return -1;
}

bool track_boxes(vm *v, int c, int t, span at, int64_t *vals, int *n)
{
    return boxes_of(v, c, t, at, vals, n);
}

bool track_box_marked(const vm *v, int c, int t, int box, value *name)
{
    int m = find_mark(&v->world->creatures[c], t, box);
    *name = m >= 0 ? v->world->creatures[c].marks[m].name : value_nil();
    return m >= 0;
}

static void marked_boxes(const creature *cr, int t, int n, bool *marked)
{
    for (int i = 0; i < n; i++)
        marked[i] = false;
    for (size_t i = 0; i < cr->nmarks; i++)
        if (cr->marks[i].track == t && cr->marks[i].box < n)
            marked[cr->marks[i].box] = true;
}

static bool all_ones(const int64_t *vals, int n)
{
    for (int i = 0; i < n; i++)
        if (vals[i] != 1)
            return false;
    return true;
}

/* "[x][ ]" or "[2 \"bruised ribs\"][4][6]", from boxes already worked out. */
static void track_text(vm *v, int c, int t, const int64_t *vals, int n, text_buf *out)
{
    const creature *cr = &v->world->creatures[c];
    bool ones = all_ones(vals, n);
    for (int i = 0; i < n; i++) {
        int m = find_mark(cr, t, i);
        text_put(out, "[");
        if (!ones)
            text_add(out, "%lld", (long long)vals[i]);
        if (m >= 0 && cr->marks[m].name.type != V_NIL) {
            text_put(out, ones ? "x " : " ");
            if (cr->marks[m].name.type == V_STR)
                text_put(out, "\"");
            vm_format_text(v, cr->marks[m].name, out);
            if (cr->marks[m].name.type == V_STR)
                text_put(out, "\"");
        } else if (m >= 0) {
            text_put(out, "x");
        } else if (ones) {
            text_put(out, " ");
        }
        text_put(out, "]");
    }
}

/* "kyra marks stress: [x][ ]" */
static bool say_track(vm *v, int c, int t, const char *verb, span at)
{
    int64_t vals[TRACK_MAX_BOXES];
    int n;
    if (!boxes_of(v, c, t, at, vals, &n))
        return false;
    text_buf line;
    text_init(&line);
    text_add(&line, "%s %s %s: ", world_name(v, c), verb, program_string(v->p, v->r->tracks[t].name));
    track_text(v, c, t, vals, n, &line);
    combat_say_line(v, line.s);
    text_free(&line);
    return true;
}

void tracks_show(vm *v, int c, text_buf *out)
{
    for (int t = 0; t < v->r->ntracks; t++) {
        int64_t vals[TRACK_MAX_BOXES];
        int n;
        text_add(out, " %s ", program_string(v->p, v->r->tracks[t].name));
        /* read as a display reads (play.c stat_text): a formula that
           fails is shown as "?", its error cleared */
        bool peeking = v->peek_depth == 0;
        bool began = peeking && vm_peek_begin(v, (span){0});
        bool ok = (!peeking || began) && boxes_of(v, c, t, v->r->tracks[t].from.where, vals, &n);
        if (began)
            vm_peek_end(v);
        if (ok) {
            track_text(v, c, t, vals, n, out);
        } else {
            vm_clear_error(v);
            text_put(out, "?");
        }
    }
}

/* --- marking and clearing ------------------------------------------------------------ */

static bool add_mark(vm *v, int c, int t, int box, value name, span at)
{
    creature *cr = &v->world->creatures[c];
    track_mark *g = mem_grow(cr->marks, sizeof(track_mark), &cr->marks_cap, cr->nmarks + 1);
    if (!g)
        return vm_error(v, at, "out of memory");
    cr->marks = g;
    cr->marks[cr->nmarks++] = (track_mark){.track = t, .box = box, .name = name};
    vm_play_changed(v);
    return true;
}

/* Marks the boxes, then says so and tells whoever listens. */
static bool mark_boxes(vm *v, int c, int t, const int *take, int ntake, const int64_t *vals, value name, span at)
{
    if (ntake == 0)
        return true;
    value kept = value_nil();
    if (name.type != V_NIL && !vm_keep(v, name, at, &kept))
        return false;
    if (!encounter_out_before(v, c, at))
        return false;
    for (int i = 0; i < ntake; i++)
        if (!add_mark(v, c, t, take[i], kept, at))
            return false;
    if (!say_track(v, c, t, "marks", at))
        return false;
    for (int i = 0; i < ntake; i++) {
        value args[4] = {value_ref(V_CREATURE, 0, c), value_ref(V_WORD, HOME_PROGRAM, v->r->tracks[t].name),
                         value_int(vals[take[i]]), kept};
        if (!events_emit(v, EV_MARKED, args, 4, at))
            return false;
    }
    return encounter_out_after(v, c, at);
}

static bool check_name(vm *v, int t, value name, span at)
{
    if (name.type == V_NIL)
        return true;
    const char *tn = program_string(v->p, v->r->tracks[t].name);
    if (!v->r->tracks[t].named)
        return vm_error(v, at, "track %s's boxes carry no names (declare it 'named' to give them one)", tn);
    if (name.type != V_STR && name.type != V_WORD)
        return vm_error(v, at, "a box of track %s is named by a string, not %s", tn, value_type_name(name.type));
    return true;
}

bool track_absorb(vm *v, int c, int t, int64_t hit, value name, int chosen, span at, int64_t *left)
{
    int64_t vals[TRACK_MAX_BOXES];
    bool marked[TRACK_MAX_BOXES];
    int take[TRACK_MAX_BOXES];
    int n, ntake;
    if (!check_name(v, t, name, at) || !boxes_of(v, c, t, at, vals, &n))
        return false;
    if (chosen >= n)
        return vm_error(v, at, "track %s has %d box%s; there is no box %d", program_string(v->p, v->r->tracks[t].name),
                        n, n == 1 ? "" : "es", chosen + 1);
    marked_boxes(&v->world->creatures[c], t, n, marked);
    *left = track_rule_take(v->r->tracks[t].absorb, vals, marked, n, hit, chosen, take, &ntake);
    return mark_boxes(v, c, t, take, ntake, vals, name, at);
}

bool track_mark_box(vm *v, int c, int t, int box, value name, span at, bool *done)
{
    int64_t vals[TRACK_MAX_BOXES];
    bool marked[TRACK_MAX_BOXES];
    int n;
    *done = false;
    if (!check_name(v, t, name, at) || !boxes_of(v, c, t, at, vals, &n))
        return false;
    if (box < 0 || box >= n)
        return vm_error(v, at, "track %s has %d box%s; there is no box %d", program_string(v->p, v->r->tracks[t].name),
                        n, n == 1 ? "" : "es", box + 1);
    marked_boxes(&v->world->creatures[c], t, n, marked);
    if (marked[box])
        return true;
    *done = true;
    return mark_boxes(v, c, t, &box, 1, vals, name, at);
}

/* Drops the marks of track t (box, or any box when -1) that keep() refuses. */
static int drop_marks(creature *cr, int t, int box, const r_track *tr, period per)
{
    int dropped = 0;
    size_t w = 0;
    for (size_t i = 0; i < cr->nmarks; i++) {
        const track_mark *m = &cr->marks[i];
        bool drop = m->track == t && (box < 0 || m->box == box);
        if (drop && per != PER_NONE)
            drop = tr->nclear > 0 && tr->clear[m->box < tr->nclear ? m->box : tr->nclear - 1] == per;
        if (drop)
            dropped++;
        else
            cr->marks[w++] = *m;
    }
    cr->nmarks = w;
    return dropped;
}

bool track_clear(vm *v, int c, int t, int box, span at, int *cleared)
{
    if (!encounter_out_before(v, c, at))
        return false;
    *cleared = drop_marks(&v->world->creatures[c], t, box, &v->r->tracks[t], PER_NONE);
    if (*cleared)
        vm_play_changed(v);
    if (*cleared && !say_track(v, c, t, "clears", at))
        return false;
    return encounter_out_after(v, c, at);
}

bool track_command(vm *v, bool mark, int c, int t, int box, value name, span at)
{
    const char *tn = program_string(v->p, v->r->tracks[t].name);
    if (!mark) {
        int cleared;
        if (!track_clear(v, c, t, box, at, &cleared))
            return false;
        if (!cleared)
            combat_say(v, "%s's %s has no marked box%s to clear", world_name(v, c), tn, box < 0 ? "" : " there");
        return true;
    }
    if (box < 0) { /* the first free box */
        int64_t vals[TRACK_MAX_BOXES];
        bool marked[TRACK_MAX_BOXES];
        int n;
        if (!boxes_of(v, c, t, at, vals, &n))
            return false;
        marked_boxes(&v->world->creatures[c], t, n, marked);
        for (int i = n; i-- > 0;)
            if (!marked[i])
                box = i;
        if (box < 0) {
            combat_say(v, "%s's %s has no free box", world_name(v, c), tn);
            return true;
        }
    }
    bool done;
    if (!track_mark_box(v, c, t, box, name, at, &done))
        return false;
    if (!done)
        combat_say(v, "%s's %s box %d is marked already", world_name(v, c), tn, box + 1);
    return true;
}

bool tracks_refresh(vm *v, period per, int only, span at)
{
    if (v->r->ntracks == 0) /* each refresh of every resource comes here */
        return true;
    size_t lo = only >= 0 ? (size_t)only : 0, hi = only >= 0 ? (size_t)only + 1 : v->world->ncreatures;
    for (size_t c = lo; c < hi; c++) {
        if (v->world->creatures[c].gone || v->world->creatures[c].nmarks == 0)
            continue;
        for (int t = 0; t < v->r->ntracks; t++) {
            if (!encounter_out_before(v, (int)c, at))
                return false;
            bool dropped = drop_marks(&v->world->creatures[c], t, -1, &v->r->tracks[t], per);
            if (dropped)
                vm_play_changed(v);
            if (dropped && !say_track(v, (int)c, t, "clears", at))
                return false;
            if (!encounter_out_after(v, (int)c, at))
                return false;
        }
    }
    return true;
}

/* --- the builtins ------------------------------------------------------------------------ */

static const char *const builtin_names[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) #name,
#include "runtime/core/builtins.def"
#undef BUILTIN
};

/* The creature and the track a builtin of tracks is given first. */
static bool creature_track(vm *v, int id, const value *args, int *c, int *t, span at)
{
    if (args[0].type != V_CREATURE)
        return vm_error(v, at, "%s() needs a creature as argument 1, not %s", builtin_names[id],
                        value_type_name(args[0].type));
    if (args[1].type != V_WORD)
        return vm_error(v, at, "%s() needs a track as argument 2, not %s", builtin_names[id],
                        value_type_name(args[1].type));
    *c = (int)args[0].num;
    *t = rules_track(v->r, (int)args[1].num);
    if (*t < 0)
        return vm_error(v, at, "no track '%s'", program_string(v->p, (int)args[1].num));
    return true;
}

static bool whole_arg(vm *v, int id, value x, int i, int64_t *out, span at)
{
    if (x.type != V_INT && x.type != V_ROLL)
        return vm_error(v, at, "%s() needs a whole number as argument %d, not %s", builtin_names[id], i + 1,
                        value_type_name(x.type));
    *out = x.num;
    return true;
}

bool builtin_absorb(vm *v, int id, value *args, int argc, span at, value *out)
{
    int c, t;
    int64_t hit = 0, box = 0, left = 0;
    if (!creature_track(v, id, args, &c, &t, at) || !whole_arg(v, id, args[2], 2, &hit, at))
        return false;
    if (argc > 4 && args[4].type != V_NIL && !whole_arg(v, id, args[4], 4, &box, at))
        return false;
    if (argc > 4 && args[4].type != V_NIL && box < 1)
        return vm_error(v, at, "absorb() counts boxes from 1, not %lld", (long long)box);
    if (!track_absorb(v, c, t, hit, argc > 3 ? args[3] : value_nil(), (int)box - 1, at, &left))
        return false;
    *out = value_int(left);
    return true;
}

/* marks(c, track): the values of the marked boxes; mark_names(c, track):
   the names they carry (nothing where none), in the boxes' order. */
bool builtin_marks(vm *v, int id, value *args, int argc, span at, value *out)
{
    (void)argc;
    int c, t, n;
    int64_t vals[TRACK_MAX_BOXES];
    if (!creature_track(v, id, args, &c, &t, at) || !boxes_of(v, c, t, at, vals, &n))
        return false;
    vm_gather g = {0};
    const creature *cr = &v->world->creatures[c];
    for (int i = 0; i < n; i++) {
        int m = find_mark(cr, t, i);
        if (m >= 0 && !vm_gather_add(v, &g, id == BI_marks ? value_int(vals[i]) : cr->marks[m].name, at)) {
            vm_gather_drop(&g);
            return false;
        }
    }
    return vm_gather_list(v, &g, at, out);
}

bool builtin_unmarked(vm *v, int id, value *args, int argc, span at, value *out)
{
    (void)argc;
    int c, t, n;
    int64_t vals[TRACK_MAX_BOXES];
    bool marked[TRACK_MAX_BOXES];
    if (!creature_track(v, id, args, &c, &t, at) || !boxes_of(v, c, t, at, vals, &n))
        return false;
    marked_boxes(&v->world->creatures[c], t, n, marked);
    int free = 0;
    for (int i = 0; i < n; i++)
        free += !marked[i];
    *out = value_int(free);
    return true;
}

bool builtin_clear(vm *v, int id, value *args, int argc, span at, value *out)
{
    int c, t, cleared;
    int64_t box = 0;
    if (!creature_track(v, id, args, &c, &t, at))
        return false;
    if (argc > 2 && !whole_arg(v, id, args[2], 2, &box, at))
        return false;
    if (argc > 2 && box < 1)
        return vm_error(v, at, "clear() counts boxes from 1, not %lld", (long long)box);
    if (!track_clear(v, c, t, argc > 2 ? (int)box - 1 : -1, at, &cleared))
        return false;
    *out = value_int(cleared);
    return true;
}
