/* play: the play commands. The compiler has checked each command's words
 * and pushed its arguments into the slots commands.def lays out for its
 * family (lang/compile_cmd.c); here each family's run_ function reads them
 * by slot against the state of play. `show` prints the tracker, the order,
 * a creature, the map or the log. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/core/commands.h"
#include "runtime/base/mem.h"
#include "runtime/combat/tracks.h"
#include "runtime/combat/world.h"

static bool is_word(const vm *v, value x, const char *w)
{
    return x.type == V_WORD && strcmp(program_string(v->p, (int)x.num), w) == 0;
}

static int creature_arg(vm *v, value x, span at)
{
    if (x.type != V_CREATURE) {
        vm_error(v, at, "expected a creature, not %s", value_type_name(x.type));
        return -1;
    }
    return (int)x.num;
}

/* --- creatures ---------------------------------------------------------------- */

bool world_spawn(vm *v, int t, span at)
{
    const r_creature *tp = &v->r->creatures[t];
    const char *base = program_string(v->p, tp->name);
    int count = tp->count > 0 ? tp->count : 1;
    for (int k = 1; k <= count; k++) {
        text_buf name;
        text_init(&name);
        if (count > 1)
            text_add(&name, "%s_%d", base, k);
        else
            text_put(&name, base);
        int c = name.cut ? vm_error(v, at, "out of memory"), -1 : world_add_creature(v, name.s, t, at);
        text_free(&name);
        if (c < 0)
            return false;
        tp = &v->r->creatures[t];
        creature *cr = &v->world->creatures[c];
        cr->display = tp->display;
        cr->side = tp->side;
        cr->tactic = tp->tactic;
        cr->forfeit_next_to = -1;
        hidden_spawn(v, c, tp->hidden); /* before anything is said of it */
        for (int i = 0; i < tp->nsettings; i++) {
            value x;
            const r_setting *s = &v->r->creatures[t].settings[i];
            if (s->value.kind == REXPR_CONST)
                x = s->value.v;
            else if (!vm_call(v, s->value.chunk, c, NULL, 0, &x))
                return false;
            if (!world_set_stat(v, c, s->stat, x, at))
                return false;
            tp = &v->r->creatures[t];
        }
        if (!tally_spawned(v, c, program_string(v->p, tp->name), at))
            return false;
        combat *cb = &v->world->cb;
        if (cb->active) {
            /* it joins the fight, acting last */
            v->world->creatures[c].in_play = true;
            vm_play_changed(v);
            v->world->creatures[c].out_known = false;
            if (cb->ordered) {
                entry *g = NULL;
                size_t cap = (size_t)cb->order_cap;
                g = mem_grow(cb->order, sizeof(entry), &cap, (size_t)cb->norder + 1);
                if (!g)
                    return vm_error(v, at, "out of memory");
                cb->order = g;
                cb->order_cap = (int)cap;
                int64_t key = cb->norder ? cb->order[cb->norder - 1].key + ((int64_t)1 << 32) : 0;
                cb->order[cb->norder++] = (entry){.creature = c,
                                                  .side = v->world->creatures[c].side,
                                                  .key = key,
                                                  .score = value_nil(),
                                                  .check = value_nil(),
                                                  .unrolled = true};
                combat_say(v,
                           "%s joins the fight, last in the order (to place it by initiative: roll initiative %s "
                           "[ROLLED])",
                           v->world->creatures[c].name, v->world->creatures[c].name);
            }
        }
    }
    return true;
}

/* --- show ----------------------------------------------------------------------- */

/* Where a stat is kept from the players, the GM sees it marked. */
#define HIDDEN_STAT_MARK "(gm)"

/* A stat as the tracker shows it, read as a display reads (vm_peek_begin):
   a derived stat whose formula reads a ruling asks no one; one that cannot
   be read so (it would roll, or meets an error) is shown as "?". It never
   fails: what it met is cleared, and the text says it. */
static size_t stat_text(vm *v, int c, int decl_index, char *buf, size_t cap)
{
    bool peeking = v->peek_depth == 0;
    value x, max = value_nil();
    const r_resource *res = rules_resource_of(v->r, v->world->decl_info[decl_index].latest);
    bool has_max = res && rexpr_present(&res->max);
    bool began = peeking && vm_peek_begin(v, (span){0});
    bool ok = !peeking || began;
    if (ok)
        ok = world_get_stat(v, c, decl_index, &x);
    if (ok && has_max)
        ok = res->max.kind == REXPR_CONST ? (max = res->max.v, true) : vm_call(v, res->max.chunk, c, NULL, 0, &max);
    if (began)
        vm_peek_end(v);
    if (!ok) {
        vm_clear_error(v);
        return (size_t)snprintf(buf, cap, "?");
    }
    size_t len = vm_format(v, x, buf, cap);
    if (has_max && len < cap) {
        len += (size_t)snprintf(buf + len, cap - len, "/");
        len += vm_format(v, max, buf + len, cap - len < cap ? cap - len : 0);
    }
    if (hidden_stat(v, c, decl_index) && len < cap)
        len += (size_t)snprintf(buf + len, cap - len, HIDDEN_STAT_MARK);
    return len;
}

