/* diag: diagnostics in the GCC format, delivered through a callback so the
 * CLI, the REPL, tests and embedders each decide where they go. */
#ifndef FRAY_DIAG_H
#define FRAY_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "runtime/base/source.h"

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } diag_level;

typedef struct diag {
    diag_level level;
    const source *src; /* may be NULL for errors without a location */
    span where;
    const char *message;
} diag;

typedef void (*diag_fn)(void *user, const diag *d);

typedef struct diag_sink {
    diag_fn fn;
    void *user;
    int errors, warnings;
    int max_errors;   /* stop reporting after this many (0 = no cap) ... */
    int counted_from; /* ... errors since this count: one file's, one command's */
} diag_sink;

/* The cap on errors counts from here: a new file or command. */
static inline void diag_sink_restart(diag_sink *sink)
{
    sink->counted_from = sink->errors;
}

void diag_report(diag_sink *sink, diag_level level, const source *src, span where, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void diag_vreport(diag_sink *sink, diag_level level, const source *src, span where, const char *fmt, va_list ap);

/* Writes `file:line:col: error: message`, the source line and a caret
 * line (`^~~~` under the span) to out. Color only if `color`. */
void diag_print(FILE *out, const diag *d, bool color);

/* A diag_fn that prints to the FILE* given as user data, without color. */
void diag_print_fn(void *user, const diag *d);

/* Levenshtein distance, capped; for "did you mean" suggestions. */
int diag_edit_distance(const char *a, const char *b, int cap);

#endif
