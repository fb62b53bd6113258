#include "runtime/dice/dice.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/dice/forced.h"

/* ---------------------------------------------------------------- faces */

/* Lowest and highest face of a single die. */
static void face_range(const dice *d, int32_t *lo, int32_t *hi)
{
    if (d->fudge) {
        *lo = -1;
        *hi = 1;
    } else {
        *lo = 1;
        *hi = d->sides;
    }
}

bool dice_cmp_holds(uint8_t cmp, int64_t value, int32_t at)
{
    switch (cmp) {
    case DICE_CMP_EQ: return value == at;
    case DICE_CMP_GE: return value >= at;
    case DICE_CMP_LE: return value <= at;
    case DICE_CMP_GT: return value > at;
    case DICE_CMP_LT: return value < at;
    default: return false;
    }
}

/* True when every face lo..hi satisfies the comparison. */
static bool cmp_covers_all(uint8_t cmp, int32_t at, int32_t lo, int32_t hi)
{
    switch (cmp) {
    case DICE_CMP_EQ: return lo == at && hi == at;
    case DICE_CMP_GE: return lo >= at;
    case DICE_CMP_LE: return hi <= at;
    case DICE_CMP_GT: return lo > at;
    case DICE_CMP_LT: return hi < at;
    default: return false;
    }
}

/* ---------------------------------------------------------------- parse */

typedef struct parser {
    const char *text;
    size_t len;
    size_t pos;
    dice_error *err;
} parser;

