/* profile: a reference fight under each of two systems, computed from the
 * rules by walking every combination of the dice (see profile.h). */
#define _POSIX_C_SOURCE 200809L
#include "runtime/analysis/profile.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/api/api_internal.h"
#include "runtime/base/mem.h"
#include "runtime/analysis/party.h"
#include "runtime/analysis/sim.h"

/* Dice paths walked for one turn before the fight is simulated instead. */
#define PROFILE_MAX_PATHS 200000
#define PROFILE_MAX_DAMAGE 100000
#define PROFILE_MAX_HEALTH 2000
/* Paths less likely than this are cut: an initiative's rolled ties may go
   on forever; what is still tied after so many rerolls is left out, and
   what is left counts in proportion. A turn's cut paths are counted, and
   if they weigh anything, the turn is not exact. */
#define PROFILE_INITIATIVE_CUT 1e-4
#define PROFILE_TURN_CUT 1e-12
#define PROFILE_CUT_TOLERANCE 1e-9
/* From this many paths on, a walk whose chances so far, kept up, would not
   cover half of the whole by PROFILE_MAX_PATHS stops there: its dice are
   too many (four d10 a side, and a reaction's more), and walking on would
   take minutes to end in a simulation all the same. */
#define PROFILE_PROJECT_AFTER 2000

/* One system's reference fight, as far as it has been worked out. */
typedef struct side_turn {
    double *damage; /* damage[d]: the chance the turn deals d */
    size_t ndamage, damage_cap;
    double met[TALLY_CHECKS]; /* the chance the i-th check the actor compares meets its target */
    int check[TALLY_CHECKS];  /* that check (as some path rolled it), or -1 */
    double cut;               /* the chance of the paths cut (too unlikely, or too many dice) */
    double *fires;            /* per trigger: the chance it fires in the turn */
    size_t nfires;            /* its room: the triggers and one (freed without the program) */
    uint64_t paths;
    double walked;   /* the chance of the paths walked, cut ones too */
    bool too_many;   /* more paths than PROFILE_MAX_PATHS, walked or foreseen */
    bool whole;      /* every path walked: its figures are the turn's */
    bool changed;    /* some path changed more than hit points */
    bool healed;     /* that change was to hit points, other than damage dealt */
    text_buf change; /* the first such change, in words */
} side_turn;

typedef struct fight {
    const char *system;
    const char *system_file; /* where the system was declared */
    const char *uses;        /* the system the profile is written for (its file's name) */
    fray *f;                 /* the profile compiled, with `begin encounter` and `roll initiative` */
    int health;              /* declaration of the health stat */
    int64_t hp[2];
    double first[2];    /* the chance the attacker (0) or the defender (1) acts first */
    bool first_unknown; /* the initiative's dice were too many to walk */
    side_turn turn[2];
    bool exact;   /* every turn's paths were walked and none changed more than hit points */
    text_buf why; /* why not */
    /* the outcome */
    double win[2], draw, drop;
    double rounds; /* the rounds a fight lasts, on average; 0: not known */
    bool simulated;
    uint64_t runs, wins[2], drops;
    /* not one attacker against one defender: the scenario played as written */
    bool party;
    party_fight pf;
} fight;

static void fight_free(fight *g)
{
    for (int k = 0; k < 2; k++) {
        side_turn *t = &g->turn[k];
        if (t->damage)
            mem_free(t->damage, t->damage_cap * sizeof *t->damage);
        if (t->fires)
            mem_free(t->fires, t->nfires * sizeof *t->fires);
    }
    fray_close(g->f);
    party_free(&g->pf);
    text_free(&g->turn[0].change);
    text_free(&g->turn[1].change);
    text_free(&g->why);
}

static const char *const role_names[2] = {"attacker", "defender"};

/* A fresh state of the fight: the profile's commands run (the creatures
   placed, the encounter begun, initiative rolled). */
static vm *fresh(fight *g, tally *t, rng_oracle *o, int *who)
{
    vm *v = world_open(g->f->p, 0, &g->f->v->limits);
    if (!v)
        return NULL;
    v->world->cb.quiet = true;
    v->world->tally = t;
    v->rng.oracle = o;
    bool ok = vm_run_commands(v, 0);
    /* past a pause before round 1 (where the order may still change) to
       the first turn */
    for (int guard = 0; ok && guard < 8 && v->world->cb.active && encounter_acting(v) < 0; guard++)
        ok = encounter_next(v, (span){0});
    v->rng.oracle = NULL;
    for (int k = 0; ok && k < 2; k++)
        who[k] = world_find_creature(v, role_names[k]);
    if (!ok || who[0] < 0 || who[1] < 0) {
        if (!ok) {
            vm *own = g->f->v;
            g->f->v = v;
            api_runtime_failure(g->f);
            g->f->v = own;
        } else
            diag_report(&g->f->sink, DIAG_ERROR, NULL, (span){0},
                        "the profile for %s has no creature named attacker and defender", g->system);
        world_close(v);
        return NULL;
    }
    return v;
}

static double path_weight(const rng_oracle *o)
{
    return o->weight;
}

/* Why a turn's walk is not the whole of it, in g->why; false if it is. */
static bool walk_failed(fight *g, const side_turn *s, bool diverged)
{
    if (diverged)
        text_add(&g->why, "a turn's dice depend on more than its own rolls");
    else if (s->too_many)
        text_add(&g->why, "a turn has more than %d combinations of dice", PROFILE_MAX_PATHS);
    else if (s->cut > PROFILE_CUT_TOLERANCE)
        text_add(&g->why, "dice that go on and on (chains of rerolls): %.2g%% of a turn is cut", 100 * s->cut);
    else
        return false;
    return true;
}

/* Whether a walk of `paths` paths so far, whose chances add up to
   `walked`, has gone, or is seen to go, past PROFILE_MAX_PATHS. */
static bool too_many_paths(uint64_t paths, double walked)
{
    if (paths >= PROFILE_MAX_PATHS)
        return true;
    return paths >= PROFILE_PROJECT_AFTER && paths % 1000 == 0 &&
           walked / (double)paths * (double)PROFILE_MAX_PATHS < 0.5;
}

