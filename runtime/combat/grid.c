/* grid: a square grid. Squares are blocked (walls, obstacles) or
 * difficult; creatures stand in squares and may fill several. Distance
 * follows the rules' diagonal step (1, 1.5 or alternating 1 and 2), line
 * of sight runs from any point of one creature's square to any point of
 * the other's without passing through a blocked square, and cover counts
 * the target's corners the attacker can see: some hidden is half cover,
 * all hidden (with sight still) is full cover. Movement follows a path
 * square by square and says so for every square left and entered, and for
 * every creature whose threatened square is left, so leaving a threatened
 * square can provoke. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/grid_path.h"
#include "runtime/combat/world.h"

/* --- squares ------------------------------------------------------------------ */

static uint32_t hash_xy(int32_t x, int32_t y)
{
    uint64_t h = (uint64_t)(uint32_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)y * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(h >> 32);
}

static int cell_find(const combat *cb, int32_t x, int32_t y)
{
    if (!cb->cell_index_cap)
        return -1;
    uint32_t mask = (uint32_t)cb->cell_index_cap - 1;
    for (uint32_t i = hash_xy(x, y) & mask;; i = (i + 1) & mask) {
        int32_t k = cb->cell_index[i];
        if (k < 0)
            return -1;
        if (cb->cells[k].x == x && cb->cells[k].y == y)
            return k;
    }
}

uint8_t grid_flags_at(const vm *v, int32_t x, int32_t y)
{
    int k = cell_find(&v->world->cb, x, y);
    return k < 0 ? 0 : v->world->cb.cells[k].flags;
}

static bool rehash_cells(combat *cb, int cap)
{
    int32_t *idx = mem_alloc((size_t)cap * sizeof(int32_t));
    if (!idx)
        return false;
    for (int i = 0; i < cap; i++)
        idx[i] = -1;
    uint32_t mask = (uint32_t)cap - 1;
    for (int k = 0; k < cb->ncells; k++) {
        uint32_t i = hash_xy(cb->cells[k].x, cb->cells[k].y) & mask;
        while (idx[i] >= 0)
            i = (i + 1) & mask;
        idx[i] = k;
    }
    if (cb->cell_index)
        mem_free(cb->cell_index, (size_t)cb->cell_index_cap * sizeof(int32_t));
    cb->cell_index = idx;
    cb->cell_index_cap = cap;
    return true;
}

static bool set_flag(vm *v, int32_t x, int32_t y, uint8_t flag, span at)
{
    combat *cb = &v->world->cb;
    int k = cell_find(cb, x, y);
    if (k >= 0) {
        /* a level of cover replaces the one before; the other marks add up */
        uint8_t *f = &cb->cells[k].flags;
        *f = flag & CELL_SET_COVER ? (uint8_t)((*f & ~CELL_COVER_MASK) | (flag & CELL_COVER_MASK)) : *f | flag;
        return true;
    }
    flag &= (uint8_t)~CELL_SET_COVER;
    if (cb->ncells >= 1000000)
        return vm_error(v, at, "too many marked squares (limit is 1000000)");
    size_t cap = (size_t)cb->cells_cap;
    cell_flags *g = mem_grow(cb->cells, sizeof(cell_flags), &cap, (size_t)cb->ncells + 1);
    if (!g)
        return vm_error(v, at, "out of memory");
    cb->cells = g;
    cb->cells_cap = (int)cap;
    cb->cells[cb->ncells++] = (cell_flags){x, y, flag};
    vm_play_changed(v);
    if ((cb->ncells + 1) * 2 > cb->cell_index_cap &&
        !rehash_cells(cb, cb->cell_index_cap ? cb->cell_index_cap * 2 : 64))
        return vm_error(v, at, "out of memory");
    uint32_t mask = (uint32_t)cb->cell_index_cap - 1;
    uint32_t i = hash_xy(x, y) & mask;
    while (cb->cell_index[i] >= 0)
        i = (i + 1) & mask;
    cb->cell_index[i] = cb->ncells - 1;
    return true;
}

bool grid_wall(vm *v, int32_t x0, int32_t y0, int32_t x1, int32_t y1, uint8_t flag, span at)
{
    int32_t lx = x0 < x1 ? x0 : x1, hx = x0 < x1 ? x1 : x0;
    int32_t ly = y0 < y1 ? y0 : y1, hy = y0 < y1 ? y1 : y0;
    if ((int64_t)(hx - lx + 1) * (hy - ly + 1) > 100000)
        return vm_error(v, at, "too many squares at once (limit is 100000)");
    for (int32_t x = lx; x <= hx; x++)
        for (int32_t y = ly; y <= hy; y++)
            if (!set_flag(v, x, y, flag, at))
                return false;
    return true;
}

/* --- who stands where ------------------------------------------------------------ */

/* c's footprint (footprint.c), or -1 when its formula failed. */
static int32_t size_of(vm *v, int c)
{
    return grid_footprint(v, c);
}

bool grid_shares_square(vm *v, int c)
{
    const rexpr *e = &v->r->space.share;
    if (!rexpr_present(e))
        return false;
    value b;
    if (e->kind == REXPR_CONST)
        b = e->v;
    else if (!vm_call(v, e->chunk, c, NULL, 0, &b))
        return false;
    return value_truthy(b);
}