size_t play_stat_text(vm *v, int c, int decl_index, char *buf, size_t cap)
{
    return stat_text(v, c, decl_index, buf, cap);
}

char *play_stat_text_whole(vm *v, int c, int decl_index)
{
    for (size_t cap = 64;; cap *= 2) {
        char *buf = mem_alloc(cap);
        if (!buf)
            return NULL;
        size_t len = stat_text(v, c, decl_index, buf, cap);
        if (len < cap) {
            char *text = mem_strndup(buf, len);
            mem_free(buf, cap);
            return text;
        }
        mem_free(buf, cap);
        if (cap > SIZE_MAX / 4)
            return NULL;
    }
}

/* Each track of the rules, after the stats; whether there were any. */
static bool show_tracks(vm *v, int c, combat_line *line)
{
    if (v->r->ntracks == 0)
        return false;
    text_buf t;
    text_init(&t);
    tracks_show(v, c, &t);
    combat_line_add(v, line, "%s", t.s);
    text_free(&t);
    return true;
}

static bool show_creature(vm *v, int c)
{
    const creature *cr = &v->world->creatures[c];
    combat_line line = {.say = false};
    combat_line_add(v, &line, "%s", cr->name);
    if (cr->side >= 0)
        combat_line_add(v, &line, " (%s)", program_string(v->p, v->r->sides[cr->side]));
    combat_line_add(v, &line, ":");
    bool bare = true; /* nothing said after the name yet */
    for (size_t i = 0; i < v->p->ndecls; i++) {
        if (!world_stat_shown(v, c, (int)i))
            continue;
        const decl *d = &v->p->decls[i];
        char *val = play_stat_text_whole(v, c, (int)i);
        combat_line_add(v, &line, " %s %s", program_string(v->p, d->name), val ? val : "?");
        mem_strfree(val);
        bare = false;
    }
    if (show_tracks(v, c, &line))
        bare = false;
    if (cr->placed) {
        char sq[32];
        square_format(cr->x, cr->y, sq, sizeof sq);
        combat_line_add(v, &line, " at %s", sq);
        bare = false;
    }
    if (cr->zone >= 0) {
        combat_line_add(v, &line, " in %s", program_string(v->p, cr->zone));
        bare = false;
    }
    size_t held_at = line.len;
    effects_show_held(v, c, &line, bare ? " " : "; ");
    tags_show_on(v, TAG_ON_CREATURE, c, &line, bare && line.len == held_at ? " tags " : "; tags ");
    combat_line_end(v, &line);
    return true;
}

static const char *entry_name(vm *v, const entry *e)
{
    return e->creature >= 0 ? world_name(v, e->creature) : program_string(v->p, v->r->sides[e->side]);
}

static void indent_line(combat_line *l, const char *indent)
{
    size_t n = strlen(indent);
    if (l->len + n >= sizeof l->text)
        return;
    memmove(l->text + n, l->text, l->len + 1);
    memcpy(l->text, indent, n);
    l->len += n;
}

/* The tracker: the order with the current turn marked, the tracked stats
   and every condition with what is left of it. */
/* Whether c is out of the fight, read for the tracker as a display reads
   (vm_peek_begin): the rulings as they stand, asked of no one, so that
   showing the tracker puts no question; a formula that cannot be read so
   (it would roll) leaves c shown as in. */
static bool shown_out(vm *v, int c)
{
    bool out = false;
    if (!vm_peek_begin(v, (span){0})) {
        vm_clear_error(v);
        return false;
    }
    if (!encounter_out(v, c, &out, (span){0})) {
        vm_clear_error(v);
        out = false;
    }
    vm_peek_end(v);
    return out;
}

/* A tracked stat's column: as wide as its name, at least 9, and as its
   widest value of a creature in play (a range, a string), in the columns
   a terminal gives them. A hidden creature's value does not widen it: the
   players' view would show its width. */
static int track_width(vm *v, int stat)
{
    int n = text_columns(program_string(v->p, v->p->decls[stat].name));
    n = n > 9 ? n : 9;
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        if (!v->world->creatures[c].in_play || v->world->creatures[c].hidden)
            continue;
        char *val = play_stat_text_whole(v, (int)c, stat);
        int w = val ? text_columns(val) : 1;
        n = w > n ? w : n;
        mem_strfree(val);
    }
    return n;
}