/* Who acts first: every combination of the initiative dice. */
static bool who_first(fight *g)
{
    rng_oracle o = {.min_weight = PROFILE_INITIATIVE_CUT};
    uint64_t paths = 0;
    double cut = 0, walked = 0;
    tally t = {.health = g->health, .watch = -1, .actor = -1};
    do {
        int who[2];
        rng_oracle_rewind(&o);
        vm *v = fresh(g, &t, &o, who);
        if (!v)
            return false;
        int acting = encounter_acting(v);
        if (paths == 0)
            for (int k = 0; k < 2; k++) {
                value hp;
                g->hp[k] = world_get_stat(v, who[k], g->health, &hp) && value_is_number(hp) ? value_round(hp) : 0;
            }
        if (!o.too_deep && !o.diverged)
            g->first[acting == who[1] ? 1 : 0] += path_weight(&o);
        else
            cut += path_weight(&o);
        walked += path_weight(&o);
        world_close(v);
        if (too_many_paths(++paths, walked)) {
            paths = PROFILE_MAX_PATHS;
            /* the chances of the paths walked are not the whole of them */
            if (!g->why.len)
                text_add(&g->why, "the initiative has more than %d combinations of dice", PROFILE_MAX_PATHS);
            break;
        }
    } while (rng_oracle_advance(&o));
    /* Ties rolled again and again are cut, and the rest counts in
       proportion: that is a small part (a twentieth for two d20s). Dice
       too fine for the cut from their first roll on (two d1000s) leave
       next to nothing, and a proportion of that is no answer. */
    g->first_unknown = cut > 0.5 || paths >= PROFILE_MAX_PATHS;
    if (cut > 0.5 && !g->why.len)
        text_add(&g->why, "the initiative's dice are too many to walk (%.0f%% of its chances would be left out)",
                 100 * cut);
    tally_free(&t);
    return true;
}

static bool add_damage(side_turn *s, int64_t d, double w)
{
    if (d < 0)
        d = 0;
    if (d > PROFILE_MAX_DAMAGE)
        d = PROFILE_MAX_DAMAGE;
    if ((size_t)d >= s->ndamage) {
        double *grown = mem_grow(s->damage, sizeof *grown, &s->damage_cap, (size_t)d + 1);
        if (!grown)
            return false;
        s->damage = grown;
        memset(grown + s->ndamage, 0, ((size_t)d + 1 - s->ndamage) * sizeof *grown);
        s->ndamage = (size_t)d + 1;
    }
    s->damage[d] += w;
    return true;
}

/* One creature's turn against the other, every combination of its dice. */
static bool walk_turn(fight *g, int k)
{
    side_turn *s = &g->turn[k];
    size_t ntrig = g->f->p->rules->ntriggers;
    s->fires = MEM_NEW_ARRAY(double, ntrig + 1);
    s->nfires = ntrig + 1;
    uint64_t *fired = MEM_NEW_ARRAY(uint64_t, ntrig + 1);
    if (!s->fires || !fired) {
        if (fired)
            mem_free(fired, (ntrig + 1) * sizeof *fired);
        return false;
    }
    for (int i = 0; i < TALLY_CHECKS; i++)
        s->check[i] = -1;
    rng_oracle o = {.min_weight = PROFILE_TURN_CUT};
    bool ok = true, diverged = false;
    do {
        tally t = {.health = g->health, .watch = -1, .actor = -1, .ntriggers = ntrig, .fired = fired};
        int who[2];
        vm *v = fresh(g, &t, NULL, who);
        if (!v) {
            ok = false;
            break;
        }
        /* to the turn of the one who acts */
        bool failed = false;
        for (int guard = 0; guard < 8 && v->world->cb.active && encounter_acting(v) != who[k] && !failed; guard++)
            failed = !encounter_next(v, (span){0});
        memset(fired, 0, ntrig * sizeof *fired);
        for (size_t c = 0; c < t.ncreatures; c++)
            t.taken[c] = t.dealt[c] = 0;
        t.nchecks = 0;
        t.actor = who[k];
        t.changed = false;
        t.watch = who[1 - k];
        rng_oracle_rewind(&o);
        v->rng.oracle = &o;
        bool acts = !failed && encounter_acting(v) == who[k];
        if (acts)
            failed = !encounter_play_tactic(v, who[k], (span){0});
        v->rng.oracle = NULL;
        if (failed || !acts) {
            vm *own = g->f->v;
            g->f->v = v;
            if (failed)
                api_runtime_failure(g->f);
            else
                diag_report(&g->f->sink, DIAG_ERROR, NULL, (span){0}, "in the profile for %s, the %s never gets a turn",
                            g->system, role_names[k]);
            g->f->v = own;
            tally_free(&t);
            world_close(v);
            ok = false;
            break;
        }
        double w = path_weight(&o);
        s->walked += w;
        if (o.too_deep || o.diverged) {
            /* cut: what it would have added is counted as cut */
            s->cut += w;
            diverged |= o.diverged;
            tally_free(&t);
            world_close(v);
            if (too_many_paths(++s->paths, s->walked)) {
                s->too_many = true;
                break;
            }
            continue;
        }
        int64_t dealt = (size_t)who[1 - k] < t.ncreatures ? t.taken[who[1 - k]] : 0;
        ok = add_damage(s, dealt, w) && !t.failed;
        /* the chain knows only the damage one deals the other: a turn that
           heals either, or hurts the one who acts, is not a link of it
           (damage is counted as it is dealt, healing nowhere) */
        value hp[2];
        for (int c = 0; c < 2 && !t.changed && !s->changed; c++) {
            int64_t want = c == k ? g->hp[c] : g->hp[c] - dealt;
            if (world_get_stat(v, who[c], g->health, &hp[c]) && value_is_number(hp[c]) &&
                (c == k ? value_round(hp[c]) != want : value_round(hp[c]) > want)) {
                s->changed = s->healed = true;
                if (c == k)
                    text_add(&s->change, "changes its own hit points");
                else
                    text_add(&s->change, "restores the %s's hit points", role_names[c]);
            }
        }
        for (int i = 0; i < t.nchecks; i++) {
            s->check[i] = t.check[i];
            s->met[i] += t.met[i] ? w : 0;
        }
        for (size_t i = 0; i < ntrig; i++)
            s->fires[i] += fired[i] ? w : 0;
        /* what happens as the target goes down is the end of the chain,
           not a change it must carry */
        value left;
        if (t.changed && world_get_stat(v, who[1 - k], g->health, &left) && value_is_number(left) &&
            value_round(left) <= 0)
            t.changed = false;
        if (t.changed && !s->changed) {
            const program *p = g->f->p;
            if (t.changed_condition >= 0)
                text_add(&s->change, "applies %s", program_string(p, p->rules->conditions[t.changed_condition].name));
            else
                text_add(&s->change, "changes the %s's %s", role_names[1 - k],
                         t.changed_stat >= 0 ? program_string(p, p->decls[t.changed_stat].name) : "stats");
        }
        s->changed |= t.changed;
        tally_free(&t);
        world_close(v);
        if (ok && too_many_paths(++s->paths, s->walked)) {
            s->too_many = true;
            break;
        }
    } while (ok && rng_oracle_advance(&o));
    s->whole = ok && !s->too_many && !diverged && s->cut <= PROFILE_CUT_TOLERANCE;
    mem_free(fired, (ntrig + 1) * sizeof *fired);
    if (ok && !g->why.len)
        walk_failed(g, s, diverged);
    if (ok && s->changed && !g->why.len)
        text_add(&g->why, "the %s's turn %s%s", role_names[k], s->change.s,
                 s->healed ? ", not by damage the other deals" : ": more than hit points change");
    return ok;
}

