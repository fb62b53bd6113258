/* ast: the syntax tree the parser builds and the compiler reads.
 * One node shape for everything keeps the grammar actions short; every node
 * carries the span of source it came from. Nodes live in an arena owned by
 * the parse, never freed one by one: all at once, or (the compiler) a
 * top-level item's at a time, once it is compiled (ast_arena_release). */
#ifndef FRAY_AST_H
#define FRAY_AST_H

#include <stdint.h>

#include "runtime/base/source.h"

#define AST_KINDS(X)                                                        \
    /* literals and names */                                                \
    X(INT, "integer")                                                       \
    X(FRAC, "fraction")                                                     \
    X(QTY, "quantity") /* num/den + unit text in `text` */                  \
    X(DICE, "dice")    /* notation in `text` */                             \
    X(STRING, "string")                                                     \
    X(BOOL, "boolean")                                                      \
    X(NAME, "name")                                                         \
    X(WORD, "word") /* a connective inside clause arguments */              \
    X(SEP, "','")   /* a comma inside clause arguments */                   \
    /* expressions */                                                       \
    X(MEMBER, "member") /* a.text */                                        \
    X(INDEX, "index")   /* a[b] */                                          \
    X(CALL, "call")     /* text(list) */                                    \
    X(LIST, "list")                                                         \
    X(UNARY, "unary")       /* op a */                                      \
    X(BINARY, "binary")     /* a op b */                                    \
    X(COND, "conditional")  /* a ? b : c */                                 \
    X(ROLL, "roll")         /* roll a */                                    \
    X(SPAN, "interval")     /* a .. b */                                    \
    X(LET_IN, "let ... in") /* let text = b in c (a: the name) */           \
    /* statements */                                                        \
    X(LET, "let")                                                           \
    X(ASSIGN, "assignment") /* a op= b */                                   \
    X(IF, "if")                                                             \
    X(FOR, "for")                                                           \
    X(REPEAT, "repeat")                                                     \
    X(EMIT, "emit")                                                         \
    X(RETURN, "return")                                                     \
    X(PRINT, "print")                                                       \
    X(FAIL, "fail")                                                         \
    X(EXPR_STMT, "expression")                                              \
    X(BLOCK, "block")                                                       \
    X(CITE, "citation")                                                     \
    X(CLAUSE, "clause") /* text args... [block] */                          \
    /* declarations and commands */                                         \
    X(DECL, "declaration") /* op = decl keyword */                          \
    X(USE, "use")                                                           \
    X(IMPORT, "import")                                                     \
    X(OVERRIDE, "override")                                                 \
    X(COMMAND, "command")    /* op = command keyword, list = args */        \
    X(ACT, "action command") /* actor text: a = action name, list = args */ \
    X(PROGRAM, "program")

typedef enum {
#define AST_ENUM(name, desc) AST_##name,
    AST_KINDS(AST_ENUM)
#undef AST_ENUM
        AST_KIND_COUNT
} ast_kind;

const char *ast_kind_name(ast_kind k);

typedef struct node node;
struct node {
    uint8_t kind; /* ast_kind */
    uint16_t op;  /* operator token, decl_kind, or unit */
    span sp;
    int64_t num; /* INT, FRAC, QTY, BOOL */
    /* A literal's denominator (1 but in FRAC and QTY), or, in a node with
       ordered children, the last of them while the parser appends them:
       no node has both, and a smaller node is a smaller tree. */
    union {
        int64_t den;
        node *tail;
    };
    const char *text; /* NAME, WORD, STRING, DICE, MEMBER, CALL, DECL name... */
    node *a, *b, *c;  /* fixed children, meaning by kind */
    node *list;       /* ordered children */
    node *next;       /* sibling in the parent's list */
};

typedef struct ast_arena ast_arena;
ast_arena *ast_arena_new(void);
void ast_arena_free(ast_arena *ar);
/* The longest string literal the parse may keep, in bytes as written
 * (STRING_DEFAULT_BYTES unless set): the scanner refuses a longer one. */
void ast_arena_limit_strings(ast_arena *ar, size_t max_bytes);
size_t ast_arena_max_string(const ast_arena *ar);
/* How deep the tree a parse builds may be (NESTING_DEFAULT unless set):
 * the parser refuses a deeper one, so that everything that walks a tree
 * by recursion (the compiler, the formatter) is bounded by it. */
void ast_arena_limit_nesting(ast_arena *ar, int levels);
int ast_arena_max_nesting(const ast_arena *ar);

/* Giving back a file's tree item by item, as the compiler is done with
 * each top-level item (the tree of a million lines is most of what
 * compiling it takes). The parser says where the root ends
 * (ast_arena_keep_to_here, once a parse: that block and those before it,
 * with any earlier parse's tree, are kept) and
 * where each top-level item is complete (ast_arena_item_done, in the
 * order of the items); ast_arena_release(ar, i), once no one reads items
 * 0..i again, frees the blocks only they fill. Nothing else reads a node
 * of an item once it is compiled: what the compile keeps (decls, chunks,
 * spans) holds string ids and source offsets, never a node. */
void ast_arena_keep_to_here(ast_arena *ar);
void ast_arena_item_done(ast_arena *ar);
void ast_arena_release(ast_arena *ar, size_t item);

node *ast_node(ast_arena *ar, ast_kind kind, span sp);
/* Copy of s[0..len), NUL-terminated, owned by the arena. */
const char *ast_strdup(ast_arena *ar, const char *s, size_t len);
/* Appends child to parent's list; returns parent. */
node *ast_append(node *parent, node *child);
/* A LIST node holding one child (or none if child is NULL). */
node *ast_list1(ast_arena *ar, span sp, node *child);
int ast_list_len(const node *n);

/* Debug dump, one node a line, for tests. */
#include <stdio.h>
void ast_dump(FILE *out, const node *n, int depth);

#endif