static int fail(parser *p, size_t offset, const char *fmt, ...)
{
    if (p->err) {
        va_list ap;
        va_start(ap, fmt);
        p->err->offset = offset;
        vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool peek_is(const parser *p, char c)
{
    return p->pos < p->len && p->text[p->pos] == c;
}

static bool peek_digit(const parser *p)
{
    return p->pos < p->len && p->text[p->pos] >= '0' && p->text[p->pos] <= '9';
}

/* Digits at pos into *out, saturating far above every limit so that huge
 * numbers still reach the "too many" checks. Returns false if no digit. */
static bool scan_number(parser *p, int64_t *out)
{
    if (!peek_digit(p))
        return false;
    int64_t value = 0;
    while (peek_digit(p)) {
        if (value < INT64_C(1000000000000))
            value = value * 10 + (p->text[p->pos] - '0');
        p->pos++;
    }
    *out = value;
    return true;
}

static int fail_unexpected(parser *p, const char *where)
{
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c == ' ')
        return fail(p, p->pos, "unexpected space %s", where);
    if (c > ' ' && c < 0x7f)
        return fail(p, p->pos, "unexpected '%c' %s", c, where);
    return fail(p, p->pos, "unexpected byte 0x%02x %s", c, where);
}

static bool peek_compare(const parser *p)
{
    return peek_is(p, '<') || peek_is(p, '>') || peek_is(p, '=') || peek_digit(p);
}

/* A comparison: ">=N", "<=N", ">N", "<N", "=N", or a bare N meaning "=N".
 * A minus sign is only allowed after an operator (for dF targets), so that
 * "d6!-1" is never read as part of the term. */
static int parse_compare(parser *p, const char *after, uint8_t *cmp, int32_t *at)
{
    size_t start = p->pos;
    bool has_op = true;
    if (peek_is(p, '>')) {
        p->pos++;
        *cmp = DICE_CMP_GT;
        if (peek_is(p, '=')) {
            p->pos++;
            *cmp = DICE_CMP_GE;
        }
    } else if (peek_is(p, '<')) {
        p->pos++;
        *cmp = DICE_CMP_LT;
        if (peek_is(p, '=')) {
            p->pos++;
            *cmp = DICE_CMP_LE;
        }
    } else if (peek_is(p, '=')) {
        p->pos++;
        *cmp = DICE_CMP_EQ;
    } else {
        has_op = false;
        *cmp = DICE_CMP_EQ;
    }
    bool negative = false;
    if (has_op && peek_is(p, '-')) {
        p->pos++;
        negative = true;
    }
    size_t num_start = p->pos;
    int64_t value;
    if (!scan_number(p, &value)) {
        if (has_op)
            return fail(p, p->pos, "missing number after '%.*s'", (int)(p->pos - start), p->text + start);
        return fail(p, p->pos, "missing number after '%s'", after);
    }
    if (value > INT32_MAX)
        return fail(p, num_start, "number too large (limit is %d)", INT32_MAX);
    *at = (int32_t)(negative ? -value : value);
    return 0;
}

static int parse_keep(parser *p, dice *out)
{
    size_t start = p->pos;
    bool keep = p->text[p->pos] == 'k';
    p->pos++;
    if (out->keep != DICE_KEEP_ALL)
        return fail(p, start, "only one keep or drop modifier is allowed");
    /* Bare "k" keeps highest and bare "d" drops lowest: the usual intent. */
    if (peek_is(p, 'h')) {
        p->pos++;
        out->keep = keep ? DICE_KEEP_HIGH : DICE_DROP_HIGH;
    } else if (peek_is(p, 'l')) {
        p->pos++;
        out->keep = keep ? DICE_KEEP_LOW : DICE_DROP_LOW;
    } else {
        out->keep = keep ? DICE_KEEP_HIGH : DICE_DROP_LOW;
    }
    size_t num_start = p->pos;
    int64_t n;
    if (!scan_number(p, &n))
        return fail(p, p->pos, "missing number after '%.*s'", (int)(p->pos - start), p->text + start);
    if (keep && n < 1)
        return fail(p, num_start, "must keep at least 1 die");
    if (n > out->count) /* the number as written: scan_number stops counting past 10^12 */
        return fail(p, num_start, "cannot %s %.*s of %d dice", keep ? "keep" : "drop", (int)(p->pos - num_start),
                    p->text + num_start, (int)out->count);
    out->keep_n = (int32_t)n;
    return 0;
}

static int parse_explode(parser *p, dice *out)
{
    size_t start = p->pos;
    p->pos++;
    if (out->explode != DICE_NO_EXPLODE)
        return fail(p, start, "only one explosion modifier is allowed");
    if (peek_is(p, '!')) {
        p->pos++;
        out->explode = DICE_COMPOUND;
    } else if (peek_is(p, 'p')) {
        p->pos++;
        out->explode = DICE_PENETRATE;
    } else {
        out->explode = DICE_EXPLODE;
    }
    int32_t lo, hi;
    face_range(out, &lo, &hi);
    if (peek_compare(p)) {
        if (parse_compare(p, "!", &out->explode_cmp, &out->explode_at) != 0)
            return -1;
    } else {
        out->explode_cmp = DICE_CMP_EQ;
        out->explode_at = hi;
    }
    if (cmp_covers_all(out->explode_cmp, out->explode_at, lo, hi))
        return fail(p, start, "an explosion on every face never ends");
    return 0;
}

static int parse_reroll(parser *p, dice *out)
{
    size_t start = p->pos;
    p->pos++;
    if (out->reroll_cmp != DICE_CMP_NONE)
        return fail(p, start, "only one reroll modifier is allowed");
    out->reroll_once = peek_is(p, 'o');
    if (out->reroll_once)
        p->pos++;
    if (parse_compare(p, out->reroll_once ? "ro" : "r", &out->reroll_cmp, &out->reroll_at) != 0)
        return -1;
    int32_t lo, hi;
    face_range(out, &lo, &hi);
    /* "ro" ends after one reroll, so only "r" can loop forever. */
    if (!out->reroll_once && cmp_covers_all(out->reroll_cmp, out->reroll_at, lo, hi))
        return fail(p, start, "rerolling every face never ends");
    return 0;
}

int dice_parse(const char *text, size_t len, dice *out, dice_error *err)
{
    parser p = {.text = text, .len = len, .pos = 0, .err = err};
    dice d;
    memset(&d, 0, sizeof d);

    if (len == 0)
        return fail(&p, 0, "expected dice such as 2d6");

    int64_t number;
    if (scan_number(&p, &number)) {
        if (number < 1)
            return fail(&p, 0, "dice count must be at least 1");
        if (number > DICE_MAX_COUNT)
            return fail(&p, 0, "too many dice (fray rolls at most %d at once)", DICE_MAX_COUNT);
        d.count = (int32_t)number;
    } else {
        d.count = 1;
    }

    if (!peek_is(&p, 'd') && !peek_is(&p, 'D')) {
        if (p.pos == len)
            return fail(&p, p.pos, "expected 'd' after the dice count");
        return fail_unexpected(&p, "where 'd' was expected");
    }
    p.pos++;

    size_t sides_start = p.pos;
    if (peek_is(&p, '%')) {
        p.pos++;
        d.sides = 100;
    } else if (peek_is(&p, 'F') || peek_is(&p, 'f')) {
        p.pos++;
        d.sides = 3;
        d.fudge = true;
    } else if (scan_number(&p, &number)) {
        if (number < 1)
            return fail(&p, sides_start, "a die needs at least 1 side");
        if (number > DICE_MAX_SIDES)
            return fail(&p, sides_start, "too many sides (fray rolls dice of at most %d)", DICE_MAX_SIDES);
        d.sides = (int32_t)number;
    } else {
        return fail(&p, p.pos, "missing number of sides after 'd'");
    }

    size_t failure_pos = 0;
    while (p.pos < len) {
        char c = text[p.pos];
        int rc;
        if (c == 'k' || c == 'd') {
            rc = parse_keep(&p, &d);
        } else if (c == '!') {
            rc = parse_explode(&p, &d);
        } else if (c == 'r') {
            rc = parse_reroll(&p, &d);
        } else if (c == '<' || c == '>' || c == '=') {
            if (d.success_cmp != DICE_CMP_NONE)
                return fail(&p, p.pos, "only one success target is allowed");
            rc = parse_compare(&p, "", &d.success_cmp, &d.success_at);
        } else if (c == 'f') {
            if (d.failure_cmp != DICE_CMP_NONE)
                return fail(&p, p.pos, "only one failure target is allowed");
            failure_pos = p.pos;
            p.pos++;
            rc = parse_compare(&p, "f", &d.failure_cmp, &d.failure_at);
        } else {
            rc = fail_unexpected(&p, "in dice");
        }
        if (rc != 0)
            return -1;
    }
    if (d.failure_cmp != DICE_CMP_NONE && d.success_cmp == DICE_CMP_NONE)
        return fail(&p, failure_pos, "failures need a success target, e.g. 10d10>=8f1");

    *out = d;
    return 0;
}

/* ---------------------------------------------------------------- roll */

static bool dice_in_range(const dice *d)
{
    return d && d->count >= 1 && d->count <= DICE_MAX_COUNT && d->sides >= 1 && d->sides <= DICE_MAX_SIDES &&
           d->keep <= DICE_DROP_LOW && d->keep_n >= 0 && d->explode <= DICE_PENETRATE;
}

typedef struct roller {
    const dice *d;
    rng *r;
    dice_face *faces;
    size_t n;
    int extra_left; /* shared budget of extra dice from explosions and rerolls */
    bool forced;    /* the face being made took a forced face */
} roller;

static size_t record(roller *ro, int32_t value, uint8_t flags)
{
    ro->faces[ro->n].value = value;
    ro->faces[ro->n].flags = flags | (ro->forced ? DICE_FACE_FORCED : 0);
    ro->forced = false;
    return ro->n++;
}

static int32_t roll_face(roller *ro)
{
    int32_t face;
    /* forced faces replace the generator's draws, never an oracle's (an
       exact walk, fray diff's turns) */
    if (ro->r->forced && !ro->r->oracle &&
        dice_forced_take(ro->r->forced, ro->d->fudge ? 3 : ro->d->sides, ro->d->fudge, &face)) {
        ro->forced = true;
        return face;
    }
    if (ro->d->fudge)
        return (int32_t)rng_die(ro->r, 3) - 2;
    return (int32_t)rng_die(ro->r, ro->d->sides);
}

/* One die with the reroll rule applied; discarded faces are recorded. */
static int32_t roll_with_rerolls(roller *ro)
{
    const dice *d = ro->d;
    int32_t value = roll_face(ro);
    if (d->reroll_cmp == DICE_CMP_NONE)
        return value;
    for (int times = 0; dice_cmp_holds(d->reroll_cmp, value, d->reroll_at) && ro->extra_left > 0; times++) {
        if (d->reroll_once && times == 1)
            break;
        record(ro, value, DICE_FACE_REROLLED);
        ro->extra_left--;
        value = roll_face(ro);
    }
    return value;
}

static bool explodes(roller *ro, int32_t raw)
{
    return ro->extra_left > 0 && dice_cmp_holds(ro->d->explode_cmp, raw, ro->d->explode_at);
}

static void roll_one_die(roller *ro)
{
    const dice *d = ro->d;
    int32_t raw = roll_with_rerolls(ro);
    switch (d->explode) {
    case DICE_EXPLODE:
    case DICE_PENETRATE: {
        /* Each extra die is its own face; a penetrating one counts 1 less,
         * but whether it explodes again is judged on its raw roll. */
        int32_t shown = raw;
        for (;;) {
            size_t at = record(ro, shown, 0);
            if (!explodes(ro, raw))
                break;
            ro->faces[at].flags |= DICE_FACE_EXPLODED;
            ro->extra_left--;
            raw = roll_with_rerolls(ro);
            shown = d->explode == DICE_PENETRATE ? raw - 1 : raw;
        }
        break;
    }
    case DICE_COMPOUND: {
        /* Bounded by DICE_MAX_SIDES * (DICE_MAX_EXPLOSIONS + 1): fits int32. */
        int32_t sum = raw;
        uint8_t flags = 0;
        while (explodes(ro, raw)) {
            flags = DICE_FACE_EXPLODED;
            ro->extra_left--;
            raw = roll_with_rerolls(ro);
            sum += raw;
        }
        record(ro, sum, flags);
        break;
    }
    default: record(ro, raw, 0); break;
    }
}

/* Keep `keep` faces of the pool (faces not rerolled) with the highest
 * (or lowest) values and flag the rest dropped. Ties at the cut go to the
 * earliest faces. No scratch memory: binary search for the cut value. */
static void keep_extreme(dice_face *faces, size_t n, size_t pool, size_t keep, bool highest)
{
    if (keep >= pool)
        return;
    if (n <= 16) {
        /* small pools: a face is dropped when `keep` faces beat it (better,
           or as good and earlier); cheaper than the search below */
        int64_t key[16];
        bool live[16];
        for (size_t i = 0; i < n; i++) {
            live[i] = !(faces[i].flags & DICE_FACE_REROLLED);
            key[i] = highest ? faces[i].value : -(int64_t)faces[i].value;
        }
        for (size_t i = 0; i < n; i++) {
            size_t beaten_by = 0;
            for (size_t j = 0; j < i; j++)
                beaten_by += live[j] && key[j] >= key[i];
            for (size_t j = i + 1; j < n; j++)
                beaten_by += live[j] && key[j] > key[i];
            if (live[i] && beaten_by >= keep)
                faces[i].flags |= DICE_FACE_DROPPED;
        }
        return;
    }
    int64_t key_lo = INT64_MAX, key_hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (faces[i].flags & DICE_FACE_REROLLED)
            continue;
        int64_t key = highest ? faces[i].value : -(int64_t)faces[i].value;
        if (key < key_lo)
            key_lo = key;
        if (key > key_hi)
            key_hi = key;
    }
    /* Largest cut with at least `keep` keys >= cut. */
    int64_t lo = key_lo, hi = key_hi;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        size_t at_least = 0;
        for (size_t i = 0; i < n; i++) {
            if (faces[i].flags & DICE_FACE_REROLLED)
                continue;
            int64_t key = highest ? faces[i].value : -(int64_t)faces[i].value;
            at_least += key >= mid;
        }
        if (at_least >= keep)
            lo = mid;
        else
            hi = mid - 1;
    }
    int64_t cut = lo;
    size_t above = 0;
    for (size_t i = 0; i < n; i++) {
        if (faces[i].flags & DICE_FACE_REROLLED)
            continue;
        int64_t key = highest ? faces[i].value : -(int64_t)faces[i].value;
        above += key > cut;
    }
    size_t ties_kept = keep - above;
    for (size_t i = 0; i < n; i++) {
        if (faces[i].flags & DICE_FACE_REROLLED)
            continue;
        int64_t key = highest ? faces[i].value : -(int64_t)faces[i].value;
        if (key > cut)
            continue;
        if (key == cut && ties_kept > 0) {
            ties_kept--;
            continue;
        }
        faces[i].flags |= DICE_FACE_DROPPED;
    }
}