/* The creature standing in (x, y), other than `except`, or -1; with
   `sharing`, only one whose square others may not share. */
static int occupant_in(vm *v, int32_t x, int32_t y, int except, bool sharing)
{
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        const creature *cr = &v->world->creatures[c];
        if ((int)c == except || !cr->placed || !world_present(v, (int)c))
            continue;
        int32_t s = size_of(v, (int)c);
        if (x >= cr->x && x < cr->x + s && y >= cr->y && y < cr->y + s && !(sharing && grid_shares_square(v, (int)c)))
            return (int)c;
    }
    return -1;
}

/* The creature standing in (x, y), other than `except`, or -1. */
static int standing_in(vm *v, int32_t x, int32_t y, int except)
{
    return occupant_in(v, x, y, except, false);
}

/* The creature in (x, y), other than `except`, that keeps others out of its
   square, or -1. */
static int blocking_in(vm *v, int32_t x, int32_t y, int except)
{
    return occupant_in(v, x, y, except, true);
}

bool grid_place(vm *v, int c, int32_t x, int32_t y, span at)
{
    if (v->r->space.kind == SPACE_ZONES)
        return vm_error(v, at, "these rules use zones, not a grid: place NAME in ZONE");
    if (grid_flags_at(v, x, y) & CELL_BLOCKED) {
        char sq[32];
        square_format(x, y, sq, sizeof sq);
        return vm_error(v, at, "%s is blocked", sq);
    }
    int other = blocking_in(v, x, y, c);
    if (other >= 0) {
        char sq[32];
        square_format(x, y, sq, sizeof sq);
        return vm_error(v, at, "%s already stands in %s", v->world->creatures[other].name, sq);
    }
    creature *cr = &v->world->creatures[c];
    cr->placed = true;
    cr->x = x;
    cr->y = y;
    vm_play_changed(v);
    return true;
}

/* --- distance -------------------------------------------------------------------------- */

/* The gap in squares between two footprints along one axis. */
static int32_t gap(int32_t a, int32_t sa, int32_t b, int32_t sb)
{
    if (a + sa <= b)
        return b - (a + sa) + 1;
    if (b + sb <= a)
        return a - (b + sb) + 1;
    return 0;
}

/* Squares walked for dx, dy by the rules' diagonal step, as a fraction.
   The grid's coordinates (at most 100000 and a footprint) and a diagonal
   of at most 10 squares keep it within 64 bits, checked all the same. */
/* How diagonal steps count: the grid's rule, or a range's own. */
typedef struct diag_rule {
    int64_t num, den; /* a diagonal step counts num/den squares */
    bool alternate;   /* 1, 2, 1, 2 ... */
} diag_rule;

static diag_rule grid_diagonals(const vm *v)
{
    const r_space *sp = &v->r->space;
    return (diag_rule){sp->diag_num, sp->diag_den, sp->diag_alternate};
}

static bool squares_by(vm *v, diag_rule rule, int64_t dx, int64_t dy, value *out, span at)
{
    int64_t diag = dx < dy ? dx : dy, straight = (dx > dy ? dx : dy) - diag;
    __int128 num = rule.alternate ? (__int128)straight + diag + diag / 2
                                  : (__int128)straight * rule.den + (__int128)diag * rule.num;
    int64_t den = rule.alternate ? 1 : rule.den;
    if (num > INT64_MAX || rat_make((int64_t)num, den, V_FRAC, out) != ARITH_OK)
        return vm_error(v, at, "a distance on the grid is too large for a number");
    return true;
}

static bool squares_for(vm *v, int64_t dx, int64_t dy, value *out, span at)
{
    return squares_by(v, grid_diagonals(v), dx, dy, out, at);
}

static value square_side(const vm *v)
{
    const r_space *sp = &v->r->space;
    if (sp->kind == SPACE_GRID && sp->square.type == V_DIST)
        return sp->square;
    value five;
    rat_make(5, 1, V_DIST, &five);
    return five;
}

static bool to_feet(vm *v, value squares, value *out, span at)
{
    if (rat_mul(square_side(v), squares, V_DIST, out) != ARITH_OK)
        return vm_error(v, at, "a distance on the grid is too large for a number");
    return true;
}

static bool position(vm *v, value x, int32_t *px, int32_t *py, int32_t *size, span at)
{
    if (x.type == V_SQUARE) {
        *px = x.aux;
        *py = (int32_t)x.num;
        *size = 1;
        return true;
    }
    if (x.type != V_CREATURE)
        return vm_error(v, at, "expected a creature or a square, not %s", value_type_name(x.type));
    const creature *cr = &v->world->creatures[x.num];
    if (!cr->placed)
        return vm_error(v, at, "%s is not on the map (place %s at SQUARE)", cr->name, cr->name);
    *px = cr->x;
    *py = cr->y;
    *size = size_of(v, (int)x.num);
    return *size > 0;
}

