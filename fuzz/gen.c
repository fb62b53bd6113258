/* fuzz/gen: writes deep and wide inputs, and a dictionary, for the fuzz
 * harnesses: long chains of every binary operator, deep nesting of every
 * bracket, unary operator, postfix and block, long lists, many creatures,
 * deep and self-sharing lists printed, at sizes near and past the limits.
 *
 *     gen PARSER_Y OUTDIR [small|full]
 *
 * The operators, their associativity and the keywords come from the
 * grammar itself (lang/parser.y: its %token aliases, its precedence
 * declarations and the alternatives of expr, postfix, primary, stmt and
 * else_opt), and the dictionary's words from libfray's vocabulary
 * (fray_vocabulary, fray_limits), so the inputs follow the language as it
 * is: a form the grammar no longer has is an error here, not a corpus of
 * text that no longer parses. Writes OUTDIR/rules/NAME.rules (for the
 * compile and check harnesses), OUTDIR/repl/NAME (the REPL harness: a byte
 * that picks the system, then lines) and OUTDIR/fuzz.dict. `small` writes
 * the same forms at small sizes (make check runs them all). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fray.h"
#include "fuzz/fuzz.h"

/* --- text that grows --------------------------------------------------------- */

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->n + n + 1 > cap)
            cap *= 2;
        char *g = realloc(b->s, cap);
        if (!g)
            die("out of memory");
        b->s = g;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void puts_(buf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void printf_(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(buf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof small)
        die("a line too long for printf_");
    put(b, small, (size_t)n);
}

static void repeat(buf *b, const char *s, long n)
{
    for (long i = 0; i < n; i++)
        puts_(b, s);
}

/* --- the grammar --------------------------------------------------------------- */

/* A grammar symbol: 'c', "alias" or NAME, as written in parser.y. */
#define MAX_SYMS 12
typedef struct alt {
    char sym[MAX_SYMS][40];
    int n;
} alt;

typedef struct token {
    char name[40], alias[40];
    char assoc[16]; /* "left", "right", "nonassoc", "precedence" or "" */
} token;

static token tokens[256];
static int ntokens;
static char *grammar; /* the rules section, between the %% lines */

static token *token_named(const char *name)
{
    for (int i = 0; i < ntokens; i++)
        if (!strcmp(tokens[i].name, name))
            return &tokens[i];
    return NULL;
}

static token *add_token(const char *name)
{
    token *t = token_named(name);
    if (t)
        return t;
    if (ntokens == (int)(sizeof tokens / sizeof tokens[0]))
        die("too many tokens in the grammar");
    t = &tokens[ntokens++];
    snprintf(t->name, sizeof t->name, "%s", name);
    return t;
}

/* The next symbol of s in out (a word, 'c' or "alias"); the rest, or NULL. */
static const char *next_symbol(const char *s, char *out, size_t cap)
{
    while (*s == ' ' || *s == '\t')
        s++;
    const char *start = s;
    if (*s == '\'' || *s == '"') {
        char q = *s++;
        while (*s && *s != q && *s != '\n')
            s += *s == '\\' && s[1] ? 2 : 1;
        if (*s != q)
            return NULL;
        s++;
    } else if (*s == '<') { /* a type tag: <n> */
        while (*s && *s != '>')
            s++;
        if (*s)
            s++;
    } else {
        while (*s == '_' || *s == '%' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
               (*s >= '0' && *s <= '9'))
            s++;
    }
    if (s == start || (size_t)(s - start) >= cap)
        return NULL;
    memcpy(out, start, (size_t)(s - start));
    out[s - start] = '\0';
    return s;
}

static void read_declarations(const char *text)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (!strncmp(line, "%%", 2))
            break;
        char word[40];
        const char *s = next_symbol(line, word, sizeof word);
        if (!s || word[0] != '%')
            continue;
        bool is_token = !strcmp(word, "%token");
        const char *assoc = !strcmp(word, "%left")         ? "left"
                            : !strcmp(word, "%right")      ? "right"
                            : !strcmp(word, "%nonassoc")   ? "nonassoc"
                            : !strcmp(word, "%precedence") ? "precedence"
                                                           : NULL;
        if (!is_token && !assoc)
            continue;
        token *last = NULL;
        char sym[40];
        while ((s = next_symbol(s, sym, sizeof sym)) != NULL) {
            if (sym[0] == '<')
                continue;
            if (sym[0] == '"' && last) { /* NAME "alias" */
                snprintf(last->alias, sizeof last->alias, "%.*s", (int)strlen(sym) - 2, sym + 1);
                continue;
            }
            last = add_token(sym);
            if (assoc)
                snprintf(last->assoc, sizeof last->assoc, "%s", assoc);
        }
    }
}

