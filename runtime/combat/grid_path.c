/* grid_path: the path-finder of a walk on the grid. A Dijkstra over the
 * squares of a box around both ends, two states a square (the parity of
 * diagonals so far, for rules where they alternate), from the cheapest
 * state first and, of equal costs, the one nearest the goal in a straight
 * line; it stops at the goal, or takes the reachable square nearest it.
 * Which of two equally cheap paths is taken follows from the order states
 * are visited in and the order a square's neighbours are looked at: both
 * are part of what the rules' fights come out as, and stay as they are. */
#include <stdlib.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/grid_path.h"

/* --- the board under a path search -------------------------------------------------- */

/* What the path-finder asks of every square it looks at (is it blocked,
   difficult, who stands there, and does that one keep others out), read
   once for the box it searches instead of per square and neighbour: the
   marks of each square, and each creature's footprint (its `occupies`
   formula read once per creature) as a list per square, in creature
   order, so the first found is the one occupant_in would find.

   The box has a border of one square all round that no one may step into
   (WAY_SHUT), so that a square's eight neighbours are read without asking
   whether they lie in the box: square (x, y) is at (y - ly + 1) * pw +
   (x - lx + 1), pw the width with its border.

   Nothing can make it stale: it is built when a search begins and freed
   when it ends, and while a search runs no creature is placed, moves,
   leaves play, changes size or is marked, as the search runs no rules
   code but the `occupies` and `share when` formulas, which read the
   state (they are read here once per search, and `share when` only for
   a creature found where the search looks, as before). */

/* What the board knows of a square (its `way`): whether the mover may step
   in (WAY_OPEN, with WAY_HARD when it is difficult) or not (WAY_SHUT, and
   the board's border), neither when not asked yet (way_into); whether
   someone stands there (WAY_STANDS: the square has a head); whether the
   search has set the best costs of its states (WAY_BEST). */
enum { WAY_OPEN = 1, WAY_SHUT = 2, WAY_HARD = 4, WAY_STANDS = 8, WAY_BEST = 16 };

typedef struct board_entry {
    int32_t c, next;
} board_entry;

typedef struct board {
    int32_t lx, ly, hx, hy;
    int64_t pw;       /* the width of the box with its border */
    size_t squares;   /* with the border */
    uint8_t *flags;   /* per square of the box */
    uint8_t *way;     /* per square: WAY_* */
    int32_t *head;    /* per square where someone stands (WAY_STANDS): its first entry */
    board_entry *ent; /* who stands there, then the next, -1 */
    size_t nent, ent_cap;
    int8_t *shares; /* per creature: -1 not asked yet, 0 or 1 */
    size_t ncreatures;
} board;

static void board_free(board *b)
{
    if (b->flags)
        mem_free(b->flags, b->squares);
    if (b->way)
        mem_free(b->way, b->squares);
    if (b->head)
        mem_free(b->head, b->squares * sizeof(int32_t));
    if (b->ent)
        mem_free(b->ent, b->ent_cap * sizeof(board_entry));
    if (b->shares)
        mem_free(b->shares, b->ncreatures ? b->ncreatures : 1);
}

static size_t board_square(const board *b, int32_t x, int32_t y)
{
    return (size_t)((y - b->ly + 1) * b->pw + (x - b->lx + 1));
}

/* c's footprint, in every square of the box it covers, ahead of those
   standing there already (creatures are added last first). */
static bool board_stand(board *b, int c, int32_t x, int32_t y, int32_t s)
{
    for (int32_t j = y > b->ly ? y : b->ly; j < y + s && j <= b->hy; j++)
        for (int32_t i = x > b->lx ? x : b->lx; i < x + s && i <= b->hx; i++) {
            if (b->nent == b->ent_cap) {
                board_entry *g = mem_grow(b->ent, sizeof(board_entry), &b->ent_cap, b->nent + 1);
                if (!g)
                    return false;
                b->ent = g;
            }
            size_t sq = board_square(b, i, j);
            b->ent[b->nent] = (board_entry){c, b->way[sq] & WAY_STANDS ? b->head[sq] : -1};
            b->head[sq] = (int32_t)b->nent++;
            b->way[sq] |= WAY_STANDS;
        }
    return true;
}

