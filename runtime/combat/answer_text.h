/* answer_text: a ruling's answer as a person types it (at the question,
 * or to `fray sim --answer`), read as the value the rules see. */
#ifndef FRAY_ANSWER_TEXT_H
#define FRAY_ANSWER_TEXT_H

#include <stdbool.h>

#include "runtime/core/program.h"
#include "runtime/core/rules.h"
#include "runtime/core/value.h"

/* Whether s is a word as the rules write names (a letter or _, then
   letters, digits and _). */
bool answer_text_is_word(const char *s);
/* yes/y/true or no/n/false, in any case. */
bool answer_text_yes_no(const char *s, bool *yes);
/* The text read as an answer of kind k, other than a creature (which only
   the world in play can name): yes or no, a number (whole, a fraction or
   a decimal, kept exact), or a word (interned in p). NULL, or why not, as
   advice to the one answering ("answer yes or no"). */
const char *answer_text_parse(program *p, answer_kind k, const char *s, value *out);

#endif
