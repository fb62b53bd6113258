/* format: Fray's canonical layout. A re-printer of the scanner's tokens:
 * the author's line breaks are kept (newlines end items in Fray), and
 * indentation and the spaces within a line are normalized.
 *
 * The layout:
 * - 2 spaces of indentation per open `{`; a line continuing an item (inside
 *   ( ) or [ ] opened on an earlier line, or after an operator, a comma or
 *   a connective word) is indented 4 more than the line that opened the
 *   bracket, or than the item's first line; a line starting with the `)` or
 *   `]` of such a bracket lines up with the line that opened it.
 * - A block that spans lines has its `{` last on the line that opens it and
 *   its `}` first on a line of its own (`} else {` stays together). A block
 *   written on one line stays on one line if that line fits in 100 columns;
 *   otherwise it is laid out one item a line.
 * - One space around binary operators (`..` excepted: `1..20`), after a
 *   comma or `;` and between words; none inside ( ) and [ ], before `,`,
 *   around `.`, after a unary `-`, before `(` of a call or `[` of an index,
 *   or before the `:` of a type or a command (`goblin_1: strike`, `a ? b : c`
 *   has spaces). Tokens are written as they are (dice, strings, `§`/`cite`);
 *   spaces in a quantity are one space (`5 ft`).
 * - A `;` is dropped where a newline does its work (at the end of a line)
 *   or where it separates nothing (after `{`, before `}`, after another).
 * - Comments stay where they are: a trailing comment at the end of its
 *   line (those of consecutive lines aligned, 2 spaces after the longest
 *   code), a comment line on its own line, indented as the code after it.
 * - At most one blank line in a row, none at the start or end of a block
 *   or of the file; no trailing spaces; a final newline.
 *
 * Safety: every change keeps the parser's token stream (format_tokens), and
 * the result is scanned again and compared before it is returned. Only
 * what quotes the source text changes with it: locations, and the labels
 * of a check's unnamed terms and of `requires` refusals in transcripts,
 * which then quote the canonical spelling. */
#include "lang/format.h"

#include <string.h>

#include "lang/format_scan.h"
#include "lang/parse.h"
#include "lang/parser.h"
#include "runtime/base/mem.h"

enum { INDENT = 2, CONTINUATION = 4, WIDTH = 100, COMMENT_GAP = 2, NONE = -1 };

typedef struct fmt_line {
    int indent;        /* NONE until known: a comment line takes the next code line's */
    size_t at, len;    /* its text in fmt.text, without the indentation */
    int cols;          /* columns of that text */
    int comment;       /* trailing comment (item index) or NONE */
    bool blank_before; /* a blank line comes first */
    int first, last;   /* its first and last items */
} fmt_line;

typedef struct fmt {
    const source *src;
    fmt_item *it;
    int n;
    bool *keep;   /* false for a `;` left out */
    int *partner; /* the matching bracket of a bracket, else NONE */
    bool *multi;  /* a `{` whose block spans lines in the source */
    bool *expand; /* a one-line block laid out over lines (too long) */
    int *brk;     /* before each item: 0 same line, 1 new line, 2 after a blank line */
    int *stack;   /* scratch, n + 1 */
    fmt_line *lines;
    size_t nlines, lines_cap;
    char *text; /* the lines' text */
    size_t text_len, text_cap;
    bool oom;
} fmt;

static int kind(const fmt *f, int i)
{
    return f->it[i].kind;
}

static bool is_comment(const fmt *f, int i)
{
    return f->it[i].kind == FMT_COMMENT;
}

static int next_kept(const fmt *f, int i)
{
    for (i++; i < f->n; i++)
        if (f->keep[i])
            return i;
    return NONE;
}

/* The next kept token after i (comments skipped), or NONE. */
static int next_token(const fmt *f, int i)
{
    for (i = next_kept(f, i); i != NONE && is_comment(f, i); i = next_kept(f, i))
        ;
    return i;
}

static bool opens(int k)
{
    return k == '(' || k == '[' || k == INDEX;
}

static bool closes(int k)
{
    return k == ')' || k == ']';
}

/* --- structure --------------------------------------------------------------- */

