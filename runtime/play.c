/* play: the play commands (creatures, encounters, initiative, turns,
 * actions, show) and event dispatch to triggers. Everything system-specific
 * comes from the declarations' clauses: this file only knows the general
 * words a clause may use (roll, score, order, ties, side, ...). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/mem.h"
#include "runtime/vm.h"

static int word_id(const vm *v, const char *w)
{
    return program_find_string(v->p, w);
}

static void say(vm *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(vm *v, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (v->print)
        v->print(v->print_user, line);
}

static const decl *latest_of_kind(const vm *v, decl_kind k)
{
    for (size_t i = v->p->ndecls; i-- > 0;)
        if (v->p->decls[i].kind == k)
            return &v->p->decls[i];
    return NULL;
}

static const clause *find_clause(const vm *v, const decl *d, const char *word)
{
    int id = word_id(v, word);
    for (int i = 0; id >= 0 && i < d->nclauses; i++)
        if (d->clauses[i].word == id)
            return &d->clauses[i];
    return NULL;
}

static bool arg_is_word(const vm *v, const clause_arg *a, const char *word)
{
    return (a->kind == ARG_WORD || a->kind == ARG_FORMULA) && a->word >= 0 &&
           strcmp(program_string(v->p, a->word), word) == 0;
}

static bool eval_arg(vm *v, const clause_arg *a, int self, value *out)
{
    if (a->kind == ARG_CONST) {
        *out = a->v;
        return true;
    }
    if (a->kind == ARG_FORMULA)
        return vm_call(v, a->chunk, self, NULL, 0, out);
    *out = value_ref(V_WORD, HOME_PROGRAM, a->word);
    return true;
}

/* --- creatures --------------------------------------------------------------- */

static bool make_creature(vm *v, int decl_index, span at)
{
    const decl *d = &v->p->decls[decl_index];
    const char *base = program_string(v->p, d->name);
    int count = d->nparams > 0 ? d->nparams : 1;
    int display = -1, side = -1;
    int creature_word = word_id(v, "creature");
    const clause *header = d->nclauses > 0 && d->clauses[0].word == creature_word ? &d->clauses[0] : NULL;
    for (int a = 0; header && a < header->nargs; a++) {
        const clause_arg *arg = &header->args[a];
        if (arg->kind == ARG_CONST && arg->v.type == V_STR)
            display = (int)arg->v.num;
        if (arg_is_word(v, arg, "side") && a + 1 < header->nargs)
            side = header->args[a + 1].word;
    }
    for (int k = 1; k <= count; k++) {
        char name[256];
        if (count > 1)
            snprintf(name, sizeof name, "%s_%d", base, k);
        else
            snprintf(name, sizeof name, "%s", base);
        int c = vm_add_creature(v, name, decl_index, at);
        if (c < 0)
            return false;
        v->creatures[c].display = display;
        v->creatures[c].side = side;
        for (int i = header ? 1 : 0; i < d->nclauses; i++) {
            const clause *cl = &d->clauses[i];
            const decl *sd = program_find_decl(v->p, DK_STAT, cl->word);
            if (!sd)
                sd = program_find_decl(v->p, DK_RESOURCE, cl->word);
            if (!sd || cl->nargs < 1)
                continue;
            value val;
            if (!eval_arg(v, &cl->args[0], c, &val) || !vm_set_stat(v, c, program_decl_index(v->p, sd), val, cl->where))
                return false;
        }
    }
    return true;
}

/* --- initiative ---------------------------------------------------------------- */

typedef struct init_entry {
    int creature;
    value check;   /* the participant's roll (0 in a static order) */
    value keys[8]; /* score, then each tie key; exact fractions */
    int nkeys;
} init_entry;

typedef struct init_plan {
    const decl *d;
    const clause *check, *score, *tiebreak, *ties;
    bool highest;
    bool is_static;
    int group_side; /* a side whose creatures roll once together, or -1 */
} init_plan;

static int compare_entries(const init_entry *a, const init_entry *b, bool highest)
{
    int n = a->nkeys < b->nkeys ? a->nkeys : b->nkeys;
    for (int i = 0; i < n; i++) {
        int c = rat_cmp(a->keys[i], b->keys[i]);
        if (c != 0) {
            bool a_first = c > 0;
            if (!highest && i == 0)
                a_first = !a_first; /* `lowest first` orders the score only; tie keys favour the higher */
            return a_first ? -1 : 1;
        }
    }
    return 0;
}

