#include "lang/diag.h"

#include <string.h>

void diag_vreport(diag_sink *sink, diag_level level, const source *src, span where, const char *fmt, va_list ap)
{
    if (level == DIAG_ERROR)
        sink->errors++;
    else if (level == DIAG_WARNING)
        sink->warnings++;
    if (sink->max_errors && sink->errors > sink->max_errors) {
        if (level == DIAG_ERROR && sink->errors == sink->max_errors + 1 && sink->fn) {
            char msg[96];
            snprintf(msg, sizeof msg, "too many errors (limit is %d); not reporting the rest", sink->max_errors);
            diag d = {DIAG_ERROR, NULL, where, msg};
            sink->fn(sink->user, &d);
        }
        return;
    }
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    diag d = {level, src, where, msg};
    if (sink->fn)
        sink->fn(sink->user, &d);
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
    /* Show the line with tabs and control bytes made visible as single
     * columns, so the caret lines up in any terminal. */
    fprintf(out, "%5d | ", line);
    size_t caret_from = 0, caret_len = 0, chars = 0;
    uint32_t line_start = (uint32_t)(text - d->src->text);
    size_t valid_until = 0; /* bytes before this index belong to checked UTF-8 sequences */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        bool lead = (c & 0xC0) != 0x80;
        if (c >= 0x80 && i >= valid_until) {
            int need = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xc2 && c <= 0xdf ? 1 : -1;
            bool ok = need > 0;
            for (int k = 1; ok && k <= need; k++)
                ok = i + (size_t)k < len && ((unsigned char)text[i + k] & 0xC0) == 0x80;
            if (ok) {
                valid_until = i + (size_t)need + 1;
            } else {
                /* an invalid byte shows as one '?' column */
                if (line_start + i == d->where.start)
                    caret_from = chars;
                if (line_start + i >= d->where.start && line_start + i < d->where.end)
                    caret_len++;
                fputc('?', out);
                chars++;
                continue;
            }
        }
        if (line_start + i == d->where.start)
            caret_from = chars;
        if (lead && line_start + i >= d->where.start && line_start + i < d->where.end)
            caret_len++;
        if (c == '\t' || (c < 0x20) || c == 0x7f)
            fputc(c == '\t' ? ' ' : '?', out);
        else
            fputc(c, out);
        if (lead)
            chars++;
    }
    if (d->where.start >= line_start + len)
        caret_from = chars;
    fputc('\n', out);
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