/* --- the fight to the end ---------------------------------------------------------------- */

/* Two tables over both creatures' hit points, zeroed. */
static void grids_free(size_t cells, double *a, double *b)
{
    if (a)
        mem_free(a, cells * sizeof *a);
    if (b)
        mem_free(b, cells * sizeof *b);
}

static bool grids_new(size_t cells, double **a, double **b)
{
    *a = MEM_NEW_ARRAY(double, cells);
    *b = MEM_NEW_ARRAY(double, cells);
    if (*a && *b)
        return true;
    grids_free(cells, *a, *b);
    return false;
}

/* The chance the attacker wins from full health, each side in turn, the
   attacker or the defender first: a chain over both health totals, solved
   from the lowest totals up (a turn without damage leaves the state as it
   was: the two turns' loops are solved together). */
static bool chain(fight *g)
{
    int64_t ha = g->hp[0], hb = g->hp[1];
    if (ha < 1 || hb < 1 || ha > PROFILE_MAX_HEALTH || hb > PROFILE_MAX_HEALTH) {
        text_clear(&g->why);
        text_add(&g->why, "hit points of %" PRId64 " and %" PRId64 " are outside 1..%d", ha, hb, PROFILE_MAX_HEALTH);
        return true;
    }
    size_t cells = (size_t)(ha + 1) * (size_t)(hb + 1);
    double *fa, *fb;
    if (!grids_new(cells, &fa, &fb))
        return false;
#define AT(x, y) ((size_t)(x) * (size_t)(hb + 1) + (size_t)(y))
    const side_turn *ta = &g->turn[0], *tb = &g->turn[1];
    double a0 = ta->ndamage ? ta->damage[0] : 1, b0 = tb->ndamage ? tb->damage[0] : 1;
    for (int64_t x = 1; x <= ha; x++)
        for (int64_t y = 1; y <= hb; y++) {
            /* ra: the attacker's turn with damage; rb: the defender's */
            double ra = 0, rb = 0;
            for (size_t d = 1; d < ta->ndamage; d++)
                ra += ta->damage[d] * ((int64_t)d >= y ? 1 : fb[AT(x, y - (int64_t)d)]);
            for (size_t d = 1; d < tb->ndamage; d++)
                rb += tb->damage[d] * ((int64_t)d >= x ? 0 : fa[AT(x - (int64_t)d, y)]);
            double loop = 1 - a0 * b0;
            fa[AT(x, y)] = loop > 1e-15 ? (ra + a0 * rb) / loop : 0;
            fb[AT(x, y)] = loop > 1e-15 ? (rb + b0 * ra) / loop : 0;
        }
    double win_first = fa[AT(ha, hb)], win_second = fb[AT(ha, hb)];
    /* the same chain the other way round gives the defender's chances */
    double first = g->first[0] + g->first[1] > 0 ? g->first[0] / (g->first[0] + g->first[1]) : 0.5;
    g->win[0] = first * win_first + (1 - first) * win_second;
    grids_free(cells, fa, fb);
#undef AT
    /* a draw only when neither can ever hurt the other */
    g->draw = (a0 >= 1 - 1e-15 && b0 >= 1 - 1e-15) ? 1 : 0;
    g->win[1] = g->draw ? 0 : 1 - g->win[0] > 0 ? 1 - g->win[0] : 0;
    return true;
}

/* The chance the attacker has won by the end of round n: the same chain
   over n rounds only, in each order of turns. h holds the chances after
   the first mover's turn of a round, w before it. */
/* Most steps spent on the mean length of a fight (cells times damages
   each side may deal): past it, the length is not given. */
#define PROFILE_MAX_ROUNDS_WORK 200000000.0

/* The rounds a fight lasts, on average: a round ends the fight when
   either falls in it, whoever acts first, so from hit points x and y a
   fight goes on to x - e and y - d with the chance of d and of e, each
   less than what would fell its target: R(x, y) = 1 + sum of those
   chances times R(x - e, y - d), the round that deals nothing on either
   side solved for. */
static bool mean_rounds(fight *g)
{
    int64_t ha = g->hp[0], hb = g->hp[1];
    const side_turn *ta = &g->turn[0], *tb = &g->turn[1];
    double a0 = ta->ndamage ? ta->damage[0] : 1, b0 = tb->ndamage ? tb->damage[0] : 1;
    g->rounds = 0;
    if (ha < 1 || hb < 1 || ha > PROFILE_MAX_HEALTH || hb > PROFILE_MAX_HEALTH || 1 - a0 * b0 < 1e-12 ||
        (double)ha * (double)hb * (double)(ta->ndamage + 1) * (double)(tb->ndamage + 1) > PROFILE_MAX_ROUNDS_WORK)
        return true;
    size_t cells = (size_t)(ha + 1) * (size_t)(hb + 1);
    double *r = MEM_NEW_ARRAY(double, cells);
    if (!r)
        return false;
#define AT(x, y) ((size_t)(x) * (size_t)(hb + 1) + (size_t)(y))
    for (int64_t x = 1; x <= ha; x++)
        for (int64_t y = 1; y <= hb; y++) {
            double sum = 1;
            for (size_t d = 0; d < ta->ndamage && (int64_t)d < y; d++)
                for (size_t e = 0; e < tb->ndamage && (int64_t)e < x; e++)
                    if (d || e)
                        sum += ta->damage[d] * tb->damage[e] * r[AT(x - (int64_t)e, y - (int64_t)d)];
            r[AT(x, y)] = sum / (1 - a0 * b0);
        }
    g->rounds = r[AT(ha, hb)];
#undef AT
    grids_free(cells, r, NULL);
    return true;
}

