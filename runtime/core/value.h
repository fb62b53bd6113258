/* value: the VM's values. Sixteen bytes, no pointers: anything larger than
 * a number (dice expressions, strings, lists, roll records) lives in a table
 * owned by the program or the VM and is referred to by index, so values
 * copy freely and need no collector. */
#ifndef FRAY_VALUE_H
#define FRAY_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VALUE_TYPES(X)         \
    X(NIL, "nothing")          \
    X(BOOL, "boolean")         \
    X(INT, "integer")          \
    X(FRAC, "fraction")        \
    X(DIST, "distance")        \
    X(TIME, "duration")        \
    X(DICE, "dice")            \
    X(ROLL, "roll")            \
    X(STR, "string")           \
    X(ENUM, "enum member")     \
    X(CREATURE, "creature")    \
    X(LIST, "list")            \
    X(WORD, "word")            \
    X(DISTRIB, "distribution") \
    X(ITEM, "item")            \
    X(SQUARE, "square")

typedef enum {
#define VALUE_ENUM(name, desc) V_##name,
    VALUE_TYPES(VALUE_ENUM)
#undef VALUE_ENUM
        V_TYPE_COUNT
} value_type;

const char *value_type_name(value_type t);

/* Kinds of time. Seconds, minutes and hours share one kind (seconds); the
 * rest count their own units because a round's length is the system's
 * business and encounters end when the GM says so. A period the rules
 * declare is the kind TIME_PERIOD + its index (rules.h). */
#define TIME_KINDS(X)                                        \
    X(SECONDS, "s", "s")                                     \
    X(ROUNDS, "round", "rounds")                             \
    X(TURNS, "turn", "turns")                                \
    X(ENCOUNTERS, "encounter", "encounters")                 \
    /* end points: count 1 is the first one to come */       \
    X(UNTIL_TURN_START, "start of turn", "start of turn")    \
    X(UNTIL_TURN_END, "end of turn", "end of turn")          \
    X(UNTIL_ROUND_START, "start of round", "start of round") \
    X(UNTIL_ROUND_END, "end of round", "end of round")

typedef enum {
#define TIME_ENUM(name, one, many) TIME_##name,
    TIME_KINDS(TIME_ENUM)
#undef TIME_ENUM
        TIME_KIND_COUNT,
    TIME_PERIOD = TIME_KIND_COUNT /* the first declared period */
} time_kind;
/* A V_TIME value keeps its kind in a byte. */
#define TIME_PERIODS_MAX (256 - TIME_PERIOD)

const char *time_kind_name(time_kind k, int64_t count);
/* End points (`until start of next turn`) are times that do not add up. */
static inline bool time_kind_is_mark(time_kind k)
{
    return k >= TIME_UNTIL_TURN_START && k < TIME_KIND_COUNT;
}

/* Where an indexed object lives: in the program's constant tables (shared,
 * immutable), in the VM's scratch tables (dropped after each command), or
 * in the VM's kept tables (values stored in variables and stats). */
enum { HOME_PROGRAM = 0, HOME_VM = 1, HOME_KEPT = 2 };

typedef struct value {
    uint8_t type; /* value_type */
    uint8_t home; /* HOME_* for DICE, STR, LIST, WORD; time_kind for TIME */
    uint16_t pad; /* FRAC/DIST: the denominator's high 16 bits */
    int32_t aux;  /* FRAC/DIST: its low 32 bits (read them with value_den); ROLL: roll record; ENUM: enum id */
    int64_t num;  /* BOOL/INT: value; FRAC/DIST: numerator; ROLL: total; others: index */
} value;

/* A fraction's (or a distance's) denominator has 48 bits, the room a
 * sixteen-byte value has beside its numerator: enough for a decimal's 12
 * places (10^12) times a few hundred, or 1/3037000499. */
#define VALUE_DEN_BITS 48
#define VALUE_DEN_MAX ((INT64_C(1) << VALUE_DEN_BITS) - 1)

/* The denominator of a FRAC or DIST (1 for any other number). */
static inline int64_t value_den(value v)
{
    if (v.type != V_FRAC && v.type != V_DIST)
        return 1;
    return (int64_t)((uint64_t)v.pad << 32 | (uint32_t)v.aux);
}
/* A FRAC or DIST as it stands, num/den with 1 <= den <= VALUE_DEN_MAX (not
 * reduced: rat_make reduces and checks). */
