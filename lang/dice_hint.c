/* dice_hint: Fray's spelling of other dice tools' notations (dice_hint.h). */
#include "lang/dice_hint.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* `NdS` (N optional, at most 9 digits each): true with the numbers, N 0
   when it is left out. */
static bool plain_dice(const char *s, size_t len, long *count, long *sides)
{
    size_t i = 0;
    *count = *sides = 0;
    while (i < len && isdigit((unsigned char)s[i]) && i < 9)
        *count = *count * 10 + (s[i++] - '0');
    if (i >= len || s[i] != 'd')
        return false;
    size_t from = ++i;
    while (i < len && isdigit((unsigned char)s[i]) && i - from < 9)
        *sides = *sides * 10 + (s[i++] - '0');
    return i == len && i > from && *sides > 0;
}

static bool word_is(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

bool dice_hint(const char *dice, size_t dice_len, const char *how, size_t how_len, char *out, size_t cap)
{
    long count, sides;
    if (!plain_dice(dice, dice_len, &count, &sides) || how_len == 0)
        return false;
    /* advantage and disadvantage: the die twice, the better or worse kept */
    bool adv = word_is(how, how_len, "adv") || word_is(how, how_len, "advantage");
    bool dis = word_is(how, how_len, "dis") || word_is(how, how_len, "disadv") || word_is(how, how_len, "disadvantage");
    if ((adv || dis) && count <= 2)
        return snprintf(out, cap, "2d%ld%s1", sides, adv ? "kh" : "kl") < (int)cap;
    /* H, L (keep the highest or lowest, one unless a number follows) and k
       without its number */
    char first = how[0];
    size_t i = 1;
    long keep = 0;
    while (i < how_len && isdigit((unsigned char)how[i]) && i < 9)
        keep = keep * 10 + (how[i++] - '0');
    if (i != how_len || !(first == 'H' || first == 'h' || first == 'L' || first == 'l' || first == 'k'))
        return false;
    if (count == 0)
        count = 1;
    if (keep == 0)
        keep = 1;
    if (keep > count)
        return false;
    return snprintf(out, cap, "%ldd%ld%s%ld", count, sides, first == 'L' || first == 'l' ? "kl" : "kh", keep) <
           (int)cap;
}

bool dice_hint_word(const char *word, size_t len, char *out, size_t cap)
{
    /* the dice end where their sides' digits do */
    const char *d = memchr(word, 'd', len);
    if (!d)
        return false;
    size_t at = (size_t)(d - word) + 1;
    while (at < len && isdigit((unsigned char)word[at]))
        at++;
    return at < len && dice_hint(word, at, word + at, len - at, out, cap);
}