/* The alternatives of rule `name` (up to max). */
static int rule_alternatives(const char *name, alt *out, int max)
{
    char head[64];
    snprintf(head, sizeof head, "\n%s:", name);
    const char *at = strstr(grammar, head);
    if (!at)
        die("the grammar has no rule '%s'", name);
    at += strlen(head);
    while (*at == ' ' || *at == '\t' || *at == '\n')
        at++;
    int n = 0;
    for (;;) {
        /* one alternative: up to its action, %prec, or the end of the line */
        alt a = {0};
        const char *s = at;
        char sym[40];
        while ((s = next_symbol(s, sym, sizeof sym)) != NULL && strcmp(sym, "%prec") && a.n < MAX_SYMS)
            snprintf(a.sym[a.n++], sizeof a.sym[0], "%s", sym);
        if (n < max)
            out[n++] = a;
        const char *nl = strchr(at, '\n');
        if (!nl)
            break;
        const char *next = nl + 1;
        while (*next == ' ' || *next == '\t')
            next++;
        if (*next == ';' || *next == '\0')
            break;
        if (*next != '|') { /* an action that goes on over lines */
            at = next;
            while (*at && *at != '|' && *at != ';') {
                const char *l = strchr(at, '\n');
                if (!l)
                    break;
                at = l + 1;
                while (*at == ' ' || *at == '\t')
                    at++;
            }
            if (*at != '|')
                break;
            at++;
            continue;
        }
        at = next + 1;
    }
    return n;
}

/* How a symbol is written in Fray. */
static const char *spell(const char *sym)
{
    static char out[8][40];
    static int turn;
    char *o = out[turn++ % 8];
    size_t n = strlen(sym);
    if ((sym[0] == '\'' || sym[0] == '"') && n >= 2) {
        snprintf(o, sizeof out[0], "%.*s", (int)n - 2, sym + 1);
        return o;
    }
    const token *t = token_named(sym);
    if (!t || !t->alias[0])
        die("the grammar gives no spelling for %s", sym);
    return t->alias;
}

static const char *assoc_of(const char *sym)
{
    const token *t = token_named(sym); /* NAME, or a character literal: %left '+' */
    if (sym[0] == '"')                 /* "==": the token whose alias it is */
        for (int i = 0; i < ntokens && !t; i++)
            if (strlen(sym) == strlen(tokens[i].alias) + 2 &&
                !strncmp(sym + 1, tokens[i].alias, strlen(tokens[i].alias)))
                t = &tokens[i];
    return t ? t->assoc : "";
}

static bool alt_is(const alt *a, int n, ...)
{
    if (a->n != n)
        return false;
    va_list ap;
    va_start(ap, n);
    bool same = true;
    for (int i = 0; i < n; i++) {
        const char *want = va_arg(ap, const char *);
        if (want && strcmp(a->sym[i], want))
            same = false;
    }
    va_end(ap);
    return same;
}

/* The alternative of rule `name` with these symbols (NULL matches any). */
static const alt *find_alt(const alt *alts, int n, int len, const char *s0, const char *s1, const char *s2,
                           const char *s3, const char *s4)
{
    for (int i = 0; i < n; i++)
        if (alt_is(&alts[i], len, s0, s1, s2, s3, s4))
            return &alts[i];
    return NULL;
}

static char *read_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        die("cannot read %s: %s", path, strerror(errno));
    buf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, in)) > 0)
        put(&b, chunk, got);
    fclose(in);
    return b.s;
}