static void apply_keep(const dice *d, dice_face *faces, size_t n)
{
    size_t pool = 0;
    for (size_t i = 0; i < n; i++)
        pool += !(faces[i].flags & DICE_FACE_REROLLED);
    size_t k = (size_t)d->keep_n;
    size_t rest = pool > k ? pool - k : 0;
    switch (d->keep) {
    case DICE_KEEP_HIGH: keep_extreme(faces, n, pool, k, true); break;
    case DICE_KEEP_LOW: keep_extreme(faces, n, pool, k, false); break;
    case DICE_DROP_LOW: keep_extreme(faces, n, pool, rest, true); break;
    case DICE_DROP_HIGH: keep_extreme(faces, n, pool, rest, false); break;
    default: break;
    }
}

/* Pools up to this size keep and drop by passes over a local array. */
#define DICE_PLAIN_KEEP_MAX 64

bool dice_is_plain(const dice *d)
{
    return dice_in_range(d) && !d->fudge && d->explode == DICE_NO_EXPLODE && d->reroll_cmp == DICE_CMP_NONE &&
           d->success_cmp == DICE_CMP_NONE;
}

/* n faces of a die of `sides` into faces; their sum. */
static inline int64_t roll_faces(rng *r, uint64_t sides, int32_t n, dice_face *faces)
{
    int64_t sum = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = (int32_t)(1 + rng_below(r, sides));
        faces[i] = (dice_face){.value = v, .flags = 0};
        sum += v;
    }
    return sum;
}

