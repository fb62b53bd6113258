/* grid_sight: line of sight and cover on the grid. Lines run between
 * points of footprints (their corners and centres, in half-square units);
 * walls block a line, and so do creatures the rules say block. cover()
 * gives one of the rules' levels of cover, from one of two geometries:
 * the target's corners seen from any point of the attacker (`corners`), or
 * the lines from the attacker's best corner to the target's corners
 * (`lines`), the count of hidden corners or blocked lines naming a level.
 * What stands on a line without blocking it (a square marked with a level
 * of cover, a creature the rules say grants one) raises the level to its
 * own. explain's notes say which lines were blocked, and by what. */
#include <stdio.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/base/text.h"
#include "runtime/combat/world.h"

/* Does the segment from (x0, y0) to (x1, y1), in half-square units, touch
   the box lo..hi anywhere but at its own two ends? Walls are solid: a line
   along a wall's edge, or through its corner, is blocked. Liang-Barsky,
   exact in integers, on the closed box. */
static inline bool crosses_box(int64_t x0, int64_t y0, int64_t x1, int64_t y1, int64_t lo_x, int64_t lo_y, int64_t hi_x,
                               int64_t hi_y)
{
    int64_t dx = x1 - x0, dy = y1 - y0;
    /* most boxes asked lie wholly to one side of the line: its four
       corners on one side, told by their cross products, cheaper than
       clipping */
    int64_t c0 = dx * (lo_y - y0) - dy * (lo_x - x0), c1 = dx * (lo_y - y0) - dy * (hi_x - x0);
    int64_t c2 = dx * (hi_y - y0) - dy * (lo_x - x0), c3 = dx * (hi_y - y0) - dy * (hi_x - x0);
    if ((c0 > 0 && c1 > 0 && c2 > 0 && c3 > 0) || (c0 < 0 && c1 < 0 && c2 < 0 && c3 < 0))
        return false;
    int64_t p[4] = {-dx, dx, -dy, dy};
    int64_t q[4] = {x0 - lo_x, hi_x - x0, y0 - lo_y, hi_y - y0};
    /* t0 = n0/d0, t1 = n1/d1 with positive denominators */
    int64_t n0 = 0, d0 = 1, n1 = 1, d1 = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false; /* parallel and outside this side */
            continue;
        }
        int64_t n = q[i], d = p[i];
        if (d < 0) {
            n = -n;
            d = -d;
        }
        if (p[i] < 0) { /* entering: t >= n/d */
            if (n * d0 > n0 * d)
                n0 = n, d0 = d;
        } else { /* leaving: t <= n/d */
            if (n * d1 < n1 * d)
                n1 = n, d1 = d;
        }
    }
    if (n0 * d1 > n1 * d0)
        return false; /* misses the box */
    /* touching only at one of its own ends does not block */
    bool only_start = n1 == 0; /* t1 == 0 */
    bool only_end = n0 == d0;  /* t0 == 1 */
    return !only_start && !only_end;
}

static inline bool crosses(int64_t x0, int64_t y0, int64_t x1, int64_t y1, int32_t cx, int32_t cy)
{
    int64_t lo_x = 2 * (int64_t)cx, lo_y = 2 * (int64_t)cy;
    return crosses_box(x0, y0, x1, y1, lo_x, lo_y, lo_x + 2, lo_y + 2);
}

/* The squares around the box (x0, y0) to (x1, y1), in half-square units:
   the only squares a line between two points of that box can touch. */
typedef struct near_box {
    int64_t lx, ly, hx, hy;
} near_box;

static near_box near_of(int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
    return (near_box){(x0 < x1 ? x0 : x1) / 2 - 1, (y0 < y1 ? y0 : y1) / 2 - 1, (x0 > x1 ? x0 : x1) / 2 + 1,
                      (y0 > y1 ? y0 : y1) / 2 + 1};
}

static bool wall_near(const cell_flags *cf, near_box nb)
{
    return (cf->flags & CELL_BLOCKED) && cf->x >= nb.lx && cf->x <= nb.hx && cf->y >= nb.ly && cf->y <= nb.hy;
}

/* The first wall the segment touches (an index of the marked squares) of
   the n in walls[] (all the marked squares when walls is NULL), or -1. */
