/* compile_cmd: play commands. Each top-level command becomes one chunk that
 * pushes the command's arguments in a fixed order and runs OP_PLAY; the
 * words of every command are checked here, so `fray check` finds a
 * misspelt command or a square that cannot be before anything runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/core/rules.h"
#include "runtime/core/commands.h"
#include "runtime/base/mem.h"
#include "lang/suggest.h"

/* --- arguments ------------------------------------------------------------------ */

/* A command argument: an expression, or a bare word nothing declares. */
/* `d4` lexes as dice; as a square it is column d, row 4. */
static bool square_node(const node *a, int32_t *x, int32_t *y)
{
    return a && (a->kind == AST_NAME || a->kind == AST_DICE) && square_parse(a->text, x, y);
}

/* Its static type is returned. */
static sty push_arg_taking(compiler *cc, const node *a, uint32_t takes)
{
    /* `d6` reads as a square too: it is one where a square may be given */
    bool squares = !takes || (takes & sty_values(TY_SQUARE));
    int32_t sx, sy;
    if (squares && a->kind == AST_DICE && square_node(a, &sx, &sy)) {
        emit_const(cc, value_square(sx, sy), a->sp);
        return TY_SQUARE;
    }
    if ((a->kind == AST_NAME || a->kind == AST_WORD) && !name_resolves(cc, a->text)) {
        int32_t x, y;
        bool square = square_parse(a->text, &x, &y);
        if (squares && square) {
            emit_const(cc, value_square(x, y), a->sp);
            return TY_SQUARE;
        }
        emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, comp_intern(cc, a->text)), a->sp);
        /* a square where neither a square nor a word is taken is said as one */
        return square && !(takes & sty_values(TY_WORD)) ? TY_SQUARE : TY_WORD;
    }
    return compile_expr(cc, a);
}

static sty push_arg(compiler *cc, const node *a)
{
    return push_arg_taking(cc, a, 0);
}

static void emit_play(compiler *cc, command_id cmd, int operand, span sp)
{
    if (operand > COMMAND_MAX_ARGS && cmd == CMD_ROLL_INITIATIVE)
        comp_error(cc, sp, "roll initiative takes at most %d rolls, not %d (the creatures not named roll their own)",
                   COMMAND_MAX_ARGS / 2, operand / 2);
    else if (operand > COMMAND_MAX_ARGS)
        comp_error(cc, sp, "one command takes at most %d arguments, not %d", COMMAND_MAX_ARGS, operand);
    emit_op(cc, OP_PLAY, sp);
    emit_byte(cc, (uint8_t)cmd, sp);
    emit_byte(cc, (uint8_t)(operand & 0xff), sp);
    emit_byte(cc, (uint8_t)((operand >> 8) & 0xff), sp);
}

/* A creature named in a command. */
static bool push_creature(compiler *cc, ccur *k, const char *what)
{
    const node *a = k->at;
    if (!a) {
        ccur_error(k, "expected %s", what);
        return false;
    }
    ccur_take(k);
    if (!cmd_creature_known(cc, a))
        return false;
    sty t = compile_expr(cc, a);
    if (t != TY_CREATURE && t != TY_ANY) {
        comp_error(cc, a->sp, "expected %s, not %s", what, sty_name(t));
        return false;
    }
    return true;
}

/* A name written as a square that is none (A0) is an error where it is;
   true if it was one. */
static bool not_a_square(compiler *cc, const node *a)
{
    const char *why = a && (a->kind == AST_NAME || a->kind == AST_WORD) ? square_unnamed(a->text) : NULL;
    if (why)
        comp_error(cc, a->sp, "%s is not a square of the map: %s", a->text, why);
    return why != NULL;
}

static bool push_square(compiler *cc, ccur *k)
{
    const node *a = k->at;
    int32_t x, y;
    if (!square_node(a, &x, &y)) {
        if (!not_a_square(cc, a))
            ccur_error(k, "expected a square, as in c4");
        return false;
    }
    ccur_take(k);
    emit_const(cc, value_square(x, y), a->sp);
    return true;
}

