/* play: the play commands. The compiler has checked each command's words
 * and pushed its arguments in a fixed order (lang/compile_cmd.c); here
 * they run against the state of play. `show` prints the tracker, the
 * order, a creature, the map or the log. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/commands.h"
#include "runtime/mem.h"
#include "runtime/vm.h"

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

bool vm_spawn(vm *v, int t, span at)
{
    const r_creature *tp = &v->r->creatures[t];
    const char *base = program_string(v->p, tp->name);
    int count = tp->count > 0 ? tp->count : 1;
    for (int k = 1; k <= count; k++) {
        char name[256];
        if (count > 1)
            snprintf(name, sizeof name, "%s_%d", base, k);
        else
            snprintf(name, sizeof name, "%s", base);
        int c = vm_add_creature(v, name, t, at);
        if (c < 0)
            return false;
        tp = &v->r->creatures[t];
        creature *cr = &v->creatures[c];
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
            if (!vm_set_stat(v, c, s->stat, x, at))
                return false;
            tp = &v->r->creatures[t];
        }
        combat *cb = &v->cb;
        if (cb->active) {
            /* it joins the fight, acting last */
            v->creatures[c].in_play = true;
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
                                                  .side = v->creatures[c].side,
                                                  .key = key,
                                                  .score = value_nil(),
                                                  .check = value_nil(),
                                                  .unrolled = true};
                combat_say(v,
                           "%s joins the fight, last in the order (to place it by initiative: roll initiative %s "
                           "[ROLLED])",
                           name, name);
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
   be read so (it would roll) is shown as "?". */