static int wall_on(const vm *v, const int32_t *walls, int n, int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
    const combat *cb = &v->world->cb;
    near_box nb = near_of(x0, y0, x1, y1);
    if (!walls)
        n = cb->ncells;
    for (int i = 0; i < n; i++) {
        int k = walls ? walls[i] : i;
        const cell_flags *cf = &cb->cells[k];
        if (wall_near(cf, nb) && crosses(x0, y0, x1, y1, cf->x, cf->y))
            return k;
    }
    return -1;
}

/* The points of a footprint that sight runs from and to: its corners
   (top left, bottom left, top right, bottom right) and its centre, in
   half-square units. */
static int points(const creature *c, int32_t s, int64_t *px, int64_t *py)
{
    int n = 0;
    int64_t x = 2 * (int64_t)c->x, y = 2 * (int64_t)c->y, w = 2 * (int64_t)s;
    int64_t xs[2] = {x, x + w}, ys[2] = {y, y + w};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            px[n] = xs[i];
            py[n++] = ys[j];
        }
    px[n] = x + s;
    py[n++] = y + s;
    return n;
}

static const char *const corner_names[] = {"top-left", "bottom-left", "top-right", "bottom-right", "centre"};

/* --- what stands in between ----------------------------------------------------------------- */

enum { LOOK_UNASKED = -3, LOOK_NOTHING = -2, LOOK_BLOCKS = -1 };

/* One question of sight or cover: a looks at b. role[c] is what creature c
   does to a line between them, asked of the rules once (LOOK_*, or the
   level it grants). */
typedef struct look {
    vm *v;
    int a, b;
    value how;
    int8_t *role, room[64];
    int8_t *side, side_room[64]; /* each creature's footprint, once asked (0: not yet) */
    size_t nrole;
    int64_t ax[5], ay[5], bx[5], by[5];
    int32_t as, bs;
    /* the walls any line between the two can touch, in the order they
       were marked (a look asks of up to 25 lines); NULL: too many to list,
       every marked square is asked */
    int32_t *walls, wall_room[32];
    int nwalls;
    span at;
} look;

/* What stands on one line: the wall or creature that blocks it, else the
   highest level of cover granted on it and by what. */
typedef struct on_line {
    int wall, blocker;        /* a marked square, a creature; -1: none */
    int grant;                /* a level's index, 0: none */
    int grant_cell, grant_by; /* what grants it: a marked square, a creature */
} on_line;

static void look_close(look *lk)
{
    if (lk->role && lk->role != lk->room)
        mem_free(lk->role, lk->nrole);
    if (lk->side && lk->side != lk->side_room)
        mem_free(lk->side, lk->nrole);
    lk->role = lk->side = NULL;
}

/* The walls near the box around both footprints' points, which holds
   every line between them. */
static void look_walls(look *lk)
{
    int64_t lo_x = lk->ax[0], lo_y = lk->ay[0], hi_x = lo_x, hi_y = lo_y;
    for (int i = 0; i < 5; i++) {
        int64_t xs[2] = {lk->ax[i], lk->bx[i]}, ys[2] = {lk->ay[i], lk->by[i]};
        for (int j = 0; j < 2; j++) {
            lo_x = xs[j] < lo_x ? xs[j] : lo_x;
            hi_x = xs[j] > hi_x ? xs[j] : hi_x;
            lo_y = ys[j] < lo_y ? ys[j] : lo_y;
            hi_y = ys[j] > hi_y ? ys[j] : hi_y;
        }
    }
    const combat *cb = &lk->v->world->cb;
    near_box nb = near_of(lo_x, lo_y, hi_x, hi_y);
    lk->walls = lk->wall_room;
    lk->nwalls = 0;
    for (int k = 0; k < cb->ncells; k++) {
        if (!wall_near(&cb->cells[k], nb))
            continue;
        if (lk->nwalls == (int)(sizeof lk->wall_room / sizeof lk->wall_room[0])) {
            lk->walls = NULL;
            return;
        }
        lk->walls[lk->nwalls++] = k;
    }
}

