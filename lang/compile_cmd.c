/* compile_cmd: play commands. Each top-level command becomes one chunk that
 * pushes the command's arguments into the slots commands.def lays out for
 * its family, by name, and runs OP_PLAY; one compile_ function per family,
 * from a table generated from commands.def. The words of every command are
 * checked here, so `fray check` finds a misspelt command or a square that
 * cannot be before anything runs. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang/decl.h"
#include "lang/parser.h"
#include "runtime/core/rules.h"
#include "runtime/core/commands.h"
#include "runtime/dice/forced.h"
#include "runtime/base/mem.h"
#include "runtime/base/suggest.h"

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
    /* where a word is taken, and in a script's commands (where no creature
       is at hand to read a stat of), a bare name is a word even when a
       stat has the name: the stat is `kyra.fight`, the word `fight` */
    bool word = (takes & sty_values(TY_WORD)) || (cc->fn && cc->fn->top_level);
    if ((a->kind == AST_NAME || a->kind == AST_WORD) &&
        (!name_resolves(cc, a->text) || (word && name_only_a_stat(cc, a->text)))) {
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

static void emit_play_op(compiler *cc, command_id cmd, int operand, span sp)
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

/* The creature it describes, then OP_PLAY with its index as the operand. */
static void compile_creature_type(compiler *cc, const node *cmd)
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
    emit_play_op(cc, CMD_CREATURE, ci, cmd->sp);
}

/* --- the slots of a command's arguments ------------------------------------------------ */

/* A command being compiled: its words, and the arguments pushed so far,
   slot by slot in the order its family's layout gives (commands.def). */
typedef struct {
    compiler *cc;
    ccur k;
    const node *cmd;
    command_id id;
    const command_layout *layout;
    int next; /* the first slot not yet filled */
    int argc;
    int filled[COMMAND_MAX_SLOTS];
    int said[COMMAND_MAX_SLOTS]; /* what a count slot says */
    bool disordered;
} command_build;

static bool slot_repeats(const command_build *b, int slot)
{
    slot_kind kind = b->layout->slots[slot].kind;
    return kind == SLOT_REST || kind == SLOT_LIST;
}

/* n values were pushed for this slot: it must come after the last one
   filled (a REST or LIST may be filled again), and the slots passed over
   must be ones that can be empty. */
static void put(command_build *b, int slot, int n)
{
    if (slot >= b->layout->nslots || slot < b->next - 1 || (slot == b->next - 1 && !slot_repeats(b, slot)))
        b->disordered = true;
    for (int s = b->next; s < slot && s < b->layout->nslots; s++)
        if (b->layout->slots[s].kind == SLOT_ONE)
            b->disordered = true;
    if (slot >= b->next)
        b->next = slot + 1;
    if (slot < COMMAND_MAX_SLOTS)
        b->filled[slot] += n;
    b->argc += n;
}

/* A count slot: the length of a LIST, pushed as a number. */
static void put_count(command_build *b, int slot, int n, span at)
{
    emit_const(b->cc, value_int(n), at);
    b->said[slot] = n;
    put(b, slot, 1);
}

/* Whether every slot holds what the layout says it holds. */
static bool slots_complete(const command_build *b)
{
    for (int s = 0; s < b->layout->nslots; s++) {
        const command_slot *sl = &b->layout->slots[s];
        int n = b->filled[s];
        if ((sl->kind == SLOT_ONE && n != 1) || (sl->kind == SLOT_OPT && n > 1) ||
            (sl->kind == SLOT_LIST && n != b->said[sl->count]))
            return false;
    }
    return !b->disordered;
}

static void emit_play(command_build *b)
{
    if (!slots_complete(b))
        comp_error(b->cc, b->cmd->sp, "internal: '%s' is given its arguments otherwise than commands.def lays them out",
                   command_words[b->id]);
    emit_play_op(b->cc, b->id, b->argc, b->cmd->sp);
}

/* --- the commands ------------------------------------------------------------------- */

static bool compile_creature(command_build *b)
{
    compile_creature_type(b->cc, b->cmd);
    return false; /* its OP_PLAY names the creature, not arguments */
}

/* `encounter`, or a period the rules declare (pushed as its word); else
   what the rules could begin or end, with the closest. */
static bool push_span(command_build *b, const char *what, bool turn)
{
    const node *a = b->k.at;
    const char *w = a && (a->kind == AST_NAME || a->kind == AST_WORD) ? a->text : NULL;
    if (w && (strcmp(w, "encounter") == 0 || (turn && strcmp(w, "turn") == 0))) {
        static const char *const words[] = {"turn", "encounter"};
        return push_choice(b->cc, &b->k, what, words + !turn, 2 - !turn);
    }
    if (w && rules_period(b->cc->p->rules, program_find_string(b->cc->p, w)) >= 0) {
        ccur_take(&b->k);
        push_word(b->cc, w, a->sp);
        return true;
    }
    if (!w) {
        ccur_error(&b->k, "expected %s: %sencounter or a period the rules declare", what, turn ? "turn, " : "");
        b->k.at = NULL;
        return false;
    }
    comp_period_unknown(b->cc, a->sp, w);
    return false;
}