/* Distance for reach and ranges: an adjacent square is always one step. */
static bool reach_squares(vm *v, diag_rule rule, int64_t dx, int64_t dy, value *out, span at)
{
    if (dx <= 1 && dy <= 1) {
        *out = value_int(dx || dy ? 1 : 0);
        return true;
    }
    /* the first diagonal step counts one; the rest by the rule */
    if (dx >= 1 && dy >= 1) {
        value rest;
        if (!squares_by(v, rule, dx - 1, dy - 1, &rest, at))
            return false;
        if (rat_add(rest, value_int(1), V_FRAC, out, 1) != ARITH_OK)
            return vm_error(v, at, "a distance on the grid is too large for a number");
        return true;
    }
    return squares_by(v, rule, dx, dy, out, at);
}

bool grid_distance(vm *v, value a, value b, value *out, span at)
{
    int32_t ax = 0, ay = 0, as = 0, bx = 0, by = 0, bs = 0;
    if (!position(v, a, &ax, &ay, &as, at) || !position(v, b, &bx, &by, &bs, at))
        return false;
    int64_t dx = gap(ax, as, bx, bs), dy = gap(ay, as, by, bs);
    value squares;
    return squares_for(v, dx, dy, &squares, at) && to_feet(v, squares, out, at);
}

bool grid_blocked(vm *v, value x, bool *out, span at)
{
    int32_t px, py, size;
    if (!position(v, x, &px, &py, &size, at))
        return false;
    *out = false;
    for (int32_t dx = 0; dx < size && !*out; dx++)
        for (int32_t dy = 0; dy < size && !*out; dy++)
            if (grid_flags_at(v, px + dx, py + dy) & CELL_BLOCKED)
                *out = true;
    return true;
}

bool grid_adjacent(vm *v, int a, int b)
{
    const creature *ca = &v->world->creatures[a], *cb_ = &v->world->creatures[b];
    if (!ca->placed || !cb_->placed)
        return false;
    int32_t sa = size_of(v, a), sb = size_of(v, b);
    return gap(ca->x, sa, cb_->x, sb) <= 1 && gap(ca->y, sa, cb_->y, sb) <= 1;
}

/* A range's distance for creature c, and how diagonals count within it. */
static bool range_of(vm *v, int c, int range, value *out, diag_rule *rule, span at)
{
    const r_range *rg = &v->r->ranges[range];
    const decl *d = &v->p->decls[rg->decl];
    *rule = grid_diagonals(v);
    if (d->value < 0)
        return vm_error(v, at, "range %s has no distance; it is decided by zones", program_string(v->p, rg->name));
    if (!vm_call(v, d->value, c, NULL, 0, out))
        return false;
    if (out->type != V_DIST)
        return vm_error(v, at, "range %s is %s, not a distance", program_string(v->p, rg->name),
                        value_type_name(out->type));
    if (rexpr_present(&rg->diag_when)) {
        value x;
        if (rg->diag_when.kind == REXPR_CONST)
            x = rg->diag_when.v;
        else if (!vm_call(v, rg->diag_when.chunk, c, NULL, 0, &x))
            return false;
        if (value_truthy(x))
            *rule = (diag_rule){rg->diag_num, rg->diag_den, rg->diag_alternate};
    }
    return true;
}

/* Whether reach_squares(dx, dy) in feet is within reach, worked out in
   integers when every number is below 2^20, so that the same sums in
   fractions could not have grown too large: false when not (then the
   fractions work it out, and say what is too large). Asked of every
   creature at every step of a walk. */
static bool within_small(const vm *v, diag_rule rule, int64_t dx, int64_t dy, value reach, bool *in)
{
    const int64_t lim = INT64_C(1) << 20;
    value side = square_side(v);
    int64_t sn = side.num, sd = value_den(side), rn = reach.num, rd = value_den(reach);
    if (dx > lim || dy > lim || rule.num > lim || rule.den > lim || sn > lim || sn < -lim || sd > lim || rn > lim ||
        rn < -lim || rd > lim)
        return false;
    int64_t qn = dx || dy ? 1 : 0, qd = 1; /* squares, as reach_squares counts them: qn / qd */
    if (dx > 1 || dy > 1) {
        int64_t first = dx >= 1 && dy >= 1, ex = dx - first, ey = dy - first;
        int64_t diag = ex < ey ? ex : ey, straight = (ex > ey ? ex : ey) - diag;
        qd = rule.alternate ? 1 : rule.den;
        qn = rule.alternate ? straight + diag + diag / 2 + first : straight * rule.den + diag * rule.num + first * qd;
    }
    /* side * qn / qd <= rn / rd, denominators positive */
    *in = (__int128)sn * qn * rd <= (__int128)rn * sd * qd;
    return true;
}

/* Is the square (x, y) within reach of a footprint of side s at (cx, cy)? */
static bool square_within_of(vm *v, int32_t cx, int32_t cy, int32_t s, value reach, diag_rule rule, int32_t x,
                             int32_t y, bool *in, span at)
{
    int64_t dx = gap(cx, s, x, 1), dy = gap(cy, s, y, 1);
    value squares, away;
    *in = false;
    if (reach.type == V_DIST && within_small(v, rule, dx, dy, reach, in))
        return true;
    if (!reach_squares(v, rule, dx, dy, &squares, at) || !to_feet(v, squares, &away, at))
        return false;
    *in = rat_cmp(away, reach) <= 0;
    return true;
}

