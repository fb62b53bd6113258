/* answer_text: answers as typed, read as values (answer_text.h). */
#include "runtime/combat/answer_text.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

bool answer_text_is_word(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

bool answer_text_yes_no(const char *s, bool *yes)
{
    static const char *const yeses[] = {"y", "yes", "true"}, *const noes[] = {"n", "no", "false"};
    for (size_t i = 0; i < 3; i++) {
        if (!strcasecmp(s, yeses[i]))
            return *yes = true;
        if (!strcasecmp(s, noes[i])) {
            *yes = false;
            return true;
        }
    }
    return false;
}

/* A number as a person types it: whole (-2), a fraction (1/3) or a decimal
   (0.25, kept exact as 1/4), as the rules write numbers; NULL, or why not. */
static const char *parse_number(const char *s, value *out)
{
    static const char *const how = "answer with a number (as in 3, -2, 1/3 or 0.25)";
    bool negative = *s == '-';
    const char *digits = s + negative;
    size_t len = strspn(digits, "0123456789."), whole = strspn(digits, "0123456789");
    /* digits first, and after a point digits only */
    if (whole == 0 || (len > whole && strspn(digits + whole + 1, "0123456789") != len - whole - 1) || len == whole + 1)
        return how;
    int64_t num, den = 1;
    decimal_status st = value_parse_decimal(digits, len, false, &num, &den);
    if (st == DECIMAL_TOO_PRECISE)
        return "answer with at most " DECIMAL_PLACES_TEXT " digits after the point";
    if (st != DECIMAL_OK)
        return "answer with a number that fits in 64 bits";
    const char *rest = digits + len;
    if (*rest == '/' && len == whole) {
        /* a fraction: whole numbers above and below */
        size_t below = strspn(rest + 1, "0123456789");
        int64_t d, one;
        if (below == 0 || rest[1 + below] || value_parse_decimal(rest + 1, below, false, &d, &one) != DECIMAL_OK)
            return below == 0 || rest[1 + below] ? how : "answer with a number that fits in 64 bits";
        if (d == 0)
            return "a fraction's denominator is not 0";
        den = d;
    } else if (*rest) {
        return how;
    }
    if (rat_make(negative ? -num : num, den, V_FRAC, out) != ARITH_OK)
        return "answer with a number that fits in 64 bits";
    return NULL;
}

const char *answer_text_parse(program *p, answer_kind k, const char *s, value *out)
{
    switch (k) {
    case ANSWER_YES_NO: {
        bool yes;
        if (!answer_text_yes_no(s, &yes))
            return "answer yes or no";
        *out = value_bool(yes);
        return NULL;
    }
    case ANSWER_NUMBER: return parse_number(s, out);
    case ANSWER_WORD: {
        int id = answer_text_is_word(s) ? program_intern(p, s, strlen(s)) : -1;
        if (id < 0)
            return "answer with a word";
        *out = value_ref(V_WORD, HOME_PROGRAM, id);
        return NULL;
    }
    case ANSWER_CREATURE: break;
    }
    return "answer with a creature's name";
}
