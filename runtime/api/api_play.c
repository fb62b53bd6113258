/* api_play: the public interface for play at the table: questions put to
 * the GM, reseeding, formulas for a creature, and the names completion
 * offers. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/api/api_internal.h"
#include "runtime/combat/answer_text.h"
#include "runtime/combat/combat.h"
#include "runtime/core/rules.h"

/* --- questions ------------------------------------------------------------ */

/* Is word one of the choices, "a/b/c"? */
static bool is_a_choice(const char *choices, const char *word)
{
    size_t n = strlen(word);
    for (const char *c = choices; *c;) {
        size_t len = strcspn(c, "/");
        if (len == n && !strncmp(c, word, n))
            return true;
        c += len + (c[len] == '/');
    }
    return false;
}

/* Takes "for all" off the end of an answer: true when it was there. */
static bool for_all_taken_off(char *s)
{
    static const char tail[] = "for all";
    size_t n = strlen(s), t = sizeof tail - 1;
    if (n <= t || strcasecmp(s + n - t, tail) || !isspace((unsigned char)s[n - t - 1]))
        return false;
    s[n - t] = '\0';
    while (n - t > 0 && isspace((unsigned char)s[n - t - 1]))
        s[--n - t] = '\0';
    return true;
}

/* The text of an answer as a value of the kind asked; NULL, or why not. */
static const char *parse_answer(fray *f, const fray_question *q, const char *s, value *out)
{
    if (q->kind != FRAY_ANSWER_CREATURE)
        return answer_text_parse(f->p,
                                 q->kind == FRAY_ANSWER_YES_NO   ? ANSWER_YES_NO
                                 : q->kind == FRAY_ANSWER_NUMBER ? ANSWER_NUMBER
                                                                 : ANSWER_WORD,
                                 s, out);
    if (!strcmp(s, "nothing") || !strcmp(s, "none")) {
        *out = value_nil();
        return NULL;
    }
    int c = world_find_creature(f->v, s);
    if (c < 0)
        return "answer with a creature's name (or nothing)";
    *out = value_ref(V_CREATURE, 0, c);
    return NULL;
}