/* --- checking a form with libfray -------------------------------------------- */

/* Whether text runs without an error. */
static bool runs(const char *text)
{
    fray *f = fray_open(&(fray_options){.seed = 1});
    if (!f)
        die("out of memory");
    fray_on_output(f, fuzz_quiet_output, NULL);
    fray_on_diagnostic(f, fuzz_quiet_diagnostic, NULL);
    bool ok = fray_run_string(f, "gen", text, strlen(text)) == FRAY_OK;
    fray_close(f);
    return ok;
}

/* The first operand X with which the operator nests three deep and runs
   (`print (X OP X) OP X`, `print X OP (X OP X)`, `print OP OP X`), so that
   its deep forms compile whole where the operator allows it at all. */
static const char *operand_for(const char *infix, const char *prefix)
{
    static const char *const candidates[] = {"1", "true", "d6", "1 ft"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        const char *x = candidates[i];
        buf t = {0};
        if (infix)
            printf_(&t, "print (%s %s %s) %s %s\nprint %s %s (%s %s %s)\n", x, infix, x, infix, x, x, infix, x, infix,
                    x);
        else
            printf_(&t, "print %s %s %s\n", prefix, prefix, x);
        bool ok = runs(t.s);
        free(t.s);
        if (ok)
            return candidates[i];
    }
    return "1";
}

/* --- the cases ----------------------------------------------------------------- */

static const char *outdir;
static int ncases;

static void write_file(const char *dir, const char *name, const char *prefix, size_t plen, const buf *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", outdir, dir, name);
    FILE *out = fopen(path, "wb");
    if (!out)
        die("cannot write %s: %s", path, strerror(errno));
    fwrite(prefix, 1, plen, out);
    fwrite(text->s, 1, text->n, out);
    if (fclose(out) != 0)
        die("cannot write %s: %s", path, strerror(errno));
}

/* A case: as a rules file, and as REPL lines with no system (byte 5). */
static void emit_case(const char *fmt_name, long size, buf *text)
{
    char name[256];
    snprintf(name, sizeof name, fmt_name, size);
    for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
            *c = '_';
    char file[300];
    snprintf(file, sizeof file, "%s.rules", name);
    write_file("rules", file, "", 0, text);
    write_file("repl", name, "\5", 1, text);
    ncases++;
    free(text->s);
    *text = (buf){0};
}

/* Operator spellings made into file names: "==" is "eq"... */
static const char *op_name(const char *op)
{
    static const struct {
        const char *op, *name;
    } names[] = {{"==", "eq"},   {"!=", "ne"},    {"<", "lt"},    {"<=", "le"},    {">", "gt"},  {">=", "ge"},
                 {"..", "span"}, {"+", "plus"},   {"-", "minus"}, {"*", "times"},  {"/", "div"}, {"//", "idiv"},
                 {"?", "cond"},  {".", "member"}, {"(", "paren"}, {"[", "bracket"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i].op, op))
            return names[i].name;
    return op;
}

typedef struct sizes {
    long depths[8];
    int ndepths;
    long chains[8];
    int nchains;
    long wide, wide_loop, deep_loop, shared_loop, creatures, creatures_past;
} sizes;