static bool look_open(look *lk, vm *v, int a, int b, value how, span at)
{
    memset(lk, 0, sizeof *lk);
    lk->v = v;
    lk->a = a;
    lk->b = b;
    lk->how = how;
    lk->at = at;
    lk->as = grid_footprint(v, a);
    lk->bs = grid_footprint(v, b);
    if (lk->as < 1 || lk->bs < 1)
        return false;
    points(&v->world->creatures[a], lk->as, lk->ax, lk->ay);
    points(&v->world->creatures[b], lk->bs, lk->bx, lk->by);
    look_walls(lk);
    if (!v->r->space.cover.nby)
        return true;
    lk->nrole = v->world->ncreatures;
    bool small = lk->nrole <= sizeof lk->room;
    lk->role = small ? lk->room : mem_alloc(lk->nrole);
    lk->side = small ? lk->side_room : mem_alloc(lk->nrole);
    if (!lk->role || !lk->side) {
        look_close(lk);
        return vm_error(v, at, "out of memory");
    }
    memset(lk->role, LOOK_UNASKED, lk->nrole);
    memset(lk->side, 0, lk->nrole);
    return true;
}

/* What creature c does to a line between a and b: the first `cover
   creatures` clause whose condition holds for it decides. */
static bool role_of(look *lk, int c, int *out)
{
    if (lk->role[c] != LOOK_UNASKED) {
        *out = lk->role[c];
        return true;
    }
    vm *v = lk->v;
    const r_space *sp = &v->r->space;
    int role = LOOK_NOTHING;
    value args[3] = {value_ref(V_CREATURE, 0, lk->a), value_ref(V_CREATURE, 0, lk->b), lk->how};
    for (int i = 0; i < sp->cover.nby && role == LOOK_NOTHING; i++) {
        const r_cover_by *by = &v->r->space.cover.by[i];
        value yes = by->when.v;
        if (by->when.kind == REXPR_CHUNK && !vm_call(v, by->when.chunk, c, args, 3, &yes))
            return false;
        if (value_truthy(yes))
            role = by->level < 0 ? LOOK_BLOCKS : by->level;
    }
    lk->role[c] = (int8_t)role;
    *out = role;
    return true;
}

/* What stands on the line from a's point i to b's point j; with grants,
   what grants cover on it too. */
static bool line_of(look *lk, int i, int j, bool grants, on_line *o)
{
    vm *v = lk->v;
    int64_t x0 = lk->ax[i], y0 = lk->ay[i], x1 = lk->bx[j], y1 = lk->by[j];
    *o = (on_line){
        .wall = wall_on(v, lk->walls, lk->nwalls, x0, y0, x1, y1), .blocker = -1, .grant_cell = -1, .grant_by = -1};
    if (o->wall >= 0)
        return true;
    for (size_t c = 0; c < lk->nrole; c++) {
        const creature *cr = &v->world->creatures[c];
        if ((int)c == lk->a || (int)c == lk->b || !cr->placed || !world_present(v, (int)c))
            continue;
        if (!lk->side[c])
            lk->side[c] = (int8_t)grid_footprint(v, (int)c);
        if (lk->side[c] < 1)
            return false; /* its `occupies` failed, and said so */
        int64_t s = 2 * (int64_t)lk->side[c];
        if (!crosses_box(x0, y0, x1, y1, 2 * (int64_t)cr->x, 2 * (int64_t)cr->y, 2 * (int64_t)cr->x + s,
                         2 * (int64_t)cr->y + s))
            continue;
        int role;
        if (!role_of(lk, (int)c, &role))
            return false;
        if (role == LOOK_BLOCKS) {
            o->blocker = (int)c;
            return true;
        }
        if (grants && role > o->grant) {
            o->grant = role;
            o->grant_by = (int)c;
        }
    }
    if (!grants)
        return true;
    const combat *cb = &v->world->cb;
    const creature *ca = &v->world->creatures[lk->a], *ct = &v->world->creatures[lk->b];
    for (int k = 0; k < cb->ncells; k++) {
        const cell_flags *cf = &cb->cells[k];
        int level = (cf->flags & CELL_COVER_MASK) >> CELL_COVER_SHIFT;
        if (level <= o->grant || !crosses(x0, y0, x1, y1, cf->x, cf->y))
            continue;
        /* a mark under the attacker or the target is not between them */
        if ((cf->x >= ca->x && cf->x < ca->x + lk->as && cf->y >= ca->y && cf->y < ca->y + lk->as) ||
            (cf->x >= ct->x && cf->x < ct->x + lk->bs && cf->y >= ct->y && cf->y < ct->y + lk->bs))
            continue;
        o->grant = level;
        o->grant_cell = k;
        o->grant_by = -1;
    }
    return true;
}