/* Strips the blanks around an answer in place. */
static char *trimmed(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* How many answers that do not fit end the command: a person never gives
   so many; a program that answers badly for ever must not hang it. */
#define ASK_MOST_TRIES 100
/* The longest answer taken: the callback writes into a buffer one byte
   longer, so that a longer one is seen as such, not cut to fit. */
#define ASK_ANSWER_MOST 4096
#define ASK_ANSWER_MOST_TEXT "4096"

/* *answered with *out for an answer that fits (and *for_all when it ended
 * in "for all", where q->each allows it); not *answered for no answer (an
 * empty one where there is a default, or none at all). An answer that does
 * not fit is asked again, as often as it takes: what is kept is always an
 * answer that fits. False (the error convention) when the command stops:
 * cancelled at the question, or ASK_MOST_TRIES answers that did not fit. */
static bool ask_until_it_fits(fray *f, fray_question *q, value *out, bool *answered, bool *for_all, text_buf *why)
{
    *answered = false;
    for (int tries = 0;; tries++) {
        if (tries == ASK_MOST_TRIES)
            return vm_error(f->v, (span){0, 0, UINT32_MAX},
                            "%d answers in a row did not fit the question; the command stops", ASK_MOST_TRIES);
        char text[ASK_ANSWER_MOST + 2] = "";
        bool given_any = f->on_ask(f->ask_user, q, text, sizeof text);
        if (f->cancelled) {
            /* the command stops here, and the state is as it was before it */
            f->cancelled = false;
            return vm_error(f->v, (span){0, 0, UINT32_MAX},
                            "the command was cancelled at the question; nothing of it is done");
        }
        if (!given_any)
            return true;
        if (strlen(text) > ASK_ANSWER_MOST) { /* it may have been cut to fit: never taken so */
            q->retry = "that answer is too long (at most " ASK_ANSWER_MOST_TEXT " bytes)";
            continue;
        }
        char *given = trimmed(text);
        if (!*given && q->has_default)
            return true;
        bool all = q->each && for_all_taken_off(given);
        if (q->choices && !is_a_choice(q->choices, given)) {
            text_clear(why);
            text_add(why, "choose one of %s", q->choices);
            q->retry = why->s;
            continue;
        }
        if (!*given) {
            q->retry = "there is no default: answer it";
            continue;
        }
        q->retry = parse_answer(f, q, given, out);
        if (!q->retry) {
            if (for_all)
                *for_all = all;
            *answered = true;
            return true;
        }
    }
}

/* The ruling's default as the GM would type it: a value as written (yes
 * or no for a yes-no question), or the formula that gives it. */
static void default_text(fray *f, const r_ruling *rl, text_buf *out)
{
    if (rl->def.kind == REXPR_CONST) {
        value d = rl->def.v;
        if (rl->answer == ANSWER_YES_NO && d.type == V_BOOL)
            text_put(out, d.num ? "yes" : "no");
        else if (d.type == V_NIL)
            text_put(out, "nothing");
        else if (d.type == V_STR || d.type == V_WORD)
            text_put(out, program_string(f->p, (int)d.num));
        else
            vm_format_text(f->v, d, out);
    } else if (rl->def.kind == REXPR_CHUNK && rl->def.where.source < f->p->nsources) {
        const source *src = f->p->sources[rl->def.where.source];
        span w = rl->def.where;
        if (w.end <= src->len && w.start < w.end)
            text_putn(out, src->text + w.start, w.end - w.start);
    }
}

static bool vm_asks(void *user, int ruling, const char *question, value *out, bool *answered, bool *for_all)
{
    fray *f = user;
    const r_ruling *rl = &f->v->r->rulings[ruling];
    static const fray_answer_kind kinds[] = {
        [ANSWER_YES_NO] = FRAY_ANSWER_YES_NO,
        [ANSWER_NUMBER] = FRAY_ANSWER_NUMBER,
        [ANSWER_CREATURE] = FRAY_ANSWER_CREATURE,
        [ANSWER_WORD] = FRAY_ANSWER_WORD,
    };
    text_buf def, choices, why;
    text_init(&def);
    text_init(&choices);
    text_init(&why);
    default_text(f, rl, &def);
    rules_choices_text(f->p, rl, &choices);
    fray_question q = {.kind = kinds[rl->answer],
                       .ruling = program_string(f->p, rl->name),
                       .text = question,
                       .has_default = rexpr_present(&rl->def),
                       .default_text = def.len ? def.s : NULL,
                       .choices = choices.len ? choices.s : NULL,
                       .each = rl->per == ASKED_PER_CREATURE ? "creature"
                               : rl->per == ASKED_PER_SIDE   ? "side"
                                                             : NULL};
    bool fine = ask_until_it_fits(f, &q, out, answered, for_all, &why);
    text_free(&why);
    text_free(&choices);
    text_free(&def);
    return fine;
}

static bool vm_offers(void *user, const char *question, bool *take)
{
    fray *f = user;
    fray_question q = {.reaction = true, .kind = FRAY_ANSWER_YES_NO, .text = question, .has_default = true};
    value yes;
    bool answered;
    text_buf why;
    text_init(&why);
    bool fine = ask_until_it_fits(f, &q, &yes, &answered, NULL, &why);
    text_free(&why);
    if (!fine)
        return false;
    /* no answer: as a script would */
    *take = answered ? value_truthy(yes) : f->v->world->cb.reactions_policy == 1;
    return true;
}

void fray_on_ask(fray *f, fray_ask_fn fn, void *user)
{
    f->on_ask = fn;
    f->ask_user = user;
    f->v->world->ask = fn ? vm_asks : NULL;
    f->v->world->offer = fn ? vm_offers : NULL;
    f->v->world->ask_user = fn ? f : NULL;
    vm_play_changed(f->v); /* a formula that asks a ruling may be answered otherwise */
}

/* --- the dice, formulas ------------------------------------------------------ */

void fray_reseed(fray *f, uint64_t seed)
{
    api_use(f);
    rng_seed(&f->v->rng, seed);
    f->v->rng.forced = &f->v->forced; /* what was forced stays forced */
}

fray_status fray_eval_for(fray *f, const char *who, const char *expr, const char **out)
{
    *out = NULL;
    api_use(f);
    int self = world_find_creature(f->v, who);
    if (self < 0) {
        diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "no creature named '%s' in play", who);
        return FRAY_ERR_USAGE;
    }
    value x;
    fray_status st = api_eval_as(f, expr, self, &x);
    if (st == FRAY_OK)
        *out = api_said(f, x);
    return st;
}