/* Is the square (x, y) within creature c's range? */
static bool square_within(vm *v, int c, value reach, diag_rule rule, int32_t x, int32_t y, bool *in, span at)
{
    const creature *cr = &v->world->creatures[c];
    return square_within_of(v, cr->x, cr->y, size_of(v, c), reach, rule, x, y, in, at);
}

bool grid_within(vm *v, int a, int b, int range, bool *ok, span at)
{
    *ok = false;
    const r_range *rg = &v->r->ranges[range];
    if (rg->ordinal || v->r->space.kind == SPACE_ZONES) {
        int between;
        if (!zones_range_between(v, a, b, &between, at))
            return false;
        /* a range reaches every shorter one: ranges are ordered as declared */
        *ok = between >= 0 && between <= range;
        return true;
    }
    const creature *ca = &v->world->creatures[a], *cb_ = &v->world->creatures[b];
    if (!ca->placed || !cb_->placed) {
        *ok = true; /* not on a map: the GM judges distance */
        return true;
    }
    value reach;
    diag_rule rule;
    if (!range_of(v, a, range, &reach, &rule, at))
        return false;
    int32_t sb = size_of(v, b);
    for (int32_t x = cb_->x; x < cb_->x + sb && !*ok; x++)
        for (int32_t y = cb_->y; y < cb_->y + sb && !*ok; y++)
            if (!square_within(v, a, reach, rule, x, y, ok, at))
                return false;
    return true;
}

/* What a creature threatens (whether anything: `active`, and its reach and
   footprint), read once for the squares asked about together: nothing
   runs between the questions that could change it. */
typedef struct threat {
    bool active;
    value reach;
    diag_rule rule;
    int32_t x, y, s;
} threat;

static bool threat_of(vm *v, int a, threat *t, span at)
{
    const r_space *sp = &v->r->space;
    const creature *ca = &v->world->creatures[a];
    t->active = false;
    if (!ca->placed || !world_present(v, a))
        return true;
    bool out;
    if (!encounter_out(v, a, &out, at))
        return false;
    if (out)
        return true;
    t->rule = grid_diagonals(v);
    if (sp->reach_range >= 0) {
        if (!range_of(v, a, sp->reach_range, &t->reach, &t->rule, at))
            return false;
    } else {
        t->reach = square_side(v);
    }
    t->x = ca->x;
    t->y = ca->y;
    t->s = size_of(v, a);
    t->active = true;
    return true;
}

/* The squares a creature threatens: those within its reach but its own. */
static bool threat_covers(vm *v, const threat *t, int32_t x, int32_t y, bool *ok, span at)
{
    *ok = false;
    if (!t->active)
        return true;
    if (x >= t->x && x < t->x + t->s && y >= t->y && y < t->y + t->s)
        return true; /* not one's own square */
    return square_within_of(v, t->x, t->y, t->s, t->reach, t->rule, x, y, ok, at);
}

bool grid_threatens(vm *v, int a, value target, bool *ok, span at)
{
    int32_t x, y, s;
    if (!position(v, target, &x, &y, &s, at))
        return false;
    *ok = false;
    threat t;
    if (!threat_of(v, a, &t, at))
        return false;
    for (int32_t i = x; i < x + s && !*ok; i++)
        for (int32_t j = y; j < y + s && !*ok; j++)
            if (!threat_covers(v, &t, i, j, ok, at))
                return false;
    return true;
}

/* --- movement ------------------------------------------------------------------------------ */

typedef struct node_ {
    int32_t x, y;
    int64_t cost; /* in half squares (alternate diagonals need the halves) */
    int32_t prev;
    uint8_t parity; /* diagonals so far, mod 2 (alternate rule) */
} pnode;

/* The cost of one step, in units of 1/(2*den) square; f: the marks of the
   square whose difficulty counts (step_cost finds it). */
int64_t grid_step_cost_on(const vm *v, uint8_t f, int dx, int dy, uint8_t parity, int64_t unit)
{
    const r_space *sp = &v->r->space;
    int64_t c;
    if (dx && dy) {
        if (sp->diag_alternate)
            c = parity ? 2 * unit : unit;
        else /* unit is 2 * diag_den: the step is 2 * diag_num units (2 * 10^13 at most) */
            c = 2 * sp->diag_num;
    } else {
        c = unit;
    }
    if (f & CELL_DIFFICULT)
        c *= sp->difficult > 0 ? sp->difficult : 2;
    return c;
}

static int64_t step_cost(const vm *v, int32_t fx, int32_t fy, int dx, int dy, uint8_t parity, int64_t unit)
{
    /* the rules say whether the square left or the square entered costs more */
    bool entering = v->r->space.difficult_entering;
    return grid_step_cost_on(v, grid_flags_at(v, entering ? fx + dx : fx, entering ? fy + dy : fy), dx, dy, parity,
                             unit);
}