static bool win_within(fight *g, int n)
{
    int64_t ha = g->hp[0], hb = g->hp[1];
    if (ha < 1 || hb < 1 || ha > PROFILE_MAX_HEALTH || hb > PROFILE_MAX_HEALTH)
        return true;
    size_t cells = (size_t)(ha + 1) * (size_t)(hb + 1);
    double *w, *h;
    if (!grids_new(cells, &w, &h))
        return false;
#define AT(x, y) ((size_t)(x) * (size_t)(hb + 1) + (size_t)(y))
    const side_turn *ta = &g->turn[0], *tb = &g->turn[1];
    double result[2];
    for (int order = 0; order < 2; order++) {
        /* order 0: the attacker moves first in each round */
        memset(w, 0, cells * sizeof *w);
        for (int r = 0; r < n; r++) {
            for (int64_t x = 1; x <= ha; x++)
                for (int64_t y = 1; y <= hb; y++) {
                    double sum = 0;
                    if (order == 0) /* the defender's turn, second: then the next round */
                        for (size_t e = 0; e < tb->ndamage; e++)
                            sum += tb->damage[e] * ((int64_t)e >= x ? 0 : w[AT(x - (int64_t)e, y)]);
                    else /* the attacker's turn, second */
                        for (size_t d = 0; d < ta->ndamage; d++)
                            sum += ta->damage[d] * ((int64_t)d >= y ? 1 : w[AT(x, y - (int64_t)d)]);
                    h[AT(x, y)] = sum;
                }
            for (int64_t x = 1; x <= ha; x++)
                for (int64_t y = 1; y <= hb; y++) {
                    double sum = 0;
                    if (order == 0) /* the attacker's turn, first */
                        for (size_t d = 0; d < ta->ndamage; d++)
                            sum += ta->damage[d] * ((int64_t)d >= y ? 1 : h[AT(x, y - (int64_t)d)]);
                    else /* the defender's turn, first */
                        for (size_t e = 0; e < tb->ndamage; e++)
                            sum += tb->damage[e] * ((int64_t)e >= x ? 0 : h[AT(x - (int64_t)e, y)]);
                    w[AT(x, y)] = sum;
                }
        }
        result[order] = w[AT(ha, hb)];
    }
#undef AT
    double first = g->first[0] + g->first[1] > 0 ? g->first[0] / (g->first[0] + g->first[1]) : 0.5;
    g->drop = first * result[0] + (1 - first) * result[1];
    grids_free(cells, w, h);
    return true;
}

/* Where the turns cannot be chained: the fight played many times. */
static bool simulate(fight *g, fray *parent, const char *path, const fray_diff_options *o)
{
    fray_sim_options so = {.runs = o->runs ? o->runs : 2000,
                           .threads = o->threads,
                           .system_path = g->system_file,
                           .system_use = g->uses,
                           .then = "begin encounter\nroll initiative\nfight\n"};
    fray_sim_result *r;
    if (fray_sim(parent, path, &so, &r) != FRAY_OK)
        return false;
    g->simulated = true;
    g->runs = r->runs;
    /* the sides of the two creatures */
    const char *side[2] = {role_names[0], role_names[1]};
    for (size_t c = 0; c < r->ncreatures; c++)
        for (int k = 0; k < 2; k++)
            if (!strcmp(r->creatures[c].name, role_names[k]) && r->creatures[c].side)
                side[k] = r->creatures[c].side;
    for (size_t s = 0; s < r->nsides; s++)
        for (int k = 0; k < 2; k++)
            if (!strcmp(r->sides[s].name, side[k]))
                g->wins[k] = r->sides[s].wins;
    /* won by round n: the attacker's side, in the runs that ended by then */
    int n = o->rounds ? o->rounds : 3;
    for (size_t s = 0; s < r->nsides; s++)
        if (!strcmp(r->sides[s].name, side[0]))
            for (size_t k = 0; k < r->sides[s].nrounds && (int)k <= n; k++)
                g->drops += r->sides[s].rounds[k];
    uint64_t total = 0, decided = 0;
    for (size_t k = 1; k < r->nrounds; k++)
        total += (uint64_t)k * r->rounds[k], decided += r->rounds[k];
    g->rounds = decided ? (double)total / (double)decided : 0;
    fray_sim_free(r);
    return true;
}

/* Whether the profile is a duel: creatures named attacker and defender. */
static bool has_duel(const program *p)
{
    int found = 0;
    for (int i = 0; i < p->rules->ncreatures; i++)
        for (int k = 0; k < 2; k++)
            found |= !strcmp(program_string(p, p->rules->creatures[i].name), role_names[k]) << k;
    return found == 3;
}

static bool work_out(fight *g, fray *parent, const fray_diff_options *o, const char *path)
{
    fray_options fo = {.quiet = true};
    g->f = fray_open(&fo);
    if (!g->f)
        return false;
    g->f->v->limits = parent->v->limits;
    fray_on_diagnostic(g->f, parent->on_diag, parent->diag_user);
    g->f->color = parent->color;
    const char *setup = "begin encounter\nroll initiative\n";
    /* the system as the caller loaded it, then the profile on top */
    const program *pp = parent->p;
    const decl *sys = pp->system_name >= 0 ? program_find_decl(pp, DK_SYSTEM, pp->system_name) : NULL;
    const char *system_file = sys && sys->where.source < pp->nsources ? pp->sources[sys->where.source]->name : NULL;
    struct stat st;
    if (system_file && (stat(system_file, &st) != 0 || !S_ISREG(st.st_mode)))
        system_file = program_string(pp, pp->system_name); /* built in: by its name */
    g->system_file = system_file;
    if (!system_file)
        return false;
    /* the profile's `use` of its system loads the system compared */
    compile_options copts = parent->copts;
    copts.use_instead_name = g->uses;
    copts.use_instead_path = system_file;
    if (compile_file(g->f->p, path, &g->f->sink, &copts) != 0 ||
        compile_string(g->f->p, path, setup, strlen(setup), &g->f->sink, &copts) != 0)
        return false;
    const rules *r = g->f->p->rules;
    if (!has_duel(g->f->p)) {
        g->party = true;
        return party_play(&g->pf, parent, path, system_file, g->uses, o);
    }
    /* the first declaration, as a run counts damage by it: the tracker may
       name a later override (a system's own hp) */
    const program *p = g->f->p;
    g->health =
        r->encounter.ntrack > 0 ? sim_find_health(p, program_string(p, p->decls[r->encounter.track[0]].name)) : -1;
    if (g->health < 0) {
        diag_report(&g->f->sink, DIAG_ERROR, NULL, (span){0},
                    "%s: the rules' encounter tracks no stat, so damage cannot be told", path);
        return false;
    }
    if (!who_first(g) || !walk_turn(g, 0) || !walk_turn(g, 1))
        return false;
    g->exact = !g->why.len;
    if (g->exact)
        return chain(g) && win_within(g, o->rounds ? o->rounds : 3) && mean_rounds(g) &&
               (g->exact = !g->why.len, true) && (g->exact || simulate(g, parent, path, o));
    return simulate(g, parent, path, o);
}