static bool line_blocked(const on_line *o)
{
    return o->wall >= 0 || o->blocker >= 0;
}

/* --- sight ------------------------------------------------------------------------------------- */

static bool look_sees(look *lk, bool *out)
{
    *out = false;
    bool creatures = lk->v->r->space.cover.creatures_block;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            on_line o;
            if (!creatures)
                o.wall = wall_on(lk->v, lk->walls, lk->nwalls, lk->ax[i], lk->ay[i], lk->bx[j], lk->by[j]),
                o.blocker = -1;
            else if (!line_of(lk, i, j, false, &o))
                return false;
            if (!line_blocked(&o)) {
                *out = true;
                return true;
            }
        }
    return true;
}

bool grid_sees(vm *v, int a, int b, bool *out, span at)
{
    const creature *ca = &v->world->creatures[a], *cb_ = &v->world->creatures[b];
    *out = true;
    if (!ca->placed || !cb_->placed)
        return true;
    look lk;
    if (!look_open(&lk, v, a, b, value_nil(), at))
        return false;
    bool ok = look_sees(&lk, out);
    look_close(&lk);
    return ok;
}

/* --- cover ------------------------------------------------------------------------------------- */

/* What explain says of a line blocked: the wall or creature, once for all
   the lines it blocks (said[] holds those named, as a wall's index or
   -2 - a creature). */
static void say_line(const look *lk, const on_line *o, text_buf *t, int said[4], int *nsaid)
{
    const vm *v = lk->v;
    int who = o->wall >= 0 ? o->wall : -2 - o->blocker;
    for (int i = 0; i < *nsaid; i++)
        if (said[i] == who)
            return;
    said[(*nsaid)++] = who;
    char sq[32];
    if (o->wall >= 0) {
        square_format(v->world->cb.cells[o->wall].x, v->world->cb.cells[o->wall].y, sq, sizeof sq);
        text_add(t, "%swall %s", *nsaid > 1 ? ", " : "", sq);
    } else if (o->blocker >= 0) {
        text_add(t, "%s%s", *nsaid > 1 ? ", " : "", v->world->creatures[o->blocker].name);
    }
}

static void say_grant(const look *lk, const on_line *best, text_buf *t)
{
    const vm *v = lk->v;
    if (!best || best->grant <= 0)
        return;
    const char *level = program_string(v->p, v->r->space.cover.levels[best->grant]);
    if (best->grant_by >= 0) {
        text_add(t, "; %s from %s in between", level, v->world->creatures[best->grant_by].name);
    } else {
        char sq[32];
        const cell_flags *cf = &v->world->cb.cells[best->grant_cell];
        square_format(cf->x, cf->y, sq, sizeof sq);
        text_add(t, "; %s from the square %s", level, sq);
    }
}

/* `lines`: the lines from a's corner i to b's four corners; the level by
   the count blocked, raised by what grants cover on a clear one. */
static bool corner_level(look *lk, int i, int *level, text_buf *why)
{
    const r_space *sp = &lk->v->r->space;
    int blocked = 0, said = 0, named[4];
    on_line best = {.grant = 0}, o;
    if (why)
        text_add(why, "from %s's %s corner, ", lk->v->world->creatures[lk->a].name, corner_names[i]);
    text_buf lines;
    text_init(&lines);
    for (int j = 0; j < 4; j++) {
        if (!line_of(lk, i, j, true, &o)) {
            text_free(&lines);
            return false;
        }
        if (line_blocked(&o)) {
            blocked++;
            if (why)
                say_line(lk, &o, &lines, named, &said);
        } else if (o.grant > best.grant) {
            best = o;
        }
    }
    *level = sp->cover.count[blocked] > best.grant ? sp->cover.count[blocked] : best.grant;
    if (why) {
        text_add(why, "%d of 4 lines blocked%s%s%s", blocked, said ? " (" : "", said ? lines.s : "", said ? ")" : "");
        say_grant(lk, &best, why);
    }
    text_free(&lines);
    return true;
}

static bool cover_by_lines(look *lk, int *level, text_buf *why)
{
    int best = -1, best_i = 0;
    for (int i = 0; i < 4; i++) {
        int l;
        if (!corner_level(lk, i, &l, NULL))
            return false;
        if (best < 0 || l < best)
            best = l, best_i = i;
    }
    *level = best;
    return !why || corner_level(lk, best_i, &best, why);
}