bool grid_enemies(const vm *v, int a, int b)
{
    int sa = v->world->creatures[a].side, sb = v->world->creatures[b].side;
    return sa < 0 || sb < 0 || sa != sb;
}

/* One step of movement, with its events; false when the mover should
   stop (it fell, or the move was cancelled). */
static bool step(vm *v, int c, int32_t nx, int32_t ny, value how, int *within, span at, bool *go_on)
{
    creature *cr = &v->world->creatures[c];
    bool fighting = v->world->cb.active;
    *go_on = false;
    value from = value_square(cr->x, cr->y), to = value_square(nx, ny);
    value who = value_ref(V_CREATURE, 0, c);
    value args[4] = {who, from, to, how};
    if (!events_emit(v, EV_LEAVES_SQUARE, args, 3, at))
        return false;
    /* everyone whose threatened square this is */
    for (size_t x = 0; x < v->world->ncreatures; x++) {
        if ((int)x == c || !world_present(v, (int)x))
            continue;
        threat th;
        bool t;
        if (!threat_of(v, (int)x, &th, at) || !threat_covers(v, &th, cr->x, cr->y, &t, at))
            return false;
        if (!t)
            continue;
        bool still;
        if (!threat_covers(v, &th, nx, ny, &still, at))
            return false;
        within[x] = still ? within[x] + 1 : 0;
        value targs[4] = {who, value_ref(V_CREATURE, 0, (int64_t)x), how, value_int(still ? within[x] : 0)};
        if (!events_emit(v, EV_LEAVES_THREATENED, targs, 4, at))
            return false;
        cr = &v->world->creatures[c];
    }
    bool out;
    if (!encounter_out(v, c, &out, at))
        return false;
    if (out || (fighting && !v->world->cb.active))
        return true; /* it fell where it stood, or the fight is over */
    cr->x = nx;
    cr->y = ny;
    vm_play_changed(v);
    /* what moves with it (a rider, someone carried) */
    for (int32_t i = cr->effects; i >= 0; i = v->world->cb.effects[i].next) {
        const effect *e = &v->world->cb.effects[i];
        if (e->kind == EFF_RELATION && v->r->relations[e->what].moves_together && e->partner >= 0)
            if (v->world->creatures[e->partner].placed) {
                v->world->creatures[e->partner].x = nx;
                v->world->creatures[e->partner].y = ny;
                vm_play_changed(v);
            }
    }
    if (!events_emit(v, EV_ENTERS_SQUARE, args, 3, at))
        return false;
    *go_on = true;
    return true;
}

/* A square of a path the command gives may follow the one before it:
   next to it, not blocked, and no enemy's; false (an error) when not. */
static bool check_given_step(vm *v, int c, int32_t x, int32_t y, int dx, int dy, const char *sq, span at)
{
    int other = blocking_in(v, x, y, c);
    if (dx < -1 || dx > 1 || dy < -1 || dy > 1 || (!dx && !dy))
        return vm_error(v, at, "%s is not next to the square before it on the path", sq);
    if (grid_flags_at(v, x, y) & CELL_BLOCKED)
        return vm_error(v, at, "the path runs into %s, which is blocked", sq);
    if (other >= 0 && grid_enemies(v, c, other))
        return vm_error(v, at, "the path runs through %s, where %s stands: no one passes through an enemy", sq,
                        v->world->creatures[other].name);
    return true;
}

/* A path given square by square, each next to the one before, and on to
   the goal; in *path (the caller frees n + 1 steps). Returns the number of
   squares, or -1. */
static int via_path(vm *v, int c, const value *via, int nvia, int32_t gx, int32_t gy, int64_t unit, path_step **path,
                    span at)
{
    const creature *cr = &v->world->creatures[c];
    path_step *p = MEM_NEW_ARRAY(path_step, (size_t)nvia + 2);
    if (!p)
        return vm_error(v, at, "out of memory"), -1;
    int n = 0;
    int32_t lx = cr->x, ly = cr->y;
    int64_t total = 0;
    uint8_t par = 0;
    char sq[32];
    for (int i = 0; i < nvia; i++) {
        int32_t x = via[i].aux, y = (int32_t)via[i].num;
        int dx = x - lx, dy = y - ly;
        square_format(x, y, sq, sizeof sq);
        if (!check_given_step(v, c, x, y, dx, dy, sq, at))
            goto fail;
        total += step_cost(v, lx, ly, dx, dy, par, unit);
        if (dx && dy)
            par ^= 1;
        p[n++] = (path_step){x, y, total};
        lx = x;
        ly = y;
    }
    if (n == 0 || p[n - 1].x != gx || p[n - 1].y != gy) {
        int dx = gx - lx, dy = gy - ly;
        if (dx < -1 || dx > 1 || dy < -1 || dy > 1) {
            vm_error(v, at, "the path does not reach its end");
            goto fail;
        }
        total += step_cost(v, lx, ly, dx, dy, par, unit);
        p[n++] = (path_step){gx, gy, total};
    }
    /* the caller frees n + 1 steps, as find_path's */
    path_step *fit = mem_realloc(p, ((size_t)nvia + 2) * sizeof(path_step), ((size_t)n + 1) * sizeof(path_step));
    *path = fit ? fit : p;
    if (!fit) {
        vm_error(v, at, "out of memory");
        goto fail;
    }
    return n;
fail:
    mem_free(p, ((size_t)nvia + 2) * sizeof(path_step));
    return -1;
}