static bool compile_begin(command_build *b)
{
    if (!push_span(b, "what begins", false))
        return false;
    put(b, ARG_BEGIN_WHAT, 1);
    /* `begin encounter by NAME`: who started the fight (initiator()) */
    if (ccur_accept(&b->k, "by")) {
        if (!push_creature(b->cc, &b->k, "the creature that starts the fight"))
            return false;
        put(b, ARG_BEGIN_BY, 1);
    }
    ccur_end(&b->k);
    return true;
}

static bool compile_end(command_build *b)
{
    if (!push_span(b, "what ends", true))
        return false;
    put(b, ARG_END_WHAT, 1);
    ccur_end(&b->k);
    return true;
}

/* The number a player rolled for a creature, or nil: it rolls its own. */
static void push_rolled(command_build *b)
{
    const node *at = b->k.at;
    if (!at || at->kind == AST_SEP) {
        emit_op(b->cc, OP_NIL, b->cmd->sp);
        return;
    }
    ccur_take(&b->k);
    fctx none = {0};
    rexpr e;
    if (rexpr_of(b->cc, &none, at, TY_NUM, "the number rolled", &e)) {
        if (e.kind == REXPR_CONST)
            emit_const(b->cc, e.v, at->sp);
        else
            compile_expr(b->cc, at);
    }
}

/* Pushed: each creature named and its roll, as pairs. */
static bool compile_roll_initiative(command_build *b)
{
    while (!ccur_done(&b->k)) {
        ccur_skip_commas(&b->k);
        if (ccur_done(&b->k))
            break;
        if (!push_creature(b->cc, &b->k, "the creature whose roll is given"))
            return false;
        push_rolled(b);
        put(b, ARG_ROLL_INITIATIVE_GIVEN, 2);
        ccur_skip_commas(&b->k);
    }
    return true;
}

static bool compile_show(command_build *b)
{
    for (const node *a = b->cmd->list; a; a = a->next) {
        if (a->kind == AST_SEP)
            continue;
        push_arg(b->cc, a);
        put(b, ARG_SHOW_WHAT, 1);
    }
    return true;
}

static bool compile_bare(command_build *b)
{
    ccur_end(&b->k);
    return true;
}

static bool compile_next(command_build *b)
{
    return compile_bare(b);
}

static bool compile_delay(command_build *b)
{
    return compile_bare(b);
}

static bool compile_explain(command_build *b)
{
    return compile_bare(b);
}

static int compile_action(compiler *cc, const node *cmd, bool as_command)
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
    if (compile_action(cc, s, false) == 0)
        emit_op(cc, OP_POP, s->sp);
}

static bool compile_act(command_build *b)
{
    if (compile_action(b->cc, b->cmd, true) == 0)
        emit_op(b->cc, OP_POP, b->cmd->sp);
    return false; /* an action runs OP_ACT, not OP_PLAY */
}

static bool compile_resume(command_build *b)
{
    if (!push_creature(b->cc, &b->k, "the creature that acts now"))
        return false;
    put(b, ARG_RESUME_WHO, 1);
    ccur_end(&b->k);
    return true;
}

/* `on EVENT(NAMES...)`: the event's pattern, the event, the pattern's length. */
static bool push_hold_event(command_build *b, const node *pat)
{
    compiler *cc = b->cc;
    int ev = rules_event(cc->p->rules, comp_intern(cc, pat->text));
    if (ev < 0) {
        cc->oom = true;
        return false;
    }
    int np = 0;
    for (const node *p = pat->list; p; p = p->next, np++) {
        /* `_` matches anything; any other name must be known, so that
           a misspelt creature is an error, not a wildcard */
        if (p->kind == AST_NAME && strcmp(p->text, "_") == 0)
            emit_op(cc, OP_NIL, p->sp);
        else
            compile_expr(cc, p);
        put(b, ARG_HOLD_PATTERN, 1);
    }
    emit_const(cc, value_int(ev), pat->sp);
    put(b, ARG_HOLD_EVENT, 1);
    put_count(b, ARG_HOLD_NPATTERN, np, pat->sp);
    return true;
}

static bool compile_hold(command_build *b)
{
    compiler *cc = b->cc;
    ccur *k = &b->k;
    const char *who = k->at && k->at->text ? k->at->text : "NAME";
    if (!push_creature(cc, k, "the creature that holds an action"))
        return false;
    put(b, ARG_HOLD_WHO, 1);
    const node *on = k->at;
    while (on && !(on->kind == AST_NAME && strcmp(on->text, "on") == 0))
        on = on->next;
    if (!on || !on->next || on->next->kind != AST_CALL) {
        ccur_error(k, "say when: hold NAME ACTION ARGS on EVENT(...)");
        return false;
    }
    int action;
    int n = push_action_args(cc, k->at, on, b->cmd->sp, who, true, &action);
    if (n < 0)
        return false;
    put(b, ARG_HOLD_ARGS, n);
    emit_const(cc, value_int(action), b->cmd->sp);
    put(b, ARG_HOLD_ACTION, 1);
    put_count(b, ARG_HOLD_NARGS, n, b->cmd->sp);
    if (!push_hold_event(b, on->next))
        return false;
    if (on->next->next)
        comp_error(cc, on->next->next->sp, "unexpected words after the event");
    return true;
}