static size_t stat_text(vm *v, int c, int decl_index, char *buf, size_t cap)
{
    bool peeking = v->peek_depth == 0;
    value x, max = value_nil();
    const r_resource *res = rules_resource_of(v->r, v->decl_info[decl_index].latest);
    bool has_max = res && rexpr_present(&res->max);
    bool began = peeking && vm_peek_begin(v, (span){0});
    bool ok = !peeking || began;
    if (ok)
        ok = vm_get_stat(v, c, decl_index, &x);
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

static bool show_creature(vm *v, int c)
{
    const creature *cr = &v->creatures[c];
    combat_line line = {.say = false};
    combat_line_add(v, &line, "%s", cr->name);
    if (cr->side >= 0)
        combat_line_add(v, &line, " (%s)", program_string(v->p, v->r->sides[cr->side]));
    combat_line_add(v, &line, ":");
    bool bare = true; /* nothing said after the name yet */
    for (size_t i = 0; i < v->p->ndecls; i++) {
        if (!vm_stat_shown(v, c, (int)i))
            continue;
        const decl *d = &v->p->decls[i];
        char val[256];
        stat_text(v, c, (int)i, val, sizeof val);
        if (v->failed)
            return false;
        combat_line_add(v, &line, " %s %s", program_string(v->p, d->name), val);
        bare = false;
    }
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
    effects_show_held(v, c, &line, bare ? " " : "; ");
    combat_line_end(v, &line);
    return true;
}

static const char *entry_name(vm *v, const entry *e)
{
    return e->creature >= 0 ? vm_name(v, e->creature) : program_string(v->p, v->r->sides[e->side]);
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

/* A tracked stat's column: as wide as its name, at least 9. */
static int track_width(const vm *v, int stat)
{
    int n = (int)strlen(program_string(v->p, v->p->decls[stat].name));
    return n > 9 ? n : 9;
}

static bool show_tracker(vm *v)
{
    combat *cb = &v->cb;
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
    for (size_t c = 0; c < v->ncreatures && v->secrets > 0; c++)
        marked |= v->creatures[c].hidden;
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
    for (int i = 0; i < cb->norder; i++) {
        char rolled[32], note[96];
        initiative_entry_text(v, &cb->order[i], rolled, sizeof rolled, note, sizeof note);
        score_w = (int)strlen(rolled) > score_w ? (int)strlen(rolled) : score_w;
    }
    for (size_t c = 0; c < v->ncreatures; c++)
        name_w = (int)strlen(v->creatures[c].name) > name_w ? (int)strlen(v->creatures[c].name) : name_w;
    char head[512];
    size_t len = (size_t)snprintf(head, sizeof head, "%s  %*s  %-*s", indent, score_w, "init", name_w, "name");
    for (int k = 0; k < enc->ntrack && len < sizeof head; k++)
        if (!vm_stat_internal(v, enc->track[k]))
            len += (size_t)snprintf(head + len, sizeof head - len, " %-*s", track_width(v, enc->track[k]),
                                    program_string(v->p, v->p->decls[enc->track[k]].name));
    snprintf(head + len, sizeof head - len, " conditions");
    combat_print(v, "%s", head);
    for (int row = 0, i; (i = initiative_each(v, &row)) >= 0;) {
        const entry *e = &cb->order[i];
        char rolled[32], note[96];
        initiative_entry_text(v, e, rolled, sizeof rolled, note, sizeof note);
        /* the entry's creature, or each member of its side in play */
        size_t first = e->creature >= 0 ? (size_t)e->creature : 0;
        size_t last = e->creature >= 0 ? first + 1 : v->ncreatures;
        for (size_t who = first, m = 0; who < last; who++) {
            if (e->creature < 0 && !(v->creatures[who].in_play && v->creatures[who].side == e->side))
                continue;
            int c = (int)who;
            const char *score = m++ == 0 ? rolled : "";
            const char *mark = i == cb->turn && cb->in_turn ? ">" : " ";
            combat_line line = {.say = false};
            combat_line_add(v, &line, "%s %*s  %-*s", mark, score_w, score, name_w, v->creatures[c].name);
            size_t row_start = line.len;
            for (int k = 0; k < enc->ntrack; k++) {
                if (vm_stat_internal(v, enc->track[k]))
                    continue;
                char val[64];
                stat_text(v, c, enc->track[k], val, sizeof val);
                if (v->failed)
                    return false;
                combat_line_add(v, &line, " %-*s", track_width(v, enc->track[k]), val);
            }
            bool out = shown_out(v, c);
            const char *notes = note[0] && e->creature >= 0 ? note : out ? "out" : "";
            combat_line_add(v, &line, " %s", notes);
            if (note[0] && out && e->creature >= 0)
                combat_line_add(v, &line, ", out");
            effects_show_held(v, c, &line, notes[0] ? ", " : "");
            if (marked && line.len >= row_start && !hidden_line(v, line.text, false))
                indent_line(&line, indent);
            combat_line_end(v, &line); /* without the blanks that pad its columns */
        }
    }
    return true;
}

static void show_order(vm *v)
{
    combat *cb = &v->cb;
    if (!cb->ordered) {
        combat_print(v, "no initiative order yet");
        return;
    }
    for (int row = 0, i; (i = initiative_each(v, &row)) >= 0;) {
        const entry *e = &cb->order[i];
        char score[64], note[96];
        initiative_entry_text(v, e, score, sizeof score, note, sizeof note);
        combat_print(v, "%s %6s  %s%s%s%s", i == cb->turn && cb->in_turn ? ">" : " ", score, entry_name(v, e),
                     note[0] ? " (" : "", note, note[0] ? ")" : "");
    }
}

static bool show(vm *v, const value *args, int argc, span at)
{
    if (argc == 0) {
        if (v->cb.active)
            return show_tracker(v);
        bool any = false;
        for (size_t c = 0; c < v->ncreatures; c++) {
            if (v->creatures[c].gone)
                continue;
            any = true;
            if (!show_creature(v, (int)c))
                return false;
        }
        if (!any)
            combat_print(v, "no creatures yet");
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
        } else if (is_word(v, x, "effects")) {
            for (size_t c = 0; c < v->ncreatures; c++) {
                if (v->creatures[c].effects < 0)
                    continue;
                combat_line line = {.say = false};
                combat_line_add(v, &line, "%s", v->creatures[c].name);
                effects_show(v, (int)c, &line, ": ");
                combat_line_end(v, &line);
            }
        } else {
            /* the whole value, as print writes it */
            vm_text val = {0};
            bool ok = vm_text_value(v, &val, x, at);
            if (ok)
                combat_print_line(v, val.buf);
            vm_text_free(&val);
            if (!ok)
                return false;
        }
    }
    return true;
}

/* --- the commands ---------------------------------------------------------------------- */

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

static bool cmd_hold(vm *v, const value *args, int argc, span at)
{
    combat *cb = &v->cb;
    const r_initiative *in = &v->r->initiative;
    if (!in->allow_hold)
        return vm_error(v, at, "these rules do not let a creature hold an action");
    int c = creature_arg(v, args[0], at);
    if (c < 0)
        return false;
    /* a creature readies an action in its own turn, while it can act */
    bool out = false;
    if (cb->active && !encounter_out(v, c, &out, at))
        return false;
    if (out) {
        combat_say(v, "%s cannot hold an action: %s is out of the fight", v->creatures[c].name, v->creatures[c].name);
        return true;
    }
    if (cb->active && cb->ordered && !encounter_is_turn_of(v, c)) {
        combat_say(v, "%s cannot hold an action: a creature readies one in its own turn", v->creatures[c].name);
        return true;
    }
    /* pushed as: creature, the action's arguments, action, their count,
       the event's pattern, event, the pattern's length */
    int np = (int)args[argc - 1].num;
    int event = (int)args[argc - 2].num;
    const value *pattern = &args[argc - 2 - np];
    int n = (int)args[argc - 3 - np].num;
    int action = (int)args[argc - 4 - np].num;
    const value *act_args = &args[1];
    if (n > ACTION_MAX_PARAMS)
        return vm_error(v, at, "a held action takes at most %d arguments", ACTION_MAX_PARAMS);
    if (np > TRIGGER_MAX_PARAMS)
        return vm_error(v, at, "an event has at most %d arguments", TRIGGER_MAX_PARAMS);
    /* `allow hold only SLOT or ...`: every way to pay the action spends one of them */
    if (in->nhold_only > 0 && !hold_allowed(v, action)) {
        char names[128], cite[160];
        size_t len = 0;
        for (int i = 0; i < in->nhold_only && len < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? " or " : "",
                                    program_string(v->p, v->r->slots[in->hold_only[i]].name));
        combat_cite(v, in->hold_from.cite >= 0 ? &in->hold_from : &in->from, cite, sizeof cite);
        combat_say(v, "%s cannot hold %s: only an action that costs %s may be held%s%s%s", v->creatures[c].name,
                   program_string(v->p, v->r->actions[action].name), names, cite[0] ? " (" : "", cite,
                   cite[0] ? ")" : "");
        return true;
    }
    size_t cap = (size_t)cb->holds_cap;
    hold *g = mem_grow(cb->holds, sizeof(hold), &cap, (size_t)cb->nholds + 1);
    if (!g)
        return vm_error(v, at, "out of memory");
    cb->holds = g;
    cb->holds_cap = (int)cap;
    hold *h = &cb->holds[cb->nholds];
    memset(h, 0, sizeof *h);
    h->creature = c;
    h->action = action;
    h->nargs = n;
    for (int i = 0; i < n; i++)
        if (!vm_keep(v, act_args[i], at, &h->args[i]))
            return false;
    h->event = event;
    h->npattern = np;
    for (int i = 0; i < np; i++)
        if (!vm_keep(v, pattern[i], at, &h->pattern[i]))
            return false;
    h->live = true;
    int index = cb->nholds++;
    /* it waits until the creature's next turn, unless the rules say */
    value lasts = value_time(TIME_UNTIL_TURN_START, 1);
    if (rexpr_present(&in->hold_lasts)) {
        if (in->hold_lasts.kind == REXPR_CONST)
            lasts = in->hold_lasts.v;
        else if (!vm_call(v, in->hold_lasts.chunk, c, NULL, 0, &lasts))
            return false;
    }
    if (!effects_hold(v, c, index, lasts, at))
        return false;
    /* "a holds strike b until walked(b)": the action as it will be taken,
       and the event as it must match (_ for any argument) */
    char what[256], shown[64];
    size_t len = (size_t)snprintf(what, sizeof what, "%s", program_string(v->p, v->r->actions[action].name));
    for (int i = 0; i < n && len < sizeof what; i++) {
        vm_format(v, h->args[i], shown, sizeof shown);
        len += (size_t)snprintf(what + len, sizeof what - len, " %s", shown);
    }
    char when[256];
    len = (size_t)snprintf(when, sizeof when, "%s(", program_string(v->p, v->r->events[event].name));
    for (int i = 0; i < np && len < sizeof when; i++) {
        if (h->pattern[i].type == V_NIL)
            snprintf(shown, sizeof shown, "_");
        else
            vm_format(v, h->pattern[i], shown, sizeof shown);
        len += (size_t)snprintf(when + len, sizeof when - len, "%s%s", i ? ", " : "", shown);
    }
    if (len < sizeof when)
        snprintf(when + len, sizeof when - len, ")");
    combat_say(v, "%s holds %s until %s", v->creatures[c].name, what, when);
    return true;
}

static bool run_command(vm *v, int cmd, const value *args, int argc, span at);

bool play_command(vm *v, int cmd, int operand, span at)
{
    if (!combat_sync(v))
        return vm_error(v, at, "out of memory");
    if (cmd == CMD_CREATURE)
        return vm_spawn(v, operand, at);
    /* the arguments stay where they were pushed, under what the command's
       own calls push, and go when it is done */
    value *args = v->sp - operand;
    /* a creature removed from play is named by no command but show */
    for (int i = 0; i < operand && cmd != CMD_SHOW; i++)
        if (args[i].type == V_CREATURE && (size_t)args[i].num < v->ncreatures && v->creatures[args[i].num].gone) {
            v->sp = args;
            return vm_error(v, at, "%s has been removed from play", v->creatures[args[i].num].name);
        }
    bool ok = run_command(v, cmd, args, operand, at);
    v->sp = args;
    return ok;
}

static bool run_command(vm *v, int cmd, const value *args, int argc, span at)
{
    combat *cb = &v->cb;
    switch ((command_id)cmd) {
    case CMD_BEGIN:
        if (is_word(v, args[0], "encounter")) {
            int by = -1;
            if (argc > 1 && (by = creature_arg(v, args[1], at)) < 0)
                return false;
            if (!encounter_begin(v, at))
                return false;
            cb->initiator = by;
            return true;
        }
        if (argc > 1)
            return vm_error(v, at, "only an encounter is begun by a creature");
        combat_say(v, "the %s begins", program_string(v->p, (int)args[0].num));
        return true;
    case CMD_END:
        if (is_word(v, args[0], "turn")) {
            if (!cb->in_turn)
                return vm_error(v, at, "no turn to end");
            return encounter_next(v, at);
        }
        if (is_word(v, args[0], "encounter"))
            return encounter_end(v, at);
        return encounter_end_span(v, is_word(v, args[0], "scene") ? 1 : is_word(v, args[0], "quest") ? 2 : 3, at);
    case CMD_ROLL_INITIATIVE: return encounter_roll_initiative(v, args, argc, at);
    case CMD_SHOW: return show(v, args, argc, at);
    case CMD_NEXT: return encounter_next(v, at);
    case CMD_DELAY: return encounter_delay(v, at);
    case CMD_RESUME: {
        int c = creature_arg(v, args[0], at);
        return c >= 0 && encounter_resume(v, c, at);
    }
    case CMD_HOLD: return cmd_hold(v, args, argc, at);
    case CMD_FORFEIT:
    case CMD_REORDER: {
        int c = creature_arg(v, args[0], at), other = creature_arg(v, args[2], at);
        if (c < 0 || other < 0)
            return false;
        bool forfeit = cmd == CMD_FORFEIT;
        if (!encounter_reorder(v, c, is_word(v, args[1], "after"), other, forfeit, at))
            return false;
        /* forfeiting the turn under way ends it (a step is not a turn) */
        if (forfeit && v->creatures[c].forfeit && encounter_is_turn_of(v, c) && encounter_in_turns_phase(v)) {
            v->creatures[c].forfeit = false;
            combat_say(v, "%s forfeits this turn", v->creatures[c].name);
            return encounter_next(v, at);
        }
        return true;
    }
    case CMD_ANSWER: {
        int who = args[2].type == V_CREATURE ? (int)args[2].num : -1;
        return rulings_answer(v, (int)args[0].num, args[1], who, at);
    }
    case CMD_POLICY: {
        int8_t take = is_word(v, args[1], "take") ? 1 : 0;
        if (args[0].type == V_NIL) {
            cb->reactions_policy = take;
            return true;
        }
        int t = rules_trigger(v->r, (int)args[0].num);
        if (t < 0 || t >= cb->trigger_policy_cap)
            return vm_error(v, at, "no trigger '%s'", program_string(v->p, (int)args[0].num));
        cb->trigger_policy[t] = take;
        return true;
    }
    case CMD_APPLY: {
        int cond = rules_condition(v->r, (int)args[0].num);
        int c = creature_arg(v, args[1], at);
        if (c < 0)
            return false;
        int by = args[3].type == V_CREATURE ? (int)args[3].num : -1;
        bool applied;
        return effects_apply(v, c, cond, args[2], by, at, &applied);
    }
    case CMD_REMOVE: {
        if (argc == 1) {
            int c = creature_arg(v, args[0], at);
            return c >= 0 && encounter_remove(v, c, at);
        }
        int cond = rules_condition(v->r, (int)args[0].num);
        int c = creature_arg(v, args[1], at);
        bool removed;
        if (c < 0 || !effects_remove(v, c, cond, at, &removed))
            return false;
        if (!removed)
            combat_say(v, "%s is not %s", v->creatures[c].name, program_string(v->p, (int)args[0].num));
        return true;
    }
    case CMD_PLACE: {
        int c = creature_arg(v, args[0], at);
        if (c < 0)
            return false;
        if (args[1].type == V_SQUARE)
            return grid_place(v, c, args[1].aux, (int32_t)args[1].num, at);
        return zones_place(v, c, (int)args[1].num, at);
    }
    case CMD_MOVE: {
        int c = creature_arg(v, args[0], at);
        if (c < 0)
            return false;
        if (args[1].type == V_WORD)
            return zones_place(v, c, (int)args[1].num, at);
        int walk = program_intern(v->p, "walk", 4);
        value moved;
        return grid_walk(v, c, args[1], value_nil(), walk, args + 2, argc - 2, &moved, at);
    }
    case CMD_WALL:
    case CMD_TERRAIN: {
        value a = args[0], b = argc > 1 ? args[1] : args[0];
        return grid_wall(v, a.aux, (int32_t)a.num, b.aux, (int32_t)b.num,
                         cmd == CMD_WALL ? CELL_BLOCKED : CELL_DIFFICULT, at);
    }
    case CMD_ZONE: {
        /* name, how many neighbours, the neighbours, traits... */
        int k = (int)args[1].num;
        return zones_declare(v, (int)args[0].num, args + 2, k, args + 2 + k, argc - 2 - k, at);
    }
    case CMD_JOIN:
        for (int i = 0; i + 1 < argc; i++) {
            int c = creature_arg(v, args[i], at);
            if (c < 0 || !zones_join(v, c, (int)args[argc - 1].num, at))
                return false;
        }
        return true;
    case CMD_ENGAGE: {
        int a = creature_arg(v, args[0], at), b = creature_arg(v, args[1], at);
        return a >= 0 && b >= 0 && zones_engage(v, a, b, at);
    }
    case CMD_FIGHT: return encounter_fight(v, (int)args[0].num, at);
    case CMD_DAMAGE:
    case CMD_HEAL: return play_damage(v, cmd == CMD_HEAL, args, argc, at);
    case CMD_EXPLAIN: combat_explain(v); return true;
    case CMD_HIDE:
    case CMD_REVEAL: {
        int c = creature_arg(v, args[0], at);
        return c >= 0 && hidden_set(v, c, cmd == CMD_HIDE, args + 1, argc - 1, at);
    }
    case CMD_CAN: {
        int c = creature_arg(v, args[0], at);
        if (c < 0)
            return false;
        int action = (int)args[argc - 1].num;
        refusal why = {{0}, {-1, {0}, -1}, false};
        bool ok;
        if (!act_can(v, c, action, args + 1, argc - 2, &why, &ok, at))
            return false;
        const char *name = program_string(v->p, v->r->actions[action].name);
        char target[128] = "";
        if (argc > 2 && args[1].type == V_CREATURE)
            snprintf(target, sizeof target, " %s", v->creatures[args[1].num].name);
        if (ok) {
            combat_print(v, "yes: %s can %s%s now", v->creatures[c].name, name, target);
        } else {
            char cite[160];
            combat_cite(v, &why.rule, cite, sizeof cite);
            combat_print(v, "no: %s cannot %s%s: %s%s%s%s", v->creatures[c].name, name, target, why.why,
                         cite[0] ? " (" : "", cite, cite[0] ? ")" : "");
        }
        return true;
    }
    default: return vm_error(v, at, "internal: unknown play command %d", cmd);
    }
}