/* Whether some square grants cover: without one (and without `cover
   creatures`), nothing can raise the level, and no line need be looked at
   for it. */
static bool any_cover_mark(const vm *v)
{
    const combat *cb = &v->world->cb;
    for (int k = 0; k < cb->ncells; k++)
        if (cb->cells[k].flags & CELL_COVER_MASK)
            return true;
    return false;
}

/* `corners`: b's corners a sees from any of its points; the level by the
   count hidden, raised by what grants cover on the line between the
   centres. */
static bool cover_by_corners(look *lk, int *level, text_buf *why)
{
    const r_space *sp = &lk->v->r->space;
    int hidden = 0, said = 0, named[4];
    text_buf lines;
    text_init(&lines);
    on_line o;
    bool ok = true;
    for (int j = 0; j < 4 && ok; j++) {
        bool seen = false;
        for (int i = 0; i < 5 && !seen && ok; i++)
            if ((ok = line_of(lk, i, j, false, &o)))
                seen = !line_blocked(&o);
        if (ok && !seen) {
            hidden++;
            if (why && (ok = line_of(lk, 4, j, false, &o)))
                say_line(lk, &o, &lines, named, &said);
        }
    }
    if (ok && (sp->cover.nby > 0 || any_cover_mark(lk->v)))
        ok = line_of(lk, 4, 4, true, &o);
    else
        o = (on_line){.grant = 0};
    if (ok) {
        int l = line_blocked(&o) ? 0 : o.grant;
        *level = sp->cover.count[hidden] > l ? sp->cover.count[hidden] : l;
        if (why) {
            text_add(why, "%d of 4 corners hidden%s%s%s", hidden, said ? " (" : "", said ? lines.s : "",
                     said ? ")" : "");
            if (!line_blocked(&o))
                say_grant(lk, &o, why);
        }
    }
    text_free(&lines);
    return ok;
}

bool grid_cover_level_named(vm *v, const char *word, bool unseen, int *level, span at)
{
    const r_space *sp = &v->r->space;
    if (sp->cover.from == COVER_UNDECLARED)
        return vm_error(v, at,
                        "these rules do not say how cover is found; declare it: space grid { cover from corners }");
    for (int i = 0; i < sp->cover.nlevels; i++)
        if (!strcmp(program_string(v->p, sp->cover.levels[i]), word)) {
            *level = i;
            return true;
        }
    if (unseen && !strcmp(word, "unseen")) {
        *level = sp->cover.nlevels;
        return true;
    }
    text_buf names;
    text_init(&names);
    for (int i = 0; i < sp->cover.nlevels; i++)
        text_add(&names, "%s%s", i ? ", " : "", program_string(v->p, sp->cover.levels[i]));
    vm_error(v, at, "no level of cover '%s' (the %slevels are %s%s)", word, unseen ? "" : "grid's ", names.s,
             unseen ? ", unseen" : "");
    text_free(&names);
    return false;
}

bool grid_cover(vm *v, int a, int b, value how, int *level, span at)
{
    const creature *ca = &v->world->creatures[a], *cb_ = &v->world->creatures[b];
    const r_space *sp = &v->r->space;
    bool explain = sp->cover.explained && !v->world->cb.quiet;
    *level = 0;
    if (!ca->placed || !cb_->placed) {
        if (explain)
            combat_note(v, "cover of %s from %s: %s (not both on the map)", cb_->name, ca->name,
                        program_string(v->p, sp->cover.levels[0]));
        return true;
    }
    look lk;
    if (!look_open(&lk, v, a, b, how, at))
        return false;
    text_buf why;
    text_init(&why);
    bool seen, ok = look_sees(&lk, &seen);
    if (ok && !seen)
        *level = sp->cover.unseen;
    else if (ok && sp->cover.from == COVER_LINES)
        ok = cover_by_lines(&lk, level, explain ? &why : NULL);
    else if (ok)
        ok = cover_by_corners(&lk, level, explain ? &why : NULL);
    if (ok && explain)
        combat_note(v, "cover of %s from %s: %s%s%s", cb_->name, ca->name,
                    *level < 0 ? "unseen" : program_string(v->p, sp->cover.levels[*level]),
                    ok && !seen ? " (no clear line)" : ": ", ok && !seen ? "" : why.s);
    text_free(&why);
    look_close(&lk);
    return ok;
}