/* What the path costs up to step i, in feet. */
static bool path_feet(vm *v, const path_step *path, int i, int64_t unit, value *feet, span at)
{
    value squares;
    if (rat_make(path[i].cost, unit, V_FRAC, &squares) != ARITH_OK || !to_feet(v, squares, feet, at))
        return vm_error(v, at, "a distance on the grid is too large for a number");
    return true;
}

/* A move at the table that its budget cannot pay in full is refused; so,
   said the same way, is a walk whose budget pays not even its first step. */
static bool refuse_unpaid(vm *v, int c, const path_step *path, int n, const walk_budget *b, int64_t unit, span at)
{
    value price;
    if (!path_feet(v, path, n - 1, unit, &price, at))
        return false;
    char sq[32], costs[64], has[64];
    square_format(path[n - 1].x, path[n - 1].y, sq, sizeof sq);
    vm_format(v, price, costs, sizeof costs);
    vm_format(v, b->have, has, sizeof has);
    const char *who = v->world->creatures[c].name;
    combat_say(v, "%s cannot move to %s: %s costs %s, and %s has %s of %s left", who, sq,
               n > 1 ? "the way" : "the step", costs, who, has, program_string(v->p, v->p->decls[b->decl].name));
    return true;
}

/* Moves c along the first squares of a path: as far as max (or the
   budget b) allows, and not to end where another stands. */
static bool walk_path(vm *v, int c, const path_step *path, int n, value max, const walk_budget *b, bool whole,
                      int how_word, int64_t unit, value *moved, span at)
{
    creature *cr = &v->world->creatures[c];
    /* as far as the budget allows, ending in a free square */
    int allowed = n;
    if (max.type == V_DIST) {
        for (int i = 0; i < n; i++) {
            value feet;
            if (!path_feet(v, path, i, unit, &feet, at))
                return false;
            if (rat_cmp(feet, max) > 0) {
                allowed = i;
                break;
            }
        }
    }
    if (whole && b->decl >= 0 && allowed < n)
        return refuse_unpaid(v, c, path, n, b, unit, at);
    if (b->decl >= 0 && allowed == 0 && n > 0)
        return refuse_unpaid(v, c, path, 1, b, unit, at);
    /* a move may pass through a friend's square but not end in it */
    int blocker = -1;
    while (allowed > 0 && blocking_in(v, path[allowed - 1].x, path[allowed - 1].y, c) >= 0) {
        if (blocker < 0)
            blocker = blocking_in(v, path[allowed - 1].x, path[allowed - 1].y, c);
        allowed--;
    }
    if (blocker >= 0) {
        char sq[32];
        square_format(path[allowed].x, path[allowed].y, sq, sizeof sq);
        combat_say(v, "%s cannot end its move in %s, where %s stands", cr->name, sq, v->world->creatures[blocker].name);
    }
    int *within = MEM_NEW_ARRAY(int, v->world->ncreatures ? v->world->ncreatures : 1);
    if (!within)
        return vm_error(v, at, "out of memory");
    value how = value_ref(V_WORD, HOME_PROGRAM, how_word);
    value start = value_square(cr->x, cr->y);
    int taken = 0;
    bool ok = true;
    for (int i = 0; i < allowed && ok; i++) {
        bool go_on;
        ok = step(v, c, path[i].x, path[i].y, how, within, at, &go_on);
        if (!ok || !go_on)
            break;
        taken = i + 1;
    }
    mem_free(within, (v->world->ncreatures ? v->world->ncreatures : 1) * sizeof(int));
    if (!ok)
        return false;
    if (taken > 0) {
        value squares;
        if (rat_make(path[taken - 1].cost, unit, V_FRAC, &squares) != ARITH_OK || !to_feet(v, squares, moved, at))
            return vm_error(v, at, "a distance on the grid is too large for a number");
        char from[32], to[32], d[64], left_text[64], rest[80] = "";
        value left = value_nil();
        if (b->decl >= 0) { /* what is left of the budget: "(20 ft, 10 ft left)" */
            if (!budget_left(v, b, *moved, &left, at))
                return false;
            vm_format(v, left, left_text, sizeof left_text);
            snprintf(rest, sizeof rest, ", %s left", left_text);
        }
        square_format(start.aux, (int32_t)start.num, from, sizeof from);
        square_format(v->world->creatures[c].x, v->world->creatures[c].y, to, sizeof to);
        vm_format(v, *moved, d, sizeof d);
        combat_say(v, "%s moves %s -> %s (%s%s)", v->world->creatures[c].name, from, to, d, rest);
        if (!budget_pay(v, c, b, left, at))
            return false;
        value args[4] = {value_ref(V_CREATURE, 0, c), start,
                         value_square(v->world->creatures[c].x, v->world->creatures[c].y), how};
        return events_emit(v, EV_MOVED, args, 4, at);
    }
    return true;
}

