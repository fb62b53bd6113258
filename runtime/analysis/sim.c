/* sim: a scenario played many times, each run from a fresh VM with its own
 * seed, on several threads.
 *
 * Results must not depend on the number of threads: run i always plays
 * with seed + i, whichever thread takes it, and every figure is an integer
 * sum (wins, damage, squares of damage, firings), which adds up the same in
 * any order. Each thread compiles its own program (the VM interns words
 * into it as it plays) and keeps its own sums; the calling thread merges
 * them by name and sorts them in the scenario's order. */
#define _POSIX_C_SOURCE 200809L
#include "runtime/analysis/sim.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "runtime/base/suggest.h"
#include "runtime/api/api_internal.h"
#include "runtime/session/kept_files.h"
#include "runtime/base/mem.h"
#include "runtime/combat/answer_text.h"
#include "runtime/core/reads_only.h"
#include "runtime/core/rules.h"

#define SIM_DEFAULT_RUNS 1000
#define SIM_MAX_THREADS 256
/* A worker's stack: twice what the deepest walk needs at the most the
   limits allow (the compiler at --limit nesting=10000: 2 MiB, 5.3 MiB under
   the sanitizers; calls from C at --limit depth=256: 3 and 4.8 MiB). Only
   what is used is ever backed by memory. */
#define SIM_THREAD_STACK ((size_t)16 << 20)

/* --- one thread's sums ------------------------------------------------------------- */

typedef struct named_sum {
    char *name;
    char *side;         /* creatures: their side's name, or NULL */
    long order;         /* where it comes in the report */
    uint64_t n;         /* sides: wins */
    uint64_t *by_round; /* sides: wins by the round the fight ended in */
    size_t nrounds, rounds_cap;
    uint64_t dealt, dealt_sq, taken, taken_sq, down;
} named_sum;

typedef struct sums {
    named_sum *sides, *creatures;
    size_t nsides, sides_cap, ncreatures, creatures_cap;
    uint64_t undecided, nobody;
    uint64_t *rounds;
    size_t nrounds, rounds_cap;
    uint64_t *fired, *fired_runs;
    size_t ntriggers;
} sums;

/* Adds k to a histogram by round, grown as needed. */
static bool count_round(uint64_t **hist, size_t *n, size_t *cap, size_t round, uint64_t k)
{
    if (round >= *n) {
        uint64_t *grown = mem_grow(*hist, sizeof *grown, cap, round + 1);
        if (!grown)
            return false;
        *hist = grown;
        memset(grown + *n, 0, (round + 1 - *n) * sizeof *grown);
        *n = round + 1;
    }
    (*hist)[round] += k;
    return true;
}

static void sums_free(sums *s)
{
    for (size_t i = 0; i < s->nsides; i++) {
        mem_strfree(s->sides[i].name);
        if (s->sides[i].by_round)
            mem_free(s->sides[i].by_round, s->sides[i].rounds_cap * sizeof *s->sides[i].by_round);
    }
    for (size_t i = 0; i < s->ncreatures; i++) {
        mem_strfree(s->creatures[i].name);
        mem_strfree(s->creatures[i].side);
    }
    mem_free(s->sides, s->sides_cap * sizeof *s->sides);
    mem_free(s->creatures, s->creatures_cap * sizeof *s->creatures);
    mem_free(s->rounds, s->rounds_cap * sizeof *s->rounds);
    /* one more than there are triggers, so that none is not nothing */
    mem_free(s->fired, (s->ntriggers + 1) * sizeof *s->fired);
    mem_free(s->fired_runs, (s->ntriggers + 1) * sizeof *s->fired_runs);
    memset(s, 0, sizeof *s);
}

/* The entry of that name, added (with its order and side) if new; `hint`
   is where it usually is. */
static named_sum *sum_of(named_sum **list, size_t *n, size_t *cap, const char *name, const char *side, long order,
                         size_t hint)
{
    if (hint < *n && strcmp((*list)[hint].name, name) == 0)
        return &(*list)[hint];
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i].name, name) == 0)
            return &(*list)[i];
    named_sum *grown = mem_grow(*list, sizeof **list, cap, *n + 1);
    if (!grown)
        return NULL;
    *list = grown;
    named_sum *e = &grown[*n];
    memset(e, 0, sizeof *e);
    e->name = mem_strndup(name, strlen(name));
    e->side = side ? mem_strndup(side, strlen(side)) : NULL;
    if (!e->name || (side && !e->side)) {
        mem_strfree(e->name);
        mem_strfree(e->side);
        return NULL;
    }
    e->order = order;
    (*n)++;
    return e;
}

static const char *side_name(const vm *v, int side)
{
    return side >= 0 ? program_string(v->p, v->r->sides[side]) : NULL;
}