/* `forfeit|reorder NAME after|before NAME` */
static bool compile_reorder(command_build *b)
{
    static const char *const where[] = {"after", "before"};
    if (!push_creature(b->cc, &b->k, "the creature that moves"))
        return false;
    put(b, ARG_REORDER_WHO, 1);
    if (!push_choice(b->cc, &b->k, "where it moves", where, 2))
        return false;
    put(b, ARG_REORDER_WHERE, 1);
    if (!push_creature(b->cc, &b->k, "the creature it moves next to"))
        return false;
    put(b, ARG_REORDER_NEXT_TO, 1);
    ccur_end(&b->k);
    return true;
}

/* The answer: yes and no as booleans, anything else as an argument. */
/* An answer written as a value the ruling cannot take, said at the value:
   `answer flanked maybe` for a yes or no. (A name that means something is
   its value, checked when the command runs.) */
static bool answer_written_fits(compiler *cc, const r_ruling *rl, const node *v)
{
    bool word = v->kind == AST_NAME && !name_resolves(cc, v->text);
    bool yes_no = v->kind == AST_NAME && (!strcmp(v->text, "yes") || !strcmp(v->text, "no"));
    const char *name = program_string(cc->p, rl->name);
    if (rl->answer == ANSWER_YES_NO && !yes_no && (word || v->kind == AST_INT || v->kind == AST_STRING)) {
        comp_error(cc, v->sp, "ruling %s is answered yes or no, not %s", name,
                   v->kind == AST_INT ? "a number" : v->text);
        return false;
    }
    if (rl->answer == ANSWER_NUMBER && (word || yes_no || v->kind == AST_STRING)) {
        comp_error(cc, v->sp, "ruling %s is answered with a number, not %s", name, v->text);
        return false;
    }
    if (rl->nchoices && (word || v->kind == AST_STRING) && rules_choice(cc->p, rl, v->text) < 0) {
        text_buf list;
        text_init(&list);
        rules_choices_text(cc->p, rl, &list);
        comp_error(cc, v->sp, "ruling %s is answered with one of %s, not %s", name, list.s, v->text);
        text_free(&list);
        return false;
    }
    return true;
}

static bool push_answer(command_build *b, int ruling)
{
    const node *v = ccur_take(&b->k);
    if (!v) {
        ccur_error(&b->k, "expected the answer");
        return false;
    }
    if (!answer_written_fits(b->cc, &b->cc->p->rules->rulings[ruling], v))
        return false;
    if (v->kind == AST_NAME && (strcmp(v->text, "yes") == 0 || strcmp(v->text, "no") == 0))
        emit_op(b->cc, strcmp(v->text, "yes") == 0 ? OP_TRUE : OP_FALSE, v->sp);
    else
        push_arg(b->cc, v);
    return true;
}

static bool compile_answer(command_build *b)
{
    compiler *cc = b->cc;
    const node *at = b->k.at;
    int name = ccur_name(&b->k, "the ruling");
    if (name < 0)
        return false;
    int ri = rules_ruling(cc->p->rules, name);
    if (ri < 0) {
        cmd_no_such(cc, at->sp, at->text, "ruling", DK_RULING, DK_RULING);
        return false;
    }
    emit_const(cc, value_int(ri), at->sp);
    put(b, ARG_ANSWER_RULING, 1);
    if (!push_answer(b, ri))
        return false;
    put(b, ARG_ANSWER_VALUE, 1);
    if (ccur_accept(&b->k, "for")) {
        if (!push_creature(cc, &b->k, "the creature the answer is for"))
            return false;
    } else {
        emit_op(cc, OP_NIL, b->cmd->sp);
    }
    put(b, ARG_ANSWER_FOR, 1);
    ccur_end(&b->k);
    return true;
}

static bool compile_policy(command_build *b)
{
    static const char *const choices[] = {"take", "decline"};
    if (ccur_accept(&b->k, "reactions")) {
        emit_op(b->cc, OP_NIL, b->cmd->sp);
    } else if (!push_named(b->cc, &b->k, "trigger", rules_trigger, DK_TRIGGER)) {
        return false;
    }
    put(b, ARG_POLICY_TRIGGER, 1);
    if (!push_choice(b->cc, &b->k, "whether reactions are taken", choices, 2))
        return false;
    put(b, ARG_POLICY_CHOICE, 1);
    ccur_end(&b->k);
    return true;
}

/* `for DURATION`, or nil: the condition's own. */
static bool push_apply_duration(command_build *b)
{
    if (!ccur_accept(&b->k, "for")) {
        emit_op(b->cc, OP_NIL, b->cmd->sp);
        return true;
    }
    fctx none = {0};
    rexpr d;
    const node *at = b->k.at;
    int errors = b->cc->sink->errors;
    if (!ccur_duration(&b->k, &none, &d) || b->cc->sink->errors > errors)
        return false; /* said once: not again as the command's own */
    if (d.kind == REXPR_CONST)
        emit_const(b->cc, d.v, at->sp);
    else
        compile_expr(b->cc, at);
    return true;
}

static bool compile_apply(command_build *b)
{
    compiler *cc = b->cc;
    if (!push_named(cc, &b->k, "condition", rules_condition, DK_CONDITION))
        return false;
    put(b, ARG_APPLY_CONDITION, 1);
    if (!ccur_expect(&b->k, "to") || !push_creature(cc, &b->k, "the creature"))
        return false;
    put(b, ARG_APPLY_TO, 1);
    if (!push_apply_duration(b))
        return false;
    put(b, ARG_APPLY_FOR, 1);
    if (ccur_accept(&b->k, "by")) {
        if (!push_creature(cc, &b->k, "the creature that caused it"))
            return false;
    } else {
        emit_op(cc, OP_NIL, b->cmd->sp);
    }
    put(b, ARG_APPLY_BY, 1);
    ccur_end(&b->k);
    return true;
}

