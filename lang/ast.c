#include "lang/ast.h"

#include <string.h>

#include "runtime/base/mem.h"
#include "runtime/core/value.h"

static const char *const kind_names[] = {
#define AST_NAME(name, desc) desc,
    AST_KINDS(AST_NAME)
#undef AST_NAME
};

const char *ast_kind_name(ast_kind k)
{
    return k < AST_KIND_COUNT ? kind_names[k] : "?";
}

/* A chain of large blocks, oldest first: nodes are never freed one by
 * one, but the blocks that only finished items fill are (ast_arena_release). */
typedef struct block {
    struct block *prev, *next; /* older, newer */
    uint32_t seq;              /* blocks made before it */
    size_t used, cap;
    _Alignas(max_align_t) unsigned char data[];
} block;

struct ast_arena {
    block *top;       /* the newest block, where nodes are made */
    block *oldest;    /* the oldest block still held */
    uint32_t nblocks; /* blocks made so far: the seq of the next */
    block *kept;      /* the newest block never released (the root's); NULL: the oldest */
    bool keep_set;
    uint32_t *marks; /* per top-level item: the seq of the top block once it was complete */
    size_t nmarks, marks_cap;
    size_t max_string;
    int max_nesting;
};

ast_arena *ast_arena_new(void)
{
    ast_arena *ar = MEM_NEW(ast_arena);
    if (ar) {
        ar->max_string = STRING_DEFAULT_BYTES;
        ar->max_nesting = NESTING_DEFAULT;
    }
    return ar;
}

void ast_arena_limit_strings(ast_arena *ar, size_t max_bytes)
{
    ar->max_string = max_bytes;
}

size_t ast_arena_max_string(const ast_arena *ar)
{
    return ar->max_string;
}

void ast_arena_limit_nesting(ast_arena *ar, int levels)
{
    ar->max_nesting = levels;
}

int ast_arena_max_nesting(const ast_arena *ar)
{
    return ar->max_nesting;
}

static void free_block(block *b)
{
    mem_free(b, sizeof *b + b->cap);
}

void ast_arena_free(ast_arena *ar)
{
    if (!ar)
        return;
    for (block *b = ar->top, *prev; b; b = prev) {
        prev = b->prev;
        free_block(b);
    }
    if (ar->marks)
        mem_free(ar->marks, ar->marks_cap * sizeof *ar->marks);
    mem_free(ar, sizeof *ar);
}

void ast_arena_keep_to_here(ast_arena *ar)
{
    /* a new parse into the arena: what earlier ones made is kept too, and
       the items counted are this parse's */
    ar->keep_set = true;
    ar->kept = ar->top;
    ar->nmarks = 0;
}

void ast_arena_item_done(ast_arena *ar)
{
    if (ar->nmarks == ar->marks_cap) {
        uint32_t *grown = mem_grow(ar->marks, sizeof *ar->marks, &ar->marks_cap, ar->nmarks + 1);
        if (!grown)
            return; /* nothing more is released: the tree stays whole */
        ar->marks = grown;
    }
    ar->marks[ar->nmarks++] = ar->top ? ar->top->seq : 0;
}

void ast_arena_release(ast_arena *ar, size_t item)
{
    /* Item i+1's first token may have been read, as the parser's look
       ahead, before item i was complete; every later item was begun after.
       So once items 0..item are done with, every block made before item
       - 1 was complete holds nothing anyone still reads. */
    if (!ar->keep_set || item < 1 || item - 1 >= ar->nmarks)
        return;
    uint32_t below = ar->marks[item - 1];
    /* the blocks after the kept ones (which come first), oldest first */
    block *kept = ar->kept ? ar->kept : ar->oldest;
    for (block *b = kept ? kept->next : NULL; b && b != ar->top && b->seq < below;) {
        block *next = b->next;
        kept->next = next;
        next->prev = kept;
        free_block(b);
        b = next;
    }
}

static void *arena_alloc(ast_arena *ar, size_t size)
{
    size = (size + 7) & ~(size_t)7; /* nodes hold pointers and int64s at most */
    if (!ar->top || ar->top->cap - ar->top->used < size) {
        size_t cap = size > 16384 ? size : 16384;
        block *b = mem_alloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->prev = ar->top;
        b->next = NULL;
        b->seq = ar->nblocks++;
        b->used = 0;
        b->cap = cap;
        if (ar->top)
            ar->top->next = b;
        else
            ar->oldest = b;
        ar->top = b;
    }
    void *p = ar->top->data + ar->top->used;
    ar->top->used += size;
    memset(p, 0, size);
    return p;
}

node *ast_node(ast_arena *ar, ast_kind kind, span sp)
{
    node *n = arena_alloc(ar, sizeof *n);
    if (!n)
        return NULL;
    n->kind = (uint8_t)kind;
    n->sp = sp;
    if (kind == AST_INT || kind == AST_FRAC || kind == AST_QTY || kind == AST_BOOL)
        n->den = 1; /* the others keep a list's tail there */
    return n;
}

const char *ast_strdup(ast_arena *ar, const char *s, size_t len)
{
    char *p = arena_alloc(ar, len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

node *ast_append(node *parent, node *child)
{
    if (!parent || !child)
        return parent;
    child->next = NULL;
    if (parent->tail)
        parent->tail->next = child;
    else
        parent->list = child;
    parent->tail = child;
    parent->sp = span_join(parent->sp, child->sp);
    return parent;
}

node *ast_list1(ast_arena *ar, span sp, node *child)
{
    node *l = ast_node(ar, AST_LIST, sp);
    return ast_append(l, child);
}

int ast_list_len(const node *n)
{
    int len = 0;
    for (const node *c = n ? n->list : NULL; c; c = c->next)
        len++;
    return len;
}

void ast_dump(FILE *out, const node *n, int depth)
{
    if (!n)
        return;
    fprintf(out, "%*s%s", depth * 2, "", ast_kind_name((ast_kind)n->kind));
    if (n->kind == AST_DECL || n->kind == AST_COMMAND)
        fprintf(out, " %s", decl_kind_name((decl_kind)n->op));
    else if (n->op)
        fprintf(out, " op=%d", n->op);
    if (n->text)
        fprintf(out, " '%s'", n->text);
    if (n->kind == AST_INT || n->kind == AST_BOOL)
        fprintf(out, " %lld", (long long)n->num);
    if (n->kind == AST_FRAC || n->kind == AST_QTY)
        fprintf(out, " %lld/%lld", (long long)n->num, (long long)n->den);
    fputc('\n', out);
    ast_dump(out, n->a, depth + 1);
    ast_dump(out, n->b, depth + 1);
    ast_dump(out, n->c, depth + 1);
    for (const node *c = n->list; c; c = c->next)
        ast_dump(out, c, depth + 1);
}