static bool add_run(sums *s, const vm *v, const tally *t)
{
    if (!t->ended)
        s->undecided++;
    else if (t->winner == -1)
        s->undecided++;
    else if (t->winner == -2)
        s->nobody++;
    else {
        /* a side by its index; a creature alone by its name, after every side */
        int w = t->winner;
        const char *name = w >= 0 ? side_name(v, w) : v->world->creatures[-2 - w].name;
        long order = w >= 0 ? w : (long)v->r->nsides + (-2 - w);
        named_sum *e = sum_of(&s->sides, &s->nsides, &s->sides_cap, name, NULL, order, (size_t)order);
        if (!e || !count_round(&e->by_round, &e->nrounds, &e->rounds_cap, t->rounds > 0 ? (size_t)t->rounds : 0, 1))
            return false;
        e->n++;
    }
    size_t r = t->ended && t->rounds > 0 ? (size_t)t->rounds : 0;
    if (!count_round(&s->rounds, &s->nrounds, &s->rounds_cap, r, 1))
        return false;
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        const creature *cr = &v->world->creatures[c];
        named_sum *e =
            sum_of(&s->creatures, &s->ncreatures, &s->creatures_cap, cr->name, side_name(v, cr->side), (long)c, c);
        if (!e)
            return false;
        uint64_t dealt = c < t->ncreatures ? (uint64_t)t->dealt[c] : 0;
        uint64_t taken = c < t->ncreatures ? (uint64_t)t->taken[c] : 0;
        e->dealt += dealt;
        e->dealt_sq += dealt * dealt;
        e->taken += taken;
        e->taken_sq += taken * taken;
        e->down += c < t->ncreatures && t->down[c];
    }
    for (size_t k = 0; k < s->ntriggers && k < t->ntriggers; k++) {
        s->fired[k] += t->fired[k];
        s->fired_runs[k] += t->fired[k] > 0;
    }
    return true;
}

/* --- threads ---------------------------------------------------------------------- */

typedef struct shared {
    const char *scenario;
    const fray_sim_options *o;
    compile_options copts;
    vm_limits limits;
    int health_name; /* resolved per program: a string, not an index */
    const char *health;
    atomic_uint_fast64_t next, done;
    atomic_bool stop;
} shared;

typedef struct worker {
    shared *sh;
    fray *parent; /* the caller's context: worker 0 compiles with its diagnostics */
    int index;
    fray *f;
    sums s;
    uint64_t *fired;       /* one run's firings, per trigger */
    int health;            /* declaration index in f's program */
    bool computed;         /* health is worked out by the rules (world_stat_computed) */
    tally_set *sets;       /* the options' sets, their stats found in f's program */
    tally_answer *answers; /* the options' answers, read in f's program */
    bool compiled;
    bool said; /* worker 0: an error of its reached the caller */
    /* the first failure */
    uint64_t failed_run;
    bool failed;
    char *error_text;
    size_t error_len;
    struct timespec last_progress;
} worker;

static void capture_diag(void *user, const fray_diagnostic *d)
{
    worker *w = user;
    if (d->level != FRAY_ERROR || w->error_text)
        return;
    w->error_len = strlen(d->text);
    w->error_text = mem_strndup(d->text, w->error_len);
}

/* Worker 0's diagnostics go to the caller, noting that something was said. */
static void forward_diag(void *user, const fray_diagnostic *d)
{
    worker *w = user;
    w->said |= d->level == FRAY_ERROR;
    w->parent->on_diag(w->parent->diag_user, d);
}

/* An error with nothing said about it: memory ran out (a context, a
   thread's counts, the result), which no diagnostic could report. */
static void say_out_of_memory(fray *f, const char *scenario)
{
    text_buf text;
    text_init(&text);
    text_add(&text, "fray: error: %s: out of memory to simulate it\n", scenario);
    fray_diagnostic d = {.level = FRAY_ERROR, .message = "out of memory", .text = text.s};
    f->on_diag(f->diag_user, &d);
    text_free(&text);
}

static void discard_output(void *user, const char *text)
{
    (void)user;
    (void)text;
}

int sim_find_health(const program *p, const char *name)
{
    int id = program_find_string(p, name);
    for (size_t i = 0; id >= 0 && i < p->ndecls; i++)
        if (p->decls[i].name == id && (p->decls[i].kind == DK_STAT || p->decls[i].kind == DK_RESOURCE))
            return (int)i;
    return -1;
}