/* A word from a fixed list, pushed as a word. */
static bool push_choice(compiler *cc, ccur *k, const char *what, const char *const *words, int n)
{
    span at = k->at ? k->at->sp : k->end;
    int i = ccur_choice(k, what, words, n);
    if (i < 0)
        return false;
    emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, comp_intern(cc, words[i])), at);
    return true;
}

static void push_word(compiler *cc, const char *w, span at)
{
    emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, comp_intern(cc, w)), at);
}

/* A name that must be a declared thing of one kind; pushed as its word. */
static bool push_named(compiler *cc, ccur *k, const char *what, int (*lookup)(const rules *, int), decl_kind kind)
{
    const node *a = k->at;
    int name = ccur_name(k, what);
    if (name < 0)
        return false;
    if (lookup(cc->p->rules, name) < 0) {
        cmd_no_such(cc, a->sp, a->text, what, kind, kind);
        return false;
    }
    emit_const(cc, value_ref(V_WORD, HOME_PROGRAM, name), a->sp);
    return true;
}

/* `ACTION ARGS...` after an actor: the action's index, then its arguments.
 * A missing action is reported at the end of the command (`where`). A
 * command (not a statement of a body) is held to the action's target
 * clause too: its target named, and a creature (`actor` names who acts). */
static int push_action_args(compiler *cc, const node *action, const node *stop, span where, const char *actor,
                            bool command, int *index_out)
{
    *index_out = -1;
    if (!action || action->kind != AST_NAME) {
        span at = action ? action->sp : (span){where.end, where.end, where.source};
        comp_error(cc, at, "name the action, as in 'valeros: attack goblin_1'");
        return -1;
    }
    int id = comp_intern(cc, action->text);
    int ai = rules_action(cc->p->rules, id);
    if (ai < 0) {
        cmd_unknown_action(cc, action, actor);
        return -1;
    }
    int argc = 0;
    bool ok = true;
    const node *last = action;
    for (const node *a = action->next; a && a != stop; a = a->next) {
        if (a->kind == AST_SEP)
            continue;
        bool creature = cmd_arg_is_creature(cc, ai, argc, command);
        if (creature ? !cmd_creature_known(cc, a) : command && !cmd_arg_known(cc, a)) {
            ok = false;
        } else {
            sty t = push_arg_taking(cc, a, cmd_arg_takes(cc, ai, argc));
            if (!cmd_arg_kind(cc, ai, action, a, argc, command, t))
                ok = false;
        }
        argc++;
        last = a;
    }
    span end = {last->sp.end, last->sp.end, last->sp.source};
    if (!command || ok)
        ok = cmd_action_count(cc, ai, action, argc, command, end) && ok;
    if (!ok)
        return -1;
    *index_out = ai;
    return argc;
}

/* --- creatures -------------------------------------------------------------------- */

