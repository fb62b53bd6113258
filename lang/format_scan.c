/* format_scan: drives the flex scanner on its own, as lang/parse.c does for
 * the parser, and keeps what it returns with the byte spans. The scanner
 * skips comments and newlines; they are found again in the gaps between
 * tokens, where nothing else can be once the file scans without errors. */
#include "lang/format_scan.h"

#include <string.h>

#include "lang/lexer.h"
#include "lang/parser.h"
#define YYSTYPE LANG_YYSTYPE
#define YYLTYPE LANG_YYLTYPE
#include "lang/scanner.h"
#include "runtime/base/mem.h"

/* As ends_item in scanner.l: operators, openers, commas and connective
 * words continue the line. */
static const int continuing[] = {0,   ';',     '{',      '(',   '[',    ',',  '.',    ':', '?',  '+',
                                 '-', '*',     '/',      '<',   '>',    '=',  IDIV,   EQ,  NE,   LE,
                                 GE,  PLUS_EQ, MINUS_EQ, ARROW, DOTDOT, AND,  OR,     NOT, ROLL, PER,
                                 BY,  OF,      TO,       FROM,  WITH,   WHEN, UNLESS, IN,  ELSE, CITE_SIGN};

bool fmt_ends_item(int kind)
{
    for (size_t i = 0; i < sizeof continuing / sizeof continuing[0]; i++)
        if (kind == continuing[i])
            return false;
    return true;
}

static bool push_item(fmt_scan *s, fmt_item it)
{
    fmt_item *grown = mem_grow(s->items, sizeof *grown, &s->cap, s->n + 1);
    if (!grown)
        return false;
    s->items = grown;
    s->items[s->n++] = it;
    return true;
}

static bool put(fmt_scan *s, const char *text, size_t len)
{
    /* one spare byte for the terminating NUL */
    char *grown = mem_grow(s->stream, 1, &s->stream_cap, s->stream_len + len + 1);
    if (!grown)
        return false;
    s->stream = grown;
    memcpy(s->stream + s->stream_len, text, len);
    s->stream_len += len;
    s->stream[s->stream_len] = '\0';
    return true;
}

/* Keywords and punctuation are named by their text (`§` and `cite` are one
 * keyword); the other tokens are classes of texts. */
static const char *token_class(int kind, const char *text)
{
    switch (kind) {
    case IDENT: return "name";
    case CALLNAME: return "call";
    case INT: return "number";
    case QTY: return "quantity";
    case DICE: return "dice";
    case STRING: return "string";
    case INDEX: return "index";
    default: return (text[0] >= 'a' && text[0] <= 'z') || kind == CITE_SIGN ? "keyword" : "punct";
    }
}

/* One line per token, "class text"; a quantity's spaces are one space
 * (`5 ft`, `5  ft` and `5\tft` are one token). */
static bool put_token(fmt_scan *s, int kind, const char *text, size_t len)
{
    const char *cls = token_class(kind, text);
    if (!put(s, cls, strlen(cls)) || !put(s, " ", 1))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ' ' || text[i] == '\t') {
            while (i + 1 < len && (text[i + 1] == ' ' || text[i + 1] == '\t'))
                i++;
            if (!put(s, " ", 1))
                return false;
        } else if (!put(s, text + i, 1)) {
            return false;
        }
    }
    return put(s, "\n", 1);
}

/* The parser's stream, where a `;` that cannot change the parse is left
 * out: one after another `;`, after `{` or at the start, and one before `}`
 * or at the end (the grammar takes empty items there). Layouts that only
 * move such separators give the same stream. */
typedef struct streamer {
    int last; /* last token written, 0 at the start */
    bool pending;
} streamer;

static bool stream_token(fmt_scan *s, streamer *st, int kind, const char *text, size_t len)
{
    if (kind == ';') {
        if (!(st->pending || st->last == '{' || st->last == 0))
            st->pending = true;
        return true;
    }
    if (st->pending && kind != '}' && !put(s, ";\n", 2))
        return false;
    st->pending = false;
    st->last = kind;
    return put_token(s, kind, text, len);
}