static bool compile_remove(command_build *b)
{
    compiler *cc = b->cc;
    ccur *k = &b->k;
    /* `remove NAME`: a creature leaves play; a condition alone still
       asks for `from NAME` */
    if (k->at && !k->at->next && k->at->kind == AST_NAME &&
        !program_find_decl(cc->p, DK_CONDITION, comp_intern(cc, k->at->text))) {
        if (!push_creature(cc, k, "the creature that leaves play"))
            return false;
        put(b, ARG_REMOVE_WHAT, 1);
        ccur_end(k);
        return true;
    }
    if (!push_named(cc, k, "condition", rules_condition, DK_CONDITION))
        return false;
    put(b, ARG_REMOVE_WHAT, 1);
    if (!ccur_expect(k, "from") || !push_creature(cc, k, "the creature"))
        return false;
    put(b, ARG_REMOVE_FROM, 1);
    ccur_end(k);
    return true;
}

/* After `place NAME at|in` or `move NAME to`: a square, or a zone by name. */
static bool push_destination(command_build *b)
{
    compiler *cc = b->cc;
    ccur *k = &b->k;
    bool zone = ccur_accept(k, "in");
    if (zone) {
        int z = ccur_name(k, "a zone");
        if (z < 0)
            return false;
        push_word(cc, program_string(cc->p, z), b->cmd->sp);
    } else if (k->at && k->at->kind == AST_NAME && !square_node(k->at, &(int32_t){0}, &(int32_t){0})) {
        /* on a grid, a square that is none; under zones, a zone may be called A0 */
        if (cc->p->rules->space.kind != SPACE_ZONES && not_a_square(cc, k->at))
            return false;
        if (cc->p->rules->space.kind == SPACE_GRID) {
            comp_error(cc, k->at->sp, "expected a square, as in c4, not '%s': these rules use a grid, not zones",
                       k->at->text);
            return false;
        }
        int z = ccur_name(k, "a square or zone");
        push_word(cc, program_string(cc->p, z), b->cmd->sp);
    } else if (!push_square(cc, k)) {
        return false;
    }
    return true;
}

static bool compile_place(command_build *b)
{
    if (!push_creature(b->cc, &b->k, "the creature"))
        return false;
    put(b, ARG_PLACE_WHO, 1);
    if (!ccur_accept(&b->k, "at") && !ccur_is(&b->k, "in")) {
        ccur_error(&b->k, "expected '%s'", "at SQUARE' or 'in ZONE");
        return false;
    }
    if (!push_destination(b))
        return false;
    put(b, ARG_PLACE_WHERE, 1);
    ccur_end(&b->k);
    return true;
}

/* `spending RESOURCE`: a resource counting distance, passed as its word
   for the walk to spend (nothing when not said). */
static bool push_spending(command_build *b)
{
    const node *at = b->k.at;
    if (!ccur_accept(&b->k, "spending")) {
        emit_op(b->cc, OP_NIL, b->cmd->sp);
    } else {
        at = b->k.at;
        if (ccur_name(&b->k, "the resource it spends") < 0)
            return false;
        if (!compile_walk_budget(b->cc, "move", at)) {
            cmd_no_such(b->cc, at->sp, at->text, "resource", DK_RESOURCE, DK_RESOURCE);
            emit_op(b->cc, OP_NIL, at->sp);
        }
    }
    put(b, ARG_MOVE_SPENDING, 1);
    ccur_end(&b->k);
    return true;
}

static bool compile_move(command_build *b)
{
    if (!push_creature(b->cc, &b->k, "the creature"))
        return false;
    put(b, ARG_MOVE_WHO, 1);
    if (!ccur_accept(&b->k, "to")) {
        ccur_error(&b->k, "expected '%s'", "to");
        return false;
    }
    if (!push_destination(b))
        return false;
    put(b, ARG_MOVE_TO, 1);
    if (ccur_accept(&b->k, "via")) {
        while (!ccur_done(&b->k) && !ccur_is(&b->k, "spending")) {
            ccur_skip_commas(&b->k);
            if (!push_square(b->cc, &b->k))
                return false;
            put(b, ARG_MOVE_VIA, 1);
            ccur_skip_commas(&b->k);
        }
    }
    return push_spending(b);
}

/* `wall SQUARE [to SQUARE]`, `terrain difficult|cover LEVEL SQUARE [to
   SQUARE]`; the level of cover is a word (nothing for the others) */
static bool compile_wall(command_build *b)
{
    if (b->id == CMD_TERRAIN && ccur_accept(&b->k, "cover")) {
        const node *at = b->k.at;
        int level = ccur_name(&b->k, "the level of cover the squares grant");
        if (level < 0)
            return false;
        emit_const(b->cc, value_ref(V_WORD, HOME_PROGRAM, level), at->sp);
    } else if (b->id == CMD_TERRAIN && !ccur_expect(&b->k, "difficult")) {
        return false;
    } else {
        emit_const(b->cc, value_nil(), b->cmd->sp);
    }
    put(b, ARG_WALL_COVER, 1);
    if (!push_square(b->cc, &b->k))
        return false;
    put(b, ARG_WALL_FROM, 1);
    if (ccur_accept(&b->k, "to")) {
        if (!push_square(b->cc, &b->k))
            return false;
        put(b, ARG_WALL_TO, 1);
    }
    ccur_end(&b->k);
    return true;
}