/* The board of the box (lx, ly) to (hx, hy); false when out of memory. */
static bool board_fill(vm *v, board *b, int32_t lx, int32_t ly, int32_t hx, int32_t hy)
{
    const combat *cb = &v->world->cb;
    int64_t ph = hy - ly + 3;
    *b = (board){.lx = lx, .ly = ly, .hx = hx, .hy = hy, .pw = hx - lx + 3, .ncreatures = v->world->ncreatures};
    b->squares = (size_t)(b->pw * ph);
    b->flags = MEM_NEW_ARRAY(uint8_t, b->squares);
    b->way = MEM_NEW_ARRAY(uint8_t, b->squares);
    b->head = mem_alloc(b->squares * sizeof(int32_t));
    b->shares = mem_alloc(b->ncreatures ? b->ncreatures : 1);
    if (!b->flags || !b->way || !b->head || !b->shares)
        return false;
    memset(b->shares, -1, b->ncreatures ? b->ncreatures : 1);
    /* the border: no one steps out of the box */
    for (int64_t x = 0; x < b->pw; x++)
        b->way[x] = b->way[b->squares - 1 - (size_t)x] = WAY_SHUT;
    for (int64_t y = 1; y < ph - 1; y++)
        b->way[y * b->pw] = b->way[y * b->pw + b->pw - 1] = WAY_SHUT;
    if ((size_t)cb->ncells <= b->squares) {
        for (int k = 0; k < cb->ncells; k++) {
            const cell_flags *f = &cb->cells[k];
            if (f->x >= lx && f->x <= hx && f->y >= ly && f->y <= hy)
                b->flags[board_square(b, f->x, f->y)] = f->flags;
        }
    } else {
        for (int32_t y = ly; y <= hy; y++)
            for (int32_t x = lx; x <= hx; x++)
                b->flags[board_square(b, x, y)] = grid_flags_at(v, x, y);
    }
    for (size_t c = b->ncreatures; c-- > 0;) {
        const creature *cr = &v->world->creatures[c];
        if (!cr->placed || !world_present(v, (int)c))
            continue;
        int32_t s = grid_footprint(v, (int)c);
        if (s > 0 && !board_stand(b, (int)c, cr->x, cr->y, s))
            return false;
    }
    return true;
}

/* occupant_in on the board, for square sq of its box, where someone
   stands. */
static int board_occupant_of(vm *v, board *b, size_t sq, int except, bool sharing)
{
    for (int32_t e = b->head[sq]; e >= 0; e = b->ent[e].next) {
        int c = b->ent[e].c;
        if (c == except)
            continue;
        if (sharing && b->shares[c] < 0)
            b->shares[c] = grid_shares_square(v, c) ? 1 : 0;
        if (!(sharing && b->shares[c]))
            return c;
    }
    return -1;
}

/* occupant_in on the board, for square sq of its box. */
__attribute__((always_inline)) static inline int board_occupant(vm *v, board *b, size_t sq, int except, bool sharing)
{
    return b->way[sq] & WAY_STANDS ? board_occupant_of(v, b, sq, except, sharing) : -1;
}

/* The squared straight-line distance from (x, y) to the goal, capped, to
   order squares of equal cost. */
static int32_t straightness(int32_t x, int32_t y, int32_t gx, int32_t gy)
{
    int64_t dx = (int64_t)x - gx, dy = (int64_t)y - gy;
    int64_t d = dx * dx + dy * dy;
    return d < (1 << 24) ? (int32_t)d : (1 << 24) - 1;
}

/* An entry of the search's heap: a state and its cost, with the
   straight-line distance to the goal (key) to order equal costs. Both are
   packed in `rank` (cost * 2^24 + key) when no cost of the search can pass
   2^39 (the search's `packed`); else rank is the cost and `key` the key. */
