#include "runtime/core/value.h"

#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {
#define VALUE_NAME(name, desc) desc,
    VALUE_TYPES(VALUE_NAME)
#undef VALUE_NAME
};

const char *value_type_name(value_type t)
{
    return t < V_TYPE_COUNT ? type_names[t] : "?";
}

static const char *const time_one[] = {
#define TIME_ONE(name, one, many) one,
    TIME_KINDS(TIME_ONE)
#undef TIME_ONE
};
static const char *const time_many[] = {
#define TIME_MANY(name, one, many) many,
    TIME_KINDS(TIME_MANY)
#undef TIME_MANY
};

const char *time_kind_name(time_kind k, int64_t count)
{
    if (k >= TIME_KIND_COUNT)
        return "?";
    return count == 1 ? time_one[k] : time_many[k];
}

/* The arithmetic works in 128 bits: a numerator times a denominator
 * (63 + 48 bits), or the sum of two such products, always fits, so a
 * result is refused only when, reduced, it does not fit a value. */
typedef __int128 wide;

static wide gcd_wide(wide a, wide b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b) {
        if (a <= UINT64_MAX && b <= UINT64_MAX) { /* the usual: a 64-bit division is many times cheaper */
            uint64_t x = (uint64_t)a, y = (uint64_t)b;
            while (y) {
                uint64_t t = x % y;
                x = y;
                y = t;
            }
            return x;
        }
        wide t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static arith_status make_wide(wide num, wide den, value_type t, value *out)
{
    if (den == 0)
        return ARITH_DIV_ZERO;
    if (den < 0) {
        num = -num;
        den = -den;
    }
    if (den != 1) {
        wide g = gcd_wide(num, den);
        if (g > 1) {
            num /= g;
            den /= g;
        }
    }
    if (num > INT64_MAX || num < INT64_MIN)
        return ARITH_OVERFLOW;
    if (den > VALUE_DEN_MAX)
        return ARITH_TOO_FINE;
    if (t == V_INT || t == V_FRAC)
        t = den == 1 ? V_INT : V_FRAC;
    *out = t == V_INT ? value_int((int64_t)num) : value_ratio(t, (int64_t)num, (int64_t)den);
    return ARITH_OK;
}

arith_status rat_make(int64_t num, int64_t den, value_type t, value *out)
{
    if (den == 1 && (t == V_INT || t == V_FRAC)) { /* a whole number: nothing to reduce */
        *out = value_int(num);
        return ARITH_OK;
    }
    return make_wide(num, den, t, out);
}

/* "1.5" -> 3/2 exactly; "50%" -> 1/2, "12.5%" -> 1/8. The digits are read
   in 128 bits and the fraction reduced before it must fit: a numerator in
   64 bits, a denominator of at most 10^12 (100 times that for a percent). */
decimal_status value_parse_decimal(const char *text, size_t len, bool percent, int64_t *num, int64_t *den)
{
    __int128 n = 0, scale = 1;
    int places = -1; /* digits after the point; -1 before it */
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '.') {
            places = 0;
            continue;
        }
        if (places >= 0 && ++places > DECIMAL_PLACES)
            return DECIMAL_TOO_PRECISE;
        n = n * 10 + (text[i] - '0');
        if (places > 0)
            scale *= 10;
        /* past this, no reduction by the scale brings it under 2^63 */
        if (n > (__int128)INT64_MAX * 100000000000000LL)
            return DECIMAL_TOO_LARGE;
    }
    if (percent)
        scale *= 100;
    __int128 a = n, b = scale;
    while (b) {
        __int128 t = a % b;
        a = b;
        b = t;
    }
    if (a > 1) {
        n /= a;
        scale /= a;
    }
    if (n > INT64_MAX)
        return DECIMAL_TOO_LARGE;
    *num = (int64_t)n;
    *den = (int64_t)scale;
    return DECIMAL_OK;
}

static void parts(value v, int64_t *n, int64_t *d)
{
    *n = v.num;
    *d = value_den(v);
}

arith_status rat_add(value a, value b, value_type t, value *out, int sign)
{
    if (a.type == V_INT && b.type == V_INT && t == V_INT) { /* the usual sum: no fractions, no 128 bits */
        int64_t n;
        if (sign < 0 ? __builtin_sub_overflow(a.num, b.num, &n) : __builtin_add_overflow(a.num, b.num, &n))
            return ARITH_OVERFLOW;
        *out = value_int(n);
        return ARITH_OK;
    }
    int64_t an, ad, bn, bd;
    parts(a, &an, &ad);
    parts(b, &bn, &bd);
    wide right = sign < 0 ? -(wide)bn : (wide)bn;
    if (ad == bd)
        return make_wide((wide)an + right, ad, t, out);
    return make_wide((wide)an * bd + right * ad, (wide)ad * bd, t, out);
}