static void match_brackets(fmt *f)
{
    int sp = 0;
    for (int i = 0; i < f->n; i++) {
        f->partner[i] = NONE;
        int k = kind(f, i);
        if (k == '{' || opens(k)) {
            f->stack[sp++] = i;
        } else if ((k == '}' || closes(k)) && sp > 0) {
            int j = f->stack[--sp];
            f->partner[i] = j;
            f->partner[j] = i;
        }
    }
    /* a block spans lines if a newline comes anywhere before its `}` */
    for (int i = 0; i < f->n; i++) {
        if (kind(f, i) != '{' || f->partner[i] == NONE)
            continue;
        for (int j = i + 1; j <= f->partner[i] && !f->multi[i]; j++)
            f->multi[i] = f->it[j].nl > 0;
    }
}

/* Leaves out each `;` that separates nothing: after another `;` (or a
 * newline's), after `{`, at the start, before `}` or at the end. */
static void drop_empty_semis(fmt *f)
{
    int last = 0;
    for (int i = 0; i < f->n; i++)
        f->keep[i] = true;
    for (int i = 0; i < f->n; i++) {
        if (is_comment(f, i))
            continue;
        if (kind(f, i) == ';') {
            int next = next_token(f, i);
            while (next != NONE && kind(f, next) == ';')
                next = next_token(f, next);
            int nk = next == NONE ? 0 : kind(f, next);
            if (last == ';' || last == '{' || last == 0 || nk == '}' || nk == 0) {
                f->keep[i] = false;
                continue;
            }
        }
        last = f->it[i].vsemi ? ';' : kind(f, i);
    }
}

static bool laid_out(const fmt *f, int brace)
{
    return brace != NONE && (f->multi[brace] || f->expand[brace]);
}

/* The line breaks: the source's (blank lines at most one), plus those of
 * blocks laid out over lines. */
static void plan_breaks(fmt *f)
{
    int prev = NONE, prev_tok = NONE, nl = 0, blocks = 0, depth = 0;
    bool want_break = false;
    for (int i = 0; i < f->n; i++) {
        if (f->it[i].nl > nl)
            nl = f->it[i].nl; /* a `;` left out on a line of its own leaves no blank */
        if (!f->keep[i]) {
            /* a `;` left out in a block laid out over lines still breaks it */
            if (depth == 0 && blocks > 0 && f->expand[f->stack[blocks - 1]])
                want_break = true;
            continue;
        }
        int k = kind(f, i), b = 0;
        if (prev != NONE) {
            b = nl > 2 ? 2 : nl;
            bool trailing = k == FMT_COMMENT && b == 0;
            if (want_break && !trailing) {
                b = b ? b : 1;
                want_break = false;
            }
            if (k == '}' && laid_out(f, f->partner[i]) && !b)
                b = 1;
            bool after_open = kind(f, prev) == '{' || (is_comment(f, prev) && f->brk[prev] == 0 && prev_tok != NONE &&
                                                       kind(f, prev_tok) == '{');
            if ((k == '}' || after_open) && b > 1)
                b = 1;
            /* `else` and `{` on two lines (no `;` between): one line */
            if (k == '{' && b && prev == prev_tok && !f->it[prev].vsemi && kind(f, prev) != ';' && kind(f, prev) != '{')
                b = 0;
        }
        f->brk[i] = b;
        prev = i;
        nl = 0;
        if (k == FMT_COMMENT)
            continue;
        prev_tok = i;
        if (k == '{') {
            f->stack[blocks++] = i;
            want_break = laid_out(f, i);
        } else if (k == '}') {
            if (blocks > 0)
                blocks--;
        } else if (opens(k)) {
            depth++;
        } else if (closes(k) && depth > 0) {
            depth--;
        } else if (k == ';' && depth == 0 && blocks > 0 && f->expand[f->stack[blocks - 1]]) {
            want_break = true;
        }
    }
}

/* Leaves out a `;` at the end of a line when the newline ends the item
 * anyway (the token before it ends items, and no `else` follows). */