__attribute__((always_inline)) static inline int64_t keep_plain(const dice *d, dice_face *faces, int64_t sum)
{
    if (d->keep == DICE_KEEP_ALL)
        return sum;
    int32_t n = d->count, k = d->keep == DICE_KEEP_HIGH || d->keep == DICE_KEEP_LOW ? d->keep_n : n - d->keep_n;
    bool highest = d->keep == DICE_KEEP_HIGH || d->keep == DICE_DROP_LOW;
    if (k >= n)
        return sum;
    if (k < 0)
        k = 0;
    /* Take out whichever is fewer, the worst or the best, one at a time:
       for 4d6kh3 that is one pass for the lowest die. Ties at the cut go
       to the earliest faces, as in keep_extreme. Keys in a local array, a
       face taken out marked by a key no pass will pick again: the passes
       compare and move, without branching on the dice. */
    int32_t sign = highest ? 1 : -1;
    if (n - k == 1) {
        /* one die goes (4d6kh3, 2d20kh1): a pass for it, as below */
        int32_t worst = 0;
        int64_t low = (int64_t)sign * faces[0].value;
        for (int32_t i = 1; i < n; i++) {
            int64_t key = (int64_t)sign * faces[i].value;
            bool lower = key <= low; /* the latest of equals goes */
            worst = lower ? i : worst;
            low = lower ? key : low;
        }
        faces[worst].flags = DICE_FACE_DROPPED;
        return sum - faces[worst].value;
    }
    int64_t key[DICE_PLAIN_KEEP_MAX];
    if (n > DICE_PLAIN_KEEP_MAX) {
        apply_keep(d, faces, (size_t)n);
        sum = 0;
        for (int32_t i = 0; i < n; i++)
            sum += faces[i].flags & DICE_FACE_DROPPED ? 0 : faces[i].value;
        return sum;
    }
    for (int32_t i = 0; i < n; i++)
        key[i] = (int64_t)sign * faces[i].value;
    if (n - k <= k) {
        for (int32_t out = 0; out < n - k; out++) {
            int32_t worst = 0;
            int64_t low = key[0];
            for (int32_t i = 1; i < n; i++) {
                bool lower = key[i] <= low; /* the latest of equals goes */
                worst = lower ? i : worst;
                low = lower ? key[i] : low;
            }
            key[worst] = INT64_MAX;
            faces[worst].flags = DICE_FACE_DROPPED;
            sum -= faces[worst].value;
        }
        return sum;
    }
    sum = 0;
    for (int32_t i = 0; i < n; i++)
        faces[i].flags = DICE_FACE_DROPPED;
    for (int32_t in = 0; in < k; in++) {
        int32_t best = 0;
        int64_t high = key[0];
        for (int32_t i = 1; i < n; i++) {
            bool higher = key[i] > high; /* the earliest of equals stays */
            best = higher ? i : best;
            high = higher ? key[i] : high;
        }
        key[best] = INT64_MIN;
        faces[best].flags = 0;
        sum += faces[best].value;
    }
    return sum;
}

