/* reads_only: what the rules' formulas may do (reads_only.h), from their
 * bytecode: each instruction reads, asks a ruling, or does more. */
#include "runtime/core/reads_only.h"

#include "runtime/base/mem.h"
#include "runtime/core/builtins.h"
#include "runtime/core/vm.h"

/* What one instruction may do beyond reading. Unknown opcodes do more. */
static reads_kind op_reads(const vm *v, const chunk *c, size_t at)
{
    const uint8_t *ip = &c->code[at + 1];
    switch ((opcode)c->code[at]) {
    case OP_CONST:
    case OP_NIL:
    case OP_TRUE:
    case OP_FALSE:
    case OP_POP:
    case OP_DUP:
    case OP_GET_LOCAL:
    case OP_SET_LOCAL:
    case OP_GET_GLOBAL:
    case OP_SELF:
    case OP_GET_STAT:
    case OP_GET_MEMBER:
    case OP_INDEX:
    case OP_EVAL_DECL:
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
    case OP_CHOOSE:
    case OP_INTERVAL:
    case OP_DISTRIB:
    case OP_JUMP:
    case OP_JUMP_IF_FALSE:
    case OP_AND_JUMP:
    case OP_OR_JUMP:
    case OP_ITER_NEXT:
    case OP_REPEAT_NEXT:
    case OP_CALL:
    case OP_CALL_CHUNK:
    case OP_RETURN:
    case OP_LIST:
    case OP_CREATURE: return READS_ONLY;
    case OP_CALL_BUILTIN: return vm_builtin_changes(ip[0]) ? READS_AND_MORE : READS_ONLY;
    case OP_ASK: {
        /* asked where no one is asked and nothing is noted, a ruling
           reads its answer or its default, or fails for want of both (an
           answer given for one use is spent by reading it: see
           READS_RULINGS) */
        return READS_RULINGS;
    }
    default:
        /* rolls, checks, changes of play, prints, events, failures,
           actions, exact contexts (rare in a formula: not worth telling
           apart) */
        return READS_AND_MORE;
    }
}

int vm_chunk_callee(vm *v, const chunk *c, size_t at)
{
    opcode op = (opcode)c->code[at];
    if (op != OP_CALL && op != OP_EVAL_DECL && op != OP_CALL_CHUNK)
        return -1;
    /* each of these has its u16 operand first (the caller checked that
       the instruction's operands lie within the chunk) */
    int operand = c->code[at + 1] | c->code[at + 2] << 8;
    if (op == OP_CALL_CHUNK)
        return operand;
    if ((size_t)operand >= v->p->ndecls)
        return -1;
    const decl *d = v->world_ops->standing(v, operand);
    return op == OP_CALL ? d->body : d->value;
}

reads_kind vm_formulas_work_out_reads(vm *v)
{
    const program *p = v->p;
    reads_kind kind = READS_ONLY;
    /* a walk over the chunks the formulas reach, each once */
    size_t n = p->nchunks;
    uint8_t *seen = n ? mem_alloc(n) : NULL;
    int *todo = n ? mem_alloc(n * sizeof(int)) : NULL;
    if (n && (!seen || !todo)) {
        kind = READS_AND_MORE; /* out of memory: nothing is known */
        goto done;
    }
    size_t ntodo = 0;
    for (size_t i = 0; i < n; i++) {
        seen[i] = p->chunks[i] && p->chunks[i]->rules_formula;
        if (seen[i])
            todo[ntodo++] = (int)i;
    }
    while (ntodo && kind != READS_AND_MORE) {
        const chunk *c = p->chunks[todo[--ntodo]];
        for (size_t at = 0; at < c->len && kind != READS_AND_MORE; at += 1 + (size_t)opcode_operands[c->code[at]]) {
            if (c->code[at] >= OP_COUNT || at + (size_t)opcode_operands[c->code[at]] >= c->len) {
                kind = READS_AND_MORE;
                break;
            }
            reads_kind k = op_reads(v, c, at);
            if (k > kind)
                kind = k;
            int next = vm_chunk_callee(v, c, at);
            if (next >= 0 && (size_t)next < n && !seen[next] && p->chunks[next]) {
                seen[next] = 1;
                todo[ntodo++] = next;
            }
        }
    }
done:
    if (seen)
        mem_free(seen, n);
    if (todo)
        mem_free(todo, n * sizeof(int));
    v->reads = kind;
    v->reads_known = true;
    v->reads_generation = v->r->generation;
    v->reads_nchunks = p->nchunks;
    return kind;
}
