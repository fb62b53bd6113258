#include "lang/parse.h"

#include <string.h>

#include "lang/lexer.h"
#include "lang/parser.h"
#define YYSTYPE LANG_YYSTYPE
#define YYLTYPE LANG_YYLTYPE
#include "lang/scanner.h"
#include "runtime/mem.h"

/* Runs the scanner and parser over lx->src. Returns bison's status (0 ok,
 * 1 syntax errors, 2 out of memory). */
static int run_parser(lexer *lx)
{
    yyscan_t scanner;
    lexer_set_active(lx);
    if (lang_yylex_init_extra(lx, &scanner) != 0) {
        lexer_free_stranded(lx);
        lexer_set_active(NULL);
        return 2;
    }
    /* Scan a copy that ends in a newline: trailing-context rules (`5 ft`)
       then work on the last line too, and the last item always ends. */
    const source *src = lx->src;
    /* flex scans our buffer in place (it ends in two NULs), so a failure
       inside flex cannot strand a copy of its own */
    size_t size = src->len + 3;
    char *text = mem_alloc(size);
    YY_BUFFER_STATE volatile buf = NULL;
    volatile int rc = 2;
    if (text && setjmp(lx->fatal) == 0) {
        memcpy(text, src->text, src->len);
        text[src->len] = '\n';
        text[src->len + 1] = text[src->len + 2] = '\0';
        buf = lang_yy_scan_buffer(text, size, scanner);
        if (buf)
            rc = lang_yyparse(scanner, lx);
    }
    if (buf)
        lang_yy_delete_buffer(buf, scanner);
    lang_yylex_destroy(scanner);
    lexer_free_stranded(lx);
    lexer_set_active(NULL);
    if (text)
        mem_free(text, size);
    return rc;
}

static node *parse(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink, int start_token)
{
    lexer lx = {
        .src = src, .src_index = src_index, .ar = ar, .sink = sink, .last_token = ';', .start_token = start_token};
    int rc = run_parser(&lx);
    if (lx.oom || rc == 2)
        return NULL;
    if (!lx.root) /* bison gave up before the top rule: an empty program */
        lx.root = ast_node(ar, start_token ? AST_LIST : AST_PROGRAM, (span){0, 0, src_index});
    return lx.root;
}

node *parse_program(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink)
{
    return parse(src, src_index, ar, sink, 0);
}

node *parse_expression(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink)
{
    return parse(src, src_index, ar, sink, START_EXPR);
}

static void count_only(void *user, const diag *d)
{
    (void)d;
    (void)user;
}

bool parse_is_incomplete(const source *src)
{
    ast_arena *ar = ast_arena_new();
    if (!ar)
        return false;
    diag_sink sink = {.fn = count_only};
    lexer lx = {.src = src, .ar = ar, .sink = &sink, .last_token = ';'};
    run_parser(&lx);
    /* Open brackets at the end, or a string still open, mean "more to come". */
    bool incomplete = lx.depth > 0 || lx.braces > 0 || lx.hit_eof;
    ast_arena_free(ar);
    return incomplete;
}