int64_t dice_roll_plain(const dice *d, rng *r, dice_face *faces)
{
    int64_t sum;
    if (r->oracle) {
        sum = roll_faces(r, (uint64_t)d->sides, d->count, faces);
    } else {
        /* the generator in registers: through r, every store to a face
           could alias its state and force a reload per die */
        rng local = {.oracle = NULL};
        rng_copy_state(local.s, r->s);
        sum = roll_faces(&local, (uint64_t)d->sides, d->count, faces);
        rng_copy_state(r->s, local.s);
    }
    return keep_plain(d, faces, sum);
}

uint32_t dice_pack(const dice *d, const dice_face *faces)
{
    uint64_t bits = 0;
    unsigned b = dice_face_bits(d->sides);
    for (int32_t i = 0; i < d->count; i++)
        bits = bits << b | (uint64_t)(faces[i].value - 1);
    return (uint32_t)bits;
}

void dice_unpack(const dice *d, uint32_t packed, dice_face *faces)
{
    unsigned b = dice_face_bits(d->sides);
    uint64_t bits = packed, mask = (UINT64_C(1) << b) - 1;
    int64_t sum = 0;
    for (int32_t i = d->count - 1; i >= 0; i--, bits >>= b) {
        faces[i] = (dice_face){.value = 1 + (int32_t)(bits & mask), .flags = 0};
        sum += faces[i].value;
    }
    keep_plain(d, faces, sum);
}