/* --- the rows ----------------------------------------------------------------------------- */

/* A chance as the report shows it: "12.50%" (at most 9 characters). */
static void percent_into(char *buf, size_t cap, double p)
{
    snprintf(buf, cap, "%.2f%%", 100 * p);
}

static void percent(text_buf *out, double p)
{
    text_add(out, "%.2f%%", 100 * p);
}

static void share(text_buf *out, uint64_t k, uint64_t n, double *p)
{
    *p = n ? (double)k / (double)n : 0;
    /* Wilson's 95% interval, as `fray sim` gives */
    const double z = 1.959963984540054;
    double nn = (double)n, c = (*p + z * z / (2 * nn)) / (1 + z * z / nn);
    double h = z * sqrt(*p * (1 - *p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);
    text_add(out, "%.1f%% (%.1f-%.1f, %" PRIu64 " fights simulated)", n ? 100.0 * (double)k / (double)n : 0,
             100 * (c - h > 0 ? c - h : 0), 100 * (c + h < 1 ? c + h : 1), n);
}

static const char *check_name(const fight *g, int i)
{
    int c = g->turn[0].check[i];
    return c >= 0 ? program_string(g->f->p, g->f->p->rules->checks[c].name) : NULL;
}

/* A row of a figure each fight has (or not: NULL). */
typedef void (*figure_fn)(const fight *g, text_buf *out, double *p);

static void row(report_builder *rb, const char *label, fight *g, figure_fn fn)
{
    text_buf a, b;
    text_init(&a);
    text_init(&b);
    double pa = -1, pb = -1;
    const char *ta = NULL, *tb = NULL;
    if (g[0].f) {
        fn(&g[0], &a, &pa);
        ta = a.len ? a.s : NULL;
    }
    if (g[1].f) {
        fn(&g[1], &b, &pb);
        tb = b.len ? b.s : NULL;
    }
    report_prob_row(rb, label, ta, tb, ta ? pa : -1, tb ? pb : -1);
    text_free(&a);
    text_free(&b);
}

static void fig_hp(const fight *g, text_buf *out, double *p)
{
    *p = -1;
    text_add(out, "%" PRId64 " and %" PRId64, g->hp[0], g->hp[1]);
}
static void fig_first(const fight *g, text_buf *out, double *p)
{
    if (g->first_unknown) { /* not walked, and a simulation does not tell it */
        *p = -1;
        return;
    }
    double total = g->first[0] + g->first[1];
    *p = total > 0 ? g->first[0] / total : 0;
    percent(out, *p);
}
static void fig_met(const fight *g, int i, text_buf *out, double *p)
{
    const char *name = check_name(g, i);
    *p = g->turn[0].met[i];
    if (!name || !g->turn[0].whole) {
        *p = -1;
        return;
    }
    text_add(out, "%.2f%% (%s)", 100 * *p, name);
}

/* The rows of the checks the attacker compares in its turn, in order:
   each may come in some paths only (a confirmation after a threat). */
static void check_rows(report_builder *rb, fight *g)
{
    for (int i = 0; i < TALLY_CHECKS; i++) {
        text_buf text[2];
        char label[64];
        double p[2] = {-1, -1};
        const char *cell[2] = {NULL, NULL};
        for (int s = 0; s < 2; s++) {
            text_init(&text[s]);
            if (g[s].f) {
                fig_met(&g[s], i, &text[s], &p[s]);
                cell[s] = text[s].len ? text[s].s : NULL;
            }
        }
        bool none = !cell[0] && !cell[1];
        if (!none) {
            snprintf(label, sizeof label, "check %d met", i + 1);
            report_prob_row(rb, label, cell[0], cell[1], cell[0] ? p[0] : -1, cell[1] ? p[1] : -1);
        }
        text_free(&text[0]);
        text_free(&text[1]);
        if (none)
            break;
    }
}

static void fig_mean(const fight *g, text_buf *out, double *p)
{
    *p = -1;
    if (!g->turn[0].whole) /* a part of the turn's chances is no figure of it */
        return;
    double m = 0;
    for (size_t d = 0; d < g->turn[0].ndamage; d++)
        m += (double)d * g->turn[0].damage[d];
    text_add(out, "%.3f", m);
}
static void fig_none(const fight *g, text_buf *out, double *p)
{
    *p = -1;
    if (!g->turn[0].whole)
        return;
    *p = g->turn[0].ndamage ? g->turn[0].damage[0] : 1;
    percent(out, *p);
}
static void fig_drop(const fight *g, text_buf *out, double *p)
{
    if (g->simulated)
        share(out, g->drops, g->runs, p);
    else {
        *p = g->drop;
        percent(out, *p);
    }
}
static void fig_win(const fight *g, text_buf *out, double *p, int k)
{
    if (g->simulated)
        share(out, g->wins[k], g->runs, p);
    else {
        *p = g->win[k];
        percent(out, *p);
    }
}
static void fig_win_a(const fight *g, text_buf *out, double *p)
{
    fig_win(g, out, p, 0);
}
static void fig_win_b(const fight *g, text_buf *out, double *p)
{
    fig_win(g, out, p, 1);
}
static void fig_rounds(const fight *g, text_buf *out, double *p)
{
    *p = -1;
    if (g->rounds > 0)
        text_add(out, "%.2f%s", g->rounds, g->simulated ? " (simulated)" : "");
}
static void fig_how(const fight *g, text_buf *out, double *p)
{
    *p = -1;
    if (g->simulated)
        text_add(out, "simulated: %s", g->why.s);
    else
        text_add(out, "exact (%" PRIu64 " and %" PRIu64 " dice paths)", g->turn[0].paths, g->turn[1].paths);
}

/* Damage in bins, at most a dozen rows over both systems' range. */
static void damage_rows(report_builder *rb, fight *g)
{
    size_t top = 0;
    for (int s = 0; s < 2; s++)
        if (g[s].f && g[s].turn[0].whole && g[s].turn[0].ndamage > top)
            top = g[s].turn[0].ndamage;
    size_t width = top > 12 ? (top + 11) / 12 : 1;
    for (size_t lo = 1; lo < top; lo += width) {
        size_t hi = lo + width - 1 < top - 1 ? lo + width - 1 : top - 1;
        char label[64], cell[2][32];
        double p[2] = {-1, -1};
        const char *text[2] = {NULL, NULL};
        for (int s = 0; s < 2; s++) {
            if (!g[s].f || !g[s].turn[0].whole)
                continue;
            p[s] = 0;
            for (size_t d = lo; d <= hi && d < g[s].turn[0].ndamage; d++)
                p[s] += g[s].turn[0].damage[d];
            percent_into(cell[s], sizeof cell[s], p[s]);
            text[s] = cell[s];
        }
        if (p[0] <= 0 && p[1] <= 0)
            continue; /* no system deals that much */
        if (lo == hi)
            snprintf(label, sizeof label, "  deals %zu", lo);
        else
            snprintf(label, sizeof label, "  deals %zu to %zu", lo, hi);
        report_prob_row(rb, label, text[0], text[1], p[0], p[1]);
    }
}

/* The chance each trigger fires in the attacker's turn, where it may or
   may not (a trigger that always fires says nothing). */
static void trigger_rows(report_builder *rb, fight *g)
{
    for (int s = 0; s < 2; s++) {
        if (!g[s].f || !g[s].turn[0].whole)
            continue;
        const rules *r = g[s].f->p->rules;
        for (int i = 0; i < r->ntriggers; i++) {
            double p = g[s].turn[0].fires[i];
            if (p <= 1e-12 || p >= 1 - 1e-12)
                continue;
            const char *name = program_string(g[s].f->p, r->triggers[i].name);
            /* the other system's chance for a trigger of the same name */
            int other = 1 - s;
            if (s == 1 && g[0].f && program_find_string(g[0].f->p, name) >= 0 &&
                rules_trigger(g[0].f->p->rules, program_find_string(g[0].f->p, name)) >= 0)
                continue; /* shown with system A's */
            double q = -1;
            char a[32], b[32];
            if (g[other].f && g[other].turn[0].whole) {
                int id = program_find_string(g[other].f->p, name);
                int t = id >= 0 ? rules_trigger(g[other].f->p->rules, id) : -1;
                q = t >= 0 ? g[other].turn[0].fires[t] : -1;
            }
            percent_into(s == 0 ? a : b, 32, p);
            if (q >= 0)
                percent_into(s == 0 ? b : a, 32, q);
            text_buf label;
            text_init(&label);
            text_add(&label, "  %s fires", name);
            const char *ta = s == 0 ? a : (q >= 0 ? a : NULL), *tb = s == 1 ? b : (q >= 0 ? b : NULL);
            report_prob_row(rb, label.s, ta, tb, s == 0 ? p : q, s == 1 ? p : q);
            text_free(&label);
        }
    }
}

/* --- a party's fight: by side ------------------------------------------------------------- */

/* Every side either fight has, A's first, then those only B has. */
static size_t party_sides(const fight *g, const char **out)
{
    size_t n = 0;
    for (int s = 0; s < 2; s++)
        for (size_t k = 0; g[s].party && k < g[s].pf.nsides && n < 2 * PARTY_MOST_SIDES; k++) {
            bool seen = false;
            for (size_t j = 0; j < n && !seen; j++)
                seen = !strcmp(out[j], g[s].pf.side[k]);
            if (!seen)
                out[n++] = g[s].pf.side[k];
        }
    return n;
}

/* What a party's fight says of a side (which), into out; -1 in *p for no bar. */
typedef enum { SIDE_WINS, SIDE_WINS_BY, SIDE_DAMAGE } side_figure;

static void side_cell(const fight *g, const char *side, side_figure which, text_buf *out, double *p)
{
    *p = -1;
    int k = g->party ? party_side(&g->pf, side) : -1;
    if (k < 0)
        return;
    if (which == SIDE_DAMAGE)
        text_add(out, "%.2f", party_damage_per_round(&g->pf, (size_t)k));
    else
        share(out, which == SIDE_WINS ? g->pf.wins[k] : g->pf.by[k], g->pf.runs, p);
}

static void side_row(report_builder *rb, const char *label, const fight *g, const char *side, side_figure which)
{
    text_buf cell[2];
    double p[2];
    for (int s = 0; s < 2; s++) {
        text_init(&cell[s]);
        side_cell(&g[s], side, which, &cell[s], &p[s]);
    }
    report_prob_row(rb, label, cell[0].len ? cell[0].s : NULL, cell[1].len ? cell[1].s : NULL, p[0], p[1]);
    text_free(&cell[0]);
    text_free(&cell[1]);
}

static void fig_party_how(const fight *g, text_buf *out, double *p)
{
    *p = -1;
    if (g->party)
        text_add(out, "simulated: the scenario as written, %" PRIu64 " fights", g->pf.runs);
}
static void fig_party_rounds(const fight *g, text_buf *out, double *p)
{
    *p = -1;
    if (g->party && g->pf.runs)
        text_add(out, "%.2f", (double)g->pf.rounds / (double)g->pf.runs);
}

/* The rows of a fight of sides: who wins, in how many rounds, dealing what. */
static void party_rows(report_builder *rb, fight *g, int n)
{
    const char *sides[2 * PARTY_MOST_SIDES];
    size_t nsides = party_sides(g, sides);
    row(rb, "how", g, fig_party_how);
    for (size_t k = 0; k < nsides; k++) {
        text_buf label;
        text_init(&label);
        text_add(&label, "damage per round, %s", sides[k]);
        side_row(rb, label.s, g, sides[k], SIDE_DAMAGE);
        text_free(&label);
    }
    row(rb, "rounds a fight lasts", g, fig_party_rounds);
    for (size_t k = 0; k < nsides; k++) {
        text_buf label;
        text_init(&label);
        text_add(&label, "%s wins by round %d", sides[k], n);
        side_row(rb, label.s, g, sides[k], SIDE_WINS_BY);
        text_clear(&label);
        text_add(&label, "%s wins", sides[k]);
        side_row(rb, label.s, g, sides[k], SIDE_WINS);
        text_free(&label);
    }
}

/* --- each change of a variant alone -------------------------------------------------------- */

/* The figures a change is ranked by: the attacker's wins, its wins by
   round N, and the mean damage of its turn. */
typedef struct outcome {
    double win, drop, damage;
} outcome;

static double mean_damage(const fight *g)
{
    double m = 0;
    for (size_t d = 0; d < g->turn[0].ndamage; d++)
        m += (double)d * g->turn[0].damage[d];
    return m;
}

static outcome outcome_of(const fight *g)
{
    if (g->party) { /* its first side's */
        const party_fight *pf = &g->pf;
        if (!pf->nsides || !pf->runs)
            return (outcome){0};
        return (outcome){(double)pf->wins[0] / (double)pf->runs, (double)pf->by[0] / (double)pf->runs,
                         party_damage_per_round(pf, 0)};
    }
    outcome r = {.damage = mean_damage(g)};
    text_buf t;
    text_init(&t);
    fig_win(g, &t, &r.win, 0);
    text_clear(&t);
    fig_drop(g, &t, &r.drop);
    text_free(&t);
    return r;
}

/* How far a change moves the fight, the outcome first: how much it adds
   to or takes from the attacker's wins, then from its wins by round N
   (shares), then the damage per turn (a share of A's). */
static outcome effect_of(outcome a, outcome b)
{
    return (outcome){fabs(b.win - a.win), fabs(b.drop - a.drop),
                     a.damage > 0 ? fabs(b.damage - a.damage) / a.damage : fabs(b.damage - a.damage)};
}

typedef struct change {
    const decl *d;
    bool played; /* alone; else cell says why not */
    outcome effect;
    char *cell; /* what it does (text_bufs are not moved: the changes are sorted) */
} change;

/* The first error of a change played alone, kept to say why it could not be. */
static void keep_first_error(void *user, const fray_diagnostic *d)
{
    text_buf *why = user;
    if (d->level == FRAY_ERROR && !why->len)
        text_put(why, d->message);
}

/* The change's cell: each figure it moves, with how far, as it is ranked. */
static void describe(text_buf *out, const fight *ref, outcome a, outcome b, int n)
{
    /* in the fight's own terms: a duel's attacker, or a fight's first side */
    const char *who = ref->party ? ref->pf.side[0] : "attacker";
    if (fabs(b.win - a.win) > 1e-9)
        text_add(out, "%s wins %.2f%% (%+.2f pts)", who, 100 * b.win, 100 * (b.win - a.win));
    if (fabs(b.drop - a.drop) > 1e-9)
        text_add(out, "%swins by round %d %.2f%% (%+.2f pts)", out->len ? "; " : "", n, 100 * b.drop,
                 100 * (b.drop - a.drop));
    if (fabs(b.damage - a.damage) > 1e-9) {
        text_add(out, "%sdamage per %s %.3f (%+.3g", out->len ? "; " : "", ref->party ? "round" : "turn", b.damage,
                 b.damage - a.damage);
        if (a.damage > 0)
            text_add(out, ", x%.2f", b.damage / a.damage);
        text_put(out, ")");
    }
    if (!out->len)
        text_put(out, "no change to the fight");
}

/* The fight under B with only the change c of B's own file, the others
   left out; its cell says what it does (or why it cannot be played so). */
static bool play_alone(fray *b, const char *file, change *c, const fight *ref, const fray_diff_options *o,
                       const char *path, const char *uses)
{
    fray_options fo = {.quiet = true};
    fray *alone = fray_open(&fo);
    if (!alone)
        return false;
    alone->v->limits = b->v->limits;
    text_buf why;
    text_init(&why);
    fray_on_diagnostic(alone, keep_first_error, &why);
    alone->copts = b->copts;
    alone->copts.only_override_file = file;
    alone->copts.only_override_kind = (int)c->d->kind;
    alone->copts.only_override_name = c->d->name >= 0 ? program_string(b->p, c->d->name) : NULL;
    fight g = {.uses = uses};
    text_buf cell;
    text_init(&cell);
    text_init(&g.why);
    text_init(&g.turn[0].change);
    text_init(&g.turn[1].change);
    if (fray_check_file(alone, file, false) == FRAY_OK && work_out(&g, alone, o, path)) {
        outcome a = outcome_of(ref), with = outcome_of(&g);
        c->played = true;
        c->effect = effect_of(a, with);
        describe(&cell, ref, a, with, o->rounds ? o->rounds : 3);
        uint64_t runs = g.party ? g.pf.runs : g.simulated ? g.runs : 0;
        if (runs) {
            /* the 95% half-width of a difference of two shares of this many
               fights, taken as independent (they share their seeds, which
               only narrows it): a change to the wins within it may be chance */
            double half = 1.959963984540054 * sqrt(2 * a.win * (1 - a.win) / (double)runs);
            text_add(&cell, " (simulated, %" PRIu64 " fights%s)", runs,
                     fabs(with.win - a.win) < half ? "; the change to the wins is within chance" : "");
        }
    } else {
        text_add(&cell, "not played alone: %s", why.len ? why.s : "out of memory");
    }
    fight_free(&g);
    fray_close(alone);
    c->cell = mem_strndup(cell.s, cell.len);
    bool kept = c->cell && !cell.cut;
    text_free(&cell);
    text_free(&why);
    return kept;
}

/* Whether a change moves the fight at all. */
static bool moves(const change *c)
{
    return c->played && (c->effect.win > 1e-9 || c->effect.drop > 1e-9 || c->effect.damage > 1e-9);
}

static int by_effect(const void *x, const void *y)
{
    const change *a = x, *b = y;
    if (a->played != b->played)
        return a->played ? -1 : 1;
    double da[3] = {a->effect.win, a->effect.drop, a->effect.damage};
    double db[3] = {b->effect.win, b->effect.drop, b->effect.damage};
    for (int i = 0; i < 3; i++)
        if (fabs(da[i] - db[i]) > 1e-9)
            return da[i] < db[i] ? 1 : -1;
    return a->d < b->d ? -1 : a->d > b->d; /* the order they are declared in */
}

/* Where B extends A, each override written in B's own file played alone on
   A, ranked by how far it moves the reference fight (g: A's and B's). */
static bool change_rows(report_builder *rb, fray *a, fray *b, fight *g, const fray_diff_options *o, const char *path)
{
    const program *pa = a->p, *pb = b->p;
    if (!g[0].f || !g[1].f || pb->system_base < 0 || pa->system_name < 0 ||
        strcmp(program_string(pb, pb->system_base), program_string(pa, pa->system_name)))
        return true;
    const decl *sys = program_find_decl(pb, DK_SYSTEM, pb->system_name);
    if (!sys || sys->where.source >= pb->nsources)
        return true;
    const char *file = pb->sources[sys->where.source]->name;
    size_t n = 0;
    for (size_t i = 0; i < pb->ndecls; i++)
        n += pb->decls[i].overrides && pb->decls[i].where.source == sys->where.source;
    if (!n)
        return true;
    change *cs = MEM_NEW_ARRAY(change, n);
    if (!cs)
        return false;
    size_t k = 0;
    bool ok = true;
    for (size_t i = 0; i < pb->ndecls && ok; i++)
        if (pb->decls[i].overrides && pb->decls[i].where.source == sys->where.source) {
            cs[k] = (change){.d = &pb->decls[i]};
            ok = play_alone(b, file, &cs[k++], &g[0], o, path, g[1].uses);
        }
    if (ok) {
        qsort(cs, k, sizeof *cs, by_effect);
        text_buf note;
        text_init(&note);
        if (g[0].party)
            text_add(&note,
                     "each of B's overrides alone on A, in the reference fight, ranked by how far it moves the %s "
                     "side's wins, then its wins by the round, then its damage per round",
                     g[0].pf.side[0]);
        else
            text_put(&note, "each of B's overrides alone on A, in the reference fight, ranked by how far it moves the "
                            "attacker's wins, then its wins by the round, then the damage per turn");
        report_section(rb, PROFILE_CHANGES_TITLE, note.s);
        text_free(&note);
        report_mark(rb, false, true);
        for (size_t i = 0; i < k; i++) {
            const char *kind = decl_kind_name(cs[i].d->kind);
            text_buf cell;
            text_init(&cell);
            text_add(&cell, "%s: %s", kind, cs[i].cell);
            report_row(rb, cs[i].d->name >= 0 ? program_string(pb, cs[i].d->name) : kind, NULL, cell.s);
            report_flag(rb, moves(&cs[i]));
            text_free(&cell);
        }
    }
    for (size_t i = 0; i < k; i++)
        mem_strfree(cs[i].cell);
    mem_free(cs, n * sizeof *cs);
    return ok;
}

/* The rows of a duel: the attacker's turn, die by die, and the chain. */
static void duel_rows(report_builder *rb, fight *g, int n)
{
    row(rb, "how", g, fig_how);
    row(rb, "hit points", g, fig_hp);
    row(rb, "attacker acts first", g, fig_first);
    check_rows(rb, g);
    trigger_rows(rb, g);
    row(rb, "damage per turn", g, fig_mean);
    row(rb, "  deals none", g, fig_none);
    damage_rows(rb, g);
    row(rb, "rounds a fight lasts", g, fig_rounds);
    char label[64];
    snprintf(label, sizeof label, "attacker wins by round %d", n);
    row(rb, label, g, fig_drop);
    row(rb, "attacker wins", g, fig_win_a);
    row(rb, "defender wins", g, fig_win_b);
}

static bool profile_path(const char *dir, const program *p, text_buf *out, const char **uses);

bool profile_found(const char *dir, const program *p)
{
    text_buf path;
    text_init(&path);
    const char *uses;
    bool found = profile_path(dir, p, &path, &uses);
    text_free(&path);
    return found;
}

/* DIR/SYSTEM.rules, or for a variant DIR/BASE.rules: a house rule is
   measured on the fight its base system's profile sets up. */
static bool profile_path(const char *dir, const program *p, text_buf *out, const char **uses)
{
    int names[2] = {p->system_name, p->system_base};
    for (int i = 0; i < 2; i++) {
        if (names[i] < 0)
            continue;
        text_clear(out);
        text_add(out, "%s/%s.rules", dir, program_string(p, names[i]));
        *uses = program_string(p, names[i]);
        struct stat st;
        if (!out->cut && stat(out->s, &st) == 0 && S_ISREG(st.st_mode))
            return true;
    }
    return false;
}

fray_status profile_compare(report_builder *rb, fray *a, fray *b, const fray_diff_options *o)
{
    fight g[2] = {{0}, {0}};
    fray *ctx[2] = {a, b};
    text_buf paths[2];
    for (int s = 0; s < 2; s++) {
        text_init(&paths[s]);
        text_init(&g[s].why);
        text_init(&g[s].turn[0].change);
        text_init(&g[s].turn[1].change);
    }
    bool ok = true;
    for (int s = 0; s < 2 && ok; s++) {
        g[s].system = ctx[s]->p->system_name >= 0 ? program_string(ctx[s]->p, ctx[s]->p->system_name) : "?";
        if (!profile_path(o->profile, ctx[s]->p, &paths[s], &g[s].uses))
            continue; /* that side's column stays empty */
        ok = work_out(&g[s], ctx[s], o, paths[s].s);
        if (!ok) {
            fray_close(g[s].f);
            g[s].f = NULL;
        }
    }
    if (ok) {
        text_buf note;
        text_init(&note);
        int n = o->rounds ? o->rounds : 3;
        bool party = g[0].party || g[1].party;
        if (party)
            text_add(&note, "%s/SYSTEM.rules: the scenario as written, played as `fray sim` plays it%s%s", o->profile,
                     !g[0].f ? "; none for A" : "", !g[1].f ? "; none for B" : "");
        else
            text_add(&note,
                     "%s/SYSTEM.rules: the attacker's turn against the defender, every combination of its dice%s%s",
                     o->profile, !g[0].f ? "; none for A" : "", !g[1].f ? "; none for B" : "");
        report_section(rb, "Reference fight", note.s);
        report_mark(rb, false, true);
        text_free(&note);
        if (party)
            party_rows(rb, g, n);
        else
            duel_rows(rb, g, n);
        ok = change_rows(rb, a, b, g, o, paths[1].s);
    }
    for (int s = 0; s < 2; s++) {
        fight_free(&g[s]);
        text_free(&paths[s]);
    }
    return ok ? FRAY_OK : FRAY_ERR_RULES;
}
