/* reads_only: whether working out the rules' formulas can change anything
 * but their own result: roll a die, change the state of play, print, or
 * ask a ruling. Play may then work out only the formulas a question needs
 * (has() of one condition) rather than every one it would otherwise
 * walk, with the same result and nothing else to tell them apart. */
#ifndef FRAY_READS_ONLY_H
#define FRAY_READS_ONLY_H

#include <stdbool.h>

#include "runtime/core/vm.h"

typedef enum {
    READS_ONLY,     /* every formula only reads */
    READS_RULINGS,  /* they also read rulings: only reads where no one is asked,
                       nothing is noted and no answer for one use waits */
    READS_AND_MORE, /* some formula rolls, changes play, prints or fails */
} reads_kind;

/* What the formulas of the program's declarations (a stat's, a
 * condition's, a modifier's, a ruling's default...) may do, with every
 * procedure and formula they call, as the declarations now stand. A
 * formula runs other formulas only through calls and through what it
 * reads (a stat read runs the stat's formula and modifiers; has() runs
 * conditions'), and those are declarations' formulas too, each looked at
 * here: so what one formula may do, directly or not, is bounded by the
 * kind of all of them. Walks every chunk they reach once. */
reads_kind vm_formulas_work_out_reads(vm *v);
/* The chunk the instruction at `at` of c calls (a procedure's body, a
   declaration's formula, a `let ... in` body) as the rules stand, or -1;
   its operands must lie within c. */
int vm_chunk_callee(vm *v, const chunk *c, size_t at);
/* The same, as last worked out while the rules and chunks stand: inline,
   as play asks it at every has(). */
static inline reads_kind vm_formulas_reads(vm *v)
{
    if (v->reads_known && v->reads_generation == v->r->generation && v->reads_nchunks == v->p->nchunks)
        return (reads_kind)v->reads;
    return vm_formulas_work_out_reads(v);
}

#endif