bool dice_plan_packed(const dice *d, dice_plan *out)
{
    *out = (dice_plan){0};
    int32_t n = d->count;
    int32_t k = d->keep == DICE_KEEP_HIGH || d->keep == DICE_KEEP_LOW ? d->keep_n : n - d->keep_n;
    bool drop_one = d->keep != DICE_KEEP_ALL && k == n - 1;
    if (!dice_is_plain(d) || n > DICE_PACKED_MAX || (uint64_t)n * dice_face_bits(d->sides) > 32 ||
        (k != n && !drop_one))
        return false;
    *out = (dice_plan){.count = n,
                       .sides = d->sides,
                       .bits = (uint8_t)dice_face_bits(d->sides),
                       .drop_one = drop_one,
                       .flip = d->keep == DICE_KEEP_HIGH || d->keep == DICE_DROP_LOW ? 0 : -1};
    return true;
}

int dice_roll(const dice *d, rng *r, dice_face *faces, size_t cap, size_t *nfaces, int64_t *total)
{
    if (!dice_in_range(d) || !r || !faces || !nfaces || !total || cap < dice_max_faces(d))
        return -1;
    roller ro = {.d = d, .r = r, .faces = faces, .n = 0, .extra_left = DICE_MAX_EXPLOSIONS};
    bool forcing = r->forced && r->forced->n && !r->oracle;
    if (d->explode == DICE_NO_EXPLODE && d->reroll_cmp == DICE_CMP_NONE && !d->fudge && !forcing) {
        /* the common case, one face per die: no roller bookkeeping */
        uint64_t sides = (uint64_t)d->sides;
        for (int32_t i = 0; i < d->count; i++)
            faces[i] = (dice_face){.value = (int32_t)(1 + rng_below(r, sides)), .flags = 0};
        ro.n = (size_t)d->count;
    } else {
        for (int32_t i = 0; i < d->count; i++)
            roll_one_die(&ro);
    }
    if (d->keep != DICE_KEEP_ALL)
        apply_keep(d, faces, ro.n);

    int64_t sum = 0;
    for (size_t i = 0; i < ro.n; i++) {
        dice_face *f = &faces[i];
        if (f->flags & (DICE_FACE_REROLLED | DICE_FACE_DROPPED))
            continue;
        if (d->success_cmp == DICE_CMP_NONE) {
            sum += f->value;
            continue;
        }
        if (dice_cmp_holds(d->success_cmp, f->value, d->success_at)) {
            f->flags |= DICE_FACE_SUCCESS;
            sum++;
        }
        if (dice_cmp_holds(d->failure_cmp, f->value, d->failure_at)) {
            f->flags |= DICE_FACE_FAILURE;
            sum--;
        }
    }
    *nfaces = ro.n;
    *total = sum;
    return 0;
}