static void drop_line_end_semis(fmt *f)
{
    int prev_tok = NONE, depth = 0;
    for (int i = 0; i < f->n; i++) {
        if (!f->keep[i] || is_comment(f, i))
            continue;
        int k = kind(f, i);
        if (k == ';' && depth == 0 && prev_tok != NONE && fmt_ends_item(kind(f, prev_tok))) {
            int j = next_kept(f, i);
            if (j != NONE && is_comment(f, j) && f->brk[j] == 0)
                j = next_kept(f, j);
            int tok = next_token(f, i);
            if (j != NONE && f->brk[j] > 0 && (tok == NONE || kind(f, tok) != ELSE)) {
                f->keep[i] = false;
                f->it[prev_tok].vsemi = true; /* the newline now ends the item */
                continue;
            }
        }
        if (opens(k))
            depth++;
        else if (closes(k) && depth > 0)
            depth--;
        prev_tok = i;
    }
}

/* --- lines -------------------------------------------------------------------- */

static void put(fmt *f, const char *s, size_t len)
{
    char *grown = mem_grow(f->text, 1, &f->text_cap, f->text_len + len + 1);
    if (!grown) {
        f->oom = true;
        return;
    }
    f->text = grown;
    memcpy(f->text + f->text_len, s, len);
    f->text_len += len;
}

static int columns(const char *s, size_t len)
{
    int cols = 0;
    for (size_t i = 0; i < len; i++)
        cols += ((unsigned char)s[i] & 0xc0) != 0x80;
    return cols;
}

/* A comment's text without trailing spaces (or a CR). */
static size_t comment_len(const fmt *f, int i)
{
    const char *s = f->src->text + f->it[i].start;
    size_t len = f->it[i].end - f->it[i].start;
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    return len;
}

static fmt_line *new_line(fmt *f, int first, bool blank)
{
    fmt_line *grown = mem_grow(f->lines, sizeof *grown, &f->lines_cap, f->nlines + 1);
    if (!grown) {
        f->oom = true;
        return NULL;
    }
    f->lines = grown;
    fmt_line *l = &f->lines[f->nlines++];
    *l = (fmt_line){
        .indent = NONE, .at = f->text_len, .comment = NONE, .blank_before = blank, .first = first, .last = first};
    return l;
}