static void binary_cases(const sizes *z, const alt *expr, int nexpr)
{
    int found = 0;
    for (int i = 0; i < nexpr; i++) {
        const alt *a = &expr[i];
        if (!alt_is(a, 3, "expr", NULL, "expr"))
            continue;
        found++;
        const char *op = spell(a->sym[1]);
        const char *x = operand_for(op, NULL);
        const char *name = op_name(op);
        char fmt[128];
        buf t = {0};
        if (!strcmp(assoc_of(a->sym[1]), "left"))
            for (int k = 0; k < z->nchains; k++) { /* left-deep, as the grammar makes it */
                printf_(&t, "print %s", x);
                for (long j = 1; j < z->chains[k]; j++)
                    printf_(&t, " %s %s", op, x);
                puts_(&t, "\n");
                snprintf(fmt, sizeof fmt, "chain-%s-%%ld", name);
                emit_case(fmt, z->chains[k], &t);
            }
        for (int k = 0; k < z->ndepths; k++) {
            long n = z->depths[k];
            puts_(&t, "print ");
            repeat(&t, "(", n);
            puts_(&t, x);
            for (long j = 0; j < n; j++)
                printf_(&t, " %s %s)", op, x);
            puts_(&t, "\n");
            snprintf(fmt, sizeof fmt, "left-%s-%%ld", name);
            emit_case(fmt, n, &t);
            puts_(&t, "print ");
            for (long j = 0; j < n; j++)
                printf_(&t, "%s %s (", x, op);
            puts_(&t, x);
            repeat(&t, ")", n);
            puts_(&t, "\n");
            snprintf(fmt, sizeof fmt, "right-%s-%%ld", name);
            emit_case(fmt, n, &t);
        }
    }
    if (found < 10)
        die("the grammar's expr has %d binary operators: has its form changed?", found);
}

static void ternary_cases(const sizes *z, const alt *expr, int nexpr)
{
    const alt *a = find_alt(expr, nexpr, 5, "expr", NULL, "expr", NULL, "expr");
    if (!a)
        die("the grammar's expr has no conditional (expr '?' expr ':' expr)");
    const char *q = spell(a->sym[1]), *colon = spell(a->sym[3]);
    const char *yes = spell("TRUE_");
    buf t = {0};
    for (int k = 0; k < z->nchains; k++) {
        puts_(&t, "print ");
        for (long j = 0; j < z->chains[k]; j++)
            printf_(&t, "%s %s 1 %s ", yes, q, colon);
        puts_(&t, "1\n");
        emit_case("chain-cond-%ld", z->chains[k], &t);
    }
}

static void unary_cases(const sizes *z, const alt *expr, int nexpr)
{
    int found = 0;
    for (int i = 0; i < nexpr; i++) {
        const alt *a = &expr[i];
        if (!alt_is(a, 2, NULL, "expr"))
            continue;
        found++;
        const char *op = spell(a->sym[0]);
        const char *x = operand_for(NULL, op);
        char fmt[128];
        snprintf(fmt, sizeof fmt, "unary-%s-%%ld", op_name(op));
        buf t = {0};
        for (int k = 0; k < z->ndepths; k++) {
            puts_(&t, "print ");
            for (long j = 0; j < z->depths[k]; j++)
                printf_(&t, "%s ", op);
            printf_(&t, "%s\n", x);
            emit_case(fmt, z->depths[k], &t);
        }
    }
    if (found < 3)
        die("the grammar's expr has %d prefix operators: has its form changed?", found);
}

static void postfix_cases(const sizes *z)
{
    alt post[8];
    int n = rule_alternatives("postfix", post, 8);
    const alt *member = find_alt(post, n, 3, "postfix", NULL, "name", NULL, NULL);
    const alt *index = find_alt(post, n, 4, "postfix", NULL, "expr", NULL, NULL);
    if (!member || !index)
        die("the grammar's postfix has no member or index");
    const char *dot = spell(member->sym[1]), *close = spell(index->sym[3]);
    const char *let = spell("LET");
    buf t = {0};
    for (int k = 0; k < z->ndepths; k++) {
        long d = z->depths[k];
        /* a stat that holds its creature: c.me.me.me ... */
        printf_(&t, "stat me: creature = nothing\ncreature c {}\nc.me = c\nprint c");
        for (long j = 0; j < d; j++)
            printf_(&t, "%sme", dot);
        puts_(&t, "\n");
        emit_case("postfix-member-%ld", d, &t);
        /* a list as deep as it is indexed */
        printf_(&t, "%s l = ", let);
        repeat(&t, "[", d);
        puts_(&t, "1");
        repeat(&t, close, d);
        puts_(&t, "\nprint l");
        for (long j = 0; j < d; j++)
            printf_(&t, "[0%s", close);
        puts_(&t, "\n");
        emit_case("postfix-index-%ld", d, &t);
    }
}