/* ---------------------------------------------------------------- bounds */

typedef struct bounds {
    int64_t kept_min, kept_max;   /* how many faces can count toward the total */
    int64_t value_min, value_max; /* the value range of one counted face */
} bounds;

static bounds dice_bounds(const dice *d)
{
    int32_t lo, hi;
    face_range(d, &lo, &hi);
    int64_t extra = d->explode != DICE_NO_EXPLODE ? DICE_MAX_EXPLOSIONS : 0;
    int64_t pool_min = d->count, pool_max = d->count;
    bounds b = {0, 0, lo, hi};
    switch (d->explode) {
    case DICE_EXPLODE: pool_max += extra; break;
    case DICE_PENETRATE:
        pool_max += extra;
        b.value_min = lo - 1;
        break;
    case DICE_COMPOUND:
        if (lo < 0)
            b.value_min = (int64_t)lo * (extra + 1);
        if (hi > 0)
            b.value_max = (int64_t)hi * (extra + 1);
        break;
    default: break;
    }
    int64_t k = d->keep_n;
    switch (d->keep) {
    case DICE_KEEP_HIGH:
    case DICE_KEEP_LOW:
        b.kept_min = k < pool_min ? k : pool_min;
        b.kept_max = k < pool_max ? k : pool_max;
        break;
    case DICE_DROP_HIGH:
    case DICE_DROP_LOW:
        b.kept_min = pool_min > k ? pool_min - k : 0;
        b.kept_max = pool_max > k ? pool_max - k : 0;
        break;
    default:
        b.kept_min = pool_min;
        b.kept_max = pool_max;
        break;
    }
    return b;
}

int64_t dice_min(const dice *d)
{
    if (!dice_in_range(d))
        return 0;
    bounds b = dice_bounds(d);
    if (d->success_cmp != DICE_CMP_NONE)
        return d->failure_cmp != DICE_CMP_NONE ? -b.kept_max : 0;
    return b.value_min >= 0 ? b.kept_min * b.value_min : b.kept_max * b.value_min;
}

int64_t dice_max(const dice *d)
{
    if (!dice_in_range(d))
        return 0;
    bounds b = dice_bounds(d);
    if (d->success_cmp != DICE_CMP_NONE)
        return b.kept_max;
    int64_t max = b.value_max >= 0 ? b.kept_max * b.value_max : b.kept_min * b.value_max;
    if (d->explode != DICE_NO_EXPLODE && b.value_min >= 0) {
        /* With no negative faces the kept sum is at most the sum of every
         * die rolled, which tightens the bound for compounding with keep. */
        int32_t lo, hi;
        face_range(d, &lo, &hi);
        int64_t all_rolled = ((int64_t)d->count + DICE_MAX_EXPLOSIONS) * hi;
        if (all_rolled < max)
            max = all_rolled;
    }
    return max;
}

/* ---------------------------------------------------------------- format */

typedef struct writer {
    char *buf;
    size_t cap;
    size_t len; /* length the full output needs, even past cap */
} writer;

static void put(writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = w->len < w->cap ? w->buf + w->len : NULL;
    size_t room = w->len < w->cap ? w->cap - w->len : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        w->len += (size_t)n;
}