static void compile_creature(compiler *cc, const node *cmd)
{
    const decl *found = program_decl_at(cc->p, DK_CREATURE, cmd->sp);
    if (!found)
        return; /* pass 1 rejected it */
    rules *r = cc->p->rules;
    int ci = found->object;
    r_creature *t = &r->creatures[ci];
    if (t->settings)
        mem_free(t->settings, (size_t)t->nsettings * sizeof(r_setting));
    memset(t, 0, sizeof *t);
    t->name = found->name;
    t->from = (origin){program_decl_index(cc->p, found), cmd->sp, -1};
    t->count = found->nparams > 0 ? found->nparams : 1;
    t->display = t->side = t->tactic = -1;
    ccur k;
    ccur_init(&k, cc, cmd, cmd->list, NULL, command_usage[CMD_CREATURE]);
    while (!ccur_done(&k)) {
        const node *a = k.at;
        if (a->kind == AST_STRING) {
            ccur_take(&k);
            r->creatures[ci].display = comp_intern(cc, a->text);
        } else if (a->kind == AST_NAME && a->text[0] == 'x' && a->text[1] >= '1' && a->text[1] <= '9') {
            ccur_take(&k); /* the count, read in pass 1 */
        } else if (ccur_accept(&k, "side")) {
            int side = ccur_name(&k, "the creature's side");
            if (side >= 0)
                r->creatures[ci].side = rules_add_side(r, side);
        } else if (ccur_accept(&k, "hidden")) {
            r->creatures[ci].hidden = true;
        } else if (ccur_accept(&k, "tactic")) {
            const node *at = k.at;
            int tac = ccur_name(&k, "a tactic");
            if (tac >= 0) {
                int ti = rules_tactic(r, tac);
                if (ti < 0)
                    comp_error(cc, at->sp, "no tactic '%s'", at->text);
                r->creatures[ci].tactic = ti;
            }
        } else {
            ccur_end(&k);
        }
    }
    /* the block: one stat or resource per line */
    fctx fx = {.what = "creature"};
    for (const node *item = cmd->b ? cmd->b->list : NULL; item; item = item->next) {
        /* `item sword` reads as a declaration; here it sets a stat named item */
        const node *it = item;
        node as_setting, value_node;
        if (item->kind == AST_DECL && item->text && !item->b && !item->list && !item->a &&
            (item->op == DK_ITEM || item->op == DK_CHECK || item->op == DK_BONUS || item->op == DK_RELATION ||
             item->op == DK_TACTIC || item->op == DK_ENCOUNTER)) {
            value_node = (node){.kind = AST_NAME, .text = item->text, .sp = item->sp};
            as_setting = (node){
                .kind = AST_CLAUSE, .text = decl_kind_name((decl_kind)item->op), .list = &value_node, .sp = item->sp};
            it = &as_setting;
        }
        if (it->kind != AST_CLAUSE) {
            comp_error(cc, it->sp, "a creature's block sets stats, one per line: STAT VALUE");
            continue;
        }
        int w = comp_intern(cc, it->text);
        const decl *sd = program_find_decl(cc->p, DK_STAT, w);
        if (!sd)
            sd = program_find_decl(cc->p, DK_RESOURCE, w);
        if (!sd) {
            cmd_no_such(cc, it->a ? it->a->sp : it->sp, it->text, "stat or resource", DK_STAT, DK_RESOURCE);
            continue;
        }
        if (!it->list || (it->list->next && it->list->next->kind != AST_SEP)) {
            comp_error(cc, it->sp, "give %s one value", it->text);
            continue;
        }
        if (sd->kind == DK_STAT && stat_is_derived(cc, sd)) {
            comp_error(cc, it->sp, "%s is derived from its formula; a creature cannot set it", it->text);
            continue;
        }
        r_setting s = {.stat = program_decl_index(cc->p, sd)};
        sty want = sd->kind == DK_STAT ? (sty)sd->type : TY_NUM;
        if (want == TY_ENUM || want == TY_ITEM)
            want = TY_ANY;
        if (!rexpr_of(cc, &fx, it->list, want, it->text, &s.value))
            continue;
        r_creature *c = &cc->p->rules->creatures[ci];
        r_setting *g = mem_realloc(c->settings, (size_t)c->nsettings * sizeof(r_setting),
                                   (size_t)(c->nsettings + 1) * sizeof(r_setting));
        if (!g) {
            cc->oom = true;
            return;
        }
        c->settings = g;
        c->settings[c->nsettings++] = s;
    }
    emit_play(cc, CMD_CREATURE, ci, cmd->sp);
}

/* --- the commands ------------------------------------------------------------------- */

static int cmd_begin_end(compiler *cc, const node *cmd, bool end)
{
    static const char *const begins[] = {"encounter", "scene", "quest", "arc"};
    static const char *const ends[] = {"turn", "encounter", "scene", "quest", "arc"};
    ccur k;
    ccur_init(&k, cc, cmd, cmd->list, NULL, command_usage[end ? CMD_END : CMD_BEGIN]);
    bool ok = end ? push_choice(cc, &k, "what ends", ends, 5) : push_choice(cc, &k, "what begins", begins, 4);
    if (!ok)
        return 0;
    /* `begin encounter by NAME`: who started the fight (initiator()) */
    if (!end && ccur_accept(&k, "by")) {
        if (!push_creature(cc, &k, "the creature that starts the fight"))
            return 0;
        ccur_end(&k);
        return 2;
    }
    ccur_end(&k);
    return 1;
}