static bool show_tracker(vm *v)
{
    combat *cb = &v->world->cb;
    const r_encounter *enc = &v->r->encounter;
    if (!cb->active) {
        combat_print(v, "no encounter under way");
        return true;
    }
    if (!cb->ordered) {
        combat_print(v, "encounter begun; no initiative yet");
        return true;
    }
    /* rows of hidden creatures come marked: the others are set in line with them */
    bool marked = false;
    for (size_t c = 0; c < v->world->ncreatures && v->world->secrets > 0; c++)
        marked |= v->world->creatures[c].hidden;
    const char *indent = marked ? "     " : "";
    _Static_assert(sizeof "     " == sizeof COMBAT_HIDDEN_MARK, "the indent is the width of the mark");
    /* rows as play goes: a creature that waits after the others */
    int shown_turn = 0;
    for (int i = 0; cb->turn >= 0 && cb->turn < cb->norder && i <= cb->turn; i++)
        shown_turn += !initiative_waiting(v, &cb->order[i]);
    const char *what = cb->free_round ? "free round" : cb->surprise ? "surprise round" : NULL;
    if (what)
        combat_print(v, "%s - turn %d of %d", what, shown_turn, cb->norder);
    else
        combat_print(v, "round %d - turn %d of %d", cb->round, shown_turn, cb->norder);
    /* columns as wide as what they hold: a decimal score, a long name */
    int score_w = 4, name_w = 12;
    text_buf rolled, note, head;
    text_init(&rolled);
    text_init(&note);
    text_init(&head);
    for (int i = 0; i < cb->norder; i++) {
        initiative_entry_text(v, &cb->order[i], &rolled, &note);
        score_w = (int)rolled.len > score_w ? (int)rolled.len : score_w;
    }
    for (size_t c = 0; c < v->world->ncreatures; c++)
        name_w = (int)strlen(v->world->creatures[c].name) > name_w ? (int)strlen(v->world->creatures[c].name) : name_w;
    text_add(&head, "%s  %*s  %-*s", indent, score_w, "init", name_w, "name");
    /* each tracked column's width, once for the header and every row */
    int small[16], *width = enc->ntrack <= 16 ? small : mem_alloc((size_t)enc->ntrack * sizeof(int));
    for (int k = 0; width && k < enc->ntrack; k++)
        width[k] = world_stat_internal(v, enc->track[k]) ? 0 : track_width(v, enc->track[k]);
    for (int k = 0; width && k < enc->ntrack; k++)
        if (width[k]) {
            const char *name = program_string(v->p, v->p->decls[enc->track[k]].name);
            text_add(&head, " %s%*s", name, width[k] - text_columns(name), "");
        }
    text_put(&head, " conditions");
    combat_print(v, "%s", head.s);
    for (int row = 0, i; (i = initiative_each(v, &row)) >= 0;) {
        const entry *e = &cb->order[i];
        initiative_entry_text(v, e, &rolled, &note);
        /* the entry's creature, or each member of its side in play */
        size_t first = e->creature >= 0 ? (size_t)e->creature : 0;
        size_t last = e->creature >= 0 ? first + 1 : v->world->ncreatures;
        for (size_t who = first, m = 0; who < last; who++) {
            if (e->creature < 0 && !(v->world->creatures[who].in_play && v->world->creatures[who].side == e->side))
                continue;
            int c = (int)who;
            const char *score = m++ == 0 ? rolled.s : "";
            const char *mark = i == cb->turn && cb->in_turn ? ">" : " ";
            combat_line line = {.say = false};
            combat_line_add(v, &line, "%s %*s  %-*s", mark, score_w, score, name_w, v->world->creatures[c].name);
            size_t row_start = line.len;
            for (int k = 0; width && k < enc->ntrack; k++) {
                if (!width[k])
                    continue;
                char *val = play_stat_text_whole(v, c, enc->track[k]);
                const char *shown = val ? val : "?";
                combat_line_add(v, &line, " %s%*s", shown, width[k] - text_columns(shown), "");
                mem_strfree(val);
            }
            bool out = shown_out(v, c);
            const char *notes = note.len && e->creature >= 0 ? note.s : out ? "out" : "";
            combat_line_add(v, &line, " %s", notes);
            if (note.len && out && e->creature >= 0)
                combat_line_add(v, &line, ", out");
            size_t held_at = line.len;
            effects_show_held(v, c, &line, notes[0] ? ", " : "");
            show_tracks(v, c, &line);
            tags_show_on(v, TAG_ON_CREATURE, c, &line, notes[0] || line.len != held_at ? "; tags " : "tags ");
            if (marked && line.len >= row_start && !hidden_line(v, line.text, false))
                indent_line(&line, indent);
            combat_line_end(v, &line); /* without the blanks that pad its columns */
        }
    }
    if (width != small && width)
        mem_free(width, (size_t)enc->ntrack * sizeof(int));
    text_free(&head);
    text_free(&note);
    text_free(&rolled);
    return true;
}

static void show_order(vm *v)
{
    combat *cb = &v->world->cb;
    if (!cb->ordered) {
        combat_print(v, "no initiative order yet");
        return;
    }
    text_buf score, note;
    text_init(&score);
    text_init(&note);
    for (int row = 0, i; (i = initiative_each(v, &row)) >= 0;) {
        const entry *e = &cb->order[i];
        initiative_entry_text(v, e, &score, &note);
        combat_print(v, "%s %6s  %s%s%s%s", i == cb->turn && cb->in_turn ? ">" : " ", score.s, entry_name(v, e),
                     note.len ? " (" : "", note.s, note.len ? ")" : "");
    }
    text_free(&note);
    text_free(&score);
}