static void put_token(fmt *f, int i)
{
    const char *s = f->src->text + f->it[i].start;
    size_t len = f->it[i].end - f->it[i].start;
    if (kind(f, i) != QTY) {
        put(f, s, len);
        return;
    }
    for (size_t k = 0; k < len; k++) { /* `5  ft` is `5 ft` */
        bool blank = s[k] == ' ' || s[k] == '\t';
        if (blank && k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
            continue;
        put(f, blank ? " " : s + k, 1);
    }
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Tokens after which a `-` is binary: the ends of operands, keywords that
 * can be names (`per round`) among them. */
static const int operand_ends[] = {IDENT,   INT,    QTY,       DICE,      STRING,   ')',    ']',      TRUE_,  FALSE_,
                                   ROUND,   ACTION, RANGE,     CONDITION, DURATION, STAT,   RESOURCE, SYSTEM, SPACE,
                                   TRIGGER, RULING, CREATURE,  ECONOMY,   EXCHANGE, ENUM,   BEGIN_,   END,    SHOW,
                                   BONUS,   CHECK,  ENCOUNTER, ITEM,      RELATION, TACTIC, SIDE,     PERIOD, USE};

static bool ends_operand(int k)
{
    for (size_t i = 0; i < sizeof operand_ends / sizeof operand_ends[0]; i++)
        if (k == operand_ends[i])
            return true;
    return false;
}

typedef struct spacing {
    int prev;        /* previous token (item index) or NONE */
    bool prev_first; /* it began its item */
    bool prev_unary; /* it was a unary sign */
    bool at_item_start;
    int questions; /* `?` waiting for their `:` in this item */
} spacing;

/* Whether a space goes between the previous token and token c on a line.
 * The first rules keep the tokens what they are; the rest are style. */
static bool space_before(const fmt *f, const spacing *sp, int c, bool ternary_colon)
{
    int p = kind(f, sp->prev), k = kind(f, c);
    char last = f->src->text[f->it[sp->prev].end - 1], first = f->src->text[f->it[c].start];
    if (k == INDEX || p == CALLNAME)
        return false; /* `foes[0]`, `max(` */
    if (k == '[' && (p == IDENT || p == ')' || p == ']' || p == STRING))
        return true; /* with no space it would index */
    if (word_char(last) && (word_char(first) || k == '('))
        return true; /* `3 x` is not `3x`; `d6 (` is not a call */
    if (k == ',' || k == ';' || closes(k) || opens(p) || p == '.' || k == '.' || p == DOTDOT || k == DOTDOT)
        return false;
    if (k == ':' && !ternary_colon)
        return false;
    return !sp->prev_unary;
}

/* The indentation of a line of code starting with item first; *cont is
 * set if the line continues the item of the line before. */
static int line_indent(const fmt *f, int first, int blocks, int depth, int item_indent, int prev_tok, bool *cont)
{
    int k = kind(f, first);
    *cont = false;
    if (k == '}')
        return (blocks > 0 ? blocks - 1 : 0) * INDENT;
    *cont =
        prev_tok != NONE && !f->it[prev_tok].vsemi && kind(f, prev_tok) != '{' && kind(f, prev_tok) != ';' && k != ELSE;
    if (!*cont)
        return blocks * INDENT;
    if (depth > 0)
        return f->stack[depth - 1] + (closes(k) ? 0 : CONTINUATION);
    return item_indent + CONTINUATION;
}

/* Builds the lines. Returns true if a one-line block turned out too long
 * (it is then marked to be laid out over lines, and the caller goes again). */
static bool render(fmt *f)
{
    f->nlines = 0;
    f->text_len = 0;
    int blocks = 0, depth = 0, item_indent = 0;
    spacing sp = {.prev = NONE, .at_item_start = true};
    fmt_line *line = NULL;
    for (int i = 0; i < f->n && !f->oom; i++) {
        if (!f->keep[i])
            continue;
        int k = kind(f, i);
        bool first = false;
        if (!line || f->brk[i] > 0) {
            line = new_line(f, i, f->nlines > 0 && f->brk[i] > 1);
            if (!line)
                return false;
            first = true;
            if (k == FMT_COMMENT) { /* a comment line: indented once the code after it is */
                put(f, f->src->text + f->it[i].start, comment_len(f, i));
                line->len = f->text_len - line->at;
                line->cols = columns(f->text + line->at, line->len);
                line = NULL;
                continue;
            }
            bool cont;
            line->indent = line_indent(f, i, blocks, depth, item_indent, sp.prev, &cont);
            if (!cont) {
                item_indent = line->indent;
                sp.at_item_start = true;
                sp.questions = 0;
            }
            for (size_t l = f->nlines - 1; l-- > 0 && f->lines[l].indent == NONE;)
                f->lines[l].indent = line->indent + (k == '}' ? INDENT : 0);
        }
        line->last = i;
        if (k == FMT_COMMENT) {
            line->comment = i;
            continue;
        }
        bool ternary_colon = k == ':' && sp.questions > 0;
        if (!first && space_before(f, &sp, i, ternary_colon))
            put(f, " ", 1);
        put_token(f, i);
        line->len = f->text_len - line->at;
        bool unary = (k == '-' || k == '+') && (sp.prev == NONE || !ends_operand(kind(f, sp.prev)) || sp.prev_first);
        sp.prev_first = sp.at_item_start;
        sp.prev_unary = unary;
        sp.prev = i;
        sp.at_item_start = k == ';' || k == '{' || k == '}';
        if (sp.at_item_start)
            sp.questions = 0;
        else if (k == '?')
            sp.questions++;
        else if (ternary_colon)
            sp.questions--;
        if (k == '{')
            blocks++;
        else if (k == '}' && blocks > 0)
            blocks--;
        else if (opens(k))
            f->stack[depth++] = line->indent;
        else if (closes(k) && depth > 0)
            depth--;
    }
    for (size_t l = f->nlines; l-- > 0 && f->lines[l].indent == NONE;)
        f->lines[l].indent = blocks * INDENT;
    bool again = false;
    for (size_t l = 0; l < f->nlines; l++) {
        fmt_line *ln = &f->lines[l];
        ln->cols = columns(f->text + ln->at, ln->len);
        if (ln->indent + ln->cols <= WIDTH)
            continue;
        /* the outermost blocks opened and closed on this line */
        for (int i = ln->first; i <= ln->last; i++) {
            int close = f->partner[i];
            if (kind(f, i) != '{' || !f->keep[i] || close == NONE || close > ln->last || laid_out(f, i))
                continue;
            f->expand[i] = true;
            again = true;
            i = close;
        }
    }
    return again;
}

/* The output: indentation, code, aligned trailing comments. */
static void emit(fmt *f, char **out, size_t *out_len)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int align = 0;
    for (size_t l = 0; l < f->nlines && !f->oom; l++) {
        const fmt_line *ln = &f->lines[l];
        if (ln->comment != NONE && (l == 0 || f->lines[l - 1].comment == NONE || ln->blank_before)) {
            align = 0; /* a run of lines with trailing comments starts */
            for (size_t m = l; m < f->nlines && f->lines[m].comment != NONE && (m == l || !f->lines[m].blank_before);
                 m++)
                if (f->lines[m].indent + f->lines[m].cols > align)
                    align = f->lines[m].indent + f->lines[m].cols;
            align += COMMENT_GAP;
        }
        size_t clen = ln->comment != NONE ? comment_len(f, ln->comment) : 0;
        size_t need = len + 1 + (size_t)ln->indent + ln->len + (size_t)align + clen + 2;
        char *grown = mem_grow(buf, 1, &cap, need);
        if (!grown) {
            f->oom = true;
            break;
        }
        buf = grown;
        if (ln->blank_before)
            buf[len++] = '\n';
        memset(buf + len, ' ', (size_t)ln->indent);
        len += (size_t)ln->indent;
        memcpy(buf + len, f->text + ln->at, ln->len);
        len += ln->len;
        if (ln->comment != NONE) {
            int pad = align - ln->indent - ln->cols;
            memset(buf + len, ' ', (size_t)pad);
            len += (size_t)pad;
            memcpy(buf + len, f->src->text + f->it[ln->comment].start, clen);
            len += clen;
        }
        buf[len++] = '\n';
    }
    if (f->oom || !buf) {
        if (buf)
            mem_free(buf, cap);
        buf = f->oom ? NULL : mem_alloc(1);
        len = 0;
        if (!buf) {
            f->oom = true;
            return;
        }
        cap = 1;
    }
    /* exactly len + 1 bytes, as format_free expects */
    char *exact = mem_realloc(buf, cap, len + 1);
    if (!exact) {
        mem_free(buf, cap);
        f->oom = true;
        return;
    }
    exact[len] = '\0';
    *out = exact;
    *out_len = len;
}

static void fmt_free(fmt *f)
{
    size_t n = (size_t)f->n + 1;
    if (f->keep)
        mem_free(f->keep, n * sizeof *f->keep);
    if (f->partner)
        mem_free(f->partner, n * sizeof *f->partner);
    if (f->multi)
        mem_free(f->multi, n * sizeof *f->multi);
    if (f->expand)
        mem_free(f->expand, n * sizeof *f->expand);
    if (f->brk)
        mem_free(f->brk, n * sizeof *f->brk);
    if (f->stack)
        mem_free(f->stack, n * sizeof *f->stack);
    if (f->lines)
        mem_free(f->lines, f->lines_cap * sizeof *f->lines);
    if (f->text)
        mem_free(f->text, f->text_cap);
}

static bool lay_out(const source *src, fmt_scan *sc, char **out, size_t *out_len)
{
    fmt f = {.src = src, .it = sc->items, .n = (int)sc->n};
    size_t n = sc->n + 1;
    f.keep = MEM_NEW_ARRAY(bool, n);
    f.partner = MEM_NEW_ARRAY(int, n);
    f.multi = MEM_NEW_ARRAY(bool, n);
    f.expand = MEM_NEW_ARRAY(bool, n);
    f.brk = MEM_NEW_ARRAY(int, n);
    f.stack = MEM_NEW_ARRAY(int, n);
    f.oom = !f.keep || !f.partner || !f.multi || !f.expand || !f.brk || !f.stack;
    if (!f.oom) {
        match_brackets(&f);
        drop_empty_semis(&f);
        /* each round lays out more of the blocks that are too long for a line */
        do {
            plan_breaks(&f);
            drop_line_end_semis(&f);
            plan_breaks(&f);
        } while (render(&f) && !f.oom);
        emit(&f, out, out_len);
    }
    bool ok = !f.oom;
    fmt_free(&f);
    return ok;
}

/* Syntax errors are reported as the compiler reports them. */
static format_status parse_check(const source *src, const compile_options *opts, diag_sink *sink)
{
    ast_arena *ar = compile_arena(opts);
    if (!ar)
        return FORMAT_NOMEM;
    int before = sink->errors;
    /* a count of a period a module declares is one quantity */
    program *known = compile_modules_of(src, opts);
    node *root = parse_program_in(src, 0, ar, sink, known);
    if (known)
        program_free(known);
    ast_arena_free(ar);
    if (sink->errors > before)
        return FORMAT_SYNTAX;
    return root ? FORMAT_OK : FORMAT_NOMEM;
}

/* Scans src quietly; an error here means the text does not scan clean. */
static format_status scan_quiet(const source *src, const compile_options *opts, fmt_scan *sc)
{
    diag_sink quiet = {0};
    if (!fmt_scan_source(src, opts, &quiet, sc))
        return FORMAT_NOMEM;
    if (quiet.errors) {
        fmt_scan_free(sc);
        return FORMAT_UNSAFE;
    }
    return FORMAT_OK;
}

/* The layout scans back to the stream it came from. */
static format_status verify(const source *src, const compile_options *opts, const fmt_scan *sc, const char *text,
                            size_t len)
{
    source *again = source_new(src->name, text, len);
    if (!again)
        return FORMAT_NOMEM;
    fmt_scan sc2;
    format_status st = scan_quiet(again, opts, &sc2);
    source_free(again);
    if (st != FORMAT_OK)
        return st;
    bool same = sc->stream_len == sc2.stream_len && memcmp(sc->stream, sc2.stream, sc->stream_len) == 0;
    fmt_scan_free(&sc2);
    return same ? FORMAT_OK : FORMAT_UNSAFE;
}

/* The layout, or only the tokens (what format_tokens gives). */
static format_status format_as(const source *src, const compile_options *opts, diag_sink *sink, bool tokens, char **out,
                               size_t *out_len)
{
    format_status st = parse_check(src, opts, sink);
    fmt_scan sc;
    if (st == FORMAT_OK)
        st = scan_quiet(src, opts, &sc);
    if (st != FORMAT_OK)
        return st;
    if (tokens) {
        *out = mem_strndup(sc.stream, sc.stream_len);
        *out_len = sc.stream_len;
        st = *out ? FORMAT_OK : FORMAT_NOMEM;
    } else if (!lay_out(src, &sc, out, out_len)) {
        st = FORMAT_NOMEM;
    } else {
        st = verify(src, opts, &sc, *out, *out_len);
    }
    fmt_scan_free(&sc);
    return st;
}

/* All formatting takes at most the memory a compile may (--limit memory). */
static format_status format_within(const source *src, const compile_options *opts, diag_sink *sink, bool tokens,
                                   char **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    size_t budget = opts && opts->max_memory ? opts->max_memory : MEM_DEFAULT_BUDGET;
    mem_budget outer = mem_get_budget();
    mem_set_budget(budget);
    mem_ceiling_reached();
    format_status st = format_as(src, opts, sink, tokens, out, out_len);
    if (mem_ceiling_reached()) {
        diag_report(sink, DIAG_ERROR, NULL, (span){0},
                    "memory limit reached (%zu MiB to format %s; see --limit memory=N)", budget >> 20, src->name);
        st = FORMAT_SYNTAX;
    }
    mem_restore_budget(outer);
    if (st != FORMAT_OK && *out) {
        format_free(*out, *out_len);
        *out = NULL;
        *out_len = 0;
    }
    return st;
}

format_status format_source(const source *src, const compile_options *opts, diag_sink *sink, char **out,
                            size_t *out_len)
{
    return format_within(src, opts, sink, false, out, out_len);
}

format_status format_tokens(const source *src, const compile_options *opts, diag_sink *sink, char **out,
                            size_t *out_len)
{
    return format_within(src, opts, sink, true, out, out_len);
}

void format_free(char *text, size_t len)
{
    if (text)
        mem_free(text, len + 1);
}
