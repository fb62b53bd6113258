/* tracks: each creature's rows of boxes or slots (`track`, rules.h
 * r_track) that hits mark, and the few general rules by which a box takes
 * a hit. A creature keeps only its marked boxes (world.h track_mark); a
 * track's boxes are its `boxes` formula, worked out for the creature when
 * they are needed. */
#ifndef FRAY_TRACKS_H
#define FRAY_TRACKS_H

#include "runtime/combat/world.h"

/* The absorption rules, apart from any creature (for tests): which free
 * boxes of n (vals[i], marked[i]) a hit marks under rule, with `chosen` the
 * box the caller picked (-1: the rule picks). Fills take[] with the boxes
 * to mark (at most n) and *ntake; returns what is left of the hit (0 when
 * absorbed whole; the whole hit when no box takes it). */
int64_t track_rule_take(absorb_rule rule, const int64_t *vals, const bool *marked, int n, int64_t hit, int chosen,
                        int *take, int *ntake);

/* c's boxes of track t as they are now, their values in vals (room for
   TRACK_MAX_BOXES), how many in *n. */
bool track_boxes(vm *v, int c, int t, span at, int64_t *vals, int *n);
/* Whether box `box` of c's track t is marked; *name what it carries. */
bool track_box_marked(const vm *v, int c, int t, int box, value *name);

/* absorb(c, track, hit [, name [, box]]): marks the boxes; *left what is
   left of the hit. */
bool track_absorb(vm *v, int c, int t, int64_t hit, value name, int chosen, span at, int64_t *left);
/* Marks box `box` (0-based) by hand, with a name or nothing; *done false
   when it was marked already. */
bool track_mark_box(vm *v, int c, int t, int box, value name, span at, bool *done);
/* Clears box `box` (0-based), or every box (-1); *cleared how many were marked. */
bool track_clear(vm *v, int c, int t, int box, span at, int *cleared);
/* The GM's `mark NAME TRACK [BOX] ["TEXT"]` (mark) and `clear NAME TRACK
   [BOX]`: box -1 is the first free box (mark) or every box (clear); what
   was done is said, and so is nothing to do. */
bool track_command(vm *v, bool mark, int c, int t, int box, value name, span at);
/* The boxes that clear with a period (`refresh per`), for one creature
   (only >= 0) or everyone in play. */
bool tracks_refresh(vm *v, period per, int only, span at);
/* " stress [x][ ] consequences [2 \"ribs\"][4][6]": each track of the
   rules, as show and the tracker write it (never fails: "?" for boxes
   that cannot be worked out). */
void tracks_show(vm *v, int c, text_buf *out);

/* The builtins of tracks (builtins.def). */
bool builtin_absorb(vm *v, int id, value *args, int argc, span at, value *out);
bool builtin_marks(vm *v, int id, value *args, int argc, span at, value *out);
bool builtin_unmarked(vm *v, int id, value *args, int argc, span at, value *out);
bool builtin_clear(vm *v, int id, value *args, int argc, span at, value *out);

#endif
