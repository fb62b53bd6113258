#include "runtime/chunk.h"

#include <string.h>

#include "runtime/mem.h"

const char *const opcode_names[OP_COUNT] = {
#define OP(name, operands, effect, meaning) #name,
#include "runtime/opcodes.def"
#undef OP
};

const uint8_t opcode_operands[OP_COUNT] = {
#define OP(name, operands, effect, meaning) operands,
#include "runtime/opcodes.def"
#undef OP
};

const char *const opcode_meanings[OP_COUNT] = {
#define OP(name, operands, effect, meaning) meaning,
#include "runtime/opcodes.def"
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

void chunk_free(chunk *c)
{
    if (!c)
        return;
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
