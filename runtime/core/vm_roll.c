/* vm_roll: dice values made at run time (`dice(n, 6)`, `d20 + d4`) and
 * rolls: each roll's record kept in a ring for its breakdown, or packed
 * into the roll's value when its faces fit. */
#include "runtime/core/vm_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/dice/dist.h"

const vm_store *vm_store_of(const vm *v, value x)
{
    return x.home == HOME_VM ? &v->scratch : x.home == HOME_KEPT ? &v->kept : NULL;
}

const dexpr *vm_dexpr(const vm *v, value d)
{
    const vm_store *st = vm_store_of(v, d);
    if (st)
        return (size_t)d.num < st->ndice ? &st->dice[d.num] : NULL;
    return (size_t)d.num < v->p->ndice ? &v->p->dice[d.num] : NULL;
}

bool vm_store_dexpr(vm *v, vm_store *st, uint8_t home, const dexpr *d, span at, value *out)
{
    if (st->ndice >= v->limits.dice_exprs)
        return vm_error(v, at,
                        "too many dice expressions built in one command (limit is %zu; see --limit dice-exprs=N)",
                        v->limits.dice_exprs);
    dexpr *grown = mem_grow(st->dice, sizeof(dexpr), &st->dice_cap, st->ndice + 1);
    if (!grown)
        return vm_error(v, at, "out of memory");
    st->dice = grown;
    st->dice[st->ndice] = *d;
    *out = value_ref(V_DICE, home, (int64_t)st->ndice++);
    return true;
}

bool vm_new_dexpr(vm *v, const dexpr *d, span at, value *out)
{
    return vm_store_dexpr(v, &v->scratch, HOME_VM, d, at, out);
}

/* dice ± dice, dice ± number: concatenate terms. */
bool vm_dice_add(vm *v, value a, value b, int sign, span at, value *out)
{
    dexpr r = {0};
    const value parts[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        int s = k == 0 ? 1 : sign;
        if (parts[k].type == V_DICE) {
            const dexpr *d = vm_dexpr(v, parts[k]);
            if (!d)
                return vm_error(v, at, "invalid dice");
            for (int t = 0; t < d->nterms; t++) {
                if (r.nterms >= DEXPR_MAX_TERMS)
                    return vm_error(v, at, "dice expression has too many terms (limit is %d)", DEXPR_MAX_TERMS);
                r.terms[r.nterms] = d->terms[t];
                r.terms[r.nterms].sign *= s;
                r.nterms++;
            }
        } else if (parts[k].type == V_INT || parts[k].type == V_ROLL) {
            if (r.nterms >= DEXPR_MAX_TERMS)
                return vm_error(v, at, "dice expression has too many terms (limit is %d)", DEXPR_MAX_TERMS);
            r.terms[r.nterms++] = (dterm){.sign = s, .times = 1, .is_constant = true, .constant = parts[k].num};
        } else {
            return vm_error(v, at, "cannot add %s to dice (only whole numbers)", value_type_name(parts[k].type));
        }
    }
    return vm_new_dexpr(v, &r, at, out);
}

bool vm_dice_scale(vm *v, value d, int64_t k, span at, value *out)
{
    const dexpr *src = vm_dexpr(v, d);
    if (!src)
        return vm_error(v, at, "invalid dice");
    dexpr r = *src;
    for (int t = 0; t < r.nterms; t++) {
        int64_t times;
        if (__builtin_mul_overflow((int64_t)r.terms[t].times, k, &times) || times > INT32_MAX || times < INT32_MIN)
            return vm_error(v, at, "dice multiplier is too large");
        r.terms[t].times = (int32_t)times;
    }
    return vm_new_dexpr(v, &r, at, out);
}

static bool roll_dexpr(vm *v, const dexpr *d, span at, value *out);

bool vm_roll(vm *v, value x, span at, value *out)
{
    if (x.type == V_ROLL && v->walk && !vm_exact_may_roll(v, x, at))
        return false;
    if (x.type == V_INT || x.type == V_ROLL) {
        *out = (value){.type = V_ROLL, .num = x.num, .aux = 0};
        return true;
    }
    if (x.type != V_DICE)
        return vm_error(v, at, "cannot roll %s", value_type_name(x.type));
    const dexpr *d = vm_dexpr(v, x);
    if (!d)
        return vm_error(v, at, "invalid dice");
    return roll_dexpr(v, d, at, out);
}