static bool play_one(worker *w, uint64_t run)
{
    const program *p = w->f->p;
    vm *v = world_open(w->f->p, w->sh->o->seed + run, &w->sh->limits);
    if (!v)
        return false;
    v->world->cb.quiet = true;
    vm_set_output(v, discard_output, NULL);
    v->output_unread = true;
    tally t = {.health = w->health,
               .computed = w->computed,
               .ntriggers = p->rules->ntriggers,
               .fired = w->fired,
               .watch = -1,
               .actor = -1,
               .sets = w->sets,
               .nsets = w->sh->o->nsets,
               .answers = w->answers,
               .nanswers = w->sh->o->nanswers};
    memset(t.fired, 0, t.ntriggers * sizeof *t.fired);
    v->world->tally = &t;
    bool ok = vm_run_commands(v, 0);
    if (ok && v->world->cb.active)
        ok = tally_outcome(v, (span){0});
    if (ok && t.failed)
        ok = vm_error(v, (span){0}, "out of memory");
    if (ok && !add_run(&w->s, v, &t))
        ok = vm_error(v, (span){0}, "out of memory");
    if (!ok) {
        vm *own = w->f->v;
        w->f->v = v;
        if (v->failed)
            api_runtime_failure(w->f);
        else
            diag_report(&w->f->sink, DIAG_ERROR, NULL, (span){0}, "out of memory");
        w->f->v = own;
    }
    tally_free(&t);
    world_close(v);
    return ok;
}

static double seconds_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Whether the scenario makes a creature of this name, or a group of it. */
static bool scenario_makes(const program *p, const char *name)
{
    const rules *r = p->rules;
    for (int i = 0; i < r->ncreatures; i++) {
        const char *base = program_string(p, r->creatures[i].name);
        size_t len = strlen(base);
        if (!strcmp(base, name))
            return true;
        char *end;
        if (r->creatures[i].count > 1 && !strncmp(base, name, len) && name[len] == '_') {
            long k = strtol(name + len + 1, &end, 10);
            if (*end == '\0' && k >= 1 && k <= r->creatures[i].count)
                return true;
        }
    }
    return false;
}