static bool roll_check(vm *v, const init_plan *ip, int self, value *out)
{
    if (!ip->check || ip->check->nargs < 1) {
        *out = value_int(0);
        return true;
    }
    value x;
    if (!eval_arg(v, &ip->check->args[0], self, &x))
        return false;
    return x.type == V_DICE ? vm_roll(v, x, ip->check->where, out) : (*out = x, true);
}

/* A formula of the initiative declaration, with `check` bound to the roll. */
static bool init_formula(vm *v, const clause_arg *a, int self, value check, value *out)
{
    if (a->kind == ARG_FORMULA) {
        if (!vm_call(v, a->chunk, self, &check, 1, out))
            return false;
    } else if (!eval_arg(v, a, self, out)) {
        return false;
    }
    if (out->type == V_DICE)
        return vm_roll(v, *out, a->where, out);
    return true;
}

static bool is_random_key(const vm *v, const clause_arg *a)
{
    return arg_is_word(v, a, "reroll") || arg_is_word(v, a, "roll_off") ||
           (a->kind == ARG_FORMULA && a->rolls); /* `roll d2` */
}

/* The value of tie key `a` for entry e. */
static bool tie_key(vm *v, const init_plan *ip, const clause_arg *a, const clause_arg *next, init_entry *e, value *out)
{
    if (arg_is_word(v, a, "modifier")) {
        value score = e->keys[0];
        arith_status st = rat_add(score, value_as_frac(e->check), V_INT, out, -1);
        return st == ARITH_OK || vm_error(v, a->where, "initiative modifier overflows");
    }
    if (arg_is_word(v, a, "reroll") || arg_is_word(v, a, "roll_off")) {
        value r;
        if (!roll_check(v, ip, e->creature, &r))
            return false;
        *out = value_as_frac(r);
        return true;
    }
    if (arg_is_word(v, a, "side")) {
        int want = next ? next->word : -1;
        *out = value_int(v->creatures[e->creature].side == want ? 1 : 0);
        return true;
    }
    if (a->kind == ARG_WORD)
        return vm_error(v, a->where,
                        "'%s' is not a tie key (a stat or formula, modifier, reroll, roll DICE, "
                        "roll_off or side NAME)",
                        program_string(v->p, a->word));
    if (!init_formula(v, a, e->creature, e->check, out))
        return false;
    *out = value_as_frac(*out);
    if (!value_is_number(*out) && out->type != V_FRAC)
        return vm_error(v, a->where, "a tie key must be a number, not %s", value_type_name(out->type));
    return true;
}

static bool compute_keys(vm *v, const init_plan *ip, init_entry *e)
{
    value score = value_as_frac(e->check);
    if (ip->score && ip->score->nargs > 0 && !init_formula(v, &ip->score->args[0], e->creature, e->check, &score))
        return false;
    score = value_as_frac(score);
    if (ip->tiebreak && ip->tiebreak->nargs > 0) {
        value tb;
        if (!init_formula(v, &ip->tiebreak->args[0], e->creature, e->check, &tb))
            return false;
        arith_status st = rat_add(score, value_as_frac(tb), V_INT, &score, 1);
        if (st != ARITH_OK)
            return vm_error(v, ip->tiebreak->where, "initiative tiebreak overflows");
    }
    if (!value_is_number(score) && score.type != V_FRAC)
        return vm_error(v, ip->score ? ip->score->where : ip->d->where, "an initiative score must be a number");
    e->nkeys = 0;
    e->keys[e->nkeys++] = score;
    for (int a = 0; ip->ties && a < ip->ties->nargs && e->nkeys < 8; a++) {
        const clause_arg *t = &ip->ties->args[a];
        if (t->kind == ARG_SEP || (t->kind == ARG_WORD && arg_is_word(v, t, "by")))
            continue;
        const clause_arg *next = a + 1 < ip->ties->nargs ? &ip->ties->args[a + 1] : NULL;
        if (!tie_key(v, ip, t, next, e, &e->keys[e->nkeys]))
            return false;
        e->nkeys++;
        if (arg_is_word(v, t, "side"))
            a++; /* the side's name */
    }
    return true;
}

static void sort_entries(init_entry *entries, size_t n, bool highest)
{
    for (size_t i = 1; i < n; i++) { /* insertion sort: stable; n is a table's worth */
        init_entry key = entries[i];
        size_t j = i;
        while (j > 0 && compare_entries(&key, &entries[j - 1], highest) < 0) {
            entries[j] = entries[j - 1];
            j--;
        }
        entries[j] = key;
    }
}