static bool show(vm *v, const value *args, int argc, span at)
{
    if (argc == 0) {
        if (v->world->cb.active) {
            if (!show_tracker(v))
                return false;
        } else {
            bool any = false;
            for (size_t c = 0; c < v->world->ncreatures; c++) {
                if (v->world->creatures[c].gone)
                    continue;
                any = true;
                if (!show_creature(v, (int)c))
                    return false;
            }
            if (!any)
                combat_print(v, "no creatures yet");
        }
        /* what the sides, the encounter and the table hold, under the creatures */
        sides_show(v);
        sides_show_encounter(v);
        sides_show_table(v);
        return true;
    }
    for (int i = 0; i < argc; i++) {
        value x = args[i];
        if (x.type == V_CREATURE) {
            if (!show_creature(v, (int)x.num))
                return false;
        } else if (is_word(v, x, "order")) {
            show_order(v);
        } else if (is_word(v, x, "map")) {
            if (v->r->space.kind == SPACE_ZONES)
                zones_show(v);
            else if (!grid_show(v, at))
                return false;
        } else if (is_word(v, x, "log")) {
            combat_show_log(v);
        } else if (is_word(v, x, "tracker")) {
            if (!show_tracker(v))
                return false;
        } else if (is_word(v, x, "economy")) {
            if (i + 1 >= argc || args[i + 1].type != V_CREATURE)
                return vm_error(v, at, "show economy NAME: whose economy?");
            if (!ledger_show(v, (int)args[++i].num))
                return false;
        } else if (sides_show_word(v, x)) {
            continue;
        } else if (is_word(v, x, "effects")) {
            for (size_t c = 0; c < v->world->ncreatures; c++) {
                if (v->world->creatures[c].effects < 0)
                    continue;
                combat_line line = {.say = false};
                combat_line_add(v, &line, "%s", v->world->creatures[c].name);
                effects_show(v, (int)c, &line, ": ");
                combat_line_end(v, &line);
            }
        } else {
            /* the whole value, as print writes it */
            text_buf val;
            text_init(&val);
            bool ok = vm_text_value(v, &val, x, at);
            if (ok)
                combat_print_line(v, val.s);
            text_free(&val);
            if (!ok)
                return false;
        }
    }
    return true;
}

/* --- the commands ---------------------------------------------------------------------- */

/* A command about to run: which, and its arguments by slot (commands.def). */
typedef struct {
    vm *v;
    command_id cmd;
    command_args args;
    span at;
} command_run;

static value arg(const command_run *r, int slot)
{
    return command_arg(&r->args, slot);
}

static int creature_slot(const command_run *r, int slot)
{
    return creature_arg(r->v, arg(r, slot), r->at);
}

/* May this action be held under `allow hold only ...`? Every way to pay it
   must spend one of the slots named (a free action cannot be held). */
static bool hold_allowed(vm *v, int action)
{
    const r_initiative *in = &v->r->initiative;
    const cost *k = &v->r->actions[action].cost;
    if (k->noptions == 0)
        return false;
    for (int o = 0; o < k->noptions; o++) {
        bool uses = false;
        for (int i = 0; i < k->options[o].nparts; i++)
            for (int j = 0; j < in->nhold_only; j++)
                uses |= k->options[o].parts[i].kind == COST_SLOT && k->options[o].parts[i].index == in->hold_only[j];
        if (!uses)
            return false;
    }
    return true;
}

/* Whether creature c may ready an action now; if not, why is said (and
 *said is set). False on an error. */
static bool hold_may_ready(vm *v, int c, bool *said, span at)
{
    combat *cb = &v->world->cb;
    /* a creature readies an action in its own turn, while it can act */
    bool out = false;
    *said = true;
    if (cb->active && !encounter_out(v, c, &out, at))
        return false;
    if (out) {
        combat_say(v, "%s cannot hold an action: %s is out of the fight", v->world->creatures[c].name,
                   v->world->creatures[c].name);
        return true;
    }
    if (cb->active && cb->ordered && !encounter_is_turn_of(v, c)) {
        combat_say(v, "%s cannot hold an action: a creature readies one in its own turn", v->world->creatures[c].name);
        return true;
    }
    *said = false;
    return true;
}

/* `allow hold only SLOT or ...`: says why the action may not be held. */
static void hold_refused(vm *v, int c, int action)
{
    const r_initiative *in = &v->r->initiative;
    text_buf names, cite;
    text_init(&names);
    text_init(&cite);
    for (int i = 0; i < in->nhold_only; i++)
        text_add(&names, "%s%s", i ? " or " : "", program_string(v->p, v->r->slots[in->hold_only[i]].name));
    combat_cite(v, in->hold_from.cite >= 0 ? &in->hold_from : &in->from, &cite);
    combat_say(v, "%s cannot hold %s: only an action that costs %s may be held%s%s%s", v->world->creatures[c].name,
               program_string(v->p, v->r->actions[action].name), names.s, cite.len ? " (" : "", cite.s,
               cite.len ? ")" : "");
    text_free(&cite);
    text_free(&names);
}

