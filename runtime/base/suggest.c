/* suggest: ranked suggestions for a mistyped word. */
#include <ctype.h>
#include <string.h>

#include "runtime/base/suggest.h"

void suggest_init(suggestion *s, const char *typed)
{
    *s = (suggestion){.typed = typed};
}

static void lower(char *out, const char *in)
{
    size_t i = 0;
    for (; in[i] && i < SUGGEST_MAX; i++)
        out[i] = (char)tolower((unsigned char)in[i]);
    out[i] = '\0';
}

/* `lvl` for `level`, `dmg` for `damage`: the candidate with some of its
   vowels (or underscores) left out, its first letter kept */
static bool abbreviates(const char *typed, const char *cand)
{
    size_t lt = strlen(typed), lc = strlen(cand);
    if (lt < 3 || lc <= lt || typed[0] != cand[0])
        return false;
    const char *t = typed;
    for (const char *c = cand; *c; c++) {
        if (*t && *c == *t)
            t++;
        else if (!strchr("aeiouy_", *c))
            return false;
    }
    return *t == '\0';
}

/* Edits between a and b: a letter put in, left out, changed, or two
   letters swapped (`dron` for `dorn` is one). */
static int edits(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The fewest edits from t to one of the words cand joins with '_' (`attack`
   in `melee_attack`), or -1 when cand is one word. */
static int edits_to_part(const char *t, const char *c)
{
    if (!strchr(c, '_'))
        return -1;
    int best = -1;
    char part[SUGGEST_MAX + 1];
    for (const char *p = c; *p;) {
        size_t n = strcspn(p, "_");
        memcpy(part, p, n);
        part[n] = '\0';
        int d = n ? edits(t, part) : -1;
        if (d >= 0 && (best < 0 || d < best))
            best = d;
        p += n + (p[n] == '_');
    }
    return best;
}

/* How far cand is from typed, in edits (case ignored, a case difference
   counting less than one edit), or -1 when it is not close: more edits
   than a third of the word's letters, to the whole or to one of its words (a word of one or two letters is
   close to nothing but itself in another case). Scores are doubled edits:
   1 is a difference of case only. */
static int closeness(const char *typed, const char *cand)
{
    if (strlen(typed) > SUGGEST_MAX || strlen(cand) > SUGGEST_MAX || strcmp(typed, cand) == 0)
        return -1;
    char t[SUGGEST_MAX + 1], c[SUGGEST_MAX + 1];
    lower(t, typed);
    lower(c, cand);
    int allowed = (int)strlen(t) / 3;
    int d = edits(t, c);
    if (d == 0)
        return 1;
    if (d <= allowed)
        return 2 * d;
    if (abbreviates(t, c))
        return 2 * allowed + 1;
    /* a word of it, or close to one (`atack` for `melee_attack`): after
       everything close to the whole; a digit marks one of many (`wolf3`
       is no misspelt `wolf_1`), so such a word must be one of them */
    int part = strlen(t) >= 3 ? edits_to_part(t, c) : -1;
    if (part >= 0 && part <= (strpbrk(t, "0123456789") ? 0 : allowed))
        return 2 * allowed + 2 + 2 * part;
    return -1;
}

void suggest_consider(suggestion *s, const char *candidate, int tag)
{
    int score = closeness(s->typed, candidate);
    if (score < 0 || (s->found && score >= s->score))
        return;
    s->found = true;
    strcpy(s->best, candidate); /* closeness refused anything longer */
    s->score = score;
    s->tag = tag;
}