/* `roll d20 + bab + str`: the terms are summed into a dice expression on
 * the C stack and rolled, so the common roll builds nothing in the store. */
bool vm_roll_sum(vm *v, const value *parts, int n, unsigned negative, span at, value *out)
{
    dexpr d;
    d.nterms = 0; /* only the terms in use are ever read: no need to clear the rest */
    for (int i = 0; i < n; i++) {
        int sign = (negative >> i) & 1 ? -1 : 1;
        value x = parts[i];
        if (x.type == V_DICE) {
            const dexpr *src = vm_dexpr(v, x);
            if (!src)
                return vm_error(v, at, "invalid dice");
            for (int t = 0; t < src->nterms; t++) {
                if (d.nterms >= DEXPR_MAX_TERMS)
                    return vm_error(v, at, "dice expression has too many terms (limit is %d)", DEXPR_MAX_TERMS);
                d.terms[d.nterms] = src->terms[t];
                d.terms[d.nterms++].sign *= sign;
            }
        } else if (x.type == V_INT || x.type == V_ROLL) {
            if (x.type == V_ROLL && v->walk && !vm_exact_may_roll(v, x, at))
                return false;
            if (d.nterms >= DEXPR_MAX_TERMS)
                return vm_error(v, at, "dice expression has too many terms (limit is %d)", DEXPR_MAX_TERMS);
            d.terms[d.nterms++] = (dterm){.sign = sign, .times = 1, .is_constant = true, .constant = x.num};
        } else {
            return vm_error(v, at, "cannot roll %s (only dice and whole numbers)", value_type_name(x.type));
        }
    }
    return roll_dexpr(v, &d, at, out);
}

static bool roll_dexpr_ex(vm *v, const dexpr *d, const roll_extra *extra, int nextra, int check, span at, value *out);

static bool roll_dexpr(vm *v, const dexpr *d, span at, value *out)
{
    return roll_dexpr_ex(v, d, NULL, 0, -1, at, out);
}

bool vm_roll_check(vm *v, const dexpr *dx, const roll_extra *extra, int nextra, int check, span at, value *out)
{
    if (nextra > ROLL_MAX_EXTRA)
        return vm_error(v, at, "too many terms in one check (limit is %d numbers)", ROLL_MAX_EXTRA);
    return roll_dexpr_ex(v, dx, extra, nextra, check, at, out);
}

static bool roll_into(vm *v, const dexpr *d, int32_t program_expr, const roll_extra *extra, int nextra, int check,
                      span at, value *out);

static bool roll_dexpr_ex(vm *v, const dexpr *d, const roll_extra *extra, int nextra, int check, span at, value *out)
{
    return roll_into(v, d, -1, extra, nextra, check, at, out);
}

/* The records start few and double until the ring wraps the first time,
   so a short fight clears only the records it uses. Until then record seq
   sits at index seq, the same after a doubling (and its detail too: the
   details are never cleared, so they are allocated whole). Out of memory,
   the ring stays as it is: older rolls are forgotten sooner. */
static void grow_ring(vm *v)
{
    size_t old = v->roll_ring, cap = old * 2;
    roll_record *rolls = MEM_NEW_ARRAY(roll_record, cap);
    if (!rolls)
        return;
    memcpy(rolls, v->rolls, old * sizeof(roll_record));
    mem_free(v->rolls, old * sizeof(roll_record));
    v->rolls = rolls;
    v->roll_ring = cap;
}

bool vm_rolls_copy(vm *to, const vm *from)
{
    to->rolls = NULL;
    to->roll_details = NULL;
    to->faces = NULL;
    if (!from->rolls)
        return true;
    bool ok = true;
    to->rolls = mem_dup(from->rolls, from->roll_ring * sizeof(roll_record), &ok);
    to->roll_details = ok ? mem_alloc(VM_ROLL_RING * sizeof(roll_detail)) : NULL;
    to->faces = to->roll_details ? mem_alloc(VM_FACE_RING * sizeof(dice_face)) : NULL;
    if (!to->faces)
        return false; /* what was taken, vm_free frees */
    for (size_t i = 0; i < from->roll_ring; i++) {
        const roll_record *rec = &from->rolls[i];
        const roll_detail *d = &from->roll_details[i];
        if (!rec->seq)
            continue; /* never written */
        if (rec->program_expr < 0)
            memcpy(&to->roll_details[i].expr, &d->expr,
                   offsetof(dexpr, terms) + (size_t)d->expr.nterms * sizeof d->expr.terms[0]);
        memcpy(to->roll_details[i].extra, d->extra, (size_t)rec->nextra * sizeof d->extra[0]);
        size_t n = 0;
        for (int t = 0; t < DEXPR_MAX_TERMS; t++)
            n += rec->term_faces[t];
        if (rec->face_start + n <= VM_FACE_RING)
            memcpy(to->faces + rec->face_start, from->faces + rec->face_start, n * sizeof(dice_face));
    }
    return true;
}

