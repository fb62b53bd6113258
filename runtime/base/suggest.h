/* suggest: "did you mean" for a word typed at the table. A candidate is
 * offered only when it is close for the word's length (at most a third of
 * its letters put in, left out, changed or swapped), or when the word is an
 * abbreviation of it (`lvl` for `level`), or, last, when it is (that close
 * to) one of the words of a name joined with '_' (`attack` for
 * `melee_attack`); a difference of case alone is closest of all. Of the
 * close ones, the fewest edits win, the first considered on a tie. */
#ifndef FRAY_SUGGEST_H
#define FRAY_SUGGEST_H

#include <stdbool.h>

#define SUGGEST_MAX 63 /* the longest word compared */

typedef struct suggestion {
    const char *typed;
    bool found;                 /* false: nothing close */
    char best[SUGGEST_MAX + 1]; /* the closest candidate (a copy) */
    int score;                  /* of best: lower is closer */
    int tag;                    /* the caller's tag for best (what kind of thing it is) */
} suggestion;

void suggest_init(suggestion *s, const char *typed);
/* Considers one candidate, remembered with tag if it is the closest yet. */
void suggest_consider(suggestion *s, const char *candidate, int tag);

#endif