static void bracket_cases(const sizes *z)
{
    alt prim[16];
    int n = rule_alternatives("primary", prim, 16);
    const alt *paren = find_alt(prim, n, 3, NULL, "expr", NULL, NULL, NULL);
    const alt *list = find_alt(prim, n, 3, NULL, "exprs", NULL, NULL, NULL);
    const alt *call = find_alt(prim, n, 4, "CALLNAME", NULL, "exprs", NULL, NULL);
    if (!paren || !list || !call)
        die("the grammar's primary has no parentheses, list or call");
    const char *forms[3][2] = {{spell(paren->sym[0]), spell(paren->sym[2])},
                               {spell(list->sym[0]), spell(list->sym[2])},
                               {spell(call->sym[1]), spell(call->sym[3])}};
    const char *names[3] = {"nest-paren-%ld", "nest-list-%ld", "nest-call-%ld"};
    buf t = {0};
    for (int k = 0; k < z->ndepths; k++)
        for (int f = 0; f < 3; f++) {
            if (f == 2)
                printf_(&t, "%s f(x) { %s x }\n", spell("PROCEDURE"), spell("RETURN"));
            puts_(&t, "print ");
            for (long j = 0; j < z->depths[k]; j++)
                printf_(&t, "%s%s", f == 2 ? "f" : "", forms[f][0]);
            puts_(&t, "1");
            repeat(&t, forms[f][1], z->depths[k]);
            puts_(&t, "\n");
            emit_case(names[f], z->depths[k], &t);
        }
}

static void block_cases(const sizes *z)
{
    alt stmt[24], els[4];
    int n = rule_alternatives("stmt", stmt, 24);
    int ne = rule_alternatives("else_opt", els, 4);
    if (!find_alt(stmt, n, 4, "IF", "expr", "block", "else_opt", NULL) ||
        !find_alt(stmt, n, 5, "FOR", "name", "IN", "expr", "block") ||
        !find_alt(stmt, n, 3, "REPEAT", "expr", "block", NULL, NULL) ||
        !find_alt(els, ne, 5, "ELSE", "IF", "expr", "block", "else_opt"))
        die("the grammar's statements have no if, for, repeat or else if");
    const char *yes = spell("TRUE_"), *no = spell("FALSE_"), *print = spell("PRINT");
    char if_[64], for_[64], repeat_[64], else_if[64], else_[64];
    snprintf(if_, sizeof if_, "%s %s { ", spell("IF"), yes);
    snprintf(for_, sizeof for_, "%s i %s [1] { ", spell("FOR"), spell("IN"));
    snprintf(repeat_, sizeof repeat_, "%s 1 { ", spell("REPEAT"));
    snprintf(else_if, sizeof else_if, " %s %s %s { }", spell("ELSE"), spell("IF"), no);
    snprintf(else_, sizeof else_, " %s { %s 1 }\n", spell("ELSE"), print);
    const char *opens[3] = {if_, for_, repeat_};
    const char *names[3] = {"block-if-%ld", "block-for-%ld", "block-repeat-%ld"};
    buf t = {0};
    for (int k = 0; k < z->ndepths; k++) {
        long d = z->depths[k];
        for (int b = 0; b < 3; b++) {
            repeat(&t, opens[b], d);
            printf_(&t, "%s 1", print);
            repeat(&t, " }", d);
            puts_(&t, "\n");
            emit_case(names[b], d, &t);
        }
        printf_(&t, "%s %s { }", spell("IF"), no);
        repeat(&t, else_if, d);
        puts_(&t, else_);
        emit_case("block-else-if-%ld", d, &t);
        /* clauses in clauses, and systems in systems: the grammar takes them */
        printf_(&t, "%s c { ", spell("CONDITION"));
        repeat(&t, "lasts { ", d);
        repeat(&t, "} ", d);
        puts_(&t, "}\n");
        emit_case("block-clause-%ld", d, &t);
        repeat(&t, "system s { ", d);
        repeat(&t, "} ", d);
        puts_(&t, "\n");
        emit_case("block-system-%ld", d, &t);
    }
}