bool grid_walk(vm *v, int c, value to, value max, bool whole, int how_word, const value *via, int nvia, value *moved,
               span at)
{
    creature *cr = &v->world->creatures[c];
    rat_make(0, 1, V_DIST, moved);
    if (!cr->placed)
        return vm_error(v, at, "%s is not on the map (place %s at SQUARE)", cr->name, cr->name);
    if (max.type != V_DIST && max.type != V_NIL && max.type != V_WORD)
        return vm_error(v, at, "how far to move is a distance, not %s", value_type_name(max.type));
    walk_budget b;
    if (!budget_open(v, c, max, &b, at))
        return false;
    if (b.decl >= 0)
        max = b.have;
    cr = &v->world->creatures[c];
    int32_t gx, gy;
    bool to_creature = to.type == V_CREATURE;
    if (to_creature) {
        const creature *t = &v->world->creatures[to.num];
        if (!t->placed)
            return vm_error(v, at, "%s is not on the map", t->name);
        gx = t->x;
        gy = t->y;
    } else if (to.type == V_SQUARE) {
        gx = to.aux;
        gy = (int32_t)to.num;
    } else {
        return vm_error(v, at, "move to a square or a creature, not %s", value_type_name(to.type));
    }
    int there = to_creature ? -1 : blocking_in(v, gx, gy, c);
    if (there >= 0) {
        char sq[32];
        square_format(gx, gy, sq, sizeof sq);
        combat_say(v, "%s cannot end its move in %s, where %s stands", cr->name, sq, v->world->creatures[there].name);
        return true;
    }
    const r_space *sp = &v->r->space;
    int64_t unit = 2 * (sp->diag_alternate ? 1 : sp->diag_den);
    path_step *path = NULL;
    int n = nvia > 0 ? via_path(v, c, via, nvia, gx, gy, unit, &path, at)
                     : grid_find_path(v, c, gx, gy, to_creature, to_creature ? (int)to.num : -1, &path, at);
    if (n < 0)
        return false;
    bool ok = walk_path(v, c, path, n, max, &b, whole, how_word, unit, moved, at);
    mem_free(path, ((size_t)n + 1) * sizeof(path_step));
    return ok;
}

bool grid_push(vm *v, int c, int from, value distance, value *moved, span at)
{
    creature *cr = &v->world->creatures[c];
    const creature *fr = &v->world->creatures[from];
    rat_make(0, 1, V_DIST, moved);
    if (!cr->placed || !fr->placed)
        return vm_error(v, at, "both creatures need to be on the map to push");
    if (distance.type != V_DIST)
        return vm_error(v, at, "how far to push is a distance, not %s", value_type_name(distance.type));
    int dx = cr->x > fr->x ? 1 : cr->x < fr->x ? -1 : 0;
    int dy = cr->y > fr->y ? 1 : cr->y < fr->y ? -1 : 0;
    if (!dx && !dy)
        dx = 1;
    value side = square_side(v), squares;
    /* whole squares in the distance: feet over the square's side (more
       than 0 ft, the space's declaration makes sure) */
    if (rat_div(distance, side, V_FRAC, &squares) != ARITH_OK)
        return vm_error(v, at, "a distance on the grid is too large for a number");
    int64_t steps = value_floor(squares);
    /* the squares it is pushed through, up to an obstacle or the edge of
       the map (no farther than SQUARE_MAX squares, whatever the distance) */
    vm_gather vias = {0};
    int32_t x = cr->x, y = cr->y;
    for (int64_t i = 0; i < steps; i++) {
        x += dx;
        y += dy;
        if (x < 0 || y < 0 || x >= SQUARE_MAX || y >= SQUARE_MAX || (grid_flags_at(v, x, y) & CELL_BLOCKED) ||
            blocking_in(v, x, y, c) >= 0)
            break;
        if (!vm_gather_add(v, &vias, value_square(x, y), at)) {
            vm_gather_drop(&vias);
            return false;
        }
    }
    if (vias.n == 0)
        return true;
    value to = vias.items[vias.n - 1];
    int forced = program_find_string(v->p, "forced");
    if (forced < 0)
        forced = program_intern(v->p, "forced", 6);
    bool ok = grid_walk(v, c, to, value_nil(), false, forced, vias.items, (int)vias.n, moved, at);
    vm_gather_drop(&vias);
    return ok;
}

/* --- the map ------------------------------------------------------------------------------- */

