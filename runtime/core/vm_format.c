/* vm_format: values as the transcript shows them ("15 ft", "7/2",
 * "d20 (14) + bab 5 = 19"), and text of any length for print and show. */
#include "runtime/core/vm_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/dice/dist.h"

static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(at < cap ? buf + at : NULL, at < cap ? cap - at : 0, fmt, ap);
    va_end(ap);
    return at + (n > 0 ? (size_t)n : 0);
}

static size_t format_rational(char *buf, size_t cap, size_t at, int64_t num, int64_t den)
{
    if (den == 1)
        return put(buf, cap, at, "%" PRId64, num);
    /* A fraction that ends as a decimal reads as one (7/2 -> 3.5, a
       tiebreak 20.08); others stay exact (10/3). */
    int64_t d = den, digits = 0;
    while (d % 10 == 0 || d % 2 == 0 || d % 5 == 0) {
        if (d % 10 == 0)
            d /= 10;
        else if (d % 2 == 0)
            d /= 2;
        else
            d /= 5;
        digits++;
    }
    if (d != 1 || digits > 18)
        return put(buf, cap, at, "%" PRId64 "/%" PRId64, num, den);
    int64_t scale = 1;
    for (int64_t i = 0; i < digits; i++)
        scale *= 10;
    /* exact: num/den == num*(scale/den)/scale; find the fewest digits */
    __int128 scaled = (__int128)num * (scale / den);
    bool neg = scaled < 0;
    if (neg)
        scaled = -scaled;
    __int128 whole = scaled / scale, frac = scaled % scale;
    while (digits > 0 && frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    return put(buf, cap, at, "%s%lld.%0*lld", neg ? "-" : "", (long long)whole, (int)digits, (long long)frac);
}

/* faces: the rolled faces in term order, counts[t] of them for term t; or
   NULL for the dice alone */
size_t vm_format_dexpr(const dexpr *d, char *buf, size_t cap, size_t at, const dice_face *faces, const uint16_t *counts)
{
    uint32_t face = 0;
    for (int t = 0; t < d->nterms; t++) {
        const dterm *term = &d->terms[t];
        /* a negative multiple reads as a subtraction: "- d12", not "+ -1*d12" */
        int64_t sign = term->times < 0 ? -term->sign : term->sign;
        int times = term->times < 0 ? -term->times : term->times;
        if (t > 0)
            at = put(buf, cap, at, sign < 0 ? " - " : " + ");
        else if (sign < 0)
            at = put(buf, cap, at, "-");
        if (times != 1)
            at = put(buf, cap, at, "%d*", times);
        if (term->is_constant) {
            at = put(buf, cap, at, "%" PRId64, term->constant);
            continue;
        }
        char *to = at < cap ? buf + at : NULL;
        size_t room = at < cap ? cap - at : 0;
        if (!faces) {
            at += dice_format(&term->d, to, room);
            continue;
        }
        /* "2d6 (3, 5)", without the " = 0" that follows the faces (the
           total is the whole roll's, written once at its end) */
        at += dice_format_roll(&term->d, faces + face, counts[t], 0, to, room) - (sizeof " = 0" - 1);
        if (at < cap)
            buf[at] = '\0';
        face += counts[t];
    }
    return at;
}

/* roll.natural, roll.total, roll.faces (the dice kept). */
__attribute__((noinline)) bool vm_roll_member(vm *v, value roll, const char *name, span at, value *out)
{
    if (v->walk && (!strcmp(name, "natural") || !strcmp(name, "faces")) &&
        !vm_exact_may_read_faces(v, roll, !strcmp(name, "natural"), at))
        return false;
    if (strcmp(name, "natural") == 0) {
        *out = value_int(vm_roll_natural(v, roll));
        return true;
    }
    if (strcmp(name, "total") == 0) {
        *out = value_int(roll.num);
        return true;
    }
    if (strcmp(name, "faces") != 0)
        return vm_error(v, at, "a roll has no member '%s'", name);
    vm_gather g = {0};
    dice_face scratch[DICE_PACKED_MAX];
    uint16_t counts[DEXPR_MAX_TERMS];
    const dexpr *rolled;
    const dice_face *faces = vm_roll_faces(v, roll, scratch, counts, &rolled);
    for (uint32_t i = 0, t = 0; faces && t < DEXPR_MAX_TERMS; t++)
        for (uint16_t k = 0; k < counts[t]; k++, i++)
            if (!(faces[i].flags & (DICE_FACE_DROPPED | DICE_FACE_REROLLED)) &&
                !vm_gather_add(v, &g, value_int(faces[i].value), at)) {
                vm_gather_drop(&g);
                return false;
            }
    return vm_gather_list(v, &g, at, out);
}

size_t vm_format_roll(vm *v, value x, char *buf, size_t cap)
{
    dice_face scratch[DICE_PACKED_MAX];
    uint16_t counts[DEXPR_MAX_TERMS];
    const dexpr *rolled;
    const dice_face *faces = vm_roll_faces(v, x, scratch, counts, &rolled);
    if (!faces)
        return put(buf, cap, 0, "%" PRId64, x.num);
    /* a roll of numbers only (no dice) starts with its first term */
    bool first = rolled->nterms == 0;
    size_t at = first ? 0 : vm_format_dexpr(rolled, buf, cap, 0, faces, counts);
    const roll_record *rec = vm_roll_of(v, x); /* a packed roll has no extras */
    for (int i = 0; rec && i < rec->nextra; i++) {
        const roll_extra *e = &v->roll_details[rec->seq & (v->roll_ring - 1)].extra[i];
        int64_t a = e->amount;
        if (a == 0)
            continue; /* "+ str 0" says nothing */
        bool neg = a < 0;
        if (first)
            at = put(buf, cap, at, "%s", neg ? "-" : "");
        else
            at = put(buf, cap, at, " %s ", neg ? "-" : "+");
        first = false;
        if (e->label >= 0)
            at = put(buf, cap, at, "%s ", program_string(v->p, e->label));
        at = put(buf, cap, at, "%" PRIu64, neg ? (uint64_t)0 - (uint64_t)a : (uint64_t)a);
    }
    if (first)
        at = put(buf, cap, at, "0");
    return put(buf, cap, at, " = %" PRId64, x.num);
}

static size_t format_value(vm *v, value x, char *buf, size_t cap, int depth);

size_t vm_format(vm *v, value x, char *buf, size_t cap)
{
    return format_value(v, x, buf, cap, 1);
}

/* depth: how many lists down x is */
static size_t format_value(vm *v, value x, char *buf, size_t cap, int depth)
{
    const program *p = v->p;
    switch ((value_type)x.type) {
    case V_NIL: return put(buf, cap, 0, "nothing");
    case V_BOOL: return put(buf, cap, 0, "%s", x.num ? "true" : "false");
    case V_INT:
    case V_FRAC: return format_rational(buf, cap, 0, x.num, value_den(x));
    case V_DIST: return put(buf, cap, format_rational(buf, cap, 0, x.num, value_den(x)), " ft");
    case V_TIME:
        switch ((time_kind)x.home) {
        case TIME_UNTIL_TURN_START: return put(buf, cap, 0, "until start of %s turn", x.num <= 1 ? "next" : "a later");
        case TIME_UNTIL_TURN_END: return put(buf, cap, 0, "until end of %sturn", x.num <= 1 ? "" : "next ");
        case TIME_UNTIL_ROUND_START: return put(buf, cap, 0, "until start of next round");
        case TIME_UNTIL_ROUND_END: return put(buf, cap, 0, "until end of %sround", x.num <= 1 ? "" : "next ");
        default: break;
        }
        if (x.home == TIME_SECONDS && x.num % 60 == 0 && x.num != 0)
            return put(buf, cap, 0, "%" PRId64 " minute%s", x.num / 60, x.num == 60 ? "" : "s");
        return put(buf, cap, 0, "%" PRId64 " %s", x.num, rules_time_name(p, (time_kind)x.home, x.num));
    case V_DICE: {
        const dexpr *d = vm_dexpr(v, x);
        return d ? vm_format_dexpr(d, buf, cap, 0, NULL, NULL) : put(buf, cap, 0, "dice?");
    }
    case V_ROLL: return vm_format_roll(v, x, buf, cap);
    case V_STR:
    case V_WORD: return put(buf, cap, 0, "%s", vm_string(v, x));
    case V_DISTRIB: {
        const struct dist *d = vm_dist_lookup(v, x);
        if (!d)
            return put(buf, cap, 0, "distribution?");
        return put(buf, cap, 0, "distribution %" PRId64 "..%" PRId64 ", mean %.6g%s", dist_lowest(d), dist_highest(d),
                   dist_mean(d), dist_is_exact(d) ? "" : " (approximate)");
    }
    case V_ENUM:
        if (x.aux >= 0 && (size_t)x.aux < p->nenums && x.num < p->enums[x.aux].nmembers)
            return put(buf, cap, 0, "%s", program_string(p, p->enums[x.aux].members[x.num]));
        return put(buf, cap, 0, "enum?");
    case V_CREATURE: {
        const char *name = v->world_ops ? v->world_ops->creature_name(v, (int)x.num) : NULL;
        return put(buf, cap, 0, "%s", name ? name : "creature?");
    }
    case V_ITEM:
        return put(buf, cap, 0, "%s",
                   x.num >= 0 && x.num < v->r->nitems ? program_string(p, v->r->items[x.num].name) : "item?");
    case V_SQUARE: {
        char sq[32];
        square_format(x.aux, (int32_t)x.num, sq, sizeof sq);
        return put(buf, cap, 0, "%s", sq);
    }
    case V_LIST: {
        /* deeper than the nesting limit (lowered since the list was made):
           the rest is left out, as it is past the end of buf */
        if (depth > v->limits.nesting)
            return put(buf, cap, 0, "[...]");
        size_t n;
        const value *items = vm_list_items(v, x, &n);
        size_t at = put(buf, cap, 0, "[");
        /* the walk stops where buf does: a list that holds another many
           times over would take longer than any command to write out */
        for (size_t i = 0; i < n && at < cap; i++) {
            if (i)
                at = put(buf, cap, at, ", ");
            at += format_value(v, items[i], at < cap ? buf + at : NULL, at < cap ? cap - at : 0, depth + 1);
        }
        return put(buf, cap, at, "]");
    }
    default: return put(buf, cap, 0, "?");
    }
}

static void format_text(vm *v, value x, text_buf *out, int depth)
{
    if (x.type != V_LIST) {
        char small[128];
        size_t len = vm_format(v, x, small, sizeof small);
        if (len < sizeof small) {
            text_putn(out, small, len);
            return;
        }
        char *whole = mem_alloc(len + 1);
        if (!whole) { /* out of memory: as much as there is room for, marked */
            text_put(out, small);
            text_put(out, "...");
            return;
        }
        vm_format(v, x, whole, len + 1);
        text_putn(out, whole, len);
        mem_free(whole, len + 1);
        return;
    }
    if (depth > v->limits.nesting) {
        text_put(out, "[...]");
        return;
    }
    size_t n;
    vm_list_items(v, x, &n);
    text_put(out, "[");
    for (size_t i = 0; i < n; i++) {
        if (out->len > VM_FORMAT_MOST) {
            text_add(out, "... %zu more", n - i);
            break;
        }
        if (i)
            text_put(out, ", ");
        size_t len;
        format_text(v, vm_list_items(v, x, &len)[i], out, depth + 1);
    }
    text_put(out, "]");
}

void vm_format_text(vm *v, value x, text_buf *out)
{
    format_text(v, x, out, 1);
}

/* --- text of any length ----------------------------------------------------------- */

bool vm_out_of_steps(vm *v, span at)
{
    v->steps_left = 0;
    if (!v->failed)
        vm_error(v, at, "step limit reached (%" PRIu64 " steps; an endless loop? see --max-steps)", v->limits.steps);
    return false;
}

bool vm_text_add(vm *v, text_buf *t, const char *s, span at)
{
    text_put(t, s);
    return !t->cut || vm_error(v, at, "out of memory");
}

static bool text_value(vm *v, text_buf *t, value x, span at, int depth)
{
    /* each value written is a step of the command, as an instruction is */
    if (--v->steps_left < 0)
        return vm_out_of_steps(v, at);
    if (x.type != V_LIST) {
        vm_format_text(v, x, t);
        return !t->cut || vm_error(v, at, "out of memory");
    }
    if (!vm_nesting_ok(v, (uint32_t)depth, at) || !vm_text_add(v, t, "[", at))
        return false;
    size_t n;
    vm_list_items(v, x, &n);
    for (size_t i = 0; i < n; i++) {
        /* the items again each time: writing one may move the store */
        size_t len;
        value item = vm_list_items(v, x, &len)[i];
        if ((i && !vm_text_add(v, t, ", ", at)) || !text_value(v, t, item, at, depth + 1))
            return false;
    }
    return vm_text_add(v, t, "]", at);
}

bool vm_text_value(vm *v, text_buf *t, value x, span at)
{
    return text_value(v, t, x, at, 1);
}