/* --- limits ------------------------------------------------------------------ */

fray_status fray_set_limit(fray *f, const char *name, uint64_t n)
{
    api_use(f);
    if (!vm_limit_set(&f->v->limits, name, n)) {
        uint64_t most = vm_limit_most(name);
        if (!most)
            diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "no limit '%s' ('fray help limits' lists them)", name);
        else
            diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "limit %s takes a number from 1 to %llu, not %llu", name,
                        (unsigned long long)most, (unsigned long long)n);
        return FRAY_ERR_USAGE;
    }
    /* the dice, string and nesting limits are met by the compiler */
    f->copts.max_dice = f->v->limits.dice;
    f->copts.max_sides = f->v->limits.sides;
    f->copts.max_string = f->v->limits.string_bytes;
    f->copts.max_read = f->v->limits.memory; /* and the memory limit by files read whole */
    f->copts.max_nesting = f->v->limits.nesting;
    f->copts.max_memory = f->v->limits.memory;
    return FRAY_OK;
}

uint64_t fray_limit_most(const char *name)
{
    return vm_limit_most(name);
}

void fray_limits(fray_limit_fn fn, void *user)
{
    for (const vm_limit_info *i = vm_limit_infos; i->name; i++)
        fn(user, i->name, i->meaning, vm_limit_get(&vm_default_limits, i->name));
}

/* --- names ------------------------------------------------------------------- */

void fray_creatures(fray *f, fray_name_fn fn, void *user)
{
    for (size_t i = 0; i < f->v->world->ncreatures; i++)
        if ((int)i != f->eval_self)
            fn(user, f->v->world->creatures[i].name);
}

/* Listing asks no questions: rulings take their defaults, reactions are
   not offered. */
typedef struct quiet_asks {
    bool (*ask)(void *, int, const char *, value *, bool *, bool *);
    bool (*offer)(void *, const char *, bool *);
} quiet_asks;

static quiet_asks asks_off(vm *v)
{
    quiet_asks q = {v->world->ask, v->world->offer};
    v->world->ask = NULL;
    v->world->offer = NULL;
    vm_play_changed(v); /* a formula that asks a ruling may be answered otherwise */
    return q;
}

static void asks_on(vm *v, quiet_asks q)
{
    v->world->ask = q.ask;
    v->world->offer = q.offer;
    vm_play_changed(v);
}

void fray_actions(fray *f, const char *who, fray_name_fn fn, void *user)
{
    api_use(f); /* it tries the actions' requirements */
    vm *v = f->v;
    int c = who ? world_find_creature(v, who) : -1;
    quiet_asks q = asks_off(v);
    for (int a = 0; a < v->r->nactions; a++) {
        bool listed = true;
        if (c >= 0) {
            /* asked without arguments: a refusal for a missing target, or an
               error from a requirement that reads one, still offers it */
            refusal why;
            refusal_init(&why);
            bool ok = false;
            listed = !act_can(v, c, a, NULL, 0, &why, &ok, (span){0}) || ok || why.missing;
            refusal_free(&why);
            vm_clear_error(v);
        }
        if (listed)
            fn(user, program_string(f->p, v->r->actions[a].name));
    }
    asks_on(v, q);
}

