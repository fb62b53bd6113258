/* bench/ref/skirmish.c: the plain-C reference for bench/skirmish.
 *
 * The fight of bench/skirmish.rules, written by hand: 4 fighters against 8
 * goblins under the same rules and the same tactic, played to the end N
 * times. Encounter i is seeded with SEED + i, as `fray sim --seed SEED`
 * seeds its run i, and the generator is a copy of fray's (xoshiro256**
 * seeded by splitmix64, Lemire's unbiased bounded draw), kept here so that
 * the reference does not move when the runtime does. The dice are drawn in
 * the order the rules file rolls them, so a fight here and
 * `fray run --seed S bench/skirmish.rules` roll the same dice and end
 * alike; the benchmark itself only asks that the statistics agree.
 *
 * Usage: skirmish N SEED [trace]
 * Prints one line:
 *   skirmish: runs N win W win_se S rounds R rounds_se S aoo A
 * W is the share of fights the fighters win, R the mean number of rounds
 * (with their standard errors), A the attacks of opportunity per fight.
 * With "trace", each fight's rolls and outcome are printed first.
 *
 * Build: cc -O2 -o skirmish bench/ref/skirmish.c -lm
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the generator (runtime/dice/rng.c) ---------------------------------------- */

typedef struct {
    uint64_t s[4];
} rng;

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64_next(&state);
}

