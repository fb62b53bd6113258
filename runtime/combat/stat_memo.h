/* stat_memo: a formula of stats alone, kept with the stats it read.
 *
 * What is worked out from the state of play is kept with the state's
 * version (conditions.c), which every change of anything moves on: in a
 * fight something changes between most two questions, so `out when
 * self.hp <= 0`, asked of every creature each time enemies() is, was
 * worked out again nearly every time. A formula made only of stat reads,
 * constants, arithmetic, comparisons, branches and has() (worked out
 * alone, noting what it reads: conditions.c) (stat_memo_fits) can be
 * kept instead with the creatures whose stats it read, each with its
 * serial (creature.serial): asked again, its answer stands while none of
 * them has moved on.
 *
 * Why that is enough: such a formula reads nothing but those stats (no
 * call, builtin, ruling, variable or roll is among its instructions), and
 * each was read plainly: the value set on the creature, or a constant
 * default, with nothing that could modify it (no effect on the creature,
 * no condition holding by a formula). A read that is not plain (a formula
 * run, modifiers, a side's stat) spoils the record and nothing is kept.
 * What a plain read gives is the creature's slots, whether it bears an
 * effect, and the rules; a creature's serial moves on at every change of
 * the first two (a slot set to another value, an effect put on or taken
 * off: world_touch's callers), and the rules are named (below).
 * The rules it was kept under are named (their generation), and a copy of
 * the world starts with none kept. */
#ifndef FRAY_STAT_MEMO_H
#define FRAY_STAT_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/combat/world.h"
#include "runtime/core/value.h"

/* The creatures whose stats a kept formula read, at most this many. */
#define STAT_MEMO_READS 4

typedef struct stat_memo_read {
    int32_t creature;
    uint64_t serial; /* its creature.serial when read */
} stat_memo_read;

typedef struct stat_memo {
    bool known;
    uint32_t generation;
    int chunk;
    value result;
    int nreads;
    stat_memo_read reads[STAT_MEMO_READS];
    bool answers;            /* it read rulings' answers: */
    uint64_t answers_serial; /* as combat.answers_serial stood */
} stat_memo;

/* has() answered inside one run of a formula of the roster (below), a
   slot per creature and condition (by hash): the formula changes nothing,
   and asks one creature's conditions over and over (whether each of a pair
   is up), each noted the first time. */
typedef struct roster_has {
    int32_t c, cond;
    uint64_t version;
    uint8_t in; /* 0 none, 1 no, 2 yes */
} roster_has;
#define ROSTER_HAS 64

/* What the world's stat reads note while a formula to keep runs. */
typedef struct stat_memo_record {
    stat_memo_read reads[STAT_MEMO_READS];
    int n;
    bool spoiled;          /* a read that was not plain, or of too many creatures */
    bool answers;          /* a ruling read where no one is asked and nothing noted */
    bool roster;           /* a formula of the roster (below): creatures not listed */
    roster_has *has_known; /* with roster: its has() answers, ROSTER_HAS */
} stat_memo_record;

/* Whether what a kept formula read of the rulings' answers stands (when it
   read any, as answers_serial stood): a ruling read is a read where nothing
   is noted and no one is asked, and the answers have not changed since. */
static inline bool stat_memo_answers_stand(const vm *v, bool answers, uint64_t answers_serial)
{
    const combat *cb = &v->world->cb;
    return !answers || (answers_serial == cb->answers_serial && cb->quiet && !v->world->ask);
}

/* Whether chunk is a formula of stats alone (worked out once per chunk
   and rules). */
bool stat_memo_fits(vm *v, int formula);
/* The kept answer of chunk, when m holds one that stands: inline, as it
   is asked far more often than worked out. */
static inline bool stat_memo_get(vm *v, const stat_memo *m, int formula, value *out)
{
    if (!m->known || m->chunk != formula || m->generation != v->r->generation)
        return false;
    if (!stat_memo_answers_stand(v, m->answers, m->answers_serial))
        return false;
    for (int i = 0; i < m->nreads; i++) {
        const stat_memo_read *rd = &m->reads[i];
        if ((size_t)rd->creature >= v->world->ncreatures || v->world->creatures[rd->creature].serial != rd->serial)
            return false;
    }
    *out = m->result;
    return true;
}
/* Runs chunk for self (stat_memo_fits must hold) into *out, keeping it
   in m when every read was plain. */
bool stat_memo_eval(vm *v, stat_memo *m, int formula, int self, value *out);
/* A stat read of c: noted when a formula to keep runs (plain: whether it
   was). */
void stat_memo_note(vm *v, int c, bool plain);
/* Frees what the world keeps for stat_memo_fits and roster_memo_fits. */
void stat_memo_free(vm *v);

/* A formula of the roster: one that reads, besides what a formula of stats
 * alone may, who is in play (creatures(), enemies(), sides_standing()...:
 * the builtins whose effect is ROSTER), procedures of the same kind, and
 * lists, such as an `ends when` that counts the sides with someone still
 * on their feet, asked after every action.
 * It reads any creature's stats and conditions, so it is kept with all of
 * them at once: with the world's serials (the last creature.serial given,
 * which moves on at any creature's change), a copy of who is in play, in
 * what order and on which side, the answers' serial and the rules. What it
 * reads is checked as a stat_memo's is: a read that is not plain (a stat's
 * formula or modifiers, a condition held by a formula that is not of stats
 * alone, an `out when` that is not) spoils it and nothing is kept. */
typedef struct roster_memo {
    bool known, answers;
    int chunk;
    uint32_t generation;
    uint64_t serials, answers_serial;
    value result;
    int32_t *roster; /* who is in play, as roster_now makes it */
    size_t nroster, roster_cap;
} roster_memo;

/* Whether chunk is a formula of the roster (worked out once per chunk and
   rules). */
bool roster_memo_fits(vm *v, int formula);
/* Runs formula for self into *out: from *m when what it holds stands,
   else worked out and kept there (made when NULL) where it may be. */
bool roster_memo_call(vm *v, roster_memo **m, int formula, int self, value *out);
/* Frees a roster_memo (NULL is fine). */
void roster_memo_free(roster_memo *m);

#endif