/* Ties that random keys (reroll, roll_off, roll DICE) leave are rolled again
 * among the tied participants until they are settled. */
static bool settle_ties(vm *v, const init_plan *ip, init_entry *entries, size_t n)
{
    int random_at = -1;
    for (int a = 0; ip->ties && a < ip->ties->nargs; a++) {
        const clause_arg *t = &ip->ties->args[a];
        if (t->kind == ARG_SEP || arg_is_word(v, t, "by"))
            continue;
        if (is_random_key(v, t) && random_at < 0)
            random_at = a;
        if (arg_is_word(v, t, "side"))
            a++;
    }
    if (random_at < 0)
        return true;
    for (int round = 0; round < 100; round++) {
        bool tied = false;
        for (size_t i = 0; i + 1 < n; i++) {
            size_t j = i + 1;
            while (j < n && compare_entries(&entries[i], &entries[j], ip->highest) == 0)
                j++;
            if (j - i < 2)
                continue;
            tied = true;
            for (size_t m = i; m < j; m++) {
                init_entry *e = &entries[m];
                if (e->nkeys >= 8)
                    e->nkeys = 7;
                if (!tie_key(v, ip, &ip->ties->args[random_at], NULL, e, &e->keys[e->nkeys]))
                    return false;
                e->nkeys++;
            }
            sort_entries(entries + i, j - i, ip->highest);
            i = j - 1;
        }
        if (!tied)
            return true;
    }
    return true; /* still tied after 100 rounds: creation order decides */
}

static bool roll_initiative(vm *v, span at)
{
    init_plan ip = {.highest = true, .group_side = -1};
    ip.d = latest_of_kind(v, DK_INITIATIVE);
    if (!ip.d)
        return vm_error(v, at, "these rules declare no initiative");
    if (v->ncreatures == 0)
        return vm_error(v, at, "no creatures to order");
    ip.check = find_clause(v, ip.d, "check");
    ip.score = find_clause(v, ip.d, "score");
    ip.tiebreak = find_clause(v, ip.d, "tiebreak");
    ip.ties = find_clause(v, ip.d, "ties");
    const clause *order = find_clause(v, ip.d, "order");
    const clause *mode = find_clause(v, ip.d, "mode");
    const clause *group = find_clause(v, ip.d, "group");
    for (int a = 0; order && a < order->nargs; a++)
        if (arg_is_word(v, &order->args[a], "lowest"))
            ip.highest = false;
    for (int a = 0; mode && a < mode->nargs; a++)
        if (arg_is_word(v, &mode->args[a], "static"))
            ip.is_static = true;
    bool by_side = false;
    for (int a = 0; mode && a < mode->nargs; a++)
        if (arg_is_word(v, &mode->args[a], "sides"))
            by_side = true;
    if (group && group->nargs > 0)
        ip.group_side = group->args[0].word;
    if (!ip.check && !ip.score)
        return vm_error(v, ip.d->where, "initiative needs a 'check' or a 'score' to order creatures");
    size_t n = v->ncreatures;
    init_entry *entries = MEM_NEW_ARRAY(init_entry, n);
    if (!entries)
        return vm_error(v, at, "out of memory");
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        init_entry *e = &entries[i];
        e->creature = (int)i;
        int side = v->creatures[i].side;
        /* one roll per side (mode sides) or for the grouped side */
        const init_entry *shared = NULL;
        if (by_side || (ip.group_side >= 0 && side == ip.group_side))
            for (size_t j = 0; j < i && !shared; j++)
                if (v->creatures[j].side == side)
                    shared = &entries[j];
        if (ip.is_static)
            e->check = value_int(0);
        else if (shared)
            e->check = shared->check;
        else
            ok = roll_check(v, &ip, (int)i, &e->check);
        if (ok && by_side && shared) {
            memcpy(e->keys, shared->keys, sizeof e->keys);
            e->nkeys = shared->nkeys;
        } else if (ok) {
            ok = compute_keys(v, &ip, e);
        }
        if (ok && !ip.is_static && ip.check && !shared) {
            char shown[256], score[64];
            vm_format(v, e->check, shown, sizeof shown);
            vm_format(v, e->keys[0], score, sizeof score);
            const char *who = by_side || (ip.group_side >= 0 && side == ip.group_side) ? program_string(v->p, side)
                                                                                       : v->creatures[i].name;
            say(v, "%s rolls initiative: %s, score %s", who, shown, score);
        }
    }
    if (ok) {
        sort_entries(entries, n, ip.highest);
        ok = settle_ties(v, &ip, entries, n);
    }
    if (ok) {
        int *order_arr = mem_grow(v->order, sizeof(int), &v->order_cap, n);
        if (!order_arr) {
            ok = vm_error(v, at, "out of memory");
        } else {
            v->order = order_arr;
            v->norder = n;
            char line[1024];
            size_t len = (size_t)snprintf(line, sizeof line, "order:");
            for (size_t i = 0; i < n; i++) {
                v->order[i] = entries[i].creature;
                creature *c = &v->creatures[entries[i].creature];
                c->initiative = entries[i].keys[0];
                c->acted = false;
                char score[64];
                vm_format(v, c->initiative, score, sizeof score);
                if (len < sizeof line)
                    len += (size_t)snprintf(line + len, sizeof line - len, "%s %s (%s)", i ? "," : "", c->name, score);
            }
            v->round = 1;
            v->turn = 0;
            say(v, "%s", line);
            say(v, "round 1: %s's turn", v->creatures[v->order[0]].name);
        }
    }
    mem_free(entries, n * sizeof(init_entry));
    return ok;
}

