/* format_scan: a rules file as the formatter sees it: the tokens of the
 * project's own scanner with their byte spans, plus what the scanner skips
 * and the layout needs (comments, and the newlines between things). */
#ifndef FRAY_FORMAT_SCAN_H
#define FRAY_FORMAT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/compile.h"
#include "lang/diag.h"

enum { FMT_COMMENT = -1 };

typedef struct fmt_item {
    int kind;            /* a token of lang/parser.h, or FMT_COMMENT */
    uint32_t start, end; /* its bytes in the source */
    int nl;              /* newlines between the previous item and this one */
    bool vsemi;          /* the scanner ends the item at the newline after this token */
} fmt_item;

typedef struct fmt_scan {
    fmt_item *items; /* tokens and comments in source order; no `;` made of newlines */
    size_t n, cap;
    char *stream; /* the token stream the parser sees, normalized (fmt_stream_append) */
    size_t stream_len, stream_cap;
} fmt_scan;

/* Scans src, to the limits of opts (NULL: the defaults) as the compiler
 * does. Lexical errors go to sink. False only when out of memory. */
bool fmt_scan_source(const source *src, const compile_options *opts, diag_sink *sink, fmt_scan *out);
void fmt_scan_free(fmt_scan *s);

/* Mirrors the scanner's rule: true if a newline after a token of this kind
 * (outside brackets) ends the item. */
bool fmt_ends_item(int kind);

#endif
