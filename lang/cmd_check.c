/* cmd_check: a play command's words checked against what the rules and
 * the creatures declare, where the command is written and before any rule
 * runs: a mistake at the table is answered on the command's own line, in
 * the command's terms (the creatures there are, the action's parameters,
 * what its target must be), with a suggestion only from what is valid at
 * that point and only when it is close (lang/suggest.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/retired.h"
#include "lang/decl.h"
#include "runtime/base/suggest.h"
#include "runtime/base/text.h"
#include "runtime/core/commands.h"
#include "runtime/core/value.h"

/* Every creature declared, by the names it plays under (`creature wolf x3`
   plays as wolf_1 .. wolf_3). */
static void consider_creatures(compiler *cc, suggestion *s)
{
    for (size_t i = 0; i < cc->p->ndecls; i++) {
        const decl *d = &cc->p->decls[i];
        if (d->kind != DK_CREATURE || d->name < 0)
            continue;
        const char *base = program_string(cc->p, d->name);
        if (d->nparams <= 1) {
            suggest_consider(s, base, 0);
            continue;
        }
        for (int k = 1; k <= d->nparams; k++) {
            char member[SUGGEST_MAX + 1];
            if (snprintf(member, sizeof member, "%s_%d", base, k) < (int)sizeof member)
                suggest_consider(s, member, 0);
        }
    }
}

/* The group `creature NAME xN` declared, or NULL. */
static const decl *group_named(compiler *cc, const char *name)
{
    int id = program_find_string(cc->p, name);
    const decl *d = id >= 0 ? program_find_decl(cc->p, DK_CREATURE, id) : NULL;
    return d && d->nparams > 1 ? d : NULL;
}

bool cmd_creature_like(compiler *cc, const char *name, char *out)
{
    suggestion s;
    suggest_init(&s, name);
    consider_creatures(cc, &s);
    if (s.found)
        strcpy(out, s.best);
    return s.found;
}

bool cmd_names_group(compiler *cc, const char *name)
{
    return group_named(cc, name) != NULL;
}

bool cmd_arg_known(compiler *cc, const node *a)
{
    char like[SUGGEST_MAX + 1];
    if (!a || a->kind != AST_NAME)
        return true;
    if (group_named(cc, a->text) || (!name_resolves(cc, a->text) && cmd_creature_like(cc, a->text, like)))
        return cmd_creature_known(cc, a);
    return true;
}

bool cmd_creature_known(compiler *cc, const node *a)
{
    if (!a || a->kind != AST_NAME)
        return true;
    const decl *g = group_named(cc, a->text);
    if (g) {
        /* the members, as many as a line holds */
        char list[256] = "";
        size_t used = 0;
        int k = 1;
        for (; k <= g->nparams; k++) {
            int n = snprintf(list + used, sizeof list - used, "%s%s_%d", k > 1 ? ", " : "", a->text, k);
            if (n < 0 || (size_t)n >= sizeof list - used - 8) {
                list[used] = '\0';
                break;
            }
            used += (size_t)n;
        }
        comp_error(cc, a->sp, "'%s' names %d creatures (%s%s): say which one", a->text, g->nparams, list,
                   k <= g->nparams ? ", ..." : "");
        return false;
    }
    if (name_resolves(cc, a->text))
        return true;
    suggestion s;
    suggest_init(&s, a->text);
    consider_creatures(cc, &s);
    /* `wolf1` reads as a square too (column wolf): a creature close to it
       is what was meant; a square with none close is said as a square */
    int32_t x, y;
    if (!s.found && square_parse(a->text, &x, &y))
        return true;
    comp_error(cc, a->sp, "no creature '%s'%s%s%s", a->text, s.found ? "; did you mean '" : "", s.found ? s.best : "",
               s.found ? "'?" : "");
    return false;
}

static const char *target_wanted(const r_action *a)
{
    switch ((target_kind)a->target) {
    case TARGET_ENEMY: return "an enemy";
    case TARGET_ALLY: return "an ally";
    case TARGET_SELF: return "the actor itself";
    case TARGET_OTHER: return "a creature other than the actor";
    case TARGET_ANY: break;
    }
    return "any creature";
}

/* "target, style": the action's parameters, for a message. */
static void parameter_list(compiler *cc, const r_action *a, text_buf *out)
{
    for (int i = 0; i < a->nparams; i++)
        text_add(out, "%s%s", i ? ", " : "", program_string(cc->p, a->params[i]));
}