/* `next to NAME, ...`: the neighbours are counted first, for their number
   goes before them. */
static bool push_zone_neighbours(command_build *b)
{
    ccur *k = &b->k;
    int nnext = 0;
    if (!ccur_accept(k, "next")) {
        put_count(b, ARG_ZONE_NNEXT, 0, b->cmd->sp);
        return true;
    }
    if (!ccur_expect(k, "to"))
        return false;
    ccur names = *k;
    while (!ccur_done(k) && !ccur_is(k, "with")) {
        ccur_skip_commas(k);
        if (ccur_name(k, "a zone next to it") < 0)
            return false;
        nnext++;
        ccur_skip_commas(k);
    }
    if (nnext == 0) {
        ccur_error(k, "expected a zone next to it");
        return false;
    }
    put_count(b, ARG_ZONE_NNEXT, nnext, b->cmd->sp);
    for (int i = 0; i < nnext; i++) {
        ccur_skip_commas(&names);
        push_word(b->cc, names.at->text, names.at->sp);
        put(b, ARG_ZONE_NEXT, 1);
        ccur_name(&names, "a zone next to it");
    }
    return true;
}

static bool compile_zone(command_build *b)
{
    compiler *cc = b->cc;
    int z = ccur_name(&b->k, "the zone's name");
    if (z < 0)
        return false;
    push_word(cc, program_string(cc->p, z), b->cmd->sp);
    put(b, ARG_ZONE_NAME, 1);
    if (!push_zone_neighbours(b))
        return false;
    if (ccur_accept(&b->k, "with")) {
        /* the tags it comes with, as words */
        while (!ccur_done(&b->k)) {
            ccur_skip_commas(&b->k);
            int t = ccur_name(&b->k, "a tag");
            if (t < 0)
                return false;
            push_word(cc, program_string(cc->p, t), b->cmd->sp);
            put(b, ARG_ZONE_TAGS, 1);
            ccur_skip_commas(&b->k);
        }
    }
    ccur_end(&b->k);
    return true;
}

/* `fight [N rounds]`: 0 rounds is until the encounter ends. */
static bool compile_fight(command_build *b)
{
    int64_t n = 0;
    if (!ccur_done(&b->k)) {
        /* `2 rounds` is one quantity */
        const node *q = ccur_take(&b->k);
        if (!q || q->kind != AST_QTY || (strcmp(q->text, "round") && strcmp(q->text, "rounds")) || q->den != 1) {
            comp_error(b->cc, q ? q->sp : b->cmd->sp, "say how many rounds, as in 'fight 2 rounds'");
            return false;
        }
        n = q->num;
        if (n < 1 || n > INT32_MAX) {
            comp_error(b->cc, q->sp, "fight N rounds takes N from 1 to %d, not %lld", INT32_MAX, (long long)n);
            return false;
        }
    }
    ccur_end(&b->k);
    emit_const(b->cc, value_int(n), b->cmd->sp);
    put(b, ARG_FIGHT_ROUNDS, 1);
    return true;
}

/* `hide|reveal NAME [STAT...]`: the stats as their declarations' indexes. */
static bool compile_hide(command_build *b)
{
    compiler *cc = b->cc;
    if (!push_creature(cc, &b->k, "the creature"))
        return false;
    put(b, ARG_HIDE_WHO, 1);
    while (!ccur_done(&b->k)) {
        const node *a = b->k.at;
        int name = ccur_name(&b->k, "a stat");
        if (name < 0)
            return false;
        const decl *sd = program_find_decl(cc->p, DK_STAT, name);
        if (!sd)
            sd = program_find_decl(cc->p, DK_RESOURCE, name);
        if (!sd) {
            cmd_no_such(cc, a->sp, a->text, "stat or resource", DK_STAT, DK_RESOURCE);
            return false;
        }
        emit_const(cc, value_int(program_decl_index(cc->p, sd)), a->sp);
        put(b, ARG_HIDE_STATS, 1);
    }
    return true;
}

static bool compile_can(command_build *b)
{
    const char *who = b->k.at && b->k.at->text ? b->k.at->text : "NAME";
    if (!push_creature(b->cc, &b->k, "the creature"))
        return false;
    put(b, ARG_CAN_WHO, 1);
    int action;
    int n = push_action_args(b->cc, b->k.at, NULL, b->cmd->sp, who, true, &action);
    if (n < 0)
        return false;
    put(b, ARG_CAN_ARGS, n);
    emit_const(b->cc, value_int(action), b->cmd->sp);
    put(b, ARG_CAN_ACTION, 1);
    return true;
}

/* Without a resource that says how damage or healing is taken, the GM is
   shown how to change the stat by hand. */
static bool damage_handled(command_build *b, bool heal)
{
    compiler *cc = b->cc;
    if (rules_damage_resource(cc->p, heal))
        return true;
    /* the GM can still change a stat by hand: name the tracker's first column */
    const r_encounter *e = &cc->p->rules->encounter;
    const char *stat = e->ntrack > 0 ? program_string(cc->p, cc->p->decls[e->track[0]].name) : "STAT";
    const char *who = b->k.at && b->k.at->kind == AST_NAME ? b->k.at->text : "NAME";
    comp_error(cc, b->cmd->sp,
               "these rules say nothing of %s (no resource says '%s by PROCEDURE'): set %s.%s %s= N instead",
               heal ? "healing" : "damage", heal ? "heal" : "damage", who, stat, heal ? "+" : "-");
    return false;
}

