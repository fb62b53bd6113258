/* compile_dice: dice written as such in the source, which an exact
 * context (prob(), mean(), dist()) passes to a walked call as dice, for the
 * call to roll, rather than as their distributions. */
#include "lang/compiler.h"

/* Dice written as such: a dice literal or name, or a sum, difference or
   multiple of dice and numbers (`d20 + 5`, `2 * d6`). */
bool expr_dice_written(const node *a)
{
    switch ((ast_kind)a->kind) {
    case AST_DICE: return true;
    case AST_BINARY:
        if (a->op == '*') /* a multiple: one side a number */
            return (expr_dice_written(a->a) && a->b->kind == AST_INT) ||
                   (a->a->kind == AST_INT && expr_dice_written(a->b));
        if (a->op != '+' && a->op != '-')
            return false;
        return (expr_dice_written(a->a) || a->a->kind == AST_INT) &&
               (expr_dice_written(a->b) || a->b->kind == AST_INT) &&
               (expr_dice_written(a->a) || expr_dice_written(a->b));
    default: return false;
    }
}

/* A list literal of such dice, none missing (`[d4, d6, d8]`). */
bool expr_dice_list_written(const node *a)
{
    if (a->kind != AST_LIST || !a->list)
        return false;
    for (const node *x = a->list; x; x = x->next)
        if (!expr_dice_written(x))
            return false;
    return true;
}