static inline uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Lemire, "Fast Random Integer Generation in an Interval" (2019). */
static inline uint64_t rng_below(rng *r, uint64_t n)
{
    __extension__ typedef unsigned __int128 u128;
    u128 m = (u128)rng_next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = (u128)rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* --- the creatures -------------------------------------------------------------- */

enum { FIGHTERS, GOBLINS };
enum { NFIGHTERS = 4, NGOBLINS = 8, N = NFIGHTERS + NGOBLINS, NKEYS = 10 };

typedef struct {
    int dex, bab, str, ac, die, threat, mult, max_hp;
} sheet;

/* The scenario's creature lines. */
static const sheet fighter = {.dex = 1, .bab = 6, .str = 3, .ac = 17, .die = 8, .threat = 19, .mult = 2, .max_hp = 36};
static const sheet goblin = {.dex = 2, .bab = 4, .str = 2, .ac = 15, .die = 8, .threat = 20, .mult = 3, .max_hp = 16};

typedef struct {
    const sheet *k;
    int side;
    int hp;
    int foe;      /* the enemy it closed in on, or -1 */
    bool reacted; /* its reaction of this round is spent */
    char name[16];
} unit;

typedef struct {
    rng r;
    unit u[N];
    int order[N]; /* initiative order */
    int round;
    long aoo;
    bool trace;
} fight;

static int die(fight *f, int sides)
{
    return 1 + (int)rng_below(&f->r, (uint64_t)sides);
}

static bool alive(const fight *f, int c)
{
    return f->u[c].hp > 0;
}

static bool side_down(const fight *f, int side)
{
    for (int c = 0; c < N; c++)
        if (f->u[c].side == side && alive(f, c))
            return false;
    return true;
}

static bool over(const fight *f)
{
    return side_down(f, FIGHTERS) || side_down(f, GOBLINS);
}

/* enemies(c): the enemies still in the fight, in the order of turns. */
static int enemies(const fight *f, int c, int *out)
{
    int n = 0;
    for (int i = 0; i < N; i++) {
        int e = f->order[i];
        if (f->u[e].side != f->u[c].side && alive(f, e))
            out[n++] = e;
    }
    return n;
}

static bool next_to(const fight *f, int a, int b)
{
    return f->u[a].foe == b || f->u[b].foe == a;
}

/* The enemy with the fewest hp; on a tie, the first in the order. */
static int weakest(const fight *f, int c)
{
    int es[N], n = enemies(f, c, es), best = -1;
    for (int i = 0; i < n; i++)
        if (best < 0 || f->u[es[i]].hp < f->u[best].hp)
            best = es[i];
    return best;
}

static int foe_next_to(const fight *f, int c)
{
    int es[N], n = enemies(f, c, es);
    for (int i = 0; i < n; i++)
        if (next_to(f, c, es[i]))
            return es[i];
    return -1;
}

/* --- attacks ---------------------------------------------------------------------- */

/* An attack roll: a natural 20 hits, a natural 1 misses. */
static bool attack_roll(fight *f, int a, int t, int penalty, int *natural)
{
    const sheet *k = f->u[a].k;
    int d = die(f, 20);
    int total = d + k->bab + k->str + penalty;
    if (f->trace)
        printf("%s -> %s: attack d20 (%d) = %d\n", f->u[a].name, f->u[t].name, d, total);
    *natural = d;
    return d == 20 || (d != 1 && total >= f->u[t].k->ac);
}

/* A hit deals the weapon's damage; a threat a second roll confirms deals it
   times the multiplier. */
static void strike(fight *f, int a, int t, int penalty)
{
    const sheet *k = f->u[a].k;
    int natural, ignored;
    if (!attack_roll(f, a, t, penalty, &natural))
        return;
    int times = 1;
    if (natural >= k->threat && attack_roll(f, a, t, penalty, &ignored))
        times = k->mult;
    int d = die(f, k->die);
    int dealt = (d + k->str) * times;
    if (f->trace)
        printf("%s -> %s: damage d%d (%d) = %d x%d\n", f->u[a].name, f->u[t].name, k->die, d, d + k->str, times);
    f->u[t].hp -= dealt;
    if (f->u[t].hp < 0)
        f->u[t].hp = 0;
}

static int attacks_of(const sheet *k)
{
    return 1 + (k->bab - 1 > 0 ? k->bab - 1 : 0) / 5;
}

/* --- actions ------------------------------------------------------------------------ */

static void attack(fight *f, int c, int t)
{
    strike(f, c, t, 0);
}

static void full_attack(fight *f, int c, int t)
{
    int n = attacks_of(f->u[c].k);
    for (int k = 0; k < n; k++) {
        if (!alive(f, t)) {
            t = foe_next_to(f, c);
            if (t < 0)
                return;
        }
        strike(f, c, t, -5 * k);
    }
}

/* Leaving the enemies it stands next to: each may strike (its reaction of
   the round); a mover that falls goes no further. */
static void advance(fight *f, int c, int t)
{
    int es[N], n = enemies(f, c, es);
    for (int i = 0; i < n; i++) {
        int e = es[i];
        if (!next_to(f, c, e))
            continue;
        if (!f->u[e].reacted) {
            f->u[e].reacted = true;
            f->aoo++;
            if (f->trace)
                printf("%s takes attack_of_opportunity on %s\n", f->u[e].name, f->u[c].name);
            strike(f, e, c, 0);
        }
        if (!alive(f, c))
            return;
    }
    n = enemies(f, c, es);
    for (int i = 0; i < n; i++)
        if (f->u[es[i]].foe == c)
            f->u[es[i]].foe = -1;
    f->u[c].foe = t;
}

/* The tactic: the weakest enemy; a full attack next to it, else close in
   and attack once. */
static void turn(fight *f, int c)
{
    int t = weakest(f, c);
    if (t < 0)
        return;
    if (next_to(f, c, t)) {
        full_attack(f, c, t);
        return;
    }
    advance(f, c, t);
    if (alive(f, c) && !over(f))
        attack(f, c, t);
}

/* --- initiative: d20 + dex, highest first; ties by dex, then rolled again ---------- */

typedef struct {
    int c, nkeys;
    int keys[NKEYS];
} part;

static int compare(const part *a, const part *b)
{
    int n = a->nkeys < b->nkeys ? a->nkeys : b->nkeys;
    for (int i = 0; i < n; i++)
        if (a->keys[i] != b->keys[i])
            return a->keys[i] > b->keys[i] ? -1 : 1;
    return 0;
}

/* Stable insertion sort: equal parts keep their places. */
static void sort_parts(part *p, int n)
{
    for (int i = 1; i < n; i++) {
        part key = p[i];
        int j = i;
        while (j > 0 && compare(&key, &p[j - 1]) < 0) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = key;
    }
}

static int initiative_roll(fight *f, int c)
{
    int d = die(f, 20);
    if (f->trace)
        printf("%s: initiative_roll d20 (%d) = %d\n", f->u[c].name, d, d + f->u[c].k->dex);
    return d + f->u[c].k->dex;
}

static void roll_initiative(fight *f)
{
    part p[N];
    for (int c = 0; c < N; c++) {
        p[c].c = c;
        p[c].keys[0] = initiative_roll(f, c);
        p[c].keys[1] = f->u[c].k->dex;
        p[c].nkeys = 2;
    }
    sort_parts(p, N);
    /* the tied roll again, again while any are tied (at most 100 times) */
    for (int round = 0; round < 100; round++) {
        bool tied = false;
        for (int i = 0; i + 1 < N;) {
            int j = i + 1;
            while (j < N && compare(&p[i], &p[j]) == 0)
                j++;
            if (j - i > 1) {
                tied = true;
                for (int m = i; m < j; m++) {
                    if (p[m].nkeys >= NKEYS)
                        p[m].nkeys = NKEYS - 1;
                    p[m].keys[p[m].nkeys++] = initiative_roll(f, p[m].c);
                }
                sort_parts(p + i, j - i);
            }
            i = j;
        }
        if (!tied)
            break;
    }
    for (int i = 0; i < N; i++)
        f->order[i] = p[i].c;
}

/* --- one fight ------------------------------------------------------------------------ */

/* Plays one fight; returns the winning side and sets *rounds. */
static int play(fight *f, uint64_t seed, int *rounds)
{
    rng_seed(&f->r, seed);
    for (int c = 0; c < N; c++) {
        unit *u = &f->u[c];
        bool fig = c < NFIGHTERS;
        u->k = fig ? &fighter : &goblin;
        u->side = fig ? FIGHTERS : GOBLINS;
        u->hp = u->k->max_hp;
        u->foe = -1;
        u->reacted = false;
        snprintf(u->name, sizeof u->name, "%s_%d", fig ? "fighter" : "goblin", fig ? c + 1 : c - NFIGHTERS + 1);
    }
    roll_initiative(f);
    f->round = 0;
    while (!over(f)) {
        f->round++;
        if (f->trace)
            printf("round %d\n", f->round);
        for (int c = 0; c < N; c++)
            f->u[c].reacted = false;
        for (int i = 0; i < N && !over(f); i++)
            if (alive(f, f->order[i]))
                turn(f, f->order[i]);
    }
    *rounds = f->round;
    return side_down(f, GOBLINS) ? FIGHTERS : GOBLINS;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: skirmish N SEED [trace]\n");
        return 2;
    }
    long n = atol(argv[1]);
    uint64_t seed = strtoull(argv[2], NULL, 10);
    if (n < 1)
        n = 1;
    fight f;
    memset(&f, 0, sizeof f);
    f.trace = argc > 3 && strcmp(argv[3], "trace") == 0;
    long wins = 0;
    double sum = 0, sumsq = 0;
    for (long i = 0; i < n; i++) {
        int rounds;
        int winner = play(&f, seed + (uint64_t)i, &rounds);
        wins += winner == FIGHTERS;
        sum += rounds;
        sumsq += (double)rounds * rounds;
        if (f.trace)
            printf("fight %lld: %s win after %d rounds\n", (long long)(seed + (uint64_t)i),
                   winner == FIGHTERS ? "fighters" : "goblins", rounds);
    }
    double p = (double)wins / (double)n;
    double mean = sum / (double)n;
    double var = n > 1 ? (sumsq - sum * mean) / (double)(n - 1) : 0;
    printf("skirmish: runs %ld win %.6f win_se %.6f rounds %.6f rounds_se %.6f aoo %.5f\n", n, p,
           sqrt(p * (1 - p) / (double)n), mean, sqrt(var > 0 ? var / (double)n : 0), (double)f.aoo / (double)n);
    return 0;
}