static int cmd_roll_initiative(compiler *cc, const node *cmd)
{
    ccur k;
    ccur_init(&k, cc, cmd, cmd->list, NULL, command_usage[CMD_ROLL_INITIATIVE]);
    int n = 0;
    while (!ccur_done(&k)) {
        ccur_skip_commas(&k);
        if (ccur_done(&k))
            break;
        if (!push_creature(cc, &k, "the creature whose roll is given"))
            return n;
        fctx none = {0};
        rexpr e;
        const node *at = k.at;
        if (!at || at->kind == AST_SEP) {
            /* no number: the creature rolls its own */
            emit_op(cc, OP_NIL, cmd->sp);
            n += 2;
            ccur_skip_commas(&k);
            continue;
        }
        ccur_take(&k);
        if (rexpr_of(cc, &none, at, TY_NUM, "the number rolled", &e)) {
            if (e.kind == REXPR_CONST)
                emit_const(cc, e.v, at->sp);
            else
                compile_expr(cc, at);
        }
        n += 2;
        ccur_skip_commas(&k);
    }
    return n;
}

static int cmd_show(compiler *cc, const node *cmd)
{
    int n = 0;
    for (const node *a = cmd->list; a; a = a->next) {
        if (a->kind == AST_SEP)
            continue;
        push_arg(cc, a);
        n++;
    }
    return n;
}

static int compile_act(compiler *cc, const node *cmd, bool as_command)
{
    /* the actor: a creature by name, or any expression in a body */
    int id = comp_intern(cc, cmd->text);
    node actor = {.kind = AST_NAME, .text = cmd->text, .sp = cmd->a ? cmd->a->sp : cmd->sp};
    if (!as_command || cmd_creature_known(cc, &actor))
        compile_expr(cc, &actor);
    else
        emit_op_u16(cc, OP_CREATURE, id, cmd->sp);
    int action;
    int argc = push_action_args(cc, cmd->list, NULL, cmd->sp, cmd->text, as_command, &action);
    if (argc < 0)
        return -1;
    emit_op_u16(cc, OP_ACT, action, cmd->sp);
    emit_byte(cc, (uint8_t)argc, cmd->sp);
    return 0;
}

void compile_act_stmt(compiler *cc, const node *s)
{
    if (compile_act(cc, s, false) == 0)
        emit_op(cc, OP_POP, s->sp);
}

/* `damage NAME N [KIND]`, `heal NAME N`: checked against what the rules
   declare for them (a resource's `damage by`/`heal by`), on the user's line.
   Pushed: the creature, the amount, the kind (or nil). */
static bool cmd_damage(compiler *cc, ccur *k, const node *cmd, bool heal)
{
    const char *what = heal ? "healing" : "damage";
    const r_resource *res = rules_damage_resource(cc->p, heal);
    if (!res) {
        /* the GM can still change a stat by hand: name the tracker's first column */
        const r_encounter *e = &cc->p->rules->encounter;
        const char *stat = e->ntrack > 0 ? program_string(cc->p, cc->p->decls[e->track[0]].name) : "STAT";
        const char *who = k->at && k->at->kind == AST_NAME ? k->at->text : "NAME";
        comp_error(cc, cmd->sp,
                   "these rules say nothing of %s (no resource says '%s by PROCEDURE'): set %s.%s %s= N instead", what,
                   heal ? "heal" : "damage", who, stat, heal ? "+" : "-");
        return false;
    }
    /* `damage wolf_2 -3` reads as one subtraction: a negative amount */
    const node *first = k->at;
    if (first && first->kind == AST_BINARY && first->op == '-' && first->a && first->a->kind == AST_NAME &&
        name_resolves(cc, first->a->text)) {
        span minus = {first->a->sp.end + 1, first->b->sp.end, first->sp.source};
        comp_error(cc, minus, "the amount %s is a whole number, 0 or more", heal ? "healed" : "of damage");
        return false;
    }
    if (!push_creature(cc, k, heal ? "the creature healed" : "the creature that takes the damage"))
        return false;
    const node *at = k->at;
    if (!at || at->kind == AST_SEP) {
        ccur_error(k, "expected the amount, as in '%s'", heal ? "heal NAME 5" : "damage NAME 7");
        return false;
    }
    ccur_take(k);
    fctx none = {0};
    rexpr n;
    if (!rexpr_of(cc, &none, at, TY_NUM, heal ? "the amount healed" : "the amount of damage", &n))
        return false;
    if (n.kind == REXPR_CONST) {
        if (n.v.type != V_INT || n.v.aux != 1 || n.v.num < 0) {
            comp_error(cc, at->sp, "the amount %s is a whole number, 0 or more", heal ? "healed" : "of damage");
            return false;
        }
        emit_const(cc, n.v, at->sp);
    } else {
        compile_expr(cc, at);
    }
    if (heal || ccur_done(k)) {
        emit_op(cc, OP_NIL, cmd->sp);
        ccur_end(k);
        return true;
    }
    const node *kn = k->at;
    int kind = ccur_name(k, "the kind of damage");
    if (kind < 0)
        return false;
    if (res->nkinds == 0) {
        comp_error(cc, kn->sp, "these rules have no kinds of damage: damage NAME N");
        return false;
    }
    if (rules_damage_kind(res, kind) < 0) {
        char known[256];
        size_t len = 0;
        suggestion sg;
        suggest_init(&sg, kn->text);
        for (int i = 0; i < res->nkinds && len < sizeof known; i++) {
            const char *w = program_string(cc->p, res->kinds[i]);
            suggest_consider(&sg, w, 0);
            len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", w);
        }
        if (sg.found)
            comp_error(cc, kn->sp, "no kind of damage '%s' in these rules; did you mean '%s'? (they know: %s)",
                       kn->text, sg.best, known);
        else
            comp_error(cc, kn->sp, "no kind of damage '%s' in these rules (they know: %s)", kn->text, known);
        return false;
    }
    push_word(cc, kn->text, kn->sp);
    ccur_end(k);
    return true;
}