/* --- show ------------------------------------------------------------------------ */

static void show_creature(vm *v, int c)
{
    char line[2048];
    size_t len = (size_t)snprintf(line, sizeof line, "%s", v->creatures[c].name);
    if (v->creatures[c].side >= 0)
        len += (size_t)snprintf(line + len, sizeof line - len, " (%s)", program_string(v->p, v->creatures[c].side));
    len += (size_t)snprintf(line + len, sizeof line - len, ":");
    for (size_t i = 0; i < v->p->ndecls && len < sizeof line; i++) {
        const decl *d = &v->p->decls[i];
        if ((d->kind != DK_STAT && d->kind != DK_RESOURCE) || d->overrides)
            continue;
        int slot = vm_stat_slot(v, (int)i);
        if (slot < 0 || v->creatures[c].stats[slot].type == V_NIL)
            continue; /* defaults are not news */
        char val[256];
        vm_format(v, v->creatures[c].stats[slot], val, sizeof val);
        len += (size_t)snprintf(line + len, sizeof line - len, " %s %s", program_string(v->p, d->name), val);
    }
    say(v, "%s", line);
}

static void show_order(vm *v)
{
    if (!v->norder) {
        say(v, "no initiative order yet");
        return;
    }
    say(v, "round %d", v->round);
    for (size_t i = 0; i < v->norder; i++) {
        int c = v->order[i];
        char score[64];
        vm_format(v, v->creatures[c].initiative, score, sizeof score);
        say(v, "%s %6s  %s", (int)i == v->turn ? ">" : " ", score, v->creatures[c].name);
    }
}

/* --- turns ---------------------------------------------------------------------------- */

static bool end_turn(vm *v, span at)
{
    if (!v->norder)
        return vm_error(v, at, "no turn to end: roll initiative first");
    v->creatures[v->order[v->turn]].acted = true;
    v->turn++;
    if ((size_t)v->turn >= v->norder) {
        v->turn = 0;
        v->round++;
        say(v, "round %d: %s's turn", v->round, v->creatures[v->order[0]].name);
    } else {
        say(v, "%s's turn", v->creatures[v->order[v->turn]].name);
    }
    return true;
}

static bool do_action(vm *v, int action_index, span at)
{
    value count = *--v->sp;
    int argc = (int)count.num;
    value args[32];
    if (argc > 32)
        return vm_error(v, at, "too many targets (limit is 32)");
    memcpy(args, v->sp - argc, (size_t)argc * sizeof(value));
    v->sp -= argc;
    value actor = *--v->sp;
    const decl *d = &v->p->decls[action_index];
    if (v->in_encounter && v->norder && v->order[v->turn] != (int)actor.num)
        return vm_error(v, at, "it is %s's turn, not %s's", v->creatures[v->order[v->turn]].name,
                        v->creatures[actor.num].name);
    const decl *latest = program_find_decl(v->p, d->kind, d->name);
    char line[1024];
    size_t len =
        (size_t)snprintf(line, sizeof line, "%s: %s", v->creatures[actor.num].name, program_string(v->p, d->name));
    for (int i = 0; i < argc && len < sizeof line; i++) {
        char val[256];
        vm_format(v, args[i], val, sizeof val);
        len += (size_t)snprintf(line + len, sizeof line - len, " %s", val);
    }
    say(v, "%s", line);
    if (latest->body < 0)
        return true;
    value r;
    return vm_call(v, latest->body, (int)actor.num, args, argc, &r);
}

