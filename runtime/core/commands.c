/* commands: the names, usage lines and meanings of the play commands. */
#include "runtime/core/commands.h"

const char *const command_words[CMD_COUNT] = {
#define COMMAND(id, word, usage, meaning) word,
#include "runtime/core/commands.def"
#undef COMMAND
};

const char *const command_usage[CMD_COUNT] = {
#define COMMAND(id, word, usage, meaning) usage,
#include "runtime/core/commands.def"
#undef COMMAND
};

const char *const command_meaning[CMD_COUNT] = {
#define COMMAND(id, word, usage, meaning) meaning,
#include "runtime/core/commands.def"
#undef COMMAND
};
