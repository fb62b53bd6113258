/* dice_hint: Fray's spelling of a roll written the way other dice tools
 * write it (`d20 adv`, `2d20H`, `4d6H3`, `2d20k`), for a "did you mean"
 * where such a roll fails to read. */
#ifndef FRAY_DICE_HINT_H
#define FRAY_DICE_HINT_H

#include <stdbool.h>
#include <stddef.h>

/* The roll dice (`NdS`, N optional) followed by the word how (`adv`,
   `H3`, ...) as Fray writes it, into out (cap bytes); false when how is
   no notation it knows. */
bool dice_hint(const char *dice, size_t dice_len, const char *how, size_t how_len, char *out, size_t cap);

/* The same for one word that runs the two together (`2d20H`, `1d20adv`). */
bool dice_hint_word(const char *word, size_t len, char *out, size_t cap);

#endif