/* A new held action, its arguments and the event's pattern kept; -1 on an
   error. */
static int hold_record(const command_run *r, int c)
{
    vm *v = r->v;
    combat *cb = &v->world->cb;
    size_t cap = (size_t)cb->holds_cap;
    hold *g = mem_grow(cb->holds, sizeof(hold), &cap, (size_t)cb->nholds + 1);
    if (!g)
        return vm_error(v, r->at, "out of memory"), -1;
    cb->holds = g;
    cb->holds_cap = (int)cap;
    hold *h = &cb->holds[cb->nholds];
    memset(h, 0, sizeof *h);
    h->creature = c;
    h->action = (int)arg(r, ARG_HOLD_ACTION).num;
    h->nargs = command_count(&r->args, ARG_HOLD_ARGS);
    for (int i = 0; i < h->nargs; i++)
        if (!vm_keep(v, command_list(&r->args, ARG_HOLD_ARGS)[i], r->at, &h->args[i]))
            return -1;
    h->event = (int)arg(r, ARG_HOLD_EVENT).num;
    h->npattern = command_count(&r->args, ARG_HOLD_PATTERN);
    for (int i = 0; i < h->npattern; i++)
        if (!vm_keep(v, command_list(&r->args, ARG_HOLD_PATTERN)[i], r->at, &h->pattern[i]))
            return -1;
    h->live = true;
    return cb->nholds++;
}

/* "a holds strike b until walked(b)": the action as it will be taken,
   and the event as it must match (_ for any argument) */
static void hold_say(vm *v, const hold *h)
{
    text_buf what, when;
    text_init(&what);
    text_init(&when);
    text_put(&what, program_string(v->p, v->r->actions[h->action].name));
    for (int i = 0; i < h->nargs; i++) {
        text_put(&what, " ");
        vm_format_text(v, h->args[i], &what);
    }
    text_add(&when, "%s(", program_string(v->p, v->r->events[h->event].name));
    for (int i = 0; i < h->npattern; i++) {
        if (i)
            text_put(&when, ", ");
        if (h->pattern[i].type == V_NIL)
            text_put(&when, "_");
        else
            vm_format_text(v, h->pattern[i], &when);
    }
    text_put(&when, ")");
    combat_say(v, "%s holds %s until %s", v->world->creatures[h->creature].name, what.s, when.s);
    text_free(&when);
    text_free(&what);
}

static bool run_hold(const command_run *r)
{
    vm *v = r->v;
    const r_initiative *in = &v->r->initiative;
    if (!in->allow_hold)
        return vm_error(v, r->at, "these rules do not let a creature hold an action");
    int c = creature_slot(r, ARG_HOLD_WHO);
    if (c < 0)
        return false;
    bool said;
    if (!hold_may_ready(v, c, &said, r->at))
        return false;
    if (said)
        return true;
    int action = (int)arg(r, ARG_HOLD_ACTION).num;
    if (command_count(&r->args, ARG_HOLD_ARGS) > ACTION_MAX_PARAMS)
        return vm_error(v, r->at, "a held action takes at most %d arguments", ACTION_MAX_PARAMS);
    if (command_count(&r->args, ARG_HOLD_PATTERN) > TRIGGER_MAX_PARAMS)
        return vm_error(v, r->at, "an event has at most %d arguments", TRIGGER_MAX_PARAMS);
    if (in->nhold_only > 0 && !hold_allowed(v, action)) {
        hold_refused(v, c, action);
        return true;
    }
    int index = hold_record(r, c);
    if (index < 0)
        return false;
    /* it waits until the creature's next turn, unless the rules say */
    value lasts = value_time(TIME_UNTIL_TURN_START, 1);
    if (rexpr_present(&in->hold_lasts)) {
        if (in->hold_lasts.kind == REXPR_CONST)
            lasts = in->hold_lasts.v;
        else if (!vm_call(v, in->hold_lasts.chunk, c, NULL, 0, &lasts))
            return false;
    }
    if (!effects_hold(v, c, index, lasts, r->at))
        return false;
    hold_say(v, &v->world->cb.holds[index]);
    return true;
}

/* `creature` spawns by its operand and `act` runs OP_ACT: neither comes
   here with arguments. */
static bool run_creature(const command_run *r)
{
    return vm_error(r->v, r->at, "internal: unknown play command %d", (int)r->cmd);
}

static bool run_act(const command_run *r)
{
    return run_creature(r);
}

/* The declared period a word names (the compiler checked it against the
   rules it compiled with). */
static bool period_arg(vm *v, value x, int *per, span at)
{
    *per = x.type == V_WORD ? rules_period(v->r, (int)x.num) : -1;
    if (*per < 0)
        return vm_error(v, at, "the rules declare no such period");
    return true;
}