/* Worker 0 says why an option names what the scenario does not have. */
static void say_refused(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say_refused(worker *w, const char *fmt, ...)
{
    if (w->index != 0)
        return;
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fray_on_diagnostic(w->f, forward_diag, w);
    diag_report(&w->f->sink, DIAG_ERROR, NULL, (span){0}, "%s: %s", w->sh->scenario, why);
}

/* The options' sets, their stats found in the worker's program; false
   (worker 0 saying why) when the scenario has no such creature or stat. */
static bool find_sets(worker *w)
{
    const fray_sim_options *o = w->sh->o;
    if (!o->nsets)
        return true;
    w->sets = MEM_NEW_ARRAY(tally_set, o->nsets);
    if (!w->sets)
        return false;
    for (size_t i = 0; i < o->nsets; i++) {
        const fray_sim_set *s = &o->sets[i];
        int stat = sim_find_health(w->f->p, s->stat);
        bool made = scenario_makes(w->f->p, s->creature);
        if (stat < 0 || !made) {
            /* the nearest name of that kind, as the compiler offers one */
            const program *p = w->f->p;
            suggestion near;
            suggest_init(&near, made ? s->stat : s->creature);
            for (size_t d = 0; made && d < p->ndecls; d++)
                if ((p->decls[d].kind == DK_STAT || p->decls[d].kind == DK_RESOURCE) && p->decls[d].name >= 0)
                    suggest_consider(&near, program_string(p, p->decls[d].name), 0);
            for (int c = 0; !made && c < p->rules->ncreatures; c++)
                suggest_consider(&near, program_string(p, p->rules->creatures[c].name), 0);
            say_refused(w, "no %s '%s' to set (%s.%s = %lld)%s%s%s", made ? "stat or resource" : "creature",
                        made ? s->stat : s->creature, s->creature, s->stat, (long long)s->value,
                        near.found ? "; did you mean '" : "", near.found ? near.best : "", near.found ? "'?" : "");
            return false;
        }
        w->sets[i] = (tally_set){.creature = s->creature, .stat = stat, .value = s->value};
    }
    return true;
}

/* One of the options' answers read for its ruling in the worker's
   program; false (worker 0 saying why) when it has no such ruling or the
   answer does not fit it. */
static bool find_answer(worker *w, const fray_sim_answer *given, tally_answer *out)
{
    program *p = w->f->p;
    const rules *r = p->rules;
    int name = program_find_string(p, given->ruling);
    int ri = name >= 0 ? rules_ruling(r, name) : -1;
    if (ri < 0) {
        suggestion near;
        suggest_init(&near, given->ruling);
        for (int i = 0; i < r->nrulings; i++)
            suggest_consider(&near, program_string(p, r->rulings[i].name), 0);
        say_refused(w, "no ruling '%s' to answer (--answer %s%s%s)%s%s%s", given->ruling, given->ruling,
                    *given->answer ? "=" : "", given->answer, near.found ? "; did you mean '" : "",
                    near.found ? near.best : "", near.found ? "'?" : "");
        return false;
    }
    const r_ruling *rl = &r->rulings[ri];
    if (rl->answer == ANSWER_CREATURE) {
        say_refused(w,
                    "ruling %s is answered with a creature, which is made as the scenario plays: answer it there "
                    "('answer %s NAME')",
                    given->ruling, given->ruling);
        return false;
    }
    value v;
    const char *why = answer_text_parse(p, rl->answer, given->answer, &v);
    bool fits = !why;
    text_buf list;
    text_init(&list);
    if (fits && rl->answer == ANSWER_WORD && rl->nchoices) {
        fits = false;
        for (int i = 0; i < rl->nchoices && !fits; i++)
            fits = rl->choices[i] == (int)v.num;
        rules_choices_text(p, rl, &list);
    }
    if (!fits)
        say_refused(w, "ruling %s: '%s' does not answer it: %s%s", given->ruling, given->answer,
                    why ? why : "answer with one of ", why ? "" : list.s);
    text_free(&list);
    *out = (tally_answer){ri, v};
    return fits;
}

static bool find_answers(worker *w)
{
    const fray_sim_options *o = w->sh->o;
    if (!o->nanswers)
        return true;
    w->answers = MEM_NEW_ARRAY(tally_answer, o->nanswers);
    if (!w->answers)
        return false;
    for (size_t i = 0; i < o->nanswers; i++)
        if (!find_answer(w, &o->answers[i], &w->answers[i]))
            return false;
    return true;
}

static bool compile_scenario(worker *w)
{
    shared *sh = w->sh;
    fray_options fo = {.quiet = true};
    w->f = fray_open(&fo);
    if (!w->f)
        return false;
    if (w->index == 0)
        fray_on_diagnostic(w->f, forward_diag, w);
    else
        fray_on_diagnostic(w->f, capture_diag, w);
    w->f->color = w->parent->color;
    int errors = compile_file(w->f->p, sh->scenario, &w->f->sink, &sh->copts);
    if (errors == 0 && sh->o->then)
        errors = compile_string(w->f->p, sh->scenario, sh->o->then, strlen(sh->o->then), &w->f->sink, &sh->copts);
    if (errors != 0)
        return false;
    fray_on_diagnostic(w->f, capture_diag, w);
    const char *health = sh->health;
    const rules *r = w->f->p->rules;
    if (!health && r->encounter.ntrack > 0)
        health = program_string(w->f->p, w->f->p->decls[r->encounter.track[0]].name);
    w->health = health ? sim_find_health(w->f->p, health) : -1;
    if (w->health < 0 && sh->health) {
        /* asked for by name and not there; with no name and no tracked
           stat, damage is not counted */
        if (w->index == 0) {
            fray_on_diagnostic(w->f, forward_diag, w);
            diag_report(&w->f->sink, DIAG_ERROR, NULL, (span){0},
                        "%s: no stat or resource '%s' to count damage by (see --health)", sh->scenario, health);
        }
        return false;
    }
    /* a stat the rules work out is read to see what it lost; a read that
       could roll or change play would change the fights it counts */
    w->computed = w->health >= 0 && world_stat_computed(w->f->v, w->health);
    if (w->computed && vm_formulas_reads(w->f->v) == READS_AND_MORE) {
        if (w->index == 0) {
            fray_on_diagnostic(w->f, forward_diag, w);
            diag_report(&w->f->sink, DIAG_ERROR, NULL, (span){0},
                        "%s: damage is counted by what '%s' loses, and the rules work it out with formulas, some of "
                        "which may roll dice or change play: reading it would change the fights; count a stat the "
                        "rules set (--health NAME)",
                        sh->scenario, health);
        }
        return false;
    }
    if (w->index == 0 && w->health >= 0)
        sh->health = program_string(w->f->p, w->f->p->decls[w->health].name);
    if (!find_sets(w) || !find_answers(w))
        return false;
    w->s.ntriggers = r->ntriggers;
    w->s.fired = MEM_NEW_ARRAY(uint64_t, r->ntriggers + 1);
    w->s.fired_runs = MEM_NEW_ARRAY(uint64_t, r->ntriggers + 1);
    w->fired = MEM_NEW_ARRAY(uint64_t, r->ntriggers + 1);
    return w->s.fired && w->s.fired_runs && w->fired;
}

static void run_loop(worker *w)
{
    shared *sh = w->sh;
    uint64_t runs = sh->o->runs;
    clock_gettime(CLOCK_MONOTONIC, &w->last_progress);
    while (!atomic_load(&sh->stop)) {
        uint64_t run = atomic_fetch_add(&sh->next, 1);
        if (run >= runs)
            break;
        if (!play_one(w, run)) {
            w->failed = true;
            w->failed_run = run;
            atomic_store(&sh->stop, true);
            break;
        }
        uint64_t done = atomic_fetch_add(&sh->done, 1) + 1;
        if (w->index == 0 && sh->o->progress && seconds_since(&w->last_progress) > 0.1) {
            sh->o->progress(sh->o->progress_user, done, runs);
            clock_gettime(CLOCK_MONOTONIC, &w->last_progress);
        }
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    w->compiled = compile_scenario(w);
    if (w->compiled)
        run_loop(w);
    else
        atomic_store(&w->sh->stop, true);
    return NULL;
}

/* --- the result -------------------------------------------------------------------- */

static bool merge_into(named_sum **list, size_t *n, size_t *cap, const named_sum *e)
{
    named_sum *m = sum_of(list, n, cap, e->name, e->side, e->order, *n);
    if (!m)
        return false;
    if (e->order < m->order)
        m->order = e->order;
    m->n += e->n;
    m->dealt += e->dealt;
    m->dealt_sq += e->dealt_sq;
    m->taken += e->taken;
    m->taken_sq += e->taken_sq;
    m->down += e->down;
    for (size_t k = 0; k < e->nrounds; k++)
        if (e->by_round[k] && !count_round(&m->by_round, &m->nrounds, &m->rounds_cap, k, e->by_round[k]))
            return false;
    return true;
}

static int by_order(const void *a, const void *b)
{
    const named_sum *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return strcmp(x->name, y->name);
}

static char *copy_string(const char *s)
{
    return s ? mem_strndup(s, strlen(s)) : NULL;
}

static bool merge(sums *all, worker *ws, int n)
{
    all->ntriggers = ws[0].s.ntriggers;
    all->fired = MEM_NEW_ARRAY(uint64_t, all->ntriggers + 1);
    all->fired_runs = MEM_NEW_ARRAY(uint64_t, all->ntriggers + 1);
    if (!all->fired || !all->fired_runs)
        return false;
    for (int i = 0; i < n; i++) {
        const sums *s = &ws[i].s;
        all->undecided += s->undecided;
        all->nobody += s->nobody;
        for (size_t k = 0; k < s->nsides; k++)
            if (!merge_into(&all->sides, &all->nsides, &all->sides_cap, &s->sides[k]))
                return false;
        for (size_t k = 0; k < s->ncreatures; k++)
            if (!merge_into(&all->creatures, &all->ncreatures, &all->creatures_cap, &s->creatures[k]))
                return false;
        if (s->nrounds > all->nrounds) {
            uint64_t *grown = mem_grow(all->rounds, sizeof *grown, &all->rounds_cap, s->nrounds);
            if (!grown)
                return false;
            all->rounds = grown;
            memset(grown + all->nrounds, 0, (s->nrounds - all->nrounds) * sizeof *grown);
            all->nrounds = s->nrounds;
        }
        for (size_t k = 0; k < s->nrounds; k++)
            all->rounds[k] += s->rounds[k];
        for (size_t k = 0; k < s->ntriggers && k < all->ntriggers; k++) {
            all->fired[k] += s->fired[k];
            all->fired_runs[k] += s->fired_runs[k];
        }
    }
    /* (qsort takes no null array, even empty: runs no side won have none) */
    if (all->nsides)
        qsort(all->sides, all->nsides, sizeof *all->sides, by_order);
    if (all->ncreatures)
        qsort(all->creatures, all->ncreatures, sizeof *all->creatures, by_order);
    return true;
}

static fray_sim_result *build_result(const sums *all, const program *p, const shared *sh)
{
    fray_sim_result *r = MEM_NEW(fray_sim_result);
    if (!r)
        return NULL;
    r->runs = sh->o->runs;
    r->undecided = all->undecided;
    r->nobody = all->nobody;
    r->system = copy_string(p->system_name >= 0 ? program_string(p, p->system_name) : "");
    r->health = copy_string(sh->health ? sh->health : "");
    size_t fired = 0;
    for (size_t k = 0; k < all->ntriggers; k++)
        fired += all->fired[k] > 0;
    /* counts first: fray_sim_free frees by them, whatever is filled in */
    r->nsides = all->nsides;
    r->ncreatures = all->ncreatures;
    r->nrounds = all->nrounds;
    r->ntriggers = fired;
    r->sides = MEM_NEW_ARRAY(fray_sim_side, r->nsides + 1);
    r->creatures = MEM_NEW_ARRAY(fray_sim_creature, r->ncreatures + 1);
    r->rounds = MEM_NEW_ARRAY(uint64_t, r->nrounds + 1);
    r->triggers = MEM_NEW_ARRAY(fray_sim_trigger, r->ntriggers + 1);
    bool ok = r->system && r->health && r->sides && r->creatures && r->rounds && r->triggers;
    for (size_t k = 0; ok && k < all->nsides; k++) {
        const named_sum *e = &all->sides[k];
        r->sides[k] =
            (fray_sim_side){.name = copy_string(e->name), .wins = e->n, .nrounds = e->nrounds, .order = e->order};
        r->sides[k].rounds = MEM_NEW_ARRAY(uint64_t, e->nrounds + 1);
        ok = r->sides[k].name != NULL && r->sides[k].rounds;
        if (ok)
            memcpy(r->sides[k].rounds, e->by_round, e->nrounds * sizeof *e->by_round);
    }
    for (size_t k = 0; ok && k < all->ncreatures; k++) {
        const named_sum *e = &all->creatures[k];
        fray_sim_creature *c = &r->creatures[k];
        *c = (fray_sim_creature){.name = copy_string(e->name),
                                 .side = copy_string(e->side),
                                 .dealt = e->dealt,
                                 .dealt_squares = e->dealt_sq,
                                 .taken = e->taken,
                                 .taken_squares = e->taken_sq,
                                 .down = e->down,
                                 .order = e->order};
        ok = c->name && (!e->side || c->side);
    }
    if (ok)
        memcpy(r->rounds, all->rounds, all->nrounds * sizeof *r->rounds);
    for (size_t k = 0, n = 0; ok && k < all->ntriggers; k++) {
        if (!all->fired[k])
            continue;
        fray_sim_trigger *t = &r->triggers[n++];
        const r_trigger *rt = &p->rules->triggers[k];
        *t = (fray_sim_trigger){.name = copy_string(program_string(p, rt->name)),
                                .fired = all->fired[k],
                                .runs = all->fired_runs[k],
                                .internal = rt->from.decl >= 0 && p->decls[rt->from.decl].internal,
                                .order = (long)k};
        ok = t->name != NULL;
    }
    if (!ok) {
        fray_sim_free(r);
        return NULL;
    }
    return r;
}

void fray_sim_free(fray_sim_result *r)
{
    if (!r)
        return;
    mem_strfree((char *)r->system);
    mem_strfree((char *)r->health);
    if (r->sides)
        for (size_t k = 0; k < r->nsides; k++) {
            mem_strfree((char *)r->sides[k].name);
            if (r->sides[k].rounds)
                mem_free(r->sides[k].rounds, (r->sides[k].nrounds + 1) * sizeof *r->sides[k].rounds);
        }
    if (r->creatures)
        for (size_t k = 0; k < r->ncreatures; k++) {
            mem_strfree((char *)r->creatures[k].name);
            mem_strfree((char *)r->creatures[k].side);
        }
    if (r->triggers)
        for (size_t k = 0; k < r->ntriggers; k++)
            mem_strfree((char *)r->triggers[k].name);
    if (r->sides)
        mem_free(r->sides, (r->nsides + 1) * sizeof *r->sides);
    if (r->creatures)
        mem_free(r->creatures, (r->ncreatures + 1) * sizeof *r->creatures);
    if (r->rounds)
        mem_free(r->rounds, (r->nrounds + 1) * sizeof *r->rounds);
    if (r->triggers)
        mem_free(r->triggers, (r->ntriggers + 1) * sizeof *r->triggers);
    mem_free(r, sizeof *r);
}

/* The files the scenario reads (itself, its imports and modules), read
 * once: the first compile reads them (through the caller's reader, if it
 * has one) and keeps them; the threads that compile after it are served
 * what was kept, and read nothing. */
typedef struct sim_files {
    kept_files kept;
    compile_read_fn inner;
    void *inner_user;
    bool served_only;
} sim_files;

static int read_once(void *user, const compile_options *opts, compile_read *rq, char **text, size_t *len)
{
    sim_files *sf = user;
    int code = kept_files_serve(&sf->kept, rq, text, len);
    if (code != ENOENT || sf->served_only)
        return code;
    code = sf->inner ? sf->inner(sf->inner_user, opts, rq, text, len) : compile_read_disk(opts, rq, text, len);
    if (code == 0 && !kept_files_add(&sf->kept, rq->path, rq->module, *text, *len)) {
        mem_free(*text, *len + 1);
        code = ENOMEM;
    }
    return code;
}

/* The scenario's own system: the name its `use` gives it (the `system`
   it declares), to load another file instead with --vs. */
static fray_status system_of(fray *f, const char *scenario, const compile_options *copts, text_buf *name)
{
    fray_options fo = {.quiet = true};
    fray *probe = fray_open(&fo);
    if (!probe)
        return FRAY_ERR_RULES;
    fray_on_diagnostic(probe, f->on_diag, f->diag_user);
    probe->color = f->color;
    bool ok = compile_file(probe->p, scenario, &probe->sink, copts) == 0;
    fray_status st = ok ? FRAY_OK : FRAY_ERR_RULES;
    if (ok && probe->p->system_name < 0) {
        diag_report(&probe->sink, DIAG_ERROR, NULL, (span){0},
                    "%s: the scenario uses no rule system (no `system` declared), so --vs has nothing to replace",
                    scenario);
        ok = false;
        st = FRAY_ERR_USAGE;
    }
    /* the name its `use` gives it: the module's that declares it (a system
       `house_rules` in house.rules is `use house`) */
    const program *pp = probe->p;
    const decl *sys = ok ? program_find_decl(pp, DK_SYSTEM, pp->system_name) : NULL;
    const char *from = sys && sys->where.source < pp->nsources ? pp->sources[sys->where.source]->name : NULL;
    if (ok && from && !strcmp(from, scenario)) {
        diag_report(&probe->sink, DIAG_ERROR, NULL, (span){0},
                    "%s: the scenario declares its rule system itself (system %s), rather than `use` it, so --vs "
                    "has nothing to replace",
                    scenario, program_string(pp, pp->system_name));
        ok = false;
        st = FRAY_ERR_USAGE;
    }
    if (ok && from) {
        const char *base = strrchr(from, '/') ? strrchr(from, '/') + 1 : from;
        size_t len = strlen(base);
        if (len > 6 && !strcmp(base + len - 6, ".rules"))
            len -= 6;
        text_add(name, "%.*s", (int)len, base);
    } else if (ok)
        text_put(name, program_string(pp, pp->system_name));
    fray_close(probe);
    return st;
}

/* --vs: the rules file or module the scenario's system is replaced with,
   and the name it is replaced under (*system, which copts then points
   into); an error, said, when there is none. */
static fray_status instead_system(fray *f, const char *scenario, const fray_sim_options *o, compile_options *copts,
                                  text_buf *system)
{
    /* a file, or a module by name as `use` finds it (on the search path,
       or built in); whether a file is there is a look that opens nothing
       (a pipe would wait): the compiler reads it, and says what is wrong
       with it */
    struct stat st;
    bool there = stat(o->system_path, &st) == 0;
    if (!there && (strchr(o->system_path, '/') || strstr(o->system_path, ".rules") ||
                   !compile_module_exists(o->system_path, &f->copts))) {
        text_buf text;
        text_init(&text);
        text_add(&text, "fray: error: --vs %s: no such rules file or module\n", o->system_path);
        fray_diagnostic d = {.level = FRAY_ERROR, .message = "no such rules file", .text = text.s};
        f->on_diag(f->diag_user, &d);
        text_free(&text);
        return FRAY_ERR_USAGE;
    }
    if (o->system_use)
        text_put(system, o->system_use);
    else {
        fray_status found = system_of(f, scenario, copts, system);
        if (found != FRAY_OK)
            return found;
    }
    if (system->cut) {
        say_out_of_memory(f, scenario);
        return FRAY_ERR_RULES;
    }
    copts->use_instead_name = system->s;
    copts->use_instead_path = o->system_path;
    return FRAY_OK;
}

fray_status fray_sim(fray *f, const char *scenario, const fray_sim_options *opts, fray_sim_result **out)
{
    f->uses++;
    *out = NULL;
    fray_sim_options o = *opts;
    if (!o.runs)
        o.runs = SIM_DEFAULT_RUNS;
    if (o.threads < 1)
        o.threads = 1;
    if (o.threads > SIM_MAX_THREADS)
        o.threads = SIM_MAX_THREADS;
    if ((uint64_t)o.threads > o.runs)
        o.threads = (int)o.runs;
    shared sh = {.scenario = scenario, .o = &o, .copts = f->copts, .limits = f->v->limits, .health = o.health};
    sim_files files = {.inner = f->copts.read, .inner_user = f->copts.read_user};
    sh.copts.read = read_once;
    sh.copts.read_user = &files;
    atomic_init(&sh.next, 0);
    atomic_init(&sh.done, 0);
    atomic_init(&sh.stop, false);
    text_buf system;
    text_init(&system);
    fray_status vs = o.system_path ? instead_system(f, scenario, &o, &sh.copts, &system) : FRAY_OK;
    if (vs != FRAY_OK) {
        kept_files_free(&files.kept);
        text_free(&system);
        return vs;
    }
    worker *ws = MEM_NEW_ARRAY(worker, (size_t)o.threads);
    pthread_t *tids = MEM_NEW_ARRAY(pthread_t, (size_t)o.threads);
    if (!ws || !tids) {
        mem_free(ws, (size_t)o.threads * sizeof *ws);
        mem_free(tids, (size_t)o.threads * sizeof *tids);
        kept_files_free(&files.kept);
        text_free(&system);
        say_out_of_memory(f, scenario);
        return FRAY_ERR_RULES;
    }
    /* worker 0 compiles first, on this thread, reporting what it finds;
       the others start once the scenario is known to compile */
    ws[0] = (worker){.sh = &sh, .parent = f, .index = 0};
    bool replaced = false, not_replaced = false;
    sh.copts.use_instead_taken = &replaced;
    ws[0].compiled = compile_scenario(&ws[0]);
    sh.copts.use_instead_taken = NULL;
    if (ws[0].compiled && o.system_path && !replaced) {
        /* played twice under its own system, the two would be one */
        text_buf why;
        text_init(&why);
        text_add(&why,
                 "fray: error: --vs %s: %s does not `use %s` itself (its system comes through another file), so "
                 "there is nothing to play under %s\n",
                 o.system_path, scenario, system.s, o.system_path);
        fray_diagnostic d = {.level = FRAY_ERROR, .message = why.s, .text = why.s};
        f->on_diag(f->diag_user, &d);
        text_free(&why);
        ws[0].compiled = false;
        ws[0].said = true;
        not_replaced = true;
    }
    int started = 1;
    files.served_only = true; /* the other threads only read what is kept */
    if (ws[0].compiled && !o.check_only) {
        /* each worker compiles the scenario and runs it as the main thread
           does, so it gets as much stack, whatever the system gives a
           thread by default (2 MiB with an unlimited stack) */
        pthread_attr_t attr;
        bool sized = pthread_attr_init(&attr) == 0;
        if (sized && pthread_attr_setstacksize(&attr, SIM_THREAD_STACK) != 0) {
            pthread_attr_destroy(&attr);
            sized = false;
        }
        for (int i = 1; i < o.threads; i++) {
            ws[i] = (worker){.sh = &sh, .parent = f, .index = i};
            if (pthread_create(&tids[i], sized ? &attr : NULL, work, &ws[i]) != 0)
                break;
            started++;
        }
        if (sized)
            pthread_attr_destroy(&attr);
        run_loop(&ws[0]);
    }
    for (int i = 1; i < started; i++)
        pthread_join(tids[i], NULL);
    fray_status st = ws[0].compiled ? FRAY_OK : not_replaced ? FRAY_ERR_USAGE : FRAY_ERR_RULES;
    bool said = ws[0].said;
    /* the earliest run that failed speaks for all */
    int first = -1;
    for (int i = 0; i < started; i++)
        if (ws[i].failed && (first < 0 || ws[i].failed_run < ws[first].failed_run))
            first = i;
    for (int i = 1; i < started && st == FRAY_OK && first < 0; i++)
        if (!ws[i].compiled)
            first = i;
    if (first >= 0) {
        st = FRAY_ERR_RULES;
        const worker *w = &ws[first];
        fray_diagnostic d = {.level = FRAY_ERROR, .message = "", .text = w->error_text ? w->error_text : ""};
        if (w->error_text)
            f->on_diag(f->diag_user, &d);
        else if (!ws[0].said) /* its error could not be kept */
            say_out_of_memory(f, scenario);
        said = true;
        if (w->failed) {
            text_buf note;
            text_init(&note);
            text_add(&note, "fray: note: run %llu of %llu failed; replay it with: fray run --seed %llu %s\n",
                     (unsigned long long)w->failed_run + 1, (unsigned long long)o.runs,
                     (unsigned long long)(o.seed + w->failed_run), scenario);
            fray_diagnostic n = {.level = FRAY_NOTE, .message = note.s, .text = note.s};
            f->on_diag(f->diag_user, &n);
            text_free(&note);
        }
    }
    if (st == FRAY_OK && !o.check_only) {
        if (o.progress)
            o.progress(o.progress_user, o.runs, o.runs);
        sums all = {0};
        if (merge(&all, ws, started))
            *out = build_result(&all, ws[0].f->p, &sh);
        sums_free(&all);
        if (!*out)
            st = FRAY_ERR_RULES;
    }
    if (st != FRAY_OK && !said)
        say_out_of_memory(f, scenario);
    /* each thread's memory is counted by that thread: the sums of the
       others were made there, but are freed here (see mem.c) */
    for (int i = 0; i < started; i++) {
        sums_free(&ws[i].s);
        if (ws[i].fired)
            mem_free(ws[i].fired, (ws[i].s.ntriggers + 1) * sizeof *ws[i].fired);
        mem_strfree(ws[i].error_text);
        if (ws[i].sets)
            mem_free(ws[i].sets, o.nsets * sizeof *ws[i].sets);
        if (ws[i].answers)
            mem_free(ws[i].answers, o.nanswers * sizeof *ws[i].answers);
        fray_close(ws[i].f);
    }
    mem_free(ws, (size_t)o.threads * sizeof *ws);
    mem_free(tids, (size_t)o.threads * sizeof *tids);
    kept_files_free(&files.kept);
    text_free(&system);
    return st;
}
