/* stat_memo: a formula of stats alone, kept with the stats it read
 * (stat_memo.h). */
#include "runtime/combat/stat_memo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/combat/world.h"

/* Whether one instruction keeps a formula to stats alone: constants,
   locals, self, stat reads, arithmetic, comparisons, branches. */
static bool op_fits(opcode op)
{
    switch (op) {
    case OP_CONST:
    case OP_NIL:
    case OP_TRUE:
    case OP_FALSE:
    case OP_POP:
    case OP_DUP:
    case OP_GET_LOCAL:
    case OP_SET_LOCAL:
    case OP_SELF:
    case OP_GET_STAT:
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_IDIV:
    case OP_NEG:
    case OP_NOT:
    case OP_EQ:
    case OP_NE:
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
    case OP_ASK:
    case OP_ASK_FOR: /* rulings, noted where they are reads (events.c) */
    case OP_JUMP:
    case OP_JUMP_IF_FALSE:
    case OP_AND_JUMP:
    case OP_OR_JUMP:
    case OP_RETURN: return true;
    default: return false;
    }
}

/* has(), too: worked out alone, it notes what it reads (conditions.c) */
static bool chunk_fits(const chunk *c)
{
    for (size_t at = 0; at < c->len; at += 1 + (size_t)opcode_operands[c->code[at]]) {
        if (c->code[at] >= OP_COUNT)
            return false;
        if (c->code[at] == OP_CALL_BUILTIN) {
            if (at + 1 >= c->len || c->code[at + 1] != BI_has)
                return false;
        } else if (!op_fits((opcode)c->code[at]))
            return false;
    }
    return true;
}

bool stat_memo_fits(vm *v, int chunk_id)
{
    struct world *w = v->world;
    size_t n = v->p->nchunks;
    if (chunk_id < 0 || (size_t)chunk_id >= n)
        return false;
    /* a byte per chunk: 0 not looked at, 1 fits, 2 does not (chunks
       never change once compiled; the table follows the program's count,
       as one-off chunks come and go) */
    if (w->memo_fits_n != n || w->memo_fits_generation != v->r->generation) {
        uint8_t *fits = mem_alloc(n);
        if (!fits)
            return false;
        memset(fits, 0, n);
        if (w->memo_fits)
            mem_free(w->memo_fits, w->memo_fits_n);
        w->memo_fits = fits;
        w->memo_fits_n = n;
        w->memo_fits_generation = v->r->generation;
    }
    uint8_t *f = &w->memo_fits[chunk_id];
    if (!*f)
        *f = v->p->chunks[chunk_id] && chunk_fits(v->p->chunks[chunk_id]) ? 1 : 2;
    return *f == 1;
}

void stat_memo_note(vm *v, int c, bool plain)
{
    stat_memo_record *rec = v->world->recording;
    if (!plain) {
        rec->spoiled = true;
        return;
    }
    for (int i = 0; i < rec->n; i++)
        if (rec->reads[i].creature == c)
            return; /* its serial cannot have moved since: the formula changes nothing */
    if (rec->n >= STAT_MEMO_READS) {
        rec->spoiled = true;
        return;
    }
    rec->reads[rec->n++] = (stat_memo_read){c, v->world->creatures[c].serial};
}

bool stat_memo_eval(vm *v, stat_memo *m, int formula, int self, value *out)
{
    stat_memo_record rec = {.n = 0}, *outer = v->world->recording;
    v->world->recording = &rec;
    uint64_t version = v->play_version;
    bool ok = vm_call(v, formula, self, NULL, 0, out);
    v->world->recording = outer;
    if (outer) /* a formula inside another: what it read, the outer read */
        for (int i = 0; i < rec.n; i++)
            stat_memo_note(v, rec.reads[i].creature, true);
    if (outer && rec.spoiled)
        outer->spoiled = true;
    if (outer && rec.answers)
        outer->answers = true;
    m->known = false;
    /* kept only with plain reads and nothing changed; a result that is a
       number, a boolean or nothing (no list or string in a store that a
       command's end clears) */
    if (!ok || rec.spoiled || v->play_version != version ||
        !(out->type == V_BOOL || out->type == V_INT || out->type == V_NIL || out->type == V_FRAC))
        return ok;
    m->known = true;
    m->generation = v->r->generation;
    m->chunk = formula;
    m->result = *out;
    m->nreads = rec.n;
    m->answers = rec.answers;
    m->answers_serial = v->world->cb.answers_serial;
    memcpy(m->reads, rec.reads, (size_t)rec.n * sizeof *rec.reads);
    return true;
}

void stat_memo_free(vm *v)
{
    struct world *w = v->world;
    if (w->memo_fits)
        mem_free(w->memo_fits, w->memo_fits_n);
    w->memo_fits = NULL;
    w->memo_fits_n = 0;
}