typedef struct open_entry {
    uint64_t rank;
    uint32_t key;
    int32_t state;
} open_entry;

/* The search of grid_find_path: a box of squares around both ends (the board's,
   border included), each square in two states (the parity of diagonals so
   far: state 2 * square + parity), and a binary heap of states to visit. */
typedef struct path_search {
    vm *v;
    int c, goal_c;
    bool to_creature, entering;
    int32_t gx, gy, lx, ly, hx, hy;
    int64_t unit;
    int states, start;
    board bd; /* the box's squares and who stands in them */
    /* what a step costs: [diagonal][parity of diagonals before][difficult] */
    int64_t steps[2][2][2];
    bool packed; /* the heap's entries are packed (open_entry) */
    /* of each state of a square with WAY_BEST (search_square): the cost
       of the cheapest way found, INT64_MAX before one is */
    int64_t *best;
    int32_t *prev; /* the state before on that way (only of those reached) */
    open_entry *open;
    size_t open_cap, nopen;
    /* the nearest square reached so far: by squares, then the cheapest,
       then the most direct (compared in turn: a cost of a 12-place
       diagonal has no room to be packed with the rest in 64 bits) */
    int64_t nearest_d[3];
    int nearest;
} path_search;

static int search_state(const path_search *s, int32_t x, int32_t y, int par)
{
    return (int)board_square(&s->bd, x, y) * 2 + par;
}

/* The square of a state. */
static void state_square(const path_search *s, int state, int32_t *x, int32_t *y)
{
    int32_t sq = state / 2, pw = (int32_t)s->bd.pw; /* a box has at most 250000 squares */
    *x = s->lx - 1 + sq % pw;
    *y = s->ly - 1 + sq / pw;
}

/* The box searched: both ends with a margin, cut at the grid's top and
   left (squares are named from A1: there is nothing to the left or above). */
static void search_box(path_search *s, int32_t sx, int32_t sy)
{
    int32_t margin = 12;
    s->lx = (sx < s->gx ? sx : s->gx) - margin;
    s->hx = (sx > s->gx ? sx : s->gx) + margin;
    s->ly = (sy < s->gy ? sy : s->gy) - margin;
    s->hy = (sy > s->gy ? sy : s->gy) + margin;
    if (s->lx < 0)
        s->lx = 0;
    if (s->ly < 0)
        s->ly = 0;
}

static void search_free(path_search *s)
{
    if (s->open)
        mem_free(s->open, s->open_cap * sizeof(open_entry));
    if (s->best)
        mem_free(s->best, (size_t)s->states * sizeof(int64_t));
    if (s->prev)
        mem_free(s->prev, (size_t)s->states * sizeof(int32_t));
    board_free(&s->bd);
}

/* The board, the search's arrays, and what each step costs (step_cost_on
   for each kind of step, worked out once). */
static bool search_alloc(path_search *s)
{
    if (!board_fill(s->v, &s->bd, s->lx, s->ly, s->hx, s->hy))
        return false;
    s->states = (int)s->bd.squares * 2;
    s->best = mem_alloc((size_t)s->states * sizeof(int64_t));
    s->prev = mem_alloc((size_t)s->states * sizeof(int32_t));
    if (!s->best || !s->prev)
        return false;
    s->entering = s->v->r->space.difficult_entering;
    for (int diag = 0; diag < 2; diag++)
        for (int par = 0; par < 2; par++)
            for (int hard = 0; hard < 2; hard++)
                s->steps[diag][par][hard] =
                    grid_step_cost_on(s->v, hard ? CELL_DIFFICULT : 0, 1, diag, (uint8_t)par, s->unit);
    /* no cost passes states times the dearest step (a cheapest way visits
       a state once, and an entry is one step more), nor 2^39 when that
       does not */
    int64_t dearest = 0;
    for (int k = 0; k < 8; k++)
        dearest = s->steps[k / 4][k / 2 % 2][k % 2] > dearest ? s->steps[k / 4][k / 2 % 2][k % 2] : dearest;
    s->packed = dearest <= ((int64_t)1 << 39) / s->states;
    s->open_cap = 1024;
    s->open = mem_alloc(s->open_cap * sizeof(open_entry));
    if (!s->open)
        s->open_cap = 0;
    return s->open != NULL;
}