static bool run_begin(const command_run *r)
{
    vm *v = r->v;
    bool by_given = command_count(&r->args, ARG_BEGIN_BY) > 0;
    if (is_word(v, arg(r, ARG_BEGIN_WHAT), "encounter")) {
        int by = -1;
        if (by_given && (by = creature_slot(r, ARG_BEGIN_BY)) < 0)
            return false;
        if (!encounter_begin(v, r->at))
            return false;
        v->world->cb.initiator = by;
        vm_play_changed(v);
        return true;
    }
    if (by_given)
        return vm_error(v, r->at, "only an encounter is begun by a creature");
    int per;
    return period_arg(v, arg(r, ARG_BEGIN_WHAT), &per, r->at) && period_begin(v, per, r->at);
}

static bool run_end(const command_run *r)
{
    vm *v = r->v;
    value what = arg(r, ARG_END_WHAT);
    if (is_word(v, what, "turn")) {
        if (!v->world->cb.in_turn)
            return vm_error(v, r->at, "no turn to end");
        return encounter_next(v, r->at);
    }
    if (is_word(v, what, "encounter"))
        return encounter_end(v, r->at);
    int per;
    return period_arg(v, what, &per, r->at) && period_end(v, per, r->at);
}

static bool run_roll_initiative(const command_run *r)
{
    return encounter_roll_initiative(r->v, command_list(&r->args, ARG_ROLL_INITIATIVE_GIVEN),
                                     command_count(&r->args, ARG_ROLL_INITIATIVE_GIVEN), r->at);
}

static bool run_show(const command_run *r)
{
    if (r->v->output_unread)
        return true; /* what it shows, no one reads */
    return show(r->v, command_list(&r->args, ARG_SHOW_WHAT), command_count(&r->args, ARG_SHOW_WHAT), r->at);
}

static bool run_tag(const command_run *r)
{
    return tags_command(r->v, r->cmd == CMD_TAG, arg(r, ARG_TAG_WHO), arg(r, ARG_TAG_NAME), arg(r, ARG_TAG_USES),
                        arg(r, ARG_TAG_FOR), r->at);
}

static bool run_next(const command_run *r)
{
    return encounter_next(r->v, r->at);
}

static bool run_delay(const command_run *r)
{
    return encounter_delay(r->v, r->at);
}

static bool run_resume(const command_run *r)
{
    int c = creature_slot(r, ARG_RESUME_WHO);
    return c >= 0 && encounter_resume(r->v, c, r->at);
}

/* `forfeit` and `reorder`: a new place in the order. */
static bool run_reorder(const command_run *r)
{
    vm *v = r->v;
    int c = creature_slot(r, ARG_REORDER_WHO), other = creature_slot(r, ARG_REORDER_NEXT_TO);
    if (c < 0 || other < 0)
        return false;
    bool forfeit = r->cmd == CMD_FORFEIT;
    if (!encounter_reorder(v, c, is_word(v, arg(r, ARG_REORDER_WHERE), "after"), other,
                           forfeit ? MOVE_FORFEIT : MOVE_REORDER, r->at))
        return false;
    /* forfeiting the turn under way ends it (a step is not a turn) */
    if (forfeit && v->world->creatures[c].forfeit && encounter_is_turn_of(v, c) && encounter_in_turns_phase(v)) {
        v->world->creatures[c].forfeit = false;
        vm_play_changed(v);
        combat_say(v, "%s forfeits this turn", v->world->creatures[c].name);
        return encounter_next(v, r->at);
    }
    return true;
}

static bool run_answer(const command_run *r)
{
    value who = arg(r, ARG_ANSWER_FOR);
    return rulings_answer(r->v, (int)arg(r, ARG_ANSWER_RULING).num, arg(r, ARG_ANSWER_VALUE),
                          who.type == V_CREATURE ? (int)who.num : -1, r->at);
}

static bool run_policy(const command_run *r)
{
    vm *v = r->v;
    combat *cb = &v->world->cb;
    int8_t take = is_word(v, arg(r, ARG_POLICY_CHOICE), "take") ? 1 : 0;
    value trigger = arg(r, ARG_POLICY_TRIGGER);
    if (trigger.type == V_NIL) {
        cb->reactions_policy = take;
        return true;
    }
    int t = rules_trigger(v->r, (int)trigger.num);
    if (t < 0 || t >= cb->trigger_policy_cap)
        return vm_error(v, r->at, "no trigger '%s'", program_string(v->p, (int)trigger.num));
    cb->trigger_policy[t] = take;
    return true;
}

static bool run_apply(const command_run *r)
{
    int cond = rules_condition(r->v->r, (int)arg(r, ARG_APPLY_CONDITION).num);
    int c = creature_slot(r, ARG_APPLY_TO);
    if (c < 0)
        return false;
    value cause = arg(r, ARG_APPLY_BY);
    int by = cause.type == V_CREATURE ? (int)cause.num : -1;
    bool applied;
    return effects_apply(r->v, c, cond, arg(r, ARG_APPLY_FOR), by, r->at, &applied);
}

