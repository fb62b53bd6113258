/* format: the canonical layout of a rules file, for `fray fmt`. The
 * layout itself is described at the top of lang/format.c. */
#ifndef FRAY_FORMAT_H
#define FRAY_FORMAT_H

#include <stddef.h>

#include "lang/compile.h"
#include "lang/diag.h"
#include "runtime/base/source.h"

typedef enum {
    FORMAT_OK,
    FORMAT_SYNTAX, /* src does not parse, or passes a limit; the errors went to the sink */
    FORMAT_NOMEM,
    FORMAT_UNSAFE /* the layout would not scan to the same tokens (a bug): nothing produced */
} format_status;

/* Lays src out canonically, to the limits of opts as the compiler meets them
 * (NULL: the defaults; nesting, string bytes, and memory for all it does).
 * On FORMAT_OK, *out is a NUL-terminated text of
 * *out_len bytes, to free with format_free. The result always scans to the
 * same token stream as src (format_tokens), which is checked before it is
 * returned. */
format_status format_source(const source *src, const compile_options *opts, diag_sink *sink, char **out,
                            size_t *out_len);

/* The tokens the parser sees in src, one a line ("class text", e.g.
 * "name hp", "keyword stat", "index [", ";"), leaving out the `;` that
 * cannot change the parse (repeated, after `{`, before `}`, at either end).
 * Two files with the same stream compile to the same program. */
format_status format_tokens(const source *src, const compile_options *opts, diag_sink *sink, char **out,
                            size_t *out_len);

void format_free(char *text, size_t len);

#endif