/* The amount: a whole number, 0 or more, where it is known before play. */
static bool push_damage_amount(command_build *b, bool heal)
{
    compiler *cc = b->cc;
    const node *at = b->k.at;
    if (!at || at->kind == AST_SEP) {
        ccur_error(&b->k, "expected the amount, as in '%s'", heal ? "heal NAME 5" : "damage NAME 7");
        return false;
    }
    ccur_take(&b->k);
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
    return true;
}

/* A kind the resource knows, or an error that names those it knows. */
static bool damage_kind_known(compiler *cc, const r_resource *res, const node *kn, int kind)
{
    if (res->nkinds == 0) {
        comp_error(cc, kn->sp, "these rules have no kinds of damage: damage NAME N");
        return false;
    }
    if (rules_damage_kind(res, kind) >= 0)
        return true;
    text_buf known;
    text_init(&known);
    suggestion sg;
    suggest_init(&sg, kn->text);
    for (int i = 0; i < res->nkinds; i++) {
        const char *w = program_string(cc->p, res->kinds[i]);
        suggest_consider(&sg, w, 0);
        text_add(&known, "%s%s", i ? ", " : "", w);
    }
    if (sg.found)
        comp_error(cc, kn->sp, "no kind of damage '%s' in these rules; did you mean '%s'? (they know: %s)", kn->text,
                   sg.best, known.s);
    else
        comp_error(cc, kn->sp, "no kind of damage '%s' in these rules (they know: %s)", kn->text, known.s);
    text_free(&known);
    return false;
}

/* `damage NAME N [KIND]`, `heal NAME N`: checked against what the rules
   declare for them (a resource's `damage by`/`heal by`), on the user's line.
   Pushed: the creature, the amount, the kind (or nil). */
/* `force d20 20, 1`: the die (one plain die, its faces checked here) and
   the faces; `force clear`: no die. */
static bool compile_force(command_build *b)
{
    compiler *cc = b->cc;
    if (ccur_accept(&b->k, "clear")) {
        emit_op(cc, OP_NIL, b->cmd->sp);
        put(b, ARG_FORCE_DIE, 1);
        ccur_end(&b->k);
        return true;
    }
    const node *at = b->k.at;
    value die;
    /* `force dF -1, 1` reads as `dF - 1`, then 1: the die, then -1 */
    const node *first_face = NULL;
    if (at && at->kind == AST_BINARY && at->op == '-' && at->a && at->b && at->b->kind == AST_INT) {
        first_face = at->b;
        at = at->a;
    }
    /* `dF` reads as a name */
    dice parsed;
    if (!at || (at->kind != AST_DICE &&
                (at->kind != AST_NAME || dice_parse(at->text, strlen(at->text), &parsed, NULL) != 0))) {
        bool named = at && (at->kind == AST_NAME || at->kind == AST_WORD);
        ccur_error(&b->k, "expected the die whose faces are forced, as in d20 or dF%s%s%s", named ? ", not '" : "",
                   named ? at->text : "", named ? "'" : "");
        return false;
    }
    ccur_take(&b->k);
    if (!dice_literal(cc, at, &die))
        return false;
    const dice *d = &cc->p->dice[die.num].terms[0].d;
    if (!dice_forced_kind(d)) {
        comp_error(cc, at->sp, "force names one die, as in d20, d%% or dF, not %s: its dice take the faces one by one",
                   at->text);
        return false;
    }
    emit_const(cc, die, at->sp);
    put(b, ARG_FORCE_DIE, 1);
    int n = 0;
    if (first_face) {
        if (!dice_forced_fits(d, -first_face->num)) {
            comp_error(cc, first_face->sp, "a %s shows %d to %d, not -%" PRId64, at->text, d->fudge ? -1 : 1,
                       d->fudge ? 1 : d->sides, first_face->num);
            return false;
        }
        emit_const(cc, value_int(-first_face->num), first_face->sp);
        put(b, ARG_FORCE_FACES, 1);
        n++;
    }
    while (!ccur_done(&b->k)) {
        ccur_skip_commas(&b->k);
        const node *face_at = b->k.at;
        int64_t face;
        if (!face_at || !ccur_int(&b->k, "a face", &face))
            break;
        if (!dice_forced_fits(d, face)) {
            comp_error(cc, face_at->sp, "a %s shows %d to %d, not %" PRId64, at->text, d->fudge ? -1 : 1,
                       d->fudge ? 1 : d->sides, face);
            return false;
        }
        emit_const(cc, value_int(face), face_at->sp);
        put(b, ARG_FORCE_FACES, 1);
        n++;
    }
    if (n == 0) {
        comp_error(cc, at->sp, "force %s needs the faces it shows, as in 'force %s %d'", at->text, at->text,
                   d->fudge ? 1 : d->sides);
        return false;
    }
    return true;
}