/* Commands written as a word and arguments (`next`, `place a at c4`). */
static void clause_command(compiler *cc, const node *cmd)
{
    command_id id = CMD_COUNT;
    for (int i = 0; i < CMD_COUNT; i++)
        if (strcmp(command_words[i], cmd->text) == 0)
            id = (command_id)i;
    if (id == CMD_COUNT || id == CMD_CREATURE || id == CMD_ACT || id == CMD_BEGIN || id == CMD_END || id == CMD_SHOW ||
        id == CMD_ROLL_INITIATIVE) {
        cmd_unknown_word(cc, cmd);
        return;
    }
    if (cmd->b) {
        comp_error(cc, cmd->b->sp, "'%s' takes no block", cmd->text);
        return;
    }
    ccur k;
    ccur_init(&k, cc, cmd, cmd->list, NULL, command_usage[id]);
    const rules *r = cc->p->rules;
    int argc = 0;
    switch (id) {
    case CMD_NEXT:
    case CMD_DELAY:
    case CMD_EXPLAIN: ccur_end(&k); break;
    case CMD_RESUME:
        argc = push_creature(cc, &k, "the creature that acts now");
        ccur_end(&k);
        break;
    case CMD_HOLD: {
        const char *who = k.at && k.at->text ? k.at->text : "NAME";
        if (!push_creature(cc, &k, "the creature that holds an action"))
            return;
        const node *on = k.at;
        while (on && !(on->kind == AST_NAME && strcmp(on->text, "on") == 0))
            on = on->next;
        if (!on || !on->next || on->next->kind != AST_CALL) {
            ccur_error(&k, "say when: hold NAME ACTION ARGS on EVENT(...)");
            return;
        }
        int action;
        int n = push_action_args(cc, k.at, on, cmd->sp, who, true, &action);
        if (n < 0)
            return;
        emit_const(cc, value_int(action), cmd->sp);
        emit_const(cc, value_int(n), cmd->sp);
        const node *pat = on->next;
        int ev = rules_event(cc->p->rules, comp_intern(cc, pat->text));
        if (ev < 0) {
            cc->oom = true;
            return;
        }
        int np = 0;
        for (const node *p = pat->list; p; p = p->next, np++) {
            /* `_` matches anything; any other name must be known, so that
               a misspelt creature is an error, not a wildcard */
            if (p->kind == AST_NAME && strcmp(p->text, "_") == 0)
                emit_op(cc, OP_NIL, p->sp);
            else
                compile_expr(cc, p);
        }
        emit_const(cc, value_int(ev), pat->sp);
        emit_const(cc, value_int(np), pat->sp);
        argc = 1 + n + 2 + np + 2;
        if (on->next->next)
            comp_error(cc, on->next->next->sp, "unexpected words after the event");
        break;
    }
    case CMD_FORFEIT:
    case CMD_REORDER: {
        static const char *const where[] = {"after", "before"};
        if (!push_creature(cc, &k, "the creature that moves") || !push_choice(cc, &k, "where it moves", where, 2) ||
            !push_creature(cc, &k, "the creature it moves next to"))
            return;
        argc = 3;
        ccur_end(&k);
        break;
    }
    case CMD_ANSWER: {
        const node *at = k.at;
        int name = ccur_name(&k, "the ruling");
        if (name < 0)
            return;
        int ri = rules_ruling(r, name);
        if (ri < 0) {
            cmd_no_such(cc, at->sp, at->text, "ruling", DK_RULING, DK_RULING);
            return;
        }
        emit_const(cc, value_int(ri), at->sp);
        const node *v = ccur_take(&k);
        if (!v) {
            ccur_error(&k, "expected the answer");
            return;
        }
        if (v->kind == AST_NAME && (strcmp(v->text, "yes") == 0 || strcmp(v->text, "no") == 0))
            emit_op(cc, strcmp(v->text, "yes") == 0 ? OP_TRUE : OP_FALSE, v->sp);
        else
            push_arg(cc, v);
        if (ccur_accept(&k, "for")) {
            if (!push_creature(cc, &k, "the creature the answer is for"))
                return;
        } else {
            emit_op(cc, OP_NIL, cmd->sp);
        }
        ccur_end(&k);
        argc = 3;
        break;
    }
    case CMD_POLICY: {
        static const char *const choices[] = {"take", "decline"};
        if (ccur_accept(&k, "reactions")) {
            emit_op(cc, OP_NIL, cmd->sp);
        } else if (!push_named(cc, &k, "trigger", rules_trigger, DK_TRIGGER)) {
            return;
        }
        if (!push_choice(cc, &k, "whether reactions are taken", choices, 2))
            return;
        ccur_end(&k);
        argc = 2;
        break;
    }
    case CMD_APPLY: {
        if (!push_named(cc, &k, "condition", rules_condition, DK_CONDITION) || !ccur_expect(&k, "to") ||
            !push_creature(cc, &k, "the creature"))
            return;
        if (ccur_accept(&k, "for")) {
            fctx none = {0};
            rexpr d;
            const node *at = k.at;
            if (!ccur_duration(&k, &none, &d))
                return;
            if (d.kind == REXPR_CONST)
                emit_const(cc, d.v, at->sp);
            else
                compile_expr(cc, at);
        } else {
            emit_op(cc, OP_NIL, cmd->sp);
        }
        if (ccur_accept(&k, "by")) {
            if (!push_creature(cc, &k, "the creature that caused it"))
                return;
        } else {
            emit_op(cc, OP_NIL, cmd->sp);
        }
        ccur_end(&k);
        argc = 4;
        break;
    }
    case CMD_REMOVE:
        /* `remove NAME`: a creature leaves play; a condition alone still
           asks for `from NAME` */
        if (k.at && !k.at->next && k.at->kind == AST_NAME &&
            !program_find_decl(cc->p, DK_CONDITION, comp_intern(cc, k.at->text))) {
            if (!push_creature(cc, &k, "the creature that leaves play"))
                return;
            ccur_end(&k);
            argc = 1;
            break;
        }
        if (!push_named(cc, &k, "condition", rules_condition, DK_CONDITION) || !ccur_expect(&k, "from") ||
            !push_creature(cc, &k, "the creature"))
            return;
        ccur_end(&k);
        argc = 2;
        break;
    case CMD_PLACE:
    case CMD_MOVE: {
        if (!push_creature(cc, &k, "the creature"))
            return;
        if (ccur_accept(&k, id == CMD_PLACE ? "at" : "to") || (id == CMD_PLACE && ccur_is(&k, "in"))) {
            bool zone = ccur_accept(&k, "in");
            if (zone) {
                int z = ccur_name(&k, "a zone");
                if (z < 0)
                    return;
                push_word(cc, program_string(cc->p, z), cmd->sp);
            } else if (k.at && k.at->kind == AST_NAME && !square_node(k.at, &(int32_t){0}, &(int32_t){0})) {
                /* on a grid, a square that is none; under zones, a zone may be called A0 */
                if (cc->p->rules->space.kind != SPACE_ZONES && not_a_square(cc, k.at))
                    return;
                if (cc->p->rules->space.kind == SPACE_GRID) {
                    comp_error(cc, k.at->sp, "expected a square, as in c4, not '%s': these rules use a grid, not zones",
                               k.at->text);
                    return;
                }
                int z = ccur_name(&k, "a square or zone");
                push_word(cc, program_string(cc->p, z), cmd->sp);
            } else if (!push_square(cc, &k)) {
                return;
            }
        } else {
            ccur_error(&k, "expected '%s'", id == CMD_PLACE ? "at SQUARE' or 'in ZONE" : "to");
            return;
        }
        argc = 2;
        if (id == CMD_MOVE && ccur_accept(&k, "via")) {
            while (!ccur_done(&k)) {
                ccur_skip_commas(&k);
                if (!push_square(cc, &k))
                    return;
                argc++;
                ccur_skip_commas(&k);
            }
        }
        ccur_end(&k);
        break;
    }
    case CMD_WALL:
    case CMD_TERRAIN: {
        if (id == CMD_TERRAIN && !ccur_expect(&k, "difficult"))
            return;
        if (!push_square(cc, &k))
            return;
        if (ccur_accept(&k, "to")) {
            if (!push_square(cc, &k))
                return;
            argc = 2;
        } else {
            argc = 1;
        }
        ccur_end(&k);
        break;
    }
    case CMD_ZONE: {
        int z = ccur_name(&k, "the zone's name");
        if (z < 0)
            return;
        push_word(cc, program_string(cc->p, z), cmd->sp);
        /* pushed: the name, how many neighbours, each neighbour, the traits */
        /* the neighbours are counted first: their number goes before them */
        int nnext = 0;
        if (ccur_accept(&k, "next")) {
            if (!ccur_expect(&k, "to"))
                return;
            ccur names = k;
            while (!ccur_done(&k) && !ccur_is(&k, "with")) {
                ccur_skip_commas(&k);
                if (ccur_name(&k, "a zone next to it") < 0)
                    return;
                nnext++;
                ccur_skip_commas(&k);
            }
            if (nnext == 0) {
                ccur_error(&k, "expected a zone next to it");
                return;
            }
            emit_const(cc, value_int(nnext), cmd->sp);
            for (int i = 0; i < nnext; i++) {
                ccur_skip_commas(&names);
                push_word(cc, names.at->text, names.at->sp);
                ccur_name(&names, "a zone next to it");
            }
        } else {
            emit_const(cc, value_int(0), cmd->sp);
        }
        argc = 2 + nnext;
        if (ccur_accept(&k, "with")) {
            /* its traits and features, as words */
            while (!ccur_done(&k)) {
                ccur_skip_commas(&k);
                int t = ccur_name(&k, "a trait or feature");
                if (t < 0)
                    return;
                push_word(cc, program_string(cc->p, t), cmd->sp);
                argc++;
                ccur_skip_commas(&k);
            }
        }
        ccur_end(&k);
        break;
    }
    case CMD_JOIN: {
        while (!ccur_done(&k) && !ccur_is(&k, "to")) {
            ccur_skip_commas(&k);
            if (!push_creature(cc, &k, "a creature"))
                return;
            argc++;
            ccur_skip_commas(&k);
        }
        if (!ccur_expect(&k, "to"))
            return;
        int g = ccur_name(&k, "the group's name");
        if (g < 0)
            return;
        push_word(cc, program_string(cc->p, g), cmd->sp);
        argc++;
        ccur_end(&k);
        break;
    }
    case CMD_ENGAGE:
        if (!push_creature(cc, &k, "a creature") || !ccur_expect(&k, "with") ||
            !push_creature(cc, &k, "the creature it engages"))
            return;
        ccur_end(&k);
        argc = 2;
        break;
    case CMD_FIGHT: {
        int64_t n = 0;
        if (!ccur_done(&k)) {
            /* `2 rounds` is one quantity */
            const node *q = ccur_take(&k);
            if (!q || q->kind != AST_QTY || (strcmp(q->text, "round") && strcmp(q->text, "rounds")) || q->den != 1) {
                comp_error(cc, q ? q->sp : cmd->sp, "say how many rounds, as in 'fight 2 rounds'");
                return;
            }
            n = q->num;
            if (n < 1 || n > INT32_MAX) {
                comp_error(cc, q->sp, "fight N rounds takes N from 1 to %d, not %lld", INT32_MAX, (long long)n);
                return;
            }
        }
        ccur_end(&k);
        emit_const(cc, value_int(n), cmd->sp);
        argc = 1;
        break;
    }
    case CMD_HIDE:
    case CMD_REVEAL:
        if (!push_creature(cc, &k, "the creature"))
            return;
        for (argc = 1; !ccur_done(&k); argc++) {
            const node *a = k.at;
            int name = ccur_name(&k, "a stat");
            if (name < 0)
                return;
            const decl *sd = program_find_decl(cc->p, DK_STAT, name);
            if (!sd)
                sd = program_find_decl(cc->p, DK_RESOURCE, name);
            if (!sd) {
                cmd_no_such(cc, a->sp, a->text, "stat or resource", DK_STAT, DK_RESOURCE);
                return;
            }
            emit_const(cc, value_int(program_decl_index(cc->p, sd)), a->sp);
        }
        break;
    case CMD_CAN: {
        const char *who = k.at && k.at->text ? k.at->text : "NAME";
        if (!push_creature(cc, &k, "the creature"))
            return;
        int action;
        int n = push_action_args(cc, k.at, NULL, cmd->sp, who, true, &action);
        if (n < 0)
            return;
        emit_const(cc, value_int(action), cmd->sp);
        argc = n + 2;
        break;
    }
    case CMD_DAMAGE:
    case CMD_HEAL:
        if (!cmd_damage(cc, &k, cmd, id == CMD_HEAL))
            return;
        argc = 3;
        break;
    default: return;
    }
    emit_play(cc, id, argc, cmd->sp);
}