static inline value value_ratio(value_type t, int64_t num, int64_t den)
{
    return (value){
        .type = (uint8_t)t, .pad = (uint16_t)((uint64_t)den >> 32), .aux = (int32_t)(uint32_t)den, .num = num};
}

/* The same value, bit for bit (a fraction's whole denominator included). */
static inline bool value_identical(value a, value b)
{
    return a.type == b.type && a.home == b.home && a.pad == b.pad && a.aux == b.aux && a.num == b.num;
}

static inline value value_nil(void)
{
    return (value){.type = V_NIL};
}
static inline value value_bool(bool b)
{
    return (value){.type = V_BOOL, .num = b};
}
static inline value value_int(int64_t i)
{
    return (value){.type = V_INT, .aux = 1, .num = i};
}
static inline value value_ref(value_type t, uint8_t home, int64_t index)
{
    return (value){.type = (uint8_t)t, .home = home, .num = index};
}
static inline value value_time(time_kind k, int64_t n)
{
    return (value){.type = V_TIME, .home = (uint8_t)k, .num = n};
}
static inline value value_enum(int32_t enum_id, int64_t member)
{
    return (value){.type = V_ENUM, .aux = enum_id, .num = member};
}
/* A square of the grid: column x and row y, both from 0. */
static inline value value_square(int32_t x, int32_t y)
{
    return (value){.type = V_SQUARE, .aux = x, .num = y};
}

/* The longest string a rules file may write or text() may build, by
 * default and at most (--limit string-bytes=N): every string a rule can
 * hold. */
#define STRING_DEFAULT_BYTES 65536
#define STRING_MAX_BYTES (1 << 30)

/* How deep anything Fray walks by recursion may nest, by default and at
 * most (--limit nesting=N): the syntax tree of a rules file (brackets,
 * blocks, operators) and lists held in lists. Each walker recurses once a
 * level, so the maximum is what the smallest stack Fray runs on (8 MiB,
 * the main thread's usual and `fray sim`'s workers') holds with room to
 * spare for the deepest walker, under the sanitizers too. */
#define NESTING_DEFAULT 1000
#define NESTING_MAX 10000

/* Squares are written as a column letter and a row number, as on a battle
 * map: A1 (or a1) is (0, 0), B3 is (1, 2); after Z come AA, AB, ... Columns
 * and rows are numbered up to SQUARE_MAX: the map ends there. */
#define SQUARE_MAX 100000
bool square_parse(const char *text, int32_t *x, int32_t *y);
/* Why text, written as a square (letters of one case, then a number), is
 * none ("rows are numbered from 1"); NULL when it is a square, or is not
 * written as one. */
const char *square_unnamed(const char *text);
/* snprintf-style. */
int square_format(int32_t x, int32_t y, char *buf, size_t cap);

/* Results of arithmetic: OK, or which error, so the VM can report it at the
 * instruction's location. */
typedef enum {
    ARITH_OK,
    ARITH_OVERFLOW,
    ARITH_TOO_FINE, /* a fraction whose denominator passes VALUE_DEN_MAX */
    ARITH_DIV_ZERO,
    ARITH_TYPE,
} arith_status;

/* Exact rationals: a 64-bit numerator over a denominator of 1 to
 * VALUE_DEN_MAX, always reduced; a result that does not fit is an error. */
arith_status rat_make(int64_t num, int64_t den, value_type t, value *out);

/* A decimal's digits after the point, at most (doc/language.md, 2.4). */
#define DECIMAL_PLACES 12
#define DECIMAL_PLACES_TEXT "12"
typedef enum { DECIMAL_OK, DECIMAL_TOO_LARGE, DECIMAL_TOO_PRECISE } decimal_status;
/* A decimal as rules and answers write it, digits and at most one point
 * ("1.5"; with percent, "12.5" of "12.5%"), as num/den reduced: 3/2. */
decimal_status value_parse_decimal(const char *text, size_t len, bool percent, int64_t *num, int64_t *den);
arith_status rat_add(value a, value b, value_type t, value *out, int sign);
arith_status rat_mul(value a, value b, value_type t, value *out);
arith_status rat_div(value a, value b, value_type t, value *out);
int rat_cmp(value a, value b); /* -1, 0, 1 on the numeric parts */

/* Numbers: INT or FRAC (and ROLL as its total). */
bool value_is_number(value v);
/* Numeric value as a fraction (INT -> n/1, ROLL -> total/1). */
value value_as_frac(value v);
int64_t value_floor(value v);
int64_t value_ceil(value v);
int64_t value_round(value v); /* half away from zero */

bool value_truthy(value v);

#endif
