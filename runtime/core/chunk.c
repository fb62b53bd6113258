#include "runtime/core/chunk.h"

#include <string.h>

#include "runtime/core/commands.h"
#include "runtime/base/mem.h"

const char *const opcode_names[OP_COUNT] = {
#define OP(name, operands, effect, meaning) #name,
#include "runtime/core/opcodes.def"
#undef OP
};

const uint8_t opcode_operands[OP_COUNT] = {
#define OP(name, operands, effect, meaning) operands,
#include "runtime/core/opcodes.def"
#undef OP
};

const char *const opcode_meanings[OP_COUNT] = {
#define OP(name, operands, effect, meaning) meaning,
#include "runtime/core/opcodes.def"
#undef OP
};

static const int8_t opcode_effects[OP_COUNT] = {
#define OP(name, operands, effect, meaning) effect,
#include "runtime/core/opcodes.def"
#undef OP
};

chunk *chunk_new(chunk_kind kind, const char *name, span where)
{
    chunk *c = MEM_NEW(chunk);
    if (!c)
        return NULL;
    c->kind = kind;
    c->where = where;
    c->name = mem_strndup(name, strlen(name));
    if (!c->name) {
        mem_free(c, sizeof *c);
        return NULL;
    }
    return c;
}

chunk *chunk_share(chunk *c)
{
    atomic_fetch_add_explicit(&c->shares, 1, memory_order_relaxed);
    return c;
}

void chunk_free(chunk *c)
{
    if (!c || atomic_fetch_sub_explicit(&c->shares, 1, memory_order_acq_rel) > 0)
        return; /* another holds it still */
    mem_strfree(c->name);
    if (c->code)
        mem_free(c->code, c->cap);
    if (c->spans)
        mem_free(c->spans, c->cap * sizeof(span));
    if (c->consts)
        mem_free(c->consts, c->consts_cap * sizeof(value));
    mem_free(c, sizeof *c);
}

bool chunk_write(chunk *c, uint8_t byte, span sp)
{
    if (c->len == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 64;
        uint8_t *code = mem_realloc(c->code, c->cap, ncap);
        if (!code)
            return false;
        c->code = code;
        span *spans = mem_realloc(c->spans, c->cap * sizeof(span), ncap * sizeof(span));
        if (!spans) {
            /* keep code and spans the same capacity */
            c->code = mem_realloc(c->code, ncap, c->cap);
            return false;
        }
        c->spans = spans;
        c->cap = ncap;
    }
    c->code[c->len] = byte;
    c->spans[c->len] = sp;
    c->len++;
    return true;
}

void chunk_trim(chunk *c)
{
    if (c->len == 0 || c->len == c->cap)
        return;
    /* new blocks, so that a failure leaves the chunk as it was */
    uint8_t *code = mem_alloc(c->len);
    span *spans = mem_alloc(c->len * sizeof(span));
    if (!code || !spans) {
        if (code)
            mem_free(code, c->len);
        if (spans)
            mem_free(spans, c->len * sizeof(span));
        return;
    }
    memcpy(code, c->code, c->len);
    memcpy(spans, c->spans, c->len * sizeof(span));
    mem_free(c->code, c->cap);
    mem_free(c->spans, c->cap * sizeof(span));
    c->code = code;
    c->spans = spans;
    c->cap = c->len;
}

int chunk_constant(chunk *c, value v)
{
    for (size_t i = 0; i < c->nconsts; i++)
        if (memcmp(&c->consts[i], &v, sizeof v) == 0)
            return (int)i;
    if (c->nconsts >= 65536)
        return -1;
    value *grown = mem_grow(c->consts, sizeof(value), &c->consts_cap, c->nconsts + 1);
    if (!grown)
        return -2;
    c->consts = grown;
    c->consts[c->nconsts] = v;
    return (int)c->nconsts++;
}

/* --- stack use ------------------------------------------------------------- */

/* What an instruction at code[at] does to the depth of the stack on the
 * way to the next instruction (*next) and, for a jump, to its target
 * (*jump, with the depth there in *at_jump). Returns false for an
 * instruction after which nothing runs (a return, a failure). */