static void wide_cases(const sizes *z, long string_bytes)
{
    buf t = {0};
    const char *print = spell("PRINT"), *let = spell("LET");
    printf_(&t, "%s l = [1", let);
    repeat(&t, ", 1", z->wide - 1);
    printf_(&t, "]\n%s len(l), sum(l), max(l), count(l, 1)\n", print);
    emit_case("wide-list-%ld", z->wide, &t);
    printf_(&t, "%s max(1", print);
    repeat(&t, ", 1", z->wide - 1);
    puts_(&t, ")\n");
    emit_case("wide-args-%ld", z->wide, &t);
    printf_(&t, "%s 1", print);
    repeat(&t, ", 1", z->wide - 1);
    puts_(&t, "\n");
    emit_case("wide-print-%ld", z->wide, &t);
    printf_(&t, "%s x = 0\n", let);
    repeat(&t, "x += 1\n", z->wide);
    printf_(&t, "%s x\n", print);
    emit_case("wide-statements-%ld", z->wide, &t);
    /* a string at the limit and one byte past it */
    for (long n = string_bytes; n <= string_bytes + 1; n++) {
        printf_(&t, "%s \"", print);
        repeat(&t, "a", n);
        puts_(&t, "\"\n");
        emit_case("wide-string-%ld", n, &t);
    }
}

/* Lists built by loops: as deep as the loop goes, and sharing themselves
   (2^n items, each printed). */
static void loop_cases(const sizes *z)
{
    buf t = {0};
    const char *print = spell("PRINT"), *let = spell("LET"), *rep = spell("REPEAT");
    printf_(&t, "%s l = []\n%s %ld { l = [l] }\n", let, rep, z->deep_loop);
    printf_(&t, "%s len(l)\n%s l\n%s sum(l)\n%s max(l)\n%s l == l\n%s count([l], l)\n", print, print, print, print,
            print, print);
    emit_case("loop-deep-list-%ld", z->deep_loop, &t);
    printf_(&t, "%s l = [1]\n%s %ld { l = [l, l] }\n%s len(l)\n%s l\n", let, rep, z->shared_loop, print, print);
    emit_case("loop-shared-list-%ld", z->shared_loop, &t);
    printf_(&t, "%s l = [1]\n%s %ld { l = [l, l] }\n%s l == l\n%s sum(l)\n", let, rep, z->shared_loop, print, print);
    emit_case("loop-shared-equal-%ld", z->shared_loop, &t);
    printf_(&t, "%s l = []\n%s %ld { l = l + [1] }\n%s len(l), sum(l)\n", let, rep, z->wide_loop, print);
    emit_case("loop-wide-list-%ld", z->wide_loop, &t);
}

/* Many creatures on two sides, and the lists of them, with no system and
   under each of the five (the REPL's first byte picks one). */
static void creature_text(buf *t, long per_side)
{
    const char *print = spell("PRINT");
    printf_(t, "tactic idle { %s 0 }\n", print);
    printf_(t, "creature a x%ld side red tactic idle {}\ncreature b x%ld side blue tactic idle {}\n", per_side,
            per_side);
    printf_(t, "%s len(creatures()), len(enemies(a_1)), len(allies(a_1))\n", print);
    printf_(t, "%s count(creatures(), a_1), sides_standing()\n", print);
}

static void creature_cases(const sizes *z)
{
    long counts[2] = {z->creatures, z->creatures_past};
    const char *names[2] = {"creatures-%ld", "creatures-past-%ld"};
    for (int k = 0; k < 2; k++) {
        buf t = {0};
        creature_text(&t, counts[k]);
        emit_case(names[k], 2 * counts[k], &t);
    }
    /* in play, under each system: an encounter and a fight of idle turns */
    for (int sys = 0; sys < 5; sys++) {
        static const char *const systems[] = {"legend", "lurasko", "escalation", "shock", "fortitude"};
        buf t = {0};
        creature_text(&t, z->creatures);
        puts_(&t, "begin encounter\nroll initiative\nshow order\nfight 1 round\nshow\n");
        char name[64];
        snprintf(name, sizeof name, "creatures-%s-%ld", systems[sys], 2 * z->creatures);
        char sysbyte = (char)sys;
        write_file("repl", name, &sysbyte, 1, &t);
        free(t.s);
        ncases++;
    }
}