bool cmd_action_count(compiler *cc, int ai, const node *action, int argc, bool command, span end)
{
    const r_action *a = &cc->p->rules->actions[ai];
    /* an action used in a body before its declaration is compiled: its
       count is known (pass 1), its names and clauses not yet */
    const decl *d = program_find_decl(cc->p, DK_ACTION, a->name);
    int want = d ? d->nparams : a->nparams;
    text_buf list;
    text_init(&list);
    if (a->nparams == want)
        parameter_list(cc, a, &list);
    const char *params = list.s;
    bool fits = false;
    if (argc > want) {
        if (want == 0)
            comp_error(cc, action->sp, "action %s takes no arguments, not %d", action->text, argc);
        else
            comp_error(cc, action->sp, "action %s takes %d argument%s%s%s%s, not %d", action->text, want,
                       want == 1 ? "" : "s", *params ? " (" : "", params, *params ? ")" : "", argc);
    } else if (command && argc == 0 && a->has_target) {
        comp_error(cc, end, "action %s needs its target, %s (it takes %s)", action->text, target_wanted(a), params);
    } else if (argc < a->nrequired && a->nparams == want) {
        /* the first missing parameter that says what it takes */
        int i = argc;
        while (!a->takes[i])
            i++;
        comp_error(cc, end, "action %s needs its %s, %s (it takes %s)", action->text,
                   program_string(cc->p, a->params[i]), program_string(cc->p, a->takes_text[i]), params);
    } else {
        fits = true;
    }
    text_free(&list);
    return fits;
}

uint32_t sty_values(sty t)
{
#define BIT(v) (UINT32_C(1) << (v))
    switch (t) {
    case TY_ANY: break;
    case TY_NIL: return BIT(V_NIL);
    case TY_BOOL: return BIT(V_BOOL);
    case TY_NUM: return BIT(V_INT) | BIT(V_FRAC);
    case TY_DIST: return BIT(V_DIST);
    case TY_TIME: return BIT(V_TIME);
    case TY_DICE: return BIT(V_DICE);
    case TY_ROLL: return BIT(V_ROLL);
    case TY_STR: return BIT(V_STR);
    case TY_ENUM: return BIT(V_ENUM);
    case TY_CREATURE: return BIT(V_CREATURE);
    case TY_LIST: return BIT(V_LIST);
    case TY_WORD: return BIT(V_WORD);
    case TY_DISTRIB: return BIT(V_DISTRIB);
    case TY_ITEM: return BIT(V_ITEM);
    case TY_SQUARE: return BIT(V_SQUARE);
    }
#undef BIT
    return 0;
}

/* Whether the declaration of action ai has been compiled: before it is
   (a body using an action declared later), only its count is known. */
static bool declared(compiler *cc, const r_action *a)
{
    const decl *d = program_find_decl(cc->p, DK_ACTION, a->name);
    return !d || d->nparams == a->nparams;
}

uint32_t cmd_arg_takes(compiler *cc, int ai, int i)
{
    const r_action *a = &cc->p->rules->actions[ai];
    return i < a->nparams && declared(cc, a) ? a->takes[i] : 0;
}

bool cmd_arg_is_creature(compiler *cc, int ai, int i, bool command)
{
    const r_action *a = &cc->p->rules->actions[ai];
    if (command && i == 0 && a->has_target)
        return true;
    return i < a->nparams && declared(cc, a) && a->takes[i] == sty_values(TY_CREATURE);
}

bool cmd_arg_kind(compiler *cc, int ai, const node *action, const node *arg, int i, bool command, sty type)
{
    const r_action *a = &cc->p->rules->actions[ai];
    if (type == TY_ANY || i >= a->nparams || !declared(cc, a))
        return true;
    if (command && i == 0 && a->has_target) {
        if (type == TY_CREATURE)
            return true;
        comp_error(cc, arg->sp, "the target of %s is a creature (%s), not %s", action->text, target_wanted(a),
                   sty_name(type));
        return false;
    }
    if ((a->takes[i] & TAKES_CONDITION) && type == TY_WORD && arg->kind == AST_NAME) {
        /* a word that must name a condition is checked where it is written */
        int id = program_find_string(cc->p, arg->text);
        if (id >= 0 && rules_condition(cc->p->rules, id) >= 0)
            return true;
        cmd_no_such(cc, arg->sp, arg->text, "condition", DK_CONDITION, DK_CONDITION);
        return false;
    }
    if (!a->takes[i] || (a->takes[i] & sty_values(type)))
        return true;
    /* `A0` where a square is taken: what is wrong with it as a square */
    const char *unnamed = (a->takes[i] & sty_values(TY_SQUARE)) && (arg->kind == AST_NAME || arg->kind == AST_WORD)
                              ? square_unnamed(arg->text)
                              : NULL;
    if (unnamed) {
        comp_error(cc, arg->sp, "%s is not a square of the map: %s", arg->text, unnamed);
        return false;
    }
    comp_error(cc, arg->sp, "%s takes its %s as %s, not %s", action->text, program_string(cc->p, a->params[i]),
               program_string(cc->p, a->takes_text[i]), sty_name(type));
    return false;
}

