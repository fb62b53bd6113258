/* retired: words the language once had and no longer has, each with what
 * to write instead, so that rules written for an earlier Fray meet a way
 * forward where they would meet "unknown". */
#ifndef FRAY_RETIRED_H
#define FRAY_RETIRED_H

/* What to write instead of `word` where `where` is: the name of a
 * declaration for its clauses ("initiative", "range"), "function" or
 * "command"; NULL if it is not a retired word there. */
const char *retired_instead(const char *where, const char *word);

#endif
