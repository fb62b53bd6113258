/* lexer: state shared by the flex scanner and the bison parser. One per
 * parse, passed explicitly (flex `extra`), so parses never share state. */
#ifndef FRAY_LEXER_H
#define FRAY_LEXER_H

#include <setjmp.h>
#include <stdbool.h>

#include "lang/ast.h"
#include "lang/diag.h"

typedef struct lexer {
    const source *src;
    uint32_t src_index;
    ast_arena *ar;
    diag_sink *sink;
    uint32_t offset;      /* byte offset of the next unread character */
    int last_token;       /* for newline insertion; it also sets the start condition */
    uint32_t newline_at;  /* the newline that may end the item, while the lines after it are read */
    int depth;            /* open ( and [ : newlines inside are spaces */
    int braces;           /* open { : the REPL reads on while any is open */
    uint32_t open_at[64]; /* offsets of the innermost open brackets, for notes */
    bool hit_eof;         /* an error was reported at end of input */
    bool oom;
    bool too_deep;      /* the nesting limit was passed (and said so, once) */
    span stack_full_at; /* where the parser's stack ran out, if it did */
    bool stack_full;
    int start_token; /* injected before the first token (expression mode) */
    node *root;
    node *top_items;       /* the file's list of items (not a block's), once made */
    jmp_buf fatal;         /* flex's fatal errors (out of memory) come back here, never exit() */
    void *flex_blocks[16]; /* what flex holds, so a fatal unwind frees it all */
    int nflex_blocks;
    /* The periods a count may be of (`2 scenes`): those of the program the
       text is compiled into, and those the text itself declares (names
       found by a look over its lines before the scan, so that the order of
       declarations does not matter). */
    const struct program *known;
    node *periods; /* AST_NAME nodes, linked by next */
} lexer;

/* Whether the word (len bytes) names a period, as `scene` or `scenes`. */
bool lexer_period_word(const lexer *lx, const char *word, size_t len);

/* The lexer whose scanner is running on this thread (for flex's allocator). */
void lexer_set_active(lexer *lx);
/* Frees what flex still holds after a fatal error unwound past it. */
void lexer_free_stranded(lexer *lx);
/* Reports, once per parse, that the text at sp nests deeper than the
 * limit (--limit nesting=N): brackets as the scanner counts them, the
 * syntax tree as parse.c measures it, or the parser's own stack. */
void lexer_too_deep(lexer *lx, span sp);

#endif
