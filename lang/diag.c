#include "lang/diag.h"

#include <stdint.h>
#include <string.h>

#include "runtime/base/text.h"

/* The most columns of a source line a diagnostic shows. */
#define DIAG_LINE_CHARS 160

void diag_vreport(diag_sink *sink, diag_level level, const source *src, span where, const char *fmt, va_list ap)
{
    if (level == DIAG_ERROR)
        sink->errors++;
    else if (level == DIAG_WARNING)
        sink->warnings++;
    int counted = sink->errors - sink->counted_from;
    if (sink->max_errors && counted > sink->max_errors) {
        if (level == DIAG_ERROR && counted == sink->max_errors + 1 && sink->fn) {
            char msg[96];
            snprintf(msg, sizeof msg, "too many errors (limit is %d); not reporting the rest", sink->max_errors);
            diag d = {DIAG_ERROR, NULL, where, msg};
            sink->fn(sink->user, &d);
        }
        return;
    }
    text_buf msg;
    text_init(&msg);
    text_addv(&msg, fmt, ap);
    diag d = {level, src, where, msg.s};
    if (sink->fn)
        sink->fn(sink->user, &d);
    text_free(&msg);
}

void diag_report(diag_sink *sink, diag_level level, const source *src, span where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(sink, level, src, where, fmt, ap);
    va_end(ap);
}

static const char *level_name(diag_level l)
{
    return l == DIAG_ERROR ? "error" : l == DIAG_WARNING ? "warning" : "note";
}

static const char *level_color(diag_level l)
{
    return l == DIAG_ERROR ? "\033[1;31m" : l == DIAG_WARNING ? "\033[1;35m" : "\033[1;36m";
}

/* A source line as a diagnostic shows it: tabs and control bytes made
 * visible as single columns, and each invalid UTF-8 byte as one '?', so
 * that the caret lines up in any terminal. */
typedef struct shown_line {
    const char *text;
    size_t len;
    uint32_t start; /* the line's offset in its source */
    span where;
    size_t chars, caret_from, caret_len; /* in columns, set by show_line */
} shown_line;

/* Walks l, writing the columns from `from` up to `to` to out (NULL: none),
 * and counts its columns and where the caret goes. */
static void show_line(FILE *out, shown_line *l, size_t from, size_t to)
{
    size_t chars = 0, caret_from = 0, caret_len = 0;
    size_t valid_until = 0; /* bytes before this index belong to checked UTF-8 sequences */
    for (size_t i = 0; i < l->len; i++) {
        unsigned char c = (unsigned char)l->text[i];
        bool lead = (c & 0xC0) != 0x80;
        uint32_t at = l->start + (uint32_t)i;
        if (c >= 0x80 && i >= valid_until) {
            int need = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xc2 && c <= 0xdf ? 1 : -1;
            bool ok = need > 0;
            for (int k = 1; ok && k <= need; k++)
                ok = i + (size_t)k < l->len && ((unsigned char)l->text[i + k] & 0xC0) == 0x80;
            if (ok) {
                valid_until = i + (size_t)need + 1;
            } else {
                if (at == l->where.start)
                    caret_from = chars;
                if (at >= l->where.start && at < l->where.end)
                    caret_len++;
                if (out && chars >= from && chars < to)
                    fputc('?', out);
                chars++;
                continue;
            }
        }
        if (at == l->where.start)
            caret_from = chars;
        if (lead && at >= l->where.start && at < l->where.end)
            caret_len++;
        size_t column = lead ? chars : chars - 1; /* a continuation byte goes with its lead */
        if (out && column >= from && column < to)
            fputc(c == '\t' ? ' ' : c < 0x20 || c == 0x7f ? '?' : c, out);
        if (lead)
            chars++;
    }
    if (l->where.start >= l->start + l->len)
        caret_from = chars;
    l->chars = chars;
    l->caret_from = caret_from;
    l->caret_len = caret_len;
}

void diag_print(FILE *out, const diag *d, bool color)
{
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
    const char *lc = color ? level_color(d->level) : "";
    if (!d->src) {
        fprintf(out, "%sfray:%s %s%s:%s %s\n", bold, reset, lc, level_name(d->level), reset, d->message);
        return;
    }
    int line, col;
    source_line_col(d->src, d->where.start, &line, &col);
    fprintf(out, "%s%s:%d:%d:%s %s%s:%s %s\n", bold, d->src->name, line, col, reset, lc, level_name(d->level), reset,
            d->message);
    if (d->src->not_text)
        return;
    size_t len;
    const char *text = source_line(d->src, line, &len);
    fprintf(out, "%5d | ", line);
    shown_line l = {.text = text, .len = len, .start = (uint32_t)(text - d->src->text), .where = d->where};
    show_line(NULL, &l, 0, SIZE_MAX); /* measured first */
    /* A line longer than DIAG_LINE_CHARS shows the part around the caret,
       with "..." where it is cut: a 30,000-character line helps no one. */
    size_t from = 0, to = l.chars;
    if (l.chars > DIAG_LINE_CHARS) {
        from = l.caret_from > DIAG_LINE_CHARS / 3 ? l.caret_from - DIAG_LINE_CHARS / 3 : 0;
        if (from + DIAG_LINE_CHARS > l.chars)
            from = l.chars > DIAG_LINE_CHARS ? l.chars - DIAG_LINE_CHARS : 0;
        to = from + DIAG_LINE_CHARS;
    }
    size_t caret_from = l.caret_from, caret_len = l.caret_len;
    if (from > 0)
        fputs("...", out);
    show_line(out, &l, from, to);
    if (to < l.chars)
        fputs("...", out);
    fputc('\n', out);
    caret_from = caret_from - from + (from > 0 ? 3 : 0);
    if (l.caret_from + caret_len > to) /* the underline ends where the line shown does */
        caret_len = to > l.caret_from ? to - l.caret_from : 1;
    fprintf(out, "      | %*s%s^", (int)caret_from, "", lc);
    for (size_t i = 1; i < caret_len; i++)
        fputc('~', out);
    fprintf(out, "%s\n", reset);
}

void diag_print_fn(void *user, const diag *d)
{
    diag_print((FILE *)user, d, false);
}

int diag_edit_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return cap + 1;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int prev = row[0];
        row[0] = (int)i;
        int best = row[0];
        for (size_t j = 1; j <= lb; j++) {
            int cur = row[j];
            int sub = prev + (a[i - 1] != b[j - 1]);
            int del = row[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (row[j] < best)
                best = row[j];
            prev = cur;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb];
}