/* The record of roll number ++roll_seq, whose faces take up to `need`
 * places: they are contiguous, so the ring of faces wraps to its start
 * when they would not fit before its end. */
static roll_record *new_record(vm *v, int32_t program_expr, int check, int nextra, size_t need)
{
    uint64_t seq = ++v->roll_seq;
    if (seq == v->roll_ring && v->roll_ring < VM_ROLL_RING)
        grow_ring(v);
    roll_record *rec = &v->rolls[seq & (v->roll_ring - 1)]; /* the ring's sizes are powers of two */
    rec->seq = seq;
    rec->program_expr = program_expr;
    rec->check = check;
    rec->nextra = (uint8_t)nextra;
    if (v->face_pos % VM_FACE_RING + need > VM_FACE_RING)
        v->face_pos += VM_FACE_RING - v->face_pos % VM_FACE_RING;
    rec->face_pos = v->face_pos;
    rec->face_start = (uint32_t)(v->face_pos % VM_FACE_RING);
    return rec;
}

/* A finished roll as a value: 23 bits of the sequence number find its
 * record, bit 7 of home says there is one. Built whole and stored once:
 * patching bytes of a value after a 16-byte store stalls the load that
 * reads it back. */
static value roll_value(const roll_record *rec, int natural)
{
    return (value){.type = V_ROLL,
                   .home = (uint8_t)(0x80 | ((rec->seq >> 16) & 0x7f)),
                   .pad = (uint16_t)(rec->seq & 0xffff),
                   .aux = natural,
                   .num = rec->total};
}

/* A packed sum of several terms (its dice plain pools) rolled into faces,
 * in term order; returns the total. */
static int64_t roll_plain_terms(const dexpr *d, rng *g, dice_face *faces)
{
    int64_t total = 0;
    for (int t = 0; t < d->nterms; t++) {
        const dterm *term = &d->terms[t];
        int64_t part = term->constant;
        if (!term->is_constant) {
            part = dice_roll_plain(&term->d, g, faces);
            faces += term->d.count;
        }
        total += term->sign < 0 ? -part : part; /* the compiler has ruled out overflow */
    }
    return total;
}

static uint32_t pack_faces(const dexpr *d, const dice_face *faces)
{
    uint64_t bits = 0;
    for (int t = 0; t < d->nterms; t++) {
        const dice *pool = &d->terms[t].d;
        if (d->terms[t].is_constant)
            continue;
        bits = bits << (pool->count * dice_face_bits(pool->sides)) | dice_pack(pool, faces);
        faces += pool->count;
    }
    return (uint32_t)bits;
}

/* The faces of a packed roll of d into faces, the dropped ones marked,
 * and how many each term showed. */
static void unpack_faces(const dexpr *d, uint32_t packed, dice_face *faces, uint16_t counts[DEXPR_MAX_TERMS])
{
    uint64_t bits = packed;
    size_t at = 0;
    for (int t = 0; t < DEXPR_MAX_TERMS; t++) {
        counts[t] = t < d->nterms && !d->terms[t].is_constant ? (uint16_t)d->terms[t].d.count : 0;
        at += counts[t];
    }
    for (int t = d->nterms - 1; t >= 0; t--) { /* the last pool in the lowest bits */
        const dice *pool = &d->terms[t].d;
        if (d->terms[t].is_constant)
            continue;
        unsigned width = (unsigned)pool->count * dice_face_bits(pool->sides);
        at -= (size_t)pool->count;
        dice_unpack(pool, (uint32_t)(bits & ((UINT64_C(1) << width) - 1)), faces + at);
        bits >>= width;
    }
}

/* A packed roll other than of one die: one pool (`4d6kh3 + 2`) or a sum
 * of several. Out of line: the one die of roll_packed saves no registers
 * for it. */