/* Squares of equal cost: the most direct first, so that of equally short
   paths the most direct is taken. */
__attribute__((always_inline)) static inline bool open_before(open_entry a, open_entry b, bool packed)
{
    return a.rank < b.rank || (!packed && a.rank == b.rank && a.key < b.key);
}

__attribute__((always_inline)) static inline bool open_push_as(path_search *s, int64_t price, int32_t key, int state,
                                                               bool packed)
{
    if (s->nopen == s->open_cap) {
        open_entry *grown =
            mem_realloc(s->open, s->open_cap * sizeof(open_entry), 2 * s->open_cap * sizeof(open_entry));
        if (!grown)
            return false;
        s->open = grown;
        s->open_cap *= 2;
    }
    open_entry *open = s->open;
    size_t i = s->nopen++;
    open_entry e = packed ? (open_entry){(uint64_t)price << 24 | (uint32_t)key, 0, state}
                          : (open_entry){(uint64_t)price, (uint32_t)key, state};
    while (i > 0 && open_before(e, open[(i - 1) / 2], packed)) {
        open[i] = open[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    open[i] = e;
    return true;
}

static bool open_push(path_search *s, int64_t price, int32_t key, int state)
{
    return s->packed ? open_push_as(s, price, key, state, true) : open_push_as(s, price, key, state, false);
}

/* The cheapest state not yet visited, or -1 when none is left; stale
   entries (a cheaper way was found since) are skipped. A state is pushed
   at a cost only when that is cheaper than its best so far, so once it is
   visited no entry left has its best cost: the entry that does is the one
   that made it, and no state is visited twice. */
__attribute__((always_inline)) static inline int open_pop_as(path_search *s, int64_t *price, bool packed)
{
    open_entry *open = s->open;
    size_t n = s->nopen;
    while (n > 0) {
        open_entry top = open[0], last = open[--n];
        /* the hole at the top goes down by the lesser child (the left one
           of two equal) to the bottom, and the last entry up from there
           until what is above it comes strictly before it: where sifting
           it down from the top would have stopped (the children on the way
           down do not come before their parents), with one comparison a
           level on the way down instead of two */
        size_t i = 0, l;
        while ((l = 2 * i + 1) < n) {
            /* which child is lesser is a coin toss to the branch predictor:
               chosen without a branch */
            l += (size_t)(l + 1 < n && open_before(open[l + 1], open[l], packed));
            open[i] = open[l];
            i = l;
        }
        while (i > 0 && !open_before(open[(i - 1) / 2], last, packed)) {
            open[i] = open[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        if (n > 0)
            open[i] = last;
        int64_t paid = (int64_t)(packed ? top.rank >> 24 : top.rank);
        if (paid == s->best[top.state]) {
            s->nopen = n;
            *price = paid;
            return top.state;
        }
    }
    s->nopen = 0;
    return -1;
}

static int open_pop(path_search *s, int64_t *price)
{
    return s->packed ? open_pop_as(s, price, true) : open_pop_as(s, price, false);
}

/* A square reached at cost bu: kept when it is the nearest to the goal so
   far; true when it is the goal. */
static bool reached(path_search *s, int u, int32_t ux, int32_t uy, int64_t bu)
{
    size_t sq = (size_t)u / 2;
    bool free_here = u == s->start || board_occupant(s->v, &s->bd, sq, s->c, true) < 0;
    if (!free_here)
        return false;
    int64_t dgx = labs((long)(ux - s->gx)), dgy = labs((long)(uy - s->gy));
    bool at_goal =
        s->to_creature ? (dgx <= 1 && dgy <= 1 && !(ux == s->gx && uy == s->gy)) : (ux == s->gx && uy == s->gy);
    int64_t d0 = dgx > dgy ? dgx : dgy;
    const int64_t *nd = s->nearest_d;
    if (d0 > nd[0] || (d0 == nd[0] && bu > nd[1]))
        return at_goal; /* not nearer than the nearest so far */
    int64_t straight = dgx * dgx + dgy * dgy;
    int64_t d[3] = {d0, bu, straight < (1 << 20) ? straight : (1 << 20) - 1};
    if (d[0] < nd[0] || (d[0] == nd[0] && (d[1] < nd[1] || (d[1] == nd[1] && d[2] < nd[2])))) {
        memcpy(s->nearest_d, d, sizeof d);
        s->nearest = u;
    }
    return at_goal;
}

/* The best costs of square sq's states, set when the search first looks at
   the square: the square it starts from, and each other before a step into
   it is weighed (way_into), so no state's cost is read before it is set. */
static void search_square(path_search *s, size_t sq)
{
    if (s->bd.way[sq] & WAY_BEST)
        return;
    s->best[2 * sq] = s->best[2 * sq + 1] = INT64_MAX;
    s->bd.way[sq] |= WAY_BEST;
}

/* May the mover step onto square sq on its way? Asked of a square up to
   eight times a search, answered once. */
static uint8_t way_into(path_search *s, size_t sq)
{
    bool open = !(s->bd.flags[sq] & CELL_BLOCKED);
    int other = open ? board_occupant(s->v, &s->bd, sq, s->c, true) : -1;
    if (other >= 0 && other != s->goal_c && grid_enemies(s->v, s->c, other))
        open = false; /* no passing through an enemy's square */
    if (open && s->goal_c >= 0 && board_occupant(s->v, &s->bd, sq, s->c, false) == s->goal_c)
        open = false;
    search_square(s, sq);
    s->bd.way[sq] |= !open ? WAY_SHUT : s->bd.flags[sq] & CELL_DIFFICULT ? WAY_OPEN | WAY_HARD : WAY_OPEN;
    return s->bd.way[sq];
}

/* The step from state u into square sq, at (nx, ny), leaving parity np:
   at cost plain, or hard when the rules make that step dearer for sq's
   difficulty; made the cheapest way into sq when it is; false when out of
   memory. */
__attribute__((always_inline)) static inline bool relax_into(path_search *s, int u, size_t sq, int np, int64_t plain,
                                                             int64_t hard, int32_t nx, int32_t ny, bool packed)
{
    uint8_t way = s->bd.way[sq];
    if (!(way & (WAY_OPEN | WAY_SHUT)))
        way = way_into(s, sq);
    if (!(way & WAY_OPEN))
        return true;
    int64_t nc = way & WAY_HARD ? hard : plain;
    int next = (int)sq * 2 + np;
    if (nc >= s->best[next])
        return true;
    s->best[next] = nc;
    s->prev[next] = u;
    return open_push_as(s, nc, straightness(nx, ny, s->gx, s->gy), next, packed);
}

/* The squares around state u (at cost bu), each made cheaper through u
   when it can be, left to right, top to bottom in each column (which
   decides, of two equally cheap ways into a square, the one kept); false
   when out of memory. */
__attribute__((always_inline)) static inline bool relax_around(path_search *s, int u, int32_t x, int32_t y, int64_t bu,
                                                               bool packed)
{
    int par = u & 1, flip = par ^ 1;
    size_t here = (size_t)u / 2, pw = (size_t)s->bd.pw;
    const int64_t *straight = s->steps[0][par], *diagonal = s->steps[1][par];
    /* the difficulty of the square entered (the way's WAY_HARD) or of the
       one left, as the rules say */
    int left = s->entering ? 0 : (s->bd.flags[here] & CELL_DIFFICULT) != 0;
    int64_t sp = bu + straight[left], dp = bu + diagonal[left];
    int64_t sh = s->entering ? bu + straight[1] : sp, dh = s->entering ? bu + diagonal[1] : dp;
    return relax_into(s, u, here - pw - 1, flip, dp, dh, x - 1, y - 1, packed) &&
           relax_into(s, u, here - 1, par, sp, sh, x - 1, y, packed) &&
           relax_into(s, u, here + pw - 1, flip, dp, dh, x - 1, y + 1, packed) &&
           relax_into(s, u, here - pw, par, sp, sh, x, y - 1, packed) &&
           relax_into(s, u, here + pw, par, sp, sh, x, y + 1, packed) &&
           relax_into(s, u, here - pw + 1, flip, dp, dh, x + 1, y - 1, packed) &&
           relax_into(s, u, here + 1, par, sp, sh, x + 1, y, packed) &&
           relax_into(s, u, here + pw + 1, flip, dp, dh, x + 1, y + 1, packed);
}

static bool relax_neighbours(path_search *s, int u, int32_t x, int32_t y, int64_t bu)
{
    return s->packed ? relax_around(s, u, x, y, bu, true) : relax_around(s, u, x, y, bu, false);
}

/* Visits states cheapest first until the goal; its state, or -1 when it
   cannot be reached; -2 when out of memory. */
static int search_run(path_search *s)
{
    int32_t sx, sy;
    state_square(s, s->start, &sx, &sy);
    if (!open_push(s, 0, straightness(sx, sy, s->gx, s->gy), s->start))
        return -2;
    for (;;) {
        int64_t bu = INT64_MAX;
        int u = open_pop(s, &bu);
        if (u < 0)
            return -1;
        int32_t ux, uy;
        state_square(s, u, &ux, &uy);
        if (reached(s, u, ux, uy, bu))
            return u;
        if (!relax_neighbours(s, u, ux, uy, bu))
            return -2;
    }
}

/* The squares from the start (excluded) to end, in *path (n + 1 steps);
   their number, or -1 when out of memory. */
static int trace_path(const path_search *s, int end, path_step **path)
{
    int n = 0;
    for (int st = end; st != s->start && st >= 0; st = s->prev[st])
        n++;
    path_step *p = MEM_NEW_ARRAY(path_step, (size_t)n + 1);
    if (!p)
        return -1;
    /* from the end back: the path's squares in reverse */
    int i = n;
    for (int st = end; st != s->start && st >= 0; st = s->prev[st]) {
        int32_t x, y;
        state_square(s, st, &x, &y);
        p[--i] = (path_step){x, y, s->best[st]};
    }
    *path = p;
    return n;
}

/* Dijkstra over squares in a box around both ends; the path (from the
   start, excluding it) to the goal or, failing that, the square nearest
   the goal that can be reached, in *path (the caller frees n + 1 steps).
   Returns the number of squares, or -1. */
int grid_find_path(vm *v, int c, int32_t gx, int32_t gy, bool to_creature, int goal_c, path_step **path, span at)
{
    const creature *cr = &v->world->creatures[c];
    path_search s = {.v = v, .c = c, .goal_c = goal_c, .to_creature = to_creature, .gx = gx, .gy = gy};
    search_box(&s, cr->x, cr->y);
    if ((int64_t)(s.hx - s.lx + 1) * (s.hy - s.ly + 1) > 250000) {
        vm_error(v, at, "too far to find a path (more than 250000 squares to search)");
        return -1;
    }
    const r_space *sp = &v->r->space;
    s.unit = 2 * (sp->diag_alternate ? 1 : sp->diag_den);
    int n = -1;
    if (search_alloc(&s)) {
        s.start = search_state(&s, cr->x, cr->y, 0);
        search_square(&s, (size_t)s.start / 2);
        s.best[s.start] = 0;
        s.nearest = s.start;
        for (int k = 0; k < 3; k++)
            s.nearest_d[k] = INT64_MAX;
        int goal = search_run(&s);
        if (goal != -2)
            n = trace_path(&s, goal >= 0 ? goal : s.nearest, path);
    }
    search_free(&s);
    if (n < 0)
        vm_error(v, at, "out of memory");
    return n;
}
