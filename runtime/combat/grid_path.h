/* grid_path: the path-finder of a walk on the grid (grid_path.c), and what
 * it reads of the grid (grid.c). */
#ifndef FRAY_GRID_PATH_H
#define FRAY_GRID_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/combat/world.h"

/* A path on the grid: each square, and what it costs to get there (in
   units of 1/unit square, unit = 2 * the diagonal's denominator, or 2 when
   diagonals alternate). */
typedef struct path_step {
    int32_t x, y;
    int64_t cost;
} path_step;

/* The cheapest path of c to (gx, gy), or next to it (to_creature; goal_c,
   when not -1, the creature there), from c's square (excluded); failing
   that, to the square nearest the goal c can reach. In *path (the caller
   frees n + 1 steps); returns n, or -1 (reported). */
int grid_find_path(vm *v, int c, int32_t gx, int32_t gy, bool to_creature, int goal_c, path_step **path, span at);

/* grid.c: the marks of a square (CELL_*) */
uint8_t grid_flags_at(const vm *v, int32_t x, int32_t y);
/* whether others may enter and end a move in c's square (`share when`) */
bool grid_shares_square(vm *v, int c);
/* whether a and b are enemies (not on one side) */
bool grid_enemies(const vm *v, int a, int b);
/* the cost of one step of dx, dy (-1 to 1) after `parity` diagonals, in
   units of 1/unit square; f: the marks of the square whose difficulty
   counts */
int64_t grid_step_cost_on(const vm *v, uint8_t f, int dx, int dy, uint8_t parity, int64_t unit);

#endif