__attribute__((noinline)) value vm_roll_packed_pools(vm *v, const dexpr *d, uint16_t index)
{
    dice_packed rolled;
    if (d->packed_plan.count) { /* keeping all or dropping one */
        rolled = dice_roll_planned(&d->packed_plan, &v->rng);
        rolled.total += d->plain_offset;
    } else { /* any other: term by term, its constants among them */
        dice_face faces[DICE_PACKED_MAX];
        rolled.total = roll_plain_terms(d, &v->rng, faces);
        rolled.faces = pack_faces(d, faces);
    }
    return (value){
        .type = V_ROLL, .home = ROLL_PACKED, .pad = index, .aux = (int32_t)rolled.faces, .num = rolled.total};
}

/* A roll of the program's expression dice[index] that is not packed:
 * referred to by its record, never copied. */
__attribute__((noinline)) bool vm_roll_program_slow(vm *v, uint16_t index, const span *at, value *out)
{
    if (index >= v->p->ndice)
        return vm_error(v, *at, "invalid dice");
    return roll_into(v, &v->p->dice[index], index, NULL, 0, -1, *at, out);
}

static const dexpr *record_expr(const vm *v, const roll_record *rec);

/* The faces of roll r in term order, how many each term showed, and the
 * expression rolled; NULL when it shows none (a number rolled, or a
 * record the ring has since overwritten). */
const dice_face *vm_roll_faces(const vm *v, value r, dice_face scratch[DICE_PACKED_MAX],
                               uint16_t counts[DEXPR_MAX_TERMS], const dexpr **rolled)
{
    if (r.home == ROLL_PACKED) {
        if (r.pad >= v->p->ndice)
            return NULL;
        *rolled = &v->p->dice[r.pad];
        unpack_faces(*rolled, (uint32_t)r.aux, scratch, counts);
        return scratch;
    }
    const roll_record *rec = vm_roll_of(v, r);
    if (!rec)
        return NULL;
    *rolled = record_expr(v, rec);
    memcpy(counts, rec->term_faces, sizeof rec->term_faces);
    return v->faces + rec->face_start;
}

int vm_roll_natural(const vm *v, value r)
{
    if (r.type != V_ROLL)
        return 0;
    if (r.home != ROLL_PACKED)
        return r.aux;
    dice_face scratch[DICE_PACKED_MAX];
    uint16_t counts[DEXPR_MAX_TERMS];
    const dexpr *rolled;
    const dice_face *faces = vm_roll_faces(v, r, scratch, counts, &rolled);
    size_t n = 0;
    for (int t = 0; faces && t < DEXPR_MAX_TERMS; t++)
        n += counts[t];
    for (size_t i = 0; i < n; i++)
        if (!(faces[i].flags & DICE_FACE_DROPPED))
            return faces[i].value;
    return 0;
}

/* The expression a roll record rolled. */
static const dexpr *record_expr(const vm *v, const roll_record *rec)
{
    return rec->program_expr >= 0 ? &v->p->dice[rec->program_expr]
                                  : &v->roll_details[rec->seq & (v->roll_ring - 1)].expr;
}