bool grid_show(vm *v, span at)
{
    const combat *cb = &v->world->cb;
    int32_t lx = INT32_MAX, ly = INT32_MAX, hx = INT32_MIN, hy = INT32_MIN;
    bool any = false;
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        const creature *cr = &v->world->creatures[c];
        if (!cr->placed || !world_present(v, (int)c))
            continue;
        int32_t s = size_of(v, (int)c);
        lx = cr->x < lx ? cr->x : lx;
        ly = cr->y < ly ? cr->y : ly;
        hx = cr->x + s - 1 > hx ? cr->x + s - 1 : hx;
        hy = cr->y + s - 1 > hy ? cr->y + s - 1 : hy;
        any = true;
    }
    for (int k = 0; k < cb->ncells; k++) {
        if (!cb->cells[k].flags)
            continue; /* a mark taken away (cover none) */
        lx = cb->cells[k].x < lx ? cb->cells[k].x : lx;
        ly = cb->cells[k].y < ly ? cb->cells[k].y : ly;
        hx = cb->cells[k].x > hx ? cb->cells[k].x : hx;
        hy = cb->cells[k].y > hy ? cb->cells[k].y : hy;
        any = true;
    }
    if (!any) {
        combat_print(v, "the map is empty (place NAME at SQUARE)");
        return true;
    }
    if (lx > 0)
        lx = lx - 1 < 0 ? 0 : lx - 1;
    if (ly > 0)
        ly = ly - 1 < 0 ? 0 : ly - 1;
    hx++;
    hy++;
    /* a map wider or taller than a screen shows its first 61 columns and
       rows, and says so */
    bool cut = hx - lx > 60 || hy - ly > 60;
    if (hx - lx > 60)
        hx = lx + 60;
    if (hy - ly > 60)
        hy = ly + 60;
    /* two-letter labels: the first letters, or a letter and a number; for
       the creatures the map shows (at most one a square) */
    size_t label_cap = (size_t)(hx - lx + 1) * (size_t)(hy - ly + 1);
    char(*labels)[3] = mem_alloc(label_cap * sizeof *labels);
    int *labelled = mem_alloc(label_cap * sizeof *labelled);
    if (!labels || !labelled) {
        if (labels)
            mem_free(labels, label_cap * sizeof *labels);
        if (labelled)
            mem_free(labelled, label_cap * sizeof *labelled);
        return vm_error(v, at, "out of memory");
    }
    int nl = 0, beyond = 0;
    for (size_t c = 0; c < v->world->ncreatures && (size_t)nl < label_cap; c++) {
        const creature *cr = &v->world->creatures[c];
        if (!cr->placed || !world_present(v, (int)c))
            continue;
        int32_t s = size_of(v, (int)c);
        if (cr->x > hx || cr->y > hy || cr->x + s - 1 < lx || cr->y + s - 1 < ly) {
            beyond++; /* off the part of the map shown: counted, and said */
            continue;
        }
        char lab[3] = {cr->name[0], cr->name[1] ? cr->name[1] : ' ', 0};
        const char *digits = strrchr(cr->name, '_');
        if (digits && digits[1])
            lab[1] = digits[strlen(digits) - 1];
        for (int k = 0; k < nl; k++)
            if (!strcmp(labels[k], lab))
                lab[1] = (char)('0' + nl % 10);
        memcpy(labels[nl], lab, 3);
        labelled[nl++] = (int)c;
    }
    char line[512];
    bool any_cover = false;
    size_t len = (size_t)snprintf(line, sizeof line, "    ");
    for (int32_t x = lx; x <= hx && len < sizeof line; x++) {
        char col[32];
        square_format(x, 0, col, sizeof col);
        col[strcspn(col, "0123456789")] = '\0';
        len += (size_t)snprintf(line + len, sizeof line - len, "%-3s", col);
    }
    while (len > 0 && line[len - 1] == ' ')
        line[--len] = '\0';
    combat_print(v, "%s", line);
    for (int32_t y = ly; y <= hy; y++) {
        len = (size_t)snprintf(line, sizeof line, "%3d ", y + 1);
        for (int32_t x = lx; x <= hx && len < sizeof line; x++) {
            const char *mark = ".";
            int who = standing_in(v, x, y, -1);
            for (int k = 0; k < nl && who >= 0; k++)
                if (labelled[k] == who)
                    mark = labels[k];
            if (who < 0) {
                uint8_t f = grid_flags_at(v, x, y);
                mark = f & CELL_BLOCKED ? "#" : f & CELL_DIFFICULT ? "~" : f & CELL_COVER_MASK ? "+" : ".";
                any_cover |= (f & CELL_COVER_MASK) != 0;
            }
            len += (size_t)snprintf(line + len, sizeof line - len, "%-3s", mark);
        }
        while (len > 0 && line[len - 1] == ' ')
            line[--len] = '\0';
        combat_print(v, "%s", line);
    }
    combat_line key = {.say = false};
    for (int k = 0; k < nl; k++)
        combat_line_add(v, &key, "%s%s %s", k ? ", " : "", labels[k], v->world->creatures[labelled[k]].name);
    combat_line_add(v, &key, any_cover ? "   (# blocked, ~ difficult, + cover)" : "   (# blocked, ~ difficult)");
    combat_line_end(v, &key);
    if (beyond || cut) {
        char from[32], to[32];
        square_format(lx, ly, from, sizeof from);
        square_format(hx, hy, to, sizeof to);
        if (beyond)
            combat_print(v, "(%d creature%s beyond the part of the map shown, %s to %s)", beyond,
                         beyond == 1 ? "" : "s", from, to);
        else
            combat_print(v, "(the map goes on beyond the part shown, %s to %s)", from, to);
    }
    mem_free(labels, label_cap * sizeof *labels);
    mem_free(labelled, label_cap * sizeof *labelled);
    return true;
}
