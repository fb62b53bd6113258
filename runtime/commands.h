/* commands: the ids of the play commands listed in commands.def. */
#ifndef FRAY_COMMANDS_H
#define FRAY_COMMANDS_H

typedef enum {
#define COMMAND(id, word, usage, meaning) CMD_##id,
#include "runtime/commands.def"
#undef COMMAND
    CMD_COUNT
} command_id;

extern const char *const command_words[CMD_COUNT];
extern const char *const command_usage[CMD_COUNT];
extern const char *const command_meaning[CMD_COUNT];

#endif