static bool roll_into(vm *v, const dexpr *d, int32_t program_expr, const roll_extra *extra, int nextra, int check,
                      span at, value *out)
{
    if (v->rng.oracle == &v->no_draws)
        return vm_error(v, at,
                        "cannot compute exactly: these dice are rolled by a formula read inside prob(), mean(), "
                        "dist(), maximum() or minimum(), which follows the dice of procedures and checks only");
    if (!v->rolls) {
        /* Only the records are cleared: a detail or a face is read only
           through the record written with it, and clearing the other
           megabyte cost every `fray sim` run more than its dice did. */
        v->roll_ring = VM_ROLL_RING_FIRST;
        v->rolls = MEM_NEW_ARRAY(roll_record, v->roll_ring);
        v->roll_details = mem_alloc(VM_ROLL_RING * sizeof(roll_detail));
        v->faces = mem_alloc(VM_FACE_RING * sizeof(dice_face));
        if (!v->rolls || !v->roll_details || !v->faces)
            return vm_error(v, at, "out of memory");
    }
    size_t need = 0;
    for (int t = 0; t < d->nterms; t++)
        if (!d->terms[t].is_constant)
            need += dice_max_faces(&d->terms[t].d);
    if (need > VM_FACE_RING)
        return vm_error(v, at, "too many dice in one roll (limit is %d faces)", VM_FACE_RING);
    roll_record *rec = new_record(v, program_expr, check, nextra, need);
    /* the program's expressions are referred to; others are copied, the
       terms in use only: a record is written on every roll */
    roll_detail *detail = &v->roll_details[rec->seq & (v->roll_ring - 1)];
    if (program_expr < 0) {
        detail->expr.nterms = d->nterms;
        memcpy(detail->expr.terms, d->terms, d->nterms * sizeof d->terms[0]);
    }
    memset(rec->term_faces, 0, sizeof rec->term_faces);
    if (nextra)
        memcpy(detail->extra, extra, (size_t)nextra * sizeof(roll_extra));
    size_t written = 0;
    int64_t total = 0;
    int natural = 0;
    bool have_natural = false;
    for (int t = 0; t < d->nterms; t++) {
        const dterm *term = &d->terms[t];
        int64_t part;
        if (term->is_constant) {
            part = term->constant;
        } else {
            dice_face *faces = v->faces + rec->face_start + written;
            size_t n = 0;
            if (dice_roll(&term->d, &v->rng, faces, VM_FACE_RING - rec->face_start - written, &n, &part) != 0)
                return vm_error(v, at, "cannot roll these dice");
            if (v->force_face && !have_natural) {
                /* a die the player rolled at the table */
                int64_t f = v->force_face;
                v->force_face = 0;
                if (term->d.count != 1 || term->d.fudge || n != 1)
                    return vm_error(v, at, "a rolled value can be entered for a single die, not %s", "several dice");
                if (f < 1 || f > term->d.sides)
                    return vm_error(v, at, "a d%d shows 1 to %d, not %" PRId64, term->d.sides, term->d.sides, f);
                faces[0].value = (int32_t)f;
                part = f;
            }
            if (!have_natural) {
                for (size_t i = 0; i < n; i++)
                    if (!(faces[i].flags & (DICE_FACE_REROLLED | DICE_FACE_DROPPED))) {
                        natural = faces[i].value;
                        have_natural = true;
                        break;
                    }
            }
            rec->term_faces[t] = (uint16_t)n;
            written += n;
        }
        int64_t scaled;
        if (__builtin_mul_overflow(part, (int64_t)term->times * term->sign, &scaled) ||
            __builtin_add_overflow(total, scaled, &total))
            return vm_error(v, at, "roll total overflows");
    }
    for (int i = 0; i < nextra; i++)
        if (__builtin_add_overflow(total, extra[i].amount, &total))
            return vm_error(v, at, "roll total overflows");
    v->face_pos += written;
    rec->total = total;
    *out = roll_value(rec, natural);
    return true;
}

bool vm_roll_add(vm *v, value *roll, int32_t label, int64_t amount, span at)
{
    const roll_record *seen = vm_roll_of(v, *roll);
    if (!seen || roll->home == ROLL_PACKED)
        return vm_error(v, at, "this roll is too old to change");
    roll_record *rec = &v->rolls[seen->seq & (v->roll_ring - 1)];
    if (rec->nextra >= ROLL_MAX_EXTRA)
        return vm_error(v, at, "too many terms in one check (limit is %d numbers)", ROLL_MAX_EXTRA);
    int64_t total;
    if (__builtin_add_overflow(rec->total, amount, &total))
        return vm_error(v, at, "a roll overflows");
    v->roll_details[rec->seq & (v->roll_ring - 1)].extra[rec->nextra++] = (roll_extra){label, -1, amount};
    rec->total = total;
    *roll = roll_value(rec, roll->aux);
    return true;
}

const roll_record *vm_roll_record(const vm *v, value roll)
{
    return vm_roll_of(v, roll);
}

const roll_record *vm_roll_of(const vm *v, value r)
{
    if (!(r.home & 0x80) || !v->rolls)
        return NULL;
    uint64_t bits = (uint64_t)(r.home & 0x7f) << 16 | r.pad;
    const roll_record *rec = &v->rolls[bits & (v->roll_ring - 1)];
    if ((rec->seq & 0x7fffff) != bits || rec->seq == 0)
        return NULL;
    if (v->face_pos - rec->face_pos > VM_FACE_RING) /* its faces were overwritten */
        return NULL;
    return rec;
}

/* How many lists deep x is: 0 for what is no list. */