/* Comments and newlines in src[from, to): nothing else is there. */
static bool scan_gap(fmt_scan *s, const source *src, uint32_t from, uint32_t to, int *nl)
{
    for (uint32_t i = from; i < to; i++) {
        char c = src->text[i];
        if (c == '\n') {
            (*nl)++;
        } else if (c == '#') {
            uint32_t end = i;
            while (end < to && src->text[end] != '\n')
                end++;
            if (!push_item(s, (fmt_item){.kind = FMT_COMMENT, .start = i, .end = end, .nl = *nl}))
                return false;
            *nl = 0;
            i = end - 1;
        }
    }
    return true;
}

/* The scanning loop, under the scanner's fatal-error jump. */
static bool scan_tokens(lexer *lx, yyscan_t scanner, fmt_scan *out)
{
    const source *src = lx->src;
    streamer st = {0};
    uint32_t prev_end = 0;
    int nl = 0;
    for (;;) {
        LANG_YYSTYPE val;
        LANG_YYLTYPE loc;
        int tok = lang_yylex(&val, &loc, scanner);
        if (tok == 0)
            break;
        bool virtual_semi = tok == ';' && (loc.start >= src->len || src->text[loc.start] != ';');
        if (!stream_token(out, &st, tok, src->text + loc.start, virtual_semi ? 0 : loc.end - loc.start))
            return false;
        if (virtual_semi) {
            if (out->n > 0)
                out->items[out->n - 1].vsemi = true;
            continue;
        }
        if (!scan_gap(out, src, prev_end, loc.start, &nl))
            return false;
        if (!push_item(out, (fmt_item){.kind = tok, .start = loc.start, .end = loc.end, .nl = nl}))
            return false;
        nl = 0;
        prev_end = loc.end;
    }
    return scan_gap(out, src, prev_end, (uint32_t)src->len, &nl);
}

/* Runs the scanner over lx->src (as run_parser in parse.c does). */
static bool run_scanner(lexer *lx, fmt_scan *out)
{
    const source *src = lx->src;
    yyscan_t scanner;
    volatile bool ok = false;
    lexer_set_active(lx);
    if (lang_yylex_init_extra(lx, &scanner) == 0) {
        /* a copy ending in a newline, so the last line's trailing-context
           rules work and its item ends */
        size_t size = src->len + 3;
        char *volatile text = mem_alloc(size);
        YY_BUFFER_STATE volatile buf = NULL;
        if (text && setjmp(lx->fatal) == 0) {
            memcpy(text, src->text, src->len);
            text[src->len] = '\n';
            text[src->len + 1] = text[src->len + 2] = '\0';
            buf = lang_yy_scan_buffer(text, size, scanner);
            if (buf)
                ok = scan_tokens(lx, scanner, out) && put(out, "", 0);
        }
        if (buf)
            lang_yy_delete_buffer(buf, scanner);
        lang_yylex_destroy(scanner);
        if (text)
            mem_free(text, size);
    }
    lexer_free_stranded(lx);
    lexer_set_active(NULL);
    return ok && !lx->oom;
}

bool fmt_scan_source(const source *src, const compile_options *opts, diag_sink *sink, fmt_scan *out)
{
    memset(out, 0, sizeof *out);
    ast_arena *ar = compile_arena(opts);
    if (!ar)
        return false;
    lexer lx = {.src = src, .ar = ar, .sink = sink, .last_token = ';'};
    bool ok = run_scanner(&lx, out);
    ast_arena_free(ar);
    if (!ok)
        fmt_scan_free(out);
    return ok;
}

void fmt_scan_free(fmt_scan *s)
{
    if (s->items)
        mem_free(s->items, s->cap * sizeof *s->items);
    if (s->stream)
        mem_free(s->stream, s->stream_cap);
    memset(s, 0, sizeof *s);
}
