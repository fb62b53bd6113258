#include "lang/parse.h"

#include <string.h>

#include "lang/lexer.h"
#include "lang/parser.h"
#define YYSTYPE LANG_YYSTYPE
#define YYLTYPE LANG_YYLTYPE
#include "lang/scanner.h"
#include "runtime/base/mem.h"
#include "runtime/base/text.h"
#include "runtime/core/program.h"
#include "runtime/core/rules.h"

/* The parse running on this thread, for the parser's stack allocator. */
static _Thread_local lexer *parsing;

/* bison's stacks, through the one allocator (so that they count against
   the memory budget); a failure is out of memory, not deep nesting. */
void *parse_stack_alloc(size_t size)
{
    void *p = lang_yyalloc(size, NULL);
    if (!p && parsing)
        parsing->oom = true;
    return p;
}

void parse_stack_free(void *p)
{
    lang_yyfree(p, NULL);
}

void lexer_too_deep(lexer *lx, span sp)
{
    if (lx->too_deep)
        return;
    lx->too_deep = true;
    diag_report(lx->sink, DIAG_ERROR, lx->src, sp,
                "nested too deeply (limit is %d levels of brackets, blocks and operators; see --limit nesting=N)",
                ast_arena_max_nesting(lx->ar));
}

/* The depth of the tree, measured once, without recursion, before
 * anything walks it: the compiler, the formatter and the other walkers
 * recurse once a level, and the limit bounds them all. A long chain of
 * one operator (`1 + 1 + ... + 1`) is as deep as it is long. Returns false
 * when out of memory. */
static bool check_depth(lexer *lx, const node *root, int root_depth)
{
    typedef struct {
        const node *n;
        int depth;
    } pending;
    /* on the heap only for a tree deeper than most files ever are */
    pending local[512], *stack = local;
    size_t cap = sizeof local / sizeof local[0], top = 0;
    int limit = ast_arena_max_nesting(lx->ar);
    stack[top++] = (pending){root, root_depth};
    bool ok = true;
    while (top > 0) {
        pending at = stack[--top];
        if (at.depth > limit) {
            /* the first node past the limit, pointed at where it starts */
            lexer_too_deep(lx, (span){at.n->sp.start, at.n->sp.start + 1, at.n->sp.source});
            break;
        }
        /* its next sibling at its own depth, then its children one deeper:
           at most five entries a level */
        if (top + 5 > cap) {
            pending *grown = mem_alloc(2 * cap * sizeof *stack);
            if (!grown) {
                ok = false;
                break;
            }
            memcpy(grown, stack, top * sizeof *stack);
            if (stack != local)
                mem_free(stack, cap * sizeof *stack);
            stack = grown;
            cap *= 2;
        }
        const node *next[5] = {at.n->next, at.n->a, at.n->b, at.n->c, at.n->list};
        for (int i = 0; i < 5; i++)
            if (next[i])
                stack[top++] = (pending){next[i], at.depth + (i > 0)};
    }
    if (stack != local)
        mem_free(stack, cap * sizeof *stack);
    return ok;
}

/* Runs the scanner and parser over lx->src. Returns bison's status (0 ok,
 * 1 syntax errors, 2 out of memory). */
static int run_parser(lexer *lx)
{
    yyscan_t scanner;
    lexer_set_active(lx);
    parsing = lx;
    if (lang_yylex_init_extra(lx, &scanner) != 0) {
        lexer_free_stranded(lx);
        lexer_set_active(NULL);
        parsing = NULL;
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
    parsing = NULL;
    if (text)
        mem_free(text, size);
    return rc;
}

static bool id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Skips the word w at s[*i], and the spaces after it; false if it is not there. */
static bool skip_word(const char *s, size_t len, size_t *i, const char *w)
{
    size_t n = strlen(w);
    if (*i + n >= len || memcmp(s + *i, w, n) != 0 || id_char(s[*i + n]))
        return false;
    size_t j = *i + n;
    if (s[j] != ' ' && s[j] != '\t')
        return false;
    while (j < len && (s[j] == ' ' || s[j] == '\t'))
        j++;
    *i = j;
    return true;
}

/* The names of the lines `period NAME` (or `override period NAME`). */
static void find_periods(lexer *lx)
{
    const char *s = lx->src->text;
    size_t len = lx->src->len;
    for (size_t at = 0; at < len;) {
        size_t i = at;
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        skip_word(s, len, &i, "override");
        if (skip_word(s, len, &i, "period") && i < len && !(s[i] >= '0' && s[i] <= '9') && id_char(s[i])) {
            size_t e = i;
            while (e < len && id_char(s[e]))
                e++;
            node *n = ast_node(lx->ar, AST_NAME, (span){(uint32_t)i, (uint32_t)e, lx->src_index});
            if (n && (n->text = ast_strdup(lx->ar, s + i, e - i)) != NULL) {
                n->next = lx->periods;
                lx->periods = n;
            }
        }
        const char *nl = memchr(s + at, '\n', len - at);
        at = nl ? (size_t)(nl - s) + 1 : len;
    }
}

bool lexer_period_word(const lexer *lx, const char *word, size_t len)
{
    text_buf w, plural;
    text_init(&w);
    text_init(&plural);
    text_add(&w, "%.*s", (int)len, word);
    bool found = lx->known && rules_period_word(lx->known, w.s) >= 0;
    for (const node *n = lx->periods; n && !found; n = n->next) {
        text_clear(&plural);
        rules_period_plural(n->text, &plural);
        found = strcmp(n->text, w.s) == 0 || strcmp(plural.s, w.s) == 0;
    }
    text_free(&w);
    text_free(&plural);
    return found;
}

static node *parse(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink, int start_token,
                   const program *known)
{
    lexer lx = {.src = src,
                .src_index = src_index,
                .ar = ar,
                .sink = sink,
                .last_token = ';',
                .start_token = start_token,
                .known = known};
    find_periods(&lx);
    int rc = run_parser(&lx);
    if (lx.stack_full && !lx.oom) /* its stack only fills with nesting */
        lexer_too_deep(&lx, lx.stack_full_at);
    if (lx.oom || rc == 2)
        return NULL;
    if (!lx.root) /* bison gave up before the top rule: an empty program */
        lx.root = ast_node(ar, start_token ? AST_LIST : AST_PROGRAM, (span){0, 0, src_index});
    /* the items of a file are its first level, as an expression is */
    if (lx.root && !lx.too_deep && !check_depth(&lx, lx.root, start_token ? 1 : 0))
        return NULL;
    return lx.root;
}

node *parse_program(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink)
{
    return parse(src, src_index, ar, sink, 0, NULL);
}

node *parse_program_in(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink, const program *known)
{
    return parse(src, src_index, ar, sink, 0, known);
}

node *parse_expression(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink)
{
    return parse(src, src_index, ar, sink, START_EXPR, NULL);
}

node *parse_expression_in(const source *src, uint32_t src_index, ast_arena *ar, diag_sink *sink, const program *known)
{
    return parse(src, src_index, ar, sink, START_EXPR, known);
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