void cmd_unknown_action(compiler *cc, const node *action, const char *actor)
{
    for (int i = 0; i < CMD_COUNT; i++)
        if (i != CMD_ACT && strcmp(command_words[i], action->text) == 0) {
            comp_error(cc, action->sp, "'%s' is a play command, not an action: it is written without '%s:', as '%s'",
                       action->text, actor, command_usage[i]);
            return;
        }
    const rules *r = cc->p->rules;
    suggestion s;
    suggest_init(&s, action->text);
    for (int i = 0; i < r->nactions; i++)
        suggest_consider(&s, program_string(cc->p, r->actions[i].name), 0);
    comp_error(cc, action->sp, "no action '%s'%s%s%s", action->text, s.found ? "; did you mean '" : "",
               s.found ? s.best : "", s.found ? "'?" : "");
}

const char *comp_decl_like(compiler *cc, const char *name, decl_kind kind, decl_kind also, char *out)
{
    suggestion s;
    suggest_init(&s, name);
    for (size_t i = 0; i < cc->p->ndecls; i++) {
        const decl *d = &cc->p->decls[i];
        if ((d->kind == kind || d->kind == also) && d->name >= 0)
            suggest_consider(&s, program_string(cc->p, d->name), 0);
    }
    snprintf(out, SUGGEST_MAX + 1, "%s", s.found ? s.best : "");
    return out;
}

void cmd_no_such(compiler *cc, span at, const char *name, const char *what, decl_kind kind, decl_kind also)
{
    char like[SUGGEST_MAX + 1];
    bool near = *comp_decl_like(cc, name, kind, also, like);
    comp_error(cc, at, "no %s '%s'%s%s%s", what, name, near ? "; did you mean '" : "", like, near ? "'?" : "");
}

/* The text of a span, at most cap - 1 bytes of it. */
/* The text of a span as a message quotes it: a longer one ends in "...",
   so that the cut shows (a line of thousands of characters helps no one). */
