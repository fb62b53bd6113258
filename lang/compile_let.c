/* compile_let: `let NAME = E in BODY`, an expression that binds a value
 * for BODY alone. BODY is compiled as a chunk of its own, called with NAME
 * and the enclosing locals it may read as its arguments. Inside prob(),
 * mean() and dist() the call is walked outcome by outcome, as a procedure's
 * is, so one roll read twice is one roll (`let r = d20 in r == 20 or r ==
 * 1` is 1/10, not the 39/400 of two d20s); elsewhere the dice are rolled
 * once and BODY runs once. */
#include "lang/compiler.h"

#include "runtime/base/text.h"

sty compile_let_in(compiler *cc, const node *e)
{
    fn_state *outer = cc->fn;
    int name = comp_intern(cc, e->text);
    bool exact = cc->dist_mode != 0;
    /* written dice stay dice where the walk rolls them (a roll, with its
       faces and .natural, as outside); anything else is its distribution */
    bool rolled = exact && expr_dice_written(e->b);
    int saved = cc->dist_mode;
    if (rolled)
        cc->dist_mode = 0;
    sty bound = compile_expr(cc, e->b);
    cc->dist_mode = saved;
    if (!exact && bound == TY_DICE)
        emit_op(cc, OP_ROLL, e->b->sp); /* rolled once, read as often as BODY reads it */
    /* the enclosing locals BODY may read, but for those NAME hides */
    int argc = 1;
    for (int i = 0; outer && i < outer->nlocals; i++)
        if (outer->locals[i].name != name) {
            emit_op_u8(cc, OP_GET_LOCAL, (uint8_t)i, e->sp);
            argc++;
        }
    text_buf label;
    text_init(&label);
    text_add(&label, "let %s", e->text);
    fn_state fs;
    fn_begin(cc, &fs, CHUNK_FORMULA, label.s, e->sp);
    text_free(&label);
    if (!fs.c) {
        cc->fn = outer;
        return TY_ANY;
    }
    /* a roll of written dice; one outcome of a distribution, a number */
    fn_add_local(cc, name, bound == TY_DICE ? TY_ROLL : bound == TY_DISTRIB ? TY_NUM : bound, e->a->sp);
    for (int i = 0; outer && i < outer->nlocals; i++)
        if (outer->locals[i].name != name)
            fn_add_local(cc, outer->locals[i].name, outer->locals[i].type, e->sp);
    fs.c->nparams = (uint8_t)fs.nlocals;
    /* BODY runs on each outcome, on plain values; in an exact context its
       own dice are rolled where they stand, and the walk takes each face */
    bool saved_roll = cc->roll_mode;
    cc->dist_mode = 0;
    cc->roll_mode = saved_roll || exact;
    sty result = compile_expr(cc, e->c);
    cc->dist_mode = saved;
    cc->roll_mode = saved_roll;
    int body = fn_end(cc, &fs, e->sp);
    cc->fn = outer;
    if (body < 0)
        return TY_ANY;
    emit_op_u16(cc, exact ? OP_CALL_CHUNK_EXACT : OP_CALL_CHUNK, body, e->sp);
    emit_byte(cc, (uint8_t)argc, e->sp);
    if (exact)
        emit_byte(cc, rolled ? 1 : 0, e->sp);
    return exact ? TY_ANY : result;
}
