/* chunk: one unit of bytecode (a formula, procedure, action body, trigger
 * or command) with its constants and a source span for every byte. */
#ifndef FRAY_CHUNK_H
#define FRAY_CHUNK_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/base/source.h"
#include "runtime/core/value.h"

typedef enum {
#define OP(name, operands, effect, meaning) OP_##name,
#include "runtime/core/opcodes.def"
#undef OP
    OP_COUNT
} opcode;

/* The VM's stack of values, shared by the frames of a command. A call
 * makes room for all its chunk may hold (max_stack) and VM_STACK_SLACK
 * more, for the arguments of the calls it makes in turn. */
#define VM_STACK_MAX 4096
#define VM_STACK_SLACK 64

/* CMP_ROLL's comparison byte: the comparison (EQ..GE less OP_EQ), and this
   bit when the roll is the right-hand operand. */
#define CMP_ROLL_RIGHT 0x80

extern const char *const opcode_names[OP_COUNT];
extern const uint8_t opcode_operands[OP_COUNT];
extern const char *const opcode_meanings[OP_COUNT];

typedef enum {
    CHUNK_FORMULA,
    CHUNK_PROCEDURE,
    CHUNK_ACTION,
    CHUNK_TRIGGER,
    CHUNK_COMMAND,
} chunk_kind;

typedef struct chunk {
    chunk_kind kind;
    char *name;
    uint8_t *code;
    span *spans; /* spans[i] is the source of the instruction covering code[i] */
    size_t len, cap;
    value *consts;
    size_t nconsts, consts_cap;
    uint8_t nparams;
    uint8_t nlocals;    /* including parameters */
    uint32_t max_stack; /* the most values it holds on the stack at once, from its frame's base */
    span where;         /* the whole declaration or command */
    /* a formula of a declaration, which play works out as it reads the
       state (a stat's, a condition's, a modifier's): reads_only.h */
    bool rules_formula;
    atomic_uint shares; /* owners besides the first (chunk_share) */
} chunk;

chunk *chunk_new(chunk_kind kind, const char *name, span where);
/* c, held by one more owner (a context copied whole: fray_clone): a
 * chunk never changes once compiled (the compiler writes only the chunks
 * it is making), so copies share it, each freeing it once. */
chunk *chunk_share(chunk *c);
void chunk_free(chunk *c);
/* Append one byte attributed to sp. Returns false when out of memory. */
bool chunk_write(chunk *c, uint8_t byte, span sp);
/* Gives back the room a finished chunk did not use (a file of many short
 * formulas would otherwise hold mostly empty space). */
void chunk_trim(chunk *c);
/* Index of v in the constant pool (reusing an equal one); -1 when the pool
 * is full (limit 65536), -2 when out of memory. */
int chunk_constant(chunk *c, value v);

/* Works out c->max_stack by following every path through its code (the
 * effect of each instruction on the stack is known from its operands), so
 * that a call can make sure of room for all of it at once: a deep
 * expression holds one value a level. On a deepest point, *peak_at is its
 * offset. False when out of memory. */
bool chunk_measure_stack(chunk *c, size_t *peak_at);

struct program;
/* Listing with source lines interleaved, as `fray disasm` prints it. */
void chunk_disasm(FILE *out, const struct program *p, const chunk *c);
/* One instruction; returns the offset of the next. */
size_t chunk_disasm_op(FILE *out, const struct program *p, const chunk *c, size_t offset);

#endif