bool play_command(vm *v, int kind, int operand, span at)
{
    if (kind == DK_CREATURE)
        return make_creature(v, operand, at);
    if (kind == DK_ACT)
        return do_action(v, operand, at);
    int argc = operand;
    value args[32];
    if (argc > 32)
        return vm_error(v, at, "too many arguments (limit is 32)");
    memcpy(args, v->sp - argc, (size_t)argc * sizeof(value));
    v->sp -= argc;
    const char *what = argc > 0 && args[0].type == V_WORD ? program_string(v->p, (int)args[0].num) : "";
    switch ((decl_kind)kind) {
    case DK_BEGIN:
        if (strcmp(what, "encounter") == 0) {
            if (v->in_encounter)
                return vm_error(v, at, "an encounter is already under way");
            v->in_encounter = true;
            v->round = 0;
            v->norder = 0;
            say(v, "encounter begins");
            return true;
        }
        if (argc == 1 && args[0].type == V_WORD) {
            say(v, "%s begins", what);
            return true;
        }
        return vm_error(v, at, "begin what? (encounter, scene, quest, arc)");
    case DK_END:
        if (strcmp(what, "turn") == 0)
            return end_turn(v, at);
        if (strcmp(what, "encounter") == 0) {
            if (!v->in_encounter)
                return vm_error(v, at, "no encounter to end");
            v->in_encounter = false;
            say(v, "encounter ends after %d round%s", v->round, v->round == 1 ? "" : "s");
            v->norder = 0;
            return true;
        }
        if (argc == 1 && args[0].type == V_WORD) {
            say(v, "%s ends", what);
            return true;
        }
        return vm_error(v, at, "end what? (turn, encounter, scene, quest, arc)");
    case DK_ROLL_INITIATIVE: return roll_initiative(v, at);
    case DK_SHOW:
        if (argc == 0) {
            for (size_t c = 0; c < v->ncreatures; c++)
                show_creature(v, (int)c);
            return true;
        }
        for (int i = 0; i < argc; i++) {
            if (args[i].type == V_CREATURE)
                show_creature(v, (int)args[i].num);
            else if (args[i].type == V_WORD && strcmp(program_string(v->p, (int)args[i].num), "order") == 0)
                show_order(v);
            else {
                char val[512];
                vm_format(v, args[i], val, sizeof val);
                say(v, "%s", val);
            }
        }
        return true;
    default: return vm_error(v, at, "unknown play command");
    }
}

/* --- events -------------------------------------------------------------------------- */

/* An event runs every trigger whose `on` clause names it and whose `when`
 * holds (and `unless` does not), in declaration order. */
bool play_emit(vm *v, int event, const value *args, int nargs, span at)
{
    if (v->trigger_depth >= 32)
        return vm_error(v, at, "triggers nested too deeply (limit is 32; a trigger that triggers itself?)");
    int on = word_id(v, "on"), when = word_id(v, "when"), unless = word_id(v, "unless");
    v->trigger_depth++;
    bool ok = true;
    for (size_t i = 0; i < v->p->ndecls && ok; i++) {
        const decl *d = &v->p->decls[i];
        if (d->kind != DK_TRIGGER)
            continue;
        /* the effect: statements in the body, or a `do { }` clause */
        int body = d->body;
        const clause *do_clause = find_clause(v, d, "do");
        if (body < 0 && do_clause)
            body = do_clause->body;
        if (body < 0)
            continue;
        const clause *cl = NULL;
        for (int k = 0; k < d->nclauses; k++)
            if (d->clauses[k].word == on && d->clauses[k].nargs > 0 && d->clauses[k].args[0].word == event)
                cl = &d->clauses[k];
        if (!cl)
            continue;
        bool fire = true;
        for (int a = 1; a + 1 < cl->nargs && ok; a++) {
            const clause_arg *w = &cl->args[a];
            if (w->kind != ARG_WORD || (w->word != when && w->word != unless))
                continue;
            value cond;
            if (cl->args[a + 1].kind == ARG_FORMULA)
                ok = vm_call(v, cl->args[a + 1].chunk, -1, args, nargs, &cond);
            else
                ok = eval_arg(v, &cl->args[a + 1], -1, &cond);
            if (ok && value_truthy(cond) != (w->word == when))
                fire = false;
        }
        if (ok && fire) {
            value r;
            ok = vm_call(v, body, -1, args, nargs, &r);
        }
    }
    v->trigger_depth--;
    return ok;
}
