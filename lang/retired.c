#include "lang/retired.h"

#include <stddef.h>
#include <string.h>

typedef struct retired_word {
    const char *where, *word, *instead;
} retired_word;

#define GROUPS_ARE_RELATIONS                                                                                       \
    "groups and engagements are relations held by a group (relation grouped(a, b) { group max N; within zone }), " \
    "formed with relate(grouped, a, b) and asked with related() and partners()"
#define CHAINS_IN_THE_LIBRARY "dice chains are in the library: use chains, then chain([d4, d6, ...])"

static const retired_word retired[] = {
    {"initiative", "tiebreak", "a tiebreak is part of the score: score CHECK + EXPR"},
    {"range", "corners", "a range counts its own diagonals: diagonal 1.5 [when EXPR] leaves out the corners"},
    {"function", "zone_has", "a zone's traits are tags: has_tag(zone_of(c), \"TRAIT\")"},
    {"function", "chain", CHAINS_IN_THE_LIBRARY},
    {"function", "chain_steps", CHAINS_IN_THE_LIBRARY},
    {"function", "grouped", GROUPS_ARE_RELATIONS},
    {"function", "engaged", GROUPS_ARE_RELATIONS},
    {"function", "engaged_with", GROUPS_ARE_RELATIONS},
    {"function", "group_of", GROUPS_ARE_RELATIONS},
    {"function", "join", GROUPS_ARE_RELATIONS},
    {"function", "separate", GROUPS_ARE_RELATIONS},
    {"function", "engage", GROUPS_ARE_RELATIONS},
    {"function", "disengage", GROUPS_ARE_RELATIONS},
    {"command", "join", GROUPS_ARE_RELATIONS},
    {"command", "engage", GROUPS_ARE_RELATIONS},
};

const char *retired_instead(const char *where, const char *word)
{
    for (size_t i = 0; i < sizeof retired / sizeof retired[0]; i++)
        if (!strcmp(retired[i].where, where) && !strcmp(retired[i].word, word))
            return retired[i].instead;
    return NULL;
}