static bool compile_damage(command_build *b)
{
    compiler *cc = b->cc;
    ccur *k = &b->k;
    bool heal = b->id == CMD_HEAL;
    if (!damage_handled(b, heal))
        return false;
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
    put(b, ARG_DAMAGE_WHO, 1);
    if (!push_damage_amount(b, heal))
        return false;
    put(b, ARG_DAMAGE_AMOUNT, 1);
    if (heal || ccur_done(k)) {
        emit_op(cc, OP_NIL, b->cmd->sp);
        put(b, ARG_DAMAGE_KIND, 1);
        ccur_end(k);
        return true;
    }
    const node *kn = k->at;
    int kind = ccur_name(k, "the kind of damage");
    if (kind < 0 || !damage_kind_known(cc, rules_damage_resource(cc->p, heal), kn, kind))
        return false;
    push_word(cc, kn->text, kn->sp);
    put(b, ARG_DAMAGE_KIND, 1);
    ccur_end(k);
    return true;
}

/* `mark NAME TRACK [BOX] ["TEXT"]`, `clear NAME TRACK [BOX]` */
static bool compile_mark(command_build *b)
{
    compiler *cc = b->cc;
    ccur *k = &b->k;
    bool mark = b->id == CMD_MARK;
    if (!push_creature(cc, k, mark ? "the creature whose box is marked" : "the creature whose track is cleared"))
        return false;
    put(b, ARG_MARK_WHO, 1);
    const node *tn = k->at;
    if (!push_named(cc, k, "track", rules_track, DK_TRACK))
        return false;
    put(b, ARG_MARK_TRACK, 1);
    const node *a = k->at;
    if (a && a->kind == AST_INT) {
        ccur_take(k);
        if (a->num < 1 || a->num > TRACK_MAX_BOXES) {
            comp_error(cc, a->sp, "boxes are counted from 1 to at most %d", TRACK_MAX_BOXES);
            return false;
        }
        emit_const(cc, value_int(a->num), a->sp);
    } else {
        emit_op(cc, OP_NIL, b->cmd->sp);
    }
    put(b, ARG_MARK_BOX, 1);
    a = k->at;
    if (mark && a && a->kind == AST_STRING) {
        ccur_take(k);
        const r_track *t = &cc->p->rules->tracks[rules_track(cc->p->rules, comp_intern(cc, tn->text))];
        if (!t->named) {
            comp_error(cc, a->sp, "track %s's boxes carry no names (declare it 'named' to give them one)", tn->text);
            return false;
        }
        emit_const(cc, value_ref(V_STR, HOME_PROGRAM, comp_intern(cc, a->text)), a->sp);
    } else {
        emit_op(cc, OP_NIL, b->cmd->sp);
    }
    put(b, ARG_MARK_NAME, 1);
    ccur_end(k);
    return true;
}

/* `tag NAME "TEXT" [with N use|uses] [for DURATION]` and `untag NAME
   "TEXT"`. What holds the tag (a creature, a side, a zone or the
   encounter) and the text are values; the holder is found when it runs,
   since zones are named by the commands that make them. */
static bool compile_tag(command_build *b)
{
    compiler *cc = b->cc;
    ccur *k = &b->k;
    const node *who = ccur_take(k);
    if (!who) {
        ccur_error(k, "expected what holds the tag: a creature, a side, a zone or encounter");
        return false;
    }
    if (who->kind == AST_NAME && !name_resolves(cc, who->text))
        push_word(cc, who->text, who->sp);
    else
        compile_expr(cc, who);
    put(b, ARG_TAG_WHO, 1);
    const node *name = ccur_take(k);
    if (!name) {
        ccur_error(k, "expected the tag's name, as in \"On Fire\"");
        return false;
    }
    sty t = compile_expr(cc, name);
    if (t != TY_STR && t != TY_ANY) {
        comp_error(cc, name->sp, "a tag's name is a string, as in \"On Fire\", not %s", sty_name(t));
        return false;
    }
    put(b, ARG_TAG_NAME, 1);
    if (b->id == CMD_TAG && ccur_accept(k, "with")) {
        const node *n = ccur_take(k);
        static const char *const uses[] = {"use", "uses"};
        if (!n) {
            ccur_error(k, "expected how many free uses, as in 'with 2 uses'");
            return false;
        }
        compile_expr(cc, n);
        if (ccur_choice(k, "'uses' after the number", uses, 2) < 0)
            return false;
    } else {
        emit_op(cc, OP_NIL, b->cmd->sp);
    }
    put(b, ARG_TAG_USES, 1);
    if (b->id == CMD_TAG) {
        if (!push_apply_duration(b))
            return false;
    } else {
        emit_op(cc, OP_NIL, b->cmd->sp);
    }
    put(b, ARG_TAG_FOR, 1);
    ccur_end(k);
    return true;
}

/* --- dispatch ------------------------------------------------------------------------ */

/* Each family's compiler pushes the command's arguments and says whether
   an OP_PLAY is to run them (creature and act emit their own code). */
typedef bool (*command_compiler)(command_build *b);

static const command_compiler command_compilers[FAMILY_COUNT] = {
#define FAMILY(family, slots) [FAMILY_##family] = compile_##family,
#include "runtime/core/commands.def"
#undef FAMILY
};

/* Compiles the command's words; true if its arguments are all pushed. */
static bool compile_command_args(compiler *cc, const node *cmd, command_id id, command_build *b)
{
    *b = (command_build){.cc = cc, .cmd = cmd, .id = id, .layout = &command_layouts[command_families[id]]};
    ccur_init(&b->k, cc, cmd, cmd->list, NULL, command_usage[id]);
    return command_compilers[command_families[id]](b);
}