static void span_text(compiler *cc, span sp, char *out, size_t cap)
{
    const source *src = cc->p->sources[sp.source];
    size_t n = sp.end > sp.start ? sp.end - sp.start : 0;
    bool cut = n >= cap;
    if (cut) { /* at a character's start */
        n = cap - sizeof "...";
        while (n > 0 && ((unsigned char)src->text[sp.start + n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(out, src->text + sp.start, n);
    strcpy(out + n, cut ? "..." : "");
}

enum { LIKE_WORD, LIKE_ACTION, LIKE_STAT };

/* Whether a name node names an action of the rules. */
static bool names_action(compiler *cc, const node *n)
{
    int id = n->text ? program_find_string(cc->p, n->text) : -1;
    return id >= 0 && rules_action(cc->p->rules, id) >= 0;
}

void cmd_unknown_word(compiler *cc, const node *cmd)
{
    span at = cmd->a ? cmd->a->sp : cmd->sp;
    const char *who = cc->opts && cc->opts->turn_of ? cc->opts->turn_of : "NAME";
    char line[160];
    span_text(cc, cmd->sp, line, sizeof line);
    /* an action written without who takes it */
    int id = program_find_string(cc->p, cmd->text);
    if (id >= 0 && rules_action(cc->p->rules, id) >= 0) {
        if (cc->opts && cc->opts->turn_of)
            comp_error(cc, at, "an action needs the creature that takes it, as in '%s: %s' (it is %s's turn)", who,
                       line, who);
        else
            comp_error(cc, at, "an action needs the creature that takes it, as in 'NAME: %s'", line);
        return;
    }
    /* an action taken without the colon, `ann hit orc` (the word is its
       creature, the next an action), or after a word, `act ann hit orc` */
    const node *first = cmd->list, *second = first ? first->next : NULL;
    const node *actor = NULL, *action = NULL;
    if (first && first->kind == AST_NAME && names_action(cc, first))
        action = first;
    else if (first && second && first->kind == AST_NAME && second->kind == AST_NAME && names_action(cc, second))
        actor = first, action = second;
    if (action) {
        size_t from = action->sp.start - cmd->sp.start;
        comp_error(cc, at,
                   "unknown declaration or command '%s'; did you mean '%s: %s'? (an action comes after its creature "
                   "and a colon)",
                   cmd->text, actor ? actor->text : cmd->text, from < strlen(line) ? line + from : "...");
        return;
    }
    /* a creature, then a word that is none of the rules' actions: the
       action closest to the word, or some of them */
    if (first && first->kind == AST_NAME && creature_declared(cc, cmd->text)) {
        const rules *r = cc->p->rules;
        suggestion like;
        suggest_init(&like, first->text);
        text_buf some;
        text_init(&some);
        for (int i = 0; i < r->nactions; i++) {
            const char *name = program_string(cc->p, r->actions[i].name);
            suggest_consider(&like, name, 0);
            if (i < 6)
                text_add(&some, "%s%s", i ? ", " : "", name);
        }
        size_t from = second ? second->sp.start - cmd->sp.start : 0;
        const char *rest = !second ? "" : from < strlen(line) ? line + from : "...";
        if (like.found)
            comp_error(cc, first->sp,
                       "'%s' is a creature, and '%s' is none of the rules' actions; did you mean '%s: %s%s%s'? (an "
                       "action comes after its creature and a colon)",
                       cmd->text, first->text, cmd->text, like.best, *rest ? " " : "", rest);
        else if (r->nactions > 0)
            comp_error(cc, first->sp,
                       "'%s' is a creature, and '%s' is none of the rules' actions (%s%s); an action comes after its "
                       "creature and a colon, as in '%s: ACTION TARGET'",
                       cmd->text, first->text, some.s, r->nactions > 6 ? ", ..." : "", cmd->text);
        else
            comp_error(cc, first->sp, "'%s' is a creature, and the rules declare no action for it to take", cmd->text);
        text_free(&some);
        return;
    }
    suggestion s;
    suggest_init(&s, cmd->text);
    for (int i = 0; i < CMD_COUNT; i++)
        suggest_consider(&s, command_words[i], LIKE_WORD);
    for (int k = 0; k < DK_COUNT; k++) /* a misspelt declaration */
        suggest_consider(&s, decl_kind_name((decl_kind)k), LIKE_WORD);
    const rules *r = cc->p->rules;
    for (int i = 0; i < r->nactions; i++)
        suggest_consider(&s, program_string(cc->p, r->actions[i].name), LIKE_ACTION);
    for (size_t i = 0; i < cc->p->ndecls; i++) {
        const decl *d = &cc->p->decls[i];
        if ((d->kind == DK_STAT || d->kind == DK_RESOURCE) && d->name >= 0)
            suggest_consider(&s, program_string(cc->p, d->name), LIKE_STAT);
    }
    /* the rest of the line after the word, as far as `line` holds it */
    size_t after = cmd->list ? cmd->list->sp.start - cmd->sp.start : 0;
    const char *rest = !cmd->list ? "" : after < strlen(line) ? line + after : "...";
    const char *instead = retired_instead("command", cmd->text);
    const decl *proc = id >= 0 ? program_find_decl(cc->p, DK_PROCEDURE, id) : NULL;
    if (instead && proc) {
        /* the rules kept the word as a procedure of their own */
        text_buf form;
        text_init(&form);
        for (int i = 0; i < proc->nparams && i < 26; i++)
            text_add(&form, "%s%c", i ? ", " : "", 'A' + i);
        comp_error(cc, at,
                   "there is no command '%s' any more; the rules have a procedure of that name: call it, as in %s(%s)",
                   cmd->text, cmd->text, form.s);
        text_free(&form);
    } else if (instead)
        comp_error(cc, at, "there is no command '%s' any more: %s", cmd->text, instead);
    else if (!s.found)
        comp_error(cc, at, "unknown declaration or command '%s'", cmd->text);
    else if (s.tag == LIKE_ACTION)
        comp_error(cc, at, "unknown declaration or command '%s'; did you mean the action '%s', as in '%s: %s%s%s'?",
                   cmd->text, s.best, who, s.best, *rest ? " " : "", rest);
    else if (s.tag == LIKE_STAT)
        comp_error(cc, at, "unknown declaration or command '%s'; did you mean the stat '%s', as in '%s.%s = %s'?",
                   cmd->text, s.best, who, s.best, *rest ? rest : "VALUE");
    else
        comp_error(cc, at, "unknown declaration or command '%s'; did you mean '%s'?", cmd->text, s.best);
}

void cmd_new_side(compiler *cc, const node *name)
{
    const rules *r = cc->p->rules;
    suggestion s;
    suggest_init(&s, name->text);
    for (int i = 0; i < r->nsides; i++)
        suggest_consider(&s, program_string(cc->p, r->sides[i]), 0);
    if (s.found)
        diag_report(cc->sink, DIAG_WARNING, cc->p->sources[name->sp.source], name->sp,
                    "new side '%s'; did you mean '%s'?", name->text, s.best);
    else if (cc->opts && cc->opts->typed && r->nsides > 0) /* the first side is news to no one */
        comp_note(cc, name->sp, "new side '%s'", name->text);
}