/* `remove NAME` takes a creature out of play; `remove CONDITION from NAME`
   ends a condition. */
static bool run_remove(const command_run *r)
{
    vm *v = r->v;
    if (command_count(&r->args, ARG_REMOVE_FROM) == 0) {
        int c = creature_slot(r, ARG_REMOVE_WHAT);
        return c >= 0 && encounter_remove(v, c, r->at);
    }
    int name = (int)arg(r, ARG_REMOVE_WHAT).num;
    int cond = rules_condition(v->r, name);
    int c = creature_slot(r, ARG_REMOVE_FROM);
    bool removed;
    if (c < 0 || !effects_remove(v, c, cond, r->at, &removed))
        return false;
    if (!removed)
        combat_say(v, "%s is not %s", v->world->creatures[c].name, program_string(v->p, name));
    return true;
}

static bool run_place(const command_run *r)
{
    int c = creature_slot(r, ARG_PLACE_WHO);
    if (c < 0)
        return false;
    value where = arg(r, ARG_PLACE_WHERE);
    if (where.type == V_SQUARE)
        return grid_place(r->v, c, where.aux, (int32_t)where.num, r->at);
    return zones_place(r->v, c, (int)where.num, r->at);
}

static bool run_move(const command_run *r)
{
    vm *v = r->v;
    int c = creature_slot(r, ARG_MOVE_WHO);
    if (c < 0)
        return false;
    value to = arg(r, ARG_MOVE_TO), spending = arg(r, ARG_MOVE_SPENDING);
    if (to.type == V_WORD && spending.type != V_NIL)
        return vm_error(v, r->at, "a move between zones spends nothing: leave out 'spending'");
    if (to.type == V_WORD)
        return zones_place(v, c, (int)to.num, r->at);
    int walk = program_intern(v->p, "walk", 4);
    value moved;
    return grid_walk(v, c, to, spending, true, walk, command_list(&r->args, ARG_MOVE_VIA),
                     command_count(&r->args, ARG_MOVE_VIA), &moved, r->at);
}

/* The mark of `terrain cover LEVEL`: the level's index among the rules'. */
static bool cover_mark(vm *v, value level, uint8_t *flag, span at)
{
    int i;
    if (!grid_cover_level_named(v, program_string(v->p, (int)level.num), false, &i, at))
        return false;
    *flag = (uint8_t)(CELL_SET_COVER | i << CELL_COVER_SHIFT);
    return true;
}

/* `wall`, `terrain difficult` and `terrain cover`: one square, or a
   rectangle. */
static bool run_wall(const command_run *r)
{
    value a = arg(r, ARG_WALL_FROM);
    value b = command_count(&r->args, ARG_WALL_TO) > 0 ? arg(r, ARG_WALL_TO) : a;
    value level = arg(r, ARG_WALL_COVER);
    uint8_t flag = r->cmd == CMD_WALL ? CELL_BLOCKED : CELL_DIFFICULT;
    if (level.type == V_WORD && !cover_mark(r->v, level, &flag, r->at))
        return false;
    return grid_wall(r->v, a.aux, (int32_t)a.num, b.aux, (int32_t)b.num, flag, r->at);
}

static bool run_zone(const command_run *r)
{
    const command_args *a = &r->args;
    return zones_declare(r->v, (int)arg(r, ARG_ZONE_NAME).num, command_list(a, ARG_ZONE_NEXT),
                         command_count(a, ARG_ZONE_NEXT), command_list(a, ARG_ZONE_TAGS),
                         command_count(a, ARG_ZONE_TAGS), r->at);
}

static bool run_fight(const command_run *r)
{
    return encounter_fight(r->v, (int)arg(r, ARG_FIGHT_ROUNDS).num, r->at);
}

static bool run_explain(const command_run *r)
{
    combat_explain(r->v);
    return true;
}

static bool run_hide(const command_run *r)
{
    int c = creature_slot(r, ARG_HIDE_WHO);
    return c >= 0 && hidden_set(r->v, c, r->cmd == CMD_HIDE, command_list(&r->args, ARG_HIDE_STATS),
                                command_count(&r->args, ARG_HIDE_STATS), r->at);
}

static bool run_can(const command_run *r)
{
    vm *v = r->v;
    int c = creature_slot(r, ARG_CAN_WHO);
    if (c < 0)
        return false;
    int action = (int)arg(r, ARG_CAN_ACTION).num;
    const value *args = command_list(&r->args, ARG_CAN_ARGS);
    int nargs = command_count(&r->args, ARG_CAN_ARGS);
    refusal why;
    refusal_init(&why);
    bool ok;
    if (!act_can(v, c, action, args, nargs, &why, &ok, r->at)) {
        refusal_free(&why);
        return false;
    }
    const char *name = program_string(v->p, v->r->actions[action].name);
    bool target = nargs > 0 && args[0].type == V_CREATURE;
    const char *space = target ? " " : "", *whom = target ? v->world->creatures[args[0].num].name : "";
    if (ok) {
        combat_print(v, "yes: %s can %s%s%s now", v->world->creatures[c].name, name, space, whom);
    } else {
        text_buf cite;
        text_init(&cite);
        combat_cite(v, &why.rule, &cite);
        combat_print(v, "no: %s cannot %s%s%s: %s%s%s%s", v->world->creatures[c].name, name, space, whom, why.why.s,
                     cite.len ? " (" : "", cite.s, cite.len ? ")" : "");
        text_free(&cite);
    }
    refusal_free(&why);
    return true;
}