static inline bool step(const chunk *c, size_t at, int64_t depth, int64_t *next, size_t *jump, int64_t *at_jump)
{
    const uint8_t *op = c->code + at;
    size_t after = at + 1 + opcode_operands[op[0]];
    /* a jump's offset, read only where there is one (callers made sure the
       operands are in the chunk) */
    int16_t off = opcode_operands[op[0]] >= 2 ? (int16_t)(op[1] | op[2] << 8) : 0;
    *jump = SIZE_MAX;
    switch ((opcode)op[0]) {
    case OP_RETURN:
    case OP_FAIL: return false;
    case OP_JUMP:
        *jump = after + (size_t)(ptrdiff_t)off;
        *at_jump = depth;
        return false;
    case OP_JUMP_IF_FALSE: /* the condition is popped either way */
        *jump = after + (size_t)(ptrdiff_t)off;
        *at_jump = *next = depth - 1;
        return true;
    case OP_AND_JUMP: /* the deciding side is the result; else it goes */
    case OP_OR_JUMP:
        *jump = after + (size_t)(ptrdiff_t)off;
        *at_jump = depth;
        *next = depth - 1;
        return true;
    case OP_ITER_NEXT: /* the next element, or out of the loop */
        *jump = after + (size_t)(ptrdiff_t)off;
        *at_jump = depth;
        *next = depth + 1;
        return true;
    case OP_REPEAT_NEXT: /* the count stays for the code after the loop to drop */
        *jump = after + (size_t)(ptrdiff_t)off;
        *at_jump = *next = depth;
        return true;
    /* values popped as the operands say, and a result pushed or not */
    case OP_LIST:
    case OP_ROLL_SUM: *next = depth + 1 - op[1]; return true;
    case OP_CALL_BUILTIN: *next = depth + 1 - op[2]; return true;
    case OP_CALL:
    case OP_CALL_CHUNK:
    case OP_CHECK: *next = depth + 1 - op[3]; return true;
    case OP_PRINT: *next = depth - op[1]; return true;
    case OP_EMIT:
    case OP_ACT: *next = depth - op[3]; return true; /* ACT: the actor goes, whether it was allowed comes */
    case OP_PLAY: *next = op[1] == CMD_CREATURE ? depth : depth - (op[2] | op[3] << 8); return true;
    default: *next = depth + opcode_effects[op[0]]; return true;
    }
}

/* Straight code, without a jump (most commands and formulas), in one
   pass: false if there is a jump or an end before the last instruction. */
static bool measure_straight(chunk *c, size_t *peak_at)
{
    int64_t depth = c->nparams, most = depth;
    for (size_t at = 0; at < c->len;) {
        uint8_t op = c->code[at];
        size_t after = at + 1 + (op < OP_COUNT ? opcode_operands[op] : 0);
        int64_t next = 0, at_jump;
        size_t jump;
        if (op >= OP_COUNT || after > c->len)
            return false;
        bool falls = step(c, at, depth, &next, &jump, &at_jump);
        if (jump != SIZE_MAX || (!falls && after < c->len))
            return false;
        if (falls && next > most) {
            most = next;
            *peak_at = at;
        }
        depth = next;
        at = after;
    }
    c->max_stack = (uint32_t)most; /* at most nparams + len: a value a byte */
    return true;
}

bool chunk_measure_stack(chunk *c, size_t *peak_at)
{
    *peak_at = 0;
    c->max_stack = c->nparams;
    if (!c->len || measure_straight(c, peak_at))
        return true;
    /* the depth before each instruction, once a path reaches it (-1: none
       yet), and the instructions to follow from, each queued once at a time;
       on the heap only for a chunk longer than most */
    enum { LOCAL = 256 };
    int64_t local_depth[LOCAL];
    uint32_t local_todo[LOCAL];
    bool local_queued[LOCAL];
    bool heap = c->len > LOCAL;
    int64_t *depth_at = heap ? mem_alloc(c->len * sizeof *depth_at) : local_depth;
    uint32_t *todo = heap ? mem_alloc(c->len * sizeof *todo) : local_todo;
    bool *queued = heap ? mem_alloc(c->len * sizeof *queued) : local_queued;
    bool ok = depth_at && todo && queued && c->len <= UINT32_MAX;
    /* No instruction pushes more than one value, so a path without a loop
       holds at most one value a byte; a deeper one is a loop that grows the
       stack each time round, which the compiler never makes. */
    int64_t bound = (int64_t)c->nparams + (int64_t)c->len, most = c->nparams;
    size_t ntodo = 0;
    if (ok) {
        for (size_t i = 0; i < c->len; i++) {
            depth_at[i] = -1;
            queued[i] = false;
        }
        depth_at[0] = c->nparams;
        todo[ntodo++] = 0;
        queued[0] = true;
    }
    while (ntodo > 0 && most <= bound) {
        size_t at = todo[--ntodo];
        queued[at] = false;
        /* a jump left unpatched by a compile error may land anywhere */
        if (c->code[at] >= OP_COUNT)
            continue;
        size_t after = at + 1 + opcode_operands[c->code[at]];
        if (after > c->len)
            continue; /* a truncated instruction: nothing follows */
        int64_t next = 0, at_jump = 0;
        size_t jump;
        bool falls = step(c, at, depth_at[at], &next, &jump, &at_jump);
        size_t targets[2] = {falls ? after : SIZE_MAX, jump};
        int64_t depths[2] = {next, at_jump};
        for (int i = 0; i < 2; i++) {
            size_t t = targets[i];
            if (t >= c->len || depths[i] <= depth_at[t])
                continue;
            depth_at[t] = depths[i];
            if (depths[i] > most) {
                most = depths[i];
                *peak_at = at;
            }
            if (!queued[t]) {
                queued[t] = true;
                todo[ntodo++] = (uint32_t)t;
            }
        }
    }
    if (heap && depth_at)
        mem_free(depth_at, c->len * sizeof *depth_at);
    if (heap && todo)
        mem_free(todo, c->len * sizeof *todo);
    if (heap && queued)
        mem_free(queued, c->len * sizeof *queued);
    c->max_stack = most > bound ? UINT32_MAX : (uint32_t)most;
    return ok;
}