void fray_targets(fray *f, const char *who, const char *action, fray_name_fn fn, void *user)
{
    api_use(f); /* it tries the action's requirements */
    vm *v = f->v;
    int c = who ? world_find_creature(v, who) : -1;
    int a = 0;
    int name = program_find_string(f->p, action);
    while (a < v->r->nactions && v->r->actions[a].name != name)
        a++;
    if (c < 0 || a >= v->r->nactions || !v->r->actions[a].has_target) {
        fray_creatures(f, fn, user);
        return;
    }
    quiet_asks q = asks_off(v);
    size_t listed = 0;
    for (size_t t = 0; t < v->world->ncreatures; t++) {
        if ((int)t == f->eval_self)
            continue;
        value arg = value_ref(V_CREATURE, 0, (uint32_t)t);
        refusal why;
        refusal_init(&why);
        bool ok = false;
        if (act_can(v, c, a, &arg, 1, &why, &ok, (span){0}) && ok) {
            fn(user, v->world->creatures[t].name);
            listed++;
        }
        refusal_free(&why);
        vm_clear_error(v);
    }
    asks_on(v, q);
    if (!listed) /* the action cannot be taken now at all: any creature */
        fray_creatures(f, fn, user);
}

void fray_arguments(fray *f, const char *who, const char *action, int index, fray_name_fn fn, void *user)
{
    vm *v = f->v;
    int name = program_find_string(f->p, action);
    int a = name >= 0 ? rules_action(v->r, name) : -1;
    if (a < 0 || index < 0 || index >= v->r->actions[a].nparams || !v->r->actions[a].takes[index]) {
        fray_targets(f, who, action, fn, user); /* its target, or any creature */
        return;
    }
    uint32_t takes = v->r->actions[a].takes[index];
    if (takes & TAKES_CONDITION)
        fray_conditions(f, fn, user);
    for (int z = 0; (takes & TAKES_ZONE) && z < v->world->cb.nzones; z++)
        fn(user, program_string(f->p, v->world->cb.zones[z].name));
    if (takes & (UINT32_C(1) << V_ITEM))
        for (int i = 0; i < v->r->nitems; i++)
            fn(user, program_string(f->p, v->r->items[i].name));
    if (takes & (UINT32_C(1) << V_CREATURE))
        fray_creatures(f, fn, user);
    /* a square, a number, a text: nothing to offer */
}

void fray_cancel(fray *f)
{
    api_use(f);
    f->cancelled = true;
}

void fray_conditions(fray *f, fray_name_fn fn, void *user)
{
    for (int i = 0; i < f->v->r->nconditions; i++)
        fn(user, program_string(f->p, f->v->r->conditions[i].name));
}

void fray_stats(fray *f, fray_name_fn fn, void *user)
{
    for (size_t i = 0; i < f->p->ndecls; i++) {
        const decl *d = &f->p->decls[i];
        /* each once: the declaration in force (an override replaces one) */
        if ((d->kind == DK_STAT || d->kind == DK_RESOURCE) && d->name >= 0 &&
            program_find_decl(f->p, d->kind, d->name) == d)
            fn(user, program_string(f->p, d->name));
    }
}

void fray_rulings(fray *f, fray_name_fn fn, void *user)
{
    for (int i = 0; i < f->v->r->nrulings; i++)
        fn(user, program_string(f->p, f->v->r->rulings[i].name));
}

int fray_ruling_answers(fray *f, const char *ruling, fray_name_fn fn, void *user)
{
    int name = program_find_string(f->p, ruling);
    int ri = name >= 0 ? rules_ruling(f->v->r, name) : -1;
    if (ri < 0)
        return -1;
    const r_ruling *rl = &f->v->r->rulings[ri];
    if (rl->answer == ANSWER_YES_NO) {
        fn(user, "no");
        fn(user, "yes");
        return 2;
    }
    if (rl->answer != ANSWER_WORD)
        return 0;
    for (int i = 0; i < rl->nchoices; i++)
        fn(user, program_string(f->p, rl->choices[i]));
    return rl->nchoices;
}

const char *fray_current(fray *f)
{
    int c = f->v->world->cb.active ? encounter_acting(f->v) : -1;
    return c >= 0 ? f->v->world->creatures[c].name : NULL;
}

const char *fray_cite(fray *f, const char *name)
{
    int id = program_find_string(f->p, name);
    for (size_t i = f->p->ndecls; id >= 0 && i-- > 0;) {
        const decl *d = &f->p->decls[i];
        if (d->name != id)
            continue;
        origin o = {.decl = (int)i, .where = d->where, .cite = d->cite};
        return combat_cite(f->v, &o, &f->said);
    }
    return NULL;
}