static const char *cmp_text(uint8_t cmp)
{
    switch (cmp) {
    case DICE_CMP_GE: return ">=";
    case DICE_CMP_LE: return "<=";
    case DICE_CMP_GT: return ">";
    case DICE_CMP_LT: return "<";
    default: return "=";
    }
}

/* bare_equal: write "=N" as plain "N" where the grammar allows it. */
static void put_compare(writer *w, uint8_t cmp, int32_t at, bool bare_equal)
{
    if (cmp == DICE_CMP_EQ && bare_equal && at >= 0)
        put(w, "%ld", (long)at);
    else
        put(w, "%s%ld", cmp_text(cmp), (long)at);
}

static void put_notation(writer *w, const dice *d)
{
    if (d->count != 1)
        put(w, "%ld", (long)d->count);
    if (d->fudge)
        put(w, "dF");
    else if (d->sides == 100)
        put(w, "d%%");
    else
        put(w, "d%ld", (long)d->sides);

    if (d->explode != DICE_NO_EXPLODE) {
        put(w, d->explode == DICE_COMPOUND ? "!!" : d->explode == DICE_PENETRATE ? "!p" : "!");
        int32_t lo, hi;
        face_range(d, &lo, &hi);
        bool is_default = d->explode_cmp == DICE_CMP_EQ && d->explode_at == hi;
        /* A success target written right after a bare "!" would be read
         * as the explosion's own target, so spell the default out then. */
        bool success_follows =
            d->reroll_cmp == DICE_CMP_NONE && d->keep == DICE_KEEP_ALL && d->success_cmp != DICE_CMP_NONE;
        if (!is_default || success_follows)
            put_compare(w, d->explode_cmp, d->explode_at, true);
    }
    if (d->reroll_cmp != DICE_CMP_NONE) {
        put(w, d->reroll_once ? "ro" : "r");
        put_compare(w, d->reroll_cmp, d->reroll_at, true);
    }
    switch (d->keep) {
    case DICE_KEEP_HIGH: put(w, "kh%ld", (long)d->keep_n); break;
    case DICE_KEEP_LOW: put(w, "kl%ld", (long)d->keep_n); break;
    case DICE_DROP_HIGH: put(w, "dh%ld", (long)d->keep_n); break;
    case DICE_DROP_LOW: put(w, "dl%ld", (long)d->keep_n); break;
    default: break;
    }
    if (d->success_cmp != DICE_CMP_NONE)
        put_compare(w, d->success_cmp, d->success_at, false);
    if (d->failure_cmp != DICE_CMP_NONE) {
        put(w, "f");
        put_compare(w, d->failure_cmp, d->failure_at, true);
    }
}

static void writer_init(writer *w, char *buf, size_t cap)
{
    w->buf = buf;
    w->cap = buf ? cap : 0;
    w->len = 0;
    if (w->cap > 0)
        buf[0] = '\0';
}

size_t dice_format(const dice *d, char *buf, size_t cap)
{
    writer w;
    writer_init(&w, buf, cap);
    put_notation(&w, d);
    return w.len;
}

size_t dice_format_roll(const dice *d, const dice_face *faces, size_t nfaces, int64_t total, char *buf, size_t cap)
{
    writer w;
    writer_init(&w, buf, cap);
    put_notation(&w, d);
    put(&w, " (");
    for (size_t i = 0; i < nfaces; i++) {
        const dice_face *f = &faces[i];
        bool bracketed = (f->flags & (DICE_FACE_DROPPED | DICE_FACE_REROLLED)) != 0;
        put(&w, "%s%s%ld%s%s%s%s%s", i ? ", " : "", bracketed ? "[" : "", (long)f->value,
            (f->flags & DICE_FACE_EXPLODED) ? "!" : "", (f->flags & DICE_FACE_SUCCESS) ? "*" : "",
            (f->flags & DICE_FACE_FAILURE) ? "f" : "", (f->flags & DICE_FACE_FORCED) ? " forced" : "",
            bracketed ? "]" : "");
    }
    put(&w, ") = %lld", (long long)total);
    return w.len;
}