void compile_command(compiler *cc, const node *cmd)
{
    fn_state fs;
    char name[64];
    snprintf(name, sizeof name, "command %zu", cc->p->ncommands + 1);
    fn_begin(cc, &fs, CHUNK_COMMAND, name, cmd->sp);
    if (!fs.c)
        return;
    fs.top_level = true;
    switch ((ast_kind)cmd->kind) {
    case AST_DECL: compile_creature(cc, cmd); break;
    case AST_COMMAND: {
        int argc = 0;
        command_id id = CMD_SHOW;
        switch ((decl_kind)cmd->op) {
        case DK_BEGIN: id = CMD_BEGIN, argc = cmd_begin_end(cc, cmd, false); break;
        case DK_END: id = CMD_END, argc = cmd_begin_end(cc, cmd, true); break;
        case DK_ROLL_INITIATIVE: id = CMD_ROLL_INITIATIVE, argc = cmd_roll_initiative(cc, cmd); break;
        default: argc = cmd_show(cc, cmd); break;
        }
        emit_play(cc, id, argc, cmd->sp);
        break;
    }
    case AST_ACT:
        if (compile_act(cc, cmd, true) == 0)
            emit_op(cc, OP_POP, cmd->sp);
        break;
    case AST_CLAUSE: clause_command(cc, cmd); break;
    default: compile_stmt(cc, cmd); break;
    }
    /* locals of a command die with it */
    while (fs.nlocals > 0) {
        emit_op(cc, OP_POP, cmd->sp);
        fs.nlocals--;
    }
    int id = fn_end(cc, &fs, cmd->sp);
    if (id < 0)
        return;
    int *grown = mem_grow(cc->p->commands, sizeof(int), &cc->p->commands_cap, cc->p->ncommands + 1);
    if (!grown) {
        cc->oom = true;
        return;
    }
    cc->p->commands = grown;
    cc->p->commands[cc->p->ncommands++] = id;
}