/* The command a word names, or CMD_COUNT. */
static command_id command_named(const char *word)
{
    for (int i = 0; i < CMD_COUNT; i++)
        if (strcmp(command_words[i], word) == 0)
            return (command_id)i;
    return CMD_COUNT;
}

/* Whether a line written as a word and arguments starts with a word that
   names no command it may (these are not clauses: the grammar reads them
   on its own). */
static bool clause_word_unknown(const node *cmd)
{
    command_id id = command_named(cmd->text);
    return id == CMD_COUNT || id == CMD_CREATURE || id == CMD_ACT || id == CMD_BEGIN || id == CMD_END ||
           id == CMD_SHOW || id == CMD_ROLL_INITIATIVE;
}

bool compile_unknown_words_only(compiler *cc, const node *prog)
{
    if (!prog->list)
        return false;
    for (const node *it = prog->list; it; it = it->next)
        if (it->kind != AST_CLAUSE || !clause_word_unknown(it))
            return false;
    /* what compile_command would say of each, in order, and nothing else */
    for (const node *it = prog->list; it; it = it->next)
        cmd_unknown_word(cc, it);
    return true;
}

/* Commands written as a word and arguments (`next`, `place a at c4`). */
static void clause_command(compiler *cc, const node *cmd)
{
    if (clause_word_unknown(cmd)) {
        cmd_unknown_word(cc, cmd);
        return;
    }
    command_id id = command_named(cmd->text);
    if (cmd->b) {
        comp_error(cc, cmd->b->sp, "'%s' takes no block", cmd->text);
        return;
    }
    command_build b;
    if (compile_command_args(cc, cmd, id, &b))
        emit_play(&b);
}

/* The commands a body may hold: those that change the state of play. */
static const command_id in_body[] = {CMD_HOLD,   CMD_APPLY,  CMD_REMOVE, CMD_PLACE, CMD_MOVE, CMD_HIDE,
                                     CMD_REVEAL, CMD_DAMAGE, CMD_HEAL,   CMD_MARK,  CMD_CLEAR};

bool cmd_in_body(const node *n)
{
    if (n->kind != AST_CLAUSE || n->b)
        return false;
    command_id id = command_named(n->text);
    for (size_t i = 0; i < sizeof in_body / sizeof in_body[0]; i++)
        if (id == in_body[i]) {
            if (id != CMD_REMOVE)
                return true;
            /* `remove CONDITION from NAME`, not a creature out of play */
            for (const node *a = n->list; a; a = a->next)
                if (a->text && !strcmp(a->text, "from"))
                    return true;
            return false;
        }
    return false;
}

void compile_body_command(compiler *cc, const node *s)
{
    if (!cmd_in_body(s)) {
        if (!cmd_not_in_body(cc, s))
            comp_error(cc, s->sp, "expected a statement here, not '%s' (a clause, or a misspelt word?)", s->text);
        return;
    }
    command_build b;
    if (compile_command_args(cc, s, command_named(s->text), &b))
        emit_play(&b);
}

bool cmd_not_in_body(compiler *cc, const node *s)
{
    if (s->kind == AST_COMMAND) { /* begin, end, show, roll initiative */
        comp_error(cc, s->sp, "'%s' is a command of the table, on a line of its own, not in a body or block",
                   decl_kind_name((decl_kind)s->op));
        return true;
    }
    if (s->kind != AST_CLAUSE || command_named(s->text) == CMD_COUNT)
        return false;
    if (s->b) {
        comp_error(cc, s->sp, "'%s' takes no block", s->text);
        return true;
    }
    if (!strcmp(s->text, "remove")) {
        comp_error(cc, s->sp,
                   "a body may take a condition off a creature (remove CONDITION from NAME), not a "
                   "creature out of play: that is the GM's command");
        return true;
    }
    text_buf may;
    text_init(&may);
    for (size_t i = 0; i < sizeof in_body / sizeof in_body[0]; i++)
        text_add(&may, "%s%s%s", i ? ", " : "", command_words[in_body[i]], in_body[i] == CMD_REMOVE ? " ... from" : "");
    comp_error(cc, s->sp,
               "'%s' is a command of the table, on a line of its own; a body or block may hold only the commands "
               "that change the state of play: %s",
               s->text, may.s);
    text_free(&may);
    return true;
}

/* `begin`, `end`, `roll initiative` and `show`, as the grammar reads them:
   their OP_PLAY runs even after an error, whose report says enough. */
static void keyword_command(compiler *cc, const node *cmd)
{
    command_id id = CMD_SHOW;
    switch ((decl_kind)cmd->op) {
    case DK_BEGIN: id = CMD_BEGIN; break;
    case DK_END: id = CMD_END; break;
    case DK_ROLL_INITIATIVE: id = CMD_ROLL_INITIATIVE; break;
    default: break;
    }
    command_build b;
    if (compile_command_args(cc, cmd, id, &b))
        emit_play(&b);
    else
        emit_play_op(cc, id, b.argc, cmd->sp);
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
    command_build b;
    switch ((ast_kind)cmd->kind) {
    case AST_DECL: compile_command_args(cc, cmd, CMD_CREATURE, &b); break;
    case AST_COMMAND: keyword_command(cc, cmd); break;
    case AST_ACT: compile_command_args(cc, cmd, CMD_ACT, &b); break;
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
