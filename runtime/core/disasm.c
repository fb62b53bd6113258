/* disasm: the bytecode listing `fray disasm` prints, with each source line
 * shown above the instructions compiled from it. Operand layout comes from
 * opcodes.def, so a new opcode needs no change here unless its operand
 * deserves a friendlier rendering. */
#include <inttypes.h>
#include <string.h>

#include "runtime/core/chunk.h"
#include "runtime/core/program.h"
#include "runtime/core/commands.h"
#include "runtime/core/rules.h"
#include "runtime/core/vm.h"

/* Constants only refer to program tables, so a scratch vm on this program
 * formats them; "?" for an operand that is out of range. */
/* A constant's text after its operand: "; 2d6". */
static void put_program_value(FILE *out, const program *p, bool valid, value x)
{
    vm *f = valid ? vm_new((program *)p, 0, NULL) : NULL;
    text_buf text;
    text_init(&text);
    if (f)
        vm_format_text(f, x, &text);
    else
        text_put(&text, "?");
    fprintf(out, "    ; %s", text.s);
    text_free(&text);
    vm_free(f);
}

size_t chunk_disasm_op(FILE *out, const program *p, const chunk *c, size_t offset)
{
    opcode op = (opcode)c->code[offset];
    if (op >= OP_COUNT) {
        fprintf(out, "%04zu  ??? %d\n", offset, op);
        return offset + 1;
    }
    int n = opcode_operands[op];
    if (offset + 1 + (size_t)n > c->len) {
        fprintf(out, "%04zu  %s (truncated)\n", offset, opcode_names[op]);
        return c->len;
    }
    const uint8_t *arg = c->code + offset + 1;
    unsigned u8 = n >= 1 ? arg[0] : 0;
    unsigned u16 = n >= 2 ? (unsigned)(arg[0] | arg[1] << 8) : 0;
    fprintf(out, "%04zu  %-14s", offset, opcode_names[op]);
    switch (op) {
    case OP_CONST:
        fprintf(out, "%5u", u16);
        put_program_value(out, p, u16 < c->nconsts, u16 < c->nconsts ? c->consts[u16] : value_nil());
        break;
    case OP_ROLL_CONST:
        fprintf(out, "%5u", u16);
        put_program_value(out, p, u16 < p->ndice, value_ref(V_DICE, HOME_PROGRAM, u16));
        break;
    case OP_JUMP:
    case OP_JUMP_IF_FALSE:
    case OP_AND_JUMP:
    case OP_OR_JUMP:
    case OP_ITER_NEXT:
    case OP_REPEAT_NEXT:
        fprintf(out, "%5d    ; -> %04zu", (int16_t)u16, offset + 3 + (size_t)(long)(int16_t)u16);
        break;
    case OP_GET_STAT:
    case OP_SET_STAT:
    case OP_EVAL_DECL:
        fprintf(out, "%5u    ; %s %s", u16, u16 < p->ndecls ? decl_kind_name(p->decls[u16].kind) : "?",
                u16 < p->ndecls ? program_string(p, p->decls[u16].name) : "?");
        break;
    case OP_GET_MEMBER:
    case OP_CREATURE: fprintf(out, "%5u    ; %s", u16, program_string(p, (int)u16)); break;
    case OP_GET_GLOBAL:
    case OP_SET_GLOBAL:
        fprintf(out, "%5u    ; %s", u16, u16 < p->nglobals ? program_string(p, p->globals[u16]) : "?");
        break;
    case OP_CALL:
        fprintf(out, "%5u %u  ; %s", u16, arg[2], u16 < p->ndecls ? program_string(p, p->decls[u16].name) : "?");
        break;
    case OP_CALL_EXACT:
        fprintf(out, "%5u %u %u ; %s", u16, arg[2], arg[3],
                u16 < p->ndecls ? program_string(p, p->decls[u16].name) : "?");
        break;
    case OP_CALL_CHUNK: fprintf(out, "%5u %u  ; %s", u16, arg[2], u16 < p->nchunks ? p->chunks[u16]->name : "?"); break;
    case OP_CALL_CHUNK_EXACT:
        fprintf(out, "%5u %u %u ; %s", u16, arg[2], arg[3], u16 < p->nchunks ? p->chunks[u16]->name : "?");
        break;
    case OP_CHECK_EXACT:
        fprintf(out, "%5u %u %u ; %s", u16, arg[2], arg[3],
                (int)u16 < p->rules->nchecks ? program_string(p, p->rules->checks[u16].name) : "?");
        break;
    case OP_EMIT:
        fprintf(out, "%5u %u  ; %s", u16, arg[2],
                (int)u16 < p->rules->nevents ? program_string(p, p->rules->events[u16].name) : "?");
        break;
    case OP_CHECK:
        fprintf(out, "%5u %u  ; %s", u16, arg[2],
                (int)u16 < p->rules->nchecks ? program_string(p, p->rules->checks[u16].name) : "?");
        break;
    case OP_ACT:
        fprintf(out, "%5u %u  ; %s", u16, arg[2],
                (int)u16 < p->rules->nactions ? program_string(p, p->rules->actions[u16].name) : "?");
        break;
    case OP_ASK:
        fprintf(out, "%5u    ; %s", u16,
                (int)u16 < p->rules->nrulings ? program_string(p, p->rules->rulings[u16].name) : "?");
        break;
    case OP_CMP_ROLL: {
        static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
        unsigned label = (unsigned)(arg[1] | arg[2] << 8);
        unsigned cmp = u8 & 0x7fu;
        fprintf(out, "%5u %u  ; %s%s %s", u8, label, (u8 & CMP_ROLL_RIGHT) ? "target " : "", cmp < 6 ? ops[cmp] : "?",
                label != 0xffff ? program_string(p, (int)label) : "");
        break;
    }
    case OP_CALL_BUILTIN: {
        static const char *const names[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) #name,
#include "runtime/core/builtins.def"
#undef BUILTIN
        };
        fprintf(out, "%5u %u  ; %s", u8, arg[1], u8 < BI_COUNT ? names[u8] : "?");
        break;
    }
    case OP_ROLL_SUM: fprintf(out, "%5u %u  ; terms, negated mask", u8, arg[1]); break;
    case OP_PLAY:
        fprintf(out, "%5u %u  ; %s", u8, (unsigned)(arg[1] | arg[2] << 8), u8 < CMD_COUNT ? command_words[u8] : "?");
        break;
    default:
        if (n == 1)
            fprintf(out, "%5u", u8);
        else if (n == 2)
            fprintf(out, "%5u", u16);
        break;
    }
    fputc('\n', out);
    return offset + 1 + (size_t)n;
}

void chunk_disasm(FILE *out, const program *p, const chunk *c)
{
    fprintf(out, "== %s (%zu bytes, %zu constants, %u parameters, %u locals) ==\n", c->name, c->len, c->nconsts,
            c->nparams, c->nlocals);
    int last_line = -1;
    uint32_t last_source = UINT32_MAX;
    for (size_t off = 0; off < c->len;) {
        span sp = c->spans[off];
        if (sp.source < p->nsources) {
            const source *s = p->sources[sp.source];
            int line, col;
            source_line_col(s, sp.start, &line, &col);
            if (line != last_line || sp.source != last_source) {
                size_t len;
                const char *text = source_line(s, line, &len);
                fprintf(out, "%s:%d: %.*s\n", s->name, line, (int)len, text);
                last_line = line;
                last_source = sp.source;
            }
        }
        off = chunk_disasm_op(out, p, c, off);
    }
}