static bool run_force(const command_run *r)
{
    vm *v = r->v;
    value die = arg(r, ARG_FORCE_DIE);
    if (die.type == V_NIL) {
        dice_forced_clear(&v->forced);
        combat_say(v, "no faces are forced now");
        return true;
    }
    const dexpr *dx = vm_dexpr(v, die);
    if (!dx || dx->nterms != 1 || !dice_forced_kind(&dx->terms[0].d))
        return vm_error(v, r->at, "force names one die, as in d20");
    const dice *d = &dx->terms[0].d;
    const value *faces = command_list(&r->args, ARG_FORCE_FACES);
    int n = command_count(&r->args, ARG_FORCE_FACES);
    combat_line line = {.say = true};
    char name[32];
    dice_format(d, name, sizeof name);
    combat_line_add(v, &line, "the next %s%s show%s", name, n > 1 ? "s" : "", n > 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        if (faces[i].type != V_INT || !dice_forced_fits(d, faces[i].num))
            return vm_error(v, r->at, "a %s cannot show that face", name);
        if (!dice_forced_add(&v->forced, d, (int32_t)faces[i].num))
            return vm_error(v, r->at, "out of memory");
        combat_line_add(v, &line, "%s%" PRId64, i == 0 ? " " : ", ", faces[i].num);
    }
    combat_line_end(v, &line);
    return true;
}

/* play_damage (damage.c) reads the slots where commands.def puts them. */
_Static_assert(ARG_DAMAGE_WHO == 0 && ARG_DAMAGE_AMOUNT == 1 && ARG_DAMAGE_KIND == 2 && NSLOTS_damage == 3,
               "play_damage takes the creature, the amount and the kind, in that order");

static bool run_damage(const command_run *r)
{
    return play_damage(r->v, r->cmd == CMD_HEAL, r->args.args, r->args.argc, r->at);
}

static bool run_mark(const command_run *r)
{
    vm *v = r->v;
    int c = (int)arg(r, ARG_MARK_WHO).num;
    int t = rules_track(v->r, (int)arg(r, ARG_MARK_TRACK).num);
    value box = arg(r, ARG_MARK_BOX);
    if (t < 0)
        return vm_error(v, r->at, "no track '%s'", program_string(v->p, (int)arg(r, ARG_MARK_TRACK).num));
    return track_command(v, r->cmd == CMD_MARK, c, t, box.type == V_INT ? (int)box.num - 1 : -1, arg(r, ARG_MARK_NAME),
                         r->at);
}

/* --- dispatch ------------------------------------------------------------------------ */

typedef bool (*command_runner)(const command_run *r);

static const command_runner command_runners[FAMILY_COUNT] = {
#define FAMILY(family, slots) [FAMILY_##family] = run_##family,
#include "runtime/core/commands.def"
#undef FAMILY
};

/* A creature removed from play is named by no command but show; its
   name, if one is. */
static const char *gone_named(vm *v, int cmd, const value *args, int argc)
{
    for (int i = 0; i < argc && cmd != CMD_SHOW; i++)
        if (args[i].type == V_CREATURE && (size_t)args[i].num < v->world->ncreatures &&
            v->world->creatures[args[i].num].gone)
            return v->world->creatures[args[i].num].name;
    return NULL;
}

static bool run_command(vm *v, int cmd, const value *args, int argc, span at)
{
    if (cmd < 0 || cmd >= CMD_COUNT)
        return vm_error(v, at, "internal: unknown play command %d", cmd);
    command_run r = {.v = v, .cmd = (command_id)cmd, .at = at};
    if (!command_args_read(r.cmd, args, argc, &r.args))
        return vm_error(v, at, "internal: '%s' was given arguments commands.def does not lay out so",
                        command_words[cmd]);
    return command_runners[command_families[cmd]](&r);
}

bool play_command(vm *v, int cmd, int operand, span at)
{
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    if (cmd == CMD_CREATURE)
        return world_spawn(v, operand, at);
    /* the arguments stay where they were pushed, under what the command's
       own calls push, and go when it is done */
    value *args = v->sp - operand;
    const char *gone = gone_named(v, cmd, args, operand);
    if (gone) {
        v->sp = args;
        return vm_error(v, at, "%s has been removed from play", gone);
    }
    bool ok = run_command(v, cmd, args, operand, at);
    v->sp = args;
    return ok;
}