arith_status rat_mul(value a, value b, value_type t, value *out)
{
    if (a.type == V_INT && b.type == V_INT && t == V_INT) {
        int64_t n;
        if (__builtin_mul_overflow(a.num, b.num, &n))
            return ARITH_OVERFLOW;
        *out = value_int(n);
        return ARITH_OK;
    }
    int64_t an, ad, bn, bd;
    parts(a, &an, &ad);
    parts(b, &bn, &bd);
    return make_wide((wide)an * bn, (wide)ad * bd, t, out);
}

arith_status rat_div(value a, value b, value_type t, value *out)
{
    int64_t an, ad, bn, bd;
    parts(a, &an, &ad);
    parts(b, &bn, &bd);
    if (bn == 0)
        return ARITH_DIV_ZERO;
    return make_wide((wide)an * bd, (wide)ad * bn, t, out);
}

int rat_cmp(value a, value b)
{
    int64_t an, ad, bn, bd;
    parts(a, &an, &ad);
    parts(b, &bn, &bd);
    wide l = (wide)an * bd, r = (wide)bn * ad;
    return l < r ? -1 : l > r;
}

bool value_is_number(value v)
{
    return v.type == V_INT || v.type == V_FRAC || v.type == V_ROLL;
}

value value_as_frac(value v)
{
    if (v.type == V_ROLL || v.type == V_BOOL)
        return value_int(v.num);
    return v;
}

static int64_t floor_div(int64_t n, int64_t d)
{
    int64_t q = n / d;
    if ((n % d != 0) && ((n < 0) != (d < 0)))
        q--;
    return q;
}

int64_t value_floor(value v)
{
    int64_t n, d;
    parts(v, &n, &d);
    return floor_div(n, d);
}

int64_t value_ceil(value v)
{
    int64_t n, d;
    parts(v, &n, &d);
    return -floor_div(-n, d);
}

int64_t value_round(value v)
{
    int64_t n, d;
    parts(v, &n, &d);
    int64_t q = n / d, r = n % d; /* truncates toward zero */
    if (r < 0)
        r = -r;
    if (2 * r >= d)
        q += n < 0 ? -1 : 1;
    return q;
}

bool value_truthy(value v)
{
    switch (v.type) {
    case V_NIL: return false;
    case V_BOOL:
    case V_INT:
    case V_FRAC:
    case V_DIST:
    case V_ROLL: return v.num != 0;
    default: return true;
    }
}

bool square_parse(const char *text, int32_t *x, int32_t *y)
{
    int64_t col = 0, row = 0;
    const char *p = text;
    /* a1 or A1: upper case keeps d4 from reading as dice */
    bool upper = *p >= 'A' && *p <= 'Z';
    char lo = upper ? 'A' : 'a', hi = upper ? 'Z' : 'z';
    if (!(*p >= lo && *p <= hi))
        return false;
    while (*p >= lo && *p <= hi) {
        col = col * 26 + (*p - lo + 1);
        if (col > SQUARE_MAX)
            return false;
        p++;
    }
    if (!(*p >= '1' && *p <= '9'))
        return false;
    while (*p >= '0' && *p <= '9') {
        row = row * 10 + (*p - '0');
        if (row > SQUARE_MAX)
            return false;
        p++;
    }
    if (*p)
        return false;
    *x = (int32_t)(col - 1);
    *y = (int32_t)(row - 1);
    return true;
}

#define TEXT_OF(n) #n
#define TEXT(n) TEXT_OF(n)
#define SQUARE_MAX_TEXT TEXT(SQUARE_MAX)

const char *square_unnamed(const char *text)
{
    int32_t x, y;
    const char *p = text;
    bool upper = *p >= 'A' && *p <= 'Z';
    char lo = upper ? 'A' : 'a', hi = upper ? 'Z' : 'z';
    size_t letters = 0, digits = 0;
    while (p[letters] >= lo && p[letters] <= hi)
        letters++;
    while (p[letters + digits] >= '0' && p[letters + digits] <= '9')
        digits++;
    if (!letters || !digits || p[letters + digits] || square_parse(text, &x, &y))
        return NULL;
    if (strspn(p + letters, "0") == digits)
        return "rows are numbered from 1";
    if (p[letters] == '0')
        return "a row number does not start with 0";
    if (letters > 4 || (letters == 4 && memcmp(p, upper ? "EQXD" : "eqxd", 4) > 0))
        return "the map has " SQUARE_MAX_TEXT " columns, A to EQXD";
    return "the map has " SQUARE_MAX_TEXT " rows";
}

int square_format(int32_t x, int32_t y, char *buf, size_t cap)
{
    char col[16];
    int n = 0;
    int64_t c = (int64_t)x + 1;
    while (c > 0 && n < 15) {
        c--;
        col[n++] = (char)('A' + c % 26);
        c /= 26;
    }
    char rev[16];
    for (int i = 0; i < n; i++)
        rev[i] = col[n - 1 - i];
    rev[n] = '\0';
    return snprintf(buf, cap, "%s%d", rev, (int)y + 1);
}
