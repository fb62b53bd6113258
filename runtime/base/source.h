/* source: what the front end and the runtime both speak of, and so neither
 * owns: a named text buffer with a line table, spans into it, and the kinds
 * of declaration. Locations are byte offsets; lines and columns are
 * computed only when a diagnostic or a listing needs them. */
#ifndef FRAY_SOURCE_H
#define FRAY_SOURCE_H

#define SOURCE_BOM "\xEF\xBB\xBF" /* UTF-8's byte order mark */

#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct span {
    uint32_t start, end; /* byte offsets, end exclusive */
    uint32_t source;     /* index in the owner's source table (32 bits: copies of a span move whole words) */
} span;

typedef struct source {
    char *name; /* as given by the user, e.g. "rules/legend.rules" */
    char *text; /* NUL-terminated copy, without a UTF-8 byte order mark it began with */
    size_t len;
    bool bom;              /* it began with one: columns and lines count from after it */
    uint32_t *line_starts; /* offset of each line's first byte */
    size_t nlines, line_cap;
    bool not_text;      /* not rules text (binary, or not UTF-8): its lines are never shown */
    bool library;       /* a module `use` found in the library or on the search path: not the user's own text */
    atomic_uint shares; /* owners besides the first (source_share) */
} source;

/* Takes copies of name and text (a UTF-8 byte order mark at its start is
 * left out: editors write one, and it is no part of the rules). NULL on
 * allocation failure. */
source *source_new(const char *name, const char *text, size_t len);
/* s, held by one more owner (a context copied whole: fray_clone): a
 * source never changes once made, so copies share it, each freeing it
 * once. */
source *source_share(source *s);
void source_free(source *s);

/* 1-based line and column (column counted in characters, not bytes). */
void source_line_col(const source *s, uint32_t offset, int *line, int *col);
/* The text of line `line` (1-based) without its newline. */
const char *source_line(const source *s, int line, size_t *len);

static inline span span_join(span a, span b)
{
    span s = a;
    if (b.end > s.end)
        s.end = b.end;
    if (b.start < s.start)
        s.start = b.start;
    return s;
}

/* Declaration and command keywords (the `op` of DECL and COMMAND). */
#define DECL_KINDS(X)                     \
    X(SYSTEM, "system")                   \
    X(STAT, "stat")                       \
    X(RESOURCE, "resource")               \
    X(ENUM, "enum")                       \
    X(ECONOMY, "economy")                 \
    X(EXCHANGE, "exchange")               \
    X(INITIATIVE, "initiative")           \
    X(ROUND, "round")                     \
    X(DURATION, "duration")               \
    X(RANGE, "range")                     \
    X(SPACE, "space")                     \
    X(CONDITION, "condition")             \
    X(ACTION, "action")                   \
    X(PROCEDURE, "procedure")             \
    X(TRIGGER, "trigger")                 \
    X(RULING, "ruling")                   \
    X(CREATURE, "creature")               \
    X(CHECK, "check")                     \
    X(BONUS, "bonus")                     \
    X(RELATION, "relation")               \
    X(ITEM, "item")                       \
    X(ENCOUNTER, "encounter")             \
    X(TACTIC, "tactic")                   \
    X(SIDE, "side")                       \
    X(TRACK, "track")                     \
    X(PERIOD, "period")                   \
    X(BEGIN, "begin")                     \
    X(END, "end")                         \
    X(SHOW, "show")                       \
    X(ROLL_INITIATIVE, "roll initiative") \
    X(ACT, "act")

typedef enum {
#define DECL_ENUM(name, word) DK_##name,
    DECL_KINDS(DECL_ENUM)
#undef DECL_ENUM
        DK_COUNT
} decl_kind;

const char *decl_kind_name(decl_kind k);

#endif