/* --- the dictionary -------------------------------------------------------------- */

static FILE *dict;

static void dict_word(const char *w)
{
    if (!w || !*w)
        return;
    fputc('"', dict);
    for (const unsigned char *c = (const unsigned char *)w; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(dict, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f)
            fprintf(dict, "\\x%02x", *c);
        else
            fputc(*c, dict);
    }
    fputs("\"\n", dict);
}

static void dict_vocabulary(void *user, const fray_word *w)
{
    (void)user;
    dict_word(w->word);
}

static long string_limit = 65536, nesting_limit = 1000;

static void note_limit(void *user, const char *name, const char *meaning, uint64_t value)
{
    (void)user;
    (void)meaning;
    if (!strcmp(name, "string-bytes"))
        string_limit = (long)value;
    if (!strcmp(name, "nesting"))
        nesting_limit = (long)value;
    /* a limit named as --limit takes it, for inputs that pass one */
    char word[64];
    snprintf(word, sizeof word, "%s=", name);
    dict_word(word);
}

/* --- main ------------------------------------------------------------------------- */

static void make_dir(const char *sub)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", outdir, sub ? "/" : "", sub ? sub : "");
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot make %s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "small") && strcmp(argv[3], "full"))) {
        fprintf(stderr, "usage: gen PARSER_Y OUTDIR [small|full]\n");
        return 2;
    }
    bool small = argc == 4 && !strcmp(argv[3], "small");
    char *text = read_file(argv[1]);
    read_declarations(text);
    char *rules = strstr(text, "\n%%\n");
    if (!rules)
        die("%s has no rules section", argv[1]);
    grammar = rules + 3;
    char *end = strstr(grammar, "\n%%\n");
    if (end)
        end[1] = '\0';
    outdir = argv[2];
    make_dir(NULL);
    make_dir("rules");
    make_dir("repl");
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz.dict", outdir);
    dict = fopen(path, "w");
    if (!dict)
        die("cannot write %s: %s", path, strerror(errno));
    fprintf(dict, "# Written by fuzz/gen from lang/parser.y and libfray's vocabulary.\n");
    for (int i = 0; i < ntokens; i++)
        dict_word(tokens[i].alias[0] && !strchr(tokens[i].alias, ' ') ? tokens[i].alias : NULL);
    fray_vocabulary(dict_vocabulary, NULL);
    fray_limits(note_limit, NULL);

    /* Sizes: at, under and past the nesting limit and the parser's own
       stack (bison's YYMAXDEPTH, 10000), and the chains that crashed
       (8,500 terms); or small ones that every form must compile at. */
    sizes z;
    if (small)
        z = (sizes){.depths = {3, 40},
                    .ndepths = 2,
                    .chains = {3, 200},
                    .nchains = 2,
                    .wide = 300,
                    .wide_loop = 50,
                    .deep_loop = 50,
                    .shared_loop = 6,
                    .creatures = 20,
                    .creatures_past = 30};
    else
        z = (sizes){.depths = {nesting_limit - 1, nesting_limit, nesting_limit + 1, 3333, 4999, 9999, 10001},
                    .ndepths = 7,
                    .chains = {nesting_limit + 1, 8500, 20000},
                    .nchains = 3,
                    .wide = 20000,
                    .wide_loop = 2000,
                    .deep_loop = 100000,
                    .shared_loop = 60,
                    .creatures = 550,
                    .creatures_past = 50001};
    alt expr[48];
    int nexpr = rule_alternatives("expr", expr, 48);
    binary_cases(&z, expr, nexpr);
    ternary_cases(&z, expr, nexpr);
    unary_cases(&z, expr, nexpr);
    postfix_cases(&z);
    bracket_cases(&z);
    block_cases(&z);
    wide_cases(&z, small ? 100 : string_limit);
    loop_cases(&z);
    creature_cases(&z);
    if (fclose(dict) != 0)
        die("cannot write %s", path);
    printf("gen: %d inputs in %s\n", ncases, outdir);
    free(text);
    return 0;
}
